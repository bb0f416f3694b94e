//! Custom component types in an app: the [`ForgeComponent`] trait (its docs are the user's
//! guide to deriving and registering), the [`ForgeSchemas`] resource and
//! [`RegisterForgeComponent`]. What a schema says is [`crate::schema`]'s; this is where a type
//! meets the `World`: registration, and how a value of it is stored and inserted.
use std::any::TypeId;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};

use bevy_app::App;
use bevy_ecs::component::Component;
use bevy_ecs::entity::Entity;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent, ReflectResource};
use bevy_ecs::resource::Resource;
use bevy_ecs::world::{EntityWorldMut, World};
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{GetTypeRegistration, Reflect, TypePath};

use super::components::EntityBundle;
use crate::schema::{ComponentSchema, SchemaFile, SchemaFileError};

/// A game component that scenes may create as a `custom` component. The derive writes
/// [`schema`](Self::schema) from the type's fields and `#[forge(..)]` attributes:
/// `#[forge(required)]`, `#[forge(range = 0.0..=100.0)]` and `#[forge(skip)]` on fields,
/// `#[forge(type_path = "..")]` on the type; a field's doc comment becomes its schema doc.
///
/// A game type becomes usable as a `custom` component of a `.forge.ron` scene by deriving
/// [`ForgeComponent`](macro@crate::ForgeComponent):
///
/// ```
/// use bevy_ecs::prelude::*;
/// use bevy_reflect::prelude::*;
/// use bevy_forge_scene::ForgeComponent;
///
/// /// Moves the entity on a circle around its parent.
/// #[derive(Component, Reflect, Default, ForgeComponent)]
/// #[reflect(Component, Default)]
/// #[forge(type_path = "forge_demo::Orbit")]
/// struct Orbit {
///     /// Metres.
///     #[forge(range = 0.0..=100.0)]
///     radius: f32,
///     /// Radians per second.
///     #[forge(required)]
///     speed: f32,
/// }
///
/// let schema = <Orbit as bevy_forge_scene::ForgeComponent>::schema();
/// assert_eq!(schema.type_path, "forge_demo::Orbit");
/// assert!(schema.field("speed").is_some_and(|f| f.required));
/// ```
///
/// # Registration
///
/// Deriving is enough on the platforms the [`inventory`] crate supports (Linux, Android, the BSDs,
/// macOS, iOS, Windows and WebAssembly; see its documentation for the WebAssembly caveat about
/// constructors): every non-generic derived type submits itself, and [`ForgeScenePlugin`]
/// registers all of them, in the app's type registry (with `ReflectComponent` and
/// `ReflectDefault`) and in [`ForgeSchemas`]. On other platforms, for generic types (one
/// registration per instantiation), and for types whose `ForgeComponent` impl is written by
/// hand, call [`RegisterForgeComponent::register_forge_component`] before the first scene loads.
///
/// Only types registered this way can be created by a scene (an allow-list): a `type_path` naming
/// any other reflected type, such as an engine component or a resource, fails the load.
///
/// # Entity fields
///
/// A field of type `Entity` (or `Option<Entity>`, `Vec<Entity>`, arrays, tuples, nested structs
/// and enum payloads holding one) is written in a scene as a reference, `#7` (the `format`
/// module docs, "Entity references"), and its schema kind is [`FieldKind::Entity`]. `Entity`
/// has no `Default`, so such a type implements `Default` itself (`Entity::PLACEHOLDER` for a
/// field the file does not set) or uses `Option<Entity>`.
///
/// Bevy's own scenes rewrite entity fields through [`MapEntities`], which only visits fields
/// marked `#[entities]` (or types with `#[component(map_entities)]`); an unmarked field keeps
/// the id it was saved with. Here the loader builds the value itself, so every `Entity` the
/// file writes is the live entity it names, marked or not, and the type's `map_entities` is not
/// called (it would have nothing left to map).
///
/// [`FieldKind::Entity`]: crate::schema::FieldKind::Entity
/// [`MapEntities`]: bevy_ecs::entity::MapEntities
///
/// # Offline checks
///
/// [`ForgeSchemas::export`] writes every registered schema to a `.forge-schema.ron` file (see
/// [`SchemaFile`](crate::schema::SchemaFile)); `forge validate --schema <file>` and
/// [`validate_parsed_with_schemas`](crate::validate::validate_parsed_with_schemas) check scenes
/// against it with the loader's rules and messages, without the game's code.
///
/// [`ForgeScenePlugin`]: crate::ForgeScenePlugin
pub trait ForgeComponent: Component + Reflect + TypePath + GetTypeRegistration + Default {
    /// The schema scenes are checked against: type path, fields, kinds, defaults, ranges, docs.
    fn schema() -> ComponentSchema;

    /// A copy of `self` for spawning, when the type can make one without reflection: the derive
    /// writes `Clone::clone` for a type that is `Clone` (most components are), `None` otherwise.
    /// `None` (the default) copies through reflection, field by field. Spawning a scene copies
    /// each of its custom values once per instance.
    #[doc(hidden)]
    fn copy_for_spawn(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

/// What the derive of [`ForgeComponent::copy_for_spawn`] calls: `Clone::clone` when the type
/// is `Clone`, else nothing. Method lookup on `&CopyProbe(value)` finds [`CopyByClone`] first
/// when its bound holds and [`CopyByReflection`] otherwise (a choice made where the concrete type
/// is known, in the derived impl; for a generic type whose parameters are not known to be
/// `Clone`, the fallback).
#[doc(hidden)]
pub struct CopyProbe<'a, T>(pub &'a T);

/// See [`CopyProbe`].
#[doc(hidden)]
pub trait CopyByClone<T> {
    /// A clone.
    fn probe_copy(&self) -> Option<T>;
}

impl<T: Clone> CopyByClone<T> for CopyProbe<'_, T> {
    fn probe_copy(&self) -> Option<T> {
        Some(self.0.clone())
    }
}

/// See [`CopyProbe`].
#[doc(hidden)]
pub trait CopyByReflection<T> {
    /// `None`: copy through reflection.
    fn probe_copy(&self) -> Option<T>;
}

impl<T> CopyByReflection<T> for &CopyProbe<'_, T> {
    fn probe_copy(&self) -> Option<T> {
        None
    }
}

/// The top bit of a column's row, which no row uses: the prepared scene marks in it the rows
/// whose value has entity references.
pub(crate) const ROW_FLAG: u32 = 1 << 31;

/// The values of one custom component type in a scene: a `Vec<T>` (see
/// [`SchemaEntry::column`]).
pub(crate) trait CustomColumn: Send + Sync {
    /// Appends the type's `Default` (to be set field by field); its row, `None` when the
    /// column has no room for another (rows are `u32` below [`ROW_FLAG`]).
    fn push_default(&mut self) -> Option<u32>;
    /// Removes the last value (one that did not build).
    fn pop(&mut self);
    /// The value at `row`.
    fn value_at(&self, row: u32) -> Option<&dyn Reflect>;
    /// The value at `row`, to set.
    fn value_at_mut(&mut self, row: u32) -> Option<&mut dyn Reflect>;
    /// Drops spare capacity once the scene is built.
    fn shrink(&mut self);
}

impl<T: Reflect + Default> CustomColumn for Vec<T> {
    fn push_default(&mut self) -> Option<u32> {
        let row = u32::try_from(self.len())
            .ok()
            .filter(|r| r & ROW_FLAG == 0)?;
        Vec::push(self, T::default());
        Some(row)
    }

    fn pop(&mut self) {
        Vec::pop(self);
    }

    fn value_at(&self, row: u32) -> Option<&dyn Reflect> {
        self.as_slice().get(row as usize).map(|v| v as &dyn Reflect)
    }

    fn value_at_mut(&mut self, row: u32) -> Option<&mut dyn Reflect> {
        self.as_mut_slice()
            .get_mut(row as usize)
            .map(|v| v as &mut dyn Reflect)
    }

    fn shrink(&mut self) {
        Vec::shrink_to_fit(self);
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
    pub(crate) column: fn() -> Box<dyn CustomColumn>,
    /// A copy of a value of the type with its entity references resolved: each placeholder
    /// entity in it replaced by the entity the function gives (see [`super::refs`]); `None`
    /// when the value is of another type.
    pub(crate) mapped: MappedCopy,
}

/// [`SchemaEntry::mapped`].
pub(crate) type MappedCopy =
    fn(&dyn Reflect, &dyn Fn(Entity) -> Option<Entity>) -> Option<Box<dyn Reflect>>;

/// The typed copy of [`SchemaEntry::mapped`].
fn mapped_typed<T: ForgeComponent>(
    value: &dyn Reflect,
    map: &dyn Fn(Entity) -> Option<Entity>,
) -> Option<Box<dyn Reflect>> {
    let mut component = typed::<T>(value)?;
    super::refs::map_placeholders(component.as_partial_reflect_mut(), map);
    Some(Box::new(component))
}

/// [`SchemaEntry::column`].
fn new_column<T: ForgeComponent>() -> Box<dyn CustomColumn> {
    Box::new(Vec::<T>::new())
}

/// [`SchemaEntry::spawn_with`].
pub(crate) type SpawnWith =
    fn(&mut World, EntityBundle, &dyn Reflect) -> Result<Entity, EntityBundle>;

/// The value of `T` that `value` describes: a copy by its `Clone` (a derived
/// [`ForgeComponent::copy_for_spawn`]), else a reflected copy, or where the type cannot be
/// copied through reflection, `T`'s `Default` with the value assigned (lists replaced, never
/// merged with the default's items).
fn typed<T: ForgeComponent>(value: &dyn Reflect) -> Option<T> {
    let value = value.downcast_ref::<T>()?;
    if let Some(copy) = value.copy_for_spawn() {
        return Some(copy);
    }
    if let Ok(copy) = value.reflect_clone()
        && let Ok(copy) = copy.downcast::<T>()
    {
        return Some(*copy);
    }
    let mut component = T::default();
    crate::schema::expr::assign(
        component.as_partial_reflect_mut(),
        value.as_partial_reflect(),
    )
    .ok()?;
    Some(component)
}

/// The typed spawn of [`SchemaEntry::spawn_with`].
fn spawn_typed<T: ForgeComponent>(
    world: &mut World,
    bundle: EntityBundle,
    value: &dyn Reflect,
) -> Result<Entity, EntityBundle> {
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
                mapped: mapped_typed::<T>,
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

    /// The old names of the registered types and their fields.
    pub(crate) fn renames(&self) -> crate::schema::renames::Renames {
        let table = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        crate::schema::renames::Renames::new(table.values().map(|e| &*e.schema))
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
    /// (see [`ForgeComponent`]).
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

impl ForgeSchemas {
    /// Every registered schema as a [`SchemaFile`], sorted by type path.
    pub fn to_schema_file(&self) -> SchemaFile {
        SchemaFile::new(self.schemas())
    }

    /// Writes every registered schema to `path` (conventionally `<name>.forge-schema.ron`) for
    /// offline checks: `forge validate --schema <path> scenes/`. See
    /// [`SchemaFile`](crate::schema::SchemaFile) for the file's shape. Call it once every type is registered,
    /// for example from a `Startup` system in debug builds.
    ///
    /// # Errors
    /// As [`SchemaFile::write`]: [`SchemaFileError::Io`] when the file cannot be written (the
    /// previous file is untouched).
    pub fn export(&self, path: impl AsRef<Path>) -> Result<(), SchemaFileError> {
        self.to_schema_file().write(path)
    }
}
