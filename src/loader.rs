//! The `.forge.ron` [`AssetLoader`]: text to a validated, ready-to-spawn [`ForgeScene`].

use std::path::Path;
use std::sync::Arc;

use bevy_asset::io::Reader;
use bevy_asset::{Asset, AssetLoader, AssetServer, AsyncSeekExt, LoadContext};
use bevy_reflect::TypePath;
use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Severity};
use crate::format::{ComponentData, MeshSource, ParsedScene, ReadError, SceneDoc, SourceMap};

/// A loaded scene: the document, everything spawning needs already resolved (asset handles, Bevy
/// component values) so spawning parses nothing, and, when the loader settings ask for it, where
/// each part of the document was written.
///
/// Produced by [`ForgeSceneLoader`] for files ending in `.forge.ron`. Primitive meshes are labeled
/// sub-assets `Mesh0`, `Mesh1`, ... (`garden.forge.ron#Mesh0`); identical primitives share one.
#[derive(Asset, TypePath, Debug)]
pub struct ForgeScene {
    pub(crate) doc: Arc<SceneDoc>,
    /// Kept when the loader settings ask for it ([`ForgeSceneLoaderSettings::keep_source_map`]).
    pub(crate) source_map: Option<SourceMap>,
    /// One entry per entity, in `doc.entities` order.
    pub(crate) prepared: PreparedBuiltins,
    /// The custom components of every entity, built at load time.
    pub(crate) custom: crate::custom::PreparedCustoms,
    /// Distinct materials of the scene; `mesh3d` components refer to them by index.
    pub(crate) materials: Vec<crate::format::MaterialData>,
    /// Set by [`ForgeScene::doc_mut`]: `prepared` no longer matches `doc`.
    pub(crate) stale: bool,
    /// While `stale`: the index in `prepared` and `custom` of each entity id of the document they
    /// were prepared from (the document before the first edit), so an instance spawned before
    /// the edit is prepared gets each entity's own values, never its neighbour's.
    pub(crate) prepared_index: Option<bevy_platform::collections::HashMap<u64, usize>>,
    /// The text hash of each entity entry, in `doc.entities` order, while `doc` is exactly what
    /// was read (`None` after [`ForgeScene::doc_mut`]). Hot reload skips entities whose entry
    /// text did not change.
    pub(crate) text_hashes: Option<Arc<[u64]>>,
}

impl ForgeScene {
    /// The scene document as read from the file (after `format_version` normalization).
    pub fn doc(&self) -> &SceneDoc {
        &self.doc
    }

    /// The document, for editing in memory (as an editor does). Editing goes through the same
    /// path as a file change: the `AssetEvent::Modified` this causes makes the plugin diff the
    /// last applied document against this one and patch every live instance. Positions in
    /// [`source_map`](Self::source_map) keep describing the file as it was read.
    pub fn doc_mut(&mut self) -> &mut SceneDoc {
        if !self.stale {
            self.prepared_index = Some(
                self.doc
                    .entities
                    .keys()
                    .enumerate()
                    .map(|(index, id)| (*id, index))
                    .collect(),
            );
        }
        self.stale = true;
        self.text_hashes = None;
        Arc::make_mut(&mut self.doc)
    }

    /// Where the prepared values of entity `id` (at `index` of the document) are: `index`, or
    /// while the document has edits not prepared yet, the entity's index when it was prepared
    /// (`None` for an entity added since).
    pub(crate) fn prepared_index(&self, id: u64, index: usize) -> Option<usize> {
        match (&self.prepared_index, self.stale) {
            (Some(map), true) => map.get(&id).copied(),
            _ => Some(index),
        }
    }

    /// The changes from `old` to this scene, as hot reload computes them: [`diff`] of the two
    /// documents, except that an entity whose entry is written byte for byte the same in both
    /// files is known unchanged without comparing it (when neither document was edited in
    /// memory since it was read). Apply them with
    /// [`reload::apply_diff`](crate::reload::apply_diff).
    ///
    /// [`diff`]: crate::diff::diff
    pub fn changes_since(&self, old: &ForgeScene) -> crate::diff::SceneDiff {
        crate::reload::AppliedDoc::of(old).changes_to(self)
    }

    /// Where each entity, field and component was written in the file, when the scene was
    /// loaded with [`keep_source_map`](ForgeSceneLoaderSettings::keep_source_map) (tools:
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
    components: Vec<crate::builtin::PreparedComponent>,
    /// Entity `i`'s components are `components[starts[i]..starts[i + 1]]`.
    #[cfg(feature = "builtins")]
    starts: Vec<u32>,
}

#[cfg(feature = "builtins")]
impl PreparedBuiltins {
    /// The built-in components of the entity at `index` of `doc.entities` (none when out of
    /// range).
    pub(crate) fn entity(&self, index: usize) -> &[crate::builtin::PreparedComponent] {
        match (self.starts.get(index), self.starts.get(index + 1)) {
            (Some(&a), Some(&b)) => self.components.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Settings of [`ForgeSceneLoader`] (set per load with `AssetServer::load_builder`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ForgeSceneLoaderSettings {
    /// Check that every sprite image and asset mesh the scene references exists in the asset
    /// source (default `true`). A missing file fails the load with its line and column.
    pub check_assets: bool,
    /// Keep the [`SourceMap`] in the loaded [`ForgeScene`] (default `false`), for tools that
    /// point from a loaded entity back to its line ([`ForgeScene::source_map`]). The map takes
    /// about as much memory as the document (roughly 400 bytes per entity in canonical files),
    /// so a game that only spawns scenes goes without it; load errors have their positions
    /// either way.
    pub keep_source_map: bool,
}

impl Default for ForgeSceneLoaderSettings {
    fn default() -> Self {
        Self {
            check_assets: true,
            keep_source_map: false,
        }
    }
}

/// Loads `.forge.ron` files as [`ForgeScene`]s. Registered by
/// [`ForgeScenePlugin`](crate::ForgeScenePlugin).
#[derive(TypePath, Clone)]
pub struct ForgeSceneLoader {
    server: AssetServer,
    custom: crate::custom::CustomContext,
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
        schemas: crate::schema::ForgeSchemas,
    ) -> Self {
        self.custom = crate::custom::CustomContext { registry, schemas };
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
    /// The document reads but fails validation (`validate_parsed`) or references missing
    /// assets; every error is listed with its line and column.
    #[error("`{path}` has {} error(s):\n{}", .diagnostics.len(), list(.diagnostics, .path))]
    Invalid {
        /// The asset path.
        path: String,
        /// Every error, in validation order (by entity id, then message).
        diagnostics: Vec<Diagnostic>,
    },
}

/// `  path:line:column: error[code]: message (entity N, `field`); help: ...`, one per line.
pub(crate) fn list(diagnostics: &[Diagnostic], path: &str) -> String {
    let mut out = String::new();
    for (i, d) in diagnostics.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("  ");
        out.push_str(path);
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
        let (parsed, report, custom, custom_errors) =
            match read_streamed(reader).await.map_err(io)? {
                Some(parsed) => {
                    let (report, (custom, mut custom_errors)) =
                        validate_and_prepare(&parsed, None, &self.custom);
                    if !custom_errors.is_empty() {
                        // Errors point inside custom expressions with the text: read it again.
                        let bytes = read_whole(reader).await.map_err(io)?;
                        let text = std::str::from_utf8(&bytes).ok();
                        custom_errors = crate::custom::prepare(&parsed, text, &self.custom).1;
                    }
                    (parsed, report, custom, custom_errors)
                }
                None => {
                    let bytes = read_whole(reader).await.map_err(io)?;
                    // Checked once here: the text is also needed to point inside custom expressions.
                    let text = std::str::from_utf8(&bytes).ok();
                    let parsed = match text {
                        Some(text) => SceneDoc::from_str(text),
                        // The reader reports where the bytes stop being UTF-8.
                        None => SceneDoc::from_slice(&bytes),
                    }
                    .map_err(|e| ForgeSceneLoadError::Read(e.with_path(&path)))?;
                    let (report, (custom, custom_errors)) =
                        validate_and_prepare(&parsed, text, &self.custom);
                    // The text is not needed past this point; a large scene's text is as large as
                    // its document, so it goes before anything else is built.
                    drop(bytes);
                    (parsed, report, custom, custom_errors)
                }
            };
        let mut errors = Vec::new();
        for d in report.diagnostics {
            match d.severity {
                Severity::Error => errors.push(d),
                Severity::Warning => {
                    tracing::warn!("{}", list(std::slice::from_ref(&d), &path).trim_start())
                }
                Severity::Info => {
                    tracing::debug!("{}", list(std::slice::from_ref(&d), &path).trim_start())
                }
            }
        }
        if settings.check_assets {
            errors.extend(self.missing_assets(&parsed, load_context).await);
        }
        errors.extend(custom_errors);
        if !errors.is_empty() {
            return Err(ForgeSceneLoadError::Invalid {
                path,
                diagnostics: errors,
            });
        }
        Ok(build(
            parsed,
            custom,
            load_context,
            &path,
            settings.keep_source_map,
        ))
    }

    fn extensions(&self) -> &[&str] {
        &["forge.ron"]
    }
}

impl ForgeSceneLoader {
    /// Referenced files that do not exist in the scene's asset source.
    async fn missing_assets(&self, parsed: &ParsedScene, ctx: &LoadContext<'_>) -> Vec<Diagnostic> {
        let mut problems = Vec::new();
        let Ok(source) = self.server.get_source(ctx.path().source().clone_owned()) else {
            return problems;
        };
        let mut checked = std::collections::HashMap::<String, bool>::new();
        for (id, node) in &parsed.doc.entities {
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
                let file = asset
                    .split_once('#')
                    .map_or(asset.as_str(), |(f, _)| f)
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
                    d.entity = Some(*id);
                    d.path = Some(format!("components[{index}].data.{field}"));
                    d.position = parsed.source_map.component_field(*id, index, field);
                    d.help = Some("paths are relative to the assets directory; `check_assets: false` in the loader settings skips this check".into());
                    problems.push(d);
                }
            }
        }
        problems
    }
}

/// Files from this size on are read in pieces ([`StreamRead`](crate::format::StreamRead)):
/// their text is never in memory whole. Smaller files are read whole, which is simpler and as
/// fast.
const STREAM_FROM: u64 = 1 << 20;

/// Reads a large file from a seekable `reader` in pieces. `None` (nothing read, or the reader
/// rewound to the start) when the file is small, the reader cannot seek, or the text has an
/// error: the caller then reads it whole, which reports errors exactly.
async fn read_streamed(reader: &mut dyn Reader) -> std::io::Result<Option<ParsedScene>> {
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
    let mut stream = crate::format::StreamRead::new(usize::try_from(len).unwrap_or(0), 64 * 1024);
    loop {
        match stream.step() {
            crate::format::StreamStep::Read => {
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
            crate::format::StreamStep::Done(Some(parsed)) => return Ok(Some(*parsed)),
            crate::format::StreamStep::Done(None) => {
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

/// Scenes from this many entities validate on a second thread while their custom components
/// are built (below it, starting a thread costs more than it saves).
const PARALLEL_FROM: usize = 5_000;

/// Validates `parsed` and builds its custom components. The two only read the document: for
/// large scenes they run side by side on two threads, where the platform has threads and more
/// than one core; otherwise one after the other. The results are the same either way.
fn validate_and_prepare(
    parsed: &ParsedScene,
    text: Option<&str>,
    cx: &crate::custom::CustomContext,
) -> (
    crate::validate::ValidationReport,
    (crate::custom::PreparedCustoms, Vec<Diagnostic>),
) {
    #[cfg(not(target_arch = "wasm32"))]
    if parsed.doc.entities.len() >= PARALLEL_FROM
        && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
    {
        let (report, custom) = std::thread::scope(|s| {
            let validation = std::thread::Builder::new()
                .name("forge scene validation".into())
                .spawn_scoped(s, || crate::validate::validate_parsed(parsed, None));
            let custom = crate::custom::prepare(parsed, text, cx);
            (validation.ok().and_then(|v| v.join().ok()), custom)
        });
        // No thread (or it failed): validate here.
        let report = report.unwrap_or_else(|| crate::validate::validate_parsed(parsed, None));
        return (report, custom);
    }
    (
        crate::validate::validate_parsed(parsed, None),
        crate::custom::prepare(parsed, text, cx),
    )
}

/// Resolves everything spawning needs.
fn build(
    parsed: ParsedScene,
    custom: crate::custom::PreparedCustoms,
    ctx: &mut LoadContext<'_>,
    path: &str,
    keep_source_map: bool,
) -> ForgeScene {
    let (prepared, materials) = prepare_entities(&parsed.doc, &parsed.source_map, ctx, path);
    let text_hashes = Some(Arc::from(parsed.source_map.entity_text_hashes()));
    ForgeScene {
        text_hashes,
        doc: Arc::new(parsed.doc),
        source_map: keep_source_map.then_some(parsed.source_map),
        prepared,
        custom,
        materials,
        stale: false,
        prepared_index: None,
    }
}

#[cfg(feature = "builtins")]
pub(crate) use crate::builtin::Sink as PrepareSink;

/// Without built-ins nothing needs assets.
#[cfg(not(feature = "builtins"))]
pub(crate) trait PrepareSink {}
#[cfg(not(feature = "builtins"))]
impl<T> PrepareSink for T {}

/// Prepares the built-in components of every entity of `doc` (in `doc.entities` order), and
/// collects the scene's materials. Custom components are built by `crate::custom::prepare`.
#[cfg_attr(not(feature = "builtins"), allow(unused_variables))]
pub(crate) fn prepare_entities(
    doc: &SceneDoc,
    source_map: &SourceMap,
    sink: &mut impl PrepareSink,
    path: &str,
) -> (PreparedBuiltins, Vec<crate::format::MaterialData>) {
    #[cfg(feature = "builtins")]
    let mut sub = crate::builtin::SubAssets::default();
    #[cfg_attr(feature = "builtins", allow(unused_mut))]
    let mut skipped_builtins = 0usize;
    #[cfg_attr(not(feature = "builtins"), allow(unused_mut))]
    let mut prepared = PreparedBuiltins::default();
    #[cfg(feature = "builtins")]
    prepared.starts.reserve_exact(doc.entities.len() + 1);
    for (id, node) in &doc.entities {
        #[cfg(feature = "builtins")]
        prepared
            .starts
            .push(u32::try_from(prepared.components.len()).unwrap_or(u32::MAX));
        for (index, component) in node.components.iter().enumerate() {
            if let ComponentData::Custom(_) = component {
                continue; // built by `crate::custom::prepare`
            }
            #[cfg(feature = "builtins")]
            match crate::builtin::prepare(component, sink, &mut sub) {
                Ok(Some(p)) => prepared.components.push(p),
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

/// Bevy's `Transform` of a file transform (Euler degrees to a quaternion, `EulerRot::XYZ`).
pub(crate) fn bevy_transform_of(
    t: &crate::format::Transform,
) -> bevy_transform::components::Transform {
    bevy_transform::components::Transform {
        translation: t.translation.into(),
        rotation: t.rotation_quat(),
        scale: t.scale.into(),
    }
}
