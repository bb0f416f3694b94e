//! Both sides of `benches/vs_bevy.rs` and `benches/peak_memory.rs`: the bench components
//! (registered with our scenes and with Bevy's), headless apps, and the `.scn.ron` text of the
//! same world that a generated `.forge.ron` describes.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::io::memory::{Dir, MemoryAssetReader};
use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy_asset::{AssetApp, AssetId, AssetPlugin, AssetServer, Assets, Handle};
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::AppTypeRegistry;
use bevy_forge_scene::prelude::*;
use bevy_reflect::Reflect;
use bevy_reflect::std_traits::ReflectDefault;
use bevy_transform::components::Transform;
use bevy_world_serialization::{
    DynamicWorld, DynamicWorldBuilder, DynamicWorldRoot, WorldFilter, WorldInstanceReady,
    WorldSerializationPlugin,
};

/// Hit points; `bench::Health` on both sides.
#[derive(Component, Reflect, Default, Clone, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "bench"]
#[forge(type_path = "bench::Health")]
pub struct Health {
    /// Current.
    pub value: u32,
    /// Maximum.
    pub max: u32,
}

/// A label; `bench::Tag` on both sides.
#[derive(Component, Reflect, Default, Clone, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "bench"]
#[forge(type_path = "bench::Tag")]
pub struct Tag {
    /// The label.
    pub label: String,
}

/// Counts `WorldInstanceReady` events (theirs) seen by the app.
#[derive(Resource, Default)]
pub struct TheirsReady(pub usize);

/// Counts `ForgeSceneReloaded` events (ours) seen by the app.
#[derive(Resource, Default)]
pub struct OursReloaded(pub usize);

/// Registers the types both sides need.
fn register(app: &mut App) {
    app.register_type::<Name>()
        .register_type::<Transform>()
        .register_type::<ChildOf>()
        .register_type::<Children>()
        .register_type::<Health>()
        .register_type::<Tag>()
        .register_forge_component::<Health>()
        .register_forge_component::<Tag>()
        .init_resource::<TheirsReady>()
        .init_resource::<OursReloaded>();
    app.add_observer(|_: On<WorldInstanceReady>, mut r: ResMut<TheirsReady>| r.0 += 1);
    app.add_observer(|_: On<ForgeSceneReloaded>, mut r: ResMut<OursReloaded>| r.0 += 1);
}

fn plugins(app: &mut App, asset_plugin: AssetPlugin) {
    app.add_plugins((
        TaskPoolPlugin::default(),
        asset_plugin,
        ForgeScenePlugin,
        WorldSerializationPlugin,
    ));
    register(app);
    app.finish();
    app.cleanup();
}

/// A headless app with both scene systems, reading assets from memory.
pub fn memory_app() -> (App, Dir) {
    let dir = Dir::default();
    let reader_dir = dir.clone();
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || {
            Box::new(MemoryAssetReader {
                root: reader_dir.clone(),
            })
        }),
    );
    plugins(
        &mut app,
        AssetPlugin {
            watch_for_changes_override: Some(false),
            use_asset_processor_override: Some(false),
            ..Default::default()
        },
    );
    (app, dir)
}

/// A headless app with both scene systems, reading assets from the directory `root`.
pub fn file_app(root: &Path) -> App {
    let mut app = App::new();
    plugins(
        &mut app,
        AssetPlugin {
            file_path: root.to_string_lossy().into_owned(),
            watch_for_changes_override: Some(false),
            use_asset_processor_override: Some(false),
            ..Default::default()
        },
    );
    app
}

/// Updates `app` until `done` holds (for at most two minutes). Loads run on the task pools'
/// threads; between frames the main thread rests 100 us, as a game's frame loop waits for its
/// next frame, instead of spinning on a core the loads need (a spinning loop takes one of this
/// host's two cores from them).
pub fn run_until(app: &mut App, mut done: impl FnMut(&mut World) -> bool) {
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(120) {
        app.update();
        if done(app.world_mut()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
    panic!("condition not reached in {:?}", started.elapsed());
}

/// Ours, end to end: load `path` and spawn it under a new root; returns the root and handle.
pub fn ours_load_spawn(app: &mut App, path: &str) -> (Entity, Handle<ForgeScene>) {
    let handle: Handle<ForgeScene> = app.world().resource::<AssetServer>().load(path.to_owned());
    let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
    run_until(app, |w| w.get::<ForgeSceneInstance>(root).is_some());
    (root, handle)
}

/// Theirs, end to end: load `path` and spawn it under a new root; returns the root and handle.
pub fn theirs_load_spawn(app: &mut App, path: &str) -> (Entity, Handle<DynamicWorld>) {
    let handle: Handle<DynamicWorld> = app.world().resource::<AssetServer>().load(path.to_owned());
    let before = app.world().resource::<TheirsReady>().0;
    let root = app.world_mut().spawn(DynamicWorldRoot(handle.clone())).id();
    run_until(app, |w| w.resource::<TheirsReady>().0 > before);
    (root, handle)
}

/// Loads `path` as a [`ForgeScene`] (without spawning it) and returns its handle.
pub fn ours_load(app: &mut App, path: &str) -> Handle<ForgeScene> {
    let handle: Handle<ForgeScene> = app.world().resource::<AssetServer>().load(path.to_owned());
    let id = handle.id();
    run_until(app, |w| w.resource::<Assets<ForgeScene>>().contains(id));
    handle
}

/// Loads `path` as a [`DynamicWorld`] (without spawning it) and returns its handle.
pub fn theirs_load(app: &mut App, path: &str) -> Handle<DynamicWorld> {
    let handle: Handle<DynamicWorld> = app.world().resource::<AssetServer>().load(path.to_owned());
    let id = handle.id();
    run_until(app, |w| w.resource::<Assets<DynamicWorld>>().contains(id));
    handle
}

/// A fresh world sharing `app`'s type registry, with one root entity.
pub fn fresh_world(app: &App) -> (World, Entity) {
    let registry = app.world().resource::<AppTypeRegistry>().clone();
    let mut world = World::new();
    world.insert_resource(registry);
    let root = world.spawn_empty().id();
    (world, root)
}

/// The `.scn.ron` text of the world that `scene` spawns: every entity with its `Name`,
/// `Transform`, `Health`, `Tag` and hierarchy (`ChildOf`, `Children`), the scene's roots without
/// a parent. Written by Bevy's own `DynamicWorld` serializer.
pub fn scn_text(app: &App, id: AssetId<ForgeScene>) -> String {
    let scene = app
        .world()
        .resource::<Assets<ForgeScene>>()
        .get(id)
        .unwrap();
    let (mut ours, root) = fresh_world(app);
    let instance = scene.spawn_into(id, &mut ours, root);
    let (mut theirs, _) = fresh_world(app);
    let mut map: HashMap<u64, Entity> = HashMap::new();
    for (file_id, node) in &scene.doc().entities {
        let e = instance.entity(*file_id).unwrap();
        let name = ours.get::<Name>(e).unwrap().clone();
        let transform = *ours.get::<Transform>(e).unwrap();
        let health = ours.get::<Health>(e).unwrap().clone();
        let tag = ours.get::<Tag>(e).unwrap().clone();
        let mut spawned = theirs.spawn((name, transform, health, tag));
        if let Some(parent) = node.parent {
            spawned.insert(ChildOf(map[&parent]));
        }
        map.insert(*file_id, spawned.id());
    }
    let registry = app.world().resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let entities: Vec<Entity> = scene.doc().entities.keys().map(|k| map[k]).collect();
    let dynamic = DynamicWorldBuilder::from_world(&theirs, &registry)
        .with_component_filter(
            WorldFilter::deny_all()
                .allow::<Name>()
                .allow::<Transform>()
                .allow::<ChildOf>()
                .allow::<Children>()
                .allow::<Health>()
                .allow::<Tag>(),
        )
        .with_resource_filter(WorldFilter::deny_all())
        .extract_entities(entities.into_iter())
        .build();
    assert_eq!(dynamic.entities.len(), scene.doc().entities.len());
    dynamic.serialize(&registry).unwrap()
}

/// Generates the scene of `n` entities (seed 7) and returns `(forge text, scn text)`, the second
/// written from the first through a throwaway app.
pub fn texts(n: usize) -> (String, String) {
    let forge = crate::support::generate(n, 7).to_canonical_string();
    let (mut app, dir) = memory_app();
    dir.insert_asset_text(Path::new("gen.forge.ron"), &forge);
    let handle = ours_load(&mut app, "gen.forge.ron");
    let scn = scn_text(&app, handle.id());
    (forge, scn)
}

/// The total of `Health::value` over a world, to check both sides spawned the same content.
pub fn health_sum(world: &mut World) -> u64 {
    let mut q = world.query::<&Health>();
    q.iter(world).map(|h| u64::from(h.value)).sum()
}

/// Times `run(app, path)` once per iteration on a fresh path (extension `ext`) holding `bytes`;
/// `cleanup` (untimed) drops what the run produced.
pub fn per_fresh_path<T>(
    iters: u64,
    app: &mut App,
    dir: &Dir,
    ext: &str,
    bytes: &[u8],
    mut run: impl FnMut(&mut App, &str) -> T,
    mut cleanup: impl FnMut(&mut App, T),
) -> std::time::Duration {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut total = std::time::Duration::ZERO;
    for _ in 0..iters {
        let i = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = format!("s{i}.{ext}");
        dir.insert_asset(Path::new(&path), bytes.to_vec());
        let start = std::time::Instant::now();
        let out = run(app, &path);
        total += start.elapsed();
        cleanup(app, out);
        dir.remove_asset(Path::new(&path));
        app.update();
        app.update();
    }
    total
}
