//! The forest rules (the format page, "Ids, forests and ordering").

use bevy_platform::collections::{HashMap, HashSet};

use super::SceneDoc;

/// One broken forest rule, found by [`SceneDoc::check_integrity`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum IntegrityProblem {
    /// An entry's key differs from its `id` field.
    #[error("entity key {key} holds `id: {id}`; the id must equal the key")]
    KeyIdMismatch {
        /// The key in `entities`.
        key: u64,
        /// The entry's `id`.
        id: u64,
    },
    /// An entity's `parent` names an entity that does not exist.
    #[error("entity {id} has parent {parent}, which does not exist")]
    MissingParent {
        /// The entity.
        id: u64,
        /// The missing parent.
        parent: u64,
    },
    /// An entity lists a child that does not exist.
    #[error("entity {id} lists child {child}, which does not exist")]
    MissingChild {
        /// The entity.
        id: u64,
        /// The missing child.
        child: u64,
    },
    /// `roots` names an entity that does not exist.
    #[error("roots list {id}, which does not exist")]
    MissingRoot {
        /// The missing root.
        id: u64,
    },
    /// An entity names a parent that does not list it as a child.
    #[error("entity {id} says parent {parent}, but {parent} does not list {id} as a child")]
    NotListedByParent {
        /// The child.
        id: u64,
        /// The parent it names.
        parent: u64,
    },
    /// An entity lists a child whose `parent` is something else.
    #[error("entity {id} lists child {child}, but {child} has parent {}", show_parent(.child_parent))]
    ChildDisagrees {
        /// The listing entity.
        id: u64,
        /// The listed child.
        child: u64,
        /// What the child names as its parent.
        child_parent: Option<u64>,
    },
    /// An entity in `roots` has a parent.
    #[error("root {id} has parent {parent}; roots must have `parent: None`")]
    RootHasParent {
        /// The root.
        id: u64,
        /// Its parent.
        parent: u64,
    },
    /// An entity appears in more than one place (`roots` and children lists together).
    #[error("entity {id} appears {count} times in `roots` and children lists; it must appear once")]
    DuplicateReference {
        /// The entity.
        id: u64,
        /// How many places list it.
        count: usize,
    },
    /// An entity appears neither in `roots` nor in any children list.
    #[error("entity {id} is in no place: neither in `roots` nor in any children list")]
    Unplaced {
        /// The entity.
        id: u64,
    },
    /// An entity is its own parent.
    #[error("entity {id} is its own parent")]
    SelfParent {
        /// The entity.
        id: u64,
    },
    /// Following `parent` links leads back to where it started.
    #[error("parent cycle: {}", show_cycle(.ids))]
    Cycle {
        /// The entities of the cycle, starting from the smallest id, in parent order.
        ids: Vec<u64>,
    },
    /// `next_id` is not greater than every id.
    #[error("next_id {next_id} must be greater than every id (the largest is {max_id})")]
    NextIdTooLow {
        /// The file's `next_id`.
        next_id: u64,
        /// The largest id in the document.
        max_id: u64,
    },
}

fn show_parent(p: &Option<u64>) -> String {
    match p {
        Some(p) => format!("{p}"),
        None => "None".to_owned(),
    }
}

fn show_cycle(ids: &[u64]) -> String {
    let mut s = String::new();
    for id in ids {
        s.push_str(&format!("{id} -> "));
    }
    if let Some(first) = ids.first() {
        s.push_str(&first.to_string());
    }
    s
}

impl IntegrityProblem {
    /// The entity whose entry shows the problem (`None` for `next_id` and missing roots).
    pub fn entity(&self) -> Option<u64> {
        match self {
            IntegrityProblem::KeyIdMismatch { key: id, .. }
            | IntegrityProblem::MissingParent { id, .. }
            | IntegrityProblem::MissingChild { id, .. }
            | IntegrityProblem::NotListedByParent { id, .. }
            | IntegrityProblem::ChildDisagrees { id, .. }
            | IntegrityProblem::RootHasParent { id, .. }
            | IntegrityProblem::DuplicateReference { id, .. }
            | IntegrityProblem::Unplaced { id }
            | IntegrityProblem::SelfParent { id } => Some(*id),
            IntegrityProblem::Cycle { ids } => ids.first().copied(),
            IntegrityProblem::MissingRoot { .. } | IntegrityProblem::NextIdTooLow { .. } => None,
        }
    }

    /// The field that shows the problem: an entity field (`id`, `parent`, `children`) when
    /// [`entity`](Self::entity) is set, otherwise a top-level one (`roots`, `next_id`).
    pub fn field(&self) -> &'static str {
        match self {
            IntegrityProblem::KeyIdMismatch { .. } => "id",
            IntegrityProblem::MissingParent { .. }
            | IntegrityProblem::NotListedByParent { .. }
            | IntegrityProblem::RootHasParent { .. }
            | IntegrityProblem::SelfParent { .. }
            | IntegrityProblem::Cycle { .. } => "parent",
            IntegrityProblem::MissingChild { .. } | IntegrityProblem::ChildDisagrees { .. } => {
                "children"
            }
            IntegrityProblem::DuplicateReference { .. } | IntegrityProblem::Unplaced { .. } => {
                "parent"
            }
            IntegrityProblem::MissingRoot { .. } => "roots",
            IntegrityProblem::NextIdTooLow { .. } => "next_id",
        }
    }
}

impl SceneDoc {
    /// Checks the forest rules and returns every broken one (empty when the forest is valid).
    ///
    /// Finds key/id mismatches, missing parents, children and roots, parents and children that
    /// disagree, roots with a parent, entities in two places or in none, self-parents, parent
    /// cycles, and a `next_id` not above every id. Runs in linear time and terminates on every
    /// input, cycles included. Problems come in file order of the entity concerned, then roots,
    /// then `next_id`.
    pub fn check_integrity(&self) -> Vec<IntegrityProblem> {
        let mut problems = Vec::new();
        let n = self.entities.len();

        // How many places (roots and children lists) name each entity, by entity index.
        let mut places = vec![0usize; n];
        let listed_ids = self.roots.iter().copied().chain(
            self.entities
                .values()
                .flat_map(|node| node.placed_children()),
        );
        for id in listed_ids {
            if let Some(i) = self.entities.get_index_of(&id) {
                places[i] += 1;
            }
        }
        let root_set: HashSet<u64> = self.roots.iter().copied().collect();
        let cycles = self.parent_cycles();

        for (index, (&key, node)) in self.entities.iter().enumerate() {
            if node.id != key {
                problems.push(IntegrityProblem::KeyIdMismatch { key, id: node.id });
            }
            match node.parent {
                Some(parent) if parent == key => {
                    problems.push(IntegrityProblem::SelfParent { id: key });
                }
                Some(parent) => match self.entities.get(&parent) {
                    None => problems.push(IntegrityProblem::MissingParent { id: key, parent }),
                    Some(p) if !p.placed_children().any(|c| c == key) => {
                        problems.push(IntegrityProblem::NotListedByParent { id: key, parent });
                    }
                    Some(_) => {}
                },
                None => {}
            }
            if let (Some(parent), true) = (node.parent, root_set.contains(&key)) {
                problems.push(IntegrityProblem::RootHasParent { id: key, parent });
            }
            // Short lists are searched; a set is only built for long ones. An instance's
            // overrides place children too (under prefab entities).
            let placed: Vec<u64>;
            let children: &[u64] = match &node.instance {
                Some(i) if i.overrides.iter().any(|o| !o.children.is_empty()) => {
                    placed = node.placed_children().collect();
                    &placed
                }
                _ => &node.children,
            };
            let long = children.len() > 16;
            let mut listed = HashSet::new();
            for (j, &child) in children.iter().enumerate() {
                let repeated = if long {
                    !listed.insert(child)
                } else {
                    children[..j].contains(&child)
                };
                if repeated {
                    continue;
                }
                match self.entities.get(&child) {
                    None => problems.push(IntegrityProblem::MissingChild { id: key, child }),
                    Some(c) if c.parent != Some(key) => {
                        problems.push(IntegrityProblem::ChildDisagrees {
                            id: key,
                            child,
                            child_parent: c.parent,
                        });
                    }
                    Some(_) => {}
                }
            }
            match places[index] {
                0 => problems.push(IntegrityProblem::Unplaced { id: key }),
                1 => {}
                count => problems.push(IntegrityProblem::DuplicateReference { id: key, count }),
            }
            if let Some(cycle) = cycles.get(&key) {
                problems.push(IntegrityProblem::Cycle { ids: cycle.clone() });
            }
        }
        let mut seen_roots = HashSet::new();
        for &root in &self.roots {
            if seen_roots.insert(root) && !self.entities.contains_key(&root) {
                problems.push(IntegrityProblem::MissingRoot { id: root });
            }
        }
        let max_id = self.entities.iter().map(|(k, n)| (*k).max(n.id)).max();
        if let Some(max_id) = max_id
            && self.next_id <= max_id
        {
            problems.push(IntegrityProblem::NextIdTooLow {
                next_id: self.next_id,
                max_id,
            });
        }
        problems
    }

    /// Parent cycles of two or more entities, keyed by their smallest id.
    fn parent_cycles(&self) -> HashMap<u64, Vec<u64>> {
        // By entity index. 0: not visited, 1: on the current walk, 2: done.
        let mut state = vec![0u8; self.entities.len()];
        let mut cycles = HashMap::new();
        let mut walk: Vec<usize> = Vec::new();
        for start in 0..self.entities.len() {
            walk.clear();
            let mut cur = Some(start);
            while let Some(i) = cur {
                match state[i] {
                    2 => break,
                    1 => {
                        if let Some(at) = walk.iter().position(|w| *w == i) {
                            let mut ids: Vec<u64> = walk[at..]
                                .iter()
                                .filter_map(|w| self.entities.get_index(*w).map(|(id, _)| *id))
                                .collect();
                            if ids.len() > 1 {
                                let min_at = ids
                                    .iter()
                                    .enumerate()
                                    .min_by_key(|(_, v)| **v)
                                    .map_or(0, |(i, _)| i);
                                ids.rotate_left(min_at);
                                cycles.insert(ids[0], ids);
                            }
                        }
                        break;
                    }
                    _ => {}
                }
                state[i] = 1;
                walk.push(i);
                cur = self.entities[i]
                    .parent
                    .and_then(|p| self.entities.get_index_of(&p));
            }
            for &i in &walk {
                state[i] = 2;
            }
        }
        cycles
    }
}
