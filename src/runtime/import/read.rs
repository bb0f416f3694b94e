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
use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, Visitor};

use super::eras::{self, BevyEra, EntitySeed, EraProcessor, Keys};
use super::schema::{ComponentSeed, Extra, Extras, LooseSeed, SchemaIndex};
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
            let path = eras::alias(&written).unwrap_or(&written);
            if (cx.derived)(path) || eras::derived_in_older_eras(path) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let registration = cx.registry.get_with_type_path(path);
            let schema = match self.entity {
                Some(_) => cx.schemas.resolve(path, registration.map(|r| r.type_id())),
                None => None,
            };
            match (registration, schema, self.entity) {
                (Some(registration), schema, _) if schema.is_none_or(|s| !s.by_schema) => {
                    let value = map.next_value_seed(TypedReflectDeserializer::with_processor(
                        registration,
                        cx.registry,
                        &mut EraProcessor {
                            keys: cx.keys,
                            load: &mut *cx.load,
                        },
                    ))?;
                    // The concrete type where it has `FromReflect`, as Bevy's deserializer does.
                    let value = registration
                        .data::<ReflectFromReflect>()
                        .and_then(|fr| fr.from_reflect(value.as_partial_reflect()))
                        .map(PartialReflect::into_partial_reflect)
                        .unwrap_or(value);
                    values.push(value);
                }
                (_, Some(resolved), Some(entity)) => {
                    let component = map.next_value_seed(ComponentSeed {
                        schema: resolved.schema,
                        keys: cx.keys,
                    })?;
                    cx.extras.parts.push((
                        entity,
                        written.clone(),
                        Extra::Typed {
                            schema_path: resolved.schema.type_path.clone(),
                            component,
                            default: super::schema::defaults(resolved.schema),
                            renamed: resolved.renamed,
                        },
                    ));
                }
                (_, _, Some(entity)) if !path.starts_with("bevy_") => {
                    if cx.schemas.has_file {
                        map.next_value::<IgnoredAny>()?;
                        cx.extras.parts.push((
                            entity,
                            written.clone(),
                            Extra::Listed(NoteKind::NotInSchema),
                        ));
                    } else {
                        let value = map.next_value_seed(LooseSeed)?;
                        let plain = super::schema::written_plain(cx.text, &written);
                        cx.extras.parts.push((
                            entity,
                            written.clone(),
                            Extra::Loose { value, plain },
                        ));
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    cx.unknown.push((self.entity, path.to_owned()));
                }
            }
        }
        Ok(values)
    }
}
