//! The built-in components as the library describes them
//! ([`bevy_forge_scene::format::BUILTINS`], one descriptor per tag), with what an editor adds:
//! a value to write for each field in a new entry, and the markdown hover shows.

use bevy_forge_scene::format::{BuiltinField, BuiltinTag, FieldKind, Payload};

pub use bevy_forge_scene::format::{BUILTINS, builtin_tag as builtin};

/// A white colour, what a new colour field is written as.
const WHITE: &str = "(r: 1.0, g: 1.0, b: 1.0, a: 1.0)";

/// What a new entry writes for `field`: its default, else a value of its kind.
pub fn example(field: &BuiltinField) -> &'static str {
    if let Some(default) = field.default {
        return default;
    }
    match field.kind {
        FieldKind::Float => "1.0",
        FieldKind::Bool => "false",
        FieldKind::Text => "\"\"",
        FieldKind::Color => WHITE,
        FieldKind::Mesh => "(source: primitive, value: sphere(radius: 0.5))",
        // Optional kinds; and any kind added later.
        _ => "None",
    }
}

/// The names written at the top of `b`'s payload, in order, a group once (`mesh`,
/// `material`), each with the fields it holds.
pub fn top_names(b: &BuiltinTag) -> Vec<(&'static str, Vec<&'static BuiltinField>)> {
    let mut out: Vec<(&'static str, Vec<&'static BuiltinField>)> = Vec::new();
    for f in b.fields() {
        let top = f.path.split('.').next().unwrap_or(f.path);
        match out.iter_mut().find(|(n, _)| *n == top) {
            Some((_, fields)) => fields.push(f),
            None => out.push((top, vec![f])),
        }
    }
    out
}

/// The value a new entry writes for top name `name` with `fields`: the field's example, or a
/// group's fields in parentheses.
pub fn top_example(name: &str, fields: &[&BuiltinField]) -> String {
    match fields {
        [f] if f.path == name => example(f).to_owned(),
        _ => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| {
                    let own = f.path.rsplit('.').next().unwrap_or(f.path);
                    format!("{own}: {}", example(f))
                })
                .collect();
            format!("({})", inner.join(", "))
        }
    }
}

/// The identifiers a mode payload may be (`visibility`); empty for others.
pub fn modes(b: &BuiltinTag) -> &'static [&'static str] {
    match b.payload {
        Payload::Mode(values) => values,
        _ => &[],
    }
}

/// The mesh primitive shapes with their parameters, as `value:` writes them.
pub static SHAPES: &[(&str, &str)] = &[
    ("cuboid", "cuboid(size: (x: 1.0, y: 1.0, z: 1.0))"),
    ("sphere", "sphere(radius: 0.5)"),
    ("plane", "plane(size: (x: 10.0, y: 10.0))"),
    ("cylinder", "cylinder(radius: 0.5, height: 1.0)"),
    ("capsule", "capsule(radius: 0.5, length: 1.0)"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_forge_scene::format::{PRIMITIVE_SHAPES, SceneDoc};

    /// Every shape of the format, and a new entry of every built-in (each field at its
    /// example) reads as a component.
    #[test]
    fn new_entries_read() {
        let shapes: Vec<&str> = SHAPES.iter().map(|s| s.0).collect();
        assert_eq!(shapes, PRIMITIVE_SHAPES);
        for b in BUILTINS {
            let entry = match (modes(b).first(), b.payload) {
                (Some(mode), _) => format!("(type: {}, data: {mode})", b.tag),
                (None, Payload::Unit) => format!("(type: {})", b.tag),
                _ => {
                    let fields: Vec<String> = top_names(b)
                        .iter()
                        .map(|(n, f)| format!("{n}: {}", top_example(n, f)))
                        .collect();
                    format!("(type: {}, data: ({}))", b.tag, fields.join(", "))
                }
            };
            let text = format!(
                "(format_version: 1, name: \"\", entities: {{1: (id: 1, name: \"\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [{entry}])}}, roots: [1], next_id: 2)",
            );
            let parsed = SceneDoc::from_str(&text);
            assert!(parsed.is_ok(), "{}: {entry}: {:?}", b.tag, parsed.err());
        }
    }
}
