//! A glTF model placed in a scene like a prefab, headless: the street places
//! `models/house.gltf#Scene0` (the test model of `tests/fixtures/models/`), renames its roof,
//! dims its lamp and puts the scene's cat on the roof, by node path. Bevy's own `GltfPlugin`
//! loads the model; the scene's overrides apply to its nodes. Prints the instance's node tree.
//!
//! `cargo run --example models --ignore-rust-version` in `render-tests/`.

use std::path::Path;

use bevy_asset::AssetServer;
use bevy_asset::io::memory::Dir;

use bevy_ecs::name::Name;
use bevy_forge_scene::ForgeModelNodes;
use bevy_forge_scene::prelude::*;
use bevy_internal::light::PointLight;

const STREET: &str = r#"(
  format_version: 1,
  name: "Street",
  entities: {
    1: (id: 1, name: "House", parent: None, children: [],
        transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 90, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [],
        instance: Some((
          model: "models/house.gltf#Scene0",
          overrides: [
            (target: ["House", "Roof"], name: Some("Red roof"), children: [2]),
            (target: ["House", "Lamp"], set: [(type: point_light, data: (intensity: 300.0))]),
          ],
        ))),
    2: (id: 2, name: "Cat", parent: Some(1), children: [],
        transform: (translation: (x: 0, y: 1, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: []),
  },
  roots: [1],
  next_id: 3,
)"#;

fn main() {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/models");
    let dir = Dir::default();
    let model = std::fs::read(models.join("house.gltf")).expect("the test model");
    dir.insert_asset(Path::new("models/house.gltf"), model);
    dir.insert_asset_text(Path::new("street.forge.ron"), STREET);
    let mut app = bevy_forge_scene_render_tests::model_app(dir);

    let scene = app.world().resource::<AssetServer>().load("street.forge.ron");
    let root = app.world_mut().spawn(ForgeSceneRoot(scene)).id();
    let house = (0..5000).find_map(|_| {
        app.update();
        std::thread::sleep(std::time::Duration::from_millis(1));
        let house = app.world().get::<ForgeSceneInstance>(root)?.entity(1)?;
        app.world().get::<ForgeModelNodes>(house).map(|_| house)
    });
    let Some(house) = house else {
        eprintln!("the street did not spawn");
        std::process::exit(1);
    };
    let world = app.world();
    let nodes = world.get::<ForgeModelNodes>(house).expect("written");
    println!("`House` places models/house.gltf#Scene0: {} nodes", nodes.len());
    for (path, entity) in nodes.iter() {
        let name = world.get::<Name>(entity).map_or("(no name)", |n| n.as_str());
        let light = world
            .get::<PointLight>(entity)
            .map(|l| format!(", point light {} lm", l.intensity))
            .unwrap_or_default();
        let indent = "  ".repeat(path.len());
        println!("{indent}{:?} -> {name} ({entity}){light}", path);
    }
    let cat = world.get::<ForgeSceneInstance>(root).and_then(|i| i.entity(2));
    let roof = nodes.node(&["House", "Roof"]);
    let on_roof = cat
        .and_then(|c| world.get::<bevy_ecs::hierarchy::ChildOf>(c))
        .map(|c| Some(c.parent()) == roof);
    println!("the cat is on the roof: {}", on_roof.unwrap_or(false));
}
