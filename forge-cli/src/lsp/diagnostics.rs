//! The library's diagnostics as the protocol's: ranges in the client's encoding, the code, the
//! help, and related places (a prefab's own problem shown where the scene places it, with the
//! place in the prefab file; each link of a chain).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bevy_forge_scene::validate::{Diagnostic, Severity};
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Position, Range,
};

use super::locate::token_end;
use super::state::{Document, State, path_uri};
use super::text::{Encoding, Text};

/// The texts of other files that related places point into, read once per conversion.
struct Others<'a> {
    state: &'a State,
    texts: HashMap<PathBuf, Option<Text>>,
}

impl Others<'_> {
    /// The range at library position `position` of file `path` (its line and column when the
    /// file cannot be read).
    fn range(&mut self, path: &Path, position: bevy_forge_scene::format::Position) -> Range {
        let state = self.state;
        let text = self.texts.entry(path.to_owned()).or_insert_with(|| {
            let bytes = state.file_text(path).ok()?;
            Some(Text::new(String::from_utf8_lossy(&bytes).into_owned()))
        });
        match text {
            Some(text) => token_range(text, position.offset + text.bom(), state.encoding),
            None => {
                let p = Position::new(
                    position.line.saturating_sub(1),
                    position.column.saturating_sub(1),
                );
                Range::new(p, p)
            }
        }
    }
}

/// The range of the token at byte `offset` of `text` (a word, number, string or reference; one
/// character for a bracket).
pub fn token_range(text: &Text, offset: usize, encoding: Encoding) -> Range {
    let end = token_end(text.as_str(), offset);
    text.range(offset..end, encoding)
}

/// The protocol's diagnostics for document `doc`.
pub fn to_lsp(state: &State, doc: &Document) -> Vec<lsp_types::Diagnostic> {
    let Some(checked) = &doc.checked else {
        return Vec::new();
    };
    let mut others = Others {
        state,
        texts: HashMap::new(),
    };
    checked
        .diagnostics
        .iter()
        .map(|d| convert(doc, &checked.root, d, &mut others))
        .collect()
}

fn convert(
    doc: &Document,
    root: &Path,
    d: &Diagnostic,
    others: &mut Others<'_>,
) -> lsp_types::Diagnostic {
    let encoding = others.state.encoding;
    let bom = doc.text.bom();
    let mut related = Vec::new();
    let range = match &d.file {
        None => match (d.position, d.entity) {
            (Some(p), _) => token_range(&doc.text, p.offset + bom, encoding),
            (None, Some(id)) => doc
                .parsed
                .as_ref()
                .and_then(|p| p.source_map.entity_span(id))
                .map_or_else(Range::default, |s| {
                    token_range(&doc.text, s.start as usize + bom, encoding)
                }),
            (None, None) => Range::default(),
        },
        Some(file) => {
            // A prefab's own problem: shown on the instance placing it, and where it is.
            let path = root.join(file);
            if let (Some(uri), Some(p)) = (path_uri(&path), d.position) {
                related.push(DiagnosticRelatedInformation {
                    location: Location::new(uri, others.range(&path, p)),
                    message: format!("in `{file}`{}", entity_note(d)),
                });
            }
            placing_range(doc, file, d, encoding)
        }
    };
    for r in &d.related {
        let (uri, range) = match &r.file {
            None => {
                let Some(uri) = doc.path.as_deref().and_then(path_uri) else {
                    continue;
                };
                let range = r.position.map_or_else(Range::default, |p| {
                    token_range(&doc.text, p.offset + bom, encoding)
                });
                (uri, range)
            }
            Some(file) => {
                let path = if Path::new(file).is_absolute() {
                    PathBuf::from(file)
                } else {
                    root.join(file)
                };
                let Some(uri) = path_uri(&path) else {
                    continue;
                };
                let range = r
                    .position
                    .map_or_else(Range::default, |p| others.range(&path, p));
                (uri, range)
            }
        };
        related.push(DiagnosticRelatedInformation {
            location: Location::new(uri, range),
            message: r.message.clone(),
        });
    }
    let mut message = d.message.clone();
    if d.file.is_some()
        && let Some(file) = &d.file
    {
        message = format!("in prefab `{file}`: {message}");
    }
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    lsp_types::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.to_owned())),
        source: Some("forge".to_owned()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        data: data(d),
        ..Default::default()
    }
}

/// What code actions need of a diagnostic: its did-you-mean replacements.
fn data(d: &Diagnostic) -> Option<serde_json::Value> {
    let suggestions = d.suggestions();
    (!suggestions.is_empty()).then(|| serde_json::json!({ "suggestions": suggestions }))
}

fn entity_note(d: &Diagnostic) -> String {
    match d.entity {
        Some(id) => format!(", entity {id}"),
        None => String::new(),
    }
}

/// Where a problem of prefab `file` shows in the scene: the place a related link of the scene
/// names, else the `scene` of the first instance placing the file, else of the first instance.
fn placing_range(doc: &Document, file: &str, d: &Diagnostic, encoding: Encoding) -> Range {
    let bom = doc.text.bom();
    if let Some(p) = d
        .related
        .iter()
        .find(|r| r.file.is_none())
        .and_then(|r| r.position)
    {
        return token_range(&doc.text, p.offset + bom, encoding);
    }
    let Some(parsed) = &doc.parsed else {
        return Range::default();
    };
    let instances = || {
        parsed
            .doc
            .entities
            .values()
            .filter_map(|e| Some((e.id, e.instance.as_deref()?)))
    };
    let id = instances()
        .find(|(_, i)| i.scene == file)
        .or_else(|| instances().next())
        .map(|(id, _)| id);
    id.and_then(|id| parsed.source_map.instance_scene_span(id))
        .and_then(|s| s.range())
        .map_or_else(Range::default, |r| {
            doc.text.range(r.start + bom..r.end + bom, encoding)
        })
}
