//! The reader's grammar of components: a list of components, each a built-in tag with its
//! payload read as its descriptor lays it out (groups, meshes) or a custom component's type path
//! and fields.

use super::grammar::all;
use super::{PResult, Parser, Scratch, Trail};
use crate::format::builtin::{
    BuiltinTag, COMPONENT_TAGS, ComponentData, FieldKind, MESH_SOURCES, MeshSource,
    PRIMITIVE_SHAPES, Payload, PrimitiveShape, Value, builtin_at,
};
use crate::format::component::{CustomComponent, CustomField, EcoString};
use crate::format::error::ReadErrorKind;
use crate::format::source_map::{ComponentSpans, Span, SpanRange};
use crate::format::value::{Vec2Data, Vec3Data};

impl<'a> Parser<'a> {
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
            let read = match found {
                Some(index) => {
                    let field = &all[index];
                    fields.push((field.path, p.open(at)));
                    p.field_value(field.kind, fields)
                        .map(|value| (b.set)(component, index, value))
                }
                None => {
                    fields.push((name, p.open(at)));
                    let inner = b.group(name).unwrap_or_default();
                    p.level(b, Some(name), inner, name, component, fields)
                }
            };
            match read {
                Ok(()) => fields[entry].1.end = p.abs(p.pos),
                // Read past (by an editor): the field is not in the text as far as the map goes.
                Err(_) => fields.truncate(entry),
            }
            read
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

    /// The value of a payload field of kind `kind` (a mesh pushes its parts' spans to `fields`).
    fn field_value(
        &mut self,
        kind: FieldKind,
        fields: &mut Vec<(&'static str, Span)>,
    ) -> PResult<Value> {
        Ok(match kind {
            FieldKind::Float => Value::Float(self.f32()?),
            FieldKind::Bool => Value::Bool(self.bool()?),
            FieldKind::Text => Value::Text(self.string()?),
            FieldKind::Color => Value::Color(self.color()?),
            FieldKind::Image => Value::Image(self.option(Self::string)?),
            FieldKind::Size => Value::Size(self.option(Self::vec2)?),
            FieldKind::Mesh => Value::Mesh(self.mesh_source(fields)?),
        })
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
        self.require(start, "custom data", &CUSTOM_FIELDS, seen, all(2))?;
        Ok(ComponentData::Custom(custom))
    }
}

const MESH_SOURCE_FIELDS: [&str; 2] = ["source", "value"];
const MESH_SOURCE_PATHS: [&str; 2] = ["mesh.source", "mesh.value"];
const CUSTOM_FIELDS: [&str; 2] = ["type_path", "fields"];
/// The longest string an [`EcoString`] holds without allocating.
const CUSTOM_FIELD_FIELDS: [&str; 2] = ["name", "expr"];
const COMPONENT_FIELDS: [&str; 2] = ["type", "data"];

/// Closes the span of payload field `field` of `cs` at `end`.
fn fields_span_end(cs: &mut Scratch, field: usize, end: u32) {
    if let Some((_, span)) = cs.fields.get_mut(field) {
        span.end = end;
    }
}
