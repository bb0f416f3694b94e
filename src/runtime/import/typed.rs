//! Components read by their schemas (feature `import`): each field by its [`FieldKind`], every
//! era's spelling of entities, vectors, colours and handles included, into a [`Val`] written as
//! a field expression once the entities have their new ids.

use std::fmt;

use bevy_ecs::entity::Entity;
use serde::Deserializer;
use serde::de::{
    DeserializeSeed, EnumAccess, IgnoredAny, MapAccess, SeqAccess, VariantAccess, Visitor,
};

use super::colour;
use super::eras::{EntitySeed, Keys};
use super::handles::{HandleRef, HandleSeed};
use crate::schema::expr::float_text;
use crate::schema::{
    ComponentSchema, FieldKind, FieldSchema, MemberSchema, TypeSchema, VariantSchema,
};

/// A value read by schema, to be written as a field expression once the entities have their
/// new ids.
#[derive(Debug, Clone)]
pub(crate) enum Val {
    /// Written already: a number, string, vector, colour, unit variant.
    Text(String),
    Entity(Entity),
    /// Items between `open` and `close` (`vec![`..`]`, `(`..`)`, `Name(`..`)`); `comma_if_one`
    /// for a one-element tuple.
    Seq {
        open: String,
        close: &'static str,
        items: Vec<Val>,
        comma_if_one: bool,
    },
    Option(Option<Box<Val>>),
    /// `Name { a: .., b: .. }` (a struct, or an enum's struct variant `Mode::Alert`).
    Struct {
        name: String,
        fields: Vec<(String, Val)>,
    },
    /// What a field expression cannot hold, and why.
    Unwritable(Unwritable),
}

/// Why a value cannot be written as a field expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unwritable {
    /// An asset handle (its path, when it has one).
    Handle(Option<String>),
    /// Another type scenes cannot write.
    Other(String),
    /// An entity outside the world.
    Outside,
}

impl Val {
    /// The value as a field expression, entities written by `entity`.
    pub(crate) fn render(
        &self,
        entity: &dyn Fn(Entity) -> Option<String>,
    ) -> Result<String, Unwritable> {
        let mut out = String::new();
        self.put(&mut out, entity)?;
        Ok(out)
    }

    fn put(
        &self,
        out: &mut String,
        entity: &dyn Fn(Entity) -> Option<String>,
    ) -> Result<(), Unwritable> {
        match self {
            Val::Text(t) => out.push_str(t),
            Val::Entity(e) => out.push_str(&entity(*e).ok_or(Unwritable::Outside)?),
            Val::Seq {
                open,
                close,
                items,
                comma_if_one,
            } => {
                out.push_str(open);
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.put(out, entity)?;
                }
                if *comma_if_one && items.len() == 1 {
                    out.push(',');
                }
                out.push_str(close);
            }
            Val::Option(None) => out.push_str("None"),
            Val::Option(Some(v)) => {
                out.push_str("Some(");
                v.put(out, entity)?;
                out.push(')');
            }
            Val::Struct { name, fields } => {
                out.push_str(name);
                out.push_str(" { ");
                for (i, (field, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(field);
                    out.push_str(": ");
                    v.put(out, entity)?;
                }
                out.push_str(" }");
            }
            Val::Unwritable(why) => return Err(why.clone()),
        }
        Ok(())
    }
}

/// Whether a schema's type name is an asset handle (`Handle<Image>`).
fn is_handle(type_name: &str) -> bool {
    type_name.starts_with("Handle<")
}

/// Reads one value of `kind` (named `type_name`) with every era's spellings.
#[derive(Clone, Copy)]
struct KindSeed<'a> {
    type_name: &'a str,
    kind: &'a FieldKind,
    keys: Keys,
}

impl<'de> DeserializeSeed<'de> for KindSeed<'_> {
    type Value = Val;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Val, D::Error> {
        use serde::Deserialize;
        let text = |t: String| Ok(Val::Text(t));
        // A handle's schema is that of Bevy's `Handle` enum (`Strong` / `Uuid`), which no era
        // writes: read every era's spelling instead.
        if is_handle(self.type_name) {
            let handle = HandleSeed.deserialize(d)?;
            return Ok(Val::Unwritable(Unwritable::Handle(match handle {
                HandleRef::Path(p) => Some(p),
                _ => None,
            })));
        }
        match self.kind {
            FieldKind::Bool => text(bool::deserialize(d)?.to_string()),
            FieldKind::Integer { signed: true, bits } if *bits <= 64 => {
                text(i64::deserialize(d)?.to_string())
            }
            FieldKind::Integer { signed: true, .. } => text(i128::deserialize(d)?.to_string()),
            FieldKind::Integer { bits, .. } if *bits <= 64 => {
                text(u64::deserialize(d)?.to_string())
            }
            FieldKind::Integer { .. } => text(u128::deserialize(d)?.to_string()),
            FieldKind::Float { bits: 32 } => {
                text(float_text(f64::from(f32::deserialize(d)?), true))
            }
            FieldKind::Float { .. } => text(float_text(f64::deserialize(d)?, false)),
            FieldKind::Char => text(format!("{:?}", char::deserialize(d)?)),
            FieldKind::String => text(format!("{:?}", String::deserialize(d)?)),
            FieldKind::Vector { len } => {
                let n = usize::from(*len).clamp(2, 4);
                let floats = d.deserialize_any(super::eras::FloatsSeed(n))?;
                text(vector_text(self.type_name, &floats[..n]))
            }
            FieldKind::Colour => colour(self.type_name, d),
            FieldKind::Entity => Ok(Val::Entity(EntitySeed(self.keys).deserialize(d)?)),
            FieldKind::Option(inner) => d.deserialize_option(OptionSeed(KindSeed {
                type_name: &inner.type_name,
                kind: &inner.kind,
                keys: self.keys,
            })),
            FieldKind::List(item) => d.deserialize_seq(SeqSeed {
                items: Items::Same(item),
                keys: self.keys,
                open: "vec![".to_owned(),
                close: "]",
                comma_if_one: false,
            }),
            FieldKind::Array { item, len } => d.deserialize_tuple(
                *len,
                SeqSeed {
                    items: Items::Same(item),
                    keys: self.keys,
                    open: "[".to_owned(),
                    close: "]",
                    comma_if_one: false,
                },
            ),
            FieldKind::Tuple { fields } => d.deserialize_tuple(
                fields.len(),
                SeqSeed {
                    items: Items::Each(fields),
                    keys: self.keys,
                    open: "(".to_owned(),
                    close: ")",
                    comma_if_one: true,
                },
            ),
            FieldKind::TupleStruct { fields } => {
                let seed = SeqSeed {
                    items: Items::Each(fields),
                    keys: self.keys,
                    open: format!("{}(", self.type_name),
                    close: ")",
                    comma_if_one: false,
                };
                if fields.len() == 1 {
                    d.deserialize_newtype_struct("", seed)
                } else {
                    d.deserialize_tuple_struct("", fields.len(), seed)
                }
            }
            FieldKind::Struct { fields } => d.deserialize_struct(
                "",
                &[],
                StructSeed {
                    name: self.type_name.to_owned(),
                    fields,
                    keys: self.keys,
                },
            ),
            FieldKind::Enum { variants } => d.deserialize_enum(
                "",
                &[],
                EnumSeed {
                    type_name: self.type_name,
                    variants,
                    keys: self.keys,
                },
            ),
            _ => {
                d.deserialize_ignored_any(IgnoredAny)?;
                Ok(Val::Unwritable(Unwritable::Other(
                    self.type_name.to_owned(),
                )))
            }
        }
    }
}

/// A glam vector or quaternion as a field expression.
fn vector_text(type_name: &str, v: &[f32]) -> String {
    let name = match (type_name, v.len()) {
        ("Quat" | "Vec2" | "Vec3" | "Vec3A" | "Vec4", _) => type_name,
        (_, 2) => "Vec2",
        (_, 3) => "Vec3",
        _ => "Vec4",
    };
    if name == "Quat" && v == [0.0, 0.0, 0.0, 1.0] {
        return "Quat::IDENTITY".to_owned();
    }
    let func = if name == "Quat" { "from_xyzw" } else { "new" };
    let parts: Vec<String> = v.iter().map(|f| float_text(f64::from(*f), true)).collect();
    format!("{name}::{func}({})", parts.join(", "))
}

/// A colour field: a `bevy_color::Color` in any era's spelling, written in its own space
/// (`Color::hsla(..)`), or a colour space's own struct (`Srgba::new(..)`).
fn colour<'de, D: Deserializer<'de>>(type_name: &str, d: D) -> Result<Val, D::Error> {
    let space = match type_name {
        "Srgba" | "LinearRgba" => colour::space_of_struct(type_name),
        _ => None,
    };
    let c = colour::deserialize_colour(d, space)?;
    Ok(Val::Text(match space {
        Some(s) => format!("{}::new({})", s.variant, colour::channels_text(c.channels)),
        None => c.expr(),
    }))
}

struct OptionSeed<'a>(KindSeed<'a>);

impl<'de> Visitor<'de> for OptionSeed<'_> {
    type Value = Val;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("`Some(..)` or `None`")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Val, E> {
        Ok(Val::Option(None))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Val, E> {
        Ok(Val::Option(None))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Val, D::Error> {
        Ok(Val::Option(Some(Box::new(self.0.deserialize(d)?))))
    }
}

/// The item types of a sequence: one for all (lists, arrays) or one each (tuples).
#[derive(Clone, Copy)]
enum Items<'a> {
    Same(&'a TypeSchema),
    Each(&'a [TypeSchema]),
}

struct SeqSeed<'a> {
    items: Items<'a>,
    keys: Keys,
    open: String,
    close: &'static str,
    comma_if_one: bool,
}

impl<'de> DeserializeSeed<'de> for SeqSeed<'_> {
    type Value = Val;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Val, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SeqSeed<'_> {
    type Value = Val;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Val, D::Error> {
        // A one-field tuple struct: its field.
        let Items::Each([only]) = self.items else {
            return Err(serde::de::Error::custom("expected a tuple"));
        };
        let value = KindSeed {
            type_name: &only.type_name,
            kind: &only.kind,
            keys: self.keys,
        }
        .deserialize(d)?;
        Ok(Val::Seq {
            open: self.open,
            close: self.close,
            items: vec![value],
            comma_if_one: self.comma_if_one,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Val, A::Error> {
        let mut items = Vec::new();
        loop {
            let schema = match self.items {
                Items::Same(t) => t,
                Items::Each(all) => match all.get(items.len()) {
                    Some(t) => t,
                    None => break,
                },
            };
            let seed = KindSeed {
                type_name: &schema.type_name,
                kind: &schema.kind,
                keys: self.keys,
            };
            match seq.next_element_seed(seed)? {
                Some(v) => items.push(v),
                None => break,
            }
        }
        if let Items::Each(all) = self.items
            && items.len() < all.len()
        {
            return Err(serde::de::Error::invalid_length(items.len(), &self));
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Val::Seq {
            open: self.open,
            close: self.close,
            items,
            comma_if_one: self.comma_if_one,
        })
    }
}

struct StructSeed<'a> {
    name: String,
    fields: &'a [MemberSchema],
    keys: Keys,
}

impl<'de> Visitor<'de> for StructSeed<'_> {
    type Value = Val;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a `{}` struct", self.name)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Val, A::Error> {
        let mut found: Vec<(usize, Val)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            match self.fields.iter().position(|m| m.name == key) {
                Some(i) => {
                    let m = &self.fields[i];
                    let v = map.next_value_seed(KindSeed {
                        type_name: &m.type_name,
                        kind: &m.kind,
                        keys: self.keys,
                    })?;
                    found.push((i, v));
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        found.sort_by_key(|(i, _)| *i);
        Ok(Val::Struct {
            name: self.name,
            fields: found
                .into_iter()
                .map(|(i, v)| (self.fields[i].name.clone(), v))
                .collect(),
        })
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Val, E> {
        Ok(Val::Struct {
            name: self.name,
            fields: Vec::new(),
        })
    }
}

/// A variant's name: read as an identifier (RON writes `PingPong(2)`, not `"PingPong"`).
struct Ident(String);

impl<'de> serde::Deserialize<'de> for Ident {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Ident;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a variant name")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Ident, E> {
                Ok(Ident(v.to_owned()))
            }
        }
        d.deserialize_identifier(V)
    }
}

struct EnumSeed<'a> {
    type_name: &'a str,
    variants: &'a [VariantSchema],
    keys: Keys,
}

impl<'de> Visitor<'de> for EnumSeed<'_> {
    type Value = Val;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a `{}` variant", self.type_name)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Val, A::Error> {
        use serde::de::Error;
        let (Ident(name), variant) = data.variant::<Ident>()?;
        let Some(schema) = self.variants.iter().find(|v| v.name() == name) else {
            let names: Vec<&str> = self.variants.iter().map(VariantSchema::name).collect();
            return Err(A::Error::custom(format_args!(
                "`{name}` is not a variant of `{}` (its variants: {})",
                self.type_name,
                names.join(", ")
            )));
        };
        let path = format!("{}::{name}", self.type_name);
        match schema {
            VariantSchema::Tuple { fields, .. } if fields.len() == 1 => {
                let only = &fields[0];
                let v = variant.newtype_variant_seed(KindSeed {
                    type_name: &only.type_name,
                    kind: &only.kind,
                    keys: self.keys,
                })?;
                Ok(Val::Seq {
                    open: format!("{path}("),
                    close: ")",
                    items: vec![v],
                    comma_if_one: false,
                })
            }
            VariantSchema::Tuple { fields, .. } => variant.tuple_variant(
                fields.len(),
                SeqSeed {
                    items: Items::Each(fields),
                    keys: self.keys,
                    open: format!("{path}("),
                    close: ")",
                    comma_if_one: false,
                },
            ),
            VariantSchema::Struct { fields, .. } => variant.struct_variant(
                &[],
                StructSeed {
                    name: path,
                    fields,
                    keys: self.keys,
                },
            ),
            _ => {
                variant.unit_variant()?;
                Ok(Val::Text(path))
            }
        }
    }
}

/// A whole component read by its schema: each field's value, by field name (old names already
/// the new ones), with the old names the file wrote.
#[derive(Debug, Clone)]
pub(crate) struct TypedComponent {
    pub(crate) fields: Vec<(String, Val)>,
    /// `(old, new)` names of the fields the file wrote by an old name.
    pub(crate) renamed_fields: Vec<(String, String)>,
}

/// Reads a component with its schema.
pub(crate) struct ComponentSeed<'a> {
    pub(crate) schema: &'a ComponentSchema,
    pub(crate) keys: Keys,
}

impl ComponentSeed<'_> {
    fn tuple(&self) -> bool {
        let digits = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
        !self.schema.fields.is_empty() && self.schema.fields.iter().all(|f| digits(&f.name))
            || self.schema.fields.is_empty()
                && !self.schema.skipped.is_empty()
                && self.schema.skipped.iter().all(|n| digits(n))
    }

    /// The schema of the field the file writes as `written`, and whether that is an old name.
    fn field(&self, written: &str) -> Option<(&FieldSchema, bool)> {
        if let Some(f) = self.schema.field(written) {
            return Some((f, false));
        }
        let written = written.strip_prefix("r#").unwrap_or(written);
        self.schema
            .fields
            .iter()
            .find(|f| f.renamed_from.iter().any(|o| o == written))
            .map(|f| (f, true))
    }
}

impl<'de> DeserializeSeed<'de> for ComponentSeed<'_> {
    type Value = TypedComponent;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TypedComponent, D::Error> {
        if self.tuple() {
            let len = self.schema.fields.len() + self.schema.skipped.len();
            if len == 1 {
                d.deserialize_newtype_struct("", self)
            } else {
                d.deserialize_tuple_struct("", len, self)
            }
        } else {
            d.deserialize_struct("", &[], self)
        }
    }
}

impl<'de> Visitor<'de> for ComponentSeed<'_> {
    type Value = TypedComponent;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a `{}` component", self.schema.type_name)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<TypedComponent, E> {
        Ok(TypedComponent {
            fields: Vec::new(),
            renamed_fields: Vec::new(),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TypedComponent, A::Error> {
        let mut out = TypedComponent {
            fields: Vec::new(),
            renamed_fields: Vec::new(),
        };
        while let Some(key) = map.next_key::<String>()? {
            let Some((field, renamed)) = self.field(&key) else {
                // A field scenes cannot set (`#[forge(skip)]`), or one the schema lacks.
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let v = map.next_value_seed(KindSeed {
                type_name: &field.type_name,
                kind: &field.kind,
                keys: self.keys,
            })?;
            if renamed {
                out.renamed_fields.push((key.clone(), field.name.clone()));
            }
            out.fields.push((field.name.clone(), v));
        }
        let order = |name: &str| self.schema.fields.iter().position(|f| f.name == name);
        out.fields.sort_by_key(|(name, _)| order(name));
        Ok(out)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<TypedComponent, D::Error> {
        let mut out = TypedComponent {
            fields: Vec::new(),
            renamed_fields: Vec::new(),
        };
        match self.schema.field("0") {
            Some(f) => out.fields.push((
                f.name.clone(),
                KindSeed {
                    type_name: &f.type_name,
                    kind: &f.kind,
                    keys: self.keys,
                }
                .deserialize(d)?,
            )),
            None => {
                d.deserialize_ignored_any(IgnoredAny)?;
            }
        }
        Ok(out)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TypedComponent, A::Error> {
        let mut out = TypedComponent {
            fields: Vec::new(),
            renamed_fields: Vec::new(),
        };
        let mut i = 0usize;
        loop {
            let name = i.to_string();
            match self.schema.field(&name) {
                Some(f) => {
                    let seed = KindSeed {
                        type_name: &f.type_name,
                        kind: &f.kind,
                        keys: self.keys,
                    };
                    match seq.next_element_seed(seed)? {
                        Some(v) => out.fields.push((name, v)),
                        None => break,
                    }
                }
                None => {
                    if seq.next_element::<IgnoredAny>()?.is_none() {
                        break;
                    }
                }
            }
            i += 1;
        }
        Ok(out)
    }
}
