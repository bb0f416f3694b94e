//! The canonical layout of a scene's text with its comments kept ([`format_text`]): what
//! `forge fmt` writes and what the language server's formatting gives.

use crate::format::source_map::{ComponentSpans, OVERRIDE_FIELDS, SourceMap, Span};
use crate::format::{ParsedScene, SceneDoc};

use super::SceneEditError;

/// The canonical text of the scene `text` ([`SceneDoc::to_canonical_string`]) with every
/// comment of `text` carried to the entry or field it belongs to:
///
/// - a comment on lines of its own goes before the entry or field that follows it (indented as
///   that line), or, when nothing follows it in its list or struct, before the closing bracket;
/// - a comment after a value on the same line goes at the end of the line where that value ends;
/// - comments before the scene's opening `(` or after its closing `)` stay before or after it.
///
/// Blank lines and where comments sat inside a line are not kept; the order of the comments that
/// go to one place is. Formatting formatted text gives it back unchanged. A byte-order mark is
/// dropped, as the canonical layout has none.
///
/// # Errors
/// [`SceneEditError::Read`] when `text` is not a scene; [`SceneEditError::InPlace`] when the
/// comments cannot be placed so that the text reads back as the same document with the same
/// comments (a safety check, not expected).
pub fn format_text(text: &str) -> Result<String, SceneEditError> {
    let mut out = format_once(text)?;
    // A comment that had to share a place with another (two on one line of a compact value)
    // can settle one step later: formatting is repeated until nothing moves, so formatting
    // formatted text changes nothing.
    for _ in 0..4 {
        let again = format_once(&out)?;
        if again == out {
            break;
        }
        out = again;
    }
    Ok(out)
}

/// One pass of [`format_text`].
fn format_once(text: &str) -> Result<String, SceneEditError> {
    let body = text.strip_prefix(super::BOM).unwrap_or(text);
    let parsed = SceneDoc::from_str(body)?;
    let canonical = parsed.doc.to_canonical_string();
    let comments = comments_of(body);
    if comments.is_empty() {
        return Ok(canonical);
    }
    let laid = SceneDoc::from_str(&canonical)?;
    let out = place(body, &parsed, &canonical, &laid, &comments);
    // The result must read as the same document, with the same comments in the same order.
    let again = SceneDoc::from_str(&out)
        .map_err(|e| SceneEditError::InPlace(format!("the formatted text does not read: {e}")))?;
    let same_comments = comments_of(&out)
        .iter()
        .map(|c| c.text(&out))
        .eq(comments.iter().map(|c| c.text(body)));
    if !super::same_doc(&again.doc, &parsed.doc) || !same_comments {
        return Err(SceneEditError::InPlace(
            "the comments could not be carried to the canonical layout".to_owned(),
        ));
    }
    Ok(out)
}

/// One comment of a text.
#[derive(Debug, Clone, Copy)]
struct Comment {
    start: usize,
    end: usize,
    /// Only whitespace is before it on its line.
    own_line: bool,
}

impl Comment {
    fn text<'t>(&self, text: &'t str) -> &'t str {
        &text[self.start..self.end]
    }
}

/// The comments of RON text `text`, outside strings, in order (a line comment without its line
/// end).
fn comments_of(text: &str) -> Vec<Comment> {
    use crate::format::lexical::{block_comment_end, string_literal_end};
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let end = match (b[i], b.get(i + 1)) {
            (b'/', Some(b'/')) => memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n),
            (b'/', Some(b'*')) => block_comment_end(b, i).unwrap_or(b.len()),
            _ => {
                i = match string_literal_end(b, i) {
                    Some(end) => end.unwrap_or(b.len()),
                    None => i + 1,
                };
                continue;
            }
        };
        // A line comment ends before a `\r` of a CRLF line end too.
        let end = if b[i + 1] == b'/' && end > i && b[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        let line_start = b[..i]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let own_line = b[line_start..i].iter().all(u8::is_ascii_whitespace);
        out.push(Comment {
            start: i,
            end,
            own_line,
        });
        i = end.max(i + 2);
    }
    out
}

/// An entry or field of a document, named the same in any text of it.
type Key = (u8, u64, u32, u32, &'static str);

/// Every entry and field of a scene with where it is in the text `map` was read from.
fn elements(doc: &SceneDoc, map: &SourceMap) -> Vec<(Key, Span)> {
    let mut out = Vec::new();
    let mut push = |key: Key, span: Span| {
        if span.is_some() {
            out.push((key, span));
        }
    };
    for (i, span) in map.top.iter().enumerate() {
        push((0, 0, i as u32, 0, ""), *span);
    }
    let component = |push: &mut dyn FnMut(Key, Span), base: Key, c: &ComponentSpans| {
        push(base, c.entry);
        let (k, id, a, b, _) = base;
        push((k + 1, id, a, b, "tag"), c.tag);
        push((k + 1, id, a, b, "data"), c.data);
        for (name, span) in c.fields.of(&map.payload_fields) {
            push((k + 1, id, a, b, name), *span);
        }
        for (j, spans) in c.custom_fields.of(&map.custom_fields).iter().enumerate() {
            push((k + 2, id, a, b + j as u32 + 1, ""), spans[0]);
        }
    };
    for &id in doc.entities.keys() {
        let Some(e) = map.entities.get(&id) else {
            continue;
        };
        push((1, id, 0, 0, ""), e.entry);
        for (i, span) in e.fields.iter().enumerate() {
            push((2, id, i as u32, 0, ""), *span);
        }
        for (p, part) in e.transform.iter().enumerate() {
            for (a, span) in part.iter().enumerate() {
                push((3, id, p as u32, a as u32, ""), *span);
            }
        }
        for (k, c) in e.components.of(&map.components).iter().enumerate() {
            component(&mut push, (4, id, k as u32, 0, ""), c);
        }
        let Some(instance) = &e.instance else {
            continue;
        };
        push((7, id, 0, 0, ""), instance.scene);
        for (o, spans) in instance.overrides.iter().enumerate() {
            let o32 = o as u32 + 1;
            push((8, id, o32, 0, ""), spans.entry);
            for (i, span) in spans.fields.iter().enumerate() {
                push((9, id, o32, i as u32, OVERRIDE_FIELDS[i]), *span);
            }
            for (p, part) in spans.transform.iter().enumerate() {
                for (a, span) in part.iter().enumerate() {
                    push((10, id, o32, (p * 4 + a) as u32, ""), *span);
                }
            }
            for (list, range) in [(11u8, spans.set), (14u8, spans.add)] {
                for (k, c) in range.of(&map.components).iter().enumerate() {
                    let base = (list, id, o32, (k as u32 + 1) << 16, "");
                    component(&mut push, base, c);
                }
            }
            for (k, span) in spans.remove.iter().enumerate() {
                push((17, id, o32, k as u32, ""), *span);
            }
            for (k, span) in spans.node.iter().enumerate() {
                push((18, id, o32, k as u32, ""), *span);
            }
        }
    }
    out
}

/// Where a comment goes in the canonical text.
enum Place {
    /// On its own line before the line holding the start of an element.
    Before(Key),
    /// At the end of the line where an element ends.
    After(Key),
    /// At the end of the line where an element starts (after its opening bracket).
    AfterOpen(Key),
    /// On its own line before the closing bracket of an element (or of the scene: `None`).
    BeforeClose(Option<Key>),
    /// Before the scene's opening `(` or after its closing `)`.
    Head,
    Tail,
}

/// How a comment is written at its offset of the canonical text.
#[derive(Clone)]
enum Spot {
    /// On a line of its own, with this indentation, before the line that starts there.
    Line(String),
    /// At the end of the line that ends there (on a line of its own with this indentation
    /// when a line comment already ends the line).
    End(String),
}

/// The canonical text `canonical` (read as `laid`) with the comments of `text` (read as
/// `parsed`) placed.
fn place(
    text: &str,
    parsed: &ParsedScene,
    canonical: &str,
    laid: &ParsedScene,
    comments: &[Comment],
) -> String {
    let here = elements(&parsed.doc, &parsed.source_map);
    let there: std::collections::HashMap<Key, Span> =
        elements(&laid.doc, &laid.source_map).into_iter().collect();
    let b = text.as_bytes();
    let open = crate::format::lexical::skip_trivia(b, 0);
    let close = {
        let mut end = b.len();
        // The scene's closing `)`: the last byte that is not whitespace or in a comment.
        for c in comments.iter().rev() {
            if b[c.end..end].iter().all(u8::is_ascii_whitespace) {
                end = c.start;
            }
        }
        b[..end]
            .iter()
            .rposition(|c| !c.is_ascii_whitespace())
            .unwrap_or(0)
    };
    // Insertions into the canonical text: (offset, comment, how), in the comments' order.
    let mut inserts: Vec<(usize, usize, Spot)> = Vec::new();
    let line_start = |s: &str, at: usize| s[..at].rfind('\n').map_or(0, |p| p + 1);
    let line_end = |s: &str, at: usize| s[at..].find('\n').map_or(s.len(), |p| at + p);
    let indent_at = |s: &str, at: usize| {
        let start = line_start(s, at);
        let width = s[start..].bytes().take_while(|c| *c == b' ').count();
        " ".repeat(width)
    };
    for (n, c) in comments.iter().enumerate() {
        let place = if c.end <= open {
            Place::Head
        } else if c.start > close {
            Place::Tail
        } else if !c.own_line {
            // After the element that ends last before it (the outermost of those ending there),
            // or, right after an opening bracket, on the line that opens it.
            let holder = here
                .iter()
                .filter(|(_, s)| (s.start as usize) < c.start && (s.end as usize) >= c.end)
                .min_by_key(|(_, s)| s.end - s.start);
            let before = here
                .iter()
                .filter(|(_, s)| (s.end as usize) <= c.start)
                .max_by_key(|(_, s)| (s.end, std::cmp::Reverse(s.start)));
            match (holder, before) {
                (Some((k, h)), Some((_, b))) if b.end <= h.start => Place::AfterOpen(*k),
                (Some((k, _)), None) => Place::AfterOpen(*k),
                (_, Some((k, _))) => Place::After(*k),
                (None, None) => Place::Head,
            }
        } else {
            // Before the next element inside the innermost element holding the comment.
            let holder = here
                .iter()
                .filter(|(_, s)| (s.start as usize) < c.start && (s.end as usize) >= c.end)
                .min_by_key(|(_, s)| s.end - s.start);
            let limit = holder.map_or(close, |(_, s)| s.end as usize);
            let next = here
                .iter()
                .filter(|(_, s)| (s.start as usize) >= c.end && (s.end as usize) <= limit)
                .min_by_key(|(_, s)| (s.start, std::cmp::Reverse(s.end)));
            match next {
                Some((k, _)) => Place::Before(*k),
                None => Place::BeforeClose(holder.map(|(k, _)| *k)),
            }
        };
        let laid_close = canonical.rfind(')').unwrap_or(canonical.len());
        let (at, spot) = match place {
            Place::Head => (0, Spot::Line(String::new())),
            Place::Tail => (canonical.len(), Spot::Line(String::new())),
            Place::Before(k) => {
                let at = there.get(&k).map_or(laid_close, |s| s.start as usize);
                (
                    line_start(canonical, at),
                    Spot::Line(indent_at(canonical, at)),
                )
            }
            Place::After(k) => {
                let at = there
                    .get(&k)
                    .map_or(laid_close, |s| (s.end as usize).max(1) - 1);
                (line_end(canonical, at), Spot::End(indent_at(canonical, at)))
            }
            Place::AfterOpen(k) => {
                let at = there.get(&k).map_or(0, |s| s.start as usize);
                (line_end(canonical, at), Spot::End(indent_at(canonical, at)))
            }
            Place::BeforeClose(k) => {
                let end = k
                    .and_then(|k| there.get(&k))
                    .map_or(laid_close, |s| (s.end as usize).max(1) - 1);
                let start = line_start(canonical, end);
                // Inside the brackets when the closing one has a line of its own; else (an
                // empty list, `children: []`) before the line, as a comment before it would be.
                let alone = canonical[start..end].trim().is_empty();
                let extra = if alone { "  " } else { "" };
                (
                    start,
                    Spot::Line(format!("{}{extra}", indent_at(canonical, end))),
                )
            }
        };
        // Comments keep their order: one whose place comes before the last one's goes with it.
        match inserts.last() {
            Some((last, _, spot)) if at < *last => {
                let (last, spot) = (*last, spot.clone());
                inserts.push((last, n, spot));
            }
            _ => inserts.push((at, n, spot)),
        }
    }
    let mut out = String::with_capacity(canonical.len() + inserts.len() * 32);
    let mut from = 0;
    // Whether the last comment written ends its line (a line comment at the end of a line).
    let mut line_comment_at = None;
    for (at, n, spot) in &inserts {
        let comment = comments[*n].text(text);
        out.push_str(&canonical[from..*at]);
        match spot {
            Spot::Line(indent) => {
                if *at == canonical.len() && !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(indent);
                out.push_str(comment);
                out.push('\n');
            }
            Spot::End(indent) => {
                if line_comment_at == Some(*at) {
                    out.push('\n');
                    out.push_str(indent);
                } else {
                    out.push(' ');
                }
                out.push_str(comment);
                if comment.starts_with("//") {
                    line_comment_at = Some(*at);
                }
            }
        }
        from = *at;
    }
    out.push_str(&canonical[from..]);
    out
}
