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

/// The references of `text`, and the text with each written as an identifier (see the module
/// docs); `None` when there is none.
pub(crate) fn rewrite(text: &str) -> Option<(String, Vec<Ref>)> {
    if !text.contains('#') {
        return None;
    }
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut refs = Vec::new();
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
    if refs.is_empty() {
        return None;
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    let text = String::from_utf8(out).ok()?;
    Some((text, refs))
}

/// `text` with each of its references moved under the entity `prefix` (`#2` becomes `#5/2`,
/// `#4/1` becomes `#5/4/1`): a prefab's expression as placed by instance entity 5; `None`
/// when it has no reference.
pub(crate) fn prefix_references(text: &str, prefix: u64) -> Option<String> {
    let (_, refs) = rewrite(text)?;
    let mut out = String::with_capacity(text.len() + refs.len() * 8);
    let mut from = 0;
    for r in &refs {
        out.push_str(&text[from..=r.at]);
        out.push_str(&prefix.to_string());
        out.push('/');
        from = r.at + 1;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// The end of a character literal (or a lifetime) starting at `at` (`'`).
fn quote_end(b: &[u8], at: usize) -> usize {
    if b.get(at + 1) == Some(&b'\\') {
        let window = b.get(at + 2..).unwrap_or_default();
        let window = &window[..window.len().min(12)];
        return memchr::memchr(b'\'', window).map_or(at + 1, |n| at + 2 + n + 1);
    }
    // A character of up to four bytes and its closing quote; otherwise a lifetime.
    let window = b.get(at + 1..).unwrap_or_default();
    let window = &window[..window.len().min(5)];
    match memchr::memchr(b'\'', window) {
        Some(n) if n >= 1 => at + 1 + n + 1,
        _ => at + 1,
    }
}

/// The reference an identifier written by [`rewrite`] stands for (`_7_2` is `#7/2`).
pub(crate) fn placeholder_text(ident: &str) -> Option<String> {
    let rest = ident.strip_prefix('_')?;
    let parts: Vec<&str> = rest.split('_').collect();
    if parts
        .iter()
        .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
    {
        Some(format!("#{}", parts.join("/")))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_become_identifiers_of_the_same_length() {
        let (text, refs) = rewrite("Door { opened_by: #7, route: vec![#7/2, #12] }").unwrap();
        assert_eq!(text, "Door { opened_by: _7, route: vec![_7_2, _12] }");
        let paths: Vec<_> = refs.iter().map(|r| r.path.clone().unwrap()).collect();
        assert_eq!(paths, [vec![7], vec![7, 2], vec![12]]);
        assert_eq!(refs[1].at, 34);
        assert_eq!(refs[1].text(&text), "#7/2");
        assert_eq!(placeholder_text("_7_2").as_deref(), Some("#7/2"));
        assert_eq!(placeholder_text("_x"), None);
    }

    #[test]
    fn references_in_strings_and_comments_stay() {
        assert_eq!(rewrite(r##""#7" /* #8 */ // #9"##), None);
        assert_eq!(rewrite(r###"r#"#7"# '#' "###), None);
        let (text, refs) = rewrite("(\"#1\", #2)").unwrap();
        assert_eq!((text.as_str(), refs.len()), ("(\"#1\", _2)", 1));
    }

    #[test]
    fn prefixing_moves_every_reference_under_the_instance() {
        assert_eq!(
            prefix_references("vec![#2, #4/1] // #3", 5).as_deref(),
            Some("vec![#5/2, #5/4/1] // #3")
        );
        assert_eq!(prefix_references("\"#2\"", 5), None);
    }

    #[test]
    fn an_id_too_large_is_kept_as_a_reference_without_a_path() {
        let (_, refs) = rewrite("#99999999999999999999999").unwrap();
        assert_eq!(refs[0].path, None);
    }
}
