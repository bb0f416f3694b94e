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

/// The id path of a spawned entity that a prefab instance placed: the instance entity's id in
/// the scene, then the entity's id in the prefab, and deeper for nested instances (`[5, 3]`,
/// `[5, 7, 2]`; the `format` module docs, "Prefab instances"). Entities of the scene's own file
/// have none: their path is their [`ForgeEntityId`]. Stable across edits of every file involved.
#[derive(Component, Clone, Debug, PartialEq, Eq, Hash, Default, Reflect)]
#[reflect(Component)]
// Type path at the crate root (as re-exported), whatever module defines it.
#[type_path = "bevy_forge_scene"]
pub struct ForgeEntityPath(pub Vec<u64>);

/// What every spawned scene entity has, spawned as one bundle.
pub(crate) type EntityBundle = (Name, Transform, ChildOf, ForgeEntityId);

/// Bevy's `Transform` of a file transform (Euler degrees to a quaternion, `EulerRot::XYZ`; the
/// format page, "Transform").
pub(crate) fn bevy_transform_of(t: &crate::format::TransformData) -> Transform {
    Transform {
        translation: t.translation.into(),
        rotation: t.rotation_quat(),
        scale: t.scale.into(),
    }
}
