//! A game's own component in a scene: `forge_demo::Orbit` from the Platformer scene moves the
//! player on a circle. Deriving `ForgeComponent` is the only registration the game does; the
//! scene sets `radius` and `speed` as field expressions, `axis` keeps its default.
//!
//! In debug builds the game also exports its schemas at startup, so scenes can be checked
//! without running it (in an editor, in CI):
//! `cargo run -p bevy_forge_scene_cli -- validate --schema <file> --no-assets assets/scenes/platformer.forge.ron`
//! (or `forge validate ..` once installed with `cargo install --path forge-cli`) checks the custom
//! components as the scene loader does. Only `Orbit` is registered here: the other scenes use
//! the types of other examples, which this schema file does not have.
//!
//! Headless (no window, no GPU): prints the player's position for a few frames.
//!
//! ```sh
//! cargo run --example custom_component
//! ```

use std::process::ExitCode;

use bevy_app::{App, Startup, TaskPoolPlugin, Update};
use bevy_asset::io::file::FileAssetReader;
use bevy_asset::{AssetPlugin, AssetServer, LoadState};
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_math::{Quat, Vec3};
use bevy_reflect::Reflect;
use bevy_transform::components::Transform;

/// Moves the entity on a circle around its starting point.
#[derive(Component, Reflect, Default, Debug, ForgeComponent)]
#[forge(type_path = "forge_demo::Orbit")]
struct Orbit {
    /// Radius of the circle, in metres.
    #[forge(range = 0.0..=100.0)]
    radius: f32,
    /// Angular speed, in radians per second (negative turns clockwise).
    #[forge(required)]
    speed: f32,
    /// Axis the circle turns around; `Vec3::ZERO` means the z axis (2D).
    axis: Vec3,
}

/// A fixed time step, so the printout is the same on every machine.
const DT: f32 = 0.25;

fn orbit(mut movers: Query<(&Orbit, &mut Transform)>, mut time: Local<f32>) {
    *time += DT;
    for (orbit, mut transform) in &mut movers {
        let axis = orbit.axis.try_normalize().unwrap_or(Vec3::Z);
        let start = axis.any_orthonormal_vector() * orbit.radius;
        transform.translation = Quat::from_axis_angle(axis, orbit.speed * *time) * start;
    }
}

/// Writes the schema of every `ForgeComponent` type for offline checks. A game would write it
/// next to its scenes (`assets/game.forge-schema.ron`) and commit it; this example writes to the
/// temporary directory to leave the repository alone.
#[cfg(debug_assertions)]
fn export_schemas(schemas: Res<ForgeSchemas>) {
    let path = std::env::temp_dir().join("forge_demo.forge-schema.ron");
    match schemas.export(&path) {
        // `--no-assets`: the Platformer scene names an image this repository does not ship.
        // `cargo run -p bevy_forge_scene_cli`: `cargo run --example` does not put `forge` on the PATH.
        Ok(()) => println!(
            "schemas written; check the scene offline with `cargo run -p bevy_forge_scene_cli -- validate --schema {} --no-assets assets/scenes/platformer.forge.ron`",
            path.display()
        ),
        Err(e) => eprintln!("cannot write the schemas: {e}"),
    }
}

fn main() -> ExitCode {
    let assets = FileAssetReader::get_base_path().join("assets");
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: assets.to_string_lossy().into_owned(),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ))
    .add_systems(Update, orbit);
    #[cfg(debug_assertions)]
    app.add_systems(Startup, export_schemas);
    app.finish();
    app.cleanup();
    println!(
        "registered: {:?}",
        app.world().resource::<ForgeSchemas>().type_paths()
    );
    // The Platformer scene names a sprite image this repository does not ship.
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(|s: &mut bevy_forge_scene::ForgeSceneLoaderSettings| {
            s.check_assets = false;
        })
        .load::<ForgeScene>("scenes/platformer.forge.ron");
    let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
    for _ in 0..500 {
        app.update();
        if let LoadState::Failed(e) = app.world().resource::<AssetServer>().load_state(&handle) {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
        if app.world().get::<ForgeSceneInstance>(root).is_some() {
            break;
        }
        std::thread::yield_now();
    }
    let Some(player) = app
        .world()
        .get::<ForgeSceneInstance>(root)
        .and_then(|i| i.entity(2))
    else {
        eprintln!("the scene did not spawn");
        return ExitCode::FAILURE;
    };
    println!("{:?}", app.world().get::<Orbit>(player));
    for frame in 1..=6 {
        app.update();
        let t = app.world().get::<Transform>(player).map(|t| t.translation);
        println!("frame {frame}: player at {t:?}");
    }
    ExitCode::SUCCESS
}
