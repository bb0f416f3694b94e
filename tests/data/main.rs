//! The `data` test binary: the file format and what is done to documents without a Bevy `App`
//! (reading, writing, validation, diffs, edits, prefab expansion, export text, the derive's
//! schemas, the crate's layout). Each module was a test binary of its own and keeps its tests'
//! names under the module's (`cargo test --test data read::`). How to add a file, and what may
//! not share a binary: `tests/README.md`.

#[path = "../common/mod.rs"]
mod common;
