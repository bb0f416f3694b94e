//! Bevy's own reflection scenes (`.scn.ron`, `bevy_world_serialization`'s [`DynamicWorld`]) read
//! into a [`SceneDoc`] (feature `import`; `forge import` is its command).
//!
//! What becomes what:
//!
//! | Bevy | scene document |
//! |---|---|
//! | entity | an entity with a fresh id, `1..=n` depth-first: roots by entity index (the order the saved world spawned them; Bevy's writer keeps none), children in `Children` order |
//! | `Name` | `name` (`Entity 3` for an entity without one: its new id) |
//! | `Transform` | `transform`: translation, rotation as XYZ Euler degrees (the inverse of [`TransformData::rotation_quat`](crate::format::TransformData::rotation_quat)), scale |
//! | `ChildOf` / `Children` | `parent` / `children` (a parent outside the world makes a root) |
//! | `Sprite`, `Text2d` + `TextFont` + `TextColor`, `Camera2d`, `Camera3d`, `PointLight`, `DirectionalLight`, `SpotLight`, `Mesh3d` with an asset path, `Visibility` | the built-in components (feature `builtins`) |
//! | any other reflected component that is a struct | a `custom` component, its fields written by [`render_with`] (an `Entity` as `#<new id>`), fields equal to the type's `ReflectDefault` left out |
//!
//! What cannot be mapped is left out and listed in the [`ImportReport`]: resources, types the
//! registry does not know (read past, not an error), components whose values cannot be written
//! as field expressions (maps, handles, an `Entity` outside the world), values a built-in
//! keeps only part of (a sprite's atlas, a light's radius), and a broken hierarchy. Values Bevy
//! computes from others (`GlobalTransform`, `InheritedVisibility`, a camera's `Frustum`, ...)
//! and the components a built-in requires, when at their defaults, are dropped silently.
//!
//! The registry is the game's: [`from_scn_ron`] with the app's `AppTypeRegistry` reads the
//! game's own types. [`builtin_types`] is what `forge import` uses without a game.
//!
//! ```
//! use bevy_forge_scene::import;
//!
//! let text = r#"(
//!   resources: {},
//!   entities: {
//!     4294967295: (
//!       components: {
//!         "bevy_ecs::name::Name": "Player",
//!         "bevy_transform::components::transform::Transform": (
//!           translation: (1.0, 2.0, 0.0),
//!           rotation: (0.0, 0.0, 0.0, 1.0),
//!           scale: (1.0, 1.0, 1.0),
//!         ),
//!       },
//!     ),
//!   },
//! )"#;
//! let imported = import::from_scn_ron(text, &import::builtin_types())?;
//! let player = &imported.doc.entities[&1];
//! assert_eq!(player.name, "Player");
//! assert_eq!(player.transform.translation.y, 2.0);
//! assert!(imported.report.is_empty());
//! # Ok::<(), import::ImportError>(())
//! ```

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use bevy_asset::uuid::Uuid;
use bevy_asset::{AssetPath, LoadFromPath, UntypedHandle};
use bevy_ecs::entity::Entity;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{FromReflect, PartialReflect, ReflectRef, TypeRegistry};
use bevy_world_serialization::{DynamicEntity, DynamicWorld};

mod eras;
mod read;
mod schema;

use super::values::registry::ForgeSchemas;
use crate::format::{
    ComponentData, CustomComponent, CustomField, EntityNode, SceneDoc, TransformData, Vec3Data,
};
use crate::schema::SchemaFile;
use crate::schema::expr::render_with;
use crate::validate::is_type_path;
pub use eras::BevyEra;
use read::Unknown;
use schema::Extras;

/// A world read into a scene document, with what was left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The document: ids `1..=n`, `next_id` `n + 1`, roots in order.
    pub doc: SceneDoc,
    /// What could not be mapped, sorted by entity id.
    pub report: ImportReport,
    /// The Bevy versions the text was written by, as far as it tells (`None` for a world
    /// imported from memory).
    pub era: Option<BevyEra>,
}

/// What an import left out or kept only in part, one [`ImportNote`] each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportReport {
    /// The notes, resources first, then by entity id and type path.
    pub notes: Vec<ImportNote>,
}

impl ImportReport {
    /// Whether everything was mapped.
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// The number of notes.
    pub fn len(&self) -> usize {
        self.notes.len()
    }

    /// The notes about the entity with new id `id`.
    pub fn of_entity(&self, id: u64) -> impl Iterator<Item = &ImportNote> {
        self.notes.iter().filter(move |n| n.entity == Some(id))
    }
}

/// One thing an import left out or kept only in part.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportNote {
    /// The entity's new id; `None` for a resource.
    pub entity: Option<u64>,
    /// The entity's name in the document, when it has one.
    pub entity_name: Option<String>,
    /// The Rust type path of the value (`bevy_sprite::sprite::Sprite`, `my_game::Inventory`).
    pub type_path: String,
    /// What happened to it.
    pub kind: NoteKind,
}

/// What happened to a value an import could not map whole.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoteKind {
    /// A resource: scene documents hold entities only.
    Resource,
    /// A type the registry does not know; its value was read past.
    Unregistered,
    /// A field (or the value itself, `field: None`) cannot be written as a field expression:
    /// a map, a handle, an opaque value, an `Entity` outside the world.
    Unwritable {
        /// The field, `None` when the value as a whole is the problem.
        field: Option<String>,
    },
    /// Not a struct or tuple struct, so it has no fields to write (an enum component).
    NotAStruct,
    /// Its type path cannot be a custom component's (generic arguments, `<`, `>`).
    TypePath,
    /// A built-in keeps only part of it: these fields were dropped.
    Partial {
        /// The built-in tag it became (`sprite`, `point_light`).
        tag: &'static str,
        /// The fields whose values were not kept.
        fields: Vec<String>,
    },
    /// A component a built-in implies (a sprite's `Anchor`, a camera's `Camera`) with values
    /// other than its defaults; dropped, so they are lost.
    Implied {
        /// The built-in that implies it.
        tag: &'static str,
    },
    /// A mesh that is not an asset file (made in code, or a primitive a scene generated); the
    /// format stores primitives by shape, which the mesh does not say.
    MeshWithoutPath,
    /// The entity's parent chain loops; it became a root.
    ParentLoop,
    /// The entity's parent is not in the file (a part of a world was saved): it became a root.
    ParentOutside {
        /// The parent as Bevy names an entity (`40v3`: index v generation).
        parent: String,
    },
    /// Kept as a `custom` component, but its type is not a `ForgeComponent` of the schemas
    /// given ([`ImportOptions::schemas`]): the scene loader refuses it
    /// (`forge::custom::not_allowed`) until the type derives `ForgeComponent`.
    NotForgeComponent,
    /// A field is an asset handle, which a custom field expression cannot hold: the component
    /// was left out. `path` is the asset path the handle names, when the file says it (Bevy
    /// 0.19 on); older eras wrote handles without their path.
    Handle {
        /// The field.
        field: String,
        /// The asset path, when the file has it.
        path: Option<String>,
    },
    /// The file writes the type under an old path (the schema's `renamed_from`): written as
    /// the current one, `to`.
    Renamed {
        /// The current type path.
        to: String,
    },
    /// The file writes a field under an old name (the field's `renamed_from`): written as the
    /// current one.
    RenamedField {
        /// The name the file writes.
        from: String,
        /// The current name.
        to: String,
    },
    /// Read without its type (no registry or schema has it), and `field` (or the value as a
    /// whole, `None`) cannot be written faithfully from the text alone: a list, a nested value,
    /// an enum, or a number that equals an entity key (it may be a reference). Left out;
    /// import with the game's schema file to keep it.
    NeedsType {
        /// The field, `None` when the value as a whole is the problem.
        field: Option<String>,
    },
    /// A schema file was given ([`ImportOptions::schema_file`]) and has no component of this
    /// type path (or an old path of one): not a `ForgeComponent` of the game, so left out.
    NotInSchema,
}

impl fmt::Display for ImportNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.entity, &self.entity_name) {
            (Some(id), Some(name)) => write!(f, "entity {id} (`{}`): ", name.escape_debug())?,
            (Some(id), None) => write!(f, "entity {id}: ")?,
            (None, _) => {}
        }
        let path = &self.type_path;
        match &self.kind {
            NoteKind::Resource => write!(
                f,
                "resource `{path}` not imported (scenes hold entities only)"
            ),
            NoteKind::Unregistered => write!(
                f,
                "`{path}` is not in the type registry; left out (import with the game's registry to keep it)"
            ),
            NoteKind::Unwritable { field: Some(field) } => write!(
                f,
                "`{path}` left out: its field `{field}` cannot be written as a field expression"
            ),
            NoteKind::Unwritable { field: None } => write!(
                f,
                "`{path}` left out: its value cannot be written as field expressions"
            ),
            NoteKind::NotAStruct => write!(
                f,
                "`{path}` left out: only structs can be custom components"
            ),
            NoteKind::TypePath => write!(
                f,
                "`{path}` left out: a custom component's type path has no generic arguments"
            ),
            NoteKind::Partial { tag, fields } => write!(
                f,
                "`{path}` became `{tag}` without {}",
                fields
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            NoteKind::Implied { tag } => write!(
                f,
                "`{path}` left out: `{tag}` brings its default, and this one was changed"
            ),
            NoteKind::MeshWithoutPath => write!(
                f,
                "`{path}` left out: the mesh is not an asset file, and the format stores primitives by shape"
            ),
            NoteKind::ParentLoop => {
                write!(f, "`{path}` loops back to the entity; it became a root")
            }
            NoteKind::ParentOutside { parent } => write!(
                f,
                "`{path}` names entity `{parent}`, which the file does not hold; it became a root"
            ),
            NoteKind::NotForgeComponent => write!(
                f,
                "`{path}` kept as a custom component, but it does not derive `ForgeComponent` (or no schemas were given): the scene loader refuses it until it does"
            ),
            NoteKind::Handle {
                field,
                path: Some(asset),
            } => write!(
                f,
                "`{path}` left out: its field `{field}` is an asset handle (to `{}`), which a custom field cannot hold",
                asset.escape_debug()
            ),
            NoteKind::Handle { field, path: None } => write!(
                f,
                "`{path}` left out: its field `{field}` is an asset handle, which a custom field cannot hold (and the file does not say its asset path)"
            ),
            NoteKind::Renamed { to } => {
                write!(f, "`{path}` was renamed to `{to}`: written as `{to}`")
            }
            NoteKind::RenamedField { from, to } => write!(
                f,
                "`{path}`: field `{from}` was renamed to `{to}`: written as `{to}`"
            ),
            NoteKind::NeedsType { field: Some(field) } => write!(
                f,
                "`{path}` left out: without its type, its field `{field}` cannot be written faithfully (a list, a nested value, an enum, or a number that may be an entity); import with the game's schema file (`--schema`) to keep it"
            ),
            NoteKind::NeedsType { field: None } => write!(
                f,
                "`{path}` left out: without its type, its value cannot be written faithfully; import with the game's schema file (`--schema`) to keep it"
            ),
            NoteKind::NotInSchema => write!(
                f,
                "`{path}` is not in the schema file (not a `ForgeComponent` of the game); left out"
            ),
        }
    }
}

/// Why a world could not be imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The text is not a Bevy world: RON syntax, a missing `entities`, a value that does not
    /// fit its type. `line` and `column` are 1-based, where ron stopped.
    #[error("{}{line}:{column}: {message}", file_prefix(file.as_deref()))]
    Ron {
        /// The file, when read from one.
        file: Option<PathBuf>,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What ron or the reflection deserializer said.
        message: String,
    },
    /// The text is a Bevy scene of an era this importer does not read (Bevy 0.8's list form):
    /// `era` says which; `line` and `column` are where its shape shows.
    #[error("{}{line}:{column}: {message}", file_prefix(file.as_deref()))]
    Era {
        /// The file, when read from one.
        file: Option<PathBuf>,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The Bevy versions that wrote this shape.
        era: BevyEra,
        /// What it is and what to do.
        message: String,
    },
    /// The file could not be read.
    #[error("cannot read `{}`: {message}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The operating system's reason.
        message: String,
    },
    /// Two entities of the world have the same id.
    #[error("entity `{bits}` appears twice")]
    DuplicateEntity {
        /// The entity's bits as the file writes them.
        bits: u64,
    },
}

fn file_prefix(file: Option<&Path>) -> String {
    file.map(|f| format!("{}:", f.display()))
        .unwrap_or_default()
}

impl ImportError {
    /// The 1-based line and column, for errors that have one.
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            ImportError::Ron { line, column, .. } | ImportError::Era { line, column, .. } => {
                Some((*line, *column))
            }
            _ => None,
        }
    }

    fn with_file(mut self, path: &Path) -> Self {
        if let ImportError::Ron { file, .. } | ImportError::Era { file, .. } = &mut self {
            *file = Some(path.to_owned());
        }
        self
    }
}

/// How an import names the scene and which custom components it knows.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The scene's display name (`SceneDoc::name`).
    pub name: String,
    /// The game's [`ForgeSchemas`]: a component whose type is registered there is written with
    /// its scene type path (`forge_demo::Orbit`) and only the fields its schema has; one the
    /// file writes under an old path or with old field names (`renamed_from`) is read by its
    /// schema and written with the current names.
    pub schemas: Option<ForgeSchemas>,
    /// A schema file (`ForgeSchemas::export`, `forge import --schema`): components the type
    /// registry does not know are read by their schema there (by type path, an old path of one,
    /// or a type name only one schema has) and written as `custom` components with the schema's
    /// type path; the game's components it does not have are listed
    /// ([`NoteKind::NotInSchema`]).
    pub schema_file: Option<SchemaFile>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            name: "Imported".to_owned(),
            schemas: None,
            schema_file: None,
        }
    }
}

/// A type registry with the types `forge import` knows without a game: `Name`, `Transform`,
/// `GlobalTransform`, `ChildOf`, `Children`, this crate's entity ids, and with the `builtins`
/// feature the Bevy types of the built-in components and those they bring (`Sprite`, `Text2d`,
/// `TextFont`, `TextColor`, `Camera2d`, `Camera3d`, `Camera`, `Projection`, `PointLight`,
/// `DirectionalLight`, `SpotLight`, `Mesh3d`, `Visibility`, ...).
pub fn builtin_types() -> TypeRegistry {
    let mut registry = TypeRegistry::default();
    registry.register::<Name>();
    registry.register::<bevy_transform::components::Transform>();
    registry.register::<bevy_transform::components::GlobalTransform>();
    registry.register::<ChildOf>();
    registry.register::<Children>();
    registry.register::<super::values::components::ForgeEntityId>();
    registry.register::<super::values::components::ForgeEntityPath>();
    #[cfg(feature = "builtins")]
    {
        use bevy_camera::visibility::{
            InheritedVisibility, ViewVisibility, Visibility, VisibilityClass,
        };
        registry.register::<bevy_sprite::Sprite>();
        registry.register::<bevy_sprite::Anchor>();
        registry.register::<bevy_sprite::Text2d>();
        registry.register::<bevy_text::TextFont>();
        registry.register::<bevy_text::TextColor>();
        registry.register::<bevy_text::TextLayout>();
        registry.register::<bevy_camera::Camera2d>();
        registry.register::<bevy_camera::Camera3d>();
        registry.register::<bevy_camera::Camera>();
        registry.register::<bevy_camera::Projection>();
        registry.register::<bevy_light::PointLight>();
        registry.register::<bevy_light::DirectionalLight>();
        registry.register::<bevy_light::SpotLight>();
        registry.register::<bevy_mesh::Mesh3d>();
        registry.register::<Visibility>();
        registry.register::<InheritedVisibility>();
        registry.register::<ViewVisibility>();
        registry.register::<VisibilityClass>();
    }
    registry
}

/// Reads a Bevy `.scn.ron` world (as `DynamicWorldSerializer` writes it) into a scene document
/// named `Imported`, with `registry`'s types. See [`from_scn_ron_with`].
///
/// # Errors
/// As [`from_scn_ron_with`].
pub fn from_scn_ron(text: &str, registry: &TypeRegistry) -> Result<Imported, ImportError> {
    from_scn_ron_with(text, registry, &ImportOptions::default())
}

/// Reads a Bevy `.scn.ron` world into a scene document (the module docs say what becomes
/// what).
///
/// The text is read with Bevy's reflection deserializer and asset-handle processor, as
/// `bevy_world_serialization`'s `WorldDeserializer` reads it, except that a type missing from
/// `registry` is read past and listed ([`NoteKind::Unregistered`]) instead of failing the whole
/// file. Asset handles keep their paths (a sprite's image, a mesh file); nothing is loaded.
///
/// # Errors
/// [`ImportError::Ron`] with the line and column for text that is not a Bevy world (or holds a
/// value that does not fit its registered type); [`ImportError::DuplicateEntity`].
pub fn from_scn_ron_with(
    text: &str,
    registry: &TypeRegistry,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let mut paths = HandlePaths::default();
    let read = read::read(text, registry, options, &mut paths, derived)?;
    let mut imported = convert(
        &read.world,
        registry,
        options,
        &paths,
        &read.unknown,
        &read.extras,
    )?;
    imported.era = Some(read.era);
    Ok(imported)
}

/// [`from_scn_ron_with`] on the file at `path`; errors name the file.
///
/// # Errors
/// [`ImportError::Io`] when the file cannot be read or is not UTF-8, else as
/// [`from_scn_ron_with`].
pub fn from_scn_ron_file(
    path: impl AsRef<Path>,
    registry: &TypeRegistry,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| ImportError::Io {
        file: path.to_owned(),
        message: e.to_string(),
    })?;
    from_scn_ron_with(&text, registry, options).map_err(|e| e.with_file(path))
}

/// Imports a [`DynamicWorld`] already in memory (built from a live `World`, or read by Bevy's
/// `WorldDeserializer`) into a scene document named `Imported`. See [`from_world_with`].
///
/// # Errors
/// As [`from_world_with`].
pub fn from_world(world: &DynamicWorld, registry: &TypeRegistry) -> Result<Imported, ImportError> {
    from_world_with(world, registry, &ImportOptions::default())
}

/// Imports a [`DynamicWorld`] into a scene document (the module docs say what becomes what).
/// Asset handles give their paths when they have one (strong handles of loaded paths).
///
/// # Errors
/// [`ImportError::DuplicateEntity`] when two entities have the same id.
pub fn from_world_with(
    world: &DynamicWorld,
    registry: &TypeRegistry,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    convert(
        world,
        registry,
        options,
        &HandlePaths::default(),
        &[],
        &Extras::default(),
    )
}

// ---------------------------------------------------------------------------------------------
// Reading: Bevy's world layout, unknown types read past.

/// Gives each handle read from the text a UUID handle and remembers its path, so the import
/// can write the path back without loading anything.
#[derive(Default)]
struct HandlePaths {
    paths: HashMap<Uuid, AssetPath<'static>>,
}

impl LoadFromPath for HandlePaths {
    fn load_from_path_erased(
        &mut self,
        type_id: TypeId,
        path: AssetPath<'static>,
    ) -> UntypedHandle {
        // Deterministic, and never the default handle's UUID (which is all zeros but the top).
        let uuid = Uuid::from_u128(0x1_0000 + self.paths.len() as u128);
        self.paths.insert(uuid, path);
        UntypedHandle::Uuid { type_id, uuid }
    }
}

impl HandlePaths {
    /// The path of a reflected `Handle<A>`: its own for a strong handle, the one it was read
    /// with for a UUID handle made while reading.
    fn path_of(&self, handle: &UntypedHandle) -> Option<String> {
        match handle {
            UntypedHandle::Strong(_) => handle.path().map(ToString::to_string),
            UntypedHandle::Uuid { uuid, .. } => self.paths.get(uuid).map(ToString::to_string),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mapping: a world to a document.

/// Values Bevy computes from others, or this crate's own bookkeeping: dropped without a note.
/// Matched by the last segment of a `bevy_*` type path, so unregistered ones are dropped too.
const COMPUTED: &[&str] = &[
    "GlobalTransform",
    "TransformTreeChanged",
    "InheritedVisibility",
    "ViewVisibility",
    "VisibilityClass",
    "Frustum",
    "VisibleEntities",
    "CubemapFrusta",
    "CubemapVisibleEntities",
    "Cascades",
    "CascadesFrusta",
    "CascadesVisibleEntities",
    "ComputedTextBlock",
    "TextLayoutInfo",
    "Aabb",
    "SyncToRenderWorld",
    "ForgeEntityId",
    "ForgeEntityPath",
];

/// The last segment of a type path, generic arguments left out
/// (`bevy_pbr::MeshMaterial3d<bevy_pbr::StandardMaterial>` is `MeshMaterial3d`).
fn ident(type_path: &str) -> &str {
    let outer = type_path.split('<').next().unwrap_or(type_path);
    outer.rsplit("::").next().unwrap_or(outer)
}

fn is_bevy(type_path: &str) -> bool {
    type_path.starts_with("bevy_")
}

/// Whether Bevy computes values of `type_path` from others (see [`COMPUTED`]): read past.
fn derived(type_path: &str) -> bool {
    is_bevy(type_path) && COMPUTED.contains(&ident(type_path))
}

/// One component of an entity being mapped.
struct Part<'a> {
    value: &'a dyn PartialReflect,
    type_path: &'a str,
    type_id: Option<TypeId>,
    used: bool,
}

fn type_path_of(value: &dyn PartialReflect) -> &str {
    value
        .get_represented_type_info()
        .map_or_else(|| value.reflect_type_path(), |i| i.type_path())
}

fn convert(
    world: &DynamicWorld,
    registry: &TypeRegistry,
    options: &ImportOptions,
    paths: &HandlePaths,
    unknown: &[Unknown],
    extras: &Extras,
) -> Result<Imported, ImportError> {
    let n = world.entities.len();
    let mut index: HashMap<Entity, usize> = HashMap::with_capacity(n);
    for (i, e) in world.entities.iter().enumerate() {
        if index.insert(e.entity, i).is_some() {
            return Err(ImportError::DuplicateEntity {
                bits: e.entity.to_bits(),
            });
        }
    }
    // Parents: `ChildOf` inside the world, else the first entity whose `Children` lists it.
    let mut listed: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut parent: Vec<Option<usize>> = vec![None; n];
    // A parent the file names but does not hold (a part of a running app's world saved).
    let mut outside: Vec<Option<Entity>> = vec![None; n];
    for (i, e) in world.entities.iter().enumerate() {
        if let Some(children) = find(e, TypeId::of::<Children>()) {
            listed[i] = entities_in(children)
                .iter()
                .filter_map(|c| index.get(c).copied())
                .collect();
        }
        let named = find(e, TypeId::of::<ChildOf>()).and_then(|c| entities_in(c).first().copied());
        parent[i] = named.and_then(|p| index.get(&p).copied());
        if parent[i].is_none() {
            outside[i] = named;
        }
    }
    for (p, kids) in listed.iter().enumerate() {
        for &k in kids {
            let has_child_of = find(&world.entities[k], TypeId::of::<ChildOf>()).is_some();
            if parent[k].is_none() && !has_child_of && k != p {
                parent[k] = Some(p);
            }
        }
    }
    // Children: in `Children` order, then the rest that name the parent, in the world's order.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut placed = vec![false; n];
    for (p, kids) in listed.iter().enumerate() {
        for &k in kids {
            if parent[k] == Some(p) && !placed[k] {
                placed[k] = true;
                children[p].push(k);
            }
        }
    }
    // Bevy's writer keeps no order of its own (`DynamicWorldBuilder` extracts into a hash
    // map): the rest go by entity index, the order the saved world spawned them in.
    let mut by_index: Vec<usize> = (0..n).collect();
    by_index.sort_by_key(|&i| {
        let e = world.entities[i].entity;
        (e.index_u32(), e.to_bits())
    });
    for &k in &by_index {
        if let Some(p) = parent[k]
            && !placed[k]
        {
            placed[k] = true;
            children[p].push(k);
        }
    }
    // Ids depth-first; entities in a parent loop become roots where the loop is first met.
    let mut id_of: Vec<u64> = vec![0; n];
    let mut order = Vec::with_capacity(n);
    let mut roots = Vec::new();
    let mut loops = vec![false; n];
    let mut next = 1u64;
    let mut visit = |start: usize, order: &mut Vec<usize>, id_of: &mut Vec<u64>| {
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            if id_of[i] != 0 {
                continue;
            }
            id_of[i] = next;
            next += 1;
            order.push(i);
            stack.extend(children[i].iter().rev().copied());
        }
    };
    for &i in &by_index {
        if parent[i].is_none() {
            roots.push(i);
            visit(i, &mut order, &mut id_of);
        }
    }
    for &i in &by_index {
        if id_of[i] == 0 {
            roots.push(i);
            loops[i] = true;
            parent[i] = None;
            visit(i, &mut order, &mut id_of);
        }
    }
    let ids_by_entity: HashMap<Entity, u64> = world
        .entities
        .iter()
        .enumerate()
        .map(|(i, e)| (e.entity, id_of[i]))
        .collect();
    let forge_paths = forge_type_paths(options.schemas.as_ref());

    let mut doc = SceneDoc::new(options.name.clone());
    let mut notes = Vec::new();
    let mut unknown_of: HashMap<Entity, Vec<&str>> = HashMap::new();
    for (entity, type_path) in unknown {
        match entity {
            Some(e) => unknown_of.entry(*e).or_default().push(type_path),
            None => notes.push(note(None, None, type_path, NoteKind::Resource)),
        }
    }
    for resource in &world.resources {
        notes.push(note(
            None,
            None,
            type_path_of(resource.as_ref()),
            NoteKind::Resource,
        ));
    }
    for &i in &order {
        let e = &world.entities[i];
        let id = id_of[i];
        let name = find(e, TypeId::of::<Name>())
            .and_then(Name::from_reflect)
            .map_or_else(|| format!("Entity {id}"), |n| n.as_str().to_owned());
        let mut node = EntityNode::new(id, name.clone());
        node.parent = parent[i].map(|p| id_of[p]);
        // A loop's entity made a root is no longer its old parent's child.
        node.children = children[i]
            .iter()
            .filter(|&&c| parent[c] == Some(i))
            .map(|&c| id_of[c])
            .collect();
        let mut parts: Vec<Part> = e
            .components
            .iter()
            .map(|c| Part {
                value: c.as_ref(),
                type_path: type_path_of(c.as_ref()),
                type_id: c.get_represented_type_info().map(|i| i.type_id()),
                used: false,
            })
            .collect();
        let mut entity_notes = Vec::new();
        for part in &mut parts {
            let is = |t: TypeId| part.type_id == Some(t);
            if is(TypeId::of::<Name>())
                || is(TypeId::of::<ChildOf>())
                || is(TypeId::of::<Children>())
            {
                part.used = true;
            } else if is(TypeId::of::<bevy_transform::components::Transform>()) {
                if let Some(t) = bevy_transform::components::Transform::from_reflect(part.value) {
                    node.transform = file_transform(&t);
                    part.used = true;
                }
            } else if is_bevy(part.type_path) && COMPUTED.contains(&ident(part.type_path)) {
                part.used = true;
            }
        }
        #[cfg(feature = "builtins")]
        builtins::map(&mut parts, &mut node, paths, registry, &mut entity_notes);
        #[cfg(not(feature = "builtins"))]
        let _ = paths;
        for part in parts.iter_mut().filter(|p| !p.used) {
            part.used = true;
            match custom(
                part,
                registry,
                &forge_paths,
                options.schemas.as_ref(),
                &ids_by_entity,
            ) {
                Ok(c) => {
                    if !part.type_id.is_some_and(|t| forge_paths.contains_key(&t)) {
                        entity_notes.push((part.type_path.to_owned(), NoteKind::NotForgeComponent));
                    }
                    node.components.push(ComponentData::Custom(c));
                }
                Err(kind) => {
                    let kind = handle_note(part.value, kind, paths, registry);
                    entity_notes.push((part.type_path.to_owned(), kind));
                }
            }
        }
        // What was read by schema or without a type.
        extras.map_entity(e.entity, &mut node, &mut entity_notes, &ids_by_entity);
        for type_path in unknown_of.get(&e.entity).into_iter().flatten() {
            if !(is_bevy(type_path) && COMPUTED.contains(&ident(type_path))) {
                entity_notes.push(((*type_path).to_owned(), NoteKind::Unregistered));
            }
        }
        if loops[i] {
            entity_notes.push((
                "bevy_ecs::hierarchy::ChildOf".to_owned(),
                NoteKind::ParentLoop,
            ));
        }
        if let Some(p) = outside[i].filter(|_| parent[i].is_none()) {
            entity_notes.push((
                "bevy_ecs::hierarchy::ChildOf".to_owned(),
                NoteKind::ParentOutside {
                    parent: p.to_string(),
                },
            ));
        }
        entity_notes.sort_by(|a, b| a.0.cmp(&b.0));
        notes.extend(
            entity_notes
                .into_iter()
                .map(|(path, kind)| note(Some(id), Some(&name), &path, kind)),
        );
        doc.entities.insert(id, node);
    }
    doc.roots = roots.iter().map(|&r| id_of[r]).collect();
    doc.next_id = next;
    Ok(Imported {
        doc,
        report: ImportReport { notes },
        era: None,
    })
}

/// The component of type `id` of an entity.
fn find(e: &DynamicEntity, id: TypeId) -> Option<&dyn PartialReflect> {
    e.components
        .iter()
        .find(|c| {
            c.get_represented_type_info()
                .is_some_and(|i| i.type_id() == id)
        })
        .map(|c| c.as_ref())
}

fn note(entity: Option<u64>, name: Option<&str>, type_path: &str, kind: NoteKind) -> ImportNote {
    ImportNote {
        entity,
        entity_name: name.map(str::to_owned),
        type_path: type_path.to_owned(),
        kind,
    }
}

/// The entities a `ChildOf` or `Children` value holds.
fn entities_in(value: &dyn PartialReflect) -> Vec<Entity> {
    let mut out = Vec::new();
    collect_entities(value, &mut out, 0);
    out
}

fn collect_entities(value: &dyn PartialReflect, out: &mut Vec<Entity>, depth: usize) {
    if depth > 4 {
        return;
    }
    if let Some(e) = value.try_downcast_ref::<Entity>() {
        out.push(*e);
        return;
    }
    if value.reflect_type_path() == crate::schema::expr::ENTITY_TYPE_PATH
        && let Some(e) = Entity::from_reflect(value)
    {
        out.push(e);
        return;
    }
    match value.reflect_ref() {
        ReflectRef::TupleStruct(t) => t
            .iter_fields()
            .for_each(|f| collect_entities(f, out, depth + 1)),
        ReflectRef::List(l) => l.iter().for_each(|f| collect_entities(f, out, depth + 1)),
        _ => {}
    }
}

/// A Bevy transform as the file writes it: rotation as XYZ Euler degrees, the shortest that give
/// the rotation back ([`TransformData::rotation_degrees`]); `-0.0` written as `0.0`.
pub fn file_transform(t: &bevy_transform::components::Transform) -> TransformData {
    let v = |v: glam::Vec3| Vec3Data {
        x: v.x + 0.0,
        y: v.y + 0.0,
        z: v.z + 0.0,
    };
    TransformData {
        translation: v(t.translation),
        rotation: TransformData::rotation_degrees(t.rotation),
        scale: v(t.scale),
    }
}

/// The scene type paths of the game's custom component types, by Rust type.
fn forge_type_paths(schemas: Option<&ForgeSchemas>) -> HashMap<TypeId, String> {
    let Some(schemas) = schemas else {
        return HashMap::new();
    };
    schemas
        .type_paths()
        .into_iter()
        .filter_map(|p| schemas.entry(&p).map(|e| (e.type_id, p)))
        .collect()
}

/// [`NoteKind::Handle`] for a field that did not render because it is an asset handle (with
/// its path, when the text or the handle gives one), else `kind`.
fn handle_note(
    value: &dyn PartialReflect,
    kind: NoteKind,
    paths: &HandlePaths,
    registry: &TypeRegistry,
) -> NoteKind {
    let NoteKind::Unwritable { field: Some(field) } = &kind else {
        return kind;
    };
    let field_value = match value.reflect_ref() {
        ReflectRef::Struct(s) => s.field(field),
        ReflectRef::TupleStruct(s) => field.parse().ok().and_then(|i| s.field(i)),
        _ => None,
    };
    let Some(handle) = field_value.and_then(PartialReflect::try_as_reflect) else {
        return kind;
    };
    let Some(reflect) =
        registry.get_type_data::<bevy_asset::ReflectHandle>(handle.reflect_type_info().type_id())
    else {
        return kind;
    };
    NoteKind::Handle {
        field: field.clone(),
        path: reflect
            .downcast_handle_untyped(handle.as_any())
            .and_then(|h| paths.path_of(&h)),
    }
}

/// A component as a `custom` component: its fields rendered, those equal to the type's default
/// left out.
fn custom(
    part: &Part,
    registry: &TypeRegistry,
    forge_paths: &HashMap<TypeId, String>,
    schemas: Option<&ForgeSchemas>,
    ids: &HashMap<Entity, u64>,
) -> Result<CustomComponent, NoteKind> {
    let type_path = part
        .type_id
        .and_then(|t| forge_paths.get(&t).cloned())
        .unwrap_or_else(|| part.type_path.to_owned());
    if !is_type_path(&type_path) {
        return Err(NoteKind::TypePath);
    }
    let schema = schemas.and_then(|s| s.get(&type_path));
    let default = part
        .type_id
        .and_then(|t| registry.get_type_data::<ReflectDefault>(t))
        .map(ReflectDefault::default);
    let fields: Vec<(String, &dyn PartialReflect)> = match part.value.reflect_ref() {
        ReflectRef::Struct(s) => (0..s.field_len())
            .filter_map(|i| Some((s.name_at(i)?.to_owned(), s.field_at(i)?)))
            .collect(),
        ReflectRef::TupleStruct(s) => s
            .iter_fields()
            .enumerate()
            .map(|(i, f)| (i.to_string(), f))
            .collect(),
        _ => return Err(NoteKind::NotAStruct),
    };
    let default_field = |name: &str| -> Option<&dyn PartialReflect> {
        let default = default.as_deref()?;
        match default.reflect_ref() {
            ReflectRef::Struct(s) => s.field(name),
            ReflectRef::TupleStruct(s) => s.field(name.parse().ok()?),
            _ => None,
        }
    };
    let entity = |v: &dyn PartialReflect| {
        let e = Entity::from_reflect(v)?;
        ids.get(&e).map(|id| format!("#{id}"))
    };
    let mut out = CustomComponent {
        type_path: type_path.into(),
        fields: Vec::new(),
    };
    for (name, value) in fields {
        if schema.as_ref().is_some_and(|s| s.field(&name).is_none()) {
            continue; // skipped by the schema (`#[forge(skip)]`)
        }
        if default_field(&name).is_some_and(|d| d.reflect_partial_eq(value) == Some(true)) {
            continue;
        }
        let Some(expr) = render_with(value, &entity) else {
            return Err(NoteKind::Unwritable { field: Some(name) });
        };
        out.fields.push(CustomField::new(name, expr));
    }
    Ok(out)
}

/// The built-in components (feature `builtins`), read by each tag's own `read` in
/// `runtime::builtin`, the same mapping saving a live instance uses.
#[cfg(feature = "builtins")]
mod builtins {
    use std::any::TypeId;

    use bevy_reflect::std_traits::ReflectDefault;
    use bevy_reflect::{FromReflect, PartialReflect, ReflectRef, TypePath, TypeRegistry};

    use super::{HandlePaths, NoteKind, Part, ident, is_bevy};
    use crate::format::EntityNode;
    use crate::runtime::values::builtin::{self, CAMERA_IMPLIED, Parts};

    /// An entity's parts as [`builtin::read`] sees them: taken parts are marked used, what the
    /// file form leaves out becomes a note.
    struct Reading<'p, 'a> {
        parts: &'p mut [Part<'a>],
        paths: &'p HandlePaths,
        notes: &'p mut Vec<(String, NoteKind)>,
    }

    impl Parts for Reading<'_, '_> {
        fn take<T: bevy_ecs::component::Component + FromReflect + TypePath + Clone>(
            &mut self,
        ) -> Option<T> {
            let part = self
                .parts
                .iter_mut()
                .find(|p| !p.used && p.type_id == Some(TypeId::of::<T>()))?;
            let value = T::from_reflect(part.value)?;
            part.used = true;
            Some(value)
        }
        fn path_of(&self, handle: &bevy_asset::UntypedHandle) -> Option<String> {
            self.paths.path_of(handle)
        }
        fn partial<T: PartialReflect + TypePath>(
            &mut self,
            tag: &'static str,
            original: &T,
            kept: &T,
        ) {
            let fields = differing(original, kept);
            if !fields.is_empty() {
                self.notes
                    .push((T::type_path().to_owned(), NoteKind::Partial { tag, fields }));
            }
        }
        fn without_path<T: TypePath>(&mut self) {
            self.notes
                .push((T::type_path().to_owned(), NoteKind::MeshWithoutPath));
        }
    }

    /// The fields of two values of one struct type that differ.
    fn differing(original: &dyn PartialReflect, kept: &dyn PartialReflect) -> Vec<String> {
        let (ReflectRef::Struct(a), ReflectRef::Struct(b)) =
            (original.reflect_ref(), kept.reflect_ref())
        else {
            return if original.reflect_partial_eq(kept) == Some(true) {
                Vec::new()
            } else {
                vec!["0".to_owned()]
            };
        };
        (0..a.field_len())
            .filter_map(|i| {
                let name = a.name_at(i)?;
                let same = b
                    .field(name)
                    .and_then(|f| a.field_at(i)?.reflect_partial_eq(f));
                (same != Some(true)).then(|| name.to_owned())
            })
            .collect()
    }

    /// Maps the built-ins among `parts` into `node`, marking what it used.
    pub(super) fn map(
        parts: &mut [Part],
        node: &mut EntityNode,
        paths: &HandlePaths,
        registry: &TypeRegistry,
        notes: &mut Vec<(String, NoteKind)>,
    ) {
        let mut tags: Vec<&'static str> = Vec::new();
        let mut reading = Reading {
            parts: &mut *parts,
            paths,
            notes: &mut *notes,
        };
        for tag in builtin::TAGS {
            if let Some(c) = builtin::read(&mut reading, tag, None) {
                node.components.push(c);
                tags.push(tag);
            }
        }
        // What the built-ins bring along: dropped, with a note when changed.
        let camera = tags.iter().any(|t| t.starts_with("camera"));
        for part in parts.iter_mut().filter(|p| !p.used && is_bevy(p.type_path)) {
            let name = ident(part.type_path);
            let by = tags
                .iter()
                .find(|t| builtin::implied(t).contains(&name))
                .copied()
                .or_else(|| {
                    (camera && CAMERA_IMPLIED.contains(&name))
                        .then(|| tags.iter().copied().find(|t| t.starts_with("camera")))
                        .flatten()
                });
            let Some(tag) = by else { continue };
            part.used = true;
            // A 2D camera's projection is its own orthographic default, not `Projection`'s.
            let projection = name == "Projection";
            let default = part
                .type_id
                .and_then(|t| registry.get_type_data::<ReflectDefault>(t))
                .map(ReflectDefault::default);
            let changed = !projection
                && default.is_none_or(|d| d.reflect_partial_eq(part.value) != Some(true));
            if changed {
                notes.push((part.type_path.to_owned(), NoteKind::Implied { tag }));
            }
        }
    }
}
