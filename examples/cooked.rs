//! Cooking scenes at build time with Bevy's asset processor, then loading the cooked twins.
//!
//! ```sh
//! cargo run --example cooked
//! ```
//!
//! A headless app in processed mode (`AssetMode::Processed`) reads a copy of the castle gate
//! scene and its sentry prefab from a temporary source folder. `ForgeScenePlugin` registers
//! `ForgeSceneProcess` as the default processor of `.forge.ron` files, so the processor loads
//! each scene from its text, validates it and writes its cooked twin, prefabs bundled, to the
//! processed folder under the same path. The app then loads `scenes/castle_gate.forge.ron`,
//! which in processed mode reads the processed file: cooked bytes, which the loader recognizes
//! by their first byte. The example prints both sizes and what spawned.
//!
//! A game does the same with its real `assets` folder: `AssetPlugin { mode:
//! AssetMode::Processed, .. }` and this crate's `processor` feature (which turns on
//! `bevy_asset`'s `asset_processor`, so the processor runs without
//! `use_asset_processor_override`).

use std::path::Path;
use std::process::ExitCode;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::processor::{AssetProcessor, FileTransactionLogFactory};
use bevy_asset::{AssetMode, AssetPlugin, AssetServer, LoadState};
use bevy_forge_scene::ForgeSceneLoadError;
use bevy_forge_scene::prelude::*;

#[path = "support/gate.rs"]
mod gate;

const SCENE: &str = "scenes/castle_gate.forge.ron";
const PREFAB: &str = "prefabs/sentry.forge.ron";

fn main() -> ExitCode {
    let (Ok(source), Ok(processed)) = (tempfile::tempdir(), tempfile::tempdir()) else {
        eprintln!("cannot create temporary folders");
        return ExitCode::FAILURE;
    };
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    for file in [SCENE, PREFAB] {
        let to = source.path().join(file);
        let copied = to
            .parent()
            .map(std::fs::create_dir_all)
            .transpose()
            .and_then(|_| std::fs::copy(assets.join(file), &to));
        if let Err(e) = copied {
            eprintln!("cannot copy `{file}`: {e}");
            return ExitCode::FAILURE;
        }
    }
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: source.path().to_string_lossy().into_owned(),
            processed_file_path: processed.path().to_string_lossy().into_owned(),
            mode: AssetMode::Processed,
            // On by default with the `processor` feature.
            use_asset_processor_override: Some(true),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    // Bevy keeps the processor's transaction log in `imported_assets/log` under the crate by
    // default; this run's goes beside its output.
    if let Some(processor) = app.world().get_resource::<AssetProcessor>() {
        let log = FileTransactionLogFactory {
            file_path: processed.path().join("log"),
        };
        let _ = processor.data().set_log_factory(Box::new(log));
    }
    app.finish();
    app.cleanup();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<ForgeScene>(SCENE);
    let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
    for _ in 0..20_000 {
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
        let text = std::fs::metadata(source.path().join(SCENE)).map_or(0, |m| m.len());
        let cooked = std::fs::read(processed.path().join(SCENE)).unwrap_or_default();
        let world = app.world_mut();
        let mut doors = world.query::<&gate::Door>();
        let door = doors.iter(world).next().map(|d| d.opened_by);
        let opener = door
            .and_then(|e| world.get::<bevy_ecs::name::Name>(e))
            .map_or("?", |n| n.as_str());
        let out = format!(
            "processed `{SCENE}`: {text} bytes of text became {} cooked bytes (cooked: {})\n\
             loaded the cooked scene: {count} entities spawned; the gate opens with {opener:?}\n",
            cooked.len(),
            bevy_forge_scene::cook::is_cooked(&cooked),
        );
        // A reader that stops early (`| head`) ends the output quietly.
        let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes());
        return ExitCode::SUCCESS;
    }
    eprintln!("the scene was not processed and loaded");
    ExitCode::FAILURE
}
