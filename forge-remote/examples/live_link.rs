//! The live link, scripted: a headless game serves `forge.*` on loopback; a client (another
//! thread, plain JSON over HTTP) moves the player through Bevy's own `world.mutate_components`,
//! asks `forge.diff` what now differs from the file, and keeps it with `forge.keep`. The scene
//! file is the platformer of a copy of the repository's `assets/` in a temporary folder; the example
//! prints the changed line.
//!
//! ```sh
//! cd render-tests && cargo run -p bevy_forge_scene_remote --example live_link --ignore-rust-version
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, AssetServer};
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene_remote::ForgeRemotePlugin;
use bevy_reflect::{Reflect, TypePath};
use bevy_transform::components::Transform;
use serde_json::{Value, json};

/// The platformer's custom component.
#[derive(Component, Reflect, Default, ForgeComponent)]
#[forge(type_path = "forge_demo::Orbit")]
struct Orbit {
    radius: f32,
    speed: f32,
    axis: bevy_math::Vec3,
}

const SCENE: &str = "scenes/platformer.forge.ron";

fn rpc(port: u16, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let answer: Value = ureq::post(&format!("http://127.0.0.1:{port}/"))
        .send_string(&body.to_string())
        .unwrap()
        .into_json()
        .unwrap();
    if let Some(error) = answer.get("error") {
        panic!("{method}: {error}");
    }
    answer["result"].clone()
}

/// What a tool would do: find the player, move it, see the difference, keep it.
fn client(port: u16) -> Value {
    let player = rpc(
        port,
        "forge.entity",
        json!({ "path": SCENE, "id_path": [2] }),
    )["entity"]
        .clone();
    let located = rpc(port, "forge.locate", json!({ "entity": player }));
    let entry = &located["places"][0]["entry"]["start"];
    println!(
        "the player is entity {player}, written at {SCENE}:{}:{}",
        entry["line"], entry["column"]
    );
    rpc(
        port,
        "world.mutate_components",
        json!({ "entity": player, "component": Transform::type_path(), "path": ".translation.x", "value": 3.5 }),
    );
    let root = located["root"].clone();
    for d in rpc(port, "forge.diff", json!({ "root": root }))["differences"]
        .as_array()
        .unwrap()
    {
        let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
        println!(
            "differs: {} {}.{}: {} -> {}",
            d["id_path"],
            text(&d["component"]),
            text(&d["field"]),
            text(&d["file"]),
            text(&d["live"])
        );
    }
    rpc(port, "forge.keep", json!({ "root": root }))
}

/// `from`'s files copied under `to`, folders and all.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    copy_dir(&assets, dir.path());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();

    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: dir.path().to_string_lossy().into_owned(),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
        ForgeRemotePlugin::default()
            .with_port(port)
            .with_asset_root(dir.path()),
    ));
    app.register_type::<Transform>();
    app.finish();
    app.cleanup();
    let handle = app.world().resource::<AssetServer>().load(SCENE);
    let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    let started = Instant::now();
    while app.world().get::<ForgeSceneInstance>(root).is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the scene did not spawn"
        );
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }

    let before = std::fs::read_to_string(dir.path().join(SCENE)).unwrap();
    let script = std::thread::spawn(move || client(port));
    while !script.is_finished() {
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    let kept = script.join().unwrap();
    for _ in 0..20 {
        app.update();
    }
    let after = std::fs::read_to_string(dir.path().join(SCENE)).unwrap();
    println!(
        "kept {} value(s) into {}:",
        kept["kept"].as_array().map_or(0, Vec::len),
        SCENE
    );
    for (i, (a, b)) in before.lines().zip(after.lines()).enumerate() {
        if a != b {
            println!("  line {}:\n  - {}\n  + {}", i + 1, a.trim(), b.trim());
        }
    }
}
