//! Spawning loaded scenes: [`ForgeSceneRoot`], [`ForgeEntityId`], [`ForgeSceneInstance`] and the
//! [`ForgeSceneReady`] event.

use bevy_platform::collections::HashMap;

use std::sync::Arc;
use std::time::Duration;

use bevy_platform::time::Instant;

use bevy_asset::{AssetId, Assets, Handle, UntypedHandle};
use bevy_ecs::component::ComponentId;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::prelude::*;
use bevy_reflect::Reflect;
use bevy_transform::components::Transform;

use super::cells::{CellPlan, plan_of};
use super::components::{ForgeEntityId, ForgeEntityPath, bevy_transform_of};
use super::scene::ForgeScene;
use crate::format::SceneDoc;
use crate::prefab::PlacedPaths;

/// Spawns a scene as children of this entity once the asset has loaded.
///
/// ```ignore
/// commands.spawn(ForgeSceneRoot(asset_server.load("scenes/garden.forge.ron")));
/// ```
///
/// The scene's roots become children of this entity in `roots` order. Several roots with the same
/// handle give independent instances; despawning this entity despawns its instance. Once spawned,
/// the entity gets a [`ForgeSceneInstance`] and a [`ForgeSceneReady`] event is triggered on it.
/// The spawn takes one frame unless a [`ForgeSpawnBudget`] (on this entity, or the app's
/// [`ForgeDefaultSpawnBudget`]) spreads it over several; [`ForgeSpawnProgress`] on this entity
/// says how far it got, and [`ForgeSceneInactive`] holds the instance hidden and inactive.
/// Instances the scene marks `streaming` (the format page, "Streaming") are cells: what they
/// place comes in and goes out by distance to
/// [`ForgeStreamingSource`](crate::ForgeStreamingSource) entities, and
/// [`ForgeStreamedCells`](crate::ForgeStreamedCells) on this entity says where each is.
#[derive(Component, Clone, Debug, Default, Reflect)]
// Type path at the crate root (as re-exported), whatever module defines it: `.meta` files
// and reflected scenes name it.
#[type_path = "bevy_forge_scene"]
#[reflect(Component)]
#[cfg_attr(
    feature = "builtins",
    require(Transform, bevy_camera::visibility::Visibility)
)]
#[cfg_attr(not(feature = "builtins"), require(Transform))]
pub struct ForgeSceneRoot(pub Handle<ForgeScene>);

/// A spawned instance of a scene, on its [`ForgeSceneRoot`] entity: which live [`Entity`] each
/// entity of the scene became, by file id ([`entity`](Self::entity)) or by id path
/// ([`entity_path`](Self::entity_path), for the entities prefab instances placed), and back
/// ([`path_of`](Self::path_of), [`id_of`](Self::id_of)). Hot reload keeps both directions
/// current.
#[derive(Component, Clone, Debug)]
pub struct ForgeSceneInstance {
    pub(crate) scene: AssetId<ForgeScene>,
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
    pub(crate) fn new(
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
    pub(crate) fn entities(&self) -> &HashMap<u64, Entity> {
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

/// The document each scene's live instances were last brought to.
#[derive(Resource, Default)]
pub(crate) struct AppliedDocs(pub(crate) HashMap<AssetId<ForgeScene>, AppliedDoc>);

/// A document live instances were brought to, with its entities' text hashes (see
/// [`ForgeScene::changes_since`]).
#[derive(Clone)]
pub(crate) struct AppliedDoc {
    pub(crate) doc: Arc<SceneDoc>,
    pub(crate) text_hashes: Option<Arc<[u64]>>,
    /// The document as read, its expansion and its prefabs' documents, when it places prefabs:
    /// a paint of tile layer cells is diffed over the painted cells alone.
    placed: Option<Placed>,
}

/// What [`AppliedDoc`] keeps of a scene that places prefabs (shared, not copied).
#[derive(Clone)]
struct Placed {
    file: Arc<SceneDoc>,
    expanded: Arc<crate::prefab::ExpandedScene>,
    prefab_docs: Vec<(crate::format::EcoString, Arc<SceneDoc>)>,
}

impl AppliedDoc {
    pub(crate) fn of(scene: &ForgeScene) -> Self {
        Self {
            doc: scene.spawn_doc().clone(),
            text_hashes: scene.text_hashes.clone(),
            placed: scene.expanded.as_ref().map(|expanded| Placed {
                file: scene.doc.clone(),
                expanded: expanded.clone(),
                prefab_docs: scene.prefabs.docs.clone(),
            }),
        }
    }

    /// The changes from this document to `scene`'s (see [`ForgeScene::changes_since`]).
    pub(crate) fn changes_to(&self, scene: &ForgeScene) -> crate::diff::SceneDiff {
        if let Some(placed) = &self.placed {
            let old = super::painted::Version {
                file: &placed.file,
                expanded: &placed.expanded,
                prefab_docs: &placed.prefab_docs,
            };
            if let Some(changes) = scene.painted_since(&old) {
                return changes;
            }
        }
        crate::diff::diff_with_hashes(
            &self.doc,
            self.text_hashes.as_deref(),
            scene.spawn_doc(),
            scene.text_hashes.as_deref(),
        )
    }
}

/// Materials created for scenes, shared by all instances of a scene.
#[derive(Resource, Default)]
#[cfg_attr(not(feature = "builtins"), allow(dead_code))]
pub(crate) struct ForgeMaterials {
    handles: HashMap<(AssetId<ForgeScene>, usize), Option<UntypedHandle>>,
    warned: bool,
    /// The app has no `MeshPlugin` (the plugin added the mesh assets itself): nothing draws a
    /// mesh, so a mesh without a material is no problem to warn of.
    pub(crate) draws_nothing: bool,
}

/// How much spawning one frame may do: wall-clock time, a number of entities, or both. With
/// neither (the default), a scene spawns whole in the frame its asset is ready, as before.
///
/// As a component on a root entity it is that root's own per-frame budget, spent by it alone.
/// Roots without one share the app's default, the [`ForgeDefaultSpawnBudget`] resource, so the
/// frame's spawning of all of them together stays within it (one root may load in the
/// background at 2 ms while another, with `ForgeSpawnBudget::UNLIMITED` on it, spawns at once).
///
/// ```
/// # use std::time::Duration;
/// # use bevy_app::App;
/// # use bevy_ecs::prelude::*;
/// # use bevy_forge_scene::{ForgeDefaultSpawnBudget, ForgeSceneRoot, ForgeSpawnBudget};
/// # let mut app = App::new();
/// // At most 2 ms of scene spawning per frame, for every root without a budget of its own.
/// app.insert_resource(ForgeDefaultSpawnBudget(ForgeSpawnBudget::per_frame(
///     Duration::from_millis(2),
/// )));
/// // This root: at most 500 entities per frame, however quick.
/// app.world_mut().spawn((
///     ForgeSceneRoot::default(),
///     ForgeSpawnBudget::UNLIMITED.with_entities(500),
/// ));
/// ```
///
/// A budgeted spawn spawns parents before children in `roots` order, as a one-frame spawn
/// does; custom components holding entity references are inserted once every entity of the
/// instance exists (their hooks see final ids), and [`ForgeSceneReady`] is triggered and the
/// [`ForgeSceneInstance`] inserted only when the instance is complete. Meanwhile the root's
/// [`ForgeSpawnProgress`] says how far it got. The budget covers the world writes only: the
/// loader builds every value beforehand, off the main thread.
///
/// Time is checked every 16 entities, so a frame may run over by the time of that many
/// entities; every frame spawns at least one entity, however small the budget, so a spawn
/// always ends.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[type_path = "bevy_forge_scene"]
#[reflect(Component)]
pub struct ForgeSpawnBudget {
    /// Wall-clock time per frame for spawning; `None`: no limit.
    pub time: Option<Duration>,
    /// Entities spawned per frame (an entity whose components with entity references are
    /// inserted counts once more); `None`: no limit.
    pub entities: Option<u32>,
}

impl ForgeSpawnBudget {
    /// No limit: a scene spawns whole in one frame (the default).
    pub const UNLIMITED: Self = Self {
        time: None,
        entities: None,
    };

    /// At most `time` of spawning per frame.
    pub fn per_frame(time: Duration) -> Self {
        Self {
            time: Some(time),
            entities: None,
        }
    }

    /// This budget, also capped at `entities` entities per frame.
    pub fn with_entities(mut self, entities: u32) -> Self {
        self.entities = Some(entities);
        self
    }

    /// Whether the budget has no limit (a scene spawns in one frame).
    pub fn is_unlimited(&self) -> bool {
        self.time.is_none() && self.entities.is_none()
    }
}

/// The app's default [`ForgeSpawnBudget`], for every [`ForgeSceneRoot`] without one of its own
/// (unlimited unless the game inserts it; [`ForgeScenePlugin`](crate::ForgeScenePlugin) fills
/// it in when absent, so inserting it before or after the plugin both work).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[type_path = "bevy_forge_scene"]
#[reflect(Resource)]
pub struct ForgeDefaultSpawnBudget(pub ForgeSpawnBudget);

/// How far the spawn of a [`ForgeSceneRoot`]'s instance got, on the root entity from the frame
/// its spawn starts: `spawned` of the scene's `total` entities (prefab entities included). With
/// a [`ForgeSpawnBudget`] it changes each frame the spawn advances (`Changed<ForgeSpawnProgress>`
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

/// The activation gate: a scene spawned inactive, revealed when the game decides (Unity's
/// `allowSceneActivation = false`). Put it on a [`ForgeSceneRoot`] entity (with it, or later)
/// and:
/// - every entity of the instance carries `ForgeSceneInactive` too, from the moment it spawns
///   (before its built-in and custom components are inserted, so their hooks see it): a game's
///   systems skip them with `Without<ForgeSceneInactive>`;
/// - the root's `Visibility` is `Hidden` (with the `builtins` feature), so nothing of it is
///   drawn;
/// - the spawn itself goes on (within its [`ForgeSpawnBudget`]) and [`ForgeSceneReady`] is
///   triggered when it is complete, as for any root.
///
/// Remove it from the root to reveal the instance: in the next
/// [`ForgeSceneSystems::Spawn`](crate::ForgeSceneSystems::Spawn) every entity of the instance
/// loses it in one go and the root gets back the `Visibility` it had. Putting it back on the
/// root hides and marks the instance again. Entities hot reload adds to an inactive instance
/// spawn inactive. Nothing else changes: the entities exist, hot reload patches them, and
/// systems that do not filter on the marker see them.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[type_path = "bevy_forge_scene"]
#[reflect(Component)]
pub struct ForgeSceneInactive;

/// On a root whose instance is held inactive: what its `Visibility` was before.
#[derive(Component)]
pub(crate) struct Held {
    #[cfg(feature = "builtins")]
    visibility: Option<bevy_camera::visibility::Visibility>,
}

/// One frame's allowance of spawning work, shared by the roots that spend it.
pub(crate) struct Limit {
    deadline: Option<Instant>,
    entities: Option<u32>,
    used: u32,
    pub(crate) out: bool,
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

impl Limit {
    /// An allowance of `budget`, starting now.
    pub(crate) fn of(budget: &ForgeSpawnBudget) -> Self {
        Self {
            deadline: budget.time.map(|t| Instant::now() + t),
            entities: budget.entities,
            used: 0,
            out: false,
        }
    }

    /// An allowance of the app's [`ForgeDefaultSpawnBudget`] (unlimited without one), starting
    /// now: what the roots without a budget of their own share in a frame.
    pub(crate) fn of_default(world: &World) -> Self {
        let default = world
            .get_resource::<ForgeDefaultSpawnBudget>()
            .map(|d| d.0)
            .unwrap_or_default();
        Self::of(&default)
    }

    /// Counts one unit of work; whether the allowance is now spent. Time is read every 16
    /// units (a clock read costs a few percent of an entity's spawn).
    #[inline]
    pub(crate) fn spend(&mut self) -> bool {
        self.used += 1;
        if self.entities.is_some_and(|n| self.used >= n) {
            self.out = true;
        } else if let Some(deadline) = self.deadline
            && self.used.is_multiple_of(16)
            && Instant::now() >= deadline
        {
            self.out = true;
        }
        self.out
    }

    /// Whether the time is up (for work not counted in entities).
    fn out_of_time(&mut self) -> bool {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.out = true;
        }
        self.out
    }
}

/// What [`spawn_entity`] needs besides the entity: the scene, `Visibility`'s component id
/// ([`visibility_id`]) and whether the instance is held inactive ([`ForgeSceneInactive`]).
pub(crate) struct SpawnCx<'a> {
    pub(crate) scene_id: AssetId<ForgeScene>,
    pub(crate) scene: &'a ForgeScene,
    pub(crate) visibility: Option<ComponentId>,
    pub(crate) inactive: bool,
}

/// Where a spawn is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Spawning entities, depth first from the roots.
    Walk,
    /// Building the id map from the entity at this index of the document on.
    Map(usize),
    /// Inserting components with entity references from the entity at this index on.
    References(usize),
    /// Complete.
    Done,
}

/// The spawn of one instance, resumable from frame to frame: a cursor over the spawned document
/// in parent-first order. On a root whose spawn is in progress (budgeted spawning), taken off
/// while it advances.
#[derive(Component)]
pub(crate) struct SpawnTask {
    scene_id: AssetId<ForgeScene>,
    /// The document being spawned: a scene whose document is no longer this one (hot reload)
    /// starts its spawn again.
    doc: Arc<SceneDoc>,
    /// The live entity of each entity of `doc`, by index, once spawned.
    spawned: Vec<Option<Entity>>,
    /// Entities still to spawn, each with the entity that pushed it (its parent in a valid
    /// forest: id and live entity).
    stack: Vec<(u64, Option<(u64, Entity)>)>,
    /// The index after the last spawned entity: usually the next one to spawn.
    next: usize,
    count: usize,
    phase: Phase,
    entities: HashMap<u64, Entity>,
    visibility: Option<ComponentId>,
    /// The scene's streamed cells, when it has any: the walk stops at their anchors (their
    /// content streams in by distance: [`super::streaming`]).
    cells: Option<Arc<CellPlan>>,
}

impl SpawnTask {
    fn new(
        world: &mut World,
        scene_id: AssetId<ForgeScene>,
        scene: &ForgeScene,
        cells: Option<Arc<CellPlan>>,
    ) -> Self {
        let doc = scene.spawn_doc().clone();
        Self {
            cells: cells.filter(|c| !c.is_empty()),
            scene_id,
            spawned: vec![None; doc.entities.len()],
            stack: doc.roots.iter().rev().map(|id| (*id, None)).collect(),
            doc,
            next: 0,
            count: 0,
            phase: Phase::Walk,
            entities: HashMap::new(),
            visibility: visibility_id(world),
        }
    }

    /// Whether this spawn is of `scene`'s current document.
    fn is_of(&self, scene_id: AssetId<ForgeScene>, scene: &ForgeScene) -> bool {
        self.scene_id == scene_id && Arc::ptr_eq(&self.doc, scene.spawn_doc())
    }

    /// Despawns what this spawn spawned (a spawn started again).
    fn abandon(&self, world: &mut World) {
        for entity in self.spawned.iter().flatten() {
            if let Ok(e) = world.get_entity_mut(*entity) {
                e.despawn();
            }
        }
    }

    fn progress(&self) -> ForgeSpawnProgress {
        let streamed = self.cells.as_ref().map_or(0, |c| c.content_len());
        ForgeSpawnProgress {
            spawned: self.count,
            total: self.spawned.len().saturating_sub(streamed),
            ready: self.phase == Phase::Done,
        }
    }

    /// Advances the spawn under `root` until it is complete (true) or `limit` is spent.
    fn step(
        &mut self,
        world: &mut World,
        root: Entity,
        scene: &ForgeScene,
        limit: &mut Limit,
        inactive: bool,
    ) -> bool {
        if world.get_entity(root).is_err() {
            self.phase = Phase::Done;
        }
        if self.phase == Phase::Walk {
            let cx = SpawnCx {
                scene_id: self.scene_id,
                scene,
                visibility: self.visibility,
                inactive,
            };
            if self.walk(world, root, &cx, limit) {
                return false;
            }
            self.entities.reserve(self.doc.entities.len());
            self.phase = Phase::Map(0);
        }
        if let Phase::Map(mut at) = self.phase {
            // The id map is built after the walk, not entry by entry during it: inserts into a
            // table of every entity, interleaved with spawning, each miss the cache (11-15 ms
            // more at 100,000 entities against 2-4 ms after the walk; BENCHMARKS.md, "Spawning
            // closer to plain Bevy"). In chunks, so a budget can stop between them.
            const CHUNK: usize = 4096;
            let len = self.spawned.len();
            while at < len {
                let end = (at + CHUNK).min(len);
                if let Some(keys) = self.doc.entities.get_range(at..end) {
                    self.entities.extend(
                        keys.keys()
                            .zip(&self.spawned[at..end])
                            .filter_map(|(id, e)| Some((*id, (*e)?))),
                    );
                }
                at = end;
                if at < len && limit.out_of_time() {
                    self.phase = Phase::Map(at);
                    return false;
                }
            }
            self.phase = if scene.custom.has_references() {
                Phase::References(0)
            } else {
                Phase::Done
            };
        }
        if let Phase::References(at) = self.phase {
            for index in at..self.spawned.len() {
                let Some(id) = self.doc.entities.get_index(index).map(|(id, _)| *id) else {
                    break;
                };
                let entities = &self.entities;
                let known = |k: u64| entities.contains_key(&k);
                // Streamed: a value naming an entity of a cell that is out waits for it.
                let known: Option<&dyn Fn(u64) -> bool> = match self.cells {
                    Some(_) => Some(&known),
                    None => None,
                };
                if insert_references_of(world, scene, entities, id, index, known) && limit.spend() {
                    self.phase = Phase::References(index + 1);
                    return false;
                }
            }
            self.phase = Phase::Done;
        }
        true
    }

    /// Spawns entities depth first from the roots, parents before children and children in
    /// order, until the stack is empty (false) or `limit` is spent (true). An entity whose
    /// parent did not spawn or is gone (the game despawned it between frames) is skipped with
    /// its subtree; each entity spawns at most once, so the walk ends even on a cycle.
    fn walk(&mut self, world: &mut World, root: Entity, cx: &SpawnCx, limit: &mut Limit) -> bool {
        let doc = &*self.doc;
        while let Some((id, pushed_by)) = self.stack.pop() {
            // Files usually list entities depth first, so the entity to spawn is usually the
            // one after the last spawned: its key is compared before looking the key up.
            let found = match doc.entities.get_index(self.next) {
                Some((key, node)) if *key == id => Some((self.next, node)),
                _ => doc.entities.get_full(&id).map(|(i, _, node)| (i, node)),
            };
            let Some((index, node)) = found else {
                continue;
            };
            self.next = index + 1;
            if self.spawned.get(index).is_none_or(Option::is_some) {
                continue;
            }
            let parent = match (node.parent, pushed_by) {
                (None, _) => root,
                (Some(p), Some((by, entity))) if by == p => entity,
                (Some(p), _) => match doc.entities.get_index_of(&p).and_then(|i| self.spawned[i]) {
                    Some(e) => e,
                    None => continue,
                },
            };
            if !world.entities().contains(parent) {
                continue;
            }
            let entity = spawn_entity(world, parent, id, index, cx);
            self.spawned[index] = Some(entity);
            self.count += 1;
            if self.cells.as_ref().is_none_or(|c| !c.is_anchor_at(index)) {
                self.stack
                    .extend(node.children.iter().rev().map(|c| (*c, Some((id, entity)))));
            }
            if limit.spend() {
                return true;
            }
        }
        false
    }

    fn into_instance(self, scene: &ForgeScene) -> ForgeSceneInstance {
        ForgeSceneInstance::new(self.scene_id, self.entities, scene.placed_paths())
    }
}

/// A root, whether it has [`ForgeSceneInactive`], and whether its instance is held.
type Gate = (Entity, Has<ForgeSceneInactive>, Has<Held>);

/// Spawns every [`ForgeSceneRoot`] whose scene has loaded and that has no instance yet, within
/// the frame's [`ForgeSpawnBudget`], and opens or closes the activation gate of roots whose
/// [`ForgeSceneInactive`] came or went.
pub(crate) fn spawn_scene_instances(
    world: &mut World,
    roots: &mut QueryState<(Entity, &ForgeSceneRoot), Without<ForgeSceneInstance>>,
    gates: &mut QueryState<Gate, With<ForgeSceneRoot>>,
) {
    let gated: Vec<(Entity, bool)> = gates
        .iter(world)
        .filter(|(_, inactive, held)| inactive != held)
        .map(|(e, inactive, _)| (e, inactive))
        .collect();
    for (root, inactive) in gated {
        set_active(world, root, !inactive);
    }
    let mut pending: Vec<(Entity, AssetId<ForgeScene>)> =
        roots.iter(world).map(|(e, r)| (e, r.0.id())).collect();
    pending.sort_unstable_by_key(|(e, _)| *e);
    let mut shared = Limit::of_default(world);
    world.resource_scope(|world, scenes: Mut<Assets<ForgeScene>>| {
        for (root, id) in pending {
            let Some(scene) = scenes.get(id) else {
                continue;
            };
            let mut own;
            let limit = match world.get::<ForgeSpawnBudget>(root) {
                Some(budget) => {
                    own = Limit::of(budget);
                    &mut own
                }
                None => &mut shared,
            };
            if limit.out {
                continue;
            }
            let Ok(mut root_entity) = world.get_entity_mut(root) else {
                continue;
            };
            let inactive = root_entity.contains::<ForgeSceneInactive>();
            let mut task = match root_entity.take::<SpawnTask>() {
                Some(task) if task.is_of(id, scene) => task,
                Some(stale) => {
                    stale.abandon(world);
                    let cells = plan_of(world, id, scene);
                    SpawnTask::new(world, id, scene, Some(cells))
                }
                None => {
                    let cells = plan_of(world, id, scene);
                    SpawnTask::new(world, id, scene, Some(cells))
                }
            };
            let done = task.step(world, root, scene, limit, inactive);
            let progress = task.progress();
            let Ok(mut root_entity) = world.get_entity_mut(root) else {
                continue; // despawned by a game's hook or observer while spawning
            };
            set_or_insert(&mut root_entity, progress);
            if !done {
                root_entity.insert(task);
                continue;
            }
            let instance = task.into_instance(scene);
            if let Some(mut applied) = world.get_resource_mut::<AppliedDocs>() {
                applied.0.entry(id).or_insert_with(|| AppliedDoc::of(scene));
            }
            if let Ok(mut root_entity) = world.get_entity_mut(root) {
                root_entity.insert(instance);
                world.trigger(ForgeSceneReady { entity: root });
            }
        }
    });
    // What is left of the shared budget, for streamed cells this frame.
    world.insert_resource(SpawnLeft(shared));
}

/// What is left of the frame's shared spawn budget after first spawns: streamed cells
/// ([`super::streaming`]) spend it.
#[derive(Resource)]
pub(crate) struct SpawnLeft(pub(crate) Limit);

/// Opens (`active`) or closes the activation gate of `root`: its instance's entities (those
/// spawned so far, while it spawns) lose or get [`ForgeSceneInactive`], and the root gets back
/// its `Visibility` or is hidden.
fn set_active(world: &mut World, root: Entity, active: bool) {
    let entities: Vec<Entity> = match (
        world.get::<ForgeSceneInstance>(root),
        world.get::<SpawnTask>(root),
    ) {
        (Some(instance), _) => instance.entities().values().copied().collect(),
        (None, Some(task)) => task.spawned.iter().flatten().copied().collect(),
        (None, None) => Vec::new(),
    };
    for entity in entities {
        if let Ok(mut e) = world.get_entity_mut(entity) {
            if active {
                e.remove::<ForgeSceneInactive>();
            } else {
                e.insert(ForgeSceneInactive);
            }
        }
    }
    let Ok(mut root_entity) = world.get_entity_mut(root) else {
        return;
    };
    #[cfg(feature = "builtins")]
    {
        use bevy_camera::visibility::Visibility;
        if active {
            let held = root_entity.take::<Held>();
            if let Some(visibility) = held.and_then(|h| h.visibility) {
                root_entity.insert(visibility);
            }
        } else {
            let visibility = root_entity.get::<Visibility>().copied();
            root_entity.insert((Held { visibility }, Visibility::Hidden));
        }
    }
    #[cfg(not(feature = "builtins"))]
    if active {
        root_entity.remove::<Held>();
    } else {
        root_entity.insert(Held {});
    }
}

impl ForgeScene {
    /// Spawns this scene under `root` in `world` right away, without an `App` or the asset
    /// server (benchmarks, tools, tests), and returns the id map. `id` is the asset id the scene
    /// is stored under: it keys the shared material cache and [`ForgeSceneInstance::scene`].
    ///
    /// The returned instance is not inserted on `root` and no [`ForgeSceneReady`] is triggered;
    /// insert it yourself to use [`apply_diff`](super::apply_diff) on it later.
    /// Custom components are inserted with typed inserts, so `world` needs no type registry.
    pub fn spawn_into(
        &self,
        id: AssetId<ForgeScene>,
        world: &mut World,
        root: Entity,
    ) -> ForgeSceneInstance {
        spawn_instance(world, root, id, self)
    }
}

/// Spawns `scene` under `root` in one go and returns the id map. Parents spawn before their
/// children and children in file order, so `Children` holds the file's order.
pub(crate) fn spawn_instance(
    world: &mut World,
    root: Entity,
    scene_id: AssetId<ForgeScene>,
    scene: &ForgeScene,
) -> ForgeSceneInstance {
    let mut task = SpawnTask::new(world, scene_id, scene, None);
    task.step(
        world,
        root,
        scene,
        &mut Limit::of(&ForgeSpawnBudget::UNLIMITED),
        false,
    );
    task.into_instance(scene)
}

/// Spawns entity `id` (at `index` in `scene.doc.entities`) under `parent` with everything the
/// scene prepared for it (linking its visibility when it has `Visibility`) but the custom
/// components with entity references ([`insert_references`] inserts them). `ChildOf` appends
/// it to the parent's `Children`.
///
/// Components are inserted after the common bundle (and [`ForgeSceneInactive`], for an
/// instance held inactive), built-ins before custom components, so a custom component's hooks
/// and observers see the entity's parent and built-ins. An entity without built-ins gets its
/// first custom component in the common bundle (one archetype move less).
pub(crate) fn spawn_entity(
    world: &mut World,
    parent: Entity,
    id: u64,
    index: usize,
    cx: &SpawnCx,
) -> Entity {
    let SpawnCx {
        scene_id,
        scene,
        visibility,
        inactive,
    } = *cx;
    let Some((_, node)) = scene.spawn_doc().entities.get_index(index) else {
        return world.spawn((ChildOf(parent), ForgeEntityId(id))).id();
    };
    // An entity an instance placed: its own id, and its id path as a sibling component.
    let placed = scene.placed_path(id);
    let own_id = placed.and_then(|p| p.last().copied()).unwrap_or(id);
    #[cfg(feature = "builtins")]
    let builtins = scene.prepared.entity(index);
    let name = bevy_ecs::name::Name::new(String::from(node.name.as_str()));
    let transform = bevy_transform_of(&node.transform);
    // One bundle for what every entity has: one archetype move instead of several.
    let bundle = (name, transform, ChildOf(parent), ForgeEntityId(own_id));
    #[cfg(feature = "builtins")]
    let has_builtins = !builtins.is_empty();
    #[cfg(not(feature = "builtins"))]
    let has_builtins = false;
    let custom = scene.custom.entity(index);
    let (entity, custom) = if has_builtins || inactive {
        (world.spawn(bundle).id(), custom)
    } else {
        super::custom::spawn_with_first(world, bundle, custom)
    };
    // A game observer may despawn the entity as a component arrives: stop there.
    let Ok(mut entity_mut) = world.get_entity_mut(entity) else {
        return entity;
    };
    if inactive {
        entity_mut.insert(ForgeSceneInactive);
        if entity_mut.is_despawned() {
            return entity;
        }
    }
    if let Some(path) = placed {
        entity_mut.insert(ForgeEntityPath(path.to_vec()));
        if entity_mut.is_despawned() {
            return entity;
        }
    }
    #[cfg(feature = "builtins")]
    {
        for component in builtins {
            insert_builtin(&mut entity_mut, component, scene_id, scene);
            if entity_mut.is_despawned() {
                return entity;
            }
        }
    }
    #[cfg(not(feature = "builtins"))]
    let _ = scene_id;
    super::custom::insert(&mut entity_mut, custom.iter(), id, None);
    if visibility.is_some_and(|v| !entity_mut.is_despawned() && entity_mut.contains_id(v)) {
        link_visibility(world, entity);
    }
    entity
}

/// The component id of `Visibility` in `world` (registered if it was not yet), for
/// [`spawn_entity`]: checking each spawned entity by id is cheaper than by type. `None`
/// without the `builtins` feature, where nothing spawned has it.
pub(crate) fn visibility_id(world: &mut World) -> Option<ComponentId> {
    #[cfg(feature = "builtins")]
    return Some(world.register_component::<bevy_camera::visibility::Visibility>());
    #[cfg(not(feature = "builtins"))]
    {
        let _ = world;
        None
    }
}

/// Inserts the custom components with entity references of the entities `which` lists (key,
/// index in the spawned document), in that order, once every entity they may name exists in
/// `entities`: [`spawn_entity`] leaves them out.
pub(crate) fn insert_references(
    world: &mut World,
    scene: &ForgeScene,
    entities: &HashMap<u64, Entity>,
    which: impl IntoIterator<Item = (u64, usize)>,
) {
    for (id, index) in which {
        insert_references_of(world, scene, entities, id, index, None);
    }
}

/// [`insert_references`] for one entity; whether it has components with entity references.
/// With `known`, a value naming a key it does not know is left out (streaming inserts it
/// when the entity comes in).
fn insert_references_of(
    world: &mut World,
    scene: &ForgeScene,
    entities: &HashMap<u64, Entity>,
    id: u64,
    index: usize,
    known: Option<&dyn Fn(u64) -> bool>,
) -> bool {
    let customs = scene.custom.entity(index);
    if !customs.iter().any(|c| c.refers()) {
        return false;
    }
    let live = |key: u64| entities.get(&key).copied();
    if let Some(mut entity) = entities
        .get(&id)
        .and_then(|e| world.get_entity_mut(*e).ok())
    {
        let insert = customs
            .iter()
            .filter(|p| known.is_none_or(|known| p.names_only(known)));
        super::custom::insert(&mut entity, insert, id, Some(&live));
    }
    true
}

/// Gives each scene ancestor of `entity` a `Visibility` (`Inherited`) when `entity` has one, so
/// that hiding an ancestor hides it: Bevy propagates visibility only through entities that have
/// `Visibility`. Scene entities with nothing drawn at or below them get none (the format page,
/// "Visibility": no component means `inherited`). The walk stops at the first ancestor
/// that has one (its own ancestors got theirs when it did: [`link_parent_visibility`]), or that
/// is not a scene entity (the [`ForgeSceneRoot`], which requires it). Spawning and hot reload
/// call this directly, so a scene spawned with [`ForgeScene::spawn_into`] into a bare `World`
/// (without the observer) is linked too.
#[cfg(feature = "builtins")]
pub(crate) fn link_visibility(world: &mut World, entity: Entity) {
    use bevy_camera::visibility::Visibility;
    if !world
        .get_entity(entity)
        .is_ok_and(|e| e.contains::<Visibility>())
    {
        return;
    }
    let mut current = entity;
    while let Some(parent) = world.get::<ChildOf>(current).map(ChildOf::parent) {
        let Ok(mut ancestor) = world.get_entity_mut(parent) else {
            return;
        };
        if ancestor.contains::<Visibility>() || !ancestor.contains::<ForgeEntityId>() {
            return;
        }
        ancestor.insert(Visibility::Inherited);
        current = parent;
    }
}

/// Keeps visibility flowing through plain scene entities when anything under them gets
/// `Visibility` later: a sprite or child the game adds, a scene spawned under a scene entity,
/// `Visibility` the game puts on a plain group. The parent, when it is a scene entity without
/// `Visibility`, gets `Visibility::Inherited`, which triggers this again one level up. An entity
/// the game moves (a new `ChildOf`) under a plain scene entity is not seen: give that scene entity
/// `Visibility`, as Bevy asks of every parent of something drawn.
#[cfg(feature = "builtins")]
pub(crate) fn link_parent_visibility(
    add: On<Add<bevy_camera::visibility::Visibility>>,
    parents: Query<&ChildOf>,
    plain: Query<
        (),
        (
            With<ForgeEntityId>,
            Without<bevy_camera::visibility::Visibility>,
        ),
    >,
    mut commands: Commands,
) {
    if let Ok(child_of) = parents.get(add.event_target())
        && plain.contains(child_of.parent())
    {
        commands
            .entity(child_of.parent())
            .try_insert(bevy_camera::visibility::Visibility::Inherited);
    }
}

/// Without built-ins there is no `Visibility` to link.
#[cfg(not(feature = "builtins"))]
pub(crate) fn link_visibility(_world: &mut World, _entity: Entity) {}

/// Inserts one prepared built-in, resolving its material through the shared cache.
#[cfg(feature = "builtins")]
pub(crate) fn insert_builtin(
    entity: &mut EntityWorldMut,
    component: &super::builtin::PreparedComponent,
    scene_id: AssetId<ForgeScene>,
    scene: &ForgeScene,
) {
    let mut material =
        |world: &mut World, slot: usize| material_handle(world, scene_id, scene, slot);
    super::builtin::insert(entity, component, &mut material);
}

#[cfg(feature = "builtins")]
fn material_handle(
    world: &mut World,
    scene_id: AssetId<ForgeScene>,
    scene: &ForgeScene,
    slot: usize,
) -> Option<UntypedHandle> {
    let cached = world
        .get_resource::<ForgeMaterials>()
        .and_then(|m| m.handles.get(&(scene_id, slot)).cloned());
    if let Some(handle) = cached {
        return handle;
    }
    let data = scene.materials.get(slot)?;
    let created = super::builtin::create_material(world, data);
    let mut cache = world.get_resource_or_insert_with(ForgeMaterials::default);
    let handle = match created {
        Ok(h) => Some(h),
        Err(reason) => {
            if !cache.warned {
                cache.warned = true;
                if cache.draws_nothing {
                    tracing::debug!(
                        "mesh3d entities spawn without materials in this app, which draws no meshes: {reason}"
                    );
                } else {
                    tracing::warn!("mesh3d entities spawn without materials: {reason}");
                }
            }
            None
        }
    };
    cache.handles.insert((scene_id, slot), handle.clone());
    handle
}
