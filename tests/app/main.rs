//! The `app` test binary: scenes in a headless Bevy `App` (usually `common::harness::Harness`):
//! loading, spawning, hot reload, capture and save, cooked twins through the `AssetServer`,
//! entity references, the live link, the README's game. Each module was a test binary of its
//! own and keeps its tests' names under the module's (`cargo test --test app reload::`). How to
//! add a file, and what may not share a binary: `tests/README.md`.

#[path = "../common/mod.rs"]
mod common;
