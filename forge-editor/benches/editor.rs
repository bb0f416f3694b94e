//! What edit mode costs a frame at 10,000 entities (a 100 x 100 grid of sprites), in an app
//! without a renderer (`Headless::without_rendering`: the main world's work, picking and the
//! overlay included, no drawing):
//!
//! - `frame/off` and `frame/on_idle`: a frame with edit mode off, and on with one entity
//!   selected and the pointer still: the difference is the plugin's systems;
//! - `frame/on_pointer_moving`: the pointer moving over the grid each frame: the difference
//!   from `on_idle` is picking under the pointer (Bevy's sprite backend and the hover map);
//! - `drag_end/keep`: the frame in which a drag of one sprite's X handle ends and is kept in
//!   the 10,000-entity file (checked, its write handed to the IO task pool), then
//!   `drag_end/next_frames`: the frames after it until the file is on disk, and 4 more (the
//!   reload).
#![allow(clippy::expect_used)]

use std::time::{Duration, Instant};

use bevy_forge_scene_editor::ForgeEditorPlugin;
use bevy_forge_scene_editor::headless::Headless;
use bevy_internal::ecs::prelude::*;
use bevy_internal::input::keyboard::KeyCode;
use bevy_internal::math::Vec2;
use criterion::{Criterion, criterion_group, criterion_main};

const SIDE: u64 = 100;
const SCENE: &str = "scenes/grid.forge.ron";

/// A 2D scene: a camera and SIDE x SIDE small sprites, 4 units apart.
fn grid_scene() -> String {
    let mut s = String::from("(\n  format_version: 1,\n  name: \"Grid\",\n  entities: {\n");
    s.push_str("    1: (id: 1, name: \"Camera\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 10), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(type: camera2d)], locked: false),\n");
    let mut roots = vec!["1".to_owned()];
    for i in 0..SIDE * SIDE {
        let id = i + 2;
        let x = (i % SIDE) as f32 * 4.0 - 200.0;
        let y = (i / SIDE) as f32 * 4.0 - 200.0;
        s.push_str(&format!(
            "    {id}: (id: {id}, name: \"Cell {i}\", parent: None, children: [], transform: (translation: (x: {x}, y: {y}, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(type: sprite, data: (image: None, color: (r: 0.5, g: 0.6, b: 0.7, a: 1), custom_size: Some((x: 3, y: 3)), flip_x: false, flip_y: false))], locked: false),\n"
        ));
        roots.push(id.to_string());
    }
    s.push_str(&format!(
        "  }},\n  roots: [{}],\n  next_id: {},\n)\n",
        roots.join(", "),
        SIDE * SIDE + 2
    ));
    s
}

struct Setup {
    h: Headless,
    _dir: tempfile::TempDir,
    cell: Entity,
}

fn setup(edit_mode: bool) -> Setup {
    let dir = tempfile::tempdir().expect("temporary folder");
    let file = dir.path().join(SCENE);
    std::fs::create_dir_all(file.parent().expect("a folder")).expect("scenes folder");
    std::fs::write(&file, grid_scene()).expect("scene written");
    let mut h = Headless::without_rendering(dir.path(), 800, 800, ForgeEditorPlugin::default());
    let root = h.load(SCENE);
    // The cell in the middle of the grid.
    let middle = SIDE * (SIDE / 2) + SIDE / 2 + 2;
    let cell = h.entity(root, &[middle]);
    if edit_mode {
        h.tap(KeyCode::F2);
        let at = h.screen_of(cell).expect("the cell is in view");
        h.click(at);
        h.frames(4);
    }
    Setup { h, _dir: dir, cell }
}

fn frames(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    let mut off = setup(false);
    group.bench_function("off", |b| b.iter(|| off.h.frame()));
    drop(off);
    let mut on = setup(true);
    group.bench_function("on_idle", |b| b.iter(|| on.h.frame()));
    let at = on.h.screen_of(on.cell).expect("in view");
    let mut flip = false;
    group.bench_function("on_pointer_moving", |b| {
        b.iter(|| {
            flip = !flip;
            let d = if flip { 37.0 } else { -41.0 };
            on.h.move_to(at + Vec2::new(d, d * 0.5));
        })
    });
    group.finish();
}

fn drag_end(c: &mut Criterion) {
    let mut group = c.benchmark_group("drag_end");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    let mut s = setup(true);
    let mut right = true;
    // Each sample: a drag of the selected cell's X handle; only the frame of the release (the
    // keep) is timed, then the frames after it until the write is done and the scene reloaded.
    let mut drag = |s: &mut Setup, timed_release: bool| -> Duration {
        let centre = s.h.screen_of(s.cell).expect("in view");
        let from = centre + Vec2::new(50.0, 0.0);
        right = !right;
        let to = from + Vec2::new(if right { 8.0 } else { -8.0 }, 0.0);
        s.h.move_to(from);
        s.h.press();
        s.h.move_to(to);
        let started = Instant::now();
        s.h.release();
        let release = started.elapsed();
        let started = Instant::now();
        let written = s.h.wait_for_writes(600, 4);
        assert!(written, "the kept file was not written within 600 frames");
        let after = started.elapsed();
        if timed_release { release } else { after }
    };
    group.bench_function("keep", |b| {
        b.iter_custom(|n| (0..n).map(|_| drag(&mut s, true)).sum())
    });
    group.bench_function("next_frames", |b| {
        b.iter_custom(|n| (0..n).map(|_| drag(&mut s, false)).sum())
    });
    group.finish();
}

criterion_group!(benches, frames, drag_end);
criterion_main!(benches);
