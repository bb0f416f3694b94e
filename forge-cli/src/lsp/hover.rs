//! Hover: what a built-in field takes (type, unit, range, default), a custom
//! component or field as the game's schema file describes it (kind, range, its Rust doc
//! comment), the entity an id, reference or override target names (name, path, components),
//! the prefab an instance places (name, roots), and a tile layer's cell (its palette key and
//! prefab, its `(i, j)` and id path, the prefab's roots there).

use std::ops::Range;

use bevy_forge_scene::format::{
    BuiltinField, BuiltinTag, ComponentData, EMPTY_CELL, FieldRange, SceneDoc, TileLayer,
};
use bevy_forge_scene::schema::{ComponentSchema, FieldSchema, SchemaFile};

use super::builtin;
use super::locate::{Item, item_at};
use super::state::{Document, State};

/// What hover shows: markdown about the item at `range`.
#[derive(Debug, Clone, PartialEq)]
pub struct Hover {
    pub markdown: String,
    pub range: Range<usize>,
}

/// What byte `offset` of `doc` falls on, in markdown.
pub fn hover(state: &State, doc: &Document, offset: usize) -> Option<Hover> {
    let schema = state.schema_of(doc);
    let parsed = doc.parsed.as_ref()?;
    let item = item_at(parsed, doc.body(), offset)?;
    let text = match &item {
        Item::Entity { id, .. } | Item::Id { id, .. } => entity_markdown(doc, &[*id]),
        Item::Reference {
            path: Some(path), ..
        } => entity_markdown(doc, path),
        Item::Reference { path: None, .. } => None,
        Item::Node { model, path, .. } => {
            let root = doc.checked.as_ref().map(|c| c.root.clone())?;
            node_markdown(&root, model, path)
        }
        Item::Target { entity, path, .. } => {
            let mut full = vec![*entity];
            full.extend(path);
            entity_markdown(doc, &full)
        }
        Item::Tag { entity, index, .. } => {
            let c = parsed
                .doc
                .entities
                .get(entity)
                .and_then(|e| e.components.get(*index));
            match c {
                Some(ComponentData::Custom(custom)) => schema
                    .and_then(|s| s.get(&custom.type_path))
                    .map(component_markdown)
                    .or(Some(
                        "`custom`: a component of the game's own type, by its `type_path`"
                            .to_owned(),
                    )),
                Some(c) => builtin::builtin(c.tag()).map(builtin_markdown),
                None => None,
            }
        }
        Item::Field { tag, path, .. } => builtin::builtin(tag)
            .and_then(|b| Some((b, b.field(path)?.1)))
            .map(|(b, f)| field_markdown(b, f)),
        Item::Custom {
            entity,
            index,
            field,
            ..
        } => {
            let c = parsed
                .doc
                .entities
                .get(entity)
                .and_then(|e| e.components.get(*index));
            let Some(ComponentData::Custom(custom)) = c else {
                return None;
            };
            custom_markdown(
                schema,
                &custom.type_path,
                field.map(|fi| custom.fields.get(fi).map_or("", |f| f.name.as_str())),
            )
        }
        Item::Scene { entity, .. } => {
            let scene = parsed
                .doc
                .entities
                .get(entity)
                .and_then(|e| e.instance.as_ref())
                .map(|i| i.scene.to_string());
            scene.and_then(|s| prefab_markdown(state, doc, &s))
        }
        Item::Cell {
            layer, i, j, key, ..
        } => {
            let layer = parsed.doc.layers.iter().find(|l| l.id == *layer);
            layer.map(|l| cell_markdown(state, doc, l, (*i, *j), *key))
        }
    };
    Some(Hover {
        markdown: text?,
        range: item.range(),
    })
}

/// The entity at id path `path` of the scene (through its instances): name, path, components.
pub fn entity_markdown(doc: &Document, path: &[u64]) -> Option<String> {
    let (scene, key) = resolve(doc, path)?;
    let entity = scene.entities.get(&key)?;
    let mut out = format!("**{}** `#{}`", escape(&entity.name), join(path));
    let mut names = Vec::new();
    let mut at = entity.parent;
    let mut guard = 0;
    while let Some(p) = at.and_then(|p| scene.entities.get(&p)) {
        names.push(p.name.to_string());
        at = p.parent;
        guard += 1;
        if guard > 256 {
            break;
        }
    }
    names.reverse();
    names.push(entity.name.to_string());
    out.push_str(&format!("\n\n{}", escape(&names.join(" / "))));
    if let Some(instance) = &entity.instance {
        let placed = instance.model.as_deref().unwrap_or(&instance.scene);
        out.push_str(&format!("\n\nplaces `{placed}`"));
    } else if let Some(scene) = doc
        .checked
        .as_ref()
        .and_then(|c| c.expanded.as_ref())
        .and_then(|e| e.instance_scene(key))
    {
        out.push_str(&format!("\n\nplaces `{scene}`"));
    }
    if !entity.components.is_empty() {
        let keys: Vec<String> = entity
            .components
            .iter()
            .map(|c| format!("`{}`", c.key()))
            .collect();
        out.push_str(&format!("\n\ncomponents: {}", keys.join(", ")));
    }
    Some(out)
}

/// The document and key holding the entity at `path`: the scene's own for one id, its
/// expansion for a path through instances.
pub fn resolve<'d>(doc: &'d Document, path: &[u64]) -> Option<(&'d SceneDoc, u64)> {
    match path {
        [id] => {
            let own = doc.doc()?;
            own.entities.contains_key(id).then_some((own, *id))
        }
        _ => {
            let expanded = doc.checked.as_ref()?.expanded.as_ref()?;
            Some((&expanded.doc, expanded.key(path)?))
        }
    }
}

fn join(path: &[u64]) -> String {
    path.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join("/")
}

/// Text from a file shown in markdown: its markup characters escaped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|'
        ) {
            out.push('\\');
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

pub fn builtin_markdown(b: &BuiltinTag) -> String {
    let mut out = format!("`{}` → `{}`\n\n{}", b.tag, b.bevy, b.doc);
    let modes = builtin::modes(b);
    if !modes.is_empty() {
        let values: Vec<String> = modes.iter().map(|v| format!("`{v}`")).collect();
        out.push_str(&format!("\n\n`data`: {}", values.join(", ")));
    }
    for f in b.fields() {
        out.push_str(&format!("\n- `{}`: {}", f.path, f.kind.describe()));
        if let Some(unit) = f.unit {
            out.push_str(&format!(" ({unit})"));
        }
    }
    out
}

pub fn field_markdown(b: &BuiltinTag, f: &BuiltinField) -> String {
    let mut out = format!("`{}.{}`: {}", b.tag, f.path, f.kind.describe());
    if let Some(unit) = f.unit {
        out.push_str(&format!("\n\nunit: {unit}"));
    }
    if f.range != FieldRange::Any {
        out.push_str(&format!("\n\nrange: {}", f.range));
    }
    match f.default {
        Some(d) => out.push_str(&format!("\n\ndefault: `{d}`")),
        None => out.push_str("\n\nrequired"),
    }
    out.push_str(&format!("\n\n{}", f.doc));
    out
}

fn component_markdown(s: &ComponentSchema) -> String {
    let mut out = format!("`{}` (`{}`)", s.type_path, s.type_name);
    if !s.docs.is_empty() {
        out.push_str(&format!("\n\n{}", s.docs));
    }
    for f in &s.fields {
        out.push_str(&format!(
            "\n- `{}`: `{}`{}",
            f.name,
            f.type_name,
            if f.required { " (required)" } else { "" }
        ));
    }
    out
}

pub fn custom_field_markdown(s: &ComponentSchema, f: &FieldSchema) -> String {
    let mut out = format!(
        "`{}::{}`: `{}` ({:?})",
        s.type_name, f.name, f.type_name, f.kind
    );
    if f.required {
        out.push_str("\n\nrequired");
    }
    if let Some(d) = &f.default {
        out.push_str(&format!("\n\ndefault: `{d}`"));
    }
    if let Some(r) = &f.range {
        out.push_str(&format!(
            "\n\nrange: {}{}{}",
            r.min,
            if r.inclusive { "..=" } else { ".." },
            r.max
        ));
    }
    if !f.docs.is_empty() {
        out.push_str(&format!("\n\n{}", f.docs));
    }
    out
}

fn custom_markdown(
    schema: Option<&SchemaFile>,
    type_path: &str,
    field: Option<&str>,
) -> Option<String> {
    let Some(schema) = schema else {
        return Some(format!(
            "`{type_path}`: no schema file, so its fields are not known (the module docs of \
             `forge lsp`, or the guide's \"Editor setup\", say where it is looked for)"
        ));
    };
    let Some(s) = schema.get(type_path) else {
        return Some(format!("`{type_path}` is not in the schema file"));
    };
    match field {
        None => Some(component_markdown(s)),
        Some(name) => s.field(name).map(|f| custom_field_markdown(s, f)),
    }
}

/// The prefab file `scene` (an asset path), as far as it reads.
fn read_prefab(state: &State, doc: &Document, scene: &str) -> Option<SceneDoc> {
    let root = &doc.checked.as_ref()?.root;
    Some(state.read_scene(&root.join(scene))?.1.doc)
}

/// A palette key in code: `` ` `` itself needs a longer fence.
fn key_code(key: char) -> String {
    if key == '`' {
        "`` ` ``".to_owned()
    } else {
        format!("`{key}`")
    }
}

/// Cell `(i, j)` of `layer`, written as `key`: the palette entry and prefab it places, its id
/// path, the prefab's roots there (by their paths), and the overrides of the cell.
fn cell_markdown(
    state: &State,
    doc: &Document,
    layer: &TileLayer,
    (i, j): (u64, u64),
    key: char,
) -> String {
    let l = layer.id;
    let mut out = if layer.name.is_empty() {
        format!("cell ({i}, {j}) of layer `#{l}`")
    } else {
        format!(
            "cell ({i}, {j}) of layer **{}** `#{l}`",
            escape(&layer.name)
        )
    };
    if key == EMPTY_CELL {
        out.push_str(&format!(
            "\n\nempty: {} places nothing",
            key_code(EMPTY_CELL)
        ));
        return out;
    }
    let Some(scene) = layer.prefab(key) else {
        out.push_str(&format!(
            "\n\nkey {} is not in the layer's palette",
            key_code(key)
        ));
        return out;
    };
    out.push_str(&format!(
        "\n\nkey {} → `{scene}`\n\nid path `[{l}, {i}, {j}]` (`#{l}/{i}/{j}/…` for its entities)",
        key_code(key)
    ));
    if let Some(prefab) = read_prefab(state, doc, scene) {
        let roots: Vec<String> = prefab
            .roots
            .iter()
            .filter_map(|r| prefab.entities.get(r))
            .map(|e| format!("`#{l}/{i}/{j}/{}` {}", e.id, escape(&e.name)))
            .collect();
        out.push_str(&format!(
            "\n\nprefab **{}**: {} entities\n\nroots: {}",
            escape(&prefab.name),
            prefab.entities.len(),
            roots.join(", ")
        ));
    }
    let overrides = layer
        .overrides
        .iter()
        .filter(|o| o.target.get(..2) == Some(&[i, j][..]))
        .count();
    if overrides > 0 {
        out.push_str(&format!(
            "\n\n{overrides} override{} of this cell",
            if overrides == 1 { "" } else { "s" }
        ));
    }
    out
}

fn prefab_markdown(state: &State, doc: &Document, scene: &str) -> Option<String> {
    let prefab = read_prefab(state, doc, scene)?;
    let roots: Vec<String> = prefab
        .roots
        .iter()
        .filter_map(|r| prefab.entities.get(r))
        .map(|e| format!("`#{}` {}", e.id, escape(&e.name)))
        .collect();
    Some(format!(
        "prefab **{}** (`{scene}`): {} entities\n\nroots: {}",
        escape(&prefab.name),
        prefab.entities.len(),
        roots.join(", ")
    ))
}

/// The node a model override's node path names: its path, its children, its mesh's
/// primitives and its light, read from the model file in the assets directory `root`; or what
/// keeps it from being one.
fn node_markdown(root: &std::path::Path, model: &str, path: &[String]) -> Option<String> {
    use bevy_forge_scene::validate::ModelEntity;
    let (tree, scene) = bevy_forge_scene::validate::ModelTree::open(root, model).ok()?;
    let shown = path.join("/");
    match tree.resolve(scene, path) {
        // A node's light entity, or one of its mesh primitives, by its own path.
        Ok(ModelEntity::Light { node }) => {
            let light = tree.light(node)?;
            let parent = &path[..path.len().saturating_sub(1)];
            Some(format!(
                "the light entity of model node `{}` of `{model}`\n\n{}",
                parent.join("/"),
                light_markdown(light, parent)
            ))
        }
        Ok(ModelEntity::Primitive { node, .. }) => Some(format!(
            "mesh primitive `{}` of model node `{}` of `{model}`: an entity with `Mesh3d` and the file's material",
            path.last().map_or("", String::as_str),
            tree.nodes[node].0
        )),
        Ok(ModelEntity::SceneRoot) => None,
        Ok(ModelEntity::Node(node)) => {
            let children: Vec<String> = tree.nodes[node]
                .1
                .iter()
                .map(|c| format!("`{}`", tree.nodes[*c].0))
                .collect();
            let below = if children.is_empty() {
                "no child nodes".to_owned()
            } else {
                format!("child nodes: {}", children.join(", "))
            };
            let mut parts = vec![format!("model node `{shown}` of `{model}`"), below];
            let primitives: Vec<String> = tree
                .primitives(node)
                .iter()
                .map(|p| format!("`{p}`"))
                .collect();
            if !primitives.is_empty() {
                parts.push(format!(
                    "mesh primitives (entities under the node, with `Mesh3d` and the file's material): {}",
                    primitives.join(", ")
                ));
            }
            if let Some(light) = tree.light(node) {
                parts.push(light_markdown(light, path));
            }
            Some(parts.join("\n\n"))
        }
        Err(miss) => {
            let names: Vec<String> = miss.names.iter().map(|n| format!("`{n}`")).collect();
            Some(format!(
                "no node `{}` in `{model}` at `{shown}`; the nodes there: {}",
                path[miss.at],
                names.join(", ")
            ))
        }
    }
}

/// A model node's light: what the file says, the Bevy component Bevy 0.20.1's glTF loader
/// makes of it (point and spot intensity from candela to lumens, times 4π; range 20 when the
/// file gives none), and the entity it is on.
fn light_markdown(light: &bevy_forge_scene::validate::ModelLight, path: &[String]) -> String {
    let [r, g, b] = light.color;
    let name = light
        .name
        .as_deref()
        .map_or(String::new(), |n| format!(" `{n}`"));
    let range = light.range.unwrap_or(20.0);
    let (file, bevy) = match light.kind.as_str() {
        "directional" => (
            format!("{} lx", light.intensity),
            format!("`DirectionalLight`, illuminance {} lx", light.intensity),
        ),
        kind => {
            let component = if kind == "spot" {
                "SpotLight"
            } else {
                "PointLight"
            };
            let lumens = light.intensity * 4.0 * std::f32::consts::PI;
            (
                format!("{} cd", light.intensity),
                format!("`{component}`, intensity {lumens:.0} lm, range {range}"),
            )
        }
    };
    let tag = match light.kind.as_str() {
        "directional" => "directional_light",
        "spot" => "spot_light",
        _ => "point_light",
    };
    let entity = match &light.name {
        Some(n) => {
            let mut at: Vec<&str> = path.iter().map(String::as_str).collect();
            at.push(n);
            format!(
                "on its entity under the node, `{at:?}`; a `set` of `{tag}` on the node reaches it"
            )
        }
        None => format!(
            "on an unnamed entity under the node (node path ending in `\"\"`); a `set` of `{tag}` on the node reaches it"
        ),
    };
    format!(
        "light: {kind}{name}, colour ({r}, {g}, {b}), {file} in the file; Bevy's {bevy}; {entity}",
        kind = light.kind
    )
}

/// The names of the model nodes directly below `path` (the scene's root nodes for an empty
/// path), read from the model file in the assets directory `root`.
pub fn node_children(root: &std::path::Path, model: &str, path: &[String]) -> Vec<String> {
    let Ok((tree, scene)) = bevy_forge_scene::validate::ModelTree::open(root, model) else {
        return Vec::new();
    };
    tree.children_at(scene, path)
        .unwrap_or_default()
        .iter()
        .map(|c| tree.nodes[*c].0.clone())
        .collect()
}
