//! The `models` test binary: glTF models placed by instances (feature `gltf` for most): read,
//! written, expanded and checked offline against the model's node tree, and spawned at run time
//! by a stand-in glTF loader. Apart from `app` because its files install their own global
//! tracing subscriber, which `app`'s `custom.rs` installs too (`tests/README.md`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
/// The stand-in glTF loader of `model_spawn` and `model_hostile`: one module for both (clippy's
/// `duplicate_mod`).
#[cfg(feature = "gltf")]
#[path = "../common/stand_in_gltf.rs"]
mod stand_in_gltf;

mod model_blender;
mod model_hostile;
mod model_spawn;
mod models;
