//! The first spawn of a root's instance: [`SpawnTask`], a cursor over the spawned document
//! advanced within the frame's budget and kept on the root between frames, the system that
//! drives it ([`spawn_scene_instances`]) and [`ForgeScene::spawn_into`] for a world without an
//! app.

use std::sync::Arc;

use bevy_asset::{AssetId, AssetServer, Assets};
use bevy_ecs::component::ComponentId;
use bevy_ecs::prelude::*;
use bevy_platform::collections::HashMap;

use super::applied::AppliedVersions;
use super::budget::{ForgeSpawnBudget, Limit, SpawnLeft};
use super::entity::{Spawner, insert_references_of};
use super::gate::{self, ForgeSceneInactive, Gate};
use super::root::{
    ForgeSceneInstance, ForgeSceneReady, ForgeSceneRoot, ForgeSpawnProgress, set_or_insert,
};
use crate::format::SceneDoc;
use crate::runtime::asset::cell_plan::CellPlan;
use crate::runtime::asset::progress::{ForgeLoadProgress, LoadTracker};
use crate::runtime::asset::scene::ForgeScene;
use crate::runtime::values::builtin;

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
pub(super) struct SpawnTask {
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
    /// content streams in by distance: [`crate::runtime::streaming`]).
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
            visibility: builtin::visibility_id(world),
        }
    }

    /// Whether this spawn is of `scene`'s current document.
    fn is_of(&self, scene_id: AssetId<ForgeScene>, scene: &ForgeScene) -> bool {
        self.scene_id == scene_id && Arc::ptr_eq(&self.doc, scene.spawn_doc())
    }

    /// The live entities spawned so far.
    pub(super) fn spawned_entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.spawned.iter().flatten().copied()
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
            let spawner = Spawner::with(self.scene_id, scene, self.visibility, inactive);
            if self.walk(world, root, &spawner, limit) {
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
    fn walk(
        &mut self,
        world: &mut World,
        root: Entity,
        spawner: &Spawner,
        limit: &mut Limit,
    ) -> bool {
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
            let entity = spawner.spawn(world, parent, id, index);
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

/// Opens or closes the activation gate of every root whose [`ForgeSceneInactive`] came or went
/// (before the frame's spawns, which then see the gate as it is): the entities of its instance,
/// or those its spawn spawned so far.
pub(super) fn open_and_close_gates(
    world: &mut World,
    gates: &mut QueryState<Gate, With<ForgeSceneRoot>>,
) {
    let gated: Vec<(Entity, bool)> = gates
        .iter(world)
        .filter(|(_, inactive, held)| inactive != held)
        .map(|(e, inactive, _)| (e, inactive))
        .collect();
    for (root, inactive) in gated {
        let entities: Vec<Entity> = match (
            world.get::<ForgeSceneInstance>(root),
            world.get::<SpawnTask>(root),
        ) {
            (Some(instance), _) => instance.entities().values().copied().collect(),
            (None, Some(task)) => task.spawned_entities().collect(),
            (None, None) => Vec::new(),
        };
        // The nodes of placed models are the instance's too.
        let entities = super::models::with_nodes(world, entities);
        gate::set_active(world, root, !inactive, entities);
    }
}

/// Spawns every [`ForgeSceneRoot`] whose scene has loaded and that has no instance yet, within
/// the frame's [`ForgeSpawnBudget`] (after the activation gates opened or closed: a root's
/// [`ForgeSceneInactive`] decides whether what spawns is inactive).
pub(crate) fn spawn_scene_instances(
    world: &mut World,
    roots: &mut QueryState<(Entity, &ForgeSceneRoot), Without<ForgeSceneInstance>>,
) {
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
            if limit.is_spent() {
                continue;
            }
            let Ok(mut root_entity) = world.get_entity_mut(root) else {
                continue;
            };
            let inactive = root_entity.contains::<ForgeSceneInactive>();
            let mut task = match root_entity.take::<SpawnTask>() {
                Some(task) if task.is_of(id, scene) => task,
                stale => {
                    if let Some(stale) = stale {
                        stale.abandon(world);
                    }
                    SpawnTask::new(world, id, scene, Some(scene.cell_plan().clone()))
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
            if let Some(mut applied) = world.get_resource_mut::<AppliedVersions>() {
                applied.first_instance(id, scene);
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

impl ForgeScene {
    /// Spawns this scene under `root` in `world` right away, without an `App` or the asset
    /// server (benchmarks, tools, tests), and returns the id map. `id` is the asset id the scene
    /// is stored under: it keys the shared material cache and [`ForgeSceneInstance::scene`].
    ///
    /// The returned instance is not inserted on `root` and no [`ForgeSceneReady`] is triggered;
    /// insert it yourself to use [`apply_diff`](crate::apply_diff) on it later.
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
fn spawn_instance(
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

/// Copies the counts of each load onto the roots that wait for its scene (a root whose scene
/// loaded gets `loaded: true`; one whose load failed keeps its last counts, and Bevy's
/// `AssetLoadFailedEvent` says why).
pub(super) fn report_load_progress(
    tracker: Res<LoadTracker>,
    server: Res<AssetServer>,
    mut roots: Query<
        (&ForgeSceneRoot, Option<&mut ForgeLoadProgress>, Entity),
        Without<ForgeSceneInstance>,
    >,
    mut commands: Commands,
) {
    tracker.report(|progress_of| {
        for (root, progress, entity) in &mut roots {
            let Some(path) = server.get_path(root.0.id()) else {
                continue;
            };
            let Some(tracked) = progress_of(&path.to_string()) else {
                continue;
            };
            match progress {
                Some(mut p) => {
                    p.set_if_neq(tracked);
                }
                None => {
                    commands.entity(entity).insert(tracked);
                }
            }
        }
    });
}
