//! A game's custom components with every kind of field, shared by the loader tests and the
//! offline (`forge validate --schema`) tests.

use bevy_ecs::component::Component;
use bevy_ecs::reflect::ReflectComponent;
use bevy_forge_scene::{ForgeComponent, ForgeSchemas};
use bevy_math::Vec3;
use bevy_reflect::Reflect;
use bevy_reflect::std_traits::ReflectDefault;

#[derive(Reflect, Default, Clone, Debug, PartialEq)]
#[reflect(Default)]
pub enum Mode {
    #[default]
    Idle,
    Patrol {
        speed: f32,
    },
    Chase(u32),
}

/// An enemy's behaviour.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Brain")]
pub struct Brain {
    pub mode: Mode,
    pub target: Option<Vec3>,
    #[forge(range = 0..=100)]
    pub hp: u32,
    pub label: String,
    #[forge(skip)]
    pub ticks: u64,
}

/// A point on a route.
#[derive(Reflect, Default, Clone, Debug, PartialEq)]
#[reflect(Default)]
pub struct Stop {
    pub at: Vec3,
    pub wait: f32,
}

/// A patrol route: nested structs, a list of them, an optional enum, a tuple and an array.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Route")]
pub struct Route {
    #[forge(required)]
    pub name: String,
    pub home: Stop,
    pub stops: Vec<Stop>,
    pub on_arrival: Option<Mode>,
    pub window: (f32, f32),
    pub tint: [u8; 3],
}

/// Hit points: a tuple struct, whose field is named `0`.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Health")]
pub struct Health(#[forge(range = 0..=1000)] pub u32);

/// The schemas of `forge_demo::Orbit` and of this module's types, as the game would export them.
pub fn schemas() -> ForgeSchemas {
    let schemas = ForgeSchemas::default();
    schemas.insert::<super::Orbit>();
    schemas.insert::<Brain>();
    schemas.insert::<Route>();
    schemas.insert::<Health>();
    schemas
}
