//! `camera2d` and Bevy's `Camera2d`.

use bevy_asset::UntypedHandle;
use bevy_camera::{Camera, Camera2d};
use bevy_ecs::world::{EntityWorldMut, World};

use super::{Parts, Sink, SubAssets};
use crate::format::ComponentData;

pub(super) const TAG: &str = "camera2d";
/// Besides what every camera brings ([`super::CAMERA_IMPLIED`]).
#[cfg(feature = "import")]
pub(super) const IMPLIED: &[&str] = &["Projection"];
pub(super) type Prepared = ();

pub(super) fn prepare(_: &mut impl Sink, _: &mut SubAssets) -> Result<Prepared, String> {
    Ok(())
}

pub(super) fn insert(
    entity: &mut EntityWorldMut,
    _: &Prepared,
    _: &mut dyn FnMut(&mut World, usize) -> Option<UntypedHandle>,
) {
    entity.insert(Camera2d);
}

pub(super) fn remove(entity: &mut EntityWorldMut) {
    entity.remove::<(Camera2d, Camera)>();
}

pub(super) fn read(parts: &mut impl Parts, _: Option<&ComponentData>) -> Option<ComponentData> {
    parts.take::<Camera2d>()?;
    Some(ComponentData::Camera2d)
}
