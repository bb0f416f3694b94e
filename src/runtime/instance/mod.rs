//! The instance core: a [`ForgeSceneRoot`] and the [`ForgeSceneInstance`] it gets, the first
//! spawn (a resumable task within the frame's [`ForgeSpawnBudget`]), the activation gate, and
//! the few functions through which the other parts change an instance:
//!
//! | what | how |
//! |---|---|
//! | spawn an entity of the scene, or a subtree of them within a limit | [`Spawner`], [`Subtree`], [`spawn_subtree`], [`Limit`], [`frame_left`] |
//! | despawn keys | [`despawn_keys`] |
//! | patch an entity to a new version of its scene | [`patch_entity`] |
//! | insert the components with entity references | [`insert_references`] |
//! | what is held back (streamed cells not let in, references waiting) | [`HeldBack`] |
//! | the version live instances stand at | [`AppliedVersions`] |
//! | what the model part does with instance entities that place a glTF model | [`models::ModelHooks`] |
//!
//! Streaming writes [`HeldBack`], hot reload and capture read it; no part reads another's
//! state. On [`values`](crate::runtime::values) and [`asset`](crate::runtime::asset).

mod applied;
mod budget;
mod entity;
mod gate;
mod held;
pub(crate) mod models;
mod root;
mod spawn;

use bevy_app::{App, Plugin, PreUpdate};
use bevy_asset::AssetTrackingSystems;
use bevy_ecs::schedule::{IntoScheduleConfigs, SystemSet};

pub(crate) use applied::AppliedVersions;
pub use budget::{ForgeDefaultSpawnBudget, ForgeSpawnBudget};
pub(crate) use budget::{Limit, frame_left, give_back};
pub(crate) use entity::{
    Spawner, Subtree, despawn_keys, insert_references, patch_entity, spawn_subtree,
};
pub use gate::ForgeSceneInactive;
pub(crate) use held::HeldBack;
pub(crate) use root::set_or_insert;
pub use root::{ForgeSceneInstance, ForgeSceneReady, ForgeSceneRoot, ForgeSpawnProgress};
pub(crate) use spawn::spawn_scene_instances;

/// The writing of placed glTF models' nodes (by the model part, `runtime/model/`), in
/// `ForgeSceneSystems::Spawn` after the first spawns; streaming runs before it, so a model a
/// streamed cell places is written in the frame the cell comes in, within what the frame's
/// budget has left.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ModelWrites;

use crate::runtime::asset::once_assets_exist;
use crate::runtime::values::builtin;
use crate::runtime::values::components::{ForgeEntityId, ForgeEntityPath};

/// The systems of [`ForgeScenePlugin`](crate::ForgeScenePlugin), in Bevy's `PreUpdate` schedule after
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

/// The instance core's part of `ForgeScenePlugin`: the [`ForgeSceneSystems`] sets, the first
/// spawn of roots (and the load progress of the roots that wait), the activation gate, and
/// the visibility of scene entities kept flowing.
pub(crate) struct InstancePlugin;

impl Plugin for InstancePlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<ForgeEntityId>()
            .register_type::<ForgeEntityPath>()
            .register_type::<ForgeSceneRoot>()
            .register_type::<ForgeSpawnBudget>()
            .register_type::<ForgeDefaultSpawnBudget>()
            .register_type::<ForgeSceneInactive>()
            .configure_sets(
                PreUpdate,
                (ForgeSceneSystems::Reload, ForgeSceneSystems::Spawn)
                    .chain()
                    .after(AssetTrackingSystems),
            );
        once_assets_exist::<Self>(app, add_systems);
    }

    fn finish(&self, app: &mut App) {
        once_assets_exist::<Self>(app, add_systems);
    }
}

fn add_systems(app: &mut App) {
    app.init_resource::<AppliedVersions>()
        .init_resource::<ForgeDefaultSpawnBudget>()
        .add_systems(
            PreUpdate,
            (
                spawn::report_load_progress,
                spawn::open_and_close_gates,
                spawn_scene_instances,
            )
                .chain()
                .in_set(ForgeSceneSystems::Spawn),
        );
    builtin::observe_parents(app);
}
