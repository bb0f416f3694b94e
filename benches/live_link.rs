//! The live link: `cargo bench --bench live_link`.
//!
//! - `live_link/locate/100000`: `live_link::locate` of one live entity of a 100,000-entity
//!   scene, each call another entity (the file read and mapped once; the target is under 1 ms
//!   per call).
//! - `live_link/keep_reload/10000`: one custom field changed in play at 10,000 entities, then
//!   `live_link::keep` (difference found, spliced through the edit layer, the new text checked in
//!   part with the game's schemas, committed) and frames until the file is written atomically on
//!   the IO task pool and the hot reload is applied (`ForgeSceneReloaded`): the target is 8 ms,
//!   no more than `full_reload`.
//! - `live_link/keep_frame/10000`: the same keep's own call, the part of it a frame pays (the
//!   file is written off the frame): the target is under 4 ms.
//! - `live_link/full_reload/10000`: beside it, in the same run, the same one-field edit written
//!   to the file by hand and reloaded through the app (`AssetServer::reload` until
//!   `ForgeSceneReloaded`): what the keep's own reload costs.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/vs_bevy.rs"]
mod both;
mod support;

use std::time::{Duration, Instant};

use bevy_app::App;
use bevy_asset::AssetServer;
use bevy_ecs::prelude::*;
use bevy_forge_scene::live_link::{self, FieldRef, KeepInto, LiveLink};
use bevy_forge_scene::prelude::*;
use both::{Health, OursReloaded};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const PATH: &str = "level.forge.ron";

/// An app reading `dir`, with a scene of `n` entities spawned; its root.
fn spawned(dir: &std::path::Path, n: usize) -> (App, Entity) {
    std::fs::write(
        dir.join(PATH),
        support::generate(n, 7).to_canonical_string(),
    )
    .unwrap();
    let mut app = both::file_app(dir);
    app.insert_resource(LiveLink::new(dir));
    let (root, _) = both::ours_load_spawn(&mut app, PATH);
    (app, root)
}

fn reloads(app: &App) -> usize {
    app.world().resource::<OursReloaded>().0
}

fn locate(c: &mut Criterion) {
    let mut group = c.benchmark_group("live_link");
    let n = 100_000;
    let dir = tempfile::tempdir().unwrap();
    let (app, root) = spawned(dir.path(), n);
    let entities: Vec<Entity> = app
        .world()
        .get::<ForgeSceneInstance>(root)
        .unwrap()
        .iter()
        .map(|(_, e)| e)
        .collect();
    assert_eq!(entities.len(), n);
    let mut at = 0usize;
    group.bench_function(BenchmarkId::new("locate", n), |b| {
        b.iter(|| {
            at = (at + 7919) % entities.len();
            let located = live_link::locate(app.world(), entities[at]).unwrap();
            assert_eq!(located.places.len(), 1);
            located
        })
    });
    group.finish();
}

fn keep_reload(c: &mut Criterion) {
    let mut group = c.benchmark_group("live_link");
    let n = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let (mut app, root) = spawned(dir.path(), n);
    let id = {
        let scene = support::generate(n, 7);
        scene.entities.keys().copied().nth(n / 2).unwrap()
    };
    let entity = app
        .world()
        .get::<ForgeSceneInstance>(root)
        .unwrap()
        .entity(id)
        .unwrap();
    let change = [FieldRef {
        id_path: vec![id],
        component: "bench::Health".to_owned(),
        field: Some("value".to_owned()),
    }];
    let mut value = 1000u32;
    let keep_once = |app: &mut App, value: u32| {
        app.world_mut().get_mut::<Health>(entity).unwrap().value = value;
        let start = Instant::now();
        let kept = live_link::keep(
            app.world_mut(),
            root,
            Some(&change),
            KeepInto::Instance,
            false,
        )
        .unwrap();
        let frame = start.elapsed();
        assert!(kept.written);
        frame
    };
    group.bench_function(BenchmarkId::new("keep_reload", n), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                value += 1;
                let before = reloads(&app);
                let start = Instant::now();
                keep_once(&mut app, value);
                both::run_until(&mut app, |w| w.resource::<OursReloaded>().0 > before);
                total += start.elapsed();
            }
            total
        })
    });
    group.bench_function(BenchmarkId::new("keep_frame", n), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                value += 1;
                let before = reloads(&app);
                total += keep_once(&mut app, value);
                both::run_until(&mut app, |w| w.resource::<OursReloaded>().0 > before);
            }
            total
        })
    });
    // The same edit made to the file by hand, reloaded through the app.
    let server = app.world().resource::<AssetServer>().clone();
    group.bench_function(BenchmarkId::new("full_reload", n), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                value += 1;
                let text = std::fs::read_to_string(dir.path().join(PATH)).unwrap();
                let old = format!("expr: \"{}\"", value - 1);
                assert!(text.contains(&old));
                let text = text.replacen(&old, &format!("expr: \"{value}\""), 1);
                let before = reloads(&app);
                let start = Instant::now();
                std::fs::write(dir.path().join(PATH), text).unwrap();
                server.reload(PATH.to_owned());
                both::run_until(&mut app, |w| w.resource::<OursReloaded>().0 > before);
                total += start.elapsed();
            }
            assert_eq!(app.world().get::<Health>(entity).unwrap().value, value);
            total
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(4));
    targets = locate, keep_reload
}
criterion_main!(benches);
