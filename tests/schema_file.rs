//! `.forge-schema.ron` files: what `ForgeSchemas::export` writes and `SchemaFile::read` accepts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bevy_forge_scene::schema::FieldKind;
use bevy_forge_scene::schema_file::{SCHEMA_FORMAT, SchemaFile, SchemaFileError};

#[test]
fn export_writes_every_schema_and_reads_back_equal() {
    let schemas = common::game::schemas();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schemas/game.forge-schema.ron");
    schemas.export(&path).unwrap();
    let file = SchemaFile::read(&path).unwrap();
    assert_eq!(file, schemas.to_schema_file());
    assert_eq!(file.format, SCHEMA_FORMAT);
    let paths: Vec<&str> = file.type_paths().collect();
    assert_eq!(
        paths,
        [
            "forge_demo::Brain",
            "forge_demo::Health",
            "forge_demo::Orbit",
            "forge_demo::Route"
        ]
    );
    let route = file.get("forge_demo::Route").unwrap();
    let home = route.fields.iter().find(|f| f.name == "home").unwrap();
    let FieldKind::Struct { fields } = &home.kind else {
        panic!("{:?}", home.kind)
    };
    assert_eq!(fields[0].name, "at");
    assert_eq!(fields[0].kind, FieldKind::Vector { len: 3 });
}

#[test]
fn exported_text_is_readable_and_stable() {
    let file = common::game::schemas().to_schema_file();
    let text = file.to_ron_string().unwrap();
    assert!(
        text.starts_with("(\n    format: 1,\n    components: ["),
        "{text}"
    );
    for needle in [
        "type_path: \"forge_demo::Orbit\"",
        "kind: Float(bits: 32)",
        "range: Some((min: 0.0, max: 100.0, inclusive: true)),\n",
        "kind: Integer(signed: false, bits: 32),\n",
        "Struct(name: \"Patrol\", fields: [(name: \"speed\", type_name: \"f32\", kind: Float(bits: 32))])",
        "skipped: [\n",
    ] {
        assert!(text.contains(needle), "{needle:?} in\n{text}");
    }
    assert!(!text.contains('\r'));
    assert_eq!(SchemaFile::from_ron_str(&text).unwrap(), file);
    assert_eq!(file.to_ron_string().unwrap(), text);
}

#[test]
fn optional_fields_may_be_left_out_of_a_hand_written_file() {
    let file = SchemaFile::from_ron_str(
        r#"(format: 1, components: [(type_path: "game::Hp", type_name: "Hp",
            fields: [(name: "0", type_name: "u32", kind: Integer(signed: false, bits: 32))])])"#,
    )
    .unwrap();
    let hp = &file.get("game::Hp").unwrap().fields[0];
    assert!(!hp.required);
    assert_eq!(
        (hp.default.as_ref(), hp.range, hp.docs.as_str()),
        (None, None, "")
    );
}

fn parse_error(text: &str) -> (usize, usize, String) {
    match SchemaFile::from_ron_str(text) {
        Err(SchemaFileError::Parse {
            line,
            column,
            message,
            file: None,
        }) => (line, column, message),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_files_are_refused_with_line_and_column() {
    // A misspelt field on line 3.
    let (line, column, message) = parse_error("(\n    format: 1,\n    componets: [],\n)");
    assert_eq!((line, column), (3, 5), "{message}");
    assert!(message.contains("componets"), "{message}");
    // A kind that does not exist.
    let (line, _, message) = parse_error(
        "(format: 1, components: [\n  (type_path: \"a::B\", type_name: \"B\", fields: [\n    (name: \"x\", type_name: \"f32\", kind: Floot(bits: 32)),\n  ]),\n])",
    );
    assert_eq!(line, 3, "{message}");
    assert!(message.contains("Floot"), "{message}");
    // Truncated text.
    let (line, _, message) = parse_error("(format: 1, components: [");
    assert_eq!(line, 1, "{message}");
    // Not a schema at all: a scene file.
    let (_, _, message) = parse_error(&common::fixture_text("valid/platformer.forge.ron"));
    assert!(message.contains("format_version"), "{message}");
}

#[test]
fn other_format_versions_are_refused_as_such() {
    // A newer file may have fields this version does not know: the version is what is wrong.
    let e = SchemaFile::from_ron_str("(format: 2, components: [], generics: [])").unwrap_err();
    assert!(
        matches!(e, SchemaFileError::Format { found: 2, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("format 2 is not supported"), "{e}");
}

#[test]
fn read_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.forge-schema.ron");
    std::fs::write(&path, "(format: 1,\n components: [\n  oops\n])").unwrap();
    let e = SchemaFile::read(&path).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("{}:3:", path.display())),
        "{text}"
    );
    let missing = SchemaFile::read(dir.path().join("missing.forge-schema.ron")).unwrap_err();
    assert!(matches!(missing, SchemaFileError::Io { .. }), "{missing:?}");
}
