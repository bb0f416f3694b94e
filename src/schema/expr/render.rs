//! Values back to field expressions: what the derive writes as a field's default.

use bevy_color::{Color, ColorToComponents, LinearRgba, Srgba};
use bevy_reflect::{PartialReflect, ReflectRef};
use glam::{Quat, Vec2, Vec3, Vec3A, Vec4};

use super::types::{colour_parts, is_option};

/// Writes `value` as a field expression that [`evaluate`](super::evaluate) reads back (`2.0`, `Vec3::new(0.0,
/// 1.0, 0.0)`, `Some(Mode::Fast)`); `None` for values scenes cannot write (maps, handles).
pub fn render(value: &dyn PartialReflect) -> Option<String> {
    render_with(value, &|_| None)
}

/// [`render`], with `entity` writing each value of Bevy's `Entity` type
/// (`bevy_ecs::entity::Entity`) as a reference (`#7`, `#7/2`); `None` from it
/// makes the whole value unwritable, as with [`render`], which writes no entity.
pub fn render_with(
    value: &dyn PartialReflect,
    entity: &dyn Fn(&dyn PartialReflect) -> Option<String>,
) -> Option<String> {
    let mut out = String::new();
    Render { entity }.put(value, &mut out, 0).then_some(out)
}

struct Render<'a> {
    entity: &'a dyn Fn(&dyn PartialReflect) -> Option<String>,
}

/// A float as field expressions write it: `f32::NAN`, `f64::INFINITY`, or the shortest text
/// that reads back to the same bits (`f32ish` for an `f32`).
pub(crate) fn float_text(v: f64, f32ish: bool) -> String {
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

impl Render<'_> {
    fn put(&self, value: &dyn PartialReflect, out: &mut String, depth: usize) -> bool {
        use std::fmt::Write;
        if depth > 32 {
            return false;
        }
        if value.reflect_type_path() == super::ENTITY_TYPE_PATH {
            return match (self.entity)(value) {
                Some(text) => {
                    out.push_str(&text);
                    true
                }
                None => false,
            };
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
            // In its own space: `Color::hsla(..)` reads back as the same variant.
            let (space, channels) = colour_parts(v);
            floats(out, "Color", space.func, &channels);
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
                if !self.put(item, out, depth + 1) {
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
                    if !self.put(field, out, depth + 1) {
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
                            if !self.put(field.value(), out, depth + 1) {
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
}
