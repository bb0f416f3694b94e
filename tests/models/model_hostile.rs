//! Placed glTF models (feature `gltf`) fed bad or unusual input, as a hostile user would:
//! targets that are empty or deeper than the model, siblings of one name, override children
//! the scene does not have, components a node lacks, unknown custom types, scene edits that
//! change or drop the model while it loads, game code despawning what the library wrote,
//! model files without the scene asked for, and many instances of one model. Each test asserts
//! what a user would see: no panic, no hang, the rest of the scene intact.
#![cfg(feature = "gltf")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::stand_in_gltf;

use bevy_asset::{AssetServer, Handle, LoadState};
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeModelNodes;
use bevy_forge_scene::prelude::*;
use bevy_light::PointLight;
use common::Orbit;
use common::harness::Harness;

const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";
const HOUSE: &str = "models/house.gltf#Scene0";
const LAMP_900: &str =
    r#"(target: ["House", "Lamp"], set: [(type: point_light, data: (intensity: 900.0))]),"#;
const CAT_ON_ROOF: &str = r#"(target: ["House", "Roof"], children: [6]),"#;

fn model_text() -> String {
    common::fixture_text("models/house.gltf")
}

/// One entity of a scene file: `extra` is written after `components` (an `instance`, or
/// nothing).
fn ent(id: u64, name: &str, parent: Option<u64>, children: &[u64], extra: &str) -> String {
    let parent = parent.map_or("None".to_owned(), |p| format!("Some({p})"));
    let children: Vec<String> = children.iter().map(u64::to_string).collect();
    format!(
        "{id}: (id: {id}, name: \"{name}\", parent: {parent}, children: [{}], {T}, components: [], {extra}),",
        children.join(", ")
    )
}

/// An `instance` placing `model` with `overrides` (RON, each ending in a comma).
fn model(model: &str, overrides: &str) -> String {
    format!("instance: Some((model: \"{model}\", overrides: [{overrides}]))")
}

fn doc(entities: &[String], roots: &[u64]) -> String {
    let next = entities.len() as u64 * 1000 + 1000;
    let roots: Vec<String> = roots.iter().map(u64::to_string).collect();
    format!(
        "(\n  format_version: 1,\n  name: \"Street\",\n  entities: {{\n{}\n  }},\n  roots: [{}],\n  next_id: {next},\n)",
        entities.join("\n"),
        roots.join(", ")
    )
}

/// The house (5) placing the model with the cat (6) on its roof and `overrides`, and a tree
/// (7) beside it that has nothing to do with the model.
fn street(overrides: &str) -> String {
    doc(
        &[
            ent(
                5,
                "House",
                None,
                &[],
                &model(HOUSE, &format!("{CAT_ON_ROOF}{overrides}")),
            ),
            ent(6, "Cat", Some(5), &[], ""),
            ent(7, "Tree", None, &[], ""),
        ],
        &[5, 7],
    )
}

fn harness() -> Harness {
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    Harness::with_setup(|app| {
        stand_in_gltf::add_to(app).register_type::<Orbit>();
    })
}

/// A harness with the house model and `scene` as `street.forge.ron`, spawned.
fn spawned(scene: &str) -> (Harness, Entity) {
    let mut h = harness();
    h.add("models/house.gltf", &model_text());
    h.add("street.forge.ron", scene);
    let (root, _) = h.spawn_scene("street.forge.ron");
    (h, root)
}

/// [`spawned`], waiting for the model of entity 5.
fn started(scene: &str) -> (Harness, Entity, Entity) {
    let (mut h, root) = spawned(scene);
    let house = entity(&h, root, 5).unwrap();
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    (h, root, house)
}

fn entity(h: &Harness, root: Entity, id: u64) -> Option<Entity> {
    h.world().get::<ForgeSceneInstance>(root)?.entity(id)
}

fn node(h: &Harness, house: Entity, path: &[&str]) -> Option<Entity> {
    h.world().get::<ForgeModelNodes>(house)?.node(path)
}

fn name(h: &Harness, e: Entity) -> String {
    h.world().get::<Name>(e).unwrap().as_str().to_owned()
}

fn parent(h: &Harness, e: Entity) -> Option<Entity> {
    h.world().get::<ChildOf>(e).map(ChildOf::parent)
}

/// Entities named `n` in the whole world.
fn named(h: &mut Harness, n: &str) -> Vec<Entity> {
    let mut q = h.app.world_mut().query::<(Entity, &Name)>();
    q.iter(h.app.world())
        .filter(|(_, name)| name.as_str() == n)
        .map(|(e, _)| e)
        .collect()
}

/// Point lights in the whole world, with their intensity.
fn lights(h: &mut Harness) -> Vec<(Entity, f32)> {
    let mut q = h.app.world_mut().query::<(Entity, &PointLight)>();
    q.iter(h.app.world())
        .map(|(e, l)| (e, l.intensity))
        .collect()
}

fn lamp_intensity(h: &Harness, house: Entity) -> f32 {
    let lamp = node(h, house, &["House", "Lamp", ""]).unwrap();
    h.world().get::<PointLight>(lamp).unwrap().intensity
}

/// A bounded number of frames, giving the asset threads time (a load that fails, an event
/// that should change nothing).
fn frames(h: &mut Harness, n: usize) {
    for _ in 0..n {
        h.app.update();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// The scene and the tree beside the house are whole.
fn tree_intact(h: &Harness, root: Entity) {
    let tree = entity(h, root, 7).expect("the tree is in the instance");
    assert_eq!(name(h, tree), "Tree");
    assert_eq!(parent(h, tree), Some(root));
}

/// Loads `street.forge.ron` (already added) and waits for it to load or fail.
fn load_outcome(h: &mut Harness) -> (Handle<ForgeScene>, LoadState) {
    let handle = h.load("street.forge.ron");
    let server = h.world().resource::<AssetServer>().clone();
    h.run_until(|_| {
        matches!(
            server.load_state(&handle),
            LoadState::Failed(_) | LoadState::Loaded
        )
    });
    let state = server.load_state(&handle);
    (handle, state)
}

#[test]
fn an_empty_override_target_is_refused_at_load() {
    let mut h = harness();
    h.add("models/house.gltf", &model_text());
    h.add(
        "street.forge.ron",
        &street(r#"(target: [], name: Some("Renamed root")),"#),
    );
    let (_, state) = load_outcome(&mut h);
    let LoadState::Failed(error) = state else {
        panic!("an empty target loads: {state:?}");
    };
    assert!(error.to_string().contains("target"), "{error}");
}

#[test]
fn an_empty_target_in_a_hot_reload_keeps_the_live_model() {
    let (mut h, root, house) = started(&street(LAMP_900));
    let roof = node(&h, house, &["House", "Roof"]).unwrap();
    h.modify(
        "street.forge.ron",
        &street(r#"(target: [], name: Some("Renamed root")),"#),
    );
    frames(&mut h, 100);
    assert_eq!(node(&h, house, &["House", "Roof"]), Some(roof));
    assert_eq!(lamp_intensity(&h, house), 900.0, "the old overrides stay");
    assert!(named(&mut h, "Renamed root").is_empty());
    tree_intact(&h, root);
}

#[test]
fn targets_deeper_than_the_model_change_nothing_and_the_rest_applies() {
    let (mut h, root, house) = started(&street(&format!(
        r#"(target: ["House", "Roof", "Chimney", "Nope", "Deeper"], name: Some("Deep")),
           (target: ["House", "Lamp", "", "Below the light"], name: Some("Deeper")),
           (target: ["Nowhere"], name: Some("Nowhere at all")),
           {LAMP_900}"#
    )));
    assert_eq!(h.world().get::<ForgeModelNodes>(house).unwrap().len(), 9);
    assert_eq!(lamp_intensity(&h, house), 900.0);
    assert!(named(&mut h, "Deep").is_empty());
    assert!(named(&mut h, "Deeper").is_empty());
    assert!(named(&mut h, "Nowhere at all").is_empty());
    let cat = entity(&h, root, 6).unwrap();
    assert_eq!(parent(&h, cat), node(&h, house, &["House", "Roof"]));
    tree_intact(&h, root);
}

#[test]
fn a_target_through_the_unnamed_light_entity_reaches_it() {
    let (h, _, house) = started(&street(
        r#"(target: ["House", "Lamp", ""], name: Some("Bulb")),"#,
    ));
    let light = node(&h, house, &["House", "Lamp", ""]).unwrap();
    assert_eq!(name(&h, light), "Bulb");
    assert!(h.world().get::<PointLight>(light).is_some());
}

/// The house with the lamp renamed `Door`: `House` has two children named `Door`, the mesh
/// node (index 2, first in the file) and the light node (index 4).
fn two_doors() -> String {
    model_text().replace("\"name\": \"Lamp\"", "\"name\": \"Door\"")
}

#[test]
fn of_two_siblings_with_one_name_the_first_is_the_one_an_override_means() {
    let mut h = harness();
    h.add("models/house.gltf", &two_doors());
    h.add(
        "street.forge.ron",
        &street(r#"(target: ["House", "Door"], name: Some("Front door")),"#),
    );
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = entity(&h, root, 5).unwrap();
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    let first = node(&h, house, &["House", "Door"]).unwrap();
    assert_eq!(name(&h, first), "Front door");
    assert!(
        h.world().get::<Children>(first).is_none(),
        "the first `Door` is the mesh node, without the light"
    );
    // The second `Door` is spawned all the same, with its light, under `House`.
    let second = named(&mut h, "Door");
    assert_eq!(second.len(), 1, "{second:?}");
    assert_eq!(
        parent(&h, second[0]),
        node(&h, house, &["House"]),
        "the second `Door` is under House"
    );
    assert_eq!(lights(&mut h).len(), 1);
    tree_intact(&h, root);
}

#[test]
fn re_exports_of_a_model_with_two_siblings_of_one_name_do_not_multiply_the_second() {
    let mut h = harness();
    h.add("models/house.gltf", &two_doors());
    h.add("street.forge.ron", &street(""));
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = entity(&h, root, 5).unwrap();
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    assert_eq!(named(&mut h, "Door").len(), 2);
    assert_eq!(lights(&mut h).len(), 1);
    // Two re-exports: the ground renamed, then back.
    for (text, ground) in [
        (two_doors().replace("\"Ground\"", "\"Lawn\""), "Lawn"),
        (two_doors(), "Ground"),
    ] {
        h.modify("models/house.gltf", &text);
        h.run_until(|w| {
            w.get::<ForgeModelNodes>(house)
                .is_some_and(|n| n.node(&[ground]).is_some())
        });
        let doors = named(&mut h, "Door");
        let lights = lights(&mut h);
        assert_eq!(
            (doors.len(), lights.len()),
            (2, 1),
            "after the re-export with `{ground}`: doors {doors:?}, lights {lights:?}"
        );
    }
    tree_intact(&h, root);
}

#[test]
fn the_gate_holds_every_entity_of_a_model_with_two_siblings_of_one_name() {
    let mut h = harness();
    h.add("models/house.gltf", &two_doors());
    h.add("street.forge.ron", &street(""));
    let handle = h.load("street.forge.ron");
    let root = h
        .app
        .world_mut()
        .spawn((ForgeSceneRoot(handle), ForgeSceneInactive))
        .id();
    h.run_until(|w| {
        w.get::<ForgeSceneInstance>(root)
            .and_then(|i| i.entity(5))
            .is_some_and(|house| w.get::<ForgeModelNodes>(house).is_some())
    });
    let doors = named(&mut h, "Door");
    let lights = lights(&mut h);
    let loose: Vec<Entity> = doors
        .iter()
        .copied()
        .chain(lights.iter().map(|(e, _)| *e))
        .filter(|e| h.world().get::<ForgeSceneInactive>(*e).is_none())
        .collect();
    assert!(loose.is_empty(), "not held inactive: {loose:?}");
}

#[test]
fn override_children_naming_an_id_the_scene_lacks_fail_the_load() {
    let mut h = harness();
    h.add("models/house.gltf", &model_text());
    h.add(
        "street.forge.ron",
        &street(r#"(target: ["House", "Door"], children: [99]),"#),
    );
    let (_, state) = load_outcome(&mut h);
    assert!(matches!(state, LoadState::Failed(_)), "{state:?}");
}

#[test]
fn override_children_naming_the_instance_entity_itself_fail_the_load() {
    let mut h = harness();
    h.add("models/house.gltf", &model_text());
    h.add(
        "street.forge.ron",
        &street(r#"(target: ["House", "Door"], children: [5]),"#),
    );
    let (_, state) = load_outcome(&mut h);
    assert!(matches!(state, LoadState::Failed(_)), "{state:?}");
}

#[test]
fn override_children_naming_an_entity_outside_the_instance_fail_the_load() {
    let mut h = harness();
    h.add("models/house.gltf", &model_text());
    // The tree is a root of the scene, not a child of the house.
    h.add(
        "street.forge.ron",
        &street(r#"(target: ["House", "Door"], children: [7]),"#),
    );
    let (_, state) = load_outcome(&mut h);
    assert!(matches!(state, LoadState::Failed(_)), "{state:?}");
}

#[test]
fn a_hot_reload_placing_the_instance_entity_under_its_own_node_keeps_the_live_scene() {
    let (mut h, root, house) = started(&street(LAMP_900));
    h.modify(
        "street.forge.ron",
        &street(r#"(target: ["House", "Door"], children: [5]),"#),
    );
    frames(&mut h, 100);
    assert_eq!(parent(&h, house), Some(root), "no cycle in the hierarchy");
    assert_eq!(lamp_intensity(&h, house), 900.0);
    tree_intact(&h, root);
}

#[test]
fn one_child_placed_by_two_overrides_fails_the_load() {
    let mut h = harness();
    h.add("models/house.gltf", &model_text());
    // The cat is on the roof already (`street`), and on the door and the ground too.
    h.add(
        "street.forge.ron",
        &street(
            r#"(target: ["House", "Door"], children: [6]), (target: ["Ground"], children: [6]),"#,
        ),
    );
    let (_, state) = load_outcome(&mut h);
    let LoadState::Failed(error) = state else {
        panic!("a child placed twice loads: {state:?}");
    };
    eprintln!("{error}");
}

#[test]
fn removing_components_a_node_lacks_changes_nothing_else() {
    let (mut h, root, house) = started(&street(&format!(
        r#"(target: ["House", "Door"], remove: ["point_light", "sprite", "custom:forge_demo::Orbit", "custom:game::NotAType"]),
           {LAMP_900}"#
    )));
    let door = node(&h, house, &["House", "Door"]).unwrap();
    assert_eq!(name(&h, door), "Door");
    assert_eq!(lamp_intensity(&h, house), 900.0);
    assert_eq!(lights(&mut h).len(), 1);
    tree_intact(&h, root);
}

#[test]
fn a_removed_light_comes_back_when_the_override_goes() {
    let (mut h, root, house) = started(&street(
        r#"(target: ["House", "Lamp", ""], remove: ["point_light"]),"#,
    ));
    let light = node(&h, house, &["House", "Lamp", ""]).unwrap();
    assert!(h.world().get::<PointLight>(light).is_none());
    assert!(lights(&mut h).is_empty());
    h.modify("street.forge.ron", &street(""));
    h.run_until(|w| w.get::<PointLight>(light).is_some());
    assert_eq!(
        lights(&mut h),
        vec![(light, 800.0 * 4.0 * std::f32::consts::PI)],
        "the model's own light (800 cd, in lumens as Bevy's loader converts it)"
    );
    tree_intact(&h, root);
}

#[test]
fn setting_a_built_in_a_node_lacks_adds_nothing_and_the_rest_applies() {
    let (mut h, root, house) = started(&street(&format!(
        r#"(target: ["House", "Door"], set: [(type: point_light, data: (intensity: 5.0))]),
           {LAMP_900}"#
    )));
    let door = node(&h, house, &["House", "Door"]).unwrap();
    assert!(h.world().get::<PointLight>(door).is_none());
    assert_eq!(lamp_intensity(&h, house), 900.0);
    assert_eq!(lights(&mut h).len(), 1);
    tree_intact(&h, root);
}

#[test]
fn adding_an_unknown_custom_type_leaves_the_other_overrides_applied() {
    let mut h = harness();
    h.add("models/house.gltf", &model_text());
    h.add(
        "street.forge.ron",
        &street(&format!(
            r#"(target: ["House", "Door"], add: [(type: custom, data: (type_path: "game::NotAType", fields: []))]),
               {LAMP_900}"#
        )),
    );
    let (handle, state) = load_outcome(&mut h);
    if let LoadState::Failed(error) = state {
        // Refusing the scene at load is an answer too.
        eprintln!("refused at load: {error}");
        return;
    }
    let root = h.spawn_root(&handle);
    h.run_until(|w| {
        w.get::<ForgeSceneInstance>(root)
            .and_then(|i| i.entity(5))
            .is_some_and(|house| w.get::<ForgeModelNodes>(house).is_some())
    });
    let house = entity(&h, root, 5).unwrap();
    assert_eq!(
        lamp_intensity(&h, house),
        900.0,
        "one override's unknown type takes the other overrides' values with it"
    );
    tree_intact(&h, root);
}

/// A smaller model: `House` with one child, `Roof`.
fn shed() -> String {
    r#"{"asset": {"version": "2.0"}, "scenes": [{"name": "Shed", "nodes": [0]}],
        "nodes": [{"name": "House", "children": [1]}, {"name": "Roof"}]}"#
        .to_owned()
}

#[test]
fn a_scene_edit_that_changes_the_model_swaps_the_nodes_and_keeps_the_cat() {
    let (mut h, root, house) = started(&street(LAMP_900));
    h.add("models/shed.gltf", &shed());
    let old: Vec<Entity> = h
        .world()
        .get::<ForgeModelNodes>(house)
        .unwrap()
        .iter()
        .map(|(_, e)| e)
        .collect();
    let swapped = street(LAMP_900).replace(HOUSE, "models/shed.gltf#Scene0");
    h.modify("street.forge.ron", &swapped);
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .is_some_and(|n| n.len() == 3)
    });
    assert!(
        old.iter().all(|e| h.world().get_entity(*e).is_err()),
        "the old model's nodes are despawned"
    );
    assert!(lights(&mut h).is_empty());
    let cat = entity(&h, root, 6).unwrap();
    assert_eq!(parent(&h, cat), node(&h, house, &["House", "Roof"]));
    // A model file that does not exist: the shed goes, the cat waits under the house.
    let missing = street(LAMP_900).replace(HOUSE, "models/none.gltf#Scene0");
    h.modify("street.forge.ron", &missing);
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_none());
    frames(&mut h, 50);
    assert_eq!(parent(&h, cat), Some(house));
    assert!(named(&mut h, "Roof").is_empty());
    tree_intact(&h, root);
}

#[test]
fn a_scene_edit_that_drops_the_instance_despawns_the_nodes_and_keeps_the_entity() {
    let (mut h, root, house) = started(&street(LAMP_900));
    let scene_root = node(&h, house, &[]).unwrap();
    h.modify(
        "street.forge.ron",
        &doc(
            &[
                ent(5, "House", None, &[6], ""),
                ent(6, "Cat", Some(5), &[], ""),
                ent(7, "Tree", None, &[], ""),
            ],
            &[5, 7],
        ),
    );
    h.run_until(|w| w.get_entity(scene_root).is_err());
    frames(&mut h, 20);
    assert_eq!(entity(&h, root, 5), Some(house));
    assert!(h.world().get::<ForgeModelNodes>(house).is_none());
    let cat = entity(&h, root, 6).unwrap();
    assert_eq!(parent(&h, cat), Some(house));
    assert!(lights(&mut h).is_empty());
    assert!(named(&mut h, "Roof").is_empty());
    tree_intact(&h, root);
}

#[test]
fn a_scene_edit_that_removes_the_house_with_the_cat_on_its_roof_keeps_the_cat() {
    let (mut h, root, house) = started(&street(LAMP_900));
    // The cat becomes a root; the house goes.
    h.modify(
        "street.forge.ron",
        &doc(
            &[ent(6, "Cat", None, &[], ""), ent(7, "Tree", None, &[], "")],
            &[6, 7],
        ),
    );
    h.run_until(|w| w.get_entity(house).is_err());
    frames(&mut h, 20);
    let cat = entity(&h, root, 6).expect("the cat is in the instance");
    assert!(h.world().get_entity(cat).is_ok(), "the cat is alive");
    assert_eq!(parent(&h, cat), Some(root));
    assert!(named(&mut h, "Roof").is_empty());
    tree_intact(&h, root);
}

#[test]
fn removing_the_instance_entity_while_its_model_is_not_loaded_spawns_nothing_later() {
    let mut h = harness();
    // No model file yet: the model waits.
    h.add("street.forge.ron", &street(LAMP_900));
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = entity(&h, root, 5).unwrap();
    frames(&mut h, 50);
    assert!(h.world().get::<ForgeModelNodes>(house).is_none());
    h.modify(
        "street.forge.ron",
        &doc(
            &[ent(6, "Cat", None, &[], ""), ent(7, "Tree", None, &[], "")],
            &[6, 7],
        ),
    );
    h.run_until(|w| w.get_entity(house).is_err());
    // The file arrives.
    h.modify("models/house.gltf", &model_text());
    frames(&mut h, 100);
    assert!(named(&mut h, "Roof").is_empty(), "no model spawns anywhere");
    let cat = entity(&h, root, 6).unwrap();
    assert_eq!(parent(&h, cat), Some(root));
    tree_intact(&h, root);
}

#[test]
fn changing_the_model_while_the_first_is_not_loaded_spawns_only_the_second() {
    let mut h = harness();
    h.add("street.forge.ron", &street(""));
    h.add("models/shed.gltf", &shed());
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = entity(&h, root, 5).unwrap();
    frames(&mut h, 20);
    h.modify(
        "street.forge.ron",
        &street("").replace(HOUSE, "models/shed.gltf#Scene0"),
    );
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    // The first file arrives late.
    h.modify("models/house.gltf", &model_text());
    frames(&mut h, 100);
    assert_eq!(h.world().get::<ForgeModelNodes>(house).unwrap().len(), 3);
    assert!(named(&mut h, "Chimney").is_empty());
    assert_eq!(named(&mut h, "Roof").len(), 1);
    tree_intact(&h, root);
}

#[test]
fn despawning_the_instance_entity_then_re_exporting_and_editing_does_not_panic() {
    let (mut h, root, house) = started(&street(LAMP_900));
    h.app.world_mut().entity_mut(house).despawn();
    assert!(named(&mut h, "Roof").is_empty(), "the nodes went with it");
    h.modify(
        "models/house.gltf",
        &model_text().replace("\"Ground\"", "\"Lawn\""),
    );
    frames(&mut h, 100);
    assert!(named(&mut h, "Lawn").is_empty(), "nothing writes the model");
    h.modify(
        "street.forge.ron",
        &street(&LAMP_900.replace("900.0", "1200.0")),
    );
    frames(&mut h, 100);
    let lights = lights(&mut h);
    assert!(
        lights.iter().all(|(_, i)| *i == 1200.0),
        "no stale light: {lights:?}"
    );
    tree_intact(&h, root);
}

#[test]
fn despawning_a_node_then_re_exporting_brings_it_back_with_its_overrides() {
    let (mut h, root, house) = started(&street(&format!(
        r#"{LAMP_900}(target: ["House", "Roof", "Chimney"], name: Some("Smokestack")),"#
    )));
    let roof = node(&h, house, &["House", "Roof"]).unwrap();
    let lamp = node(&h, house, &["House", "Lamp"]).unwrap();
    // The game despawns the roof (the chimney and the cat go with it) and the lamp.
    h.app.world_mut().entity_mut(roof).despawn();
    h.app.world_mut().entity_mut(lamp).despawn();
    frames(&mut h, 5);
    h.modify(
        "models/house.gltf",
        &model_text().replace("\"Ground\"", "\"Lawn\""),
    );
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .is_some_and(|n| n.node(&["Lawn"]).is_some())
    });
    let nodes = h.world().get::<ForgeModelNodes>(house).unwrap();
    assert_eq!(nodes.len(), 9);
    let dead: Vec<_> = nodes
        .iter()
        .filter(|(_, e)| h.world().get_entity(*e).is_err())
        .map(|(p, _)| p.to_vec())
        .collect();
    assert!(dead.is_empty(), "nodes that are not alive: {dead:?}");
    let new_roof = node(&h, house, &["House", "Roof"]).unwrap();
    assert_ne!(new_roof, roof);
    assert_eq!(parent(&h, new_roof), node(&h, house, &["House"]));
    let chimney = node(&h, house, &["House", "Roof", "Chimney"]).unwrap();
    assert_eq!(name(&h, chimney), "Smokestack");
    assert_eq!(lamp_intensity(&h, house), 900.0);
    assert_eq!(lights(&mut h).len(), 1);
    // A scene edit afterwards applies to the new entities.
    h.modify(
        "street.forge.ron",
        &street(&LAMP_900.replace("900.0", "1200.0")),
    );
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .and_then(|n| n.node(&["House", "Lamp", ""]))
            .and_then(|l| w.get::<PointLight>(l))
            .is_some_and(|l| l.intensity == 1200.0)
    });
    assert_eq!(name(&h, chimney), "Chimney");
    tree_intact(&h, root);
}

#[test]
fn despawning_the_light_then_editing_the_scene_does_not_panic() {
    let (mut h, root, house) = started(&street(LAMP_900));
    let light = node(&h, house, &["House", "Lamp", ""]).unwrap();
    h.app.world_mut().entity_mut(light).despawn();
    h.modify(
        "street.forge.ron",
        &street(&LAMP_900.replace("900.0", "1200.0")),
    );
    // The scene edit writes the model's values again: the light is back, with the new value.
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .and_then(|n| n.node(&["House", "Lamp", ""]))
            .and_then(|l| w.get::<PointLight>(l))
            .is_some_and(|l| l.intensity == 1200.0)
    });
    let new = node(&h, house, &["House", "Lamp", ""]).unwrap();
    assert_ne!(new, light);
    assert_eq!(parent(&h, new), node(&h, house, &["House", "Lamp"]));
    assert_eq!(lights(&mut h), vec![(new, 1200.0)]);
    tree_intact(&h, root);
}

#[test]
fn a_model_file_without_scenes_spawns_nothing_until_fixed() {
    let mut h = harness();
    h.add(
        "models/house.gltf",
        r#"{"asset": {"version": "2.0"}, "scenes": [], "nodes": []}"#,
    );
    h.add("street.forge.ron", &street(LAMP_900));
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = entity(&h, root, 5).unwrap();
    frames(&mut h, 100);
    assert!(h.world().get::<ForgeModelNodes>(house).is_none());
    let cat = entity(&h, root, 6).unwrap();
    assert_eq!(parent(&h, cat), Some(house));
    tree_intact(&h, root);
    h.modify("models/house.gltf", &model_text());
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    assert_eq!(lamp_intensity(&h, house), 900.0);
}

#[test]
fn a_scene_index_the_file_lacks_leaves_other_scenes_of_the_file_spawning() {
    let (mut h, root) = spawned(&doc(
        &[
            ent(5, "House", None, &[], &model(HOUSE, LAMP_900)),
            ent(
                6,
                "Ghost",
                None,
                &[],
                &model("models/house.gltf#Scene5", ""),
            ),
            ent(7, "Tree", None, &[], ""),
        ],
        &[5, 6, 7],
    ));
    let house = entity(&h, root, 5).unwrap();
    let ghost = entity(&h, root, 6).unwrap();
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    frames(&mut h, 100);
    assert!(h.world().get::<ForgeModelNodes>(ghost).is_none());
    assert!(h.world().get::<Children>(ghost).is_none());
    assert_eq!(name(&h, ghost), "Ghost");
    assert_eq!(lamp_intensity(&h, house), 900.0);
    assert_eq!(named(&mut h, "Roof").len(), 1);
    tree_intact(&h, root);
}

#[test]
fn a_node_naming_a_child_index_the_file_lacks_spawns_the_rest() {
    // The stand-in names a missing node `GltfNode99`, as it names any node without a name.
    let text = model_text().replacen(
        "\"children\": [\n    1,",
        "\"children\": [\n    99,\n    1,",
        1,
    );
    assert_ne!(text, model_text());
    let mut h = harness();
    h.add("models/house.gltf", &text);
    h.add("street.forge.ron", &street(LAMP_900));
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = entity(&h, root, 5).unwrap();
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    assert!(node(&h, house, &["House", "GltfNode99"]).is_some());
    assert_eq!(lamp_intensity(&h, house), 900.0);
    tree_intact(&h, root);
}

#[test]
fn a_node_that_two_parents_list_is_a_node_under_each() {
    // `Door` also lists the chimney (5) as its child: the stand-in spawns it under both.
    let text = model_text().replace(
        "\"name\": \"Door\",",
        "\"name\": \"Door\",\n   \"children\": [5],",
    );
    assert_ne!(text, model_text());
    let mut h = harness();
    h.add("models/house.gltf", &text);
    h.add(
        "street.forge.ron",
        &street(r#"(target: ["House", "Door", "Chimney"], name: Some("Door chimney")),"#),
    );
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = entity(&h, root, 5).unwrap();
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    let a = node(&h, house, &["House", "Roof", "Chimney"]).unwrap();
    let b = node(&h, house, &["House", "Door", "Chimney"]).unwrap();
    assert_ne!(a, b);
    assert_eq!(name(&h, a), "Chimney");
    assert_eq!(name(&h, b), "Door chimney");
    tree_intact(&h, root);
}

#[test]
fn many_instances_of_one_model_each_get_their_own_nodes() {
    const N: u64 = 200;
    let mut entities: Vec<String> = (0..N)
        .map(|i| {
            let o = LAMP_900.replace("900.0", &format!("{}.0", 100 + i));
            ent(10 + i, &format!("House {i}"), None, &[], &model(HOUSE, &o))
        })
        .collect();
    entities.push(ent(7, "Tree", None, &[], ""));
    let mut roots: Vec<u64> = (0..N).map(|i| 10 + i).collect();
    roots.push(7);
    let (mut h, root) = spawned(&doc(&entities, &roots));
    let houses: Vec<Entity> = (0..N).map(|i| entity(&h, root, 10 + i).unwrap()).collect();
    h.run_until(|w| {
        houses
            .iter()
            .all(|e| w.get::<ForgeModelNodes>(*e).is_some())
    });
    for (i, house) in houses.iter().enumerate() {
        assert_eq!(lamp_intensity(&h, *house), 100.0 + i as f32);
        assert_eq!(h.world().get::<ForgeModelNodes>(*house).unwrap().len(), 9);
    }
    assert_eq!(lights(&mut h).len(), N as usize);
    assert_eq!(named(&mut h, "Chimney").len(), N as usize);
    // One re-export writes them all again, in place.
    let lamps: Vec<Entity> = houses
        .iter()
        .map(|e| node(&h, *e, &["House", "Lamp", ""]).unwrap())
        .collect();
    h.modify(
        "models/house.gltf",
        &model_text().replace("\"Ground\"", "\"Lawn\""),
    );
    h.run_until(|w| {
        houses.iter().all(|e| {
            w.get::<ForgeModelNodes>(*e)
                .is_some_and(|n| n.node(&["Lawn"]).is_some())
        })
    });
    for (house, lamp) in houses.iter().zip(&lamps) {
        assert_eq!(node(&h, *house, &["House", "Lamp", ""]), Some(*lamp));
    }
    assert_eq!(lights(&mut h).len(), N as usize);
    assert_eq!(named(&mut h, "Chimney").len(), N as usize);
    tree_intact(&h, root);
}

#[test]
fn two_roots_of_one_scene_get_separate_nodes() {
    let (mut h, first, house) = started(&street(LAMP_900));
    let handle = h.load("street.forge.ron");
    let second = h.spawn_root(&handle);
    h.run_until(|w| {
        w.get::<ForgeSceneInstance>(second)
            .and_then(|i| i.entity(5))
            .is_some_and(|e| w.get::<ForgeModelNodes>(e).is_some())
    });
    let other = entity(&h, second, 5).unwrap();
    assert_ne!(
        node(&h, house, &["House", "Roof"]),
        node(&h, other, &["House", "Roof"])
    );
    assert_eq!(lights(&mut h).len(), 2);
    assert_eq!(
        parent(&h, entity(&h, second, 6).unwrap()),
        node(&h, other, &["House", "Roof"])
    );
    tree_intact(&h, first);
    tree_intact(&h, second);
}

/// A prefab whose entity 1 places the house with the lamp at 900.
fn lot() -> String {
    doc(&[ent(1, "Lot", None, &[], &model(HOUSE, LAMP_900))], &[1])
}

#[test]
fn a_prefab_placing_a_model_spawns_it_when_spawned_as_a_scene() {
    let mut h = harness();
    h.add("models/house.gltf", &model_text());
    h.add("prefabs/lot.forge.ron", &lot());
    let (root, _) = h.spawn_scene("prefabs/lot.forge.ron");
    let lot = entity(&h, root, 1).unwrap();
    h.run_until(|w| w.get::<ForgeModelNodes>(lot).is_some());
    assert_eq!(lamp_intensity(&h, lot), 900.0);
}

#[test]
fn a_model_placed_inside_a_placed_prefab_spawns() {
    let mut h = harness();
    h.add("models/house.gltf", &model_text());
    h.add("prefabs/lot.forge.ron", &lot());
    h.add(
        "street.forge.ron",
        &doc(
            &[
                ent(
                    5,
                    "Lot here",
                    None,
                    &[],
                    r#"instance: Some((scene: "prefabs/lot.forge.ron", overrides: []))"#,
                ),
                ent(7, "Tree", None, &[], ""),
            ],
            &[5, 7],
        ),
    );
    let (root, instance) = h.spawn_scene("street.forge.ron");
    let lot = instance.entity_path(&[5, 1]).expect("the prefab's entity");
    assert_eq!(name(&h, lot), "Lot");
    h.run_until(|w| w.get::<ForgeModelNodes>(lot).is_some());
    assert_eq!(lamp_intensity(&h, lot), 900.0);
    tree_intact(&h, root);
}

#[test]
fn an_instance_entity_the_game_moves_out_of_the_scene_before_its_model_loads() {
    let mut h = harness();
    h.add("street.forge.ron", &street(LAMP_900));
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = entity(&h, root, 5).unwrap();
    frames(&mut h, 20);
    // The game carries the house off under its own entity.
    let cart = h.app.world_mut().spawn(Name::new("Cart")).id();
    h.app.world_mut().entity_mut(cart).add_child(house);
    h.modify("models/house.gltf", &model_text());
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    assert_eq!(parent(&h, house), Some(cart));
    assert_eq!(lamp_intensity(&h, house), 900.0);
    tree_intact(&h, root);
}

#[test]
fn an_instance_entity_the_game_moves_after_its_model_spawned_then_a_re_export() {
    let (mut h, root, house) = started(&street(LAMP_900));
    let cart = h.app.world_mut().spawn(Name::new("Cart")).id();
    h.app.world_mut().entity_mut(cart).add_child(house);
    h.modify(
        "models/house.gltf",
        &model_text().replace("\"Ground\"", "\"Lawn\""),
    );
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .is_some_and(|n| n.node(&["Lawn"]).is_some())
    });
    assert_eq!(lamp_intensity(&h, house), 900.0);
    tree_intact(&h, root);
}

#[test]
fn removing_the_point_light_of_a_light_node_removes_the_light_that_set_reaches() {
    let (mut h, root, house) = started(&street(
        r#"(target: ["House", "Lamp"], remove: ["point_light"]),"#,
    ));
    let lights = lights(&mut h);
    assert!(lights.is_empty(), "the lamp's light stays: {lights:?}");
    assert!(node(&h, house, &["House", "Lamp", ""]).is_some());
    tree_intact(&h, root);
}

#[test]
fn a_dropped_rename_of_the_unnamed_light_is_undone() {
    let (mut h, root, house) = started(&street(
        r#"(target: ["House", "Lamp", ""], name: Some("Bulb")),"#,
    ));
    let light = node(&h, house, &["House", "Lamp", ""]).unwrap();
    assert_eq!(name(&h, light), "Bulb");
    // The rename goes and the lamp's intensity is set on the node (its light, as Bevy puts it).
    h.modify("street.forge.ron", &street(LAMP_900));
    // Until the reload has set the intensity (on a loaded machine 100 frames may not be enough).
    h.run_until(|w| {
        w.get::<PointLight>(light)
            .is_some_and(|l| l.intensity == 900.0)
    });
    let now = h.world().get::<Name>(light).map(|n| n.as_str().to_owned());
    let intensity = h.world().get::<PointLight>(light).map(|l| l.intensity);
    assert_eq!(now, None, "the model's light has no name");
    assert_eq!(intensity, Some(900.0));
    tree_intact(&h, root);
}

#[test]
fn model_paths_that_name_no_model_scene_fail_the_load() {
    for path in [
        "models/house.gltf",
        "models/house.gltf#Scene01",
        "models/house.gltf#Scene-1",
        "models/house.gltf#scene0",
        "models/house.gltf#Mesh0",
        "models/house.png#Scene0",
        "prefabs/lot.forge.ron",
        "../models/house.gltf#Scene0",
        "",
    ] {
        let mut h = harness();
        h.add("models/house.gltf", &model_text());
        h.add("street.forge.ron", &street("").replace(HOUSE, path));
        let (_, state) = load_outcome(&mut h);
        assert!(
            matches!(state, LoadState::Failed(_)),
            "`{path}` loads: {state:?}"
        );
    }
}

#[test]
fn a_broken_re_export_keeps_the_live_nodes_and_a_fixed_one_patches_them() {
    let (mut h, root, house) = started(&street(LAMP_900));
    let roof = node(&h, house, &["House", "Roof"]).unwrap();
    h.modify("models/house.gltf", "{ half a file");
    frames(&mut h, 100);
    assert_eq!(node(&h, house, &["House", "Roof"]), Some(roof));
    assert_eq!(lamp_intensity(&h, house), 900.0);
    h.modify(
        "models/house.gltf",
        &model_text().replace("\"Ground\"", "\"Lawn\""),
    );
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .is_some_and(|n| n.node(&["Lawn"]).is_some())
    });
    assert_eq!(node(&h, house, &["House", "Roof"]), Some(roof));
    assert_eq!(lamp_intensity(&h, house), 900.0);
    assert_eq!(lights(&mut h).len(), 1);
    tree_intact(&h, root);
}

#[test]
fn a_re_export_without_the_scene_then_with_it_again_does_not_panic() {
    let (mut h, root, house) = started(&street(LAMP_900));
    h.modify(
        "models/house.gltf",
        r#"{"asset": {"version": "2.0"}, "scenes": [], "nodes": []}"#,
    );
    frames(&mut h, 100);
    let cat = entity(&h, root, 6).unwrap();
    assert!(h.world().get_entity(cat).is_ok(), "the cat is alive");
    h.modify(
        "models/house.gltf",
        &model_text().replace("\"Ground\"", "\"Lawn\""),
    );
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .is_some_and(|n| n.node(&["Lawn"]).is_some())
    });
    assert_eq!(lamp_intensity(&h, house), 900.0);
    assert_eq!(lights(&mut h).len(), 1);
    assert_eq!(named(&mut h, "Roof").len(), 1);
    assert_eq!(parent(&h, cat), node(&h, house, &["House", "Roof"]));
    tree_intact(&h, root);
}

#[test]
fn a_re_export_that_renames_the_node_the_cat_sits_on_keeps_the_cat() {
    let (mut h, root, house) = started(&street(""));
    let cat = entity(&h, root, 6).unwrap();
    let roof = node(&h, house, &["House", "Roof"]).unwrap();
    assert_eq!(parent(&h, cat), Some(roof));
    h.modify(
        "models/house.gltf",
        &model_text().replace("\"name\": \"Roof\"", "\"name\": \"Attic\""),
    );
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .is_some_and(|n| n.node(&["House", "Attic"]).is_some())
    });
    assert!(h.world().get_entity(roof).is_err(), "the roof node went");
    assert!(h.world().get_entity(cat).is_ok(), "the cat is alive");
    assert_eq!(
        parent(&h, cat),
        Some(house),
        "back under the instance entity"
    );
    // The roof back: the cat on it again.
    h.modify("models/house.gltf", &model_text());
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .is_some_and(|n| n.node(&["House", "Roof"]).is_some())
    });
    assert_eq!(parent(&h, cat), node(&h, house, &["House", "Roof"]));
    tree_intact(&h, root);
}

#[test]
fn a_very_deep_model_spawns_and_its_deepest_node_takes_an_override() {
    const DEPTH: usize = 400;
    let nodes: Vec<String> = (0..DEPTH)
        .map(|i| {
            if i + 1 < DEPTH {
                format!(r#"{{"name": "N{i}", "children": [{}]}}"#, i + 1)
            } else {
                format!(r#"{{"name": "N{i}"}}"#)
            }
        })
        .collect();
    let text = format!(
        r#"{{"asset": {{"version": "2.0"}}, "scenes": [{{"nodes": [0]}}], "nodes": [{}]}}"#,
        nodes.join(", ")
    );
    let path: Vec<String> = (0..DEPTH).map(|i| format!("\"N{i}\"")).collect();
    let o = format!("(target: [{}], name: Some(\"Bottom\")),", path.join(", "));
    let mut h = harness();
    h.add("models/deep.gltf", &text);
    h.add(
        "street.forge.ron",
        &doc(
            &[
                ent(5, "Deep", None, &[], &model("models/deep.gltf#Scene0", &o)),
                ent(7, "Tree", None, &[], ""),
            ],
            &[5, 7],
        ),
    );
    let (root, _) = h.spawn_scene("street.forge.ron");
    let deep = entity(&h, root, 5).unwrap();
    h.run_until(|w| w.get::<ForgeModelNodes>(deep).is_some());
    assert_eq!(
        h.world().get::<ForgeModelNodes>(deep).unwrap().len(),
        DEPTH + 1
    );
    assert_eq!(named(&mut h, "Bottom").len(), 1);
    tree_intact(&h, root);
}
