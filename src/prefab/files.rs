//! Prefab files read by tools (`forge validate`, `forge tree`): each file read, validated and
//! expanded once, chains of instances checked for cycles and depth.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{ExpandedScene, expand};
use crate::format::MAX_PREFAB_DEPTH;
use crate::format::{ParsedScene, SceneDoc};
use crate::schema::SchemaFile;
use crate::validate::diagnostic::count_of;
use crate::validate::{Diagnostic, Severity};
use crate::validate::{
    Related, validate_parsed, validate_parsed_with_schemas, validate_references,
};

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
                "forge::prefab::cycle",
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
                "forge::prefab::too_deep",
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

/// The prefab files a scene places, read through `read` (an asset path to the file's bytes, or
/// why it cannot be read), each once however many instances place it.
///
/// ```
/// use std::collections::HashMap;
/// use bevy_forge_scene::format::SceneDoc;
/// use bevy_forge_scene::prefab::PrefabFiles;
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
    /// Documents given already read (a cooked scene's bundled prefabs), by asset path: used
    /// before `read`.
    documents: BTreeMap<String, SceneDoc>,
    files: BTreeMap<String, PrefabFile>,
    /// Custom components are checked against these schemas, when given.
    schemas: Option<SchemaFile>,
}

impl<R: FnMut(&str) -> Result<Vec<u8>, String>> PrefabFiles<R> {
    /// Prefab files read through `read`.
    pub fn new(read: R) -> Self {
        Self {
            read,
            documents: BTreeMap::new(),
            files: BTreeMap::new(),
            schemas: None,
        }
    }

    /// Uses `documents` (asset path and document, as a cooked scene bundles them) for those
    /// paths instead of reading them: they are checked and expanded as read files are, without
    /// positions.
    pub fn with_documents(
        mut self,
        documents: impl IntoIterator<Item = (String, SceneDoc)>,
    ) -> Self {
        self.documents.extend(documents);
        self
    }

    /// Checks custom components (the prefabs' own, and the scenes' overrides of them) against
    /// `schemas` too, as `forge validate --schema` does.
    pub fn with_schemas(mut self, schemas: SchemaFile) -> Self {
        self.schemas = Some(schemas);
        self
    }

    /// Expands `parsed`, the scene at asset path `path`: reads every prefab its instances place
    /// (and theirs), each once. Returns the expansion (`None` without instances) and what
    /// concerns the scene itself: chains that come back to a file or go too deep, prefabs that
    /// cannot be read or have errors, and its overrides; with schemas
    /// ([`with_schemas`](Self::with_schemas)), its custom components checked in the expansion
    /// ([`ExpandedScene::check_customs`]). Each prefab's own problems are in
    /// [`files`](Self::files).
    pub fn expand_scene(
        &mut self,
        path: &str,
        parsed: &ParsedScene,
    ) -> (Option<ExpandedScene>, Vec<Diagnostic>) {
        let mut chain = vec![Link {
            file: path.to_owned(),
            at: None,
        }];
        let mut diagnostics = self.load_instances(parsed, &mut chain);
        let (expanded, mut found) = expand(parsed, &|p| {
            self.files.get(p).and_then(|f| f.expanded.as_deref())
        });
        diagnostics.append(&mut found);
        if let Some(expanded) = &expanded {
            diagnostics.extend(expanded.check_overridden(parsed));
            match &self.schemas {
                Some(schemas) => diagnostics.extend(expanded.check_customs(parsed, schemas)),
                None => diagnostics.extend(expanded.check_references(parsed)),
            }
        }
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
        let mut pending: Vec<&str> = super::instance_scenes(doc);
        while let Some(path) = pending.pop() {
            let Some((key, file)) = self.files.get_key_value(path) else {
                continue;
            };
            let Some(parsed) = &file.parsed else {
                continue;
            };
            if found.insert(key.as_str(), &parsed.doc).is_none() {
                pending.extend(super::instance_scenes(&parsed.doc));
            }
        }
        found.into_iter().collect()
    }

    /// The prefab file at asset path `path`, when it was read.
    pub fn file(&self, path: &str) -> Option<&PrefabFile> {
        self.files.get(path)
    }

    /// Reads the prefabs `parsed` (the last file of `chain`) places; the problems of its
    /// instances.
    fn load_instances(&mut self, parsed: &ParsedScene, chain: &mut Vec<Link>) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        for node in parsed.doc.entities.values() {
            let Some(instance) = &node.instance else {
                continue;
            };
            let scene = instance.scene.as_str();
            let at = |d: Diagnostic| {
                let mut d = d.with_entity(node.id).with_path("instance.scene");
                d.position = parsed.source_map.instance_scene(node.id);
                d
            };
            let names: Vec<String> = chain.iter().map(|l| l.file.clone()).collect();
            if let Some(problem) = chain_problem(&names, scene) {
                let mut d = at(problem);
                let here = parsed.source_map.instance_scene(node.id);
                d.related = chain
                    .iter()
                    .skip(1)
                    .map(|l| l.related())
                    .chain(std::iter::once(Related {
                        file: chain.last().map(|l| l.file.clone()),
                        position: here,
                        message: format!("places `{scene}`"),
                    }))
                    .collect();
                diagnostics.push(d);
                continue;
            }
            if crate::project::check_asset_path(scene).is_err() || !scene.ends_with(".forge.ron") {
                continue; // reported by validation
            }
            let previous = chain.last().map(|l| l.file.clone());
            chain.push(Link {
                file: scene.to_owned(),
                at: Some((
                    previous.unwrap_or_default(),
                    parsed.source_map.instance_scene(node.id),
                )),
            });
            let loaded = self.load(chain);
            chain.pop();
            match loaded {
                Loaded::Read => {}
                Loaded::Errors(n) => diagnostics.push(at(Diagnostic::new(
                    Severity::Error,
                    "forge::prefab::invalid",
                    format!("prefab `{scene}` has {}", count_of(n, "error")),
                ))),
                Loaded::Unreadable(why) => diagnostics.push(at(Diagnostic::new(
                    Severity::Error,
                    "forge::prefab::unreadable",
                    format!("prefab `{scene}` cannot be read: {why}"),
                )
                .with_help(
                    "prefab paths are relative to the assets directory, like `prefabs/goblin.forge.ron`",
                ))),
            }
        }
        // One diagnostic per instance scene value is enough when many instances place the same
        // missing or broken file.
        diagnostics.dedup_by(|a, b| a.code == b.code && a.message == b.message);
        diagnostics
    }

    /// Reads, checks and expands the file at the end of `chain`, once.
    fn load(&mut self, chain: &mut Vec<Link>) -> Loaded {
        let Some(path) = chain.last().map(|l| l.file.clone()) else {
            return Loaded::Read;
        };
        if let Some(file) = self.files.get(&path) {
            return file.loaded();
        }
        if let Some(doc) = self.documents.remove(&path) {
            let parsed = ParsedScene {
                doc,
                source_map: crate::format::SourceMap::default(),
                warnings: Vec::new(),
            };
            return self.check(path, parsed, String::new(), chain);
        }
        let bytes = match (self.read)(&path) {
            Ok(bytes) => bytes,
            Err(why) => {
                let file = PrefabFile {
                    parsed: None,
                    text: String::new(),
                    diagnostics: Vec::new(),
                    expanded: None,
                    unreadable: Some(why.clone()),
                };
                self.files.insert(path, file);
                return Loaded::Unreadable(why);
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned();
        let parsed = match SceneDoc::from_slice(&bytes) {
            Ok(parsed) => parsed,
            Err(e) => {
                let file = PrefabFile {
                    parsed: None,
                    text,
                    diagnostics: vec![Diagnostic::from_read_error(&e)],
                    expanded: None,
                    unreadable: None,
                };
                self.files.insert(path, file);
                return Loaded::Errors(1);
            }
        };
        self.check(path, parsed, text, chain)
    }

    /// Validates and expands `parsed`, the file at `path` (the end of `chain`) with `text`.
    fn check(
        &mut self,
        path: String,
        parsed: ParsedScene,
        text: String,
        chain: &mut Vec<Link>,
    ) -> Loaded {
        // With instances, custom components are checked in the expansion (below), where
        // references into them resolve.
        let instances = super::has_instances(&parsed.doc);
        let mut diagnostics = match &self.schemas {
            Some(schemas) if !instances => {
                validate_parsed_with_schemas(&parsed, None, schemas).diagnostics
            }
            _ => validate_parsed(&parsed, None).diagnostics,
        };
        if self.schemas.is_none() && !instances {
            diagnostics.extend(validate_references(&parsed));
        }
        diagnostics.extend(self.load_instances(&parsed, chain));
        let (expanded, mut found) = expand(&parsed, &|p| {
            self.files.get(p).and_then(|f| f.expanded.as_deref())
        });
        diagnostics.append(&mut found);
        if let Some(expanded) = &expanded {
            diagnostics.extend(expanded.check_overridden(&parsed));
            if let Some(schemas) = &self.schemas {
                diagnostics.extend(expanded.check_customs(&parsed, schemas));
            } else {
                diagnostics.extend(expanded.check_references(&parsed));
            }
        }
        // A file whose expansion was refused as too large places nothing where it is placed:
        // keeping a partial copy would only multiply further up.
        let too_large = diagnostics
            .iter()
            .any(|d| d.code == "forge::prefab::too_large");
        let expanded = (!too_large).then(|| {
            Arc::new(expanded.unwrap_or_else(|| ExpandedScene::plain(Arc::new(parsed.doc.clone()))))
        });
        // A prefab is placed in other scenes: it needs no camera of its own.
        diagnostics.retain(|d| d.code != "forge::camera::none");
        let file = PrefabFile {
            parsed: Some(parsed),
            text,
            diagnostics,
            expanded,
            unreadable: None,
        };
        let loaded = file.loaded();
        self.files.insert(path, file);
        loaded
    }
}

impl PrefabFile {
    fn loaded(&self) -> Loaded {
        if let Some(why) = &self.unreadable {
            return Loaded::Unreadable(why.clone());
        }
        match self
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
        {
            0 => Loaded::Read,
            n => Loaded::Errors(n),
        }
    }
}

/// What became of a prefab file.
enum Loaded {
    /// It read without errors.
    Read,
    /// It has this many errors.
    Errors(usize),
    /// It cannot be read.
    Unreadable(String),
}

/// One file of a chain of instances, and where the file before it places it.
struct Link {
    file: String,
    /// The placing file and the position of its `scene` value.
    at: Option<(String, Option<crate::format::Position>)>,
}

impl Link {
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
