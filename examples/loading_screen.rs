//! A loading screen for a big level: a line for what the load read (`ForgeLoadProgress`), then
//! the level spawns over frames within a 1 ms budget (`ForgeSpawnBudget`), held hidden and
//! inactive (`ForgeSceneInactive`) while a bar follows its `ForgeSpawnProgress`, and is revealed
//! once `ForgeSceneReady` arrives. Headless; the bar is printed.
//!
//! ```sh
//! cargo run --example loading_screen            # 20,000 entities
//! cargo run --example loading_screen -- 100000
//! ```
//!
//! The level is generated in memory (groups of a root with nine children) and read through the
//! real `AssetServer` from an in-memory asset source, as a file would be.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use bevy_app::{App, TaskPoolPlugin, Update};
use bevy_asset::io::memory::{Dir, MemoryAssetReader};
use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer};
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;

/// `n` entities in groups of ten: a root and nine children.
fn level(n: usize) -> String {
    let mut entities = String::new();
    let mut roots = Vec::new();
    let transform = "transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0))";
    for group in 0..n.div_ceil(10) {
        let root = group * 10 + 1;
        let children: Vec<String> = (1..10)
            .map(|i| root + i)
            .filter(|id| *id <= n)
            .map(|id| id.to_string())
            .collect();
        roots.push(root.to_string());
        let _ = writeln!(
            entities,
            "  {root}: (id: {root}, name: \"Block {group}\", parent: None, children: [{}], {transform}, components: []),",
            children.join(", ")
        );
        for child in &children {
            let _ = writeln!(
                entities,
                "  {child}: (id: {child}, name: \"Tile {child}\", parent: Some({root}), children: [], {transform}, components: []),"
            );
        }
    }
    format!(
        "(format_version: 1, name: \"Big level\", entities: {{\n{entities}}}, roots: [{}], next_id: {})",
        roots.join(", "),
        n + 1
    )
}

/// The level's root, and when its spawn started.
#[derive(Resource)]
struct Level {
    root: Entity,
    started: Option<Instant>,
    frames: u32,
}

/// Prints what the load read, each frame it advanced (one file here: the level places no
/// prefabs).
fn draw_reading(progress: Query<&ForgeLoadProgress, Changed<ForgeLoadProgress>>) {
    for p in &progress {
        println!(
            "reading: {}/{} files, {} of {} bytes{}",
            p.files_read,
            p.files_total,
            p.bytes_read,
            p.bytes_total,
            if p.loaded { ", loaded" } else { "" }
        );
    }
}

/// Prints the bar each frame the spawn advanced.
fn draw_bar(
    mut level: ResMut<Level>,
    progress: Query<&ForgeSpawnProgress, Changed<ForgeSpawnProgress>>,
) {
    let Ok(progress) = progress.get(level.root) else {
        return;
    };
    level.started.get_or_insert_with(Instant::now);
    level.frames += 1;
    let done = (progress.fraction() * 40.0) as usize;
    println!(
        "[{}{}] {:>6} / {} entities",
        "#".repeat(done),
        ".".repeat(40 - done),
        progress.spawned,
        progress.total
    );
}

/// The level is complete: lift the gate.
fn reveal(ready: On<ForgeSceneReady>, level: Res<Level>, mut commands: Commands) {
    if ready.entity == level.root {
        let took = level.started.map(|s| s.elapsed()).unwrap_or_default();
        println!(
            "ready after {} frames ({took:.1?}): revealing the level",
            level.frames
        );
        commands.entity(level.root).remove::<ForgeSceneInactive>();
    }
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let dir = Dir::default();
    dir.insert_asset_text(Path::new("level.forge.ron"), &level(n));
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
    .add_systems(Update, (draw_reading, draw_bar))
    .add_observer(reveal);
    app.finish();
    app.cleanup();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<ForgeScene>("level.forge.ron");
    let root = app
        .world_mut()
        .spawn((ForgeSceneRoot(handle), ForgeSceneInactive))
        .id();
    app.insert_resource(Level {
        root,
        started: None,
        frames: 0,
    });
    let started = Instant::now();
    // Until the level is revealed (the frame after it is ready), or a minute.
    while started.elapsed() < Duration::from_secs(60) {
        app.update();
        let world = app.world_mut();
        let revealed = world.get::<ForgeSceneInstance>(root).is_some()
            && world.get::<ForgeSceneInactive>(root).is_none();
        if revealed {
            app.update();
            let world = app.world_mut();
            let mut inactive = world.query_filtered::<(), With<ForgeSceneInactive>>();
            println!(
                "{} entities in play, {} still inactive",
                world.get::<ForgeSceneInstance>(root).map_or(0, |i| i.len()),
                inactive.iter(world).count()
            );
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    eprintln!("the level did not load within a minute");
    std::process::exit(1);
}
