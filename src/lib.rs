#![doc = include_str!("../README.md")]

// Lets the derive's `::bevy_forge_scene::..` paths resolve inside this crate (unit tests, doctests).
extern crate self as bevy_forge_scene;

// The parts (docs/ARCHITECTURE.md). Each imports only parts on lower floors: format, then
// project, schema, validate and diff, prefab, and the runtime on top (tests/architecture.rs).
pub mod cook;
pub mod diff;
pub mod edit;
pub mod export;
pub mod format;
pub mod prefab;
pub mod project;
pub mod runtime;
pub mod schema;
pub mod validate;

/// Derives [`ForgeComponent`](trait@ForgeComponent): see [the `registry`
/// module](runtime::registry) for attributes and registration.
pub use bevy_forge_scene_macros::ForgeComponent;
pub use diff::{SceneDiff, diff};
pub use format::{
    ComponentData, EntityNode, FORMAT_VERSION, ParsedScene, ReadError, SceneDoc, SourceMap,
    TransformData,
};
pub use project::{AssetIndex, Project};
pub use runtime::{
    ForgeComponent, ForgeEntityId, ForgeEntityPath, ForgeScene, ForgeSceneInstance,
    ForgeSceneLoadError, ForgeSceneLoader, ForgeSceneLoaderSettings, ForgeScenePlugin,
    ForgeSceneReady, ForgeSceneReloadFailed, ForgeSceneReloaded, ForgeSceneRoot, ForgeSchemas,
    RegisterForgeComponent,
};
pub use schema::{ComponentSchema, FieldKind, FieldSchema, SchemaFile, SchemaFileError};
pub use validate::{
    Diagnostic, Severity, ValidationReport, validate_parsed, validate_parsed_with_schemas,
    validate_references, validate_scene,
};

/// The most used items: `use bevy_forge_scene::prelude::*;`.
pub mod prelude {
    pub use crate::format::{ComponentData, EntityNode, SceneDoc, TransformData};
    pub use crate::project::{AssetIndex, Project};
    pub use crate::runtime::{
        CaptureOptions, ForgeComponent, ForgeEntityId, ForgeEntityPath, ForgeScene,
        ForgeSceneInstance, ForgeScenePlugin, ForgeSceneReady, ForgeSceneReloadFailed,
        ForgeSceneReloaded, ForgeSceneRoot, ForgeSchemas, RegisterForgeComponent, capture_instance,
        save_instance,
    };
    pub use crate::validate::{
        Diagnostic, Severity, ValidationReport, validate_parsed, validate_scene,
    };
    pub use bevy_forge_scene_macros::ForgeComponent;
}

/// Paths used by the code `#[derive(ForgeComponent)]` generates. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::runtime::registry::{CopyByClone, CopyByReflection, CopyProbe};
    pub use crate::runtime::{ForgeComponent, ForgeComponentRegistration};
    pub use crate::schema::{ComponentSchema, FieldRange, FieldSchema};
    pub use bevy_reflect::TypePath;
    pub use inventory;
}
