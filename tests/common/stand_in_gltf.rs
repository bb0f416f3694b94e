//! A stand-in for Bevy's glTF loader (whose `GltfPlugin` needs the render stack's Rust
//! version), for tests and benches of placed models: it reads a `.gltf` file's JSON into the
//! `WorldAsset` shape Bevy's loader gives each scene (`Scene0`, ...): a root entity named after
//! the glTF scene, node entities named as the nodes (`GltfNode{index}` when unnamed) with
//! their translation, a light node's light (`PointLight` or `SpotLight`, its colour, intensity
//! and range converted as Bevy 0.20.1 converts them) on a child entity named after the light
//! (unnamed when the light has no name), and a camera node's `Camera3d` on the node itself, the
//! file's first camera active, as `bevy_gltf`'s `load_node` spawns them. Mesh primitives and
//! `extras` are left out (Bevy's own loader, in `render-tests/`, has them).
#![allow(dead_code)]

use bevy_app::App;
use bevy_asset::io::Reader;
use bevy_asset::{Asset, AssetApp, AssetLoader, Handle, LoadContext};
use bevy_camera::{Camera, Camera3d};
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_light::{PointLight, SpotLight};
use bevy_reflect::TypePath;
use bevy_transform::components::Transform;
use bevy_world_serialization::WorldAsset;

/// What the stand-in loader gives as the file's own asset (Bevy's is `Gltf`): like `Gltf`, it
/// holds its scenes, so they stay loaded while it does.
#[derive(Asset, TypePath)]
pub struct StandInGltf {
    #[dependency]
    pub scenes: Vec<Handle<WorldAsset>>,
}

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
        *reads()
            .lock()
            .unwrap()
            .entry(load_context.path().to_string())
            .or_default() += 1;
        let json: serde_json::Value = serde_json::from_slice(&bytes)?;
        let lights = &json["extensions"]["KHR_lights_punctual"]["lights"];
        let mut scenes = Vec::new();
        // As Bevy's loader: one flag over the file's scenes, the first camera is active.
        let mut active_camera_found = false;
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
                let mut e = world.spawn((Name::new(name), transform, ChildOf(parent)));
                if node["camera"].is_u64() {
                    e.insert((
                        Camera3d::default(),
                        Camera {
                            is_active: !active_camera_found,
                            ..Default::default()
                        },
                    ));
                    active_camera_found = true;
                }
                let id = e.id();
                if let Some(l) = node["extensions"]["KHR_lights_punctual"]["light"].as_u64() {
                    // As Bevy's loader: the light is a child of its node, named after the
                    // light; candela times 4π lumens, the range 20 when the file has none.
                    let light = &lights[l as usize];
                    let intensity = light["intensity"].as_f64().unwrap_or(1.0) as f32
                        * 4.0
                        * std::f32::consts::PI;
                    let range = light["range"].as_f64().map_or(20.0, |r| r as f32);
                    let c = |i: usize| light["color"][i].as_f64().unwrap_or(1.0) as f32;
                    let color = bevy_color::Color::srgb(c(0), c(1), c(2));
                    let mut light_entity = world.spawn(ChildOf(id));
                    if light["type"].as_str() == Some("spot") {
                        light_entity.insert(SpotLight {
                            color,
                            intensity,
                            range,
                            ..Default::default()
                        });
                    } else {
                        light_entity.insert(PointLight {
                            color,
                            intensity,
                            range,
                            ..Default::default()
                        });
                    }
                    if let Some(name) = light["name"].as_str() {
                        light_entity.insert(Name::new(name.to_owned()));
                    }
                }
                for child in node["children"].as_array().into_iter().flatten().rev() {
                    stack.push((child.as_u64().unwrap(), id));
                }
            }
            scenes
                .push(load_context.add_labeled_asset(format!("Scene{s}"), WorldAsset::new(world)));
        }
        Ok(StandInGltf { scenes })
    }

    fn extensions(&self) -> &[&str] {
        &["gltf"]
    }
}

/// How many times the stand-in loader has read each file (by asset path), in this test binary.
pub fn reads() -> &'static std::sync::Mutex<std::collections::HashMap<String, usize>> {
    static READS: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, usize>>> =
        std::sync::OnceLock::new();
    READS.get_or_init(Default::default)
}

/// Adds the stand-in loader to `app`, and registers the lights and cameras for reflection (a
/// game's plugins do), so a light node's light and a camera node's camera are written with the
/// model.
pub fn add_to(app: &mut App) -> &mut App {
    app.register_asset_loader(StandInGltfLoader)
        .init_asset::<StandInGltf>()
        .register_type::<PointLight>()
        .register_type::<SpotLight>()
        .register_type::<Camera>()
        .register_type::<Camera3d>()
}
