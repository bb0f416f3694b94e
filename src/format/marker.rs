//! Merge conflict markers: the comments `forge merge` leaves where both branches changed one
//! value (the format page, "Merge conflict markers"), and git's own `<<<<<<<` lines.
//!
//! A marker is a block comment that starts with [`PREFIX`]: `/* forge-merge: theirs = 4.0 */`.
//! The file stays a scene (a comment is whitespace to the grammar), and the reader reports each
//! marker as a [`ReadWarningKind::MergeConflict`](super::ReadWarningKind::MergeConflict) as it
//! steps over it (its lexer compares the start of each block comment with the prefix: block
//! comments are rare in scenes, so a read pays nothing for this), which validation turns into
//! an error (`forge::merge::conflict`) until it is removed. A prefix in a string, or inside
//! another comment, is not a marker.

/// How every marker starts.
pub(crate) const PREFIX: &str = "/* forge-merge:";

/// The offset of the first line of `text` that git's conflict markers start (`<<<<<<<`,
/// `=======` or `>>>>>>>` at the start of a line), when one does.
pub(crate) fn git_marker(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let starts_line = |at: usize| at == 0 || b[at - 1] == b'\n';
    for pattern in [&b"<<<<<<<"[..], b">>>>>>>", b"======="] {
        if let Some(at) = memchr::memmem::find_iter(b, pattern).find(|&at| starts_line(at)) {
            return Some(at);
        }
    }
    None
}

/// A marker comment holding `note` (`theirs = 4.0`), with `/*` and `*/` inside the note (which
/// only strings of a value can hold) written as escapes, so the comment ends where it should
/// and the value reads the same.
pub(crate) fn marker(note: &str) -> String {
    let mut out = String::with_capacity(note.len() + PREFIX.len() + 4);
    out.push_str(PREFIX);
    out.push(' ');
    let b = note.as_bytes();
    for (i, c) in note.char_indices() {
        let next_to_slash = (i > 0 && b[i - 1] == b'/') || b.get(i + 1).is_some_and(|&n| n == b'/');
        if c == '*' && next_to_slash {
            out.push_str("\\u{2a}");
        } else {
            out.push(c);
        }
    }
    out.push_str(" */");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::format::{ReadWarningKind, SceneDoc};

    /// The markers of scene `text`, as the reader reports them.
    fn notes(text: &str) -> Vec<(usize, String)> {
        let parsed = SceneDoc::from_str(text).unwrap_or_else(|e| panic!("{e}"));
        parsed
            .warnings
            .into_iter()
            .filter_map(|w| match w.kind {
                ReadWarningKind::MergeConflict { note } => Some((w.position.offset, note)),
                _ => None,
            })
            .collect()
    }

    /// `text` as the name of a scene with no entities.
    fn scene(around_name: &str) -> String {
        format!("(format_version: 1, name: {around_name}, entities: {{}}, roots: [], next_id: 1)")
    }

    #[test]
    fn finds_markers_in_code_only() {
        let text = scene(
            r#""a" /* forge-merge: theirs = "b" */ /* outer /* forge-merge: nested */ */ // /* forge-merge: no */
 /* forge-merge: theirs removes this */"#,
        );
        let found = notes(&text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].1, "theirs = \"b\"");
        assert_eq!(&text[found[0].0..found[0].0 + 15], PREFIX);
        assert_eq!(found[1].1, "theirs removes this");
        assert!(notes(&scene(r#""/* forge-merge: in a string */""#)).is_empty());
    }

    #[test]
    fn a_marker_of_a_value_with_comment_delimiters_reads_back_whole() {
        let m = marker(r#"theirs = "a */ b /* c""#);
        assert!(!m[2..m.len() - 2].contains("*/") && !m[2..m.len() - 2].contains("/*"));
        let found = notes(&scene(&format!("\"x\" {m}")));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, r#"theirs = "a \u{2a}/ b /\u{2a} c""#);
    }

    /// A scene with markers, read whole and in pieces of every size: the same warnings, in
    /// text order.
    #[test]
    fn markers_are_found_the_same_however_the_text_is_read() {
        use crate::format::{StreamRead, StreamStep};
        let text = "(format_version: 0, name: \"a /* forge-merge: no */\", entities: {\n  1: (id: 1, name: \"A\" /* forge-merge: theirs = \"B\" */, parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: []), /* forge-merge: theirs keeps 2: (id: 2) */\n}, roots: [1] /* forge-merge: theirs = [] */, next_id: 3)\n";
        let whole = SceneDoc::from_str(text).unwrap_or_else(|e| panic!("{e}"));
        let notes: Vec<String> = whole
            .warnings
            .iter()
            .filter_map(|w| match &w.kind {
                ReadWarningKind::MergeConflict { note } => Some(note.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            notes,
            ["theirs = \"B\"", "theirs keeps 2: (id: 2)", "theirs = []"]
        );
        assert_eq!(whole.warnings.len(), 4, "{:?}", whole.warnings);
        for piece in [1, 2, 7, 64, 4096] {
            let mut stream = StreamRead::new(text.len(), 8);
            let mut rest = text.as_bytes();
            let read = loop {
                match stream.step() {
                    StreamStep::Read => {
                        let spare = stream.spare();
                        let n = piece.min(rest.len()).min(spare.len());
                        spare[..n].copy_from_slice(&rest[..n]);
                        rest = &rest[n..];
                        stream.filled(n);
                    }
                    StreamStep::Done(read) => break read,
                }
            };
            assert_eq!(
                read.map(|r| r.warnings),
                Some(whole.warnings.clone()),
                "piece {piece}"
            );
        }
    }

    #[test]
    fn git_markers_at_line_starts_only() {
        assert_eq!(git_marker("(\n<<<<<<< HEAD\n"), Some(2));
        assert_eq!(git_marker("name: \"<<<<<<<\""), None);
        assert_eq!(git_marker("x\n=======\n"), Some(2));
    }
}
