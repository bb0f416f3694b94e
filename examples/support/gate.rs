//! The castle gate's component types (`assets/scenes/castle_gate.forge.ron`), shared by the
//! examples that load it.

use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_reflect::Reflect;
use bevy_reflect::std_traits::ReflectDefault;

/// A door and what opens it. `Entity` has no `Default`, so the type writes its own.
#[derive(Component, Reflect, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Door")]
pub struct Door {
    /// The switch that opens it.
    pub opened_by: Entity,
    /// Who raises the alarm when it opens, if anyone.
    pub alarm: Option<Entity>,
}

impl Default for Door {
    fn default() -> Self {
        Self {
            opened_by: Entity::PLACEHOLDER,
            alarm: None,
        }
    }
}

/// Walks from waypoint to waypoint.
#[derive(Component, Reflect, Default, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Patrol")]
pub struct Patrol {
    /// The waypoints, in order.
    pub route: Vec<Entity>,
    /// Seconds at each waypoint.
    pub wait: f32,
}

/// Guards a post (the sentry prefab's).
#[derive(Component, Reflect, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Sentry")]
pub struct Sentry {
    /// The entity it stands at.
    pub post: Entity,
}

impl Default for Sentry {
    fn default() -> Self {
        Self {
            post: Entity::PLACEHOLDER,
        }
    }
}
