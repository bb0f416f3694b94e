//! Field expressions of custom components: checked as Rust, entity references (`#7`, `#7/2`)
//! written as variables (Rust form) or as `#Name`s where `bsn!` reads them (BSN form).

use syn::spanned::Spanned;

use super::{ExportError, Plan};
use crate::format::CustomComponent;
use crate::schema::expr::{Ref, offset_of, references};

/// Whether any field of `custom` (or its whole `value`) holds an entity reference.
pub(crate) fn has_references(custom: &CustomComponent) -> bool {
    custom
        .fields
        .iter()
        .map(|f| &f.expr)
        .chain(&custom.value)
        .any(|e| references(e).is_some_and(|r| !r.refs.is_empty()))
}

/// An enum component's `value` with the path before its variant written as the component's
/// type path (`Kinematic` and `RigidBody::Kinematic` as `game::RigidBody::Kinematic`), so the
/// generated code names the type as a struct literal does; `None` when the value does not
/// start with a variant.
pub(crate) fn qualified_value(custom: &CustomComponent) -> Option<String> {
    let value = custom.value.as_deref()?.trim();
    let at = crate::schema::renames::head_variant(value)?;
    Some(format!(
        "{}::{}",
        custom.type_path.trim(),
        &value[at.start..]
    ))
}

/// Refuses a custom component the generated code could not hold: a type path or field name that
/// is not Rust, an expression that does not parse, a reference glued to a word or naming no
/// entity.
pub(crate) fn check_custom(
    plan: &Plan,
    key: u64,
    custom: &CustomComponent,
) -> Result<(), ExportError> {
    let node = plan.node(key);
    let error = |message: String| ExportError::Custom {
        entity: plan.label(key),
        name: node.name.to_string(),
        type_path: custom.type_path.to_string(),
        message,
    };
    if syn::parse_str::<syn::Path>(&custom.type_path).is_err() {
        return Err(error("the type path is not a Rust path".to_owned()));
    }
    if custom.value.is_some() && qualified_value(custom).is_none() {
        return Err(error(
            "its `value` does not start with a variant (`Variant`, `Type::Variant`)".to_owned(),
        ));
    }
    let value = qualified_value(custom);
    let value = value.as_deref().map(|v| ("value", v));
    let fields = custom
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.expr.as_str()));
    // The whole value is checked as `value`, an identifier too; a tuple struct's fields are
    // indices (`0`), which a struct literal writes as members (`Speed { 0: 2.5 }`).
    for (name, expr) in fields.chain(value) {
        if syn::parse_str::<syn::Member>(name).is_err() {
            return Err(error(format!(
                "field `{name}` is not a Rust identifier or tuple index"
            )));
        }
        let rewritten = references(expr);
        let text = match &rewritten {
            Some(r) => {
                if let Some((_, message)) = r.glued_error(expr) {
                    return Err(error(format!("field `{name}`: {message}")));
                }
                for reference in &r.refs {
                    let found = reference.path.as_deref().and_then(|p| plan.resolve(p));
                    if found.is_none() {
                        return Err(ExportError::Dangling {
                            entity: plan.label(key),
                            name: node.name.to_string(),
                            type_path: custom.type_path.to_string(),
                            field: name.to_owned(),
                            reference: reference.text(&r.text),
                        });
                    }
                }
                r.text.as_str()
            }
            None => expr,
        };
        let parsed = syn::parse_str::<syn::Expr>(text);
        proc_macro2::extra::invalidate_current_thread_spans();
        if let Err(e) = parsed {
            return Err(error(format!(
                "field `{name}`: `{expr}` is not a Rust expression ({e})"
            )));
        }
    }
    Ok(())
}

/// `expr` with each entity reference replaced by the variable of the entity it names.
pub(crate) fn rust_expr(plan: &Plan, expr: &str) -> String {
    let Some(rewritten) = references(expr) else {
        return expr.to_owned();
    };
    let mut out = String::with_capacity(expr.len() + 8 * rewritten.refs.len());
    let mut from = 0;
    for r in &rewritten.refs {
        out.push_str(&expr[from..r.at]);
        let key = r.path.as_deref().and_then(|p| plan.resolve(p));
        match key.and_then(|k| plan.vars.get(&k)) {
            Some(var) => out.push_str(var),
            None => out.push_str(&expr[r.at..r.at + r.len]),
        }
        from = r.at + r.len;
    }
    out.push_str(&expr[from..]);
    out
}

/// A field expression as a `bsn!` value: `{expr}` without references; with them, the
/// expression rewritten where `bsn!` reads `#Name` (the whole value, `Some(..)` as
/// `Option::Some(..)`, fields of struct literals and enum variants); `None` for a reference
/// anywhere else.
pub(crate) fn bsn_value(plan: &Plan, expr: &str) -> Option<String> {
    let Some(rewritten) = references(expr).filter(|r| !r.refs.is_empty()) else {
        return Some(plain_value(expr.trim()));
    };
    let parsed = syn::parse_str::<syn::Expr>(&rewritten.text).ok();
    let out = parsed.and_then(|e| {
        let writer = BsnWriter {
            plan,
            text: &rewritten.text,
            refs: &rewritten.refs,
        };
        writer.value(&e)
    });
    proc_macro2::extra::invalidate_current_thread_spans();
    out
}

/// An enum component's whole value as a `bsn!` entry: its variant by the type's path
/// (`game::RigidBody::Pushed(2.0, {Vec3::X})`), each field a `bsn!` value (references as
/// `#Name`s where `bsn!` reads them); `None` for a reference anywhere else.
pub(crate) fn bsn_enum(plan: &Plan, custom: &CustomComponent) -> Option<String> {
    let value = qualified_value(custom)?;
    // No `#` in it: the value as written, without references.
    let rewritten = references(&value);
    let text = rewritten
        .as_ref()
        .map_or(value.as_str(), |r| r.text.as_str());
    let parsed = syn::parse_str::<syn::Expr>(text).ok();
    let writer = BsnWriter {
        plan,
        text,
        refs: rewritten.as_ref().map_or(&[], |r| r.refs.as_slice()),
    };
    let out = parsed.and_then(|e| writer.variant(&e));
    proc_macro2::extra::invalidate_current_thread_spans();
    out
}

/// An expression without references as a `bsn!` value: a literal as written (`bsn!` assigns
/// it as is), anything else in `{ .. }` (which `bsn!` converts with `.into()`: a bare integer
/// there would fall back to `i32`).
fn plain_value(expr: &str) -> String {
    let literal = matches!(syn::parse_str::<syn::Expr>(expr), Ok(syn::Expr::Lit(_)));
    proc_macro2::extra::invalidate_current_thread_spans();
    plain(expr, literal)
}

/// [`plain_value`] of an expression already parsed (`literal`: whether it is a literal): no
/// second parse, which would end the spans of the expression around it.
fn plain(expr: &str, literal: bool) -> String {
    let expr = super::literal::line_safe(expr);
    if literal { expr } else { format!("{{{expr}}}") }
}

struct BsnWriter<'a, 'p> {
    plan: &'a Plan<'p>,
    /// The expression with references written as identifiers (same offsets as written).
    text: &'a str,
    refs: &'a [Ref],
}

impl BsnWriter<'_, '_> {
    /// The text of `e`, from its span.
    fn source(&self, e: &impl Spanned) -> Option<&str> {
        let span = e.span();
        let (start, end) = (
            offset_of(self.text, span.start()),
            offset_of(self.text, span.end()),
        );
        self.text.get(start..end)
    }

    /// The references inside the text of `e`.
    fn refs_in(&self, e: &impl Spanned) -> usize {
        let span = e.span();
        let (start, end) = (
            offset_of(self.text, span.start()),
            offset_of(self.text, span.end()),
        );
        self.refs
            .iter()
            .filter(|r| r.at >= start && r.at + r.len <= end)
            .count()
    }

    /// The `#Name` of the reference that is exactly `e`.
    fn reference(&self, e: &syn::Expr) -> Option<String> {
        let span = e.span();
        let start = offset_of(self.text, span.start());
        let r = self.refs.iter().find(|r| r.at == start)?;
        let end = offset_of(self.text, span.end());
        if r.at + r.len != end {
            return None;
        }
        let key = self.plan.resolve(r.path.as_deref()?)?;
        Some(format!("#{}", self.plan.idents.get(&key)?))
    }

    /// An enum variant as a `bsn!` entry: its path, then its fields as values.
    fn variant(&self, e: &syn::Expr) -> Option<String> {
        match e {
            syn::Expr::Path(p) => Some(self.source(p)?.trim().to_owned()),
            syn::Expr::Call(call) => {
                let path = self.source(&call.func)?.trim().to_owned();
                let args: Option<Vec<String>> = call.args.iter().map(|a| self.value(a)).collect();
                Some(format!("{path}({})", args?.join(", ")))
            }
            syn::Expr::Struct(s) if s.rest.is_none() => {
                let path = self.source(&s.path)?.trim().to_owned();
                let mut fields = Vec::new();
                for field in &s.fields {
                    let syn::Member::Named(name) = &field.member else {
                        return None;
                    };
                    fields.push(format!("{name}: {}", self.value(&field.expr)?));
                }
                Some(format!("{path} {{ {} }}", fields.join(", ")))
            }
            _ => None,
        }
    }

    fn value(&self, e: &syn::Expr) -> Option<String> {
        if self.refs_in(e) == 0 {
            return Some(plain(
                self.source(e)?.trim(),
                matches!(e, syn::Expr::Lit(_)),
            ));
        }
        match e {
            syn::Expr::Path(_) => self.reference(e),
            syn::Expr::Paren(p) => self.value(&p.expr),
            syn::Expr::Call(call) => {
                let syn::Expr::Path(func) = &*call.func else {
                    return None;
                };
                let path = self.source(func)?.trim().to_owned();
                let last = func.path.segments.last()?.ident.to_string();
                let path = match path.as_str() {
                    "Some" => "Option::Some".to_owned(),
                    // A tuple struct or variant: `Type(..)`, `Enum::Variant(..)`.
                    _ if last.starts_with(|c: char| c.is_ascii_uppercase()) => path,
                    _ => return None,
                };
                let args: Option<Vec<String>> = call.args.iter().map(|a| self.value(a)).collect();
                Some(format!("{path}({})", args?.join(", ")))
            }
            syn::Expr::Struct(s) => {
                let path = self.source(&s.path)?.trim().to_owned();
                let mut fields = Vec::new();
                for field in &s.fields {
                    let syn::Member::Named(name) = &field.member else {
                        return None;
                    };
                    fields.push(format!("{name}: {}", self.value(&field.expr)?));
                }
                // `..Default::default()` is what a patch leaves alone; any other base is not
                // a patch.
                if let Some(rest) = &s.rest {
                    let rest = self.source(rest)?.replace(char::is_whitespace, "");
                    if !matches!(
                        rest.as_str(),
                        "Default::default()" | "default()" | "std::default::Default::default()"
                    ) {
                        return None;
                    }
                }
                Some(format!("{path} {{ {} }}", fields.join(", ")))
            }
            _ => None,
        }
    }
}

/// A custom component as a struct literal: each field's expression verbatim (references as
/// variables), the rest from `Default`; an enum as its value; nothing set as `Type::default()`.
pub(crate) fn custom_literal(plan: &Plan, custom: &CustomComponent, indent: &str) -> String {
    // An enum: its value, the variant named by the type's path.
    if let Some(value) = qualified_value(custom) {
        return super::literal::line_safe(&rust_expr(plan, &value));
    }
    // Nothing set: the type's `Default`, which an enum (whose default variant the file leaves
    // out) has too, where a struct literal could not name it.
    if custom.fields.is_empty() {
        return format!("{}::default()", custom.type_path.trim());
    }
    let mut fields: Vec<String> = custom
        .fields
        .iter()
        .map(|f| {
            let expr = rust_expr(plan, f.expr.trim());
            format!("{}: {}", f.name, super::literal::line_safe(&expr))
        })
        .collect();
    fields.push("..Default::default()".to_owned());
    super::literal::struct_value(&custom.type_path, &fields, indent)
}
