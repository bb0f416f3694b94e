//! What an expression is evaluated as: a reflected type (the loader) or a schema kind (offline
//! checks with `forge validate --schema`), seen through one [`Shape`] so the evaluator has a
//! single code path and the same messages for both.

use bevy_reflect::enums::{EnumInfo, VariantInfo};
use bevy_reflect::{TypeInfo, Typed};

use super::types::{IntTy, Special, is_option};
use crate::schema::{FieldKind, MemberSchema, TypeSchema, VariantSchema};

/// The type an expression must produce.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'k> {
    /// A reflected Rust type.
    Info(&'static TypeInfo),
    /// A type known only by its schema: its short type name and kind.
    Kind {
        /// The short type path (`Mode`, `Option<f32>`).
        type_name: &'k str,
        /// What it holds.
        kind: &'k FieldKind,
    },
}

impl From<&'static TypeInfo> for Target<'_> {
    fn from(info: &'static TypeInfo) -> Self {
        Target::Info(info)
    }
}

/// The structure of a [`Target`], as the evaluator dispatches on it.
pub(crate) enum Shape<'k> {
    /// A glam or colour type.
    Special(Special, &'static TypeInfo),
    /// A reflected opaque type: `bool`, `char`, numbers, `String`, or something unwritable.
    Opaque(&'static TypeInfo),
    /// `Option<T>` with the type of `T` (`None` when unknown).
    Option(Option<Target<'k>>),
    /// Any other enum.
    Enum(Variants<'k>),
    /// A struct with named fields.
    Struct(Vec<Member<'k>>),
    /// A tuple struct.
    TupleStruct(Vec<Option<Target<'k>>>),
    /// A tuple.
    Tuple(Vec<Option<Target<'k>>>),
    /// A list of items of one type.
    List(Option<Target<'k>>),
    /// An array of `len` items.
    Array(Option<Target<'k>>, usize),
    /// Bevy's `Entity`: written as a reference (`#7`).
    Entity,
    /// Maps, sets and other types scenes cannot write.
    Unwritable,
}

/// A named field: its name and type (`None` when reflection gives no type information).
pub(crate) type Member<'k> = (&'k str, Option<Target<'k>>);

/// The variants of an enum target.
#[derive(Clone, Copy)]
pub(crate) enum Variants<'k> {
    /// Of a reflected enum.
    Info(&'static EnumInfo),
    /// Of a schema enum.
    Kind(&'k [VariantSchema]),
}

/// One variant and the types of its fields.
pub(crate) struct Variant<'k> {
    /// The variant name.
    pub(crate) name: &'k str,
    /// Its fields.
    pub(crate) fields: VariantFields<'k>,
}

/// The fields of a [`Variant`].
pub(crate) enum VariantFields<'k> {
    /// None.
    Unit,
    /// Unnamed fields, in order.
    Tuple(Vec<Option<Target<'k>>>),
    /// Named fields, in order.
    Struct(Vec<Member<'k>>),
}

impl<'k> Target<'k> {
    /// The target of a nested schema type; `None` when the schema has no type information (an
    /// empty type name), as reflection gives `None` for the type info.
    pub(crate) fn of_schema(type_name: &'k str, kind: &'k FieldKind) -> Option<Self> {
        (!type_name.is_empty()).then_some(Target::Kind { type_name, kind })
    }

    fn of_type(t: &'k TypeSchema) -> Option<Self> {
        Self::of_schema(&t.type_name, &t.kind)
    }

    fn of_member(m: &'k MemberSchema) -> Member<'k> {
        (&m.name, Self::of_schema(&m.type_name, &m.kind))
    }

    /// Schema kinds of scalars, glam and colour types as their reflected types (which every
    /// build of this crate has), so they are evaluated by the same code as in the loader.
    pub(crate) fn resolved(self) -> Self {
        match self {
            Target::Kind { type_name, kind } => {
                reflected(type_name, kind).map_or(self, Target::Info)
            }
            info => info,
        }
    }

    /// The reflected type, if known.
    pub(crate) fn info(self) -> Option<&'static TypeInfo> {
        match self.resolved() {
            Target::Info(info) => Some(info),
            Target::Kind { .. } => None,
        }
    }

    /// The short type path, as messages name it (`Option<f32>`, `Mode`).
    pub(crate) fn short(self) -> &'k str {
        match self {
            Target::Info(info) => info.type_path_table().short_path(),
            Target::Kind { type_name, .. } => type_name,
        }
    }

    /// The type's name without generics (`Option`, `Mode`); empty for tuples and arrays.
    pub(crate) fn ident(self) -> &'k str {
        match self {
            Target::Info(info) => info.type_path_table().ident().unwrap_or_default(),
            Target::Kind { type_name, .. } => ident_of(type_name),
        }
    }

    /// The structure the evaluator dispatches on.
    pub(crate) fn shape(self) -> Shape<'k> {
        match self.resolved() {
            Target::Info(info) => info_shape(info),
            Target::Kind { kind, .. } => kind_shape(kind),
        }
    }
}

/// The identifier of a short type path: the part before `<`; empty for tuples, arrays,
/// slices and references, which have none (as `TypePathTable::ident` says).
fn ident_of(short: &str) -> &str {
    if short.starts_with(['(', '[', '&', '*']) {
        return "";
    }
    short.split('<').next().unwrap_or(short)
}

/// The reflected type of a scalar, glam or colour kind.
fn reflected(type_name: &str, kind: &FieldKind) -> Option<&'static TypeInfo> {
    Some(match kind {
        FieldKind::Bool => bool::type_info(),
        FieldKind::Char => char::type_info(),
        FieldKind::String => String::type_info(),
        FieldKind::Float { bits: 64 } => f64::type_info(),
        FieldKind::Float { .. } => f32::type_info(),
        FieldKind::Integer { signed, bits } => IntTy::from_name(type_name)
            .filter(|i| i.signed() == *signed && i.bits() == *bits)
            .or_else(|| IntTy::of_width(*signed, *bits))?
            .type_info(),
        FieldKind::Vector { len } => Special::from_name(type_name)
            .filter(|s| !s.is_colour() && s.len() == usize::from(*len))
            .or_else(|| Special::vector(*len))?
            .type_info(),
        FieldKind::Colour => Special::from_name(type_name)
            .filter(|s| s.is_colour())
            .unwrap_or(Special::Color)
            .type_info(),
        _ => return None,
    })
}

fn info_shape(info: &'static TypeInfo) -> Shape<'static> {
    if let Some(special) = Special::of(info.type_id()) {
        return Shape::Special(special, info);
    }
    if info.type_path() == super::ENTITY_TYPE_PATH {
        return Shape::Entity;
    }
    match info {
        TypeInfo::Opaque(_) => Shape::Opaque(info),
        TypeInfo::Enum(e) if is_option(info) => {
            let some = e.variant("Some").and_then(|v| match v {
                VariantInfo::Tuple(t) => t.field_at(0)?.type_info(),
                _ => None,
            });
            Shape::Option(some.map(Target::Info))
        }
        // No value of an enum without variants can be written (the schema says `Other`).
        TypeInfo::Enum(e) if e.variant_len() == 0 => Shape::Unwritable,
        TypeInfo::Enum(e) => Shape::Enum(Variants::Info(e)),
        TypeInfo::Struct(s) => Shape::Struct(
            s.iter()
                .map(|f| (f.name(), f.type_info().map(Target::Info)))
                .collect(),
        ),
        TypeInfo::TupleStruct(t) => {
            Shape::TupleStruct(t.iter().map(|f| f.type_info().map(Target::Info)).collect())
        }
        TypeInfo::Tuple(t) => {
            Shape::Tuple(t.iter().map(|f| f.type_info().map(Target::Info)).collect())
        }
        TypeInfo::List(l) => Shape::List(l.item_info().map(Target::Info)),
        TypeInfo::Array(a) => Shape::Array(a.item_info().map(Target::Info), a.capacity()),
        _ => Shape::Unwritable,
    }
}

fn kind_shape(kind: &FieldKind) -> Shape<'_> {
    match kind {
        FieldKind::Option(some) => Shape::Option(Target::of_type(some)),
        FieldKind::Enum { variants } => Shape::Enum(Variants::Kind(variants)),
        FieldKind::Struct { fields } => {
            Shape::Struct(fields.iter().map(Target::of_member).collect())
        }
        FieldKind::TupleStruct { fields } => {
            Shape::TupleStruct(fields.iter().map(Target::of_type).collect())
        }
        FieldKind::Tuple { fields } => Shape::Tuple(fields.iter().map(Target::of_type).collect()),
        FieldKind::List(item) => Shape::List(Target::of_type(item)),
        FieldKind::Array { item, len } => Shape::Array(Target::of_type(item), *len),
        FieldKind::Entity => Shape::Entity,
        // Scalars, glam and colour kinds are resolved to reflected types before this.
        _ => Shape::Unwritable,
    }
}

impl<'k> Variants<'k> {
    /// The variant called `name`.
    pub(crate) fn get(self, name: &str) -> Option<Variant<'k>> {
        match self {
            Variants::Info(e) => {
                let v = e.variant(name)?;
                let fields = match v {
                    VariantInfo::Unit(_) => VariantFields::Unit,
                    VariantInfo::Tuple(t) => VariantFields::Tuple(
                        t.iter().map(|f| f.type_info().map(Target::Info)).collect(),
                    ),
                    VariantInfo::Struct(s) => VariantFields::Struct(
                        s.iter()
                            .map(|f| (f.name(), f.type_info().map(Target::Info)))
                            .collect(),
                    ),
                };
                Some(Variant {
                    name: v.name(),
                    fields,
                })
            }
            Variants::Kind(list) => {
                let v = list.iter().find(|v| v.name() == name)?;
                let fields = match v {
                    VariantSchema::Unit { .. } => VariantFields::Unit,
                    VariantSchema::Tuple { fields, .. } => {
                        VariantFields::Tuple(fields.iter().map(Target::of_type).collect())
                    }
                    VariantSchema::Struct { fields, .. } => {
                        VariantFields::Struct(fields.iter().map(Target::of_member).collect())
                    }
                };
                Some(Variant {
                    name: v.name(),
                    fields,
                })
            }
        }
    }

    /// The variant names in backticks, comma separated (`` `Idle`, `Chase` ``).
    pub(crate) fn list(self) -> String {
        let names: Vec<String> = match self {
            Variants::Info(e) => e.iter().map(|v| format!("`{}`", v.name())).collect(),
            Variants::Kind(list) => list.iter().map(|v| format!("`{}`", v.name())).collect(),
        };
        names.join(", ")
    }
}

impl VariantFields<'_> {
    /// How the variant is written, for "expected" messages.
    pub(crate) fn written(&self) -> &'static str {
        match self {
            VariantFields::Unit => "without fields",
            VariantFields::Tuple(_) => "with `(..)`",
            VariantFields::Struct(_) => "with `{ .. }`",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_reflect::Typed;

    #[test]
    fn idents_of_short_paths_match_reflection() {
        fn check<T: Typed>() {
            let info = T::type_info();
            let short = info.type_path_table().short_path();
            assert_eq!(
                ident_of(short),
                info.type_path_table().ident().unwrap_or_default(),
                "{short}"
            );
        }
        check::<f32>();
        check::<String>();
        check::<Option<f32>>();
        check::<Vec<Option<u8>>>();
        check::<(u32, bool)>();
        check::<[f32; 3]>();
        check::<glam::Vec3>();
        check::<bevy_color::Color>();
    }
}
