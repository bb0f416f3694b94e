//! `mesh3d` and Bevy's `Mesh3d` with `MeshMaterial3d<StandardMaterial>` (through the type
//! registry: this crate does not depend on `bevy_pbr`).

use bevy_asset::{Handle, UntypedHandle};
use bevy_ecs::world::{EntityWorldMut, World};
use bevy_mesh::{Mesh, Mesh3d, Meshable};

use super::{Parts, Sink, SubAssets, insert_material_component, remove_material_component};
use crate::format::{ComponentData, MaterialData, Mesh3dData, MeshSource, PrimitiveShape};

pub(super) const TAG: &str = "mesh3d";
#[cfg(feature = "import")]
pub(super) const IMPLIED: &[&str] = &[];

/// The mesh handle and the scene's material slot (an index into `ForgeScene::materials`).
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    mesh: Handle<Mesh>,
    material: usize,
}

#[derive(Hash, PartialEq, Eq)]
pub(super) struct ShapeKey(u8, [u32; 3]);

fn shape_key(shape: &PrimitiveShape) -> ShapeKey {
    match *shape {
        PrimitiveShape::Cuboid { size } => {
            ShapeKey(0, [size.x.to_bits(), size.y.to_bits(), size.z.to_bits()])
        }
        PrimitiveShape::Sphere { radius } => ShapeKey(1, [radius.to_bits(), 0, 0]),
        PrimitiveShape::Plane { size } => ShapeKey(2, [size.x.to_bits(), size.y.to_bits(), 0]),
        PrimitiveShape::Cylinder { radius, height } => {
            ShapeKey(3, [radius.to_bits(), height.to_bits(), 0])
        }
        PrimitiveShape::Capsule { radius, length } => {
            ShapeKey(4, [radius.to_bits(), length.to_bits(), 0])
        }
    }
}

/// The label of the `n`th distinct primitive mesh of a scene: `Mesh0`, `Mesh1`, ...
fn mesh_label(n: usize) -> String {
    format!("Mesh{n}")
}

/// Builds the mesh of a primitive, or says why it cannot (sizes must be finite and positive).
fn primitive_mesh(shape: &PrimitiveShape) -> Result<Mesh, &'static str> {
    let dims: &[f32] = match shape {
        PrimitiveShape::Cuboid { size } => &[size.x, size.y, size.z],
        PrimitiveShape::Sphere { radius } => &[*radius],
        PrimitiveShape::Plane { size } => &[size.x, size.y],
        PrimitiveShape::Cylinder { radius, height } => &[*radius, *height],
        PrimitiveShape::Capsule { radius, length } => &[*radius, *length],
    };
    if dims.iter().any(|d| !d.is_finite() || *d < 0.0) {
        return Err("primitive sizes must be finite and not negative");
    }
    Ok(match *shape {
        PrimitiveShape::Cuboid { size } => {
            Mesh::from(bevy_shape::Cuboid::new(size.x, size.y, size.z))
        }
        PrimitiveShape::Sphere { radius } => Mesh::from(bevy_shape::Sphere::new(radius)),
        PrimitiveShape::Plane { size } => bevy_mesh::MeshBuilder::build(
            &bevy_shape::Plane3d::default().mesh().size(size.x, size.y),
        ),
        PrimitiveShape::Cylinder { radius, height } => {
            Mesh::from(bevy_shape::Cylinder::new(radius, height))
        }
        PrimitiveShape::Capsule { radius, length } => {
            Mesh::from(bevy_shape::Capsule3d::new(radius, length))
        }
    })
}

pub(super) fn prepare(
    m: &Mesh3dData,
    ctx: &mut impl Sink,
    sub: &mut SubAssets,
) -> Result<Prepared, String> {
    let mesh = match &m.mesh {
        MeshSource::Asset(path) => ctx.load_path(path.clone()),
        MeshSource::Primitive(shape) => {
            let key = shape_key(shape);
            match sub.meshes.get(&key) {
                Some(handle) => handle.clone(),
                None => {
                    let mesh =
                        primitive_mesh(shape).map_err(|e| format!("{} mesh: {e}", shape.name()))?;
                    let handle = ctx.add_mesh(mesh_label(sub.meshes.len()), mesh);
                    sub.meshes.insert(key, handle.clone());
                    handle
                }
            }
        }
    };
    let mat = &m.material;
    let material = *sub.material_keys.entry(mat.bits()).or_insert_with(|| {
        sub.materials.push(mat.clone());
        sub.materials.len() - 1
    });
    Ok(Prepared { mesh, material })
}

pub(super) fn insert(
    entity: &mut EntityWorldMut,
    p: &Prepared,
    material: &mut dyn FnMut(&mut World, usize) -> Option<UntypedHandle>,
) {
    entity.insert(Mesh3d(p.mesh.clone()));
    let handle = entity.world_scope(|world| material(world, p.material));
    if let Some(handle) = handle {
        insert_material_component(entity, handle);
    }
}

pub(super) fn remove(entity: &mut EntityWorldMut) {
    entity.remove::<Mesh3d>();
    remove_material_component(entity);
}

/// A primitive is a sub-asset of the scene, so the scene (`base`) says which shape; a mesh
/// asset is read back by its path, with the default material (a material cannot be read back
/// without `bevy_pbr`).
pub(super) fn read(parts: &mut impl Parts, base: Option<&ComponentData>) -> Option<ComponentData> {
    let mesh = parts.take::<Mesh3d>()?;
    if let Some(ComponentData::Mesh3d(m)) = base {
        return Some(ComponentData::Mesh3d(m.clone()));
    }
    let path = parts.path_of(&mesh.0.untyped()).filter(|p| {
        !p.split('#')
            .next()
            .is_some_and(|f| f.ends_with(".forge.ron"))
    });
    let Some(path) = path else {
        parts.without_path::<Mesh3d>();
        return None;
    };
    Some(ComponentData::Mesh3d(Box::new(Mesh3dData {
        mesh: MeshSource::Asset(path),
        material: MaterialData::default(),
    })))
}
