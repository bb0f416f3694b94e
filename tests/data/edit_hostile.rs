//! The edit layer (`bevy_forge_scene::edit`) on hand-written layouts the reader accepts and on
//! unusual uses of its history: each edit that reads is made in place (or refused with nothing
//! changed), keeps the author's comments, and undoes byte-exactly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bevy_forge_scene::edit::{SceneEdit, SceneEditError, migrate};
use bevy_forge_scene::format::{SceneDoc, TransformData};

const TF: &str = "transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0))";

/// A one-entity scene.
fn one() -> String {
    format!(
        "(format_version: 1, name: \"S\", entities: {{1: (id: 1, name: \"A\", parent: None, children: [], {TF}, components: [])}}, roots: [1], next_id: 2)"
    )
}

/// Runs `op`, checks the result reads as the text says and undo/redo give the bytes back.
fn edited(text: &str, op: impl FnOnce(&mut SceneEdit)) -> String {
    let mut edit = SceneEdit::from_text(text).unwrap();
    op(&mut edit);
    let after = edit.text();
    assert_eq!(
        &SceneDoc::from_str(&after)
            .unwrap()
            .doc
            .to_canonical_string(),
        &edit.doc().to_canonical_string()
    );
    while edit.undo().is_ok() {}
    assert_eq!(edit.text(), text);
    while edit.redo().is_ok() {}
    assert_eq!(edit.text(), after);
    after
}

#[test]
fn a_file_with_a_nan_number_can_be_edited() {
    // The canonical writer writes NaN and the reader reads it; NaN != NaN must not make every
    // edit "read as another document".
    let text = one().replacen("(x: 0.0, y: 0.0, z: 0.0)", "(x: NaN, y: 0.0, z: 0.0)", 1);
    let after = edited(&text, |e| {
        e.rename(1, "B").unwrap().unwrap();
    });
    assert_eq!(after, text.replace("\"A\"", "\"B\""));
    // Setting a NaN is refused: it would make the scene invalid.
    let after = edited(&one(), |e| {
        let mut t = TransformData::IDENTITY;
        t.scale.y = f32::NAN;
        assert!(matches!(
            e.set_transform(1, t),
            Err(SceneEditError::Invalid(_))
        ));
    });
    assert_eq!(after, one());
}

#[test]
fn an_inner_end_does_not_close_the_outer_group() {
    let mut edit = SceneEdit::from_text(&one()).unwrap();
    edit.begin("outer");
    edit.rename(1, "B").unwrap();
    edit.begin("inner");
    edit.rename(1, "C").unwrap();
    assert_eq!(edit.end(), None, "the inner end closes nothing");
    edit.rename(1, "D").unwrap();
    let group = edit.end().unwrap();
    assert_eq!(group.label, "outer");
    assert_eq!(group.patches.len(), 3);
    assert_eq!(edit.undo_stack().len(), 1);
    edit.undo().unwrap();
    assert_eq!(edit.text(), one());
}

#[test]
fn a_group_begun_before_an_undo_redoes() {
    let mut edit = SceneEdit::from_text(&one()).unwrap();
    edit.rename(1, "B").unwrap();
    edit.begin("g");
    edit.undo().unwrap();
    edit.rename(1, "C").unwrap();
    edit.end().unwrap();
    edit.undo().unwrap();
    assert_eq!(edit.text(), one());
    edit.redo().unwrap();
    assert_eq!(edit.text(), one().replace("\"A\"", "\"C\""));
}

/// Entity 2 is the key's comment holds a `(`; entity 1 is a root with 2 under it.
fn paren_comment(comment: &str) -> String {
    format!(
        "(\n  format_version: 1,\n  name: \"S\",\n  entities: {{\n    1: (id: 1, name: \"A\", parent: None, children: [2], {TF}, components: []),\n    2: {comment} (id: 2, name: \"B\", parent: Some(1), children: [], {TF}, components: []),\n  }},\n  roots: [1],\n  next_id: 3,\n)\n"
    )
}

#[test]
fn a_comment_with_a_bracket_between_an_entity_key_and_its_value() {
    for comment in [
        "/* (was 7 */",
        "/* a /* nested ( */ ) */",
        "// the bulb (old)\n   ",
    ] {
        let text = paren_comment(comment);
        // Deleting the last entry, and adding after it.
        let after = edited(&text, |e| {
            e.delete_subtree(2).unwrap().unwrap();
        });
        assert!(
            !after.contains("\"B\"") && !after.contains("(was"),
            "{after}"
        );
        let after = edited(&text, |e| {
            e.add_entity("N", None, TransformData::IDENTITY, vec![])
                .unwrap();
        });
        assert!(
            after.contains(comment) && after.contains("\"N\""),
            "{after}"
        );
    }
}

#[test]
fn some_written_with_spaces_before_its_bracket() {
    let text = one().replace("children: []", "children: [2]").replace(
        ")}, roots",
        &format!("), 2: (id: 2, name: \"B\", parent: Some /* p */ ( 1 ), children: [], {TF}, components: [])}}, roots"),
    ).replace("next_id: 2", "next_id: 3");
    let after = edited(&text, |e| {
        e.reparent(2, None, 1).unwrap().unwrap();
    });
    assert!(
        after.contains("parent: None, children: [], transform"),
        "{after}"
    );
}

#[test]
fn the_comma_ending_a_line_comment_is_not_the_list_comma() {
    // The last component, after a line comment ending with a comma.
    let text = one().replace(
        "components: []",
        "components: [(type: camera2d), // the camera,\n (type: visibility, data: visible)]",
    );
    let after = edited(&text, |e| {
        e.remove_component(1, "visibility").unwrap().unwrap();
    });
    assert!(after.contains("// the camera,\n"), "{after}");
    // The last entity, after an entity whose line comment ends with a comma.
    let text = paren_comment("").replace(
        "components: []),\n    2:",
        "components: []), // the lamp,\n    2:",
    );
    let after = edited(&text, |e| {
        e.delete_subtree(2).unwrap().unwrap();
    });
    assert!(after.contains("// the lamp,\n"), "{after}");
}

#[test]
fn a_format_version_written_with_a_plus_is_migrated() {
    // The reader reads `+0` as format 0 (and warns); migrate must see it too.
    let text = one().replace("format_version: 1", "format_version: +0");
    let mut edit = SceneEdit::from_text(&text).unwrap();
    assert_eq!(edit.written_version(), Some(0));
    let migrated = migrate(&mut edit).unwrap().unwrap();
    assert_eq!(migrated.from, 0);
    assert_eq!(edit.text(), one());
}

#[test]
fn the_first_item_of_an_empty_list_keeps_the_comments_inside_it() {
    for (empty, kept) in [
        ("components: [ /* none yet */ ]", "/* none yet */"),
        (
            "components: [\n    // add some here\n  ]",
            "// add some here",
        ),
    ] {
        let text = one().replace("components: []", empty);
        let after = edited(&text, |e| {
            e.add_component(1, bevy_forge_scene::format::ComponentData::Camera3d)
                .unwrap()
                .unwrap();
        });
        assert!(
            after.contains(kept) && after.contains("camera3d"),
            "{after}"
        );
    }
    for (empty, kept) in [
        ("entities: { /* none yet */ }", "/* none yet */"),
        ("entities: {\n    // add some here\n  }", "// add some here"),
    ] {
        let text = format!(
            "(\n  format_version: 1,\n  name: \"S\",\n  {empty},\n  roots: [],\n  next_id: 1,\n)\n"
        );
        let after = edited(&text, |e| {
            e.add_entity("N", None, TransformData::IDENTITY, vec![])
                .unwrap();
        });
        assert!(after.contains(kept) && after.contains("\"N\""), "{after}");
    }
}

#[test]
fn one_change_that_deletes_the_last_entity_and_adds_one() {
    let two = paren_comment("");
    let one_line = two
        .replace(",\n    2:", ", 2:")
        .replace("[]),\n  }", "[])}");
    let trailing = two.replace("[]),\n  }", "[]),   \n  }");
    for text in [two.clone(), one_line, trailing, one()] {
        let last = *SceneEdit::from_text(&text)
            .unwrap()
            .doc()
            .entities
            .keys()
            .last()
            .unwrap();
        let after = edited(&text, |e| {
            e.change("replace", |doc| {
                doc.delete_subtree(last)?;
                doc.add_entity("N", None)?;
                Ok(())
            })
            .unwrap()
            .unwrap();
        });
        assert!(
            after.contains("\"N\"") && !after.contains("\"B\""),
            "{after}"
        );
    }
}

#[test]
fn an_item_whose_comma_follows_a_block_comment_is_cut_with_it() {
    let text = paren_comment("").replace(
        "components: []),\n    2:",
        "components: [(type: camera2d) /* cam */, (type: camera3d)]) /* lamp */,\n    2:",
    );
    let after = edited(&text, |e| {
        e.remove_component(1, "camera2d").unwrap().unwrap();
    });
    assert!(
        after.contains("components: [ (type: camera3d)]) /* lamp */,"),
        "{after}"
    );
    let one_line = text.replace(",\n    2:", ", 2:");
    let after = edited(&one_line, |e| {
        e.reparent(2, None, 0).unwrap().unwrap();
        e.delete_subtree(1).unwrap().unwrap();
    });
    // The blanks after the cut entry go with it.
    assert!(after.contains("entities: {\n    2:  (id: 2"), "{after}");
}

#[cfg(unix)]
#[test]
fn an_edit_through_a_symbolic_link_changes_the_file_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.forge.ron");
    std::fs::write(&real, one()).unwrap();
    let link = dir.path().join("link.forge.ron");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let mut edit = SceneEdit::open(&link).unwrap();
    edit.rename(1, "B").unwrap().unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        one().replace("\"A\"", "\"B\"")
    );
    edit.undo().unwrap();
    assert_eq!(std::fs::read_to_string(&real).unwrap(), one());
}

#[test]
fn an_undo_inside_a_group_undoes_the_group_so_far() {
    let mut edit = SceneEdit::from_text(&one()).unwrap();
    edit.rename(1, "B").unwrap().unwrap();
    edit.begin("drag");
    edit.rename(1, "C").unwrap().unwrap();
    // Back to the text before the group's first edit: the undo stack's top ends there too.
    edit.rename(1, "B").unwrap().unwrap();
    let undone = edit.undo().unwrap();
    assert_eq!(undone.label, "drag");
    assert_eq!(edit.end(), None);
    assert_eq!(edit.text(), one().replace("\"A\"", "\"B\""));
    edit.undo().unwrap();
    assert_eq!(edit.text(), one());
    edit.redo().unwrap();
    edit.redo().unwrap();
    assert_eq!(edit.text(), one().replace("\"A\"", "\"B\""));
    assert_eq!(edit.undo_stack().len(), 2);
}

#[test]
fn a_nan_in_a_component_does_not_make_it_change_with_every_edit() {
    let text = paren_comment("").replace(
        "components: []),\n    2:",
        "components: [(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: NaN, range: 20, shadows: false))]),\n    2:",
    );
    let after = edited(&text, |e| {
        e.rename(2, "C").unwrap().unwrap();
    });
    assert_eq!(after, text.replace("\"B\"", "\"C\""));
}

#[test]
fn new_lines_take_the_line_ending_most_lines_have() {
    // An `\n` file with one `\r\n` (a pasted comment).
    let text = paren_comment("").replacen("(\n", "( // pasted\r\n", 1);
    let after = edited(&text, |e| {
        e.add_entity("N", Some(2), TransformData::IDENTITY, vec![])
            .unwrap();
    });
    assert_eq!(after.matches("\r\n").count(), 1, "{after:?}");
    // A `\r\n` file with one `\n`.
    let text = paren_comment("")
        .replace('\n', "\r\n")
        .replacen("\r\n", "\n", 1);
    let after = edited(&text, |e| {
        e.add_entity("N", Some(2), TransformData::IDENTITY, vec![])
            .unwrap();
    });
    assert_eq!(
        after.replace("\r\n", "").matches('\n').count(),
        1,
        "{after:?}"
    );
}

#[test]
fn a_hand_made_group_is_refused_not_applied_or_panicked_on() {
    let mut edit = SceneEdit::from_text(&one()).unwrap();
    let good = edit
        .dry_run("rename", |e| e.rename(1, "B").map(drop))
        .unwrap()
        .unwrap();
    // An offset at the end of memory.
    let mut far = good.clone();
    far.patches[0].offset = usize::MAX;
    assert!(matches!(
        edit.apply(&far),
        Err(bevy_forge_scene::edit::SceneEditError::NotAtStart(_))
    ));
    // Patches that do not end where the group says: applied, undo could never start.
    let mut other = good.clone();
    other.patches[0].after = "\"C\"".to_owned();
    assert!(matches!(
        edit.apply(&other),
        Err(bevy_forge_scene::edit::SceneEditError::NotAtStart(_))
    ));
    assert_eq!(edit.text(), one());
    assert!(edit.undo_stack().is_empty());
    edit.apply(&good).unwrap();
    edit.undo().unwrap();
    assert_eq!(edit.text(), one());
}

#[test]
fn a_negative_zero_is_written_as_set() {
    let mut edit = SceneEdit::from_text(&one()).unwrap();
    let mut t = TransformData::IDENTITY;
    t.translation.x = -0.0;
    edit.set_transform(1, t).unwrap().unwrap();
    assert!(
        edit.text().contains("translation: (x: -0.0, y: 0.0"),
        "{}",
        edit.text()
    );
    assert!(
        edit.entity(1)
            .unwrap()
            .transform
            .translation
            .x
            .is_sign_negative()
    );
    // Set again: nothing changes, nothing is recorded.
    assert_eq!(edit.set_transform(1, t).unwrap(), None);
    // A NaN is refused, whatever its bits: it would make the scene invalid.
    t.scale.z = f32::from_bits(0x7fc0_0001);
    assert!(matches!(
        edit.set_transform(1, t),
        Err(SceneEditError::Invalid(_))
    ));
    assert_eq!(edit.undo_stack().len(), 1);
}
