//! Reading past errors (`SceneDoc::from_str_recovering`, what the language server reads): on a
//! text that reads it is the strict read exactly; on any other it never panics, its first error
//! is the strict reader's, one problem gives one error, and what reads keeps its spans.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_forge_scene::format::*;
use common::*;
use proptest::prelude::*;

/// The scenes of the repository: entities, components of every kind, instances with overrides,
/// tile layers.
fn seeds() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["assets/scenes", "assets/prefabs"] {
        let mut files: Vec<_> = std::fs::read_dir(repo().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        out.extend(files.iter().map(|p| std::fs::read_to_string(p).unwrap()));
    }
    out
}

/// Checks what the recovering read of `text` must be, against the strict read.
fn agrees_with_the_strict_read(text: &str) -> Result<(), TestCaseError> {
    let recovered = SceneDoc::from_str_recovering(text);
    match SceneDoc::from_str(text) {
        Ok(parsed) => {
            prop_assert_eq!(&recovered.errors, &Vec::<ReadError>::new());
            prop_assert_eq!(&recovered.parsed, &parsed);
        }
        Err(e) => {
            prop_assert!(!recovered.errors.is_empty());
            prop_assert_eq!(&recovered.errors[0], &e);
            // In text order, each at a place of its own.
            for pair in recovered.errors.windows(2) {
                prop_assert!(
                    pair[0].position().offset < pair[1].position().offset,
                    "{:?}",
                    recovered.errors
                );
            }
        }
    }
    // What read has spans inside the text.
    let map = &recovered.parsed.source_map;
    for id in recovered.parsed.doc.entities.keys() {
        let span = map.entity_span(*id).and_then(|s| s.range());
        prop_assert!(
            span.as_ref()
                .is_some_and(|r| r.start <= r.end && r.end <= text.len()),
            "{id}: {span:?}"
        );
    }
    Ok(())
}

fn mutate(text: &str, at: prop::sample::Index, cut: usize, piece: &str) -> String {
    let mut text = text.to_owned();
    let mut at = at.index(text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + cut).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    text.replace_range(at..end, piece);
    text
}

/// What typing leaves behind: half a value, brackets, separators, names.
const PIECES: &[&str] = &[
    "",
    ",",
    ")",
    "(",
    "]",
    "[",
    "}",
    "{",
    ":",
    "\"",
    "/*",
    "//",
    "x",
    "intensty: 2.0,",
    "7: (",
    "roots: [1],",
    "Some(",
    "None",
    "-",
    "1e",
    "r#\"",
    "\n",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// On a text that reads, the recovering read is the strict read, source map included.
    #[test]
    fn on_a_valid_text_it_is_the_strict_read(doc in any_doc()) {
        agrees_with_the_strict_read(&doc.to_canonical_string())?;
    }

    /// Pieces spliced into the repository's scenes (and bytes cut out of them): never a panic,
    /// the strict reader's error first, and no text that reads is read differently.
    #[test]
    fn mutated_scenes_are_read_as_far_as_they_read(
        seed in any::<prop::sample::Index>(),
        edits in proptest::collection::vec(
            (any::<prop::sample::Index>(), 0usize..6, prop::sample::select(PIECES)),
            1..4,
        ),
    ) {
        let seeds = seeds();
        let mut text = seeds[seed.index(seeds.len())].clone();
        for (at, cut, piece) in edits {
            text = mutate(&text, at, cut, piece);
        }
        agrees_with_the_strict_read(&text)?;
    }

    #[test]
    fn arbitrary_ron_like_text_never_panics(text in "[(){}\\[\\]:,\"#/*a-z0-9_.\\-+ \n\\\\]{0,300}") {
        agrees_with_the_strict_read(&text)?;
        let wrapped = format!("(format_version: 1, name: \"\", entities: {{1: ({text})}}, roots: [], next_id: 2)");
        agrees_with_the_strict_read(&wrapped)?;
    }

    /// One slip in one entity of a valid scene is one error, and every other entity reads as it
    /// was written.
    #[test]
    fn one_slip_is_one_error_and_the_other_entities_read(
        doc in valid_doc(),
        pick in any::<prop::sample::Index>(),
        slip in 0usize..6,
    ) {
        prop_assume!(!doc.entities.is_empty());
        let text = doc.to_canonical_string();
        let parsed = SceneDoc::from_str(&text).unwrap();
        let (&id, _) = doc.entities.get_index(pick.index(doc.entities.len())).unwrap();
        let entry = parsed.source_map.entity_span(id).unwrap().range().unwrap();
        let body = &text[entry.clone()];
        // Within the entry: a field misspelled, a value of the wrong kind, a `,` or the closing
        // `)` left out, the `,` after the entry left out, a bad component tag.
        let (at, old, new) = match slip {
            0 => (body.find("children:").unwrap(), "children", "childern"),
            1 => (body.find("name: \"").unwrap() + 6, "\"", "7, \""),
            2 => (body.find("parent: ").unwrap(), "parent", "parent: None\n      parent"),
            3 => (body.rfind(')').unwrap(), ")", ""),
            4 => (body.len(), "", ""),
            _ => (body.find("locked:").unwrap(), "locked", "colour: red,\n      locked"),
        };
        let last = doc.entities.last().map(|(k, _)| *k) == Some(id);
        // Without the `,` after the last entry, the scene still reads.
        prop_assume!(slip != 4 || !last);
        let mut broken = text.clone();
        let start = entry.start + at;
        if slip == 4 {
            // The `,` after the entry.
            let comma = start + text[start..].find(',').unwrap();
            broken.replace_range(comma..comma + 1, "");
        } else {
            broken.replace_range(start..start + old.len(), new);
        }
        let read = SceneDoc::from_str_recovering(&broken);
        prop_assert_eq!(read.errors.len(), 1, "{:?}\n{}", read.errors, broken);
        let strict = SceneDoc::from_str(&broken).err();
        prop_assert_eq!(Some(&read.errors[0]), strict.as_ref());
        for (other, node) in &doc.entities {
            if *other != id {
                prop_assert_eq!(read.parsed.doc.entities.get(other), Some(node));
            }
        }
        // The broken entity is kept, with what it had beside the slip.
        let kept = read.parsed.doc.entities.get(&id);
        prop_assert!(kept.is_some());
        prop_assert_eq!(&kept.unwrap().components, &doc.entities[&id].components);
        prop_assert_eq!(&read.parsed.doc.roots, &doc.roots);
    }
}

const T: &str = "transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0))";

/// An unknown field, a missing comma and an entry not closed, in three entities of four.
fn three_slips() -> String {
    format!(
        "(\n  format_version: 1,\n  name: \"Slips\",\n  entities: {{\n    \
         1: (id: 1, name: \"Lamp\", parent: None, children: [], {T}, components: [(type: point_light, data: (color: (r: 1.0, g: 0.5, b: 0.0, a: 1.0), intensty: 800.0, range: 20.0, shadows: true))]),\n    \
         2: (id: 2, name: \"Crate\" parent: None, children: [], {T}, components: []),\n    \
         3: (id: 3, name: \"Open\", parent: None, children: [], {T}, components: [],\n    \
         4: (id: 4, name: \"Camera\", parent: None, children: [], {T}, components: [(type: camera3d)]),\n  \
         }},\n  roots: [1, 2, 3, 4],\n  next_id: 5,\n)\n"
    )
}

#[test]
fn three_slips_are_three_errors_and_four_entities() {
    let text = three_slips();
    let read = SceneDoc::from_str_recovering(&text);
    let kinds: Vec<String> = read
        .errors
        .iter()
        .map(|e| format!("{}:{} {:?} {}", e.line(), e.column(), e.entity(), e.kind()))
        .collect();
    assert_eq!(read.errors.len(), 3, "{kinds:#?}");
    assert_eq!(
        Some(&read.errors[0]),
        SceneDoc::from_str(&text).err().as_ref()
    );
    assert!(
        matches!(read.errors[0].kind(), ReadErrorKind::UnknownField { field, suggestion: Some("intensity"), .. } if field == "intensty"),
        "{kinds:?}"
    );
    assert_eq!(read.errors[0].field(), Some("components[0].data"));
    assert_eq!(
        [read.errors[1].entity(), read.errors[2].entity()],
        [Some(2), Some(3)]
    );
    assert_eq!(read.errors[1].line(), 6);
    assert_eq!(read.errors[2].line(), 8);
    let doc = &read.parsed.doc;
    assert_eq!(
        doc.entities.keys().copied().collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    assert_eq!(doc.roots, [1, 2, 3, 4]);
    assert_eq!(doc.next_id, 5);
    assert_eq!(doc.entities[&2].name, "Crate");
    assert_eq!(doc.entities[&4].components.len(), 1);
    // The lamp keeps its light, without the field that did not read.
    let ComponentData::PointLight(light) = &doc.entities[&1].components[0] else {
        panic!("{:?}", doc.entities[&1].components);
    };
    assert_eq!(
        (light.range, light.shadows, light.color.g),
        (20.0, true, 0.5)
    );
    // Spans: the unclosed entry ends at its last field, the next starts at its key.
    let map = &read.parsed.source_map;
    let three = map.entity_span(3).and_then(|s| s.range()).unwrap();
    assert!(
        text[three.clone()].ends_with("components: []"),
        "{}",
        &text[three]
    );
    let four = map.entity_span(4).and_then(|s| s.range()).unwrap();
    assert!(text[four.clone()].starts_with("4: (id: 4"));
    assert!(text[four].ends_with("(type: camera3d)])"));
    let range = map
        .component_field_span(1, 0, "range")
        .and_then(|s| s.range())
        .unwrap();
    assert_eq!(&text[range], "20.0");
}

#[test]
fn an_unclosed_string_is_one_error_to_the_end() {
    let text = three_slips().replace("name: \"Slips\"", "name: \"Slips");
    let read = SceneDoc::from_str_recovering(&text);
    // The string runs to the next quote, and the rest does not read: the first error only,
    // nothing at the end of the text.
    assert_eq!(
        Some(&read.errors[0]),
        SceneDoc::from_str(&text).err().as_ref()
    );
    assert!(
        read.errors.iter().all(|e| e.position().offset < text.len()),
        "{:?}",
        read.errors
    );
    let open = "(format_version: 1, name: \"x\", entities: {1: (id: 1, name: \"Lamp";
    let read = SceneDoc::from_str_recovering(open);
    assert_eq!(read.errors.len(), 1, "{:?}", read.errors);
    assert!(matches!(
        read.errors[0].kind(),
        ReadErrorKind::UnterminatedString
    ));
}

#[test]
fn an_empty_or_hopeless_text_is_one_error_and_an_empty_scene() {
    for text in ["", "   ", "garbage", "{", ")))", "(", "[1, 2]"] {
        let read = SceneDoc::from_str_recovering(text);
        assert_eq!(read.errors.len(), 1, "{text:?}: {:?}", read.errors);
        assert_eq!(
            Some(&read.errors[0]),
            SceneDoc::from_str(text).err().as_ref()
        );
        assert!(read.parsed.doc.entities.is_empty());
    }
}

#[test]
fn deep_nesting_is_read_past_without_overflowing_the_stack() {
    let open = "(".repeat(200_000);
    let text = format!(
        "(format_version: 1, name: \"\", entities: {{1: (id: 1, name: \"\", parent: {open}, children: []), 2: (id: 2, name: \"B\")}}, roots: [], next_id: 3)"
    );
    let read = SceneDoc::from_str_recovering(&text);
    assert_eq!(
        Some(&read.errors[0]),
        SceneDoc::from_str(&text).err().as_ref()
    );
}
