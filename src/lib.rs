#![doc = include_str!("../README.md")]

#[cfg(feature = "builtins")]
pub mod builtin;
pub mod format;
pub mod loader;
mod plugin;
pub mod project;
pub mod spawn;

pub use format::{
    ComponentData, EntityNode, FORMAT_VERSION, ParsedScene, ReadError, SceneDoc, SourceMap,
    Transform,
};
pub use loader::{ForgeScene, ForgeSceneLoadError, ForgeSceneLoader, ForgeSceneLoaderSettings};
pub use plugin::ForgeScenePlugin;
pub use project::{AssetIndex, Project};
pub use spawn::{ForgeEntityId, ForgeSceneInstance, ForgeSceneReady, ForgeSceneRoot};

/// The most used items: `use bevy_forge_scene::prelude::*;`.
pub mod prelude {
    pub use crate::format::{ComponentData, EntityNode, SceneDoc, Transform};
    pub use crate::project::{AssetIndex, Project};
    pub use crate::{
        ForgeEntityId, ForgeScene, ForgeSceneInstance, ForgeScenePlugin, ForgeSceneReady,
        ForgeSceneRoot,
    };
}

/// The errors that stop a scene from loading: broken forest rules and asset paths that break the
/// format's rules, each with its position.
pub(crate) fn validate_for_load(parsed: &ParsedScene) -> Vec<loader::LoadProblem> {
    let mut problems = Vec::new();
    for p in parsed.doc.check_integrity() {
        let position = p
            .entity()
            .and_then(|id| parsed.source_map.entity_field(id, p.field()))
            .or_else(|| parsed.source_map.top_field(p.field()));
        problems.push(loader::LoadProblem {
            position,
            entity: p.entity(),
            message: p.to_string(),
        });
    }
    problems
}
