//! What the tests of the incremental check share: the prefab files their scenes place, what
//! a check in part and a whole check must agree on, and what a loaded scene spawns.

use std::collections::HashMap;

use bevy_asset::{Assets, Handle};
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy_forge_scene::ForgeScene;
use bevy_forge_scene::pipeline::{Checked, PrefabFiles};

use super::harness::Harness;

/// The prefab files the scenes place.
pub fn prefab_files() -> HashMap<&'static str, String> {
    let lamp = r##"(format_version: 1, name: "Lamp", entities: {
    1: (id: 1, name: "Lamp", parent: None, children: [2],
        transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 800.0, range: 20.0, shadows: false)),
                     (type: custom, data: (type_path: "game::Glow", fields: [(name: "level", expr: "3")]))]),
    2: (id: 2, name: "Bulb", parent: Some(1), children: [],
        transform: (translation: (x: 0, y: 1, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: custom, data: (type_path: "game::Link", fields: [(name: "to", expr: "#1")]))]),
}, roots: [1], next_id: 3)"##;
    let post = r#"(format_version: 1, name: "Post", entities: {
    1: (id: 1, name: "Post", parent: None, children: [2],
        transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: visibility, data: visible)]),
    2: (id: 2, name: "Lamp on post", parent: Some(1), children: [],
        transform: (translation: (x: 0, y: 3, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [],
        instance: Some((scene: "prefabs/lamp.forge.ron", overrides: [(target: [1], name: Some("Post lamp"))]))),
}, roots: [1], next_id: 3)"#;
    let tile = r#"(format_version: 1, name: "Tile", entities: {
    1: (id: 1, name: "Tile", parent: None, children: [],
        transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
        components: [(type: custom, data: (type_path: "game::Tag", fields: [(name: "label", expr: "\"grass\"")]))]),
}, roots: [1], next_id: 2)"#;
    HashMap::from([
        ("prefabs/lamp.forge.ron", lamp.to_owned()),
        ("prefabs/post.forge.ron", post.to_owned()),
        ("prefabs/tile.forge.ron", tile.to_owned()),
    ])
}

/// The prefab files of [`prefab_files`], read from memory.
pub fn files() -> PrefabFiles<impl FnMut(&str) -> Result<Vec<u8>, String>> {
    let texts = prefab_files();
    PrefabFiles::new(move |p: &str| {
        texts
            .get(p)
            .map(|t| t.clone().into_bytes())
            .ok_or_else(|| format!("`{p}` does not exist"))
    })
}

/// Everything the two checks must agree on.
pub fn assert_same(again: &Checked, whole: &Checked, what: &str) {
    assert_eq!(
        again.diagnostics, whole.diagnostics,
        "diagnostics after {what}"
    );
    assert_eq!(again.expanded, whole.expanded, "expansion after {what}");
    if let (Some(a), Some(b)) = (&again.expanded, &whole.expanded) {
        assert_eq!(
            a.doc.entities.keys().collect::<Vec<_>>(),
            b.doc.entities.keys().collect::<Vec<_>>(),
            "the expansion's order after {what}"
        );
    }
    assert_eq!(
        again.source.parsed, whole.source.parsed,
        "read after {what}"
    );
}

/// Every entity `handle` spawns into a fresh world, in spawn order: each reflected
/// component written out.
pub fn spawned(h: &Harness, handle: &Handle<ForgeScene>) -> Vec<String> {
    let registry = h.world().resource::<AppTypeRegistry>().clone();
    let scenes = h.world().resource::<Assets<ForgeScene>>();
    let scene = scenes.get(handle).expect("loaded");
    let mut world = World::new();
    world.insert_resource(registry.clone());
    let root = world.spawn_empty().id();
    let instance = scene.spawn_into(handle.id(), &mut world, root);
    let registry = registry.read();
    let mut entities: Vec<Entity> = instance.iter().map(|(_, e)| e).collect();
    entities.sort();
    // The scene's expansion, in its order, as the asset gives it.
    let order = scene
        .expanded()
        .map(|e| format!("{:?}", e.doc.entities.keys().collect::<Vec<_>>()));
    order
        .into_iter()
        .chain(entities.into_iter().map(|e| {
            let entity = world.entity(e);
            let mut components: Vec<String> = registry
                .iter()
                .filter_map(|r| {
                    let reflect = r.data::<ReflectComponent>()?.reflect(entity)?;
                    Some(format!("{} = {:?}", r.type_info().type_path(), reflect))
                })
                .collect();
            components.sort();
            format!("{e:?}: {}", components.join("; "))
        }))
        .collect()
}
