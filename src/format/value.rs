//! Plain value types of the format: vectors, colours and the Euler-degree transform.
//!
//! These mirror Bevy's types but keep the file's shapes (`(x: .., y: ..)`, Euler degrees) so a
//! document reads and writes without loss. Conversions to `glam` and `bevy_color` are provided.

use serde::{Deserialize, Serialize};

/// A 2D vector, written `(x: 1.0, y: 2.0)`.
///
/// Used for sprite `custom_size` (pixels) and plane `size` (world units, X/Z).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Vec2Data {
    /// The X component.
    pub x: f32,
    /// The Y component.
    pub y: f32,
}

impl Vec2Data {
    /// Creates a vector from its two components.
    pub const fn new(x: f32, y: f32) -> Self {
        Self { x, y }
    }

    /// Whether both components are finite (not `NaN`, not infinite).
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

impl From<Vec2Data> for glam::Vec2 {
    fn from(v: Vec2Data) -> Self {
        glam::Vec2::new(v.x, v.y)
    }
}

impl From<glam::Vec2> for Vec2Data {
    fn from(v: glam::Vec2) -> Self {
        Vec2Data::new(v.x, v.y)
    }
}

/// A 3D vector, written `(x: 1.0, y: 2.0, z: 3.0)`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Vec3Data {
    /// The X component.
    pub x: f32,
    /// The Y component.
    pub y: f32,
    /// The Z component.
    pub z: f32,
}

impl Vec3Data {
    /// All zeros.
    pub const ZERO: Self = Self::new(0.0, 0.0, 0.0);
    /// All ones.
    pub const ONE: Self = Self::new(1.0, 1.0, 1.0);

    /// Creates a vector from its three components.
    pub const fn new(x: f32, y: f32, z: f32) -> Self {
        Self { x, y, z }
    }

    /// Whether all components are finite (not `NaN`, not infinite).
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }

    /// The components as an array `[x, y, z]`.
    pub const fn to_array(self) -> [f32; 3] {
        [self.x, self.y, self.z]
    }
}

impl From<Vec3Data> for glam::Vec3 {
    fn from(v: Vec3Data) -> Self {
        glam::Vec3::new(v.x, v.y, v.z)
    }
}

impl From<glam::Vec3> for Vec3Data {
    fn from(v: glam::Vec3) -> Self {
        Vec3Data::new(v.x, v.y, v.z)
    }
}

/// An sRGB colour with straight alpha, written `(r: 1.0, g: 0.5, b: 0.0, a: 1.0)`.
///
/// Channels are in `0.0..=1.0` (the format page, "Transforms and coordinates"). The editor edits
/// these as sRGB, so [`ColorData::to_bevy`] builds `bevy_color::Color::srgba(r, g, b, a)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ColorData {
    /// Red channel, sRGB, `0.0..=1.0`.
    pub r: f32,
    /// Green channel, sRGB, `0.0..=1.0`.
    pub g: f32,
    /// Blue channel, sRGB, `0.0..=1.0`.
    pub b: f32,
    /// Alpha (opacity), `0.0..=1.0`.
    pub a: f32,
}

impl ColorData {
    /// Opaque white, the default sprite tint.
    pub const WHITE: Self = Self::rgba(1.0, 1.0, 1.0, 1.0);
    /// Opaque black.
    pub const BLACK: Self = Self::rgba(0.0, 0.0, 0.0, 1.0);

    /// Creates a colour from sRGB channels and alpha.
    pub const fn rgba(r: f32, g: f32, b: f32, a: f32) -> Self {
        Self { r, g, b, a }
    }

    /// Whether all four channels are finite.
    pub fn is_finite(self) -> bool {
        self.r.is_finite() && self.g.is_finite() && self.b.is_finite() && self.a.is_finite()
    }

    /// This colour as Bevy's sRGB colour (`Color::srgba(r, g, b, a)`).
    pub fn to_bevy(self) -> bevy_color::Color {
        bevy_color::Color::srgba(self.r, self.g, self.b, self.a)
    }
}

impl Default for ColorData {
    fn default() -> Self {
        Self::WHITE
    }
}

impl From<ColorData> for bevy_color::Color {
    fn from(c: ColorData) -> Self {
        c.to_bevy()
    }
}

impl From<ColorData> for bevy_color::Srgba {
    fn from(c: ColorData) -> Self {
        bevy_color::Srgba::new(c.r, c.g, c.b, c.a)
    }
}

/// A local transform as the file stores it (the format page, "Transforms and coordinates").
///
/// `translation` is in world units relative to the parent, `rotation` is **XYZ Euler angles in
/// degrees**, and `scale` is a per-axis multiplier.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TransformData {
    /// Local position relative to the parent.
    pub translation: Vec3Data,
    /// XYZ Euler angles in degrees.
    pub rotation: Vec3Data,
    /// Per-axis scale multiplier.
    pub scale: Vec3Data,
}

impl TransformData {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Self = Self {
        translation: Vec3Data::ZERO,
        rotation: Vec3Data::ZERO,
        scale: Vec3Data::ONE,
    };

    /// A transform at `translation` with no rotation and unit scale.
    pub const fn from_translation(translation: Vec3Data) -> Self {
        Self {
            translation,
            ..Self::IDENTITY
        }
    }

    /// The rotation as a quaternion:
    /// `Quat::from_euler(EulerRot::XYZ, x.to_radians(), y.to_radians(), z.to_radians())`, to
    /// the bit (for three `0.0`, the usual no rotation, its `y` is `-0.0`: the code
    /// `forge export` writes relies on it).
    pub fn rotation_quat(&self) -> glam::Quat {
        // Most entities have no rotation: the formula's result for it is worked out once.
        static NONE: std::sync::LazyLock<glam::Quat> =
            std::sync::LazyLock::new(|| glam::Quat::from_euler(glam::EulerRot::XYZ, 0.0, 0.0, 0.0));
        let r = self.rotation;
        if r.x.to_bits() == 0 && r.y.to_bits() == 0 && r.z.to_bits() == 0 {
            return *NONE;
        }
        glam::Quat::from_euler(
            glam::EulerRot::XYZ,
            self.rotation.x.to_radians(),
            self.rotation.y.to_radians(),
            self.rotation.z.to_radians(),
        )
    }

    /// The XYZ Euler angles in degrees of quaternion `q`: the inverse of
    /// [`rotation_quat`](Self::rotation_quat), the shortest spelling that gives back `q`: the
    /// three angles rounded to the fewest decimals (up to six) whose quaternion equals `q` within
    /// 1e-7 per component, so `Quat::from_rotation_y(30°)` reads back as `30.0`, not `29.999998`;
    /// full precision otherwise. Near gimbal lock (`y` = ±90°) `x` and `z` are not unique: any
    /// pair giving back `q` may be returned.
    pub fn rotation_degrees(q: glam::Quat) -> Vec3Data {
        // In f64: near gimbal lock f32's `asin` loses the last digits that tell `x` from `z`.
        let wide = glam::DQuat::from_xyzw(q.x.into(), q.y.into(), q.z.into(), q.w.into());
        let (x, y, z) = wide.normalize().to_euler(glam::EulerRot::XYZ);
        let exact = Vec3Data::new(
            x.to_degrees() as f32,
            y.to_degrees() as f32,
            z.to_degrees() as f32,
        );
        let same = |v: Vec3Data| {
            let back = TransformData {
                rotation: v,
                ..TransformData::IDENTITY
            }
            .rotation_quat();
            back.abs_diff_eq(q, 1e-7) || back.abs_diff_eq(-q, 1e-7)
        };
        for decimals in 0..=6 {
            let scale = 10f32.powi(decimals);
            let round = |a: f32| {
                let r = (a * scale).round() / scale;
                // `-0.0` reads the same but writes a sign.
                if r == 0.0 { 0.0 } else { r }
            };
            let rounded = Vec3Data::new(round(exact.x), round(exact.y), round(exact.z));
            if same(rounded) {
                return rounded;
            }
        }
        exact
    }

    /// Whether translation, rotation and scale are all finite.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

impl Default for TransformData {
    fn default() -> Self {
        Self::IDENTITY
    }
}
