//! `forge merge` as git runs it: a temporary repository set up by `forge merge --install`,
//! branches that add, edit, move, delete, place prefabs, paint cells and comment, merged with a
//! real `git merge`; conflicts left as markers `forge validate` reports at their lines and
//! `forge lsp` resolves; `forge diff`; the warning of a clone without the driver.

use std::path::Path;
use std::process::{Command, Output};

use bevy_forge_scene::edit::SceneEdit;
use bevy_forge_scene::format::{CellRect, Instance, Override, SceneDoc, TransformData, Vec3Data};
use serde_json::{Value, json};

use super::lsp::{Client, apply_edits, range_json, uri};
use super::{forge, status, stderr, stdout};

/// The level both branches start from, with the author's comments.
const GARDEN: &str = r#"// The garden, shared by the whole team.
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
        (type: point_light, data: (color: (r: 1.0, g: 0.9, b: 0.8, a: 1.0), intensity: 800.0, range: 20.0, shadows: false)),
      ],
      locked: false,
    ),
    3: (
      id: 3,
      name: "Sun",
      parent: None,
      children: [],
      transform: (
        translation: (x: 0.0, y: 10.0, z: 0.0),
        rotation: (x: -45.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [
        (type: directional_light, data: (color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), illuminance: 10000.0, shadows: true)),
        (type: camera3d),
      ],
      locked: false,
    ),
  },
  roots: [1, 3],
  next_id: 5,
  layers: [
    (
      id: 4,
      name: "Ground",
      plane: xz,
      cell_size: (x: 1.0, y: 1.0),
      palette: {
        "g": "prefabs/grass.forge.ron",
      },
      rows: [
        "gg..",
        "gggg",
      ],
    ),
  ],
)
"#;

/// A prefab with one entity.
fn prefab(name: &str) -> String {
    format!(
        "(format_version: 1, name: \"{name}\", entities: {{\n  1: (id: 1, name: \"{name}\", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [(type: point_light, data: (color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), intensity: 100.0, range: 5.0, shadows: false))]),\n}}, roots: [1], next_id: 2)\n"
    )
}

/// Runs git in `dir`, as a user with a name, without signing.
fn git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args([
            "-c",
            "user.name=Forge Test",
            "-c",
            "user.email=test@example.com",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs")
}

fn git_ok(dir: &Path, args: &[&str]) -> String {
    let out = git(dir, args);
    assert!(
        out.status.success(),
        "git {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A repository with the garden and its prefabs committed on `main`, and the driver installed
/// by `forge merge --install` (also committed: `.gitattributes`).
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git_ok(root, &["init", "-q"]);
    std::fs::write(root.join("garden.forge.ron"), GARDEN).unwrap();
    std::fs::create_dir_all(root.join("prefabs")).unwrap();
    for name in ["grass", "bench", "stone"] {
        std::fs::write(root.join(format!("prefabs/{name}.forge.ron")), prefab(name)).unwrap();
    }
    let installed = forge(root, &["merge", "--install"]);
    assert_eq!(status(&installed), 0, "{}", stderr(&installed));
    assert!(
        stdout(&installed).contains("*.forge.ron merge=forge"),
        "{}",
        stdout(&installed)
    );
    git_ok(root, &["add", "."]);
    git_ok(root, &["commit", "-q", "-m", "garden"]);
    dir
}

/// Commits on a new branch `name` from `from` the garden as `edit` changes it (through the
/// edit layer, as the editor saves).
fn work(root: &Path, name: &str, from: &str, edit: impl FnOnce(&mut SceneEdit)) {
    git_ok(root, &["checkout", "-q", "-b", name, from]);
    let file = root.join("garden.forge.ron");
    let mut e = SceneEdit::open(&file).unwrap();
    edit(&mut e);
    git_ok(root, &["commit", "-q", "-am", name]);
}

fn at(x: f32, y: f32, z: f32) -> TransformData {
    TransformData::from_translation(Vec3Data::new(x, y, z))
}

fn garden(root: &Path) -> (String, SceneDoc) {
    let text = std::fs::read_to_string(root.join("garden.forge.ron")).unwrap();
    let doc = SceneDoc::from_str(&text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .doc;
    (text, doc)
}

fn names(doc: &SceneDoc) -> Vec<&str> {
    doc.entities.values().map(|e| e.name.as_str()).collect()
}

#[test]
fn install_writes_the_attributes_and_the_driver_once() {
    let dir = repository();
    let root = dir.path();
    let attributes = std::fs::read_to_string(root.join(".gitattributes")).unwrap();
    assert_eq!(attributes, "*.forge.ron merge=forge\n");
    let driver = git_ok(root, &["config", "--get", "merge.forge.driver"]);
    assert!(
        driver.trim().ends_with("merge %O %A %B --path %P"),
        "{driver}"
    );
    // Again: nothing added twice.
    let again = forge(root, &["merge", "--install"]);
    assert_eq!(status(&again), 0);
    assert_eq!(
        std::fs::read_to_string(root.join(".gitattributes")).unwrap(),
        attributes
    );
    assert!(stdout(&again).contains("already"), "{}", stdout(&again));
    // Outside a repository: a usage error.
    let elsewhere = tempfile::tempdir().unwrap();
    assert_eq!(status(&forge(elsewhere.path(), &["merge", "--install"])), 2);
}

#[test]
fn git_merges_branches_that_add_edit_move_delete_place_paint_and_comment() {
    let dir = repository();
    let root = dir.path();
    // Alice adds a pond (id 5), renames the tree, paints a cell, and comments the lamp.
    work(root, "alice", "main", |e| {
        e.add_entity("Pond", None, at(6.0, 0.0, 0.0), vec![])
            .unwrap();
        e.rename(1, "Oak").unwrap();
        e.paint(4, CellRect::cell(2, 1), 'g').unwrap();
    });
    let file = root.join("garden.forge.ron");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace(
            "      name: \"Lamp\",",
            "      name: \"Lamp\", // over the path",
        ),
    )
    .unwrap();
    git_ok(root, &["commit", "-q", "-am", "alice comments"]);
    // Bob places a bench (id 5 too) with an override, moves the lamp to the roots, paints
    // another cell, deletes the sun and comments the tree.
    work(root, "bob", "main", |e| {
        let (_, bench) = e
            .add_entity("Bench", None, at(2.0, 0.0, 2.0), vec![])
            .unwrap();
        let mut i = Instance::new("prefabs/bench.forge.ron");
        i.overrides.push(Override {
            name: Some("Old bench".into()),
            ..Override::new(vec![1])
        });
        e.set_instance(bench, Some(i)).unwrap();
        e.reparent(2, None, 2).unwrap();
        e.paint(4, CellRect::cell(3, 1), 'g').unwrap();
        e.delete_subtree(3).unwrap();
    });
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace(
            "    // The old tree in the middle.\n",
            "    // The old tree in the middle.\n    // Planted in 1890.\n",
        ),
    )
    .unwrap();
    git_ok(root, &["commit", "-q", "-am", "bob comments"]);
    // Alice merges Bob's work: git calls `forge merge`, which merges by id.
    git_ok(root, &["checkout", "-q", "alice"]);
    let merged = git(root, &["merge", "--no-edit", "bob"]);
    assert!(
        merged.status.success(),
        "{}{}",
        String::from_utf8_lossy(&merged.stdout),
        String::from_utf8_lossy(&merged.stderr)
    );
    let (text, doc) = garden(root);
    assert_eq!(names(&doc), ["Oak", "Lamp", "Pond", "Bench"]);
    // Bob's bench was renumbered (Alice's pond has 5), with its override.
    let bench = doc.find_by_name("Bench").next().unwrap();
    assert_eq!(bench, 6);
    // Bob's lamp and bench come after the tree, where he put them; Alice's pond after them
    // (both put roots after the tree: ordered by name, whoever merges).
    assert_eq!(doc.roots, [1, 2, 6, 5]);
    assert_eq!(doc.entity(2).unwrap().parent, None);
    assert_eq!(doc.next_id, 7);
    let instance = doc.entity(6).unwrap().instance.as_ref().unwrap();
    assert_eq!(instance.overrides[0].name.as_deref(), Some("Old bench"));
    assert_eq!(doc.layers[0].rows, ["gggg", "gggg"]);
    for comment in [
        "// The garden, shared",
        "// Planted in 1890.",
        "// over the path",
    ] {
        assert!(text.contains(comment), "{comment} lost:\n{text}");
    }
    // What git printed from the driver names the renumbering.
    assert!(
        String::from_utf8_lossy(&merged.stderr).contains("renumbered")
            || String::from_utf8_lossy(&merged.stdout).contains("renumbered")
    );
    // The merged scene validates, prefabs and all.
    let checked = forge(root, &["validate", "garden.forge.ron"]);
    assert_eq!(
        status(&checked),
        0,
        "{}{}",
        stdout(&checked),
        stderr(&checked)
    );
    assert!(
        !stderr(&checked).contains("merge driver"),
        "{}",
        stderr(&checked)
    );
}

#[test]
fn a_conflict_stops_git_and_is_reported_at_its_line_until_resolved() {
    let dir = repository();
    let root = dir.path();
    work(root, "day", "main", |e| {
        e.rename(2, "Lantern").unwrap();
        e.delete_subtree(3).unwrap();
    });
    work(root, "night", "main", |e| {
        e.rename(2, "Torch").unwrap();
        e.set_transform(3, at(0.0, 12.0, 0.0)).unwrap();
    });
    git_ok(root, &["checkout", "-q", "day"]);
    let merged = git(root, &["merge", "--no-edit", "night"]);
    assert!(!merged.status.success());
    let said = String::from_utf8_lossy(&merged.stdout).into_owned();
    assert!(
        said.contains("CONFLICT") && said.contains("garden.forge.ron"),
        "{said}"
    );
    // The file reads: no git markers, this branch's values, a marker per conflict.
    let (text, doc) = garden(root);
    assert!(!text.contains("<<<<<<<"), "{text}");
    assert_eq!(doc.entity(2).unwrap().name, "Lantern");
    assert!(doc.entity(3).is_none());
    let name_line = text
        .lines()
        .position(|l| l.contains("/* forge-merge: theirs = \"Torch\" */"))
        .unwrap()
        + 1;
    let kept_line = text
        .lines()
        .position(|l| l.contains("/* forge-merge: theirs keeps 3: (id: 3"))
        .unwrap()
        + 1;
    // `forge validate` reports each at its line, as an error.
    let checked = forge(root, &["validate", "--format", "json", "garden.forge.ron"]);
    assert_eq!(status(&checked), 1);
    let found: Vec<Value> = serde_json::from_slice::<Vec<Value>>(&checked.stdout).unwrap();
    let mut lines: Vec<u64> = found
        .iter()
        .filter(|d| d["code"] == "forge::merge::conflict")
        .map(|d| d["line"].as_u64().unwrap())
        .collect();
    lines.sort_unstable();
    assert_eq!(lines, [name_line as u64, kept_line as u64], "{found:?}");
    // It cannot be cooked (or loaded) by mistake.
    let cooked = forge(root, &["cook", "garden.forge.ron"]);
    assert_eq!(status(&cooked), 1, "{}", stdout(&cooked));
    assert!(!root.join("garden.forge.bin").exists());
    // Resolved in the editor: `forge lsp` offers both sides of each.
    let u = uri(&root.join("garden.forge.ron"));
    let mut c = Client::start(root, &[], Value::Null);
    c.open(&u, &text);
    let d = c.diagnostics(&u);
    let conflicts: Vec<&Value> = d
        .iter()
        .filter(|d| d["code"] == "forge::merge::conflict")
        .collect();
    assert_eq!(conflicts.len(), 2, "{d:?}");
    let actions = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": range_json([0, 0, 10_000, 0]), "context": { "diagnostics": d } }),
    );
    let mut text_now = text.clone();
    let titles: Vec<String> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        titles.iter().filter(|t| t.starts_with("Take ours")).count(),
        2,
        "{titles:?}"
    );
    assert_eq!(
        titles
            .iter()
            .filter(|t| t.starts_with("Take theirs"))
            .count(),
        2,
        "{titles:?}"
    );
    // Take theirs of the name.
    let theirs_name = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["title"].as_str().unwrap().starts_with("Take theirs")
                && a["diagnostics"][0]["range"]["start"]["line"] == (name_line - 1) as u64
        })
        .unwrap();
    text_now = apply_edits(
        &text_now,
        theirs_name["edit"]["changes"][&u].as_array().unwrap(),
    );
    c.stop();
    let doc = SceneDoc::from_str(&text_now).unwrap().doc;
    assert_eq!(doc.entity(2).unwrap().name, "Torch");
    std::fs::write(root.join("garden.forge.ron"), &text_now).unwrap();
    let checked = forge(root, &["validate", "garden.forge.ron"]);
    assert_eq!(status(&checked), 1, "the sun's conflict is left");
}

#[test]
fn merge_exit_status_is_two_for_a_file_that_does_not_read_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("base.ron"), GARDEN).unwrap();
    std::fs::write(
        root.join("ours.ron"),
        GARDEN.replace("\"Lamp\"", "\"Lantern\""),
    )
    .unwrap();
    let broken = format!(
        "{}<<<<<<< HEAD\n",
        &GARDEN[..GARDEN.find("  roots").unwrap()]
    );
    std::fs::write(root.join("theirs.ron"), &broken).unwrap();
    let out = forge(
        root,
        &[
            "merge",
            "base.ron",
            "ours.ron",
            "theirs.ron",
            "--path",
            "levels/garden.forge.ron",
        ],
    );
    assert_eq!(status(&out), 2);
    let said = stderr(&out);
    assert!(said.contains("levels/garden.forge.ron (theirs"), "{said}");
    assert!(
        said.contains("forge::read::git_conflict") && said.contains("forge merge"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("ours.ron")).unwrap(),
        GARDEN.replace("\"Lamp\"", "\"Lantern\"")
    );
    // The path as a fourth argument, as `forge merge %O %A %B %P`.
    let out = forge(
        root,
        &[
            "merge",
            "base.ron",
            "ours.ron",
            "theirs.ron",
            "levels/garden.forge.ron",
        ],
    );
    assert_eq!(status(&out), 2);
    assert!(
        stderr(&out).contains("levels/garden.forge.ron (theirs"),
        "{}",
        stderr(&out)
    );
    // A clean merge outside git: exit 0, written to OURS.
    std::fs::write(
        root.join("theirs.ron"),
        GARDEN.replace("\"Sun\"", "\"Moon\""),
    )
    .unwrap();
    let out = forge(root, &["merge", "base.ron", "ours.ron", "theirs.ron"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let written = std::fs::read_to_string(root.join("ours.ron")).unwrap();
    assert!(
        written.contains("\"Lantern\"") && written.contains("\"Moon\""),
        "{written}"
    );
}

#[test]
fn validate_and_lsp_warn_when_the_attributes_name_a_driver_the_clone_lacks() {
    let dir = repository();
    let root = dir.path();
    // A fresh clone: the attributes came with it, the config did not.
    let clone = tempfile::tempdir().unwrap();
    git_ok(
        clone.path(),
        &["clone", "-q", root.to_str().unwrap(), "copy"],
    );
    let copy = clone.path().join("copy");
    let checked = forge(&copy, &["validate", "garden.forge.ron"]);
    assert_eq!(status(&checked), 0);
    let warned = stderr(&checked);
    assert!(
        warned.contains("merge driver") && warned.contains("forge merge --install"),
        "{warned}"
    );
    let mut c = Client::start(&copy, &[], Value::Null);
    let u = uri(&copy.join("garden.forge.ron"));
    c.open(&u, GARDEN);
    let _ = c.diagnostics(&u);
    // Messages come after the diagnostics: one more request collects them.
    let _ = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": u } }),
    );
    let shown: Vec<String> = c
        .notes
        .iter()
        .filter(|n| n.method == "window/showMessage")
        .map(|n| n.params["message"].as_str().unwrap_or_default().to_owned())
        .collect();
    c.stop();
    assert!(
        shown.iter().any(|m| m.contains("forge merge --install")),
        "{shown:?}"
    );
    // Installed in the clone: no warning.
    assert_eq!(status(&forge(&copy, &["merge", "--install"])), 0);
    assert!(!stderr(&forge(&copy, &["validate", "garden.forge.ron"])).contains("merge driver"));
}

#[test]
fn diff_prints_what_changed_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("old.forge.ron"), GARDEN).unwrap();
    let mut e = SceneEdit::from_text(GARDEN).unwrap();
    e.rename(2, "Lantern").unwrap();
    e.add_entity("Pond", None, at(6.0, 0.0, 0.0), vec![])
        .unwrap();
    e.paint(4, CellRect::cell(3, 1), 'g').unwrap();
    std::fs::write(root.join("new.forge.ron"), e.text()).unwrap();
    let out = forge(root, &["diff", "old.forge.ron", "new.forge.ron"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    for line in [
        "~ 2 renamed \"Lamp\" -> \"Lantern\"",
        "+ 5 \"Pond\" at root 2",
        "~ layer 4 cells (3, 1) empty -> 'g'",
    ] {
        assert!(text.contains(line), "{line} missing:\n{text}");
    }
    // As git's diff driver: seven arguments.
    let out = forge(
        root,
        &[
            "diff",
            "garden.forge.ron",
            "old.forge.ron",
            "abc",
            "100644",
            "new.forge.ron",
            "def",
            "100644",
        ],
    );
    assert_eq!(status(&out), 0);
    assert!(
        stdout(&out).starts_with("forge diff garden.forge.ron\n"),
        "{}",
        stdout(&out)
    );
    // A file git adds: diffed against nothing.
    let out = forge(
        root,
        &[
            "diff",
            "garden.forge.ron",
            "/dev/null",
            ".",
            ".",
            "new.forge.ron",
            "def",
            "100644",
        ],
    );
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("+ 1 \"Tree\""), "{}", stdout(&out));
}
