//! Field expressions of custom components: text to a reflected value, evaluated as data.
//!
//! A custom field's `expr` is a Rust expression stored as text (`"2.0"`, `"Vec3::Y"`,
//! `"Some(Mode::Fast)"`). [`evaluate`] turns it into a value of the field's reflected type. It is
//! never compiled or run: plain literals are read directly, anything else is parsed with `syn`
//! and only this subset is understood:
//!
//! - literals: integers (`10`, `1_000`, `10u8`, `0xff`), floats (`2.0`, `-0.5`, `1e3`, `2.0f32`;
//!   an integer literal is accepted for a float), `true`/`false`, chars, strings (every Rust
//!   escape, raw strings);
//! - `Some(x)`, `None`, tuples `(a, b)`, arrays `[a, b]`, `vec![a, b]`;
//! - `Vec2`/`Vec3`/`Vec3A`/`Vec4`: constants (`ZERO`, `ONE`, `NEG_ONE`, `X`, `Y`, `Z`, `W`,
//!   `NEG_X`, ...), `::new(..)`, `::splat(v)`; `Quat::IDENTITY`, `Quat::from_rotation_x/y/z(a)`,
//!   `Quat::from_euler(EulerRot::XYZ, a, b, c)`, `Quat::from_xyzw(..)`,
//!   `Quat::from_axis_angle(axis, a)` (angles in radians; `90f32.to_radians()` works);
//! - `Color::srgb(r, g, b)`, `Color::srgba(r, g, b, a)`, `Color::srgb_u8(..)`,
//!   `Color::linear_rgb(..)`, `Color::linear_rgba(..)`, `Color::WHITE`/`BLACK`/`NONE`;
//! - enum variants (`Mode::Fast`, `Fast`, `Shape::Circle(1.0)`, `Shape::Rect { w: 1.0, h: 2.0 }`),
//!   struct literals `Type { field: expr, ..Default::default() }` (or `..default()`), tuple
//!   structs `Type(a, b)`, `Default::default()` / `default()`;
//! - `String::from("x")`, `"x".into()`, `"x".to_string()`, `"x".to_owned()`;
//! - `f32::consts::PI` (any of `std::`/`core::`, `f32`/`f64`, and `PI`, `TAU`, `E`,
//!   `FRAC_PI_2`, ...), `f32::INFINITY`, `f32::MAX`, `u8::MAX`, ... and a leading minus.
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

use std::any::TypeId;

use bevy_color::{Color, ColorToComponents, LinearRgba, Srgba};
use bevy_reflect::array::DynamicArray;
use bevy_reflect::enums::{DynamicEnum, DynamicVariant};
use bevy_reflect::list::DynamicList;
use bevy_reflect::structs::DynamicStruct;
use bevy_reflect::tuple::DynamicTuple;
use bevy_reflect::tuple_struct::DynamicTupleStruct;
use bevy_reflect::{PartialReflect, ReflectMut, ReflectRef, TypeInfo, TypeRegistry, Typed};
use glam::{EulerRot, Quat, Vec2, Vec3, Vec3A, Vec4};
use syn::spanned::Spanned;

use crate::schema::FieldKind;

mod scan;
mod target;

pub use scan::{MAX_DEPTH, MAX_LEN, MAX_NUMBER_LEN};
pub(crate) use target::Target;
use target::{Shape, VariantFields, Variants};

/// What field expressions may be, in one line (used as help text).
pub const SUPPORTED: &str = "literals, Some/None, tuples, arrays, vec![..], Vec2/Vec3/Vec4/Quat and Color constants and constructors, enum variants, struct literals with ..default(), String::from, f32::consts";

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
            | ExprError::Reflect { at, .. } => *at,
        }
    }
}

/// An integer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub(crate) enum IntTy {
    I8,
    I16,
    I32,
    I64,
    I128,
    Isize,
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
}

impl IntTy {
    const ALL: [(IntTy, &'static str); 12] = [
        (IntTy::I8, "i8"),
        (IntTy::I16, "i16"),
        (IntTy::I32, "i32"),
        (IntTy::I64, "i64"),
        (IntTy::I128, "i128"),
        (IntTy::Isize, "isize"),
        (IntTy::U8, "u8"),
        (IntTy::U16, "u16"),
        (IntTy::U32, "u32"),
        (IntTy::U64, "u64"),
        (IntTy::U128, "u128"),
        (IntTy::Usize, "usize"),
    ];

    pub(crate) fn from_name(name: &str) -> Option<IntTy> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(t, _)| *t)
    }

    pub(crate) fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(t, _)| *t == self)
            .map_or("int", |(_, n)| n)
    }

    pub(crate) fn signed(self) -> bool {
        matches!(
            self,
            IntTy::I8 | IntTy::I16 | IntTy::I32 | IntTy::I64 | IntTy::I128 | IntTy::Isize
        )
    }

    /// The fixed-width integer type of this sign and width (`isize`/`usize` are found by name).
    pub(crate) fn of_width(signed: bool, bits: u8) -> Option<IntTy> {
        Self::ALL
            .iter()
            .map(|(t, _)| *t)
            .filter(|t| !matches!(t, IntTy::Isize | IntTy::Usize))
            .find(|t| t.signed() == signed && t.bits() == bits)
    }

    /// The reflected type.
    pub(crate) fn type_info(self) -> &'static TypeInfo {
        use bevy_reflect::Typed;
        match self {
            IntTy::I8 => i8::type_info(),
            IntTy::I16 => i16::type_info(),
            IntTy::I32 => i32::type_info(),
            IntTy::I64 => i64::type_info(),
            IntTy::I128 => i128::type_info(),
            IntTy::Isize => isize::type_info(),
            IntTy::U8 => u8::type_info(),
            IntTy::U16 => u16::type_info(),
            IntTy::U32 => u32::type_info(),
            IntTy::U64 => u64::type_info(),
            IntTy::U128 => u128::type_info(),
            IntTy::Usize => usize::type_info(),
        }
    }

    pub(crate) fn bits(self) -> u8 {
        match self {
            IntTy::I8 | IntTy::U8 => 8,
            IntTy::I16 | IntTy::U16 => 16,
            IntTy::I32 | IntTy::U32 => 32,
            IntTy::I64 | IntTy::U64 | IntTy::Isize | IntTy::Usize => 64,
            IntTy::I128 | IntTy::U128 => 128,
        }
    }

    fn min(self) -> i128 {
        match self {
            IntTy::I8 => i8::MIN.into(),
            IntTy::I16 => i16::MIN.into(),
            IntTy::I32 => i32::MIN.into(),
            IntTy::I64 => i64::MIN.into(),
            IntTy::Isize => isize::MIN as i128,
            IntTy::I128 => i128::MIN,
            _ => 0,
        }
    }

    fn max(self) -> u128 {
        match self {
            IntTy::I8 => i8::MAX as u128,
            IntTy::I16 => i16::MAX as u128,
            IntTy::I32 => i32::MAX as u128,
            IntTy::I64 => i64::MAX as u128,
            IntTy::Isize => isize::MAX as u128,
            IntTy::I128 => i128::MAX as u128,
            IntTy::U8 => u8::MAX.into(),
            IntTy::U16 => u16::MAX.into(),
            IntTy::U32 => u32::MAX.into(),
            IntTy::U64 => u64::MAX.into(),
            IntTy::Usize => usize::MAX as u128,
            IntTy::U128 => u128::MAX,
        }
    }

    /// `value` (sign and magnitude) as a boxed value of this type, if it fits.
    fn boxed(self, negative: bool, magnitude: u128) -> Option<Box<dyn PartialReflect>> {
        if negative {
            let min = self.min();
            if magnitude > min.unsigned_abs() {
                return None;
            }
            let v = (magnitude as i128).wrapping_neg();
            Some(match self {
                IntTy::I8 => Box::new(v as i8),
                IntTy::I16 => Box::new(v as i16),
                IntTy::I32 => Box::new(v as i32),
                IntTy::I64 => Box::new(v as i64),
                IntTy::Isize => Box::new(v as isize),
                IntTy::I128 => Box::new(v),
                _ if magnitude == 0 => return self.boxed(false, 0),
                _ => return None,
            })
        } else {
            if magnitude > self.max() {
                return None;
            }
            let m = magnitude;
            Some(match self {
                IntTy::I8 => Box::new(m as i8),
                IntTy::I16 => Box::new(m as i16),
                IntTy::I32 => Box::new(m as i32),
                IntTy::I64 => Box::new(m as i64),
                IntTy::Isize => Box::new(m as isize),
                IntTy::I128 => Box::new(m as i128),
                IntTy::U8 => Box::new(m as u8),
                IntTy::U16 => Box::new(m as u16),
                IntTy::U32 => Box::new(m as u32),
                IntTy::U64 => Box::new(m as u64),
                IntTy::Usize => Box::new(m as usize),
                IntTy::U128 => Box::new(m),
            })
        }
    }
}

/// Glam and colour types the evaluator and the schema treat as values of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub(crate) enum Special {
    Vec2,
    Vec3,
    Vec3A,
    Vec4,
    Quat,
    Color,
    Srgba,
    LinearRgba,
}

impl Special {
    fn of(id: TypeId) -> Option<Special> {
        Some(if id == TypeId::of::<Vec2>() {
            Special::Vec2
        } else if id == TypeId::of::<Vec3>() {
            Special::Vec3
        } else if id == TypeId::of::<Vec3A>() {
            Special::Vec3A
        } else if id == TypeId::of::<Vec4>() {
            Special::Vec4
        } else if id == TypeId::of::<Quat>() {
            Special::Quat
        } else if id == TypeId::of::<Color>() {
            Special::Color
        } else if id == TypeId::of::<Srgba>() {
            Special::Srgba
        } else if id == TypeId::of::<LinearRgba>() {
            Special::LinearRgba
        } else {
            return None;
        })
    }

    const ALL: [Special; 8] = [
        Special::Vec2,
        Special::Vec3,
        Special::Vec3A,
        Special::Vec4,
        Special::Quat,
        Special::Color,
        Special::Srgba,
        Special::LinearRgba,
    ];

    /// The special type whose short type path is `name` (`Vec3`, `Color`).
    fn from_name(name: &str) -> Option<Special> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// `Vec2`, `Vec3` or `Vec4` by length.
    fn vector(len: u8) -> Option<Special> {
        Some(match len {
            2 => Special::Vec2,
            3 => Special::Vec3,
            4 => Special::Vec4,
            _ => return None,
        })
    }

    fn is_colour(self) -> bool {
        matches!(self, Special::Color | Special::Srgba | Special::LinearRgba)
    }

    fn type_info(self) -> &'static TypeInfo {
        use bevy_reflect::Typed;
        match self {
            Special::Vec2 => Vec2::type_info(),
            Special::Vec3 => Vec3::type_info(),
            Special::Vec3A => Vec3A::type_info(),
            Special::Vec4 => Vec4::type_info(),
            Special::Quat => Quat::type_info(),
            Special::Color => Color::type_info(),
            Special::Srgba => Srgba::type_info(),
            Special::LinearRgba => LinearRgba::type_info(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Special::Vec2 => "Vec2",
            Special::Vec3 => "Vec3",
            Special::Vec3A => "Vec3A",
            Special::Vec4 => "Vec4",
            Special::Quat => "Quat",
            Special::Color => "Color",
            Special::Srgba => "Srgba",
            Special::LinearRgba => "LinearRgba",
        }
    }

    fn len(self) -> usize {
        match self {
            Special::Vec2 => 2,
            Special::Vec3 | Special::Vec3A => 3,
            _ => 4,
        }
    }
}

/// The schema kind of the glam and colour types, which reflect as plain structs or enums.
pub(crate) fn special_kind(info: &TypeInfo) -> Option<FieldKind> {
    Some(match Special::of(info.type_id())? {
        Special::Color | Special::Srgba | Special::LinearRgba => FieldKind::Colour,
        s => FieldKind::Vector { len: s.len() as u8 },
    })
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
    evaluate_as(expr, Target::Info(target), registry)
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
    evaluate_as(expr, target, &SCHEMA_REGISTRY)
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

/// [`evaluate`] or [`evaluate_schema`], by target.
pub(crate) fn evaluate_as(
    expr: &str,
    target: Target<'_>,
    registry: &TypeRegistry,
) -> Result<Box<dyn PartialReflect>, ExprError> {
    let target = target.resolved();
    if let Target::Info(info) = target
        && let Some(value) = fast(expr, info)
    {
        return Ok(value);
    }
    let start = expr.len() - expr.trim_start().len();
    // Bounds the depth of what syn builds, and its time, before it runs (see `scan`).
    scan::check(expr)?;
    let parsed = syn::parse_str::<syn::Expr>(expr);
    let result = match parsed {
        Err(e) => Err(ExprError::Syntax {
            at: offset(expr, e.span()).max(start),
            message: e.to_string(),
        }),
        Ok(e) => Eval::new(registry, expr).eval(&e, target),
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

/// The byte offset of a line and column of `text`.
fn offset_of(text: &str, lc: proc_macro2::LineColumn) -> usize {
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
fn fast(expr: &str, target: &TypeInfo) -> Option<Box<dyn PartialReflect>> {
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
    // Overflows to infinity are left to the evaluator, which refuses them.
    if id == TypeId::of::<f32>() && decimal(text) {
        return text
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .map(|v| Box::new(v) as Box<dyn PartialReflect>);
    }
    if id == TypeId::of::<f64>() && decimal(text) {
        return text
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(|v| Box::new(v) as Box<dyn PartialReflect>);
    }
    if id == TypeId::of::<bool>() {
        return match text {
            "true" => Some(Box::new(true)),
            "false" => Some(Box::new(false)),
            _ => None,
        };
    }
    if id == TypeId::of::<String>() {
        let inner = text.strip_prefix('"')?.strip_suffix('"')?;
        if inner.contains(['"', '\\', '\r']) {
            return None;
        }
        return Some(Box::new(inner.to_owned()));
    }
    let int = IntTy::from_name(target.type_path())?;
    let digits = text.strip_prefix('-');
    let (negative, digits) = match digits {
        Some(d) => (true, d),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    int.boxed(negative, digits.parse::<u128>().ok()?)
}

/// Applies `value` onto `dest` replacing lists instead of merging them (reflection's `apply`
/// keeps the extra items of a longer list).
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
        _ => dest.try_apply(value).map_err(|e| e.to_string()),
    }
}

struct Eval<'a> {
    registry: &'a TypeRegistry,
    text: &'a str,
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

type Value = Box<dyn PartialReflect>;

/// The last `n` segment names of a path.
fn tail(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

fn describe(e: &syn::Expr) -> String {
    use syn::Expr as E;
    match e {
        E::Lit(l) => match &l.lit {
            syn::Lit::Int(_) => "an integer".into(),
            syn::Lit::Float(_) => "a float".into(),
            syn::Lit::Str(_) => "a string".into(),
            syn::Lit::Bool(_) => "a boolean".into(),
            syn::Lit::Char(_) => "a character".into(),
            syn::Lit::Byte(_) => "a byte literal".into(),
            syn::Lit::ByteStr(_) => "a byte string".into(),
            _ => "a literal".into(),
        },
        E::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => describe(&u.expr),
        E::Paren(p) => describe(&p.expr),
        E::Group(g) => describe(&g.expr),
        E::Tuple(t) if t.elems.is_empty() => "`()`".into(),
        E::Tuple(_) => "a tuple".into(),
        E::Array(_) => "an array".into(),
        E::Macro(m) if m.mac.path.is_ident("vec") => "a `vec![..]`".into(),
        E::Macro(m) => format!("the macro `{}!`", path_text(&tail(&m.mac.path))),
        E::Path(p) => format!("`{}`", path_text(&tail(&p.path))),
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
        Shape::Unwritable => format!("a `{short}`"),
    }
}

/// Whether `info` is `Option<T>`.
fn is_option(info: &TypeInfo) -> bool {
    info.type_path().starts_with("core::option::Option<")
}

fn float_consts(name: &str) -> Option<f64> {
    use std::f64::consts as c;
    Some(match name {
        "PI" => c::PI,
        "TAU" => c::TAU,
        "E" => c::E,
        "FRAC_PI_2" => c::FRAC_PI_2,
        "FRAC_PI_3" => c::FRAC_PI_3,
        "FRAC_PI_4" => c::FRAC_PI_4,
        "FRAC_PI_6" => c::FRAC_PI_6,
        "FRAC_PI_8" => c::FRAC_PI_8,
        "FRAC_1_PI" => c::FRAC_1_PI,
        "FRAC_2_PI" => c::FRAC_2_PI,
        "SQRT_2" => c::SQRT_2,
        "FRAC_1_SQRT_2" => c::FRAC_1_SQRT_2,
        "LN_2" => c::LN_2,
        "LN_10" => c::LN_10,
        _ => return None,
    })
}

impl<'a> Eval<'a> {
    fn new(registry: &'a TypeRegistry, text: &'a str) -> Self {
        Eval {
            registry,
            text,
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
        offset(self.text, span)
    }

    fn mismatch(&self, e: &syn::Expr, ty: Target<'_>) -> ExprError {
        let found = describe(e);
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
        ExprError::Mismatch {
            at: self.at(e.span()),
            expected: expected(ty),
            found,
        }
    }

    /// Evaluates `e` (one level deeper than its parent) as a value of `ty`.
    fn eval(&self, e: &syn::Expr, ty: Target<'_>) -> Result<Value, ExprError> {
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
            Shape::Unwritable => Err(self.unwritable(e, ty)),
        }
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
                if !matches!(f.suffix(), "" | "f32" | "f64") {
                    return Err(self.mismatch(e, ty));
                }
                let v = f.base10_parse::<f64>().map_err(|err| ExprError::Syntax {
                    at: self.at(f.span()),
                    message: err.to_string(),
                })?;
                self.finite(e, v, ty)
            }
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) if matches!(i.suffix(), "" | "f32" | "f64") => {
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
                    found: describe(e),
                })
            }
            syn::Expr::MethodCall(m)
                if m.args.is_empty() && (m.method == "to_radians" || m.method == "to_degrees") =>
            {
                let v = self.float(&m.receiver, ty)?;
                Ok(if m.method == "to_radians" {
                    v.to_radians()
                } else {
                    v.to_degrees()
                })
            }
            _ => Err(self.mismatch(e, ty)),
        }
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
            }) => Some(s.value()),
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
        let inner = match inner {
            syn::Expr::Paren(p) => &*p.expr,
            other => other,
        };
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
                        found: format!("a `{}` literal", i.suffix()),
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

    fn option(
        &self,
        e: &syn::Expr,
        some: Option<Target<'_>>,
        ty: Target<'_>,
    ) -> Result<Value, ExprError> {
        match e {
            syn::Expr::Path(p) if tail(&p.path).last().is_some_and(|s| s == "None") => {
                let mut out = DynamicEnum::new("None", DynamicVariant::Unit);
                out.set_represented_type(ty.info());
                Ok(Box::new(out))
            }
            syn::Expr::Call(c)
                if call_name(c).is_some_and(|n| n.last().is_some_and(|l| l == "Some")) =>
            {
                let Some(inner) = some else {
                    return Err(self.unwritable(e, ty));
                };
                if c.args.len() != 1 {
                    return Err(ExprError::Mismatch {
                        at: self.at(e.span()),
                        expected: "one value in `Some(..)`".into(),
                        found: c.args.len().to_string(),
                    });
                }
                let mut tuple = DynamicTuple::default();
                for arg in &c.args {
                    tuple.insert_boxed(self.eval(arg, inner)?);
                }
                let mut out = DynamicEnum::new("Some", DynamicVariant::Tuple(tuple));
                out.set_represented_type(ty.info());
                Ok(Box::new(out))
            }
            _ => Err(self.mismatch(e, ty)),
        }
    }

    /// Checks that `path` (`Variant`, `Enum::Variant`, `a::Enum::Variant`) names a variant of
    /// the enum `ty` and returns it.
    fn variant<'k>(
        &self,
        path: &syn::Path,
        variants: Variants<'k>,
        ty: Target<'_>,
        whole: &syn::Expr,
    ) -> Result<target::Variant<'k>, ExprError> {
        let segs = tail(path);
        let ident = ty.ident();
        if segs.len() >= 2 && segs[segs.len() - 2] != ident && segs[segs.len() - 2] != "Self" {
            return Err(ExprError::Mismatch {
                at: self.at(whole.span()),
                expected: expected(ty),
                found: describe(whole),
            });
        }
        let name = segs.last().map(String::as_str).unwrap_or_default();
        variants.get(name).ok_or_else(|| ExprError::UnknownVariant {
            at: self.at(path.span()),
            ty: ident.to_owned(),
            variant: clip(name, NAME_CHARS),
            variants: variants.list(),
        })
    }

    fn enumeration(
        &self,
        e: &syn::Expr,
        variants: Variants<'_>,
        ty: Target<'_>,
    ) -> Result<Value, ExprError> {
        let (variant, dynamic) = match e {
            syn::Expr::Path(p) => {
                let v = self.variant(&p.path, variants, ty, e)?;
                if !matches!(v.fields, VariantFields::Unit) {
                    return Err(ExprError::Mismatch {
                        at: self.at(e.span()),
                        expected: format!("the fields of variant `{}`", v.name),
                        found: "none".into(),
                    });
                }
                (v.name, DynamicVariant::Unit)
            }
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else {
                    return Err(self.mismatch(e, ty));
                };
                let v = self.variant(&p.path, variants, ty, e)?;
                let VariantFields::Tuple(fields) = &v.fields else {
                    return Err(ExprError::Mismatch {
                        at: self.at(e.span()),
                        expected: format!("variant `{}` written {}", v.name, v.fields.written()),
                        found: "a tuple variant".into(),
                    });
                };
                let mut tuple = DynamicTuple::default();
                for value in self.items(&c.args, fields, e, ty)? {
                    tuple.insert_boxed(value);
                }
                (v.name, DynamicVariant::Tuple(tuple))
            }
            syn::Expr::Struct(s) => {
                let v = self.variant(&s.path, variants, ty, e)?;
                let VariantFields::Struct(fields) = &v.fields else {
                    return Err(ExprError::Mismatch {
                        at: self.at(e.span()),
                        expected: format!("variant `{}` written {}", v.name, v.fields.written()),
                        found: "a struct variant".into(),
                    });
                };
                if let Some(rest) = &s.rest {
                    return Err(ExprError::Unsupported {
                        at: self.at(rest.span()),
                        what: "`..` in an enum variant".into(),
                    });
                }
                let dynamic = self.named_fields(s, v.name, fields, false)?;
                (v.name, DynamicVariant::Struct(dynamic))
            }
            _ => return Err(self.mismatch(e, ty)),
        };
        let mut out = DynamicEnum::new(variant, dynamic);
        out.set_represented_type(ty.info());
        Ok(Box::new(out))
    }

    /// Evaluates the fields of a struct literal; every field must be set unless `partial`.
    fn named_fields(
        &self,
        s: &syn::ExprStruct,
        ty: &str,
        fields: &[target::Member<'_>],
        partial: bool,
    ) -> Result<DynamicStruct, ExprError> {
        let mut out = DynamicStruct::default();
        let mut seen = Vec::new();
        for field in &s.fields {
            let name = match &field.member {
                syn::Member::Named(i) => i.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let Some((_, target)) = fields.iter().find(|(n, _)| *n == name) else {
                return Err(ExprError::UnknownField {
                    at: self.at(field.member.span()),
                    ty: ty.to_owned(),
                    field: clip(&name, NAME_CHARS),
                    fields: fields
                        .iter()
                        .map(|(n, _)| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            };
            let Some(target) = target else {
                return Err(ExprError::Unwritable {
                    at: self.at(field.expr.span()),
                    ty: format!("{ty}.{name}"),
                });
            };
            out.insert_boxed(name.clone(), self.eval(&field.expr, *target)?);
            seen.push(name);
        }
        let missing: Vec<String> = fields
            .iter()
            .filter(|(n, _)| !seen.iter().any(|s| s == n))
            .map(|(n, _)| format!("`{n}`"))
            .collect();
        if !partial && !missing.is_empty() {
            return Err(ExprError::MissingFields {
                at: self.at(s.span()),
                ty: ty.to_owned(),
                fields: missing.join(", "),
            });
        }
        Ok(out)
    }

    fn structure(
        &self,
        e: &syn::Expr,
        fields: &[target::Member<'_>],
        ty: Target<'_>,
    ) -> Result<Value, ExprError> {
        let syn::Expr::Struct(s) = e else {
            return Err(self.mismatch(e, ty));
        };
        let ident = ty.ident();
        let named = s
            .path
            .segments
            .last()
            .is_some_and(|seg| seg.ident == ident || seg.ident == "Self");
        if !named {
            return Err(self.mismatch(e, ty));
        }
        let rest = match &s.rest {
            None => None,
            Some(rest) => match &**rest {
                syn::Expr::Call(c)
                    if c.args.is_empty()
                        && call_name(c)
                            .is_some_and(|n| n.last().is_some_and(|l| l == "default")) =>
                {
                    Some(rest)
                }
                other => {
                    return Err(ExprError::Unsupported {
                        at: self.at(other.span()),
                        what: format!(
                            "`..{}` (only `..default()` and `..Default::default()`)",
                            describe(other)
                        ),
                    });
                }
            },
        };
        let mut dynamic = self.named_fields(s, ident, fields, rest.is_some())?;
        dynamic.set_represented_type(ty.info());
        // Offline (no reflected type) the fields are checked; there is no default to fill in.
        let (Some(rest), Some(_)) = (rest, ty.info()) else {
            return Ok(Box::new(dynamic));
        };
        let mut base = self.reflected_default(ty, rest)?;
        assign(base.as_mut(), &dynamic).map_err(|reason| ExprError::Reflect {
            at: self.at(e.span()),
            reason,
        })?;
        Ok(base)
    }

    fn special(
        &self,
        e: &syn::Expr,
        special: Special,
        info: &'static TypeInfo,
    ) -> Result<Value, ExprError> {
        let name = special.name();
        let ty = Target::Info(info);
        // `Vec3 { x: .., y: .., z: .. }` goes through the generic struct path.
        if let (syn::Expr::Struct(_), TypeInfo::Struct(s)) = (e, info) {
            let fields: Vec<_> = s
                .iter()
                .map(|f| (f.name(), f.type_info().map(Target::Info)))
                .collect();
            return self.structure(e, &fields, ty);
        }
        let path_of = |p: &syn::Path| -> Option<String> {
            let segs = tail(p);
            let n = segs.len();
            (n >= 2 && segs[n - 2] == name).then(|| segs[n - 1].clone())
        };
        match e {
            syn::Expr::Path(p) => {
                let Some(constant) = path_of(&p.path) else {
                    return Err(self.mismatch(e, ty));
                };
                special_const(special, &constant).ok_or_else(|| ExprError::Unsupported {
                    at: self.at(e.span()),
                    what: format!(
                        "the unknown constant `{name}::{}`",
                        clip(&constant, NAME_CHARS)
                    ),
                })
            }
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else {
                    return Err(self.mismatch(e, ty));
                };
                let Some(func) = path_of(&p.path) else {
                    return Err(self.mismatch(e, ty));
                };
                self.special_call(special, &func, c, e, info)
            }
            _ => Err(self.mismatch(e, ty)),
        }
    }

    fn special_call(
        &self,
        special: Special,
        func: &str,
        c: &syn::ExprCall,
        e: &syn::Expr,
        info: &'static TypeInfo,
    ) -> Result<Value, ExprError> {
        let n = special.len();
        let f = |k: usize| self.floats(&c.args, k, e, info.into());
        let unknown = || ExprError::Unsupported {
            at: self.at(c.func.span()),
            what: format!("`{}::{}(..)`", special.name(), clip(func, NAME_CHARS)),
        };
        let vector = |v: Vec<f32>| -> Value {
            match special {
                Special::Vec2 => Box::new(Vec2::from_slice(&v)),
                Special::Vec3 => Box::new(Vec3::from_slice(&v)),
                Special::Vec3A => Box::new(Vec3A::from_slice(&v)),
                _ => Box::new(Vec4::from_slice(&v)),
            }
        };
        Ok(match (special, func) {
            (Special::Quat, "from_rotation_x") => Box::new(Quat::from_rotation_x(f(1)?[0])),
            (Special::Quat, "from_rotation_y") => Box::new(Quat::from_rotation_y(f(1)?[0])),
            (Special::Quat, "from_rotation_z") => Box::new(Quat::from_rotation_z(f(1)?[0])),
            (Special::Quat, "from_xyzw") => {
                let v = f(4)?;
                Box::new(Quat::from_xyzw(v[0], v[1], v[2], v[3]))
            }
            (Special::Quat, "from_euler") => {
                let mut args = c.args.iter();
                let order = args.next().ok_or_else(|| ExprError::Mismatch {
                    at: self.at(e.span()),
                    expected: "4 arguments: `EulerRot::XYZ, a, b, c`".into(),
                    found: "0".into(),
                })?;
                let rot = euler(order).ok_or_else(|| ExprError::Mismatch {
                    at: self.at(order.span()),
                    expected: "an `EulerRot` (`EulerRot::XYZ`, `EulerRot::YXZ`, ...)".into(),
                    found: describe(order),
                })?;
                let rest: syn::punctuated::Punctuated<syn::Expr, syn::Token![,]> =
                    args.cloned().collect();
                let v = self.floats(&rest, 3, e, info.into())?;
                Box::new(Quat::from_euler(rot, v[0], v[1], v[2]))
            }
            (Special::Quat, "from_axis_angle") => {
                if c.args.len() != 2 {
                    return Err(ExprError::Mismatch {
                        at: self.at(e.span()),
                        expected: "2 arguments: an axis and an angle".into(),
                        found: c.args.len().to_string(),
                    });
                }
                let axis = self.eval(&c.args[0], Vec3::type_info().into())?;
                let axis = axis
                    .try_downcast_ref::<Vec3>()
                    .copied()
                    .unwrap_or(Vec3::Y)
                    .normalize_or(Vec3::Y);
                let angle = self.float(&c.args[1], f32_target())?;
                let angle = self.narrow(&c.args[1], angle)?;
                Box::new(Quat::from_axis_angle(axis, angle))
            }
            (Special::Quat, _) => return Err(unknown()),
            (Special::Color, "srgb") => {
                let v = f(3)?;
                Box::new(Color::srgb(v[0], v[1], v[2]))
            }
            (Special::Color, "srgba") => {
                let v = f(4)?;
                Box::new(Color::srgba(v[0], v[1], v[2], v[3]))
            }
            (Special::Color, "linear_rgb") => {
                let v = f(3)?;
                Box::new(Color::linear_rgb(v[0], v[1], v[2]))
            }
            (Special::Color, "linear_rgba") => {
                let v = f(4)?;
                Box::new(Color::linear_rgba(v[0], v[1], v[2], v[3]))
            }
            (Special::Color, "srgb_u8" | "srgba_u8") => {
                let k = if func == "srgb_u8" { 3 } else { 4 };
                let mut bytes = [255u8; 4];
                if c.args.len() != k {
                    return Err(ExprError::Mismatch {
                        at: self.at(e.span()),
                        expected: format!("{k} arguments"),
                        found: c.args.len().to_string(),
                    });
                }
                for (slot, arg) in bytes.iter_mut().zip(&c.args) {
                    let v = self.integer(arg, IntTy::U8, IntTy::U8.type_info().into())?;
                    *slot = v.try_downcast_ref::<u8>().copied().unwrap_or_default();
                }
                Box::new(Color::srgba_u8(bytes[0], bytes[1], bytes[2], bytes[3]))
            }
            (Special::Color, _) => return Err(unknown()),
            (Special::Srgba | Special::LinearRgba, "new" | "rgb") => {
                let v = if func == "new" {
                    f(4)?
                } else {
                    let mut v = f(3)?;
                    v.push(1.0);
                    v
                };
                if special == Special::Srgba {
                    Box::new(Srgba::new(v[0], v[1], v[2], v[3]))
                } else {
                    Box::new(LinearRgba::new(v[0], v[1], v[2], v[3]))
                }
            }
            (Special::Srgba | Special::LinearRgba, _) => return Err(unknown()),
            (_, "new") => vector(f(n)?),
            (_, "splat") => vector(vec![f(1)?[0]; n]),
            _ => return Err(unknown()),
        })
    }
}

/// Whether the path segments `segs` end with `pattern`.
fn ends(segs: &[String], pattern: &[&str]) -> bool {
    segs.len() >= pattern.len()
        && segs[segs.len() - pattern.len()..]
            .iter()
            .zip(pattern)
            .all(|(a, b)| a == b)
}

fn call_name(c: &syn::ExprCall) -> Option<Vec<String>> {
    match &*c.func {
        syn::Expr::Path(p) => Some(tail(&p.path)),
        _ => None,
    }
}

/// `f32`, the type of glam and colour constructor arguments.
fn f32_target() -> Target<'static> {
    Target::Info(f32::type_info())
}

fn euler(e: &syn::Expr) -> Option<EulerRot> {
    let syn::Expr::Path(p) = e else { return None };
    let segs = tail(&p.path);
    if segs.len() >= 2 && segs[segs.len() - 2] != "EulerRot" {
        return None;
    }
    Some(match segs.last()?.as_str() {
        "XYZ" => EulerRot::XYZ,
        "XZY" => EulerRot::XZY,
        "YXZ" => EulerRot::YXZ,
        "YZX" => EulerRot::YZX,
        "ZXY" => EulerRot::ZXY,
        "ZYX" => EulerRot::ZYX,
        _ => return None,
    })
}

fn special_const(special: Special, name: &str) -> Option<Value> {
    let v4 = match name {
        "ZERO" => [0.0, 0.0, 0.0, 0.0],
        "ONE" => [1.0; 4],
        "NEG_ONE" => [-1.0; 4],
        "X" => [1.0, 0.0, 0.0, 0.0],
        "Y" => [0.0, 1.0, 0.0, 0.0],
        "Z" => [0.0, 0.0, 1.0, 0.0],
        "W" => [0.0, 0.0, 0.0, 1.0],
        "NEG_X" => [-1.0, 0.0, 0.0, 0.0],
        "NEG_Y" => [0.0, -1.0, 0.0, 0.0],
        "NEG_Z" => [0.0, 0.0, -1.0, 0.0],
        "NEG_W" => [0.0, 0.0, 0.0, -1.0],
        _ => [f32::NAN; 4],
    };
    let known = !v4[0].is_nan();
    let axis_ok = |len: usize| match name {
        "Z" | "NEG_Z" => len >= 3,
        "W" | "NEG_W" => len >= 4,
        _ => true,
    };
    Some(match special {
        Special::Vec2 if known && axis_ok(2) => Box::new(Vec2::new(v4[0], v4[1])),
        Special::Vec3 if known && axis_ok(3) => Box::new(Vec3::new(v4[0], v4[1], v4[2])),
        Special::Vec3A if known && axis_ok(3) => Box::new(Vec3A::new(v4[0], v4[1], v4[2])),
        Special::Vec4 if known => Box::new(Vec4::from_array(v4)),
        Special::Quat if name == "IDENTITY" => Box::new(Quat::IDENTITY),
        Special::Color => Box::new(match name {
            "WHITE" => Color::WHITE,
            "BLACK" => Color::BLACK,
            "NONE" => Color::NONE,
            _ => return None,
        }),
        Special::Srgba => Box::new(match name {
            "WHITE" => Srgba::WHITE,
            "BLACK" => Srgba::BLACK,
            "NONE" => Srgba::NONE,
            _ => return None,
        }),
        Special::LinearRgba => Box::new(match name {
            "WHITE" => LinearRgba::WHITE,
            "BLACK" => LinearRgba::BLACK,
            "NONE" => LinearRgba::NONE,
            _ => return None,
        }),
        _ => return None,
    })
}

/// Writes `value` as a field expression that [`evaluate`] reads back (`2.0`, `Vec3::new(0.0,
/// 1.0, 0.0)`, `Some(Mode::Fast)`); `None` for values scenes cannot write (maps, handles).
pub fn render(value: &dyn PartialReflect) -> Option<String> {
    let mut out = String::new();
    render_into(value, &mut out, 0).then_some(out)
}

fn float_text(v: f64, f32ish: bool) -> String {
    let ty = if f32ish { "f32" } else { "f64" };
    if v.is_nan() {
        format!("{ty}::NAN")
    } else if v == f64::INFINITY {
        format!("{ty}::INFINITY")
    } else if v == f64::NEG_INFINITY {
        format!("{ty}::NEG_INFINITY")
    } else if f32ish {
        format!("{:?}", v as f32)
    } else {
        format!("{v:?}")
    }
}

fn render_into(value: &dyn PartialReflect, out: &mut String, depth: usize) -> bool {
    use std::fmt::Write;
    if depth > 32 {
        return false;
    }
    macro_rules! try_as {
        ($($t:ty),*) => {$(
            if let Some(v) = value.try_downcast_ref::<$t>() {
                let _ = write!(out, "{v}");
                return true;
            }
        )*};
    }
    try_as!(
        bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
    );
    if let Some(v) = value.try_downcast_ref::<f32>() {
        out.push_str(&float_text(f64::from(*v), true));
        return true;
    }
    if let Some(v) = value.try_downcast_ref::<f64>() {
        out.push_str(&float_text(*v, false));
        return true;
    }
    if let Some(v) = value.try_downcast_ref::<char>() {
        let _ = write!(out, "{v:?}");
        return true;
    }
    if let Some(v) = value.try_downcast_ref::<String>() {
        let _ = write!(out, "{v:?}");
        return true;
    }
    let floats = |out: &mut String, name: &str, func: &str, v: &[f32]| {
        let parts: Vec<String> = v.iter().map(|f| float_text(f64::from(*f), true)).collect();
        let _ = write!(out, "{name}::{func}({})", parts.join(", "));
    };
    if let Some(v) = value.try_downcast_ref::<Vec2>() {
        floats(out, "Vec2", "new", &v.to_array());
        return true;
    }
    if let Some(v) = value.try_downcast_ref::<Vec3>() {
        floats(out, "Vec3", "new", &v.to_array());
        return true;
    }
    if let Some(v) = value.try_downcast_ref::<Vec3A>() {
        floats(out, "Vec3A", "new", &v.to_array());
        return true;
    }
    if let Some(v) = value.try_downcast_ref::<Vec4>() {
        floats(out, "Vec4", "new", &v.to_array());
        return true;
    }
    if let Some(v) = value.try_downcast_ref::<Quat>() {
        if *v == Quat::IDENTITY {
            out.push_str("Quat::IDENTITY");
        } else {
            floats(out, "Quat", "from_xyzw", &v.to_array());
        }
        return true;
    }
    if let Some(v) = value.try_downcast_ref::<Color>() {
        match v {
            Color::LinearRgba(c) => floats(out, "Color", "linear_rgba", &c.to_f32_array()),
            other => floats(out, "Color", "srgba", &other.to_srgba().to_f32_array()),
        }
        return true;
    }
    if let Some(v) = value.try_downcast_ref::<Srgba>() {
        floats(out, "Srgba", "new", &v.to_f32_array());
        return true;
    }
    if let Some(v) = value.try_downcast_ref::<LinearRgba>() {
        floats(out, "LinearRgba", "new", &v.to_f32_array());
        return true;
    }
    let ident = value
        .get_represented_type_info()
        .and_then(|i| i.type_path_table().ident())
        .unwrap_or("_");
    let list = |out: &mut String, items: &mut dyn Iterator<Item = &dyn PartialReflect>| {
        let mut first = true;
        for item in items {
            if !first {
                out.push_str(", ");
            }
            first = false;
            if !render_into(item, out, depth + 1) {
                return false;
            }
        }
        true
    };
    match value.reflect_ref() {
        ReflectRef::Struct(s) => {
            let _ = write!(out, "{ident} {{ ");
            for (i, (name, field)) in s.iter_fields().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{name}: ");
                if !render_into(field, out, depth + 1) {
                    return false;
                }
            }
            out.push_str(" }");
            true
        }
        ReflectRef::TupleStruct(s) => {
            let _ = write!(out, "{ident}(");
            let ok = list(out, &mut s.iter_fields());
            out.push(')');
            ok
        }
        ReflectRef::Tuple(t) => {
            out.push('(');
            let ok = list(out, &mut t.iter_fields());
            if t.field_len() == 1 {
                out.push(',');
            }
            out.push(')');
            ok
        }
        ReflectRef::List(l) => {
            out.push_str("vec![");
            let ok = list(out, &mut l.iter());
            out.push(']');
            ok
        }
        ReflectRef::Array(a) => {
            out.push('[');
            let ok = list(out, &mut a.iter());
            out.push(']');
            ok
        }
        ReflectRef::Enum(e) => {
            let option = value.get_represented_type_info().is_some_and(is_option);
            if !option {
                let _ = write!(out, "{ident}::");
            }
            out.push_str(e.variant_name());
            match e.variant_type() {
                bevy_reflect::enums::VariantType::Unit => true,
                bevy_reflect::enums::VariantType::Tuple => {
                    out.push('(');
                    let ok = list(out, &mut e.iter_fields().map(|f| f.value()));
                    out.push(')');
                    ok
                }
                bevy_reflect::enums::VariantType::Struct => {
                    out.push_str(" { ");
                    for (i, field) in e.iter_fields().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        let _ = write!(out, "{}: ", field.name().unwrap_or("_"));
                        if !render_into(field.value(), out, depth + 1) {
                            return false;
                        }
                    }
                    out.push_str(" }");
                    true
                }
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                ..Eval::new(&registry, text)
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
