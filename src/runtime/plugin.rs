//! [`ForgeScenePlugin`]: the runtime's parts, each a plugin of its own, added in order.

use bevy_app::{App, Plugin};
use bevy_asset::AssetServer;

use super::asset::SceneAssetPlugin;
use super::instance::InstancePlugin;
use super::live::LivePlugin;
#[cfg(feature = "gltf")]
use super::model::ModelPlugin;
use super::streaming::StreamingPlugin;

/// Adds `.forge.ron` scenes to an app: the [`ForgeScene`](crate::ForgeScene) asset, its loader, and spawning of
/// [`ForgeSceneRoot`](crate::ForgeSceneRoot) entities, in the [`ForgeSceneSystems`](crate::ForgeSceneSystems) sets of `PreUpdate` (right after
/// assets are tracked, so `Update` systems see a scene the frame it spawns).
///
/// A scene spawns whole in the frame its asset is ready unless a [`ForgeSpawnBudget`](crate::ForgeSpawnBudget) says
/// otherwise: [`ForgeDefaultSpawnBudget`](crate::ForgeDefaultSpawnBudget) is the app's default (insert it before or after adding
/// the plugin; the plugin only fills it in when absent), the component on a root that root's own.
///
/// Needs Bevy's `AssetPlugin` (part of `DefaultPlugins`), added before or after this plugin.
/// Without it, the plugin logs an error naming what to add and registers nothing.
///
/// The plugin is the runtime's parts, in this order: the scene asset (loader, processor), the
/// instance core (first spawns, budgets, the activation gate), placed glTF models (feature
/// `gltf`), streaming, and the live part (hot reload).
pub struct ForgeScenePlugin;

impl Plugin for ForgeScenePlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((SceneAssetPlugin, InstancePlugin));
        #[cfg(feature = "gltf")]
        app.add_plugins(ModelPlugin);
        app.add_plugins((StreamingPlugin, LivePlugin));
    }

    fn finish(&self, app: &mut App) {
        if !app.world().contains_resource::<AssetServer>() {
            tracing::error!(
                "ForgeScenePlugin needs Bevy's AssetPlugin: add `AssetPlugin` (or `DefaultPlugins`) to the app; no scene will load or spawn without it"
            );
        }
    }
}
