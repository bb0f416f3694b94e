//! Hot reloads read, checked and prepared in part (the loader's memory of each watched path)
//! give the scene a fresh load of the same text gives: after every edit of a sequence (values,
//! names, new and deleted entities, a broken version and its fix, edits across several
//! entries, prefab overrides, painted cells), the reloaded asset spawns the same world as the
//! text loaded under a path seen for the first time, and the live instance holds it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_asset::{AssetServer, Assets};
use bevy_forge_scene::prelude::*;
use common::harness::Harness;
use common::incremental::spawned;
use common::scenes::{Log, custom, edit, entity, log_reloads, placing};

const LEVEL: &str = "level.forge.ron";

const LAMP: &str = r#"(format_version: 1, name: "Lamp", entities: {
    1: (id: 1, name: "Lamp", parent: None, children: [2],
        transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: custom, data: (type_path: "forge_demo::Brain", fields: [(name: "hp", expr: "10")]))]),
    2: (id: 2, name: "Bulb", parent: Some(1), children: [],
        transform: (translation: (x: 0, y: 1, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: sprite, data: (image: None, color: (r: 1, g: 1, b: 0, a: 1), custom_size: Some((x: 2, y: 2)), flip_x: false, flip_y: false))]),
}, roots: [1], next_id: 3)"#;

const TILE: &str = r#"(format_version: 1, name: "Tile", entities: {
    1: (id: 1, name: "Tile", parent: None, children: [],
        transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: custom, data: (type_path: "forge_demo::Brain", fields: [(name: "label", expr: "\"grass\"")]))]),
}, roots: [1], next_id: 2)"#;

fn brain(hp: u32, label: &str) -> String {
    custom(
        "forge_demo::Brain",
        &[("hp", &hp.to_string()), ("label", &format!("{label:?}"))],
    )
}

/// The level: a few plain entities with game components, an instance of the lamp, a layer of
/// tiles under entity 1 with `rows`.
fn level(plain: &[(u64, &str, u32)], lamp: &str, rows: &[&str]) -> String {
    let mut entities: Vec<String> = plain
        .iter()
        .map(|(id, name, hp)| entity(*id, name, None, &[], &brain(*hp, name)))
        .collect();
    entities.push(placing(50, "Lamp post", "prefabs/lamp.forge.ron", lamp));
    let mut roots: Vec<u64> = plain.iter().map(|(id, _, _)| *id).collect();
    roots.push(50);
    let rows: Vec<String> = rows.iter().map(|r| format!("{r:?}")).collect();
    format!(
        "(format_version: 1, name: \"Level\", entities: {{\n{}}}, roots: [{}], next_id: 200, layers: [(id: 100, name: \"Ground\", parent: None, plane: xy, cell_size: (x: 1, y: 1), origin: (x: 0, y: 0, z: 0), start: (i: 0, j: 0), palette: {{\"t\": \"prefabs/tile.forge.ron\"}}, rows: [{}])])",
        entities.concat(),
        roots
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        rows.join(", "),
    )
}

/// Loads `text` under a path never loaded before (checked whole) and gives what it spawns.
fn fresh(h: &mut Harness, n: usize, text: &str) -> Vec<String> {
    let path = format!("fresh_{n}.forge.ron");
    h.add(&path, text);
    let handle = h.load(&path);
    let server = h.world().resource::<AssetServer>().clone();
    h.run_until(|_| server.is_loaded(&handle) || server.load_state(&handle).is_failed());
    assert!(server.is_loaded(&handle), "the fresh load of version {n}");
    spawned(h, &handle)
}

#[test]
fn reloads_checked_in_part_spawn_what_fresh_loads_spawn() {
    let mut h = Harness::with_setup(log_reloads);
    h.add("prefabs/lamp.forge.ron", LAMP);
    h.add("prefabs/tile.forge.ron", TILE);
    let base = [(1, "Guard", 10), (2, "Cook", 20), (3, "Smith", 30)];
    let first = level(&base, "", &["t.t", ".t."]);
    h.add(LEVEL, &first);
    let (root, _) = h.spawn_scene(LEVEL);
    let handle = h.load(LEVEL);

    let versions: Vec<(&str, String)> = vec![
        (
            "one value",
            level(
                &[(1, "Guard", 11), (2, "Cook", 20), (3, "Smith", 30)],
                "",
                &["t.t", ".t."],
            ),
        ),
        (
            "a name",
            level(
                &[(1, "Guard", 11), (2, "Chef", 20), (3, "Smith", 30)],
                "",
                &["t.t", ".t."],
            ),
        ),
        (
            "two entries",
            level(
                &[(1, "Guard", 12), (2, "Chef", 21), (3, "Smith", 30)],
                "",
                &["t.t", ".t."],
            ),
        ),
        (
            "a new entity",
            level(
                &[
                    (1, "Guard", 12),
                    (2, "Chef", 21),
                    (3, "Smith", 30),
                    (4, "Miller", 40),
                ],
                "",
                &["t.t", ".t."],
            ),
        ),
        (
            "an override",
            level(
                &[
                    (1, "Guard", 12),
                    (2, "Chef", 21),
                    (3, "Smith", 30),
                    (4, "Miller", 40),
                ],
                r#"(target: [1], name: Some("Post light"))"#,
                &["t.t", ".t."],
            ),
        ),
        (
            "a painted cell",
            level(
                &[
                    (1, "Guard", 12),
                    (2, "Chef", 21),
                    (3, "Smith", 30),
                    (4, "Miller", 40),
                ],
                r#"(target: [1], name: Some("Post light"))"#,
                &["ttt", ".t."],
            ),
        ),
        (
            "a deleted entity",
            level(
                &[(1, "Guard", 12), (3, "Smith", 30), (4, "Miller", 40)],
                r#"(target: [1], name: Some("Post light"))"#,
                &["ttt", ".t."],
            ),
        ),
        (
            "a value out of range (fails)",
            level(
                &[(1, "Guard", 500), (3, "Smith", 30), (4, "Miller", 40)],
                "",
                &["ttt", ".t."],
            ),
        ),
        (
            "the fix",
            level(
                &[(1, "Guard", 50), (3, "Smith", 30), (4, "Miller", 40)],
                "",
                &["ttt", ".t."],
            ),
        ),
        (
            "a value after the fix",
            level(
                &[(1, "Guard", 50), (3, "Smith", 31), (4, "Miller", 40)],
                "",
                &["ttt", ".t."],
            ),
        ),
    ];
    for (n, (what, text)) in versions.iter().enumerate() {
        let failed_before = h.world().resource::<Log>().failed.len();
        edit(&mut h, LEVEL, text);
        let failed = h.world().resource::<Log>().failed.len() > failed_before;
        assert_eq!(failed, what.ends_with("(fails)"), "{what}");
        if failed {
            continue;
        }
        let reloaded = spawned(&h, &handle);
        let whole = fresh(&mut h, n, text);
        assert_eq!(reloaded, whole, "after {what}");
        // And the live instance has every entity of the version.
        let live = h.world().get::<ForgeSceneInstance>(root).unwrap().len();
        let scenes = h.world().resource::<Assets<ForgeScene>>();
        let expected = scenes
            .get(&handle)
            .unwrap()
            .expanded()
            .unwrap()
            .doc
            .entities
            .len();
        assert_eq!(live, expected, "live entities after {what}");
    }
}
