use bevy_ecs::component::Component;
use bevy_forge_scene::ForgeComponent;
use bevy_reflect::Reflect;

#[derive(Component, Reflect, Default, ForgeComponent)]
struct Orbit {
    #[forge(required, skip)]
    speed: f32,
}

fn main() {}
