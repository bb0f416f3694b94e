use bevy_ecs::component::Component;
use bevy_forge_scene::ForgeComponent;
use bevy_reflect::Reflect;

#[derive(Component, Reflect, Default, ForgeComponent)]
struct Label {
    #[forge(range = 0..=10)]
    text: String,
}

fn main() {}
