//! Errors of reading a `.forge.ron` document.

use std::fmt;
use std::path::PathBuf;

use super::source_map::Position;

/// Why a document could not be read, with where it happened.
///
/// `Display` gives `file:line:column: message (entity N, field `path`)`, the line and column
/// 1-based; the file part only when the document was read from a path.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError(Box<ReadErrorInner>);

#[derive(Debug, Clone, PartialEq)]
struct ReadErrorInner {
    path: Option<PathBuf>,
    position: Position,
    entity: Option<u64>,
    field: Option<String>,
    kind: ReadErrorKind,
}

impl ReadError {
    pub(crate) fn new(
        position: Position,
        entity: Option<u64>,
        field: Option<String>,
        kind: ReadErrorKind,
    ) -> Self {
        Self(Box::new(ReadErrorInner {
            path: None,
            position,
            entity,
            field,
            kind,
        }))
    }

    /// Names the file the text came from, for messages.
    pub fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.0.path = Some(path.into());
        self
    }

    /// The file, when the document was read from disk.
    pub fn path(&self) -> Option<&std::path::Path> {
        self.0.path.as_deref()
    }

    /// Where the problem is.
    pub fn position(&self) -> Position {
        self.0.position
    }

    /// 1-based line of the problem.
    pub fn line(&self) -> u32 {
        self.0.position.line
    }

    /// 1-based column of the problem, in characters.
    pub fn column(&self) -> u32 {
        self.0.position.column
    }

    /// The entity being read, if any.
    pub fn entity(&self) -> Option<u64> {
        self.0.entity
    }

    /// The field being read, as a path from the entity (`components[0].data.font_size`) or from
    /// the document when no entity is involved (`roots[2]`).
    pub fn field(&self) -> Option<&str> {
        self.0.field.as_deref()
    }

    /// What went wrong.
    pub fn kind(&self) -> &ReadErrorKind {
        &self.0.kind
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0;
        if let Some(path) = &e.path {
            write!(f, "{}:", path.display())?;
        }
        if !matches!(e.kind, ReadErrorKind::Io(_)) {
            write!(f, "{}:{}:", e.position.line, e.position.column)?;
        }
        write!(f, " {}", e.kind)?;
        match (&e.entity, &e.field) {
            (Some(id), Some(field)) => write!(f, " (entity {id}, field `{field}`)"),
            (Some(id), None) => write!(f, " (entity {id})"),
            (None, Some(field)) => write!(f, " (field `{field}`)"),
            (None, None) => Ok(()),
        }
    }
}

impl std::error::Error for ReadError {}

/// What went wrong while reading a document.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// A token other than the one the grammar needs here.
    #[error("expected {expected}, found {found}")]
    Unexpected {
        /// What the format allows here (`` `(` ``, `a number`, ...).
        expected: &'static str,
        /// What the text has, quoted.
        found: String,
    },
    /// The text ends in the middle of the document.
    #[error("unexpected end of input, expected {expected}")]
    UnexpectedEnd {
        /// What the format needs next.
        expected: &'static str,
    },
    /// A field name the struct does not have.
    #[error("unknown field `{field}` in {context}, expected one of {}{}", list(.expected), suggest(.suggestion))]
    UnknownField {
        /// The name found.
        field: String,
        /// The struct being read (`entity`, `transform`, `sprite data`, ...).
        context: &'static str,
        /// The fields this struct has.
        expected: &'static [&'static str],
        /// The closest known field, when one is close.
        suggestion: Option<&'static str>,
    },
    /// A field given twice in one struct.
    #[error("field `{field}` appears twice in {context}")]
    DuplicateField {
        /// The repeated field.
        field: &'static str,
        /// The struct being read.
        context: &'static str,
    },
    /// A required field is absent.
    #[error("missing field `{field}` in {context}")]
    MissingField {
        /// The absent field.
        field: &'static str,
        /// The struct being read.
        context: &'static str,
    },
    /// Two entries of `entities` share a key; RON would silently keep the last one.
    #[error(
        "entity key {id} appears twice in `entities` (first at line {first_line}); each id may appear once"
    )]
    DuplicateEntityKey {
        /// The repeated key.
        id: u64,
        /// Line of the first entry with that key.
        first_line: u32,
    },
    /// A tag written as a string (`type: "sprite"`).
    #[error(
        "tags are bare identifiers, not strings: write `{field}: {tag}` instead of `{field}: \"{tag}\"`"
    )]
    TagAsString {
        /// The tag field (`type`, `source`, `data`).
        field: &'static str,
        /// The string's content.
        tag: String,
    },
    /// An identifier that is not one of the allowed variants (component tag, primitive shape,
    /// mesh source, visibility mode).
    #[error("unknown {what} `{found}`, expected one of {}{}", list(.expected), suggest(.suggestion))]
    UnknownVariant {
        /// What kind of name (`component type`, `primitive shape`, ...).
        what: &'static str,
        /// The name found.
        found: String,
        /// The allowed names.
        expected: &'static [&'static str],
        /// The closest allowed name, when one is close.
        suggestion: Option<&'static str>,
    },
    /// A `format_version` this build cannot read.
    #[error("format_version {found} is newer than this build supports; this build reads format 1")]
    UnsupportedFormatVersion {
        /// The version in the file.
        found: u64,
    },
    /// An instance writes both `scene` and `model`, or neither: it places one prefab scene or
    /// one glTF model.
    #[error(
        "{}: an instance places a prefab (`scene: \"props/lamp.forge.ron\"`) or a glTF model (`model: \"models/house.glb#Scene0\"`), exactly one",
        if *both { "instance has both `scene` and `model`" } else { "instance has neither `scene` nor `model`" }
    )]
    InstancePlaces {
        /// Whether both were written (otherwise neither was).
        both: bool,
    },
    /// A unit component (`camera2d`, `camera3d`) with a payload other than `()`.
    #[error("component `{tag}` takes no data; write `(type: {tag})`")]
    UnexpectedData {
        /// The component tag.
        tag: &'static str,
    },
    /// A `set` entry of an override for a component without fields (`camera2d`, `camera3d`).
    #[error("component `{tag}` has no fields to set; `add` or `remove` it instead")]
    NothingToSet {
        /// The component tag.
        tag: &'static str,
    },
    /// An integer that does not fit the field's type.
    #[error("integer `{found}` does not fit in {ty}")]
    IntegerOutOfRange {
        /// The literal.
        found: String,
        /// The field's type (`u64`, `u32`).
        ty: &'static str,
    },
    /// A malformed number literal.
    #[error("invalid number `{found}`: {reason}")]
    InvalidNumber {
        /// The literal.
        found: String,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// A malformed escape sequence in a string.
    #[error("invalid escape in string: {reason}")]
    InvalidEscape {
        /// Why it is invalid.
        reason: &'static str,
    },
    /// A string without its closing quote.
    #[error("unterminated string")]
    UnterminatedString,
    /// A block comment without its closing `*/`.
    #[error("unterminated block comment")]
    UnterminatedComment,
    /// Text after the document's closing `)`.
    #[error("unexpected {found} after the end of the document")]
    TrailingCharacters {
        /// What follows the document.
        found: String,
    },
    /// The bytes are not UTF-8.
    #[error("the file is not valid UTF-8")]
    InvalidUtf8,
    /// The text is larger than the reader's limit of 4 GiB.
    #[error("the document is {size} bytes; the limit is 4 GiB")]
    TooLarge {
        /// Size in bytes.
        size: usize,
    },
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(String),
    /// Git's conflict markers (`<<<<<<<`, `=======`, `>>>>>>>` lines): git merged the file
    /// line by line and could not. `forge merge` merges scenes by id instead (the guide's
    /// "Merging scenes" page; `forge merge --install` sets it up for a repository).
    #[error(
        "git's conflict markers (`<<<<<<<`, `=======`, `>>>>>>>`): git merged this scene line by line and stopped; merge it by id with `forge merge` (`forge merge --install` makes git use it), or resolve the lines by hand"
    )]
    GitConflictMarkers,
}

fn list(names: &[&str]) -> String {
    let mut out = String::new();
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('`');
        out.push_str(n);
        out.push('`');
    }
    out
}

fn suggest(s: &Option<&'static str>) -> String {
    match s {
        Some(s) => format!("; did you mean `{s}`?"),
        None => String::new(),
    }
}

/// The candidate closest to `found` by edit distance, if it is close enough to be a likely typo.
pub(crate) fn closest(found: &str, candidates: &[&'static str]) -> Option<&'static str> {
    let limit = (found.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (levenshtein(found, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

pub(crate) fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let fields = &["id", "name", "parent", "children", "transform"];
        assert_eq!(closest("childen", fields), Some("children"));
        assert_eq!(closest("transfrom", fields), Some("transform"));
        assert_eq!(closest("velocity", fields), None);
    }
}
