//! The game's components read without its types (feature `import`): typed by its schemas
//! (`forge import --schema game.forge-schema.ron`, [`ImportOptions::schema_file`]), or, with
//! no schema, kept only where the text alone says what they hold.
//!
//! **By schema.** A component whose type path a schema has (exactly, as one of its
//! `renamed_from` paths, or by its type name when only one schema has it) is read with the
//! schema's [`FieldKind`]s (`super::typed`), every era's spelling of entities, vectors,
//! colours and handles included, and written
//! as a `custom` component under the schema's type path: each field an expression of its kind
//! (`Vec3::new(..)`, `Mode::Alert { radius: 3.0 }`, `vec!["gold"]`), an `Entity` as `#id`,
//! fields at the schema's default left out, old field names (`renamed_from`) written as the new
//! ones. What a field expression cannot hold (an asset handle, a map) leaves the component out,
//! with a note naming the field; so does a field whose text does not read as its kind.
//!
//! [`FieldKind`]: crate::schema::FieldKind
//!
//! **Without a schema** (and not in the type registry), a struct component whose fields are
//! booleans, strings, numbers or `Option`s of them is written as it stands, and a unit marker
//! `()` as a component without fields (the text must write it `(..)` everywhere: an enum
//! variant reads the same without its type); a number that equals an entity key of the file might be
//! an entity reference, and lists, nested values and enums cannot be told apart without the
//! type: such a component is listed ([`NoteKind::NeedsType`]), never guessed (`super::loose`).
//!
//! [`ImportOptions::schema_file`]: super::ImportOptions::schema_file
//! [`NoteKind::NeedsType`]: super::NoteKind::NeedsType

use std::any::TypeId;
use std::collections::HashMap;

use bevy_ecs::entity::Entity;

use super::eras::Keys;
use super::loose::{Loose, index_reference};
use super::typed::{TypedComponent, Unwritable};
use super::{ImportOptions, NoteKind};
use crate::format::{ComponentData, CustomComponent, CustomField, EntityNode};
use crate::schema::ComponentSchema;

/// The last segment of a type path.
fn ident(path: &str) -> &str {
    let outer = path.split('<').next().unwrap_or(path);
    outer.rsplit("::").next().unwrap_or(outer)
}

/// The schemas an import types components with: the game's [`ForgeSchemas`] (with the Rust
/// type of each) and a schema file.
///
/// [`ForgeSchemas`]: crate::ForgeSchemas
#[derive(Default)]
pub(crate) struct SchemaIndex {
    schemas: Vec<ComponentSchema>,
    /// A schema's index by its Rust type (the game's `ForgeSchemas`).
    by_type: HashMap<TypeId, usize>,
    by_path: HashMap<String, usize>,
    by_old_path: HashMap<String, usize>,
    /// Schema type names that only one schema has.
    by_name: HashMap<String, Option<usize>>,
    /// Whether a schema file was given: an unknown game type is then "not in the schema".
    pub(crate) has_file: bool,
}

/// How a type path of the file resolved to a schema.
#[derive(Clone, Copy)]
pub(crate) struct Resolved<'a> {
    pub(crate) schema: &'a ComponentSchema,
    /// The file wrote an old type path of it.
    pub(crate) renamed: bool,
    /// Read by schema even when the registry knows the type: its type was renamed or one of
    /// its fields was (the reflected type has only the new names).
    pub(crate) by_schema: bool,
}

impl SchemaIndex {
    /// The index of `options`' schemas.
    pub(crate) fn new(options: &ImportOptions) -> Self {
        let mut out = SchemaIndex::default();
        let add = |out: &mut SchemaIndex, schema: ComponentSchema, type_id: Option<TypeId>| {
            if out.by_path.contains_key(&schema.type_path) {
                return;
            }
            let i = out.schemas.len();
            if let Some(t) = type_id {
                out.by_type.insert(t, i);
            }
            out.by_path.insert(schema.type_path.clone(), i);
            for old in &schema.renamed_from {
                out.by_old_path.entry(old.clone()).or_insert(i);
            }
            out.by_name
                .entry(schema.type_name.clone())
                .and_modify(|e| *e = None)
                .or_insert(Some(i));
            out.schemas.push(schema);
        };
        if let Some(schemas) = &options.schemas {
            for path in schemas.type_paths() {
                if let Some(entry) = schemas.entry(&path) {
                    add(
                        &mut out,
                        ComponentSchema::clone(&entry.schema),
                        Some(entry.type_id),
                    );
                }
            }
        }
        if let Some(file) = &options.schema_file {
            out.has_file = true;
            for schema in &file.components {
                add(&mut out, schema.clone(), None);
            }
        }
        out
    }

    /// The schema of the component the file writes as `type_path` (registered as `type_id`
    /// in the registry the import reads with, when it is).
    pub(crate) fn resolve(&self, type_path: &str, type_id: Option<TypeId>) -> Option<Resolved<'_>> {
        let fields_renamed =
            |s: &ComponentSchema| s.fields.iter().any(|f| !f.renamed_from.is_empty());
        let found = |i: usize, renamed: bool| {
            let schema = &self.schemas[i];
            Resolved {
                schema,
                renamed,
                by_schema: renamed || fields_renamed(schema),
            }
        };
        if let Some(i) = type_id.and_then(|t| self.by_type.get(&t)) {
            return Some(found(*i, false));
        }
        if let Some(i) = self.by_path.get(type_path) {
            return Some(found(*i, false));
        }
        if let Some(i) = self.by_old_path.get(type_path) {
            return Some(found(*i, true));
        }
        if type_id.is_some() {
            // A reflected type the schemas do not have: read by reflection.
            return None;
        }
        match self.by_name.get(ident(type_path)) {
            Some(Some(i)) => Some(found(*i, false)),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// What the reading found, mapped once the entities have their ids.

/// A component read by schema or without a type, or listed.
#[derive(Debug, Clone)]
pub(crate) enum Extra {
    /// Read by its schema; `renamed` is the old type path the file wrote.
    Typed {
        schema_path: String,
        component: TypedComponent,
        default: Vec<(String, Option<String>)>,
        renamed: bool,
    },
    /// Read without a type (no registry or schema knows it); `plain` when the file writes it
    /// `(..)` everywhere (a struct or a unit struct, not an enum variant).
    Loose { value: Loose, plain: bool },
    /// Left out, with the note that says why.
    Listed(NoteKind),
}

/// Everything [`Extra`] the reading found, by entity (as read) and type path (as written).
#[derive(Debug, Default)]
pub(crate) struct Extras {
    pub(crate) parts: Vec<(Entity, String, Extra)>,
    /// The entity keys the file writes, as numbers (a number equal to one may be a reference).
    pub(crate) key_numbers: Vec<u64>,
    /// How the file writes references.
    pub(crate) keys: Option<Keys>,
}

impl Extras {
    /// Adds the components of the entity read as `entity` to `node` (its new id is `id`), and
    /// what was left out to `notes`; entity references through `ids`.
    pub(crate) fn map_entity(
        &self,
        entity: Entity,
        node: &mut EntityNode,
        notes: &mut Vec<(String, NoteKind)>,
        ids: &HashMap<Entity, u64>,
    ) {
        let refer = |e: Entity| ids.get(&e).map(|id| format!("#{id}"));
        for (_, written, extra) in self.parts.iter().filter(|(e, _, _)| *e == entity) {
            match extra {
                Extra::Listed(kind) => notes.push((written.clone(), kind.clone())),
                Extra::Typed {
                    schema_path,
                    component,
                    default,
                    renamed,
                } => {
                    let mut fields = Vec::new();
                    let mut failed = None;
                    for (name, value) in &component.fields {
                        match value.render(&refer) {
                            Ok(expr) => {
                                let at_default = default
                                    .iter()
                                    .any(|(n, d)| n == name && d.as_deref() == Some(&expr));
                                if !at_default {
                                    fields.push(CustomField::new(name.as_str(), expr));
                                }
                            }
                            Err(why) => {
                                failed = Some(match why {
                                    Unwritable::Handle(path) => NoteKind::Handle {
                                        field: name.clone(),
                                        path,
                                    },
                                    Unwritable::Other(_) | Unwritable::Outside => {
                                        NoteKind::Unwritable {
                                            field: Some(name.clone()),
                                        }
                                    }
                                });
                                break;
                            }
                        }
                    }
                    if *renamed {
                        notes.push((
                            written.clone(),
                            NoteKind::Renamed {
                                to: schema_path.clone(),
                            },
                        ));
                    }
                    for (from, to) in &component.renamed_fields {
                        notes.push((
                            schema_path.clone(),
                            NoteKind::RenamedField {
                                from: from.clone(),
                                to: to.clone(),
                            },
                        ));
                    }
                    match failed {
                        Some(kind) => notes.push((schema_path.clone(), kind)),
                        None => node.components.push(ComponentData::Custom(CustomComponent {
                            type_path: schema_path.as_str().into(),
                            fields,
                        })),
                    }
                }
                Extra::Loose { .. } if !crate::validate::is_type_path(written) => {
                    notes.push((written.clone(), NoteKind::TypePath));
                }
                Extra::Loose { value, plain } => match self.loose_component(value, *plain, ids) {
                    Ok(fields) => {
                        node.components.push(ComponentData::Custom(CustomComponent {
                            type_path: written.as_str().into(),
                            fields,
                        }));
                        notes.push((written.clone(), NoteKind::NotForgeComponent));
                    }
                    Err(field) => notes.push((written.clone(), NoteKind::NeedsType { field })),
                },
            }
        }
    }

    /// The fields of a component read without a type, or the field (`None`: the value as a
    /// whole) that needs the type.
    fn loose_component(
        &self,
        value: &Loose,
        plain: bool,
        ids: &HashMap<Entity, u64>,
    ) -> Result<Vec<CustomField>, Option<String>> {
        if !plain {
            return Err(None);
        }
        // From 0.11 on, references are numbers equal to a key: such a number may be one.
        let numbers_refer = !matches!(self.keys, Some(Keys::Index) | None);
        let key = |n: i128| {
            numbers_refer && u64::try_from(n).is_ok_and(|n| self.key_numbers.contains(&n))
        };
        match value {
            Loose::Unit => Ok(Vec::new()),
            Loose::Map(fields) => {
                let mut out = Vec::new();
                for (name, v) in fields {
                    if !crate::validate::is_field_name(name) {
                        return Err(None);
                    }
                    // Bevy 0.9-0.10 wrote references as `(generation: g, index: i)`.
                    let expr = match (self.keys, v) {
                        (Some(Keys::Index), Loose::Map(m)) => index_reference(m, ids),
                        _ => v.expr(&key),
                    };
                    out.push(CustomField::new(
                        name.as_str(),
                        expr.ok_or_else(|| Some(name.clone()))?,
                    ));
                }
                Ok(out)
            }
            _ => Err(None),
        }
    }
}

/// `#id` of a Bevy 0.9-0.10 reference `(generation: g, index: i)` to an entity of the file.
/// The defaults of `schema`'s fields, by name.
pub(crate) fn defaults(schema: &ComponentSchema) -> Vec<(String, Option<String>)> {
    schema
        .fields
        .iter()
        .map(|f| (f.name.clone(), f.default.clone()))
        .collect()
}

/// Whether every entry `"type_path": ..` of `text` opens with `(`: a struct, tuple struct or
/// unit struct, not an enum variant (`Alert(..)`, `Idle`), which reads the same without its
/// type.
pub(crate) fn written_plain(text: &str, type_path: &str) -> bool {
    let b = text.as_bytes();
    let pattern = format!("\"{type_path}\"");
    let mut any = false;
    for at in memchr::memmem::find_iter(b, pattern.as_bytes()) {
        let mut i = at + pattern.len();
        let skip = |i: &mut usize| {
            while *i < b.len() && b[*i].is_ascii_whitespace() {
                *i += 1;
            }
        };
        skip(&mut i);
        if b.get(i) != Some(&b':') {
            continue;
        }
        i += 1;
        skip(&mut i);
        if b.get(i) != Some(&b'(') {
            return false;
        }
        any = true;
    }
    any
}
