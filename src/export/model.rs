//! Placed glTF models in the generated code (the format page, "Models"). The instance entity
//! gets Bevy's `WorldAssetRoot` with a handle to the model's scene, which Bevy's spawner
//! (`bevy_world_serialization`, in `DefaultPlugins`) writes under it once the file has loaded;
//! the overrides are applied by node path in an observer of `WorldInstanceReady`, which Bevy
//! triggers on the instance entity each time it has spawned the model. Both forms share the
//! observer's body: plain Rust over `&mut World`, with a few helpers the file defines once
//! ([`helpers`]).
//!
//! What the body does follows the run time's rules: every node is found (and every `set`'s
//! holder) before any override changes a name; then each override in file order writes `name`,
//! `transform`, `remove`, `add`, `set` and `children`. A built-in's `set` assigns the listed
//! fields on the node's own component (or on the unnamed child Bevy puts a light on); a custom
//! `set` assigns its fields, or inserts the component when the node has none.

use std::fmt::Write as _;

use super::literal;
use super::literal::{float, primitive, string};
use super::{ExportError, Plan, exprs};
use crate::format::builtin::BevyText;
use crate::format::{ComponentData, CustomComponent, Instance, Mesh3dData, MeshSource, Override};

/// The helpers a file with a placed model defines once, after its function, each only when the
/// code calls it: finding a node of a spawned model by node path, the entity holding a built-in
/// for a node, and writing fields onto a component the node has.
const HELPERS: [(&str, &str); 4] = [
    (
        "model_node",
        r#"
/// The entity of the node at `path` (glTF node names from the model scene's root nodes down,
/// `""` for an entity without a `Name`) among the entities of the world instance `instance`;
/// the first of same-named siblings.
fn model_node(world: &World, instance: InstanceId, path: &[&str]) -> Option<Entity> {
    let entities: Vec<Entity> = world
        .resource::<WorldInstanceSpawner>()
        .iter_instance_entities(instance)
        .collect();
    // The model scene's root: the one entity of the instance whose parent is not one of them.
    let mut at = *entities.iter().find(|e| {
        world
            .get::<ChildOf>(**e)
            .is_none_or(|c| !entities.contains(&c.parent()))
    })?;
    for name in path {
        at = world.get::<Children>(at)?.iter().find(|c| {
            entities.contains(c) && world.get::<Name>(*c).map_or("", |n| n.as_str()) == *name
        })?;
    }
    Some(at)
}
"#,
    ),
    (
        "model_holder",
        r#"
/// `node` when it has a `T`, else its first child without a `Name` that has one (Bevy's glTF
/// loader puts a node's light on such a child).
fn model_holder<T: Component>(world: &World, node: Entity) -> Option<Entity> {
    if world.get::<T>(node).is_some() {
        return Some(node);
    }
    world
        .get::<Children>(node)?
        .iter()
        .find(|c| world.get::<Name>(*c).is_none() && world.get::<T>(*c).is_some())
}
"#,
    ),
    (
        "model_set",
        r#"
/// Changes the `T` of `holder` with `change`, when there is a holder.
fn model_set<T: Component<Mutability = Mutable>>(
    world: &mut World,
    holder: Option<Entity>,
    change: impl FnOnce(&mut T),
) {
    let Some(holder) = holder else {
        return;
    };
    if let Some(mut value) = world.get_mut::<T>(holder) {
        change(&mut value);
    }
}
"#,
    ),
    (
        "model_patch",
        r#"
/// Changes the `T` of `node` with `change`, or inserts `whole` when it has none.
fn model_patch<T: Component<Mutability = Mutable>>(
    world: &mut World,
    node: Entity,
    change: impl FnOnce(&mut T),
    whole: impl FnOnce() -> T,
) {
    match world.get_mut::<T>(node) {
        Some(mut value) => change(&mut value),
        None => {
            world.entity_mut(node).insert(whole());
        }
    }
}
"#,
    ),
];

/// The observer bodies of the placed models of `plan` that have overrides, in plan order, each
/// line at `indent` ([`body`]): what the file's observers run, and what [`helpers`] serve.
pub(crate) fn bodies(plan: &Plan, indent: &str) -> Vec<(u64, String)> {
    plan.models
        .iter()
        .map(|&key| (key, body(plan, key, indent)))
        .filter(|(_, body)| !body.is_empty())
        .collect()
}

/// The helpers `bodies` call, each after a blank line: a file defines no function it does not
/// use (empty without a model override).
pub(crate) fn helpers(bodies: &[(u64, String)]) -> String {
    let mut out = String::new();
    for (name, text) in HELPERS {
        let called = |(_, code): &(u64, String)| {
            code.contains(&format!("{name}(")) || code.contains(&format!("{name}::<"))
        };
        if bodies.iter().any(called) {
            out.push_str(text);
        }
    }
    out
}

/// The `use` lines a file with `helpers` ([`helpers`]) adds after `use bevy::prelude::*;`
/// (empty without them: no model override).
pub(crate) fn uses(helpers: &str) -> String {
    if helpers.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    if helpers.contains("Mutability = Mutable") {
        out.push_str("use bevy::ecs::component::Mutable;\n");
    }
    out.push_str("use bevy::world_serialization::{InstanceId, WorldInstanceReady};\n");
    out
}

/// The header's note on placed models (empty without them).
pub(crate) fn note(plan: &Plan) -> String {
    if plan.models.is_empty() {
        return String::new();
    }
    "//\n// Placed glTF models spawn through Bevy's `WorldAssetRoot` (the app needs Bevy's\n\
     // `GltfPlugin`); an observer of `WorldInstanceReady` on each instance entity applies the\n\
     // scene's overrides to the model's nodes by node path, each time Bevy has spawned the model.\n"
        .to_owned()
}

/// The model `key` places, with its overrides.
pub(crate) fn instance<'a>(plan: &Plan<'a>, key: u64) -> Option<&'a Instance> {
    plan.node(key).instance.as_deref().filter(|i| i.is_model())
}

/// Whether the model on `key` has an override that changes something: what its observer is
/// for (a model without one gets none).
pub(crate) fn has_overrides(plan: &Plan, key: u64) -> bool {
    instance(plan, key).is_some_and(|i| i.overrides.iter().any(|o| !o.is_empty()))
}

/// The model path on `key` (`models/house.glb#Scene0`).
pub(crate) fn path(plan: &Plan, key: u64) -> String {
    instance(plan, key)
        .and_then(|i| i.model.as_deref())
        .unwrap_or_default()
        .to_owned()
}

/// A node path as messages and comments write it: `["House", "Roof"]`.
fn node_label(o: &Override) -> String {
    let names: Vec<&str> = o.node.iter().map(|n| n.as_str()).collect();
    format!("{names:?}")
}

/// The error of override `o` of the model on `key` that cannot be written, and why.
fn refused(plan: &Plan, key: u64, o: &Override, why: String) -> ExportError {
    ExportError::ModelOverride {
        entity: plan.label(key),
        name: plan.node(key).name.to_string(),
        model: path(plan, key),
        node: node_label(o),
        why,
    }
}

/// Refuses what the generated code could not write of the overrides of the model on `key`
/// (`bsn`: for the BSN form, which cannot name the scene's entities from the observer).
pub(crate) fn check(plan: &Plan, key: u64, bsn: bool) -> Result<(), ExportError> {
    let Some(instance) = instance(plan, key) else {
        return Ok(());
    };
    let name = plan.node(key).name.to_string();
    for o in &instance.overrides {
        let non_finite = |what: String| ExportError::NonFinite {
            entity: plan.label(key),
            name: name.clone(),
            what: format!("the override of node {}: {what}", node_label(o)),
        };
        if o.transform.is_some_and(|t| !t.is_finite()) {
            return Err(non_finite("transform".to_owned()));
        }
        if bsn && !o.children.is_empty() {
            return Err(refused(
                plan,
                key,
                o,
                BSN_NAMES_NOTHING.replace("{what}", "its `children` are entities of the scene"),
            ));
        }
        let values = o.add.iter().chain(o.set.iter().map(|p| &p.component));
        for component in values {
            if !super::finite(component) {
                return Err(non_finite(component.tag().to_owned()));
            }
            if let ComponentData::Mesh3d(m) = component
                && let MeshSource::Primitive(shape) = &m.mesh
                && shape.sizes().iter().any(|s| *s < 0.0)
            {
                return Err(ExportError::NegativeSize {
                    entity: plan.label(key),
                    name: name.clone(),
                    shape: shape.name().to_owned(),
                });
            }
            if let ComponentData::Custom(custom) = component {
                exprs::check_custom(plan, key, custom)?;
                if bsn && exprs::has_references(custom) {
                    return Err(refused(
                        plan,
                        key,
                        o,
                        BSN_NAMES_NOTHING.replace(
                            "{what}",
                            &format!("`{}` holds an entity reference", custom.type_path),
                        ),
                    ));
                }
            }
        }
        for patch in &o.set {
            let Some(b) = patch.component.builtin() else {
                continue;
            };
            if !b.fields().is_empty() && patch.fields.is_empty() {
                continue;
            }
            for field in &patch.fields {
                let written = b
                    .index_of(field)
                    .and_then(|i| (b.assign)(&patch.component, i, &OverrideText));
                if written.is_none() {
                    return Err(refused(
                        plan,
                        key,
                        o,
                        format!(
                            "its `set` of `{}.{field}` changes a value that is not one field of one Bevy component (a material is an asset, a mesh a handle the model's other nodes may share); `add` the whole `{}` instead",
                            b.tag, b.tag
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Why the BSN form refuses an override that names the scene's entities; `{what}` says which.
const BSN_NAMES_NOTHING: &str = "{what}, and bsn! 0.20.1 resolves `#Name` only while the scene list spawns, before Bevy spawns the model and triggers the observer that applies the override; export this scene with `--to rust`, whose observer holds the entities";

/// The statements of the observer's queued closure that apply the overrides of the model on
/// `key`, each line at `indent`; `instance` (the `InstanceId`) and `world` are in scope. An
/// entity reference is the variable of the entity ([`check`] refused them for BSN).
fn body(plan: &Plan, key: u64, indent: &str) -> String {
    let mut out = String::new();
    let Some(instance) = instance(plan, key) else {
        return out;
    };
    let overrides: Vec<(usize, &Override)> = instance
        .overrides
        .iter()
        .enumerate()
        .filter(|(_, o)| !o.is_empty())
        .collect();
    if overrides.is_empty() {
        return out;
    }
    if overrides.iter().any(|(_, o)| loads_assets(o)) {
        let _ = writeln!(
            out,
            "{indent}let asset_server = world.resource::<AssetServer>().clone();"
        );
    }
    let _ = writeln!(
        out,
        "{indent}// Every node (and `set` holder) first: an override may rename one."
    );
    for (i, o) in &overrides {
        let names: Vec<String> = o.node.iter().map(|n| string(n)).collect();
        let _ = writeln!(
            out,
            "{indent}let n{i} = model_node(world, instance, &[{}]);",
            names.join(", ")
        );
    }
    let mut holders: Vec<(usize, Vec<BuiltinSet>)> = Vec::new();
    for (i, o) in &overrides {
        let sets = builtin_sets(o);
        for (j, (component, _)) in sets.iter().enumerate() {
            let _ = writeln!(
                out,
                "{indent}let h{i}_{j} = n{i}.and_then(|n| model_holder::<{component}>(world, n));"
            );
        }
        holders.push((*i, sets));
    }
    for ((i, o), (_, sets)) in overrides.iter().zip(&holders) {
        let _ = writeln!(out, "{indent}// {}", node_label(o));
        let inner = format!("{indent}    ");
        let mut block = String::new();
        if let Some(name) = &o.name {
            let _ = writeln!(
                block,
                "{inner}world.entity_mut(node).insert(Name::new({}));",
                string(name)
            );
        }
        if let Some(t) = &o.transform {
            let _ = writeln!(
                block,
                "{inner}world.entity_mut(node).insert({});",
                literal::transform(t, &inner)
            );
        }
        for removed in &o.remove {
            remove(&mut block, removed, &inner);
        }
        for component in &o.add {
            insert(&mut block, plan, component, &inner);
        }
        for patch in &o.set {
            match &patch.component {
                ComponentData::Custom(custom) => set_custom(&mut block, plan, custom, &inner),
                // A whole value (`visibility`): on the node, as the run time sets it.
                c if c.builtin().is_some_and(|b| b.fields().is_empty()) => {
                    let _ = writeln!(
                        block,
                        "{inner}world.entity_mut(node).insert({});",
                        tuple(&export(c, &inner))
                    );
                }
                _ => {}
            }
        }
        for child in &o.children {
            let Some(var) = plan.vars.get(child) else {
                continue;
            };
            let _ = writeln!(
                block,
                "{inner}if world.get_entity({var}).is_ok() {{\n{inner}    world.entity_mut(node).add_child({var});\n{inner}}}"
            );
        }
        if !block.is_empty() {
            let _ = write!(
                out,
                "{indent}if let Some(node) = n{i} {{\n{block}{indent}}}\n"
            );
        }
        for (j, (component, statements)) in sets.iter().enumerate() {
            let body = match statements.as_slice() {
                [one] => format!("c.{one}"),
                many => {
                    let lines: Vec<String> =
                        many.iter().map(|s| format!("{inner}c.{s};")).collect();
                    format!("{{\n{}\n{indent}}}", lines.join("\n"))
                }
            };
            let _ = writeln!(
                out,
                "{indent}model_set::<{component}>(world, h{i}_{j}, |c| {body});"
            );
        }
    }
    out
}

/// The assignments of one Bevy component's fields: the component and its statements.
type BuiltinSet = (&'static str, Vec<String>);

/// The assignments of the built-in `set`s of `o`, grouped by the Bevy component that holds
/// them, in the order they first appear.
fn builtin_sets(o: &Override) -> Vec<BuiltinSet> {
    let mut sets: Vec<BuiltinSet> = Vec::new();
    for patch in &o.set {
        let Some(b) = patch.component.builtin() else {
            continue;
        };
        for field in &patch.fields {
            let Some(assign) = b
                .index_of(field)
                .and_then(|i| (b.assign)(&patch.component, i, &OverrideText))
            else {
                continue;
            };
            match sets.iter_mut().find(|(c, _)| *c == assign.component) {
                Some((_, statements)) => statements.push(assign.statement),
                None => sets.push((assign.component, vec![assign.statement])),
            }
        }
    }
    sets
}

/// Whether the values of `o` load assets (a sprite's image, a mesh file).
fn loads_assets(o: &Override) -> bool {
    o.add
        .iter()
        .chain(o.set.iter().map(|p| &p.component))
        .any(|c| match c {
            ComponentData::Sprite(s) => s.image.is_some(),
            ComponentData::Mesh3d(m) => matches!(m.mesh, MeshSource::Asset(_)),
            _ => false,
        })
}

/// The Bevy values of a built-in as the override code writes them.
fn export(c: &ComponentData, indent: &str) -> Vec<String> {
    let text = OverrideText;
    let values = c
        .builtin()
        .map(|b| (b.export)(c, &text))
        .unwrap_or_default();
    values
        .into_iter()
        .map(|v| v.replace('\n', &format!("\n{indent}")))
        .collect()
}

/// `a` alone, or `(a, b)`.
fn tuple(values: &[String]) -> String {
    match values {
        [one] => one.clone(),
        many => format!("({})", many.join(", ")),
    }
}

/// `remove` of key `key` (a built-in's components where `set` reaches them, or a custom type).
fn remove(out: &mut String, key: &str, indent: &str) {
    if let Some(custom) = key.strip_prefix("custom:") {
        let _ = writeln!(
            out,
            "{indent}world.entity_mut(node).remove::<{}>();",
            custom.trim()
        );
        return;
    }
    let Some(b) = crate::format::builtin::builtin_tag(key) else {
        return;
    };
    let mut types: Vec<&str> = b.bevy.split(" + ").collect();
    let Some(first) = types.first().copied() else {
        return;
    };
    // Bevy's `Camera` goes with the camera, as the run time removes it.
    if matches!(
        b.role,
        crate::format::builtin::Role::Camera2d | crate::format::builtin::Role::Camera3d
    ) {
        types.push("Camera");
    }
    let _ = writeln!(
        out,
        "{indent}if let Some(holder) = model_holder::<{first}>(world, node) {{\n{indent}    world.entity_mut(holder).remove::<{}>();\n{indent}}}",
        tuple(&types.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>())
    );
}

/// `add` of `component`: inserted whole (a built-in on the node, replacing one of its type).
fn insert(out: &mut String, plan: &Plan, component: &ComponentData, indent: &str) {
    let value = match component {
        ComponentData::Custom(custom) => exprs::custom_literal(plan, custom, indent),
        c => tuple(&export(c, indent)),
    };
    let _ = writeln!(
        out,
        "{indent}let value = {value};\n{indent}world.entity_mut(node).insert(value);"
    );
}

/// `set` of a custom component: its fields assigned, or the component inserted whole when the
/// node has none (an enum's `value` is always inserted whole).
fn set_custom(out: &mut String, plan: &Plan, custom: &CustomComponent, indent: &str) {
    let type_path = custom.type_path.trim();
    let whole = exprs::custom_literal(plan, custom, &format!("{indent}    "));
    if custom.value.is_some() {
        let _ = writeln!(
            out,
            "{indent}let value = {whole};\n{indent}world.entity_mut(node).insert(value);"
        );
        return;
    }
    let assignments: Vec<String> = custom
        .fields
        .iter()
        .map(|f| {
            let expr = exprs::rust_expr(plan, f.expr.trim());
            format!(
                "{indent}        c.{} = {};",
                f.name,
                literal::line_safe(&expr)
            )
        })
        .collect();
    let change = if assignments.is_empty() {
        format!("|_: &mut {type_path}| {{}}")
    } else {
        format!(
            "|c: &mut {type_path}| {{\n{}\n{indent}    }}",
            assignments.join("\n")
        )
    };
    let _ = writeln!(
        out,
        "{indent}model_patch(\n{indent}    world,\n{indent}    node,\n{indent}    {change},\n{indent}    || {whole},\n{indent});"
    );
}

/// Bevy values spelled as Rust inside the observer: struct literals with
/// `..Default::default()`, assets through `asset_server`, meshes and materials added where the
/// override applies (each application adds its own).
struct OverrideText;

impl BevyText for OverrideText {
    fn bsn(&self) -> bool {
        false
    }
    fn number(&self, v: f32) -> String {
        float(v)
    }
    fn value(&self, path: &str, fields: &[String]) -> String {
        let mut fields = fields.to_vec();
        fields.push("..Default::default()".to_owned());
        literal::struct_value(path, &fields, "")
    }
    fn asset(&self, path: &str) -> String {
        format!("asset_server.load({})", string(path))
    }
    fn mesh3d(&self, m: &Mesh3dData) -> Vec<String> {
        let mesh = match &m.mesh {
            MeshSource::Primitive(shape) => format!(
                "world.resource_mut::<Assets<Mesh>>().add({})",
                primitive(shape)
            ),
            MeshSource::Asset(path) => self.asset(path),
        };
        vec![
            format!("Mesh3d({mesh})"),
            format!(
                "MeshMaterial3d(\n    world\n        .resource_mut::<Assets<StandardMaterial>>()\n        .add({}),\n)",
                literal::material(&m.material, "        ")
            ),
        ]
    }
}
