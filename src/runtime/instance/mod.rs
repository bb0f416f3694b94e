//! The instance core: roots, their instances and the spawn.

pub(crate) mod spawn;
