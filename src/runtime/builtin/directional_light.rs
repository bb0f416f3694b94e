//! `directional_light` and Bevy's `DirectionalLight`.

use bevy_asset::UntypedHandle;
use bevy_ecs::world::{EntityWorldMut, World};
use bevy_light::DirectionalLight;

use super::{Parts, Sink, SubAssets, file_color};
use crate::format::{ComponentData, DirectionalLightData};

pub(super) const TAG: &str = "directional_light";
#[cfg(feature = "import")]
pub(super) const IMPLIED: &[&str] = &["CascadeShadowConfig"];
pub(super) type Prepared = DirectionalLight;

fn bevy(d: &DirectionalLightData) -> DirectionalLight {
    DirectionalLight {
        color: d.color.to_bevy(),
        illuminance: d.illuminance,
        shadow_maps_enabled: d.shadows,
        ..Default::default()
    }
}

pub(super) fn prepare(
    d: &DirectionalLightData,
    _: &mut impl Sink,
    _: &mut SubAssets,
) -> Result<Prepared, String> {
    Ok(bevy(d))
}

pub(super) fn insert(
    entity: &mut EntityWorldMut,
    light: &Prepared,
    _: &mut dyn FnMut(&mut World, usize) -> Option<UntypedHandle>,
) {
    entity.insert(*light);
}

pub(super) fn remove(entity: &mut EntityWorldMut) {
    entity.remove::<DirectionalLight>();
}

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
