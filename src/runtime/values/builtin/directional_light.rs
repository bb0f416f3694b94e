//! `directional_light` and Bevy's `DirectionalLight`.

use bevy_light::DirectionalLight;

use super::{Parts, file_color};
use crate::format::{ComponentData, DirectionalLightData};

pub(super) const TAG: &str = "directional_light";
#[cfg(feature = "import")]
pub(super) const IMPLIED: &[&str] = &["CascadeShadowConfig"];

fn bevy(d: &DirectionalLightData) -> DirectionalLight {
    DirectionalLight {
        color: d.color.to_bevy(),
        illuminance: d.illuminance,
        shadow_maps_enabled: d.shadows,
        ..Default::default()
    }
}

one_component!(DirectionalLightData => DirectionalLight);

pub(super) fn read(parts: &mut impl Parts, _: Option<&ComponentData>) -> Option<ComponentData> {
    let l = parts.take::<DirectionalLight>()?;
    let data = DirectionalLightData {
        color: file_color(l.color),
        illuminance: l.illuminance,
        shadows: l.shadow_maps_enabled,
    };
    let kept = DirectionalLight {
        color: l.color,
        ..bevy(&data)
    };
    parts.partial(TAG, &l, &kept);
    Some(ComponentData::DirectionalLight(data))
}
