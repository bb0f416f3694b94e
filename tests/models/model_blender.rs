//! Placed glTF models as Blender writes them (feature `gltf`): `tests/fixtures/models/cart.gltf`
//! mirrors Blender 4.2 LTS's exporter (Khronos glTF Blender I/O 4.2): every light named
//! (`Point`, `Spot`) and so its entity named after it, a camera node, node names with spaces,
//! dots and non-ASCII letters, two Blender scenes (`Scene0`, `Scene1`). Each test asserts what
//! the crate does with one of these shapes at run time, through the stand-in loader of
//! `tests/common/stand_in_gltf.rs` (Bevy's own `GltfPlugin` runs the same in
//! `render-tests/tests/testsuite/models_blender.rs`).
#![cfg(feature = "gltf")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::stand_in_gltf;

use std::sync::{Arc, Mutex};

use bevy_camera::Camera;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeModelNodes;
use bevy_forge_scene::prelude::*;
use bevy_light::{PointLight, SpotLight};
use bevy_transform::components::Transform;
use common::Orbit;
use common::harness::Harness;

const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

fn cart_text() -> String {
    common::fixture_text("models/cart.gltf")
}

/// A scene: the game's camera (1), and entity 5 placing `model` with `overrides` (RON, each
/// ending in a comma).
fn scene(model: &str, overrides: &str) -> String {
    format!(
        r#"(
  format_version: 1,
  name: "Yard",
  entities: {{
    1: (id: 1, name: "Camera", parent: None, children: [], {T}, components: [(type: camera3d)]),
    5: (id: 5, name: "Cart", parent: None, children: [], {T}, components: [],
        instance: Some((
          model: "{model}",
          overrides: [
            {overrides}
          ],
        ))),
  }},
  roots: [1, 5],
  next_id: 6,
)"#
    )
}

fn harness() -> Harness {
    Harness::with_setup(|app| {
        stand_in_gltf::add_to(app).register_type::<Orbit>();
    })
}

/// The yard with the cart (`cart.gltf#Scene0`) and `overrides`, spawned and its model written:
/// the harness, the root and the cart's instance entity.
fn started(overrides: &str) -> (Harness, Entity, Entity) {
    let mut h = harness();
    h.add("models/cart.gltf", &cart_text());
    h.add(
        "yard.forge.ron",
        &scene("models/cart.gltf#Scene0", overrides),
    );
    let (root, instance) = h.spawn_scene("yard.forge.ron");
    let cart = instance.entity(5).unwrap();
    h.run_until(|w| w.get::<ForgeModelNodes>(cart).is_some());
    (h, root, cart)
}

fn node(h: &Harness, cart: Entity, path: &[&str]) -> Entity {
    h.world()
        .get::<ForgeModelNodes>(cart)
        .unwrap()
        .node(path)
        .unwrap_or_else(|| panic!("no node {path:?}"))
}

fn name(h: &Harness, e: Entity) -> Option<String> {
    h.world().get::<Name>(e).map(|n| n.as_str().to_owned())
}

/// Lumens of a light of `candela` as Bevy 0.20.1's glTF loader converts them (`4π` times).
fn lumens(candela: f32) -> f32 {
    candela * 4.0 * std::f32::consts::PI
}

/// The candela Blender 4.2 writes for a 1000 W light (`cart.gltf`'s two lights).
const BLENDER_1000_W: f32 = 54.351_413;

#[test]
fn a_set_on_a_light_node_reaches_its_named_light_entity() {
    let (h, _, cart) = started(
        r#"(target: ["Cart", "Lantern"], set: [(type: point_light, data: (intensity: 1234.0))]),
            (target: ["Cart", "Headlight"], set: [(type: spot_light, data: (intensity: 567.0))]),"#,
    );
    // Bevy names the light's entity after the glTF light, under its node.
    let point = node(&h, cart, &["Cart", "Lantern", "Point"]);
    assert_eq!(
        h.world().get::<ChildOf>(point).unwrap().parent(),
        node(&h, cart, &["Cart", "Lantern"])
    );
    let light = h.world().get::<PointLight>(point).unwrap();
    assert_eq!(
        light.intensity, 1234.0,
        "the override reached the named light"
    );
    assert_eq!(
        light.color,
        bevy_color::Color::srgb(1.0, 0.8, 0.5),
        "the model's colour stays"
    );
    let spot = node(&h, cart, &["Cart", "Headlight", "Spot"]);
    assert_eq!(h.world().get::<SpotLight>(spot).unwrap().intensity, 567.0);
}

#[test]
fn the_light_entitys_own_path_reaches_it_too_and_a_rename_there_keeps_the_nodes_set() {
    let (h, _, cart) = started(
        r#"(target: ["Cart", "Lantern"], set: [(type: point_light, data: (intensity: 1234.0))]),
            (target: ["Cart", "Lantern", "Point"], name: Some("Bulb")),
            (target: ["Cart", "Headlight", "Spot"], set: [(type: spot_light, data: (range: 9.0))]),"#,
    );
    let point = node(&h, cart, &["Cart", "Lantern", "Point"]);
    assert_eq!(name(&h, point).as_deref(), Some("Bulb"));
    assert_eq!(
        h.world().get::<PointLight>(point).unwrap().intensity,
        1234.0
    );
    let spot = h
        .world()
        .get::<SpotLight>(node(&h, cart, &["Cart", "Headlight", "Spot"]))
        .unwrap();
    assert_eq!(spot.range, 9.0);
    assert_eq!(
        spot.intensity,
        lumens(BLENDER_1000_W),
        "the model's intensity, converted as Bevy converts it"
    );
}

/// A subscriber for this thread keeping what is logged (the model writes run on it).
fn logs() -> (Arc<Mutex<Vec<u8>>>, tracing::subscriber::DefaultGuard) {
    #[derive(Clone)]
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let kept = Arc::new(Mutex::new(Vec::new()));
    let sink = Sink(kept.clone());
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .with_writer(move || sink.clone())
        .finish();
    (kept, tracing::subscriber::set_default(subscriber))
}

#[test]
fn a_built_in_the_node_and_its_light_lack_is_a_warning_at_the_override_naming_what_they_have() {
    let (log, _guard) = logs();
    let overrides = r#"(target: ["Cart", "Lantern"], set: [(type: spot_light, data: (intensity: 5.0))]),
            (target: ["Cart", "Headlight"], remove: ["point_light"]),"#;
    let (h, _, cart) = started(overrides);
    let text = scene("models/cart.gltf#Scene0", overrides);
    let log = String::from_utf8(log.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("forge::model::no_component"))
        .collect();
    assert_eq!(lines.len(), 2, "{log}");
    // At the override's `(`, in the scene file.
    let at = |needle: &str| {
        let at = text.find(needle).unwrap();
        let line = text[..at].matches('\n').count() + 1;
        let column = at - text[..at].rfind('\n').unwrap();
        format!("yard.forge.ron:{line}:{column}: ")
    };
    assert!(
        lines[0].contains(&at(r#"(target: ["Cart", "Lantern"]"#)),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].contains("its light entity `Point` has point_light"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains(&at(r#"(target: ["Cart", "Headlight"]"#)),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].contains("its light entity `Spot` has spot_light"),
        "{}",
        lines[1]
    );
    // Nothing changed on the lights.
    let point = node(&h, cart, &["Cart", "Lantern", "Point"]);
    assert!(h.world().get::<SpotLight>(point).is_none());
    assert_eq!(
        h.world().get::<PointLight>(point).unwrap().intensity,
        lumens(BLENDER_1000_W)
    );
    let spot = node(&h, cart, &["Cart", "Headlight", "Spot"]);
    assert!(h.world().get::<SpotLight>(spot).is_some());
}

/// Every camera of the world that renders.
fn active_cameras(w: &mut World) -> Vec<Entity> {
    w.query::<(Entity, &Camera)>()
        .iter(w)
        .filter(|(_, c)| c.is_active)
        .map(|(e, _)| e)
        .collect()
}

#[test]
fn a_placed_models_camera_does_not_render_and_one_the_game_switches_on_stays_on() {
    let (mut h, root, cart) = started("");
    let game_camera = h
        .world()
        .get::<ForgeSceneInstance>(root)
        .unwrap()
        .entity(1)
        .unwrap();
    let model_camera = node(&h, cart, &["Camera"]);
    assert!(
        h.world().get::<Camera>(model_camera).is_some(),
        "the model's camera is written"
    );
    assert_eq!(
        active_cameras(h.app.world_mut()),
        vec![game_camera],
        "only the game's camera renders"
    );
    // The game switches the model's camera on; a re-export keeps it on.
    h.app
        .world_mut()
        .get_mut::<Camera>(model_camera)
        .unwrap()
        .is_active = true;
    h.modify(
        "models/cart.gltf",
        &cart_text().replace("\"Front Wheel\"", "\"Left Wheel\""),
    );
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(cart)
            .is_some_and(|n| n.node(&["Cart", "Left Wheel"]).is_some())
    });
    assert_eq!(node(&h, cart, &["Camera"]), model_camera);
    let mut active = active_cameras(h.app.world_mut());
    active.sort();
    let mut expected = vec![game_camera, model_camera];
    expected.sort();
    assert_eq!(active, expected);
}

#[test]
fn node_names_with_spaces_dots_and_non_ascii_letters_take_their_overrides() {
    let (h, _, cart) = started(
        r#"(target: ["Cart", "Front Wheel"], name: Some("Left front")),
            (target: ["Cart", "Wheel.001"], transform: Some((translation: (x: 0, y: 2, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)))),
            (target: ["Cart", "Kürbis.002"], add: [(type: custom, data: (type_path: "forge_demo::Orbit", fields: [(name: "radius", expr: "3.0"), (name: "speed", expr: "1.0")]))]),"#,
    );
    let wheel = node(&h, cart, &["Cart", "Front Wheel"]);
    assert_eq!(name(&h, wheel).as_deref(), Some("Left front"));
    let other = node(&h, cart, &["Cart", "Wheel.001"]);
    assert_eq!(
        h.world().get::<Transform>(other).unwrap().translation.y,
        2.0
    );
    let pumpkin = node(&h, cart, &["Cart", "Kürbis.002"]);
    assert_eq!(h.world().get::<Orbit>(pumpkin).unwrap().radius, 3.0);
}

#[test]
fn each_scene_of_a_file_with_two_is_placed_by_its_label_and_a_re_export_reaches_both() {
    let mut h = harness();
    h.add("models/cart.gltf", &cart_text());
    let text = scene("models/cart.gltf#Scene0", "").replace(
        "  },\n  roots: [1, 5],\n  next_id: 6,",
        &format!(
            "    8: (id: 8, name: \"Crate\", parent: None, children: [], {T}, components: [], instance: Some((model: \"models/cart.gltf#Scene1\", overrides: [(target: [\"Crate\"], name: Some(\"Box\"))]))),\n  }},\n  roots: [1, 5, 8],\n  next_id: 9,"
        ),
    );
    assert!(text.contains("Scene1"), "{text}");
    h.add("yard.forge.ron", &text);
    let (_, instance) = h.spawn_scene("yard.forge.ron");
    let (cart, crate_) = (instance.entity(5).unwrap(), instance.entity(8).unwrap());
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(cart).is_some() && w.get::<ForgeModelNodes>(crate_).is_some()
    });
    // Each scene's root entity is named after its glTF scene, as Bevy names it.
    let root_of = |h: &Harness, e: Entity| name(h, node(h, e, &[]));
    assert_eq!(root_of(&h, cart).as_deref(), Some("Scene"));
    assert_eq!(root_of(&h, crate_).as_deref(), Some("Scene.001"));
    let boxed = node(&h, crate_, &["Crate"]);
    assert_eq!(name(&h, boxed).as_deref(), Some("Box"));
    assert!(
        h.world()
            .get::<ForgeModelNodes>(crate_)
            .unwrap()
            .node(&["Cart"])
            .is_none(),
        "Scene1 holds only the crate"
    );
    // A change of the file (its path, as a file watcher reports it) reaches both labels.
    h.modify(
        "models/cart.gltf",
        &cart_text()
            .replace("\"Front Wheel\"", "\"Left Wheel\"")
            .replace(
                "\"name\": \"Crate\"",
                "\"name\": \"Crate\", \"translation\": [0, 4, 0]",
            ),
    );
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(cart)
            .is_some_and(|n| n.node(&["Cart", "Left Wheel"]).is_some())
            && w.get::<Transform>(boxed)
                .is_some_and(|t| t.translation.y == 4.0)
    });
    assert_eq!(
        node(&h, crate_, &["Crate"]),
        boxed,
        "the crate's entity stays"
    );
    assert_eq!(
        name(&h, boxed).as_deref(),
        Some("Box"),
        "its override again"
    );
}

#[test]
fn a_reload_of_the_files_path_reaches_the_placed_models_without_a_watcher() {
    use bevy_app::{App, TaskPoolPlugin};
    use bevy_asset::io::memory::{Dir, MemoryAssetReader};
    use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
    use bevy_asset::{AssetApp, AssetPlugin, AssetServer};
    // An app whose asset server does not watch: a game or a tool calls
    // `AssetServer::reload("models/cart.gltf")` itself, as the file watcher would.
    let dir = Dir::default();
    dir.insert_asset_text(std::path::Path::new("models/cart.gltf"), &cart_text());
    dir.insert_asset_text(
        std::path::Path::new("yard.forge.ron"),
        &scene("models/cart.gltf#Scene0", ""),
    );
    let reader = dir.clone();
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || {
            Box::new(MemoryAssetReader {
                root: reader.clone(),
            })
        }),
    )
    .add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    stand_in_gltf::add_to(&mut app);
    app.finish();
    app.cleanup();
    let mut h = Harness::from_app(app, dir);
    let (_, instance) = h.spawn_scene("yard.forge.ron");
    let cart = instance.entity(5).unwrap();
    h.run_until(|w| w.get::<ForgeModelNodes>(cart).is_some());
    let lantern = node(&h, cart, &["Cart", "Lantern"]);
    h.add(
        "models/cart.gltf",
        &cart_text().replace("\"Front Wheel\"", "\"Left Wheel\""),
    );
    h.world()
        .resource::<AssetServer>()
        .reload("models/cart.gltf");
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(cart)
            .is_some_and(|n| n.node(&["Cart", "Left Wheel"]).is_some())
    });
    assert_eq!(
        node(&h, cart, &["Cart", "Lantern"]),
        lantern,
        "kept by path"
    );
}

#[test]
fn a_models_file_is_read_once_for_every_instance_and_scene_of_it() {
    // A file of its own: the tests of this binary run side by side.
    let mut h = harness();
    h.add("models/counted.gltf", &cart_text());
    let text = scene("models/counted.gltf#Scene0", "").replace(
        "  },\n  roots: [1, 5],\n  next_id: 6,",
        &format!(
            "    8: (id: 8, name: \"Crate\", parent: None, children: [], {T}, components: [], instance: Some((model: \"models/counted.gltf#Scene1\"))),\n    9: (id: 9, name: \"Cart 2\", parent: None, children: [], {T}, components: [], instance: Some((model: \"models/counted.gltf#Scene0\"))),\n  }},\n  roots: [1, 5, 8, 9],\n  next_id: 10,"
        ),
    );
    h.add("yard.forge.ron", &text);
    let (_, instance) = h.spawn_scene("yard.forge.ron");
    let placed: Vec<Entity> = [5, 8, 9]
        .iter()
        .map(|id| instance.entity(*id).unwrap())
        .collect();
    h.run_until(|w| {
        placed
            .iter()
            .all(|e| w.get::<ForgeModelNodes>(*e).is_some())
    });
    let reads = |path: &str| {
        stand_in_gltf::reads()
            .lock()
            .unwrap()
            .get(path)
            .copied()
            .unwrap_or(0)
    };
    assert_eq!(reads("models/counted.gltf"), 1);
    // A re-export: read once more, every instance patched.
    h.modify(
        "models/counted.gltf",
        &cart_text().replace("\"Front Wheel\"", "\"Left Wheel\""),
    );
    h.run_until(|w| {
        [placed[0], placed[2]].iter().all(|e| {
            w.get::<ForgeModelNodes>(*e)
                .is_some_and(|n| n.node(&["Cart", "Left Wheel"]).is_some())
        })
    });
    assert_eq!(reads("models/counted.gltf"), 2);
}

#[test]
fn a_broken_file_is_reported_once_and_a_fixed_one_spawns() {
    let (log, _guard) = logs();
    let mut h = harness();
    h.add("models/broken.gltf", "{ not a model");
    let text = scene("models/broken.gltf#Scene0", "").replace(
        "  },\n  roots: [1, 5],\n  next_id: 6,",
        &format!(
            "    8: (id: 8, name: \"Crate\", parent: None, children: [], {T}, components: [], instance: Some((model: \"models/broken.gltf#Scene1\"))),\n  }},\n  roots: [1, 5, 8],\n  next_id: 9,"
        ),
    );
    h.add("yard.forge.ron", &text);
    let (_, instance) = h.spawn_scene("yard.forge.ron");
    let (cart, crate_) = (instance.entity(5).unwrap(), instance.entity(8).unwrap());
    let reported = |log: &Arc<Mutex<Vec<u8>>>| {
        let log = String::from_utf8(log.lock().unwrap().clone()).unwrap();
        log.lines()
            .filter(|l| l.contains("did not load"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    h.run_until(|_| reported(&log).len() >= 2);
    // Some frames more: nothing else is reported.
    for _ in 0..50 {
        h.app.update();
        std::thread::yield_now();
    }
    let lines = reported(&log);
    assert_eq!(lines.len(), 2, "once per instance: {lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("broken.gltf#Scene0") && l.contains("entity 5"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("broken.gltf#Scene1") && l.contains("entity 8"))
    );
    h.modify("models/broken.gltf", &cart_text());
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(cart).is_some() && w.get::<ForgeModelNodes>(crate_).is_some()
    });
    assert_eq!(reported(&log).len(), 2);
}
