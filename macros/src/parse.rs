//! The model of a `#[derive(ForgeComponent)]` input.

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::ctxt::Ctxt;

/// The deriving type.
pub(crate) struct Input<'a> {
    pub(crate) ident: &'a syn::Ident,
    pub(crate) generics: &'a syn::Generics,
    pub(crate) docs: String,
    pub(crate) type_path: Option<syn::LitStr>,
    /// `renamed_from = "old::Path"`, each time it is given.
    pub(crate) renamed_from: Vec<syn::LitStr>,
    /// A struct's fields (none for a unit struct or an enum).
    pub(crate) fields: Vec<Field<'a>>,
    /// An enum's variants; `None` for a struct.
    pub(crate) variants: Option<Vec<Variant<'a>>>,
}

/// One variant of a deriving enum.
pub(crate) struct Variant<'a> {
    pub(crate) ident: &'a syn::Ident,
    /// `renamed_from = "Old"`, each time it is given.
    pub(crate) renamed_from: Vec<syn::LitStr>,
}

/// One field of the deriving struct.
pub(crate) struct Field<'a> {
    /// `radius` or `0`.
    pub(crate) member: syn::Member,
    pub(crate) ty: &'a syn::Type,
    pub(crate) docs: String,
    pub(crate) required: Option<Span>,
    pub(crate) skip: Option<Span>,
    pub(crate) range: Option<Range>,
    /// `renamed_from = "old_name"`, each time it is given.
    pub(crate) renamed_from: Vec<syn::LitStr>,
}

/// `range = a..=b` or `range = a..b`.
pub(crate) struct Range {
    pub(crate) span: Span,
    pub(crate) min: f64,
    pub(crate) max: f64,
    pub(crate) inclusive: bool,
}

impl<'a> Input<'a> {
    /// Reads the input; `None` when it is not a struct (already reported).
    pub(crate) fn from_ast(input: &'a syn::DeriveInput, cx: &mut Ctxt) -> Option<Self> {
        let mut type_path = None;
        let mut renamed_from = Vec::new();
        for attr in forge_attrs(&input.attrs) {
            let result = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("type_path") {
                    let lit: syn::LitStr = meta.value()?.parse()?;
                    if type_path.is_some() {
                        cx.error(lit.span(), "duplicate `type_path`");
                    }
                    type_path = Some(lit);
                    Ok(())
                } else if meta.path.is_ident("renamed_from") {
                    renamed_from.push(meta.value()?.parse()?);
                    Ok(())
                } else if is_field_attr(&meta.path) {
                    skip_value(&meta)?;
                    cx.error(
                        meta.path.span(),
                        format!(
                            "`{}` is a field attribute; put it on a field",
                            path_name(&meta.path)
                        ),
                    );
                    Ok(())
                } else {
                    skip_value(&meta)?;
                    cx.error(
                        meta.path.span(),
                        format!(
                            "unknown forge attribute `{}`; on a struct they are `type_path = \"..\"` and `renamed_from = \"..\"`",
                            path_name(&meta.path)
                        ),
                    );
                    Ok(())
                }
            });
            if let Err(e) = result {
                cx.push(e);
            }
        }
        let (fields, variants) = match &input.data {
            syn::Data::Struct(s) => (
                s.fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| Field::from_ast(i, f, cx))
                    .collect(),
                None,
            ),
            syn::Data::Enum(e) => {
                if e.variants.is_empty() {
                    cx.error(
                        e.enum_token.span,
                        "an enum without variants has no value: a scene could never create it",
                    );
                }
                let variants = e
                    .variants
                    .iter()
                    .map(|v| Variant::from_ast(v, cx))
                    .collect();
                (Vec::new(), Some(variants))
            }
            syn::Data::Union(u) => {
                cx.error(
                    u.union_token.span,
                    "ForgeComponent can only be derived for structs and enums",
                );
                return None;
            }
        };
        Some(Input {
            ident: &input.ident,
            generics: &input.generics,
            docs: docs(&input.attrs),
            type_path,
            renamed_from,
            fields,
            variants,
        })
    }
}

impl<'a> Variant<'a> {
    fn from_ast(variant: &'a syn::Variant, cx: &mut Ctxt) -> Self {
        let mut out = Variant {
            ident: &variant.ident,
            renamed_from: Vec::new(),
        };
        for attr in forge_attrs(&variant.attrs) {
            let result = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("renamed_from") {
                    out.renamed_from.push(meta.value()?.parse()?);
                } else {
                    skip_value(&meta)?;
                    cx.error(
                        meta.path.span(),
                        format!(
                            "unknown forge variant attribute `{}`; on a variant it is `renamed_from = \"..\"`",
                            path_name(&meta.path)
                        ),
                    );
                }
                Ok(())
            });
            if let Err(e) = result {
                cx.push(e);
            }
        }
        // The fields of a variant are written inside the value's expression: no attribute of
        // a struct field applies to them.
        for field in &variant.fields {
            for attr in forge_attrs(&field.attrs) {
                cx.error(
                    attr.path().span(),
                    "forge attributes on the fields of an enum variant are not supported; a scene writes the variant whole (`value: \"..\"`)",
                );
            }
        }
        out
    }
}

impl<'a> Field<'a> {
    fn from_ast(index: usize, field: &'a syn::Field, cx: &mut Ctxt) -> Self {
        let member = match &field.ident {
            Some(ident) => syn::Member::Named(ident.clone()),
            None => syn::Member::Unnamed(syn::Index {
                index: index as u32,
                span: field.ty.span(),
            }),
        };
        let mut out = Field {
            member,
            ty: &field.ty,
            docs: docs(&field.attrs),
            required: None,
            skip: None,
            range: None,
            renamed_from: Vec::new(),
        };
        for attr in forge_attrs(&field.attrs) {
            let result = attr.parse_nested_meta(|meta| {
                let span = meta.path.span();
                if meta.path.is_ident("required") {
                    set_flag(&mut out.required, span, "required", cx);
                    Ok(())
                } else if meta.path.is_ident("skip") {
                    set_flag(&mut out.skip, span, "skip", cx);
                    Ok(())
                } else if meta.path.is_ident("range") {
                    let expr: syn::Expr = meta.value()?.parse()?;
                    if let Some(range) = parse_range(&expr, span, cx) {
                        if out.range.is_some() {
                            cx.error(span, "duplicate `range`");
                        }
                        out.range = Some(range);
                    }
                    Ok(())
                } else if meta.path.is_ident("renamed_from") {
                    out.renamed_from.push(meta.value()?.parse()?);
                    Ok(())
                } else if meta.path.is_ident("type_path") {
                    skip_value(&meta)?;
                    cx.error(
                        span,
                        "`type_path` is a struct attribute; put it on the struct",
                    );
                    Ok(())
                } else {
                    skip_value(&meta)?;
                    cx.error(
                        span,
                        format!(
                            "unknown forge field attribute `{}`; expected `required`, `range = a..=b`, `skip` or `renamed_from = \"..\"`",
                            path_name(&meta.path)
                        ),
                    );
                    Ok(())
                }
            });
            if let Err(e) = result {
                cx.push(e);
            }
        }
        out
    }
}

fn forge_attrs(attrs: &[syn::Attribute]) -> impl Iterator<Item = &syn::Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("forge"))
}

fn is_field_attr(path: &syn::Path) -> bool {
    ["required", "skip", "range"]
        .iter()
        .any(|name| path.is_ident(name))
}

fn path_name(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// Consumes `= value` after an attribute name we report as misplaced or unknown.
fn skip_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        let _: proc_macro2::TokenStream = content.parse()?;
    }
    Ok(())
}

fn set_flag(slot: &mut Option<Span>, span: Span, name: &str, cx: &mut Ctxt) {
    if slot.is_some() {
        cx.error(span, format!("duplicate `{name}`"));
    }
    *slot = Some(span);
}

fn parse_range(expr: &syn::Expr, span: Span, cx: &mut Ctxt) -> Option<Range> {
    let syn::Expr::Range(range) = expr else {
        cx.error(
            expr.span(),
            "expected a range of number literals: `range = 0.0..=100.0` or `range = 0..10`",
        );
        return None;
    };
    let (Some(start), Some(end)) = (&range.start, &range.end) else {
        cx.error(
            expr.span(),
            "a range needs both bounds: `range = 0.0..=100.0`",
        );
        return None;
    };
    let min = number(start, cx)?;
    let max = number(end, cx)?;
    Some(Range {
        span,
        min,
        max,
        inclusive: matches!(range.limits, syn::RangeLimits::Closed(_)),
    })
}

fn number(expr: &syn::Expr, cx: &mut Ctxt) -> Option<f64> {
    let value = match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_digits().parse::<f64>().ok(),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) => f.base10_digits().parse::<f64>().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => return number(expr, cx).map(|v| -v),
        syn::Expr::Paren(p) => return number(&p.expr, cx),
        _ => None,
    };
    if value.is_none() {
        cx.error(expr.span(), "range bounds must be number literals");
    }
    value
}

/// The doc comment lines of `attrs`, trimmed of one leading space, joined with `\n`.
fn docs(attrs: &[syn::Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(syn::MetaNameValue {
            value:
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }),
            ..
        }) = &attr.meta
        {
            let line = s.value();
            lines.push(
                line.strip_prefix(' ')
                    .unwrap_or(&line)
                    .trim_end()
                    .to_owned(),
            );
        }
    }
    lines.join("\n").trim().to_owned()
}
