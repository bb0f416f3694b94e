//! Go to definition (ids, references, instance scenes and override targets, into prefab files),
//! find references of an entity, document symbols (the entity tree) and inlay hints (the name
//! of the entity each id and reference names), as places in bytes.

use std::collections::HashSet;
use std::ops::Range;
use std::path::{Path, PathBuf};

use bevy_forge_scene::format::ParsedScene;

use super::hover::resolve;
use super::locate::{Item, Place, item_at, names, token_end};
use super::state::{Document, State};

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

/// Where what byte `offset` of `doc` names is written.
pub fn definition(state: &State, doc: &Document, offset: usize) -> Option<Place> {
    let parsed = doc.parsed.as_ref()?;
    let item = item_at(parsed, doc.body(), offset)?;
    let root = doc.checked.as_ref().map(|c| c.root.clone());
    match &item {
        Item::Scene { entity, .. } => {
            let scene = parsed
                .doc
                .entities
                .get(entity)
                .and_then(|e| e.instance.as_ref())
                .map(|i| i.scene.to_string());
            prefab_place(state, &root?.join(scene?))
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
            prefab_place(state, &root?.join(scene?))
        }
        other => path_place(state, doc, &named_path(other)?),
    }
}

/// The file's first root entity, else its start.
fn prefab_place(state: &State, path: &Path) -> Option<Place> {
    let (text, parsed) = state.read_scene(path)?;
    let range = parsed
        .doc
        .roots
        .first()
        .and_then(|id| key_range(&text, &parsed, *id))
        .unwrap_or_default();
    Some(Place::in_file(path.to_owned(), range))
}

/// The bytes of entity `id`'s key in `text`, read as `parsed`.
fn key_range(text: &str, parsed: &ParsedScene, id: u64) -> Option<Range<usize>> {
    let start = parsed.source_map.entity_span(id)?.start as usize;
    Some(start..token_end(text, start))
}

/// Where the entity at id path `path` of the document is written: its key in this file, or in
/// the prefab file an instance places (following nested instances).
fn path_place(state: &State, doc: &Document, path: &[u64]) -> Option<Place> {
    let (first, rest) = path.split_first()?;
    let parsed = doc.parsed.as_ref()?;
    if rest.is_empty() {
        return Some(Place::here(key_range(doc.body(), parsed, *first)?));
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
        let (text, parsed) = state.read_scene(&file)?;
        let (id, more) = rest.split_first()?;
        if more.is_empty() {
            return Some(Place::in_file(file, key_range(&text, &parsed, *id)?));
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

/// Every place naming the entity byte `offset` of document `key` names: in the document, and
/// in the other open scenes that name it through an instance of this file.
pub fn references(
    state: &State,
    key: &str,
    doc: &Document,
    offset: usize,
    declaration: bool,
) -> Option<Vec<Place>> {
    let parsed = doc.parsed.as_ref()?;
    let path = item_at(parsed, doc.body(), offset)
        .as_ref()
        .and_then(named_path)?;
    let mut out: Vec<Place> = names(parsed, doc.body())
        .into_iter()
        .filter(|(_, p, kind)| *p == path && (declaration || !matches!(*kind, "key" | "id")))
        .map(|(r, _, _)| Place::here(r))
        .collect();
    // Scenes open in the editor that name this entity of a prefab through an instance.
    if let (Some(me), [id]) = (&doc.path, &path[..]) {
        for (other_key, other) in &state.documents {
            if other_key != key {
                out.extend(placing_references(other, me, *id));
            }
        }
    }
    Some(out)
}

/// The places of document `other` that name entity `id` of the prefab at `prefab` through an
/// instance of it (override targets, references `#5/id`).
fn placing_references(other: &Document, prefab: &Path, id: u64) -> Vec<Place> {
    let (Some(parsed), Some(checked), Some(path)) = (&other.parsed, &other.checked, &other.path)
    else {
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
        .map(|(r, _, _)| Place::in_file(path.clone(), r))
        .collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| PathBuf::from(p));
    a == b || canon(a) == canon(b)
}

/// An entity of the document's tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Symbol {
    /// Its name (`#7` when it has none).
    pub name: String,
    /// Its id, the prefab it places, its components' keys.
    pub detail: String,
    /// Whether it places a prefab.
    pub instance: bool,
    /// Its entry.
    pub range: Range<usize>,
    /// Its key.
    pub selection: Range<usize>,
    pub children: Vec<Symbol>,
}

/// The entity tree of the document, as far as it reads: its roots with what is under them,
/// then the entities no root reaches.
pub fn symbols(doc: &Document) -> Option<Vec<Symbol>> {
    let parsed = doc.parsed.as_ref()?;
    let mut seen = HashSet::new();
    let mut out: Vec<Symbol> = parsed
        .doc
        .roots
        .iter()
        .filter_map(|id| symbol(doc, parsed, *id, &mut seen, 0))
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
            && let Some(s) = symbol(doc, parsed, id, &mut seen, 0)
        {
            out.push(s);
        }
    }
    Some(out)
}

fn symbol(
    doc: &Document,
    parsed: &ParsedScene,
    id: u64,
    seen: &mut HashSet<u64>,
    depth: usize,
) -> Option<Symbol> {
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
    let children: Vec<Symbol> = entity
        .children
        .iter()
        .chain(placed)
        .filter_map(|c| symbol(doc, parsed, *c, seen, depth + 1))
        .collect();
    let mut detail = format!("#{id}");
    if let Some(i) = &entity.instance {
        detail.push_str(&format!(
            " places {}",
            i.model.as_deref().unwrap_or(&i.scene)
        ));
    }
    for c in &entity.components {
        detail.push_str(&format!(" {}", c.key()));
    }
    Some(Symbol {
        name: if entity.name.trim().is_empty() {
            format!("#{id}")
        } else {
            entity.name.to_string()
        },
        detail,
        instance: entity.instance.is_some(),
        range: span,
        selection: key,
        children,
    })
}

/// A name shown after an id or reference: the entity's, at byte `at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub at: usize,
    pub label: String,
}

/// The names of the entities the ids and references in bytes `range` of `doc` name.
pub fn inlay_hints(doc: &Document, range: Range<usize>) -> Vec<Hint> {
    let Some(parsed) = &doc.parsed else {
        return Vec::new();
    };
    names(parsed, doc.body())
        .into_iter()
        .filter(|(r, _, kind)| {
            !matches!(*kind, "key" | "id") && r.end >= range.start && r.start <= range.end
        })
        .filter_map(|(r, path, _)| {
            let (scene, key) = resolve(doc, &path)?;
            let name = &scene.entities.get(&key)?.name;
            Some(Hint {
                at: r.end,
                label: format!("\"{}\"", name.escape_debug()),
            })
        })
        .collect()
}
