//! The reader is bounded: no panic, no stack overflow and no hang on any input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

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
