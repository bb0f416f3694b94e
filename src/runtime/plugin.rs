//! [`ForgeScenePlugin`]: registers the asset, its loader and the spawning systems.

use bevy_app::{App, Plugin, PreUpdate};
use bevy_asset::{AssetApp, AssetServer, AssetTrackingSystems, Assets};
use bevy_ecs::schedule::IntoScheduleConfigs;

use super::components::{ForgeEntityId, ForgeEntityPath};
use super::loader::ForgeSceneLoader;
use super::processor::{ForgeSceneProcess, ForgeSceneSaver};
use super::reload::{ForgeSceneReloadFailed, reload_scenes};
use super::scene::ForgeScene;
use super::spawn::{AppliedDocs, ForgeMaterials, ForgeSceneRoot, spawn_scene_instances};

/// Adds `.forge.ron` scenes to an app: the [`ForgeScene`] asset, its loader, and spawning of
/// [`ForgeSceneRoot`] entities (in `PreUpdate`, right after assets are tracked, so `Update`
/// systems see a scene the frame it spawns).
///
/// Add it after `AssetPlugin` (for example after `DefaultPlugins`).
///
/// # Panics
/// When the app has no `AssetServer` (no `AssetPlugin` was added before this plugin).
pub struct ForgeScenePlugin;

impl Plugin for ForgeScenePlugin {
    fn build(&self, app: &mut App) {
        let Some(server) = app.world().get_resource::<AssetServer>().cloned() else {
            panic!(
                "ForgeScenePlugin needs an AssetServer: add AssetPlugin (or DefaultPlugins) first"
            );
        };
        let (registry, schemas) = super::registry::setup(app);
        app.init_asset::<ForgeScene>()
            .register_asset_loader(
                ForgeSceneLoader::new(server).with_custom_components(registry, schemas),
            )
            // Processed mode cooks scenes at build time; otherwise this does nothing.
            .register_asset_processor::<ForgeSceneProcess>(ForgeSceneSaver.into())
            .set_default_asset_processor::<ForgeSceneProcess>("forge.ron")
            .register_type::<ForgeEntityId>()
            .register_type::<ForgeEntityPath>()
            .register_type::<ForgeSceneRoot>()
            .init_resource::<ForgeMaterials>()
            .init_resource::<AppliedDocs>()
            .add_message::<ForgeSceneReloadFailed>()
            .add_systems(
                PreUpdate,
                (reload_scenes, spawn_scene_instances)
                    .chain()
                    .after(AssetTrackingSystems),
            );
        #[cfg(feature = "builtins")]
        app.add_observer(super::spawn::link_parent_visibility);
    }

    fn finish(&self, app: &mut App) {
        // Sub-assets need their asset types even in a headless app without the render plugins.
        #[cfg(feature = "builtins")]
        {
            if !app.world().contains_resource::<Assets<bevy_mesh::Mesh>>() {
                app.init_asset::<bevy_mesh::Mesh>();
            }
            if !app.world().contains_resource::<Assets<bevy_image::Image>>() {
                app.init_asset::<bevy_image::Image>();
            }
        }
        #[cfg(not(feature = "builtins"))]
        let _ = (app, std::marker::PhantomData::<Assets<ForgeScene>>);
    }
}
