//! Custom components against schemas: the checks the scene loader and `forge validate --schema`
//! share, so both report the same codes, messages and positions.
//!
//! Each `custom` component's type path is resolved against the known schemas (exactly, or as a
//! unique bare type name), then each listed field is checked: it exists and is not
//! `#[forge(skip)]`, its expression evaluates as the field's type ([`crate::schema::expr`]), its
//! number lies in the field's `#[forge(range)]`; and every `#[forge(required)]` field is listed.
//! The field's type comes from the game's reflection in the loader and from the schema kind
//! offline ([`Target`]): one code path for both.
//!
//! [`check_offline`] runs the checks with only a [`SchemaFile`] (`forge validate --schema`):
//! the loader's diagnostics, minus what needs the game's registry (`not_allowed`, a schema
//! without a registered type). The loader ([`crate::runtime`]) calls [`check_fields`] with its
//! reflected types and stores each value as it goes.

use bevy_platform::collections::HashMap;
use bevy_reflect::{PartialReflect, TypeRegistry};

use super::diagnostic::Diagnostic;
use super::site::ExprPlace;
pub(crate) use super::site::Site;
use crate::codes;
use crate::format::{ComponentData, CustomComponent, EntityNode, Position, SceneDoc, SourceMap};
use crate::schema::expr::{self, EntityRefs, ExprError, Target};
use crate::schema::{ComponentSchema, SchemaFile};

/// Checks the custom components of `doc` (read with `map`) against `schemas` without the game's types: the
/// loader's checks, codes, messages and positions (see [the module docs](self)). `text` is the
/// source, used to point inside expressions.
pub(crate) fn check_offline(
    doc: &SceneDoc,
    range: std::ops::Range<usize>,
    map: &SourceMap,
    schemas: &SchemaFile,
    referable: &Referable<'_>,
) -> Vec<Diagnostic> {
    let refs = OfflineRefs(referable);
    let registry = expr::schema_registry();
    let mut errors = Vec::new();
    // The types of the entity's custom components so far: (type path, as written).
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for (id, node) in doc.entities.get_range(range).into_iter().flatten() {
        seen.clear();
        for (custom, site) in custom_sites(map, referable, true, *id, node) {
            let paths = || schemas.type_paths().map(str::to_owned).collect();
            let Some(schema) = resolve(&custom.type_path, |p| schemas.get(p), paths) else {
                errors.push(unknown_type(
                    custom,
                    &site,
                    paths(),
                    reflected(registry, custom),
                ));
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
            // An enum component's whole value is evaluated as the enum its variants describe.
            let kind = schema.is_enum().then(|| crate::schema::FieldKind::Enum {
                variants: schema.variants.clone(),
            });
            let whole = kind.as_ref().map(|kind| Target::Kind {
                type_name: &schema.type_name,
                kind,
            });
            errors.extend(check_fields(
                custom,
                &site,
                schema,
                target,
                whole,
                registry,
                &refs,
                |_, _| Ok(()),
            ));
        }
    }
    errors
}

/// Checks every entity reference (`#7`, `#7/2`) in the custom component fields of `doc` against
/// `referable`, without schemas: a reference that names no entity is an error
/// (`forge::custom::reference`) at its line and column, as the loader reports it. Whether the
/// field holds an `Entity` needs the schema ([`check_offline`], the loader).
pub(crate) fn check_references(
    doc: &SceneDoc,
    range: std::ops::Range<usize>,
    map: &SourceMap,
    referable: &Referable<'_>,
) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for (id, node) in doc.entities.get_range(range).into_iter().flatten() {
        for (custom, site) in custom_sites(map, referable, true, *id, node) {
            let type_name = custom.type_path.rsplit("::").next().unwrap_or_default();
            for (place, text, field) in expressions(custom) {
                let Some(rewritten) = expr::references(text) else {
                    continue;
                };
                let described = || described(&site, type_name, field);
                let mut report = |e: ExprError| {
                    errors.push(expr_error(&e, &described(), text, &site, place));
                };
                if let Some((at, message)) = rewritten.glued_error(text) {
                    report(ExprError::Syntax { at, message });
                }
                for r in rewritten.refs {
                    let reason = match &r.path {
                        Some(path) => match referable.find(path) {
                            Ok(_) => continue,
                            Err(reason) => reason,
                        },
                        None => "an id does not fit in a `u64`".to_owned(),
                    };
                    report(ExprError::Reference {
                        at: r.at,
                        reference: text[r.at..r.at + r.len].to_owned(),
                        reason,
                    });
                }
            }
        }
    }
    errors
}

/// Every expression of `custom`: each field's (with its name), then the whole `value`.
pub(crate) fn expressions(
    custom: &CustomComponent,
) -> impl Iterator<Item = (ExprPlace, &str, Option<&str>)> {
    let fields = custom.fields.iter().enumerate();
    fields
        .map(|(j, f)| (ExprPlace::Field(j), f.expr.as_str(), Some(f.name.as_str())))
        .chain(
            custom
                .value
                .iter()
                .map(|v| (ExprPlace::Value, v.as_str(), None)),
        )
}

/// What a message says an expression is: "entity 3 (`Crate`), `Body` field `mass`", or
/// "`RigidBody` value" for an enum's whole value.
pub(crate) fn described(site: &Site, type_name: &str, field: Option<&str>) -> String {
    match field {
        Some(name) => format!("{}, `{type_name}` field `{name}`", site.who()),
        None => format!("{}, `{type_name}` value", site.who()),
    }
}

/// A custom component whose type an earlier component of the entity already has, written another
/// way (`Orbit` after `game::Orbit`). Written the same way, validation reports the duplicate
/// key; written two ways it is the same rule (one component per type), which only resolving the
/// names shows.
pub(crate) fn spelled_twice(
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
            codes::component::DUPLICATE_KEY,
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

/// The custom components of entity `id` (`node`), each with where it sits in the file. A
/// component whose type path is not a Rust path is left out: validation reports it
/// (`forge::custom::type_path`), and no type could have that path.
pub(crate) fn custom_sites<'a>(
    map: &'a SourceMap,
    referable: &Referable<'_>,
    offline: bool,
    id: u64,
    node: &'a EntityNode,
) -> impl Iterator<Item = (&'a CustomComponent, Site<'a>)> {
    custom_sites_where(map, referable, offline, id, node, super::is_type_path)
}

/// [`custom_sites`] with the type path check given: `is_type_path`, or a cached answer of it
/// (a large scene names few types many times).
pub(crate) fn custom_sites_where<'a>(
    map: &'a SourceMap,
    referable: &Referable<'_>,
    offline: bool,
    id: u64,
    node: &'a EntityNode,
    mut is_type_path: impl FnMut(&'a str) -> bool,
) -> impl Iterator<Item = (&'a CustomComponent, Site<'a>)> {
    // Only entities an instance placed are named by their path (rare outside prefab scenes).
    let placed: Option<Box<[u64]>> = referable.placed_path(id).map(Box::from);
    node.components
        .iter()
        .enumerate()
        .filter_map(move |(index, component)| match component {
            ComponentData::Custom(custom) if is_type_path(&custom.type_path) => Some((
                custom,
                Site {
                    map,
                    placed: placed.clone(),
                    entity: id,
                    entity_name: &node.name,
                    component: index,
                    offline,
                },
            )),
            _ => None,
        })
}

/// The schema for `type_path` through `get`: exact, or a unique match of a bare type name among
/// `paths`.
pub(crate) fn resolve<T>(
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

/// Checks and evaluates every listed field of `custom` against `schema`, the type of each field
/// given by `target` (reflected in the loader, from the schema offline), and hands each value to
/// `store` (which may take from it); then checks the required fields. An enum component's
/// whole `value` is evaluated as `whole` (the type itself) and handed to `store` with no field
/// name. Returns every problem.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_fields<'k>(
    custom: &CustomComponent,
    site: &Site,
    schema: &'k ComponentSchema,
    target: impl Fn(&str) -> Option<Target<'k>>,
    whole: Option<Target<'k>>,
    registry: &TypeRegistry,
    refs: &dyn EntityRefs,
    mut store: impl FnMut(Option<&str>, &mut dyn PartialReflect) -> Result<(), String>,
) -> Vec<Diagnostic> {
    let mut errors = super::value::check_shape(custom, site, schema);
    if schema.is_enum() {
        if let (Some(value), Some(whole)) = (&custom.value, whole)
            && !super::structure::blank(value)
        {
            let described = || described(site, &schema.type_name, None);
            let place = ExprPlace::Value;
            let stored = expr::evaluate_with(value, whole, registry, refs, |v| {
                store(None, v)
                    .map_err(|reason| Box::new(unfit(site, &described(), reason, place, value)))
            });
            match stored {
                Ok(Ok(())) => {}
                Ok(Err(diagnostic)) => errors.push(*diagnostic),
                Err(e) => errors.push(expr_error(&e, &described(), value, site, place)),
            }
        }
        return errors;
    }
    for (j, field) in custom.fields.iter().enumerate() {
        if super::structure::blank(&field.expr) {
            continue; // reported by validation (`forge::custom::empty_expr`)
        }
        // Messages are only formatted for problems: most fields are fine.
        let path = || format!(".fields[{j}]");
        let (Some(field_schema), Some(field_target)) =
            (schema.field(&field.name), target(&field.name))
        else {
            // A name that is no field name at all is reported by validation
            // (`forge::custom::field_name`); once is enough.
            if super::is_field_name(&field.name) {
                let position = site.map.custom_field_name(site.entity, site.component, j);
                errors.push(unknown_field(schema, &field.name, site, path(), position));
            }
            continue;
        };
        let described = || described(site, &schema.type_name, Some(&field.name));
        let place = ExprPlace::Field(j);
        let stored = expr::evaluate_with(&field.expr, field_target, registry, refs, |v| {
            if let Some(range) = field_schema.range
                && let Some(n) = as_number(&*v)
                && !range.contains(n)
            {
                let message = format!("{}: {n} is outside `{range}`", described());
                return Err(Box::new(at_value(
                    site,
                    codes::custom::RANGE,
                    message,
                    place,
                    &field.expr,
                )));
            }
            store(Some(&field.name), v)
                .map_err(|reason| Box::new(unfit(site, &described(), reason, place, &field.expr)))
        });
        match stored {
            Ok(Ok(())) => {}
            Ok(Err(diagnostic)) => errors.push(*diagnostic),
            Err(e) => errors.push(expr_error(&e, &described(), &field.expr, site, place)),
        }
    }
    for required in schema.required() {
        if !custom
            .fields
            .iter()
            .any(|f| crate::schema::unraw(&f.name) == required.name)
        {
            errors.push(
                site.error(
                    codes::custom::MISSING_REQUIRED,
                    format!(
                        "entity {} (`{}`): `{}` needs field `{}` (marked `required`)",
                        site.label(),
                        site.entity_name,
                        schema.type_name,
                        required.name
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

/// An error about the value of the expression `text` at `place` as a whole (out of range, does
/// not fit): at the value inside the expression, past its quote and any leading blanks, in the
/// component and in an override's `set` alike (`expr_at`, which [`PrefabExpansion::locate`]
/// reads in the override's own text).
///
/// [`ExpandedScene::locate`]: crate::prefab::ExpandedScene::locate
fn at_value(
    site: &Site,
    code: &'static str,
    message: String,
    place: ExprPlace,
    text: &str,
) -> Diagnostic {
    let at = text.len() - text.trim_start().len();
    let mut d = site.error(
        code,
        message,
        place.path(),
        site.expr_position(place, text, at),
    );
    d.expr_at = Some(at);
    d
}

/// The error of a value reflection refused to store.
fn unfit(site: &Site, described: &str, reason: String, place: ExprPlace, text: &str) -> Diagnostic {
    let message = format!("{described}: the value does not fit: {reason}");
    at_value(site, codes::custom::EXPR, message, place, text)
}

/// The diagnostic of a custom component whose type no schema has: ambiguous bare name, a
/// reflected type that is not a `ForgeComponent` (`registered_as` says what it is: the loader
/// knows the game's registry), or unknown with "did you mean" over `paths`.
pub(crate) fn unknown_type(
    custom: &CustomComponent,
    site: &Site,
    paths: Vec<String>,
    registered_as: Option<&str>,
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
                codes::custom::UNKNOWN_TYPE,
                format!(
                    "custom component type `{type_path}` is ambiguous: it may be {}",
                    list.join(" or ")
                ),
                ".type_path".into(),
                position,
            )
            .with_help("write the full type path");
    }
    if let Some(what) = registered_as {
        return site
            .error(
                codes::custom::NOT_ALLOWED,
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
        codes::custom::UNKNOWN_TYPE,
        format!("unknown custom component type `{type_path}`"),
        ".type_path".into(),
        position,
    )
    .with_help(help)
}

pub(crate) fn unknown_field(
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
        codes::custom::UNKNOWN_FIELD,
        message,
        format!("{path}.name"),
        position,
    )
    .with_help(help)
}

pub(crate) fn expr_error(
    e: &ExprError,
    described: &str,
    text: &str,
    site: &Site,
    place: ExprPlace,
) -> Diagnostic {
    let help = match e {
        ExprError::Syntax { .. } | ExprError::Unsupported { .. } => {
            Some(format!("field expressions are data: {}", expr::SUPPORTED))
        }
        ExprError::UnknownVariant {
            variant, variants, ..
        } => {
            let names = variants.split(", ").map(|v| v.trim_matches('`'));
            nearest(variant, names).map(|g| format!("did you mean `{g}`?"))
        }
        _ => None,
    };
    // A reference that does not resolve has its own code: the expression itself is fine.
    let code = match e {
        ExprError::Reference { .. } => codes::custom::REFERENCE,
        _ => codes::custom::EXPR,
    };
    let mut d = site.error(
        code,
        format!("{described}: {e} in `{}`", expr::excerpt(text)),
        place.path(),
        site.expr_position(place, text, e.at()),
    );
    d.help = help;
    d.expr_at = Some(e.at());
    d
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

/// What a type path names in the offline registry, which knows only engine value types (glam,
/// colours): never a component or resource, so "a reflected type".
fn reflected(registry: &TypeRegistry, custom: &CustomComponent) -> Option<&'static str> {
    let path = custom.type_path.as_str();
    registry
        .get_with_type_path(path)
        .or_else(|| registry.get_with_short_type_path(path))
        .map(|_| "a reflected type that does not derive `ForgeComponent`")
}

/// The entities of an expanded scene that instances placed, by id path (implemented by the
/// prefab expansion, which knows them).
pub(crate) trait PlacedEntities {
    /// The id path of the entity with key `key`, when an instance placed it.
    fn placed_path(&self, key: u64) -> Option<&[u64]>;
    /// The key of the entity at `path`, two or more ids long.
    fn key(&self, path: &[u64]) -> Option<u64>;
    /// The prefab the entity with key `key` places, when it is an instance entity.
    fn places(&self, key: u64) -> Option<&str>;
    /// When the entity with key `key` is a tile layer's: the cells the layer has (`None` for
    /// none).
    fn layer_cells(&self, key: u64) -> Option<Option<crate::format::CellRect>>;
}

/// The entities a scene's references (`#7`, `#7/2`) may name: every entity of `doc`, the
/// scene's own by id and, when `doc` is an expansion, those its instances placed by id path.
pub(crate) struct Referable<'a> {
    /// The document whose entities are named.
    doc: &'a SceneDoc,
    /// What the instances placed, when `doc` is an expansion.
    placed: Option<&'a dyn PlacedEntities>,
    /// The entities by parent path, each list sorted by id, for "did you mean": built on the
    /// first reference that names nothing.
    beside: std::cell::OnceCell<Beside<'a>>,
}

/// Entities by parent path: each one's last id and name, sorted by id.
type Beside<'a> = HashMap<Box<[u64]>, Vec<(u64, &'a str)>>;

/// The most ids an id path can have: the scene's instance entity, then one id per prefab file
/// nested below it ([`MAX_PREFAB_DEPTH`](crate::format::MAX_PREFAB_DEPTH)), then the entity.
const MAX_PATH_LEN: usize = crate::format::MAX_PREFAB_DEPTH + 1;

impl<'a> Referable<'a> {
    /// The entities of `doc`, and those `placed` says its instances placed.
    pub(crate) fn new(doc: &'a SceneDoc, placed: Option<&'a dyn PlacedEntities>) -> Self {
        Referable {
            doc,
            placed,
            beside: std::cell::OnceCell::new(),
        }
    }

    /// The entities of a scene without instances.
    pub(crate) fn own(doc: &'a SceneDoc) -> Self {
        Self::new(doc, None)
    }

    pub(crate) fn placed_path(&self, key: u64) -> Option<&'a [u64]> {
        self.placed?.placed_path(key)
    }

    /// The key of the entity at `path`, when there is one.
    fn key(&self, path: &[u64]) -> Option<u64> {
        match path {
            [] => None,
            [id] => self
                .doc
                .entities
                .contains_key(id)
                .then_some(*id)
                .filter(|id| self.placed_path(*id).is_none()),
            _ => self.placed.and_then(|p| p.key(path)),
        }
    }

    /// The key of the entity at `path`.
    ///
    /// # Errors
    /// Why there is none, with "did you mean" over the entities beside it (the same parent
    /// path, nearest id first) and their names. Time grows with the path's length (at most
    /// [`MAX_PATH_LEN`] ids are looked at) and the log of the scene's size.
    pub(crate) fn find(&self, path: &[u64]) -> Result<u64, String> {
        if path.len() > MAX_PATH_LEN {
            return Err(format!(
                "`{}` has {} ids, more than any id path: prefabs nest at most {} files deep",
                reference_text(path),
                path.len(),
                crate::format::MAX_PREFAB_DEPTH
            ));
        }
        if let Some(key) = self.key(path) {
            return Ok(key);
        }
        let written = reference_text(path);
        let instance = path.first().and_then(|id| self.doc.entities.get(id));
        if self.placed.is_none() && path.len() > 1 && instance.is_some_and(|n| n.instance.is_some())
        {
            return Err(format!(
                "`{written}` is inside a prefab instance, and this check does not expand them (expanded scenes are checked by the loader, `forge validate` and `PrefabFiles::expand_scene`)"
            ));
        }
        // Into an empty cell of a tile layer: the layer entity places no prefab itself, its
        // cells' entities are `[layer, i, j, id..]`.
        if let [layer, i, j, ..] = *path
            && self.key(&[layer]).is_some()
            && self.placed.is_some_and(|p| p.places(layer).is_none())
            && self.beside(&path[..3]).is_empty()
            && let Some(cells) = self.placed.and_then(|p| p.layer_cells(layer))
        {
            let inside = |r: &crate::format::CellRect| {
                (u64::from(r.i0)..=u64::from(r.i1)).contains(&i)
                    && (u64::from(r.j0)..=u64::from(r.j1)).contains(&j)
            };
            return Err(match cells {
                Some(r) if inside(&r) => {
                    format!("cell ({i}, {j}) of tile layer `#{layer}` is empty")
                }
                Some(r) => format!(
                    "cell ({i}, {j}) is outside tile layer `#{layer}`, whose cells run from ({}, {}) to ({}, {})",
                    r.i0, r.j0, r.i1, r.j1
                ),
                None => {
                    format!("cell ({i}, {j}) is outside tile layer `#{layer}`, which has no cells")
                }
            });
        }
        let (prefix, last) = path.split_at(path.len().saturating_sub(1));
        let last = last.first().copied().unwrap_or_default();
        let beside = self.beside(prefix);
        if beside.is_empty() {
            if prefix.is_empty() {
                return Err(format!(
                    "there is no entity `{written}`: the scene has no entities"
                ));
            }
            if let Some(key) = self.key(prefix) {
                let places = self.placed.and_then(|p| p.places(key));
                return Err(match places {
                    // Its prefab did not expand: that file's problem is reported on its own.
                    Some(scene) => format!(
                        "`{}` places `{scene}`, which placed nothing here (it did not load, or has no entities), so `{written}` cannot be found",
                        reference_text(prefix)
                    ),
                    None => format!(
                        "`{}` places no prefab, so `{written}` names nothing",
                        reference_text(prefix)
                    ),
                });
            }
            // The first id that names nothing: its parent path exists (or is the scene), so
            // this goes one level down at most.
            let exists = (1..prefix.len())
                .rev()
                .find(|k| self.key(&path[..*k]).is_some())
                .unwrap_or(0);
            return self.find(&path[..=exists]);
        }
        // Ids one keystroke away first (`#11` for `#1`, `#17` for `#12`), then the nearest on
        // each side of the missing one, nearest first.
        let find_id = |id: u64| {
            beside
                .binary_search_by_key(&id, |(i, _)| *i)
                .ok()
                .map(|i| beside[i])
        };
        let mut near: Vec<(u64, &str)> = typos(last).filter_map(find_id).collect();
        near.sort_by_key(|(id, _)| id.abs_diff(last));
        let at = beside.partition_point(|(id, _)| *id < last);
        let mut numeric: Vec<(u64, &str)> =
            beside[at.saturating_sub(3)..(at + 3).min(beside.len())].to_vec();
        numeric.sort_by_key(|(id, _)| id.abs_diff(last));
        for n in numeric {
            if !near.iter().any(|(id, _)| *id == n.0) {
                near.push(n);
            }
        }
        let shown: Vec<String> = near
            .iter()
            .take(3)
            .map(|(id, name)| {
                let mut p = prefix.to_vec();
                p.push(*id);
                format!("`{}` ({name:?})", reference_text(&p))
            })
            .collect();
        Err(format!(
            "no entity has that id path; did you mean {}?",
            shown.join(" or ")
        ))
    }

    /// The entities whose id path is `prefix` and one more id: that id and their names, sorted.
    fn beside(&self, prefix: &[u64]) -> &[(u64, &'a str)] {
        self.index().get(prefix).map_or(&[], Vec::as_slice)
    }

    /// The entities by parent path, built once.
    fn index(&self) -> &Beside<'a> {
        self.beside.get_or_init(|| {
            let mut index: Beside<'a> = HashMap::new();
            for (key, node) in &self.doc.entities {
                let own = [*key];
                let p: &[u64] = self.placed_path(*key).unwrap_or(&own);
                let (parent, last) = p.split_at(p.len().saturating_sub(1));
                let last = last.first().copied().unwrap_or_default();
                index
                    .entry(parent.into())
                    .or_default()
                    .push((last, node.name.as_str()));
            }
            for list in index.values_mut() {
                list.sort_unstable_by_key(|(id, _)| *id);
            }
            index
        })
    }
}

/// The ids one keystroke from `id` in decimal: a digit left out, added or changed.
fn typos(id: u64) -> impl Iterator<Item = u64> {
    let digits = id.to_string();
    let n = digits.len();
    let mut out: Vec<u64> = Vec::new();
    for i in 0..n {
        // Left out.
        let mut d = digits.clone();
        d.remove(i);
        out.extend(d.parse::<u64>());
    }
    for i in 0..=n {
        for c in '0'..='9' {
            // Added, and changed.
            let mut added = digits.clone();
            added.insert(i, c);
            out.extend(added.parse::<u64>());
            if i < n {
                let mut changed = digits.clone();
                changed.replace_range(i..=i, c.encode_utf8(&mut [0; 4]));
                out.extend(changed.parse::<u64>());
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out.retain(|t| *t != id);
    out.into_iter()
}

/// A reference as written: `#7`, `#7/2` (a long path clipped after 8 ids).
pub(crate) fn reference_text(path: &[u64]) -> String {
    let ids: Vec<String> = path.iter().take(8).map(u64::to_string).collect();
    let more = if path.len() > 8 { "/.." } else { "" };
    format!("#{}{more}", ids.join("/"))
}

/// References checked against the scene, without building entities (offline checks): a
/// reference that resolves evaluates to a stand-in value.
pub(crate) struct OfflineRefs<'r, 'a>(pub(crate) &'r Referable<'a>);

impl EntityRefs for OfflineRefs<'_, '_> {
    fn resolve(&self, path: &[u64]) -> Result<Box<dyn PartialReflect>, String> {
        self.0
            .find(path)
            .map(|key| Box::new(key) as Box<dyn PartialReflect>)
    }
}

#[cfg(test)]
mod tests {
    use super::typos;

    #[test]
    fn typos_are_one_keystroke_away() {
        let t: Vec<u64> = typos(11).collect();
        assert!(t.contains(&1) && t.contains(&111) && t.contains(&12) && t.contains(&21));
        assert!(!t.contains(&11) && !t.contains(&130));
        assert!(typos(7).any(|t| t == 0));
    }
}
