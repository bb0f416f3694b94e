//! Prefab files, each read, checked and expanded once however many instances place it, and the
//! check of one file: its rules, the prefabs its instances place (chains checked for cycles and
//! depth), its expansion and its custom components. The scene itself is checked as a file too.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::rules::{CustomRules, Offline, check_all};
use crate::codes;
use crate::cook::CookedScene;
use crate::format::MAX_PREFAB_DEPTH;
use crate::format::{ParsedScene, ReadError, SceneDoc};
use crate::prefab::{ExpandedScene, expand};
use crate::project::AssetIndex;
use crate::schema::SchemaFile;
use crate::schema::renames::Renames;
use crate::validate::{Diagnostic, Related, Severity, validate_parsed};

/// Why `next`, placed by the last file of `chain` (the files from the scene down, asset paths),
/// cannot be loaded: `forge::prefab::cycle` when it is already in the chain,
/// `forge::prefab::too_deep` when it would be more than [`MAX_PREFAB_DEPTH`] files below the
/// scene. The message lists the chain.
pub(crate) fn chain_problem(chain: &[String], next: &str) -> Option<Diagnostic> {
    let listed = || {
        chain
            .iter()
            .map(String::as_str)
            .chain([next])
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(" -> ")
    };
    if let Some(first) = chain.iter().position(|f| f == next) {
        let cycle: Vec<String> = chain[first..]
            .iter()
            .map(String::as_str)
            .chain([next])
            .map(|f| format!("`{f}`"))
            .collect();
        return Some(
            Diagnostic::new(
                Severity::Error,
                codes::prefab::CYCLE,
                format!("prefab cycle: {}", cycle.join(" -> ")),
            )
            .with_help(format!(
                "a prefab may not place itself, directly or through others; the chain is {}",
                listed()
            )),
        );
    }
    if chain.len() > MAX_PREFAB_DEPTH {
        return Some(
            Diagnostic::new(
                Severity::Error,
                codes::prefab::TOO_DEEP,
                format!(
                    "prefabs nest deeper than {MAX_PREFAB_DEPTH} files: {}",
                    listed()
                ),
            )
            .with_help("flatten the chain: place the inner prefabs from a file higher up"),
        );
    }
    None
}

/// One prefab file as [`PrefabFiles`] found it.
#[derive(Debug)]
pub struct PrefabFile {
    /// What was read, when the file read.
    pub parsed: Option<ParsedScene>,
    /// Its text (without a byte-order mark), for showing diagnostics.
    pub text: String,
    /// Its own problems: reading, validation, its instances and their overrides.
    pub diagnostics: Vec<Diagnostic>,
    /// Its expansion, when it read.
    pub expanded: Option<Arc<ExpandedScene>>,
    /// Why it could not be read at all (then it has no text), when it could not.
    pub unreadable: Option<String>,
}

/// Where the prefab files a scene places are read from: an asset path (`prefabs/lamp.forge.ron`,
/// relative to the assets directory) to the file's bytes, text or cooked.
///
/// Any `FnMut(&str) -> Result<Vec<u8>, String>` is one, so a closure will do:
/// `PrefabFiles::new(|path: &str| std::fs::read(root.join(path)).map_err(|e| e.to_string()))`.
pub trait PrefabSource {
    /// The bytes of the prefab file at asset path `path`.
    ///
    /// # Errors
    /// Why the file cannot be read, as a phrase that completes "prefab `path` cannot be read:"
    /// (`` `assets/prefabs/lamp.forge.ron`: No such file or directory ``).
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String>;
}

impl<F: FnMut(&str) -> Result<Vec<u8>, String>> PrefabSource for F {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
        self(path)
    }
}

/// The prefab files a scene places, read through `read` (a [`PrefabSource`]), each read,
/// parsed and checked once however many instances place it.
///
/// ```
/// use std::collections::HashMap;
/// use bevy_forge_scene::format::SceneDoc;
/// use bevy_forge_scene::pipeline::PrefabFiles;
///
/// let files: HashMap<&str, &str> = HashMap::from([(
///     "prefabs/lamp.forge.ron",
///     r#"(format_version: 1, name: "Lamp", entities: {
///         1: (id: 1, name: "Lamp", parent: None, children: [],
///             transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
///             components: [(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 800.0, range: 20.0, shadows: false))]),
///     }, roots: [1], next_id: 2)"#,
/// )]);
/// let level = SceneDoc::from_str(r#"(format_version: 1, name: "Level", entities: {
///     5: (id: 5, name: "Lamp 1", parent: None, children: [],
///         transform: (translation: (x: 4, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),
///         components: [],
///         instance: Some((scene: "prefabs/lamp.forge.ron", overrides: [
///             (target: [1], set: [(type: point_light, data: (intensity: 1200.0))]),
///         ]))),
/// }, roots: [5], next_id: 6)"#)?;
/// let mut prefabs = PrefabFiles::new(|path: &str| {
///     files.get(path).map(|t| t.as_bytes().to_vec()).ok_or_else(|| "no such file".to_owned())
/// });
/// let (expanded, problems) = prefabs.expand_scene("levels/one.forge.ron", &level);
/// assert!(problems.is_empty());
/// let expanded = expanded.unwrap();
/// let lamp = expanded.key(&[5, 1]).unwrap();
/// assert_eq!(expanded.doc.entity(lamp).unwrap().name, "Lamp");
/// # Ok::<(), bevy_forge_scene::format::ReadError>(())
/// ```
pub struct PrefabFiles<R> {
    read: R,
    /// Files given already read or fetched, by asset path: used before `read`.
    given: BTreeMap<String, Given>,
    files: BTreeMap<String, PrefabFile>,
    /// Custom components are checked against these schemas, when given.
    schemas: Option<SchemaFile>,
    /// Asset references are checked against this index, when given.
    assets: Option<AssetIndex>,
    /// The old names of custom types and fields, written as the current ones in every file
    /// before it is checked (set by the check that reads the files).
    pub(crate) renames: Renames,
    /// The files were validated when they were cooked, under this build and the game's schemas
    /// (a matching [`CookStamp`](crate::cook::CookStamp)): the rules of each file
    /// (`validate_parsed`, overrides) are not run again; custom components are still built and
    /// prefabs expanded.
    pub(crate) trusted: bool,
}

/// A file given to [`PrefabFiles`] instead of read through it.
enum Given {
    /// A document without text (a cooked scene's bundled prefab).
    Document(SceneDoc),
    /// A text file, parsed once: its text (for showing diagnostics) and what reading it gave.
    Text(String, Box<Result<ParsedScene, ReadError>>),
    /// Why the file cannot be read.
    Unreadable(String),
}

impl Given {
    /// The file whose bytes are `bytes` (text; a cooked file is given as its documents).
    fn text(bytes: &[u8]) -> Given {
        let text = String::from_utf8_lossy(bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned();
        Given::Text(text, Box::new(SceneDoc::from_slice(bytes)))
    }

    /// The document of the file, when it has one.
    fn doc(&self) -> Option<&SceneDoc> {
        match self {
            Given::Document(doc) => Some(doc),
            Given::Text(_, read) => read.as_ref().as_ref().ok().map(|p| &p.doc),
            Given::Unreadable(_) => None,
        }
    }
}

impl<R: PrefabSource> PrefabFiles<R> {
    /// Prefab files read through `read`.
    pub fn new(read: R) -> Self {
        Self {
            read,
            given: BTreeMap::new(),
            files: BTreeMap::new(),
            schemas: None,
            assets: None,
            renames: Renames::default(),
            trusted: false,
        }
    }

    /// Uses `documents` (asset path and document, as a cooked scene bundles them) for those
    /// paths instead of reading them: they are checked and expanded as read files are, without
    /// positions.
    pub fn with_documents(
        mut self,
        documents: impl IntoIterator<Item = (String, SceneDoc)>,
    ) -> Self {
        self.given.extend(
            documents
                .into_iter()
                .map(|(path, doc)| (path, Given::Document(doc))),
        );
        self
    }

    /// Checks custom components (the prefabs' own, and the scenes' overrides of them) against
    /// `schemas` too, as `forge validate --schema` does.
    pub fn with_schemas(mut self, schemas: SchemaFile) -> Self {
        self.schemas = Some(schemas);
        self
    }

    /// Checks the asset paths of the prefabs' built-ins against `assets` too (existence and
    /// kind), as [`validate_parsed`] does with an index.
    pub fn with_assets(mut self, assets: AssetIndex) -> Self {
        self.assets = Some(assets);
        self
    }

    /// Gives the bytes of the file at `path` (or why it cannot be read) instead of reading it
    /// through `read`: what an asynchronous caller fetched itself (see
    /// [`missing`](Self::missing)).
    pub fn provide(&mut self, path: impl Into<String>, read: Result<Vec<u8>, String>) {
        let path = path.into();
        match read {
            // A prefab shipped as its cooked twin: its document, and the prefabs it was cooked
            // with for those no other file gives.
            Ok(bytes) if crate::cook::is_cooked(&bytes) => match CookedScene::decode(&bytes) {
                Ok(cooked) => {
                    self.given.insert(path, Given::Document(cooked.doc));
                    for (nested, doc) in cooked.prefabs {
                        if !self.files.contains_key(&nested) {
                            self.given.entry(nested).or_insert(Given::Document(doc));
                        }
                    }
                }
                Err(e) => {
                    let why = format!("its cooked bytes are not a usable cooked scene: {e}");
                    self.given.insert(path, Given::Unreadable(why));
                }
            },
            Ok(bytes) => {
                self.given.insert(path, Given::text(&bytes));
            }
            Err(why) => {
                self.given.insert(path, Given::Unreadable(why));
            }
        }
    }

    /// The prefab files `doc` places, directly or through the prefabs given so far
    /// ([`provide`](Self::provide)), that are neither given nor checked yet: what a caller that
    /// reads files asynchronously fetches before it checks (again until none is missing).
    pub fn missing(&self, doc: &SceneDoc) -> Vec<String> {
        let mut missing = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        let mut pending: Vec<String> = crate::prefab::instance_scenes(doc)
            .into_iter()
            .map(str::to_owned)
            .collect();
        while let Some(path) = pending.pop() {
            if !seen.insert(path.clone()) || !placeable(&path) {
                continue;
            }
            let nested = match (self.files.get(&path), self.given.get(&path)) {
                (Some(file), _) => file.parsed.as_ref().map(|p| &p.doc),
                (None, Some(given)) => given.doc(),
                (None, None) => {
                    missing.push(path);
                    continue;
                }
            };
            if let Some(doc) = nested {
                pending.extend(
                    crate::prefab::instance_scenes(doc)
                        .into_iter()
                        .map(str::to_owned),
                );
            }
        }
        missing
    }

    /// Expands `parsed`, the scene at asset path `path`: reads every prefab its instances place
    /// (and theirs), each once. Returns the expansion (`None` without instances) and what
    /// concerns the scene itself: chains that come back to a file or go too deep, prefabs that
    /// cannot be read, and its overrides; with schemas ([`with_schemas`](Self::with_schemas)),
    /// its custom components checked in the expansion. Each
    /// prefab's own problems are in [`files`](Self::files).
    pub fn expand_scene(
        &mut self,
        path: &str,
        parsed: &ParsedScene,
    ) -> (Option<ExpandedScene>, Vec<Diagnostic>) {
        let schemas = self.schemas.take();
        let rules = Offline(schemas.as_ref());
        self.renames = rules.renames();
        let renamed_copy;
        let mut diagnostics = Vec::new();
        let parsed = if self.renames.is_empty() {
            parsed
        } else {
            let mut copy = parsed.clone();
            diagnostics = crate::validate::renamed::apply(&self.renames, &mut copy);
            renamed_copy = copy;
            &renamed_copy
        };
        let mut chain = vec![Link {
            file: path.to_owned(),
            at: None,
        }];
        diagnostics.extend(load_instances(self, parsed, &mut chain, &rules));
        let (expanded, mut found) = expand(parsed, &|p| {
            self.files.get(p).and_then(|f| f.expanded.as_deref())
        });
        diagnostics.append(&mut found);
        if let Some(expanded) = &expanded {
            diagnostics.extend(expanded.check_overridden(parsed));
            let (_, found, _) = check_all(
                &rules,
                &expanded.doc,
                Some(expanded),
                &parsed.source_map,
                None,
                || (),
            );
            diagnostics.extend(found.into_iter().filter_map(|d| expanded.locate(parsed, d)));
        }
        self.schemas = schemas;
        (expanded, diagnostics)
    }

    /// Every prefab file read, by asset path, in path order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &PrefabFile)> {
        self.files.iter().map(|(p, f)| (p.as_str(), f))
    }

    /// Every prefab file `doc` places, directly or through other prefabs, each once, sorted
    /// by asset path: what a cooked scene bundles ([`crate::cook`]). Only files read (after
    /// [`expand_scene`](Self::expand_scene)) are listed.
    pub fn placed_by(&self, doc: &SceneDoc) -> Vec<(&str, &SceneDoc)> {
        let mut found: BTreeMap<&str, &SceneDoc> = BTreeMap::new();
        let mut pending: Vec<&str> = crate::prefab::instance_scenes(doc);
        while let Some(path) = pending.pop() {
            let Some((key, file)) = self.files.get_key_value(path) else {
                continue;
            };
            let Some(parsed) = &file.parsed else {
                continue;
            };
            if found.insert(key.as_str(), &parsed.doc).is_none() {
                pending.extend(crate::prefab::instance_scenes(&parsed.doc));
            }
        }
        found.into_iter().collect()
    }

    /// The prefab file at asset path `path`, when it was read.
    pub fn file(&self, path: &str) -> Option<&PrefabFile> {
        self.files.get(path)
    }

    /// Every prefab file `doc` places, directly or through other prefabs, each once, in path
    /// order: read, unreadable or broken.
    pub(crate) fn placed_files(&self, doc: &SceneDoc) -> Vec<(&str, &PrefabFile)> {
        let mut found: BTreeMap<&str, &PrefabFile> = BTreeMap::new();
        let mut pending: Vec<&str> = crate::prefab::instance_scenes(doc);
        while let Some(path) = pending.pop() {
            let Some((key, file)) = self.files.get_key_value(path) else {
                continue;
            };
            if found.insert(key.as_str(), file).is_none()
                && let Some(parsed) = &file.parsed
            {
                pending.extend(crate::prefab::instance_scenes(&parsed.doc));
            }
        }
        found.into_iter().collect()
    }

    /// Gives `documents` (a cooked scene's bundle) for the paths not checked yet.
    pub(crate) fn give_documents(
        &mut self,
        documents: impl IntoIterator<Item = (String, SceneDoc)>,
    ) {
        for (path, doc) in documents {
            if !self.files.contains_key(&path) {
                self.given.insert(path, Given::Document(doc));
            }
        }
    }

    /// The schemas custom components are checked against, when given.
    pub(crate) fn schemas(&self) -> Option<&SchemaFile> {
        self.schemas.as_ref()
    }

    /// The index asset references are checked against, when given.
    pub(crate) fn assets(&self) -> Option<&AssetIndex> {
        self.assets.as_ref()
    }
}

/// Whether `scene`, an instance's `scene`, can name a prefab file at all (validation reports
/// the others).
fn placeable(scene: &str) -> bool {
    crate::project::check_asset_path(scene).is_ok() && scene.ends_with(".forge.ron")
}

/// What checking one prefab file gives ([`check_file`]).
struct FileChecked {
    /// Its expansion, when it places prefabs.
    expanded: Option<ExpandedScene>,
    /// Its own problems, in its frame: its rules, its instances (chains, unreadable prefabs),
    /// its overrides, its custom components.
    diagnostics: Vec<Diagnostic>,
}

/// Checks one prefab file, `parsed` (the last file of `chain`), with `rules`: its rules (with
/// `files`'s asset index), the prefab files its instances place (each read and checked once,
/// in `files`), its expansion and overrides, and its custom components: its own entities and
/// those its overrides change (the rest is the nested prefab files' to report, and what the
/// rules build is not kept). The scene itself is checked by [`super::incremental`].
fn check_file<R, C>(
    files: &mut PrefabFiles<R>,
    parsed: &ParsedScene,
    chain: &mut Vec<Link>,
    rules: &C,
) -> FileChecked
where
    R: PrefabSource,
    C: CustomRules,
    C::Part: 'static,
{
    let mut diagnostics = Vec::new();
    let instances = crate::prefab::places_prefabs(&parsed.doc);
    let expanded = if instances {
        diagnostics.extend(load_instances(files, parsed, chain, rules));
        let (expanded, found) = expand(parsed, &|p| {
            files.files.get(p).and_then(|f| f.expanded.as_deref())
        });
        diagnostics.extend(found);
        expanded
    } else {
        None
    };
    let assets = files.assets.as_ref();
    let own_part = expanded.as_ref().map(|e| own_part(e, parsed));
    let doc = match (&own_part, &expanded) {
        (Some(part), _) => part,
        (None, Some(e)) => &*e.doc,
        (None, None) => &parsed.doc,
    };
    let map = &parsed.source_map;
    let trusted = files.trusted;
    let (_, custom, own) = check_all(rules, doc, expanded.as_ref(), map, None, || {
        if trusted {
            return Vec::new();
        }
        let mut own = validate_parsed(parsed, assets).diagnostics;
        if let Some(expanded) = &expanded {
            own.extend(expanded.check_overridden(parsed));
        }
        // References in model overrides name the scene's entities, its instances' too.
        let whole = expanded.as_ref().map_or(&parsed.doc, |e| &*e.doc);
        own.extend(crate::validate::model::override_references(
            &parsed.doc,
            map,
            &super::rules::referable(whole, expanded.as_ref()),
        ));
        own
    });
    diagnostics.extend(own);
    match &expanded {
        // A prefab's own values are its file's to report: only what an override set is here.
        Some(e) => diagnostics.extend(custom.into_iter().filter_map(|d| e.locate(parsed, d))),
        None => diagnostics.extend(custom),
    }
    FileChecked {
        expanded,
        diagnostics,
    }
}

/// The entities of `expanded`, the expansion of `parsed`, whose values are `parsed`'s file's to
/// report: its own, and those its overrides change.
fn own_part(expanded: &ExpandedScene, parsed: &ParsedScene) -> SceneDoc {
    let mut overridden = std::collections::HashSet::new();
    for (id, node) in &parsed.doc.entities {
        for o in node.instance.iter().flat_map(|i| &i.overrides) {
            let mut path = vec![*id];
            path.extend(&o.target);
            overridden.insert(crate::prefab::key_of(&path));
        }
    }
    for layer in &parsed.doc.layers {
        for o in &layer.overrides {
            let mut path = vec![layer.id];
            path.extend(&o.target);
            overridden.insert(crate::prefab::key_of(&path));
        }
    }
    let mut part = SceneDoc::new(parsed.doc.name.clone());
    part.entities.extend(
        expanded
            .doc
            .entities
            .iter()
            .filter(|(key, _)| expanded.placed_path(**key).is_none() || overridden.contains(*key))
            .map(|(key, node)| (*key, node.clone())),
    );
    part
}

/// Reads the prefabs `parsed` (the last file of `chain`) places; the problems of its
/// instances: a chain that comes back to a file or goes too deep, a prefab that cannot be read.
/// A prefab's own problems are its file's ([`PrefabFile::diagnostics`]), told the chain that
/// placed it the first time.
pub(super) fn load_instances<R, C>(
    files: &mut PrefabFiles<R>,
    parsed: &ParsedScene,
    chain: &mut Vec<Link>,
    rules: &C,
) -> Vec<Diagnostic>
where
    R: PrefabSource,
    C: CustomRules,
    C::Part: 'static,
{
    let mut diagnostics = Vec::new();
    // Every placement of a prefab: instance entities, then palette entries of tile layers.
    let instances = parsed.doc.entities.values().filter_map(|node| {
        let instance = node.instance.as_deref().filter(|i| !i.is_model())?;
        let here = parsed.source_map.instance_scene(node.id);
        Some((
            node.id,
            instance.scene.as_str(),
            here,
            "instance.scene".to_owned(),
        ))
    });
    let palettes = parsed.doc.layers.iter().enumerate().flat_map(|(n, layer)| {
        layer
            .palette
            .iter()
            .enumerate()
            .map(move |(k, (key, scene))| {
                let here = parsed
                    .source_map
                    .layer_part(layer.id, crate::format::LayerPart::PaletteScene(k));
                let path = format!("layers[{n}].palette.{key}");
                (layer.id, scene.as_str(), here, path)
            })
    });
    let placements: Vec<_> = instances.chain(palettes).collect();
    for (id, scene, here, path) in placements {
        let at = |d: Diagnostic| {
            let mut d = d.with_entity(id).with_path(path.clone());
            d.position = here;
            d
        };
        let names: Vec<String> = chain.iter().map(|l| l.file.clone()).collect();
        if let Some(problem) = chain_problem(&names, scene) {
            let mut d = at(problem);
            d.related = chain
                .iter()
                .skip(1)
                .map(Link::related)
                .chain(std::iter::once(Related {
                    file: chain.last().map(|l| l.file.clone()),
                    position: here,
                    message: format!("places `{scene}`"),
                }))
                .collect();
            diagnostics.push(d);
            continue;
        }
        if !placeable(scene) {
            continue; // reported by validation
        }
        let previous = chain.last().map(|l| l.file.clone());
        chain.push(Link {
            file: scene.to_owned(),
            at: Some((previous.unwrap_or_default(), here)),
        });
        let unreadable = load(files, chain, rules);
        chain.pop();
        if let Some(why) = unreadable {
            diagnostics.push(at(Diagnostic::new(
                Severity::Error,
                codes::prefab::UNREADABLE,
                format!("prefab `{scene}` cannot be read: {why}"),
            )
            .with_help(
                "prefab paths are relative to the assets directory, like `prefabs/goblin.forge.ron`",
            )));
        }
    }
    // One diagnostic per instance scene value is enough when many instances place the same
    // missing file.
    diagnostics.dedup_by(|a, b| a.code == b.code && a.message == b.message);
    diagnostics
}

/// Reads, checks and expands the file at the end of `chain`, once; why it cannot be read, when
/// it cannot.
fn load<R, C>(files: &mut PrefabFiles<R>, chain: &mut Vec<Link>, rules: &C) -> Option<String>
where
    R: PrefabSource,
    C: CustomRules,
    C::Part: 'static,
{
    let path = chain.last()?.file.clone();
    if let Some(file) = files.files.get(&path) {
        return file.unreadable.clone();
    }
    let given = match files.given.remove(&path) {
        Some(given) => given,
        None => match files.read.read(&path) {
            Ok(bytes) => Given::text(&bytes),
            Err(why) => Given::Unreadable(why),
        },
    };
    match given {
        Given::Document(doc) => {
            let parsed = ParsedScene {
                doc,
                source_map: crate::format::SourceMap::default(),
                warnings: Vec::new(),
            };
            check_prefab(files, path, parsed, String::new(), chain, rules);
        }
        Given::Unreadable(why) => {
            let file = PrefabFile {
                parsed: None,
                text: String::new(),
                diagnostics: Vec::new(),
                expanded: None,
                unreadable: Some(why.clone()),
            };
            files.files.insert(path, file);
            return Some(why);
        }
        Given::Text(text, read) => match *read {
            Ok(parsed) => check_prefab(files, path, parsed, text, chain, rules),
            Err(e) => {
                let mut d = Diagnostic::from_read_error(&e);
                d.related = placed_by(chain);
                let file = PrefabFile {
                    parsed: None,
                    text,
                    diagnostics: vec![d],
                    expanded: None,
                    unreadable: None,
                };
                files.files.insert(path, file);
            }
        },
    }
    None
}

/// Checks and expands `parsed`, the prefab file at `path` (the end of `chain`) with `text`, and
/// keeps it in `files`.
fn check_prefab<R, C>(
    files: &mut PrefabFiles<R>,
    path: String,
    mut parsed: ParsedScene,
    text: String,
    chain: &mut Vec<Link>,
    rules: &C,
) where
    R: PrefabSource,
    C: CustomRules,
    C::Part: 'static,
{
    let mut diagnostics = crate::validate::renamed::apply(&files.renames, &mut parsed);
    let FileChecked {
        expanded,
        diagnostics: found,
    } = check_file(files, &parsed, chain, rules);
    diagnostics.extend(found);
    // A file whose expansion was refused as too large places nothing where it is placed:
    // keeping a partial copy would only multiply further up.
    let too_large = diagnostics
        .iter()
        .any(|d| d.code == codes::prefab::TOO_LARGE);
    let expanded = (!too_large).then(|| {
        Arc::new(expanded.unwrap_or_else(|| ExpandedScene::plain(Arc::new(parsed.doc.clone()))))
    });
    // A prefab is placed in other scenes: it needs no camera of its own.
    diagnostics.retain(|d| d.code != codes::camera::NONE);
    // Its problems are its file's, told where it was placed (the first time it was).
    let placed = placed_by(chain);
    for d in &mut diagnostics {
        if d.related.is_empty() {
            d.related.clone_from(&placed);
        }
    }
    let file = PrefabFile {
        parsed: Some(parsed),
        text,
        diagnostics,
        expanded,
        unreadable: None,
    };
    files.files.insert(path, file);
}

/// Where the last file of `chain` was placed from: each file's instance of the next, the scene
/// first.
fn placed_by(chain: &[Link]) -> Vec<Related> {
    chain.iter().skip(1).map(Link::related).collect()
}

/// One file of a chain of instances, and where the file before it places it.
pub(crate) struct Link {
    pub(crate) file: String,
    /// The placing file and the position of its `scene` value.
    pub(crate) at: Option<(String, Option<crate::format::Position>)>,
}

impl Link {
    /// The first link of a chain: the scene at `file`.
    pub(crate) fn scene(file: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            at: None,
        }
    }

    fn related(&self) -> Related {
        let (file, position) = match &self.at {
            Some((file, position)) => (Some(file.clone()), *position),
            None => (None, None),
        };
        Related {
            file,
            position,
            message: format!("places `{}`", self.file),
        }
    }
}
