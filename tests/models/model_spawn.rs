//! Placed glTF models at run time (feature `gltf`): the model's nodes spawn under the instance
//! entity, the instance's overrides apply by node path, a re-export patches by node path
//! (keeping the game's components on nodes that stay), and a scene edit applies new overrides
//! to the same node entities.
//!
//! Bevy's own `GltfPlugin` needs the render stack's Rust version: here a stand-in loader reads
//! the test model's JSON into the `WorldAsset` shape Bevy's glTF loader gives (a root named
//! after the glTF scene, node entities named as the nodes, `GltfNode{index}` for unnamed ones,
//! a point light on light nodes). `render-tests/tests/testsuite/models.rs` runs the same with
//! Bevy's loader.
#![cfg(feature = "gltf")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::stand_in_gltf;

use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeModelNodes;
use bevy_forge_scene::prelude::*;
use bevy_light::PointLight;
use bevy_reflect::std_traits::ReflectDefault;
use bevy_transform::components::Transform;
use common::Orbit;
use common::harness::Harness;

fn model_text() -> String {
    common::fixture_text("models/house.gltf")
}

/// The model with node `Door` renamed `Porch` (a node removed, another added).
fn re_exported() -> String {
    model_text().replace("\"name\": \"Door\"", "\"name\": \"Porch\"")
}

const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

/// A street: entity 5 places the house with `overrides` (RON, each ending in a comma), entity
/// 6 (a cat) is placed under the roof.
fn street(overrides: &str) -> String {
    street_with(overrides, true)
}

/// [`street`], the cat under the roof or (`false`) a child of the instance entity.
fn street_with(overrides: &str, cat_on_roof: bool) -> String {
    let (house_children, roof) = if cat_on_roof {
        ("", r#"(target: ["House", "Roof"], children: [6]),"#)
    } else {
        ("6", "")
    };
    format!(
        r#"(
  format_version: 1,
  name: "Street",
  entities: {{
    5: (id: 5, name: "House", parent: None, children: [{house_children}], {T}, components: [],
        instance: Some((
          model: "models/house.gltf#Scene0",
          overrides: [
            {roof}
            {overrides}
          ],
        ))),
    6: (id: 6, name: "Cat", parent: Some(5), children: [], {T}, components: []),
  }},
  roots: [5],
  next_id: 7,
)"#
    )
}

const LAMP_900: &str =
    r#"(target: ["House", "Lamp"], set: [(type: point_light, data: (intensity: 900.0))]),"#;
const DOOR_ORBIT: &str = r#"(target: ["House", "Door"], add: [(type: custom, data: (type_path: "forge_demo::Orbit", fields: [(name: "radius", expr: "2.0"), (name: "speed", expr: "1.0")]))]),"#;
const CHIMNEY: &str = r#"(target: ["House", "Roof", "Chimney"], name: Some("Smokestack")),"#;

/// A runtime component of the game's, put on a node after it spawned.
#[derive(Component)]
struct Lit;

/// A game component naming another entity (`at: #6` in a scene).
#[derive(Component, bevy_reflect::Reflect, Debug, bevy_forge_scene::ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "model_test::Post")]
struct Post {
    at: Entity,
}

impl Default for Post {
    fn default() -> Self {
        Self {
            at: Entity::PLACEHOLDER,
        }
    }
}

fn start(overrides: &str) -> (Harness, Entity) {
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    let mut h = Harness::with_setup(|app| {
        stand_in_gltf::add_to(app)
            .register_type::<Orbit>()
            .register_type::<Post>();
    });
    h.add("models/house.gltf", &model_text());
    h.add("street.forge.ron", &street(overrides));
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = instance_entity(&h, root, 5);
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    (h, root)
}

fn instance_entity(h: &Harness, root: Entity, id: u64) -> Entity {
    h.world()
        .get::<ForgeSceneInstance>(root)
        .unwrap()
        .entity(id)
        .unwrap()
}

fn node(h: &Harness, house: Entity, path: &[&str]) -> Option<Entity> {
    h.world().get::<ForgeModelNodes>(house).unwrap().node(path)
}

fn name(h: &Harness, e: Entity) -> String {
    h.world().get::<Name>(e).unwrap().as_str().to_owned()
}

#[test]
fn a_placed_model_spawns_its_nodes_under_the_instance_with_overrides_by_node_path() {
    let (h, root) = start(&format!(
        "{LAMP_900}\n{DOOR_ORBIT}\n{CHIMNEY}\n(target: [\"House\", \"Attic\"], name: Some(\"Nothing\")),"
    ));
    let house = instance_entity(&h, root, 5);
    let nodes = h.world().get::<ForgeModelNodes>(house).unwrap();
    // The scene root, House and its five descendants, the lamp's light, and Ground.
    assert_eq!(nodes.len(), 9, "{nodes:?}");
    let scene_root = nodes.node::<&str>(&[]).unwrap();
    assert_eq!(
        h.world().get::<ChildOf>(scene_root).unwrap().parent(),
        house
    );
    let roof = node(&h, house, &["House", "Roof"]).unwrap();
    assert_eq!(name(&h, roof), "Roof");
    assert_eq!(
        h.world().get::<Transform>(roof).unwrap().translation.y,
        3.0,
        "the node's own transform, from the file"
    );
    // An unnamed node is known as Bevy names it.
    assert!(node(&h, house, &["House", "GltfNode3"]).is_some());
    // `set` changes the listed field and keeps the model's others, on the node's light (an
    // unnamed child of the node, as Bevy spawns it).
    let lamp = node(&h, house, &["House", "Lamp", ""]).unwrap();
    assert_eq!(
        h.world().get::<ChildOf>(lamp).unwrap().parent(),
        node(&h, house, &["House", "Lamp"]).unwrap()
    );
    let light = h.world().get::<PointLight>(lamp).unwrap();
    assert_eq!(light.intensity, 900.0);
    assert_eq!(
        light.color,
        bevy_color::Color::srgb(1.0, 0.9, 0.7),
        "a field the override does not set keeps the model's value"
    );
    assert_eq!(light.range, 20.0);
    // `add` of a custom component, `name`.
    let door = node(&h, house, &["House", "Door"]).unwrap();
    assert_eq!(h.world().get::<Orbit>(door).unwrap().radius, 2.0);
    let chimney = node(&h, house, &["House", "Roof", "Chimney"]).unwrap();
    assert_eq!(name(&h, chimney), "Smokestack");
    // `children`: the scene's cat is under the roof node.
    let cat = instance_entity(&h, root, 6);
    assert_eq!(h.world().get::<ChildOf>(cat).unwrap().parent(), roof);
    assert!(h.world().get::<Children>(roof).unwrap().contains(&cat));
    // A missing node changes nothing (validation reports it at its line).
    assert!(
        h.world()
            .iter_entities()
            .all(|e| e.get::<Name>().is_none_or(|n| n.as_str() != "Nothing"))
    );
}

#[test]
fn a_re_export_patches_by_node_path_and_keeps_game_state_on_nodes_that_stay() {
    let (mut h, root) = start(&format!("{LAMP_900}\n{DOOR_ORBIT}"));
    let house = instance_entity(&h, root, 5);
    let lamp = node(&h, house, &["House", "Lamp", ""]).unwrap();
    let door = node(&h, house, &["House", "Door"]).unwrap();
    let roof = node(&h, house, &["House", "Roof"]).unwrap();
    h.app.world_mut().entity_mut(lamp).insert(Lit);
    // The game's own child under a node.
    let sparrow = h.app.world_mut().spawn(Name::new("Sparrow")).id();
    h.app.world_mut().entity_mut(roof).add_child(sparrow);

    h.modify("models/house.gltf", &re_exported());
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .is_some_and(|n| n.node(&["House", "Porch"]).is_some())
    });
    // Door went, Porch came.
    assert!(node(&h, house, &["House", "Door"]).is_none());
    assert!(
        h.world().get_entity(door).is_err(),
        "the removed node is despawned"
    );
    // Nodes that stay are the same entities, with the game's component and the override.
    assert_eq!(node(&h, house, &["House", "Lamp", ""]), Some(lamp));
    assert!(h.world().get::<Lit>(lamp).is_some());
    assert_eq!(h.world().get::<PointLight>(lamp).unwrap().intensity, 900.0);
    assert_eq!(node(&h, house, &["House", "Roof"]), Some(roof));
    let children = h.world().get::<Children>(roof).unwrap();
    let cat = instance_entity(&h, root, 6);
    assert!(
        children.contains(&cat),
        "the scene's cat stays under the roof"
    );
    assert!(
        children.contains(&sparrow),
        "the game's child stays under the roof"
    );
    let chimney = node(&h, house, &["House", "Roof", "Chimney"]).unwrap();
    assert!(children.contains(&chimney));
    assert_eq!(h.world().get::<ChildOf>(sparrow).unwrap().parent(), roof);
    // The override of the gone node is kept: the model getting `Door` back applies it again.
    h.modify("models/house.gltf", &model_text());
    h.run_until(|w| {
        w.get::<ForgeModelNodes>(house)
            .is_some_and(|n| n.node(&["House", "Door"]).is_some())
    });
    let door = node(&h, house, &["House", "Door"]).unwrap();
    assert_eq!(h.world().get::<Orbit>(door).unwrap().radius, 2.0);
}

#[test]
fn a_scene_edit_applies_new_overrides_to_the_same_node_entities() {
    let (mut h, root) = start(&format!("{LAMP_900}\n{DOOR_ORBIT}"));
    let house = instance_entity(&h, root, 5);
    let lamp = node(&h, house, &["House", "Lamp", ""]).unwrap();
    let door = node(&h, house, &["House", "Door"]).unwrap();
    h.app.world_mut().entity_mut(lamp).insert(Lit);

    let lamp_1200 = LAMP_900.replace("900.0", "1200.0");
    h.modify(
        "street.forge.ron",
        &street(&format!("{lamp_1200}\n{CHIMNEY}")),
    );
    h.run_until(|w| {
        w.get::<PointLight>(lamp)
            .is_some_and(|l| l.intensity == 1200.0)
    });
    assert_eq!(node(&h, house, &["House", "Lamp", ""]), Some(lamp));
    assert!(h.world().get::<Lit>(lamp).is_some(), "game state stays");
    assert_eq!(h.world().get::<PointLight>(lamp).unwrap().range, 20.0);
    // The `add` that went takes its component with it; the new `name` applies.
    assert_eq!(node(&h, house, &["House", "Door"]), Some(door));
    assert!(h.world().get::<Orbit>(door).is_none());
    let chimney = node(&h, house, &["House", "Roof", "Chimney"]).unwrap();
    assert_eq!(name(&h, chimney), "Smokestack");

    // Dropping the roof's `children` puts the cat back under the instance entity.
    h.modify("street.forge.ron", &street_with("", false));
    let cat = instance_entity(&h, root, 6);
    h.run_until(|w| w.get::<ChildOf>(cat).is_some_and(|c| c.parent() == house));
    assert_eq!(name(&h, chimney), "Chimney", "the model's own name again");
}

#[test]
fn the_activation_gate_holds_and_releases_the_model_nodes_with_the_instance() {
    let mut h = Harness::with_setup(|app| {
        stand_in_gltf::add_to(app).register_type::<Orbit>();
    });
    h.add("models/house.gltf", &model_text());
    h.add("street.forge.ron", &street(LAMP_900));
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
    let house = instance_entity(&h, root, 5);
    let nodes: Vec<Entity> = h
        .world()
        .get::<ForgeModelNodes>(house)
        .unwrap()
        .iter()
        .map(|(_, e)| e)
        .collect();
    assert!(
        nodes
            .iter()
            .all(|n| h.world().get::<ForgeSceneInactive>(*n).is_some()),
        "every node spawns held inactive"
    );
    h.app
        .world_mut()
        .entity_mut(root)
        .remove::<ForgeSceneInactive>();
    h.run_until(|w| {
        nodes
            .iter()
            .all(|n| w.get::<ForgeSceneInactive>(*n).is_none())
    });
}

#[test]
fn capturing_the_instance_keeps_the_model_instance_and_leaves_its_nodes_out() {
    use bevy_forge_scene::capture::{CaptureOptions, capture_instance};
    let (h, root) = start(&format!("{LAMP_900}\n{DOOR_ORBIT}"));
    let captured = capture_instance(h.world(), root, &CaptureOptions::default()).unwrap();
    assert!(captured.skipped.is_empty(), "{:?}", captured.skipped);
    let doc = captured.doc;
    assert_eq!(
        doc.entities.keys().copied().collect::<Vec<_>>(),
        vec![5, 6],
        "only the scene's own entities"
    );
    let instance = doc.entities[&5].instance.as_deref().unwrap();
    assert_eq!(instance.model.as_deref(), Some("models/house.gltf#Scene0"));
    assert_eq!(instance.overrides.len(), 3);
    assert_eq!(doc.entities[&6].parent, Some(5));
}

#[test]
fn a_model_that_does_not_load_leaves_the_instance_entity_and_the_scene_whole() {
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    let mut h = Harness::with_setup(|app| {
        stand_in_gltf::add_to(app).register_type::<Orbit>();
    });
    // Not JSON: the loader fails, as Bevy's does on a broken file.
    h.add("models/house.gltf", "{ not a model");
    h.add("street.forge.ron", &street(LAMP_900));
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = instance_entity(&h, root, 5);
    let cat = instance_entity(&h, root, 6);
    // Some frames for the load to fail.
    // The load fails and is reported once; nothing else changes.
    for _ in 0..100 {
        h.app.update();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    for _ in 0..5 {
        h.app.update();
    }
    assert!(h.world().get::<ForgeModelNodes>(house).is_none());
    assert_eq!(name(&h, house), "House");
    assert_eq!(
        h.world().get::<ChildOf>(cat).unwrap().parent(),
        house,
        "the cat waits under the instance entity"
    );
    // A good model saved later spawns.
    h.modify("models/house.gltf", &model_text());
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    let roof = node(&h, house, &["House", "Roof"]).unwrap();
    assert_eq!(h.world().get::<ChildOf>(cat).unwrap().parent(), roof);
}

/// An override of node `path` that adds (`add`) or sets (`set`) a `Post` at `at`.
fn post(path: &str, how: &str, at: &str) -> String {
    format!(
        r#"(target: {path}, {how}: [(type: custom, data: (type_path: "model_test::Post", fields: [(name: "at", expr: "{at}")]))]),"#
    )
}

#[test]
fn an_entity_reference_in_a_model_override_names_the_placing_scenes_entity() {
    let door = post(r#"["House", "Door"]"#, "add", "#6");
    let chimney = post(r#"["House", "Roof", "Chimney"]"#, "set", "#5");
    let (mut h, root) = start(&format!("{door}\n{chimney}"));
    let house = instance_entity(&h, root, 5);
    let cat = instance_entity(&h, root, 6);
    let door_node = node(&h, house, &["House", "Door"]).unwrap();
    assert_eq!(
        h.world().get::<Post>(door_node).unwrap().at,
        cat,
        "`#6` is the cat"
    );
    // A `set` on a node without the component inserts it whole, its reference resolved too.
    let chimney_node = node(&h, house, &["House", "Roof", "Chimney"]).unwrap();
    assert_eq!(
        h.world().get::<Post>(chimney_node).unwrap().at,
        house,
        "`#5` is the instance entity"
    );
    // A scene edit that changes the reference applies it to the same node.
    let door = post(r#"["House", "Door"]"#, "add", "#5");
    h.modify("street.forge.ron", &street(&format!("{door}\n{chimney}")));
    h.run_until(|w| w.get::<Post>(door_node).is_some_and(|p| p.at == house));
}

#[test]
fn a_reference_in_a_prefabs_model_override_names_that_placements_own_entity() {
    // The lot: a model (1) whose door's `Post` is at the lot's own mailbox (2).
    let door = post(r#"["House", "Door"]"#, "add", "#2");
    let lot = format!(
        r#"(format_version: 1, name: "Lot", entities: {{
    1: (id: 1, name: "Model", parent: None, children: [], {T}, components: [],
        instance: Some((model: "models/house.gltf#Scene0", overrides: [{door}]))),
    2: (id: 2, name: "Mailbox", parent: None, children: [], {T}, components: []),
  }}, roots: [1, 2], next_id: 3)"#
    );
    let placed = |id: u64| {
        format!(
            r#"{id}: (id: {id}, name: "Lot {id}", parent: None, children: [], {T}, components: [], instance: Some((scene: "prefabs/lot.forge.ron"))),"#
        )
    };
    let street = format!(
        "(format_version: 1, name: \"Street\", entities: {{ {} {} }}, roots: [5, 8], next_id: 9)",
        placed(5),
        placed(8)
    );
    let mut h = Harness::with_setup(|app| {
        stand_in_gltf::add_to(app).register_type::<Post>();
    });
    h.add("models/house.gltf", &model_text());
    h.add("prefabs/lot.forge.ron", &lot);
    h.add("street.forge.ron", &street);
    let (root, instance) = h.spawn_scene("street.forge.ron");
    for lot in [5, 8] {
        let model = instance.entity_path(&[lot, 1]).unwrap();
        let mailbox = instance.entity_path(&[lot, 2]).unwrap();
        h.run_until(|w| w.get::<ForgeModelNodes>(model).is_some());
        let door = node(&h, model, &["House", "Door"]).unwrap();
        assert_eq!(
            h.world().get::<Post>(door).unwrap().at,
            mailbox,
            "lot {lot}'s door is at its own mailbox"
        );
    }
    let _ = root;
}

#[test]
fn a_set_of_visibility_on_a_model_node_sets_it_and_an_edit_takes_it_back() {
    use bevy_camera::visibility::Visibility;
    let hidden = r#"(target: ["Ground"], set: [(type: visibility, data: hidden)]),"#;
    let (mut h, root) = start(hidden);
    let house = instance_entity(&h, root, 5);
    let ground = node(&h, house, &["Ground"]).unwrap();
    assert_eq!(
        h.world().get::<Visibility>(ground),
        Some(&Visibility::Hidden)
    );
    // Without the override the node is as the model has it (inherited).
    h.modify("street.forge.ron", &street(""));
    h.run_until(|w| w.get::<Visibility>(ground) != Some(&Visibility::Hidden));
    assert_eq!(
        h.world().get::<Visibility>(ground),
        Some(&Visibility::Inherited)
    );
}

/// A street of `n` houses (ids 10, 11, ..), each placing the model without overrides.
fn houses(n: u64) -> String {
    let entities: Vec<String> = (0..n)
        .map(|i| {
            let id = 10 + i;
            format!(
                r#"{id}: (id: {id}, name: "House {i}", parent: None, children: [], {T}, components: [], instance: Some((model: "models/house.gltf#Scene0"))),"#
            )
        })
        .collect();
    let roots: Vec<String> = (0..n).map(|i| (10 + i).to_string()).collect();
    format!(
        "(format_version: 1, name: \"Houses\", entities: {{ {} }}, roots: [{}], next_id: {})",
        entities.join("\n"),
        roots.join(", "),
        10 + n
    )
}

/// Spawns ten houses with `budget` (the root's own, or the app's default) and counts, frame by
/// frame, how many models have been written: the largest number written in one frame and the
/// frames in which any was.
fn models_per_frame(budget: ForgeSpawnBudget, own: bool) -> (usize, usize) {
    let mut h = Harness::with_setup(move |app| {
        stand_in_gltf::add_to(app);
        if !own {
            app.insert_resource(ForgeDefaultSpawnBudget(budget));
        }
    });
    h.add("models/house.gltf", &model_text());
    h.add("houses.forge.ron", &houses(10));
    let handle = h.load("houses.forge.ron");
    let root = h.app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    if own {
        h.app.world_mut().entity_mut(root).insert(budget);
    }
    let written = |w: &mut World| w.query::<&ForgeModelNodes>().iter(w).count();
    let (mut most, mut frames, mut last) = (0, 0, 0);
    h.run_until(|w| {
        let now = written(w);
        if now > last {
            most = most.max(now - last);
            frames += 1;
        }
        last = now;
        now == 10
    });
    (most, frames)
}

#[test]
fn placed_models_are_written_within_the_frames_spawn_budget() {
    // Each house is nine entities: a budget of five lets one model a frame, however many wait.
    let five = ForgeSpawnBudget::UNLIMITED.with_entities(5);
    assert_eq!(
        models_per_frame(five, false),
        (1, 10),
        "the app's default budget"
    );
    assert_eq!(
        models_per_frame(five, true),
        (1, 10),
        "the root's own budget"
    );
    // A budget a model does not spend lets the next one in the same frame, then stops.
    let twelve = ForgeSpawnBudget::UNLIMITED.with_entities(12);
    assert_eq!(models_per_frame(twelve, false), (2, 5));
    // Without a budget every model is written in the frame it loaded.
    assert_eq!(
        models_per_frame(ForgeSpawnBudget::UNLIMITED, false),
        (10, 1)
    );
}

/// A source of streaming at x = `x`.
fn source_at(h: &mut Harness, x: f32) -> Entity {
    h.app
        .world_mut()
        .spawn((Transform::from_xyz(x, 0.0, 0.0), ForgeStreamingSource))
        .id()
}

fn move_source(h: &mut Harness, source: Entity, x: f32) {
    h.app
        .world_mut()
        .get_mut::<Transform>(source)
        .unwrap()
        .translation
        .x = x;
}

/// How many entities of the world are the model's `Roof` node.
fn roofs(w: &mut World) -> usize {
    w.query::<&Name>()
        .iter(w)
        .filter(|n| n.as_str() == "Roof")
        .count()
}

const STREAMING: &str = "streaming: Some((load_radius: 10.0, unload_radius: 20.0))";

#[test]
fn a_model_in_a_streamed_cell_spawns_when_the_cell_comes_in_and_goes_when_it_leaves() {
    // The lot places the house model; the street streams the lot.
    let lot = format!(
        r#"(format_version: 1, name: "Lot", entities: {{
    1: (id: 1, name: "Model", parent: None, children: [], {T}, components: [],
        instance: Some((model: "models/house.gltf#Scene0", overrides: [{LAMP_900}]))),
  }}, roots: [1], next_id: 2)"#
    );
    let street = format!(
        r#"(format_version: 1, name: "Street", entities: {{
    5: (id: 5, name: "Lot", parent: None, children: [], {T}, components: [],
        instance: Some((scene: "prefabs/lot.forge.ron", {STREAMING}))),
  }}, roots: [5], next_id: 6)"#
    );
    let mut h = Harness::with_setup(|app| {
        stand_in_gltf::add_to(app);
    });
    h.add("models/house.gltf", &model_text());
    h.add("prefabs/lot.forge.ron", &lot);
    h.add("street.forge.ron", &street);
    let source = source_at(&mut h, 100.0);
    let (root, _) = h.spawn_scene("street.forge.ron");
    for _ in 0..20 {
        h.app.update();
    }
    assert_eq!(roofs(h.app.world_mut()), 0, "the cell is out: no model");
    move_source(&mut h, source, 0.0);
    h.run_until(|w| roofs(w) == 1);
    let model = h
        .world()
        .get::<ForgeSceneInstance>(root)
        .unwrap()
        .entity_path(&[5, 1])
        .unwrap();
    assert_eq!(lamp_intensity(&h, model), 900.0, "with its overrides");
    move_source(&mut h, source, 100.0);
    h.run_until(|w| roofs(w) == 0);
    assert!(
        h.world().get_entity(model).is_err(),
        "the model went with the cell"
    );
    // And comes back with it.
    move_source(&mut h, source, 0.0);
    h.run_until(|w| roofs(w) == 1);
}

#[test]
fn a_streamed_model_instance_writes_its_nodes_only_while_its_cell_is_in() {
    let text = street(LAMP_900).replace(
        "model: \"models/house.gltf#Scene0\",",
        &format!("model: \"models/house.gltf#Scene0\", {STREAMING},"),
    );
    let mut h = Harness::with_setup(|app| {
        stand_in_gltf::add_to(app);
    });
    h.add("models/house.gltf", &model_text());
    h.add("street.forge.ron", &text);
    let source = source_at(&mut h, 100.0);
    let (root, _) = h.spawn_scene("street.forge.ron");
    let house = instance_entity(&h, root, 5);
    for _ in 0..20 {
        h.app.update();
    }
    // The instance entity (the cell's anchor) is there; the model, its cell's content, is not.
    assert!(h.world().get::<ForgeModelNodes>(house).is_none());
    assert_eq!(roofs(h.app.world_mut()), 0);
    move_source(&mut h, source, 0.0);
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    assert_eq!(lamp_intensity(&h, house), 900.0);
    let roof = node(&h, house, &["House", "Roof"]).unwrap();
    let cat = instance_entity(&h, root, 6);
    assert_eq!(
        h.world().get::<ChildOf>(cat).unwrap().parent(),
        roof,
        "the cat on the roof"
    );
    move_source(&mut h, source, 100.0);
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_none());
    assert_eq!(roofs(h.app.world_mut()), 0, "the nodes went with the cell");
    assert!(h.world().get_entity(house).is_ok(), "the anchor stays");
    move_source(&mut h, source, 0.0);
    h.run_until(|w| w.get::<ForgeModelNodes>(house).is_some());
    assert_eq!(lamp_intensity(&h, house), 900.0, "the overrides again");
}

/// The intensity of the light of the model's lamp on `house`.
fn lamp_intensity(h: &Harness, house: Entity) -> f32 {
    let lamp = node(h, house, &["House", "Lamp", ""]).unwrap();
    h.world().get::<PointLight>(lamp).unwrap().intensity
}
