//! The streamed cells of a spawned document ([`CellPlan`], planned once per scene:
//! [`ForgeScene::cell_plan`](super::scene::ForgeScene::cell_plan)): which entities are anchors (the instance entities written with
//! `streaming`), with their radii, and what is below each. An instance holds back the content
//! of its cells ([`crate::runtime::instance`]); streaming lets them in and out.

use std::sync::Arc;

use bevy_platform::collections::HashMap;

use crate::format::{SceneDoc, Streaming};
use crate::runtime::values::custom::PreparedCustoms;

/// The cells of one spawned document: which entities are anchors, with their radii, and which
/// entities hold components with entity references.
#[derive(Debug)]
pub(crate) struct CellPlan {
    pub(crate) doc: Arc<SceneDoc>,
    pub(crate) cells: Vec<CellDef>,
    /// Cell of each anchor key.
    pub(crate) anchors: HashMap<u64, u32>,
    /// Whether the entity at each index of the spawned document is an anchor (empty when the
    /// scene has no cell).
    anchor_at: Vec<bool>,
    /// Entities of the spawned document under some anchor.
    content: usize,
    /// `(key, index)` of every entity with a custom component holding entity references.
    pub(crate) holders: Vec<(u64, usize)>,
}

/// One cell: its anchor's key and index in the spawned document, and its radii.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CellDef {
    pub(crate) key: u64,
    pub(crate) index: usize,
    pub(crate) streaming: Streaming,
}

impl CellPlan {
    /// The plan of a scene: `file` its document as read (whose instance entities written with
    /// `streaming` are the anchors), `spawned` what spawns (its expansion), `custom` the custom
    /// components of `spawned`'s entities.
    pub(crate) fn of(file: &SceneDoc, spawned: &Arc<SceneDoc>, custom: &PreparedCustoms) -> Self {
        let doc = spawned.clone();
        let mut cells = Vec::new();
        for (id, node) in &file.entities {
            let Some(streaming) = node.instance.as_deref().and_then(|i| i.streaming) else {
                continue;
            };
            if let Some(index) = doc.entities.get_index_of(id) {
                cells.push(CellDef {
                    key: *id,
                    index,
                    streaming,
                });
            }
        }
        let anchors: HashMap<u64, u32> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| (c.key, i as u32))
            .collect();
        let mut anchor_at = Vec::new();
        let mut content = 0;
        let mut holders = Vec::new();
        if !cells.is_empty() {
            anchor_at = vec![false; doc.entities.len()];
            for c in &cells {
                anchor_at[c.index] = true;
            }
            let mut stack: Vec<u64> = Vec::new();
            for c in &cells {
                stack.clear();
                stack.extend(
                    doc.entities
                        .get_index(c.index)
                        .map_or(&[][..], |(_, n)| &n.children),
                );
                // Nested anchors are counted by their own cell's walk: stop at them.
                while let Some(id) = stack.pop() {
                    let Some((i, _, node)) = doc.entities.get_full(&id) else {
                        continue;
                    };
                    content += 1;
                    if !anchor_at[i] {
                        stack.extend(&node.children);
                    }
                }
            }
            if custom.has_references() {
                for (i, (key, _)) in doc.entities.iter().enumerate() {
                    if custom.entity(i).iter().any(|p| p.refers()) {
                        holders.push((*key, i));
                    }
                }
            }
        }
        Self {
            doc,
            cells,
            anchors,
            anchor_at,
            content,
            holders,
        }
    }

    /// Whether the plan has no cell.
    pub(crate) fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Whether the entity at `index` of the spawned document is an anchor: spawning stops there.
    pub(crate) fn is_anchor_at(&self, index: usize) -> bool {
        self.anchor_at.get(index).copied().unwrap_or(false)
    }

    /// The number of entities under anchors: what a root's first spawn leaves out.
    pub(crate) fn content_len(&self) -> usize {
        self.content
    }

    /// The anchors above `key` (innermost first), by cell.
    pub(crate) fn cells_above(&self, key: u64) -> impl Iterator<Item = u32> + '_ {
        let mut at = self.doc.entities.get(&key).and_then(|n| n.parent);
        let mut steps = 0usize;
        std::iter::from_fn(move || {
            while let Some(p) = at {
                steps += 1;
                if steps > self.doc.entities.len() {
                    return None; // a cycle: validation refuses it, stay safe anyway
                }
                at = self.doc.entities.get(&p).and_then(|n| n.parent);
                if let Some(c) = self.anchors.get(&p) {
                    return Some(*c);
                }
            }
            None
        })
    }

    /// The keys of cell `cell`'s content, parents first (nested cells' content included).
    pub(crate) fn content_of(&self, cell: usize) -> Vec<u64> {
        let mut out = Vec::new();
        let Some(def) = self.cells.get(cell) else {
            return out;
        };
        let Some((_, anchor)) = self.doc.entities.get_index(def.index) else {
            return out;
        };
        let mut stack: Vec<u64> = anchor.children.iter().rev().copied().collect();
        while let Some(id) = stack.pop() {
            let Some(node) = self.doc.entities.get(&id) else {
                continue;
            };
            out.push(id);
            stack.extend(node.children.iter().rev());
        }
        out
    }
}
