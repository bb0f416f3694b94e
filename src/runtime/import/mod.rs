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
//! keeps only part of (a sprite's atlas, a light's radius), a broken hierarchy, and components
//! whose text does not read as their type ([`NoteKind::Unreadable`], with the field, line and
//! column: each component is read from its own text, so one that does not read never stops
//! the rest of the file). Values Bevy
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
use std::path::{Path, PathBuf};

use bevy_ecs::entity::Entity;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{FromReflect, PartialReflect, ReflectRef, TypeRegistry};
use bevy_world_serialization::{DynamicEntity, DynamicWorld};

#[cfg(feature = "builtins")]
mod builtins;
mod colour;
mod enums;
mod eras;
mod fields;
mod handles;
mod loose;
mod processor;
mod read;
mod report;
mod schema;
mod typed;

use super::values::registry::ForgeSchemas;
use crate::format::{
    ComponentData, CustomComponent, CustomField, EntityNode, SceneDoc, TransformData, Vec3Data,
};
use crate::schema::SchemaFile;
use crate::schema::expr::render_with;
use crate::validate::is_type_path;
use enums::enum_component;
pub use eras::BevyEra;
use handles::{HandlePaths, handle_note};
use read::Unknown;
pub use report::{ImportNote, ImportReport, NoteKind};
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
/// `TextFont`, `TextColor`, `Camera2d`, `Camera3d`, `Camera` (and its `RenderTarget`),
/// `Projection`, `PointLight`,
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
        // What a 0.15-0.16 `Camera`'s `target` became (a camera brings it); it implements
        // `Default` without reflecting it, which tells a target at its default from a changed
        // one.
        registry.register::<bevy_camera::RenderTarget>();
        registry.register_type_data::<bevy_camera::RenderTarget, ReflectDefault>();
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
        // A component left out whole needs no note of the fields it was read without.
        let left_out: Vec<String> = entity_notes
            .iter()
            .filter(|(_, kind)| !kind.keeps())
            .map(|(path, _)| path.clone())
            .collect();
        entity_notes.retain(|(path, kind)| {
            !matches!(kind, NoteKind::RemovedFields { .. }) || !left_out.contains(path)
        });
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
        doc.entities.insert(id, node.into());
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
        // An enum component is written whole (`value`).
        ReflectRef::Enum(_) => return enum_component(&type_path, part.value, ids),
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
        value: None,
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
