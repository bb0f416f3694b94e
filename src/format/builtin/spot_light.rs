//! `spot_light`: a cone of light along the entity's forward (Bevy's `SpotLight`).

use serde::{Deserialize, Serialize};

use super::point_light::{color, intensity, range, shadows};
use super::{
    Assign, BevyText, BuiltinField, BuiltinTag, ComponentData, FieldKind, FieldRange, Payload,
    Problem, Role, Value, ValueRef,
};
use crate::codes;
use crate::format::value::ColorData;

/// Payload of a `spot_light` component: a cone along the entity's forward (-Z). `radius`,
/// `inner_angle` and `outer_angle` may be omitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpotLightData {
    /// Light colour, sRGB.
    pub color: ColorData,
    /// Luminous power in lumens; must be non-negative.
    pub intensity: f32,
    /// Cut-off distance in world units; must be positive.
    pub range: f32,
    /// Radius of the light's source in world units (soft highlights); non-negative, default 0.
    #[serde(default)]
    pub radius: f32,
    /// Angle from the axis in degrees where the light starts to fade; `0..=outer_angle`,
    /// default 0.
    #[serde(default)]
    pub inner_angle: f32,
    /// Angle from the axis in degrees where the light ends; `0..=90`, default 45.
    #[serde(default = "default_outer_angle")]
    pub outer_angle: f32,
    /// Whether the light casts shadows.
    pub shadows: bool,
}

fn default_outer_angle() -> f32 {
    45.0
}

const NOUN: &str = "spot light";
const NON_FINITE: Option<&str> = Some(codes::light::NON_FINITE);
const ANGLE_HELP: Option<&str> =
    Some("angles are in degrees from the light's axis, from 0 (a line) to 90 (a half-space)");

pub(crate) static SPOT_LIGHT: BuiltinTag = BuiltinTag {
    tag: "spot_light",
    doc: "A spot light: a cone of light along the entity's forward (-Z).",
    bevy: "SpotLight",
    payload: Payload::Fields(&[
        color(NOUN),
        intensity(NOUN),
        range(NOUN),
        BuiltinField::new(
            "radius",
            FieldKind::Float,
            "Radius of the light's source (soft highlights).",
        )
        .unit("world units")
        .default("0.0")
        .noun(NOUN, NON_FINITE)
        .range(
            FieldRange::NonNegative,
            codes::light::RADIUS,
            Some("radius is the size of the light's source in world units; `0.0` is a point"),
        ),
        BuiltinField::new(
            "inner_angle",
            FieldKind::Float,
            "Angle from the axis where the light starts to fade.",
        )
        .unit("degrees")
        .default("0.0")
        .noun(NOUN, NON_FINITE)
        .range(
            FieldRange::Within(0.0, 90.0),
            codes::light::ANGLE,
            ANGLE_HELP,
        ),
        BuiltinField::new(
            "outer_angle",
            FieldKind::Float,
            "Angle from the axis where the light ends.",
        )
        .unit("degrees")
        .default("45.0")
        .noun(NOUN, NON_FINITE)
        .range(
            FieldRange::Within(0.0, 90.0),
            codes::light::ANGLE,
            ANGLE_HELP,
        ),
        shadows(),
    ]),
    context: "spot_light data",
    names: &[
        "color",
        "intensity",
        "range",
        "radius",
        "inner_angle",
        "outer_angle",
        "shadows",
    ],
    groups: &[],
    default: || {
        ComponentData::SpotLight(SpotLightData {
            color: ColorData::WHITE,
            intensity: 0.0,
            range: 0.0,
            radius: 0.0,
            inner_angle: 0.0,
            outer_angle: default_outer_angle(),
            shadows: false,
        })
    },
    get,
    set,
    role: Role::Light,
    cross: Some(cone),
    export,
    assign,
};

accessors!(SpotLight: color, intensity, range, radius, inner_angle, outer_angle, shadows);

fn cone(c: &ComponentData) -> Option<Problem> {
    let ComponentData::SpotLight(l) = c else {
        return None;
    };
    (l.inner_angle > l.outer_angle).then(|| Problem {
        error: true,
        code: codes::light::ANGLE,
        message: format!(
            "spot light inner_angle must not exceed outer_angle, found {} > {}",
            l.inner_angle, l.outer_angle
        ),
        help: Some("the light fades from inner_angle to outer_angle; make inner_angle the smaller"),
        field: Some("inner_angle"),
    })
}

fn export(c: &ComponentData, w: &dyn BevyText) -> Vec<String> {
    let ComponentData::SpotLight(l) = c else {
        return Vec::new();
    };
    // Bevy keeps the angles in radians.
    let radians = |degrees: f32| degrees.to_radians();
    vec![w.value(
        "SpotLight",
        &[
            format!("color: {}", w.color(l.color)),
            format!("intensity: {}", w.number(l.intensity)),
            format!("range: {}", w.number(l.range)),
            format!("radius: {}", w.number(l.radius)),
            format!("inner_angle: {}", w.number(radians(l.inner_angle))),
            format!("outer_angle: {}", w.number(radians(l.outer_angle))),
            format!("shadow_maps_enabled: {}", l.shadows),
        ],
    )]
}

fn assign(c: &ComponentData, i: usize, w: &dyn BevyText) -> Option<Assign> {
    let ComponentData::SpotLight(l) = c else {
        return None;
    };
    // Bevy keeps the angles in radians.
    let statement = match i {
        0 => format!("color = {}", w.color(l.color)),
        1 => format!("intensity = {}", w.float(l.intensity)),
        2 => format!("range = {}", w.float(l.range)),
        3 => format!("radius = {}", w.float(l.radius)),
        4 => format!("inner_angle = {}", w.float(l.inner_angle.to_radians())),
        5 => format!("outer_angle = {}", w.float(l.outer_angle.to_radians())),
        6 => format!("shadow_maps_enabled = {}", l.shadows),
        _ => return None,
    };
    Assign::new("SpotLight", statement)
}
