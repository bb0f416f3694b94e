//! Compile-fail tests of `#[derive(ForgeComponent)]`: each misuse is one error at the attribute
//! (or the type name), with no cascade. Regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test -p bevy_forge_scene_macros --test ui` and review them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[test]
fn derive_misuse_is_a_compile_error_at_the_attribute() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
