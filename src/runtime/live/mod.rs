//! A live instance and its files: hot reload ([`reload`]: a changed scene asset diffed against
//! the version its instances stand at and applied to each through the instance core, the diff
//! of a paint in [`painted`]), saving an instance back to a document ([`capture`]), and the
//! live link from entities to their lines and live values back into them ([`link`]).
//!
//! On the instance core, the asset and the values; never on streaming (what streaming holds
//! back, it says through the core's `HeldBack`).

pub mod capture;
pub mod link;
mod painted;
pub(crate) mod reload;

use bevy_app::{App, Plugin, PreUpdate};
use bevy_ecs::schedule::IntoScheduleConfigs;

use crate::runtime::asset::once_assets_exist;
use crate::runtime::instance::ForgeSceneSystems;

/// The live part of `ForgeScenePlugin`: hot reload of changed scene assets, in
/// [`ForgeSceneSystems::Reload`].
pub(crate) struct LivePlugin;

impl Plugin for LivePlugin {
    fn build(&self, app: &mut App) {
        once_assets_exist::<Self>(app, add_systems);
    }

    fn finish(&self, app: &mut App) {
        once_assets_exist::<Self>(app, add_systems);
    }
}

fn add_systems(app: &mut App) {
    app.add_plugins(link::WritePlugin);
    app.add_systems(
        PreUpdate,
        reload::reload_scenes.in_set(ForgeSceneSystems::Reload),
    );
}
