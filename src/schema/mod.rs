//! Schemas of custom components: what a scene may write for a game's own component types.
//!
//! A [`ComponentSchema`] lists the fields of one type with their [`FieldKind`] (down to the
//! scalars), defaults, `#[forge(..)]` ranges and docs. The derive
//! ([`ForgeComponent`](macro@crate::ForgeComponent)) writes it from the type through
//! reflection ([`FieldSchema::of`], [`kind_of`]); a game exports the table of its schemas as a
//! [schema file](SchemaFile) so tools check scenes without its code.
//!
//! This part is plain data and reflection: no `World`, no `App`. Registering types with an app,
//! and building and inserting values, is the runtime's ([`ForgeComponent`](crate::ForgeComponent)).
//!
//! - [`expr`]: field expressions, the Rust-like text of a custom field, evaluated as data
//!   against a reflected type or a schema kind.
//! - [`SchemaFile`]: the `.forge-schema.ron` file; [`SchemaFile::diff`] compares two exports
//!   ([`SchemaChange`]).

mod diff;
pub mod expr;
mod file;
mod kind;
pub(crate) mod renames;

pub use diff::SchemaChange;
pub use file::{MAX_FILE_DEPTH, SCHEMA_EXTENSION, SCHEMA_FORMAT, SchemaFile, SchemaFileError};
pub use kind::kind_of;

use bevy_reflect::{PartialReflect, Typed};
use serde::{Deserialize, Serialize};

/// What a scene may write for one custom component type.
///
/// In a [`SchemaFile`], `docs` and `skipped` may be left out
/// (empty).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentSchema {
    /// The path scenes write as `type_path` (`forge_demo::Orbit`): the `#[forge(type_path)]`
    /// override, else the type's `TypePath`.
    pub type_path: String,
    /// The Rust type name without its module path (`Orbit`).
    pub type_name: String,
    /// The type's doc comment, lines joined with `\n` (empty when undocumented).
    #[serde(default)]
    pub docs: String,
    /// The fields a scene may set, in declaration order. Tuple struct fields are named `0`, `1`;
    /// a unit struct and an enum have none. May be left out of a schema file (none).
    #[serde(default)]
    pub fields: Vec<FieldSchema>,
    /// Fields marked `#[forge(skip)]`: they exist but a scene may not set them.
    #[serde(default)]
    pub skipped: Vec<String>,
    /// The type paths the type had before (`#[forge(renamed_from = "old::Path")]`), oldest
    /// first: a scene that writes one of them still loads, with a warning naming this
    /// [`type_path`](Self::type_path) (`forge::custom::renamed`), and `forge migrate --schema`
    /// rewrites it. Left out of a schema file when empty (files without it read as before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renamed_from: Vec<String>,
    /// An enum component's variants in declaration order, with the kinds of their fields; empty
    /// for a struct. A scene writes an enum component whole, as one field expression
    /// (`value: "RigidBody::Dynamic"`: the format page, "Custom components"), never by
    /// `fields`. Left out of a schema file when empty (files without it read as before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantSchema>,
    /// An enum component's `Default` (its `#[default]` variant) as a field expression
    /// (`RigidBody::Dynamic`): what an entity gets when the scene writes no `value`. `None` for
    /// a struct, whose fields have their own defaults. Left out of a schema file when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// An enum component's variant names scenes wrote before
    /// (`#[forge(renamed_from = "Moving")]` on a variant), oldest first: a `value` naming an
    /// old variant still loads, with a warning naming the current one
    /// (`forge::custom::renamed_variant`), and `forge migrate --schema` rewrites it. Left out
    /// of a schema file when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renamed_variants: Vec<RenamedVariant>,
}

/// An old name of an enum component's variant ([`ComponentSchema::renamed_variants`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenamedVariant {
    /// The name scenes wrote (`Moving`).
    pub from: String,
    /// The current variant's name (`Kinematic`).
    pub to: String,
}

/// `name` without the `r#` of a raw identifier (`r#type` to `type`): how a schema names a field
/// whose Rust name is a keyword (the derive drops the `r#`), while a scene writes it as Rust
/// does.
pub(crate) fn unraw(name: &str) -> &str {
    name.strip_prefix("r#").unwrap_or(name)
}

impl ComponentSchema {
    /// The settable field called `name`, as a scene writes it: a raw identifier names the field
    /// without its `r#` (`r#type` is the field `type`, as the derive names it).
    pub fn field(&self, name: &str) -> Option<&FieldSchema> {
        let name = unraw(name);
        self.fields.iter().find(|f| f.name == name)
    }

    /// The required fields, in declaration order.
    pub fn required(&self) -> impl Iterator<Item = &FieldSchema> {
        self.fields.iter().filter(|f| f.required)
    }

    /// Whether the type is an enum (it has [`variants`](Self::variants)): a scene writes its
    /// value whole (`value`), not by `fields`.
    pub fn is_enum(&self) -> bool {
        !self.variants.is_empty()
    }

    /// The variant called `name`, for an enum component.
    pub fn variant(&self, name: &str) -> Option<&VariantSchema> {
        self.variants.iter().find(|v| v.name() == name)
    }

    /// The current name of variant `written` when it is an old name of one
    /// ([`renamed_variants`](Self::renamed_variants)) and no current variant's.
    pub fn renamed_variant(&self, written: &str) -> Option<&str> {
        if self.variant(written).is_some() {
            return None;
        }
        self.renamed_variants
            .iter()
            .find(|r| r.from == written)
            .map(|r| r.to.as_str())
    }

    /// The schema of the enum component `T`, as the derive writes it: its variants from
    /// reflection, its `Default` rendered as an expression; `variants_renamed` lists
    /// `(old, current)` variant names.
    #[doc(hidden)]
    pub fn of_enum<T: Typed + PartialReflect + Default>(
        type_path: String,
        docs: &str,
        renamed_from: Vec<String>,
        variants_renamed: &[(&str, &str)],
    ) -> Self {
        let info = T::type_info();
        let variants = match kind_of(info) {
            FieldKind::Enum { variants } => variants,
            _ => Vec::new(),
        };
        ComponentSchema {
            type_path,
            type_name: info
                .type_path_table()
                .ident()
                .unwrap_or_default()
                .to_owned(),
            docs: docs.to_owned(),
            fields: Vec::new(),
            skipped: Vec::new(),
            renamed_from,
            variants,
            default: expr::render(&T::default()),
            renamed_variants: variants_renamed
                .iter()
                .map(|(from, to)| RenamedVariant {
                    from: (*from).to_owned(),
                    to: (*to).to_owned(),
                })
                .collect(),
        }
    }
}

/// One settable field of a [`ComponentSchema`].
///
/// In a [`SchemaFile`], `required` (false), `default`, `range`
/// (`None`) and `docs` (empty) may be left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSchema {
    /// The Rust field name (`radius`; `0` for the first field of a tuple struct).
    pub name: String,
    /// The Rust type as its short type path (`f32`, `Vec3`, `Option<f32>`).
    pub type_name: String,
    /// What kind of value the field holds.
    pub kind: FieldKind,
    /// Whether a scene must set the field (`#[forge(required)]`).
    #[serde(default)]
    pub required: bool,
    /// The type's `Default` value of the field, written as a field expression (`0.0`,
    /// `Vec3::new(0.0, 1.0, 0.0)`, `None`); `None` when it cannot be written.
    #[serde(default)]
    pub default: Option<String>,
    /// The allowed numbers (`#[forge(range = a..=b)]`), checked at load.
    #[serde(default)]
    pub range: Option<FieldRange>,
    /// The field's doc comment, lines joined with `\n` (empty when undocumented).
    #[serde(default)]
    pub docs: String,
    /// The names the field had before (`#[forge(renamed_from = "old_name")]`), oldest first: a
    /// scene that sets one of them still loads, with a warning naming this
    /// [`name`](Self::name) (`forge::custom::renamed_field`). Left out of a schema file when
    /// empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renamed_from: Vec<String>,
}

/// The kind of value a field holds, as far as scenes are concerned.
///
/// Composite kinds describe their parts down to the scalars (struct fields, enum variant
/// payloads, list items, `Option` payloads), each as a [`TypeSchema`] with its short type name, so
/// a field expression can be checked without the Rust type (`forge validate --schema`). Nesting
/// stops after 16 levels and after 4096 parts per field (recursive types): deeper parts are
/// [`Other`](FieldKind::Other).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub enum FieldKind {
    /// `bool`.
    Bool,
    /// An integer type of `bits` width (`isize`/`usize` count as 64).
    Integer {
        /// Whether negative values are allowed.
        signed: bool,
        /// Width in bits: 8, 16, 32, 64 or 128.
        bits: u8,
    },
    /// `f32` (`bits` 32) or `f64` (`bits` 64).
    Float {
        /// Width in bits.
        bits: u8,
    },
    /// `char`.
    Char,
    /// `String`.
    String,
    /// A glam vector or quaternion (`Vec2`, `Vec3`, `Vec3A`, `Vec4`, `Quat`) of `len` floats.
    Vector {
        /// Number of components: 2, 3 or 4.
        len: u8,
    },
    /// `bevy_color::Color` (or one of its colour spaces, `Srgba`, `LinearRgba`).
    Colour,
    /// An enum, with its variants in declaration order (at least one: an enum without variants
    /// is [`Other`](FieldKind::Other)).
    Enum {
        /// The variants and their fields.
        variants: Vec<VariantSchema>,
    },
    /// A struct with named fields.
    Struct {
        /// The fields in declaration order.
        fields: Vec<MemberSchema>,
    },
    /// A tuple struct (`Name(a, b)`); its fields are named `0`, `1`, ... in expressions.
    TupleStruct {
        /// The field types in declaration order.
        fields: Vec<TypeSchema>,
    },
    /// A tuple (`(a, b)`).
    Tuple {
        /// The element types in order.
        fields: Vec<TypeSchema>,
    },
    /// A `Vec` or other growable list of items of one type.
    List(Box<TypeSchema>),
    /// An array `[T; len]`.
    Array {
        /// The item type.
        item: Box<TypeSchema>,
        /// The number of items.
        len: usize,
    },
    /// `Option<T>`, with the type of `T`.
    Option(Box<TypeSchema>),
    /// Bevy's `Entity`: a reference to an entity of the scene, written `#7` (or `#7/2` into a
    /// prefab instance; the `format` module docs, "Entity references").
    Entity,
    /// Anything else (maps, sets, opaque types, enums without variants): scenes cannot write it.
    Other,
}

/// A type nested inside a field: a list item, an `Option` payload, a tuple element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeSchema {
    /// The Rust type as its short type path (`f32`, `Vec3`, `Mode`); empty when reflection
    /// gives no type information.
    pub type_name: String,
    /// What kind of value it holds.
    pub kind: FieldKind,
}

/// A named field of a nested struct or of a struct variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemberSchema {
    /// The field name.
    pub name: String,
    /// The Rust type as its short type path (`f32`); empty when reflection gives no type
    /// information.
    pub type_name: String,
    /// What kind of value it holds.
    pub kind: FieldKind,
}

/// One variant of an enum [`FieldKind`], with the types of its fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub enum VariantSchema {
    /// A variant without fields (`Mode::Idle`).
    Unit {
        /// The variant name.
        name: String,
    },
    /// A variant with unnamed fields (`Mode::Chase(3)`).
    Tuple {
        /// The variant name.
        name: String,
        /// The field types in order.
        fields: Vec<TypeSchema>,
    },
    /// A variant with named fields (`Mode::Patrol { speed: 2.0 }`).
    Struct {
        /// The variant name.
        name: String,
        /// The fields in declaration order.
        fields: Vec<MemberSchema>,
    },
}

impl VariantSchema {
    /// The variant name.
    pub fn name(&self) -> &str {
        match self {
            VariantSchema::Unit { name }
            | VariantSchema::Tuple { name, .. }
            | VariantSchema::Struct { name, .. } => name,
        }
    }
}

/// Inclusive or half-open number bounds of a field.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldRange {
    /// Smallest allowed value.
    pub min: f64,
    /// Upper bound.
    pub max: f64,
    /// Whether `max` itself is allowed (`a..=b`) or not (`a..b`).
    pub inclusive: bool,
}

impl FieldRange {
    /// Whether `value` lies inside the bounds.
    pub fn contains(&self, value: f64) -> bool {
        value >= self.min && (value < self.max || (self.inclusive && value == self.max))
    }
}

impl std::fmt::Display for FieldRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = if self.inclusive { "..=" } else { ".." };
        write!(f, "{}{op}{}", self.min, self.max)
    }
}

impl FieldSchema {
    /// The schema of field `name` of type `F` whose default value is `default`. Used by the
    /// derive; `kind` and `default` come from reflection.
    pub fn of<F: Typed + PartialReflect>(
        name: &str,
        default: &F,
        required: bool,
        range: Option<FieldRange>,
        docs: &str,
    ) -> Self {
        let info = F::type_info();
        FieldSchema {
            name: name.to_owned(),
            type_name: info.type_path_table().short_path().to_owned(),
            kind: kind_of(info),
            required,
            default: expr::render(default),
            range,
            docs: docs.to_owned(),
            renamed_from: Vec::new(),
        }
    }
}
