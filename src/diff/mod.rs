//! What changed between two versions of a scene, by stable entity id: [`diff`] and [`SceneDiff`].
//!
//! A diff is plain data computed without a `World`. Hot reload computes one between the last
//! applied document and the new one and patches live instances with it; editors and tests can
//! replay it on a document with [`SceneDiff::apply_to`], and logs print it through its
//! [`Display`](std::fmt::Display) impl, one line per change.
//!
//! ```
//! use bevy_forge_scene::diff::diff;
//! use bevy_forge_scene::format::{SceneDoc, TransformData, Vec3Data};
//!
//! let mut old = SceneDoc::new("garden");
//! let tree = old.add_entity("Tree", None).unwrap();
//! let mut new = old.clone();
//! new.add_entity("Lamp", Some(tree)).unwrap();
//! new.set_transform(tree, TransformData::from_translation(Vec3Data::new(0.0, 2.0, 0.0))).unwrap();
//!
//! let d = diff(&old, &new);
//! assert_eq!((d.added_count(), d.changed_count()), (1, 1));
//! let mut patched = old.clone();
//! d.apply_to(&mut patched);
//! assert_eq!(patched, new);
//! ```
//!
//! # Equality
//!
//! Values are compared with `PartialEq`, as [`SceneDoc`] itself is: `0.0` equals `-0.0`, and a
//! `NaN` never equals itself, so an entity holding `NaN` (which validation rejects) always shows
//! as changed.

mod display;

use bevy_platform::collections::{HashMap, HashSet};

use crate::format::{
    ComponentData, CustomComponent, CustomField, EcoString, EntityNode, Instance, SceneDoc,
    TransformData,
};

/// A value before and after an edit.
#[derive(Debug, Clone, PartialEq)]
pub struct Change<T> {
    /// The value in the old document.
    pub old: T,
    /// The value in the new document.
    pub new: T,
}

impl<T: PartialEq + Clone> Change<T> {
    /// `Some` when `old` and `new` differ.
    fn of(old: &T, new: &T) -> Option<Self> {
        (old != new).then(|| Change {
            old: old.clone(),
            new: new.clone(),
        })
    }
}

impl Change<Vec<u64>> {
    /// Whether both lists hold the same ids, only in another order.
    pub fn is_reorder(&self) -> bool {
        if self.old.len() != self.new.len() {
            return false;
        }
        let mut a = self.old.clone();
        let mut b = self.new.clone();
        a.sort_unstable();
        b.sort_unstable();
        a == b
    }
}

/// The changes from one document to another, keyed by entity id. Built by [`diff`].
///
/// # Applying a diff to live entities
///
/// Each entity appears in at most one of `added`, `removed` (inside a subtree's `ids`) and
/// `changed`. An applier acts in this order:
///
/// 1. **Spawn** every entry of [`added`](Self::added), in list order, under its `parent`. The
///    list puts every parent before its children, and a parent that is not itself added exists in
///    both documents, so it is already live.
/// 2. **Patch** every entry of [`changed`](Self::changed): name, transform, components, and the
///    parent when [`EntityChange::parent`] is set (the new parent exists in the new document, so
///    it is live after step 1).
/// 3. **Despawn** every subtree of [`removed`](Self::removed) from its `root`. An entity of the
///    old subtree that survives has a new parent and was moved out in step 2, so a recursive
///    despawn of the root takes exactly the subtree's `ids` (and whatever the game itself
///    attached below them).
/// 4. **Order** siblings with [`sibling_orders`](Self::sibling_orders): the final children list of
///    every parent whose list changed, and the final roots when they changed.
///
/// The `index` of [`AddedEntity`] and [`ParentChange`] is the entity's position in its parent's
/// children list (or `roots`) of the **new** document, that is, after the whole diff. Inserting
/// entities one at a time at these indices into a list that still holds entities about to be
/// removed or moved away does not give the final order; step 4 does.
///
/// Every unchanged entity appears nowhere, so an applier that follows these lists leaves it
/// untouched.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SceneDiff {
    /// The document's `format_version`, when it changed (it is always the current version in
    /// memory, so this is `None` for documents read from files).
    pub format_version: Option<Change<u32>>,
    /// The scene's display name, when it changed.
    pub name: Option<Change<String>>,
    /// The scene's `next_id`, when it changed (any edit that adds entities changes it).
    pub next_id: Option<Change<u64>>,
    /// Entities only in the new document, every parent before its children: each new subtree
    /// depth first in children order, subtrees in the new document's file order.
    pub added: Vec<AddedEntity>,
    /// Entities only in the old document, grouped into subtrees of the old document, in the old
    /// file order of their roots.
    pub removed: Vec<RemovedSubtree>,
    /// Entities in both documents that differ in any field, in the new document's file order.
    pub changed: Vec<EntityChange>,
    /// The root list, when it changed (membership or order).
    pub roots: Option<Change<Vec<u64>>>,
    /// The new document's entity order (file order), present only when it is not the old order
    /// with removed entities dropped and added entities appended in the order of
    /// [`added`](Self::added). Only [`apply_to`](Self::apply_to) and writers care; live entities
    /// have no file order.
    pub file_order: Option<Vec<u64>>,
}

/// An entity that only the new document has.
#[derive(Debug, Clone, PartialEq)]
pub struct AddedEntity {
    /// Its id (the key in [`SceneDoc::entities`]).
    pub id: u64,
    /// Its parent in the new document, `None` for a root.
    pub parent: Option<u64>,
    /// Its position among its siblings in the new document (the parent's `children`, or
    /// `roots`); the length of that list if the document does not list it there (a malformed
    /// forest).
    pub index: usize,
    /// The whole entity as the new document has it, final `children` order included.
    pub node: EntityNode,
}

/// A subtree that only the old document has.
#[derive(Debug, Clone, PartialEq)]
pub struct RemovedSubtree {
    /// The subtree's root: a removed entity whose old parent was kept (or that was an old root).
    pub root: u64,
    /// The root's name in the old document, for logs.
    pub name: EcoString,
    /// The root's parent in the old document.
    pub parent: Option<u64>,
    /// Every removed id of the subtree, depth first in old children order, `root` first. Old
    /// descendants that the new document keeps (moved elsewhere) are not listed, nor are their
    /// own subtrees.
    pub ids: Vec<u64>,
}

/// How one entity present in both documents changed. Only the changed parts are set.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityChange {
    /// The entity's id.
    pub id: u64,
    /// Its display name (Bevy's `Name`).
    pub name: Option<Change<EcoString>>,
    /// Its parent, when it moved to another parent (or to or from the roots).
    pub parent: Option<ParentChange>,
    /// Its local transform.
    pub transform: Option<Change<TransformData>>,
    /// The editor-only `locked` flag.
    pub locked: Option<Change<bool>>,
    /// Component changes by [`ComponentData::key`]: removals first (old order), then additions
    /// and changes in the new list's order.
    pub components: Vec<ComponentChange>,
    /// The final component keys in order, present only when the components both documents have
    /// changed their relative order. Live entities have no component order; only
    /// [`SceneDiff::apply_to`] and writers care.
    pub component_order: Option<Vec<String>>,
    /// Its children list, when it changed in any way: children added, removed, moved in or out,
    /// or reordered ([`Change::is_reorder`]).
    pub children: Option<Change<Vec<u64>>>,
    /// The prefab it places and the overrides, whole, when they changed (the document as
    /// written; hot reload diffs scenes with their prefabs expanded, where no entity has one).
    pub instance: Option<Change<Option<Box<Instance>>>>,
}

/// A move to another parent.
#[derive(Debug, Clone, PartialEq)]
pub struct ParentChange {
    /// The parent in the old document, `None` for a root.
    pub old: Option<u64>,
    /// The parent in the new document, `None` for a root.
    pub new: Option<u64>,
    /// The position among the new siblings in the new document, as [`AddedEntity::index`].
    pub index: usize,
}

/// A change of one component, by [`ComponentData::key`].
#[derive(Debug, Clone, PartialEq)]
pub enum ComponentChange {
    /// A component only the new document has.
    Added {
        /// Its position in the new `components` list.
        index: usize,
        /// The component.
        component: ComponentData,
    },
    /// A component only the old document has.
    Removed {
        /// Its key (`sprite`, `custom:my_game::Health`).
        key: String,
    },
    /// A component both documents have, with another value.
    Changed {
        /// Its key.
        key: String,
        /// The new value, whole.
        component: ComponentData,
        /// For a custom component, the fields that changed, were added or were removed, by field
        /// name: set only these on the live component and fields the file does not set keep
        /// their live values. Empty when only the field order changed. `None` for built-ins,
        /// for a custom component that repeats a field name in either document, and for one
        /// whose whole `value` (an enum's) changed: replace the whole component then.
        fields: Option<Vec<FieldChange>>,
    },
}

impl ComponentChange {
    /// The component's key.
    pub fn key(&self) -> String {
        match self {
            ComponentChange::Added { component, .. } => component.key(),
            ComponentChange::Removed { key } | ComponentChange::Changed { key, .. } => key.clone(),
        }
    }
}

/// A change of one field of a custom component, by field name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldChange {
    /// The field name.
    pub name: EcoString,
    /// The old expression, `None` when the field is new.
    pub old: Option<EcoString>,
    /// The new expression, `None` when the field was removed (the live field then keeps its
    /// value: the file no longer sets it).
    pub new: Option<EcoString>,
}

impl EntityChange {
    fn new(id: u64) -> Self {
        Self {
            id,
            name: None,
            parent: None,
            transform: None,
            locked: None,
            components: Vec::new(),
            component_order: None,
            children: None,
            instance: None,
        }
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.name.is_none()
            && self.parent.is_none()
            && self.transform.is_none()
            && self.locked.is_none()
            && self.components.is_empty()
            && self.component_order.is_none()
            && self.children.is_none()
            && self.instance.is_none()
    }

    /// Applies this change to the entity's node as the old document has it.
    fn apply_to_node(&self, node: &mut EntityNode) {
        if let Some(name) = &self.name {
            node.name.clone_from(&name.new);
        }
        if let Some(parent) = &self.parent {
            node.parent = parent.new;
        }
        if let Some(transform) = &self.transform {
            node.transform = transform.new;
        }
        if let Some(locked) = &self.locked {
            node.locked = locked.new;
        }
        if let Some(children) = &self.children {
            node.children.clone_from(&children.new);
        }
        if let Some(instance) = &self.instance {
            node.instance.clone_from(&instance.new);
        }
        if !self.components.is_empty() || self.component_order.is_some() {
            self.apply_components(&mut node.components);
        }
    }

    fn apply_components(&self, list: &mut Vec<ComponentData>) {
        let removed: Vec<&str> = self
            .components
            .iter()
            .filter_map(|c| match c {
                ComponentChange::Removed { key } => Some(key.as_str()),
                _ => None,
            })
            .collect();
        if !removed.is_empty() {
            list.retain(|c| !removed.iter().any(|k| c.has_key(k)));
        }
        for change in &self.components {
            if let ComponentChange::Changed { key, component, .. } = change
                && let Some(slot) = list.iter_mut().find(|c| c.has_key(key))
            {
                slot.clone_from(component);
            }
        }
        for change in &self.components {
            if let ComponentChange::Added { index, component } = change {
                let at = (*index).min(list.len());
                list.insert(at, component.clone());
            }
        }
        if let Some(order) = &self.component_order {
            let mut rest = std::mem::take(list);
            for key in order {
                if let Some(at) = rest.iter().position(|c| c.has_key(key)) {
                    list.push(rest.remove(at));
                }
            }
            list.append(&mut rest);
        }
    }
}

impl SceneDiff {
    /// Whether the two documents are equal (nothing to apply).
    pub fn is_empty(&self) -> bool {
        self.format_version.is_none()
            && self.name.is_none()
            && self.next_id.is_none()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.roots.is_none()
            && self.file_order.is_none()
    }

    /// How many entities the new document adds.
    pub fn added_count(&self) -> usize {
        self.added.len()
    }

    /// How many entities the new document drops, every entity of every removed subtree counted.
    pub fn removed_count(&self) -> usize {
        self.removed.iter().map(|r| r.ids.len()).sum()
    }

    /// How many entities both documents have with a difference.
    pub fn changed_count(&self) -> usize {
        self.changed.len()
    }

    /// How many entities the diff touches: added, removed and changed together.
    pub fn touched_count(&self) -> usize {
        self.added_count() + self.removed_count() + self.changed_count()
    }

    /// The ids of every touched entity: added, then removed, then changed, each in list order.
    pub fn touched_ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.added
            .iter()
            .map(|a| a.id)
            .chain(self.removed.iter().flat_map(|r| r.ids.iter().copied()))
            .chain(self.changed.iter().map(|c| c.id))
    }

    /// The final sibling order of every parent whose children list changed, for step 4 of the
    /// application order: `(None, roots)` first when the roots changed, then
    /// `(Some(id), children)` for each changed entity whose children changed, then for each
    /// added entity that has children.
    pub fn sibling_orders(&self) -> impl Iterator<Item = (Option<u64>, &[u64])> + '_ {
        let roots = self.roots.iter().map(|r| (None, r.new.as_slice()));
        let changed = self.changed.iter().filter_map(|c| {
            c.children
                .as_ref()
                .map(|ch| (Some(c.id), ch.new.as_slice()))
        });
        let added = self
            .added
            .iter()
            .filter(|a| !a.node.children.is_empty())
            .map(|a| (Some(a.id), a.node.children.as_slice()));
        roots.chain(changed).chain(added)
    }

    /// Replays this diff on `doc`, which must be the `old` document it was computed from; then
    /// `doc` equals `new`, entity file order included.
    ///
    /// On another document it still never panics: changes to entities `doc` lacks are skipped.
    /// Runs in time linear in the size of `doc` and of the diff.
    pub fn apply_to(&self, doc: &mut SceneDoc) {
        if let Some(v) = &self.format_version {
            doc.format_version = v.new;
        }
        if let Some(name) = &self.name {
            doc.name.clone_from(&name.new);
        }
        if let Some(next_id) = &self.next_id {
            doc.next_id = next_id.new;
        }
        let removed = self.removed_count();
        if removed > 0 && removed <= 8 {
            for id in self.removed.iter().flat_map(|r| &r.ids) {
                doc.entities.shift_remove(id);
            }
        } else if removed > 8 {
            let gone: HashSet<u64> = self
                .removed
                .iter()
                .flat_map(|r| r.ids.iter().copied())
                .collect();
            doc.entities.retain(|id, _| !gone.contains(id));
        }
        for change in &self.changed {
            if let Some(node) = doc
                .entities
                .get_mut(&change.id)
                .map(std::sync::Arc::make_mut)
            {
                change.apply_to_node(node);
            }
        }
        for added in &self.added {
            doc.entities.insert(added.id, added.node.clone().into());
        }
        if let Some(roots) = &self.roots {
            doc.roots.clone_from(&roots.new);
        }
        if let Some(order) = &self.file_order {
            let mut rest = std::mem::take(&mut doc.entities);
            let mut ordered = crate::format::EntityMap::with_capacity_and_hasher(
                rest.len(),
                crate::format::IdHasher::default(),
            );
            for id in order {
                if let Some(node) = rest.swap_remove(id) {
                    ordered.insert(*id, node);
                }
            }
            ordered.extend(rest);
            doc.entities = ordered;
        }
    }
}

/// The changes that turn `old` into `new`, by entity id. Pure: no `World`, no allocation for
/// entities that are equal.
///
/// Runs in time linear in the number of entities. Entities with the same id are compared field by
/// field and equal ones are skipped without further work; when both documents keep their entities
/// in the same file order (the usual case), no hashing is needed to pair them either.
///
/// Assumes each entity's `id` equals its key and each entity holds at most one component per key
/// (format rules that [`SceneDoc::check_integrity`] and validation check); on documents breaking
/// them it still returns a diff that [`SceneDiff::apply_to`] replays, but a difference in the `id`
/// field alone is not reported.
pub fn diff(old: &SceneDoc, new: &SceneDoc) -> SceneDiff {
    diff_with_hashes(old, None, new, None)
}

/// [`diff`], skipping the comparison of an entity when both documents come with text hashes
/// (one per entity, in `entities` order) and the entity's hashes are equal.
pub(crate) fn diff_with_hashes(
    old: &SceneDoc,
    old_hashes: Option<&[u64]>,
    new: &SceneDoc,
    new_hashes: Option<&[u64]>,
) -> SceneDiff {
    let hashes = old_hashes.zip(new_hashes).filter(|(o, n)| {
        // Only hashes that describe these documents.
        o.len() == old.entities.len() && n.len() == new.entities.len()
    });
    let mut d = SceneDiff {
        format_version: Change::of(&old.format_version, &new.format_version),
        name: Change::of(&old.name, &new.name),
        next_id: Change::of(&old.next_id, &new.next_id),
        roots: Change::of(&old.roots, &new.roots),
        ..SceneDiff::default()
    };
    let mut positions = Positions::new(new);
    let mut added_ids = Vec::new();
    let mut survivors = 0usize;
    // File order: survivors keep their relative order and additions come after them.
    let mut last_old_index = None;
    let mut simple_order = true;

    for (new_index, (&id, new_node)) in new.entities.iter().enumerate() {
        let found = match old.entities.get_index(new_index) {
            Some((&key, node)) if key == id => Some((new_index, node)),
            _ => old.entities.get_full(&id).map(|(i, _, node)| (i, node)),
        };
        let Some((old_index, old_node)) = found else {
            added_ids.push(id);
            continue;
        };
        survivors += 1;
        if !added_ids.is_empty() || last_old_index.is_some_and(|last| old_index <= last) {
            simple_order = false;
        }
        last_old_index = Some(old_index);
        let same_text = hashes.is_some_and(|(o, n)| o[old_index] == n[new_index]);
        if !same_text && old_node != new_node {
            let change = entity_change(id, old_node, new_node, &mut positions);
            if !change.is_empty() {
                d.changed.push(change);
            }
        }
    }

    if survivors < old.entities.len() {
        d.removed = removed_subtrees(old, new);
    }
    if !added_ids.is_empty() {
        let order = added_order(new, &added_ids);
        if simple_order && order != added_ids {
            simple_order = false;
        }
        d.added = order
            .into_iter()
            .filter_map(|id| {
                let node = new.entities.get(&id)?;
                Some(AddedEntity {
                    id,
                    parent: node.parent,
                    index: positions.index(node.parent, id),
                    node: EntityNode::clone(node),
                })
            })
            .collect();
    }
    if !simple_order {
        d.file_order = Some(new.entities.keys().copied().collect());
    }
    d
}

/// Positions of entities in the new document's sibling lists, one map per list, built on demand.
struct Positions<'a> {
    doc: &'a SceneDoc,
    lists: HashMap<Option<u64>, HashMap<u64, usize>>,
    /// How many times each list was searched without a map: the first few lookups in a long
    /// list (one painted cell among 10,000) scan it rather than build a map.
    scans: HashMap<Option<u64>, u32>,
}

impl<'a> Positions<'a> {
    fn new(doc: &'a SceneDoc) -> Self {
        Self {
            doc,
            lists: HashMap::new(),
            scans: HashMap::new(),
        }
    }

    /// The position of `id` in the children of `parent` (`roots` for `None`); the list's length
    /// when it is not there.
    fn index(&mut self, parent: Option<u64>, id: u64) -> usize {
        let doc = self.doc;
        let list: &[u64] = match parent {
            None => &doc.roots,
            Some(p) => doc.entities.get(&p).map_or(&[], |n| n.children.as_slice()),
        };
        let scan = |list: &[u64]| list.iter().position(|c| *c == id).unwrap_or(list.len());
        if list.len() <= 16 {
            return scan(list);
        }
        if !self.lists.contains_key(&parent) {
            let scans = self.scans.entry(parent).or_insert(0);
            if *scans < 8 {
                *scans += 1;
                return scan(list);
            }
        }
        let map = self.lists.entry(parent).or_insert_with(|| {
            let mut map = HashMap::with_capacity(list.len());
            for (i, c) in list.iter().enumerate() {
                map.entry(*c).or_insert(i);
            }
            map
        });
        map.get(&id).copied().unwrap_or(list.len())
    }
}

fn entity_change(
    id: u64,
    old: &EntityNode,
    new: &EntityNode,
    positions: &mut Positions<'_>,
) -> EntityChange {
    let mut change = EntityChange::new(id);
    change.name = Change::of(&old.name, &new.name);
    if old.parent != new.parent {
        change.parent = Some(ParentChange {
            old: old.parent,
            new: new.parent,
            index: positions.index(new.parent, id),
        });
    }
    change.transform = Change::of(&old.transform, &new.transform);
    change.locked = Change::of(&old.locked, &new.locked);
    change.children = Change::of(&old.children, &new.children);
    change.instance = Change::of(&old.instance, &new.instance);
    if old.components != new.components {
        let (components, order) = diff_components(&old.components, &new.components);
        change.components = components;
        change.component_order = order;
    }
    change
}

fn has_repeated_key(list: &[ComponentData]) -> bool {
    let mut seen = HashSet::with_capacity(list.len());
    list.iter().any(|c| !seen.insert(c.key()))
}

/// Component changes and, when the kept components changed their relative order, the final key
/// order.
fn diff_components(
    old: &[ComponentData],
    new: &[ComponentData],
) -> (Vec<ComponentChange>, Option<Vec<String>>) {
    let mut changes = Vec::new();
    if has_repeated_key(old) || has_repeated_key(new) {
        // Not a valid entity: replace the whole list, which `apply_to` replays exactly.
        let mut seen = HashSet::new();
        for c in old {
            let key = c.key();
            if seen.insert(key.clone()) {
                changes.push(ComponentChange::Removed { key });
            }
        }
        for (index, c) in new.iter().enumerate() {
            changes.push(ComponentChange::Added {
                index,
                component: c.clone(),
            });
        }
        return (changes, None);
    }
    let old_by_key: HashMap<String, usize> =
        old.iter().enumerate().map(|(i, c)| (c.key(), i)).collect();
    let new_keys: Vec<String> = new.iter().map(ComponentData::key).collect();
    {
        let new_set: HashSet<&str> = new_keys.iter().map(String::as_str).collect();
        for c in old {
            let key = c.key();
            if !new_set.contains(key.as_str()) {
                changes.push(ComponentChange::Removed { key });
            }
        }
    }
    let mut last_kept = None;
    let mut reordered = false;
    for (index, (c, key)) in new.iter().zip(&new_keys).enumerate() {
        match old_by_key.get(key) {
            None => changes.push(ComponentChange::Added {
                index,
                component: c.clone(),
            }),
            Some(&i) => {
                if last_kept.is_some_and(|last| i <= last) {
                    reordered = true;
                }
                last_kept = Some(i);
                if old[i] != *c {
                    let fields = match (&old[i], c) {
                        (ComponentData::Custom(a), ComponentData::Custom(b)) => diff_fields(a, b),
                        _ => None,
                    };
                    changes.push(ComponentChange::Changed {
                        key: key.clone(),
                        component: c.clone(),
                        fields,
                    });
                }
            }
        }
    }
    (changes, reordered.then_some(new_keys))
}

fn has_repeated_name(fields: &[CustomField]) -> bool {
    let mut seen = HashSet::with_capacity(fields.len());
    fields.iter().any(|f| !seen.insert(f.name.as_str()))
}

/// Field changes by name; `None` when a name repeats.
fn diff_fields(old: &CustomComponent, new: &CustomComponent) -> Option<Vec<FieldChange>> {
    // An enum's value is set whole: a changed `value` replaces the component.
    if has_repeated_name(&old.fields) || has_repeated_name(&new.fields) || old.value != new.value {
        return None;
    }
    let old_by_name: HashMap<&str, &str> = old
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.expr.as_str()))
        .collect();
    let new_names: HashSet<&str> = new.fields.iter().map(|f| f.name.as_str()).collect();
    let mut changes = Vec::new();
    for f in &new.fields {
        match old_by_name.get(f.name.as_str()) {
            Some(expr) if *expr == f.expr => {}
            before => changes.push(FieldChange {
                name: f.name.clone(),
                old: before.map(|s| EcoString::from(*s)),
                new: Some(f.expr.clone()),
            }),
        }
    }
    for f in &old.fields {
        if !new_names.contains(f.name.as_str()) {
            changes.push(FieldChange {
                name: f.name.clone(),
                old: Some(f.expr.clone()),
                new: None,
            });
        }
    }
    Some(changes)
}

/// Removed entities grouped into old subtrees, roots in old file order.
fn removed_subtrees(old: &SceneDoc, new: &SceneDoc) -> Vec<RemovedSubtree> {
    let gone: Vec<u64> = old
        .entities
        .keys()
        .copied()
        .filter(|id| !new.entities.contains_key(id))
        .collect();
    let gone_set: HashSet<u64> = gone.iter().copied().collect();
    let mut seen = HashSet::with_capacity(gone.len());
    let mut out = Vec::new();
    let subtree = |root: u64, seen: &mut HashSet<u64>| {
        let mut ids = Vec::new();
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            ids.push(id);
            if let Some(node) = old.entities.get(&id) {
                stack.extend(
                    node.children
                        .iter()
                        .rev()
                        .copied()
                        .filter(|c| gone_set.contains(c)),
                );
            }
        }
        let node = old.entities.get(&root);
        RemovedSubtree {
            root,
            name: node.map(|n| n.name.clone()).unwrap_or_default(),
            parent: node.and_then(|n| n.parent),
            ids,
        }
    };
    for &id in &gone {
        let parent = old.entities.get(&id).and_then(|n| n.parent);
        let is_root = parent.is_none_or(|p| p == id || !gone_set.contains(&p));
        if is_root && !seen.contains(&id) {
            out.push(subtree(id, &mut seen));
        }
    }
    // Parent cycles among removed entities (malformed documents) have no root: start anywhere.
    for &id in &gone {
        if !seen.contains(&id) {
            out.push(subtree(id, &mut seen));
        }
    }
    out
}

/// Added ids with every parent before its children.
fn added_order(new: &SceneDoc, added_ids: &[u64]) -> Vec<u64> {
    let added: HashSet<u64> = added_ids.iter().copied().collect();
    let mut seen = HashSet::with_capacity(added_ids.len());
    let mut out = Vec::with_capacity(added_ids.len());
    let visit = |start: u64, seen: &mut HashSet<u64>, out: &mut Vec<u64>| {
        let mut stack = vec![start];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            out.push(id);
            if let Some(node) = new.entities.get(&id) {
                stack.extend(
                    node.children
                        .iter()
                        .rev()
                        .copied()
                        .filter(|c| added.contains(c)),
                );
            }
        }
    };
    for &id in added_ids {
        let parent = new.entities.get(&id).and_then(|n| n.parent);
        let top = parent.is_none_or(|p| p == id || !added.contains(&p));
        if top {
            visit(id, &mut seen, &mut out);
        }
    }
    for &id in added_ids {
        if !seen.contains(&id) {
            visit(id, &mut seen, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{CustomComponent, CustomField, TransformData, Vec3Data};

    fn scene(n: u64) -> SceneDoc {
        let mut doc = SceneDoc::new("hashes");
        let mut parent = None;
        for i in 0..n {
            let id = doc
                .add_entity(format!("e{i}"), if i % 4 == 0 { None } else { parent })
                .unwrap_or_default();
            if i % 4 == 0 {
                parent = Some(id);
            }
            let _ = doc.add_component(
                id,
                ComponentData::Custom(CustomComponent {
                    type_path: "g::Hp".into(),
                    fields: vec![CustomField::new("value", i.to_string())],
                    value: None,
                }),
            );
        }
        doc
    }

    fn read_with_hashes(doc: &SceneDoc) -> (SceneDoc, Vec<u64>) {
        let parsed = SceneDoc::from_str(&doc.to_canonical_string()).unwrap_or_else(|e| {
            panic!("canonical text reads back: {e}");
        });
        let hashes = parsed.source_map.entity_text_hashes();
        (parsed.doc, hashes)
    }

    proptest::proptest! {
        /// Skipping entities whose text is unchanged gives exactly the full diff.
        #[test]
        fn text_hashes_only_skip_unchanged_entities(
            edits in proptest::collection::vec((0u64..24, 0u8..5), 0..6),
        ) {
            let old = scene(24);
            let mut new = old.clone();
            for (k, what) in edits {
                let id = new.entities.keys().copied().nth(k as usize % new.entities.len().max(1));
                let Some(id) = id else { continue };
                match what {
                    0 => { let _ = new.rename(id, format!("renamed {k}")); }
                    1 => {
                        let _ = new.set_transform(id, TransformData {
                            translation: Vec3Data::new(k as f32, 1.0, 2.0),
                            ..TransformData::IDENTITY
                        });
                    }
                    2 => {
                        if let Some(ComponentData::Custom(c)) = new
                            .entity_mut(id)
                            .and_then(|n| n.components.first_mut())
                        {
                            c.fields[0].expr = ecow::eco_format!("{}", k + 1000);
                        }
                    }
                    3 => { let _ = new.add_entity(format!("added {k}"), Some(id)); }
                    _ => { let _ = new.delete_subtree(id); }
                }
            }
            let (old, old_hashes) = read_with_hashes(&old);
            let (new, new_hashes) = read_with_hashes(&new);
            let full = diff(&old, &new);
            let hinted = diff_with_hashes(&old, Some(&old_hashes), &new, Some(&new_hashes));
            proptest::prop_assert_eq!(format!("{full:?}"), format!("{hinted:?}"));
        }
    }

    #[test]
    fn equal_text_hashes_skip_the_comparison() {
        let (old, hashes) = read_with_hashes(&scene(4));
        let mut new = old.clone();
        let id = new.entities.keys().copied().nth(1).unwrap_or_default();
        let _ = new.rename(id, "edited in memory");
        // Hashes that claim nothing changed: the rename is not looked at.
        assert!(diff_with_hashes(&old, Some(&hashes), &new, Some(&hashes)).is_empty());
        // Without them (or with hashes of other documents) it is found.
        assert_eq!(diff(&old, &new).changed.len(), 1);
        let short = &hashes[..2];
        assert_eq!(
            diff_with_hashes(&old, Some(short), &new, Some(short))
                .changed
                .len(),
            1
        );
    }
}
