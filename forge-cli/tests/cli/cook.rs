//! `forge cook` and cooked files given to the other commands: twins of two scenes with one
//! name, damaged and stale twins, prefab chains, odd targets, and a broken cooked entity named
//! in `forge validate`'s JSON.

use std::path::Path;
use std::process::Output;

use bevy_forge_scene::cook::CookedScene;

use super::common::cooked::{LIGHT, doc_text, sprite_body, status_kb, wrap};
use super::common::write;
use super::forge;

fn out(o: &Output) -> String {
    format!(
        "[{}] {}{}",
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn cli_two_scenes_for_one_twin_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(
        d,
        "a/x.forge.ron",
        &doc_text("From A", "(type: camera3d)", &[]),
    );
    write(
        d,
        "b/x.forge.ron",
        &doc_text("From B", "(type: camera3d)", &[]),
    );
    let o = forge(d, &["cook", "a", "b", "--out", "out", "--no-assets"]);
    eprintln!("{}", out(&o));
    let written = CookedScene::decode(&std::fs::read(d.join("out/x.forge.bin")).unwrap()).unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(out(&o).contains("would both write"), "{}", out(&o));
    assert_eq!(written.doc.name, "From A", "the first twin stays");
}

#[test]
fn cli_check_tells_a_damaged_twin_from_a_missing_one() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "x.forge.ron", &doc_text("X", "(type: camera3d)", &[]));
    let o = forge(d, &["cook", "x.forge.ron", "--no-assets"]);
    assert!(o.status.success(), "{}", out(&o));
    let mut bytes = std::fs::read(d.join("x.forge.bin")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(d.join("x.forge.bin"), &bytes).unwrap();
    let o = forge(d, &["cook", "--check", "x.forge.ron", "--no-assets"]);
    let s = out(&o);
    eprintln!("{s}");
    assert!(!o.status.success());
    assert!(
        !s.contains("missing: "),
        "a twin that exists but is damaged is reported as missing: {s}"
    );
    assert!(s.contains("damaged: ") && s.contains("checksum"), "{s}");
}

#[test]
fn cli_check_sees_prefab_edits_and_cooks_chains() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::create_dir_all(d.join("assets")).unwrap();
    write(
        d,
        "assets/scenes/l.forge.ron",
        &doc_text("L", "(type: camera3d)", &["prefabs/a.forge.ron"]),
    );
    write(
        d,
        "assets/prefabs/a.forge.ron",
        &doc_text("A", LIGHT, &["prefabs/b.forge.ron"]),
    );
    write(
        d,
        "assets/prefabs/b.forge.ron",
        &doc_text("B", LIGHT, &["prefabs/c.forge.ron"]),
    );
    write(d, "assets/prefabs/c.forge.ron", &doc_text("C", LIGHT, &[]));
    let o = forge(d, &["cook", "assets"]);
    let s = out(&o);
    assert!(o.status.success(), "{s}");
    eprintln!("{s}");
    let c =
        CookedScene::decode(&std::fs::read(d.join("assets/scenes/l.forge.bin")).unwrap()).unwrap();
    let paths: Vec<_> = c.prefabs.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "prefabs/a.forge.ron",
            "prefabs/b.forge.ron",
            "prefabs/c.forge.ron"
        ]
    );
    assert_eq!(c.source, "scenes/l.forge.ron");
    let o = forge(d, &["cook", "--check", "assets"]);
    assert!(o.status.success(), "{}", out(&o));
    // Same bytes when cooked again from another directory with an absolute path.
    let before = std::fs::read(d.join("assets/scenes/l.forge.bin")).unwrap();
    let abs = d.join("assets/scenes/l.forge.ron");
    let o = forge(Path::new("/"), &["cook", abs.to_str().unwrap()]);
    assert!(o.status.success(), "{}", out(&o));
    assert_eq!(
        std::fs::read(d.join("assets/scenes/l.forge.bin")).unwrap(),
        before
    );
    // Edit the deepest prefab: the scene's twin is stale.
    write(d, "assets/prefabs/c.forge.ron", &doc_text("C2", LIGHT, &[]));
    let o = forge(d, &["cook", "--check", "assets/scenes"]);
    let s = out(&o);
    assert!(!o.status.success() && s.contains("stale"), "{s}");
    // Break the deepest prefab: the scene is refused, its twin untouched.
    write(d, "assets/prefabs/c.forge.ron", "(format_version: 1,");
    let o = forge(d, &["cook", "assets/scenes"]);
    let s = out(&o);
    eprintln!("{s}");
    assert!(!o.status.success(), "{s}");
    assert_eq!(
        std::fs::read(d.join("assets/scenes/l.forge.bin")).unwrap(),
        before
    );
}

/// `forge validate` on a cooked file whose entity's bytes are broken names the entity in its
/// JSON, as its message does.
#[test]
fn cli_json_of_a_broken_cooked_entity_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (body, kind) = sprite_body(false);
    let mut b = body.clone();
    b[kind + 1] = 2;
    std::fs::write(tmp.path().join("broken.forge.bin"), wrap(&b)).unwrap();
    let o = forge(
        tmp.path(),
        &["validate", "broken.forge.bin", "--format", "json"],
    );
    let all: Vec<serde_json::Value> =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", out(&o)));
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["code"], "forge::cook::body", "{all:?}");
    assert_eq!(all[0]["entity"], 1, "{all:?}");
    assert!(
        all[0]["message"]
            .as_str()
            .unwrap()
            .contains("in entity 1 of the scene"),
        "{all:?}"
    );
}

#[test]
fn cli_odd_targets_and_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(
        d,
        "s/ok.forge.ron",
        &doc_text("OK", "(type: camera3d)", &[]),
    );
    write(d, "s/bad.forge.ron", "(format_version: 1, name: ");
    write(
        d,
        "s/dir.forge.ron",
        &doc_text("D", "(type: camera3d)", &[]),
    );
    std::fs::create_dir_all(d.join("s/dir.forge.bin")).unwrap();
    // Mixed valid and invalid: the valid one is cooked, exit 1.
    let o = forge(d, &["cook", "s", "--no-assets"]);
    let s = out(&o);
    eprintln!("mixed: {s}");
    assert!(!o.status.success(), "{s}");
    assert!(d.join("s/ok.forge.bin").is_file());
    assert!(!d.join("s/bad.forge.bin").exists());
    assert!(s.contains("dir.forge.bin"), "{s}");
    // --out equal to the source, and inside it: no twin of a twin, no recursion.
    let o = forge(d, &["cook", "s/ok.forge.ron", "--out", "s", "--no-assets"]);
    assert!(o.status.success(), "{}", out(&o));
    let o = forge(d, &["cook", "s", "--out", "s/out", "--no-assets"]);
    eprintln!("out inside: {}", out(&o));
    let o = forge(d, &["cook", "s", "--out", "s/out", "--no-assets"]);
    eprintln!("out inside again: {}", out(&o));
    // A cooked file given to validate, tree and cook.
    let mut unclear = Vec::new();
    for cmd in [
        vec!["validate", "s/ok.forge.bin"],
        vec!["tree", "s/ok.forge.bin"],
        vec!["cook", "s/ok.forge.bin", "--no-assets"],
    ] {
        let o = forge(d, &cmd);
        let s = out(&o);
        eprintln!("{cmd:?}: {s}");
        assert!(!s.contains("panicked"), "{s}");
        if !s.replace("not cooked", "").contains("cooked") {
            unclear.push(cmd[0]);
        }
    }
    // A read-only output directory.
    #[cfg(unix)]
    if status_kb("Uid:") != 0 {
        // (root writes anywhere: skipped)
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(d.join("ro")).unwrap();
        std::fs::set_permissions(d.join("ro"), std::fs::Permissions::from_mode(0o555)).unwrap();
        let o = forge(d, &["cook", "s/ok.forge.ron", "--out", "ro", "--no-assets"]);
        let s = out(&o);
        eprintln!("read-only: {s}");
        assert!(!o.status.success() && s.contains("ro"), "{s}");
        std::fs::set_permissions(d.join("ro"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // A symlinked scene and a symlinked source directory.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(d.join("s/ok.forge.ron"), d.join("link.forge.ron")).unwrap();
        let o = forge(d, &["cook", "link.forge.ron", "--no-assets"]);
        eprintln!("symlink: {}", out(&o));
        assert!(d.join("link.forge.bin").is_file());
        std::os::unix::fs::symlink(d.join("s"), d.join("sl")).unwrap();
        let o = forge(d, &["cook", "sl", "--out", "o2", "--no-assets"]);
        eprintln!("symlinked dir: {}", out(&o));
    }
    // Cooking a prefab file itself.
    write(d, "p/pre.forge.ron", &doc_text("P", LIGHT, &[]));
    let o = forge(d, &["cook", "p/pre.forge.ron"]);
    assert!(o.status.success(), "{}", out(&o));
    assert!(
        unclear.is_empty(),
        "{unclear:?} given a .forge.bin say only that it is not valid UTF-8"
    );
}

/// `forge cook --schema` checks what the loader will check of the twin: a scene whose prefab
/// breaks a custom component's range is not cooked with the game's schemas (without them only
/// the shape of custom components is known, and it is).
#[test]
fn cook_with_the_schema_refuses_a_prefab_the_loader_would_refuse() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::create_dir_all(d.join("assets")).unwrap();
    let brain = "(type: custom, data: (type_path: \"forge_demo::Brain\", fields: [(name: \"hp\", expr: \"250\")]))";
    write(
        d,
        "assets/scenes/l.forge.ron",
        &doc_text("L", "(type: camera3d)", &["prefabs/p.forge.ron"]),
    );
    write(d, "assets/prefabs/p.forge.ron", &doc_text("P", brain, &[]));
    let schema = d.join("game.forge-schema.ron");
    super::common::game::schemas().export(&schema).unwrap();
    let refused = forge(
        d,
        &[
            "cook",
            "assets/scenes",
            "--schema",
            schema.to_str().unwrap(),
        ],
    );
    let s = out(&refused);
    assert_eq!(refused.status.code(), Some(1), "{s}");
    assert!(s.contains("error[forge::custom::range]"), "{s}");
    assert!(s.contains("prefabs/p.forge.ron"), "{s}");
    assert!(s.contains("not cooked: `"), "{s}");
    assert!(!d.join("assets/scenes/l.forge.bin").exists());
    let cooked = forge(d, &["cook", "assets/scenes"]);
    assert!(cooked.status.success(), "{}", out(&cooked));
    assert!(d.join("assets/scenes/l.forge.bin").is_file());
}
