//! `spot_light` and Bevy's `SpotLight`: the file's angles are degrees, Bevy's radians.

use bevy_light::SpotLight;

use super::{Parts, file_color};
use crate::format::{ComponentData, SpotLightData};

pub(super) const TAG: &str = "spot_light";
#[cfg(feature = "import")]
pub(super) const IMPLIED: &[&str] = &[];

fn bevy(d: &SpotLightData) -> SpotLight {
    SpotLight {
        color: d.color.to_bevy(),
        intensity: d.intensity,
        range: d.range,
        radius: d.radius,
        inner_angle: d.inner_angle.to_radians(),
        outer_angle: d.outer_angle.to_radians(),
        shadow_maps_enabled: d.shadows,
        ..Default::default()
    }
}

one_component!(SpotLightData => SpotLight);

/// Degrees of `radians`, snapped to a value the file writes short (`45` rather than
/// `45.000004`) when it is within a few `f32` steps of one.
fn degrees(radians: f32) -> f32 {
    let d = radians.to_degrees();
    let round = ((f64::from(d) * 1e4).round() / 1e4) as f32;
    if (round - d).abs() <= 8.0 * f32::EPSILON * d.abs().max(1.0) {
        round
    } else {
        d
    }
}

pub(super) fn read(parts: &mut impl Parts, _: Option<&ComponentData>) -> Option<ComponentData> {
    let l = parts.take::<SpotLight>()?;
    let data = SpotLightData {
        color: file_color(l.color),
        intensity: l.intensity,
        range: l.range,
        radius: l.radius,
        inner_angle: degrees(l.inner_angle),
        outer_angle: degrees(l.outer_angle),
        shadows: l.shadow_maps_enabled,
    };
    let kept = SpotLight {
        color: l.color,
        inner_angle: l.inner_angle,
        outer_angle: l.outer_angle,
        ..bevy(&data)
    };
    parts.partial(TAG, &l, &kept);
    Some(ComponentData::SpotLight(data))
}
