//! Saving what changed while playing: a live [`ForgeSceneInstance`] back to a [`SceneDoc`].
//!
//! [`capture_instance`] reads the entities of a spawned scene as they are now and writes the
//! document that would spawn them; [`save_instance`] writes it to a file with the canonical
//! writer, atomically. What is read, entity by entity (the scene's own entities, found through
//! the instance's id map):
//!
//! - **ids**: each entity keeps its file id ([`ForgeEntityId`]); `next_id` is kept, and raised
//!   past the ids given to entities the game added (see [`CaptureOptions::include_added`]).
//! - **hierarchy**: the live `ChildOf`/`Children` tree under the [`ForgeSceneRoot`] entity, in
//!   `Children` order. An entity the game despawned or moved out of the instance is left out.
//! - **name** from `Name`; **transform** from `Transform`, rotation as XYZ Euler degrees
//!   ([`TransformData::rotation_degrees`]). A transform the game did not change keeps the file's
//!   spelling.
//! - **built-ins** from their Bevy components (the inverse of what spawning
//!   inserts). A `mesh3d`'s mesh and material come from the scene (a
//!   primitive mesh is a sub-asset of it), or, for a mesh the game added, from its asset path
//!   with the default material. `visibility` is written when the scene wrote it or the live value
//!   is not `Inherited`. Without the `builtins` feature the scene's built-ins are kept as written.
//! - **custom components** through reflection: every field the scene wrote (its expression kept
//!   verbatim while the live value is still the one it spawned), then every other field whose
//!   live value differs from the type's `Default`, in the schema's order; entity references as
//!   `#7` or `#7/2` ([`ForgeSceneInstance::path_of`]). `ForgeComponent`s the game inserted are
//!   captured the same way; one that was removed is left out.
//! - **prefab instances**: an entity that places a prefab keeps its `instance` (scene and
//!   overrides) as the scene wrote it; the entities the prefab placed are not captured (the
//!   prefab file is their source), so a runtime change to one of them is not saved.
//! - **streamed cells** (instances with `streaming`): kept as written whether they are in or
//!   out (their `instance`, radii included; what they place is the prefab's, as above). A
//!   component with entity references that is held back because an entity it names is in a
//!   cell that is out is written as the scene wrote it.
//!
//! What cannot be written (a field whose value no expression spells, such as a map or a handle;
//! an entity reference to an entity outside the instance) is left out and listed in
//! [`Captured::skipped`].

use std::path::Path;

use bevy_asset::Assets;
use bevy_ecs::entity::Entity;
use bevy_ecs::hierarchy::Children;
use bevy_ecs::name::Name;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy_ecs::world::{EntityRef, World};
use bevy_platform::collections::HashMap;
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{PartialReflect, Reflect, ReflectRef, TypeRegistry};
use bevy_transform::components::Transform;

use crate::format::{
    ComponentData, CustomComponent, CustomField, EntityNode, SceneDoc, TransformData,
};
use crate::runtime::asset::scene::ForgeScene;
use crate::runtime::instance::{ForgeSceneInstance, ForgeSceneRoot, HeldBack};
use crate::runtime::values::components::{ForgeEntityId, bevy_transform_of};
use crate::runtime::values::registry::ForgeSchemas;

/// What [`capture_instance`] includes beyond the scene's own entities.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CaptureOptions {
    /// Also capture entities the game spawned under the instance's entities (children without a
    /// [`ForgeEntityId`]), with fresh ids from the scene's `next_id`, their `Name` (or
    /// `Entity <id>`), `Transform`, built-ins and `ForgeComponent`s. Off by default: games parent
    /// effects and other transient entities to scene entities.
    pub include_added: bool,
}

/// A captured instance: the document, and what could not be written into it.
#[derive(Debug, Clone)]
pub struct Captured {
    /// The document that spawns the instance as it is now.
    pub doc: SceneDoc,
    /// One line per value left out: `entity 4 ("Door"): Gate.opened_by: ...`.
    pub skipped: Vec<String>,
}

/// Why an instance could not be captured or saved.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The entity has no [`ForgeSceneInstance`]: it is not a [`ForgeSceneRoot`] whose scene has
    /// spawned.
    #[error(
        "entity {0} is not a spawned scene: it has no ForgeSceneInstance (spawn a ForgeSceneRoot and wait for ForgeSceneReady)"
    )]
    NotAnInstance(Entity),
    /// The instance's scene asset is no longer loaded.
    #[error("the scene of instance {0} is not loaded")]
    SceneNotLoaded(Entity),
    /// The file could not be written; the file on disk is unchanged.
    #[error(transparent)]
    Write(#[from] crate::project::ProjectError),
    /// The existing scene file could not be changed in place; it is unchanged.
    #[error(transparent)]
    Edit(#[from] crate::edit::SceneEditError),
}

/// Reads the live instance on `root` (an entity with a [`ForgeSceneRoot`] that has spawned)
/// back into a [`SceneDoc`]: what the module docs list. A scene spawned and captured without
/// changes gives back its document as read (the file, before the canonical writer's layout).
///
/// # Errors
/// [`CaptureError::NotAnInstance`] when `root` has not spawned a scene;
/// [`CaptureError::SceneNotLoaded`] when its scene asset is gone.
pub fn capture_instance(
    world: &World,
    root: Entity,
    options: &CaptureOptions,
) -> Result<Captured, CaptureError> {
    let instance = world
        .get::<ForgeSceneInstance>(root)
        .ok_or(CaptureError::NotAnInstance(root))?;
    let scene = world
        .get_resource::<Assets<ForgeScene>>()
        .and_then(|assets| assets.get(instance.scene()))
        .ok_or(CaptureError::SceneNotLoaded(root))?;
    let registry = world.get_resource::<AppTypeRegistry>().cloned();
    let schemas = world.get_resource::<ForgeSchemas>().cloned();
    let registry_guard = registry.as_ref().map(|r| r.read());
    let mut capture = Capture {
        world,
        instance,
        scene,
        registry: registry_guard.as_deref(),
        schemas: schemas.as_ref(),
        added: HashMap::default(),
        skipped: Vec::new(),
        next_id: scene.doc().next_id,
        held: world.get::<HeldBack>(root),
    };
    let base = scene.doc();
    let mut doc = SceneDoc {
        format_version: base.format_version,
        name: base.name.clone(),
        entities: Default::default(),
        roots: Vec::new(),
        next_id: base.next_id,
        layers: base.layers.clone(),
    };
    // Ids for the game's entities first: references to them can then be written.
    if options.include_added {
        capture.number_added(root);
    }
    doc.roots = capture.children(root, None, &mut doc);
    doc.next_id = capture.next_id;
    // The scene's own entities in its file order (a small diff in version control), then the
    // game's in the order they were found.
    let order = |id: &u64| base.entities.get_index_of(id).unwrap_or(usize::MAX);
    doc.entities.sort_by(|a, _, b, _| order(a).cmp(&order(b)));
    Ok(Captured {
        doc,
        skipped: capture.skipped,
    })
}

/// [`capture_instance`], then writes the document to `path`, atomically (the old file stays
/// whole if writing fails). When `path` is a scene file already, it is changed through the edit
/// layer ([`SceneEdit`](crate::edit::SceneEdit)): only what differs is rewritten, and its
/// comments and layout stay. A new file is written with the canonical writer. An existing file
/// that does not read as a scene is refused and left as it is.
///
/// # Errors
/// As [`capture_instance`]; [`CaptureError::Write`] naming the file when it cannot be written;
/// [`CaptureError::Edit`] when the existing file does not read as a scene or cannot be changed
/// in place (it is then unchanged).
pub fn save_instance(
    world: &World,
    root: Entity,
    path: impl AsRef<Path>,
    options: &CaptureOptions,
) -> Result<Captured, CaptureError> {
    use crate::edit::SceneEdit;
    let path = path.as_ref();
    let captured = capture_instance(world, root, options)?;
    // An existing file that does not read as a scene (a half-typed edit, another file) is the
    // author's work: refused, never replaced.
    let edit = if path.exists() {
        Some(SceneEdit::open(path).map_err(CaptureError::Edit)?)
    } else {
        None
    };
    match edit {
        Some(mut edit) => {
            edit.change("save from play", |doc| {
                *doc = captured.doc.clone();
                Ok(())
            })?;
        }
        None => {
            crate::project::write_file_atomic(path, captured.doc.to_canonical_string().as_bytes())?
        }
    }
    Ok(captured)
}

/// One spawned entity of an instance as the files say it (its node in the scene's spawned
/// document: overrides applied) and as it is live, read back as [`capture_instance`] reads the
/// scene's own entities (only the components the files name; none the game added).
pub(crate) struct LiveNode<'w> {
    /// Its key in the spawned document.
    pub(crate) key: u64,
    /// The node the files make.
    pub(crate) file: &'w EntityNode,
    /// The live entity, read back.
    pub(crate) live: EntityNode,
}

/// Every live entity of the instance on `root` as [`LiveNode`]s, in the spawned document's
/// order (the file's, prefab entities after the instance that places them); `only` limits it
/// to those keys. An entity that is not live (despawned, or in a streamed cell that is out) is
/// left out.
///
/// # Errors
/// As [`capture_instance`].
pub(crate) fn live_nodes<'w>(
    world: &'w World,
    root: Entity,
    only: Option<&[u64]>,
) -> Result<Vec<LiveNode<'w>>, CaptureError> {
    let instance = world
        .get::<ForgeSceneInstance>(root)
        .ok_or(CaptureError::NotAnInstance(root))?;
    let scene = world
        .get_resource::<Assets<ForgeScene>>()
        .and_then(|assets| assets.get(instance.scene()))
        .ok_or(CaptureError::SceneNotLoaded(root))?;
    let registry = world.get_resource::<AppTypeRegistry>();
    let registry_guard = registry.map(|r| r.read());
    let mut capture = Capture {
        world,
        instance,
        scene,
        registry: registry_guard.as_deref(),
        schemas: world.get_resource::<ForgeSchemas>(),
        added: HashMap::default(),
        skipped: Vec::new(),
        next_id: scene.doc().next_id,
        held: world.get::<HeldBack>(root),
    };
    let doc = scene.spawn_doc();
    let mut out = Vec::new();
    let mut one = |key: u64, file: &'w EntityNode, capture: &mut Capture<'_>| {
        let Some(live) = instance.by_key(key).and_then(|e| world.get_entity(e).ok()) else {
            return;
        };
        let live = capture.own_parts(live, file);
        out.push(LiveNode { key, file, live });
    };
    match only {
        Some(keys) => {
            for key in keys {
                if let Some(file) = doc.entities.get(key) {
                    one(*key, file, &mut capture);
                }
            }
        }
        None => {
            for (key, file) in &doc.entities {
                one(*key, file, &mut capture);
            }
        }
    }
    Ok(out)
}

struct Capture<'w> {
    world: &'w World,
    instance: &'w ForgeSceneInstance,
    scene: &'w ForgeScene,
    registry: Option<&'w TypeRegistry>,
    schemas: Option<&'w ForgeSchemas>,
    /// The ids given to entities the game added.
    added: HashMap<Entity, u64>,
    skipped: Vec<String>,
    next_id: u64,
    /// What the root's instance holds back, when its scene has streamed cells: components held
    /// back while a cell they name is out are kept as written.
    held: Option<&'w HeldBack>,
}

impl<'w> Capture<'w> {
    /// The scene's own entity for live `entity`: its id, when it is one.
    fn own_id(&self, entity: Entity) -> Option<u64> {
        let id = self.instance.id_of(entity)?;
        self.scene.doc().entities.contains_key(&id).then_some(id)
    }

    fn children_of(&self, entity: Entity) -> &'w [Entity] {
        let world: &'w World = self.world;
        world.get::<Children>(entity).map_or(&[][..], |c| &c[..])
    }

    /// Gives fresh ids to the entities the game added under the instance, depth first.
    fn number_added(&mut self, entity: Entity) {
        for &child in self.children_of(entity) {
            let Ok(child_ref) = self.world.get_entity(child) else {
                continue;
            };
            if self.own_id(child).is_some() {
                self.number_added(child);
            } else if !child_ref.contains::<ForgeEntityId>()
                && !child_ref.contains::<ForgeSceneRoot>()
            {
                self.added.insert(child, self.next_id);
                self.next_id += 1;
                self.number_added(child);
            }
        }
    }

    /// The scene's own entities below `entity` (a prefab entity or a model node, not the
    /// scene's), captured as children of the instance entity `id`: an override placed them.
    fn placed_below(&mut self, entity: Entity, id: u64, doc: &mut SceneDoc) {
        for &child in self.children_of(entity) {
            if self.own_id(child).is_some() {
                self.children_in(&[child], Some(id), doc);
            } else if !self.added.contains_key(&child) {
                self.placed_below(child, id, doc);
            }
        }
    }

    /// Captures the children of live `entity` into `doc`, returning their ids in order.
    fn children(&mut self, entity: Entity, parent: Option<u64>, doc: &mut SceneDoc) -> Vec<u64> {
        let children = self.children_of(entity);
        self.children_in(children, parent, doc)
    }

    /// Captures the live entities `children` (of the entity of id `parent`) into `doc`,
    /// returning the ids of those that are the scene's or the game's, in order.
    fn children_in(
        &mut self,
        children: &[Entity],
        parent: Option<u64>,
        doc: &mut SceneDoc,
    ) -> Vec<u64> {
        let mut ids = Vec::new();
        for &child in children {
            let Ok(child_ref) = self.world.get_entity(child) else {
                continue;
            };
            let scene = self.scene;
            let node = if let Some(base) = self.own_id(child).and_then(|id| scene.doc().entity(id))
            {
                self.own(child_ref, base)
            } else if let Some(&id) = self.added.get(&child) {
                self.added_node(child_ref, id)
            } else {
                continue;
            };
            let mut node = node;
            node.parent = parent;
            let id = node.id;
            // Reserve the slot first: children come after their parent in file order.
            doc.entities.insert(id, node.into());
            let children = if doc.entities[&id].instance.is_some() {
                // What the prefab placed is the prefab's; the game's own children still count.
                self.children_added_only(child, id, doc)
            } else {
                self.children(child, Some(id), doc)
            };
            if let Some(node) = doc.entities.get_mut(&id).map(std::sync::Arc::make_mut) {
                node.children = children;
            }
            ids.push(id);
        }
        ids
    }

    /// The children of an instance entity that are not the prefab's (or the model's): the
    /// scene's own and the game's, when included. The scene's entities an override placed under
    /// a prefab entity or a model node are captured too, as the instance entity's (the override
    /// places them).
    fn children_added_only(&mut self, entity: Entity, id: u64, doc: &mut SceneDoc) -> Vec<u64> {
        let mut ids = Vec::new();
        for &child in self.children_of(entity) {
            if self.own_id(child).is_some() {
                let mut own = self.children_in(&[child], Some(id), doc);
                let placed = |c: &u64| {
                    doc.entities[&id]
                        .instance
                        .as_ref()
                        .is_some_and(|i| i.overrides.iter().any(|o| o.children.contains(c)))
                };
                own.retain(|c| !placed(c));
                ids.extend(own);
                continue;
            }
            let Some(&child_id) = self.added.get(&child) else {
                self.placed_below(child, id, doc);
                continue;
            };
            let Ok(child_ref) = self.world.get_entity(child) else {
                continue;
            };
            let mut node = self.added_node(child_ref, child_id);
            node.parent = Some(id);
            doc.entities.insert(child_id, node.into());
            let children = self.children(child, Some(child_id), doc);
            if let Some(node) = doc
                .entities
                .get_mut(&child_id)
                .map(std::sync::Arc::make_mut)
            {
                node.children = children;
            }
            ids.push(child_id);
        }
        ids
    }

    /// One of the scene's own entities, as it is now.
    fn own(&mut self, live: EntityRef, base: &EntityNode) -> EntityNode {
        let mut node = self.own_parts(live, base);
        self.new_components(live, &mut node);
        node
    }

    /// The parts of `base` (a node of the spawned document), read from `live` as it is now:
    /// name, transform and the components `base` has.
    fn own_parts(&mut self, live: EntityRef, base: &EntityNode) -> EntityNode {
        let scene = self.scene;
        let mut node = EntityNode::new(base.id, base.name.clone());
        if let Some(name) = live.get::<Name>() {
            node.name = name.as_str().into();
        }
        node.transform = live
            .get::<Transform>()
            .map_or(base.transform, |t| transform_of(t, Some(&base.transform)));
        node.locked = base.locked;
        node.instance = base.instance.clone();
        let index = scene.spawn_doc().entities.get_index_of(&base.id);
        for component in &base.components {
            match component {
                ComponentData::Custom(custom) => {
                    let who = (base.id, base.name.as_str());
                    if let Some(c) = self.custom(live, who, Some(custom), &custom.type_path, index)
                    {
                        node.components.push(ComponentData::Custom(c));
                    } else if self.held.is_some_and(|h| h.holds_references(base.id)) {
                        // Held back while the cell it names is out: as written.
                        node.components.push(component.clone());
                    }
                }
                builtin => {
                    if let Some(c) = read_builtin(live, builtin.tag(), Some(builtin)) {
                        node.components.push(c);
                    }
                }
            }
        }
        node
    }

    /// An entity the game added, with fresh id `id`.
    fn added_node(&mut self, live: EntityRef, id: u64) -> EntityNode {
        let name = live
            .get::<Name>()
            .map_or_else(|| format!("Entity {id}"), |n| n.as_str().to_owned());
        let mut node = EntityNode::new(id, name);
        node.transform = live
            .get::<Transform>()
            .map_or(TransformData::IDENTITY, |t| transform_of(t, None));
        self.new_components(live, &mut node);
        node
    }

    /// Built-ins and `ForgeComponent`s on `live` that `node` does not have yet.
    fn new_components(&mut self, live: EntityRef, node: &mut EntityNode) {
        for b in crate::format::builtin::BUILTINS {
            let tag = &b.tag;
            if node.components.iter().any(|c| c.tag() == *tag) {
                continue;
            }
            if let Some(c) = read_builtin(live, tag, None) {
                node.components.push(c);
            }
        }
        let Some(schemas) = self.schemas else {
            return;
        };
        for type_path in schemas.type_paths() {
            let written = node.components.iter().any(|c| match c {
                ComponentData::Custom(c) => {
                    c.type_path == type_path
                        || crate::runtime::values::custom::resolve_in_world(
                            self.world,
                            &c.type_path,
                        )
                        .is_some_and(|(path, _)| path == type_path)
                }
                _ => false,
            });
            if written {
                continue;
            }
            if let Some(c) =
                self.custom(live, (node.id, node.name.as_str()), None, &type_path, None)
            {
                node.components.push(ComponentData::Custom(c));
            }
        }
    }

    /// The custom component `type_path` of `live`, if it has it: the fields `written` wrote (kept
    /// verbatim while unchanged), then every other field that differs from the default.
    fn custom(
        &mut self,
        live: EntityRef,
        who: (u64, &str),
        written: Option<&CustomComponent>,
        type_path: &str,
        index: Option<usize>,
    ) -> Option<CustomComponent> {
        let registry = self.registry?;
        let (canonical, type_id) =
            crate::runtime::values::custom::resolve_in_world(self.world, type_path)?;
        let registration = registry.get(type_id)?;
        let value = registration.data::<ReflectComponent>()?.reflect(live)?;
        let default = registration.data::<ReflectDefault>().map(|d| d.default());
        if let ReflectRef::Enum(_) = value.reflect_ref() {
            let default = default.as_deref().map(|d| d.as_partial_reflect());
            return self.custom_enum(
                value.as_partial_reflect(),
                who,
                written,
                &canonical,
                index,
                default,
            );
        }
        let Some(fields) = named_fields(value.as_partial_reflect()) else {
            // Schemas describe structs, tuple structs and enums; anything else is kept as
            // written.
            return written.cloned();
        };
        let mut out = CustomComponent {
            type_path: written.map_or_else(|| canonical.as_str().into(), |w| w.type_path.clone()),
            fields: Vec::new(),
            value: None,
        };
        // The value the scene spawned, references resolved to this instance's entities.
        let prepared = index.and_then(|i| self.scene.custom.entity(i).find(&canonical));
        let instance = self.instance;
        let live_of = |key: u64| instance.by_key(key);
        let mut unchanged = vec![false; written.map_or(0, |w| w.fields.len())];
        if let (Some(w), Some(p)) = (written, prepared) {
            p.with_value(&live_of, |spawned: &dyn Reflect| {
                let Some(spawned) = named_fields(spawned.as_partial_reflect()) else {
                    return;
                };
                for (slot, field) in unchanged.iter_mut().zip(&w.fields) {
                    *slot = matches!(
                        (field_of(&spawned, &field.name), field_of(&fields, &field.name)),
                        (Some(a), Some(b)) if a.reflect_partial_eq(b) == Some(true)
                    );
                }
            });
        }
        let default_fields = default
            .as_deref()
            .and_then(|d| named_fields(d.as_partial_reflect()));
        // The fields the scene wrote, in its order.
        for (field, same) in written
            .map_or(&[][..], |w| &w.fields[..])
            .iter()
            .zip(unchanged)
        {
            let Some(now) = field_of(&fields, &field.name) else {
                continue;
            };
            if same {
                out.fields.push(field.clone());
            } else if let Some(expr) = self.render(now, who, type_path, &field.name) {
                out.fields.push(CustomField::new(field.name.clone(), expr));
            }
        }
        // Then the others that differ from the default, in declaration (schema) order.
        for (name, now) in &fields {
            let (name, now) = (name.as_str(), *now);
            if written.is_some_and(|w| w.fields.iter().any(|f| f.name == name)) {
                continue;
            }
            let is_default = default_fields
                .as_ref()
                .and_then(|d| field_of(d, name))
                .and_then(|d| d.reflect_partial_eq(now))
                == Some(true);
            if is_default {
                continue;
            }
            if let Some(expr) = self.render(now, who, type_path, name) {
                out.fields.push(CustomField::new(name, expr));
            }
        }
        Some(out)
    }

    /// An enum component's live `value` as the file writes it (`value: "RigidBody::Static"`):
    /// what `written` wrote, kept verbatim, while the value is still what the scene spawned
    /// (the `Default` for a component that wrote no value); else the live value rendered.
    fn custom_enum(
        &mut self,
        value: &dyn PartialReflect,
        who: (u64, &str),
        written: Option<&CustomComponent>,
        canonical: &str,
        index: Option<usize>,
        default: Option<&dyn PartialReflect>,
    ) -> Option<CustomComponent> {
        let prepared = index.and_then(|i| self.scene.custom.entity(i).find(canonical));
        let instance = self.instance;
        let live_of = |key: u64| instance.by_key(key);
        let same = |other: &dyn PartialReflect| value.reflect_partial_eq(other) == Some(true);
        let unchanged = match (written, prepared) {
            (Some(_), Some(p)) => p
                .with_value(&live_of, |spawned: &dyn Reflect| {
                    same(spawned.as_partial_reflect())
                })
                .unwrap_or(false),
            _ => false,
        };
        if unchanged {
            return written.cloned();
        }
        let type_path = written.map_or_else(|| canonical.into(), |w| w.type_path.clone());
        // The `Default` needs no `value` (a component added in play, or set back to it).
        let value = if default.is_some_and(same) && written.is_none_or(|w| w.value.is_none()) {
            None
        } else {
            // Not writable (a reference outside the instance): what the file wrote stays.
            match self.render(value, who, canonical, "value") {
                Some(text) => Some(text.into()),
                None => return written.cloned(),
            }
        };
        Some(CustomComponent {
            type_path,
            fields: Vec::new(),
            value,
        })
    }

    /// `value` as a field expression, entity references as id paths; `None` (and a line in
    /// `skipped`) when no expression spells it.
    fn render(
        &mut self,
        value: &dyn PartialReflect,
        (id, name): (u64, &str),
        type_path: &str,
        field: &str,
    ) -> Option<String> {
        let instance = self.instance;
        let added = &self.added;
        let reference = |value: &dyn PartialReflect| {
            let entity = value.try_downcast_ref::<Entity>()?;
            let path = match added.get(entity) {
                Some(id) => vec![*id],
                None => instance.path_of(*entity)?.0,
            };
            let parts: Vec<String> = path.iter().map(u64::to_string).collect();
            Some(format!("#{}", parts.join("/")))
        };
        let text = crate::schema::expr::render_with(value, &reference);
        if text.is_none() {
            self.skipped.push(format!(
                "entity {} ({:?}): {type_path}.{field}: no field expression writes this value (a map, a handle, or a reference to an entity outside the instance)",
                id, name
            ));
        }
        text
    }
}

/// The fields of a struct (by name) or tuple struct (`0`, `1`, ...), in declaration order.
fn named_fields(value: &dyn PartialReflect) -> Option<Vec<(String, &dyn PartialReflect)>> {
    match value.reflect_ref() {
        ReflectRef::Struct(s) => Some(
            s.iter_fields()
                .map(|(name, v)| (name.to_owned(), v))
                .collect(),
        ),
        ReflectRef::TupleStruct(t) => Some(
            t.iter_fields()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
        ),
        _ => None,
    }
}

fn field_of<'a>(
    fields: &[(String, &'a dyn PartialReflect)],
    name: &str,
) -> Option<&'a dyn PartialReflect> {
    fields.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
}

/// The file transform of live `t`: `base` itself when `t` is what `base` spawns, else read
/// back, keeping `base`'s rotation spelling when the rotation did not change.
fn transform_of(t: &Transform, base: Option<&TransformData>) -> TransformData {
    if let Some(base) = base
        && bevy_transform_of(base) == *t
    {
        return *base;
    }
    let rotation = match base {
        Some(base) if base.rotation_quat() == t.rotation => base.rotation,
        _ => TransformData::rotation_degrees(t.rotation),
    };
    TransformData {
        translation: t.translation.into(),
        rotation,
        scale: t.scale.into(),
    }
}

/// A built-in read back from its Bevy components, or kept as written without the `builtins`
/// feature.
fn read_builtin(live: EntityRef, tag: &str, base: Option<&ComponentData>) -> Option<ComponentData> {
    crate::runtime::values::builtin::read_entity(live, tag, base)
}
