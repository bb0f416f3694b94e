//! The `app` test binary: scenes in a headless Bevy `App` (usually `common::harness::Harness`):
//! loading, spawning, hot reload, capture and save, cooked twins through the `AssetServer`,
//! entity references, the live link, the README's game. Each module was a test binary of its
//! own and keeps its tests' names under the module's (`cargo test --test app reload::`). How to
//! add a file, and what may not share a binary: `tests/README.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
/// The castle gate example's types (`forge_demo::Door`, ..), shared with the examples: `cook`
/// loads the castle gate scene, `capture` also names them. One module for both, as a type path
/// belongs to one type in a binary.
#[allow(dead_code)]
#[path = "../../examples/support/gate.rs"]
mod gate;

mod capture;
mod cook;
mod cook_hostile;
mod cook_stamp;
mod custom;
mod edit_layer;
mod game_types;
mod incremental_hostile;
mod incremental_reload;
mod live_link;
mod pipeline;
mod prefab;
mod preludes;
mod quick_start;
mod refs;
mod refs_hostile;
mod reload;
mod runtime;

// The spawning tests of `runtime.rs`, kept in their folder; `crate::aim` is their shared
// component.
#[path = "spawning/aim.rs"]
mod aim;
#[path = "spawning/budget.rs"]
mod budget;
#[path = "spawning/progress.rs"]
mod progress;
#[path = "spawning/streaming.rs"]
mod streaming;
