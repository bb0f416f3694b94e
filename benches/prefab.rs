//! Prefabs at scale: a level of 1,000 instances of one 10-entity prefab (11,000 entities with
//! the instance entities), and an edit of one value in the prefab (a torch's light intensity).
//!
//! - `prefab_load_spawn/instances` and `prefab_load_spawn/flat`: load + spawn through the app
//!   from a fresh path, the level as written (instances, the prefab read as a dependency)
//!   against the same world written flat (every entity in one file, ids renumbered), in
//!   entities per second.
//! - `prefab_edit/app_reload`: the whole path a file watcher takes, through the app: the level
//!   is loaded again (its text and the prefab's, read and expanded), diffed against the live
//!   document and patched; timed from `AssetServer::reload` until `ForgeSceneReloaded`.
//! - `prefab_edit/diff_apply`: only diff + patch of the two expanded scenes
//!   (`ForgeScene::changes_since` + `apply_diff`), without re-reading.
//!
//! Before timing, the bench checks that one edit writes exactly 1,000 `PointLight`s (one per
//! instance, by change ticks) and nothing else of the instances' components.
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
use bevy_light::PointLight;
use both::{Health, OursReloaded};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const INSTANCES: usize = 1_000;

fn transform(x: f32) -> String {
    format!(
        "transform: (translation: (x: {x:?}, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0))"
    )
}

/// One prefab entity: id, name, parent, children, components (RON list items).
type Part<'a> = (u64, &'a str, Option<u64>, &'a [u64], String);

/// Entities in the goblin prefab.
const PREFAB_ENTITIES: usize = 10;

/// A sprite of `w` by `h` world units.
fn sprite(w: f32, h: f32) -> String {
    format!(
        "(type: sprite, data: (image: None, color: (r: 0.8, g: 0.1, b: 0.1, a: 1.0), custom_size: Some((x: {w:?}, y: {h:?})), flip_x: false, flip_y: false))"
    )
}

/// A tag component labelled `label`.
fn tag(label: &str) -> String {
    format!(
        "(type: custom, data: (type_path: \"bench::Tag\", fields: [(name: \"label\", expr: \"\\\"{label}\\\"\")]))"
    )
}

/// The goblin prefab, ten entities: a root with `Health` and `Tag`; a torch (point light),
/// hat, arms, shield (sprites), a belt with a pouch (tags), and eyes on the hat (sprites).
fn goblin(intensity: f32) -> String {
    let health = "(type: custom, data: (type_path: \"bench::Health\", fields: [(name: \"value\", expr: \"10\"), (name: \"max\", expr: \"10\")]))";
    let light = format!(
        "(type: point_light, data: (color: (r: 1.0, g: 0.7, b: 0.3, a: 1.0), intensity: {intensity:?}, range: 8.0, shadows: false))"
    );
    let parts: [Part; PREFAB_ENTITIES] = [
        (
            1,
            "Goblin",
            None,
            &[2, 3, 4, 5, 6, 7],
            format!("{health}, {}", tag("goblin")),
        ),
        (2, "Torch", Some(1), &[], light),
        (3, "Hat", Some(1), &[9, 10], sprite(16.0, 8.0)),
        (4, "Arm L", Some(1), &[], sprite(4.0, 12.0)),
        (5, "Arm R", Some(1), &[], sprite(4.0, 12.0)),
        (6, "Shield", Some(1), &[], sprite(10.0, 14.0)),
        (7, "Belt", Some(1), &[8], tag("belt")),
        (8, "Pouch", Some(7), &[], tag("pouch")),
        (9, "Eye L", Some(3), &[], sprite(2.0, 2.0)),
        (10, "Eye R", Some(3), &[], sprite(2.0, 2.0)),
    ];
    let mut entities = String::new();
    for (id, name, parent, children, components) in parts {
        let parent = parent.map_or("None".to_owned(), |p| format!("Some({p})"));
        let children: Vec<String> = children.iter().map(u64::to_string).collect();
        entities.push_str(&format!(
            "  {id}: (id: {id}, name: \"{name}\", parent: {parent}, children: [{}], {}, components: [{components}]),\n",
            children.join(", "),
            transform(id as f32)
        ));
    }
    format!(
        "(format_version: 1, name: \"Goblin\", entities: {{\n{entities}}}, roots: [1], next_id: {})",
        PREFAB_ENTITIES + 1
    )
}

/// A level of `n` instances of the goblin, every tenth with its health overridden.
fn level(n: usize) -> String {
    let mut entities = String::new();
    for i in 1..=n as u64 {
        let overrides = if i % 10 == 0 {
            r#"(target: [1], set: [(type: custom, data: (type_path: "bench::Health", fields: [(name: "value", expr: "50")]))])"#
        } else {
            ""
        };
        entities.push_str(&format!(
            "  {i}: (id: {i}, name: \"Goblin {i}\", parent: None, children: [], {}, components: [], instance: Some((scene: \"prefabs/goblin.forge.ron\", overrides: [{overrides}]))),\n",
            transform(i as f32 * 3.0)
        ));
    }
    let roots: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    format!(
        "(format_version: 1, name: \"Camp\", entities: {{\n{entities}}}, roots: [{}], next_id: {})",
        roots.join(", "),
        n + 1
    )
}

/// How many `T` of the live instance changed after `since`.
fn changed<T: Component>(world: &mut World, since: bevy_ecs::change_detection::Tick) -> usize {
    let now = world.read_change_tick();
    let mut q = world.query::<bevy_ecs::change_detection::Ref<T>>();
    q.iter(world)
        .filter(|r| r.last_changed().is_newer_than(since, now))
        .count()
}

fn prefab_edit(c: &mut Criterion) {
    let (mut app, dir) = both::memory_app();
    dir.insert_asset_text(Path::new("prefabs/goblin.forge.ron"), &goblin(400.0));
    dir.insert_asset_text(Path::new("camp.forge.ron"), &level(INSTANCES));
    let server = app.world().resource::<AssetServer>().clone();
    let handle = server.load::<ForgeScene>("camp.forge.ron");
    let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
    both::run_until(&mut app, |w| w.get::<ForgeSceneInstance>(root).is_some());
    assert_eq!(
        app.world().get::<ForgeSceneInstance>(root).unwrap().len(),
        INSTANCES * (PREFAB_ENTITIES + 1)
    );

    // One edit through the app writes exactly one `PointLight` per instance.
    let mut intensity = 400.0;
    let mut edit = |app: &mut bevy_app::App| -> Duration {
        for _ in 0..4 {
            app.update();
        }
        intensity = if intensity == 400.0 { 500.0 } else { 400.0 };
        dir.insert_asset_text(Path::new("prefabs/goblin.forge.ron"), &goblin(intensity));
        let before = app.world().resource::<OursReloaded>().0;
        let start = Instant::now();
        server.reload("camp.forge.ron");
        both::run_until(app, |w| w.resource::<OursReloaded>().0 > before);
        start.elapsed()
    };
    let since = app.world_mut().change_tick();
    edit(&mut app);
    let lights = changed::<PointLight>(app.world_mut(), since);
    let healths = changed::<Health>(app.world_mut(), since);
    assert_eq!(
        (lights, healths),
        (INSTANCES, 0),
        "one light per instance written"
    );

    let mut group = c.benchmark_group("prefab_edit");
    group.sample_size(20);
    group.bench_function(BenchmarkId::new("app_reload", INSTANCES), |b| {
        b.iter_custom(|iters| (0..iters).map(|_| edit(&mut app)).sum())
    });

    // Diff + patch only, between the two loaded versions of the level.
    let scenes = app.world().resource::<Assets<ForgeScene>>();
    let a_text = goblin(400.0);
    let b_text = goblin(500.0);
    let _ = scenes;
    let (mut app_b, dir_b) = both::memory_app();
    dir_b.insert_asset_text(Path::new("prefabs/goblin.forge.ron"), &a_text);
    dir_b.insert_asset_text(Path::new("a.forge.ron"), &level(INSTANCES));
    let a = both::ours_load(&mut app_b, "a.forge.ron");
    dir_b.insert_asset_text(Path::new("prefabs/goblin.forge.ron"), &b_text);
    dir_b.insert_asset_text(Path::new("b.forge.ron"), &level(INSTANCES));
    let b = both::ours_load(&mut app_b, "b.forge.ron");
    let scenes = app_b.world().resource::<Assets<ForgeScene>>();
    let (sa, sb) = (scenes.get(&a).unwrap(), scenes.get(&b).unwrap());
    let (mut world, root) = both::fresh_world(&app_b);
    let mut instance = sa.spawn_into(a.id(), &mut world, root);
    let mut at_b = false;
    group.bench_function(BenchmarkId::new("diff_apply", INSTANCES), |bench| {
        bench.iter(|| {
            let (from, to) = if at_b { (sb, sa) } else { (sa, sb) };
            let changes = to.changes_since(from);
            let event = apply_diff(&mut world, root, &mut instance, &changes, to);
            assert_eq!(event.changed.len(), INSTANCES);
            at_b = !at_b;
        })
    });
    group.finish();
}

/// The expansion of `scene` as one plain document: every entity it spawns, in order, with ids
/// `1..` and no instances.
fn flat(scene: &ForgeScene) -> bevy_forge_scene::format::SceneDoc {
    let doc = &scene.expanded().expect("the level places prefabs").doc;
    let ids: std::collections::HashMap<u64, u64> = doc
        .entities
        .keys()
        .enumerate()
        .map(|(i, k)| (*k, i as u64 + 1))
        .collect();
    let mut out = bevy_forge_scene::format::SceneDoc::new("Camp, flat");
    for (key, node) in &doc.entities {
        let mut node = bevy_forge_scene::format::EntityNode::clone(node);
        node.id = ids[key];
        node.parent = node.parent.map(|p| ids[&p]);
        node.children = node.children.iter().map(|c| ids[c]).collect();
        node.instance = None;
        out.entities.insert(node.id, node.into());
    }
    out.roots = doc.roots.iter().map(|r| ids[r]).collect();
    out.next_id = ids.len() as u64 + 1;
    out
}

fn prefab_load_spawn(c: &mut Criterion) {
    let (mut app, dir) = both::memory_app();
    dir.insert_asset_text(Path::new("prefabs/goblin.forge.ron"), &goblin(400.0));
    let level_text = level(INSTANCES);
    dir.insert_asset_text(Path::new("camp.forge.ron"), &level_text);
    let handle = both::ours_load(&mut app, "camp.forge.ron");
    let flat_text = {
        let scenes = app.world().resource::<Assets<ForgeScene>>();
        flat(scenes.get(&handle).unwrap()).to_canonical_string()
    };
    drop(handle);
    let n = INSTANCES * (PREFAB_ENTITIES + 1);
    let mut group = c.benchmark_group("prefab_load_spawn");
    group.sample_size(10);
    group.throughput(criterion::Throughput::Elements(n as u64));
    for (name, text) in [("instances", &level_text), ("flat", &flat_text)] {
        group.bench_function(BenchmarkId::new(name, INSTANCES), |b| {
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
    group.finish();
}

criterion_group!(benches, prefab_load_spawn, prefab_edit);
criterion_main!(benches);
