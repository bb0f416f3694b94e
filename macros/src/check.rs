//! Misuse checks: every problem is collected with its span in the [`Ctxt`].

use crate::ctxt::Ctxt;
use crate::parse::Input;

/// Numeric primitive types, the only ones `range` applies to.
const NUMBERS: &[&str] = &[
    "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
    "usize",
];

/// Reports every misuse of the attributes in `input`.
pub(crate) fn check(input: &Input, cx: &mut Ctxt) {
    if let Some(path) = &input.type_path {
        let value = path.value();
        let ok = !value.is_empty()
            && value.split("::").all(|segment| {
                let mut chars = segment.chars();
                chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
                    && chars.all(|c| c == '_' || c.is_alphanumeric())
            });
        if !ok {
            cx.error(
                path.span(),
                format!("`{value}` is not a Rust type path like `my_game::Orbit`"),
            );
        }
    }
    for field in &input.fields {
        if let (Some(required), Some(_)) = (field.required, field.skip) {
            cx.error(
                required,
                "a field cannot be both `required` and `skip`: a scene could never set it",
            );
        }
        if let Some(range) = &field.range {
            if !is_number(field.ty) {
                cx.error(
                    range.span,
                    "`range` applies only to number fields (f32, f64, i8 .. u128, isize, usize)",
                );
            }
            if field.skip.is_some() {
                cx.error(range.span, "`range` on a `skip` field is never checked");
            }
            let empty = if range.inclusive {
                range.min > range.max
            } else {
                range.min >= range.max
            };
            if empty {
                cx.error(range.span, "this range is empty: no value satisfies it");
            }
        }
    }
}

fn is_number(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| NUMBERS.iter().any(|n| i == n)),
        syn::Type::Paren(p) => is_number(&p.elem),
        syn::Type::Group(g) => is_number(&g.elem),
        _ => false,
    }
}
