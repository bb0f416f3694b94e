//! The custom component rules a check applies, and how their work is shared among threads.
//!
//! Tools check custom components against a game's exported schema file, or only their shape
//! and references ([`Offline`]); the scene loader builds them through the game's reflected types
//! as it checks them (the runtime's rules, which keep what they built). Both go through
//! [`CustomRules`], one run of entities at a time, so a large scene is checked on several
//! threads where the app has a task pool.

use std::ops::Range;

use crate::format::{SceneDoc, SourceMap};
use crate::prefab::ExpandedScene;
use crate::schema::SchemaFile;
use crate::schema::renames::Renames;
use crate::validate::Diagnostic;
use crate::validate::custom::Referable;

/// How the custom components of one document are checked (and, for the runtime, built).
pub(crate) trait CustomRules: Sync {
    /// What checking one run of entities gives besides its diagnostics.
    type Part: Send;
    /// What the parts give together (kept with the last check of a scene: cheap to clone).
    type Built: Send + Clone;
    /// What [`context`](Self::context) gives.
    type Context: PartialEq + Send;

    /// Checks the custom components of the entities at `range` of `doc.entities` (read with
    /// `map`); references may name what `referable` holds. Diagnostics are in `doc`'s frame:
    /// its entity keys and `map`'s positions.
    fn check_part(
        &self,
        doc: &SceneDoc,
        range: Range<usize>,
        map: &SourceMap,
        referable: &Referable<'_>,
    ) -> (Self::Part, Vec<Diagnostic>);

    /// The parts of consecutive runs, in order.
    fn join(&self, parts: Vec<Self::Part>) -> Self::Built;

    /// The values of a new version's entities from those `kept` of the last version and those
    /// `fresh` built now (a part of the entities checked again, in order): `runs` says, for the
    /// new document's entities in order, where each stretch of them comes from.
    fn reuse(&self, kept: &Self::Built, fresh: Self::Part, runs: &[Run]) -> Self::Built;

    /// Whether values kept through many checks of new versions ([`reuse`](Self::reuse)) are in
    /// so many pieces that the next check should build them whole again.
    fn worn(&self, _built: &Self::Built, _entities: usize) -> bool {
        false
    }

    /// What the rules check against (the schemas, the game's types), as far as a check of a
    /// new version must know whether it changed since the last one: a change means every
    /// entity is checked again.
    fn context(&self) -> Self::Context;

    /// The old names of the custom component types and fields the rules know
    /// (`#[forge(renamed_from = "..")]`): what documents are rewritten with before they are
    /// checked.
    fn renames(&self) -> Renames;
}

/// The rules of tools: with a game's schema file, the loader's checks without the game
/// (`forge validate --schema`); without one, the shape of custom components and their entity
/// references.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Offline<'a>(pub(crate) Option<&'a SchemaFile>);

impl CustomRules for Offline<'_> {
    type Part = ();
    type Built = ();
    type Context = Option<SchemaFile>;

    fn check_part(
        &self,
        doc: &SceneDoc,
        range: Range<usize>,
        map: &SourceMap,
        referable: &Referable<'_>,
    ) -> ((), Vec<Diagnostic>) {
        let found = match self.0 {
            Some(schemas) => {
                crate::validate::custom::check_offline(doc, range, map, schemas, referable)
            }
            None => crate::validate::custom::check_references(doc, range, map, referable),
        };
        ((), found)
    }

    fn join(&self, _: Vec<()>) {}

    fn reuse(&self, _: &(), _: (), _: &[Run]) {}

    fn context(&self) -> Option<SchemaFile> {
        self.0.cloned()
    }

    fn renames(&self) -> Renames {
        self.0
            .map(|file| Renames::new(&file.components))
            .unwrap_or_default()
    }
}

/// A stretch of the entities of a new version whose values come from one place
/// ([`CustomRules::reuse`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Run {
    /// `len` entities whose values are kept: the last version's entities from index `from`.
    Kept {
        /// The first entity's index in the last version's document.
        from: usize,
        /// How many.
        len: usize,
    },
    /// `len` entities built now: the fresh part's entities from index `from`.
    Fresh {
        /// The first entity's index in the fresh part.
        from: usize,
        /// How many.
        len: usize,
    },
}

impl Run {
    /// Where each of the new document's entities comes from (`Ok`: its index in the last
    /// version, `Err`: its index in the fresh part), in order, as runs.
    pub(crate) fn runs(sources: impl IntoIterator<Item = Result<usize, usize>>) -> Vec<Run> {
        let mut runs: Vec<Run> = Vec::new();
        for source in sources {
            match (runs.last_mut(), source) {
                (Some(Run::Kept { from, len }), Ok(at)) if *from + *len == at => *len += 1,
                (Some(Run::Fresh { from, len }), Err(at)) if *from + *len == at => *len += 1,
                (_, Ok(at)) => runs.push(Run::Kept { from: at, len: 1 }),
                (_, Err(at)) => runs.push(Run::Fresh { from: at, len: 1 }),
            }
        }
        runs
    }
}

/// Scenes from this many entities are checked on several threads, when the caller has a task
/// pool (below it, handing out work costs more than it saves).
pub(crate) const PARALLEL_FROM: usize = 5_000;

/// The entities one task checks at a time, in a large scene: small enough that the tasks finish
/// close together, large enough that the parts are few.
pub(crate) const PART_LEN: usize = 4_096;

/// The entities references of `doc` may name: its own, and those `expanded` placed when `doc`
/// is its expansion.
pub(crate) fn referable<'a>(
    doc: &'a SceneDoc,
    expanded: Option<&'a ExpandedScene>,
) -> Referable<'a> {
    match expanded {
        Some(e) => e.referable(),
        None => Referable::own(doc),
    }
}

/// Runs `rules` over every entity of `doc` and `also` beside it: on the caller's thread, or for a
/// large document on `pool` (a task pool's scope: each run of [`PART_LEN`] entities is a task,
/// and the calling thread runs `also`, then takes runs with the pool's threads; the parts are kept
/// in order). The results are the same either way.
pub(crate) fn check_all<C: CustomRules, T>(
    rules: &C,
    doc: &SceneDoc,
    expanded: Option<&ExpandedScene>,
    map: &SourceMap,
    pool: Option<&bevy_tasks::TaskPool>,
    also: impl Fn() -> T,
) -> (C::Built, Vec<Diagnostic>, T)
where
    C::Part: 'static,
{
    let len = doc.entities.len();
    // A task pool of Bevy's built without threads runs its tasks one by one: no gain.
    let threads = cfg!(feature = "multi_threaded") && !cfg!(target_arch = "wasm32");
    let pool = pool.filter(|_| threads && len >= PARALLEL_FROM);
    let Some(pool) = pool else {
        let (part, errors) = rules.check_part(doc, 0..len, map, &referable(doc, expanded));
        return (rules.join(vec![part]), errors, also());
    };
    let runs = len.div_ceil(PART_LEN);
    let mut other = None;
    let parts = pool.scope(|s| {
        for run in 0..runs {
            s.spawn(async move {
                let range = run * PART_LEN..((run + 1) * PART_LEN).min(len);
                rules.check_part(doc, range, map, &referable(doc, expanded))
            });
        }
        other = Some(also());
    });
    // The scope gives its tasks' results in the order they were spawned.
    let mut errors = Vec::new();
    let mut built = Vec::with_capacity(runs);
    for (part, mut more) in parts {
        built.push(part);
        errors.append(&mut more);
    }
    (rules.join(built), errors, other.unwrap_or_else(also))
}
