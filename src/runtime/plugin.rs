//! [`ForgeScenePlugin`]: registers the asset, its loader and the spawning systems, in the
//! [`ForgeSceneSystems`] sets.

use bevy_app::{App, Plugin, PreUpdate};
use bevy_asset::{AssetApp, AssetServer, AssetTrackingSystems, Assets};
use bevy_ecs::schedule::{IntoScheduleConfigs, SystemSet};

use super::components::{ForgeEntityId, ForgeEntityPath};
use super::loader::ForgeSceneLoader;
use super::processor::{ForgeSceneProcess, ForgeSceneSaver};
use super::reload::reload_scenes;
use super::scene::ForgeScene;
use super::spawn::{
    AppliedDocs, ForgeDefaultSpawnBudget, ForgeMaterials, ForgeSceneInactive, ForgeSceneRoot,
    ForgeSpawnBudget, spawn_scene_instances,
};

/// Adds `.forge.ron` scenes to an app: the [`ForgeScene`] asset, its loader, and spawning of
/// [`ForgeSceneRoot`] entities, in the [`ForgeSceneSystems`] sets of `PreUpdate` (right after
/// assets are tracked, so `Update` systems see a scene the frame it spawns).
///
/// A scene spawns whole in the frame its asset is ready unless a [`ForgeSpawnBudget`] says
/// otherwise: [`ForgeDefaultSpawnBudget`] is the app's default (insert it before or after adding
/// the plugin; the plugin only fills it in when absent), the component on a root that root's own.
///
/// Needs Bevy's `AssetPlugin` (part of `DefaultPlugins`), added before or after this plugin.
/// Without it, the plugin logs an error naming what to add and registers nothing.
pub struct ForgeScenePlugin;

/// The systems of [`ForgeScenePlugin`], in Bevy's `PreUpdate` schedule after
/// `AssetTrackingSystems`, in this order. Order a game's systems against them, as against Bevy's
/// own `SceneSpawnerSystems`:
///
/// ```
/// # use bevy_app::{App, PreUpdate};
/// # use bevy_ecs::prelude::*;
/// # use bevy_forge_scene::ForgeSceneSystems;
/// fn count_scene_entities(entities: Query<&bevy_forge_scene::ForgeEntityId>) {
///     // Sees every scene spawned this frame.
/// }
/// # let mut app = App::new();
/// app.add_systems(PreUpdate, count_scene_entities.after(ForgeSceneSystems::Spawn));
/// ```
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ForgeSceneSystems {
    /// Applies changed scene assets (a file saved, a prefab edited, an edit in memory) to
    /// their live instances, and triggers [`ForgeSceneReloaded`](crate::ForgeSceneReloaded) or
    /// [`ForgeSceneReloadFailed`](crate::ForgeSceneReloadFailed) on their roots.
    Reload,
    /// Reports the load of each waiting root's scene
    /// ([`ForgeLoadProgress`](crate::ForgeLoadProgress)), spawns every [`ForgeSceneRoot`] whose
    /// scene has loaded, within the frame's
    /// [`ForgeSpawnBudget`], and triggers [`ForgeSceneReady`](crate::ForgeSceneReady) on it when
    /// its instance is complete; opens and closes activation gates
    /// ([`ForgeSceneInactive`](crate::ForgeSceneInactive)); then brings streamed cells in and
    /// out by distance to [`ForgeStreamingSource`](crate::ForgeStreamingSource) entities,
    /// with what is left of the frame's budget.
    Spawn,
}

impl Plugin for ForgeScenePlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<ForgeEntityId>()
            .register_type::<ForgeEntityPath>()
            .register_type::<ForgeSceneRoot>()
            .register_type::<ForgeSpawnBudget>()
            .register_type::<ForgeDefaultSpawnBudget>()
            .register_type::<ForgeSceneInactive>()
            .register_type::<super::streaming::ForgeStreamingSource>()
            .configure_sets(
                PreUpdate,
                (ForgeSceneSystems::Reload, ForgeSceneSystems::Spawn)
                    .chain()
                    .after(AssetTrackingSystems),
            );
        // `AssetPlugin` may come after this plugin: the asset side then waits for `finish`.
        if app.world().contains_resource::<AssetServer>() {
            add_assets(app);
        }
    }

    fn finish(&self, app: &mut App) {
        if !app.world().contains_resource::<Assets<ForgeScene>>() {
            if !app.world().contains_resource::<AssetServer>() {
                tracing::error!(
                    "ForgeScenePlugin needs Bevy's AssetPlugin: add `AssetPlugin` (or `DefaultPlugins`) to the app; no scene will load or spawn without it"
                );
                return;
            }
            add_assets(app);
        }
        // Sub-assets need their asset types even in a headless app without the render plugins.
        #[cfg(feature = "builtins")]
        {
            if !app.world().contains_resource::<Assets<bevy_mesh::Mesh>>() {
                app.init_asset::<bevy_mesh::Mesh>();
                // No `MeshPlugin`: nothing draws meshes, so none needs a material.
                if let Some(mut materials) = app.world_mut().get_resource_mut::<ForgeMaterials>() {
                    materials.draws_nothing = true;
                }
            }
            if !app.world().contains_resource::<Assets<bevy_image::Image>>() {
                app.init_asset::<bevy_image::Image>();
            }
        }
    }
}

/// The asset, its loader and processor, and the systems that read them (which need the asset's
/// messages).
fn add_assets(app: &mut App) {
    let (registry, schemas) = super::registry::setup(app);
    let Some(server) = app.world().get_resource::<AssetServer>().cloned() else {
        return;
    };
    let tracker = super::progress::LoadTracker::default();
    app.init_asset::<ForgeScene>()
        .register_asset_loader(
            ForgeSceneLoader::new(server)
                .with_custom_components(registry, schemas)
                .with_tracker(tracker.clone()),
        )
        .insert_resource(tracker)
        // Processed mode cooks scenes at build time; otherwise this does nothing.
        .register_asset_processor::<ForgeSceneProcess>(ForgeSceneSaver.into())
        .set_default_asset_processor::<ForgeSceneProcess>("forge.ron")
        .init_resource::<ForgeMaterials>()
        .init_resource::<AppliedDocs>()
        .init_resource::<ForgeDefaultSpawnBudget>()
        .add_systems(PreUpdate, reload_scenes.in_set(ForgeSceneSystems::Reload))
        .add_systems(
            PreUpdate,
            (
                super::progress::report_load_progress,
                spawn_scene_instances,
                super::streaming::stream_scene_cells,
            )
                .chain()
                .in_set(ForgeSceneSystems::Spawn),
        );
    #[cfg(feature = "builtins")]
    app.add_observer(super::spawn::link_parent_visibility);
}
