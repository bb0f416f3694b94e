//! Placed glTF models at scale: a street of 1,000 instances of one 20-node model, load + spawn
//! through the app from a fresh path, against the same world written out as flat entities
//! (every node an entity of the file, with its name and transform), in the same run.
//!
//! - `model_load_spawn/instances`: the street as written; done when every instance has its
//!   nodes (`ForgeModelNodes`). The model file is loaded once and shared by every instance,
//!   as Bevy shares one glTF asset; each instance's nodes are written from it, with one
//!   override applied per instance (a renamed node).
//! - `model_load_spawn/flat`: the same entities (instance entity, model root, 20 nodes) as
//!   one file.
//!
//! The model is read by the tests' stand-in for Bevy's glTF loader (the real `GltfPlugin`
//! needs the render stack's Rust version); what it gives is the `WorldAsset` shape Bevy's
//! loader gives. Needs the `gltf` feature: `cargo bench --bench models --features gltf`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/vs_bevy.rs"]
mod both;
#[path = "../tests/common/stand_in_gltf.rs"]
mod stand_in_gltf;
mod support;

use std::fmt::Write;
use std::path::Path;

use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeModelNodes;
use bevy_forge_scene::prelude::*;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const INSTANCES: usize = 1_000;
const NODES: usize = 20;

/// A glTF file with one scene of `NODES` nodes: four roots of four children each
/// (`Wing0` > `Room0_0` ...), no meshes.
fn model() -> String {
    let mut nodes = Vec::new();
    let mut roots = Vec::new();
    for w in 0..4 {
        let children: Vec<String> = (0..4).map(|r| (nodes.len() + 1 + r).to_string()).collect();
        roots.push(nodes.len().to_string());
        nodes.push(format!(
            r#"{{"name": "Wing{w}", "translation": [{w}, 0, 0], "children": [{}]}}"#,
            children.join(", ")
        ));
        for r in 0..4 {
            nodes.push(format!(
                r#"{{"name": "Room{w}_{r}", "translation": [0, {r}, 0]}}"#
            ));
        }
    }
    assert_eq!(nodes.len(), NODES);
    format!(
        r#"{{"asset": {{"version": "2.0"}}, "scene": 0, "scenes": [{{"name": "Block", "nodes": [{}]}}], "nodes": [{}]}}"#,
        roots.join(", "),
        nodes.join(", ")
    )
}

fn transform(x: f32, y: f32) -> String {
    format!(
        "transform: (translation: (x: {x}, y: {y}, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))"
    )
}

/// The street: `INSTANCES` entities placing the model, each renaming one room.
fn street() -> String {
    let mut entities = String::new();
    for i in 1..=INSTANCES {
        writeln!(
            entities,
            r#"    {i}: (id: {i}, name: "Block {i}", parent: None, children: [], {}, components: [], instance: Some((model: "models/block.gltf#Scene0", overrides: [(target: ["Wing1", "Room1_2"], name: Some("Shop {i}"))]))),"#,
            transform(i as f32 * 10.0, 0.0)
        )
        .unwrap();
    }
    let roots: Vec<String> = (1..=INSTANCES).map(|i| i.to_string()).collect();
    format!(
        "(format_version: 1, name: \"Street\", entities: {{\n{entities}}}, roots: [{}], next_id: {})",
        roots.join(", "),
        INSTANCES + 1
    )
}

/// The same world as flat entities: per block, the block, the model's root and its 20 nodes.
fn flat() -> String {
    let mut entities = String::new();
    let mut roots = Vec::new();
    let mut id = 1;
    let entity = |entities: &mut String,
                  name: &str,
                  parent: Option<u64>,
                  children: &[u64],
                  x: f32,
                  y: f32,
                  id: u64| {
        let parent = parent.map_or("None".to_owned(), |p| format!("Some({p})"));
        let children: Vec<String> = children.iter().map(u64::to_string).collect();
        writeln!(
            entities,
            r#"    {id}: (id: {id}, name: "{name}", parent: {parent}, children: [{}], {}, components: []),"#,
            children.join(", "),
            transform(x, y)
        )
        .unwrap();
    };
    for i in 1..=INSTANCES {
        let block = id;
        let scene_root = id + 1;
        roots.push(block.to_string());
        entity(
            &mut entities,
            &format!("Block {i}"),
            None,
            &[scene_root],
            i as f32 * 10.0,
            0.0,
            block,
        );
        let wings: Vec<u64> = (0..4).map(|w| scene_root + 1 + w * 5).collect();
        entity(
            &mut entities,
            "Block",
            Some(block),
            &wings,
            0.0,
            0.0,
            scene_root,
        );
        for (w, &wing) in wings.iter().enumerate() {
            let rooms: Vec<u64> = (1..=4).map(|r| wing + r).collect();
            entity(
                &mut entities,
                &format!("Wing{w}"),
                Some(scene_root),
                &rooms,
                w as f32,
                0.0,
                wing,
            );
            for (r, &room) in rooms.iter().enumerate() {
                let name = if (w, r) == (1, 2) {
                    format!("Shop {i}")
                } else {
                    format!("Room{w}_{r}")
                };
                entity(&mut entities, &name, Some(wing), &[], 0.0, r as f32, room);
            }
        }
        id = scene_root + 1 + NODES as u64;
    }
    format!(
        "(format_version: 1, name: \"Street, flat\", entities: {{\n{entities}}}, roots: [{}], next_id: {id})",
        roots.join(", ")
    )
}

fn models_written(world: &mut World) -> usize {
    world.query::<&ForgeModelNodes>().iter(world).count()
}

fn model_load_spawn(c: &mut Criterion) {
    let (mut app, dir) = both::memory_app();
    stand_in_gltf::add_to(&mut app);
    dir.insert_asset_text(Path::new("models/block.gltf"), &model());
    let street = street();
    let flat = flat();
    // Per block: the block, the model's root and its nodes.
    let per_block = NODES + 2;
    let mut group = c.benchmark_group("model_load_spawn");
    group.sample_size(10);
    group.throughput(criterion::Throughput::Elements(
        (INSTANCES * per_block) as u64,
    ));
    group.bench_function(BenchmarkId::new("instances", INSTANCES), |b| {
        b.iter_custom(|iters| {
            both::per_fresh_path(
                iters,
                &mut app,
                &dir,
                "forge.ron",
                street.as_bytes(),
                |app, path| {
                    let out = both::ours_load_spawn(app, path);
                    both::run_until(app, |w| models_written(w) == INSTANCES);
                    out
                },
                |app, (root, h)| {
                    let world = app.world_mut();
                    let nodes: usize = world
                        .query::<&ForgeModelNodes>()
                        .iter(world)
                        .map(ForgeModelNodes::len)
                        .sum();
                    assert_eq!(
                        nodes + INSTANCES,
                        INSTANCES * per_block,
                        "both spawn the same world"
                    );
                    world.entity_mut(root).despawn();
                    drop(h);
                },
            )
        })
    });
    group.bench_function(BenchmarkId::new("flat", INSTANCES), |b| {
        b.iter_custom(|iters| {
            both::per_fresh_path(
                iters,
                &mut app,
                &dir,
                "forge.ron",
                flat.as_bytes(),
                both::ours_load_spawn,
                |app, (root, h)| {
                    let len = app.world().get::<ForgeSceneInstance>(root).unwrap().len();
                    assert_eq!(len, INSTANCES * per_block, "both spawn the same world");
                    app.world_mut().entity_mut(root).despawn();
                    drop(h);
                },
            )
        })
    });
    group.finish();
}

criterion_group!(benches, model_load_spawn);
criterion_main!(benches);
