//! Cooked twins through the asset server: `asset_server.load("levels/one.forge.ron")` finds
//! `levels/one.forge.bin` when only the cooked file ships.
//!
//! The scene loader reads both forms ([`crate::cook`]): it looks at the bytes, not the
//! extension. What an asset source cannot do by itself is give the twin's bytes for the text's
//! path. [`ForgeTwinReader`] wraps a source's reader: a read of `x.forge.ron` that finds no
//! file reads `x.forge.bin` instead (one more read, only on a miss); every other path, and a
//! text file that exists, read as before. So the text wins when both forms are present, a game
//! keeps naming its scenes by their text paths, and prefab paths inside cooked scenes (which
//! bundle their prefabs anyway) need no rewriting.
//!
//! Register it for the default source before `AssetPlugin` (Bevy keeps the first source
//! registered under an id):
//!
//! ```no_run
//! use bevy_app::App;
//! use bevy_asset::AssetApp;
//! use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
//! use bevy_forge_scene::runtime::twins::with_cooked_twins;
//!
//! let mut app = App::new();
//! app.register_asset_source(
//!     AssetSourceId::Default,
//!     with_cooked_twins(AssetSourceBuilder::platform_default("assets", None)),
//! );
//! // then `DefaultPlugins` (or `AssetPlugin`) and `ForgeScenePlugin`
//! ```
//!
//! Hot reload follows the file that was read: a handle loaded as `x.forge.ron` whose bytes came
//! from the twin reloads when `x.forge.ron` appears or changes, not when the twin does; load
//! `x.forge.bin` by its own path to watch the cooked file.

use std::path::{Path, PathBuf};

use bevy_asset::io::{
    AssetReader, AssetReaderError, AssetSourceBuilder, ErasedAssetReader, PathStream, Reader,
    VecReader,
};

/// An asset reader that reads a scene's cooked twin when its text is missing (see [the module
/// docs](self)).
pub struct ForgeTwinReader {
    inner: Box<dyn ErasedAssetReader>,
}

impl ForgeTwinReader {
    /// Wraps `inner`, the reader of an asset source.
    pub fn new(inner: Box<dyn ErasedAssetReader>) -> Self {
        Self { inner }
    }
}

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
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
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
