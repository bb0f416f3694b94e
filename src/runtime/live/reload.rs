//! Hot reload: when a scene asset changes, diff the last applied document against the new one by
//! stable id and patch every live instance; a bad edit changes nothing and keeps the last good
//! scene.
//!
//! # What a reload touches
//! Only what the [`SceneDiff`] lists: added entities are spawned at their place, removed
//! subtrees are despawned, and on changed entities only the changed parts are written (`Name`
//! when renamed, `Transform` when moved, the Bevy components of added, changed or removed
//! component keys, `ChildOf` when reparented, `Children` order when siblings were reordered).
//! Every other entity and component is left alone: same `Entity`, no change detection, and
//! components the game added at runtime stay.
//!
//! # Entities the game moved or despawned
//! - An entity the game despawned stays despawned: changes to it, and entities the file adds
//!   under it, are skipped (logged at debug level), and its id leaves the
//!   [`ForgeSceneInstance`] map. No duplicate is spawned.
//! - An entity the game reparented (inside or outside the instance) keeps its new parent until
//!   the file itself changes that entity's parent; its other changes still apply where it lives.
//!   When the file removes it, it is despawned wherever it is.
//! - Sibling order follows the file for the scene's own entities; children the game added to a
//!   scene entity keep their relative order after them.
//!
//! # Entity references
//! A reload resolves the references of what it writes (`#7` in custom fields; the `format`
//! module docs, "Entity references") against the instance's entities after the change: a
//! field whose reference is unchanged is not written and keeps its entity; a changed field, or
//! a component of an added entity, gets the live entity it names, entities the same edit added
//! included (they are all spawned before any component that names one is inserted). An edit
//! that removes an entity something still names does not load (`forge::custom::reference`):
//! the last good scene stays. A reload never re-spawns an entity the game despawned (above), so
//! a reference to it written by a later reload holds an `Entity` that is not alive (the
//! despawned one, or `Entity::PLACEHOLDER` once a reload has dropped it from the instance
//! map), as any stale `Entity` in Bevy: check it with `World::get_entity`, or despawn and
//! respawn the instance for a fresh copy.
//!
//! # Failed reloads
//! A file that no longer reads or validates fails to load; Bevy keeps the previous asset in
//! `Assets<ForgeScene>`, the live instances are untouched, and the last applied document stays
//! the base of the next diff, so the next good save applies everything since the last good one,
//! once. Each failure is logged once and triggered as a [`ForgeSceneReloadFailed`] on every
//! live root of the scene, with every diagnostic's line and column.

use bevy_platform::collections::{HashMap, HashSet};
use std::sync::Arc;

use bevy_asset::{
    AssetEvent, AssetId, AssetLoadError, AssetLoadFailedEvent, AssetPath, AssetServer, Assets,
};
use bevy_ecs::hierarchy::Children;
use bevy_ecs::message::MessageReader;
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemState;

use crate::codes;
use crate::diff::SceneDiff;
use crate::runtime::asset::loader::{ForgeSceneLoadError, list};
use crate::runtime::asset::scene::ForgeScene;
use crate::runtime::instance::{
    AppliedVersions, ForgeSceneInstance, HeldBack, Spawner, insert_references, patch_entity,
};
use crate::runtime::values::components::ForgeEntityPath;
use crate::validate::{Diagnostic, Severity};

/// Triggered on a [`ForgeSceneRoot`](crate::ForgeSceneRoot) entity after a reload was applied to
/// its instance, naming the entities that were added, removed and changed by id path
/// ([`ForgeEntityPath`]: `[7]` for the scene's own entity 7, `[5, 1]` for entity 1 of the
/// prefab that entity 5 places).
#[derive(EntityEvent, Clone, Debug, PartialEq, Eq)]
pub struct ForgeSceneReloaded {
    /// The root entity of the instance.
    pub entity: Entity,
    /// The entities spawned.
    pub added: Vec<ForgeEntityPath>,
    /// The entities despawned.
    pub removed: Vec<ForgeEntityPath>,
    /// The entities patched in place.
    pub changed: Vec<ForgeEntityPath>,
}

/// Triggered on each [`ForgeSceneRoot`](crate::ForgeSceneRoot) entity of a scene whose reload
/// failed (the file, or a prefab it places, no longer reads or validates); nothing in the world
/// changed and the last good scene stays live. (An edit in memory that does not check is
/// refused by [`ForgeScene::edited`] itself, with its diagnostics.) Triggered once per failed load and
/// root; an observer without a target (`app.add_observer(|failed: On<ForgeSceneReloadFailed>|
/// ..)`) sees every one.
///
/// A scene with no live instance has nothing to reload: its failed loads, first loads included,
/// reach a game as Bevy's own `AssetLoadFailedEvent<ForgeScene>` message, whose error
/// [`ForgeSceneLoadError::from_asset_error`](crate::ForgeSceneLoadError::from_asset_error)
/// reads.
#[derive(EntityEvent, Clone, Debug, PartialEq)]
pub struct ForgeSceneReloadFailed {
    /// The root entity of the live instance.
    pub entity: Entity,
    /// The scene asset.
    pub scene: AssetId<ForgeScene>,
    /// The asset path of the file.
    pub path: AssetPath<'static>,
    /// Every problem, with line and column where known.
    pub diagnostics: Vec<Diagnostic>,
}

/// The root entities of the live instances of `scene`.
fn live_roots(world: &mut World, scene: AssetId<ForgeScene>) -> Vec<Entity> {
    let mut roots = world.query::<(Entity, &ForgeSceneInstance)>();
    roots
        .iter(world)
        .filter(|(_, i)| i.scene() == scene)
        .map(|(e, _)| e)
        .collect()
}

/// Triggers a [`ForgeSceneReloadFailed`] on each live root of `scene`.
fn report_failure(
    world: &mut World,
    scene: AssetId<ForgeScene>,
    path: AssetPath<'static>,
    diagnostics: Vec<Diagnostic>,
) {
    for entity in live_roots(world, scene) {
        world.trigger(ForgeSceneReloadFailed {
            entity,
            scene,
            path: path.clone(),
            diagnostics: diagnostics.clone(),
        });
    }
}

/// The last failure reported per scene. The asset server reloads a path once per handle to it
/// (the scene and its sub-assets), so one bad save can fail several times: report it once.
#[derive(Resource, Default)]
pub(crate) struct ReportedFailures(HashMap<AssetId<ForgeScene>, Vec<Diagnostic>>);

type ReloadMessages<'w, 's> = (
    MessageReader<'w, 's, AssetEvent<ForgeScene>>,
    MessageReader<'w, 's, AssetLoadFailedEvent<ForgeScene>>,
);

/// The diagnostics of a failed load.
fn diagnostics_of(error: &AssetLoadError) -> Vec<Diagnostic> {
    match ForgeSceneLoadError::from_asset_error(error) {
        Some(scene_error) => scene_error.diagnostics(),
        None => vec![Diagnostic::new(
            Severity::Error,
            codes::read::IO,
            error.to_string(),
        )],
    }
}

/// Applies modified scenes to their live instances; reports failed reloads.
pub(crate) fn reload_scenes(world: &mut World, messages: &mut SystemState<ReloadMessages>) {
    let (modified, removed, failed) = {
        let Ok((mut events, mut failures)) = messages.get_mut(world) else {
            return;
        };
        let mut modified = Vec::new();
        let mut seen = HashSet::new();
        let mut removed = Vec::new();
        for event in events.read() {
            match event {
                AssetEvent::Modified { id } if seen.insert(*id) => modified.push(*id),
                AssetEvent::Removed { id } => removed.push(*id),
                _ => {}
            }
        }
        let failed: Vec<_> = failures
            .read()
            .map(|f| (f.id, f.path.clone(), diagnostics_of(&f.error)))
            .collect();
        (modified, removed, failed)
    };
    for (scene, path, diagnostics) in failed {
        let live = world
            .get_resource::<AppliedVersions>()
            .is_some_and(|a| a.get(scene).is_some());
        if !live {
            continue; // a first load failing; the asset server reports it
        }
        let mut reported = world.get_resource_or_insert_with(ReportedFailures::default);
        if reported.0.get(&scene) == Some(&diagnostics) {
            continue;
        }
        reported.0.insert(scene, diagnostics.clone());
        let text = list(&diagnostics, &path.to_string());
        tracing::error!("reload of `{path}` failed; the last good scene stays live:\n{text}");
        report_failure(world, scene, path, diagnostics);
    }
    if let Some(mut applied) = world.get_resource_mut::<AppliedVersions>() {
        for id in removed {
            applied.forget(id);
        }
    }
    for id in modified {
        if let Some(mut reported) = world.get_resource_mut::<ReportedFailures>() {
            reported.0.remove(&id);
        }
        reload_scene(world, id);
        reload_placing(world, id);
    }
}

/// When scene `id` is a prefab other live scenes place (directly or through other prefabs),
/// reloads those scenes: a prefab reloaded by its own path (`AssetServer::reload`, or its file
/// watched) reaches every scene that places it, which hot reload then patches. A scene already
/// read with the prefab's new document is not read again.
fn reload_placing(world: &mut World, id: AssetId<ForgeScene>) {
    let Some(server) = world.get_resource::<AssetServer>().cloned() else {
        return;
    };
    let Some(path) = server.get_path(id) else {
        return;
    };
    let file = path.path().to_string_lossy().replace('\\', "/");
    let (Some(scenes), Some(applied)) = (
        world.get_resource::<Assets<ForgeScene>>(),
        world.get_resource::<AppliedVersions>(),
    ) else {
        return;
    };
    let new = scenes.get(id).map(|s| s.doc.clone());
    let placing: Vec<AssetPath<'static>> = applied
        .scenes()
        .filter_map(|scene| {
            let placing = scenes.get(scene)?;
            let has = placing.prefabs.files.iter().any(|f| *f == file);
            let current = placing
                .prefabs
                .docs
                .iter()
                .find(|(f, _)| *f == file)
                .is_some_and(|(_, doc)| new.as_ref().is_some_and(|new| **doc == **new));
            (has && !current).then(|| server.get_path(scene)).flatten()
        })
        .map(|p| p.into_owned())
        .collect();
    for scene in placing {
        tracing::debug!("prefab `{path}` changed: reloading `{scene}`");
        server.reload(scene);
    }
}

/// Brings every live instance of scene `id` from the last applied document to the current one.
fn reload_scene(world: &mut World, id: AssetId<ForgeScene>) {
    let Some(old) = world
        .get_resource::<AppliedVersions>()
        .and_then(|a| a.get(id).cloned())
    else {
        return; // no live instance yet
    };
    world.resource_scope(|world, scenes: Mut<Assets<ForgeScene>>| {
        let Some(scene) = scenes.get(id) else {
            return;
        };
        if Arc::ptr_eq(&old.doc, scene.spawn_doc()) {
            return;
        }
        let changes = super::painted::changes(&old, scene);
        if !changes.is_empty() {
            tracing::info!("scene {id:?} reloaded:\n{changes}");
            for root in live_roots(world, id) {
                // Taken out (not cloned) while the world is patched, then put back.
                let Some(mut instance) = world.entity_mut(root).take::<ForgeSceneInstance>() else {
                    continue;
                };
                // A streamed root: what the change adds inside a cell that is held back waits
                // for the cell (it spawns from the new scene when it comes in).
                let held_back = world.entity_mut(root).take::<HeldBack>();
                let held = |key: u64| {
                    held_back
                        .as_ref()
                        .is_some_and(|h| h.holds(scene.cell_plan(), key))
                };
                let event = apply(world, root, &mut instance, &changes, id, scene, &held);
                if let Ok(mut entity) = world.get_entity_mut(root) {
                    entity.insert(instance);
                    if let Some(held_back) = held_back {
                        entity.insert(held_back);
                    }
                    world.trigger(event);
                }
            }
        }
        if let Some(mut applied) = world.get_resource_mut::<AppliedVersions>() {
            applied.set(id, scene.version());
        }
    });
}

fn alive(world: &World, entity: Entity) -> bool {
    world.get_entity(entity).is_ok()
}

/// Applies `changes` (the [`diff`](crate::diff::diff), or [`ForgeScene::changes_since`], from the
/// document `instance` was spawned or last patched from to `scene`'s document) to one live instance
/// under `root`, as hot reload does, and returns what was added, removed and changed. For use
/// without an `App` (benchmarks, tools); the plugin does this itself on `AssetEvent::Modified`.
/// `instance` is updated in place; the event is returned, not triggered.
pub fn apply_diff(
    world: &mut World,
    root: Entity,
    instance: &mut ForgeSceneInstance,
    changes: &SceneDiff,
    scene: &ForgeScene,
) -> ForgeSceneReloaded {
    let scene_id = instance.scene();
    apply(world, root, instance, changes, scene_id, scene, &|_| false)
}

/// Applies `changes` to one instance, following the diff's documented order: spawn added,
/// patch changed, despawn removed, then set sibling orders.
fn apply(
    world: &mut World,
    root: Entity,
    instance: &mut ForgeSceneInstance,
    changes: &SceneDiff,
    scene_id: AssetId<ForgeScene>,
    scene: &ForgeScene,
    held: &dyn Fn(u64) -> bool,
) -> ForgeSceneReloaded {
    // Keys of what changed; named by id path at the end (removed ones by the paths before the
    // change, the others by the scene's).
    let (mut added_keys, mut removed_keys, mut changed_keys) = (Vec::new(), Vec::new(), Vec::new());
    let live = |world: &World, instance: &ForgeSceneInstance, id: u64| {
        instance.by_key(id).filter(|e| alive(world, *e))
    };
    // 1. Spawn added entities, parents first. An instance spawned after the change was made
    // (in the frame of an in-memory edit, before hot reload ran) already has them.
    let spawner = Spawner::new(world, root, scene_id, scene);
    for added in &changes.added {
        if live(world, instance, added.id).is_some() || held(added.id) {
            continue;
        }
        let parent = match added.parent {
            None => Some(root),
            Some(p) => live(world, instance, p),
        };
        let (Some(parent), Some(index)) =
            (parent, scene.spawn_doc().entities.get_index_of(&added.id))
        else {
            tracing::debug!("entity {} not spawned: its parent is gone", added.id);
            continue;
        };
        let entity = spawner.spawn(world, parent, added.id, index);
        instance.set(added.id, entity);
        added_keys.push(added.id);
    }
    // Their components with entity references, once all of them exist.
    if scene.custom.has_references() {
        let doc = scene.spawn_doc();
        let added = added_keys
            .iter()
            .filter_map(|id| Some((*id, doc.entities.get_index_of(id)?)));
        insert_references(world, scene, instance, added);
    }
    // 2. Patch changed entities.
    for change in &changes.changed {
        let Some(entity) = live(world, instance, change.id) else {
            instance.forget(change.id);
            continue;
        };
        if patch_entity(world, root, instance, entity, change, scene_id, scene) {
            changed_keys.push(change.id);
        }
    }
    // 3. Despawn removed subtrees (and removed entities the game moved elsewhere).
    for subtree in &changes.removed {
        for id in &subtree.ids {
            if let Some(entity) = instance.forget(*id) {
                if let Ok(e) = world.get_entity_mut(entity) {
                    e.despawn();
                }
                removed_keys.push(*id);
            }
        }
    }
    // 4. Sibling orders.
    for (parent, order) in changes.sibling_orders() {
        let parent_entity = match parent {
            None => Some(root),
            Some(p) => live(world, instance, p),
        };
        if let Some(parent_entity) = parent_entity {
            order_children(world, parent_entity, order, instance);
        }
    }
    let removed = removed_keys
        .iter()
        .map(|k| instance.path_of_key(*k))
        .collect();
    instance.set_placed_paths(scene.placed_paths());
    ForgeSceneReloaded {
        entity: root,
        added: added_keys
            .iter()
            .map(|k| instance.path_of_key(*k))
            .collect(),
        removed,
        changed: changed_keys
            .iter()
            .map(|k| instance.path_of_key(*k))
            .collect(),
    }
}

/// Sorts `parent`'s `Children` so the scene's entities follow `order`; other children keep their
/// relative order after them. Untouched (no change detection) when already in order.
fn order_children(world: &mut World, parent: Entity, order: &[u64], instance: &ForgeSceneInstance) {
    let want: Vec<Entity> = order.iter().filter_map(|id| instance.by_key(*id)).collect();
    let Some(children) = world.get::<Children>(parent) else {
        return;
    };
    let n = children.len();
    if n >= want.len() && children[..want.len()] == want[..] {
        return; // in order, children the game added after them
    }
    // One child out of place (a cell painted: its entity was spawned last): moved by swaps
    // within the run that differs, without ranking the thousands around it.
    if n == want.len() {
        let lo = (0..n).find(|&k| children[k] != want[k]).unwrap_or(0);
        let hi = (0..n).rev().find(|&k| children[k] != want[k]).unwrap_or(0);
        let (c, w) = (&children[lo..=hi], &want[lo..=hi]);
        let m = c.len();
        let back = m > 1 && c[..m - 1] == w[1..] && c[m - 1] == w[0];
        let forth = m > 1 && c[1..] == w[..m - 1] && c[0] == w[m - 1];
        if back || forth {
            if let Some(mut children) = world.get_mut::<Children>(parent) {
                if back {
                    for k in (lo..hi).rev() {
                        children.swap(k, k + 1);
                    }
                } else {
                    for k in lo..hi {
                        children.swap(k, k + 1);
                    }
                }
            }
            return;
        }
    }
    let rank: HashMap<Entity, usize> = order
        .iter()
        .enumerate()
        .filter_map(|(i, id)| instance.by_key(*id).map(|e| (e, i)))
        .collect();
    let key = |e: &Entity| rank.get(e).copied().unwrap_or(usize::MAX);
    let Some(children) = world.get::<Children>(parent) else {
        return;
    };
    if children.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
        return;
    }
    if let Some(mut children) = world.get_mut::<Children>(parent) {
        children.sort_by_key(key);
    }
}
