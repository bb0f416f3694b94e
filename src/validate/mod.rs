//! Validation of a scene document (the format page, "Validation" and "Asset paths").
//!
//! [`validate_scene`] checks a [`SceneDoc`] against every rule of the page and gathers all
//! problems into a [`ValidationReport`]; [`validate_parsed`] does the same for a document read from
//! text and fills in the line and column of each problem from the [`SourceMap`]. The codes are
//! listed on [`Diagnostic`].
//!
//! The rules, by where they look: `structure` (the forest, names), `entity` (transforms and
//! each component's values and asset paths), `scene` (cameras and lights across the scene),
//! `names` (identifiers and type paths), and `custom` (custom components against schemas, shared
//! with the scene loader).
//!
//! Validation is pure (no file system, no Bevy), runs in time linear in the size of the document,
//! never panics, and terminates on every document, including malformed forests with cycles.
//!
//! Custom components are checked for shape only (type path, field names, non-empty
//! expressions): their types live in the game. [`validate_parsed_with_schemas`] also checks them
//! against a schema file the game exported, as the scene loader does.
//!
//! # Custom component type paths
//!
//! A type path is one or more identifier segments separated by `::`, without spaces: `Health`,
//! `my_game::Health`, `my_game::components::Health`, `crate::Health`. A segment is a Rust
//! identifier (Unicode `XID_Start` or `_`, then `XID_Continue`; not `_` alone) that is not a
//! keyword, or a raw identifier such as `r#match`; `crate` is allowed as the first segment.
//! **Generic arguments are not allowed** (`Timer<Fast>`): the editor cannot check them and code
//! generation would have to parse Rust types. Declare a type alias in the game
//! (`type FastTimer = Timer<Fast>;`) and use its path instead. Field names follow the same
//! identifier rule (`radius`, `r#type`), or are the decimal index of a tuple struct field (`0`,
//! `1`, as [`ComponentSchema`](crate::schema::ComponentSchema) names them; no leading zeros).

mod asset_path;
pub(crate) mod custom;
pub(crate) mod diagnostic;
mod entity;
mod gltf;
mod instance;
mod layer;
pub(crate) mod model;
mod names;
pub(crate) mod parts;
pub(crate) mod renamed;
pub mod report;
mod scene;
mod site;
mod structure;
mod value;

pub use diagnostic::{Diagnostic, Related, Severity};
pub(crate) use entity::missing_asset;
/// The node tree of a glTF model, read offline from its JSON (what `forge` shows and checks).
#[cfg(feature = "gltf")]
pub use gltf::{ModelEntity, ModelLight, ModelTree, NodeMiss, NodeParts};
pub(crate) use instance::is_component_key;
pub(crate) use names::{is_field_name, is_type_path};

use entity::entity;
use scene::{SceneFacts, scene_rules};
use structure::{duplicate_names, scene_name, structure};

use crate::codes;
use crate::format::{OverridePart, ParsedScene, Position, ReadWarningKind, SceneDoc, SourceMap};
use crate::project::AssetIndex;
use crate::schema::SchemaFile;

/// Everything validation found, sorted: errors first, then warnings, then info; within a
/// severity by entity id (scene-wide issues, with no entity, first), then by message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidationReport {
    /// The diagnostics, in the order above.
    pub diagnostics: Vec<Diagnostic>,
}

impl ValidationReport {
    /// Whether any diagnostic is an [`Error`](Severity::Error).
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// Whether any diagnostic is a [`Warning`](Severity::Warning).
    pub fn has_warnings(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning)
    }

    /// How many diagnostics have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }

    /// How many errors.
    pub fn error_count(&self) -> usize {
        self.count(Severity::Error)
    }

    /// How many warnings.
    pub fn warning_count(&self) -> usize {
        self.count(Severity::Warning)
    }

    /// How many info diagnostics.
    pub fn info_count(&self) -> usize {
        self.count(Severity::Info)
    }

    /// Whether there is nothing to report at all.
    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
    }

    /// The number of diagnostics.
    pub fn len(&self) -> usize {
        self.diagnostics.len()
    }

    /// The diagnostics in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.diagnostics.iter()
    }

    /// The diagnostics about entity `id`, in order.
    pub fn for_entity(&self, id: u64) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(move |d| d.entity == Some(id))
    }
}

impl IntoIterator for ValidationReport {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.diagnostics.into_iter()
    }
}

/// Diagnostics from several checks (a scene's rules, its prefab instances' expansion) in one
/// report, in the report's order.
impl FromIterator<Diagnostic> for ValidationReport {
    fn from_iter<I: IntoIterator<Item = Diagnostic>>(diagnostics: I) -> Self {
        finish(diagnostics.into_iter().collect())
    }
}

impl<'a> IntoIterator for &'a ValidationReport {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.diagnostics.iter()
    }
}

/// Validates `doc` against every rule of the format page's "Validation" section.
///
/// With `assets`, sprite images and asset meshes must exist in the index and have the right
/// kind; with `None` those two checks are skipped (the path shape rules still apply).
/// Positions are `None`: use [`validate_parsed`] for a document read from text.
pub fn validate_scene(doc: &SceneDoc, assets: Option<&AssetIndex>) -> ValidationReport {
    let found = collect(doc, assets);
    finish(found.into_iter().map(|(d, _)| d).collect())
}

/// Validates a document read from text: the rules of [`validate_scene`], with the line and column
/// of every problem taken from the parse's [`SourceMap`], plus a
/// [`forge::format::version_zero`](crate::validate::Diagnostic) warning when the file said
/// `format_version: 0`.
pub fn validate_parsed(parsed: &ParsedScene, assets: Option<&AssetIndex>) -> ValidationReport {
    finish(parsed_diagnostics(parsed, assets))
}

/// Validates a document read from `text` like [`validate_parsed`], and checks its custom
/// components against `schemas` (a game's exported [`SchemaFile`], see
/// [`ForgeSchemas::export`](crate::ForgeSchemas::export)) as the scene loader checks
/// them against the game's types: the same `forge::custom::*` codes (`unknown_type` with "did
/// you mean", `unknown_field` with the field list, `missing_required`, `expr`, `range`),
/// messages, lines and columns. This is `forge validate --schema`. A type or field the
/// schemas say was renamed (`renamed_from`) is checked under its new name, with one warning
/// where the old name is written (`forge::custom::renamed`, `forge::custom::renamed_field`), as
/// the loader does.
///
/// Without the game's type registry two loader checks cannot be made: `not_allowed` (a type
/// path naming an engine type or resource is reported as `unknown_type`) and whether nested
/// game types have a reflected `Default` for `..default()` (see
/// [`evaluate_schema`](crate::schema::expr::evaluate_schema)).
pub fn validate_parsed_with_schemas(
    parsed: &ParsedScene,
    assets: Option<&AssetIndex>,
    schemas: &SchemaFile,
) -> ValidationReport {
    // Old names the schemas list (`renamed_from`) are read as the new ones, with a warning.
    let renames = crate::schema::renames::Renames::new(&schemas.components);
    let copy;
    let (parsed, mut diagnostics) = if renames.is_empty() {
        (parsed, Vec::new())
    } else {
        let mut renamed = parsed.clone();
        let warnings = renamed::apply(&renames, &mut renamed);
        copy = renamed;
        (&copy, warnings)
    };
    diagnostics.extend(parsed_diagnostics(parsed, assets));
    diagnostics.extend(custom::check_offline(
        &parsed.doc,
        0..parsed.doc.entities.len(),
        &parsed.source_map,
        schemas,
        &custom::Referable::own(&parsed.doc),
    ));
    finish(diagnostics)
}

/// The entity references (`#7`, `#7/2`) in the custom component fields of `parsed`, checked
/// without schemas: each must name an entity of the scene (the `format` module docs, "Entity
/// references"); one that does not is an error (`forge::custom::reference`) at its line and
/// column, with the entities beside the id it names. [`validate_parsed_with_schemas`] and the
/// loader check the same, with whether the field holds an `Entity`. A reference into a prefab
/// instance (`#7/2`) needs the instance expanded:
/// [`pipeline::check`](crate::pipeline::check) checks those.
pub fn validate_references(parsed: &ParsedScene) -> Vec<Diagnostic> {
    let found = custom::check_references(
        &parsed.doc,
        0..parsed.doc.entities.len(),
        &parsed.source_map,
        &custom::Referable::own(&parsed.doc),
    );
    finish(found).diagnostics
}

/// The diagnostics of [`validate_parsed`], unsorted.
fn parsed_diagnostics(parsed: &ParsedScene, assets: Option<&AssetIndex>) -> Vec<Diagnostic> {
    parts::RuleParts::whole(parsed, assets).diagnostics()
}

/// `d`, found where `loc` says in `parsed`, with its line and column.
fn placed(parsed: &ParsedScene, mut d: Diagnostic, loc: Loc) -> Diagnostic {
    let map = &parsed.source_map;
    d.position = match (loc, d.entity) {
        (Loc::LayerChar(row, byte), Some(id)) => parsed
            .doc
            .layer(id)
            .and_then(|l| l.rows.get(row))
            .and_then(|text| map.layer_char(id, row, text, byte)),
        _ => None,
    }
    .or_else(|| resolve(loc, d.entity, map));
    d
}

/// What the reader noticed, as diagnostics: `format_version: 0`, merge conflict markers.
fn read_warnings(parsed: &ParsedScene) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for warning in &parsed.warnings {
        match &warning.kind {
            ReadWarningKind::FormatVersionZero => {
                let mut d = Diagnostic::new(
                    Severity::Warning,
                    codes::format::VERSION_ZERO,
                    "the file says `format_version: 0`; it was read as format 1",
                )
                .with_path("format_version")
                .with_help("saving the scene writes `format_version: 1`");
                d.position = Some(warning.position);
                diagnostics.push(d);
            }
            ReadWarningKind::MergeConflict { note } => {
                diagnostics.push(merge_conflict(parsed, warning.position, note));
            }
        }
    }
    diagnostics
}

/// The error of a merge conflict marker (the format page, "Merge conflict markers"), in the
/// entity whose entry holds it.
fn merge_conflict(parsed: &ParsedScene, at: Position, note: &str) -> Diagnostic {
    let entries = &parsed.source_map.entities;
    let index = entries
        .as_slice()
        .partition_point(|_, e| e.entry.start as usize <= at.offset);
    let entity = index
        .checked_sub(1)
        .and_then(|i| entries.get_index(i))
        .filter(|(_, e)| at.offset < e.entry.end as usize)
        .map(|(id, _)| *id);
    let message = if let Some(value) = note.strip_prefix("theirs = ") {
        format!(
            "unresolved merge conflict: both branches changed the value before this marker; the file keeps this branch's, the other branch has `{value}`"
        )
    } else if note == "theirs removes this" {
        "unresolved merge conflict: the other branch deleted the entry before this marker, which this branch changed; the file keeps it".to_owned()
    } else if note.starts_with("theirs keeps ") {
        "unresolved merge conflict: this branch deleted entries that the other branch changed; the marker holds the other branch's version".to_owned()
    } else {
        format!("unresolved merge conflict: `{note}`")
    };
    let mut d = Diagnostic::new(Severity::Error, codes::merge::CONFLICT, message).with_help(
        "keep one side and delete the marker: the value as it is (ours), or the marker's (theirs); `forge lsp` offers both as code actions",
    );
    d.entity = entity;
    d.position = Some(at);
    d
}

fn finish(mut diagnostics: Vec<Diagnostic>) -> ValidationReport {
    // Severity, entity and message; what else differs only breaks ties, so the order does not
    // depend on the order the rules ran in (a check of a few entities again gives the list a
    // whole check gives).
    diagnostics.sort_by(|a, b| {
        (a.severity, a.entity, &a.message)
            .cmp(&(b.severity, b.entity, &b.message))
            .then_with(|| {
                (&a.file, a.position, &a.path, a.code, &a.help)
                    .cmp(&(&b.file, b.position, &b.path, b.code, &b.help))
            })
    });
    ValidationReport { diagnostics }
}

/// Where a diagnostic points in the source, resolved against a [`SourceMap`].
#[derive(Debug, Clone, Copy)]
enum Loc {
    /// A top-level field's value.
    Top(&'static str),
    /// The entity's entry.
    Entity,
    /// A field of the entity (`name`, `transform.scale.x`).
    EntityField(&'static str),
    /// A component's entry.
    Component(usize),
    /// A payload field of a component (`font_size`, `material.metallic`).
    ComponentField(usize, &'static str),
    /// The `name` of a custom field.
    CustomName(usize, usize),
    /// The `expr` of a custom field.
    CustomExpr(usize, usize),
    /// The `scene` of the entity's instance.
    InstanceScene,
    /// A field of the `streaming` of the entity's instance (`load_radius`, `unload_radius`).
    InstanceStreaming(&'static str),
    /// A part of override `i` of the entity's instance (or of the tile layer with the
    /// diagnostic's entity as its id).
    Override(usize, OverridePart<'static>),
    /// A part of the tile layer whose id is the diagnostic's entity.
    Layer(crate::format::LayerPart<'static>),
    /// The character at byte `.1` of row `.0` of the tile layer whose id is the diagnostic's
    /// entity.
    LayerChar(usize, usize),
}

fn resolve(loc: Loc, entity: Option<u64>, map: &SourceMap) -> Option<Position> {
    let Some(id) = entity else {
        return match loc {
            Loc::Top(field) => map.top_field(field),
            _ => None,
        };
    };
    let entry = || map.entity(id);
    let component = |i| map.component(id, i).or_else(entry);
    match loc {
        Loc::Top(field) => map.top_field(field),
        Loc::Entity => entry(),
        Loc::EntityField(field) => map.entity_field(id, field).or_else(entry),
        Loc::Component(i) => component(i),
        Loc::ComponentField(i, field) => map.component_field(id, i, field).or_else(|| component(i)),
        Loc::CustomName(i, j) => map
            .custom_field_name(id, i, j)
            .or_else(|| map.custom_field(id, i, j))
            .or_else(|| component(i)),
        Loc::CustomExpr(i, j) => map
            .custom_field_expr(id, i, j)
            .or_else(|| map.custom_field(id, i, j))
            .or_else(|| component(i)),
        Loc::InstanceScene => map
            .instance_scene(id)
            .or_else(|| map.entity_field(id, "instance"))
            .or_else(entry),
        Loc::InstanceStreaming(field) => map
            .instance_streaming(id, field)
            .or_else(|| map.entity_field(id, "instance"))
            .or_else(entry),
        Loc::Override(i, part) => map
            .override_part(id, i, part)
            .or_else(|| map.override_part(id, i, OverridePart::Entry))
            .or_else(|| map.entity_field(id, "instance"))
            .or_else(entry)
            .or_else(|| map.layer_part(id, crate::format::LayerPart::Entry)),
        Loc::Layer(part) => map
            .layer_part(id, part)
            .or_else(|| map.layer_part(id, crate::format::LayerPart::Entry)),
        // Placed by `parsed_diagnostics`, which has the row's text.
        Loc::LayerChar(row, _) => map.layer_part(id, crate::format::LayerPart::Row(row)),
    }
}

/// Gathers diagnostics (unsorted, without positions) with where each one points.
struct Collector {
    found: Vec<(Diagnostic, Loc)>,
}

impl Collector {
    fn push(&mut self, d: Diagnostic, loc: Loc) {
        self.found.push((d, loc));
    }
}

fn collect(doc: &SceneDoc, assets: Option<&AssetIndex>) -> Vec<(Diagnostic, Loc)> {
    let mut c = Collector { found: Vec::new() };
    structure(&mut c, doc);
    scene_name(&mut c, doc);
    duplicate_names(&mut c, doc);

    let mut scene = SceneFacts::default();
    for (&id, node) in &doc.entities {
        entity(&mut c, id, node, assets, &mut scene);
    }
    scene_rules(&mut c, &scene);
    layer::layers(&mut c, doc);
    c.found
}
