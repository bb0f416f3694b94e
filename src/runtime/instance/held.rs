//! What of an instance is held back from the world ([`HeldBack`]): the content of streamed
//! cells that are not let in, and components with entity references that wait for what they
//! name. Streaming writes it; hot reload and capture read it.

use bevy_ecs::component::Component;
use bevy_platform::collections::HashSet;

use crate::runtime::asset::cell_plan::CellPlan;

/// What of the instance on a root is held back, on the root of a scene with streamed cells.
///
/// An instance holds back the content of each streamed cell (what is below an instance entity
/// written with `streaming`): its first spawn stops at the cell's anchor. Streaming lets a
/// cell in when its content is all in the world, and holds it back again when it goes out. A
/// component with entity references naming an entity held back is held off its entity.
#[derive(Component, Default, Debug)]
pub(crate) struct HeldBack {
    /// The anchors whose content is in.
    let_in: HashSet<u64>,
    /// Components with entity references held off (`(key, n)`: the `n`th component with
    /// references of the entity with key `key`).
    references: HashSet<(u64, u32)>,
}

impl HeldBack {
    /// Whether the entity of key `key` of `plan`'s document is held back: some streamed cell
    /// above it is not let in (a cell this record does not know, new to `plan`, is not).
    pub(crate) fn holds(&self, plan: &CellPlan, key: u64) -> bool {
        plan.cells_above(key)
            .any(|c| !self.lets_in(plan.cells[c as usize].key))
    }

    /// Whether the content of the cell whose anchor has key `anchor` is let in.
    pub(crate) fn lets_in(&self, anchor: u64) -> bool {
        self.let_in.contains(&anchor)
    }

    /// Whether a component with entity references of the entity with key `key` is held off it.
    pub(crate) fn holds_references(&self, key: u64) -> bool {
        self.references.iter().any(|(k, _)| *k == key)
    }

    /// The cells let in are those whose anchors `anchors` lists; every other one is held back.
    pub(crate) fn let_in(&mut self, anchors: impl IntoIterator<Item = u64>) {
        self.let_in.clear();
        self.let_in.extend(anchors);
    }

    /// The components with entity references held off, to change.
    pub(crate) fn references_mut(&mut self) -> &mut HashSet<(u64, u32)> {
        &mut self.references
    }
}
