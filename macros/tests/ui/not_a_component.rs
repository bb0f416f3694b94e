use bevy_forge_scene::ForgeComponent;
use bevy_reflect::Reflect;

#[derive(Reflect, Default, ForgeComponent)]
struct Orbit {
    speed: f32,
}

fn main() {}
