#![doc = include_str!("../README.md")]

pub mod format;
pub mod project;

pub use format::{
    ComponentData, EntityNode, FORMAT_VERSION, ParsedScene, ReadError, SceneDoc, SourceMap,
    Transform,
};
pub use project::{AssetIndex, Project};

/// The most used items: `use bevy_forge_scene::prelude::*;`.
pub mod prelude {
    pub use crate::format::{ComponentData, EntityNode, SceneDoc, Transform};
    pub use crate::project::{AssetIndex, Project};
}
