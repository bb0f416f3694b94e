//! The built-ins of a whole scene made ready at load time ([`PreparedBuiltins`]), and how a
//! spawn inserts one with its material ([`insert_prepared`]).

use std::collections::HashMap;

use bevy_asset::{UntypedAssetId, UntypedHandle};
use bevy_ecs::resource::Resource;
use bevy_ecs::world::{EntityWorldMut, World};

use super::{NoAssets, PreparedComponent, RuntimeSink, Sink, SubAssets};
use crate::format::{ComponentData, MaterialData, SceneDoc, SourceMap};
use crate::prefab::PlacedPaths;

/// The built-in components of every entity, ready to insert: one list for the whole scene, in
/// `doc.entities` order, and where each entity's run starts (no list per entity). `Name` and
/// `Transform` are made from the document entry when an entity spawns (keeping them here too
/// would double their memory), and custom components are the scene's custom columns.
#[derive(Debug, Clone, Default)]
pub(crate) struct PreparedBuiltins {
    components: Vec<PreparedComponent>,
    /// Entity `i`'s components are `components[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
}

impl PreparedBuiltins {
    /// The built-in components of the entity at `index` of `doc.entities` (none when out of
    /// range).
    pub(crate) fn entity(&self, index: usize) -> &[PreparedComponent] {
        let run = crate::runtime::values::custom::entity_run(&self.starts, index);
        self.components.get(run).unwrap_or(&[])
    }
}

/// Prepares the built-in components of every entity of `doc` (in `doc.entities` order) through
/// `sink`, and collects the scene's materials. Custom components are built apart
/// ([`crate::runtime::values::custom`]); a built-in that cannot be built is skipped with an
/// error naming `path`, the line and column (from `source_map`) and the entity.
///
/// The entities a prefab placed (`placed`: their id paths by key) share their prepared values:
/// the components of one prefab entity, placed in every cell of a tile layer or by every
/// instance, are prepared once (asset handles loaded once) and cloned for the others, unless
/// an override changed them.
pub(crate) fn prepare_all(
    doc: &SceneDoc,
    placed: Option<&PlacedPaths>,
    source_map: &SourceMap,
    sink: &mut impl Sink,
    path: &str,
) -> (PreparedBuiltins, Vec<MaterialData>) {
    let mut sub = SubAssets::default();
    let mut prepared = PreparedBuiltins::default();
    prepared.starts.reserve_exact(doc.entities.len() + 1);
    let mut shared = Shared::default();
    for (id, node) in &doc.entities {
        prepared
            .starts
            .push(u32::try_from(prepared.components.len()).unwrap_or(u32::MAX));
        // The entity's id in the prefab that placed it, when one did.
        let own = placed.and_then(|p| p.get(id)).and_then(|path| path.last());
        for (index, component) in node.components.iter().enumerate() {
            if let ComponentData::Custom(_) = component {
                continue; // built with the custom components
            }
            let slot = own.map(|own| (*own, index));
            if let Some(p) = slot.and_then(|slot| shared.get(slot, component)) {
                prepared.components.push(p.clone());
                continue;
            }
            match super::prepare(component, sink, &mut sub) {
                Ok(Some(p)) => {
                    if let Some(slot) = slot {
                        shared.keep(slot, component, &p);
                    }
                    prepared.components.push(p)
                }
                Ok(None) => {}
                Err(message) => {
                    let at = source_map
                        .component(*id, index)
                        .map(|p| format!("{}:", p))
                        .unwrap_or_default();
                    tracing::error!(
                        "{path}:{at} entity {id}: `{}` skipped: {message}",
                        component.tag()
                    );
                }
            }
        }
    }
    if prepared.components.is_empty() {
        // No entity has one: every lookup answers none without the starts.
        prepared.starts = Vec::new();
    } else {
        prepared
            .starts
            .push(u32::try_from(prepared.components.len()).unwrap_or(u32::MAX));
        prepared.components.shrink_to_fit();
    }
    (prepared, sub.materials)
}

/// Built-in components already prepared for entities prefabs placed, by the entity's id in
/// its prefab and the component's index: a few values each (palette prefabs of one layer
/// share ids; overrides change values), compared before one is reused.
#[derive(Default)]
struct Shared<'d> {
    by_slot: HashMap<(u64, usize), Vec<(&'d ComponentData, PreparedComponent)>>,
}

impl<'d> Shared<'d> {
    /// Values kept per slot.
    const VARIANTS: usize = 8;

    fn get(&self, slot: (u64, usize), component: &ComponentData) -> Option<&PreparedComponent> {
        self.by_slot
            .get(&slot)?
            .iter()
            .find(|(c, _)| *c == component)
            .map(|(_, p)| p)
    }

    fn keep(
        &mut self,
        slot: (u64, usize),
        component: &'d ComponentData,
        prepared: &PreparedComponent,
    ) {
        let kept = self.by_slot.entry(slot).or_default();
        if kept.len() < Self::VARIANTS {
            kept.push((component, prepared.clone()));
        }
    }
}

/// The built-ins of `doc` prepared with `world`'s asset server (meshes added to its
/// `Assets<Mesh>`): a scene edited in memory.
pub(crate) fn prepare_in_world(
    world: &mut World,
    doc: &SceneDoc,
    placed: Option<&PlacedPaths>,
) -> (PreparedBuiltins, Vec<MaterialData>) {
    let server = world.get_resource::<bevy_asset::AssetServer>().cloned();
    let meshes = world.contains_resource::<bevy_asset::Assets<bevy_mesh::Mesh>>();
    let (Some(server), true) = (server, meshes) else {
        return prepare_all(
            doc,
            placed,
            &SourceMap::default(),
            &mut NoAssets,
            "(in memory)",
        );
    };
    world.resource_scope(
        |_, mut meshes: bevy_ecs::world::Mut<bevy_asset::Assets<bevy_mesh::Mesh>>| {
            let mut sink = RuntimeSink {
                server,
                meshes: &mut meshes,
            };
            prepare_all(doc, placed, &SourceMap::default(), &mut sink, "(in memory)")
        },
    )
}

/// Materials created for scenes, by scene asset and material slot, shared by all instances of
/// a scene.
#[derive(Resource, Default)]
pub(crate) struct ForgeMaterials {
    handles: HashMap<(UntypedAssetId, usize), Option<UntypedHandle>>,
    warned: bool,
    /// The app has no `MeshPlugin` (the plugin added the mesh assets itself): nothing draws a
    /// mesh, so a mesh without a material is no problem to warn of.
    pub(crate) draws_nothing: bool,
}

/// Inserts one prepared built-in on `entity`, its material (slot of `materials`, the scene's)
/// created once for the scene `scene` and shared through [`ForgeMaterials`].
pub(crate) fn insert_prepared(
    entity: &mut EntityWorldMut,
    component: &PreparedComponent,
    scene: UntypedAssetId,
    materials: &[MaterialData],
) {
    let mut material =
        |world: &mut World, slot: usize| material_handle(world, scene, materials, slot);
    super::insert(entity, component, &mut material);
}

fn material_handle(
    world: &mut World,
    scene: UntypedAssetId,
    materials: &[MaterialData],
    slot: usize,
) -> Option<UntypedHandle> {
    let cached = world
        .get_resource::<ForgeMaterials>()
        .and_then(|m| m.handles.get(&(scene, slot)).cloned());
    if let Some(handle) = cached {
        return handle;
    }
    let data = materials.get(slot)?;
    let created = super::create_material(world, data);
    let mut cache = world.get_resource_or_insert_with(ForgeMaterials::default);
    let handle = match created {
        Ok(h) => Some(h),
        Err(reason) => {
            if !cache.warned {
                cache.warned = true;
                if cache.draws_nothing {
                    tracing::debug!(
                        "mesh3d entities spawn without materials in this app, which draws no meshes: {reason}"
                    );
                } else {
                    tracing::warn!("mesh3d entities spawn without materials: {reason}");
                }
            }
            None
        }
    };
    cache.handles.insert((scene, slot), handle.clone());
    handle
}
