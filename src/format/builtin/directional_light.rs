//! `directional_light`: sunlight, parallel rays along the entity's forward (Bevy's
//! `DirectionalLight`).

use serde::{Deserialize, Serialize};

use super::point_light::{color, shadows};
use super::{
    Assign, BevyText, BuiltinField, BuiltinTag, ComponentData, FieldKind, FieldRange, Payload,
    Role, Value, ValueRef,
};
use crate::codes;
use crate::format::value::ColorData;

/// Payload of a `directional_light` component. Its direction is the entity's rotation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectionalLightData {
    /// Light colour, sRGB.
    pub color: ColorData,
    /// Illuminance in lux; must be non-negative.
    pub illuminance: f32,
    /// Whether the light casts shadows.
    pub shadows: bool,
}

const NOUN: &str = "directional light";
const NON_FINITE: Option<&str> = Some(codes::light::NON_FINITE);

pub(crate) static DIRECTIONAL_LIGHT: BuiltinTag = BuiltinTag {
    tag: "directional_light",
    doc: "A directional light: parallel rays along the entity's forward (-Z), like the sun.",
    bevy: "DirectionalLight",
    payload: Payload::Fields(&[
        color(NOUN),
        BuiltinField::new("illuminance", FieldKind::Float, "Illuminance.")
            .unit("lux")
            .noun(NOUN, NON_FINITE)
            .range(
                FieldRange::NonNegative,
                codes::light::ILLUMINANCE,
                Some("illuminance is in lux; `0.0` turns the light off"),
            ),
        shadows(),
    ]),
    context: "directional_light data",
    names: &["color", "illuminance", "shadows"],
    groups: &[],
    default: || {
        ComponentData::DirectionalLight(DirectionalLightData {
            color: ColorData::WHITE,
            illuminance: 0.0,
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

accessors!(DirectionalLight: color, illuminance, shadows);

fn export(c: &ComponentData, w: &dyn BevyText) -> Vec<String> {
    let ComponentData::DirectionalLight(l) = c else {
        return Vec::new();
    };
    vec![w.value(
        "DirectionalLight",
        &[
            format!("color: {}", w.color(l.color)),
            format!("illuminance: {}", w.number(l.illuminance)),
            format!("shadow_maps_enabled: {}", l.shadows),
        ],
    )]
}

fn assign(c: &ComponentData, i: usize, w: &dyn BevyText) -> Option<Assign> {
    let ComponentData::DirectionalLight(l) = c else {
        return None;
    };
    let statement = match i {
        0 => format!("color = {}", w.color(l.color)),
        1 => format!("illuminance = {}", w.float(l.illuminance)),
        2 => format!("shadow_maps_enabled = {}", l.shadows),
        _ => return None,
    };
    Assign::new("DirectionalLight", statement)
}
