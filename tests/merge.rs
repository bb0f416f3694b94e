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
