#![doc = include_str!("../README.md")]

// Lets the derive's `::bevy_forge_scene::..` paths resolve inside this crate (unit tests, doctests).
extern crate self as bevy_forge_scene;

// The parts (docs/ARCHITECTURE.md). Each imports only parts on lower floors: format, then
// project, schema, validate and diff, prefab, and the runtime on top (tests/architecture.rs).
// The runtime's items are re-exported here: a game names them from the crate root (or the
// prelude); the tools (validate, edit, export, cook, ...) are reached through their modules.
pub mod cook;
pub mod diff;
pub mod edit;
pub mod export;
pub mod format;
pub mod pipeline;
pub mod prefab;
pub mod project;
mod runtime;
pub mod schema;
pub mod validate;

/// Derives [`ForgeComponent`](trait@ForgeComponent): see the trait for attributes and
/// registration.
pub use bevy_forge_scene_macros::ForgeComponent;
pub use runtime::capture;
#[cfg(feature = "import")]
pub use runtime::import;
pub use runtime::{
    ForgeComponent, ForgeEntityId, ForgeEntityPath, ForgeScene, ForgeSceneInstance,
    ForgeSceneLoadError, ForgeSceneLoader, ForgeSceneLoaderSettings, ForgeScenePlugin,
    ForgeSceneProcess, ForgeSceneReady, ForgeSceneReloadFailed, ForgeSceneReloaded, ForgeSceneRoot,
    ForgeSceneSaver, ForgeSceneSystems, ForgeSchemas, ForgeTwinReader, RegisterForgeComponent,
    apply_diff, with_cooked_twins,
};

/// What a game uses at runtime: `use bevy_forge_scene::prelude::*;` beside
/// `use bevy::prelude::*;` (no name is shared with Bevy's prelude).
pub mod prelude {
    pub use crate::runtime::{
        ForgeComponent, ForgeEntityId, ForgeEntityPath, ForgeScene, ForgeSceneInstance,
        ForgeSceneLoaderSettings, ForgeScenePlugin, ForgeSceneReady, ForgeSceneReloadFailed,
        ForgeSceneReloaded, ForgeSceneRoot, ForgeSceneSystems, ForgeSchemas,
        RegisterForgeComponent,
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
