//! The game's components read without its types (feature `import`): typed by its schemas
//! (`forge import --schema game.forge-schema.ron`, [`ImportOptions::schema_file`]), or, with
//! no schema, kept only where the text alone says what they hold.
//!
//! **By schema.** A component whose type path a schema has (exactly, as one of its
//! `renamed_from` paths, or by its type name when only one schema has it) is read with the
//! schema's [`FieldKind`]s, every era's spelling of entities and vectors included, and written
//! as a `custom` component under the schema's type path: each field an expression of its kind
//! (`Vec3::new(..)`, `Mode::Alert { radius: 3.0 }`, `vec!["gold"]`), an `Entity` as `#id`,
//! fields at the schema's default left out, old field names (`renamed_from`) written as the new
//! ones. What a field expression cannot hold (an asset handle, a map) leaves the component out,
//! with a note naming the field.
//!
//! **Without a schema** (and not in the type registry), a struct component whose fields are
//! booleans, strings, numbers or `Option`s of them is written as it stands, and a unit marker
//! `()` as a component without fields (the text must write it `(..)` everywhere: an enum
//! variant reads the same without its type); a number that equals an entity key of the file might be
//! an entity reference, and lists, nested values and enums cannot be told apart without the
//! type: such a component is listed ([`NoteKind::NeedsType`]), never guessed.
//!
//! [`ImportOptions::schema_file`]: super::ImportOptions::schema_file
//! [`NoteKind::NeedsType`]: super::NoteKind::NeedsType

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;

use bevy_ecs::entity::Entity;
use serde::Deserializer;
use serde::de::{
    DeserializeSeed, EnumAccess, IgnoredAny, MapAccess, SeqAccess, VariantAccess, Visitor,
};

use super::eras::{EntitySeed, HandleRef, HandleSeed, Keys};
use super::{ImportOptions, NoteKind};
use crate::format::{ComponentData, CustomComponent, CustomField, EntityNode};
use crate::schema::expr::float_text;
use crate::schema::{
    ComponentSchema, FieldKind, FieldSchema, MemberSchema, TypeSchema, VariantSchema,
};

/// The last segment of a type path.
fn ident(path: &str) -> &str {
    let outer = path.split('<').next().unwrap_or(path);
    outer.rsplit("::").next().unwrap_or(outer)
}

/// The schemas an import types components with: the game's [`ForgeSchemas`] (with the Rust
/// type of each) and a schema file.
///
/// [`ForgeSchemas`]: crate::ForgeSchemas
#[derive(Default)]
pub(crate) struct SchemaIndex {
    schemas: Vec<ComponentSchema>,
    /// A schema's index by its Rust type (the game's `ForgeSchemas`).
    by_type: HashMap<TypeId, usize>,
    by_path: HashMap<String, usize>,
    by_old_path: HashMap<String, usize>,
    /// Schema type names that only one schema has.
    by_name: HashMap<String, Option<usize>>,
    /// Whether a schema file was given: an unknown game type is then "not in the schema".
    pub(crate) has_file: bool,
}

/// How a type path of the file resolved to a schema.
#[derive(Clone, Copy)]
pub(crate) struct Resolved<'a> {
    pub(crate) schema: &'a ComponentSchema,
    /// The file wrote an old type path of it.
    pub(crate) renamed: bool,
    /// Read by schema even when the registry knows the type: its type was renamed or one of
    /// its fields was (the reflected type has only the new names).
    pub(crate) by_schema: bool,
}

impl SchemaIndex {
    /// The index of `options`' schemas.
    pub(crate) fn new(options: &ImportOptions) -> Self {
        let mut out = SchemaIndex::default();
        let add = |out: &mut SchemaIndex, schema: ComponentSchema, type_id: Option<TypeId>| {
            if out.by_path.contains_key(&schema.type_path) {
                return;
            }
            let i = out.schemas.len();
            if let Some(t) = type_id {
                out.by_type.insert(t, i);
            }
            out.by_path.insert(schema.type_path.clone(), i);
            for old in &schema.renamed_from {
                out.by_old_path.entry(old.clone()).or_insert(i);
            }
            out.by_name
                .entry(schema.type_name.clone())
                .and_modify(|e| *e = None)
                .or_insert(Some(i));
            out.schemas.push(schema);
        };
        if let Some(schemas) = &options.schemas {
            for path in schemas.type_paths() {
                if let Some(entry) = schemas.entry(&path) {
                    add(
                        &mut out,
                        ComponentSchema::clone(&entry.schema),
                        Some(entry.type_id),
                    );
                }
            }
        }
        if let Some(file) = &options.schema_file {
            out.has_file = true;
            for schema in &file.components {
                add(&mut out, schema.clone(), None);
            }
        }
        out
    }

    /// The schema of the component the file writes as `type_path` (registered as `type_id`
    /// in the registry the import reads with, when it is).
    pub(crate) fn resolve(&self, type_path: &str, type_id: Option<TypeId>) -> Option<Resolved<'_>> {
        let fields_renamed =
            |s: &ComponentSchema| s.fields.iter().any(|f| !f.renamed_from.is_empty());
        let found = |i: usize, renamed: bool| {
            let schema = &self.schemas[i];
            Resolved {
                schema,
                renamed,
                by_schema: renamed || fields_renamed(schema),
            }
        };
        if let Some(i) = type_id.and_then(|t| self.by_type.get(&t)) {
            return Some(found(*i, false));
        }
        if let Some(i) = self.by_path.get(type_path) {
            return Some(found(*i, false));
        }
        if let Some(i) = self.by_old_path.get(type_path) {
            return Some(found(*i, true));
        }
        if type_id.is_some() {
            // A reflected type the schemas do not have: read by reflection.
            return None;
        }
        match self.by_name.get(ident(type_path)) {
            Some(Some(i)) => Some(found(*i, false)),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Values read by schema.

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

/// The four channels of a colour struct (`(red: .., green: .., blue: .., alpha: ..)`).
struct ChannelsSeed;

impl<'de> DeserializeSeed<'de> for ChannelsSeed {
    type Value = Option<[f32; 4]>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_struct("", &[], self)
    }
}

impl<'de> Visitor<'de> for ChannelsSeed {
    type Value = Option<[f32; 4]>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a colour's channels `(red: .., green: .., blue: .., alpha: ..)`")
    }

    /// `None` for channels of another colour space.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = [0.0, 0.0, 0.0, 1.0];
        let mut rgb = true;
        while let Some(key) = map.next_key::<String>()? {
            let i = match key.as_str() {
                "red" => 0,
                "green" => 1,
                "blue" => 2,
                "alpha" => 3,
                _ => {
                    rgb = false;
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            out[i] = map.next_value::<f32>()?;
        }
        Ok(rgb.then_some(out))
    }
}

fn channels_text(c: [f32; 4]) -> String {
    c.map(|f| float_text(f64::from(f), true)).join(", ")
}

/// A `bevy_color::Color` (an enum around one colour space's struct: `Srgba((red: ..))`), or
/// an `Srgba` / `LinearRgba` struct itself.
fn colour<'de, D: Deserializer<'de>>(type_name: &str, d: D) -> Result<Val, D::Error> {
    let other = |space: &str| {
        Val::Unwritable(Unwritable::Other(format!(
            "a colour in the `{space}` space (field expressions write sRGB or linear RGB)"
        )))
    };
    match type_name {
        "Srgba" | "LinearRgba" => Ok(match ChannelsSeed.deserialize(d)? {
            Some(c) => Val::Text(format!("{type_name}::new({})", channels_text(c))),
            None => other(type_name),
        }),
        _ => d.deserialize_enum("Color", &[], ColourSeed),
    }
}

struct ColourSeed;

impl<'de> Visitor<'de> for ColourSeed {
    type Value = Val;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a colour: `Srgba((red: .., ..))`, `LinearRgba((..))`, ..")
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Val, A::Error> {
        let (space, variant) = data.variant::<String>()?;
        let func = match space.as_str() {
            "Srgba" => "srgba",
            "LinearRgba" => "linear_rgba",
            _ => {
                variant.newtype_variant::<IgnoredAny>()?;
                return Ok(Val::Unwritable(Unwritable::Other(format!(
                    "a colour in the `{space}` space (field expressions write sRGB or linear RGB)"
                ))));
            }
        };
        Ok(match variant.newtype_variant_seed(ChannelsSeed)? {
            Some(c) => Val::Text(format!("Color::{func}({})", channels_text(c))),
            None => Val::Unwritable(Unwritable::Other(format!("a `{space}` colour"))),
        })
    }
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
#[derive(Debug, Clone, Default)]
pub(crate) struct TypedComponent {
    pub(crate) fields: Vec<(String, Val)>,
    /// `(old, new)` names of the fields the file wrote by an old name.
    pub(crate) renamed_fields: Vec<(String, String)>,
    /// An enum component's value (the variant the file writes), written whole.
    pub(crate) value: Option<Val>,
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
        if self.schema.is_enum() {
            let seed = EnumSeed {
                type_name: &self.schema.type_name,
                variants: &self.schema.variants,
                keys: self.keys,
            };
            let value = d.deserialize_enum("", &[], seed)?;
            return Ok(TypedComponent {
                value: Some(value),
                ..TypedComponent::default()
            });
        }
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
        Ok(TypedComponent::default())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TypedComponent, A::Error> {
        let mut out = TypedComponent::default();
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
        let mut out = TypedComponent::default();
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
        let mut out = TypedComponent::default();
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

// ---------------------------------------------------------------------------------------------
// Values read without a type.

/// A value read without its type: what the text alone says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Loose {
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Option(Option<Box<Loose>>),
    /// A list, tuple, tuple struct or tuple variant: the text read this way does not say which.
    Seq(Vec<Loose>),
    /// A struct (or struct variant): its fields by name.
    Map(Vec<(String, Loose)>),
    /// `()`, a unit variant or a unit struct.
    Unit,
}

pub(crate) struct LooseSeed;

impl<'de> DeserializeSeed<'de> for LooseSeed {
    type Value = Loose;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LooseSeed {
    type Value = Loose;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Loose, E> {
        Ok(Loose::Bool(v))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Loose, E> {
        Ok(Loose::Int(v.into()))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Loose, E> {
        Ok(Loose::Int(v.into()))
    }
    fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<Loose, E> {
        Ok(Loose::Int(v))
    }
    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<Loose, E> {
        i128::try_from(v)
            .map(Loose::Int)
            .map_err(|_| E::custom("a number too large"))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Loose, E> {
        Ok(Loose::Float(v))
    }
    fn visit_char<E: serde::de::Error>(self, v: char) -> Result<Loose, E> {
        Ok(Loose::Str(v.to_string()))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Loose, E> {
        Ok(Loose::Str(v.to_owned()))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Loose, E> {
        Ok(Loose::Str(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Unit)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Option(None))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        Ok(Loose::Option(Some(Box::new(d.deserialize_any(LooseSeed)?))))
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        Ok(Loose::Seq(vec![d.deserialize_any(LooseSeed)?]))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(LooseSeed)? {
            out.push(v);
        }
        Ok(Loose::Seq(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = map.next_key_seed(LooseSeed)? {
            let v = map.next_value_seed(LooseSeed)?;
            let Loose::Str(k) = k else {
                // A map keyed by other values: nothing a field expression holds.
                out.push((String::new(), v));
                continue;
            };
            out.push((k, v));
        }
        Ok(Loose::Map(out))
    }
}

impl Loose {
    /// The value as a field expression, when the text says enough: `None` for a value the type
    /// would be needed for. `key` says whether a number is an entity key of the file (it may
    /// then be an entity reference).
    fn expr(&self, key: &dyn Fn(i128) -> bool) -> Option<String> {
        Some(match self {
            Loose::Bool(b) => b.to_string(),
            Loose::Int(i) if key(*i) => return None,
            Loose::Int(i) => i.to_string(),
            Loose::Float(f) => float_text(*f, false),
            Loose::Str(s) => format!("{s:?}"),
            Loose::Option(None) => "None".to_owned(),
            Loose::Option(Some(v)) => format!("Some({})", v.expr(key)?),
            Loose::Seq(_) | Loose::Map(_) | Loose::Unit => return None,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// What the reading found, mapped once the entities have their ids.

/// A component read by schema or without a type, or listed.
#[derive(Debug, Clone)]
pub(crate) enum Extra {
    /// Read by its schema; `renamed` is the old type path the file wrote.
    Typed {
        schema_path: String,
        component: TypedComponent,
        default: Vec<(String, Option<String>)>,
        renamed: bool,
    },
    /// Read without a type (no registry or schema knows it); `plain` when the file writes it
    /// `(..)` everywhere (a struct or a unit struct, not an enum variant).
    Loose { value: Loose, plain: bool },
    /// Left out, with the note that says why.
    Listed(NoteKind),
}

/// Everything [`Extra`] the reading found, by entity (as read) and type path (as written).
#[derive(Debug, Default)]
pub(crate) struct Extras {
    pub(crate) parts: Vec<(Entity, String, Extra)>,
    /// The entity keys the file writes, as numbers (a number equal to one may be a reference).
    pub(crate) key_numbers: Vec<u64>,
    /// How the file writes references.
    pub(crate) keys: Option<Keys>,
}

impl Extras {
    /// Adds the components of the entity read as `entity` to `node` (its new id is `id`), and
    /// what was left out to `notes`; entity references through `ids`.
    pub(crate) fn map_entity(
        &self,
        entity: Entity,
        node: &mut EntityNode,
        notes: &mut Vec<(String, NoteKind)>,
        ids: &HashMap<Entity, u64>,
    ) {
        let refer = |e: Entity| ids.get(&e).map(|id| format!("#{id}"));
        for (_, written, extra) in self.parts.iter().filter(|(e, _, _)| *e == entity) {
            match extra {
                Extra::Listed(kind) => notes.push((written.clone(), kind.clone())),
                Extra::Typed {
                    schema_path,
                    component,
                    default,
                    renamed,
                } => {
                    let mut fields = Vec::new();
                    let mut failed = None;
                    for (name, value) in &component.fields {
                        match value.render(&refer) {
                            Ok(expr) => {
                                let at_default = default
                                    .iter()
                                    .any(|(n, d)| n == name && d.as_deref() == Some(&expr));
                                if !at_default {
                                    fields.push(CustomField::new(name.as_str(), expr));
                                }
                            }
                            Err(why) => {
                                failed = Some(match why {
                                    Unwritable::Handle(path) => NoteKind::Handle {
                                        field: name.clone(),
                                        path,
                                    },
                                    Unwritable::Other(_) | Unwritable::Outside => {
                                        NoteKind::Unwritable {
                                            field: Some(name.clone()),
                                        }
                                    }
                                });
                                break;
                            }
                        }
                    }
                    if *renamed {
                        notes.push((
                            written.clone(),
                            NoteKind::Renamed {
                                to: schema_path.clone(),
                            },
                        ));
                    }
                    for (from, to) in &component.renamed_fields {
                        notes.push((
                            schema_path.clone(),
                            NoteKind::RenamedField {
                                from: from.clone(),
                                to: to.clone(),
                            },
                        ));
                    }
                    let enumeration = component.value.as_ref().map(|v| {
                        super::enums::typed_enum(schema_path, v, &refer).map(ComponentData::Custom)
                    });
                    match (failed, enumeration) {
                        (Some(kind), _) | (None, Some(Err(kind))) => {
                            notes.push((schema_path.clone(), kind))
                        }
                        (None, Some(Ok(c))) => node.components.push(c),
                        (None, None) => {
                            node.components.push(ComponentData::Custom(CustomComponent {
                                type_path: schema_path.as_str().into(),
                                fields,
                                value: None,
                            }))
                        }
                    }
                }
                Extra::Loose { .. } if !crate::validate::is_type_path(written) => {
                    notes.push((written.clone(), NoteKind::TypePath));
                }
                Extra::Loose { value, plain } => match self.loose_component(value, *plain, ids) {
                    Ok(fields) => {
                        node.components.push(ComponentData::Custom(CustomComponent {
                            type_path: written.as_str().into(),
                            fields,
                            value: None,
                        }));
                        notes.push((written.clone(), NoteKind::NotForgeComponent));
                    }
                    Err(field) => notes.push((written.clone(), NoteKind::NeedsType { field })),
                },
            }
        }
    }

    /// The fields of a component read without a type, or the field (`None`: the value as a
    /// whole) that needs the type.
    fn loose_component(
        &self,
        value: &Loose,
        plain: bool,
        ids: &HashMap<Entity, u64>,
    ) -> Result<Vec<CustomField>, Option<String>> {
        if !plain {
            return Err(None);
        }
        // From 0.11 on, references are numbers equal to a key: such a number may be one.
        let numbers_refer = !matches!(self.keys, Some(Keys::Index) | None);
        let key = |n: i128| {
            numbers_refer && u64::try_from(n).is_ok_and(|n| self.key_numbers.contains(&n))
        };
        match value {
            Loose::Unit => Ok(Vec::new()),
            Loose::Map(fields) => {
                let mut out = Vec::new();
                for (name, v) in fields {
                    if !crate::validate::is_field_name(name) {
                        return Err(None);
                    }
                    // Bevy 0.9-0.10 wrote references as `(generation: g, index: i)`.
                    let expr = match (self.keys, v) {
                        (Some(Keys::Index), Loose::Map(m)) => index_reference(m, ids),
                        _ => v.expr(&key),
                    };
                    out.push(CustomField::new(
                        name.as_str(),
                        expr.ok_or_else(|| Some(name.clone()))?,
                    ));
                }
                Ok(out)
            }
            _ => Err(None),
        }
    }
}

/// `#id` of a Bevy 0.9-0.10 reference `(generation: g, index: i)` to an entity of the file.
fn index_reference(fields: &[(String, Loose)], ids: &HashMap<Entity, u64>) -> Option<String> {
    let [(a, _), (b, _)] = fields else {
        return None;
    };
    if !matches!(
        (a.as_str(), b.as_str()),
        ("generation", "index") | ("index", "generation")
    ) {
        return None;
    }
    let index = fields.iter().find_map(|(k, v)| match (k.as_str(), v) {
        ("index", Loose::Int(i)) => u32::try_from(*i).ok(),
        _ => None,
    })?;
    let entity = Entity::from_raw_u32(index)?;
    ids.get(&entity).map(|id| format!("#{id}"))
}

/// The defaults of `schema`'s fields, by name.
pub(crate) fn defaults(schema: &ComponentSchema) -> Vec<(String, Option<String>)> {
    schema
        .fields
        .iter()
        .map(|f| (f.name.clone(), f.default.clone()))
        .collect()
}

/// Whether every entry `"type_path": ..` of `text` opens with `(`: a struct, tuple struct or
/// unit struct, not an enum variant (`Alert(..)`, `Idle`), which reads the same without its
/// type.
pub(crate) fn written_plain(text: &str, type_path: &str) -> bool {
    let b = text.as_bytes();
    let pattern = format!("\"{type_path}\"");
    let mut any = false;
    for at in memchr::memmem::find_iter(b, pattern.as_bytes()) {
        let mut i = at + pattern.len();
        let skip = |i: &mut usize| {
            while *i < b.len() && b[*i].is_ascii_whitespace() {
                *i += 1;
            }
        };
        skip(&mut i);
        if b.get(i) != Some(&b':') {
            continue;
        }
        i += 1;
        skip(&mut i);
        if b.get(i) != Some(&b'(') {
            return false;
        }
        any = true;
    }
    any
}
