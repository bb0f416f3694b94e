//! The activation gate: [`ForgeSceneInactive`] on a root holds its instance hidden and marked
//! inactive until the game removes it.

use bevy_ecs::prelude::*;
use bevy_reflect::Reflect;

use crate::runtime::values::builtin;

/// The activation gate: a scene spawned inactive, revealed when the game decides (Unity's
/// `allowSceneActivation = false`). Put it on a [`ForgeSceneRoot`] entity (with it, or later)
/// and:
/// - every entity of the instance carries `ForgeSceneInactive` too, from the moment it spawns
///   (before its built-in and custom components are inserted, so their hooks see it): a game's
///   systems skip them with `Without<ForgeSceneInactive>`;
/// - the root's `Visibility` is `Hidden` (with the `builtins` feature), so nothing of it is
///   drawn;
/// - the spawn itself goes on (within its [`ForgeSpawnBudget`](crate::ForgeSpawnBudget)) and [`ForgeSceneReady`](crate::ForgeSceneReady) is
///   triggered when it is complete, as for any root.
///
/// Remove it from the root to reveal the instance: in the next
/// [`ForgeSceneSystems::Spawn`](crate::ForgeSceneSystems::Spawn) every entity of the instance
/// loses it in one go and the root gets back the `Visibility` it had. Putting it back on the
/// root hides and marks the instance again. Entities hot reload adds to an inactive instance
/// spawn inactive. Nothing else changes: the entities exist, hot reload patches them, and
/// systems that do not filter on the marker see them.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[type_path = "bevy_forge_scene"]
#[reflect(Component)]
pub struct ForgeSceneInactive;

/// On a root whose instance is held inactive: what its `Visibility` was before.
#[derive(Component)]
pub(super) struct Held {
    shown: builtin::Shown,
}

/// A root, whether it has [`ForgeSceneInactive`], and whether its instance is held.
pub(super) type Gate = (Entity, Has<ForgeSceneInactive>, Has<Held>);

/// Opens (`active`) or closes the activation gate of `root`: `entities`, its instance's (those
/// spawned so far, while it spawns), lose or get [`ForgeSceneInactive`], and the root gets back
/// its `Visibility` or is hidden.
pub(super) fn set_active(world: &mut World, root: Entity, active: bool, entities: Vec<Entity>) {
    for entity in entities {
        if let Ok(mut e) = world.get_entity_mut(entity) {
            if active {
                e.remove::<ForgeSceneInactive>();
            } else {
                e.insert(ForgeSceneInactive);
            }
        }
    }
    let Ok(mut root_entity) = world.get_entity_mut(root) else {
        return;
    };
    if active {
        if let Some(held) = root_entity.take::<Held>() {
            builtin::show(&mut root_entity, held.shown);
        }
    } else {
        let shown = builtin::hide(&mut root_entity);
        root_entity.insert(Held { shown });
    }
}
