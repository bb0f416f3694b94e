//! What a file's values become in Bevy.

#[cfg(feature = "builtins")]
pub(crate) mod builtin;
pub(crate) mod components;
pub(crate) mod custom;
pub(crate) mod refs;
pub(crate) mod registry;
