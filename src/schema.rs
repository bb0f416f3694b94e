//! Schemas of custom components: the [`ForgeComponent`] trait, [`ComponentSchema`],
//! [`FieldSchema`], the [`ForgeSchemas`] resource and [`RegisterForgeComponent`].
//!
//! A game type becomes usable as a `custom` component of a `.forge.ron` scene by deriving
//! [`ForgeComponent`](macro@crate::ForgeComponent):
//!
//! ```
//! use bevy_ecs::prelude::*;
//! use bevy_reflect::prelude::*;
//! use bevy_forge_scene::ForgeComponent;
//!
//! /// Moves the entity on a circle around its parent.
//! #[derive(Component, Reflect, Default, ForgeComponent)]
//! #[reflect(Component, Default)]
//! #[forge(type_path = "forge_demo::Orbit")]
//! struct Orbit {
//!     /// Metres.
//!     #[forge(range = 0.0..=100.0)]
//!     radius: f32,
//!     /// Radians per second.
//!     #[forge(required)]
//!     speed: f32,
//! }
//!
//! let schema = <Orbit as bevy_forge_scene::schema::ForgeComponent>::schema();
//! assert_eq!(schema.type_path, "forge_demo::Orbit");
//! assert!(schema.field("speed").is_some_and(|f| f.required));
//! ```
//!
//! # Registration
//!
//! Deriving is enough on the platforms the [`inventory`] crate supports (Linux, Android, the BSDs,
//! macOS, iOS, Windows and WebAssembly; see its documentation for the WebAssembly caveat about
//! constructors): every non-generic derived type submits itself, and [`ForgeScenePlugin`]
//! registers all of them, in the app's type registry (with `ReflectComponent` and
//! `ReflectDefault`) and in [`ForgeSchemas`]. On other platforms, for generic types (one
//! registration per instantiation), and for types whose `ForgeComponent` impl is written by
//! hand, call [`RegisterForgeComponent::register_forge_component`] before the first scene loads.
//!
//! Only types registered this way can be created by a scene (an allow-list): a `type_path` naming
//! any other reflected type, such as an engine component or a resource, fails the load.
//!
//! # Offline checks
//!
//! [`ForgeSchemas::export`] writes every registered schema to a `.forge-schema.ron` file (see
//! [`schema_file`](crate::schema_file)); `forge validate --schema <file>` and
//! [`validate_parsed_with_schemas`](crate::validate::validate_parsed_with_schemas) check scenes
//! against it with the loader's rules and messages, without the game's code.
//!
//! [`ForgeScenePlugin`]: crate::ForgeScenePlugin

use std::any::TypeId;
use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock};

use bevy_app::App;
use bevy_ecs::component::Component;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent, ReflectResource};
use bevy_ecs::resource::Resource;
use bevy_ecs::world::EntityWorldMut;
use bevy_reflect::enums::VariantInfo;
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{GetTypeRegistration, PartialReflect, Reflect, TypeInfo, TypePath, Typed};
use serde::{Deserialize, Serialize};

/// A game component that scenes may create as a `custom` component.
///
/// Derive it with `#[derive(ForgeComponent)]` (see [the module docs](self)); the derive writes
/// [`schema`](Self::schema) from the type's fields and `#[forge(..)]` attributes.
pub trait ForgeComponent: Component + Reflect + TypePath + GetTypeRegistration + Default {
    /// The schema scenes are checked against: type path, fields, kinds, defaults, ranges, docs.
    fn schema() -> ComponentSchema;
}

/// What a scene may write for one custom component type.
///
/// In a [`SchemaFile`](crate::schema_file::SchemaFile), `docs` and `skipped` may be left out
/// (empty).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The fields a scene may set, in declaration order. Tuple struct fields are named `0`, `1`.
    pub fields: Vec<FieldSchema>,
    /// Fields marked `#[forge(skip)]`: they exist but a scene may not set them.
    #[serde(default)]
    pub skipped: Vec<String>,
}

impl ComponentSchema {
    /// The settable field called `name`.
    pub fn field(&self, name: &str) -> Option<&FieldSchema> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The required fields, in declaration order.
    pub fn required(&self) -> impl Iterator<Item = &FieldSchema> {
        self.fields.iter().filter(|f| f.required)
    }
}

/// One settable field of a [`ComponentSchema`].
///
/// In a [`SchemaFile`](crate::schema_file::SchemaFile), `required` (false), `default`, `range`
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
            default: crate::expr::render(default),
            range,
            docs: docs.to_owned(),
        }
    }
}

/// The [`FieldKind`] of a reflected type, with its parts (see [`FieldKind`] for the limits).
pub fn kind_of(info: &TypeInfo) -> FieldKind {
    KindBuilder { parts: 0 }.kind(info, 0)
}

/// How deep [`kind_of`] describes nested types.
const MAX_KIND_DEPTH: usize = 16;
/// How many parts [`kind_of`] describes per field (a recursive type could otherwise describe
/// exponentially many within the depth limit).
const MAX_KIND_PARTS: usize = 4096;

/// Builds a [`FieldKind`], counting the parts described so far.
struct KindBuilder {
    parts: usize,
}

impl KindBuilder {
    fn kind(&mut self, info: &TypeInfo, depth: usize) -> FieldKind {
        self.parts += 1;
        if depth > MAX_KIND_DEPTH || self.parts > MAX_KIND_PARTS {
            return FieldKind::Other;
        }
        if let Some(k) = crate::expr::special_kind(info) {
            return k;
        }
        let path = info.type_path();
        match info {
            TypeInfo::Opaque(_) => match path {
                "bool" => FieldKind::Bool,
                "char" => FieldKind::Char,
                "f32" => FieldKind::Float { bits: 32 },
                "f64" => FieldKind::Float { bits: 64 },
                "alloc::string::String" | "String" => FieldKind::String,
                p => match crate::expr::IntTy::from_name(p) {
                    Some(i) => FieldKind::Integer {
                        signed: i.signed(),
                        bits: i.bits(),
                    },
                    None => FieldKind::Other,
                },
            },
            TypeInfo::Enum(e) if path.starts_with("core::option::Option<") => {
                let some = e.variant("Some").and_then(|v| match v {
                    VariantInfo::Tuple(t) => t.field_at(0)?.type_info(),
                    _ => None,
                });
                FieldKind::Option(Box::new(self.ty(some, depth)))
            }
            // No value can be written (or exist): nothing to describe.
            TypeInfo::Enum(e) if e.variant_len() == 0 => FieldKind::Other,
            TypeInfo::Enum(e) => {
                let mut variants = Vec::with_capacity(e.variant_len());
                for v in e.iter() {
                    let name = v.name().to_owned();
                    variants.push(match v {
                        VariantInfo::Unit(_) => VariantSchema::Unit { name },
                        VariantInfo::Tuple(t) => VariantSchema::Tuple {
                            name,
                            fields: t.iter().map(|f| self.ty(f.type_info(), depth)).collect(),
                        },
                        VariantInfo::Struct(s) => VariantSchema::Struct {
                            name,
                            fields: s
                                .iter()
                                .map(|f| self.member(f.name(), f.type_info(), depth))
                                .collect(),
                        },
                    });
                }
                FieldKind::Enum { variants }
            }
            TypeInfo::Struct(s) => FieldKind::Struct {
                fields: s
                    .iter()
                    .map(|f| self.member(f.name(), f.type_info(), depth))
                    .collect(),
            },
            TypeInfo::TupleStruct(s) => FieldKind::TupleStruct {
                fields: s.iter().map(|f| self.ty(f.type_info(), depth)).collect(),
            },
            TypeInfo::Tuple(s) => FieldKind::Tuple {
                fields: s.iter().map(|f| self.ty(f.type_info(), depth)).collect(),
            },
            TypeInfo::List(l) => FieldKind::List(Box::new(self.ty(l.item_info(), depth))),
            TypeInfo::Array(a) => FieldKind::Array {
                item: Box::new(self.ty(a.item_info(), depth)),
                len: a.capacity(),
            },
            _ => FieldKind::Other,
        }
    }

    /// The schema of a part of a type at `depth`; `None` (no type information) is an unnamed
    /// [`FieldKind::Other`].
    fn ty(&mut self, info: Option<&TypeInfo>, depth: usize) -> TypeSchema {
        match info {
            Some(info) => TypeSchema {
                type_name: info.type_path_table().short_path().to_owned(),
                kind: self.kind(info, depth + 1),
            },
            None => TypeSchema {
                type_name: String::new(),
                kind: FieldKind::Other,
            },
        }
    }

    fn member(&mut self, name: &str, info: Option<&TypeInfo>, depth: usize) -> MemberSchema {
        let TypeSchema { type_name, kind } = self.ty(info, depth);
        MemberSchema {
            name: name.to_owned(),
            type_name,
            kind,
        }
    }
}

/// One registered custom component type. Cheap to clone (the schema is shared).
#[derive(Debug, Clone)]
pub(crate) struct SchemaEntry {
    pub(crate) schema: Arc<ComponentSchema>,
    pub(crate) type_id: TypeId,
    /// Inserts a value of the type (given as `dyn Reflect` of exactly that type) into an entity
    /// with a typed insert; `false` when the value is of another type.
    pub(crate) insert: fn(&mut EntityWorldMut, &dyn Reflect) -> bool,
    /// Spawns an entity with the common components of a scene entity and a value of the type in
    /// one bundle (one archetype move less); gives the bundle back when the value is of another
    /// type.
    pub(crate) spawn_with: SpawnWith,
    /// An empty column of values of the type (a `Vec<T>`), where a scene keeps its built values.
    pub(crate) column: fn() -> Box<dyn crate::custom::CustomColumn>,
}

/// [`SchemaEntry::column`].
fn new_column<T: ForgeComponent>() -> Box<dyn crate::custom::CustomColumn> {
    Box::new(Vec::<T>::new())
}

/// [`SchemaEntry::spawn_with`].
pub(crate) type SpawnWith = fn(
    &mut bevy_ecs::world::World,
    crate::spawn::EntityBundle,
    &dyn Reflect,
) -> Result<bevy_ecs::entity::Entity, crate::spawn::EntityBundle>;

/// The value of `T` that `value` describes: `T`'s `Default` with the value applied.
fn typed<T: ForgeComponent>(value: &dyn Reflect) -> Option<T> {
    let value = value.downcast_ref::<T>()?;
    let mut component = T::default();
    component.try_apply(value.as_partial_reflect()).ok()?;
    Some(component)
}

/// The typed spawn of [`SchemaEntry::spawn_with`].
fn spawn_typed<T: ForgeComponent>(
    world: &mut bevy_ecs::world::World,
    bundle: crate::spawn::EntityBundle,
    value: &dyn Reflect,
) -> Result<bevy_ecs::entity::Entity, crate::spawn::EntityBundle> {
    match typed::<T>(value) {
        Some(component) => Ok(world.spawn((bundle, component)).id()),
        None => Err(bundle),
    }
}

/// The typed insert of [`SchemaEntry::insert`]: the type's `Default` with the value applied
/// (no type registry lookups, one archetype move).
fn insert_typed<T: ForgeComponent>(entity: &mut EntityWorldMut, value: &dyn Reflect) -> bool {
    let Some(component) = typed::<T>(value) else {
        return false;
    };
    entity.insert(component);
    true
}

/// The schemas of every registered [`ForgeComponent`] type, by type path.
///
/// Inserted by [`ForgeScenePlugin`](crate::ForgeScenePlugin) and filled by it (derived types)
/// and by [`RegisterForgeComponent::register_forge_component`]. Cloning shares the table: the
/// scene loader holds a clone, so types registered later are seen by later loads.
///
/// [`export`](Self::export) writes the table to a `.forge-schema.ron` file, which tools read
/// to check scenes without the game (`forge validate --schema game.forge-schema.ron scenes/`):
///
/// ```no_run
/// # use bevy_ecs::prelude::*;
/// # use bevy_forge_scene::ForgeSchemas;
/// #[cfg(debug_assertions)]
/// fn export_schemas(schemas: Res<ForgeSchemas>) {
///     if let Err(e) = schemas.export("assets/game.forge-schema.ron") {
///         eprintln!("cannot write the schemas: {e}");
///     }
/// }
/// ```
#[derive(Resource, Clone, Default, Debug)]
pub struct ForgeSchemas {
    inner: Arc<RwLock<BTreeMap<String, SchemaEntry>>>,
}

impl ForgeSchemas {
    /// Adds (or replaces) the schema of `T`.
    pub fn insert<T: ForgeComponent>(&self) {
        let schema = T::schema();
        let mut table = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        table.insert(
            schema.type_path.clone(),
            SchemaEntry {
                schema: Arc::new(schema),
                type_id: TypeId::of::<T>(),
                insert: insert_typed::<T>,
                spawn_with: spawn_typed::<T>,
                column: new_column::<T>,
            },
        );
    }

    /// The schema registered for `type_path`.
    pub fn get(&self, type_path: &str) -> Option<ComponentSchema> {
        self.entry(type_path)
            .map(|e| ComponentSchema::clone(&e.schema))
    }

    pub(crate) fn entry(&self, type_path: &str) -> Option<SchemaEntry> {
        let table = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        table.get(type_path).cloned()
    }

    /// Every registered type path, sorted.
    pub fn type_paths(&self) -> Vec<String> {
        let table = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        table.keys().cloned().collect()
    }

    /// Every registered schema, sorted by type path.
    pub fn schemas(&self) -> Vec<ComponentSchema> {
        let table = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        table
            .values()
            .map(|e| ComponentSchema::clone(&e.schema))
            .collect()
    }

    /// Number of registered types.
    pub fn len(&self) -> usize {
        self.inner
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether no type is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Registers a [`ForgeComponent`] type with an [`App`]: `app.register_forge_component::<Orbit>()`.
pub trait RegisterForgeComponent {
    /// Registers `T` in the app's type registry (with `ReflectComponent` and `ReflectDefault`
    /// type data, so the `#[reflect(..)]` attributes are optional) and its schema in
    /// [`ForgeSchemas`]. Idempotent. Needed only where automatic registration does not happen
    /// (see [the module docs](self)).
    ///
    /// A type that reflects as a resource is refused with an error log: scenes never create
    /// resources.
    fn register_forge_component<T: ForgeComponent>(&mut self) -> &mut Self;
}

impl RegisterForgeComponent for App {
    fn register_forge_component<T: ForgeComponent>(&mut self) -> &mut Self {
        register::<T>(self);
        self
    }
}

/// Registers `T` (see [`RegisterForgeComponent::register_forge_component`]).
fn register<T: ForgeComponent>(app: &mut App) {
    app.register_type::<T>();
    let registry = app
        .world_mut()
        .get_resource_or_init::<AppTypeRegistry>()
        .clone();
    {
        let mut registry = registry.write();
        if registry
            .get_type_data::<ReflectResource>(TypeId::of::<T>())
            .is_some()
        {
            tracing::error!(
                "`{}` is a resource; scenes cannot create resources, so it is not registered as a ForgeComponent",
                T::type_path()
            );
            return;
        }
        if registry
            .get_type_data::<ReflectComponent>(TypeId::of::<T>())
            .is_none()
        {
            registry.register_type_data::<T, ReflectComponent>();
        }
        if registry
            .get_type_data::<ReflectDefault>(TypeId::of::<T>())
            .is_none()
        {
            registry.register_type_data::<T, ReflectDefault>();
        }
    }
    app.world_mut()
        .get_resource_or_init::<ForgeSchemas>()
        .insert::<T>();
}

/// Registers every type that derived [`ForgeComponent`] (through `inventory`).
pub(crate) fn register_derived(app: &mut App) {
    for registration in inventory::iter::<ForgeComponentRegistration> {
        (registration.register)(app);
    }
}

/// An automatic registration submitted by `#[derive(ForgeComponent)]`. Not public API.
#[doc(hidden)]
pub struct ForgeComponentRegistration {
    register: fn(&mut App),
}

impl ForgeComponentRegistration {
    /// The registration of `T`.
    pub const fn of<T: ForgeComponent>() -> Self {
        Self {
            register: register::<T>,
        }
    }
}

inventory::collect!(ForgeComponentRegistration);

/// Called by [`ForgeScenePlugin`](crate::ForgeScenePlugin): inserts [`ForgeSchemas`], registers
/// every derived type, and returns the shared registry and schemas for the loader.
pub(crate) fn setup(app: &mut App) -> (AppTypeRegistry, ForgeSchemas) {
    let schemas = app
        .world_mut()
        .get_resource_or_init::<ForgeSchemas>()
        .clone();
    register_derived(app);
    let registry = app
        .world_mut()
        .get_resource_or_init::<AppTypeRegistry>()
        .clone();
    (registry, schemas)
}
