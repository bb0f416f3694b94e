//! Spawning loaded scenes: [`ForgeSceneRoot`], [`ForgeEntityId`], [`ForgeSceneInstance`] and the
//! [`ForgeSceneReady`] event.

use bevy_platform::collections::HashMap;

use std::sync::Arc;

use bevy_asset::{AssetId, Assets, Handle, UntypedHandle};
use bevy_ecs::component::ComponentId;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::prelude::*;
use bevy_reflect::Reflect;
use bevy_transform::components::Transform;

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
}

impl AppliedDoc {
    pub(crate) fn of(scene: &ForgeScene) -> Self {
        Self {
            doc: scene.spawn_doc().clone(),
            text_hashes: scene.text_hashes.clone(),
        }
    }

    /// The changes from this document to `scene`'s (see [`ForgeScene::changes_since`]).
    pub(crate) fn changes_to(&self, scene: &ForgeScene) -> crate::diff::SceneDiff {
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
}

/// Spawns every [`ForgeSceneRoot`] whose scene has loaded and that has no instance yet.
pub(crate) fn spawn_scene_instances(
    world: &mut World,
    roots: &mut QueryState<(Entity, &ForgeSceneRoot), Without<ForgeSceneInstance>>,
) {
    let pending: Vec<(Entity, AssetId<ForgeScene>)> =
        roots.iter(world).map(|(e, r)| (e, r.0.id())).collect();
    if pending.is_empty() {
        return;
    }
    world.resource_scope(|world, scenes: Mut<Assets<ForgeScene>>| {
        for (root, id) in pending {
            let Some(scene) = scenes.get(id) else {
                continue;
            };
            let instance = spawn_instance(world, root, id, scene);
            if let Some(mut applied) = world.get_resource_mut::<AppliedDocs>() {
                applied.0.entry(id).or_insert_with(|| AppliedDoc::of(scene));
            }
            if let Ok(mut root_entity) = world.get_entity_mut(root) {
                root_entity.insert(instance);
                world.trigger(ForgeSceneReady { entity: root });
            }
        }
    });
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

/// Spawns `scene` under `root` and returns the id map. Parents spawn before their children and
/// children in file order, so `Children` holds the file's order.
pub(crate) fn spawn_instance(
    world: &mut World,
    root: Entity,
    scene_id: AssetId<ForgeScene>,
    scene: &ForgeScene,
) -> ForgeSceneInstance {
    let doc = scene.spawn_doc();
    if world.get_entity(root).is_err() {
        return ForgeSceneInstance::new(scene_id, HashMap::new(), scene.placed_paths());
    }
    // Depth first from the roots, parents before children and children in order. Each stack
    // entry carries the entity that pushed it (id and live entity), which is its parent in a
    // valid forest, so the parent is found without a lookup; `spawned` (by index) holds what is
    // spawned already. An entity whose parent did not spawn is skipped with its subtree; that
    // only happens in a forest validation refused (an edit in memory), and each entity spawns
    // at most once, so the walk ends even on a cycle.
    let visibility = visibility_id(world);
    let mut spawned: Vec<Option<Entity>> = vec![None; doc.entities.len()];
    let mut stack: Vec<(u64, Option<(u64, Entity)>)> =
        doc.roots.iter().rev().map(|id| (*id, None)).collect();
    // Files usually list entities depth first, so the entity to spawn is usually the one after
    // the last spawned: its key is compared before looking the key up.
    let mut next = 0;
    while let Some((id, pushed_by)) = stack.pop() {
        let found = match doc.entities.get_index(next) {
            Some((key, node)) if *key == id => Some((next, node)),
            _ => doc.entities.get_full(&id).map(|(i, _, node)| (i, node)),
        };
        let Some((index, node)) = found else {
            continue;
        };
        next = index + 1;
        if spawned.get(index).is_none_or(Option::is_some) {
            continue;
        }
        let parent = match (node.parent, pushed_by) {
            (None, _) => root,
            (Some(p), Some((by, entity))) if by == p => entity,
            (Some(p), _) => match doc.entities.get_index_of(&p).and_then(|i| spawned[i]) {
                Some(e) => e,
                None => continue,
            },
        };
        let entity = spawn_entity(world, parent, id, index, scene_id, scene, visibility);
        spawned[index] = Some(entity);
        stack.extend(node.children.iter().rev().map(|c| (*c, Some((id, entity)))));
    }
    // The id map is built after the walk, not entry by entry during it: inserts into a table
    // of every entity, interleaved with spawning, each miss the cache (11-15 ms more at
    // 100,000 entities against 2-4 ms after the walk; BENCHMARKS.md, "Spawning closer to plain
    // Bevy").
    let mut entities = HashMap::with_capacity(doc.entities.len());
    entities.extend(
        doc.entities
            .keys()
            .zip(&spawned)
            .filter_map(|(id, e)| Some((*id, (*e)?))),
    );
    if scene.custom.has_references() {
        let order = doc.entities.keys().enumerate().map(|(i, id)| (*id, i));
        insert_references(world, scene, &entities, order);
    }
    ForgeSceneInstance::new(scene_id, entities, scene.placed_paths())
}

/// Spawns entity `id` (at `index` in `scene.doc.entities`) under `parent` with everything the
/// scene prepared for it (linking its visibility when it has `Visibility`, whose id is
/// `visibility`: [`visibility_id`]) but the custom components with entity references
/// ([`insert_references`] inserts them). `ChildOf` appends it to the parent's `Children`.
///
/// Components are inserted after the common bundle, built-ins before custom components, so a
/// custom component's hooks and observers see the entity's parent and built-ins. An entity
/// without built-ins gets its first custom component in the common bundle (one archetype move
/// less).
pub(crate) fn spawn_entity(
    world: &mut World,
    parent: Entity,
    id: u64,
    index: usize,
    scene_id: AssetId<ForgeScene>,
    scene: &ForgeScene,
    visibility: Option<ComponentId>,
) -> Entity {
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
    let (entity, custom) = if has_builtins {
        (world.spawn(bundle).id(), custom)
    } else {
        super::custom::spawn_with_first(world, bundle, custom)
    };
    // A game observer may despawn the entity as a component arrives: stop there.
    let Ok(mut entity_mut) = world.get_entity_mut(entity) else {
        return entity;
    };
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
    let live = |key: u64| entities.get(&key).copied();
    for (id, index) in which {
        let customs = scene.custom.entity(index);
        if !customs.iter().any(|c| c.refers()) {
            continue;
        }
        let Some(mut entity) = entities
            .get(&id)
            .and_then(|e| world.get_entity_mut(*e).ok())
        else {
            continue;
        };
        super::custom::insert(&mut entity, customs.iter(), id, Some(&live));
    }
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
                tracing::warn!("mesh3d entities spawn without materials: {reason}");
            }
            None
        }
    };
    cache.handles.insert((scene_id, slot), handle.clone());
    handle
}
