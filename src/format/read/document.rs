//! The reader's grammar of the document: its top-level fields, the entity map and each entity
//! entry, transforms, prefab instances with their overrides, each part recorded in the source
//! map as it is read.

use indexmap::IndexMap;

use super::grammar::{all, text_hash};
use super::{PResult, Parser, ReadWarningKind, Top};
use crate::format::builtin::Payload;
use crate::format::component::EcoString;
use crate::format::error::ReadErrorKind;
use crate::format::instance::{ComponentPatch, Instance, Override, Streaming};
use crate::format::source_map::{
    ENTITY_FIELDS, EntitySpans, InstanceSpans, LineIndex, OVERRIDE_FIELDS, OverrideSpans,
    SourceMap, Span, SpanRange, TOP_FIELDS, TRANSFORM_FIELDS,
};
use crate::format::value::{TransformData, Vec3Data};
use crate::format::{EntityMap, EntityNode, FORMAT_VERSION, IdHasher, SceneDoc};

impl<'a> Parser<'a> {
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
        map.insert(key, node.into());
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
        let mut model = None;
        let mut overrides = Vec::new();
        let mut streaming = None;
        let mut spans = InstanceSpans {
            scene: Span::NONE,
            list: Span::NONE,
            overrides: Vec::new(),
            streaming: [Span::NONE; 3],
        };
        let (start, seen) = self.structure("instance", &INSTANCE_FIELDS, |p, i, at| {
            match i {
                0 => {
                    scene = p.small_string()?;
                    spans.scene = p.span(at);
                }
                1 => {
                    p.sequence(|p, _| {
                        let (o, s) = p.override_entry()?;
                        overrides.push(o);
                        spans.overrides.push(s);
                        Ok(())
                    })?;
                    spans.list = p.span(at);
                }
                3 => {
                    model = Some(p.small_string()?);
                    spans.scene = p.span(at);
                }
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
        if !self.lenient {
            // Exactly one of `scene` (bit 0) and `model` (bit 3).
            let both = seen & 1 != 0 && seen & 8 != 0;
            if both || seen & 9 == 0 {
                return self.fail(start, ReadErrorKind::InstancePlaces { both });
            }
            // A prefab's entities are addressed by ids, a model's nodes by names.
            for (o, s) in overrides.iter().zip(&spans.overrides) {
                let by_name = !o.node.is_empty();
                if by_name != model.is_some() {
                    let at = (s.fields[0].start as usize).saturating_sub(self.base);
                    return self.fail(
                        at,
                        ReadErrorKind::Unexpected {
                            expected: if by_name {
                                "ids (`[7, 2]`): a prefab instance's overrides target entities by id path"
                            } else {
                                "node names (`[\"Roof\", \"Chimney\"]`): a `model` instance's overrides target nodes by name path"
                            },
                            found: self.describe(at),
                        },
                    );
                }
            }
        }
        Ok((
            Instance {
                scene,
                model,
                overrides,
                streaming,
            },
            spans,
        ))
    }

    /// One override: `(target: [..], name: Some(..), transform: Some(..), set: [..], add: [..],
    /// remove: [..], children: [..])`, everything but `target` optional.
    pub(super) fn override_entry(&mut self) -> PResult<(Override, OverrideSpans)> {
        let mut o = Override::default();
        let mut spans = OverrideSpans::new();
        let mut transform_spans = [[Span::NONE; 4]; 3];
        let (start, seen) = self.structure("override", &OVERRIDE_FIELDS, |p, i, at| {
            match i {
                0 => {
                    if p.names_follow()? {
                        p.sequence(|p, _| {
                            let at = p.pos;
                            o.node.push(p.small_string()?);
                            spans.node.push(p.span(at));
                            Ok(())
                        })?;
                    } else {
                        o.target = p.id_list()?;
                    }
                }
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

    /// Whether the list ahead starts with a string (a model's node path) rather than an id; the
    /// position is left where it was.
    fn names_follow(&mut self) -> PResult<bool> {
        let was = self.pos;
        self.skip_ws()?;
        let mut found = false;
        if self.peek() == Some(b'[') {
            self.pos += 1;
            self.skip_ws()?;
            found = matches!(self.peek(), Some(b'"' | b'r'));
        }
        self.pos = was;
        Ok(found)
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
}

const INSTANCE_FIELDS: [&str; 4] = ["scene", "overrides", "streaming", "model"];
const STREAMING_FIELDS: [&str; 2] = ["load_radius", "unload_radius"];
