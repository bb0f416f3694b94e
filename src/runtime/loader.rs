//! The `.forge.ron` [`AssetLoader`]: text to a validated, ready-to-spawn [`ForgeScene`].

use std::path::Path;

use bevy_asset::io::Reader;
use bevy_asset::{AssetLoadError, AssetLoader, AssetServer, AsyncSeekExt, LoadContext};
use bevy_reflect::TypePath;
use serde::{Deserialize, Serialize};

use super::custom::{CustomContext, PreparedCustoms, referable};
use super::registry::ForgeSchemas;
use super::scene::{ForgeScene, Prefabs, build};
use crate::cook::{CookError, CookedScene};
use crate::format::{
    ComponentData, EcoString, MeshSource, ParsedScene, ReadError, SceneDoc, StreamRead, StreamStep,
};
use crate::prefab::ExpandedScene;
use crate::validate::diagnostic::count_of;
use crate::validate::{Diagnostic, Severity, ValidationReport, validate_parsed};

/// Settings of [`ForgeSceneLoader`] (set per load with `AssetServer::load_builder`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ForgeSceneLoaderSettings {
    /// Check that every sprite image and asset mesh the scene references exists in the asset
    /// source (default `true`). A missing file fails the load with its line and column.
    pub check_assets: bool,
    /// Keep the [`SourceMap`](crate::format::SourceMap) in the loaded [`ForgeScene`] (default `false`), for tools that
    /// point from a loaded entity back to its line ([`ForgeScene::source_map`]). The map takes
    /// about as much memory as the document (roughly 400 bytes per entity in canonical files),
    /// so a game that only spawns scenes goes without it; load errors have their positions
    /// either way.
    pub keep_source_map: bool,
    /// The files of the chain of prefab instances above this load, the scene first (set for
    /// the loads of prefab files, to refuse cycles and too deep nesting).
    #[serde(skip)]
    prefab_chain: Vec<String>,
}

impl Default for ForgeSceneLoaderSettings {
    fn default() -> Self {
        Self {
            check_assets: true,
            keep_source_map: false,
            prefab_chain: Vec::new(),
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
}

impl ForgeSceneLoader {
    /// A loader that checks asset references through `server`'s asset sources. It knows no
    /// custom component types until [`with_custom_components`](Self::with_custom_components).
    pub fn new(server: AssetServer) -> Self {
        Self {
            server,
            custom: Default::default(),
        }
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
                "forge::read::io",
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
        let io = |source| ForgeSceneLoadError::Io {
            path: path.clone(),
            source,
        };
        let streamed = match read_streamed(reader).await {
            Ok(streamed) => streamed,
            Err(StreamError::Io(e)) => return Err(io(e)),
            Err(StreamError::TooLarge(size)) => {
                let start = crate::format::Position {
                    line: 1,
                    column: 1,
                    offset: 0,
                };
                let size = usize::try_from(size).unwrap_or(usize::MAX);
                let kind = crate::format::ReadErrorKind::TooLarge { size };
                let error = ReadError::new(start, None, None, kind).with_path(&path);
                return Err(ForgeSceneLoadError::Read(error));
            }
        };
        // The text is kept (small files) to point inside custom expressions; a streamed file's
        // text is read again only when a custom component has an error.
        let (parsed, bytes) = match streamed {
            Some(parsed) => (parsed, None),
            None => {
                let bytes = read_whole(reader).await.map_err(io)?;
                // The bytes say which form the file is in, whatever its extension.
                if crate::cook::is_cooked(&bytes) {
                    return self.load_cooked(bytes, path, settings, load_context).await;
                }
                let parsed = match std::str::from_utf8(&bytes) {
                    Ok(text) => SceneDoc::from_str(text),
                    // The reader reports where the bytes stop being UTF-8.
                    Err(_) => SceneDoc::from_slice(&bytes),
                }
                .map_err(|e| ForgeSceneLoadError::Read(e.with_path(&path)))?;
                (parsed, Some(bytes))
            }
        };
        let mut errors = Vec::new();
        let prefabs = if crate::prefab::has_instances(&parsed.doc) {
            self.load_prefabs(&parsed, settings, load_context, &mut errors)
                .await
        } else {
            Prefabs::default()
        };
        let (expanded, expand_diagnostics) =
            crate::prefab::expand(&parsed, &|scene| prefabs.scenes.get(scene).map(|e| &**e));
        // The text is not needed past this point (the source map locates expressions); a large
        // scene's text is as large as its document, so it goes before anything else is built.
        drop(bytes);
        let Checked {
            report,
            custom: (custom, mut custom_errors),
            assets,
        } = validate_and_prepare(
            &parsed,
            expanded.as_ref(),
            &self.custom,
            settings.check_assets,
        );
        let mut diagnostics = report.diagnostics;
        diagnostics.extend(expand_diagnostics);
        if let Some(expanded) = &expanded {
            diagnostics.extend(expanded.check_overridden(&parsed));
            custom_errors = custom_errors
                .into_iter()
                .filter_map(|d| expanded.locate(&parsed, d))
                .collect();
        }
        sort_out(diagnostics, &mut errors, &path);
        let scene = Built {
            parsed,
            expanded,
            prefabs,
            custom,
            assets,
        };
        self.finish(
            scene,
            errors,
            custom_errors,
            settings,
            load_context,
            path,
            false,
        )
        .await
    }

    fn extensions(&self) -> &[&str] {
        &["forge.ron", crate::cook::COOKED_EXTENSION]
    }
}

/// A scene read, expanded and prepared, waiting for its asset check ([`ForgeSceneLoader::finish`]).
struct Built {
    parsed: ParsedScene,
    expanded: Option<ExpandedScene>,
    prefabs: Prefabs,
    custom: PreparedCustoms,
    /// The asset paths its built-in components name, when the loader settings check them.
    assets: Option<Vec<AssetRef>>,
}

/// `diagnostics` without repeats: a prefab placed twice has the problems of its own content
/// found once per copy; they differ only in the id path their messages name.
fn dedup(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    // The message without its `entity [5, 1] ` part.
    fn unplaced(message: &str) -> std::borrow::Cow<'_, str> {
        match message.split_once("entity [") {
            Some((before, rest)) => match rest.split_once("] ") {
                Some((_, after)) => format!("{before}entity {after}").into(),
                None => message.into(),
            },
            None => message.into(),
        }
    }
    // Each kept problem of a prefab file, by what tells it apart: one lookup per diagnostic, where
    // comparing with every kept one took time growing with the square of their number.
    let mut kept = bevy_platform::collections::HashSet::new();
    diagnostics
        .into_iter()
        .filter(|d| {
            d.file.is_none()
                || kept.insert((
                    d.file.clone(),
                    d.entity,
                    d.code,
                    d.path.clone(),
                    unplaced(&d.message).into_owned(),
                ))
        })
        .collect()
}

/// Errors into `errors`; warnings and notes logged, naming `path`.
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
    /// Loads a cooked file ([`crate::cook`]): decoded, its bundled prefabs expanded, then
    /// validated and prepared as text is. Diagnostics have no positions (a cooked file has no
    /// source map); they name the cooked file and the text it was cooked from.
    async fn load_cooked(
        &self,
        bytes: Vec<u8>,
        path: String,
        settings: &ForgeSceneLoaderSettings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<ForgeScene, ForgeSceneLoadError> {
        let cooked = CookedScene::decode(&bytes).map_err(|source| ForgeSceneLoadError::Cooked {
            path: path.clone(),
            source,
        })?;
        drop(bytes);
        // The source name comes from the file: control characters are shown escaped.
        let named = format!("{path} (cooked from {})", cooked.source.escape_debug());
        let (parsed, bundled) = cooked.into_parts();
        let mut errors = Vec::new();
        let mut prefabs = Prefabs::default();
        let mut diagnostics = Vec::new();
        let expanded = if crate::prefab::has_instances(&parsed.doc) {
            let mut files = crate::prefab::PrefabFiles::new(|p: &str| {
                Err(format!("`{p}` is not bundled in the cooked file"))
            })
            .with_documents(bundled.iter().cloned());
            prefabs.docs = bundled
                .into_iter()
                .map(|(path, doc)| (EcoString::from(path), std::sync::Arc::new(doc)))
                .collect();
            let (expanded, found) = files.expand_scene(&path, &parsed);
            diagnostics.extend(found);
            for (file, prefab) in files.files() {
                errors.extend(
                    prefab
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity == Severity::Error)
                        .map(|d| {
                            let mut d = d.clone();
                            d.file.get_or_insert_with(|| file.to_owned());
                            d
                        }),
                );
            }
            for scene in crate::prefab::instance_scenes(&parsed.doc) {
                if let Some(e) = files.file(scene).and_then(|f| f.expanded.clone()) {
                    prefabs.scenes.insert(scene.into(), e);
                }
            }
            expanded
        } else {
            None
        };
        let Checked {
            report,
            custom: (custom, custom_errors),
            assets,
        } = validate_and_prepare(
            &parsed,
            expanded.as_ref(),
            &self.custom,
            settings.check_assets,
        );
        diagnostics.extend(report.diagnostics);
        sort_out(diagnostics, &mut errors, &named);
        // No prefab file is loaded: problems in a bundled prefab's content are reported here,
        // naming the prefab (a text load reports them through the prefab's own load).
        let custom_errors = match &expanded {
            Some(e) => dedup(
                custom_errors
                    .into_iter()
                    .map(|d| e.locate_or_in_prefab(&parsed, d))
                    .collect(),
            ),
            None => custom_errors,
        };
        let scene = Built {
            parsed,
            expanded,
            prefabs,
            custom,
            assets,
        };
        self.finish(
            scene,
            errors,
            custom_errors,
            settings,
            load_context,
            named,
            true,
        )
        .await
    }

    /// The end of a load, from text or cooked bytes: asset references checked, then every
    /// error together (`path` naming the file in the message), or the scene built. With
    /// `bundled` (a cooked scene), a missing asset of a prefab's own content is reported here.
    #[allow(clippy::too_many_arguments)]
    async fn finish(
        &self,
        scene: Built,
        mut errors: Vec<Diagnostic>,
        custom_errors: Vec<Diagnostic>,
        settings: &ForgeSceneLoaderSettings,
        load_context: &mut LoadContext<'_>,
        path: String,
        bundled: bool,
    ) -> Result<ForgeScene, ForgeSceneLoadError> {
        let Built {
            parsed,
            expanded,
            prefabs,
            custom,
            assets,
        } = scene;
        if settings.check_assets {
            let assets = assets
                .unwrap_or_else(|| asset_refs(expanded.as_ref().map_or(&parsed.doc, |e| &e.doc)));
            let missing = self
                .missing_assets(assets, &parsed.source_map, load_context)
                .await;
            errors.extend(match &expanded {
                Some(e) if bundled => dedup(
                    missing
                        .into_iter()
                        .map(|d| e.locate_or_in_prefab(&parsed, d))
                        .collect(),
                ),
                Some(e) => missing
                    .into_iter()
                    .filter_map(|d| e.locate(&parsed, d))
                    .collect(),
                None => missing,
            });
        }
        errors.extend(custom_errors);
        if !errors.is_empty() {
            return Err(ForgeSceneLoadError::Invalid {
                path,
                diagnostics: errors,
            });
        }
        let asset_path = load_context.path().to_string();
        Ok(build(
            parsed,
            expanded,
            prefabs,
            custom,
            load_context,
            &asset_path,
            settings.keep_source_map,
        ))
    }

    /// Loads, as dependencies of this load, each prefab file `parsed` places (once per file,
    /// shared by its instances), already expanded. Problems go to `errors` at the instance's
    /// `scene`: a chain of instances that comes back to a file or is too deep, and a prefab that
    /// does not load (with its own diagnostics, each naming the prefab file).
    async fn load_prefabs(
        &self,
        parsed: &ParsedScene,
        settings: &ForgeSceneLoaderSettings,
        ctx: &mut LoadContext<'_>,
        errors: &mut Vec<Diagnostic>,
    ) -> Prefabs {
        let own = ctx.path().path().to_string_lossy().replace('\\', "/");
        let mut chain = settings.prefab_chain.clone();
        chain.push(own);
        let mut prefabs = Prefabs::default();
        for scene in crate::prefab::instance_scenes(&parsed.doc) {
            // The first instance entity that places it, to point at.
            let placed_by = parsed
                .doc
                .entities
                .values()
                .find(|n| n.instance.as_ref().is_some_and(|i| i.scene == scene))
                .map_or(0, |n| n.id);
            let at = |d: Diagnostic| {
                let mut d = d.with_entity(placed_by).with_path("instance.scene");
                d.position = parsed.source_map.instance_scene(placed_by);
                d
            };
            if let Some(problem) = crate::prefab::chain_problem(&chain, scene) {
                errors.push(at(problem));
                continue;
            }
            if crate::project::check_asset_path(scene).is_err() || !scene.ends_with(".forge.ron") {
                continue; // reported by validation
            }
            let nested = chain.clone();
            let loaded = ctx
                .load_builder()
                .with_settings(move |s: &mut ForgeSceneLoaderSettings| {
                    s.prefab_chain.clone_from(&nested);
                })
                .load_value::<ForgeScene>(scene.to_owned())
                .await;
            match loaded {
                Ok(asset) => {
                    let prefab = asset.get();
                    for file in std::iter::once(scene)
                        .chain(prefab.prefabs.files.iter().map(|f| f.as_str()))
                    {
                        if !prefabs.files.iter().any(|f| f == file) {
                            prefabs.files.push(file.into());
                        }
                    }
                    prefabs.scenes.insert(scene.into(), prefab.expansion());
                    // The file this scene places itself wins over a copy a prefab bundled (a
                    // cooked prefab carries the prefabs it was cooked with).
                    prefabs.docs.retain(|(f, _)| f != scene);
                    prefabs.docs.push((scene.into(), prefab.doc.clone()));
                    for (file, doc) in &prefab.prefabs.docs {
                        let direct =
                            crate::prefab::instance_scenes(&parsed.doc).contains(&file.as_str());
                        if !direct && !prefabs.docs.iter().any(|(f, _)| f == file) {
                            prefabs.docs.push((file.clone(), doc.clone()));
                        }
                    }
                }
                Err(e) => {
                    let inner = match &e {
                        bevy_asset::LoadDirectError::LoadError { error, .. } => {
                            ForgeSceneLoadError::from_asset_error(error)
                        }
                        _ => None,
                    };
                    let nested = inner.map(|i| i.diagnostics()).unwrap_or_default();
                    errors.push(at(match nested.len() {
                        // Not a scene's own failure: the file is missing or unreadable.
                        0 => Diagnostic::new(
                            Severity::Error,
                            "forge::prefab::unreadable",
                            format!("prefab `{scene}` cannot be read: {}", reason(&e)),
                        )
                        .with_help(
                            "prefab paths are relative to the assets directory, like `prefabs/goblin.forge.ron`",
                        ),
                        n => Diagnostic::new(
                            Severity::Error,
                            "forge::prefab::invalid",
                            format!(
                                "prefab `{scene}` did not load: {} in it",
                                count_of(n, "error")
                            ),
                        ),
                    }));
                    errors.extend(nested.into_iter().map(|mut d| {
                        d.file.get_or_insert_with(|| scene.to_owned());
                        d
                    }));
                }
            }
        }
        // Prefabs inside prefabs: reading them makes them this load's dependencies too, so an
        // edit of any file of the chain reloads this scene.
        let direct: Vec<&str> = crate::prefab::instance_scenes(&parsed.doc);
        for file in &prefabs.files {
            if !direct.contains(&file.as_str()) {
                let _ = ctx.read_asset_bytes(file.to_string()).await;
            }
        }
        prefabs
    }

    /// The files `assets` name that do not exist in the scene's asset source, each reported at
    /// the field that names it (each file is looked up once).
    async fn missing_assets(
        &self,
        assets: Vec<AssetRef>,
        map: &crate::format::SourceMap,
        ctx: &LoadContext<'_>,
    ) -> Vec<Diagnostic> {
        let mut problems = Vec::new();
        let Ok(source) = self.server.get_source(ctx.path().source().clone_owned()) else {
            return problems;
        };
        let mut checked = std::collections::HashMap::<String, bool>::new();
        for AssetRef {
            entity,
            component,
            field,
            path,
        } in assets
        {
            let file = path
                .split_once('#')
                .map_or(path.as_str(), |(f, _)| f)
                .to_owned();
            let exists = match checked.get(&file) {
                Some(e) => *e,
                None => {
                    let e = source.reader().read(Path::new(&file)).await.is_ok();
                    checked.insert(file.clone(), e);
                    e
                }
            };
            if !exists {
                let mut d = Diagnostic::new(
                    Severity::Error,
                    "forge::asset::missing",
                    format!("asset `{file}` does not exist in the asset source"),
                );
                d.entity = Some(entity);
                d.path = Some(format!("components[{component}].data.{field}"));
                d.position = map.component_field(entity, component, field);
                d.help = Some("paths are relative to the assets directory; `check_assets: false` in the loader settings skips this check".into());
                problems.push(d);
            }
        }
        problems
    }
}

/// An asset path a built-in component of a scene names, to check that the file exists.
struct AssetRef {
    /// The entity's key.
    entity: u64,
    /// The component's index in the entity's list.
    component: usize,
    /// The field that names the asset, below the component's `data`.
    field: &'static str,
    /// The path as written (a `#label` included), valid (others are validation's to report).
    path: String,
}

/// The asset paths the built-in components of `doc` name, entity by entity, in file order.
fn asset_refs(doc: &SceneDoc) -> Vec<AssetRef> {
    let mut refs = Vec::new();
    for (id, node) in &doc.entities {
        for (index, component) in node.components.iter().enumerate() {
            let (field, asset) = match component {
                ComponentData::Sprite(s) => match &s.image {
                    Some(image) => ("image", image),
                    None => continue,
                },
                ComponentData::Mesh3d(m) => match &m.mesh {
                    MeshSource::Asset(path) => ("mesh.value", path),
                    MeshSource::Primitive(_) => continue,
                },
                _ => continue,
            };
            if crate::project::check_asset_path(asset).is_err() {
                continue; // reported by validation
            }
            refs.push(AssetRef {
                entity: *id,
                component: index,
                field,
                path: asset.clone(),
            });
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
async fn read_streamed(reader: &mut dyn Reader) -> Result<Option<ParsedScene>, StreamError> {
    use bevy_asset::AsyncReadExt;
    let Ok(seekable) = reader.seekable() else {
        return Ok(None);
    };
    let Ok(len) = seekable.seek(std::io::SeekFrom::End(0)).await else {
        return Ok(None);
    };
    seekable.seek(std::io::SeekFrom::Start(0)).await?;
    if len < STREAM_FROM {
        return Ok(None);
    }
    if len >= u64::from(u32::MAX) {
        // Something that reads at all (a directory does not) is too large.
        let mut first = [0u8; 1];
        reader.read(&mut first).await?;
        return Err(StreamError::TooLarge(len));
    }
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
            }
            StreamStep::Done(Some(parsed)) => return Ok(Some(*parsed)),
            StreamStep::Done(None) => {
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

/// Why a nested load failed, without the asset server's wrapping.
fn reason(e: &bevy_asset::LoadDirectError) -> String {
    match e {
        bevy_asset::LoadDirectError::LoadError { error, .. } => match &**error {
            AssetLoadError::AssetReaderError(bevy_asset::io::AssetReaderError::NotFound(path)) => {
                format!("`{}` does not exist", path.display())
            }
            other => other.to_string(),
        },
        other => other.to_string(),
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

/// Scenes from this many entities validate and build their custom components on several threads,
/// one per core up to [`MOST_THREADS`] (below it, starting threads costs more than it saves).
const PARALLEL_FROM: usize = 5_000;

/// The entities whose custom components one thread builds at a time, in a large scene: small
/// enough that the threads finish close together, large enough that the parts are few.
const PART_LEN: usize = 4_096;

/// The most threads that validate and build (this one included), so that one large load does
/// not take every core of a large machine from the game.
const MOST_THREADS: usize = 8;

/// What [`validate_and_prepare`] gives.
struct Checked {
    report: ValidationReport,
    /// The custom components and the problems building them.
    custom: (PreparedCustoms, Vec<Diagnostic>),
    /// The asset paths to check, when asked for.
    assets: Option<Vec<AssetRef>>,
}

/// Validates `parsed`, builds its custom components and, when `assets` asks, lists the asset
/// paths its built-ins name ([`asset_refs`]), all of its expansion when it places prefabs (but
/// validation, of the file's own document). All three only read the documents. For a large
/// scene, where the platform has threads and more than one core, they run on several: one
/// thread validates and lists the assets, then joins the others building the custom
/// components of runs of [`PART_LEN`] entities, each thread taking the next run nobody has
/// taken; the parts are kept in order, side by side (nothing is copied to join them). The
/// results are the same on one thread or several.
fn validate_and_prepare(
    parsed: &ParsedScene,
    expanded: Option<&ExpandedScene>,
    cx: &CustomContext,
    assets: bool,
) -> Checked {
    // The document whose values are built and whose assets are listed.
    let doc = expanded.map_or(&parsed.doc, |e| &e.doc);
    let validate = || {
        let report = validate_parsed(parsed, None);
        let assets = assets.then(|| asset_refs(doc));
        (report, assets)
    };
    let len = doc.entities.len();
    let threads = if cfg!(target_arch = "wasm32") || len < PARALLEL_FROM {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(MOST_THREADS))
    };
    if threads < 2 {
        let (_, referable) = referable(parsed, expanded);
        let custom = super::custom::prepare(doc, &parsed.source_map, cx, &referable);
        let (report, assets) = validate();
        return Checked {
            report,
            custom,
            assets,
        };
    }
    use std::sync::atomic::{AtomicUsize, Ordering};
    let parts = len.div_ceil(PART_LEN);
    // Builds run `part` (entities `part * PART_LEN..`).
    let run = |part: usize, referable: &_| {
        let range = part * PART_LEN..((part + 1) * PART_LEN).min(len);
        super::custom::prepare_part(doc, range, &parsed.source_map, cx, referable)
    };
    let next = AtomicUsize::new(0);
    // Takes runs until none is left: (run number, its part).
    let build = || {
        let (_, referable) = referable(parsed, expanded);
        let mut built = Vec::new();
        loop {
            let part = next.fetch_add(1, Ordering::Relaxed);
            if part >= parts {
                return built;
            }
            built.push((part, run(part, &referable)));
        }
    };
    let (checked, mut built) = std::thread::scope(|s| {
        let thread = |name: &str| std::thread::Builder::new().name(name.into());
        let validator = thread("forge scene validation")
            .spawn_scoped(s, || (Some(validate()), build()))
            .ok();
        let helpers: Vec<_> = (2..threads)
            .filter_map(|_| {
                thread("forge scene preparation")
                    .spawn_scoped(s, || (None, build()))
                    .ok()
            })
            .collect();
        let mut built = build();
        let mut checked = None;
        // A thread that could not start or that failed leaves its work to this one (below).
        for handle in validator.into_iter().chain(helpers) {
            if let Ok((c, mut theirs)) = handle.join() {
                checked = checked.or(c);
                built.append(&mut theirs);
            }
        }
        (checked, built)
    });
    let (report, assets) = checked.unwrap_or_else(validate);
    built.sort_unstable_by_key(|(part, _)| *part);
    // Runs a failed thread took and did not give back are built here.
    let (_, referable) = referable(parsed, expanded);
    let mut built = built.into_iter().peekable();
    let joined = (0..parts)
        .map(|part| match built.next_if(|(p, _)| *p == part) {
            Some((_, p)) => p,
            None => run(part, &referable),
        })
        .collect();
    Checked {
        report,
        custom: super::custom::join(joined),
        assets,
    }
}
