//! The version of each scene its live instances stand at ([`AppliedVersions`]): recorded when
//! a scene's first instance is complete, moved on by hot reload.

use bevy_asset::AssetId;
use bevy_ecs::resource::Resource;
use bevy_platform::collections::HashMap;

use crate::runtime::asset::scene::{ForgeScene, SceneVersion};

/// The version each scene's live instances were last brought to, by scene asset.
#[derive(Resource, Default)]
pub(crate) struct AppliedVersions(HashMap<AssetId<ForgeScene>, SceneVersion>);

impl AppliedVersions {
    /// The version the instances of scene `id` stand at, when it has any.
    pub(crate) fn get(&self, id: AssetId<ForgeScene>) -> Option<&SceneVersion> {
        self.0.get(&id)
    }

    /// The instances of scene `id` stand at `version` now.
    pub(crate) fn set(&mut self, id: AssetId<ForgeScene>, version: SceneVersion) {
        self.0.insert(id, version);
    }

    /// Scene `id` is gone.
    pub(crate) fn forget(&mut self, id: AssetId<ForgeScene>) {
        self.0.remove(&id);
    }

    /// Every scene with live instances.
    pub(crate) fn scenes(&self) -> impl Iterator<Item = AssetId<ForgeScene>> + '_ {
        self.0.keys().copied()
    }

    /// Records that the first instance of `scene` (stored under `id`) is complete: its version,
    /// unless instances of it stand at one already.
    pub(super) fn first_instance(&mut self, id: AssetId<ForgeScene>, scene: &ForgeScene) {
        self.0.entry(id).or_insert_with(|| scene.version());
    }
}
