//! `forge tree`: the entity hierarchy as text.

use std::collections::HashSet;
use std::fmt::Write as _;

use bevy_forge_scene::format::{ComponentData, SceneDoc};

/// The hierarchy of `doc`: the scene name, then each root in `roots` order with its subtree in
/// `children` order, one entity per line (`id "name" [component keys]`). Entities that no root
/// reaches are listed after, flat. Terminates on malformed forests (each entity is shown once).
pub fn render(doc: &SceneDoc) -> String {
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
        let _ = writeln!(
            out,
            "{prefix}{} {}",
            branch(last),
            line(id, &node.components, &node.name)
        );
        let child_prefix = format!("{prefix}{}", if last { "    " } else { "|   " });
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
                let _ = writeln!(out, "    {}", line(id, &node.components, &node.name));
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

fn line(id: u64, components: &[ComponentData], name: &str) -> String {
    let keys: Vec<String> = components.iter().map(ComponentData::key).collect();
    format!("{id} {name:?} [{}]", keys.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

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
