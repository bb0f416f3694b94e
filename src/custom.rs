//! Custom components at load and spawn time: checking a scene's `custom` components against the
//! registered [`ForgeSchemas`], building their values through reflection, and inserting them.
//!
//! Loading builds every custom component completely (the type's `Default`, then each listed
//! field set from its evaluated expression) and keeps the values in one column per type
//! ([`PreparedCustoms`]), so spawning only copies a ready value into the entity with a typed
//! insert. Every problem becomes a positioned [`Diagnostic`] that fails
//! the load: an unknown type, a registered type that is not a `ForgeComponent` (the allow-list),
//! an unknown or skipped field, a missing required field, a bad expression, a value out of range.
//!
//! [`check_offline`] applies the same checks, through the same code, with only a [`SchemaFile`]
//! (`forge validate --schema`): the diagnostics are the loader's, minus what needs the game's
//! registry (`not_allowed`, a schema without a registered type).

use bevy_platform::collections::HashMap;
use std::sync::Arc;

use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent, ReflectResource};
use bevy_ecs::world::{EntityWorldMut, World};
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{PartialReflect, Reflect, ReflectMut, TypeInfo, TypeRegistry};

use crate::diagnostic::{Diagnostic, Severity};
use crate::expr::{self, ExprError, Target};
use crate::format::{ComponentData, CustomComponent, ParsedScene, Position, SourceMap};
use crate::schema::{ComponentSchema, ForgeSchemas, SchemaEntry};
use crate::schema_file::SchemaFile;

/// What the loader needs to build custom components: the app's type registry and schemas.
#[derive(Clone, Default)]
pub(crate) struct CustomContext {
    pub(crate) registry: AppTypeRegistry,
    pub(crate) schemas: ForgeSchemas,
}

/// The custom components of a scene, ready to insert: one column of values per type (a `Vec` of
/// the type itself: no allocation per value), and for each entity, in `doc.entities` order, which
/// row of which column holds each of its custom components.
#[derive(Default)]
pub(crate) struct PreparedCustoms {
    types: Vec<(Arc<CustomType>, Box<dyn CustomColumn>)>,
    /// `(type, row)` of every component, entity by entity.
    refs: Vec<(u32, u32)>,
    /// Entity `i`'s components are `refs[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
}

impl std::fmt::Debug for PreparedCustoms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedCustoms")
            .field("types", &self.types.len())
            .field("components", &self.refs.len())
            .finish_non_exhaustive()
    }
}

impl PreparedCustoms {
    /// The custom components of the entity at `index` of `doc.entities` (none when out of range).
    pub(crate) fn entity(&self, index: usize) -> Customs<'_> {
        let range = match (self.starts.get(index), self.starts.get(index + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        };
        Customs {
            table: self,
            refs: self.refs.get(range).unwrap_or(&[]),
        }
    }

    fn get(&self, (ty, row): (u32, u32)) -> Option<PreparedCustom<'_>> {
        let (ty, column) = self.types.get(ty as usize)?;
        Some(PreparedCustom {
            ty,
            value: column.value_at(row)?,
        })
    }
}

/// The prepared custom components of one entity.
#[derive(Clone, Copy)]
pub(crate) struct Customs<'a> {
    table: &'a PreparedCustoms,
    refs: &'a [(u32, u32)],
}

impl<'a> Customs<'a> {
    pub(crate) fn iter(self) -> impl Iterator<Item = PreparedCustom<'a>> {
        self.refs.iter().filter_map(move |r| self.table.get(*r))
    }

    fn split_first(self) -> Option<(PreparedCustom<'a>, Customs<'a>)> {
        let (first, rest) = self.refs.split_first()?;
        Some((
            self.table.get(*first)?,
            Customs {
                table: self.table,
                refs: rest,
            },
        ))
    }

    /// The component with type path `type_path`, if the entity has one.
    pub(crate) fn find(self, type_path: &str) -> Option<PreparedCustom<'a>> {
        self.iter().find(|p| p.ty.type_path == type_path)
    }
}

/// A custom component ready to insert: its type and value.
#[derive(Clone, Copy)]
pub(crate) struct PreparedCustom<'a> {
    ty: &'a CustomType,
    value: &'a dyn Reflect,
}

/// The values of one custom component type in a scene: a `Vec<T>` (see
/// [`SchemaEntry::column`](crate::schema::SchemaEntry)).
pub(crate) trait CustomColumn: Send + Sync {
    /// Appends `value`, which must be of the column's type; its row, or the value back.
    fn push_value(&mut self, value: Box<dyn Reflect>) -> Result<u32, Box<dyn Reflect>>;
    /// The value at `row`.
    fn value_at(&self, row: u32) -> Option<&dyn Reflect>;
    /// Drops spare capacity once the scene is built.
    fn shrink(&mut self);
}

impl<T: Reflect> CustomColumn for Vec<T> {
    fn push_value(&mut self, value: Box<dyn Reflect>) -> Result<u32, Box<dyn Reflect>> {
        let Ok(row) = u32::try_from(self.len()) else {
            return Err(value);
        };
        Vec::push(self, *value.downcast::<T>()?);
        Ok(row)
    }

    fn value_at(&self, row: u32) -> Option<&dyn Reflect> {
        self.as_slice().get(row as usize).map(|v| v as &dyn Reflect)
    }

    fn shrink(&mut self) {
        Vec::shrink_to_fit(self);
    }
}

/// What every prepared component of one type shares.
struct CustomType {
    type_path: String,
    component: ReflectComponent,
    insert: fn(&mut EntityWorldMut, &dyn Reflect) -> bool,
    spawn_with: crate::schema::SpawnWith,
}

/// A registered type resolved once per load: its schema entry and reflected parts.
struct Resolved {
    entry: SchemaEntry,
    default: ReflectDefault,
    info: &'static TypeInfo,
    /// Its column in the [`PreparedCustoms`] being built.
    slot: u32,
}

/// Why a type path did not resolve (the diagnostic is made per component, with its position).
enum Unresolved {
    /// No schema: unknown, or not a `ForgeComponent` (the allow-list).
    Unknown,
    /// A schema whose type is not registered as a component with a reflected `Default`.
    NotRegistered,
}

fn resolve_type(
    type_path: &str,
    registry: &TypeRegistry,
    schemas: &ForgeSchemas,
    out: &mut PreparedCustoms,
) -> Result<Resolved, Unresolved> {
    let entry = resolve(type_path, |p| schemas.entry(p), || schemas.type_paths())
        .ok_or(Unresolved::Unknown)?;
    let registration = registry.get(entry.type_id);
    if registration.is_some_and(|r| r.data::<ReflectResource>().is_some()) {
        return Err(Unresolved::NotRegistered);
    }
    let (component, default, info) = registration
        .and_then(|r| {
            Some((
                r.data::<ReflectComponent>()?.clone(),
                r.data::<ReflectDefault>()?.clone(),
                r.type_info(),
            ))
        })
        .ok_or(Unresolved::NotRegistered)?;
    let ty = Arc::new(CustomType {
        type_path: entry.schema.type_path.clone(),
        component,
        insert: entry.insert,
        spawn_with: entry.spawn_with,
    });
    let slot = u32::try_from(out.types.len()).map_err(|_| Unresolved::NotRegistered)?;
    out.types.push((ty, (entry.column)()));
    Ok(Resolved {
        entry,
        default,
        info,
        slot,
    })
}

/// Builds the custom components of every entity (in `doc.entities` order). `text` is the
/// source, used to point inside expressions; errors are returned, not logged.
pub(crate) fn prepare(
    parsed: &ParsedScene,
    text: Option<&str>,
    cx: &CustomContext,
) -> (PreparedCustoms, Vec<Diagnostic>) {
    let text = text.map(without_bom);
    let registry = cx.registry.read();
    let mut errors = Vec::new();
    let mut out = PreparedCustoms {
        starts: Vec::with_capacity(parsed.doc.entities.len() + 1),
        ..Default::default()
    };
    // Each type path is resolved once per load, not once per component.
    let mut types: HashMap<&str, Result<Resolved, Unresolved>> = HashMap::new();
    // The types of the entity's custom components so far: (column, as written).
    let mut seen: Vec<(u32, &str)> = Vec::new();
    for (id, node) in &parsed.doc.entities {
        out.starts.push(out.refs.len() as u32);
        seen.clear();
        for (custom, site) in custom_sites(parsed, text, false, *id, node) {
            let resolved = types.entry(custom.type_path.as_str()).or_insert_with(|| {
                resolve_type(&custom.type_path, &registry, &cx.schemas, &mut out)
            });
            if let Ok(r) = resolved {
                let path = |slot: u32| {
                    out.types
                        .get(slot as usize)
                        .map_or("", |(ty, _)| ty.type_path.as_str())
                };
                let first = seen
                    .iter()
                    .find(|(slot, _)| path(*slot) == path(r.slot))
                    .map(|(_, written)| *written);
                if let Some(d) = first.and_then(|f| spelled_twice(custom, f, path(r.slot), &site)) {
                    errors.push(d);
                    continue;
                }
                seen.push((r.slot, custom.type_path.as_str()));
            }
            match build(custom, &site, &registry, &cx.schemas, resolved) {
                Ok((slot, value)) => {
                    let column = out.types.get_mut(slot as usize).map(|(_, c)| c);
                    match column.map(|c| c.push_value(value)) {
                        Some(Ok(row)) => out.refs.push((slot, row)),
                        _ => tracing::error!(
                            "entity {id}: custom component `{}` skipped: its value is not of the registered type",
                            custom.type_path
                        ),
                    }
                }
                Err(mut problems) => errors.append(&mut problems),
            }
        }
    }
    out.starts.push(out.refs.len() as u32);
    out.refs.shrink_to_fit();
    for (_, column) in &mut out.types {
        column.shrink();
    }
    (out, errors)
}

/// Checks the custom components of `parsed` against `schemas` without the game's types: the
/// loader's checks, codes, messages and positions (see [the module docs](self)). `text` is the
/// source, used to point inside expressions.
pub(crate) fn check_offline(
    parsed: &ParsedScene,
    text: Option<&str>,
    schemas: &SchemaFile,
) -> Vec<Diagnostic> {
    let text = text.map(without_bom);
    let registry = expr::schema_registry();
    let mut errors = Vec::new();
    // The types of the entity's custom components so far: (type path, as written).
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for (id, node) in &parsed.doc.entities {
        seen.clear();
        for (custom, site) in custom_sites(parsed, text, true, *id, node) {
            let paths = || schemas.type_paths().map(str::to_owned).collect();
            let Some(schema) = resolve(&custom.type_path, |p| schemas.get(p), paths) else {
                errors.push(unknown_type(custom, &site, registry, paths()));
                continue;
            };
            let first = seen
                .iter()
                .find(|(path, _)| *path == schema.type_path)
                .map(|(_, written)| *written);
            if let Some(d) = first.and_then(|f| spelled_twice(custom, f, &schema.type_path, &site))
            {
                errors.push(d);
                continue;
            }
            seen.push((&schema.type_path, custom.type_path.as_str()));
            let target = |name: &str| {
                let f = schema.field(name)?;
                Some(Target::Kind {
                    type_name: &f.type_name,
                    kind: &f.kind,
                })
            };
            errors.extend(check_fields(
                custom,
                &site,
                schema,
                target,
                registry,
                |_, _| Ok(()),
            ));
        }
    }
    errors
}

/// A custom component whose type an earlier component of the entity already has, written another
/// way (`Orbit` after `game::Orbit`). Written the same way, validation reports the duplicate
/// key; written two ways it is the same rule (one component per type), which only resolving the
/// names shows.
fn spelled_twice(
    custom: &CustomComponent,
    first: &str,
    type_path: &str,
    site: &Site,
) -> Option<Diagnostic> {
    if first == custom.type_path {
        return None;
    }
    Some(
        site.error(
            "forge::component::duplicate_key",
            format!(
                "component `custom:{type_path}` appears twice on this entity (as `{first}` and as `{}`)",
                custom.type_path
            ),
            ".type_path".into(),
            site.type_path_position(),
        )
        .with_help(
            "an entity holds at most one component per type; both names are the same type: merge or remove one",
        ),
    )
}

/// The end of the offline help of an unknown type or field: what is unknown to a schema file
/// may be new in the game.
const STALE_HINT: &str = "this schema file does not have it: if the game does, the file is stale; export the schemas again";

/// The custom components of entity `id` (`node`), each with where it sits in the file.
fn custom_sites<'a>(
    parsed: &'a ParsedScene,
    text: Option<&'a str>,
    offline: bool,
    id: u64,
    node: &'a crate::format::EntityNode,
) -> impl Iterator<Item = (&'a CustomComponent, Site<'a>)> {
    node.components
        .iter()
        .enumerate()
        .filter_map(move |(index, component)| match component {
            ComponentData::Custom(custom) => Some((
                custom,
                Site {
                    map: &parsed.source_map,
                    text,
                    entity: id,
                    entity_name: &node.name,
                    component: index,
                    offline,
                },
            )),
            _ => None,
        })
}

/// Source positions count from after a byte-order mark.
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Where a custom component sits in the file.
struct Site<'a> {
    map: &'a SourceMap,
    text: Option<&'a str>,
    entity: u64,
    entity_name: &'a str,
    component: usize,
    /// Checked against a schema file (`forge validate --schema`), not the game's types.
    offline: bool,
}

impl Site<'_> {
    fn error(
        &self,
        code: &'static str,
        message: String,
        path: String,
        position: Option<Position>,
    ) -> Diagnostic {
        let mut d = Diagnostic::new(Severity::Error, code, message)
            .with_entity(self.entity)
            .with_path(format!("components[{}].data{path}", self.component));
        d.position = position.or_else(|| self.map.component(self.entity, self.component));
        d
    }

    /// The position of the component's `type_path` value.
    fn type_path_position(&self) -> Option<Position> {
        self.map
            .component_field(self.entity, self.component, "type_path")
    }

    /// The file position of byte `at` of field `field`'s expression: exact when the text before
    /// it is written without escapes, else the start of its string.
    fn expr_position(&self, field: usize, expr: &str, at: usize) -> Option<Position> {
        let start = self
            .map
            .custom_field_expr(self.entity, self.component, field)?;
        let Some(text) = self.text else {
            return Some(start);
        };
        let rest = text.get(start.offset..)?;
        let hashes = rest
            .strip_prefix('r')
            .map(|r| r.len() - r.trim_start_matches('#').len());
        let quote = match hashes {
            Some(h) => 1 + h + 1,
            None => 1,
        };
        let Some(before) = expr.get(..at.min(expr.len())) else {
            return Some(start);
        };
        // The file holds the bytes before `at` as they are. In a quoted string a backslash
        // there may have been written `\\`, which would shift the column.
        let verbatim = rest.get(quote..).is_some_and(|body| {
            body.starts_with(before) && (hashes.is_some() || !before.contains('\\'))
        });
        if !verbatim {
            return Some(start);
        }
        Some(
            self.map
                .position_of_offset(start.offset + quote + before.len()),
        )
    }
}

/// The schema for `type_path` through `get`: exact, or a unique match of a bare type name among
/// `paths`.
fn resolve<T>(
    type_path: &str,
    get: impl Fn(&str) -> Option<T>,
    paths: impl FnOnce() -> Vec<String>,
) -> Option<T> {
    if let Some(e) = get(type_path) {
        return Some(e);
    }
    if type_path.contains("::") {
        return None;
    }
    let suffix = format!("::{type_path}");
    let mut found = paths().into_iter().filter(|p| p.ends_with(&suffix));
    match (found.next(), found.next()) {
        (Some(one), None) => get(&one),
        _ => None,
    }
}

fn nearest<'a>(found: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (found.chars().count() / 3).max(2);
    candidates
        .map(|c| (crate::format::levenshtein(found, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn build(
    custom: &CustomComponent,
    site: &Site,
    registry: &TypeRegistry,
    schemas: &ForgeSchemas,
    resolved: &Result<Resolved, Unresolved>,
) -> Result<(u32, Box<dyn Reflect>), Vec<Diagnostic>> {
    let resolved = match resolved {
        Ok(r) => r,
        Err(Unresolved::Unknown) => {
            return Err(vec![unknown_type(
                custom,
                site,
                registry,
                schemas.type_paths(),
            )]);
        }
        Err(Unresolved::NotRegistered) => {
            return Err(vec![site.error(
                "forge::custom::unknown_type",
                format!(
                    "`{}` has a schema but is not registered as a component with a reflected `Default`",
                    custom.type_path
                ),
                ".type_path".into(),
                site.type_path_position(),
            )]);
        }
    };
    let info = resolved.info;
    let mut value = resolved.default.default();
    let errors = check_fields(
        custom,
        site,
        &resolved.entry.schema,
        |name| field_type(info, name).map(Target::Info),
        registry,
        |name, v| match field_mut(value.as_mut(), name) {
            Some(dest) => expr::assign(dest, v),
            None => Ok(()),
        },
    );
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok((resolved.slot, value))
}

/// Checks and evaluates every listed field of `custom` against `schema`, the type of each field
/// given by `target` (reflected in the loader, from the schema offline), and hands each value to
/// `store`; then checks the required fields. Returns every problem.
fn check_fields<'k>(
    custom: &CustomComponent,
    site: &Site,
    schema: &'k ComponentSchema,
    target: impl Fn(&str) -> Option<Target<'k>>,
    registry: &TypeRegistry,
    mut store: impl FnMut(&str, &dyn PartialReflect) -> Result<(), String>,
) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for (j, field) in custom.fields.iter().enumerate() {
        if field.expr.trim().is_empty() {
            continue; // reported by validation (`forge::custom::empty_expr`)
        }
        // Messages are only formatted for problems: most fields are fine.
        let path = || format!(".fields[{j}]");
        let (Some(field_schema), Some(field_target)) =
            (schema.field(&field.name), target(&field.name))
        else {
            let position = site.map.custom_field_name(site.entity, site.component, j);
            errors.push(unknown_field(schema, &field.name, site, path(), position));
            continue;
        };
        let described = || {
            format!(
                "entity {} (`{}`), `{}` field `{}`",
                site.entity, site.entity_name, schema.type_name, field.name
            )
        };
        let v = match expr::evaluate_as(&field.expr, field_target, registry) {
            Ok(v) => v,
            Err(e) => {
                errors.push(expr_error(&e, &described(), &field.expr, site, j, path()));
                continue;
            }
        };
        if let Some(range) = field_schema.range
            && let Some(n) = as_number(v.as_ref())
            && !range.contains(n)
        {
            errors.push(site.error(
                "forge::custom::range",
                format!("{}: {n} is outside `{range}`", described()),
                format!("{}.expr", path()),
                site.expr_position(j, &field.expr, 0),
            ));
            continue;
        }
        if let Err(reason) = store(&field.name, v.as_ref()) {
            errors.push(site.error(
                "forge::custom::expr",
                format!("{}: the value does not fit: {reason}", described()),
                format!("{}.expr", path()),
                site.expr_position(j, &field.expr, 0),
            ));
        }
    }
    for required in schema.required() {
        if !custom.fields.iter().any(|f| f.name == required.name) {
            errors.push(
                site.error(
                    "forge::custom::missing_required",
                    format!(
                        "entity {} (`{}`): `{}` needs field `{}` (marked `required`)",
                        site.entity, site.entity_name, schema.type_name, required.name
                    ),
                    ".fields".into(),
                    site.map
                        .component_field(site.entity, site.component, "fields"),
                )
                .with_help(format!(
                    "add `(name: \"{}\", expr: \"..\")` ({})",
                    required.name, required.type_name
                )),
            );
        }
    }
    errors
}

fn unknown_type(
    custom: &CustomComponent,
    site: &Site,
    registry: &TypeRegistry,
    paths: Vec<String>,
) -> Diagnostic {
    let type_path = custom.type_path.as_str();
    let position = site.type_path_position();
    // A bare name that ends several type paths: `resolve` could not choose.
    let suffix = format!("::{type_path}");
    let same_name: Vec<&String> = paths.iter().filter(|p| p.ends_with(&suffix)).collect();
    if !type_path.contains("::") && same_name.len() > 1 {
        let list: Vec<String> = same_name.iter().map(|p| format!("`{p}`")).collect();
        return site
            .error(
                "forge::custom::unknown_type",
                format!(
                    "custom component type `{type_path}` is ambiguous: it may be {}",
                    list.join(" or ")
                ),
                ".type_path".into(),
                position,
            )
            .with_help("write the full type path");
    }
    let other = registry
        .get_with_type_path(type_path)
        .or_else(|| registry.get_with_short_type_path(type_path));
    if let Some(other) = other {
        let what = if other.data::<ReflectResource>().is_some() {
            "a resource"
        } else if other.data::<ReflectComponent>().is_some() {
            "a component that does not derive `ForgeComponent`"
        } else {
            "a reflected type that does not derive `ForgeComponent`"
        };
        return site
            .error(
                "forge::custom::not_allowed",
                format!("`{type_path}` is {what}; scenes may only create built-in components and `ForgeComponent` types"),
                ".type_path".into(),
                position,
            )
            .with_help("derive `ForgeComponent` on your own wrapper component instead");
    }
    let short = |p: &str| p.rsplit("::").next().unwrap_or(p).to_owned();
    let guess = nearest(type_path, paths.iter().map(String::as_str))
        .map(str::to_owned)
        .or_else(|| {
            let wanted = short(type_path);
            paths.iter().find(|p| short(p) == wanted).cloned()
        });
    let mut help = String::new();
    if let Some(g) = guess {
        help.push_str(&format!("did you mean `{g}`? "));
    }
    help.push_str("the type must derive `ForgeComponent` (registered by `ForgeScenePlugin`) or be registered with `app.register_forge_component::<T>()`");
    if site.offline {
        help.push_str("; ");
        help.push_str(STALE_HINT);
    }
    site.error(
        "forge::custom::unknown_type",
        format!("unknown custom component type `{type_path}`"),
        ".type_path".into(),
        position,
    )
    .with_help(help)
}

fn unknown_field(
    schema: &ComponentSchema,
    name: &str,
    site: &Site,
    path: String,
    position: Option<Position>,
) -> Diagnostic {
    let list = schema
        .fields
        .iter()
        .map(|f| format!("`{}`", f.name))
        .collect::<Vec<_>>()
        .join(", ");
    let skipped = schema.skipped.iter().any(|s| s == name);
    let message = if skipped {
        format!(
            "field `{name}` of `{}` is marked `#[forge(skip)]`; scenes cannot set it",
            schema.type_name
        )
    } else {
        format!("`{}` has no field `{name}`", schema.type_name)
    };
    let mut help = String::new();
    if let Some(g) = nearest(name, schema.fields.iter().map(|f| f.name.as_str())) {
        help.push_str(&format!("did you mean `{g}`? "));
    }
    help.push_str(&format!(
        "fields: {}",
        if list.is_empty() { "none".into() } else { list }
    ));
    if site.offline && !skipped {
        help.push_str("; ");
        help.push_str(STALE_HINT);
    }
    site.error(
        "forge::custom::unknown_field",
        message,
        format!("{path}.name"),
        position,
    )
    .with_help(help)
}

fn expr_error(
    e: &ExprError,
    described: &str,
    text: &str,
    site: &Site,
    field: usize,
    path: String,
) -> Diagnostic {
    let help = match e {
        ExprError::Syntax { .. } | ExprError::Unsupported { .. } => {
            Some(format!("field expressions are data: {}", expr::SUPPORTED))
        }
        _ => None,
    };
    let mut d = site.error(
        "forge::custom::expr",
        format!("{described}: {e} in `{}`", expr::excerpt(text)),
        format!("{path}.expr"),
        site.expr_position(field, text, e.at()),
    );
    d.help = help;
    d
}

/// The reflected type of field `name` (`0`, `1` for tuple structs).
fn field_type(info: &TypeInfo, name: &str) -> Option<&'static TypeInfo> {
    match info {
        TypeInfo::Struct(s) => s.field(name)?.type_info(),
        TypeInfo::TupleStruct(t) => t.field_at(name.parse().ok()?)?.type_info(),
        _ => None,
    }
}

fn field_mut<'a>(value: &'a mut dyn Reflect, name: &str) -> Option<&'a mut dyn PartialReflect> {
    match value.reflect_mut() {
        ReflectMut::Struct(s) => s.field_mut(name),
        ReflectMut::TupleStruct(t) => t.field_mut(name.parse().ok()?),
        _ => None,
    }
}

fn as_number(v: &dyn PartialReflect) -> Option<f64> {
    macro_rules! num {
        ($($t:ty),*) => {$(
            if let Some(n) = v.try_downcast_ref::<$t>() {
                return Some(*n as f64);
            }
        )*};
    }
    num!(
        f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
    );
    None
}

/// Inserts the prepared custom components of one entity (file id `id`) with typed inserts (no
/// type registry needed). A value that cannot be inserted is logged with the entity and type,
/// never a panic.
pub(crate) fn insert<'a>(
    entity: &mut EntityWorldMut,
    prepared: impl IntoIterator<Item = PreparedCustom<'a>>,
    id: u64,
) {
    for p in prepared {
        // A game observer may despawn the entity as a component arrives.
        if entity.is_despawned() {
            return;
        }
        if !(p.ty.insert)(entity, p.value) {
            tracing::error!(
                "entity {id}: custom component `{}` not inserted: its prepared value does not apply",
                p.ty.type_path
            );
        }
    }
}

/// Spawns an entity with `bundle` and the first of `prepared` in one bundle, and returns it and
/// the custom components still to insert (all of them when the first could not be built).
pub(crate) fn spawn_with_first<'a>(
    world: &mut World,
    bundle: crate::spawn::EntityBundle,
    prepared: Customs<'a>,
) -> (bevy_ecs::entity::Entity, Customs<'a>) {
    let Some((first, rest)) = prepared.split_first() else {
        return (world.spawn(bundle).id(), prepared);
    };
    match (first.ty.spawn_with)(world, bundle, first.value) {
        Ok(entity) => (entity, rest),
        Err(bundle) => (world.spawn(bundle).id(), prepared),
    }
}

/// Inserts one prepared custom component (hot reload: added or replaced whole).
pub(crate) fn insert_one(entity: &mut EntityWorldMut, prepared: PreparedCustom<'_>, id: u64) {
    insert(entity, [prepared], id);
}

/// Sets only the fields `fields` of the live component from the prepared value; the other
/// fields keep their live values (hot reload of changed fields). A component the entity lost
/// is inserted whole.
pub(crate) fn patch_fields(
    entity: &mut EntityWorldMut,
    prepared: PreparedCustom<'_>,
    fields: &[&str],
    id: u64,
) {
    let value = prepared.value;
    let bevy_reflect::ReflectRef::Struct(full) = value.reflect_ref() else {
        insert_one(entity, prepared, id);
        return;
    };
    if !prepared.ty.component.contains(&*entity) {
        insert_one(entity, prepared, id);
        return;
    }
    let mut patch = bevy_reflect::structs::DynamicStruct::default();
    for name in fields {
        if let Some(Ok(field)) = full.field(name).map(PartialReflect::to_dynamic) {
            patch.insert_boxed(*name, field);
        }
    }
    patch.set_represented_type(value.get_represented_type_info());
    prepared.ty.component.apply(&mut *entity, &patch);
}

/// The registered type path that `type_path` (as a file writes it: full, or a unique bare type
/// name) names, with the loader's rule.
pub(crate) fn canonical_path(world: &World, type_path: &str) -> Option<String> {
    let schemas = world.get_resource::<ForgeSchemas>()?;
    resolve(type_path, |p| schemas.entry(p), || schemas.type_paths())
        .map(|entry| entry.schema.type_path.clone())
}

/// Removes the custom component with type path `type_path` (hot reload dropped it).
pub(crate) fn remove(entity: &mut EntityWorldMut, type_path: &str) {
    let Some(registry) = entity.world().get_resource::<AppTypeRegistry>().cloned() else {
        return;
    };
    // Only types with a schema can come from a file; the file's type path may be an override.
    let Some(entry) = entity
        .world()
        .get_resource::<ForgeSchemas>()
        .and_then(|s| s.entry(type_path))
    else {
        return;
    };
    let registry = registry.read();
    if let Some(component) = registry.get_type_data::<ReflectComponent>(entry.type_id) {
        component.remove(entity);
    }
}

/// Builds the custom components of a document edited in memory, with the app's registry and
/// schemas. Errors are the same diagnostics a load reports.
pub(crate) fn prepare_in_world(
    world: &World,
    parsed: &ParsedScene,
) -> (PreparedCustoms, Vec<Diagnostic>) {
    let cx = CustomContext {
        registry: world
            .get_resource::<AppTypeRegistry>()
            .cloned()
            .unwrap_or_default(),
        schemas: world
            .get_resource::<ForgeSchemas>()
            .cloned()
            .unwrap_or_default(),
    };
    prepare(parsed, None, &cx)
}
