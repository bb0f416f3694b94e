//! Where each part of a document was read from: byte spans of every entity, field, component
//! and custom field, and (`lines`) 1-based lines and columns.

mod lines;
mod splice;

pub use lines::Position;
pub(crate) use lines::{LineIndex, LineStarts, WideChars};
pub(crate) use splice::EntryTables;

use indexmap::IndexMap;

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
    /// The `scene` value (the `model` value of a model instance).
    pub(crate) scene: Span,
    /// The `overrides` list value, from its `[` to its `]` ([`Span::NONE`] when not written).
    pub(crate) list: Span,
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
    /// Each name of a model override's node path (`target: ["Roof", "Chimney"]`).
    pub(crate) node: Vec<Span>,
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
            node: Vec::new(),
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
    /// Name `index` of a model override's node path (`"Chimney"` in `["Roof", "Chimney"]`).
    Node(usize),
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

    /// Where entity `id`'s entry and its parts are.
    pub(crate) fn entity_spans(&self, id: u64) -> Option<&EntitySpans> {
        self.entities.get(&id)
    }

    /// The key of the entity whose entry holds bytes `start..end`, when one does.
    pub(crate) fn entry_around(&self, start: usize, end: usize) -> Option<u64> {
        let index = self
            .entities
            .as_slice()
            .partition_point(|_, e| e.entry.start as usize <= start);
        let (key, spans) = self.entities.get_index(index.checked_sub(1)?)?;
        (spans.entry.is_some() && end <= spans.entry.end as usize).then_some(*key)
    }

    /// Where the instance on entity `id` and its overrides are, when it has one.
    pub(crate) fn instance_spans(&self, id: u64) -> Option<&InstanceSpans> {
        self.entities.get(&id)?.instance.as_deref()
    }

    /// The rows of `range` in the components table (an entity's components, an override's
    /// `set` or `add` entries).
    pub(crate) fn component_rows(&self, range: SpanRange) -> &[ComponentSpans] {
        range.of(&self.components)
    }

    /// The payload fields written in the component at `spans`, by dotted path.
    pub(crate) fn payload_of(&self, spans: &ComponentSpans) -> &[(&'static str, Span)] {
        spans.fields.of(&self.payload_fields)
    }

    /// The custom fields written in the component at `spans`: each one's entry, `name` and
    /// `expr`.
    pub(crate) fn custom_of(&self, spans: &ComponentSpans) -> &[[Span; 3]] {
        spans.custom_fields.of(&self.custom_fields)
    }

    /// The spans of component `index` of entity `id`.
    pub(crate) fn component_spans(&self, id: u64, index: usize) -> Option<&ComponentSpans> {
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
            OverridePart::Node(i) => *spans.node.get(i)?,
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
}
