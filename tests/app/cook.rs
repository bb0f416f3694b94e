//! The cooked binary twin: exact round trips (fixtures, generated and arbitrary documents),
//! every kind of damage refused without a panic, sniffing both ways, and cooked scenes loaded
//! through the real `AssetServer` (directly, as the twin of a text path, hot reloaded) spawning
//! what their text spawns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use bevy_app::App;
use bevy_asset::io::memory::Dir;
use bevy_asset::{AssetServer, Handle, LoadState};
use bevy_ecs::hierarchy::Children;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::cook::{
    COOKED_HEADER_LEN, COOKED_MAGIC, COOKED_VERSION, CookError, CookedScene, is_cooked, text_path,
    twin_path,
};
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::format::{
    ComponentData, ComponentPatch, CustomComponent, CustomField, Instance, Override,
};
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::{ForgeEntityPath, ForgeSceneLoadError};
use bevy_transform::components::Transform;
use common::Orbit;
use common::cooked::{load_state, processed_app, twin_app};
use common::harness::Harness;
use proptest::prelude::*;

fn cooked(source: &str, text: &str) -> CookedScene {
    CookedScene {
        source: source.to_owned(),
        doc: SceneDoc::from_str(text).unwrap().doc,
        prefabs: Vec::new(),
    }
}

// ---- the form ----

#[test]
fn every_fixture_reads_back_exactly() {
    for rel in [
        "valid/garden.forge.ron",
        "valid/platformer.forge.ron",
        "warnings/warnings-and-info.forge.ron",
        "invalid/bad-values.forge.ron",
        "invalid/dangling-child.forge.ron",
        "invalid/id-mismatch.forge.ron",
        "invalid/parent-children-disagree.forge.ron",
    ] {
        let text = common::fixture_text(rel);
        let Ok(parsed) = SceneDoc::from_str(&text) else {
            continue; // a fixture that does not read has nothing to cook
        };
        let scene = CookedScene {
            source: rel.to_owned(),
            doc: parsed.doc,
            prefabs: Vec::new(),
        };
        let bytes = scene.encode();
        assert!(is_cooked(&bytes), "{rel}");
        assert!(!is_cooked(text.as_bytes()), "{rel}");
        assert_eq!(CookedScene::decode(&bytes), Ok(scene.clone()), "{rel}");
        // Deterministic: the same scene, the same bytes.
        assert_eq!(scene.encode(), bytes, "{rel}");
    }
}

#[test]
fn the_example_assets_read_back_with_their_prefabs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    for (scene, prefabs) in [
        (
            "scenes/goblin_camp.forge.ron",
            &["prefabs/goblin.forge.ron", "prefabs/hat.forge.ron"][..],
        ),
        (
            "scenes/castle_gate.forge.ron",
            &["prefabs/sentry.forge.ron"][..],
        ),
        ("scenes/showcase.forge.ron", &[][..]),
    ] {
        let scene = CookedScene {
            prefabs: prefabs
                .iter()
                .map(|p| (p.to_string(), SceneDoc::from_str(&read(p)).unwrap().doc))
                .collect(),
            ..cooked(scene, &read(scene))
        };
        let bytes = scene.encode();
        assert_eq!(CookedScene::decode(&bytes).unwrap(), scene);
    }
}

/// Documents with instances: every override part, as arbitrary as the text format allows.
fn with_instances() -> impl Strategy<Value = SceneDoc> {
    // As the text reader builds patches: no camera, settable fields in their order.
    let patch = (
        common::component().prop_filter("cameras have nothing to set", |c| {
            !matches!(c, ComponentData::Camera2d | ComponentData::Camera3d)
        }),
        proptest::collection::vec(any::<bool>(), 5),
    )
        .prop_map(|(component, mask)| {
            let fields = ComponentPatch::fields_of(component.tag())
                .iter()
                .zip(mask)
                .filter(|(_, keep)| *keep)
                .map(|(f, _)| (*f).into())
                .collect();
            ComponentPatch { component, fields }
        });
    let change = (
        proptest::collection::vec(any::<u64>(), 1..4),
        proptest::option::of(common::text()),
        proptest::option::of(common::transform()),
        proptest::collection::vec(patch, 0..2),
        proptest::collection::vec(common::component(), 0..2),
        proptest::collection::vec("[a-z_:]{1,12}", 0..2),
        proptest::collection::vec(any::<u64>(), 0..3),
    )
        .prop_map(
            |(target, name, transform, set, add, remove, children)| Override {
                target,
                node: Vec::new(),
                name: name.map(Into::into),
                transform,
                set,
                add,
                remove: remove.into_iter().map(Into::into).collect(),
                children,
            },
        );
    let streaming = proptest::option::of((0.5f32..100.0, 0.5f32..50.0).prop_map(
        |(load_radius, gap)| bevy_forge_scene::format::Streaming {
            load_radius,
            unload_radius: load_radius + gap,
        },
    ));
    // A prefab instance, or (`model`) a glTF model's, whose overrides target node paths.
    let instance = (
        "[a-z/]{1,16}",
        proptest::collection::vec(change, 0..3),
        streaming,
        any::<bool>(),
    )
        .prop_map(|(scene, mut overrides, streaming, model)| {
            if model {
                for o in &mut overrides {
                    o.node = o
                        .target
                        .drain(..)
                        .map(|id| format!("Node {id}").into())
                        .collect();
                }
                let mut i = Instance::model(format!("{scene}.glb#Scene0"));
                i.overrides = overrides;
                i.streaming = streaming;
                return i;
            }
            Instance {
                scene: format!("{scene}.forge.ron").into(),
                model: None,
                overrides,
                streaming,
            }
        });
    (
        common::any_doc(),
        proptest::collection::vec(proptest::option::of(instance), 0..8),
    )
        .prop_map(|(mut doc, instances)| {
            for (node, instance) in doc
                .entities
                .values_mut()
                .map(std::sync::Arc::make_mut)
                .zip(instances)
            {
                node.instance = instance.map(Box::new);
            }
            doc
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any document the text format can hold, valid or not, with any prefabs bundled, reads
    /// back exactly.
    #[test]
    fn any_document_reads_back_exactly(
        doc in with_instances(),
        prefabs in proptest::collection::vec(("[a-z]{1,8}", common::any_doc()), 0..3),
        source in common::text(),
    ) {
        let mut prefabs: Vec<(String, SceneDoc)> = prefabs
            .into_iter()
            .map(|(p, d)| (format!("prefabs/{p}.forge.ron"), d))
            .collect();
        prefabs.sort_by(|a, b| a.0.cmp(&b.0));
        prefabs.dedup_by(|a, b| a.0 == b.0);
        let scene = CookedScene { source, doc, prefabs };
        let bytes = scene.encode();
        prop_assert_eq!(CookedScene::decode(&bytes), Ok(scene));
    }

    /// Whatever the bytes after the magic, decoding returns: a scene or an error.
    #[test]
    fn any_bytes_after_the_magic_decode_or_fail_cleanly(
        rest in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let mut bytes = COOKED_MAGIC.to_vec();
        bytes.extend(rest);
        let _ = CookedScene::decode(&bytes);
    }
}

fn small() -> Vec<u8> {
    let text = common::fixture_text("valid/garden.forge.ron");
    cooked("garden.forge.ron", &text).encode()
}

#[test]
fn every_damaged_byte_is_an_error_never_a_panic() {
    let bytes = small();
    assert!(bytes.len() > COOKED_HEADER_LEN + 100);
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut damaged = bytes.clone();
            damaged[i] ^= flip;
            let result = CookedScene::decode(&damaged);
            assert!(result.is_err(), "byte {i} ^ {flip:#x} decoded");
        }
    }
}

#[test]
fn each_kind_of_damage_is_named() {
    let bytes = small();
    // Truncated: at every length, inside the header or the body.
    for len in 0..bytes.len() {
        let err = CookedScene::decode(&bytes[..len]).unwrap_err();
        let expected = match len {
            0 => "forge::cook::not_cooked",
            _ => "forge::cook::truncated",
        };
        assert_eq!(err.code(), expected, "{len} bytes: {err}");
    }
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"tail");
    assert_eq!(
        CookedScene::decode(&longer),
        Err(CookError::Trailing {
            declared: (bytes.len() - COOKED_HEADER_LEN) as u64,
            extra: 4
        })
    );
    let mut newer = bytes.clone();
    newer[8..10].copy_from_slice(&(COOKED_VERSION + 1).to_le_bytes());
    let err = CookedScene::decode(&newer).unwrap_err();
    assert_eq!(
        err,
        CookError::Version {
            found: COOKED_VERSION + 1
        }
    );
    assert!(err.to_string().contains("cook the scene again"), "{err}");
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let err = CookedScene::decode(&flipped).unwrap_err();
    assert_eq!(err.code(), "forge::cook::checksum");
    assert!(err.to_string().contains("damaged"), "{err}");
    assert_eq!(
        CookedScene::decode(b"(format_version: 1)"),
        Err(CookError::NotCooked)
    );
}

/// A scene large enough to decode on two threads (`cook::wire`, from 8,192 entities), with
/// every kind of entity the encoding flags: parents and children, custom and built-in
/// components, `locked`, and keys that differ from ids.
fn large_scene(n: usize) -> SceneDoc {
    let mut doc = SceneDoc::new("large");
    let mut parent = None;
    for i in 0..n {
        let root = i % 50 == 0;
        let id = doc
            .add_entity(format!("e{i:05}"), if root { None } else { parent })
            .unwrap();
        if root {
            parent = Some(id);
        }
        let node = doc.entity_mut(id).unwrap();
        node.transform.translation.x = i as f32 * 0.25;
        node.transform.rotation.z = (i % 360) as f32;
        node.locked = i % 7 == 0;
        if i % 3 == 0 {
            node.components.push(ComponentData::Custom(CustomComponent {
                type_path: if i % 2 == 0 {
                    "game::Health"
                } else {
                    "game::a::very::long::TypePath"
                }
                .into(),
                fields: vec![
                    CustomField::new("value", i.to_string()),
                    CustomField::new(
                        "label",
                        format!("\"a label longer than fifteen bytes {i}\""),
                    ),
                ],
                value: None,
            }));
        }
        if i % 11 == 0 {
            node.components.push(
                SceneDoc::from_str(
                    "(format_version: 1, name: \"x\", entities: {1: (id: 1, name: \"x\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(type: visibility, data: hidden)])}, roots: [1], next_id: 2)",
                )
                .unwrap()
                .doc
                .entity(1)
                .unwrap()
                .components[0]
                    .clone(),
            );
        }
    }
    // Keys that differ from ids (validation reports them; the cooked form keeps them).
    let last = *doc.entities.keys().last().unwrap();
    std::sync::Arc::make_mut(doc.entities.get_mut(&last).unwrap()).id = 999_999;
    doc
}

/// Sets the header's checksum to the body's, so damage inside the body reaches the decoder.
fn reseal(bytes: &mut [u8]) {
    let crc = crc32fast::hash(&bytes[COOKED_HEADER_LEN..]);
    bytes[20..24].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn a_large_scene_decodes_on_two_threads_to_the_same_document() {
    common::task_pools();
    for n in [8_191, 8_192, 20_000] {
        let scene = CookedScene {
            source: "large.forge.ron".into(),
            doc: large_scene(n),
            prefabs: vec![("p.forge.ron".into(), large_scene(9_000))],
        };
        let bytes = scene.encode();
        for _ in 0..3 {
            assert_eq!(CookedScene::decode(&bytes).unwrap(), scene, "{n} entities");
        }
    }
}

#[test]
fn damage_in_a_large_scene_is_reported_at_the_first_damaged_entity_every_time() {
    common::task_pools();
    let doc = large_scene(20_000);
    let key = |name: &str| {
        doc.entities
            .iter()
            .find(|(_, e)| e.name == name)
            .map(|(k, _)| *k)
            .unwrap()
    };
    let (early_key, late_key) = (key("e03000"), key("e17000"));
    let bytes = CookedScene {
        source: "large.forge.ron".into(),
        doc,
        prefabs: vec![],
    }
    .encode();
    let at = |name: &str| {
        let needle = [&[name.len() as u8][..], name.as_bytes()].concat();
        bytes
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap()
            + 1
    };
    // Invalid UTF-8 in two names, many chunks apart.
    let (early, late) = (at("e03000"), at("e17000"));
    let mut damaged = bytes.clone();
    damaged[early] = 0xFF;
    damaged[late] = 0xFF;
    reseal(&mut damaged);
    let expected =
        format!("layout at byte {early} of the file, in entity {early_key} of the scene: ");
    for _ in 0..10 {
        let e = CookedScene::decode(&damaged).unwrap_err();
        assert_eq!(e.code(), "forge::cook::body", "{e}");
        assert!(
            e.to_string().contains(&expected),
            "{e}, expected {expected}"
        );
        assert!(e.to_string().contains("not UTF-8"), "{e}");
    }
    // Only the late one: it is found too.
    let mut damaged = bytes.clone();
    damaged[late] = 0xFF;
    reseal(&mut damaged);
    let e = CookedScene::decode(&damaged).unwrap_err();
    let expected =
        format!("layout at byte {late} of the file, in entity {late_key} of the scene: ");
    assert!(
        e.to_string().contains(&expected),
        "{e}, expected {expected}"
    );
}

#[test]
fn twin_paths_replace_the_extension() {
    assert_eq!(
        twin_path("levels/one.forge.ron").as_deref(),
        Some("levels/one.forge.bin")
    );
    assert_eq!(twin_path("levels/one.ron"), None);
    assert_eq!(
        text_path("levels/one.forge.bin").as_deref(),
        Some("levels/one.forge.ron")
    );
    assert_eq!(text_path("levels/oneforge.bin"), None);
    for path in ["a.forge.ron", "x/y z.forge.ron"] {
        assert_eq!(text_path(&twin_path(path).unwrap()).as_deref(), Some(path));
    }
}

// ---- through the asset server ----

/// A custom component and a child, for comparing what text and cooked bytes spawn.
fn scene_text(speed: f32) -> String {
    format!(
        "(format_version: 1, name: \"Cooked\", entities: {{
  1: (id: 1, name: \"Planet\", parent: None, children: [2], transform: (translation: (x: 1, y: 2, z: 3), rotation: (x: 0, y: 90, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(type: custom, data: (type_path: \"forge_demo::Orbit\", fields: [(name: \"speed\", expr: \"{speed:?}\"), (name: \"axis\", expr: \"Vec3::Y\")]))]),
  2: (id: 2, name: \"Moon\", parent: Some(1), children: [], transform: (translation: (x: 4, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(type: visibility, data: hidden)]),
}}, roots: [1], next_id: 3)"
    )
}

/// One spawned entity: name, transform, orbit (speed, axis y), child count, id path.
type Spawned = (
    String,
    Transform,
    Option<(f32, f32)>,
    usize,
    Option<Vec<u64>>,
);

/// What an instance spawned, entity by entity by key.
fn spawned(world: &World, instance: &ForgeSceneInstance) -> Vec<Spawned> {
    let mut out: Vec<_> = instance
        .iter()
        .map(|(key, e)| {
            (
                key,
                (
                    world.get::<Name>(e).unwrap().as_str().to_owned(),
                    *world.get::<Transform>(e).unwrap(),
                    world.get::<Orbit>(e).map(|o| (o.speed, o.axis.y)),
                    world.get::<Children>(e).map_or(0, |c| c.len()),
                    world.get::<ForgeEntityPath>(e).map(|p| p.0.clone()),
                ),
            )
        })
        .collect();
    out.sort_by_key(|(key, _)| *key);
    out.into_iter().map(|(_, v)| v).collect()
}

#[test]
fn a_cooked_scene_spawns_what_its_text_spawns() {
    let mut h = Harness::new();
    let text = scene_text(2.5);
    h.add("level.forge.ron", &text);
    h.add_bytes(
        "level.forge.bin",
        &cooked("level.forge.ron", &text).encode(),
    );
    let (_, from_text) = h.spawn_scene("level.forge.ron");
    let (_, from_bytes) = h.spawn_scene("level.forge.bin");
    let (a, b) = (
        spawned(h.world(), &from_text),
        spawned(h.world(), &from_bytes),
    );
    assert_eq!(a.len(), 2);
    assert_eq!(a, b);
    assert_eq!(a[0].2, Some((2.5, 1.0)));
}

#[test]
fn bundled_prefabs_spawn_by_id_path_without_their_files() {
    let mut h = Harness::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    // The text form, with its prefab files.
    for p in ["scenes/castle_gate.forge.ron", "prefabs/sentry.forge.ron"] {
        h.add(p, &read(p));
    }
    let (_, from_text) = h.spawn_scene("scenes/castle_gate.forge.ron");
    // The cooked form alone, under another folder: no prefab file there.
    let scene = CookedScene {
        prefabs: vec![(
            "prefabs/sentry.forge.ron".to_owned(),
            SceneDoc::from_str(&read("prefabs/sentry.forge.ron"))
                .unwrap()
                .doc,
        )],
        ..cooked(
            "scenes/castle_gate.forge.ron",
            &read("scenes/castle_gate.forge.ron"),
        )
    };
    h.add_bytes("shipped/castle_gate.forge.bin", &scene.encode());
    let (_, from_bytes) = h.spawn_scene("shipped/castle_gate.forge.bin");
    assert_eq!(from_text.len(), 13);
    assert_eq!(
        spawned(h.world(), &from_text),
        spawned(h.world(), &from_bytes)
    );
    assert!(from_bytes.entity_path(&[9, 2]).is_some());
}

/// The load error of `path`.
fn load_error(h: &mut Harness, path: &str) -> String {
    let handle: Handle<ForgeScene> = h.load(path);
    let server = h.world().resource::<AssetServer>().clone();
    h.run_until(|_| matches!(server.load_state(&handle), LoadState::Failed(_)));
    let LoadState::Failed(error) = server.load_state(&handle) else {
        unreachable!()
    };
    let scene_error = ForgeSceneLoadError::from_asset_error(&error).expect("a scene error");
    let codes: Vec<_> = scene_error.diagnostics().iter().map(|d| d.code).collect();
    format!("{codes:?} {scene_error}")
}

#[test]
fn damaged_cooked_files_fail_with_what_is_wrong() {
    let mut h = Harness::new();
    let bytes = cooked("level.forge.ron", &scene_text(1.0)).encode();
    h.add_bytes("cut.forge.bin", &bytes[..bytes.len() / 2]);
    let cut = load_error(&mut h, "cut.forge.bin");
    assert!(cut.contains("forge::cook::truncated"), "{cut}");
    assert!(cut.contains("cut.forge.bin"), "{cut}");
    let mut flipped = bytes.clone();
    flipped[COOKED_HEADER_LEN + 10] ^= 0x40;
    h.add_bytes("flipped.forge.bin", &flipped);
    let flipped = load_error(&mut h, "flipped.forge.bin");
    assert!(flipped.contains("forge::cook::checksum"), "{flipped}");
}

#[test]
fn a_cooked_file_that_breaks_a_rule_gets_the_texts_diagnostic() {
    let mut h = Harness::new();
    // Entity 2 says its parent is 1, but 1 does not list it: a forest rule.
    let text = scene_text(1.0).replace("children: [2]", "children: []");
    h.add("bad.forge.ron", &text);
    let from_text = load_error(&mut h, "bad.forge.ron");
    h.add_bytes("bad.forge.bin", &cooked("bad.forge.ron", &text).encode());
    let from_bytes = load_error(&mut h, "bad.forge.bin");
    let codes = |s: &str| s.split(' ').next().unwrap().to_owned();
    assert_eq!(codes(&from_text), codes(&from_bytes));
    assert!(
        from_bytes.contains("bad.forge.bin (cooked from bad.forge.ron)"),
        "{from_bytes}"
    );
    // The same entity and field path, without a line.
    let handle: Handle<ForgeScene> = h.load("bad.forge.bin");
    let server = h.world().resource::<AssetServer>().clone();
    h.run_until(|_| matches!(server.load_state(&handle), LoadState::Failed(_)));
    let LoadState::Failed(error) = server.load_state(&handle) else {
        unreachable!()
    };
    let d = ForgeSceneLoadError::from_asset_error(&error)
        .unwrap()
        .diagnostics();
    assert!(d.iter().all(|d| d.position.is_none()));
    assert!(
        d.iter().any(|d| d.entity.is_some() && d.path.is_some()),
        "{d:#?}"
    );
}

#[test]
fn a_cooked_scene_hot_reloads() {
    let mut h = Harness::new();
    h.add_bytes(
        "level.forge.bin",
        &cooked("level.forge.ron", &scene_text(1.0)).encode(),
    );
    let (root, instance) = h.spawn_scene("level.forge.bin");
    let planet = instance.entity(1).unwrap();
    h.modify_bytes(
        "level.forge.bin",
        &cooked("level.forge.ron", &scene_text(7.0)).encode(),
    );
    h.run_until(|w| w.get::<Orbit>(planet).is_some_and(|o| o.speed == 7.0));
    let after = h.world().get::<ForgeSceneInstance>(root).unwrap();
    assert_eq!(after.entity(1), Some(planet), "patched in place");
    // A damaged save keeps the last good scene.
    let mut bytes = cooked("level.forge.ron", &scene_text(9.0)).encode();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    h.modify_bytes("level.forge.bin", &bytes);
    for _ in 0..50 {
        h.app.update();
    }
    assert_eq!(h.world().get::<Orbit>(planet).unwrap().speed, 7.0);
}

#[test]
fn the_text_path_finds_the_twin_when_only_the_twin_ships() {
    let dir = Dir::default();
    dir.insert_asset(
        Path::new("only/level.forge.bin"),
        cooked("only/level.forge.ron", &scene_text(3.0)).encode(),
    );
    // Both forms: the text wins.
    dir.insert_asset_text(Path::new("both/level.forge.ron"), &scene_text(4.0));
    dir.insert_asset(
        Path::new("both/level.forge.bin"),
        cooked("both/level.forge.ron", &scene_text(5.0)).encode(),
    );
    let mut app = twin_app(&dir);
    let (state, only) = load_state(&mut app, "only/level.forge.ron");
    assert!(matches!(state, LoadState::Loaded));
    let (state, both) = load_state(&mut app, "both/level.forge.ron");
    assert!(matches!(state, LoadState::Loaded));
    let speed = |app: &App, handle: &Handle<ForgeScene>| {
        let scenes = app.world().resource::<bevy_asset::Assets<ForgeScene>>();
        let scene = scenes.get(handle).unwrap();
        let planet = scene.doc().entity(1).unwrap();
        match &planet.components[0] {
            ComponentData::Custom(CustomComponent { fields, .. }) => fields
                .iter()
                .find(|f: &&CustomField| f.name == "speed")
                .unwrap()
                .expr
                .to_string(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(speed(&app, &only), "3.0");
    assert_eq!(speed(&app, &both), "4.0");
    // Neither form: the error names the path asked for.
    let (LoadState::Failed(error), _) = load_state(&mut app, "none/level.forge.ron") else {
        panic!("a missing scene loaded")
    };
    assert!(
        error.to_string().contains("none/level.forge.ron"),
        "{error}"
    );
}

// ---- Bevy's asset processor ----

#[test]
fn the_asset_processor_writes_cooked_twins_that_load() {
    let source = tempfile::tempdir().unwrap();
    let processed = tempfile::tempdir().unwrap();
    std::fs::write(source.path().join("good.forge.ron"), scene_text(6.0)).unwrap();
    // Entity 2 names a parent that does not list it: processing refuses it.
    std::fs::write(
        source.path().join("bad.forge.ron"),
        scene_text(6.0).replace("children: [2]", "children: []"),
    )
    .unwrap();
    let mut app = processed_app(source.path(), processed.path());
    let (state, good) = load_state(&mut app, "good.forge.ron");
    assert!(matches!(state, LoadState::Loaded), "{state:?}");
    let bytes = std::fs::read(processed.path().join("good.forge.ron")).unwrap();
    assert!(is_cooked(&bytes), "the processed file is the cooked twin");
    let cooked = CookedScene::decode(&bytes).unwrap();
    assert_eq!(cooked.source, "good.forge.ron");
    assert_eq!(
        cooked.doc,
        SceneDoc::from_str(&scene_text(6.0)).unwrap().doc
    );
    let scenes = app.world().resource::<bevy_asset::Assets<ForgeScene>>();
    assert_eq!(scenes.get(&good).unwrap().doc(), &cooked.doc);
    let (state, _) = load_state(&mut app, "bad.forge.ron");
    assert!(matches!(state, LoadState::Failed(_)), "{state:?}");
    // Bevy may leave an empty file where processing failed; never a cooked scene.
    let written = std::fs::read(processed.path().join("bad.forge.ron")).unwrap_or_default();
    assert!(!is_cooked(&written), "{} bytes written", written.len());
}

#[test]
fn a_bundled_prefabs_own_errors_fail_the_cooked_load_as_they_fail_the_text() {
    let mut h = Harness::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    // The sentry prefab's field misspelled: the gate places it twice.
    let sentry = read("prefabs/sentry.forge.ron").replace("name: \"post\"", "name: \"postt\"");
    assert_ne!(sentry, read("prefabs/sentry.forge.ron"));
    let gate = read("scenes/castle_gate.forge.ron");
    h.add("scenes/castle_gate.forge.ron", &gate);
    h.add("prefabs/sentry.forge.ron", &sentry);
    let from_text = common::scenes::load_errors(&mut h, "scenes/castle_gate.forge.ron");
    let scene = CookedScene {
        prefabs: vec![(
            "prefabs/sentry.forge.ron".to_owned(),
            SceneDoc::from_str(&sentry).unwrap().doc,
        )],
        ..cooked("scenes/castle_gate.forge.ron", &gate)
    };
    h.add_bytes("shipped/castle_gate.forge.bin", &scene.encode());
    let from_bytes = common::scenes::load_errors(&mut h, "shipped/castle_gate.forge.bin");
    let field_errors = |ds: &[bevy_forge_scene::validate::Diagnostic]| {
        ds.iter()
            .filter(|d| d.code == "forge::custom::unknown_field")
            .map(|d| (d.file.clone(), d.entity))
            .collect::<Vec<_>>()
    };
    let expected = vec![(Some("prefabs/sentry.forge.ron".to_owned()), Some(1))];
    assert_eq!(field_errors(&from_text), expected, "{from_text:#?}");
    assert_eq!(field_errors(&from_bytes), expected, "once: {from_bytes:#?}");
}

// ---- tile layers ----

fn layer() -> impl Strategy<Value = bevy_forge_scene::format::TileLayer> {
    use bevy_forge_scene::format::{TileCell, TileLayer, TilePlane, Vec2Data, Vec3Data};
    (
        (
            1u64..1000,
            common::text(),
            proptest::option::of(any::<u64>()),
            any::<bool>(),
        ),
        (
            any::<f32>(),
            any::<f32>(),
            any::<f32>(),
            0u32..70000,
            0u32..5,
        ),
        proptest::collection::vec(("[a-zé#]", "[a-z/]{1,12}"), 0..3),
        proptest::collection::vec("[a-zé#.]{0,9}", 0..4),
        proptest::collection::vec((0u32..65536, 0u32..65536, "[a-z]"), 0..3),
        proptest::collection::vec(
            proptest::collection::vec(any::<u64>(), 1..5).prop_map(|target| Override {
                target,
                name: Some("Lit".into()),
                ..Override::default()
            }),
            0..2,
        ),
    )
        .prop_map(
            |((id, name, parent, xz), (a, b, c, i, j), palette, rows, cells, overrides)| {
                let mut l = TileLayer::new(id, name);
                l.parent = parent;
                l.plane = if xz { TilePlane::Xz } else { TilePlane::Xy };
                l.cell_size = Vec2Data::new(a, b);
                l.origin = Vec3Data::new(c, a, b);
                l.start = (i.min(65535), j);
                for (k, scene) in palette {
                    let k = k.chars().next().unwrap();
                    if !l.palette.iter().any(|(p, _)| *p == k) {
                        l.palette.push((k, format!("{scene}.forge.ron").into()));
                    }
                }
                l.rows = rows;
                l.cells = cells
                    .into_iter()
                    .map(|(i, j, k)| TileCell {
                        i,
                        j,
                        key: k.chars().next().unwrap(),
                    })
                    .collect();
                l.overrides = overrides;
                l
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any tile layers, of the scene and of its bundled prefabs, read back exactly.
    #[test]
    fn any_layers_read_back_exactly(
        doc in common::any_doc(),
        layers in proptest::collection::vec(layer(), 0..3),
        prefab_layers in proptest::collection::vec(layer(), 0..2),
    ) {
        let mut doc = doc;
        doc.layers = layers;
        let mut prefab = SceneDoc::new("Tile");
        prefab.layers = prefab_layers;
        let scene = CookedScene {
            source: "tiles.forge.ron".to_owned(),
            doc,
            prefabs: vec![("prefabs/tile.forge.ron".to_owned(), prefab)],
        };
        let bytes = scene.encode();
        prop_assert_eq!(CookedScene::decode(&bytes), Ok(scene));
    }
}

/// A scene without layers cooks to the bytes it cooked to before layers existed: the layers part
/// is left out, so the layout version did not change.
#[test]
fn a_scene_without_layers_has_no_layers_part() {
    let text = common::fixture_text("valid/garden.forge.ron");
    let plain = cooked("garden.forge.ron", &text).encode();
    let mut with = cooked("garden.forge.ron", &text);
    with.doc
        .layers
        .push(bevy_forge_scene::format::TileLayer::new(900, "Layer"));
    let layered = with.encode();
    assert_eq!(bevy_forge_scene::cook::COOKED_VERSION_UNSTAMPED, 3);
    assert!(layered.len() > plain.len());
    // Same bytes up to the layers part (the header's length and checksum aside).
    assert_eq!(
        plain[COOKED_HEADER_LEN..],
        layered[COOKED_HEADER_LEN..plain.len()]
    );
    assert_eq!(CookedScene::decode(&layered).unwrap(), with);
}

#[test]
fn a_cooked_layer_spawns_what_its_text_spawns() {
    let mut h = Harness::new();
    let grass = "(format_version: 1, name: \"Grass\", entities: {1: (id: 1, name: \"Grass\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [])}, roots: [1], next_id: 2)";
    let level = "(format_version: 1, name: \"L\", entities: {}, roots: [], next_id: 3, layers: [(id: 2, plane: xy, cell_size: (x: 1, y: 1), palette: {\"g\": \"prefabs/grass.forge.ron\"}, rows: [\"g.g\", \"ggg\"])])";
    h.add("prefabs/grass.forge.ron", grass);
    h.add("level.forge.ron", level);
    let (_, from_text) = h.spawn_scene("level.forge.ron");
    let scene = CookedScene {
        prefabs: vec![(
            "prefabs/grass.forge.ron".to_owned(),
            SceneDoc::from_str(grass).unwrap().doc,
        )],
        ..cooked("level.forge.ron", level)
    };
    h.add_bytes("shipped/level.forge.bin", &scene.encode());
    let (_, from_bytes) = h.spawn_scene("shipped/level.forge.bin");
    assert_eq!(from_text.len(), 1 + 5);
    assert_eq!(
        spawned(h.world(), &from_text),
        spawned(h.world(), &from_bytes)
    );
    assert!(from_bytes.entity_path(&[2, 2, 1, 1]).is_some());
}
