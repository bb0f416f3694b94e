//! The library's diagnostics placed in the document: the bytes each covers (the token at its
//! position), the message with its help, and related places (a prefab's own problem shown where
//! the scene places it, with the place in the prefab file; each link of a chain).

use std::ops::Range;
use std::path::{Path, PathBuf};

use bevy_forge_scene::validate::Diagnostic;

use super::locate::{At, Place, token_end};
use super::state::{Document, Texts};

/// A diagnostic of the document's latest check, placed.
#[derive(Debug, Clone)]
pub struct Problem<'d> {
    /// The diagnostic, as the library gave it (severity, code, suggestions).
    pub diagnostic: &'d Diagnostic,
    /// Where it shows in the document.
    pub range: Range<usize>,
    /// The message with its help (`in prefab ..:` first for a prefab's own).
    pub message: String,
    /// Other places that explain it, each with what it is.
    pub related: Vec<(Place, String)>,
}

/// The bytes of the token at byte `offset` of `text` (a word, number, string or reference; one
/// character for a bracket).
fn token(text: &str, offset: usize) -> Range<usize> {
    offset..token_end(text, offset)
}

/// Each diagnostic of `doc`'s latest check, placed (other files' texts read through `texts`).
pub fn problems<'d>(texts: &mut Texts<'_>, doc: &'d Document) -> Vec<Problem<'d>> {
    let Some(checked) = &doc.checked else {
        return Vec::new();
    };
    checked
        .diagnostics
        .iter()
        .map(|d| place(doc, &checked.root, d, texts))
        .collect()
}

/// The place of library position `position` in the file at `path`: the token there, or its
/// line and column when the file cannot be read.
fn elsewhere(
    texts: &mut Texts<'_>,
    path: &Path,
    position: bevy_forge_scene::format::Position,
) -> Place {
    let at = match texts.get(path) {
        Some(text) => {
            let body = &text.as_str()[text.bom()..];
            At::Bytes(token(body, position.offset))
        }
        None => At::LineColumn(position.line, position.column),
    };
    Place {
        file: Some(path.to_owned()),
        at,
    }
}

fn place<'d>(doc: &Document, root: &Path, d: &'d Diagnostic, texts: &mut Texts<'_>) -> Problem<'d> {
    let body = doc.body();
    let mut related = Vec::new();
    let range = match &d.file {
        None => match (d.position, d.entity) {
            (Some(p), _) => token(body, p.offset),
            (None, Some(id)) => doc
                .parsed
                .as_ref()
                .and_then(|p| p.source_map.entity_span(id))
                .map_or(0..0, |s| token(body, s.start as usize)),
            (None, None) => 0..0,
        },
        Some(file) => {
            // A prefab's own problem: shown on the instance placing it, and where it is.
            let path = root.join(file);
            if let Some(p) = d.position {
                related.push((
                    elsewhere(texts, &path, p),
                    format!("in `{file}`{}", entity_note(d)),
                ));
            }
            placing_range(doc, file, d)
        }
    };
    for r in &d.related {
        let place = match &r.file {
            None => {
                if doc.path.is_none() {
                    continue;
                }
                Place::here(r.position.map_or(0..0, |p| token(body, p.offset)))
            }
            Some(file) => {
                let path = if Path::new(file).is_absolute() {
                    PathBuf::from(file)
                } else {
                    root.join(file)
                };
                match r.position {
                    Some(p) => elsewhere(texts, &path, p),
                    None => Place::in_file(path, 0..0),
                }
            }
        };
        related.push((place, r.message.clone()));
    }
    let mut message = d.message.clone();
    if let Some(file) = &d.file {
        message = format!("in prefab `{file}`: {message}");
    }
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    Problem {
        diagnostic: d,
        range,
        message,
        related,
    }
}

fn entity_note(d: &Diagnostic) -> String {
    match d.entity {
        Some(id) => format!(", entity {id}"),
        None => String::new(),
    }
}

/// Where a problem of prefab `file` shows in the scene: the place a related link of the scene
/// names, else the `scene` of the first instance placing the file, else of the first instance.
fn placing_range(doc: &Document, file: &str, d: &Diagnostic) -> Range<usize> {
    if let Some(p) = d
        .related
        .iter()
        .find(|r| r.file.is_none())
        .and_then(|r| r.position)
    {
        return token(doc.body(), p.offset);
    }
    let Some(parsed) = &doc.parsed else {
        return 0..0;
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
        .unwrap_or(0..0)
}
