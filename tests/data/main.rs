//! The `data` test binary: the file format and what is done to documents without a Bevy `App`
//! (reading, writing, validation, diffs, edits, prefab expansion, export text, the derive's
//! schemas, the crate's layout). Each module was a test binary of its own and keeps its tests'
//! names under the module's (`cargo test --test data read::`). How to add a file, and what may
//! not share a binary: `tests/README.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

mod architecture;
mod codes;
mod derive;
mod diff;
mod edit;
mod edit_hostile;
mod edit_overrides;
mod export;
mod expr;
mod fixtures_snapshots;
mod incremental;
mod integrity;
mod main_job;
mod merge;
mod prefab_format;
mod project;
mod read;
mod recover;
mod robustness;
mod roundtrip;
mod schema_file;
mod validate;
