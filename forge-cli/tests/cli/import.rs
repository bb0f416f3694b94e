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
    // Without the game's types or schemas, a component whose text does not say what it holds
    // is listed, with the way to keep it.
    assert!(
        stderr.contains("`import::Creature` left out: without its type, its field `mood`"),
        "{stderr}"
    );
    assert!(stderr.contains("(`--schema`)"), "{stderr}");
    // The era first, then one warning per thing left out.
    let mut lines = stderr.lines();
    assert_eq!(
        lines.next(),
        Some("note: read as written by Bevy 0.17-0.20")
    );
    assert!(lines.all(|l| l.starts_with("warning: ")), "{stderr}");
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
        stderr.contains("`import::Orbit` left out: without its type, its field `axis`"),
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
        ..ImportOptions::default()
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

/// `tests/fixtures/bevy_eras/<name>` copied into `dir`.
fn era_file_into(dir: &Path, name: &str) {
    let from = Path::new(ROOT).join("tests/fixtures/bevy_eras").join(name);
    std::fs::copy(from, dir.join(name)).unwrap();
}

#[test]
fn forge_import_with_the_games_schema_file_keeps_its_components_as_custom() {
    let dir = tempfile::tempdir().unwrap();
    era_file_into(dir.path(), "bevy-0.14.scn.ron");
    era_file_into(dir.path(), "forge_demo.forge-schema.ron");
    // Without the schema file, the game's components that need their types are listed.
    let o = forge(dir.path(), &["import", "bevy-0.14.scn.ron"]);
    let stderr = text_of(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("note: read as written by Bevy 0.13-0.14"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`forge_demo::Follow` left out: without its type, its field `target`"),
        "{stderr}"
    );

    let o = forge(
        dir.path(),
        &[
            "import",
            "bevy-0.14.scn.ron",
            "--schema",
            "forge_demo.forge-schema.ron",
            "--out",
            "level.forge.ron",
        ],
    );
    let stderr = text_of(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let doc = SceneDoc::read(dir.path().join("level.forge.ron"))
        .unwrap()
        .doc;
    let id = |name: &str| doc.find_by_name(name).next().unwrap();
    let custom = |name: &str, type_path: &str| -> Vec<(String, String)> {
        doc.entities[&id(name)]
            .components
            .iter()
            .find_map(|c| match c {
                ComponentData::Custom(c) if c.type_path == type_path => Some(
                    c.fields
                        .iter()
                        .map(|f| (f.name.to_string(), f.expr.to_string()))
                        .collect(),
                ),
                _ => None,
            })
            .unwrap_or_else(|| panic!("`{name}` has `{type_path}`"))
    };
    let field = |n: &str, e: String| (n.to_owned(), e);
    assert_eq!(
        custom("Player", "forge_demo::Health"),
        [field("hp", "75".into()), field("max", "100".into())]
    );
    // The reference, a struct `(generation, index)` key in 0.14's `u64` form, is `#id`.
    assert_eq!(
        custom("Lamp", "forge_demo::Follow"),
        [
            field("target", format!("#{}", id("Player"))),
            field("distance", "2.5".into())
        ]
    );
    assert_eq!(
        custom("Chest", "forge_demo::Loot"),
        [field("items", r#"vec!["gold", "key"]"#.into())]
    );
    assert!(custom("Chest", "forge_demo::Interactable").is_empty());
    // Handles without a path are listed, with their entity and field.
    assert!(
        stderr.contains(
            "entity 3 (`Lamp`): `forge_demo::Glow` left out: its field `texture` is an asset handle"
        ),
        "{stderr}"
    );
    // What it wrote loads with the game's schemas: `forge validate --schema` passes.
    let v = forge(
        dir.path(),
        &[
            "validate",
            "--no-assets",
            "--schema",
            "forge_demo.forge-schema.ron",
            "level.forge.ron",
        ],
    );
    assert_eq!(v.status.code(), Some(0), "{}", text_of(&v.stdout));
}

#[test]
fn forge_import_refuses_bevy_0_8_naming_its_era() {
    let dir = tempfile::tempdir().unwrap();
    era_file_into(dir.path(), "bevy-0.8.scn.ron");
    let o = forge(dir.path(), &["import", "bevy-0.8.scn.ron"]);
    let stderr = text_of(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: bevy-0.8.scn.ron:1:1: this is the scene format of Bevy 0.8"),
        "{stderr}"
    );
    assert!(o.stdout.is_empty());
}

/// A whole world as a Bevy 0.15 app dumps it, weak handles in both of 0.15's spellings
/// (`Weak(Index(..))`, `Weak(Uuid(..))`), in Bevy's components and the game's: it imports with
/// the game's schema file, each handle without a path listed with its entity and field, and
/// what it writes validates with the schemas.
#[test]
fn forge_import_schema_of_a_0_15_world_dump_with_weak_handles() {
    let dir = tempfile::tempdir().unwrap();
    fixture_into(dir.path(), "world-dump-0.15.scn.ron");
    fixture_into(dir.path(), "world-dump.forge-schema.ron");
    let o = forge(
        dir.path(),
        &[
            "import",
            "world-dump-0.15.scn.ron",
            "--schema",
            "world-dump.forge-schema.ron",
            "--out",
            "world.forge.ron",
        ],
    );
    let stderr = text_of(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.starts_with("note: read as written by Bevy 0.15\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("unknown variant"), "{stderr}");
    for (entity, component, field) in [
        ("entity 3 (`Hero`)", "game::Portrait", "image"),
        ("entity 3 (`Hero`)", "game::Skin", "texture"),
    ] {
        assert!(
            stderr.contains(&format!(
                "warning: {entity}: `{component}` left out: its field `{field}` is an asset handle, which a custom field cannot hold (and the file does not say its asset path)"
            )),
            "{stderr}"
        );
    }
    // A weak handle to no file on a built-in: the sprite is kept without its image.
    assert!(
        stderr.contains("`bevy_sprite::sprite::Sprite` became `sprite` without `image`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("imported world-dump-0.15.scn.ron -> world.forge.ron (6 entities"),
        "{stderr}"
    );
    let written = std::fs::read_to_string(dir.path().join("world.forge.ron")).unwrap();
    let doc = SceneDoc::from_str(&written).unwrap().doc;
    let entity = |name: &str| &doc.entities[&doc.find_by_name(name).next().unwrap()];
    let custom = |name: &str| -> Vec<String> {
        entity(name)
            .components
            .iter()
            .filter_map(|c| match c {
                ComponentData::Custom(c) => Some(c.type_path.to_string()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        custom("Hero"),
        ["game::Faction", "game::Health", "game::Tint"]
    );
    assert_eq!(custom("Crate"), ["game::Loot"]);
    // The text's default font (`Weak(Uuid(..))` of the default handle) is no loss: the text
    // and its size and colour are kept.
    let text = entity("Title")
        .components
        .iter()
        .find_map(|c| match c {
            ComponentData::Text2d(t) => Some(t),
            _ => None,
        })
        .unwrap();
    assert_eq!((text.text.as_str(), text.font_size), ("Forge", 32.0));
    assert_eq!((text.color.r, text.color.g, text.color.b), (0.9, 0.9, 0.2));
    assert!(
        written.contains("Color::hsla(200.0, 0.5, 0.25, 1.0)"),
        "{written}"
    );
    let v = forge(
        dir.path(),
        &[
            "validate",
            "--no-assets",
            "--schema",
            "world-dump.forge-schema.ron",
            "world.forge.ron",
        ],
    );
    assert_eq!(v.status.code(), Some(0), "{}", text_of(&v.stdout));
}
