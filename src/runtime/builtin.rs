//! Built-in component tags to real Bevy 0.20 components (behind the `builtins` feature).
//!
//! | tag | Bevy components |
//! |---|---|
//! | `sprite` | `Sprite` (image handle, sRGB colour, `custom_size` in pixels, flips) |
//! | `text2d` | `Text2d` + `TextFont` (font size in pixels) + `TextColor` |
//! | `camera2d` / `camera3d` | `Camera2d` / `Camera3d` |
//! | `point_light` | `PointLight` (colour, intensity in lumens, range, `shadow_maps_enabled`) |
//! | `directional_light` | `DirectionalLight` (colour, illuminance in lux, `shadow_maps_enabled`) |
//! | `mesh3d` | `Mesh3d` + `MeshMaterial3d<StandardMaterial>` (created through the type registry) |
//! | `visibility` | `Visibility` |
//!
//! `StandardMaterial` lives in `bevy_pbr`, which this crate does not depend on (its shader chain
//! needs a newer Rust). Materials are built at spawn time through the app's type registry:
//! `StandardMaterial` from its `ReflectDefault` with the file's fields applied, added to its
//! `Assets` through `ReflectAsset`, and `MeshMaterial3d<StandardMaterial>` inserted through
//! `ReflectComponent`. An app without the PBR types registered gets meshes without materials and
//! one warning saying why.

use std::collections::HashMap;

use bevy_asset::{Handle, LoadContext, UntypedHandle};
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy_ecs::world::{EntityWorldMut, World};
use bevy_mesh::{Mesh, Mesh3d, Meshable};
use bevy_reflect::{PartialReflect, ReflectMut, std_traits::ReflectDefault};

use crate::format::{ComponentData, MaterialData, MeshSource, PrimitiveShape};

/// A built-in component made ready at load time, so spawning only clones it.
#[derive(Debug, Clone)]
pub(crate) enum PreparedComponent {
    Sprite(bevy_sprite::Sprite),
    Text2d(
        bevy_sprite::Text2d,
        bevy_text::TextFont,
        bevy_text::TextColor,
    ),
    Camera2d,
    Camera3d,
    PointLight(bevy_light::PointLight),
    DirectionalLight(bevy_light::DirectionalLight),
    Mesh3d {
        mesh: Handle<Mesh>,
        /// Index into `ForgeScene::materials` (in `super::scene`).
        material: usize,
    },
    Visibility(bevy_camera::visibility::Visibility),
}

/// Where prepared components get their asset handles: the [`LoadContext`] while a scene loads, or
/// the live app ([`RuntimeSink`]) when a scene edited in memory is prepared again.
pub(crate) trait Sink {
    /// A handle to the asset at `path`, loading it.
    fn load_path<A: bevy_asset::Asset>(&mut self, path: String) -> Handle<A>;
    /// Adds a generated mesh (a labeled sub-asset while loading).
    fn add_mesh(&mut self, label: String, mesh: Mesh) -> Handle<Mesh>;
}

impl Sink for LoadContext<'_> {
    fn load_path<A: bevy_asset::Asset>(&mut self, path: String) -> Handle<A> {
        self.load(path)
    }
    fn add_mesh(&mut self, label: String, mesh: Mesh) -> Handle<Mesh> {
        self.add_labeled_asset(label, mesh)
    }
}

/// Prepares components in a running app: assets through the `AssetServer`, meshes added to
/// `Assets<Mesh>`.
pub(crate) struct RuntimeSink<'a> {
    pub(crate) server: bevy_asset::AssetServer,
    pub(crate) meshes: &'a mut bevy_asset::Assets<Mesh>,
}

impl Sink for RuntimeSink<'_> {
    fn load_path<A: bevy_asset::Asset>(&mut self, path: String) -> Handle<A> {
        self.server.load(path)
    }
    fn add_mesh(&mut self, _label: String, mesh: Mesh) -> Handle<Mesh> {
        self.meshes.add(mesh)
    }
}

/// Where built-ins go in a world without an asset server: nowhere (default handles).
pub(crate) struct NoAssets;

impl Sink for NoAssets {
    fn load_path<A: bevy_asset::Asset>(&mut self, _path: String) -> Handle<A> {
        Handle::default()
    }
    fn add_mesh(&mut self, _label: String, _mesh: Mesh) -> Handle<Mesh> {
        Handle::default()
    }
}

impl PreparedComponent {
    /// The file tag (= component key) this component was prepared from.
    pub(crate) fn tag(&self) -> &'static str {
        match self {
            PreparedComponent::Sprite(_) => "sprite",
            PreparedComponent::Text2d(..) => "text2d",
            PreparedComponent::Camera2d => "camera2d",
            PreparedComponent::Camera3d => "camera3d",
            PreparedComponent::PointLight(_) => "point_light",
            PreparedComponent::DirectionalLight(_) => "directional_light",
            PreparedComponent::Mesh3d { .. } => "mesh3d",
            PreparedComponent::Visibility(_) => "visibility",
        }
    }
}

/// Removes the Bevy components of built-in tag `tag` from `entity` (a hot reload dropped it).
/// `visibility` goes back to `Visibility::Inherited`, the value of an entity without one.
pub(crate) fn remove(entity: &mut EntityWorldMut, tag: &str) {
    match tag {
        "sprite" => {
            entity.remove::<bevy_sprite::Sprite>();
        }
        "text2d" => {
            entity.remove::<(
                bevy_sprite::Text2d,
                bevy_text::TextFont,
                bevy_text::TextColor,
            )>();
        }
        "camera2d" => {
            entity.remove::<(bevy_camera::Camera2d, bevy_camera::Camera)>();
        }
        "camera3d" => {
            entity.remove::<(bevy_camera::Camera3d, bevy_camera::Camera)>();
        }
        "point_light" => {
            entity.remove::<bevy_light::PointLight>();
        }
        "directional_light" => {
            entity.remove::<bevy_light::DirectionalLight>();
        }
        "mesh3d" => {
            entity.remove::<Mesh3d>();
            remove_material_component(entity);
        }
        "visibility" => {
            entity.insert(bevy_camera::visibility::Visibility::Inherited);
        }
        _ => {}
    }
}

fn remove_material_component(entity: &mut EntityWorldMut) {
    let Some(registry) = entity.world().get_resource::<AppTypeRegistry>().cloned() else {
        return;
    };
    let registry = registry.read();
    if let Some(reflect) = registry
        .get_with_short_type_path(MESH_MATERIAL_3D)
        .and_then(|r| r.data::<ReflectComponent>())
    {
        reflect.remove(entity);
    }
}

/// Sub-asset bookkeeping while one scene loads: identical primitives and materials share one
/// labeled mesh and one material slot.
#[derive(Default)]
pub(crate) struct SubAssets {
    meshes: HashMap<ShapeKey, Handle<Mesh>>,
    material_keys: HashMap<[u32; 7], usize>,
    pub(crate) materials: Vec<MaterialData>,
}

#[derive(Hash, PartialEq, Eq)]
struct ShapeKey(u8, [u32; 3]);

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
pub(crate) fn mesh_label(n: usize) -> String {
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

/// Makes a built-in component ready to spawn, loading its assets through `ctx`. `Err` carries a
/// message for a component that cannot be built (it is skipped with that warning).
pub(crate) fn prepare(
    component: &ComponentData,
    ctx: &mut impl Sink,
    sub: &mut SubAssets,
) -> Result<Option<PreparedComponent>, String> {
    Ok(Some(match component {
        ComponentData::Sprite(s) => {
            let mut sprite = bevy_sprite::Sprite {
                color: s.color.to_bevy(),
                custom_size: s.custom_size.map(Into::into),
                flip_x: s.flip_x,
                flip_y: s.flip_y,
                ..Default::default()
            };
            if let Some(image) = &s.image {
                sprite.image = ctx.load_path(image.clone());
            }
            PreparedComponent::Sprite(sprite)
        }
        ComponentData::Text2d(t) => PreparedComponent::Text2d(
            bevy_sprite::Text2d(t.text.clone()),
            bevy_text::TextFont::from_font_size(bevy_text::FontSize::Px(t.font_size)),
            bevy_text::TextColor(t.color.to_bevy()),
        ),
        ComponentData::Camera2d => PreparedComponent::Camera2d,
        ComponentData::Camera3d => PreparedComponent::Camera3d,
        ComponentData::PointLight(l) => PreparedComponent::PointLight(bevy_light::PointLight {
            color: l.color.to_bevy(),
            intensity: l.intensity,
            range: l.range,
            shadow_maps_enabled: l.shadows,
            ..Default::default()
        }),
        ComponentData::DirectionalLight(l) => {
            PreparedComponent::DirectionalLight(bevy_light::DirectionalLight {
                color: l.color.to_bevy(),
                illuminance: l.illuminance,
                shadow_maps_enabled: l.shadows,
                ..Default::default()
            })
        }
        ComponentData::Mesh3d(m) => {
            let mesh = match &m.mesh {
                MeshSource::Asset(path) => ctx.load_path(path.clone()),
                MeshSource::Primitive(shape) => {
                    let key = shape_key(shape);
                    match sub.meshes.get(&key) {
                        Some(handle) => handle.clone(),
                        None => {
                            let mesh = primitive_mesh(shape)
                                .map_err(|e| format!("{} mesh: {e}", shape.name()))?;
                            let handle = ctx.add_mesh(mesh_label(sub.meshes.len()), mesh);
                            sub.meshes.insert(key, handle.clone());
                            handle
                        }
                    }
                }
            };
            let mat = &m.material;
            let key = mat.bits();
            let material = *sub.material_keys.entry(key).or_insert_with(|| {
                sub.materials.push(mat.clone());
                sub.materials.len() - 1
            });
            PreparedComponent::Mesh3d { mesh, material }
        }
        ComponentData::Visibility(v) => PreparedComponent::Visibility(visibility(*v)),
        ComponentData::Custom(_) => return Ok(None),
    }))
}

/// The Bevy visibility of a file visibility mode.
pub(crate) fn visibility(v: crate::format::VisibilityMode) -> bevy_camera::visibility::Visibility {
    use bevy_camera::visibility::Visibility;
    match v {
        crate::format::VisibilityMode::Inherited => Visibility::Inherited,
        crate::format::VisibilityMode::Visible => Visibility::Visible,
        crate::format::VisibilityMode::Hidden => Visibility::Hidden,
    }
}

/// Inserts a prepared component. `material` resolves a material slot to a live material handle.
pub(crate) fn insert(
    entity: &mut EntityWorldMut,
    component: &PreparedComponent,
    material: &mut dyn FnMut(&mut World, usize) -> Option<UntypedHandle>,
) {
    match component {
        PreparedComponent::Sprite(s) => {
            entity.insert(s.clone());
        }
        PreparedComponent::Text2d(text, font, color) => {
            entity.insert((text.clone(), font.clone(), *color));
        }
        PreparedComponent::Camera2d => {
            entity.insert(bevy_camera::Camera2d);
        }
        PreparedComponent::Camera3d => {
            entity.insert(bevy_camera::Camera3d::default());
        }
        PreparedComponent::PointLight(l) => {
            entity.insert(*l);
        }
        PreparedComponent::DirectionalLight(l) => {
            entity.insert(*l);
        }
        PreparedComponent::Visibility(v) => {
            entity.insert(*v);
        }
        PreparedComponent::Mesh3d {
            mesh,
            material: slot,
        } => {
            entity.insert(Mesh3d(mesh.clone()));
            let handle = entity.world_scope(|world| material(world, *slot));
            if let Some(handle) = handle {
                insert_material_component(entity, handle);
            }
        }
    }
}

/// Type paths of the PBR types, as `bevy_pbr` 0.20 registers them.
const STANDARD_MATERIAL: &str = "StandardMaterial";
const MESH_MATERIAL_3D: &str = "MeshMaterial3d<StandardMaterial>";
const HANDLE_STANDARD_MATERIAL: &str = "Handle<StandardMaterial>";

/// Why materials cannot be created in this app, if they cannot.
pub(crate) fn material_support(world: &World) -> Result<(), String> {
    let Some(registry) = world.get_resource::<AppTypeRegistry>() else {
        return Err("the app has no type registry".into());
    };
    let registry = registry.read();
    let need = |short: &str, what: &str| -> Result<(), String> {
        registry
            .get_with_short_type_path(short)
            .map(|_| ())
            .ok_or_else(|| {
                format!("`{short}` is not registered ({what}); add bevy_pbr's `PbrPlugin`")
            })
    };
    need(STANDARD_MATERIAL, "the material asset")?;
    need(MESH_MATERIAL_3D, "the material component")?;
    need(HANDLE_STANDARD_MATERIAL, "the material handle")?;
    let reg = registry
        .get_with_short_type_path(STANDARD_MATERIAL)
        .ok_or("unreachable")?;
    if reg.data::<ReflectDefault>().is_none() || reg.data::<bevy_asset::ReflectAsset>().is_none() {
        return Err("`StandardMaterial` lacks `ReflectDefault` or `ReflectAsset` type data".into());
    }
    Ok(())
}

/// Creates a `StandardMaterial` with the file's values through reflection and adds it to its
/// `Assets`. `None` (with the reason logged by the caller) when the PBR types are missing.
pub(crate) fn create_material(
    world: &mut World,
    data: &MaterialData,
) -> Result<UntypedHandle, String> {
    material_support(world)?;
    let registry = world.resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let reg = registry
        .get_with_short_type_path(STANDARD_MATERIAL)
        .ok_or("`StandardMaterial` is not registered")?;
    let default = reg.data::<ReflectDefault>().ok_or("no ReflectDefault")?;
    let asset = reg
        .data::<bevy_asset::ReflectAsset>()
        .ok_or("no ReflectAsset")?;
    let mut material = default.default();
    if let ReflectMut::Struct(s) = material.reflect_mut() {
        let set =
            |s: &mut dyn bevy_reflect::structs::Struct, name: &str, value: &dyn PartialReflect| {
                if let Some(field) = s.field_mut(name) {
                    let _ = field.try_apply(value);
                }
            };
        set(s, "base_color", &data.base_color.to_bevy());
        set(s, "metallic", &data.metallic);
        set(s, "perceptual_roughness", &data.perceptual_roughness);
        set(s, "unlit", &data.unlit);
    } else {
        return Err("`StandardMaterial` does not reflect as a struct".into());
    }
    Ok(asset.add(world, material.as_partial_reflect()))
}

fn insert_material_component(entity: &mut EntityWorldMut, handle: UntypedHandle) {
    let Some(registry) = entity.world().get_resource::<AppTypeRegistry>().cloned() else {
        return;
    };
    let registry = registry.read();
    let (Some(component), Some(handle_reg)) = (
        registry.get_with_short_type_path(MESH_MATERIAL_3D),
        registry.get_with_short_type_path(HANDLE_STANDARD_MATERIAL),
    ) else {
        return;
    };
    let (Some(reflect_component), Some(reflect_default), Some(reflect_handle)) = (
        component.data::<ReflectComponent>(),
        component.data::<ReflectDefault>(),
        handle_reg.data::<bevy_asset::ReflectHandle>(),
    ) else {
        tracing::warn!(
            "`MeshMaterial3d<StandardMaterial>` lacks reflection data; mesh spawned without a material"
        );
        return;
    };
    let mut value = reflect_default.default();
    let typed = reflect_handle.typed(handle);
    let field = match value.reflect_mut() {
        ReflectMut::TupleStruct(t) => t.field_mut(0),
        _ => None,
    };
    if field.is_none_or(|f| f.try_apply(typed.as_partial_reflect()).is_err()) {
        tracing::warn!("could not set the material handle of `MeshMaterial3d<StandardMaterial>`");
        return;
    }
    reflect_component.insert(entity, value.as_partial_reflect(), &registry);
}

/// The file form of the Bevy components of built-in tag `tag` on `entity`, when it has them
/// (saving a live instance, [`crate::runtime::capture`]); the inverse of [`prepare`] and
/// [`insert`]. `base` is the entity's component of that tag as the scene wrote it: what cannot
/// be read back from Bevy's types (a primitive mesh behind its handle, the material) comes
/// from it. `visibility` is read only when `base` has one or the live value is not
/// `Inherited` (plain parents get `Inherited` from [`link_visibility`]).
///
/// [`link_visibility`]: crate::runtime::spawn
pub(crate) fn read(
    entity: bevy_ecs::world::EntityRef,
    tag: &str,
    base: Option<&ComponentData>,
) -> Option<ComponentData> {
    use crate::format::{
        ColorData, DirectionalLightData, Mesh3dData, PointLightData, SpriteData, Text2dData,
        VisibilityMode,
    };
    let color = |c: bevy_color::Color| {
        let s = c.to_srgba();
        ColorData::rgba(s.red, s.green, s.blue, s.alpha)
    };
    Some(match tag {
        "sprite" => {
            let s = entity.get::<bevy_sprite::Sprite>()?;
            ComponentData::Sprite(Box::new(SpriteData {
                image: s.image.path().map(|p| p.to_string()),
                color: color(s.color),
                custom_size: s.custom_size.map(Into::into),
                flip_x: s.flip_x,
                flip_y: s.flip_y,
            }))
        }
        "text2d" => {
            let text = entity.get::<bevy_sprite::Text2d>()?;
            let font_size = match entity.get::<bevy_text::TextFont>().map(|f| f.font_size) {
                Some(bevy_text::FontSize::Px(px)) => px,
                // `Rem(r)` at the default root size; another unit (relative to the viewport),
                // or no font: what the scene wrote, else the root size.
                other => match (other, base) {
                    (Some(bevy_text::FontSize::Rem(rem)), _) => {
                        rem * bevy_text::DEFAULT_REM_SIZE_PX
                    }
                    (_, Some(ComponentData::Text2d(t))) => t.font_size,
                    _ => bevy_text::DEFAULT_REM_SIZE_PX,
                },
            };
            ComponentData::Text2d(Box::new(Text2dData {
                text: text.0.clone(),
                font_size,
                color: color(
                    entity
                        .get::<bevy_text::TextColor>()
                        .map_or(bevy_color::Color::WHITE, |c| c.0),
                ),
            }))
        }
        "camera2d" => {
            entity.get::<bevy_camera::Camera2d>()?;
            ComponentData::Camera2d
        }
        "camera3d" => {
            entity.get::<bevy_camera::Camera3d>()?;
            ComponentData::Camera3d
        }
        "point_light" => {
            let l = entity.get::<bevy_light::PointLight>()?;
            ComponentData::PointLight(PointLightData {
                color: color(l.color),
                intensity: l.intensity,
                range: l.range,
                shadows: l.shadow_maps_enabled,
            })
        }
        "directional_light" => {
            let l = entity.get::<bevy_light::DirectionalLight>()?;
            ComponentData::DirectionalLight(DirectionalLightData {
                color: color(l.color),
                illuminance: l.illuminance,
                shadows: l.shadow_maps_enabled,
            })
        }
        "mesh3d" => {
            let mesh = entity.get::<Mesh3d>()?;
            match (base, mesh.0.path()) {
                // A primitive is a sub-asset of the scene: the scene says which shape.
                (Some(ComponentData::Mesh3d(m)), _) => ComponentData::Mesh3d(m.clone()),
                (None, Some(path)) => ComponentData::Mesh3d(Box::new(Mesh3dData {
                    mesh: MeshSource::Asset(path.to_string()),
                    material: MaterialData::default(),
                })),
                _ => return None,
            }
        }
        "visibility" => {
            use bevy_camera::visibility::Visibility;
            let mode = match entity.get::<Visibility>()? {
                Visibility::Inherited => VisibilityMode::Inherited,
                Visibility::Visible => VisibilityMode::Visible,
                Visibility::Hidden => VisibilityMode::Hidden,
            };
            if base.is_none() && mode == VisibilityMode::Inherited {
                return None;
            }
            ComponentData::Visibility(mode)
        }
        _ => return None,
    })
}
