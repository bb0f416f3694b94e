//! Streaming by distance: prefab instances marked `streaming` in the file are **streamed
//! cells** (here simply cells; not the tile cells of a layer) whose entities are in the world
//! only while a [`ForgeStreamingSource`] is near.
//!
//! A cell is the subtree below its instance entity (the **anchor**): what the prefab places and
//! the scene's own entities under it. The anchor itself always spawns with the scene (it holds
//! the cell's position, name and components); a streamed instance inside a cell is an anchor of
//! its own, which spawns with the outer cell and streams its content on its own.
//!
//! - The first spawn of a root skips every cell's content (an instance holds it back:
//!   [`HeldBack`]); [`ForgeSceneReady`](crate::ForgeSceneReady) is triggered when the rest is in.
//! - Each frame, in [`ForgeSceneSystems::Spawn`](crate::ForgeSceneSystems::Spawn), a cell that
//!   is out comes in when a source is within its `load_radius` of the anchor's world position,
//!   spawning within the frame's [`ForgeSpawnBudget`](crate::ForgeSpawnBudget), nearest cells
//!   first; a cell that is in (or coming in) goes out when every source is beyond its
//!   `unload_radius`: its entities are despawned in that frame. With no source at all, nothing
//!   changes.
//! - Entities of a cell keep their id paths: one that comes back is spawned from the scene as
//!   it is now (overrides, and any hot reload while it was out, included).
//! - A custom component holding an entity reference is on its entity only while every entity
//!   it names is in the world: it is removed when a named entity's cell goes out and inserted
//!   again, naming the new entities, when it comes back.

use std::sync::Arc;

use bevy_app::{App, Plugin, PreUpdate};
use bevy_asset::{AssetId, Assets};
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_platform::collections::HashMap;
use bevy_reflect::Reflect;
use bevy_transform::components::Transform;

use crate::runtime::asset::cell_plan::CellPlan;
use crate::runtime::asset::once_assets_exist;
use crate::runtime::asset::scene::ForgeScene;
use crate::runtime::instance::{
    ForgeSceneInstance, ForgeSceneRoot, ForgeSceneSystems, ForgeSpawnBudget, HeldBack, Limit,
    ModelWrites, Spawner, Subtree, despawn_keys, frame_left, give_back, set_or_insert,
    spawn_scene_instances, spawn_subtree,
};
use crate::runtime::values::custom;

/// Marks an entity whose position brings streamed cells in: the camera, the player. Put it on
/// as many entities as the game likes; a cell is in while any of them is near.
///
/// The position is the entity's `Transform` composed with its parents' (`ChildOf`), read in
/// [`ForgeSceneSystems::Spawn`](crate::ForgeSceneSystems::Spawn) of `PreUpdate`: a source moved
/// in `Update` is seen the next frame, as Bevy's `GlobalTransform` would be. With no source in
/// the world, cells stay as they are.
///
/// ```
/// # use bevy_ecs::prelude::*;
/// # use bevy_forge_scene::ForgeStreamingSource;
/// # use bevy_transform::components::Transform;
/// # let mut world = World::new();
/// world.spawn((Transform::default(), ForgeStreamingSource));
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[type_path = "bevy_forge_scene"]
#[reflect(Component)]
pub struct ForgeStreamingSource;

/// Where a streamed cell is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForgeCellState {
    /// Its entities are not in the world (only its anchor, the instance entity).
    Out,
    /// A source came near: its entities are spawning within the spawn budget.
    Loading,
    /// Its entities are in the world.
    In,
}

/// The streamed cells of a [`ForgeSceneRoot`](crate::ForgeSceneRoot) and where each is, on the
/// root entity of a scene with streamed instances from the frame its instance is complete.
/// Changes only in frames where a cell changes state (`Changed<ForgeStreamedCells>` finds them).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct ForgeStreamedCells {
    /// `(anchor id, state)` for each cell, in file order.
    cells: Vec<(u64, ForgeCellState)>,
}

impl ForgeStreamedCells {
    /// The state of the cell whose instance entity has file id `id`; `None` when that entity
    /// is not a streamed instance.
    pub fn state(&self, id: u64) -> Option<ForgeCellState> {
        self.cells.iter().find(|(a, _)| *a == id).map(|(_, s)| *s)
    }

    /// Every cell: its instance entity's file id and its state, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, ForgeCellState)> + '_ {
        self.cells.iter().copied()
    }

    /// The number of streamed cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the scene has no streamed cell.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The number of cells in state `state`.
    pub fn count(&self, state: ForgeCellState) -> usize {
        self.cells.iter().filter(|(_, s)| *s == state).count()
    }
}

/// Streaming's part of `ForgeScenePlugin`: streamed cells brought in and out by distance to
/// [`ForgeStreamingSource`] entities, after the frame's first spawns, with what they left of
/// the frame's budget.
pub(crate) struct StreamingPlugin;

impl Plugin for StreamingPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<ForgeStreamingSource>();
        once_assets_exist::<Self>(app, add_systems);
    }

    fn finish(&self, app: &mut App) {
        once_assets_exist::<Self>(app, add_systems);
    }
}

fn add_systems(app: &mut App) {
    app.add_systems(
        PreUpdate,
        stream_scene_cells
            .after(spawn_scene_instances)
            .before(ModelWrites)
            .in_set(ForgeSceneSystems::Spawn),
    );
}

/// Where one cell is, with the spawn of its content while it comes in.
enum CellRun {
    Out,
    Loading(Subtree),
    In,
}

impl CellRun {
    fn state(&self) -> ForgeCellState {
        match self {
            CellRun::Out => ForgeCellState::Out,
            CellRun::Loading(_) => ForgeCellState::Loading,
            CellRun::In => ForgeCellState::In,
        }
    }
}

/// The streaming state of one root: the plan it follows and where each cell is. What it holds
/// back is the instance's [`HeldBack`], beside it on the root.
#[derive(Component)]
struct StreamState {
    plan: Arc<CellPlan>,
    runs: Vec<CellRun>,
}

impl StreamState {
    /// A state for `plan` with every cell out: a root's first spawn stops at anchors.
    fn new(plan: Arc<CellPlan>) -> Self {
        Self {
            runs: plan.cells.iter().map(|_| CellRun::Out).collect(),
            plan,
        }
    }

    fn status(&self) -> ForgeStreamedCells {
        ForgeStreamedCells {
            cells: self
                .plan
                .cells
                .iter()
                .zip(&self.runs)
                .map(|(def, run)| (def.key, run.state()))
                .collect(),
        }
    }

    /// The anchors of the cells that are in.
    fn let_in(&self) -> impl Iterator<Item = u64> + '_ {
        self.plan
            .cells
            .iter()
            .zip(&self.runs)
            .filter(|(_, run)| matches!(run, CellRun::In))
            .map(|(def, _)| def.key)
    }
}

/// The world position of `entity`: its `Transform` composed with its ancestors'.
fn world_position(world: &World, entity: Entity) -> Option<Vec3> {
    let mut at = world.get::<Transform>(entity)?.translation;
    let mut current = entity;
    // Bounded: a hierarchy is a forest, but a bad one must not hang a frame.
    for _ in 0..1024 {
        let Some(parent) = world.get::<ChildOf>(current).map(ChildOf::parent) else {
            break;
        };
        if let Some(t) = world.get::<Transform>(parent) {
            at = t.transform_point(at);
        }
        current = parent;
    }
    Some(at)
}

fn alive(world: &World, entity: Entity) -> bool {
    world.get_entity(entity).is_ok()
}

/// The live entity of key `key` of `root`'s instance.
fn live_key(world: &World, root: Entity, key: u64) -> Option<Entity> {
    world
        .get::<ForgeSceneInstance>(root)?
        .by_key(key)
        .filter(|e| alive(world, *e))
}

/// What a streaming pass needs of one root.
struct RootCx<'a> {
    root: Entity,
    scene_id: AssetId<ForgeScene>,
    scene: &'a ForgeScene,
}

/// Streams the cells of every root whose instance is complete and whose scene has streamed
/// instances, within what is left of the frame's budget after first spawns ([`frame_left`]).
fn stream_scene_cells(
    world: &mut World,
    complete: &mut QueryState<(Entity, &ForgeSceneRoot), With<ForgeSceneInstance>>,
    source_entities: &mut QueryState<Entity, With<ForgeStreamingSource>>,
) {
    let mut roots: Vec<(Entity, AssetId<ForgeScene>)> =
        complete.iter(world).map(|(e, r)| (e, r.0.id())).collect();
    if roots.is_empty() {
        return;
    }
    roots.sort_unstable_by_key(|(e, _)| *e);
    let found: Vec<Entity> = source_entities.iter(world).collect();
    let sources: Vec<Vec3> = found
        .into_iter()
        .filter_map(|e| world_position(world, e))
        .collect();
    let mut shared = frame_left(world);
    world.resource_scope(|world, scenes: Mut<Assets<ForgeScene>>| {
        stream_cells(world, &scenes, roots, &sources, &mut shared);
    });
    give_back(world, shared);
}

/// [`stream_scene_cells`] for `roots`, with the sources at `sources`.
fn stream_cells(
    world: &mut World,
    scenes: &Assets<ForgeScene>,
    roots: Vec<(Entity, AssetId<ForgeScene>)>,
    sources: &[Vec3],
    shared: &mut Limit,
) {
    for (root, scene_id) in roots {
        let Some(scene) = scenes.get(scene_id) else {
            continue;
        };
        let plan = scene.cell_plan().clone();
        let cx = RootCx {
            root,
            scene_id,
            scene,
        };
        let Ok(mut root_entity) = world.get_entity_mut(root) else {
            continue;
        };
        let own = root_entity.get::<ForgeSpawnBudget>().copied();
        let mut changed = false;
        let mut held = root_entity.take::<HeldBack>().unwrap_or_default();
        let mut state = match root_entity.take::<StreamState>() {
            None if plan.is_empty() => continue,
            None => {
                changed = true;
                let state = StreamState::new(plan.clone());
                let holders = plan.holders.clone();
                sync_references(world, &cx, &mut held, holders, false);
                state
            }
            Some(state) if Arc::ptr_eq(&state.plan.doc, &plan.doc) => state,
            Some(state) => {
                changed = true;
                rebuild(world, &cx, state, &mut held, plan.clone())
            }
        };
        let mut own_limit;
        let limit = match own {
            Some(budget) => {
                own_limit = Limit::of(&budget);
                &mut own_limit
            }
            None => &mut *shared,
        };
        changed |= stream_root(world, &cx, &mut state, &mut held, sources, limit);
        let Ok(mut root_entity) = world.get_entity_mut(root) else {
            continue;
        };
        if changed {
            held.let_in(state.let_in());
            set_or_insert(&mut root_entity, state.status());
        }
        if state.plan.is_empty() {
            root_entity.remove::<ForgeStreamedCells>();
        } else {
            root_entity.insert((state, held));
        }
    }
}

/// One root's pass: cells out of range go out, cells in range come in (nearest first) within
/// `limit`. Whether any cell changed state.
fn stream_root(
    world: &mut World,
    cx: &RootCx,
    state: &mut StreamState,
    held: &mut HeldBack,
    sources: &[Vec3],
    limit: &mut Limit,
) -> bool {
    let plan = state.plan.clone();
    let mut changed = false;
    // Decide with the world read only: (distance², cell) of cells to load or keep loading.
    let mut wanted: Vec<(f64, usize)> = Vec::new();
    let mut leaving: Vec<usize> = Vec::new();
    for (i, def) in plan.cells.iter().enumerate() {
        let run = &state.runs[i];
        let anchor = live_key(world, cx.root, def.key);
        let Some(position) = anchor.and_then(|a| world_position(world, a)) else {
            // The anchor is gone (the game despawned it, or its own cell is out).
            if !matches!(run, CellRun::Out) {
                leaving.push(i);
            }
            continue;
        };
        if sources.is_empty() {
            if matches!(run, CellRun::Loading(_)) {
                wanted.push((0.0, i));
            }
            continue;
        }
        // In f64: the square of a valid radius or distance above about 1.8e19 overflows f32
        // to infinity, which would put every source within both radii.
        let d2 = sources
            .iter()
            .map(|s| s.as_dvec3().distance_squared(position.as_dvec3()))
            .fold(f64::INFINITY, f64::min);
        let load = f64::from(def.streaming.load_radius).powi(2);
        let unload = f64::from(def.streaming.unload_radius).powi(2);
        match run {
            CellRun::Out if d2 <= load => wanted.push((d2, i)),
            CellRun::Out => {}
            _ if d2 > unload => leaving.push(i),
            CellRun::Loading(_) => wanted.push((d2, i)),
            CellRun::In => {}
        }
    }
    for i in leaving {
        unload(world, cx, state, i);
        changed = true;
    }
    if wanted.is_empty() {
        if changed && !plan.holders.is_empty() {
            sync_references(world, cx, held, plan.holders.clone(), false);
        }
        return changed;
    }
    wanted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let spawner = Spawner::new(world, cx.root, cx.scene_id, cx.scene);
    for (_, i) in wanted {
        if limit.is_spent() {
            break;
        }
        // An anchor can go with a cell unloaded above; checked again.
        let Some(anchor) = live_key(world, cx.root, plan.cells[i].key) else {
            continue;
        };
        let run = std::mem::replace(&mut state.runs[i], CellRun::Out);
        let mut content = match run {
            CellRun::Loading(content) => content,
            _ => {
                changed = true;
                Subtree::below(&plan.doc, plan.cells[i].key, anchor)
            }
        };
        if spawn_subtree(world, cx.root, &spawner, &mut content, limit) {
            finish(world, cx, held, content.spawned());
            state.runs[i] = CellRun::In;
            changed = true;
        } else {
            state.runs[i] = CellRun::Loading(content);
        }
    }
    if changed && !plan.holders.is_empty() {
        sync_references(world, cx, held, plan.holders.clone(), false);
    }
    changed
}

/// A cell's content is all spawned: the components with entity references of `spawned` go
/// in (those naming an entity that is out are held back).
fn finish(world: &mut World, cx: &RootCx, held: &mut HeldBack, spawned: &[u64]) {
    if !cx.scene.custom.has_references() {
        return;
    }
    let doc = cx.scene.spawn_doc();
    let holders: Vec<(u64, usize)> = spawned
        .iter()
        .filter_map(|k| Some((*k, doc.entities.get_index_of(k)?)))
        .filter(|(_, i)| cx.scene.custom.entity(*i).iter().any(|p| p.refers()))
        .collect();
    sync_references(world, cx, held, holders, true);
}

/// Takes cell `cell` out: its entities (those spawned so far, while it loads) are despawned
/// and leave the instance's id map; nested cells go out with it.
fn unload(world: &mut World, cx: &RootCx, state: &mut StreamState, cell: usize) {
    let plan = state.plan.clone();
    let content = plan.content_of(cell);
    despawn_keys(world, cx.root, &content);
    for key in &content {
        if let Some(nested) = plan.anchors.get(key) {
            state.runs[*nested as usize] = CellRun::Out;
        }
    }
    state.runs[cell] = CellRun::Out;
}

/// Brings a root's streaming state to a new plan (the scene was hot-reloaded): cells that stay
/// keep their state, but one loading starts again; a cell new to streaming goes out (what of it
/// was live is despawned) and streams in by distance; an instance no longer streamed that was
/// out spawns its content now.
fn rebuild(
    world: &mut World,
    cx: &RootCx,
    mut old: StreamState,
    held: &mut HeldBack,
    plan: Arc<CellPlan>,
) -> StreamState {
    let mut state = StreamState::new(plan.clone());
    let mut kept = vec![false; old.runs.len()];
    for (i, def) in plan.cells.iter().enumerate() {
        let before = old.plan.anchors.get(&def.key).map(|j| *j as usize);
        let run = before.map(|j| {
            kept[j] = true;
            std::mem::replace(&mut old.runs[j], CellRun::Out)
        });
        match run {
            Some(CellRun::In) => state.runs[i] = CellRun::In,
            Some(CellRun::Loading(content)) => {
                despawn_keys(world, cx.root, content.spawned());
                despawn_keys(world, cx.root, &plan.content_of(i));
            }
            Some(CellRun::Out) | None => {
                let content = plan.content_of(i);
                if content
                    .iter()
                    .any(|k| live_key(world, cx.root, *k).is_some())
                {
                    despawn_keys(world, cx.root, &content);
                }
            }
        }
    }
    // Instances no longer streamed (or gone) whose content was not all in.
    let spawner = Spawner::new(world, cx.root, cx.scene_id, cx.scene);
    for (j, def) in old.plan.cells.iter().enumerate() {
        if kept[j] || matches!(old.runs[j], CellRun::In) {
            continue;
        }
        if let CellRun::Loading(content) = &old.runs[j] {
            despawn_keys(world, cx.root, content.spawned());
        }
        let Some(anchor) = live_key(world, cx.root, def.key) else {
            continue;
        };
        if !plan.doc.entities.contains_key(&def.key) {
            continue;
        }
        let mut content = Subtree::below(&plan.doc, def.key, anchor);
        let mut all = Limit::of(&ForgeSpawnBudget::UNLIMITED);
        spawn_subtree(world, cx.root, &spawner, &mut content, &mut all);
        finish(world, cx, held, content.spawned());
    }
    let holders = plan.holders.clone();
    sync_references(world, cx, held, holders, false);
    state
}

/// Brings the components with entity references of `holders` (`(key, index)`) in line with
/// what is in: one naming only live entities is on its entity (inserted when it was held back,
/// or, with `fresh`, when the entity just spawned without it), one naming an entity that is
/// out is taken off and held back.
fn sync_references(
    world: &mut World,
    cx: &RootCx,
    held: &mut HeldBack,
    holders: Vec<(u64, usize)>,
    fresh: bool,
) {
    let Some(instance) = world.get::<ForgeSceneInstance>(cx.root) else {
        return;
    };
    let withheld = held.references_mut();
    let targets = std::cell::RefCell::new(HashMap::<u64, Entity>::new());
    let mut todo: Vec<(Entity, u64, usize, u32, bool)> = Vec::new();
    for (key, index) in holders {
        let Some(entity) = instance.by_key(key).filter(|e| alive(world, *e)) else {
            continue;
        };
        let referring = cx.scene.custom.entity(index).iter().filter(|p| p.refers());
        for (n, p) in referring.enumerate() {
            let all_in = p.names_only(&|k| match instance.by_key(k).filter(|e| alive(world, *e)) {
                Some(target) => {
                    targets.borrow_mut().insert(k, target);
                    true
                }
                None => false,
            });
            todo.push((entity, key, index, n as u32, all_in));
        }
    }
    let targets = targets.into_inner();
    let live = |k: u64| targets.get(&k).copied();
    for (entity, key, index, n, all_in) in todo {
        let Some(p) = cx
            .scene
            .custom
            .entity(index)
            .iter()
            .filter(|p| p.refers())
            .nth(n as usize)
        else {
            continue;
        };
        let Ok(mut e) = world.get_entity_mut(entity) else {
            continue;
        };
        let on = p.is_on(&e);
        if all_in {
            if !on && (withheld.remove(&(key, n)) || fresh) {
                custom::insert_one(&mut e, p, key, &live);
            }
            withheld.remove(&(key, n));
        } else {
            if on {
                p.remove_from(&mut e);
            }
            withheld.insert((key, n));
        }
    }
}
