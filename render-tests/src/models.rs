//! A headless app that loads glTF models with Bevy's own `GltfPlugin`, for the placed-model
//! tests and the `models` example.

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::io::memory::{Dir, MemoryAssetReader};
use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy_asset::{AssetApp, AssetPlugin};
use bevy_forge_scene::prelude::*;
use bevy_internal::camera::primitives::{Aabb, CubemapFrusta};
use bevy_internal::camera::visibility::{
    CubemapVisibleEntities, InheritedVisibility, ViewVisibility, Visibility,
};
use bevy_internal::gltf::{GltfMaterialName, GltfMeshName, GltfSceneName};
use bevy_internal::light::PointLight;
use bevy_internal::mesh::Mesh3d;

/// An app reading assets from `dir`, with `ForgeScenePlugin` and Bevy's `GltfPlugin` (and the
/// transform, image and mesh plugins it needs), without a renderer. The types a game's
/// `DefaultPlugins` register for reflection (automatically, or in the render plugins) that a
/// glTF scene's entities carry are registered here by hand.
pub fn model_app(dir: Dir) -> App {
    model_app_with(dir, |_| {})
}

/// [`model_app`] with `plugins` adding plugins of their own before `ForgeScenePlugin` (Bevy's
/// `WorldSerializationPlugin` and `ScenePlugin`, for the exported scenes of `tests/export.rs`).
pub fn model_app_with(dir: Dir, plugins: impl FnOnce(&mut App)) -> App {
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: dir.clone() })),
    )
    .add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin::default(),
        bevy_internal::transform::TransformPlugin,
        bevy_internal::image::ImagePlugin::default(),
        bevy_internal::mesh::MeshPlugin,
        bevy_internal::gltf::GltfPlugin::default(),
    ));
    plugins(&mut app);
    app.add_plugins(ForgeScenePlugin)
    .register_type::<Visibility>()
    .register_type::<InheritedVisibility>()
    .register_type::<ViewVisibility>()
    .register_type::<Aabb>()
    .register_type::<CubemapFrusta>()
    .register_type::<CubemapVisibleEntities>()
    .register_type::<Mesh3d>()
    .register_type::<PointLight>()
    .register_type::<GltfMeshName>()
    .register_type::<GltfMaterialName>()
    .register_type::<GltfSceneName>();
    app.finish();
    app.cleanup();
    app
}
