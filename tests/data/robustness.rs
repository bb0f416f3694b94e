//! The reader is bounded: no panic, no stack overflow and no hang on any input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_forge_scene::format::*;
use common::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = SceneDoc::from_slice(&bytes);
    }

    #[test]
    fn arbitrary_ron_like_text_never_panics(text in "[(){}\\[\\]:,\"#/*a-z0-9_.\\-+ \n\\\\]{0,300}") {
        let _ = SceneDoc::from_str(&text);
        let wrapped = format!("(format_version: 1, name: \"\", entities: {{1: ({text})}}, roots: [], next_id: 2)");
        let _ = SceneDoc::from_str(&wrapped);
        let component = format!("(format_version: 1, name: \"\", entities: {{1: (id: 1, name: \"\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(data: {text}, type: sprite)])}}, roots: [1], next_id: 2)");
        let _ = SceneDoc::from_str(&component);
    }

    #[test]
    fn every_prefix_and_corruption_of_a_valid_file_is_refused_or_read(
        doc in valid_doc(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let text = doc.to_canonical_string();
        let bytes = text.as_bytes();
        let cut = cut.index(bytes.len() - 1); // keeps the closing `)` out
        // A strict prefix of a canonical document is never a whole document.
        let prefix = SceneDoc::from_slice(&bytes[..cut]);
        prop_assert!(prefix.is_err());
        let e = prefix.err().unwrap_or_else(|| unreachable!());
        prop_assert!(e.line() >= 1 && e.column() >= 1);
        let mut corrupted = bytes.to_vec();
        let at = flip.index(corrupted.len());
        corrupted[at] = byte;
        if let Err(e) = SceneDoc::from_slice(&corrupted) {
            // Within the corrupted input, whose flipped byte may be a line break: at most one
            // line after its last break (the end of the input).
            let breaks = corrupted.iter().filter(|b| matches!(b, b'\n' | b'\r')).count();
            prop_assert!(e.line() as usize <= breaks + 1, "{e}");
        }
    }
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    let depth = 1_000_000;
    let open = "(".repeat(depth);
    let texts = [
        open.clone(),
        format!(
            "(format_version: 1, name: \"\", entities: {{1: (id: 1, name: \"\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(data: {open}"
        ),
        format!(
            "(format_version: 1, name: \"\", entities: {{1: (id: 1, name: \"\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(data: {}, type: camera2d)])}}, roots: [1], next_id: 2)",
            "[".repeat(depth) + &"]".repeat(depth)
        ),
        "/*".repeat(depth),
    ];
    for text in &texts {
        let e = SceneDoc::from_str(text).expect_err("not a document");
        assert!(e.line() >= 1);
    }
}

#[test]
fn huge_numbers_are_refused_or_saturate() {
    let big = "9".repeat(10_000);
    let text = fixture_text("valid/garden.forge.ron");
    let e =
        SceneDoc::from_str(&text.replace("next_id: 3", &format!("next_id: {big}"))).unwrap_err();
    assert!(
        matches!(e.kind(), ReadErrorKind::IntegerOutOfRange { .. }),
        "{e}"
    );
    // A float too large for f32 reads as infinity, which validation rejects as non-finite.
    let doc =
        SceneDoc::from_str(&text.replace("illuminance: 10000.0", &format!("illuminance: {big}.0")))
            .unwrap()
            .doc;
    match &doc.entity(1).unwrap().components[0] {
        ComponentData::DirectionalLight(l) => assert_eq!(l.illuminance, f32::INFINITY),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_hundred_megabytes_of_padding_is_read_in_one_pass() {
    let text = fixture_text("valid/garden.forge.ron");
    let padding = " ".repeat(50 * 1024 * 1024) + &"// comment\n".repeat(50 * 1024 * 1024 / 11);
    let padded = text.replacen("roots:", &format!("{padding}roots:"), 1);
    assert!(padded.len() > 100 * 1024 * 1024);
    let parsed = SceneDoc::from_str(&padded).expect("padding is whitespace");
    assert_eq!(parsed.doc.roots, vec![1, 2]);
    let e = SceneDoc::from_str(&padded[..padded.len() - 40]).unwrap_err();
    assert!(e.line() > 1_000_000, "{e}");
}

#[test]
fn a_large_generated_scene_reads_back() {
    let mut doc = SceneDoc::new("large");
    for i in 0..5_000 {
        let root = doc.add_entity(format!("root {i}"), None).unwrap();
        for j in 0..3 {
            let child = doc.add_entity(format!("child {j}"), Some(root)).unwrap();
            doc.add_component(child, ComponentData::Camera2d).unwrap();
        }
    }
    let text = doc.to_canonical_string();
    assert_eq!(SceneDoc::from_str(&text).unwrap().doc, doc);
}

/// A scene with a streamed instance and a tile layer, the two to mutate.
const STREAMED_AND_LAYER: &str = r#"(
  format_version: 1,
  name: "Cells",
  entities: {
    1: (id: 1, name: "Cell", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [],
      instance: Some((
        scene: "prefabs/house.forge.ron",
        overrides: [(target: [1], name: Some("Hall"))],
        streaming: Some((load_radius: 40.0, unload_radius: 50.0)),
      ))),
  },
  roots: [1],
  next_id: 3,
  layers: [
    (
      id: 2,
      name: "Ground",
      parent: Some(1),
      plane: xz,
      cell_size: (x: 16.0, y: 16.0),
      start: (i: 3, j: 4),
      palette: {
        "g": "prefabs/grass.forge.ron",
        "😀": "prefabs/wall.forge.ron",
      },
      rows: [
        "g😀g",
        "g.g",
      ],
      overrides: [(target: [4, 5, 1], name: Some("Lit"))],
    ),
  ],
)"#;

/// Hostile pieces spliced into the scene: numbers a radius or a size must not be, indices past
/// a cell's range, characters of several bytes, the empty cell, broken structure.
const HOSTILE: &[&str] = &[
    "NaN",
    "inf",
    "-inf",
    "-1.0",
    "0.0",
    "-0.0",
    "1e39",
    "3.4e38",
    "65536",
    "-1",
    "18446744073709551616",
    "😀",
    "e\u{301}",
    "\u{200d}",
    ".",
    " ",
    "\t",
    "\\t",
    "\\u{1F600}",
    "\"",
    "(",
    ")",
    "Some(",
    "None",
    ",",
    "[]",
    "{}",
    "x: 1.0",
    "load_radius: ",
    "#2/4/5/1",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Splicing hostile pieces into (or cutting bytes out of) a streamed instance and a tile
    /// layer never panics the reader or the validator, and every problem found is placed
    /// inside the text: a read error at a line of it, each validation error at a line and a
    /// column of it.
    #[test]
    fn mutated_streaming_and_layers_are_refused_or_read(
        edits in proptest::collection::vec(
            (any::<prop::sample::Index>(), 0usize..4, prop::sample::select(HOSTILE)),
            1..4,
        ),
    ) {
        let mut text = STREAMED_AND_LAYER.to_owned();
        for (at, cut, piece) in edits {
            let mut at = at.index(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + cut).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            text.replace_range(at..end, piece);
        }
        let lines = text.lines().count() as u32 + 1;
        match SceneDoc::from_str(&text) {
            Err(e) => prop_assert!(e.line() >= 1 && e.line() <= lines, "{e}"),
            Ok(parsed) => {
                let report = bevy_forge_scene::validate::validate_parsed(&parsed, None);
                for d in report.diagnostics.iter().filter(|d| {
                    d.code.starts_with("forge::layer") || d.code == "forge::prefab::streaming"
                }) {
                    let (line, column) = (d.line(), d.column());
                    prop_assert!(
                        line.is_some_and(|l| (1..=lines).contains(&l)) && column.is_some(),
                        "{} at {line:?}:{column:?}: {}\n{text}", d.code, d.message
                    );
                }
            }
        }
    }
}
