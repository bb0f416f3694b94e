//! Budgeted spawning (`ForgeSpawnBudget`), its progress (`ForgeSpawnProgress`) and the
//! activation gate (`ForgeSceneInactive`): a spawn over many frames ends in exactly the world a
//! one-frame spawn gives, entity by entity, whatever happens mid-spawn.

use std::time::Duration;

use bevy_camera::visibility::Visibility;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::cook::CookedScene;
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::prelude::*;
use bevy_transform::components::Transform;

use crate::aim::{AIM, Aim, AimSeen};
use crate::common::harness::Harness;
use crate::common::scenes::{custom, entity, placing, scene};

/// Roots triggered `ForgeSceneReady`, in order.
#[derive(Resource, Default)]
struct Readies(Vec<Entity>);

const CRATE: &str = "prefabs/crate.forge.ron";

/// A prefab of three entities: a lid and a plank under it, and a handle.
fn crate_prefab() -> String {
    scene(
        &[
            entity(1, "Lid", None, &[2], "(type: visibility, data: visible)"),
            entity(
                2,
                "Plank",
                Some(1),
                &[],
                &custom("forge_demo::Orbit", &[("speed", "1.0")]),
            ),
            entity(3, "Handle", None, &[], ""),
        ],
        &[1, 3],
    )
}

/// A level of `groups` groups (a root with four children, the last with a child of its own),
/// custom components, entity references forward and back, sprites, and two crates placed
/// (their entities are named by id path). `salt` changes names and speeds (an edit).
fn level(groups: u64, salt: u64) -> String {
    let mut entities = Vec::new();
    let mut roots = Vec::new();
    for g in 0..groups {
        let base = 10 + g * 10;
        roots.push(base);
        let speed = format!("{}.5", (g + salt) % 7);
        entities.push(entity(
            base,
            &format!("Group {g}"),
            None,
            &[base + 1, base + 2, base + 3, base + 4],
            &custom("forge_demo::Orbit", &[("speed", &speed)]),
        ));
        // References: forward to the next group's root, back to this group's root.
        let next = 10 + ((g + 1) % groups) * 10;
        entities.push(entity(
            base + 1,
            &format!("Scout {g}"),
            Some(base),
            &[],
            &custom(AIM, &[("target", &format!("#{next}"))]),
        ));
        entities.push(entity(
            base + 2,
            &format!("Guard {g}.{salt}"),
            Some(base),
            &[],
            &custom(AIM, &[("target", &format!("#{base}"))]),
        ));
        entities.push(entity(
            base + 3,
            &format!("Lamp {g}"),
            Some(base),
            &[],
            "(type: sprite, data: (image: None, color: (r: 1.0, g: 0.5, b: 0.0, a: 1.0), custom_size: None, flip_x: false, flip_y: false))",
        ));
        entities.push(entity(
            base + 4,
            &format!("Post {g}"),
            Some(base),
            &[base + 5],
            "",
        ));
        entities.push(entity(
            base + 5,
            &format!("Flag {g}"),
            Some(base + 4),
            &[],
            "",
        ));
    }
    entities.push(placing(1, "Crate A", CRATE, ""));
    entities.push(placing(2, "Crate B", CRATE, ""));
    roots.insert(1, 1);
    roots.push(2);
    scene(&entities, &roots)
}

/// A harness with the scene `text` at `level.forge.ron` (and its prefab), a default budget
/// of `budget`, and `Readies` and `AimSeen` recorded.
fn harness(text: &str, budget: ForgeSpawnBudget) -> Harness {
    let h = Harness::with_setup(move |app| {
        app.insert_resource(ForgeDefaultSpawnBudget(budget));
        app.init_resource::<Readies>().init_resource::<AimSeen>();
        app.add_observer(|ready: On<ForgeSceneReady>, mut readies: ResMut<Readies>| {
            readies.0.push(ready.entity);
        });
    });
    h.add(CRATE, &crate_prefab());
    h.add("level.forge.ron", text);
    h
}

/// The scene entities under `root`, one line each, sorted by id path: name, transform, parent
/// and children by id path, every component type, `Visibility`, `Orbit` and `Aim` by value
/// (the entity it names by id path). Two worlds with the same lines hold the same instance.
fn describe(world: &mut World, root: Entity) -> Vec<String> {
    let path_of = |world: &World, e: Entity| -> String {
        if e == root {
            return "root".to_owned();
        }
        match (
            world.get::<ForgeEntityPath>(e),
            world.get::<ForgeEntityId>(e),
        ) {
            (Some(path), _) => path.to_string(),
            (None, Some(id)) => format!("[{}]", id.0),
            (None, None) => format!("not a scene entity: {e:?}"),
        }
    };
    let mut lines = Vec::new();
    let mut stack: Vec<Entity> = world
        .get::<Children>(root)
        .map(|c| c.iter().collect())
        .unwrap_or_default();
    while let Some(e) = stack.pop() {
        let children: Vec<Entity> = world
            .get::<Children>(e)
            .map(|c| c.iter().collect())
            .unwrap_or_default();
        let mut components: Vec<String> = world
            .inspect_entity(e)
            .unwrap()
            .map(|(_, info)| format!("{:?}", info.name()))
            .collect();
        components.sort();
        let parent = world.get::<ChildOf>(e).map(|c| path_of(world, c.parent()));
        lines.push(format!(
            "{} name={:?} transform={:?} parent={:?} children={:?} components={:?} visibility={:?} orbit={:?} aim={:?}",
            path_of(world, e),
            world.get::<Name>(e).map(Name::as_str),
            world.get::<Transform>(e),
            parent,
            children.iter().map(|c| path_of(world, *c)).collect::<Vec<_>>(),
            components,
            world.get::<Visibility>(e),
            world.get::<crate::common::Orbit>(e),
            world.get::<Aim>(e).map(|a| path_of(world, a.target)),
        ));
        stack.extend(children);
    }
    lines.sort();
    lines
}

/// The world a one-frame spawn of `text` gives.
fn one_frame_world(text: &str) -> Vec<String> {
    let mut h = harness(text, ForgeSpawnBudget::UNLIMITED);
    let (root, _) = h.spawn_scene("level.forge.ron");
    let progress = *h.world().get::<ForgeSpawnProgress>(root).unwrap();
    assert!(
        progress.ready && progress.spawned == progress.total,
        "{progress:?}"
    );
    describe(h.app.world_mut(), root)
}

/// Every scene entity under `root` has its parent alive: parents spawn first.
fn parents_spawned_first(world: &World, root: Entity) -> bool {
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        for child in world.get::<Children>(e).into_iter().flatten() {
            if world.get::<ChildOf>(*child).map(ChildOf::parent) != Some(e) {
                return false;
            }
            stack.push(*child);
        }
    }
    true
}

/// Frames of a budgeted spawn: runs until the scene has loaded and the root's spawn has
/// started, then one frame at a time while `each` (called after every frame with the frame's
/// progress) says to go on, until the instance is complete. Returns the progress of each
/// frame.
fn spawn_frames(
    h: &mut Harness,
    root: Entity,
    mut each: impl FnMut(&mut Harness, ForgeSpawnProgress),
) -> Vec<ForgeSpawnProgress> {
    h.run_until(|w| w.get::<ForgeSpawnProgress>(root).is_some());
    let mut frames = Vec::new();
    loop {
        let progress = *h.world().get::<ForgeSpawnProgress>(root).unwrap();
        frames.push(progress);
        each(h, progress);
        if progress.ready {
            return frames;
        }
        assert!(frames.len() < 100_000, "the spawn never ends");
        h.app.update();
    }
}

#[test]
fn a_budgeted_spawn_ends_in_exactly_the_world_of_a_one_frame_spawn() {
    let text = level(12, 0);
    let expected = one_frame_world(&text);
    let mut h = harness(&text, ForgeSpawnBudget::UNLIMITED.with_entities(5));
    let handle = h.load("level.forge.ron");
    let root = h.spawn_root(&handle);
    let mut walked = false;
    let frames = spawn_frames(&mut h, root, |h, progress| {
        let world = h.app.world();
        assert!(parents_spawned_first(world, root));
        // No instance and no ready event before the instance is complete.
        assert_eq!(
            world.get::<ForgeSceneInstance>(root).is_some(),
            progress.ready
        );
        assert_eq!(
            world.resource::<Readies>().0.len(),
            usize::from(progress.ready)
        );
        // References wait for every entity of the instance.
        if !world.resource::<AimSeen>().0.is_empty() {
            walked = true;
        }
        assert!(
            !walked || progress.spawned == progress.total,
            "{progress:?}"
        );
    });
    // 12 groups of six, two crates of three plus their instance entities: 80 entities, five
    // a frame, then 24 references five a frame.
    let total = frames[0].total;
    assert_eq!(total, 12 * 6 + 2 * 4);
    assert_eq!(frames.len(), total / 5 + 24 / 5 + 1, "{frames:?}");
    assert!(
        frames.windows(2).all(|w| w[0].spawned <= w[1].spawned),
        "progress only grows: {frames:?}"
    );
    for (i, p) in frames.iter().enumerate() {
        assert_eq!(p.spawned, (5 * (i + 1)).min(total), "frame {i}");
    }
    let seen = &h.world().resource::<AimSeen>().0;
    assert_eq!(seen.len(), 24);
    assert!(seen.iter().all(|named| *named), "hooks saw final entities");
    assert_eq!(h.world().resource::<Readies>().0, vec![root]);
    assert_eq!(describe(h.app.world_mut(), root), expected);
}

#[test]
fn a_time_budget_spreads_the_spawn_and_ends_in_the_same_world() {
    let text = level(12, 0);
    let expected = one_frame_world(&text);
    // No time at all: the clock is read every 16 entities, so 16 a frame.
    let mut h = harness(&text, ForgeSpawnBudget::per_frame(Duration::ZERO));
    let handle = h.load("level.forge.ron");
    let root = h.spawn_root(&handle);
    let frames = spawn_frames(&mut h, root, |_, _| {});
    assert_eq!(frames[0].spawned, 16);
    assert!(frames.len() > 80 / 16, "{frames:?}");
    assert_eq!(describe(h.app.world_mut(), root), expected);
}

#[test]
fn a_root_with_a_budget_of_its_own_does_not_use_the_default() {
    let text = level(4, 0);
    let mut h = harness(&text, ForgeSpawnBudget::UNLIMITED.with_entities(1));
    let handle = h.load("level.forge.ron");
    let quick = h
        .app
        .world_mut()
        .spawn((ForgeSceneRoot(handle.clone()), ForgeSpawnBudget::UNLIMITED))
        .id();
    let slow = h.spawn_root(&handle);
    let frames = spawn_frames(&mut h, quick, |_, _| {});
    assert_eq!(frames.len(), 1, "the own budget spawns it whole");
    let slow_progress = *h.world().get::<ForgeSpawnProgress>(slow).unwrap();
    assert_eq!((slow_progress.spawned, slow_progress.ready), (1, false));
}

/// Starts a budgeted spawn of the level, runs until `spawned` entities exist, and returns the
/// root.
fn started(h: &mut Harness, spawned: usize) -> Entity {
    let handle = h.load("level.forge.ron");
    let root = h.spawn_root(&handle);
    h.run_until(|w| {
        w.get::<ForgeSpawnProgress>(root)
            .is_some_and(|p| p.spawned >= spawned)
    });
    root
}

#[test]
fn an_edit_mid_spawn_ends_in_exactly_the_world_of_the_edited_scene() {
    let (before, after) = (level(12, 0), level(11, 3));
    let expected = one_frame_world(&after);
    assert_ne!(
        one_frame_world(&before),
        expected,
        "the comparison sees the edit"
    );
    let mut h = harness(&before, ForgeSpawnBudget::UNLIMITED.with_entities(5));
    let root = started(&mut h, 20);
    // The scene as an editor changes it in memory: the asset replaced mid-spawn.
    let edited = SceneDoc::from_str(&after).unwrap().doc;
    let id = h.world().get::<ForgeSceneRoot>(root).unwrap().0.id();
    crate::common::scenes::edit_in_memory(&mut h, id, |doc| *doc = edited).unwrap();
    h.app.update();
    let restarted = *h.world().get::<ForgeSpawnProgress>(root).unwrap();
    assert_eq!(
        restarted.spawned, 5,
        "the spawn started again: {restarted:?}"
    );
    assert_eq!(restarted.total, 11 * 6 + 2 * 4);
    spawn_frames(&mut h, root, |_, _| {});
    assert_eq!(describe(h.app.world_mut(), root), expected);
    assert_eq!(h.world().resource::<Readies>().0, vec![root]);
}

#[test]
fn a_hot_reload_of_the_file_mid_spawn_ends_in_exactly_the_world_of_the_new_file() {
    let (before, after) = (level(60, 0), level(58, 2));
    let expected = one_frame_world(&after);
    // One entity a frame, and until the reload lands a millisecond between frames (the load
    // runs on another thread, which a busy machine may not schedule at once): the reload lands
    // long before the spawn could end (about 480 frames).
    let mut h = harness(&before, ForgeSpawnBudget::UNLIMITED.with_entities(1));
    let root = started(&mut h, 3);
    h.modify("level.forge.ron", &after);
    let mut restarted = false;
    let mut last = 0;
    spawn_frames(&mut h, root, |_, p| {
        restarted |= p.spawned < last;
        last = p.spawned;
        if !restarted {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    assert!(restarted, "the reload arrived mid-spawn");
    assert_eq!(describe(h.app.world_mut(), root), expected);
    // A reload after the spawn patches the instance as for any instance.
    let log_len = h.world().resource::<Readies>().0.len();
    assert_eq!(log_len, 1);
}

#[test]
fn despawning_the_root_mid_spawn_leaves_nothing_and_spawns_nothing_more() {
    let text = level(12, 0);
    let mut h = harness(&text, ForgeSpawnBudget::UNLIMITED.with_entities(5));
    let root = started(&mut h, 20);
    let mut scene_entities = h.app.world_mut().query::<&ForgeEntityId>();
    assert!(scene_entities.iter(h.world()).count() >= 20);
    h.app.world_mut().entity_mut(root).despawn();
    for _ in 0..40 {
        h.app.update();
    }
    let mut scene_entities = h.app.world_mut().query::<&ForgeEntityId>();
    assert_eq!(scene_entities.iter(h.world()).count(), 0);
    assert!(h.world().resource::<Readies>().0.is_empty());
    // The scene still spawns whole for a new root.
    let again = started(&mut h, 1);
    spawn_frames(&mut h, again, |_, _| {});
    assert_eq!(describe(h.app.world_mut(), again), one_frame_world(&text));
}

#[test]
fn a_second_root_of_the_same_scene_mid_spawn_gets_its_own_whole_instance() {
    let (before, after) = (level(12, 0), level(12, 5));
    let expected = one_frame_world(&before);
    let mut h = harness(&before, ForgeSpawnBudget::UNLIMITED.with_entities(5));
    let first = started(&mut h, 10);
    let handle = h.world().get::<ForgeSceneRoot>(first).unwrap().0.clone();
    let second = h.spawn_root(&handle);
    spawn_frames(&mut h, first, |_, _| {});
    spawn_frames(&mut h, second, |_, _| {});
    assert_eq!(describe(h.app.world_mut(), first), expected);
    assert_eq!(describe(h.app.world_mut(), second), expected);
    let (a, b) = (
        h.world().get::<ForgeSceneInstance>(first).unwrap().clone(),
        h.world().get::<ForgeSceneInstance>(second).unwrap().clone(),
    );
    assert!(
        a.iter().all(|(_, e)| b.path_of(e).is_none()),
        "no entity shared"
    );
    // A third root mid-spawn while the scene is edited: the live two are patched, the third
    // starts again, and all three end as the edited scene spawned in one frame.
    let third = h.spawn_root(&handle);
    h.run_until(|w| {
        w.get::<ForgeSpawnProgress>(third)
            .is_some_and(|p| p.spawned >= 10)
    });
    let edited = SceneDoc::from_str(&after).unwrap().doc;
    crate::common::scenes::edit_in_memory(&mut h, handle.id(), |doc| *doc = edited).unwrap();
    spawn_frames(&mut h, third, |_, _| {});
    let expected = one_frame_world(&after);
    for root in [first, second, third] {
        assert_eq!(describe(h.app.world_mut(), root), expected, "{root:?}");
    }
}

#[test]
fn a_cooked_scene_spawns_over_frames_into_the_same_world_as_its_text() {
    let text = level(8, 0);
    let expected = one_frame_world(&text);
    let cooked = CookedScene {
        source: "level.forge.ron".to_owned(),
        doc: SceneDoc::from_str(&text).unwrap().doc,
        prefabs: vec![(
            CRATE.to_owned(),
            SceneDoc::from_str(&crate_prefab()).unwrap().doc,
        )],
    }
    .encode();
    let mut h = harness(&text, ForgeSpawnBudget::UNLIMITED.with_entities(3));
    h.add_bytes("level.forge.ron", &cooked);
    let handle = h.load("level.forge.ron");
    let root = h.spawn_root(&handle);
    let frames = spawn_frames(&mut h, root, |_, _| {});
    assert!(frames.len() > 10, "{}", frames.len());
    assert_eq!(describe(h.app.world_mut(), root), expected);
}

#[test]
fn an_inactive_root_spawns_hidden_and_marked_until_the_game_reveals_it() {
    let text = level(4, 0);
    let mut h = harness(&text, ForgeSpawnBudget::UNLIMITED.with_entities(4));
    let handle = h.load("level.forge.ron");
    let root = h
        .app
        .world_mut()
        .spawn((ForgeSceneRoot(handle.clone()), ForgeSceneInactive))
        .id();
    spawn_frames(&mut h, root, |h, _| {
        let world = h.app.world_mut();
        assert_eq!(world.get::<Visibility>(root), Some(&Visibility::Hidden));
        let mut active =
            world.query_filtered::<(), (With<ForgeEntityId>, Without<ForgeSceneInactive>)>();
        assert_eq!(
            active.iter(world).count(),
            0,
            "every spawned entity is inactive"
        );
    });
    assert_eq!(
        h.world().resource::<Readies>().0,
        vec![root],
        "ready while held"
    );
    let instance = h.world().get::<ForgeSceneInstance>(root).unwrap().clone();
    let count = |world: &mut World| {
        let mut inactive = world.query_filtered::<(), With<ForgeSceneInactive>>();
        inactive.iter(world).count()
    };
    assert_eq!(count(h.app.world_mut()), instance.len() + 1, "and the root");
    // An entity a hot reload adds to a held instance is held too.
    let mut doc = SceneDoc::from_str(&text).unwrap().doc;
    let added = doc.add_entity("Late", None).unwrap();
    crate::common::scenes::edit_in_memory(&mut h, handle.id(), |d| *d = doc).unwrap();
    h.run_until(|w| {
        w.get::<ForgeSceneInstance>(root)
            .is_some_and(|i| i.entity(added).is_some())
    });
    let late = instance_entity(&h, root, added);
    assert!(h.world().get::<ForgeSceneInactive>(late).is_some());
    // Revealed: the next frame every entity is active and the root visible as before.
    h.app
        .world_mut()
        .entity_mut(root)
        .remove::<ForgeSceneInactive>();
    h.app.update();
    assert_eq!(count(h.app.world_mut()), 0);
    assert_eq!(
        h.world().get::<Visibility>(root),
        Some(&Visibility::Inherited)
    );
    // Held again: hidden and marked again.
    h.app
        .world_mut()
        .entity_mut(root)
        .insert(ForgeSceneInactive);
    h.app.update();
    assert_eq!(count(h.app.world_mut()), instance.len() + 2);
    assert_eq!(h.world().get::<Visibility>(root), Some(&Visibility::Hidden));
}

#[test]
fn a_root_revealed_mid_spawn_spawns_the_rest_active() {
    let text = level(6, 0);
    let mut h = harness(&text, ForgeSpawnBudget::UNLIMITED.with_entities(4));
    let handle = h.load("level.forge.ron");
    let root = h
        .app
        .world_mut()
        .spawn((ForgeSceneRoot(handle.clone()), ForgeSceneInactive))
        .id();
    h.run_until(|w| {
        w.get::<ForgeSpawnProgress>(root)
            .is_some_and(|p| p.spawned >= 8)
    });
    h.app
        .world_mut()
        .entity_mut(root)
        .remove::<ForgeSceneInactive>();
    spawn_frames(&mut h, root, |_, _| {});
    let world = h.app.world_mut();
    let mut inactive = world.query_filtered::<(), With<ForgeSceneInactive>>();
    assert_eq!(inactive.iter(world).count(), 0);
    assert_eq!(describe(world, root), one_frame_world(&text));
}

fn instance_entity(h: &Harness, root: Entity, id: u64) -> Entity {
    h.world()
        .get::<ForgeSceneInstance>(root)
        .and_then(|i| i.entity(id))
        .unwrap()
}

#[test]
fn an_entity_the_game_despawns_mid_spawn_stays_gone_with_what_was_to_spawn_under_it() {
    let text = level(12, 0);
    let mut h = harness(&text, ForgeSpawnBudget::UNLIMITED.with_entities(5));
    // Group 0 (entity 10) spawns first, its subtree after it: despawn it before its flag.
    let root = started(&mut h, 2);
    let group = {
        let world = h.app.world_mut();
        let mut ids = world.query::<(Entity, &ForgeEntityId)>();
        ids.iter(world)
            .find(|(_, id)| id.0 == 10)
            .map(|(e, _)| e)
            .unwrap()
    };
    h.app.world_mut().entity_mut(group).despawn();
    spawn_frames(&mut h, root, |_, _| {});
    let world = h.app.world_mut();
    let mut ids = world.query::<(&ForgeEntityId, Option<&ChildOf>)>();
    let live: Vec<(u64, bool)> = ids
        .iter(world)
        .map(|(id, parent)| (id.0, parent.is_some()))
        .collect();
    assert!(live.iter().all(|(_, parented)| *parented), "no orphan");
    for id in [10, 11, 12, 13, 14, 15] {
        assert!(!live.iter().any(|(i, _)| *i == id), "{id} stays gone");
    }
    // Everything else spawned: 80 entities less group 0's six.
    assert_eq!(live.len(), 80 - 6);
    assert!(parents_spawned_first(world, root));
}
