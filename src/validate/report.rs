//! Diagnostics as people read them: rustc-like text with the source line and carets under the
//! value, through [`codespan_reporting`]. `forge validate` prints this; a game or tool can too:
//!
//! ```
//! use bevy_forge_scene::validate::report::{FileText, human};
//! use bevy_forge_scene::format::SceneDoc;
//! use bevy_forge_scene::validate::validate_parsed;
//!
//! let text = r#"(format_version: 1, name: "", entities: {}, roots: [], next_id: 1)"#;
//! let parsed = SceneDoc::from_str(text)?;
//! let report = validate_parsed(&parsed, None);
//! let source = FileText::new("level.forge.ron".into(), text.as_bytes());
//! let out = human(&source, &report.diagnostics, false);
//! assert!(out.starts_with("warning[forge::scene::empty_name]: the scene name is empty"));
//! assert!(out.contains("--> level.forge.ron:1:"));
//! # Ok::<(), bevy_forge_scene::format::ReadError>(())
//! ```

use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as Report, Label, Severity as Level};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::termcolor::{Buffer, WriteColor};
use codespan_reporting::term::{self, Chars, Config};

use super::diagnostic::printable;
use super::{Diagnostic, Severity};

/// One scene file's text as shown in diagnostics.
pub struct FileText {
    /// The path as the user wrote it (or as found below a directory they named).
    pub name: String,
    /// The text, without a byte-order mark (source positions count from after it).
    pub text: String,
}

impl FileText {
    /// A source from the bytes of a file; invalid UTF-8 is shown with replacement characters.
    pub fn new(name: String, bytes: &[u8]) -> Self {
        let text = String::from_utf8_lossy(bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned();
        Self { name, text }
    }
}

/// Renders `diagnostics` of one file as rustc-like text: header, `--> file:line:column`, the
/// source line with carets under the value, and a `= help:` line. A diagnostic about another
/// file ([`Diagnostic::file`], a prefab's problem) is drawn without a source line; see
/// [`human_with`] to show its lines too.
pub fn human(source: &FileText, diagnostics: &[Diagnostic], colour: bool) -> String {
    human_with(source, diagnostics, colour, &|_| None)
}

/// [`human`], with `other` giving the text of the other files diagnostics point into (by
/// [`Diagnostic::file`]; each asked once).
pub fn human_with(
    source: &FileText,
    diagnostics: &[Diagnostic],
    colour: bool,
    other: &dyn Fn(&str) -> Option<FileText>,
) -> String {
    let mut buffer = if colour {
        Buffer::ansi()
    } else {
        Buffer::no_color()
    };
    let config = Config {
        chars: Chars::ascii(),
        ..Config::default()
    };
    let mut others: Vec<(String, Option<FileText>)> = Vec::new();
    for d in diagnostics {
        let elsewhere = d.file.as_deref().filter(|f| *f != source.name);
        let shown = match elsewhere {
            None => Some(source),
            Some(f) => {
                if !others.iter().any(|(name, _)| name == f) {
                    others.push((f.to_owned(), other(f)));
                }
                others
                    .iter()
                    .find(|(name, _)| name == f)
                    .and_then(|(_, s)| s.as_ref())
            }
        };
        let drawn = match shown {
            Some(shown) => {
                let file = SimpleFile::new(printable(&shown.name), shown.text.as_str());
                let report = to_report(shown, d);
                term::emit_to_write_style(&mut buffer, &config, &file, &report).is_ok()
            }
            None => false,
        };
        if !drawn {
            // Without the text (or at a position outside it): the place, then one plain line.
            let mut line = String::new();
            if let Some(f) = elsewhere {
                line.push_str(&printable(f));
                if let Some(p) = d.position {
                    line.push_str(&format!(":{}:{}", p.line, p.column));
                }
                line.push_str(": ");
            }
            let without_position = Diagnostic {
                position: if elsewhere.is_some() {
                    None
                } else {
                    d.position
                },
                ..d.clone()
            };
            line.push_str(&format!("{without_position}\n"));
            let _ = std::io::Write::write_all(&mut buffer, line.as_bytes());
        }
    }
    let _ = buffer.reset();
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}

fn to_report(source: &FileText, d: &Diagnostic) -> Report<()> {
    let level = match d.severity {
        Severity::Error => Level::Error,
        Severity::Warning => Level::Warning,
        Severity::Info => Level::Note,
    };
    let mut report = Report::new(level)
        .with_code(d.code)
        .with_message(printable(&d.message));
    let mut notes = Vec::new();
    match d.position {
        Some(p) if p.offset <= source.text.len() => {
            let mut label = Label::primary((), value_span(&source.text, p.offset));
            if let Some(context) = context(d) {
                label = label.with_message(context);
            }
            report = report.with_labels(vec![label]);
        }
        _ => {
            let mut at = format!("in {}", printable(&source.name));
            if let Some(context) = context(d) {
                at.push_str(&format!(" ({context})"));
            }
            notes.push(at);
        }
    }
    for related in &d.related {
        let mut at = related.file.clone().unwrap_or_else(|| source.name.clone());
        if let Some(p) = related.position {
            at.push_str(&format!(":{}:{}", p.line, p.column));
        }
        notes.push(format!(
            "note: {}: {}",
            printable(&at),
            printable(&related.message)
        ));
    }
    if let Some(help) = &d.help {
        notes.push(format!("help: {}", printable(help)));
    }
    report.with_notes(notes)
}

/// `entity 3, components[0].data.range`: what the label says next to the carets.
fn context(d: &Diagnostic) -> Option<String> {
    match (d.entity, &d.path) {
        (Some(id), Some(path)) => Some(format!("entity {id}, `{}`", printable(path))),
        (Some(id), None) => Some(format!("entity {id}")),
        (None, Some(path)) => Some(format!("`{}`", printable(path))),
        (None, None) => None,
    }
}

/// The byte range of the value starting at `offset`: a string up to its closing quote, a
/// bracketed group (or `Some(..)`, `sphere(..)`) up to its closing bracket, or a number or
/// identifier. Never crosses a line end; at least one character when there is one.
fn value_span(text: &str, offset: usize) -> Range<usize> {
    let bytes = text.as_bytes();
    let start = offset.min(bytes.len());
    let line_end = memchr_newline(bytes, start);
    let mut end = start;
    let token = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'-');
    match bytes.get(start) {
        Some(b'"') => {
            end = start + 1;
            while end < line_end {
                match bytes[end] {
                    b'\\' => end += 2,
                    b'"' => {
                        end += 1;
                        break;
                    }
                    _ => end += 1,
                }
            }
        }
        Some(_) => {
            while end < line_end && token(bytes[end]) {
                end += 1;
            }
            if end < line_end && matches!(bytes[end], b'(' | b'[' | b'{') {
                end = group_end(bytes, end, line_end);
            }
        }
        None => {}
    }
    let mut end = end.min(line_end);
    if end == start && start < line_end {
        end = start + 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

fn memchr_newline(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|b| *b == b'\n' || *b == b'\r')
        .map_or(bytes.len(), |i| from + i)
}

/// The end of the bracketed group opening at `open`, or `limit` when it does not close before.
fn group_end(bytes: &[u8], open: usize, limit: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    let mut in_string = false;
    while i < limit {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    limit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span_text(text: &str, at: &str) -> String {
        let offset = text.find(at).unwrap_or_default();
        text[value_span(text, offset)].to_owned()
    }

    #[test]
    fn spans_cover_the_whole_value() {
        let line = r#"(range: 0.0, image: Some("a \"b\".png"), custom_size: Some((x: 0.0, y: 1.0)), mesh: sphere(radius: 0.5), t: "é")"#;
        assert_eq!(span_text(line, "0.0,"), "0.0");
        assert_eq!(span_text(line, "Some(\""), r#"Some("a \"b\".png")"#);
        assert_eq!(span_text(line, "\"a"), r#""a \"b\".png""#);
        assert_eq!(span_text(line, "Some(("), "Some((x: 0.0, y: 1.0))");
        assert_eq!(span_text(line, "sphere"), "sphere(radius: 0.5)");
        assert_eq!(span_text(line, "\"é"), "\"é\"");
    }

    #[test]
    fn spans_stop_at_the_line_end_and_are_never_empty() {
        let text = "children: [\n  1,\n]";
        assert_eq!(span_text(text, "["), "[");
        assert_eq!(value_span(text, text.len()), text.len()..text.len());
        assert_eq!(span_text("a: ,", ","), ",");
    }

    #[test]
    fn human_output_points_at_the_value() {
        let source = FileText::new("s.forge.ron".into(), b"(\n  x: (range: 0.0),\n)");
        let offset = source.text.find("0.0").unwrap_or_default();
        let mut d = Diagnostic::new(
            Severity::Error,
            "forge::light::range",
            "point light range must be positive, found 0",
        )
        .with_entity(2)
        .with_path("components[0].data.range")
        .with_help("use a positive range");
        d.position = Some(crate::format::Position {
            line: 2,
            column: 14,
            offset,
        });
        let out = human(&source, &[d], false);
        assert!(
            out.starts_with(
                "error[forge::light::range]: point light range must be positive, found 0\n"
            ),
            "{out}"
        );
        assert!(out.contains("--> s.forge.ron:2:14"), "{out}");
        assert!(
            out.contains("^^^ entity 2, `components[0].data.range`"),
            "{out}"
        );
        assert!(out.contains("= help: use a positive range"), "{out}");
        assert!(!out.contains('\u{1b}'), "no colour codes: {out}");
    }
}
