//! The loaded scene asset, [`ForgeScene`]: the document and everything spawning needs, prepared
//! once (built-in components, asset handles, materials, custom component values), so spawning
//! parses and evaluates nothing.

use std::sync::{Arc, OnceLock};

use bevy_asset::Asset;
use bevy_ecs::world::World;
use bevy_reflect::TypePath;

use bevy_platform::collections::HashMap;

use super::cell_plan::CellPlan;
use crate::codes;
use crate::format::{EcoString, MaterialData, ParsedScene, SceneDoc, SourceMap};
use crate::prefab::ExpandedScene;
use crate::runtime::values::builtin::{self, PreparedBuiltins};
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
    pub(crate) prepared: PreparedBuiltins,
    /// The custom components of every entity, built at load time.
    pub(crate) custom: PreparedCustoms,
    /// Distinct materials of the scene; `mesh3d` components refer to them by index.
    pub(crate) materials: Vec<MaterialData>,
    /// The text hash of each entity entry, in `doc.entities` order, when `doc` is exactly what
    /// was read (`None` for a scene [`edited`](Self::edited) in memory). Hot reload skips
    /// entities whose entry text did not change.
    pub(crate) text_hashes: Option<Arc<[u64]>>,
    /// Its streamed cells, planned the first time a spawn asks ([`cell_plan`](Self::cell_plan)).
    pub(crate) cell_plan: OnceLock<Arc<CellPlan>>,
    /// Where each override of the scene's own model instances was written (entity id, index
    /// of the override, its opening `(`), sorted: what a warning about an override that
    /// applies to a model's nodes at run time points at. Empty for a cooked scene or one made
    /// in memory. Read by the model writer (feature `gltf`).
    #[cfg_attr(not(feature = "gltf"), allow(dead_code))]
    pub(crate) model_overrides: Arc<[(u64, usize, crate::format::Position)]>,
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
        R: crate::pipeline::PrefabSource,
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

    /// Where override `index` of the model instance of the scene's own entity `id` was written
    /// (its opening `(`), when the scene was read from text.
    #[cfg_attr(not(feature = "gltf"), allow(dead_code))]
    pub(crate) fn model_override_at(
        &self,
        id: u64,
        index: usize,
    ) -> Option<crate::format::Position> {
        let at = self
            .model_overrides
            .binary_search_by_key(&(id, index), |(i, o, _)| (*i, *o))
            .ok()?;
        Some(self.model_overrides[at].2)
    }

    /// The streamed cells of what spawns: which entities are anchors, and what is below each
    /// (planned once per scene, the first time it is asked).
    pub(crate) fn cell_plan(&self) -> &Arc<CellPlan> {
        self.cell_plan
            .get_or_init(|| Arc::new(CellPlan::of(&self.doc, self.spawn_doc(), &self.custom)))
    }

    /// This scene as a version to compare a later one with (shared, not copied).
    pub(crate) fn version(&self) -> SceneVersion {
        SceneVersion {
            doc: self.spawn_doc().clone(),
            text_hashes: self.text_hashes.clone(),
            placed: self.expanded.as_ref().map(|expanded| Placed {
                file: self.doc.clone(),
                expanded: expanded.clone(),
                prefab_docs: self.prefabs.docs.clone(),
            }),
        }
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
        self.checked_in_memory(world, doc)
    }

    /// The scene of `doc`, a document made in memory that may place only the prefabs this
    /// scene placed: checked and prepared as [`edited`](Self::edited) does.
    pub(crate) fn checked_in_memory(
        &self,
        world: &mut World,
        doc: SceneDoc,
    ) -> Result<ForgeScene, Vec<Diagnostic>> {
        let mut errors = Vec::new();
        for scene_path in crate::prefab::instance_scenes(&doc) {
            if !self.prefabs.docs.iter().any(|(p, _)| p == scene_path) {
                errors.push(Diagnostic::new(
                    Severity::Error,
                    codes::prefab::NOT_LOADED,
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
        let (prepared, materials) = builtin::prepare_in_world(world, spawned, placed);
        Ok(ForgeScene {
            doc: Arc::new(source.parsed.doc),
            expanded: expanded.map(Arc::new),
            prefabs: self.prefabs.clone(),
            source_map: None,
            prepared,
            custom: built,
            materials,
            text_hashes: None,
            cell_plan: OnceLock::new(),
            model_overrides: Arc::new([]),
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

/// The scene of a checked document whose custom components are built: prepares the built-in
/// components through the loader's `cx` (with `last`, what preparing the previous version of
/// the file kept, only those of entities that changed), and keeps the source map when asked.
/// With `last` given (the path is remembered) the read document comes back too, its entities
/// shared with the scene's, to read the next version from; and what preparing kept.
pub(crate) fn build(
    checked: crate::pipeline::Checked<PreparedCustoms>,
    prefabs: Prefabs,
    cx: &mut bevy_asset::LoadContext<'_>,
    path: &str,
    keep_source_map: bool,
    last: Option<Option<builtin::BuiltinsMemory>>,
) -> (ForgeScene, builtin::BuiltinsMemory, Option<ParsedScene>) {
    let crate::pipeline::Checked {
        source,
        expanded,
        built: custom,
        ..
    } = checked;
    let parsed = source.parsed;
    let expanded = expanded.map(Arc::new);
    let remember = last.is_some();
    let (doc, owned_map, kept) = match remember {
        true => (Arc::new(parsed.doc.clone()), None, Some(parsed)),
        false => (Arc::new(parsed.doc), Some(parsed.source_map), None),
    };
    let empty = SourceMap::default();
    let map = match (&kept, &owned_map) {
        (Some(p), _) => &p.source_map,
        (None, Some(m)) => m,
        (None, None) => &empty,
    };
    let spawned = expanded.as_ref().map_or(&doc, |e| &e.doc);
    let placed = expanded.as_ref().map(|e| &**e.placed_paths());
    let (prepared, materials, memory) =
        builtin::prepare_loading(spawned, placed, map, cx, path, last.flatten());
    // Entry hashes describe the file's entities, which are what spawns only without instances.
    let text_hashes = expanded
        .is_none()
        .then(|| Arc::from(map.entity_text_hashes()));
    let model_overrides = model_overrides(&doc, map);
    let source_map = match (keep_source_map, owned_map) {
        (false, _) => None,
        (true, Some(map)) => Some(map),
        (true, None) => kept.as_ref().map(|p| p.source_map.clone()),
    };
    let scene = ForgeScene {
        text_hashes,
        doc,
        expanded,
        prefabs,
        source_map,
        prepared,
        custom,
        materials,
        cell_plan: OnceLock::new(),
        model_overrides,
    };
    (scene, memory, kept)
}

/// Where each override of `doc`'s own model instances was written, by `map` (none when the map
/// is empty: a cooked scene).
fn model_overrides(
    doc: &SceneDoc,
    map: &SourceMap,
) -> Arc<[(u64, usize, crate::format::Position)]> {
    let mut out = Vec::new();
    for (id, node) in &doc.entities {
        let Some(instance) = node.instance.as_deref().filter(|i| i.is_model()) else {
            continue;
        };
        for i in 0..instance.overrides.len() {
            if let Some(at) = map.override_part(*id, i, crate::format::OverridePart::Entry) {
                out.push((*id, i, at));
            }
        }
    }
    out.sort_unstable_by_key(|(id, i, _)| (*id, *i));
    out.into()
}

/// A version of a scene, kept to compare a later one with: what live instances were last
/// brought to ([`ForgeScene::version`]).
#[derive(Clone)]
pub(crate) struct SceneVersion {
    /// What spawned.
    pub(crate) doc: Arc<SceneDoc>,
    /// Its entities' text hashes (see [`ForgeScene::text_hashes`]).
    pub(crate) text_hashes: Option<Arc<[u64]>>,
    /// The document as read, its expansion and its prefabs' documents, when it places prefabs:
    /// a paint of tile layer cells is diffed over the painted cells alone.
    pub(crate) placed: Option<Placed>,
}

/// What [`SceneVersion`] keeps of a scene that places prefabs (shared, not copied).
#[derive(Clone)]
pub(crate) struct Placed {
    /// The document as read.
    pub(crate) file: Arc<SceneDoc>,
    /// Its expansion.
    pub(crate) expanded: Arc<ExpandedScene>,
    /// The document of each prefab file it places, by asset path.
    pub(crate) prefab_docs: Vec<(EcoString, Arc<SceneDoc>)>,
}
