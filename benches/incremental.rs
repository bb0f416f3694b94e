//! What a save costs, checked in part against checked whole, in the same run (issue 39).
//!
//! - `save_edit/{part,whole}/{1,10000,100000}`: one entity's `bench::Health` value changed in a
//!   generated scene (`support::generate`, canonical text: 10.6 MB at 10k entities, 106 MB at
//!   100k; one entity gives the app's reload round trip itself) on disk, from
//!   `AssetServer::reload` until `ForgeSceneReloaded`: the file read again, checked, prepared,
//!   diffed and patched into the live instance. `part` is the loader's
//!   default (the path's last version kept: the edited entry read again, checked and prepared
//!   again alone); `whole` is the same path's twin loaded with `incremental: false` (its
//!   `.meta` file), every version read and checked whole.
//! - `save_paint/{part,whole}/10000`: one cell of a 100 × 100 tile layer of a one-entity
//!   prefab (`support/tiles.rs`) painted or erased, the same way.
//! - `save_edit/bevy_read/{1,10000,100000}`: the saved file read through Bevy's asset reader
//!   alone (the default source, to the end): the floor of any save through the app.
//!
//! Before timing, each side is checked to write exactly what the edit changed: one `Health`
//! (or one cell's entity spawned or despawned), no other component, the same entities.
//! The app's frame loop yields between frames (no sleep): what is timed is the work.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/vs_bevy.rs"]
mod both;
mod support;
#[path = "support/tiles.rs"]
mod tiles;

use std::path::Path;
use std::time::{Duration, Instant};

use bevy_app::App;
use bevy_asset::AssetServer;
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use both::{Health, OursReloaded};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

/// The `.meta` file that loads a scene with `incremental: false`.
const WHOLE_META: &str = r#"(
    meta_format_version: "1.0",
    asset: Load(
        loader: "bevy_forge_scene::ForgeSceneLoader",
        settings: (incremental: false),
    ),
)"#;

/// Updates `app` until `done`, yielding between frames.
fn until(app: &mut App, mut done: impl FnMut(&mut World) -> bool) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(120) {
        app.update();
        if done(app.world_mut()) {
            return;
        }
        std::thread::yield_now();
    }
    panic!("not reached in two minutes");
}

/// One side of a comparison: a live scene at `path` in `dir` whose file toggles between two
/// texts.
struct Side {
    path: String,
    texts: [String; 2],
    at_second: bool,
}

impl Side {
    /// Writes the other text and reloads; the time from the reload to the patch.
    fn save(&mut self, app: &mut App, dir: &Path) -> Duration {
        // Frames between saves, as an editor's saves come apart.
        for _ in 0..4 {
            app.update();
        }
        self.at_second = !self.at_second;
        std::fs::write(
            dir.join(&self.path),
            &self.texts[usize::from(self.at_second)],
        )
        .unwrap();
        let server = app.world().resource::<AssetServer>().clone();
        let before = app.world().resource::<OursReloaded>().0;
        let start = Instant::now();
        server.reload(self.path.clone());
        until(app, |w| w.resource::<OursReloaded>().0 > before);
        start.elapsed()
    }
}

/// How many `T` changed after `since`.
fn changed<T: Component>(world: &mut World, since: bevy_ecs::change_detection::Tick) -> usize {
    let now = world.read_change_tick();
    let mut q = world.query::<bevy_ecs::change_detection::Ref<T>>();
    q.iter(world)
        .filter(|r| r.last_changed().is_newer_than(since, now))
        .count()
}

/// An app reading `dir`, with `texts[0]` spawned from `part.forge.ron` (incremental) and
/// `whole.forge.ron` (not); the two sides.
fn sides(dir: &Path, texts: [String; 2], extra: &[(&str, &str)]) -> (App, [Side; 2]) {
    for (path, text) in extra {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    std::fs::write(dir.join("whole.forge.ron.meta"), WHOLE_META).unwrap();
    let mut app = both::file_app(dir);
    let sides = ["part.forge.ron", "whole.forge.ron"].map(|path| {
        std::fs::write(dir.join(path), &texts[0]).unwrap();
        let handle: bevy_asset::Handle<ForgeScene> =
            app.world().resource::<AssetServer>().load(path);
        let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
        until(&mut app, |w| w.get::<ForgeSceneInstance>(root).is_some());
        std::mem::forget(handle);
        Side {
            path: path.to_owned(),
            texts: texts.clone(),
            at_second: false,
        }
    });
    (app, sides)
}

fn save_edit(c: &mut Criterion) {
    let mut group = c.benchmark_group("save_edit");
    group.sample_size(10);
    // One entity: the app's reload round trip itself, what no save through the app goes under.
    for n in [1usize, 10_000, 100_000] {
        let old = support::generate(n, 7);
        let mut new = old.clone();
        let id = old.entities.keys().copied().nth(n / 2).unwrap();
        for component in &mut new.entity_mut(id).unwrap().components {
            if let bevy_forge_scene::format::ComponentData::Custom(c) = component
                && c.type_path == "bench::Health"
            {
                c.fields[0].expr = "4242".into();
            }
        }
        let texts = [old.to_canonical_string(), new.to_canonical_string()];
        let dir = tempfile::tempdir().unwrap();
        let (mut app, mut sides) = sides(dir.path(), texts, &[]);
        for side in &mut sides {
            // Twice: the first reload of `part` reads whole (it remembers from there on).
            for _ in 0..2 {
                let since = app.world_mut().change_tick();
                side.save(&mut app, dir.path());
                let healths = changed::<Health>(app.world_mut(), since);
                let transforms =
                    changed::<bevy_transform::components::Transform>(app.world_mut(), since);
                let names = changed::<Name>(app.world_mut(), since);
                assert_eq!(
                    (healths, transforms, names),
                    (1, 0, 0),
                    "{}: one Health written",
                    side.path
                );
            }
        }
        let [part, whole] = &mut sides;
        for (name, side) in [("part", part), ("whole", whole)] {
            group.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter_custom(|iters| (0..iters).map(|_| side.save(&mut app, dir.path())).sum())
            });
        }
        // The floor under both: Bevy's asset reader reading the saved file, as the loader is
        // given it, and nothing else.
        let server = app.world().resource::<AssetServer>().clone();
        group.bench_function(BenchmarkId::new("bevy_read", n), |b| {
            b.iter(|| bevy_read(&server, "part.forge.ron"))
        });
    }
    group.finish();
}

/// The bytes of `path` read through the default asset source's reader to the end.
fn bevy_read(server: &AssetServer, path: &str) -> usize {
    use bevy_asset::AsyncReadExt;
    let source = server
        .get_source(bevy_asset::io::AssetSourceId::Default)
        .unwrap();
    bevy_tasks::block_on(async {
        let mut reader = source.reader().read(Path::new(path)).await.unwrap();
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await.unwrap();
        bytes.len()
    })
}

fn save_paint(c: &mut Criterion) {
    let mut group = c.benchmark_group("save_paint");
    group.sample_size(20);
    let painted = |on: bool| {
        let mut rows = tiles::full_rows();
        let side = tiles::SIDE;
        rows[side / 2].replace_range(side / 2..side / 2 + 1, if on { "t" } else { "." });
        tiles::level(&rows)
    };
    let texts = [painted(true), painted(false)];
    let dir = tempfile::tempdir().unwrap();
    let prefab = tiles::prefab(1);
    let (mut app, mut sides) = sides(
        dir.path(),
        texts,
        &[("prefabs/tile.forge.ron", prefab.as_str())],
    );
    let cells = tiles::SIDE * tiles::SIDE;
    for side in &mut sides {
        for _ in 0..2 {
            let since = app.world_mut().change_tick();
            side.save(&mut app, dir.path());
            let sprites = changed::<bevy_sprite::Sprite>(app.world_mut(), since);
            // An erase writes nothing; a paint spawns the one cell's sprite.
            assert!(sprites <= 1, "{}: {sprites} sprites written", side.path);
        }
    }
    let [part, whole] = &mut sides;
    for (name, side) in [("part", part), ("whole", whole)] {
        group.bench_function(BenchmarkId::new(name, cells), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| side.save(&mut app, dir.path())).sum())
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = save_paint, save_edit
}
criterion_main!(benches);
