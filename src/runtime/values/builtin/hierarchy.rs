//! Bevy's `Visibility` through a scene's hierarchy: plain scene entities linked so that hiding
//! an ancestor hides what is drawn below it, and a root hidden while its instance is held
//! inactive.

use bevy_app::App;
use bevy_camera::visibility::Visibility;
use bevy_ecs::component::ComponentId;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::prelude::*;

use crate::runtime::values::components::ForgeEntityId;

/// What a `ForgeSceneRoot` requires besides `Transform`: `Visibility`, so a hidden root hides
/// its instance.
pub(crate) type RootRequires = Visibility;

/// The component id of `Visibility` in `world` (registered if it was not yet): checking each
/// spawned entity by id is cheaper than by type. `None` without the `builtins` feature, where
/// nothing spawned has it.
pub(crate) fn visibility_id(world: &mut World) -> Option<ComponentId> {
    Some(world.register_component::<Visibility>())
}

/// Gives each scene ancestor of `entity` a `Visibility` (`Inherited`) when `entity` has one, so
/// that hiding an ancestor hides it: Bevy propagates visibility only through entities that have
/// `Visibility`. Scene entities with nothing drawn at or below them get none (the format page,
/// "Visibility": no component means `inherited`). The walk stops at the first ancestor
/// that has one (its own ancestors got theirs when it did: [`link_parent_visibility`]), or that
/// is not a scene entity (the root, which requires it). Spawning and hot reload call this
/// directly, so a scene spawned into a bare `World` (without the observer) is linked too.
pub(crate) fn link_visibility(world: &mut World, entity: Entity) {
    if !world
        .get_entity(entity)
        .is_ok_and(|e| e.contains::<Visibility>())
    {
        return;
    }
    let mut current = entity;
    while let Some(parent) = world.get::<ChildOf>(current).map(ChildOf::parent) {
        let Ok(mut ancestor) = world.get_entity_mut(parent) else {
            return;
        };
        if ancestor.contains::<Visibility>() || !ancestor.contains::<ForgeEntityId>() {
            return;
        }
        ancestor.insert(Visibility::Inherited);
        current = parent;
    }
}

/// Keeps visibility flowing through plain scene entities when anything under them gets
/// `Visibility` later (added to `app` by [`observe_parents`]): a sprite or child the game adds,
/// a scene spawned under a scene entity, `Visibility` the game puts on a plain group. The
/// parent, when it is a scene entity without `Visibility`, gets `Visibility::Inherited`, which
/// triggers this again one level up. An entity the game moves (a new `ChildOf`) under a plain
/// scene entity is not seen: give that scene entity `Visibility`, as Bevy asks of every parent
/// of something drawn.
fn link_parent_visibility(
    add: On<Add<Visibility>>,
    parents: Query<&ChildOf>,
    plain: Query<(), (With<ForgeEntityId>, Without<Visibility>)>,
    mut commands: Commands,
) {
    if let Ok(child_of) = parents.get(add.event_target())
        && plain.contains(child_of.parent())
    {
        commands
            .entity(child_of.parent())
            .try_insert(Visibility::Inherited);
    }
}

/// Adds the observer that links the visibility of scene entities as things below them get
/// `Visibility` ([`link_parent_visibility`]).
pub(crate) fn observe_parents(app: &mut App) {
    app.add_observer(link_parent_visibility);
}

/// What a root's `Visibility` was before it was hidden ([`hide`]).
pub(crate) type Shown = Option<Visibility>;

/// Hides the root `entity` (`Visibility::Hidden`); what it had before.
pub(crate) fn hide(entity: &mut EntityWorldMut) -> Shown {
    let shown = entity.get::<Visibility>().copied();
    entity.insert(Visibility::Hidden);
    shown
}

/// Gives the root `entity` back the `Visibility` [`hide`] took.
pub(crate) fn show(entity: &mut EntityWorldMut, shown: Shown) {
    if let Some(visibility) = shown {
        entity.insert(visibility);
    }
}
