#![doc = include_str!("../README.md")]

pub mod diagnostic;
pub mod format;
pub mod project;
pub mod validate;

pub use diagnostic::{Diagnostic, Severity};
pub use format::{
    ComponentData, EntityNode, FORMAT_VERSION, ParsedScene, ReadError, SceneDoc, SourceMap,
    Transform,
};
pub use project::{AssetIndex, Project};
pub use validate::{ValidationReport, validate_parsed, validate_scene};

/// The most used items: `use bevy_forge_scene::prelude::*;`.
pub mod prelude {
    pub use crate::diagnostic::{Diagnostic, Severity};
    pub use crate::format::{ComponentData, EntityNode, SceneDoc, Transform};
    pub use crate::project::{AssetIndex, Project};
    pub use crate::validate::{ValidationReport, validate_parsed, validate_scene};
}
