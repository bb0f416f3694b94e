//! Derive macros for `bevy_forge_scene`: `#[derive(ForgeComponent)]`.
//!
//! Use the derive through the main crate (`bevy_forge_scene::ForgeComponent`); the generated code
//! names only `::bevy_forge_scene` paths. The macro works in three passes, like serde_derive:
//! [`parse`] builds a model of the input, [`check`] reports every misuse with its span, and
//! [`expand`] writes the impl. When there are errors, all of them are emitted together with a
//! stub impl, so the user sees the real problems and no cascade.

mod check;
mod ctxt;
mod expand;
mod parse;

use proc_macro::TokenStream;

/// Makes a component type usable as a `custom` component of `.forge.ron` scenes.
///
/// Works on structs (named, tuple and unit) and on enums (unit, tuple and struct variants; a
/// scene writes an enum component whole, `value: "RigidBody::Dynamic"`).
///
/// Type attributes: `#[forge(type_path = "my_game::Orbit")]` (optional; defaults to the type's
/// `TypePath`), `#[forge(renamed_from = "my_game::Circle")]` (a type path scenes wrote before;
/// repeatable). Field attributes (structs): `#[forge(required)]`,
/// `#[forge(range = 0.0..=100.0)]` (or `a..b`; numeric fields only), `#[forge(skip)]`,
/// `#[forge(renamed_from = "old_name")]` (a name scenes wrote before; repeatable). Variant
/// attribute (enums): `#[forge(renamed_from = "OldName")]` (a variant name scenes wrote before;
/// repeatable). Doc comments become schema docs.
///
/// The type must also derive `Component`, `Reflect` and `Default` (for an enum, a `#[default]`
/// variant).
#[proc_macro_derive(ForgeComponent, attributes(forge))]
pub fn derive_forge_component(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let mut cx = ctxt::Ctxt::default();
    let model = parse::Input::from_ast(&input, &mut cx);
    if let Some(model) = &model {
        check::check(model, &mut cx);
    }
    let errors = cx.into_errors();
    match model {
        Some(model) if errors.is_empty() => expand::expand(&model).into(),
        _ => {
            let mut out = expand::stub(&input);
            for e in errors {
                out.extend(e.to_compile_error());
            }
            out.into()
        }
    }
}
