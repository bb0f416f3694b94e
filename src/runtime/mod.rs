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

mod asset;
#[cfg(feature = "import")]
pub mod import;
mod instance;
mod live;
mod plugin;
mod streaming;
pub(crate) mod values;

pub use asset::loader::{ForgeSceneLoadError, ForgeSceneLoader, ForgeSceneLoaderSettings};
pub use asset::processor::{ForgeSceneProcess, ForgeSceneSaver};
pub use asset::progress::ForgeLoadProgress;
pub use asset::scene::ForgeScene;
pub use asset::twins::{ForgeTwinReader, with_cooked_twins};
pub use instance::spawn::{
    ForgeDefaultSpawnBudget, ForgeSceneInactive, ForgeSceneInstance, ForgeSceneReady,
    ForgeSceneRoot, ForgeSpawnBudget, ForgeSpawnProgress,
};
pub use live::capture;
pub use live::reload::{ForgeSceneReloadFailed, ForgeSceneReloaded, apply_diff};
pub use plugin::{ForgeScenePlugin, ForgeSceneSystems};
pub use streaming::{ForgeCellState, ForgeStreamedCells, ForgeStreamingSource};
pub use values::components::{ForgeEntityId, ForgeEntityPath};
pub use values::registry::{ForgeComponent, ForgeSchemas, RegisterForgeComponent};

#[doc(hidden)]
pub use values::registry::ForgeComponentRegistration;
