//! Placed glTF models with Bevy's own glTF loader (`GltfPlugin`): the test models of
//! `tests/fixtures/models/` (`.gltf` and `.glb`) spawn their node trees under the instance
//! entity, with the file's meshes and materials, and the scene's overrides applied by node path.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use bevy_app::App;
use bevy_asset::AssetServer;
use bevy_asset::io::memory::Dir;

use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeModelNodes;
use bevy_forge_scene::prelude::*;
use bevy_internal::light::PointLight;
use bevy_internal::mesh::Mesh3d;

const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

fn street(model: &str) -> String {
    format!(
        r#"(
  format_version: 1,
  name: "Street",
  entities: {{
    5: (id: 5, name: "House", parent: None, children: [], {T}, components: [],
        instance: Some((
          model: "{model}",
          overrides: [
            (target: ["House", "Lamp"], set: [(type: point_light, data: (intensity: 900.0))]),
            (target: ["House", "Roof"], name: Some("Red roof"), children: [6]),
          ],
        ))),
    6: (id: 6, name: "Cat", parent: Some(5), children: [], {T}, components: []),
  }},
  roots: [5],
  next_id: 7,
)"#
    )
}

fn spawned(model: &str) -> (App, Entity, Entity) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/models");
    let dir = Dir::default();
    for file in ["house.gltf", "house.glb"] {
        dir.insert_asset(
            Path::new("models").join(file).as_path(),
            std::fs::read(fixtures.join(file)).unwrap(),
        );
    }
    dir.insert_asset_text(Path::new("street.forge.ron"), &street(model));
    let mut app = bevy_forge_scene_render_tests::model_app(dir);
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("street.forge.ron");
    let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    let mut house = None;
    for _ in 0..2000 {
        app.update();
        house = app
            .world()
            .get::<ForgeSceneInstance>(root)
            .and_then(|i| i.entity(5));
        if house.is_some_and(|h| app.world().get::<ForgeModelNodes>(h).is_some()) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let house = house.expect("the scene spawned");
    assert!(
        app.world().get::<ForgeModelNodes>(house).is_some(),
        "the model was written"
    );
    (app, root, house)
}

fn check(model: &str) {
    let (app, root, house) = spawned(model);
    let world = app.world();
    let nodes = world.get::<ForgeModelNodes>(house).unwrap();
    let names: Vec<String> = nodes.iter().map(|(p, _)| p.join("/")).collect();
    for path in [
        "House/Lamp/",
        "House",
        "House/Roof",
        "House/Roof/Chimney",
        "House/Door",
        "House/GltfNode3",
        "House/Lamp",
        "Ground",
    ] {
        assert!(names.iter().any(|n| n == path), "{path} among {names:?}");
    }
    // Bevy's loader gives each mesh primitive an entity of its own under its node.
    let door = nodes.node(&["House", "Door"]).unwrap();
    let primitives: Vec<Entity> = nodes
        .iter()
        .filter(|(p, _)| p.len() == 3 && p[1] == "Door")
        .map(|(_, e)| e)
        .collect();
    assert_eq!(primitives.len(), 1, "{names:?}");
    assert!(
        world.get::<Mesh3d>(primitives[0]).is_some(),
        "the file's mesh"
    );
    assert_eq!(world.get::<ChildOf>(primitives[0]).unwrap().parent(), door);
    // The light is an unnamed child of its node (Bevy's loader); `set` on the node reaches it.
    let lamp = nodes.node(&["House", "Lamp", ""]).unwrap();
    assert_eq!(world.get::<PointLight>(lamp).unwrap().intensity, 900.0);
    let roof = nodes.node(&["House", "Roof"]).unwrap();
    assert_eq!(world.get::<Name>(roof).unwrap().as_str(), "Red roof");
    let cat = world
        .get::<ForgeSceneInstance>(root)
        .unwrap()
        .entity(6)
        .unwrap();
    assert_eq!(world.get::<ChildOf>(cat).unwrap().parent(), roof);
    let scene_root = nodes.node::<&str>(&[]).unwrap();
    assert_eq!(world.get::<ChildOf>(scene_root).unwrap().parent(), house);
}

#[test]
fn a_gltf_model_spawns_through_bevys_loader_with_its_overrides() {
    check("models/house.gltf#Scene0");
}

#[test]
fn a_glb_model_spawns_the_same() {
    check("models/house.glb#Scene0");
}
