//! `camera3d` and Bevy's `Camera3d`.

use bevy_asset::UntypedHandle;
use bevy_camera::{Camera, Camera3d};
use bevy_ecs::world::{EntityWorldMut, World};

use super::{Parts, Sink, SubAssets};
use crate::format::ComponentData;

pub(super) const TAG: &str = "camera3d";
/// Besides what every camera brings ([`super::CAMERA_IMPLIED`]).
#[cfg(feature = "import")]
pub(super) const IMPLIED: &[&str] = &[
    "Projection",
    "Camera3dDepthLoadOp",
    "Tonemapping",
    "DebandDither",
    "ColorGrading",
    "Exposure",
];
pub(super) type Prepared = ();

pub(super) fn prepare(_: &mut impl Sink, _: &mut SubAssets) -> Result<Prepared, String> {
    Ok(())
}

pub(super) fn insert(
    entity: &mut EntityWorldMut,
    _: &Prepared,
    _: &mut dyn FnMut(&mut World, usize) -> Option<UntypedHandle>,
) {
    entity.insert(Camera3d::default());
}

pub(super) fn remove(entity: &mut EntityWorldMut) {
    entity.remove::<(Camera3d, Camera)>();
}

pub(super) fn read(parts: &mut impl Parts, _: Option<&ComponentData>) -> Option<ComponentData> {
    let camera = parts.take::<Camera3d>()?;
    parts.partial(TAG, &camera, &Camera3d::default());
    Some(ComponentData::Camera3d)
}

/// Whether the camera on `entity` renders (Bevy's `Camera::is_active`), when it has a camera.
#[cfg_attr(not(feature = "gltf"), allow(dead_code))]
pub(crate) fn camera_is_active(entity: bevy_ecs::world::EntityRef) -> Option<bool> {
    entity.get::<Camera>().map(|c| c.is_active)
}

/// Switches the camera on `entity` on or off (`Camera::is_active`); nothing without a camera.
#[cfg_attr(not(feature = "gltf"), allow(dead_code))]
pub(crate) fn set_camera_active(entity: &mut EntityWorldMut, active: bool) {
    if let Some(mut camera) = entity.get_mut::<Camera>()
        && camera.is_active != active
    {
        camera.is_active = active;
    }
}
