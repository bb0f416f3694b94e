//! `forge export`: the committed exports of the seed scenes (`render-tests/tests/exported/`,
//! compiled and spawned there against Bevy 0.20.1) are what the command writes today
//! (`UPDATE_EXPORTS=1` rewrites them), `--out` writes atomically, and what cannot be exported
//! is refused with the reason.

use std::path::Path;
use std::process::Output;

use super::ROOT;
use super::common::scenes::{entity, scene};

/// The scenes exported into `render-tests/tests/exported/<name>_<form>.rs`: the seed scenes
/// and render-tests' own `odd_names`, `game_types`, `porch` and `street` (placed glTF models),
/// with the forms each has. `castle_gate` has BSN refused (a reference inside `vec![..]`), and
/// `street` too (model overrides that name the scene's entities), see below.
const EXPORTED: &[(&str, &str, &[&str])] = &[
    (
        "assets/scenes/showcase.forge.ron",
        "showcase",
        &["rust", "bsn"],
    ),
    ("assets/scenes/garden.forge.ron", "garden", &["rust", "bsn"]),
    (
        "assets/scenes/platformer.forge.ron",
        "platformer",
        &["rust", "bsn"],
    ),
    (
        "assets/scenes/goblin_camp.forge.ron",
        "goblin_camp",
        &["rust", "bsn"],
    ),
    (
        "assets/scenes/castle_gate.forge.ron",
        "castle_gate",
        &["rust"],
    ),
    (
        "render-tests/tests/scenes/odd_names.forge.ron",
        "odd_names",
        &["rust", "bsn"],
    ),
    (
        "render-tests/tests/scenes/game_types.forge.ron",
        "game_types",
        &["rust", "bsn"],
    ),
    (
        "render-tests/tests/scenes/porch.forge.ron",
        "porch",
        &["rust", "bsn"],
    ),
    // BSN refused: the overrides name the scene's entities (below).
    (
        "render-tests/tests/scenes/street.forge.ron",
        "street",
        &["rust"],
    ),
];

/// Runs `forge` at the repository root.
fn forge(args: &[&str]) -> Output {
    super::forge(Path::new(ROOT), args)
}

#[test]
fn committed_exports_of_the_seed_scenes_are_fresh() {
    let mut stale = Vec::new();
    for (file, scene, forms) in EXPORTED {
        for form in *forms {
            let out = forge(&["export", file, "--to", form]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{file} --to {form}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let code = String::from_utf8(out.stdout).unwrap();
            let committed =
                Path::new(ROOT).join(format!("render-tests/tests/exported/{scene}_{form}.rs"));
            if std::env::var_os("UPDATE_EXPORTS").is_some() {
                std::fs::write(&committed, &code).unwrap();
                continue;
            }
            if std::fs::read_to_string(&committed).ok().as_deref() != Some(code.as_str()) {
                stale.push(format!(
                    "{}: run `forge export {file} --to {form} --out {}` (or this test with UPDATE_EXPORTS=1)",
                    committed.display(),
                    committed.display()
                ));
            }
        }
    }
    assert!(stale.is_empty(), "stale exports:\n{}", stale.join("\n"));
}

#[test]
fn export_writes_the_file_atomically_with_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nested/garden.rs");
    let o = forge(&[
        "export",
        "assets/scenes/garden.forge.ron",
        "--to",
        "rust",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stdout.is_empty(), "nothing on stdout with --out");
    let code = std::fs::read_to_string(&out).unwrap();
    assert!(code.contains("pub fn spawn_garden(world: &mut World) -> Vec<Entity>"));
    let leftovers: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != "garden.rs")
        .collect();
    assert!(leftovers.is_empty(), "no temporary file left behind");
}

#[test]
fn bsn_export_refuses_a_reference_inside_vec_with_the_reason() {
    let o = forge(&[
        "export",
        "assets/scenes/castle_gate.forge.ron",
        "--to",
        "bsn",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("`forge_demo::Patrol.route`"), "{err}");
    assert!(err.contains("vec![#5, #6, #7]"), "{err}");
    assert!(err.contains("--to rust"), "{err}");
}

#[test]
fn bsn_export_refuses_model_overrides_that_name_scene_entities_with_the_reason() {
    let o = forge(&[
        "export",
        "render-tests/tests/scenes/street.forge.ron",
        "--to",
        "bsn",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("the override of node [\"House\", \"Roof\"] cannot be exported"),
        "{err}"
    );
    assert!(err.contains("--to rust"), "{err}");
}

#[test]
fn export_refuses_a_scene_with_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.forge.ron");
    let light = "(type: point_light, data: (color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), intensity: 800.0, range: -1.0, shadows: false))";
    let text = scene(&[entity(1, "A", None, &[], light)], &[1]);
    std::fs::write(&file, text).unwrap();
    let o = forge(&["export", file.to_str().unwrap(), "--to", "rust"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("not exported"), "{err}");
    assert!(err.contains("range"), "{err}");
}
