//! The BSN form: a function that returns the scene as a `bsn_list!` of `bevy_scene` 0.20.1.
//!
//! The syntax is 0.20.1's (Bevy's main branch has since changed it): one entity's entries
//! separated by whitespace, siblings by `--`, `#Ident` naming an entity (its `Name`) and
//! referring to it anywhere in the same `bsn_list!`, children in `Children [ .. ]`, struct
//! values as patches (`Type { field: value }`), other expressions in `{ .. }`.

use std::fmt::Write as _;

use super::literal;
use super::literal::{float, material, primitive, rotation, string, vec3};
use super::{ExportError, ExportOptions, Plan, exprs, function_name, header, model, snake_case};
use crate::format::builtin::BevyText;
use crate::format::{
    ComponentData, CustomComponent, CustomField, Mesh3dData, MeshSource, TransformData,
};

pub(crate) fn write(plan: &Plan, options: &ExportOptions) -> Result<String, ExportError> {
    let function = function_name(options, format!("{}_scene", snake_case(&plan.doc.name)))?;
    for &key in &plan.models {
        model::check(plan, key, true)?;
    }
    let bodies = model::bodies(plan, "        ");
    let helpers = model::helpers(&bodies);
    let mut out = header(plan, options, "bsn");
    let _ = write!(
        out,
        "//\n// `{function}()` is the scene as a `bevy_scene` 0.20.1 scene list, one scene per root in\n\
         // the file's order. Spawn it with `world.spawn_scene_list({function}())` (or through\n\
         // `Commands`) in an app with `ScenePlugin`; it returns the roots. Entities are named with\n\
         // `#Name`, which entity references use too.\n{}{}\n\
         use bevy::prelude::*;\n{}\n\
         /// The scene {:?}: its roots as a scene list.\n\
         pub fn {function}() -> impl SceneList {{\n",
        super::custom_note(plan, "bsn"),
        model::note(plan),
        model::uses(&helpers),
        plan.doc.name
    );
    for (i, shape) in plan.meshes.iter().enumerate() {
        let _ = writeln!(
            out,
            "    let mesh{i} = asset_value::<_, Mesh>({});",
            primitive(shape)
        );
    }
    for (i, m) in plan.materials.iter().enumerate() {
        let _ = writeln!(
            out,
            "    let material{i} = asset_value::<_, StandardMaterial>({});",
            material(m, "    ")
        );
    }
    out.push_str("    bsn_list! {\n");
    let roots = plan.doc.roots.clone();
    entities(plan, &roots, 2, &mut out)?;
    out.push_str("    }\n}\n");
    for &(key, ref body) in &bodies {
        let _ = write!(
            out,
            "\n/// The overrides of the model on `#{}` ({}), by node path, each time Bevy has\n\
             /// spawned the model under it.\n\
             #[allow(clippy::needless_update, clippy::collapsible_if)]\n\
             fn {}(ready: On<WorldInstanceReady>, mut commands: Commands) {{\n    \
             let instance = ready.instance_id;\n    \
             commands.queue(move |world: &mut World| {{\n{body}    }});\n}}\n",
            plan.idents[&key],
            string(&model::path(plan, key)),
            observer_name(plan, key),
        );
    }
    out.push_str(&helpers);
    Ok(out)
}

/// Writes `keys` as siblings at `depth` (four spaces each), separated by `--`.
fn entities(plan: &Plan, keys: &[u64], depth: usize, out: &mut String) -> Result<(), ExportError> {
    let indent = "    ".repeat(depth);
    for (i, &key) in keys.iter().enumerate() {
        if i > 0 {
            let _ = writeln!(out, "{indent}--");
        }
        let node = plan.node(key);
        let ident = &plan.idents[&key];
        let _ = writeln!(out, "{indent}#{ident}");
        if *ident != node.name.as_str() {
            let _ = writeln!(out, "{indent}Name({})", string(&node.name));
        }
        let _ = writeln!(out, "{indent}{}", transform(&node.transform));
        for component in &node.components {
            for entry in builtin(plan, component) {
                let _ = writeln!(out, "{indent}{entry}");
            }
        }
        if plan.inherit_visibility.contains(&key) {
            let _ = writeln!(out, "{indent}Visibility::Inherited");
        }
        if plan.models.contains(&key) {
            let path = model::path(plan, key);
            let _ = writeln!(out, "{indent}WorldAssetRoot({})", string(&path));
            if model::has_overrides(plan, key) {
                let _ = writeln!(out, "{indent}on({})", observer_name(plan, key));
            }
        }
        for component in &node.components {
            if let ComponentData::Custom(custom) = component {
                let _ = writeln!(out, "{indent}{}", custom_patch(plan, key, custom)?);
            }
        }
        let children = plan.children(key);
        if !children.is_empty() {
            let _ = writeln!(out, "{indent}Children [");
            entities(plan, children, depth + 1, out)?;
            let _ = writeln!(out, "{indent}]");
        }
    }
    Ok(())
}

/// The name of the observer function that applies the overrides of the model on `key`
/// (`model_overrides_e5`).
fn observer_name(plan: &Plan, key: u64) -> String {
    format!("model_overrides_{}", plan.vars[&key])
}

/// A number as a `bsn!` value: a literal, or `{-1.5}` (`bsn!` reads no sign before a literal).
fn number(v: f32) -> String {
    if v.is_sign_negative() {
        format!("{{{}}}", float(v))
    } else {
        float(v)
    }
}

/// `Transform { .. }` with the parts that differ from `Transform::IDENTITY` (a patch: the rest
/// stays the default).
fn transform(t: &TransformData) -> String {
    let zero = |v: crate::format::Vec3Data| v.to_array().iter().all(|c| c.to_bits() == 0);
    let one = |v: crate::format::Vec3Data| v.to_array().iter().all(|c| *c == 1.0);
    let mut fields = Vec::new();
    if !zero(t.translation) {
        fields.push(format!("translation: {}", vec3(t.translation)));
    }
    if !literal::identity_rotation(t) {
        fields.push(format!("rotation: {}", rotation(t.rotation, None)));
    }
    if !one(t.scale) {
        fields.push(format!("scale: {}", vec3(t.scale)));
    }
    patch("Transform", &fields)
}

fn patch(path: &str, fields: &[String]) -> String {
    if fields.is_empty() {
        path.to_owned()
    } else {
        format!("{path} {{ {} }}", fields.join(", "))
    }
}

/// The entries of a built-in, with the values `runtime::builtin` gives it: its tag's own
/// export, spelled as `bsn!`.
fn builtin(plan: &Plan, component: &ComponentData) -> Vec<String> {
    component
        .builtin()
        .map(|b| (b.export)(component, &BsnText { plan }))
        .unwrap_or_default()
}

/// Bevy values spelled as `bsn!`: patches of the fields written, assets by path, meshes and
/// materials from the scene's shared templates.
struct BsnText<'a, 'p> {
    plan: &'p Plan<'a>,
}

impl BevyText for BsnText<'_, '_> {
    fn bsn(&self) -> bool {
        true
    }
    fn number(&self, v: f32) -> String {
        number(v)
    }
    fn value(&self, path: &str, fields: &[String]) -> String {
        patch(path, fields)
    }
    fn asset(&self, path: &str) -> String {
        string(path)
    }
    fn mesh3d(&self, m: &Mesh3dData) -> Vec<String> {
        let mesh = match &m.mesh {
            MeshSource::Primitive(shape) => {
                format!("{{mesh{}.clone_template()}}", self.plan.mesh_index(shape))
            }
            MeshSource::Asset(path) => string(path),
        };
        vec![
            format!("Mesh3d({mesh})"),
            format!(
                "MeshMaterial3d::<StandardMaterial>({{material{}.clone_template()}})",
                self.plan.material_index(&m.material)
            ),
        ]
    }
}

/// A custom component as a patch of its type: each field's expression in `{ .. }`, or with its
/// references as `#Name`s; an enum as its variant.
fn custom_patch(plan: &Plan, key: u64, custom: &CustomComponent) -> Result<String, ExportError> {
    let node = plan.node(key);
    let last = custom
        .type_path
        .rsplit("::")
        .next()
        .unwrap_or_default()
        .trim();
    let constant = last.len() > 1
        && last
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if !last.starts_with(|c: char| c.is_ascii_uppercase()) || constant {
        return Err(ExportError::Custom {
            entity: plan.label(key),
            name: node.name.to_string(),
            type_path: custom.type_path.to_string(),
            message: format!(
                "bsn! 0.20.1 reads a path as a type only when its last part is in `UpperCamelCase`, and `{last}` is not"
            ),
        });
    }
    if custom.value.is_some() {
        // An enum: its variant as an entry.
        return exprs::bsn_enum(plan, custom).ok_or_else(|| ExportError::BsnReference {
            entity: plan.label(key),
            name: node.name.to_string(),
            type_path: custom.type_path.to_string(),
            field: "value".to_owned(),
            expr: custom.value.as_deref().unwrap_or_default().to_owned(),
        });
    }
    let tuple = tuple_order(custom).map_err(|message| ExportError::Custom {
        entity: plan.label(key),
        name: node.name.to_string(),
        type_path: custom.type_path.to_string(),
        message,
    })?;
    let mut fields = Vec::new();
    let mut values = Vec::new();
    for field in tuple.as_deref().unwrap_or(&custom.fields) {
        let value =
            exprs::bsn_value(plan, field.expr.trim()).ok_or_else(|| ExportError::BsnReference {
                entity: plan.label(key),
                name: node.name.to_string(),
                type_path: custom.type_path.to_string(),
                field: field.name.to_string(),
                expr: field.expr.to_string(),
            })?;
        fields.push(format!("{}: {value}", field.name));
        values.push(value);
    }
    if tuple.is_some() {
        // A tuple struct: its fields in order, `Speed(2.5)`.
        return Ok(format!(
            "{}({})",
            custom.type_path.trim(),
            values.join(", ")
        ));
    }
    Ok(patch(custom.type_path.trim(), &fields))
}

/// The fields of a tuple struct's component (named `0`, `1`, ...) in index order, `None` for
/// named fields. `bsn!` patches a tuple struct by position (`Speed(2.5)`), so the indices set
/// must be `0` up to some `n` with none left out; the message says which is missing.
fn tuple_order(custom: &CustomComponent) -> Result<Option<Vec<CustomField>>, String> {
    let indices: Option<Vec<usize>> = custom
        .fields
        .iter()
        .map(|f| f.name.parse::<usize>().ok())
        .collect();
    let Some(indices) = indices.filter(|i| !i.is_empty()) else {
        return Ok(None);
    };
    let mut fields: Vec<(usize, &CustomField)> = indices.into_iter().zip(&custom.fields).collect();
    fields.sort_by_key(|(i, _)| *i);
    for (want, (i, _)) in fields.iter().enumerate() {
        if *i < want {
            return Err(format!("field `{i}` is set twice"));
        }
        if *i > want {
            return Err(format!(
                "bsn! 0.20.1 patches a tuple struct's fields by position from `0`, and field `{want}` is not set before `{i}`"
            ));
        }
    }
    Ok(Some(fields.into_iter().map(|(_, f)| f.clone()).collect()))
}
