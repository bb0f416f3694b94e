//! `forge tree`: the entity hierarchy as text.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use bevy_forge_scene::format::{ComponentData, Instance, SceneDoc, TileLayer};
use bevy_forge_scene::prefab::ExpandedScene;
use bevy_forge_scene::validate::ModelTree;

/// The hierarchy of a scene (`source`, as written) with its prefab instances expanded: each entity by its id path
/// (`[3, 1]`), each instance entity marked with the prefab it places (and its radii when it is
/// a streamed cell). A tile layer of `layers`
/// is one line, a summary of its cells (`--flat` lists them). An entity placing a glTF model
/// (the scene's own, or one a placed prefab has) shows the model's node tree below it (read
/// from `assets`, the assets directory), each node marked `(model)`, then each override target
/// naming no node of the model.
pub fn render_expanded(
    expanded: &ExpandedScene,
    source: &SceneDoc,
    assets: Option<&Path>,
) -> String {
    let layers = &source.layers;
    let id = |key: u64| match expanded.placed_path(key) {
        Some(path) => format!("{path:?}"),
        None => key.to_string(),
    };
    let layer = |key: u64| {
        layers
            .iter()
            .find(|l| l.id == key && expanded.placed_path(key).is_none())
    };
    // Every model instance that spawns: the scene's own, and those its placed prefabs have
    // (the expansion keeps them as their prefabs write them).
    let model = |key: u64| {
        expanded
            .doc
            .entities
            .get(&key)
            .and_then(|n| n.instance.as_deref())
            .filter(|i| i.model.is_some())
    };
    let nodes = |key: u64, prefix: &str, last: bool, out: &mut String| {
        let (Some(instance), Some(assets)) = (model(key), assets) else {
            return;
        };
        let Some(path) = instance.model.as_deref() else {
            return;
        };
        if let Ok((tree, scene)) = ModelTree::open(assets, path)
            && let Some(roots) = tree.scenes.get(scene)
        {
            let mut walk = Walk {
                tree: &tree,
                instance,
                at: Vec::new(),
                seen: HashSet::new(),
            };
            // Overrides naming no node of the model: after the nodes, so a typo shows.
            let missing: Vec<String> = instance
                .overrides
                .iter()
                .filter(|o| !o.node.is_empty() && tree.find(scene, &o.node).is_err())
                .map(|o| {
                    let path: Vec<&str> = o.node.iter().map(|n| n.as_str()).collect();
                    format!("{path:?}")
                })
                .collect();
            walk.nodes(out, roots, prefix, last && missing.is_empty());
            for (i, path) in missing.iter().enumerate() {
                let end = last && i + 1 == missing.len();
                let _ = writeln!(
                    out,
                    "{prefix}{} {path} (override target: no such node in the model)",
                    branch(end)
                );
            }
        }
    };
    let note = |key: u64| {
        if let Some(l) = layer(key) {
            return Some(layer_summary(l));
        }
        // A streamed cell of this scene (its own instance entities only: the runtime streams
        // those) says so with its radii.
        let streamed = expanded
            .placed_path(key)
            .is_none()
            .then(|| source.entities.get(&key))
            .flatten()
            .and_then(|n| n.instance.as_deref())
            .and_then(|i| i.streaming);
        let radii = |s: bevy_forge_scene::format::Streaming| {
            format!(
                ", streamed: load radius {}, unload radius {}",
                s.load_radius, s.unload_radius
            )
        };
        if let Some(path) = model(key).and_then(|i| i.model.as_deref()) {
            let read = match assets.map(|a| ModelTree::open(a, path)) {
                Some(Ok((tree, scene))) if scene >= tree.scenes.len() => {
                    format!(", it has no scene {scene}")
                }
                Some(Err(why)) => format!(", its nodes not shown: {why}"),
                _ => String::new(),
            };
            let streamed = streamed.map(radii).unwrap_or_default();
            return Some(format!("model {path:?}{streamed}{read}"));
        }
        expanded.instance_scene(key).map(|scene| match streamed {
            Some(s) => format!("instance of {scene:?}{}", radii(s)),
            None => format!("instance of {scene:?}"),
        })
    };
    render_with(
        &expanded.doc,
        &id,
        &note,
        &|key| layer(key).is_some(),
        &nodes,
    )
}

/// A walk down a placed model's node tree, writing tree lines.
struct Walk<'a> {
    tree: &'a ModelTree,
    instance: &'a Instance,
    /// The node path so far.
    at: Vec<String>,
    /// Nodes written (a malformed model may list a node twice or loop: each is shown once).
    seen: HashSet<usize>,
}

impl Walk<'_> {
    /// The nodes `indices` (and below) under `prefix`: `"Roof" (model)`, with `, overridden`
    /// when an override of the instance targets the node; `last` says nothing follows them.
    fn nodes(&mut self, out: &mut String, indices: &[usize], prefix: &str, last: bool) {
        for (i, node) in indices.iter().enumerate() {
            let (name, children) = &self.tree.nodes[*node];
            let is_last = last && i + 1 == indices.len();
            if !self.seen.insert(*node) {
                let _ = writeln!(
                    out,
                    "{prefix}{} {name:?} (model, already shown)",
                    branch(is_last)
                );
                continue;
            }
            self.at.push(name.clone());
            let overridden = self.instance.overrides.iter().any(|o| {
                o.node
                    .iter()
                    .map(|n| n.as_str())
                    .eq(self.at.iter().map(String::as_str))
            });
            let mark = if overridden {
                "model, overridden"
            } else {
                "model"
            };
            let _ = writeln!(out, "{prefix}{} {name:?} ({mark})", branch(is_last));
            let below = format!("{prefix}{}", if is_last { "    " } else { "|   " });
            self.nodes(out, children, &below, true);
            self.at.pop();
        }
    }
}

/// A tile layer in one line: its plane and size, then each palette key with its prefab and how
/// many cells it fills.
fn layer_summary(l: &TileLayer) -> String {
    let width = l.rows.first().map_or(0, |r| r.chars().count());
    let shape = if l.cells.is_empty() {
        format!("{width} x {} cells", l.rows.len())
    } else {
        format!("{} sparse cells", l.cells.len())
    };
    let mut counts: Vec<(char, usize)> = l.palette.iter().map(|(k, _)| (*k, 0)).collect();
    let mut filled = 0;
    for (_, _, key, _) in l.filled() {
        filled += 1;
        if let Some(c) = counts.iter_mut().find(|(k, _)| *k == key) {
            c.1 += 1;
        }
    }
    let keys: Vec<String> = counts
        .iter()
        .zip(&l.palette)
        .map(|((k, n), (_, scene))| format!("{k:?} {scene:?} x{n}"))
        .collect();
    format!(
        "tile layer, {} plane, {shape}, {filled} filled: {}",
        l.plane.name(),
        keys.join(", ")
    )
}

/// Every entity of the expanded scene on its own line, in document order: id path, name,
/// component keys, and the parent's id path.
pub fn render_flat(expanded: &ExpandedScene) -> String {
    let mut out = String::new();
    let doc = &expanded.doc;
    let _ = writeln!(out, "{:?} ({} entities)", doc.name, doc.entities.len());
    let path = |key: u64| match expanded.placed_path(key) {
        Some(path) => format!("{path:?}"),
        None => format!("[{key}]"),
    };
    for (key, node) in &doc.entities {
        let keys: Vec<String> = node.components.iter().map(ComponentData::key).collect();
        let parent = node
            .parent
            .map_or("root".to_owned(), |p| format!("in {}", path(p)));
        let _ = writeln!(
            out,
            "{} {:?} [{}] {parent}",
            path(*key),
            node.name,
            keys.join(", ")
        );
    }
    out
}

/// The hierarchy of `doc`: the scene name, then each root in `roots` order with its subtree in
/// `children` order, one entity per line (`id "name" [component keys]`, the id as `id_text`
/// gives it, then `note` in parentheses). Entities that no root reaches are listed after, flat.
/// Terminates on malformed forests (each entity is shown once).
fn render_with(
    doc: &SceneDoc,
    id_text: &dyn Fn(u64) -> String,
    note: &dyn Fn(u64) -> Option<String>,
    collapsed: &dyn Fn(u64) -> bool,
    extra: &dyn Fn(u64, &str, bool, &mut String),
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:?} ({} entities)", doc.name, doc.entities.len());
    let mut seen = HashSet::with_capacity(doc.entities.len());
    // (id, prefix of its line, prefix for its children, is last sibling)
    let roots: Vec<u64> = doc.roots.clone();
    let mut stack: Vec<(u64, String, bool)> = Vec::new();
    push_children(&mut stack, &roots, "");
    while let Some((id, prefix, last)) = stack.pop() {
        let Some(node) = doc.entity(id) else {
            let _ = writeln!(out, "{prefix}{} {id} (missing)", branch(last));
            continue;
        };
        if !seen.insert(id) {
            let _ = writeln!(out, "{prefix}{} {id} (already shown)", branch(last));
            continue;
        }
        let mut text = line(&id_text(id), &node.components, &node.name);
        if let Some(note) = note(id) {
            text.push_str(&format!(" ({note})"));
        }
        let _ = writeln!(out, "{prefix}{} {text}", branch(last));
        if collapsed(id) {
            // Its subtree is summed up in the note: count it as shown.
            let mut below = node.children.clone();
            while let Some(c) = below.pop() {
                if seen.insert(c)
                    && let Some(n) = doc.entity(c)
                {
                    below.extend(&n.children);
                }
            }
            continue;
        }
        let child_prefix = format!("{prefix}{}", if last { "    " } else { "|   " });
        extra(id, &child_prefix, node.children.is_empty(), &mut out);
        push_children(&mut stack, &node.children, &child_prefix);
    }
    let unreached: Vec<u64> = doc
        .entities
        .keys()
        .copied()
        .filter(|id| !seen.contains(id))
        .collect();
    if !unreached.is_empty() {
        let _ = writeln!(out, "not reachable from roots:");
        for id in unreached {
            if let Some(node) = doc.entity(id) {
                let _ = writeln!(
                    out,
                    "    {}",
                    line(&id_text(id), &node.components, &node.name)
                );
            }
        }
    }
    out
}

fn push_children(stack: &mut Vec<(u64, String, bool)>, children: &[u64], prefix: &str) {
    for (i, child) in children.iter().enumerate().rev() {
        stack.push((*child, prefix.to_owned(), i + 1 == children.len()));
    }
}

fn branch(last: bool) -> &'static str {
    if last { "`--" } else { "|--" }
}

fn line(id: &str, components: &[ComponentData], name: &str) -> String {
    let keys: Vec<String> = components.iter().map(ComponentData::key).collect();
    format!("{id} {name:?} [{}]", keys.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(doc: &SceneDoc) -> String {
        render_with(
            doc,
            &|id| id.to_string(),
            &|_| None,
            &|_| false,
            &|_, _, _, _| {},
        )
    }

    #[test]
    fn shows_roots_and_children_in_file_order() {
        let mut doc = SceneDoc::new("Demo");
        let a = doc.add_entity("A", None).unwrap_or_default();
        let b = doc.add_entity("B", None).unwrap_or_default();
        let c = doc.add_entity("C", Some(a)).unwrap_or_default();
        let _ = doc.add_component(c, ComponentData::Camera2d);
        let _ = doc.add_entity("D", Some(a));
        let _ = doc.add_entity("E", Some(b));
        assert_eq!(
            render(&doc),
            "\"Demo\" (5 entities)\n\
             |-- 1 \"A\" []\n\
             |   |-- 3 \"C\" [camera2d]\n\
             |   `-- 4 \"D\" []\n\
             `-- 2 \"B\" []\n\
             \x20   `-- 5 \"E\" []\n"
        );
    }

    #[test]
    fn malformed_forests_terminate() {
        let mut doc = SceneDoc::new("Loop");
        let a = doc.add_entity("A", None).unwrap_or_default();
        let b = doc.add_entity("B", Some(a)).unwrap_or_default();
        let _ = doc.add_entity("Lost", None);
        doc.roots.retain(|r| *r != 3);
        if let Some(node) = doc.entity_mut(b) {
            node.children = vec![a, 99];
        }
        let out = render(&doc);
        assert!(out.contains("1 (already shown)"), "{out}");
        assert!(out.contains("99 (missing)"), "{out}");
        assert!(
            out.contains("not reachable from roots:\n    3 \"Lost\" []"),
            "{out}"
        );
    }
}
