//! The loaded scene asset, [`ForgeScene`]: the document and everything spawning needs, prepared
//! once (built-in components, asset handles, materials, custom component values), so spawning
//! parses and evaluates nothing.

use std::sync::Arc;

use bevy_asset::Asset;
use bevy_ecs::world::World;
use bevy_reflect::TypePath;

use bevy_platform::collections::HashMap;

use crate::diff::SceneDiff;
use crate::format::{ComponentData, EcoString, MaterialData, ParsedScene, SceneDoc, SourceMap};
use crate::prefab::ExpandedScene;
use crate::runtime::values::custom::PreparedCustoms;
use crate::validate::{Diagnostic, Severity};

/// A loaded scene: the document, everything spawning needs already resolved (asset handles, Bevy
/// component values) so spawning parses nothing, and, when the loader settings ask for it, where
/// each part of the document was written.
///
/// Produced by [`ForgeSceneLoader`](super::ForgeSceneLoader) for files ending in `.forge.ron`. Primitive meshes are labeled
/// sub-assets `Mesh0`, `Mesh1`, ... (`garden.forge.ron#Mesh0`); identical primitives share one.
#[derive(Asset, TypePath, Debug)]
// Type path at the crate root (as re-exported), whatever module defines it: `.meta` files
// and reflected scenes name it.
#[type_path = "bevy_forge_scene"]
pub struct ForgeScene {
    pub(crate) doc: Arc<SceneDoc>,
    /// The scene with its prefab instances expanded, when it places any: what spawns, what hot
    /// reload diffs, and what `prepared` and `custom` are in the order of.
    pub(crate) expanded: Option<Arc<ExpandedScene>>,
    /// The prefabs the scene places, kept to expand the document again after an edit in memory
    /// ([`edited`](Self::edited)).
    pub(crate) prefabs: Prefabs,
    /// Kept when the loader settings ask for it ([`ForgeSceneLoaderSettings::keep_source_map`](super::ForgeSceneLoaderSettings::keep_source_map)).
    pub(crate) source_map: Option<SourceMap>,
    /// One entry per entity, in the order of the [`spawn_doc`](Self::spawn_doc).
    #[cfg_attr(not(feature = "builtins"), allow(dead_code))]
    pub(crate) prepared: PreparedBuiltins,
    /// The custom components of every entity, built at load time.
    pub(crate) custom: PreparedCustoms,
    /// Distinct materials of the scene; `mesh3d` components refer to them by index.
    #[cfg_attr(not(feature = "builtins"), allow(dead_code))]
    pub(crate) materials: Vec<MaterialData>,
    /// The text hash of each entity entry, in `doc.entities` order, when `doc` is exactly what
    /// was read (`None` for a scene [`edited`](Self::edited) in memory). Hot reload skips
    /// entities whose entry text did not change.
    pub(crate) text_hashes: Option<Arc<[u64]>>,
}

/// The prefabs a scene places, as its loader found them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prefabs {
    /// Each prefab the scene places directly, expanded, by asset path.
    pub(crate) scenes: HashMap<EcoString, Arc<ExpandedScene>>,
    /// Every prefab file the scene depends on, nested ones included, each once.
    pub(crate) files: Vec<EcoString>,
    /// The document of each of those files, as written, by asset path: what a cooked twin
    /// bundles ([`ForgeScene::to_cooked`]).
    pub(crate) docs: Vec<(EcoString, Arc<SceneDoc>)>,
    /// A handle to each of those files as a scene of its own (text scenes only): a reload of
    /// the prefab's path (`AssetServer::reload`) then finds an asset to reload, and hot reload
    /// brings it to every scene that places it.
    pub(crate) handles: Vec<bevy_asset::Handle<ForgeScene>>,
}

impl Prefabs {
    /// The prefabs `doc` places, as `files` checked them.
    pub(crate) fn of<R>(doc: &SceneDoc, files: &crate::pipeline::PrefabFiles<R>) -> Self
    where
        R: FnMut(&str) -> Result<Vec<u8>, String>,
    {
        let mut prefabs = Prefabs::default();
        for (path, file) in files.placed_files(doc) {
            prefabs.files.push(path.into());
            if let Some(parsed) = &file.parsed {
                prefabs
                    .docs
                    .push((path.into(), Arc::new(parsed.doc.clone())));
            }
        }
        for scene in crate::prefab::instance_scenes(doc) {
            if let Some(expanded) = files.file(scene).and_then(|f| f.expanded.clone()) {
                prefabs.scenes.insert(scene.into(), expanded);
            }
        }
        prefabs
    }
}

impl ForgeScene {
    /// The cooked form of this scene ([`crate::cook`]): its document as read (with the edits
    /// of [`edited`](Self::edited)) and every prefab it places, `source` naming
    /// the text it comes from. The asset processor's [`ForgeSceneSaver`] writes this.
    ///
    /// [`ForgeSceneSaver`]: super::processor::ForgeSceneSaver
    pub fn to_cooked(&self, source: impl Into<String>) -> crate::cook::CookedScene {
        let mut prefabs: Vec<(String, SceneDoc)> = self
            .prefabs
            .docs
            .iter()
            .map(|(path, doc)| (path.to_string(), SceneDoc::clone(doc)))
            .collect();
        prefabs.sort_by(|a, b| a.0.cmp(&b.0));
        crate::cook::CookedScene {
            source: source.into(),
            doc: SceneDoc::clone(&self.doc),
            prefabs,
        }
    }

    /// The scene document as read from the file (after `format_version` normalization): instance
    /// entities with their overrides, not what they place (see [`expanded`](Self::expanded)).
    pub fn doc(&self) -> &SceneDoc {
        &self.doc
    }

    /// The scene with its prefab instances expanded into one forest, keyed by id paths (see
    /// [`crate::prefab`]); `None` when the scene places no prefab.
    pub fn expanded(&self) -> Option<&ExpandedScene> {
        self.expanded.as_deref()
    }

    /// What spawns: the expanded document, or the document itself without instances.
    pub(crate) fn spawn_doc(&self) -> &Arc<SceneDoc> {
        match &self.expanded {
            Some(expanded) => &expanded.doc,
            None => &self.doc,
        }
    }

    /// The id paths of the entities instances placed, by key (empty without instances).
    pub(crate) fn placed_paths(&self) -> Arc<crate::prefab::PlacedPaths> {
        static NONE: std::sync::LazyLock<Arc<crate::prefab::PlacedPaths>> =
            std::sync::LazyLock::new(Default::default);
        match &self.expanded {
            Some(expanded) => expanded.placed_paths().clone(),
            None => NONE.clone(),
        }
    }

    /// The id path of the spawned entity with key `key`, when an instance placed it.
    pub(crate) fn placed_path(&self, key: u64) -> Option<&[u64]> {
        self.expanded.as_deref()?.placed_path(key)
    }

    /// This scene with its document changed by `edit`, prepared as a load prepares a file
    /// (every rule, the prefabs it placed when it loaded, custom components built with `world`'s
    /// types, built-ins with its asset server): what an editor does in memory. Replace the asset
    /// with it (`Assets::insert(id, scene)`) and hot reload patches every live instance with the
    /// changes, as for a saved file. This scene is not changed: an asset is always whole.
    ///
    /// ```
    /// # use bevy_ecs::prelude::*;
    /// # use bevy_asset::{AssetId, Assets};
    /// # use bevy_forge_scene::ForgeScene;
    /// /// Renames entity 4 of the scene `id`, or says why not.
    /// fn rename(world: &mut World, id: AssetId<ForgeScene>) {
    ///     world.resource_scope(|world, mut scenes: Mut<Assets<ForgeScene>>| {
    ///         let Some(scene) = scenes.get(id) else { return };
    ///         match scene.edited(world, |doc| {
    ///             let _ = doc.rename(4, "Dee");
    ///         }) {
    ///             Ok(edited) => {
    ///                 let _ = scenes.insert(id, edited);
    ///             }
    ///             Err(diagnostics) => eprintln!("{} problems", diagnostics.len()),
    ///         }
    ///     });
    /// }
    /// ```
    ///
    /// # Errors
    /// Every error diagnostic of the edited document (validation, custom components, entity
    /// references, `forge::prefab::not_loaded` for a prefab the scene was not loaded with), as
    /// a load reports them but without positions (they would describe the file, not the edit).
    pub fn edited(
        &self,
        world: &mut World,
        edit: impl FnOnce(&mut SceneDoc),
    ) -> Result<ForgeScene, Vec<Diagnostic>> {
        let mut doc = SceneDoc::clone(&self.doc);
        edit(&mut doc);
        let mut errors = Vec::new();
        for scene_path in crate::prefab::instance_scenes(&doc) {
            if !self.prefabs.docs.iter().any(|(p, _)| p == scene_path) {
                errors.push(Diagnostic::new(
                    Severity::Error,
                    "forge::prefab::not_loaded",
                    format!(
                        "prefab `{scene_path}` was not loaded with the scene: an edit in memory can place only the prefabs the file placed; save the file to load it"
                    ),
                ));
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let parsed = ParsedScene {
            doc,
            source_map: SourceMap::default(),
            warnings: Vec::new(),
        };
        let source = crate::pipeline::Source::from_parsed("(in memory)", parsed);
        let mut files = crate::pipeline::PrefabFiles::new(|p: &str| {
            Err(format!("`{p}` was not loaded with the scene"))
        })
        .with_documents(
            self.prefabs
                .docs
                .iter()
                .map(|(p, d)| (p.to_string(), SceneDoc::clone(d))),
        );
        let rules = crate::runtime::values::custom::CustomContext::of(world);
        let pool = bevy_tasks::AsyncComputeTaskPool::try_get().map(|p| &**p);
        let checked = crate::pipeline::check_with(source, &mut files, &rules, pool);
        let errors: Vec<Diagnostic> = checked
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect();
        if !errors.is_empty() {
            return Err(errors);
        }
        let crate::pipeline::Checked {
            source,
            expanded,
            built,
            ..
        } = checked;
        let spawned = expanded.as_ref().map_or(&source.parsed.doc, |e| &e.doc);
        let placed = expanded.as_ref().map(|e| &**e.placed_paths());
        let (prepared, materials) = prepare_in_world(world, spawned, placed);
        Ok(ForgeScene {
            doc: Arc::new(source.parsed.doc),
            expanded: expanded.map(Arc::new),
            prefabs: self.prefabs.clone(),
            source_map: None,
            prepared,
            custom: built,
            materials,
            text_hashes: None,
        })
    }

    /// The changes from `old` to this scene, as hot reload computes them: [`diff`] of the two
    /// documents, except that an entity whose entry is written byte for byte the same in both
    /// files is known unchanged without comparing it (when neither document was edited in
    /// memory since it was read). Apply them with
    /// [`apply_diff`](crate::runtime::apply_diff).
    ///
    /// [`diff`]: crate::diff::diff
    ///
    /// When the two versions differ only in the cells of their tile layers (a paint), only
    /// the painted cells' entities and their layer entities are compared: the same diff, in
    /// time proportional to the paint rather than to the layer.
    pub fn changes_since(&self, old: &ForgeScene) -> SceneDiff {
        if let Some(old) = old.version()
            && let Some(changes) = self.painted_since(&old)
        {
            return changes;
        }
        crate::diff::diff_with_hashes(
            old.spawn_doc(),
            old.text_hashes.as_deref(),
            self.spawn_doc(),
            self.text_hashes.as_deref(),
        )
    }

    /// This scene as a version for a paint diff, when it places prefabs.
    pub(crate) fn version(&self) -> Option<crate::runtime::live::painted::Version<'_>> {
        Some(crate::runtime::live::painted::Version {
            file: &self.doc,
            expanded: self.expanded.as_deref()?,
            prefab_docs: &self.prefabs.docs,
        })
    }

    /// The changes from `old` when only cells of tile layers were painted
    /// (`runtime/painted`).
    pub(crate) fn painted_since(
        &self,
        old: &crate::runtime::live::painted::Version<'_>,
    ) -> Option<SceneDiff> {
        let new = self.version()?;
        crate::runtime::live::painted::cell_diff(old, &new, &|path: &str| {
            self.prefabs.scenes.get(path).map(|s| &**s)
        })
    }

    /// Where each entity, field and component was written in the file, when the scene was
    /// loaded with [`keep_source_map`](super::ForgeSceneLoaderSettings::keep_source_map) (tools:
    /// editors, inspectors); `None` otherwise.
    ///
    /// Load errors always carry their positions, whatever the setting: the loader reads them
    /// while the map exists. Only the loaded asset goes without it.
    pub fn source_map(&self) -> Option<&SourceMap> {
        self.source_map.as_ref()
    }
}

/// The built-in components of every entity, ready to insert: one list for the whole scene, in
/// `doc.entities` order, and where each entity's run starts (no list per entity). `Name` and
/// `Transform` are made from the document entry when an entity spawns (keeping them here too
/// would double their memory), and custom components are in [`ForgeScene::custom`].
#[derive(Debug, Clone, Default)]
pub(crate) struct PreparedBuiltins {
    #[cfg(feature = "builtins")]
    components: Vec<crate::runtime::values::builtin::PreparedComponent>,
    /// Entity `i`'s components are `components[starts[i]..starts[i + 1]]`.
    #[cfg(feature = "builtins")]
    starts: Vec<u32>,
}

#[cfg(feature = "builtins")]
impl PreparedBuiltins {
    /// The built-in components of the entity at `index` of `doc.entities` (none when out of
    /// range).
    pub(crate) fn entity(
        &self,
        index: usize,
    ) -> &[crate::runtime::values::builtin::PreparedComponent] {
        let run = crate::runtime::values::custom::entity_run(&self.starts, index);
        self.components.get(run).unwrap_or(&[])
    }
}

/// The scene of a validated document whose custom components are built: prepares the built-in
/// components through `sink` (the loader's `LoadContext`), and keeps the source map when asked.
pub(crate) fn build(
    parsed: ParsedScene,
    expanded: Option<ExpandedScene>,
    prefabs: Prefabs,
    custom: PreparedCustoms,
    sink: &mut impl PrepareSink,
    path: &str,
    keep_source_map: bool,
) -> ForgeScene {
    let spawned = expanded.as_ref().map_or(&parsed.doc, |e| &e.doc);
    let placed = expanded.as_ref().map(|e| &**e.placed_paths());
    let (prepared, materials) = prepare_entities(spawned, placed, &parsed.source_map, sink, path);
    // Entry hashes describe the file's entities, which are what spawns only without instances.
    let text_hashes = expanded
        .is_none()
        .then(|| Arc::from(parsed.source_map.entity_text_hashes()));
    ForgeScene {
        text_hashes,
        doc: Arc::new(parsed.doc),
        expanded: expanded.map(Arc::new),
        prefabs,
        source_map: keep_source_map.then_some(parsed.source_map),
        prepared,
        custom,
        materials,
    }
}

#[cfg(feature = "builtins")]
pub(crate) use crate::runtime::values::builtin::Sink as PrepareSink;

/// Without built-ins nothing needs assets.
#[cfg(not(feature = "builtins"))]
pub(crate) trait PrepareSink {}
#[cfg(not(feature = "builtins"))]
impl<T> PrepareSink for T {}

/// Prepares the built-in components of every entity of `doc` (in `doc.entities` order), and
/// collects the scene's materials. Custom components are built by `crate::runtime::values::custom::prepare`.
///
/// The entities a prefab placed (`placed`: their id paths by key) share their prepared values:
/// the components of one prefab entity, placed in every cell of a tile layer or by every
/// instance, are prepared once (asset handles loaded once) and cloned for the others, unless
/// an override changed them.
#[cfg_attr(not(feature = "builtins"), allow(unused_variables))]
pub(crate) fn prepare_entities(
    doc: &SceneDoc,
    placed: Option<&crate::prefab::PlacedPaths>,
    source_map: &SourceMap,
    sink: &mut impl PrepareSink,
    path: &str,
) -> (PreparedBuiltins, Vec<MaterialData>) {
    #[cfg(feature = "builtins")]
    let mut sub = crate::runtime::values::builtin::SubAssets::default();
    #[cfg_attr(feature = "builtins", allow(unused_mut))]
    let mut skipped_builtins = 0usize;
    #[cfg_attr(not(feature = "builtins"), allow(unused_mut))]
    let mut prepared = PreparedBuiltins::default();
    #[cfg(feature = "builtins")]
    prepared.starts.reserve_exact(doc.entities.len() + 1);
    #[cfg(feature = "builtins")]
    let mut shared = Shared::default();
    for (id, node) in &doc.entities {
        #[cfg(feature = "builtins")]
        prepared
            .starts
            .push(u32::try_from(prepared.components.len()).unwrap_or(u32::MAX));
        // The entity's id in the prefab that placed it, when one did.
        #[cfg(feature = "builtins")]
        let own = placed.and_then(|p| p.get(id)).and_then(|path| path.last());
        for (index, component) in node.components.iter().enumerate() {
            if let ComponentData::Custom(_) = component {
                continue; // built by `crate::runtime::values::custom::prepare`
            }
            #[cfg(feature = "builtins")]
            let slot = own.map(|own| (*own, index));
            #[cfg(feature = "builtins")]
            if let Some(p) = slot.and_then(|slot| shared.get(slot, component)) {
                prepared.components.push(p.clone());
                continue;
            }
            #[cfg(feature = "builtins")]
            match crate::runtime::values::builtin::prepare(component, sink, &mut sub) {
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
            #[cfg(not(feature = "builtins"))]
            {
                skipped_builtins += 1;
            }
        }
    }
    #[cfg(feature = "builtins")]
    if prepared.components.is_empty() {
        // No entity has one: every lookup answers none without the starts.
        prepared.starts = Vec::new();
    } else {
        prepared
            .starts
            .push(u32::try_from(prepared.components.len()).unwrap_or(u32::MAX));
        prepared.components.shrink_to_fit();
    }
    if skipped_builtins > 0 {
        tracing::warn!(
            "{path}: {skipped_builtins} built-in component(s) skipped: bevy_forge_scene was built without its `builtins` feature"
        );
    }
    #[cfg(feature = "builtins")]
    let materials = sub.materials;
    #[cfg(not(feature = "builtins"))]
    let materials = Vec::new();
    (prepared, materials)
}

/// Built-in components already prepared for entities prefabs placed, by the entity's id in
/// its prefab and the component's index: a few values each (palette prefabs of one layer
/// share ids; overrides change values), compared before one is reused.
#[cfg(feature = "builtins")]
#[derive(Default)]
struct Shared<'d> {
    by_slot: HashMap<
        (u64, usize),
        Vec<(
            &'d ComponentData,
            crate::runtime::values::builtin::PreparedComponent,
        )>,
    >,
}

#[cfg(feature = "builtins")]
impl<'d> Shared<'d> {
    /// Values kept per slot.
    const VARIANTS: usize = 8;

    fn get(
        &self,
        slot: (u64, usize),
        component: &ComponentData,
    ) -> Option<&crate::runtime::values::builtin::PreparedComponent> {
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
        prepared: &crate::runtime::values::builtin::PreparedComponent,
    ) {
        let kept = self.by_slot.entry(slot).or_default();
        if kept.len() < Self::VARIANTS {
            kept.push((component, prepared.clone()));
        }
    }
}

/// The built-ins of `doc` prepared with `world`'s asset server (meshes added to its
/// `Assets<Mesh>`): a scene edited in memory.
fn prepare_in_world(
    world: &mut World,
    doc: &SceneDoc,
    placed: Option<&crate::prefab::PlacedPaths>,
) -> (PreparedBuiltins, Vec<MaterialData>) {
    #[cfg(feature = "builtins")]
    {
        let server = world.get_resource::<bevy_asset::AssetServer>().cloned();
        let meshes = world.contains_resource::<bevy_asset::Assets<bevy_mesh::Mesh>>();
        let (Some(server), true) = (server, meshes) else {
            return prepare_entities(
                doc,
                placed,
                &SourceMap::default(),
                &mut crate::runtime::values::builtin::NoAssets,
                "(in memory)",
            );
        };
        world.resource_scope(
            |_, mut meshes: bevy_ecs::world::Mut<bevy_asset::Assets<bevy_mesh::Mesh>>| {
                let mut sink = crate::runtime::values::builtin::RuntimeSink {
                    server,
                    meshes: &mut meshes,
                };
                prepare_entities(doc, placed, &SourceMap::default(), &mut sink, "(in memory)")
            },
        )
    }
    #[cfg(not(feature = "builtins"))]
    {
        let _ = world;
        prepare_entities(doc, placed, &SourceMap::default(), &mut (), "(in memory)")
    }
}
