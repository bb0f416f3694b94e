//! Built-in component tags to real Bevy 0.20 components and back (behind the `builtins`
//! feature): the Bevy half of each tag's home. Each file here is named as its tag's file in
//! `format::builtin` and holds how a payload becomes Bevy components (`prepare` at load time,
//! `insert` at spawn, `remove` when a hot reload drops it) and how Bevy components become a
//! payload again (`read`, which saving a live instance and importing a `.scn.ron` share).
//!
//! | tag | Bevy components |
//! |---|---|
//! | `sprite` | `Sprite` (image handle, sRGB colour, `custom_size` in pixels, flips) |
//! | `text2d` | `Text2d` + `TextFont` (font size in pixels) + `TextColor` |
//! | `camera2d` / `camera3d` | `Camera2d` / `Camera3d` |
//! | `point_light` | `PointLight` (colour, intensity in lumens, range, `shadow_maps_enabled`) |
//! | `directional_light` | `DirectionalLight` (colour, illuminance in lux, `shadow_maps_enabled`) |
//! | `spot_light` | `SpotLight` (colour, intensity in lumens, range, radius, angles in radians from the file's degrees, `shadow_maps_enabled`) |
//! | `mesh3d` | `Mesh3d` + `MeshMaterial3d<StandardMaterial>` (created through the type registry) |
//! | `visibility` | `Visibility` |
//!
//! `StandardMaterial` lives in `bevy_pbr`, which this crate does not depend on (its shader chain
//! needs a newer Rust). Materials are built at spawn time through the app's type registry:
//! `StandardMaterial` from its `ReflectDefault` with the file's fields applied, added to its
//! `Assets` through `ReflectAsset`, and `MeshMaterial3d<StandardMaterial>` inserted through
//! `ReflectComponent`. An app that draws meshes (it has Bevy's `MeshPlugin`) without the PBR
//! types registered gets meshes without materials and one warning saying why; a headless app
//! (no `MeshPlugin`: nothing draws a mesh) gets them without materials quietly.

/// `Prepared`, `prepare`, `insert` and `remove` of a tag that is one Bevy component `$bevy`,
/// made from the payload `$data` by the file's `fn bevy(&$data) -> $bevy`.
macro_rules! one_component {
    ($data:ty => $bevy:ty) => {
        pub(super) type Prepared = $bevy;

        pub(super) fn prepare(
            d: &$data,
            _: &mut impl super::Sink,
            _: &mut super::SubAssets,
        ) -> Result<Prepared, String> {
            Ok(bevy(d))
        }

        pub(super) fn insert(
            entity: &mut bevy_ecs::world::EntityWorldMut,
            component: &Prepared,
            _: &mut dyn FnMut(
                &mut bevy_ecs::world::World,
                usize,
            ) -> Option<bevy_asset::UntypedHandle>,
        ) {
            entity.insert(component.clone());
        }

        pub(super) fn remove(entity: &mut bevy_ecs::world::EntityWorldMut) {
            entity.remove::<$bevy>();
        }
    };
}

mod camera2d;
mod camera3d;
mod directional_light;
mod hierarchy;
mod mesh3d;
mod point_light;
mod prepared;
mod spot_light;
mod sprite;
mod text2d;
mod visibility;

// The placed-model writer's (feature `gltf`).
#[cfg_attr(not(feature = "gltf"), allow(unused_imports))]
pub(crate) use camera3d::{camera_is_active, set_camera_active};
pub(crate) use hierarchy::{
    RootRequires, Shown, hide, link_visibility, observe_parents, show, visibility_id,
};
pub(crate) use prepared::{
    BuiltinsMemory, PreparedBuiltins, insert_prepared, prepare_in_world, prepare_loading,
};

use std::collections::HashMap;

use bevy_asset::{Handle, LoadContext, UntypedHandle};
use bevy_ecs::component::Component;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy_ecs::world::{EntityWorldMut, World};
use bevy_mesh::Mesh;
use bevy_reflect::{FromReflect, PartialReflect, ReflectMut, TypePath, std_traits::ReflectDefault};

use crate::format::{ColorData, ComponentData, MaterialData};

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
    meshes: HashMap<mesh3d::ShapeKey, Handle<Mesh>>,
    material_keys: HashMap<[u32; 7], usize>,
    pub(crate) materials: Vec<MaterialData>,
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

/// The Bevy components of an entity, for [`read`]: a live entity's (saving an instance,
/// [`crate::runtime::capture`]) or a `.scn.ron` entity's (importing,
/// [`crate::runtime::import`]), which also hears what the file form leaves out.
pub(crate) trait Parts {
    /// The entity's component of type `T`, if it has one (an import marks it used).
    fn take<T: Component + FromReflect + TypePath + Clone>(&mut self) -> Option<T>;
    /// The asset path of `handle`, where it has one.
    fn path_of(&self, handle: &UntypedHandle) -> Option<String>;
    /// `original` (of built-in `tag`) became `kept` in the file form: an import lists the
    /// fields that differ.
    fn partial<T: PartialReflect + TypePath>(&mut self, tag: &'static str, original: &T, kept: &T);
    /// A component of type `T` was left out because its asset has no path.
    fn without_path<T: TypePath>(&mut self);
}

/// The file form of built-in `tag` on the live entity `live` (saving an instance): [`read`]
/// over its components as they are.
pub(crate) fn read_entity(
    live: bevy_ecs::world::EntityRef,
    tag: &str,
    base: Option<&ComponentData>,
) -> Option<ComponentData> {
    read(&mut Live(live), tag, base)
}

/// A live entity's components, read as they are (nothing is left out of a save).
struct Live<'w>(bevy_ecs::world::EntityRef<'w>);

impl Parts for Live<'_> {
    fn take<T: Component + FromReflect + TypePath + Clone>(&mut self) -> Option<T> {
        self.0.get::<T>().cloned()
    }
    fn path_of(&self, handle: &UntypedHandle) -> Option<String> {
        handle.path().map(ToString::to_string)
    }
    fn partial<T: PartialReflect + TypePath>(&mut self, _: &'static str, _: &T, _: &T) {}
    fn without_path<T: TypePath>(&mut self) {}
}

/// The asset types of the sub-assets a scene's built-ins make (meshes, images), for an app
/// without the render plugins that would add them (a headless app).
pub(crate) fn init_sub_assets(app: &mut bevy_app::App) {
    use bevy_asset::AssetApp;
    if !app.world().contains_resource::<bevy_asset::Assets<Mesh>>() {
        app.init_asset::<Mesh>();
        // No `MeshPlugin`: nothing draws meshes, so none needs a material.
        app.world_mut()
            .get_resource_or_insert_with(prepared::ForgeMaterials::default)
            .draws_nothing = true;
    }
    if !app
        .world()
        .contains_resource::<bevy_asset::Assets<bevy_image::Image>>()
    {
        app.init_asset::<bevy_image::Image>();
    }
}

/// A colour as the file keeps it: sRGB channels. One stored in another space is converted, and
/// channels a few `f32` steps from a round value (`LinearRgba` white is `0.99999994` in sRGB)
/// snap to it.
pub(crate) fn file_color(c: bevy_color::Color) -> ColorData {
    if let bevy_color::Color::Srgba(s) = c {
        return ColorData::rgba(s.red, s.green, s.blue, s.alpha);
    }
    let snap = |v: f32| {
        let round = (f64::from(v) * 1e6).round() / 1e6;
        let round = round as f32;
        if (round - v).abs() <= 4.0 * f32::EPSILON * v.abs().max(1.0) {
            round
        } else {
            v
        }
    };
    let s = c.to_srgba();
    ColorData::rgba(snap(s.red), snap(s.green), snap(s.blue), snap(s.alpha))
}

/// Components every camera brings along, whatever its kind (besides its tag's own
/// [`implied`] ones).
#[cfg(feature = "import")]
pub(crate) const CAMERA_IMPLIED: &[&str] = &[
    "Camera",
    "CameraMainTextureUsages",
    "RenderTarget",
    "Msaa",
    "CameraRenderGraph",
];

/// Declares what every tag's file provides, dispatched by variant: [`PreparedComponent`],
/// [`prepare`], [`insert`], [`remove`], [`read`] and [`implied`].
macro_rules! builtins {
    ($( $variant:ident $(($d:ident))? => $module:ident, )*) => {
        /// A built-in component made ready at load time, so spawning only clones it.
        #[derive(Debug, Clone)]
        pub(crate) enum PreparedComponent {
            $( $variant($module::Prepared), )*
        }

        impl PreparedComponent {
            /// The file tag (= component key) this component was prepared from.
            pub(crate) fn tag(&self) -> &'static str {
                match self {
                    $( PreparedComponent::$variant(_) => $module::TAG, )*
                }
            }
        }

        /// Makes a built-in component ready to spawn, loading its assets through `ctx`
        /// (`None` for a custom component). `Err` carries a message for a component that cannot
        /// be built (it is skipped with that warning).
        pub(crate) fn prepare(
            component: &ComponentData,
            ctx: &mut impl Sink,
            sub: &mut SubAssets,
        ) -> Result<Option<PreparedComponent>, String> {
            Ok(Some(match component {
                $( ComponentData::$variant $(($d))? =>
                    PreparedComponent::$variant($module::prepare($($d,)? ctx, sub)?), )*
                ComponentData::Custom(_) => return Ok(None),
            }))
        }

        /// Inserts a prepared component. `material` resolves a material slot to a live
        /// material handle.
        pub(crate) fn insert(
            entity: &mut EntityWorldMut,
            component: &PreparedComponent,
            material: &mut dyn FnMut(&mut World, usize) -> Option<UntypedHandle>,
        ) {
            match component {
                $( PreparedComponent::$variant(p) => $module::insert(entity, p, material), )*
            }
        }

        /// Removes the Bevy components of built-in tag `tag` from `entity` (a hot reload
        /// dropped it).
        pub(crate) fn remove(entity: &mut EntityWorldMut, tag: &str) {
            match tag {
                $( $module::TAG => $module::remove(entity), )*
                _ => {}
            }
        }

        /// The file form of the Bevy components of built-in tag `tag` among `parts`, when it
        /// has them: the inverse of [`prepare`] and [`insert`]. `base` is the entity's
        /// component of that tag as the scene wrote it (saving an instance): what cannot be
        /// read back from Bevy's types (a primitive mesh behind its handle, the material)
        /// comes from it.
        pub(crate) fn read(
            parts: &mut impl Parts,
            tag: &str,
            base: Option<&ComponentData>,
        ) -> Option<ComponentData> {
            match tag {
                $( $module::TAG => $module::read(parts, base), )*
                _ => None,
            }
        }

        /// Every built-in tag, in the order an import reads them.
        #[cfg(feature = "import")]
        pub(crate) const TAGS: &[&str] = &[$( $module::TAG, )*];

        /// The Bevy components (by type name) built-in `tag` brings along as its required
        /// components: an import drops them, noting the ones that differ from their defaults.
        #[cfg(feature = "import")]
        pub(crate) fn implied(tag: &str) -> &'static [&'static str] {
            match tag {
                $( $module::TAG => $module::IMPLIED, )*
                _ => &[],
            }
        }
    };
}

builtins! {
    Sprite(d) => sprite,
    Text2d(d) => text2d,
    Camera2d => camera2d,
    Camera3d => camera3d,
    PointLight(d) => point_light,
    DirectionalLight(d) => directional_light,
    Mesh3d(d) => mesh3d,
    Visibility(d) => visibility,
    SpotLight(d) => spot_light,
}
