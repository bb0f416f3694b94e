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
//! Before timing, the bench checks that both sides spawn the same number of entities, and that a
//! paint spawns one entity and writes no `Transform` or `Sprite` of any other cell (change
//! ticks). The text sizes of both sides are printed.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/vs_bevy.rs"]
mod both;
mod support;

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

const SIDE: usize = 100;

fn transform(x: f32) -> String {
    format!(
        "transform: (translation: (x: {x:?}, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0))"
    )
}

fn sprite(w: f32, h: f32) -> String {
    format!(
        "(type: sprite, data: (image: None, color: (r: 0.2, g: 0.7, b: 0.2, a: 1.0), custom_size: Some((x: {w:?}, y: {h:?})), flip_x: false, flip_y: false))"
    )
}

fn tag(label: &str) -> String {
    format!(
        "(type: custom, data: (type_path: \"bench::Tag\", fields: [(name: \"label\", expr: \"\\\"{label}\\\"\")]))"
    )
}

/// A prefab of `n` entities: a root with a sprite and a tag, and `n - 1` children with sprites.
fn prefab(n: u64) -> String {
    let mut entities = String::new();
    for id in 1..=n {
        let (parent, children, components) = if id == 1 {
            let children: Vec<String> = (2..=n).map(|c| c.to_string()).collect();
            (
                "None".to_owned(),
                children.join(", "),
                format!("{}, {}", sprite(16.0, 16.0), tag("tile")),
            )
        } else {
            ("Some(1)".to_owned(), String::new(), sprite(2.0, 2.0))
        };
        entities.push_str(&format!(
            "  {id}: (id: {id}, name: \"Part {id}\", parent: {parent}, children: [{children}], {}, components: [{components}]),\n",
            transform(id as f32 - 1.0)
        ));
    }
    format!(
        "(format_version: 1, name: \"Tile\", entities: {{\n{entities}}}, roots: [1], next_id: {})",
        n + 1
    )
}

/// The level: entity 1 "Ground" with layer 2 under it, `rows` of `t` (the prefab) and `.`.
fn level(rows: &[String]) -> String {
    let rows: Vec<String> = rows.iter().map(|r| format!("      \"{r}\",\n")).collect();
    format!(
        "(\n  format_version: 1,\n  name: \"Field\",\n  entities: {{\n    1: (id: 1, name: \"Ground\", parent: None, children: [], {}, components: []),\n  }},\n  roots: [1],\n  next_id: 3,\n  layers: [\n    (\n      id: 2,\n      name: \"Tiles\",\n      parent: Some(1),\n      plane: xy,\n      cell_size: (x: 16.0, y: 16.0),\n      origin: (x: 0.0, y: 0.0, z: 0.0),\n      palette: {{\n        \"t\": \"prefabs/tile.forge.ron\",\n      }},\n      rows: [\n{}      ],\n    ),\n  ],\n)\n",
        transform(0.0),
        rows.concat()
    )
}

fn full_rows() -> Vec<String> {
    vec!["t".repeat(SIDE); SIDE]
}

/// The expansion of `scene` as one plain document, ids `1..`.
fn flat(scene: &ForgeScene) -> bevy_forge_scene::format::SceneDoc {
    let doc = &scene.expanded().expect("the level places prefabs").doc;
    let ids: std::collections::HashMap<u64, u64> = doc
        .entities
        .keys()
        .enumerate()
        .map(|(i, k)| (*k, i as u64 + 1))
        .collect();
    let mut out = bevy_forge_scene::format::SceneDoc::new("Field, flat");
    for (key, node) in &doc.entities {
        let mut node = node.clone();
        node.id = ids[key];
        node.parent = node.parent.map(|p| ids[&p]);
        node.children = node.children.iter().map(|c| ids[c]).collect();
        out.entities.insert(node.id, node);
    }
    out.roots = doc.roots.iter().map(|r| ids[r]).collect();
    out.next_id = ids.len() as u64 + 1;
    out
}

fn tiles_load_spawn(c: &mut Criterion) {
    let mut group = c.benchmark_group("tiles_load_spawn");
    group.sample_size(10);
    for per_cell in [1u64, 10] {
        let (mut app, dir) = both::memory_app();
        dir.insert_asset_text(Path::new("prefabs/tile.forge.ron"), &prefab(per_cell));
        let level_text = level(&full_rows());
        dir.insert_asset_text(Path::new("field.forge.ron"), &level_text);
        let handle = both::ours_load(&mut app, "field.forge.ron");
        let flat_text = {
            let scenes = app.world().resource::<Assets<ForgeScene>>();
            flat(scenes.get(&handle).unwrap()).to_canonical_string()
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
    group.finish();
}

criterion_group!(benches, tiles_load_spawn, tiles_paint);
criterion_main!(benches);
