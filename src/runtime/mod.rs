//! The Bevy side: the [`ForgeScene`] asset and its [`ForgeSceneLoader`], custom component types
//! in the app ([`ForgeSchemas`], [`ForgeComponent`]), spawning [`ForgeSceneRoot`]s, streaming,
//! hot reload, and the [`ForgeScenePlugin`] that wires them into an `App`.
//!
//! Everything here stands on the pure parts below it ([`format`](crate::format),
//! [`project`](crate::project), [`schema`](crate::schema), [`validate`](crate::validate),
//! [`diff`](mod@crate::diff), [`prefab`](crate::prefab), [`pipeline`](crate::pipeline));
//! nothing below imports from here. Inside, the parts stand on each other in this order
//! (`tests/data/architecture.rs` keeps it):
//!
//! 1. [`values`]: what a file's values become in Bevy (components, entity references, the
//!    registry of custom types, custom values, built-ins).
//! 2. [`import`] (feature `import`): a Bevy `.scn.ron` world read into a document, on values.
//! 3. [`asset`]: bytes to a [`ForgeScene`] through the pipeline, its loader and processor.
//! 4. [`instance`]: a [`ForgeSceneRoot`] whose scene has loaded gets its entities, parents
//!    before children, and a [`ForgeSceneInstance`] mapping file ids to entities; the few
//!    functions every later part changes an instance through.
//! 5. `model` (feature `gltf`): placed glTF models written under their instance entities, with
//!    their overrides by node path, through the instance core's hooks.
//! 6. [`streaming`]: streamed cells in and out by distance, through the instance core.
//! 7. [`live`]: when the asset changes, the [`SceneDiff`](crate::diff::SceneDiff) between the
//!    applied version and the new one is applied to every live instance; an instance saved
//!    back to a document.
//! 8. [`plugin`]: [`ForgeScenePlugin`], the parts' plugins in that order.

mod asset;
#[cfg(feature = "import")]
pub mod import;
mod instance;
mod live;
#[cfg(feature = "gltf")]
mod model;
mod plugin;
mod streaming;
pub(crate) mod values;

pub use asset::loader::{ForgeSceneLoadError, ForgeSceneLoader, ForgeSceneLoaderSettings};
pub use asset::processor::{ForgeSceneProcess, ForgeSceneSaver};
pub use asset::progress::ForgeLoadProgress;
pub use asset::scene::ForgeScene;
pub use asset::twins::{ForgeTwinReader, with_cooked_twins};
pub use instance::{
    ForgeDefaultSpawnBudget, ForgeSceneInactive, ForgeSceneInstance, ForgeSceneReady,
    ForgeSceneRoot, ForgeSceneSystems, ForgeSpawnBudget, ForgeSpawnProgress,
};
pub use live::capture;
pub use live::link as live_link;
pub use live::reload::{ForgeSceneReloadFailed, ForgeSceneReloaded, apply_diff};
#[cfg(feature = "gltf")]
pub use model::ForgeModelNodes;
pub use plugin::ForgeScenePlugin;
pub use streaming::{ForgeCellState, ForgeStreamedCells, ForgeStreamingSource};
pub use values::components::{ForgeEntityId, ForgeEntityPath};
pub use values::registry::{ForgeComponent, ForgeSchemas, RegisterForgeComponent};

#[doc(hidden)]
pub use values::registry::ForgeComponentRegistration;
