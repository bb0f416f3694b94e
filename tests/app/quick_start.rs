//! The README's quick start, run: its game (the `Spin` component, the `Player` marker, its
//! systems and observer, copied below between the `README` markers) built with the stand-in
//! `DefaultPlugins` and `ForgeScenePlugin`, reading the README's scene from an in-memory asset
//! source instead of `assets/`. `readme_shows_this_game` fails when the README's code and this
//! copy part ways.

#![deny(warnings)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use bevy::asset::io::memory::{Dir, MemoryAssetReader};
use bevy::asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy::prelude::*;
use bevy_forge_scene::prelude::*;

// README: begin
/// Turns its entity around the z axis. Scenes write it as `(type: custom, ..)`.
#[derive(Component, Reflect, Default, ForgeComponent)]
struct Spin {
    /// Radians per second.
    #[forge(required)]
    speed: f32,
}

/// The entity the player controls.
#[derive(Component)]
struct Player;

fn load_level(mut commands: Commands, asset_server: Res<AssetServer>) {
    commands.spawn(ForgeSceneRoot(asset_server.load("scenes/level.forge.ron")));
}

/// Runs once the level has spawned: every id of the file has its live entity.
fn on_level_ready(
    ready: On<ForgeSceneReady>,
    levels: Query<&ForgeSceneInstance>,
    mut commands: Commands,
) {
    if let Ok(level) = levels.get(ready.entity)
        && let Some(player) = level.entity(2)
    {
        commands.entity(player).insert(Player);
        info!("level ready: {} entities", level.len());
    }
}

fn spin(time: Res<Time>, mut spinning: Query<(&Spin, &mut Transform)>) {
    for (spin, mut transform) in &mut spinning {
        transform.rotate_z(spin.speed * time.delta_secs());
    }
}
// README: end

const README: &str = include_str!("../../README.md");

/// The fenced block of `lang` that follows `after` in the README.
fn readme_block(after: &str, lang: &str) -> &'static str {
    let from = README.find(after).expect("the README has the heading") + after.len();
    let fence = format!("```{lang}\n");
    let start = from + README[from..].find(&fence).expect("the block is there") + fence.len();
    let len = README[start..].find("```").expect("the block ends");
    &README[start..start + len]
}

/// The README's game, with its scene in memory at `scenes/level.forge.ron`.
fn game() -> App {
    let dir = Dir::default();
    dir.insert_asset_text(
        Path::new("scenes/level.forge.ron"),
        readme_block("# bevy_forge_scene", "ron"),
    );
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: dir.clone() })),
    )
    .add_plugins((DefaultPlugins, ForgeScenePlugin))
    .add_systems(Startup, load_level)
    .add_systems(Update, spin)
    .add_observer(on_level_ready);
    app.finish();
    app.cleanup();
    app
}

/// Updates `app` until `done` holds, for at most 10 seconds (loads run on other threads).
fn run_until(app: &mut App, mut done: impl FnMut(&mut World) -> bool) {
    let started = std::time::Instant::now();
    while started.elapsed().as_secs() < 10 {
        app.update();
        if done(app.world_mut()) {
            return;
        }
        std::thread::yield_now();
    }
    panic!("not reached in {:?}", started.elapsed());
}

fn players(world: &mut World) -> Vec<(Entity, String, f32, Quat)> {
    let mut query = world.query_filtered::<(Entity, &Name, &Spin, &Transform), With<Player>>();
    query
        .iter(world)
        .map(|(entity, name, spin, transform)| {
            (entity, name.to_string(), spin.speed, transform.rotation)
        })
        .collect()
}

#[test]
fn the_quick_start_game_spawns_its_level_and_finds_the_player() {
    let mut app = game();
    run_until(&mut app, |world| !players(world).is_empty());

    // What the observer saw: the instance of the README's scene, entity 2 marked as the player.
    let mut instances = app.world_mut().query::<&ForgeSceneInstance>();
    let instance = instances.single(app.world()).expect("one level").clone();
    assert_eq!(instance.len(), 2);
    let found = players(app.world_mut());
    let [(player, ref name, speed, rotation)] = found[..] else {
        panic!("one player: {found:?}");
    };
    assert_eq!(Some(player), instance.entity(2));
    assert_eq!((name.as_str(), speed), ("Player", 1.5));
    // The file's 45 degrees about z, in Bevy's `Transform` (spinning adds to it).
    let (_, _, angle) = rotation.to_euler(EulerRot::XYZ);
    assert!(angle >= 45f32.to_radians() - 1e-5, "{angle}");
    let camera = instance.entity(1).expect("the camera spawned");
    assert_eq!(
        app.world().get::<Name>(camera).map(Name::as_str),
        Some("Camera")
    );

    // `spin` turns the player a little every frame.
    let before = app.world().get::<Transform>(player).map(|t| t.rotation);
    run_until(&mut app, |world| {
        world.get::<Transform>(player).map(|t| t.rotation) != before
    });
}

#[test]
fn readme_shows_this_game() {
    let readme = readme_block("## Quick start", "rust,no_run");
    let this = include_str!("quick_start.rs");
    let begin = this.find("// README: begin\n").expect("marker") + "// README: begin\n".len();
    let end = this.find("// README: end").expect("marker");
    let mut rest = readme;
    for line in this[begin..end].lines().filter(|l| !l.trim().is_empty()) {
        let found = rest
            .find(line)
            .unwrap_or_else(|| panic!("the README's quick start no longer has `{line}`"));
        rest = &rest[found + line.len()..];
    }
}
