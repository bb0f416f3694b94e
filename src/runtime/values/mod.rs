//! What a file's values become in Bevy, and back: the components every scene entity carries
//! ([`components`]), entity references as placeholders ([`refs`]), the custom component types
//! of the app ([`registry`]) and their values built through reflection ([`custom`]), and the
//! built-in components ([`builtin`]: with the `builtins` feature the Bevy half of each tag's
//! home; without it a twin of the same functions that does nothing, so no other part of the
//! runtime needs a `cfg`).
//!
//! Functions and types over values and entities, no systems of its own and no `App` state
//! beyond the registry: the other parts of the runtime stand on this one.

#[cfg(feature = "builtins")]
pub(crate) mod builtin;
pub(crate) mod components;
pub(crate) mod custom;
pub(crate) mod refs;
pub(crate) mod registry;
pub(crate) mod windows;
#[cfg(not(feature = "builtins"))]
pub(crate) mod without_builtins;

#[cfg(not(feature = "builtins"))]
pub(crate) use without_builtins as builtin;
