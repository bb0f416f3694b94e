use bevy_ecs::component::Component;
use bevy_forge_scene::ForgeComponent;
use bevy_reflect::Reflect;

#[derive(Component, Reflect, Default, ForgeComponent)]
#[forge(type_path = "not a path", required)]
struct Orbit {
    #[forge(range = 10.0..1.0)]
    radius: f32,
    #[forge(type_path = "x")]
    speed: f32,
    #[forge(range = "big")]
    axis: f32,
}

fn main() {}
