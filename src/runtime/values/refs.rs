//! Entity references of custom components (`#7`, `#7/2`) at run time.
//!
//! At load, a reference evaluates to a **placeholder**: an `Entity` whose generation no live
//! entity has ([`PLACEHOLDER_GENERATION`]) and whose index is the reference's row in the scene's
//! [`RefTable`] (which key it names). The prepared value is built once, like any other. When an
//! instance spawns, every entity of the scene exists first; then each value with references is
//! cloned, its placeholders replaced by the live entities of their keys, and inserted, so hooks
//! and observers see final ids and parents. Bevy's `MapEntities` is not involved: the value is
//! built by us, whatever the type says about its `Entity` fields.

use std::cell::{Cell, RefCell};

use bevy_ecs::entity::{Entity, EntityGeneration, EntityIndex};
use bevy_platform::collections::HashMap;
use bevy_reflect::{PartialReflect, ReflectMut};

use crate::schema::expr::EntityRefs;
use crate::validate::custom::Referable;

/// The generation of placeholder entities: one a real entity reaches only after its index was
/// reused four billion times.
pub(crate) const PLACEHOLDER_GENERATION: EntityGeneration =
    EntityGeneration::FIRST.after_versions(u32::MAX - 1);

/// The placeholder of row `row` of a [`RefTable`].
fn placeholder(row: u32) -> Option<Entity> {
    Some(Entity::from_index_and_generation(
        EntityIndex::from_raw_u32(row)?,
        PLACEHOLDER_GENERATION,
    ))
}

/// The keys (entities of the expanded scene) a scene's references name, by placeholder row.
#[derive(Debug, Clone, Default)]
pub(crate) struct RefTable {
    pub(crate) keys: Vec<u64>,
}

impl RefTable {
    /// The key `placeholder` stands for.
    pub(crate) fn key(&self, placeholder: Entity) -> Option<u64> {
        self.keys.get(placeholder.index_u32() as usize).copied()
    }

    /// The live entity `placeholder` stands for, through `live` (key to entity).
    pub(crate) fn live(
        &self,
        placeholder: Entity,
        live: &dyn Fn(u64) -> Option<Entity>,
    ) -> Option<Entity> {
        let key = self.keys.get(placeholder.index_u32() as usize)?;
        live(*key)
    }
}

/// References resolved at load: each checked against the scene, and evaluated to the
/// placeholder of its key.
pub(crate) struct Placeholders<'r, 'a> {
    referable: &'r Referable<'a>,
    table: RefCell<RefTable>,
    rows: RefCell<HashMap<u64, u32>>,
    used: Cell<bool>,
}

impl<'r, 'a> Placeholders<'r, 'a> {
    pub(crate) fn new(referable: &'r Referable<'a>) -> Self {
        Self {
            referable,
            table: RefCell::new(RefTable::default()),
            rows: RefCell::new(HashMap::default()),
            used: Cell::new(false),
        }
    }

    /// Whether a reference was resolved since the last call.
    pub(crate) fn take_used(&self) -> bool {
        self.used.replace(false)
    }

    /// The table of the keys the placeholders stand for.
    pub(crate) fn into_table(self) -> RefTable {
        self.table.into_inner()
    }
}

impl EntityRefs for Placeholders<'_, '_> {
    fn resolve(&self, path: &[u64]) -> Result<Box<dyn PartialReflect>, String> {
        let key = self.referable.find(path)?;
        let mut rows = self.rows.borrow_mut();
        let row = match rows.get(&key) {
            Some(row) => *row,
            None => {
                let mut table = self.table.borrow_mut();
                let row = u32::try_from(table.keys.len())
                    .map_err(|_| "too many entity references in one scene".to_owned())?;
                table.keys.push(key);
                rows.insert(key, row);
                row
            }
        };
        self.used.set(true);
        let entity =
            placeholder(row).ok_or_else(|| "too many entity references in one scene".to_owned())?;
        Ok(Box::new(entity))
    }
}

/// Replaces each placeholder entity inside `value` (fields, list and array items, tuple and
/// enum payloads, at any depth) with the entity `map` gives; other entities are left alone. A
/// placeholder `map` has no entity for becomes `Entity::PLACEHOLDER`.
pub(crate) fn map_placeholders(
    value: &mut dyn PartialReflect,
    map: &dyn Fn(Entity) -> Option<Entity>,
) {
    if let Some(entity) = value.try_downcast_mut::<Entity>() {
        if entity.generation() == PLACEHOLDER_GENERATION {
            *entity = map(*entity).unwrap_or(Entity::PLACEHOLDER);
        }
        return;
    }
    match value.reflect_mut() {
        ReflectMut::Struct(s) => {
            for i in 0..s.field_len() {
                if let Some(field) = s.field_at_mut(i) {
                    map_placeholders(field, map);
                }
            }
        }
        ReflectMut::TupleStruct(t) => {
            for i in 0..t.field_len() {
                if let Some(field) = t.field_mut(i) {
                    map_placeholders(field, map);
                }
            }
        }
        ReflectMut::Tuple(t) => {
            for i in 0..t.field_len() {
                if let Some(field) = t.field_mut(i) {
                    map_placeholders(field, map);
                }
            }
        }
        ReflectMut::List(l) => {
            for i in 0..l.len() {
                if let Some(item) = l.get_mut(i) {
                    map_placeholders(item, map);
                }
            }
        }
        ReflectMut::Array(a) => {
            for i in 0..a.len() {
                if let Some(item) = a.get_mut(i) {
                    map_placeholders(item, map);
                }
            }
        }
        ReflectMut::Enum(e) => {
            for i in 0..e.field_len() {
                if let Some(field) = e.field_at_mut(i) {
                    map_placeholders(field, map);
                }
            }
        }
        _ => {}
    }
}
