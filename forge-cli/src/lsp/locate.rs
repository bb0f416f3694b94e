//! What is at a place of a document: the entity, component, field, id or reference a byte
//! offset (after a byte-order mark) falls on, found through the reader's source map and the
//! format's lexer ([`tokens`]), and the places where each entity is named. Plain byte ranges:
//! the protocol's positions are `proto`'s.

use std::ops::Range;
use std::path::PathBuf;

use bevy_forge_scene::format::{
    CustomPart, LayerPart, OverridePart, ParsedScene, Span, TokenKind, tokens,
};
use bevy_forge_scene::schema::expr::entity_references;

/// A place in a file: this document (`file` `None`) or another, in bytes of its text after a
/// byte-order mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The other file, when it is not the document asked about.
    pub file: Option<PathBuf>,
    /// Where in it.
    pub at: At,
}

/// Where a [`Place`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum At {
    /// A byte range of the text.
    Bytes(Range<usize>),
    /// A 1-based line and column (in characters) of a file whose text could not be read.
    LineColumn(u32, u32),
}

impl Place {
    /// Bytes `range` of this document.
    pub fn here(range: Range<usize>) -> Self {
        Self {
            file: None,
            at: At::Bytes(range),
        }
    }

    /// Bytes `range` of the file at `path`.
    pub fn in_file(path: PathBuf, range: Range<usize>) -> Self {
        Self {
            file: Some(path),
            at: At::Bytes(range),
        }
    }
}

/// Something a position falls on.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// An entity's key or its `id` value: the entity itself.
    Entity { id: u64, range: Range<usize> },
    /// An id in an entity's `parent` or `children`, in `roots`, or in an override's `children`.
    Id {
        id: u64,
        field: &'static str,
        range: Range<usize>,
    },
    /// An entity reference in a custom field's expression (`#7`, `#7/2`); `None` when an id
    /// does not fit.
    Reference {
        path: Option<Vec<u64>>,
        range: Range<usize>,
    },
    /// The `type` tag of component `index` of entity `entity`.
    Tag {
        entity: u64,
        index: usize,
        range: Range<usize>,
    },
    /// A payload field of a built-in component (its name or value), in an entity's components
    /// or an override's `set`.
    Field {
        tag: &'static str,
        path: &'static str,
        range: Range<usize>,
    },
    /// The `type_path` of a custom component, or one of its fields' names.
    Custom {
        entity: u64,
        index: usize,
        field: Option<usize>,
        range: Range<usize>,
    },
    /// The `scene` of the instance on entity `entity`.
    Scene { entity: u64, range: Range<usize> },
    /// An id of an override's `target` (the path up to it).
    Target {
        entity: u64,
        index: usize,
        path: Vec<u64>,
        range: Range<usize>,
    },
    /// A node name of a model override's `target` (the node path up to it) on the instance of
    /// model `model`.
    Node {
        model: String,
        path: Vec<String>,
        range: Range<usize>,
    },
    /// Cell `(i, j)` of tile layer `layer`: a character of its `rows` (`key` [`EMPTY_CELL`]
    /// for an empty cell) or an entry of its sparse `cells`.
    ///
    /// [`EMPTY_CELL`]: bevy_forge_scene::format::EMPTY_CELL
    Cell {
        layer: u64,
        i: u64,
        j: u64,
        key: char,
        range: Range<usize>,
    },
}

impl Item {
    /// Where it is, in bytes of the text after a byte-order mark.
    pub fn range(&self) -> Range<usize> {
        match self {
            Item::Entity { range, .. }
            | Item::Id { range, .. }
            | Item::Reference { range, .. }
            | Item::Tag { range, .. }
            | Item::Field { range, .. }
            | Item::Custom { range, .. }
            | Item::Scene { range, .. }
            | Item::Target { range, .. }
            | Item::Node { range, .. }
            | Item::Cell { range, .. } => range.clone(),
        }
    }
}

fn contains(range: &Range<usize>, offset: usize) -> bool {
    range.start <= offset && offset <= range.end
}

fn span(s: Option<Span>) -> Option<Range<usize>> {
    s?.range()
}

/// The entity whose entry holds byte `offset` (entries are in file order).
pub fn entity_at(parsed: &ParsedScene, offset: usize) -> Option<u64> {
    let entities = &parsed.doc.entities;
    let start = |i: usize| {
        entities
            .get_index(i)
            .and_then(|(id, _)| parsed.source_map.entity_span(*id))
            .map_or(0, |s| s.start as usize)
    };
    // The last entry starting at or before `offset`.
    let mut lo = 0;
    let mut hi = entities.len();
    while lo < hi {
        let mid = (lo + hi) / 2;
        if start(mid) <= offset {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let (id, _) = entities.get_index(lo.checked_sub(1)?)?;
    let entry = span(parsed.source_map.entity_span(*id))?;
    contains(&entry, offset).then_some(*id)
}

/// The tile layer cell byte `offset` falls on: a character of a row string, or a sparse
/// cell's entry.
fn cell_at(parsed: &ParsedScene, offset: usize) -> Option<Item> {
    let map = &parsed.source_map;
    for layer in &parsed.doc.layers {
        for (r, row) in layer.rows.iter().enumerate() {
            let Some(written) = span(map.layer_part_span(layer.id, LayerPart::Row(r))) else {
                continue;
            };
            if !contains(&written, offset) {
                continue;
            }
            // Each character's place in the text (escapes and raw strings included).
            let Some(whole) = map.layer_part_span(layer.id, LayerPart::Row(r)) else {
                continue;
            };
            let at = |byte: usize| map.expr_offset(whole, row, byte);
            let mut chars = row.char_indices().enumerate().peekable();
            while let Some((column, (byte, key))) = chars.next() {
                let end = chars.peek().map_or(row.len(), |(_, (b, _))| *b);
                let range = at(byte)..at(end);
                if range.start <= offset && offset < range.end.max(range.start + 1) {
                    let (i, j) = layer.row_cell(r, column);
                    return Some(Item::Cell {
                        layer: layer.id,
                        i,
                        j,
                        key,
                        range,
                    });
                }
            }
            return None;
        }
        for (k, cell) in layer.cells.iter().enumerate() {
            let Some(written) = span(map.layer_part_span(layer.id, LayerPart::Cell(k))) else {
                continue;
            };
            if contains(&written, offset) {
                return Some(Item::Cell {
                    layer: layer.id,
                    i: u64::from(cell.i),
                    j: u64::from(cell.j),
                    key: cell.key,
                    range: written,
                });
            }
        }
    }
    None
}

/// What byte `offset` of `text` (the text `parsed` was read from, after its byte-order mark)
/// falls on.
pub fn item_at(parsed: &ParsedScene, text: &str, offset: usize) -> Option<Item> {
    let map = &parsed.source_map;
    if let Some(roots) = span(map.top_field_span("roots"))
        && contains(&roots, offset)
    {
        return ids_in(text, roots)
            .find(|(r, _)| contains(r, offset))
            .map(|(range, id)| Item::Id {
                id,
                field: "roots",
                range,
            });
    }
    if let Some(cell) = cell_at(parsed, offset) {
        return Some(cell);
    }
    let id = entity_at(parsed, offset)?;
    let entity = parsed.doc.entities.get(&id)?;
    let entry = span(map.entity_span(id))?;
    let key_end = token_end(text, entry.start);
    if contains(&(entry.start..key_end), offset) {
        return Some(Item::Entity {
            id,
            range: entry.start..key_end,
        });
    }
    if let Some(r) = span(map.entity_field_span(id, "id"))
        && contains(&r, offset)
    {
        return Some(Item::Entity { id, range: r });
    }
    for field in ["parent", "children"] {
        if let Some(r) = span(map.entity_field_span(id, field))
            && contains(&r, offset)
        {
            return ids_in(text, r)
                .find(|(r, _)| contains(r, offset))
                .map(|(range, id)| Item::Id { id, field, range });
        }
    }
    for index in 0..entity.components.len() {
        let Some(c) = span(map.component_span(id, index)) else {
            continue;
        };
        if !contains(&c, offset) {
            continue;
        }
        return component_item(parsed, text, id, index, offset);
    }
    if let Some(instance) = &entity.instance {
        if let Some(r) = span(map.instance_scene_span(id))
            && contains(&r, offset)
        {
            return Some(Item::Scene {
                entity: id,
                range: r,
            });
        }
        for (index, o) in instance.overrides.iter().enumerate() {
            if let Some(r) = span(map.override_part_span(id, index, OverridePart::Field("target")))
                && contains(&r, offset)
            {
                if let Some(model) = &instance.model {
                    let names = strings_in(text, r);
                    let at = names.iter().position(|(r, _)| contains(r, offset))?;
                    return Some(Item::Node {
                        model: model.to_string(),
                        path: names[..=at].iter().map(|(_, n)| n.clone()).collect(),
                        range: names[at].0.clone(),
                    });
                }
                let ids: Vec<_> = ids_in(text, r).collect();
                let at = ids.iter().position(|(r, _)| contains(r, offset))?;
                return Some(Item::Target {
                    entity: id,
                    index,
                    path: o.target.iter().take(at + 1).copied().collect(),
                    range: ids[at].0.clone(),
                });
            }
            if let Some(r) =
                span(map.override_part_span(id, index, OverridePart::Field("children")))
                && contains(&r, offset)
            {
                return ids_in(text, r)
                    .find(|(r, _)| contains(r, offset))
                    .map(|(range, id)| Item::Id {
                        id,
                        field: "children",
                        range,
                    });
            }
            for (i, set) in o.set.iter().enumerate() {
                // A built-in's fields the override sets: the innermost holding the offset.
                let tag = set.component.tag();
                let field = set
                    .component
                    .builtin()
                    .into_iter()
                    .flat_map(|b| b.fields())
                    .filter_map(|f| {
                        let part = OverridePart::SetField(i, f.path);
                        let value = span(map.override_part_span(id, index, part))?;
                        let start = name_before(text, value.start).unwrap_or(value.start);
                        contains(&(start..value.end), offset).then_some((f.path, start..value.end))
                    })
                    .min_by_key(|(_, r)| r.end - r.start);
                if let Some((path, range)) = field {
                    return Some(Item::Field { tag, path, range });
                }
                if let bevy_forge_scene::format::ComponentData::Custom(custom) = &set.component {
                    for fi in 0..custom.fields.len() {
                        let part = OverridePart::SetCustomExpr(i, fi);
                        if let Some(item) = reference_in(
                            parsed,
                            map.override_part_span(id, index, part),
                            &custom.fields[fi].expr,
                            offset,
                        ) {
                            return Some(item);
                        }
                    }
                }
            }
        }
    }
    None
}

/// What byte `offset` falls on inside component `index` of entity `id`.
fn component_item(
    parsed: &ParsedScene,
    text: &str,
    id: u64,
    index: usize,
    offset: usize,
) -> Option<Item> {
    let map = &parsed.source_map;
    let component = parsed.doc.entities.get(&id)?.components.get(index)?;
    if let Some(r) = span(map.component_tag_span(id, index))
        && contains(&r, offset)
    {
        return Some(Item::Tag {
            entity: id,
            index,
            range: r,
        });
    }
    if let bevy_forge_scene::format::ComponentData::Custom(custom) = component {
        for (fi, field) in custom.fields.iter().enumerate() {
            if let Some(r) = span(map.custom_field_span(id, index, fi, CustomPart::Name))
                && contains(&r, offset)
            {
                return Some(Item::Custom {
                    entity: id,
                    index,
                    field: Some(fi),
                    range: r,
                });
            }
            let expr = map.custom_field_span(id, index, fi, CustomPart::Expr);
            if let Some(item) = reference_in(parsed, expr, &field.expr, offset) {
                return Some(item);
            }
        }
        if let Some(r) = span(map.component_field_span(id, index, "type_path"))
            && contains(&r, offset)
        {
            return Some(Item::Custom {
                entity: id,
                index,
                field: None,
                range: r,
            });
        }
        // On `type_path:` itself.
        return None;
    }
    // The innermost payload field whose name or value holds the offset.
    map.component_fields(id, index)
        .filter_map(|(path, s)| {
            let value = s.range()?;
            let start = name_before(text, value.start).unwrap_or(value.start);
            contains(&(start..value.end), offset).then_some((path, start..value.end))
        })
        .min_by_key(|(_, r)| r.end - r.start)
        .map(|(path, range)| Item::Field {
            tag: component.tag(),
            path,
            range,
        })
}

/// The reference at `offset` in the expression `expr` read at `at`.
fn reference_in(parsed: &ParsedScene, at: Option<Span>, expr: &str, offset: usize) -> Option<Item> {
    let at = at?;
    let r = at.range()?;
    if !contains(&r, offset) {
        return None;
    }
    references_of(parsed, at, expr)
        .into_iter()
        .find(|(r, _)| contains(r, offset))
        .map(|(range, path)| Item::Reference { path, range })
}

/// The entity references of expression `expr` read at `at`, with their byte ranges in the file.
pub fn references_of(
    parsed: &ParsedScene,
    at: Span,
    expr: &str,
) -> Vec<(Range<usize>, Option<Vec<u64>>)> {
    entity_references(expr)
        .into_iter()
        .map(|r| {
            let start = parsed.source_map.expr_offset(at, expr, r.range.start);
            let end = parsed.source_map.expr_offset(at, expr, r.range.end);
            (start..end.max(start), r.path)
        })
        .collect()
}

/// Every place of the document that names an entity of its own, with the entity's id path as
/// named (`[7]` for the entity 7 itself, `[7, 2]` for `#7/2` or an override target of
/// instance 7): keys, `id`s, `parent`s, `children`, `roots`, references, override targets and
/// children.
pub fn names(parsed: &ParsedScene, text: &str) -> Vec<(Range<usize>, Vec<u64>, &'static str)> {
    let map = &parsed.source_map;
    let mut out = Vec::new();
    if let Some(r) = span(map.top_field_span("roots")) {
        out.extend(ids_in(text, r).map(|(r, id)| (r, vec![id], "roots")));
    }
    for (&id, entity) in &parsed.doc.entities {
        if let Some(entry) = span(map.entity_span(id)) {
            out.push((entry.start..token_end(text, entry.start), vec![id], "key"));
        }
        if let Some(r) = span(map.entity_field_span(id, "id")) {
            out.push((r, vec![id], "id"));
        }
        for field in ["parent", "children"] {
            if let Some(r) = span(map.entity_field_span(id, field)) {
                out.extend(ids_in(text, r).map(|(r, id)| (r, vec![id], field)));
            }
        }
        for (index, c) in entity.components.iter().enumerate() {
            if let bevy_forge_scene::format::ComponentData::Custom(custom) = c {
                for (fi, f) in custom.fields.iter().enumerate() {
                    if let Some(at) = map.custom_field_span(id, index, fi, CustomPart::Expr) {
                        for (r, path) in references_of(parsed, at, &f.expr) {
                            if let Some(path) = path {
                                out.push((r, path, "reference"));
                            }
                        }
                    }
                }
            }
        }
        if let Some(instance) = &entity.instance {
            for (index, o) in instance.overrides.iter().enumerate() {
                if let Some(r) =
                    span(map.override_part_span(id, index, OverridePart::Field("target")))
                {
                    for (k, (r, _)) in ids_in(text, r).enumerate() {
                        let mut path = vec![id];
                        path.extend(o.target.iter().take(k + 1));
                        out.push((r, path, "target"));
                    }
                }
                if let Some(r) =
                    span(map.override_part_span(id, index, OverridePart::Field("children")))
                {
                    out.extend(ids_in(text, r).map(|(r, id)| (r, vec![id], "children")));
                }
                for (i, set) in o.set.iter().enumerate() {
                    if let bevy_forge_scene::format::ComponentData::Custom(custom) = &set.component
                    {
                        for (fi, f) in custom.fields.iter().enumerate() {
                            let part = OverridePart::SetCustomExpr(i, fi);
                            if let Some(at) = map.override_part_span(id, index, part) {
                                for (r, path) in references_of(parsed, at, &f.expr) {
                                    if let Some(path) = path {
                                        // Inside an instance, references name its prefab's
                                        // entities.
                                        let mut full = vec![id];
                                        full.extend(path);
                                        out.push((r, full, "reference"));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// The unsigned integers written in `range` of `text`, with where each is (numbers of the
/// format's lexer: not those in comments or strings).
pub fn ids_in(text: &str, range: Range<usize>) -> impl Iterator<Item = (Range<usize>, u64)> + '_ {
    let end = range.end.min(text.len());
    let start = range.start.min(end);
    let inside = text.get(start..end).unwrap_or_default();
    tokens(inside)
        .filter(|t| t.kind == TokenKind::Number)
        .filter_map(move |t| {
            let digits: String = inside[t.range.clone()]
                .chars()
                .filter(|c| *c != '_')
                .collect();
            let id = digits.parse().ok()?;
            Some((start + t.range.start..start + t.range.end, id))
        })
}

/// The closed strings in `text[range]` (a model override's node path), by range and content
/// (escapes are not read: node names are plain).
pub fn strings_in(text: &str, range: Range<usize>) -> Vec<(Range<usize>, String)> {
    let end = range.end.min(text.len());
    let start = range.start.min(end);
    let inside = text.get(start..end).unwrap_or_default();
    tokens(inside)
        .filter(|t| t.kind == TokenKind::String { closed: true })
        .filter_map(|t| {
            let token = &inside[t.range.clone()];
            let open = token.find('"')? + 1;
            let close = token.rfind('"')?.max(open);
            Some((
                start + t.range.start..start + t.range.end,
                token[open..close].to_owned(),
            ))
        })
        .collect()
}

/// The field name written before the value starting at byte `value` (`intensity` of
/// `intensity: 800.0`), when there is one.
pub fn name_before(text: &str, value: usize) -> Option<usize> {
    let before = text.get(..value)?.trim_end();
    let before = before.strip_suffix(':')?.trim_end();
    let start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    (start < before.len()).then_some(start)
}

/// The end of the token starting at byte `offset` of `text`: a string to its closing quote, a
/// word, number or reference (`#7/2`) to its last character, a bracket or anything else one
/// character.
pub fn token_end(text: &str, offset: usize) -> usize {
    let Some(rest) = text.get(offset..) else {
        return offset.min(text.len());
    };
    let Some(first) = rest.chars().next() else {
        return offset;
    };
    if first == '"' || (first == 'r' && rest[1..].starts_with(['"', '#'])) {
        // A string whole; one not closed to the end of its line.
        if let Some(t) = tokens(rest).next()
            && let TokenKind::String { closed } = t.kind
        {
            let line = rest.find('\n').unwrap_or(rest.len());
            return offset + if closed { t.range.end } else { line };
        }
    }
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '+' | '#' | '/');
    if matches!(first, '[' | '(' | '{') {
        // A bracketed value that closes on its line, whole (`[9]`, `(x: 1.0, y: 2.0)`); brackets
        // in strings and comments do not count.
        let line = rest.split('\n').next().unwrap_or_default();
        let mut depth = 0usize;
        for t in tokens(line).filter(|t| t.kind == TokenKind::Punct) {
            match &line[t.range.clone()] {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return offset + t.range.end;
                    }
                }
                _ => {}
            }
        }
        return offset + 1;
    }
    if !word(first) {
        return offset + first.len_utf8();
    }
    offset + word_len(rest)
}

/// The length of the word at the start of `rest`: identifier characters, digits, `.`, `-`,
/// `+`, `#`, `/` and `::` (a type path), not a single `:` (the one after a field name).
fn word_len(rest: &str) -> usize {
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b':' {
            if bytes.get(i + 1) == Some(&b':') {
                i += 2;
                continue;
            }
            break;
        }
        if b.is_ascii_alphanumeric()
            || matches!(b, b'_' | b'.' | b'-' | b'+' | b'#' | b'/')
            || b >= 0x80
        {
            i += 1;
            continue;
        }
        break;
    }
    // Never inside a character.
    while i < rest.len() && !rest.is_char_boundary(i) {
        i += 1;
    }
    i.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_end_where_an_editor_would_stop() {
        let text = r#"name: "a \"b\" c", 12: x::Y, #7/2)"#;
        assert_eq!(&text[6..token_end(text, 6)], r#""a \"b\" c""#);
        let at = text.find("12").unwrap_or_default();
        assert_eq!(&text[at..token_end(text, at)], "12");
        let at = text.find("x::").unwrap_or_default();
        assert_eq!(&text[at..token_end(text, at)], "x::Y");
        let at = text.find('#').unwrap_or_default();
        assert_eq!(&text[at..token_end(text, at)], "#7/2");
        assert_eq!(token_end(text, text.len()), text.len());
        let list = "children: [1, [2]], x\n[\n]";
        assert_eq!(&list[10..token_end(list, 10)], "[1, [2]]");
        let open = list.rfind('[').unwrap_or_default();
        assert_eq!(token_end(list, open), open + 1);
        assert_eq!(name_before("  intensity:  8", 14), Some(2));
        assert_eq!(token_end("[1, \"]\", 2] x", 0), 11);
    }

    /// Ids in comments are not ids: block comments as line comments.
    #[test]
    fn ids_skip_comments_and_strings() {
        let text = "children: [2, /* 3 */ 4, // 5\n 6_0], \"7\"";
        let ids: Vec<u64> = ids_in(text, 0..text.len()).map(|(_, id)| id).collect();
        assert_eq!(ids, [2, 4, 60]);
    }
}
