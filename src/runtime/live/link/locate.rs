//! From a live entity to the text that made it ([`locate`]), and from an id path to the live
//! entity ([`find`]).

use std::path::PathBuf;

use bevy_ecs::entity::Entity;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::world::World;

use super::{FileView, LinkError, LiveLink, files_of, link_of, root_asset};
use crate::format::{ComponentData, OverridePart, SourceMap, Span};
use crate::runtime::asset::files::SceneFiles;
use crate::runtime::instance::ForgeSceneInstance;

/// A place in a file: 1-based line, and 1-based column in characters (as diagnostics give
/// them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TextPosition {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// A range of a file's text, from `start` to just past the last character (`end`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TextRange {
    /// The first character.
    pub start: TextPosition,
    /// Just past the last character.
    pub end: TextPosition,
}

/// Where one component, or one field of it, is written.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PartPlace {
    /// `name`, `transform`, a built-in's tag (`point_light`) or a custom component's type path
    /// as the file writes it (`forge_demo::Orbit`).
    pub component: String,
    /// The field: `translation`, `rotation` or `scale` of `transform`; a built-in's dotted
    /// payload path (`intensity`, `material.base_color`); a custom field's name. `None` for the
    /// component as a whole.
    pub field: Option<String>,
    /// Where its value is.
    pub range: TextRange,
}

/// One place that makes a live entity: its entry in a file, or an override of it in a file
/// that places the prefab it comes from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Place {
    /// The file's asset path (`levels/one.forge.ron`).
    pub asset: String,
    /// The file on disk.
    pub file: PathBuf,
    /// `entity` for the entity's own entry, `override` for an override of it.
    pub kind: &'static str,
    /// The id of the entry in this file: the entity's, or for an override the instance
    /// entity's whose `instance` holds it.
    pub entity: u64,
    /// For an override, its `target` (the id path inside the prefab); empty for an entry.
    pub target: Vec<u64>,
    /// The whole entry or override.
    pub entry: TextRange,
    /// Each part written there.
    pub parts: Vec<PartPlace>,
}

/// Where a live entity comes from ([`locate`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Located {
    /// The scene root whose instance the entity belongs to.
    #[serde(serialize_with = "entity_bits")]
    pub root: Entity,
    /// The asset path of the root's scene.
    pub scene: String,
    /// The entity's id path in that scene (`[4]`; `[5, 2]` for an entity instance 5 placed).
    pub id_path: Vec<u64>,
    /// The places that make it: for an entity a prefab placed, the overrides in the scene
    /// first (each file from the scene inward), then its entry in the file that defines it.
    pub places: Vec<Place>,
}

pub(crate) fn entity_bits<S: serde::Serializer>(e: &Entity, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(e.to_bits())
}

/// Where live `entity` was written: the file, id path, and line/column ranges of its entry and
/// of each component and field there. Files are read from the [`LiveLink`]'s asset root (once
/// per version of each file).
///
/// # Errors
/// [`LinkError::NoLink`] without the resource; [`LinkError::NotInAScene`] for an entity no
/// spawned scene made; [`LinkError::NoFile`] when its scene was not loaded from a file;
/// [`LinkError::Read`] when a file does not read.
pub fn locate(world: &World, entity: Entity) -> Result<Located, LinkError> {
    let link = link_of(world)?;
    let (root, instance) = instance_of(world, entity)?;
    let id_path = instance
        .path_of(entity)
        .ok_or(LinkError::NotInAScene(entity))?
        .0;
    let scene = root_asset(world, root)?;
    let places = places_of(link, &files_of(world), &scene, &id_path)?;
    Ok(Located {
        root,
        scene,
        id_path,
        places,
    })
}

/// The live entity at `id_path` of a spawned scene: the one on `root`, or the first loaded from
/// asset path `scene` (the reverse of [`locate`]).
///
/// # Errors
/// [`LinkError::NotARoot`], [`LinkError::NoScene`] when no such scene has spawned;
/// [`LinkError::NoEntity`] when it has no entity at that path.
pub fn find(
    world: &World,
    root: Option<Entity>,
    scene: Option<&str>,
    id_path: &[u64],
) -> Result<Entity, LinkError> {
    let roots = match root {
        Some(root) => {
            world
                .get::<ForgeSceneInstance>(root)
                .ok_or(LinkError::NotARoot(root))?;
            vec![root]
        }
        None => spawned_roots(world),
    };
    let mut asked = None;
    for r in roots {
        let asset = root_asset(world, r).ok();
        if let Some(scene) = scene
            && asset.as_deref() != Some(scene)
        {
            continue;
        }
        asked = asset.or(asked);
        let Some(instance) = world.get::<ForgeSceneInstance>(r) else {
            continue;
        };
        if let Some(e) = instance.entity_path(id_path) {
            return Ok(e);
        }
    }
    match (scene, asked) {
        (Some(scene), None) => Err(LinkError::NoScene(scene.to_owned())),
        (_, asked) => Err(LinkError::NoEntity {
            scene: asked.unwrap_or_default(),
            path: id_path.to_vec(),
        }),
    }
}

/// A scene root and the state of its scene ([`scenes`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LoadedScene {
    /// The `ForgeSceneRoot` entity.
    #[serde(serialize_with = "entity_bits")]
    pub root: Entity,
    /// The scene's asset path; `None` for a scene added in code.
    pub scene: Option<String>,
    /// The file on disk under the link's asset root.
    pub file: Option<PathBuf>,
    /// The live entities of its instance (0 until it spawns).
    pub entities: usize,
    /// `loading`, `failed` (the load failed: the error is in the log and in
    /// `ForgeSceneLoadError`), `spawning` (loaded; entities still coming, or held inactive)
    /// or `spawned`.
    pub state: &'static str,
}

/// Every `ForgeSceneRoot` of `world` with its scene's state, in
/// entity order.
///
/// # Errors
/// [`LinkError::NoLink`] without the [`LiveLink`] resource.
pub fn scenes(world: &World) -> Result<Vec<LoadedScene>, LinkError> {
    let link = link_of(world)?;
    let Some(mut query) = world.try_query::<(Entity, &crate::runtime::instance::ForgeSceneRoot)>()
    else {
        return Ok(Vec::new());
    };
    let server = world.get_resource::<bevy_asset::AssetServer>();
    let mut out: Vec<LoadedScene> = query
        .iter(world)
        .map(|(root, scene_root)| {
            let scene = root_asset(world, root).ok();
            let file = scene.as_deref().and_then(|s| link.file_of(s).ok());
            let instance = world.get::<ForgeSceneInstance>(root);
            let progress = world.get::<crate::runtime::instance::ForgeSpawnProgress>(root);
            let state = match (instance, server.map(|s| s.load_state(&scene_root.0))) {
                (Some(_), _) if progress.is_none_or(|p| p.fraction() >= 1.0) => "spawned",
                (Some(_), _) => "spawning",
                (None, Some(bevy_asset::LoadState::Failed(_))) => "failed",
                (None, Some(bevy_asset::LoadState::Loaded)) => "spawning",
                (None, _) => "loading",
            };
            LoadedScene {
                root,
                scene,
                file,
                entities: instance.map_or(0, ForgeSceneInstance::len),
                state,
            }
        })
        .collect();
    out.sort_by_key(|s| s.root);
    Ok(out)
}

/// Every root whose scene has spawned, in entity order.
pub(crate) fn spawned_roots(world: &World) -> Vec<Entity> {
    let Some(mut query) = world.try_query::<(Entity, &ForgeSceneInstance)>() else {
        return Vec::new();
    };
    let mut roots: Vec<Entity> = query.iter(world).map(|(e, _)| e).collect();
    roots.sort();
    roots
}

/// The instance `entity` belongs to: the nearest ancestor's whose id map knows it.
pub(crate) fn instance_of(
    world: &World,
    entity: Entity,
) -> Result<(Entity, &ForgeSceneInstance), LinkError> {
    let mut at = entity;
    // A hierarchy has no loops; the bound only keeps a broken one from hanging the game.
    for _ in 0..100_000 {
        let Some(parent) = world.get::<ChildOf>(at).map(ChildOf::parent) else {
            break;
        };
        if let Some(instance) = world.get::<ForgeSceneInstance>(parent)
            && instance.path_of(entity).is_some()
        {
            return Ok((parent, instance));
        }
        at = parent;
    }
    Err(LinkError::NotInAScene(entity))
}

/// How a component is named on the link: a built-in's tag, a custom component's type path as
/// written.
pub(crate) fn component_name(c: &ComponentData) -> String {
    match c {
        ComponentData::Custom(c) => c.type_path.to_string(),
        other => other.tag().to_owned(),
    }
}

/// The places of the entity at `id_path` of scene `asset`, from the scene inward.
fn places_of(
    link: &LiveLink,
    files: &SceneFiles,
    asset: &str,
    id_path: &[u64],
) -> Result<Vec<Place>, LinkError> {
    let mut places = Vec::new();
    let mut asset = asset.to_owned();
    let mut path = id_path;
    // Prefab chains are refused at load (a file cannot place itself); the bound keeps a file
    // changed since from looping.
    for _ in 0..64 {
        let view = link.view(files, &asset)?;
        let doc = &view.parsed.doc;
        match path {
            [] => break,
            [id] => {
                if let Some(place) = entry_place(&asset, &view, *id) {
                    places.push(place);
                }
                break;
            }
            [id, rest @ ..] => {
                let Some(instance) = doc.entity(*id).and_then(|n| n.instance.as_deref()) else {
                    break;
                };
                for (i, o) in instance.overrides.iter().enumerate() {
                    if o.target == rest {
                        places.push(override_place(&asset, &view, *id, i));
                    }
                }
                if instance.scene.is_empty() {
                    break; // a model's nodes are not in a scene file
                }
                asset = instance.scene.to_string();
                path = rest;
            }
        }
    }
    Ok(places)
}

fn range(map: &SourceMap, span: Span) -> Option<TextRange> {
    let r = span.range()?;
    let at = |offset| {
        let p = map.position_of_offset(offset);
        TextPosition {
            line: p.line,
            column: p.column,
        }
    };
    Some(TextRange {
        start: at(r.start),
        end: at(r.end),
    })
}

/// Entity `id`'s entry in `view` and its parts.
pub(crate) fn entry_place(asset: &str, view: &FileView, id: u64) -> Option<Place> {
    let map = &view.parsed.source_map;
    let node = view.parsed.doc.entity(id)?;
    let entry = range(map, map.entity_span(id)?)?;
    let mut parts = Vec::new();
    let mut part = |component: &str, field: Option<&str>, span: Option<Span>| {
        if let Some(range) = span.and_then(|s| range(map, s)) {
            parts.push(PartPlace {
                component: component.to_owned(),
                field: field.map(str::to_owned),
                range,
            });
        }
    };
    part("name", None, map.entity_field_span(id, "name"));
    part("transform", None, map.entity_field_span(id, "transform"));
    for f in ["translation", "rotation", "scale"] {
        part(
            "transform",
            Some(f),
            map.entity_field_span(id, &format!("transform.{f}")),
        );
    }
    for (i, c) in node.components.iter().enumerate() {
        let name = component_name(c);
        part(&name, None, map.component_span(id, i));
        match c {
            ComponentData::Custom(custom) => {
                for (j, f) in custom.fields.iter().enumerate() {
                    part(
                        &name,
                        Some(&f.name),
                        map.custom_field_span(id, i, j, crate::format::CustomPart::Entry),
                    );
                }
            }
            _ => {
                for (path, span) in map.component_fields(id, i) {
                    part(&name, Some(path), Some(span));
                }
            }
        }
    }
    Some(Place {
        asset: asset.to_owned(),
        file: view.file.clone(),
        kind: "entity",
        entity: id,
        target: Vec::new(),
        entry,
        parts,
    })
}

/// Override `index` of the instance on entity `id` in `view`, and its parts.
fn override_place(asset: &str, view: &FileView, id: u64, index: usize) -> Place {
    let map = &view.parsed.source_map;
    let o = view
        .parsed
        .doc
        .entity(id)
        .and_then(|n| n.instance.as_deref())
        .and_then(|i| i.overrides.get(index));
    let span = |part| map.override_part_span(id, index, part);
    let at = |s: Option<Span>| s.and_then(|s| range(map, s));
    let mut parts = Vec::new();
    let mut part = |component: &str, field: Option<&str>, span: Option<Span>| {
        if let Some(range) = at(span) {
            parts.push(PartPlace {
                component: component.to_owned(),
                field: field.map(str::to_owned),
                range,
            });
        }
    };
    if let Some(o) = o {
        if o.name.is_some() {
            part("name", None, span(OverridePart::Field("name")));
        }
        if o.transform.is_some() {
            part("transform", None, span(OverridePart::Field("transform")));
            for f in ["translation", "rotation", "scale"] {
                part("transform", Some(f), span(OverridePart::Transform(f)));
            }
        }
        for (i, patch) in o.set.iter().enumerate() {
            let name = component_name(&patch.component);
            part(&name, None, span(OverridePart::Set(i)));
            match &patch.component {
                ComponentData::Custom(custom) => {
                    for (j, f) in custom.fields.iter().enumerate() {
                        part(
                            &name,
                            Some(&f.name),
                            span(OverridePart::SetCustomExpr(i, j)),
                        );
                    }
                }
                _ => {
                    for f in &patch.fields {
                        part(&name, Some(f), span(OverridePart::SetField(i, f)));
                    }
                }
            }
        }
        for (i, c) in o.add.iter().enumerate() {
            part(&component_name(c), None, span(OverridePart::Add(i)));
        }
    }
    Place {
        asset: asset.to_owned(),
        file: view.file.clone(),
        kind: "override",
        entity: id,
        target: o.map(|o| o.target.clone()).unwrap_or_default(),
        entry: at(span(OverridePart::Entry)).unwrap_or(TextRange {
            start: TextPosition { line: 0, column: 0 },
            end: TextPosition { line: 0, column: 0 },
        }),
        parts,
    }
}
