//! A headless app that loads glTF models with Bevy's own `GltfPlugin`, for the placed-model
//! tests and the `models` example.

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::io::memory::{Dir, MemoryAssetReader};
use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy_asset::{AssetApp, AssetPlugin};
use bevy_forge_scene::prelude::*;
use bevy_internal::camera::primitives::{Aabb, CubemapFrusta, Frustum};
use bevy_internal::camera::visibility::{
    CubemapVisibleEntities, InheritedVisibility, ViewVisibility, Visibility, VisibleMeshEntities,
};
use bevy_internal::camera::{Camera, Camera3d, Projection};
use bevy_internal::gltf::{GltfExtras, GltfMaterialName, GltfMeshName, GltfSceneName};
use bevy_internal::light::{PointLight, SpotLight};
use bevy_internal::mesh::Mesh3d;

/// An app reading assets from `dir`, with `ForgeScenePlugin` and Bevy's `GltfPlugin` (and the
/// transform, image and mesh plugins it needs), without a renderer. The types a game's
/// `DefaultPlugins` register for reflection (automatically, or in the render plugins) that a
/// glTF scene's entities carry are registered here by hand.
pub fn model_app(dir: Dir) -> App {
    model_app_with(dir, |_| {})
}

/// [`model_app`] with `plugins` adding plugins of their own before `ForgeScenePlugin` (Bevy's
/// `WorldSerializationPlugin` and `ScenePlugin`, for the exported scenes of
/// `tests/testsuite/export.rs`).
pub fn model_app_with(dir: Dir, plugins: impl FnOnce(&mut App)) -> App {
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: dir.clone() })),
    )
    .add_plugins((TaskPoolPlugin::default(), AssetPlugin::default()));
    add_model_plugins(&mut app, plugins);
    app
}

/// An app as [`model_app`] reading its assets from the directory `assets` on disk, watched for
/// changes by Bevy's file watcher (the `file_watcher` feature of `bevy_asset`, which this
/// package's tests turn on): a file changed there is reloaded as in a game under development.
pub fn model_app_on_disk(assets: &std::path::Path) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: assets.to_string_lossy().into_owned(),
            watch_for_changes_override: Some(true),
            ..Default::default()
        },
    ));
    add_model_plugins(&mut app, |_| {});
    app
}

/// Bevy's transform, image, mesh and glTF plugins, `plugins`, `ForgeScenePlugin`, and the types
/// a game's `DefaultPlugins` register that a glTF scene's entities carry; then the app is
/// finished.
fn add_model_plugins(app: &mut App, plugins: impl FnOnce(&mut App)) {
    app.add_plugins((
        bevy_internal::transform::TransformPlugin,
        bevy_internal::image::ImagePlugin::default(),
        bevy_internal::mesh::MeshPlugin,
        bevy_internal::gltf::GltfPlugin::default(),
    ));
    plugins(app);
    app.add_plugins(ForgeScenePlugin)
        .register_type::<Visibility>()
        .register_type::<InheritedVisibility>()
        .register_type::<ViewVisibility>()
        .register_type::<Aabb>()
        .register_type::<CubemapFrusta>()
        .register_type::<CubemapVisibleEntities>()
        .register_type::<Mesh3d>()
        .register_type::<PointLight>()
        .register_type::<SpotLight>()
        .register_type::<Frustum>()
        .register_type::<VisibleMeshEntities>()
        .register_type::<Camera>()
        .register_type::<Camera3d>()
        .register_type::<Projection>()
        .register_type::<GltfExtras>()
        .register_type::<GltfMeshName>()
        .register_type::<GltfMaterialName>()
        .register_type::<GltfSceneName>();
    app.finish();
    app.cleanup();
}
