//! Which part of an override set what a diagnostic of the expanded scene is about, so the
//! diagnostic points at the override's text ([`super::ExpandedScene::locate`]).

use super::same_component;
use crate::format::{EntityNode, OverridePart};

/// The part of override `o` that set what `field` (a diagnostic path of the expanded entity
/// `node`: `name`, `transform.scale.x`, `components[1].data.intensity`,
/// `components[0].data.fields[2].expr`) is about, with its path inside the override.
pub(super) fn override_part(
    o: &crate::format::Override,
    node: &EntityNode,
    field: &str,
) -> Option<(OverridePart<'static>, String)> {
    if field == "name" {
        return o
            .name
            .is_some()
            .then(|| (OverridePart::Field("name"), "name".to_owned()));
    }
    if let Some(rest) = field.strip_prefix("transform") {
        o.transform?;
        let part = match rest.strip_prefix('.') {
            Some(part) => OverridePart::Transform(leak_transform_part(part)),
            None => OverridePart::Field("transform"),
        };
        return Some((part, field.to_owned()));
    }
    let rest = field.strip_prefix("components[")?;
    let (index, rest) = rest.split_once(']')?;
    let component = node.components.get(index.parse::<usize>().ok()?)?;
    let payload = rest.strip_prefix(".data.").unwrap_or("");
    if let Some(j) = o.add.iter().position(|a| same_component(a, component)) {
        return Some((OverridePart::Add(j), format!("add[{j}]{rest}")));
    }
    let j = o
        .set
        .iter()
        .position(|p| same_component(&p.component, component))?;
    let patch = &o.set[j];
    // A custom field: the patch lists fields by name, in its own order.
    if let (Some(fields), crate::format::ComponentData::Custom(expanded)) =
        (payload.strip_prefix("fields["), component)
        && let Some((k, part)) = fields.split_once("].")
        && let crate::format::ComponentData::Custom(set) = &patch.component
    {
        let name = &expanded.fields.get(k.parse::<usize>().ok()?)?.name;
        let f = set.fields.iter().position(|f| &f.name == name)?;
        let (part, what) = match part {
            "name" => (OverridePart::SetCustomName(j, f), "name"),
            _ => (OverridePart::SetCustomExpr(j, f), "expr"),
        };
        return Some((part, format!("set[{j}].data.fields[{f}].{what}")));
    }
    // An enum's whole value.
    if payload == "value"
        && let crate::format::ComponentData::Custom(set) = &patch.component
        && set.value.is_some()
    {
        return Some((
            OverridePart::SetField(j, "value"),
            format!("set[{j}].data.value"),
        ));
    }
    if payload.is_empty() {
        // About the component as a whole (the visibility value).
        return Some((OverridePart::Set(j), format!("set[{j}]")));
    }
    // About a field: this override's only when it set that field.
    let field = crate::format::ComponentPatch::fields_of(component.tag())
        .into_iter()
        .find(|f| payload == *f || payload.starts_with(&format!("{f}.")))
        .filter(|f| patch.sets(f))?;
    Some((
        OverridePart::SetField(j, field),
        format!("set[{j}].data.{payload}"),
    ))
}

/// The `'static` name of a transform part (`scale.x`), as [`OverridePart::Transform`] takes it.
fn leak_transform_part(part: &str) -> &'static str {
    const PARTS: [&str; 12] = [
        "translation",
        "translation.x",
        "translation.y",
        "translation.z",
        "rotation",
        "rotation.x",
        "rotation.y",
        "rotation.z",
        "scale",
        "scale.x",
        "scale.y",
        "scale.z",
    ];
    PARTS
        .iter()
        .find(|p| **p == part)
        .copied()
        .unwrap_or("translation")
}
