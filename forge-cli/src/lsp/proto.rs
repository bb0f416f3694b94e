//! The protocol's side: requests' positions to byte offsets, and what the analysis answers
//! (plain byte ranges and items) to `lsp_types`, positions counted in the client's encoding
//! (UTF-16 code units by default); `file:` URIs and paths both ways. The one place, with the
//! server loop, that names `lsp_types`.

use std::path::{Path, PathBuf};

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CompletionItem, CompletionItemKind,
    CompletionTextEdit, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol,
    Documentation, InlayHint, InlayHintLabel, InsertTextFormat, Location, MarkupContent,
    MarkupKind, NumberOrString, Position, Range, SymbolKind, TextEdit, Uri, WorkspaceEdit,
};

use bevy_forge_scene::validate::Severity;

use super::actions::{Edit, Fix};
use super::completion::{Completion, Kind};
use super::diagnostics::Problem;
use super::hover::Hover;
use super::locate::{At, Place};
use super::navigation::{Hint, Symbol};
use super::state::{Document, State, Texts};

/// How a request fails: a message for the client.
pub type Failure = String;

/// The open document at `uri`, or the failure a request about another answers.
pub fn document<'s>(state: &'s State, uri: &Uri) -> Result<&'s Document, Failure> {
    state
        .documents
        .get(uri.as_str())
        .ok_or_else(|| format!("forge lsp: `{}` is not open", uri.as_str()))
}

/// The byte offset (after the byte-order mark) of `position` in `doc`.
pub fn offset(state: &State, doc: &Document, position: Position) -> usize {
    doc.text
        .offset(position, state.encoding)
        .saturating_sub(doc.text.bom())
}

/// The protocol range of bytes `range` (after the byte-order mark) of `doc`.
pub fn range(state: &State, doc: &Document, range: std::ops::Range<usize>) -> Range {
    let bom = doc.text.bom();
    doc.text
        .range(range.start + bom..range.end + bom, state.encoding)
}

/// The location of `place`, which is in document `uri` or the file it names.
pub fn location(
    state: &State,
    texts: &mut Texts<'_>,
    uri: &Uri,
    doc: &Document,
    place: &Place,
) -> Option<Location> {
    match &place.file {
        None => {
            let at = match &place.at {
                At::Bytes(r) => range(state, doc, r.clone()),
                At::LineColumn(line, column) => line_column(*line, *column),
            };
            Some(Location::new(uri.clone(), at))
        }
        Some(path) => {
            let at = match (&place.at, texts.get(path)) {
                (At::Bytes(r), Some(text)) => {
                    let bom = text.bom();
                    text.range(r.start + bom..r.end + bom, state.encoding)
                }
                (At::Bytes(_), None) => Range::default(),
                (At::LineColumn(line, column), _) => line_column(*line, *column),
            };
            Some(Location::new(path_uri(path)?, at))
        }
    }
}

/// A 1-based line and column as an empty protocol range.
fn line_column(line: u32, column: u32) -> Range {
    let p = Position::new(line.saturating_sub(1), column.saturating_sub(1));
    Range::new(p, p)
}

pub fn hover(state: &State, doc: &Document, h: Hover) -> lsp_types::Hover {
    lsp_types::Hover {
        contents: lsp_types::HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: h.markdown,
        }),
        range: Some(range(state, doc, h.range)),
    }
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written.
pub fn symbol(state: &State, doc: &Document, s: Symbol) -> DocumentSymbol {
    let children: Vec<DocumentSymbol> = s
        .children
        .into_iter()
        .map(|c| symbol(state, doc, c))
        .collect();
    DocumentSymbol {
        name: s.name,
        detail: Some(s.detail),
        kind: if s.instance {
            SymbolKind::MODULE
        } else {
            SymbolKind::OBJECT
        },
        tags: None,
        deprecated: None,
        range: range(state, doc, s.range),
        selection_range: range(state, doc, s.selection),
        children: (!children.is_empty()).then_some(children),
    }
}

pub fn inlay_hint(state: &State, doc: &Document, h: Hint) -> InlayHint {
    InlayHint {
        position: range(state, doc, h.at..h.at).end,
        label: InlayHintLabel::String(h.label),
        kind: None,
        text_edits: None,
        tooltip: None,
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}

pub fn completion(state: &State, doc: &Document, c: Completion) -> CompletionItem {
    let kind = match c.kind {
        Kind::Component => CompletionItemKind::STRUCT,
        Kind::Type => CompletionItemKind::CLASS,
        Kind::Field => CompletionItemKind::FIELD,
        Kind::Value => CompletionItemKind::ENUM_MEMBER,
        Kind::Entity => CompletionItemKind::REFERENCE,
        Kind::File => CompletionItemKind::FILE,
        Kind::Snippet => CompletionItemKind::SNIPPET,
    };
    let edit = TextEdit::new(range(state, doc, c.replace), c.insert);
    CompletionItem {
        label: c.label,
        kind: Some(kind),
        detail: c.detail,
        documentation: c.docs.map(|value| {
            Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            })
        }),
        insert_text_format: (c.filter.is_none()).then_some(if c.snippet {
            InsertTextFormat::SNIPPET
        } else {
            InsertTextFormat::PLAIN_TEXT
        }),
        filter_text: c.filter,
        text_edit: Some(CompletionTextEdit::Edit(edit)),
        ..Default::default()
    }
}

pub fn edit(state: &State, doc: &Document, e: Edit) -> TextEdit {
    TextEdit::new(range(state, doc, e.range), e.new_text)
}

/// The protocol's diagnostics of `problems` of document `doc`.
pub fn diagnostics(
    state: &State,
    texts: &mut Texts<'_>,
    uri: &Uri,
    doc: &Document,
    problems: &[Problem<'_>],
) -> Vec<lsp_types::Diagnostic> {
    problems
        .iter()
        .map(|p| diagnostic(state, texts, uri, doc, p))
        .collect()
}

fn diagnostic(
    state: &State,
    texts: &mut Texts<'_>,
    uri: &Uri,
    doc: &Document,
    p: &Problem<'_>,
) -> lsp_types::Diagnostic {
    let d = p.diagnostic;
    let related: Vec<DiagnosticRelatedInformation> = p
        .related
        .iter()
        .filter_map(|(place, message)| {
            let location = location(state, texts, uri, doc, place)?;
            Some(DiagnosticRelatedInformation {
                location,
                message: message.clone(),
            })
        })
        .collect();
    let suggestions = d.suggestions();
    lsp_types::Diagnostic {
        range: range(state, doc, p.range.clone()),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.to_owned())),
        source: Some("forge".to_owned()),
        message: p.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        // What code actions need of a diagnostic: its did-you-mean replacements.
        data: (!suggestions.is_empty()).then(|| serde_json::json!({ "suggestions": suggestions })),
        ..Default::default()
    }
}

/// The quick fixes `fixes` of document `uri`, each with the protocol diagnostic it fixes.
pub fn code_actions(
    state: &State,
    texts: &mut Texts<'_>,
    uri: &Uri,
    doc: &Document,
    problems: &[Problem<'_>],
    fixes: Vec<Fix>,
) -> Vec<CodeActionOrCommand> {
    fixes
        .into_iter()
        .filter_map(|f| {
            let shown = diagnostic(state, texts, uri, doc, problems.get(f.problem)?);
            let change = edit(state, doc, f.edit);
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title: f.title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![shown]),
                edit: Some(WorkspaceEdit {
                    changes: Some(std::collections::HashMap::from([(
                        uri.clone(),
                        vec![change],
                    )])),
                    ..Default::default()
                }),
                is_preferred: Some(f.preferred),
                ..Default::default()
            }))
        })
        .collect()
}

/// The path of a `file:` URI.
pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///c%3A/x` on Windows, `file:///home/x` elsewhere; a host other than empty or
    // `localhost` is not a local file.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = percent_decode(rest)?;
    let text = String::from_utf8(bytes).ok()?;
    if cfg!(windows) {
        let trimmed = text.trim_start_matches('/');
        return Some(PathBuf::from(trimmed));
    }
    Some(PathBuf::from(text))
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The `file:` URI of `path` (made absolute).
pub fn path_uri(path: &Path) -> Option<Uri> {
    let path = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let text = path.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            b':' if cfg!(windows) => out.push(':'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_and_paths_round_trip() {
        let path = PathBuf::from("/tmp/a b/zoë#1.forge.ron");
        let uri = path_uri(&path);
        assert_eq!(
            uri.as_ref().map(|u| u.as_str().to_owned()),
            Some("file:///tmp/a%20b/zo%C3%AB%231.forge.ron".to_owned())
        );
        assert_eq!(uri.as_ref().and_then(uri_path), Some(path));
        let other: Option<Uri> = "untitled:Untitled-1".parse().ok();
        assert_eq!(other.as_ref().and_then(uri_path), None);
    }
}
