//! The reader: `.forge.ron` text to a [`SceneDoc`] and its [`SourceMap`].
//!
//! A purpose-built, schema-directed scanner for the RON grammar the format page allows. It reads
//! in one pass, records the position of every entity, field, component and custom field as it
//! goes, and never recurses deeper than the schema (a document nests at most eight levels), so no
//! input can overflow the stack. Every refusal carries its line and column.
//!
//! - this file: the entry points, the parser's state and how errors climb to their field path;
//! - `grammar`: the shapes (structures, sequences, options, vectors); `document`, `component`
//!   and `layer`: the document's parts, field by field;
//! - `lex`: tokens (whitespace, comments, identifiers, numbers, strings);
//! - `recover`: reading past errors, for editors;
//! - `stream`: large files read one entity entry at a time.

mod component;
mod document;
mod grammar;
mod layer;
mod lex;
mod recover;
mod stream;

pub use recover::Recovered;
pub(crate) use recover::read_recovering;
pub(crate) use stream::{Step, StreamRead};

use lex::is_ident_start;

use super::builtin::ComponentData;
use super::component::{CustomField, EcoString};
use super::error::{ReadError, ReadErrorKind};
use super::source_map::{
    ABSENT, ComponentSpans, EntryTables, LineIndex, LineStarts, Position, SourceMap, Span,
    WideChars,
};
use super::{EntityMap, SceneDoc};

/// A document read from text, with where each part came from and what the reader noticed.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedScene {
    /// The document.
    pub doc: SceneDoc,
    /// Positions of its entities, fields, components and custom fields.
    pub source_map: SourceMap,
    /// Things that did not stop reading but that a user should know (a `format_version: 0` file).
    pub warnings: Vec<ReadWarning>,
}

/// Something the reader accepted but reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadWarning {
    /// Where it is.
    pub position: Position,
    /// What it is.
    pub kind: ReadWarningKind,
}

/// The kinds of [`ReadWarning`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadWarningKind {
    /// The file says `format_version: 0`; it was read as format 1 (the format page,
    /// "Versioning") and will be saved as 1.
    #[error("format_version 0 was read as format 1; saving writes `format_version: 1`")]
    FormatVersionZero,
}

impl ParsedScene {
    /// A read of nothing: an empty document and map (a placeholder while a read is elsewhere).
    pub(crate) fn empty() -> Self {
        Self {
            doc: SceneDoc::new(""),
            source_map: SourceMap::default(),
            warnings: Vec::new(),
        }
    }

    /// Brings this read up to date with an edit of its text by reading again only the entity
    /// entry the edit is in: `text` is the text this scene was read from with the bytes at
    /// `edited` replaced by `text[edited.start..edited.start + new_len]` (offsets after a
    /// byte-order mark, which `text` must not have). The document, source map and warnings are
    /// then exactly what [`SceneDoc::from_str`] of `text` gives, in time that grows with the
    /// entry and the number of entities after it rather than with the whole text (an editor's
    /// keystroke in a large scene; the language server, `forge lsp`, uses it).
    ///
    /// Returns `false`, leaving the scene as it was, when the edit is not inside one entry, or
    /// the entry no longer reads as an entry with the same key ending where the old one ended:
    /// then read `text` whole (which gives the error, if there is one).
    pub fn reread_edit(
        &mut self,
        text: &str,
        edited: std::ops::Range<usize>,
        new_len: usize,
    ) -> bool {
        let Some(old_len) = edited.end.checked_sub(edited.start) else {
            return false;
        };
        let new_end = edited.start + new_len;
        let delta = new_len as i64 - old_len as i64;
        if text.starts_with('\u{feff}')
            || text.len() >= ABSENT as usize
            || new_end > text.len()
            || !text.is_char_boundary(edited.start)
            || !text.is_char_boundary(new_end)
        {
            return false;
        }
        let map = &self.source_map;
        let index = map
            .entities
            .as_slice()
            .partition_point(|_, e| e.entry.start as usize <= edited.start);
        let Some(index) = index.checked_sub(1) else {
            return false;
        };
        let Some((&key, old)) = map.entities.get_index(index) else {
            return false;
        };
        let entry = old.entry;
        if !entry.is_some() || edited.end > entry.end as usize {
            return false;
        }
        let Ok(end) = u32::try_from(i64::from(entry.end) + delta) else {
            return false;
        };
        let mut parser = Parser::new(text, 0, Tables::new(0));
        parser.pos = entry.start as usize;
        let mut entities = EntityMap::default();
        let mut spans = indexmap::IndexMap::default();
        let read = parser.entity_entry(&mut entities, &mut spans);
        let (Ok(true), Some((new_key, node)), Some((_, entry_spans))) =
            (read, entities.pop(), spans.pop())
        else {
            return false;
        };
        if new_key != key || entry_spans.entry.end != end {
            return false;
        }
        if !parser.tables.warnings.is_empty() {
            return false;
        }
        let tables = parser.tables;
        let new = EntryTables {
            spans: entry_spans,
            components: tables.components,
            payload_fields: tables.payload_fields,
            custom_fields: tables.custom_fields,
            escaped: tables.escaped,
        };
        if let Some((_, slot)) = self.doc.entities.get_index_mut(index) {
            *slot = node;
        }
        let moved = |at: usize| {
            if at >= entry.end as usize {
                (at as i64 + delta) as usize
            } else {
                at
            }
        };
        self.source_map
            .splice_entry(index, new, text, edited, new_len);
        for warning in &mut self.warnings {
            warning.position = self
                .source_map
                .lines
                .position(moved(warning.position.offset));
        }
        true
    }
}

impl std::fmt::Display for ReadWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.position, self.kind)
    }
}

/// `text` without its byte-order mark, or [`ReadErrorKind::TooLarge`] when offsets into it
/// would not fit the reader's `u32` spans.
fn readable_text(text: &str) -> Result<&str, ReadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.len() >= ABSENT as usize {
        return Err(ReadError::new(
            Position {
                line: 1,
                column: 1,
                offset: 0,
            },
            None,
            None,
            ReadErrorKind::TooLarge { size: text.len() },
        ));
    }
    Ok(text)
}

/// Reads a document from text. See [`SceneDoc::from_str`].
pub(crate) fn read_str(text: &str) -> Result<ParsedScene, ReadError> {
    let text = readable_text(text)?;
    let mut parser = Parser::new(text, 0, Tables::new(text.len()));
    let mut source_map = SourceMap::default();
    match parser.document(&mut source_map) {
        Ok(doc) => {
            let mut wide = WideChars::default();
            wide.scan(text, 0);
            Ok(parser.tables.finish(doc, source_map, wide))
        }
        Err(e) => Err(e.finish(&LineIndex::new(text))),
    }
}

/// Reads a document from bytes, refusing invalid UTF-8 with its position.
pub(crate) fn read_bytes(bytes: &[u8]) -> Result<ParsedScene, ReadError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => read_str(text),
        Err(e) => {
            let valid = &bytes[..e.valid_up_to()];
            // The prefix is valid UTF-8 by construction.
            let prefix = std::str::from_utf8(valid).unwrap_or_default();
            let prefix_no_bom = prefix.strip_prefix('\u{feff}').unwrap_or(prefix);
            let position = LineIndex::new(prefix_no_bom).position(prefix_no_bom.len());
            Err(ReadError::new(
                position,
                None,
                None,
                ReadErrorKind::InvalidUtf8,
            ))
        }
    }
}

enum Seg {
    Field(&'static str),
    Index(usize),
}

/// An error on its way up: segments are pushed innermost first.
struct PErr {
    offset: usize,
    kind: ReadErrorKind,
    segs: Vec<Seg>,
    entity: Option<u64>,
}

type PResult<T> = Result<T, Box<PErr>>;

trait Trail<T> {
    fn field(self, name: &'static str) -> PResult<T>;
    fn index(self, i: usize) -> PResult<T>;
}

impl<T> Trail<T> for PResult<T> {
    fn field(self, name: &'static str) -> PResult<T> {
        self.map_err(|mut e| {
            if e.entity.is_none() {
                e.segs.push(Seg::Field(name));
            }
            e
        })
    }
    fn index(self, i: usize) -> PResult<T> {
        self.map_err(|mut e| {
            if e.entity.is_none() {
                e.segs.push(Seg::Index(i));
            }
            e
        })
    }
}

impl PErr {
    fn finish(self, lines: &LineIndex) -> ReadError {
        let mut field = String::new();
        for seg in self.segs.iter().rev() {
            match seg {
                Seg::Field(name) => {
                    if !field.is_empty() {
                        field.push('.');
                    }
                    field.push_str(name);
                }
                Seg::Index(i) => {
                    field.push('[');
                    field.push_str(&i.to_string());
                    field.push(']');
                }
            }
        }
        ReadError::new(
            lines.position(self.offset),
            self.entity,
            (!field.is_empty()).then_some(field),
            self.kind,
        )
    }
}

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    /// Offset of `text` in the whole document: `text` is the whole document, or (streaming) the
    /// part of it not read yet. Recorded positions are `base + pos`.
    base: usize,
    tables: Tables,
    /// Reading the `set` entries of an override: payload fields are optional.
    patching: bool,
    /// Reading past errors (`recover`): a structure or sequence skips what does not read and
    /// goes on, missing fields are not required. Off for every read but an editor's.
    lenient: bool,
    /// While lenient: the fields of each structure being read, outermost first (a field of an
    /// outer one tells that an inner one was not closed).
    open: Vec<&'static [&'static str]>,
    /// While reading past errors: the errors met (`recover`).
    rec: Option<Box<recover::Recovery>>,
}

/// What the parser builds besides the document: everything that outlives one window of text.
struct Tables {
    /// Length of the whole text (for capacity estimates).
    len: usize,
    /// Offsets of the first byte of each line seen so far, ascending (see [`Parser::newline`]).
    line_starts: LineStarts,
    /// Warnings with the offset they point at.
    warnings: Vec<(usize, ReadWarningKind)>,
    /// The spans of the component being read (its lists reused from component to component).
    scratch: Scratch,
    /// Reused lists for the components of an entity and the fields of a custom component.
    component_scratch: Vec<ComponentData>,
    field_scratch: Vec<CustomField>,
    /// The flat span tables of the [`SourceMap`], filled as components are read.
    components: Vec<ComponentSpans>,
    payload_fields: Vec<(&'static str, Span)>,
    custom_fields: Vec<[Span; 3]>,
    /// The `expr` strings written with escapes, by start ([`SourceMap::escaped`]).
    escaped: Vec<(u32, Box<str>)>,
    /// Strings too long to be inline, read lately, shared by the document (see
    /// [`Parser::small_string`]).
    long_strings: Vec<EcoString>,
}

impl Tables {
    fn new(len: usize) -> Self {
        let mut line_starts = LineStarts::with_capacity(len / 24 + 1);
        line_starts.push(0);
        Self {
            len,
            line_starts,
            warnings: Vec::new(),
            scratch: Scratch::default(),
            component_scratch: Vec::new(),
            field_scratch: Vec::new(),
            components: Vec::new(),
            payload_fields: Vec::new(),
            custom_fields: Vec::new(),
            escaped: Vec::new(),
            long_strings: Vec::new(),
        }
    }

    /// The lengths of the growing tables, to undo a partly read entry.
    fn mark(&self) -> [usize; 6] {
        [
            self.line_starts.len(),
            self.warnings.len(),
            self.components.len(),
            self.payload_fields.len(),
            self.custom_fields.len(),
            self.escaped.len(),
        ]
    }

    fn undo(&mut self, mark: [usize; 6]) {
        self.line_starts.truncate(mark[0]);
        self.warnings.truncate(mark[1]);
        self.components.truncate(mark[2]);
        self.payload_fields.truncate(mark[3]);
        self.custom_fields.truncate(mark[4]);
        self.escaped.truncate(mark[5]);
    }

    /// The read result of `doc`, whose spans are in `source_map` and these tables.
    fn finish(
        mut self,
        mut doc: SceneDoc,
        mut source_map: SourceMap,
        wide: WideChars,
    ) -> ParsedScene {
        // Tables grown while reading keep no spare capacity (they live as long as the scene
        // asset).
        self.line_starts.shrink_to_fit();
        self.components.shrink_to_fit();
        self.payload_fields.shrink_to_fit();
        self.custom_fields.shrink_to_fit();
        let n = doc.entities.len();
        if doc.entities.capacity() > n + n / 4 {
            doc.entities.shrink_to_fit();
            source_map.entities.shrink_to_fit();
        }
        // The parser crossed every newline of a text it accepted (they can only be in
        // whitespace, comments and strings), so the line index needs no pass of its own.
        let lines = LineIndex::from_parts(std::mem::take(&mut self.line_starts), wide.table);
        self.finish_with(doc, source_map, lines)
    }

    /// [`finish`](Self::finish) with the line index of the text given.
    fn finish_with(
        mut self,
        doc: SceneDoc,
        mut source_map: SourceMap,
        lines: LineIndex,
    ) -> ParsedScene {
        let warnings = self
            .warnings
            .into_iter()
            .map(|(at, kind)| ReadWarning {
                position: lines.position(at),
                kind,
            })
            .collect();
        source_map.lines = lines;
        source_map.components = self.components;
        source_map.payload_fields = self.payload_fields;
        source_map.custom_fields = self.custom_fields;
        // In file order already (an entry read twice is undone first), so sorted by start.
        self.escaped.shrink_to_fit();
        source_map.escaped = self.escaped;
        ParsedScene {
            doc,
            source_map,
            warnings,
        }
    }
}

/// The top-level fields of a document as they are read.
struct Top {
    format_version: Option<u32>,
    name: Option<String>,
    entities: Option<EntityMap>,
    roots: Option<Vec<u64>>,
    next_id: Option<u64>,
    layers: Vec<crate::format::TileLayer>,
    layer_spans: Vec<crate::format::source_map::LayerSpans>,
    /// Value spans, as [`SourceMap::top`] keeps them.
    offsets: [Span; 6],
}

impl Default for Top {
    fn default() -> Self {
        Self {
            format_version: None,
            name: None,
            entities: None,
            roots: None,
            next_id: None,
            layers: Vec::new(),
            layer_spans: Vec::new(),
            offsets: [Span::NONE; 6],
        }
    }
}

impl Top {
    /// The document, when every field was read.
    fn into_doc(self) -> Option<SceneDoc> {
        Some(SceneDoc {
            format_version: self.format_version?,
            name: self.name?,
            entities: self.entities?,
            roots: self.roots?,
            next_id: self.next_id?,
            layers: self.layers,
        })
    }
}

/// Where the parts of the component being read sit; copied into the flat tables when done.
#[derive(Default)]
struct Scratch {
    entry: Span,
    tag: Span,
    data: Span,
    fields: Vec<(&'static str, Span)>,
    custom_fields: Vec<[Span; 3]>,
}

impl<'a> Parser<'a> {
    /// A parser at the start of `text`, which begins at offset `base` of the whole document.
    fn new(text: &'a str, base: usize, tables: Tables) -> Self {
        Self {
            text,
            b: text.as_bytes(),
            pos: 0,
            base,
            tables,
            patching: false,
            lenient: false,
            open: Vec::new(),
            rec: None,
        }
    }

    /// The offset in the whole document of `at` (an offset in `text`), as the source map keeps it.
    #[inline]
    fn abs(&self, at: usize) -> u32 {
        (self.base + at) as u32
    }

    /// The span of the value read from `at` to here, in the whole document.
    #[inline]
    fn span(&self, at: usize) -> Span {
        Span::new(self.abs(at), self.abs(self.pos))
    }

    /// A span from `at` whose end is set once the value is read.
    #[inline]
    fn open(&self, at: usize) -> Span {
        Span::new(self.abs(at), self.abs(at))
    }

    /// Keeps the text of the string just read from `at` when it has escapes: where its
    /// characters sit cannot be told from its span alone ([`SourceMap::escaped`]).
    fn keep_escaped(&mut self, at: usize) {
        let token = &self.text[at..self.pos];
        if token.starts_with('"') && token.contains('\\') {
            let start = self.abs(at);
            self.tables.escaped.push((start, token.into()));
        }
    }

    /// Records the newline at `at`. Every scanner that can cross a newline (whitespace, comments,
    /// strings) calls this; a region read twice (`data` before `type`) is recorded once.
    #[inline]
    fn newline(&mut self, at: usize) {
        let start = (self.base + at) as u32 + 1;
        if self
            .tables
            .line_starts
            .last()
            .is_some_and(|last| start > last)
        {
            self.tables.line_starts.push(start);
        }
    }

    // ---- errors ----------------------------------------------------------------------------

    fn fail<T>(&self, offset: usize, kind: ReadErrorKind) -> PResult<T> {
        Err(Box::new(PErr {
            offset,
            kind,
            segs: Vec::new(),
            entity: None,
        }))
    }

    /// "expected X, found Y" at the current position (which must be past whitespace).
    fn unexpected<T>(&self, expected: &'static str) -> PResult<T> {
        if self.pos >= self.b.len() {
            return self.fail(self.pos, ReadErrorKind::UnexpectedEnd { expected });
        }
        let found = self.describe(self.pos);
        self.fail(self.pos, ReadErrorKind::Unexpected { expected, found })
    }

    /// A short quotation of the token at `at`.
    fn describe(&self, at: usize) -> String {
        let Some(&c) = self.b.get(at) else {
            return "end of input".to_owned();
        };
        let rest = &self.text[at..];
        let token_len = if c == b'"' {
            let mut end = 1;
            let mut escaped = false;
            for (i, ch) in rest.char_indices().skip(1) {
                end = i + ch.len_utf8();
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == '"' || ch == '\n' {
                    break;
                }
            }
            end
        } else if is_ident_start(c) || c.is_ascii_digit() || c == b'-' || c == b'+' || c == b'.' {
            let n = rest[1..]
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
                .count();
            1 + n
        } else {
            rest.chars().next().map_or(1, char::len_utf8)
        };
        let token = &rest[..token_len];
        let shown: String = token.chars().take(40).collect();
        let ellipsis = if shown.len() < token.len() { "..." } else { "" };
        if c == b'"' {
            format!("string {shown}{ellipsis}")
        } else {
            format!("`{shown}{ellipsis}`")
        }
    }
}
