//! Live values written into the files ([`keep`]), and one value from outside ([`set`]): each a
//! list of typed edits handed to the one write path (`write`), checked before anything is
//! written.

use std::path::PathBuf;

use bevy_ecs::entity::Entity;
use bevy_ecs::world::World;
use bevy_platform::collections::HashMap;

use super::diff::{LiveDifference, differences_of};
use super::locate::component_name;
use super::write::{Change, commit};
use super::{LinkError, LiveLink, files_of, link_of, root_asset};
use crate::edit::{EditAt, FieldEdit, FieldValue, PatchGroup, TransformPart};
use crate::format::builtin::{FieldKind, Value};
use crate::format::{ComponentData, EntityNode, Override, TransformData, Vec3Data};
use crate::prefab::key_of;
use crate::runtime::asset::files::SceneFiles;
use crate::runtime::live::capture::live_nodes;

/// One field of one entity, as [`differences`](super::differences) names it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FieldRef {
    /// The entity's id path in the root's scene.
    pub id_path: Vec<u64>,
    /// `name`, `transform`, a built-in's tag or a custom component's type path.
    pub component: String,
    /// The field, as in [`LiveDifference::field`].
    #[serde(default)]
    pub field: Option<String>,
}

impl FieldRef {
    fn names(&self, d: &LiveDifference) -> bool {
        self.id_path == d.id_path && self.component == d.component && self.field == d.field
    }
}

/// Where [`keep`] writes a live value of an entity a prefab placed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeepInto {
    /// Into the scene, as an override of the instance that placed it (only this instance
    /// changes). The default.
    #[default]
    Instance,
    /// Into the prefab file that defines the entity (every instance of the prefab changes).
    Prefab,
}

/// One file a change was (or, on a dry run, would be) written to.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KeptFile {
    /// Its asset path.
    pub asset: String,
    /// The file on disk.
    pub file: PathBuf,
    /// Each replaced piece of text: where it starts in the old text (1-based line and column),
    /// what was there and what is there now.
    pub patches: Vec<KeptPatch>,
}

/// One replaced piece of a file's text.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KeptPatch {
    /// 1-based line of its start, in the text before.
    pub line: u32,
    /// 1-based column of its start, in characters.
    pub column: u32,
    /// The text that was there.
    pub before: String,
    /// The text written instead.
    pub after: String,
}

/// What [`keep`] or [`set`] did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Kept {
    /// The differences kept ([`set`]: the value set, its `live` the new text).
    pub kept: Vec<LiveDifference>,
    /// The files changed.
    pub files: Vec<KeptFile>,
    /// Whether they were written (false on a dry run, or when nothing differed). The files
    /// are written on Bevy's IO task pool, off the frame: the scene reloads, and
    /// [`ForgeSceneWritten`](super::ForgeSceneWritten) is triggered, once they are in place.
    pub written: bool,
    /// Each file's edit, for [`undo`](super::undo) and [`redo`](super::redo).
    #[serde(skip)]
    pub(crate) groups: Vec<(String, PatchGroup)>,
}

/// One value for [`set`]: the text as the format writes it, as [`differences`](super::differences)
/// gives it (`"Lamp"` for a name, `(x: 1.0, y: 2.0, z: 0.0)` for a transform part, `800.0`
/// for a built-in field, an expression for a custom field).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct SetValue {
    /// The scene file's asset path (`path` on the wire, as `forge.set` names it).
    #[serde(alias = "path")]
    pub scene: String,
    /// The entity's id path in it: `[4]` edits entity 4; `[5, 2]` writes an override into the
    /// instance on entity 5.
    pub id_path: Vec<u64>,
    /// `name`, `transform`, a built-in's tag or a custom component's type path.
    pub component: String,
    /// The field, as in [`LiveDifference::field`].
    #[serde(default)]
    pub field: Option<String>,
    /// The new value's text.
    pub value: String,
}

/// The longest value text [`set`] takes; a field's value is a line, not a file.
const MOST_VALUE_BYTES: usize = 64 * 1024;

/// Writes live values of the instance on `root` into its files: those of `changes` (each must
/// be one of [`differences`](super::differences)), or every difference when `None`. An entity
/// of the scene's own file is changed in its entry; one a prefab placed gets an override in
/// the scene (`into` [`KeepInto::Instance`]) or its entry in the prefab file changed
/// ([`KeepInto::Prefab`]). Each file changes through the edit layer: only the changed values'
/// bytes, comments and layout kept; the new texts are checked as the loader checks them (the
/// game's schemas) and refused on any error they did not have; each is written atomically
/// and the scene reloaded. The values are live already, so the reload writes nothing into the
/// world: no entity respawns, no change tick moves. With `dry_run`, nothing is written.
///
/// # Errors
/// [`LinkError::NoField`] for a change that is not a difference, or a prefab value an
/// override in the scene sets (keep it into the instance); [`LinkError::Invalid`] when the
/// result does not validate; [`LinkError::ChangedOnDisk`] when a file changed since it was
/// read; [`LinkError::Write`]; as [`differences`](super::differences). Nothing is written when
/// one is returned.
pub fn keep(
    world: &mut World,
    root: Entity,
    changes: Option<&[FieldRef]>,
    into: KeepInto,
    dry_run: bool,
) -> Result<Kept, LinkError> {
    // Nothing in the world changes here: the files do, and the asset server reloads them.
    let world: &World = world;
    let scene = root_asset(world, root)?;
    let link = link_of(world)?;
    let only: Option<Vec<u64>> = changes.map(|c| c.iter().map(|f| key_of(&f.id_path)).collect());
    let all = differences_of(world, root, only.as_deref())?;
    let chosen: Vec<LiveDifference> = match changes {
        None => all,
        Some(changes) => {
            let mut chosen = Vec::new();
            for c in changes {
                let d = all.iter().find(|d| c.names(d)).ok_or_else(|| {
                    LinkError::NoField(format!(
                        "entity {:?} of `{scene}`: {}{} does not differ from the file (or is not a field the link knows)",
                        c.id_path,
                        c.component,
                        c.field.as_deref().map(|f| format!(".{f}")).unwrap_or_default()
                    ))
                })?;
                if !chosen.contains(d) {
                    chosen.push(d.clone());
                }
            }
            chosen
        }
    };
    if chosen.is_empty() {
        return Ok(Kept {
            kept: chosen,
            files: Vec::new(),
            written: false,
            groups: Vec::new(),
        });
    }
    let files = files_of(world);
    // The live values, typed, of the entities kept.
    let keys: Vec<u64> = chosen.iter().map(|d| key_of(&d.id_path)).collect();
    let nodes: HashMap<u64, (EntityNode, EntityNode)> = live_nodes(world, root, Some(&keys))?
        .into_iter()
        .map(|n| (n.key, (n.file.clone(), n.live)))
        .collect();
    let mut plan = Plan::default();
    for d in &chosen {
        let Some((file, live)) = nodes.get(&key_of(&d.id_path)) else {
            continue;
        };
        let value = live_value(d, live, &file.transform).ok_or_else(|| {
            LinkError::NoField(format!(
                "entity {:?}: {} has no live value to keep",
                d.id_path, d.component
            ))
        })?;
        plan.add(link, &files, &scene, &d.id_path, into, value)?;
    }
    plan.commit(world, link, "keep live values", chosen, dry_run)
}

/// Writes `value` into scene file `value.scene` as an inspector's edit: the entity's entry (an
/// id path of one id), or an override in the instance that placed it. The text is checked as
/// the loader checks it, written atomically, and the scene reloaded (hot reload applies it to
/// every live instance). With `dry_run`, nothing is written.
///
/// # Errors
/// [`LinkError::Path`] for a path outside the asset root; [`LinkError::NoEntity`] and
/// [`LinkError::NoField`] for an entity or component the file does not have;
/// [`LinkError::Value`] when the text does not read as the field's kind;
/// [`LinkError::Invalid`] when the result does not validate (a custom field's expression of the
/// wrong type, a value out of range). Nothing is written when one is returned.
pub fn set(world: &mut World, value: &SetValue, dry_run: bool) -> Result<Kept, LinkError> {
    let world: &World = world;
    let link = link_of(world)?;
    if value.value.len() > MOST_VALUE_BYTES {
        return Err(LinkError::Value(format!(
            "the value is {} bytes; a field's value is at most {MOST_VALUE_BYTES}",
            value.value.len()
        )));
    }
    let files = files_of(world);
    let view = link.view(&files, &value.scene)?;
    let doc = &view.parsed.doc;
    let no_entity = || LinkError::NoEntity {
        scene: value.scene.clone(),
        path: value.id_path.clone(),
    };
    let first = *value.id_path.first().ok_or_else(no_entity)?;
    let node = doc.entity(first).ok_or_else(no_entity)?;
    let base = match value.id_path.as_slice() {
        [_] => node.transform,
        path => spawned_transform(world, &value.scene, path).unwrap_or_default(),
    };
    let typed = parse_value(node, value, base)?;
    drop(view);
    let difference = LiveDifference {
        id_path: value.id_path.clone(),
        component: value.component.clone(),
        field: value.field.clone(),
        file: None,
        live: value.value.clone(),
        written: Some(super::WrittenAt {
            asset: value.scene.clone(),
            kind: if value.id_path.len() == 1 {
                "entity"
            } else {
                "override"
            },
            entity: first,
            target: value.id_path[1..].to_vec(),
        }),
    };
    let mut plan = Plan::default();
    plan.add(
        link,
        &files,
        &value.scene,
        &value.id_path,
        KeepInto::Instance,
        typed,
    )?;
    plan.commit(world, link, "set a value", vec![difference], dry_run)
}

/// The transform the entity at id path `path` of scene `scene` spawns with, as the game's
/// loaded scene has it: what an override that writes no transform yet starts from.
fn spawned_transform(world: &World, scene: &str, path: &[u64]) -> Option<TransformData> {
    let scenes =
        world.get_resource::<bevy_asset::Assets<crate::runtime::asset::scene::ForgeScene>>()?;
    let server = world.get_resource::<bevy_asset::AssetServer>()?;
    scenes.iter().find_map(|(id, loaded)| {
        let asset = server.get_path(id)?;
        if asset.label().is_some() || asset.path().to_string_lossy().replace('\\', "/") != scene {
            return None;
        }
        Some(loaded.spawn_doc().entities.get(&key_of(path))?.transform)
    })
}

/// The live value of difference `d` on the live node `live`; `base` is the entity's transform
/// as its files give it (what an override without a transform starts from).
fn live_value(d: &LiveDifference, live: &EntityNode, base: &TransformData) -> Option<FieldValue> {
    match (d.component.as_str(), d.field.as_deref()) {
        ("name", None) => Some(FieldValue::Name(live.name.as_str().into())),
        ("transform", Some(part)) => {
            let part = TransformPart::named(part)?;
            Some(FieldValue::Transform {
                part,
                value: part.of(&live.transform),
                base: *base,
            })
        }
        (component, field) => {
            let c = live
                .components
                .iter()
                .find(|c| component_name(c) == component)?;
            match (c, field) {
                (ComponentData::Custom(c), Some(field)) => {
                    let f = c.fields.iter().rev().find(|f| f.name == field)?;
                    Some(FieldValue::CustomField {
                        type_path: c.type_path.clone(),
                        field: field.into(),
                        expr: f.expr.clone(),
                    })
                }
                (ComponentData::Custom(c), None) => Some(FieldValue::CustomValue {
                    type_path: c.type_path.clone(),
                    expr: c.value.clone()?,
                }),
                (builtin, Some(f)) => Some(FieldValue::BuiltinField {
                    component: builtin.clone(),
                    field: builtin.builtin()?.field(f)?.0,
                }),
                (builtin, None) => Some(FieldValue::Builtin(builtin.clone())),
            }
        }
    }
}

/// `value`'s text read as the kind of its field; `node` is the entity as its file writes it
/// (for a built-in, the component the field belongs to).
fn parse_value(
    node: &EntityNode,
    value: &SetValue,
    base: TransformData,
) -> Result<FieldValue, LinkError> {
    let text = value.value.trim();
    let bad = |what: &str, e: &dyn std::fmt::Display| {
        LinkError::Value(format!(
            "entity {:?}: {}{}: `{text}` is not {what}: {e}",
            value.id_path,
            value.component,
            value
                .field
                .as_deref()
                .map(|f| format!(".{f}"))
                .unwrap_or_default()
        ))
    };
    let field = value.field.as_deref();
    match (value.component.as_str(), field) {
        ("name", None) => Ok(FieldValue::Name(
            ron::from_str::<String>(text)
                .unwrap_or_else(|_| text.to_owned())
                .into(),
        )),
        ("transform", Some(part)) if TransformPart::named(part).is_some() => {
            let value = ron::from_str::<Vec3Data>(text)
                .map_err(|e| bad("a vector `(x: .., y: .., z: ..)`", &e))?;
            let part = TransformPart::named(part).ok_or_else(|| bad("a transform part", &"?"))?;
            Ok(FieldValue::Transform { part, value, base })
        }
        (component, field) => {
            // The component as this entity's file (or the prefab, for an override) has it.
            let written = node
                .components
                .iter()
                .find(|c| component_name(c) == component);
            match (written, field) {
                (Some(ComponentData::Custom(c)), Some(field)) => Ok(FieldValue::CustomField {
                    type_path: c.type_path.clone(),
                    field: field.into(),
                    expr: text.into(),
                }),
                (Some(ComponentData::Custom(c)), None) => Ok(FieldValue::CustomValue {
                    type_path: c.type_path.clone(),
                    expr: text.into(),
                }),
                (None, Some(field)) if component.contains("::") || value.id_path.len() > 1 => {
                    // A custom component of a prefab entity (the override names it), or one
                    // the entry does not write yet.
                    Ok(FieldValue::CustomField {
                        type_path: component.into(),
                        field: field.into(),
                        expr: text.into(),
                    })
                }
                (Some(builtin), Some(field)) => {
                    let tag = builtin
                        .builtin()
                        .ok_or_else(|| bad("a built-in field", &"no such built-in"))?;
                    let (i, f) = tag.field(field).ok_or_else(|| {
                        LinkError::NoField(format!(
                            "`{component}` has no field `{field}` (its fields: {})",
                            tag.fields()
                                .iter()
                                .map(|f| f.path)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    })?;
                    let v = match f.kind {
                        FieldKind::Float => {
                            Value::Float(ron::from_str::<f32>(text).map_err(|e| bad("an f32", &e))?)
                        }
                        FieldKind::Bool => {
                            Value::Bool(ron::from_str(text).map_err(|e| bad("a bool", &e))?)
                        }
                        FieldKind::Text => {
                            Value::Text(ron::from_str(text).map_err(|e| bad("a string", &e))?)
                        }
                        FieldKind::Color => Value::Color(
                            ron::from_str(text)
                                .map_err(|e| bad("a colour `(r: .., g: .., b: .., a: ..)`", &e))?,
                        ),
                        other => {
                            return Err(LinkError::Value(format!(
                                "`{component}.{field}` is a {}: set it in the file",
                                other.describe()
                            )));
                        }
                    };
                    let mut component = builtin.clone();
                    (tag.set)(&mut component, i, v);
                    Ok(FieldValue::BuiltinField {
                        component,
                        field: i,
                    })
                }
                _ => Err(LinkError::NoField(format!(
                    "entity {:?} of `{}` has no component `{component}`{}",
                    value.id_path,
                    value.scene,
                    field
                        .map(|f| format!(" with field `{f}`"))
                        .unwrap_or_default()
                ))),
            }
        }
    }
}

/// The edits to make, by file, in the order they were added.
#[derive(Default)]
struct Plan {
    files: Vec<(String, Vec<FieldEdit>)>,
}

impl Plan {
    fn push(&mut self, asset: &str, at: EditAt, value: FieldValue) {
        let edit = FieldEdit { at, value };
        match self.files.iter_mut().find(|(a, _)| a == asset) {
            Some((_, edits)) => edits.push(edit),
            None => self.files.push((asset.to_owned(), vec![edit])),
        }
    }

    /// Plans `value` for the entity at `path` of scene `scene`.
    fn add(
        &mut self,
        link: &LiveLink,
        files: &SceneFiles,
        scene: &str,
        path: &[u64],
        into: KeepInto,
        value: FieldValue,
    ) -> Result<(), LinkError> {
        match (path, into) {
            ([id], _) => self.push(scene, EditAt::Entry(*id), value),
            ([id, rest @ ..], KeepInto::Instance) => self.push(
                scene,
                EditAt::Override {
                    instance: *id,
                    target: rest.to_vec(),
                },
                value,
            ),
            (_, KeepInto::Prefab) => {
                // Down the prefab chain to the file that defines the entity; an override on the
                // way that sets this value would hide the prefab's.
                let mut asset = scene.to_owned();
                let mut path = path;
                while let [id, rest @ ..] = path
                    && !rest.is_empty()
                {
                    let view = link.view(files, &asset)?;
                    let instance = view
                        .parsed
                        .doc
                        .entity(*id)
                        .and_then(|n| n.instance.as_deref())
                        .ok_or_else(|| LinkError::NoEntity {
                            scene: asset.clone(),
                            path: path.to_vec(),
                        })?;
                    if instance.scene.is_empty() {
                        return Err(LinkError::NoField(format!(
                            "entity {path:?} of `{asset}` is a node of a model: keep it into the instance"
                        )));
                    }
                    if let Some(o) = instance
                        .overrides
                        .iter()
                        .find(|o| o.target == rest && sets(o, &value))
                    {
                        return Err(LinkError::NoField(format!(
                            "an override in `{asset}` (entity {id}, target {:?}) sets this value, so the prefab's would not show: keep it into the instance",
                            o.target
                        )));
                    }
                    asset = instance.scene.to_string();
                    path = rest;
                }
                if let [id] = path {
                    self.push(&asset, EditAt::Entry(*id), value);
                }
            }
            ([], _) => {}
        }
        Ok(())
    }

    /// Hands the planned edits to the one write path, as `label`.
    fn commit(
        self,
        world: &World,
        link: &LiveLink,
        label: &str,
        kept: Vec<LiveDifference>,
        dry_run: bool,
    ) -> Result<Kept, LinkError> {
        let changes = self
            .files
            .into_iter()
            .map(|(asset, edits)| (asset, Change::Edits(edits)))
            .collect();
        let committed = commit(world, link, label, changes, dry_run)?;
        let written = !dry_run && !committed.is_empty();
        let mut files = Vec::with_capacity(committed.len());
        let mut groups = Vec::with_capacity(committed.len());
        for c in committed {
            groups.push((c.file.asset.clone(), c.group));
            files.push(c.file);
        }
        Ok(Kept {
            kept,
            files,
            written,
            groups,
        })
    }
}

/// Whether override `o` sets the value `value` stands for.
fn sets(o: &Override, value: &FieldValue) -> bool {
    let custom = |type_path: &str, hit: &dyn Fn(&crate::format::CustomComponent) -> bool| {
        o.set.iter().any(|p| match &p.component {
            ComponentData::Custom(c) => c.type_path == type_path && hit(c),
            _ => false,
        })
    };
    match value {
        FieldValue::Name(_) => o.name.is_some(),
        FieldValue::Transform { .. } => o.transform.is_some(),
        FieldValue::CustomField {
            type_path, field, ..
        } => custom(type_path, &|c| c.fields.iter().any(|f| f.name == *field)),
        FieldValue::CustomValue { type_path, .. } => custom(type_path, &|c| c.value.is_some()),
        FieldValue::BuiltinField { component, field } => o.set.iter().any(|p| {
            p.component.same_key(component)
                && component
                    .builtin()
                    .and_then(|b| b.fields().get(*field))
                    .is_none_or(|f| p.fields.is_empty() || p.sets(f.path))
        }),
        FieldValue::Builtin(component) => o.set.iter().any(|p| p.component.same_key(component)),
    }
}
