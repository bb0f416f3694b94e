//! What `forge edit` changes for a scene opened without its game: scene text is served to the
//! loader with its custom components left out (the game's types are not there to spawn them),
//! while the files on disk keep them. Every keep starts from the file on disk, so a drag
//! changes only the values it moved and the custom components stay in the file.
//! [`Headless::standalone`](crate::headless::Headless::standalone) builds the same app for
//! tests.

use std::path::{Path, PathBuf};

use bevy_internal::app::App;
use bevy_internal::asset::AssetApp;
use bevy_internal::asset::io::{
    AssetReader, AssetReaderError, AssetSourceBuilder, AssetSourceId, PathStream, Reader, VecReader,
};

/// Serves the folder `assets` as the default asset source with custom components left out of
/// `.forge.ron` text (other files as they are). Call it before Bevy's `AssetPlugin` is added.
pub fn serve_without_custom(app: &mut App, assets: &Path) {
    let root = assets.to_owned();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || Box::new(WithoutCustom { root: root.clone() })),
    );
}

/// The asset folder, with custom components left out of scene text: the game's types are not
/// here to spawn them (the files keep them; keeps change only the values dragged).
struct WithoutCustom {
    root: PathBuf,
}

impl WithoutCustom {
    fn bytes(&self, path: &Path) -> Result<VecReader, AssetReaderError> {
        let file = self.root.join(path);
        match std::fs::read(&file) {
            Ok(bytes) if file.to_string_lossy().ends_with(".forge.ron") => Ok(VecReader::new(
                bevy_forge_scene_render::headless::without_custom(bytes),
            )),
            Ok(bytes) => Ok(VecReader::new(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(AssetReaderError::NotFound(path.to_owned()))
            }
            Err(e) => Err(AssetReaderError::Io(std::sync::Arc::new(e))),
        }
    }
}

impl AssetReader for WithoutCustom {
    async fn read<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        self.bytes(path)
    }

    async fn read_meta<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        Err::<VecReader, _>(AssetReaderError::NotFound(path.to_owned()))
    }

    async fn read_directory<'a>(
        &'a self,
        path: &'a Path,
    ) -> Result<Box<PathStream>, AssetReaderError> {
        Err(AssetReaderError::NotFound(path.to_owned()))
    }

    async fn is_directory<'a>(&'a self, path: &'a Path) -> Result<bool, AssetReaderError> {
        Ok(self.root.join(path).is_dir())
    }
}
