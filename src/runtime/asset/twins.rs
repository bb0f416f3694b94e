//! Cooked twins through the asset server: [`ForgeTwinReader`] and [`with_cooked_twins`].
use std::path::{Path, PathBuf};

use bevy_asset::io::{
    AssetReader, AssetReaderError, AssetSourceBuilder, ErasedAssetReader, PathStream, Reader,
    VecReader,
};
use bevy_asset::{AsyncReadExt, AsyncSeekExt};

/// An asset reader that reads a scene's cooked twin when its text is missing.
///
/// Cooked twins through the asset server: `asset_server.load("levels/one.forge.ron")` finds
/// `levels/one.forge.bin` when only the cooked file ships.
///
/// The scene loader reads both forms ([`crate::cook`]): it looks at the bytes, not the
/// extension. What an asset source cannot do by itself is give the twin's bytes for the text's
/// path. [`ForgeTwinReader`] wraps a source's reader: a read of `x.forge.ron` that finds no
/// file reads `x.forge.bin` instead (one more read, only on a miss); every other path, and a
/// text file that exists, read as before. So the text wins when both forms are present, a game
/// keeps naming its scenes by their text paths, and prefab paths inside cooked scenes (which
/// bundle their prefabs anyway) need no rewriting.
///
/// Register it for the default source before `AssetPlugin` (Bevy keeps the first source
/// registered under an id):
///
/// ```no_run
/// use bevy_app::App;
/// use bevy_asset::AssetApp;
/// use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
/// use bevy_forge_scene::with_cooked_twins;
///
/// let mut app = App::new();
/// app.register_asset_source(
///     AssetSourceId::Default,
///     with_cooked_twins(AssetSourceBuilder::platform_default("assets", None)),
/// );
/// // then `DefaultPlugins` (or `AssetPlugin`) and `ForgeScenePlugin`
/// ```
///
/// Hot reload follows the file that was read: a handle loaded as `x.forge.ron` whose bytes came
/// from the twin reloads when `x.forge.ron` appears or changes, not when the twin does; load
/// `x.forge.bin` by its own path to watch the cooked file.
pub struct ForgeTwinReader {
    inner: Box<dyn ErasedAssetReader>,
}

impl ForgeTwinReader {
    /// Wraps `inner`, the reader of an asset source.
    pub fn new(inner: Box<dyn ErasedAssetReader>) -> Self {
        Self { inner }
    }
}

/// Twins of this many bytes or more are not read (the loader refuses documents that large).
const MAX_TWIN: u64 = u32::MAX as u64;

/// The twin of `path` when it is a `.forge.ron` scene.
fn twin(path: &Path) -> Option<PathBuf> {
    let text = path.to_str()?;
    crate::cook::twin_path(text).map(PathBuf::from)
}

impl AssetReader for ForgeTwinReader {
    async fn read<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        let missing = match self.inner.read(path).await {
            Err(AssetReaderError::NotFound(missing)) => missing,
            other => return other,
        };
        let Some(twin) = twin(path) else {
            return Err(AssetReaderError::NotFound(missing));
        };
        // The twin is read whole (the loader reads cooked files whole anyway), so the reader
        // does not borrow its path.
        let mut reader = match self.inner.read(&twin).await {
            Ok(reader) => reader,
            // Neither form: the error names the path asked for.
            Err(AssetReaderError::NotFound(_)) => return Err(AssetReaderError::NotFound(missing)),
            Err(e) => return Err(e),
        };
        // No document is 4 GiB or more (the loader refuses those): say so before reading one.
        let too_large = |len: u64| {
            AssetReaderError::Io(std::sync::Arc::new(std::io::Error::other(format!(
                "`{}` (the cooked twin of `{}`) is {len} bytes, more than a scene may be",
                twin.display(),
                path.display()
            ))))
        };
        if let Ok(seekable) = reader.seekable() {
            let len = seekable.seek(std::io::SeekFrom::End(0)).await?;
            seekable.seek(std::io::SeekFrom::Start(0)).await?;
            if len >= MAX_TWIN {
                return Err(too_large(len));
            }
        }
        let mut bytes = Vec::new();
        (&mut reader).take(MAX_TWIN).read_to_end(&mut bytes).await?;
        if bytes.len() as u64 >= MAX_TWIN {
            return Err(too_large(bytes.len() as u64));
        }
        Ok(Box::new(VecReader::new(bytes)) as Box<dyn Reader + 'a>)
    }

    async fn read_meta<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        self.inner.read_meta(path).await
    }

    async fn read_directory<'a>(
        &'a self,
        path: &'a Path,
    ) -> Result<Box<PathStream>, AssetReaderError> {
        self.inner.read_directory(path).await
    }

    async fn is_directory<'a>(&'a self, path: &'a Path) -> Result<bool, AssetReaderError> {
        self.inner.is_directory(path).await
    }
}

/// `builder` with its reader wrapped in a [`ForgeTwinReader`] (its writer, watcher and
/// processed side unchanged).
pub fn with_cooked_twins(mut builder: AssetSourceBuilder) -> AssetSourceBuilder {
    let mut make = std::mem::replace(
        &mut builder.reader,
        Box::new(|| Box::new(bevy_asset::io::memory::MemoryAssetReader::default())),
    );
    builder.reader = Box::new(move || Box::new(ForgeTwinReader::new(make())));
    builder
}
