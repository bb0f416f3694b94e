//! Composite forms: `Some`/`None`, enum variants, struct literals with `..default()`, tuple
//! structs, and the glam and colour constructors and constants.

use bevy_color::{Color, LinearRgba, Srgba};
use bevy_reflect::enums::{DynamicEnum, DynamicVariant};
use bevy_reflect::structs::DynamicStruct;
use bevy_reflect::tuple::DynamicTuple;
use bevy_reflect::{TypeInfo, Typed};
use glam::{EulerRot, Quat, Vec2, Vec3, Vec3A, Vec4};
use syn::spanned::Spanned;

use super::super::target::{self, Target, VariantFields, Variants};
use super::super::types::{IntTy, Special, colour_constructor, special_const};
use super::super::{ExprError, NAME_CHARS, assign, clip};
use super::{Eval, Value, call_name, expected, f32_target, tail};

impl Eval<'_> {
    pub(super) fn option(
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
    pub(super) fn variant<'k>(
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
                found: self.describe(whole),
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

    pub(super) fn enumeration(
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
    pub(super) fn named_fields(
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

    pub(super) fn structure(
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
                            self.describe(other)
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

    pub(super) fn special(
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

    pub(super) fn special_call(
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
        if special == Special::Color
            && let Some((space, alpha)) = colour_constructor(func)
        {
            let v = if alpha {
                f(4)?
            } else {
                let mut v = f(3)?;
                v.push(1.0);
                v
            };
            return Ok(Box::new((space.make)(v[0], v[1], v[2], v[3])));
        }
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
                    found: self.describe(order),
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

pub(super) fn euler(e: &syn::Expr) -> Option<EulerRot> {
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
