//! The asset source a render reads from: each scene's own asset folder, and scene text
//! without the game's custom components.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy_internal::asset::io::{AssetReader, AssetReaderError, PathStream, Reader, VecReader};

/// The default asset source of a render: scene `i`'s asset folder for `@i/...` paths, and for
/// every other path the folder of the scene being loaded now (`side`): a prefab file a scene
/// places is read from that scene's own folder, so the two revisions of a review each read
/// their own prefabs.
#[derive(Clone)]
pub(super) struct SideReader {
    pub(super) roots: Vec<PathBuf>,
    pub(super) side: Arc<AtomicUsize>,
}

impl SideReader {
    /// The file on disk of asset path `path`.
    fn resolve(&self, path: &Path) -> PathBuf {
        let text = path.to_string_lossy();
        if let Some(rest) = text.strip_prefix('@')
            && let Some((n, rest)) = rest.split_once('/')
            && let Ok(i) = n.parse::<usize>()
            && let Some(root) = self.roots.get(i)
        {
            return match rest.strip_prefix("@abs") {
                Some(abs) => PathBuf::from(abs),
                None => root.join(rest),
            };
        }
        let i = self.side.load(Ordering::SeqCst);
        match self.roots.get(i).or(self.roots.last()) {
            Some(root) => root.join(path),
            None => path.to_owned(),
        }
    }

    fn bytes(&self, path: &Path) -> Result<VecReader, AssetReaderError> {
        let file = self.resolve(path);
        match std::fs::read(&file) {
            Ok(bytes) if file.to_string_lossy().ends_with(".forge.ron") => {
                Ok(VecReader::new(without_custom(bytes)))
            }
            Ok(bytes) => Ok(VecReader::new(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(AssetReaderError::NotFound(path.to_owned()))
            }
            Err(e) => Err(AssetReaderError::Io(Arc::new(e))),
        }
    }
}

impl AssetReader for SideReader {
    async fn read<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        self.bytes(path)
    }

    async fn read_meta<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        // `AssetMetaCheck::Never`: no `.meta` file is asked for; say so if one is.
        let mut meta = path.as_os_str().to_owned();
        meta.push(".meta");
        self.bytes(Path::new(&meta))
    }

    async fn read_directory<'a>(
        &'a self,
        path: &'a Path,
    ) -> Result<Box<PathStream>, AssetReaderError> {
        Err(AssetReaderError::NotFound(path.to_owned()))
    }

    async fn is_directory<'a>(&'a self, path: &'a Path) -> Result<bool, AssetReaderError> {
        Ok(self.resolve(path).is_dir())
    }
}

/// The scene text `bytes` without its custom components (in entities, and set, added or
/// removed by overrides): they are the game's types, which this program does not have, and
/// they draw nothing. A file with none, or that does not read, is given as it is (so its
/// errors keep their lines and columns).
pub fn without_custom(bytes: Vec<u8>) -> Vec<u8> {
    let Ok(parsed) = bevy_forge_scene::format::SceneDoc::from_slice(&bytes) else {
        return bytes;
    };
    let mut doc = parsed.doc;
    if strip_custom(&mut doc) == 0 {
        bytes
    } else {
        doc.to_canonical_string().into_bytes()
    }
}

/// Takes the custom components out of `doc` (in entities, and set, added or removed by
/// overrides of instances and tile layers); returns how many there were.
pub(super) fn strip_custom(doc: &mut bevy_forge_scene::format::SceneDoc) -> usize {
    use bevy_forge_scene::format::{ComponentData, Override};
    let mut removed = 0;
    let is_custom = |c: &ComponentData| matches!(c, ComponentData::Custom(_));
    let strip = |overrides: &mut Vec<Override>, removed: &mut usize| {
        for o in overrides {
            let before = o.set.len() + o.add.len() + o.remove.len();
            o.set.retain(|p| !is_custom(&p.component));
            o.add.retain(|c| !is_custom(c));
            o.remove.retain(|k| !k.starts_with("custom:"));
            *removed += before - (o.set.len() + o.add.len() + o.remove.len());
        }
    };
    for node in doc.entities.values_mut().map(std::sync::Arc::make_mut) {
        let before = node.components.len();
        node.components.retain(|c| !is_custom(c));
        removed += before - node.components.len();
        if let Some(instance) = &mut node.instance {
            strip(&mut instance.overrides, &mut removed);
        }
    }
    for layer in &mut doc.layers {
        strip(&mut layer.overrides, &mut removed);
    }
    removed
}
