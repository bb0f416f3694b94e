//! What an import left out or kept only in part: [`ImportReport`], one [`ImportNote`] per
//! value, each with its [`NoteKind`] (feature `import`).

use std::fmt;

#[cfg(doc)]
use super::ImportOptions;

/// What an import left out or kept only in part, one [`ImportNote`] each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportReport {
    /// The notes, resources first, then by entity id and type path.
    pub notes: Vec<ImportNote>,
}

impl ImportReport {
    /// Whether everything was mapped.
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// The number of notes.
    pub fn len(&self) -> usize {
        self.notes.len()
    }

    /// The notes about the entity with new id `id`.
    pub fn of_entity(&self, id: u64) -> impl Iterator<Item = &ImportNote> {
        self.notes.iter().filter(move |n| n.entity == Some(id))
    }
}

/// One thing an import left out or kept only in part.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportNote {
    /// The entity's new id; `None` for a resource.
    pub entity: Option<u64>,
    /// The entity's name in the document, when it has one.
    pub entity_name: Option<String>,
    /// The Rust type path of the value (`bevy_sprite::sprite::Sprite`, `my_game::Inventory`).
    pub type_path: String,
    /// What happened to it.
    pub kind: NoteKind,
}

/// What happened to a value an import could not map whole.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoteKind {
    /// A resource: scene documents hold entities only.
    Resource,
    /// A type the registry does not know; its value was read past.
    Unregistered,
    /// A field (or the value itself, `field: None`) cannot be written as a field expression:
    /// a map, a handle, an opaque value, an `Entity` outside the world.
    Unwritable {
        /// The field, `None` when the value as a whole is the problem.
        field: Option<String>,
    },
    /// Not a struct or tuple struct, so it has no fields to write (an enum component).
    NotAStruct,
    /// Its type path cannot be a custom component's (generic arguments, `<`, `>`).
    TypePath,
    /// A built-in keeps only part of it: these fields were dropped.
    Partial {
        /// The built-in tag it became (`sprite`, `point_light`).
        tag: &'static str,
        /// The fields whose values were not kept.
        fields: Vec<String>,
    },
    /// A component a built-in implies (a sprite's `Anchor`, a camera's `Camera`) with values
    /// other than its defaults; dropped, so they are lost.
    Implied {
        /// The built-in that implies it.
        tag: &'static str,
    },
    /// A mesh that is not an asset file (made in code, or a primitive a scene generated); the
    /// format stores primitives by shape, which the mesh does not say.
    MeshWithoutPath,
    /// The entity's parent chain loops; it became a root.
    ParentLoop,
    /// The entity's parent is not in the file (a part of a world was saved): it became a root.
    ParentOutside {
        /// The parent as Bevy names an entity (`40v3`: index v generation).
        parent: String,
    },
    /// Kept as a `custom` component, but its type is not a `ForgeComponent` of the schemas
    /// given ([`ImportOptions::schemas`]): the scene loader refuses it
    /// (`forge::custom::not_allowed`) until the type derives `ForgeComponent`.
    NotForgeComponent,
    /// A field is an asset handle, which a custom field expression cannot hold: the component
    /// was left out. `path` is the asset path the handle names, when the file says it (Bevy
    /// 0.19 on); older eras wrote handles without their path.
    Handle {
        /// The field.
        field: String,
        /// The asset path, when the file has it.
        path: Option<String>,
    },
    /// The file writes the type under an old path (the schema's `renamed_from`): written as
    /// the current one, `to`.
    Renamed {
        /// The current type path.
        to: String,
    },
    /// The file writes a field under an old name (the field's `renamed_from`): written as the
    /// current one.
    RenamedField {
        /// The name the file writes.
        from: String,
        /// The current name.
        to: String,
    },
    /// Read without its type (no registry or schema has it), and `field` (or the value as a
    /// whole, `None`) cannot be written faithfully from the text alone: a list, a nested value,
    /// an enum, or a number that equals an entity key (it may be a reference). Left out;
    /// import with the game's schema file to keep it.
    NeedsType {
        /// The field, `None` when the value as a whole is the problem.
        field: Option<String>,
    },
    /// A schema file was given ([`ImportOptions::schema_file`]) and has no component of this
    /// type path (or an old path of one): not a `ForgeComponent` of the game, so left out.
    NotInSchema,
    /// Read, but the file writes fields the type (as the registry has it) does not have, and
    /// that did not become another field or component there: read past, so their values are
    /// lost (a Bevy 0.15 `Camera`'s `hdr: true` where the registry has no `Hdr` marker). Not
    /// listed when the component is left out whole (another note says why).
    RemovedFields {
        /// `Type.field` of each (`Camera.hdr`), in file order.
        fields: Vec<String>,
    },
    /// The value does not read as its type (its schema's, or the registry's): a field of
    /// another kind, a colour channel of another space, a variant the type does not have, a
    /// field the type no longer has. Left out; the rest of the file is imported.
    Unreadable {
        /// The field that does not read, when the value is a struct or tuple struct and the
        /// problem is inside one of its fields.
        field: Option<String>,
        /// Where the reading stopped: 1-based line and column in the file.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the reading found (ron's or the reflection deserializer's words).
        message: String,
    },
}

impl NoteKind {
    /// Whether the value the note is about is still in the document (in part or whole), not
    /// left out.
    pub(crate) fn keeps(&self) -> bool {
        matches!(
            self,
            NoteKind::Partial { .. }
                | NoteKind::ParentLoop
                | NoteKind::ParentOutside { .. }
                | NoteKind::NotForgeComponent
                | NoteKind::Renamed { .. }
                | NoteKind::RenamedField { .. }
                | NoteKind::RemovedFields { .. }
        )
    }
}

impl fmt::Display for ImportNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.entity, &self.entity_name) {
            (Some(id), Some(name)) => write!(f, "entity {id} (`{}`): ", name.escape_debug())?,
            (Some(id), None) => write!(f, "entity {id}: ")?,
            (None, _) => {}
        }
        let path = &self.type_path;
        match &self.kind {
            NoteKind::Resource => write!(
                f,
                "resource `{path}` not imported (scenes hold entities only)"
            ),
            NoteKind::Unregistered => write!(
                f,
                "`{path}` is not in the type registry; left out (import with the game's registry to keep it)"
            ),
            NoteKind::Unwritable { field: Some(field) } => write!(
                f,
                "`{path}` left out: its field `{field}` cannot be written as a field expression"
            ),
            NoteKind::Unwritable { field: None } => write!(
                f,
                "`{path}` left out: its value cannot be written as field expressions"
            ),
            NoteKind::NotAStruct => write!(
                f,
                "`{path}` left out: only structs can be custom components"
            ),
            NoteKind::TypePath => write!(
                f,
                "`{path}` left out: a custom component's type path has no generic arguments"
            ),
            NoteKind::Partial { tag, fields } => write!(
                f,
                "`{path}` became `{tag}` without {}",
                fields
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            NoteKind::Implied { tag } => write!(
                f,
                "`{path}` left out: `{tag}` brings its default, and this one was changed"
            ),
            NoteKind::MeshWithoutPath => write!(
                f,
                "`{path}` left out: the mesh is not an asset file, and the format stores primitives by shape"
            ),
            NoteKind::ParentLoop => {
                write!(f, "`{path}` loops back to the entity; it became a root")
            }
            NoteKind::ParentOutside { parent } => write!(
                f,
                "`{path}` names entity `{parent}`, which the file does not hold; it became a root"
            ),
            NoteKind::NotForgeComponent => write!(
                f,
                "`{path}` kept as a custom component, but it does not derive `ForgeComponent` (or no schemas were given): the scene loader refuses it until it does"
            ),
            NoteKind::Handle {
                field,
                path: Some(asset),
            } => write!(
                f,
                "`{path}` left out: its field `{field}` is an asset handle (to `{}`), which a custom field cannot hold",
                asset.escape_debug()
            ),
            NoteKind::Handle { field, path: None } => write!(
                f,
                "`{path}` left out: its field `{field}` is an asset handle, which a custom field cannot hold (and the file does not say its asset path)"
            ),
            NoteKind::Renamed { to } => {
                write!(f, "`{path}` was renamed to `{to}`: written as `{to}`")
            }
            NoteKind::RenamedField { from, to } => write!(
                f,
                "`{path}`: field `{from}` was renamed to `{to}`: written as `{to}`"
            ),
            NoteKind::NeedsType { field: Some(field) } => write!(
                f,
                "`{path}` left out: without its type, its field `{field}` cannot be written faithfully (a list, a nested value, an enum, or a number that may be an entity); import with the game's schema file (`--schema`) to keep it"
            ),
            NoteKind::NeedsType { field: None } => write!(
                f,
                "`{path}` left out: without its type, its value cannot be written faithfully; import with the game's schema file (`--schema`) to keep it"
            ),
            NoteKind::NotInSchema => write!(
                f,
                "`{path}` is not in the schema file (not a `ForgeComponent` of the game); left out"
            ),
            NoteKind::RemovedFields { fields } => write!(
                f,
                "`{path}` read without {}: not a field of the type as registered (Bevy 0.20's), so its value is lost",
                fields
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            NoteKind::Unreadable {
                field: Some(field),
                line,
                column,
                message,
            } => write!(
                f,
                "`{path}` left out: its field `{field}` does not read as its type ({line}:{column}: {message})"
            ),
            NoteKind::Unreadable {
                field: None,
                line,
                column,
                message,
            } => write!(
                f,
                "`{path}` left out: its value does not read as its type ({line}:{column}: {message})"
            ),
        }
    }
}
