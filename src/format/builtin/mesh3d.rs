//! `mesh3d`: a mesh with an inline PBR material (Bevy's `Mesh3d` and
//! `MeshMaterial3d<StandardMaterial>`).

use serde::{Deserialize, Serialize};

use super::{
    BuiltinField, BuiltinTag, ComponentData, FieldKind, FieldRange, Payload, Role, Value, ValueRef,
};
use crate::codes;
use crate::format::value::{ColorData, Vec2Data, Vec3Data};

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

    /// Its sizes by name below the shape (`size.x`, `radius`), in the order the file writes
    /// them.
    pub(crate) fn named_sizes(&self) -> Vec<(&'static str, f32)> {
        match *self {
            PrimitiveShape::Cuboid { size } => {
                vec![("size.x", size.x), ("size.y", size.y), ("size.z", size.z)]
            }
            PrimitiveShape::Sphere { radius } => vec![("radius", radius)],
            PrimitiveShape::Plane { size } => vec![("size.x", size.x), ("size.y", size.y)],
            PrimitiveShape::Cylinder { radius, height } => {
                vec![("radius", radius), ("height", height)]
            }
            PrimitiveShape::Capsule { radius, length } => {
                vec![("radius", radius), ("length", length)]
            }
        }
    }

    /// Its sizes, in the order the file writes them.
    pub(crate) fn sizes(&self) -> Vec<f32> {
        self.named_sizes().into_iter().map(|(_, v)| v).collect()
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

const MATERIAL: &str = "material";
const MATERIAL_NON_FINITE: Option<&str> = Some(codes::material::NON_FINITE);
const UNIT_HELP: Option<&str> =
    Some("0 and 1 are the physical extremes; values outside are clamped by the renderer");

pub(crate) static MESH3D: BuiltinTag = BuiltinTag {
    tag: "mesh3d",
    doc: "A 3D mesh (a primitive shape or a mesh asset) with an inline PBR material.",
    bevy: "Mesh3d + MeshMaterial3d<StandardMaterial>",
    payload: Payload::Fields(&[
        BuiltinField::new(
            "mesh",
            FieldKind::Mesh,
            "The mesh: a primitive shape (sizes in world units) or an asset path with an optional `#label`.",
        )
        .noun("mesh", Some(codes::mesh::NON_FINITE)),
        BuiltinField::new("material.base_color", FieldKind::Color, "Albedo.")
            .noun(MATERIAL, MATERIAL_NON_FINITE),
        BuiltinField::new(
            "material.metallic",
            FieldKind::Float,
            "0 = dielectric, 1 = metal.",
        )
        .noun(MATERIAL, MATERIAL_NON_FINITE)
        .range(
            FieldRange::Advised(0.0, 1.0),
            codes::material::METALLIC,
            UNIT_HELP,
        ),
        BuiltinField::new(
            "material.perceptual_roughness",
            FieldKind::Float,
            "0 = mirror, 1 = rough.",
        )
        .noun(MATERIAL, MATERIAL_NON_FINITE)
        .range(
            FieldRange::Advised(0.0, 1.0),
            codes::material::ROUGHNESS,
            UNIT_HELP,
        ),
        BuiltinField::new("material.unlit", FieldKind::Bool, "Ignore lighting."),
    ]),
    context: "mesh3d data",
    names: &["mesh", "material"],
    groups: &[(
        "material",
        &["base_color", "metallic", "perceptual_roughness", "unlit"],
    )],
    // The placeholder mesh is what a patch that leaves the mesh as it is holds.
    default: || {
        ComponentData::Mesh3d(Box::new(Mesh3dData {
            mesh: MeshSource::Asset(String::new()),
            material: MaterialData::default(),
        }))
    },
    get,
    set,
    role: Role::Mesh,
    cross: None,
    export: |c, w| match c {
        ComponentData::Mesh3d(m) => w.mesh3d(m),
        _ => Vec::new(),
    },
    // The mesh is a handle and the material an asset: no field is one field of a component.
    assign: super::no_assign,
};

accessors!(Mesh3d: mesh, material.base_color, material.metallic, material.perceptual_roughness, material.unlit);
