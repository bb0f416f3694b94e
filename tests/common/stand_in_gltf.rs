//! A stand-in for Bevy's glTF loader (whose `GltfPlugin` needs the render stack's Rust
//! version), for tests and benches of placed models: it reads a `.gltf` file's JSON into the
//! `WorldAsset` shape Bevy's loader gives each scene (`Scene0`, ...): a root entity named after
//! the glTF scene, node entities named as the nodes (`GltfNode{index}` when unnamed) with
//! their translation, and a light node's `PointLight` on an unnamed child, as Bevy spawns it.
#![allow(dead_code)]

use bevy_app::App;
use bevy_asset::io::Reader;
use bevy_asset::{Asset, AssetApp, AssetLoader, LoadContext};
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_light::PointLight;
use bevy_reflect::TypePath;
use bevy_transform::components::Transform;
use bevy_world_serialization::WorldAsset;

/// What the stand-in loader gives as the file's own asset (Bevy's is `Gltf`).
#[derive(Asset, TypePath)]
pub struct StandInGltf;

/// Loads `.gltf` files as [`StandInGltf`] with labelled `WorldAsset`s.
#[derive(TypePath)]
pub struct StandInGltfLoader;

impl AssetLoader for StandInGltfLoader {
    type Asset = StandInGltf;
    type Settings = ();
    type Error = std::io::Error;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<StandInGltf, std::io::Error> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        let json: serde_json::Value = serde_json::from_slice(&bytes)?;
        for (s, scene) in json["scenes"].as_array().into_iter().flatten().enumerate() {
            let mut world = World::new();
            let name = scene["name"]
                .as_str()
                .map_or(format!("Scene{s}"), str::to_owned);
            let root = world.spawn((Name::new(name), Transform::default())).id();
            let mut stack: Vec<(u64, Entity)> = scene["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .rev()
                .map(|n| (n.as_u64().unwrap(), root))
                .collect();
            while let Some((index, parent)) = stack.pop() {
                let node = &json["nodes"][index as usize];
                let name = node["name"]
                    .as_str()
                    .map_or(format!("GltfNode{index}"), str::to_owned);
                let t = &node["translation"];
                let at = |i: usize| t[i].as_f64().unwrap_or(0.0) as f32;
                let transform = Transform::from_xyz(at(0), at(1), at(2));
                let e = world.spawn((Name::new(name), transform, ChildOf(parent)));
                let id = e.id();
                if node["extensions"]["KHR_lights_punctual"].is_object() {
                    // As Bevy's loader: the light is an unnamed child of its node.
                    let light = PointLight {
                        intensity: 800.0,
                        range: 7.0,
                        ..Default::default()
                    };
                    world.spawn((light, ChildOf(id)));
                }
                for child in node["children"].as_array().into_iter().flatten().rev() {
                    stack.push((child.as_u64().unwrap(), id));
                }
            }
            load_context.add_labeled_asset(format!("Scene{s}"), WorldAsset::new(world));
        }
        Ok(StandInGltf)
    }

    fn extensions(&self) -> &[&str] {
        &["gltf"]
    }
}

/// Adds the stand-in loader to `app`, and registers `PointLight` for reflection (a game's
/// plugins do), so a light node's light is written with the model.
pub fn add_to(app: &mut App) -> &mut App {
    app.register_asset_loader(StandInGltfLoader)
        .init_asset::<StandInGltf>()
        .register_type::<PointLight>()
}
