//! The Bevy side: the [`ForgeScene`] asset and its [`ForgeSceneLoader`], custom component types
//! in the app ([`ForgeSchemas`], [`ForgeComponent`]), spawning [`ForgeSceneRoot`]s, hot reload,
//! and the [`ForgeScenePlugin`] that wires them into an `App`.
//!
//! Everything here stands on the pure parts below it ([`format`](crate::format),
//! [`project`](crate::project), [`schema`](crate::schema), [`validate`](crate::validate),
//! [`diff`](mod@crate::diff), [`prefab`](crate::prefab)); nothing below imports from here. A scene goes through it in this order:
//!
//! 1. [`loader`]: bytes to a [`ParsedScene`](crate::format::ParsedScene), its prefab instances
//!    expanded (each prefab file loaded once, as a dependency), validated, with every custom
//!    component built through reflection ([`registry`] says which types may be) and every
//!    built-in prepared: a [`ForgeScene`] ([`scene`]).
//! 2. [`spawn`]: a [`ForgeSceneRoot`] whose scene has loaded gets its entities, parents before
//!    children, and a [`ForgeSceneInstance`] mapping file ids to entities.
//! 3. [`reload`]: when the asset changes, the [`SceneDiff`](crate::diff::SceneDiff) between the
//!    applied document and the new one is applied to every live instance.

#[cfg(feature = "builtins")]
mod builtin;
pub mod capture;
mod cells;
mod components;
mod custom;
#[cfg(feature = "import")]
pub mod import;
mod loader;
mod painted;
mod plugin;
mod processor;
mod progress;
mod refs;
pub(crate) mod registry;
mod reload;
mod scene;
mod spawn;
mod streaming;
mod twins;

pub use components::{ForgeEntityId, ForgeEntityPath};
pub use loader::{ForgeSceneLoadError, ForgeSceneLoader, ForgeSceneLoaderSettings};
pub use plugin::{ForgeScenePlugin, ForgeSceneSystems};
pub use processor::{ForgeSceneProcess, ForgeSceneSaver};
pub use progress::ForgeLoadProgress;
pub use registry::{ForgeComponent, ForgeSchemas, RegisterForgeComponent};
pub use reload::{ForgeSceneReloadFailed, ForgeSceneReloaded, apply_diff};
pub use scene::ForgeScene;
pub use spawn::{
    ForgeDefaultSpawnBudget, ForgeSceneInactive, ForgeSceneInstance, ForgeSceneReady,
    ForgeSceneRoot, ForgeSpawnBudget, ForgeSpawnProgress,
};
pub use streaming::{ForgeCellState, ForgeStreamedCells, ForgeStreamingSource};
pub use twins::{ForgeTwinReader, with_cooked_twins};

#[doc(hidden)]
pub use registry::ForgeComponentRegistration;
