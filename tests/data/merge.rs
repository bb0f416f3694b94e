//! Three-way merges of scene files by id (`bevy_forge_scene::merge`, what `forge merge` runs):
//! branches that edit different entities or fields merge without conflicts, ids both branches
//! added are renumbered with every mention, the result is this branch's text with the other's
//! changes as their own bytes and both branches' comments, conflicts leave a marker that reads
//! and that validation reports at its line, and either side of a marker can be taken.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bevy_forge_scene::codes;
use bevy_forge_scene::edit::SceneEdit;
use bevy_forge_scene::format::{
    CellRect, ComponentData, CustomComponent, CustomField, Instance, Override, PointLightData,
    SceneDoc, TransformData, Vec3Data,
};
use bevy_forge_scene::merge::{Side, merge, resolve};
use bevy_forge_scene::validate::{Severity, validate_parsed};
use proptest::prelude::*;

/// The common ancestor: a garden, as the editor saves it, with the author's comments.
const BASE: &str = r#"// The garden level.
(
  format_version: 1,
  name: "Garden",
  entities: {
    // The old tree in the middle.
    1: (
      id: 1,
      name: "Tree",
      parent: None,
      children: [2],
      transform: (
        translation: (x: 0.0, y: 0.0, z: 0.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [],
      locked: false,
    ),
    2: (
      id: 2,
      name: "Lamp",
      parent: Some(1),
      children: [],
      transform: (
        translation: (x: 0.0, y: 3.0, z: 0.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [
        (
          type: point_light,
          data: (
            color: (r: 1.0, g: 0.9, b: 0.8, a: 1.0),
            intensity: 800.0, // warm
            range: 20.0,
            shadows: false,
          ),
        ),
      ],
      locked: false,
    ),
    3: (
      id: 3,
      name: "Bench",
      parent: None,
      children: [],
      transform: (
        translation: (x: 4.0, y: 0.0, z: 0.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [],
      locked: false,
    ),
  },
  roots: [1, 3],
  next_id: 4,
)
"#;

/// `text` edited by `edits` through the edit layer, as the editor saves a branch's work.
fn branch(text: &str, edits: impl FnOnce(&mut SceneEdit)) -> String {
    let mut e = SceneEdit::from_text(text).unwrap();
    edits(&mut e);
    e.text()
}

fn read(text: &str) -> SceneDoc {
    SceneDoc::from_str(text)
        .unwrap_or_else(|e| panic!("the merged text does not read: {e}\n{text}"))
        .doc
}

fn at(x: f32, y: f32, z: f32) -> TransformData {
    TransformData::from_translation(Vec3Data::new(x, y, z))
}

fn lamp_light(doc: &SceneDoc) -> PointLightData {
    match doc.entity(2).unwrap().component("point_light") {
        Some(ComponentData::PointLight(l)) => l.clone(),
        other => panic!("{other:?}"),
    }
}

fn intensity(doc: &SceneDoc, id: u64) -> f32 {
    match doc.entity(id).unwrap().component("point_light") {
        Some(ComponentData::PointLight(l)) => l.intensity,
        other => panic!("{other:?}"),
    }
}

/// The lines of `after` that are not lines of `before`, in order.
fn new_lines<'a>(before: &str, after: &'a str) -> Vec<&'a str> {
    let mut old: Vec<&str> = before.lines().collect();
    after
        .lines()
        .filter(|l| match old.iter().position(|o| o == l) {
            Some(i) => {
                old.remove(i);
                false
            }
            None => true,
        })
        .collect()
}

#[test]
fn branches_editing_different_entities_merge_clean_with_both_comments() {
    let ours = branch(BASE, |e| {
        e.rename(1, "Oak").unwrap();
    });
    // The other branch moves the bench and writes a comment in its entry.
    let theirs = branch(BASE, |e| {
        e.set_transform(3, at(6.0, 0.0, 1.0)).unwrap();
    })
    .replace(
        "      name: \"Bench\",",
        "      name: \"Bench\", // by the pond",
    );
    let merged = merge(BASE, &ours, &theirs).unwrap();
    assert!(merged.is_clean(), "{}", merged.report("garden.forge.ron"));
    let doc = read(&merged.text);
    assert_eq!(doc.entity(1).unwrap().name, "Oak");
    assert_eq!(
        doc.entity(3).unwrap().transform.translation,
        Vec3Data::new(6.0, 0.0, 1.0)
    );
    for comment in [
        "// The garden level.",
        "// The old tree",
        "// warm",
        "// by the pond",
    ] {
        assert!(
            merged.text.contains(comment),
            "{comment} lost:\n{}",
            merged.text
        );
    }
    // Exactly the other branch's lines came in, and this branch's stayed.
    assert_eq!(
        new_lines(&ours, &merged.text),
        new_lines(BASE, &theirs),
        "{}",
        merged.text
    );
}

#[test]
fn branches_editing_different_fields_of_one_entity_merge_clean() {
    let ours = branch(BASE, |e| {
        e.rename(2, "Lantern").unwrap();
        let mut light = lamp_light(e.doc());
        light.range = 30.0;
        e.set_component(2, ComponentData::PointLight(light))
            .unwrap();
    });
    let theirs = branch(BASE, |e| {
        let mut light = lamp_light(e.doc());
        light.intensity = 1200.0;
        e.set_component(2, ComponentData::PointLight(light))
            .unwrap();
        e.set_transform(2, at(0.0, 4.0, 0.0)).unwrap();
    });
    let merged = merge(BASE, &ours, &theirs).unwrap();
    assert!(merged.is_clean(), "{}", merged.report("garden"));
    let doc = read(&merged.text);
    let lamp = doc.entity(2).unwrap();
    assert_eq!(lamp.name, "Lantern");
    assert_eq!(lamp.transform.translation.y, 4.0);
    assert_eq!(intensity(&doc, 2), 1200.0);
    match lamp.component("point_light") {
        Some(ComponentData::PointLight(l)) => assert_eq!(l.range, 30.0),
        other => panic!("{other:?}"),
    }
    assert!(
        merged.text.contains("intensity: 1200.0, // warm"),
        "{}",
        merged.text
    );
}

#[test]
fn entities_both_branches_added_under_one_id_are_renumbered_with_every_mention() {
    let ours = branch(BASE, |e| {
        e.add_entity("Pond", None, at(8.0, 0.0, 0.0), vec![])
            .unwrap();
    });
    let theirs = branch(BASE, |e| {
        let (_, swing) = e
            .add_entity("Swing", Some(1), at(1.0, 0.0, 0.0), vec![])
            .unwrap();
        let (_, seat) = e
            .add_entity("Seat", Some(swing), at(0.0, 1.0, 0.0), vec![])
            .unwrap();
        let watcher = CustomComponent {
            type_path: "game::Watch".into(),
            fields: vec![CustomField::new("target", format!("Some(#{swing})"))],
            value: None,
        };
        e.add_component(seat, ComponentData::Custom(watcher))
            .unwrap();
    });
    assert_eq!(read(&ours).entity(4).unwrap().name, "Pond");
    assert_eq!(read(&theirs).entity(4).unwrap().name, "Swing");
    let merged = merge(BASE, &ours, &theirs).unwrap();
    assert!(merged.is_clean(), "{}", merged.report("garden"));
    let doc = read(&merged.text);
    let renumbered: Vec<(u64, u64)> = merged.renumbered.iter().map(|r| (r.old, r.new)).collect();
    // Only the id both gave is renumbered: the other branch's seat keeps 5.
    assert_eq!(renumbered, [(4, 6)]);
    assert_eq!(doc.entity(4).unwrap().name, "Pond");
    assert_eq!(doc.entity(6).unwrap().name, "Swing");
    assert_eq!(doc.entity(6).unwrap().parent, Some(1));
    assert_eq!(doc.entity(6).unwrap().children, [5]);
    assert_eq!(doc.entity(5).unwrap().parent, Some(6));
    assert_eq!(doc.entity(1).unwrap().children, [2, 6]);
    assert_eq!(doc.roots, [1, 3, 4]);
    assert_eq!(doc.next_id, 7);
    match doc.entity(5).unwrap().component("custom:game::Watch") {
        Some(ComponentData::Custom(c)) => assert_eq!(c.fields[0].expr, "Some(#6)"),
        other => panic!("{other:?}"),
    }
    assert!(
        doc.check_integrity().is_empty(),
        "{:?}",
        doc.check_integrity()
    );
    let report = merged.report("garden.forge.ron");
    assert!(report.contains("entity 4 \"Swing\" is 6"), "{report}");
    assert!(report.contains("id path"), "{report}");
}

#[test]
fn the_same_change_on_both_branches_is_taken_once() {
    let both = |e: &mut SceneEdit| {
        e.rename(3, "Seat").unwrap();
        e.add_entity("Pond", None, at(8.0, 0.0, 0.0), vec![])
            .unwrap();
    };
    let merged = merge(BASE, &branch(BASE, both), &branch(BASE, both)).unwrap();
    assert!(merged.is_clean());
    assert!(merged.renumbered.is_empty());
    let doc = read(&merged.text);
    assert_eq!(doc.entities.len(), 4);
    assert_eq!(doc.entity(3).unwrap().name, "Seat");
}

#[test]
fn a_value_both_branches_changed_is_a_conflict_that_reads_and_fails_validation_at_its_line() {
    let ours = branch(BASE, |e| {
        e.rename(2, "Lantern").unwrap();
    });
    let theirs = branch(BASE, |e| {
        e.rename(2, "Torch").unwrap();
        e.rename(1, "Oak").unwrap();
    });
    let merged = merge(BASE, &ours, &theirs).unwrap();
    assert_eq!(merged.conflicts.len(), 1, "{}", merged.report("garden"));
    let c = &merged.conflicts[0];
    assert_eq!(c.note, "theirs = \"Torch\"");
    assert_eq!(c.entity, Some(2));
    assert!(c.what[0].contains("name"), "{:?}", c.what);
    let line = merged
        .text
        .lines()
        .nth(c.position.line as usize - 1)
        .unwrap();
    assert_eq!(
        line.trim(),
        "name: \"Lantern\" /* forge-merge: theirs = \"Torch\" */,"
    );
    // Everything else merged; the conflict keeps this branch's value.
    let parsed = SceneDoc::from_str(&merged.text).unwrap();
    assert_eq!(parsed.doc.entity(2).unwrap().name, "Lantern");
    assert_eq!(parsed.doc.entity(1).unwrap().name, "Oak");
    // Validation reports it, at the marker.
    let report = validate_parsed(&parsed, None);
    let found: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::merge::CONFLICT)
        .collect();
    assert_eq!(found.len(), 1, "{report:?}");
    assert_eq!(found[0].severity, Severity::Error);
    assert_eq!(found[0].position, Some(c.position));
    assert_eq!(found[0].entity, Some(2));
    assert!(
        found[0].message.contains("`\"Torch\"`"),
        "{}",
        found[0].message
    );
    // Either side can be taken.
    let ours_taken = resolve(&merged.text, c.position.offset, Side::Ours).unwrap();
    let theirs_taken = resolve(&merged.text, c.position.offset, Side::Theirs).unwrap();
    assert_eq!(read(&ours_taken).entity(2).unwrap().name, "Lantern");
    assert_eq!(read(&theirs_taken).entity(2).unwrap().name, "Torch");
    for resolved in [&ours_taken, &theirs_taken] {
        assert!(!resolved.contains("forge-merge"), "{resolved}");
        let parsed = SceneDoc::from_str(resolved).unwrap();
        assert!(!validate_parsed(&parsed, None).has_errors());
    }
}

#[test]
fn a_deletion_stands_unless_the_other_branch_changed_what_it_deleted() {
    // Deleted here, untouched there: gone, with its subtree.
    let ours = branch(BASE, |e| {
        e.delete_subtree(1).unwrap();
    });
    let theirs = branch(BASE, |e| {
        e.rename(3, "Seat").unwrap();
    });
    let merged = merge(BASE, &ours, &theirs).unwrap();
    assert!(merged.is_clean());
    let doc = read(&merged.text);
    assert_eq!(doc.entities.keys().copied().collect::<Vec<_>>(), [3]);
    assert_eq!(doc.roots, [3]);
    assert_eq!(doc.entity(3).unwrap().name, "Seat");
    // The same the other way round.
    let merged = merge(BASE, &theirs, &ours).unwrap();
    assert!(merged.is_clean());
    assert_eq!(read(&merged.text).entities.len(), 1);
}

#[test]
fn a_deletion_against_a_change_is_a_conflict_either_way_round() {
    let deleted = branch(BASE, |e| {
        e.delete_subtree(1).unwrap();
    });
    let changed = branch(BASE, |e| {
        e.rename(2, "Lantern").unwrap();
    });
    // This branch changed the lamp, the other deleted the tree it is in: kept, marked.
    let merged = merge(BASE, &changed, &deleted).unwrap();
    assert_eq!(merged.conflicts.len(), 1, "{}", merged.report("garden"));
    assert_eq!(merged.conflicts[0].note, "theirs removes this");
    let doc = read(&merged.text);
    assert_eq!(doc.entities.len(), 3);
    assert_eq!(doc.entity(2).unwrap().name, "Lantern");
    let at = merged.conflicts[0].position.offset;
    let taken = read(&resolve(&merged.text, at, Side::Theirs).unwrap());
    assert_eq!(taken.entities.keys().copied().collect::<Vec<_>>(), [3]);
    assert_eq!(taken.roots, [3]);
    let kept = read(&resolve(&merged.text, at, Side::Ours).unwrap());
    assert_eq!(kept.entities.len(), 3);
    // This branch deleted the tree, the other changed the lamp in it: gone, marked, and the
    // marker holds what the other branch had.
    let merged = merge(BASE, &deleted, &changed).unwrap();
    assert_eq!(merged.conflicts.len(), 1, "{}", merged.report("garden"));
    let c = &merged.conflicts[0];
    assert!(
        c.note.starts_with("theirs keeps 1: (id: 1, name: \"Tree\""),
        "{}",
        c.note
    );
    assert!(c.note.contains("\"Lantern\""), "{}", c.note);
    let doc = read(&merged.text);
    assert_eq!(doc.entities.len(), 1);
    let parsed = SceneDoc::from_str(&merged.text).unwrap();
    assert!(validate_parsed(&parsed, None).has_errors());
    let taken = read(&resolve(&merged.text, c.position.offset, Side::Theirs).unwrap());
    assert_eq!(taken.entities.len(), 3);
    assert_eq!(taken.entity(2).unwrap().name, "Lantern");
    assert_eq!(taken.roots, [3, 1]);
    assert!(
        taken.check_integrity().is_empty(),
        "{:?}",
        taken.check_integrity()
    );
}

#[test]
fn moves_merge_with_edits_and_opposite_moves_conflict() {
    // One branch moves the lamp to the bench, the other renames it: both kept.
    let moved = branch(BASE, |e| {
        e.reparent(2, Some(3), 0).unwrap();
    });
    let renamed = branch(BASE, |e| {
        e.rename(2, "Lantern").unwrap();
    });
    let merged = merge(BASE, &moved, &renamed).unwrap();
    assert!(merged.is_clean());
    let doc = read(&merged.text);
    assert_eq!(doc.entity(2).unwrap().parent, Some(3));
    assert_eq!(doc.entity(2).unwrap().name, "Lantern");
    assert_eq!(doc.entity(1).unwrap().children, Vec::<u64>::new());
    assert_eq!(doc.entity(3).unwrap().children, [2]);
    // One moves it to the bench, the other to the roots: a conflict on its parent.
    let to_roots = branch(BASE, |e| {
        e.reparent(2, None, 2).unwrap();
    });
    let merged = merge(BASE, &moved, &to_roots).unwrap();
    assert_eq!(merged.conflicts.len(), 1, "{}", merged.report("garden"));
    assert_eq!(merged.conflicts[0].note, "theirs = None");
    let doc = read(&merged.text);
    assert!(doc.check_integrity().is_empty());
    assert_eq!(doc.entity(2).unwrap().parent, Some(3));
    // Taking theirs moves it, lists and all.
    let taken = read(
        &resolve(
            &merged.text,
            merged.conflicts[0].position.offset,
            Side::Theirs,
        )
        .unwrap(),
    );
    assert_eq!(taken.entity(2).unwrap().parent, None);
    assert_eq!(taken.roots, [1, 3, 2]);
    assert!(taken.entity(3).unwrap().children.is_empty());
    assert!(
        taken.check_integrity().is_empty(),
        "{:?}",
        taken.check_integrity()
    );
    // Moves that would make a loop: A under B here, B under A there.
    let a_under_b = branch(BASE, |e| {
        e.reparent(1, Some(3), 0).unwrap();
    });
    let b_under_a = branch(BASE, |e| {
        e.reparent(3, Some(1), 1).unwrap();
    });
    let merged = merge(BASE, &a_under_b, &b_under_a).unwrap();
    assert_eq!(merged.conflicts.len(), 1, "{}", merged.report("garden"));
    let doc = read(&merged.text);
    assert!(
        doc.check_integrity().is_empty(),
        "{:?}",
        doc.check_integrity()
    );
    assert_eq!(doc.entity(1).unwrap().parent, Some(3));
}

#[test]
fn children_added_on_both_branches_under_one_parent_are_all_kept() {
    let ours = branch(BASE, |e| {
        e.add_entity("Apple", Some(1), at(0.0, 2.0, 0.0), vec![])
            .unwrap();
    });
    let theirs = branch(BASE, |e| {
        e.add_entity("Nest", Some(1), at(0.0, 4.0, 0.0), vec![])
            .unwrap();
        e.add_entity("Owl", Some(1), at(0.0, 5.0, 0.0), vec![])
            .unwrap();
    });
    let merged = merge(BASE, &ours, &theirs).unwrap();
    assert!(merged.is_clean(), "{}", merged.report("garden"));
    let doc = read(&merged.text);
    let names: Vec<&str> = doc
        .entity(1)
        .unwrap()
        .children
        .iter()
        .map(|c| doc.entity(*c).unwrap().name.as_str())
        .collect();
    assert_eq!(names, ["Lamp", "Apple", "Nest", "Owl"]);
    assert!(doc.check_integrity().is_empty());
    assert!(doc.next_id > *doc.entities.keys().max().unwrap());
}

#[test]
fn a_comment_the_other_branch_adds_to_an_entity_arrives_as_written() {
    let ours = branch(BASE, |e| {
        e.rename(1, "Oak").unwrap();
    });
    let theirs = BASE.replace(
        "    3: (\n      id: 3,",
        "    // Painted green in spring.\n    3: (\n      id: 3, // the bench",
    );
    let merged = merge(BASE, &ours, &theirs).unwrap();
    assert!(merged.is_clean());
    assert!(
        merged
            .text
            .contains("    // Painted green in spring.\n    3: (\n      id: 3, // the bench"),
        "{}",
        merged.text
    );
    assert!(merged.text.contains("name: \"Oak\""));
    // Only those bytes: this branch's text with the other's two changed lines.
    assert_eq!(new_lines(&ours, &merged.text), new_lines(BASE, &theirs));
    assert_eq!(new_lines(&merged.text, &ours), new_lines(&theirs, BASE));
}

#[test]
fn a_conflict_inside_a_component_is_marked_at_its_field_and_both_sides_resolve() {
    let set = |v: f32| {
        move |e: &mut SceneEdit| {
            let mut light = lamp_light(e.doc());
            light.intensity = v;
            e.set_component(2, ComponentData::PointLight(light))
                .unwrap();
        }
    };
    let merged = merge(BASE, &branch(BASE, set(900.0)), &branch(BASE, set(1500.0))).unwrap();
    assert_eq!(merged.conflicts.len(), 1);
    assert!(
        merged
            .text
            .contains("intensity: 900.0 /* forge-merge: theirs = 1500.0 */, // warm"),
        "{}",
        merged.text
    );
    let at = merged.conflicts[0].position.offset;
    assert_eq!(
        intensity(&read(&resolve(&merged.text, at, Side::Theirs).unwrap()), 2),
        1500.0
    );
    assert_eq!(
        intensity(&read(&resolve(&merged.text, at, Side::Ours).unwrap()), 2),
        900.0
    );
    // Resolving gives back the text around it exactly.
    let theirs_taken = resolve(&merged.text, at, Side::Theirs).unwrap();
    assert!(
        theirs_taken.contains("intensity: 1500.0, // warm"),
        "{theirs_taken}"
    );
}

#[test]
fn custom_fields_merge_one_by_one_and_references_follow_renumbering() {
    let with_health = branch(BASE, |e| {
        let health = CustomComponent {
            type_path: "game::Health".into(),
            fields: vec![
                CustomField::new("hp", "10"),
                CustomField::new("armour", "1"),
            ],
            value: None,
        };
        e.add_component(3, ComponentData::Custom(health)).unwrap();
    });
    let ours = branch(&with_health, |e| {
        e.set_custom_field(3, "game::Health", "hp", "20").unwrap();
    });
    let theirs = branch(&with_health, |e| {
        e.set_custom_field(3, "game::Health", "armour", "5")
            .unwrap();
        e.set_custom_field(3, "game::Health", "regen", "0.5")
            .unwrap();
    });
    let merged = merge(&with_health, &ours, &theirs).unwrap();
    assert!(merged.is_clean(), "{}", merged.report("garden"));
    let doc = read(&merged.text);
    match doc.entity(3).unwrap().component("custom:game::Health") {
        Some(ComponentData::Custom(c)) => {
            let fields: Vec<(&str, &str)> = c
                .fields
                .iter()
                .map(|f| (f.name.as_str(), f.expr.as_str()))
                .collect();
            assert_eq!(fields, [("hp", "20"), ("armour", "5"), ("regen", "0.5")]);
        }
        other => panic!("{other:?}"),
    }
}

/// A scene placing a prefab twice, with a tile layer.
const PLACED: &str = r#"(
  format_version: 1,
  name: "Yard",
  entities: {
    1: (
      id: 1,
      name: "House",
      parent: None,
      children: [],
      transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
      components: [],
      instance: Some((
        scene: "prefabs/house.forge.ron",
        overrides: [
          (target: [1], name: Some("Front door")),
        ],
      )),
    ),
  },
  roots: [1],
  next_id: 3,
  layers: [
    (
      id: 2,
      name: "Ground",
      parent: None,
      plane: xz,
      cell_size: (x: 1.0, y: 1.0),
      origin: (x: 0.0, y: 0.0, z: 0.0),
      palette: {
        "g": "tiles/grass.forge.ron",
        "s": "tiles/stone.forge.ron",
      },
      rows: [
        "gggg",
        "gggg",
      ],
    ),
  ],
)
"#;

#[test]
fn overrides_of_different_targets_and_cells_painted_on_both_branches_merge() {
    let ours = branch(PLACED, |e| {
        e.paint(2, CellRect::cell(0, 0), 's').unwrap();
        e.set_instance(
            1,
            Some({
                let mut i = Instance::new("prefabs/house.forge.ron");
                i.overrides.push(Override {
                    name: Some("Front door".into()),
                    ..Override::new(vec![1])
                });
                i.overrides.push(Override {
                    name: Some("Chimney".into()),
                    ..Override::new(vec![4])
                });
                i
            }),
        )
        .unwrap();
    });
    let theirs = branch(PLACED, |e| {
        e.paint(2, CellRect::cell(3, 1), 's').unwrap();
        e.set_instance(
            1,
            Some({
                let mut i = Instance::new("prefabs/house.forge.ron");
                i.overrides.push(Override {
                    name: Some("Back door".into()),
                    ..Override::new(vec![1])
                });
                i
            }),
        )
        .unwrap();
    });
    let merged = merge(PLACED, &ours, &theirs).unwrap();
    assert!(merged.is_clean(), "{}", merged.report("yard"));
    let doc = read(&merged.text);
    let names: Vec<(&[u64], Option<&str>)> = doc
        .entity(1)
        .unwrap()
        .instance
        .as_ref()
        .unwrap()
        .overrides
        .iter()
        .map(|o| (&o.target[..], o.name.as_deref()))
        .collect();
    assert_eq!(
        names,
        [(&[1][..], Some("Back door")), (&[4][..], Some("Chimney"))]
    );
    assert_eq!(doc.layers[0].rows, ["gggs", "sggg"]);
    // The rows changed where they are.
    assert!(
        merged.text.contains("        \"gggs\",\n        \"sggg\","),
        "{}",
        merged.text
    );
    // The same cell painted differently: a conflict at its row.
    let a = branch(PLACED, |e| {
        e.paint(2, CellRect::cell(1, 0), 's').unwrap();
    });
    let b = branch(PLACED, |e| {
        e.erase(2, CellRect::cell(1, 0)).unwrap();
    });
    let merged = merge(PLACED, &a, &b).unwrap();
    assert_eq!(merged.conflicts.len(), 1, "{}", merged.report("yard"));
    assert!(
        merged
            .text
            .contains("\"gsgg\" /* forge-merge: theirs = \"g.gg\" */,"),
        "{}",
        merged.text
    );
    let taken = read(
        &resolve(
            &merged.text,
            merged.conflicts[0].position.offset,
            Side::Theirs,
        )
        .unwrap(),
    );
    assert_eq!(taken.layers[0].rows, ["gggg", "g.gg"]);
}

#[test]
fn the_scene_name_and_a_whole_component_conflict_and_report_what() {
    let ours = branch(BASE, |e| {
        e.set_scene_name("Garden (day)").unwrap();
        e.remove_component(2, "point_light").unwrap();
    });
    let theirs = branch(BASE, |e| {
        e.set_scene_name("Garden (night)").unwrap();
        let mut light = lamp_light(e.doc());
        light.range = 40.0;
        e.set_component(2, ComponentData::PointLight(light))
            .unwrap();
    });
    let merged = merge(BASE, &ours, &theirs).unwrap();
    assert_eq!(merged.conflicts.len(), 2, "{}", merged.report("garden"));
    let report = merged.report("garden.forge.ron");
    assert!(report.contains("the scene's name"), "{report}");
    assert!(report.contains("point_light"), "{report}");
    // Each reported at its own line, with the validation error there.
    let parsed = SceneDoc::from_str(&merged.text).unwrap();
    let lines: Vec<u32> = validate_parsed(&parsed, None)
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::merge::CONFLICT)
        .filter_map(|d| d.position.map(|p| p.line))
        .collect();
    let mut expected: Vec<u32> = merged.conflicts.iter().map(|c| c.position.line).collect();
    expected.sort_unstable();
    let mut lines = lines;
    lines.sort_unstable();
    assert_eq!(lines, expected);
    // Taking theirs everywhere gives the other branch's light back.
    let mut text = merged.text.clone();
    while let Some(c) = bevy_forge_scene::merge::merge(&text, &text, &text)
        .unwrap()
        .conflicts
        .first()
        .cloned()
    {
        text = resolve(&text, c.position.offset, Side::Theirs).unwrap();
    }
    let doc = read(&text);
    assert_eq!(doc.name, "Garden (night)");
    match doc.entity(2).unwrap().component("point_light") {
        Some(ComponentData::PointLight(l)) => assert_eq!(l.range, 40.0),
        other => panic!("{other:?}"),
    }
}

#[test]
fn git_conflict_markers_are_a_read_error_that_names_forge_merge() {
    let text = format!(
        "{}<<<<<<< HEAD\n    4: (..),\n=======\n    4: (..),\n>>>>>>> other\n",
        &BASE[..BASE.find("  },\n  roots").unwrap()]
    );
    let e = SceneDoc::from_str(&text).unwrap_err();
    let line = text[..text.find("<<<<<<<").unwrap()].lines().count() + 1;
    assert_eq!(e.line() as usize, line, "{e}");
    assert_eq!(e.column(), 1);
    let message = e.to_string();
    assert!(
        message.contains("forge merge") && message.contains("<<<<<<<"),
        "{message}"
    );
    let d = bevy_forge_scene::validate::Diagnostic::from_read_error(&e);
    assert_eq!(d.code, codes::read::GIT_CONFLICT);
    // The editor's read says the same, once.
    let recovered = SceneDoc::from_str_recovering(&text);
    assert_eq!(recovered.errors, [e]);
}

#[test]
fn markers_in_strings_and_plain_comments_are_not_conflicts() {
    let text = BASE
        .replace("\"Bench\"", "\"/* forge-merge: theirs = 1 */\"")
        .replace("// warm", "// forge-merge: just words");
    let parsed = SceneDoc::from_str(&text).unwrap();
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert!(!validate_parsed(&parsed, None).has_errors());
}

// ---- property: random edits on two branches of random scenes ----

/// One edit a branch makes (ids index the base's entities; errors, such as a move into its own
/// subtree, leave the branch as it was).
#[derive(Debug, Clone)]
enum Step {
    Rename(usize, u8),
    Move(usize, i8),
    Light(usize, u8),
    Expr(usize, u8, u8),
    Add(usize),
    Delete(usize),
    Reparent(usize, usize),
    Paint(u32, u32, u8),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0..12usize, 0..3u8).prop_map(|(e, n)| Step::Rename(e, n)),
        (0..12usize, -3..3i8).prop_map(|(e, x)| Step::Move(e, x)),
        (0..12usize, 0..3u8).prop_map(|(e, v)| Step::Light(e, v)),
        (0..12usize, 0..2u8, 0..3u8).prop_map(|(e, f, v)| Step::Expr(e, f, v)),
        (0..13usize).prop_map(Step::Add),
        (0..12usize).prop_map(Step::Delete),
        (0..12usize, 0..13usize).prop_map(|(e, p)| Step::Reparent(e, p)),
        (0..6u32, 0..3u32, 0..3u8).prop_map(|(i, j, k)| Step::Paint(i, j, k)),
    ]
}

/// A base scene of `n` entities: each under an earlier one or a root (`parents`), every other
/// one with a light, every third with a custom component.
fn scene(n: usize, parents: &[usize]) -> String {
    let mut doc = SceneDoc::new("Random");
    for (i, p) in parents.iter().enumerate().take(n) {
        let under = p % (i + 1);
        let parent = (i > 0 && under < i).then_some(under as u64 + 1);
        let id = doc.add_entity(format!("E{}", i + 1), parent).unwrap();
        let node = doc.entity_mut(id).unwrap();
        if i % 2 == 0 {
            node.components
                .push(ComponentData::PointLight(PointLightData {
                    color: bevy_forge_scene::format::ColorData::WHITE,
                    intensity: 100.0,
                    range: 10.0,
                    shadows: false,
                }));
        }
        if i % 3 == 0 {
            node.components.push(ComponentData::Custom(CustomComponent {
                type_path: "game::Stats".into(),
                fields: vec![CustomField::new("a", "1"), CustomField::new("b", "2")],
                value: None,
            }));
        }
    }
    // A tile layer of 4 x 2 cells, some filled.
    let mut layer = bevy_forge_scene::format::TileLayer::new(doc.next_id, "Ground");
    layer.palette = vec![
        ('g', "tiles/g.forge.ron".into()),
        ('s', "tiles/s.forge.ron".into()),
    ];
    layer.rows = vec!["g..s".to_owned(), "gg..".to_owned()];
    doc.next_id += 1;
    doc.layers.push(layer);
    doc.to_canonical_string()
}

/// The filled cells of the scene's tile layer.
fn cells(doc: &SceneDoc) -> std::collections::BTreeMap<(u64, u64), char> {
    doc.layers
        .first()
        .map(|l| l.filled().map(|(i, j, k, _)| ((i, j), k)).collect())
        .unwrap_or_default()
}

/// `base` with `steps` made through the edit layer; `tag` names what the branch adds.
fn edited(base: &str, steps: &[Step], tag: &str) -> String {
    let mut e = SceneEdit::from_text(base).unwrap();
    let ids: Vec<u64> = e.doc().entities.keys().copied().collect();
    let id = |i: usize| ids[i % ids.len()];
    for (k, s) in steps.iter().enumerate() {
        let _ = match s {
            Step::Rename(i, n) => e.rename(id(*i), &format!("{tag}{n}")),
            Step::Move(i, x) => e.set_transform(id(*i), at(f32::from(*x), 0.0, 0.0)),
            Step::Light(i, v) => match e.entity(id(*i)).and_then(|n| n.component("point_light")) {
                Some(ComponentData::PointLight(l)) => {
                    let mut l = l.clone();
                    l.intensity = 200.0 + f32::from(*v) * 100.0;
                    e.set_component(id(*i), ComponentData::PointLight(l))
                }
                _ => Ok(None),
            },
            Step::Expr(i, f, v) => {
                let name = if *f == 0 { "a" } else { "b" };
                let side = if tag == "O" { 1 } else { 2 };
                e.set_custom_field(id(*i), "game::Stats", name, &format!("{side}{v}"))
                    .or(Ok(None))
            }
            Step::Add(p) => {
                let parent = (*p < ids.len())
                    .then(|| id(*p))
                    .filter(|p| e.entity(*p).is_some());
                e.add_entity(&format!("{tag}new{k}"), parent, at(0.0, 0.0, 0.0), vec![])
                    .map(|(g, _)| g)
            }
            Step::Delete(i) if e.entity(id(*i)).is_some() => e.delete_subtree(id(*i)),
            Step::Delete(_) => Ok(None),
            Step::Paint(i, j, k) => {
                let layer = e.doc().layers[0].id;
                let rect = CellRect::cell(*i, *j);
                match k {
                    0 => e.erase(layer, rect),
                    1 => e.paint(layer, rect, 'g'),
                    _ => e.paint(layer, rect, 's'),
                }
            }
            Step::Reparent(i, p) => {
                let parent = (*p < ids.len()).then(|| id(*p));
                match (e.entity(id(*i)), parent.map(|p| e.entity(p))) {
                    (Some(_), Some(None)) | (None, _) => Ok(None),
                    _ => e.reparent(id(*i), parent, 0),
                }
            }
        };
    }
    e.text()
}

/// What a merge must keep of one entity's field: its value on each side.
fn fields(doc: &SceneDoc, id: u64) -> Option<Vec<String>> {
    let n = doc.entity(id)?;
    let light = match n.component("point_light") {
        Some(ComponentData::PointLight(l)) => l.intensity.to_string(),
        _ => String::new(),
    };
    let stats = |f: &str| match n.component("custom:game::Stats") {
        Some(ComponentData::Custom(c)) => c
            .fields
            .iter()
            .find(|x| x.name == f)
            .map(|x| x.expr.to_string())
            .unwrap_or_default(),
        _ => String::new(),
    };
    Some(vec![
        n.name.to_string(),
        format!("{:?}", n.transform.translation),
        light,
        stats("a"),
        stats("b"),
    ])
}

/// A document with ids replaced by names (unique in these scenes), for comparing merges that
/// renumbered differently.
fn by_names(doc: &SceneDoc) -> Vec<String> {
    let name = |id: u64| {
        doc.entity(id)
            .map_or(format!("#{id}"), |n| n.name.to_string())
    };
    let mut out: Vec<String> = doc
        .entities
        .values()
        .map(|n| {
            let children: Vec<String> = n.children.iter().map(|c| name(*c)).collect();
            format!(
                "{} under {:?} over {children:?}: {:?} {:?}",
                n.name,
                n.parent.map(name),
                n.transform,
                n.components
            )
        })
        .collect();
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_branches_merge_into_a_scene_that_keeps_every_one_sided_change(
        n in 2..10usize,
        parents in proptest::collection::vec(0..20usize, 10),
        ours_steps in proptest::collection::vec(step(), 0..6),
        theirs_steps in proptest::collection::vec(step(), 0..6),
    ) {
        let base = scene(n, &parents);
        let ours = edited(&base, &ours_steps, "O");
        let theirs = edited(&base, &theirs_steps, "T");
        let merged = merge(&base, &ours, &theirs).unwrap();
        // The result always reads, as a whole forest, and only the markers are errors.
        let parsed = SceneDoc::from_str(&merged.text).unwrap();
        let m = &parsed.doc;
        prop_assert!(m.check_integrity().is_empty(), "{:?}\n{}", m.check_integrity(), merged.text);
        let errors: Vec<_> = validate_parsed(&parsed, None).diagnostics.into_iter().filter(|d| d.severity == Severity::Error).collect();
        prop_assert!(errors.iter().all(|d| d.code == codes::merge::CONFLICT), "{errors:?}");
        prop_assert_eq!(errors.len(), merged.conflicts.len());
        // Per entity of the base that both branches kept: a field one branch changed has its
        // value; a field both changed differently is a conflict.
        let (b, o, t) = (read(&base), read(&ours), read(&theirs));
        for id in b.entities.keys().copied() {
            let (Some(fb), Some(fo), Some(ft)) = (fields(&b, id), fields(&o, id), fields(&t, id)) else {
                continue;
            };
            let Some(fm) = fields(m, id) else {
                // Kept on both branches, so only a conflict elsewhere (a deletion of a parent
                // against a change) can take it out.
                prop_assert!(!merged.conflicts.is_empty(), "entity {id} lost");
                continue;
            };
            for k in 0..fb.len() {
                if fo[k] != fb[k] && ft[k] == fb[k] {
                    prop_assert_eq!(&fm[k], &fo[k], "entity {} field {}", id, k);
                } else if ft[k] != fb[k] && fo[k] == fb[k] {
                    prop_assert_eq!(&fm[k], &ft[k], "entity {} field {}\n{}", id, k, merged.text);
                } else if fo[k] != fb[k] && ft[k] != fb[k] && fo[k] != ft[k] {
                    let marked = merged.conflicts.iter().any(|c| c.what.iter().any(|w| w.contains(&format!("entity {id} "))));
                    prop_assert!(marked, "entity {} field {}: no conflict\n{}", id, k, merged.report("random"));
                    prop_assert_eq!(&fm[k], &fo[k]);
                }
            }
        }
        // Cell by cell, the same.
        let (cb, co, ct, cm) = (cells(&b), cells(&o), cells(&t), cells(m));
        let all: std::collections::BTreeSet<(u64, u64)> = cb.keys().chain(co.keys()).chain(ct.keys()).copied().collect();
        for c in all {
            let (kb, ko, kt, km) = (cb.get(&c), co.get(&c), ct.get(&c), cm.get(&c));
            if ko != kb && kt == kb {
                prop_assert_eq!(km, ko, "cell {:?}", c);
            } else if kt != kb && ko == kb {
                prop_assert_eq!(km, kt, "cell {:?}\n{}", c, merged.text);
            } else if ko != kt {
                let marked = merged.conflicts.iter().any(|x| x.what.iter().any(|w| w.contains(&format!("cell ({}, {})", c.0, c.1))));
                prop_assert!(marked, "cell {:?}: no conflict\n{}", c, merged.report("random"));
                prop_assert_eq!(km, ko);
            }
        }
        // Symmetry: the other way round gives the same entities and values, conflicts aside.
        let other = merge(&base, &theirs, &ours).unwrap();
        if merged.is_clean() && other.is_clean() {
            let o2 = read(&other.text);
            prop_assert_eq!(by_names(m), by_names(&o2));
            prop_assert_eq!(cells(m), cells(&o2));
        }
    }
}

#[test]
fn an_edit_read_again_in_part_keeps_the_markers_as_a_whole_read_gives_them() {
    let ours = branch(BASE, |e| {
        e.rename(2, "Lantern").unwrap();
    });
    let theirs = branch(BASE, |e| {
        e.rename(2, "Torch").unwrap();
    });
    let text = merge(BASE, &ours, &theirs).unwrap().text;
    let marker = text.find("/* forge-merge").unwrap();
    let tree = text.find("\"Tree\"").unwrap() + 1;
    let lantern = text.find("\"Lantern\"").unwrap() + 1;
    // (edited range, new bytes): typing before the marker's entry, in its entry, deleting the
    // marker, typing a new one.
    let edits = [
        (tree..tree, "Old "),
        (lantern..lantern, "Big "),
        (
            marker - 1..text[marker..].find("*/").unwrap() + marker + 2,
            "",
        ),
        (
            tree + 4..tree + 4,
            "\" /* forge-merge: theirs = \"Oak\" */ //\"",
        ),
    ];
    let mut in_part = 0;
    for (range, new) in edits {
        let mut edited = text.clone();
        edited.replace_range(range.clone(), new);
        let whole = SceneDoc::from_str(&edited);
        let mut parsed = SceneDoc::from_str(&text).unwrap();
        if parsed.reread_edit(&edited, range.clone(), new.len()) {
            in_part += 1;
            assert_eq!(Ok(parsed), whole, "{range:?} {new:?}");
        }
    }
    // Typing before the entry with the marker is read in part, the marker moved with it.
    assert!(in_part >= 1);
}

/// Both branches changed overrides of one instance: the edit layer splices override by
/// override, so this branch's comments inside the `instance` value stay and each change
/// arrives as its own bytes.
#[test]
fn overrides_changed_on_both_branches_arrive_as_their_own_bytes() {
    let with_comment = PLACED.replace(
        "          (target: [1], name: Some(\"Front door\")),",
        "          (target: [1], name: Some(\"Front door\")), // the red one\n          (target: [2], name: Some(\"Window\")),",
    );
    let ours = with_comment.replace("Some(\"Window\")", "Some(\"Bay window\")");
    let theirs = with_comment.replace("Some(\"Front door\")", "Some(\"Green door\")");
    let merged = merge(&with_comment, &ours, &theirs).unwrap();
    assert!(merged.is_clean());
    assert!(
        merged.text.contains("(target: [1], name: Some(\"Green door\")), // the red one\n          (target: [2], name: Some(\"Bay window\")),"),
        "{}",
        merged.text
    );
    assert_eq!(
        new_lines(&ours, &merged.text),
        new_lines(&with_comment, &theirs)
    );
}

#[test]
fn the_loader_check_refuses_a_scene_with_a_marker_and_follows_it_through_edits() {
    use bevy_forge_scene::format::TextChange;
    use bevy_forge_scene::pipeline::{self, PrefabFiles, Source};
    let ours = branch(BASE, |e| {
        e.rename(2, "Lantern").unwrap();
    });
    let theirs = branch(BASE, |e| {
        e.rename(2, "Torch").unwrap();
    });
    let text = merge(BASE, &ours, &theirs).unwrap().text;
    let no_prefabs = |p: &str| -> Result<Vec<u8>, String> { Err(format!("no {p}")) };
    let mut files = PrefabFiles::new(no_prefabs);
    let conflicts = |checked: &pipeline::Checked| -> Vec<(u32, u32)> {
        checked
            .diagnostics
            .iter()
            .filter(|d| d.code == codes::merge::CONFLICT && d.severity == Severity::Error)
            .filter_map(|d| d.position.map(|p| (p.line, p.column)))
            .collect()
    };
    let source = Source::read("garden.forge.ron", text.as_bytes()).unwrap();
    let (checked, last) = pipeline::check_keeping(source, &mut files);
    let line = text[..text.find("/* forge-merge").unwrap()].lines().count() as u32;
    assert_eq!(conflicts(&checked).len(), 1);
    assert_eq!(conflicts(&checked)[0].0, line);
    // Lines typed above it: the check in part reports it at its new line.
    let edited = text.replacen(
        "// The garden level.\n",
        "// The garden level.\n// Two more\n// lines.\n",
        1,
    );
    let change = TextChange::between(&text, &edited).unwrap();
    let source = Source::read("garden.forge.ron", edited.as_bytes()).unwrap();
    let (again, _) = pipeline::check_again(source.clone(), &mut files, last.unwrap(), change);
    assert_eq!(
        conflicts(&again),
        conflicts(&pipeline::check(source, &mut files))
    );
    assert_eq!(conflicts(&again)[0].0, line + 2);
}

#[test]
fn fields_an_override_sets_merge_one_by_one() {
    let light = |intensity: f32, range: f32, fields: &[&str]| {
        bevy_forge_scene::format::ComponentPatch::new(
            ComponentData::PointLight(PointLightData {
                color: bevy_forge_scene::format::ColorData::WHITE,
                intensity,
                range,
                shadows: false,
            }),
            fields,
        )
    };
    let with = |patch: bevy_forge_scene::format::ComponentPatch| {
        let mut i = Instance::new("prefabs/house.forge.ron");
        i.overrides.push(Override {
            name: Some("Front door".into()),
            set: vec![patch],
            ..Override::new(vec![1])
        });
        i
    };
    let base = branch(PLACED, |e| {
        e.set_instance(1, Some(with(light(500.0, 10.0, &["intensity"]))))
            .unwrap();
    });
    let ours = branch(&base, |e| {
        e.set_instance(1, Some(with(light(900.0, 10.0, &["intensity"]))))
            .unwrap();
    });
    let theirs = branch(&base, |e| {
        e.set_instance(1, Some(with(light(500.0, 30.0, &["intensity", "range"]))))
            .unwrap();
    });
    let merged = merge(&base, &ours, &theirs).unwrap();
    assert!(merged.is_clean(), "{}", merged.report("yard"));
    let doc = read(&merged.text);
    let set = &doc.entity(1).unwrap().instance.as_ref().unwrap().overrides[0].set[0];
    assert_eq!(set.fields, ["intensity", "range"]);
    match &set.component {
        ComponentData::PointLight(l) => assert_eq!((l.intensity, l.range), (900.0, 30.0)),
        other => panic!("{other:?}"),
    }
    // Both set one field differently: a conflict at the instance.
    let theirs = branch(&base, |e| {
        e.set_instance(1, Some(with(light(700.0, 10.0, &["intensity"]))))
            .unwrap();
    });
    let merged = merge(&base, &ours, &theirs).unwrap();
    assert_eq!(merged.conflicts.len(), 1, "{}", merged.report("yard"));
    let taken = resolve(
        &merged.text,
        merged.conflicts[0].position.offset,
        Side::Theirs,
    )
    .unwrap();
    let doc = read(&taken);
    match &doc.entity(1).unwrap().instance.as_ref().unwrap().overrides[0].set[0].component {
        ComponentData::PointLight(l) => assert_eq!(l.intensity, 700.0),
        other => panic!("{other:?}"),
    }
}
