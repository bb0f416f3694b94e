//! Rust literals of the file's values, as the loader builds them, shared by both forms and
//! by placed models: numbers, colours, vectors, rotations, transforms, primitive shapes,
//! materials, strings and struct values.

use std::fmt::Write as _;

use crate::format::{PrimitiveShape, TransformData};

/// A finite `f32` as a Rust literal that reads back to the same bits (`1.0`, `-0.5`, `1e-7`).
pub(crate) fn float(v: f32) -> String {
    // `Debug` writes the shortest text that reads back exactly, always with a `.` or exponent.
    format!("{v:?}")
}

/// `Color::srgba(r, g, b, a)`, as the loader builds colours.
pub(crate) fn color(c: crate::format::ColorData) -> String {
    format!(
        "Color::srgba({}, {}, {}, {})",
        float(c.r),
        float(c.g),
        float(c.b),
        float(c.a)
    )
}

/// `Vec3::new(x, y, z)`.
pub(crate) fn vec3(v: crate::format::Vec3Data) -> String {
    format!("Vec3::new({}, {}, {})", float(v.x), float(v.y), float(v.z))
}

/// The rotation as the loader converts it (`format::TransformData::rotation_quat`):
/// `Quat::from_euler(EulerRot::XYZ, f32::to_radians(x), ..)`, a zero angle written as `0.0`
/// (or `-0.0`: `to_radians` keeps it as it is, sign included). The arguments go on lines of
/// their own at `indent` when it is given and an angle is not zero.
pub(crate) fn rotation(r: crate::format::Vec3Data, indent: Option<&str>) -> String {
    let angle = |v: f32| {
        if v == 0.0 {
            float(v)
        } else {
            format!("f32::to_radians({})", float(v))
        }
    };
    let args = [
        "EulerRot::XYZ".to_owned(),
        angle(r.x),
        angle(r.y),
        angle(r.z),
    ];
    match indent {
        Some(indent) if r.to_array().iter().any(|v| *v != 0.0) => format!(
            "Quat::from_euler(\n{indent}    {},\n{indent})",
            args.join(&format!(",\n{indent}    "))
        ),
        _ => format!("Quat::from_euler({})", args.join(", ")),
    }
}

/// Whether the loader's quaternion for `t` is `Quat::IDENTITY` to the bit (a zero rotation is
/// not: `from_euler` gives it a `-0.0`).
pub(crate) fn identity_rotation(t: &crate::format::TransformData) -> bool {
    t.rotation_quat().to_array().map(f32::to_bits)
        == glam::Quat::IDENTITY.to_array().map(f32::to_bits)
}

/// The Bevy value of a primitive shape, as the loader builds its mesh.
pub(crate) fn primitive(shape: &PrimitiveShape) -> String {
    match *shape {
        PrimitiveShape::Cuboid { size } => format!(
            "Cuboid::new({}, {}, {})",
            float(size.x),
            float(size.y),
            float(size.z)
        ),
        PrimitiveShape::Sphere { radius } => format!("Sphere::new({})", float(radius)),
        PrimitiveShape::Plane { size } => format!(
            "Plane3d::default().mesh().size({}, {})",
            float(size.x),
            float(size.y)
        ),
        PrimitiveShape::Cylinder { radius, height } => {
            format!("Cylinder::new({}, {})", float(radius), float(height))
        }
        PrimitiveShape::Capsule { radius, length } => {
            format!("Capsule3d::new({}, {})", float(radius), float(length))
        }
    }
}

/// The `StandardMaterial` the loader creates from the file's four fields.
pub(crate) fn material(m: &crate::format::MaterialData, indent: &str) -> String {
    format!(
        "StandardMaterial {{\n{indent}    base_color: {},\n{indent}    metallic: {},\n{indent}    perceptual_roughness: {},\n{indent}    unlit: {},\n{indent}    ..Default::default()\n{indent}}}",
        color(m.base_color),
        float(m.metallic),
        float(m.perceptual_roughness),
        m.unlit
    )
}

/// `expr` made safe to follow with more code on its line: a `//` comment on its last line gets
/// a line break after it, so the comment does not swallow the `,` or `}` that comes next.
pub(crate) fn line_safe(expr: &str) -> String {
    let last_line = expr.rsplit('\n').next().unwrap_or(expr);
    if last_line.contains("//") {
        format!("{expr}\n")
    } else {
        expr.to_owned()
    }
}

/// A Rust string literal of `s` (escapes as `Debug` writes them, which Rust reads back).
pub(crate) fn string(s: &str) -> String {
    format!("{s:?}")
}

/// `Transform { .. }` as the loader builds it: Euler degrees through `Quat::from_euler`.
/// `indent` is the indentation of the line the value starts on.
pub(crate) fn transform(t: &TransformData, indent: &str) -> String {
    let zero = |v: crate::format::Vec3Data| v.to_array().iter().all(|c| c.to_bits() == 0);
    let one = |v: crate::format::Vec3Data| v.to_array().iter().all(|c| *c == 1.0);
    if zero(t.translation) && identity_rotation(t) && one(t.scale) {
        return "Transform::IDENTITY".to_owned();
    }
    let translation = if zero(t.translation) {
        "Vec3::ZERO".to_owned()
    } else {
        vec3(t.translation)
    };
    let rotation = if identity_rotation(t) {
        "Quat::IDENTITY".to_owned()
    } else {
        rotation(t.rotation, Some(&format!("{indent}    ")))
    };
    let scale = if one(t.scale) {
        "Vec3::ONE".to_owned()
    } else {
        vec3(t.scale)
    };
    format!(
        "Transform {{\n{indent}    translation: {translation},\n{indent}    rotation: {rotation},\n{indent}    scale: {scale},\n{indent}}}"
    )
}

/// `Path {\n    a,\n    b,\n}` at `indent`.
pub(crate) fn struct_value(path: &str, fields: &[String], indent: &str) -> String {
    let mut out = format!("{path} {{\n");
    for field in fields {
        // No comma after the struct update (`..Default::default()`).
        let comma = if field.starts_with("..") { "" } else { "," };
        let _ = writeln!(out, "{indent}    {field}{comma}");
    }
    out.push_str(indent);
    out.push('}');
    out
}
