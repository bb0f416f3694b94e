//! Reading `.forge.ron` text: what people write by hand is accepted, and every refusal names its
//! line, column, entity and field.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_forge_scene::format::*;
use common::{fixture, fixture_text};

/// 1-based (line, column) of the first occurrence of `needle` in `text`, counting characters.
fn at(text: &str, needle: &str) -> (u32, u32) {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in text"));
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() as u32 + 1)
}

fn read(text: &str) -> ParsedScene {
    SceneDoc::from_str(text).unwrap_or_else(|e| panic!("should read: {e}"))
}

fn refuse(text: &str) -> ReadError {
    match SceneDoc::from_str(text) {
        Ok(_) => panic!("should refuse:\n{text}"),
        Err(e) => e,
    }
}

fn pos(e: &ReadError) -> (u32, u32) {
    (e.line(), e.column())
}

/// A one-entity scene with `entity` as the body of entity 1.
fn scene_with(entity: &str) -> String {
    format!(
        "(\n  format_version: 1,\n  name: \"T\",\n  entities: {{\n    1: ({entity}),\n  }},\n  roots: [1],\n  next_id: 2,\n)\n"
    )
}

const PLAIN: &str = "id: 1, name: \"A\", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []";

fn with_components(components: &str) -> String {
    scene_with(&PLAIN.replace("components: []", &format!("components: [{components}]")))
}

#[test]
fn reads_the_garden_seed() {
    let parsed = read(&fixture_text("valid/garden.forge.ron"));
    let doc = &parsed.doc;
    assert_eq!(doc.name, "Garden");
    assert_eq!(doc.roots, vec![1, 2]);
    assert_eq!(doc.next_id, 3);
    let sun = doc.entity(1).unwrap();
    assert_eq!(sun.transform.rotation, Vec3Data::new(45.0, 30.0, 0.0));
    match &sun.components[0] {
        ComponentData::DirectionalLight(l) => {
            assert_eq!(l.illuminance, 10000.0);
            assert_eq!(l.color, ColorData::rgba(1.0, 0.95, 0.85, 1.0));
            assert!(l.shadows);
        }
        other => panic!("expected a directional light, got {other:?}"),
    }
    let ground = doc.entity(2).unwrap();
    match &ground.components[0] {
        ComponentData::Mesh3d(m) => {
            assert_eq!(
                m.mesh,
                MeshSource::Primitive(PrimitiveShape::Cuboid {
                    size: Vec3Data::new(12.0, 0.2, 12.0)
                })
            );
            assert_eq!(m.material.perceptual_roughness, 0.9);
        }
        other => panic!("expected a mesh, got {other:?}"),
    }
    assert!(parsed.warnings.is_empty());
}

#[test]
fn reads_the_platformer_seed() {
    let doc = read(&fixture_text("valid/platformer.forge.ron")).doc;
    assert_eq!(
        doc.entities.keys().copied().collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    let player = doc.entity(2).unwrap();
    assert_eq!(player.children, vec![3]);
    assert_eq!(player.components.len(), 3);
    assert_eq!(
        player.components[1],
        ComponentData::Visibility(VisibilityMode::Visible)
    );
    match &player.components[2] {
        ComponentData::Custom(c) => {
            assert_eq!(c.type_path, "forge_demo::Orbit");
            assert_eq!(
                c.fields,
                vec![
                    CustomField::new("radius", "2.0"),
                    CustomField::new("speed", "-0.5")
                ]
            );
        }
        other => panic!("expected a custom component, got {other:?}"),
    }
    assert_eq!(player.components[2].key(), "custom:forge_demo::Orbit");
    assert_eq!(doc.entity(3).unwrap().parent, Some(2));
    assert_eq!(
        doc.entity(1).unwrap().components,
        vec![ComponentData::Camera2d]
    );
}

#[test]
fn source_map_points_at_entities_fields_components_and_custom_fields() {
    let text = fixture_text("valid/platformer.forge.ron");
    let parsed = read(&text);
    let map = &parsed.source_map;
    let p = |pos: Option<Position>| pos.map(|p| (p.line, p.column)).expect("position recorded");
    assert_eq!(p(map.entity(2)), at(&text, "2: ("));
    assert_eq!(p(map.entity_field(2, "name")), at(&text, "\"Player\""));
    assert_eq!(p(map.entity_field(3, "parent")), at(&text, "Some(2)"));
    assert_eq!(
        p(map.entity_field(2, "transform.translation")),
        at(&text, "(x: 0.0, y: 1.0")
    );
    let translation_y = at(&text, "(x: 0.0, y: 1.0");
    assert_eq!(
        p(map.entity_field(2, "transform.translation.y")),
        (translation_y.0, translation_y.1 + 12)
    );
    assert_eq!(p(map.component_tag(2, 0)), at(&text, "sprite,"));
    assert_eq!(
        p(map.component_field(2, 0, "custom_size")),
        at(&text, "Some((x: 32.0")
    );
    assert_eq!(p(map.component_field(3, 0, "font_size")), at(&text, "24.0"));
    assert_eq!(p(map.custom_field(2, 2, 1)), at(&text, "(name: \"speed\""));
    assert_eq!(p(map.custom_field_expr(2, 2, 1)), at(&text, "\"-0.5\""));
    assert_eq!(p(map.top_field("next_id")), at(&text, "4,\n)"));
    assert_eq!(map.entity(99), None);
    assert_eq!(map.entity_field(1, "locked"), map.entity_field(1, "locked"));
    assert_eq!(map.component(2, 7), None);
}

#[test]
fn accepts_comments_crlf_bom_and_compact_entries() {
    let canonical = read(&fixture_text("valid/platformer.forge.ron")).doc;
    let text = fixture_text("valid/platformer.forge.ron");
    let commented = text
        .replace(
            "  name: \"Platformer\",",
            "  // the scene's name\n  name: /* inline */ \"Platformer\",",
        )
        .replace("  roots:", "  /* nested /* block */ comment */\n  roots:");
    assert_eq!(read(&commented).doc, canonical);
    let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
    assert_eq!(read(&crlf).doc, canonical);
    let one_line: String = text.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    assert_eq!(read(&one_line).doc, canonical);
    let no_trailing = text
        .replace(",\n      ],", "\n      ],")
        .replace(",\n)", "\n)");
    assert_eq!(read(&no_trailing).doc, canonical);
}

#[test]
fn accepts_integers_escapes_raw_strings_and_missing_locked() {
    let text = scene_with(
        r##"id: 1, name: r#"say "hi""#, parent: None, children: [], transform: (translation: (x: 1, y: -2, z: 3e2), rotation: (x: 0, y: 1_000.5, z: +4.0), scale: (x: 1, y: 1, z: 1)), components: [(type: text2d, data: (text: "tab\there\nquote\" \\ \u{1F4A1} \x41 \0 \'", font_size: 12, color: (r: 1, g: 1, b: 1, a: 1)))]"##,
    );
    let doc = read(&text).doc;
    let e = doc.entity(1).unwrap();
    assert_eq!(e.name, "say \"hi\"");
    assert!(!e.locked);
    assert_eq!(e.transform.translation, Vec3Data::new(1.0, -2.0, 300.0));
    assert_eq!(e.transform.rotation, Vec3Data::new(0.0, 1000.5, 4.0));
    match &e.components[0] {
        ComponentData::Text2d(t) => {
            assert_eq!(t.text, "tab\there\nquote\" \\ 💡 A \0 '");
            assert_eq!(t.font_size, 12.0);
        }
        other => panic!("expected text, got {other:?}"),
    }
}

#[test]
fn accepts_fields_in_any_order_and_data_before_type() {
    let text = with_components(
        "(data: (mesh: (value: sphere(radius: 2), source: primitive), material: (unlit: true, base_color: (a: 1, b: 0, g: 0, r: 1), metallic: 0, perceptual_roughness: 1)), type: mesh3d), (data: hidden, type: visibility), (type: camera3d, data: ())",
    );
    let doc = read(&text).doc;
    let comps = &doc.entity(1).unwrap().components;
    assert_eq!(
        comps[0],
        ComponentData::Mesh3d(Box::new(Mesh3dData {
            mesh: MeshSource::Primitive(PrimitiveShape::Sphere { radius: 2.0 }),
            material: MaterialData {
                base_color: ColorData::rgba(1.0, 0.0, 0.0, 1.0),
                metallic: 0.0,
                perceptual_roughness: 1.0,
                unlit: true
            },
        }))
    );
    assert_eq!(comps[1], ComponentData::Visibility(VisibilityMode::Hidden));
    assert_eq!(comps[2], ComponentData::Camera3d);
}

#[test]
fn format_version_zero_is_read_as_one_with_a_warning() {
    let text =
        fixture_text("valid/garden.forge.ron").replace("format_version: 1", "format_version: 0");
    let parsed = read(&text);
    assert_eq!(parsed.doc.format_version, 1);
    assert_eq!(parsed.warnings.len(), 1);
    assert_eq!(parsed.warnings[0].kind, ReadWarningKind::FormatVersionZero);
    assert_eq!(
        (
            parsed.warnings[0].position.line,
            parsed.warnings[0].position.column
        ),
        at(&text, "0,")
    );
    assert!(
        parsed
            .doc
            .to_canonical_string()
            .contains("format_version: 1,")
    );
}

#[test]
fn refuses_a_repeated_entity_key() {
    let text = "(format_version: 1, name: \"\", entities: {\n  1: (id: 1, name: \"a\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: []),\n  1: (id: 1, name: \"b\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: []),\n}, roots: [1], next_id: 2)";
    let e = refuse(text);
    assert_eq!(
        e.kind(),
        &ReadErrorKind::DuplicateEntityKey {
            id: 1,
            first_line: 2
        }
    );
    assert_eq!(pos(&e), (3, 3));
    assert!(e.to_string().contains("entity key 1 appears twice"), "{e}");
}

#[test]
fn refuses_an_unknown_field_with_a_suggestion() {
    let text = scene_with(&PLAIN.replace("children:", "childen:"));
    let e = refuse(&text);
    assert_eq!(pos(&e), at(&text, "childen"));
    assert_eq!(e.entity(), Some(1));
    match e.kind() {
        ReadErrorKind::UnknownField {
            field, suggestion, ..
        } => {
            assert_eq!(field, "childen");
            assert_eq!(*suggestion, Some("children"));
        }
        other => panic!("{other:?}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("did you mean `children`?"), "{msg}");
    assert!(
        msg.starts_with(&format!("{}:{}:", e.line(), e.column())),
        "{msg}"
    );
}

#[test]
fn refuses_a_tag_written_as_a_string() {
    let text = with_components("(type: \"sprite\", data: (image: None))");
    let e = refuse(&text);
    assert_eq!(pos(&e), at(&text, "\"sprite\""));
    assert_eq!(
        e.kind(),
        &ReadErrorKind::TagAsString {
            field: "type",
            tag: "sprite".into()
        }
    );
    assert_eq!(e.field(), Some("components[0].type"));
    assert!(e.to_string().contains("bare identifiers"), "{e}");
    let text = with_components("(type: visibility, data: \"hidden\")");
    assert!(matches!(
        refuse(&text).kind(),
        ReadErrorKind::TagAsString { field: "data", .. }
    ));
}

#[test]
fn refuses_unknown_tags_and_shapes_listing_the_known_ones() {
    let text = with_components("(type: sprit, data: ())");
    let e = refuse(&text);
    assert_eq!(pos(&e), at(&text, "sprit,"));
    let msg = e.to_string();
    for tag in COMPONENT_TAGS {
        assert!(msg.contains(&format!("`{tag}`")), "{msg} lists {tag}");
    }
    assert!(msg.contains("did you mean `sprite`?"), "{msg}");

    let text = with_components(
        "(type: mesh3d, data: (mesh: (source: primitive, value: cube(size: (x: 1, y: 1, z: 1))), material: (base_color: (r: 1, g: 1, b: 1, a: 1), metallic: 0, perceptual_roughness: 0.5, unlit: false)))",
    );
    let e = refuse(&text);
    assert_eq!(pos(&e), at(&text, "cube"));
    assert_eq!(e.field(), Some("components[0].data.mesh.value"));
    let msg = e.to_string();
    for shape in PRIMITIVE_SHAPES {
        assert!(msg.contains(&format!("`{shape}`")), "{msg} lists {shape}");
    }
}

#[test]
fn refuses_a_newer_format_version() {
    let text =
        fixture_text("valid/garden.forge.ron").replace("format_version: 1", "format_version: 2");
    let e = refuse(&text);
    assert_eq!(
        e.kind(),
        &ReadErrorKind::UnsupportedFormatVersion { found: 2 }
    );
    assert_eq!(pos(&e), at(&text, "2,"));
    assert!(e.to_string().contains("this build reads format 1"));
}

#[test]
fn refuses_truncated_input_at_its_end() {
    let text = fixture_text("valid/platformer.forge.ron");
    for cut in [
        0,
        1,
        10,
        text.len() / 3,
        text.len() / 2,
        text.len() - 3,
        text.len() - 2,
    ] {
        let truncated = &text[..cut];
        let e = refuse(truncated);
        let end = {
            let trimmed = truncated;
            let line = trimmed.matches('\n').count() as u32 + 1;
            let col = trimmed[trimmed.rfind('\n').map_or(0, |i| i + 1)..]
                .chars()
                .count() as u32
                + 1;
            (line, col)
        };
        assert!(
            matches!(
                e.kind(),
                ReadErrorKind::UnexpectedEnd { .. } | ReadErrorKind::UnterminatedString
            ),
            "cut {cut}: {e}"
        );
        if matches!(e.kind(), ReadErrorKind::UnexpectedEnd { .. }) {
            assert_eq!(pos(&e), end, "cut {cut}: {e}");
        }
    }
}

#[test]
fn refuses_invalid_utf8_at_the_first_bad_byte() {
    let mut bytes = fixture_text("valid/garden.forge.ron").into_bytes();
    let at_name = bytes.windows(6).position(|w| w == b"Garden").unwrap();
    bytes[at_name + 2] = 0xff;
    let e = SceneDoc::from_slice(&bytes).unwrap_err();
    assert_eq!(e.kind(), &ReadErrorKind::InvalidUtf8);
    assert_eq!(pos(&e), (3, 12));
}

#[test]
fn refuses_syntax_errors_with_what_was_expected() {
    let cases: &[(&str, &str, &str)] = &[
        ("name: \"A\"", "name \"A\"", "expected `:`"),
        (
            "parent: None, children",
            "parent: None children",
            "expected `,` or `)`",
        ),
        ("parent: None", "parent: 7", "expected `None` or `Some(..)`"),
        ("children: []", "children: [1, x]", "expected an entity id"),
        (
            "x: 1.0, y: 1.0, z: 1.0",
            "x: 1.0, y: true, z: 1.0",
            "expected a number, found `true`",
        ),
        ("name: \"A\"", "name: A", "expected a string, found `A`"),
        ("id: 1", "id: 1.5", "expected an entity id"),
        ("id: 1", "id: -1", "expected an entity id"),
        (
            "id: 1",
            "id: 99999999999999999999999",
            "does not fit in u64",
        ),
        ("name: \"A\"", "name: \"\\q\"", "invalid escape"),
        (
            "name: \"A\"",
            "name: \"A\", name: \"B\"",
            "field `name` appears twice",
        ),
        ("id: 1, ", "", "missing field `id` in entity"),
        (
            "x: 1.0, y: 1.0, z: 1.0",
            "x: 1.0, y: 1e, z: 1.0",
            "invalid number `1e`",
        ),
    ];
    for (from, to, message) in cases {
        let text = scene_with(&PLAIN.replacen(from, to, 1));
        let e = refuse(&text);
        let msg = e.to_string();
        assert!(msg.contains(message), "`{to}`: {msg}");
        assert_eq!(e.line(), 5, "`{to}`: {msg}");
        assert!(e.column() > 4, "`{to}`: {msg}");
        assert_eq!(e.entity(), Some(1), "`{to}`: {msg}");
    }
}

#[test]
fn refuses_trailing_text_and_unterminated_comments() {
    let text = format!("{})", fixture_text("valid/garden.forge.ron"));
    let e = refuse(&text);
    assert!(
        matches!(e.kind(), ReadErrorKind::TrailingCharacters { .. }),
        "{e}"
    );
    let text = format!("/* open\n{}", fixture_text("valid/garden.forge.ron"));
    assert_eq!(refuse(&text).kind(), &ReadErrorKind::UnterminatedComment);
}

#[test]
fn unit_components_refuse_data() {
    let text = with_components("(type: camera2d, data: (fov: 1.0))");
    let e = refuse(&text);
    assert_eq!(e.kind(), &ReadErrorKind::UnexpectedData { tag: "camera2d" });
}

#[test]
fn read_names_the_file_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.forge.ron");
    std::fs::write(&path, scene_with(&PLAIN.replace("children:", "childen:"))).unwrap();
    let e = SceneDoc::read(&path).unwrap_err();
    assert_eq!(e.path(), Some(path.as_path()));
    assert!(
        e.to_string().starts_with(&format!("{}:5:", path.display())),
        "{e}"
    );
    let missing = SceneDoc::read(dir.path().join("none.forge.ron")).unwrap_err();
    assert!(matches!(missing.kind(), ReadErrorKind::Io(_)));
    assert!(SceneDoc::read(fixture("valid/garden.forge.ron")).is_ok());
}

/// Lines are counted while parsing, so every way a newline can appear must be seen once: in
/// whitespace, line and nested block comments, quoted and raw strings (also after an escape),
/// and inside a `data` read twice because it came before `type`.
#[test]
fn positions_after_newlines_in_strings_comments_and_reread_data() {
    let text = "(\r\n  // a line comment\n  format_version: 1, /* a block\n /* nested\n */ comment */\n  name: \"two\nlines \\\" and\n escapes\",\n  entities: {\n    1: (id: 1, name: r#\"raw\n\"string\"#, parent: None, children: [],\n      transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),\n      components: [(data: (\n  type_path: \"g::Tag\",\n  fields: [(name: \"label\", expr: \"\\\"multi\nline\\\"\")],\n), type: custom), (type: visibility, data: hidden)],\n      locked: false),\n  },\n  roots: [1],\n  next_id: 2,\n)\n";
    let parsed = read(text);
    let map = &parsed.source_map;
    let check = |found: Option<Position>, needle: &str| {
        let p = found.unwrap_or_else(|| panic!("no position for `{needle}`"));
        assert_eq!((p.line, p.column), at(text, needle), "`{needle}`");
    };
    check(map.top_field("name"), "\"two");
    check(map.entity_field(1, "name"), "r#\"raw");
    check(map.entity_field(1, "locked"), "false)");
    check(map.component_tag(1, 0), "custom)");
    check(map.component_field(1, 0, "type_path"), "\"g::Tag\"");
    check(map.custom_field_expr(1, 0, 0), "\"\\\"multi");
    check(map.component_tag(1, 1), "visibility");
    check(map.top_field("roots"), "[1]");
    check(map.top_field("next_id"), "2,\n)");
}

/// Scenes with every kind of entry: built-ins, custom components with escapes, instances with
/// overrides, non-ASCII names, comments and CRLF.
fn edit_corpus() -> Vec<String> {
    let mut texts = Vec::new();
    for dir in ["tests/fixtures/valid", "assets/scenes", "assets/prefabs"] {
        let mut paths: Vec<_> = std::fs::read_dir(common::repo().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".forge.ron"))
            .collect();
        paths.sort();
        texts.extend(paths.iter().map(|p| std::fs::read_to_string(p).unwrap()));
    }
    let first = texts[0].clone();
    texts.push(
        first
            .replacen("name: \"", "name: \"Zoë \\\"🌲\\\" ", 2)
            .replacen("    ", "    /* a comment, é */ ", 3)
            .replace('\n', "\r\n"),
    );
    texts
}

/// Applies `edits` (offset in the entry, kind, byte, length) to entry `which` of `text` one at a
/// time, re-reading after each; each re-read that is taken must equal reading the whole text.
fn check_rereads(text: &str, which: usize, edits: &[(usize, u8, usize, usize)]) -> usize {
    const BYTES: &[&str] = &[
        "0", "7", "9", ".", "-", "e", "x", " ", "\n", "\"", "\\", ",", "(", ")", "[", "]", ":",
        "#", "/*", "*/", "//", "é", "Some(", "None", "true",
    ];
    let mut text = text.to_owned();
    let mut parsed = read(&text);
    let mut taken = 0;
    for &(at, kind, b, n) in edits {
        let ids: Vec<u64> = parsed.doc.entities.keys().copied().collect();
        let id = ids[which % ids.len()];
        let entry = parsed.source_map.entity_span(id).unwrap();
        let len = (entry.end - entry.start) as usize;
        let start = entry.start as usize + at % (len + 1);
        let (old_end, inserted) = match kind % 3 {
            0 => (start, BYTES[b % BYTES.len()].to_owned()),
            1 => ((start + n).min(entry.end as usize), String::new()),
            _ => (
                (start + 1).min(entry.end as usize),
                BYTES[b % BYTES.len()].to_owned(),
            ),
        };
        if !text.is_char_boundary(start) || !text.is_char_boundary(old_end) {
            continue;
        }
        let mut edited = text.clone();
        edited.replace_range(start..old_end, &inserted);
        let before = parsed.clone();
        let whole = SceneDoc::from_str(&edited);
        if parsed.reread_edit(&edited, start..old_end, inserted.len()) {
            taken += 1;
            let whole = whole.unwrap_or_else(|e| panic!("re-read a text that does not read: {e}"));
            assert_eq!(parsed, whole, "edit at {start}..{old_end} to {inserted:?}");
            text = edited;
        } else {
            assert_eq!(parsed, before, "a refused re-read changed the scene");
            // A text that does not read drops the edit: the next starts from the last good text.
            if let Ok(whole) = whole {
                parsed = whole;
                text = edited;
            }
        }
    }
    taken
}

#[test]
fn an_edit_inside_an_entry_is_read_again_alone() {
    for text in edit_corpus() {
        let parsed = read(&text);
        for (i, (&id, node)) in parsed.doc.entities.iter().enumerate() {
            let entry = parsed.source_map.entity_span(id).unwrap();
            let at = parsed.source_map.entity_field_span(id, "name").unwrap();
            // Renaming the entity: taken, and the same as reading the whole text.
            let name = format!("{:?}", format!("{} é2", node.name));
            let mut edited = text.clone();
            edited.replace_range(at.range().unwrap(), &name);
            let mut again = parsed.clone();
            let new_len = name.len();
            assert!(
                again.reread_edit(&edited, at.range().unwrap(), new_len),
                "entity {id}"
            );
            assert_eq!(again, read(&edited), "entity {id}");
            // An edit that breaks the entry, or reaches past it, is refused and changes nothing.
            let mut broken = text.clone();
            broken.insert(entry.end as usize - 1, ',');
            broken.insert(entry.end as usize - 1, '}');
            let mut again = parsed.clone();
            assert!(!again.reread_edit(&broken, entry.end as usize - 1..entry.end as usize - 1, 2));
            assert_eq!(again, parsed);
            let mut again = parsed.clone();
            let past = entry.end as usize + 1;
            assert!(!again.reread_edit(
                &text,
                entry.start as usize..past,
                past - entry.start as usize
            ));
            // Typing digits and spaces in each entry in turn: every keystroke is taken.
            let typed: Vec<(usize, u8, usize, usize)> =
                (0..8).map(|k| (37 * k, 0, k % 2 * 7, 1)).collect();
            let before = check_rereads(&text, i, &typed);
            assert!(before > 0, "entity {id}: no edit was re-read alone");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any sequence of edits inside entries: each re-read taken gives exactly the whole read
    /// of the edited text (document, every span, lines, characters), and a refused one changes
    /// nothing.
    #[test]
    fn rereads_after_edits_equal_whole_reads(
        which_text in 0usize..64,
        which in 0usize..64,
        edits in proptest::collection::vec((0usize..4096, 0u8..3, 0usize..32, 1usize..6), 1..6),
    ) {
        let corpus = edit_corpus();
        let _ = check_rereads(&corpus[which_text % corpus.len()], which, &edits);
    }
}
