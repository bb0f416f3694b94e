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
    if let Some(path) = &input.type_path
        && !is_type_path(&path.value())
    {
        cx.error(
            path.span(),
            format!(
                "`{}` is not a Rust type path like `my_game::Orbit`",
                path.value()
            ),
        );
    }
    let current = input
        .type_path
        .as_ref()
        .map(syn::LitStr::value)
        .unwrap_or_default();
    let mut old_paths: Vec<String> = Vec::new();
    for old in &input.renamed_from {
        let value = old.value();
        if !is_type_path(&value) {
            cx.error(
                old.span(),
                format!("`{value}` is not a Rust type path like `my_game::Orbit`: `renamed_from` on a struct names the type path scenes wrote before"),
            );
        } else if value == current {
            cx.error(old.span(), "this is the type's own `type_path`");
        } else if old_paths.contains(&value) {
            cx.error(old.span(), format!("`{value}` is listed twice"));
        }
        old_paths.push(value);
    }
    if let Some(variants) = &input.variants {
        let names: Vec<String> = variants.iter().map(|v| v.ident.to_string()).collect();
        let mut old_names: Vec<String> = Vec::new();
        for variant in variants {
            for old in &variant.renamed_from {
                let value = old.value();
                if !is_variant_name(&value) {
                    cx.error(
                        old.span(),
                        format!("`{value}` is not a variant name: `renamed_from` on a variant names the variant's name before"),
                    );
                } else if names.contains(&value) {
                    cx.error(
                        old.span(),
                        format!("`{value}` is a variant of this enum: a scene writing it would be ambiguous"),
                    );
                } else if old_names.contains(&value) {
                    cx.error(old.span(), format!("`{value}` is listed twice"));
                }
                old_names.push(value);
            }
        }
    }
    let names: Vec<String> = input
        .fields
        .iter()
        .map(|f| member_name(&f.member))
        .collect();
    let mut old_names: Vec<String> = Vec::new();
    for field in &input.fields {
        for old in &field.renamed_from {
            let value = old.value();
            if !is_field_name(&value) {
                cx.error(
                    old.span(),
                    format!("`{value}` is not a field name: `renamed_from` on a field names the field's name before"),
                );
            } else if names.contains(&value) {
                cx.error(
                    old.span(),
                    format!(
                        "`{value}` is a field of this struct: a scene setting it would be ambiguous"
                    ),
                );
            } else if old_names.contains(&value) {
                cx.error(old.span(), format!("`{value}` is listed twice"));
            }
            old_names.push(value);
        }
        if field.skip.is_some()
            && let Some(old) = field.renamed_from.first()
        {
            cx.error(
                old.span(),
                "`renamed_from` on a `skip` field: scenes cannot set it under any name",
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

/// Identifier segments separated by `::`.
fn is_type_path(value: &str) -> bool {
    !value.is_empty()
        && value.split("::").all(|segment| {
            let mut chars = segment.chars();
            chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
                && chars.all(|c| c == '_' || c.is_alphanumeric())
        })
}

/// An identifier that is not a tuple index (`Dynamic`).
fn is_variant_name(value: &str) -> bool {
    let mut chars = value.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// An identifier (`hit_points`) or a tuple field index (`0`).
fn is_field_name(value: &str) -> bool {
    let value = value.strip_prefix("r#").unwrap_or(value);
    let mut chars = value.chars();
    match chars.next() {
        Some(c) if c.is_ascii_digit() => value.chars().all(|c| c.is_ascii_digit()),
        Some(c) => {
            (c == '_' || c.is_alphabetic()) && chars.all(|c| c == '_' || c.is_alphanumeric())
        }
        None => false,
    }
}

/// The field's name as schemas write it (`r#type` as `type`; `0` for a tuple field).
pub(crate) fn member_name(member: &syn::Member) -> String {
    match member {
        syn::Member::Named(i) => {
            let s = i.to_string();
            s.strip_prefix("r#").unwrap_or(&s).to_owned()
        }
        syn::Member::Unnamed(i) => i.index.to_string(),
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
