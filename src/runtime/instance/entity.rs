//! The entities of an instance, one at a time: spawned from the scene ([`Spawner`]), a subtree
//! of them spawned within a limit ([`Subtree`], [`spawn_subtree`]), despawned by key
//! ([`despawn_keys`]), patched to a new version of the scene ([`patch_entity`]), and their
//! components with entity references inserted once what they name exists
//! ([`insert_references`]).

use bevy_asset::AssetId;
use bevy_ecs::component::ComponentId;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_platform::collections::HashMap;
use bevy_transform::components::Transform;

use super::budget::Limit;
use super::gate::ForgeSceneInactive;
use super::models;
use super::root::ForgeSceneInstance;
use crate::diff::{ComponentChange, EntityChange};
use crate::format::SceneDoc;
use crate::runtime::asset::scene::ForgeScene;
use crate::runtime::values::components::{ForgeEntityId, ForgeEntityPath, bevy_transform_of};
use crate::runtime::values::{builtin, custom};

/// What spawning the entities of one scene under one root needs, looked up once: the scene,
/// `Visibility`'s component id and whether the root holds its instance inactive
/// ([`ForgeSceneInactive`]).
#[derive(Clone, Copy)]
pub(crate) struct Spawner<'a> {
    scene_id: AssetId<ForgeScene>,
    scene: &'a ForgeScene,
    visibility: Option<ComponentId>,
    inactive: bool,
}

impl<'a> Spawner<'a> {
    /// Spawns entities of `scene` (stored under `scene_id`) for the instance on `root`.
    pub(crate) fn new(
        world: &mut World,
        root: Entity,
        scene_id: AssetId<ForgeScene>,
        scene: &'a ForgeScene,
    ) -> Self {
        let inactive = world.get::<ForgeSceneInactive>(root).is_some();
        Self::with(scene_id, scene, builtin::visibility_id(world), inactive)
    }

    /// A spawner whose `Visibility` id and gate are known.
    pub(super) fn with(
        scene_id: AssetId<ForgeScene>,
        scene: &'a ForgeScene,
        visibility: Option<ComponentId>,
        inactive: bool,
    ) -> Self {
        Self {
            scene_id,
            scene,
            visibility,
            inactive,
        }
    }

    /// Spawns the entity of key `key` (at `index` in the scene's spawned document) under
    /// `parent` with everything the scene prepared for it (linking its visibility when it has
    /// `Visibility`) but the custom components with entity references ([`insert_references`]
    /// inserts them). `ChildOf` appends it to the parent's `Children`.
    ///
    /// Components are inserted after the common bundle (and [`ForgeSceneInactive`], for an
    /// instance held inactive), built-ins before custom components, so a custom component's
    /// hooks and observers see the entity's parent and built-ins. An entity without built-ins
    /// gets its first custom component in the common bundle (one archetype move less).
    pub(crate) fn spawn(
        &self,
        world: &mut World,
        parent: Entity,
        key: u64,
        index: usize,
    ) -> Entity {
        let Spawner {
            scene_id,
            scene,
            visibility,
            inactive,
        } = *self;
        let Some((_, node)) = scene.spawn_doc().entities.get_index(index) else {
            return world.spawn((ChildOf(parent), ForgeEntityId(key))).id();
        };
        // An entity an instance placed: its own id, and its id path as a sibling component.
        let placed = scene.placed_path(key);
        let own_id = placed.and_then(|p| p.last().copied()).unwrap_or(key);
        let builtins = scene.prepared.entity(index);
        let name = Name::new(String::from(node.name.as_str()));
        let transform = bevy_transform_of(&node.transform);
        // One bundle for what every entity has: one archetype move instead of several.
        let bundle = (name, transform, ChildOf(parent), ForgeEntityId(own_id));
        let customs = scene.custom.entity(index);
        let (entity, customs) = if !builtins.is_empty() || inactive {
            (world.spawn(bundle).id(), customs)
        } else {
            custom::spawn_with_first(world, bundle, customs)
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
        for component in builtins {
            builtin::insert_prepared(
                &mut entity_mut,
                component,
                scene_id.untyped(),
                &scene.materials,
            );
            if entity_mut.is_despawned() {
                return entity;
            }
        }
        custom::insert(&mut entity_mut, customs.iter(), key, None);
        if let Some(instance) = node.instance.as_deref().filter(|i| i.is_model()) {
            models::place_model(&mut entity_mut, scene_id, key, instance);
        }
        if visibility.is_some_and(|v| !entity_mut.is_despawned() && entity_mut.contains_id(v)) {
            builtin::link_visibility(world, entity);
        }
        entity
    }
}

/// The spawn of the entities below one entity of a scene, resumable from frame to frame
/// ([`spawn_subtree`]).
pub(crate) struct Subtree {
    /// Entities still to spawn, each with its parent's live entity.
    stack: Vec<(u64, Entity)>,
    /// Keys spawned so far.
    spawned: Vec<u64>,
}

impl Subtree {
    /// The entities below the entity of key `key` in `doc` (a scene's spawned document), to
    /// spawn under `at`, its live entity.
    pub(crate) fn below(doc: &SceneDoc, key: u64, at: Entity) -> Self {
        let children = doc.entities.get(&key).map_or(&[][..], |n| &n.children);
        Self {
            stack: children.iter().rev().map(|c| (*c, at)).collect(),
            spawned: Vec::new(),
        }
    }

    /// The keys spawned so far, parents first.
    pub(crate) fn spawned(&self) -> &[u64] {
        &self.spawned
    }
}

/// Spawns `subtree` for the instance on `root` with `spawner`, parents first, until it is
/// complete (true) or `limit` is spent. The content of a streamed cell below it stays held
/// back (the walk stops at the cell's anchor); an entity already live is not spawned again,
/// and one whose parent is gone is skipped with its subtree. Each spawned entity joins the
/// instance's id map; its components with entity references wait for [`insert_references`].
pub(crate) fn spawn_subtree(
    world: &mut World,
    root: Entity,
    spawner: &Spawner,
    subtree: &mut Subtree,
    limit: &mut Limit,
) -> bool {
    let doc = spawner.scene.spawn_doc();
    let plan = spawner.scene.cell_plan();
    let alive = |world: &World, e: Entity| world.get_entity(e).is_ok();
    while let Some((key, parent)) = subtree.stack.pop() {
        let Some((index, _, node)) = doc.entities.get_full(&key) else {
            continue;
        };
        let live = world
            .get::<ForgeSceneInstance>(root)
            .and_then(|i| i.by_key(key))
            .is_some_and(|e| alive(world, e));
        if !alive(world, parent) || live {
            continue;
        }
        let entity = spawner.spawn(world, parent, key, index);
        let Some(mut instance) = world.get_mut::<ForgeSceneInstance>(root) else {
            return true; // the root went with a game's hook
        };
        instance.set(key, entity);
        subtree.spawned.push(key);
        if !plan.is_anchor_at(index) {
            subtree
                .stack
                .extend(node.children.iter().rev().map(|c| (*c, entity)));
        }
        if limit.spend() {
            return subtree.stack.is_empty();
        }
    }
    true
}

/// Despawns the live entities of `keys` of the instance on `root` (in that order: parents
/// first despawn their subtrees) and forgets them.
pub(crate) fn despawn_keys(world: &mut World, root: Entity, keys: &[u64]) {
    for key in keys {
        let Some(entity) = world
            .get_mut::<ForgeSceneInstance>(root)
            .and_then(|mut i| i.forget(*key))
        else {
            continue;
        };
        if let Ok(e) = world.get_entity_mut(entity) {
            e.despawn();
        }
    }
}

/// Inserts the custom components with entity references of the entities `which` lists (key,
/// index in the spawned document), in that order, once every entity they may name is in
/// `instance`: [`Spawner::spawn`] leaves them out.
pub(crate) fn insert_references(
    world: &mut World,
    scene: &ForgeScene,
    instance: &ForgeSceneInstance,
    which: impl IntoIterator<Item = (u64, usize)>,
) {
    for (key, index) in which {
        insert_references_of(world, scene, instance.entities(), key, index, None);
    }
}

/// [`insert_references`] for one entity; whether it has components with entity references.
/// With `known`, a value naming a key it does not know is left out (streaming inserts it
/// when the entity comes in).
pub(super) fn insert_references_of(
    world: &mut World,
    scene: &ForgeScene,
    entities: &HashMap<u64, Entity>,
    key: u64,
    index: usize,
    known: Option<&dyn Fn(u64) -> bool>,
) -> bool {
    let customs = scene.custom.entity(index);
    if !customs.iter().any(|c| c.refers()) {
        return false;
    }
    let live = |key: u64| entities.get(&key).copied();
    if let Some(mut entity) = entities
        .get(&key)
        .and_then(|e| world.get_entity_mut(*e).ok())
    {
        let insert = customs
            .iter()
            .filter(|p| known.is_none_or(|known| p.names_only(known)));
        custom::insert(&mut entity, insert, key, Some(&live));
    }
    true
}

/// Brings the live `entity` of `change.id`, of `instance` under `root`, to `scene` (stored under
/// `scene_id`) as `change` says: `Name` when renamed, `Transform` when moved, `ChildOf` when
/// reparented (to the root, or to its new parent when that is live), and the Bevy components of
/// added, changed and removed component keys (custom fields resolving their entity references
/// against `instance`). Nothing else is written. Whether anything was.
pub(crate) fn patch_entity(
    world: &mut World,
    root: Entity,
    instance: &ForgeSceneInstance,
    entity: Entity,
    change: &EntityChange,
    scene_id: AssetId<ForgeScene>,
    scene: &ForgeScene,
) -> bool {
    let index = scene.spawn_doc().entities.get_index_of(&change.id);
    let new_parent = change.parent.as_ref().map(|p| match p.new {
        None => Some(root),
        Some(p) => instance.by_key(p).filter(|e| world.get_entity(*e).is_ok()),
    });
    let mut e = world.entity_mut(entity);
    let mut touched = false;
    // A value the entity already has is not written again: a live value kept into the file
    // (the live link) reloads without moving a change tick.
    if let Some(name) = &change.name
        && e.get::<Name>()
            .is_none_or(|n| n.as_str() != name.new.as_str())
    {
        e.insert(Name::new(String::from(name.new.as_str())));
        touched = true;
    }
    if let Some(t) = &change.transform {
        let new = bevy_transform_of(&t.new);
        if e.get::<Transform>()
            .is_none_or(|live| !same_transform(live, &new))
        {
            e.insert(new);
            touched = true;
        }
    }
    if let Some(Some(parent)) = new_parent {
        e.insert(ChildOf(parent));
        touched = true;
    }
    if let Some(instance) = &change.instance {
        models::model_changed(&mut e, scene_id, change.id, instance.new.as_deref());
        touched = true;
    }
    let mut components = false;
    for component in &change.components {
        // A game observer may despawn the entity as a component arrives.
        if e.is_despawned() {
            break;
        }
        let live = |key: u64| instance.entities().get(&key).copied();
        components |= patch_component(&mut e, component, index, scene_id, scene, &live);
    }
    touched |= components;
    if components || change.parent.is_some() {
        // A rendered component added, or a rendered entity moved under a new parent.
        builtin::link_visibility(world, entity);
    }
    touched
}

/// Whether two transforms are the same to what a file can spell: translation and scale
/// exactly (the writer's numbers read back to the same `f32`), rotation within 1e-6 per
/// component of the quaternion or of its negation (the same rotation; Euler degrees read back
/// through sines and cosines).
fn same_transform(a: &Transform, b: &Transform) -> bool {
    let close = |p: bevy_math::Quat, q: bevy_math::Quat| p.abs_diff_eq(q, 1e-6);
    a.translation == b.translation
        && a.scale == b.scale
        && (close(a.rotation, b.rotation) || close(a.rotation, -b.rotation))
}

/// Applies one component change to a live entity; whether it wrote anything (a value the
/// entity already has is left as it is).
fn patch_component(
    entity: &mut EntityWorldMut,
    change: &ComponentChange,
    index: Option<usize>,
    scene_id: AssetId<ForgeScene>,
    scene: &ForgeScene,
    live: custom::Live<'_>,
) -> bool {
    let key = change.key();
    let id = index
        .and_then(|i| scene.spawn_doc().entities.get_index(i))
        .map_or(0, |(id, _)| *id);
    let Some(written) = key.strip_prefix("custom:") else {
        // A built-in.
        let prepared = match change {
            ComponentChange::Removed { .. } => None,
            ComponentChange::Added { .. } | ComponentChange::Changed { .. } => {
                index.and_then(|i| scene.prepared.entity(i).iter().find(|c| c.tag() == key))
            }
        };
        if let ComponentChange::Changed { component, .. } = change
            && builtin::read_entity(entity.as_readonly(), &key, Some(component)).as_ref()
                == Some(component)
        {
            return false;
        }
        match prepared {
            Some(component) => {
                builtin::insert_prepared(entity, component, scene_id.untyped(), &scene.materials)
            }
            None => builtin::remove(entity, &key),
        }
        return true;
    };
    // The file may name the type by its bare name (`Orbit`), as the loader allows.
    let canonical = custom::canonical_path(entity.world(), written);
    let type_path = canonical.as_deref().unwrap_or(written);
    let prepared = index.and_then(|i| scene.custom.entity(i).find(type_path));
    match (change, prepared) {
        (ComponentChange::Removed { .. }, _) | (_, None) => custom::remove(entity, type_path),
        (
            ComponentChange::Changed {
                fields: Some(fields),
                ..
            },
            Some(p),
        ) => {
            let set: Vec<&str> = fields
                .iter()
                .filter(|f| f.new.is_some())
                .map(|f| f.name.as_str())
                .collect();
            if p.is_live(entity, Some(&set), live) {
                return false;
            }
            custom::patch_fields(entity, p, &set, id, live);
        }
        (ComponentChange::Changed { .. }, Some(p)) if p.is_live(entity, None, live) => {
            return false;
        }
        (_, Some(p)) => custom::insert_one(entity, p, id, live),
    }
    true
}
