//! One component entry that kept its key, changed in place: an entity's component or an
//! override's `set` entry (a patch, which writes only the payload fields it sets). The same
//! splices either way: a custom field's `expr` string, new custom fields after the last, a
//! built-in's changed payload values, new payload fields of a patch after the one before them.

use super::{Out, Splice, Text};
use crate::format::builtin::{BuiltinTag, Payload, ValueRef};
use crate::format::source_map::{ComponentSpans, CustomPart, Span};
use crate::format::write::fragment;
use crate::format::{ComponentData, ComponentPatch, SourceMap};

/// The payload fields a patch sets, before and after (`None` for a component entry, which
/// writes them all).
pub(super) type Patched<'a> = Option<(&'a ComponentPatch, &'a ComponentPatch)>;

/// The splices that change the component written at `row` from `old` to `new` (the same key):
/// its changed `expr` strings when only custom field expressions changed (and new fields
/// after the last), its changed payload values for a built-in, else its `data`, else the whole
/// entry. `patch` gives an override's `set` entries before and after.
pub(super) fn component(
    t: &Text,
    map: &SourceMap,
    row: Option<&ComponentSpans>,
    old: &ComponentData,
    new: &ComponentData,
    patch: Patched<'_>,
    out: &mut Vec<Splice>,
) -> Out<()> {
    let whole = || match patch {
        Some((_, p)) => fragment::patch(p),
        None => fragment::component(new),
    };
    let Some(row) = row else {
        return Err(super::Unlocated("a component".to_owned()));
    };
    if let (ComponentData::Custom(_), ComponentData::Custom(_)) = (old, new)
        && let Some(found) = custom(t, map, row, old, new)
    {
        out.extend(found);
        return Ok(());
    }
    // A built-in: only its payload values that changed, where the file's map locates them
    // (`illuminance`, `material.metallic`, the `value` of a mesh), else its `data`, else the
    // whole entry.
    if old.tag() == new.tag()
        && let Some(b) = new.builtin()
    {
        let written = map.payload_of(row);
        let located = |field: &str| {
            written
                .iter()
                .find(|(name, _)| *name == field)
                .map(|(_, span)| *span)
                .filter(|s| s.is_some())
        };
        let found = match patch {
            None => builtin_splices(t, b, old, new, &located, &|_| true),
            Some((was, now)) => patch_splices(t, b, was, now, written, &located),
        };
        match found {
            Some(found) => {
                out.extend(found);
                return Ok(());
            }
            None => {
                let data = match patch {
                    Some((_, p)) => fragment::patch_data(p),
                    None => fragment::data(new),
                };
                let at = Some(row.data).filter(|s| s.is_some());
                if let Ok(data) = t.replace_value(at, &data, "data") {
                    out.push(data);
                    return Ok(());
                }
            }
        }
    }
    let entry = Some(row.entry).filter(|s| s.is_some());
    out.push(t.replace_value(entry, &whole(), "a component")?);
    Ok(())
}

/// A custom component's changed `expr` strings and new fields after the last (or an enum's
/// changed `value` string); `None` when more changed than that.
fn custom(
    t: &Text,
    map: &SourceMap,
    row: &ComponentSpans,
    old: &ComponentData,
    new: &ComponentData,
) -> Option<Vec<Splice>> {
    let (ComponentData::Custom(a), ComponentData::Custom(b)) = (old, new) else {
        return None;
    };
    if a.type_path != b.type_path {
        return None;
    }
    let mut out = Vec::new();
    // An enum's whole value that changed: its string only.
    if a.fields == b.fields
        && let (Some(_), Some(value)) = (&a.value, &b.value)
    {
        let span = map
            .payload_of(row)
            .iter()
            .find(|(name, _)| *name == "value")
            .map(|(_, s)| *s)?;
        out.push(
            t.replace_value(Some(span), &fragment::string(value), "an enum's value")
                .ok()?,
        );
        return Some(out);
    }
    let written = map.custom_of(row);
    let kept = a.fields.len();
    let same_names = a.value == b.value
        && kept > 0
        && b.fields.len() >= kept
        && written.len() == kept
        && a.fields
            .iter()
            .zip(&b.fields)
            .all(|(x, y)| x.name == y.name);
    let part =
        |f: usize, part: CustomPart| Some(written.get(f)?[part as usize]).filter(|s| s.is_some());
    let located = (0..kept)
        .all(|f| part(f, CustomPart::Entry).is_some() && part(f, CustomPart::Expr).is_some());
    if !same_names || !located {
        return None;
    }
    let (first, last) = (
        part(0, CustomPart::Entry)?,
        part(kept - 1, CustomPart::Entry)?,
    );
    for (f, (x, y)) in a.fields.iter().zip(&b.fields).enumerate() {
        if x.expr != y.expr {
            out.push(
                t.replace_value(
                    part(f, CustomPart::Expr),
                    &fragment::string(&y.expr),
                    "a field expression",
                )
                .ok()?,
            );
        }
    }
    if b.fields.len() > kept {
        // New fields after the last, laid out as it is.
        let end = last.end as usize;
        let list_lines = t.spans_lines(Span::new(first.start, last.start))
            || t.spans_lines(Span::new(row.entry.start, first.start));
        let item_lines = t.spans_lines(last);
        let indent = t.indent_of(last.start as usize).to_owned();
        let mut text = String::new();
        for f in &b.fields[kept..] {
            let item = format!(
                "(\n  name: {},\n  expr: {},\n)",
                fragment::string(&f.name),
                fragment::string(&f.expr)
            );
            text.push_str(&t.item_after(&item, &indent, list_lines, item_lines));
        }
        out.push(t.insert_after_item(end, text));
    }
    Some(out)
}

/// The splices that change a built-in's payload from `old`'s values to `new`'s, walking its
/// tag's fields that `want` keeps; `None` when a changed value is not located (not written, or
/// a mode).
fn builtin_splices(
    t: &Text,
    b: &BuiltinTag,
    old: &ComponentData,
    new: &ComponentData,
    located: &dyn Fn(&str) -> Option<Span>,
    want: &dyn Fn(&str) -> bool,
) -> Option<Vec<Splice>> {
    if let Payload::Mode(_) = b.payload {
        return match ((b.get)(old, 0), (b.get)(new, 0)) {
            (Some(x), Some(y)) if x.same(&y) => Some(Vec::new()),
            _ => None,
        };
    }
    let mut out = Vec::new();
    for (i, f) in b.fields().iter().enumerate() {
        if !want(f.path) {
            continue;
        }
        let (Some(was), Some(now)) = ((b.get)(old, i), (b.get)(new, i)) else {
            return None;
        };
        if was.same(&now) {
            continue;
        }
        // A mesh whose source stays: only its `value`.
        if let (ValueRef::Mesh(x), ValueRef::Mesh(y)) = (was, now)
            && std::mem::discriminant(x) == std::mem::discriminant(y)
            && let Ok(value) = t.replace_value(
                located("mesh.value"),
                &fragment::mesh_value(y),
                "mesh.value",
            )
        {
            out.push(value);
            continue;
        }
        out.push(
            t.replace_value(located(f.path), &fragment::builtin_value(now), f.path)
                .ok()?,
        );
    }
    Some(out)
}

/// The splices of a built-in `set` entry: the fields both versions set whose values changed,
/// and each field only the new one sets written after the one before it in the tag's order
/// (outside a group: `material.metallic` is not placed this way); `None` when a field went, or
/// a new one has no written field before it.
fn patch_splices(
    t: &Text,
    b: &BuiltinTag,
    was: &ComponentPatch,
    now: &ComponentPatch,
    written: &[(&'static str, Span)],
    located: &dyn Fn(&str) -> Option<Span>,
) -> Option<Vec<Splice>> {
    let sets = |p: &ComponentPatch, f: &str| p.fields.iter().any(|x| x == f);
    if was.fields.iter().any(|f| !sets(now, f)) {
        return None;
    }
    let mut out = builtin_splices(t, b, &was.component, &now.component, located, &|f| {
        sets(was, f)
    })?;
    let fields = b.fields();
    for (i, f) in fields.iter().enumerate() {
        if sets(was, f.path) || !sets(now, f.path) {
            continue;
        }
        if f.path.contains('.') {
            return None;
        }
        // The written field before it, outside a group.
        let before = fields[..i]
            .iter()
            .rev()
            .filter(|g| !g.path.contains('.'))
            .find_map(|g| written.iter().find(|(name, _)| *name == g.path))
            .map(|(_, s)| *s)?;
        let line = fragment::payload_field(&now.component, i)?;
        let indent = t.indent_of(before.start as usize).to_owned();
        let text = if field_alone(t, before) {
            format!(",{}{indent}{}", t.nl, t.fit(&line, &indent, true))
        } else {
            format!(", {}", super::compact(&line))
        };
        out.push(t.insert_after_item(before.end as usize, text));
    }
    // Splices in text order (the new fields may come before a changed value).
    out.sort_by_key(|s| (s.start, s.end));
    Some(out)
}

/// Whether the field whose value is at `value` starts its line (`  intensity: 1.0,`).
pub(super) fn field_alone(t: &Text, value: Span) -> bool {
    let start = t.line_start(value.start as usize);
    let name = t.field_name_start(value.start as usize);
    name.is_some_and(|n| t.is_blank(start, n))
}
