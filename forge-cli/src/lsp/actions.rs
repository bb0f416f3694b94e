//! Formatting (the canonical layout with every comment kept: [`edit::format_text`], as
//! `forge fmt`) and code actions: each "did you mean" as a quick fix, a missing required custom
//! field inserted, `next_id` repaired, a parent and its children made to agree, and an old
//! `format_version` migrated (`forge migrate`), and either side of a conflict `forge merge` left
//! taken (`bevy_forge_scene::merge::resolve`). Structural fixes go through the library's edit
//! layer, which changes the text only where the document changed and keeps comments.
//!
//! [`edit::format_text`]: bevy_forge_scene::edit::format_text

use std::ops::Range;

use bevy_forge_scene::codes;
use bevy_forge_scene::edit::{SceneEdit, format_text, migrate};
use bevy_forge_scene::format::{ComponentData, EditError};
use bevy_forge_scene::merge::{self, Side};
use bevy_forge_scene::schema::FieldKind;
use bevy_forge_scene::validate::Diagnostic;

use super::diagnostics::{Problem, problems};
use super::state::{Document, State, Texts};

/// A change of the document's text: the bytes at `range` (after its byte-order mark) replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub new_text: String,
}

/// The edit that lays `doc` out canonically (none when it is), or why it cannot be: a text
/// that does not read is not formatted (formatting what did read would drop what did not).
pub fn format(doc: &Document) -> Result<Option<Edit>, String> {
    if let Some(e) = doc.read_errors.first() {
        let more = match doc.read_errors.len() {
            1 => String::new(),
            n => format!(" (and {} more problems)", n - 1),
        };
        return Err(format!(
            "forge lsp: the file is not formatted while it does not read: {e}{more}"
        ));
    }
    let formatted =
        format_text(doc.body()).map_err(|e| format!("forge lsp: not formatted: {e}"))?;
    Ok(minimal_edit(doc, &formatted))
}

/// The one edit that turns `doc`'s text (after its byte-order mark) into `new`: the part
/// between their common start and common end (none when they are equal).
fn minimal_edit(doc: &Document, new: &str) -> Option<Edit> {
    let old = doc.body();
    if old == new {
        return None;
    }
    let mut start = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(start) || !new.is_char_boundary(start) {
        start -= 1;
    }
    let max_end = old.len().min(new.len()) - start;
    let mut end = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_end)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - end) || !new.is_char_boundary(new.len() - end) {
        end -= 1;
    }
    Some(Edit {
        range: start..old.len() - end,
        new_text: new[start..new.len() - end].to_owned(),
    })
}

/// A quick fix of one problem.
#[derive(Debug, Clone, PartialEq)]
pub struct Fix {
    pub title: String,
    pub edit: Edit,
    /// Whether the client may apply it first.
    pub preferred: bool,
    /// The problem it fixes: an index into the [`problems`] of the document.
    pub problem: usize,
}

/// The quick fixes of the problems of `doc` (its [`problems`], placed through `texts`) that
/// overlap bytes `range`.
pub fn code_actions<'d>(
    state: &State,
    doc: &'d Document,
    texts: &mut Texts<'_>,
    range: Range<usize>,
) -> (Vec<Problem<'d>>, Vec<Fix>) {
    let schema = state.schema_of(doc);
    let shown = problems(texts, doc);
    let mut out = Vec::new();
    for (n, problem) in shown.iter().enumerate() {
        let d = problem.diagnostic;
        if d.file.is_some() || !overlaps(&problem.range, &range) {
            continue;
        }
        let mut fix = |title: String, edit: Option<Edit>, preferred: bool| {
            if let Some(edit) = edit {
                out.push(Fix {
                    title,
                    edit,
                    preferred,
                    problem: n,
                });
            }
        };
        for (i, s) in d.suggestions().into_iter().enumerate() {
            let written = doc.body().get(problem.range.clone()).unwrap_or_default();
            let new = if written.starts_with('"') {
                format!("\"{}\"", s.escape_debug())
            } else {
                s.to_owned()
            };
            let edit = Edit {
                range: problem.range.clone(),
                new_text: new,
            };
            fix(format!("Replace with `{s}`"), Some(edit), i == 0);
        }
        let structural = match d.code {
            codes::structure::NEXT_ID => Some(("Set `next_id` to the next free id", next_id(doc))),
            codes::structure::NOT_LISTED_BY_PARENT => d.entity.map(|id| {
                (
                    "Add the entity to its parent's `children`",
                    edited(doc, |doc| {
                        let parent = doc
                            .entity(id)
                            .and_then(|e| e.parent)
                            .ok_or(EditError::NoSuchEntity(id))?;
                        let p = doc
                            .entity_mut(parent)
                            .ok_or(EditError::NoSuchEntity(parent))?;
                        p.children.push(id);
                        Ok(())
                    }),
                )
            }),
            codes::structure::CHILD_DISAGREES => d.entity.and_then(|id| {
                let child = number_after(&d.help.clone().unwrap_or_default(), "on entity ")?;
                Some((
                    "Set the child's `parent` to this entity",
                    edited(doc, move |doc| {
                        let c = doc
                            .entity_mut(child)
                            .ok_or(EditError::NoSuchEntity(child))?;
                        c.parent = Some(id);
                        Ok(())
                    }),
                ))
            }),
            codes::format::VERSION_ZERO => Some((
                "Migrate to the current format version (`forge migrate`)",
                migrated(doc),
            )),
            codes::custom::MISSING_REQUIRED => {
                missing_field(doc, d, schema).map(|e| ("Add the required field", Some(e)))
            }
            _ => None,
        };
        if let Some((title, edit)) = structural {
            fix(title.to_owned(), edit, true);
        }
        if d.code == codes::merge::CONFLICT
            && let Some(at) = d.position.map(|p| p.offset)
        {
            // Either side of a conflict `forge merge` left.
            for (title, side) in [
                (
                    "Take ours: keep this value, delete the merge marker",
                    Side::Ours,
                ),
                ("Take theirs: the merge marker's value", Side::Theirs),
            ] {
                let resolved = merge::resolve(doc.body(), at, side).ok();
                fix(
                    title.to_owned(),
                    resolved.and_then(|t| minimal_edit(doc, &t)),
                    false,
                );
            }
        }
    }
    (shown, out)
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// The number written after `after` in `text`.
fn number_after(text: &str, after: &str) -> Option<u64> {
    let rest = &text[text.find(after)? + after.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The edit `change` makes through the edit layer (comments kept).
fn edited(
    doc: &Document,
    change: impl FnOnce(&mut bevy_forge_scene::format::SceneDoc) -> Result<(), EditError>,
) -> Option<Edit> {
    let mut edit = SceneEdit::from_text(doc.body()).ok()?;
    edit.change("quick fix", change).ok()??;
    minimal_edit(doc, &edit.text())
}

fn next_id(doc: &Document) -> Option<Edit> {
    let parsed = doc.parsed.as_ref()?;
    let max = parsed.doc.entities.keys().max().copied().unwrap_or(0);
    let span = parsed.source_map.top_field_span("next_id")?.range()?;
    let next = max.checked_add(1)?;
    Some(Edit {
        range: span,
        new_text: next.to_string(),
    })
}

fn migrated(doc: &Document) -> Option<Edit> {
    let mut edit = SceneEdit::from_text(doc.body()).ok()?;
    migrate(&mut edit).ok()??;
    minimal_edit(doc, &edit.text())
}

/// The required field a `forge::custom::missing_required` names, added with its default (else
/// a value of its kind).
fn missing_field(
    doc: &Document,
    d: &Diagnostic,
    schema: Option<&bevy_forge_scene::schema::SchemaFile>,
) -> Option<Edit> {
    let id = d.entity?;
    let index: usize = d
        .path
        .as_deref()?
        .strip_prefix("components[")?
        .split(']')
        .next()?
        .parse()
        .ok()?;
    let parsed = doc.parsed.as_ref()?;
    let ComponentData::Custom(custom) = parsed.doc.entity(id)?.components.get(index)? else {
        return None;
    };
    let name = d
        .message
        .split("needs field `")
        .nth(1)?
        .split('`')
        .next()?
        .to_owned();
    let field = schema?.get(&custom.type_path)?.field(&name)?;
    let expr = field.default.clone().unwrap_or_else(|| {
        match &field.kind {
            FieldKind::Bool => "false",
            FieldKind::Integer { .. } => "0",
            FieldKind::Float { .. } => "0.0",
            FieldKind::String => "String::new()",
            FieldKind::Entity => "#1",
            FieldKind::Option(_) => "None",
            FieldKind::List(_) => "vec![]",
            _ => "Default::default()",
        }
        .to_owned()
    });
    let type_path = custom.type_path.to_string();
    let fixed = {
        let mut edit = SceneEdit::from_text(doc.body()).ok()?;
        edit.set_custom_field(id, &type_path, &name, &expr).ok()??;
        edit.text()
    };
    minimal_edit(doc, &fixed)
}
