//! Prefabs through the real `AssetServer`: instances spawn what their prefab places with the
//! overrides applied, errors point at the file and line they are in, and a prefab edit reaches
//! every live instance while what the scene overrode stays overridden.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_asset::AssetServer;
use bevy_ecs::change_detection::ComponentTicks;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeEntityPath;
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::prelude::*;
use bevy_light::PointLight;
use bevy_sprite::Sprite;
use bevy_transform::components::Transform;
use common::game::Brain;
use common::harness::Harness;
use common::scenes::{Log, edit, edit_in_memory, instance_of, load_errors, log_reloads, name_of};

fn entity(id: u64, name: &str, parent: Option<u64>, children: &[u64], rest: &str) -> String {
    let parent = parent.map_or("None".to_owned(), |p| format!("Some({p})"));
    let children: Vec<String> = children.iter().map(u64::to_string).collect();
    format!(
        "{id}: (id: {id}, name: \"{name}\", parent: {parent}, children: [{}], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), {rest}),",
        children.join(", ")
    )
}

fn scene(name: &str, entities: &[String], roots: &[u64], next_id: u64) -> String {
    let roots: Vec<String> = roots.iter().map(u64::to_string).collect();
    format!(
        "(format_version: 1, name: \"{name}\", entities: {{\n{}\n}}, roots: [{}], next_id: {next_id})",
        entities.join("\n"),
        roots.join(", ")
    )
}

fn light(intensity: f32) -> String {
    format!(
        "(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: {intensity:?}, range: 20.0, shadows: false))"
    )
}

const SPRITE: &str = "(type: sprite, data: (image: None, color: (r: 1, g: 0, b: 0, a: 1), custom_size: Some((x: 8, y: 8)), flip_x: false, flip_y: false))";

/// A goblin: 1 "Goblin" [brain, sprite] with 2 "Torch" [light] under it.
fn goblin(intensity: f32, hp: u32) -> String {
    scene(
        "Goblin",
        &[
            entity(
                1,
                "Goblin",
                None,
                &[2],
                &format!(
                    "components: [(type: custom, data: (type_path: \"forge_demo::Brain\", fields: [(name: \"hp\", expr: \"{hp}\"), (name: \"label\", expr: \"\\\"grunt\\\"\")])), {SPRITE}]"
                ),
            ),
            entity(
                2,
                "Torch",
                Some(1),
                &[],
                &format!("components: [{}]", light(intensity)),
            ),
        ],
        &[1],
        3,
    )
}

/// An instance entity `id` of `scene` with `overrides` (RON list items).
fn placing(id: u64, name: &str, scene_path: &str, overrides: &str) -> String {
    entity(
        id,
        name,
        None,
        &[],
        &format!(
            "components: [], instance: Some((scene: \"{scene_path}\", overrides: [{overrides}]))"
        ),
    )
}

fn harness() -> Harness {
    Harness::with_setup(log_reloads)
}

fn ticks<T: Component>(h: &Harness, e: Entity) -> ComponentTicks {
    h.world().entity(e).get_change_ticks::<T>().unwrap()
}

#[test]
fn instances_spawn_the_prefab_under_them_with_id_paths() {
    let mut h = harness();
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    let level = scene(
        "Level",
        &[
            placing(5, "Goblin A", "prefabs/goblin.forge.ron", ""),
            placing(6, "Goblin B", "prefabs/goblin.forge.ron", ""),
        ],
        &[5, 6],
        7,
    );
    h.add("level.forge.ron", &level);
    let (root, instance) = h.spawn_scene("level.forge.ron");
    let world = h.world();
    assert_eq!(
        instance.len(),
        6,
        "two instance entities and two goblins of two"
    );
    for id in [5, 6] {
        let placed_by = instance.entity(id).unwrap();
        assert_eq!(world.get::<ChildOf>(placed_by).unwrap().parent(), root);
        let goblin = instance.entity_path(&[id, 1]).unwrap();
        let torch = instance.entity_path(&[id, 2]).unwrap();
        assert_eq!(world.get::<ChildOf>(goblin).unwrap().parent(), placed_by);
        assert_eq!(world.get::<ChildOf>(torch).unwrap().parent(), goblin);
        assert_eq!(world.get::<Name>(goblin).unwrap().as_str(), "Goblin");
        assert_eq!(world.get::<ForgeEntityId>(goblin), Some(&ForgeEntityId(1)));
        assert_eq!(
            world.get::<ForgeEntityPath>(torch),
            Some(&ForgeEntityPath(vec![id, 2]))
        );
        assert_eq!(world.get::<Brain>(goblin).unwrap().hp, 10);
        assert_eq!(world.get::<PointLight>(torch).unwrap().intensity, 400.0);
        // The scene's own entities carry no path.
        assert!(world.get::<ForgeEntityPath>(placed_by).is_none());
    }
    assert_ne!(
        instance.entity_path(&[5, 1]),
        instance.entity_path(&[6, 1]),
        "each instance has its own entities"
    );
    assert_eq!(instance.entity_path(&[5]), instance.entity(5));
    assert_eq!(instance.entity_path(&[5, 9]), None);
    assert_eq!(instance.entity_path(&[]), None);
}

#[test]
fn every_override_kind_changes_only_what_it_names() {
    let mut h = harness();
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    let overrides = r#"
        (target: [1], name: Some("Boss"), set: [(type: custom, data: (type_path: "forge_demo::Brain", fields: [(name: "hp", expr: "50")]))], remove: ["sprite"], children: [8]),
        (target: [2], transform: Some((translation: (x: 0, y: 3, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))), set: [(type: point_light, data: (intensity: 1200.0))], add: [(type: visibility, data: hidden)]),
    "#;
    let level = scene(
        "Level",
        &[
            placing(5, "Goblin", "prefabs/goblin.forge.ron", overrides),
            entity(8, "Crown", Some(5), &[], &format!("components: [{SPRITE}]")),
        ],
        &[5],
        9,
    );
    h.add("level.forge.ron", &level);
    let (_, instance) = h.spawn_scene("level.forge.ron");
    let world = h.world();
    let goblin = instance.entity_path(&[5, 1]).unwrap();
    let torch = instance.entity_path(&[5, 2]).unwrap();
    let crown = instance.entity(8).unwrap();
    assert_eq!(world.get::<Name>(goblin).unwrap().as_str(), "Boss");
    let brain = world.get::<Brain>(goblin).unwrap();
    assert_eq!(
        (brain.hp, brain.label.as_str()),
        (50, "grunt"),
        "the field set, the other kept"
    );
    assert!(world.get::<Sprite>(goblin).is_none(), "removed");
    let light = world.get::<PointLight>(torch).unwrap();
    assert_eq!(
        (light.intensity, light.range),
        (1200.0, 20.0),
        "intensity set, range as the prefab has it"
    );
    assert_eq!(world.get::<Transform>(torch).unwrap().translation.y, 3.0);
    assert_eq!(
        world.get::<bevy_camera::visibility::Visibility>(torch),
        Some(&bevy_camera::visibility::Visibility::Hidden)
    );
    // The scene's own entity, placed under the prefab entity, after its own children.
    assert_eq!(world.get::<ChildOf>(crown).unwrap().parent(), goblin);
    let children: Vec<Entity> = world.get::<Children>(goblin).unwrap().iter().collect();
    assert_eq!(children, [torch, crown]);
    assert_eq!(world.get::<ForgeEntityId>(crown), Some(&ForgeEntityId(8)));
}

#[test]
fn nested_prefabs_are_reached_by_id_paths() {
    let mut h = harness();
    h.add(
        "prefabs/hat.forge.ron",
        &scene(
            "Hat",
            &[entity(
                1,
                "Hat",
                None,
                &[],
                &format!("components: [{SPRITE}]"),
            )],
            &[1],
            2,
        ),
    );
    h.add(
        "prefabs/goblin.forge.ron",
        &scene(
            "Goblin",
            &[
                entity(1, "Goblin", None, &[7], "components: []"),
                entity(
                    7,
                    "Hat Slot",
                    Some(1),
                    &[],
                    "components: [], instance: Some((scene: \"prefabs/hat.forge.ron\", overrides: [(target: [1], name: Some(\"Goblin Hat\"))]))",
                ),
            ],
            &[1],
            8,
        ),
    );
    let level = scene(
        "Level",
        &[
            placing(5, "A", "prefabs/goblin.forge.ron", ""),
            placing(
                6,
                "B",
                "prefabs/goblin.forge.ron",
                "(target: [7, 1], name: Some(\"Boss Hat\"))",
            ),
        ],
        &[5, 6],
        7,
    );
    h.add("level.forge.ron", &level);
    let (_, instance) = h.spawn_scene("level.forge.ron");
    let world = h.world();
    let name = |path: &[u64]| {
        world
            .get::<Name>(instance.entity_path(path).unwrap())
            .unwrap()
            .as_str()
            .to_owned()
    };
    assert_eq!(name(&[5, 7, 1]), "Goblin Hat", "the goblin's own override");
    assert_eq!(name(&[6, 7, 1]), "Boss Hat", "the level's override wins");
    let hat = instance.entity_path(&[6, 7, 1]).unwrap();
    assert_eq!(
        world.get::<ForgeEntityPath>(hat),
        Some(&ForgeEntityPath(vec![6, 7, 1]))
    );
    assert_eq!(
        world.get::<ChildOf>(hat).unwrap().parent(),
        instance.entity_path(&[6, 7]).unwrap()
    );
}

#[test]
fn errors_point_at_the_file_and_line_they_are_in() {
    let mut h = harness();
    // Line 2 of the prefab: a light with a negative range.
    let prefab = scene(
        "Bad",
        &[entity(
            1,
            "Lamp",
            None,
            &[],
            &format!(
                "components: [{}]",
                light(400.0).replace("range: 20.0", "range: -1.0")
            ),
        )],
        &[1],
        2,
    );
    h.add("prefabs/bad.forge.ron", &prefab);
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    // Line 2 of the level places the bad prefab; line 3 overrides the goblin with a bad value.
    let level = scene(
        "Level",
        &[
            placing(5, "Lamp", "prefabs/bad.forge.ron", ""),
            placing(
                6,
                "Goblin",
                "prefabs/goblin.forge.ron",
                "(target: [2], set: [(type: point_light, data: (intensity: -5.0))])",
            ),
        ],
        &[5, 6],
        7,
    );
    h.add("level.forge.ron", &level);
    let errors = load_errors(&mut h, "level.forge.ron");
    let find = |code: &str| {
        errors
            .iter()
            .find(|d| d.code == code)
            .unwrap_or_else(|| panic!("no {code} in {errors:#?}"))
    };
    let range = find("forge::light::range");
    assert_eq!(range.file.as_deref(), Some("prefabs/bad.forge.ron"));
    assert_eq!(range.line(), Some(2), "the prefab's line");
    // One problem, one diagnostic: where the prefab is placed is a related place of it, not
    // a second error.
    assert_eq!(range.related.len(), 1, "{range:?}");
    let placed = &range.related[0];
    assert_eq!(placed.file.as_deref(), Some("level.forge.ron"));
    assert_eq!(placed.position.map(|p| p.line), Some(2));
    assert_eq!(placed.message, "places `prefabs/bad.forge.ron`");
    assert!(
        errors.iter().all(|d| d.code != "forge::prefab::invalid"),
        "{errors:#?}"
    );
    assert_eq!(errors.len(), 2, "{errors:#?}");
    let intensity = find("forge::light::intensity");
    assert_eq!(intensity.file, None, "the level's own problem");
    assert_eq!(intensity.entity, Some(6));
    assert_eq!(intensity.line(), Some(3));
    assert_eq!(
        intensity.path.as_deref(),
        Some("instance.overrides[0].set[0].data.intensity")
    );
    assert!(
        intensity
            .help
            .as_deref()
            .unwrap_or("")
            .contains("prefab entity [2] (`Torch`)"),
        "{intensity:?}"
    );
    // The override's value: column of `-5.0` on line 3.
    let line = level.lines().nth(2).unwrap();
    let column = line[..line.find("-5.0").unwrap()].chars().count() as u32 + 1;
    assert_eq!(intensity.column(), Some(column));
}

#[test]
fn a_custom_field_override_with_a_bad_expression_points_inside_the_level() {
    let mut h = harness();
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    let level = scene(
        "Level",
        &[placing(
            5,
            "Goblin",
            "prefabs/goblin.forge.ron",
            "(target: [1], set: [(type: custom, data: (type_path: \"forge_demo::Brain\", fields: [(name: \"hp\", expr: \"true\")]))])",
        )],
        &[5],
        6,
    );
    h.add("level.forge.ron", &level);
    let errors = load_errors(&mut h, "level.forge.ron");
    let expr = errors
        .iter()
        .find(|d| d.code == "forge::custom::expr")
        .unwrap_or_else(|| panic!("{errors:#?}"));
    assert_eq!(
        (expr.entity, expr.line(), expr.file.as_deref()),
        (Some(5), Some(2), None)
    );
    assert_eq!(
        expr.path.as_deref(),
        Some("instance.overrides[0].set[0].data.fields[0].expr")
    );
    // Inside the expression (`true`), as for the scene's own fields, not at its quote.
    let line = level.lines().nth(1).unwrap();
    let column = line[..line.find("true").unwrap()].chars().count() as u32 + 1;
    assert_eq!(expr.column(), Some(column), "{expr:?}");
    // `forge validate --schema` says the same place.
    let schemas = h
        .app
        .world()
        .resource::<bevy_forge_scene::ForgeSchemas>()
        .to_schema_file();
    let mut prefabs =
        bevy_forge_scene::pipeline::PrefabFiles::new(|p: &str| Err(format!("no `{p}` here")))
            .with_schemas(schemas);
    let goblin = goblin(400.0, 10);
    prefabs.provide("prefabs/goblin.forge.ron", Ok(goblin.into_bytes()));
    let source =
        bevy_forge_scene::pipeline::Source::read("level.forge.ron", level.as_bytes()).unwrap();
    let offline = bevy_forge_scene::pipeline::check(source, &mut prefabs);
    let same = offline
        .diagnostics
        .iter()
        .find(|d| d.code == "forge::custom::expr")
        .unwrap_or_else(|| panic!("{:#?}", offline.diagnostics));
    assert_eq!((same.line(), same.column()), (expr.line(), expr.column()));
}

#[test]
fn a_cycle_of_prefabs_is_refused_with_the_chain() {
    let mut h = harness();
    h.add(
        "a.forge.ron",
        &scene("A", &[placing(1, "B", "b.forge.ron", "")], &[1], 2),
    );
    h.add(
        "b.forge.ron",
        &scene("B", &[placing(1, "A", "a.forge.ron", "")], &[1], 2),
    );
    let errors = load_errors(&mut h, "a.forge.ron");
    let cycle = errors
        .iter()
        .find(|d| d.code == "forge::prefab::cycle")
        .unwrap_or_else(|| panic!("{errors:#?}"));
    assert_eq!(
        cycle.message,
        "prefab cycle: `a.forge.ron` -> `b.forge.ron` -> `a.forge.ron`"
    );
    assert_eq!(cycle.file.as_deref(), Some("b.forge.ron"), "found in b");
    // The chain is the cycle's related places; `a` is not reported again for it.
    let chain: Vec<_> = cycle
        .related
        .iter()
        .map(|r| (r.file.as_deref(), r.message.as_str()))
        .collect();
    assert_eq!(
        chain,
        [
            (Some("a.forge.ron"), "places `b.forge.ron`"),
            (Some("b.forge.ron"), "places `a.forge.ron`")
        ]
    );
    assert_eq!(errors.len(), 1, "{errors:#?}");
}

#[test]
fn nesting_deeper_than_the_limit_is_refused() {
    let mut h = harness();
    let depth = bevy_forge_scene::format::MAX_PREFAB_DEPTH + 1;
    for i in 0..depth {
        h.add(
            &format!("p{i}.forge.ron"),
            &scene(
                "P",
                &[placing(1, "Next", &format!("p{}.forge.ron", i + 1), "")],
                &[1],
                2,
            ),
        );
    }
    h.add(
        &format!("p{depth}.forge.ron"),
        &scene(
            "Last",
            &[entity(1, "Leaf", None, &[], "components: []")],
            &[1],
            2,
        ),
    );
    let errors = load_errors(&mut h, "p0.forge.ron");
    let deep = errors
        .iter()
        .find(|d| d.code == "forge::prefab::too_deep")
        .unwrap_or_else(|| panic!("{errors:#?}"));
    assert!(
        deep.message.contains("`p0.forge.ron` -> `p1.forge.ron`"),
        "{}",
        deep.message
    );
    // One file less loads.
    let mut h = harness();
    for i in 0..depth - 1 {
        h.add(
            &format!("p{i}.forge.ron"),
            &scene(
                "P",
                &[placing(1, "Next", &format!("p{}.forge.ron", i + 1), "")],
                &[1],
                2,
            ),
        );
    }
    h.add(
        &format!("p{}.forge.ron", depth - 1),
        &scene(
            "Last",
            &[entity(1, "Leaf", None, &[], "components: []")],
            &[1],
            2,
        ),
    );
    let (_, instance) = h.spawn_scene("p0.forge.ron");
    assert_eq!(instance.len(), depth, "one entity per file");
}

#[test]
fn an_override_of_a_missing_entity_is_kept_and_applies_when_it_returns() {
    let mut h = harness();
    let lamp = |with_second: bool| {
        let mut entities = vec![entity(
            1,
            "Lamp",
            None,
            &[],
            &format!("components: [{}]", light(400.0)),
        )];
        if with_second {
            entities.push(entity(
                2,
                "Spare",
                None,
                &[],
                &format!("components: [{}]", light(100.0)),
            ));
        }
        scene(
            "Lamps",
            &entities,
            if with_second { &[1, 2] } else { &[1] },
            3,
        )
    };
    h.add("prefabs/lamps.forge.ron", &lamp(false));
    let level = scene(
        "Level",
        &[placing(
            5,
            "Lamps",
            "prefabs/lamps.forge.ron",
            "(target: [2], set: [(type: point_light, data: (intensity: 900.0))])",
        )],
        &[5],
        6,
    );
    h.add("level.forge.ron", &level);
    let (root, instance) = h.spawn_scene("level.forge.ron");
    assert_eq!(instance.entity_path(&[5, 2]), None);
    // The warning, at its line (checked offline the same way).
    let parsed = SceneDoc::from_str(&level).unwrap();
    let mut files =
        bevy_forge_scene::pipeline::PrefabFiles::new(|_: &str| Ok(lamp(false).into_bytes()));
    let (_, found) = files.expand_scene("level.forge.ron", &parsed);
    let unused = found
        .iter()
        .find(|d| d.code == "forge::prefab::unused_override")
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert_eq!((unused.line(), unused.entity), (Some(2), Some(5)));
    // The prefab gets entity 2 back: the override applies.
    edit(&mut h, "prefabs/lamps.forge.ron", &lamp(true));
    let instance = instance_of(&h, root);
    let spare = instance.entity_path(&[5, 2]).unwrap();
    assert_eq!(h.world().get::<PointLight>(spare).unwrap().intensity, 900.0);
}

#[test]
fn a_prefab_edit_reaches_every_instance_and_keeps_overrides_and_runtime_state() {
    let mut h = harness();
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    let level = scene(
        "Level",
        &[
            placing(5, "A", "prefabs/goblin.forge.ron", ""),
            placing(
                6,
                "B",
                "prefabs/goblin.forge.ron",
                "(target: [2], set: [(type: point_light, data: (intensity: 1200.0))])",
            ),
        ],
        &[5, 6],
        7,
    );
    h.add("level.forge.ron", &level);
    let (root, instance) = h.spawn_scene("level.forge.ron");
    let torch_a = instance.entity_path(&[5, 2]).unwrap();
    let torch_b = instance.entity_path(&[6, 2]).unwrap();
    let goblin_a = instance.entity_path(&[5, 1]).unwrap();
    // Runtime state the game added.
    h.app
        .world_mut()
        .entity_mut(goblin_a)
        .insert(Name::new("renamed by the game"));
    #[derive(Component)]
    struct Stunned;
    h.app.world_mut().entity_mut(goblin_a).insert(Stunned);
    let before_a = ticks::<PointLight>(&h, torch_a);
    let before_b = ticks::<PointLight>(&h, torch_b);
    let brain_before = ticks::<Brain>(&h, goblin_a);
    // The prefab's torch gets brighter and its range changes.
    edit(
        &mut h,
        "prefabs/goblin.forge.ron",
        &goblin(600.0, 10).replace("range: 20.0", "range: 30.0"),
    );
    let after = instance_of(&h, root);
    assert_eq!(after.entity_path(&[5, 2]), Some(torch_a), "same entities");
    assert_eq!(after.entity_path(&[6, 2]), Some(torch_b));
    let world = h.world();
    let a = world.get::<PointLight>(torch_a).unwrap();
    let b = world.get::<PointLight>(torch_b).unwrap();
    assert_eq!(
        (a.intensity, a.range),
        (600.0, 30.0),
        "A follows the prefab"
    );
    assert_eq!(
        (b.intensity, b.range),
        (1200.0, 30.0),
        "B's override stays; its other field follows"
    );
    assert!(
        ticks::<PointLight>(&h, torch_a).is_changed(before_a.changed, h.world().read_change_tick())
    );
    assert!(
        ticks::<PointLight>(&h, torch_b).is_changed(before_b.changed, h.world().read_change_tick())
    );
    // Untouched: the goblin's brain and what the game added.
    assert_eq!(ticks::<Brain>(&h, goblin_a).changed, brain_before.changed);
    assert!(h.world().get::<Stunned>(goblin_a).is_some());
    assert_eq!(
        h.world().get::<Name>(goblin_a).unwrap().as_str(),
        "renamed by the game"
    );
    let log = h.world().resource::<Log>();
    let last = log.reloaded.last().unwrap();
    let mut changed = last.changed.clone();
    changed.sort_unstable();
    assert_eq!(changed.len(), 2, "only the two torches: {last:?}");
}

/// `AssetServer::reload` of a prefab's own path, without a file watcher telling anyone the file
/// changed, reaches the scenes that place it, through a prefab between them too.
#[test]
fn reloading_a_prefab_by_its_path_patches_the_scenes_that_place_it() {
    let mut h = harness();
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    h.add(
        "prefabs/pair.forge.ron",
        &scene(
            "Pair",
            &[placing(1, "Left", "prefabs/goblin.forge.ron", "")],
            &[1],
            2,
        ),
    );
    let level = scene(
        "Level",
        &[
            placing(5, "A", "prefabs/goblin.forge.ron", ""),
            placing(6, "Pair", "prefabs/pair.forge.ron", ""),
        ],
        &[5, 6],
        7,
    );
    h.add("level.forge.ron", &level);
    let (root, instance) = h.spawn_scene("level.forge.ron");
    let torch_a = instance.entity_path(&[5, 2]).unwrap();
    let torch_nested = instance.entity_path(&[6, 1, 2]).unwrap();
    // The file changes where no watcher sees it; the game reloads the prefab by its path.
    h.add("prefabs/goblin.forge.ron", &goblin(650.0, 10));
    h.app
        .world()
        .resource::<AssetServer>()
        .reload("prefabs/goblin.forge.ron");
    h.run_until(|w| !w.resource::<Log>().reloaded.is_empty());
    let world = h.world();
    assert_eq!(world.get::<PointLight>(torch_a).unwrap().intensity, 650.0);
    assert_eq!(
        world.get::<PointLight>(torch_nested).unwrap().intensity,
        650.0
    );
    let after = instance_of(&h, root);
    assert_eq!(
        after.entity_path(&[5, 2]),
        Some(torch_a),
        "patched, not respawned"
    );
}

#[test]
fn a_bad_prefab_edit_keeps_the_last_good_scene() {
    let mut h = harness();
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    h.add(
        "level.forge.ron",
        &scene(
            "Level",
            &[placing(5, "A", "prefabs/goblin.forge.ron", "")],
            &[5],
            6,
        ),
    );
    let (root, instance) = h.spawn_scene("level.forge.ron");
    let torch = instance.entity_path(&[5, 2]).unwrap();
    edit(
        &mut h,
        "prefabs/goblin.forge.ron",
        "(format_version: 1, name: ",
    );
    let log = h.world().resource::<Log>();
    assert_eq!(log.failed.len(), 1);
    assert_eq!(instance_of(&h, root).entity_path(&[5, 2]), Some(torch));
    assert_eq!(h.world().get::<PointLight>(torch).unwrap().intensity, 400.0);
    // The next good save applies.
    edit(&mut h, "prefabs/goblin.forge.ron", &goblin(700.0, 10));
    assert_eq!(h.world().get::<PointLight>(torch).unwrap().intensity, 700.0);
}

#[test]
fn the_same_prefab_in_two_scenes() {
    let mut h = harness();
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    h.add(
        "one.forge.ron",
        &scene(
            "One",
            &[placing(5, "A", "prefabs/goblin.forge.ron", "")],
            &[5],
            6,
        ),
    );
    h.add(
        "two.forge.ron",
        &scene(
            "Two",
            &[placing(
                9,
                "B",
                "prefabs/goblin.forge.ron",
                "(target: [2], set: [(type: point_light, data: (intensity: 50.0))])",
            )],
            &[9],
            10,
        ),
    );
    let (root_one, one) = h.spawn_scene("one.forge.ron");
    let (_, two) = h.spawn_scene("two.forge.ron");
    let light = |h: &Harness, e: Entity| h.world().get::<PointLight>(e).unwrap().intensity;
    assert_eq!(light(&h, one.entity_path(&[5, 2]).unwrap()), 400.0);
    assert_eq!(light(&h, two.entity_path(&[9, 2]).unwrap()), 50.0);
    // Brighter, and a longer range: both scenes reload (wait for the second too).
    edit(
        &mut h,
        "prefabs/goblin.forge.ron",
        &goblin(800.0, 10).replace("range: 20.0", "range: 25.0"),
    );
    h.run_until(|w| w.resource::<Log>().reloaded.len() >= 2);
    let one = instance_of(&h, root_one);
    let torch_two = two.entity_path(&[9, 2]).unwrap();
    assert_eq!(light(&h, one.entity_path(&[5, 2]).unwrap()), 800.0);
    assert_eq!(light(&h, torch_two), 50.0, "overridden");
    assert_eq!(h.world().get::<PointLight>(torch_two).unwrap().range, 25.0);
}

#[test]
fn removing_an_instance_entity_despawns_what_it_placed() {
    let mut h = harness();
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    let both = scene(
        "Level",
        &[
            placing(5, "A", "prefabs/goblin.forge.ron", ""),
            placing(6, "B", "prefabs/goblin.forge.ron", ""),
        ],
        &[5, 6],
        7,
    );
    h.add("level.forge.ron", &both);
    let (root, instance) = h.spawn_scene("level.forge.ron");
    let gone = [
        instance.entity(6).unwrap(),
        instance.entity_path(&[6, 1]).unwrap(),
        instance.entity_path(&[6, 2]).unwrap(),
    ];
    let kept = instance.entity_path(&[5, 2]).unwrap();
    let one = scene(
        "Level",
        &[placing(5, "A", "prefabs/goblin.forge.ron", "")],
        &[5],
        7,
    );
    edit(&mut h, "level.forge.ron", &one);
    for e in gone {
        assert!(h.world().get_entity(e).is_err(), "{e} despawned");
    }
    let after = instance_of(&h, root);
    assert_eq!(after.entity_path(&[5, 2]), Some(kept));
    assert_eq!(after.len(), 3);
}

#[test]
fn an_in_memory_edit_of_a_scene_with_instances_is_applied_and_checked() {
    let mut h = harness();
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    h.add(
        "level.forge.ron",
        &scene(
            "Level",
            &[placing(5, "A", "prefabs/goblin.forge.ron", "")],
            &[5],
            6,
        ),
    );
    let handle = h.load("level.forge.ron");
    let root = h.spawn_root(&handle);
    h.run_until(|w| w.get::<ForgeSceneInstance>(root).is_some());
    let torch = instance_of(&h, root).entity_path(&[5, 2]).unwrap();
    // An editor adds an override in memory: hot reload applies it to the live instance.
    let set = |intensity: f32| {
        let patch = bevy_forge_scene::format::ComponentPatch::new(
            bevy_forge_scene::format::ComponentData::PointLight(
                bevy_forge_scene::format::PointLightData {
                    color: bevy_forge_scene::format::ColorData::WHITE,
                    intensity,
                    range: 0.0,
                    shadows: false,
                },
            ),
            &["intensity"],
        );
        let mut o = bevy_forge_scene::format::Override::new([2]);
        o.set.push(patch);
        o
    };
    let before = h.world().resource::<Log>().reloaded.len();
    edit_in_memory(&mut h, &handle, |doc| {
        let instance = doc.entity_mut(5).unwrap().instance.as_deref_mut().unwrap();
        instance.overrides.push(set(999.0));
    })
    .unwrap();
    h.run_until(|w| w.resource::<Log>().reloaded.len() > before);
    let light = h.world().get::<PointLight>(torch).unwrap();
    assert_eq!((light.intensity, light.range), (999.0, 20.0));
    // A bad value is refused with its diagnostics and changes nothing: the asset stays whole.
    let refused = edit_in_memory(&mut h, &handle, |doc| {
        let instance = doc.entity_mut(5).unwrap().instance.as_deref_mut().unwrap();
        instance.overrides.push(set(-1.0));
    })
    .unwrap_err();
    assert!(
        refused.iter().any(|d| d.code == "forge::light::intensity"),
        "{refused:?}"
    );
    for _ in 0..5 {
        h.app.update();
    }
    assert_eq!(h.world().get::<PointLight>(torch).unwrap().intensity, 999.0);
    let scenes = h.world().resource::<bevy_asset::Assets<ForgeScene>>();
    let overrides = &scenes
        .get(&handle)
        .unwrap()
        .doc()
        .entity(5)
        .unwrap()
        .instance;
    assert_eq!(
        overrides.as_ref().unwrap().overrides.len(),
        1,
        "the refused edit is not kept"
    );
}

#[test]
fn errors_about_placed_entities_name_them_by_path() {
    let mut h = harness();
    h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
    let level = scene(
        "Level",
        &[placing(
            5,
            "Goblin",
            "prefabs/goblin.forge.ron",
            "(target: [1], set: [(type: custom, data: (type_path: \"forge_demo::Brain\", fields: [(name: \"hp\", expr: \"500\")]))])",
        )],
        &[5],
        6,
    );
    h.add("level.forge.ron", &level);
    let errors = load_errors(&mut h, "level.forge.ron");
    let range = errors
        .iter()
        .find(|d| d.code == "forge::custom::range")
        .unwrap_or_else(|| panic!("{errors:#?}"));
    assert!(
        range.message.starts_with("entity [5, 1] (`Goblin`)"),
        "{}",
        range.message
    );
    // A prefab file that does not exist: said plainly, at the `scene` value.
    let mut h = harness();
    h.add(
        "level.forge.ron",
        &scene(
            "Level",
            &[placing(5, "X", "prefabs/nope.forge.ron", "")],
            &[5],
            6,
        ),
    );
    let errors = load_errors(&mut h, "level.forge.ron");
    let missing = errors
        .iter()
        .find(|d| d.code == "forge::prefab::unreadable")
        .unwrap_or_else(|| panic!("{errors:#?}"));
    assert!(
        missing.message.contains("does not exist"),
        "{}",
        missing.message
    );
    assert_eq!((missing.entity, missing.line()), (Some(5), Some(2)));
}

/// Tile layers through the `AssetServer`: each cell's prefab spawns under the layer entity by
/// id path, and painting one cell reloads as that cell's entities only.
mod tiles {
    use super::*;

    /// A level with layer 9 (cells 4 × 3 world units, grass `g` and goblins `o`) under entity 1.
    pub(super) fn level(rows: &[&str], overrides: &str) -> String {
        let rows: Vec<String> = rows.iter().map(|r| format!("\"{r}\"")).collect();
        format!(
            "(format_version: 1, name: \"Tiles\", entities: {{\n{}\n}}, roots: [1], next_id: 10, layers: [(id: 9, name: \"Floor\", parent: Some(1), plane: xz, cell_size: (x: 4, y: 3), origin: (x: 0, y: 0, z: 0), palette: {{\"g\": \"prefabs/grass.forge.ron\", \"o\": \"prefabs/goblin.forge.ron\"}}, rows: [{}], overrides: [{overrides}])])",
            entity(1, "Ground", None, &[], "components: []"),
            rows.join(", ")
        )
    }

    fn grass() -> String {
        scene(
            "Grass",
            &[entity(
                1,
                "Grass",
                None,
                &[],
                &format!("components: [{SPRITE}]"),
            )],
            &[1],
            2,
        )
    }

    fn tiles_harness() -> Harness {
        let h = harness();
        h.add("prefabs/grass.forge.ron", &grass());
        h.add("prefabs/goblin.forge.ron", &goblin(400.0, 10));
        h
    }

    #[test]
    fn cells_spawn_under_the_layer_by_id_path() {
        let mut h = tiles_harness();
        h.add(
            "level.forge.ron",
            &level(
                &["g.o", "ggg"],
                "(target: [2, 1, 2], set: [(type: point_light, data: (intensity: 900.0))])",
            ),
        );
        let (root, instance) = h.spawn_scene("level.forge.ron");
        let world = h.world();
        // Ground, the layer, four grass cells, one goblin of two.
        assert_eq!(instance.len(), 2 + 4 + 2);
        let layer = instance.entity(9).unwrap();
        let ground = instance.entity(1).unwrap();
        assert_eq!(world.get::<ChildOf>(ground).unwrap().parent(), root);
        assert_eq!(world.get::<ChildOf>(layer).unwrap().parent(), ground);
        assert_eq!(world.get::<Name>(layer).unwrap().as_str(), "Floor");
        let grass = instance.entity_path(&[9, 1, 0, 1]).unwrap();
        assert_eq!(world.get::<ChildOf>(grass).unwrap().parent(), layer);
        assert_eq!(
            world.get::<ForgeEntityPath>(grass),
            Some(&ForgeEntityPath(vec![9, 1, 0, 1]))
        );
        // Plane xz: i along +X, j along -Z.
        let goblin = instance.entity_path(&[9, 2, 1, 1]).unwrap();
        assert_eq!(
            world.get::<Transform>(goblin).unwrap().translation,
            bevy_math::Vec3::new(8.0, 0.0, -3.0)
        );
        let torch = instance.entity_path(&[9, 2, 1, 2]).unwrap();
        assert_eq!(world.get::<PointLight>(torch).unwrap().intensity, 900.0);
        assert_eq!(world.get::<Brain>(goblin).unwrap().hp, 10);
    }

    #[test]
    fn painting_one_cell_reloads_that_cell_only() {
        let mut h = tiles_harness();
        let over = "(target: [0, 0, 1], name: Some(\"Corner\"))";
        h.add("level.forge.ron", &level(&["g.o", "ggg"], over));
        let (root, instance) = h.spawn_scene("level.forge.ron");
        let cells: Vec<Entity> = [[0, 1], [0, 0], [1, 0], [2, 0]]
            .iter()
            .map(|[i, j]| instance.entity_path(&[9, *i, *j, 1]).unwrap())
            .collect();
        let before: Vec<ComponentTicks> =
            cells.iter().map(|e| ticks::<Transform>(&h, *e)).collect();
        let sprites: Vec<ComponentTicks> = cells.iter().map(|e| ticks::<Sprite>(&h, *e)).collect();
        // Paint grass into the empty cell (1, 1).
        edit(&mut h, "level.forge.ron", &level(&["ggo", "ggg"], over));
        let after = instance_of(&h, root);
        let log = h.world().resource::<Log>();
        let last = log.reloaded.last().unwrap();
        assert_eq!(last.added, [ForgeEntityPath(vec![9, 1, 1, 1])], "{last:?}");
        assert!(last.removed.is_empty(), "{last:?}");
        assert!(
            last.changed.iter().all(|p| p.0 == [9]),
            "at most the layer's child order: {last:?}"
        );
        let now = h.world().read_change_tick();
        for (k, e) in cells.iter().enumerate() {
            assert_eq!(
                after.entity_path(&instance.path_of(*e).unwrap().0),
                Some(*e)
            );
            assert!(!ticks::<Transform>(&h, *e).is_changed(before[k].changed, now));
            assert!(!ticks::<Sprite>(&h, *e).is_changed(sprites[k].changed, now));
        }
        let painted = after.entity_path(&[9, 1, 1, 1]).unwrap();
        assert_eq!(
            h.world().get::<Transform>(painted).unwrap().translation,
            bevy_math::Vec3::new(4.0, 0.0, -3.0)
        );
        // The override of cell (0, 0) survives repainting other cells.
        assert_eq!(name_of(&h, cells[1]), "Corner");
        // Erasing the goblin despawns its two entities, nothing else.
        let goblin = after.entity_path(&[9, 2, 1, 1]).unwrap();
        edit(&mut h, "level.forge.ron", &level(&["gg.", "ggg"], over));
        let log = h.world().resource::<Log>();
        let last = log.reloaded.last().unwrap();
        assert!(last.added.is_empty(), "{last:?}");
        assert_eq!(last.removed.len(), 2, "{last:?}");
        assert!(h.world().get_entity(goblin).is_err());
    }

    #[test]
    fn a_bad_paint_keeps_the_last_good_scene() {
        let mut h = tiles_harness();
        h.add("level.forge.ron", &level(&["gg"], ""));
        let (root, _) = h.spawn_scene("level.forge.ron");
        edit(&mut h, "level.forge.ron", &level(&["gx"], ""));
        let log = h.world().resource::<Log>();
        assert_eq!(log.failed.len(), 1);
        let message = format!("{:?}", log.failed[0]);
        assert!(message.contains("forge::layer::unknown_key"), "{message}");
        assert_eq!(instance_of(&h, root).len(), 2 + 2);
    }
}

#[test]
fn a_reference_in_an_enum_value_of_a_prefab_names_the_placed_copys_entity() {
    // The prefab's entity 1 holds an enum component whose whole value names the prefab's 2.
    let order = r##"components: [(type: custom, data: (type_path: "game::Order", value: "Order::Guard { post: #2 }"))]"##;
    let post = scene(
        "Post",
        &[
            entity(1, "Guard", None, &[], order),
            entity(2, "Tower", None, &[], "components: []"),
        ],
        &[1, 2],
        3,
    );
    let level = scene(
        "Level",
        &[placing(5, "Post", "prefabs/post.forge.ron", "")],
        &[5],
        6,
    );
    let parsed = SceneDoc::from_str(&level).unwrap();
    let mut files =
        bevy_forge_scene::pipeline::PrefabFiles::new(move |_: &str| Ok(post.clone().into_bytes()));
    let (expanded, found) = files.expand_scene("level.forge.ron", &parsed);
    assert!(found.is_empty(), "{found:?}");
    let expanded = expanded.unwrap();
    let guard = expanded.key(&[5, 1]).unwrap();
    let value = match &expanded.doc.entities[&guard].components[0] {
        bevy_forge_scene::format::ComponentData::Custom(c) => c.value.clone().unwrap(),
        other => panic!("{other:?}"),
    };
    assert_eq!(value, "Order::Guard { post: #5/2 }");
}
