//! Placed glTF models (feature `gltf`): an instance entity whose instance places a model
//! (`instance: Some((model: "models/house.glb#Scene0"))`) gets the model's node tree under it,
//! written from Bevy's own glTF asset (a `WorldAsset`, labelled `Scene0`, ...), and its
//! overrides applied to the nodes by node path.
//!
//! The nodes are written through a caller-owned entity map (`WorldAsset::write_to_world_with`)
//! rather than Bevy's spawner: on a new version of the model (a re-export) the nodes whose path
//! stays keep their entity, so the game's components on them and what it parented under them
//! stay too; nodes whose path went are despawned and new ones spawned. A new version of the
//! scene that changes the instance's overrides writes the model's values again into the same
//! entities and applies the new overrides.

use bevy_asset::{
    AssetEvent, AssetId, AssetServer, Assets, Handle, LoadState, LoadedUntypedAsset,
    UntypedAssetLoadFailedEvent,
};
use bevy_ecs::component::ComponentCloneBehavior;
use bevy_ecs::entity::{EntityHashMap, SceneEntityMapper};
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::message::MessageReader;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy_ecs::relationship::RelationshipHookMode;
use bevy_ecs::resource::IS_RESOURCE;
use bevy_ecs::system::SystemState;
use bevy_platform::collections::{HashMap, HashSet};
use bevy_world_serialization::WorldAsset;

mod overrides;

use overrides::{Applied, apply_overrides, undo};

use crate::format::{EcoString, Instance};
use crate::runtime::asset::once_assets_exist;
use crate::runtime::asset::scene::ForgeScene;
use crate::runtime::instance::models::ModelHooks;
use crate::runtime::instance::{
    ForgeSceneInactive, ForgeSceneInstance, ForgeSceneSystems, ForgeSpawnBudget, HeldBack, Limit,
    ModelWrites, frame_left, give_back, spawn_scene_instances,
};
use crate::runtime::values::builtin;

/// The nodes of a placed glTF model, on its instance entity once the model has spawned (and
/// again after each new version of the model or of the instance's overrides).
///
/// A node is known by its node path: the glTF node names from the model scene's root nodes
/// down (`["House", "Roof", "Chimney"]`), an unnamed node as Bevy names it (`GltfNode3`, its
/// index in the file), a mesh primitive's entity by its name below its node
/// (`["House", "Door", "Planks.Wood"]`). The empty path is the scene's own root entity, the
/// instance entity's child. When two siblings share a name, the first in file order has the
/// path.
///
/// ```
/// # use bevy_ecs::prelude::*;
/// # use bevy_forge_scene::ForgeModelNodes;
/// fn open_doors(models: Query<&ForgeModelNodes, Added<ForgeModelNodes>>) {
///     for nodes in &models {
///         if let Some(door) = nodes.node(&["House", "Door"]) {
///             // `door` is the entity of the model's `Door` node.
///             # let _ = door;
///         }
///     }
/// }
/// ```
#[derive(Component, Debug, Clone, Default)]
pub struct ForgeModelNodes {
    /// Every entity of the model, parents first.
    nodes: Vec<Node>,
    /// Node path to entity, the first in file order of same-named siblings.
    by_path: HashMap<Vec<EcoString>, Entity>,
}

/// One entity of a written model: its node path, which of same-named siblings it is at each
/// step (0 for the first), and its entity.
#[derive(Debug, Clone)]
struct Node {
    path: Vec<EcoString>,
    nth: Vec<u32>,
    entity: Entity,
}

impl ForgeModelNodes {
    fn new(nodes: Vec<Node>) -> Self {
        let mut by_path = HashMap::new();
        for n in &nodes {
            by_path.entry(n.path.clone()).or_insert(n.entity);
        }
        Self { nodes, by_path }
    }

    /// The entity of the node at node path `path` (`&["House", "Door"]`), if the model has it.
    pub fn node<S: AsRef<str>>(&self, path: &[S]) -> Option<Entity> {
        let path: Vec<EcoString> = path.iter().map(|s| EcoString::from(s.as_ref())).collect();
        self.by_path.get(&path).copied()
    }

    /// The node path of `entity`, if it is a node of this model.
    pub fn path_of(&self, entity: Entity) -> Option<&[EcoString]> {
        self.nodes
            .iter()
            .find(|n| n.entity == entity)
            .map(|n| n.path.as_slice())
    }

    /// Every entity of the model with its node path, parents before their children (a
    /// same-named sibling after the first has the first's path too; [`node`](Self::node)
    /// gives the first).
    pub fn iter(&self) -> impl Iterator<Item = (&[EcoString], Entity)> + '_ {
        self.nodes.iter().map(|n| (n.path.as_slice(), n.entity))
    }

    /// How many entities the model has (its scene root included).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the model has no nodes at all.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// On an instance entity that places a model: what to write and what was written.
#[derive(Component)]
pub(crate) struct PlacedModel {
    /// The model path as the scene writes it (`models/house.glb#Scene0`).
    path: EcoString,
    /// The model's file, its root asset (Bevy's `Gltf`) kept loaded: a reload of the file's
    /// path (what Bevy's file watcher sends when the file changes on disk, or
    /// `AssetServer::reload("models/house.glb")`) finds it and reloads the file with every
    /// scene of it in use. Without it, a path reload reaches the scenes only while the server
    /// watches for changes.
    file: Handle<LoadedUntypedAsset>,
    /// The scene, asked for once the file has loaded (the file's root asset holds it, so it is
    /// there without a second load), or once the file failed (so that the server, watching,
    /// reloads the file when it changes).
    handle: Option<Handle<WorldAsset>>,
    /// The failure of the file or the scene was reported (again after a success).
    failed: bool,
    scene: AssetId<ForgeScene>,
    /// The instance entity's key in the scene's spawned document.
    key: u64,
    /// What the last write's overrides did, undone before the next write.
    applied: Applied,
    /// Components left out of a write were reported.
    warned: bool,
}

/// Marks a [`PlacedModel`] to write in the next `Spawn`: new, or its model or overrides changed.
#[derive(Component)]
struct ModelDue;

/// The model part of `ForgeScenePlugin` (feature `gltf`): the [`ModelHooks`] through which
/// the instance core hands it the instance entities that place a model, and the writing of
/// placed models in `ForgeSceneSystems::Spawn`, after the first spawns and streaming.
pub(crate) struct ModelPlugin;

impl bevy_app::Plugin for ModelPlugin {
    fn build(&self, app: &mut bevy_app::App) {
        app.insert_resource(ModelHooks {
            place,
            changed: instance_changed,
            with_nodes,
        });
        once_assets_exist::<Self>(app, add_systems);
    }

    fn finish(&self, app: &mut bevy_app::App) {
        once_assets_exist::<Self>(app, add_systems);
    }
}

/// Puts the model instance `instance` (of the entity of key `key` in `scene`) on `entity`: its
/// model is loaded and written in the next `Spawn` once it has loaded.
fn place(entity: &mut EntityWorldMut, scene: AssetId<ForgeScene>, key: u64, instance: &Instance) {
    let Some(path) = instance.model.clone() else {
        return;
    };
    let Some(server) = entity.world().get_resource::<AssetServer>().cloned() else {
        return;
    };
    let file = server
        .load_builder()
        .load_untyped(model_file(&path).to_owned());
    entity.insert((
        PlacedModel {
            path,
            file,
            handle: None,
            failed: false,
            scene,
            key,
            applied: Applied::default(),
            warned: false,
        },
        ModelDue,
    ));
}

/// The file of model path `path` (`models/house.glb` of `models/house.glb#Scene0`).
fn model_file(path: &str) -> &str {
    path.split('#').next().unwrap_or_default()
}

/// A new version of the scene changed the instance of the entity of key `key` on `entity` to
/// `new`: the same model is written again with the new overrides; another model (or none)
/// takes the old one's nodes away first.
fn instance_changed(
    entity: &mut EntityWorldMut,
    scene: AssetId<ForgeScene>,
    key: u64,
    new: Option<&Instance>,
) {
    let new_model = new.and_then(|i| i.model.as_deref());
    let same = entity
        .get::<PlacedModel>()
        .is_some_and(|p| Some(p.path.as_str()) == new_model);
    if same {
        entity.insert(ModelDue);
        return;
    }
    if let Some(mut placed) = entity.take::<PlacedModel>() {
        entity.remove::<ModelDue>();
        take_nodes(entity, &mut placed);
    }
    if let Some(instance) = new.filter(|i| i.is_model()) {
        place(entity, scene, key, instance);
    }
}

/// Takes the nodes of the model placed on `entity` out of the world: what the overrides did
/// is undone (scene entities placed under nodes go back under `entity`), the model's scene
/// root is despawned with the nodes below it, and `entity` loses its [`ForgeModelNodes`].
fn take_nodes(entity: &mut EntityWorldMut, placed: &mut PlacedModel) {
    let id = entity.id();
    let nodes = entity.take::<ForgeModelNodes>();
    entity.world_scope(|world| {
        undo(world, id, &mut placed.applied);
        if let Some(root) = nodes.as_ref().and_then(|n| n.node::<&str>(&[]))
            && let Ok(e) = world.get_entity_mut(root)
        {
            e.despawn();
        }
    });
}

/// Whether the model placed on `entity` is held back: its instance entity is a streamed cell
/// (`streaming` on the model instance) whose content is not let in. The model's nodes are the
/// cell's content: in the world only while the cell is in.
fn held_back(world: &World, entity: Entity, placed: &PlacedModel) -> bool {
    let Some(scene) = world.resource::<Assets<ForgeScene>>().get(placed.scene) else {
        return false;
    };
    if !scene.cell_plan().anchors.contains_key(&placed.key) {
        return false;
    }
    // Before streaming's first pass the root has no record yet: every cell starts out.
    root_of(world, entity, placed)
        .and_then(|root| world.get::<HeldBack>(root))
        .is_none_or(|held| !held.lets_in(placed.key))
}

/// `entities` and the nodes of the models placed on them.
fn with_nodes(world: &World, mut entities: Vec<Entity>) -> Vec<Entity> {
    let nodes: Vec<Entity> = entities
        .iter()
        .filter_map(|e| world.get::<ForgeModelNodes>(*e))
        .flat_map(|n| n.nodes.iter().map(|n| n.entity))
        .collect();
    entities.extend(nodes);
    entities
}

/// Adds the writing of placed models to `ForgeSceneSystems::Spawn`, after the first spawns.
fn add_systems(app: &mut bevy_app::App) {
    use bevy_asset::AssetApp;
    if !app.world().contains_resource::<Assets<WorldAsset>>() {
        app.init_asset::<WorldAsset>();
    }
    // What every node has: written by reflection, so registered (a game's plugins register
    // the rest, the glTF plugin its own).
    app.register_type::<Name>()
        .register_type::<ChildOf>()
        .register_type::<Children>()
        .register_type::<bevy_transform::components::Transform>()
        .register_type::<bevy_transform::components::GlobalTransform>()
        .register_type::<bevy_transform::components::TransformTreeChanged>();
    app.add_systems(
        bevy_app::PreUpdate,
        write_models
            .after(spawn_scene_instances)
            .in_set(ModelWrites)
            .in_set(ForgeSceneSystems::Spawn),
    );
}

/// Writes every placed model that is due and loaded, and marks those whose model changed (or
/// came after a failed load).
fn write_models(
    world: &mut World,
    modified: &mut SystemState<MessageReader<AssetEvent<WorldAsset>>>,
    failures: &mut SystemState<MessageReader<UntypedAssetLoadFailedEvent>>,
    due: &mut QueryState<Entity, (With<PlacedModel>, With<ModelDue>)>,
    placed: &mut QueryState<(Entity, &PlacedModel)>,
) {
    let changed: HashSet<AssetId<WorldAsset>> = match modified.get_mut(world) {
        Ok(mut reader) => reader
            .read()
            .filter_map(|e| match e {
                // Added: a model that failed to load loaded after all (a fixed file).
                AssetEvent::Modified { id } | AssetEvent::Added { id } => Some(*id),
                _ => None,
            })
            .collect(),
        Err(_) => HashSet::new(),
    };
    // Files loaded since: each waiting model asks for its scene, which the file holds.
    let server = world.resource::<AssetServer>().clone();
    let asking: Vec<Entity> = placed
        .iter(world)
        .filter(|(_, p)| p.handle.is_none() && server.is_loaded(&p.file))
        .map(|(e, _)| e)
        .collect();
    for entity in asking {
        if let Some(mut p) = world.get_mut::<PlacedModel>(entity) {
            p.handle = Some(server.load::<WorldAsset>(p.path.to_string()));
        }
    }
    if !changed.is_empty() {
        let marked: Vec<Entity> = placed
            .iter(world)
            .filter(|(_, p)| p.handle.as_ref().is_some_and(|h| changed.contains(&h.id())))
            .map(|(e, _)| e)
            .collect();
        for entity in marked {
            if let Some(mut p) = world.get_mut::<PlacedModel>(entity)
                && matches!(server.load_state(&p.file), LoadState::Failed(_))
            {
                // A file that failed loaded after all (fixed, and reloaded for its scene):
                // its root asset is kept loaded from now on (the same handle, loaded again).
                let file = model_file(&p.path).to_owned();
                p.file = server.load_builder().load_untyped(file);
            }
            world.entity_mut(entity).insert(ModelDue);
        }
    }
    // A model file that failed to load: its scene stays loading, the failure comes once.
    let failed: Vec<(String, String)> = match failures.get_mut(world) {
        Ok(mut reader) => reader
            .read()
            .map(|e| (e.path.to_string(), e.error.to_string()))
            .collect(),
        Err(_) => Vec::new(),
    };
    if !failed.is_empty() {
        let stopped: Vec<Entity> = placed
            .iter(world)
            .filter(|(_, p)| {
                // The file failed (no label), or this scene of it (`#Scene5` it lacks).
                let file = model_file(&p.path);
                failed
                    .iter()
                    .any(|(f, _)| f == p.path.as_str() || f == file)
            })
            .map(|(e, _)| e)
            .collect();
        for entity in stopped {
            world.entity_mut(entity).remove::<ModelDue>();
            let Some(mut p) = world.get_mut::<PlacedModel>(entity) else {
                continue;
            };
            // Asking for the scene keeps it wanted: a server that watches reloads the file
            // when it changes, and the scene comes when the file is fixed.
            if p.handle.is_none() {
                p.handle = Some(server.load::<WorldAsset>(p.path.to_string()));
            }
            if std::mem::replace(&mut p.failed, true) {
                continue;
            }
            let file = model_file(&p.path);
            let Some((_, why)) = failed
                .iter()
                .find(|(f, _)| f == p.path.as_str() || f == file)
            else {
                continue;
            };
            tracing::error!(
                "model `{}` (entity {}) did not load: {why}; its nodes spawn once the file loads (Bevy's `GltfPlugin` loads glTF models)",
                p.path,
                p.key
            );
        }
    }
    // A streamed model whose cell went out: its nodes go (written again when it comes back).
    let streamed_out: Vec<Entity> = placed
        .iter(world)
        .filter(|(e, p)| world.get::<ForgeModelNodes>(*e).is_some() && held_back(world, *e, p))
        .map(|(e, _)| e)
        .collect();
    for entity in streamed_out {
        let mut e = world.entity_mut(entity);
        if let Some(mut placed) = e.take::<PlacedModel>() {
            take_nodes(&mut e, &mut placed);
            e.insert((placed, ModelDue));
        }
    }
    // Within the frame's spawn budget: what the first spawns and streaming left of the shared
    // one, or a root's own. A model's entities are written together (one `WorldAsset` in one
    // go) and counted after: a model is written while its budget is not spent, the models
    // after it wait for a later frame.
    let mut due: Vec<Entity> = due.iter(world).collect();
    due.sort_unstable();
    let mut shared = frame_left(world);
    let mut own: HashMap<Entity, Limit> = HashMap::new();
    for entity in due {
        write_one(world, entity, &mut shared, &mut own);
    }
    give_back(world, shared);
}

/// The scene root whose instance `entity` belongs to, once its instance exists.
fn root_of(world: &World, entity: Entity, placed: &PlacedModel) -> Option<Entity> {
    let mut at = entity;
    loop {
        if world.get::<ForgeSceneInstance>(at).is_some() {
            return Some(at);
        }
        match world.get::<ChildOf>(at) {
            Some(parent) => at = parent.parent(),
            None => break,
        }
    }
    // The game moved the instance entity out from under its root: the root whose instance
    // maps its key to it.
    let mut roots = world.try_query::<(Entity, &ForgeSceneInstance)>()?;
    roots
        .iter(world)
        .find(|(_, i)| i.scene() == placed.scene && i.by_key(placed.key) == Some(entity))
        .map(|(root, _)| root)
}

/// Writes the model placed on `entity` when it has loaded, its instance exists and its root's
/// budget this frame (its own in `own`, or `shared`) is not spent; counts its entities.
fn write_one(
    world: &mut World,
    entity: Entity,
    shared: &mut Limit,
    own: &mut HashMap<Entity, Limit>,
) {
    let Some(mut placed) = world.entity_mut(entity).take::<PlacedModel>() else {
        return;
    };
    let ready = placed
        .handle
        .as_ref()
        .is_some_and(|h| world.resource::<Assets<WorldAsset>>().contains(h.id()));
    let root = root_of(world, entity, &placed);
    match (ready, root) {
        // A streamed model whose cell is out waits for it to come in.
        (true, Some(_)) if held_back(world, entity, &placed) => {}
        (true, Some(root)) => {
            let limit = match world.get::<ForgeSpawnBudget>(root) {
                Some(budget) => own.entry(root).or_insert_with(|| Limit::of(budget)),
                None => &mut *shared,
            };
            if !limit.is_spent() {
                world.entity_mut(entity).remove::<ModelDue>();
                let id = placed.handle.as_ref().map(Handle::id);
                let written = world.resource_scope(|world, assets: Mut<Assets<WorldAsset>>| {
                    id.and_then(|id| assets.get(id))
                        .map_or(0, |asset| write(world, entity, root, asset, &mut placed))
                });
                placed.failed = false;
                limit.spend_many(u32::try_from(written).unwrap_or(u32::MAX));
            }
        }
        // Not loaded yet, or failed (`write_models` reports that and stops waiting).
        (false, _) => {}
        // The instance is still spawning: its entities come first.
        (true, None) => {}
    }
    if let Ok(mut e) = world.get_entity_mut(entity) {
        e.insert(placed);
    }
}

/// The entities of a model's world with their node paths, parents first (entity is the
/// model world's), and its root entities.
fn paths_of(model: &World) -> (Vec<Node>, Vec<Entity>) {
    let mut roots = Vec::new();
    for archetype in model.archetypes().iter() {
        if archetype.contains(IS_RESOURCE) {
            continue;
        }
        for e in archetype.entities() {
            if model.get::<ChildOf>(e.id()).is_none() {
                roots.push(e.id());
            }
        }
    }
    roots.sort();
    let mut out = Vec::new();
    let mut stack: Vec<Node> = roots
        .iter()
        .enumerate()
        .rev()
        .map(|(i, r)| Node {
            path: Vec::new(),
            nth: vec![i as u32],
            entity: *r,
        })
        .collect();
    while let Some(node) = stack.pop() {
        if let Some(children) = model.get::<Children>(node.entity) {
            let mut seen: HashMap<EcoString, u32> = HashMap::new();
            let mut below = Vec::with_capacity(children.len());
            for child in children.iter() {
                let name = model
                    .get::<Name>(child)
                    .map_or_else(EcoString::new, |n| EcoString::from(n.as_str()));
                let count = seen.entry(name.clone()).or_insert(0);
                let mut path = node.path.clone();
                path.push(name);
                let mut nth = node.nth.clone();
                nth.push(*count);
                *count += 1;
                below.push(Node {
                    path,
                    nth,
                    entity: child,
                });
            }
            stack.extend(below.into_iter().rev());
        }
        out.push(node);
    }
    (out, roots)
}

/// Writes `asset` under the instance entity `entity` (of the root `root`), keeping the
/// entities of nodes whose path stays, then applies the instance's overrides; how many
/// entities the model has.
fn write(
    world: &mut World,
    entity: Entity,
    root: Entity,
    asset: &WorldAsset,
    placed: &mut PlacedModel,
) -> usize {
    undo(world, entity, &mut placed.applied);
    let (paths, roots) = paths_of(&asset.world);
    let mut map = EntityHashMap::default();
    let mut foreign = Vec::new();
    // Whether each kept node's camera renders, as the game left it.
    let mut cameras: HashMap<Entity, bool> = HashMap::new();
    if let Some(old) = world.entity_mut(entity).take::<ForgeModelNodes>() {
        let old_entities: HashSet<Entity> = old.nodes.iter().map(|n| n.entity).collect();
        // By path and by which of same-named siblings: every entity has its own key.
        let new_paths: HashMap<(&[EcoString], &[u32]), Entity> = paths
            .iter()
            .map(|n| ((n.path.as_slice(), n.nth.as_slice()), n.entity))
            .collect();
        let mut removed = Vec::new();
        let mut kept = Vec::new();
        for node in &old.nodes {
            let target = &node.entity;
            if world.get_entity(*target).is_err() {
                continue;
            }
            match new_paths.get(&(node.path.as_slice(), node.nth.as_slice())) {
                Some(source) => {
                    map.insert(*source, *target);
                    kept.push(*target);
                    if let Some(active) = builtin::camera_is_active(world.entity(*target)) {
                        cameras.insert(*target, active);
                    }
                    if let Some(children) = world.get::<Children>(*target) {
                        foreign.extend(
                            children
                                .iter()
                                .filter(|c| !old_entities.contains(c))
                                .map(|c| (*target, c)),
                        );
                    }
                }
                None => removed.push(*target),
            }
        }
        // The model's hierarchy is written again whole; what the game put under a node
        // goes back under it afterwards.
        for target in kept {
            world.entity_mut(target).remove::<Children>();
        }
        for target in removed {
            if let Ok(e) = world.get_entity_mut(target) {
                e.despawn();
            }
        }
    }
    let skipped = copy_world(&asset.world, world, &mut map);
    if !skipped.is_empty() && !placed.warned {
        tracing::warn!(
            "model `{}` (entity {}): components of types the app has not registered for reflection are left out: {}; register them (`app.register_type::<T>()`) or add the plugin that does",
            placed.path,
            placed.key,
            skipped.join(", ")
        );
        placed.warned = true;
    }
    // A model's cameras do not render: the game's camera stays the one that does. A camera
    // the game switched on (`Camera::is_active`) stays on while its node stays.
    for target in map.values() {
        let active = cameras.get(target).copied().unwrap_or(false);
        if let Ok(mut e) = world.get_entity_mut(*target) {
            builtin::set_camera_active(&mut e, active);
        }
    }
    for source in roots {
        if let Some(&target) = map.get(&source)
            && world.get::<ChildOf>(target).map(ChildOf::parent) != Some(entity)
        {
            world.entity_mut(entity).add_child(target);
        }
    }
    for (parent, child) in foreign {
        if world.get_entity(child).is_ok() && world.get_entity(parent).is_ok() {
            world.entity_mut(parent).add_child(child);
        }
    }
    let nodes: Vec<Node> = paths
        .into_iter()
        .filter_map(|n| {
            Some(Node {
                entity: *map.get(&n.entity)?,
                ..n
            })
        })
        .collect();
    if world.get::<ForgeSceneInactive>(entity).is_some() {
        for node in &nodes {
            world.entity_mut(node.entity).insert(ForgeSceneInactive);
        }
    }
    let nodes = ForgeModelNodes::new(nodes);
    let written = nodes.len();
    placed.applied = apply_overrides(world, root, placed, &nodes);
    world.entity_mut(entity).insert(nodes);
    for node in placed_nodes(world, entity) {
        builtin::link_visibility(world, node);
    }
    written
}

/// Writes the entities of `model` into `world` through `map` (source entity to the entity
/// that stands for it; missing ones are spawned), as `WorldAsset::write_to_world_with` does,
/// but a component whose type is not registered for reflection is left out (its type named in
/// the result) instead of ending the write there. Entity references in components are mapped.
fn copy_world(model: &World, world: &mut World, map: &mut EntityHashMap<Entity>) -> Vec<String> {
    let registry = world.resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let mut skipped: Vec<String> = Vec::new();
    for archetype in model.archetypes().iter() {
        if archetype.contains(IS_RESOURCE) {
            continue;
        }
        for e in archetype.entities() {
            map.entry(e.id())
                .or_insert_with(|| world.spawn_empty().id());
        }
    }
    for archetype in model.archetypes().iter() {
        if archetype.contains(IS_RESOURCE) {
            continue;
        }
        for source in archetype.entities() {
            let Some(&target) = map.get(&source.id()) else {
                continue;
            };
            for component_id in archetype.iter_components() {
                let Some(info) = model.components().get_info(component_id) else {
                    continue;
                };
                if matches!(*info.clone_behavior(), ComponentCloneBehavior::Ignore) {
                    continue;
                }
                let reflect = info
                    .type_id()
                    .and_then(|t| registry.get(t))
                    .and_then(|r| r.data::<ReflectComponent>());
                let Some(reflect) = reflect else {
                    let name = info.name().to_string();
                    if !skipped.contains(&name) {
                        skipped.push(name);
                    }
                    continue;
                };
                let Some(value) = reflect.reflect(model.entity(source.id())) else {
                    continue;
                };
                SceneEntityMapper::world_scope(map, world, |world, mapper| {
                    reflect.apply_or_insert_mapped(
                        &mut world.entity_mut(target),
                        value.as_partial_reflect(),
                        &registry,
                        mapper,
                        RelationshipHookMode::Skip,
                    );
                });
            }
        }
    }
    skipped
}

/// The nodes of the model on `entity` (none before it is written).
fn placed_nodes(world: &World, entity: Entity) -> Vec<Entity> {
    world
        .get::<ForgeModelNodes>(entity)
        .map(|n| n.nodes.iter().map(|n| n.entity).collect())
        .unwrap_or_default()
}
