//! The cooked binary twin against the text it is cooked from: `cargo bench --bench cook`.
//!
//! Same content as `vs_bevy` (the seeded scenes of `support::generate`). Groups:
//! - `read/text_parse_validate/<n>`: `SceneDoc::from_str` + `validate_parsed`, what a text
//!   load does before building values; `read/cooked_decode/<n>`: `CookedScene::decode`
//!   (header, checksum, body to document); `read/validate/<n>`: `validate_parsed` alone, which
//!   a cooked load runs on the decoded document (dropping documents is not timed);
//! - `load_spawn/text/<n>` and `load_spawn/cooked/<n>`: through the `AssetServer` of a headless
//!   app, from a fresh path until the `ForgeSceneInstance` exists (the cooked file has no stamp,
//!   layout version 3: it is validated and prepared as text is); `load_spawn/cooked_stamped/<n>`:
//!   the same file stamped for the bench app's schemas (what `forge cook --schema` writes), which
//!   the loader trusts: decoded, custom components built, spawned, without the document rules.
//!
//! - `floor/bevy_spawn/<n>`: the same entities spawned by plain Bevy from values in memory, in
//!   the same kind of app: no scene crate, nothing read or checked. A cooked load + spawn takes
//!   at least this plus `read/cooked_decode`. `floor/bevy_spawn_batch/<n>`: the same through
//!   Bevy's `spawn_batch` and `insert_batch`, to compare.
//!
//! Before timing, it prints the sizes of the three forms (ours as text, ours cooked, Bevy's
//! `.scn.ron`) and checks that both loads spawn the same number of entities.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/vs_bevy.rs"]
mod both;
mod support;

use std::time::Duration;

use bevy_forge_scene::cook::CookedScene;
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::validate::validate_parsed;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const SIZES: [usize; 2] = [10_000, 100_000];

fn cooked_bytes(text: &str) -> Vec<u8> {
    CookedScene {
        source: "bench.forge.ron".to_owned(),
        doc: SceneDoc::from_str(text).unwrap().doc,
        prefabs: Vec::new(),
    }
    .encode()
}

fn read(c: &mut Criterion) {
    // The decoder shares a large file's chunks with the app's async compute pool, as in a game;
    // a process without one (the command line) decodes on one thread.
    bevy_tasks::AsyncComputeTaskPool::get_or_init(bevy_tasks::TaskPool::new);
    let mut group = c.benchmark_group("read");
    for n in SIZES {
        let (text, scn) = both::texts(n);
        let bytes = cooked_bytes(&text);
        println!(
            "{n} entities: .forge.ron {} bytes, .forge.bin {} bytes, .scn.ron {} bytes",
            text.len(),
            bytes.len(),
            scn.len()
        );
        group.throughput(Throughput::Elements(n as u64));
        // Dropping the documents is not timed (`iter_with_large_drop`), on either side.
        group.bench_with_input(BenchmarkId::new("text_parse_validate", n), &text, |b, t| {
            b.iter_with_large_drop(|| {
                let parsed = SceneDoc::from_str(t).unwrap();
                let report = validate_parsed(&parsed, None);
                assert!(!report.has_errors());
                (parsed, report)
            })
        });
        // Validation alone (the cooked load runs it on the decoded document), for the split.
        let decoded = CookedScene::decode(&bytes).unwrap().into_parts().0;
        group.bench_with_input(BenchmarkId::new("validate", n), &decoded, |b, parsed| {
            b.iter_with_large_drop(|| {
                let report = validate_parsed(parsed, None);
                assert!(!report.has_errors());
                report
            })
        });
        group.bench_with_input(BenchmarkId::new("cooked_decode", n), &bytes, |b, bytes| {
            b.iter_with_large_drop(|| {
                let scene = CookedScene::decode(bytes).unwrap();
                assert_eq!(scene.doc.entities.len(), n);
                scene
            })
        });
    }
    group.finish();
}

/// Loads and spawns `bytes` from a fresh path `iters` times, checking `n` entities spawned;
/// the total time.
fn load_spawn_fresh(
    iters: u64,
    app: &mut bevy_app::App,
    dir: &bevy_asset::io::memory::Dir,
    ext: &str,
    bytes: &[u8],
    n: usize,
) -> Duration {
    both::per_fresh_path(
        iters,
        app,
        dir,
        ext,
        bytes,
        both::ours_load_spawn,
        |app, (root, handle)| {
            assert_eq!(
                app.world().get::<ForgeSceneInstance>(root).unwrap().len(),
                n
            );
            app.world_mut().entity_mut(root).despawn();
            drop(handle);
        },
    )
}

fn load_spawn(c: &mut Criterion) {
    let mut group = c.benchmark_group("load_spawn");
    let (mut app, dir) = both::memory_app();
    for n in SIZES {
        let (text, _) = both::texts(n);
        let bytes = cooked_bytes(&text);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("text", n), |b| {
            b.iter_custom(|iters| {
                load_spawn_fresh(iters, &mut app, &dir, "forge.ron", text.as_bytes(), n)
            })
        });
        group.bench_function(BenchmarkId::new("cooked", n), |b| {
            b.iter_custom(|iters| load_spawn_fresh(iters, &mut app, &dir, "forge.bin", &bytes, n))
        });
        let schemas = app.world().resource::<ForgeSchemas>().to_schema_file();
        let stamp = bevy_forge_scene::cook::CookStamp::new(Some(&schemas));
        let stamped = CookedScene::decode(&bytes).unwrap().encode_stamped(&stamp);
        group.bench_function(BenchmarkId::new("cooked_stamped", n), |b| {
            b.iter_custom(|iters| load_spawn_fresh(iters, &mut app, &dir, "forge.bin", &stamped, n))
        });
    }
    group.finish();
}

/// One entity of the bench scene as plain Bevy values: what any loader must end up spawning.
struct Plain {
    name: String,
    transform: bevy_transform::components::Transform,
    /// Position of the parent in the list (parents come first); `None` for a root.
    parent: Option<usize>,
    health: both::Health,
    tag: both::Tag,
}

/// The bench scene of `n` entities as plain values, in file order (parents before children).
fn plain(n: usize) -> Vec<Plain> {
    let (text, _) = both::texts(n);
    let doc = SceneDoc::from_str(&text).unwrap().doc;
    let field = |c: &bevy_forge_scene::format::CustomComponent, name: &str| {
        c.fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.expr.trim_matches('"').to_owned())
            .unwrap()
    };
    doc.entities
        .values()
        .map(|node| {
            let custom = |path: &str| {
                node.components
                    .iter()
                    .find_map(|c| match c {
                        bevy_forge_scene::format::ComponentData::Custom(c)
                            if c.type_path == path =>
                        {
                            Some(c.clone())
                        }
                        _ => None,
                    })
                    .unwrap()
            };
            let (health, tag) = (custom("bench::Health"), custom("bench::Tag"));
            let t = &node.transform;
            Plain {
                name: node.name.to_string(),
                transform: bevy_transform::components::Transform {
                    translation: t.translation.into(),
                    rotation: t.rotation_quat(),
                    scale: t.scale.into(),
                },
                parent: node.parent.map(|p| doc.entities.get_index_of(&p).unwrap()),
                health: both::Health {
                    value: field(&health, "value").parse().unwrap(),
                    max: field(&health, "max").parse().unwrap(),
                },
                tag: both::Tag {
                    label: field(&tag, "label"),
                },
            }
        })
        .collect()
}

/// Runs `spawn` (which spawns the bench entities under the root it is given and returns them)
/// `iters` times into `app`'s world, each under a fresh root despawned afterwards; the time
/// spent in `spawn` alone.
fn time_spawns(
    app: &mut bevy_app::App,
    iters: u64,
    n: usize,
    mut spawn: impl FnMut(
        &mut bevy_ecs::world::World,
        bevy_ecs::entity::Entity,
    ) -> Vec<bevy_ecs::entity::Entity>,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let world = app.world_mut();
        let root = world.spawn_empty().id();
        let start = std::time::Instant::now();
        let spawned = spawn(world, root);
        total += start.elapsed();
        assert_eq!(spawned.len(), n);
        world.entity_mut(root).despawn();
        app.update();
    }
    total
}

/// The floor under any load + spawn: the same entities spawned by plain Bevy, from values
/// already in memory (nothing read, checked or built), into the same app's world, one entity at
/// a time as a spawner walking a tree does: `Name`, `Transform`, `ChildOf` and `Health` in one
/// bundle, then `Tag`. The cooked load + spawn cannot take less than this plus its decode.
fn floor(c: &mut Criterion) {
    use bevy_ecs::hierarchy::ChildOf;
    use bevy_ecs::name::Name;
    let mut group = c.benchmark_group("floor");
    let (mut app, _dir) = both::memory_app();
    for n in SIZES {
        let entities = plain(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("bevy_spawn", n), |b| {
            b.iter_custom(|iters| {
                time_spawns(&mut app, iters, n, |world, root| {
                    let mut spawned = Vec::with_capacity(entities.len());
                    for e in &entities {
                        let parent = e.parent.map_or(root, |p| spawned[p]);
                        let mut entity = world.spawn((
                            Name::new(e.name.clone()),
                            e.transform,
                            ChildOf(parent),
                            e.health.clone(),
                        ));
                        entity.insert(e.tag.clone());
                        spawned.push(entity.id());
                    }
                    spawned
                })
            })
        });
        // Bevy's batch APIs on the same entities: one `spawn_batch` of the common bundle (each
        // entity's parent read from what the batch spawned before it), then one `insert_batch`
        // of `Tag`. Kept to show they are no faster way down (slower here: BENCHMARKS.md).
        group.bench_function(BenchmarkId::new("bevy_spawn_batch", n), |b| {
            b.iter_custom(|iters| {
                time_spawns(&mut app, iters, n, |world, root| {
                    let spawned = std::cell::RefCell::new(Vec::with_capacity(entities.len()));
                    let bundles = entities.iter().map(|e| {
                        let parent = e.parent.map_or(root, |p| spawned.borrow()[p]);
                        let name = Name::new(e.name.clone());
                        (name, e.transform, ChildOf(parent), e.health.clone())
                    });
                    for entity in world.spawn_batch(bundles) {
                        spawned.borrow_mut().push(entity);
                    }
                    let spawned = spawned.into_inner();
                    let tags = spawned.iter().zip(&entities);
                    world.insert_batch(tags.map(|(entity, e)| (*entity, e.tag.clone())));
                    spawned
                })
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = read, load_spawn, floor
}
criterion_main!(benches);
