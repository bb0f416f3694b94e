//! `forge tree`: the entity hierarchy as text.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use bevy_forge_scene::format::{ComponentData, Instance, SceneDoc, TileLayer};
use bevy_forge_scene::prefab::ExpandedScene;
use bevy_forge_scene::validate::{ModelEntity, ModelTree};

/// The hierarchy of a scene (`source`, as written) with its prefab instances expanded: each entity by its id path
/// (`[3, 1]`), each instance entity marked with the prefab it places (and its radii when it is
/// a streamed cell). A tile layer of `layers`
/// is one line, a summary of its cells (`--flat` lists them). An entity placing a glTF model
/// (the scene's own, or one a placed prefab has) shows the model's entities below it as the
/// game spawns them (read from `assets`, the assets directory): each node marked `(model)`
/// (`camera3d` on a camera node, whose entity holds the camera), a node's light entity under
/// it, the entities an override reaches marked `overridden` (of same-named siblings the first,
/// as at run time; a mesh primitive is shown when an override reaches it), the scene's
/// entities an override's `children` puts under a node under that node, then each override
/// target naming nothing in the model.
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
    let placed = |key: u64| {
        let instance = model(key)?;
        let (tree, scene) = ModelTree::open(assets?, instance.model.as_deref()?).ok()?;
        (scene < tree.scenes.len()).then_some((tree, scene, instance))
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
    Render {
        doc: &expanded.doc,
        id_text: &id,
        note: &note,
        collapsed: &|key| layer(key).is_some(),
        model: &placed,
    }
    .scene()
}

/// What a model instance entity shows below it: the model's tree, the scene index and the
/// instance.
type Placed<'a> = (ModelTree, usize, &'a Instance);

/// A scene's hierarchy written as text, one entity per line (see [`Render::scene`]).
struct Render<'a> {
    doc: &'a SceneDoc,
    /// An entity's id as shown (its key, or its id path).
    id_text: &'a dyn Fn(u64) -> String,
    /// What follows an entity's line in parentheses.
    note: &'a dyn Fn(u64) -> Option<String>,
    /// Whether an entity's subtree is summed up in its note (a tile layer) and not shown.
    collapsed: &'a dyn Fn(u64) -> bool,
    /// The placed model of an entity, when it places one that can be shown.
    model: &'a dyn Fn(u64) -> Option<Placed<'a>>,
}

impl Render<'_> {
    /// The hierarchy of the document: the scene name, then each root in `roots` order with
    /// its subtree in `children` order, one entity per line (`id "name" [component keys]`,
    /// then the note in parentheses). Entities that no root reaches are listed after, flat.
    /// Terminates on malformed forests (each entity is shown once).
    fn scene(&self) -> String {
        let doc = self.doc;
        let mut out = String::new();
        let _ = writeln!(out, "{:?} ({} entities)", doc.name, doc.entities.len());
        let mut seen = HashSet::with_capacity(doc.entities.len());
        self.entities(&doc.roots, "", &mut seen, &mut out);
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
                        line(&(self.id_text)(id), &node.components, &node.name)
                    );
                }
            }
        }
        out
    }

    /// The entities `ids` (the last of them last under `prefix`) with their subtrees.
    fn entities(&self, ids: &[u64], prefix: &str, seen: &mut HashSet<u64>, out: &mut String) {
        let doc = self.doc;
        // (id, prefix of its line, is last sibling)
        let mut stack: Vec<(u64, String, bool)> = Vec::new();
        push_children(&mut stack, ids, prefix);
        while let Some((id, prefix, last)) = stack.pop() {
            let Some(node) = doc.entity(id) else {
                let _ = writeln!(out, "{prefix}{} {id} (missing)", branch(last));
                continue;
            };
            if !seen.insert(id) {
                let _ = writeln!(out, "{prefix}{} {id} (already shown)", branch(last));
                continue;
            }
            let mut text = line(&(self.id_text)(id), &node.components, &node.name);
            if let Some(note) = (self.note)(id) {
                text.push_str(&format!(" ({note})"));
            }
            let _ = writeln!(out, "{prefix}{} {text}", branch(last));
            if (self.collapsed)(id) {
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
            let mut children = node.children.clone();
            if let Some((tree, scene, instance)) = (self.model)(id) {
                let walk = Walk::new(&tree, scene, instance);
                // The scene's entities an override puts under a node are shown there.
                children.retain(|c| !walk.moved.values().flatten().any(|m| m == c));
                walk.write(self, &child_prefix, children.is_empty(), seen, out);
            }
            push_children(&mut stack, &children, &child_prefix);
        }
    }
}

/// A walk down a placed model's tree, writing tree lines.
struct Walk<'a> {
    tree: &'a ModelTree,
    scene: usize,
    /// The model's entities the instance's overrides reach (of same-named siblings the
    /// first, as at run time).
    reached: HashSet<ModelEntity>,
    /// The scene's entities the overrides put under each model entity, in override order.
    moved: HashMap<ModelEntity, Vec<u64>>,
    /// Override targets naming nothing in the model.
    missing: Vec<String>,
    /// Nodes written (a malformed model may list a node twice or loop: each is shown once).
    seen: HashSet<usize>,
}

impl<'a> Walk<'a> {
    fn new(tree: &'a ModelTree, scene: usize, instance: &Instance) -> Self {
        let mut walk = Walk {
            tree,
            scene,
            reached: HashSet::new(),
            moved: HashMap::new(),
            missing: Vec::new(),
            seen: HashSet::new(),
        };
        for o in instance.overrides.iter().filter(|o| !o.node.is_empty()) {
            match tree.resolve(scene, &o.node) {
                Ok(entity) => {
                    walk.reached.insert(entity);
                    let moved = walk.moved.entry(entity).or_default();
                    for child in &o.children {
                        if !moved.contains(child) {
                            moved.push(*child);
                        }
                    }
                }
                Err(_) => {
                    let path: Vec<&str> = o.node.iter().map(|n| n.as_str()).collect();
                    walk.missing.push(format!("{path:?}"));
                }
            }
        }
        walk
    }

    /// The model's root nodes and what is below them under `prefix`, then the override
    /// targets naming nothing; `last` says nothing follows them.
    fn write(
        mut self,
        render: &Render<'_>,
        prefix: &str,
        last: bool,
        seen: &mut HashSet<u64>,
        out: &mut String,
    ) {
        let roots = self.tree.scenes[self.scene].clone();
        let missing = std::mem::take(&mut self.missing);
        let below: Vec<(ModelEntity, &str)> = roots
            .iter()
            .filter_map(|i| Some((ModelEntity::Node(*i), self.tree.nodes.get(*i)?.0.as_str())))
            .collect();
        self.below(
            render,
            &below,
            prefix,
            last && missing.is_empty(),
            seen,
            out,
        );
        for (i, path) in missing.iter().enumerate() {
            let end = last && i + 1 == missing.len();
            let _ = writeln!(
                out,
                "{prefix}{} {path} (override target: no such node in the model)",
                branch(end)
            );
        }
    }

    /// The model entities `entities` (shown ones: nodes, lights, primitives an override
    /// reaches) with what is below each, under `prefix`; `last` says nothing follows them.
    fn below(
        &mut self,
        render: &Render<'_>,
        entities: &[(ModelEntity, &str)],
        prefix: &str,
        last: bool,
        seen: &mut HashSet<u64>,
        out: &mut String,
    ) {
        let shown: Vec<&(ModelEntity, &str)> = entities
            .iter()
            .filter(|(e, _)| match e {
                ModelEntity::Primitive { .. } => self.reached.contains(e),
                _ => true,
            })
            .collect();
        for (i, (entity, name)) in shown.iter().enumerate() {
            let is_last = last && i + 1 == shown.len();
            let mut marks = vec![match entity {
                ModelEntity::Light { .. } => {
                    format!("model light: {}", self.tree.builtins_at(*entity).join(", "))
                }
                ModelEntity::Primitive { .. } => "model mesh primitive".to_owned(),
                _ => "model".to_owned(),
            }];
            if let ModelEntity::Node(node) = entity {
                if !self.seen.insert(*node) {
                    let _ = writeln!(
                        out,
                        "{prefix}{} {name:?} (model, already shown)",
                        branch(is_last)
                    );
                    continue;
                }
                if self
                    .tree
                    .parts
                    .get(*node)
                    .is_some_and(|p| p.camera.is_some())
                {
                    marks.push("camera3d".to_owned());
                }
            }
            if self.reached.contains(entity) {
                marks.push("overridden".to_owned());
            }
            let _ = writeln!(
                out,
                "{prefix}{} {name:?} ({})",
                branch(is_last),
                marks.join(", ")
            );
            let child_prefix = format!("{prefix}{}", if is_last { "    " } else { "|   " });
            let children: Vec<(ModelEntity, &str)> = match entity {
                ModelEntity::Node(node) => self.tree.entities_below(*node),
                _ => Vec::new(),
            };
            let moved = self.moved.get(entity).cloned().unwrap_or_default();
            self.below(
                render,
                &children,
                &child_prefix,
                moved.is_empty(),
                seen,
                out,
            );
            render.entities(&moved, &child_prefix, seen, out);
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
        Render {
            doc,
            id_text: &|id| id.to_string(),
            note: &|_| None,
            collapsed: &|_| false,
            model: &|_| None,
        }
        .scene()
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
