#![doc = include_str!("../README.md")]

#[cfg(feature = "builtins")]
pub mod builtin;
pub mod diagnostic;
pub mod diff;
pub mod format;
pub mod loader;
mod plugin;
pub mod project;
pub mod reload;
pub mod spawn;
pub mod validate;

pub use diagnostic::{Diagnostic, Severity};
pub use diff::{SceneDiff, diff};
pub use format::{
    ComponentData, EntityNode, FORMAT_VERSION, ParsedScene, ReadError, SceneDoc, SourceMap,
    Transform,
};
pub use loader::{ForgeScene, ForgeSceneLoadError, ForgeSceneLoader, ForgeSceneLoaderSettings};
pub use plugin::ForgeScenePlugin;
pub use project::{AssetIndex, Project};
pub use reload::{ForgeSceneReloadFailed, ForgeSceneReloaded};
pub use spawn::{ForgeEntityId, ForgeSceneInstance, ForgeSceneReady, ForgeSceneRoot};
pub use validate::{ValidationReport, validate_parsed, validate_scene};

/// The most used items: `use bevy_forge_scene::prelude::*;`.
pub mod prelude {
    pub use crate::diagnostic::{Diagnostic, Severity};
    pub use crate::format::{ComponentData, EntityNode, SceneDoc, Transform};
    pub use crate::project::{AssetIndex, Project};
    pub use crate::validate::{ValidationReport, validate_parsed, validate_scene};
    pub use crate::{
        ForgeEntityId, ForgeScene, ForgeSceneInstance, ForgeScenePlugin, ForgeSceneReady,
        ForgeSceneReloadFailed, ForgeSceneReloaded, ForgeSceneRoot,
    };
}
