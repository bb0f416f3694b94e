//! Component payloads: the `components` list of an entity (the format page, "Components").

pub use ecow::EcoString;
use serde::{Deserialize, Serialize};

use super::value::{ColorData, Vec2Data, Vec3Data};

/// One entry of an entity's `components` list, tagged `type` with its payload in `data`.
///
/// Tags are bare RON identifiers (`type: sprite`, never `type: "sprite"`). An entity holds at most
/// one component per [`ComponentData::key`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum ComponentData {
    /// A 2D sprite: `(type: sprite, data: (..))`.
    Sprite(Box<SpriteData>),
    /// World-space 2D text: `(type: text2d, data: (..))`.
    Text2d(Box<Text2dData>),
    /// A 2D camera: `(type: camera2d)`.
    Camera2d,
    /// A 3D camera: `(type: camera3d)`.
    Camera3d,
    /// A point light: `(type: point_light, data: (..))`.
    PointLight(PointLightData),
    /// A directional light: `(type: directional_light, data: (..))`.
    DirectionalLight(DirectionalLightData),
    /// A mesh with a material: `(type: mesh3d, data: (mesh: .., material: ..))`.
    Mesh3d(Box<Mesh3dData>),
    /// Visibility: `(type: visibility, data: hidden)`.
    Visibility(VisibilityMode),
    /// A component of the game's own type: `(type: custom, data: (type_path: .., fields: [..]))`.
    Custom(CustomComponent),
}

/// Every component tag of format version 1, in the order of the format page's table.
pub const COMPONENT_TAGS: &[&str] = &[
    "sprite",
    "text2d",
    "camera2d",
    "camera3d",
    "point_light",
    "directional_light",
    "mesh3d",
    "visibility",
    "custom",
];

impl ComponentData {
    /// The tag written as `type:` in the file (`sprite`, `point_light`, ...).
    pub fn tag(&self) -> &'static str {
        match self {
            ComponentData::Sprite(_) => "sprite",
            ComponentData::Text2d(_) => "text2d",
            ComponentData::Camera2d => "camera2d",
            ComponentData::Camera3d => "camera3d",
            ComponentData::PointLight(_) => "point_light",
            ComponentData::DirectionalLight(_) => "directional_light",
            ComponentData::Mesh3d(_) => "mesh3d",
            ComponentData::Visibility(_) => "visibility",
            ComponentData::Custom(_) => "custom",
        }
    }

    /// The uniqueness key of this component (the format page, "Components"): the tag for
    /// built-ins, `custom:<type_path>` for custom components.
    pub fn key(&self) -> String {
        match self {
            ComponentData::Custom(custom) => format!("custom:{}", custom.type_path),
            other => other.tag().to_owned(),
        }
    }

    /// Whether this component has the given [`key`](Self::key), without allocating.
    pub fn has_key(&self, key: &str) -> bool {
        match self {
            ComponentData::Custom(custom) => key
                .strip_prefix("custom:")
                .is_some_and(|path| path == custom.type_path),
            other => other.tag() == key,
        }
    }

    /// Whether two components share a [`key`](Self::key), without allocating.
    pub fn same_key(&self, other: &ComponentData) -> bool {
        match (self, other) {
            (ComponentData::Custom(a), ComponentData::Custom(b)) => a.type_path == b.type_path,
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        }
    }
}

/// Payload of a `sprite` component. Every field may be omitted (defaults: no image, white,
/// native size, no flips).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpriteData {
    /// Image path relative to the assets directory (`"textures/player.png"`); `None` for a
    /// solid-colour sprite.
    pub image: Option<String>,
    /// Tint, sRGB; white leaves the image unchanged.
    pub color: ColorData,
    /// Explicit size in pixels; `None` uses the image's native size.
    pub custom_size: Option<Vec2Data>,
    /// Mirror horizontally.
    pub flip_x: bool,
    /// Mirror vertically.
    pub flip_y: bool,
}

impl Default for SpriteData {
    fn default() -> Self {
        Self {
            image: None,
            color: ColorData::WHITE,
            custom_size: None,
            flip_x: false,
            flip_y: false,
        }
    }
}

/// Payload of a `text2d` component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Text2dData {
    /// The text; may contain newlines. Empty text is legal but warns.
    pub text: String,
    /// Font size in pixels; must be greater than zero.
    pub font_size: f32,
    /// Text colour, sRGB.
    pub color: ColorData,
}

/// Payload of a `point_light` component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointLightData {
    /// Light colour, sRGB.
    pub color: ColorData,
    /// Luminous power in lumens; must be non-negative.
    pub intensity: f32,
    /// Cut-off distance in world units; must be positive.
    pub range: f32,
    /// Whether the light casts shadows.
    pub shadows: bool,
}

/// Payload of a `directional_light` component. Its direction is the entity's rotation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectionalLightData {
    /// Light colour, sRGB.
    pub color: ColorData,
    /// Illuminance in lux; must be non-negative.
    pub illuminance: f32,
    /// Whether the light casts shadows.
    pub shadows: bool,
}

/// Payload of a `mesh3d` component: a mesh and its inline material.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mesh3dData {
    /// Where the mesh comes from.
    pub mesh: MeshSource,
    /// The material, always inline.
    pub material: MaterialData,
}

/// A mesh source, tagged `source` with its payload in `value`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", content = "value", rename_all = "snake_case")]
pub enum MeshSource {
    /// `source: primitive, value: sphere(radius: 0.5)`.
    Primitive(PrimitiveShape),
    /// `source: asset, value: "models/robot.gltf#Mesh0/Primitive0"`: a path relative to the
    /// assets directory, with an optional `#label`.
    Asset(String),
}

/// The mesh sources of format version 1.
pub const MESH_SOURCES: &[&str] = &["primitive", "asset"];

/// The five primitive shapes of format version 1. Sizes are in world units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrimitiveShape {
    /// A box: `cuboid(size: (x: 2.0, y: 1.0, z: 0.5))`, full extents per axis.
    Cuboid {
        /// Full width, height and depth.
        size: Vec3Data,
    },
    /// A sphere: `sphere(radius: 0.5)`.
    Sphere {
        /// Radius.
        radius: f32,
    },
    /// A flat plane in X/Z: `plane(size: (x: 10.0, y: 10.0))` (width in X, depth in Z).
    Plane {
        /// Width (X) and depth (Z).
        size: Vec2Data,
    },
    /// A Y-up cylinder: `cylinder(radius: 0.5, height: 1.0)`.
    Cylinder {
        /// Radius.
        radius: f32,
        /// Full height.
        height: f32,
    },
    /// A Y-up capsule: `capsule(radius: 0.5, length: 1.0)`.
    Capsule {
        /// Radius of the caps and the body.
        radius: f32,
        /// Length of the cylindrical middle part.
        length: f32,
    },
}

/// The primitive shape names of format version 1.
pub const PRIMITIVE_SHAPES: &[&str] = &["cuboid", "sphere", "plane", "cylinder", "capsule"];

impl PrimitiveShape {
    /// The name written in the file (`cuboid`, `sphere`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            PrimitiveShape::Cuboid { .. } => "cuboid",
            PrimitiveShape::Sphere { .. } => "sphere",
            PrimitiveShape::Plane { .. } => "plane",
            PrimitiveShape::Cylinder { .. } => "cylinder",
            PrimitiveShape::Capsule { .. } => "capsule",
        }
    }
}

/// An inline PBR material.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaterialData {
    /// Albedo, sRGB.
    pub base_color: ColorData,
    /// 0 = dielectric, 1 = metal; values outside `0..=1` warn.
    pub metallic: f32,
    /// 0 = mirror, 1 = rough; values outside `0..=1` warn.
    pub perceptual_roughness: f32,
    /// Ignore lighting.
    pub unlit: bool,
}

impl MaterialData {
    /// Its values bit for bit (base color, metallic, roughness, unlit): the same key for
    /// materials written the same, `-0.0` apart from `0.0`. Loading and export share one
    /// material per key.
    pub(crate) fn bits(&self) -> [u32; 7] {
        let c = self.base_color;
        [
            c.r.to_bits(),
            c.g.to_bits(),
            c.b.to_bits(),
            c.a.to_bits(),
            self.metallic.to_bits(),
            self.perceptual_roughness.to_bits(),
            u32::from(self.unlit),
        ]
    }
}

impl Default for MaterialData {
    fn default() -> Self {
        Self {
            base_color: ColorData::WHITE,
            metallic: 0.0,
            perceptual_roughness: 0.5,
            unlit: false,
        }
    }
}

/// Payload of a `visibility` component, a bare identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VisibilityMode {
    /// Visible when the parent is (Bevy's `Visibility::Inherited`).
    #[default]
    Inherited,
    /// Always visible (`Visibility::Visible`).
    Visible,
    /// Hidden with its subtree (`Visibility::Hidden`).
    Hidden,
}

/// The visibility modes of format version 1.
pub const VISIBILITY_MODES: &[&str] = &["inherited", "visible", "hidden"];

impl VisibilityMode {
    /// The identifier written in the file.
    pub fn name(self) -> &'static str {
        match self {
            VisibilityMode::Inherited => "inherited",
            VisibilityMode::Visible => "visible",
            VisibilityMode::Hidden => "hidden",
        }
    }
}

/// A component of the game's own type (the format page, "Custom components").
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CustomComponent {
    /// A Rust type path: `Health`, `my_game::Health`, `my_game::components::Health`.
    pub type_path: EcoString,
    /// Ordered field initialisers.
    pub fields: Vec<CustomField>,
}

/// One field initialiser of a custom component: `(name: "radius", expr: "2.0")`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CustomField {
    /// The Rust field identifier.
    pub name: EcoString,
    /// A Rust expression, stored verbatim.
    pub expr: EcoString,
}

impl CustomField {
    /// Creates a field initialiser.
    pub fn new(name: impl Into<EcoString>, expr: impl Into<EcoString>) -> Self {
        Self {
            name: name.into(),
            expr: expr.into(),
        }
    }
}
