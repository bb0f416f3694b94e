//! Human-readable scenes for Bevy 0.20: `.forge.ron` files of entities with stable ids, read
//! with exact positions, validated before anything spawns, and hot reloaded by patching only
//! what changed.
//!
//! A game adds [`ForgeScenePlugin`] and spawns a [`ForgeSceneRoot`] with a handle from the
//! `AssetServer`; [`prelude`] holds what it uses and shares no name with `bevy::prelude`. Below
//! the Bevy side, everything is plain Rust over plain data, usable from tools and tests:
//!
//! ```
//! use bevy_forge_scene::format::SceneDoc;
//! use bevy_forge_scene::validate::validate_parsed;
//!
//! let parsed = SceneDoc::from_str(r#"(format_version: 1, name: "Hall", entities: {
//!     1: (id: 1, name: "Lamp", parent: None, children: [], components: [],
//!         transform: (translation: (x: 0, y: 3, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))),
//! }, roots: [1], next_id: 2)"#)?;
//! assert_eq!(parsed.doc.entity(1).map(|lamp| lamp.name.as_str()), Some("Lamp"));
//! assert_eq!(parsed.source_map.entity_field(1, "name").map(|at| at.line), Some(2));
//! assert!(!validate_parsed(&parsed, None).has_errors());
//! # Ok::<(), bevy_forge_scene::format::ReadError>(())
//! ```
//!
//! The modules: [`format`](mod@format) (the document model, reader and writer, and the format's
//! reference page), [`validate`], [`schema`] (custom component schemas and field expressions),
//! [`edit`] (changes that keep a file's text), [`diff`], [`merge`] (three-way merges by id,
//! `forge merge`), [`prefab`], [`cook`] (the binary
//! twin), [`export`] (Rust and BSN), [`project`], [`capture`] (saving a live scene), [`live_link`] (from live entities to their lines, and live
//! values kept back into them) and, with
//! the `import` feature, `import` (Bevy `.scn.ron` worlds).
//!
//! The guide, one page per topic:
//! [scenes and the format](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/scenes.md),
//! [custom components](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/custom-components.md),
//! [prefabs](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/prefabs.md),
//! [entity references](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/references.md),
//! [hot reload](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/hot-reload.md),
//! [cooking and shipping](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/cooking.md),
//! [editing and saving](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/editing.md),
//! [import and migrate](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/import-migrate.md),
//! [import and export](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/import-export.md),
//! [the command line](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/cli.md),
//! [editor setup](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/editor-setup.md),
//! [performance](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/performance.md),
//! [merging scenes](https://github.com/bevy-forge/bevy_forge_scene/blob/main/docs/guide/merging.md).

// Lets the derive's `::bevy_forge_scene::..` paths resolve inside this crate (unit tests, doctests).
extern crate self as bevy_forge_scene;

// The parts (docs/ARCHITECTURE.md). Each imports only parts on lower floors: format, then
// project, schema, validate and diff, prefab, and the runtime on top (tests/data/architecture.rs).
// The runtime's items are re-exported here: a game names them from the crate root (or the
// prelude); the tools (validate, edit, export, cook, ...) are reached through their modules.
pub mod codes;
pub mod cook;
pub mod diff;
pub mod edit;
pub mod export;
pub mod format;
pub mod merge;
pub mod pipeline;
pub mod prefab;
pub mod project;
mod runtime;
pub mod schema;
pub mod validate;

/// Derives [`ForgeComponent`](trait@ForgeComponent): see the trait for attributes and
/// registration.
pub use bevy_forge_scene_macros::ForgeComponent;
#[cfg(feature = "gltf")]
pub use runtime::ForgeModelNodes;
pub use runtime::capture;
#[cfg(feature = "import")]
pub use runtime::import;
pub use runtime::live_link;
pub use runtime::{ForgeCellState, ForgeStreamedCells, ForgeStreamingSource};
pub use runtime::{
    ForgeComponent, ForgeDefaultSpawnBudget, ForgeEntityId, ForgeEntityPath, ForgeLoadProgress,
    ForgeScene, ForgeSceneInactive, ForgeSceneInstance, ForgeSceneLoadError, ForgeSceneLoader,
    ForgeSceneLoaderSettings, ForgeScenePlugin, ForgeSceneProcess, ForgeSceneReady,
    ForgeSceneReloadFailed, ForgeSceneReloaded, ForgeSceneRoot, ForgeSceneSaver, ForgeSceneSystems,
    ForgeSchemas, ForgeSpawnBudget, ForgeSpawnProgress, ForgeTwinReader, RegisterForgeComponent,
    apply_diff, with_cooked_twins,
};

/// What a game uses at runtime: `use bevy_forge_scene::prelude::*;` beside
/// `use bevy::prelude::*;` (no name is shared with Bevy's prelude).
pub mod prelude {
    pub use crate::runtime::{
        ForgeComponent, ForgeDefaultSpawnBudget, ForgeEntityId, ForgeEntityPath, ForgeLoadProgress,
        ForgeScene, ForgeSceneInactive, ForgeSceneInstance, ForgeSceneLoaderSettings,
        ForgeScenePlugin, ForgeSceneReady, ForgeSceneReloadFailed, ForgeSceneReloaded,
        ForgeSceneRoot, ForgeSceneSystems, ForgeSchemas, ForgeSpawnBudget, ForgeSpawnProgress,
        ForgeStreamedCells, ForgeStreamingSource, RegisterForgeComponent,
    };
    pub use bevy_forge_scene_macros::ForgeComponent;
}

/// Paths used by the code `#[derive(ForgeComponent)]` generates. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::runtime::values::registry::{CopyByClone, CopyByReflection, CopyProbe};
    pub use crate::runtime::{ForgeComponent, ForgeComponentRegistration};
    pub use crate::schema::{ComponentSchema, FieldRange, FieldSchema};
    pub use bevy_reflect::TypePath;
    pub use inventory;
}

// The README and the guide's pages, compiled and run as doctests (`cargo test --doc`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct Readme;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/scenes.md")]
struct GuideScenes;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/custom-components.md")]
struct GuideCustomComponents;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/prefabs.md")]
struct GuidePrefabs;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/references.md")]
struct GuideReferences;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/hot-reload.md")]
struct GuideHotReload;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/cooking.md")]
struct GuideCooking;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/editing.md")]
struct GuideEditing;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/import-export.md")]
struct GuideImportExport;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/import-migrate.md")]
struct GuideImportMigrate;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/cli.md")]
struct GuideCli;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/editor-setup.md")]
struct GuideEditorSetup;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/performance.md")]
struct GuidePerformance;
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/big-worlds.md")]
struct GuideBigWorlds;
