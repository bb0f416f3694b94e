//! Tile layers merged: each layer by id, its fields three-way, its palette by key, its
//! overrides by target, and its cells one by one (a cell painted on one branch and another
//! painted on the other are both kept).

use bevy_platform::collections::HashMap;

use super::entity::{OverrideKey, override_keys};
use super::pick::{Choice, Picker, Place, choose, merged_order, same};
use crate::format::{CellRect, EcoString, Instance, Override, SceneDoc, TileLayer, Vec3Data};

/// The layers of `b`, `o` and `t` merged; `alive` says which entities the merged scene has (a
/// layer's parent must be one).
pub(crate) fn layers(
    p: &mut Picker,
    b: &SceneDoc,
    o: &SceneDoc,
    t: &SceneDoc,
    alive: &dyn Fn(u64) -> bool,
) -> Vec<TileLayer> {
    if same(Some(&o.layers), Some(&t.layers)) {
        return o.layers.clone();
    }
    // This branch's layers, then the other's new ones (added after the last, as the text is).
    let mut order: Vec<u64> = o.layers.iter().map(|l| l.id).collect();
    order.extend(
        t.layers
            .iter()
            .map(|l| l.id)
            .filter(|id| o.layer(*id).is_none()),
    );
    let mut out = Vec::new();
    for id in order {
        let (lb, lo, lt) = (b.layer(id), o.layer(id), t.layer(id));
        let merged = match (lb, lo, lt) {
            (Some(lb), Some(lo), Some(lt)) => Some(layer(p, lb, lo, lt, alive)),
            _ => p.pick(lb, lo, lt, || {
                (
                    Place::Layers,
                    format!("tile layer {id}: deleted on one branch, changed on the other"),
                )
            }),
        };
        out.extend(merged);
    }
    out
}

/// Filled cells by index.
fn cells(l: &TileLayer) -> HashMap<(u64, u64), char> {
    l.filled().map(|(i, j, key, _)| ((i, j), key)).collect()
}

/// One layer every side has.
fn layer(
    p: &mut Picker,
    b: &TileLayer,
    o: &TileLayer,
    t: &TileLayer,
    alive: &dyn Fn(u64) -> bool,
) -> TileLayer {
    if same(Some(o), Some(t)) || same(Some(t), Some(b)) {
        return o.clone();
    }
    if same(Some(o), Some(b)) {
        return t.clone();
    }
    let id = o.id;
    let at = |words: &str| {
        let what = format!("tile layer {id} {:?}: {words}", o.name.as_str());
        move || (Place::Layer(id), what)
    };
    let mut out = o.clone();
    out.name = p.pick_value(Some(&b.name), &o.name, &t.name, at("name"));
    let parent = p.pick_value(Some(&b.parent), &o.parent, &t.parent, at("parent"));
    out.parent = if parent.is_none_or(alive) {
        parent
    } else {
        o.parent
    };
    out.plane = p.pick_value(Some(&b.plane), &o.plane, &t.plane, at("plane"));
    out.cell_size = p.pick_value(
        Some(&b.cell_size),
        &o.cell_size,
        &t.cell_size,
        at("cell_size"),
    );
    // The palette by key.
    let keys = |l: &TileLayer| l.palette.iter().map(|(k, _)| *k).collect::<Vec<_>>();
    let mut palette = Vec::new();
    for k in merged_order(&keys(o), &keys(t), |k: &char| *k) {
        let of = |l: &TileLayer| l.prefab(k).map(EcoString::from);
        let words = format!("palette key {k:?}");
        if let Some(scene) = p.pick(of(b).as_ref(), of(o).as_ref(), of(t).as_ref(), at(&words)) {
            palette.push((k, scene));
        }
    }
    out.palette = palette;
    // Overrides by target.
    let holder = |l: &TileLayer| Instance {
        overrides: l.overrides.clone(),
        ..Instance::new("")
    };
    let (hb, ho, ht) = (holder(b), holder(o), holder(t));
    let find = |h: &Instance, k: &OverrideKey| -> Option<Override> {
        let at = override_keys(h).iter().position(|x| x == k)?;
        Some(h.overrides[at].clone())
    };
    let mut overrides = Vec::new();
    for k in merged_order(&override_keys(&ho), &override_keys(&ht), OverrideKey::clone) {
        let words = format!("override of cell {:?}", k.target);
        overrides.extend(p.pick(
            find(&hb, &k).as_ref(),
            find(&ho, &k).as_ref(),
            find(&ht, &k).as_ref(),
            at(&words),
        ));
    }
    out.overrides = overrides;
    // Where cell (0, 0) sits: moving the layer is a change; growing it is not.
    let (ab, ao, at_) = (b.anchor(), o.anchor(), t.anchor());
    if choose(Some(&ab), Some(&ao), Some(&at_)) != Choice::Ours
        && let Some(anchor) = p.pick(Some(&ab), Some(&ao), Some(&at_), at("origin"))
    {
        let back = out.cell_offset(u64::from(out.start.0), u64::from(out.start.1));
        out.origin = Vec3Data::new(anchor.x + back.x, anchor.y + back.y, anchor.z + back.z);
    }
    // Cell by cell.
    let (cb, co, ct) = (cells(b), cells(o), cells(t));
    let mut changed: Vec<((u64, u64), Option<char>)> = Vec::new();
    let mut indices: Vec<(u64, u64)> = co
        .keys()
        .chain(ct.keys())
        .chain(cb.keys())
        .copied()
        .collect();
    indices.sort_unstable_by_key(|(i, j)| (*j, *i));
    indices.dedup();
    for (i, j) in indices {
        let (kb, ko, kt) = (cb.get(&(i, j)), co.get(&(i, j)), ct.get(&(i, j)));
        let what = format!("tile layer {id} {:?}: cell ({i}, {j})", o.name.as_str());
        let merged = p.pick(kb, ko, kt, || (Place::Cell(id, i, j), what));
        if merged.as_ref() != ko {
            changed.push(((i, j), merged));
        }
    }
    for ((i, j), key) in changed {
        let (Ok(i), Ok(j)) = (u32::try_from(i), u32::try_from(j)) else {
            continue;
        };
        // A key the merged palette lacks leaves the cell as it is (validation would refuse it).
        if out.paint(CellRect::cell(i, j), key).is_err() {
            continue;
        }
    }
    out
}
