//! `textDocument/completion`: what may be written where the cursor is, found by reading the
//! text before it (it need not read as a scene while being typed): component tags with their
//! payload, payload fields not yet set, enum values, custom type paths and fields from the
//! schema file, `#` and the scene's ids with their names, ids in `parent`, `children`, `roots`
//! and override targets, asset paths from the assets directory, and a new entity entry.

use std::collections::HashSet;

use bevy_forge_scene::format::{BuiltinTag, SceneDoc};
use bevy_forge_scene::project::AssetKind;
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, CompletionTextEdit,
    Documentation, InsertTextFormat, MarkupContent, MarkupKind, TextEdit,
};

use super::builtin::{self, BUILTINS, SHAPES};
use super::hover::{builtin_markdown, custom_field_markdown, field_markdown};
use super::server::Failure;
use super::state::{State, document};

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

/// Reads `text[..end]`, from `start` (a place outside any string or comment, `stack` open).
fn scan(text: &str, start: usize, end: usize, stack: Vec<Frame>) -> Context {
    let bytes = text.as_bytes();
    let end = end.min(bytes.len());
    let mut stack = stack;
    let mut i = start;
    let mut last_word: Option<(usize, usize)> = None;
    let mut string = None;
    while i < end {
        let b = bytes[i];
        match b {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < end && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < end && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'"' => {
                let content = i + 1;
                i += 1;
                let mut closed = false;
                while i < end {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => {
                            closed = true;
                            break;
                        }
                        _ => i += 1,
                    }
                }
                if !closed {
                    string = Some(content);
                    break;
                }
                if let Some(f) = stack.last_mut()
                    && let Some(key) = f.current.clone()
                {
                    let value = text.get(content..i).unwrap_or_default().to_owned();
                    f.values.push((key, value));
                }
                i += 1;
                last_word = None;
                continue;
            }
            b'(' | b'[' | b'{' => {
                let word = last_word.map(|(s, e)| &text[s..e]);
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
                last_word = None;
            }
            b')' | b']' | b'}' => {
                if let Some(closed) = stack.pop()
                    && let Some(parent) = stack.last_mut()
                    && let Some(name) = closed.value("name")
                {
                    parent.names.push(name.to_owned());
                }
                last_word = None;
            }
            b',' => {
                if let Some(f) = stack.last_mut() {
                    f.current = None;
                }
                last_word = None;
            }
            b':' if bytes.get(i + 1) == Some(&b':') => {
                i += 2;
                continue;
            }
            b':' => {
                if let (Some((s, e)), Some(f)) = (last_word, stack.last_mut()) {
                    let key = text[s..e].to_owned();
                    f.keys.push(key.clone());
                    f.current = Some(key);
                }
                last_word = None;
            }
            b if b.is_ascii_alphanumeric() || b == b'_' || b == b'#' => {
                let s = i;
                while i < end
                    && (bytes[i].is_ascii_alphanumeric()
                        || matches!(bytes[i], b'_' | b'.' | b'#' | b'/' | b'-'))
                {
                    i += 1;
                }
                last_word = Some((s, i));
                if let Some(f) = stack.last_mut()
                    && let Some(key) = f.current.clone()
                    && f.keys.last() == Some(&key)
                {
                    f.values.push((key, text[s..i].to_owned()));
                }
                continue;
            }
            _ => {
                if !b.is_ascii_whitespace() {
                    last_word = None;
                }
            }
        }
        i += 1;
    }
    let word = match string {
        Some(s) => s,
        None => {
            let before = &text[..end];
            before
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1)
        }
    };
    Context {
        stack,
        string,
        word,
    }
}

pub fn completion(
    state: &mut State,
    params: CompletionParams,
) -> Result<Option<CompletionResponse>, Failure> {
    let p = params.text_document_position;
    let (schema, index) = {
        let doc = document(state, &p.text_document.uri)?;
        let path = doc.path.clone();
        let assets = path
            .as_deref()
            .and_then(crate::files::project_of)
            .map(|project| project.assets_dir());
        let index = assets.and_then(|dir| state.index(&dir));
        (state.schema_for(path.as_deref()), index)
    };
    let doc = document(state, &p.text_document.uri)?;
    let encoding = state.encoding;
    let body = doc.body();
    let offset = doc.offset(p.position, encoding).min(body.len());
    let cx = scan(body, 0, offset, Vec::new());
    let replace = doc.range(cx.word..offset, encoding);
    let scene = doc.doc();
    let mut items: Vec<CompletionItem> = Vec::new();
    let mut add = |label: String,
                   kind: CompletionItemKind,
                   detail: Option<String>,
                   insert: String,
                   snippet: bool,
                   docs: Option<String>| {
        items.push(CompletionItem {
            label,
            kind: Some(kind),
            detail,
            documentation: docs.map(|value| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value,
                })
            }),
            insert_text_format: Some(if snippet {
                InsertTextFormat::SNIPPET
            } else {
                InsertTextFormat::PLAIN_TEXT
            }),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(replace, insert))),
            ..Default::default()
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
            let at = doc.range(start + hash..offset, encoding);
            for (path, name) in entity_paths(doc, scene) {
                let label = format!("#{path}");
                if !label.starts_with(typed_ref) {
                    continue;
                }
                items_push_ref(&mut items, label, name, at);
            }
            return Ok(Some(CompletionResponse::Array(items)));
        }
        let kinds: &[AssetKind] = match (key.or(frame_key), frame_key) {
            (Some("type_path"), _) => {
                for s in schema.iter().flat_map(|s| &s.components) {
                    add(
                        s.type_path.clone(),
                        CompletionItemKind::CLASS,
                        Some(s.type_name.clone()),
                        s.type_path.clone(),
                        false,
                        (!s.docs.is_empty()).then(|| s.docs.clone()),
                    );
                }
                return Ok(Some(CompletionResponse::Array(items)));
            }
            (Some("name"), _) if parent.key.as_deref() == Some("fields") => {
                custom_fields(&cx, schema.as_ref(), false, &mut add);
                return Ok(Some(CompletionResponse::Array(items)));
            }
            (Some("value"), _) if top.value("type_path").is_some() => {
                enum_variants(schema.as_ref(), top.value("type_path"), &mut add);
                return Ok(Some(CompletionResponse::Array(items)));
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
                    CompletionItemKind::FILE,
                    Some(kind.name().to_owned()),
                    path.to_owned(),
                    false,
                    None,
                );
            }
        }
        // The editor replaces from the string's start.
        return Ok(Some(CompletionResponse::Array(items)));
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
                    CompletionItemKind::STRUCT,
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
                CompletionItemKind::STRUCT,
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
                        CompletionItemKind::ENUM_MEMBER,
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
                add(
                    v.to_owned(),
                    CompletionItemKind::ENUM_MEMBER,
                    None,
                    v.to_owned(),
                    false,
                    None,
                );
            }
        }
        (Some("value"), Some("mesh")) => {
            for (name, example) in SHAPES {
                add(
                    (*name).to_owned(),
                    CompletionItemKind::ENUM_MEMBER,
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
                    CompletionItemKind::REFERENCE,
                    Some(name),
                    id.to_string(),
                    false,
                    None,
                );
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
                && let Ok(bytes) = state.file_text(&root.join(&prefab))
                && let Ok(parsed) = SceneDoc::from_str(
                    String::from_utf8_lossy(&bytes).trim_start_matches('\u{feff}'),
                )
            {
                for e in parsed.doc.entities.values() {
                    add(
                        e.id.to_string(),
                        CompletionItemKind::REFERENCE,
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
        (None, Some("fields")) => custom_fields(&cx, schema.as_ref(), true, &mut add),
        (None, Some("components")) => {
            for b in BUILTINS {
                add(
                    b.tag.to_owned(),
                    CompletionItemKind::STRUCT,
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
                CompletionItemKind::SNIPPET,
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
    Ok(Some(CompletionResponse::Array(items)))
}

fn items_push_ref(
    items: &mut Vec<CompletionItem>,
    label: String,
    name: String,
    at: lsp_types::Range,
) {
    items.push(CompletionItem {
        label: label.clone(),
        kind: Some(CompletionItemKind::REFERENCE),
        detail: Some(name),
        filter_text: Some(label.clone()),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(at, label))),
        ..Default::default()
    });
}

/// Each entity the scene can name, by id path, with its name: its own, then those its
/// instances place.
fn entity_paths(doc: &super::state::Document, scene: Option<&SceneDoc>) -> Vec<(String, String)> {
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

type Add<'a> =
    dyn FnMut(String, CompletionItemKind, Option<String>, String, bool, Option<String>) + 'a;

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
                    CompletionItemKind::FIELD,
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
                    CompletionItemKind::FIELD,
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
            CompletionItemKind::FIELD,
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
                (format!("{path} {{ {} \\}}", members.join(", ")), "struct variant")
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
            CompletionItemKind::ENUM_MEMBER,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_knows_the_field_and_frames_at_the_cursor() {
        let text = r#"( entities: { 1: (components: [(type: point_light, data: (intensity: 1.0, "#;
        let cx = scan(text, 0, text.len(), Vec::new());
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
        let cx = scan(text, 0, text.len(), Vec::new());
        assert_eq!(cx.stack.len(), 1);
        assert_eq!(cx.string, Some(text.len() - 3));
        assert_eq!(cx.stack[0].current.as_deref(), Some("scene"));
    }
}
