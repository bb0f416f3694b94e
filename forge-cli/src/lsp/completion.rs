//! Completion: what may be written where the cursor is, found by reading the text before it
//! with the format's lexer (it need not read as a scene while being typed): component tags with their
//! payload, payload fields not yet set, enum values, custom type paths and fields from the
//! schema file, `#` and the scene's ids with their names, ids in `parent`, `children`, `roots`
//! and override targets, asset paths from the assets directory, and a new entity entry.

use std::collections::HashSet;
use std::ops::Range;

use bevy_forge_scene::format::{BuiltinTag, SceneDoc, TokenKind, tokens};
use bevy_forge_scene::project::AssetKind;

use super::builtin::{self, BUILTINS, SHAPES};
use super::hover::{builtin_markdown, custom_field_markdown, field_markdown, node_children};
use super::locate::strings_in;
use super::state::{Document, State};

/// What a completion item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A component tag.
    Component,
    /// A custom component's type path.
    Type,
    /// A field to write.
    Field,
    /// A value of a closed set (a visibility mode, a mesh source or shape).
    Value,
    /// An entity (an id or a reference).
    Entity,
    /// An asset file.
    File,
    /// A whole new entry.
    Snippet,
}

/// One thing that may be written at the cursor: `insert` in place of bytes `replace`.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub label: String,
    pub kind: Kind,
    pub detail: Option<String>,
    pub insert: String,
    /// Whether `insert` is a snippet (`${1:..}` tab stops).
    pub snippet: bool,
    /// Markdown documentation.
    pub docs: Option<String>,
    pub replace: Range<usize>,
    /// What the client filters by, when not the label.
    pub filter: Option<String>,
}

/// One open bracket before the cursor.
#[derive(Debug, Default, Clone)]
struct Frame {
    /// The field the bracket is the value of (`data`, `children`); `Some(` keeps its field's.
    key: Option<String>,
    /// The field being written at this level: the last `name:` after the last `,`.
    current: Option<String>,
    /// The fields written at this level.
    keys: Vec<String>,
    /// Plain values written at this level (`type: sprite`, `scene: "a.forge.ron"`).
    values: Vec<(String, String)>,
    /// `name` values of the entries closed inside it (custom fields set).
    names: Vec<String>,
}

impl Frame {
    fn value(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Where the cursor is, read from the text before it.
#[derive(Debug, Default)]
struct Context {
    stack: Vec<Frame>,
    /// Inside a string: the byte its content starts at.
    string: Option<usize>,
    /// The start of the word being typed (the cursor when none).
    word: usize,
}

/// Reads `text[..end]` with the format's lexer: the brackets open at `end`, the field being
/// written in each, and whether `end` is inside a string (it need not read as a scene).
fn scan(text: &str, end: usize) -> Context {
    let end = end.min(text.len());
    let before = text.get(..end).unwrap_or_default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut last_word: Option<Range<usize>> = None;
    let mut string = None;
    let mut all = tokens(before).peekable();
    while let Some(t) = all.next() {
        let token = &before[t.range.clone()];
        match t.kind {
            TokenKind::Whitespace | TokenKind::Comment { .. } => continue,
            TokenKind::String { closed: false } => {
                string = Some(t.range.start + token.find('"').map_or(1, |q| q + 1));
                break;
            }
            TokenKind::String { closed: true } => {
                if let Some(f) = stack.last_mut()
                    && let Some(key) = f.current.clone()
                {
                    let open = token.find('"').map_or(1, |q| q + 1);
                    let close = token.rfind('"').unwrap_or(token.len()).max(open);
                    f.values.push((key, token[open..close].to_owned()));
                }
                last_word = None;
            }
            TokenKind::Ident | TokenKind::Number => {
                if let Some(f) = stack.last_mut()
                    && let Some(key) = f.current.clone()
                    && f.keys.last() == Some(&key)
                {
                    f.values.push((key, token.to_owned()));
                }
                last_word = Some(t.range.clone());
            }
            TokenKind::Punct => match token {
                "(" | "[" | "{" => {
                    let word = last_word.take().map(|r| &before[r]);
                    let top = stack.last();
                    let key = match word {
                        Some("Some") => top
                            .and_then(|f| f.current.clone())
                            .or_else(|| top.and_then(|f| f.key.clone())),
                        _ => top.and_then(|f| f.current.clone()),
                    };
                    stack.push(Frame {
                        key,
                        ..Frame::default()
                    });
                }
                ")" | "]" | "}" => {
                    if let Some(closed) = stack.pop()
                        && let Some(parent) = stack.last_mut()
                        && let Some(name) = closed.value("name")
                    {
                        parent.names.push(name.to_owned());
                    }
                    last_word = None;
                }
                "," => {
                    if let Some(f) = stack.last_mut() {
                        f.current = None;
                    }
                    last_word = None;
                }
                // `a::b` (a type path outside a string) is not a field.
                _ if all.peek().is_some_and(|n| &before[n.range.clone()] == ":") => {
                    all.next();
                }
                _ => {
                    if let (Some(w), Some(f)) = (last_word.take(), stack.last_mut()) {
                        let key = before[w].to_owned();
                        f.keys.push(key.clone());
                        f.current = Some(key);
                    }
                }
            },
            _ => last_word = None,
        }
    }
    let word = match string {
        Some(s) => s,
        None => before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1),
    };
    Context {
        stack,
        string,
        word,
    }
}

/// What may be written at byte `offset` of `doc`.
pub fn completion(state: &State, doc: &Document, offset: usize) -> Vec<Completion> {
    let schema = state.schema_of(doc);
    let index = state.assets_of(doc);
    let body = doc.body();
    let offset = offset.min(body.len());
    let cx = scan(body, offset);
    let replace = cx.word..offset;
    let scene = doc.doc();
    let mut items: Vec<Completion> = Vec::new();
    let mut add = |label: String,
                   kind: Kind,
                   detail: Option<String>,
                   insert: String,
                   snippet: bool,
                   docs: Option<String>| {
        items.push(Completion {
            label,
            kind,
            detail,
            insert,
            snippet,
            docs,
            replace: replace.clone(),
            filter: None,
        });
    };
    let top = cx.stack.last().cloned().unwrap_or_default();
    let parent = cx
        .stack
        .len()
        .checked_sub(2)
        .and_then(|i| cx.stack.get(i))
        .cloned()
        .unwrap_or_default();
    let key = top.current.clone();
    let key = key.as_deref();
    let frame_key = top.key.as_deref();

    if let Some(start) = cx.string {
        let content = &body[start..offset];
        // `#` and ids in an expression.
        if let Some(hash) = content.rfind('#')
            && content[hash + 1..]
                .chars()
                .all(|c| c.is_ascii_digit() || c == '/')
        {
            let typed_ref = &content[hash..];
            let at = start + hash..offset;
            for (path, name) in entity_paths(doc, scene) {
                let label = format!("#{path}");
                if !label.starts_with(typed_ref) {
                    continue;
                }
                items.push(Completion {
                    label: label.clone(),
                    kind: Kind::Entity,
                    detail: Some(name),
                    insert: label.clone(),
                    snippet: false,
                    docs: None,
                    replace: at.clone(),
                    filter: Some(label),
                });
            }
            return items;
        }
        // A node name of a model override's `target`: the nodes below the path so far.
        if frame_key == Some("target")
            && let Some((model, root)) = model_of(&cx, doc)
        {
            for name in node_children(&root, &model, &path_before(body, start)) {
                add(
                    name.clone(),
                    Kind::Value,
                    Some("model node".to_owned()),
                    name,
                    false,
                    None,
                );
            }
            return items;
        }
        let kinds: &[AssetKind] = match (key.or(frame_key), frame_key) {
            (Some("type_path"), _) => {
                for s in schema.iter().flat_map(|s| &s.components) {
                    add(
                        s.type_path.clone(),
                        Kind::Type,
                        Some(s.type_name.clone()),
                        s.type_path.clone(),
                        false,
                        (!s.docs.is_empty()).then(|| s.docs.clone()),
                    );
                }
                return items;
            }
            (Some("name"), _) if parent.key.as_deref() == Some("fields") => {
                custom_fields(&cx, schema, false, &mut add);
                return items;
            }
            (Some("value"), _) if top.value("type_path").is_some() => {
                enum_variants(schema, top.value("type_path"), &mut add);
                return items;
            }
            (Some("scene"), _) => &[AssetKind::Scene],
            (Some("image"), _) => &[AssetKind::Image],
            (Some("value"), _) | (Some("mesh"), _) => &[AssetKind::Mesh],
            (Some("remove"), _) | (_, Some("remove")) => &[],
            _ => &[
                AssetKind::Image,
                AssetKind::Mesh,
                AssetKind::Scene,
                AssetKind::Font,
                AssetKind::Audio,
            ],
        };
        for (path, kind) in index.iter().flat_map(|i| i.iter()) {
            if kinds.contains(&kind) && path.starts_with(content) {
                add(
                    path.to_owned(),
                    Kind::File,
                    Some(kind.name().to_owned()),
                    path.to_owned(),
                    false,
                    None,
                );
            }
        }
        // The editor replaces from the string's start.
        return items;
    }

    match (key, frame_key) {
        (Some("type"), _) => {
            let rest_of_line = body[offset..].lines().next().unwrap_or_default();
            let has_data = rest_of_line.contains("data");
            for b in BUILTINS {
                let insert = if has_data {
                    b.tag.to_owned()
                } else {
                    tag_snippet(b)
                };
                add(
                    b.tag.to_owned(),
                    Kind::Component,
                    Some(b.bevy.to_owned()),
                    insert,
                    !has_data,
                    Some(builtin_markdown(b)),
                );
            }
            let custom = if has_data {
                "custom".to_owned()
            } else {
                "custom, data: (type_path: \"$1\", fields: [$0])".to_owned()
            };
            add(
                "custom".to_owned(),
                Kind::Component,
                Some("a component of the game's own type".to_owned()),
                custom,
                !has_data,
                None,
            );
        }
        (Some("data"), _) if top.value("type") == Some("visibility") => {
            if let Some(b) = builtin::builtin("visibility") {
                for v in builtin::modes(b) {
                    add(
                        (*v).to_owned(),
                        Kind::Value,
                        None,
                        (*v).to_owned(),
                        false,
                        None,
                    );
                }
            }
        }
        (Some("source"), Some("mesh")) => {
            for v in ["primitive", "asset"] {
                add(v.to_owned(), Kind::Value, None, v.to_owned(), false, None);
            }
        }
        (Some("value"), Some("mesh")) => {
            for (name, example) in SHAPES {
                add(
                    (*name).to_owned(),
                    Kind::Value,
                    None,
                    snippet_of(example),
                    true,
                    None,
                );
            }
        }
        (Some("parent"), _)
        | (_, Some("parent"))
        | (None, Some("children" | "roots"))
        | (Some(_), Some("children" | "roots")) => {
            for (id, name) in scene
                .iter()
                .flat_map(|s| s.entities.values().map(|e| (e.id, e.name.to_string())))
            {
                add(
                    id.to_string(),
                    Kind::Entity,
                    Some(name),
                    id.to_string(),
                    false,
                    None,
                );
            }
        }
        (_, Some("target")) if model_of(&cx, doc).is_some() => {
            if let Some((model, root)) = model_of(&cx, doc) {
                for name in node_children(&root, &model, &path_before(body, offset)) {
                    add(
                        name.clone(),
                        Kind::Value,
                        Some("model node".to_owned()),
                        format!("{name:?}"),
                        false,
                        None,
                    );
                }
            }
        }
        (_, Some("target")) => {
            // The prefab's entities: the instance's `scene`, read from the frame holding it.
            let prefab = cx
                .stack
                .iter()
                .rev()
                .find_map(|f| f.value("scene").map(str::to_owned));
            let root = doc.checked.as_ref().map(|c| c.root.clone());
            if let (Some(prefab), Some(root)) = (prefab, root)
                && let Some((_, parsed)) = state.read_scene(&root.join(&prefab))
            {
                for e in parsed.doc.entities.values() {
                    add(
                        e.id.to_string(),
                        Kind::Entity,
                        Some(e.name.to_string()),
                        e.id.to_string(),
                        false,
                        None,
                    );
                }
            }
        }
        (None, Some("data" | "material" | "mesh")) => {
            payload_fields(&cx, &top, &parent, &mut add);
        }
        (None, Some("fields")) => custom_fields(&cx, schema, true, &mut add),
        (None, Some("components")) => {
            for b in BUILTINS {
                add(
                    b.tag.to_owned(),
                    Kind::Component,
                    Some(b.bevy.to_owned()),
                    format!("({})", tag_snippet_full(b)),
                    true,
                    Some(builtin_markdown(b)),
                );
            }
        }
        (None, Some("entities")) => {
            let next = scene.map_or(1, |s| {
                s.entities.keys().max().map_or(1, |m| m + 1).max(s.next_id)
            });
            let entry = format!(
                "{next}: (\n  id: {next},\n  name: \"${{1:Entity}}\",\n  parent: None,\n  children: [],\n  transform: (\n    translation: (x: 0.0, y: 0.0, z: 0.0),\n    rotation: (x: 0.0, y: 0.0, z: 0.0),\n    scale: (x: 1.0, y: 1.0, z: 1.0),\n  ),\n  components: [$0],\n),"
            );
            add(
                format!("{next}: new entity"),
                Kind::Snippet,
                Some(format!(
                    "entity {next}, the next free id (remember `roots` or a parent's `children`, and `next_id`)"
                )),
                entry,
                true,
                None,
            );
        }
        _ => {}
    }
    items
}

/// Each entity the scene can name, by id path, with its name: its own, then those its
/// instances place.
fn entity_paths(doc: &Document, scene: Option<&SceneDoc>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = scene
        .iter()
        .flat_map(|s| s.entities.values())
        .map(|e| (e.id.to_string(), e.name.to_string()))
        .collect();
    if let Some(expanded) = doc.checked.as_ref().and_then(|c| c.expanded.as_ref()) {
        for (key, e) in &expanded.doc.entities {
            if let Some(path) = expanded.placed_path(*key) {
                let path: Vec<String> = path.iter().map(u64::to_string).collect();
                out.push((path.join("/"), e.name.to_string()));
            }
        }
    }
    out
}

type Add<'a> = dyn FnMut(String, Kind, Option<String>, String, bool, Option<String>) + 'a;

/// The payload fields of the built-in whose `data` (or a group of it) the cursor is in, those
/// not yet written first.
fn payload_fields(cx: &Context, top: &Frame, parent: &Frame, add: &mut Add<'_>) {
    // The component entry is the frame holding `type`: the parent for `data`, one more up for
    // a group.
    let (group, entry) = match top.key.as_deref() {
        Some("data") => (None, Some(parent)),
        Some(g) => (
            Some(g),
            cx.stack.len().checked_sub(3).and_then(|i| cx.stack.get(i)),
        ),
        None => (None, None),
    };
    let Some(tag) = entry.and_then(|e| e.value("type")) else {
        return;
    };
    let Some(b) = builtin::builtin(tag) else {
        return;
    };
    let written: HashSet<&str> = top.keys.iter().map(String::as_str).collect();
    match group {
        None => {
            for (name, fields) in builtin::top_names(b) {
                if written.contains(name) {
                    continue;
                }
                let value = builtin::top_example(name, &fields);
                let docs = match fields.as_slice() {
                    [f] if f.path == name => field_markdown(b, f),
                    _ => fields
                        .iter()
                        .map(|f| field_markdown(b, f))
                        .collect::<Vec<_>>()
                        .join("\n\n---\n\n"),
                };
                let detail = match fields.as_slice() {
                    [f] if f.path == name => f.kind.describe().to_owned(),
                    _ => "group".to_owned(),
                };
                add(
                    name.to_owned(),
                    Kind::Field,
                    Some(detail),
                    format!("{name}: ${{1:{}}}", snippet_escape(&value)),
                    true,
                    Some(docs),
                );
            }
        }
        Some(g) => {
            for f in b.fields() {
                let Some(name) = f.path.strip_prefix(g).and_then(|r| r.strip_prefix('.')) else {
                    continue;
                };
                if written.contains(name) {
                    continue;
                }
                add(
                    name.to_owned(),
                    Kind::Field,
                    Some(f.kind.describe().to_owned()),
                    format!("{name}: ${{1:{}}}", snippet_escape(builtin::example(f))),
                    true,
                    Some(field_markdown(b, f)),
                );
            }
        }
    }
}

/// The custom fields of the component whose `fields` the cursor is in, not yet set: whole
/// entries (`(name: "hp", expr: "10")`) or names.
fn custom_fields(
    cx: &Context,
    schema: Option<&bevy_forge_scene::schema::SchemaFile>,
    entries: bool,
    add: &mut Add<'_>,
) {
    let Some(schema) = schema else {
        return;
    };
    let Some(i) = cx
        .stack
        .iter()
        .rposition(|f| f.key.as_deref() == Some("fields"))
    else {
        return;
    };
    let fields = &cx.stack[i];
    let Some(type_path) = i
        .checked_sub(1)
        .and_then(|j| cx.stack[j].value("type_path"))
    else {
        return;
    };
    let Some(s) = schema.get(type_path) else {
        return;
    };
    for f in &s.fields {
        if fields.names.contains(&f.name) {
            continue;
        }
        let value = f.default.clone().unwrap_or_default();
        let insert = if entries {
            format!(
                "(name: \"{}\", expr: \"${{1:{}}}\")",
                f.name,
                snippet_escape(&value.replace('"', "\\\""))
            )
        } else {
            f.name.clone()
        };
        add(
            f.name.clone(),
            Kind::Field,
            Some(f.type_name.clone()),
            insert,
            entries,
            Some(custom_field_markdown(s, f)),
        );
    }
}

/// The variants of the enum component `type_path` for its `value` string: each as the value's
/// whole expression (`RigidBody::Pushed(${1:f32})`), its fields as placeholders of their types.
fn enum_variants(
    schema: Option<&bevy_forge_scene::schema::SchemaFile>,
    type_path: Option<&str>,
    add: &mut Add<'_>,
) {
    use bevy_forge_scene::schema::VariantSchema;
    let Some(s) = schema.zip(type_path).and_then(|(f, p)| f.get(p)) else {
        return;
    };
    for v in &s.variants {
        let path = format!("{}::{}", s.type_name, v.name());
        let placeholder = |i: usize, ty: &str| format!("${{{}:{}}}", i + 1, snippet_escape(ty));
        let (insert, shape) = match v {
            VariantSchema::Tuple { fields, .. } => {
                let args: Vec<String> = fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| placeholder(i, &f.type_name))
                    .collect();
                (format!("{path}({})", args.join(", ")), "tuple variant")
            }
            VariantSchema::Struct { fields, .. } => {
                let members: Vec<String> = fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| format!("{}: {}", f.name, placeholder(i, &f.type_name)))
                    .collect();
                // `}` outside a placeholder escaped too, as snippets allow.
                (
                    format!("{path} {{ {} \\}}", members.join(", ")),
                    "struct variant",
                )
            }
            _ => (path.clone(), "unit variant"),
        };
        let default = s.default.as_deref() == Some(path.as_str());
        let detail = if default {
            format!("{shape}, the default")
        } else {
            shape.to_owned()
        };
        add(
            path,
            Kind::Value,
            Some(detail),
            insert,
            true,
            (!s.docs.is_empty()).then(|| s.docs.clone()),
        );
    }
}

/// `tag, data: (field: value, ..)` for a `type:` being written.
fn tag_snippet(b: &BuiltinTag) -> String {
    let full = tag_snippet_full(b);
    full.strip_prefix("type: ").unwrap_or(&full).to_owned()
}

/// `type: tag, data: (..)` with a tab stop on each value.
fn tag_snippet_full(b: &BuiltinTag) -> String {
    if let Some(first) = builtin::modes(b).first() {
        return format!("type: {}, data: ${{1:{first}}}", b.tag);
    }
    let fields: Vec<String> = builtin::top_names(b)
        .iter()
        .enumerate()
        .map(|(i, (name, fields))| {
            format!(
                "{name}: ${{{}:{}}}",
                i + 1,
                snippet_escape(&builtin::top_example(name, fields))
            )
        })
        .collect();
    if fields.is_empty() {
        return format!("type: {}", b.tag);
    }
    format!("type: {}, data: ({})", b.tag, fields.join(", "))
}

fn snippet_of(example: &str) -> String {
    format!("${{1:{}}}", snippet_escape(example))
}

/// `s` inside a snippet placeholder: `$`, `}` and `\` escaped.
fn snippet_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '$' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The model of the instance being written (its `model`) and the assets directory it is read
/// from.
fn model_of(cx: &Context, doc: &Document) -> Option<(String, std::path::PathBuf)> {
    let model = cx
        .stack
        .iter()
        .rev()
        .find_map(|f| f.value("model").map(str::to_owned))?;
    let root = doc.checked.as_ref().map(|c| c.root.clone())?;
    Some((model, root))
}

/// The node names written in the `target` list open at byte `end` of `body`, before `end`.
fn path_before(body: &str, end: usize) -> Vec<String> {
    let open = body[..end].rfind('[').unwrap_or(end);
    strings_in(body, open..end)
        .into_iter()
        .map(|(_, n)| n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_knows_the_field_and_frames_at_the_cursor() {
        let text = r#"( entities: { 1: (components: [(type: point_light, data: (intensity: 1.0, "#;
        let cx = scan(text, text.len());
        let keys: Vec<Option<&str>> = cx.stack.iter().map(|f| f.key.as_deref()).collect();
        assert_eq!(
            keys,
            [
                None,
                Some("entities"),
                Some("1"),
                Some("components"),
                None,
                Some("data")
            ]
        );
        assert_eq!(cx.stack[4].value("type"), Some("point_light"));
        assert_eq!(cx.stack[5].keys, ["intensity"]);
        assert_eq!(cx.stack[5].current, None);
        let text = r#"(a: "x(", // (
          scene: "pre"#;
        let cx = scan(text, text.len());
        assert_eq!(cx.stack.len(), 1);
        assert_eq!(cx.string, Some(text.len() - 3));
        assert_eq!(cx.stack[0].current.as_deref(), Some("scene"));
    }
}
