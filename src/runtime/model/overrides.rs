//! The overrides of a placed model applied to its nodes by node path, and undone before the
//! next write: `name`, `transform`, `remove`, the values of `add` and `set` (prepared as a
//! scene's are, in a document of their own whose entity references name the placing scene's
//! entities), and `children`.

use bevy_asset::Assets;
use bevy_ecs::hierarchy::Children;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_platform::collections::HashMap;

use super::{ForgeModelNodes, PlacedModel};
use crate::codes;
use crate::format::{ComponentData, EcoString, EntityNode, Override, SceneDoc};
use crate::runtime::asset::scene::ForgeScene;
use crate::runtime::instance::ForgeSceneInstance;
use crate::runtime::values::components::bevy_transform_of;
use crate::runtime::values::{builtin, custom};

/// What the overrides of one write did beyond the model's own values.
#[derive(Default)]
pub(super) struct Applied {
    /// Components an override added that the node did not have.
    added: Vec<(Entity, Added)>,
    /// Scene entities placed under nodes.
    placed: Vec<Entity>,
}

enum Added {
    Builtin(&'static str),
    Custom(String),
    /// A `Name` on an entity the model gives none (Bevy's light entity).
    Name,
}

/// Undoes what the last write's overrides did beyond the model's values: components they
/// added go, scene entities placed under nodes go back under the instance entity.
pub(super) fn undo(world: &mut World, entity: Entity, applied: &mut Applied) {
    for (node, added) in applied.added.drain(..) {
        let Ok(mut e) = world.get_entity_mut(node) else {
            continue;
        };
        match added {
            Added::Builtin(tag) => builtin::remove(&mut e, tag),
            Added::Custom(type_path) => custom::remove(&mut e, &type_path),
            Added::Name => {
                e.remove::<Name>();
            }
        }
    }
    for child in applied.placed.drain(..) {
        if world.get_entity(child).is_ok() && world.get_entity(entity).is_ok() {
            world.entity_mut(entity).add_child(child);
        }
    }
}

/// Applies the overrides the scene now gives the instance of `placed` to `nodes`.
pub(super) fn apply_overrides(
    world: &mut World,
    root: Entity,
    placed: &PlacedModel,
    nodes: &ForgeModelNodes,
) -> Applied {
    let mut applied = Applied::default();
    let overrides: Vec<Override> = world
        .resource::<Assets<ForgeScene>>()
        .get(placed.scene)
        .and_then(|s| s.spawn_doc().entities.get(&placed.key)?.instance.clone())
        .map(|i| i.overrides)
        .unwrap_or_default();
    if overrides.is_empty() {
        return applied;
    }
    // Each override's node, and what its `add` and `set` make: built-ins `set` on the node's
    // own values, the whole value of the rest.
    let mut targets = Vec::with_capacity(overrides.len());
    let mut values: Vec<Vec<ComponentData>> = Vec::with_capacity(overrides.len());
    for (index, o) in overrides.iter().enumerate() {
        let node = nodes.node(&o.node);
        if node.is_none() {
            tracing::warn!(
                "{}: entity {}, override of node {:?}: model `{}` has no such node; the override is kept and applies again if the model gets the node back",
                codes::prefab::UNUSED_OVERRIDE,
                placed.key,
                o.node,
                placed.path
            );
        }
        let mut own = o.add.clone();
        let mut at = HashMap::new();
        for patch in &o.set {
            let Some(node) = node else { break };
            // A whole value (`visibility`) takes nothing of the node's own: set on the node,
            // whether Bevy gave it one (a glTF node's `Visibility::Inherited` reads back as
            // none) or not.
            let whole = patch
                .component
                .builtin()
                .is_some_and(|b| matches!(b.payload, crate::format::builtin::Payload::Mode(_)));
            if whole {
                own.push(patch.component.clone());
            } else if patch.component.builtin().is_some() {
                let tag = patch.component.tag();
                let Some((holder, mut live)) = holder_of(world, node, tag) else {
                    no_component(world, placed, index, o, node, tag, "set");
                    continue;
                };
                patch.apply_to(&mut live);
                own.push(live);
                at.insert(tag, holder);
            } else {
                own.push(patch.component.clone());
            }
        }
        targets.push((node, at));
        values.push(own);
    }
    // Entity references in the values name the placing scene's entities: each becomes a stub
    // entity of the document the values are prepared in, mapped back to its live entity.
    let mut stubs = Vec::new();
    if let Some(scene) = world.resource::<Assets<ForgeScene>>().get(placed.scene) {
        let referable = match scene.expanded() {
            Some(e) => e.referable(),
            None => crate::validate::custom::Referable::own(scene.doc()),
        };
        let base = values.len() as u64;
        for (i, own) in values.iter_mut().enumerate() {
            if let Err(why) = stub_references(own, &referable, base, &mut stubs) {
                tracing::error!(
                    "{}: entity {}, override of node {:?} of model `{}`: {why}; its `add` and `set` are left out",
                    codes::custom::REFERENCE,
                    placed.key,
                    overrides[i].node,
                    placed.path
                );
                own.clear();
            }
        }
    }
    let base = values.len() as u64;
    // All overrides prepared at once; when that fails, each on its own, so one bad value
    // costs only its override's `add` and `set`.
    let prepared: Vec<Option<(std::sync::Arc<ForgeScene>, usize)>> =
        world.resource_scope(|world, scenes: Mut<Assets<ForgeScene>>| {
            let Some(scene) = scenes.get(placed.scene) else {
                return vec![None; values.len()];
            };
            if let Ok(all) = scene.checked_in_memory(world, loose_doc(&values, base, stubs.len())) {
                let all = std::sync::Arc::new(all);
                return (0..values.len()).map(|i| Some((all.clone(), i))).collect();
            }
            values
                .iter()
                .enumerate()
                .map(|(i, one)| {
                    let doc = loose_doc(std::slice::from_ref(one), base, stubs.len());
                    match scene.checked_in_memory(world, doc) {
                        Ok(p) => Some((std::sync::Arc::new(p), 0)),
                        Err(errors) => {
                            for e in errors {
                                tracing::error!(
                                    "entity {}, override of node {:?} of model `{}`: {e}",
                                    placed.key,
                                    overrides[i].node,
                                    placed.path
                                );
                            }
                            None
                        }
                    }
                })
                .collect()
        });
    let instance = world.get::<ForgeSceneInstance>(root);
    // The live entity of each stub (a streamed cell's entity that is out has none).
    let stubbed: Vec<Option<Entity>> = stubs
        .iter()
        .map(|key| instance.and_then(|i| i.by_key(*key)))
        .collect();
    let children: Vec<Vec<Entity>> = overrides
        .iter()
        .map(|o| {
            o.children
                .iter()
                .filter_map(|c| instance.and_then(|i| i.by_key(*c)))
                .collect()
        })
        .collect();
    for (i, (o, (node, at))) in overrides.iter().zip(targets).enumerate() {
        let Some(node) = node else { continue };
        let Ok(mut e) = world.get_entity_mut(node) else {
            continue;
        };
        if let Some(name) = &o.name {
            if !e.contains::<Name>() {
                applied.added.push((node, Added::Name));
            }
            e.insert(Name::new(String::from(name.as_str())));
        }
        if let Some(t) = &o.transform {
            e.insert(bevy_transform_of(t));
        }
        for key in &o.remove {
            if crate::format::builtin::builtin_tag(key).is_some() {
                // Where `set` would reach it: the node, or its light entity.
                match holder_of(e.world(), node, key) {
                    Some((holder, _)) if holder != node => e.world_scope(|world| {
                        if let Ok(mut h) = world.get_entity_mut(holder) {
                            builtin::remove(&mut h, key);
                        }
                    }),
                    Some(_) => builtin::remove(&mut e, key),
                    None => no_component(e.world(), placed, i, o, node, key, "remove"),
                }
            } else if let Some(path) = custom::canonical_path(e.world(), key) {
                custom::remove(&mut e, &path);
            }
        }
        if let Some((prepared, i)) = &prepared[i] {
            let i = *i;
            let before: Vec<&'static str> = prepared
                .prepared
                .entity(i)
                .iter()
                .map(|c| c.tag())
                .filter(|tag| builtin::read_entity(e.as_readonly(), tag, None).is_none())
                .collect();
            for component in prepared.prepared.entity(i) {
                match at.get(component.tag()) {
                    Some(&holder) if holder != node => {
                        e.world_scope(|world| {
                            if let Ok(mut h) = world.get_entity_mut(holder) {
                                builtin::insert_prepared(
                                    &mut h,
                                    component,
                                    placed.scene.untyped(),
                                    &prepared.materials,
                                );
                            }
                        });
                    }
                    _ => {
                        builtin::insert_prepared(
                            &mut e,
                            component,
                            placed.scene.untyped(),
                            &prepared.materials,
                        );
                        if before.contains(&component.tag()) {
                            applied.added.push((node, Added::Builtin(component.tag())));
                        }
                    }
                }
            }
            // A reference names a stub of the values' document: its entity in the scene.
            let live = |k: u64| {
                let stub = k.checked_sub(base + 1)?;
                stubbed.get(usize::try_from(stub).ok()?).copied().flatten()
            };
            for value in prepared.custom.entity(i).iter() {
                let type_path = value.type_path().to_owned();
                let set = o.set.iter().find_map(|p| match &p.component {
                    ComponentData::Custom(c)
                        if custom::canonical_path(e.world(), &c.type_path).as_deref()
                            == Some(type_path.as_str()) =>
                    {
                        Some(c)
                    }
                    _ => None,
                });
                let had = value.is_on(&e);
                match set {
                    Some(c) if had && c.value.is_none() => {
                        let fields: Vec<&str> = c.fields.iter().map(|f| f.name.as_str()).collect();
                        custom::patch_fields(&mut e, value, &fields, placed.key, &live);
                    }
                    _ => custom::insert_one(&mut e, value, placed.key, &live),
                }
                if !had {
                    applied.added.push((node, Added::Custom(type_path)));
                }
            }
        }
        for child in &children[i] {
            if world.get_entity(*child).is_ok() {
                world.entity_mut(node).add_child(*child);
                applied.placed.push(*child);
            }
        }
    }
    applied
}

/// The entity that holds built-in `tag` for the node `node`, with its value in the file form
/// (the format page, "Models"): the node itself (a camera node's camera is on it), or, for a
/// light tag, the node's light entity: the child Bevy 0.20.1's glTF loader spawns for the
/// node's light, named after the light when the file names it (Blender always does: `Point`,
/// `Spot.001`) and unnamed otherwise. A node's children that are nodes never hold a light
/// themselves (their lights are their own children), so the first child with the light is it.
fn holder_of(world: &World, node: Entity, tag: &str) -> Option<(Entity, ComponentData)> {
    if let Some(value) = builtin::read_entity(world.entity(node), tag, None) {
        return Some((node, value));
    }
    if !is_light(tag) {
        return None;
    }
    world.get::<Children>(node)?.iter().find_map(|child| {
        let e = world.get_entity(child).ok()?;
        Some((child, builtin::read_entity(e, tag, None)?))
    })
}

/// Whether built-in `tag` is a light (`point_light`, `spot_light`, `directional_light`).
fn is_light(tag: &str) -> bool {
    crate::format::builtin::builtin_tag(tag)
        .is_some_and(|b| matches!(b.role, crate::format::builtin::Role::Light))
}

/// Warns that override `index` (`o`) of the model placed by `placed` `does` (`set`, `remove`)
/// built-in `tag`, which neither the node `node` nor its light entity has: where the override
/// was written (the scene's own, read from text) and what the node has.
fn no_component(
    world: &World,
    placed: &PlacedModel,
    index: usize,
    o: &Override,
    node: Entity,
    tag: &str,
    does: &str,
) {
    let file = world
        .get_resource::<bevy_asset::AssetServer>()
        .and_then(|s| s.get_path(placed.scene))
        .map_or_else(|| "the scene".to_owned(), |p| p.to_string());
    let at = world
        .resource::<Assets<ForgeScene>>()
        .get(placed.scene)
        .and_then(|s| s.model_override_at(placed.key, index))
        .map_or_else(String::new, |p| format!(":{p}"));
    tracing::warn!(
        "{}: {file}{at}: entity {}, override of node {:?} of model `{}`: `{does}` of `{tag}` finds no `{tag}` on the node or its light entity, and does nothing; {}",
        codes::model::NO_COMPONENT,
        placed.key,
        o.node,
        placed.path,
        what_node_has(world, node)
    );
}

/// The built-in tags entity `entity` has, in the order of the format's list.
fn tags_of(world: &World, entity: Entity) -> Vec<&'static str> {
    let Ok(e) = world.get_entity(entity) else {
        return Vec::new();
    };
    crate::format::builtin::BUILTINS
        .iter()
        .filter(|b| builtin::read_entity(e, b.tag, None).is_some())
        .map(|b| b.tag)
        .collect()
}

/// What built-ins an override's `set` and `remove` reach on node `node`, in words for a
/// warning: the node's own, its light entity's (with its name), and where its mesh's
/// primitives are (their own node paths reach their `mesh3d`).
pub(super) fn what_node_has(world: &World, node: Entity) -> String {
    let mut parts = Vec::new();
    let own = tags_of(world, node);
    if !own.is_empty() {
        parts.push(format!("the node has {}", own.join(", ")));
    }
    let children = world
        .get::<Children>(node)
        .map(|c| c.iter().collect::<Vec<_>>())
        .unwrap_or_default();
    for child in children {
        let tags = tags_of(world, child);
        let name = world.get::<Name>(child).map(|n| n.as_str().to_owned());
        let shown = name.map_or_else(|| "(unnamed)".to_owned(), |n| format!("`{n}`"));
        if tags.iter().any(|t| is_light(t)) {
            parts.push(format!("its light entity {shown} has {}", tags.join(", ")));
        } else if tags.contains(&"mesh3d") {
            parts.push(format!(
                "its mesh primitive {shown} has mesh3d (target it by its own path)"
            ));
        }
    }
    if parts.is_empty() {
        "the node has no built-in component, and no light".to_owned()
    } else {
        parts.join("; ")
    }
}

/// A document of one root entity per override, with the components `values` gives it, and
/// `stubs` entities from id `base + 1` on that the references in them name
/// ([`stub_references`]): what the pipeline checks and prepares as it does a scene's.
fn loose_doc(values: &[Vec<ComponentData>], base: u64, stubs: usize) -> SceneDoc {
    let mut doc = SceneDoc::new("model overrides");
    for (i, components) in values.iter().enumerate() {
        let id = i as u64 + 1;
        let mut node = EntityNode::new(id, format!("override {id}"));
        node.components = components.clone();
        doc.entities.insert(id, node.into());
        doc.roots.push(id);
    }
    for j in 0..stubs as u64 {
        let id = base + 1 + j;
        doc.entities.insert(
            id,
            EntityNode::new(id, format!("reference {}", j + 1)).into(),
        );
        doc.roots.push(id);
    }
    doc.next_id = base + stubs as u64 + 1;
    doc
}

/// Moves the entity references of the custom values `own` (`#7`, `#7/2`, in the placing
/// scene's frame) into the frame of [`loose_doc`]: each entity of the scene they name (its key,
/// found through `referable`) gets a stub, `stubs[j]` standing at id `base + 1 + j`, and the
/// reference names the stub.
///
/// # Errors
/// A reference that names no entity of the scene: what it is and why.
fn stub_references(
    own: &mut [ComponentData],
    referable: &crate::validate::custom::Referable<'_>,
    base: u64,
    stubs: &mut Vec<u64>,
) -> Result<(), String> {
    for component in own {
        let ComponentData::Custom(custom) = component else {
            continue;
        };
        let type_path = custom.type_path.clone();
        let exprs = custom
            .fields
            .iter_mut()
            .map(|f| (f.name.clone(), &mut f.expr))
            .chain(custom.value.as_mut().map(|v| (EcoString::from("value"), v)));
        for (field, expr) in exprs {
            let Some(rewritten) = crate::schema::expr::references(expr) else {
                continue;
            };
            let mut out = String::with_capacity(expr.len());
            let mut from = 0;
            for r in &rewritten.refs {
                let written = &expr[r.at..r.at + r.len];
                let key = match &r.path {
                    Some(path) => referable.find(path),
                    None => Err("an id does not fit in a `u64`".to_owned()),
                }
                .map_err(|why| {
                    format!("`{type_path}.{field}`: entity reference `{written}`: {why}")
                })?;
                let stub = match stubs.iter().position(|k| *k == key) {
                    Some(j) => j,
                    None => {
                        stubs.push(key);
                        stubs.len() - 1
                    }
                };
                out.push_str(&expr[from..r.at]);
                out.push('#');
                out.push_str(&(base + 1 + stub as u64).to_string());
                from = r.at + r.len;
            }
            if rewritten.refs.is_empty() {
                continue;
            }
            out.push_str(&expr[from..]);
            *expr = out.into();
        }
    }
    Ok(())
}
