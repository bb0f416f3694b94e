//! The Garden scene in a window, with Bevy's default plugins and the real renderer.
//!
//! ```sh
//! cd render-tests && cargo run --example garden --ignore-rust-version
//! ```
//!
//! Needs a display and a GPU (or a software Vulkan driver). It lives in `render-tests/` because
//! the render stack declares Rust 1.97.1; `.ci/run` builds it with `--ignore-rust-version`.
//! The scene comes from the repository's `assets/scenes/garden.forge.ron`.

use bevy_forge_scene::prelude::*;
use bevy_internal::DefaultPlugins;
use bevy_internal::app::{App, Startup};
use bevy_internal::asset::{AssetPlugin, AssetServer};
use bevy_internal::camera::Camera3d;
use bevy_internal::ecs::prelude::*;
use bevy_internal::math::Vec3;
use bevy_internal::prelude::PluginGroup;
use bevy_internal::transform::components::Transform;

fn main() {
    let assets = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets");
    App::new()
        .add_plugins((
            DefaultPlugins.set(AssetPlugin { file_path: assets.into(), ..Default::default() }),
            ForgeScenePlugin,
        ))
        .add_systems(Startup, setup)
        .run();
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    // The Garden scene has a light and meshes but no camera: add one looking at it.
    commands.spawn((Camera3d::default(), Transform::from_xyz(-10.0, 9.0, 14.0).looking_at(Vec3::ZERO, Vec3::Y)));
    commands.spawn(ForgeSceneRoot(assets.load("scenes/garden.forge.ron")));
}
