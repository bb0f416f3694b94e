//! Taking one side of a conflict marker: what `forge lsp`'s "take ours" and "take theirs" do.

use super::Side;
use crate::format::lexical::block_comment_end;
use crate::format::marker::PREFIX;
use crate::format::{EditError, SceneDoc, TokenKind, tokens};

/// Why a marker could not be resolved. The text is unchanged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// No merge conflict marker starts at the offset given.
    #[error("no `forge-merge` marker starts at byte {0}")]
    NoMarker(usize),
    /// The marker's words are not one this build writes.
    #[error(
        "the marker says `{0}`, which is not `theirs = ..`, `theirs removes this` or `theirs keeps ..`"
    )]
    Unknown(String),
    /// The text, or the other branch's value the marker holds, does not read.
    #[error("{0}")]
    Unreadable(String),
    /// Taking the other branch's side is an edit the scene refuses (an entity that is gone).
    #[error(transparent)]
    Edit(#[from] EditError),
}

/// `text` (a scene, no byte-order mark) with the merge conflict marker at byte `at` resolved:
/// [`Side::Ours`] keeps the value as it is and deletes the marker; [`Side::Theirs`] puts the
/// marker's value in place of the value before it (`theirs = ..`; an entity's `parent` moves
/// the entity, as the edit layer's `reparent` does), deletes the entity before it with its
/// subtree (`theirs removes this`), or puts back the entities it holds under their parent
/// (`theirs keeps ..`), and deletes the marker.
///
/// # Errors
/// [`ResolveError::NoMarker`] when no marker starts at `at`; the others when the other
/// branch's side cannot be taken (the text is unchanged).
pub fn resolve(text: &str, at: usize, side: Side) -> Result<String, ResolveError> {
    let b = text.as_bytes();
    if !text.get(at..).is_some_and(|t| t.starts_with(PREFIX)) {
        return Err(ResolveError::NoMarker(at));
    }
    let end = block_comment_end(b, at).ok_or(ResolveError::NoMarker(at))?;
    let note = text[at + PREFIX.len()..end - 2].trim().to_owned();
    // The marker and the space written before it.
    let start = if at > 0 && b[at - 1] == b' ' {
        at - 1
    } else {
        at
    };
    let without = format!("{}{}", &text[..start], &text[end..]);
    if side == Side::Ours {
        return Ok(without);
    }
    let unreadable = |e: String| ResolveError::Unreadable(e);
    if let Some(value) = note.strip_prefix("theirs = ") {
        let before = value_before(text, start)
            .ok_or_else(|| unreadable("no value right before the marker".to_owned()))?;
        let parsed = SceneDoc::from_str(&without).map_err(|e| unreadable(e.to_string()))?;
        // An entity's `parent`: the entity moves (its old and new parents' lists change too).
        let moved = parsed.doc.entities.keys().copied().find(|id| {
            parsed
                .source_map
                .entity_field_span(*id, "parent")
                .and_then(|s| s.range())
                .is_some_and(|r| r == before)
        });
        if let Some(id) = moved {
            let parent = match value.trim() {
                "None" => None,
                v => Some(
                    v.strip_prefix("Some(")
                        .and_then(|v| v.strip_suffix(')'))
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .ok_or_else(|| unreadable(format!("`{v}` is not a parent")))?,
                ),
            };
            let mut doc = parsed.doc.clone();
            let len = match parent {
                None => doc.roots.iter().filter(|r| **r != id).count(),
                Some(p) => doc
                    .entity(p)
                    .ok_or(EditError::NoSuchEntity(p))?
                    .children
                    .iter()
                    .filter(|c| **c != id)
                    .count(),
            };
            doc.reparent(id, parent, len)?;
            return super::text::rewrite(&without, &parsed, &doc, false).map_err(unreadable);
        }
        let out = format!(
            "{}{}{}",
            &text[..before.start],
            value,
            &without[before.end..]
        );
        SceneDoc::from_str(&out)
            .map_err(|e| unreadable(format!("the other branch's value does not read: {e}")))?;
        return Ok(out);
    }
    let parsed = SceneDoc::from_str(&without).map_err(|e| unreadable(e.to_string()))?;
    let mut doc = parsed.doc.clone();
    if note == "theirs removes this" {
        let before = value_before(text, start)
            .ok_or_else(|| unreadable("no entry right before the marker".to_owned()))?;
        let id = parsed
            .doc
            .entities
            .keys()
            .copied()
            .find(|id| {
                parsed
                    .source_map
                    .entity_span(*id)
                    .and_then(|s| s.range())
                    .is_some_and(|r| r.end == before.end)
            })
            .ok_or_else(|| unreadable("no entity entry right before the marker".to_owned()))?;
        doc.delete_subtree(id)?;
    } else if let Some(entries) = note.strip_prefix("theirs keeps ") {
        let wrapped = format!(
            "(format_version: 1, name: \"\", entities: {{{entries}}}, roots: [], next_id: 1)"
        );
        let kept = SceneDoc::from_str(&wrapped)
            .map_err(|e| unreadable(format!("the entities the marker keeps do not read: {e}")))?
            .doc;
        let root = kept
            .entities
            .values()
            .find(|n| n.parent.is_none_or(|p| !kept.entities.contains_key(&p)))
            .map(|n| (n.id, n.parent));
        for (id, node) in &kept.entities {
            doc.entities.insert(*id, node.clone());
            doc.next_id = doc.next_id.max(id.saturating_add(1));
        }
        if let Some((id, parent)) = root {
            match parent.and_then(|p| doc.entity_mut(p)) {
                Some(p) => p.children.push(id),
                None => {
                    if let Some(n) = doc.entity_mut(id) {
                        n.parent = None;
                    }
                    doc.roots.push(id);
                }
            }
        }
    } else {
        return Err(ResolveError::Unknown(note));
    }
    super::text::rewrite(&without, &parsed, &doc, false).map_err(unreadable)
}

/// The value that ends right before `end` (past whitespace and comments): a number, string or
/// name, or a bracketed value with the name before its bracket (`Some(3)`, `(x: 1.0, ..)`).
fn value_before(text: &str, end: usize) -> Option<std::ops::Range<usize>> {
    let mut open: Vec<usize> = Vec::new();
    // The start of the last name read, when the next token may be its bracket.
    let mut name: Option<usize> = None;
    let mut last: Option<std::ops::Range<usize>> = None;
    for t in tokens(&text[..end]) {
        if t.is_trivia() {
            continue;
        }
        let s = &text[t.range.clone()];
        match t.kind {
            TokenKind::Punct if matches!(s, "(" | "[" | "{") => {
                open.push(name.take().unwrap_or(t.range.start));
                last = None;
            }
            TokenKind::Punct if matches!(s, ")" | "]" | "}") => {
                let from = open.pop()?;
                last = Some(from..t.range.end);
                name = None;
            }
            TokenKind::Ident => {
                name = Some(t.range.start);
                last = Some(t.range.clone());
            }
            TokenKind::Number | TokenKind::String { .. } => {
                name = None;
                last = Some(t.range.clone());
            }
            _ => {
                name = None;
                last = None;
            }
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_before_is_whole() {
        let text = "a: Some(3) , b: (x: 1.0, y: [2]) /* c */ ";
        let at = text.find(" ,").unwrap_or(0);
        assert_eq!(value_before(text, at).map(|r| &text[r]), Some("Some(3)"));
        let at = text.find(" /*").unwrap_or(0);
        assert_eq!(
            value_before(text, at).map(|r| &text[r]),
            Some("(x: 1.0, y: [2])")
        );
        assert_eq!(
            value_before("n: -2.5", 7).map(|r| &"n: -2.5"[r]),
            Some("-2.5")
        );
    }
}
