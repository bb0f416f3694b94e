//! Ids both branches gave to different new entities (or tile layers): the other branch's are
//! renumbered above both branches' `next_id`, in its file order, and every mention in its text
//! is rewritten (entity keys and `id`s, `parent`, `children`, `roots`, overrides' `children`,
//! layer ids and parents, and `#id` / `#id/..` references in custom values, overrides'
//! included) before the branches are merged.

use bevy_platform::collections::{HashMap, HashSet};

use super::pick::same;
use crate::format::write::fragment;
use crate::format::{
    ComponentData, CustomPart, EcoString, LayerPart, OverridePart, ParsedScene, SceneDoc, Span,
    TokenKind, tokens,
};
use crate::schema::expr::entity_references;

/// Every id of `doc`: its entities' and its tile layers'.
fn ids(doc: &SceneDoc) -> impl Iterator<Item = u64> + '_ {
    doc.entities
        .keys()
        .copied()
        .chain(doc.layers.iter().map(|l| l.id))
}

/// The other branch's new ids that this branch also gave to something new and different, each
/// with its new id, in the other branch's file order.
pub(crate) fn collisions(b: &SceneDoc, o: &SceneDoc, t: &SceneDoc) -> Vec<(u64, u64)> {
    let old: HashSet<u64> = ids(b).collect();
    let ours: HashSet<u64> = ids(o).filter(|id| !old.contains(id)).collect();
    let clashing: Vec<u64> = ids(t)
        .filter(|id| ours.contains(id))
        .filter(|id| {
            let entity =
                same(o.entities.get(id), t.entities.get(id)) && o.entities.contains_key(id);
            let layer = same(o.layer(*id), t.layer(*id)) && o.layer(*id).is_some();
            !(entity || layer)
        })
        .collect();
    if clashing.is_empty() {
        return Vec::new();
    }
    let top = ids(o)
        .chain(ids(t))
        .max()
        .map_or(0, |m| m.saturating_add(1));
    let mut next = o.next_id.max(t.next_id).max(top);
    clashing
        .into_iter()
        .map(|id| {
            let new = next;
            next = next.saturating_add(1);
            (id, new)
        })
        .collect()
}

/// `expr` with each reference whose first id `map` renumbers rewritten; `None` when none is.
fn references(expr: &str, map: &HashMap<u64, u64>) -> Option<String> {
    if !expr.contains('#') {
        return None;
    }
    let mut out = String::with_capacity(expr.len() + 8);
    let mut from = 0;
    for r in entity_references(expr) {
        let Some(new) = r.path.as_ref().and_then(|p| map.get(p.first()?)) else {
            continue;
        };
        // `#` then the first id's digits.
        let digits = expr[r.range.start + 1..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        out.push_str(&expr[from..=r.range.start]);
        out.push_str(&new.to_string());
        from = r.range.start + 1 + digits;
    }
    (from > 0).then(|| {
        out.push_str(&expr[from..]);
        out
    })
}

/// A component with its references renumbered (custom values only).
fn component(c: &ComponentData, map: &HashMap<u64, u64>) -> Option<ComponentData> {
    let ComponentData::Custom(custom) = c else {
        return None;
    };
    let mut out = custom.clone();
    let mut changed = false;
    for f in &mut out.fields {
        if let Some(e) = references(&f.expr, map) {
            f.expr = EcoString::from(e);
            changed = true;
        }
    }
    if let Some(e) = out.value.as_deref().and_then(|v| references(v, map)) {
        out.value = Some(EcoString::from(e));
        changed = true;
    }
    changed.then_some(ComponentData::Custom(out))
}

/// `doc` with ids renumbered as `map` says, and the entities that changed (by their new ids).
pub(crate) fn renumbered(doc: &SceneDoc, map: &HashMap<u64, u64>) -> (SceneDoc, HashSet<u64>) {
    let m = |id: u64| map.get(&id).copied().unwrap_or(id);
    let mut out = doc.clone();
    // Only the entities that mention a renumbered id are copied.
    let mentions = |n: &crate::format::EntityNode| {
        map.contains_key(&n.id)
            || n.parent.is_some_and(|p| map.contains_key(&p))
            || n.children.iter().any(|c| map.contains_key(c))
            || n.instance.is_some()
            || n.components.iter().any(|c| component(c, map).is_some())
    };
    let mut changed = HashSet::default();
    out.entities = doc
        .entities
        .iter()
        .map(|(id, node)| {
            if !mentions(node) {
                return (*id, node.clone());
            }
            changed.insert(map.get(id).copied().unwrap_or(*id));
            let mut n = (**node).clone();
            n.id = m(n.id);
            n.parent = n.parent.map(m);
            n.children.iter_mut().for_each(|c| *c = m(*c));
            for c in &mut n.components {
                if let Some(new) = component(c, map) {
                    *c = new;
                }
            }
            if let Some(i) = n.instance.as_deref_mut() {
                for o in &mut i.overrides {
                    o.children.iter_mut().for_each(|c| *c = m(*c));
                    renumber_override(o, map);
                }
            }
            (m(*id), std::sync::Arc::new(n))
        })
        .collect();
    out.roots.iter_mut().for_each(|r| *r = m(*r));
    for l in &mut out.layers {
        l.id = m(l.id);
        l.parent = l.parent.map(m);
        for o in &mut l.overrides {
            renumber_override(o, map);
        }
    }
    (out, changed)
}

fn renumber_override(o: &mut crate::format::Override, map: &HashMap<u64, u64>) {
    for p in &mut o.set {
        if let Some(new) = component(&p.component, map) {
            p.component = new;
        }
    }
    for a in &mut o.add {
        if let Some(new) = component(a, map) {
            *a = new;
        }
    }
}

/// The edits that renumber the ids of `map` in `text` (read as `parsed`) in place, so what the
/// author wrote around them stays: each `(start, end, new text)`, sorted, not overlapping;
/// `None` when a mention is where this does not rewrite in place (an override's `add` or a
/// tile layer's override holding a reference), and the caller gives up the other branch's
/// spelling.
pub(crate) fn edits(
    text: &str,
    parsed: &ParsedScene,
    map: &HashMap<u64, u64>,
) -> Option<Vec<(usize, usize, String)>> {
    let doc = &parsed.doc;
    let sm = &parsed.source_map;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    // The numbers of a span that `map` renumbers.
    let numbers = |span: Option<Span>, edits: &mut Vec<(usize, usize, String)>| {
        let Some(r) = span.and_then(Span::range) else {
            return;
        };
        let piece = &text[r.clone()];
        for t in tokens(piece).filter(|t| t.kind == TokenKind::Number) {
            if let Some(new) = piece[t.range.clone()]
                .parse::<u64>()
                .ok()
                .and_then(|n| map.get(&n))
            {
                edits.push((
                    r.start + t.range.start,
                    r.start + t.range.end,
                    new.to_string(),
                ));
            }
        }
    };
    let string =
        |span: Option<Span>, value: &str, edits: &mut Vec<(usize, usize, String)>| match span
            .and_then(Span::range)
        {
            Some(r) => {
                edits.push((r.start, r.end, fragment::string(value)));
                true
            }
            None => false,
        };
    numbers(sm.top_field_span("roots"), &mut edits);
    for (id, node) in &doc.entities {
        let entry = sm.entity_span(*id)?;
        if map.contains_key(id) {
            // The key.
            let start = entry.start as usize;
            let len = text[start..].bytes().take_while(u8::is_ascii_digit).count();
            numbers(
                Some(Span::new(entry.start, (start + len) as u32)),
                &mut edits,
            );
            numbers(sm.entity_field_span(*id, "id"), &mut edits);
        }
        if node.parent.is_some_and(|p| map.contains_key(&p)) {
            numbers(sm.entity_field_span(*id, "parent"), &mut edits);
        }
        if node.children.iter().any(|c| map.contains_key(c)) {
            numbers(sm.entity_field_span(*id, "children"), &mut edits);
        }
        for (k, c) in node.components.iter().enumerate() {
            let ComponentData::Custom(custom) = c else {
                continue;
            };
            for (f, field) in custom.fields.iter().enumerate() {
                if let Some(e) = references(&field.expr, map) {
                    let span = sm.custom_field_span(*id, k, f, CustomPart::Expr);
                    if !string(span, &e, &mut edits) {
                        return None;
                    }
                }
            }
            if let Some(e) = custom.value.as_deref().and_then(|v| references(v, map))
                && !string(sm.component_field_span(*id, k, "value"), &e, &mut edits)
            {
                return None;
            }
        }
        let Some(instance) = node.instance.as_deref() else {
            continue;
        };
        for (i, o) in instance.overrides.iter().enumerate() {
            numbers(
                sm.override_part_span(*id, i, OverridePart::Field("children")),
                &mut edits,
            );
            if o.add.iter().any(|a| component(a, map).is_some()) {
                return None;
            }
            for (s, patch) in o.set.iter().enumerate() {
                let ComponentData::Custom(custom) = &patch.component else {
                    continue;
                };
                for (f, field) in custom.fields.iter().enumerate() {
                    if let Some(e) = references(&field.expr, map) {
                        let span = sm.override_part_span(*id, i, OverridePart::SetCustomExpr(s, f));
                        if !string(span, &e, &mut edits) {
                            return None;
                        }
                    }
                }
                if custom
                    .value
                    .as_deref()
                    .and_then(|v| references(v, map))
                    .is_some()
                {
                    return None;
                }
            }
        }
    }
    for l in &doc.layers {
        numbers(sm.layer_part_span(l.id, LayerPart::Field("id")), &mut edits);
        numbers(
            sm.layer_part_span(l.id, LayerPart::Field("parent")),
            &mut edits,
        );
        let refers = l.overrides.iter().any(|o| {
            o.set.iter().any(|p| component(&p.component, map).is_some())
                || o.add.iter().any(|a| component(a, map).is_some())
        });
        if refers {
            return None;
        }
    }
    edits.sort_by_key(|e| e.0);
    let overlap = edits.windows(2).any(|w| w[1].0 < w[0].1);
    (!overlap).then_some(edits)
}

/// `text[range]` with the `edits` (sorted, from [`edits`]) inside it made.
pub(crate) fn edited(
    text: &str,
    range: std::ops::Range<usize>,
    edits: &[(usize, usize, String)],
) -> String {
    let from = edits.partition_point(|e| e.0 < range.start);
    let mut out = String::with_capacity(range.len() + 16);
    let mut at = range.start;
    for (start, end, new) in edits[from..].iter().take_while(|e| e.1 <= range.end) {
        out.push_str(&text[at..*start]);
        out.push_str(new);
        at = *end;
    }
    out.push_str(&text[at..range.end]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_keep_their_path_below_the_renumbered_id() {
        let map: HashMap<u64, u64> = [(3, 10)].into_iter().collect();
        assert_eq!(
            references("vec![#3, #30, #3/2, \"#3\"]", &map).as_deref(),
            Some("vec![#10, #30, #10/2, \"#3\"]")
        );
        assert_eq!(references("#4", &map), None);
    }
}
