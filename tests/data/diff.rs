//! Scene diffs: every kind of change, their log lines, and replaying a diff on the old document.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::{HashMap, HashSet};

use bevy_forge_scene::diff::{ComponentChange, FieldChange, SceneDiff, diff};
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

fn health(fields: &[(&str, &str)]) -> ComponentData {
    ComponentData::Custom(CustomComponent {
        type_path: "game::Health".into(),
        fields: fields
            .iter()
            .map(|(n, e)| CustomField::new(*n, *e))
            .collect(),
        value: None,
    })
}

fn light(intensity: f32) -> ComponentData {
    ComponentData::PointLight(PointLightData {
        color: ColorData::WHITE,
        intensity,
        range: 10.0,
        shadows: false,
    })
}

/// Replays `d` on `old` and checks the result equals `new`, file order included.
fn assert_replays(old: &SceneDoc, new: &SceneDoc, d: &SceneDiff) {
    let mut patched = old.clone();
    d.apply_to(&mut patched);
    assert_eq!(&patched, new);
    assert!(
        patched.entities.keys().eq(new.entities.keys()),
        "file order: {:?} vs {:?}",
        patched.entities.keys().collect::<Vec<_>>(),
        new.entities.keys().collect::<Vec<_>>()
    );
}

fn lines(d: &SceneDiff) -> Vec<String> {
    d.to_string().lines().map(str::to_owned).collect()
}

#[test]
fn equal_documents_give_an_empty_diff() {
    let doc = sample();
    let d = diff(&doc, &doc.clone());
    assert!(d.is_empty());
    assert_eq!(d.touched_count(), 0);
    assert_eq!(d.to_string(), "");
    assert_eq!(d.sibling_orders().count(), 0);
}

#[test]
fn rename_is_one_changed_entity() {
    let old = sample();
    let mut new = old.clone();
    new.rename(4, "door").unwrap();
    let d = diff(&old, &new);
    assert_eq!(
        (d.added_count(), d.removed_count(), d.changed_count()),
        (0, 0, 1)
    );
    let c = &d.changed[0];
    assert_eq!(c.id, 4);
    assert_eq!(c.name.as_ref().unwrap().new, "door");
    assert!(c.transform.is_none() && c.parent.is_none() && c.components.is_empty());
    assert_eq!(lines(&d), vec![r#"~ 4 renamed "d" -> "door""#]);
    assert_replays(&old, &new, &d);
}

#[test]
fn transform_change_reports_old_and_new_per_part() {
    let mut old = sample();
    old.set_transform(
        5,
        TransformData::from_translation(Vec3Data::new(0.0, 1.0, 0.0)),
    )
    .unwrap();
    let mut new = old.clone();
    let mut t = TransformData::from_translation(Vec3Data::new(0.0, 2.0, 0.0));
    t.scale = Vec3Data::new(2.0, 2.0, 2.0);
    new.set_transform(5, t).unwrap();
    let d = diff(&old, &new);
    let change = d.changed[0].transform.as_ref().unwrap();
    assert_eq!(change.old.translation, Vec3Data::new(0.0, 1.0, 0.0));
    assert_eq!(change.new, t);
    assert_eq!(
        lines(&d),
        vec![
            "~ 5 transform translation (0, 1, 0) -> (0, 2, 0)",
            "~ 5 transform scale (1, 1, 1) -> (2, 2, 2)",
        ]
    );
    assert_replays(&old, &new, &d);
}

#[test]
fn added_entity_in_the_middle_of_a_child_list_has_its_parent_and_final_index() {
    let old = sample();
    let mut new = old.clone();
    let lamp = new.add_entity("Lamp", Some(1)).unwrap();
    new.reparent(lamp, Some(1), 1).unwrap();
    let d = diff(&old, &new);
    assert_eq!(d.added.len(), 1);
    let a = &d.added[0];
    assert_eq!((a.id, a.parent, a.index), (6, Some(1), 1));
    assert_eq!(a.node, *new.entities[&6]);
    let parent = &d.changed[0];
    assert_eq!(parent.id, 1);
    assert_eq!(parent.children.as_ref().unwrap().new, vec![2, 6, 4]);
    assert!(!parent.children.as_ref().unwrap().is_reorder());
    assert_eq!(
        lines(&d),
        vec![
            "~ scene next_id 6 -> 7",
            r#"+ 6 "Lamp" under 1 at 1"#,
            "~ 1 children [2, 4] -> [2, 6, 4]",
        ]
    );
    let orders: Vec<_> = d.sibling_orders().collect();
    assert_eq!(orders, vec![(Some(1), &[2u64, 6, 4][..])]);
    assert_replays(&old, &new, &d);
}

#[test]
fn added_subtree_lists_parents_before_children() {
    let old = sample();
    let mut new = old.clone();
    let x = new.add_entity("x", None).unwrap();
    let y = new.add_entity("y", None).unwrap();
    let z = new.add_entity("z", Some(y)).unwrap();
    // x moves under z: file order is x, y, z but x's parent z comes after it.
    new.reparent(x, Some(z), 0).unwrap();
    let d = diff(&old, &new);
    let order: Vec<u64> = d.added.iter().map(|a| a.id).collect();
    assert_eq!(order, vec![y, z, x]);
    assert_eq!(d.file_order.as_deref(), Some(&[1, 2, 3, 4, 5, x, y, z][..]));
    assert_eq!(
        d.added
            .iter()
            .map(|a| (a.parent, a.index))
            .collect::<Vec<_>>(),
        vec![(None, 2), (Some(y), 0), (Some(z), 0)]
    );
    assert_replays(&old, &new, &d);
}

#[test]
fn deleted_subtree_is_one_removal_listing_every_id() {
    let old = sample();
    let mut new = old.clone();
    new.delete_subtree(2).unwrap();
    let d = diff(&old, &new);
    assert_eq!(d.removed.len(), 1);
    let r = &d.removed[0];
    assert_eq!((r.root, r.parent, r.ids.clone()), (2, Some(1), vec![2, 3]));
    assert_eq!(d.removed_count(), 2);
    assert_eq!(d.changed.len(), 1, "the parent's children list changed");
    assert_eq!(
        lines(&d),
        vec![
            r#"- 2 "b" (subtree of 2 entities)"#,
            "~ 1 children [2, 4] -> [4]",
        ]
    );
    assert_replays(&old, &new, &d);
}

#[test]
fn a_descendant_moved_out_of_a_deleted_subtree_survives_with_a_parent_change() {
    let old = sample();
    let mut new = old.clone();
    new.reparent(3, None, 0).unwrap();
    new.delete_subtree(1).unwrap();
    let d = diff(&old, &new);
    assert_eq!(d.removed.len(), 1);
    assert_eq!(d.removed[0].root, 1);
    let mut ids = d.removed[0].ids.clone();
    ids.sort_unstable();
    assert_eq!(ids, vec![1, 2, 4]);
    let moved = d.changed.iter().find(|c| c.id == 3).unwrap();
    let p = moved.parent.as_ref().unwrap();
    assert_eq!((p.old, p.new, p.index), (Some(2), None, 0));
    assert_eq!(d.roots.as_ref().unwrap().new, vec![3, 5]);
    assert!(d.to_string().contains("~ 3 moved at root 0 (from under 2)"));
    assert_eq!(
        d.to_string().lines().next(),
        Some(r#"- 1 "a" (subtree of 3 entities)"#)
    );
    assert_replays(&old, &new, &d);
}

#[test]
fn a_removed_entity_under_a_kept_one_is_its_own_subtree() {
    // Old: a [b [c]]. New: a deleted, b moved to the roots, c deleted.
    let old = sample();
    let mut new = old.clone();
    new.reparent(2, None, 0).unwrap();
    new.delete_subtree(3).unwrap();
    new.delete_subtree(1).unwrap();
    let d = diff(&old, &new);
    let roots: Vec<(u64, Vec<u64>)> = d.removed.iter().map(|r| (r.root, r.ids.clone())).collect();
    assert_eq!(roots, vec![(1, vec![1, 4]), (3, vec![3])]);
    assert_replays(&old, &new, &d);
}

#[test]
fn reparent_reports_old_and_new_parent_and_index() {
    let old = sample();
    let mut new = old.clone();
    new.reparent(5, Some(2), 0).unwrap();
    let d = diff(&old, &new);
    let c = d.changed.iter().find(|c| c.id == 5).unwrap();
    let p = c.parent.as_ref().unwrap();
    assert_eq!((p.old, p.new, p.index), (None, Some(2), 0));
    assert_eq!(
        lines(&d),
        vec![
            "~ 2 children [3] -> [5, 3]",
            "~ 5 moved under 2 at 0 (from the roots)",
            "~ roots [1, 5] -> [1]",
        ]
    );
    let orders: Vec<_> = d.sibling_orders().collect();
    assert_eq!(orders, vec![(None, &[1u64][..]), (Some(2), &[5u64, 3][..])]);
    assert_replays(&old, &new, &d);
}

#[test]
fn children_and_roots_reordered() {
    let old = sample();
    let mut new = old.clone();
    new.reparent(4, Some(1), 0).unwrap();
    new.reparent(5, None, 0).unwrap();
    let d = diff(&old, &new);
    assert_eq!(d.changed.len(), 1);
    let children = d.changed[0].children.as_ref().unwrap();
    assert!(children.is_reorder());
    assert!(d.roots.as_ref().unwrap().is_reorder());
    assert!(d.changed[0].parent.is_none(), "same parent: no move");
    assert_eq!(
        lines(&d),
        vec![
            "~ 1 children reordered [2, 4] -> [4, 2]",
            "~ roots reordered [1, 5] -> [5, 1]",
        ]
    );
    assert_replays(&old, &new, &d);
}

#[test]
fn builtin_components_added_removed_and_changed_by_key() {
    let mut old = sample();
    old.add_component(3, light(100.0)).unwrap();
    old.add_component(3, ComponentData::Camera3d).unwrap();
    let mut new = old.clone();
    new.remove_component(3, "camera3d").unwrap();
    new.remove_component(3, "point_light").unwrap();
    new.add_component(3, light(200.0)).unwrap();
    new.add_component(3, ComponentData::Visibility(VisibilityMode::Hidden))
        .unwrap();
    let d = diff(&old, &new);
    let c = &d.changed[0];
    assert_eq!(c.components.len(), 3);
    assert_eq!(
        c.components[0],
        ComponentChange::Removed {
            key: "camera3d".into()
        }
    );
    assert!(matches!(
        &c.components[1],
        ComponentChange::Changed { key, fields: None, component } if key == "point_light" && *component == light(200.0)
    ));
    assert!(matches!(
        &c.components[2],
        ComponentChange::Added { index: 1, .. }
    ));
    assert_eq!(c.component_order, None);
    assert_eq!(
        lines(&d),
        vec![
            "~ 3 component camera3d removed",
            "~ 3 component point_light changed",
            "~ 3 component visibility added at 1",
        ]
    );
    assert_replays(&old, &new, &d);
}

#[test]
fn custom_component_changes_are_reported_by_field() {
    let mut old = sample();
    old.add_component(5, health(&[("value", "10"), ("max", "20"), ("regen", "1")]))
        .unwrap();
    let mut new = old.clone();
    new.remove_component(5, "custom:game::Health").unwrap();
    new.add_component(5, health(&[("value", "12"), ("max", "20"), ("armor", "3")]))
        .unwrap();
    let d = diff(&old, &new);
    let ComponentChange::Changed { key, fields, .. } = &d.changed[0].components[0] else {
        panic!("expected a changed component");
    };
    assert_eq!(key, "custom:game::Health");
    let f = |name: &str, old: Option<&str>, new: Option<&str>| FieldChange {
        name: name.into(),
        old: old.map(Into::into),
        new: new.map(Into::into),
    };
    assert_eq!(
        fields.as_deref(),
        Some(
            &[
                f("value", Some("10"), Some("12")),
                f("armor", None, Some("3")),
                f("regen", Some("1"), None),
            ][..]
        )
    );
    assert_eq!(
        lines(&d),
        vec![
            r#"~ 5 custom:game::Health field value "10" -> "12""#,
            r#"~ 5 custom:game::Health field armor added "3""#,
            r#"~ 5 custom:game::Health field regen removed (was "1")"#,
        ]
    );
    assert_replays(&old, &new, &d);
}

#[test]
fn custom_field_order_alone_is_an_empty_field_list() {
    let mut old = sample();
    old.add_component(5, health(&[("value", "10"), ("max", "20")]))
        .unwrap();
    let mut new = old.clone();
    new.remove_component(5, "custom:game::Health").unwrap();
    new.add_component(5, health(&[("max", "20"), ("value", "10")]))
        .unwrap();
    let d = diff(&old, &new);
    assert!(matches!(
        &d.changed[0].components[0],
        ComponentChange::Changed { fields: Some(f), .. } if f.is_empty()
    ));
    assert_eq!(lines(&d), vec!["~ 5 custom:game::Health fields reordered"]);
    assert_replays(&old, &new, &d);
}

#[test]
fn repeated_custom_field_names_fall_back_to_a_whole_component() {
    let mut old = sample();
    old.add_component(5, health(&[("value", "10"), ("value", "11")]))
        .unwrap();
    let mut new = old.clone();
    new.remove_component(5, "custom:game::Health").unwrap();
    new.add_component(5, health(&[("value", "12")])).unwrap();
    let d = diff(&old, &new);
    assert!(matches!(
        &d.changed[0].components[0],
        ComponentChange::Changed { fields: None, .. }
    ));
    assert_eq!(lines(&d), vec!["~ 5 component custom:game::Health changed"]);
    assert_replays(&old, &new, &d);
}

#[test]
fn component_reorder_sets_the_final_key_order() {
    let mut old = sample();
    old.add_component(2, ComponentData::Camera2d).unwrap();
    old.add_component(2, light(1.0)).unwrap();
    let mut new = old.clone();
    new.entity_mut(2).unwrap().components.reverse();
    let d = diff(&old, &new);
    let c = &d.changed[0];
    assert!(c.components.is_empty());
    assert_eq!(
        c.component_order.as_deref(),
        Some(&["point_light".to_owned(), "camera2d".to_owned()][..])
    );
    assert_eq!(
        lines(&d),
        vec!["~ 2 components reordered [point_light, camera2d]"]
    );
    assert_replays(&old, &new, &d);
}

#[test]
fn scene_name_and_locked_flag() {
    let old = sample();
    let mut new = old.clone();
    new.name = "renamed".into();
    new.entity_mut(4).unwrap().locked = true;
    let d = diff(&old, &new);
    assert_eq!(
        lines(&d),
        vec![
            r#"~ scene name "sample" -> "renamed""#,
            "~ 4 locked false -> true",
        ]
    );
    assert_replays(&old, &new, &d);
}

#[test]
fn names_and_expressions_are_escaped_one_line_each() {
    let old = sample();
    let mut new = old.clone();
    new.rename(2, "two\nlines \"quoted\"").unwrap();
    let d = diff(&old, &new);
    assert_eq!(
        lines(&d),
        vec![r#"~ 2 renamed "b" -> "two\nlines \"quoted\"""#]
    );
}

#[test]
fn a_shuffled_file_order_is_replayed() {
    let old = sample();
    let mut new = old.clone();
    new.entities.reverse();
    let d = diff(&old, &new);
    assert!(d.changed.is_empty());
    assert_eq!(d.file_order.as_deref(), Some(&[5, 4, 3, 2, 1][..]));
    assert_eq!(lines(&d), vec!["~ file order changed"]);
    assert_replays(&old, &new, &d);
}

#[test]
fn counts_add_up() {
    let old = sample();
    let mut new = old.clone();
    new.delete_subtree(2).unwrap();
    new.add_entity("f", Some(5)).unwrap();
    new.rename(4, "door").unwrap();
    let d = diff(&old, &new);
    // added 6; removed 2, 3; changed 1 (children), 4 (name), 5 (children)
    assert_eq!(d.added_count(), 1);
    assert_eq!(d.removed_count(), 2);
    assert_eq!(d.changed_count(), 3);
    assert_eq!(d.touched_count(), 6);
    let mut touched: Vec<u64> = d.touched_ids().collect();
    touched.sort_unstable();
    assert_eq!(touched, vec![1, 2, 3, 4, 5, 6]);
    assert_replays(&old, &new, &d);
}

/// The ids whose node differs between the documents (present in one only, or unequal).
fn differing_ids(a: &SceneDoc, b: &SceneDoc) -> HashSet<u64> {
    a.entities
        .keys()
        .chain(b.entities.keys())
        .copied()
        .filter(|id| a.entities.get(id) != b.entities.get(id))
        .collect()
}

/// A stand-in for a live world: each entity's parent and children, and the roots. Follows the
/// application order documented on `SceneDiff` and returns what a recursive despawn took.
#[derive(Debug, PartialEq)]
struct Hierarchy {
    parent: HashMap<u64, Option<u64>>,
    children: HashMap<u64, Vec<u64>>,
    roots: Vec<u64>,
}

impl Hierarchy {
    fn of(doc: &SceneDoc) -> Self {
        Self {
            parent: doc.entities.values().map(|n| (n.id, n.parent)).collect(),
            children: doc
                .entities
                .values()
                .map(|n| (n.id, n.children.clone()))
                .collect(),
            roots: doc.roots.clone(),
        }
    }

    fn list(&mut self, parent: Option<u64>) -> &mut Vec<u64> {
        match parent {
            None => &mut self.roots,
            Some(p) => self.children.get_mut(&p).expect("parent is live"),
        }
    }

    fn attach(&mut self, id: u64, parent: Option<u64>) {
        if let Some(old) = self.parent.get(&id).copied() {
            self.list(old).retain(|c| *c != id);
        }
        self.parent.insert(id, parent);
        self.list(parent).push(id);
    }

    fn apply(&mut self, d: &SceneDiff) -> Vec<u64> {
        for a in &d.added {
            self.children.insert(a.id, Vec::new());
            self.attach(a.id, a.parent);
        }
        for c in &d.changed {
            if let Some(p) = &c.parent {
                self.attach(c.id, p.new);
            }
        }
        let mut despawned = Vec::new();
        for r in &d.removed {
            let parent = self.parent[&r.root];
            self.list(parent).retain(|c| *c != r.root);
            let mut stack = vec![r.root];
            while let Some(id) = stack.pop() {
                despawned.push(id);
                self.parent.remove(&id);
                stack.extend(self.children.remove(&id).expect("live"));
            }
        }
        for (parent, order) in d.sibling_orders() {
            let list = self.list(parent);
            let mut sorted = list.clone();
            sorted.sort_unstable();
            let mut wanted = order.to_vec();
            wanted.sort_unstable();
            assert_eq!(
                sorted, wanted,
                "the final order is a permutation of the live list"
            );
            *list = order.to_vec();
        }
        despawned
    }
}

/// Two arbitrary documents (usually malformed forests) that share some keys, with every entity's
/// `id` equal to its key (the one rule a diff relies on).
fn arbitrary_pair() -> impl Strategy<Value = (SceneDoc, SceneDoc)> {
    (any_doc(), any_doc(), any::<u64>()).prop_map(|(a, mut b, mask)| {
        let keys: Vec<u64> = a.entities.keys().copied().collect();
        let entries: Vec<(u64, std::sync::Arc<EntityNode>)> = b.entities.drain(..).collect();
        for (i, (key, node)) in entries.into_iter().enumerate() {
            let key = match keys.get(i) {
                Some(k) if mask & (1 << (i % 64)) != 0 => *k,
                _ => key,
            };
            b.entities.insert(key, node);
        }
        let fix = |mut doc: SceneDoc| {
            for (key, node) in doc.entities.iter_mut() {
                std::sync::Arc::make_mut(node).id = *key;
            }
            doc
        };
        (fix(a), fix(b))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_document_diffed_with_itself_is_empty(doc in valid_doc()) {
        let d = diff(&doc, &doc.clone());
        prop_assert!(d.is_empty());
        prop_assert_eq!(d.to_string(), "");
    }

    #[test]
    fn any_document_diffed_with_itself_is_empty(doc in any_doc()) {
        prop_assert!(diff(&doc, &doc.clone()).is_empty());
    }

    #[test]
    fn applying_the_diff_of_random_edits_gives_the_edited_document(
        a in valid_doc(),
        edits in proptest::collection::vec(edit(), 0..20),
    ) {
        let mut b = a.clone();
        for e in &edits {
            apply_edit(&mut b, e);
        }
        let d = diff(&a, &b);
        let mut patched = a.clone();
        d.apply_to(&mut patched);
        prop_assert_eq!(&patched, &b);
        prop_assert!(patched.entities.keys().eq(b.entities.keys()), "file order");
        prop_assert!(patched.check_integrity().is_empty());
        prop_assert_eq!(d.is_empty(), a == b);
    }

    #[test]
    fn a_diff_touches_exactly_the_entities_that_changed(
        a in valid_doc(),
        edits in proptest::collection::vec(edit(), 0..20),
    ) {
        let mut b = a.clone();
        for e in &edits {
            apply_edit(&mut b, e);
        }
        let d = diff(&a, &b);
        let touched: Vec<u64> = d.touched_ids().collect();
        let set: HashSet<u64> = touched.iter().copied().collect();
        prop_assert_eq!(set.len(), touched.len(), "no id is touched twice");
        prop_assert_eq!(set, differing_ids(&a, &b));
        for c in &d.changed {
            prop_assert!(!c.is_empty());
        }
    }

    #[test]
    fn the_documented_application_order_rebuilds_the_new_hierarchy(
        a in valid_doc(),
        edits in proptest::collection::vec(edit(), 0..20),
    ) {
        let mut b = a.clone();
        for e in &edits {
            apply_edit(&mut b, e);
        }
        let d = diff(&a, &b);
        let mut live = Hierarchy::of(&a);
        let mut despawned = live.apply(&d);
        let mut removed: Vec<u64> = d.removed.iter().flat_map(|r| r.ids.clone()).collect();
        despawned.sort_unstable();
        removed.sort_unstable();
        prop_assert_eq!(despawned, removed, "a recursive despawn takes exactly the removed ids");
        prop_assert_eq!(live, Hierarchy::of(&b));
        for a in &d.added {
            let list = match a.parent { None => &b.roots, Some(p) => &b.entities[&p].children };
            prop_assert_eq!(list[a.index], a.id);
        }
        for c in &d.changed {
            if let Some(p) = &c.parent {
                let list = match p.new { None => &b.roots, Some(q) => &b.entities[&q].children };
                prop_assert_eq!(list[p.index], c.id);
            }
        }
    }

    #[test]
    fn applying_a_diff_between_arbitrary_documents_never_panics_and_replays(
        (a, b) in arbitrary_pair(),
    ) {
        let d = diff(&a, &b);
        let _ = d.to_string();
        let mut patched = a.clone();
        d.apply_to(&mut patched);
        prop_assert_eq!(&patched, &b);
        prop_assert!(patched.entities.keys().eq(b.entities.keys()));
        // On a document it was not computed from, apply_to still does not panic.
        let mut other = b.clone();
        d.apply_to(&mut other);
    }
}
