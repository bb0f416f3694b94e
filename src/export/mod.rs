//! A scene as Rust source: [`to_rust`] writes a function that spawns the scene into a `World`
//! with plain Bevy calls, [`to_bsn`] a function that returns it as a `bsn_list!` of
//! `bevy_scene` 0.20.1. Both spawn what [`ForgeScenePlugin`](crate::ForgeScenePlugin) spawns from
//! the file:
//!
//! - every entity with its `Name` and its `Transform` (the rotation's Euler degrees converted with
//!   `Quat::from_euler(EulerRot::XYZ, f32::to_radians(x), ..)`, the call the loader makes, so the
//!   quaternion is the same to the bit; a zero angle is written `0.0`, and the rotation is left
//!   out only where that quaternion is `Quat::IDENTITY` to the bit, which a rotation of zeros
//!   is not: its `y` is `-0.0`);
//! - the built-ins as their Bevy components, with the values the loader gives them: `Sprite`,
//!   `Text2d` + `TextFont` + `TextColor`, `Camera2d`, `Camera3d`, `PointLight`,
//!   `DirectionalLight`, `Mesh3d` + `MeshMaterial3d<StandardMaterial>` (identical primitive
//!   meshes and identical materials shared, as the loader shares them), `Visibility`;
//! - `Visibility::Inherited` on every entity that has none of its own but something under it
//!   that has one (the loader does the same: Bevy asks it of every parent of something drawn;
//!   every built-in counts, `mesh3d` too, whose `Visibility` `VisibilityPlugin` requires);
//! - custom components as struct literals of their `type_path`, each field's expression
//!   verbatim, the rest from `Default`;
//! - children in file order; entity references (`#7` in field expressions) as the variable that
//!   holds the entity (Rust) or as the entity's `#Name` (BSN).
//!
//! The generated file starts with a comment that says how to call it, and names Bevy's types
//! through `use bevy::prelude::*;`. Custom types are named by their `type_path` as the scene
//! writes it: the module the file goes in must see that path (`forge_demo::Orbit` needs
//! `forge_demo` in scope).
//!
//! A scene that places prefabs is exported expanded ([`expanded_to_rust`], [`expanded_to_bsn`]):
//! the prefab's entities are written out where the instance places them, overrides applied, as
//! the loader spawns them. Variables and `#Name`s of placed entities come from their id paths.
//!
//! A placed glTF model (`instance: Some((model: ..))`) is written with Bevy's own pieces: the
//! instance entity gets `WorldAssetRoot` with a handle to the model's scene, and an observer of
//! `WorldInstanceReady` on it applies the overrides by node path each time Bevy has spawned the
//! model (the format page, "Models", "In exported code"). What cannot be written so is refused
//! with [`ExportError::ModelOverride`].
//!
//! ```
//! use bevy_forge_scene::export::{ExportOptions, to_rust};
//! use bevy_forge_scene::format::SceneDoc;
//!
//! let doc = SceneDoc::from_str(r#"(format_version: 1, name: "Tiny", entities: {
//!     1: (id: 1, name: "Lamp", parent: None, children: [],
//!         transform: (translation: (x: 0.0, y: 2.0, z: 0.0), rotation: (x: 0.0, y: 90.0, z: 0.0),
//!                     scale: (x: 1.0, y: 1.0, z: 1.0)),
//!         components: [(type: point_light, data: (color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0),
//!             intensity: 800.0, range: 20.0, shadows: false))]),
//! }, roots: [1], next_id: 2)"#)?.doc;
//! let code = to_rust(&doc, &ExportOptions::default())?;
//! assert!(code.contains("pub fn spawn_tiny(world: &mut World) -> Vec<Entity>"));
//! assert!(code.contains("f32::to_radians(90.0)"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bsn;
mod exprs;
mod literal;
mod model;
mod names;
mod rust;

use bevy_platform::collections::{HashMap, HashSet};

use crate::format::{
    ComponentData, CustomComponent, EntityNode, MeshSource, PrimitiveShape, SceneDoc,
};
use crate::prefab::ExpandedScene;

pub use names::{bsn_ident, snake_case};

/// What the generated code is called and what its header says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// The file the scene was read from, named in the header comment (`None`: not named).
    pub source: Option<String>,
    /// The generated function's name. `None`: from the scene's name in snake case,
    /// `spawn_<name>` for Rust and `<name>_scene` for BSN ([`snake_case`]).
    pub function: Option<String>,
}

/// Why a scene cannot be exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The forest is broken (a missing child, a cycle, ...): the first problem found.
    #[error("the scene's forest is broken: {0}")]
    Forest(String),
    /// An override of a placed glTF model's node that the generated code cannot write: a `set`
    /// of a field that is not one field of one Bevy component (a `mesh3d`'s material or mesh),
    /// or, in the BSN form, an override that names entities of the scene (`children`, entity
    /// references in its values), which `bsn!` cannot name from the observer that applies it.
    #[error(
        "entity {entity} (`{name}`) places the glTF model `{model}`: the override of node {node} cannot be exported: {why}"
    )]
    ModelOverride {
        /// The instance entity: its id (`7`), or its id path for one a prefab placed (`8/1`).
        entity: String,
        /// The entity's name.
        name: String,
        /// The model it places (`models/house.glb#Scene0`).
        model: String,
        /// The override's node path, as a list (`["House", "Roof"]`).
        node: String,
        /// Why, and what to do instead.
        why: String,
    },
    /// An entity places a prefab, and the scene was given unexpanded.
    #[error(
        "entity {entity} places the prefab `{scene}`: export the expanded scene (`expanded_to_rust`, `expanded_to_bsn`; `forge export` expands it)"
    )]
    Instance {
        /// The instance entity's id.
        entity: u64,
        /// The prefab it places.
        scene: String,
    },
    /// A number that Rust cannot write as a literal (`NaN`, infinite).
    #[error("entity {entity} (`{name}`): {what} is not finite")]
    NonFinite {
        /// The entity: its id (`7`), or its id path for one a prefab placed (`8/1`).
        entity: String,
        /// The entity's name.
        name: String,
        /// Which value (`transform`, `point_light`, ...).
        what: String,
    },
    /// A primitive mesh the loader would skip (a negative size).
    #[error("entity {entity} (`{name}`): the {shape} mesh has a negative size")]
    NegativeSize {
        /// The entity: its id (`7`), or its id path for one a prefab placed (`8/1`).
        entity: String,
        /// The entity's name.
        name: String,
        /// The primitive (`cuboid`, ...).
        shape: String,
    },
    /// A custom component that is not valid Rust: a type path or field name that is not one, or
    /// an expression that does not parse.
    #[error("entity {entity} (`{name}`), `{type_path}`: {message}")]
    Custom {
        /// The entity: its id (`7`), or its id path for one a prefab placed (`8/1`).
        entity: String,
        /// The entity's name.
        name: String,
        /// The component's type path as written.
        type_path: String,
        /// What is wrong, naming the field.
        message: String,
    },
    /// An entity reference that names no entity of the scene.
    #[error(
        "entity {entity} (`{name}`), `{type_path}.{field}`: `{reference}` names no entity of the scene"
    )]
    Dangling {
        /// The entity: its id (`7`), or its id path for one a prefab placed (`8/1`).
        entity: String,
        /// The entity's name.
        name: String,
        /// The component's type path.
        type_path: String,
        /// The field.
        field: String,
        /// The reference as written (`#7/2`).
        reference: String,
    },
    /// [`ExportOptions::function`] is not a Rust identifier.
    #[error("`{0}` is not a Rust function name")]
    Function(String),
    /// An entity reference that `bsn!` 0.20.1 cannot write where it stands: it reads `#Name`
    /// only as a whole field value, inside `Some(..)`, or as a field of a struct literal or
    /// enum variant; not inside `vec![..]`, arrays, tuples or calls.
    #[error(
        "entity {entity} (`{name}`), `{type_path}.{field}`: `{expr}` holds an entity reference that bsn! 0.20.1 cannot write (it reads `#Name` as a field value, in `Some(..)` and in struct or variant fields, not inside `vec![..]`, arrays, tuples or calls); export this scene with `--to rust`"
    )]
    BsnReference {
        /// The entity: its id (`7`), or its id path for one a prefab placed (`8/1`).
        entity: String,
        /// The entity's name.
        name: String,
        /// The component's type path.
        type_path: String,
        /// The field.
        field: String,
        /// The field's expression as written.
        expr: String,
    },
}

/// The Rust source of a function that spawns `doc` into a `World`:
/// `pub fn spawn_<name>(world: &mut World) -> Vec<Entity>`, returning the root entities in
/// `roots` order. The world needs `Assets<Mesh>` and `Assets<StandardMaterial>` when the scene
/// has meshes, and an `AssetServer` when it loads images or mesh files.
///
/// # Errors
/// [`ExportError::Instance`] when an entity places a prefab (use [`expanded_to_rust`]), and
/// every error of a scene that cannot be written as Rust: a broken forest, a non-finite number,
/// a negative primitive size, a custom component that is not Rust, a dangling reference, an
/// [`ExportOptions::function`] that is not an identifier.
pub fn to_rust(doc: &SceneDoc, options: &ExportOptions) -> Result<String, ExportError> {
    let plan = Plan::new(doc, None)?;
    rust::write(&plan, options)
}

/// The Rust source of a function that returns `doc` as a `bevy_scene` 0.20.1 scene list:
/// `pub fn <name>_scene() -> impl SceneList`, spawned with
/// `world.spawn_scene_list(<name>_scene())` (which returns the roots) in an app with
/// `ScenePlugin`.
///
/// Each entity is named with `#Ident` (the entity's name when it is a unique ASCII identifier,
/// else a cleaned one, [`bsn_ident`], followed by `Name("..")` with the real name). Custom
/// types are patched field by field, so they must be `Default + Clone`, or derive
/// `FromTemplate` when a field holds an `Entity` (with `#[template(built_in)]` on
/// `Option<Entity>` and `Vec<Entity>` fields).
///
/// # Errors
/// As [`to_rust`], plus [`ExportError::BsnReference`] for a reference `bsn!` cannot write.
pub fn to_bsn(doc: &SceneDoc, options: &ExportOptions) -> Result<String, ExportError> {
    let plan = Plan::new(doc, None)?;
    bsn::write(&plan, options)
}

/// [`to_rust`] for a scene with its prefab instances expanded ([`crate::prefab::expand`]):
/// placed entities are written where the instances place them, their variables named by
/// their id paths (`e5_2`).
///
/// # Errors
/// As [`to_rust`], without [`ExportError::Instance`].
pub fn expanded_to_rust(
    scene: &ExpandedScene,
    options: &ExportOptions,
) -> Result<String, ExportError> {
    let plan = Plan::new(&scene.doc, Some(scene))?;
    rust::write(&plan, options)
}

/// [`to_bsn`] for a scene with its prefab instances expanded.
///
/// # Errors
/// As [`to_bsn`], without [`ExportError::Instance`].
pub fn expanded_to_bsn(
    scene: &ExpandedScene,
    options: &ExportOptions,
) -> Result<String, ExportError> {
    let plan = Plan::new(&scene.doc, Some(scene))?;
    bsn::write(&plan, options)
}

/// What both writers need: the entities in spawn order, their variable and `#Name` idents,
/// which ones need `Visibility::Inherited`, and the shared meshes and materials.
pub(crate) struct Plan<'a> {
    pub(crate) doc: &'a SceneDoc,
    expanded: Option<&'a ExpandedScene>,
    /// Depth-first from `roots`, each children list in order: parents before children.
    pub(crate) order: Vec<u64>,
    /// Rust variable of each entity (`e7`, `e5_2`).
    pub(crate) vars: HashMap<u64, String>,
    /// `#Name` ident of each entity, unique in the scene.
    pub(crate) idents: HashMap<u64, String>,
    /// Entities without a `Visibility` of their own with one below them.
    pub(crate) inherit_visibility: HashSet<u64>,
    /// Distinct primitive meshes, by first use.
    pub(crate) meshes: Vec<&'a PrimitiveShape>,
    /// Distinct materials, by first use.
    pub(crate) materials: Vec<&'a crate::format::MaterialData>,
    /// The entities that place a glTF model, in spawn order.
    pub(crate) models: Vec<u64>,
    /// The children of each entity that places a model: its own, then the entities its
    /// overrides place under nodes (they spawn under it, and move when the model is there).
    children: HashMap<u64, Vec<u64>>,
}

impl<'a> Plan<'a> {
    fn new(doc: &'a SceneDoc, expanded: Option<&'a ExpandedScene>) -> Result<Self, ExportError> {
        if let Some(problem) = integrity(doc, expanded.is_some()).first() {
            return Err(ExportError::Forest(problem.to_string()));
        }
        let prefab =
            |n: &&std::sync::Arc<EntityNode>| n.instance.as_ref().is_some_and(|i| !i.is_model());
        if let Some(node) = doc.entities.values().find(prefab) {
            let scene = node
                .instance
                .as_ref()
                .map(|i| i.scene.to_string())
                .unwrap_or_default();
            return Err(ExportError::Instance {
                entity: node.id,
                scene,
            });
        }
        let mut children = HashMap::default();
        for (&key, node) in &doc.entities {
            let Some(instance) = node.instance.as_deref().filter(|i| i.is_model()) else {
                continue;
            };
            let mut list = node.children.clone();
            for child in instance.overrides.iter().flat_map(|o| &o.children) {
                if !list.contains(child) {
                    list.push(*child);
                }
            }
            children.insert(key, list);
        }
        let order = depth_first(doc, &children);
        let models = order
            .iter()
            .copied()
            .filter(|k| children.contains_key(k))
            .collect();
        let path = |key: u64| -> Vec<u64> {
            expanded
                .and_then(|e| e.placed_path(key))
                .map_or_else(|| vec![key], <[u64]>::to_vec)
        };
        let mut vars = HashMap::default();
        let mut taken = HashSet::default();
        let mut idents = HashMap::default();
        for &key in &order {
            let p: Vec<String> = path(key).iter().map(u64::to_string).collect();
            vars.insert(key, format!("e{}", p.join("_")));
            let node = &doc.entities[&key];
            idents.insert(key, names::unique_ident(&node.name, &mut taken));
        }
        let mut plan = Plan {
            doc,
            expanded,
            order,
            vars,
            idents,
            inherit_visibility: HashSet::default(),
            meshes: Vec::new(),
            materials: Vec::new(),
            models,
            children,
        };
        plan.check()?;
        plan.share();
        plan.visibility();
        Ok(plan)
    }

    /// The key of the entity a reference's id path names.
    pub(crate) fn resolve(&self, path: &[u64]) -> Option<u64> {
        match self.expanded {
            Some(expanded) => expanded.key(path),
            None => match path {
                [id] => self.doc.entities.contains_key(id).then_some(*id),
                _ => None,
            },
        }
    }

    /// The entity as messages name it: its id, or its id path (`8/1`) when a prefab placed it.
    pub(crate) fn label(&self, key: u64) -> String {
        match self.expanded.and_then(|e| e.placed_path(key)) {
            Some(path) => path
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join("/"),
            None => key.to_string(),
        }
    }

    pub(crate) fn node(&self, key: u64) -> &'a EntityNode {
        &self.doc.entities[&key]
    }

    /// The children of `key` in spawn order: its own, and for an entity that places a model
    /// the entities its overrides place under nodes.
    pub(crate) fn children(&self, key: u64) -> &[u64] {
        match self.children.get(&key) {
            Some(list) => list,
            None => &self.node(key).children,
        }
    }

    /// Refuses what the generated code could not write as the loader spawns it.
    fn check(&self) -> Result<(), ExportError> {
        for &key in &self.order {
            let node = self.node(key);
            let non_finite = |what: &str| ExportError::NonFinite {
                entity: self.label(key),
                name: node.name.to_string(),
                what: what.to_owned(),
            };
            if !node.transform.is_finite() {
                return Err(non_finite("transform"));
            }
            for component in &node.components {
                if !finite(component) {
                    return Err(non_finite(component.tag()));
                }
                if let ComponentData::Mesh3d(m) = component
                    && let MeshSource::Primitive(shape) = &m.mesh
                    && shape.sizes().iter().any(|s| *s < 0.0)
                {
                    return Err(ExportError::NegativeSize {
                        entity: self.label(key),
                        name: node.name.to_string(),
                        shape: shape.name().to_owned(),
                    });
                }
                if let ComponentData::Custom(custom) = component {
                    exprs::check_custom(self, key, custom)?;
                }
            }
        }
        Ok(())
    }

    fn share(&mut self) {
        for &key in &self.order {
            for component in &self.doc.entities[&key].components {
                if let ComponentData::Mesh3d(m) = component {
                    if let MeshSource::Primitive(shape) = &m.mesh
                        && !self.meshes.iter().any(|s| same_shape(s, shape))
                    {
                        self.meshes.push(shape);
                    }
                    if !self.materials.iter().any(|s| same_material(s, &m.material)) {
                        self.materials.push(&m.material);
                    }
                }
            }
        }
    }

    /// The index of `shape` among the shared meshes.
    pub(crate) fn mesh_index(&self, shape: &PrimitiveShape) -> usize {
        self.meshes
            .iter()
            .position(|s| same_shape(s, shape))
            .unwrap_or(0)
    }

    /// The index of `material` among the shared materials.
    pub(crate) fn material_index(&self, material: &crate::format::MaterialData) -> usize {
        self.materials
            .iter()
            .position(|m| same_material(m, material))
            .unwrap_or(0)
    }

    fn visibility(&mut self) {
        // Children after parents in `order`: walk it backwards so each entity knows its subtree.
        let mut below: HashSet<u64> = HashSet::default();
        for &key in self.order.iter().rev() {
            let node = self.node(key);
            // `WorldAssetRoot` requires `Visibility`: a model instance has its own.
            let own =
                node.components.iter().any(brings_visibility) || self.children.contains_key(&key);
            let under = self.children(key).iter().any(|c| below.contains(c));
            if under && !own {
                self.inherit_visibility.insert(key);
            }
            if own || under {
                below.insert(key);
            }
        }
    }

    /// The custom components of `key` that hold entity references, and those that do not.
    pub(crate) fn customs(&self, key: u64) -> (Vec<&'a CustomComponent>, Vec<&'a CustomComponent>) {
        self.node(key)
            .components
            .iter()
            .filter_map(|c| match c {
                ComponentData::Custom(custom) => Some(custom),
                _ => None,
            })
            .partition(|c| exprs::has_references(c))
    }
}

/// The forest problems of `doc`. An expansion lists the entities a model's overrides place
/// under nodes twice, in the instance entity's `children` (where they spawn) and in the
/// overrides (where they go once the model is there): checked as written once.
fn integrity(doc: &SceneDoc, expanded: bool) -> Vec<crate::format::IntegrityProblem> {
    let placed_twice = |n: &EntityNode| {
        n.instance
            .as_deref()
            .is_some_and(|i| i.is_model() && i.overrides.iter().any(|o| !o.children.is_empty()))
    };
    if !expanded || !doc.entities.values().any(|n| placed_twice(n)) {
        return doc.check_integrity();
    }
    let mut once = doc.clone();
    for shared in once.entities.values_mut() {
        if !shared.instance.as_deref().is_some_and(|i| i.is_model()) {
            continue;
        }
        let node = std::sync::Arc::make_mut(shared);
        if let Some(instance) = node.instance.as_deref_mut() {
            for o in &mut instance.overrides {
                o.children.clear();
            }
        }
    }
    once.check_integrity()
}

/// `doc`'s entities depth first from its roots, parents before children, each entity's
/// children as `extra` gives them when it has them (an entity that places a model).
fn depth_first(doc: &SceneDoc, extra: &HashMap<u64, Vec<u64>>) -> Vec<u64> {
    if extra.is_empty() {
        return doc.depth_first();
    }
    let mut out = Vec::with_capacity(doc.entities.len());
    let mut seen = HashSet::with_capacity(doc.entities.len());
    let mut stack: Vec<u64> = doc.roots.iter().rev().copied().collect();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Some(node) = doc.entities.get(&id) else {
            continue;
        };
        out.push(id);
        let children = extra.get(&id).unwrap_or(&node.children);
        stack.extend(children.iter().rev().copied());
    }
    out
}

/// Whether a built-in gives its entity a `Visibility`: its own, or one its Bevy components
/// require (`Mesh3d` through `VisibilityPlugin`, part of `DefaultPlugins`). Custom components
/// are not counted.
fn brings_visibility(component: &ComponentData) -> bool {
    !matches!(component, ComponentData::Custom(_))
}

fn same_shape(a: &PrimitiveShape, b: &PrimitiveShape) -> bool {
    a.name() == b.name()
        && a.sizes()
            .iter()
            .zip(b.sizes())
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

fn same_material(a: &crate::format::MaterialData, b: &crate::format::MaterialData) -> bool {
    a.bits() == b.bits()
}

fn finite(component: &ComponentData) -> bool {
    let Some(b) = component.builtin() else {
        return true;
    };
    (0..b.fields().len())
        .filter_map(|i| (b.get)(component, i))
        .all(|v| v.numbers().iter().all(|(_, n)| n.is_finite()))
}

/// The generated function's name: [`ExportOptions::function`] when it is an identifier, else
/// `default`.
pub(crate) fn function_name(
    options: &ExportOptions,
    default: String,
) -> Result<String, ExportError> {
    match &options.function {
        Some(name) if names::is_ascii_ident(name) => Ok(name.clone()),
        Some(name) => Err(ExportError::Function(name.clone())),
        None => Ok(default),
    }
}

/// The header comment shared by both forms: what made the file and from what.
pub(crate) fn header(plan: &Plan, options: &ExportOptions, to: &str) -> String {
    let from = match &options.source {
        Some(source) => format!(" from `{source}`"),
        None => String::new(),
    };
    let name = plan.doc.name.replace('\n', " ");
    format!(
        "// Generated by `forge export --to {to}`{from} (scene {name:?}), for Bevy 0.20.1.\n// Regenerate it from the scene file rather than editing it.\n"
    )
}

/// The header's note on custom components (empty without them): which paths the file names,
/// and for BSN what the types must implement.
pub(crate) fn custom_note(plan: &Plan, to: &str) -> String {
    let mut out = String::new();
    let mut types: Vec<&str> = Vec::new();
    for &key in &plan.order {
        for component in &plan.node(key).components {
            if let ComponentData::Custom(c) = component
                && !types.contains(&c.type_path.as_str())
            {
                types.push(&c.type_path);
            }
        }
    }
    if !types.is_empty() {
        let list: Vec<String> = types.iter().map(|t| format!("`{t}`")).collect();
        out.push_str(&format!(
            "//\n// Custom components are named as the scene writes them: {}.\n// The module this file goes in must see those paths.\n",
            list.join(", ")
        ));
        if to == "bsn" {
            out.push_str("// `bsn!` patches them field by field: each type is `Default + Clone`, or derives\n// `FromTemplate` when it holds an `Entity` (with `#[template(built_in)]` on `Option<Entity>`\n// and `Vec<Entity>` fields).\n");
        }
    }
    out
}
