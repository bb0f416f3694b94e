//! What a game sees of a scene it spawns: the [`ForgeSceneRoot`] it spawns, the
//! [`ForgeSceneInstance`] the root gets (live entities by file id and id path), the
//! [`ForgeSceneReady`] event, and [`ForgeSpawnProgress`] while it spawns.

use std::sync::Arc;

use bevy_asset::{AssetId, Handle};
use bevy_ecs::prelude::*;
use bevy_platform::collections::HashMap;
use bevy_reflect::Reflect;
use bevy_transform::components::Transform;

use crate::prefab::PlacedPaths;
use crate::runtime::asset::scene::ForgeScene;
use crate::runtime::values::builtin;
use crate::runtime::values::components::ForgeEntityPath;

/// Spawns a scene as children of this entity once the asset has loaded.
///
/// ```ignore
/// commands.spawn(ForgeSceneRoot(asset_server.load("scenes/garden.forge.ron")));
/// ```
///
/// The scene's roots become children of this entity in `roots` order. Several roots with the same
/// handle give independent instances; despawning this entity despawns its instance. Once spawned,
/// the entity gets a [`ForgeSceneInstance`] and a [`ForgeSceneReady`] event is triggered on it.
/// The spawn takes one frame unless a [`ForgeSpawnBudget`](crate::ForgeSpawnBudget) (on this entity, or the app's
/// [`ForgeDefaultSpawnBudget`](crate::ForgeDefaultSpawnBudget)) spreads it over several; [`ForgeSpawnProgress`] on this entity
/// says how far it got, and [`ForgeSceneInactive`](crate::ForgeSceneInactive) holds the instance hidden and inactive.
/// Instances the scene marks `streaming` (the format page, "Streaming") are cells: what they
/// place comes in and goes out by distance to
/// [`ForgeStreamingSource`](crate::ForgeStreamingSource) entities, and
/// [`ForgeStreamedCells`](crate::ForgeStreamedCells) on this entity says where each is.
#[derive(Component, Clone, Debug, Default, Reflect)]
// Type path at the crate root (as re-exported), whatever module defines it: `.meta` files
// and reflected scenes name it.
#[type_path = "bevy_forge_scene"]
#[reflect(Component)]
// With built-ins, `Visibility` too (`builtin::RootRequires`).
#[require(Transform, builtin::RootRequires)]
pub struct ForgeSceneRoot(pub Handle<ForgeScene>);

/// A spawned instance of a scene, on its [`ForgeSceneRoot`] entity: which live [`Entity`] each
/// entity of the scene became, by file id ([`entity`](Self::entity)) or by id path
/// ([`entity_path`](Self::entity_path), for the entities prefab instances placed), and back
/// ([`path_of`](Self::path_of), [`id_of`](Self::id_of)). Hot reload keeps both directions
/// current.
#[derive(Component, Clone, Debug)]
pub struct ForgeSceneInstance {
    scene: AssetId<ForgeScene>,
    /// Live entities by key in the spawned document: a file id, or for a placed entity the key
    /// of its id path (`crate::prefab::key_of`). Private: changed only through `set` and
    /// `forget`, which keep `keys` current.
    entities: HashMap<u64, Entity>,
    /// The id path of each placed entity by key, shared with the scene's expansion.
    paths: Arc<PlacedPaths>,
    /// The key of each entity: built on the first reverse lookup (most games never ask),
    /// dropped when `entities` changes.
    keys: std::sync::OnceLock<HashMap<Entity, u64>>,
}

impl ForgeSceneInstance {
    pub(super) fn new(
        scene: AssetId<ForgeScene>,
        entities: HashMap<u64, Entity>,
        paths: Arc<PlacedPaths>,
    ) -> Self {
        Self {
            scene,
            entities,
            paths,
            keys: std::sync::OnceLock::new(),
        }
    }

    /// The live entities by key.
    pub(super) fn entities(&self) -> &HashMap<u64, Entity> {
        &self.entities
    }

    /// The live entity of key `key`.
    pub(crate) fn by_key(&self, key: u64) -> Option<Entity> {
        self.entities.get(&key).copied()
    }

    /// Records that key `key` is now `entity`.
    pub(crate) fn set(&mut self, key: u64, entity: Entity) {
        self.entities.insert(key, entity);
        self.keys = std::sync::OnceLock::new();
    }

    /// Forgets key `key`; its entity, if it had one.
    pub(crate) fn forget(&mut self, key: u64) -> Option<Entity> {
        let entity = self.entities.remove(&key);
        if entity.is_some() {
            self.keys = std::sync::OnceLock::new();
        }
        entity
    }

    /// Names the placed entities by the paths of the scene the instance was brought to.
    pub(crate) fn set_placed_paths(&mut self, paths: Arc<PlacedPaths>) {
        self.paths = paths;
    }

    /// The id path of the entity with key `key`.
    pub(crate) fn path_of_key(&self, key: u64) -> ForgeEntityPath {
        match self.paths.get(&key) {
            Some(path) => ForgeEntityPath(path.to_vec()),
            None => ForgeEntityPath(vec![key]),
        }
    }

    fn key_of(&self, entity: Entity) -> Option<u64> {
        let keys = self
            .keys
            .get_or_init(|| self.entities.iter().map(|(k, e)| (*e, *k)).collect());
        keys.get(&entity).copied()
    }

    /// The scene asset this instance was spawned from.
    pub fn scene(&self) -> AssetId<ForgeScene> {
        self.scene
    }

    /// The live entity of the scene's own entity with file id `id` (its key in the file's
    /// `entities`). Entities a prefab placed have no id of the scene's file: find them with
    /// [`entity_path`](Self::entity_path).
    pub fn entity(&self, id: u64) -> Option<Entity> {
        if self.paths.contains_key(&id) {
            return None;
        }
        self.by_key(id)
    }

    /// The live entity at id path `path`: `[id]` for an entity of the scene's own file, the
    /// instance entity's id then the ids inside its prefab for one an instance placed (`[5, 3]`,
    /// `[5, 7, 2]`; see [`ForgeEntityPath`]).
    pub fn entity_path(&self, path: &[u64]) -> Option<Entity> {
        match path {
            [] => None,
            [id] => self.entity(*id),
            _ => {
                let key = crate::prefab::key_of(path);
                let same = self.paths.get(&key).is_some_and(|p| **p == *path);
                same.then(|| self.by_key(key)).flatten()
            }
        }
    }

    /// The id path of live entity `entity`, when it is one of this instance's: the inverse of
    /// [`entity_path`](Self::entity_path). The first reverse lookup builds the reverse map (one
    /// pass over the instance); later ones are lookups until a reload changes the instance.
    pub fn path_of(&self, entity: Entity) -> Option<ForgeEntityPath> {
        self.key_of(entity).map(|key| self.path_of_key(key))
    }

    /// The file id of live entity `entity` when it is one of the scene's own entities: the
    /// inverse of [`entity`](Self::entity). `None` for an entity a prefab placed (it is known
    /// by its id path: [`path_of`](Self::path_of)) and for entities not of this instance.
    pub fn id_of(&self, entity: Entity) -> Option<u64> {
        self.key_of(entity)
            .filter(|key| !self.paths.contains_key(key))
    }

    /// The live entity of the first entity (in file order, prefab entities after the instance
    /// that places them) named `name`; `scene` is this instance's scene.
    pub fn entity_named(&self, scene: &ForgeScene, name: &str) -> Option<Entity> {
        scene
            .spawn_doc()
            .find_by_name(name)
            .find_map(|key| self.by_key(key))
    }

    /// Every `(id path, entity)` pair, in no particular order: `[id]` for the scene's own
    /// entities.
    pub fn iter(&self) -> impl Iterator<Item = (&[u64], Entity)> + '_ {
        self.entities.iter().map(|(key, e)| {
            let path = match self.paths.get(key) {
                Some(path) => &path[..],
                None => std::slice::from_ref(key),
            };
            (path, *e)
        })
    }

    /// Number of spawned entities.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether the instance has no entities.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }
}

/// Triggered on a [`ForgeSceneRoot`] entity when its instance has spawned, with final entity ids.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForgeSceneReady {
    /// The root entity.
    pub entity: Entity,
}

/// How far the spawn of a [`ForgeSceneRoot`]'s instance got, on the root entity from the frame
/// its spawn starts: `spawned` of the scene's `total` entities (prefab entities included). With
/// a [`ForgeSpawnBudget`](crate::ForgeSpawnBudget) it changes each frame the spawn advances (`Changed<ForgeSpawnProgress>`
/// finds those frames): what a loading bar draws. `ready` turns true in the frame the
/// instance is complete and [`ForgeSceneReady`] is triggered; `spawned` may reach `total` a
/// frame or two before, while components with entity references are inserted.
///
/// A spawn that starts again (its scene hot-reloaded mid-spawn) starts again from zero.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ForgeSpawnProgress {
    /// Entities spawned so far.
    pub spawned: usize,
    /// Entities of the instance in all.
    pub total: usize,
    /// Whether the instance is complete.
    pub ready: bool,
}

impl ForgeSpawnProgress {
    /// `spawned / total`, from 0.0 to 1.0 (1.0 for an empty scene).
    pub fn fraction(&self) -> f32 {
        if self.total == 0 {
            1.0
        } else {
            self.spawned as f32 / self.total as f32
        }
    }
}

/// Sets `entity`'s `C` to `value` when it differs (so `Changed<C>` finds only real changes), or
/// inserts it: the status components of a root ([`ForgeSpawnProgress`],
/// [`ForgeStreamedCells`](crate::ForgeStreamedCells)).
pub(crate) fn set_or_insert<C>(entity: &mut EntityWorldMut, value: C)
where
    C: Component<Mutability = bevy_ecs::component::Mutable> + PartialEq,
{
    match entity.get_mut::<C>() {
        Some(mut current) => {
            current.set_if_neq(value);
        }
        None => {
            entity.insert(value);
        }
    }
}
