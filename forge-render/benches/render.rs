//! Pictures at 1280x720 through the `forge-render` program, as users run it (each render in a
//! child process of its own, on whatever Vulkan adapter the machine has: Mesa's lavapipe on a
//! machine without a GPU).
//!
//! - `render/<scene>`: each example scene of `assets/scenes/`, and `render/grid_10k`, a
//!   10,000-entity scene (100 x 100 cubes on a ground, a sun with shadows; no camera, so the
//!   auto camera frames it). Split as the render reports it: start-up (app, renderer, adapter,
//!   first frame), load + spawn (files read, checked, prepared, spawned, bounds computed),
//!   frames (warm-up, capture, read-back), and the whole child process from start to exit.
//! - `review/grid_1k`: `forge-render review` of two 1,000-entity scenes (the head with 50
//!   cubes moved, 20 removed and the sun turned), from the command's start to its report with
//!   the composite and the full frames: target under 10 s. Split as the command reports it:
//!   the render child's start-up, load + spawn and frames, then the review's pictures
//!   (compared, composite and outlines drawn, four PNGs written).
//!
//! Each is run `RUNS` times; the median is printed. Not criterion: one sample takes seconds,
//! and its parts come from inside the child process.
//!
//! `cargo bench --bench render --ignore-rust-version --profile dev` times the build CI makes
//! (`cargo test`; dependencies at `opt-level = 1`); without `--profile dev`, a release build.
//! A word after `--` runs only the benches whose name holds it (`-- review`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use bevy_forge_scene_render::job::{CameraChoice, RenderJob, SceneFile};
use bevy_forge_scene_render::process::{ChildError, render_in_child};

const EXE: &str = env!("CARGO_BIN_EXE_forge-render");
const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const RUNS: usize = 3;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A grid of `side` x `side` cubes on a ground, a sun; entity `i`'s colour is one of four.
fn grid(side: u32, moved: u32, removed: u32, sun_yaw: f32) -> String {
    let mut text = String::from("(\n  format_version: 1,\n  name: \"Grid\",\n  entities: {\n");
    let colours = [
        "0.8, g: 0.3, b: 0.2",
        "0.2, g: 0.6, b: 0.9",
        "0.9, g: 0.8, b: 0.2",
        "0.3, g: 0.8, b: 0.4",
    ];
    let mut roots = Vec::new();
    let half = side as f32;
    writeln!(
        text,
        "    1: (id: 1, name: \"Ground\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(type: mesh3d, data: (mesh: (source: primitive, value: plane(size: (x: {s}, y: {s}))), material: (base_color: (r: 0.5, g: 0.5, b: 0.5, a: 1), metallic: 0, perceptual_roughness: 0.9, unlit: false)))]),",
        s = half * 2.0 + 2.0
    )
    .unwrap();
    writeln!(
        text,
        "    2: (id: 2, name: \"Sun\", parent: None, children: [], transform: (translation: (x: 0, y: 10, z: 0), rotation: (x: -50, y: {sun_yaw}, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(type: directional_light, data: (color: (r: 1, g: 1, b: 1, a: 1), illuminance: 5000, shadows: true))]),"
    )
    .unwrap();
    roots.extend([1u64, 2]);
    let count = side * side;
    for i in 0..count {
        if i >= count - removed {
            break;
        }
        let id = u64::from(i) + 3;
        let (x, z) = (
            (i % side) as f32 * 2.0 - half,
            (i / side) as f32 * 2.0 - half,
        );
        let y = if i < moved { 1.5 } else { 0.5 };
        writeln!(
            text,
            "    {id}: (id: {id}, name: \"Cube {i}\", parent: None, children: [], transform: (translation: (x: {x}, y: {y}, z: {z}), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(type: mesh3d, data: (mesh: (source: primitive, value: cuboid(size: (x: 1, y: 1, z: 1))), material: (base_color: (r: {}, a: 1), metallic: 0, perceptual_roughness: 0.7, unlit: false)))]),",
            colours[(i % 4) as usize]
        )
        .unwrap();
        roots.push(id);
    }
    let roots: Vec<String> = roots.iter().map(u64::to_string).collect();
    writeln!(
        text,
        "  }},\n  roots: [{}],\n  next_id: {},\n)",
        roots.join(", "),
        u64::from(count) + 3
    )
    .unwrap();
    text
}

struct Row {
    name: String,
    entities: usize,
    startup: f64,
    load_spawn: f64,
    frames: f64,
    process: f64,
}

fn bench_render(name: &str, scene: SceneFile, rows: &mut Vec<Row>, adapter: &mut String) {
    let (mut s, mut l, mut f, mut p) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut entities = 0;
    for _ in 0..RUNS {
        let out = tempfile::tempdir().unwrap();
        let mut job = RenderJob::new(vec![scene.clone()], out.path());
        job.camera = CameraChoice::Scene;
        let started = Instant::now();
        let rendered = match render_in_child(Path::new(EXE), &job) {
            Ok(rendered) => rendered,
            // A scene that draws nothing here (only the game's custom components) is refused,
            // as users see it: reported, not timed.
            Err(ChildError::Failed(e)) if e.contains("the capture is one colour") => {
                println!("render/{name:<12} refused: {e}");
                return;
            }
            Err(e) => panic!("{name}: {e}"),
        };
        p.push(started.elapsed().as_secs_f64());
        s.push(rendered.timings.startup);
        l.push(rendered.timings.load_spawn);
        f.push(rendered.timings.frames);
        entities = rendered.captures[0].entities.len();
        *adapter = rendered.adapter;
    }
    let row = Row {
        name: name.to_owned(),
        entities,
        startup: median(s),
        load_spawn: median(l),
        frames: median(f),
        process: median(p),
    };
    println!(
        "render/{:<12} {:>6} entities  start-up {:>6.2} s  load+spawn {:>6.2} s  frames {:>6.2} s  process {:>6.2} s",
        row.name, row.entities, row.startup, row.load_spawn, row.frames, row.process
    );
    rows.push(row);
}

/// The seconds `forge-render` printed after `label` on stderr (`start-up 0.51 s`).
fn seconds(stderr: &str, label: &str) -> f64 {
    stderr
        .split(label)
        .nth(1)
        .and_then(|rest| rest.trim_start().split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(f64::NAN)
}

fn main() {
    let only: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    let mut rows = Vec::new();
    let mut adapter = String::new();
    let assets = PathBuf::from(REPO).join("assets");
    let mut scenes: Vec<PathBuf> = std::fs::read_dir(assets.join("scenes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".forge.ron"))
        .collect();
    scenes.sort();
    for file in scenes {
        let name = file
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".forge.ron")
            .to_owned();
        let scene = SceneFile {
            assets: assets.clone(),
            file,
        };
        if wanted(&format!("render/{name}")) {
            bench_render(&name, scene, &mut rows, &mut adapter);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("grid_10k.forge.ron");
    std::fs::write(&big, grid(100, 0, 0, 30.0)).unwrap();
    if wanted("render/grid_10k") {
        bench_render(
            "grid_10k",
            SceneFile {
                assets: dir.path().to_owned(),
                file: big,
            },
            &mut rows,
            &mut adapter,
        );
    }
    if !wanted("review/grid_1k") {
        return;
    }

    let (base, head) = (
        dir.path().join("base.forge.ron"),
        dir.path().join("head.forge.ron"),
    );
    // 1,000 cubes (the grid's first 1,000 of 32 x 32) in the base; the head moves 50,
    // removes 20 and turns the sun.
    std::fs::write(&base, grid(32, 0, 24, 30.0)).unwrap();
    std::fs::write(&head, grid(32, 50, 44, 60.0)).unwrap();
    let (mut times, mut parts) = (Vec::new(), [(); 4].map(|()| Vec::new()));
    for _ in 0..RUNS {
        let out = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let run = Command::new(EXE)
            .arg("review")
            .arg(&base)
            .arg(&head)
            .arg("--out")
            .arg(out.path())
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        times.push(started.elapsed().as_secs_f64());
        let stderr = String::from_utf8_lossy(&run.stderr);
        for (part, label) in parts.iter_mut().zip([
            "start-up",
            "load and spawn",
            ", frames",
            "the review's pictures in",
        ]) {
            part.push(seconds(&stderr, label));
        }
        let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
        assert!(
            report.contains("71 entities changed: 51 moved, 20 removed; nothing edited or added"),
            "{report}"
        );
        assert!(report.contains("](./composite.png)"), "{report}");
        let composite = image::open(out.path().join("composite.png")).unwrap();
        assert!(composite.width() > 0);
        if adapter.is_empty() {
            adapter = stderr
                .split("rendered on ")
                .nth(1)
                .and_then(|r| r.split(" (start-up").next())
                .unwrap_or_default()
                .to_owned();
        }
    }
    let review = median(times);
    let [s, l, f, p] = parts.map(median);
    println!(
        "review/grid_1k      1000 entities each side  start-up {s:>6.2} s  load+spawn {l:>6.2} s  frames {f:>6.2} s  pictures {p:>6.2} s  process {review:>6.2} s (target under 10 s)"
    );
    println!("adapter: {adapter}");
}
