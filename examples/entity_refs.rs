//! Entity references: custom component fields that name other entities of the scene. Loads
//! `assets/scenes/castle_gate.forge.ron` headless and prints what each reference became: the
//! live entity and its name.
//!
//! ```sh
//! cargo run --example entity_refs
//! ```
//!
//! In the file, `#1` is the entity with id 1 of the same file and `#8/1` the entity with id 1
//! inside the prefab that entity 8 places (an id path). The gate's `Door` names its switch and
//! the sentry that raises the alarm, the guard's `Patrol` a route of three waypoints, and each
//! placed sentry its own post: the prefab writes `#2`, which is the post of the copy it is in.

use std::process::ExitCode;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, AssetServer, LoadState};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::{ForgeEntityPath, ForgeSceneLoadError};

#[path = "support/gate.rs"]
mod gate;
use gate::{Door, Patrol, Sentry};

/// `"Gate Switch" #1`, or `"Sentry" #8/1` for an entity a prefab instance placed.
fn describe(world: &World, entity: Entity) -> String {
    let name = world.get::<Name>(entity).map_or("?", |n| n.as_str());
    let path = match (
        world.get::<ForgeEntityPath>(entity),
        world.get::<ForgeEntityId>(entity),
    ) {
        (Some(path), _) => path
            .0
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join("/"),
        (None, Some(id)) => id.0.to_string(),
        (None, None) => "-".to_owned(),
    };
    format!("{name:?} #{path}")
}

fn report(world: &mut World) -> String {
    let mut out = String::new();
    let mut doors = world.query::<(Entity, &Door)>();
    for (entity, door) in doors.iter(world) {
        out.push_str(&format!(
            "{} Door {{ opened_by: {}, alarm: {} }}\n",
            describe(world, entity),
            describe(world, door.opened_by),
            door.alarm.map_or("None".to_owned(), |a| describe(world, a)),
        ));
    }
    let mut patrols = world.query::<(Entity, &Patrol)>();
    for (entity, patrol) in patrols.iter(world) {
        let route: Vec<String> = patrol.route.iter().map(|w| describe(world, *w)).collect();
        out.push_str(&format!(
            "{} Patrol {{ route: [{}], wait: {} }}\n",
            describe(world, entity),
            route.join(", "),
            patrol.wait
        ));
    }
    let mut sentries = world.query::<(Entity, &Sentry)>();
    let mut lines: Vec<String> = sentries
        .iter(world)
        .map(|(entity, sentry)| {
            format!(
                "{} Sentry {{ post: {} }}\n",
                describe(world, entity),
                describe(world, sentry.post)
            )
        })
        .collect();
    lines.sort();
    out.extend(lines);
    out
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
        .load::<ForgeScene>("scenes/castle_gate.forge.ron");
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
        let Some(count) = app.world().get::<ForgeSceneInstance>(root).map(|i| i.len()) else {
            std::thread::sleep(std::time::Duration::from_millis(1));
            continue;
        };
        let out = format!("spawned {count} entities\n{}", report(app.world_mut()));
        // A reader that stops early (`| head`) ends the output quietly.
        let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes());
        return ExitCode::SUCCESS;
    }
    eprintln!("the scene did not load");
    ExitCode::FAILURE
}
