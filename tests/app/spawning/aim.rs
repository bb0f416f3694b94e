//! A custom component naming another entity of the scene, shared by the spawning tests: its
//! hook records whether the entity it names existed, with its final name, when it was inserted.

use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_ecs::world::DeferredWorld;
use bevy_forge_scene::prelude::*;
use bevy_reflect::std_traits::ReflectDefault;

/// The type path scenes write for [`Aim`].
pub const AIM: &str = "spawning_test::Aim";

/// A component naming another entity of the scene (`target: #id`).
#[derive(Component, bevy_reflect::Reflect, Debug, ForgeComponent)]
#[reflect(Component, Default)]
#[component(on_insert = aim_inserted)]
#[forge(type_path = "spawning_test::Aim")]
pub struct Aim {
    pub target: Entity,
}

impl Default for Aim {
    fn default() -> Self {
        Self {
            target: Entity::PLACEHOLDER,
        }
    }
}

/// What each `Aim` hook saw, when the resource exists: whether the target was alive and named.
#[derive(Resource, Default)]
pub struct AimSeen(pub Vec<bool>);

fn aim_inserted(mut world: DeferredWorld, ctx: HookContext) {
    let target = world.get::<Aim>(ctx.entity).map(|a| a.target);
    let named = target.is_some_and(|t| world.get::<Name>(t).is_some());
    if let Some(mut seen) = world.get_resource_mut::<AimSeen>() {
        seen.0.push(named);
    }
}
