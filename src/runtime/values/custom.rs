//! Custom components at load and spawn time: building their values through reflection and
//! inserting them.
//!
//! Loading builds every custom component completely (the type's `Default`, then each listed
//! field set from its evaluated expression) and keeps the values in one column per type
//! ([`PreparedCustoms`]), so spawning only copies a ready value into the entity with a typed
//! insert. The checks are [`crate::validate::custom`]'s, shared with `forge validate --schema`:
//! every problem becomes a positioned [`Diagnostic`] that fails the load. Only the allow-list is
//! checked here, as it needs the game's registry: a type path naming a registered type that is
//! not a `ForgeComponent` (`forge::custom::not_allowed`).
//!
//! A value with entity references (`#7`) holds placeholders (see [`super::refs`]); it is
//! inserted once every entity of its instance exists, with the placeholders replaced by them.

use bevy_platform::collections::HashMap;
use std::sync::Arc;

use bevy_ecs::entity::Entity;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent, ReflectResource};
use bevy_ecs::world::{EntityWorldMut, World};
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{PartialReflect, Reflect, ReflectMut, TypeInfo, TypeRegistry};

use super::components::EntityBundle;
use super::refs::{Placeholders, RefTable};
use super::registry::{CustomColumn, ForgeSchemas, MappedCopy, SchemaEntry, SpawnWith};
use super::windows::Windows;
use crate::codes;
use crate::format::{CustomComponent, SceneDoc, SourceMap};
use crate::pipeline::rules::Run;
use crate::schema::expr::{self, Target};
use crate::validate::Diagnostic;
use crate::validate::custom::{
    Referable, Site, check_fields, custom_sites_where, resolve, spelled_twice, unknown_type,
};

/// What the loader needs to build custom components: the app's type registry and schemas.
#[derive(Clone, Default)]
pub(crate) struct CustomContext {
    pub(crate) registry: AppTypeRegistry,
    pub(crate) schemas: ForgeSchemas,
}

/// The custom components of a scene, ready to insert, in one or more [`PreparedPart`]s of
/// consecutive entities (one per run of entities a thread built: see
/// [`prepare_part`]). Each part is complete on its own: its own columns, rows and references.
///
/// The scene's entities are read through windows on the parts: entities `firsts[w]..` are the
/// part of window `w` from its entity `from`. A load builds one window per part; the check of
/// a new version of the file keeps the windows of entities it did not check again and adds a
/// part of those it did ([`reuse`](crate::pipeline::rules::CustomRules::reuse)), so parts are
/// shared between versions (cloning this is cheap).
#[derive(Default, Clone)]
pub(crate) struct PreparedCustoms(Windows<PreparedPart>);

/// The custom components of a run of consecutive entities: one column of values per type (a
/// `Vec` of the type itself: no allocation per value), and for each entity, in `doc.entities`
/// order, which row of which column holds each of its custom components.
#[derive(Default)]
pub(crate) struct PreparedPart {
    types: Vec<(Arc<CustomType>, Box<dyn CustomColumn>)>,
    /// `(type, row)` of every component, entity by entity; [`REFERS`] set in the row of a
    /// value with entity references.
    refs: Vec<(u32, u32)>,
    /// Entity `i`'s components (`i` counted from the part's first) are
    /// `refs[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    /// The entities the placeholders in the part's values stand for.
    references: RefTable,
}

/// The bit of a row that says its value has entity references.
const REFERS: u32 = super::registry::ROW_FLAG;

impl std::fmt::Debug for PreparedCustoms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedCustoms")
            .field("windows", &self.0.windows())
            .finish_non_exhaustive()
    }
}

impl PreparedCustoms {
    /// The custom components of the entity at `index` of `doc.entities` (none when out of range).
    pub(crate) fn entity(&self, index: usize) -> Customs<'_> {
        match self.0.at(index) {
            Some((part, i)) => part.entity(i),
            None => Customs::empty(),
        }
    }

    /// Whether any value has entity references (inserted once its instance's entities exist).
    pub(crate) fn has_references(&self) -> bool {
        self.0.parts().any(|p| !p.references.keys.is_empty())
    }
}

/// Where entity `index`'s items are in a list kept entity by entity, where entity `i`'s are at
/// `starts[i]..starts[i + 1]`; empty for an index out of range.
pub(crate) fn entity_run(starts: &[u32], index: usize) -> std::ops::Range<usize> {
    let next = index.checked_add(1).and_then(|i| starts.get(i));
    match (starts.get(index), next) {
        (Some(&a), Some(&b)) => a as usize..b as usize,
        _ => 0..0,
    }
}

/// What an entity out of range gets its (no) components from.
static EMPTY_PART: PreparedPart = PreparedPart {
    types: Vec::new(),
    refs: Vec::new(),
    starts: Vec::new(),
    references: RefTable { keys: Vec::new() },
};

impl PreparedPart {
    /// The custom components of the part's entity `index` (none when out of range).
    fn entity(&self, index: usize) -> Customs<'_> {
        Customs {
            table: self,
            refs: self
                .refs
                .get(entity_run(&self.starts, index))
                .unwrap_or(&[]),
        }
    }

    fn get(&self, (ty, row): (u32, u32)) -> Option<PreparedCustom<'_>> {
        let (ty, column) = self.types.get(ty as usize)?;
        Some(PreparedCustom {
            ty,
            value: column.value_at(row & !REFERS)?,
            references: (row & REFERS != 0).then_some(&self.references),
        })
    }
}

/// The prepared custom components of one entity.
#[derive(Clone, Copy)]
pub(crate) struct Customs<'a> {
    table: &'a PreparedPart,
    refs: &'a [(u32, u32)],
}

impl<'a> Customs<'a> {
    /// No components: those of an entity with no prepared values.
    pub(crate) fn empty() -> Self {
        Customs {
            table: &EMPTY_PART,
            refs: &[],
        }
    }

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
    /// For a value with entity references: the entities its placeholders stand for.
    references: Option<&'a RefTable>,
}

/// The live entity of each entity of the expanded scene, by key (an instance's id map).
pub(crate) type Live<'a> = &'a dyn Fn(u64) -> Option<Entity>;

impl PreparedCustom<'_> {
    /// The registered type path of the component.
    #[cfg(feature = "gltf")]
    pub(crate) fn type_path(&self) -> &str {
        &self.ty.type_path
    }

    /// Whether the value has entity references.
    pub(crate) fn refers(&self) -> bool {
        self.references.is_some()
    }

    /// Whether every entity the value's references name passes `known` (by key): true for a
    /// value without references. Streaming holds back a value naming an entity of a cell that
    /// is out.
    pub(crate) fn names_only(&self, known: &dyn Fn(u64) -> bool) -> bool {
        let Some(table) = self.references else {
            return true;
        };
        let all = std::cell::Cell::new(true);
        let _ = (self.ty.mapped)(self.value, &|placeholder| {
            if table.key(placeholder).is_none_or(|k| !known(k)) {
                all.set(false);
            }
            Some(placeholder)
        });
        all.get()
    }

    /// Whether `entity` has a component of this value's type.
    pub(crate) fn is_on(&self, entity: &EntityWorldMut) -> bool {
        self.ty.component.contains(entity)
    }

    /// Removes the component of this value's type from `entity`.
    pub(crate) fn remove_from(&self, entity: &mut EntityWorldMut) {
        self.ty.component.remove(entity);
    }

    /// Whether the live component on `entity` already holds this value: whole (`fields`
    /// `None`), or in each of `fields` (a struct's by name, a tuple struct's by index). Hot
    /// reload writes nothing then, so a value kept from play into the file moves no change tick.
    pub(crate) fn is_live(
        &self,
        entity: &EntityWorldMut,
        fields: Option<&[&str]>,
        live: Live<'_>,
    ) -> bool {
        let Some(current) = self.ty.component.reflect(entity.as_readonly()) else {
            return false;
        };
        let same = |a: Option<&dyn PartialReflect>, b: Option<&dyn PartialReflect>| match (a, b) {
            (Some(a), Some(b)) => a.reflect_partial_eq(b) == Some(true),
            (None, None) => true,
            _ => false,
        };
        self.with_value(live, |value| match fields {
            None => same(
                Some(current.as_partial_reflect()),
                Some(value.as_partial_reflect()),
            ),
            Some(fields) => match (current.reflect_ref(), value.reflect_ref()) {
                (bevy_reflect::ReflectRef::Struct(a), bevy_reflect::ReflectRef::Struct(b)) => {
                    fields.iter().all(|f| same(a.field(f), b.field(f)))
                }
                (
                    bevy_reflect::ReflectRef::TupleStruct(a),
                    bevy_reflect::ReflectRef::TupleStruct(b),
                ) => fields.iter().all(|f| match f.parse::<usize>() {
                    Ok(i) => same(a.field(i), b.field(i)),
                    Err(_) => true,
                }),
                _ => false,
            },
        })
        .unwrap_or(false)
    }

    /// Calls `f` with the value to insert: the prepared value, or for one with references a
    /// copy with each placeholder replaced by its live entity (`Entity::PLACEHOLDER` for one
    /// `live` does not know: the game despawned it). `None` when the copy cannot be made.
    pub(crate) fn with_value<R>(
        &self,
        live: Live<'_>,
        f: impl FnOnce(&dyn Reflect) -> R,
    ) -> Option<R> {
        let Some(table) = self.references else {
            return Some(f(self.value));
        };
        let mapped = (self.ty.mapped)(self.value, &|placeholder| table.live(placeholder, live))?;
        Some(f(&*mapped))
    }
}

/// What every prepared component of one type shares.
struct CustomType {
    type_path: String,
    component: ReflectComponent,
    insert: fn(&mut EntityWorldMut, &dyn Reflect) -> bool,
    spawn_with: SpawnWith,
    mapped: MappedCopy,
}

/// A registered type resolved once per load: its schema entry and reflected parts.
struct Resolved {
    entry: SchemaEntry,
    info: &'static TypeInfo,
    /// A struct's fields in declaration order (their reflected index), with their types: a few
    /// names compared beat hashing each field name twice per value. Empty for a tuple struct.
    fields: Vec<(&'static str, Option<&'static TypeInfo>)>,
    /// Its column in the [`PreparedPart`] being built.
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
    out: &mut PreparedPart,
) -> Result<Resolved, Unresolved> {
    let entry = resolve(type_path, |p| schemas.entry(p), || schemas.type_paths())
        .ok_or(Unresolved::Unknown)?;
    let registration = registry.get(entry.type_id);
    if registration.is_some_and(|r| r.data::<ReflectResource>().is_some()) {
        return Err(Unresolved::NotRegistered);
    }
    // A reflected `Default` is asked of every custom type (values are built on the type's own
    // `Default`, which a `ForgeComponent` has).
    let (component, info) = registration
        .and_then(|r| {
            r.data::<ReflectDefault>()?;
            Some((r.data::<ReflectComponent>()?.clone(), r.type_info()))
        })
        .ok_or(Unresolved::NotRegistered)?;
    let ty = Arc::new(CustomType {
        type_path: entry.schema.type_path.clone(),
        component,
        insert: entry.insert,
        spawn_with: entry.spawn_with,
        mapped: entry.mapped,
    });
    let slot = u32::try_from(out.types.len()).map_err(|_| Unresolved::NotRegistered)?;
    out.types.push((ty, (entry.column)()));
    let fields = match info {
        TypeInfo::Struct(s) => s
            .iter()
            .map(|f| (crate::schema::unraw(f.name()), f.type_info()))
            .collect(),
        _ => Vec::new(),
    };
    Ok(Resolved {
        entry,
        info,
        fields,
        slot,
    })
}

impl CustomContext {
    /// The type registry and schemas of `world` (empty when it has none).
    pub(crate) fn of(world: &World) -> Self {
        CustomContext {
            registry: world
                .get_resource::<AppTypeRegistry>()
                .cloned()
                .unwrap_or_default(),
            schemas: world
                .get_resource::<ForgeSchemas>()
                .cloned()
                .unwrap_or_default(),
        }
    }
}

/// The loader's rules for custom components: each is checked by building it through the game's
/// reflected types (the checks and messages of `forge validate --schema`, plus what needs the
/// game), and kept.
impl crate::pipeline::rules::CustomRules for CustomContext {
    type Part = PreparedPart;
    type Built = PreparedCustoms;

    fn check_part(
        &self,
        doc: &SceneDoc,
        range: std::ops::Range<usize>,
        map: &SourceMap,
        referable: &Referable<'_>,
    ) -> (PreparedPart, Vec<Diagnostic>) {
        prepare_part(doc, range, map, self, referable)
    }

    fn join(&self, parts: Vec<PreparedPart>) -> PreparedCustoms {
        join(parts.into_iter().map(|p| (p, Vec::new())).collect()).0
    }

    fn reuse(&self, kept: &PreparedCustoms, fresh: PreparedPart, runs: &[Run]) -> PreparedCustoms {
        PreparedCustoms(Windows::reuse(&kept.0, fresh, runs))
    }

    /// More windows than a few per thousand entities: lookups slow down and small parts of
    /// old versions stay alive.
    fn worn(&self, built: &PreparedCustoms, entities: usize) -> bool {
        built.0.windows() > 64 + entities / 256
    }

    type Context = (usize, usize);

    /// The number of registered schemas and of registered types: a type registered after the
    /// last check is checked against from the next one on.
    fn context(&self) -> (usize, usize) {
        (self.schemas.len(), self.registry.read().iter().count())
    }

    fn renames(&self) -> crate::schema::renames::Renames {
        self.schemas.renames()
    }
}

/// The errors of building one [`PreparedPart`], in file order.
pub(crate) type PartErrors = Vec<Diagnostic>;

/// [`prepare`] for the entities at `range` of `doc.entities` only (an empty part when the range
/// is out of bounds), and its errors. The parts of consecutive ranges, [`join`]ed in order, give
/// each entity the values [`prepare`] gives it, and the same errors in the same order.
pub(crate) fn prepare_part(
    doc: &SceneDoc,
    range: std::ops::Range<usize>,
    map: &SourceMap,
    cx: &CustomContext,
    referable: &Referable<'_>,
) -> (PreparedPart, PartErrors) {
    let placeholders = Placeholders::new(referable);
    let registry = cx.registry.read();
    let mut errors = Vec::new();
    let entities = doc.entities.get_range(range).unwrap_or_default();
    let mut out = PreparedPart {
        starts: Vec::with_capacity(entities.len() + 1),
        ..Default::default()
    };
    // Each type path is checked and resolved once per part, not once per component.
    let mut valid_paths: HashMap<&str, bool> = HashMap::new();
    let mut types: HashMap<&str, Result<Resolved, Unresolved>> = HashMap::new();
    // The types of the entity's custom components so far: (column, as written).
    let mut seen: Vec<(u32, &str)> = Vec::new();
    // Values already built without entity references, by their text: the same component written
    // again (a prefab's in every cell of a tile layer, or of every instance) shares their row
    // (spawning inserts a copy of the value), built and checked once.
    let mut built_once: HashMap<&CustomComponent, (u32, u32)> = HashMap::new();
    for (id, node) in entities {
        out.starts.push(out.refs.len() as u32);
        seen.clear();
        let valid = |p| {
            *valid_paths
                .entry(p)
                .or_insert_with(|| crate::validate::is_type_path(p))
        };
        for (custom, site) in custom_sites_where(map, referable, false, *id, node, valid) {
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
                if let Some(&(slot, row)) = built_once.get(custom) {
                    out.refs.push((slot, row));
                    continue;
                }
            }
            let built = build(
                custom,
                &site,
                &registry,
                &cx.schemas,
                resolved,
                &placeholders,
                &mut out.types,
            );
            let refers = placeholders.take_used();
            match built {
                Ok((slot, row)) => {
                    if !refers {
                        built_once.insert(custom, (slot, row));
                    }
                    out.refs
                        .push((slot, if refers { row | REFERS } else { row }));
                }
                Err(mut problems) => errors.append(&mut problems),
            }
        }
    }
    out.starts.push(out.refs.len() as u32);
    out.refs.shrink_to_fit();
    out.references = placeholders.into_table();
    for (_, column) in &mut out.types {
        column.shrink();
    }
    (out, errors)
}

/// The [`PreparedCustoms`] of the parts of consecutive runs of entities, given in order from
/// the first entity, and their errors in that order.
pub(crate) fn join(parts: Vec<(PreparedPart, PartErrors)>) -> (PreparedCustoms, Vec<Diagnostic>) {
    let mut errors = Vec::new();
    let mut kept = Vec::with_capacity(parts.len());
    for (part, mut more) in parts {
        errors.append(&mut more);
        let len = part.starts.len().saturating_sub(1);
        kept.push((part, len));
    }
    (PreparedCustoms(Windows::of(kept)), errors)
}

/// Builds one custom component into its type's column in `columns`; its column and row.
fn build(
    custom: &CustomComponent,
    site: &Site,
    registry: &TypeRegistry,
    schemas: &ForgeSchemas,
    resolved: &Result<Resolved, Unresolved>,
    refs: &Placeholders<'_, '_>,
    columns: &mut [(Arc<CustomType>, Box<dyn CustomColumn>)],
) -> Result<(u32, u32), Vec<Diagnostic>> {
    let resolved = match resolved {
        Ok(r) => r,
        Err(Unresolved::Unknown) => {
            return Err(vec![unknown_type(
                custom,
                site,
                schemas.type_paths(),
                registered_as(registry, &custom.type_path),
            )]);
        }
        Err(Unresolved::NotRegistered) => {
            return Err(vec![site.error(
                codes::custom::UNKNOWN_TYPE,
                format!(
                    "`{}` has a schema but is not registered as a component with a reflected `Default`",
                    custom.type_path
                ),
                ".type_path".into(),
                site.type_path_position(),
            )]);
        }
    };
    // Built in place, in the type's column: the `Default` pushed, then each field set.
    let Some((row, column)) = columns
        .get_mut(resolved.slot as usize)
        .and_then(|(_, column)| Some((column.push_default()?, column)))
    else {
        return Err(vec![site.error(
            codes::custom::UNKNOWN_TYPE,
            format!("`{}`: more values than a scene holds", custom.type_path),
            ".type_path".into(),
            site.type_path_position(),
        )]);
    };
    let errors = check_fields(
        custom,
        site,
        &resolved.entry.schema,
        |name| resolved.field_type(name).map(Target::Info),
        matches!(resolved.info, TypeInfo::Enum(_)).then_some(Target::Info(resolved.info)),
        registry,
        refs,
        |name, v| {
            let value = column.value_at_mut(row);
            let dest = match name {
                Some(name) => value.and_then(|value| resolved.field_mut(value, name)),
                // An enum's whole value.
                None => value.map(|v| v.as_partial_reflect_mut()),
            };
            match dest {
                Some(dest) => expr::assign_taking(dest, v),
                None => Ok(()),
            }
        },
    );
    if !errors.is_empty() {
        column.pop();
        return Err(errors);
    }
    Ok((resolved.slot, row))
}

impl Resolved {
    /// The reflected index of struct field `name` (`r#type` and `type` both name `type`).
    fn field_index(&self, name: &str) -> Option<usize> {
        let name = crate::schema::unraw(name);
        self.fields.iter().position(|(n, _)| *n == name)
    }

    /// The reflected type of field `name` (`0`, `1` for tuple structs).
    fn field_type(&self, name: &str) -> Option<&'static TypeInfo> {
        match self.info {
            TypeInfo::Struct(_) => self.fields.get(self.field_index(name)?)?.1,
            TypeInfo::TupleStruct(t) => t.field_at(name.parse().ok()?)?.type_info(),
            _ => None,
        }
    }

    /// Field `name` of `value`, a value of this type: a struct's by its reflected index.
    fn field_mut<'v>(
        &self,
        value: &'v mut dyn Reflect,
        name: &str,
    ) -> Option<&'v mut dyn PartialReflect> {
        match value.reflect_mut() {
            ReflectMut::Struct(s) => s.field_at_mut(self.field_index(name)?),
            ReflectMut::TupleStruct(t) => t.field_mut(name.parse().ok()?),
            _ => None,
        }
    }
}

/// Inserts the prepared custom components of one entity (key `id`) with typed inserts (no
/// type registry needed). With `live` `None`, values with entity references are left out (they
/// wait for their instance's entities); with it, only they are inserted, resolved through it.
/// A value that cannot be inserted is logged with the entity and type, never a panic.
pub(crate) fn insert<'a>(
    entity: &mut EntityWorldMut,
    prepared: impl IntoIterator<Item = PreparedCustom<'a>>,
    id: u64,
    live: Option<Live<'_>>,
) {
    for p in prepared {
        if p.refers() != live.is_some() {
            continue;
        }
        insert_one(entity, p, id, live.unwrap_or(&|_| None));
    }
}

/// Inserts one prepared value (at spawn, or whole on hot reload), its references resolved
/// through `live`.
pub(crate) fn insert_one(
    entity: &mut EntityWorldMut,
    p: PreparedCustom<'_>,
    id: u64,
    live: Live<'_>,
) {
    // A game observer may despawn the entity as a component arrives.
    if entity.is_despawned() {
        return;
    }
    if p.with_value(live, |value| (p.ty.insert)(entity, value)) != Some(true) {
        tracing::error!(
            "entity {id}: custom component `{}` not inserted: its prepared value does not apply",
            p.ty.type_path
        );
    }
}

/// Spawns an entity with `bundle` and the first of `prepared` in one bundle, and returns it and
/// the custom components still to insert (all of them when the first could not be built or
/// has entity references).
pub(crate) fn spawn_with_first<'a>(
    world: &mut World,
    bundle: EntityBundle,
    prepared: Customs<'a>,
) -> (Entity, Customs<'a>) {
    let Some((first, rest)) = prepared.split_first().filter(|(first, _)| !first.refers()) else {
        return (world.spawn(bundle).id(), prepared);
    };
    match (first.ty.spawn_with)(world, bundle, first.value) {
        Ok(entity) => (entity, rest),
        Err(bundle) => (world.spawn(bundle).id(), prepared),
    }
}

/// Sets only the fields `fields` of the live component from the prepared value (its entity
/// references resolved through `live`); the other fields keep their live values (hot reload of
/// changed fields). A component the entity lost is inserted whole.
pub(crate) fn patch_fields(
    entity: &mut EntityWorldMut,
    prepared: PreparedCustom<'_>,
    fields: &[&str],
    id: u64,
    live: Live<'_>,
) {
    if !prepared.ty.component.contains(&*entity) {
        insert_one(entity, prepared, id, live);
        return;
    }
    let applied = prepared.with_value(live, |value| {
        let Some(mut component) = prepared.ty.component.reflect_mut(&mut *entity) else {
            return false;
        };
        // Each changed field replaced: a shorter list is shorter, not merged. A struct's fields
        // by name, a tuple struct's by index (`0`, `1`).
        let replaced =
            |dest: Option<&mut dyn PartialReflect>, new: Option<&dyn PartialReflect>| match (
                dest, new,
            ) {
                (Some(dest), Some(new)) => expr::assign(dest, new).is_ok(),
                _ => true,
            };
        match (component.reflect_mut(), value.reflect_ref()) {
            (ReflectMut::Struct(live_value), bevy_reflect::ReflectRef::Struct(full)) => fields
                .iter()
                .all(|name| replaced(live_value.field_mut(name), full.field(name))),
            (ReflectMut::TupleStruct(live_value), bevy_reflect::ReflectRef::TupleStruct(full)) => {
                fields.iter().all(|name| match name.parse::<usize>() {
                    Ok(i) => replaced(live_value.field_mut(i), full.field(i)),
                    Err(_) => true,
                })
            }
            _ => false,
        }
    });
    if applied != Some(true) {
        insert_one(entity, prepared, id, live);
    }
}

/// The registered type path that `type_path` (as a file writes it: full, or a unique bare type
/// name) names, with the loader's rule.
pub(crate) fn canonical_path(world: &World, type_path: &str) -> Option<String> {
    resolve_in_world(world, type_path).map(|(path, _)| path)
}

/// The schema type path and Rust type of the custom component type that `type_path` (as a
/// file writes it) names, with the loader's rule (saving a live instance reads it back).
pub(crate) fn resolve_in_world(
    world: &World,
    type_path: &str,
) -> Option<(String, std::any::TypeId)> {
    let schemas = world.get_resource::<ForgeSchemas>()?;
    resolve(type_path, |p| schemas.entry(p), || schemas.type_paths())
        .map(|entry| (entry.schema.type_path.clone(), entry.type_id))
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

/// What a registered type that is not a `ForgeComponent` is, for the allow-list's message
/// (`forge::custom::not_allowed`); `None` when `type_path` names no registered type.
fn registered_as(registry: &TypeRegistry, type_path: &str) -> Option<&'static str> {
    let other = registry
        .get_with_type_path(type_path)
        .or_else(|| registry.get_with_short_type_path(type_path))?;
    Some(if other.data::<ReflectResource>().is_some() {
        "a resource"
    } else if other.data::<ReflectComponent>().is_some() {
        "a component that does not derive `ForgeComponent`"
    } else {
        "a reflected type that does not derive `ForgeComponent`"
    })
}
