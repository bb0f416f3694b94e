//! `forge import`: a Bevy `.scn.ron` world (written by Bevy's own `DynamicWorldSerializer`, the
//! files in `tests/fixtures/import/`) printed or written as a scene, what it leaves out listed
//! as warnings, and what it refuses.

use std::path::Path;

use bevy_forge_scene::format::{ComponentData, SceneDoc};
use bevy_forge_scene::import::{self, ImportOptions};

use super::{ROOT, forge};

const NAME: &str = "bevy_ecs::name::Name";
const TRANSFORM: &str = "bevy_transform::components::transform::Transform";

/// Copies `tests/fixtures/import/<name>` into `dir`.
fn fixture_into(dir: &Path, name: &str) {
    let from = Path::new(ROOT).join("tests/fixtures/import").join(name);
    std::fs::copy(from, dir.join(name)).unwrap();
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn forge_import_prints_the_scene_and_warns_about_what_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    fixture_into(dir.path(), "level.scn.ron");
    let o = forge(dir.path(), &["import", "level.scn.ron"]);
    let (stdout, stderr) = (text_of(&o.stdout), text_of(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let doc = SceneDoc::from_str(&stdout).unwrap().doc;
    assert_eq!(doc.name, "level");
    assert!(doc.find_by_name("Zoë 🐉 ドラゴン").next().is_some());
    assert!(
        stderr.contains("warning: resource `import::Score` not imported"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`import::Creature` is not in the type registry"),
        "{stderr}"
    );
    assert!(
        stderr.lines().all(|l| l.starts_with("warning: ")),
        "{stderr}"
    );
}

#[test]
fn forge_import_out_writes_a_scene_that_validates() {
    let dir = tempfile::tempdir().unwrap();
    fixture_into(dir.path(), "platformer.scn.ron");
    let o = forge(
        dir.path(),
        &[
            "import",
            "platformer.scn.ron",
            "--out",
            "platformer.forge.ron",
        ],
    );
    let stderr = text_of(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(o.stdout.is_empty());
    assert!(
        stderr.contains("imported platformer.scn.ron -> platformer.forge.ron (3 entities"),
        "{stderr}"
    );
    // The built-in types only: the game's `Orbit` is listed, the rest is the same world.
    assert!(
        stderr.contains("`import::Orbit` is not in the type registry"),
        "{stderr}"
    );
    let written = std::fs::read_to_string(dir.path().join("platformer.forge.ron")).unwrap();
    let doc = SceneDoc::from_str(&written).unwrap().doc;
    assert_eq!(written, doc.to_canonical_string(), "canonical");
    // Once written, the scene is not replaced unless asked.
    let args = [
        "import",
        "platformer.scn.ron",
        "--out",
        "platformer.forge.ron",
    ];
    std::fs::write(dir.path().join("platformer.forge.ron"), "// mine").unwrap();
    let again = forge(dir.path(), &args);
    assert_eq!(again.status.code(), Some(1));
    assert!(text_of(&again.stderr).contains("exists; not replacing it (pass --force"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("platformer.forge.ron")).unwrap(),
        "// mine"
    );
    let forced = forge(dir.path(), &[&args[..], &["--force"]].concat());
    assert_eq!(forced.status.code(), Some(0), "{}", text_of(&forced.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("platformer.forge.ron")).unwrap(),
        written
    );
    // What the library imports with the built-in types (its own tests compare that with the
    // world Bevy wrote): the command adds and drops nothing. The seed's names, without `Orbit`.
    let options = ImportOptions {
        name: "platformer".into(),
        schemas: None,
    };
    let library = import::from_scn_ron_file(
        dir.path().join("platformer.scn.ron"),
        &import::builtin_types(),
        &options,
    )
    .unwrap();
    assert_eq!(doc, library.doc);
    let seed = SceneDoc::read(Path::new(ROOT).join("assets/scenes/platformer.forge.ron")).unwrap();
    let names = |d: &SceneDoc| {
        let mut n: Vec<String> = d.entities.values().map(|e| e.name.to_string()).collect();
        n.sort();
        n
    };
    assert_eq!(names(&doc), names(&seed.doc));
    assert!(
        doc.entities
            .values()
            .flat_map(|e| &e.components)
            .all(|c| !matches!(c, ComponentData::Custom(_)))
    );
    let v = forge(
        dir.path(),
        &["validate", "--no-assets", "platformer.forge.ron"],
    );
    assert_eq!(v.status.code(), Some(0), "{}", text_of(&v.stdout));
}

#[test]
fn forge_import_refuses_a_result_that_does_not_validate_and_malformed_files() {
    let dir = tempfile::tempdir().unwrap();
    let nan = format!(
        "(resources: {{}}, entities: {{4294967295: (components: {{\"{NAME}\": \"Lost\", \"{TRANSFORM}\": (translation: (NaN, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0), scale: (1.0, 1.0, 1.0))}})}})"
    );
    std::fs::write(dir.path().join("nan.scn.ron"), nan).unwrap();
    let o = forge(
        dir.path(),
        &["import", "nan.scn.ron", "--out", "nan.forge.ron"],
    );
    let stderr = text_of(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("does not validate; nothing written"),
        "{stderr}"
    );
    assert!(!dir.path().join("nan.forge.ron").exists());

    std::fs::write(
        dir.path().join("bad.scn.ron"),
        "(\n  resources: {},\n  entities: [\n",
    )
    .unwrap();
    let o = forge(dir.path(), &["import", "bad.scn.ron"]);
    let stderr = text_of(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: bad.scn.ron:3:"), "{stderr}");
    assert!(o.stdout.is_empty());

    let o = forge(dir.path(), &["import", "missing.scn.ron"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text_of(&o.stderr).contains("cannot read `missing.scn.ron`"));
}
