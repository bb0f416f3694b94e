//! Streaming by distance: a grid of 12 x 12 streamed cells (each a 21-entity prefab placed with
//! `streaming: Some((load_radius: 25.0, unload_radius: 35.0))`) and a camera, the
//! `ForgeStreamingSource`, flying across it and back at a steady speed. Cells come in within the
//! spawn budget (1 ms a frame) as the camera nears them and go out behind it. Headless: every
//! 20 frames it prints the camera's position, the cells in (and loading), the live entities and
//! the worst frame time of the scene systems since the last line.
//!
//! ```sh
//! cargo run --example streaming
//! ```
//!
//! The grid and its prefab are generated in memory and read through the real `AssetServer`
//! from an in-memory asset source, as files would be.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use bevy_app::{App, PreUpdate, TaskPoolPlugin};
use bevy_asset::io::memory::{Dir, MemoryAssetReader};
use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer};
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::{ForgeCellState, ForgeStreamedCells};
use bevy_transform::components::Transform;

const SIDE: u32 = 12;
const SPACING: f32 = 10.0;
const TRANSFORM: &str = "transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0))";

/// A tree: a trunk with four branches of four leaves each (1 + 4 + 16 = 21 entities).
fn tree() -> String {
    let mut entities = String::new();
    let branches: Vec<u32> = (0..4).map(|b| 2 + b * 5).collect();
    let list = |ids: &[u32]| {
        ids.iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        entities,
        "  1: (id: 1, name: \"Trunk\", parent: None, children: [{}], {TRANSFORM}, components: []),",
        list(&branches)
    );
    for b in &branches {
        let leaves: Vec<u32> = (1..5).map(|l| b + l).collect();
        let _ = writeln!(
            entities,
            "  {b}: (id: {b}, name: \"Branch\", parent: Some(1), children: [{}], {TRANSFORM}, components: []),",
            list(&leaves)
        );
        for leaf in leaves {
            let _ = writeln!(
                entities,
                "  {leaf}: (id: {leaf}, name: \"Leaf\", parent: Some({b}), children: [], {TRANSFORM}, components: []),"
            );
        }
    }
    format!(
        "(format_version: 1, name: \"Tree\", entities: {{\n{entities}}}, roots: [1], next_id: 22)"
    )
}

/// The forest: `SIDE` x `SIDE` streamed trees, `SPACING` apart.
fn forest() -> String {
    let mut entities = String::new();
    let mut roots = Vec::new();
    for j in 0..SIDE {
        for i in 0..SIDE {
            let id = 1 + j * SIDE + i;
            roots.push(id.to_string());
            let (x, y) = (i as f32 * SPACING, j as f32 * SPACING);
            let _ = writeln!(
                entities,
                "  {id}: (id: {id}, name: \"Cell {i},{j}\", parent: None, children: [], transform: (translation: (x: {x:?}, y: {y:?}, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [], instance: Some((scene: \"tree.forge.ron\", streaming: Some((load_radius: 25.0, unload_radius: 35.0))))),"
            );
        }
    }
    format!(
        "(format_version: 1, name: \"Forest\", entities: {{\n{entities}}}, roots: [{}], next_id: {})",
        roots.join(", "),
        SIDE * SIDE + 1
    )
}

/// The scene systems' time this frame, and the worst since the last printout.
#[derive(Resource, Default)]
struct Timing {
    started: Option<Instant>,
    worst: Duration,
}

fn before_scene_systems(mut timing: ResMut<Timing>) {
    timing.started = Some(Instant::now());
}

fn after_scene_systems(mut timing: ResMut<Timing>) {
    if let Some(started) = timing.started.take() {
        timing.worst = timing.worst.max(started.elapsed());
    }
}

fn main() {
    let dir = Dir::default();
    dir.insert_asset_text(Path::new("tree.forge.ron"), &tree());
    dir.insert_asset_text(Path::new("forest.forge.ron"), &forest());
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: dir.clone() })),
    )
    .add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin::default(),
        ForgeScenePlugin,
    ))
    .insert_resource(ForgeDefaultSpawnBudget(ForgeSpawnBudget::per_frame(
        Duration::from_millis(1),
    )))
    .init_resource::<Timing>()
    .add_systems(
        PreUpdate,
        (
            before_scene_systems.before(ForgeSceneSystems::Reload),
            after_scene_systems.after(ForgeSceneSystems::Spawn),
        ),
    );
    app.finish();
    app.cleanup();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<ForgeScene>("forest.forge.ron");
    let row = (SIDE / 2) as f32 * SPACING;
    let (west, east) = (-40.0, SIDE as f32 * SPACING + 30.0);
    let camera = app
        .world_mut()
        .spawn((Transform::from_xyz(west, row, 0.0), ForgeStreamingSource))
        .id();
    let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    let started = Instant::now();
    while app.world().get::<ForgeStreamedCells>(root).is_none() {
        app.update();
        if started.elapsed() > Duration::from_secs(60) {
            eprintln!("the forest did not load within a minute");
            std::process::exit(1);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    println!(
        "{} cells of 21 entities; the camera flies along y = {row} at 2 units a frame",
        SIDE * SIDE
    );
    // There and back: 2 units a frame.
    let speed = 2.0;
    let leg = ((east - west) / speed) as u32;
    for frame in 0..=2 * leg {
        let x = if frame <= leg {
            west + speed * frame as f32
        } else {
            east - speed * (frame - leg) as f32
        };
        if let Some(mut transform) = app.world_mut().get_mut::<Transform>(camera) {
            transform.translation.x = x;
        }
        app.update();
        if frame.is_multiple_of(20) || frame == 2 * leg {
            let world = app.world_mut();
            let Some(cells) = world.get::<ForgeStreamedCells>(root) else {
                continue;
            };
            let cells_in: Vec<String> = cells
                .iter()
                .filter(|(_, s)| *s == ForgeCellState::In)
                .map(|(id, _)| {
                    let id = id - 1;
                    let side = u64::from(SIDE);
                    format!("{},{}", id % side, id / side)
                })
                .collect();
            let loading = cells.count(ForgeCellState::Loading);
            let live = world.entities().count_spawned();
            let worst = std::mem::take(&mut world.resource_mut::<Timing>().worst);
            println!(
                "frame {frame:>3}  camera x {x:>6.1}  {:>2} cells in, {loading} loading, {live:>4} entities, worst frame {:.2} ms  [{}]",
                cells_in.len(),
                worst.as_secs_f64() * 1e3,
                cells_in.join(" ")
            );
        }
    }
}
