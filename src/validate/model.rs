//! The rules of a model instance (`instance: Some((model: "models/house.glb#Scene0"))`): its
//! path (a `.gltf` or `.glb` file and a `#SceneN` label), and with an asset index the file; with
//! feature `gltf` and an index made by [`AssetIndex::scan`], the scene and the override node
//! paths, against the file's JSON node tree.

use super::gltf::split_model_path;
use super::scene::SceneFacts;
use super::{Collector, Diagnostic, Loc, Severity};
use crate::codes;
use crate::format::Instance;
use crate::project::AssetIndex;

pub(super) fn model(
    c: &mut Collector,
    id: u64,
    model: &str,
    instance: &Instance,
    assets: Option<&AssetIndex>,
    facts: &mut SceneFacts,
) {
    let path_error = |code, message: String| {
        Diagnostic::new(Severity::Error, code, message)
            .with_entity(id)
            .with_path("instance.model")
    };
    let problem = super::asset_path::asset_path_problem("model", model);
    if let Some((code, message)) = problem {
        c.push(
            path_error(code, message).with_help(
                "a model is a glTF file's scene by its path in the assets directory, like `models/house.glb#Scene0`",
            ),
            Loc::InstanceScene,
        );
        return;
    }
    let Some((file, scene)) = split_model_path(model) else {
        c.push(
            path_error(
                codes::model::NOT_A_MODEL,
                format!("model path `{model}` does not name a glTF scene"),
            )
            .with_help("write a `.gltf` or `.glb` file and the scene's label, like `models/house.glb#Scene0`"),
            Loc::InstanceScene,
        );
        return;
    };
    let Some(index) = assets else { return };
    if !index.contains(file) {
        let d = Diagnostic::new(
            Severity::Error,
            codes::asset::MISSING,
            format!("model asset `{file}` does not exist in the assets directory"),
        )
        .with_help("paths are relative to the assets directory and case-sensitive")
        .with_entity(id)
        .with_path("instance.model");
        c.push(d, Loc::InstanceScene);
        return;
    }
    #[cfg(feature = "gltf")]
    nodes(c, id, model, (file, scene), instance, index, facts);
    #[cfg(not(feature = "gltf"))]
    let _ = (scene, instance, facts);
}

/// Checks the scene label and each override's node path against the model's node tree.
#[cfg(feature = "gltf")]
fn nodes(
    c: &mut Collector,
    id: u64,
    model: &str,
    (file, scene): (&str, usize),
    instance: &Instance,
    index: &AssetIndex,
    facts: &mut SceneFacts,
) {
    use super::gltf::ModelTree;
    use std::sync::Arc;

    let Some(root) = index.root() else { return };
    let tree = facts
        .models
        .entry(file.to_owned())
        .or_insert_with(|| {
            let bytes =
                std::fs::read(root.join(file)).map_err(|e| format!("it cannot be read: {e}"))?;
            ModelTree::read(&bytes).map(Arc::new)
        })
        .clone();
    let tree = match tree {
        Ok(tree) => tree,
        Err(why) => {
            c.push(
                Diagnostic::new(
                    Severity::Error,
                    codes::model::UNREADABLE,
                    format!("model `{file}` is not a glTF file this can read: {why}"),
                )
                .with_entity(id)
                .with_path("instance.model")
                .with_help("export the model again as glTF 2.0 (`.gltf` or `.glb`)"),
                Loc::InstanceScene,
            );
            return;
        }
    };
    if scene >= tree.scenes.len() {
        let n = tree.scenes.len();
        let labels: Vec<String> = (0..n).map(|i| format!("`Scene{i}`")).collect();
        let help = match n {
            0 => "the file has no scenes: export the model with its scene".to_owned(),
            1 => format!("did you mean `{file}#Scene0`?"),
            _ => format!("its scenes are {}", labels.join(", ")),
        };
        c.push(
            Diagnostic::new(
                Severity::Error,
                codes::model::MISSING_SCENE,
                format!(
                    "model `{file}` has no scene `Scene{scene}` ({n} scene{})",
                    if n == 1 { "" } else { "s" }
                ),
            )
            .with_entity(id)
            .with_path("instance.model")
            .with_help(help),
            Loc::InstanceScene,
        );
        return;
    }
    for (i, o) in instance.overrides.iter().enumerate() {
        let miss = match tree.resolve(scene, &o.node) {
            Ok(entity) => {
                builtins_reached(c, id, model, &tree, entity, i, o);
                continue;
            }
            Err(miss) => miss,
        };
        let Some(name) = o.node.get(miss.at) else {
            continue;
        };
        let place = match miss.at {
            0 => "among its root nodes".to_owned(),
            at => format!("under `{}`", o.node[at - 1]),
        };
        let mut help = String::new();
        if let Some(near) = closest(name, &miss.names) {
            help.push_str(&format!("did you mean `{near}`? "));
        }
        help.push_str(
            "the override is kept and applies again if the model gets the node back; delete it if it is no longer wanted",
        );
        let shown: Vec<&str> = o.node.iter().map(|n| n.as_str()).collect();
        c.push(
            Diagnostic::new(
                Severity::Warning,
                codes::model::UNKNOWN_NODE,
                format!("override target {shown:?}: `{model}` has no node `{name}` {place}"),
            )
            .with_entity(id)
            .with_path(format!("instance.overrides[{i}].target[{}]", miss.at))
            .with_help(help),
            Loc::Override(i, crate::format::OverridePart::Node(miss.at)),
        );
    }
}

/// Each built-in override `o` (number `i`) `set`s or `remove`s on `entity` of `tree` must be
/// where the runtime reaches it: on the entity, or on a node's light entity (the format page,
/// "Models"); one that is not is `forge::model::no_component` (a warning) at the entry,
/// naming what the entity has. `visibility`, which every entity has and `set` writes whole,
/// always is.
#[cfg(feature = "gltf")]
fn builtins_reached(
    c: &mut Collector,
    id: u64,
    model: &str,
    tree: &super::gltf::ModelTree,
    entity: super::gltf::ModelEntity,
    i: usize,
    o: &crate::format::Override,
) {
    use crate::format::OverridePart;
    let has = tree.builtins_at(entity);
    let set = o.set.iter().enumerate().filter_map(|(j, p)| {
        let tag = p.component.builtin()?.tag;
        Some((tag, "set", OverridePart::Set(j), format!("set[{j}]")))
    });
    let remove = o.remove.iter().enumerate().filter_map(|(j, key)| {
        let tag = crate::format::builtin::builtin_tag(key)?.tag;
        Some((
            tag,
            "remove",
            OverridePart::Remove(j),
            format!("remove[{j}]"),
        ))
    });
    for (tag, does, part, path) in set.chain(remove) {
        if tag == "visibility" || has.contains(&tag) {
            continue;
        }
        let shown: Vec<&str> = o.node.iter().map(|n| n.as_str()).collect();
        let what = match entity {
            super::gltf::ModelEntity::SceneRoot => "the scene's root entity".to_owned(),
            super::gltf::ModelEntity::Node(_) => "the node".to_owned(),
            super::gltf::ModelEntity::Light { .. } => "the light entity".to_owned(),
            super::gltf::ModelEntity::Primitive { .. } => "the mesh primitive".to_owned(),
        };
        let found = match has.as_slice() {
            [] => format!("{what} has no built-in an override reaches"),
            has => format!("{what} has {}", has.join(", ")),
        };
        let mut help = format!("{found}; ");
        match entity {
            super::gltf::ModelEntity::Node(node) if tag == "mesh3d" => {
                match tree.primitives(node).first() {
                    Some(p) => help.push_str(&format!(
                        "a mesh is on its primitives' entities: target one by its path, like [{}]",
                        shown
                            .iter()
                            .map(|n| format!("{n:?}"))
                            .chain([format!("{p:?}")])
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                    None => help.push_str("the node has no mesh"),
                }
            }
            _ => help.push_str(&format!(
                "a `{does}` reaches the node's own components and its light's entity; `add` inserts a component the node lacks"
            )),
        }
        c.push(
            Diagnostic::new(
                Severity::Warning,
                codes::model::NO_COMPONENT,
                format!(
                    "override target {shown:?}: `{does}` of `{tag}` does nothing: `{model}` has no `{tag}` there"
                ),
            )
            .with_entity(id)
            .with_path(format!("instance.overrides[{i}].{path}"))
            .with_help(help),
            Loc::Override(i, part),
        );
    }
}

/// The name of `names` closest to `found` by edit distance, when close enough to be a typo.
#[cfg(feature = "gltf")]
fn closest<'a>(found: &str, names: &'a [String]) -> Option<&'a str> {
    let limit = (found.chars().count() / 3).max(1);
    names
        .iter()
        .map(|n| (crate::format::levenshtein(found, n), n.as_str()))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// The entity references (`#7`) in the custom values of the model overrides of `doc`'s own
/// entities (`set` and `add`): each must name an entity of the scene, as `referable` knows them
/// (the format page, "Entity references": an override's values are written in the frame of
/// the file that holds it). One that names nothing is `forge::custom::reference` at its line
/// and column, with the ids beside it. Whether the field holds an `Entity` is checked when the
/// override applies, against the game's types.
pub(crate) fn override_references(
    doc: &crate::format::SceneDoc,
    map: &crate::format::SourceMap,
    referable: &super::custom::Referable<'_>,
) -> Vec<Diagnostic> {
    use crate::format::{ComponentData, OverridePart};
    let mut found = Vec::new();
    for (id, node) in &doc.entities {
        let Some(instance) = node.instance.as_deref().filter(|i| i.is_model()) else {
            continue;
        };
        for (i, o) in instance.overrides.iter().enumerate() {
            let set = o.set.iter().map(|p| &p.component).enumerate();
            let set = set.map(|(j, c)| (j, c, true));
            let add = o.add.iter().enumerate().map(|(j, c)| (j, c, false));
            for (j, component, in_set) in set.chain(add) {
                let ComponentData::Custom(custom) = component else {
                    continue;
                };
                let exprs = custom
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(f, field)| (Some(f), field.name.as_str(), field.expr.as_str()))
                    .chain(custom.value.as_deref().map(|v| (None, "value", v)));
                for (f, field, expr) in exprs {
                    let Some(rewritten) = crate::schema::expr::references(expr) else {
                        continue;
                    };
                    for r in &rewritten.refs {
                        let reason = match &r.path {
                            Some(path) => match referable.find(path) {
                                Ok(_) => continue,
                                Err(reason) => reason,
                            },
                            None => "an id does not fit in a `u64`".to_owned(),
                        };
                        let (part, path) = match (in_set, f) {
                            (true, Some(f)) => (
                                OverridePart::SetCustomExpr(j, f),
                                format!("set[{j}].data.fields[{f}].expr"),
                            ),
                            (true, None) => (OverridePart::Set(j), format!("set[{j}].data.value")),
                            (false, Some(f)) => (
                                OverridePart::Add(j),
                                format!("add[{j}].data.fields[{f}].expr"),
                            ),
                            (false, None) => (OverridePart::Add(j), format!("add[{j}].data.value")),
                        };
                        let position = match part {
                            OverridePart::SetCustomExpr(..) => {
                                map.override_part_span(*id, i, part).map(|span| {
                                    map.position_of_offset(map.expr_offset(span, expr, r.at))
                                })
                            }
                            _ => map.override_part(*id, i, part),
                        };
                        let written = &expr[r.at..r.at + r.len];
                        let shown: Vec<&str> = o.node.iter().map(|n| n.as_str()).collect();
                        let mut d = Diagnostic::new(
                            Severity::Error,
                            codes::custom::REFERENCE,
                            format!(
                                "entity {id} (`{}`), override of node {shown:?}, `{}.{field}`: entity reference `{written}`: {reason} in `{}`",
                                node.name,
                                custom.type_path.rsplit("::").next().unwrap_or_default(),
                                crate::schema::expr::excerpt(expr)
                            ),
                        )
                        .with_entity(*id)
                        .with_path(format!("instance.overrides[{i}].{path}"))
                        .with_help(
                            "a reference in a model override names an entity of this file by its id (`#7`), or one a prefab instance of it placed by its id path (`#7/2`)",
                        );
                        d.position = position;
                        found.push(d);
                    }
                }
            }
        }
    }
    found
}
