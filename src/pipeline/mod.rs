//! The one way a scene goes from bytes to a checked document, which every consumer walks: the
//! scene loader (text and cooked), the asset processor, `forge validate`, `tree`, `cook` and
//! `export`, and the language server.
//!
//! ```text
//!  bytes ─▶ Source ──────────▶ check ─────────────────────────────▶ Checked ─▶ (runtime) prepare
//!           text or cooked     prefabs placed (each file read and            the document, its
//!           + where each       checked once, chains refused), every rule,     expansion, every
//!           value was written  references, custom components (schemas         diagnostic once, in
//!                              offline, the game's types in the loader)       the frame of its file
//! ```
//!
//! - [`Source`]: the bytes read ([`Source::read`] tells a cooked scene from text by its first
//!   byte; a damaged cooked file is said to be one).
//! - [`PrefabFiles`]: the prefab files a scene places, read through a [`PrefabSource`] (from
//!   disk for tools; fetched by the loader through the asset server, [`PrefabFiles::missing`]
//!   and [`PrefabFiles::provide`]), or given as documents (a cooked scene's bundle). Each file is
//!   read, parsed and checked once, as a scene is, and its problems stay in its own frame, told
//!   the chain of instances that placed it.
//! - [`check`]: a scene checked with its prefabs: a [`Checked`], whose diagnostics are every
//!   problem of the scene and of each prefab it places, each once, sorted as a
//!   [`ValidationReport`] sorts them. A problem a prefab
//!   placed twice has is reported once, in the prefab's file; a value an override changed is
//!   checked where the override is.
//!
//! The loader checks custom components by building them through the game's reflected types
//! (the same codes, messages and positions as `forge validate --schema`), on the app's task
//! pool for a large scene; then it prepares what spawning needs ([`ForgeScene`]).
//!
//! [`ForgeScene`]: crate::ForgeScene

mod files;
pub(crate) mod incremental;
pub(crate) mod rules;
mod source;

pub use files::{PrefabFile, PrefabFiles, PrefabSource};
pub use source::{Cooked, Source, SourceError};

use crate::prefab::ExpandedScene;
use crate::validate::Diagnostic;
use rules::{CustomRules, Offline};

/// A scene checked with the prefabs it places ([`check`]).
#[derive(Debug)]
pub struct Checked<B = ()> {
    /// The scene as read.
    pub source: Source,
    /// The scene with its prefab instances expanded, when it places any.
    pub expanded: Option<ExpandedScene>,
    /// Every problem of the scene and of each prefab file it places (directly or through
    /// others), each once: the scene's without a [`file`](Diagnostic::file), a prefab's naming
    /// its asset path; sorted by severity, then entity.
    pub diagnostics: Vec<Diagnostic>,
    /// What the loader's rules built (the custom component values).
    pub(crate) built: B,
}

impl<B> Checked<B> {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == crate::validate::Severity::Error)
    }

    /// What spawns: the expansion, or the document itself without instances.
    pub fn spawned(&self) -> &crate::format::SceneDoc {
        self.expanded
            .as_ref()
            .map_or(&self.source.parsed.doc, |e| &e.doc)
    }
}

/// Checks `source` with the prefab files it places, read through `files` (custom components
/// against `files`'s schema file when it has one, else their shape and references): what
/// `forge validate` reports. The scene is named by [`Source::name`], which prefab chains
/// start from (an asset path, for chains to name their files alike).
pub fn check<R>(source: Source, files: &mut PrefabFiles<R>) -> Checked
where
    R: PrefabSource,
{
    let schemas = files.schemas().cloned();
    check_with(source, files, &Offline(schemas.as_ref()), None)
}

/// What a check of a scene file keeps so that the next version of its text is checked again
/// only where it changed ([`check_keeping`], [`check_again`]): each entity's rules, the
/// expansion, each entity's custom component problems. It shares the document's entities
/// with the [`Checked`] it came with; its own size is about that of the diagnostics and the
/// expansion's index.
pub struct LastCheck {
    memory: incremental::SceneMemory<(), Option<crate::schema::SchemaFile>>,
}

impl std::fmt::Debug for LastCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LastCheck").finish_non_exhaustive()
    }
}

/// [`check`], keeping what [`check_again`] needs to check the file's next version in part
/// (`None` for a cooked scene, or when `files`'s schemas rename types: the document is rewritten
/// before it is checked, so the next version is checked whole).
pub fn check_keeping<R>(source: Source, files: &mut PrefabFiles<R>) -> (Checked, Option<LastCheck>)
where
    R: PrefabSource,
{
    let schemas = files.schemas().cloned();
    let (checked, memory) =
        incremental::check_scene(source, files, &Offline(schemas.as_ref()), None, None, true);
    (checked, memory.map(|memory| LastCheck { memory }))
}

/// Checks `source`, the next version of the file `last` was kept for, again only where its
/// text changed: `change` is the edit that made this text of the last one
/// ([`TextChange::between`](crate::format::TextChange::between), or what an editor reported).
/// The result is exactly what [`check`] gives for `source` (the same diagnostics in the same
/// order, the same expansion), with what the next check needs.
///
/// The entities whose entries the edit touched are checked again, with what depends on them;
/// where that cannot be bounded (another `format_version` line, other schemas or asset index,
/// another file, a cooked scene) the file is checked whole, which a `debug` trace line says.
/// `files` reads the prefab files as for [`check`]: a prefab whose expansion changed expands the
/// scene again whole and checks again the entities whose values changed.
pub fn check_again<R>(
    source: Source,
    files: &mut PrefabFiles<R>,
    last: LastCheck,
    change: crate::format::TextChange,
) -> (Checked, Option<LastCheck>)
where
    R: PrefabSource,
{
    let schemas = files.schemas().cloned();
    let (checked, memory) = incremental::check_scene(
        source,
        files,
        &Offline(schemas.as_ref()),
        None,
        Some((last.memory, change)),
        true,
    );
    (checked, memory.map(|memory| LastCheck { memory }))
}

/// [`check`] with `rules` for custom components, large scenes checked on `pool`'s threads.
pub(crate) fn check_with<R, C>(
    source: Source,
    files: &mut PrefabFiles<R>,
    rules: &C,
    pool: Option<&bevy_tasks::TaskPool>,
) -> Checked<C::Built>
where
    R: PrefabSource,
    C: CustomRules,
    C::Part: 'static,
{
    incremental::check_scene(source, files, rules, pool, None, false).0
}
