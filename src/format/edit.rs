//! Editing operations that keep the forest valid (the format page, "Ids, forests and ordering").
//!
//! Each operation checks its arguments first and changes nothing when it refuses. They assume a
//! document whose [`SceneDoc::check_integrity`] is empty; on a malformed forest they still never
//! panic.

use super::{ComponentData, EcoString, EntityNode, SceneDoc, TransformData};

/// Why an editing operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// No entity has this id.
    #[error("no entity with id {0}")]
    NoSuchEntity(u64),
    /// Reparenting would put an entity under itself or its own descendant.
    #[error("cannot move entity {id} under {new_parent}: that would create a cycle")]
    Cycle {
        /// The entity being moved.
        id: u64,
        /// The requested parent, which is `id` or one of its descendants.
        new_parent: u64,
    },
    /// The entity already has a component with this key.
    #[error("entity {id} already has a `{key}` component")]
    DuplicateComponent {
        /// The entity.
        id: u64,
        /// The component key (`sprite`, `custom:my_game::Health`).
        key: String,
    },
    /// The entity has no component with this key.
    #[error("entity {id} has no `{key}` component")]
    NoSuchComponent {
        /// The entity.
        id: u64,
        /// The component key asked for.
        key: String,
    },
    /// A sibling index past the end of the sibling list.
    #[error("index {index} is past the end of a sibling list of length {len}")]
    IndexOutOfRange {
        /// The index asked for.
        index: usize,
        /// The length of the sibling list.
        len: usize,
    },
    /// `next_id` cannot grow any further.
    #[error("no ids left: next_id is at the maximum")]
    IdsExhausted,
    /// No tile layer has this id.
    #[error("no tile layer with id {0}")]
    NoSuchLayer(u64),
    /// A paint the layer cannot take: a key not in its palette, a cell left of or below cell
    /// `(0, 0)`, past [`MAX_CELL_INDEX`](super::MAX_CELL_INDEX), or over
    /// [`MAX_LAYER_CELLS`](super::MAX_LAYER_CELLS).
    #[error("cannot paint layer {layer}: {why}")]
    Paint {
        /// The layer's id.
        layer: u64,
        /// Why, in words.
        why: String,
    },
}

impl SceneDoc {
    fn allocate_id(&mut self) -> Result<u64, EditError> {
        let id = self.next_id;
        self.next_id = id.checked_add(1).ok_or(EditError::IdsExhausted)?;
        Ok(id)
    }

    /// The sibling list that holds entities under `parent` (`roots` for `None`).
    fn siblings_mut(&mut self, parent: Option<u64>) -> Result<&mut Vec<u64>, EditError> {
        match parent {
            None => Ok(&mut self.roots),
            Some(p) => self
                .entities
                .get_mut(&p)
                .map(std::sync::Arc::make_mut)
                .map(|n| &mut n.children)
                .ok_or(EditError::NoSuchEntity(p)),
        }
    }

    /// Adds an entity named `name` under `parent` (a root for `None`) at the end of its siblings,
    /// with an identity transform and no components. Returns the new id, taken from `next_id`;
    /// ids are never reused.
    ///
    /// # Errors
    /// [`EditError::NoSuchEntity`] when `parent` does not exist; [`EditError::IdsExhausted`].
    pub fn add_entity(
        &mut self,
        name: impl Into<EcoString>,
        parent: Option<u64>,
    ) -> Result<u64, EditError> {
        if let Some(p) = parent
            && !self.entities.contains_key(&p)
        {
            return Err(EditError::NoSuchEntity(p));
        }
        let id = self.allocate_id()?;
        let mut node = EntityNode::new(id, name);
        node.parent = parent;
        self.siblings_mut(parent)?.push(id);
        self.entities.insert(id, node.into());
        Ok(id)
    }

    /// Ids of `id` and all its descendants, depth first. Bounded by the number of entities, so
    /// it terminates on malformed forests.
    pub fn subtree(&self, id: u64) -> Vec<u64> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![id];
        while let Some(cur) = stack.pop() {
            let Some(node) = self.entities.get(&cur) else {
                continue;
            };
            if !seen.insert(cur) {
                continue;
            }
            out.push(cur);
            let placed: Vec<u64> = node.placed_children().collect();
            stack.extend(placed.into_iter().rev());
        }
        out
    }

    /// Takes `id` out of the place that lists it under `parent`: the parent's `children`, the
    /// `children` of one of its instance's overrides, or `roots`.
    fn unplace(&mut self, parent: Option<u64>, id: u64) {
        if let Ok(siblings) = self.siblings_mut(parent) {
            siblings.retain(|s| *s != id);
        }
        let instance = parent
            .and_then(|p| self.entities.get_mut(&p).map(std::sync::Arc::make_mut))
            .and_then(|n| n.instance.as_deref_mut());
        if let Some(instance) = instance {
            for o in &mut instance.overrides {
                o.children.retain(|c| *c != id);
            }
        }
    }

    /// Deletes `id` and its whole subtree, removing it from its parent's children (or `roots`).
    /// Returns the removed ids, depth first. `next_id` is unchanged: ids are never reused.
    ///
    /// # Errors
    /// [`EditError::NoSuchEntity`].
    pub fn delete_subtree(&mut self, id: u64) -> Result<Vec<u64>, EditError> {
        let parent = self
            .entities
            .get(&id)
            .ok_or(EditError::NoSuchEntity(id))?
            .parent;
        let removed = self.subtree(id);
        self.unplace(parent, id);
        for r in &removed {
            self.entities.shift_remove(r);
        }
        Ok(removed)
    }

    /// Deep-copies `id` and its subtree with new ids, inserts the copy right after the original
    /// among its siblings, and suffixes the copied root's name with `" Copy"`. Returns the new
    /// root's id.
    ///
    /// # Errors
    /// [`EditError::NoSuchEntity`]; [`EditError::IdsExhausted`].
    pub fn duplicate_subtree(&mut self, id: u64) -> Result<u64, EditError> {
        let parent = self
            .entities
            .get(&id)
            .ok_or(EditError::NoSuchEntity(id))?
            .parent;
        let originals = self.subtree(id);
        let count = originals.len() as u64;
        if self.next_id.checked_add(count).is_none() {
            return Err(EditError::IdsExhausted);
        }
        let mut new_ids = std::collections::HashMap::with_capacity(originals.len());
        for old in &originals {
            new_ids.insert(*old, self.allocate_id()?);
        }
        let mut copies = Vec::with_capacity(originals.len());
        for old in &originals {
            let Some(node) = self.entities.get(old) else {
                continue;
            };
            let mut copy = EntityNode::clone(node);
            copy.id = new_ids[old];
            copy.children = node
                .children
                .iter()
                .filter_map(|c| new_ids.get(c).copied())
                .collect();
            if let Some(instance) = copy.instance.as_deref_mut() {
                for o in &mut instance.overrides {
                    o.children = o
                        .children
                        .iter()
                        .filter_map(|c| new_ids.get(c).copied())
                        .collect();
                }
            }
            if *old == id {
                copy.name = ecow::eco_format!("{} Copy", copy.name);
                copy.parent = parent;
            } else {
                copy.parent = node.parent.and_then(|p| new_ids.get(&p).copied());
            }
            copies.push(copy);
        }
        let new_root = new_ids[&id];
        for copy in copies {
            self.entities.insert(copy.id, copy.into());
        }
        // A copy of an entity an override places goes right after it in that override.
        let placed_by = parent
            .and_then(|p| self.entities.get_mut(&p).map(std::sync::Arc::make_mut))
            .and_then(|n| n.instance.as_deref_mut())
            .and_then(|i| i.overrides.iter_mut().find(|o| o.children.contains(&id)));
        if let Some(o) = placed_by {
            let at = o
                .children
                .iter()
                .position(|c| *c == id)
                .map_or(0, |i| i + 1);
            o.children.insert(at, new_root);
            return Ok(new_root);
        }
        let siblings = self.siblings_mut(parent)?;
        let at = siblings
            .iter()
            .position(|s| *s == id)
            .map_or(siblings.len(), |i| i + 1);
        siblings.insert(at, new_root);
        Ok(new_root)
    }

    /// Moves `id` under `new_parent` (to the roots for `None`) at position `index` among its new
    /// siblings, counted after it has left its old place. Other siblings keep their order.
    ///
    /// # Errors
    /// [`EditError::NoSuchEntity`] for `id` or `new_parent`; [`EditError::Cycle`] when
    /// `new_parent` is `id` or one of its descendants; [`EditError::IndexOutOfRange`] when
    /// `index` is past the end of the new sibling list.
    pub fn reparent(
        &mut self,
        id: u64,
        new_parent: Option<u64>,
        index: usize,
    ) -> Result<(), EditError> {
        let old_parent = self
            .entities
            .get(&id)
            .ok_or(EditError::NoSuchEntity(id))?
            .parent;
        if let Some(p) = new_parent {
            if !self.entities.contains_key(&p) {
                return Err(EditError::NoSuchEntity(p));
            }
            if self.subtree(id).contains(&p) {
                return Err(EditError::Cycle { id, new_parent: p });
            }
        }
        let len_after = {
            let siblings = self.siblings_mut(new_parent)?;
            siblings.iter().filter(|s| **s != id).count()
        };
        if index > len_after {
            return Err(EditError::IndexOutOfRange {
                index,
                len: len_after,
            });
        }
        self.unplace(old_parent, id);
        let siblings = self.siblings_mut(new_parent)?;
        siblings.retain(|s| *s != id);
        siblings.insert(index, id);
        if let Some(node) = self.entities.get_mut(&id).map(std::sync::Arc::make_mut) {
            node.parent = new_parent;
        }
        Ok(())
    }

    /// Appends `component` to entity `id`.
    ///
    /// # Errors
    /// [`EditError::NoSuchEntity`]; [`EditError::DuplicateComponent`] when the entity already has
    /// a component with the same [`key`](ComponentData::key).
    pub fn add_component(&mut self, id: u64, component: ComponentData) -> Result<(), EditError> {
        let node = self
            .entities
            .get_mut(&id)
            .map(std::sync::Arc::make_mut)
            .ok_or(EditError::NoSuchEntity(id))?;
        if node.components.iter().any(|c| c.same_key(&component)) {
            return Err(EditError::DuplicateComponent {
                id,
                key: component.key(),
            });
        }
        node.components.push(component);
        Ok(())
    }

    /// Removes the component with key `key` (`sprite`, `custom:my_game::Health`) from entity `id`
    /// and returns it.
    ///
    /// # Errors
    /// [`EditError::NoSuchEntity`]; [`EditError::NoSuchComponent`].
    pub fn remove_component(&mut self, id: u64, key: &str) -> Result<ComponentData, EditError> {
        let node = self
            .entities
            .get_mut(&id)
            .map(std::sync::Arc::make_mut)
            .ok_or(EditError::NoSuchEntity(id))?;
        let at = node
            .components
            .iter()
            .position(|c| c.has_key(key))
            .ok_or_else(|| EditError::NoSuchComponent {
                id,
                key: key.to_owned(),
            })?;
        Ok(node.components.remove(at))
    }

    /// Sets the display name of entity `id`.
    ///
    /// # Errors
    /// [`EditError::NoSuchEntity`].
    pub fn rename(&mut self, id: u64, name: impl Into<EcoString>) -> Result<(), EditError> {
        self.entities
            .get_mut(&id)
            .map(std::sync::Arc::make_mut)
            .ok_or(EditError::NoSuchEntity(id))?
            .name = name.into();
        Ok(())
    }

    /// Sets the local transform of entity `id`.
    ///
    /// # Errors
    /// [`EditError::NoSuchEntity`].
    pub fn set_transform(&mut self, id: u64, transform: TransformData) -> Result<(), EditError> {
        self.entities
            .get_mut(&id)
            .map(std::sync::Arc::make_mut)
            .ok_or(EditError::NoSuchEntity(id))?
            .transform = transform;
        Ok(())
    }
}
