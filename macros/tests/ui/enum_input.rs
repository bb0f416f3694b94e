use bevy_ecs::component::Component;
use bevy_forge_scene::ForgeComponent;
use bevy_reflect::Reflect;

// Every misuse of the attributes of an enum component, each reported at its attribute.
#[derive(Component, Reflect, Default, ForgeComponent)]
enum Mode {
    #[default]
    Idle,
    #[forge(renamed_from = "Idle")]
    Walk,
    #[forge(renamed_from = "Jog", renamed_from = "Jog")]
    Run,
    #[forge(required)]
    Fly {
        #[forge(range = 0.0..=10.0)]
        height: f32,
    },
    #[forge(renamed_from = "not a name")]
    Swim,
}

fn main() {}
