//! The canonical writer and the reader agree: `read(write(doc)) == doc`, canonical text is
//! byte-stable, and `ron` (the reference RON implementation) reads every text we accept to the
//! same document.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_forge_scene::format::*;
use common::*;
use proptest::prelude::*;

fn read(text: &str) -> SceneDoc {
    SceneDoc::from_str(text)
        .unwrap_or_else(|e| panic!("should read: {e}\n{text}"))
        .doc
}

/// What `ron` makes of a text, normalized the way the format page asks (version 0 is 1).
fn ron_read(text: &str) -> Result<SceneDoc, ron::error::SpannedError> {
    ron::from_str::<SceneDoc>(text).map(|mut doc| {
        if doc.format_version == 0 {
            doc.format_version = 1;
        }
        doc
    })
}

#[test]
fn both_seeds_rewritten_canonically_read_back_equal() {
    for name in ["valid/garden.forge.ron", "valid/platformer.forge.ron"] {
        let doc = read(&fixture_text(name));
        let canonical = doc.to_canonical_string();
        assert_eq!(read(&canonical), doc, "{name}");
        assert_eq!(
            read(&canonical).to_canonical_string(),
            canonical,
            "{name} is byte-stable"
        );
        assert_eq!(ron_read(&canonical).unwrap(), doc, "ron agrees on {name}");
        assert_eq!(
            ron_read(&fixture_text(name)).unwrap(),
            doc,
            "ron agrees on the fixture {name}"
        );
    }
}

#[test]
fn canonical_text_has_the_documented_layout() {
    let doc = read(&fixture_text("valid/platformer.forge.ron"));
    let text = doc.to_canonical_string();
    assert!(text.starts_with(
        "(\n  format_version: 1,\n  name: \"Platformer\",\n  entities: {\n    1: (\n      id: 1,\n"
    ));
    assert!(text.ends_with("  next_id: 4,\n)\n"));
    assert!(!text.contains('\r'));
    assert!(text.contains("        translation: (\n          x: 0.0,\n          y: 0.0,\n          z: 10.0,\n        ),\n"));
    assert!(text.contains("            custom_size: Some((\n              x: 32.0,\n              y: 48.0,\n            )),\n"));
    assert!(text.contains("          type: visibility,\n          data: visible,\n"));
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        assert_eq!(indent % 2, 0, "two-space indentation: {line:?}");
    }
}

#[test]
fn floats_are_written_to_read_back_bit_identical() {
    let values = [
        1.0f32,
        0.1,
        -0.0,
        1e-7,
        1e30,
        f32::MAX,
        f32::MIN_POSITIVE,
        1.0e-45,
        16777217.0,
        f32::NEG_INFINITY,
    ];
    let mut doc = SceneDoc::new("floats");
    for v in values {
        let id = doc.add_entity("e", None).unwrap();
        doc.set_transform(id, TransformData::from_translation(Vec3Data::new(v, v, v)))
            .unwrap();
    }
    let text = doc.to_canonical_string();
    assert!(text.contains("x: 1.0,"), "integral floats keep their `.0`");
    let back = read(&text);
    for (a, b) in doc.entities.values().zip(back.entities.values()) {
        assert_eq!(
            a.transform.translation.x.to_bits(),
            b.transform.translation.x.to_bits()
        );
    }
    let mut nan = SceneDoc::new("nan");
    let id = nan.add_entity("e", None).unwrap();
    nan.set_transform(
        id,
        TransformData::from_translation(Vec3Data::new(f32::NAN, 0.0, 0.0)),
    )
    .unwrap();
    let back = read(&nan.to_canonical_string());
    assert!(back.entity(id).unwrap().transform.translation.x.is_nan());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn read_of_write_is_identity(doc in any_doc()) {
        let text = doc.to_canonical_string();
        let back = read(&text);
        prop_assert_eq!(&back, &doc);
        prop_assert_eq!(back.to_canonical_string(), text);
    }

    #[test]
    fn ron_reads_canonical_text_to_the_same_document(doc in any_doc()) {
        let text = doc.to_canonical_string();
        match ron_read(&text) {
            Ok(theirs) => prop_assert_eq!(theirs, doc),
            Err(e) => prop_assert!(false, "ron refused canonical text: {e}\n{text}"),
        }
    }

    #[test]
    fn texts_both_readers_accept_read_the_same(
        doc in valid_doc(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0usize..12), 1..4),
    ) {
        // Mutate canonical text with small edits that are often still valid RON.
        let mut text = doc.to_canonical_string();
        const SNIPPETS: [&str; 12] = [" ", "\n", ",", "", "//c\n", "/*c*/", "1", "-", "_", "e5", "\r\n", "\t"];
        for (at, which) in edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            if which == 3 && i < text.len() {
                let mut end = i + 1;
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                text.replace_range(i..end, "");
            } else {
                text.insert_str(i, SNIPPETS[which]);
            }
        }
        let ours = SceneDoc::from_str(&text);
        let theirs = ron_read(&text);
        if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
            // ron keeps the last of two equal keys; we refuse those, so both accepting means
            // the keys were distinct.
            prop_assert_eq!(ours.doc, theirs, "{}", text);
        }
    }
}
