//! The target types the evaluator knows by name: integer widths ([`IntTy`]), glam and colour
//! types ([`Special`]) with their constants, `Option`, and the float constants of `f32::consts`.

use std::any::TypeId;

use bevy_color::{Color, LinearRgba, Srgba};
use bevy_reflect::{PartialReflect, TypeInfo};
use glam::{Quat, Vec2, Vec3, Vec3A, Vec4};

use crate::schema::FieldKind;

/// A value being built: a reflected value of the type an expression evaluates to.
pub(crate) type Value = Box<dyn PartialReflect>;

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
    pub(crate) const ALL: [(IntTy, &'static str); 12] = [
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

    /// The integer type whose `TypeId` is `id` (no type path compared).
    pub(crate) fn of_type_id(id: std::any::TypeId) -> Option<IntTy> {
        use std::any::TypeId;
        [
            (TypeId::of::<u32>(), IntTy::U32),
            (TypeId::of::<i32>(), IntTy::I32),
            (TypeId::of::<u64>(), IntTy::U64),
            (TypeId::of::<i64>(), IntTy::I64),
            (TypeId::of::<u8>(), IntTy::U8),
            (TypeId::of::<u16>(), IntTy::U16),
            (TypeId::of::<usize>(), IntTy::Usize),
            (TypeId::of::<i8>(), IntTy::I8),
            (TypeId::of::<i16>(), IntTy::I16),
            (TypeId::of::<isize>(), IntTy::Isize),
            (TypeId::of::<i128>(), IntTy::I128),
            (TypeId::of::<u128>(), IntTy::U128),
        ]
        .into_iter()
        .find(|(t, _)| *t == id)
        .map(|(_, ty)| ty)
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

    pub(crate) fn min(self) -> i128 {
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

    pub(crate) fn max(self) -> u128 {
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
    pub(crate) fn boxed(self, negative: bool, magnitude: u128) -> Option<Box<dyn PartialReflect>> {
        self.value(negative, magnitude).map(Plain::boxed)
    }

    /// `value` (sign and magnitude) as a value of this type, if it fits: nothing negative,
    /// not even zero, fits an unsigned type.
    pub(crate) fn value(self, negative: bool, magnitude: u128) -> Option<Plain> {
        if negative {
            let min = self.min();
            if magnitude > min.unsigned_abs() {
                return None;
            }
            let v = (magnitude as i128).wrapping_neg();
            Some(match self {
                IntTy::I8 => Plain::I8(v as i8),
                IntTy::I16 => Plain::I16(v as i16),
                IntTy::I32 => Plain::I32(v as i32),
                IntTy::I64 => Plain::I64(v as i64),
                IntTy::Isize => Plain::Isize(v as isize),
                IntTy::I128 => Plain::I128(v),
                // rustc refuses to negate an unsigned integer, zero too (`-0` for a `u8`).
                _ => return None,
            })
        } else {
            if magnitude > self.max() {
                return None;
            }
            let m = magnitude;
            Some(match self {
                IntTy::I8 => Plain::I8(m as i8),
                IntTy::I16 => Plain::I16(m as i16),
                IntTy::I32 => Plain::I32(m as i32),
                IntTy::I64 => Plain::I64(m as i64),
                IntTy::Isize => Plain::Isize(m as isize),
                IntTy::I128 => Plain::I128(m as i128),
                IntTy::U8 => Plain::U8(m as u8),
                IntTy::U16 => Plain::U16(m as u16),
                IntTy::U32 => Plain::U32(m as u32),
                IntTy::U64 => Plain::U64(m as u64),
                IntTy::Usize => Plain::Usize(m as usize),
                IntTy::U128 => Plain::U128(m),
            })
        }
    }
}

/// A value of a primitive type, held where it is made (no allocation): what a plain literal
/// evaluates to.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub(crate) enum Plain {
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    Isize(isize),
    I128(i128),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    Usize(usize),
    U128(u128),
    F32(f32),
    F64(f64),
    Bool(bool),
    String(String),
}

impl Plain {
    /// The value, reflected and mutable (a string can be taken from it).
    pub(crate) fn as_reflect_mut(&mut self) -> &mut dyn PartialReflect {
        match self {
            Plain::I8(v) => v,
            Plain::I16(v) => v,
            Plain::I32(v) => v,
            Plain::I64(v) => v,
            Plain::Isize(v) => v,
            Plain::I128(v) => v,
            Plain::U8(v) => v,
            Plain::U16(v) => v,
            Plain::U32(v) => v,
            Plain::U64(v) => v,
            Plain::Usize(v) => v,
            Plain::U128(v) => v,
            Plain::F32(v) => v,
            Plain::F64(v) => v,
            Plain::Bool(v) => v,
            Plain::String(v) => v,
        }
    }

    /// The value, boxed.
    pub(crate) fn boxed(self) -> Box<dyn PartialReflect> {
        match self {
            Plain::I8(v) => Box::new(v),
            Plain::I16(v) => Box::new(v),
            Plain::I32(v) => Box::new(v),
            Plain::I64(v) => Box::new(v),
            Plain::Isize(v) => Box::new(v),
            Plain::I128(v) => Box::new(v),
            Plain::U8(v) => Box::new(v),
            Plain::U16(v) => Box::new(v),
            Plain::U32(v) => Box::new(v),
            Plain::U64(v) => Box::new(v),
            Plain::Usize(v) => Box::new(v),
            Plain::U128(v) => Box::new(v),
            Plain::F32(v) => Box::new(v),
            Plain::F64(v) => Box::new(v),
            Plain::Bool(v) => Box::new(v),
            Plain::String(v) => Box::new(v),
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
    pub(crate) fn of(id: TypeId) -> Option<Special> {
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

    pub(crate) const ALL: [Special; 8] = [
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
    pub(crate) fn from_name(name: &str) -> Option<Special> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// `Vec2`, `Vec3` or `Vec4` by length.
    pub(crate) fn vector(len: u8) -> Option<Special> {
        Some(match len {
            2 => Special::Vec2,
            3 => Special::Vec3,
            4 => Special::Vec4,
            _ => return None,
        })
    }

    pub(crate) fn is_colour(self) -> bool {
        matches!(self, Special::Color | Special::Srgba | Special::LinearRgba)
    }

    pub(crate) fn type_info(self) -> &'static TypeInfo {
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

    pub(crate) fn name(self) -> &'static str {
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

    pub(crate) fn len(self) -> usize {
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

/// Whether `info` is `Option<T>`.
pub(crate) fn is_option(info: &TypeInfo) -> bool {
    info.type_path().starts_with("core::option::Option<")
}

pub(crate) fn float_consts(name: &str) -> Option<f64> {
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

pub(crate) fn special_const(special: Special, name: &str) -> Option<Value> {
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

/// One of `bevy_color::Color`'s colour spaces: the variant, the constructors a field
/// expression writes it with (`Color::hsla(h, s, l, a)`, and `Color::hsl(h, s, l)` for an
/// alpha of 1), and its channels in the order the constructor takes them (each space's
/// `ColorToComponents::to_f32_array` order).
#[derive(Debug)]
pub(crate) struct ColourSpace {
    /// The `Color` variant (`Hsla`); read by the import.
    #[cfg_attr(not(feature = "import"), allow(dead_code))]
    pub(crate) variant: &'static str,
    /// The constructor with alpha (`hsla`).
    pub(crate) func: &'static str,
    /// The constructor without alpha (`hsl`).
    pub(crate) opaque: &'static str,
    /// The channels, as the space's struct names its fields; read by the import.
    #[cfg_attr(not(feature = "import"), allow(dead_code))]
    pub(crate) channels: [&'static str; 4],
    /// `Color::<func>`.
    pub(crate) make: fn(f32, f32, f32, f32) -> Color,
}

/// Every colour space of `bevy_color` 0.20's `Color`, in its declaration order.
pub(crate) const COLOUR_SPACES: [ColourSpace; 13] = {
    const fn space(
        variant: &'static str,
        func: &'static str,
        opaque: &'static str,
        channels: [&'static str; 4],
        make: fn(f32, f32, f32, f32) -> Color,
    ) -> ColourSpace {
        ColourSpace {
            variant,
            func,
            opaque,
            channels,
            make,
        }
    }
    const RGB: [&str; 4] = ["red", "green", "blue", "alpha"];
    const HSL: [&str; 4] = ["hue", "saturation", "lightness", "alpha"];
    const HSV: [&str; 4] = ["hue", "saturation", "value", "alpha"];
    const HWB: [&str; 4] = ["hue", "whiteness", "blackness", "alpha"];
    const LAB: [&str; 4] = ["lightness", "a", "b", "alpha"];
    const LCH: [&str; 4] = ["lightness", "chroma", "hue", "alpha"];
    [
        space("Srgba", "srgba", "srgb", RGB, Color::srgba),
        space(
            "LinearRgba",
            "linear_rgba",
            "linear_rgb",
            RGB,
            Color::linear_rgba,
        ),
        space("Hsla", "hsla", "hsl", HSL, Color::hsla),
        space("Hsva", "hsva", "hsv", HSV, Color::hsva),
        space("Hwba", "hwba", "hwb", HWB, Color::hwba),
        space("Laba", "laba", "lab", LAB, Color::laba),
        space("Lcha", "lcha", "lch", LCH, Color::lcha),
        space("Oklaba", "oklaba", "oklab", LAB, Color::oklaba),
        space("Oklcha", "oklcha", "oklch", LCH, Color::oklcha),
        space("Xyza", "xyza", "xyz", ["x", "y", "z", "alpha"], Color::xyza),
        space("Okhsla", "okhsla", "okhsl", HSL, Color::okhsla),
        space("Okhsva", "okhsva", "okhsv", HSV, Color::okhsva),
        space("Okhwba", "okhwba", "okhwb", HWB, Color::okhwba),
    ]
};

/// The space of a colour and its channels, in [`ColourSpace::channels`] order.
pub(crate) fn colour_parts(colour: &Color) -> (&'static ColourSpace, [f32; 4]) {
    use bevy_color::ColorToComponents;
    let (i, channels) = match *colour {
        Color::Srgba(c) => (0, c.to_f32_array()),
        Color::LinearRgba(c) => (1, c.to_f32_array()),
        Color::Hsla(c) => (2, c.to_f32_array()),
        Color::Hsva(c) => (3, c.to_f32_array()),
        Color::Hwba(c) => (4, c.to_f32_array()),
        Color::Laba(c) => (5, c.to_f32_array()),
        Color::Lcha(c) => (6, c.to_f32_array()),
        Color::Oklaba(c) => (7, c.to_f32_array()),
        Color::Oklcha(c) => (8, c.to_f32_array()),
        Color::Xyza(c) => (9, c.to_f32_array()),
        Color::Okhsla(c) => (10, c.to_f32_array()),
        Color::Okhsva(c) => (11, c.to_f32_array()),
        Color::Okhwba(c) => (12, c.to_f32_array()),
    };
    (&COLOUR_SPACES[i], channels)
}

/// The colour space a `Color::<func>(..)` constructor makes, and whether it takes an alpha.
pub(crate) fn colour_constructor(func: &str) -> Option<(&'static ColourSpace, bool)> {
    COLOUR_SPACES.iter().find_map(|s| {
        if s.func == func {
            Some((s, true))
        } else if s.opaque == func {
            Some((s, false))
        } else {
            None
        }
    })
}
