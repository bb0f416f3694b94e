//! The edit layer: change a scene file one value at a time, keeping everything the author wrote.
//!
//! [`SceneEdit`] holds a scene's text and its [`SourceMap`]. Each operation makes the change on
//! the document in memory (the same operation as `SceneDoc`'s edit methods), then
//! changes only the bytes of what changed (see below) so comments, blank lines, key order and
//! number spelling stay; the new text is read again and must give exactly the document the
//! operation made, or the edit is refused. Each edit returns a [`PatchGroup`] with the exact
//! text before and after; [`undo`](SceneEdit::undo) and [`redo`](SceneEdit::redo) give the
//! bytes back exactly.
//!
//! **What changes.** A transform's changed numbers; a custom field's `expr` string (new fields
//! after the last); a built-in's changed payload values (`illuminance`, `material.metallic`, a
//! whole `color`: as deep as the file's source map locates them); a component entry that
//! changed otherwise; any other entity field's value (`name`, `parent`, `children`,
//! `locked`, `instance`); whole entity and component entries that were added (after the last
//! entry of their list) or removed (with their comma, and their lines when they stand alone on
//! them); the `roots`, `next_id` and `name` values. New text follows the canonical layout: on
//! one line where the value it replaces or follows is on one line, else one field per line,
//! indented from the line it goes on, with the file's own line ending (`\n` or `\r\n`: the one
//! most of its lines end with). A byte-order mark is kept.
//!
//! **Validity.** An edit that would give the scene a validation error it does not have (a
//! non-finite transform, an empty custom field expression, a negative light range) is refused
//! with [`SceneEditError::Invalid`]; errors the file already had do not block other edits.
//!
//! **Files.** An edit of a [`SceneEdit::open`]ed file is written at once, atomically (a
//! temporary file renamed over it: the old file stays whole if anything fails), and is
//! refused when the file changed on disk since it was read or last written
//! ([`SceneEditError::ChangedOnDisk`]). [`SceneEdit::dry_run`] returns what edits would do
//! without writing or keeping them. An edit that changes nothing records nothing.

mod format;
mod history;
mod migrate;
mod splice;
mod typed;

use std::path::{Path, PathBuf};

use crate::format::{
    ComponentData, CustomComponent, EditError, EntityNode, Instance, ParsedScene, ReadError,
    SceneDoc, SourceMap, TextChange, TransformData,
};

pub use format::format_text;
pub use migrate::{MIGRATIONS, Migrated, Migration, migrate, migrate_names};
pub use typed::{EditAt, FieldEdit, FieldValue, TransformPart};

/// One file's change: its exact text `before` and `after` the edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The file, or `None` for a [`SceneEdit`] over text in memory.
    pub file: Option<PathBuf>,
    /// Byte offset of the change (after a byte-order mark, if any).
    pub offset: usize,
    /// The bytes at `offset` before the edit.
    pub before: String,
    /// The bytes at `offset` after the edit.
    pub after: String,
}

/// The changes of one edit, or of the edits between [`SceneEdit::begin`] and
/// [`SceneEdit::end`]: what undo and redo replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchGroup {
    /// What the edit did, for an editor's history (`"rename 4"`, `"move Door"`).
    pub label: String,
    /// The changes, in the order they were made.
    pub patches: Vec<Patch>,
    /// A hash of the whole text the group starts from: [`SceneEdit::apply`] refuses any other.
    pub starts_from: u64,
    /// A hash of the whole text after the group: [`SceneEdit::undo`] starts from it.
    pub ends_at: u64,
}

/// Why an edit was refused. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum SceneEditError {
    /// The text does not read as a scene.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The operation itself was refused (no such entity, a cycle, a duplicate component).
    #[error(transparent)]
    Edit(#[from] EditError),
    /// The file changed on disk since it was read or last written by this `SceneEdit`.
    #[error(
        "`{}` changed on disk since it was read; open it again to edit the new text",
        .0.display()
    )]
    ChangedOnDisk(PathBuf),
    /// [`SceneEdit::apply`] or undo/redo of a group that does not start from the current text.
    #[error("the patch group `{0}` does not start from the current text")]
    NotAtStart(String),
    /// Nothing to undo or redo.
    #[error("nothing to {0}")]
    NothingTo(&'static str),
    /// The file could not be read or written.
    #[error(transparent)]
    Io(#[from] crate::project::ProjectError),
    /// The edit would give the scene an error it does not have (`validate_scene`, without
    /// asset checks): the first new one, with its code, entity and field path.
    #[error("{0}")]
    Invalid(String),
    /// The text could not be changed without touching what the author wrote around it (a
    /// layout this layer does not locate), or the result did not read back as the document
    /// the operation made. Says which part.
    #[error("cannot make this edit in place: {0}")]
    InPlace(String),
}

/// A scene file (or text) being edited in place, with undo and redo. See the module docs.
#[derive(Debug, Clone)]
pub struct SceneEdit {
    path: Option<PathBuf>,
    /// A byte-order mark the text starts with, kept.
    bom: bool,
    /// The text, without the byte-order mark.
    text: String,
    parsed: ParsedScene,
    /// The text on disk as last read or written (with the mark): a change by anyone else is
    /// refused.
    on_disk: Option<Vec<u8>>,
    undo: Vec<PatchGroup>,
    redo: Vec<PatchGroup>,
    /// The group [`begin`](Self::begin) opened.
    open: Option<PatchGroup>,
    /// How many [`begin`](Self::begin)s the open group has without their [`end`](Self::end).
    depth: usize,
    /// The bytes the last edit replaced, as one change of the text (after a byte-order mark).
    last_change: Option<TextChange>,
    /// Where each change of the last edit starts, in the text before it.
    last_starts: Vec<crate::format::Position>,
    /// The hash of `text`, once known (each edit knows its result's).
    text_hash: std::cell::Cell<Option<u64>>,
}

const BOM: &str = "\u{feff}";

/// Refuses `new` when it has a validation error that `old` does not (errors the file already
/// had do not stop an edit).
fn refuse_new_errors(old: &SceneDoc, new: &SceneDoc) -> Result<(), SceneEditError> {
    use crate::validate::{Severity, validate_scene};
    let key =
        |d: &crate::validate::Diagnostic| (d.code, d.entity, d.path.clone(), d.message.clone());
    let errors = |doc: &SceneDoc| -> Vec<crate::validate::Diagnostic> {
        validate_scene(doc, None)
            .diagnostics
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .collect()
    };
    let before: Vec<_> = errors(old).iter().map(key).collect();
    match errors(new).into_iter().find(|d| !before.contains(&key(d))) {
        None => Ok(()),
        Some(d) => {
            let at = match (d.entity, &d.path) {
                (Some(id), Some(path)) => format!("entity {id}, {path}: "),
                (Some(id), None) => format!("entity {id}: "),
                _ => String::new(),
            };
            Err(SceneEditError::Invalid(format!(
                "the edit would make the scene invalid: error[{}]: {at}{}",
                d.code, d.message
            )))
        }
    }
}

/// Where the first comment (`//` or `/*`) of scene text `text` is, outside strings: what
/// rewriting the whole file canonically would drop (`forge fmt` leaves such files alone).
pub fn first_comment(text: &str) -> Option<crate::format::Position> {
    let body = text.strip_prefix(BOM).unwrap_or(text);
    let at = crate::format::lexical::first_comment(body.as_bytes())?;
    Some(crate::format::source_map::LineIndex::new(body).position(at))
}

/// Whether two documents are the same: equal, or written the same (a NaN is not equal to
/// itself, but reads back as the NaN it was written from).
/// Entity `id`'s custom component `type_path`, for an edit to change.
fn custom_mut<'d>(
    doc: &'d mut SceneDoc,
    id: u64,
    type_path: &str,
) -> Result<&'d mut CustomComponent, EditError> {
    let node = doc.entity_mut(id).ok_or(EditError::NoSuchEntity(id))?;
    node.components
        .iter_mut()
        .find_map(|c| match c {
            ComponentData::Custom(c) if c.type_path == type_path => Some(c),
            _ => None,
        })
        .ok_or_else(|| EditError::NoSuchComponent {
            id,
            key: format!("custom:{type_path}"),
        })
}

/// What the text an edit made must read as.
enum Expect<'a> {
    /// The whole document.
    Doc(&'a SceneDoc),
    /// These entities (the others are the same entries as before).
    Entities(&'a [EntityNode]),
}

fn same_doc(a: &SceneDoc, b: &SceneDoc) -> bool {
    a == b || a.to_canonical_string() == b.to_canonical_string()
}

fn hash(text: &str) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = bevy_platform::hash::FixedHasher.build_hasher();
    h.write(text.as_bytes());
    h.finish()
}

impl SceneEdit {
    /// Opens the scene file at `path` for editing.
    ///
    /// # Errors
    /// [`SceneEditError::Io`] when it cannot be read, [`SceneEditError::Read`] (with line and
    /// column) when it is not a scene.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, SceneEditError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| crate::project::ProjectError::Io {
            path: path.to_owned(),
            source,
        })?;
        // Not UTF-8: the reader says where, naming the file.
        let text = match std::str::from_utf8(&bytes) {
            Ok(text) => text,
            Err(_) => {
                return Err(match SceneDoc::from_slice(&bytes) {
                    Err(e) => SceneEditError::Read(e.with_path(path)),
                    Ok(_) => SceneEditError::InPlace("the file is not UTF-8 text".to_owned()),
                });
            }
        };
        let mut edit = Self::from_text(text).map_err(|e| match e {
            SceneEditError::Read(r) => SceneEditError::Read(r.with_path(path)),
            other => other,
        })?;
        edit.path = Some(path.to_owned());
        edit.on_disk = Some(bytes);
        Ok(edit)
    }

    /// Edits `text` in memory (no file: nothing is written).
    ///
    /// # Errors
    /// [`SceneEditError::Read`] when `text` is not a scene.
    pub fn from_text(text: &str) -> Result<Self, SceneEditError> {
        let parsed = SceneDoc::from_str(text.strip_prefix(BOM).unwrap_or(text))?;
        Ok(Self::from_read(text, parsed))
    }

    /// Edits `text` in memory, which reads as `parsed` (its byte-order mark, if any, left out
    /// of `parsed`'s offsets): no second read for a caller that has read it already.
    pub(crate) fn from_read(text: &str, parsed: ParsedScene) -> Self {
        let (bom, body) = match text.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        Self {
            path: None,
            bom,
            text: body.to_owned(),
            parsed,
            on_disk: None,
            undo: Vec::new(),
            redo: Vec::new(),
            open: None,
            depth: 0,
            last_change: None,
            last_starts: Vec::new(),
            text_hash: std::cell::Cell::new(None),
        }
    }

    /// Edits `text` in memory, which reads as `parsed`, taking both (no copy); `hash` is the
    /// text's hash when known (the one an edit's group ends at).
    pub(crate) fn from_owned(text: String, parsed: ParsedScene, hash: Option<u64>) -> Self {
        let edit = match text.strip_prefix(BOM) {
            Some(_) => Self::from_read(&text, parsed),
            None => Self {
                text,
                ..Self::from_read("", parsed)
            },
        };
        edit.text_hash.set(hash);
        edit
    }

    /// The hash of the text now (what a group starts from or ends at).
    pub(crate) fn hash_now(&self) -> u64 {
        match self.text_hash.get() {
            Some(h) => h,
            None => {
                let h = hash(&self.text);
                self.text_hash.set(Some(h));
                h
            }
        }
    }

    /// Where each change of the last edit starts, in the text before it (1-based lines and
    /// columns).
    pub(crate) fn last_starts(&self) -> &[crate::format::Position] {
        &self.last_starts
    }

    /// The text (byte-order mark included) and what it reads as, taken.
    pub(crate) fn into_text_and_parsed(self) -> (String, ParsedScene) {
        let text = match self.bom {
            true => format!("{BOM}{}", self.text),
            false => self.text,
        };
        (text, self.parsed)
    }

    /// The bytes the last edit replaced, as one change of the text: from the first byte it
    /// changed to the end of the last (offsets after a byte-order mark).
    pub(crate) fn last_change(&self) -> Option<TextChange> {
        self.last_change
    }

    /// Gives the bytes of `group` back (`backwards`: the text before it) or makes them again,
    /// as a new edit labelled `label`, reading again only the entries it touched.
    ///
    /// # Errors
    /// [`SceneEditError::NotAtStart`] when the text is not the one `group` ends at (starts
    /// from, forwards).
    pub(crate) fn replay_as_edit(
        &mut self,
        label: String,
        group: &PatchGroup,
        backwards: bool,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        let from = if backwards {
            group.ends_at
        } else {
            group.starts_from
        };
        let refused = || SceneEditError::NotAtStart(group.label.clone());
        if self.hash_now() != from {
            return Err(refused());
        }
        let mut splices = Vec::with_capacity(group.patches.len());
        let mut shift: i64 = 0;
        for p in &group.patches {
            let (start, old, new) = if backwards {
                (p.offset, &p.after, &p.before)
            } else {
                let start = usize::try_from(p.offset as i64 - shift).map_err(|_| refused())?;
                shift += p.after.len() as i64 - p.before.len() as i64;
                (start, &p.before, &p.after)
            };
            let end = start + old.len();
            if self.text.get(start..end) != Some(old.as_str()) {
                return Err(refused());
            }
            splices.push(splice::Splice {
                start,
                end,
                text: new.clone(),
            });
        }
        if splices.windows(2).any(|w| w[0].end > w[1].start) {
            return Err(refused());
        }
        self.splice_in(label, &splices, None)
    }

    /// The document as the text reads now.
    pub fn doc(&self) -> &SceneDoc {
        &self.parsed.doc
    }

    /// Where each part of the document is in the text now.
    pub fn source_map(&self) -> &SourceMap {
        &self.parsed.source_map
    }

    /// The whole text now, byte-order mark included.
    pub fn text(&self) -> String {
        if self.bom {
            format!("{BOM}{}", self.text)
        } else {
            self.text.clone()
        }
    }

    /// The file being edited, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The edits that can be undone, oldest first.
    pub fn undo_stack(&self) -> &[PatchGroup] {
        &self.undo
    }

    /// The edits that can be redone, the next one last.
    pub fn redo_stack(&self) -> &[PatchGroup] {
        &self.redo
    }

    // ---- operations ----

    /// Makes any change to the document, in place: `change` edits a copy of the document; the
    /// text then changes where the document did. Every named operation below goes through
    /// this. Returns the group recorded, or `None` when nothing changed.
    ///
    /// # Errors
    /// What `change` returns; [`SceneEditError::Invalid`] when the result has a validation error
    /// the scene did not have; [`SceneEditError::ChangedOnDisk`] and [`SceneEditError::Io`] for
    /// a file; [`SceneEditError::InPlace`] when the text cannot be changed in place.
    pub fn change(
        &mut self,
        label: impl Into<String>,
        change: impl FnOnce(&mut SceneDoc) -> Result<(), EditError>,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        let mut doc = self.parsed.doc.clone();
        change(&mut doc)?;
        refuse_new_errors(&self.parsed.doc, &doc)?;
        let splices = splice::splices(&self.text, &self.parsed.source_map, &self.parsed.doc, &doc)
            .map_err(|e| SceneEditError::InPlace(e.0))?;
        self.splice_in(label.into(), &splices, Some(Expect::Doc(&doc)))
    }

    /// Makes `splices` (sorted, not overlapping) to the text, records them as one group
    /// labelled `label`, and writes the file; `None` when there are none. With `expected`, the
    /// new text must read as that document.
    fn splice_in(
        &mut self,
        label: String,
        splices: &[splice::Splice],
        expected: Option<Expect<'_>>,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        if splices.is_empty() {
            return Ok(None);
        }
        // One patch per changed place, each at its offset in the text the patches before it
        // made: replayed in order forwards, in reverse backwards.
        let mut patches = Vec::with_capacity(splices.len());
        let mut new_text = String::with_capacity(self.text.len() + 64);
        let mut at = 0;
        let mut shift: isize = 0;
        for s in splices {
            new_text.push_str(&self.text[at..s.start]);
            new_text.push_str(&s.text);
            at = s.end;
            patches.push(Patch {
                file: self.path.clone(),
                offset: s.start.saturating_add_signed(shift),
                before: self.text[s.start..s.end].to_owned(),
                after: s.text.clone(),
            });
            shift += s.text.len() as isize - (s.end - s.start) as isize;
        }
        new_text.push_str(&self.text[at..]);
        if let (Some(first), Some(last)) = (splices.first(), splices.last()) {
            self.last_change = Some(TextChange {
                start: first.start,
                old_end: last.end,
                new_len: (last.end as i64 - first.start as i64 + shift as i64) as usize,
            });
        }
        self.last_starts = splices
            .iter()
            .map(|s| self.parsed.source_map.position_of_offset(s.start))
            .collect();
        // Splices inside entity entries: only those entries are read again, in place (the same
        // result as a whole read, by `reread_edit`'s contract); else the new text read whole.
        if !self.reread_in_part(&new_text, splices) {
            match SceneDoc::from_str(&new_text) {
                Ok(whole) => self.parsed = whole,
                Err(e) => {
                    self.restore_read();
                    return Err(SceneEditError::InPlace(format!(
                        "the edited text does not read: {e}"
                    )));
                }
            }
        }
        let parsed = &self.parsed;
        let reads_as_expected = match expected {
            None => true,
            Some(Expect::Doc(doc)) => same_doc(&parsed.doc, doc),
            Some(Expect::Entities(nodes)) => nodes.iter().all(|n| {
                parsed
                    .doc
                    .entity(n.id)
                    .is_some_and(|read| splice::same_entity(read, n))
            }),
        };
        if !reads_as_expected {
            self.restore_read();
            return Err(SceneEditError::InPlace(
                "the edited text reads as another document".to_owned(),
            ));
        }
        let group = PatchGroup {
            label,
            starts_from: self.hash_now(),
            ends_at: hash(&new_text),
            patches,
        };
        if let Err(e) = self.write_out(&new_text, |_| Ok(())) {
            // The file could not be written: the text stays as it was, and so must its read.
            self.restore_read();
            return Err(e);
        }
        self.text = new_text;
        self.text_hash.set(Some(group.ends_at));
        self.record(group.clone());
        Ok(Some(group))
    }

    /// Reads the text whole again, after an edit that was refused once its read had begun to
    /// change (an edit's error path, not its usual one): the read is the text's again.
    fn restore_read(&mut self) {
        if let Ok(parsed) = SceneDoc::from_str(&self.text) {
            self.parsed = parsed;
        }
    }

    /// Brings the read up to date with `new_text` (this text with `splices` made), reading
    /// again only the entity entries the splices are in, entry by entry: `false` when a splice
    /// is outside every entry (or an entry no longer reads as one), and the text must be read
    /// whole.
    fn reread_in_part(&mut self, new_text: &str, splices: &[splice::Splice]) -> bool {
        let map = &self.parsed.source_map;
        // Runs of splices in one entry: the bytes they cover in this text, and how much longer
        // they make it.
        let mut runs: Vec<(usize, usize, i64, u64)> = Vec::new();
        for s in splices {
            let Some(id) = map.entry_around(s.start, s.end) else {
                return false;
            };
            let delta = s.text.len() as i64 - (s.end - s.start) as i64;
            match runs.last_mut() {
                Some(run) if run.3 == id => {
                    run.1 = s.end;
                    run.2 += delta;
                }
                _ => runs.push((s.start, s.end, delta, id)),
            }
        }
        // Entry by entry in text order, each read in the new text where the runs before it
        // moved it (a run that does not read leaves the read half done: the caller reads the
        // text whole then).
        let mut shift = 0i64;
        for (start, end, delta, _) in runs {
            let (a, b) = (
                (start as i64 + shift) as usize,
                (end as i64 + shift) as usize,
            );
            let new_len = ((end - start) as i64 + delta) as usize;
            if !self.parsed.reread_edit(new_text, a..b, new_len) {
                return false;
            }
            shift += delta;
        }
        true
    }

    /// Adds an entity named `name` under `parent` (a root when `None`) with a fresh id from
    /// `next_id`, appended to the parent's children; returns the group and the id.
    ///
    /// # Errors
    /// As [`change`](Self::change); [`EditError::NoSuchEntity`] for an unknown parent.
    pub fn add_entity(
        &mut self,
        name: &str,
        parent: Option<u64>,
        transform: TransformData,
        components: Vec<ComponentData>,
    ) -> Result<(Option<PatchGroup>, u64), SceneEditError> {
        let mut id = 0;
        let group = self.change(format!("add {name:?}"), |doc| {
            id = doc.add_entity(name, parent)?;
            if let Some(node) = doc.entity_mut(id) {
                node.transform = transform;
                node.components = components;
            }
            Ok(())
        })?;
        Ok((group, id))
    }

    /// Deletes entity `id` and its subtree.
    ///
    /// # Errors
    /// As [`change`](Self::change).
    pub fn delete_subtree(&mut self, id: u64) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change(format!("delete {id}"), |doc| {
            doc.delete_subtree(id).map(drop)
        })
    }

    /// Copies entity `id` and its subtree beside it with fresh ids; returns the copy's id.
    ///
    /// # Errors
    /// As [`change`](Self::change).
    pub fn duplicate_subtree(
        &mut self,
        id: u64,
    ) -> Result<(Option<PatchGroup>, u64), SceneEditError> {
        let mut copy = 0;
        let group = self.change(format!("duplicate {id}"), |doc| {
            copy = doc.duplicate_subtree(id)?;
            Ok(())
        })?;
        Ok((group, copy))
    }

    /// Moves entity `id` under `new_parent` (a root when `None`) at `index` among its new
    /// siblings, counted after it left its old place.
    ///
    /// # Errors
    /// As [`change`](Self::change); [`EditError::Cycle`] when `new_parent` is in `id`'s subtree.
    pub fn reparent(
        &mut self,
        id: u64,
        new_parent: Option<u64>,
        index: usize,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change(format!("move {id}"), |doc| {
            doc.reparent(id, new_parent, index)
        })
    }

    /// Adds `component` to entity `id`, after its others.
    ///
    /// # Errors
    /// As [`change`](Self::change); [`EditError::DuplicateComponent`] when it has one of that key.
    pub fn add_component(
        &mut self,
        id: u64,
        component: ComponentData,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change(format!("add {} to {id}", component.key()), |doc| {
            doc.add_component(id, component)
        })
    }

    /// Removes the component with key `key` (`sprite`, `custom:game::Health`) from entity `id`.
    ///
    /// # Errors
    /// As [`change`](Self::change); [`EditError::NoSuchComponent`].
    pub fn remove_component(
        &mut self,
        id: u64,
        key: &str,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change(format!("remove {key} from {id}"), |doc| {
            doc.remove_component(id, key).map(drop)
        })
    }

    /// Replaces entity `id`'s component of the same key as `component` (setting any built-in
    /// field: read it, change the field, set it back).
    ///
    /// # Errors
    /// As [`change`](Self::change); [`EditError::NoSuchComponent`] when it has none of that key.
    pub fn set_component(
        &mut self,
        id: u64,
        component: ComponentData,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change(format!("set {} of {id}", component.key()), |doc| {
            let key = component.key();
            let node = doc.entity_mut(id).ok_or(EditError::NoSuchEntity(id))?;
            let slot = node
                .components
                .iter_mut()
                .find(|c| c.same_key(&component))
                .ok_or(EditError::NoSuchComponent { id, key })?;
            *slot = component;
            Ok(())
        })
    }

    /// Sets field `field` of entity `id`'s custom component `type_path` to the Rust expression
    /// `expr` (added after its other fields when it is not written).
    ///
    /// # Errors
    /// As [`change`](Self::change); [`EditError::NoSuchComponent`].
    pub fn set_custom_field(
        &mut self,
        id: u64,
        type_path: &str,
        field: &str,
        expr: &str,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change(format!("set {type_path}.{field} of {id}"), |doc| {
            custom_mut(doc, id, type_path)?.set_field(field, expr);
            Ok(())
        })
    }

    /// Sets the whole `value` of entity `id`'s enum component `type_path` to the Rust expression
    /// `expr` (`"RigidBody::Static"`); the file's `value` string is replaced, nothing else.
    ///
    /// # Errors
    /// As [`change`](Self::change); [`EditError::NoSuchComponent`].
    pub fn set_custom_value(
        &mut self,
        id: u64,
        type_path: &str,
        expr: &str,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change(format!("set {type_path} of {id}"), |doc| {
            let custom = custom_mut(doc, id, type_path)?;
            custom.value = Some(expr.into());
            Ok(())
        })
    }

    /// Renames entity `id`.
    ///
    /// # Errors
    /// As [`change`](Self::change).
    pub fn rename(&mut self, id: u64, name: &str) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change(format!("rename {id}"), |doc| doc.rename(id, name))
    }

    /// Sets entity `id`'s local transform (Euler degrees).
    ///
    /// # Errors
    /// As [`change`](Self::change).
    pub fn set_transform(
        &mut self,
        id: u64,
        transform: TransformData,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change(format!("move {id}"), |doc| doc.set_transform(id, transform))
    }

    /// Sets (or with `None` clears) the prefab instance entity `id` places: its scene and
    /// overrides (the `format` module docs, "Prefab instances").
    ///
    /// # Errors
    /// As [`change`](Self::change).
    pub fn set_instance(
        &mut self,
        id: u64,
        instance: Option<Instance>,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change(format!("set instance of {id}"), |doc| {
            let node = doc.entity_mut(id).ok_or(EditError::NoSuchEntity(id))?;
            node.instance = instance.map(Box::new);
            Ok(())
        })
    }

    /// Paints every cell of `rect` of tile layer `layer` with palette key `key`: the row
    /// strings change in place, character by character, so the rest of the file (comments
    /// included) stays as it was; a paint that grows the layer, and any paint of a `cells`
    /// layer, rewrites that layer's entry canonically. See [`TileLayer::paint`] for how a layer
    /// grows (left and down by lowering `start` and moving `origin`, keeping every cell's id
    /// path). Undo and redo as any edit.
    ///
    /// [`TileLayer::paint`]: crate::format::TileLayer::paint
    ///
    /// # Errors
    /// As [`change`](Self::change); [`EditError::NoSuchLayer`], [`EditError::Paint`].
    pub fn paint(
        &mut self,
        layer: u64,
        rect: crate::format::CellRect,
        key: char,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        self.paint_cells(
            format!("paint {key:?} in layer {layer}"),
            layer,
            rect,
            Some(key),
        )
    }

    /// Empties every cell of `rect` of tile layer `layer` (`.` in its rows, or no entry in its
    /// `cells`), as [`paint`](Self::paint) changes the text; a layer never shrinks.
    ///
    /// # Errors
    /// As [`paint`](Self::paint).
    pub fn erase(
        &mut self,
        layer: u64,
        rect: crate::format::CellRect,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        self.paint_cells(format!("erase in layer {layer}"), layer, rect, None)
    }

    fn paint_cells(
        &mut self,
        label: String,
        id: u64,
        rect: crate::format::CellRect,
        key: Option<char>,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        use crate::format::LayerPart;
        let old = self
            .parsed
            .doc
            .layer(id)
            .ok_or(EditError::NoSuchLayer(id))?;
        let mut layer = old.clone();
        layer.paint(rect, key)?;
        if layer == *old {
            return Ok(None);
        }
        let mut doc = self.parsed.doc.clone();
        if let Some(slot) = doc.layer_mut(id) {
            *slot = layer.clone();
        }
        refuse_new_errors(&self.parsed.doc, &doc)?;
        let map = &self.parsed.source_map;
        let same_shape = layer.rows.len() == old.rows.len()
            && layer.start == old.start
            && layer.origin == old.origin
            && layer.cells == old.cells;
        let mut splices = Vec::new();
        if same_shape {
            // Row by row, each changed row string replaced.
            for (r, (new, was)) in layer.rows.iter().zip(&old.rows).enumerate() {
                if new == was {
                    continue;
                }
                let range = map
                    .layer_part_span(id, LayerPart::Row(r))
                    .and_then(|s| s.range())
                    .ok_or_else(|| SceneEditError::InPlace(format!("row {r} of layer {id}")))?;
                splices.push(splice::Splice {
                    start: range.start,
                    end: range.end,
                    text: crate::format::write::fragment::string(new),
                });
            }
        } else {
            // The whole entry, canonically, indented as it was.
            let range = map
                .layer_part_span(id, LayerPart::Entry)
                .and_then(|s| s.range())
                .ok_or_else(|| SceneEditError::InPlace(format!("the entry of layer {id}")))?;
            let line_start = self.text[..range.start].rfind('\n').map_or(0, |i| i + 1);
            let indent: String = self.text[line_start..range.start]
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            let text = crate::format::write::fragment::layer(&layer)
                .lines()
                .enumerate()
                .map(|(n, line)| {
                    if n == 0 || line.is_empty() {
                        line.to_owned()
                    } else {
                        format!("{indent}{line}")
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            splices.push(splice::Splice {
                start: range.start,
                end: range.end,
                text,
            });
        }
        self.splice_in(label, &splices, Some(Expect::Doc(&doc)))
    }

    /// Sets the scene's display name.
    ///
    /// # Errors
    /// As [`change`](Self::change).
    pub fn set_scene_name(&mut self, name: &str) -> Result<Option<PatchGroup>, SceneEditError> {
        self.change("rename scene", |doc| {
            doc.name = name.to_owned();
            Ok(())
        })
    }

    /// The entity `id`, as the text reads now.
    pub fn entity(&self, id: u64) -> Option<&EntityNode> {
        self.parsed.doc.entity(id)
    }

    /// Makes `text` current (read, written to the file).
    fn set_text(&mut self, text: String) -> Result<(), SceneEditError> {
        let parsed = SceneDoc::from_str(&text)?;
        self.commit(text, parsed)
    }

    /// Writes `text` to the file (refusing when someone else changed it) and makes it current.
    fn commit(&mut self, text: String, parsed: ParsedScene) -> Result<(), SceneEditError> {
        self.commit_with(text, parsed, |_| Ok(()))
    }

    /// [`commit`](Self::commit), running `before_rename` between writing the temporary file
    /// and renaming it over the file (tests put a crash there).
    fn commit_with(
        &mut self,
        text: String,
        parsed: ParsedScene,
        before_rename: impl FnOnce(&Path) -> std::io::Result<()>,
    ) -> Result<(), SceneEditError> {
        self.write_out(&text, before_rename)?;
        self.text = text;
        self.parsed = parsed;
        self.text_hash.set(None);
        Ok(())
    }

    /// Writes `text` to the file being edited, if any (refusing when someone else changed it),
    /// atomically.
    fn write_out(
        &mut self,
        text: &str,
        before_rename: impl FnOnce(&Path) -> std::io::Result<()>,
    ) -> Result<(), SceneEditError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let now = std::fs::read(path).ok();
        if now.as_deref() != self.on_disk.as_deref() {
            return Err(SceneEditError::ChangedOnDisk(path.clone()));
        }
        let mut bytes = Vec::with_capacity(text.len() + 3);
        if self.bom {
            bytes.extend_from_slice(BOM.as_bytes());
        }
        bytes.extend_from_slice(text.as_bytes());
        // Through a symbolic link, the file it points to (renaming over the link would replace
        // the link and leave that file as it was).
        let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        crate::project::write_atomic(&target, &bytes, before_rename)?;
        self.on_disk = Some(bytes);
        Ok(())
    }

    /// Replaces the `format_version` value with `version` (a migration's last step; the
    /// document in memory is always the current version).
    pub(crate) fn set_written_version(
        &mut self,
        version: u32,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        let at = self.parsed.source_map.top_field_span("format_version");
        let s = splice::Text::new(&self.text)
            .replace_value(at, &version.to_string(), "format_version")
            .map_err(|e| SceneEditError::InPlace(e.0))?;
        let changed = self.text[s.start..s.end] != s.text;
        let splices = if changed { vec![s] } else { Vec::new() };
        self.splice_in(format!("format_version {version}"), &splices, None)
    }
}

#[cfg(test)]
mod tests;
