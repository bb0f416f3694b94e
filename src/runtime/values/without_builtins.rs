//! The built-ins' twin without the `builtins` feature: the same functions as
//! [`builtin`](super) has with it, doing nothing, so that no other part of the runtime needs a
//! `cfg`. Built-in components are validated as always, skipped at load with one warning, never
//! spawned, and kept as written when an instance is saved.

use bevy_app::App;
use bevy_asset::UntypedAssetId;
use bevy_ecs::component::ComponentId;
use bevy_ecs::entity::Entity;
use bevy_ecs::world::{EntityRef, EntityWorldMut, World};

use crate::format::{ComponentData, MaterialData, SceneDoc, SourceMap};
use crate::prefab::PlacedPaths;

/// A built-in made ready at load time: none without the feature.
#[derive(Debug, Clone)]
pub(crate) enum PreparedComponent {}

impl PreparedComponent {
    /// The file tag this component was prepared from.
    pub(crate) fn tag(&self) -> &'static str {
        match *self {}
    }
}

/// The built-ins of a scene: none.
#[derive(Debug, Clone, Default)]
pub(crate) struct PreparedBuiltins;

impl PreparedBuiltins {
    /// The built-in components of the entity at `index`: none.
    pub(crate) fn entity(&self, _index: usize) -> &[PreparedComponent] {
        &[]
    }
}

/// Where prepared components would get their assets: anything will do.
pub(crate) trait Sink {}
impl<T> Sink for T {}

/// Prepares nothing: the scene's built-ins are counted and skipped with one warning naming
/// `path`.
pub(crate) fn prepare_all(
    doc: &SceneDoc,
    _placed: Option<&PlacedPaths>,
    _source_map: &SourceMap,
    _sink: &mut impl Sink,
    path: &str,
) -> (PreparedBuiltins, Vec<MaterialData>) {
    let skipped = doc
        .entities
        .values()
        .flat_map(|node| &node.components)
        .filter(|c| !matches!(c, ComponentData::Custom(_)))
        .count();
    if skipped > 0 {
        tracing::warn!(
            "{path}: {skipped} built-in component(s) skipped: bevy_forge_scene was built without its `builtins` feature"
        );
    }
    (PreparedBuiltins, Vec::new())
}

/// What preparing kept for the next version of a file: nothing.
pub(crate) struct BuiltinsMemory;

/// [`prepare_all`] while a scene loads.
pub(crate) fn prepare_loading(
    spawned: &std::sync::Arc<SceneDoc>,
    placed: Option<&PlacedPaths>,
    source_map: &SourceMap,
    _cx: &mut bevy_asset::LoadContext<'_>,
    path: &str,
    _last: Option<BuiltinsMemory>,
) -> (PreparedBuiltins, Vec<MaterialData>, BuiltinsMemory) {
    let (prepared, materials) = prepare_all(spawned, placed, source_map, &mut (), path);
    (prepared, materials, BuiltinsMemory)
}

/// [`prepare_all`] for a scene edited in memory.
pub(crate) fn prepare_in_world(
    _world: &mut World,
    doc: &SceneDoc,
    placed: Option<&PlacedPaths>,
) -> (PreparedBuiltins, Vec<MaterialData>) {
    prepare_all(doc, placed, &SourceMap::default(), &mut (), "(in memory)")
}

/// Inserts a prepared built-in: there is none.
pub(crate) fn insert_prepared(
    _entity: &mut EntityWorldMut,
    component: &PreparedComponent,
    _scene: UntypedAssetId,
    _materials: &[MaterialData],
) {
    match *component {}
}

/// Removes the Bevy components of built-in `tag`: there are none.
pub(crate) fn remove(_entity: &mut EntityWorldMut, _tag: &str) {}

/// A built-in of a live entity as the file writes it: as the scene wrote it (`base`).
pub(crate) fn read_entity(
    _live: EntityRef,
    _tag: &str,
    base: Option<&ComponentData>,
) -> Option<ComponentData> {
    base.cloned()
}

/// No sub-asset types are needed.
pub(crate) fn init_sub_assets(_app: &mut App) {}

/// What a `ForgeSceneRoot` requires besides `Transform`: without built-ins no `Visibility`, only
/// the `GlobalTransform` that `Transform` requires already.
pub(crate) type RootRequires = bevy_transform::components::GlobalTransform;

/// Nothing spawned has `Visibility`.
pub(crate) fn visibility_id(_world: &mut World) -> Option<ComponentId> {
    None
}

/// Without built-ins there is no `Visibility` to link.
pub(crate) fn link_visibility(_world: &mut World, _entity: Entity) {}

/// Without built-ins there is no `Visibility` to link.
pub(crate) fn observe_parents(_app: &mut App) {}

/// What a hidden root had: nothing to keep.
pub(crate) struct Shown;

/// Nothing to hide.
pub(crate) fn hide(_entity: &mut EntityWorldMut) -> Shown {
    Shown
}

/// Nothing to show again.
pub(crate) fn show(_entity: &mut EntityWorldMut, _shown: Shown) {}

/// Without built-ins no camera is known: `None`.
#[cfg_attr(not(feature = "gltf"), allow(dead_code))]
pub(crate) fn camera_is_active(_entity: EntityRef) -> Option<bool> {
    None
}

/// Without built-ins no camera is known: nothing to switch.
#[cfg_attr(not(feature = "gltf"), allow(dead_code))]
pub(crate) fn set_camera_active(_entity: &mut EntityWorldMut, _active: bool) {}
