//! From a change of the document to the smallest text changes that make it: the bytes of each
//! value that changed are replaced, entries that came or went are inserted or cut out, and
//! every other byte (comments, blank lines, key order, number spelling) stays.
//!
//! Granularity: a transform's changed numbers; a custom field's changed `expr` strings (an
//! enum's changed `value` string); a
//! built-in's changed payload values where the map locates them; a component entry that
//! changed otherwise; any other entity field's value; whole entity and
//! component entries that were added or removed; `roots`, `next_id`, `name` and
//! `format_version` values. New text is canonical: multi-line with the indentation of the line
//! it goes on (two spaces per level below it) where the value it replaces or follows spans
//! lines, on one line otherwise, with the line ending most of the file's lines have.

use crate::format::builtin::{BuiltinTag, Payload, ValueRef};
use crate::format::source_map::{CustomPart, ENTITY_FIELDS, Span};
use crate::format::write::fragment;
use crate::format::{ComponentData, EntityNode, SceneDoc, SourceMap};

/// Bytes `start..end` of the text become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Splice {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) text: String,
}

/// Why no splice could be made: a part of the text the map does not locate (a hand-written
/// layout this module does not follow). The caller refuses the edit; nothing is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unlocated(pub(crate) String);

type Out<T> = Result<T, Unlocated>;

/// The splices that turn `text` (read as `old`, with `map`) into a text that reads as `new`,
/// sorted and not overlapping.
pub(crate) fn splices(
    text: &str,
    map: &SourceMap,
    old: &SceneDoc,
    new: &SceneDoc,
) -> Out<Vec<Splice>> {
    let t = Text::new(text);
    let mut out = Vec::new();
    // The header.
    let top = |field: &str| map.top_field_span(field);
    if old.name != new.name {
        out.push(t.replace_value(top("name"), &fragment::string(&new.name), "name")?);
    }
    if old.roots != new.roots {
        out.push(t.replace_value(top("roots"), &fragment::ids(&new.roots), "roots")?);
    }
    if old.next_id != new.next_id {
        out.push(t.replace_value(top("next_id"), &new.next_id.to_string(), "next_id")?);
    }
    // Entities that went, changed, or came.
    for (id, node) in &old.entities {
        let Some(entry) = map.entity_span(*id) else {
            return Err(Unlocated(format!("entity {id}")));
        };
        match new.entities.get(id) {
            None => out.push(t.cut_item(entry)),
            Some(now) if !same_entity(node, now) => entity(&t, map, node, now, &mut out)?,
            Some(_) => {}
        }
    }
    let added: Vec<(&u64, &EntityNode)> = new
        .entities
        .iter()
        .filter(|(id, _)| !old.entities.contains_key(*id))
        .map(|(id, node)| (id, &**node))
        .collect();
    if !added.is_empty() {
        // After the last entry that stays (one the same change deletes is cut).
        let last = old
            .entities
            .keys()
            .filter(|id| new.entities.contains_key(*id))
            .filter_map(|id| map.entity_span(*id))
            .max_by_key(|s| s.end);
        match last {
            Some(entry) => {
                let end = entry.end as usize;
                let item_lines = t.spans_lines(entry);
                let list_lines = top("entities").is_some_and(|list| t.spans_lines(list));
                let indent = t.indent_of(entry.start as usize).to_owned();
                let mut text = String::new();
                for (key, node) in added {
                    let entry = fragment::entity(node, *key);
                    text.push_str(&t.item_after(&entry, &indent, list_lines, item_lines));
                }
                let insert = t.insert_after_item(end, text.clone());
                // Past the comma a cut takes with it (the entry after it is deleted, and was the
                // last): the new entries go before that comma instead.
                let cut = |c: &Splice| {
                    c.text.is_empty() && c.start < insert.start && insert.start <= c.end
                };
                if insert.start != end && out.iter().any(cut) {
                    out.push(Splice {
                        start: end,
                        end,
                        text,
                    });
                } else {
                    out.push(insert);
                }
            }
            None if let Some(fill) = t.fill_empty(
                top("entities"),
                &added
                    .iter()
                    .map(|(key, node)| fragment::entity(node, **key))
                    .collect::<Vec<_>>(),
            ) =>
            {
                // `entities: { // none yet }`, or entries that all go: before the closing `}`,
                // after whatever stays.
                out.push(fill);
            }
            None => {
                // `entities: {}`: the whole map, entries one level in.
                let mut map_text = String::from("{\n");
                for (key, node) in added {
                    for line in fragment::entity(node, *key).split('\n') {
                        map_text.push_str("  ");
                        map_text.push_str(line);
                        map_text.push('\n');
                    }
                    map_text.pop();
                    map_text.push_str(",\n");
                }
                map_text.push('}');
                out.push(t.replace_value_multiline(top("entities"), &map_text, "entities")?);
            }
        }
    }
    out.sort_by_key(|s| (s.start, s.end));
    // Neighbouring entries cut together share a comma or a line: one cut.
    let mut merged: Vec<Splice> = Vec::with_capacity(out.len());
    for s in out {
        match merged.last_mut() {
            Some(last)
                if last.end > s.start
                    || (last.end == s.start && last.text.is_empty() && s.text.is_empty()) =>
            {
                if !(last.text.is_empty() && s.text.is_empty()) {
                    return Err(Unlocated("overlapping changes".to_owned()));
                }
                last.end = last.end.max(s.end);
            }
            _ => merged.push(s),
        }
    }
    Ok(merged)
}

/// Whether two entities are the same as written (a NaN is not equal to itself).
fn same_entity(a: &EntityNode, b: &EntityNode) -> bool {
    if a == b {
        // `-0.0 == 0.0`, but the transform is written as it is set.
        same_transform(a, b)
    } else {
        fragment::entity(a, a.id) == fragment::entity(b, b.id)
    }
}

/// Whether two floats are written the same: the same bits, or both NaN (written `NaN`).
fn same_float(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// Whether two entities' transforms are written the same.
fn same_transform(a: &EntityNode, b: &EntityNode) -> bool {
    let (a, b) = (&a.transform, &b.transform);
    [
        (a.translation, b.translation),
        (a.rotation, b.rotation),
        (a.scale, b.scale),
    ]
    .iter()
    .all(|(x, y)| {
        x.to_array()
            .iter()
            .zip(y.to_array())
            .all(|(x, y)| same_float(*x, y))
    })
}

/// Whether two components are the same as written.
fn same_component(a: &ComponentData, b: &ComponentData) -> bool {
    a == b || fragment::component(a) == fragment::component(b)
}

/// Whether two component lists are the same as written.
fn same_components(a: &[ComponentData], b: &[ComponentData]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_component(x, y))
}

/// The splices of one entity whose fields changed.
fn entity(
    t: &Text,
    map: &SourceMap,
    old: &EntityNode,
    new: &EntityNode,
    out: &mut Vec<Splice>,
) -> Out<()> {
    let id = old.id;
    let changed = [
        old.id != new.id,
        old.name != new.name,
        old.parent != new.parent,
        old.children != new.children,
        !same_transform(old, new),
        !same_components(&old.components, &new.components),
        old.locked != new.locked,
        old.instance != new.instance
            && fragment::entity_field(old, "instance") != fragment::entity_field(new, "instance"),
    ];
    for (i, field) in ENTITY_FIELDS.iter().enumerate() {
        if !changed[i] {
            continue;
        }
        let Some(at) = map.entity_field_span(id, field) else {
            out.push(insert_field(
                t,
                map,
                id,
                field,
                &fragment::entity_field(new, field),
            )?);
            continue;
        };
        match *field {
            "transform" => transform(t, map, old, new, out)?,
            "components" => components(t, map, old, new, out)?,
            _ => out.push(t.replace_value(
                Some(at),
                &fragment::entity_field(new, field),
                &format!("entity {id}: {field}"),
            )?),
        }
    }
    Ok(())
}

/// A field the entry does not write, added after its last field.
fn insert_field(t: &Text, map: &SourceMap, id: u64, field: &str, value: &str) -> Out<Splice> {
    let end = ENTITY_FIELDS
        .iter()
        .filter_map(|f| map.entity_field_span(id, f))
        .map(|s| s.end as usize)
        .max()
        .ok_or_else(|| Unlocated("an entity without fields".to_owned()))?;
    let entry = map
        .entity_span(id)
        .ok_or_else(|| Unlocated(format!("entity {id}")))?;
    let multiline = t.spans_lines(entry);
    let indent = match map.entity_field_span(id, "id") {
        Some(at) => t.indent_of(at.start as usize).to_owned(),
        None => String::new(),
    };
    let line = format!("{field}: {value}");
    let text = if multiline {
        format!(",{}{indent}{}", t.nl, t.fit(&line, &indent, true))
    } else {
        format!(", {}", compact(&line))
    };
    Ok(Splice {
        start: end,
        end,
        text,
    })
}

/// A transform's changed numbers, or its changed vectors when a number is not written alone.
fn transform(
    t: &Text,
    map: &SourceMap,
    old: &EntityNode,
    new: &EntityNode,
    out: &mut Vec<Splice>,
) -> Out<()> {
    const PARTS: [&str; 3] = ["translation", "rotation", "scale"];
    const AXES: [&str; 3] = ["x", "y", "z"];
    let id = old.id;
    let span = |part: &str| map.entity_field_span(id, &format!("transform.{part}"));
    let parts = |n: &EntityNode| {
        [
            n.transform.translation,
            n.transform.rotation,
            n.transform.scale,
        ]
    };
    let (was, now) = (parts(old), parts(new));
    for p in 0..3 {
        let (a, b) = (was[p].to_array(), now[p].to_array());
        if a.iter().zip(&b).all(|(x, y)| same_float(*x, *y)) {
            continue;
        }
        let axes = AXES.map(|axis| span(&format!("{}.{axis}", PARTS[p])));
        if axes.iter().all(Option::is_some) {
            for k in 0..3 {
                if !same_float(a[k], b[k]) {
                    out.push(t.replace_value(
                        axes[k],
                        &fragment::float(b[k]),
                        "a transform number",
                    )?);
                }
            }
        } else if let Some(vector) = span(PARTS[p]) {
            out.push(t.replace_value(
                Some(vector),
                &fragment::vec3(now[p]),
                "a transform vector",
            )?);
        } else {
            // A part the file leaves out: the whole transform.
            out.push(t.replace_value(
                map.entity_field_span(id, "transform"),
                &fragment::entity_field(new, "transform"),
                "transform",
            )?);
            return Ok(());
        }
    }
    Ok(())
}

/// The splices of a changed `components` list.
fn components(
    t: &Text,
    map: &SourceMap,
    old: &EntityNode,
    new: &EntityNode,
    out: &mut Vec<Splice>,
) -> Out<()> {
    let id = old.id;
    let list_span = map.entity_field_span(id, "components");
    let list: Vec<Span> = (0..map.component_count(id))
        .filter_map(|k| map.component_span(id, k))
        .collect();
    let whole = |out: &mut Vec<Splice>| -> Out<()> {
        out.push(t.replace_value(
            list_span,
            &fragment::entity_field(new, "components"),
            "components",
        )?);
        Ok(())
    };
    if old.components.is_empty()
        && list.is_empty()
        && let Some(fill) = t.fill_empty(
            list_span,
            &new.components
                .iter()
                .map(fragment::component)
                .collect::<Vec<_>>(),
        )
    {
        // `components: [ // none yet ]`: the comments stay.
        out.push(fill);
        return Ok(());
    }
    if list.len() != old.components.len() || old.components.is_empty() {
        return whole(out);
    }
    let (a, b) = (&old.components, &new.components);
    if a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_key(y)) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            if !same_component(x, y) {
                component(t, map, id, i, x, y, out)?;
            }
        }
        return Ok(());
    }
    if b.len() + 1 == a.len()
        && let Some(k) = (0..a.len())
            .find(|&k| same_components(&a[..k], &b[..k]) && same_components(&a[k + 1..], &b[k..]))
    {
        out.push(t.cut_item(list[k]));
        return Ok(());
    }
    if b.len() > a.len() && same_components(&b[..a.len()], a) {
        let last = list[a.len() - 1];
        let end = last.end as usize;
        let list_lines = list_span.is_some_and(|l| t.spans_lines(l));
        let item_lines = t.spans_lines(last);
        let indent = t.indent_of(last.start as usize).to_owned();
        let mut text = String::new();
        for c in &b[a.len()..] {
            text.push_str(&t.item_after(&fragment::component(c), &indent, list_lines, item_lines));
        }
        out.push(t.insert_after_item(end, text));
        return Ok(());
    }
    whole(out)
}

/// One component that kept its key: its changed `expr` strings when only custom field
/// expressions changed, else the whole entry.
fn component(
    t: &Text,
    map: &SourceMap,
    id: u64,
    index: usize,
    old: &ComponentData,
    new: &ComponentData,
    out: &mut Vec<Splice>,
) -> Out<()> {
    let entry = map.component_span(id, index);
    if let (ComponentData::Custom(a), ComponentData::Custom(b)) = (old, new) {
        let field = |f: usize, part: CustomPart| map.custom_field_span(id, index, f, part);
        let written = map.custom_field_count(id, index);
        // An enum's whole value that changed: its string only.
        if a.type_path == b.type_path
            && a.fields == b.fields
            && let (Some(_), Some(value)) = (&a.value, &b.value)
            && let Some(span) = map.component_field_span(id, index, "value")
        {
            out.push(t.replace_value(Some(span), &fragment::string(value), "an enum's value")?);
            return Ok(());
        }
        let kept = a.fields.len();
        let same_names = a.type_path == b.type_path
            && a.value == b.value
            && kept > 0
            && b.fields.len() >= kept
            && written == kept
            && a.fields
                .iter()
                .zip(&b.fields)
                .all(|(x, y)| x.name == y.name);
        let located = (0..kept)
            .all(|f| field(f, CustomPart::Entry).is_some() && field(f, CustomPart::Expr).is_some());
        if same_names
            && located
            && let (Some(first), Some(last), Some(entry)) = (
                field(0, CustomPart::Entry),
                field(kept - 1, CustomPart::Entry),
                entry,
            )
        {
            for (f, (x, y)) in a.fields.iter().zip(&b.fields).enumerate() {
                if x.expr != y.expr {
                    out.push(t.replace_value(
                        field(f, CustomPart::Expr),
                        &fragment::string(&y.expr),
                        "a field expression",
                    )?);
                }
            }
            if b.fields.len() > kept {
                // New fields after the last, laid out as it is.
                let end = last.end as usize;
                let list_lines = t.spans_lines(Span::new(first.start, last.start))
                    || t.spans_lines(Span::new(entry.start, first.start));
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
            return Ok(());
        }
    }
    // A built-in: only its payload values that changed, where the file's map locates them
    // (`illuminance`, `material.metallic`, the `value` of a mesh), else its `data`, else the
    // whole entry.
    if old.tag() == new.tag()
        && let Some(b) = new.builtin()
    {
        let located = |field: &str| map.component_field_span(id, index, field);
        match builtin_splices(t, b, old, new, &located) {
            Some(found) => {
                out.extend(found);
                return Ok(());
            }
            None => {
                if let Ok(data) = t.replace_value(located("data"), &fragment::data(new), "data") {
                    out.push(data);
                    return Ok(());
                }
            }
        }
    }
    out.push(t.replace_value(entry, &fragment::component(new), "a component")?);
    Ok(())
}

/// The splices that change a built-in's payload from `old`'s values to `new`'s, walking its
/// tag's fields; `None` when a changed value is not located (not written, or a mode).
fn builtin_splices(
    t: &Text,
    b: &BuiltinTag,
    old: &ComponentData,
    new: &ComponentData,
    located: &dyn Fn(&str) -> Option<Span>,
) -> Option<Vec<Splice>> {
    if let Payload::Mode(_) = b.payload {
        return match ((b.get)(old, 0), (b.get)(new, 0)) {
            (Some(x), Some(y)) if x.same(&y) => Some(Vec::new()),
            _ => None,
        };
    }
    let mut out = Vec::new();
    for (i, f) in b.fields().iter().enumerate() {
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

/// Puts a multi-line canonical fragment on one line: `(\n  x: 1.0,\n)` to `(x: 1.0)`.
pub(crate) fn compact(multi: &str) -> String {
    let mut out = String::with_capacity(multi.len());
    for line in multi.split('\n') {
        let line = line.trim_start();
        if out.is_empty() {
            out.push_str(line);
        } else if line.starts_with([')', ']', '}']) {
            if out.ends_with(',') {
                out.pop();
            }
            out.push_str(line);
        } else if out.ends_with(['(', '[', '{']) {
            out.push_str(line);
        } else {
            out.push(' ');
            out.push_str(line);
        }
    }
    out
}

/// The text being edited, with the lexical helpers splices need.
pub(crate) struct Text<'a> {
    s: &'a str,
    b: &'a [u8],
    /// The file's line ending: the one most of its lines end with.
    pub(crate) nl: &'static str,
}

impl<'a> Text<'a> {
    pub(crate) fn new(s: &'a str) -> Self {
        // The line ending most lines have: a file with one stray `\r\n` keeps `\n`.
        let lines = memchr::memchr_iter(b'\n', s.as_bytes()).count();
        let crlf = memchr::memmem::find_iter(s.as_bytes(), b"\r\n").count();
        let nl = if crlf > 0 && crlf * 2 >= lines {
            "\r\n"
        } else {
            "\n"
        };
        Self {
            s,
            b: s.as_bytes(),
            nl,
        }
    }

    /// Whether `span` spans more than one line.
    pub(crate) fn spans_lines(&self, span: Span) -> bool {
        span.range()
            .and_then(|r| self.b.get(r))
            .is_some_and(|s| s.contains(&b'\n'))
    }

    fn line_start(&self, at: usize) -> usize {
        self.b[..at.min(self.b.len())]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |n| n + 1)
    }

    /// The leading whitespace of the line holding byte `at`.
    pub(crate) fn indent_of(&self, at: usize) -> &'a str {
        let start = self.line_start(at);
        let len = self.b[start..]
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        &self.s[start..start + len]
    }

    /// `multi` (a fragment at depth 0) to go where a line indented by `indent` continues: on
    /// one line, or its lines after the first indented from `indent`, with the file's line
    /// ending.
    pub(crate) fn fit(&self, multi: &str, indent: &str, multiline: bool) -> String {
        if !multiline {
            return compact(multi);
        }
        let mut out = String::with_capacity(multi.len() + 16);
        for (i, line) in multi.split('\n').enumerate() {
            if i > 0 {
                out.push_str(self.nl);
                out.push_str(indent);
            }
            out.push_str(line);
        }
        out
    }

    /// Replaces the value at `span` with `fragment`, laid out as the old value was.
    pub(crate) fn replace_value(
        &self,
        span: Option<Span>,
        fragment: &str,
        what: &str,
    ) -> Out<Splice> {
        let Some(std::ops::Range { start, end }) = span.and_then(Span::range) else {
            return Err(Unlocated(what.to_owned()));
        };
        // A value on one line stays on one line, unless it was empty (`[]`, `None`) on a line
        // of its own: then it grows as the canonical layout does.
        let empty = matches!(self.s[start..end].trim(), "[]" | "{}" | "()" | "None");
        let multiline = self.b[start..end].contains(&b'\n')
            || (fragment.contains('\n') && empty && !self.is_compact_context(start));
        Ok(Splice {
            start,
            end,
            text: self.fit(fragment, self.indent_of(start), multiline),
        })
    }

    /// Replaces the value at `span` with `fragment`, multi-line.
    fn replace_value_multiline(
        &self,
        span: Option<Span>,
        fragment: &str,
        what: &str,
    ) -> Out<Splice> {
        let Some(std::ops::Range { start, end }) = span.and_then(Span::range) else {
            return Err(Unlocated(what.to_owned()));
        };
        Ok(Splice {
            start,
            end,
            text: self.fit(fragment, self.indent_of(start), true),
        })
    }

    /// The items `fragments` put into the empty list (or map) at `at` whose brackets hold
    /// comments, before its closing bracket, so the comments stay: `None` when there is nothing
    /// but whitespace between the brackets (the caller replaces the value).
    fn fill_empty(&self, span: Option<Span>, fragments: &[String]) -> Option<Splice> {
        let std::ops::Range { start, end } = span?.range()?;
        if fragments.is_empty() || end <= start {
            return None;
        }
        let closer = end - 1;
        if !matches!(self.b.get(start), Some(b'[' | b'{'))
            || self.s.get(start + 1..closer)?.trim().is_empty()
        {
            return None;
        }
        let ls = self.line_start(closer);
        let closer_alone = self.b[ls..closer].iter().all(|&c| c == b' ' || c == b'\t');
        if self.b[start..end].contains(&b'\n') && closer_alone {
            // Each item on its own line, one level in from the line of the opening bracket.
            let indent = format!("{}  ", self.indent_of(start));
            let mut text = String::new();
            for f in fragments {
                text.push_str(&indent);
                text.push_str(&self.fit(f, &indent, true));
                text.push(',');
                text.push_str(self.nl);
            }
            return Some(Splice {
                start: ls,
                end: ls,
                text,
            });
        }
        let items: Vec<String> = fragments.iter().map(|f| compact(f)).collect();
        let lead = if self.b[closer - 1].is_ascii_whitespace() {
            ""
        } else {
            " "
        };
        Some(Splice {
            start: closer,
            end: closer,
            text: format!("{lead}{}", items.join(", ")),
        })
    }

    /// Whether the line of `at` holds more than one field (a one-line entry): a value growing
    /// lines there goes on one line too.
    fn is_compact_context(&self, at: usize) -> bool {
        let start = self.line_start(at);
        let end = self.b[at..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(self.b.len(), |n| at + n);
        // Another `name:` on the same line before or after the value.
        let line = &self.s[start..end];
        line.matches(": ").count() > 1
    }

    /// An item to append after the last item of a list, which is indented by `indent`: on its
    /// own line when the list's items are (`list_lines`), itself spread over lines when the
    /// last item is (`item_lines`).
    pub(crate) fn item_after(
        &self,
        fragment: &str,
        indent: &str,
        list_lines: bool,
        item_lines: bool,
    ) -> String {
        let item = self.fit(fragment, indent, item_lines);
        if list_lines {
            format!(",{}{indent}{item}", self.nl)
        } else {
            format!(", {item}")
        }
    }

    /// Inserts `text` (items from [`item_after`](Self::item_after), each led by a comma) after
    /// the item ending at `end`, keeping its own trailing comma where it has one.
    pub(crate) fn insert_after_item(&self, end: usize, text: String) -> Splice {
        let after = self.skip_blank(end);
        if self.b.get(after) == Some(&b',') {
            // `item,` becomes `item, new,`: the new items take the old comma's place after them.
            Splice {
                start: after + 1,
                end: after + 1,
                text: format!("{},", &text[1..]),
            }
        } else {
            Splice {
                start: end,
                end,
                text,
            }
        }
    }

    fn skip_blank(&self, mut i: usize) -> usize {
        while i < self.b.len() && (self.b[i] == b' ' || self.b[i] == b'\t') {
            i += 1;
        }
        i
    }

    /// Cuts the list item at `item` with its comma, and its lines when it stands alone on
    /// them.
    pub(crate) fn cut_item(&self, item: Span) -> Splice {
        let b = self.b;
        let (mut s, mut e) = (item.start as usize, item.end as usize);
        // Its comma, past comments between them (`item /* note */,`), which go with it.
        let after = crate::format::lexical::skip_trivia(b, e);
        if b.get(after) == Some(&b',') {
            e = after + 1;
        } else {
            // The last item without a comma: the comma before it goes.
            let mut p = s;
            while p > 0 && b[p - 1].is_ascii_whitespace() {
                p -= 1;
            }
            // Not a comma that ends a line comment (`a, // note,` then `b`).
            let in_comment = || {
                let ls = self.line_start(p - 1);
                crate::format::lexical::first_comment(&b[ls..p - 1]).is_some()
            };
            if p > 0 && b[p - 1] == b',' && !in_comment() {
                s = p - 1;
                return Splice {
                    start: s,
                    end: e,
                    text: String::new(),
                };
            }
        }
        let ls = self.line_start(s);
        let rest = self.skip_blank(e);
        let alone_before = b[ls..s].iter().all(|&c| c == b' ' || c == b'\t');
        let line_end = match b.get(rest) {
            Some(b'\n') => Some(rest + 1),
            Some(b'\r') if b.get(rest + 1) == Some(&b'\n') => Some(rest + 2),
            None => Some(rest),
            _ => None,
        };
        if alone_before && let Some(le) = line_end {
            s = ls;
            e = le;
        }
        Splice {
            start: s,
            end: e,
            text: String::new(),
        }
    }
}
