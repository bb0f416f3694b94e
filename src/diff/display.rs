//! Diffs in words: one line per change, as hot reload logs them (`scene reloaded:` ...).

use std::fmt;

use super::{Change, ComponentChange, EntityChange, SceneDiff};
use crate::format::Vec3Data;

struct V(Vec3Data);

impl fmt::Display for V {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.0.x, self.0.y, self.0.z)
    }
}

struct Ids<'a>(&'a [u64]);

impl fmt::Display for Ids<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, id) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{id}")?;
        }
        f.write_str("]")
    }
}

struct Place(Option<u64>, usize);

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, "under {p} at {}", self.1),
            None => write!(f, "at root {}", self.1),
        }
    }
}

fn list_change(f: &mut fmt::Formatter<'_>, what: &str, c: &Change<Vec<u64>>) -> fmt::Result {
    let verb = if c.is_reorder() { " reordered" } else { "" };
    writeln!(f, "{what}{verb} {} -> {}", Ids(&c.old), Ids(&c.new))
}

impl fmt::Display for EntityChange {
    /// One line per change, each starting `~ <id> `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.id;
        if let Some(name) = &self.name {
            writeln!(f, "~ {id} renamed {:?} -> {:?}", name.old, name.new)?;
        }
        if let Some(p) = &self.parent {
            let from = match p.old {
                Some(old) => format!("from under {old}"),
                None => "from the roots".to_owned(),
            };
            writeln!(f, "~ {id} moved {} ({from})", Place(p.new, p.index))?;
        }
        if let Some(t) = &self.transform {
            let (a, b) = (&t.old, &t.new);
            for (part, x, y) in [
                ("translation", a.translation, b.translation),
                ("rotation", a.rotation, b.rotation),
                ("scale", a.scale, b.scale),
            ] {
                if x != y {
                    writeln!(f, "~ {id} transform {part} {} -> {}", V(x), V(y))?;
                }
            }
        }
        if let Some(l) = &self.locked {
            writeln!(f, "~ {id} locked {} -> {}", l.old, l.new)?;
        }
        for c in &self.components {
            match c {
                ComponentChange::Added { index, component } => {
                    writeln!(f, "~ {id} component {} added at {index}", component.key())?;
                }
                ComponentChange::Removed { key } => writeln!(f, "~ {id} component {key} removed")?,
                ComponentChange::Changed {
                    key,
                    fields: Some(fields),
                    ..
                } => {
                    if fields.is_empty() {
                        writeln!(f, "~ {id} {key} fields reordered")?;
                    }
                    for field in fields {
                        let name = &field.name;
                        match (&field.old, &field.new) {
                            (Some(a), Some(b)) => {
                                writeln!(f, "~ {id} {key} field {name} {a:?} -> {b:?}")?;
                            }
                            (None, Some(b)) => {
                                writeln!(f, "~ {id} {key} field {name} added {b:?}")?
                            }
                            (Some(a), None) => {
                                writeln!(f, "~ {id} {key} field {name} removed (was {a:?})")?;
                            }
                            (None, None) => {}
                        }
                    }
                }
                ComponentChange::Changed { key, .. } => {
                    writeln!(f, "~ {id} component {key} changed")?;
                }
            }
        }
        if let Some(order) = &self.component_order {
            writeln!(f, "~ {id} components reordered [{}]", order.join(", "))?;
        }
        if let Some(children) = &self.children {
            list_change(f, &format!("~ {id} children"), children)?;
        }
        if let Some(instance) = &self.instance {
            match (&instance.old, &instance.new) {
                (_, None) => writeln!(f, "~ {id} instance removed")?,
                (None, Some(new)) => writeln!(f, "~ {id} instance of {:?} added", placed(new))?,
                (Some(old), Some(new)) if placed(old) != placed(new) => {
                    writeln!(f, "~ {id} instance {:?} -> {:?}", placed(old), placed(new))?;
                }
                (Some(_), Some(new)) => writeln!(
                    f,
                    "~ {id} instance overrides changed ({} override(s))",
                    new.overrides.len()
                )?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for SceneDiff {
    /// One line per change, each ending in a newline, in a stable order: scene fields, removed
    /// subtrees, added entities, changed entities (each entity's lines together), roots, file
    /// order. Lines start with `-` (removed), `+` (added) or `~` (changed). Names and expressions
    /// are quoted and escaped as Rust strings. An empty diff prints nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(v) = &self.format_version {
            writeln!(f, "~ scene format_version {} -> {}", v.old, v.new)?;
        }
        if let Some(name) = &self.name {
            writeln!(f, "~ scene name {:?} -> {:?}", name.old, name.new)?;
        }
        if let Some(n) = &self.next_id {
            writeln!(f, "~ scene next_id {} -> {}", n.old, n.new)?;
        }
        for r in &self.removed {
            write!(f, "- {} {:?}", r.root, r.name)?;
            match r.ids.len() {
                1 => writeln!(f)?,
                n => writeln!(f, " (subtree of {n} entities)")?,
            }
        }
        for a in &self.added {
            writeln!(
                f,
                "+ {} {:?} {}",
                a.id,
                a.node.name,
                Place(a.parent, a.index)
            )?;
        }
        for c in &self.changed {
            write!(f, "{c}")?;
        }
        if let Some(roots) = &self.roots {
            list_change(f, "~ roots", roots)?;
        }
        if self.file_order.is_some() {
            writeln!(f, "~ file order changed")?;
        }
        Ok(())
    }
}

/// What an instance places: its model, or its prefab scene.
fn placed(instance: &crate::format::Instance) -> &str {
    instance.model.as_deref().unwrap_or(&instance.scene)
}
