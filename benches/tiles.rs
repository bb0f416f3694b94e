//! Tile layers at scale: a 100 × 100 layer against the same entities written flat, and one
//! painted cell.
//!
//! - `tiles_load_spawn/layer_1` and `flat_1`: load + spawn through the app from a fresh path of a
//!   100 × 100 layer of a one-entity prefab (10,000 cells, 10,002 entities with the ground and
//!   the layer entity) against the same world written flat (ids renumbered).
//! - `tiles_load_spawn/layer_10` and `flat_10`: the same with a 10-entity prefab (100,002
//!   entities).
//! - `tiles_paint/app_reload`: one character of a row changed (a cell painted, then erased), from
//!   `AssetServer::reload` until `ForgeSceneReloaded`: the level re-read, expanded, checked,
//!   prepared, diffed and patched.
//! - `tiles_paint/diff_apply`: diff + patch of the two expanded scenes only.
//!
//! Debug build: `cargo bench --bench tiles --profile dev` runs `tiles_load_spawn/layer_1` and
//! `flat_1` only (the figure pfx gives for a debug build; the rest takes minutes there), with
//! this crate unoptimised; `--profile dev-game` is a game's debug build as Bevy's setup guide
//! recommends it, where this crate is one of the optimised dependencies.
//!
//! Before timing, the bench checks that both sides spawn the same number of entities, and that a
//! paint spawns one entity and writes no `Transform` or `Sprite` of any other cell (change
//! ticks). The text sizes of both sides are printed.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/vs_bevy.rs"]
mod both;
mod support;
#[path = "support/tiles.rs"]
mod tiles;

use std::path::Path;
use std::time::{Duration, Instant};

use bevy_asset::{AssetServer, Assets};
use bevy_ecs::prelude::*;
use bevy_forge_scene::apply_diff;
use bevy_forge_scene::prelude::*;
use bevy_sprite::Sprite;
use bevy_transform::components::Transform;
use both::OursReloaded;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tiles::{SIDE, flat, full_rows, level, prefab};

/// Built with debug assertions (`--profile dev` or `dev-game`): only the one-entity prefab's
/// load + spawn.
const DEBUG: bool = cfg!(debug_assertions);

fn tiles_load_spawn(c: &mut Criterion) {
    let mut group = c.benchmark_group("tiles_load_spawn");
    group.sample_size(10);
    let sizes: &[u64] = if DEBUG { &[1] } else { &[1, 10] };
    for &per_cell in sizes {
        let (mut app, dir) = both::memory_app();
        dir.insert_asset_text(Path::new("prefabs/tile.forge.ron"), &prefab(per_cell));
        let level_text = level(&full_rows());
        dir.insert_asset_text(Path::new("field.forge.ron"), &level_text);
        let handle = both::ours_load(&mut app, "field.forge.ron");
        let flat_text = {
            let scenes = app.world().resource::<Assets<ForgeScene>>();
            flat(&scenes.get(&handle).unwrap().expanded().unwrap().doc).to_canonical_string()
        };
        drop(handle);
        let n = SIDE * SIDE * per_cell as usize + 2;
        eprintln!(
            "tiles {per_cell}-entity prefab: {n} entities; layer text {} bytes, flat text {} bytes",
            level_text.len(),
            flat_text.len()
        );
        group.throughput(criterion::Throughput::Elements(n as u64));
        for (name, text) in [("layer", &level_text), ("flat", &flat_text)] {
            group.bench_function(BenchmarkId::new(format!("{name}_{per_cell}"), n), |b| {
                b.iter_custom(|iters| {
                    both::per_fresh_path(
                        iters,
                        &mut app,
                        &dir,
                        "forge.ron",
                        text.as_bytes(),
                        both::ours_load_spawn,
                        |app, (root, h)| {
                            let len = app.world().get::<ForgeSceneInstance>(root).unwrap().len();
                            assert_eq!(len, n, "{name}: both spawn the same world");
                            app.world_mut().entity_mut(root).despawn();
                            drop(h);
                        },
                    )
                })
            });
        }
    }
    group.finish();
}

/// How many `T` changed after `since`.
fn changed<T: Component>(world: &mut World, since: bevy_ecs::change_detection::Tick) -> usize {
    let now = world.read_change_tick();
    let mut q = world.query::<bevy_ecs::change_detection::Ref<T>>();
    q.iter(world)
        .filter(|r| r.last_changed().is_newer_than(since, now))
        .count()
}

/// The rows with cell (50, 50) painted (`t`) or erased (`.`).
fn painted(on: bool) -> Vec<String> {
    let mut rows = full_rows();
    let row = &mut rows[SIDE / 2];
    row.replace_range(SIDE / 2..SIDE / 2 + 1, if on { "t" } else { "." });
    rows
}

fn tiles_paint(c: &mut Criterion) {
    if DEBUG {
        return;
    }
    let (mut app, dir) = both::memory_app();
    dir.insert_asset_text(Path::new("prefabs/tile.forge.ron"), &prefab(1));
    dir.insert_asset_text(Path::new("field.forge.ron"), &level(&painted(true)));
    let server = app.world().resource::<AssetServer>().clone();
    let handle = server.load::<ForgeScene>("field.forge.ron");
    let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
    both::run_until(&mut app, |w| w.get::<ForgeSceneInstance>(root).is_some());
    let cells = SIDE * SIDE;
    assert_eq!(
        app.world().get::<ForgeSceneInstance>(root).unwrap().len(),
        cells + 2
    );

    let mut on = true;
    let mut paint = |app: &mut bevy_app::App| -> Duration {
        // Their spawner's debounce does not apply to ours, but the same frames keep the two
        // benches alike.
        for _ in 0..4 {
            app.update();
        }
        on = !on;
        dir.insert_asset_text(Path::new("field.forge.ron"), &level(&painted(on)));
        let before = app.world().resource::<OursReloaded>().0;
        let start = Instant::now();
        server.reload("field.forge.ron");
        both::run_until(app, |w| w.resource::<OursReloaded>().0 > before);
        start.elapsed()
    };
    // Erase, then paint: each touches that cell only.
    for expected in [cells + 1, cells + 2] {
        let since = app.world_mut().change_tick();
        paint(&mut app);
        let len = app.world().get::<ForgeSceneInstance>(root).unwrap().len();
        assert_eq!(len, expected);
        let transforms = changed::<Transform>(app.world_mut(), since);
        let sprites = changed::<Sprite>(app.world_mut(), since);
        let painted_now = usize::from(expected == cells + 2);
        assert_eq!(
            (transforms, sprites),
            (painted_now, painted_now),
            "only the painted cell's entity is written"
        );
    }

    let mut group = c.benchmark_group("tiles_paint");
    group.sample_size(20);
    group.bench_function(BenchmarkId::new("app_reload", cells), |b| {
        b.iter_custom(|iters| (0..iters).map(|_| paint(&mut app)).sum())
    });

    // Diff + patch only, between the two loaded versions.
    let (mut app_b, dir_b) = both::memory_app();
    dir_b.insert_asset_text(Path::new("prefabs/tile.forge.ron"), &prefab(1));
    dir_b.insert_asset_text(Path::new("a.forge.ron"), &level(&painted(true)));
    dir_b.insert_asset_text(Path::new("b.forge.ron"), &level(&painted(false)));
    let a = both::ours_load(&mut app_b, "a.forge.ron");
    let b = both::ours_load(&mut app_b, "b.forge.ron");
    let scenes = app_b.world().resource::<Assets<ForgeScene>>();
    let (sa, sb) = (scenes.get(&a).unwrap(), scenes.get(&b).unwrap());
    let (mut world, root) = both::fresh_world(&app_b);
    let mut instance = sa.spawn_into(a.id(), &mut world, root);
    let mut at_b = false;
    group.bench_function(BenchmarkId::new("diff_apply", cells), |bench| {
        bench.iter(|| {
            let (from, to) = if at_b { (sb, sa) } else { (sa, sb) };
            let changes = to.changes_since(from);
            let event = apply_diff(&mut world, root, &mut instance, &changes, to);
            assert_eq!(event.added.len() + event.removed.len(), 1);
            at_b = !at_b;
        })
    });
    // The phases of a reload, one at a time (see BENCHMARKS.md, "tiles"): the diff alone, the
    // level read from text, and read + checked with its prefab (expansion and every rule).
    let mut at_b = false;
    group.bench_function(BenchmarkId::new("diff", cells), |bench| {
        bench.iter(|| {
            let (from, to) = if at_b { (sb, sa) } else { (sa, sb) };
            at_b = !at_b;
            to.changes_since(from)
        })
    });
    let text = level(&painted(false));
    group.bench_function(BenchmarkId::new("read", cells), |bench| {
        bench.iter(|| bevy_forge_scene::format::SceneDoc::from_str(&text).unwrap())
    });
    let tile = prefab(1);
    group.bench_function(BenchmarkId::new("read_check", cells), |bench| {
        bench.iter(|| {
            let source =
                bevy_forge_scene::pipeline::Source::read("field.forge.ron", text.as_bytes())
                    .unwrap();
            let mut files = bevy_forge_scene::pipeline::PrefabFiles::new(|_: &str| {
                Ok(tile.clone().into_bytes())
            });
            let checked = bevy_forge_scene::pipeline::check(source, &mut files);
            assert!(!checked.has_errors());
            checked
        })
    });
    // Load only (read, check, build custom values, prepare built-ins), from a fresh path.
    group.bench_function(BenchmarkId::new("load", cells), |bench| {
        bench.iter_custom(|iters| {
            both::per_fresh_path(
                iters,
                &mut app_b,
                &dir_b,
                "forge.ron",
                text.as_bytes(),
                both::ours_load,
                |_, handle| drop(handle),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, tiles_load_spawn, tiles_paint);
criterion_main!(benches);
