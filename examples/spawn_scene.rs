//! Loading a scene: read it through Bevy's real `AssetServer`, spawn it headless (no window, no
//! GPU), and print the live hierarchy. CI runs it as the README's "Development" section shows.
//!
//! ```sh
//! cargo run --example spawn_scene                       # assets/scenes/garden.forge.ron
//! cargo run --example spawn_scene -- path/to/level.forge.ron
//! ```
//!
//! It says in one line what it spawned, then prints for each entity the `Entity`, the file id,
//! the name, the world translation and the components it has (short type names). Nothing is
//! drawn (no renderer, no `bevy_pbr`), so a mesh spawns without a material, quietly. A file with errors prints its diagnostics once,
//! rustc-style with the offending line, and exits with status 1.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetLoadError, AssetPlugin, AssetServer, LoadState};
use bevy_ecs::hierarchy::Children;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::validate::report::{FileText, human_with};
use bevy_forge_scene::{ForgeEntityPath, ForgeSceneLoadError};
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

/// Splits the scene path into an asset root and a path inside it: the nearest enclosing folder
/// named `assets` (a game's assets directory, where prefab paths start), else the scene's own
/// folder.
fn asset_root_and_path(arg: Option<String>) -> (PathBuf, String) {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let Some(arg) = arg else {
        return (assets, "scenes/garden.forge.ron".to_owned());
    };
    let path = std::fs::canonicalize(&arg).unwrap_or_else(|_| PathBuf::from(&arg));
    if let Ok(rel) = path.strip_prefix(assets.canonicalize().unwrap_or(assets.clone())) {
        return (assets, rel.to_string_lossy().replace('\\', "/"));
    }
    let enclosing = path
        .ancestors()
        .skip(1)
        .find(|dir| dir.file_name().is_some_and(|n| n == "assets"));
    if let Some(root) = enclosing
        && let Ok(rel) = path.strip_prefix(root)
    {
        return (root.to_owned(), rel.to_string_lossy().replace('\\', "/"));
    }
    let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    (parent, file)
}

fn print_entity(
    out: &mut impl Write,
    world: &World,
    entity: Entity,
    depth: usize,
) -> io::Result<()> {
    let name = world.get::<Name>(entity).map_or("", |n| n.as_str());
    // An entity a prefab instance placed is known by its id path.
    let id = match world.get::<ForgeEntityPath>(entity) {
        Some(path) => Some(format!("{:?}", path.0)),
        None => world.get::<ForgeEntityId>(entity).map(|i| i.0.to_string()),
    };
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
    writeln!(
        out,
        "{:indent$}{entity} id={} {name:?} world=({:.2}, {:.2}, {:.2})\n{:indent$}    [{}]",
        "",
        id.unwrap_or_else(|| "-".to_owned()),
        translation.x,
        translation.y,
        translation.z,
        "",
        components.join(", "),
        indent = depth * 2
    )?;
    if let Some(children) = world.get::<Children>(entity) {
        for child in children.iter() {
            print_entity(out, world, child, depth + 1)?;
        }
    }
    Ok(())
}

/// Prints the spawned scene to stdout. A reader that stops early (`| head`) ends the output
/// quietly; another write error is reported.
fn print_scene(world: &World, root: Entity, title: &str) -> ExitCode {
    let mut out = io::stdout().lock();
    let written = writeln!(out, "{title}").and_then(|()| print_entity(&mut out, world, root, 0));
    match written.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the hierarchy: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The scene file named on the command line, checked before Bevy starts: `Err` with the exit
/// status when there is nothing to load (usage printed for `-h`).
fn scene_argument() -> Result<Option<String>, ExitCode> {
    let Some(arg) = std::env::args().nth(1) else {
        return Ok(None);
    };
    if arg == "-h" || arg == "--help" {
        println!(
            "usage: spawn_scene [SCENE.forge.ron]   (default: assets/scenes/garden.forge.ron)"
        );
        return Err(ExitCode::SUCCESS);
    }
    let path = Path::new(&arg);
    if arg.is_empty() || !path.is_file() {
        let why = if path.is_dir() {
            "is a directory"
        } else {
            "is not a file"
        };
        eprintln!("error: `{arg}` {why}; give the path of a `.forge.ron` scene");
        return Err(ExitCode::from(2));
    }
    if path
        .file_name()
        .is_some_and(|f| f.to_string_lossy().contains('#'))
    {
        eprintln!(
            "error: `{arg}`: Bevy reads what follows `#` in an asset path as a label; rename the file"
        );
        return Err(ExitCode::from(2));
    }
    Ok(Some(arg))
}

/// Files up to this size are read again to show the lines diagnostics point at.
const SHOWN_FILE_LIMIT: u64 = 256 << 20;

/// Prints why `scene_path` (under `root_dir`) failed to load: each diagnostic rustc-style, with
/// the line it points at, the file named as the user wrote it (`shown`).
fn report_failure(root_dir: &Path, scene_path: &str, shown: &str, error: &AssetLoadError) {
    let Some(scene_error) = ForgeSceneLoadError::from_asset_error(error) else {
        eprintln!("error: {shown}: {error}");
        return;
    };
    // The lines to show under each diagnostic; a file too large to be a scene is not read again.
    let file = root_dir.join(scene_path);
    let readable = std::fs::metadata(&file).is_ok_and(|m| m.len() <= SHOWN_FILE_LIMIT);
    let bytes = if readable {
        std::fs::read(&file).unwrap_or_default()
    } else {
        Vec::new()
    };
    let source = FileText::new(shown.to_owned(), &bytes);
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let diagnostics = scene_error.diagnostics();
    // A prefab's problems point into the prefab file (an asset path under the same root), named
    // the way the scene was: `assets/prefabs/goblin.forge.ron` beside `assets/scenes/..`. A
    // cooked scene carries its prefabs: the text files beside it may not be what was cooked.
    let shown_root = shown
        .strip_suffix(scene_path)
        .map_or_else(|| format!("{}/", root_dir.display()), str::to_owned);
    let cooked = scene_path.ends_with(".forge.bin");
    let other = |asset: &str| {
        if cooked {
            return Some(FileText::new(
                format!("{asset} (bundled in `{shown}`)"),
                b"",
            ));
        }
        let file = root_dir.join(asset);
        let small = std::fs::metadata(&file).is_ok_and(|m| m.len() <= SHOWN_FILE_LIMIT);
        let bytes = std::fs::read(&file).ok().filter(|_| small)?;
        Some(FileText::new(format!("{shown_root}{asset}"), &bytes))
    };
    eprint!("{}", human_with(&source, &diagnostics, colour, &other));
    let n = diagnostics.len();
    let errors = if n == 1 { "error" } else { "errors" };
    eprintln!("error: `{shown}` did not load: {n} {errors}");
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
    let arg = match scene_argument() {
        Ok(arg) => arg,
        Err(status) => return status,
    };
    let (root_dir, scene_path) = asset_root_and_path(arg.clone());
    let shown = arg.unwrap_or_else(|| format!("assets/{scene_path}"));
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
            report_failure(&root_dir, &scene_path, &shown, &error);
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
            let title = match (instance, scene) {
                (Some(instance), Some(scene)) => format!(
                    "spawned {:?} from {scene_path}: {} entities under one root, headless (nothing is drawn, so meshes get no material); the live hierarchy:",
                    scene.doc().name,
                    instance.len()
                ),
                _ => format!("spawned {scene_path}"),
            };
            return print_scene(world, root, &title);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    eprintln!("error: `{shown}` did not load in time");
    ExitCode::FAILURE
}
