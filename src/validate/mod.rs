//! Validation of a scene document (the format page, "Validation" and "Asset paths").
//!
//! [`validate_scene`] checks a [`SceneDoc`] against every rule of the page and gathers all
//! problems into a [`ValidationReport`]; [`validate_parsed`] does the same for a document read from
//! text and fills in the line and column of each problem from the [`SourceMap`]. The codes are
//! listed in [`crate::validate::diagnostic`].
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

pub(crate) mod custom;
pub mod diagnostic;

pub use diagnostic::{Diagnostic, Severity};

use bevy_platform::collections::{HashMap, HashSet};

use crate::format::{
    Color, ComponentData, CustomComponent, EntityNode, IntegrityProblem, MeshSource, ParsedScene,
    Position, PrimitiveShape, ReadWarningKind, SceneDoc, SourceMap, Vec3,
};
use crate::project::{AssetIndex, AssetKind, AssetPathError, check_asset_path};
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
/// [`forge::format::version_zero`](crate::validate::diagnostic) warning when the file said
/// `format_version: 0`.
pub fn validate_parsed(parsed: &ParsedScene, assets: Option<&AssetIndex>) -> ValidationReport {
    finish(parsed_diagnostics(parsed, assets))
}

/// Validates a document read from `text` like [`validate_parsed`], and checks its custom
/// components against `schemas` (a game's exported [`SchemaFile`], see
/// [`ForgeSchemas::export`](crate::runtime::ForgeSchemas::export)) as the scene loader checks
/// them against the game's types: the same `forge::custom::*` codes (`unknown_type` with "did
/// you mean", `unknown_field` with the field list, `missing_required`, `expr`, `range`),
/// messages, lines and columns. This is `forge validate --schema`.
///
/// Without the game's type registry two loader checks cannot be made: `not_allowed` (a type
/// path naming an engine type or resource is reported as `unknown_type`) and whether nested
/// game types have a reflected `Default` for `..default()` (see
/// [`evaluate_schema`](crate::schema::expr::evaluate_schema)).
///
/// `text` is the text `parsed` was read from (with or without a byte-order mark); it lets
/// expression errors point inside the expression.
pub fn validate_parsed_with_schemas(
    parsed: &ParsedScene,
    text: &str,
    assets: Option<&AssetIndex>,
    schemas: &SchemaFile,
) -> ValidationReport {
    let mut diagnostics = parsed_diagnostics(parsed, assets);
    diagnostics.extend(custom::check_offline(parsed, Some(text), schemas));
    finish(diagnostics)
}

/// The diagnostics of [`validate_parsed`], unsorted.
fn parsed_diagnostics(parsed: &ParsedScene, assets: Option<&AssetIndex>) -> Vec<Diagnostic> {
    let map = &parsed.source_map;
    let mut diagnostics: Vec<Diagnostic> = collect(&parsed.doc, assets)
        .into_iter()
        .map(|(mut d, loc)| {
            d.position = resolve(loc, d.entity, map);
            d
        })
        .collect();
    for warning in &parsed.warnings {
        match warning.kind {
            ReadWarningKind::FormatVersionZero => {
                let mut d = Diagnostic::new(
                    Severity::Warning,
                    "forge::format::version_zero",
                    "the file says `format_version: 0`; it was read as format 1",
                )
                .with_path("format_version")
                .with_help("saving the scene writes `format_version: 1`");
                d.position = Some(warning.position);
                diagnostics.push(d);
            }
        }
    }
    diagnostics
}

fn finish(mut diagnostics: Vec<Diagnostic>) -> ValidationReport {
    diagnostics.sort_by(|a, b| {
        (a.severity, a.entity, &a.message).cmp(&(b.severity, b.entity, &b.message))
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
    }
}

const TRANSFORM_PATHS: [(&str, [&str; 3]); 3] = [
    (
        "translation",
        [
            "transform.translation.x",
            "transform.translation.y",
            "transform.translation.z",
        ],
    ),
    (
        "rotation",
        [
            "transform.rotation.x",
            "transform.rotation.y",
            "transform.rotation.z",
        ],
    ),
    (
        "scale",
        [
            "transform.scale.x",
            "transform.scale.y",
            "transform.scale.z",
        ],
    ),
];

const AXES: [&str; 3] = ["x", "y", "z"];

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
    if doc.name.trim().is_empty() {
        c.push(
            Diagnostic::new(
                Severity::Warning,
                "forge::scene::empty_name",
                if doc.name.is_empty() {
                    "the scene name is empty".to_owned()
                } else {
                    "the scene name is only whitespace".to_owned()
                },
            )
            .with_path("name")
            .with_help("give the scene a display name; it is independent of the file name"),
            Loc::Top("name"),
        );
    }
    duplicate_names(&mut c, doc);

    let mut scene = SceneFacts::default();
    for (&id, node) in &doc.entities {
        entity(&mut c, id, node, assets, &mut scene);
    }
    scene_rules(&mut c, &scene);
    c.found
}

/// The forest rules, through [`SceneDoc::check_integrity`].
fn structure(c: &mut Collector, doc: &SceneDoc) {
    for problem in doc.check_integrity() {
        let (code, help) = match &problem {
            IntegrityProblem::KeyIdMismatch { key, id } => (
                "forge::structure::id_mismatch",
                format!("set `id: {key}`, or move the entry under the key `{id}`"),
            ),
            IntegrityProblem::MissingParent { parent, .. } => (
                "forge::structure::missing_parent",
                format!(
                    "create entity {parent}, or set `parent: None` and list the entity in `roots`"
                ),
            ),
            IntegrityProblem::MissingChild { child, .. } => (
                "forge::structure::missing_child",
                format!("remove {child} from `children`"),
            ),
            IntegrityProblem::MissingRoot { id } => (
                "forge::structure::missing_root",
                format!("remove {id} from `roots`"),
            ),
            IntegrityProblem::NotListedByParent { id, parent } => (
                "forge::structure::not_listed_by_parent",
                format!("add {id} to the `children` of entity {parent}, or change `parent`"),
            ),
            IntegrityProblem::ChildDisagrees { id, child, .. } => (
                "forge::structure::child_disagrees",
                format!(
                    "set `parent: Some({id})` on entity {child}, or remove {child} from `children`"
                ),
            ),
            IntegrityProblem::RootHasParent { .. } => (
                "forge::structure::root_has_parent",
                "set `parent: None`, or remove the entity from `roots`".to_owned(),
            ),
            IntegrityProblem::DuplicateReference { .. } => (
                "forge::structure::duplicate_reference",
                "list each entity exactly once: in `roots` or in one parent's `children`"
                    .to_owned(),
            ),
            IntegrityProblem::Unplaced { .. } => (
                "forge::structure::unplaced",
                "add the entity to `roots` (with `parent: None`) or to its parent's `children`"
                    .to_owned(),
            ),
            IntegrityProblem::SelfParent { .. } => (
                "forge::structure::self_parent",
                "set `parent: None` or another entity".to_owned(),
            ),
            IntegrityProblem::Cycle { .. } => (
                "forge::structure::cycle",
                "make one entity of the cycle a root (`parent: None`, listed in `roots`)"
                    .to_owned(),
            ),
            IntegrityProblem::NextIdTooLow { max_id, .. } => (
                "forge::structure::next_id",
                match max_id.checked_add(1) {
                    Some(next) => format!("set `next_id: {next}`"),
                    None => "ids must stay below the largest `u64`".to_owned(),
                },
            ),
        };
        let field = problem.field();
        let mut d = Diagnostic::new(Severity::Error, code, problem.to_string())
            .with_path(field)
            .with_help(help);
        let loc = match problem.entity() {
            Some(id) => {
                d.entity = Some(id);
                Loc::EntityField(field)
            }
            None => Loc::Top(field),
        };
        c.push(d, loc);
    }
}

/// Whether a name counts as blank (empty or whitespace only).
fn blank(name: &str) -> bool {
    name.trim().is_empty()
}

fn duplicate_names(c: &mut Collector, doc: &SceneDoc) {
    // Count first, so only repeated names get a list of ids.
    let mut counts: HashMap<&str, usize> = HashMap::with_capacity(doc.entities.len());
    for node in doc.entities.values() {
        if !blank(&node.name) {
            *counts.entry(node.name.as_str()).or_default() += 1;
        }
    }
    let mut by_name: HashMap<&str, Vec<u64>> = HashMap::new();
    for (&id, node) in &doc.entities {
        if counts.get(node.name.as_str()).is_some_and(|n| *n > 1) {
            by_name.entry(node.name.as_str()).or_default().push(id);
        }
    }
    for (&id, node) in &doc.entities {
        let Some(ids) = by_name.get(node.name.as_str()) else {
            continue;
        };
        if ids.len() < 2 {
            continue;
        }
        // Keys are unique, so `id` is in `ids` exactly once; look at no more than four ids.
        let shown: Vec<String> = ids
            .iter()
            .filter(|o| **o != id)
            .take(3)
            .map(u64::to_string)
            .collect();
        let more = ids.len() - 1 - shown.len();
        let list = match (shown.as_slice(), more) {
            ([one], 0) => format!("entity {one}"),
            ([rest @ .., last], 0) => format!("entities {} and {last}", rest.join(", ")),
            (_, more) => format!("entities {} and {more} more", shown.join(", ")),
        };
        c.push(
            Diagnostic::new(
                Severity::Warning,
                "forge::name::duplicate",
                format!("entity name `{}` is also used by {list}", node.name),
            )
            .with_entity(id)
            .with_path("name")
            .with_help("give each entity its own name so hierarchy labels and `Name` lookups are unambiguous"),
            Loc::EntityField("name"),
        );
    }
}

/// Scene-wide counts gathered while walking the entities.
#[derive(Default)]
struct SceneFacts {
    cameras: usize,
    first_2d: Option<u64>,
    first_3d: Option<u64>,
    camera_entities: Vec<u64>,
    meshes: usize,
    lights: usize,
}

fn entity(
    c: &mut Collector,
    id: u64,
    node: &EntityNode,
    assets: Option<&AssetIndex>,
    scene: &mut SceneFacts,
) {
    if blank(&node.name) {
        c.push(
            Diagnostic::new(
                Severity::Warning,
                "forge::name::empty",
                if node.name.is_empty() {
                    "entity name is empty".to_owned()
                } else {
                    "entity name is only whitespace".to_owned()
                },
            )
            .with_entity(id)
            .with_path("name")
            .with_help("name the entity so it can be found in the hierarchy"),
            Loc::EntityField("name"),
        );
    }
    transform(c, id, node);
    components(c, id, node, assets, scene);
    if node.components.is_empty() {
        c.push(
            Diagnostic::new(
                Severity::Info,
                "forge::entity::transform_only",
                "entity has only a transform and no components",
            )
            .with_entity(id),
            Loc::Entity,
        );
    }
}

fn transform(c: &mut Collector, id: u64, node: &EntityNode) {
    let t = &node.transform;
    for ((part, paths), v) in TRANSFORM_PATHS
        .iter()
        .zip([t.translation, t.rotation, t.scale])
    {
        for ((axis, path), value) in AXES.iter().zip(paths).zip(v.to_array()) {
            if !value.is_finite() {
                c.push(
                    Diagnostic::new(
                        Severity::Error,
                        "forge::transform::non_finite",
                        format!("transform {part}.{axis} must be finite, found {value}"),
                    )
                    .with_entity(id)
                    .with_path(*path),
                    Loc::EntityField(path),
                );
            } else if *part == "scale" && value == 0.0 {
                c.push(
                    Diagnostic::new(
                        Severity::Warning,
                        "forge::transform::zero_scale",
                        format!("scale {axis} is zero, which flattens the entity and its children"),
                    )
                    .with_entity(id)
                    .with_path(*path)
                    .with_help("use a small non-zero scale, or hide the entity with a `visibility` component"),
                    Loc::EntityField(path),
                );
            }
        }
    }
}

/// A component's uniqueness key without allocating.
#[derive(PartialEq, Eq, Hash)]
enum Key<'a> {
    Builtin(&'static str),
    Custom(&'a str),
}

fn key_of(component: &ComponentData) -> Key<'_> {
    match component {
        ComponentData::Custom(custom) => Key::Custom(&custom.type_path),
        other => Key::Builtin(other.tag()),
    }
}

fn components(
    c: &mut Collector,
    id: u64,
    node: &EntityNode,
    assets: Option<&AssetIndex>,
    scene: &mut SceneFacts,
) {
    // Component lists are short; a map is only built for long ones.
    let long = node.components.len() > 8;
    let mut first_at: HashMap<Key<'_>, usize> = HashMap::new();
    for (i, component) in node.components.iter().enumerate() {
        let first = if long {
            match first_at.entry(key_of(component)) {
                bevy_platform::collections::hash_map::Entry::Occupied(first) => Some(*first.get()),
                bevy_platform::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(i);
                    None
                }
            }
        } else {
            node.components[..i]
                .iter()
                .position(|other| other.same_key(component))
        };
        if let Some(first) = first {
            c.push(
                Diagnostic::new(
                    Severity::Error,
                    "forge::component::duplicate_key",
                    format!(
                        "component `{}` appears twice on this entity (first at components[{first}])",
                        component.key(),
                    ),
                )
                .with_entity(id)
                .with_path(format!("components[{i}]"))
                .with_help("an entity holds at most one component per key; merge or remove one"),
                Loc::Component(i),
            );
        }
        let mut at = At { c, id, index: i };
        match component {
            ComponentData::Sprite(s) => {
                at.color(&s.color, "color", "sprite", "forge::sprite::non_finite");
                if let Some(image) = &s.image {
                    at.asset(image, "image", "sprite image", AssetKind::Image, assets);
                }
                if let Some(size) = s.custom_size {
                    for (axis, v) in [("x", size.x), ("y", size.y)] {
                        if !(v.is_finite() && v > 0.0) {
                            at.error(
                                "forge::sprite::custom_size",
                                "custom_size",
                                &format!("custom_size.{axis}"),
                                format!("sprite custom_size.{axis} must be positive, found {v}"),
                                Some("use `custom_size: None` for the image's own size"),
                            );
                        }
                    }
                }
                if s.image.is_none() && s.custom_size.is_none() {
                    at.c.push(
                        Diagnostic::new(
                            Severity::Warning,
                            "forge::sprite::invisible",
                            "sprite has neither an image nor a custom size, so it renders nothing",
                        )
                        .with_entity(id)
                        .with_path(format!("components[{i}]"))
                        .with_help("set `image` or `custom_size`"),
                        Loc::Component(i),
                    );
                }
            }
            ComponentData::Text2d(t) => {
                if !(t.font_size.is_finite() && t.font_size > 0.0) {
                    at.error(
                        "forge::text::font_size",
                        "font_size",
                        "font_size",
                        format!("text font_size must be positive, found {}", t.font_size),
                        Some("font_size is in pixels, for example `24.0`"),
                    );
                }
                at.color(&t.color, "color", "text", "forge::text::non_finite");
                if t.text.is_empty() {
                    at.c.push(
                        Diagnostic::new(
                            Severity::Warning,
                            "forge::text::empty",
                            "text2d text is empty, so it renders nothing",
                        )
                        .with_entity(id)
                        .with_path(format!("components[{i}].data.text")),
                        Loc::ComponentField(i, "text"),
                    );
                }
            }
            ComponentData::Camera2d => {
                scene.cameras += 1;
                scene.first_2d.get_or_insert(id);
                scene.camera_entities.push(id);
            }
            ComponentData::Camera3d => {
                scene.cameras += 1;
                scene.first_3d.get_or_insert(id);
                scene.camera_entities.push(id);
            }
            ComponentData::PointLight(l) => {
                scene.lights += 1;
                at.color(&l.color, "color", "point light", "forge::light::non_finite");
                if !l.intensity.is_finite() {
                    at.non_finite(
                        "forge::light::non_finite",
                        "intensity",
                        "point light",
                        l.intensity,
                    );
                } else if l.intensity < 0.0 {
                    at.error(
                        "forge::light::intensity",
                        "intensity",
                        "intensity",
                        format!(
                            "point light intensity must be non-negative, found {}",
                            l.intensity
                        ),
                        Some("intensity is luminous power in lumens; `0.0` turns the light off"),
                    );
                }
                if !l.range.is_finite() {
                    at.non_finite("forge::light::non_finite", "range", "point light", l.range);
                } else if l.range <= 0.0 {
                    at.error(
                        "forge::light::range",
                        "range",
                        "range",
                        format!("point light range must be positive, found {}", l.range),
                        Some("range is the cut-off distance in world units, for example `20.0`"),
                    );
                }
            }
            ComponentData::DirectionalLight(l) => {
                scene.lights += 1;
                at.color(
                    &l.color,
                    "color",
                    "directional light",
                    "forge::light::non_finite",
                );
                if !l.illuminance.is_finite() {
                    at.non_finite(
                        "forge::light::non_finite",
                        "illuminance",
                        "directional light",
                        l.illuminance,
                    );
                } else if l.illuminance < 0.0 {
                    at.error(
                        "forge::light::illuminance",
                        "illuminance",
                        "illuminance",
                        format!(
                            "directional light illuminance must be non-negative, found {}",
                            l.illuminance
                        ),
                        Some("illuminance is in lux; `0.0` turns the light off"),
                    );
                }
            }
            ComponentData::Mesh3d(m) => {
                scene.meshes += 1;
                match &m.mesh {
                    MeshSource::Primitive(shape) => at.shape(shape),
                    MeshSource::Asset(path) => {
                        at.asset(path, "mesh.value", "mesh", AssetKind::Mesh, assets);
                    }
                }
                let mat = &m.material;
                at.color(
                    &mat.base_color,
                    "material.base_color",
                    "material",
                    "forge::material::non_finite",
                );
                for (field, code, value) in [
                    (
                        "material.metallic",
                        "forge::material::metallic",
                        mat.metallic,
                    ),
                    (
                        "material.perceptual_roughness",
                        "forge::material::roughness",
                        mat.perceptual_roughness,
                    ),
                ] {
                    if !value.is_finite() {
                        at.non_finite("forge::material::non_finite", field, "material", value);
                    } else if !(0.0..=1.0).contains(&value) {
                        at.c.push(
                            Diagnostic::new(
                                Severity::Warning,
                                code,
                                format!("{field} should be within 0..=1, found {value}"),
                            )
                            .with_entity(id)
                            .with_path(format!("components[{i}].data.{field}"))
                            .with_help("0 and 1 are the physical extremes; values outside are clamped by the renderer"),
                            Loc::ComponentField(i, field),
                        );
                    }
                }
            }
            ComponentData::Visibility(_) => {}
            ComponentData::Custom(custom) => at.custom(custom),
        }
    }
}

/// Reports about component `index` of entity `id`.
struct At<'c> {
    c: &'c mut Collector,
    id: u64,
    index: usize,
}

impl At<'_> {
    /// An error at payload field `field` (a source-map field name), with `sub` the path below
    /// `data`.
    fn error(
        &mut self,
        code: &'static str,
        field: &'static str,
        sub: &str,
        message: String,
        help: Option<&str>,
    ) {
        let mut d = Diagnostic::new(Severity::Error, code, message)
            .with_entity(self.id)
            .with_path(format!("components[{}].data.{sub}", self.index));
        d.help = help.map(str::to_owned);
        self.c.push(d, Loc::ComponentField(self.index, field));
    }

    fn non_finite(&mut self, code: &'static str, field: &'static str, what: &str, value: f32) {
        self.error(
            code,
            field,
            field,
            format!("{what} {field} must be finite, found {value}"),
            None,
        );
    }

    fn color(&mut self, color: &Color, field: &'static str, what: &str, code: &'static str) {
        for (channel, v) in [
            ("r", color.r),
            ("g", color.g),
            ("b", color.b),
            ("a", color.a),
        ] {
            if !v.is_finite() {
                self.error(
                    code,
                    field,
                    &format!("{field}.{channel}"),
                    format!("{what} {field}.{channel} must be finite, found {v}"),
                    Some("colour channels are sRGB values in 0.0..=1.0"),
                );
            }
        }
    }

    fn shape(&mut self, shape: &PrimitiveShape) {
        let mut values: Vec<(&str, f32)> = Vec::new();
        let v3 = |v: Vec3| [("size.x", v.x), ("size.y", v.y), ("size.z", v.z)];
        match shape {
            PrimitiveShape::Cuboid { size } => values.extend(v3(*size)),
            PrimitiveShape::Sphere { radius } => values.push(("radius", *radius)),
            PrimitiveShape::Plane { size } => {
                values.extend([("size.x", size.x), ("size.y", size.y)]);
            }
            PrimitiveShape::Cylinder { radius, height } => {
                values.extend([("radius", *radius), ("height", *height)]);
            }
            PrimitiveShape::Capsule { radius, length } => {
                values.extend([("radius", *radius), ("length", *length)]);
            }
        }
        for (name, v) in values {
            if !v.is_finite() {
                self.error(
                    "forge::mesh::non_finite",
                    "mesh.value",
                    &format!("mesh.value.{name}"),
                    format!("{} {name} must be finite, found {v}", shape.name()),
                    None,
                );
            }
        }
    }

    fn asset(
        &mut self,
        path: &str,
        field: &'static str,
        what: &str,
        want: AssetKind,
        assets: Option<&AssetIndex>,
    ) {
        let (code, message, help) = match check_asset_path(path) {
            Err(AssetPathError::Empty) => (
                "forge::asset::empty",
                format!("{what} path is empty"),
                "write a path relative to the assets directory, like `textures/player.png`"
                    .to_owned(),
            ),
            Err(AssetPathError::Absolute(_)) => (
                "forge::asset::absolute",
                format!("{what} path `{path}` is absolute"),
                "asset paths are relative to the assets directory, like `textures/player.png`"
                    .to_owned(),
            ),
            Err(AssetPathError::ParentComponent(_)) => (
                "forge::asset::parent_dir",
                format!("{what} path `{path}` contains a `..` component"),
                "asset paths may not leave the assets directory".to_owned(),
            ),
            Err(AssetPathError::Backslash(_)) => (
                "forge::asset::backslash",
                format!("{what} path `{path}` contains a backslash"),
                format!("use `/` as the separator: `{}`", path.replace('\\', "/")),
            ),
            Ok(()) => {
                let Some(index) = assets else { return };
                match index.get(path) {
                    None => (
                        "forge::asset::missing",
                        format!("{what} `{path}` does not exist in the assets directory"),
                        "paths are relative to the assets directory and case-sensitive".to_owned(),
                    ),
                    Some(kind) if kind != want => (
                        "forge::asset::wrong_kind",
                        format!(
                            "{what} `{path}` is {} file, not {}",
                            with_article(kind),
                            with_article(want)
                        ),
                        match want {
                            AssetKind::Mesh => "meshes are `.gltf`, `.glb`, `.obj` or `.fbx` files",
                            _ => {
                                "images are `.png`, `.jpg`, `.jpeg`, `.webp`, `.bmp`, `.tga`, `.ktx2` or `.dds` files"
                            }
                        }
                        .to_owned(),
                    ),
                    Some(_) => return,
                }
            }
        };
        self.error(code, field, field, message, Some(&help));
    }

    fn custom(&mut self, custom: &CustomComponent) {
        if let Err(problem) = check_type_path(&custom.type_path) {
            let (message, help) = problem.describe(&custom.type_path);
            self.error(
                "forge::custom::type_path",
                "type_path",
                "type_path",
                message,
                Some(&help),
            );
        }
        // Field lists are short; a set is only built for long ones.
        let mut names: HashSet<&str> = HashSet::new();
        let long = custom.fields.len() > 8;
        for (j, field) in custom.fields.iter().enumerate() {
            let base = || format!("components[{}].data.fields[{j}]", self.index);
            let repeated = if long {
                !names.insert(field.name.as_str())
            } else {
                custom.fields[..j].iter().any(|f| f.name == field.name)
            };
            if !is_field_name(&field.name) {
                self.c.push(
                    Diagnostic::new(
                        Severity::Error,
                        "forge::custom::field_name",
                        format!(
                            "custom field name `{}` is not a Rust identifier or tuple index",
                            field.name
                        ),
                    )
                    .with_entity(self.id)
                    .with_path(format!("{}.name", base()))
                    .with_help("field names are Rust identifiers, like `max_health` or `r#type`, or tuple struct indices, like `0`"),
                    Loc::CustomName(self.index, j),
                );
            } else if repeated {
                self.c.push(
                    Diagnostic::new(
                        Severity::Error,
                        "forge::custom::duplicate_field",
                        format!(
                            "custom field `{}` of `{}` is set more than once",
                            field.name, custom.type_path
                        ),
                    )
                    .with_entity(self.id)
                    .with_path(format!("{}.name", base()))
                    .with_help("keep one initialiser per field"),
                    Loc::CustomName(self.index, j),
                );
            }
            if field.expr.trim().is_empty() {
                self.c.push(
                    Diagnostic::new(
                        Severity::Error,
                        "forge::custom::empty_expr",
                        format!("custom field `{}` has an empty expression", field.name),
                    )
                    .with_entity(self.id)
                    .with_path(format!("{}.expr", base()))
                    .with_help("write a Rust expression, like `100` or `Vec3::Y`, or remove the field to use its default"),
                    Loc::CustomExpr(self.index, j),
                );
            }
        }
    }
}

fn with_article(kind: AssetKind) -> String {
    match kind {
        AssetKind::Image => "an image".to_owned(),
        AssetKind::Audio => "an audio".to_owned(),
        AssetKind::Other => "an unknown kind of".to_owned(),
        other => format!("a {}", other.name()),
    }
}

fn scene_rules(c: &mut Collector, scene: &SceneFacts) {
    if let (Some(two), Some(three)) = (scene.first_2d, scene.first_3d) {
        c.push(
            Diagnostic::new(
                Severity::Warning,
                "forge::camera::mixed",
                format!(
                    "the scene has both 2D and 3D cameras (camera2d on entity {two}, camera3d on entity {three})"
                ),
            )
            .with_help("a scene is usually either 2D or 3D; remove the camera you do not need"),
            Loc::Top("entities"),
        );
    }
    if scene.cameras == 0 {
        c.push(
            Diagnostic::new(
                Severity::Info,
                "forge::camera::none",
                "the scene has no camera",
            )
            .with_help("that is fine for a scene spawned into another one; add a `camera2d` or `camera3d` to view it alone"),
            Loc::Top("entities"),
        );
    } else if scene.cameras > 1 {
        let mut ids: Vec<String> = scene
            .camera_entities
            .iter()
            .take(5)
            .map(u64::to_string)
            .collect();
        if scene.camera_entities.len() > 5 {
            ids.push("...".to_owned());
        }
        c.push(
            Diagnostic::new(
                Severity::Info,
                "forge::camera::multiple",
                format!(
                    "the scene has {} cameras (on entities {})",
                    scene.cameras,
                    ids.join(", ")
                ),
            ),
            Loc::Top("entities"),
        );
    }
    if scene.meshes > 0 && scene.lights == 0 {
        c.push(
            Diagnostic::new(
                Severity::Info,
                "forge::light::none",
                format!(
                    "the scene has {} mesh{} but no light",
                    scene.meshes,
                    if scene.meshes == 1 { "" } else { "es" }
                ),
            )
            .with_help("add a `directional_light` or `point_light`, or make the materials `unlit`"),
            Loc::Top("entities"),
        );
    }
}

/// Whether `s` is a Rust keyword (strict, reserved or weak-but-refused), which cannot name a
/// field or a path segment without `r#`. A `match` compiles to a length switch, not a scan.
fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "as" | "async"
            | "await"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "gen"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "Self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "try"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
    )
}

/// Whether `s` is a plain identifier (no keyword check): `XID_Start` or `_`, then `XID_Continue`,
/// and not `_` alone.
fn is_identifier_shape(s: &str) -> bool {
    // Most names are ASCII: check bytes without decoding characters.
    if let [first, rest @ ..] = s.as_bytes()
        && s.is_ascii()
    {
        return (first.is_ascii_alphabetic() || *first == b'_')
            && rest.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
            && s != "_";
    }
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (unicode_ident::is_xid_start(first) || first == '_')
        && chars.all(unicode_ident::is_xid_continue)
        && s != "_"
}

/// Whether `s` is a Rust identifier usable as a field name: a non-keyword identifier (`radius`,
/// `max_hp`, `_unused`, `größe`) or a raw identifier (`r#type`).
pub fn is_rust_identifier(s: &str) -> bool {
    match s.strip_prefix("r#") {
        Some(raw) => {
            is_identifier_shape(raw) && !matches!(raw, "crate" | "self" | "super" | "Self")
        }
        None => is_identifier_shape(s) && !is_keyword(s),
    }
}

/// Whether `s` is a decimal tuple field index: `0`, `1`, `12`, without sign or leading zeros.
pub fn is_tuple_index(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_digit())
        && (s == "0" || !s.starts_with('0'))
        && s.parse::<u32>().is_ok()
}

/// Whether `s` may name a custom field: a Rust identifier (see [`is_rust_identifier`]) or a tuple
/// struct index (see [`is_tuple_index`]).
pub fn is_field_name(s: &str) -> bool {
    is_rust_identifier(s) || is_tuple_index(s)
}

/// Why a custom component type path is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TypePathProblem {
    Empty,
    Generic,
    BadSegment(String),
}

impl TypePathProblem {
    fn describe(&self, path: &str) -> (String, String) {
        let example =
            "a type path is identifiers separated by `::`, like `Health` or `my_game::Health`";
        match self {
            TypePathProblem::Empty => (
                "custom component type path is empty".to_owned(),
                example.to_owned(),
            ),
            TypePathProblem::Generic => (
                format!("custom component type path `{path}` has generic arguments, which are not supported"),
                "declare a type alias in your game (`type FastTimer = Timer<Fast>;`) and use its path".to_owned(),
            ),
            TypePathProblem::BadSegment(segment) if segment.is_empty() => (
                format!("custom component type path `{path}` has an empty segment"),
                example.to_owned(),
            ),
            TypePathProblem::BadSegment(segment) => (
                format!(
                    "custom component type path `{path}` is not a Rust path: `{segment}` is not an identifier"
                ),
                example.to_owned(),
            ),
        }
    }
}

fn check_type_path(path: &str) -> Result<(), TypePathProblem> {
    if path.is_empty() {
        return Err(TypePathProblem::Empty);
    }
    if path.contains('<') {
        return Err(TypePathProblem::Generic);
    }
    for (i, segment) in path.split("::").enumerate() {
        let ok = is_rust_identifier(segment) || (i == 0 && segment == "crate");
        if !ok {
            return Err(TypePathProblem::BadSegment(segment.to_owned()));
        }
    }
    Ok(())
}

/// Whether `path` is a valid custom component type path (see the module docs): identifier
/// segments separated by `::`, `crate` allowed first, no generic arguments.
pub fn is_type_path(path: &str) -> bool {
    check_type_path(path).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_paths_are_identifier_segments() {
        for ok in [
            "Health",
            "my_game::Health",
            "a::b::Health",
            "crate::Health",
            "r#match::Health",
            "größe::Maß",
        ] {
            assert!(is_type_path(ok), "{ok}");
        }
        for bad in [
            "",
            "::Health",
            "Health::",
            "a::::b",
            "my game::Health",
            "Timer<Fast>",
            "a::fn",
            "1Health",
            "a:b",
            "_",
            "a::crate",
            " Health",
        ] {
            assert!(!is_type_path(bad), "{bad:?}");
        }
    }

    #[test]
    fn field_names_are_identifiers() {
        for ok in ["radius", "_unused", "max_hp", "r#type", "x1"] {
            assert!(is_rust_identifier(ok), "{ok}");
        }
        for bad in ["", "_", "max hp", "1x", "type", "r#self", "r#", "a-b"] {
            assert!(!is_rust_identifier(bad), "{bad:?}");
        }
    }

    #[test]
    fn field_names_may_be_tuple_indices() {
        for ok in ["0", "1", "10", "radius"] {
            assert!(is_field_name(ok), "{ok}");
        }
        for bad in ["01", "-1", "+1", "1.0", "0x1", "99999999999", "1 "] {
            assert!(!is_field_name(bad), "{bad:?}");
        }
    }
}
