//! The custom component types of the seed scenes (`assets/scenes/`), usable both by
//! `ForgeScenePlugin` (through reflection) and by the exported code (`Default + Clone` types
//! as they are; types with `Entity` fields derive `FromTemplate`, so `bsn!` can fill them with
//! `#Name` references).

use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_reflect::Reflect;
use bevy_reflect::std_traits::ReflectDefault;

/// Circles around its start (the Platformer's player).
#[derive(Component, Reflect, Default, Clone, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Orbit")]
pub struct Orbit {
    /// Metres.
    pub radius: f32,
    /// Radians per second.
    pub speed: f32,
    /// Axis of rotation.
    pub axis: bevy_math::Vec3,
}

/// Hit points (the goblin prefab's).
#[derive(Component, Reflect, Default, Clone, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Health")]
pub struct Health {
    /// Hit points.
    pub hp: u32,
}

/// A door and what opens it (the castle gate's).
#[derive(Component, Reflect, FromTemplate, Debug, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Door")]
pub struct Door {
    /// The switch that opens it.
    pub opened_by: Entity,
    /// Who raises the alarm when it opens, if anyone.
    #[template(built_in)]
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

/// Walks from waypoint to waypoint (the castle gate's guard).
#[derive(Component, Reflect, FromTemplate, Debug, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Patrol")]
pub struct Patrol {
    /// The waypoints, in order.
    #[template(built_in)]
    pub route: Vec<Entity>,
    /// Seconds at each waypoint.
    pub wait: f32,
}

impl Default for Patrol {
    fn default() -> Self {
        Self {
            route: Vec::new(),
            wait: 0.0,
        }
    }
}

/// Guards a post (the sentry prefab's).
#[derive(Component, Reflect, FromTemplate, Debug, ForgeComponent)]
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

/// How a body moves (the game types scene's): an enum component, written whole as `value`.
#[derive(Component, Reflect, Default, Clone, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::RigidBody")]
pub enum RigidBody {
    /// Moved by forces.
    #[default]
    Dynamic,
    /// Never moves.
    Static,
    /// Moved by the game.
    Kinematic,
    /// Pushed with a force along an axis.
    Pushed(f32, bevy_math::Vec3),
    /// Driven at a speed in a gear.
    Driven {
        /// Metres per second.
        speed: f32,
        /// The gear.
        gear: u8,
    },
}

/// Metres per second: a tuple struct (the game types scene's).
#[derive(Component, Reflect, Default, Clone, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Speed")]
pub struct Speed(pub f32);

/// A unit marker (the game types scene's).
#[derive(Component, Reflect, Default, Clone, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Marker")]
pub struct Marker;
