//! The edit layer's own tests (those of private parts: the atomic write, the one-entry read).

#![allow(clippy::unwrap_used)]
use super::*;

const SCENE: &str = "// kept\n(format_version: 1, name: \"S\", entities: {\n  1: (id: 1, name: \"A\", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []),\n}, roots: [1], next_id: 2)\n";

#[test]
fn an_edit_inside_one_entry_reads_as_a_whole_read_of_the_new_text() {
    let two = SCENE.replacen(
        "}, roots: [1], next_id: 2)",
        "  2: (id: 2, name: \"é\", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []),\n}, roots: [1, 2], next_id: 3)",
        1,
    );
    let mut edit = SceneEdit::from_text(&two).unwrap();
    // One entry's name (one splice: that entry read again), then another's transform.
    edit.rename(1, "A longer name\nwith a line").unwrap();
    let whole = SceneDoc::from_str(&edit.text()).unwrap();
    assert_eq!(edit.parsed, whole);
    let mut transform = edit.entity(2).unwrap().transform;
    transform.translation.x = 2.5;
    edit.set_transform(2, transform).unwrap();
    let whole = SceneDoc::from_str(&edit.text()).unwrap();
    assert_eq!(edit.parsed, whole);
    assert_eq!(edit.entity(2).unwrap().transform.translation.x, 2.5);
}

#[test]
fn a_crash_between_the_temporary_file_and_the_rename_leaves_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.forge.ron");
    std::fs::write(&path, SCENE).unwrap();
    let mut edit = SceneEdit::open(&path).unwrap();
    let text = edit.text.replace("\"A\"", "\"B\"");
    let parsed = SceneDoc::from_str(&text).unwrap();
    let crashed = edit.commit_with(text, parsed, |tmp| {
        // The new text is complete in the temporary file when the crash comes.
        assert!(std::fs::read_to_string(tmp).unwrap().contains("\"B\""));
        Err(std::io::Error::other("crash"))
    });
    assert!(crashed.is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), SCENE);
    // This SceneEdit still has the old text, and edits the file as before.
    assert_eq!(edit.text(), SCENE);
    edit.rename(1, "C").unwrap();
    assert!(std::fs::read_to_string(&path).unwrap().contains("\"C\""));
    // No temporary file is left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
