//! An entity's `instance` changed in place: its `scene` or `model` string, its `streaming`, and
//! its overrides one by one, each field of an override with the same splices an entity entry
//! gets (a name's string, a transform's numbers, a `set` entry's custom `expr` strings and
//! built-in payload values, components added after the last); an override or a field the
//! instance did not write is added after the one before it, one taken away is cut with its
//! comma. Only where the text's layout is not one this follows is the whole `instance` value
//! written again.

use super::component::component;
use super::{Out, Splice, Text, Unlocated, transform_parts};
use crate::format::source_map::{InstanceSpans, OVERRIDE_FIELDS, OverrideSpans, Span};
use crate::format::write::fragment;
use crate::format::{ComponentData, ComponentPatch, EntityNode, Instance, Override, SourceMap};

/// The splices of entity `old`'s `instance` changed to `new`'s.
pub(super) fn instance(
    t: &Text,
    map: &SourceMap,
    old: &EntityNode,
    new: &EntityNode,
    out: &mut Vec<Splice>,
) -> Out<()> {
    let id = old.id;
    let whole = |out: &mut Vec<Splice>| -> Out<()> {
        out.push(t.replace_value(
            map.entity_field_span(id, "instance"),
            &fragment::entity_field(new, "instance"),
            &format!("entity {id}: instance"),
        )?);
        Ok(())
    };
    let (Some(a), Some(b), Some(spans)) = (
        old.instance.as_deref(),
        new.instance.as_deref(),
        map.instance_spans(id),
    ) else {
        return whole(out);
    };
    let mut found = Vec::new();
    match in_place(t, map, spans, a, b, &mut found) {
        Ok(()) => {
            out.extend(found);
            Ok(())
        }
        // A layout this does not follow: the whole value, written again.
        Err(_) => whole(out),
    }
}

/// `span` when it is in the text.
fn located(span: Span) -> Option<Span> {
    span.is_some().then_some(span)
}

fn in_place(
    t: &Text,
    map: &SourceMap,
    spans: &InstanceSpans,
    a: &Instance,
    b: &Instance,
    out: &mut Vec<Splice>,
) -> Out<()> {
    if a.model.is_some() != b.model.is_some() {
        return Err(Unlocated("an instance that changed kind".to_owned()));
    }
    let placed = |i: &Instance| i.model.clone().unwrap_or_else(|| i.scene.clone());
    if placed(a) != placed(b) {
        out.push(t.replace_value(
            located(spans.scene),
            &fragment::string(&placed(b)),
            "an instance's scene",
        )?);
    }
    if a.streaming != b.streaming {
        let value = fragment::streaming(b);
        match (b.streaming, located(spans.streaming[0])) {
            (Some(_), Some(span)) => out.push(t.replace_value(Some(span), &value, "streaming")?),
            (None, Some(span)) => out.push(t.cut_field(span)?),
            (Some(_), None) => {
                // After `overrides` when written, else after the scene.
                let after = located(spans.list).or(located(spans.scene));
                out.push(insert_after(t, after, "streaming", &value)?);
            }
            (None, None) => {}
        }
    }
    overrides(t, map, spans, &a.overrides, &b.overrides, out)
}

/// Whether two overrides are the same as written (a NaN is not equal to itself).
fn same_override(a: &Override, b: &Override) -> bool {
    a == b || fragment::override_entry(a) == fragment::override_entry(b)
}

/// The field `field: value` added after the value at `after` (the field before it in the
/// writer's order), on a line of its own when that one is.
fn insert_after(t: &Text, after: Option<Span>, field: &str, value: &str) -> Out<Splice> {
    let after = after.ok_or_else(|| Unlocated(format!("where `{field}` goes")))?;
    let line = format!("{field}: {value}");
    let text = if super::component::field_alone(t, after) {
        let indent = t.indent_of(after.start as usize).to_owned();
        format!(",{}{indent}{}", t.nl, t.fit(&line, &indent, true))
    } else {
        format!(", {}", super::compact(&line))
    };
    Ok(t.insert_after_item(after.end as usize, text))
}

/// The splices of an instance's overrides list from `a` to `b`: each override that kept its
/// place and target changed in place, new ones after the last, one taken away cut; else the
/// list written again.
fn overrides(
    t: &Text,
    map: &SourceMap,
    spans: &InstanceSpans,
    a: &[Override],
    b: &[Override],
    out: &mut Vec<Splice>,
) -> Out<()> {
    if a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_override(x, y)) {
        return Ok(());
    }
    let rows = &spans.overrides;
    if rows.len() != a.len() {
        return Err(Unlocated("an instance's overrides".to_owned()));
    }
    let key = |o: &Override| (o.target.clone(), o.node.clone());
    if b.len() >= a.len() && a.iter().zip(b).all(|(x, y)| key(x) == key(y)) {
        for (row, (x, y)) in rows.iter().zip(a.iter().zip(b)) {
            if !same_override(x, y) {
                override_entry(t, map, row, x, y, out)?;
            }
        }
        let added: Vec<String> = b[a.len()..].iter().map(fragment::override_entry).collect();
        if added.is_empty() {
            return Ok(());
        }
        return match (rows.last(), located(spans.list)) {
            (Some(last), list) => {
                out.push(t.append_after(list, last.entry, &added));
                Ok(())
            }
            // `overrides: []`, or a list holding only comments.
            (None, Some(list)) => {
                let value = fragment::overrides(b);
                out.push(match t.fill_empty(Some(list), &added) {
                    Some(fill) => fill,
                    None => t.replace_value(Some(list), &value, "overrides")?,
                });
                Ok(())
            }
            // No `overrides` written: after the scene.
            (None, None) => {
                let value = fragment::overrides(b);
                out.push(insert_after(t, located(spans.scene), "overrides", &value)?);
                Ok(())
            }
        };
    }
    // One override taken away.
    if b.len() + 1 == a.len()
        && let Some(k) =
            (0..a.len()).find(|&k| same_list(&a[..k], &b[..k]) && same_list(&a[k + 1..], &b[k..]))
    {
        out.push(t.cut_item(rows[k].entry));
        return Ok(());
    }
    out.push(t.replace_value(located(spans.list), &fragment::overrides(b), "overrides")?);
    Ok(())
}

fn same_list(a: &[Override], b: &[Override]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_override(x, y))
}

/// The splices of one override, written at `row`, changed from `a` to `b` (the same target).
fn override_entry(
    t: &Text,
    map: &SourceMap,
    row: &OverrideSpans,
    a: &Override,
    b: &Override,
    out: &mut Vec<Splice>,
) -> Out<()> {
    for (i, field) in OVERRIDE_FIELDS.iter().enumerate() {
        let written = located(row.fields[i]);
        let was = fragment::override_field(a, field);
        let now = fragment::override_field(b, field);
        if was == now {
            continue;
        }
        // The field written before it, where a new one goes.
        let before = row.fields[..i].iter().rev().copied().find_map(located);
        let unset = matches!(now.as_str(), "None" | "[]");
        match (*field, written) {
            (_, None) if unset => {}
            (_, None) => out.push(insert_after(t, before, field, &now)?),
            // The writer leaves out what sets nothing: so does the edit.
            (_, Some(span)) if unset && *field != "target" => out.push(t.cut_field(span)?),
            ("transform", Some(span)) => match (&a.transform, &b.transform) {
                (Some(x), Some(y)) => {
                    transform_parts(t, Some(&row.transform), x, y, (Some(span), &now), out)?
                }
                _ => out.push(t.replace_value(Some(span), &now, "an override's transform")?),
            },
            ("set", Some(span)) => patches(t, map, row, span, &a.set, &b.set, out)?,
            ("add", Some(span)) => added(t, map, row, span, &a.add, &b.add, out)?,
            (_, Some(span)) => out.push(t.replace_value(Some(span), &now, field)?),
        }
    }
    Ok(())
}

/// The splices of an override's `set` list written at `list`: each entry that kept its key
/// changed in place, new ones after the last; else the list written again.
fn patches(
    t: &Text,
    map: &SourceMap,
    row: &OverrideSpans,
    list: Span,
    a: &[ComponentPatch],
    b: &[ComponentPatch],
    out: &mut Vec<Splice>,
) -> Out<()> {
    let rows = map.component_rows(row.set);
    let keyed = rows.len() == a.len()
        && !a.is_empty()
        && b.len() >= a.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.component.same_key(&y.component));
    if !keyed {
        let value = fragment::override_field(
            &Override {
                set: b.to_vec(),
                ..Override::default()
            },
            "set",
        );
        out.push(t.replace_value(Some(list), &value, "an override's set")?);
        return Ok(());
    }
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        if x != y && fragment::patch(x) != fragment::patch(y) {
            component(
                t,
                map,
                rows.get(k),
                &x.component,
                &y.component,
                Some((x, y)),
                out,
            )?;
        }
    }
    if let Some(last) = rows.last()
        && b.len() > a.len()
    {
        let items: Vec<String> = b[a.len()..].iter().map(fragment::patch).collect();
        out.push(t.append_after(Some(list), last.entry, &items));
    }
    Ok(())
}

/// The splices of an override's `add` list written at `list`, as an entity's components.
fn added(
    t: &Text,
    map: &SourceMap,
    row: &OverrideSpans,
    list: Span,
    a: &[ComponentData],
    b: &[ComponentData],
    out: &mut Vec<Splice>,
) -> Out<()> {
    let rows = map.component_rows(row.add);
    let keyed = rows.len() == a.len()
        && !a.is_empty()
        && b.len() >= a.len()
        && a.iter().zip(b).all(|(x, y)| x.same_key(y));
    if !keyed {
        let value = fragment::override_field(
            &Override {
                add: b.to_vec(),
                ..Override::default()
            },
            "add",
        );
        out.push(t.replace_value(Some(list), &value, "an override's add")?);
        return Ok(());
    }
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        if !super::same_component(x, y) {
            component(t, map, rows.get(k), x, y, None, out)?;
        }
    }
    if let Some(last) = rows.last()
        && b.len() > a.len()
    {
        let items: Vec<String> = b[a.len()..].iter().map(fragment::component).collect();
        out.push(t.append_after(Some(list), last.entry, &items));
    }
    Ok(())
}
