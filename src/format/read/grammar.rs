//! The reader's grammar: the document, its entities, transforms and components, field by field
//! as the format page lays them out, each part recorded in the source map as it is read.

use indexmap::IndexMap;

use super::lex::is_ident_start;
use super::{PResult, Parser, ReadWarningKind, Scratch, Top, Trail};
use crate::format::builtin::{
    BuiltinTag, COMPONENT_TAGS, ComponentData, FieldKind, MESH_SOURCES, MeshSource,
    PRIMITIVE_SHAPES, Payload, PrimitiveShape, Value, builtin_at,
};
use crate::format::component::{CustomComponent, CustomField, EcoString};
use crate::format::error::{ReadErrorKind, closest};
use crate::format::instance::{ComponentPatch, Instance, Override, Streaming};
use crate::format::layer::{MAX_CELL_INDEX, TILE_PLANES, TileCell, TileLayer, TilePlane};
use crate::format::source_map::{
    ComponentSpans, ENTITY_FIELDS, EntitySpans, InstanceSpans, LAYER_FIELDS, LayerSpans, LineIndex,
    OVERRIDE_FIELDS, OverrideSpans, SourceMap, Span, SpanRange, TOP_FIELDS, TRANSFORM_FIELDS,
};
use crate::format::value::{ColorData, TransformData, Vec2Data, Vec3Data};
use crate::format::{EntityMap, EntityNode, FORMAT_VERSION, IdHasher, SceneDoc};

impl<'a> Parser<'a> {
    // ---- structure ---------------------------------------------------------------------------

    /// Reads `( field: value, ... )` with fields in any order. `on_field` gets the field's index
    /// in `fields` and the offset of its value. Returns the offset of `(` and the set of fields
    /// seen as a bit mask.
    pub(super) fn structure(
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
    pub(super) fn require(
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

    /// [`require`](Self::require), except inside the `set` list of an override, where payload
    /// fields are optional.
    pub(super) fn require_unless_patching(
        &self,
        at: usize,
        context: &'static str,
        fields: &'static [&'static str],
        seen: u32,
        required: u32,
    ) -> PResult<()> {
        if self.patching {
            return Ok(());
        }
        self.require(at, context, fields, seen, required)
    }

    /// Reads `[ item, ... ]`, calling `item` with each element's index.
    pub(super) fn sequence(
        &mut self,
        mut item: impl FnMut(&mut Self, usize) -> PResult<()>,
    ) -> PResult<()> {
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
    pub(super) fn option<T>(
        &mut self,
        value: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<Option<T>> {
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
    pub(super) fn skip_value(&mut self) -> PResult<()> {
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

    // ---- format values ---------------------------------------------------------------------------

    pub(super) fn floats<const N: usize>(
        &mut self,
        context: &'static str,
        names: &'static [&'static str; N],
        mut offsets: Option<&mut [Span]>,
    ) -> PResult<[f32; N]> {
        let mut v = [0.0f32; N];
        let (start, seen) = self.structure(context, names, |p, i, at| {
            v[i] = p.f32()?;
            if let Some(o) = offsets.as_deref_mut() {
                o[i] = p.span(at);
            }
            Ok(())
        })?;
        self.require(start, context, names, seen, all(N))?;
        Ok(v)
    }

    pub(super) fn vec2(&mut self) -> PResult<Vec2Data> {
        let [x, y] = self.floats("vector", &XY, None)?;
        Ok(Vec2Data { x, y })
    }

    pub(super) fn vec3(&mut self, offsets: Option<&mut [Span]>) -> PResult<Vec3Data> {
        let [x, y, z] = self.floats("vector", &XYZ, offsets)?;
        Ok(Vec3Data { x, y, z })
    }

    pub(super) fn color(&mut self) -> PResult<ColorData> {
        let [r, g, b, a] = self.floats("color", &RGBA, None)?;
        Ok(ColorData { r, g, b, a })
    }

    pub(super) fn id_list(&mut self) -> PResult<Vec<u64>> {
        let mut out = Vec::new();
        self.sequence(|p, _| {
            out.push(p.id()?);
            Ok(())
        })?;
        out.shrink_to_fit();
        Ok(out)
    }

    // ---- the document ------------------------------------------------------------------------------

    pub(super) fn document(&mut self, map: &mut SourceMap) -> PResult<SceneDoc> {
        let mut top = Top::default();
        let (start, seen) = self.structure("the scene", &TOP_FIELDS, |p, i, at| {
            if i == 2 {
                top.entities = Some(p.entities(&mut map.entities)?);
                top.offsets[i] = p.span(at);
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
        map.layers = std::mem::take(&mut top.layer_spans);
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
    pub(super) fn top_field(&mut self, top: &mut Top, i: usize, at: usize) -> PResult<()> {
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
            4 => top.next_id = Some(self.id()?),
            _ => {
                let mut spans = Vec::new();
                let mut layers = Vec::new();
                self.sequence(|p, _| {
                    let (layer, s) = p.layer()?;
                    layers.push(layer);
                    spans.push(s);
                    Ok(())
                })?;
                top.layers = layers;
                top.layer_spans = spans;
            }
        }
        top.offsets[i] = self.span(at);
        Ok(())
    }

    pub(super) fn entities(
        &mut self,
        spans: &mut IndexMap<u64, EntitySpans, IdHasher>,
    ) -> PResult<EntityMap> {
        self.expect(b'{', "`{` starting the entity map")?;
        let mut map = self.entity_map(spans);
        while self.entity_entry(&mut map, spans)? {}
        Ok(map)
    }

    /// An empty entity map with room for the entities of the rest of the text (canonical entries
    /// take about a kilobyte).
    pub(super) fn entity_map(&self, spans: &mut IndexMap<u64, EntitySpans, IdHasher>) -> EntityMap {
        let estimate = self.tables.len.saturating_sub(self.base + self.pos) / 1024;
        spans.reserve(estimate);
        EntityMap::with_capacity_and_hasher(estimate, IdHasher::default())
    }

    /// One `id: (..),` entry of the entity map, or its closing `}` (then `false`).
    pub(super) fn entity_entry(
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
                .position(first.entry.start as usize)
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
        let mut entity_spans = EntitySpans::new(Span::NONE);
        let node = self.entity(&mut entity_spans).map_err(|mut e| {
            e.entity.get_or_insert(key);
            e
        })?;
        entity_spans.entry = self.span(key_at);
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

    pub(super) fn entity(&mut self, spans: &mut EntitySpans) -> PResult<EntityNode> {
        let mut id = 0;
        let mut name = EcoString::default();
        let mut parent = None;
        let mut children = Vec::new();
        let mut transform = TransformData::IDENTITY;
        let mut components = Vec::new();
        let mut locked = false;
        let mut instance = None;
        let (start, seen) = self.structure("entity", &ENTITY_FIELDS, |p, i, at| {
            match i {
                0 => id = p.id()?,
                1 => name = p.small_string()?,
                2 => parent = p.option(Self::id)?,
                3 => children = p.id_list()?,
                4 => transform = p.transform(&mut spans.transform)?,
                5 => components = p.components(&mut spans.components)?,
                6 => locked = p.bool()?,
                _ => {
                    let mut instance_spans = None;
                    instance = p.option(|p| {
                        let (instance, s) = p.instance()?;
                        instance_spans = Some(Box::new(s));
                        Ok(Box::new(instance))
                    })?;
                    spans.instance = instance_spans;
                }
            }
            spans.fields[i] = p.span(at);
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
            instance,
        })
    }

    /// The inside of `instance: Some(..)`: `(scene: "..", overrides: [..], streaming: Some((..)))`.
    pub(super) fn instance(&mut self) -> PResult<(Instance, InstanceSpans)> {
        let mut scene = EcoString::default();
        let mut overrides = Vec::new();
        let mut streaming = None;
        let mut spans = InstanceSpans {
            scene: Span::NONE,
            overrides: Vec::new(),
            streaming: [Span::NONE; 3],
        };
        let (start, seen) = self.structure("instance", &INSTANCE_FIELDS, |p, i, at| {
            match i {
                0 => {
                    scene = p.small_string()?;
                    spans.scene = p.span(at);
                }
                1 => p.sequence(|p, _| {
                    let (o, s) = p.override_entry()?;
                    overrides.push(o);
                    spans.overrides.push(s);
                    Ok(())
                })?,
                _ => {
                    streaming = p.option(|p| {
                        let [load_radius, unload_radius] = p.floats(
                            "streaming",
                            &STREAMING_FIELDS,
                            Some(&mut spans.streaming[1..]),
                        )?;
                        Ok(Streaming {
                            load_radius,
                            unload_radius,
                        })
                    })?;
                    spans.streaming[0] = p.span(at);
                }
            }
            Ok(())
        })?;
        self.require(start, "instance", &INSTANCE_FIELDS, seen, 1)?;
        Ok((
            Instance {
                scene,
                overrides,
                streaming,
            },
            spans,
        ))
    }

    /// One tile layer: `(id: .., name: .., parent: .., plane: xy, cell_size: (..), origin: (..),
    /// start: (i: .., j: ..), palette: {"g": ".."}, rows: [..], cells: [..], overrides: [..])`;
    /// `id`, `plane`, `cell_size` and `palette` are required.
    pub(super) fn layer(&mut self) -> PResult<(TileLayer, LayerSpans)> {
        let mut l = TileLayer::new(0, "");
        let mut spans = LayerSpans::new();
        let (start, seen) = self.structure("tile layer", &LAYER_FIELDS, |p, i, at| {
            match i {
                0 => l.id = p.id()?,
                1 => l.name = p.small_string()?,
                2 => l.parent = p.option(Self::id)?,
                3 => {
                    l.plane = match p.tag("plane", "tile plane", TILE_PLANES)? {
                        0 => TilePlane::Xy,
                        _ => TilePlane::Xz,
                    }
                }
                4 => l.cell_size = p.vec2()?,
                5 => l.origin = p.vec3(None)?,
                6 => {
                    let mut v = [0u32; 2];
                    let (s, seen) = p.structure("cell index", &IJ, |p, i, _| {
                        v[i] = p.cell_index()?;
                        Ok(())
                    })?;
                    p.require(s, "cell index", &IJ, seen, all(2))?;
                    l.start = (v[0], v[1]);
                }
                7 => {
                    p.expect(b'{', "`{` starting the palette")?;
                    loop {
                        p.skip_ws()?;
                        if p.peek() == Some(b'}') {
                            p.pos += 1;
                            break;
                        }
                        let key_at = p.pos;
                        let key = p.palette_key()?;
                        let key_span = p.span(key_at);
                        if l.palette.iter().any(|(k, _)| *k == key) {
                            return p.fail(
                                key_at,
                                ReadErrorKind::Unexpected {
                                    expected: "a palette key not listed before",
                                    found: format!("{key:?} again"),
                                },
                            );
                        }
                        p.expect(b':', "`:` after a palette key")?;
                        p.skip_ws()?;
                        let scene_at = p.pos;
                        let scene = p.small_string()?;
                        spans.palette.push((key_span, p.span(scene_at)));
                        l.palette.push((key, scene));
                        p.skip_ws()?;
                        match p.peek() {
                            Some(b',') => p.pos += 1,
                            Some(b'}') => {}
                            _ => return p.unexpected("`,` or `}`"),
                        }
                    }
                }
                8 => p.sequence(|p, _| {
                    p.skip_ws()?;
                    let at = p.pos;
                    l.rows.push(p.string()?);
                    p.keep_escaped(at);
                    spans.rows.push(p.span(at));
                    Ok(())
                })?,
                9 => p.sequence(|p, _| {
                    let mut cell = TileCell {
                        i: 0,
                        j: 0,
                        key: ' ',
                    };
                    let (s, seen) = p.structure("tile cell", &IJ_KEY, |p, i, _| {
                        match i {
                            0 => cell.i = p.cell_index()?,
                            1 => cell.j = p.cell_index()?,
                            _ => cell.key = p.palette_key()?,
                        }
                        Ok(())
                    })?;
                    p.require(s, "tile cell", &IJ_KEY, seen, all(3))?;
                    spans.cells.push(p.span(s));
                    l.cells.push(cell);
                    Ok(())
                })?,
                _ => p.sequence(|p, _| {
                    let (o, s) = p.override_entry()?;
                    l.overrides.push(o);
                    spans.overrides.push(s);
                    Ok(())
                })?,
            }
            spans.fields[i] = p.span(at);
            Ok(())
        })?;
        spans.entry = self.span(start);
        spans.id = l.id;
        let required = 1 | 1 << 3 | 1 << 4 | 1 << 7;
        self.require(start, "tile layer", &LAYER_FIELDS, seen, required)?;
        Ok((l, spans))
    }

    /// A cell index: an unsigned integer up to [`MAX_CELL_INDEX`].
    fn cell_index(&mut self) -> PResult<u32> {
        let v = self.u64(
            "a cell index (an unsigned integer)",
            "u16",
            u64::from(MAX_CELL_INDEX),
        )?;
        Ok(v as u32)
    }

    /// A palette key: a string of one character, not [`EMPTY_CELL`] nor a control character.
    fn palette_key(&mut self) -> PResult<char> {
        self.skip_ws()?;
        let at = self.pos;
        let key = self.string()?;
        let mut chars = key.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if crate::format::is_palette_key(c) => Ok(c),
            _ => self.fail(
                at,
                ReadErrorKind::Unexpected {
                    expected: "a palette key: one character, not `.` nor a control character",
                    found: format!("{key:?}"),
                },
            ),
        }
    }

    /// One override: `(target: [..], name: Some(..), transform: Some(..), set: [..], add: [..],
    /// remove: [..], children: [..])`, everything but `target` optional.
    pub(super) fn override_entry(&mut self) -> PResult<(Override, OverrideSpans)> {
        let mut o = Override::default();
        let mut spans = OverrideSpans::new();
        let mut transform_spans = [[Span::NONE; 4]; 3];
        let (start, seen) = self.structure("override", &OVERRIDE_FIELDS, |p, i, at| {
            match i {
                0 => o.target = p.id_list()?,
                1 => o.name = p.option(Self::small_string)?,
                2 => o.transform = p.option(|p| p.transform(&mut transform_spans))?,
                3 => o.set = p.patches(&mut spans.set)?,
                4 => o.add = p.components(&mut spans.add)?,
                5 => {
                    let mut keys = Vec::new();
                    p.sequence(|p, _| {
                        let at = p.pos;
                        keys.push(p.small_string()?);
                        spans.remove.push(p.span(at));
                        Ok(())
                    })?;
                    o.remove = keys;
                }
                _ => o.children = p.id_list()?,
            }
            spans.fields[i] = p.span(at);
            Ok(())
        })?;
        spans.entry = self.span(start);
        spans.transform = transform_spans;
        self.require(start, "override", &OVERRIDE_FIELDS, seen, 1)?;
        Ok((o, spans))
    }

    /// The `set` list of an override: components whose payload fields are all optional. The
    /// fields written become the patch's [`fields`](ComponentPatch::fields).
    pub(super) fn patches(&mut self, spans: &mut SpanRange) -> PResult<Vec<ComponentPatch>> {
        let was = std::mem::replace(&mut self.patching, true);
        let first = self.tables.components.len();
        let mut out = Vec::new();
        let read = self.sequence(|p, _| {
            let component = p.component_entry()?;
            let Some(spans) = p.tables.components.last() else {
                return Ok(());
            };
            if component
                .builtin()
                .is_some_and(|b| b.payload == Payload::Unit)
            {
                let tag = component.tag();
                return p.fail(
                    (spans.tag.start as usize).saturating_sub(p.base),
                    ReadErrorKind::NothingToSet { tag },
                );
            }
            let written = spans.fields.of(&p.tables.payload_fields);
            let fields = component
                .builtin()
                .map(|b| b.fields())
                .unwrap_or_default()
                .iter()
                .filter(|f| written.iter().any(|(name, _)| *name == f.path))
                .map(|f| EcoString::from(f.path))
                .collect();
            out.push(ComponentPatch { component, fields });
            Ok(())
        });
        self.patching = was;
        read?;
        *spans = SpanRange::since(first, &self.tables.components);
        Ok(out)
    }

    pub(super) fn transform(&mut self, spans: &mut [[Span; 4]; 3]) -> PResult<TransformData> {
        let mut parts = [Vec3Data::ZERO; 3];
        let (start, seen) = self.structure("transform", &TRANSFORM_FIELDS, |p, i, at| {
            parts[i] = p.vec3(Some(&mut spans[i][1..]))?;
            spans[i][0] = p.span(at);
            Ok(())
        })?;
        self.require(start, "transform", &TRANSFORM_FIELDS, seen, all(3))?;
        let [translation, rotation, scale] = parts;
        Ok(TransformData {
            translation,
            rotation,
            scale,
        })
    }

    pub(super) fn components(&mut self, spans: &mut SpanRange) -> PResult<Vec<ComponentData>> {
        // Collected in a reused list, then moved into one allocation of the exact size: large
        // scenes keep no spare capacity per entity.
        let mut out = std::mem::take(&mut self.tables.component_scratch);
        out.clear();
        let first = self.tables.components.len();
        self.sequence(|p, _| {
            out.push(p.component_entry()?);
            Ok(())
        })?;
        *spans = SpanRange::since(first, &self.tables.components);
        let mut exact = Vec::with_capacity(out.len());
        exact.append(&mut out);
        self.tables.component_scratch = out;
        Ok(exact)
    }

    /// One component of a list, its spans pushed to the source map's tables.
    pub(super) fn component_entry(&mut self) -> PResult<ComponentData> {
        let mut cs = std::mem::take(&mut self.tables.scratch);
        cs.entry = Span::NONE;
        cs.tag = Span::NONE;
        cs.data = Span::NONE;
        cs.fields.clear();
        cs.custom_fields.clear();
        let read = self.component(&mut cs);
        let fields_start = self.tables.payload_fields.len();
        self.tables.payload_fields.extend_from_slice(&cs.fields);
        let custom_start = self.tables.custom_fields.len();
        self.tables
            .custom_fields
            .extend_from_slice(&cs.custom_fields);
        self.tables.components.push(ComponentSpans {
            entry: cs.entry,
            tag: cs.tag,
            data: cs.data,
            fields: SpanRange::since(fields_start, &self.tables.payload_fields),
            custom_fields: SpanRange::since(custom_start, &self.tables.custom_fields),
        });
        self.tables.scratch = cs;
        read
    }

    pub(super) fn component(&mut self, cs: &mut Scratch) -> PResult<ComponentData> {
        let mut tag = None;
        let mut data = None;
        let mut deferred = None;
        let (start, seen) = self.structure("component", &COMPONENT_FIELDS, |p, i, at| {
            if i == 0 {
                tag = Some(p.tag("type", "component type", COMPONENT_TAGS)?);
                cs.tag = p.span(at);
            } else {
                match tag {
                    Some(t) => data = Some(p.payload(t, cs)?),
                    None => {
                        deferred = Some(at);
                        p.skip_value()?;
                    }
                }
                cs.data = p.span(at);
            }
            Ok(())
        })?;
        cs.entry = self.span(start);
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
        match (data, builtin_at(tag)) {
            (Some(d), _) => Ok(d),
            (None, Some(b)) if b.payload == Payload::Unit => Ok((b.default)()),
            (None, _) => self.fail(
                start,
                ReadErrorKind::MissingField {
                    field: "data",
                    context: "component",
                },
            ),
        }
    }

    /// Reads the `data` payload of the component with tag index `tag`, as its
    /// [`BuiltinTag`](crate::format::builtin::BuiltinTag) lays it out.
    pub(super) fn payload(&mut self, tag: usize, cs: &mut Scratch) -> PResult<ComponentData> {
        let Some(b) = builtin_at(tag) else {
            return self.custom(cs);
        };
        let mut component = (b.default)();
        match b.payload {
            Payload::Unit => {
                // Only `data: ()` is allowed.
                let at = self.pos;
                if self.expect(b'(', "`(`").is_err() || self.expect(b')', "`)`").is_err() {
                    return self.fail(at, ReadErrorKind::UnexpectedData { tag: b.tag });
                }
            }
            Payload::Mode(modes) => {
                let i = self.tag("data", "visibility mode", modes)?;
                (b.set)(&mut component, 0, Value::Mode(i));
            }
            Payload::Fields(_) => {
                self.level(b, None, b.names, b.context, &mut component, &mut cs.fields)?;
            }
        }
        Ok(component)
    }

    /// One level of a built-in's payload: its top (`group` `None`) or a nested group
    /// (`material`), its fields set on `component` and their spans pushed to `fields`.
    fn level(
        &mut self,
        b: &'static BuiltinTag,
        group: Option<&'static str>,
        names: &'static [&'static str],
        context: &'static str,
        component: &mut ComponentData,
        fields: &mut Vec<(&'static str, Span)>,
    ) -> PResult<()> {
        let all = b.fields();
        let (start, seen) = self.structure(context, names, |p, i, at| {
            let name = names[i];
            let entry = fields.len();
            // Without groups the names are the fields, in order.
            let found = match all.get(i) {
                Some(f) if group.is_none() && f.path == name => Some(i),
                _ => all.iter().position(|f| f.split() == (group, name)),
            };
            match found {
                Some(index) => {
                    let field = &all[index];
                    fields.push((field.path, p.open(at)));
                    let value = match field.kind {
                        FieldKind::Float => Value::Float(p.f32()?),
                        FieldKind::Bool => Value::Bool(p.bool()?),
                        FieldKind::Text => Value::Text(p.string()?),
                        FieldKind::Color => Value::Color(p.color()?),
                        FieldKind::Image => Value::Image(p.option(Self::string)?),
                        FieldKind::Size => Value::Size(p.option(Self::vec2)?),
                        FieldKind::Mesh => Value::Mesh(p.mesh_source(fields)?),
                    };
                    (b.set)(component, index, value);
                }
                None => {
                    fields.push((name, p.open(at)));
                    let inner = b.group(name).unwrap_or_default();
                    p.level(b, Some(name), inner, name, component, fields)?;
                }
            }
            fields[entry].1.end = p.abs(p.pos);
            Ok(())
        })?;
        // A field without a default is required; so is a group holding one.
        let mut required = 0u32;
        for (i, name) in names.iter().enumerate() {
            let needed = all.iter().any(|f| {
                f.default.is_none()
                    && match f.split() {
                        (None, own) => group.is_none() && own == *name,
                        (Some(g), own) => match group {
                            None => g == *name,
                            Some(at) => at == g && own == *name,
                        },
                    }
            });
            if needed {
                required |= 1 << i;
            }
        }
        self.require_unless_patching(start, context, names, seen, required)
    }

    pub(super) fn mesh_source(
        &mut self,
        fields: &mut Vec<(&'static str, Span)>,
    ) -> PResult<MeshSource> {
        let mut source = None;
        let mut value = None;
        let mut deferred = None;
        let (start, seen) = self.structure("mesh source", &MESH_SOURCE_FIELDS, |p, i, at| {
            let field = fields.len();
            fields.push((MESH_SOURCE_PATHS[i], p.open(at)));
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
            fields[field].1.end = p.abs(p.pos);
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

    pub(super) fn mesh_value(&mut self, source: usize) -> PResult<MeshSource> {
        if MESH_SOURCES[source] == "asset" {
            return Ok(MeshSource::Asset(self.string()?));
        }
        let shape = self.tag("value", "primitive shape", PRIMITIVE_SHAPES)?;
        let shape = match PRIMITIVE_SHAPES[shape] {
            "cuboid" => {
                let mut size = Vec3Data::ONE;
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
                let mut size = Vec2Data::new(1.0, 1.0);
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

    pub(super) fn custom(&mut self, cs: &mut Scratch) -> PResult<ComponentData> {
        let mut custom = CustomComponent::default();
        let mut fields = std::mem::take(&mut self.tables.field_scratch);
        fields.clear();
        let (start, seen) = self.structure("custom data", &CUSTOM_FIELDS, |p, i, at| {
            let field = cs.fields.len();
            cs.fields.push((CUSTOM_FIELDS[i], p.open(at)));
            if i == 0 {
                custom.type_path = p.small_string()?;
            } else if i == 2 {
                custom.value = Some(p.small_string()?);
                p.keep_escaped(at);
            } else {
                p.sequence(|p, _| {
                    let mut name = EcoString::default();
                    let mut expr = EcoString::default();
                    let mut spans = [Span::NONE; 3];
                    let (entry, seen) =
                        p.structure("custom field", &CUSTOM_FIELD_FIELDS, |p, i, at| {
                            if i == 0 {
                                name = p.small_string()?;
                            } else {
                                expr = p.small_string()?;
                                p.keep_escaped(at);
                            }
                            spans[i + 1] = p.span(at);
                            Ok(())
                        })?;
                    p.require(entry, "custom field", &CUSTOM_FIELD_FIELDS, seen, all(2))?;
                    spans[0] = p.span(entry);
                    cs.custom_fields.push(spans);
                    fields.push(CustomField { name, expr });
                    Ok(())
                })?;
            }
            fields_span_end(cs, field, p.abs(p.pos));
            Ok(())
        })?;
        custom.fields = Vec::with_capacity(fields.len());
        custom.fields.append(&mut fields);
        self.tables.field_scratch = fields;
        // Only `type_path`: no `fields` sets none (a struct's fields keep their defaults), no
        // `value` is an enum's `Default`.
        self.require(start, "custom data", &CUSTOM_FIELDS, seen, 0b001)?;
        Ok(ComponentData::Custom(custom))
    }
}

const IJ: [&str; 2] = ["i", "j"];
const IJ_KEY: [&str; 3] = ["i", "j", "key"];
const MESH_SOURCE_FIELDS: [&str; 2] = ["source", "value"];
const MESH_SOURCE_PATHS: [&str; 2] = ["mesh.source", "mesh.value"];
const CUSTOM_FIELDS: [&str; 3] = ["type_path", "fields", "value"];
const INSTANCE_FIELDS: [&str; 3] = ["scene", "overrides", "streaming"];
const STREAMING_FIELDS: [&str; 2] = ["load_radius", "unload_radius"];
/// The longest string an [`EcoString`] holds without allocating.
const CUSTOM_FIELD_FIELDS: [&str; 2] = ["name", "expr"];
const COMPONENT_FIELDS: [&str; 2] = ["type", "data"];
const XY: [&str; 2] = ["x", "y"];
const XYZ: [&str; 3] = ["x", "y", "z"];
const RGBA: [&str; 4] = ["r", "g", "b", "a"];

/// Closes the span of payload field `field` of `cs` at `end`.
fn fields_span_end(cs: &mut Scratch, field: usize, end: u32) {
    if let Some((_, span)) = cs.fields.get_mut(field) {
        span.end = end;
    }
}

pub(super) fn all(n: usize) -> u32 {
    (1u32 << n) - 1
}

/// The hash of an entity entry's text ([`EntitySpans::text_hash`]).
pub(super) fn text_hash(text: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    IdHasher::default().hash_one(text)
}
