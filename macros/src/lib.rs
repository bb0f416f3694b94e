//! Derive macros for `bevy_forge_scene`.
//!
//! Empty for now: `#[derive(ForgeComponent)]` lands here with custom component schemas.
