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

mod component;
mod instance;

use crate::format::source_map::{ENTITY_FIELDS, Span};
use crate::format::write::fragment;
use crate::format::{ComponentData, EntityNode, SceneDoc, SourceMap, TransformData};

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

/// The splices that turn the entries of the entities in `pairs` (each as read, and as it is
/// now) into text that reads as the new ones, sorted; every other byte stays.
pub(crate) fn entity_splices(
    text: &str,
    map: &SourceMap,
    pairs: &[(&EntityNode, &EntityNode)],
) -> Out<Vec<Splice>> {
    let t = Text::new(text);
    let mut out = Vec::new();
    for (old, new) in pairs {
        if !same_entity(old, new) {
            entity(&t, map, old, new, &mut out)?;
        }
    }
    out.sort_by_key(|s| (s.start, s.end));
    if out.windows(2).any(|w| w[0].end > w[1].start) {
        return Err(Unlocated("overlapping changes".to_owned()));
    }
    Ok(out)
}

/// Whether two entities are the same as written (a NaN is not equal to itself).
pub(crate) fn same_entity(a: &EntityNode, b: &EntityNode) -> bool {
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
            "instance" => instance::instance(t, map, old, new, out)?,
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
    let id = old.id;
    let parts = map.entity_spans(id).map(|e| &e.transform);
    transform_parts(
        t,
        parts,
        &old.transform,
        &new.transform,
        (
            map.entity_field_span(id, "transform"),
            &fragment::entity_field(new, "transform"),
        ),
        out,
    )
}

/// The splices from transform `was` to `now`, written at `parts` (each part's vector, then its
/// `x`, `y`, `z`): the changed numbers, or a changed vector where its numbers are not each
/// located, or `whole` (the transform's span and new text) where a part is not located.
fn transform_parts(
    t: &Text,
    parts: Option<&[[Span; 4]; 3]>,
    was: &TransformData,
    now: &TransformData,
    whole: (Option<Span>, &str),
    out: &mut Vec<Splice>,
) -> Out<()> {
    let vectors = |t: &TransformData| [t.translation, t.rotation, t.scale];
    let (was, now) = (vectors(was), vectors(now));
    let located = |s: Span| s.is_some().then_some(s);
    let mut splices = Vec::new();
    for p in 0..3 {
        let (a, b) = (was[p].to_array(), now[p].to_array());
        if a.iter().zip(&b).all(|(x, y)| same_float(*x, *y)) {
            continue;
        }
        let spans = parts.map(|parts| parts[p]);
        let axes = spans.map(|s| [s[1], s[2], s[3]].map(located));
        match (spans.and_then(|s| located(s[0])), axes) {
            (_, Some(axes)) if axes.iter().all(Option::is_some) => {
                for k in 0..3 {
                    if !same_float(a[k], b[k]) {
                        splices.push(t.replace_value(
                            axes[k],
                            &fragment::float(b[k]),
                            "a transform number",
                        )?);
                    }
                }
            }
            (Some(vector), _) => splices.push(t.replace_value(
                Some(vector),
                &fragment::vec3(now[p]),
                "a transform vector",
            )?),
            // A part the file leaves out: the whole transform.
            (None, _) => {
                out.push(t.replace_value(whole.0, whole.1, "transform")?);
                return Ok(());
            }
        }
    }
    out.extend(splices);
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
                component::component(t, map, map.component_spans(id, i), x, y, None, out)?;
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
        let items: Vec<String> = b[a.len()..].iter().map(fragment::component).collect();
        out.push(t.append_after(list_span, list[a.len() - 1], &items));
        return Ok(());
    }
    whole(out)
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

    pub(crate) fn line_start(&self, at: usize) -> usize {
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

    /// The items `fragments` appended to the list at `list` after its last item `last`: on
    /// lines of their own when the list's items are, each spread over lines when `last` is.
    pub(crate) fn append_after(
        &self,
        list: Option<Span>,
        last: Span,
        fragments: &[String],
    ) -> Splice {
        let list_lines = list.is_some_and(|l| self.spans_lines(l));
        let item_lines = self.spans_lines(last);
        let indent = self.indent_of(last.start as usize).to_owned();
        let mut text = String::new();
        for f in fragments {
            text.push_str(&self.item_after(f, &indent, list_lines, item_lines));
        }
        self.insert_after_item(last.end as usize, text)
    }

    /// Inserts `text` (items from [`item_after`](Self::item_after), each led by a comma) after
    /// the item ending at `end`, keeping its own trailing comma where it has one.
    pub(crate) fn insert_after_item(&self, end: usize, text: String) -> Splice {
        let after = self.skip_blank(end);
        if self.b.get(after) == Some(&b',') {
            // `item,` becomes `item, new,`: the new items take the old comma's place after them;
            // on lines of their own, after a comment that ends the item's line.
            let mut at = after + 1;
            if text[1..].starts_with(self.nl) {
                let rest = crate::format::lexical::skip_trivia_on_line(self.b, at);
                if matches!(self.b.get(rest), Some(b'\n' | b'\r')) {
                    at = rest;
                }
            }
            Splice {
                start: at,
                end: at,
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

    /// Where the name of the field whose value starts at `value` starts (`name` in
    /// `name: value`), when a field name is there.
    pub(crate) fn field_name_start(&self, value: usize) -> Option<usize> {
        let b = self.b;
        let mut p = value;
        while p > 0 && b[p - 1].is_ascii_whitespace() {
            p -= 1;
        }
        if p == 0 || b[p - 1] != b':' {
            return None;
        }
        p -= 1;
        while p > 0 && b[p - 1].is_ascii_whitespace() {
            p -= 1;
        }
        let end = p;
        while p > 0 && (b[p - 1].is_ascii_alphanumeric() || b[p - 1] == b'_') {
            p -= 1;
        }
        (p < end).then_some(p)
    }

    /// Whether bytes `from..to` are spaces and tabs only.
    pub(crate) fn is_blank(&self, from: usize, to: usize) -> bool {
        self.b
            .get(from..to)
            .is_some_and(|s| s.iter().all(|&c| c == b' ' || c == b'\t'))
    }

    /// Cuts the field `name: value` whose value is at `value`, with its comma, and its line
    /// when it stands alone on it.
    pub(crate) fn cut_field(&self, value: Span) -> Out<Splice> {
        let start = self
            .field_name_start(value.start as usize)
            .ok_or_else(|| Unlocated("a field's name".to_owned()))?;
        Ok(self.cut_item(Span::new(start as u32, value.end)))
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
        } else if s > 0 && b[s - 1] == b' ' && line_end.is_none() {
            // In the middle of a line (`a, b, c`): the blanks after it go too (`a, c`).
            e = rest;
        }
        Splice {
            start: s,
            end: e,
            text: String::new(),
        }
    }
}
