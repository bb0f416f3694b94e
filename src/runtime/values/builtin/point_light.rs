//! `point_light` and Bevy's `PointLight`.

use bevy_light::PointLight;

use super::{Parts, file_color};
use crate::format::{ComponentData, PointLightData};

pub(super) const TAG: &str = "point_light";
#[cfg(feature = "import")]
pub(super) const IMPLIED: &[&str] = &[];

fn bevy(d: &PointLightData) -> PointLight {
    PointLight {
        color: d.color.to_bevy(),
        intensity: d.intensity,
        range: d.range,
        shadow_maps_enabled: d.shadows,
        ..Default::default()
    }
}

one_component!(PointLightData => PointLight);

pub(super) fn read(parts: &mut impl Parts, _: Option<&ComponentData>) -> Option<ComponentData> {
    let l = parts.take::<PointLight>()?;
    let data = PointLightData {
        color: file_color(l.color),
        intensity: l.intensity,
        range: l.range,
        shadows: l.shadow_maps_enabled,
    };
    let kept = PointLight {
        color: l.color,
        ..bevy(&data)
    };
    parts.partial(TAG, &l, &kept);
    Some(ComponentData::PointLight(data))
}
