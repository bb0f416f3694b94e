//! Entity references in field expressions: `#7` names the entity with id 7 of the same scene,
//! `#7/2` the entity with id 2 inside the prefab instance entity 7 places (an id path, the
//! `format` module docs, "Prefab instances"). `#` cannot start a Rust expression, so the
//! spelling never collides with one.
//!
//! Before `syn` parses an expression, each reference outside strings, characters and comments
//! is written as an identifier of the same length (`#7/2` becomes `_7_2`), so byte offsets in
//! errors stay those of the text the user wrote, and [`Ref`] remembers where each one was.

use crate::format::lexical::{block_comment_end, raw_string_end, string_end};

/// One reference found in an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ref {
    /// Byte offset of its `#`.
    pub(crate) at: usize,
    /// Its length in bytes.
    pub(crate) len: usize,
    /// The id path, `None` when an id does not fit a `u64`.
    pub(crate) path: Option<Vec<u64>>,
}

impl Ref {
    /// The reference as written (`#7/2`).
    pub(crate) fn text(&self, written: &str) -> String {
        written
            .get(self.at..self.at + self.len)
            .unwrap_or("#")
            .replacen('_', "#", 1)
            .replace('_', "/")
    }
}

/// An expression with its references written as identifiers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rewritten {
    /// The text, each reference written as an identifier of the same length.
    pub(crate) text: String,
    /// The references, in order.
    pub(crate) refs: Vec<Ref>,
    /// The first `#` and ids glued to the text around them (`1#2`, `#2abc`, `x#2`), which are
    /// not references (left as written): its offset and length, with what is glued.
    pub(crate) glued: Option<(usize, usize)>,
}

impl Rewritten {
    /// Why the expression cannot be read when a reference is glued to its neighbours:
    /// `(offset, message)`.
    pub(crate) fn glued_error(&self, written: &str) -> Option<(usize, String)> {
        let (at, len) = self.glued?;
        let shown = written.get(at..at + len).unwrap_or("#");
        Some((
            at,
            format!(
                "`{shown}` is not an entity reference: a reference is `#` then ids separated by `/` (`#7`, `#7/2`), with no letter, digit or `_` right before or after it"
            ),
        ))
    }
}

/// Whether byte `c` continues an identifier or a number (ASCII letters, digits, `_`, and any
/// byte of a non-ASCII character).
fn word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The references of `text`, and the text with each written as an identifier (see the module
/// docs); `None` when there is none.
pub(crate) fn rewrite(text: &str) -> Option<Rewritten> {
    if !text.contains('#') {
        return None;
    }
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut refs = Vec::new();
    let mut glued = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = block_comment_end(b, i).unwrap_or(b.len());
            }
            b'"' => i = string_end(b, i + 1).unwrap_or(b.len()),
            b'\'' => i = quote_end(b, i),
            b'#' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let start = i;
                let mut path = Some(Vec::new());
                i += 1;
                loop {
                    let digits = i;
                    while b.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1;
                    }
                    let id = text[digits..i].parse::<u64>().ok();
                    path = path.zip(id).map(|(mut p, id)| {
                        p.push(id);
                        p
                    });
                    let more =
                        b.get(i) == Some(&b'/') && b.get(i + 1).is_some_and(u8::is_ascii_digit);
                    if !more {
                        break;
                    }
                    out[i] = b'_';
                    i += 1;
                }
                let before = start.checked_sub(1).map(|p| b[p]);
                let after = b.get(i).copied();
                let decimal = after == Some(b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit);
                if before.is_some_and(word_byte) || after.is_some_and(word_byte) || decimal {
                    // Not a reference: left as written, and the first one reported.
                    out[start..i].copy_from_slice(&b[start..i]);
                    if glued.is_none() {
                        let from = b[..start]
                            .iter()
                            .rposition(|c| !word_byte(*c))
                            .map_or(0, |p| p + 1);
                        let mut to = i;
                        while b.get(to).is_some_and(|c| word_byte(*c) || *c == b'.') {
                            to += 1;
                        }
                        glued = Some((from, to - from));
                    }
                    continue;
                }
                out[start] = b'_';
                refs.push(Ref {
                    at: start,
                    len: i - start,
                    path,
                });
            }
            c if c == b'_' || c.is_ascii_alphabetic() => {
                let word = i;
                while b
                    .get(i)
                    .is_some_and(|c| *c == b'_' || c.is_ascii_alphanumeric())
                {
                    i += 1;
                }
                // Raw strings (`r"..."`, `r#"..."#`, `br".."`) are read whole.
                if matches!(&text[word..i], "r" | "br" | "cr") {
                    let hashes = b[i..].iter().take_while(|c| **c == b'#').count();
                    if b.get(i + hashes) == Some(&b'"') {
                        i = raw_string_end(b, i + hashes + 1, hashes).unwrap_or(b.len());
                    }
                }
            }
            _ => i += 1,
        }
    }
    if refs.is_empty() && glued.is_none() {
        return None;
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    let text = String::from_utf8(out).ok()?;
    Some(Rewritten { text, refs, glued })
}

/// `text` with each of its references moved under the entity `prefix` (`#2` becomes `#5/2`,
/// `#4/1` becomes `#5/4/1`): a prefab's expression as placed by instance entity 5; `None`
/// when it has no reference. A longer `prefix` goes in whole (`[40, 3, 4]`: `#2` becomes
/// `#40/3/4/2`, as a tile layer's cell places it).
pub(crate) fn prefix_references(text: &str, prefix: &[u64]) -> Option<String> {
    let refs = rewrite(text)?.refs;
    if refs.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len() + refs.len() * 8);
    let mut from = 0;
    for r in &refs {
        out.push_str(&text[from..=r.at]);
        for id in prefix {
            out.push_str(&id.to_string());
            out.push('/');
        }
        from = r.at + 1;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// The end of a character literal (or a lifetime) starting at `at` (`'`).
fn quote_end(b: &[u8], at: usize) -> usize {
    if b.get(at + 1) == Some(&b'\\') {
        // The escaped character (`\'`, `\\`, `n`, `x41`, `u{..}`) starts after the backslash;
        // the closing quote comes after it.
        let window = b.get(at + 3..).unwrap_or_default();
        let window = &window[..window.len().min(super::scan::ESCAPED_CHAR_WINDOW)];
        return memchr::memchr(b'\'', window).map_or(at + 1, |n| at + 3 + n + 1);
    }
    // A character of up to four bytes and its closing quote; otherwise a lifetime.
    let window = b.get(at + 1..).unwrap_or_default();
    let window = &window[..window.len().min(5)];
    match memchr::memchr(b'\'', window) {
        Some(n) if n >= 1 => at + 1 + n + 1,
        _ => at + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_become_identifiers_of_the_same_length() {
        let r = rewrite("Door { opened_by: #7, route: vec![#7/2, #12] }").unwrap();
        assert_eq!(r.text, "Door { opened_by: _7, route: vec![_7_2, _12] }");
        let paths: Vec<_> = r.refs.iter().map(|r| r.path.clone().unwrap()).collect();
        assert_eq!(paths, [vec![7], vec![7, 2], vec![12]]);
        assert_eq!(r.refs[1].at, 34);
        assert_eq!(r.refs[1].text(&r.text), "#7/2");
    }

    #[test]
    fn references_in_strings_chars_and_comments_stay() {
        assert_eq!(rewrite(r##""#7" /* #8 */ // #9"##), None);
        assert_eq!(rewrite(r###"r#"#7"# '#' "###), None);
        assert_eq!(rewrite("/* /* #1 */ #2 */"), None);
        let r = rewrite("(\"#1\", #2)").unwrap();
        assert_eq!((r.text.as_str(), r.refs.len()), ("(\"#1\", _2)", 1));
        // An escaped quote character does not end early.
        let r = rewrite(r##"('\'', '"', "#1", #2)"##).unwrap();
        assert_eq!(r.text, r##"('\'', '"', "#1", _2)"##);
        let r = rewrite(r##"('\\', "#1", #3)"##).unwrap();
        assert_eq!(r.refs.len(), 1);
    }

    #[test]
    fn references_glued_to_words_or_numbers_are_not_references() {
        for text in [
            "#2abc", "#2_000", "#2u64", "#2e5", "1#2", "0x#4", "x#2", "é#2", "#2.5",
        ] {
            let r = rewrite(text).unwrap();
            assert!(r.refs.is_empty(), "{text}");
            assert_eq!(r.text, text, "left as written");
            let (at, message) = r.glued_error(text).unwrap();
            assert_eq!(at, 0, "{text}");
            assert!(message.contains(&format!("`{text}`")), "{message}");
        }
        let r = rewrite("vec![#1, 2#3]").unwrap();
        assert_eq!(r.refs.len(), 1);
        assert_eq!(r.glued, Some((9, 3)));
        // Punctuation around a reference is fine.
        let r = rewrite("(#1,[#2],-#3)").unwrap();
        assert_eq!((r.refs.len(), r.glued), (3, None));
    }

    #[test]
    fn prefixing_moves_every_reference_under_the_instance() {
        assert_eq!(
            prefix_references("vec![#2, #4/1] // #3", &[5]).as_deref(),
            Some("vec![#5/2, #5/4/1] // #3")
        );
        assert_eq!(prefix_references("\"#2\"", &[5]), None);
        assert_eq!(prefix_references("1#2", &[5]), None, "not a reference");
    }

    #[test]
    fn an_id_too_large_is_kept_as_a_reference_without_a_path() {
        let r = rewrite("#99999999999999999999999").unwrap();
        assert_eq!(r.refs[0].path, None);
    }
}
