#![doc = include_str!("../README.md")]

// Lets the derive's `::bevy_forge_scene::..` paths resolve inside this crate (unit tests, doctests).
extern crate self as bevy_forge_scene;

#[cfg(feature = "builtins")]
pub mod builtin;
mod custom;
pub mod diagnostic;
pub mod diff;
pub mod expr;
pub mod format;
pub mod loader;
mod plugin;
pub mod project;
pub mod reload;
pub mod schema;
pub mod schema_file;
pub mod spawn;
pub mod validate;

/// Derives [`schema::ForgeComponent`]: see [the `schema` module](schema) for attributes and
/// registration.
pub use bevy_forge_scene_macros::ForgeComponent;
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
pub use schema::{
    ComponentSchema, FieldKind, FieldSchema, ForgeComponent, ForgeSchemas, RegisterForgeComponent,
};
pub use schema_file::{SchemaFile, SchemaFileError};
pub use spawn::{ForgeEntityId, ForgeSceneInstance, ForgeSceneReady, ForgeSceneRoot};
pub use validate::{
    ValidationReport, validate_parsed, validate_parsed_with_schemas, validate_scene,
};

/// The most used items: `use bevy_forge_scene::prelude::*;`.
pub mod prelude {
    pub use crate::diagnostic::{Diagnostic, Severity};
    pub use crate::format::{ComponentData, EntityNode, SceneDoc, Transform};
    pub use crate::project::{AssetIndex, Project};
    pub use crate::schema::{ForgeComponent, ForgeSchemas, RegisterForgeComponent};
    pub use crate::validate::{ValidationReport, validate_parsed, validate_scene};
    pub use crate::{
        ForgeEntityId, ForgeScene, ForgeSceneInstance, ForgeScenePlugin, ForgeSceneReady,
        ForgeSceneReloadFailed, ForgeSceneReloaded, ForgeSceneRoot,
    };
    pub use bevy_forge_scene_macros::ForgeComponent;
}

/// Paths used by the code `#[derive(ForgeComponent)]` generates. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::schema::ForgeComponentRegistration;
    pub use bevy_reflect::TypePath;
    pub use inventory;
}
