//! A review's structural diff in words, by id path: the [`diff`] of two versions' spawned
//! documents (prefabs placed, tile layers filled), one entry per entity that was added,
//! removed, moved or edited.
//!
//! The versions are read from their files with the game's own (custom) components, which the
//! render leaves out: a change of them alone is listed, as drawing nothing.

use std::path::Path;

use bevy_forge_scene::diff::{ComponentChange, SceneDiff, diff};
use bevy_forge_scene::format::{ComponentData, SceneDoc};
use bevy_forge_scene::pipeline::{Checked, PrefabFiles, Source, check};
use serde_json::Value;

use crate::job::{ChangeKind, EntityChangeWords};

/// One version of a scene as its file says: read and checked with the prefab files it places
/// (what the loader does, custom components kept).
#[derive(Debug)]
pub struct Version(Checked);

impl Version {
    /// Reads the scene `file`, its prefab files from the asset folder `assets`.
    ///
    /// # Errors
    /// The file's error, or the reader's for text that does not read (with its line and
    /// column).
    pub fn read(file: &Path, assets: &Path) -> Result<Version, String> {
        let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let name = file
            .strip_prefix(assets)
            .unwrap_or(file)
            .to_string_lossy()
            .replace('\\', "/");
        let source = Source::read(name, &bytes).map_err(|e| format!("{}: {e}", file.display()))?;
        let root = assets.to_owned();
        let mut files =
            PrefabFiles::new(move |p: &str| std::fs::read(root.join(p)).map_err(|e| e.to_string()));
        Ok(Version(check(source, &mut files)))
    }

    /// What spawns: the expanded document (prefabs placed, tile layers filled).
    fn spawned(&self) -> &SceneDoc {
        self.0.spawned()
    }

    /// The id path of key `key` of the spawned document.
    fn path_of(&self, key: u64) -> Vec<u64> {
        self.0
            .expanded
            .as_ref()
            .and_then(|e| e.path(key))
            .unwrap_or_else(|| vec![key])
    }
}

/// The changes from `base` to `head`, in the order of [`SceneDiff`]'s lines: the scene's own
/// fields, removed subtrees, added subtrees (an entity added under an added parent is part of
/// its parent's entry), changed entities.
pub fn changes(base: &Version, head: &Version) -> Vec<EntityChangeWords> {
    describe(&diff(base.spawned(), head.spawned()), base, head)
}

fn describe(diff: &SceneDiff, base: &Version, head: &Version) -> Vec<EntityChangeWords> {
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
            draws: false,
        });
    }
    for removed in &diff.removed {
        let below = removed.ids.len().saturating_sub(1);
        out.push(EntityChangeWords {
            kind: ChangeKind::Removed,
            path: base.path_of(removed.root),
            name: removed.name.to_string(),
            lines: vec![match below {
                0 => "removed".to_owned(),
                1 => "removed with 1 entity below it".to_owned(),
                n => format!("removed with {n} entities below it"),
            }],
            draws: true,
        });
    }
    let added: std::collections::HashSet<u64> = diff.added.iter().map(|a| a.id).collect();
    for a in &diff.added {
        if a.parent.is_some_and(|p| added.contains(&p)) {
            continue;
        }
        let below = count_below(head.spawned(), a.id);
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
            path: head.path_of(a.id),
            name: a.node.name.to_string(),
            lines: vec![line],
            draws: true,
        });
    }
    for change in &diff.changed {
        let moved = change.transform.is_some() || change.parent.is_some();
        let old_node = base.spawned().entities.get(&change.id);
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
        let name = head
            .spawned()
            .entities
            .get(&change.id)
            .map(|n| n.name.to_string())
            .unwrap_or_default();
        // The game's own components are left out of a render: changing only them draws
        // nothing, as a name or the `locked` flag.
        let draws = moved
            || change
                .components
                .iter()
                .any(|c| !c.key().starts_with("custom:"));
        out.push(EntityChangeWords {
            kind: if moved {
                ChangeKind::Moved
            } else {
                ChangeKind::Edited
            },
            path: head.path_of(change.id),
            name,
            lines,
            draws,
        });
    }
    out
}

fn head_translation(head: &Version, key: u64) -> Option<[f32; 3]> {
    let t = head.spawned().entities.get(&key)?.transform.translation;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(id: u64, parent: Option<u64>, children: &[u64], x: f32, comps: &str) -> String {
        let parent = parent.map_or("None".to_owned(), |p| format!("Some({p})"));
        let children: Vec<String> = children.iter().map(u64::to_string).collect();
        format!(
            "    {id}: (id: {id}, name: \"E{id}\", parent: {parent}, children: [{}], transform: (translation: (x: {x}, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [{comps}]),\n",
            children.join(", ")
        )
    }

    fn scene(dir: &Path, name: &str, entities: &[String], roots: &[u64]) -> Version {
        let roots: Vec<String> = roots.iter().map(u64::to_string).collect();
        let text = format!(
            "(\n  format_version: 1,\n  name: \"S\",\n  entities: {{\n{}  }},\n  roots: [{}],\n  next_id: 20,\n)\n",
            entities.concat(),
            roots.join(", ")
        );
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        Version::read(&file, dir).unwrap()
    }

    /// A change of the game's own components alone is listed and draws nothing; an entity
    /// added with one below it is one entry; a move and a built-in's change draw.
    #[test]
    fn game_components_alone_draw_nothing_and_added_subtrees_are_one_change() {
        let dir = tempfile::tempdir().unwrap();
        let sprite = |r: f32| {
            format!(
                "(type: sprite, data: (image: None, color: (r: {r}, g: 0, b: 0, a: 1), custom_size: Some((x: 4, y: 4)), flip_x: false, flip_y: false))"
            )
        };
        let game = |v: &str| {
            format!(
                "(type: custom, data: (type_path: \"demo::Health\", fields: [(name: \"hp\", expr: \"{v}\")]))"
            )
        };
        let base = scene(
            dir.path(),
            "base.forge.ron",
            &[
                entity(1, None, &[], 0.0, &game("3")),
                entity(2, None, &[], 0.0, &sprite(1.0)),
                entity(3, None, &[], 0.0, &sprite(1.0)),
            ],
            &[1, 2, 3],
        );
        let head = scene(
            dir.path(),
            "head.forge.ron",
            &[
                entity(1, None, &[], 0.0, &game("5")),
                entity(2, None, &[], 0.0, &sprite(0.5)),
                entity(3, None, &[], 2.0, &sprite(1.0)),
                entity(4, None, &[5], 0.0, &sprite(1.0)),
                entity(5, Some(4), &[], 0.0, &sprite(1.0)),
            ],
            &[1, 2, 3, 4],
        );
        let words = changes(&base, &head);
        let by = |id: u64| words.iter().find(|w| w.path == [id]).unwrap();
        assert_eq!(words.len(), 4, "{words:#?}");
        assert_eq!((by(1).kind, by(1).draws), (ChangeKind::Edited, false));
        assert!(by(1).lines[0].contains("demo::Health"), "{:?}", by(1).lines);
        assert_eq!((by(2).kind, by(2).draws), (ChangeKind::Edited, true));
        assert_eq!(by(2).lines, ["sprite color.r 1.0 -> 0.5"]);
        assert_eq!((by(3).kind, by(3).draws), (ChangeKind::Moved, true));
        assert_eq!((by(4).kind, by(4).draws), (ChangeKind::Added, true));
        assert_eq!(by(4).lines, ["added with 1 entity below it at (0, 0, 0)"]);
    }
}
