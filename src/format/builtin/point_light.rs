//! `point_light`: a light shining in every direction from the entity (Bevy's `PointLight`).

use serde::{Deserialize, Serialize};

use super::{
    Assign, BevyText, BuiltinField, BuiltinTag, ComponentData, FieldKind, FieldRange, Payload,
    Role, Value, ValueRef,
};
use crate::codes;
use crate::format::value::ColorData;

/// Payload of a `point_light` component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointLightData {
    /// Light colour, sRGB.
    pub color: ColorData,
    /// Luminous power in lumens; must be non-negative.
    pub intensity: f32,
    /// Cut-off distance in world units; must be positive.
    pub range: f32,
    /// Whether the light casts shadows.
    pub shadows: bool,
}

const NOUN: &str = "point light";
const NON_FINITE: Option<&str> = Some(codes::light::NON_FINITE);

/// A light's `color`; `noun` names the light in messages (`point light`).
pub(super) const fn color(noun: &'static str) -> BuiltinField {
    BuiltinField::new("color", FieldKind::Color, "Light colour.").noun(noun, NON_FINITE)
}

/// A light's `intensity`: luminous power in lumens, zero or more.
pub(super) const fn intensity(noun: &'static str) -> BuiltinField {
    BuiltinField::new("intensity", FieldKind::Float, "Luminous power.")
        .unit("lumens")
        .noun(noun, NON_FINITE)
        .range(
            FieldRange::NonNegative,
            codes::light::INTENSITY,
            Some("intensity is luminous power in lumens; `0.0` turns the light off"),
        )
}

/// A light's `range`: its cut-off distance in world units, above zero.
pub(super) const fn range(noun: &'static str) -> BuiltinField {
    BuiltinField::new("range", FieldKind::Float, "Cut-off distance.")
        .unit("world units")
        .noun(noun, NON_FINITE)
        .range(
            FieldRange::Positive,
            codes::light::RANGE,
            Some("range is the cut-off distance in world units, for example `20.0`"),
        )
}

/// A light's `shadows`.
pub(super) const fn shadows() -> BuiltinField {
    BuiltinField::new(
        "shadows",
        FieldKind::Bool,
        "Whether the light casts shadows.",
    )
}

pub(crate) static POINT_LIGHT: BuiltinTag = BuiltinTag {
    tag: "point_light",
    doc: "A point light: shines in every direction from the entity's position.",
    bevy: "PointLight",
    payload: Payload::Fields(&[color(NOUN), intensity(NOUN), range(NOUN), shadows()]),
    context: "point_light data",
    names: &["color", "intensity", "range", "shadows"],
    groups: &[],
    default: || {
        ComponentData::PointLight(PointLightData {
            color: ColorData::WHITE,
            intensity: 0.0,
            range: 0.0,
            shadows: false,
        })
    },
    get,
    set,
    role: Role::Light,
    cross: None,
    export,
    assign,
};

accessors!(PointLight: color, intensity, range, shadows);

fn export(c: &ComponentData, w: &dyn BevyText) -> Vec<String> {
    let ComponentData::PointLight(l) = c else {
        return Vec::new();
    };
    vec![w.value(
        "PointLight",
        &[
            format!("color: {}", w.color(l.color)),
            format!("intensity: {}", w.number(l.intensity)),
            format!("range: {}", w.number(l.range)),
            format!("shadow_maps_enabled: {}", l.shadows),
        ],
    )]
}

fn assign(c: &ComponentData, i: usize, w: &dyn BevyText) -> Option<Assign> {
    let ComponentData::PointLight(l) = c else {
        return None;
    };
    let statement = match i {
        0 => format!("color = {}", w.color(l.color)),
        1 => format!("intensity = {}", w.float(l.intensity)),
        2 => format!("range = {}", w.float(l.range)),
        3 => format!("shadow_maps_enabled = {}", l.shadows),
        _ => return None,
    };
    Assign::new("PointLight", statement)
}
