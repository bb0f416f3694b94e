//! The scene asset: bytes to a ready-to-spawn [`ForgeScene`](scene::ForgeScene). The loader
//! ([`loader`]) walks the pipeline and prepares what spawning needs ([`scene`]: built-ins and
//! custom components made ready, the streamed cells planned on first use in [`cell_plan`]),
//! counting how far each load got ([`progress`]); the processor writes cooked twins at build
//! time ([`processor`]) and [`twins`] reads them when the text is missing.
//!
//! On [`values`](crate::runtime::values) only.

pub(crate) mod cell_plan;
pub(crate) mod files;
pub(crate) mod loader;
pub(crate) mod processor;
pub(crate) mod progress;
pub(crate) mod scene;
pub(crate) mod twins;

use std::marker::PhantomData;

use bevy_app::{App, Plugin};
use bevy_asset::{AssetApp, AssetServer};
use bevy_ecs::resource::Resource;

use crate::runtime::values::{builtin, registry};
use loader::ForgeSceneLoader;
use processor::{ForgeSceneProcess, ForgeSceneSaver};
use progress::LoadTracker;
use scene::ForgeScene;

/// Runs `add` on `app` once, as soon as the app has Bevy's asset server: from the `build` of
/// part `P` when `AssetPlugin` came first, else from its `finish`. Without an asset server it
/// adds nothing (`ForgeScenePlugin` says what is missing).
pub(crate) fn once_assets_exist<P: 'static>(app: &mut App, add: impl FnOnce(&mut App)) {
    if app.world().contains_resource::<Added<P>>()
        || !app.world().contains_resource::<AssetServer>()
    {
        return;
    }
    app.insert_resource(Added::<P>(PhantomData));
    add(app);
}

/// Part `P` added what needs the asset server.
#[derive(Resource)]
struct Added<P>(PhantomData<fn() -> P>);

/// The scene asset's part of `ForgeScenePlugin`: the [`ForgeScene`] asset, its loader (with the
/// app's custom component types and schemas, counting loads into the app's [`LoadTracker`]) and
/// processor, and the asset types of its built-ins' sub-assets.
pub(crate) struct SceneAssetPlugin;

impl Plugin for SceneAssetPlugin {
    fn build(&self, app: &mut App) {
        once_assets_exist::<Self>(app, add_asset);
    }

    fn finish(&self, app: &mut App) {
        once_assets_exist::<Self>(app, add_asset);
        if app.world().contains_resource::<AssetServer>() {
            // Sub-assets need their asset types even in a headless app without the render
            // plugins (which, added after this one, have added theirs by now).
            builtin::init_sub_assets(app);
        }
    }
}

fn add_asset(app: &mut App) {
    let (registry, schemas) = registry::setup(app);
    let Some(server) = app.world().get_resource::<AssetServer>().cloned() else {
        return;
    };
    let tracker = LoadTracker::default();
    let files = files::SceneFiles::default();
    app.init_asset::<ForgeScene>()
        .register_asset_loader(
            ForgeSceneLoader::new(server)
                .with_custom_components(registry, schemas)
                .with_tracker(tracker.clone())
                .with_files(files.clone()),
        )
        .insert_resource(tracker)
        .insert_resource(files)
        // Processed mode cooks scenes at build time; otherwise this does nothing.
        .register_asset_processor::<ForgeSceneProcess>(ForgeSceneSaver.into())
        .set_default_asset_processor::<ForgeSceneProcess>("forge.ron");
}
