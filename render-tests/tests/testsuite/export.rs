//! The exported seed scenes (`tests/exported/`, written by `forge export`; the main crate's
//! `tests/data/export.rs` fails when they are stale) spawn the world `ForgeScenePlugin` spawns
//! from the scene files: same names, transforms within 1e-6, same component types per entity, same
//! hierarchy in the same order, entity references pointing at the same entities.
//!
//! The exported code says `use bevy::prelude::*;`: here `bevy` is `bevy_internal`, the crate
//! behind the `bevy` umbrella (which needs a newer Rust), and `forge_demo` is this package,
//! which defines the seed scenes' custom component types.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../exported/castle_gate_rust.rs"]
mod castle_gate_rust;
#[path = "../exported/game_types_bsn.rs"]
mod game_types_bsn;
#[path = "../exported/game_types_rust.rs"]
mod game_types_rust;
#[path = "../exported/garden_bsn.rs"]
mod garden_bsn;
#[path = "../exported/garden_rust.rs"]
mod garden_rust;
#[path = "../exported/goblin_camp_bsn.rs"]
mod goblin_camp_bsn;
#[path = "../exported/goblin_camp_rust.rs"]
mod goblin_camp_rust;
#[path = "../exported/odd_names_bsn.rs"]
mod odd_names_bsn;
#[path = "../exported/odd_names_rust.rs"]
mod odd_names_rust;
#[path = "../exported/porch_bsn.rs"]
mod porch_bsn;
#[path = "../exported/porch_rust.rs"]
mod porch_rust;
#[path = "../exported/street_rust.rs"]
mod street_rust;
#[path = "../exported/platformer_bsn.rs"]
mod platformer_bsn;
#[path = "../exported/platformer_rust.rs"]
mod platformer_rust;
#[path = "../exported/showcase_bsn.rs"]
mod showcase_bsn;
#[path = "../exported/showcase_rust.rs"]
mod showcase_rust;

use std::collections::BTreeSet;

use bevy::prelude::*;
use bevy_app::TaskPoolPlugin;
use bevy_forge_scene::prelude::{ForgeSceneInstance, ForgeScenePlugin, ForgeSceneRoot};
use bevy_scene::{ScenePlugin, SceneList, WorldSceneExt};

/// Components the two sides may differ in without spawning a different world: the scene's
/// bookkeeping, and the hierarchy (compared as a tree).
const IGNORED: &[&str] = &[
    "ForgeEntityId",
    "ForgeEntityPath",
    "ForgeSceneInstance",
    "ChildOf",
    "Children",
    // A placed model: the library's bookkeeping on the instance entity, Bevy's spawner's and
    // the observer's on the exported one.
    "ForgeModelNodes",
    "PlacedModel",
    "WorldAssetRoot",
    "WorldInstance",
    "ObservedBy",
];

/// An app that can spawn both sides: the scene plugin over `root`, the PBR types
/// registered for reflection (as `PbrPlugin` does, without the renderer), `Mesh3d` requiring
/// `Visibility` (as `VisibilityPlugin` makes it in an app with `DefaultPlugins`), and `bsn!`
/// scenes.
fn app(root: &str) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: root.into(),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
        ScenePlugin,
    ))
    .init_asset::<StandardMaterial>()
    .register_asset_reflect::<StandardMaterial>()
    .register_type::<MeshMaterial3d<StandardMaterial>>()
    .init_asset::<Image>()
    .init_asset::<Font>()
    .register_required_components::<Mesh3d, Visibility>();
    app.finish();
    app.cleanup();
    app
}

/// The roots `ForgeScenePlugin` spawns from `assets/<scene>`.
fn spawn_from_file(app: &mut App, scene: &str) -> Vec<Entity> {
    let handle = app.world().resource::<AssetServer>().load(scene.to_owned());
    let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    for _ in 0..2000 {
        app.update();
        if app.world().get::<ForgeSceneInstance>(root).is_some() {
            break;
        }
        std::thread::yield_now();
    }
    assert!(
        app.world().get::<ForgeSceneInstance>(root).is_some(),
        "{scene} did not spawn"
    );
    app.world()
        .get::<Children>(root)
        .map(|c| c.to_vec())
        .unwrap_or_default()
}

/// One entity as the comparison sees it.
#[derive(Debug)]
struct Node {
    name: String,
    transform: Transform,
    components: BTreeSet<String>,
    children: Vec<Node>,
}

fn describe(world: &World, entity: Entity) -> Node {
    let components = world
        .inspect_entity(entity)
        .unwrap()
        .map(|(_, info)| {
            let name = info.name().to_string();
            // `bevy_light::point_light::PointLight` and `bevy_pbr::..::MeshMaterial3d<..>`:
            // the short type name, generics kept.
            let base = name.split('<').next().unwrap_or(&name);
            let short = base.rsplit("::").next().unwrap_or(base);
            format!("{short}{}", &name[base.len()..])
        })
        .filter(|n| !IGNORED.contains(&n.as_str()))
        .collect();
    let children = world
        .get::<Children>(entity)
        .map(|c| c.iter().map(|child| describe(world, child)).collect())
        .unwrap_or_default();
    Node {
        name: world.get::<Name>(entity).map(|n| n.as_str().to_owned()).unwrap_or_default(),
        transform: *world.get::<Transform>(entity).expect("a Transform"),
        components,
        children,
    }
}

fn assert_same(expected: &Node, got: &Node, at: &str) {
    let at = format!("{at}/{}", expected.name);
    assert_eq!(expected.name, got.name, "{at}: name");
    let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-6);
    let (e, g) = (expected.transform, got.transform);
    assert!(
        close(&e.translation.to_array(), &g.translation.to_array())
            && close(&e.rotation.to_array(), &g.rotation.to_array())
            && close(&e.scale.to_array(), &g.scale.to_array()),
        "{at}: transform {e:?} != {g:?}"
    );
    assert_eq!(expected.components, got.components, "{at}: components");
    let names = |n: &Node| n.children.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(expected), names(got), "{at}: children");
    for (e, g) in expected.children.iter().zip(&got.children) {
        assert_same(e, g, &at);
    }
}

/// The file through the plugin in one app, `spawn` in another; the trees must match. `scene`
/// is under `../assets` (the seed scenes) or, with a leading `tests/`, this package's own.
fn compare(scene: &str, spawn: impl FnOnce(&mut World) -> Vec<Entity>) -> (App, Vec<Entity>) {
    let (root, path) = match scene.strip_prefix("tests/") {
        Some(own) => ("tests", own),
        None => ("../assets", scene),
    };
    let mut expected_app = app(root);
    let expected_roots = spawn_from_file(&mut expected_app, path);
    let mut app = app(root);
    let roots = spawn(app.world_mut());
    app.update();
    let expected: Vec<Node> = expected_roots
        .iter()
        .map(|r| describe(expected_app.world(), *r))
        .collect();
    let got: Vec<Node> = roots.iter().map(|r| describe(app.world(), *r)).collect();
    let names = |nodes: &[Node]| nodes.iter().map(|n| n.name.clone()).collect::<Vec<_>>();
    assert!(!expected.is_empty(), "{scene}: the plugin spawned no roots");
    assert_eq!(names(&expected), names(&got), "{scene}: roots");
    if std::env::var_os("SHOW_EXPORT_TREES").is_some() {
        eprintln!("{scene}: {got:#?}");
    }
    for (e, g) in expected.iter().zip(&got) {
        assert_same(e, g, scene);
    }
    (app, roots)
}

fn spawn_list(world: &mut World, list: impl SceneList) -> Vec<Entity> {
    world.spawn_scene_list(list).expect("the scene list spawns")
}

#[test]
fn exported_rust_spawns_the_showcase_the_plugin_spawns() {
    let _ = compare("scenes/showcase.forge.ron", showcase_rust::spawn_showcase);
}

#[test]
fn exported_bsn_spawns_the_showcase_the_plugin_spawns() {
    let _ = compare("scenes/showcase.forge.ron", |w| {
        spawn_list(w, showcase_bsn::showcase_scene())
    });
}

#[test]
fn exported_rust_spawns_the_garden_the_plugin_spawns() {
    let _ = compare("scenes/garden.forge.ron", garden_rust::spawn_garden);
}

#[test]
fn exported_bsn_spawns_the_garden_the_plugin_spawns() {
    let _ = compare("scenes/garden.forge.ron", |w| spawn_list(w, garden_bsn::garden_scene()));
}

#[test]
fn exported_rust_spawns_the_platformer_with_its_custom_component() {
    let (app, roots) = compare("scenes/platformer.forge.ron", platformer_rust::spawn_platformer);
    let player = roots[1];
    let orbit = app.world().get::<forge_demo::Orbit>(player).unwrap();
    assert_eq!((orbit.radius, orbit.speed), (2.0, -0.5));
}

#[test]
fn exported_bsn_spawns_the_platformer_with_its_custom_component() {
    let (app, roots) = compare("scenes/platformer.forge.ron", |w| {
        spawn_list(w, platformer_bsn::platformer_scene())
    });
    let orbit = app.world().get::<forge_demo::Orbit>(roots[1]).unwrap();
    assert_eq!((orbit.radius, orbit.speed), (2.0, -0.5));
}

#[test]
fn exported_rust_spawns_the_goblin_camp_with_its_prefabs_expanded() {
    let _ = compare("scenes/goblin_camp.forge.ron", goblin_camp_rust::spawn_goblin_camp);
}

#[test]
fn exported_bsn_spawns_the_goblin_camp_with_its_prefabs_expanded() {
    let _ = compare("scenes/goblin_camp.forge.ron", |w| {
        spawn_list(w, goblin_camp_bsn::goblin_camp_scene())
    });
}

/// The name of the entity a component field points at.
fn name_of(world: &World, entity: Entity) -> &str {
    world.get::<Name>(entity).map_or("?", |n| n.as_str())
}

#[test]
fn exported_rust_keeps_entity_references_of_the_castle_gate() {
    let (app, roots) = compare("scenes/castle_gate.forge.ron", castle_gate_rust::spawn_castle_gate);
    let world = app.world();
    let door = world.get::<forge_demo::Door>(roots[1]).unwrap();
    assert_eq!(name_of(world, door.opened_by), "Gate Switch");
    let alarm = door.alarm.unwrap();
    assert_eq!(name_of(world, alarm), "Sentry");
    assert_eq!(world.get::<ChildOf>(alarm).map(ChildOf::parent), Some(roots[4]), "the east tower's sentry");
    let patrol = world.get::<forge_demo::Patrol>(roots[2]).unwrap();
    let route: Vec<&str> = patrol.route.iter().map(|e| name_of(world, *e)).collect();
    assert_eq!(route, ["Waypoint A", "Waypoint B", "Waypoint C"]);
    assert_eq!(patrol.wait, 1.5);
    let sentry = world.get::<forge_demo::Sentry>(alarm).unwrap();
    assert_eq!(world.get::<ChildOf>(sentry.post).map(ChildOf::parent), Some(alarm));
}

/// Odd names, repeated names, and references as `#Name`s in BSN (`Option::Some(#Goblin_2)`).
fn assert_odd_names_references(world: &World, roots: &[Entity]) {
    let enemy = world.get::<forge_demo::Sentry>(roots[0]).unwrap();
    assert_eq!(enemy.post, roots[1], "`#2` is `élan`");
    let children = world.get::<Children>(roots[1]).unwrap();
    let door = world.get::<forge_demo::Door>(children[1]).unwrap();
    assert_eq!(door.opened_by, children[0], "`#3` is `1st`");
    assert_eq!(door.alarm, Some(roots[2]), "`#5` is the root `Goblin`, not the child one");
    let orbit = world.get::<forge_demo::Orbit>(roots[2]).unwrap();
    assert_eq!((orbit.radius, orbit.speed, orbit.axis), (1.5, -2.0, Vec3::Y));
    assert_eq!(world.get::<forge_demo::Health>(roots[3]).unwrap().hp, 7);
}

#[test]
fn exported_rust_spawns_odd_names_and_references() {
    let (app, roots) = compare("tests/scenes/odd_names.forge.ron", odd_names_rust::spawn_odd_names);
    assert_odd_names_references(app.world(), &roots);
}

#[test]
fn exported_bsn_spawns_odd_names_and_references() {
    let (app, roots) = compare("tests/scenes/odd_names.forge.ron", |w| {
        spawn_list(w, odd_names_bsn::odd_names_scene())
    });
    assert_odd_names_references(app.world(), &roots);
}

/// Each shape of game component with the value the scene gives it.
fn assert_game_types(world: &World, roots: &[Entity]) {
    use forge_demo::RigidBody;
    let body = |i: usize| world.get::<RigidBody>(roots[i]).cloned();
    assert_eq!(body(0), Some(RigidBody::Kinematic));
    assert_eq!(body(1), Some(RigidBody::Pushed(2.0, Vec3::Y)));
    assert_eq!(body(2), Some(RigidBody::Driven { speed: 3.0, gear: 2 }));
    assert_eq!(body(3), Some(RigidBody::Dynamic));
    assert_eq!(world.get::<forge_demo::Speed>(roots[0]), Some(&forge_demo::Speed(2.5)));
    assert!(world.get::<forge_demo::Marker>(roots[0]).is_some());
}

#[test]
fn exported_rust_spawns_every_shape_of_game_component() {
    let (app, roots) = compare("tests/scenes/game_types.forge.ron", game_types_rust::spawn_game_types);
    assert_game_types(app.world(), &roots);
}

#[test]
fn exported_bsn_spawns_every_shape_of_game_component() {
    let (app, roots) = compare("tests/scenes/game_types.forge.ron", |w| {
        spawn_list(w, game_types_bsn::game_types_scene())
    });
    assert_game_types(app.world(), &roots);
}

// ---- placed glTF models (`porch`, `street`): Bevy's `GltfPlugin` on both sides ----

/// An in-memory assets directory with the test model (`models/house.gltf`) and this package's
/// scene `scene` (under `tests/scenes/`).
fn model_dir(scene: &str) -> bevy_asset::io::memory::Dir {
    let dir = bevy_asset::io::memory::Dir::default();
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = std::fs::read(here.join("../tests/fixtures/models/house.gltf")).unwrap();
    dir.insert_asset(std::path::Path::new("models/house.gltf"), model);
    let text = std::fs::read_to_string(here.join("tests/scenes").join(scene)).unwrap();
    dir.insert_asset_text(std::path::Path::new(scene), &text);
    dir
}

/// The glTF app of the models tests, with Bevy's world spawner (`WorldAssetRoot`) and `bsn!`
/// scenes.
fn model_export_app(scene: &str) -> App {
    bevy_forge_scene_render_tests::model_app_with(model_dir(scene), |app| {
        app.add_plugins((
            bevy::world_serialization::WorldSerializationPlugin,
            ScenePlugin,
        ));
    })
}

/// Updates `app` until `done` holds (at most 2,000 frames).
fn run_until(app: &mut App, mut done: impl FnMut(&mut World) -> bool) {
    for _ in 0..2000 {
        app.update();
        if done(app.world_mut()) {
            // The frames in which queued overrides and visibility settle.
            for _ in 0..3 {
                app.update();
            }
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("condition not reached");
}

/// How many glTF scenes (their root entities) are in the world.
fn models_in(world: &mut World) -> usize {
    world
        .query_filtered::<(), With<bevy::gltf::GltfSceneName>>()
        .iter(world)
        .count()
}

/// `scene` through the plugin in one app, the exported `spawn` in another, each placing the test
/// model with Bevy's glTF loader: the trees must match (the model's nodes, with the overrides
/// applied). Returns both apps and roots.
fn compare_model(
    scene: &str,
    spawn: impl FnOnce(&mut World) -> Vec<Entity>,
) -> ((App, Vec<Entity>), (App, Vec<Entity>)) {
    let mut expected_app = model_export_app(scene);
    let handle = expected_app.world().resource::<AssetServer>().load(scene.to_owned());
    let root = expected_app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    run_until(&mut expected_app, |w| models_in(w) == 1);
    let expected_roots: Vec<Entity> =
        expected_app.world().get::<Children>(root).map(|c| c.to_vec()).unwrap_or_default();
    let mut app = model_export_app(scene);
    let roots = spawn(app.world_mut());
    run_until(&mut app, |w| models_in(w) == 1);
    let expected: Vec<Node> =
        expected_roots.iter().map(|r| describe(expected_app.world(), *r)).collect();
    let got: Vec<Node> = roots.iter().map(|r| describe(app.world(), *r)).collect();
    let names = |nodes: &[Node]| nodes.iter().map(|n| n.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&expected), names(&got), "{scene}: roots");
    if std::env::var_os("SHOW_EXPORT_TREES").is_some() {
        eprintln!("{scene}: {got:#?}");
    }
    for (e, g) in expected.iter().zip(&got) {
        assert_same(e, g, scene);
    }
    ((expected_app, expected_roots), (app, roots))
}

/// The entity at `names` below `from`, by `Name`.
fn below(world: &World, from: Entity, names: &[&str]) -> Entity {
    let mut at = from;
    for name in names {
        at = world
            .get::<Children>(at)
            .unwrap()
            .iter()
            .find(|c| world.get::<Name>(*c).is_some_and(|n| n.as_str() == *name))
            .unwrap_or_else(|| panic!("no {name} below {:?}", world.get::<Name>(at)));
    }
    at
}

/// The porch's overrides, as both sides apply them.
fn assert_porch(world: &World, roots: &[Entity]) {
    let house = below(world, roots[0], &["House", "House"]);
    let lamp = below(world, house, &["Lamp"]);
    let light = world.get::<Children>(lamp).unwrap()[0];
    let light = world.get::<bevy::light::PointLight>(light).unwrap();
    assert_eq!((light.intensity, light.shadow_maps_enabled), (900.0, true));
    assert!(world.get::<Name>(below(world, house, &["Red Roof"])).is_some());
    let door = below(world, house, &["Door"]);
    assert_eq!(world.get::<forge_demo::Orbit>(door).unwrap().radius, 2.0);
    let ground = below(world, roots[0], &["House", "Ground"]);
    assert_eq!(world.get::<Visibility>(ground), Some(&Visibility::Hidden));
    assert_eq!(world.get::<forge_demo::Health>(ground).unwrap().hp, 3);
}

#[test]
fn exported_rust_places_a_gltf_model_with_its_overrides() {
    let ((expected, expected_roots), (got, roots)) =
        compare_model("porch.forge.ron", porch_rust::spawn_porch);
    assert_porch(expected.world(), &expected_roots);
    assert_porch(got.world(), &roots);
}

#[test]
fn exported_bsn_places_a_gltf_model_with_its_overrides() {
    let ((_, _), (got, roots)) =
        compare_model("porch.forge.ron", |w| spawn_list(w, porch_bsn::porch_scene()));
    assert_porch(got.world(), &roots);
}

/// The street's overrides that name its entities: the cat under the roof, the door's sentry
/// posted at the lamp post.
fn assert_street(world: &World, roots: &[Entity]) {
    let house = below(world, roots[1], &["House", "House"]);
    let roof = below(world, house, &["Roof"]);
    assert!(world.get::<Name>(below(world, roof, &["Cat"])).is_some());
    let door = below(world, house, &["Door"]);
    assert_eq!(world.get::<forge_demo::Sentry>(door).unwrap().post, roots[0]);
    let lamp = below(world, house, &["Lamp"]);
    let children = world.get::<Children>(lamp).map(|c| c.to_vec()).unwrap_or_default();
    assert!(
        children.iter().all(|c| world.get::<bevy::light::PointLight>(*c).is_none()),
        "the light is removed"
    );
}

#[test]
fn exported_rust_places_a_gltf_model_whose_overrides_name_the_scenes_entities() {
    let ((expected, expected_roots), (got, roots)) =
        compare_model("street.forge.ron", street_rust::spawn_street);
    assert_street(expected.world(), &expected_roots);
    assert_street(got.world(), &roots);
}
