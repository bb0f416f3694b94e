//! Live values written into the files ([`keep`]), and one value from outside ([`set`]): each a
//! change through the edit layer, validated before anything is written.

use std::path::PathBuf;

use bevy_asset::AssetServer;
use bevy_ecs::entity::Entity;
use bevy_ecs::world::World;
use bevy_platform::collections::HashMap;

use super::diff::{LiveDifference, differences_of};
use super::locate::component_name;
use super::{LinkError, LiveLink, link_of, root_asset};
use crate::edit::SceneEdit;
use crate::format::builtin::{FieldKind, Value};
use crate::format::{
    ComponentData, ComponentPatch, CustomComponent, CustomField, EditError, EntityNode, Instance,
    Override, ParsedScene, SceneDoc, TransformData, Vec3Data,
};
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
    /// Whether they were written (false on a dry run, or when nothing differed).
    pub written: bool,
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
    let only: Option<Vec<u64>> = changes.map(|c| c.iter().map(|f| key(&f.id_path)).collect());
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
        });
    }
    // The live values, typed, of the entities kept.
    let keys: Vec<u64> = chosen.iter().map(|d| key(&d.id_path)).collect();
    let nodes: HashMap<u64, (EntityNode, EntityNode)> = live_nodes(world, root, Some(&keys))?
        .into_iter()
        .map(|n| (n.key, (n.file.clone(), n.live)))
        .collect();
    let mut plan = Plan::default();
    for d in &chosen {
        let Some((file, live)) = nodes.get(&key(&d.id_path)) else {
            continue;
        };
        let value = live_value(d, live).ok_or_else(|| {
            LinkError::NoField(format!(
                "entity {:?}: {} has no live value to keep",
                d.id_path, d.component
            ))
        })?;
        plan.add(link, &scene, &d.id_path, into, file, value)?;
    }
    let files = plan.apply(world, link, dry_run)?;
    let written = !dry_run && !files.is_empty();
    if written {
        reload(world, &scene, &files);
    }
    Ok(Kept {
        kept: chosen,
        files,
        written,
    })
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
    let view = link.view(&value.scene)?;
    let doc = &view.parsed.doc;
    let no_entity = || LinkError::NoEntity {
        scene: value.scene.clone(),
        path: value.id_path.clone(),
    };
    let first = *value.id_path.first().ok_or_else(no_entity)?;
    let node = doc.entity(first).ok_or_else(no_entity)?;
    let typed = parse_value(node, value)?;
    let file_node = node.clone();
    drop(view);
    let difference = LiveDifference {
        id_path: value.id_path.clone(),
        component: value.component.clone(),
        field: value.field.clone(),
        file: None,
        live: value.value.clone(),
    };
    let mut plan = Plan::default();
    if value.id_path.len() == 1 {
        plan.entry(&value.scene, first, typed);
    } else {
        plan.add(
            link,
            &value.scene,
            &value.id_path,
            KeepInto::Instance,
            &file_node,
            typed,
        )?;
    }
    let files = plan.apply(world, link, dry_run)?;
    let written = !dry_run && !files.is_empty();
    if written {
        reload(world, &value.scene, &files);
    }
    Ok(Kept {
        kept: vec![difference],
        files,
        written,
    })
}

/// The key of the entity at `path` in a spawned document.
fn key(path: &[u64]) -> u64 {
    match path {
        [id] => *id,
        _ => crate::prefab::key_of(path),
    }
}

/// A typed value to write.
#[derive(Debug, Clone)]
enum Typed {
    Name(String),
    Transform(&'static str, Vec3Data),
    CustomField {
        type_path: String,
        field: String,
        expr: String,
    },
    CustomValue {
        type_path: String,
        expr: String,
    },
    /// A built-in's field `field` (index in its tag's fields) as `component` has it, or the
    /// whole component (`None`).
    Builtin {
        component: ComponentData,
        field: Option<(usize, &'static str)>,
    },
}

/// The live value of difference `d` on the live node `live`.
fn live_value(d: &LiveDifference, live: &EntityNode) -> Option<Typed> {
    match (d.component.as_str(), d.field.as_deref()) {
        ("name", None) => Some(Typed::Name(live.name.to_string())),
        ("transform", Some(part)) => transform_part(&live.transform, part),
        (component, field) => {
            let c = live
                .components
                .iter()
                .find(|c| component_name(c) == component)?;
            match (c, field) {
                (ComponentData::Custom(c), Some(field)) => {
                    let f = c.fields.iter().find(|f| f.name == field)?;
                    Some(Typed::CustomField {
                        type_path: c.type_path.to_string(),
                        field: field.to_owned(),
                        expr: f.expr.to_string(),
                    })
                }
                (ComponentData::Custom(c), None) => Some(Typed::CustomValue {
                    type_path: c.type_path.to_string(),
                    expr: c.value.as_ref()?.to_string(),
                }),
                (builtin, field) => Some(Typed::Builtin {
                    component: builtin.clone(),
                    field: match field {
                        Some(f) => Some(builtin.builtin()?.field(f).map(|(i, b)| (i, b.path))?),
                        None => None,
                    },
                }),
            }
        }
    }
}

fn transform_part(t: &TransformData, part: &str) -> Option<Typed> {
    Some(match part {
        "translation" => Typed::Transform("translation", t.translation),
        "rotation" => Typed::Transform("rotation", t.rotation),
        "scale" => Typed::Transform("scale", t.scale),
        _ => return None,
    })
}

/// `value`'s text read as the kind of its field; `node` is the entity as its file writes it
/// (for a built-in, the component the field belongs to).
fn parse_value(node: &EntityNode, value: &SetValue) -> Result<Typed, LinkError> {
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
        ("name", None) => Ok(Typed::Name(
            ron::from_str::<String>(text).unwrap_or_else(|_| text.to_owned()),
        )),
        ("transform", Some(part @ ("translation" | "rotation" | "scale"))) => {
            let v = ron::from_str::<Vec3Data>(text)
                .map_err(|e| bad("a vector `(x: .., y: .., z: ..)`", &e))?;
            let t = TransformData {
                translation: v,
                rotation: v,
                scale: v,
            };
            transform_part(&t, part).ok_or_else(|| bad("a transform part", &"?"))
        }
        (component, field) => {
            // The component as this entity's file (or the prefab, for an override) has it.
            let written = node
                .components
                .iter()
                .find(|c| component_name(c) == component);
            match (written, field) {
                (Some(ComponentData::Custom(c)), Some(field)) => Ok(Typed::CustomField {
                    type_path: c.type_path.to_string(),
                    field: field.to_owned(),
                    expr: text.to_owned(),
                }),
                (Some(ComponentData::Custom(c)), None) => Ok(Typed::CustomValue {
                    type_path: c.type_path.to_string(),
                    expr: text.to_owned(),
                }),
                (None, Some(field)) if component.contains("::") || value.id_path.len() > 1 => {
                    // A custom component of a prefab entity (the override names it), or one
                    // the entry does not write yet.
                    Ok(Typed::CustomField {
                        type_path: component.to_owned(),
                        field: field.to_owned(),
                        expr: text.to_owned(),
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
                    Ok(Typed::Builtin {
                        component,
                        field: Some((i, f.path)),
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

/// Where one value goes in one file.
#[derive(Debug, Clone)]
enum Target {
    /// Entity `id`'s entry.
    Entry(u64),
    /// An override of the instance on entity `id`, of its prefab entity `target`; `base` is
    /// the entity as it spawns (its transform with the overrides so far).
    Override {
        id: u64,
        target: Vec<u64>,
        base: TransformData,
    },
}

/// The values to write, by file, in the order they were added.
#[derive(Default)]
struct Plan {
    files: Vec<(String, Vec<(Target, Typed)>)>,
}

impl Plan {
    fn push(&mut self, asset: &str, target: Target, value: Typed) {
        match self.files.iter_mut().find(|(a, _)| a == asset) {
            Some((_, values)) => values.push((target, value)),
            None => self.files.push((asset.to_owned(), vec![(target, value)])),
        }
    }

    fn entry(&mut self, asset: &str, id: u64, value: Typed) {
        self.push(asset, Target::Entry(id), value);
    }

    /// Plans `value` for the entity at `path` of scene `scene`, whose spawned node is `file`.
    fn add(
        &mut self,
        link: &LiveLink,
        scene: &str,
        path: &[u64],
        into: KeepInto,
        file: &EntityNode,
        value: Typed,
    ) -> Result<(), LinkError> {
        match (path, into) {
            ([id], _) => self.entry(scene, *id, value),
            ([id, rest @ ..], KeepInto::Instance) => self.push(
                scene,
                Target::Override {
                    id: *id,
                    target: rest.to_vec(),
                    base: file.transform,
                },
                value,
            ),
            (_, KeepInto::Prefab) => {
                // Down the prefab chain to the file that defines the entity; an override on the
                // way that sets the value would hide it.
                let mut asset = scene.to_owned();
                let mut path = path;
                while let [id, rest @ ..] = path
                    && !rest.is_empty()
                {
                    let view = link.view(&asset)?;
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
                    self.entry(&asset, *id, value);
                }
            }
            ([], _) => {}
        }
        Ok(())
    }

    /// Makes the planned changes to each file's text, checks the results, and (unless
    /// `dry_run`) writes them.
    fn apply(
        self,
        world: &World,
        link: &LiveLink,
        dry_run: bool,
    ) -> Result<Vec<KeptFile>, LinkError> {
        let mut edited = Vec::new();
        for (asset, values) in &self.files {
            let view = link.view(asset)?;
            let mut edit = SceneEdit::from_read(&view.text, view.parsed.clone());
            let changed = edit
                .change("keep live values", |doc| {
                    for (target, value) in values {
                        write(doc, target, value)?;
                    }
                    Ok(())
                })
                .map_err(|e| match e {
                    crate::edit::SceneEditError::Invalid(message) => LinkError::Invalid {
                        file: view.file.display().to_string(),
                        diagnostic: message,
                    },
                    other => LinkError::Edit(other),
                })?;
            let Some(group) = changed else {
                continue;
            };
            let map = &view.parsed.source_map;
            let patches = patches_before(&group.patches, map);
            let text = edit.text();
            edited.push((asset.clone(), view, text, edit.into_parsed(), patches));
        }
        let texts: HashMap<String, String> = edited
            .iter()
            .map(|(asset, _, text, _, _)| (asset.clone(), text.clone()))
            .collect();
        for (asset, view, _, parsed, _) in &edited {
            validate(world, link, asset, parsed.clone(), &texts, &view.file)?;
        }
        let mut out = Vec::new();
        for (asset, view, text, parsed, patches) in edited {
            if !dry_run {
                let now = std::fs::read(&view.file).map_err(|e| LinkError::Read {
                    file: view.file.display().to_string(),
                    reason: e.to_string(),
                })?;
                if now != view.text.as_bytes() {
                    return Err(LinkError::ChangedOnDisk(view.file.display().to_string()));
                }
                crate::project::write_file_atomic(&view.file, text.as_bytes())?;
                link.wrote(&asset, &view.file, text, parsed);
            }
            out.push(KeptFile {
                asset,
                file: view.file.clone(),
                patches,
            });
        }
        Ok(out)
    }
}

/// The edit layer's patches with their starts in the text before them (each patch's offset is
/// in the text the patches before it made).
fn patches_before(
    patches: &[crate::edit::Patch],
    map: &crate::format::SourceMap,
) -> Vec<KeptPatch> {
    let mut shift: isize = 0;
    patches
        .iter()
        .map(|p| {
            let at = p.offset.saturating_add_signed(-shift);
            shift += p.after.len() as isize - p.before.len() as isize;
            let pos = map.position_of_offset(at);
            KeptPatch {
                line: pos.line,
                column: pos.column,
                before: p.before.clone(),
                after: p.after.clone(),
            }
        })
        .collect()
}

/// Whether override `o` sets the value `value` stands for.
fn sets(o: &Override, value: &Typed) -> bool {
    match value {
        Typed::Name(_) => o.name.is_some(),
        Typed::Transform(..) => o.transform.is_some(),
        Typed::CustomField {
            type_path, field, ..
        } => o.set.iter().any(|p| match &p.component {
            ComponentData::Custom(c) => {
                c.type_path == type_path.as_str()
                    && c.fields.iter().any(|f| f.name == field.as_str())
            }
            _ => false,
        }),
        Typed::CustomValue { type_path, .. } => o.set.iter().any(|p| match &p.component {
            ComponentData::Custom(c) => c.type_path == type_path.as_str() && c.value.is_some(),
            _ => false,
        }),
        Typed::Builtin { component, field } => o.set.iter().any(|p| {
            p.component.same_key(component)
                && field.is_none_or(|(_, path)| p.fields.is_empty() || p.sets(path))
        }),
    }
}

/// Writes `value` at `target` of `doc`.
fn write(doc: &mut SceneDoc, target: &Target, value: &Typed) -> Result<(), EditError> {
    match target {
        Target::Entry(id) => {
            let node = doc.entity_mut(*id).ok_or(EditError::NoSuchEntity(*id))?;
            write_entry(node, value)
        }
        Target::Override { id, target, base } => {
            let node = doc.entity_mut(*id).ok_or(EditError::NoSuchEntity(*id))?;
            let instance: &mut Instance = node
                .instance
                .as_deref_mut()
                .ok_or(EditError::NoSuchEntity(*id))?;
            let o = match instance
                .overrides
                .iter()
                .rposition(|o| o.target == *target && o.node.is_empty())
            {
                Some(i) => &mut instance.overrides[i],
                None => {
                    instance.overrides.push(Override {
                        target: target.clone(),
                        ..Default::default()
                    });
                    let last = instance.overrides.len() - 1;
                    &mut instance.overrides[last]
                }
            };
            write_override(o, *base, value);
            Ok(())
        }
    }
}

fn write_entry(node: &mut EntityNode, value: &Typed) -> Result<(), EditError> {
    let id = node.id;
    match value {
        Typed::Name(name) => node.name = name.as_str().into(),
        Typed::Transform(part, v) => set_part(&mut node.transform, part, *v),
        Typed::CustomField {
            type_path,
            field,
            expr,
        } => {
            let c = custom_of(&mut node.components, type_path);
            match c.fields.iter_mut().rev().find(|f| f.name == field.as_str()) {
                Some(f) => f.expr = expr.as_str().into(),
                None => c
                    .fields
                    .push(CustomField::new(field.as_str(), expr.as_str())),
            }
        }
        Typed::CustomValue { type_path, expr } => {
            custom_of(&mut node.components, type_path).value = Some(expr.as_str().into());
        }
        Typed::Builtin { component, field } => {
            let slot = node
                .components
                .iter_mut()
                .find(|c| c.same_key(component))
                .ok_or_else(|| EditError::NoSuchComponent {
                    id,
                    key: component.key(),
                })?;
            copy_builtin(slot, component, *field);
        }
    }
    Ok(())
}

fn write_override(o: &mut Override, base: TransformData, value: &Typed) {
    match value {
        Typed::Name(name) => o.name = Some(name.as_str().into()),
        Typed::Transform(part, v) => {
            let mut t = o.transform.unwrap_or(base);
            set_part(&mut t, part, *v);
            o.transform = Some(t);
        }
        Typed::CustomField {
            type_path,
            field,
            expr,
        } => {
            let c = custom_patch(o, type_path);
            match c.fields.iter_mut().rev().find(|f| f.name == field.as_str()) {
                Some(f) => f.expr = expr.as_str().into(),
                None => c
                    .fields
                    .push(CustomField::new(field.as_str(), expr.as_str())),
            }
        }
        Typed::CustomValue { type_path, expr } => {
            custom_patch(o, type_path).value = Some(expr.as_str().into());
        }
        Typed::Builtin { component, field } => {
            let patch = match o.set.iter().rposition(|p| p.component.same_key(component)) {
                Some(i) => &mut o.set[i],
                None => {
                    o.set.push(ComponentPatch::new(component.clone(), &[]));
                    let last = o.set.len() - 1;
                    &mut o.set[last]
                }
            };
            match field {
                Some((_, path)) => {
                    copy_builtin(&mut patch.component, component, *field);
                    if !patch.sets(path) {
                        patch.fields.push((*path).into());
                        // The fields in their tag's order, as the writer lists them.
                        let order = ComponentPatch::fields_of(component.tag());
                        patch.fields.sort_by_key(|f| {
                            order
                                .iter()
                                .position(|o| *o == f.as_str())
                                .unwrap_or(usize::MAX)
                        });
                    }
                }
                None => {
                    patch.component = component.clone();
                    patch.fields.clear();
                }
            }
        }
    }
}

fn set_part(t: &mut TransformData, part: &str, v: Vec3Data) {
    match part {
        "translation" => t.translation = v,
        "rotation" => t.rotation = v,
        _ => t.scale = v,
    }
}

/// Field `field` of built-in `from` copied into `to` (the whole component when `None`).
fn copy_builtin(to: &mut ComponentData, from: &ComponentData, field: Option<(usize, &str)>) {
    let Some(tag) = from.builtin() else {
        return;
    };
    match field {
        Some((i, _)) => {
            if let Some(v) = (tag.get)(from, i) {
                (tag.set)(to, i, v.to_value());
            }
        }
        None => *to = from.clone(),
    }
}

/// The custom component `type_path` of `components`, added empty when it has none.
fn custom_of<'a>(
    components: &'a mut Vec<ComponentData>,
    type_path: &str,
) -> &'a mut CustomComponent {
    let at = components
        .iter()
        .position(|c| matches!(c, ComponentData::Custom(c) if c.type_path == type_path));
    let at = match at {
        Some(at) => at,
        None => {
            components.push(ComponentData::Custom(CustomComponent {
                type_path: type_path.into(),
                fields: Vec::new(),
                value: None,
            }));
            components.len() - 1
        }
    };
    match &mut components[at] {
        ComponentData::Custom(c) => c,
        _ => unreachable!("position found a custom component"),
    }
}

/// The `set` patch of custom component `type_path` in override `o`, added when it has none.
fn custom_patch<'a>(o: &'a mut Override, type_path: &str) -> &'a mut CustomComponent {
    let at = o.set.iter().rposition(
        |p| matches!(&p.component, ComponentData::Custom(c) if c.type_path == type_path),
    );
    let at = match at {
        Some(at) => at,
        None => {
            o.set.push(ComponentPatch::new(
                ComponentData::Custom(CustomComponent {
                    type_path: type_path.into(),
                    fields: Vec::new(),
                    value: None,
                }),
                &[],
            ));
            o.set.len() - 1
        }
    };
    match &mut o.set[at].component {
        ComponentData::Custom(c) => c,
        _ => unreachable!("rposition found a custom patch"),
    }
}

/// Checks `text`, the new text of `asset`, as the loader would (the prefabs it places read
/// from the asset root, with the other new texts in `texts`; custom components against the
/// game's schemas); the first error is refused.
fn validate(
    world: &World,
    link: &LiveLink,
    asset: &str,
    parsed: ParsedScene,
    texts: &HashMap<String, String>,
    file: &std::path::Path,
) -> Result<(), LinkError> {
    use crate::pipeline::{PrefabFiles, Source, check};
    let invalid = |diagnostic: String| LinkError::Invalid {
        file: file.display().to_string(),
        diagnostic,
    };
    let source = Source::from_parsed(asset, parsed);
    let root = link.asset_root().to_owned();
    let mut files = PrefabFiles::new(move |path: &str| -> Result<Vec<u8>, String> {
        if let Some(text) = texts.get(path) {
            return Ok(text.clone().into_bytes());
        }
        if crate::project::check_asset_path(path).is_err() {
            return Err(format!("`{path}` is not an asset path"));
        }
        std::fs::read(root.join(path)).map_err(|e| format!("`{path}`: {e}"))
    });
    if let Some(schemas) = world.get_resource::<crate::runtime::values::registry::ForgeSchemas>() {
        files = files.with_schemas(schemas.to_schema_file());
    }
    let checked = check(source, &mut files);
    match checked
        .diagnostics
        .iter()
        .find(|d| d.severity == crate::validate::Severity::Error)
    {
        None => Ok(()),
        Some(d) => Err(invalid(match &d.file {
            Some(f) => format!("{f}: {d}"),
            None => d.to_string(),
        })),
    }
}

/// Reloads the scene `scene` and every file written that is a loaded asset.
fn reload(world: &World, scene: &str, files: &[KeptFile]) {
    let Some(server) = world.get_resource::<AssetServer>() else {
        return;
    };
    let mut paths: Vec<&str> = files.iter().map(|f| f.asset.as_str()).collect();
    if !paths.contains(&scene) {
        paths.push(scene);
    }
    for path in paths {
        server.reload(path.to_owned());
    }
}
