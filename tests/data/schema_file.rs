//! `.forge-schema.ron` files: what `ForgeSchemas::export` writes and `SchemaFile::read` accepts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_forge_scene::schema::FieldKind;
use bevy_forge_scene::schema::{SCHEMA_FORMAT, SchemaFile, SchemaFileError};

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

mod deep {
    //! Recursive and deeply nested types: their schemas are as deep as the exporter describes.
    use bevy_ecs::component::Component;
    use bevy_ecs::reflect::ReflectComponent;
    use bevy_forge_scene::ForgeComponent;
    use bevy_reflect::Reflect;
    use bevy_reflect::std_traits::ReflectDefault;

    #[derive(Reflect, Default, Clone, Debug, PartialEq)]
    #[reflect(Default, no_field_bounds)]
    pub enum Tree {
        #[default]
        Leaf,
        Node(Vec<Tree>),
    }

    /// The deepest text per level: a struct variant holding a list of itself.
    #[derive(Reflect, Default, Clone, Debug, PartialEq)]
    #[reflect(Default, no_field_bounds)]
    pub enum Branch {
        #[default]
        Leaf,
        Node {
            kids: Vec<Branch>,
            tag: Option<Vec<Branch>>,
        },
    }

    /// Enums of struct variants, each holding the next: the most text per level the exporter
    /// writes (`Enum(variants: [Struct(name: .., fields: [(name: .., kind: ..`).
    macro_rules! chain {
        ($last:ident) => {
            #[derive(Reflect, Default, Clone, Debug, PartialEq)]
            pub enum $last { #[default] Leaf, Node { x: f32 } }
        };
        ($name:ident -> $next:ident $(-> $rest:ident)*) => {
            #[derive(Reflect, Default, Clone, Debug, PartialEq)]
            pub enum $name { #[default] Leaf, Node { next: $next } }
            chain!($next $(-> $rest)*);
        };
    }
    chain!(S1 -> S2 -> S3 -> S4 -> S5 -> S6 -> S7 -> S8 -> S9 -> S10 -> S11 -> S12 -> S13 -> S14
        -> S15 -> S16 -> S17 -> S18 -> S19 -> S20);

    /// No value can exist: exported as `Other` (a file may not say `Enum(variants: [])`).
    #[derive(Reflect, Clone, Debug, PartialEq)]
    pub enum Never {}

    #[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
    #[reflect(Component, Default)]
    #[forge(type_path = "deep::Forest")]
    pub struct Forest {
        pub tree: Tree,
        pub branch: Branch,
        pub chain: S1,
        pub none: Vec<Never>,
    }
}

/// The deepest bracket nesting of `text` (strings ignored).
fn bracket_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for c in text.chars() {
        match (in_string, c) {
            (true, '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (true, '"') if !escaped => in_string = false,
            (false, '"') => in_string = true,
            (false, '(' | '[' | '{') => {
                depth += 1;
                max = max.max(depth);
            }
            (false, ')' | ']' | '}') => depth -= 1,
            _ => {}
        }
        escaped = false;
    }
    max
}

#[test]
fn recursive_and_deeply_nested_schemas_read_back_equal() {
    let schemas = bevy_forge_scene::ForgeSchemas::default();
    schemas.insert::<deep::Forest>();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.forge-schema.ron");
    schemas.export(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let depth = bracket_depth(&text);
    // The deepest the exporter writes: 5 levels for the file and 5 for each of 17 kinds.
    assert_eq!(depth, 90);
    assert!(depth <= bevy_forge_scene::schema::MAX_FILE_DEPTH);
    let read = SchemaFile::read(&path).unwrap();
    assert_eq!(read, schemas.to_schema_file());
    let none = read.get("deep::Forest").unwrap().field("none").unwrap();
    assert_eq!(
        none.kind,
        FieldKind::List(Box::new(bevy_forge_scene::schema::TypeSchema {
            type_name: "Never".into(),
            kind: FieldKind::Other
        }))
    );
}

/// Runs `f` on a thread with a `kib` KiB stack; a stack overflow would abort the whole test
/// process, so finishing proves the reader is bounded.
fn on_stack<T: Send + 'static>(kib: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(kib * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn hostile_nesting_is_refused_before_ron_reads_it() {
    let n = 100_000;
    let head = "(format: 1, components: [(type_path: \"a::B\", type_name: \"B\", fields: [\n(name: \"x\", type_name: \"x\", kind: ";
    let files = [
        format!("{}{}", "[".repeat(n), "]".repeat(n)),
        format!("(format: 1, components: {})", "(".repeat(n)),
        // The version is read first, skipping the rest: that is bounded too.
        format!("(format: 2, components: {})", "[".repeat(n)),
        format!("{head}{}Bool", "Option((type_name: \"x\", kind: ".repeat(n)),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.forge-schema.ron");
    std::fs::write(&path, &files[3]).unwrap();
    on_stack(256, move || {
        let expected = "the schema file is nested too deeply (more than 128 levels)";
        for text in &files {
            match SchemaFile::from_ron_str(text) {
                Err(SchemaFileError::Parse { message, line, .. }) => {
                    assert_eq!(message, expected);
                    assert!(line <= 2);
                }
                other => panic!("{other:?}"),
            }
        }
        // The 129th bracket, on line 2, named with the file.
        let e = SchemaFile::read(&path).unwrap_err().to_string();
        let column = 1
            + "(name: \"x\", type_name: \"x\", kind: ".len()
            + 61 * "Option((type_name: \"x\", kind: ".len()
            + "Option(".len();
        assert_eq!(e, format!("{}:2:{column}: {expected}", path.display()));
    });
    // Brackets inside strings and comments do not count.
    let brackets = "([{".repeat(100);
    let text = format!(
        "// {brackets}\n/* {brackets} /* nested */ {brackets} */ (format: 1, components: [(type_path: \"a::B\", type_name: r#\"\"{brackets}\"#, docs: \"\\\"{brackets}\", fields: [])])"
    );
    let file = SchemaFile::from_ron_str(&text).unwrap();
    assert_eq!(file.components[0].type_name, format!("\"{brackets}"));
}

/// A one-component file whose fields are `fields` and skipped fields `skipped`.
fn file_with(type_path: &str, fields: &str, skipped: &str) -> String {
    format!(
        "(format: 1, components: [(type_path: \"{type_path}\", type_name: \"B\", fields: [{fields}], skipped: [{skipped}])])"
    )
}

fn invalid(text: &str) -> (String, String) {
    match SchemaFile::from_ron_str(text) {
        Err(SchemaFileError::Invalid {
            type_path,
            message,
            file: None,
        }) => (type_path, message),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn files_that_read_but_make_no_sense_are_refused_naming_the_type_and_field() {
    let x = r#"(name: "x", type_name: "f32", kind: Float(bits: 32))"#;
    let of_kind = |kind: &str| format!(r#"(name: "x", type_name: "T", kind: {kind})"#);
    let cases = [
        (
            "(format: 1, components: [(type_path: \"a::B\", type_name: \"B\", fields: []), (type_path: \"a::B\", type_name: \"B\", fields: [])])"
                .to_string(),
            "a::B",
            "it is described twice",
        ),
        (
            file_with("a::B", &format!("{x}, {x}"), ""),
            "a::B",
            "field `x` is listed twice",
        ),
        (
            file_with("a::B", r#"(name: "", type_name: "f32", kind: Bool)"#, ""),
            "a::B",
            "a field has an empty name",
        ),
        (
            file_with("a::B", x, "\"x\""),
            "a::B",
            "field `x` is both in `fields` and in `skipped`",
        ),
        (
            file_with("a b::C", x, ""),
            "a b::C",
            "the type path is not a Rust type path like `my_game::Orbit`",
        ),
        (
            file_with("", x, ""),
            "",
            "the type path is not a Rust type path like `my_game::Orbit`",
        ),
        (
            file_with("a::::B", x, ""),
            "a::::B",
            "the type path is not a Rust type path like `my_game::Orbit`",
        ),
        (
            file_with(
                "a::B",
                r#"(name: "x", type_name: "f32", kind: Float(bits: 32), range: Some((min: 5.0, max: 1.0, inclusive: true)))"#,
                "",
            ),
            "a::B",
            "field `x`: the range `5..=1` is empty (min > max)",
        ),
        (
            file_with(
                "a::B",
                r#"(name: "x", type_name: "f32", kind: Float(bits: 32), range: Some((min: NaN, max: 1.0, inclusive: true)))"#,
                "",
            ),
            "a::B",
            "field `x`: a range bound is NaN",
        ),
        (
            file_with(
                "a::B",
                r#"(name: "x", type_name: "String", kind: String, range: Some((min: 0.0, max: 1.0, inclusive: true)))"#,
                "",
            ),
            "a::B",
            "field `x` has a range but is not a number (`String`)",
        ),
        (
            file_with("a::B", &of_kind("Vector(len: 5)"), ""),
            "a::B",
            "field `x`: `Vector(len: 5)` is not a vector length (2, 3 or 4)",
        ),
        (
            file_with("a::B", &of_kind("Vector(len: 1)"), ""),
            "a::B",
            "field `x`: `Vector(len: 1)` is not a vector length (2, 3 or 4)",
        ),
        (
            file_with("a::B", &of_kind("Integer(signed: true, bits: 7)"), ""),
            "a::B",
            "field `x`: `Integer(bits: 7)` is not an integer width (8, 16, 32, 64 or 128)",
        ),
        (
            file_with("a::B", &of_kind("Float(bits: 16)"), ""),
            "a::B",
            "field `x`: `Float(bits: 16)` is not a float width (32 or 64)",
        ),
        (
            file_with("a::B", &of_kind("Enum(variants: [])"), ""),
            "a::B",
            "field `x`: `Enum(variants: [])` has no variants",
        ),
        // Nested parts are checked too.
        (
            file_with(
                "a::B",
                &of_kind(
                    r#"List((type_name: "T", kind: Option((type_name: "V", kind: Vector(len: 9)))))"#,
                ),
                "",
            ),
            "a::B",
            "field `x`: `Vector(len: 9)` is not a vector length (2, 3 or 4)",
        ),
        (
            file_with(
                "a::B",
                &of_kind(r#"Enum(variants: [Unit(name: "A"), Struct(name: "A", fields: [])])"#),
                "",
            ),
            "a::B",
            "field `x`: variant `A` is listed twice",
        ),
        (
            file_with(
                "a::B",
                &of_kind(
                    r#"Struct(fields: [(name: "y", type_name: "u8", kind: Bool), (name: "y", type_name: "u8", kind: Bool)])"#,
                ),
                "",
            ),
            "a::B",
            "field `x`: nested field `y` is listed twice",
        ),
    ];
    for (text, type_path, message) in cases {
        assert_eq!(invalid(&text), (type_path.into(), message.into()), "{text}");
    }
    // Generic type paths (generic types registered by hand) and raw identifiers are fine.
    for ok in ["game::Timer<game::Fast>", "r#type::B", "größe::Maß", "B"] {
        SchemaFile::from_ron_str(&file_with(ok, x, "")).unwrap();
    }
}

#[test]
fn invalid_files_are_named_in_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.forge-schema.ron");
    let x = r#"(name: "x", type_name: "f32", kind: Float(bits: 32))"#;
    std::fs::write(&path, file_with("a::B", &format!("{x}, {x}"), "")).unwrap();
    assert_eq!(
        SchemaFile::read(&path).unwrap_err().to_string(),
        format!(
            "{}: the schema of `a::B`: field `x` is listed twice",
            path.display()
        )
    );
}

/// The schema file is replaced atomically but keeps its permissions; a new one is 0644 (the
/// temporary file would be 0600).
#[cfg(unix)]
#[test]
fn export_keeps_the_file_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let schemas = common::game::schemas();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.forge-schema.ron");
    schemas.export(&path).unwrap();
    assert_eq!(mode(&path), 0o644);
    for kept in [0o664, 0o640] {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(kept)).unwrap();
        schemas.export(&path).unwrap();
        assert_eq!(mode(&path), kept, "{kept:o}");
    }
}
