use bevy_ecs::component::Component;
use bevy_forge_scene::ForgeComponent;

#[derive(Component, Default, ForgeComponent)]
struct Orbit {
    speed: f32,
}

fn main() {}
