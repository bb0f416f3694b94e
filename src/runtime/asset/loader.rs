//! The `.forge.ron` [`AssetLoader`]: text to a validated, ready-to-spawn [`ForgeScene`].

use std::path::Path;
use std::sync::Arc;

use bevy_asset::io::Reader;
use bevy_asset::{AssetLoadError, AssetLoader, AssetServer, AsyncSeekExt, LoadContext};
use bevy_reflect::TypePath;
use serde::{Deserialize, Serialize};

use super::files::{Next, Plan, Revision, SceneFiles};
use super::progress::{LoadTicket, LoadTracker};
use super::scene::{ForgeScene, Prefabs, build};
use crate::codes;
use crate::cook::CookError;
use crate::format::{EntityNode, ParsedScene, ReadError, StreamRead, StreamStep, TextChange};
use crate::pipeline::incremental::MemoryOf;
use crate::pipeline::{PrefabFiles, Source, SourceError};
use crate::runtime::values::builtin::BuiltinsMemory;
use crate::runtime::values::custom::CustomContext;
use crate::runtime::values::registry::ForgeSchemas;
use crate::validate::diagnostic::count_of;
use crate::validate::{Diagnostic, Severity, ValidationReport};

/// Settings of [`ForgeSceneLoader`], set per load with `AssetServer::load_builder` (or a
/// `.meta` file): plain data with [`Default`].
///
/// ```
/// # use bevy_forge_scene::ForgeSceneLoaderSettings;
/// let settings = ForgeSceneLoaderSettings {
///     check_assets: false,
///     ..Default::default()
/// };
/// assert!(!settings.keep_source_map);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ForgeSceneLoaderSettings {
    /// Check that every sprite image and asset mesh the scene (and each prefab it places)
    /// references exists in the asset source (default `true`). A missing file fails the load
    /// with its line and column.
    pub check_assets: bool,
    /// Keep the [`SourceMap`](crate::format::SourceMap) in the loaded [`ForgeScene`] (default
    /// `false`), for tools that point from a loaded entity back to its line
    /// ([`ForgeScene::source_map`]). The map takes about as much memory as the document
    /// (roughly 400 bytes per entity in canonical files), so a game that only spawns scenes goes
    /// without it; load errors have their positions either way.
    pub keep_source_map: bool,
    /// Read, check and prepare a new version of the file again only where it changed (default
    /// `true`): the loader keeps the last version of a path the asset server watches, or loads
    /// a second time, in memory (its text, read document and source map, and what its check
    /// and preparation found: about the size of the file plus its source map), and a hot reload
    /// costs what the edit changed. `false` reads and checks every version whole and keeps
    /// nothing. A hot reload loads with the settings of the path's `.meta` file, if any.
    pub incremental: bool,
}

impl Default for ForgeSceneLoaderSettings {
    fn default() -> Self {
        Self {
            check_assets: true,
            keep_source_map: false,
            incremental: true,
        }
    }
}

/// Loads `.forge.ron` files as [`ForgeScene`]s. Registered by
/// [`ForgeScenePlugin`](crate::ForgeScenePlugin).
#[derive(TypePath, Clone)]
// Type path at the crate root (as re-exported), whatever module defines it: `.meta` files
// and reflected scenes name it.
#[type_path = "bevy_forge_scene"]
pub struct ForgeSceneLoader {
    server: AssetServer,
    custom: CustomContext,
    tracker: LoadTracker,
    files: SceneFiles,
}

impl ForgeSceneLoader {
    /// A loader that checks asset references through `server`'s asset sources. It knows no
    /// custom component types until [`with_custom_components`](Self::with_custom_components).
    pub fn new(server: AssetServer) -> Self {
        Self {
            server,
            custom: Default::default(),
            tracker: LoadTracker::default(),
            files: SceneFiles::default(),
        }
    }

    /// Remembers what it reads in `files` (the app's, which the live link and writers share).
    pub(crate) fn with_files(mut self, files: SceneFiles) -> Self {
        self.files = files;
        self
    }

    /// Counts files and bytes into `tracker` (the plugin's, which reports them on roots).
    pub(crate) fn with_tracker(mut self, tracker: LoadTracker) -> Self {
        self.tracker = tracker;
        self
    }

    /// Builds `custom` components with the types of `registry` that have a schema in `schemas`
    /// (both shared with the app, so later registrations are seen by later loads).
    pub fn with_custom_components(
        mut self,
        registry: bevy_ecs::reflect::AppTypeRegistry,
        schemas: ForgeSchemas,
    ) -> Self {
        self.custom = CustomContext { registry, schemas };
        self
    }
}

/// Why a `.forge.ron` file failed to load.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ForgeSceneLoadError {
    /// The asset source could not be read.
    #[error("could not read `{path}`: {source}")]
    Io {
        /// The asset path.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The text is not a valid `.forge.ron` document (syntax, unknown field, ...). The message
    /// starts with `path:line:column:`.
    #[error("{0}")]
    Read(ReadError),
    /// The file starts as a cooked scene ([`crate::cook`]) but is not one: truncated, damaged,
    /// another layout version. Its code is [`CookError::code`].
    #[error("`{path}` is not a usable cooked scene{}: {source}", twin_note(.path))]
    Cooked {
        /// The asset path.
        path: String,
        /// What is wrong.
        source: CookError,
    },
    /// The document reads but fails validation (`validate_parsed`) or references missing
    /// assets; every error is listed with its line and column.
    #[error("`{path}` has {}:\n{}", count_of(.diagnostics.len(), "error"), list(.diagnostics, .path))]
    Invalid {
        /// The asset path.
        path: String,
        /// Every error, in validation order (by entity id, then message).
        diagnostics: Vec<Diagnostic>,
    },
}

impl ForgeSceneLoadError {
    /// The load error of bytes that are not a scene.
    fn from_source(e: SourceError) -> Self {
        match e {
            SourceError::Read(read) => ForgeSceneLoadError::Read(read),
            SourceError::Cooked { path, error } => ForgeSceneLoadError::Cooked {
                path,
                source: error,
            },
        }
    }

    /// The scene error inside a failed load of the asset server (`LoadState::Failed`,
    /// `AssetLoadFailedEvent::error`); `None` when the failure is not a `.forge.ron` load's own
    /// (the file is missing, another loader failed).
    pub fn from_asset_error(error: &AssetLoadError) -> Option<&ForgeSceneLoadError> {
        match error {
            AssetLoadError::AssetLoaderError(e) => e.error().downcast_ref(),
            _ => None,
        }
    }

    /// Every problem as a [`Diagnostic`], with its line and column where known: the validation
    /// and asset errors, the read error (code `forge::read::<kind>`), or one `forge::read::io`
    /// error.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            ForgeSceneLoadError::Invalid { diagnostics, .. } => diagnostics.clone(),
            ForgeSceneLoadError::Read(read) => vec![Diagnostic::from_read_error(read)],
            ForgeSceneLoadError::Cooked { source, .. } => vec![Diagnostic::new(
                Severity::Error,
                source.code(),
                self.to_string(),
            )],
            ForgeSceneLoadError::Io { .. } => vec![Diagnostic::new(
                Severity::Error,
                codes::read::IO,
                self.to_string(),
            )],
        }
    }
}

/// Cooked bytes under a text path come from its twin ([`ForgeTwinReader`]) or the asset
/// processor: the file they are likely in.
///
/// [`ForgeTwinReader`]: super::twins::ForgeTwinReader
fn twin_note(path: &str) -> String {
    match crate::cook::twin_path(path) {
        Some(twin) => format!(" (read from its twin `{twin}` if the text is missing)"),
        None => String::new(),
    }
}

/// `  path:line:column: error[code]: message (entity N, `field`); help: ...`, one per line.
pub(crate) fn list(diagnostics: &[Diagnostic], path: &str) -> String {
    let mut out = String::new();
    for (i, d) in diagnostics.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("  ");
        // A prefab's problem is in the prefab file.
        out.push_str(&crate::validate::diagnostic::printable(
            d.file.as_deref().unwrap_or(path),
        ));
        if let Some(p) = d.position {
            out.push_str(&format!(":{}:{}", p.line, p.column));
        }
        out.push_str(": ");
        let without_position = Diagnostic {
            position: None,
            ..d.clone()
        };
        out.push_str(&without_position.to_string());
    }
    out
}

impl AssetLoader for ForgeSceneLoader {
    type Asset = ForgeScene;
    type Settings = ForgeSceneLoaderSettings;
    type Error = ForgeSceneLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &ForgeSceneLoaderSettings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<ForgeScene, ForgeSceneLoadError> {
        let path = load_context.path().to_string();
        let ticket = self.tracker.start(&path);
        ticket.files(0, 1);
        // 1. The bytes read: a large text in pieces, anything else whole (text or cooked); a
        // path read before whole, and again only in the entry that changed.
        let plan = match settings.incremental {
            true => self.files.start(&path, self.server.watching_for_changes()),
            false => {
                self.files.forget(&path);
                Plan::Once
            }
        };
        let read = match plan {
            Plan::Remember => self.read_remembered(reader, &path, &ticket).await?,
            Plan::Once => Read::Source {
                source: self.read_once(reader, &path, &ticket).await?,
                prior: None,
                text: None,
            },
        };
        let (doc, cooked, named) = match &read {
            Read::Source { source, .. } => (
                &source.parsed.doc,
                source.cooked.as_ref(),
                source.shown_name(),
            ),
            Read::Ready { checked, .. } => (
                &checked.source.parsed.doc,
                None,
                checked.source.shown_name(),
            ),
        };
        // 2. The prefab files it places, each a dependency of this load (an edit of any
        // reloads the scene), fetched before the check, which reads them from memory.
        let mut files = PrefabFiles::new(|p: &str| Err(format!("`{p}` could not be fetched")));
        if let Some(cooked) = cooked {
            files = files.with_documents(cooked.prefabs.iter().cloned());
            // What cooking proved is not proved again when the game is the one it was proved
            // for: this build, and the schemas of the game's registered types.
            if let Some(stamp) = &cooked.stamp {
                let game = crate::cook::schema_hash(&self.custom.schemas.to_schema_file());
                files.trusted = stamp.matches(game.as_ref());
                if !files.trusted {
                    tracing::debug!(
                        "`{named}`: its stamp does not match this game (cooked by {} under {}), validating it",
                        stamp.crate_version,
                        if stamp.schema_hash.is_some_and(|h| Some(h) != game) {
                            "other schemas"
                        } else if stamp.schema_hash.is_none() {
                            "no schemas"
                        } else {
                            "the same schemas"
                        }
                    );
                }
            }
        }
        // Files read whose prefab files are not known yet: the scene's, at first.
        let mut read_files = 1;
        loop {
            let missing = files.missing(doc);
            ticket.files(std::mem::take(&mut read_files), missing.len());
            if missing.is_empty() {
                break;
            }
            for file in missing {
                let read = if cooked.is_some() {
                    Err("it is not bundled in the cooked file".to_owned())
                } else {
                    load_context
                        .read_asset_bytes(file.clone())
                        .await
                        .map_err(|e| read_reason(&e))
                };
                ticket.whole_file(read.as_ref().map_or(0, |b| b.len() as u64));
                read_files += 1;
                files.provide(file, read);
            }
        }
        // 3. Every rule, prefabs checked in their own files, custom components built; a
        // remembered path's next version checked again only where its text changed, or not at
        // all when a writer checked exactly this text.
        let (checked, memory, remembered) = match read {
            Read::Ready {
                checked,
                memory,
                text,
                builtins,
            } => (checked, memory, Some((text, builtins))),
            Read::Source {
                source,
                prior,
                text,
            } => {
                let pool = bevy_tasks::AsyncComputeTaskPool::try_get().map(|p| &**p);
                let (checked, memory) = crate::pipeline::incremental::check_scene(
                    source,
                    &mut files,
                    &self.custom,
                    pool,
                    prior,
                    plan == Plan::Remember,
                );
                (checked, memory, text)
            }
        };
        // 4. The asset files its built-ins name.
        let mut errors = Vec::new();
        let mut warnings = Vec::new();
        for d in checked.diagnostics.iter() {
            match d.severity {
                Severity::Error => errors.push(d.clone()),
                _ => warnings.push(d.clone()),
            }
        }
        if settings.check_assets {
            let refs = asset_refs_of(&checked, &files);
            errors.extend(self.missing_assets(refs, load_context).await);
        }
        sort_out(warnings, &mut errors, &named);
        // What the next version of a remembered path is read and checked from: this one,
        // whether it loads or not.
        let (text, last_builtins) = remembered.unzip();
        let last_builtins = last_builtins.flatten();
        if !errors.is_empty() {
            let errors = errors.into_iter().collect::<ValidationReport>().diagnostics;
            if let Some(text) = text {
                self.files
                    .put(&path, text, checked.source.parsed, None, |file| Revision {
                        memory,
                        builtins: last_builtins,
                        errors: Some(errors.clone()),
                        ..Revision::unchecked(file)
                    });
            }
            return Err(ForgeSceneLoadError::Invalid {
                path: named,
                diagnostics: errors,
            });
        }
        // 5. What spawning needs.
        let mut prefabs = Prefabs::of(&checked.source.parsed.doc, &files);
        if checked.source.cooked.is_none() {
            let source = load_context.path().source().clone_owned();
            prefabs.handles = prefabs
                .files
                .iter()
                .map(|file| {
                    let path =
                        bevy_asset::AssetPath::from(file.to_string()).with_source(source.clone());
                    self.server.load::<ForgeScene>(path)
                })
                .collect();
        }
        let asset_path = load_context.path().to_string();
        ticket.loaded();
        let (scene, builtins, parsed) = build(
            checked,
            prefabs,
            load_context,
            &asset_path,
            settings.keep_source_map,
            text.is_some().then_some(last_builtins),
        );
        if let (Some(text), Some(parsed)) = (text, parsed) {
            self.files.put(&path, text, parsed, None, |file| Revision {
                memory,
                builtins: Some(builtins),
                errors: Some(Vec::new()),
                ..Revision::unchecked(file)
            });
        }
        Ok(scene)
    }

    fn extensions(&self) -> &[&str] {
        &["forge.ron", crate::cook::COOKED_EXTENSION]
    }
}

/// Warnings and notes logged, naming `path`; errors into `errors`.
fn sort_out(diagnostics: Vec<Diagnostic>, errors: &mut Vec<Diagnostic>, path: &str) {
    for d in diagnostics {
        match d.severity {
            Severity::Error => errors.push(d),
            Severity::Warning => {
                tracing::warn!("{}", list(std::slice::from_ref(&d), path).trim_start())
            }
            Severity::Info => {
                tracing::debug!("{}", list(std::slice::from_ref(&d), path).trim_start())
            }
        }
    }
}

impl ForgeSceneLoader {
    /// The scene at `path` read as a first load is: a large text in pieces, anything else
    /// whole (text or cooked).
    async fn read_once(
        &self,
        reader: &mut dyn Reader,
        path: &str,
        ticket: &LoadTicket,
    ) -> Result<Source, ForgeSceneLoadError> {
        let io = |source| ForgeSceneLoadError::Io {
            path: path.to_owned(),
            source,
        };
        match read_streamed(reader, ticket).await {
            Ok(Some(parsed)) => Ok(Source::from_parsed(path, parsed)),
            Ok(None) => {
                let bytes = read_whole(reader).await.map_err(io)?;
                ticket.whole_file(bytes.len() as u64);
                Source::read(path, &bytes).map_err(ForgeSceneLoadError::from_source)
            }
            Err(StreamError::Io(e)) => Err(io(e)),
            Err(StreamError::TooLarge(size)) => Err(too_large(path, size)),
        }
    }

    /// The scene at `path`, a remembered path, read whole: from its last revision where the
    /// text changed in one entry, not at all when a writer checked exactly this text.
    async fn read_remembered(
        &self,
        reader: &mut dyn Reader,
        path: &str,
        ticket: &LoadTicket,
    ) -> Result<Read, ForgeSceneLoadError> {
        let bytes = read_whole_within(reader).await.map_err(|e| match e {
            StreamError::Io(source) => ForgeSceneLoadError::Io {
                path: path.to_owned(),
                source,
            },
            StreamError::TooLarge(size) => too_large(path, size),
        })?;
        ticket.whole_file(bytes.len() as u64);
        let mut last = self.files.take(path);
        // A writer checked this very text: it is neither read nor checked again (nor checked
        // as UTF-8: it is the writer's text, byte for byte).
        if let Some(revision) = last.as_mut()
            && revision.ready.is_some()
            && revision.file.text.as_bytes() == bytes
            && let Some(mut checked) = revision.ready.take()
        {
            let memory = revision.memory.take();
            let builtins = revision.builtins.take();
            let file = std::mem::replace(
                &mut revision.file,
                Arc::new(crate::runtime::asset::files::FileText {
                    number: 0,
                    text: String::new(),
                    parsed: ParsedScene::empty(),
                    hash: None,
                }),
            );
            let (text, parsed) = Revision::into_owned(file);
            checked.source.parsed = parsed;
            return Ok(Read::Ready {
                checked,
                memory,
                text,
                builtins,
            });
        }
        // Text to read from its last version; other bytes (cooked, or not UTF-8) read as
        // always.
        let text = if crate::cook::is_cooked(&bytes) || crate::cook::looks_damaged(&bytes) {
            Err(bytes)
        } else {
            String::from_utf8(bytes).map_err(std::string::FromUtf8Error::into_bytes)
        };
        let text = match text {
            Ok(text) => text,
            Err(bytes) => {
                if let Some(last) = last {
                    self.files.put_back(path, last);
                }
                let source =
                    Source::read(path, &bytes).map_err(ForgeSceneLoadError::from_source)?;
                return Ok(Read::Source {
                    source,
                    prior: None,
                    text: None,
                });
            }
        };
        let Some(mut last) = last else {
            let source =
                Source::read(path, text.as_bytes()).map_err(ForgeSceneLoadError::from_source)?;
            return Ok(Read::Source {
                source,
                prior: None,
                text: Some((text, None)),
            });
        };
        let memory = last.memory.take();
        let builtins = last.builtins.take();
        last.ready = None;
        let (parsed, change) = match last.next(&text) {
            Next::Read(change, parsed) => (parsed, Some(change)),
            Next::Whole(change, was) => match Source::read(path, text.as_bytes()) {
                Ok(source) => (source.parsed, change),
                Err(e) => {
                    // The last version stays the one a next edit is read from.
                    self.files.put_back(
                        path,
                        Revision {
                            memory,
                            builtins,
                            ..was
                        },
                    );
                    return Err(ForgeSceneLoadError::from_source(e));
                }
            },
        };
        Ok(Read::Source {
            source: Source::from_parsed(path, parsed),
            prior: memory.zip(change),
            text: Some((text, builtins)),
        })
    }

    /// The problems of `assets` whose files do not exist in the scene's asset source (each
    /// file is looked up once).
    async fn missing_assets(
        &self,
        assets: Vec<(String, Diagnostic)>,
        ctx: &LoadContext<'_>,
    ) -> Vec<Diagnostic> {
        let mut problems = Vec::new();
        let Ok(source) = self.server.get_source(ctx.path().source().clone_owned()) else {
            return problems;
        };
        let mut checked = std::collections::HashMap::<String, bool>::new();
        for (file, d) in assets {
            let exists = match checked.get(&file) {
                Some(e) => *e,
                None => {
                    let e = source.reader().read(Path::new(&file)).await.is_ok();
                    checked.insert(file, e);
                    e
                }
            };
            if !exists {
                problems.push(d);
            }
        }
        problems
    }
}

/// What a load read.
// Made and matched at once, one per load.
#[allow(clippy::large_enum_variant)]
enum Read {
    /// A source to check: with what the last check of the path kept and the edit since, and
    /// for a remembered path its text and what preparing its last version kept.
    Source {
        source: Source,
        prior: Option<(MemoryOf<CustomContext>, TextChange)>,
        text: Option<(String, Option<BuiltinsMemory>)>,
    },
    /// A text a writer checked: what its check gave and kept.
    Ready {
        checked: crate::pipeline::Checked<crate::runtime::values::custom::PreparedCustoms>,
        memory: Option<MemoryOf<CustomContext>>,
        text: String,
        builtins: Option<BuiltinsMemory>,
    },
}

/// Why a prefab file could not be read through the asset server.
fn read_reason(e: &bevy_asset::ReadAssetBytesError) -> String {
    match e {
        bevy_asset::ReadAssetBytesError::AssetReaderError(
            bevy_asset::io::AssetReaderError::NotFound(path),
        ) => format!("`{}` does not exist", path.display()),
        other => other.to_string(),
    }
}

/// The asset files the built-ins of a checked scene name, each with the problem reported when
/// the file is missing: the scene's own (and what its overrides set) at their fields in the
/// scene, each prefab file's own in that file; each place once.
fn asset_refs_of<B>(
    checked: &crate::pipeline::Checked<B>,
    files: &PrefabFiles<impl crate::pipeline::PrefabSource>,
) -> Vec<(String, Diagnostic)> {
    let parsed = &checked.source.parsed;
    let mut out = Vec::new();
    match &checked.expanded {
        None => out.extend(asset_refs(&parsed.doc.entities, &parsed.source_map)),
        // What the scene wrote or its overrides set; a prefab's own values are its file's
        // (the entities a prefab placed untouched are not looked at: a painted layer of
        // 10,000 cells is not walked for the few its overrides changed).
        Some(e) => {
            let mut keys: Vec<u64> = parsed.doc.entities.keys().copied().collect();
            keys.extend(e.overridden(parsed));
            let entities = keys
                .iter()
                .filter_map(|k| Some((k, e.doc.entities.get(k)?)));
            out.extend(
                asset_refs(entities, &parsed.source_map)
                    .into_iter()
                    .filter_map(|(file, d)| Some((file, e.locate(parsed, d)?))),
            );
        }
    }
    for (path, file) in files.placed_files(&parsed.doc) {
        if let Some(prefab) = &file.parsed {
            out.extend(
                asset_refs(&prefab.doc.entities, &prefab.source_map)
                    .into_iter()
                    .map(|(asset, mut d)| {
                        d.file = Some(path.to_owned());
                        (asset, d)
                    }),
            );
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|(_, d)| seen.insert((d.file.clone(), d.entity, d.path.clone())));
    out
}

/// The asset files the built-in components of `entities` name, entity by entity in their
/// order, each with the problem reported when it is missing (positions from `map`, when the
/// entities were read with it).
fn asset_refs<'a>(
    entities: impl IntoIterator<Item = (&'a u64, &'a Arc<EntityNode>)>,
    map: &crate::format::SourceMap,
) -> Vec<(String, Diagnostic)> {
    let mut refs = Vec::new();
    for (id, node) in entities {
        for (index, component) in node.components.iter().enumerate() {
            for (field, what, asset) in crate::format::builtin::assets(component) {
                if crate::project::check_asset_path(asset).is_err() {
                    continue; // reported by validation
                }
                let file = asset.split_once('#').map_or(asset, |(f, _)| f);
                let mut d = crate::validate::missing_asset(what, asset)
                    .with_entity(*id)
                    .with_path(format!("components[{index}].data.{field}"));
                d.position = map.component_field(*id, index, field);
                if let Some(help) = &mut d.help {
                    help.push_str(
                        "; `check_assets: false` in the loader settings skips this check",
                    );
                }
                refs.push((file.to_owned(), d));
            }
        }
    }
    refs
}

/// Files from this size on are read in pieces ([`StreamRead`]):
/// their text is never in memory whole. Smaller files are read whole, which is simpler and as
/// fast.
const STREAM_FROM: u64 = 1 << 20;

/// Reads a large file from a seekable `reader` in pieces. `None` (nothing read, or the reader
/// rewound to the start) when the file is small, the reader cannot seek, or the text has an
/// error: the caller then reads it whole, which reports errors exactly.
///
/// # Errors
/// An I/O error of the reader; [`StreamError::TooLarge`] for a size the reader cannot hold
/// (4 GiB and more: its positions are 32-bit), refused before anything is read, so a huge or
/// sparse file (or a directory, whose "size" is meaningless) never reserves memory for its size.
async fn read_streamed(
    reader: &mut dyn Reader,
    ticket: &LoadTicket,
) -> Result<Option<ParsedScene>, StreamError> {
    use bevy_asset::AsyncReadExt;
    let Some(len) = length_within(reader).await? else {
        return Ok(None);
    };
    if len < STREAM_FROM {
        return Ok(None);
    }
    ticket.opened(len);
    let mut counted = 0;
    let mut stream = StreamRead::new(usize::try_from(len).unwrap_or(0), 64 * 1024);
    loop {
        match stream.step() {
            StreamStep::Read => {
                // A whole piece per step, however little each read gives.
                let spare = stream.spare();
                let mut n = 0;
                while n < spare.len() {
                    match reader.read(&mut spare[n..]).await? {
                        0 => break,
                        got => n += got,
                    }
                }
                stream.filled(n);
                ticket.piece(n as u64);
                counted += n as u64;
            }
            StreamStep::Done(Some(parsed)) => return Ok(Some(*parsed)),
            StreamStep::Done(None) => {
                // Read again whole, and counted again.
                ticket.forget(len, counted);
                reader
                    .seekable()
                    .map_err(std::io::Error::other)?
                    .seek(std::io::SeekFrom::Start(0))
                    .await?;
                return Ok(None);
            }
        }
    }
}

/// Why a file could not be read in pieces.
enum StreamError {
    /// The reader failed.
    Io(std::io::Error),
    /// The file is this many bytes: more than a document may be.
    TooLarge(u64),
}

impl From<std::io::Error> for StreamError {
    fn from(e: std::io::Error) -> Self {
        StreamError::Io(e)
    }
}

/// The read error of a file of `size` bytes, more than the reader's spans reach.
fn too_large(path: &str, size: u64) -> ForgeSceneLoadError {
    let start = crate::format::Position {
        line: 1,
        column: 1,
        offset: 0,
    };
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    let kind = crate::format::ReadErrorKind::TooLarge { size };
    ForgeSceneLoadError::Read(ReadError::new(start, None, None, kind).with_path(path))
}

/// The whole file, refused before reading when it is larger than the reader's spans reach.
async fn read_whole_within(reader: &mut dyn Reader) -> Result<Vec<u8>, StreamError> {
    length_within(reader).await?;
    Ok(read_whole(reader).await?)
}

/// The length of a seekable reader's file, the reader rewound to its start: `None` when the
/// reader cannot seek, [`StreamError::TooLarge`] when the file is larger than the reader's
/// `u32` spans reach.
async fn length_within(reader: &mut dyn Reader) -> Result<Option<u64>, StreamError> {
    let Ok(seekable) = reader.seekable() else {
        return Ok(None);
    };
    let Ok(len) = seekable.seek(std::io::SeekFrom::End(0)).await else {
        return Ok(None);
    };
    seekable.seek(std::io::SeekFrom::Start(0)).await?;
    if len >= u64::from(u32::MAX) {
        // Something that reads at all (a directory does not) is too large.
        let mut first = [0u8; 1];
        bevy_asset::AsyncReadExt::read(reader, &mut first).await?;
        return Err(StreamError::TooLarge(len));
    }
    Ok(Some(len))
}

/// The whole file from the reader's position (a seekable reader is rewound to the start), in
/// one allocation of the file's size where the reader can tell it (a doubling buffer would
/// briefly hold twice the file).
async fn read_whole(reader: &mut dyn Reader) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if let Ok(seekable) = reader.seekable()
        && let Ok(len) = seekable.seek(std::io::SeekFrom::End(0)).await
    {
        seekable.seek(std::io::SeekFrom::Start(0)).await?;
        bytes.reserve_exact(usize::try_from(len).unwrap_or(0));
    }
    reader.read_to_end(&mut bytes).await?;
    Ok(bytes)
}
