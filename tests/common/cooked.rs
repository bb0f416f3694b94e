//! Apps for cooked scenes: reading through the twin reader, processing in Bevy's processed
//! mode, and loading by path.

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::io::memory::{Dir, MemoryAssetReader};
use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy_asset::processor::{AssetProcessor, FileTransactionLogFactory};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer, Handle, LoadState};
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::runtime::twins::ForgeTwinReader;
use std::path::Path;

/// An app whose default source reads from `dir` through a [`ForgeTwinReader`].
pub fn twin_app(dir: &Dir) -> App {
    let reader_dir = dir.clone();
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || {
            Box::new(ForgeTwinReader::new(Box::new(MemoryAssetReader {
                root: reader_dir.clone(),
            })))
        }),
    )
    .add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            watch_for_changes_override: Some(false),
            use_asset_processor_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    app.finish();
    app.cleanup();
    app
}

/// Loads `path`; how it ended, and the handle (kept, so the asset stays).
pub fn load_state(app: &mut App, path: &str) -> (LoadState, Handle<ForgeScene>) {
    let handle: Handle<ForgeScene> = app.world().resource::<AssetServer>().load(path.to_owned());
    for _ in 0..2_000 {
        app.update();
        let state = app.world().resource::<AssetServer>().load_state(&handle);
        if matches!(state, LoadState::Loaded | LoadState::Failed(_)) {
            return (state, handle);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("`{path}` neither loaded nor failed");
}

/// A processed-mode app over `source`, writing to `processed`.
pub fn processed_app(source: &Path, processed: &Path) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: source.to_string_lossy().into_owned(),
            processed_file_path: processed.to_string_lossy().into_owned(),
            mode: bevy_asset::AssetMode::Processed,
            use_asset_processor_override: Some(true),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    // The processor's transaction log goes beside its output, not into the repository.
    if let Some(processor) = app.world().get_resource::<AssetProcessor>() {
        let log = FileTransactionLogFactory {
            file_path: processed.join("log"),
        };
        processor.data().set_log_factory(Box::new(log)).unwrap();
    }
    app.finish();
    app.cleanup();
    app
}
