use bevy_ecs::component::Component;
use bevy_forge_scene::ForgeComponent;
use bevy_reflect::Reflect;

#[derive(Component, Reflect, ForgeComponent)]
struct Orbit {
    speed: f32,
}

fn main() {}
