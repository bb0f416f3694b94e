//! The built-ins of a whole scene made ready at load time ([`PreparedBuiltins`]), and how a
//! spawn inserts one with its material ([`insert_prepared`]).

use std::collections::HashMap;
use std::sync::Arc;

use bevy_asset::{LoadContext, UntypedAssetId, UntypedHandle};
use bevy_ecs::resource::Resource;
use bevy_ecs::world::{EntityWorldMut, World};

use super::{NoAssets, PreparedComponent, RuntimeSink, Sink, SubAssets};
use crate::format::{ComponentData, MaterialData, SceneDoc, SourceMap};
use crate::prefab::PlacedPaths;
use crate::runtime::values::windows::Windows;

/// The built-in components of every entity, ready to insert, in `doc.entities` order: lists of
/// consecutive entities ([`BuiltinPart`]) read through [`Windows`], so a new version of the
/// scene shares what it did not prepare again. `Name` and `Transform` are made from the
/// document entry when an entity spawns (keeping them here too would double their memory), and
/// custom components are the scene's custom columns.
#[derive(Debug, Clone, Default)]
pub(crate) struct PreparedBuiltins(Windows<BuiltinPart>);

/// The built-in components of consecutive entities: one list, and where each entity's run
/// starts (no list per entity).
#[derive(Debug, Default)]
pub(crate) struct BuiltinPart {
    components: Vec<PreparedComponent>,
    /// Entity `i`'s components are `components[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
}

impl PreparedBuiltins {
    /// The built-in components of the entity at `index` of `doc.entities` (none when out of
    /// range).
    pub(crate) fn entity(&self, index: usize) -> &[PreparedComponent] {
        match self.0.at(index) {
            Some((part, i)) => {
                let run = crate::runtime::values::custom::entity_run(&part.starts, i);
                part.components.get(run).unwrap_or(&[])
            }
            None => &[],
        }
    }
}

/// What preparing a scene's built-ins while it loaded keeps for the next version of its file:
/// the spawned document they were prepared for, and the assets they loaded (each asked for
/// again, as a dependency of the new version). A scene with generated meshes or materials
/// (sub-assets, which every load adds anew) is prepared whole each time.
pub(crate) struct BuiltinsMemory {
    spawned: Arc<SceneDoc>,
    prepared: PreparedBuiltins,
    materials: Vec<MaterialData>,
    loads: Vec<(String, LoadAgain)>,
    sub_assets: bool,
}

/// Asks a load context for an asset of the type it was loaded as.
type LoadAgain = fn(&mut LoadContext<'_>, String);

fn load_again<A: bevy_asset::Asset>(cx: &mut LoadContext<'_>, path: String) {
    let _ = cx.load::<A>(path);
}

/// A [`LoadContext`] whose loads are noted (each path and type once) and whose sub-assets are
/// counted.
struct Noting<'c, 'l> {
    cx: &'c mut LoadContext<'l>,
    loads: Vec<(String, LoadAgain)>,
    seen: std::collections::HashSet<(String, std::any::TypeId)>,
    meshes: usize,
}

impl Sink for Noting<'_, '_> {
    fn load_path<A: bevy_asset::Asset>(&mut self, path: String) -> bevy_asset::Handle<A> {
        if self
            .seen
            .insert((path.clone(), std::any::TypeId::of::<A>()))
        {
            self.loads.push((path.clone(), load_again::<A>));
        }
        self.cx.load(path)
    }
    fn add_mesh(
        &mut self,
        label: String,
        mesh: bevy_mesh::Mesh,
    ) -> bevy_asset::Handle<bevy_mesh::Mesh> {
        self.meshes += 1;
        self.cx.add_labeled_asset(label, mesh)
    }
}

/// The built-ins of `spawned` (a scene loading through `cx`) prepared as [`prepare_all`]
/// prepares them; with `last` (what preparing the previous version of the file kept), only the
/// entities the new version changed are prepared, the others' values kept. Also what the next
/// version needs.
pub(crate) fn prepare_loading(
    spawned: &Arc<SceneDoc>,
    placed: Option<&PlacedPaths>,
    source_map: &SourceMap,
    cx: &mut LoadContext<'_>,
    path: &str,
    last: Option<BuiltinsMemory>,
) -> (PreparedBuiltins, Vec<MaterialData>, BuiltinsMemory) {
    let doc = &**spawned;
    let mut noting = Noting {
        cx,
        loads: Vec::new(),
        seen: Default::default(),
        meshes: 0,
    };
    if let Some(last) = last.filter(|l| !l.sub_assets) {
        // Each entity's source: unchanged since the last version (the same shared entry, or
        // an equal one), or prepared now.
        let same_order = last.spawned.entities.len() == doc.entities.len();
        let mut fresh = SceneDoc::new(String::new());
        let mut sources = Vec::with_capacity(doc.entities.len());
        for (i, (key, node)) in doc.entities.iter().enumerate() {
            let was = match last.spawned.entities.get_index(i) {
                Some((k, n)) if same_order && k == key => Some((i, n)),
                _ => last
                    .spawned
                    .entities
                    .get_full(key)
                    .map(|(at, _, n)| (at, n)),
            };
            match was {
                Some((at, n)) if Arc::ptr_eq(n, node) || **n == **node => sources.push(Ok(at)),
                _ => {
                    sources.push(Err(fresh.entities.len()));
                    fresh.entities.insert(*key, node.clone());
                }
            }
        }
        let generates = fresh.entities.values().any(|n| {
            n.components
                .iter()
                .any(|c| matches!(c, ComponentData::Mesh3d(_)))
        });
        if !generates {
            for (asset, again) in &last.loads {
                again(noting.cx, asset.clone());
            }
            let (part, materials) = prepare_part(&fresh, placed, source_map, &mut noting, path);
            let mut loads = last.loads;
            for (asset, again) in noting.loads {
                if !loads.iter().any(|(p, _)| *p == asset) {
                    loads.push((asset, again));
                }
            }
            debug_assert!(materials.is_empty());
            let runs = crate::pipeline::rules::Run::runs(sources);
            let prepared = PreparedBuiltins(Windows::reuse(&last.prepared.0, part, &runs));
            let memory = BuiltinsMemory {
                spawned: spawned.clone(),
                prepared: prepared.clone(),
                materials: last.materials.clone(),
                loads,
                sub_assets: false,
            };
            return (prepared, last.materials, memory);
        }
    }
    let (part, materials) = prepare_part(doc, placed, source_map, &mut noting, path);
    let prepared = PreparedBuiltins(Windows::of([(part, doc.entities.len())]));
    let memory = BuiltinsMemory {
        spawned: spawned.clone(),
        prepared: prepared.clone(),
        materials: materials.clone(),
        loads: noting.loads,
        sub_assets: noting.meshes > 0 || !materials.is_empty(),
    };
    (prepared, materials, memory)
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
    let (part, materials) = prepare_part(doc, placed, source_map, sink, path);
    (
        PreparedBuiltins(Windows::of([(part, doc.entities.len())])),
        materials,
    )
}

/// [`prepare_all`] as one part.
fn prepare_part(
    doc: &SceneDoc,
    placed: Option<&PlacedPaths>,
    source_map: &SourceMap,
    sink: &mut impl Sink,
    path: &str,
) -> (BuiltinPart, Vec<MaterialData>) {
    let mut sub = SubAssets::default();
    let mut prepared = BuiltinPart::default();
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
