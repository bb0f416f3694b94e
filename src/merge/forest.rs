//! The whole document merged: which entities stay (deletions against changes), each entity's
//! fields (`entity`), where each entity sits (its place under a parent, in `roots` or in an
//! override's `children`, three-way like any value, then every list ordered), the tile layers
//! (`layers`), the scene's name and `next_id`.

use bevy_platform::collections::{HashMap, HashSet};

use super::entity::{self, OverrideKey, named, override_keys};
use super::pick::{Clash, Picker, Place, Side, merged_order, same};
use crate::format::{EntityMap, SceneDoc};

/// Where an entity sits: in `roots`, in a parent's `children`, or in the `children` of one
/// override of its parent's instance.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Slot {
    Root,
    Child(u64),
    Placed(u64, OverrideKey),
}

impl Slot {
    fn owner(&self) -> Option<u64> {
        match self {
            Slot::Root => None,
            Slot::Child(p) | Slot::Placed(p, _) => Some(*p),
        }
    }
}

/// Where `id` sits in `doc`, as its parent's lists say.
fn slot_of(doc: &SceneDoc, id: u64) -> Option<Slot> {
    let node = doc.entities.get(&id)?;
    let Some(parent) = node.parent else {
        return Some(Slot::Root);
    };
    let placed = doc
        .entities
        .get(&parent)
        .and_then(|p| p.instance.as_deref())
        .and_then(|i| {
            let at = i.overrides.iter().position(|o| o.children.contains(&id))?;
            Some(override_keys(i).swap_remove(at))
        });
    Some(match placed {
        Some(key) => Slot::Placed(parent, key),
        None => Slot::Child(parent),
    })
}

/// The list of `doc` that `slot` names (`roots`, a `children`, an override's `children`).
fn list_of<'d>(doc: &'d SceneDoc, slot: &Slot) -> Option<&'d [u64]> {
    match slot {
        Slot::Root => Some(&doc.roots),
        Slot::Child(p) => doc.entities.get(p).map(|n| &n.children[..]),
        Slot::Placed(p, key) => {
            let i = doc.entities.get(p)?.instance.as_deref()?;
            let at = override_keys(i).iter().position(|k| k == key)?;
            Some(&i.overrides[at].children)
        }
    }
}

/// `base`, `ours` and `theirs` (ids already apart: `renumber`) merged, conflicts kept as
/// `side` says, with the conflicts found. `written_alike(id)` says when this branch's and the
/// other's entries of `id` are the same text (so the same entity, not compared again).
pub(crate) fn merge_docs(
    base: &SceneDoc,
    ours: &SceneDoc,
    theirs: &SceneDoc,
    side: Side,
    written_alike: &dyn Fn(u64) -> bool,
) -> (SceneDoc, Vec<Clash>) {
    let mut p = Picker::new(side);
    let (b, o, t) = (base, ours, theirs);
    // Deleted on one side: gone, unless the other side changed what was deleted.
    let mut dropped_ours: HashSet<u64> = HashSet::default();
    let mut restored: HashSet<u64> = HashSet::default();
    let gone_o: HashSet<u64> = b
        .entities
        .keys()
        .filter(|id| !o.entities.contains_key(*id) && t.entities.contains_key(*id))
        .copied()
        .collect();
    let mut in_groups_t: HashSet<u64> = HashSet::default();
    for (&r, node) in &t.entities {
        if !gone_o.contains(&r) || node.parent.is_some_and(|q| gone_o.contains(&q)) {
            continue;
        }
        let group: Vec<u64> = t
            .subtree(r)
            .into_iter()
            .filter(|m| !o.entities.contains_key(m))
            .collect();
        let changed = group
            .iter()
            .any(|m| !same(b.entities.get(m), t.entities.get(m)));
        in_groups_t.extend(group.iter().copied());
        if changed {
            p.clash(
                Place::Kept(r),
                format!(
                    "{}: deleted on this branch, changed on the other",
                    named(node)
                ),
            );
            if side == Side::Theirs {
                restored.extend(group);
            }
        }
    }
    let gone_t: HashSet<u64> = b
        .entities
        .keys()
        .filter(|id| !t.entities.contains_key(*id) && o.entities.contains_key(*id))
        .copied()
        .collect();
    for (&r, node) in &o.entities {
        if !gone_t.contains(&r) || node.parent.is_some_and(|q| gone_t.contains(&q)) {
            continue;
        }
        let group: Vec<u64> = o
            .subtree(r)
            .into_iter()
            .filter(|m| !t.entities.contains_key(m))
            .collect();
        let changed = group
            .iter()
            .any(|m| !same(b.entities.get(m), o.entities.get(m)));
        if changed {
            p.clash(
                Place::Removed(r),
                format!(
                    "{}: changed on this branch, deleted on the other",
                    named(node)
                ),
            );
        }
        if !changed || side == Side::Theirs {
            dropped_ours.extend(group);
        }
    }
    // The entities that stay, each merged: this branch's order, then the other's new ones.
    let mut entities = EntityMap::with_capacity_and_hasher(
        o.entities.len() + t.entities.len().saturating_sub(b.entities.len()),
        Default::default(),
    );
    for (&id, on) in &o.entities {
        if dropped_ours.contains(&id) {
            continue;
        }
        let node = match t.entities.get(&id) {
            None => on.clone(),
            Some(_) if written_alike(id) => on.clone(),
            Some(tn) => {
                let bn = b.entities.get(&id);
                if same(Some(on), Some(tn)) || same(bn, Some(tn)) {
                    on.clone()
                } else if bn.is_some() && same(bn, Some(on)) {
                    tn.clone()
                } else {
                    std::sync::Arc::new(entity::node(&mut p, bn.map(|n| &**n), on, tn))
                }
            }
        };
        entities.insert(id, node);
    }
    for (&id, tn) in &t.entities {
        let new = !o.entities.contains_key(&id)
            && !b.entities.contains_key(&id)
            && !in_groups_t.contains(&id);
        if new || restored.contains(&id) {
            entities.insert(id, tn.clone());
        }
    }
    // Where each entity sits.
    let slots = slots(&mut p, b, o, t, &entities);
    let mut lists: HashMap<Slot, Vec<u64>> = HashMap::default();
    for (&id, slot) in &slots {
        lists.entry(slot.clone()).or_default().push(id);
    }
    let order: HashMap<u64, usize> = entities
        .keys()
        .enumerate()
        .map(|(i, id)| (*id, i))
        .collect();
    let mut ordered: HashMap<Slot, Vec<u64>> = HashMap::with_capacity(lists.len());
    for (slot, mut members) in lists {
        members.sort_by_key(|id| order.get(id).copied().unwrap_or(usize::MAX));
        let list = arrange(&mut p, [b, o, t], &entities, &slot, &members);
        ordered.insert(slot, list);
    }
    // Set every place: `parent`, `children`, overrides' `children`, `roots`.
    for (id, node) in entities.iter_mut() {
        let slot = slots.get(id).cloned().unwrap_or(Slot::Root);
        let children = ordered.remove(&Slot::Child(*id)).unwrap_or_default();
        let placed: Vec<(OverrideKey, Vec<u64>)> = node
            .instance
            .as_deref()
            .map(|i| {
                override_keys(i)
                    .into_iter()
                    .map(|k| {
                        let list = ordered
                            .remove(&Slot::Placed(*id, k.clone()))
                            .unwrap_or_default();
                        (k, list)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let fits = node.parent == slot.owner()
            && node.children == children
            && node.instance.as_deref().is_none_or(|i| {
                i.overrides
                    .iter()
                    .zip(&placed)
                    .all(|(o, (_, list))| o.children == *list)
            });
        if fits {
            continue;
        }
        let n = std::sync::Arc::make_mut(node);
        n.parent = slot.owner();
        n.children = children;
        if let Some(i) = n.instance.as_deref_mut() {
            for (o, (_, list)) in i.overrides.iter_mut().zip(placed) {
                o.children = list;
            }
        }
    }
    let roots = ordered.remove(&Slot::Root).unwrap_or_default();
    let alive = |id: u64| entities.contains_key(&id);
    let layers = super::layers::layers(&mut p, b, o, t, &alive);
    let name = p.pick_value(Some(&b.name), &o.name, &t.name, || {
        (Place::Name, "the scene's name".to_owned())
    });
    let top = entities
        .keys()
        .copied()
        .chain(layers.iter().map(|l| l.id))
        .max()
        .map_or(0, |m| m.saturating_add(1));
    let doc = SceneDoc {
        format_version: o.format_version,
        name,
        entities,
        roots,
        next_id: o.next_id.max(t.next_id).max(top),
        layers,
    };
    (doc, p.clashes)
}

/// Where each entity of `entities` sits: three-way over its place in each branch. A place
/// whose owner is gone, or that would make a loop of parents, is not taken.
fn slots(
    p: &mut Picker,
    b: &SceneDoc,
    o: &SceneDoc,
    t: &SceneDoc,
    entities: &EntityMap,
) -> HashMap<u64, Slot> {
    let valid = |slot: &Slot| match slot {
        Slot::Root => true,
        Slot::Child(q) => entities.contains_key(q),
        Slot::Placed(q, key) => entities
            .get(q)
            .and_then(|n| n.instance.as_deref())
            .is_some_and(|i| override_keys(i).contains(key)),
    };
    let mut out: HashMap<u64, Slot> = HashMap::with_capacity(entities.len());
    // Entities whose place came from the other branch against this branch's: undone first when
    // places make a loop.
    let mut from_theirs: Vec<(u64, Slot)> = Vec::new();
    for (&id, node) in entities {
        let (sb, so, st) = (slot_of(b, id), slot_of(o, id), slot_of(t, id));
        let fallback = so.clone().or_else(|| st.clone()).unwrap_or(Slot::Root);
        let picked = match (&so, &st) {
            (Some(so_), Some(st_)) if so_ == st_ => so_.clone(),
            (Some(_), Some(_)) => {
                let what = format!("{}: moved on both branches", named(node));
                p.pick(sb.as_ref(), so.as_ref(), st.as_ref(), || {
                    (Place::Field(id, "parent"), what)
                })
                .unwrap_or_else(|| fallback.clone())
            }
            _ => fallback.clone(),
        };
        let slot = if valid(&picked) {
            picked
        } else {
            [so.clone(), st.clone()]
                .into_iter()
                .flatten()
                .find(|s| valid(s))
                .unwrap_or(Slot::Root)
        };
        if let Some(ours) = &so
            && *ours != slot
            && valid(ours)
        {
            from_theirs.push((id, ours.clone()));
        }
        out.insert(id, slot);
    }
    // Places from both branches can make a loop (this branch put A under B, the other B under
    // A): the other branch's places in a loop give way, as a conflict.
    for _ in 0..=from_theirs.len() {
        let Some(looped) = from_theirs.iter().position(|(id, _)| in_loop(&out, *id)) else {
            break;
        };
        let (id, ours) = from_theirs.swap_remove(looped);
        if let Some(node) = entities.get(&id) {
            p.clash(
                Place::Field(id, "parent"),
                format!("{}: moved so that parents make a loop", named(node)),
            );
        }
        if p.side == Side::Ours {
            out.insert(id, ours);
        }
    }
    out
}

/// Whether following owners up from `id` comes back to it.
fn in_loop(slots: &HashMap<u64, Slot>, id: u64) -> bool {
    let mut at = id;
    for _ in 0..=slots.len() {
        match slots.get(&at).and_then(Slot::owner) {
            None => return false,
            Some(up) if up == id => return true,
            Some(up) => at = up,
        }
    }
    true
}

/// The order of list `slot`, holding `members` (in file order; `merged` names them): the branch that reordered it
/// gives the order (a conflict when both did, differently), each entity the other branch put
/// in after the one it follows there.
fn arrange(
    p: &mut Picker,
    [b, o, t]: [&SceneDoc; 3],
    merged: &EntityMap,
    slot: &Slot,
    members: &[u64],
) -> Vec<u64> {
    let is_member: HashSet<u64> = members.iter().copied().collect();
    let only = |l: Option<&[u64]>| -> Vec<u64> {
        l.unwrap_or_default()
            .iter()
            .copied()
            .filter(|x| is_member.contains(x))
            .collect()
    };
    let (lb, lo, lt) = (
        only(list_of(b, slot)),
        only(list_of(o, slot)),
        only(list_of(t, slot)),
    );
    if lo == lt && lo.len() == members.len() {
        return lo;
    }
    let (in_b, in_t): (HashSet<u64>, HashSet<u64>) =
        (lb.iter().copied().collect(), lt.iter().copied().collect());
    let common: HashSet<u64> = lo
        .iter()
        .copied()
        .filter(|x| in_b.contains(x) && in_t.contains(x))
        .collect();
    let seq =
        |l: &[u64]| -> Vec<u64> { l.iter().copied().filter(|x| common.contains(x)).collect() };
    let (sb, so, st) = (seq(&lb), seq(&lo), seq(&lt));
    // Entities both branches put in at one place: by name, whichever branch is this one.
    let rank = |id: &u64| (merged.get(id).map(|n| n.name.clone()), *id);
    let mut list = if so == sb {
        merged_order(&lt, &lo, rank)
    } else if st == sb || st == so {
        merged_order(&lo, &lt, rank)
    } else {
        let (place, what) = match slot {
            Slot::Root => (Place::Roots, "the order of `roots`".to_owned()),
            Slot::Child(q) => (
                Place::Field(*q, "children"),
                format!("entity {q}: the order of its children"),
            ),
            Slot::Placed(q, _) => (
                Place::Field(*q, "instance"),
                format!("entity {q}: the order of the entities an override places"),
            ),
        };
        p.clash(place, what);
        match p.side {
            Side::Ours => merged_order(&lo, &lt, rank),
            Side::Theirs => merged_order(&lt, &lo, rank),
        }
    };
    let listed: HashSet<u64> = list.iter().copied().collect();
    for m in members {
        if !listed.contains(m) {
            list.push(*m);
        }
    }
    list
}
