//! What every spawned scene entity carries: its [`ForgeEntityId`], and the bundle it spawns
//! with (`Name`, `Transform`, `ChildOf`, `ForgeEntityId`).

use bevy_ecs::component::Component;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::name::Name;
use bevy_ecs::reflect::ReflectComponent;
use bevy_reflect::Reflect;
use bevy_transform::components::Transform;

/// The stable file id of a spawned scene entity (its key in the file's `entities`).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Reflect)]
// Type path at the crate root (as re-exported), whatever module defines it: `.meta` files
// and reflected scenes name it.
#[type_path = "bevy_forge_scene"]
#[reflect(Component)]
pub struct ForgeEntityId(pub u64);

/// What every spawned scene entity has, spawned as one bundle.
pub(crate) type EntityBundle = (Name, Transform, ChildOf, ForgeEntityId);

/// Bevy's `Transform` of a file transform (Euler degrees to a quaternion, `EulerRot::XYZ`; the
/// format page, "Transform").
pub(crate) fn bevy_transform_of(t: &crate::format::Transform) -> Transform {
    Transform {
        translation: t.translation.into(),
        rotation: t.rotation_quat(),
        scale: t.scale.into(),
    }
}
