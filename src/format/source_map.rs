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

/// Where one entity entry and its parts sit in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntitySpans {
    /// The map key (`3:`) of the entry.
    pub(crate) entry: u32,
    /// Value offsets of `id`, `name`, `parent`, `children`, `transform`, `components`, `locked`,
    /// `instance`.
    pub(crate) fields: [u32; 8],
    /// Value offsets of `translation`, `rotation`, `scale`, each followed by its `x`, `y`, `z`.
    pub(crate) transform: [[u32; 4]; 3],
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
    pub(crate) scene: u32,
    /// Each override, in list order.
    pub(crate) overrides: Vec<OverrideSpans>,
}

/// Where one override and its parts sit in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OverrideSpans {
    /// The opening `(` of the entry.
    pub(crate) entry: u32,
    /// Value offsets of the fields in [`OVERRIDE_FIELDS`] order.
    pub(crate) fields: [u32; 7],
    /// Value offsets of the transform's `translation`, `rotation`, `scale`, each followed by its
    /// `x`, `y`, `z` (as [`EntitySpans::transform`]).
    pub(crate) transform: [[u32; 4]; 3],
    /// `set` entries in [`SourceMap::components`], in list order.
    pub(crate) set: SpanRange,
    /// `add` entries in [`SourceMap::components`], in list order.
    pub(crate) add: SpanRange,
    /// Each `remove` key.
    pub(crate) remove: Vec<u32>,
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
            entry: ABSENT,
            fields: [ABSENT; 7],
            transform: [[ABSENT; 4]; 3],
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
    /// The run from `start` to the end of `table`.
    pub(crate) fn since<T>(start: usize, table: &[T]) -> Self {
        Self {
            start: start as u32,
            len: (table.len() - start) as u32,
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
    pub(crate) fn new(entry: u32) -> Self {
        Self {
            entry,
            fields: [ABSENT; 8],
            transform: [[ABSENT; 4]; 3],
            components: SpanRange::default(),
            text_hash: 0,
            instance: None,
        }
    }
}

/// Where one component entry and its parts sit in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ComponentSpans {
    /// The opening `(` of the entry.
    pub(crate) entry: u32,
    /// The `type` tag value.
    pub(crate) tag: u32,
    /// The `data` value, or [`ABSENT`].
    pub(crate) data: u32,
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
    /// Value offsets of `format_version`, `name`, `entities`, `roots`, `next_id`.
    pub(crate) top: [u32; 5],
    pub(crate) entities: IndexMap<u64, EntitySpans, super::IdHasher>,
    /// Every component of the file, entity by entity.
    pub(crate) components: Vec<ComponentSpans>,
    /// Every payload field of the file, component by component.
    pub(crate) payload_fields: Vec<(&'static str, u32)>,
    /// Every custom field of the file, component by component.
    pub(crate) custom_fields: Vec<[u32; 3]>,
}

/// A map of no text: every lookup gives `None`.
impl Default for SourceMap {
    fn default() -> Self {
        Self {
            lines: LineIndex::default(),
            top: [ABSENT; 5],
            entities: IndexMap::default(),
            components: Vec::new(),
            payload_fields: Vec::new(),
            custom_fields: Vec::new(),
        }
    }
}

pub(crate) const TOP_FIELDS: [&str; 5] = ["format_version", "name", "entities", "roots", "next_id"];

impl SourceMap {
    fn pos(&self, offset: u32) -> Option<Position> {
        (offset != ABSENT).then(|| self.lines.position(offset as usize))
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
        let i = TOP_FIELDS.iter().position(|f| *f == field)?;
        self.pos(self.top[i])
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

    /// The value of a field of entity `id`.
    ///
    /// `field` is an entity field (`id`, `name`, `parent`, `children`, `transform`, `components`,
    /// `locked`, `instance`), a transform part (`transform.translation`, `transform.rotation`,
    /// `transform.scale`) or one axis of it (`transform.rotation.y`).
    pub fn entity_field(&self, id: u64, field: &str) -> Option<Position> {
        let spans = self.entities.get(&id)?;
        if let Some(rest) = field.strip_prefix("transform.") {
            let (part, axis) = match rest.split_once('.') {
                Some((part, axis)) => (part, Some(axis)),
                None => (rest, None),
            };
            let p = TRANSFORM_FIELDS.iter().position(|f| *f == part)?;
            let a = match axis {
                None => 0,
                Some("x") => 1,
                Some("y") => 2,
                Some("z") => 3,
                Some(_) => return None,
            };
            return self.pos(spans.transform[p][a]);
        }
        let i = ENTITY_FIELDS.iter().position(|f| *f == field)?;
        self.pos(spans.fields[i])
    }

    /// The entry (opening `(`) of component `index` of entity `id`.
    pub fn component(&self, id: u64, index: usize) -> Option<Position> {
        self.pos(self.component_spans(id, index)?.entry)
    }

    /// The `type` tag of component `index` of entity `id`.
    pub fn component_tag(&self, id: u64, index: usize) -> Option<Position> {
        self.pos(self.component_spans(id, index)?.tag)
    }

    /// A payload field of component `index` of entity `id`: `font_size`, `custom_size`,
    /// `intensity`, `material.metallic`, `mesh.value`, ... `data` itself gives the payload.
    pub fn component_field(&self, id: u64, index: usize, field: &str) -> Option<Position> {
        let c = self.component_spans(id, index)?;
        if field == "data" {
            return self.pos(c.data);
        }
        let fields = c.fields.of(&self.payload_fields);
        let (_, off) = fields.iter().find(|(name, _)| *name == field)?;
        self.pos(*off)
    }

    /// Custom field `field_index` of custom component `index` of entity `id`: its entry.
    pub fn custom_field(&self, id: u64, index: usize, field_index: usize) -> Option<Position> {
        self.custom_field_part(id, index, field_index, 0)
    }

    /// The `name` value of a custom field.
    pub fn custom_field_name(&self, id: u64, index: usize, field_index: usize) -> Option<Position> {
        self.custom_field_part(id, index, field_index, 1)
    }

    /// The `expr` value of a custom field.
    pub fn custom_field_expr(&self, id: u64, index: usize, field_index: usize) -> Option<Position> {
        self.custom_field_part(id, index, field_index, 2)
    }

    /// A part of override `index` of the instance on entity `id` (see [`OverridePart`]); the
    /// `instance` value itself with `index` past the overrides is not a part: use
    /// [`entity_field`](Self::entity_field) with `instance`.
    pub fn override_part(&self, id: u64, index: usize, part: OverridePart<'_>) -> Option<Position> {
        let spans = self
            .entities
            .get(&id)?
            .instance
            .as_deref()?
            .overrides
            .get(index)?;
        let component = |range: SpanRange, i: usize| range.of(&self.components).get(i);
        let offset = match part {
            OverridePart::Entry => spans.entry,
            OverridePart::Field(field) => {
                spans.fields[OVERRIDE_FIELDS.iter().position(|f| *f == field)?]
            }
            OverridePart::Transform(part) => {
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
                spans.transform[p][a]
            }
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
                .get(field)?[1],
            OverridePart::SetCustomExpr(i, field) => component(spans.set, i)?
                .custom_fields
                .of(&self.custom_fields)
                .get(field)?[2],
            OverridePart::Add(i) => component(spans.add, i)?.entry,
            OverridePart::Remove(i) => *spans.remove.get(i)?,
        };
        self.pos(offset)
    }

    /// The `scene` value of the instance on entity `id`.
    pub fn instance_scene(&self, id: u64) -> Option<Position> {
        self.pos(self.entities.get(&id)?.instance.as_deref()?.scene)
    }

    fn custom_field_part(
        &self,
        id: u64,
        index: usize,
        field: usize,
        part: usize,
    ) -> Option<Position> {
        let c = self.component_spans(id, index)?;
        self.pos(c.custom_fields.of(&self.custom_fields).get(field)?[part])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy as _;

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
