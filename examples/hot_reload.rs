//! Hot reload without losing game state: spawns a scene, adds a runtime-only component to one
//! entity, then rewrites the scene file twice (a one-entity edit, then a broken edit) and shows
//! that only the edited entity changes, the runtime component survives, and the broken save
//! leaves the last good scene live.
//!
//! ```sh
//! cargo run --example hot_reload
//! ```
//!
//! With `--watch`, it instead spawns `assets/scenes/garden.forge.ron` and keeps running: edit and
//! save that file and each applied diff is printed (a bad save prints its diagnostics and the
//! scene keeps running). Watching needs this crate's `file_watcher` feature (Bevy's
//! `bevy_asset/file_watcher`):
//!
//! ```sh
//! cargo run --example hot_reload --features file_watcher -- --watch
//! ```

use std::process::ExitCode;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, AssetServer};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_transform::components::Transform;

#[derive(Component)]
struct Health(u32);

#[derive(Resource, Default)]
struct Seen(Vec<String>);

fn scene(lamp_x: f32, broken: bool) -> String {
    let field = if broken { "childen" } else { "children" };
    format!(
        r#"(
  format_version: 1,
  name: "Hot",
  entities: {{
    1: (id: 1, name: "Player", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []),
    2: (id: 2, name: "Lamp", parent: None, {field}: [], transform: (translation: (x: {lamp_x:?}, y: 3.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [(type: point_light, data: (color: (r: 1.0, g: 0.9, b: 0.7, a: 1.0), intensity: 800.0, range: 20.0, shadows: false))]),
  }},
  roots: [1, 2],
  next_id: 3,
)
"#
    )
}

fn step(app: &mut App, until: impl Fn(&World) -> bool) -> bool {
    for _ in 0..2_000 {
        app.update();
        if until(app.world()) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    false
}

/// Spawns the Garden scene and reloads it whenever the file changes, until interrupted.
fn watch() -> ExitCode {
    tracing_subscriber::fmt()
        .with_target(false)
        .without_time()
        .init();
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: assets.to_string_lossy().into_owned(),
            watch_for_changes_override: Some(true),
            ..Default::default()
        },
        ForgeScenePlugin,
    ))
    .add_observer(|e: On<ForgeSceneReloaded>| {
        println!(
            "applied: added {:?}, removed {:?}, changed {:?}",
            e.added, e.removed, e.changed
        );
    })
    .add_observer(|e: On<ForgeSceneReloadFailed>| {
        for d in &e.diagnostics {
            println!("bad save, the scene keeps running: {d}");
        }
    });
    app.finish();
    app.cleanup();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<ForgeScene>("scenes/garden.forge.ron");
    app.world_mut().spawn(ForgeSceneRoot(handle));
    println!(
        "watching {}; edit and save it (Ctrl-C to stop)",
        assets.join("scenes/garden.forge.ron").display()
    );
    loop {
        app.update();
        std::thread::sleep(std::time::Duration::from_millis(16));
    }
}

fn main() -> ExitCode {
    if std::env::args().any(|a| a == "--watch") {
        return watch();
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let path = dir.path().join("hot.forge.ron");
    let write = |text: String| std::fs::write(&path, text);
    if let Err(e) = write(scene(2.0, false)) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: dir.path().to_string_lossy().into_owned(),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ))
    .init_resource::<Seen>()
    .add_observer(|e: On<ForgeSceneReloaded>, mut seen: ResMut<Seen>| {
        seen.0.push(format!(
            "reloaded: added {:?}, removed {:?}, changed {:?}",
            e.added, e.removed, e.changed
        ));
    })
    .add_observer(|e: On<ForgeSceneReloadFailed>, mut seen: ResMut<Seen>| {
        for d in &e.diagnostics {
            seen.0
                .push(format!("reload failed, last good scene kept: {d}"));
        }
    });
    app.finish();
    app.cleanup();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<ForgeScene>("hot.forge.ron");
    let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    if !step(&mut app, |w| w.get::<ForgeSceneInstance>(root).is_some()) {
        eprintln!("error: the scene did not load");
        return ExitCode::FAILURE;
    }
    let Some(instance) = app.world().get::<ForgeSceneInstance>(root).cloned() else {
        return ExitCode::FAILURE;
    };
    let (Some(player), Some(lamp)) = (instance.entity(1), instance.entity(2)) else {
        return ExitCode::FAILURE;
    };
    app.world_mut().entity_mut(player).insert(Health(42));
    println!("spawned: Player = {player}, Lamp = {lamp}; the game gave the player Health(42)");

    for (x, broken) in [(5.0, false), (9.0, true)] {
        let before = app.world().resource::<Seen>().0.len();
        if let Err(e) = write(scene(x, broken)) {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
        app.world()
            .resource::<AssetServer>()
            .reload("hot.forge.ron");
        step(&mut app, |w| w.resource::<Seen>().0.len() > before);
        for line in &app.world().resource::<Seen>().0[before..] {
            println!("{line}");
        }
        let world = app.world();
        let lamp_x = world.get::<Transform>(lamp).map(|t| t.translation.x);
        let health = world.get::<Health>(player).map(|h| h.0);
        let name = world.get::<Name>(lamp).map(|n| n.as_str().to_owned());
        println!("  Lamp {lamp} {name:?} x = {lamp_x:?}; Player {player} Health = {health:?}");
    }
    ExitCode::SUCCESS
}
