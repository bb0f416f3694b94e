//! Editing operations keep the forest valid and refuse what would break it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_forge_scene::format::*;
use common::*;
use proptest::prelude::*;

fn sample() -> SceneDoc {
    // a (1) [b (2) [c (3)], d (4)], e (5)
    let mut doc = SceneDoc::new("sample");
    let a = doc.add_entity("a", None).unwrap();
    let b = doc.add_entity("b", Some(a)).unwrap();
    doc.add_entity("c", Some(b)).unwrap();
    doc.add_entity("d", Some(a)).unwrap();
    doc.add_entity("e", None).unwrap();
    doc
}

#[test]
fn add_entity_allocates_fresh_ids_and_never_reuses_them() {
    let mut doc = sample();
    assert_eq!(doc.next_id, 6);
    assert_eq!(doc.roots, vec![1, 5]);
    assert_eq!(doc.entity(1).unwrap().children, vec![2, 4]);
    doc.delete_subtree(5).unwrap();
    let id = doc.add_entity("f", None).unwrap();
    assert_eq!(id, 6, "id 5 is not reused");
    assert_eq!(
        doc.add_entity("x", Some(99)),
        Err(EditError::NoSuchEntity(99))
    );
    assert_eq!(doc.check_integrity(), vec![]);
}

#[test]
fn delete_subtree_removes_descendants_and_the_sibling_entry() {
    let mut doc = sample();
    let removed = doc.delete_subtree(2).unwrap();
    assert_eq!(removed, vec![2, 3]);
    assert_eq!(doc.entity(1).unwrap().children, vec![4]);
    assert!(doc.entity(3).is_none());
    assert_eq!(doc.next_id, 6);
    assert_eq!(doc.delete_subtree(2), Err(EditError::NoSuchEntity(2)));
    assert_eq!(doc.check_integrity(), vec![]);
}

#[test]
fn duplicate_deep_copies_after_the_original_with_a_copy_suffix() {
    let mut doc = sample();
    doc.add_component(3, ComponentData::Camera2d).unwrap();
    let copy = doc.duplicate_subtree(2).unwrap();
    assert_eq!(copy, 6);
    assert_eq!(doc.entity(1).unwrap().children, vec![2, 6, 4]);
    let root = doc.entity(6).unwrap();
    assert_eq!(root.name, "b Copy");
    assert_eq!(root.parent, Some(1));
    assert_eq!(root.children, vec![7]);
    let child = doc.entity(7).unwrap();
    assert_eq!(child.name, "c", "only the copied root is renamed");
    assert_eq!(child.parent, Some(6));
    assert_eq!(child.components, vec![ComponentData::Camera2d]);
    let root_copy = doc.duplicate_subtree(5).unwrap();
    assert_eq!(doc.roots, vec![1, 5, root_copy]);
    assert_eq!(doc.check_integrity(), vec![]);
}

#[test]
fn reparent_moves_keeps_order_and_refuses_cycles() {
    let mut doc = sample();
    doc.reparent(5, Some(1), 1).unwrap();
    assert_eq!(doc.entity(1).unwrap().children, vec![2, 5, 4]);
    assert_eq!(doc.roots, vec![1]);
    assert_eq!(doc.entity(5).unwrap().parent, Some(1));
    doc.reparent(3, None, 0).unwrap();
    assert_eq!(doc.roots, vec![3, 1]);
    assert!(doc.entity(2).unwrap().children.is_empty());
    // Within the same parent: move 4 to the front.
    doc.reparent(4, Some(1), 0).unwrap();
    assert_eq!(doc.entity(1).unwrap().children, vec![4, 2, 5]);
    let before = doc.clone();
    assert_eq!(
        doc.reparent(1, Some(2), 0),
        Err(EditError::Cycle {
            id: 1,
            new_parent: 2
        })
    );
    assert_eq!(
        doc.reparent(1, Some(1), 0),
        Err(EditError::Cycle {
            id: 1,
            new_parent: 1
        })
    );
    assert_eq!(
        doc.reparent(4, Some(1), 9),
        Err(EditError::IndexOutOfRange { index: 9, len: 2 })
    );
    assert_eq!(doc, before, "refusals change nothing");
    assert_eq!(doc.check_integrity(), vec![]);
}

#[test]
fn components_are_unique_by_key() {
    let mut doc = sample();
    doc.add_component(1, ComponentData::Camera2d).unwrap();
    let health = |v: &str| {
        ComponentData::Custom(CustomComponent {
            type_path: "game::Health".into(),
            fields: vec![CustomField::new("value", v)],
            value: None,
        })
    };
    doc.add_component(1, health("10")).unwrap();
    doc.add_component(
        1,
        ComponentData::Custom(CustomComponent {
            type_path: "game::Mana".into(),
            fields: vec![],
            value: None,
        }),
    )
    .unwrap();
    assert_eq!(
        doc.add_component(1, health("20")),
        Err(EditError::DuplicateComponent {
            id: 1,
            key: "custom:game::Health".into()
        })
    );
    assert_eq!(
        doc.add_component(1, ComponentData::Camera2d),
        Err(EditError::DuplicateComponent {
            id: 1,
            key: "camera2d".into()
        })
    );
    assert_eq!(
        doc.remove_component(1, "custom:game::Health"),
        Ok(health("10"))
    );
    assert_eq!(
        doc.remove_component(1, "custom:game::Health"),
        Err(EditError::NoSuchComponent {
            id: 1,
            key: "custom:game::Health".into()
        })
    );
    assert_eq!(doc.entity(1).unwrap().components.len(), 2);
    assert!(doc.entity(1).unwrap().component("camera2d").is_some());
}

#[test]
fn rename_and_set_transform() {
    let mut doc = sample();
    doc.rename(3, "Lamp").unwrap();
    let t = TransformData {
        translation: Vec3Data::new(1.0, 2.0, 3.0),
        rotation: Vec3Data::new(0.0, 90.0, 0.0),
        scale: Vec3Data::ONE,
    };
    doc.set_transform(3, t).unwrap();
    assert_eq!(doc.entity(3).unwrap().name, "Lamp");
    assert_eq!(doc.entity(3).unwrap().transform, t);
    assert_eq!(doc.find_by_name("Lamp").collect::<Vec<_>>(), vec![3]);
    assert_eq!(doc.rename(42, "x"), Err(EditError::NoSuchEntity(42)));
    assert_eq!(doc.set_transform(42, t), Err(EditError::NoSuchEntity(42)));
}

#[test]
fn rotation_quat_uses_xyz_euler_degrees() {
    let t = TransformData {
        rotation: Vec3Data::new(90.0, 0.0, 0.0),
        ..TransformData::IDENTITY
    };
    let q = t.rotation_quat();
    let expected = glam::Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    assert!(q.abs_diff_eq(expected, 1e-6), "{q:?}");
    let t = TransformData {
        rotation: Vec3Data::new(10.0, 20.0, 30.0),
        ..TransformData::IDENTITY
    };
    let expected = glam::Quat::from_euler(
        glam::EulerRot::XYZ,
        10f32.to_radians(),
        20f32.to_radians(),
        30f32.to_radians(),
    );
    assert!(t.rotation_quat().abs_diff_eq(expected, 1e-6));
    let c = ColorData::rgba(0.5, 0.25, 1.0, 0.75).to_bevy();
    assert_eq!(c, bevy_color::Color::srgba(0.5, 0.25, 1.0, 0.75));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_edit_sequence_keeps_the_forest_valid(doc in valid_doc(), more in proptest::collection::vec(edit(), 0..20)) {
        let mut doc = doc;
        for e in &more {
            let before_ids = doc.next_id;
            apply_edit(&mut doc, e);
            prop_assert!(doc.next_id >= before_ids);
            prop_assert_eq!(doc.check_integrity(), vec![]);
        }
    }
}
