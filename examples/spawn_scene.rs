//! The README's main job: load a scene through Bevy's real `AssetServer`, spawn it headless (no
//! window, no GPU), and print the live hierarchy.
//!
//! ```sh
//! cargo run --example spawn_scene                       # assets/scenes/garden.forge.ron
//! cargo run --example spawn_scene -- path/to/level.forge.ron
//! ```
//!
//! For each entity it prints the `Entity`, the file id, the name, the world translation and the
//! components it has (short type names). A file with errors prints its diagnostics once,
//! rustc-style with the offending line, and exits with status 1.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetLoadError, AssetPlugin, AssetServer, LoadState};
use bevy_ecs::hierarchy::Children;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeSceneLoadError;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::validate::report::{Source, human};
use bevy_reflect::Reflect;
use bevy_transform::TransformPlugin;
use bevy_transform::components::GlobalTransform;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::prelude::*;

/// The custom component of the Platformer seed scene (`assets/scenes/platformer.forge.ron`).
/// Deriving `ForgeComponent` is all it takes: the plugin registers it.
#[derive(Component, Reflect, Default, ForgeComponent)]
#[forge(type_path = "forge_demo::Orbit")]
struct Orbit {
    /// Metres.
    radius: f32,
    /// Radians per second.
    speed: f32,
    /// Axis of rotation.
    axis: bevy_math::Vec3,
}

/// Splits the scene path into an asset root and a path inside it.
fn asset_root_and_path(arg: Option<String>) -> (PathBuf, String) {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let Some(arg) = arg else {
        return (assets, "scenes/garden.forge.ron".to_owned());
    };
    let path = std::fs::canonicalize(&arg).unwrap_or_else(|_| PathBuf::from(&arg));
    if let Ok(rel) = path.strip_prefix(assets.canonicalize().unwrap_or(assets.clone())) {
        return (assets, rel.to_string_lossy().replace('\\', "/"));
    }
    let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    (parent, file)
}

fn print_entity(world: &World, entity: Entity, depth: usize) {
    let name = world.get::<Name>(entity).map_or("", |n| n.as_str());
    let id = world.get::<ForgeEntityId>(entity).map(|i| i.0);
    let translation = world
        .get::<GlobalTransform>(entity)
        .map(|g| g.translation())
        .unwrap_or_default();
    let mut components: Vec<String> = world
        .inspect_entity(entity)
        .map(|infos| {
            infos
                .map(|(_, info)| info.name().shortname().to_string())
                .collect()
        })
        .unwrap_or_default();
    components.sort();
    println!(
        "{:indent$}{entity} id={} {name:?} world=({:.2}, {:.2}, {:.2})\n{:indent$}    [{}]",
        "",
        id.map_or("-".to_owned(), |i| i.to_string()),
        translation.x,
        translation.y,
        translation.z,
        "",
        components.join(", "),
        indent = depth * 2
    );
    if let Some(children) = world.get::<Children>(entity) {
        for child in children.iter() {
            print_entity(world, child, depth + 1);
        }
    }
}

/// Prints why `scene_path` (under `root_dir`) failed to load: each diagnostic rustc-style, with
/// the line it points at.
fn report_failure(root_dir: &Path, scene_path: &str, error: &AssetLoadError) {
    let Some(scene_error) = ForgeSceneLoadError::from_asset_error(error) else {
        eprintln!("error: {scene_path}: {error}");
        return;
    };
    let bytes = std::fs::read(root_dir.join(scene_path)).unwrap_or_default();
    let source = Source::new(scene_path.to_owned(), &bytes);
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let diagnostics = scene_error.diagnostics();
    eprint!("{}", human(&source, &diagnostics, colour));
    eprintln!(
        "error: `{scene_path}` did not load: {} error(s)",
        diagnostics.len()
    );
}

fn main() -> ExitCode {
    // The asset server logs every failed load (with a backtrace when `RUST_BACKTRACE` is set);
    // this example reports a failed scene itself, once, with its source lines.
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_target(false)
                .without_time()
                .with_writer(std::io::stderr),
        )
        .with(
            Targets::new()
                .with_default(LevelFilter::INFO)
                .with_target("bevy_asset::server", LevelFilter::OFF),
        )
        .init();
    let (root_dir, scene_path) = asset_root_and_path(std::env::args().nth(1));
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: root_dir.to_string_lossy().into_owned(),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        TransformPlugin,
        ForgeScenePlugin,
    ));
    app.finish();
    app.cleanup();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<ForgeScene>(scene_path.clone());
    let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
    for _ in 0..2_000 {
        app.update();
        if let LoadState::Failed(error) = app.world().resource::<AssetServer>().load_state(&handle)
        {
            report_failure(&root_dir, &scene_path, &error);
            return ExitCode::FAILURE;
        }
        if app.world().get::<ForgeSceneInstance>(root).is_some() {
            // One more frame so transforms propagate to GlobalTransform.
            app.update();
            let world = app.world();
            let instance = world.get::<ForgeSceneInstance>(root);
            let scene = world
                .resource::<bevy_asset::Assets<ForgeScene>>()
                .get(&handle);
            if let (Some(instance), Some(scene)) = (instance, scene) {
                println!(
                    "spawned {:?} from {scene_path}: {} entities",
                    scene.doc().name,
                    instance.len()
                );
            }
            print_entity(world, root, 0);
            return ExitCode::SUCCESS;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    eprintln!("error: {scene_path} did not load in time");
    ExitCode::FAILURE
}
