//! The Rust form: a function that spawns the scene with `World::spawn`.

use std::fmt::Write as _;

use bevy_platform::collections::HashSet;

use super::literal::{float, material, primitive, string, struct_value, transform};
use super::{ExportError, ExportOptions, Plan, exprs, function_name, header, model, snake_case};
use crate::format::builtin::BevyText;
use crate::format::{ComponentData, CustomComponent, Mesh3dData, MeshSource};

/// Tuples of at most this many values: Bevy's bundles are tuples of up to 15.
const BUNDLE_MAX: usize = 12;

pub(crate) fn write(plan: &Plan, options: &ExportOptions) -> Result<String, ExportError> {
    let function = function_name(options, format!("spawn_{}", snake_case(&plan.doc.name)))?;
    for &key in &plan.models {
        model::check(plan, key, false)?;
    }
    let bodies = model::bodies(plan, "                ");
    let helpers = model::helpers(&bodies);
    let mut out = header(plan, options, "rust");
    let _ = write!(
        out,
        "//\n// `{function}(world)` spawns the scene's entities into `world` and returns its root\n\
         // entities in the file's order. Components that name other entities are inserted once\n\
         // every entity exists. The world needs `Assets<Mesh>` and `Assets<StandardMaterial>`\n\
         // for meshes and an `AssetServer` for images and mesh files.\n{}{}\n\
         use bevy::prelude::*;\n{}\n\
         /// Spawns the scene {:?} into `world`; returns its roots in file order.\n\
         #[allow(clippy::needless_update, clippy::default_constructed_unit_structs{})]\n\
         pub fn {function}(world: &mut World) -> Vec<Entity> {{\n",
        super::custom_note(plan, "rust"),
        model::note(plan),
        model::uses(&helpers),
        plan.doc.name,
        // The model overrides' code checks each node, then each holder, in its own `if`.
        if plan.models.is_empty() {
            ""
        } else {
            ", clippy::collapsible_if"
        },
    );
    let used = used_entities(plan);
    let loads_assets = !plan.models.is_empty()
        || plan.order.iter().any(|k| {
            plan.node(*k).components.iter().any(|c| match c {
                ComponentData::Sprite(s) => s.image.is_some(),
                ComponentData::Mesh3d(m) => matches!(m.mesh, MeshSource::Asset(_)),
                _ => false,
            })
        });
    if loads_assets {
        out.push_str("    let asset_server = world.resource::<AssetServer>().clone();\n");
    }
    for (i, shape) in plan.meshes.iter().enumerate() {
        let _ = writeln!(
            out,
            "    let mesh{i} = world.resource_mut::<Assets<Mesh>>().add({});",
            primitive(shape)
        );
    }
    for (i, m) in plan.materials.iter().enumerate() {
        let _ = writeln!(
            out,
            "    let material{i} = world\n        .resource_mut::<Assets<StandardMaterial>>()\n        .add({});",
            material(m, "        ")
        );
    }
    if loads_assets || !plan.meshes.is_empty() || !plan.materials.is_empty() {
        out.push('\n');
    }
    let mut deferred = Vec::new();
    for &key in &plan.order {
        let node = plan.node(key);
        let mut values = vec![
            format!("Name::new({})", string(&node.name)),
            transform(&node.transform, "            "),
        ];
        if let Some(parent) = node.parent {
            values.push(format!("ChildOf({})", plan.vars[&parent]));
        }
        let mut components = Vec::new();
        for component in &node.components {
            components.extend(builtin(plan, component));
        }
        if plan.inherit_visibility.contains(&key) {
            components.push("Visibility::Inherited".to_owned());
        }
        if plan.models.contains(&key) {
            components.push(format!(
                "WorldAssetRoot(asset_server.load({}))",
                string(&model::path(plan, key))
            ));
        }
        let (with_refs, plain) = plan.customs(key);
        for custom in plain {
            components.push(exprs::custom_literal(plan, custom, "            "));
        }
        for custom in with_refs {
            deferred.push((key, custom));
        }
        if values.len() + components.len() <= BUNDLE_MAX + 3 {
            values.extend(components);
        } else {
            for chunk in components.chunks(BUNDLE_MAX) {
                values.push(format!(
                    "(\n                {},\n            )",
                    chunk.join(",\n                ")
                ));
            }
        }
        let (bind, id) = if used.contains(&key) {
            (format!("let {} = ", plan.vars[&key]), "\n        .id()")
        } else {
            (String::new(), "")
        };
        let _ = writeln!(
            out,
            "    {bind}world\n        .spawn((\n            {},\n        )){id};",
            values.join(",\n            ")
        );
    }
    if !deferred.is_empty() {
        out.push_str("\n    // Components that name other entities, once every entity exists.\n");
        for (key, custom) in deferred {
            let _ = writeln!(
                out,
                "    world\n        .entity_mut({})\n        .insert({});",
                plan.vars[&key],
                exprs::custom_literal(plan, custom, "        ")
            );
        }
    }
    for &(key, ref body) in &bodies {
        let _ = write!(
            out,
            "\n    // The overrides of the model on `{}` ({}), by node path, each time\n    \
             // Bevy has spawned the model under it.\n    \
             world.entity_mut({}).observe(\n        \
             move |ready: On<WorldInstanceReady>, mut commands: Commands| {{\n            \
             let instance = ready.instance_id;\n            \
             commands.queue(move |world: &mut World| {{\n{body}            }});\n        \
             }},\n    );\n",
            plan.vars[&key],
            string(&model::path(plan, key)),
            plan.vars[&key],
        );
    }
    let roots: Vec<&str> = plan
        .doc
        .roots
        .iter()
        .map(|r| plan.vars[r].as_str())
        .collect();
    let _ = writeln!(out, "\n    vec![{}]\n}}", roots.join(", "));
    out.push_str(&helpers);
    Ok(out)
}

/// Entities whose variable the code reads: roots, parents, entities named by references, and
/// entities that get components after every entity exists.
fn used_entities(plan: &Plan) -> HashSet<u64> {
    let mut used: HashSet<u64> = plan.doc.roots.iter().copied().collect();
    for &key in &plan.order {
        if !plan.children(key).is_empty() {
            used.insert(key);
        }
        // A model's observer goes on its entity, and names what its overrides place.
        if let Some(instance) =
            model::instance(plan, key).filter(|_| model::has_overrides(plan, key))
        {
            used.insert(key);
            for o in &instance.overrides {
                used.extend(o.children.iter().copied());
                let values = o.add.iter().chain(o.set.iter().map(|p| &p.component));
                for c in values {
                    if let crate::format::ComponentData::Custom(custom) = c {
                        used.extend(referenced(plan, custom));
                    }
                }
            }
        }
        let (with_refs, _) = plan.customs(key);
        if !with_refs.is_empty() {
            used.insert(key);
        }
        for custom in with_refs {
            used.extend(referenced(plan, custom));
        }
    }
    used
}

/// The entities the references in `custom`'s expressions name.
fn referenced(plan: &Plan, custom: &CustomComponent) -> Vec<u64> {
    let mut out = Vec::new();
    for expr in custom.fields.iter().map(|f| &f.expr).chain(&custom.value) {
        if let Some(r) = crate::schema::expr::references(expr) {
            out.extend(
                r.refs
                    .iter()
                    .filter_map(|r| r.path.as_deref().and_then(|p| plan.resolve(p))),
            );
        }
    }
    out
}

/// The Bevy values of a built-in, as `runtime::builtin` builds them: its tag's own export,
/// spelled as Rust.
fn builtin(plan: &Plan, component: &ComponentData) -> Vec<String> {
    component
        .builtin()
        .map(|b| (b.export)(component, &RustText { plan }))
        .unwrap_or_default()
}

/// Bevy values spelled as Rust: struct literals with `..Default::default()`, assets loaded
/// through the `AssetServer`, meshes and materials from the function's shared handles.
struct RustText<'a, 'p> {
    plan: &'p Plan<'a>,
}

impl BevyText for RustText<'_, '_> {
    fn bsn(&self) -> bool {
        false
    }
    fn number(&self, v: f32) -> String {
        float(v)
    }
    fn value(&self, path: &str, fields: &[String]) -> String {
        const I: &str = "            ";
        let mut fields = fields.to_vec();
        fields.push("..Default::default()".to_owned());
        struct_value(path, &fields, I)
    }
    fn asset(&self, path: &str) -> String {
        format!("asset_server.load({})", string(path))
    }
    fn mesh3d(&self, m: &Mesh3dData) -> Vec<String> {
        let mesh = match &m.mesh {
            MeshSource::Primitive(shape) => format!("mesh{}.clone()", self.plan.mesh_index(shape)),
            MeshSource::Asset(path) => self.asset(path),
        };
        vec![
            format!("Mesh3d({mesh})"),
            format!(
                "MeshMaterial3d(material{}.clone())",
                self.plan.material_index(&m.material)
            ),
        ]
    }
}
