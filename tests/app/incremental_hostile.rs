//! Hostile edit sequences for the incremental check: each version of a scene's text checked
//! from the last good version's memory (`pipeline::check_again`) must give exactly what a
//! whole check of the same text gives (`pipeline::check`), and the entry-wise re-read
//! (`ParsedScene::reread_edit`) must give what a whole read gives or decline. A few sequences
//! also go through the loader of a Bevy app, whose reloaded asset must spawn what a fresh load
//! of the same text spawns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_forge_scene::format::{ParsedScene, SceneDoc, TextChange};
use bevy_forge_scene::pipeline::{self, Checked, LastCheck, Source};
use common::incremental::{assert_same, files};

const NAME: &str = "levels/hostile.forge.ron";

const ORIGIN: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

/// The base scene: entities with strings holding `#`, `}` and `{`, a reference into a cell of
/// the layer, an instance with an override, and a layer of two prefabs with a cell override.
fn base() -> String {
    format!(
        r##"(
  format_version: 1,
  name: "Hostile",
  entities: {{
    1: (id: 1, name: "A # }} {{", parent: None, children: [2],
        {ORIGIN},
        components: [(type: custom, data: (type_path: "game::Tag", fields: [(name: "label", expr: "\"a # }} {{ #2\"")]))]),
    2: (id: 2, name: "B", parent: Some(1), children: [],
        {ORIGIN},
        components: [(type: custom, data: (type_path: "game::Link", fields: [(name: "to", expr: "#10/1/1/1")]))]),
    3: (id: 3, name: "Lamp", parent: None, children: [],
        {ORIGIN},
        components: [],
        instance: Some((scene: "prefabs/lamp.forge.ron", overrides: [(target: [1], name: Some("L"))]))),
    4: (id: 4, name: "D", parent: None, children: [],
        {ORIGIN},
        components: [(type: custom, data: (type_path: "game::Link", fields: [(name: "to", expr: "#3/2")]))]),
  }},
  roots: [1, 3, 4],
  next_id: 20,
  layers: [
    (
      id: 10,
      name: "Ground",
      parent: None,
      plane: xy,
      cell_size: (x: 1, y: 1),
      origin: (x: 0, y: 0, z: 0),
      palette: {{"t": "prefabs/tile.forge.ron", "p": "prefabs/post.forge.ron"}},
      rows: ["tp.", ".pt"],
      overrides: [(target: [0, 1, 1], name: Some("Picked"))],
    ),
  ],
)
"##
    )
}

/// A scene file's life: its last good text, its read, and the last check's memory.
struct Life {
    text: String,
    parsed: ParsedScene,
    last: Option<LastCheck>,
    /// How many versions did not read.
    unread: usize,
}

impl Life {
    fn new(text: &str) -> (Life, Checked) {
        let source = Source::read(NAME, text.as_bytes()).expect("the first version reads");
        let parsed = source.parsed.clone();
        let (checked, last) = pipeline::check_keeping(source, &mut files());
        assert!(last.is_some(), "the first check keeps its memory");
        let life = Life {
            text: text.to_owned(),
            parsed,
            last,
            unread: 0,
        };
        (life, checked)
    }

    /// Saves `next`: the read in part and the check in part against the whole ones. `None`
    /// when the text does not read (the last good version stays the one checked from).
    fn save(&mut self, next: &str, what: &str) -> Option<Checked> {
        let change = TextChange::between(&self.text, next);
        let whole_read = SceneDoc::from_str(next);
        // The read in part: what a whole read gives, or nothing.
        if let Some(change) = change {
            let mut parsed = self.parsed.clone();
            if parsed.reread_edit(next, change.start..change.old_end, change.new_len) {
                match &whole_read {
                    Ok(whole) => assert_eq!(&parsed, whole, "the read in part after {what}"),
                    Err(e) => panic!("read in part after {what}, but a whole read fails: {e}"),
                }
            }
        }
        let Ok(source) = Source::read(NAME, next.as_bytes()) else {
            assert!(whole_read.is_err());
            self.unread += 1;
            return None;
        };
        let whole = pipeline::check(source.clone(), &mut files());
        let (again, kept) = match (self.last.take(), change) {
            (Some(last), Some(change)) => {
                pipeline::check_again(source.clone(), &mut files(), last, change)
            }
            _ => pipeline::check_keeping(source.clone(), &mut files()),
        };
        assert_same(&again, &whole, what);
        assert!(kept.is_some(), "a text check keeps its memory ({what})");
        self.last = kept;
        self.text = next.to_owned();
        self.parsed = source.parsed;
        Some(again)
    }
}

/// `text` with the first `from` replaced by `to` (which must be there).
fn replaced(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` is not in the text:\n{text}");
    text.replacen(from, to, 1)
}

/// Runs `edits` (each a replacement of the version before) from `start`; the checks of each
/// version that reads.
fn run(start: &str, edits: &[(&str, &str, &str)]) -> Vec<Option<Checked>> {
    let (mut life, _) = Life::new(start);
    let mut text = start.to_owned();
    let mut out = Vec::new();
    for (what, from, to) in edits {
        text = replaced(&text, from, to);
        out.push(life.save(&text, what));
    }
    out
}

/// Runs whole versions in order.
fn run_texts(versions: &[(&str, String)]) -> Vec<Option<Checked>> {
    let (mut life, _) = Life::new(&versions[0].1);
    versions[1..]
        .iter()
        .map(|(what, text)| life.save(text, what))
        .collect()
}

fn codes(checked: &Checked) -> Vec<&'static str> {
    checked.diagnostics.iter().map(|d| d.code).collect()
}

fn has(checked: &Option<Checked>, code: &str) -> bool {
    checked
        .as_ref()
        .expect("the version reads")
        .diagnostics
        .iter()
        .any(|d| d.code == code)
}

#[test]
fn the_base_scene_is_clean() {
    let (_, checked) = Life::new(&base());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    assert!(checked.expanded.is_some());
}

#[test]
fn strings_holding_hashes_braces_and_newlines() {
    let b = base();
    let out = run(
        &b,
        &[
            ("a brace more in a string", r#"#2\""#, r#"#2 }}} \""#),
            ("a reference-looking string", r#"#2 }}} \""#, r#"#99\""#),
            ("a newline escape", r#"#99\""#, r#"#99\n}\n\""#),
            (
                "a raw newline in a name",
                "name: \"B\"",
                "name: \"B\n}\n),\"",
            ),
            ("a brace in a name", "name: \"B\n}\n),\"", "name: \"{\""),
            (
                "a real dangling reference",
                r##""#10/1/1/1""##,
                r##""#99""##,
            ),
            ("and back", r##""#99""##, r##""#10/1/1/1""##),
            (
                "a comment-looking string",
                "name: \"{\"",
                "name: \"// }, 5: (\"",
            ),
        ],
    );
    assert!(has(&out[5], "forge::custom::reference"));
    assert!(!has(&out[6], "forge::custom::reference"));
    assert!(out.iter().all(Option::is_some), "every version reads");
}

#[test]
fn one_entry_split_in_two_and_merged_back() {
    let b = base();
    let d = format!(
        "    4: (id: 4, name: \"D\", parent: None, children: [],\n        {ORIGIN},\n        components: [(type: custom, data: (type_path: \"game::Link\", fields: [(name: \"to\", expr: \"#3/2\")]))]),\n"
    );
    let split = format!(
        "    4: (id: 4, name: \"D\", parent: None, children: [],\n        {ORIGIN},\n        components: []),\n    5: (id: 5, name: \"E\", parent: None, children: [],\n        {ORIGIN},\n        components: [(type: custom, data: (type_path: \"game::Link\", fields: [(name: \"to\", expr: \"#3/2\")]))]),\n"
    );
    let v1 = replaced(&b, &d, &split);
    let v2 = replaced(&v1, "roots: [1, 3, 4]", "roots: [1, 3, 4, 5]");
    let v3 = replaced(&v2, &split, &d);
    let v4 = replaced(&v3, "roots: [1, 3, 4, 5]", "roots: [1, 3, 4]");
    let out = run_texts(&[
        ("base", b.clone()),
        ("split", v1),
        ("rooted", v2),
        ("merged", v3),
        ("unrooted", v4),
    ]);
    assert!(out[0].as_ref().unwrap().has_errors(), "5 not in roots");
    assert!(!out[1].as_ref().unwrap().has_errors());
    assert!(!out[3].as_ref().unwrap().has_errors());
}

#[test]
fn a_duplicated_entity_key_appears_then_goes() {
    let b = base();
    let two = format!(
        "    2: (id: 2, name: \"B\", parent: Some(1), children: [],\n        {ORIGIN},\n        components: [(type: custom, data: (type_path: \"game::Link\", fields: [(name: \"to\", expr: \"#10/1/1/1\")]))]),\n"
    );
    let twice = format!("{two}{}", two.replace("\"B\"", "\"B again\""));
    let v1 = replaced(&b, &two, &twice);
    let v2 = replaced(&v1, "\"B again\"", "\"B once more\"");
    let v3 = replaced(&v2, &twice.replace("B again", "B once more"), &two);
    let out = run_texts(&[("base", b), ("dup", v1), ("dup edited", v2), ("gone", v3)]);
    assert!(out[2].is_some());
}

#[test]
fn the_id_field_changes_but_not_the_key() {
    let out = run(
        &base(),
        &[
            ("id 2 to 5", "2: (id: 2,", "2: (id: 5,"),
            ("id 5 to 4", "2: (id: 5,", "2: (id: 4,"),
            ("the key too", "2: (id: 4,", "6: (id: 6,"),
            ("the key back", "6: (id: 6,", "2: (id: 6,"),
            ("all back", "2: (id: 6,", "2: (id: 2,"),
        ],
    );
    let errors = |c: &Option<Checked>| c.as_ref().map(Checked::has_errors);
    assert_ne!(errors(&out[0]), Some(false), "id 5 under key 2 is wrong");
    assert_eq!(errors(&out[4]), Some(false));
}

#[test]
fn the_layers_block_deleted_and_restored() {
    let b = base();
    let start = b.find("  layers: [").unwrap();
    let end = b.rfind("  ],\n").unwrap() + "  ],\n".len();
    let without = format!("{}{}", &b[..start], &b[end..]);
    let out = run_texts(&[
        ("base", b.clone()),
        ("no layers", without.clone()),
        ("layers back", b.clone()),
        ("no layers again", without),
        ("back again", b),
    ]);
    // The reference into the layer's cell names nothing without it.
    assert!(has(&out[0], "forge::custom::reference"));
    assert!(!has(&out[1], "forge::custom::reference"));
}

#[test]
fn painting_unknown_keys_and_missing_prefabs() {
    let out = run(
        &base(),
        &[
            ("an unknown key", "\"tp.\"", "\"tx.\""),
            ("two unknown", "\"tx.\"", "\"xx.\""),
            ("fixed", "\"xx.\"", "\"tp.\""),
            (
                "a palette entry of a missing file",
                "\"p\": \"prefabs/post.forge.ron\"}",
                "\"p\": \"prefabs/post.forge.ron\", \"m\": \"prefabs/missing.forge.ron\"}",
            ),
            ("painted with it", "\".pt\"", "\".pm\""),
            ("painted twice", "\"tp.\"", "\"tpm\""),
            ("erased", "\"tpm\"", "\"tp.\""),
            ("erased all", "\".pm\"", "\".p.\""),
            ("repainted", "\".p.\"", "\".pt\""),
        ],
    );
    assert!(has(&out[0], "forge::layer::unknown_key"));
    assert!(!has(&out[2], "forge::layer::unknown_key"));
    assert!(has(&out[3], "forge::prefab::unreadable"));
}

#[test]
fn painting_around_and_over_overridden_cells() {
    // The override targets cell (0, 1): the top row's first character.
    let out = run(
        &base(),
        &[
            ("paint beside", "\"tp.\"", "\"tpt\""),
            ("paint below", "\".pt\"", "\"tpt\""),
            ("erase the overridden cell", "\"tpt\",", "\".pt\","),
            ("a post there", "\".pt\",", "\"ppt\","),
            ("a tile back", "\"ppt\",", "\"tpt\","),
            (
                "an override of another cell",
                "(target: [0, 1, 1], name: Some(\"Picked\"))",
                "(target: [0, 1, 1], name: Some(\"Picked\")), (target: [2, 0, 1], name: Some(\"Low\"))",
            ),
            ("erase that one", "\"tpt\"]", "\"tp.\"]"),
            ("paint it", "\"tp.\"]", "\"tpp\"]"),
        ],
    );
    assert!(has(&out[2], "forge::prefab::unused_override"));
    assert!(!has(&out[4], "forge::prefab::unused_override"));
}

#[test]
fn a_paint_and_an_entity_edit_in_one_save() {
    let b = base();
    let v1 = replaced(
        &replaced(&b, "name: \"B\"", "name: \"Bee\""),
        "\"tp.\"",
        "\"t..\"",
    );
    let v2 = replaced(&replaced(&v1, "\"t..\"", "\"tpp\""), "#3/2", "#3/7");
    let v3 = replaced(&replaced(&v2, "\"tpp\"", "\"tp.\""), "#3/7", "#3/2");
    let out = run_texts(&[("base", b), ("both", v1), ("both again", v2), ("back", v3)]);
    // Cell (1, 1) erased: the reference into it names nothing.
    assert!(has(&out[0], "forge::custom::reference"));
    assert!(has(&out[1], "forge::custom::reference"));
    assert!(!has(&out[2], "forge::custom::reference"));
}

#[test]
fn multi_byte_palette_keys() {
    let b = replaced(
        &base(),
        "{\"t\": \"prefabs/tile.forge.ron\", \"p\"",
        "{\"t\": \"prefabs/tile.forge.ron\", \"é\": \"prefabs/tile.forge.ron\", \"日\": \"prefabs/lamp.forge.ron\", \"p\"",
    );
    let out = run(
        &b,
        &[
            ("é painted", "\"tp.\"", "\"tpé\""),
            ("é to 日", "\"tpé\"", "\"tp日\""),
            ("日 to .", "\"tp日\"", "\"tp.\""),
            ("é first", "\"tp.\"", "\"ép.\""),
            ("é everywhere", "\".pt\"", "\"ééé\""),
            ("a wide name", "name: \"B\"", "name: \"Bé日😀\""),
            ("é erased", "\"ééé\"", "\".éé\""),
            ("an unknown wide key", "\".éé\"", "\".è😀\""),
            ("fixed", "\".è😀\"", "\".pt\""),
        ],
    );
    assert!(has(&out[7], "forge::layer::unknown_key"));
    assert!(!has(&out[8], "forge::layer::unknown_key"));
}

#[test]
fn a_paint_that_changes_the_row_width() {
    let out = run(
        &base(),
        &[
            ("one shorter", "\"tp.\"", "\"tp\""),
            ("both shorter", "\".pt\"", "\".p\""),
            ("both wider", "\"tp\", \".p\"", "\"tp.tt\", \".pttp\""),
            ("one wider", "\"tp.tt\"", "\"tp.ttt\""),
            ("a row more", "\".pttp\"", "\".pttp\", \"ppppp\""),
            ("row gone", ", \"ppppp\"", ""),
            ("back", "\"tp.ttt\", \".pttp\"", "\"tp.\", \".pt\""),
            ("no rows", "rows: [\"tp.\", \".pt\"]", "rows: []"),
            ("rows back", "rows: []", "rows: [\"tp.\", \".pt\"]"),
        ],
    );
    assert!(has(&out[0], "forge::layer::ragged"));
    assert!(!has(&out[2], "forge::layer::ragged"));
}

#[test]
fn references_into_cells_erased_and_repainted() {
    let out = run(
        &base(),
        &[
            ("a deep reference", "#10/1/1/1", "#10/1/1/2/1"),
            ("its cell erased", "\"tp.\"", "\"t..\""),
            ("a tile there", "\"t..\"", "\"tt.\""),
            ("the post back", "\"tt.\"", "\"tp.\""),
            ("the lamp's bulb", "#10/1/1/2/1", "#10/1/1/2/2"),
            ("the post root", "#10/1/1/2/2", "#10/1/1/1"),
            ("the layer itself", "#10/1/1/1", "#10"),
            ("a cell of the layer", "#10", "#10/0/0/1"),
            ("that cell painted", "\".pt\"", "\"tpt\""),
            ("and erased", "\"tpt\"", "\".pt\""),
        ],
    );
    let refers = |i: usize| has(&out[i], "forge::custom::reference");
    assert_eq!(
        (0..out.len()).map(refers).collect::<Vec<_>>(),
        [
            false, true, true, false, false, false, false, true, false, true
        ]
    );
}

#[test]
fn the_format_version_line_changes() {
    let out = run(
        &base(),
        &[
            ("to 0", "format_version: 1", "format_version: 0"),
            ("an edit under 0", "name: \"B\"", "name: \"Bee\""),
            ("a paint under 0", "\"tp.\"", "\"t..\""),
            ("to 1", "format_version: 0", "format_version: 1"),
            ("to 7", "format_version: 1", "format_version: 7"),
            ("back to 1", "format_version: 7", "format_version: 1"),
        ],
    );
    assert!(out[0].is_some());
}

#[test]
fn comments_and_crlf_line_endings() {
    let b = base();
    let crlf = b.replace('\n', "\r\n");
    let v2 = replaced(
        &crlf,
        "    2: (id: 2,",
        "    // a comment with } and #9 and ),\r\n    2: (id: 2,",
    );
    let v3 = replaced(&v2, "name: \"B\",", "name: /* } ) #7 */ \"B\", // }\r\n");
    let v4 = replaced(&v3, "\"tp.\"", "\"t..\"");
    let v5 = replaced(&v4, "\"t..\"", "/* \"ppp\" */ \"tpp\"");
    let v6 = replaced(&v5, "name: \"D\"", "name: \"D\"/*\r\n*/");
    let v7 = v6.replace("\r\n", "\n");
    let out = run_texts(&[
        ("base", b),
        ("crlf", crlf),
        ("a comment line", v2),
        ("comments in an entry", v3),
        ("a paint", v4),
        ("a commented paint", v5),
        ("a block comment over a line end", v6),
        ("lf again", v7),
    ]);
    assert!(out.iter().all(Option::is_some), "every version reads");
}

#[test]
fn a_save_identical_to_the_last() {
    let b = base();
    let v1 = replaced(&b, "\"tp.\"", "\"t..\"");
    let out = run_texts(&[
        ("base", b.clone()),
        ("same", b.clone()),
        ("same again", b),
        ("paint", v1.clone()),
        ("same paint", v1),
    ]);
    assert!(out.iter().all(Option::is_some));
}

#[test]
fn a_save_that_does_not_read_then_a_good_one() {
    let b = base();
    let versions = [
        ("base", b.clone()),
        (
            "a brace gone",
            replaced(
                &b,
                "components: [],\n        instance",
                "components: [,\n        instance",
            ),
        ),
        (
            "fixed with an edit",
            replaced(&b, "name: \"B\"", "name: \"Bx\""),
        ),
        (
            "unterminated string",
            replaced(&b, "name: \"D\"", "name: \"D"),
        ),
        ("unknown field", replaced(&b, "name: \"D\"", "nme: \"D\"")),
        ("a paint", replaced(&b, "\"tp.\"", "\"tpp\"")),
        ("a row not closed", replaced(&b, "\"tp.\"", "\"tp.")),
        ("empty", String::new()),
        ("back", b.clone()),
    ];
    let out = run_texts(&versions);
    let read: Vec<bool> = out.iter().map(Option::is_some).collect();
    assert_eq!(read, [false, true, false, false, true, false, false, true]);
}

#[test]
fn very_long_single_lines() {
    let long = "x".repeat(200_000);
    let b = base();
    // Everything on one line.
    let flat = b.replace('\n', " ");
    let v1 = replaced(&flat, "name: \"B\"", &format!("name: \"{long}\""));
    let v2 = replaced(&v1, &format!("\"{long}\""), &format!("\"{long}y\""));
    let v3 = replaced(&v2, "\"tp.\"", "\"t..\"");
    let v4 = replaced(&v3, "#3/2", "#3/9");
    let wide = format!("\"{}\"", "t".repeat(4000));
    let v5 = replaced(&replaced(&v4, "\"t..\"", &wide), "\".pt\"", &wide);
    let mut painted = "t".repeat(4000);
    painted.replace_range(1234..1235, ".");
    let v6 = replaced(&v5, &wide, &format!("\"{painted}\""));
    let out = run_texts(&[
        ("base", b),
        ("flat", flat),
        ("a long name", v1),
        ("longer", v2),
        ("a paint", v3),
        ("a bad reference", v4),
        ("wide rows", v5),
        ("a wide paint", v6),
    ]);
    assert!(has(&out[4], "forge::custom::reference"));
    let last = out[6].as_ref().unwrap();
    assert!(!codes(last).contains(&"forge::layer::ragged"));
}

#[test]
fn an_entity_cut_and_pasted_elsewhere() {
    let b = base();
    let one_start = b.find("    1: (id: 1").unwrap();
    let one_end = b.find("    2: (id: 2").unwrap();
    let one = &b[one_start..one_end];
    let without = format!("{}{}", &b[..one_start], &b[one_end..]);
    let at = without.find("  },\n  roots").unwrap();
    let moved = format!("{}{one}{}", &without[..at], &without[at..]);
    let three_start = moved.find("    3: (id: 3").unwrap();
    let three_end = moved.find("    4: (id: 4").unwrap();
    let three = &moved[three_start..three_end];
    let without3 = format!("{}{}", &moved[..three_start], &moved[three_end..]);
    let first = without3.find("    2: (id: 2").unwrap();
    let moved3 = format!("{}{three}{}", &without3[..first], &without3[first..]);
    let out = run_texts(&[
        ("base", b.clone()),
        ("1 cut", without),
        ("1 pasted last", moved),
        ("3 cut", without3),
        ("3 pasted first", moved3),
        ("all back", b),
    ]);
    assert!(out[0].as_ref().unwrap().has_errors(), "2's parent is gone");
    assert!(!out[1].as_ref().unwrap().has_errors());
}

#[test]
fn edits_at_the_seams_between_entries() {
    let b = base();
    let out = run(
        &b,
        &[
            (
                "the comma after an entry",
                "#10/1/1/1\")]))]),\n    3:",
                "#10/1/1/1\")]))])\n    3:",
            ),
            (
                "comma back",
                "#10/1/1/1\")]))])\n    3:",
                "#10/1/1/1\")]))]),\n    3:",
            ),
            ("a key only", "    4: (id: 4", "    7: (id: 4"),
            ("key back", "    7: (id: 4", "    4: (id: 4"),
            (
                "space between two entries",
                "    3: (id: 3",
                "\n\n    3: (id: 3",
            ),
            ("a trailing comma", "#3/2\")]))]),\n", "#3/2\")]))]),,\n"),
            ("no trailing comma", "#3/2\")]))]),,\n", "#3/2\")]))])\n"),
            (
                "the closing brace of the map",
                "#3/2\")]))])\n  },",
                "#3/2\")]))])},",
            ),
            (
                "an entry after the last",
                "#3/2\")]))])},",
                "#3/2\")]))]), 8: (id: 8, name: \"H\", parent: None, children: [], components: [])},",
            ),
            ("rooted", "roots: [1, 3, 4]", "roots: [1, 3, 4, 8]"),
        ],
    );
    assert!(out[1].is_some() && out[2].is_some());
}

#[test]
fn an_instance_and_its_overrides_edited() {
    let out = run(
        &base(),
        &[
            ("override renamed", "Some(\"L\")", "Some(\"L2\")"),
            ("override target", "target: [1], name", "target: [2], name"),
            ("missing target", "target: [2], name", "target: [9], name"),
            (
                "another prefab",
                "scene: \"prefabs/lamp.forge.ron\"",
                "scene: \"prefabs/post.forge.ron\"",
            ),
            (
                "a missing prefab",
                "scene: \"prefabs/post.forge.ron\"",
                "scene: \"prefabs/missing.forge.ron\"",
            ),
            (
                "back",
                "scene: \"prefabs/missing.forge.ron\"",
                "scene: \"prefabs/lamp.forge.ron\"",
            ),
            (
                "instance gone",
                "        instance: Some((scene: \"prefabs/lamp.forge.ron\", overrides: [(target: [9], name: Some(\"L2\"))]))),\n",
                "        ),\n",
            ),
        ],
    );
    assert!(has(&out[4], "forge::prefab::unreadable"));
    // Without the instance, `#3/2` names nothing.
    assert!(has(&out[6], "forge::custom::reference"));
}

/// The scene of `entries` (entity entries in file order) placing `lamp.forge.ron` from entity
/// 3, for the order tests.
fn ordered(entries: &[u64]) -> String {
    let entry = |id: u64| match id {
        3 => format!(
            "    3: (id: 3, name: \"Lamp\", parent: None, children: [], {ORIGIN}, components: [],\n        instance: Some((scene: \"prefabs/lamp.forge.ron\", overrides: []))),\n"
        ),
        id => format!(
            "    {id}: (id: {id}, name: \"E{id}\", parent: None, children: [], {ORIGIN},\n        components: [(type: custom, data: (type_path: \"game::Tag\", fields: [(name: \"n\", expr: \"{id}\")]))]),\n"
        ),
    };
    let entries: String = entries.iter().map(|id| entry(*id)).collect();
    format!(
        "(\n  format_version: 1,\n  name: \"Order\",\n  entities: {{\n{entries}  }},\n  roots: [1, 2, 3],\n  next_id: 4,\n)\n"
    )
}

/// Two entity entries swapped in the text of a scene that places a prefab: the value-only
/// patch of the expansion keeps the last version's entity order, while a whole check follows
/// the file's order (which is the spawn order).
#[test]
fn entries_swapped_in_a_scene_with_an_instance_keep_the_file_order() {
    run_texts(&[
        ("1, 2, 3", ordered(&[1, 2, 3])),
        ("2, 1, 3", ordered(&[2, 1, 3])),
    ]);
}

/// Swapping the entries where nothing is placed (no expansion) holds.
#[test]
fn entries_swapped_in_a_plain_scene() {
    let plain = |order: &[u64]| {
        ordered(order)
            .replace(
                "components: [],\n        instance: Some((scene: \"prefabs/lamp.forge.ron\", overrides: []))),",
                "components: []),",
            )
    };
    let out = run_texts(&[
        ("1, 2, 3", plain(&[1, 2, 3])),
        ("2, 1, 3", plain(&[2, 1, 3])),
        ("3, 2, 1", plain(&[3, 2, 1])),
        ("1, 2, 3", plain(&[1, 2, 3])),
    ]);
    let order: Vec<u64> = out[1]
        .as_ref()
        .unwrap()
        .spawned()
        .entities
        .keys()
        .copied()
        .collect();
    assert_eq!(order, [3, 2, 1]);
}

mod app {
    //! Through the loader of a Bevy app: the reloaded asset spawns what a fresh load of the same
    //! text spawns, and a save that fails reports what a fresh load of it reports.

    use bevy_asset::{AssetEvent, AssetId, AssetServer, Assets};
    use bevy_ecs::prelude::*;
    use bevy_forge_scene::prelude::*;
    use bevy_forge_scene::validate::Diagnostic;

    use super::{ORIGIN, replaced};
    use crate::common::harness::Harness;
    use crate::common::incremental::spawned;
    use crate::common::scenes::{Log, load_errors, log_reloads};

    /// How many times each scene asset was replaced (reloaded), whether or not its live
    /// instances changed.
    #[derive(Resource, Default)]
    struct Replaced(Vec<AssetId<ForgeScene>>);

    fn setup(app: &mut bevy_app::App) {
        log_reloads(app);
        app.init_resource::<Replaced>();
        app.add_systems(
            bevy_app::Update,
            |mut events: MessageReader<AssetEvent<ForgeScene>>, mut seen: ResMut<Replaced>| {
                for e in events.read() {
                    if let AssetEvent::Modified { id } = e {
                        seen.0.push(*id);
                    }
                }
            },
        );
    }

    /// Rewrites `LEVEL` as a watcher reports it and waits until the asset is replaced or its
    /// reload fails (a save whose scene spawns the same reports no `ForgeSceneReloaded`).
    fn save(h: &mut Harness, text: &str) {
        let count = |w: &World| {
            (
                w.resource::<Replaced>().0.len(),
                w.resource::<Log>().failed.len(),
            )
        };
        let before = count(h.world());
        h.modify(LEVEL, text);
        h.run_until(|w| count(w) != before);
        h.app.update();
    }

    const LEVEL: &str = "level.forge.ron";

    const LAMP: &str = r#"(format_version: 1, name: "Lamp", entities: {
    1: (id: 1, name: "Lamp", parent: None, children: [2],
        transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: custom, data: (type_path: "forge_demo::Brain", fields: [(name: "hp", expr: "10")]))]),
    2: (id: 2, name: "Bulb", parent: Some(1), children: [],
        transform: (translation: (x: 0, y: 1, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: []),
}, roots: [1], next_id: 3)"#;

    const TILE: &str = r#"(format_version: 1, name: "Tile", entities: {
    1: (id: 1, name: "Tile", parent: None, children: [],
        transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: custom, data: (type_path: "forge_demo::Brain", fields: [(name: "label", expr: "\"grass\"")]))]),
}, roots: [1], next_id: 2)"#;

    fn brain_entry(id: u64, hp: u32, label: &str) -> String {
        format!(
            "    {id}: (id: {id}, name: \"E{id}\", parent: None, children: [], {ORIGIN},\n        components: [(type: custom, data: (type_path: \"forge_demo::Brain\", fields: [(name: \"hp\", expr: \"{hp}\"), (name: \"label\", expr: \"\\\"{label}\\\"\")]))]),\n"
        )
    }

    fn level(entries: &str, rows: &str) -> String {
        format!(
            "(\n  format_version: 1,\n  name: \"Level\",\n  entities: {{\n{entries}    50: (id: 50, name: \"Lamp post\", parent: None, children: [], {ORIGIN}, components: [],\n        instance: Some((scene: \"prefabs/lamp.forge.ron\", overrides: []))),\n  }},\n  roots: [1, 2, 50],\n  next_id: 200,\n  layers: [(id: 100, name: \"Ground\", parent: None, plane: xy, cell_size: (x: 1, y: 1), origin: (x: 0, y: 0, z: 0), start: (i: 0, j: 0), palette: {{\"t\": \"prefabs/tile.forge.ron\"}}, rows: [{rows}])],\n)\n"
        )
    }

    /// What a fresh load of `text` (a path never loaded) spawns, or its errors.
    fn fresh(h: &mut Harness, n: usize, text: &str) -> Result<Vec<String>, Vec<Diagnostic>> {
        let path = format!("fresh_{n}.forge.ron");
        h.add(&path, text);
        let handle = h.load(&path);
        let server = h.world().resource::<AssetServer>().clone();
        h.run_until(|_| server.is_loaded(&handle) || server.load_state(&handle).is_failed());
        if server.is_loaded(&handle) {
            Ok(spawned(h, &handle))
        } else {
            Err(load_errors(h, &path))
        }
    }

    /// What a diagnostic says where, without the file's name in the message.
    type Said = (String, Option<(u32, u32)>, Option<u64>);

    fn said(d: &[Diagnostic]) -> Vec<Said> {
        let mut out: Vec<_> = d
            .iter()
            .map(|d| {
                (
                    d.code.to_owned(),
                    d.position.map(|p| (p.line, p.column)),
                    d.entity,
                )
            })
            .collect();
        out.sort();
        out
    }

    /// Saves each version of `versions` over `LEVEL` in turn (the first is the first load):
    /// a reload that applies spawns what a fresh load spawns, a reload that fails reports
    /// what a fresh load reports and leaves the last good scene live.
    fn saves(versions: &[(&str, String)]) {
        let mut h = Harness::with_setup(setup);
        h.add("prefabs/lamp.forge.ron", LAMP);
        h.add("prefabs/tile.forge.ron", TILE);
        h.add(LEVEL, &versions[0].1);
        let (root, _) = h.spawn_scene(LEVEL);
        let handle = h.load(LEVEL);
        let mut good = spawned(&h, &handle);
        for (n, (what, text)) in versions.iter().enumerate().skip(1) {
            let failed_before = h.world().resource::<Log>().failed.len();
            save(&mut h, text);
            let log = h.world().resource::<Log>();
            let failure = (log.failed.len() > failed_before)
                .then(|| log.failed.last().unwrap().diagnostics.clone());
            assert_eq!(failure.is_some(), what.ends_with("(fails)"), "{what}");
            let whole = fresh(&mut h, n, text);
            match (failure, whole) {
                (None, Ok(whole)) => {
                    let reloaded = spawned(&h, &handle);
                    assert_eq!(reloaded, whole, "after {what}");
                    good = reloaded;
                }
                (Some(failed), Err(whole)) => {
                    assert_eq!(said(&failed), said(&whole), "the errors of {what}");
                    assert_eq!(
                        spawned(&h, &handle),
                        good,
                        "the last good scene after {what}"
                    );
                }
                (failure, whole) => panic!(
                    "after {what}: the reload {} but a fresh load {}",
                    if failure.is_some() {
                        "failed"
                    } else {
                        "applied"
                    },
                    if whole.is_ok() { "loads" } else { "fails" },
                ),
            }
            let live = h.world().get::<ForgeSceneInstance>(root).unwrap().len();
            let scenes = h.world().resource::<Assets<ForgeScene>>();
            let expected = scenes
                .get(&handle)
                .unwrap()
                .expanded()
                .unwrap()
                .doc
                .entities
                .len();
            assert_eq!(live, expected, "live entities after {what}");
        }
    }

    #[test]
    fn hostile_saves_through_the_loader() {
        let e1 = brain_entry(1, 10, "a # } {");
        let e2 = brain_entry(2, 20, "b");
        let v0 = level(&format!("{e1}{e2}"), "\"t.t\", \".t.\"");
        let v1 = replaced(&v0, "a # } {", "a # }} #2 {\\\\n }");
        let v2 = replaced(&v1, "hp\", expr: \"20\"", "hp\", expr: \"500\"");
        let v3 = replaced(&v1, "hp\", expr: \"20\"", "hp\", expr: \"21\"");
        let v4 = replaced(&v3, "name: \"E2\"", "name: \"E2");
        let v5 = replaced(&v3, "name: \"E2\"", "name: \"Ë2 日\"");
        let v6 = v5.replace('\n', "\r\n");
        let v7 = replaced(&v6, "\"t.t\"", "\"t.x\"");
        let v8 = replaced(&v6, "\"t.t\"", "\"ttt\"");
        let v9 = replaced(&v8, "hp\", expr: \"21\"", "hp\", expr: /* } */ \"22\"");
        let v10 = replaced(&v9, "format_version: 1", "format_version: 0");
        let v11 = replaced(&v10, "\"ttt\"", "\"..t\"");
        let out = [
            ("first", v0),
            ("a string with braces", v1),
            ("out of range (fails)", v2),
            ("fixed elsewhere", v3.clone()),
            ("an unterminated string (fails)", v4),
            ("a wide name", v5.clone()),
            ("the same", v5),
            ("crlf", v6),
            ("an unknown key (fails)", v7),
            ("painted", v8),
            ("a comment in a value", v9),
            ("format 0", v10),
            ("erased", v11),
        ];
        saves(&out);
    }

    #[test]
    fn swapped_entries_through_the_loader() {
        let e1 = brain_entry(1, 10, "one");
        let e2 = brain_entry(2, 20, "two");
        saves(&[
            ("first", level(&format!("{e1}{e2}"), "\"t\"")),
            ("swapped", level(&format!("{e2}{e1}"), "\"t\"")),
        ]);
    }
}
