//! Instance entities that place a glTF model (`instance: Some((model: ..))`): the core spawns,
//! patches and gates them, and calls the part that writes models (`runtime/model/`, feature
//! `gltf`, on a floor above the core) through the [`ModelHooks`] that part puts in the app.
//! Without that part, a placed model spawns nothing, said once.

use bevy_asset::AssetId;
use bevy_ecs::prelude::*;

use crate::format::Instance;
use crate::runtime::asset::scene::ForgeScene;

/// What the model part does when the core spawns, changes or gates an instance entity that
/// places a model. A resource the model part inserts when it is built; the core reads it at
/// each call, so the core never names the model part.
#[derive(Resource, Clone, Copy)]
pub(crate) struct ModelHooks {
    /// The instance entity (of key `u64` in the scene) that places the model `Instance`
    /// places has spawned: its model is to be loaded and written.
    pub(crate) place: fn(&mut EntityWorldMut, AssetId<ForgeScene>, u64, &Instance),
    /// A new version of the scene changed the instance of the instance entity of key `u64`
    /// (to `None`: it places nothing now).
    pub(crate) changed: fn(&mut EntityWorldMut, AssetId<ForgeScene>, u64, Option<&Instance>),
    /// The entities given and the nodes of the models placed on them: what the activation
    /// gate marks and unmarks.
    pub(crate) with_nodes: fn(&World, Vec<Entity>) -> Vec<Entity>,
}

/// The instance entity `entity` (of key `key` in `scene`) places the model `instance` places:
/// the model part is told, or (without it) a warning says once that models need the `gltf`
/// feature.
pub(super) fn place_model(
    entity: &mut EntityWorldMut,
    scene: AssetId<ForgeScene>,
    key: u64,
    instance: &Instance,
) {
    if entity.is_despawned() {
        return;
    }
    match entity.world().get_resource::<ModelHooks>().copied() {
        Some(hooks) => (hooks.place)(entity, scene, key, instance),
        None => {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                tracing::warn!(
                    "entity {key} places model `{}`, but models spawn only with bevy_forge_scene's `gltf` feature (and Bevy's `GltfPlugin`): its nodes are not spawned",
                    instance.model.as_deref().unwrap_or_default()
                );
            });
        }
    }
}

/// A new version of the scene changed the instance of the instance entity `entity` (of key
/// `key`) to `new`.
pub(super) fn model_changed(
    entity: &mut EntityWorldMut,
    scene: AssetId<ForgeScene>,
    key: u64,
    new: Option<&Instance>,
) {
    if let Some(hooks) = entity.world().get_resource::<ModelHooks>().copied() {
        (hooks.changed)(entity, scene, key, new);
    }
}

/// `entities` and the nodes of the models placed on them.
pub(super) fn with_nodes(world: &World, entities: Vec<Entity>) -> Vec<Entity> {
    match world.get_resource::<ModelHooks>() {
        Some(hooks) => (hooks.with_nodes)(world, entities),
        None => entities,
    }
}
