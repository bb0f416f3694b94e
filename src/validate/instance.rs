//! The rules of a prefab instance that the scene file alone shows (the `format` module docs,
//! "Prefab instances"): the prefab's path, and the shape of each override. What needs the
//! prefab (targets that exist, components to set or remove) is [`crate::prefab`]'s.

use super::asset_path::asset_path_problem;
use super::scene::SceneFacts;
use super::{Collector, Diagnostic, Loc, Severity};
use crate::codes;
use crate::format::{COMPONENT_TAGS, Instance, OverridePart};
use crate::project::{AssetIndex, AssetKind};

pub(super) fn instance(
    c: &mut Collector,
    id: u64,
    instance: &Instance,
    assets: Option<&AssetIndex>,
    facts: &mut SceneFacts,
) {
    let scene = instance.scene.as_str();
    if let Some(model) = &instance.model {
        super::model::model(c, id, model, instance, assets, facts);
    } else if let Some((code, message)) = prefab_path_problem(scene) {
        c.push(
            Diagnostic::new(Severity::Error, code, message)
                .with_entity(id)
                .with_path("instance.scene")
                .with_help("a prefab is a scene file named by its path in the assets directory, like `prefabs/goblin.forge.ron`"),
            Loc::InstanceScene,
        );
    }
    if let Some((field, message)) = instance.streaming.as_ref().and_then(|s| s.problem()) {
        c.push(
            Diagnostic::new(Severity::Error, codes::prefab::STREAMING, message)
                .with_entity(id)
                .with_path(format!("instance.streaming.{field}"))
                .with_help("a streamed cell needs `0 < load_radius < unload_radius`, like `streaming: Some((load_radius: 40.0, unload_radius: 50.0))`"),
            Loc::InstanceStreaming(field),
        );
    }
    overrides(c, id, &instance.overrides, "instance", Loc::Override);
}

/// The shape of each of `overrides`, held by entity (or layer) `id` at `holder` (`instance`,
/// `layers[2]`), each located by `loc`.
pub(super) fn overrides(
    c: &mut Collector,
    id: u64,
    overrides: &[crate::format::Override],
    holder: &str,
    loc: fn(usize, OverridePart<'static>) -> Loc,
) {
    for (i, o) in overrides.iter().enumerate() {
        let path = |rest: &str| format!("{holder}.overrides[{i}]{rest}");
        if o.target.is_empty() && o.node.is_empty() {
            c.push(
                Diagnostic::new(
                    Severity::Error,
                    codes::prefab::EMPTY_TARGET,
                    "an override needs a target: the id path of a prefab entity (or the node path of a model's node)",
                )
                .with_entity(id)
                .with_path(path(".target"))
                .with_help("write the entity's id in the prefab, like `target: [1]` (a model's node by name, like `target: [\"Door\"]`)"),
                loc(i, OverridePart::Field("target")),
            );
        }
        for (j, key) in o.remove.iter().enumerate() {
            if !is_component_key(key) {
                c.push(
                    Diagnostic::new(
                        Severity::Error,
                        codes::prefab::REMOVE_KEY,
                        format!("`{key}` is not a component key"),
                    )
                    .with_entity(id)
                    .with_path(path(&format!(".remove[{j}]")))
                    .with_help("a key is a component tag (`sprite`, `point_light`) or `custom:` and a type path"),
                    loc(i, OverridePart::Remove(j)),
                );
            }
        }
        if o.is_empty() {
            c.push(
                Diagnostic::new(
                    Severity::Info,
                    codes::prefab::EMPTY_OVERRIDE,
                    format!("the override of {:?} changes nothing", o.target),
                )
                .with_entity(id)
                .with_path(path("")),
                loc(i, OverridePart::Entry),
            );
        }
    }
}

/// What is wrong with `scene` as the path of a prefab file: a code and a message.
pub(super) fn prefab_path_problem(scene: &str) -> Option<(&'static str, String)> {
    if let Some(problem) = asset_path_problem("prefab", scene) {
        return Some(problem);
    }
    if AssetKind::of(scene) != AssetKind::Scene || scene.contains('#') {
        return Some((
            codes::prefab::NOT_A_SCENE,
            format!("prefab path `{scene}` does not name a `.forge.ron` scene file"),
        ));
    }
    // Whether the file exists is for whoever reads it (the loader, `forge validate`).
    None
}

/// Whether `key` is a component key: a built-in tag, or `custom:` and a type path.
pub(crate) fn is_component_key(key: &str) -> bool {
    match key.strip_prefix("custom:") {
        Some(type_path) => super::is_type_path(type_path),
        None => COMPONENT_TAGS.contains(&key) && key != "custom",
    }
}
