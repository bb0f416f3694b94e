use bevy_ecs::component::Component;
use bevy_forge_scene::ForgeComponent;
use bevy_reflect::Reflect;

// An enum component needs a `Default` (its `#[default]` variant): what a scene that writes no
// `value` spawns.
#[derive(Component, Reflect, ForgeComponent)]
enum RigidBody {
    Dynamic,
    Static,
}

fn main() {}
