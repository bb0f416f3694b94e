//! Test-only package: see `tests/`.
//!
//! Its root also holds the seed scenes' custom component types (`forge_demo::Orbit`, ...), for
//! the exported scenes of `tests/testsuite/export.rs`, which name this crate `forge_demo`.

mod forge_demo;
mod models;

pub use forge_demo::{Door, Health, Marker, Orbit, Patrol, RigidBody, Sentry, Speed};
pub use models::{model_app, model_app_on_disk, model_app_with};
