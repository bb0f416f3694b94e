//! The `forge` binary, spawned as users and CI run it: every subcommand, every exit status, both
//! output formats. Human output is compared with reviewed snapshots in `tests/cli/snapshots/`
//! (`UPDATE_SNAPSHOTS=1` rewrites them). One test binary: `cook`, `export` and `import` are its
//! modules. The scenes and helpers are the library's (`tests/common` at the repository root).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../tests/common/mod.rs"]
mod common;
mod cook;
mod export;
mod import;
mod lsp;
mod lsp_live;
mod merge;
mod models;
mod render;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FORGE: &str = env!("CARGO_BIN_EXE_forge");
/// The repository root: scenes and assets are the library's.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs `forge` in `dir` with `args`, colour off by pipe and by `NO_COLOR`.
fn forge(dir: &Path, args: &[&str]) -> Output {
    Command::new(FORGE)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("forge runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn status(o: &Output) -> i32 {
    o.status.code().expect("exited")
}

fn snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/snapshots")
        .join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected =
        std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("no snapshot {}", path.display()));
    assert_eq!(expected, actual, "snapshot {name}");
}

/// A project in a temporary directory: `scenes/` with the given files (copied from fixtures) and
/// `assets/` with the given empty asset files.
fn project(scenes: &[(&str, &str)], assets: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scenes")).unwrap();
    for (name, fixture) in scenes {
        std::fs::copy(
            common::fixture(fixture),
            dir.path().join("scenes").join(name),
        )
        .unwrap();
    }
    for asset in assets {
        let p = dir.path().join("assets").join(asset);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"").unwrap();
    }
    dir
}

fn json(o: &Output) -> Vec<serde_json::Value> {
    serde_json::from_slice::<Vec<serde_json::Value>>(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

// ---- validate ----

#[test]
fn validate_prints_rustc_like_diagnostics_and_fails_on_errors() {
    let o = forge(
        Path::new(ROOT),
        &[
            "validate",
            "--no-assets",
            "tests/fixtures/invalid/bad-values.forge.ron",
            "tests/fixtures/invalid/dangling-child.forge.ron",
        ],
    );
    assert_eq!(status(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.contains('\u{1b}'), "no colour when piped");
    assert!(out.contains(
        "error[forge::light::range]: point light range must be positive, found 0\n  --> tests/fixtures/invalid/bad-values.forge.ron:6:284\n"
    ));
    snapshot("validate-invalid.txt", &out);
}

/// Names from the file reach people escaped: a line break or a terminal escape in a type path
/// or field name cannot print lines that look like other diagnostics, nor drive the terminal.
#[test]
fn validate_shows_control_characters_in_names_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let text = "(format_version: 1, name: \"T\", entities: {\n  1: (id: 1, name: \"A\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [\n    (type: camera2d),\n    (type: custom, data: (type_path: \"a\\nerror[forge::fake]: all good\\u{1b}[31m\", fields: [(name: \"b\\n  --> fake.rs:1:1\", expr: \"1\")])),\n  ]),\n}, roots: [1], next_id: 2)\n";
    std::fs::write(dir.path().join("ctl.forge.ron"), text).unwrap();
    let out = forge(dir.path(), &["validate", "ctl.forge.ron"]);
    assert_eq!(status(&out), 1);
    let shown = stdout(&out) + &stderr(&out);
    assert!(shown.contains("forge::custom::type_path"), "{shown}");
    assert!(
        shown.contains("a\\nerror[forge::fake]: all good\\u{1b}[31m"),
        "{shown}"
    );
    assert!(shown.contains("b\\n  --> fake.rs:1:1"), "{shown}");
    assert!(!shown.contains('\u{1b}'), "{shown}");
    for line in shown.lines() {
        assert!(
            !line.starts_with("error[forge::fake]")
                && !line.trim_start().starts_with("--> fake.rs"),
            "{shown}"
        );
    }
}

#[test]
fn validate_passes_with_warnings_unless_they_are_denied() {
    let args = ["validate", "tests/fixtures/warnings"];
    let o = forge(Path::new(ROOT), &args);
    assert_eq!(status(&o), 0, "{}", stdout(&o));
    snapshot("validate-warnings.txt", &stdout(&o));
    let denied = forge(
        Path::new(ROOT),
        &["validate", "--deny-warnings", "tests/fixtures/warnings"],
    );
    assert_eq!(status(&denied), 1);
}

#[test]
fn validate_json_is_one_array_of_diagnostics() {
    let o = forge(
        Path::new(ROOT),
        &[
            "validate",
            "--format",
            "json",
            "--no-assets",
            "tests/fixtures/invalid/id-mismatch.forge.ron",
        ],
    );
    assert_eq!(status(&o), 1);
    let items = json(&o);
    assert_eq!(items.len(), 3);
    let first = &items[0];
    assert_eq!(
        first["file"],
        "tests/fixtures/invalid/id-mismatch.forge.ron"
    );
    assert_eq!(first["severity"], "error");
    assert_eq!(first["code"], "forge::structure::id_mismatch");
    assert_eq!(first["line"], 5);
    assert_eq!(first["column"], 13);
    assert_eq!(first["entity"], 1);
    assert_eq!(first["path"], "id");
    assert!(first["help"].is_string());
    assert_eq!(items[1]["entity"], serde_json::Value::Null);
    for item in &items {
        assert_eq!(item.as_object().unwrap().len(), 9, "{item}");
    }
    // Keys come in the documented order.
    let text = stdout(&o);
    let first = &text[..text.find('}').unwrap()];
    let order = [
        "file", "severity", "code", "message", "line", "column", "entity", "path", "help",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|k| first.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{first}");
}

#[test]
fn validate_json_of_a_clean_directory_is_an_empty_array() {
    let dir = project(
        &[("platformer.forge.ron", "valid/platformer.forge.ron")],
        &["textures/player.png"],
    );
    let o = forge(dir.path(), &["validate", "--format", "json", "."]);
    assert_eq!(status(&o), 0, "{}", stdout(&o));
    assert!(json(&o).is_empty(), "{}", stdout(&o));
}

#[test]
fn validate_uses_the_projects_assets_directory() {
    let dir = project(
        &[("platformer.forge.ron", "valid/platformer.forge.ron")],
        &["sounds/jump.ogg"],
    );
    let o = forge(
        dir.path(),
        &[
            "validate",
            "--format",
            "json",
            "scenes/platformer.forge.ron",
        ],
    );
    assert_eq!(status(&o), 1);
    let items = json(&o);
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["code"], "forge::asset::missing");
    assert_eq!(items[0]["entity"], 2);
    // --no-assets disables the check; --assets points elsewhere.
    assert_eq!(
        status(&forge(dir.path(), &["validate", "--no-assets", "scenes"])),
        0
    );
    let other = project(&[], &["textures/player.png"]);
    let assets = other.path().join("assets");
    let o = forge(
        dir.path(),
        &["validate", "--assets", assets.to_str().unwrap(), "scenes"],
    );
    assert_eq!(status(&o), 0, "{}", stdout(&o));
}

/// `forge validate` reads a placed model's node tree from the assets directory: a misspelled
/// node is one warning at its name with the near name; a missing scene label an error.
#[test]
fn validate_checks_model_node_paths_against_the_gltf() {
    let dir = project(&[], &[]);
    let models = dir.path().join("assets/models");
    std::fs::create_dir_all(&models).unwrap();
    for name in ["house.gltf", "house.glb"] {
        let from = Path::new(ROOT).join("tests/fixtures/models").join(name);
        std::fs::copy(from, models.join(name)).unwrap();
    }
    let t = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";
    let scene = |model: &str, node: &str| {
        format!(
            "(\n  format_version: 1,\n  name: \"Street\",\n  entities: {{\n    1: (id: 1, name: \"Camera\", parent: None, children: [], {t}, components: [(type: camera3d)]),\n    5: (id: 5, name: \"House\", parent: None, children: [], {t}, components: [],\n        instance: Some((\n          model: \"{model}\",\n          overrides: [\n            (target: [\"House\", {node}], set: [(type: point_light, data: (intensity: 900.0))]),\n          ],\n        ))),\n  }},\n  roots: [1, 5],\n  next_id: 6,\n)\n"
        )
    };
    let path = dir.path().join("scenes/street.forge.ron");
    let run = |text: &str| {
        std::fs::write(&path, text).unwrap();
        forge(
            dir.path(),
            &["validate", "--format", "json", "scenes/street.forge.ron"],
        )
    };
    for model in ["models/house.gltf#Scene0", "models/house.glb#Scene0"] {
        let o = run(&scene(model, "\"Lamp\""));
        assert_eq!(status(&o), 0, "{model}: {}", stdout(&o));
        assert!(json(&o).is_empty(), "{model}: {}", stdout(&o));
        let text = scene(model, "\"Lammp\"");
        let o = run(&text);
        let items = json(&o);
        assert_eq!(items.len(), 1, "{items:?}");
        assert_eq!(items[0]["code"], "forge::model::unknown_node");
        assert_eq!(items[0]["severity"], "warning");
        let line = text.lines().position(|l| l.contains("Lammp")).unwrap() + 1;
        let column = text
            .lines()
            .nth(line - 1)
            .unwrap()
            .find("\"Lammp\"")
            .unwrap()
            + 1;
        assert_eq!(items[0]["line"], line);
        assert_eq!(items[0]["column"], column);
        assert!(
            items[0]["help"]
                .as_str()
                .unwrap()
                .contains("did you mean `Lamp`?"),
            "{items:?}"
        );
    }
    let o = run(&scene("models/house.glb#Scene2", "\"Lamp\""));
    assert_eq!(status(&o), 1);
    let items = json(&o);
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["code"], "forge::model::missing_scene");
}

#[test]
fn validate_reports_wrong_asset_kinds() {
    let dir = project(
        &[("p.forge.ron", "valid/platformer.forge.ron")],
        &["textures/player.png"],
    );
    let scene = dir.path().join("scenes/p.forge.ron");
    let text = std::fs::read_to_string(&scene).unwrap();
    std::fs::write(
        &scene,
        text.replace("textures/player.png", "sounds/jump.ogg"),
    )
    .unwrap();
    std::fs::write(dir.path().join("assets/jump.ogg"), b"").unwrap();
    std::fs::create_dir_all(dir.path().join("assets/sounds")).unwrap();
    std::fs::write(dir.path().join("assets/sounds/jump.ogg"), b"").unwrap();
    let o = forge(dir.path(), &["validate", "--format", "json", "scenes"]);
    assert_eq!(status(&o), 1);
    assert_eq!(json(&o)[0]["code"], "forge::asset::wrong_kind");
}

#[test]
fn validate_reports_files_that_do_not_parse_as_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("broken.forge.ron"),
        "(\n  format_version: 1,\n  nam: \"x\",\n)",
    )
    .unwrap();
    let o = forge(dir.path(), &["validate", "broken.forge.ron"]);
    assert_eq!(status(&o), 1);
    snapshot("validate-broken.txt", &stdout(&o));
    let o = forge(
        dir.path(),
        &["validate", "--format", "json", "broken.forge.ron"],
    );
    let items = json(&o);
    assert_eq!(items[0]["code"], "forge::read::unknown_field");
    assert_eq!(items[0]["line"], 3);
}

#[test]
fn validate_exits_2_for_missing_paths_and_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    let o = forge(dir.path(), &["validate", "missing.forge.ron"]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).contains("cannot read `missing.forge.ron`"),
        "{}",
        stderr(&o)
    );
    assert_eq!(status(&forge(dir.path(), &["validate"])), 2);
    assert_eq!(
        status(&forge(dir.path(), &["validate", "--format", "xml", "."])),
        2
    );
    assert_eq!(
        status(&forge(
            dir.path(),
            &["validate", "--no-assets", "--assets", "a", "."]
        )),
        2
    );
    assert_eq!(status(&forge(dir.path(), &["frobnicate"])), 2);
    let o = forge(dir.path(), &["validate", "--assets", "nowhere", "."]);
    assert_eq!(status(&o), 2);
}

// ---- validate --schema ----

/// A temporary directory with the test game's schemas exported to `game.forge-schema.ron` (as
/// the game would write them) and the given scene files.
fn game_dir(scenes: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::game::schemas()
        .export(dir.path().join("game.forge-schema.ron"))
        .unwrap();
    for (name, text) in scenes {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// A one-entity scene ("Guard") with `components`, one per line from line 12.
fn guard_scene(components: &[&str]) -> String {
    format!(
        "(\n  format_version: 1,\n  name: \"Patrol\",\n  entities: {{\n    1: (\n      id: 1,\n      name: \"Guard\",\n      parent: None,\n      children: [],\n      transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),\n      components: [\n{}\n      ],\n    ),\n  }},\n  roots: [1],\n  next_id: 2,\n)\n",
        components.join("\n")
    )
}

/// `(code, line, column)` of the first line containing `line_has` at the first `at` in it.
fn spot(text: &str, code: &str, line_has: &str, at: &str) -> (String, u64, u64) {
    let (i, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(line_has))
        .unwrap_or_else(|| panic!("no line with {line_has:?}"));
    let column = line[..line.find(at).unwrap()].chars().count() + 1;
    (
        format!("forge::custom::{code}"),
        i as u64 + 1,
        column as u64,
    )
}

const GOOD_COMPONENTS: &[&str] = &[
    r#"        (type: custom, data: (type_path: "forge_demo::Orbit", fields: [(name: "speed", expr: "-0.5"), (name: "axis", expr: "Vec3::Y")])),"#,
    r#"        (type: custom, data: (type_path: "forge_demo::Brain", fields: [(name: "mode", expr: "Mode::Patrol { speed: 2.0 }"), (name: "target", expr: "Some(Vec3::new(1.0, 0.0, 2.0))"), (name: "hp", expr: "100")])),"#,
    r#"        (type: custom, data: (type_path: "forge_demo::Route", fields: [(name: "name", expr: "\"loop\""), (name: "stops", expr: "vec![Stop { at: Vec3::X, ..default() }]"), (name: "on_arrival", expr: "Some(Mode::Chase(3))"), (name: "tint", expr: "[0, 128, 255]")])),"#,
    r#"        (type: custom, data: (type_path: "forge_demo::Health", fields: [(name: "0", expr: "250")])),"#,
];

const BAD_COMPONENTS: &[&str] = &[
    r#"        (type: custom, data: (type_path: "forge_demo::Orbitt", fields: [])),"#,
    r#"        (type: custom, data: (type_path: "forge_demo::Brain", fields: ["#,
    r#"          (name: "hp", expr: "1.5"),"#,
    r#"          (name: "mood", expr: "1"),"#,
    r#"          (name: "ticks", expr: "3"),"#,
    r#"          (name: "mode", expr: "Mode::Chase(-1)"),"#,
    r#"          (name: "label", expr: "format!(\"boss\")"),"#,
    r#"        ])),"#,
    r#"        (type: custom, data: (type_path: "forge_demo::Orbit", fields: [(name: "radius", expr: "150.0")])),"#,
    r#"        (type: custom, data: (type_path: "forge_demo::Route", fields: ["#,
    r#"          (name: "name", expr: "\"loop\""),"#,
    r#"          (name: "home", expr: "Stop { at: Vec3::X, wiat: 1.0 }"),"#,
    r#"          (name: "on_arrival", expr: "Some(Mode::Patrol { speed: true })"),"#,
    r#"        ])),"#,
    r#"        (type: custom, data: (type_path: "forge_demo::Health", fields: [(name: "0", expr: "spawn_boss()")])),"#,
];

#[test]
fn validate_with_a_schema_accepts_a_good_scene() {
    let dir = game_dir(&[("good.forge.ron", &guard_scene(GOOD_COMPONENTS))]);
    let o = forge(
        dir.path(),
        &[
            "validate",
            "--schema",
            "game.forge-schema.ron",
            "good.forge.ron",
        ],
    );
    assert_eq!(status(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("0 errors"), "{}", stdout(&o));
}

#[test]
fn validate_with_a_schema_reports_custom_errors_with_positions() {
    let text = guard_scene(BAD_COMPONENTS);
    let dir = game_dir(&[("bad.forge.ron", &text)]);
    // Without the schema only the shape of custom components is checked: this scene passes.
    let shape_only = forge(dir.path(), &["validate", "bad.forge.ron"]);
    assert_eq!(status(&shape_only), 0, "{}", stdout(&shape_only));

    let o = forge(
        dir.path(),
        &[
            "validate",
            "--schema",
            "game.forge-schema.ron",
            "--format",
            "json",
            "bad.forge.ron",
        ],
    );
    assert_eq!(status(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let items = json(&o);
    let mut found: Vec<(String, u64, u64)> = items
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| {
            assert_eq!(d["file"], "bad.forge.ron");
            assert_eq!(d["entity"], 1);
            (
                d["code"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut expected = vec![
        spot(&text, "unknown_type", "Orbitt", "\"forge_demo::Orbitt"),
        spot(&text, "expr", "\"hp\"", "1.5"),
        spot(&text, "unknown_field", "\"mood\"", "\"mood\""),
        spot(&text, "unknown_field", "\"ticks\"", "\"ticks\""),
        spot(&text, "expr", "Mode::Chase", "-1"),
        spot(&text, "expr", "format!", "format!"),
        spot(&text, "range", "150.0", "150.0"),
        spot(&text, "missing_required", "150.0", "[(name"),
        spot(&text, "expr", "wiat", "wiat"),
        spot(&text, "expr", "speed: true", "true"),
        spot(&text, "expr", "spawn_boss", "spawn_boss"),
    ];
    found.sort();
    expected.sort();
    assert_eq!(found, expected);
    let message = |line: u64| {
        items
            .iter()
            .find(|d| d["line"] == line && d["severity"] == "error")
            .map(|d| d["message"].as_str().unwrap().to_owned())
            .unwrap()
    };
    let hp = spot(&text, "expr", "\"hp\"", "1.5").1;
    assert_eq!(
        message(hp),
        "entity 1 (`Guard`), `Brain` field `hp`: expected an integer (u32), found a float in `1.5`"
    );
    let typo = spot(&text, "unknown_type", "Orbitt", "Orbitt").1;
    let help = items.iter().find(|d| d["line"] == typo).unwrap()["help"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        help.starts_with("did you mean `forge_demo::Orbit`?"),
        "{help}"
    );
    // Offline, the schema file may be older than the game.
    let stale = "this schema file does not have it: if the game does, the file is stale; export the schemas again";
    assert!(help.ends_with(&format!("; {stale}")), "{help}");
    let mood = spot(&text, "unknown_field", "\"mood\"", "mood").1;
    let help = items.iter().find(|d| d["line"] == mood).unwrap()["help"].clone();
    assert_eq!(
        help,
        format!("did you mean `mode`? fields: `mode`, `target`, `hp`, `label`; {stale}")
    );

    // The same problems in human output, with the expression's value underlined.
    let human = forge(
        dir.path(),
        &[
            "validate",
            "--schema",
            "game.forge-schema.ron",
            "bad.forge.ron",
        ],
    );
    assert_eq!(status(&human), 1);
    let out = stdout(&human);
    let column = expected.iter().find(|e| e.1 == hp).unwrap().2;
    assert!(
        out.contains(&format!(
            "error[forge::custom::expr]: entity 1 (`Guard`), `Brain` field `hp`: expected an integer (u32), found a float in `1.5`\n   --> bad.forge.ron:{hp}:{column}\n"
        )),
        "{out}"
    );
    assert!(out.contains("11 errors"), "{out}");
}

#[test]
fn validate_refuses_a_bad_schema_file_with_its_position() {
    let dir = game_dir(&[("good.forge.ron", &guard_scene(GOOD_COMPONENTS))]);
    std::fs::write(
        dir.path().join("typo.forge-schema.ron"),
        "(\n    format: 1,\n    componets: [],\n)\n",
    )
    .unwrap();
    let o = forge(
        dir.path(),
        &[
            "validate",
            "--schema",
            "typo.forge-schema.ron",
            "good.forge.ron",
        ],
    );
    assert_eq!(status(&o), 2, "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: invalid schema file: typo.forge-schema.ron:3:5: "),
        "{err}"
    );
    assert!(err.contains("componets"), "{err}");
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));

    std::fs::write(
        dir.path().join("newer.forge-schema.ron"),
        "(format: 2, components: [])",
    )
    .unwrap();
    let o = forge(
        dir.path(),
        &[
            "validate",
            "--schema",
            "newer.forge-schema.ron",
            "good.forge.ron",
        ],
    );
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        "error: invalid schema file: newer.forge-schema.ron: schema file format 2 is not supported: it was written by a newer bevy_forge_scene (this version reads format 1); upgrade forge, or export again with this version\n"
    );
    std::fs::write(
        dir.path().join("older.forge-schema.ron"),
        "(format: 0, components: [])",
    )
    .unwrap();
    let o = forge(
        dir.path(),
        &[
            "validate",
            "--schema",
            "older.forge-schema.ron",
            "good.forge.ron",
        ],
    );
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).ends_with("older.forge-schema.ron: schema file format 0 is not supported (this version reads format 1); export the schema again with the game's version of bevy_forge_scene\n"),
        "{}",
        stderr(&o)
    );

    let o = forge(
        dir.path(),
        &[
            "validate",
            "--schema",
            "missing.forge-schema.ron",
            "good.forge.ron",
        ],
    );
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).starts_with("error: cannot read the schema file `missing.forge-schema.ron`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn validate_json_reports_a_bad_schema_file_as_a_json_error() {
    let dir = game_dir(&[("good.forge.ron", &guard_scene(GOOD_COMPONENTS))]);
    std::fs::write(
        dir.path().join("typo.forge-schema.ron"),
        "(\n    format: 1,\n    componets: [],\n)\n",
    )
    .unwrap();
    let run = |schema: &str| {
        forge(
            dir.path(),
            &[
                "validate",
                "--format",
                "json",
                "--schema",
                schema,
                "good.forge.ron",
            ],
        )
    };
    let o = run("typo.forge-schema.ron");
    assert_eq!(status(&o), 2, "{}", stderr(&o));
    let items = json(&o);
    assert_eq!(items.len(), 1, "{items:?}");
    let e = &items[0];
    assert_eq!(e["file"], "typo.forge-schema.ron");
    assert_eq!(e["severity"], "error");
    assert_eq!(e["code"], "forge::schema_file::invalid");
    assert_eq!(
        (e["line"].clone(), e["column"].clone()),
        (3.into(), 5.into())
    );
    assert!(e["message"].as_str().unwrap().contains("componets"), "{e}");
    assert!(stderr(&o).starts_with("error: invalid schema file: "));

    let o = run("missing.forge-schema.ron");
    assert_eq!(status(&o), 2);
    let items = json(&o);
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["code"], "forge::schema_file::unreadable");
    assert_eq!(items[0]["file"], "missing.forge-schema.ron");
    assert!(items[0]["line"].is_null());
}

// ---- fmt ----

#[test]
fn fmt_check_lists_files_that_are_not_canonical_and_writes_nothing() {
    let dir = project(&[("garden.forge.ron", "valid/garden.forge.ron")], &[]);
    let file = dir.path().join("scenes/garden.forge.ron");
    let before = std::fs::read(&file).unwrap();
    let o = forge(dir.path(), &["fmt", "--check", "scenes"]);
    assert_eq!(status(&o), 1);
    assert_eq!(
        stdout(&o),
        format!(
            "{}\n",
            Path::new("scenes").join("garden.forge.ron").display()
        )
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn fmt_rewrites_canonically_and_then_checks_clean() {
    let dir = project(&[("garden.forge.ron", "valid/garden.forge.ron")], &[]);
    let file = dir.path().join("scenes/garden.forge.ron");
    let o = forge(dir.path(), &["fmt", "scenes/garden.forge.ron"]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "formatted scenes/garden.forge.ron\n");
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = bevy_forge_scene::format::SceneDoc::from_str(&text)
        .unwrap()
        .doc;
    assert_eq!(text, doc.to_canonical_string());
    let again = forge(dir.path(), &["fmt", "--check", "scenes"]);
    assert_eq!((status(&again), stdout(&again)), (0, String::new()));
    // No temporary files are left behind.
    let names: Vec<PathBuf> = std::fs::read_dir(dir.path().join("scenes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

/// `forge fmt` replaces the file atomically but keeps its permissions (the temporary file would
/// be 0600).
#[cfg(unix)]
#[test]
fn fmt_keeps_the_file_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = project(&[("garden.forge.ron", "valid/garden.forge.ron")], &[]);
    let file = dir.path().join("scenes/garden.forge.ron");
    for mode in [0o644, 0o664] {
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, format!("\n\n{text}")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        let o = forge(dir.path(), &["fmt", "scenes"]);
        assert_eq!(status(&o), 0, "{}", stderr(&o));
        assert!(stdout(&o).starts_with("formatted"), "{}", stdout(&o));
        let now = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(now, mode, "{now:o}");
    }
}

#[test]
fn fmt_leaves_files_that_do_not_parse_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.forge.ron");
    std::fs::write(&file, "(format_version: 1,").unwrap();
    let o = forge(dir.path(), &["fmt", "broken.forge.ron"]);
    assert_eq!(status(&o), 1);
    assert!(stdout(&o).contains("error[forge::read::"), "{}", stdout(&o));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "(format_version: 1,"
    );
    assert_eq!(status(&forge(dir.path(), &["fmt", "gone.forge.ron"])), 2);
}

// ---- new ----

#[test]
fn new_writes_an_empty_valid_scene_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let o = forge(dir.path(), &["new", "Level 01"]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "created scenes/level-01.forge.ron\n");
    let file = dir.path().join("scenes/level-01.forge.ron");
    let parsed = bevy_forge_scene::format::SceneDoc::read(&file).unwrap();
    assert_eq!(parsed.doc.name, "Level 01");
    assert!(parsed.doc.entities.is_empty());
    let report = bevy_forge_scene::validate::validate_parsed(&parsed, None);
    assert!(
        !report.has_errors() && !report.has_warnings(),
        "{:?}",
        report.diagnostics
    );

    std::fs::write(&file, "keep me").unwrap();
    let again = forge(dir.path(), &["new", "level 01"]);
    assert_eq!(status(&again), 1);
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
}

#[test]
fn new_takes_a_project_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let o = forge(Path::new(ROOT), &["new", "Boss Room", "--project", root]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    assert!(dir.path().join("scenes/boss-room.forge.ron").is_file());
    let missing = dir.path().join("nope");
    let o = forge(
        Path::new(ROOT),
        &["new", "X", "--project", missing.to_str().unwrap()],
    );
    assert_eq!(status(&o), 2);
}

// ---- tree ----

#[test]
fn tree_prints_the_hierarchy_in_file_order() {
    let o = forge(
        Path::new(ROOT),
        &["tree", "tests/fixtures/valid/platformer.forge.ron"],
    );
    assert_eq!(status(&o), 0);
    snapshot("tree-platformer.txt", &stdout(&o));
}

/// `forge tree` shows a placed model's node tree under its instance entity, read from the
/// assets directory (`.gltf` and `.glb` alike): each node marked `(model)`, a light's entity
/// under its node (the house's light is unnamed: `""`), the nodes an override reaches
/// `overridden`, an override target naming no node on its own line, then the entity's own
/// children.
#[test]
fn tree_shows_a_placed_models_nodes() {
    let dir = project(&[], &[]);
    let models = dir.path().join("assets/models");
    std::fs::create_dir_all(&models).unwrap();
    for name in ["house.gltf", "house.glb"] {
        let from = Path::new(ROOT).join("tests/fixtures/models").join(name);
        std::fs::copy(from, models.join(name)).unwrap();
    }
    let t = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";
    let scene = |model: &str| {
        format!(
            "(\n  format_version: 1,\n  name: \"Street\",\n  entities: {{\n    1: (id: 1, name: \"Camera\", parent: None, children: [], {t}, components: [(type: camera3d)]),\n    5: (id: 5, name: \"House\", parent: None, children: [6], {t}, components: [],\n        instance: Some((\n          model: \"{model}\",\n          overrides: [\n            (target: [\"House\", \"Lamp\"], set: [(type: point_light, data: (intensity: 900.0))]),\n            (target: [\"House\", \"Lammp\"], name: Some(\"Typo\")),\n          ],\n        ))),\n    6: (id: 6, name: \"Cat\", parent: Some(5), children: [], {t}, components: []),\n  }},\n  roots: [1, 5],\n  next_id: 7,\n)\n"
        )
    };
    let path = dir.path().join("scenes/street.forge.ron");
    for model in ["models/house.gltf#Scene0", "models/house.glb#Scene0"] {
        std::fs::write(&path, scene(model)).unwrap();
        let o = forge(
            dir.path(),
            &["tree", "--assets", "assets", "scenes/street.forge.ron"],
        );
        assert_eq!(status(&o), 0, "{model}: {}", stdout(&o));
        assert_eq!(
            stdout(&o),
            format!(
                "\"Street\" (3 entities)\n\
                 |-- 1 \"Camera\" [camera3d]\n\
                 `-- 5 \"House\" [] (model \"{model}\")\n\
                 \x20   |-- \"House\" (model)\n\
                 \x20   |   |-- \"Roof\" (model)\n\
                 \x20   |   |   `-- \"Chimney\" (model)\n\
                 \x20   |   |-- \"Door\" (model)\n\
                 \x20   |   |-- \"GltfNode3\" (model)\n\
                 \x20   |   `-- \"Lamp\" (model, overridden)\n\
                 \x20   |       `-- \"\" (model light: point_light)\n\
                 \x20   |-- \"Ground\" (model)\n\
                 \x20   |-- [\"House\", \"Lammp\"] (override target: no such node in the model)\n\
                 \x20   `-- 6 \"Cat\" []\n"
            ),
            "{model}"
        );
    }
    // A model file that is not there: the entity line says so, no nodes.
    std::fs::write(&path, scene("models/gone.gltf#Scene0")).unwrap();
    let o = forge(
        dir.path(),
        &["tree", "--assets", "assets", "scenes/street.forge.ron"],
    );
    let out = stdout(&o);
    assert!(
        out.contains("`-- 5 \"House\" [] (model \"models/gone.gltf#Scene0\", its nodes not shown: it cannot be read:"),
        "{out}"
    );
    assert!(!out.contains("(model)"), "{out}");
    assert!(out.contains("    `-- 6 \"Cat\" []"), "{out}");
}

#[test]
fn tree_shows_models_placed_inside_placed_prefabs() {
    let dir = project(&[], &[]);
    let models = dir.path().join("assets/models");
    std::fs::create_dir_all(&models).unwrap();
    let from = Path::new(ROOT).join("tests/fixtures/models/house.gltf");
    std::fs::copy(from, models.join("house.gltf")).unwrap();
    let t = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";
    // The lot places the house (entity 1) beside its mailbox (2).
    let lot = format!(
        "(format_version: 1, name: \"Lot\", entities: {{\n    1: (id: 1, name: \"Model\", parent: None, children: [], {t}, components: [],\n        instance: Some((model: \"models/house.gltf#Scene0\", overrides: [(target: [\"Ground\"], name: Some(\"Lawn\"))]))),\n    2: (id: 2, name: \"Mailbox\", parent: None, children: [], {t}, components: []),\n  }}, roots: [1, 2], next_id: 3)\n"
    );
    std::fs::create_dir_all(dir.path().join("assets/prefabs")).unwrap();
    std::fs::write(dir.path().join("assets/prefabs/lot.forge.ron"), lot).unwrap();
    // The street places the lot, and a model of its own streamed.
    let street = format!(
        "(format_version: 1, name: \"Street\", entities: {{\n    1: (id: 1, name: \"Camera\", parent: None, children: [], {t}, components: [(type: camera3d)]),\n    5: (id: 5, name: \"Lot\", parent: None, children: [], {t}, components: [], instance: Some((scene: \"prefabs/lot.forge.ron\"))),\n    8: (id: 8, name: \"Far House\", parent: None, children: [], {t}, components: [], instance: Some((model: \"models/house.gltf#Scene0\", streaming: Some((load_radius: 40.0, unload_radius: 50.0))))),\n  }}, roots: [1, 5, 8], next_id: 9)\n"
    );
    std::fs::write(dir.path().join("scenes/street.forge.ron"), street).unwrap();
    let o = forge(
        dir.path(),
        &["tree", "--assets", "assets", "scenes/street.forge.ron"],
    );
    assert_eq!(status(&o), 0, "{}", stdout(&o));
    let house = |prefix: &str, last: &str| {
        format!(
            "{prefix}|-- \"House\" (model)\n\
             {prefix}|   |-- \"Roof\" (model)\n\
             {prefix}|   |   `-- \"Chimney\" (model)\n\
             {prefix}|   |-- \"Door\" (model)\n\
             {prefix}|   |-- \"GltfNode3\" (model)\n\
             {prefix}|   `-- \"Lamp\" (model)\n\
             {prefix}|       `-- \"\" (model light: point_light)\n\
             {prefix}`-- \"Ground\" ({last})\n"
        )
    };
    assert_eq!(
        stdout(&o),
        format!(
            "\"Street\" (5 entities)\n\
             |-- 1 \"Camera\" [camera3d]\n\
             |-- 5 \"Lot\" [] (instance of \"prefabs/lot.forge.ron\")\n\
             |   |-- [5, 1] \"Model\" [] (model \"models/house.gltf#Scene0\")\n\
             {}\
             |   `-- [5, 2] \"Mailbox\" []\n\
             `-- 8 \"Far House\" [] (model \"models/house.gltf#Scene0\", streamed: load radius 40, unload radius 50)\n\
             {}",
            house("|   |   ", "model, overridden"),
            house("    ", "model"),
        )
    );
}

#[test]
fn tree_fails_on_unreadable_or_broken_files() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(status(&forge(dir.path(), &["tree", "gone.forge.ron"])), 2);
    std::fs::write(dir.path().join("b.forge.ron"), "(").unwrap();
    let o = forge(dir.path(), &["tree", "b.forge.ron"]);
    assert_eq!(status(&o), 1);
    assert!(stdout(&o).contains("--> b.forge.ron:1:2"), "{}", stdout(&o));
}

/// A project with the example's prefabs (`assets/prefabs/goblin.forge.ron` places
/// `hat.forge.ron`) and a level `assets/scenes/camp.forge.ron` of `text`.
fn prefab_project(camp: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir_all(assets.join("prefabs")).unwrap();
    std::fs::create_dir_all(assets.join("scenes")).unwrap();
    for prefab in ["goblin", "hat"] {
        std::fs::copy(
            Path::new(ROOT).join(format!("assets/prefabs/{prefab}.forge.ron")),
            assets.join(format!("prefabs/{prefab}.forge.ron")),
        )
        .unwrap();
    }
    std::fs::write(assets.join("scenes/camp.forge.ron"), camp).unwrap();
    dir
}

fn camp() -> String {
    std::fs::read_to_string(Path::new(ROOT).join("assets/scenes/goblin_camp.forge.ron")).unwrap()
}

#[test]
fn validate_follows_instances_into_prefab_files() {
    let dir = prefab_project(&camp());
    let ok = forge(dir.path(), &["validate", "assets/scenes/camp.forge.ron"]);
    assert_eq!(status(&ok), 0, "{}{}", stdout(&ok), stderr(&ok));
    assert!(
        stdout(&ok).ends_with("checked 3 files: 0 errors, 0 warnings, 0 info\n"),
        "the scene and both prefabs: {}",
        stdout(&ok)
    );
    // A bad value in the hat: reported in the hat's file, at its line, with where the level and
    // the goblin place it.
    let hat = dir.path().join("assets/prefabs/hat.forge.ron");
    let text = std::fs::read_to_string(&hat).unwrap();
    std::fs::write(
        &hat,
        text.replace("(x: 16.0, y: 8.0)", "(x: -16.0, y: 8.0)"),
    )
    .unwrap();
    let bad = forge(dir.path(), &["validate", "assets/scenes/camp.forge.ron"]);
    let out = stdout(&bad);
    assert_eq!(status(&bad), 1, "{out}");
    assert!(
        out.contains("error[forge::sprite::custom_size]")
            && out.contains(&format!(
                "prefabs/hat.forge.ron:{}:24",
                text[..text.find("custom_size: Some").unwrap()]
                    .matches('\n')
                    .count()
                    + 1
            )),
        "{out}"
    );
    // One problem, one diagnostic: the chain that placed the hat is its related places, not
    // an error of each file on the way.
    assert!(
        out.contains("note: assets/scenes/camp.forge.ron:")
            && out.contains(": places `prefabs/goblin.forge.ron`")
            && out.contains("note: assets/prefabs/goblin.forge.ron:")
            && out.contains(": places `prefabs/hat.forge.ron`"),
        "{out}"
    );
    assert!(!out.contains("forge::prefab::invalid"), "{out}");
    assert!(out.contains("checked 3 files: 1 error,"), "{out}");
    assert_eq!(
        out.matches("error[forge::sprite::custom_size]").count(),
        1,
        "once: {out}"
    );
}

#[test]
fn validate_reports_overrides_at_the_scene_lines() {
    let level = camp()
        .replace("intensity: 1200.0", "intensity: -3.0")
        .replace("target: [3, 1]", "target: [3, 9]");
    let dir = prefab_project(&level);
    let o = forge(dir.path(), &["validate", "assets/scenes/camp.forge.ron"]);
    let out = stdout(&o);
    assert_eq!(status(&o), 1, "{out}");
    let line_of = |needle: &str| level[..level.find(needle).unwrap()].matches('\n').count() + 1;
    assert!(
        out.contains(
            "error[forge::light::intensity]: point light intensity must be non-negative, found -3\n"
        ) && out.contains(&format!(
            "--> assets/scenes/camp.forge.ron:{}:57",
            line_of("intensity: -3.0")
        )),
        "{out}"
    );
    assert!(
        out.contains("in prefab entity [2] (`Torch`) of `prefabs/goblin.forge.ron`"),
        "{out}"
    );
    assert!(
        out.contains("warning[forge::prefab::unused_override]: override target [3, 9]: `prefabs/hat.forge.ron` (placed at [3]) has no entity 9\n")
            && out.contains(&format!(
                "--> assets/scenes/camp.forge.ron:{}:21",
                line_of("target: [3, 9]")
            )),
        "{out}"
    );
}

#[test]
fn validate_reports_a_cycle_with_each_link() {
    let dir = prefab_project(&camp());
    let hat = dir.path().join("assets/prefabs/hat.forge.ron");
    let text = std::fs::read_to_string(&hat).unwrap();
    std::fs::write(
        &hat,
        text.replace(
            "      locked: false,\n    ),\n  },",
            "      locked: false,\n      instance: Some((scene: \"prefabs/goblin.forge.ron\")),\n    ),\n  },",
        ),
    )
    .unwrap();
    let o = forge(dir.path(), &["validate", "assets/scenes/camp.forge.ron"]);
    let out = stdout(&o);
    assert_eq!(status(&o), 1, "{out}");
    assert!(
        out.contains("error[forge::prefab::cycle]: prefab cycle: `prefabs/goblin.forge.ron` -> `prefabs/hat.forge.ron` -> `prefabs/goblin.forge.ron`"),
        "{out}"
    );
    // Each link, named by its path on disk so it can be opened from where `forge` runs
    // (relative, as the scene was given).
    let on_disk = std::path::Path::new("assets/prefabs/goblin.forge.ron");
    assert!(
        out.contains(&format!("= note: {}:", on_disk.display())),
        "{out}"
    );
    assert!(!out.contains(&dir.path().display().to_string()), "{out}");
    assert!(out.contains("places `prefabs/hat.forge.ron`"), "{out}");
    // `tree` draws what it can, says why it is not whole, and fails.
    let tree = forge(dir.path(), &["tree", "assets/scenes/camp.forge.ron"]);
    assert_eq!(status(&tree), 1);
    assert!(
        stdout(&tree).starts_with("\"Goblin Camp\""),
        "{}",
        stdout(&tree)
    );
    assert!(
        stderr(&tree).contains("error[forge::prefab::cycle]"),
        "{}",
        stderr(&tree)
    );
}

#[test]
fn tree_shows_the_expanded_scene_with_instance_boundaries() {
    let dir = prefab_project(&camp());
    let o = forge(dir.path(), &["tree", "assets/scenes/camp.forge.ron"]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("\"Goblin Camp\" (14 entities)\n"), "{out}");
    assert!(
        out.contains("|-- 3 \"Goblin B\" [] (instance of \"prefabs/goblin.forge.ron\")\n|   `-- [3, 1] \"Goblin Boss\" [sprite, custom:forge_demo::Health]\n"),
        "{out}"
    );
    assert!(
        out.contains("|       |   `-- [3, 3, 1] \"Hat\" [sprite]\n"),
        "{out}"
    );
    assert!(out.contains("|       `-- 5 \"Crown\" [sprite]\n"), "{out}");
    let flat = forge(
        dir.path(),
        &["tree", "--flat", "assets/scenes/camp.forge.ron"],
    );
    let out = stdout(&flat);
    assert!(
        out.contains("[3, 3, 1] \"Hat\" [sprite] in [3, 3]\n"),
        "{out}"
    );
    assert!(out.contains("[5] \"Crown\" [sprite] in [3, 1]\n"), "{out}");
    assert_eq!(out.lines().count(), 15);
}

/// A reference into an empty cell of a tile layer says the cell is empty (it said the layer
/// "places no prefab").
#[test]
fn a_reference_into_an_empty_cell_says_so() {
    let root = Path::new(ROOT);
    let dir = prefab_project(&camp());
    let assets = dir.path().join("assets");
    for p in ["wall", "floor", "coin"] {
        let rel = format!("prefabs/{p}.forge.ron");
        std::fs::copy(root.join("assets").join(&rel), assets.join(&rel)).unwrap();
    }
    let text = std::fs::read_to_string(root.join("assets/scenes/dungeon.forge.ron")).unwrap();
    // `###._###` is row 3 of 6: cell (3, 2) is `.`; cell (1, 1) is a coin.
    let text = text.replacen(
        "          type: camera2d,\n        ),",
        "          type: camera2d,\n        ),\n        (type: custom, data: (type_path: \"game::Looks\", fields: [(name: \"at\", expr: \"#2/3/2/1\"), (name: \"coin\", expr: \"#2/1/1/1\")])),",
        1,
    );
    assert!(text.contains("#2/3/2/1"));
    std::fs::write(assets.join("scenes/dungeon.forge.ron"), &text).unwrap();
    let o = forge(dir.path(), &["validate", "assets/scenes/dungeon.forge.ron"]);
    assert_eq!(status(&o), 1);
    let out = stdout(&o);
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0].contains("entity reference `#2/3/2/1`: cell (3, 2) of tile layer `#2` is empty"),
        "{out}"
    );
}

/// A streamed instance of the scene is marked with its radii in `tree`; an instance the prefab
/// places is not (the runtime streams the scene's own instances).
#[test]
fn tree_marks_a_streamed_cell_with_its_radii() {
    let text = camp().replacen(
        "        scene: \"prefabs/goblin.forge.ron\",\n      )),",
        "        scene: \"prefabs/goblin.forge.ron\",\n        streaming: Some((load_radius: 40.0, unload_radius: 52.5)),\n      )),",
        1,
    );
    assert_ne!(text, camp());
    let dir = prefab_project(&text);
    let o = forge(dir.path(), &["tree", "assets/scenes/camp.forge.ron"]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let marked: Vec<&str> = out.lines().filter(|l| l.contains("streamed")).collect();
    assert_eq!(marked.len(), 1, "{out}");
    assert!(
        marked[0].ends_with(
            "(instance of \"prefabs/goblin.forge.ron\", streamed: load radius 40, unload radius 52.5)"
        ),
        "{out}"
    );
}

// ---- tile layers ----

/// The tiles example's scenes: `validate` passes, `tree` sums each layer up in one line and
/// `--flat` lists every cell's entities by id path, `export` writes the cells expanded, and a
/// wrong key is reported at its character.
#[test]
fn tile_layers_validate_tree_and_export() {
    let root = Path::new(ROOT);
    let scenes = [
        "assets/scenes/dungeon.forge.ron",
        "assets/scenes/meadow.forge.ron",
    ];
    let o = forge(root, &["validate", scenes[0], scenes[1]]);
    assert_eq!(status(&o), 0, "{}", stdout(&o));
    let tree = stdout(&forge(root, &["tree", scenes[0]]));
    assert!(
        tree.contains("`-- 2 \"Rooms\" [] (tile layer, xy plane, 8 x 6 cells, 47 filled: '#' \"prefabs/wall.forge.ron\" x28, '_' \"prefabs/floor.forge.ron\" x16, 'c' \"prefabs/coin.forge.ron\" x3)\n"),
        "{tree}"
    );
    assert_eq!(tree.lines().count(), 3, "{tree}");
    let flat = stdout(&forge(root, &["tree", "--flat", scenes[0]]));
    assert_eq!(flat.lines().count(), 1 + 52, "{flat}");
    assert!(
        flat.contains("[2, 6, 1, 2] \"Gold coin\" [sprite] in [2, 6, 1, 1]\n"),
        "{flat}"
    );
    let rust = forge(root, &["export", scenes[0], "--to", "rust"]);
    assert_eq!(status(&rust), 0, "{}", stderr(&rust));
    assert_eq!(stdout(&rust).matches("Name::new(\"Gold coin\")").count(), 1);
    assert_eq!(stdout(&rust).matches("Name::new(\"Wall\")").count(), 28);
    // A key the palette does not have, at its line and column.
    let dir = prefab_project(&camp());
    let assets = dir.path().join("assets");
    std::fs::create_dir_all(assets.join("prefabs/tiles")).unwrap();
    for p in ["wall", "floor", "coin"] {
        let rel = format!("prefabs/{p}.forge.ron");
        std::fs::copy(root.join("assets").join(&rel), assets.join(&rel)).unwrap();
    }
    let text = std::fs::read_to_string(root.join(scenes[0])).unwrap();
    let text = text.replace("\"#______#\"", "\"#__x___#\"");
    std::fs::write(assets.join("scenes/dungeon.forge.ron"), &text).unwrap();
    let line = text.lines().position(|l| l.contains("#__x___#")).unwrap() + 1;
    let column = text.lines().nth(line - 1).unwrap().find('x').unwrap() + 1;
    let o = forge(dir.path(), &["validate", "assets/scenes/dungeon.forge.ron"]);
    assert_eq!(status(&o), 1);
    let out = stdout(&o);
    assert!(
        out.contains("error[forge::layer::unknown_key]: `x` is not a key of the layer's palette"),
        "{out}"
    );
    assert!(
        out.contains(&format!("dungeon.forge.ron:{line}:{column}")),
        "{out}"
    );
}

// ---- entity references ----

/// The castle gate example's types, shared with the examples.
#[path = "../../../examples/support/gate.rs"]
mod gate_game;

/// The castle gate example (scene and sentry prefab), with its types' schemas in
/// `game.forge-schema.ron`, the scene edited by `edit`, the prefab by `edit_prefab`.
fn gate_project(
    edit: impl Fn(&str) -> String,
    edit_prefab: impl Fn(&str) -> String,
) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir_all(assets.join("prefabs")).unwrap();
    std::fs::create_dir_all(assets.join("scenes")).unwrap();
    let read = |p: &str| std::fs::read_to_string(Path::new(ROOT).join(p)).unwrap();
    let gate = edit(&read("assets/scenes/castle_gate.forge.ron"));
    let sentry = edit_prefab(&read("assets/prefabs/sentry.forge.ron"));
    std::fs::write(assets.join("scenes/gate.forge.ron"), &gate).unwrap();
    std::fs::write(assets.join("prefabs/sentry.forge.ron"), &sentry).unwrap();
    let schemas = bevy_forge_scene::ForgeSchemas::default();
    schemas.insert::<gate_game::Door>();
    schemas.insert::<gate_game::Patrol>();
    schemas.insert::<gate_game::Sentry>();
    schemas
        .export(dir.path().join("game.forge-schema.ron"))
        .unwrap();
    (dir, gate, sentry)
}

/// `file:line:column` of the first `needle` in `text`.
fn at(file: &str, text: &str, needle: &str) -> String {
    let i = text.find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
    let line = text[..i].matches('\n').count() + 1;
    let column = text[..i].rsplit('\n').next().unwrap().chars().count() + 1;
    format!("{file}:{line}:{column}")
}

#[test]
fn validate_checks_entity_references_with_and_without_a_schema() {
    let scene = "assets/scenes/gate.forge.ron";
    let (dir, _, _) = gate_project(str::to_owned, str::to_owned);
    for args in [
        &["validate", scene][..],
        &["validate", "--schema", "game.forge-schema.ron", scene][..],
    ] {
        let o = forge(dir.path(), args);
        assert_eq!(status(&o), 0, "{args:?}: {}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains("0 errors"), "{}", stdout(&o));
    }
    // A dangling id in the scene, a path into an instance that goes nowhere, a dangling id in
    // the prefab, and (seen only with the schema) a reference where a number goes.
    let (dir, gate, sentry) = gate_project(
        |t| {
            t.replace("expr: \"#1\"", "expr: \"#11\"")
                .replace("Some(#8/1)", "Some(#8/3)")
                .replace("expr: \"1.5\"", "expr: \"#5\"")
        },
        |t| t.replace("expr: \"#2\"", "expr: \"#4\""),
    );
    let plain = forge(dir.path(), &["validate", scene]);
    let out = stdout(&plain);
    assert_eq!(status(&plain), 1, "{out}");
    for (file, text, needle) in [
        ("gate.forge.ron", &gate, "#11"),
        ("gate.forge.ron", &gate, "#8/3"),
        ("sentry.forge.ron", &sentry, "#4"),
    ] {
        assert!(out.contains(&at(file, text, needle)), "{needle}: {out}");
    }
    assert_eq!(
        out.matches("error[forge::custom::reference]").count(),
        3,
        "{out}"
    );
    assert!(out.contains("did you mean `#8/2` (\"Post\")"), "{out}");
    let checked = forge(
        dir.path(),
        &["validate", "--schema", "game.forge-schema.ron", scene],
    );
    let out = stdout(&checked);
    assert_eq!(status(&checked), 1, "{out}");
    assert_eq!(
        out.matches("error[forge::custom::reference]").count(),
        3,
        "{out}"
    );
    assert!(out.contains(&at("gate.forge.ron", &gate, "#8/3")), "{out}");
    assert!(out.contains("error[forge::custom::expr]"), "{out}");
    assert!(out.contains(&at("gate.forge.ron", &gate, "#5\"")), "{out}");
}

// ---- cook ----

/// `forge cook --schema FILE` stamps the twin with the hash the running game computes from its
/// registered schemas; without `--schema` the stamp has none (never trusted).
#[test]
fn cook_stamps_the_hash_the_game_computes_from_its_registry() {
    use bevy_forge_scene::cook::{CookedScene, schema_hash};
    let (dir, _, _) = gate_project(str::to_owned, str::to_owned);
    let game = bevy_forge_scene::ForgeSchemas::default();
    game.insert::<gate_game::Sentry>();
    game.insert::<gate_game::Door>();
    game.insert::<gate_game::Patrol>();
    let game = schema_hash(&game.to_schema_file()).unwrap();
    let twin = dir.path().join("assets/scenes/gate.forge.bin");
    let scene = "assets/scenes/gate.forge.ron";
    let o = forge(
        dir.path(),
        &["cook", "--schema", "game.forge-schema.ron", scene],
    );
    assert_eq!(status(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let stamp = CookedScene::decode_stamped(&std::fs::read(&twin).unwrap())
        .unwrap()
        .stamp
        .unwrap();
    assert_eq!(stamp.schema_hash, Some(game));
    assert!(stamp.matches(Some(&game)));
    let o = forge(dir.path(), &["cook", scene]);
    assert_eq!(status(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let stamp = CookedScene::decode_stamped(&std::fs::read(&twin).unwrap())
        .unwrap()
        .stamp
        .unwrap();
    assert_eq!(stamp.schema_hash, None);
    assert!(!stamp.matches(Some(&game)));
}

#[test]
fn cook_writes_twins_that_decode_to_the_scene_and_its_prefabs() {
    let (dir, gate, sentry) = gate_project(str::to_owned, str::to_owned);
    let o = forge(dir.path(), &["cook", "assets/scenes/gate.forge.ron"]);
    assert_eq!(status(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("1 prefab bundled"), "{}", stdout(&o));
    let twin = dir.path().join("assets/scenes/gate.forge.bin");
    let cooked =
        bevy_forge_scene::cook::CookedScene::decode(&std::fs::read(&twin).unwrap()).unwrap();
    assert_eq!(cooked.source, "scenes/gate.forge.ron");
    assert_eq!(
        cooked.doc,
        bevy_forge_scene::format::SceneDoc::from_str(&gate)
            .unwrap()
            .doc
    );
    assert_eq!(cooked.prefabs.len(), 1);
    assert_eq!(cooked.prefabs[0].0, "prefabs/sentry.forge.ron");
    assert_eq!(
        cooked.prefabs[0].1,
        bevy_forge_scene::format::SceneDoc::from_str(&sentry)
            .unwrap()
            .doc
    );
    // Up to date, then stale after an edit, then missing.
    let check = |dir: &Path| forge(dir, &["cook", "--check", "assets/scenes"]);
    let o = check(dir.path());
    assert_eq!(status(&o), 0, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("0 missing, stale or damaged"),
        "{}",
        stdout(&o)
    );
    let scene = dir.path().join("assets/scenes/gate.forge.ron");
    std::fs::write(&scene, gate.replace("\"Gate\"", "\"Portcullis\"")).unwrap();
    let o = check(dir.path());
    assert_eq!(status(&o), 1, "{}", stdout(&o));
    assert!(stdout(&o).contains("stale: "), "{}", stdout(&o));
    // A twin cooked by a build with another layout version: stale, not damaged.
    std::fs::write(&scene, &gate).unwrap();
    assert_eq!(status(&check(dir.path())), 0);
    let mut older = std::fs::read(&twin).unwrap();
    older[8..10].copy_from_slice(&1u16.to_le_bytes());
    std::fs::write(&twin, &older).unwrap();
    let o = check(dir.path());
    assert_eq!(status(&o), 1, "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!(
            "(cooked layout version 1; this build writes {})",
            bevy_forge_scene::cook::COOKED_VERSION
        )),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains("damaged: "), "{}", stdout(&o));
    std::fs::remove_file(&twin).unwrap();
    let o = check(dir.path());
    assert_eq!(status(&o), 1, "{}", stdout(&o));
    assert!(stdout(&o).contains("missing: "), "{}", stdout(&o));
    assert!(!twin.exists(), "--check writes nothing");
}

#[test]
fn a_cooked_file_given_to_validate_names_its_text_or_its_damage() {
    let (dir, _, _) = gate_project(str::to_owned, str::to_owned);
    let o = forge(dir.path(), &["cook", "assets/scenes/gate.forge.ron"]);
    assert_eq!(status(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let bin = "assets/scenes/gate.forge.bin";
    // Its text beside it: named by the path to run on.
    let o = forge(dir.path(), &["validate", bin]);
    let out = stdout(&o);
    assert_eq!(status(&o), 1, "{out}");
    assert!(out.contains("error[forge::cook::not_text]"), "{out}");
    assert!(
        out.contains("run this on its text, `assets/scenes/gate.forge.ron`"),
        "{out}"
    );
    // Only the twin: the asset path it was cooked from, said to be one.
    std::fs::rename(
        dir.path().join("assets/scenes/gate.forge.ron"),
        dir.path().join("gate.txt"),
    )
    .unwrap();
    let out = stdout(&forge(dir.path(), &["validate", bin]));
    assert!(
        out.contains("(asset path `scenes/gate.forge.ron`)"),
        "{out}"
    );
    // Damaged: the damage is the error, by its own code.
    let path = dir.path().join(bin);
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    for args in [
        &["validate", bin][..],
        &["validate", "--format", "json", bin][..],
    ] {
        let o = forge(dir.path(), args);
        let out = stdout(&o);
        assert_eq!(status(&o), 1, "{out}");
        assert!(out.contains("forge::cook::checksum"), "{out}");
        assert!(!out.contains("not_text"), "{out}");
    }
}

#[test]
fn cook_refuses_scenes_with_errors_and_keeps_a_directory_layout_under_out() {
    let (dir, _, _) = gate_project(
        |t| t.replace("expr: \"#1\"", "expr: \"#11\""),
        str::to_owned,
    );
    let o = forge(dir.path(), &["cook", "assets/scenes/gate.forge.ron"]);
    let out = stdout(&o);
    assert_eq!(status(&o), 1, "{out}");
    assert!(out.contains("error[forge::custom::reference]"), "{out}");
    assert!(out.contains("not cooked: "), "{out}");
    assert!(!dir.path().join("assets/scenes/gate.forge.bin").exists());
    // `--check` counts it as refused, as its exit status says.
    let o = forge(
        dir.path(),
        &["cook", "--check", "assets/scenes/gate.forge.ron"],
    );
    let out = stdout(&o);
    assert_eq!(status(&o), 1, "{out}");
    assert!(out.contains("refused: "), "{out}");
    assert!(
        out.contains("0 missing, stale or damaged, 1 refused"),
        "{out}"
    );
    // A clean scene under `--out`, by its path under the directory argument.
    let (dir, _, _) = gate_project(str::to_owned, str::to_owned);
    let o = forge(dir.path(), &["cook", "--out", "cooked", "assets"]);
    assert_eq!(status(&o), 0, "{}{}", stdout(&o), stderr(&o));
    for twin in [
        "cooked/scenes/gate.forge.bin",
        "cooked/prefabs/sentry.forge.bin",
    ] {
        assert!(dir.path().join(twin).is_file(), "{twin}: {}", stdout(&o));
    }
    assert!(!dir.path().join("assets/scenes/gate.forge.bin").exists());
}

/// A format 0 scene with comments, one-line entries and a broken twin (a light with no range).
const FORMAT_0: &str = "// an early scene\n(\n  format_version: 0, // before the first release\n  name: \"Old\",\n  entities: {\n    // the only entity\n    1: (id: 1, name: \"Lamp\", parent: None, children: [], transform: (translation: (x: 0, y: 1, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: []),\n  },\n  roots: [1],\n  next_id: 2,\n)\n";

#[test]
fn migrate_rewrites_the_version_only_and_keeps_comments() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("old.forge.ron");
    std::fs::write(&file, FORMAT_0).unwrap();
    std::fs::write(
        dir.path().join("new.forge.ron"),
        FORMAT_0.replace("format_version: 0", "format_version: 1"),
    )
    .unwrap();

    let dry = forge(dir.path(), &["migrate", "--dry-run", "."]);
    assert_eq!(status(&dry), 0, "{}", stderr(&dry));
    let out = stdout(&dry);
    assert!(
        out.starts_with(&format!(
            "would migrate {}: format 0 -> 1\n",
            Path::new(".").join("old.forge.ron").display()
        )),
        "{out}"
    );
    assert!(out.contains("\"0\" -> \"1\""), "{out}");
    assert!(!out.contains("new.forge.ron"), "{out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), FORMAT_0);

    let o = forge(dir.path(), &["migrate", "old.forge.ron"]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "migrated old.forge.ron: format 0 -> 1\n");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        FORMAT_0.replace("format_version: 0,", "format_version: 1,")
    );
    let again = forge(dir.path(), &["migrate", "."]);
    assert_eq!(
        (status(&again), stdout(&again)),
        (0, "every scene is at format 1\n".to_owned())
    );
}

#[test]
fn migrate_refuses_a_result_that_does_not_validate() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.forge.ron");
    // A negative light range: reads, but does not validate.
    let bad = FORMAT_0.replace(
        "components: []",
        "components: [(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 10, range: -1, shadows: false))]",
    );
    std::fs::write(&file, &bad).unwrap();
    let o = forge(dir.path(), &["migrate", "bad.forge.ron"]);
    assert_eq!(status(&o), 1);
    assert!(stderr(&o).contains("bad.forge.ron: not migrated: the migrated scene does not validate: error[forge::light::range]"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), bad);
}

/// `fmt` lays a file with comments out canonically and keeps every comment at its entry
/// (`bevy_forge_scene::edit::format_text`); `--check` lists it first and writes nothing.
#[test]
fn fmt_keeps_comments() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("old.forge.ron");
    std::fs::write(&file, FORMAT_0).unwrap();
    let o = forge(dir.path(), &["fmt", "--check", "."]);
    assert_eq!(status(&o), 1, "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "./old.forge.ron");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), FORMAT_0);
    let o = forge(dir.path(), &["fmt", "old.forge.ron"]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    let formatted = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        formatted,
        bevy_forge_scene::edit::format_text(FORMAT_0).unwrap()
    );
    for comment in FORMAT_0
        .lines()
        .filter_map(|l| l.find("//").map(|at| &l[at..]))
    {
        assert!(formatted.contains(comment), "{comment} lost:\n{formatted}");
    }
    let o = forge(dir.path(), &["fmt", "--check", "."]);
    assert_eq!(status(&o), 0, "formatted twice: {}", stdout(&o));
}

/// A scene with prefab instances is checked in two passes (its own rules, then its expansion's
/// custom components and references); the report lists both in one order, the library's:
/// errors before warnings before notes, and within each by entity.
#[test]
fn validate_lists_a_scene_with_instances_in_one_order() {
    // The camp's first entity gets a custom component the schema file does not have: an error
    // from the expansion's pass, on an entity before those of the first pass's errors.
    let text = camp().replacen(
        "components: [",
        "components: [(type: custom, data: (type_path: \"forge_demo::Nothing\", fields: [])), ",
        1,
    );
    let dir = prefab_project(&text);
    common::game::schemas()
        .export(dir.path().join("game.forge-schema.ron"))
        .unwrap();
    let o = forge(
        dir.path(),
        &[
            "validate",
            "--schema",
            "game.forge-schema.ron",
            "--format",
            "json",
            "assets/scenes/camp.forge.ron",
        ],
    );
    let items = json(&o);
    let rank = |s: &str| ["error", "warning", "info"].iter().position(|r| *r == s);
    let order: Vec<(Option<usize>, Option<u64>)> = items
        .iter()
        .filter(|d| d["file"] == "assets/scenes/camp.forge.ron")
        .map(|d| (rank(d["severity"].as_str().unwrap()), d["entity"].as_u64()))
        .collect();
    assert!(
        order.iter().any(|(_, e)| e.is_some()) && order.len() > 1,
        "{items:#?}"
    );
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "{items:#?}");
    assert!(
        items.iter().any(|d| d["message"]
            .as_str()
            .unwrap()
            .contains("forge_demo::Nothing")),
        "{items:#?}"
    );
}

// ---- renamed types and fields: migrate --schema, schema diff ----

/// The test game's schemas as exported (`old.forge-schema.ron`), and as exported after the game
/// renamed `forge_demo::Brain` to `forge_demo::Mind` and its field `hp` to `health` with
/// `renamed_from`, and removed `forge_demo::Route` (`new.forge-schema.ron`).
fn renamed_game_dir(scenes: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = game_dir(scenes);
    let old = common::game::schemas().to_schema_file();
    old.write(dir.path().join("old.forge-schema.ron")).unwrap();
    let mut components = old.components.clone();
    for c in &mut components {
        if c.type_path == "forge_demo::Brain" {
            c.type_path = "forge_demo::Mind".into();
            c.type_name = "Mind".into();
            c.renamed_from = vec!["forge_demo::Brain".into()];
            for f in &mut c.fields {
                if f.name == "hp" {
                    f.name = "health".into();
                    f.renamed_from = vec!["hp".into()];
                }
            }
        }
    }
    components.retain(|c| c.type_path != "forge_demo::Route");
    bevy_forge_scene::schema::SchemaFile::new(components)
        .write(dir.path().join("new.forge-schema.ron"))
        .unwrap();
    dir
}

/// A scene with comments whose `Brain` is written with its old names.
const BRAIN_SCENE: &str = "// the guard's scene\n(\n  format_version: 1,\n  name: \"Patrol\",\n  entities: {\n    1: (\n      id: 1,\n      name: \"Guard\", // the one at the gate\n      parent: None,\n      children: [],\n      transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),\n      components: [\n        // its mind\n        (type: custom, data: (type_path: \"forge_demo::Brain\", fields: [\n          (name: \"hp\", expr: \"40\"), // hurt\n          (name: \"label\", expr: \"\\\"gate\\\"\"),\n        ])),\n      ],\n    ),\n  },\n  roots: [1],\n  next_id: 2,\n)\n";

#[test]
fn migrate_with_a_schema_rewrites_renamed_names_only() {
    let dir = renamed_game_dir(&[("guard.forge.ron", BRAIN_SCENE)]);
    let file = dir.path().join("guard.forge.ron");
    let args = ["--schema", "new.forge-schema.ron", "guard.forge.ron"];
    // Before: it loads with the old names, one warning each.
    let v = forge(
        dir.path(),
        &[&["validate", "--no-assets"][..], &args].concat(),
    );
    assert_eq!(status(&v), 0, "{}", stdout(&v));
    let report = stdout(&v);
    assert!(
        report.contains(
            "custom component type `forge_demo::Brain` was renamed to `forge_demo::Mind`"
        ),
        "{report}"
    );
    assert!(
        report.contains("field `hp` of `Mind` was renamed to `health`"),
        "{report}"
    );

    let dry = forge(dir.path(), &[&["migrate", "--dry-run"][..], &args].concat());
    assert_eq!(status(&dry), 0, "{}", stderr(&dry));
    let out = stdout(&dry);
    assert!(
        out.starts_with(
            "would migrate guard.forge.ron: 2 old names of renamed types and fields -> the new names\n"
        ),
        "{out}"
    );
    let type_at = BRAIN_SCENE.find("\"forge_demo::Brain\"").unwrap();
    // Each patch: the byte it starts at in the text the patches before it made (`Mind` is a
    // byte shorter than `Brain`), the old and the new text.
    let hp_at = BRAIN_SCENE.find("\"hp\"").unwrap() - 1;
    assert!(
        out.contains(&format!(
            "  at byte {type_at}: {:?} -> {:?}\n  at byte {hp_at}: {:?} -> {:?}\n",
            "\"forge_demo::Brain\"", "\"forge_demo::Mind\"", "\"hp\"", "\"health\""
        )),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), BRAIN_SCENE);

    let o = forge(dir.path(), &[&["migrate"][..], &args].concat());
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    // Only those bytes: comments, layout and every other byte as they were.
    let migrated = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        migrated,
        BRAIN_SCENE
            .replace("\"forge_demo::Brain\"", "\"forge_demo::Mind\"")
            .replace("(name: \"hp\"", "(name: \"health\"")
    );
    // After: no warnings, and nothing left to migrate.
    let v = forge(
        dir.path(),
        &[&["validate", "--no-assets"][..], &args].concat(),
    );
    assert_eq!(status(&v), 0, "{}", stdout(&v));
    assert!(!stdout(&v).contains("renamed"), "{}", stdout(&v));
    let again = forge(dir.path(), &[&["migrate"][..], &args].concat());
    assert_eq!(
        (status(&again), stdout(&again)),
        (
            0,
            "every scene is at format 1 and writes the current names\n".to_owned()
        )
    );
}

#[test]
fn schema_diff_lists_the_changes_and_the_scenes_they_break() {
    let route = "        (type: custom, data: (type_path: \"forge_demo::Route\", fields: [(name: \"name\", expr: \"\\\"north\\\"\")])),";
    let dir = renamed_game_dir(&[
        ("guard.forge.ron", BRAIN_SCENE),
        ("route.forge.ron", &guard_scene(&[route])),
    ]);
    let o = forge(
        dir.path(),
        &[
            "schema",
            "diff",
            "old.forge-schema.ron",
            "new.forge-schema.ron",
            "guard.forge.ron",
            "route.forge.ron",
        ],
    );
    let out = stdout(&o);
    assert_eq!(status(&o), 1, "{out}{}", stderr(&o));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "old.forge-schema.ron -> new.forge-schema.ron:");
    assert!(
        out.contains("  ~ `forge_demo::Mind`: renamed from `forge_demo::Brain`\n"),
        "{out}"
    );
    assert!(
        out.contains("  ~ `forge_demo::Mind`: field `health` renamed from `hp`\n"),
        "{out}"
    );
    assert!(
        out.contains("  - `forge_demo::Route`: removed  (may break scenes)\n"),
        "{out}"
    );
    assert!(
        out.contains("guard.forge.ron loads with 2 renamed names (`forge migrate --schema new.forge-schema.ron` rewrites them)"),
        "{out}"
    );
    assert!(
        out.contains("breaks route.forge.ron: 1 error with the new schemas"),
        "{out}"
    );
    assert!(
        out.ends_with("checked 2 scenes: 1 broken, 1 with old names\n"),
        "{out}"
    );
    // Two identical exports: nothing changed, nothing breaks.
    let same = forge(
        dir.path(),
        &[
            "schema",
            "diff",
            "old.forge-schema.ron",
            "old.forge-schema.ron",
        ],
    );
    assert_eq!(
        (status(&same), stdout(&same)),
        (0, "no changes to the custom component types\n".to_owned())
    );
}

// ---- enum components: validate --schema and migrate --schema without the game ----

/// An enum component's schema as a game exports it: three unit variants (one renamed from
/// `Moving`), a tuple and a struct variant.
const BODY_SCHEMA: &str = r#"(format: 1, components: [(
    type_path: "game::RigidBody", type_name: "RigidBody",
    variants: [
        Unit(name: "Dynamic"), Unit(name: "Static"), Unit(name: "Kinematic"),
        Tuple(name: "Pushed", fields: [(type_name: "f32", kind: Float(bits: 32))]),
        Struct(name: "Driven", fields: [(name: "speed", type_name: "f32", kind: Float(bits: 32))]),
    ],
    default: Some("RigidBody::Dynamic"),
    renamed_variants: [(from: "Moving", to: "Kinematic")],
)])"#;

/// A scene of one entity per value, each with the enum component set to it.
fn body_scene(values: &[&str]) -> String {
    let entities: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let id = i + 1;
            format!(
                "    {id}: (id: {id}, name: \"Body {id}\", parent: None, children: [],\n      transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),\n      components: [\n        (type: custom, data: (type_path: \"game::RigidBody\", value: \"{v}\")), // a body\n      ]),"
            )
        })
        .collect();
    let roots: Vec<String> = (1..=values.len()).map(|i| i.to_string()).collect();
    format!(
        "(\n  format_version: 1,\n  name: \"Bodies\",\n  entities: {{\n{}\n  }},\n  roots: [{}],\n  next_id: {},\n)\n",
        entities.join("\n"),
        roots.join(", "),
        values.len() + 1
    )
}

#[test]
fn validate_and_migrate_with_a_schema_check_enum_values_without_the_game() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("body.forge-schema.ron"), BODY_SCHEMA).unwrap();
    let bad = body_scene(&["RigidBody::Kinematik", "Pushed(true)"]);
    std::fs::write(dir.path().join("bad.forge.ron"), &bad).unwrap();
    let o = forge(
        dir.path(),
        &[
            "validate",
            "--schema",
            "body.forge-schema.ron",
            "--format",
            "json",
            "bad.forge.ron",
        ],
    );
    assert_eq!(status(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let items = json(&o);
    let found: Vec<(String, u64, u64)> = items
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            spot(&bad, "expr", "Kinematik", "Kinematik"),
            spot(&bad, "expr", "Pushed(true)", "true"),
        ]
    );
    assert_eq!(items[0]["help"], "did you mean `Kinematic`?");

    // An old variant name: a warning, then `migrate --schema` rewrites only that string.
    let old = body_scene(&["RigidBody::Moving", "Pushed(2.0)"]);
    std::fs::write(dir.path().join("old.forge.ron"), &old).unwrap();
    let args = ["--schema", "body.forge-schema.ron", "old.forge.ron"];
    let v = forge(
        dir.path(),
        &[&["validate", "--no-assets"][..], &args].concat(),
    );
    assert_eq!(status(&v), 0, "{}", stdout(&v));
    assert!(
        stdout(&v).contains("variant `Moving` of `RigidBody` was renamed to `Kinematic`"),
        "{}",
        stdout(&v)
    );
    let m = forge(dir.path(), &[&["migrate"][..], &args].concat());
    assert_eq!(status(&m), 0, "{}", stderr(&m));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("old.forge.ron")).unwrap(),
        old.replace("RigidBody::Moving", "RigidBody::Kinematic"),
        "the comments and every other byte kept"
    );
}
