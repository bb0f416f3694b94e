//! The check of a scene file, and of its next version again only where its text changed.
//!
//! ```text
//!  Source(new) + SceneMemory(last) ─▶ changed entries (+ what depends on them) ─▶ checked again
//!                                   ─▶ Checked(new) and SceneMemory(new), equal to a whole check
//! ```
//!
//! A check keeps, besides its result, what it found part by part ([`SceneMemory`]): each
//! entity's own rules, the forest and name rules, the camera and light counts, the expansion
//! and what it reported, each spawned entity's custom component problems and built values.
//! Given the next version of the text and the one edit between the two ([`TextChange`]), the
//! entities whose entries the edit touched are checked again with what depends on them:
//! references into entities that went, problems whose wording names other entities, the forest
//! when parents or children changed, names when a name changed. The rest is kept, its
//! positions moved past the edit. The expansion is patched in place when the edit changed only
//! values of the scene's own entities, and cell by cell when it only painted cells of tile
//! layers ([`repaint`]); any other change of instances, tile layers or prefab files expands
//! again whole (and checks again only the entities whose values differ).
//!
//! What cannot be bounded goes back to the whole check, with a `debug` trace line saying why:
//! another format version or read warning, other schemas or game types, another asset index,
//! renamed types (the document is rewritten), a cooked scene, rules that were skipped (a
//! trusted cooked stamp).

use std::sync::Arc;

use bevy_platform::collections::{HashMap, HashSet};

use super::files::{Link, load_instances};
use super::rules::{CustomRules, Run, check_all, referable};
use super::{Checked, PrefabFiles, PrefabSource, Source};
use crate::codes;
use crate::format::{EntityNode, IdHasher, ParsedScene, SceneDoc, TextChange};
use crate::prefab::{ExpandedScene, Repainted, expand, instance_scenes, places_prefabs, repaint};
use crate::project::AssetIndex;
use crate::validate::parts::{Edit, RuleParts, moved};
use crate::validate::{Diagnostic, ValidationReport};

/// What the check of a scene file keeps to check its next version again in part
/// ([`check_scene`]).
pub(crate) struct SceneMemory<B, X> {
    /// The file's name as diagnostics give it.
    name: String,
    /// What the custom component rules checked against.
    context: X,
    /// The asset index built-ins were checked against.
    assets: Option<AssetIndex>,
    /// The document (its entities shared with the checked one).
    doc: SceneDoc,
    /// What the reader noticed, by kind.
    warnings: Vec<crate::format::ReadWarningKind>,
    /// The rules of the document, by part.
    rules: RuleParts,
    /// The expansion, when the scene places prefabs.
    expanded: Option<ExpandedScene>,
    /// Each prefab file the scene places directly, as it expanded.
    prefabs: Vec<(String, Option<Arc<ExpandedScene>>)>,
    /// What the expansion reported.
    expand_found: Vec<Diagnostic>,
    /// What the rules said of the entities overrides changed.
    overridden: Vec<Diagnostic>,
    /// The custom component problems of each spawned entity (by key), as reported (moved to
    /// the override that caused them); entities without any are not listed.
    custom: HashMap<u64, Vec<Diagnostic>, IdHasher>,
    /// The spawned entities whose custom values may hold an entity reference (by key): checked
    /// again when entities went.
    referring: Vec<u64>,
    /// What the rules built.
    built: B,
}

/// The memory a check with rules `C` keeps.
pub(crate) type MemoryOf<C> = SceneMemory<<C as CustomRules>::Built, <C as CustomRules>::Context>;

/// A check's result with its memory.
type Rechecked<C> = (Checked<<C as CustomRules>::Built>, Option<MemoryOf<C>>);

/// Checks `source`, the scene file, with the prefab files it places (through `files`) and
/// `rules`; with `last` (the memory of the check of its previous text and the edit between
/// the two texts), again only where the text changed. The result equals a whole check's; the
/// memory is `None` where a next check could not use it (a cooked scene, renamed types, rules
/// skipped for a trusted stamp), and after a whole check unless `keep` (a caller that will not
/// check a next version does not pay for the copy).
pub(crate) fn check_scene<R, C>(
    source: Source,
    files: &mut PrefabFiles<R>,
    rules: &C,
    pool: Option<&bevy_tasks::TaskPool>,
    last: Option<(MemoryOf<C>, TextChange)>,
    keep: bool,
) -> Rechecked<C>
where
    R: PrefabSource,
    C: CustomRules,
    C::Part: 'static,
{
    let Some((memory, change)) = last else {
        return whole(source, files, rules, pool, keep);
    };
    match unbounded(&memory, &source, files, rules) {
        Some(why) => {
            tracing::debug!("`{}`: checked whole ({why})", source.name);
            whole(source, files, rules, pool, keep)
        }
        None => again(memory, change, source, files, rules),
    }
}

/// Why the next version cannot be checked in part, when it cannot.
fn unbounded<R, C>(
    memory: &MemoryOf<C>,
    source: &Source,
    files: &PrefabFiles<R>,
    rules: &C,
) -> Option<&'static str>
where
    R: PrefabSource,
    C: CustomRules,
{
    let parsed = &source.parsed;
    if source.cooked.is_some() {
        Some("a cooked scene")
    } else if memory.name != source.name {
        Some("another file")
    } else if files.trusted {
        Some("a trusted stamp")
    } else if !rules.renames().is_empty() {
        Some("the schemas rename types or fields: the document is rewritten")
    } else if memory.doc.format_version != parsed.doc.format_version
        || memory.warnings != warning_kinds(parsed)
    {
        Some("the format version line changed")
    } else if memory.context != rules.context() {
        Some("the schemas or the game's types changed")
    } else if memory.assets.as_ref() != files.assets() {
        Some("the asset index changed")
    } else if rules.worn(&memory.built, memory.doc.entities.len()) {
        Some("the kept values are in too many pieces")
    } else {
        None
    }
}

fn warning_kinds(parsed: &ParsedScene) -> Vec<crate::format::ReadWarningKind> {
    parsed.warnings.iter().map(|w| w.kind.clone()).collect()
}

/// The prefab files `doc` places directly, each as `files` expanded it.
fn placed_prefabs<R: PrefabSource>(
    files: &PrefabFiles<R>,
    doc: &SceneDoc,
) -> Vec<(String, Option<Arc<ExpandedScene>>)> {
    instance_scenes(doc)
        .into_iter()
        .map(|p| (p.to_owned(), files.file(p).and_then(|f| f.expanded.clone())))
        .collect()
}

/// Whether two lists of placed prefabs are the same files expanded the same way.
fn same_prefabs(
    a: &[(String, Option<Arc<ExpandedScene>>)],
    b: &[(String, Option<Arc<ExpandedScene>>)],
) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((pa, ea), (pb, eb))| {
            pa == pb
                && match (ea, eb) {
                    (Some(x), Some(y)) => Arc::ptr_eq(x, y) || **x == **y,
                    (None, None) => true,
                    _ => false,
                }
        })
}

/// The whole check.
fn whole<R, C>(
    mut source: Source,
    files: &mut PrefabFiles<R>,
    rules: &C,
    pool: Option<&bevy_tasks::TaskPool>,
    keep: bool,
) -> Rechecked<C>
where
    R: PrefabSource,
    C: CustomRules,
    C::Part: 'static,
{
    if let Some(cooked) = &source.cooked {
        files.give_documents(cooked.prefabs.iter().cloned());
    }
    let renames = rules.renames();
    files.renames = renames.clone();
    let renamed = crate::validate::renamed::apply(&renames, &mut source.parsed);
    let parsed = &source.parsed;
    let mut chain = vec![Link::scene(source.name.clone())];
    let (load_found, (expanded, expand_found)) = if places_prefabs(&parsed.doc) {
        let found = load_instances(files, parsed, &mut chain, rules);
        let expansion = expand(parsed, &|p| {
            files.file(p).and_then(|f| f.expanded.as_deref())
        });
        (found, expansion)
    } else {
        (Vec::new(), (None, Vec::new()))
    };
    let trusted = files.trusted;
    let assets = files.assets();
    let doc = expanded.as_ref().map_or(&parsed.doc, |e| &*e.doc);
    let map = &parsed.source_map;
    let (built, custom, (parts, overridden)) =
        check_all(rules, doc, expanded.as_ref(), map, pool, || {
            if trusted {
                return (RuleParts::default(), Vec::new());
            }
            let overridden = expanded
                .as_ref()
                .map(|e| e.check_overridden(parsed))
                .unwrap_or_default();
            (RuleParts::whole(parsed, assets), overridden)
        });
    let model_refs = match trusted {
        true => Vec::new(),
        false => model_references(parsed, doc, expanded.as_ref()),
    };
    let custom = by_key(custom, expanded.as_ref(), parsed);
    let remember = keep && source.cooked.is_none() && renames.is_empty() && !trusted;

    let memory = remember.then(|| SceneMemory {
        name: source.name.clone(),
        context: rules.context(),
        assets: files.assets().cloned(),
        doc: parsed.doc.clone(),
        warnings: warning_kinds(parsed),
        rules: parts.clone(),
        expanded: expanded.clone(),
        prefabs: placed_prefabs(files, &parsed.doc),
        expand_found: expand_found.clone(),
        overridden: overridden.clone(),
        custom: custom.clone(),
        referring: referring(doc),
        built: built.clone(),
    });
    let mut diagnostics = renamed;
    diagnostics.extend(load_found);
    diagnostics.extend(expand_found);
    diagnostics.extend(parts.diagnostics());
    diagnostics.extend(overridden);
    diagnostics.extend(model_refs);
    diagnostics.extend(custom.into_values().flatten());
    let checked = finish(source, files, expanded, diagnostics, built);
    (checked, memory)
}

/// What references in the values of model overrides name nothing: found again by every check
/// (the references name entities of `spawned`, the spawned document of `parsed`).
fn model_references(
    parsed: &ParsedScene,
    spawned: &SceneDoc,
    expanded: Option<&ExpandedScene>,
) -> Vec<Diagnostic> {
    crate::validate::model::override_references(
        &parsed.doc,
        &parsed.source_map,
        &referable(spawned, expanded),
    )
}

/// The custom component problems found in `doc` (the spawned document of `parsed`), by the
/// key of the entity they were found on, each moved to the override that caused it (those no
/// override of this file caused are the prefab file's to report, and dropped).
fn by_key(
    found: Vec<Diagnostic>,
    expanded: Option<&ExpandedScene>,
    parsed: &ParsedScene,
) -> HashMap<u64, Vec<Diagnostic>, IdHasher> {
    let mut out: HashMap<u64, Vec<Diagnostic>, IdHasher> = HashMap::default();
    for d in found {
        let key = d.entity.unwrap_or(u64::MAX);
        let d = match expanded {
            Some(e) => match e.locate(parsed, d) {
                Some(d) => d,
                None => continue,
            },
            None => d,
        };
        out.entry(key).or_default().push(d);
    }
    out
}

/// The checked scene: `diagnostics` with the problems of the prefab files it places, sorted.
fn finish<R: PrefabSource, B>(
    source: Source,
    files: &PrefabFiles<R>,
    expanded: Option<ExpandedScene>,
    mut diagnostics: Vec<Diagnostic>,
    built: B,
) -> Checked<B> {
    for (path, file) in files.placed_files(&source.parsed.doc) {
        diagnostics.extend(file.diagnostics.iter().map(|d| {
            let mut d = d.clone();
            d.file.get_or_insert_with(|| path.to_owned());
            d
        }));
    }
    let diagnostics = diagnostics
        .into_iter()
        .collect::<ValidationReport>()
        .diagnostics;
    Checked {
        source,
        expanded,
        diagnostics,
        built,
    }
}

/// What `change` changed between `old` and the new document `parsed`: the entities whose
/// entries it touched (new ones among them), and those that went.
fn edit_of<'a>(old: &'a SceneDoc, parsed: &ParsedScene, change: TextChange) -> Edit<'a> {
    let doc = &parsed.doc;
    let spans = parsed.source_map.entities.as_slice();
    // Entries are in file order: the first one that ends at the change or after it.
    let first = spans.partition_point(|_, s| (s.entry.end as usize) < change.start);
    let mut changed = Vec::new();
    for (key, s) in spans.get_range(first..).into_iter().flatten() {
        if !s.entry.is_some() || change.touches_new(s.entry.start as usize, s.entry.end as usize) {
            changed.push(*key);
        } else if s.entry.start as usize > change.new_end() {
            break;
        }
    }
    // An entity the map does not place (not expected of a read text) is checked again too.
    if spans.len() != doc.entities.len() {
        changed = doc.entities.keys().copied().collect();
    }
    let new_only = changed
        .iter()
        .filter(|k| !old.entities.contains_key(*k))
        .count();
    let removed = if old.entities.len() + new_only != doc.entities.len() {
        old.entities
            .keys()
            .filter(|k| !doc.entities.contains_key(*k))
            .copied()
            .collect()
    } else {
        Vec::new()
    };
    Edit {
        text: change,
        old,
        changed,
        removed,
    }
}

/// The expansion of the new version patched from the last one, when the edit changed only
/// values of the scene's own entities: the same entities in the same file order, with the same
/// parents, children and instances, the same roots, `next_id` and layers, the same prefabs.
/// `None` when it did more. (Entries the edit did not touch keep their order; a touched one
/// at the same place in both leaves the order as it was.)
fn patched(
    last: &ExpandedScene,
    edit: &Edit<'_>,
    doc: &SceneDoc,
    prefabs_same: bool,
) -> Option<ExpandedScene> {
    let old = edit.old;
    if !prefabs_same
        || !edit.removed.is_empty()
        || old.roots != doc.roots
        || old.next_id != doc.next_id
        || old.layers != doc.layers
    {
        return None;
    }
    let mut nodes = Vec::with_capacity(edit.changed.len());
    for key in &edit.changed {
        let (Some(was), Some(now), Some(placed)) = (
            old.entities.get(key),
            doc.entities.get(key),
            last.doc.entities.get(key),
        ) else {
            return None;
        };
        // An entry moved in the file moves its entity in the expansion: expanded again.
        if was.parent != now.parent
            || was.children != now.children
            || was.instance != now.instance
            || old.entities.get_index_of(key) != doc.entities.get_index_of(key)
        {
            return None;
        }
        // The entity as the expansion has it: its own values, the expansion's parent, children
        // (prefab roots, layers) and instance (a model's).
        let node = if placed.parent == now.parent
            && placed.children == now.children
            && placed.instance == now.instance
        {
            now.clone()
        } else {
            Arc::new(EntityNode {
                parent: placed.parent,
                children: placed.children.clone(),
                instance: placed.instance.clone(),
                ..EntityNode::clone(now)
            })
        };
        nodes.push((*key, node));
    }
    let mut expanded = last.clone();
    let out = Arc::make_mut(&mut expanded.doc);
    out.name.clone_from(&doc.name);
    for (key, node) in nodes {
        if let Some(slot) = out.entities.get_mut(&key) {
            *slot = node;
        }
    }
    Some(expanded)
}

/// The expansion of the new version patched from the last one cell by cell, when the edit only
/// painted cells of tile layers ([`repaint`]): no entity entry touched, the same roots,
/// `next_id` and prefabs, and a last expansion that placed every cell.
fn repainted<R: PrefabSource>(
    last: &ExpandedScene,
    edit: &Edit<'_>,
    parsed: &ParsedScene,
    prefabs_same: bool,
    last_found: &[Diagnostic],
    files: &PrefabFiles<R>,
) -> Option<Repainted> {
    let (old, doc) = (edit.old, &parsed.doc);
    let placed_all = last_found
        .iter()
        .all(|d| d.code != codes::prefab::KEY_COLLISION && d.code != codes::prefab::TOO_LARGE);
    if !prefabs_same
        || !placed_all
        || !edit.changed.is_empty()
        || !edit.removed.is_empty()
        || old.roots != doc.roots
        || old.next_id != doc.next_id
    {
        return None;
    }
    repaint(last, old, parsed, &|p| {
        files.file(p).and_then(|f| f.expanded.as_deref())
    })
}

/// The entities of `spawned` whose custom values may hold an entity reference.
fn referring(spawned: &SceneDoc) -> Vec<u64> {
    spawned
        .entities
        .iter()
        .filter(|(_, n)| may_refer(n))
        .map(|(k, _)| *k)
        .collect()
}

/// Whether `node` has a custom component whose expressions may hold an entity reference.
fn may_refer(node: &EntityNode) -> bool {
    let exprs = |c: &crate::format::CustomComponent| {
        c.fields
            .iter()
            .map(|f| f.expr.as_str())
            .chain(c.value.as_deref())
            .any(|e| e.contains('#'))
    };
    node.components.iter().any(|c| match c {
        crate::format::ComponentData::Custom(custom) => exprs(custom),
        _ => false,
    })
}

/// The check of the next version from the memory of the last.
fn again<R, C>(
    memory: MemoryOf<C>,
    change: TextChange,
    source: Source,
    files: &mut PrefabFiles<R>,
    rules: &C,
) -> Rechecked<C>
where
    R: PrefabSource,
    C: CustomRules,
    C::Part: 'static,
{
    let SceneMemory {
        name,
        context,
        assets,
        doc: last_doc,
        warnings,
        rules: last_rules,
        expanded: last_expanded,
        prefabs: last_prefabs,
        expand_found: last_expand_found,
        overridden: last_overridden,
        custom: mut last_custom,
        referring: last_referring,
        built: last_built,
    } = memory;
    files.renames = Default::default();
    let parsed = &source.parsed;
    let doc = &parsed.doc;
    let map = &parsed.source_map;
    let mut chain = vec![Link::scene(source.name.clone())];
    let load_found = if places_prefabs(doc) {
        load_instances(files, parsed, &mut chain, rules)
    } else {
        Vec::new()
    };
    let prefabs = placed_prefabs(files, doc);
    let prefabs_same = same_prefabs(&prefabs, &last_prefabs);
    let edit = edit_of(&last_doc, parsed, change);

    // The expansion: patched, kept (no prefabs), or again whole.
    let moved_all = |mut list: Vec<Diagnostic>| -> Option<Vec<Diagnostic>> {
        list.iter_mut()
            .all(|d| moved(d, &change, map))
            .then_some(list)
    };
    let patch = match &last_expanded {
        Some(last) if places_prefabs(doc) => patched(last, &edit, doc, prefabs_same)
            .map(|expanded| Repainted {
                expanded,
                added: Vec::new(),
                removed: Vec::new(),
            })
            .or_else(|| repainted(last, &edit, parsed, prefabs_same, &last_expand_found, files)),
        _ => None,
    };
    let kept_found = patch
        .as_ref()
        .and_then(|_| Some((moved_all(last_expand_found)?, moved_all(last_overridden)?)));
    // The entities of cells painted and of cells painted over or erased (by a repaint).
    let mut cells_added = Vec::new();
    let mut cells_removed = Vec::new();
    let (expanded, expand_found, overridden, rebuilt) = match (patch, kept_found) {
        (Some(r), Some((found, overridden))) => {
            cells_added = r.added;
            cells_removed = r.removed;
            (Some(r.expanded), found, overridden, false)
        }
        _ if !places_prefabs(doc) => (None, Vec::new(), Vec::new(), true),
        _ => {
            let (e, found) = expand(parsed, &|p| {
                files.file(p).and_then(|f| f.expanded.as_deref())
            });
            let overridden = e
                .as_ref()
                .map(|e| e.check_overridden(parsed))
                .unwrap_or_default();
            (e, found, overridden, true)
        }
    };
    let spawned = expanded.as_ref().map_or(doc, |e| &*e.doc);
    let last_spawned = last_expanded.as_ref().map_or(&last_doc, |e| &*e.doc);

    // The spawned entities to check again: changed ones, those with problems (their wording
    // may name other entities), those whose problems the edit moved, references into entities
    // that went. Without prefabs, and with the expansion patched, the entities are the file's
    // and an entry the edit did not touch reads as it did; an expansion made again is compared
    // entity by entity.
    let plain = expanded.is_none() && last_expanded.is_none();
    let same_entities = (plain || !rebuilt)
        && edit.removed.is_empty()
        && cells_added.is_empty()
        && cells_removed.is_empty()
        && edit
            .changed
            .iter()
            .all(|k| last_doc.entities.contains_key(k));
    let mut again: HashSet<u64> = edit.changed.iter().chain(&cells_added).copied().collect();
    let mut went = !edit.removed.is_empty() || !cells_removed.is_empty();
    // Kept from the last check but for the entities changed (an expansion made again is
    // looked at whole).
    let refer = match rebuilt && !plain {
        true => referring(spawned),
        false => {
            let mut refer: Vec<u64> = last_referring
                .into_iter()
                .filter(|k| !again.contains(k) && spawned.entities.contains_key(k))
                .collect();
            refer.extend(
                again
                    .iter()
                    .filter(|k| spawned.entities.get(*k).is_some_and(|n| may_refer(n))),
            );
            refer
        }
    };
    if rebuilt && !plain {
        // Entities an instance or a layer the edit touched placed are reported at their
        // overrides: checked again with them.
        for (key, node) in &spawned.entities {
            let same = last_spawned
                .entities
                .get(key)
                .is_some_and(|was| Arc::ptr_eq(was, node) || **was == **node);
            let placed_by_touched = expanded
                .as_ref()
                .and_then(|e| e.placed_path(*key))
                .is_some_and(|p| edit.changed.contains(&p[0]));
            if !same || placed_by_touched {
                again.insert(*key);
            }
        }
        went = last_spawned
            .entities
            .keys()
            .any(|k| !spawned.entities.contains_key(k));
    }
    if went {
        again.extend(refer.iter().copied());
    }
    again.extend(last_custom.keys().copied());
    last_custom.retain(|key, _| !again.contains(key) && spawned.entities.contains_key(key));
    // Kept problems moved past the edit; one that was inside it is found again.
    let mut unmovable = Vec::new();
    for (key, list) in &mut last_custom {
        if !list.iter_mut().all(|d| moved(d, &change, map)) {
            unmovable.push(*key);
        }
    }
    for key in unmovable {
        last_custom.remove(&key);
        again.insert(key);
    }

    // Checked again: a part of those entities, in the spawned document's order.
    let mut part = SceneDoc::new(spawned.name.clone());
    let mut sources = Vec::with_capacity(spawned.entities.len());
    // Where the next kept entity is expected in the last spawned document: kept entities keep
    // their order (only a patched or repainted expansion's, or a plain document's, are walked
    // so; an entity elsewhere is looked up).
    let mut next_kept = 0;
    for (key, node) in &spawned.entities {
        if again.contains(key) {
            sources.push(Err(part.entities.len()));
            part.entities.insert(*key, node.clone());
        } else {
            let at = if same_entities {
                // The same entities in the same order.
                Some(sources.len())
            } else {
                match last_spawned.entities.get_index(next_kept) {
                    Some((k, _)) if k == key => Some(next_kept),
                    _ => last_spawned.entities.get_index_of(key),
                }
            };
            if let Some(at) = at {
                next_kept = at + 1;
            }
            match at {
                Some(at) => sources.push(Ok(at)),
                None => {
                    // Not checked before (cannot happen: new entities are checked again).
                    sources.push(Err(part.entities.len()));
                    part.entities.insert(*key, node.clone());
                }
            }
        }
    }
    let referable = referable(spawned, expanded.as_ref());
    let (fresh, found) = rules.check_part(&part, 0..part.entities.len(), map, &referable);
    drop(referable);
    let built = rules.reuse(&last_built, fresh, &Run::runs(sources));
    let mut custom = last_custom;
    for (key, list) in by_key(found, expanded.as_ref(), parsed) {
        custom.insert(key, list);
    }

    let parts = last_rules.again(parsed, assets.as_ref(), &edit);
    let memory = SceneMemory {
        name,
        context,
        assets,
        doc: doc.clone(),
        warnings,
        rules: parts.clone(),
        expanded: expanded.clone(),
        prefabs,
        expand_found: expand_found.clone(),
        overridden: overridden.clone(),
        custom: custom.clone(),
        referring: refer,
        built: built.clone(),
    };
    drop(last_doc);
    let mut diagnostics = load_found;
    diagnostics.extend(expand_found);
    diagnostics.extend(parts.diagnostics());
    diagnostics.extend(overridden);
    diagnostics.extend(model_references(parsed, spawned, expanded.as_ref()));
    diagnostics.extend(custom.into_values().flatten());
    let checked = finish(source, files, expanded, diagnostics, built);
    (checked, Some(memory))
}
