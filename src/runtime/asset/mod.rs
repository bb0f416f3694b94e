//! The scene asset: bytes to a ready-to-spawn `ForgeScene`.

pub(crate) mod cell_plan;
pub(crate) mod loader;
pub(crate) mod processor;
pub(crate) mod progress;
pub(crate) mod scene;
pub(crate) mod twins;
