//! Formatting (the canonical layout with every comment kept: [`edit::format_text`], as
//! `forge fmt`) and code actions: each "did you mean" as a quick fix, a missing required custom
//! field inserted, `next_id` repaired, a parent and its children made to agree, and an old
//! `format_version` migrated (`forge migrate`). Structural fixes go through the library's edit
//! layer, which changes the text only where the document changed and keeps comments.
//!
//! [`edit::format_text`]: bevy_forge_scene::edit::format_text

use std::collections::HashMap;

use bevy_forge_scene::edit::{SceneEdit, format_text, migrate};
use bevy_forge_scene::format::{ComponentData, EditError};
use bevy_forge_scene::schema::FieldKind;
use bevy_forge_scene::validate::Diagnostic;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse,
    DocumentFormattingParams, Range, TextEdit, WorkspaceEdit,
};

use super::diagnostics::to_lsp;
use super::server::Failure;
use super::state::{Document, State, document};
use super::text::Encoding;

pub fn format(
    state: &mut State,
    params: DocumentFormattingParams,
) -> Result<Option<Vec<TextEdit>>, Failure> {
    let doc = document(state, &params.text_document.uri)?;
    // A text that does not read is left as it is (its diagnostic says why).
    let Ok(formatted) = format_text(doc.body()) else {
        return Ok(None);
    };
    Ok(Some(
        minimal_edit(doc, &formatted, state.encoding)
            .into_iter()
            .collect(),
    ))
}

/// The one edit that turns `doc`'s text into `new`: the part between their common start and
/// common end (none when they are equal).
fn minimal_edit(doc: &Document, new: &str, encoding: Encoding) -> Option<TextEdit> {
    let old = doc.text.as_str();
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
    Some(TextEdit::new(
        doc.text.range(start..old.len() - end, encoding),
        new[start..new.len() - end].to_owned(),
    ))
}

pub fn code_actions(
    state: &mut State,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>, Failure> {
    let schema = {
        let doc = document(state, &params.text_document.uri)?;
        let path = doc.path.clone();
        state.schema_for(path.as_deref())
    };
    let uri = params.text_document.uri.clone();
    let doc = document(state, &uri)?;
    let Some(checked) = &doc.checked else {
        return Ok(None);
    };
    let encoding = state.encoding;
    let shown = to_lsp(state, doc);
    let mut out = Vec::new();
    for (d, lsp) in checked.diagnostics.iter().zip(&shown) {
        if d.file.is_some() || !overlaps(lsp.range, params.range) {
            continue;
        }
        let mut fix = |title: String, edit: Option<TextEdit>, preferred: bool| {
            let Some(edit) = edit else {
                return;
            };
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![lsp.clone()]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                    ..Default::default()
                }),
                is_preferred: Some(preferred),
                ..Default::default()
            }));
        };
        for (i, s) in d.suggestions().into_iter().enumerate() {
            let written = &doc.text.as_str()[doc.text.offset(lsp.range.start, encoding)
                ..doc.text.offset(lsp.range.end, encoding)];
            let new = if written.starts_with('"') {
                format!("\"{}\"", s.escape_debug())
            } else {
                s.to_owned()
            };
            fix(
                format!("Replace with `{s}`"),
                Some(TextEdit::new(lsp.range, new)),
                i == 0,
            );
        }
        let structural = match d.code {
            "forge::structure::next_id" => {
                Some(("Set `next_id` to the next free id", next_id(doc, encoding)))
            }
            "forge::structure::not_listed_by_parent" => d.entity.map(|id| {
                (
                    "Add the entity to its parent's `children`",
                    edited(doc, encoding, |doc| {
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
            "forge::structure::child_disagrees" => d.entity.and_then(|id| {
                let child = number_after(&d.help.clone().unwrap_or_default(), "on entity ")?;
                Some((
                    "Set the child's `parent` to this entity",
                    edited(doc, encoding, move |doc| {
                        let c = doc
                            .entity_mut(child)
                            .ok_or(EditError::NoSuchEntity(child))?;
                        c.parent = Some(id);
                        Ok(())
                    }),
                ))
            }),
            "forge::format::version_zero" => Some((
                "Migrate to the current format version (`forge migrate`)",
                migrated(doc, encoding),
            )),
            "forge::custom::missing_required" => missing_field(doc, d, schema.as_ref(), encoding)
                .map(|e| ("Add the required field", Some(e))),
            _ => None,
        };
        if let Some((title, edit)) = structural {
            fix(title.to_owned(), edit, true);
        }
    }
    Ok(Some(out))
}

fn overlaps(a: Range, b: Range) -> bool {
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
    encoding: Encoding,
    change: impl FnOnce(&mut bevy_forge_scene::format::SceneDoc) -> Result<(), EditError>,
) -> Option<TextEdit> {
    let mut edit = SceneEdit::from_text(doc.body()).ok()?;
    edit.change("quick fix", change).ok()??;
    let bom = &doc.text.as_str()[..doc.text.bom()];
    minimal_edit(doc, &format!("{bom}{}", edit.text()), encoding)
}

fn next_id(doc: &Document, encoding: Encoding) -> Option<TextEdit> {
    let parsed = doc.parsed.as_ref()?;
    let max = parsed.doc.entities.keys().max().copied().unwrap_or(0);
    let span = parsed.source_map.top_field_span("next_id")?.range()?;
    let next = max.checked_add(1)?;
    Some(TextEdit::new(doc.range(span, encoding), next.to_string()))
}

fn migrated(doc: &Document, encoding: Encoding) -> Option<TextEdit> {
    let mut edit = SceneEdit::from_text(doc.body()).ok()?;
    migrate(&mut edit).ok()??;
    let bom = &doc.text.as_str()[..doc.text.bom()];
    minimal_edit(doc, &format!("{bom}{}", edit.text()), encoding)
}

/// The required field a `forge::custom::missing_required` names, added with its default (else
/// a value of its kind).
fn missing_field(
    doc: &Document,
    d: &Diagnostic,
    schema: Option<&bevy_forge_scene::schema::SchemaFile>,
    encoding: Encoding,
) -> Option<TextEdit> {
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
    let bom = &doc.text.as_str()[..doc.text.bom()];
    minimal_edit(doc, &format!("{bom}{fixed}"), encoding)
}
