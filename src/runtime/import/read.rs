//! Reading a `.scn.ron` text into a [`DynamicWorld`] (feature `import`): Bevy's world layout
//! read with the era's entity keys ([`super::eras`]), each component by reflection when
//! the registry has its type, by its schema when one has it ([`super::schema`]), and
//! without its type otherwise; types nobody knows are read past and listed.

use std::collections::HashSet;
use std::fmt;

use bevy_asset::LoadFromPath;
use bevy_ecs::entity::Entity;
use bevy_reflect::serde::TypedReflectDeserializer;
use bevy_reflect::{PartialReflect, ReflectFromReflect, TypeRegistry};
use bevy_world_serialization::{DynamicEntity, DynamicWorld};
use ron::value::RawValue;
use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, Visitor};

use super::eras::{self, BevyEra, EntitySeed, Keys};
use super::fields;
use super::loose::LooseSeed;
use super::processor::EraProcessor;
use super::schema::{Extra, Extras, SchemaIndex};
use super::typed::ComponentSeed;
use super::{ImportError, ImportOptions, NoteKind};

/// A type the reading met but could not read: the entity it was on (`None` for a resource)
/// and its type path.
pub(super) type Unknown = (Option<Entity>, String);

/// What [`read`] gives.
pub(super) struct Read {
    pub(super) world: DynamicWorld,
    pub(super) unknown: Vec<Unknown>,
    pub(super) extras: Extras,
    pub(super) era: BevyEra,
}

/// Reads `text` (see the module docs). `derived` says which Bevy types are computed from others
/// (read past without a note); handles' paths are given to `load`.
///
/// # Errors
/// [`ImportError::Ron`] with the line and column for text that is not a Bevy world (or holds a
/// value that does not fit its type, or an entity twice); [`ImportError::Era`] for an era this
/// reader refuses.
pub(super) fn read(
    text: &str,
    registry: &TypeRegistry,
    options: &ImportOptions,
    load: &mut dyn LoadFromPath,
    derived: fn(&str) -> bool,
) -> Result<Read, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let probe = eras::probe(text).map_err(|e| match e.era {
        Some(era) => ImportError::Era {
            file: None,
            line: e.line,
            column: e.column,
            era,
            message: e.message,
        },
        None => ImportError::Ron {
            file: None,
            line: e.line,
            column: e.column,
            message: e.message,
        },
    })?;
    let schemas = SchemaIndex::new(options);
    let mut cx = Cx {
        registry,
        keys: probe.keys,
        load,
        unknown: Vec::new(),
        extras: Extras {
            keys: Some(probe.keys),
            key_numbers: probe.key_numbers.clone(),
            ..Extras::default()
        },
        schemas: &schemas,
        text,
        derived,
        moved: Vec::new(),
    };
    let world = ron::Options::default()
        .from_str_seed(text, WorldSeed { cx: &mut cx })
        .map_err(|e| ImportError::Ron {
            file: None,
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
        })?;
    Ok(Read {
        world,
        unknown: cx.unknown,
        extras: cx.extras,
        era: probe.era,
    })
}

/// What the seeds share while reading.
struct Cx<'r> {
    registry: &'r TypeRegistry,
    keys: Keys,
    load: &'r mut dyn LoadFromPath,
    unknown: Vec<Unknown>,
    extras: Extras,
    schemas: &'r SchemaIndex,
    text: &'r str,
    derived: fn(&str) -> bool,
    /// The components read from a field of another component ([`EraProcessor::moved`]),
    /// taken by the entity being read.
    moved: Vec<Box<dyn PartialReflect>>,
}

struct WorldSeed<'a, 'r> {
    cx: &'a mut Cx<'r>,
}

#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum WorldField {
    Resources,
    Entities,
}

#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum EntityField {
    Components,
}

impl<'de> DeserializeSeed<'de> for WorldSeed<'_, '_> {
    type Value = DynamicWorld;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<DynamicWorld, D::Error> {
        d.deserialize_struct(
            bevy_world_serialization::serde::WORLD_STRUCT,
            &["resources", "entities"],
            self,
        )
    }
}

impl<'de> Visitor<'de> for WorldSeed<'_, '_> {
    type Value = DynamicWorld;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Bevy world: `(resources: {..}, entities: {..})`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DynamicWorld, A::Error> {
        let mut resources = None;
        let mut entities = None;
        while let Some(key) = map.next_key()? {
            match key {
                WorldField::Resources => {
                    if resources.is_some() {
                        return Err(A::Error::duplicate_field("resources"));
                    }
                    resources = Some(map.next_value_seed(ValuesSeed {
                        entity: None,
                        cx: &mut *self.cx,
                    })?);
                }
                WorldField::Entities => {
                    if entities.is_some() {
                        return Err(A::Error::duplicate_field("entities"));
                    }
                    entities = Some(map.next_value_seed(EntitiesSeed { cx: &mut *self.cx })?);
                }
            }
        }
        Ok(DynamicWorld {
            resources: resources.unwrap_or_default(),
            entities: entities.ok_or_else(|| A::Error::missing_field("entities"))?,
        })
    }
}

struct EntitiesSeed<'a, 'r> {
    cx: &'a mut Cx<'r>,
}

impl<'de> DeserializeSeed<'de> for EntitiesSeed<'_, '_> {
    type Value = Vec<DynamicEntity>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EntitiesSeed<'_, '_> {
    type Value = Vec<DynamicEntity>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of entities: `{4294967295: (components: {..}), ..}`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entities = Vec::new();
        let mut seen = HashSet::new();
        while let Some(entity) = map.next_key_seed(EntitySeed(self.cx.keys))? {
            if !seen.insert(entity) {
                return Err(A::Error::custom(format_args!(
                    "entity `{entity}` (index v generation) appears twice"
                )));
            }
            let components = map.next_value_seed(EntitySeedOf {
                entity,
                cx: &mut *self.cx,
            })?;
            entities.push(DynamicEntity { entity, components });
        }
        Ok(entities)
    }
}

struct EntitySeedOf<'a, 'r> {
    entity: Entity,
    cx: &'a mut Cx<'r>,
}

impl<'de> DeserializeSeed<'de> for EntitySeedOf<'_, '_> {
    type Value = Vec<Box<dyn PartialReflect>>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_struct(
            bevy_world_serialization::serde::ENTITY_STRUCT,
            &["components"],
            self,
        )
    }
}

impl<'de> Visitor<'de> for EntitySeedOf<'_, '_> {
    type Value = Vec<Box<dyn PartialReflect>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entity: `(components: {..})`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut components = None;
        while let Some(EntityField::Components) = map.next_key()? {
            if components.is_some() {
                return Err(A::Error::duplicate_field("components"));
            }
            components = Some(map.next_value_seed(ValuesSeed {
                entity: Some(self.entity),
                cx: &mut *self.cx,
            })?);
        }
        components.ok_or_else(|| A::Error::missing_field("components"))
    }
}

/// A map of type path to value: an entity's components or the world's resources.
struct ValuesSeed<'a, 'r> {
    entity: Option<Entity>,
    cx: &'a mut Cx<'r>,
}

impl<'de> DeserializeSeed<'de> for ValuesSeed<'_, '_> {
    type Value = Vec<Box<dyn PartialReflect>>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ValuesSeed<'_, '_> {
    type Value = Vec<Box<dyn PartialReflect>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of type paths to values")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let cx = self.cx;
        let mut seen: Vec<String> = Vec::new();
        let mut values = Vec::new();
        while let Some(written) = map.next_key::<String>()? {
            if seen.contains(&written) {
                return Err(A::Error::custom(format_args!(
                    "duplicate reflect type: `{written}`"
                )));
            }
            seen.push(written.clone());
            // Bevy's own types under the paths Bevy 0.20 gives them.
            let path = eras::alias(&written).unwrap_or(&written).to_owned();
            if (cx.derived)(&path) || eras::derived_in_older_eras(&path) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let Some(entity) = self.entity else {
                // A resource: scenes hold entities only.
                map.next_value::<IgnoredAny>()?;
                cx.unknown.push((None, path));
                continue;
            };
            // Each component is read from its own text, so that one that does not read as its
            // type is listed and the rest of the file still imports.
            let raw: &'de RawValue = map.next_value()?;
            match cx.component(entity, &written, &path, raw.get_ron()) {
                Ok(Some(value)) => values.push(value),
                Ok(None) => {}
                Err(kind) => cx.extras.parts.push((entity, written, Extra::Listed(kind))),
            }
        }
        // A component read from an older struct's field, unless the entity also writes it.
        for value in cx.moved.drain(..) {
            let path = value.get_represented_type_info().map(|t| t.type_path());
            if path.is_none_or(|p| !seen.iter().any(|s| eras::alias(s).unwrap_or(s) == p)) {
                values.push(value);
            }
        }
        Ok(values)
    }
}

impl Cx<'_> {
    /// Reads the component the file writes as `written` (Bevy 0.20's path `path`) on `entity`
    /// from its text `raw`: by reflection (the value), by schema or without a type (kept in
    /// the extras), or read past (listed as unknown). The note when it does not read.
    fn component(
        &mut self,
        entity: Entity,
        written: &str,
        path: &str,
        raw: &str,
    ) -> Result<Option<Box<dyn PartialReflect>>, NoteKind> {
        let registration = self.registry.get_with_type_path(path);
        let schema = self
            .schemas
            .resolve(path, registration.map(|r| r.type_id()));
        match (registration, schema) {
            (Some(registration), schema) if schema.is_none_or(|s| !s.by_schema) => {
                let mut processor = EraProcessor::new(self.keys, &mut *self.load);
                let value = ron::Options::default()
                    .from_str_seed(
                        raw,
                        TypedReflectDeserializer::with_processor(
                            registration,
                            self.registry,
                            &mut processor,
                        ),
                    )
                    .map_err(|e| unreadable(self.text, raw, &e))?;
                // Fields that became components of their own, as those components (concrete,
                // as below).
                for moved in processor.moved.drain(..) {
                    let concrete = moved
                        .get_represented_type_info()
                        .and_then(|t| {
                            self.registry
                                .get_type_data::<ReflectFromReflect>(t.type_id())
                        })
                        .and_then(|fr| fr.from_reflect(moved.as_partial_reflect()))
                        .map(PartialReflect::into_partial_reflect);
                    self.moved.push(concrete.unwrap_or(moved));
                }
                if !processor.removed.is_empty() {
                    let fields = std::mem::take(&mut processor.removed);
                    // Named as the component kept, as the other notes of a kept one are.
                    self.extras.parts.push((
                        entity,
                        path.to_owned(),
                        Extra::Listed(NoteKind::RemovedFields { fields }),
                    ));
                }
                // The concrete type where it has `FromReflect`, as Bevy's deserializer does.
                let value = registration
                    .data::<ReflectFromReflect>()
                    .and_then(|fr| fr.from_reflect(value.as_partial_reflect()))
                    .map(PartialReflect::into_partial_reflect)
                    .unwrap_or(value);
                Ok(Some(value))
            }
            (_, Some(resolved)) => {
                let component = ron::Options::default()
                    .from_str_seed(
                        raw,
                        ComponentSeed {
                            schema: resolved.schema,
                            keys: self.keys,
                        },
                    )
                    .map_err(|e| unreadable(self.text, raw, &e))?;
                self.extras.parts.push((
                    entity,
                    written.to_owned(),
                    Extra::Typed {
                        schema_path: resolved.schema.type_path.clone(),
                        component,
                        default: super::schema::defaults(resolved.schema),
                        renamed: resolved.renamed,
                    },
                ));
                Ok(None)
            }
            (_, None) if !path.starts_with("bevy_") => {
                if self.schemas.has_file {
                    return Err(NoteKind::NotInSchema);
                }
                let value = ron::Options::default()
                    .from_str_seed(raw, LooseSeed)
                    .map_err(|e| unreadable(self.text, raw, &e))?;
                let plain = super::schema::written_plain(self.text, written);
                self.extras
                    .parts
                    .push((entity, written.to_owned(), Extra::Loose { value, plain }));
                Ok(None)
            }
            _ => {
                self.unknown.push((Some(entity), path.to_owned()));
                Ok(None)
            }
        }
    }
}

/// [`NoteKind::Unreadable`] for a component whose text `raw` (a slice of the file's `text`)
/// failed to read with `error`: where in the file, and in which of its fields.
fn unreadable(text: &str, raw: &str, error: &ron::error::SpannedError) -> NoteKind {
    let at = error.span.start;
    let offset = (raw.as_ptr() as usize)
        .checked_sub(text.as_ptr() as usize)
        .filter(|o| *o <= text.len());
    let (line, column) = match offset.map(|o| eras::line_column(text, o)) {
        Some((line, column)) if at.line <= 1 => (line, column + at.col.max(1) - 1),
        Some((line, _)) => (line + at.line - 1, at.col),
        None => (at.line, at.col),
    };
    NoteKind::Unreadable {
        field: fields::field_at(raw, at.line, at.col),
        line,
        column,
        // Bevy's reflection errors end with the types they were in; none is no news.
        message: error.code.to_string().replace(" (stack: )", ""),
    }
}
