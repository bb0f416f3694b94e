//! The stamp of a cooked file (layout version 4): what cooking proved, and when the loader
//! trusts it (the same build and the same schemas) instead of validating again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_ecs::prelude::*;
use bevy_forge_scene::codes;
use bevy_forge_scene::cook::{
    COOKED_VERSION, COOKED_VERSION_UNSTAMPED, CookStamp, CookedScene, schema_hash,
};
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::schema::SchemaFile;
use bevy_transform::components::Transform;
use common::game::Brain;
use common::harness::Harness;
use common::scenes::{exported, load_errors};

/// A guard with `hp` under a parent, a second entity beside it, `next_id` as given.
fn guards(hp: u32, next_id: u64) -> String {
    let t = "transform: (translation: (x: 1, y: 2, z: 3), rotation: (x: 0, y: 90, z: 0), scale: (x: 1, y: 1, z: 1))";
    format!(
        "(format_version: 1, name: \"Guards\", entities: {{\
         1: (id: 1, name: \"Post\", parent: None, children: [2], {t}, components: []),\
         2: (id: 2, name: \"Guard\", parent: Some(1), children: [], {t}, components: [\
         (type: custom, data: (type_path: \"forge_demo::Brain\", fields: [(name: \"hp\", expr: \"{hp}\"), (name: \"label\", expr: \"\\\"gate\\\"\")]))]),\
         3: (id: 3, name: \"Lamp\", parent: None, children: [], {t}, components: [])\
         }}, roots: [1, 3], next_id: {next_id})"
    )
}

/// What one spawned entity is: id, name, translation, its parent's name, its `Brain::hp`.
type Spawned = (u64, String, [f32; 3], Option<String>, Option<u32>);

fn cooked(text: &str) -> CookedScene {
    CookedScene {
        source: "guards.forge.ron".to_owned(),
        doc: SceneDoc::from_str(text).unwrap().doc,
        prefabs: Vec::new(),
    }
}

/// The game's schemas as the running app has them (its `ForgeSchemas`).
fn game_schemas(h: &Harness) -> SchemaFile {
    h.world().resource::<ForgeSchemas>().to_schema_file()
}

/// The schemas of an older build of the game, whose `Brain::hp` allowed up to 1,000.
fn older_schemas(h: &Harness) -> SchemaFile {
    let mut old = game_schemas(h);
    let brain = old
        .components
        .iter_mut()
        .find(|c| c.type_path == "forge_demo::Brain")
        .unwrap();
    let hp = brain.fields.iter_mut().find(|f| f.name == "hp").unwrap();
    hp.range.as_mut().unwrap().max = 1000.0;
    old
}

/// Loads `bytes` as `path` and spawns it: `(name, translation, parent's name, hp)` of every
/// entity by id.
fn spawn(h: &mut Harness, path: &str, bytes: &[u8]) -> Vec<Spawned> {
    h.add_bytes(path, bytes);
    let (_, instance) = h.spawn_scene(path);
    let world = h.world();
    let mut out = Vec::new();
    for id in 1..=3 {
        let e = instance.entity(id).unwrap();
        let parent = world
            .get::<ChildOf>(e)
            .and_then(|c| world.get::<Name>(c.parent()))
            .map(|n| n.as_str().to_owned());
        let t = world.get::<Transform>(e).unwrap().translation;
        out.push((
            id,
            world.get::<Name>(e).unwrap().as_str().to_owned(),
            t.to_array(),
            parent,
            world.get::<Brain>(e).map(|b| b.hp),
        ));
    }
    out
}

fn codes_of(diagnostics: &[bevy_forge_scene::validate::Diagnostic]) -> Vec<&'static str> {
    diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn the_game_and_its_exported_schema_file_hash_alike() {
    let h = Harness::new();
    let game = schema_hash(&game_schemas(&h)).unwrap();
    // What `forge cook --schema FILE` reads: the file the game exported.
    let file = exported(&h);
    assert_eq!(schema_hash(&file), Some(game));
    assert!(CookStamp::new(Some(&file)).matches(Some(&game)));
    // Another schema hashes otherwise, and is never trusted.
    let old = schema_hash(&older_schemas(&h)).unwrap();
    assert_ne!(old, game);
    assert!(!CookStamp::new(Some(&older_schemas(&h))).matches(Some(&game)));
    // Cooked without a schema (shape and references only): never trusted either.
    assert!(!CookStamp::new(None).matches(Some(&game)));
    assert!(!CookStamp::new(None).matches(None));
}

#[test]
fn a_stamp_reads_back_and_version_three_bytes_are_unchanged() {
    let h = Harness::new();
    let scene = cooked(&guards(40, 4));
    let stamp = CookStamp::new(Some(&exported(&h)));
    let stamped = scene.encode_stamped(&stamp);
    assert_eq!(u16::from_le_bytes([stamped[8], stamped[9]]), COOKED_VERSION);
    let read = CookedScene::decode_stamped(&stamped).unwrap();
    assert_eq!(read.scene, scene);
    assert_eq!(read.stamp, Some(stamp.clone()));
    assert_eq!(stamp.crate_version, env!("CARGO_PKG_VERSION"));
    // Without a stamp: layout version 3, and its body is the stamped one without the stamp.
    let plain = scene.encode();
    assert_eq!(
        u16::from_le_bytes([plain[8], plain[9]]),
        COOKED_VERSION_UNSTAMPED
    );
    assert!(stamped[24..].ends_with(&plain[24..]));
    let read = CookedScene::decode_stamped(&plain).unwrap();
    assert_eq!((read.scene, read.stamp), (scene, None));
}

#[test]
fn a_stamp_of_older_schemas_is_validated_again_and_finds_what_the_change_broke() {
    let mut h = Harness::new();
    // Valid when it was cooked: `hp: 500` was within the old range.
    let bytes = cooked(&guards(500, 4)).encode_stamped(&CookStamp::new(Some(&older_schemas(&h))));
    h.add_bytes("stale.forge.bin", &bytes);
    let errors = load_errors(&mut h, "stale.forge.bin");
    assert_eq!(codes_of(&errors), [codes::custom::RANGE]);
    assert_eq!(errors[0].entity, Some(2));
}

#[test]
fn only_a_matching_stamp_skips_the_rules() {
    // `next_id: 2` with entity 3: a rule of the document (`forge::structure::next_id`) that
    // spawning does not need. A file stamped for this game is not checked for it again; every
    // other stamp, or none, is.
    let text = guards(40, 2);
    let scene = cooked(&text);
    let mut h = Harness::new();
    let game = exported(&h);
    let refused = [
        (
            "old.forge.bin",
            scene.encode_stamped(&CookStamp::new(Some(&older_schemas(&h)))),
        ),
        (
            "none.forge.bin",
            scene.encode_stamped(&CookStamp::new(None)),
        ),
        (
            "other_build.forge.bin",
            scene.encode_stamped(&CookStamp {
                crate_version: "0.0.0-other".to_owned(),
                ..CookStamp::new(Some(&game))
            }),
        ),
        ("v3.forge.bin", scene.encode()),
    ];
    for (path, bytes) in refused {
        h.add_bytes(path, &bytes);
        let errors = load_errors(&mut h, path);
        assert_eq!(codes_of(&errors), [codes::structure::NEXT_ID], "{path}");
    }
    let trusted = spawn(
        &mut h,
        "trusted.forge.bin",
        &scene.encode_stamped(&CookStamp::new(Some(&game))),
    );
    assert_eq!(trusted.len(), 3);
}

#[test]
fn a_trusted_load_spawns_what_a_validated_load_spawns() {
    let scene = cooked(&guards(40, 4));
    let mut h = Harness::new();
    let stamp = CookStamp::new(Some(&exported(&h)));
    let trusted = spawn(&mut h, "trusted.forge.bin", &scene.encode_stamped(&stamp));
    let validated = spawn(&mut h, "v3.forge.bin", &scene.encode());
    assert_eq!(trusted, validated);
    assert_eq!(trusted[1].1, "Guard");
    assert_eq!(trusted[1].3.as_deref(), Some("Post"));
    assert_eq!(trusted[1].4, Some(40));
    assert_eq!(trusted[0].2, [1.0, 2.0, 3.0]);
}
