//! Streaming by distance (`ForgeStreamingSource`): `cargo bench --bench streaming`. A grid of
//! 40 x 40 streamed cells (10 units apart, load radius 25, unload radius 35), each an instance
//! of a 50-entity prefab (80,000 placed entities in all), with a source flying across the
//! middle of the grid at a steady 1 unit per frame, and back; default budget 2 ms per frame.
//!
//! Printed: the worst and 99th-percentile time per frame of our systems (the
//! `ForgeSceneSystems` sets, between two marker systems; wall-clock and on-CPU), the peak
//! number of live entities, peak heap memory (`peak_alloc`'s counting global allocator) over the start,
//! how many times each cell came in per pass (1 at most: nothing spawned twice), a check every
//! 10 frames that no id path has two live entities, and the entity count and heap after each
//! of two return trips against the start (equal: nothing leaked).
//!
//! `FORGE_STREAM_GRID` (40) and `FORGE_STREAM_SPEED` (1.0) change the grid side and the
//! speed. A plain `main`, as `benches/budget.rs`: what matters is the distribution of frame
//! times inside one flight.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/vs_bevy.rs"]
mod both;
#[path = "support/frames.rs"]
mod frames;
mod support;

use frames::{Frames, end, start};

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use bevy_app::PreUpdate;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::SingleThreadedExecutor;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::{ForgeCellState, ForgeStreamedCells};
use bevy_platform::collections::{HashMap, HashSet};
use bevy_transform::components::Transform;

/// Counts the heap bytes live now and at the most.
#[global_allocator]
static HEAP: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

const SPACING: f32 = 10.0;
const LOAD: f32 = 25.0;
const UNLOAD: f32 = 35.0;
const TRANSFORM: &str = "transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0))";

/// A prefab of 50 entities: a root, 7 rooms under it, 6 props in each room.
fn prefab() -> String {
    let mut entities = String::new();
    let rooms: Vec<u64> = (0..7).map(|r| 2 + r * 7).collect();
    let list = |ids: &[u64]| {
        ids.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        entities,
        "  1: (id: 1, name: \"House\", parent: None, children: [{}], {TRANSFORM}, components: []),",
        list(&rooms)
    );
    for room in &rooms {
        let props: Vec<u64> = (1..7).map(|p| room + p).collect();
        let _ = writeln!(
            entities,
            "  {room}: (id: {room}, name: \"Room {room}\", parent: Some(1), children: [{}], {TRANSFORM}, components: []),",
            list(&props)
        );
        for prop in props {
            let _ = writeln!(
                entities,
                "  {prop}: (id: {prop}, name: \"Prop {prop}\", parent: Some({room}), children: [], {TRANSFORM}, components: []),"
            );
        }
    }
    format!(
        "(format_version: 1, name: \"House\", entities: {{\n{entities}}}, roots: [1], next_id: 51)"
    )
}

/// `side` x `side` streamed instances of the prefab, `SPACING` apart on x and y.
fn grid(side: u64) -> String {
    let mut entities = String::new();
    let mut roots = Vec::new();
    for j in 0..side {
        for i in 0..side {
            let id = 1 + j * side + i;
            roots.push(id.to_string());
            let (x, y) = (i as f32 * SPACING, j as f32 * SPACING);
            let _ = writeln!(
                entities,
                "  {id}: (id: {id}, name: \"Cell {i},{j}\", parent: None, children: [], transform: (translation: (x: {x:?}, y: {y:?}, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [], instance: Some((scene: \"house.forge.ron\", streaming: Some((load_radius: {LOAD:?}, unload_radius: {UNLOAD:?}))))),"
            );
        }
    }
    format!(
        "(format_version: 1, name: \"Grid\", entities: {{\n{entities}}}, roots: [{}], next_id: {})",
        roots.join(", "),
        side * side + 1
    )
}

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// What one pass of the source saw (numbers only: the bench's own bookkeeping keeps no heap
/// between passes, so the heap after a trip is the app's).
struct Pass {
    peak_entities: u32,
    /// Cells that came in (out to loading or in).
    cells_in: usize,
    /// The most times one cell came in.
    most: u32,
    duplicates: usize,
}

/// Flies the source from `from` to `to` along y = `y` at `speed` per frame, then waits until
/// no cell is loading.
fn fly(
    app: &mut bevy_app::App,
    root: Entity,
    source: Entity,
    (from, to, y): (f32, f32, f32),
    speed: f32,
) -> Pass {
    let mut peak_entities = 0;
    let mut loads: HashMap<u64, u32> = HashMap::default();
    let mut duplicates = 0;
    let mut last: HashMap<u64, ForgeCellState> = app
        .world()
        .get::<ForgeStreamedCells>(root)
        .unwrap()
        .iter()
        .collect();
    let steps = ((to - from).abs() / speed).ceil() as usize;
    let dir = (to - from).signum();
    let mut frame = 0usize;
    loop {
        let x = if frame < steps {
            from + dir * speed * frame as f32
        } else {
            to
        };
        app.world_mut()
            .get_mut::<Transform>(source)
            .unwrap()
            .translation = (x, y, 0.0).into();
        app.update();
        frame += 1;
        let world = app.world_mut();
        peak_entities = peak_entities.max(world.entities().count_spawned());
        let cells = world.get::<ForgeStreamedCells>(root).unwrap();
        let mut loading = false;
        for (id, state) in cells.iter() {
            loading |= state == ForgeCellState::Loading;
            if last.get(&id) == Some(&ForgeCellState::Out) && state != ForgeCellState::Out {
                *loads.entry(id).or_default() += 1;
            }
            last.insert(id, state);
        }
        if frame.is_multiple_of(10) {
            let mut q = world.query::<&ForgeEntityPath>();
            let mut seen = HashSet::new();
            for path in q.iter(world) {
                if !seen.insert(path.as_slice().to_vec()) {
                    duplicates += 1;
                }
            }
        }
        if frame >= steps && !loading {
            return Pass {
                peak_entities,
                cells_in: loads.len(),
                most: loads.values().copied().max().unwrap_or(0),
                duplicates,
            };
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this on a small grid.
    let testing =
        std::env::args().any(|a| a == "--test") || !std::env::args().any(|a| a == "--bench");
    let side: u64 = if testing {
        6
    } else {
        env("FORGE_STREAM_GRID", 40)
    };
    let speed: f32 = env("FORGE_STREAM_SPEED", 1.0);
    let (mut app, dir) = both::memory_app();
    app.edit_schedule(PreUpdate, |schedule| {
        schedule.set_executor(SingleThreadedExecutor::new());
    });
    app.insert_resource(ForgeDefaultSpawnBudget(ForgeSpawnBudget::per_frame(
        Duration::from_millis(2),
    )))
    .init_resource::<Frames>()
    .add_systems(
        PreUpdate,
        (
            start.before(ForgeSceneSystems::Reload),
            end.after(ForgeSceneSystems::Spawn),
        ),
    );
    dir.insert_asset_text(Path::new("house.forge.ron"), &prefab());
    dir.insert_asset_text(Path::new("grid.forge.ron"), &grid(side));
    let handle = both::ours_load(&mut app, "grid.forge.ron");
    let far = side as f32 * SPACING / 2.0 - SPACING / 2.0;
    let (west, east) = (-2.0 * UNLOAD, side as f32 * SPACING + 2.0 * UNLOAD);
    let source = app
        .world_mut()
        .spawn((Transform::from_xyz(west, far, 0.0), ForgeStreamingSource))
        .id();
    let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    both::run_until(&mut app, |w| w.get::<ForgeStreamedCells>(root).is_some());
    app.update();
    // Room for every frame's times up front: the list does not grow on the heap measured.
    let frames = 4 * ((east - west) / speed) as usize + 10_000;
    let mut times = std::mem::take(&mut app.world_mut().resource_mut::<Frames>().times);
    times.clear();
    times.reserve(frames);
    app.world_mut().resource_mut::<Frames>().times = times;
    let mut passes = Vec::with_capacity(4);
    let mut after_trip = Vec::with_capacity(2);
    let entities_start = app.world().entities().count_spawned();
    let heap_start = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let cells = side * side;
    println!(
        "streaming: {side} x {side} cells of a 50-entity prefab ({} placed entities), load {LOAD} / unload {UNLOAD}, {SPACING} apart, source at {speed} unit/frame along y = {far}, budget 2 ms",
        cells * 50
    );
    println!(
        "start (source west of the grid, no cell in): {entities_start} entities, heap {:.1} MiB",
        mib(heap_start)
    );
    for _ in 0..2 {
        passes.push(fly(&mut app, root, source, (west, east, far), speed));
        passes.push(fly(&mut app, root, source, (east, west, far), speed));
        after_trip.push((app.world().entities().count_spawned(), HEAP.current_usage()));
    }
    let peak_heap = HEAP.peak_usage();
    let times = std::mem::take(&mut app.world_mut().resource_mut::<Frames>().times);
    let stats = |pick: fn(&(Duration, Duration)) -> Duration| {
        let mut all: Vec<Duration> = times.iter().map(pick).collect();
        all.sort();
        let p99 = all[(all.len() * 99 / 100).min(all.len() - 1)];
        let median = all[all.len() / 2];
        (*all.last().unwrap(), p99, median)
    };
    let (worst_wall, p99_wall, median_wall) = stats(|t| t.0);
    let (worst_cpu, p99_cpu, median_cpu) = stats(|t| t.1);
    println!(
        "{} frames (two return trips): our systems per frame: worst {:.2} ms wall / {:.2} ms on-CPU, p99 {:.2} / {:.2} ms, median {:.3} / {:.3} ms",
        times.len(),
        ms(worst_wall),
        ms(worst_cpu),
        ms(p99_wall),
        ms(p99_cpu),
        ms(median_wall),
        ms(median_cpu),
    );
    let peak_entities = passes.iter().map(|p| p.peak_entities).max().unwrap();
    println!(
        "peak live entities {peak_entities} ({} above the start); peak heap {:.1} MiB ({:.1} MiB above the start)",
        peak_entities - entities_start,
        mib(peak_heap),
        mib(peak_heap - heap_start)
    );
    for (i, pass) in passes.iter().enumerate() {
        println!(
            "pass {}: {} cells came in, each at most {} time(s); {} duplicate id paths seen",
            i + 1,
            pass.cells_in,
            pass.most,
            pass.duplicates
        );
        assert!(pass.most <= 1, "a cell came in twice in one pass");
        assert_eq!(pass.duplicates, 0, "an id path was live twice");
    }
    for (i, (entities, heap)) in after_trip.iter().enumerate() {
        println!(
            "after return trip {}: {entities} entities ({:+} against the start), heap {:.1} MiB ({:+} bytes against the start)",
            i + 1,
            i64::from(*entities) - i64::from(entities_start),
            mib(*heap),
            *heap as i64 - heap_start as i64
        );
        assert_eq!(*entities, entities_start, "entities leaked");
    }
    let (_, heap_1) = after_trip[0];
    let (_, heap_2) = after_trip[1];
    println!(
        "heap after trip 2 against after trip 1: {:+} bytes (what the first trip left is capacity Bevy keeps: tables, entity slots)",
        heap_2 as i64 - heap_1 as i64
    );
    let cells_in = app
        .world()
        .get::<ForgeStreamedCells>(root)
        .unwrap()
        .count(ForgeCellState::In);
    assert_eq!(cells_in, 0);
}
