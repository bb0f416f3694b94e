//! `forge-edit SCENE [--assets DIR] [--schema FILE]`: a window on one scene with edit mode on
//! and a free camera (`forge edit` in the main CLI runs this program). The game's code is not
//! needed: custom components are left out of what spawns (they stay in the file, untouched by
//! every keep), and `--schema` checks the scene against the game's exported schemas as it
//! opens.
//!
//! Exit status: 0 when the window closes, 2 for a usage error (no such file, a scene outside
//! its asset folder, a schema file that does not read).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bevy_forge_scene::prelude::*;
use bevy_forge_scene_editor::camera::{self, FreeCamera};
use bevy_forge_scene_editor::{EditorStatus, ForgeEditorPlugin, standalone};
use bevy_internal::DefaultPlugins;
use bevy_internal::app::{App, AppExit, PluginGroup, Startup, Update};
use bevy_internal::asset::{AssetMetaCheck, AssetPlugin, AssetServer};
use bevy_internal::camera::{Camera2d, Camera3d};
use bevy_internal::ecs::prelude::*;
use bevy_internal::light::{DirectionalLight, GlobalAmbientLight};
use bevy_internal::math::Vec3;
use bevy_internal::transform::components::Transform;
use bevy_internal::window::{Window, WindowPlugin};
use clap::Parser;

/// Open one scene in a window with edit mode on.
#[derive(Debug, Parser)]
#[command(name = "forge-edit", version)]
struct Args {
    /// The scene file (`.forge.ron`).
    scene: PathBuf,
    /// The asset folder its paths are relative to (default: its project's `assets/`, else
    /// the scene's folder).
    #[arg(long, value_name = "DIR")]
    assets: Option<PathBuf>,
    /// The game's exported schemas (`.forge-schema.ron`): the scene is checked against them
    /// as it opens.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
}

/// The scene to open.
#[derive(Resource)]
struct Opening {
    asset: String,
    root: Option<Entity>,
    framed: bool,
    note: Option<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if !args.scene.is_file() {
        eprintln!("error: `{}` is not a file", args.scene.display());
        return ExitCode::from(2);
    }
    let assets = bevy_forge_scene_render::asset_folder(&args.scene, args.assets.as_deref());
    let assets = assets.canonicalize().unwrap_or(assets);
    let Some(asset) = asset_path(&args.scene, &assets) else {
        eprintln!(
            "error: `{}` is not inside the asset folder `{}` (give --assets)",
            args.scene.display(),
            assets.display()
        );
        return ExitCode::from(2);
    };
    let note = match &args.schema {
        Some(schema) => match check_with_schema(&assets, &asset, schema) {
            Ok(note) => note,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let mut app = App::new();
    standalone::serve_without_custom(&mut app, &assets);
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: format!("forge edit — {asset}"),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .set(AssetPlugin {
                file_path: assets.to_string_lossy().into_owned(),
                meta_check: AssetMetaCheck::Never,
                ..Default::default()
            }),
    )
    .add_plugins(ForgeScenePlugin)
    .add_plugins(
        ForgeEditorPlugin::default()
            .starting_in_edit_mode()
            .pausing(false)
            .with_asset_root(&assets),
    )
    .insert_resource(Opening {
        asset,
        root: None,
        framed: false,
        note,
    })
    .insert_resource(GlobalAmbientLight {
        brightness: 300.0,
        ..Default::default()
    })
    .add_observer(camera::scene_cameras_off)
    .add_systems(Startup, open)
    .add_systems(Update, (frame_once, camera::drive, camera::switch));
    match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(_) => ExitCode::FAILURE,
    }
}

/// `file`'s asset path under `assets`, with `/` separators.
fn asset_path(file: &Path, assets: &Path) -> Option<String> {
    let file = file.canonicalize().ok()?;
    let rel = file.strip_prefix(assets).ok()?;
    Some(rel.to_string_lossy().replace('\\', "/"))
}

/// Checks scene `asset` against the schema file: `Some(first error)` to show.
fn check_with_schema(assets: &Path, asset: &str, schema: &Path) -> Result<Option<String>, String> {
    use bevy_forge_scene::pipeline::{PrefabFiles, Source, check};
    let schemas = bevy_forge_scene::schema::SchemaFile::read(schema)
        .map_err(|e| format!("{}: {e}", schema.display()))?;
    let bytes = std::fs::read(assets.join(asset)).map_err(|e| format!("{asset}: {e}"))?;
    let source = Source::read(asset, &bytes).map_err(|e| format!("{asset}: {e}"))?;
    let root = assets.to_owned();
    let mut files = PrefabFiles::new(move |path: &str| -> Result<Vec<u8>, String> {
        std::fs::read(root.join(path)).map_err(|e| format!("`{path}`: {e}"))
    })
    .with_schemas(schemas);
    let checked = check(source, &mut files);
    let errors: Vec<String> = checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == bevy_forge_scene::validate::Severity::Error)
        .map(ToString::to_string)
        .collect();
    for e in &errors {
        eprintln!("{asset}: {e}");
    }
    Ok(errors
        .first()
        .map(|e| format!("{asset} does not validate against the schemas: {e}")))
}

/// Opens the scene. The game's component types are not here: the schema table the scene
/// plugin made (empty) is taken away, so a keep is checked as `forge validate` checks a scene
/// without schemas (custom components' references only), not refused for naming types this
/// program does not know.
fn open(
    mut opening: ResMut<Opening>,
    server: Res<AssetServer>,
    mut commands: Commands,
    mut status: ResMut<EditorStatus>,
) {
    commands.remove_resource::<ForgeSchemas>();
    let handle: bevy_internal::asset::Handle<ForgeScene> = server.load(opening.asset.clone());
    opening.root = Some(commands.spawn(ForgeSceneRoot(handle)).id());
    if let Some(note) = &opening.note {
        status.text = note.clone();
        status.error = true;
    }
}

/// Once the scene has spawned and its bounds are known: the free camera, framing it, and a
/// light when the scene has none.
fn frame_once(world: &mut World) {
    let (root, framed) = {
        let o = world.resource::<Opening>();
        (o.root, o.framed)
    };
    let Some(root) = root else { return };
    if framed || world.get::<ForgeSceneInstance>(root).is_none() {
        return;
    }
    world.resource_mut::<Opening>().framed = true;
    let bounds = camera::world_bounds(world);
    if camera::looks_2d(world) {
        let centre = bounds.map_or(Vec3::ZERO, |(lo, hi)| (lo + hi) / 2.0);
        world.spawn((
            Camera2d,
            FreeCamera::default(),
            Transform::from_xyz(centre.x, centre.y, 100.0),
        ));
    } else {
        let free = bounds.map_or_else(FreeCamera::default, |(lo, hi)| FreeCamera::framing(lo, hi));
        world.spawn((Camera3d::default(), free, free.transform()));
        let lit = world
            .query::<&DirectionalLight>()
            .iter(world)
            .next()
            .is_some();
        if !lit {
            world.spawn((
                DirectionalLight::default(),
                Transform::from_xyz(3.0, 8.0, 5.0).looking_at(Vec3::ZERO, Vec3::Y),
            ));
        }
    }
}
