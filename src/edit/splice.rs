//! From a change of the document to the smallest text changes that make it: the bytes of each
//! value that changed are replaced, entries that came or went are inserted or cut out, and
//! every other byte (comments, blank lines, key order, number spelling) stays.
//!
//! Granularity: a transform's changed numbers; a custom field's changed `expr` strings; a
//! built-in's changed payload values where the map locates them; a component entry that
//! changed otherwise; any other entity field's value; whole entity and
//! component entries that were added or removed; `roots`, `next_id`, `name` and
//! `format_version` values. New text is canonical: multi-line with the indentation of the line
//! it goes on (two spaces per level below it) where the value it replaces or follows spans
//! lines, on one line otherwise, with the line ending most of the file's lines have.

use crate::format::source_map::{ABSENT, ComponentSpans, EntitySpans};
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
    let top = |i: usize| map.top[i];
    if old.name != new.name {
        out.push(t.replace_value(top(1), &fragment::string(&new.name), "name")?);
    }
    if old.roots != new.roots {
        out.push(t.replace_value(top(3), &fragment::ids(&new.roots), "roots")?);
    }
    if old.next_id != new.next_id {
        out.push(t.replace_value(top(4), &new.next_id.to_string(), "next_id")?);
    }
    // Entities that went, changed, or came.
    for (id, node) in &old.entities {
        let Some(spans) = map.entities.get(id) else {
            return Err(Unlocated(format!("entity {id}")));
        };
        match new.entities.get(id) {
            None => out.push(t.cut_item(spans.entry as usize, t.entry_end(spans)?)),
            Some(now) if !same_entity(node, now) => entity(&t, map, spans, node, now, &mut out)?,
            Some(_) => {}
        }
    }
    let added: Vec<(&u64, &EntityNode)> = new
        .entities
        .iter()
        .filter(|(id, _)| !old.entities.contains_key(*id))
        .collect();
    if !added.is_empty() {
        // After the last entry that stays (one the same change deletes is cut).
        let last = map
            .entities
            .iter()
            .filter(|(id, _)| new.entities.contains_key(*id))
            .filter_map(|(_, s)| t.entry_end(s).ok().map(|e| (s, e)))
            .max_by_key(|(_, e)| *e);
        match last {
            Some((spans, end)) => {
                let item_lines = t.spans_lines(spans.entry as usize, end);
                let list_end = t.value_end(top(2) as usize).unwrap_or(end);
                let list_lines = t.spans_lines(top(2) as usize, list_end);
                let indent = t.indent_of(spans.entry as usize).to_owned();
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
                top(2),
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
                out.push(t.replace_value_multiline(top(2), &map_text, "entities")?);
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
    spans: &EntitySpans,
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
    for (i, field) in crate::format::source_map::ENTITY_FIELDS.iter().enumerate() {
        if !changed[i] {
            continue;
        }
        let at = spans.fields[i];
        if at == ABSENT {
            out.push(insert_field(
                t,
                spans,
                field,
                &fragment::entity_field(new, field),
            )?);
            continue;
        }
        match *field {
            "transform" => transform(t, spans, old, new, out)?,
            "components" => components(t, map, spans, old, new, out)?,
            _ => out.push(t.replace_value(
                at,
                &fragment::entity_field(new, field),
                &format!("entity {id}: {field}"),
            )?),
        }
    }
    Ok(())
}

/// A field the entry does not write, added after its last field.
fn insert_field(t: &Text, spans: &EntitySpans, field: &str, value: &str) -> Out<Splice> {
    let mut last = None;
    for &at in &spans.fields {
        if at != ABSENT {
            let end = t.end_of(at as usize, &format!("entity field at byte {at}"))?;
            last = last.max(Some(end));
        }
    }
    let end = last.ok_or_else(|| Unlocated("an entity without fields".to_owned()))?;
    let entry_end = t.entry_end(spans)?;
    let multiline = t.spans_lines(spans.entry as usize, entry_end);
    let id_at = spans.fields[0];
    let indent = if id_at == ABSENT {
        String::new()
    } else {
        t.indent_of(id_at as usize).to_owned()
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
    spans: &EntitySpans,
    old: &EntityNode,
    new: &EntityNode,
    out: &mut Vec<Splice>,
) -> Out<()> {
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
        let axes = spans.transform[p];
        if axes[1..].iter().all(|&at| at != ABSENT) {
            for k in 0..3 {
                if !same_float(a[k], b[k]) {
                    out.push(t.replace_value(
                        axes[k + 1],
                        &fragment::float(b[k]),
                        "a transform number",
                    )?);
                }
            }
        } else if axes[0] != ABSENT {
            out.push(t.replace_value(axes[0], &fragment::vec3(now[p]), "a transform vector")?);
        } else {
            // A part the file leaves out: the whole transform.
            out.push(t.replace_value(
                spans.fields[4],
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
    spans: &EntitySpans,
    old: &EntityNode,
    new: &EntityNode,
    out: &mut Vec<Splice>,
) -> Out<()> {
    let list = spans.components.of(&map.components);
    let whole = |out: &mut Vec<Splice>| -> Out<()> {
        out.push(t.replace_value(
            spans.fields[5],
            &fragment::entity_field(new, "components"),
            "components",
        )?);
        Ok(())
    };
    if old.components.is_empty()
        && list.is_empty()
        && let Some(fill) = t.fill_empty(
            spans.fields[5],
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
                component(t, map, &list[i], x, y, out)?;
            }
        }
        return Ok(());
    }
    if b.len() + 1 == a.len()
        && let Some(k) = (0..a.len())
            .find(|&k| same_components(&a[..k], &b[..k]) && same_components(&a[k + 1..], &b[k..]))
    {
        let end = t.end_of(list[k].entry as usize, "a component")?;
        out.push(t.cut_item(list[k].entry as usize, end));
        return Ok(());
    }
    if b.len() > a.len() && same_components(&b[..a.len()], a) {
        let last = &list[a.len() - 1];
        let end = t.end_of(last.entry as usize, "a component")?;
        let list_end = t.end_of(spans.fields[5] as usize, "components")?;
        let list_lines = t.spans_lines(spans.fields[5] as usize, list_end);
        let item_lines = t.spans_lines(last.entry as usize, end);
        let indent = t.indent_of(last.entry as usize).to_owned();
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
    spans: &ComponentSpans,
    old: &ComponentData,
    new: &ComponentData,
    out: &mut Vec<Splice>,
) -> Out<()> {
    if let (ComponentData::Custom(a), ComponentData::Custom(b)) = (old, new) {
        let fields = spans.custom_fields.of(&map.custom_fields);
        let kept = a.fields.len();
        let same_names = a.type_path == b.type_path
            && kept > 0
            && b.fields.len() >= kept
            && fields.len() == kept
            && a.fields
                .iter()
                .zip(&b.fields)
                .all(|(x, y)| x.name == y.name);
        if same_names && fields.iter().all(|f| f[2] != ABSENT && f[0] != ABSENT) {
            for ((x, y), f) in a.fields.iter().zip(&b.fields).zip(fields) {
                if x.expr != y.expr {
                    out.push(t.replace_value(
                        f[2],
                        &fragment::string(&y.expr),
                        "a field expression",
                    )?);
                }
            }
            if b.fields.len() > kept {
                // New fields after the last, laid out as it is.
                let last = fields[kept - 1][0] as usize;
                let end = t.end_of(last, "a custom field")?;
                let list_lines = t.spans_lines(fields[0][0] as usize, last)
                    || t.spans_lines(spans.entry as usize, fields[0][0] as usize);
                let item_lines = t.spans_lines(last, end);
                let indent = t.indent_of(last).to_owned();
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
    // A built-in: only its payload values that changed, as deep as the file's map locates them
    // (`illuminance`, `material.metallic`, `color`), else its `data`, else the whole entry.
    if old.tag() == new.tag() && !matches!(new, ComponentData::Custom(_)) {
        let (a, b) = (payload(old), payload(new));
        let located = |path: &str| -> Option<u32> {
            if path == "data" {
                return (spans.data != ABSENT).then_some(spans.data);
            }
            let dotted = path.strip_prefix("data.")?;
            spans
                .fields
                .of(&map.payload_fields)
                .iter()
                .find(|(p, _)| *p == dotted)
                .map(|(_, at)| *at)
                .filter(|at| *at != ABSENT)
        };
        if let Some(found) = payload_splices(t, &a, &b, "data", &located) {
            out.extend(found);
            return Ok(());
        }
    }
    out.push(t.replace_value(spans.entry, &fragment::component(new), "a component")?);
    Ok(())
}

/// The values of a built-in's canonical fragment by dotted path (`data`, `data.color`,
/// `data.material.metallic`), each as a fragment at depth 0, in order.
fn payload(c: &ComponentData) -> Vec<(String, String)> {
    let frag = fragment::component(c);
    let lines: Vec<&str> = frag.split('\n').collect();
    let mut out = Vec::new();
    // (name, first line, indentation) of each open group.
    let mut open: Vec<(String, usize, usize)> = Vec::new();
    let path = |open: &[(String, usize, usize)], name: &str| {
        let mut p: Vec<&str> = open
            .iter()
            .map(|(n, _, _)| n.as_str())
            .filter(|n| !n.is_empty())
            .collect();
        p.push(name);
        p.join(".")
    };
    for (i, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = line.len() - body.len();
        if body.starts_with([')', ']', '}']) {
            let Some((name, first, at)) = open.pop() else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let head = lines[first].trim_start();
            let head = head.split_once(": ").map_or(head, |(_, v)| v);
            let mut text = String::from(head);
            for l in &lines[first + 1..=i] {
                text.push('\n');
                text.push_str(l.get(at..).unwrap_or(l.trim_start()));
            }
            let text = text.strip_suffix(',').unwrap_or(&text).to_owned();
            out.push((path(&open, &name), text));
        } else if body.ends_with(['(', '[', '{']) {
            let name = body.split_once(": ").map_or("", |(n, _)| n).to_owned();
            open.push((name, i, indent));
        } else if let Some((name, value)) = body.split_once(": ") {
            let value = value.strip_suffix(',').unwrap_or(value);
            out.push((path(&open, name), value.to_owned()));
        }
    }
    out
}

/// The splices that change payload value `path` from `a`'s to `b`'s: its changed parts when
/// each is located, else the value itself when it is; `None` when neither.
fn payload_splices(
    t: &Text,
    a: &[(String, String)],
    b: &[(String, String)],
    path: &str,
    located: &dyn Fn(&str) -> Option<u32>,
) -> Option<Vec<Splice>> {
    let get =
        |v: &[(String, String)], p: &str| v.iter().find(|(q, _)| q == p).map(|(_, t)| t.clone());
    let (was, now) = (get(a, path)?, get(b, path)?);
    if was == now {
        return Some(Vec::new());
    }
    let prefix = format!("{path}.");
    let children = |v: &[(String, String)]| -> Vec<String> {
        v.iter()
            .filter(|(q, _)| {
                q.strip_prefix(&prefix)
                    .is_some_and(|rest| !rest.contains('.'))
            })
            .map(|(q, _)| q.clone())
            .collect()
    };
    let kids = children(b);
    if !kids.is_empty() && kids == children(a) {
        let mut all = Vec::new();
        let parts: Option<()> = kids.iter().try_for_each(|k| {
            all.extend(payload_splices(t, a, b, k, located)?);
            Some(())
        });
        if parts.is_some() {
            return Some(all);
        }
    }
    let at = located(path)?;
    t.replace_value(at, &now, path).ok().map(|s| vec![s])
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

    /// The end of the value starting at `at`: a bracketed group, a string, or a word with an
    /// optional bracketed argument (`Some(3)`, `sphere(radius: 1.0)`, `-0.5`, `None`).
    pub(crate) fn value_end(&self, at: usize) -> Option<usize> {
        let b = self.b;
        match *b.get(at)? {
            b'(' | b'[' | b'{' => self.group_end(at),
            _ => crate::format::lexical::string_literal_end(b, at)
                .unwrap_or_else(|| self.word_end(at)),
        }
    }

    /// [`value_end`](Self::value_end), or the part `what` said unlocated.
    fn end_of(&self, at: usize, what: &str) -> Out<usize> {
        self.value_end(at).ok_or_else(|| Unlocated(what.to_owned()))
    }

    fn word_end(&self, at: usize) -> Option<usize> {
        let b = self.b;
        let mut i = at;
        while i < b.len()
            && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b'+' | b'-'))
        {
            i += 1;
        }
        if i == at {
            return None;
        }
        // `Some(3)`, `Some (3)`, `Some /* c */ (3)`: a word is followed by a value only when
        // that value is its argument.
        let open = self.skip_trivia(i);
        if b.get(open) == Some(&b'(') {
            return self.group_end(open);
        }
        Some(i)
    }

    /// The first byte from `i` that is not whitespace or in a comment.
    fn skip_trivia(&self, mut i: usize) -> usize {
        let b = self.b;
        loop {
            match b.get(i) {
                Some(c) if c.is_ascii_whitespace() => i += 1,
                Some(b'/') if b.get(i + 1) == Some(&b'/') => {
                    i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                }
                Some(b'/') if b.get(i + 1) == Some(&b'*') => {
                    match crate::format::lexical::block_comment_end(b, i) {
                        Some(end) => i = end,
                        None => return b.len(),
                    }
                }
                _ => return i,
            }
        }
    }

    /// The end (after the closer) of the bracketed group opening at `at`, over strings and
    /// comments.
    fn group_end(&self, at: usize) -> Option<usize> {
        use crate::format::lexical::{block_comment_end, string_literal_end};
        let b = self.b;
        let mut depth = 0usize;
        let mut i = at;
        while i < b.len() {
            match b[i] {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    i += 1;
                }
                b')' | b']' | b'}' => {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                }
                b'/' if b.get(i + 1) == Some(&b'*') => i = block_comment_end(b, i)?,
                _ => match string_literal_end(b, i) {
                    Some(end) => i = end?,
                    None => i += 1,
                },
            }
        }
        None
    }

    /// The end of an entity entry (after the `)` of its value), from its key.
    pub(crate) fn entry_end(&self, spans: &EntitySpans) -> Out<usize> {
        let at = spans.entry as usize;
        // The key, `:` and the value's `(`, with comments between them (which may hold brackets).
        let key_end = self.word_end(at).unwrap_or(at);
        let colon = self.skip_trivia(key_end);
        let open = if self.b.get(colon) == Some(&b':') {
            Some(self.skip_trivia(colon + 1))
        } else {
            None
        };
        open.filter(|&o| self.b.get(o) == Some(&b'('))
            .and_then(|o| self.group_end(o))
            .ok_or_else(|| Unlocated(format!("the entry at byte {at}")))
    }

    /// Whether `start..end` spans more than one line.
    pub(crate) fn spans_lines(&self, start: usize, end: usize) -> bool {
        self.b.get(start..end).is_some_and(|s| s.contains(&b'\n'))
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

    /// Replaces the value at `at` with `fragment`, laid out as the old value was.
    pub(crate) fn replace_value(&self, at: u32, fragment: &str, what: &str) -> Out<Splice> {
        let start = at as usize;
        if at == ABSENT {
            return Err(Unlocated(what.to_owned()));
        }
        let end = self.end_of(start, what)?;
        // A value on one line stays on one line, unless it was empty (`[]`, `None`) on a line
        // of its own: then it grows as the canonical layout does.
        let empty = matches!(self.s[start..end].trim(), "[]" | "{}" | "()" | "None");
        let multiline = self.spans_lines(start, end)
            || (fragment.contains('\n') && empty && !self.is_compact_context(start));
        Ok(Splice {
            start,
            end,
            text: self.fit(fragment, self.indent_of(start), multiline),
        })
    }

    /// Replaces the value at `at` with `fragment`, multi-line.
    fn replace_value_multiline(&self, at: u32, fragment: &str, what: &str) -> Out<Splice> {
        let start = at as usize;
        let end = self
            .value_end(start)
            .filter(|_| at != ABSENT)
            .ok_or_else(|| Unlocated(what.to_owned()))?;
        Ok(Splice {
            start,
            end,
            text: self.fit(fragment, self.indent_of(start), true),
        })
    }

    /// The items `fragments` put into the empty list (or map) at `at` whose brackets hold
    /// comments, before its closing bracket, so the comments stay: `None` when there is nothing
    /// but whitespace between the brackets (the caller replaces the value).
    fn fill_empty(&self, at: u32, fragments: &[String]) -> Option<Splice> {
        let start = at as usize;
        if at == ABSENT || fragments.is_empty() {
            return None;
        }
        let end = self.value_end(start)?;
        let closer = end - 1;
        if !matches!(self.b.get(start), Some(b'[' | b'{'))
            || self.s.get(start + 1..closer)?.trim().is_empty()
        {
            return None;
        }
        let ls = self.line_start(closer);
        let closer_alone = self.b[ls..closer].iter().all(|&c| c == b' ' || c == b'\t');
        if self.spans_lines(start, end) && closer_alone {
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

    /// Cuts the list item `start..end` with its comma, and its lines when it stands alone on
    /// them.
    pub(crate) fn cut_item(&self, start: usize, end: usize) -> Splice {
        let b = self.b;
        let (mut s, mut e) = (start, end);
        // Its comma, past comments between them (`item /* note */,`), which go with it.
        let after = self.skip_trivia(e);
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
