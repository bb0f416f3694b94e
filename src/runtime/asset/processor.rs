//! Cooking at build time with Bevy's asset processor: [`ForgeSceneSaver`] and the
//! [`ForgeSceneProcess`] that [`ForgeScenePlugin`](crate::ForgeScenePlugin) registers as the
//! default processor of `.forge.ron` files.
//!
//! A game that runs Bevy's processed mode (`AssetPlugin { mode: AssetMode::Processed, .. }`,
//! with this crate's `processor` feature, which turns on `bevy_asset`'s `asset_processor`)
//! gets each scene loaded from its text, validated, and written to the processed folder as its
//! cooked twin ([`crate::cook`]), prefabs bundled, under the same path: the processed
//! `levels/one.forge.ron` holds the cooked bytes, and the loader reads them by looking at the
//! first byte. A scene that does not validate fails to process, with the loader's
//! diagnostics, and is not written. `cargo run --example cooked` shows the setup.
//!
//! Outside processed mode (the default), registering does nothing.

use bevy_asset::io::Writer;
use bevy_asset::processor::LoadTransformAndSave;
use bevy_asset::saver::{AssetSaver, SavedAsset};
use bevy_asset::transformer::IdentityAssetTransformer;
use bevy_asset::{AssetPath, AsyncWriteExt};
use bevy_reflect::TypePath;

use super::loader::{ForgeSceneLoader, ForgeSceneLoaderSettings};
use super::scene::ForgeScene;

/// Writes a loaded [`ForgeScene`] as its cooked twin ([`ForgeScene::to_cooked`]).
#[derive(TypePath, Clone, Copy, Debug, Default)]
// Type path at the crate root (as re-exported), whatever module defines it: `.meta` files name it.
#[type_path = "bevy_forge_scene"]
pub struct ForgeSceneSaver;

impl AssetSaver for ForgeSceneSaver {
    type Asset = ForgeScene;
    type Settings = ();
    type OutputLoader = ForgeSceneLoader;
    type Error = std::io::Error;

    async fn save(
        &self,
        writer: &mut Writer,
        asset: SavedAsset<'_, '_, ForgeScene>,
        _settings: &(),
        asset_path: AssetPath<'_>,
    ) -> Result<ForgeSceneLoaderSettings, std::io::Error> {
        let source = asset_path.path().to_string_lossy().replace('\\', "/");
        let bytes = asset.get().to_cooked(source).encode();
        writer.write_all(&bytes).await?;
        writer.flush().await?;
        Ok(ForgeSceneLoaderSettings::default())
    }
}

/// The processor of `.forge.ron` files: load with [`ForgeSceneLoader`], save with
/// [`ForgeSceneSaver`].
pub type ForgeSceneProcess =
    LoadTransformAndSave<ForgeSceneLoader, IdentityAssetTransformer<ForgeScene>, ForgeSceneSaver>;
