//! `mesh3d` spawns a real `MeshMaterial3d<StandardMaterial>` when the app registered the PBR
//! types, built through the type registry (the library has no compile-time `bevy_pbr`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::io::memory::{Dir, MemoryAssetReader};
use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer, Assets};
use bevy_forge_scene::prelude::*;
use bevy_pbr::{MeshMaterial3d, StandardMaterial};

const SCENE: &str = r#"(
  format_version: 1,
  name: "Materials",
  entities: {
    1: (id: 1, name: "Red", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: mesh3d, data: (mesh: (source: primitive, value: sphere(radius: 1)), material: (base_color: (r: 1, g: 0, b: 0, a: 1), metallic: 0.25, perceptual_roughness: 0.75, unlit: true)))]),
    2: (id: 2, name: "Red too", parent: None, children: [], transform: (translation: (x: 2, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: mesh3d, data: (mesh: (source: primitive, value: cuboid(size: (x: 1, y: 1, z: 1))), material: (base_color: (r: 1, g: 0, b: 0, a: 1), metallic: 0.25, perceptual_roughness: 0.75, unlit: true)))]),
    3: (id: 3, name: "Blue", parent: None, children: [], transform: (translation: (x: 4, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: mesh3d, data: (mesh: (source: primitive, value: sphere(radius: 1)), material: (base_color: (r: 0, g: 0, b: 1, a: 1), metallic: 1, perceptual_roughness: 0.1, unlit: false)))]),
    4: (id: 4, name: "Light", parent: None, children: [], transform: (translation: (x: 0, y: 5, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 1000, range: 10, shadows: false)), (type: camera3d)]),
  },
  roots: [1, 2, 3, 4],
  next_id: 5,
)"#;

#[test]
fn mesh3d_gets_a_standard_material_with_the_file_values() {
    let dir = Dir::default();
    dir.insert_asset_text(Path::new("materials.forge.ron"), SCENE);
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: dir.clone() })),
    )
    .add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin { watch_for_changes_override: Some(false), ..Default::default() },
        ForgeScenePlugin,
    ))
    // What `PbrPlugin` registers for reflection, without the renderer.
    .init_asset::<StandardMaterial>()
    .register_asset_reflect::<StandardMaterial>()
    .register_type::<MeshMaterial3d<StandardMaterial>>();
    app.finish();
    app.cleanup();
    let handle = app.world().resource::<AssetServer>().load("materials.forge.ron");
    let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    for _ in 0..500 {
        app.update();
        if app.world().get::<ForgeSceneInstance>(root).is_some() {
            break;
        }
        std::thread::yield_now();
    }
    let instance = app.world().get::<ForgeSceneInstance>(root).expect("spawned").clone();
    let world = app.world();
    let material = |id| world.get::<MeshMaterial3d<StandardMaterial>>(instance.entity(id).unwrap()).expect("material component").0.clone();
    let (red, red_too, blue) = (material(1), material(2), material(3));
    assert_eq!(red, red_too, "identical materials share one handle");
    assert_ne!(red, blue);
    let materials = world.resource::<Assets<StandardMaterial>>();
    let red = materials.get(&red).expect("material asset");
    assert_eq!(red.base_color, bevy_color::Color::srgba(1.0, 0.0, 0.0, 1.0));
    assert_eq!((red.metallic, red.perceptual_roughness, red.unlit), (0.25, 0.75, true));
    let blue = materials.get(&blue).unwrap();
    assert_eq!((blue.metallic, blue.perceptual_roughness, blue.unlit), (1.0, 0.1, false));
    assert!(world.get::<bevy_mesh::Mesh3d>(instance.entity(3).unwrap()).is_some());
}
