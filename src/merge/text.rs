//! The merged text: this branch's text with the merged document's changes made in place
//! (entities and header through the edit layer, tile layers here), the entries only the other
//! branch changed or added taken as the other branch wrote them (its comments and spelling),
//! and a marker after each conflict's value.

use std::ops::Range;

use super::pick::{Clash, Place};
use crate::edit::{Splice, Text, compact};
use crate::format::builtin::Payload;
use crate::format::marker::marker;
use crate::format::write::fragment;
use crate::format::{ComponentData, CustomPart, LayerPart, ParsedScene, SceneDoc, Span, TileLayer};

/// Reads `text` (no byte-order mark), or says why it does not read.
pub(crate) fn read(text: &str) -> Result<ParsedScene, String> {
    SceneDoc::from_str(text).map_err(|e| format!("the merged text does not read: {e}"))
}

/// `text` (read as `parsed`) changed where `new` differs: entities and header as the edit
/// layer changes them, tile layers here. With `keep_layers`, a `layers` field is written even
/// when `new` has none (a conflict marker goes after it).
pub(crate) fn rewrite(
    text: &str,
    parsed: &ParsedScene,
    new: &SceneDoc,
    keep_layers: bool,
) -> Result<String, String> {
    let spliced = crate::edit::spliced(text, &parsed.source_map, &parsed.doc, new)?;
    let missing = parsed.source_map.top_field_span("layers").is_none();
    if parsed.doc.layers == new.layers && !(keep_layers && missing) {
        return Ok(spliced);
    }
    let again = read(&spliced)?;
    layers(&spliced, &again, &new.layers, keep_layers)
}

/// `text` with its tile layers (read as `parsed`) changed to `new`.
fn layers(
    text: &str,
    parsed: &ParsedScene,
    new: &[TileLayer],
    keep: bool,
) -> Result<String, String> {
    let t = Text::new(text);
    let sm = &parsed.source_map;
    let old = &parsed.doc.layers;
    let mut out: Vec<Splice> = Vec::new();
    let entry = |id: u64| {
        sm.layer_part_span(id, LayerPart::Entry)
            .ok_or_else(|| format!("the entry of tile layer {id}"))
    };
    let Some(list) = sm.top_field_span("layers") else {
        if new.is_empty() && !keep {
            return Ok(text.to_owned());
        }
        // No `layers` field yet: one after the last top-level field.
        let last = ["format_version", "name", "entities", "roots", "next_id"]
            .iter()
            .filter_map(|f| sm.top_field_span(f))
            .max_by_key(|s| s.end)
            .ok_or("a document without fields")?;
        let indent = t.indent_of(last.start as usize).to_owned();
        let value = layers_value(&t, new, &indent);
        let field = format!("layers: {value}");
        out.push(t.insert_after_item(last.end as usize, format!(",{}{indent}{field}", t.nl())));
        return Ok(apply(text, out));
    };
    let kept: Vec<&TileLayer> = old
        .iter()
        .filter(|l| new.iter().any(|n| n.id == l.id))
        .collect();
    for l in old {
        let span = entry(l.id)?;
        let Some(now) = new.iter().find(|n| n.id == l.id) else {
            out.push(t.cut_item(span));
            continue;
        };
        if now == l {
            continue;
        }
        let rows_only = now.rows.len() == l.rows.len()
            && TileLayer {
                rows: l.rows.clone(),
                ..now.clone()
            } == *l;
        let rows: Option<Vec<Splice>> = rows_only
            .then(|| {
                now.rows
                    .iter()
                    .zip(&l.rows)
                    .enumerate()
                    .filter(|(_, (a, b))| a != b)
                    .map(|(r, (a, _))| {
                        let span = sm.layer_part_span(l.id, LayerPart::Row(r))?.range()?;
                        Some(Splice {
                            start: span.start,
                            end: span.end,
                            text: fragment::string(a),
                        })
                    })
                    .collect()
            })
            .flatten();
        match rows {
            Some(rows) => out.extend(rows),
            None => {
                let indent = t.indent_of(span.start as usize).to_owned();
                let multiline = t.spans_lines(span);
                let r = span.range().ok_or("a layer's entry")?;
                out.push(Splice {
                    start: r.start,
                    end: r.end,
                    text: t.fit(&fragment::layer(now), &indent, multiline),
                });
            }
        }
    }
    let added: Vec<&TileLayer> = new
        .iter()
        .filter(|n| !old.iter().any(|l| l.id == n.id))
        .collect();
    if !added.is_empty() {
        match kept.last() {
            Some(last) => {
                let span = entry(last.id)?;
                let indent = t.indent_of(span.start as usize).to_owned();
                let list_lines = t.spans_lines(list);
                let item_lines = t.spans_lines(span);
                let mut items = String::new();
                for l in &added {
                    items.push_str(&t.item_after(
                        &fragment::layer(l),
                        &indent,
                        list_lines,
                        item_lines,
                    ));
                }
                out.push(t.insert_after_item(span.end as usize, items));
            }
            None => {
                // Every old layer goes (or there was none): the whole list.
                out.retain(|s| {
                    !(s.text.is_empty()
                        && s.start >= list.start as usize
                        && s.end <= list.end as usize)
                });
                let indent = t.indent_of(list.start as usize).to_owned();
                let r = list.range().ok_or("the layers list")?;
                out.push(Splice {
                    start: r.start,
                    end: r.end,
                    text: layers_value(&t, new, &indent),
                });
            }
        }
    }
    out.sort_by_key(|s| (s.start, s.end));
    Ok(apply(text, out))
}

/// A `layers` list value, multi-line from the line indented by `indent`.
fn layers_value(t: &Text, layers: &[TileLayer], indent: &str) -> String {
    if layers.is_empty() {
        return "[]".to_owned();
    }
    let mut s = String::from("[");
    for l in layers {
        s.push('\n');
        for (n, line) in fragment::layer(l).split('\n').enumerate() {
            if n > 0 {
                s.push('\n');
            }
            s.push_str("  ");
            s.push_str(line);
        }
        s.push(',');
    }
    s.push_str("\n]");
    t.fit(&s, indent, true)
}

/// `text` with `splices` (sorted, not overlapping) made.
fn apply(text: &str, splices: Vec<Splice>) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for s in splices {
        if s.start < at {
            continue;
        }
        out.push_str(&text[at..s.start]);
        out.push_str(&s.text);
        at = s.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The comment lines right above the line of `start` (when `start` begins its line but for
/// indentation): their bytes, from the start of the first to the start of `start`'s line.
fn leading(text: &str, start: usize) -> Range<usize> {
    let b = text.as_bytes();
    let line = text[..start].rfind('\n').map_or(0, |n| n + 1);
    if !b[line..start].iter().all(|c| *c == b' ' || *c == b'\t') {
        return line..line;
    }
    let mut first = line;
    while first > 0 {
        let prev = text[..first - 1].rfind('\n').map_or(0, |n| n + 1);
        let content = &text[prev..first - 1];
        let comments = crate::format::tokens(content).all(|t| t.is_trivia());
        if comments && !content.trim().is_empty() {
            first = prev;
        } else {
            break;
        }
    }
    first..line
}

/// Entity `id`'s entry in `text` (read as `p`): where, and its bytes.
fn entry_text<'t>(text: &'t str, p: &ParsedScene, id: u64) -> Option<(Range<usize>, &'t str)> {
    let r = p.source_map.entity_span(id)?.range()?;
    Some((r.clone(), text.get(r)?))
}

/// Ids to ids (renumbered to as written).
pub(crate) type IdMap = bevy_platform::collections::HashMap<u64, u64>;

/// Bytes `.0...1` of a text replaced by `.2`.
pub(crate) type Edit = (usize, usize, String);

/// The three texts a merge starts from, with their reads.
pub(crate) struct Sources<'a> {
    pub(crate) base: (&'a str, &'a ParsedScene),
    pub(crate) ours: (&'a str, &'a ParsedScene),
    /// The other branch's text as it was, with its read, when its entries can be taken as it
    /// wrote them (its ids renumbered in place as `theirs_ids` says).
    pub(crate) theirs: Option<(&'a str, &'a ParsedScene)>,
    /// The other branch's document, ids renumbered.
    pub(crate) theirs_doc: &'a SceneDoc,
    /// Its renumbered ids (new to old), and the edits that renumber them in its text.
    pub(crate) theirs_ids: (&'a IdMap, &'a [Edit]),
}

/// Whether entity `id`'s entry is written the same in two reads (the hashes the reader keeps,
/// and the lengths).
fn same_entry(a: &ParsedScene, a_id: u64, b: &ParsedScene, b_id: u64) -> bool {
    match (
        a.source_map.entities.get(&a_id),
        b.source_map.entities.get(&b_id),
    ) {
        (Some(x), Some(y)) => {
            x.text_hash == y.text_hash && x.entry.end - x.entry.start == y.entry.end - y.entry.start
        }
        _ => false,
    }
}

/// `text` (read as `parsed`, which reads as the merged document) with each entity only the
/// other branch changed, or that only it has, as the other branch wrote it: its entry and the
/// comment lines above it.
pub(crate) fn theirs_as_written(text: &str, parsed: &ParsedScene, s: &Sources) -> String {
    fn leads(t: &str, at: usize) -> &str {
        &t[leading(t, at)]
    }
    let Some((theirs_text, theirs)) = s.theirs else {
        return text.to_owned();
    };
    let (base_text, base) = s.base;
    let (ours_text, ours) = s.ours;
    let (old_ids, renumbering) = s.theirs_ids;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for (id, node) in &parsed.doc.entities {
        let old = old_ids.get(id).copied().unwrap_or(*id);
        let (Some(tr), Some((cr, ct))) = (
            theirs.source_map.entity_span(old).and_then(|s| s.range()),
            entry_text(text, parsed, *id),
        ) else {
            continue;
        };
        let in_ours = ours.source_map.entity_span(*id).and_then(|s| s.range());
        let in_base = base.source_map.entity_span(*id).and_then(|s| s.range());
        // The comment lines above the entry, when the other branch wrote them (not ones that
        // were in the base text, such as those left above it by an entry it deleted) and this
        // branch left the entry's own as they were.
        let lead_t = leads(theirs_text, tr.start);
        let cur_lead = leading(text, cr.start);
        let lead_c = &text[cur_lead.clone()];
        let kept = lead_t != lead_c
            && match (&in_ours, &in_base) {
                (Some(or), Some(br)) => {
                    let lead_o = leads(ours_text, or.start);
                    lead_o == leads(base_text, br.start) && lead_c == lead_o
                }
                (None, _) => lead_c.is_empty(),
                _ => false,
            };
        // Searched last: only where the other branch's lines differ.
        if kept && !lead_t.is_empty() && !base_text.contains(lead_t) {
            edits.push((cur_lead.start, cur_lead.end, lead_t.to_owned()));
        }
        // The entry itself, when the merge took it whole from the other branch: one only the
        // other branch has, or one this branch did not touch (its text the base's), that the
        // other branch wrote otherwise than it is now.
        let untouched = match (&in_ours, &in_base) {
            (None, _) => true,
            (Some(_), Some(_)) => same_entry(ours, *id, base, *id),
            _ => false,
        };
        if !untouched
            || (old == *id && same_entry(theirs, old, parsed, *id))
            || !s
                .theirs_doc
                .entities
                .get(id)
                .is_some_and(|tn| super::pick::same(Some(node), Some(tn)))
        {
            continue;
        }
        let written = super::renumber::edited(theirs_text, tr, renumbering);
        if written != ct {
            edits.push((cr.start, cr.end, written));
        }
    }
    if edits.is_empty() {
        return text.to_owned();
    }
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for (start, end, new) in edits {
        if start < at {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&new);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// Where a conflict's marker goes in the merged text and what it says.
struct Mark {
    /// The value the marker follows (its start, for nesting; the marker goes at its end).
    value: Range<usize>,
    note: String,
    /// The conflicts it records, in words.
    whats: Vec<String>,
    /// Whether taking the other branch's side replaces the value, and so the markers inside it
    /// (a `theirs = ..` marker): the markers inside are in this one.
    swallows: bool,
}

/// `text` (read as `parsed`, the merged document) with a marker after each conflict's value,
/// recording the other branch's (from `theirs`, the merge that takes the other branch's side
/// of every conflict). A conflict inside another's value is in that marker. Returns the text
/// and, for each marker, its offset and the conflicts it records.
pub(crate) fn mark(
    text: &str,
    parsed: &ParsedScene,
    theirs: &SceneDoc,
    clashes: &[Clash],
) -> (String, Vec<(usize, Vec<String>)>) {
    let mut marks: Vec<Mark> = Vec::new();
    for clash in clashes {
        let mut place = Some(clash.place.clone());
        while let Some(p) = place {
            if let Some(mut m) = locate(text, parsed, theirs, &p) {
                m.whats.push(clash.what.clone());
                marks.push(m);
                break;
            }
            place = p.parent();
        }
    }
    // One marker per value, none inside another's value.
    marks.sort_by(|a, b| {
        (a.value.start, std::cmp::Reverse(a.value.end))
            .cmp(&(b.value.start, std::cmp::Reverse(b.value.end)))
    });
    let mut kept: Vec<Mark> = Vec::new();
    for m in marks {
        let holder = kept.iter_mut().find(|k| {
            (k.swallows && k.value.start <= m.value.start && m.value.end <= k.value.end)
                || (k.value == m.value && k.note == m.note)
        });
        match holder {
            Some(k) => k.whats.extend(m.whats),
            None => kept.push(m),
        }
    }
    kept.sort_by_key(|m| m.value.end);
    let mut out = String::with_capacity(text.len() + kept.len() * 48);
    let mut at = 0;
    let mut placed = Vec::with_capacity(kept.len());
    for m in kept {
        out.push_str(&text[at..m.value.end]);
        out.push(' ');
        placed.push((out.len(), m.whats));
        out.push_str(&marker(&m.note));
        at = m.value.end;
    }
    out.push_str(&text[at..]);
    (out, placed)
}

/// The marker of a conflict at `place`: after its value in `text`, with the other branch's
/// value from `theirs`; `None` when the text does not write that value on its own, or the other
/// branch has no such value (the caller tries the value that holds it).
fn locate(text: &str, parsed: &ParsedScene, theirs: &SceneDoc, place: &Place) -> Option<Mark> {
    let sm = &parsed.source_map;
    let doc = &parsed.doc;
    let value = |span: Option<Span>, v: String| -> Option<Mark> {
        Some(Mark {
            value: span?.range()?,
            note: format!("theirs = {}", compact(&v)),
            whats: Vec::new(),
            swallows: true,
        })
    };
    let component = |d: &SceneDoc, id: u64, key: &str| -> Option<(usize, ComponentData)> {
        let n = d.entity(id)?;
        let i = n.components.iter().position(|c| c.has_key(key))?;
        Some((i, n.components[i].clone()))
    };
    match place {
        Place::Name => value(sm.top_field_span("name"), fragment::string(&theirs.name)),
        Place::Roots => value(sm.top_field_span("roots"), fragment::ids(&theirs.roots)),
        Place::Layers => {
            let mut v = String::from("[");
            for (n, l) in theirs.layers.iter().enumerate() {
                if n > 0 {
                    v.push_str(", ");
                }
                v.push_str(&compact(&fragment::layer(l)));
            }
            v.push(']');
            value(sm.top_field_span("layers"), v)
        }
        Place::Entity(id) => {
            let node = theirs.entity(*id)?;
            let entry = sm.entity_span(*id)?.range()?;
            let open = text[entry.clone()].find('(')? + entry.start;
            let written = fragment::entity(node, *id);
            let v = &written[written.find('(')?..];
            value(Some(Span::new(open as u32, entry.end as u32)), v.to_owned())
        }
        Place::Field(id, field) => {
            let node = theirs.entity(*id)?;
            let v = match field.strip_prefix("transform.") {
                Some("translation") => fragment::vec3(node.transform.translation),
                Some("rotation") => fragment::vec3(node.transform.rotation),
                Some("scale") => fragment::vec3(node.transform.scale),
                Some(_) => return None,
                None => fragment::entity_field(node, field),
            };
            value(sm.entity_field_span(*id, field), v)
        }
        Place::Component(id, key) => {
            let (i, _) = component(doc, *id, key)?;
            let (_, c) = component(theirs, *id, key)?;
            value(sm.component_span(*id, i), fragment::component(&c))
        }
        Place::Payload(id, key, path) => {
            let (i, _) = component(doc, *id, key)?;
            let (_, c) = component(theirs, *id, key)?;
            let b = c.builtin()?;
            if !matches!(b.payload, Payload::Fields(_)) {
                return None;
            }
            let f = b.fields().iter().position(|f| f.path == *path)?;
            let v = fragment::builtin_value((b.get)(&c, f)?);
            value(sm.component_field_span(*id, i, path), v)
        }
        Place::Expr(id, key, name) => {
            let (i, ComponentData::Custom(ours)) = component(doc, *id, key)? else {
                return None;
            };
            let (_, ComponentData::Custom(c)) = component(theirs, *id, key)? else {
                return None;
            };
            let f = ours.fields.iter().position(|f| f.name == *name)?;
            let e = c.fields.iter().find(|f| f.name == *name)?;
            value(
                sm.custom_field_span(*id, i, f, CustomPart::Expr),
                fragment::string(&e.expr),
            )
        }
        Place::Value(id, key) => {
            let (i, _) = component(doc, *id, key)?;
            let (_, ComponentData::Custom(c)) = component(theirs, *id, key)? else {
                return None;
            };
            value(
                sm.component_field_span(*id, i, "value"),
                fragment::string(c.value.as_deref()?),
            )
        }
        Place::Layer(id) => {
            let l = theirs.layer(*id)?;
            value(
                sm.layer_part_span(*id, LayerPart::Entry),
                fragment::layer(l),
            )
        }
        Place::Cell(id, i, j) => {
            let (ours, l) = (doc.layer(*id)?, theirs.layer(*id)?);
            let (row, _) = ours.row_of(*i, *j)?;
            if l.rows.len() != ours.rows.len() || l.start != ours.start {
                return None;
            }
            value(
                sm.layer_part_span(*id, LayerPart::Row(row)),
                fragment::string(l.rows.get(row)?),
            )
        }
        Place::Removed(id) => Some(Mark {
            value: sm.entity_span(*id)?.range()?,
            note: "theirs removes this".to_owned(),
            whats: Vec::new(),
            swallows: false,
        }),
        Place::Kept(id) => {
            let members: Vec<String> = theirs
                .subtree(*id)
                .into_iter()
                .filter(|m| doc.entity(*m).is_none())
                .filter_map(|m| Some(compact(&fragment::entity(theirs.entity(m)?, m))))
                .collect();
            if members.is_empty() {
                return None;
            }
            // After the last entry (and its comma), or inside an empty map.
            let at = match doc
                .entities
                .keys()
                .filter_map(|k| sm.entity_span(*k))
                .max_by_key(|s| s.end)
            {
                Some(last) => {
                    let end = last.end as usize;
                    let after = crate::format::lexical::skip_trivia(text.as_bytes(), end);
                    if text.as_bytes().get(after) == Some(&b',') {
                        after + 1
                    } else {
                        end
                    }
                }
                None => sm.top_field_span("entities")?.start as usize + 1,
            };
            Some(Mark {
                value: at..at,
                note: format!("theirs keeps {}", members.join(", ")),
                whats: Vec::new(),
                swallows: false,
            })
        }
    }
}
