//! Three-way merges of scene files by id, not by line: what `forge merge` (a git merge driver)
//! does with `.forge.ron` files (the guide's "Merging scenes" page).
//!
//! [`merge`] takes the common ancestor (`base`), this branch's text (`ours`, the file git asks
//! to be written) and the other branch's (`theirs`), and merges them by meaning:
//!
//! - **entities by id**; within an entity its name, each transform part (`translation`,
//!   `rotation`, `scale`), `locked`, each component by key (a built-in field by field, a
//!   custom component field by field and its `value`), and its instance (`scene`, `model`,
//!   `streaming`, each override by target and field);
//! - **where entities sit** (`parent`, each `children` list as a set with an order, `roots`,
//!   overrides' `children`): each entity's place is merged like a value, then each list takes
//!   the order of the branch that reordered it, with what the other branch put in after the
//!   entity it follows there;
//! - **tile layers** by id, their fields, palette keys and overrides, and their cells one by
//!   one; the scene's `name`; `next_id` (above every id);
//! - a **deletion** stands unless the other branch changed something in what was deleted.
//!
//! A change on one side only is taken; the same change on both sides is taken once; different
//! changes of one value are a **conflict**: the file keeps this branch's value, followed by a
//! marker comment holding the other branch's (`/* forge-merge: theirs = 4.0 */`, the format
//! page, "Merge conflict markers"). The file still reads, and validation (so `forge validate`
//! and the loader) reports each marker as an error, `forge::merge::conflict`, at its line and
//! column until it is removed; [`resolve`] takes one side of a marker (`forge lsp` offers both
//! as code actions).
//!
//! **Ids added on both branches.** Both branches allocate from the same `next_id`, so two new
//! entities (or tile layers) often get one id. The other branch's are renumbered above both
//! branches' `next_id`, in its file order, and every mention in its text is rewritten first:
//! entity keys and `id`s, `parent`, `children`, `roots`, overrides' `children`, layer ids and
//! parents, and `#id` and `#id/..` references in custom values (overrides' included).
//! [`Merged::renumbered`] lists each. A file elsewhere that names a renumbered entity by id
//! path (an override of a prefab placing this scene) cannot be seen from this one: the report
//! says so.
//!
//! **Bytes.** The result is this branch's text with the merged changes made where they are,
//! as the edit layer makes them ([`crate::edit`]): a value the other branch changed in an
//! entity this branch also changed is written canonically in place; an entity only the other
//! branch changed, or added, arrives as the other branch wrote it, with the comment lines
//! above it. This branch's comments stay where they are. Nothing is written canonically as a
//! whole.
//!
//! ```
//! use bevy_forge_scene::merge::merge;
//!
//! let base = r#"(format_version: 1, name: "Garden", entities: {
//!     1: (id: 1, name: "Tree", parent: None, children: [], components: [],
//!         transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))),
//! }, roots: [1], next_id: 2)"#;
//! let ours = base.replace("\"Tree\"", "\"Oak\"");
//! let theirs = base.replace("translation: (x: 0", "translation: (x: 4");
//! let merged = merge(base, &ours, &theirs)?;
//! assert!(merged.conflicts.is_empty());
//! assert!(merged.text.contains("\"Oak\"") && merged.text.contains("translation: (x: 4.0"));
//! # Ok::<(), bevy_forge_scene::merge::MergeError>(())
//! ```

mod entity;
mod forest;
mod layers;
mod pick;
mod renumber;
mod resolve;
mod text;

use std::fmt::Write as _;

use bevy_platform::collections::HashMap;

use crate::format::{ParsedScene, Position, ReadError, ReadWarningKind, SceneDoc, marker};

pub use pick::Side;
pub use resolve::{ResolveError, resolve};

/// A conflict left in the merged text: where its marker is, and what both branches changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The marker's line and column in [`Merged::text`] (1-based; offsets after a byte-order
    /// mark).
    pub position: Position,
    /// The entity whose entry holds the marker, if one does.
    pub entity: Option<u64>,
    /// The marker's words (`theirs = 4.0`, `theirs removes this`, `theirs keeps ..`).
    pub note: String,
    /// What both branches changed, in words (`entity 4 "Lamp": name`); several when one marker
    /// holds several conflicts (a value inside another's).
    pub what: Vec<String>,
}

/// An id of the other branch's that this branch also gave to something new: the other
/// branch's entity (or tile layer) now has `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renumbered {
    /// The id the other branch gave it.
    pub old: u64,
    /// Its id in the merged scene.
    pub new: u64,
    /// Its name.
    pub name: String,
    /// Whether it is a tile layer (else an entity).
    pub layer: bool,
}

/// What [`merge`] made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The merged scene's text: this branch's text (and byte-order mark) with the merge made
    /// in place, and a marker after each conflict.
    pub text: String,
    /// The conflicts left, in text order.
    pub conflicts: Vec<Conflict>,
    /// The other branch's new ids given new ones, in its file order.
    pub renumbered: Vec<Renumbered>,
}

impl Merged {
    /// Whether no conflict is left.
    pub fn is_clean(&self) -> bool {
        self.conflicts.is_empty()
    }

    /// The merge in words, for a terminal: each conflict at its line, then each renumbering.
    /// `file` names the scene (`levels/garden.forge.ron`).
    pub fn report(&self, file: &str) -> String {
        let mut out = String::new();
        let count = |n: usize, one: &str, many: &str| match n {
            1 => format!("1 {one}"),
            n => format!("{n} {many}"),
        };
        if self.conflicts.is_empty() {
            let _ = writeln!(out, "forge merge: `{file}` merged by id, no conflict");
        } else {
            let _ = writeln!(
                out,
                "forge merge: `{file}` merged by id with {} left (each marked `/* forge-merge: .. */`; `forge validate` shows them, `forge lsp` resolves them)",
                count(self.conflicts.len(), "conflict", "conflicts")
            );
        }
        for c in &self.conflicts {
            let what = match c.what.as_slice() {
                [] => "a marker already in the file".to_owned(),
                whats => whats.join("; "),
            };
            let _ = writeln!(
                out,
                "  {file}:{}:{}: conflict: {what} ({})",
                c.position.line,
                c.position.column,
                c.note_short()
            );
        }
        for r in &self.renumbered {
            let kind = if r.layer { "tile layer" } else { "entity" };
            let _ = writeln!(
                out,
                "  renumbered: the other branch's {kind} {} {:?} is {} here (both branches added an id {}; every mention in this file was rewritten)",
                r.old, r.name, r.new, r.old
            );
        }
        if self.renumbered.iter().any(|r| !r.layer) {
            let _ = writeln!(
                out,
                "  note: a file elsewhere that names a renumbered entity by id path (an override target of an instance placing this scene, a `#id/..` reference) still says the old id: check the files that place this scene"
            );
        }
        out
    }
}

impl Conflict {
    /// The marker's words, shortened for one line.
    fn note_short(&self) -> String {
        let n: String = self.note.chars().take(80).collect();
        if n.len() < self.note.len() {
            format!("{n}...")
        } else {
            n
        }
    }
}

/// Why a merge could not be made. Nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// One of the three texts does not read as a scene.
    #[error("{which}: {error}")]
    Read {
        /// Which text: `base`, `ours` or `theirs`.
        which: &'static str,
        /// Why it does not read, with its line and column.
        error: ReadError,
    },
    /// The merged text could not be made in place (a layout the edit layer does not follow),
    /// or did not read back as the merged document. Says which part.
    #[error("the merge could not be written in place: {0}")]
    InPlace(String),
}

const BOM: &str = "\u{feff}";

/// Whether two documents are the same (a NaN is not equal to itself, but writes the same).
fn same_doc(a: &SceneDoc, b: &SceneDoc) -> bool {
    a == b || a.to_canonical_string() == b.to_canonical_string()
}

/// Merges `ours` and `theirs`, the texts of two branches, from their common ancestor `base`.
/// See the module docs.
///
/// # Errors
/// [`MergeError::Read`] when a text does not read (a merge of a file with git's conflict
/// markers names them); [`MergeError::InPlace`] when the merged text cannot be made in place.
pub fn merge(base: &str, ours: &str, theirs: &str) -> Result<Merged, MergeError> {
    let bom = ours.starts_with(BOM);
    fn strip(t: &str) -> &str {
        t.strip_prefix(BOM).unwrap_or(t)
    }
    let (base, ours, theirs) = (strip(base), strip(ours), strip(theirs));
    let read = |which: &'static str, text: &str| {
        SceneDoc::from_str(text).map_err(|error| MergeError::Read { which, error })
    };
    // The three reads side by side.
    let (b, o, t) = std::thread::scope(|scope| {
        let b = scope.spawn(|| read("base", base));
        let t = scope.spawn(|| read("theirs", theirs));
        let o = read("ours", ours);
        let join = |h: std::thread::ScopedJoinHandle<'_, Result<ParsedScene, MergeError>>| {
            h.join()
                .unwrap_or_else(|_| Err(MergeError::InPlace("a read stopped".to_owned())))
        };
        (join(b), o, join(t))
    });
    let (b, o, t) = (b?, o?, t?);
    // The merge of a text that reads as `parsed` (when read already): its markers are read
    // only when it has any.
    let done = |text: String,
                parsed: Option<&ParsedScene>,
                renumbered: Vec<Renumbered>|
     -> Result<Merged, MergeError> {
        let marked = memchr::memmem::find(text.as_bytes(), marker::PREFIX.as_bytes()).is_some();
        let conflicts = match (marked, parsed) {
            (false, _) => Vec::new(),
            (true, Some(p)) => conflicts(p, &[]),
            (true, None) => conflicts(&text::read(&text).map_err(MergeError::InPlace)?, &[]),
        };
        let text = if bom { format!("{BOM}{text}") } else { text };
        Ok(Merged {
            text,
            conflicts,
            renumbered,
        })
    };
    // One side unchanged: the other side's text.
    if theirs == base || theirs == ours {
        return done(ours.to_owned(), Some(&o), Vec::new());
    }
    if ours == base {
        return done(theirs.to_owned(), Some(&t), Vec::new());
    }
    // Ids both branches gave to new things: the other branch's renumbered (in its document,
    // and as edits of its text for the entries taken as it wrote them).
    let collisions = renumber::collisions(&b.doc, &o.doc, &t.doc);
    let renumbered = collisions
        .iter()
        .map(|(old, new)| {
            let (name, layer) = match t.doc.entity(*old) {
                Some(e) => (e.name.to_string(), false),
                None => (
                    t.doc
                        .layer(*old)
                        .map(|l| l.name.to_string())
                        .unwrap_or_default(),
                    true,
                ),
            };
            Renumbered {
                old: *old,
                new: *new,
                name,
                layer,
            }
        })
        .collect();
    let map: HashMap<u64, u64> = collisions.iter().copied().collect();
    let old_ids: HashMap<u64, u64> = collisions.iter().map(|(old, new)| (*new, *old)).collect();
    let (theirs_doc, rewritten, renumbering) = if map.is_empty() {
        (None, Default::default(), Some(Vec::new()))
    } else {
        let (doc, rewritten) = renumber::renumbered(&t.doc, &map);
        (Some(doc), rewritten, renumber::edits(theirs, &t, &map))
    };
    let theirs_doc = theirs_doc.as_ref().unwrap_or(&t.doc);
    // Entries written alike on both branches (and not renumbered) are the same entity: the
    // reader's hashes tell, without comparing the entities.
    let written_alike = |id: u64| {
        !rewritten.contains(&id)
            && match (
                o.source_map.entities.get(&id),
                t.source_map.entities.get(&id),
            ) {
                (Some(x), Some(y)) => {
                    x.text_hash == y.text_hash
                        && x.entry.end - x.entry.start == y.entry.end - y.entry.start
                }
                _ => false,
            }
    };
    let (m, clashes) = forest::merge_docs(&b.doc, &o.doc, theirs_doc, Side::Ours, &written_alike);
    let keep_layers = clashes.iter().any(|c| c.place == pick::Place::Layers);
    let first = text::rewrite(ours, &o, &m, keep_layers).map_err(MergeError::InPlace)?;
    let p1 = text::read(&first).map_err(MergeError::InPlace)?;
    if !same_doc(&p1.doc, &m) {
        return Err(MergeError::InPlace(
            "the merged text reads as another document".to_owned(),
        ));
    }
    let sources = text::Sources {
        base: (base, &b),
        ours: (ours, &o),
        theirs: renumbering.is_some().then_some((theirs, &t)),
        theirs_doc,
        theirs_ids: (&old_ids, renumbering.as_deref().unwrap_or_default()),
    };
    // The entries taken as the other branch wrote them read as the merged document's by
    // construction (each reads as the other branch's entity, which the merged one equals); the
    // text is read again only to place markers.
    let written = text::theirs_as_written(&first, &p1, &sources);
    if clashes.is_empty() {
        debug_assert!(
            text::read(&written).is_ok_and(|p| same_doc(&p.doc, &m)),
            "{written}"
        );
        let unchanged = first == written;
        return done(written, unchanged.then_some(&p1), renumbered);
    }
    let (second, p2) = match text::read(&written) {
        Ok(p) if written != first && same_doc(&p.doc, &m) => (written, p),
        _ => (first, p1),
    };
    let (mt, _) = forest::merge_docs(&b.doc, &o.doc, theirs_doc, Side::Theirs, &written_alike);
    let (marked, whats) = text::mark(&second, &p2, &mt, &clashes);
    let parsed = text::read(&marked).map_err(MergeError::InPlace)?;
    if !same_doc(&parsed.doc, &m) {
        return Err(MergeError::InPlace(
            "the marked text reads as another document".to_owned(),
        ));
    }
    let conflicts = conflicts(&parsed, &whats);
    let text = if bom {
        format!("{BOM}{marked}")
    } else {
        marked
    };
    Ok(Merged {
        text,
        conflicts,
        renumbered,
    })
}

/// The conflict markers of `parsed`, each with what it records (`whats`: by marker offset).
fn conflicts(parsed: &ParsedScene, whats: &[(usize, Vec<String>)]) -> Vec<Conflict> {
    // Entries are in text order: the one holding an offset is found by halves.
    let entries = &parsed.source_map.entities;
    let holder = |at: usize| {
        let i = entries
            .as_slice()
            .partition_point(|_, e| e.entry.start as usize <= at);
        let (id, e) = entries.get_index(i.checked_sub(1)?)?;
        (at < e.entry.end as usize).then_some(*id)
    };
    parsed
        .warnings
        .iter()
        .filter_map(|w| match &w.kind {
            ReadWarningKind::MergeConflict { note } => Some(Conflict {
                position: w.position,
                entity: holder(w.position.offset),
                note: note.clone(),
                what: whats
                    .iter()
                    .find(|(at, _)| *at == w.position.offset)
                    .map(|(_, what)| what.clone())
                    .unwrap_or_default(),
            }),
            _ => None,
        })
        .collect()
}
