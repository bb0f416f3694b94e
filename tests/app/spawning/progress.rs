//! The load's progress (`ForgeLoadProgress`): files and bytes of the scene and the prefab files
//! it places, on the root while the scene loads, read through a gated asset source that lets
//! the test hold each file back.

use std::path::Path;

use bevy_app::{App, TaskPoolPlugin};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bevy_asset::io::memory::{Dir, MemoryAssetReader};
use bevy_asset::io::{
    AssetReader, AssetReaderError, AssetSourceBuilder, AssetSourceId, PathStream, Reader,
};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer, Handle};
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;

use crate::common::scenes::{entity, placing, scene};

const LEVEL: &str = "levels/yard.forge.ron";
const CRATE: &str = "prefabs/crate.forge.ron";
const BARREL: &str = "prefabs/barrel.forge.ron";

type Channel = (async_channel::Sender<()>, async_channel::Receiver<()>);

/// Gates by path: a read of a file waits until its gate is opened, once per read.
#[derive(Clone, Default)]
struct Gates(Arc<Mutex<HashMap<PathBuf, Channel>>>);

impl Gates {
    fn channel(&self, path: &Path) -> Channel {
        self.0
            .lock()
            .unwrap()
            .entry(path.to_owned())
            .or_insert_with(async_channel::unbounded)
            .clone()
    }

    /// Lets one read of `path` through.
    fn open(&self, path: &str) {
        self.channel(Path::new(path)).0.send_blocking(()).unwrap();
    }
}

/// The in-memory source, each file read held at its gate (`.meta` reads are not).
struct GatedReader {
    inner: MemoryAssetReader,
    gates: Gates,
}

impl AssetReader for GatedReader {
    async fn read<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        let wait = self.gates.channel(path).1;
        wait.recv().await.unwrap();
        self.inner.read(path).await
    }

    async fn read_meta<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        self.inner.read_meta(path).await
    }

    async fn read_directory<'a>(
        &'a self,
        path: &'a Path,
    ) -> Result<Box<PathStream>, AssetReaderError> {
        self.inner.read_directory(path).await
    }

    async fn is_directory<'a>(&'a self, path: &'a Path) -> Result<bool, AssetReaderError> {
        self.inner.is_directory(path).await
    }
}

/// An app reading `files` through a gate per file, with a root of `LEVEL` spawned (nothing
/// read yet).
fn gated_app(files: &[(&str, &str)]) -> (App, Gates, Entity, Handle<ForgeScene>) {
    let dir = Dir::default();
    for (path, text) in files {
        dir.insert_asset_text(Path::new(path), text);
    }
    let gates = Gates::default();
    let (root, for_reader) = (dir.clone(), gates.clone());
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || {
            Box::new(GatedReader {
                inner: MemoryAssetReader { root: root.clone() },
                gates: for_reader.clone(),
            })
        }),
    )
    .add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            use_asset_processor_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    app.finish();
    app.cleanup();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<ForgeScene>(LEVEL);
    let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
    (app, gates, root, handle)
}

/// Updates until `done` holds on the root's progress (at most 30 seconds).
fn until(app: &mut App, root: Entity, done: impl Fn(&ForgeLoadProgress) -> bool) {
    let started = std::time::Instant::now();
    while started.elapsed().as_secs() < 30 {
        app.update();
        if app
            .world()
            .get::<ForgeLoadProgress>(root)
            .is_some_and(&done)
        {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!(
        "progress not reached; last {:?}",
        app.world().get::<ForgeLoadProgress>(root)
    );
}

fn prefab(name: &str) -> String {
    scene(&[entity(1, name, None, &[], "")], &[1])
}

#[test]
fn the_root_shows_files_and_bytes_as_the_scene_and_its_prefabs_are_read() {
    let level = scene(
        &[
            placing(1, "Crate", CRATE, ""),
            placing(2, "Barrel", BARREL, ""),
            placing(3, "Another crate", CRATE, ""),
        ],
        &[1, 2, 3],
    );
    let (lid, hoop) = (prefab("Lid"), prefab("Hoop"));
    let files = [(LEVEL, level.as_str()), (CRATE, &lid), (BARREL, &hoop)];
    let (mut app, gates, root, _) = gated_app(&files);
    for _ in 0..5 {
        app.update();
    }
    assert!(
        app.world().get::<ForgeLoadProgress>(root).is_none(),
        "nothing read, nothing shown"
    );

    // The scene file read: its prefab files are known, none of them read.
    gates.open(LEVEL);
    until(&mut app, root, |p| p.files_read == 1);
    let p = *app.world().get::<ForgeLoadProgress>(root).unwrap();
    let level_len = files[0].1.len() as u64;
    assert_eq!(
        p,
        ForgeLoadProgress {
            files_read: 1,
            files_total: 3,
            bytes_read: level_len,
            bytes_total: level_len,
            loaded: false,
        }
    );
    assert!((p.fraction() - 1.0 / 3.0).abs() < 1e-6, "{}", p.fraction());
    assert!(app.world().get::<ForgeSceneInstance>(root).is_none());

    // Each prefab file once, whatever the number of placements (read in path order).
    // The barrel's bytes count as they are read; the file itself counts once what it places
    // is known, with the crate read in the same round.
    gates.open(BARREL);
    let with_barrel = level_len + files[2].1.len() as u64;
    until(&mut app, root, |p| p.bytes_read == with_barrel);
    let p = *app.world().get::<ForgeLoadProgress>(root).unwrap();
    assert_eq!(
        (p.files_read, p.files_total, p.bytes_total, p.loaded),
        (1, 3, with_barrel, false)
    );
    gates.open(CRATE);
    // The prefabs load as assets of their own too (for their hot reloads).
    gates.open(BARREL);
    gates.open(CRATE);
    until(&mut app, root, |p| p.loaded);
    let all: u64 = files.iter().map(|(_, t)| t.len() as u64).sum();
    let p = *app.world().get::<ForgeLoadProgress>(root).unwrap();
    assert_eq!(
        p,
        ForgeLoadProgress {
            files_read: 3,
            files_total: 3,
            bytes_read: all,
            bytes_total: all,
            loaded: true,
        }
    );
    assert_eq!(p.fraction(), 1.0);
    let started = std::time::Instant::now();
    while app.world().get::<ForgeSceneInstance>(root).is_none() {
        assert!(started.elapsed().as_secs() < 30, "the scene never spawned");
        app.update();
    }
    // Loaded, the progress stays as it was.
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().get::<ForgeLoadProgress>(root), Some(&p));
}

#[test]
fn a_large_scene_file_counts_its_bytes_as_its_pieces_arrive() {
    // Over 1 MiB: read in pieces.
    let entities: Vec<String> = (1..=6000)
        .map(|id| {
            entity(
                id,
                &format!("Stone {id:05} of the long wall"),
                None,
                &[],
                "",
            )
        })
        .collect();
    let roots: Vec<u64> = (1..=6000).collect();
    let text = scene(&entities, &roots);
    assert!(text.len() > 1 << 20, "{} bytes", text.len());
    let (mut app, gates, root, _) = gated_app(&[(LEVEL, &text)]);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    app.add_systems(
        bevy_app::PreUpdate,
        (move |q: Query<&ForgeLoadProgress, Changed<ForgeLoadProgress>>| {
            record.lock().unwrap().extend(q.iter().copied());
        })
        .after(ForgeSceneSystems::Spawn),
    );
    gates.open(LEVEL);
    until(&mut app, root, |p| p.loaded);
    let len = text.len() as u64;
    let last = *app.world().get::<ForgeLoadProgress>(root).unwrap();
    assert_eq!(
        (
            last.files_read,
            last.files_total,
            last.bytes_read,
            last.bytes_total
        ),
        (1, 1, len, len)
    );
    let seen = seen.lock().unwrap();
    // Whatever frames saw, the counts only grew and never passed the file's length.
    for pair in seen.windows(2) {
        assert!(pair[0].bytes_read <= pair[1].bytes_read, "{seen:?}");
    }
    assert!(
        seen.iter()
            .all(|p| p.bytes_read <= len && p.bytes_total == len)
    );
    assert!(seen.iter().all(|p| p.fraction() <= 1.0));
}

#[test]
fn a_failed_load_keeps_its_last_counts_and_is_never_loaded() {
    let level = scene(
        &[placing(1, "Crate", "prefabs/missing.forge.ron", "")],
        &[1],
    );
    let (mut app, gates, root, handle) = gated_app(&[(LEVEL, &level)]);
    gates.open(LEVEL);
    gates.open("prefabs/missing.forge.ron");
    let started = std::time::Instant::now();
    while !app
        .world()
        .resource::<AssetServer>()
        .load_state(&handle)
        .is_failed()
    {
        assert!(started.elapsed().as_secs() < 30, "the load never failed");
        app.update();
    }
    for _ in 0..3 {
        app.update();
    }
    let p = *app.world().get::<ForgeLoadProgress>(root).unwrap();
    assert_eq!((p.files_read, p.files_total, p.loaded), (2, 2, false));
    assert_eq!(p.bytes_read, level.len() as u64);
}
