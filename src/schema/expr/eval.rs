//! The evaluator: one `syn` expression against one [`Target`], form by form. Literals, numbers,
//! strings, `Default::default()` and the dispatch live here; composite forms (options, enums,
//! structs, glam and colour constructors) in `compound`.

mod compound;

use std::any::TypeId;

use bevy_reflect::array::DynamicArray;
use bevy_reflect::list::DynamicList;
use bevy_reflect::tuple::DynamicTuple;
use bevy_reflect::tuple_struct::DynamicTupleStruct;
use bevy_reflect::{TypeInfo, TypeRegistry};
use syn::spanned::Spanned;

use super::refs::Ref;
use super::target::{Shape, Target};
use super::types::{IntTy, Special, float_consts};
use super::{EntityRefs, ExprError, MAX_DEPTH, NAME_CHARS, VALUE_CHARS, clip, offset_of, scan};

pub(super) struct Eval<'a> {
    registry: &'a TypeRegistry,
    text: &'a str,
    /// The entity references of the text (see [`super::refs`]).
    refs: &'a [Ref],
    /// What they evaluate to.
    resolver: &'a dyn EntityRefs,
    /// Byte offsets of lines and characters, built on the first position asked for.
    offsets: std::cell::OnceCell<Offsets>,
    /// How many expressions are being evaluated, the outermost included.
    depth: std::cell::Cell<usize>,
    /// The deepest nesting evaluated ([`MAX_DEPTH`]; `scan::check` already refuses deeper
    /// text, this bounds the evaluator on its own).
    limit: usize,
}

/// One level of [`Eval::depth`], given back when dropped.
struct Level<'a>(&'a std::cell::Cell<usize>);

impl Drop for Level<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get().saturating_sub(1));
    }
}

/// A value being built: concrete, or dynamic for composite types.
pub(super) use super::types::Value;

/// The last `n` segment names of a path.
fn tail(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// What `e` is, for messages. `reference` tells the entity references (`#7`) among paths.
fn describe_with(e: &syn::Expr, reference: &dyn Fn(&syn::Path) -> Option<String>) -> String {
    use syn::Expr as E;
    let describe = |e: &syn::Expr| describe_with(e, reference);
    match e {
        E::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => suffixed("an integer", i.suffix()),
            syn::Lit::Float(f) => suffixed("a float", f.suffix()),
            syn::Lit::Str(s) if !s.suffix().is_empty() => {
                format!("a string with the suffix `{}`", s.suffix())
            }
            syn::Lit::Str(_) => "a string".into(),
            syn::Lit::Bool(_) => "a boolean".into(),
            syn::Lit::Char(_) => "a character".into(),
            syn::Lit::Byte(_) => "a byte literal".into(),
            syn::Lit::ByteStr(_) => "a byte string".into(),
            _ => "a literal".into(),
        },
        E::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            match reference_in(&u.expr, reference) {
                Some(r) => format!("a negated entity reference `-{r}`"),
                None => describe(&u.expr),
            }
        }
        E::Paren(p) => describe(&p.expr),
        E::Group(g) => describe(&g.expr),
        E::Tuple(t) if t.elems.is_empty() => "`()`".into(),
        E::Tuple(_) => "a tuple".into(),
        E::Array(_) => "an array".into(),
        E::Macro(m) if m.mac.path.is_ident("vec") => "a `vec![..]`".into(),
        E::Macro(m) => format!("the macro `{}!`", path_text(&tail(&m.mac.path))),
        E::Path(p) => match reference(&p.path) {
            Some(r) => format!("the entity reference `{r}`"),
            None => format!("`{}`", path_text(&tail(&p.path))),
        },
        E::Call(c) => match &*c.func {
            syn::Expr::Path(p) => format!("`{}(..)`", path_text(&tail(&p.path))),
            _ => "a call".into(),
        },
        E::Struct(s) => format!("a `{}` struct literal", path_text(&tail(&s.path))),
        E::MethodCall(m) => format!("a `.{}()` call", clip(&m.method.to_string(), NAME_CHARS)),
        E::Binary(_) => "arithmetic".into(),
        E::Closure(_) => "a closure".into(),
        E::Block(_) | E::Unsafe(_) | E::Async(_) | E::Const(_) => "a block".into(),
        E::Range(_) => "a range".into(),
        E::Reference(_) => "a reference".into(),
        E::Cast(_) => "a cast".into(),
        E::Index(_) => "an index".into(),
        E::Field(_) => "a field access".into(),
        E::If(_)
        | E::Match(_)
        | E::Loop(_)
        | E::While(_)
        | E::ForLoop(_)
        | E::Return(_)
        | E::Break(_)
        | E::Continue(_)
        | E::Yield(_) => "control flow".into(),
        E::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => "a `!` (not)".into(),
        E::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => "a dereference".into(),
        E::Assign(_) => "an assignment".into(),
        E::Let(_) => "a `let`".into(),
        E::Try(_) => "the `?` operator".into(),
        E::Await(_) => "`.await`".into(),
        E::Repeat(_) => "an array repeat `[x; n]`".into(),
        E::Infer(_) => "`_`".into(),
        E::TryBlock(_) => "a `try` block".into(),
        _ => "this expression".into(),
    }
}

/// Where each line of a text starts, to turn a span's line and column (in characters) into a
/// byte offset in constant time: a long expression with many positions asked for (a list of
/// references) stays linear.
struct Offsets {
    /// The character index of each line's start.
    line_chars: Vec<usize>,
    /// The byte offset of each character; `None` for ASCII text, where they are equal.
    char_bytes: Option<Vec<usize>>,
}

impl Offsets {
    fn new(text: &str) -> Self {
        let mut line_chars = vec![0];
        if text.is_ascii() {
            line_chars.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
            return Offsets {
                line_chars,
                char_bytes: None,
            };
        }
        let mut char_bytes = Vec::with_capacity(text.len());
        for (ci, (bi, c)) in text.char_indices().enumerate() {
            char_bytes.push(bi);
            if c == '\n' {
                line_chars.push(ci + 1);
            }
        }
        Offsets {
            line_chars,
            char_bytes: Some(char_bytes),
        }
    }

    /// The byte offset of `lc` (1-based line, 0-based character column); the text's length
    /// past its end.
    fn offset(&self, len: usize, lc: proc_macro2::LineColumn) -> usize {
        let Some(start) = lc.line.checked_sub(1).and_then(|l| self.line_chars.get(l)) else {
            return len;
        };
        let char_index = start + lc.column;
        match &self.char_bytes {
            None => char_index.min(len),
            Some(bytes) => bytes.get(char_index).copied().unwrap_or(len),
        }
    }
}

/// The entity reference `e` is, when it is one.
fn reference_in(e: &syn::Expr, reference: &dyn Fn(&syn::Path) -> Option<String>) -> Option<String> {
    match e {
        syn::Expr::Path(p) => reference(&p.path),
        _ => None,
    }
}

/// Path segments joined with `::`, clipped for messages.
fn path_text(segs: &[String]) -> String {
    clip(&segs.join("::"), NAME_CHARS)
}

/// How to write a value of `ty` (for "expected ..." messages).
fn expected(ty: Target<'_>) -> String {
    let ty = ty.resolved();
    let short = ty.short();
    match ty.shape() {
        Shape::Special(s, _) => match s {
            Special::Quat => {
                "a Quat (`Quat::IDENTITY`, `Quat::from_rotation_y(a)`, `Quat::from_euler(EulerRot::XYZ, a, b, c)`)".into()
            }
            Special::Color => {
                "a colour (`Color::srgb(r, g, b)`, `Color::srgba(r, g, b, a)`, `Color::WHITE`)"
                    .into()
            }
            Special::Srgba | Special::LinearRgba => {
                format!("a colour (`{}::new(r, g, b, a)`)", s.name())
            }
            v => format!(
                "a {0} (`{0}::new(..)`, `{0}::splat(v)` or a constant like `{0}::ZERO`)",
                v.name()
            ),
        },
        Shape::Opaque(info) => match info.type_path() {
            "bool" => "a boolean".into(),
            "char" => "a character".into(),
            "f32" | "f64" => format!("a float ({short})"),
            "alloc::string::String" => "a string".into(),
            p if IntTy::from_name(p).is_some() => format!("an integer ({short})"),
            _ => format!("a `{short}`"),
        },
        Shape::Option(_) => format!("an `{short}` (`Some(..)` or `None`)"),
        Shape::Enum(variants) => format!("a `{short}` variant ({})", variants.list()),
        Shape::Struct(_) => format!("a `{short}` struct literal"),
        Shape::TupleStruct(_) => format!("a `{short}(..)` value"),
        Shape::Tuple(fields) => format!("a tuple of {}", fields.len()),
        Shape::List(_) => format!("a list (`vec![..]` or `[..]`) for `{short}`"),
        Shape::Array(_, len) => format!("an array of {len}"),
        Shape::Entity => "an entity reference (`#7`, or `#7/2` into a prefab instance)".to_owned(),
        Shape::Unwritable => format!("a `{short}`"),
    }
}

impl<'a> Eval<'a> {
    pub(super) fn new(
        registry: &'a TypeRegistry,
        text: &'a str,
        refs: &'a [Ref],
        resolver: &'a dyn EntityRefs,
    ) -> Self {
        Eval {
            registry,
            text,
            refs,
            resolver,
            offsets: std::cell::OnceCell::new(),
            depth: std::cell::Cell::new(0),
            limit: MAX_DEPTH,
        }
    }

    /// Enters the evaluation of `e`, refusing it when it is nested deeper than `limit`.
    fn enter(&self, e: &syn::Expr) -> Result<Level<'_>, ExprError> {
        let depth = self.depth.get();
        if depth > self.limit {
            return Err(ExprError::Unsupported {
                at: self.at(e.span()),
                what: scan::too_deep_message(self.limit),
            });
        }
        self.depth.set(depth + 1);
        Ok(Level(&self.depth))
    }

    fn at(&self, span: proc_macro2::Span) -> usize {
        self.offsets
            .get_or_init(|| Offsets::new(self.text))
            .offset(self.text.len(), span.start())
    }

    /// What `e` is, for messages (entity references told apart from identifiers by where
    /// they are).
    pub(super) fn describe(&self, e: &syn::Expr) -> String {
        describe_with(e, &|path| {
            let ident = path.get_ident()?;
            self.reference_at(self.at(ident.span()))
                .map(|r| r.text(self.text))
        })
    }

    /// The reference at byte `at`, if one starts there.
    fn reference_at(&self, at: usize) -> Option<&Ref> {
        let i = self.refs.binary_search_by_key(&at, |r| r.at).ok()?;
        self.refs.get(i)
    }

    fn mismatch(&self, e: &syn::Expr, ty: Target<'_>) -> ExprError {
        let found = self.describe(e);
        let unsupported = matches!(
            e,
            syn::Expr::Binary(_)
                | syn::Expr::Closure(_)
                | syn::Expr::Block(_)
                | syn::Expr::If(_)
                | syn::Expr::Match(_)
                | syn::Expr::Loop(_)
                | syn::Expr::While(_)
                | syn::Expr::ForLoop(_)
                | syn::Expr::Assign(_)
                | syn::Expr::Unsafe(_)
                | syn::Expr::Async(_)
                | syn::Expr::Await(_)
                | syn::Expr::Reference(_)
                | syn::Expr::Cast(_)
                | syn::Expr::Index(_)
                | syn::Expr::Field(_)
                | syn::Expr::Range(_)
                | syn::Expr::Try(_)
                | syn::Expr::Return(_)
                | syn::Expr::Break(_)
                | syn::Expr::Continue(_)
                | syn::Expr::Yield(_)
                | syn::Expr::TryBlock(_)
                | syn::Expr::Repeat(_)
                | syn::Expr::Let(_)
        ) || matches!(e, syn::Expr::Macro(m) if !m.mac.path.is_ident("vec"))
            || matches!(e, syn::Expr::Unary(u) if !matches!(u.op, syn::UnOp::Neg(_)));
        if unsupported {
            return ExprError::Unsupported {
                at: self.at(e.span()),
                what: found,
            };
        }
        // A bare reference where an `Option<Entity>` goes: say how to write it.
        let found = match (ty.resolved().shape(), e) {
            (Shape::Option(Some(inner)), syn::Expr::Path(p))
                if matches!(inner.resolved().shape(), Shape::Entity) =>
            {
                match p
                    .path
                    .get_ident()
                    .and_then(|i| self.reference_at(self.at(i.span())))
                {
                    Some(r) => format!("{found} (write `Some({})`)", r.text(self.text)),
                    None => found,
                }
            }
            _ => found,
        };
        ExprError::Mismatch {
            at: self.at(e.span()),
            expected: expected(ty),
            found,
        }
    }

    /// Evaluates `e` (one level deeper than its parent) as a value of `ty`.
    pub(super) fn eval(&self, e: &syn::Expr, ty: Target<'_>) -> Result<Value, ExprError> {
        let _level = self.enter(e)?;
        match e {
            syn::Expr::Paren(p) => return self.eval(&p.expr, ty),
            syn::Expr::Group(g) => return self.eval(&g.expr, ty),
            _ => {}
        }
        let ty = ty.resolved();
        if let Some(value) = self.default_call(e, ty)? {
            return Ok(value);
        }
        match ty.shape() {
            Shape::Special(special, info) => self.special(e, special, info),
            Shape::Opaque(info) => self.opaque(e, info),
            Shape::Option(some) => self.option(e, some, ty),
            Shape::Enum(variants) => self.enumeration(e, variants, ty),
            Shape::Struct(fields) => self.structure(e, &fields, ty),
            Shape::TupleStruct(fields) => {
                let syn::Expr::Call(call) = e else {
                    return Err(self.mismatch(e, ty));
                };
                self.check_type_name(&call.func, ty)?;
                let mut out = DynamicTupleStruct::default();
                out.set_represented_type(ty.info());
                for v in self.items(&call.args, &fields, e, ty)? {
                    out.insert_boxed(v);
                }
                Ok(Box::new(out))
            }
            Shape::Tuple(fields) => {
                let syn::Expr::Tuple(tuple) = e else {
                    return Err(self.mismatch(e, ty));
                };
                let mut out = DynamicTuple::default();
                out.set_represented_type(ty.info());
                for v in self.items(&tuple.elems, &fields, e, ty)? {
                    out.insert_boxed(v);
                }
                Ok(Box::new(out))
            }
            Shape::List(item) => {
                let elems = self.sequence(e, ty)?;
                let item = item.ok_or_else(|| self.unwritable(e, ty))?;
                let mut out = DynamicList::default();
                out.set_represented_type(ty.info());
                for el in elems.iter() {
                    out.push_box(self.eval(el, item)?);
                }
                Ok(Box::new(out))
            }
            Shape::Array(item, len) => {
                let elems = self.sequence(e, ty)?;
                let item = item.ok_or_else(|| self.unwritable(e, ty))?;
                let values = self.items(&elems, &vec![Some(item); len], e, ty)?;
                let mut out = DynamicArray::new(values.into_boxed_slice());
                out.set_represented_type(ty.info());
                Ok(Box::new(out))
            }
            Shape::Entity => self.entity(e, ty),
            Shape::Unwritable => Err(self.unwritable(e, ty)),
        }
    }

    /// An entity reference (`#7`, `#7/2`), as the resolver gives it.
    fn entity(&self, e: &syn::Expr, ty: Target<'_>) -> Result<Value, ExprError> {
        let at = self.at(e.span());
        let reference = match e {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => self.reference_at(at),
            _ => None,
        };
        let Some(reference) = reference else {
            return Err(self.mismatch(e, ty));
        };
        let written = reference.text(self.text);
        let Some(path) = &reference.path else {
            return Err(ExprError::Reference {
                at,
                reference: written,
                reason: "an id does not fit in a `u64`".to_owned(),
            });
        };
        self.resolver
            .resolve(path)
            .map_err(|reason| ExprError::Reference {
                at,
                reference: written,
                reason,
            })
    }

    fn unwritable(&self, e: &syn::Expr, ty: Target<'_>) -> ExprError {
        ExprError::Unwritable {
            at: self.at(e.span()),
            ty: ty.short().to_owned(),
        }
    }

    /// Evaluates `args` against the field types `fields` of `ty`, checking the count.
    fn items(
        &self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        fields: &[Option<Target<'_>>],
        whole: &syn::Expr,
        ty: Target<'_>,
    ) -> Result<Vec<Value>, ExprError> {
        if args.len() != fields.len() {
            return Err(ExprError::Mismatch {
                at: self.at(whole.span()),
                expected: format!("{} value(s) for `{}`", fields.len(), ty.short()),
                found: format!("{}", args.len()),
            });
        }
        args.iter()
            .zip(fields)
            .map(|(arg, field)| match field {
                Some(field) => self.eval(arg, *field),
                None => Err(self.unwritable(arg, ty)),
            })
            .collect()
    }

    /// The elements of `[..]` or `vec![..]`.
    fn sequence(
        &self,
        e: &syn::Expr,
        ty: Target<'_>,
    ) -> Result<syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, ExprError> {
        match e {
            syn::Expr::Array(a) => Ok(a.elems.clone()),
            syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => m
                .mac
                .parse_body_with(syn::punctuated::Punctuated::parse_terminated)
                .map_err(|err| ExprError::Syntax {
                    at: self.at(err.span()),
                    message: format!("{err} (only `vec![a, b, ..]` is supported)"),
                }),
            syn::Expr::Call(c) if call_name(c).is_some_and(|n| ends(&n, &["Vec", "new"])) => {
                Ok(syn::punctuated::Punctuated::new())
            }
            _ => Err(self.mismatch(e, ty)),
        }
    }

    /// `Default::default()`, `default()`, `T::default()`: the type's reflected default.
    fn default_call(&self, e: &syn::Expr, ty: Target<'_>) -> Result<Option<Value>, ExprError> {
        let syn::Expr::Call(call) = e else {
            return Ok(None);
        };
        let Some(name) = call_name(call) else {
            return Ok(None);
        };
        if !call.args.is_empty() || name.last().is_none_or(|n| n != "default") {
            return Ok(None);
        }
        self.reflected_default(ty, e).map(Some)
    }

    /// The reflected `Default` of `ty`. A type known only by its schema has none to build; an
    /// empty dynamic tuple stands in (offline checks only look at the numbers of scalars).
    fn reflected_default(&self, ty: Target<'_>, e: &syn::Expr) -> Result<Value, ExprError> {
        let Some(info) = ty.info() else {
            return Ok(Box::new(DynamicTuple::default()));
        };
        let default = self
            .registry
            .get_type_data::<bevy_reflect::std_traits::ReflectDefault>(info.type_id())
            .ok_or_else(|| ExprError::Reflect {
                at: self.at(e.span()),
                reason: format!(
                    "`{}` has no reflected `Default` (add `#[reflect(Default)]` and register the type), so `default()` is not available",
                    info.type_path_table().short_path()
                ),
            })?;
        Ok(default.default().into_partial_reflect())
    }

    fn check_type_name(&self, func: &syn::Expr, ty: Target<'_>) -> Result<(), ExprError> {
        let ident = ty.ident();
        match func {
            syn::Expr::Path(p)
                if p.path.segments.last().is_some_and(|s| s.ident == ident)
                    || p.path.is_ident("Self") =>
            {
                Ok(())
            }
            other => Err(self.mismatch(other, ty)),
        }
    }

    /// Evaluates `e` (one level deeper than its parent) as a float.
    fn float(&self, e: &syn::Expr, ty: Target<'_>) -> Result<f64, ExprError> {
        let _level = self.enter(e)?;
        self.float_here(e, ty)
    }

    /// [`float`](Self::float) of an expression already entered.
    fn float_here(&self, e: &syn::Expr, ty: Target<'_>) -> Result<f64, ExprError> {
        match e {
            syn::Expr::Paren(p) => self.float(&p.expr, ty),
            syn::Expr::Group(g) => self.float(&g.expr, ty),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
                Ok(-self.float(&u.expr, ty)?)
            }
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(f),
                ..
            }) => {
                self.float_suffix(e, f.suffix(), ty)?;
                let v = f.base10_parse::<f64>().map_err(|err| ExprError::Syntax {
                    at: self.at(f.span()),
                    message: err.to_string(),
                })?;
                self.finite(e, v, ty)
            }
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) if i.suffix().is_empty() || i.suffix().starts_with('f') => {
                self.float_suffix(e, i.suffix(), ty)?;
                let v = i.base10_parse::<f64>().map_err(|err| ExprError::Syntax {
                    at: self.at(i.span()),
                    message: err.to_string(),
                })?;
                self.finite(e, v, ty)
            }
            syn::Expr::Path(p) => {
                let segs = tail(&p.path);
                let consts = segs.len() >= 2
                    && segs[segs.len() - 2] == "consts"
                    && (segs.len() < 3 || matches!(segs[segs.len() - 3].as_str(), "f32" | "f64"));
                let bare = segs.len() == 1;
                let last = segs.last().map(String::as_str).unwrap_or_default();
                if (consts || bare)
                    && let Some(v) = float_consts(last)
                {
                    return Ok(v);
                }
                if consts {
                    return Err(ExprError::Unsupported {
                        at: self.at(e.span()),
                        what: format!("the unknown constant `{}`", path_text(&segs)),
                    });
                }
                if segs.len() >= 2 && matches!(segs[segs.len() - 2].as_str(), "f32" | "f64") {
                    let f32ish = segs[segs.len() - 2] == "f32";
                    let v = match (last, f32ish) {
                        ("INFINITY", _) => f64::INFINITY,
                        ("NEG_INFINITY", _) => f64::NEG_INFINITY,
                        ("NAN", _) => f64::NAN,
                        ("MAX", true) => f32::MAX.into(),
                        ("MIN", true) => f32::MIN.into(),
                        ("EPSILON", true) => f32::EPSILON.into(),
                        ("MAX", false) => f64::MAX,
                        ("MIN", false) => f64::MIN,
                        ("EPSILON", false) => f64::EPSILON,
                        _ => {
                            return Err(ExprError::Unsupported {
                                at: self.at(e.span()),
                                what: format!("the unknown constant `{}`", path_text(&segs)),
                            });
                        }
                    };
                    return Ok(v);
                }
                Err(ExprError::Mismatch {
                    at: self.at(e.span()),
                    expected: expected(ty),
                    found: self.describe(e),
                })
            }
            syn::Expr::MethodCall(m)
                if m.args.is_empty() && (m.method == "to_radians" || m.method == "to_degrees") =>
            {
                let v = self.float(&m.receiver, ty)?;
                let radians = m.method == "to_radians";
                // For an `f32`, rustc converts in `f32`: through `f64` the result can differ in
                // the last bit (`2.59f32.to_radians()`).
                if ty.short() == "f32" {
                    let v = self.narrow(&m.receiver, v)?;
                    return Ok(f64::from(if radians {
                        v.to_radians()
                    } else {
                        v.to_degrees()
                    }));
                }
                Ok(if radians {
                    v.to_radians()
                } else {
                    v.to_degrees()
                })
            }
            _ => Err(self.mismatch(e, ty)),
        }
    }

    /// Whether a float literal `e` for `ty` may carry `suffix`: none, or the float type `ty`
    /// is (`f32` for an `f32` and for the arguments of `Vec3::new`, `f64` otherwise), as rustc
    /// allows (`5f64` for an `f32` is refused).
    fn float_suffix(&self, e: &syn::Expr, suffix: &str, ty: Target<'_>) -> Result<(), ExprError> {
        let float = match ty.short() {
            "f32" => "f32",
            _ => "f64",
        };
        if suffix.is_empty() || suffix == float {
            return Ok(());
        }
        Err(ExprError::Mismatch {
            at: self.at(e.span()),
            expected: expected(ty),
            found: suffixed("a float", suffix),
        })
    }

    /// `v`, the value of the literal `e`, unless it overflowed to infinity (`1e400`).
    fn finite(&self, e: &syn::Expr, v: f64, ty: Target<'_>) -> Result<f64, ExprError> {
        if v.is_finite() {
            return Ok(v);
        }
        let ty = match ty.short() {
            "f32" => "f32",
            _ => "f64",
        };
        Err(self.overflow(e, ty))
    }

    /// The finite `v`, the value of `e`, as an `f32`, unless it is too large for one (`1e39`,
    /// `f64::MAX`). Infinities and NaN written as such (`f32::INFINITY`) stay.
    fn narrow(&self, e: &syn::Expr, v: f64) -> Result<f32, ExprError> {
        // A literal (signed, in parentheses) is read as an `f32` directly, as rustc reads it:
        // through an `f64` it would be rounded twice (`1.0000000596046447753906250001`).
        if let Some(direct) = f32_literal(e)
            && direct.is_finite()
        {
            return Ok(direct);
        }
        let narrow = v as f32;
        if v.is_finite() && narrow.is_infinite() {
            return Err(self.overflow(e, "f32"));
        }
        Ok(narrow)
    }

    /// "`e` does not fit in `ty`", with `e` as written.
    fn overflow(&self, e: &syn::Expr, ty: &str) -> ExprError {
        let span = e.span();
        let start = self.at(span);
        let end = offset_of(self.text, span.end()).max(start);
        ExprError::Overflow {
            at: start,
            value: clip(self.text.get(start..end).unwrap_or_default(), VALUE_CHARS),
            ty: ty.to_owned(),
        }
    }

    fn floats(
        &self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        n: usize,
        whole: &syn::Expr,
        ty: Target<'_>,
    ) -> Result<Vec<f32>, ExprError> {
        if args.len() != n {
            return Err(ExprError::Mismatch {
                at: self.at(whole.span()),
                expected: format!("{n} argument(s)"),
                found: format!("{}", args.len()),
            });
        }
        args.iter()
            .map(|a| self.float(a, f32_target()).and_then(|v| self.narrow(a, v)))
            .collect::<Result<_, _>>()
            .map_err(|err| match err {
                ExprError::Mismatch { at, found, .. } => ExprError::Mismatch {
                    at,
                    expected: format!("a float argument for {}", expected(ty)),
                    found,
                },
                other => other,
            })
    }

    fn opaque(&self, e: &syn::Expr, info: &'static TypeInfo) -> Result<Value, ExprError> {
        let id = info.type_id();
        let ty = Target::Info(info);
        if id == TypeId::of::<f32>() {
            let v = self.float_here(e, ty)?;
            return Ok(Box::new(self.narrow(e, v)?));
        }
        if id == TypeId::of::<f64>() {
            return Ok(Box::new(self.float_here(e, ty)?));
        }
        if id == TypeId::of::<bool>() {
            return match e {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(b),
                    ..
                }) => Ok(Box::new(b.value)),
                _ => Err(self.mismatch(e, ty)),
            };
        }
        if id == TypeId::of::<char>() {
            return match e {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Char(c),
                    ..
                }) => Ok(Box::new(c.value())),
                _ => Err(self.mismatch(e, ty)),
            };
        }
        if id == TypeId::of::<String>() {
            return Ok(Box::new(self.string(e, ty)?));
        }
        if let Some(int) = IntTy::from_name(info.type_path()) {
            return self.integer(e, int, ty);
        }
        Err(self.unwritable(e, ty))
    }

    fn string(&self, e: &syn::Expr, ty: Target<'_>) -> Result<String, ExprError> {
        let lit = |e: &syn::Expr| match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) if s.suffix().is_empty() => Some(s.value()),
            _ => None,
        };
        if let Some(s) = lit(e) {
            return Ok(s);
        }
        match e {
            syn::Expr::Call(c) => {
                let name = call_name(c).unwrap_or_default();
                if ends(&name, &["String", "from"])
                    && c.args.len() == 1
                    && let Some(s) = c.args.first().and_then(lit)
                {
                    return Ok(s);
                }
                if ends(&name, &["String", "new"]) && c.args.is_empty() {
                    return Ok(String::new());
                }
                Err(self.mismatch(e, ty))
            }
            syn::Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(
                        m.method.to_string().as_str(),
                        "into" | "to_string" | "to_owned"
                    ) =>
            {
                lit(&m.receiver).ok_or_else(|| self.mismatch(&m.receiver, ty))
            }
            _ => Err(self.mismatch(e, ty)),
        }
    }

    fn integer(&self, e: &syn::Expr, int: IntTy, ty: Target<'_>) -> Result<Value, ExprError> {
        let (negative, inner) = match e {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => (true, &*u.expr),
            _ => (false, e),
        };
        let mut inner = inner;
        while let syn::Expr::Paren(syn::ExprParen { expr, .. })
        | syn::Expr::Group(syn::ExprGroup { expr, .. }) = inner
        {
            inner = expr;
        }
        if negative && matches!(inner, syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_))) {
            return Err(ExprError::Unsupported {
                at: self.at(e.span()),
                what: "negating a negative number (`--`)".into(),
            });
        }
        match inner {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => {
                if !i.suffix().is_empty() && i.suffix() != int.name() {
                    return Err(ExprError::Mismatch {
                        at: self.at(e.span()),
                        expected: expected(ty),
                        // `an i8`, `an f32`, `a u8`: as the suffix is said.
                        found: suffixed("an integer", i.suffix()),
                    });
                }
                let overflow = || ExprError::Overflow {
                    at: self.at(e.span()),
                    value: clip(
                        &format!("{}{}", if negative { "-" } else { "" }, i.base10_digits()),
                        VALUE_CHARS,
                    ),
                    ty: int.name().to_owned(),
                };
                let magnitude = i.base10_parse::<u128>().map_err(|_| overflow())?;
                int.boxed(negative, magnitude).ok_or_else(overflow)
            }
            syn::Expr::Path(p) if !negative => {
                let segs = tail(&p.path);
                match segs.as_slice() {
                    [.., name, c] if name == int.name() && (c == "MAX" || c == "MIN") => {
                        let value = if c == "MAX" {
                            int.boxed(false, int.max())
                        } else {
                            int.boxed(int.signed(), int.min().unsigned_abs())
                        };
                        value.ok_or_else(|| self.mismatch(e, ty))
                    }
                    _ => Err(self.mismatch(e, ty)),
                }
            }
            _ => Err(self.mismatch(e, ty)),
        }
    }
}

/// What a number literal is, for messages: `plain` ("an integer", "a float") without a
/// suffix, else the suffix as said ("an `i8` literal", "a `u8` literal", "an `f16` literal").
fn suffixed(plain: &str, suffix: &str) -> String {
    if suffix.is_empty() {
        return plain.to_owned();
    }
    let article = if suffix.starts_with(['i', 'f']) {
        "an"
    } else {
        "a"
    };
    format!("{article} `{suffix}` literal")
}

/// The value of a float or integer literal for an `f32` (`1.5`, `-2`, `(3e4f32)`), parsed as
/// an `f32`; `None` for anything else, or a suffix other than none and `f32`.
fn f32_literal(e: &syn::Expr) -> Option<f32> {
    match e {
        syn::Expr::Paren(p) => f32_literal(&p.expr),
        syn::Expr::Group(g) => f32_literal(&g.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            f32_literal(&u.expr).map(|v| -v)
        }
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) if matches!(f.suffix(), "" | "f32") => f.base10_parse::<f32>().ok(),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) if matches!(i.suffix(), "" | "f32") => i.base10_parse::<f32>().ok(),
        _ => None,
    }
}

/// Whether the path segments `segs` end with `pattern`.
pub(super) fn ends(segs: &[String], pattern: &[&str]) -> bool {
    segs.len() >= pattern.len()
        && segs[segs.len() - pattern.len()..]
            .iter()
            .zip(pattern)
            .all(|(a, b)| a == b)
}

pub(super) fn call_name(c: &syn::ExprCall) -> Option<Vec<String>> {
    match &*c.func {
        syn::Expr::Path(p) => Some(tail(&p.path)),
        _ => None,
    }
}

/// `f32`, the type of glam and colour constructor arguments.
pub(super) fn f32_target() -> Target<'static> {
    Target::Info(<f32 as bevy_reflect::Typed>::type_info())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_reflect::Typed;

    /// The evaluator counts its own depth: with a lower limit, deeper nesting is refused even
    /// though the text passed `scan::check`.
    #[test]
    fn the_evaluator_refuses_nesting_beyond_its_limit() {
        let registry = TypeRegistry::new();
        let info = <Option<Option<f32>>>::type_info();
        let run = |text: &str, limit: usize| {
            let parsed = match syn::parse_str::<syn::Expr>(text) {
                Ok(parsed) => parsed,
                Err(e) => panic!("{text}: {e}"),
            };
            let eval = Eval {
                limit,
                ..Eval::new(&registry, text, &[], &super::super::NoRefs)
            };
            let result = eval.eval(&parsed, Target::Info(info)).map(|_| ());
            assert_eq!(eval.depth.get(), 0, "every level is given back");
            result
        };
        assert_eq!(run("Some(Some(1.0))", 2), Ok(()));
        assert_eq!(
            run("Some(Some(1.0))", 1),
            Err(ExprError::Unsupported {
                at: 10,
                what: "nesting deeper than 1 levels".into(),
            })
        );
        assert_eq!(
            run("Some(Some(-(-1.0)))", 3),
            Err(ExprError::Unsupported {
                at: 12,
                what: "nesting deeper than 3 levels".into(),
            })
        );
    }
}
