//! Prefabs: a level placing two prefabs, one inside the other, with overrides. Loads
//! `assets/scenes/goblin_camp.forge.ron` headless and prints the expanded tree: each entity's
//! id path (`[3, 3, 1]` is the hat of the goblin placed by entity 3), its name, and what the
//! overrides changed (`Health`, the torch's light, the hat's colour).
//!
//! ```sh
//! cargo run --example prefabs
//! ```
//!
//! The level (`assets/scenes/goblin_camp.forge.ron`) places `prefabs/goblin.forge.ron` twice;
//! the goblin places `prefabs/hat.forge.ron`. "Goblin B" overrides the goblin's name and health,
//! its torch's transform and light, the nested hat's colour (target `[3, 1]`), and places a
//! crown of its own under the goblin.

use std::process::ExitCode;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, AssetServer, LoadState};
use bevy_ecs::hierarchy::Children;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::{ForgeEntityPath, ForgeSceneLoadError};
use bevy_light::PointLight;
use bevy_reflect::Reflect;
use bevy_sprite::Sprite;
use bevy_transform::components::Transform;

/// The goblin prefab's health.
#[derive(Component, Reflect, Default, ForgeComponent)]
#[forge(type_path = "forge_demo::Health")]
struct Health {
    /// Hit points.
    hp: u32,
}

/// One line per entity, indented by depth: path, name, and the values the overrides touch.
fn print_tree(world: &World, entity: Entity, depth: usize, out: &mut String) {
    let path = match (
        world.get::<ForgeEntityPath>(entity),
        world.get::<ForgeEntityId>(entity),
    ) {
        (Some(path), _) => format!("{:?}", path.0),
        (None, Some(id)) => format!("[{}]", id.0),
        (None, None) => "root".to_owned(),
    };
    let name = world.get::<Name>(entity).map_or("", |n| n.as_str());
    let mut notes = Vec::new();
    if let Some(t) = world.get::<Transform>(entity) {
        notes.push(format!("at ({}, {})", t.translation.x, t.translation.y));
    }
    if let Some(health) = world.get::<Health>(entity) {
        notes.push(format!("Health {{ hp: {} }}", health.hp));
    }
    if let Some(light) = world.get::<PointLight>(entity) {
        notes.push(format!("PointLight {{ intensity: {} }}", light.intensity));
    }
    if let Some(sprite) = world.get::<Sprite>(entity) {
        let c = sprite.color.to_srgba();
        notes.push(format!(
            "Sprite {{ color: ({:.2}, {:.2}, {:.2}) }}",
            c.red, c.green, c.blue
        ));
    }
    out.push_str(&format!(
        "{:indent$}{path} {name:?} {}\n",
        "",
        notes.join(", "),
        indent = depth * 2
    ));
    if let Some(children) = world.get::<Children>(entity) {
        for child in children.iter() {
            print_tree(world, child, depth + 1, out);
        }
    }
}

fn main() -> ExitCode {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/assets").to_owned(),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    app.finish();
    app.cleanup();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<ForgeScene>("scenes/goblin_camp.forge.ron");
    let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
    for _ in 0..2_000 {
        app.update();
        if let LoadState::Failed(error) = app.world().resource::<AssetServer>().load_state(&handle)
        {
            match ForgeSceneLoadError::from_asset_error(&error) {
                Some(e) => eprintln!("{e}"),
                None => eprintln!("{error}"),
            }
            return ExitCode::FAILURE;
        }
        let Some(instance) = app.world().get::<ForgeSceneInstance>(root) else {
            std::thread::sleep(std::time::Duration::from_millis(1));
            continue;
        };
        let hat = instance.entity_path(&[3, 3, 1]);
        let mut out = format!("spawned {} entities\n", instance.len());
        print_tree(app.world(), root, 0, &mut out);
        if let Some(hat) = hat {
            out.push_str(&format!(
                "entity_path(&[3, 3, 1]) is {hat}, {:?}\n",
                app.world().get::<Name>(hat).map(Name::as_str)
            ));
        }
        // A reader that stops early (`| head`) ends the output quietly.
        let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes());
        return ExitCode::SUCCESS;
    }
    eprintln!("error: the level did not load in time");
    ExitCode::FAILURE
}
