//! Field expressions of custom components: text to a reflected value, evaluated as data.
//!
//! A custom field's `expr` is a Rust expression stored as text (`"2.0"`, `"Vec3::Y"`,
//! `"Some(Mode::Fast)"`). [`evaluate`] turns it into a value of the field's reflected type. It is
//! never compiled or run: plain literals are read directly, anything else is parsed with `syn`
//! and only this subset is understood:
//!
//! - literals: integers (`10`, `1_000`, `10u8`, `0xff`; a minus only for signed types, as
//!   rustc: `-0` is refused for a `u8`), floats (`2.0`, `-0.5`, `1e3`, `2.0f32`; an integer
//!   literal is accepted for a float; a suffix, if any, names the field's type: `2.0f64` is
//!   refused for an `f32`), `true`/`false`, chars, strings (every Rust escape, raw strings; an
//!   unknown escape such as `\q` is refused at its backslash, and so is a suffix: `"x"px`);
//!   `to_radians()`/`to_degrees()` on an `f32` convert in `f32`, as rustc does;
//! - `Some(x)`, `None`, tuples `(a, b)`, arrays `[a, b]`, `vec![a, b]`;
//! - `Vec2`/`Vec3`/`Vec3A`/`Vec4`: constants (`ZERO`, `ONE`, `NEG_ONE`, `X`, `Y`, `Z`, `W`,
//!   `NEG_X`, ...), `::new(..)`, `::splat(v)`; `Quat::IDENTITY`, `Quat::from_rotation_x/y/z(a)`,
//!   `Quat::from_euler(EulerRot::XYZ, a, b, c)`, `Quat::from_xyzw(..)`,
//!   `Quat::from_axis_angle(axis, a)` (angles in radians; `90f32.to_radians()` works);
//! - `Color::srgb(r, g, b)`, `Color::srgba(r, g, b, a)`, `Color::srgb_u8(..)`, and the same
//!   pair for every other colour space of `Color` (`linear_rgb`/`linear_rgba`, `hsl`/`hsla`,
//!   `hsv`/`hsva`, `hwb`/`hwba`, `lab`/`laba`, `lch`/`lcha`, `oklab`/`oklaba`,
//!   `oklch`/`oklcha`, `xyz`/`xyza`, `okhsl`/`okhsla`, `okhsv`/`okhsva`, `okhwb`/`okhwba`: the
//!   channels in the order of the space's fields), `Color::WHITE`/`BLACK`/`NONE`;
//! - enum variants (`Mode::Fast`, `Fast`, `Shape::Circle(1.0)`, `Shape::Rect { w: 1.0, h: 2.0 }`),
//!   struct literals `Type { field: expr, ..Default::default() }` (or `..default()`), tuple
//!   structs `Type(a, b)`, `Default::default()` / `default()`;
//! - `String::from("x")`, `"x".into()`, `"x".to_string()`, `"x".to_owned()`;
//! - `f32::consts::PI` (any of `std::`/`core::`, `f32`/`f64`, and `PI`, `TAU`, `E`,
//!   `FRAC_PI_2`, ...), `f32::INFINITY`, `f32::MAX`, `u8::MAX`, ... and a leading minus.
//!
//! - entity references where the field's type has an `Entity`: `#7` (the scene's entity 7),
//!   `#7/2` (entity 2 of the prefab that entity 7 places), resolved by an [`EntityRefs`]
//!   ([`evaluate_in`]); the `format` module docs, "Entity references".
//!
//! Anything else (function calls, arithmetic, macros other than `vec!`, unknown paths) is an
//! [`ExprError`]. Paths are matched by their last segments, so `glam::Vec3::Y` and
//! `bevy::math::Vec3::Y` mean `Vec3::Y`. A number that does not fit the field's type is an
//! [`ExprError::Overflow`], floats included (`1e39` for an `f32`); infinities and NaN are
//! written as the constants `f32::INFINITY`, `f32::NEG_INFINITY`, `f32::NAN`.
//!
//! # Limits
//!
//! Evaluation is bounded in depth and time whatever the text: before parsing, an expression
//! longer than [`MAX_LEN`] bytes, a number literal longer than [`MAX_NUMBER_LEN`] characters, and
//! nesting deeper than [`MAX_DEPTH`] levels are refused with [`ExprError::Unsupported`]. Nesting
//! counts open brackets and also chains of prefix, postfix and binary operators, method calls,
//! casts and keywords (`--x`, `x.f().g()`, `x as u8 as u16`, `return return x`, `Vec<Vec<u8>>`),
//! which `syn` parses recursively too; strings, characters and comments do not count. So no
//! expression can overflow the stack: at the limit, parsing and evaluating use at most about
//! 512 KiB in a debug build (Rust threads get 2 MiB by default), much less when optimized.
//!
//! [`evaluate_schema`] applies the same rules knowing only the field's schema
//! ([`FieldSchema::type_name`](crate::schema::FieldSchema::type_name) and [`FieldKind`]), with the
//! same errors: the offline check of `forge validate --schema`.

mod eval;
mod refs;
mod render;
#[cfg(feature = "import")]
pub(crate) use render::float_text;
mod scan;
mod target;
mod types;

pub(crate) use refs::{Ref, prefix_references, rewrite as references};

/// An entity reference (`#7`, `#7/2`) found in a field expression by [`entity_references`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityReference {
    /// Where it is: a byte range of the expression, from its `#` to its last digit.
    pub range: std::ops::Range<usize>,
    /// The id path it names (`[7, 2]` for `#7/2`); `None` when an id does not fit a `u64`.
    pub path: Option<Vec<u64>>,
}

/// The entity references of field expression `expr`, in order (the `format` module docs,
/// "Entity references"): each `#` followed by ids separated by `/`, outside strings,
/// characters and comments, and not glued to a letter, digit or `_` (which is an error of the
/// expression, not a reference). The loader and `forge validate` check the same references;
/// editors use this to show, follow and complete them.
pub fn entity_references(expr: &str) -> Vec<EntityReference> {
    references(expr).map_or_else(Vec::new, |r| {
        r.refs
            .into_iter()
            .map(|r| EntityReference {
                range: r.at..r.at + r.len,
                path: r.path,
            })
            .collect()
    })
}
pub use render::{render, render_with};
pub use scan::{MAX_DEPTH, MAX_LEN, MAX_NUMBER_LEN};
pub(crate) use target::Target;
#[cfg(feature = "import")]
pub(crate) use types::{COLOUR_SPACES, ColourSpace};
pub(crate) use types::{IntTy, special_kind};

use std::any::TypeId;

use bevy_color::{Color, LinearRgba, Srgba};
use bevy_reflect::{PartialReflect, ReflectMut, ReflectRef, TypeInfo, TypeRegistry};
use glam::{Quat, Vec2, Vec3, Vec3A, Vec4};

use crate::schema::FieldKind;
use eval::Eval;
use types::Plain;

/// What field expressions may be, in one line (used as help text).
pub(crate) const SUPPORTED: &str = "literals, Some/None, tuples, arrays, vec![..], Vec2/Vec3/Vec4/Quat and Color constants and constructors, enum variants, struct literals with ..default(), String::from, f32::consts, entity references (#7, #7/2)";

/// Why a field expression could not be evaluated. `at` is the byte offset inside the expression
/// where the problem starts (see [`ExprError::at`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ExprError {
    /// The text is not a Rust expression.
    #[error("not a Rust expression: {message}")]
    Syntax {
        /// Byte offset in the expression.
        at: usize,
        /// The parser's message.
        message: String,
    },
    /// The expression is of another type than the field.
    #[error("expected {expected}, found {found}")]
    Mismatch {
        /// Byte offset in the expression.
        at: usize,
        /// What the field's type accepts (`an integer (u32)`).
        expected: String,
        /// What the expression is (`a float`).
        found: String,
    },
    /// A form outside the supported subset (a function call, arithmetic, a macro, ...).
    #[error("{what} is not supported in a field expression")]
    Unsupported {
        /// Byte offset in the expression.
        at: usize,
        /// What was found (`a call of `spawn_enemy``).
        what: String,
    },
    /// An enum variant the type does not have.
    #[error("`{ty}` has no variant `{variant}`; its variants are {variants}")]
    UnknownVariant {
        /// Byte offset in the expression.
        at: usize,
        /// The enum.
        ty: String,
        /// The variant written.
        variant: String,
        /// The variants, comma separated.
        variants: String,
    },
    /// A struct literal names a field the type does not have.
    #[error("`{ty}` has no field `{field}`; its fields are {fields}")]
    UnknownField {
        /// Byte offset in the expression.
        at: usize,
        /// The struct or variant.
        ty: String,
        /// The field written.
        field: String,
        /// The fields, comma separated.
        fields: String,
    },
    /// A struct literal without `..default()` leaves fields out.
    #[error("missing {fields} in `{ty}`; set them or end with `..default()`")]
    MissingFields {
        /// Byte offset in the expression.
        at: usize,
        /// The struct or variant.
        ty: String,
        /// The missing fields, comma separated.
        fields: String,
    },
    /// A number that does not fit the field's type.
    #[error("{value} does not fit in {ty}")]
    Overflow {
        /// Byte offset in the expression.
        at: usize,
        /// The number as written.
        value: String,
        /// The numeric type.
        ty: String,
    },
    /// The field's type cannot be written in a scene at all (a map, a handle, ...).
    #[error("fields of type `{ty}` cannot be set from a scene")]
    Unwritable {
        /// Byte offset in the expression.
        at: usize,
        /// The type.
        ty: String,
    },
    /// Reflection refused the value (for example `..default()` on a type without reflected
    /// `Default`).
    #[error("{reason}")]
    Reflect {
        /// Byte offset in the expression.
        at: usize,
        /// What went wrong.
        reason: String,
    },
    /// An entity reference (`#7`) that does not resolve to an entity of the scene.
    #[error("entity reference `{reference}`: {reason}")]
    Reference {
        /// Byte offset in the expression.
        at: usize,
        /// The reference as written.
        reference: String,
        /// Why it does not resolve.
        reason: String,
    },
}

impl ExprError {
    /// The byte offset inside the expression text where the problem starts.
    pub fn at(&self) -> usize {
        match self {
            ExprError::Syntax { at, .. }
            | ExprError::Mismatch { at, .. }
            | ExprError::Unsupported { at, .. }
            | ExprError::UnknownVariant { at, .. }
            | ExprError::UnknownField { at, .. }
            | ExprError::MissingFields { at, .. }
            | ExprError::Overflow { at, .. }
            | ExprError::Unwritable { at, .. }
            | ExprError::Reflect { at, .. }
            | ExprError::Reference { at, .. } => *at,
        }
    }
}

/// Evaluates `expr` into a value of the type described by `target`.
///
/// The result is a concrete value for primitives, strings, glam and colour types and
/// structs built with `..default()`, and a dynamic value (`DynamicStruct`, `DynamicEnum`, ...)
/// representing `target` otherwise; apply it onto a value of the type (see [`assign`]).
/// `registry` provides reflected `Default`s for `..default()` and `Default::default()`.
///
/// # Errors
/// An [`ExprError`] naming what was expected and what was found, with the byte offset of the
/// problem inside `expr`; [`ExprError::Unsupported`] beyond the [limits](self#limits).
pub fn evaluate(
    expr: &str,
    target: &'static TypeInfo,
    registry: &TypeRegistry,
) -> Result<Box<dyn PartialReflect>, ExprError> {
    evaluate_as(expr, Target::Info(target), registry, &NoRefs)
}

/// Evaluates `expr` as a value of a type known only by its schema: `type_name` (the short
/// type path, as in [`FieldSchema::type_name`](crate::schema::FieldSchema::type_name)) and
/// `kind`. This is the offline check of `forge validate --schema`: the same rules, errors and
/// messages as [`evaluate`] on the real type, without the game's code.
///
/// The result is a concrete value for primitives, strings, glam and colour types (so ranges
/// can be checked), and a dynamic value without a represented type otherwise.
///
/// Two differences with [`evaluate`] remain, both because a schema cannot say more:
/// `Default::default()` and `..default()` on a game type are accepted (the loader also needs the
/// type's reflected `Default`), and parts nested deeper than the schema describes (see
/// [`FieldKind`]) are refused as unwritable.
///
/// # Errors
/// An [`ExprError`], as [`evaluate`] returns it for the type the schema describes.
pub fn evaluate_schema(
    expr: &str,
    type_name: &str,
    kind: &FieldKind,
) -> Result<Box<dyn PartialReflect>, ExprError> {
    let target = Target::Kind { type_name, kind };
    evaluate_as(expr, target, &SCHEMA_REGISTRY, &NoRefs)
}

/// The reflected `Default`s offline evaluation uses: primitives, `String`, glam and colour
/// types (which the loader's registry has too).
static SCHEMA_REGISTRY: std::sync::LazyLock<TypeRegistry> = std::sync::LazyLock::new(|| {
    let mut registry = TypeRegistry::new();
    registry.register::<Vec2>();
    registry.register::<Vec3>();
    registry.register::<Vec3A>();
    registry.register::<Vec4>();
    registry.register::<Quat>();
    registry.register::<Color>();
    registry.register::<Srgba>();
    registry.register::<LinearRgba>();
    registry
});

/// The registry offline evaluation uses (see [`SCHEMA_REGISTRY`]).
pub(crate) fn schema_registry() -> &'static TypeRegistry {
    &SCHEMA_REGISTRY
}

/// The type path of Bevy's `Entity`, which fields hold as references (`#7`). Named, not
/// imported: this part of the crate does not depend on Bevy's ECS.
pub(crate) const ENTITY_TYPE_PATH: &str = "bevy_ecs::entity::Entity";

/// What the entity references of an expression (`#7`, `#7/2`; see [the module docs](self))
/// evaluate to: the scene the expression is in answers.
pub trait EntityRefs {
    /// The value of an `Entity` field that refers to the entity at id path `path` (`[7]`,
    /// `[7, 2]`).
    ///
    /// # Errors
    /// Why there is no such entity, as a message (`no entity 9 in this scene; did you mean
    /// #8?`).
    fn resolve(&self, path: &[u64]) -> Result<Box<dyn PartialReflect>, String>;
}

/// No scene: every reference is an error.
pub struct NoRefs;

impl EntityRefs for NoRefs {
    fn resolve(&self, _: &[u64]) -> Result<Box<dyn PartialReflect>, String> {
        Err("entity references need the scene the expression is in".to_owned())
    }
}

/// [`evaluate`], with entity references (`#7`) resolved by `refs`.
///
/// # Errors
/// As [`evaluate`], and [`ExprError::Reference`] for a reference `refs` does not resolve.
pub fn evaluate_in(
    expr: &str,
    target: &'static TypeInfo,
    registry: &TypeRegistry,
    refs: &dyn EntityRefs,
) -> Result<Box<dyn PartialReflect>, ExprError> {
    evaluate_as(expr, Target::Info(target), registry, refs)
}

/// [`evaluate_as`], handing the value to `f` rather than returning it, so a plain literal (a
/// number, `true` or `false`, a string without escapes) for a primitive field is never boxed:
/// what building a custom component does for most fields. `f` may take from the value
/// ([`assign_taking`]).
///
/// # Errors
/// As [`evaluate_as`].
pub(crate) fn evaluate_with<R>(
    expr: &str,
    target: Target<'_>,
    registry: &TypeRegistry,
    resolver: &dyn EntityRefs,
    f: impl FnOnce(&mut dyn PartialReflect) -> R,
) -> Result<R, ExprError> {
    let target = target.resolved();
    if let Target::Info(info) = target
        && let Some(mut value) = fast(expr, info)
    {
        return Ok(f(value.as_reflect_mut()));
    }
    evaluate_parsed(expr, target, registry, resolver).map(|mut v| f(v.as_mut()))
}

/// [`evaluate`] or [`evaluate_schema`], by target.
pub(crate) fn evaluate_as(
    expr: &str,
    target: Target<'_>,
    registry: &TypeRegistry,
    resolver: &dyn EntityRefs,
) -> Result<Box<dyn PartialReflect>, ExprError> {
    let target = target.resolved();
    if let Target::Info(info) = target
        && let Some(value) = fast(expr, info)
    {
        return Ok(value.boxed());
    }
    evaluate_parsed(expr, target, registry, resolver)
}

/// [`evaluate_as`] without the shortcut for plain literals: parsed and evaluated in full.
fn evaluate_parsed(
    expr: &str,
    target: Target<'_>,
    registry: &TypeRegistry,
    resolver: &dyn EntityRefs,
) -> Result<Box<dyn PartialReflect>, ExprError> {
    // References become identifiers of the same length: offsets stay the user's.
    let rewritten = refs::rewrite(expr);
    if let Some((at, message)) = rewritten.as_ref().and_then(|r| r.glued_error(expr)) {
        return Err(ExprError::Syntax { at, message });
    }
    let (text, refs) = match &rewritten {
        Some(r) => (r.text.as_str(), r.refs.as_slice()),
        None => (expr, &[][..]),
    };
    let start = text.len() - text.trim_start().len();
    // Bounds the depth of what syn builds, and its time, before it runs (see `scan`).
    scan::check(text)?;
    let parsed = syn::parse_str::<syn::Expr>(text);
    let result = match parsed {
        Err(e) => Err(ExprError::Syntax {
            at: offset(text, e.span()).max(start),
            message: e.to_string(),
        }),
        Ok(e) => Eval::new(registry, text, refs, resolver).eval(&e, target),
    };
    // Spans of parsed strings live in a thread-local table; forget them so loading many
    // scenes does not grow it.
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}

/// The byte offset of `span` in `text` (spans give 1-based lines and 0-based character
/// columns).
fn offset(text: &str, span: proc_macro2::Span) -> usize {
    offset_of(text, span.start())
}

/// The byte offset of a line and column of `text` (1-based line, 0-based character column, as
/// `proc_macro2` gives them; the end of `text` past its last line).
pub(crate) fn offset_of(text: &str, lc: proc_macro2::LineColumn) -> usize {
    let mut line_start = 0;
    for _ in 1..lc.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    text[line_start..]
        .char_indices()
        .nth(lc.column)
        .map_or(text.len(), |(i, _)| line_start + i)
}

/// How many characters of a number messages repeat (`1111111111..`).
const VALUE_CHARS: usize = 40;
/// How many characters of a name or path messages repeat.
const NAME_CHARS: usize = 80;

/// The first `max` characters of `text`, with `..` when some are left out.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}..", &text[..end]),
        None => text.to_owned(),
    }
}

/// `text` for a one-line message: control characters escaped (a newline as `\n`), at most 80
/// characters, with `..` when some are left out.
pub(crate) fn excerpt(text: &str) -> String {
    let mut shown = String::new();
    for c in clip(text, NAME_CHARS).chars() {
        if c.is_control() {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Plain literals without `syn`: decimal numbers, `true`/`false`, strings without escapes.
fn fast(expr: &str, target: &TypeInfo) -> Option<Plain> {
    // What the limits refuse goes to the evaluator, which refuses it.
    if expr.len() > MAX_LEN {
        return None;
    }
    let text = expr.trim();
    let TypeInfo::Opaque(_) = target else {
        return None;
    };
    let id = target.type_id();
    let decimal = |s: &str| {
        let digits = s.strip_prefix('-').unwrap_or(s);
        let mut seen_digit = false;
        let mut prev = b'-';
        for b in digits.bytes() {
            match b {
                b'0'..=b'9' => seen_digit = true,
                b'.' if prev.is_ascii_digit() => {}
                b'e' | b'E' if prev.is_ascii_digit() => {}
                b'+' | b'-' if matches!(prev, b'e' | b'E') => {}
                _ => return false,
            }
            prev = b;
        }
        seen_digit && prev.is_ascii_digit()
    };
    let number = text.len() <= MAX_NUMBER_LEN;
    // Overflows to infinity are left to the evaluator, which refuses them.
    if id == TypeId::of::<f32>() && number && decimal(text) {
        return text
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .map(Plain::F32);
    }
    if id == TypeId::of::<f64>() && number && decimal(text) {
        return text
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(Plain::F64);
    }
    if id == TypeId::of::<bool>() {
        return match text {
            "true" => Some(Plain::Bool(true)),
            "false" => Some(Plain::Bool(false)),
            _ => None,
        };
    }
    if id == TypeId::of::<String>() {
        let inner = text.strip_prefix('"')?.strip_suffix('"')?;
        // Short strings: a plain loop beats a vectorised search here.
        if inner.bytes().any(|b| matches!(b, b'"' | b'\\' | b'\r')) {
            return None;
        }
        return Some(Plain::String(inner.to_owned()));
    }
    let int = IntTy::of_type_id(id).filter(|_| number)?;
    let digits = text.strip_prefix('-');
    let (negative, digits) = match digits {
        Some(d) => (true, d),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Most literals fit a `u64`, which parses faster than a `u128`.
    let magnitude = if digits.len() < 20 {
        u128::from(digits.parse::<u64>().ok()?)
    } else {
        digits.parse::<u128>().ok()?
    };
    int.value(negative, magnitude)
}

/// [`assign`], taking a string from `value` rather than copying it.
///
/// # Errors
/// As [`assign`].
pub(crate) fn assign_taking(
    dest: &mut dyn PartialReflect,
    value: &mut dyn PartialReflect,
) -> Result<(), String> {
    if let Some(to) = dest.try_downcast_mut::<String>()
        && let Some(from) = value.try_downcast_mut::<String>()
    {
        *to = std::mem::take(from);
        return Ok(());
    }
    assign(dest, value)
}

/// Applies `value` onto `dest` replacing lists instead of merging them (reflection's `apply`
/// keeps the extra items of a longer list), at any depth: in fields, tuples, arrays and the
/// payload of an enum that keeps its variant.
///
/// # Errors
/// The reflection error as text when the value does not fit `dest`.
pub fn assign(dest: &mut dyn PartialReflect, value: &dyn PartialReflect) -> Result<(), String> {
    match (dest.reflect_mut(), value.reflect_ref()) {
        (ReflectMut::List(list), ReflectRef::List(_)) => {
            drop(list.drain());
            list.try_apply(value).map_err(|e| e.to_string())
        }
        (ReflectMut::Struct(s), ReflectRef::Struct(v)) => {
            for (name, field) in v.iter_fields() {
                match s.field_mut(name) {
                    Some(d) => assign(d, field)?,
                    None => return Err(format!("no field `{name}`")),
                }
            }
            Ok(())
        }
        (ReflectMut::TupleStruct(s), ReflectRef::TupleStruct(v))
            if s.field_len() == v.field_len() =>
        {
            for (i, field) in v.iter_fields().enumerate() {
                if let Some(d) = s.field_mut(i) {
                    assign(d, field)?;
                }
            }
            Ok(())
        }
        (ReflectMut::Tuple(s), ReflectRef::Tuple(v)) if s.field_len() == v.field_len() => {
            for (i, field) in v.iter_fields().enumerate() {
                if let Some(d) = s.field_mut(i) {
                    assign(d, field)?;
                }
            }
            Ok(())
        }
        (ReflectMut::Array(a), ReflectRef::Array(v)) if a.len() == v.len() => {
            for (i, item) in v.iter().enumerate() {
                if let Some(d) = a.get_mut(i) {
                    assign(d, item)?;
                }
            }
            Ok(())
        }
        (ReflectMut::Enum(e), ReflectRef::Enum(v))
            if e.variant_name() == v.variant_name() && e.field_len() == v.field_len() =>
        {
            for i in 0..v.field_len() {
                if let (Some(d), Some(field)) = (e.field_at_mut(i), v.field_at(i)) {
                    assign(d, field)?;
                }
            }
            Ok(())
        }
        _ => dest.try_apply(value).map_err(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use bevy_reflect::Typed;

    use super::*;

    fn primitive_targets() -> Vec<&'static TypeInfo> {
        vec![
            u8::type_info(),
            u16::type_info(),
            u32::type_info(),
            u64::type_info(),
            u128::type_info(),
            usize::type_info(),
            i8::type_info(),
            i16::type_info(),
            i32::type_info(),
            i64::type_info(),
            i128::type_info(),
            isize::type_info(),
            f32::type_info(),
            f64::type_info(),
            bool::type_info(),
            String::type_info(),
        ]
    }

    /// The shortcut leaves what the limits refuse to the evaluator: a plain string longer than
    /// an expression may be is refused as any other expression that long.
    #[test]
    fn the_shortcut_keeps_the_length_limit() {
        let long = format!("\"{}\"", "x".repeat(MAX_LEN));
        assert!(fast(&long, String::type_info()).is_none());
        let short = format!("\"{}\"", "x".repeat(MAX_LEN - 2));
        assert!(fast(&short, String::type_info()).is_some());
        let registry = TypeRegistry::default();
        let refused = evaluate_as(&long, Target::Info(String::type_info()), &registry, &NoRefs);
        assert!(refused.is_err());
    }

    proptest::proptest! {
        /// Whenever the shortcut for plain literals gives a value, the full evaluator gives the
        /// same one: the shortcut only saves time.
        #[test]
        fn the_literal_shortcut_agrees_with_the_evaluator(
            expr in r#" ?(-?0{0,500}[0-9]{1,22}(\.[0-9]{1,3})?([eE][-+]?[0-9]{1,2})?|true|false|"[a-z \\"]{0,4}") ?"#,
        ) {
            let registry = TypeRegistry::default();
            for info in primitive_targets() {
                let Some(mut quick) = fast(&expr, info) else { continue };
                let full = evaluate_parsed(&expr, Target::Info(info), &registry, &NoRefs);
                let full = full.map_err(|e| e.to_string());
                proptest::prop_assert!(
                    full.as_ref().is_ok_and(|v| v.reflect_partial_eq(quick.as_reflect_mut()) == Some(true)),
                    "{expr:?} as {}: shortcut {quick:?}, evaluator {full:?}",
                    info.type_path()
                );
            }
        }
    }
}
