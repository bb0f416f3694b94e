//! Placed glTF models as Blender writes them, through Bevy's own `GltfPlugin`: the library's
//! `tests/fixtures/models/cart.gltf` and `cart.glb` mirror Blender 4.2's exporter (named
//! lights `Point` and `Spot`, a camera node, custom properties as `extras`, node names with
//! spaces, dots and non-ASCII letters, two scenes, the `.glb`'s texture inside it).
//!
//! - Two carts, one overriding each light's intensity: the overridden lights change, the
//!   others keep the file's values as Bevy converts them.
//! - A re-export on disk, `.gltf` and `.glb`, under Bevy's real file watcher: the placed
//!   instances are patched by node path (entities kept where the path stays, the game's
//!   component kept, overrides applied again). Every wait is an update loop bounded by time
//!   that ends when its condition holds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bevy_app::App;
use bevy_asset::io::memory::Dir;
use bevy_asset::{AssetServer, Assets};
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeModelNodes;
use bevy_forge_scene::prelude::*;
use bevy_internal::camera::Camera;
use bevy_internal::gltf::{GltfExtras, GltfMaterial, GltfMaterialName};
use bevy_internal::light::{PointLight, SpotLight};

const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

/// The candela `cart.gltf`'s two lights have: what Blender 4.2 writes for a 1000 W light.
const CANDELA: f32 = 54.351_413;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/models")
        .join(name)
}

/// One entity placing `model` with `overrides` (RON, each ending in a comma).
fn placing(id: u64, name: &str, model: &str, overrides: &str) -> String {
    format!(
        "    {id}: (id: {id}, name: \"{name}\", parent: None, children: [], {T}, components: [],\n        instance: Some((model: \"{model}\", overrides: [{overrides}]))),\n"
    )
}

fn scene(entities: &[String]) -> String {
    let roots: Vec<String> = entities
        .iter()
        .map(|e| e.trim_start().split(':').next().unwrap().to_owned())
        .collect();
    format!(
        "(\n  format_version: 1,\n  name: \"Yard\",\n  entities: {{\n{}  }},\n  roots: [{}],\n  next_id: 100,\n)\n",
        entities.concat(),
        roots.join(", ")
    )
}

const LIGHTS_OVERRIDDEN: &str = r#"
          (target: ["Cart", "Lantern"], set: [(type: point_light, data: (intensity: 1234.0))]),
          (target: ["Cart", "Headlight"], set: [(type: spot_light, data: (intensity: 567.0))]),
          (target: ["Cart", "Kürbis.002"], name: Some("Pumpkin")),
        "#;

/// Updates `app` until `done` holds, for at most `limit`.
fn update_until(app: &mut App, limit: Duration, mut done: impl FnMut(&mut World) -> bool) {
    let start = Instant::now();
    while start.elapsed() < limit {
        app.update();
        if done(app.world_mut()) {
            return;
        }
        std::thread::yield_now();
    }
    panic!("not reached in {limit:?}");
}

fn instance_entity(app: &App, root: Entity, id: u64) -> Entity {
    app.world()
        .get::<ForgeSceneInstance>(root)
        .and_then(|i| i.entity(id))
        .unwrap()
}

fn node(app: &App, placed: Entity, path: &[&str]) -> Entity {
    app.world()
        .get::<ForgeModelNodes>(placed)
        .unwrap()
        .node(path)
        .unwrap_or_else(|| panic!("no {path:?}"))
}

/// Spawns `scene_text` (as `yard.forge.ron`) in `app` and waits for the models of `ids`.
fn spawn_yard(app: &mut App, ids: &[u64]) -> Entity {
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("yard.forge.ron");
    let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    update_until(app, Duration::from_secs(60), |w| {
        let Some(instance) = w.get::<ForgeSceneInstance>(root) else {
            return false;
        };
        ids.iter().all(|id| {
            instance
                .entity(*id)
                .is_some_and(|e| w.get::<ForgeModelNodes>(e).is_some())
        })
    });
    root
}

#[test]
fn named_point_and_spot_lights_placed_twice_take_one_instances_overrides_and_keep_the_files_values_in_the_other()
 {
    let dir = Dir::default();
    for file in ["cart.gltf", "cart.glb"] {
        dir.insert_asset(
            Path::new("models").join(file).as_path(),
            std::fs::read(fixture(file)).unwrap(),
        );
    }
    let text = scene(&[
        placing(5, "Cart", "models/cart.glb#Scene0", LIGHTS_OVERRIDDEN),
        placing(8, "Other cart", "models/cart.glb#Scene0", ""),
        placing(9, "Crate", "models/cart.gltf#Scene1", ""),
    ]);
    dir.insert_asset_text(Path::new("yard.forge.ron"), &text);
    let mut app = bevy_forge_scene_render_tests::model_app(dir);
    let root = spawn_yard(&mut app, &[5, 8, 9]);
    let (cart, other) = (instance_entity(&app, root, 5), instance_entity(&app, root, 8));
    let world = app.world();

    // Bevy names each light's entity after Blender's light, under its node.
    let light = |placed: Entity, node_name: &str, light_name: &str| {
        let e = node(&app, placed, &["Cart", node_name, light_name]);
        assert_eq!(
            world.get::<ChildOf>(e).unwrap().parent(),
            node(&app, placed, &["Cart", node_name])
        );
        assert_eq!(world.get::<Name>(e).unwrap().as_str(), light_name);
        e
    };
    let point = world
        .get::<PointLight>(light(cart, "Lantern", "Point"))
        .unwrap();
    let spot = world
        .get::<SpotLight>(light(cart, "Headlight", "Spot"))
        .unwrap();
    assert_eq!(point.intensity, 1234.0, "the override reached the named light");
    assert_eq!(spot.intensity, 567.0);
    // The fields no override sets keep the file's values, converted as Bevy converts them:
    // candela times 4π lumens, range 20 when the file has none, the colour as sRGB.
    assert_eq!(point.range, 20.0);
    assert_eq!(point.color, bevy_color::Color::srgb(1.0, 0.8, 0.5));
    // The file's outer cone angle is π/8.
    assert!((spot.outer_angle - std::f32::consts::FRAC_PI_8).abs() < 1e-6, "{spot:?}");
    assert!((spot.inner_angle - 0.333_794_2).abs() < 1e-6, "{spot:?}");
    let lumens = CANDELA * 4.0 * std::f32::consts::PI;
    let point = world
        .get::<PointLight>(light(other, "Lantern", "Point"))
        .unwrap();
    let spot = world
        .get::<SpotLight>(light(other, "Headlight", "Spot"))
        .unwrap();
    assert!((point.intensity - lumens).abs() < 0.01, "{point:?}");
    assert!((spot.intensity - lumens).abs() < 0.01, "{spot:?}");
    assert_eq!(point.color, bevy_color::Color::srgb(1.0, 0.8, 0.5));
    assert_eq!((spot.range, spot.radius), (20.0, 0.0));

    // Names with a space, a dot and a non-ASCII letter; the override renamed the pumpkin.
    for path in [["Cart", "Front Wheel"], ["Cart", "Wheel.001"]] {
        node(&app, cart, &path);
    }
    let pumpkin = node(&app, cart, &["Cart", "Kürbis.002"]);
    assert_eq!(world.get::<Name>(pumpkin).unwrap().as_str(), "Pumpkin");
    // Blender's custom properties, as Bevy's `GltfExtras`.
    let extras = world
        .get::<GltfExtras>(node(&app, cart, &["Cart"]))
        .unwrap();
    let extras: serde_json::Value = serde_json::from_str(&extras.value).unwrap();
    assert_eq!(extras["price"], 12);
    // The camera node has Bevy's camera, switched off: no placed model renders.
    let camera = node(&app, other, &["Camera"]);
    assert!(!world.get::<Camera>(camera).unwrap().is_active);
    let mut cameras = app.world_mut().query::<&Camera>();
    assert_eq!(
        cameras.iter(app.world()).filter(|c| c.is_active).count(),
        0,
        "no model camera renders"
    );
    // The `.glb`'s texture, inside the file, is the paint's base colour (Bevy's glTF material:
    // a game's `PbrPlugin` makes a `StandardMaterial` of it; this app has no renderer).
    let world = app.world();
    let primitive = node(&app, cart, &["Cart", "Cube.Paint"]);
    assert_eq!(
        world.get::<GltfMaterialName>(primitive).unwrap().0,
        "Paint"
    );
    let material = world
        .resource::<AssetServer>()
        .get_handle::<GltfMaterial>("models/cart.glb#Material0")
        .unwrap();
    let material = world
        .resource::<Assets<GltfMaterial>>()
        .get(&material)
        .unwrap();
    let texture = material.base_color_texture.as_ref().unwrap();
    let images = world.resource::<Assets<bevy_internal::image::Image>>();
    assert_eq!(images.get(texture).unwrap().width(), 2);
    // The file's second scene, by its label.
    let crate_ = instance_entity(&app, root, 9);
    assert_eq!(
        world
            .get::<Name>(node(&app, crate_, &[]))
            .unwrap()
            .as_str(),
        "Scene.001"
    );
    node(&app, crate_, &["Crate"]);
}

/// A game's component on a node.
#[derive(Component)]
struct Lit;

/// `cart.glb` with `from` written as `to` in its JSON chunk (its lengths made right again).
fn glb_with(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json = std::str::from_utf8(&bytes[20..20 + json_len]).unwrap();
    let mut json = json.trim_end().replace(from, to).into_bytes();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let bin = &bytes[20 + json_len..];
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + 8 + json.len() + bin.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(bin);
    out
}

/// The file `file` (`cart.gltf` or `cart.glb`) of a placed model changed on disk while the
/// game runs: Bevy's file watcher reports the file's path, and both placed carts are patched.
fn re_export_on_disk(file: &str) {
    let assets = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(assets.path().join("models")).unwrap();
    let original = std::fs::read(fixture(file)).unwrap();
    let on_disk = assets.path().join("models").join(file);
    std::fs::write(&on_disk, &original).unwrap();
    let model = format!("models/{file}#Scene0");
    let text = scene(&[
        placing(5, "Cart", &model, LIGHTS_OVERRIDDEN),
        placing(8, "Other cart", &model, ""),
    ]);
    std::fs::write(assets.path().join("yard.forge.ron"), text).unwrap();
    let mut app = bevy_forge_scene_render_tests::model_app_on_disk(assets.path());
    let root = spawn_yard(&mut app, &[5, 8]);
    let (cart, other) = (instance_entity(&app, root, 5), instance_entity(&app, root, 8));
    let lantern = node(&app, cart, &["Cart", "Lantern"]);
    let point = node(&app, cart, &["Cart", "Lantern", "Point"]);
    let wheel = node(&app, cart, &["Cart", "Front Wheel"]);
    let other_lantern = node(&app, other, &["Cart", "Lantern"]);
    app.world_mut().entity_mut(lantern).insert(Lit);

    // The artist renames a wheel and re-exports, over the file.
    let (from, to) = ("\"Front Wheel\"", "\"Left Wheel\"");
    let changed = match file.ends_with(".glb") {
        true => glb_with(&original, from, to),
        false => String::from_utf8(original)
            .unwrap()
            .replace(from, to)
            .into_bytes(),
    };
    std::fs::write(&on_disk, changed).unwrap();
    update_until(&mut app, Duration::from_secs(60), |w| {
        [cart, other].iter().all(|e| {
            w.get::<ForgeModelNodes>(*e)
                .is_some_and(|n| n.node(&["Cart", "Left Wheel"]).is_some())
        })
    });
    let world = app.world();
    // The renamed node is a new entity, the old one gone; the nodes that stay are the same
    // entities, with the game's component, and the overrides apply again.
    assert!(world.get_entity(wheel).is_err(), "the old wheel is despawned");
    assert_eq!(node(&app, cart, &["Cart", "Lantern"]), lantern);
    assert!(world.get::<Lit>(lantern).is_some(), "the game's component stays");
    assert_eq!(node(&app, cart, &["Cart", "Lantern", "Point"]), point);
    assert_eq!(world.get::<PointLight>(point).unwrap().intensity, 1234.0);
    let pumpkin = node(&app, cart, &["Cart", "Kürbis.002"]);
    assert_eq!(world.get::<Name>(pumpkin).unwrap().as_str(), "Pumpkin");
    assert_eq!(node(&app, other, &["Cart", "Lantern"]), other_lantern);
    let lumens = CANDELA * 4.0 * std::f32::consts::PI;
    let other_point = node(&app, other, &["Cart", "Lantern", "Point"]);
    let intensity = world.get::<PointLight>(other_point).unwrap().intensity;
    assert!((intensity - lumens).abs() < 0.01, "{intensity}");
}

#[test]
fn a_gltf_re_exported_on_disk_patches_the_placed_instances_by_node_path() {
    re_export_on_disk("cart.gltf");
}

#[test]
fn a_glb_re_exported_on_disk_patches_the_placed_instances_by_node_path() {
    re_export_on_disk("cart.glb");
}
