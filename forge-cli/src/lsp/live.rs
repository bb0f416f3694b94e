//! The running game's live values in a document ([`live_parts`]): every value of the read
//! scene that a live entity holds otherwise, wherever the document writes it (an entity's own
//! entry, or an override of an instance that sets it), and, in a prefab file, the live values
//! of the entities its instances placed, instance by instance (hover says which, and whether
//! they differ). Hover shows them beside the authored value, inlay hints mark them, a code
//! action writes one into the text.
//!
//! The game says where each difference is written (`forge.diff`'s `written`: a file, an entry
//! or an override); the places are found in the document as the editor has it now.

use std::ops::Range;
use std::path::Path;

use bevy_forge_scene::format::{ComponentData, CustomPart, OverridePart, ParsedScene};
use serde_json::Value;

use super::game::Remote;

/// A value of the document that live entities hold otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct LivePart {
    /// The written value, in bytes of the text after a byte-order mark (for a field the text
    /// does not write, its component's entry).
    pub range: Range<usize>,
    /// `name`, `transform`, a built-in's tag or a custom component's type path.
    pub component: String,
    /// The field, when the difference is of one.
    pub field: Option<String>,
    /// The value the text gives, as the format writes it; `None` when the text does not write
    /// it.
    pub file: Option<String>,
    /// The live entities holding another value: which scene placed each, at which id path,
    /// and its value as the format writes it.
    pub instances: Vec<LiveInstance>,
    /// The text that writes the live value in place of `range`, when the text writes the
    /// field and every live entity holds the same value (the "keep the live value" edit).
    pub replacement: Option<String>,
}

/// One live entity's value of a [`LivePart`].
#[derive(Debug, Clone, PartialEq)]
pub struct LiveInstance {
    /// The asset path of the scene whose root it belongs to.
    pub scene: String,
    /// Its id path in that scene.
    pub id_path: Vec<u64>,
    /// Its value, as the format writes it.
    pub live: String,
}

impl LivePart {
    /// The live value, when every live entity holds the same one.
    pub fn live(&self) -> Option<&str> {
        let first = &self.instances.first()?.live;
        self.instances
            .iter()
            .all(|i| &i.live == first)
            .then_some(first.as_str())
    }
}

/// The asset path of the file at `path` (relative to the assets folder `root` its prefabs are
/// read from), as the game's asset server names it.
pub fn asset_of(path: Option<&Path>, root: Option<&Path>) -> Option<String> {
    let relative = path?.strip_prefix(root?).ok()?;
    Some(relative.to_string_lossy().replace('\\', "/"))
}

/// The values of `parsed` (the document whose asset path is `asset`) that live entities of the
/// game hold otherwise: of every spawned scene root, the differences the game says are
/// written in this file.
pub fn live_parts(remote: &Remote, parsed: &ParsedScene, asset: &str) -> Vec<LivePart> {
    let Ok(scenes) = remote.call("forge.scenes", Value::Null) else {
        return Vec::new();
    };
    let mut parts: Vec<LivePart> = Vec::new();
    for s in scenes.as_array().into_iter().flatten() {
        if s["state"] == "failed" || s["state"] == "loading" {
            continue;
        }
        let Some(scene) = s["scene"].as_str() else {
            continue;
        };
        let Ok(diff) = remote.call("forge.diff", serde_json::json!({ "root": s["root"] })) else {
            continue;
        };
        for d in diff["differences"].as_array().into_iter().flatten() {
            let Some((part, instance)) = place(parsed, asset, scene, d) else {
                continue;
            };
            match parts.iter_mut().find(|p| p.range == part.range) {
                Some(p) => p.instances.push(instance),
                None => parts.push(LivePart {
                    instances: vec![instance],
                    ..part
                }),
            }
        }
    }
    for p in &mut parts {
        if p.live().is_none() {
            p.replacement = None;
        }
    }
    parts.sort_by_key(|p| p.range.start);
    parts
}

/// Where difference `d` (one of `forge.diff`'s for a root of scene `scene`) is written in
/// `parsed`, the document of `asset`: `None` when it is written in another file. A game that
/// does not say where (`written` missing) gives only the scene's own entities.
fn place(
    parsed: &ParsedScene,
    asset: &str,
    scene: &str,
    d: &Value,
) -> Option<(LivePart, LiveInstance)> {
    let id_path: Vec<u64> = d["id_path"]
        .as_array()?
        .iter()
        .map(Value::as_u64)
        .collect::<Option<_>>()?;
    let written = &d["written"];
    let (kind, entity, target) = if written.is_object() {
        if written["asset"].as_str() != Some(asset) {
            return None;
        }
        let target = written["target"]
            .as_array()
            .map(|t| t.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        (
            written["kind"].as_str()?,
            written["entity"].as_u64()?,
            target,
        )
    } else {
        match id_path.as_slice() {
            [id] if scene == asset => ("entity", *id, Vec::new()),
            _ => return None,
        }
    };
    let component = d["component"].as_str()?.to_owned();
    let field = d["field"].as_str().map(str::to_owned);
    let live = d["live"].as_str()?.to_owned();
    let (span, replacement) = match kind {
        "override" => in_override(parsed, entity, &target, &component, field.as_deref(), &live)?,
        _ => in_entry(parsed, entity, &component, field.as_deref(), &live)?,
    };
    Some((
        LivePart {
            range: span,
            component,
            field,
            file: d["file"].as_str().map(str::to_owned),
            instances: Vec::new(),
            replacement,
        },
        LiveInstance {
            scene: scene.to_owned(),
            id_path,
            live,
        },
    ))
}

/// `live` as the text writes a custom field's expression: a string.
fn quoted(live: &str) -> String {
    format!("\"{}\"", live.escape_debug())
}

/// The index of the component named `component` in `components` (a built-in's tag, a custom
/// component's type path).
fn component_index<'a>(
    components: impl IntoIterator<Item = &'a ComponentData>,
    component: &str,
) -> Option<usize> {
    components.into_iter().position(|c| match c {
        ComponentData::Custom(c) => c.type_path == component,
        other => other.tag() == component,
    })
}

/// Where entity `id`'s entry writes `component`'s `field`, and the text that writes `live`
/// there (when the entry writes the field itself).
fn in_entry(
    parsed: &ParsedScene,
    id: u64,
    component: &str,
    field: Option<&str>,
    live: &str,
) -> Option<(Range<usize>, Option<String>)> {
    let map = &parsed.source_map;
    let node = parsed.doc.entity(id)?;
    let (span, replacement) = match (component, field) {
        ("name", None) => (map.entity_field_span(id, "name")?, Some(live.to_owned())),
        ("transform", Some(part)) => (
            map.entity_field_span(id, &format!("transform.{part}"))?,
            Some(live.to_owned()),
        ),
        (component, field) => {
            let index = component_index(&node.components, component)?;
            match (&node.components[index], field) {
                (ComponentData::Custom(c), Some(field)) => {
                    match c.fields.iter().rposition(|f| f.name == field) {
                        Some(j) => (
                            map.custom_field_span(id, index, j, CustomPart::Expr)?,
                            Some(quoted(live)),
                        ),
                        None => (map.component_span(id, index)?, None),
                    }
                }
                (ComponentData::Custom(_), None) => (
                    map.component_field_span(id, index, "data")
                        .or_else(|| map.component_span(id, index))?,
                    None,
                ),
                (_, Some(field)) => match map.component_field_span(id, index, field) {
                    Some(span) => (span, Some(live.to_owned())),
                    None => (map.component_span(id, index)?, None),
                },
                (_, None) => (map.component_span(id, index)?, None),
            }
        }
    };
    Some((span.range()?, replacement))
}

/// Where the override of the instance on entity `id` with target `target` writes
/// `component`'s `field` (the last such override), and the text that writes `live` there.
fn in_override(
    parsed: &ParsedScene,
    id: u64,
    target: &[u64],
    component: &str,
    field: Option<&str>,
    live: &str,
) -> Option<(Range<usize>, Option<String>)> {
    let map = &parsed.source_map;
    let instance = parsed.doc.entity(id)?.instance.as_deref()?;
    let index = instance
        .overrides
        .iter()
        .rposition(|o| o.target == target && o.node.is_empty())?;
    let o = &instance.overrides[index];
    let span = |part| map.override_part_span(id, index, part);
    let (span, replacement) = match (component, field) {
        ("name", None) => (span(OverridePart::Field("name"))?, Some(live.to_owned())),
        ("transform", Some(part)) => (span(OverridePart::Transform(part))?, Some(live.to_owned())),
        (component, field) => {
            let set = o.set.iter().map(|p| &p.component);
            match (component_index(set, component), field) {
                (Some(k), Some(field)) => match &o.set[k].component {
                    ComponentData::Custom(c) => {
                        let j = c.fields.iter().rposition(|f| f.name == field)?;
                        (span(OverridePart::SetCustomExpr(k, j))?, Some(quoted(live)))
                    }
                    _ if o.set[k].sets(field) => (
                        span(OverridePart::SetField(k, field))?,
                        Some(live.to_owned()),
                    ),
                    _ => (span(OverridePart::Set(k))?, None),
                },
                (Some(k), None) => (span(OverridePart::Set(k))?, None),
                (None, _) => {
                    let k = component_index(&o.add, component)?;
                    (span(OverridePart::Add(k))?, None)
                }
            }
        }
    };
    Some((span.range()?, replacement))
}

/// The markdown hover adds for a live part.
pub fn markdown(part: &LivePart) -> String {
    let file = part
        .file
        .as_deref()
        .map_or("not written (the type's default)".to_owned(), |f| {
            format!("`{f}`")
        });
    let which = |i: &LiveInstance| format!("`{}` {:?}", i.scene, i.id_path);
    match (part.live(), part.instances.as_slice()) {
        (Some(live), [one]) => format!(
            "**Live** in the running game ({}): `{live}` (the file: {file})",
            which(one)
        ),
        (Some(live), all) => format!(
            "**Live** in the running game, in {} instances ({}): `{live}` (the file: {file})",
            all.len(),
            all.iter().map(which).collect::<Vec<_>>().join(", ")
        ),
        (None, all) => {
            let mut text = format!(
                "**Live values differ** between the instances in the running game (the file: {file}):"
            );
            for i in all {
                text.push_str(&format!("\n- {}: `{}`", which(i), i.live));
            }
            text
        }
    }
}

/// The inlay hint of a live part.
pub fn hint(part: &LivePart) -> String {
    match part.live() {
        Some(live) => format!("live: {live}"),
        None => format!("live: {} values", part.instances.len()),
    }
}
