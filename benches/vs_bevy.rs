//! Our scenes side by side with Bevy's own (`bevy_world_serialization` 0.20.1, `.scn.ron`):
//! `cargo bench --bench vs_bevy`. See BENCHMARKS.md for the method and the latest figures.
//!
//! Same content on both sides: the seeded scene of `support::generate` (names, transforms,
//! hierarchy, `bench::Health` and `bench::Tag`), and for theirs the same world written by Bevy's
//! `DynamicWorld` serializer, generated here and never committed. Groups:
//! - `parse`: text to document (ours `SceneDoc::from_str`, theirs `WorldDeserializer`);
//! - `load`: text to ready-to-spawn asset through the `AssetServer` of a headless app;
//! - `load_spawn`: load and spawn under a root through the app, until the instance is ready;
//! - `spawn`: asset to entities in a fresh `World` (ours `ForgeScene::spawn_into`, theirs
//!   `DynamicWorld::write_to_world` plus attaching its roots, as their spawner does);
//! - `reload`: one transform edited at 10k entities, ours `ForgeScene::changes_since` (the diff
//!   hot reload computes) + `apply_diff` on the live instance, theirs despawn +
//!   `write_to_world` of the instance; `*_app_reparse` variants go through the app with the
//!   re-parse (`AssetServer::reload`, until `ForgeSceneReloaded` / `WorldInstanceReady`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/vs_bevy.rs"]
mod both;
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use bevy_asset::{AssetServer, Assets};
use bevy_ecs::entity::EntityHashMap;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::apply_diff;
use bevy_forge_scene::diff::diff;
use bevy_forge_scene::format::{SceneDoc, Vec3Data};
use bevy_forge_scene::prelude::*;
use bevy_reflect::TypeRegistry;
use bevy_transform::components::Transform;
use bevy_world_serialization::DynamicWorld;
use bevy_world_serialization::serde::WorldDeserializer;
use both::{Health, OursReloaded, Tag, TheirsReady};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde::de::DeserializeSeed;

const SIZES: [usize; 2] = [1_000, 10_000];
/// End to end (the target) also at 100k entities.
const END_TO_END_SIZES: [usize; 3] = [1_000, 10_000, 100_000];

fn deserialize_scn(text: &str, registry: &TypeRegistry, server: &AssetServer) -> DynamicWorld {
    let mut server = server.clone();
    let mut de = ron::de::Deserializer::from_str(text).unwrap();
    WorldDeserializer {
        type_registry: registry,
        load_from_path: &mut server,
    }
    .deserialize(&mut de)
    .unwrap()
}

/// Their spawner's work for one instance: write the world, then parent its roots to `root`.
fn theirs_spawn(
    world: &mut World,
    root: Entity,
    dynamic: &DynamicWorld,
    map: &mut EntityHashMap<Entity>,
) {
    dynamic.write_to_world(world, map).unwrap();
    let orphans: Vec<Entity> = map
        .values()
        .copied()
        .filter(|e| !world.entity(*e).contains::<ChildOf>())
        .collect();
    for e in orphans {
        world.entity_mut(root).add_child(e);
    }
}

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    let (app, _) = both::memory_app();
    let server = app.world().resource::<AssetServer>().clone();
    let registry = app.world().resource::<AppTypeRegistry>().clone();
    for n in SIZES {
        let (forge, scn) = both::texts(n);
        println!(
            "parse/{n}: .forge.ron {} bytes, .scn.ron {} bytes",
            forge.len(),
            scn.len()
        );
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("ours", n), &forge, |b, text| {
            b.iter(|| {
                let parsed = SceneDoc::from_str(text).unwrap();
                assert_eq!(parsed.doc.entities.len(), n);
                parsed
            })
        });
        group.bench_with_input(BenchmarkId::new("theirs", n), &scn, |b, text| {
            let registry = registry.read();
            b.iter(|| {
                let dynamic = deserialize_scn(text, &registry, &server);
                assert_eq!(dynamic.entities.len(), n);
                dynamic
            })
        });
    }
    group.finish();
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    let (mut app, dir) = both::memory_app();
    for n in SIZES {
        let (forge, scn) = both::texts(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("ours", n), |b| {
            b.iter_custom(|iters| {
                both::per_fresh_path(
                    iters,
                    &mut app,
                    &dir,
                    "forge.ron",
                    forge.as_bytes(),
                    |app, p| {
                        let h = both::ours_load(app, p);
                        let scenes = app.world().resource::<Assets<ForgeScene>>();
                        assert_eq!(scenes.get(&h).unwrap().doc().entities.len(), n);
                        h
                    },
                    |_, h| drop(h),
                )
            })
        });
        group.bench_function(BenchmarkId::new("theirs", n), |b| {
            b.iter_custom(|iters| {
                both::per_fresh_path(
                    iters,
                    &mut app,
                    &dir,
                    "scn.ron",
                    scn.as_bytes(),
                    |app, p| {
                        let h = both::theirs_load(app, p);
                        let worlds = app.world().resource::<Assets<DynamicWorld>>();
                        assert_eq!(worlds.get(&h).unwrap().entities.len(), n);
                        h
                    },
                    |_, h| drop(h),
                )
            })
        });
    }
    group.finish();
}

fn load_spawn(c: &mut Criterion) {
    let mut group = c.benchmark_group("load_spawn");
    let (mut app, dir) = both::memory_app();
    for n in END_TO_END_SIZES {
        let (forge, scn) = both::texts(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("ours", n), |b| {
            b.iter_custom(|iters| {
                both::per_fresh_path(
                    iters,
                    &mut app,
                    &dir,
                    "forge.ron",
                    forge.as_bytes(),
                    |app, p| {
                        let (root, h) = both::ours_load_spawn(app, p);
                        let len = app.world().get::<ForgeSceneInstance>(root).unwrap().len();
                        assert_eq!(len, n);
                        (root, h)
                    },
                    |app, (root, h)| {
                        app.world_mut().entity_mut(root).despawn();
                        drop(h);
                    },
                )
            })
        });
        group.bench_function(BenchmarkId::new("theirs", n), |b| {
            b.iter_custom(|iters| {
                both::per_fresh_path(
                    iters,
                    &mut app,
                    &dir,
                    "scn.ron",
                    scn.as_bytes(),
                    |app, p| {
                        let (root, h) = both::theirs_load_spawn(app, p);
                        let world = app.world_mut();
                        let mut q = world.query::<&Health>();
                        assert_eq!(q.iter(world).count(), n);
                        (root, h)
                    },
                    |app, (root, h)| {
                        app.world_mut().entity_mut(root).despawn();
                        drop(h);
                    },
                )
            })
        });
        // Same content on both sides: the same number of entities and the same health total.
        let (r1, h1) = both::ours_load_spawn(&mut app, &{
            dir.insert_asset_text(Path::new("check.forge.ron"), &forge);
            "check.forge.ron".to_owned()
        });
        let ours_sum = both::health_sum(app.world_mut());
        app.world_mut().entity_mut(r1).despawn();
        drop(h1);
        app.update();
        dir.insert_asset_text(Path::new("check.scn.ron"), &scn);
        let (r2, h2) = both::theirs_load_spawn(&mut app, "check.scn.ron");
        let theirs_sum = both::health_sum(app.world_mut());
        assert_eq!(ours_sum, theirs_sum);
        app.world_mut().entity_mut(r2).despawn();
        drop(h2);
        app.update();
    }
    group.finish();
}

fn spawn(c: &mut Criterion) {
    let mut group = c.benchmark_group("spawn");
    let (mut app, dir) = both::memory_app();
    let server = app.world().resource::<AssetServer>().clone();
    let registry = app.world().resource::<AppTypeRegistry>().clone();
    for n in SIZES {
        let (forge, scn) = both::texts(n);
        let path = format!("spawn{n}.forge.ron");
        dir.insert_asset_text(Path::new(&path), &forge);
        let handle = both::ours_load(&mut app, &path);
        let dynamic = deserialize_scn(&scn, &registry.read(), &server);
        group.throughput(Throughput::Elements(n as u64));
        let scenes = app.world().resource::<Assets<ForgeScene>>();
        let scene = scenes.get(&handle).unwrap();
        group.bench_function(BenchmarkId::new("ours", n), |b| {
            b.iter_batched(
                || both::fresh_world(&app),
                |(mut world, root)| {
                    let instance = scene.spawn_into(handle.id(), &mut world, root);
                    assert_eq!(instance.len(), n);
                    (world, instance)
                },
                BatchSize::LargeInput,
            )
        });
        group.bench_function(BenchmarkId::new("theirs", n), |b| {
            b.iter_batched(
                || both::fresh_world(&app),
                |(mut world, root)| {
                    let mut map = EntityHashMap::default();
                    theirs_spawn(&mut world, root, &dynamic, &mut map);
                    assert_eq!(map.len(), n);
                    (world, map)
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// The 10k scene and a copy with the transform of the middle entity moved, as `.forge.ron`.
/// Times `iters` hot reloads through the app: `path` changes to the other of `texts` (`at_second`
/// says which it holds, from call to call), then `AssetServer::reload` and frames until
/// `applied` (a count of reload events) grows. Four untimed frames pass before each: their
/// spawner ignores an asset change that comes within three frames of the one before (a debounce
/// for sub-assets); ours does not mind them.
fn app_reloads(
    iters: u64,
    app: &mut bevy_app::App,
    dir: &bevy_asset::io::memory::Dir,
    path: &str,
    texts: [&String; 2],
    at_second: &mut bool,
    applied: impl Fn(&World) -> usize,
) -> Duration {
    let server = app.world().resource::<AssetServer>().clone();
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        for _ in 0..4 {
            app.update();
        }
        *at_second = !*at_second;
        dir.insert_asset_text(Path::new(path), texts[usize::from(*at_second)]);
        let before = applied(app.world());
        let start = Instant::now();
        server.reload(path.to_owned());
        both::run_until(app, |w| applied(w) > before);
        total += start.elapsed();
    }
    total
}

fn one_transform_apart(n: usize) -> (String, String, u64) {
    let old = support::generate(n, 7);
    let mut new = old.clone();
    let id = old.entities.keys().copied().nth(n / 2).unwrap();
    new.entity_mut(id).unwrap().transform.translation = Vec3Data::new(1.0, 2.0, 3.0);
    (old.to_canonical_string(), new.to_canonical_string(), id)
}

fn reload(c: &mut Criterion) {
    let mut group = c.benchmark_group("reload");
    let n = 10_000usize;
    let (mut app, dir) = both::memory_app();
    let server = app.world().resource::<AssetServer>().clone();
    let registry = app.world().resource::<AppTypeRegistry>().clone();
    let (forge_a, forge_b, edited) = one_transform_apart(n);
    dir.insert_asset_text(Path::new("a.forge.ron"), &forge_a);
    dir.insert_asset_text(Path::new("b.forge.ron"), &forge_b);
    let ha = both::ours_load(&mut app, "a.forge.ron");
    let hb = both::ours_load(&mut app, "b.forge.ron");
    let scn_a = both::scn_text(&app, ha.id());
    let scn_b = both::scn_text(&app, hb.id());
    assert_ne!(scn_a, scn_b);
    let dyn_a = deserialize_scn(&scn_a, &registry.read(), &server);
    let dyn_b = deserialize_scn(&scn_b, &registry.read(), &server);
    group.throughput(Throughput::Elements(n as u64));

    {
        let scenes = app.world().resource::<Assets<ForgeScene>>();
        let (a, b) = (scenes.get(&ha).unwrap(), scenes.get(&hb).unwrap());
        let (mut world, root) = both::fresh_world(&app);
        let mut instance = a.spawn_into(ha.id(), &mut world, root);
        // What one reload touches: exactly the edited entity's Transform, same entities.
        let before: Vec<(Vec<u64>, Entity)> = {
            let mut v: Vec<_> = instance.iter().map(|(p, e)| (p.to_vec(), e)).collect();
            v.sort();
            v
        };
        world.clear_trackers();
        let changes = b.changes_since(a);
        assert_eq!(
            format!("{changes:?}"),
            format!("{:?}", diff(a.doc(), b.doc()))
        );
        let event = apply_diff(&mut world, root, &mut instance, &changes, b);
        assert_eq!(event.changed, [[edited]]);
        assert!(event.added.is_empty() && event.removed.is_empty());
        let changed_transforms = world
            .query_filtered::<Entity, Changed<Transform>>()
            .iter(&world)
            .collect::<Vec<_>>();
        assert_eq!(changed_transforms, vec![instance.entity(edited).unwrap()]);
        let other_changes = world
            .query_filtered::<Entity, Or<(
                Changed<Name>,
                Changed<Health>,
                Changed<Tag>,
                Changed<ChildOf>,
            )>>()
            .iter(&world)
            .count();
        assert_eq!(other_changes, 0);
        let after: Vec<(Vec<u64>, Entity)> = {
            let mut v: Vec<_> = instance.iter().map(|(p, e)| (p.to_vec(), e)).collect();
            v.sort();
            v
        };
        assert_eq!(before, after);
        println!(
            "reload/ours: touched {} entity (1 Transform written, 0 other components, same Entity ids)",
            changed_transforms.len()
        );

        group.bench_function(BenchmarkId::new("ours_diff_apply", n), |bench| {
            bench.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for i in 0..iters {
                    // The world is at `b` after the check above: alternate b -> a -> b ...
                    let (old, new) = if i % 2 == 0 { (b, a) } else { (a, b) };
                    let start = Instant::now();
                    let changes = new.changes_since(old);
                    let event = apply_diff(&mut world, root, &mut instance, &changes, new);
                    total += start.elapsed();
                    assert_eq!(event.changed.len(), 1);
                }
                // Leave the world at `b` for the next sample.
                if iters % 2 == 1 {
                    let changes = b.changes_since(a);
                    apply_diff(&mut world, root, &mut instance, &changes, b);
                }
                total
            })
        });
    }
    {
        let (mut world, root) = both::fresh_world(&app);
        let mut map = EntityHashMap::default();
        theirs_spawn(&mut world, root, &dyn_a, &mut map);
        let mut flip = false;
        group.bench_function(BenchmarkId::new("theirs_respawn", n), |bench| {
            bench.iter(|| {
                flip = !flip;
                let next = if flip { &dyn_b } else { &dyn_a };
                for e in map.values() {
                    if let Ok(e) = world.get_entity_mut(*e) {
                        e.despawn();
                    }
                }
                map.clear();
                theirs_spawn(&mut world, root, next, &mut map);
                assert_eq!(map.len(), n);
            })
        });
    }
    // Through the app, with the re-parse: the file changes, `AssetServer::reload`, frames until
    // the instance is patched (ours) or despawned and written again (theirs).
    dir.insert_asset_text(Path::new("live.forge.ron"), &forge_a);
    let _ours = both::ours_load_spawn(&mut app, "live.forge.ron");
    let mut at_b = false;
    group.bench_function(BenchmarkId::new("ours_app_reparse", n), |bench| {
        let texts = [&forge_a, &forge_b];
        bench.iter_custom(|iters| {
            app_reloads(
                iters,
                &mut app,
                &dir,
                "live.forge.ron",
                texts,
                &mut at_b,
                |w| w.resource::<OursReloaded>().0,
            )
        })
    });
    dir.insert_asset_text(Path::new("live.scn.ron"), &scn_a);
    let _theirs = both::theirs_load_spawn(&mut app, "live.scn.ron");
    let mut at_b = false;
    group.bench_function(BenchmarkId::new("theirs_app_reparse", n), |bench| {
        let texts = [&scn_a, &scn_b];
        bench.iter_custom(|iters| {
            app_reloads(
                iters,
                &mut app,
                &dir,
                "live.scn.ron",
                texts,
                &mut at_b,
                |w| w.resource::<TheirsReady>().0,
            )
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = parse, load, load_spawn, spawn, reload
}
criterion_main!(benches);
