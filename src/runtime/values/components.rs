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

/// The id path of an entity of a scene: `[id]` for an entity of the scene's own file, and for
/// one a prefab instance placed, the instance entity's id in the scene, then the entity's id in
/// the prefab, and deeper for nested instances (`[5, 3]`, `[5, 7, 2]`; the format page, "Prefab
/// instances"). Stable across edits of every file involved: the ids the files say, never a hash.
///
/// Spawned entities a prefab placed carry it as a component (those of the scene's own file have
/// their [`ForgeEntityId`] instead); [`ForgeSceneInstance`](crate::ForgeSceneInstance) and
/// [`ForgeSceneReloaded`](crate::ForgeSceneReloaded) name entities by it. It reads as a slice
/// of ids: `path == [5, 3]`, `path.last()`.
#[derive(Component, Clone, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord, Reflect)]
#[reflect(Component)]
// Type path at the crate root (as re-exported), whatever module defines it.
#[type_path = "bevy_forge_scene"]
pub struct ForgeEntityPath(pub Vec<u64>);

impl ForgeEntityPath {
    /// The ids of the path, outermost first.
    pub fn as_slice(&self) -> &[u64] {
        &self.0
    }

    /// The entity's id in its own file: the last id of the path.
    pub fn id(&self) -> Option<u64> {
        self.0.last().copied()
    }
}

impl std::ops::Deref for ForgeEntityPath {
    type Target = [u64];

    fn deref(&self) -> &[u64] {
        &self.0
    }
}

impl From<&[u64]> for ForgeEntityPath {
    fn from(path: &[u64]) -> Self {
        Self(path.to_vec())
    }
}

impl From<Vec<u64>> for ForgeEntityPath {
    fn from(path: Vec<u64>) -> Self {
        Self(path)
    }
}

impl<const N: usize> PartialEq<[u64; N]> for ForgeEntityPath {
    fn eq(&self, other: &[u64; N]) -> bool {
        self.0 == other
    }
}

impl PartialEq<[u64]> for ForgeEntityPath {
    fn eq(&self, other: &[u64]) -> bool {
        self.0 == other
    }
}

/// As the format writes an override's `target`: `[5, 3]`.
impl std::fmt::Display for ForgeEntityPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

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
