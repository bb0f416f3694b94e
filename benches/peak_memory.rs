//! Peak memory (and one timed end-to-end load + spawn) of a process that loads and spawns a
//! scene of N entities, ours or Bevy's. Run the binary directly under `/usr/bin/time -v` so the
//! peak is this process's alone (see BENCHMARKS.md):
//!
//! ```text
//! cargo bench --bench peak_memory -- gen 100000 /tmp/forge-peak   # writes the files, once
//! /usr/bin/time -v <bench binary> ours 100000 /tmp/forge-peak
//! /usr/bin/time -v <bench binary> cooked 100000 /tmp/forge-peak
//! /usr/bin/time -v <bench binary> theirs 100000 /tmp/forge-peak
//! ```
//!
//! Tile layers against the same world flat (N is the prefab's entity count; 10 gives the
//! 110k-entity layer of 100 × 100 cells):
//!
//! ```text
//! cargo bench --bench peak_memory -- gen-tiles 10 /tmp/forge-tiles   # writes the files, once
//! /usr/bin/time -v <bench binary> tiles 10 /tmp/forge-tiles
//! /usr/bin/time -v <bench binary> tiles-flat 10 /tmp/forge-tiles
//! ```
//!
//! `gen` writes `bench.forge.ron`, its cooked twin `bench.forge.bin`, and `bench.scn.ron` (the
//! same world, written by Bevy's `DynamicWorld` serializer) into the directory; `ours` (text),
//! `cooked` and `theirs` start a headless app
//! reading that directory, load and spawn the scene under one root through the `AssetServer`,
//! check the entity count, and print the elapsed time and entities per second.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/vs_bevy.rs"]
mod both;
mod support;
#[path = "support/tiles.rs"]
mod tiles;

use std::path::PathBuf;
use std::time::Instant;

use bevy_forge_scene::prelude::*;

fn main() {
    // `cargo bench` passes `--bench`; ignore flags.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let [mode, n, dir] = args.as_slice() else {
        eprintln!("usage: peak_memory gen|ours|cooked|theirs|gen-tiles|tiles|tiles-flat N DIR");
        return;
    };
    let n: usize = n.parse().unwrap();
    let dir = PathBuf::from(dir);
    match mode.as_str() {
        "gen" => {
            std::fs::create_dir_all(&dir).unwrap();
            let (forge, scn) = both::texts(n);
            std::fs::write(dir.join("bench.forge.ron"), &forge).unwrap();
            std::fs::write(dir.join("bench.scn.ron"), &scn).unwrap();
            let cooked = bevy_forge_scene::cook::CookedScene {
                source: "bench.forge.ron".to_owned(),
                doc: bevy_forge_scene::format::SceneDoc::from_str(&forge)
                    .unwrap()
                    .doc,
                prefabs: Vec::new(),
            }
            .encode();
            std::fs::write(dir.join("bench.forge.bin"), &cooked).unwrap();
            println!(
                "wrote {} ({} bytes), {} ({} bytes) and {} ({} bytes)",
                dir.join("bench.forge.ron").display(),
                forge.len(),
                dir.join("bench.forge.bin").display(),
                cooked.len(),
                dir.join("bench.scn.ron").display(),
                scn.len()
            );
        }
        "gen-tiles" => {
            let prefab = tiles::prefab(n as u64);
            std::fs::create_dir_all(dir.join("prefabs")).unwrap();
            std::fs::write(dir.join("prefabs/tile.forge.ron"), &prefab).unwrap();
            let level = tiles::level(&tiles::full_rows());
            std::fs::write(dir.join("tiles.forge.ron"), &level).unwrap();
            let flat = tiles::flat_text(&prefab);
            std::fs::write(dir.join("tiles-flat.forge.ron"), &flat).unwrap();
            println!(
                "wrote tiles.forge.ron ({} bytes, with prefabs/tile.forge.ron of {n} entities) and tiles-flat.forge.ron ({} bytes) into {}",
                level.len(),
                flat.len(),
                dir.display()
            );
        }
        "tiles" | "tiles-flat" => {
            let mut app = both::file_app(&dir);
            let start = Instant::now();
            let (root, _handle) = both::ours_load_spawn(&mut app, &format!("{mode}.forge.ron"));
            let elapsed = start.elapsed();
            let len = app.world().get::<ForgeSceneInstance>(root).unwrap().len();
            let entities = tiles::SIDE * tiles::SIDE * n + 2;
            assert_eq!(len, entities);
            report(mode, entities, elapsed);
        }
        "ours" if std::env::var_os("PHASES").is_some() => {
            let mut app = both::file_app(&dir);
            rss("app");
            let handle = both::ours_load(&mut app, "bench.forge.ron");
            rss("loaded");
            let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
            both::run_until(&mut app, |w| w.get::<ForgeSceneInstance>(root).is_some());
            rss("spawned");
        }
        "theirs" if std::env::var_os("PHASES").is_some() => {
            let mut app = both::file_app(&dir);
            rss("app");
            let handle = both::theirs_load(&mut app, "bench.scn.ron");
            rss("loaded");
            let _ = both::theirs_load_spawn(&mut app, "bench.scn.ron");
            rss("spawned");
            drop(handle);
        }
        "ours" | "cooked" => {
            let file = match mode.as_str() {
                "ours" => "bench.forge.ron",
                _ => "bench.forge.bin",
            };
            let mut app = both::file_app(&dir);
            let start = Instant::now();
            let (root, _handle) = both::ours_load_spawn(&mut app, file);
            let elapsed = start.elapsed();
            let len = app.world().get::<ForgeSceneInstance>(root).unwrap().len();
            assert_eq!(len, n);
            report(mode, n, elapsed);
        }
        "theirs" => {
            let mut app = both::file_app(&dir);
            let start = Instant::now();
            let (_root, _handle) = both::theirs_load_spawn(&mut app, "bench.scn.ron");
            let elapsed = start.elapsed();
            let world = app.world_mut();
            let mut q = world.query::<&both::Health>();
            assert_eq!(q.iter(world).count(), n);
            report("theirs", n, elapsed);
        }
        other => {
            eprintln!("unknown mode `{other}`: gen|ours|cooked|theirs|gen-tiles|tiles|tiles-flat")
        }
    }
}

fn report(side: &str, n: usize, elapsed: std::time::Duration) {
    println!(
        "{side}: load + spawn of {n} entities in {:.1} ms ({:.0} entities/s)",
        elapsed.as_secs_f64() * 1000.0,
        n as f64 / elapsed.as_secs_f64()
    );
}

fn rss(phase: &str) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let get = |k: &str| {
        status
            .lines()
            .find(|l| l.starts_with(k))
            .unwrap_or("")
            .to_owned()
    };
    println!("{phase}: {} {}", get("VmRSS"), get("VmHWM"));
}
