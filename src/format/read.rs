//! The reader: `.forge.ron` text to a [`SceneDoc`] and its [`SourceMap`].
//!
//! A purpose-built, schema-directed scanner for the RON grammar the format page allows. It reads
//! in one pass, records the position of every entity, field, component and custom field as it
//! goes, and never recurses deeper than the schema (a document nests at most eight levels), so no
//! input can overflow the stack. Every refusal carries its line and column.

use std::borrow::Cow;

use indexmap::IndexMap;

use super::component::{
    COMPONENT_TAGS, ComponentData, CustomComponent, CustomField, DirectionalLightData, EcoString,
    MESH_SOURCES, MaterialData, Mesh3dData, MeshSource, PRIMITIVE_SHAPES, PointLightData,
    PrimitiveShape, SpriteData, Text2dData, VISIBILITY_MODES, VisibilityMode,
};
use super::error::{ReadError, ReadErrorKind, closest};
use super::source_map::{
    ABSENT, ComponentSpans, ENTITY_FIELDS, EntitySpans, LineIndex, LineStarts, Position, SourceMap,
    SpanRange, TOP_FIELDS, TRANSFORM_FIELDS, WideChars,
};
use super::value::{Color, Transform, Vec2, Vec3};
use super::{EntityMap, EntityNode, FORMAT_VERSION, IdHasher, SceneDoc};

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

impl std::fmt::Display for ReadWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.position, self.kind)
    }
}

/// Reads a document from text. See [`SceneDoc::from_str`].
pub(crate) fn read_str(text: &str) -> Result<ParsedScene, ReadError> {
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

const SPRITE_FIELDS: [&str; 5] = ["image", "color", "custom_size", "flip_x", "flip_y"];
const TEXT_FIELDS: [&str; 3] = ["text", "font_size", "color"];
const POINT_FIELDS: [&str; 4] = ["color", "intensity", "range", "shadows"];
const DIRECTIONAL_FIELDS: [&str; 3] = ["color", "illuminance", "shadows"];
const MESH3D_FIELDS: [&str; 2] = ["mesh", "material"];
const MESH_SOURCE_FIELDS: [&str; 2] = ["source", "value"];
const MESH_SOURCE_PATHS: [&str; 2] = ["mesh.source", "mesh.value"];
const MATERIAL_FIELDS: [&str; 4] = ["base_color", "metallic", "perceptual_roughness", "unlit"];
const MATERIAL_PATHS: [&str; 4] = [
    "material.base_color",
    "material.metallic",
    "material.perceptual_roughness",
    "material.unlit",
];
const CUSTOM_FIELDS: [&str; 2] = ["type_path", "fields"];
/// The longest string an [`EcoString`] holds without allocating.
const INLINE_STRING: usize = EcoString::INLINE_LIMIT;
const CUSTOM_FIELD_FIELDS: [&str; 2] = ["name", "expr"];
const COMPONENT_FIELDS: [&str; 2] = ["type", "data"];
const XY: [&str; 2] = ["x", "y"];
const XYZ: [&str; 3] = ["x", "y", "z"];
const RGBA: [&str; 4] = ["r", "g", "b", "a"];

fn all(n: usize) -> u32 {
    (1u32 << n) - 1
}

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    /// Offset of `text` in the whole document: `text` is the whole document, or (streaming) the
    /// part of it not read yet. Recorded positions are `base + pos`.
    base: usize,
    tables: Tables,
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
    payload_fields: Vec<(&'static str, u32)>,
    custom_fields: Vec<[u32; 3]>,
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
            long_strings: Vec::new(),
        }
    }

    /// The lengths of the growing tables, to undo a partly read entry.
    fn mark(&self) -> [usize; 5] {
        [
            self.line_starts.len(),
            self.warnings.len(),
            self.components.len(),
            self.payload_fields.len(),
            self.custom_fields.len(),
        ]
    }

    fn undo(&mut self, mark: [usize; 5]) {
        self.line_starts.truncate(mark[0]);
        self.warnings.truncate(mark[1]);
        self.components.truncate(mark[2]);
        self.payload_fields.truncate(mark[3]);
        self.custom_fields.truncate(mark[4]);
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
        let lines = LineIndex::from_parts(self.line_starts, wide.table);
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
    /// Value offsets, as [`SourceMap::top`] keeps them.
    offsets: [u32; 5],
}

impl Default for Top {
    fn default() -> Self {
        Self {
            format_version: None,
            name: None,
            entities: None,
            roots: None,
            next_id: None,
            offsets: [ABSENT; 5],
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
        })
    }
}

/// Where the parts of the component being read sit; copied into the flat tables when done.
#[derive(Default)]
struct Scratch {
    entry: u32,
    tag: u32,
    data: u32,
    fields: Vec<(&'static str, u32)>,
    custom_fields: Vec<[u32; 3]>,
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
        }
    }

    /// The offset in the whole document of `at` (an offset in `text`), as the source map keeps it.
    #[inline]
    fn abs(&self, at: usize) -> u32 {
        (self.base + at) as u32
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

    // ---- lexing ----------------------------------------------------------------------------

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// Skips whitespace and comments. Inlined check first: most calls are already at a token.
    #[inline(always)]
    fn skip_ws(&mut self) -> PResult<()> {
        match self.b.get(self.pos) {
            Some(&c) if c > b' ' && c != b'/' => Ok(()),
            None => Ok(()),
            _ => self.skip_ws_slow(),
        }
    }

    #[inline(never)]
    fn skip_ws_slow(&mut self) -> PResult<()> {
        let b = self.b;
        let mut i = self.pos;
        const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
        loop {
            // Indentation comes in runs of spaces: skip up to eight at a time, the length of a
            // run read from the first byte of the word that is not a space.
            while let Some(Ok(word)) = b.get(i..i + 8).map(<[u8; 8]>::try_from) {
                let other = u64::from_le_bytes(word) ^ SPACES;
                if other != 0 {
                    i += (other.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            match b.get(i) {
                Some(b' ' | b'\r' | b'\t') => i += 1,
                Some(b'\n') => {
                    self.newline(i);
                    i += 1;
                }
                Some(b'/') => {
                    self.pos = i;
                    self.comment()?;
                    i = self.pos;
                }
                _ => {
                    self.pos = i;
                    return Ok(());
                }
            }
        }
    }

    fn comment(&mut self) -> PResult<()> {
        let start = self.pos;
        match self.b.get(start + 1) {
            Some(b'/') => {
                self.pos = match memchr::memchr(b'\n', &self.b[start..]) {
                    Some(i) => {
                        self.newline(start + i);
                        start + i + 1
                    }
                    None => self.b.len(),
                };
                Ok(())
            }
            Some(b'*') => {
                // Block comments nest, as in RON (and Rust: the expression scanner's rule).
                let Some(end) = super::lexical::block_comment_end(self.b, start) else {
                    return self.fail(start, ReadErrorKind::UnterminatedComment);
                };
                for nl in memchr::memchr_iter(b'\n', &self.b[start..end]) {
                    self.newline(start + nl);
                }
                self.pos = end;
                Ok(())
            }
            _ => self.unexpected("a value or a comment"),
        }
    }

    /// Skips whitespace, then consumes `byte` or fails with `expected`.
    fn expect(&mut self, byte: u8, expected: &'static str) -> PResult<usize> {
        self.skip_ws()?;
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(self.pos - 1)
        } else {
            self.unexpected(expected)
        }
    }

    /// Consumes an identifier at the current position, if there is one.
    fn ident(&mut self) -> Option<&'a str> {
        let start = self.pos;
        if !self.peek().is_some_and(is_ident_start) {
            return None;
        }
        let mut end = start + 1;
        while end < self.b.len() && is_ident_continue(self.b[end]) {
            end += 1;
        }
        // `r"..."` and `r#"..."#` are raw strings, not identifiers.
        if end == start + 1 && self.b[start] == b'r' && matches!(self.b.get(end), Some(b'"' | b'#'))
        {
            return None;
        }
        self.pos = end;
        Some(&self.text[start..end])
    }

    // ---- structure ---------------------------------------------------------------------------

    /// Reads `( field: value, ... )` with fields in any order. `on_field` gets the field's index
    /// in `fields` and the offset of its value. Returns the offset of `(` and the set of fields
    /// seen as a bit mask.
    fn structure(
        &mut self,
        context: &'static str,
        fields: &'static [&'static str],
        mut on_field: impl FnMut(&mut Self, usize, usize) -> PResult<()>,
    ) -> PResult<(usize, u32)> {
        let start = self.expect(b'(', "`(`")?;
        let mut seen = 0u32;
        // Canonical files list fields in declaration order: try the next one first.
        let mut next = 0usize;
        loop {
            self.skip_ws()?;
            if self.peek() == Some(b')') {
                self.pos += 1;
                return Ok((start, seen));
            }
            let name_at = self.pos;
            let Some(name) = self.ident() else {
                return self.unexpected("a field name or `)`");
            };
            let found = match fields.get(next) {
                Some(f) if *f == name => Some(next),
                _ => fields.iter().position(|f| *f == name),
            };
            let Some(i) = found else {
                if self.pos == self.b.len() {
                    return self.unexpected("`:` after a field name");
                }
                return self.fail(
                    name_at,
                    ReadErrorKind::UnknownField {
                        field: name.to_owned(),
                        context,
                        expected: fields,
                        suggestion: closest(name, fields),
                    },
                );
            };
            if seen & (1 << i) != 0 {
                return self.fail(
                    name_at,
                    ReadErrorKind::DuplicateField {
                        field: fields[i],
                        context,
                    },
                );
            }
            seen |= 1 << i;
            next = i + 1;
            self.expect(b':', "`:`").field(fields[i])?;
            self.skip_ws()?;
            let value_at = self.pos;
            on_field(self, i, value_at).field(fields[i])?;
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {}
                _ => return self.unexpected("`,` or `)`"),
            }
        }
    }

    /// Fails with "missing field" for the first field of `required` not in `seen`.
    fn require(
        &self,
        at: usize,
        context: &'static str,
        fields: &'static [&'static str],
        seen: u32,
        required: u32,
    ) -> PResult<()> {
        let missing = required & !seen;
        if missing == 0 {
            return Ok(());
        }
        let field = fields[missing.trailing_zeros() as usize];
        self.fail(at, ReadErrorKind::MissingField { field, context })
    }

    /// Reads `[ item, ... ]`, calling `item` with each element's index.
    fn sequence(&mut self, mut item: impl FnMut(&mut Self, usize) -> PResult<()>) -> PResult<()> {
        self.expect(b'[', "`[`")?;
        let mut i = 0;
        loop {
            self.skip_ws()?;
            if self.peek() == Some(b']') {
                self.pos += 1;
                return Ok(());
            }
            item(self, i).index(i)?;
            i += 1;
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {}
                _ => return self.unexpected("`,` or `]`"),
            }
        }
    }

    /// Reads `None` or `Some(value)`.
    fn option<T>(&mut self, value: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<Option<T>> {
        self.skip_ws()?;
        let at = self.pos;
        match self.ident() {
            Some("None") => Ok(None),
            Some("Some") => {
                self.expect(b'(', "`(` after `Some`")?;
                let v = value(self)?;
                self.expect(b')', "`)` closing `Some(..)`")?;
                Ok(Some(v))
            }
            _ => {
                self.pos = at;
                self.unexpected("`None` or `Some(..)`")
            }
        }
    }

    /// Skips one value of any shape without interpreting it (used when `data` comes before
    /// `type`). Iterative, so depth cannot overflow the stack.
    fn skip_value(&mut self) -> PResult<()> {
        let mut depth = 0usize;
        loop {
            self.skip_ws()?;
            let Some(c) = self.peek() else {
                return self.unexpected("a value");
            };
            match c {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    self.pos += 1;
                    continue;
                }
                b')' | b']' | b'}' => {
                    if depth == 0 {
                        return self.unexpected("a value");
                    }
                    depth -= 1;
                    self.pos += 1;
                }
                b',' | b':' if depth > 0 => {
                    self.pos += 1;
                    continue;
                }
                b'"' => {
                    self.string()?;
                }
                b'r' if matches!(self.b.get(self.pos + 1), Some(b'"' | b'#')) => {
                    self.string()?;
                }
                c if is_ident_start(c) => {
                    self.ident();
                    self.skip_ws()?;
                    if self.peek() == Some(b'(') {
                        continue;
                    }
                }
                c if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.') => {
                    self.number_token();
                }
                _ => return self.unexpected("a value"),
            }
            if depth == 0 {
                return Ok(());
            }
        }
    }

    // ---- scalars -------------------------------------------------------------------------------

    fn number_token(&mut self) -> &'a str {
        let start = self.pos;
        let mut i = start;
        if matches!(self.b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        while let Some(&c) = self.b.get(i) {
            let sign_after_exponent =
                matches!(c, b'-' | b'+') && matches!(self.b.get(i - 1), Some(b'e' | b'E'));
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || sign_after_exponent {
                i += 1;
            } else {
                break;
            }
        }
        self.pos = i;
        &self.text[start..i]
    }

    fn u64(&mut self, expected: &'static str, ty: &'static str, max: u64) -> PResult<u64> {
        self.skip_ws()?;
        let at = self.pos;
        if !self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'+') {
            return self.unexpected(expected);
        }
        let token = self.number_token();
        let digits = token.strip_prefix('+').unwrap_or(token);
        let mut value: u64 = 0;
        let mut overflow = false;
        for (i, c) in digits.bytes().enumerate() {
            match c {
                b'0'..=b'9' => {
                    match value
                        .checked_mul(10)
                        .and_then(|v| v.checked_add(u64::from(c - b'0')))
                    {
                        Some(v) => value = v,
                        None => overflow = true,
                    }
                }
                b'_' if i > 0 => {}
                _ => {
                    self.pos = at;
                    return self.unexpected(expected);
                }
            }
        }
        if digits.is_empty() {
            self.pos = at;
            return self.unexpected(expected);
        }
        if overflow || value > max {
            return self.fail(
                at,
                ReadErrorKind::IntegerOutOfRange {
                    found: token.to_owned(),
                    ty,
                },
            );
        }
        Ok(value)
    }

    fn id(&mut self) -> PResult<u64> {
        self.u64("an entity id (an unsigned integer)", "u64", u64::MAX)
    }

    fn f32(&mut self) -> PResult<f32> {
        self.skip_ws()?;
        let at = self.pos;
        let starts_number = self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'i' | b'N'));
        if !starts_number {
            return self.unexpected("a number");
        }
        let token = self.number_token();
        match parse_f32(token) {
            Ok(v) => Ok(v),
            Err(reason) => {
                if token.starts_with(['i', 'N']) {
                    self.pos = at;
                    return self.unexpected("a number");
                }
                self.fail(
                    at,
                    ReadErrorKind::InvalidNumber {
                        found: token.to_owned(),
                        reason,
                    },
                )
            }
        }
    }

    fn bool(&mut self) -> PResult<bool> {
        self.skip_ws()?;
        let at = self.pos;
        match self.ident() {
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            _ => {
                self.pos = at;
                self.unexpected("`true` or `false`")
            }
        }
    }

    fn string(&mut self) -> PResult<String> {
        self.str_value().map(Cow::into_owned)
    }

    /// A string as an [`EcoString`]: no allocation up to [`EcoString::INLINE_LIMIT`] bytes (15
    /// on 64-bit targets). Longer strings seen before
    /// (type paths and field names repeat from entity to entity) share one allocation.
    fn small_string(&mut self) -> PResult<EcoString> {
        let value = self.str_value()?;
        if value.len() <= INLINE_STRING {
            return Ok(EcoString::from(&*value));
        }
        let known = &mut self.tables.long_strings;
        if let Some(s) = known.iter().find(|s| **s == *value) {
            return Ok(s.clone());
        }
        let s = EcoString::from(&*value);
        if known.len() == 16 {
            known.remove(0);
        }
        known.push(s.clone());
        Ok(s)
    }

    /// A quoted or raw string, borrowed from the text when it has no escapes.
    fn str_value(&mut self) -> PResult<Cow<'a, str>> {
        self.skip_ws()?;
        let at = self.pos;
        match self.peek() {
            Some(b'"') => self.quoted_string(at),
            Some(b'r') if matches!(self.b.get(at + 1), Some(b'"' | b'#')) => self.raw_string(at),
            _ => self.unexpected("a string"),
        }
    }

    fn quoted_string(&mut self, at: usize) -> PResult<Cow<'a, str>> {
        let start = at + 1;
        // `i` starts the text not yet copied, `search` where to look for the next stop.
        let mut i = start;
        let mut search = start;
        let mut out: Option<String> = None;
        loop {
            let Some(rel) = memchr::memchr3(b'"', b'\\', b'\n', &self.b[search..]) else {
                return self.fail(at, ReadErrorKind::UnterminatedString);
            };
            let stop = search + rel;
            if self.b[stop] == b'\n' {
                self.newline(stop);
                search = stop + 1;
                continue;
            }
            if self.b[stop] == b'"' {
                self.pos = stop + 1;
                return Ok(match out {
                    None => Cow::Borrowed(&self.text[start..stop]),
                    Some(mut s) => {
                        s.push_str(&self.text[i..stop]);
                        Cow::Owned(s)
                    }
                });
            }
            let s = out.get_or_insert_with(String::new);
            s.push_str(&self.text[i..stop]);
            let (ch, len) = self.escape(stop)?;
            s.push(ch);
            i = stop + len;
            search = i;
        }
    }

    /// Decodes the escape starting at the backslash at `at`: the character and the escape's
    /// length in bytes.
    fn escape(&self, at: usize) -> PResult<(char, usize)> {
        let bad = |reason| {
            Err(Box::new(PErr {
                offset: at,
                kind: ReadErrorKind::InvalidEscape { reason },
                segs: Vec::new(),
                entity: None,
            }))
        };
        let Some(&c) = self.b.get(at + 1) else {
            return self.fail(at, ReadErrorKind::UnterminatedString);
        };
        let simple = match c {
            b'"' => '"',
            b'\'' => '\'',
            b'\\' => '\\',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'0' => '\0',
            b'x' => {
                let hex = self.b.get(at + 2..at + 4);
                let Some(value) = hex.and_then(|h| {
                    std::str::from_utf8(h)
                        .ok()
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                }) else {
                    return bad("`\\x` needs two hexadecimal digits");
                };
                if value > 0x7f {
                    return bad("`\\x` escapes in strings must be ASCII (at most `\\x7F`)");
                }
                return Ok((char::from(value), 4));
            }
            b'u' => {
                if self.b.get(at + 2) != Some(&b'{') {
                    return bad("write unicode escapes as `\\u{XXXX}`");
                }
                let digits_start = at + 3;
                let Some(close) = self.b[digits_start..]
                    .iter()
                    .take(7)
                    .position(|&b| b == b'}')
                else {
                    return bad("`\\u{` needs 1 to 6 hexadecimal digits and a closing `}`");
                };
                let digits = &self.text[digits_start..digits_start + close];
                let Some(ch) = u32::from_str_radix(digits, 16)
                    .ok()
                    .filter(|_| !digits.is_empty() && !digits.starts_with(['+', '-']))
                    .and_then(char::from_u32)
                else {
                    return bad("not a valid unicode scalar value");
                };
                return Ok((ch, 3 + close + 1));
            }
            _ => {
                return bad(
                    "unknown escape; known are \\n \\r \\t \\0 \\\\ \\\" \\' \\xHH \\u{..}",
                );
            }
        };
        Ok((simple, 2))
    }

    fn raw_string(&mut self, at: usize) -> PResult<Cow<'a, str>> {
        let mut i = at + 1;
        let mut hashes = 0;
        while self.b.get(i) == Some(&b'#') {
            hashes += 1;
            i += 1;
        }
        if self.b.get(i) != Some(&b'"') {
            return self.unexpected("a string");
        }
        let start = i + 1;
        let mut search = start;
        loop {
            let Some(rel) = memchr::memchr2(b'"', b'\n', &self.b[search..]) else {
                return self.fail(at, ReadErrorKind::UnterminatedString);
            };
            let quote = search + rel;
            if self.b[quote] == b'\n' {
                self.newline(quote);
                search = quote + 1;
                continue;
            }
            let closing = &self.b[quote + 1..];
            if closing.len() >= hashes && closing[..hashes].iter().all(|&b| b == b'#') {
                self.pos = quote + 1 + hashes;
                return Ok(Cow::Borrowed(&self.text[start..quote]));
            }
            search = quote + 1;
        }
    }

    /// Reads a tag (`type: sprite`): a bare identifier among `known`.
    fn tag(
        &mut self,
        field: &'static str,
        what: &'static str,
        known: &'static [&'static str],
    ) -> PResult<usize> {
        self.skip_ws()?;
        let at = self.pos;
        if matches!(self.peek(), Some(b'"'))
            || (self.peek() == Some(b'r') && matches!(self.b.get(at + 1), Some(b'"' | b'#')))
        {
            let tag = self.string()?;
            return self.fail(at, ReadErrorKind::TagAsString { field, tag });
        }
        let Some(name) = self.ident() else {
            return self.unexpected(what_expected(what));
        };
        match known.iter().position(|k| *k == name) {
            Some(i) => Ok(i),
            None if self.pos == self.b.len() => self.unexpected(what_expected(what)),
            None => self.fail(
                at,
                ReadErrorKind::UnknownVariant {
                    what,
                    found: name.to_owned(),
                    expected: known,
                    suggestion: closest(name, known),
                },
            ),
        }
    }

    // ---- format values ---------------------------------------------------------------------------

    fn floats<const N: usize>(
        &mut self,
        context: &'static str,
        names: &'static [&'static str; N],
        mut offsets: Option<&mut [u32]>,
    ) -> PResult<[f32; N]> {
        let mut v = [0.0f32; N];
        let (start, seen) = self.structure(context, names, |p, i, at| {
            if let Some(o) = offsets.as_deref_mut() {
                o[i] = p.abs(at);
            }
            v[i] = p.f32()?;
            Ok(())
        })?;
        self.require(start, context, names, seen, all(N))?;
        Ok(v)
    }

    fn vec2(&mut self) -> PResult<Vec2> {
        let [x, y] = self.floats("vector", &XY, None)?;
        Ok(Vec2 { x, y })
    }

    fn vec3(&mut self, offsets: Option<&mut [u32]>) -> PResult<Vec3> {
        let [x, y, z] = self.floats("vector", &XYZ, offsets)?;
        Ok(Vec3 { x, y, z })
    }

    fn color(&mut self) -> PResult<Color> {
        let [r, g, b, a] = self.floats("color", &RGBA, None)?;
        Ok(Color { r, g, b, a })
    }

    fn id_list(&mut self) -> PResult<Vec<u64>> {
        let mut out = Vec::new();
        self.sequence(|p, _| {
            out.push(p.id()?);
            Ok(())
        })?;
        out.shrink_to_fit();
        Ok(out)
    }

    // ---- the document ------------------------------------------------------------------------------

    fn document(&mut self, map: &mut SourceMap) -> PResult<SceneDoc> {
        let mut top = Top::default();
        let (start, seen) = self.structure("the scene", &TOP_FIELDS, |p, i, at| {
            if i == 2 {
                top.offsets[i] = p.abs(at);
                top.entities = Some(p.entities(&mut map.entities)?);
                Ok(())
            } else {
                p.top_field(&mut top, i, at)
            }
        })?;
        self.require(start, "the scene", &TOP_FIELDS, seen, all(5))?;
        self.skip_ws()?;
        if self.pos < self.b.len() {
            let found = self.describe(self.pos);
            return self.fail(self.pos, ReadErrorKind::TrailingCharacters { found });
        }
        map.top = top.offsets;
        match top.into_doc() {
            Some(doc) => Ok(doc),
            // `require` has already reported any missing field.
            None => self.fail(
                start,
                ReadErrorKind::MissingField {
                    field: "entities",
                    context: "the scene",
                },
            ),
        }
    }

    /// The value of top-level field `i` (any but `entities`), at `at`.
    fn top_field(&mut self, top: &mut Top, i: usize, at: usize) -> PResult<()> {
        top.offsets[i] = self.abs(at);
        match i {
            0 => {
                let v = self.u64("a format version (an unsigned integer)", "u32", u64::MAX)?;
                if v > u64::from(FORMAT_VERSION) {
                    return self.fail(at, ReadErrorKind::UnsupportedFormatVersion { found: v });
                }
                if v == 0 {
                    let at = self.base + at;
                    self.tables
                        .warnings
                        .push((at, ReadWarningKind::FormatVersionZero));
                }
                top.format_version = Some(FORMAT_VERSION);
            }
            1 => top.name = Some(self.string()?),
            3 => top.roots = Some(self.id_list()?),
            _ => top.next_id = Some(self.id()?),
        }
        Ok(())
    }

    fn entities(&mut self, spans: &mut IndexMap<u64, EntitySpans, IdHasher>) -> PResult<EntityMap> {
        self.expect(b'{', "`{` starting the entity map")?;
        let mut map = self.entity_map(spans);
        while self.entity_entry(&mut map, spans)? {}
        Ok(map)
    }

    /// An empty entity map with room for the entities of the rest of the text (canonical entries
    /// take about a kilobyte).
    fn entity_map(&self, spans: &mut IndexMap<u64, EntitySpans, IdHasher>) -> EntityMap {
        let estimate = self.tables.len.saturating_sub(self.base + self.pos) / 1024;
        spans.reserve(estimate);
        EntityMap::with_capacity_and_hasher(estimate, IdHasher::default())
    }

    /// One `id: (..),` entry of the entity map, or its closing `}` (then `false`).
    fn entity_entry(
        &mut self,
        map: &mut EntityMap,
        spans: &mut IndexMap<u64, EntitySpans, IdHasher>,
    ) -> PResult<bool> {
        self.skip_ws()?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(false);
        }
        let key_at = self.pos;
        let key = self.id()?;
        if let Some(first) = spans.get(&key) {
            // An error: a line index of the whole text is worth building now.
            let first_line = LineIndex::new(self.text)
                .position(first.entry as usize)
                .line;
            return self.fail(
                key_at,
                ReadErrorKind::DuplicateEntityKey {
                    id: key,
                    first_line,
                },
            );
        }
        self.expect(b':', "`:` after the entity key")?;
        let mut entity_spans = EntitySpans::new(self.abs(key_at));
        let node = self.entity(&mut entity_spans).map_err(|mut e| {
            e.entity.get_or_insert(key);
            e
        })?;
        entity_spans.text_hash = text_hash(&self.b[key_at..self.pos]);
        self.skip_ws()?;
        match self.peek() {
            Some(b',') => self.pos += 1,
            Some(b'}') => {}
            _ => return self.unexpected("`,` or `}`"),
        }
        // Only a whole entry, separator included, goes in (a streamed read may retry it).
        spans.insert(key, entity_spans);
        map.insert(key, node);
        Ok(true)
    }

    fn entity(&mut self, spans: &mut EntitySpans) -> PResult<EntityNode> {
        let mut id = 0;
        let mut name = EcoString::default();
        let mut parent = None;
        let mut children = Vec::new();
        let mut transform = Transform::IDENTITY;
        let mut components = Vec::new();
        let mut locked = false;
        let (start, seen) = self.structure("entity", &ENTITY_FIELDS, |p, i, at| {
            spans.fields[i] = p.abs(at);
            match i {
                0 => id = p.id()?,
                1 => name = p.small_string()?,
                2 => parent = p.option(Self::id)?,
                3 => children = p.id_list()?,
                4 => transform = p.transform(&mut spans.transform)?,
                5 => components = p.components(&mut spans.components)?,
                _ => locked = p.bool()?,
            }
            Ok(())
        })?;
        // `locked` may be missing in older files (false).
        self.require(start, "entity", &ENTITY_FIELDS, seen, all(6))?;
        Ok(EntityNode {
            id,
            name,
            parent,
            children,
            transform,
            components,
            locked,
        })
    }

    fn transform(&mut self, spans: &mut [[u32; 4]; 3]) -> PResult<Transform> {
        let mut parts = [Vec3::ZERO; 3];
        let (start, seen) = self.structure("transform", &TRANSFORM_FIELDS, |p, i, at| {
            spans[i][0] = p.abs(at);
            parts[i] = p.vec3(Some(&mut spans[i][1..]))?;
            Ok(())
        })?;
        self.require(start, "transform", &TRANSFORM_FIELDS, seen, all(3))?;
        let [translation, rotation, scale] = parts;
        Ok(Transform {
            translation,
            rotation,
            scale,
        })
    }

    fn components(&mut self, spans: &mut SpanRange) -> PResult<Vec<ComponentData>> {
        // Collected in a reused list, then moved into one allocation of the exact size: large
        // scenes keep no spare capacity per entity.
        let mut out = std::mem::take(&mut self.tables.component_scratch);
        out.clear();
        let first = self.tables.components.len();
        self.sequence(|p, _| {
            let mut cs = std::mem::take(&mut p.tables.scratch);
            cs.entry = ABSENT;
            cs.tag = ABSENT;
            cs.data = ABSENT;
            cs.fields.clear();
            cs.custom_fields.clear();
            let read = p.component(&mut cs);
            let fields_start = p.tables.payload_fields.len();
            p.tables.payload_fields.extend_from_slice(&cs.fields);
            let custom_start = p.tables.custom_fields.len();
            p.tables.custom_fields.extend_from_slice(&cs.custom_fields);
            p.tables.components.push(ComponentSpans {
                entry: cs.entry,
                tag: cs.tag,
                data: cs.data,
                fields: SpanRange::since(fields_start, &p.tables.payload_fields),
                custom_fields: SpanRange::since(custom_start, &p.tables.custom_fields),
            });
            p.tables.scratch = cs;
            out.push(read?);
            Ok(())
        })?;
        *spans = SpanRange::since(first, &self.tables.components);
        let mut exact = Vec::with_capacity(out.len());
        exact.append(&mut out);
        self.tables.component_scratch = out;
        Ok(exact)
    }

    fn component(&mut self, cs: &mut Scratch) -> PResult<ComponentData> {
        let mut tag = None;
        let mut data = None;
        let mut deferred = None;
        let (start, seen) = self.structure("component", &COMPONENT_FIELDS, |p, i, at| {
            if i == 0 {
                cs.tag = p.abs(at);
                tag = Some(p.tag("type", "component type", COMPONENT_TAGS)?);
            } else {
                cs.data = p.abs(at);
                match tag {
                    Some(t) => data = Some(p.payload(t, cs)?),
                    None => {
                        deferred = Some(at);
                        p.skip_value()?;
                    }
                }
            }
            Ok(())
        })?;
        cs.entry = self.abs(start);
        self.require(start, "component", &COMPONENT_FIELDS, seen, 1)?;
        let Some(tag) = tag else {
            return self.fail(
                start,
                ReadErrorKind::MissingField {
                    field: "type",
                    context: "component",
                },
            );
        };
        if let Some(at) = deferred {
            let resume = self.pos;
            self.pos = at;
            data = Some(self.payload(tag, cs).field("data")?);
            self.pos = resume;
        }
        match (data, COMPONENT_TAGS[tag]) {
            (Some(d), _) => Ok(d),
            (None, "camera2d") => Ok(ComponentData::Camera2d),
            (None, "camera3d") => Ok(ComponentData::Camera3d),
            (None, _) => self.fail(
                start,
                ReadErrorKind::MissingField {
                    field: "data",
                    context: "component",
                },
            ),
        }
    }

    /// Reads the `data` payload of the component with tag index `tag`.
    fn payload(&mut self, tag: usize, cs: &mut Scratch) -> PResult<ComponentData> {
        let fields = &mut cs.fields;
        Ok(match COMPONENT_TAGS[tag] {
            "sprite" => {
                let mut d = SpriteData::default();
                self.structure("sprite data", &SPRITE_FIELDS, |p, i, at| {
                    fields.push((SPRITE_FIELDS[i], p.abs(at)));
                    match i {
                        0 => d.image = p.option(Self::string)?,
                        1 => d.color = p.color()?,
                        2 => d.custom_size = p.option(Self::vec2)?,
                        3 => d.flip_x = p.bool()?,
                        _ => d.flip_y = p.bool()?,
                    }
                    Ok(())
                })?;
                ComponentData::Sprite(Box::new(d))
            }
            "text2d" => {
                let (mut text, mut font_size, mut color) = (String::new(), 0.0, Color::WHITE);
                let (start, seen) = self.structure("text2d data", &TEXT_FIELDS, |p, i, at| {
                    fields.push((TEXT_FIELDS[i], p.abs(at)));
                    match i {
                        0 => text = p.string()?,
                        1 => font_size = p.f32()?,
                        _ => color = p.color()?,
                    }
                    Ok(())
                })?;
                self.require(start, "text2d data", &TEXT_FIELDS, seen, all(3))?;
                ComponentData::Text2d(Box::new(Text2dData {
                    text,
                    font_size,
                    color,
                }))
            }
            "point_light" => {
                let mut d = PointLightData {
                    color: Color::WHITE,
                    intensity: 0.0,
                    range: 0.0,
                    shadows: false,
                };
                let (start, seen) =
                    self.structure("point_light data", &POINT_FIELDS, |p, i, at| {
                        fields.push((POINT_FIELDS[i], p.abs(at)));
                        match i {
                            0 => d.color = p.color()?,
                            1 => d.intensity = p.f32()?,
                            2 => d.range = p.f32()?,
                            _ => d.shadows = p.bool()?,
                        }
                        Ok(())
                    })?;
                self.require(start, "point_light data", &POINT_FIELDS, seen, all(4))?;
                ComponentData::PointLight(d)
            }
            "directional_light" => {
                let mut d = DirectionalLightData {
                    color: Color::WHITE,
                    illuminance: 0.0,
                    shadows: false,
                };
                let (start, seen) =
                    self.structure("directional_light data", &DIRECTIONAL_FIELDS, |p, i, at| {
                        fields.push((DIRECTIONAL_FIELDS[i], p.abs(at)));
                        match i {
                            0 => d.color = p.color()?,
                            1 => d.illuminance = p.f32()?,
                            _ => d.shadows = p.bool()?,
                        }
                        Ok(())
                    })?;
                self.require(
                    start,
                    "directional_light data",
                    &DIRECTIONAL_FIELDS,
                    seen,
                    all(3),
                )?;
                ComponentData::DirectionalLight(d)
            }
            "mesh3d" => {
                let mut mesh = None;
                let mut material = MaterialData::default();
                let (start, seen) = self.structure("mesh3d data", &MESH3D_FIELDS, |p, i, at| {
                    fields.push((MESH3D_FIELDS[i], p.abs(at)));
                    if i == 0 {
                        mesh = Some(p.mesh_source(fields)?);
                    } else {
                        material = p.material(fields)?;
                    }
                    Ok(())
                })?;
                self.require(start, "mesh3d data", &MESH3D_FIELDS, seen, all(2))?;
                match mesh {
                    Some(mesh) => ComponentData::Mesh3d(Box::new(Mesh3dData { mesh, material })),
                    None => {
                        return self.fail(
                            start,
                            ReadErrorKind::MissingField {
                                field: "mesh",
                                context: "mesh3d data",
                            },
                        );
                    }
                }
            }
            "visibility" => {
                let i = self.tag("data", "visibility mode", VISIBILITY_MODES)?;
                ComponentData::Visibility(
                    [
                        VisibilityMode::Inherited,
                        VisibilityMode::Visible,
                        VisibilityMode::Hidden,
                    ][i],
                )
            }
            "custom" => self.custom(cs)?,
            unit => {
                // camera2d / camera3d: only `data: ()` is allowed.
                let at = self.pos;
                let unit_tag = if unit == "camera2d" {
                    "camera2d"
                } else {
                    "camera3d"
                };
                if self.expect(b'(', "`(`").is_err() || self.expect(b')', "`)`").is_err() {
                    return self.fail(at, ReadErrorKind::UnexpectedData { tag: unit_tag });
                }
                if unit == "camera2d" {
                    ComponentData::Camera2d
                } else {
                    ComponentData::Camera3d
                }
            }
        })
    }

    fn mesh_source(&mut self, fields: &mut Vec<(&'static str, u32)>) -> PResult<MeshSource> {
        let mut source = None;
        let mut value = None;
        let mut deferred = None;
        let (start, seen) = self.structure("mesh source", &MESH_SOURCE_FIELDS, |p, i, at| {
            fields.push((MESH_SOURCE_PATHS[i], p.abs(at)));
            if i == 0 {
                source = Some(p.tag("source", "mesh source", MESH_SOURCES)?);
            } else {
                match source {
                    Some(s) => value = Some(p.mesh_value(s)?),
                    None => {
                        deferred = Some(at);
                        p.skip_value()?;
                    }
                }
            }
            Ok(())
        })?;
        self.require(start, "mesh source", &MESH_SOURCE_FIELDS, seen, all(2))?;
        let Some(source) = source else {
            return self.fail(
                start,
                ReadErrorKind::MissingField {
                    field: "source",
                    context: "mesh source",
                },
            );
        };
        if let Some(at) = deferred {
            let resume = self.pos;
            self.pos = at;
            value = Some(self.mesh_value(source).field("value")?);
            self.pos = resume;
        }
        match value {
            Some(v) => Ok(v),
            None => self.fail(
                start,
                ReadErrorKind::MissingField {
                    field: "value",
                    context: "mesh source",
                },
            ),
        }
    }

    fn mesh_value(&mut self, source: usize) -> PResult<MeshSource> {
        if MESH_SOURCES[source] == "asset" {
            return Ok(MeshSource::Asset(self.string()?));
        }
        let shape = self.tag("value", "primitive shape", PRIMITIVE_SHAPES)?;
        let shape = match PRIMITIVE_SHAPES[shape] {
            "cuboid" => {
                let mut size = Vec3::ONE;
                let (s, seen) = self.structure("cuboid", &["size"], |p, _, _| {
                    size = p.vec3(None)?;
                    Ok(())
                })?;
                self.require(s, "cuboid", &["size"], seen, 1)?;
                PrimitiveShape::Cuboid { size }
            }
            "sphere" => {
                let [radius] = self.floats("sphere", &["radius"], None)?;
                PrimitiveShape::Sphere { radius }
            }
            "plane" => {
                let mut size = Vec2::new(1.0, 1.0);
                let (s, seen) = self.structure("plane", &["size"], |p, _, _| {
                    size = p.vec2()?;
                    Ok(())
                })?;
                self.require(s, "plane", &["size"], seen, 1)?;
                PrimitiveShape::Plane { size }
            }
            "cylinder" => {
                let [radius, height] = self.floats("cylinder", &["radius", "height"], None)?;
                PrimitiveShape::Cylinder { radius, height }
            }
            _ => {
                let [radius, length] = self.floats("capsule", &["radius", "length"], None)?;
                PrimitiveShape::Capsule { radius, length }
            }
        };
        Ok(MeshSource::Primitive(shape))
    }

    fn material(&mut self, fields: &mut Vec<(&'static str, u32)>) -> PResult<MaterialData> {
        let mut m = MaterialData::default();
        let (start, seen) = self.structure("material", &MATERIAL_FIELDS, |p, i, at| {
            fields.push((MATERIAL_PATHS[i], p.abs(at)));
            match i {
                0 => m.base_color = p.color()?,
                1 => m.metallic = p.f32()?,
                2 => m.perceptual_roughness = p.f32()?,
                _ => m.unlit = p.bool()?,
            }
            Ok(())
        })?;
        self.require(start, "material", &MATERIAL_FIELDS, seen, all(4))?;
        Ok(m)
    }

    fn custom(&mut self, cs: &mut Scratch) -> PResult<ComponentData> {
        let mut custom = CustomComponent::default();
        let mut fields = std::mem::take(&mut self.tables.field_scratch);
        fields.clear();
        let (start, seen) = self.structure("custom data", &CUSTOM_FIELDS, |p, i, at| {
            cs.fields.push((CUSTOM_FIELDS[i], p.abs(at)));
            if i == 0 {
                custom.type_path = p.small_string()?;
            } else {
                p.sequence(|p, _| {
                    let mut name = EcoString::default();
                    let mut expr = EcoString::default();
                    let mut offsets = [ABSENT; 3];
                    let (entry, seen) =
                        p.structure("custom field", &CUSTOM_FIELD_FIELDS, |p, i, at| {
                            offsets[i + 1] = p.abs(at);
                            if i == 0 {
                                name = p.small_string()?;
                            } else {
                                expr = p.small_string()?;
                            }
                            Ok(())
                        })?;
                    p.require(entry, "custom field", &CUSTOM_FIELD_FIELDS, seen, all(2))?;
                    offsets[0] = p.abs(entry);
                    cs.custom_fields.push(offsets);
                    fields.push(CustomField { name, expr });
                    Ok(())
                })?;
            }
            Ok(())
        })?;
        custom.fields = Vec::with_capacity(fields.len());
        custom.fields.append(&mut fields);
        self.tables.field_scratch = fields;
        self.require(start, "custom data", &CUSTOM_FIELDS, seen, all(2))?;
        Ok(ComponentData::Custom(custom))
    }
}

/// The hash of an entity entry's text ([`EntitySpans::text_hash`]).
fn text_hash(text: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    IdHasher::default().hash_one(text)
}

/// `[-]digits.digits` with at most 7 significant digits, exactly: the digits as an integer below
/// 2^24 and the power of ten (at most 10^10) are both exact `f32`s, so one division rounds the
/// exact quotient once, which is the correctly rounded value (Clinger's fast path). Transforms
/// and colours are mostly written like this; everything else goes to the full parser.
fn short_decimal_f32(token: &str) -> Option<f32> {
    const POWERS: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];
    let bytes = token.as_bytes();
    let (negative, body) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    let dot = body.iter().position(|b| *b == b'.')?;
    let (int, frac) = (&body[..dot], &body[dot + 1..]);
    if int.is_empty() || frac.is_empty() || frac.len() >= POWERS.len() {
        return None;
    }
    let mut mantissa = 0u32;
    let mut significant = 0;
    for &b in int.iter().chain(frac) {
        if !b.is_ascii_digit() {
            return None;
        }
        if mantissa > 0 || b != b'0' {
            significant += 1;
        }
        mantissa = mantissa * 10 + u32::from(b - b'0');
        if significant > 7 {
            return None;
        }
    }
    let magnitude = mantissa as f32 / POWERS[frac.len()];
    Some(if negative { -magnitude } else { magnitude })
}

fn what_expected(what: &'static str) -> &'static str {
    match what {
        "component type" => "a component type (a bare identifier such as `sprite`)",
        "visibility mode" => "a visibility mode (`inherited`, `visible` or `hidden`)",
        "mesh source" => "a mesh source (`primitive` or `asset`)",
        "primitive shape" => "a primitive shape such as `cuboid(size: ..)`",
        _ => "an identifier",
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_continue(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Parses a RON float literal: optional sign, digits with `_` separators, fraction, exponent,
/// an optional `f32`/`f64` suffix, or `inf` / `NaN`. Integers are accepted (`1` is `1.0`).
pub(crate) fn parse_f32(token: &str) -> Result<f32, &'static str> {
    if let Some(v) = short_decimal_f32(token) {
        return Ok(v);
    }
    let (negative, body) = match token.as_bytes().first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    let body = body
        .strip_suffix("f32")
        .or_else(|| body.strip_suffix("f64"))
        .filter(|b| !b.is_empty() && !b.ends_with(['e', 'E']))
        .unwrap_or(body);
    let magnitude = match body {
        "inf" => f32::INFINITY,
        "NaN" => f32::NAN,
        _ => {
            let bytes = body.as_bytes();
            if !bytes
                .first()
                .is_some_and(|c| c.is_ascii_digit() || *c == b'.')
            {
                return Err("expected a number");
            }
            let mut digits = 0;
            let mut prev = 0u8;
            for &c in bytes {
                match c {
                    b'0'..=b'9' => digits += 1,
                    b'_' if prev.is_ascii_digit() || prev == b'_' => {}
                    b'.' | b'e' | b'E' | b'+' | b'-' => {}
                    b'_' => return Err("`_` may only follow a digit"),
                    _ => return Err("not a decimal number"),
                }
                prev = c;
            }
            if digits == 0 {
                return Err("a number needs at least one digit");
            }
            let parsed = if body.contains('_') {
                body.replace('_', "").parse::<f32>()
            } else {
                body.parse::<f32>()
            };
            parsed.map_err(|_| "not a decimal number")?
        }
    };
    Ok(if negative { -magnitude } else { magnitude })
}

/// Where a [`StreamRead`] is in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the opening `(`.
    Open,
    /// Between top-level fields.
    Fields,
    /// Inside the `entities` map.
    Entities,
    /// After the closing `)`: only whitespace and comments may follow.
    End,
}

/// What a [`StreamRead`] needs next.
pub(crate) enum Step {
    /// More text: fill [`StreamRead::spare`] and call [`StreamRead::filled`].
    Read,
    /// The document, or `None` when the text cannot be read this way: the caller reads the whole
    /// text with [`read_bytes`], which gives the exact error.
    Done(Option<Box<ParsedScene>>),
}

/// Bytes asked of the source per read.
const PIECE: usize = 256 * 1024;

/// Reads a document from text that arrives in pieces (a loader's reader), holding only the part
/// not read yet: a large file is never in memory whole.
///
/// Top-level fields and entity entries are read one at a time, each once the text holds
/// `lookahead` bytes past its start (or the end of the file). An entry that does not fit is read
/// again with twice the room. For any text, the result is exactly what [`read_bytes`] gives when
/// that succeeds; anything `read_bytes` refuses (and nothing else) ends in `Done(None)`, and the
/// error is found by reading the text whole. The positions in errors therefore never depend on
/// how the text was cut.
pub(crate) struct StreamRead {
    /// Text not read yet in `buf[..len]` (`buf[..done]` is read and dropped at the next
    /// [`spare`](Self::spare)); the rest of `buf` is room for the next piece.
    buf: Vec<u8>,
    len: usize,
    done: usize,
    /// Offset of `buf[0]` in the text (after a byte-order mark).
    base: usize,
    eof: bool,
    bom_checked: bool,
    failed: bool,
    lookahead: usize,
    phase: Phase,
    tables: Option<Tables>,
    wide: WideChars,
    map: SourceMap,
    top: Top,
    /// Top-level fields seen (bit mask of [`TOP_FIELDS`]) and the offset of the opening `(`.
    seen: u32,
    open_at: usize,
    entities: EntityMap,
}

impl StreamRead {
    /// A reader of a text of about `len` bytes (capacities are estimated from it), reading each
    /// entry once `lookahead` bytes past its start are in.
    pub(crate) fn new(len: usize, lookahead: usize) -> Self {
        Self {
            buf: Vec::new(),
            len: 0,
            done: 0,
            base: 0,
            eof: false,
            bom_checked: false,
            failed: false,
            lookahead: lookahead.max(1),
            phase: Phase::Open,
            tables: Some(Tables::new(len)),
            wide: WideChars::default(),
            map: SourceMap::default(),
            top: Top::default(),
            seen: 0,
            open_at: 0,
            entities: EntityMap::default(),
        }
    }

    /// Room for the next piece of text (at least [`PIECE`] bytes), read bytes dropped first.
    pub(crate) fn spare(&mut self) -> &mut [u8] {
        if self.done > 0 {
            self.buf.copy_within(self.done..self.len, 0);
            self.len -= self.done;
            self.base += self.done;
            self.done = 0;
        }
        if self.buf.len() - self.len < PIECE {
            self.buf.resize(self.len + PIECE, 0);
        }
        &mut self.buf[self.len..]
    }

    /// `n` bytes were written at the start of [`spare`](Self::spare); `0` means the end of the
    /// text.
    pub(crate) fn filled(&mut self, n: usize) {
        self.len += n.min(self.buf.len() - self.len);
        if n == 0 {
            self.eof = true;
        }
    }

    /// Reads what the text so far allows.
    pub(crate) fn step(&mut self) -> Step {
        if self.failed {
            return Step::Done(None);
        }
        if !self.bom_checked {
            if self.len < 3 && !self.eof {
                return Step::Read;
            }
            if self.buf[..self.len].starts_with(b"\xEF\xBB\xBF") {
                self.buf.copy_within(3..self.len, 0);
                self.len -= 3;
            }
            self.bom_checked = true;
        }
        if self.base + self.len >= ABSENT as usize {
            return Step::Done(None);
        }
        // Nothing to read until the next entry fits (or, after the closing `)`, the end).
        if !self.eof && (self.phase == Phase::End || self.len - self.done < self.lookahead) {
            return Step::Read;
        }
        // Out of `self` while the parser borrows it.
        let buf = std::mem::take(&mut self.buf);
        let step = self.step_in(&buf[self.done..self.len]);
        self.buf = buf;
        step
    }

    fn step_in(&mut self, window: &[u8]) -> Step {
        let text = match std::str::from_utf8(window) {
            Ok(text) => text,
            // A character cut at the end of the piece: read up to it.
            Err(e) if e.error_len().is_none() && !self.eof => {
                std::str::from_utf8(&window[..e.valid_up_to()]).unwrap_or_default()
            }
            Err(_) => return Step::Done(None),
        };
        let Some(tables) = self.tables.take() else {
            return Step::Done(None);
        };
        let mut p = Parser::new(text, self.base + self.done, tables);
        let mut finished = false;
        loop {
            if self.phase == Phase::End {
                // Only whitespace and comments may follow: decided at the end of the text, as
                // a comment may go on in the next piece.
                if self.eof {
                    let ok = p.skip_ws().is_ok() && p.pos == p.b.len();
                    self.failed = !ok;
                    finished = ok;
                }
                break;
            }
            if !self.eof && p.b.len() - p.pos < self.lookahead {
                break;
            }
            let (mark, pos, seen, offsets) = (p.tables.mark(), p.pos, self.seen, self.top.offsets);
            let phase = self.phase;
            if self.unit(&mut p).is_err() {
                p.tables.undo(mark);
                p.pos = pos;
                self.seen = seen;
                self.top.offsets = offsets;
                self.phase = phase;
                if self.eof {
                    self.failed = true;
                    break;
                }
                // Perhaps cut at the end of the piece: try again with twice the room.
                self.lookahead = self.lookahead.saturating_mul(2);
            }
        }
        let read = p.pos;
        self.wide.scan(&p.text[..read], self.base + self.done);
        self.tables = Some(p.tables);
        self.done += read;
        if self.failed {
            return Step::Done(None);
        }
        if !finished {
            return Step::Read;
        }
        Step::Done(self.finish().map(Box::new))
    }

    /// Reads one top-level field, entity entry or delimiter.
    fn unit(&mut self, p: &mut Parser<'_>) -> PResult<()> {
        match self.phase {
            Phase::Open => {
                self.open_at = p.expect(b'(', "`(`")?;
                self.phase = Phase::Fields;
            }
            Phase::Entities => {
                if !p.entity_entry(&mut self.entities, &mut self.map.entities)? {
                    p.skip_ws()?;
                    match p.peek() {
                        Some(b',') => p.pos += 1,
                        Some(b')') => {}
                        _ => return p.unexpected("`,` or `)`"),
                    }
                    self.phase = Phase::Fields;
                }
            }
            Phase::Fields => {
                // As `Parser::structure` reads the top level, one field at a time.
                p.skip_ws()?;
                if p.peek() == Some(b')') {
                    p.pos += 1;
                    self.phase = Phase::End;
                    return Ok(());
                }
                let Some(name) = p.ident() else {
                    return p.unexpected("a field name or `)`");
                };
                let Some(i) = TOP_FIELDS.iter().position(|f| *f == name) else {
                    return p.unexpected("a field name");
                };
                if self.seen & (1 << i) != 0 {
                    return p.unexpected("a field not seen before");
                }
                self.seen |= 1 << i;
                p.expect(b':', "`:`")?;
                p.skip_ws()?;
                let at = p.pos;
                if i == 2 {
                    self.top.offsets[i] = p.abs(at);
                    p.expect(b'{', "`{` starting the entity map")?;
                    if self.entities.capacity() == 0 {
                        self.entities = p.entity_map(&mut self.map.entities);
                    }
                    self.phase = Phase::Entities;
                    return Ok(());
                }
                p.top_field(&mut self.top, i, at)?;
                p.skip_ws()?;
                match p.peek() {
                    Some(b',') => p.pos += 1,
                    Some(b')') => {}
                    _ => return p.unexpected("`,` or `)`"),
                }
            }
            Phase::End => {}
        }
        Ok(())
    }

    /// The result once the whole text is read.
    fn finish(&mut self) -> Option<ParsedScene> {
        if self.seen != all(5) {
            return None;
        }
        let mut top = std::mem::take(&mut self.top);
        top.entities = Some(std::mem::take(&mut self.entities));
        let mut map = std::mem::take(&mut self.map);
        map.top = top.offsets;
        let doc = top.into_doc()?;
        let tables = self.tables.take()?;
        Some(tables.finish(doc, map, std::mem::take(&mut self.wide)))
    }
}

/// Reads `bytes` as a [`StreamRead`] gets them from a reader that gives `piece` bytes at a time.
#[cfg(test)]
pub(crate) fn read_in_pieces(bytes: &[u8], piece: usize, lookahead: usize) -> Option<ParsedScene> {
    let mut stream = StreamRead::new(bytes.len(), lookahead);
    let mut rest = bytes;
    loop {
        match stream.step() {
            Step::Read => {
                let spare = stream.spare();
                let n = piece.max(1).min(rest.len()).min(spare.len());
                spare[..n].copy_from_slice(&rest[..n]);
                rest = &rest[n..];
                stream.filled(n);
            }
            Step::Done(result) => return result.map(|b| *b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ParsedScene, parse_f32, read_bytes, read_in_pieces, short_decimal_f32};

    proptest::proptest! {
        /// The short-decimal fast path gives exactly the standard library's value, or declines.
        #[test]
        fn short_decimals_are_exact(
            int in 0u32..100_000,
            frac in 0u64..10_000_000_000,
            frac_digits in 1usize..12,
            leading_zeros in 0usize..3,
            negative in proptest::bool::ANY,
        ) {
            let frac = format!("{frac:0width$}", width = frac_digits);
            let frac = &frac[frac.len() - frac_digits..];
            let token = format!(
                "{}{}{int}.{frac}",
                if negative { "-" } else { "" },
                "0".repeat(leading_zeros)
            );
            let expected = token.parse::<f32>().map(f32::to_bits).ok();
            if let Some(fast) = short_decimal_f32(&token) {
                proptest::prop_assert_eq!(Some(fast.to_bits()), expected, "{}", token);
            }
            proptest::prop_assert_eq!(parse_f32(&token).map(f32::to_bits).ok(), expected);
        }
    }

    #[test]
    fn short_decimals_take_the_fast_path_only_when_exact() {
        assert_eq!(
            short_decimal_f32("12.5").map(f32::to_bits),
            Some(12.5f32.to_bits())
        );
        assert_eq!(
            short_decimal_f32("-0.0").map(f32::to_bits),
            Some((-0.0f32).to_bits())
        );
        for declined in [
            "1",
            "1.",
            ".5",
            "1e3",
            "1.5f32",
            "+1.0",
            "1_0.5",
            "12345678.9",
            "0.12345678901",
        ] {
            assert_eq!(short_decimal_f32(declined), None, "{declined}");
        }
    }

    #[test]
    fn float_literals_follow_ron() {
        assert_eq!(parse_f32("1"), Ok(1.0));
        assert_eq!(parse_f32("-0.5"), Ok(-0.5));
        assert_eq!(parse_f32("1e3"), Ok(1000.0));
        assert_eq!(parse_f32("2.5E-1"), Ok(0.25));
        assert_eq!(parse_f32("1_000.5"), Ok(1000.5));
        assert_eq!(parse_f32("2.0f32"), Ok(2.0));
        assert_eq!(parse_f32("-inf"), Ok(f32::NEG_INFINITY));
        assert!(parse_f32("NaN").is_ok_and(f32::is_nan));
        assert!(parse_f32("-0.0").is_ok_and(|v| v == 0.0 && v.is_sign_negative()));
        assert!(parse_f32("1e").is_err());
        assert!(parse_f32("_1").is_err());
        assert!(parse_f32("0x10").is_err());
        assert!(parse_f32("infinity").is_err());
        assert!(parse_f32("nan").is_err());
        assert!(parse_f32("1.2.3").is_err());
    }

    /// Every feature the reader crosses: comments (nested, at entry boundaries, at the end),
    /// strings with escapes and raw strings, non-ASCII text, custom components, `format_version`
    /// 0 (a warning), CRLF, and top-level fields out of order.
    const RICH: &str = "\u{feff}// A scene\r\n(\r\n  next_id: 9,\r\n  format_version: 0,\r\n  name: \"Zoë's \\\"garden\\\" 🌲\",\r\n  entities: { /* one /* nested */ comment */\r\n    4: (id: 4, name: \"Ünïcode ✓\", parent: None, children: [5], transform: (translation: (x: 1.5, y: -2.0, z: 3e2), rotation: (x: 0.0, y: 90.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [(type: sprite, data: (color: (r: 1.0, g: 0.5, b: 0.25, a: 1.0), flip_x: true)), (type: custom, data: (type_path: \"game::Orbit\", fields: [(name: \"radius\", expr: \"2.5 * 2.0\"), (name: \"label\", expr: r#\"\"ring \\n\"\"#)]))], locked: true), // after an entry\r\n    5: (\r\n      id: 5,\r\n      name: \"child\",\r\n      parent: Some(4),\r\n      children: [],\r\n      transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),\r\n      components: [(type: text2d, data: (text: \"héllo\\u{1F600}\", font_size: 12.0, color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0)))],\r\n    ),\r\n  },\r\n  roots: [4],\r\n) // the end\r\n";

    fn texts() -> Vec<Vec<u8>> {
        let mut out = vec![
            RICH.as_bytes().to_vec(),
            RICH.replace("\r\n", "\n").into_bytes(),
        ];
        for dir in ["valid", "invalid", "warnings"] {
            let path = format!("{}/tests/fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
            for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
                if entry.path().to_string_lossy().ends_with(".forge.ron") {
                    out.push(std::fs::read(entry.path()).unwrap_or_default());
                }
            }
        }
        out
    }

    /// The whole-text read, as a streamed read gives it (errors are found by reading whole).
    fn whole(bytes: &[u8]) -> Option<ParsedScene> {
        read_bytes(bytes).ok()
    }

    #[test]
    fn a_text_read_in_pieces_is_read_as_a_whole() {
        let all = texts();
        assert!(all.len() >= 7, "fixtures missing: {}", all.len());
        assert!(
            whole(RICH.as_bytes()).is_some(),
            "{:?}",
            read_bytes(RICH.as_bytes()).err()
        );
        for bytes in &all {
            for piece in [1, 2, 3, 5, 17, 64, 4096] {
                for lookahead in [1, 8, 100, 1 << 20] {
                    assert_eq!(
                        read_in_pieces(bytes, piece, lookahead),
                        whole(bytes),
                        "piece {piece}, lookahead {lookahead}:\n{}",
                        String::from_utf8_lossy(bytes)
                    );
                }
            }
        }
    }

    #[test]
    fn every_cut_of_a_text_is_refused_or_read_as_a_whole() {
        // A text that ends early (at every byte) is refused by both, or read the same: a streamed
        // read never takes a cut for the end of the text.
        let rich = RICH.as_bytes();
        for end in 0..rich.len() {
            let cut = &rich[..end];
            assert_eq!(read_in_pieces(cut, 7, 4), whole(cut), "cut at {end}");
        }
    }

    /// Bytes that change what a reader sees: delimiters, comment and string starts, escapes,
    /// newlines, a multi-byte character and an invalid UTF-8 byte.
    const EDIT_BYTES: &[u8] = b"/*\"\\\n\r(){}[],:#r0 x\xC3\xA9\xFF";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Fuzz: any edit of any text, cut into any pieces, reads as the whole text reads (the
        /// same document, or a refusal).
        #[test]
        fn edited_texts_read_in_pieces_as_a_whole(
            which in 0usize..64,
            edits in proptest::collection::vec((0usize..4096, 0usize..3, 0usize..EDIT_BYTES.len(), 1usize..4), 0..4),
            piece in 1usize..300,
            lookahead in 1usize..200,
        ) {
            let all = texts();
            let mut bytes = all[which % all.len()].clone();
            for (at, kind, b, n) in edits {
                let at = at % (bytes.len() + 1);
                match kind {
                    0 => bytes.insert(at, EDIT_BYTES[b]),
                    1 => { bytes.drain(at..(at + n).min(bytes.len())); }
                    _ => if at < bytes.len() { bytes[at] = EDIT_BYTES[b] },
                }
            }
            proptest::prop_assert_eq!(read_in_pieces(&bytes, piece, lookahead), whole(&bytes));
        }
    }
}
