//! Go to definition (ids, references, instance scenes and override targets, into prefab files),
//! find references of an entity, document symbols (the entity tree) and inlay hints (the name
//! of the entity each id and reference names).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use bevy_forge_scene::format::{ParsedScene, SceneDoc};
use lsp_types::{
    DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams,
    GotoDefinitionResponse, InlayHint, InlayHintLabel, InlayHintParams, Location, Range,
    ReferenceParams, SymbolKind, Uri,
};

use super::hover::resolve;
use super::locate::{Item, item_at, names, token_end};
use super::server::Failure;
use super::state::{Document, State, document, path_uri};
use super::text::{Encoding, Text};

/// The id path an item names, from this file (`[7]`, `[7, 2]`).
fn named_path(item: &Item) -> Option<Vec<u64>> {
    match item {
        Item::Entity { id, .. } | Item::Id { id, .. } => Some(vec![*id]),
        Item::Reference { path, .. } => path.clone(),
        Item::Target { entity, path, .. } => {
            let mut full = vec![*entity];
            full.extend(path);
            Some(full)
        }
        _ => None,
    }
}

pub fn definition(
    state: &mut State,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>, Failure> {
    let p = params.text_document_position_params;
    let doc = document(state, &p.text_document.uri)?;
    let Some(parsed) = &doc.parsed else {
        return Ok(None);
    };
    let offset = doc.offset(p.position, state.encoding);
    let Some(item) = item_at(parsed, doc.body(), offset) else {
        return Ok(None);
    };
    let root = doc.checked.as_ref().map(|c| c.root.clone());
    let location = match &item {
        Item::Scene { entity, .. } => {
            let scene = parsed
                .doc
                .entities
                .get(entity)
                .and_then(|e| e.instance.as_ref())
                .map(|i| i.scene.to_string());
            match (scene, root) {
                (Some(scene), Some(root)) => prefab_location(state, &root.join(scene)),
                _ => None,
            }
        }
        // A cell: the prefab its key places.
        Item::Cell { layer, key, .. } => {
            let scene = parsed
                .doc
                .layers
                .iter()
                .find(|l| l.id == *layer)
                .and_then(|l| l.prefab(*key))
                .map(str::to_owned);
            match (scene, root) {
                (Some(scene), Some(root)) => prefab_location(state, &root.join(scene)),
                _ => None,
            }
        }
        other => match named_path(other) {
            Some(path) => path_location(state, doc, &p.text_document.uri, &path),
            None => None,
        },
    };
    Ok(location.map(GotoDefinitionResponse::Scalar))
}

/// The file's first root entity, else its start.
fn prefab_location(state: &State, path: &Path) -> Option<Location> {
    let uri = path_uri(path)?;
    let (text, parsed) = read_file(state, path)?;
    let range = parsed
        .as_ref()
        .and_then(|p| Some((p, *p.doc.roots.first()?)))
        .and_then(|(p, id)| key_range(&text, p, id, state.encoding))
        .unwrap_or_default();
    Some(Location::new(uri, range))
}

fn read_file(state: &State, path: &Path) -> Option<(Text, Option<ParsedScene>)> {
    let bytes = state.file_text(path).ok()?;
    let text = Text::new(String::from_utf8_lossy(&bytes).into_owned());
    let parsed = SceneDoc::from_str(&text.as_str()[text.bom()..]).ok();
    Some((text, parsed))
}

/// The range of entity `id`'s key in `text`, read as `parsed`.
fn key_range(text: &Text, parsed: &ParsedScene, id: u64, encoding: Encoding) -> Option<Range> {
    let start = parsed.source_map.entity_span(id)?.start as usize + text.bom();
    Some(text.range(start..token_end(text.as_str(), start), encoding))
}

/// Where the entity at id path `path` of the document is written: its key in this file, or in
/// the prefab file an instance places (following nested instances).
fn path_location(state: &State, doc: &Document, uri: &Uri, path: &[u64]) -> Option<Location> {
    let (first, rest) = path.split_first()?;
    let parsed = doc.parsed.as_ref()?;
    if rest.is_empty() {
        return Some(Location::new(
            uri.clone(),
            key_range(&doc.text, parsed, *first, state.encoding)?,
        ));
    }
    let root = doc.checked.as_ref()?.root.clone();
    let mut scene = parsed
        .doc
        .entities
        .get(first)?
        .instance
        .as_ref()?
        .scene
        .to_string();
    let mut rest = rest;
    let mut guard = 0;
    loop {
        let file = root.join(&scene);
        let (text, parsed) = read_file(state, &file)?;
        let parsed = parsed?;
        let (id, more) = rest.split_first()?;
        if more.is_empty() {
            let range = key_range(&text, &parsed, *id, state.encoding)?;
            return Some(Location::new(path_uri(&file)?, range));
        }
        scene = parsed
            .doc
            .entities
            .get(id)?
            .instance
            .as_ref()?
            .scene
            .to_string();
        rest = more;
        guard += 1;
        if guard > 64 {
            return None;
        }
    }
}

pub fn references(
    state: &mut State,
    params: ReferenceParams,
) -> Result<Option<Vec<Location>>, Failure> {
    let p = params.text_document_position;
    let uri = &p.text_document.uri;
    let doc = document(state, uri)?;
    let Some(parsed) = &doc.parsed else {
        return Ok(None);
    };
    let offset = doc.offset(p.position, state.encoding);
    let Some(path) = item_at(parsed, doc.body(), offset)
        .as_ref()
        .and_then(named_path)
    else {
        return Ok(None);
    };
    let declaration = params.context.include_declaration;
    let mut out: Vec<Location> = names(parsed, doc.body())
        .into_iter()
        .filter(|(_, p, kind)| *p == path && (declaration || !matches!(*kind, "key" | "id")))
        .map(|(r, _, _)| Location::new(uri.clone(), doc.range(r, state.encoding)))
        .collect();
    // Scenes open in the editor that name this entity of a prefab through an instance.
    if let (Some(me), [id]) = (&doc.path, &path[..]) {
        for (key, other) in &state.documents {
            if key == uri.as_str() {
                continue;
            }
            out.extend(placing_references(state, other, me, *id));
        }
    }
    Ok(Some(out))
}

/// The places of document `other` that name entity `id` of the prefab at `prefab` through an
/// instance of it (override targets, references `#5/id`).
fn placing_references(state: &State, other: &Document, prefab: &Path, id: u64) -> Vec<Location> {
    let (Some(parsed), Some(checked), Some(path)) = (&other.parsed, &other.checked, &other.path)
    else {
        return Vec::new();
    };
    let Some(uri) = path_uri(path) else {
        return Vec::new();
    };
    let same = |a: &Path| same_file(a, prefab);
    names(parsed, other.body())
        .into_iter()
        .filter(|(_, p, _)| {
            p.len() == 2
                && p[1] == id
                && parsed
                    .doc
                    .entities
                    .get(&p[0])
                    .and_then(|e| e.instance.as_ref())
                    .is_some_and(|i| same(&checked.root.join(i.scene.as_str())))
        })
        .map(|(r, _, _)| Location::new(uri.clone(), other.range(r, state.encoding)))
        .collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| PathBuf::from(p));
    a == b || canon(a) == canon(b)
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written.
pub fn symbols(
    state: &mut State,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>, Failure> {
    let doc = document(state, &params.text_document.uri)?;
    let Some(parsed) = &doc.parsed else {
        return Ok(None);
    };
    let encoding = state.encoding;
    let mut seen = HashSet::new();
    let mut out: Vec<DocumentSymbol> = parsed
        .doc
        .roots
        .iter()
        .filter_map(|id| symbol(doc, parsed, *id, encoding, &mut seen, 0))
        .collect();
    // Entities no root reaches (an error the diagnostics name) are still listed.
    let rest: Vec<u64> = parsed
        .doc
        .entities
        .keys()
        .filter(|id| !seen.contains(*id))
        .copied()
        .collect();
    for id in rest {
        if !seen.contains(&id)
            && let Some(s) = symbol(doc, parsed, id, encoding, &mut seen, 0)
        {
            out.push(s);
        }
    }
    Ok(Some(DocumentSymbolResponse::Nested(out)))
}

#[allow(deprecated)]
fn symbol(
    doc: &Document,
    parsed: &ParsedScene,
    id: u64,
    encoding: Encoding,
    seen: &mut HashSet<u64>,
    depth: usize,
) -> Option<DocumentSymbol> {
    if depth > 512 || !seen.insert(id) {
        return None;
    }
    let entity = parsed.doc.entities.get(&id)?;
    let span = parsed.source_map.entity_span(id)?.range()?;
    let key = span.start..token_end(doc.body(), span.start);
    // An instance's overrides place entities of this file under the prefab's: they show under
    // the instance entity, their parent.
    let placed = entity
        .instance
        .iter()
        .flat_map(|i| &i.overrides)
        .flat_map(|o| &o.children);
    let children: Vec<DocumentSymbol> = entity
        .children
        .iter()
        .chain(placed)
        .filter_map(|c| symbol(doc, parsed, *c, encoding, seen, depth + 1))
        .collect();
    let mut detail = format!("#{id}");
    if let Some(i) = &entity.instance {
        detail.push_str(&format!(" places {}", i.scene));
    }
    for c in &entity.components {
        detail.push_str(&format!(" {}", c.key()));
    }
    Some(DocumentSymbol {
        name: if entity.name.trim().is_empty() {
            format!("#{id}")
        } else {
            entity.name.to_string()
        },
        detail: Some(detail),
        kind: if entity.instance.is_some() {
            SymbolKind::MODULE
        } else {
            SymbolKind::OBJECT
        },
        tags: None,
        deprecated: None,
        range: doc.range(span, encoding),
        selection_range: doc.range(key, encoding),
        children: (!children.is_empty()).then_some(children),
    })
}

pub fn inlay_hints(
    state: &mut State,
    params: InlayHintParams,
) -> Result<Option<Vec<InlayHint>>, Failure> {
    let doc = document(state, &params.text_document.uri)?;
    let Some(parsed) = &doc.parsed else {
        return Ok(None);
    };
    let start = doc.offset(params.range.start, state.encoding);
    let end = doc.offset(params.range.end, state.encoding);
    let hints = names(parsed, doc.body())
        .into_iter()
        .filter(|(r, _, kind)| !matches!(*kind, "key" | "id") && r.end >= start && r.start <= end)
        .filter_map(|(r, path, _)| {
            let (scene, key) = resolve(doc, &path)?;
            let name = &scene.entities.get(&key)?.name;
            let at = doc.range(r.end..r.end, state.encoding).end;
            Some(InlayHint {
                position: at,
                label: InlayHintLabel::String(format!("\"{}\"", name.escape_debug())),
                kind: None,
                text_edits: None,
                tooltip: None,
                padding_left: Some(true),
                padding_right: None,
                data: None,
            })
        })
        .collect();
    Ok(Some(hints))
}
