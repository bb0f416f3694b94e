//! Cells painted: the expansion of a scene's next version patched from the last one when the
//! two documents differ only in cells of tile layers' `rows` (a cell painted, erased or given
//! another key), so that a paint costs the cells it changed, not the layer. The result is what
//! [`expand`](super::expand) gives for the new document, in the same order.

use std::sync::Arc;

use bevy_platform::collections::HashMap;

use super::{ExpandedScene, Placement, key_of, place_prefab, prefixed};
use crate::format::{
    EMPTY_CELL, MAX_EXPANDED_ENTITIES, ParsedScene, SceneDoc, TileChange, TileLayer,
};

/// What [`repaint`] changed in the expansion.
pub(crate) struct Repainted {
    /// The expansion of the new document.
    pub(crate) expanded: ExpandedScene,
    /// The keys of the entities the painted cells placed.
    pub(crate) added: Vec<u64>,
    /// The keys of the entities of the cells painted over or erased.
    pub(crate) removed: Vec<u64>,
}

/// The expansion of `parsed` (the next version of `old`, whose expansion is `last`) patched
/// cell by cell, when the documents differ only in cells of layers' `rows`: same entities, same
/// layers but for characters of their rows (no row or column added, no sparse `cells`, no
/// override targeting a changed cell). `prefab` gives the palette's prefabs, the same as when
/// `last` was expanded. `None` when the documents differ otherwise, or when placing a cell
/// would report something (a key collision, too many entities): the whole expansion says it.
/// `last` must have been expanded without a `key_collision` or `too_large` error.
pub(crate) fn repaint<'p>(
    last: &ExpandedScene,
    old: &SceneDoc,
    parsed: &ParsedScene,
    prefab: &dyn Fn(&str) -> Option<&'p ExpandedScene>,
) -> Option<Repainted> {
    let new = &parsed.doc;
    if old.layers.len() != new.layers.len() {
        return None;
    }
    let mut changes = Vec::new();
    for (n, (a, b)) in old.layers.iter().zip(&new.layers).enumerate() {
        if a != b {
            if !last.layers.contains_key(&b.id) {
                return None;
            }
            changes.push((n, painted(a, b)?));
        }
    }
    if changes.is_empty() {
        return None;
    }
    let mut expanded = last.clone();
    let out = Arc::make_mut(&mut expanded.doc);
    let paths = Arc::make_mut(&mut expanded.paths);
    let mut added = Vec::new();
    let mut removed = Vec::new();
    for (n, cells) in changes {
        let layer = &new.layers[n];
        let id = layer.id;
        let prefabs: Vec<Option<&ExpandedScene>> = layer
            .palette
            .iter()
            .map(|(_, scene)| prefab(scene))
            .collect();
        // What a cell with `key` places (nothing for an empty cell, an unknown key or a
        // prefab that could not be read, as the expansion does).
        let prefab_of = |key: Option<char>| {
            let key = key.filter(|k| *k != EMPTY_CELL)?;
            let k = layer.palette.iter().position(|(p, _)| *p == key)?;
            prefabs[k]
        };
        let field = format!("layers[{n}]");
        // In fill order: a cell's place follows the cells before it, already brought up to date.
        for &(i, j, was, now) in &cells {
            let prefix = [id, i, j];
            if let Some(p) = prefab_of(was) {
                let roots: Vec<u64> = p
                    .doc
                    .roots
                    .iter()
                    .map(|r| key_of(&prefixed(&prefix, p, *r)))
                    .collect();
                for k in p.doc.entities.keys() {
                    let key = key_of(&prefixed(&prefix, p, *k));
                    out.entities.shift_remove(&key)?;
                    paths.remove(&key);
                    expanded.instances.remove(&key);
                    removed.push(key);
                }
                let node = Arc::make_mut(out.entities.get_mut(&id)?);
                node.children.retain(|c| !roots.contains(c));
            }
            let Some(p) = prefab_of(now) else {
                continue;
            };
            // Right after the last entity of the filled cell before it (and its roots after
            // that cell's), or right after the layer entity (its roots first).
            let (mut at, child_at) = match previous(layer, (i, j), &prefab_of) {
                Some((pi, pj, q)) => {
                    let before = [id, pi, pj];
                    let last_key = key_of(&prefixed(&before, q, *q.doc.entities.keys().last()?));
                    let last_root = key_of(&prefixed(&before, q, *q.doc.roots.last()?));
                    let children = &out.entities.get(&id)?.children;
                    (
                        out.entities.get_index_of(&last_key)? + 1,
                        children.iter().position(|c| *c == last_root)? + 1,
                    )
                }
                None => (out.entities.get_index_of(&id)? + 1, 0),
            };
            let place = Placement::cell(layer, &prefix, &field);
            let mut placed = SceneDoc::new("");
            let mut placed_paths = HashMap::default();
            let mut found = Vec::new();
            let roots = place_prefab(
                &place,
                p,
                &mut placed,
                &mut placed_paths,
                &mut expanded.instances,
                &mut found,
                &parsed.source_map,
            );
            if !found.is_empty() {
                return None;
            }
            for (key, node) in placed.entities {
                if out.entities.contains_key(&key) {
                    return None;
                }
                out.entities.shift_insert(at, key, node);
                at += 1;
                added.push(key);
            }
            paths.extend(placed_paths);
            let node = Arc::make_mut(out.entities.get_mut(&id)?);
            node.children.splice(child_at..child_at, roots);
        }
    }
    if out.entities.len() > MAX_EXPANDED_ENTITIES {
        return None;
    }
    out.next_id = new
        .next_id
        .max(out.entities.keys().max().map_or(0, |m| m.saturating_add(1)));
    Some(Repainted {
        expanded,
        added,
        removed,
    })
}

/// The cells whose keys differ between `a` and `b` (two versions of one layer), in fill order,
/// when nothing else differs ([`TileLayer::same_but_tiles`]): rows of the same widths, no
/// sparse `cells`, no override of a changed cell.
fn painted(a: &TileLayer, b: &TileLayer) -> Option<Vec<TileChange>> {
    if !a.same_but_tiles(b) || !a.cells.is_empty() || !b.cells.is_empty() {
        return None;
    }
    let cells = a.changed_tiles(b)?;
    if cells.iter().any(|&(i, j, _, _)| b.overrides_cell(i, j)) {
        return None;
    }
    Some(cells)
}

/// The filled cell before cell `(i, j)` in `layer`'s fill order (its `rows`) that places
/// something, with its prefab.
fn previous<'p>(
    layer: &TileLayer,
    (i, j): (u64, u64),
    prefab_of: &dyn Fn(Option<char>) -> Option<&'p ExpandedScene>,
) -> Option<(u64, u64, &'p ExpandedScene)> {
    let (row, column) = layer.row_of(i, j)?;
    for r in (0..=row).rev() {
        let chars: Vec<char> = match r == row {
            true => layer.rows[r].chars().take(column).collect(),
            false => layer.rows[r].chars().collect(),
        };
        for (c, key) in chars.into_iter().enumerate().rev() {
            if let Some(p) = prefab_of(Some(key)) {
                let (i, j) = layer.row_cell(r, c);
                return Some((i, j, p));
            }
        }
    }
    None
}
