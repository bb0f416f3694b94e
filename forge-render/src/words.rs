//! A review's structural diff in words, by id path: [`ForgeScene::changes_since`] from base to
//! head, one entry per entity that was added, removed, moved or edited.

use bevy_forge_scene::ForgeScene;
use bevy_forge_scene::diff::{ComponentChange, SceneDiff};
use bevy_forge_scene::format::{ComponentData, SceneDoc};
use serde_json::Value;

use crate::job::{ChangeKind, EntityChangeWords};

/// What spawns of `scene`: its expanded document (prefabs placed, tile layers filled).
fn spawned(scene: &ForgeScene) -> &SceneDoc {
    match scene.expanded() {
        Some(expanded) => &expanded.doc,
        None => scene.doc(),
    }
}

/// The id path of key `key` of `scene`'s spawned document.
fn path_of(scene: &ForgeScene, key: u64) -> Vec<u64> {
    scene
        .expanded()
        .and_then(|e| e.path(key))
        .unwrap_or_else(|| vec![key])
}

/// The changes from `base` to `head`, in the order of [`SceneDiff`]'s lines: the scene's own
/// fields, removed subtrees, added subtrees (an entity added under an added parent is part of
/// its parent's entry), changed entities.
pub fn changes(base: &ForgeScene, head: &ForgeScene) -> Vec<EntityChangeWords> {
    describe(&head.changes_since(base), base, head)
}

fn describe(diff: &SceneDiff, base: &ForgeScene, head: &ForgeScene) -> Vec<EntityChangeWords> {
    let mut out = Vec::new();
    let mut scene_lines = Vec::new();
    if let Some(name) = &diff.name {
        scene_lines.push(format!("name {:?} -> {:?}", name.old, name.new));
    }
    if let Some(v) = &diff.format_version {
        scene_lines.push(format!("format_version {} -> {}", v.old, v.new));
    }
    if !scene_lines.is_empty() {
        out.push(EntityChangeWords {
            kind: ChangeKind::Edited,
            path: Vec::new(),
            name: "the scene".into(),
            lines: scene_lines,
        });
    }
    for removed in &diff.removed {
        let below = removed.ids.len().saturating_sub(1);
        out.push(EntityChangeWords {
            kind: ChangeKind::Removed,
            path: path_of(base, removed.root),
            name: removed.name.to_string(),
            lines: vec![match below {
                0 => "removed".to_owned(),
                1 => "removed with 1 entity below it".to_owned(),
                n => format!("removed with {n} entities below it"),
            }],
        });
    }
    let added: std::collections::HashSet<u64> = diff.added.iter().map(|a| a.id).collect();
    for a in &diff.added {
        if a.parent.is_some_and(|p| added.contains(&p)) {
            continue;
        }
        let below = count_below(spawned(head), a.id);
        let mut line = String::from("added");
        match below {
            0 => {}
            1 => line.push_str(" with 1 entity below it"),
            n => line.push_str(&format!(" with {n} entities below it")),
        }
        let at = head_translation(head, a.id);
        if let Some(t) = at {
            line.push_str(&format!(" at ({}, {}, {})", t[0], t[1], t[2]));
        }
        out.push(EntityChangeWords {
            kind: ChangeKind::Added,
            path: path_of(head, a.id),
            name: a.node.name.to_string(),
            lines: vec![line],
        });
    }
    for change in &diff.changed {
        let moved = change.transform.is_some() || change.parent.is_some();
        let old_node = spawned(base).entities.get(&change.id);
        let mut lines = Vec::new();
        // The library's words, without their `~ <key> ` start; a built-in component's
        // change is told field by field.
        let text = change.to_string();
        let prefix = format!("~ {} ", change.id);
        for line in text.lines() {
            let line = line.strip_prefix(&prefix).unwrap_or(line);
            let expanded = change.components.iter().find_map(|c| match c {
                ComponentChange::Changed { key, component, .. }
                    if component.builtin().is_some()
                        && line == format!("component {key} changed") =>
                {
                    let old = old_node.and_then(|n| n.component(key));
                    old.map(|old| field_lines(key, old, component))
                }
                _ => None,
            });
            match expanded {
                Some(fields) if !fields.is_empty() => lines.extend(fields),
                _ => lines.push(line.to_owned()),
            }
        }
        let name = spawned(head)
            .entities
            .get(&change.id)
            .map(|n| n.name.to_string())
            .unwrap_or_default();
        out.push(EntityChangeWords {
            kind: if moved {
                ChangeKind::Moved
            } else {
                ChangeKind::Edited
            },
            path: path_of(head, change.id),
            name,
            lines,
        });
    }
    out
}

fn head_translation(head: &ForgeScene, key: u64) -> Option<[f32; 3]> {
    let t = spawned(head).entities.get(&key)?.transform.translation;
    Some([t.x, t.y, t.z])
}

fn count_below(doc: &SceneDoc, key: u64) -> usize {
    let mut n = 0;
    let mut stack: Vec<u64> = doc
        .entities
        .get(&key)
        .map(|e| e.children.clone())
        .unwrap_or_default();
    while let Some(k) = stack.pop() {
        n += 1;
        if n > doc.entities.len() {
            break;
        }
        if let Some(e) = doc.entities.get(&k) {
            stack.extend(e.children.iter().copied());
        }
    }
    n
}

/// `point_light intensity 1000.0 -> 4000.0`, one line per field of a built-in component that
/// differs (nested fields dotted: `material.base_color.r`).
fn field_lines(key: &str, old: &ComponentData, new: &ComponentData) -> Vec<String> {
    // Through text, so `f32`s read as they are written (`0.4`, not `0.4000000059604645`).
    let value = |c: &ComponentData| {
        serde_json::to_string(c)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    };
    let (Some(old), Some(new)) = (value(old), value(new)) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    walk(
        key,
        "",
        old.get("data").unwrap_or(&Value::Null),
        new.get("data").unwrap_or(&Value::Null),
        &mut lines,
    );
    lines
}

fn walk(key: &str, at: &str, old: &Value, new: &Value, lines: &mut Vec<String>) {
    if old == new {
        return;
    }
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            for (name, b_value) in b {
                let path = if at.is_empty() {
                    name.clone()
                } else {
                    format!("{at}.{name}")
                };
                walk(
                    key,
                    &path,
                    a.get(name).unwrap_or(&Value::Null),
                    b_value,
                    lines,
                );
            }
            for (name, a_value) in a {
                if !b.contains_key(name) {
                    let path = if at.is_empty() {
                        name.clone()
                    } else {
                        format!("{at}.{name}")
                    };
                    walk(key, &path, a_value, &Value::Null, lines);
                }
            }
        }
        _ => {
            let field = if at.is_empty() {
                String::new()
            } else {
                format!(" {at}")
            };
            lines.push(format!("{key}{field} {} -> {}", short(old), short(new)));
        }
    }
}

fn short(v: &Value) -> String {
    match v {
        Value::Null => "none".to_owned(),
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}
