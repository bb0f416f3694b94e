//! The render-stack workspace's tests of the library, in one binary (each file was one, and a
//! binary of the whole render stack is slow to link): the exported seed scenes against the
//! scene files (`export`), placed glTF models with Bevy's own loader (`models`), models as
//! Blender exports them under Bevy's file watcher (`models_blender`), and `mesh3d` with
//! `bevy_pbr`'s material (`pbr`). A new file is a module here: `mod NAME;` below, its
//! `#[path]`s relative to this folder.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The exported scenes (`tests/exported/`, `export`'s modules) say `use bevy::prelude::*;` and
// name this package `forge_demo`: both names must be in the crate root's extern prelude.
extern crate bevy_forge_scene_render_tests as forge_demo;
extern crate bevy_internal as bevy;

mod export;
mod models;
mod models_blender;
mod pbr;
