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
mod migrate;
mod splice;

use std::path::{Path, PathBuf};

use crate::format::{
    ComponentData, CustomComponent, CustomField, EditError, EntityNode, Instance, ParsedScene,
    ReadError, SceneDoc, SourceMap, TransformData,
};

pub use format::format_text;
pub use migrate::{MIGRATIONS, Migrated, Migration, migrate, migrate_names};
pub(crate) use splice::{Splice, Text, compact};

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

/// `text` (which reads as `old`, with `map`; no byte-order mark) with the smallest changes that
/// make the header and entities read as `new`'s, as [`SceneEdit::change`] makes them, without
/// reading the result back or checking it (the caller does: `merge` reads what it assembles).
/// Tile layers are left as they are.
///
/// # Errors
/// Which part the text does not locate, as [`SceneEditError::InPlace`] says it.
pub(crate) fn spliced(
    text: &str,
    map: &SourceMap,
    old: &SceneDoc,
    new: &SceneDoc,
) -> Result<String, String> {
    let splices = splice::splices(text, map, old, new).map_err(|e| e.0)?;
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for s in &splices {
        out.push_str(&text[at..s.start]);
        out.push_str(&s.text);
        at = s.end;
    }
    out.push_str(&text[at..]);
    Ok(out)
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
        }
    }

    /// The document and source map as the text reads now.
    pub(crate) fn into_parsed(self) -> ParsedScene {
        self.parsed
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
        self.splice_in(label.into(), &splices, Some(&doc))
    }

    /// Makes `splices` (sorted, not overlapping) to the text, records them as one group
    /// labelled `label`, and writes the file; `None` when there are none. With `expected`, the
    /// new text must read as that document.
    fn splice_in(
        &mut self,
        label: String,
        splices: &[splice::Splice],
        expected: Option<&SceneDoc>,
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
        // One splice inside one entity entry: only that entry is read again (the same result
        // as a whole read, by `reread_edit`'s contract).
        let again = match splices {
            [s] => {
                let mut parsed = self.parsed.clone();
                parsed
                    .reread_edit(&new_text, s.start..s.end, s.text.len())
                    .then_some(parsed)
            }
            _ => None,
        };
        let parsed = match again {
            Some(parsed) => parsed,
            None => SceneDoc::from_str(&new_text).map_err(|e| {
                SceneEditError::InPlace(format!("the edited text does not read: {e}"))
            })?,
        };
        if expected.is_some_and(|doc| !same_doc(&parsed.doc, doc)) {
            return Err(SceneEditError::InPlace(
                "the edited text reads as another document".to_owned(),
            ));
        }
        let group = PatchGroup {
            label,
            starts_from: hash(&self.text),
            ends_at: hash(&new_text),
            patches,
        };
        self.commit(new_text, parsed)?;
        self.record(group.clone());
        Ok(Some(group))
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
            let custom = custom_mut(doc, id, type_path)?;
            match custom.fields.iter_mut().find(|f| f.name == field) {
                Some(f) => f.expr = expr.into(),
                None => custom.fields.push(CustomField::new(field, expr)),
            }
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
        self.splice_in(label, &splices, Some(&doc))
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

    // ---- history ----

    /// Starts a group: the edits until [`end`](Self::end) undo and redo as one, labelled
    /// `label`. A `begin` inside a group is part of the outer one: the group closes at the `end`
    /// of the outermost `begin`.
    pub fn begin(&mut self, label: impl Into<String>) {
        self.depth += 1;
        if self.open.is_none() {
            let h = hash(&self.text);
            self.open = Some(PatchGroup {
                label: label.into(),
                patches: Vec::new(),
                starts_from: h,
                ends_at: h,
            });
        }
    }

    /// Ends the group [`begin`](Self::begin) started and returns it (`None` when no edit in it
    /// changed anything, and for the `end` of an inner `begin`, which leaves the group open).
    pub fn end(&mut self) -> Option<PatchGroup> {
        self.depth = self.depth.saturating_sub(1);
        if self.depth > 0 {
            return None;
        }
        let group = self.open.take()?;
        if group.patches.is_empty() {
            return None;
        }
        self.undo.push(group.clone());
        Some(group)
    }

    /// Runs `edits` on a copy that writes nothing and returns what they would change, as one
    /// group labelled `label`; this `SceneEdit` (text, file, history) is unchanged.
    ///
    /// # Errors
    /// What `edits` returns.
    pub fn dry_run(
        &self,
        label: impl Into<String>,
        edits: impl FnOnce(&mut SceneEdit) -> Result<(), SceneEditError>,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        let mut copy = self.clone();
        copy.path = None;
        copy.on_disk = None;
        copy.open = None;
        copy.depth = 0;
        copy.begin(label);
        edits(&mut copy)?;
        let mut group = copy.end();
        if let Some(group) = &mut group {
            for patch in &mut group.patches {
                patch.file = self.path.clone();
            }
        }
        Ok(group)
    }

    /// Applies `group` (from a [`dry_run`](Self::dry_run), or another `SceneEdit` of the same
    /// text), recording it for undo.
    ///
    /// # Errors
    /// [`SceneEditError::NotAtStart`] when the text is not the one the group starts from;
    /// file errors as for any edit.
    pub fn apply(&mut self, group: &PatchGroup) -> Result<(), SceneEditError> {
        let text = self.replay(group, false)?;
        self.set_text(text)?;
        self.record(group.clone());
        Ok(())
    }

    /// Undoes the last edit (or group), giving back the exact bytes before it. Inside a group
    /// that has edits, the group ends and is undone (the `end`s still to come return `None`).
    ///
    /// # Errors
    /// [`SceneEditError::NothingTo`] with an empty history; file errors as for any edit.
    pub fn undo(&mut self) -> Result<PatchGroup, SceneEditError> {
        self.close_open_group();
        let group = self.undo.pop().ok_or(SceneEditError::NothingTo("undo"))?;
        match self
            .replay(&group, true)
            .and_then(|text| self.set_text(text))
        {
            Ok(()) => {
                self.redo.push(group.clone());
                Ok(group)
            }
            Err(e) => {
                self.undo.push(group);
                Err(e)
            }
        }
    }

    /// Redoes the last undone edit, giving back the exact bytes after it. Inside a group that
    /// has edits, the group ends first (as for [`undo`](Self::undo)).
    ///
    /// # Errors
    /// [`SceneEditError::NothingTo`] when nothing was undone; file errors as for any edit.
    pub fn redo(&mut self) -> Result<PatchGroup, SceneEditError> {
        self.close_open_group();
        let group = self.redo.pop().ok_or(SceneEditError::NothingTo("redo"))?;
        match self
            .replay(&group, false)
            .and_then(|text| self.set_text(text))
        {
            Ok(()) => {
                self.undo.push(group.clone());
                Ok(group)
            }
            Err(e) => {
                self.redo.push(group);
                Err(e)
            }
        }
    }

    /// Ends the open group when it has edits, whatever its nesting: undo and redo move through
    /// whole groups, and the text is no longer where the group's edits left it.
    fn close_open_group(&mut self) {
        if self.open.as_ref().is_some_and(|g| !g.patches.is_empty()) {
            self.depth = 1;
            self.end();
        }
    }

    /// The text after replaying `group` forwards (or backwards) over the current text.
    fn replay(&self, group: &PatchGroup, backwards: bool) -> Result<String, SceneEditError> {
        let (from, to) = if backwards {
            (group.ends_at, group.starts_from)
        } else {
            (group.starts_from, group.ends_at)
        };
        if hash(&self.text) != from {
            return Err(SceneEditError::NotAtStart(group.label.clone()));
        }
        let mut text = self.text.clone();
        let steps: Box<dyn Iterator<Item = &Patch>> = if backwards {
            Box::new(group.patches.iter().rev())
        } else {
            Box::new(group.patches.iter())
        };
        for p in steps {
            let (old, new) = if backwards {
                (&p.after, &p.before)
            } else {
                (&p.before, &p.after)
            };
            let end = p.offset.checked_add(old.len());
            let range = end.map(|end| p.offset..end);
            match range {
                Some(range) if text.get(range.clone()) == Some(old.as_str()) => {
                    text.replace_range(range, new);
                }
                _ => return Err(SceneEditError::NotAtStart(group.label.clone())),
            }
        }
        // A group that does not end where it says would leave the history unable to undo it.
        if hash(&text) != to {
            return Err(SceneEditError::NotAtStart(group.label.clone()));
        }
        Ok(text)
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
        if let Some(path) = &self.path {
            let now = std::fs::read(path).ok();
            if now.as_deref() != self.on_disk.as_deref() {
                return Err(SceneEditError::ChangedOnDisk(path.clone()));
            }
            let mut bytes = Vec::with_capacity(text.len() + 3);
            if self.bom {
                bytes.extend_from_slice(BOM.as_bytes());
            }
            bytes.extend_from_slice(text.as_bytes());
            // Through a symbolic link, the file it points to (renaming over the link would
            // replace the link and leave that file as it was).
            let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            crate::project::write_atomic(&target, &bytes, before_rename)?;
            self.on_disk = Some(bytes);
        }
        self.text = text;
        self.parsed = parsed;
        Ok(())
    }

    /// Records `group`: in the open group, or on the undo stack; either way redo is cleared.
    fn record(&mut self, group: PatchGroup) {
        self.redo.clear();
        match &mut self.open {
            Some(open) => {
                if open.patches.is_empty() {
                    // The text may have changed since `begin` (an undo): the group starts here.
                    open.starts_from = group.starts_from;
                }
                open.patches.extend(group.patches);
                open.ends_at = group.ends_at;
            }
            None => self.undo.push(group),
        }
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
