//! Streaming by distance: instances with `streaming: Some((load_radius, unload_radius))` are
//! cells whose entities are in the world while a `ForgeStreamingSource` is near. The format
//! field (read, validated, written, cooked), cells in and out with hysteresis, the same
//! entities by id path after a return trip, references into cells that are out, capture, a
//! cooked scene, and hot reload of a cell's prefab.

use bevy_asset::Assets;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::capture::{CaptureOptions, capture_instance};
use bevy_forge_scene::cook::CookedScene;
use bevy_forge_scene::format::{SceneDoc, Streaming};
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::validate::validate_parsed;
use bevy_forge_scene::{ForgeCellState, ForgeStreamedCells};
use bevy_transform::components::Transform;

use crate::aim::{AIM, Aim, AimSeen};
use crate::common::harness::Harness;
use crate::common::scenes::{custom, entity, scene};

const HUT: &str = "prefabs/hut.forge.ron";
const LEVEL: &str = "level.forge.ron";
/// Cells are this far apart on x.
const SPACING: f32 = 10.0;
const LOAD: f32 = 6.0;
const UNLOAD: f32 = 9.0;

/// A prefab of three entities: a roof with a beam under it, and a door whose `Aim` names the
/// roof (a reference inside the cell).
fn hut(roof: &str) -> String {
    scene(
        &[
            entity(1, roof, None, &[2], ""),
            entity(
                2,
                "Beam",
                Some(1),
                &[],
                &custom("forge_demo::Orbit", &[("speed", "1.0")]),
            ),
            entity(3, "Door", None, &[], &custom(AIM, &[("target", "#1")])),
        ],
        &[1, 3],
    )
}

/// An instance entity `id` at x = `x` placing the hut, streamed with the test's radii.
fn cell(id: u64, x: f32, overrides: &str) -> String {
    entity(id, &format!("Cell {id}"), None, &[], "")
        .replace("translation: (x: 0,", &format!("translation: (x: {x:?},"))
        .replace(
            "components: [])",
            &format!(
                "components: [], instance: Some((scene: \"{HUT}\", overrides: [{overrides}], streaming: Some((load_radius: {LOAD:?}, unload_radius: {UNLOAD:?})))))"
            ),
        )
}

/// A level of `n` cells (ids 10, 11, ..) at x = 0, 10, 20, ..; the first renames the roof and
/// changes the beam's speed (overrides); a sign (id 1, not streamed) whose `Aim` names the
/// beam of cell 11 (`#11/2`).
fn level(n: u64) -> String {
    let mut entities = vec![entity(
        1,
        "Sign",
        None,
        &[],
        &custom(AIM, &[("target", "#11/2")]),
    )];
    let mut roots = vec![1];
    for i in 0..n {
        let overrides = if i == 0 {
            "(target: [1], name: Some(\"Red roof\")), (target: [2], set: [(type: custom, data: (type_path: \"forge_demo::Orbit\", fields: [(name: \"speed\", expr: \"7.0\")]))])"
        } else {
            ""
        };
        entities.push(cell(10 + i, i as f32 * SPACING, overrides));
        roots.push(10 + i);
    }
    scene(&entities, &roots)
}

fn harness(text: &str, budget: ForgeSpawnBudget) -> Harness {
    let h = Harness::with_setup(move |app| {
        app.insert_resource(ForgeDefaultSpawnBudget(budget));
        app.init_resource::<AimSeen>();
    });
    h.add(HUT, &hut("Roof"));
    h.add(LEVEL, text);
    h
}

/// A source at x = `x`.
fn source(h: &mut Harness, x: f32) -> Entity {
    h.app
        .world_mut()
        .spawn((Transform::from_xyz(x, 0.0, 0.0), ForgeStreamingSource))
        .id()
}

fn move_to(h: &mut Harness, source: Entity, x: f32) {
    h.app
        .world_mut()
        .get_mut::<Transform>(source)
        .unwrap()
        .translation
        .x = x;
    h.app.update();
}

fn states(h: &Harness, root: Entity) -> Vec<(u64, ForgeCellState)> {
    h.world()
        .get::<ForgeStreamedCells>(root)
        .map(|c| c.iter().collect())
        .unwrap_or_default()
}

fn in_cells(h: &Harness, root: Entity) -> Vec<u64> {
    states(h, root)
        .into_iter()
        .filter(|(_, s)| *s == ForgeCellState::In)
        .map(|(id, _)| id)
        .collect()
}

/// The live entities with id path `path` (placed entities), however many.
fn with_path(world: &mut World, path: &[u64]) -> Vec<Entity> {
    let mut q = world.query::<(Entity, &ForgeEntityPath)>();
    q.iter(world)
        .filter(|(_, p)| p.as_slice() == path)
        .map(|(e, _)| e)
        .collect()
}

/// The entities under `root`, one line each, sorted: id path, name, transform, parent by path,
/// components, `Orbit` and `Aim` (its target by id path).
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
            _ => format!("not a scene entity: {e:?}"),
        }
    };
    let mut lines = Vec::new();
    let mut stack: Vec<Entity> = world
        .get::<Children>(root)
        .map(|c| c.iter().collect())
        .unwrap_or_default();
    while let Some(e) = stack.pop() {
        let mut components: Vec<String> = world
            .inspect_entity(e)
            .unwrap()
            .map(|(_, info)| format!("{:?}", info.name()))
            .collect();
        components.sort();
        lines.push(format!(
            "{} name={:?} transform={:?} parent={:?} components={:?} orbit={:?} sight={:?}",
            path_of(world, e),
            world.get::<Name>(e).map(Name::as_str),
            world.get::<Transform>(e),
            world.get::<ChildOf>(e).map(|c| path_of(world, c.parent())),
            components,
            world.get::<crate::common::Orbit>(e),
            world.get::<Aim>(e).map(|s| path_of(world, s.target)),
        ));
        stack.extend(world.get::<Children>(e).into_iter().flatten().copied());
    }
    lines.sort();
    lines
}

/// The lines of `describe` that belong to cell `id` (its anchor and what it places).
fn cell_lines(lines: &[String], id: u64) -> Vec<String> {
    let own = format!("[{id}] ");
    let placed = format!("[{id}, ");
    lines
        .iter()
        .filter(|l| l.starts_with(&own) || l.starts_with(&placed))
        .cloned()
        .collect()
}

/// Loads the level with a source at `x` and runs until its instance is complete and the
/// first streaming pass ran.
fn start(h: &mut Harness, x: f32) -> (Entity, Entity) {
    let at = source(h, x);
    let (root, _) = h.spawn_scene(LEVEL);
    h.app.update();
    (root, at)
}

#[test]
fn the_streaming_field_reads_writes_and_validates_at_its_position() {
    let text = level(2);
    let parsed = SceneDoc::from_str(&text).unwrap();
    let streaming = parsed
        .doc
        .entity(10)
        .unwrap()
        .instance
        .as_ref()
        .unwrap()
        .streaming;
    assert_eq!(
        streaming,
        Some(Streaming {
            load_radius: LOAD,
            unload_radius: UNLOAD
        })
    );
    assert!(!validate_parsed(&parsed, None).has_errors());
    // Written canonically, and read back the same.
    let canonical = parsed.doc.to_canonical_string();
    assert!(
        canonical.contains("streaming: Some((load_radius: 6.0, unload_radius: 9.0)),"),
        "{canonical}"
    );
    assert_eq!(SceneDoc::from_str(&canonical).unwrap().doc, parsed.doc);
    // An instance without the field reads as not streamed and writes without it.
    let plain = text.replace(
        ", streaming: Some((load_radius: 6.0, unload_radius: 9.0))",
        "",
    );
    let plain = SceneDoc::from_str(&plain).unwrap();
    assert_eq!(
        plain
            .doc
            .entity(10)
            .unwrap()
            .instance
            .as_ref()
            .unwrap()
            .streaming,
        None
    );
    assert!(!plain.doc.to_canonical_string().contains("streaming"));
    // Bad radii: one diagnostic at the value at fault.
    for (bad, field, needle) in [
        (
            "load_radius: 6.0, unload_radius: 5.0",
            "unload_radius",
            "5.0",
        ),
        ("load_radius: 0.0, unload_radius: 9.0", "load_radius", "0.0"),
        (
            "load_radius: 6.0, unload_radius: 6.0",
            "unload_radius",
            "6.0",
        ),
    ] {
        let text = text.replacen("load_radius: 6.0, unload_radius: 9.0", bad, 1);
        let parsed = SceneDoc::from_str(&text).unwrap();
        let report = validate_parsed(&parsed, None);
        let found: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.code == "forge::prefab::streaming")
            .collect();
        assert_eq!(found.len(), 1, "{bad}: {:?}", report.diagnostics);
        let d = found[0];
        assert_eq!(d.entity, Some(10));
        assert_eq!(
            d.path.as_deref(),
            Some(&*format!("instance.streaming.{field}"))
        );
        // The value of `field`: the last number of `bad` for `unload_radius`, else the first.
        let within = if field == "unload_radius" {
            bad.rfind(needle)
        } else {
            bad.find(needle)
        };
        let offset = text.find(bad).unwrap() + within.unwrap();
        let line = text[..offset].matches('\n').count() as u32 + 1;
        let column = (offset - text[..offset].rfind('\n').map_or(0, |n| n + 1)) as u32 + 1;
        let at = d.position.unwrap();
        assert_eq!((at.line, at.column), (line, column), "{bad}");
    }
}

#[test]
fn the_streaming_field_survives_cooking() {
    let parsed = SceneDoc::from_str(&level(3)).unwrap();
    let prefab = SceneDoc::from_str(&hut("Roof")).unwrap().doc;
    let cooked = CookedScene {
        source: LEVEL.into(),
        doc: parsed.doc.clone(),
        prefabs: vec![(HUT.into(), prefab.clone())],
    };
    let back = CookedScene::decode(&cooked.encode()).unwrap();
    assert_eq!(back.doc, parsed.doc);
    // Without streamed instances the bytes do not change with the flag's existence: the
    // same scene, unstreamed, cooks to fewer bytes (two radii and nothing else per instance).
    let mut plain = parsed.doc.clone();
    for id in [10, 11, 12] {
        plain
            .entity_mut(id)
            .unwrap()
            .instance
            .as_mut()
            .unwrap()
            .streaming = None;
    }
    let plain_bytes = CookedScene {
        source: LEVEL.into(),
        doc: plain,
        prefabs: vec![(HUT.into(), prefab)],
    }
    .encode();
    assert_eq!(cooked.encode().len(), plain_bytes.len() + 3 * 8);
}

#[test]
fn cells_come_in_near_a_source_and_go_out_beyond_the_unload_radius() {
    let mut h = harness(&level(4), ForgeSpawnBudget::UNLIMITED);
    let (root, at) = start(&mut h, 0.0);
    let world = h.app.world_mut();
    assert_eq!(with_path(world, &[10, 1]).len(), 1);
    assert!(with_path(world, &[11, 1]).is_empty());
    assert_eq!(in_cells(&h, root), vec![10]);
    // Anchors are always there; only their content streams.
    let instance = h.world().get::<ForgeSceneInstance>(root).unwrap();
    assert!((10..14).all(|id| instance.entity(id).is_some()));
    // 5 from cell 11: within its load radius; cell 10 at 5 stays.
    move_to(&mut h, at, 5.0);
    assert_eq!(in_cells(&h, root), vec![10, 11]);
    // Hysteresis: at 8 from cell 10 (beyond load 6, within unload 9) it stays in ...
    move_to(&mut h, at, 8.0);
    assert_eq!(in_cells(&h, root), vec![10, 11]);
    // ... at 9.5 it goes; cell 12 at 10.5 is not in yet (beyond load).
    move_to(&mut h, at, 9.5);
    assert_eq!(in_cells(&h, root), vec![11]);
    assert!(with_path(h.app.world_mut(), &[10, 1]).is_empty());
    // Back to 8: cell 10 is within unload but beyond load: it stays out.
    move_to(&mut h, at, 8.0);
    assert_eq!(in_cells(&h, root), vec![11]);
    // Two sources: a cell is in while either is near.
    let second = source(&mut h, 30.0);
    h.app.update();
    assert_eq!(in_cells(&h, root), vec![11, 13]);
    h.app.world_mut().despawn(second);
    h.app.update();
    assert_eq!(in_cells(&h, root), vec![11]);
    // No source at all: nothing changes.
    h.app.world_mut().despawn(at);
    h.app.update();
    assert_eq!(in_cells(&h, root), vec![11]);
}

#[test]
fn a_cell_that_comes_back_is_the_same_entities_with_its_overrides_and_nothing_leaks() {
    let mut h = harness(&level(3), ForgeSpawnBudget::UNLIMITED);
    let (root, at) = start(&mut h, 0.0);
    let before = describe(h.app.world_mut(), root);
    let cell = cell_lines(&before, 10);
    assert_eq!(cell.len(), 4, "{cell:#?}");
    assert!(cell.iter().any(|l| l.contains("name=Some(\"Red roof\")")));
    assert!(cell.iter().any(|l| l.contains("speed: 7.0")));
    let count = h.world().entities().count_spawned();
    // Out and back, twice.
    for _ in 0..2 {
        move_to(&mut h, at, 25.0);
        assert_eq!(in_cells(&h, root), vec![12]);
        assert!(cell_lines(&describe(h.app.world_mut(), root), 10).len() == 1);
        move_to(&mut h, at, 0.0);
        assert_eq!(in_cells(&h, root), vec![10]);
        let after = describe(h.app.world_mut(), root);
        assert_eq!(after, before, "the world after a return trip");
        assert_eq!(
            h.world().entities().count_spawned(),
            count,
            "entities leaked"
        );
    }
    // Each placed entity once; the instance map names the live ones.
    for path in [[10, 1], [10, 2], [10, 3]] {
        let found = with_path(h.app.world_mut(), &path);
        assert_eq!(found.len(), 1, "{path:?}");
        let instance = h.world().get::<ForgeSceneInstance>(root).unwrap();
        assert_eq!(instance.entity_path(&path), Some(found[0]));
    }
    let instance = h.world().get::<ForgeSceneInstance>(root).unwrap();
    assert_eq!(instance.entity_path(&[12, 1]), None, "cell 12 is out");
}

#[test]
fn references_into_a_cell_that_is_out_wait_for_it() {
    let mut h = harness(&level(3), ForgeSpawnBudget::UNLIMITED);
    let (root, at) = start(&mut h, 0.0);
    let sign = h
        .world()
        .get::<ForgeSceneInstance>(root)
        .unwrap()
        .entity(1)
        .unwrap();
    // Cell 11 is out: the sign's `Aim` (naming `#11/2`) is not on it.
    assert!(h.world().get::<Aim>(sign).is_none());
    // In: it is, naming the live beam; its hook saw it alive.
    move_to(&mut h, at, 10.0);
    let beam = with_path(h.app.world_mut(), &[11, 2]);
    assert_eq!(h.world().get::<Aim>(sign).map(|s| s.target), Some(beam[0]));
    // Out: taken off, never left naming a despawned entity.
    move_to(&mut h, at, 30.0);
    assert!(h.world().get::<Aim>(sign).is_none());
    // In again: it names the new beam.
    move_to(&mut h, at, 10.0);
    let beam = with_path(h.app.world_mut(), &[11, 2]);
    assert_eq!(beam.len(), 1);
    assert_eq!(h.world().get::<Aim>(sign).map(|s| s.target), Some(beam[0]));
    // The reference inside a cell (each door names its roof) is on each door that is in.
    let door = with_path(h.app.world_mut(), &[11, 3]);
    let roof = with_path(h.app.world_mut(), &[11, 1]);
    assert_eq!(
        h.world().get::<Aim>(door[0]).map(|s| s.target),
        Some(roof[0])
    );
    // Every `Aim` hook saw a live, named target.
    let seen = &h.world().resource::<AimSeen>().0;
    assert!(seen.len() >= 5 && seen.iter().all(|s| *s), "{seen:?}");
}

#[test]
fn a_cell_spawns_within_the_budget_and_the_first_spawn_leaves_cells_out() {
    let mut h = harness(&level(3), ForgeSpawnBudget::UNLIMITED.with_entities(2));
    let (root, at) = start(&mut h, 100.0);
    // The first spawn: the sign and three anchors; the cells' nine entities are not counted.
    let progress = *h.world().get::<ForgeSpawnProgress>(root).unwrap();
    assert_eq!(
        (progress.spawned, progress.total, progress.ready),
        (4, 4, true)
    );
    assert!(in_cells(&h, root).is_empty());
    // Three entities at two a frame: loading, then in.
    move_to(&mut h, at, 0.0);
    assert_eq!(states(&h, root)[0], (10, ForgeCellState::Loading));
    assert_eq!(with_path(h.app.world_mut(), &[10, 1]).len(), 1);
    move_to(&mut h, at, 0.0);
    assert_eq!(states(&h, root)[0], (10, ForgeCellState::In));
    assert_eq!(cell_lines(&describe(h.app.world_mut(), root), 10).len(), 4);
    // Leaving while loading despawns what came in.
    move_to(&mut h, at, 10.0);
    assert_eq!(states(&h, root)[1], (11, ForgeCellState::Loading));
    move_to(&mut h, at, 100.0);
    assert_eq!(states(&h, root)[1], (11, ForgeCellState::Out));
    assert!(with_path(h.app.world_mut(), &[11, 1]).is_empty());
    assert!(in_cells(&h, root).is_empty());
}

#[test]
fn capture_keeps_the_cells_that_are_out_as_written() {
    let mut h = harness(&level(3), ForgeSpawnBudget::UNLIMITED);
    let (root, at) = start(&mut h, 0.0);
    let captured = capture_instance(h.world(), root, &CaptureOptions::default()).unwrap();
    let scene_id = h.world().get::<ForgeSceneInstance>(root).unwrap().scene();
    let written = h
        .world()
        .resource::<Assets<ForgeScene>>()
        .get(scene_id)
        .unwrap()
        .doc()
        .clone();
    assert_eq!(captured.doc, written);
    move_to(&mut h, at, 20.0);
    assert_eq!(in_cells(&h, root), vec![12]);
    let captured = capture_instance(h.world(), root, &CaptureOptions::default()).unwrap();
    assert_eq!(captured.doc, written);
    assert!(captured.skipped.is_empty(), "{:?}", captured.skipped);
}

#[test]
fn a_cooked_streamed_scene_streams_as_the_text_does() {
    let text = level(3);
    let mut worlds = Vec::new();
    for cooked in [false, true] {
        let mut h = harness(&text, ForgeSpawnBudget::UNLIMITED);
        let path = if cooked {
            let bytes = CookedScene {
                source: LEVEL.into(),
                doc: SceneDoc::from_str(&text).unwrap().doc,
                prefabs: vec![(HUT.into(), SceneDoc::from_str(&hut("Roof")).unwrap().doc)],
            }
            .encode();
            h.add_bytes("level.forge.bin", &bytes);
            "level.forge.bin"
        } else {
            LEVEL
        };
        let at = source(&mut h, 0.0);
        let (root, _) = h.spawn_scene(path);
        h.app.update();
        let mut frames = Vec::new();
        for x in [0.0, 10.0, 20.0, 5.0, 0.0] {
            move_to(&mut h, at, x);
            frames.push((in_cells(&h, root), describe(h.app.world_mut(), root)));
        }
        worlds.push(frames);
    }
    assert_eq!(worlds[0], worlds[1]);
}

#[test]
fn a_hot_reload_of_the_prefab_patches_cells_in_and_reaches_cells_out_when_they_come_in() {
    let mut h = harness(&level(3), ForgeSpawnBudget::UNLIMITED);
    let (root, at) = start(&mut h, 10.0);
    assert_eq!(in_cells(&h, root), vec![11]);
    let beam = with_path(h.app.world_mut(), &[11, 2]);
    // The prefab's roof is renamed, a chimney added under it and a well as a new root (under
    // the anchor, which is live even when its cell is out).
    let edited = hut("Tin roof").replace("children: [2]", "children: [2, 4]");
    let added = entity(4, "Chimney", Some(1), &[], "") + &entity(5, "Well", None, &[], "");
    let edited = edited
        .replace("}, roots:", &(added + "}, roots:"))
        .replace("roots: [1, 3]", "roots: [1, 3, 5]");
    h.modify(HUT, &edited);
    h.run_until(|w| {
        let mut q = w.query::<(&ForgeEntityPath, &Name)>();
        q.iter(w)
            .any(|(p, n)| p.as_slice() == [11, 1] && n.as_str() == "Tin roof")
    });
    h.app.update();
    // The cell that is in: patched in place (same beam entity), the chimney spawned once.
    assert_eq!(with_path(h.app.world_mut(), &[11, 2]), beam);
    assert_eq!(with_path(h.app.world_mut(), &[11, 4]).len(), 1);
    assert_eq!(with_path(h.app.world_mut(), &[11, 5]).len(), 1);
    // The cells that are out got nothing.
    for path in [[12, 4], [12, 1], [12, 5], [10, 5]] {
        assert!(with_path(h.app.world_mut(), &path).is_empty(), "{path:?}");
    }
    // Cell 12 comes in with the new prefab; cell 10 keeps its override of the roof's name.
    move_to(&mut h, at, 15.0);
    assert_eq!(in_cells(&h, root), vec![11, 12]);
    move_to(&mut h, at, 5.0);
    assert_eq!(in_cells(&h, root), vec![10, 11]);
    let lines = describe(h.app.world_mut(), root);
    let chimneys = lines
        .iter()
        .filter(|l| l.contains("name=Some(\"Chimney\")"))
        .count();
    assert_eq!(chimneys, 2, "{lines:#?}");
    assert!(
        cell_lines(&lines, 10)
            .iter()
            .any(|l| l.contains("\"Red roof\""))
    );
    move_to(&mut h, at, 15.0);
    let lines = describe(h.app.world_mut(), root);
    let cell12 = cell_lines(&lines, 12);
    assert!(
        cell12
            .iter()
            .any(|l| l.starts_with("[12, 1] name=Some(\"Tin roof\")"))
    );
    assert!(
        cell12
            .iter()
            .any(|l| l.starts_with("[12, 4] name=Some(\"Chimney\")"))
    );
    assert!(
        cell12
            .iter()
            .any(|l| l.starts_with("[12, 5] name=Some(\"Well\")"))
    );
    assert_eq!(with_path(h.app.world_mut(), &[12, 5]).len(), 1);
}

#[test]
fn a_reload_that_changes_streaming_fields_takes_effect_at_once() {
    let text = level(3);
    let mut h = harness(&text, ForgeSpawnBudget::UNLIMITED);
    let (root, at) = start(&mut h, 0.0);
    assert_eq!(in_cells(&h, root), vec![10]);
    let radii = format!("streaming: Some((load_radius: {LOAD:?}, unload_radius: {UNLOAD:?}))");
    // Cell 12 stops streaming (it was out: it spawns whole); cell 10 gets radii of 1 and 2.
    let cell_12 = text.find("12: (").unwrap();
    let mut edited = text[..cell_12].replacen(
        &radii,
        "streaming: Some((load_radius: 1.0, unload_radius: 2.0))",
        1,
    );
    edited.push_str(&text[cell_12..].replacen(&format!(", {radii}"), "", 1));
    h.modify(LEVEL, &edited);
    h.run_until(|w| {
        w.get::<ForgeStreamedCells>(root)
            .is_some_and(|c| c.len() == 2)
    });
    assert_eq!(with_path(h.app.world_mut(), &[12, 1]).len(), 1);
    assert_eq!(cell_lines(&describe(h.app.world_mut(), root), 12).len(), 4);
    assert_eq!(in_cells(&h, root), vec![10]);
    // The new radii: at 3 from cell 10 it goes out; cell 12, no longer streamed, stays.
    move_to(&mut h, at, 3.0);
    assert!(in_cells(&h, root).is_empty());
    assert!(with_path(h.app.world_mut(), &[10, 1]).is_empty());
    move_to(&mut h, at, 100.0);
    assert_eq!(with_path(h.app.world_mut(), &[12, 1]).len(), 1);
    // Streamed again: what of it is live goes out, and comes back by distance.
    h.modify(LEVEL, &text);
    h.run_until(|w| {
        w.get::<ForgeStreamedCells>(root)
            .is_some_and(|c| c.len() == 3)
    });
    assert!(with_path(h.app.world_mut(), &[12, 1]).is_empty());
    move_to(&mut h, at, 20.0);
    assert_eq!(in_cells(&h, root), vec![12]);
    assert_eq!(with_path(h.app.world_mut(), &[12, 1]).len(), 1);
}

#[test]
fn cells_that_come_in_behind_a_closed_gate_are_inactive_and_revealed_with_the_level() {
    let mut h = harness(&level(2), ForgeSpawnBudget::UNLIMITED);
    let at = source(&mut h, 100.0);
    let handle = h.load(LEVEL);
    let root = h
        .app
        .world_mut()
        .spawn((ForgeSceneRoot(handle), ForgeSceneInactive))
        .id();
    h.run_until(|w| w.get::<ForgeStreamedCells>(root).is_some());
    move_to(&mut h, at, 0.0);
    assert_eq!(in_cells(&h, root), vec![10]);
    for path in [[10, 1], [10, 2], [10, 3]] {
        let e = with_path(h.app.world_mut(), &path)[0];
        assert!(h.world().get::<ForgeSceneInactive>(e).is_some(), "{path:?}");
    }
    h.app
        .world_mut()
        .entity_mut(root)
        .remove::<ForgeSceneInactive>();
    h.app.update();
    let mut marked = h
        .app
        .world_mut()
        .query_filtered::<(), With<ForgeSceneInactive>>();
    assert_eq!(marked.iter(h.app.world()).count(), 0);
    // A cell that comes in after the gate opened is active.
    move_to(&mut h, at, 10.0);
    let beam = with_path(h.app.world_mut(), &[11, 2])[0];
    assert!(h.world().get::<ForgeSceneInactive>(beam).is_none());
}

/// Radii whose squares pass `f32::MAX` (any radius above about 1.8e19 is valid) keep their
/// meaning: a source far beyond the load radius leaves the cell out, and one beyond the unload
/// radius takes it out, however far (distances squared overflowed to infinity before, so every
/// source was "within" both radii).
#[test]
fn huge_radii_still_bound_a_cell() {
    let text = level(2).replace(
        &format!("load_radius: {LOAD:?}, unload_radius: {UNLOAD:?}"),
        "load_radius: 100000000000000000000.0, unload_radius: 200000000000000000000.0",
    );
    assert_ne!(text, level(2));
    let mut h = harness(&text, ForgeSpawnBudget::UNLIMITED);
    let (root, at) = start(&mut h, 1e25);
    assert_eq!(in_cells(&h, root), Vec::<u64>::new());
    // Within the load radius: in.
    move_to(&mut h, at, 5e19);
    assert_eq!(in_cells(&h, root), vec![10, 11]);
    // Between the radii: stays in; beyond the unload radius: out.
    move_to(&mut h, at, 1.5e20);
    assert_eq!(in_cells(&h, root), vec![10, 11]);
    move_to(&mut h, at, 3e20);
    assert_eq!(in_cells(&h, root), Vec::<u64>::new());
    move_to(&mut h, at, 1e25);
    assert_eq!(in_cells(&h, root), Vec::<u64>::new());
}
