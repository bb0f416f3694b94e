//! Where each part of a document was read from: 1-based lines and columns.

use indexmap::IndexMap;

/// A place in a source text: 1-based line and column, and the byte offset.
///
/// Columns count characters (Unicode scalar values), not bytes, so they match what an editor
/// shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Byte offset from the start of the text (after a byte-order mark, if any).
    pub offset: usize,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// The byte offset of the first byte of each line of a text, in about one byte per line: the
/// start of every [`LineStarts::BLOCK`]th line, and for each other line its distance from the
/// line before (a byte; longer distances in a side table). A canonical file has a line every 20
/// bytes or so, so a plain `Vec<u32>` would take a fifth of the text's size.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LineStarts {
    /// The start of lines `0`, `BLOCK`, `2 * BLOCK`, ...
    blocks: Vec<u32>,
    /// For line `i >= 1` at `steps[i - 1]`: its start minus the start of line `i - 1`, or
    /// [`LineStarts::LONG`] when that is `LONG` or more.
    steps: Vec<u8>,
    /// `(line, step)` of each line whose step is `LONG` or more, in line order.
    long: Vec<(u32, u32)>,
    /// The start of the last line (`0` when there is none).
    last: u32,
}

impl LineStarts {
    /// Lines per absolute offset: a lookup steps over at most `BLOCK - 1` lines.
    const BLOCK: usize = 64;
    /// The step byte of a line whose step is in `long`.
    const LONG: u8 = u8::MAX;

    /// Room for about `lines` lines.
    pub(crate) fn with_capacity(lines: usize) -> Self {
        Self {
            blocks: Vec::with_capacity(lines / Self::BLOCK + 1),
            steps: Vec::with_capacity(lines),
            long: Vec::new(),
            last: 0,
        }
    }

    /// Number of lines recorded.
    pub(crate) fn len(&self) -> usize {
        if self.blocks.is_empty() {
            0
        } else {
            self.steps.len() + 1
        }
    }

    /// The start of the last line recorded.
    #[inline]
    pub(crate) fn last(&self) -> Option<u32> {
        (!self.blocks.is_empty()).then_some(self.last)
    }

    /// Records the next line, which starts at `start` (not before the last line's start).
    #[inline]
    pub(crate) fn push(&mut self, start: u32) {
        let line = self.len();
        if line.is_multiple_of(Self::BLOCK) {
            self.blocks.push(start);
        }
        if line > 0 {
            let step = start - self.last;
            if step >= u32::from(Self::LONG) {
                self.steps.push(Self::LONG);
                self.long.push((line as u32, step));
            } else {
                self.steps.push(step as u8);
            }
        }
        self.last = start;
    }

    /// Keeps the first `len` lines.
    pub(crate) fn truncate(&mut self, len: usize) {
        if len >= self.len() {
            return;
        }
        if len == 0 {
            *self = Self::default();
            return;
        }
        self.steps.truncate(len - 1);
        self.blocks.truncate((len - 1) / Self::BLOCK + 1);
        while self
            .long
            .last()
            .is_some_and(|(line, _)| *line as usize >= len)
        {
            self.long.pop();
        }
        self.last = self.line_of(u32::MAX).1;
    }

    /// Drops spare capacity.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.blocks.shrink_to_fit();
        self.steps.shrink_to_fit();
        self.long.shrink_to_fit();
    }

    /// The start of every line, in order.
    fn starts(&self) -> impl Iterator<Item = u32> + '_ {
        let mut start = self.blocks.first().copied().unwrap_or(0);
        let mut long = self.long.iter().peekable();
        (0..self.len()).map(move |line| {
            if line > 0 {
                start += match self.steps[line - 1] {
                    Self::LONG => {
                        while long.next_if(|(l, _)| (*l as usize) < line).is_some() {}
                        long.peek().map_or(0, |(_, step)| *step)
                    }
                    step => u32::from(step),
                };
            }
            start
        })
    }

    /// The distance from the start of line `line - 1` to the start of line `line` (`line >= 1`).
    fn step(&self, line: usize) -> u32 {
        match self.steps[line - 1] {
            Self::LONG => {
                let i = self.long.partition_point(|(l, _)| (*l as usize) < line);
                self.long[i].1
            }
            step => u32::from(step),
        }
    }

    /// The last line starting at or before `offset`: its 0-based number and its start. `(0, 0)`
    /// when no line starts there (or none is recorded).
    pub(crate) fn line_of(&self, offset: u32) -> (usize, u32) {
        let block = self.blocks.partition_point(|&s| s <= offset);
        if block == 0 {
            return (0, 0);
        }
        let mut line = (block - 1) * Self::BLOCK;
        let mut start = self.blocks[block - 1];
        let len = self.len();
        while line + 1 < len {
            let next = start + self.step(line + 1);
            if next > offset {
                break;
            }
            line += 1;
            start = next;
        }
        (line, start)
    }
}

/// Maps byte offsets of one text to lines and columns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LineIndex {
    /// Byte offset of the first byte of each line.
    line_starts: LineStarts,
    /// For each non-ASCII character: the offset just past it and the running total of extra
    /// bytes (UTF-8 length minus one) up to and including it.
    wide: Vec<(u32, u32)>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = LineStarts::with_capacity(bytes.len() / 24 + 1);
        line_starts.push(0u32);
        for_each_newline(bytes, |nl| line_starts.push(nl as u32 + 1));
        line_starts.shrink_to_fit();
        let mut wide = WideChars::default();
        wide.scan(text, 0);
        Self::from_parts(line_starts, wide.table)
    }

    /// The index of a text from its line starts and the [`WideChars`] table of the same text.
    pub(crate) fn from_parts(line_starts: LineStarts, mut wide: Vec<(u32, u32)>) -> Self {
        wide.shrink_to_fit();
        Self { line_starts, wide }
    }

    /// The position of byte `offset`. Offsets past the end map to the end of the last line.
    pub(crate) fn position(&self, offset: usize) -> Position {
        let off = offset.min(u32::MAX as usize) as u32;
        // An empty index (a default map) is one line from offset 0.
        let (line, line_start) = self.line_starts.line_of(off);
        let line = line + 1;
        let extra_before = |at: u32| -> u32 {
            let i = self.wide.partition_point(|&(end, _)| end <= at);
            if i == 0 { 0 } else { self.wide[i - 1].1 }
        };
        let extra = extra_before(off) - extra_before(line_start);
        Position {
            line: line as u32,
            column: off - line_start - extra + 1,
            offset,
        }
    }
}

impl LineIndex {
    /// The index of `text`, which is the text this index was made for with the bytes at `old`
    /// replaced by `text[old.start..old.start + new_len]`: lines and characters before the edit
    /// kept, those after it moved, only the edited bytes scanned. The same index as
    /// [`LineIndex::new`] of `text`.
    pub(crate) fn edited(&self, text: &str, old: std::ops::Range<usize>, new_len: usize) -> Self {
        let delta = new_len as i64 - (old.end - old.start) as i64;
        let moved = |at: u32| (i64::from(at) + delta) as u32;
        let new_end = old.start + new_len;
        let mut line_starts = LineStarts::with_capacity(self.line_starts.len() + 16);
        let mut starts = self.line_starts.starts().peekable();
        // Lines starting at or before the edit (a line starting right after a newline that the
        // edit removes is not one of them: its newline is in the edit).
        while let Some(start) = starts.next_if(|s| *s as usize <= old.start) {
            line_starts.push(start);
        }
        if line_starts.len() == 0 {
            line_starts.push(0);
        }
        for_each_newline(&text.as_bytes()[old.start..new_end], |nl| {
            line_starts.push((old.start + nl) as u32 + 1);
        });
        for start in starts.filter(|s| *s as usize > old.end) {
            line_starts.push(moved(start));
        }
        line_starts.shrink_to_fit();
        // Non-ASCII characters: those ending before the edit kept, the edited bytes scanned, the
        // rest moved with their running totals corrected.
        let keep = self
            .wide
            .partition_point(|&(end, _)| end as usize <= old.start);
        let before = if keep == 0 { 0 } else { self.wide[keep - 1].1 };
        let mut wide = WideChars {
            table: self.wide[..keep].to_vec(),
            extra: before,
        };
        wide.scan(&text[old.start..new_end], old.start);
        let after = self
            .wide
            .partition_point(|&(end, _)| (end as usize) <= old.end);
        let old_extra = if after == 0 {
            0
        } else {
            self.wide[after - 1].1
        };
        let extra_delta = i64::from(wide.extra) - i64::from(old_extra);
        wide.table.extend(
            self.wide[after..]
                .iter()
                .map(|&(end, extra)| (moved(end), (i64::from(extra) + extra_delta) as u32)),
        );
        Self::from_parts(line_starts, wide.table)
    }
}

/// The non-ASCII characters of a text, collected piece by piece (the [`LineIndex`] `wide` table).
#[derive(Debug, Default)]
pub(crate) struct WideChars {
    pub(crate) table: Vec<(u32, u32)>,
    extra: u32,
}

impl WideChars {
    /// Adds the characters of `text`, which starts at offset `base` of the whole text and
    /// follows the part scanned before.
    pub(crate) fn scan(&mut self, text: &str, base: usize) {
        if text.is_ascii() {
            return;
        }
        for (i, c) in text.char_indices() {
            let len = c.len_utf8();
            if len > 1 {
                self.extra += len as u32 - 1;
                self.table.push(((base + i + len) as u32, self.extra));
            }
        }
    }
}

/// Calls `f` with the offset of every `\n` in `bytes`, in order.
///
/// Lines are short (about 25 bytes in canonical files), so restarting a SIMD search after each
/// newline costs more than it saves: this reads eight bytes at a time and visits only the
/// newline bytes of each word, through a bit mask.
fn for_each_newline(bytes: &[u8], mut f: impl FnMut(usize)) {
    const LOW7: u64 = u64::from_le_bytes([0x7f; 8]);
    const NEWLINES: u64 = u64::from_le_bytes([b'\n'; 8]);
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let x = u64::from_le_bytes(eight) ^ NEWLINES;
        // Exactly the high bit of each byte of `x` that is zero (no carries between bytes).
        let mut zeros = !(((x & LOW7) + LOW7) | x | LOW7);
        while zeros != 0 {
            f(at + (zeros.trailing_zeros() / 8) as usize);
            zeros &= zeros - 1;
        }
        at += 8;
    }
    for (i, b) in words.remainder().iter().enumerate() {
        if *b == b'\n' {
            f(at + i);
        }
    }
}

/// Byte offset meaning "not present in the text".
pub(crate) const ABSENT: u32 = u32::MAX;

/// Where a value sits in the text: the byte range from its first byte to just past its last
/// (`"Lamp"` with its quotes, `(x: 1, y: 2)` with its parentheses), in the text after a
/// byte-order mark. [`Span::NONE`] for a part that was not in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// The first byte.
    pub start: u32,
    /// Just past the last byte.
    pub end: u32,
}

impl Span {
    /// A part that was not in the text.
    pub const NONE: Span = Span {
        start: ABSENT,
        end: ABSENT,
    };

    /// The span from `start` to `end`.
    pub(crate) const fn new(start: u32, end: u32) -> Self {
        Self { start, end }
    }

    /// Whether the part was in the text.
    pub fn is_some(self) -> bool {
        self.start != ABSENT
    }

    /// The byte range, when the part was in the text.
    pub fn range(self) -> Option<std::ops::Range<usize>> {
        self.is_some()
            .then(|| self.start as usize..(self.end.max(self.start)) as usize)
    }
}

impl Default for Span {
    fn default() -> Self {
        Self::NONE
    }
}

/// Where one entity entry and its parts sit in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntitySpans {
    /// The entry, from its map key (`3:`) to its closing `)`.
    pub(crate) entry: Span,
    /// The values of `id`, `name`, `parent`, `children`, `transform`, `components`, `locked`,
    /// `instance`.
    pub(crate) fields: [Span; 8],
    /// The values of `translation`, `rotation`, `scale`, each followed by its `x`, `y`, `z`.
    pub(crate) transform: [[Span; 4]; 3],
    /// The entity's components in [`SourceMap::components`], in list order.
    pub(crate) components: SpanRange,
    /// A hash of the entry's text, from its key to its closing `)`: two entries with the same
    /// text read as the same entity (see [`SourceMap::entity_text_hashes`]).
    pub(crate) text_hash: u64,
    /// Where the entity's `instance` and its overrides are, when it has one.
    pub(crate) instance: Option<Box<InstanceSpans>>,
}

/// Where an entity's `instance` value and its overrides sit in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InstanceSpans {
    /// The `scene` value.
    pub(crate) scene: Span,
    /// Each override, in list order.
    pub(crate) overrides: Vec<OverrideSpans>,
    /// The `streaming` value, then its `load_radius` and `unload_radius` values
    /// ([`Span::NONE`] when not written).
    pub(crate) streaming: [Span; 3],
}

/// Where one override and its parts sit in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OverrideSpans {
    /// The entry, from its `(` to its `)`.
    pub(crate) entry: Span,
    /// The values of the fields in [`OVERRIDE_FIELDS`] order.
    pub(crate) fields: [Span; 7],
    /// The values of the transform's `translation`, `rotation`, `scale`, each followed by its
    /// `x`, `y`, `z` (as [`EntitySpans::transform`]).
    pub(crate) transform: [[Span; 4]; 3],
    /// `set` entries in [`SourceMap::components`], in list order.
    pub(crate) set: SpanRange,
    /// `add` entries in [`SourceMap::components`], in list order.
    pub(crate) add: SpanRange,
    /// Each `remove` key.
    pub(crate) remove: Vec<Span>,
}

/// The fields of an override, in the order the writer puts them.
pub(crate) const OVERRIDE_FIELDS: [&str; 7] = [
    "target",
    "name",
    "transform",
    "set",
    "add",
    "remove",
    "children",
];

impl OverrideSpans {
    pub(crate) fn new() -> Self {
        Self {
            entry: Span::NONE,
            fields: [Span::NONE; 7],
            transform: [[Span::NONE; 4]; 3],
            set: SpanRange::default(),
            add: SpanRange::default(),
            remove: Vec::new(),
        }
    }
}

/// Where a part of an override sits: [`SourceMap::override_part`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OverridePart<'a> {
    /// The override's entry (its opening `(`).
    Entry,
    /// The value of one of its fields: `target`, `name`, `transform`, `set`, `add`, `remove`,
    /// `children`.
    Field(&'a str),
    /// A part of its transform (`translation`, `rotation.y`, `scale.x`).
    Transform(&'a str),
    /// Entry `index` of `set`.
    Set(usize),
    /// A payload field of `set` entry `index` (`intensity`, `material.base_color`); `data` gives
    /// the payload.
    SetField(usize, &'a str),
    /// The `expr` of custom field `field` of `set` entry `index`.
    SetCustomExpr(usize, usize),
    /// The `name` of custom field `field` of `set` entry `index`.
    SetCustomName(usize, usize),
    /// Entry `index` of `add`.
    Add(usize),
    /// Item `index` of `remove`.
    Remove(usize),
}

/// A run of entries in one of the [`SourceMap`]'s flat tables (one table for the whole file,
/// not one small allocation per entity and component).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SpanRange {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

impl SpanRange {
    /// The run from `start` to the end of `table`; an empty run is always the default one, so
    /// where it would have started never matters (an entry read again after an edit,
    /// [`SourceMap::splice_entry`], moves only runs that hold something).
    pub(crate) fn since<T>(start: usize, table: &[T]) -> Self {
        match table.len() - start {
            0 => Self::default(),
            len => Self {
                start: start as u32,
                len: len as u32,
            },
        }
    }

    /// The run moved by `by` rows, when it holds any.
    fn moved(self, by: i64) -> Self {
        match self.len {
            0 => self,
            len => Self {
                start: (i64::from(self.start) + by) as u32,
                len,
            },
        }
    }

    /// The entries of this run in `table` (empty when out of range).
    pub(crate) fn of<T>(self, table: &[T]) -> &[T] {
        let start = self.start as usize;
        table.get(start..start + self.len as usize).unwrap_or(&[])
    }
}

pub(crate) const ENTITY_FIELDS: [&str; 8] = [
    "id",
    "name",
    "parent",
    "children",
    "transform",
    "components",
    "locked",
    "instance",
];
pub(crate) const TRANSFORM_FIELDS: [&str; 3] = ["translation", "rotation", "scale"];

impl EntitySpans {
    pub(crate) fn new(entry: Span) -> Self {
        Self {
            entry,
            fields: [Span::NONE; 8],
            transform: [[Span::NONE; 4]; 3],
            components: SpanRange::default(),
            text_hash: 0,
            instance: None,
        }
    }
}

/// Where one component entry and its parts sit in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ComponentSpans {
    /// The entry, from its `(` to its `)`.
    pub(crate) entry: Span,
    /// The `type` tag value.
    pub(crate) tag: Span,
    /// The `data` value, or [`Span::NONE`].
    pub(crate) data: Span,
    /// Payload field values by dotted path (`font_size`, `material.metallic`, `mesh.value`), in
    /// [`SourceMap::payload_fields`].
    pub(crate) fields: SpanRange,
    /// Custom fields (entry, `name` value, `expr` value), in [`SourceMap::custom_fields`].
    pub(crate) custom_fields: SpanRange,
}

/// Where each part of a [`SceneDoc`](super::SceneDoc) was read from.
///
/// Returned by [`SceneDoc::from_str`](super::SceneDoc::from_str) and
/// [`SceneDoc::read`](super::SceneDoc::read). Lookups return `None` for parts that were not in the
/// text (a missing `locked`, an id that is not in the document, an index out of range).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMap {
    pub(crate) lines: LineIndex,
    /// The values of `format_version`, `name`, `entities`, `roots`, `next_id`, `layers`.
    pub(crate) top: [Span; 6],
    /// Each tile layer, in file order.
    pub(crate) layers: Vec<LayerSpans>,
    pub(crate) entities: IndexMap<u64, EntitySpans, super::IdHasher>,
    /// Every component of the file, entity by entity.
    pub(crate) components: Vec<ComponentSpans>,
    /// Every payload field of the file, component by component.
    pub(crate) payload_fields: Vec<(&'static str, Span)>,
    /// Every custom field of the file, component by component: its entry, `name` and `expr`.
    pub(crate) custom_fields: Vec<[Span; 3]>,
    /// The text of each `expr` string written with escapes (`"a\"b"`), by its start: where an
    /// expression's characters sit in the file cannot be told from its span alone. Few files
    /// have any.
    pub(crate) escaped: Vec<(u32, Box<str>)>,
}

/// A map of no text: every lookup gives `None`.
impl Default for SourceMap {
    fn default() -> Self {
        Self {
            lines: LineIndex::default(),
            top: [Span::NONE; 6],
            layers: Vec::new(),
            entities: IndexMap::default(),
            components: Vec::new(),
            payload_fields: Vec::new(),
            custom_fields: Vec::new(),
            escaped: Vec::new(),
        }
    }
}

pub(crate) const TOP_FIELDS: [&str; 6] = [
    "format_version",
    "name",
    "entities",
    "roots",
    "next_id",
    "layers",
];

/// The fields of a tile layer, in the order the writer puts them.
pub(crate) const LAYER_FIELDS: [&str; 11] = [
    "id",
    "name",
    "parent",
    "plane",
    "cell_size",
    "origin",
    "start",
    "palette",
    "rows",
    "cells",
    "overrides",
];

/// Where one tile layer and its parts sit in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LayerSpans {
    /// The layer's id (spans are looked up by it).
    pub(crate) id: u64,
    /// The entry, from its `(` to its `)`.
    pub(crate) entry: Span,
    /// The values of the fields in [`LAYER_FIELDS`] order.
    pub(crate) fields: [Span; 11],
    /// Each palette entry: its key string and its prefab string.
    pub(crate) palette: Vec<(Span, Span)>,
    /// Each row string.
    pub(crate) rows: Vec<Span>,
    /// Each sparse cell entry.
    pub(crate) cells: Vec<Span>,
    /// Each override, as an instance's.
    pub(crate) overrides: Vec<OverrideSpans>,
}

impl LayerSpans {
    pub(crate) fn new() -> Self {
        Self {
            id: 0,
            entry: Span::NONE,
            fields: [Span::NONE; 11],
            palette: Vec::new(),
            rows: Vec::new(),
            cells: Vec::new(),
            overrides: Vec::new(),
        }
    }
}

/// A part of a tile layer: [`SourceMap::layer_part`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LayerPart<'a> {
    /// The layer's entry (its opening `(`).
    Entry,
    /// The value of one of its fields: `id`, `name`, `parent`, `plane`, `cell_size`, `origin`,
    /// `start`, `palette`, `rows`, `cells`, `overrides`.
    Field(&'a str),
    /// The key string of palette entry `index`.
    PaletteKey(usize),
    /// The prefab string of palette entry `index`.
    PaletteScene(usize),
    /// Row string `index`.
    Row(usize),
    /// Sparse cell entry `index`.
    Cell(usize),
}

impl SourceMap {
    fn pos(&self, span: Span) -> Option<Position> {
        span.is_some()
            .then(|| self.lines.position(span.start as usize))
    }

    /// `span` where it is in the text.
    fn some(span: Span) -> Option<Span> {
        span.is_some().then_some(span)
    }

    /// The spans of component `index` of entity `id`.
    fn component_spans(&self, id: u64, index: usize) -> Option<&ComponentSpans> {
        self.entities
            .get(&id)?
            .components
            .of(&self.components)
            .get(index)
    }

    /// The position of byte `offset` of the text this map was read from.
    pub fn position_of_offset(&self, offset: usize) -> Position {
        self.lines.position(offset)
    }

    /// The value of a top-level field: `format_version`, `name`, `entities`, `roots`, `next_id`.
    pub fn top_field(&self, field: &str) -> Option<Position> {
        self.pos(self.top_field_span(field)?)
    }

    /// The byte range of the value of a top-level field ([`top_field`](Self::top_field)).
    pub fn top_field_span(&self, field: &str) -> Option<Span> {
        let i = TOP_FIELDS.iter().position(|f| *f == field)?;
        Self::some(self.top[i])
    }

    /// A hash of each entity entry's text (from its key to its closing `)`), in `entities`
    /// order. Entries with equal hashes were written identically, so they read as the same
    /// entity; hot reload skips comparing them.
    pub(crate) fn entity_text_hashes(&self) -> Vec<u64> {
        self.entities.values().map(|s| s.text_hash).collect()
    }

    /// The entry of entity `id` in `entities` (its key).
    pub fn entity(&self, id: u64) -> Option<Position> {
        self.pos(self.entities.get(&id)?.entry)
    }

    /// The byte range of entity `id`'s entry, from its key to its closing `)`.
    pub fn entity_span(&self, id: u64) -> Option<Span> {
        Self::some(self.entities.get(&id)?.entry)
    }

    /// The value of a field of entity `id`.
    ///
    /// `field` is an entity field (`id`, `name`, `parent`, `children`, `transform`, `components`,
    /// `locked`, `instance`), a transform part (`transform.translation`, `transform.rotation`,
    /// `transform.scale`) or one axis of it (`transform.rotation.y`).
    pub fn entity_field(&self, id: u64, field: &str) -> Option<Position> {
        self.pos(self.entity_field_span(id, field)?)
    }

    /// The byte range of a field's value of entity `id` (the fields of
    /// [`entity_field`](Self::entity_field)).
    pub fn entity_field_span(&self, id: u64, field: &str) -> Option<Span> {
        let spans = self.entities.get(&id)?;
        if let Some(rest) = field.strip_prefix("transform.") {
            return Self::some(transform_span(&spans.transform, rest)?);
        }
        let i = ENTITY_FIELDS.iter().position(|f| *f == field)?;
        Self::some(spans.fields[i])
    }

    /// The entry (opening `(`) of component `index` of entity `id`.
    pub fn component(&self, id: u64, index: usize) -> Option<Position> {
        self.pos(self.component_span(id, index)?)
    }

    /// The byte range of component `index` of entity `id`, from its `(` to its `)`.
    pub fn component_span(&self, id: u64, index: usize) -> Option<Span> {
        Self::some(self.component_spans(id, index)?.entry)
    }

    /// The number of components entity `id` was written with.
    pub fn component_count(&self, id: u64) -> usize {
        self.entities
            .get(&id)
            .map_or(0, |e| e.components.len as usize)
    }

    /// The number of custom fields component `index` of entity `id` was written with.
    pub fn custom_field_count(&self, id: u64, index: usize) -> usize {
        self.component_spans(id, index)
            .map_or(0, |c| c.custom_fields.len as usize)
    }

    /// The `type` tag of component `index` of entity `id`.
    pub fn component_tag(&self, id: u64, index: usize) -> Option<Position> {
        self.pos(self.component_tag_span(id, index)?)
    }

    /// The byte range of the `type` tag of component `index` of entity `id`.
    pub fn component_tag_span(&self, id: u64, index: usize) -> Option<Span> {
        Self::some(self.component_spans(id, index)?.tag)
    }

    /// A payload field of component `index` of entity `id`: `font_size`, `custom_size`,
    /// `intensity`, `material.metallic`, `mesh.value`, ... `data` itself gives the payload.
    pub fn component_field(&self, id: u64, index: usize, field: &str) -> Option<Position> {
        self.pos(self.component_field_span(id, index, field)?)
    }

    /// The byte range of a payload field's value ([`component_field`](Self::component_field)).
    pub fn component_field_span(&self, id: u64, index: usize, field: &str) -> Option<Span> {
        let c = self.component_spans(id, index)?;
        if field == "data" {
            return Self::some(c.data);
        }
        let fields = c.fields.of(&self.payload_fields);
        let (_, span) = fields.iter().find(|(name, _)| *name == field)?;
        Self::some(*span)
    }

    /// The payload fields written in component `index` of entity `id`, by dotted path, with
    /// their values' byte ranges, in the order they were read.
    pub fn component_fields(
        &self,
        id: u64,
        index: usize,
    ) -> impl Iterator<Item = (&'static str, Span)> + '_ {
        self.component_spans(id, index)
            .map_or(&[][..], |c| c.fields.of(&self.payload_fields))
            .iter()
            .copied()
    }

    /// Custom field `field_index` of custom component `index` of entity `id`: its entry.
    pub fn custom_field(&self, id: u64, index: usize, field_index: usize) -> Option<Position> {
        self.pos(self.custom_field_span(id, index, field_index, CustomPart::Entry)?)
    }

    /// The `name` value of a custom field.
    pub fn custom_field_name(&self, id: u64, index: usize, field_index: usize) -> Option<Position> {
        self.pos(self.custom_field_span(id, index, field_index, CustomPart::Name)?)
    }

    /// The `expr` value of a custom field.
    pub fn custom_field_expr(&self, id: u64, index: usize, field_index: usize) -> Option<Position> {
        self.pos(self.custom_field_span(id, index, field_index, CustomPart::Expr)?)
    }

    /// The byte range of a part of custom field `field_index` of custom component `index` of
    /// entity `id`: its entry (`(name: .., expr: ..)`), or its `name` or `expr` string.
    pub fn custom_field_span(
        &self,
        id: u64,
        index: usize,
        field_index: usize,
        part: CustomPart,
    ) -> Option<Span> {
        let c = self.component_spans(id, index)?;
        Self::some(c.custom_fields.of(&self.custom_fields).get(field_index)?[part as usize])
    }

    /// The text of the string at `start` when it was written with escapes (the `expr` strings
    /// of custom fields keep it; see [`expr_offset`](Self::expr_offset)).
    pub(crate) fn escaped(&self, start: u32) -> Option<&str> {
        let i = self
            .escaped
            .binary_search_by_key(&start, |(s, _)| *s)
            .ok()?;
        Some(&self.escaped[i].1)
    }

    /// The byte offset in the file of byte `at` of `expr`, the string read at `span` (an `expr`
    /// of a custom field, [`custom_field_span`](Self::custom_field_span) with
    /// [`CustomPart::Expr`]): exact, escapes (`\"`, `\n`, `\u{e9}`) counted as written; the
    /// start of the string when the file does not hold `expr` there (a document edited in
    /// memory).
    pub fn expr_offset(&self, span: Span, expr: &str, at: usize) -> usize {
        let start = span.start as usize;
        let Some(before) = expr.get(..at.min(expr.len())) else {
            return start;
        };
        let written = (span.end - span.start) as usize;
        if let Some(token) = self.escaped(span.start) {
            // A quoted string with escapes: its text is kept.
            return match token.get(1..).and_then(|body| written_len(body, before)) {
                Some(len) => start + 1 + len,
                None => start,
            };
        }
        // Without escapes the string is `"expr"` or `r#"expr"#` (any number of `#`).
        let quote = match written.checked_sub(expr.len()) {
            Some(2) => 1,
            Some(extra) if extra >= 3 && (extra - 3) % 2 == 0 => 2 + (extra - 3) / 2,
            _ => return start,
        };
        start + quote + before.len()
    }

    /// A part of override `index` of the instance on entity `id` (see [`OverridePart`]); the
    /// `instance` value itself with `index` past the overrides is not a part: use
    /// [`entity_field`](Self::entity_field) with `instance`.
    pub fn override_part(&self, id: u64, index: usize, part: OverridePart<'_>) -> Option<Position> {
        self.pos(self.override_part_span(id, index, part)?)
    }

    /// The byte range of a part of an override ([`override_part`](Self::override_part)); for
    /// [`OverridePart::Entry`] the whole override, from its `(` to its `)`.
    pub fn override_part_span(
        &self,
        id: u64,
        index: usize,
        part: OverridePart<'_>,
    ) -> Option<Span> {
        let spans = match self.entities.get(&id) {
            Some(entity) => entity.instance.as_deref()?.overrides.get(index)?,
            // A tile layer's overrides, by the layer's id.
            None => self.layer_spans(id)?.overrides.get(index)?,
        };
        let component = |range: SpanRange, i: usize| range.of(&self.components).get(i);
        let span = match part {
            OverridePart::Entry => spans.entry,
            OverridePart::Field(field) => {
                spans.fields[OVERRIDE_FIELDS.iter().position(|f| *f == field)?]
            }
            OverridePart::Transform(part) => transform_span(&spans.transform, part)?,
            OverridePart::Set(i) => component(spans.set, i)?.entry,
            OverridePart::SetField(i, "data") => component(spans.set, i)?.data,
            OverridePart::SetField(i, field) => {
                let c = component(spans.set, i)?;
                let fields = c.fields.of(&self.payload_fields);
                fields.iter().find(|(name, _)| *name == field)?.1
            }
            OverridePart::SetCustomName(i, field) => component(spans.set, i)?
                .custom_fields
                .of(&self.custom_fields)
                .get(field)?[CustomPart::Name as usize],
            OverridePart::SetCustomExpr(i, field) => component(spans.set, i)?
                .custom_fields
                .of(&self.custom_fields)
                .get(field)?[CustomPart::Expr as usize],
            OverridePart::Add(i) => component(spans.add, i)?.entry,
            OverridePart::Remove(i) => *spans.remove.get(i)?,
        };
        Self::some(span)
    }

    /// A part of the tile layer with id `id` (see [`LayerPart`]).
    pub fn layer_part(&self, id: u64, part: LayerPart<'_>) -> Option<Position> {
        self.pos(self.layer_part_span(id, part)?)
    }

    /// The byte range of a part of the tile layer with id `id`.
    pub fn layer_part_span(&self, id: u64, part: LayerPart<'_>) -> Option<Span> {
        let spans = self.layer_spans(id)?;
        let span = match part {
            LayerPart::Entry => spans.entry,
            LayerPart::Field(field) => {
                spans.fields[LAYER_FIELDS.iter().position(|f| *f == field)?]
            }
            LayerPart::PaletteKey(i) => spans.palette.get(i)?.0,
            LayerPart::PaletteScene(i) => spans.palette.get(i)?.1,
            LayerPart::Row(i) => *spans.rows.get(i)?,
            LayerPart::Cell(i) => *spans.cells.get(i)?,
        };
        Self::some(span)
    }

    /// Where the character at byte `byte` of row `row` (its text `text`) of layer `id` is.
    pub fn layer_char(&self, id: u64, row: usize, text: &str, byte: usize) -> Option<Position> {
        let span = self.layer_part_span(id, LayerPart::Row(row))?;
        Some(self.position_of_offset(self.expr_offset(span, text, byte)))
    }

    /// The number of tile layers the text holds.
    pub fn layer_count(&self) -> usize {
        self.layers.len()
    }

    fn layer_spans(&self, id: u64) -> Option<&LayerSpans> {
        self.layers.iter().find(|l| l.id == id)
    }

    /// The `scene` value of the instance on entity `id`.
    pub fn instance_scene(&self, id: u64) -> Option<Position> {
        self.pos(self.instance_scene_span(id)?)
    }

    /// The byte range of the `scene` value of the instance on entity `id`.
    pub fn instance_scene_span(&self, id: u64) -> Option<Span> {
        Self::some(self.entities.get(&id)?.instance.as_deref()?.scene)
    }

    /// The `streaming` value of the instance on entity `id` (`field` empty), or its
    /// `load_radius` or `unload_radius` value.
    pub fn instance_streaming(&self, id: u64, field: &str) -> Option<Position> {
        let spans = &self.entities.get(&id)?.instance.as_deref()?.streaming;
        let span = match field {
            "load_radius" => spans[1],
            "unload_radius" => spans[2],
            _ => spans[0],
        };
        self.pos(Self::some(span).or_else(|| Self::some(spans[0]))?)
    }

    /// The number of overrides the instance on entity `id` was written with.
    pub fn override_count(&self, id: u64) -> usize {
        match self.entities.get(&id) {
            Some(e) => e.instance.as_deref().map_or(0, |i| i.overrides.len()),
            None => self.layer_spans(id).map_or(0, |l| l.overrides.len()),
        }
    }
}

/// What reading one entity entry again gave ([`SourceMap::splice_entry`]): its spans, with its
/// runs of components counted from the start of these tables, and its rows of the flat tables.
pub(crate) struct EntryTables {
    pub(crate) spans: EntitySpans,
    pub(crate) components: Vec<ComponentSpans>,
    pub(crate) payload_fields: Vec<(&'static str, Span)>,
    pub(crate) custom_fields: Vec<[Span; 3]>,
    pub(crate) escaped: Vec<(u32, Box<str>)>,
}

/// Moves the spans after an edit: a span after the edited entry by `delta` bytes, one that holds
/// the whole entry (the `entities` map) at its end only.
#[derive(Clone, Copy)]
struct Shift {
    entry: Span,
    delta: i64,
}

impl Shift {
    fn span(self, span: &mut Span) {
        if !span.is_some() {
            return;
        }
        let moved = |at: u32| (i64::from(at) + self.delta) as u32;
        if span.start >= self.entry.end {
            span.start = moved(span.start);
            span.end = moved(span.end);
        } else if span.start <= self.entry.start && span.end >= self.entry.end {
            span.end = moved(span.end);
        }
    }

    fn spans(self, spans: &mut [Span]) {
        spans.iter_mut().for_each(|s| self.span(s));
    }

    fn transform(self, spans: &mut [[Span; 4]; 3]) {
        spans.iter_mut().for_each(|part| self.spans(part));
    }
}

impl SourceMap {
    /// Puts `new`, entity entry `index` read again from `text`, in place of its old spans:
    /// `text` is the text this map was read from with the bytes at `old` (inside the entry)
    /// replaced by `new_len` bytes. Spans after the entry move by the change in length, the
    /// rows of the other entries' components keep their order, and the line index takes the
    /// edit: the map is then the one reading `text` whole gives.
    pub(crate) fn splice_entry(
        &mut self,
        index: usize,
        new: EntryTables,
        text: &str,
        old: std::ops::Range<usize>,
        new_len: usize,
    ) {
        let Some(entry) = self.entities.get_index(index).map(|(_, s)| s.entry) else {
            return;
        };
        let shift = Shift {
            entry,
            delta: new_len as i64 - (old.end - old.start) as i64,
        };
        // The entry's rows of each table, and where the next entry's start.
        let c0 = self
            .components
            .partition_point(|c| c.entry.start < entry.start);
        let c1 = self
            .components
            .partition_point(|c| c.entry.start < entry.end);
        let rows = |pick: fn(&ComponentSpans) -> SpanRange, table_len: usize| {
            let at = |c: usize| {
                self.components
                    .get(c)
                    .map(pick)
                    .filter(|r| r.len > 0)
                    .map_or_else(
                        // An empty run says nothing: the next one that holds rows.
                        || {
                            self.components[c.min(self.components.len())..]
                                .iter()
                                .map(pick)
                                .find(|r| r.len > 0)
                                .map_or(table_len, |r| r.start as usize)
                        },
                        |r| r.start as usize,
                    )
            };
            at(c0)..at(c1)
        };
        let p = rows(|c| c.fields, self.payload_fields.len());
        let q = rows(|c| c.custom_fields, self.custom_fields.len());
        let dc = new.components.len() as i64 - (c1 - c0) as i64;
        let dp = new.payload_fields.len() as i64 - p.len() as i64;
        let dq = new.custom_fields.len() as i64 - q.len() as i64;
        // The new rows, counted from where the entry's rows start.
        let mut spans = new.spans;
        spans.components = spans.components.moved(c0 as i64);
        if let Some(instance) = &mut spans.instance {
            for o in &mut instance.overrides {
                o.set = o.set.moved(c0 as i64);
                o.add = o.add.moved(c0 as i64);
            }
        }
        let mut components = new.components;
        for c in &mut components {
            c.fields = c.fields.moved(p.start as i64);
            c.custom_fields = c.custom_fields.moved(q.start as i64);
        }
        let added = components.len();
        self.components.splice(c0..c1, components);
        for c in &mut self.components[c0 + added..] {
            shift.span(&mut c.entry);
            shift.span(&mut c.tag);
            shift.span(&mut c.data);
            c.fields = c.fields.moved(dp);
            c.custom_fields = c.custom_fields.moved(dq);
        }
        let added = new.payload_fields.len();
        self.payload_fields.splice(p.clone(), new.payload_fields);
        for (_, span) in &mut self.payload_fields[p.start + added..] {
            shift.span(span);
        }
        let added = new.custom_fields.len();
        self.custom_fields.splice(q.clone(), new.custom_fields);
        for spans in &mut self.custom_fields[q.start + added..] {
            shift.spans(spans);
        }
        let e0 = self.escaped.partition_point(|(s, _)| *s < entry.start);
        let e1 = self.escaped.partition_point(|(s, _)| *s < entry.end);
        let added = new.escaped.len();
        self.escaped.splice(e0..e1, new.escaped);
        for (start, _) in &mut self.escaped[e0 + added..] {
            let mut span = Span::new(*start, *start);
            shift.span(&mut span);
            *start = span.start;
        }
        for (_, e) in self.entities.iter_mut().skip(index + 1) {
            shift.span(&mut e.entry);
            shift.spans(&mut e.fields);
            shift.transform(&mut e.transform);
            e.components = e.components.moved(dc);
            if let Some(instance) = &mut e.instance {
                shift.span(&mut instance.scene);
                shift.spans(&mut instance.streaming);
                for o in &mut instance.overrides {
                    shift.span(&mut o.entry);
                    shift.spans(&mut o.fields);
                    shift.transform(&mut o.transform);
                    shift.spans(&mut o.remove);
                    o.set = o.set.moved(dc);
                    o.add = o.add.moved(dc);
                }
            }
        }
        if let Some((_, e)) = self.entities.get_index_mut(index) {
            *e = spans;
        }
        // Tile layers: their spans, and their overrides' rows of the components table when
        // those follow the entry's.
        for l in &mut self.layers {
            shift.span(&mut l.entry);
            shift.spans(&mut l.fields);
            for (key, scene) in &mut l.palette {
                shift.span(key);
                shift.span(scene);
            }
            shift.spans(&mut l.rows);
            shift.spans(&mut l.cells);
            for o in &mut l.overrides {
                shift.span(&mut o.entry);
                shift.spans(&mut o.fields);
                shift.transform(&mut o.transform);
                shift.spans(&mut o.remove);
                if o.set.start as usize >= c1 {
                    o.set = o.set.moved(dc);
                }
                if o.add.start as usize >= c1 {
                    o.add = o.add.moved(dc);
                }
            }
        }
        shift.spans(&mut self.top);
        self.lines = self.lines.edited(text, old, new_len);
    }
}

/// A part of a custom field: [`SourceMap::custom_field_span`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CustomPart {
    /// The field's entry, `(name: .., expr: ..)`.
    Entry = 0,
    /// Its `name` string.
    Name = 1,
    /// Its `expr` string.
    Expr = 2,
}

/// The span of transform part `part` (`translation`, `rotation.y`) in `spans`.
fn transform_span(spans: &[[Span; 4]; 3], part: &str) -> Option<Span> {
    let (part, axis) = match part.split_once('.') {
        Some((part, axis)) => (part, Some(axis)),
        None => (part, None),
    };
    let p = TRANSFORM_FIELDS.iter().position(|f| *f == part)?;
    let a = match axis {
        None => 0,
        Some("x") => 1,
        Some("y") => 2,
        Some("z") => 3,
        Some(_) => return None,
    };
    Some(spans[p][a])
}

/// How many bytes of `body`, the inside of a quoted RON string (after its opening quote), hold
/// `decoded` once its escapes are read; `None` when they do not.
pub(crate) fn written_len(body: &str, decoded: &str) -> Option<usize> {
    let mut chars = body.char_indices();
    let mut expected = decoded.chars();
    loop {
        let Some(want) = expected.next() else {
            return Some(chars.next().map_or(body.len(), |(i, _)| i));
        };
        let (_, c) = chars.next()?;
        let got = if c == '\\' {
            match chars.next()?.1 {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                '0' => '\0',
                'x' => {
                    let hex: String = [chars.next()?.1, chars.next()?.1].iter().collect();
                    char::from(u8::from_str_radix(&hex, 16).ok()?)
                }
                'u' => {
                    if chars.next()?.1 != '{' {
                        return None;
                    }
                    let mut hex = String::new();
                    loop {
                        match chars.next()?.1 {
                            '}' => break,
                            h if hex.len() < 6 => hex.push(h),
                            _ => return None,
                        }
                    }
                    char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
                }
                other => other,
            }
        } else {
            c
        };
        if got != want {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy as _;

    #[test]
    fn escapes_are_counted_as_written() {
        assert_eq!(written_len("abc #9\"", "abc "), Some(4));
        assert_eq!(
            written_len(r#"(\"a\\\"b\", #9)"#, "(\"a\\\"b\", "),
            Some(13)
        );
        assert_eq!(
            written_len(r"vec![\n  #4,\n  #9", "vec![\n  #4,\n  "),
            Some(16)
        );
        assert_eq!(written_len(r"\u{e9}\x41 #9", "éA "), Some(11));
        assert_eq!(written_len("é ü #9", "é ü "), Some(6));
        assert_eq!(written_len("abc", "abd"), None);
        assert_eq!(written_len("ab", "abc"), None);
    }

    #[test]
    fn an_empty_map_has_no_positions() {
        let map = SourceMap::default();
        assert_eq!(map.top_field("name"), None);
        assert_eq!(map.entity(1), None);
        assert_eq!(map.component_field(1, 0, "type_path"), None);
        assert_eq!(map.position_of_offset(5).line, 1);
    }

    #[test]
    fn positions_count_lines_and_characters() {
        let text = "ab\ncé d\n\nxyz";
        let idx = LineIndex::new(text);
        assert_eq!(
            idx.position(0),
            Position {
                line: 1,
                column: 1,
                offset: 0
            }
        );
        assert_eq!(idx.position(1).column, 2);
        assert_eq!((idx.position(3).line, idx.position(3).column), (2, 1));
        // 'd' is after a two-byte 'é': byte 7, character column 4.
        let d = text.find('d').unwrap_or_default();
        assert_eq!((idx.position(d).line, idx.position(d).column), (2, 4));
        assert_eq!(idx.position(text.len() - 1).line, 4);
    }

    proptest::proptest! {
        #[test]
        fn positions_match_a_character_count(text in "[a\n\r é\u{8a}\u{1F600}\u{b}]{0,80}") {
            let idx = LineIndex::new(&text);
            let (mut line, mut column) = (1u32, 1u32);
            for (offset, c) in text.char_indices() {
                let p = idx.position(offset);
                proptest::prop_assert_eq!((p.line, p.column), (line, column), "offset {}", offset);
                if c == '\n' {
                    line += 1;
                    column = 1;
                } else {
                    column += 1;
                }
            }
        }
    }

    /// Line starts as a plain list: the model [`LineStarts`] must agree with.
    fn model_line_of(starts: &[u32], offset: u32) -> (usize, u32) {
        match starts.partition_point(|&s| s <= offset) {
            0 => (0, 0),
            n => (n - 1, starts[n - 1]),
        }
    }

    proptest::proptest! {
        /// Pushes (short and long line lengths, over many blocks) and truncations (as the
        /// reader undoes a partly read entry) answer every lookup as a plain list does.
        #[test]
        fn line_starts_answer_as_a_plain_list(
            ops in proptest::collection::vec(
                proptest::prop_oneof![
                    8 => (0u32..40).prop_map(Some),
                    2 => (250u32..260).prop_map(Some),
                    1 => (260u32..70_000).prop_map(Some),
                    1 => proptest::strategy::Just(None),
                ],
                0..400,
            ),
            cuts in proptest::collection::vec(0usize..450, 0..4),
        ) {
            use proptest::prop_assert_eq;
            let (mut starts, mut model) = (LineStarts::default(), Vec::<u32>::new());
            let mut cuts = cuts.into_iter();
            for op in ops {
                match op {
                    Some(step) => {
                        let start = model.last().map_or(0, |l| l + step);
                        starts.push(start);
                        model.push(start);
                    }
                    None => {
                        let len = cuts.next().unwrap_or(0);
                        starts.truncate(len);
                        model.truncate(len);
                    }
                }
                prop_assert_eq!(starts.len(), model.len());
                prop_assert_eq!(starts.last(), model.last().copied());
            }
            let end = model.last().map_or(0, |l| l + 300);
            for offset in (0..end).step_by(7).chain([end, u32::MAX]) {
                prop_assert_eq!(starts.line_of(offset), model_line_of(&model, offset), "offset {}", offset);
            }
            for &start in &model {
                prop_assert_eq!(starts.line_of(start).1, start);
            }
        }
    }

    #[test]
    fn newlines_are_found_at_every_offset_of_a_word() {
        // Newlines at each of the eight byte positions, runs of them, and a remainder.
        let mut text = String::new();
        for i in 0..40 {
            text.push_str(&"x".repeat(i % 11));
            if i % 5 == 0 {
                text.push_str("\u{b}é\u{8a}");
            }
            text.push('\n');
            if i % 7 == 0 {
                text.push('\n');
            }
        }
        text.push_str("tail");
        let expected: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
        let mut found = Vec::new();
        for_each_newline(text.as_bytes(), |i| found.push(i));
        assert_eq!(found, expected);
        let idx = LineIndex::new(&text);
        assert_eq!(idx.line_starts.len(), expected.len() + 1);
    }
}
