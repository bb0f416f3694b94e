//! Saving a live instance: `capture_instance` reads a spawned scene back into the document that
//! spawns it as it is now, and `save_instance` writes it atomically. Unchanged scenes come back
//! as read; runtime changes come back as exactly those changes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::capture::{CaptureError, CaptureOptions};
use bevy_forge_scene::capture::{capture_instance, save_instance};
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::format::{ComponentData, CustomField, PointLightData, TransformData};
use bevy_forge_scene::validate::validate_scene;
use bevy_math::{EulerRot, Quat, Vec3};
use bevy_transform::components::Transform;
use common::game::{Brain, Mode, Route, Stop};
use common::harness::Harness;
use common::scenes::{custom, entity, placing, scene};
use proptest::prelude::*;

use crate::gate;

const ALL: CaptureOptions = CaptureOptions {
    include_added: true,
};

/// A harness whose asset source holds every scene and prefab of `assets/`.
fn with_assets() -> Harness {
    let h = Harness::new();
    for dir in ["scenes", "prefabs", "textures"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets")
            .join(dir);
        for file in std::fs::read_dir(root).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            h.add_bytes(&format!("{dir}/{name}"), &std::fs::read(&path).unwrap());
        }
    }
    h
}

fn capture(h: &Harness, root: Entity, options: &CaptureOptions) -> SceneDoc {
    let captured = capture_instance(h.world(), root, options).unwrap();
    assert!(captured.skipped.is_empty(), "{:?}", captured.skipped);
    captured.doc
}

fn read(text: &str) -> SceneDoc {
    SceneDoc::from_str(text).unwrap().doc
}

#[test]
fn every_scene_captures_back_to_its_document() {
    let mut h = with_assets();
    let mut seen = 0;
    for file in
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenes")).unwrap()
    {
        let path = file.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        // Its `forge_demo::Health { hp }` is the prefab example's; the test types have a
        // tuple `Health` of that path (prefab scenes: the next test).
        if name == "goblin_camp.forge.ron" {
            continue;
        }
        let (root, _) = h.spawn_scene(&format!("scenes/{name}"));
        let expected = read(&std::fs::read_to_string(&path).unwrap());
        let captured = capture(&h, root, &CaptureOptions::default());
        assert_eq!(captured, expected, "{name}");
        // The same file order, so a saved scene diffs small.
        assert_eq!(
            captured.entities.keys().collect::<Vec<_>>(),
            expected.entities.keys().collect::<Vec<_>>(),
            "{name}"
        );
        assert!(
            bevy_forge_scene::diff::diff(&expected, &captured).is_empty(),
            "{name}"
        );
        seen += 1;
    }
    assert!(seen >= 4, "scenes found: {seen}");
}

#[test]
fn a_prefab_instance_keeps_its_instance_and_overrides_and_not_what_it_placed() {
    let mut h = Harness::new();
    let light = "(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 800, range: 20, shadows: false))";
    h.add(
        "torch.forge.ron",
        &scene(&[entity(1, "Flame", None, &[], light)], &[1]),
    );
    let text = scene(
        &[
            placing(5, "Torch A", "torch.forge.ron", ""),
            placing(
                6,
                "Torch B",
                "torch.forge.ron",
                "(target: [1], name: Some(\"Red\"), set: [(type: point_light, data: (intensity: 50.0))])",
            ),
            entity(7, "Floor", None, &[], ""),
        ],
        &[5, 6, 7],
    );
    h.add("hall.forge.ron", &text);
    let (root, instance) = h.spawn_scene("hall.forge.ron");
    // Five entities live (two placed); three are the scene's own.
    assert_eq!(instance.len(), 5);
    let doc = capture(&h, root, &CaptureOptions::default());
    assert_eq!(doc, read(&text));
}

#[test]
fn a_changed_transform_and_custom_field_are_exactly_what_changes() {
    let mut h = with_assets();
    let (root, instance) = h.spawn_scene("scenes/platformer.forge.ron");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenes/platformer.forge.ron"),
    )
    .unwrap();
    let base = read(&text);
    let (orbiting, _) = base
        .entities
        .iter()
        .find(|(_, n)| {
            n.components
                .iter()
                .any(|c| matches!(c, ComponentData::Custom(c) if c.type_path.ends_with("Orbit")))
        })
        .expect("the platformer has an orbiting entity");
    let orbiting = *orbiting;
    let moved = *base.roots.first().unwrap();
    let world = h.app.world_mut();
    let moved_entity = instance.entity(moved).unwrap();
    let orbit_entity = instance.entity(orbiting).unwrap();
    {
        let mut t = world.get_mut::<Transform>(moved_entity).unwrap();
        t.translation.x += 2.5;
        t.rotation = Quat::from_rotation_y(30f32.to_radians()) * t.rotation;
    }
    world.get_mut::<common::Orbit>(orbit_entity).unwrap().speed = 4.25;
    let captured = capture(&h, root, &CaptureOptions::default());

    let mut expected = base.clone();
    let node = expected.entity_mut(moved).unwrap();
    let was = node.transform;
    node.transform.translation.x += 2.5;
    let after = Quat::from_rotation_y(30f32.to_radians()) * was.rotation_quat();
    node.transform.rotation = TransformData::rotation_degrees(after);
    let node = expected.entity_mut(orbiting).unwrap();
    let ComponentData::Custom(orbit) = node
        .components
        .iter_mut()
        .find(|c| matches!(c, ComponentData::Custom(_)))
        .unwrap()
    else {
        unreachable!()
    };
    match orbit.fields.iter_mut().find(|f| f.name == "speed") {
        Some(field) => field.expr = "4.25".into(),
        None => orbit.fields.push(CustomField::new("speed", "4.25")),
    }
    assert_eq!(captured, expected);
    let diff = bevy_forge_scene::diff::diff(&base, &captured);
    assert_eq!(diff.changed.len(), 2, "{diff:?}");
    assert!(diff.added.is_empty() && diff.removed.is_empty());
}

/// Entity 1 "Guard" with a `Brain` and a `Route`, entity 2 "Post" under it.
fn guard_scene() -> String {
    scene(
        &[
            entity(
                1,
                "Guard",
                None,
                &[2],
                &format!(
                    "{}, {}",
                    custom("forge_demo::Brain", &[("hp", "40"), ("label", "\"gate\"")]),
                    custom(
                        "forge_demo::Route",
                        &[
                            ("name", "\"north\""),
                            (
                                "stops",
                                "vec![Stop { at: Vec3::new(1.0, 0.0, 0.0), wait: 2.0 }]"
                            )
                        ]
                    )
                ),
            ),
            entity(2, "Post", Some(1), &[], ""),
        ],
        &[1],
    )
}

#[test]
fn enum_option_vec_and_nested_fields_changed_at_runtime_spawn_again_as_they_were() {
    let mut h = Harness::new();
    h.add("guard.forge.ron", &guard_scene());
    let (root, instance) = h.spawn_scene("guard.forge.ron");
    let guard = instance.entity(1).unwrap();
    let world = h.app.world_mut();
    {
        let mut brain = world.get_mut::<Brain>(guard).unwrap();
        brain.mode = Mode::Patrol { speed: 1.5 };
        brain.target = Some(Vec3::new(0.0, 2.0, -1.0));
        brain.label = "gate \"east\"\nnight".into();
    }
    {
        let mut route = world.get_mut::<Route>(guard).unwrap();
        route.stops.push(Stop {
            at: Vec3::Z,
            wait: 0.5,
        });
        route.home.wait = 3.0;
        route.on_arrival = Some(Mode::Chase(3));
        route.window = (0.25, 8.0);
        route.tint = [255, 0, 7];
    }
    let captured = capture(&h, root, &CaptureOptions::default());
    let brain_fields = |doc: &SceneDoc| -> Vec<String> {
        match &doc.entity(1).unwrap().components[0] {
            ComponentData::Custom(c) => c.fields.iter().map(|f| f.name.to_string()).collect(),
            other => panic!("{other:?}"),
        }
    };
    // The scene's fields first, as written; then the changed ones in declaration order.
    assert_eq!(
        brain_fields(&captured),
        ["hp", "label", "mode", "target"].map(String::from)
    );
    assert!(!validate_scene(&captured, None).has_errors());

    // Spawned again from what was saved, the components are what the game had.
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("guard.forge.ron");
    save_instance(h.world(), root, &saved, &CaptureOptions::default()).unwrap();
    let mut again = Harness::new();
    again.add("guard.forge.ron", &std::fs::read_to_string(&saved).unwrap());
    let (_, instance_again) = again.spawn_scene("guard.forge.ron");
    let guard_again = instance_again.entity(1).unwrap();
    let world = h.app.world();
    let world_again = again.world();
    assert_eq!(
        world_again.get::<Brain>(guard_again),
        world.get::<Brain>(guard)
    );
    assert_eq!(
        world_again.get::<Route>(guard_again),
        world.get::<Route>(guard)
    );
}

#[test]
fn entity_references_are_written_as_ids_of_the_scene() {
    let mut h = with_assets();
    let (root, instance) = h.spawn_scene("scenes/castle_gate.forge.ron");
    let doc = capture(&h, root, &CaptureOptions::default());
    let (door_id, _) = doc
        .entities
        .iter()
        .find(|(_, n)| n.name == "Gate")
        .or_else(|| {
            doc.entities.iter().find(|(_, n)| {
                n.components
                    .iter()
                    .any(|c| matches!(c, ComponentData::Custom(c) if c.type_path.ends_with("Door")))
            })
        })
        .unwrap();
    let door = instance.entity(*door_id).unwrap();
    // The game points the door at another entity of the scene.
    let other_id = *doc.entities.keys().find(|id| **id != *door_id).unwrap();
    let other = instance.entity(other_id).unwrap();
    h.app
        .world_mut()
        .get_mut::<gate::Door>(door)
        .unwrap()
        .opened_by = other;
    let doc = capture(&h, root, &CaptureOptions::default());
    let ComponentData::Custom(door_component) = doc
        .entity(*door_id)
        .unwrap()
        .components
        .iter()
        .find(|c| matches!(c, ComponentData::Custom(c) if c.type_path.ends_with("Door")))
        .unwrap()
    else {
        unreachable!()
    };
    let opened_by = door_component
        .fields
        .iter()
        .find(|f| f.name == "opened_by")
        .unwrap();
    assert_eq!(opened_by.expr, format!("#{other_id}"));

    // An entity outside the instance has no id: the field is left out and listed.
    let stranger = h.app.world_mut().spawn_empty().id();
    h.app
        .world_mut()
        .get_mut::<gate::Door>(door)
        .unwrap()
        .opened_by = stranger;
    let captured = capture_instance(h.world(), root, &CaptureOptions::default()).unwrap();
    assert_eq!(captured.skipped.len(), 1, "{:?}", captured.skipped);
    assert!(
        captured.skipped[0].contains("opened_by"),
        "{:?}",
        captured.skipped
    );
}

#[test]
fn entities_the_game_added_are_captured_with_fresh_ids_when_asked() {
    let mut h = Harness::new();
    h.add("guard.forge.ron", &guard_scene());
    let (root, instance) = h.spawn_scene("guard.forge.ron");
    let post = instance.entity(2).unwrap();
    let world = h.app.world_mut();
    let spark = world
        .spawn((
            Name::new("Spark"),
            Transform::from_xyz(0.0, 1.0, 0.0),
            ChildOf(post),
            bevy_light::PointLight {
                intensity: 500.0,
                range: 4.0,
                ..Default::default()
            },
        ))
        .id();
    world.spawn((Name::new("Ember"), ChildOf(spark)));

    let without = capture(&h, root, &CaptureOptions::default());
    assert_eq!(without.entities.len(), 2);
    assert!(without.entity(2).unwrap().children.is_empty());

    let next = without.next_id;
    let with = capture(&h, root, &ALL);
    assert_eq!(with.entities.len(), 4);
    assert_eq!(with.next_id, next + 2);
    let spark_node = with.entity(next).unwrap();
    assert_eq!(spark_node.name, "Spark");
    assert_eq!(spark_node.parent, Some(2));
    assert_eq!(spark_node.children, [next + 1]);
    assert_eq!(spark_node.transform.translation.y, 1.0);
    assert!(matches!(
        &spark_node.components[..],
        [ComponentData::PointLight(PointLightData { intensity, range, .. })] if *intensity == 500.0 && *range == 4.0
    ));
    assert_eq!(with.entity(next + 1).unwrap().name, "Ember");
    assert_eq!(with.entity(2).unwrap().children, [next]);
    assert!(!validate_scene(&with, None).has_errors());
}

#[test]
fn despawned_and_moved_entities_are_left_out_and_the_rest_validates() {
    let mut h = Harness::new();
    h.add("guard.forge.ron", &guard_scene());
    let (root, instance) = h.spawn_scene("guard.forge.ron");
    let world = h.app.world_mut();
    world.entity_mut(instance.entity(2).unwrap()).despawn();
    let doc = capture(&h, root, &CaptureOptions::default());
    assert_eq!(doc.entities.len(), 1);
    assert!(doc.entity(1).unwrap().children.is_empty());
    assert!(!validate_scene(&doc, None).has_errors());
    // Removing a custom component removes it from the capture.
    h.app
        .world_mut()
        .entity_mut(instance.entity(1).unwrap())
        .remove::<Route>();
    let doc = capture(&h, root, &CaptureOptions::default());
    assert_eq!(doc.entity(1).unwrap().components.len(), 1);
    // A child moved to the top of the instance becomes a root, in `Children` order.
    let world = h.app.world();
    assert_eq!(world.get::<Children>(root).unwrap().len(), 1);
}

#[test]
fn rotations_near_gimbal_lock_read_back_within_tolerance() {
    let mut h = Harness::new();
    h.add("guard.forge.ron", &guard_scene());
    let (root, instance) = h.spawn_scene("guard.forge.ron");
    let guard = instance.entity(1).unwrap();
    for y in [89.99f32, 90.0, -90.0, -89.9, 45.0, 179.9] {
        let q = Quat::from_euler(EulerRot::XYZ, 0.3, y.to_radians(), -0.7);
        h.app
            .world_mut()
            .get_mut::<Transform>(guard)
            .unwrap()
            .rotation = q;
        let doc = capture(&h, root, &CaptureOptions::default());
        let back = doc.entity(1).unwrap().transform.rotation_quat();
        assert!(
            back.abs_diff_eq(q, 1e-5) || back.abs_diff_eq(-q, 1e-5),
            "y = {y}: {back:?} vs {q:?}"
        );
    }
}

#[test]
fn save_writes_a_scene_that_reads_back_and_refuses_what_is_not_an_instance() {
    let mut h = Harness::new();
    h.add("guard.forge.ron", &guard_scene());
    let (root, _) = h.spawn_scene("guard.forge.ron");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("saved.forge.ron");
    let captured = save_instance(h.world(), root, &path, &CaptureOptions::default()).unwrap();
    assert_eq!(read(&std::fs::read_to_string(&path).unwrap()), captured.doc);
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

    let plain = h.app.world_mut().spawn_empty().id();
    let err = capture_instance(h.world(), plain, &CaptureOptions::default()).unwrap_err();
    assert!(matches!(err, CaptureError::NotAnInstance(e) if e == plain));
    assert!(err.to_string().contains("ForgeSceneInstance"), "{err}");

    let missing = dir.path().join("no/such/dir/saved.forge.ron");
    let err = save_instance(h.world(), root, &missing, &CaptureOptions::default()).unwrap_err();
    assert!(matches!(err, CaptureError::Write(_)), "{err}");
    assert!(err.to_string().contains("no/such/dir"), "{err}");
    assert!(!missing.exists());
}

/// A transform's quaternion is the Euler formula's to the bit, with or without rotation, for
/// every sign of zero (no rotation gives `y: -0.0`, not `Quat::IDENTITY`'s bits).
#[test]
fn rotations_are_the_euler_formulas_to_the_bit() {
    let zeros = [0.0f32, -0.0];
    let mut cases: Vec<[f32; 3]> = Vec::new();
    for x in zeros {
        for y in zeros {
            for z in zeros {
                cases.push([x, y, z]);
            }
        }
    }
    cases.extend([
        [1e-3, 0.0, 0.0],
        [0.0, -1e-3, 0.0],
        [0.0, 0.0, 90.0],
        [30.0, 45.0, 60.0],
    ]);
    for [x, y, z] in cases {
        let t = TransformData {
            rotation: bevy_forge_scene::format::Vec3Data::new(x, y, z),
            ..TransformData::IDENTITY
        };
        let euler = Quat::from_euler(
            EulerRot::XYZ,
            x.to_radians(),
            y.to_radians(),
            z.to_radians(),
        );
        assert_eq!(
            t.rotation_quat().to_array().map(f32::to_bits),
            euler.to_array().map(f32::to_bits),
            "{x:?} {y:?} {z:?}"
        );
    }
}

proptest! {
    #[test]
    fn euler_degrees_give_back_the_quaternion(
        x in -180.0f32..180.0, y in -90.0f32..90.0, z in -180.0f32..180.0
    ) {
        let q = Quat::from_euler(EulerRot::XYZ, x.to_radians(), y.to_radians(), z.to_radians());
        let back = TransformData { rotation: TransformData::rotation_degrees(q), ..TransformData::IDENTITY }
            .rotation_quat();
        prop_assert!(back.abs_diff_eq(q, 1e-5) || back.abs_diff_eq(-q, 1e-5), "{back:?} vs {q:?}");
    }

    #[test]
    fn whole_degrees_read_back_whole(
        x in -179i32..180, y in -89i32..90, z in -179i32..180
    ) {
        let t = TransformData {
            rotation: bevy_forge_scene::format::Vec3Data::new(x as f32, y as f32, z as f32),
            ..TransformData::IDENTITY
        };
        prop_assert_eq!(TransformData::rotation_degrees(t.rotation_quat()), t.rotation);
    }
}

#[test]
fn saving_over_the_scene_file_keeps_its_comments_and_changes_only_what_moved() {
    let text = guard_scene()
        .replacen(
            "(format_version: 1,",
            "// The guard post, by hand.\n(format_version: 1, /* current */",
            1,
        )
        .replace("  2: (id: 2,", "  // where the guard stands\n  2: (id: 2,");
    let mut h = Harness::new();
    h.add("guard.forge.ron", &text);
    let (root, instance) = h.spawn_scene("guard.forge.ron");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("guard.forge.ron");
    std::fs::write(&path, &text).unwrap();

    // Unchanged: the file is left byte for byte.
    save_instance(h.world(), root, &path, &CaptureOptions::default()).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);

    let post = instance.entity(2).unwrap();
    h.app
        .world_mut()
        .get_mut::<Transform>(post)
        .unwrap()
        .translation
        .z = 6.5;
    save_instance(h.world(), root, &path, &CaptureOptions::default()).unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    let post_line = |t: &str| {
        t.lines()
            .find(|l| l.contains("\"Post\""))
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        saved.replace(&post_line(&saved), ""),
        text.replace(&post_line(&text), ""),
        "only the post's line changed"
    );
    assert!(
        post_line(&saved).contains("z: 6.5"),
        "{}",
        post_line(&saved)
    );
    assert!(
        saved.contains("// The guard post, by hand.")
            && saved.contains("// where the guard stands")
    );
}

#[test]
fn saving_over_a_file_that_does_not_read_is_refused_and_keeps_it() {
    let mut h = Harness::new();
    h.add("guard.forge.ron", &guard_scene());
    let (root, _) = h.spawn_scene("guard.forge.ron");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("guard.forge.ron");
    let half_typed = guard_scene().replacen("name: \"Guard\",", "name: \"Guard\" // TODO", 1);
    std::fs::write(&path, &half_typed).unwrap();
    let err = save_instance(h.world(), root, &path, &CaptureOptions::default()).unwrap_err();
    assert!(matches!(err, CaptureError::Edit(_)), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), half_typed);
}
