//! A headless Bevy app with an in-memory asset source, as bevy_asset's own tests use.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::io::memory::{Dir, MemoryAssetReader};
use bevy_asset::io::{AssetSourceBuilder, AssetSourceEvent, AssetSourceId, AssetWatcher};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer, Handle};
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;

/// An app with `ForgeScenePlugin` reading assets from memory, watched by a fake watcher whose
/// change events the test sends itself (as bevy_asset's own tests do).
pub struct Harness {
    pub app: App,
    pub dir: Dir,
    events: Arc<Mutex<Option<async_channel::Sender<AssetSourceEvent>>>>,
}

struct FakeWatcher;

impl AssetWatcher for FakeWatcher {}

impl Harness {
    pub fn new() -> Self {
        Self::with_setup(|_| {})
    }

    /// Like [`Harness::new`], running `setup` on the app before its plugins finish.
    pub fn with_setup(setup: impl FnOnce(&mut App)) -> Self {
        let dir = Dir::default();
        let reader_dir = dir.clone();
        let events = Arc::new(Mutex::new(None));
        let events_for_watcher = events.clone();
        let mut app = App::new();
        app.register_asset_source(
            AssetSourceId::Default,
            AssetSourceBuilder::new(move || {
                Box::new(MemoryAssetReader {
                    root: reader_dir.clone(),
                })
            })
            .with_watcher(move |sender| {
                *events_for_watcher.lock().unwrap() = Some(sender);
                Some(Box::new(FakeWatcher))
            }),
        )
        .add_plugins((
            TaskPoolPlugin::default(),
            AssetPlugin {
                watch_for_changes_override: Some(true),
                use_asset_processor_override: Some(false),
                ..Default::default()
            },
            ForgeScenePlugin,
        ));
        setup(&mut app);
        app.finish();
        app.cleanup();
        Self { app, dir, events }
    }

    /// A harness around `app`, an app of the test's own reading assets from `dir` (its
    /// [`modify`](Self::modify) needs the harness's watcher: without it, rewrite files with
    /// [`add`](Self::add)).
    pub fn from_app(app: App, dir: Dir) -> Self {
        Self {
            app,
            dir,
            events: Arc::new(Mutex::new(None)),
        }
    }

    /// Rewrites a file and tells the asset server it changed, as a file watcher would.
    pub fn modify(&self, path: &str, text: &str) {
        self.modify_bytes(path, text.as_bytes());
    }

    /// [`Harness::modify`] with bytes (a cooked scene).
    pub fn modify_bytes(&self, path: &str, bytes: &[u8]) {
        self.add_bytes(path, bytes);
        let sender = self
            .events
            .lock()
            .unwrap()
            .clone()
            .expect("the watcher is set up");
        sender
            .send_blocking(AssetSourceEvent::ModifiedAsset(PathBuf::from(path)))
            .unwrap();
    }

    /// Writes (or overwrites) a file of the in-memory asset source.
    pub fn add(&self, path: &str, text: &str) {
        self.dir.insert_asset_text(Path::new(path), text);
    }

    /// [`Harness::add`] with bytes (a cooked scene).
    pub fn add_bytes(&self, path: &str, bytes: &[u8]) {
        self.dir.insert_asset(Path::new(path), bytes.to_vec());
    }

    pub fn load(&mut self, path: &str) -> Handle<ForgeScene> {
        self.app
            .world()
            .resource::<AssetServer>()
            .load(path.to_owned())
    }

    pub fn spawn_root(&mut self, handle: &Handle<ForgeScene>) -> Entity {
        self.app
            .world_mut()
            .spawn(ForgeSceneRoot(handle.clone()))
            .id()
    }

    /// Updates until `done` holds: at least 500 frames, and for at least 30 seconds (loads run
    /// on other threads, which a busy machine may not schedule within 500 quick frames).
    pub fn run_until(&mut self, mut done: impl FnMut(&mut World) -> bool) {
        let started = std::time::Instant::now();
        for frame in 0.. {
            self.app.update();
            if done(self.app.world_mut()) {
                return;
            }
            if frame >= 500 && started.elapsed().as_secs() >= 30 {
                break;
            }
            if frame < 500 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        panic!("condition not reached in {:?}", started.elapsed());
    }

    pub fn spawn_scene(&mut self, path: &str) -> (Entity, ForgeSceneInstance) {
        let handle = self.load(path);
        let root = self.spawn_root(&handle);
        self.run_until(|w| w.get::<ForgeSceneInstance>(root).is_some());
        let instance = self
            .app
            .world()
            .get::<ForgeSceneInstance>(root)
            .unwrap()
            .clone();
        (root, instance)
    }

    pub fn world(&self) -> &World {
        self.app.world()
    }
}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}
