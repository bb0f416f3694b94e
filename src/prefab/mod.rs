//! Prefabs: scenes inside scenes. [`expand`] turns a scene whose instance entities place other
//! scene files into one forest, an [`ExpandedScene`], applying each instance's overrides (the
//! `format` module docs, "Prefab instances").
//!
//! Expansion is pure: the caller reads the prefab files (the scene loader through Bevy's
//! `LoadContext`, `forge validate` from disk with [`PrefabFiles`](crate::pipeline::PrefabFiles)) and hands [`expand`] each one
//! already expanded, so nesting is one level at a time and every file is read and checked once
//! however many instances place it.
//!
//! # Keys and id paths
//!
//! An entity of the scene's own file keeps its id. An entity an instance placed is known by its
//! **id path**: the instance entity's id, then the entity's id in the prefab, then (inside a
//! nested instance) its id in that prefab, and so on (`[5, 3]`, `[5, 7, 2]`). Paths stay the same
//! when either file is edited elsewhere, so hot reload patches the same live entities. In the
//! expanded document such an entity's key is [`key_of`] its path, a hash with the top bit set;
//! [`ExpandedScene::path`] gives the path back.
//!
//! # Checks
//!
//! An override whose target is not in the prefab (or sets or removes a component the target does
//! not have) is kept and reported as a `forge::prefab::unused_override` warning at its line; it
//! applies again when the target returns. Adding a component the target already has is an
//! error (`forge::prefab::add_existing`): use `set`. Values that overrides change are checked
//! with the scene's rules and reported at the override's line ([`ExpandedScene::locate`]).

use std::hash::BuildHasher;
use std::sync::Arc;

use bevy_platform::collections::HashMap;

use crate::codes;
use crate::format::{
    ComponentData, EcoString, EntityNode, IdHasher, Instance, MAX_EXPANDED_ENTITIES, OverridePart,
    ParsedScene, SceneDoc, SourceMap,
};
use crate::validate::{Diagnostic, Severity};

mod located;
mod repaint;

use located::override_part;
pub(crate) use repaint::{Repainted, repaint};

/// The key in an [`ExpandedScene`]'s document of the entity at `path`: the id itself for a
/// one-element path (the scene's own entities), else a hash of the path with the top bit set.
pub fn key_of(path: &[u64]) -> u64 {
    match path {
        [id] => *id,
        _ => IdHasher::default().hash_one(path) | (1 << 63),
    }
}

/// The id path of every entity an instance placed, by its key in the expanded document.
pub(crate) type PlacedPaths = HashMap<u64, Arc<[u64]>>;

/// A scene with its prefab instances expanded: one forest, keyed by [`key_of`] id paths.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExpandedScene {
    /// The forest: the scene's own entities under their ids (without `instance`), each instance
    /// entity followed by what its prefab placed under it, keyed by [`key_of`] their id paths.
    pub doc: Arc<SceneDoc>,
    /// The id path of every entity an instance placed, by key (the scene's own entities are not
    /// listed: their path is their id). Shared with the live instances spawned from it.
    paths: Arc<PlacedPaths>,
    /// The instance entities, by key, with the prefab each places.
    instances: HashMap<u64, EcoString>,
    /// The tile layers expanded, by id, with the cells each has
    /// ([`TileLayer::cell_bounds`](crate::format::TileLayer::cell_bounds)).
    layers: HashMap<u64, Option<crate::format::CellRect>>,
}

impl ExpandedScene {
    /// A scene without instances, as it is (the document shared, not copied).
    pub fn plain(doc: Arc<SceneDoc>) -> Self {
        Self {
            doc,
            ..Self::default()
        }
    }

    /// The id path of the entity with key `key` (`[key]` for the scene's own entities); `None`
    /// when there is no such entity.
    pub fn path(&self, key: u64) -> Option<Vec<u64>> {
        match self.paths.get(&key) {
            Some(path) => Some(path.to_vec()),
            None => self.doc.entities.contains_key(&key).then(|| vec![key]),
        }
    }

    /// The id path of `key` when an instance placed it.
    pub fn placed_path(&self, key: u64) -> Option<&[u64]> {
        self.paths.get(&key).map(|p| &p[..])
    }

    /// The id paths of the placed entities, shared (live instances keep them to name their
    /// entities by path).
    pub(crate) fn placed_paths(&self) -> &Arc<PlacedPaths> {
        &self.paths
    }

    /// The key of the entity at `path`, when there is one.
    pub fn key(&self, path: &[u64]) -> Option<u64> {
        let key = key_of(path);
        let found = match path {
            [_] => !self.paths.contains_key(&key),
            _ => self.paths.get(&key).is_some_and(|p| &p[..] == path),
        };
        (found && self.doc.entities.contains_key(&key)).then_some(key)
    }

    /// The id of entity `key` in its own file: the last element of its path.
    pub fn own_id(&self, key: u64) -> u64 {
        self.paths
            .get(&key)
            .and_then(|p| p.last().copied())
            .unwrap_or(key)
    }

    /// The prefab placed by the instance entity with key `key`.
    pub fn instance_scene(&self, key: u64) -> Option<&str> {
        self.instances.get(&key).map(EcoString::as_str)
    }

    /// Whether any entity was placed by an instance.
    pub fn has_instances(&self) -> bool {
        !self.instances.is_empty()
    }

    /// What the scene's rules (validation) say of the entities the instances of `parsed` placed,
    /// at the overrides that changed them ([`locate`](Self::locate)); the prefab files report
    /// the rest when they are checked themselves. Names repeated across instances and remarks
    /// (info) are not about the overrides.
    pub fn check_overridden(&self, parsed: &ParsedScene) -> Vec<Diagnostic> {
        // Only the entities an override changed, each as a root of its own: the rules of one
        // entity do not need the rest, and a 10,000-cell layer is not checked again whole.
        let mut part = SceneDoc::new(self.doc.name.clone());
        for key in self.overridden(parsed) {
            if let Some(node) = self.doc.entities.get(&key)
                && !part.entities.contains_key(&key)
            {
                let mut node = EntityNode::clone(node);
                node.parent = None;
                node.children.clear();
                part.entities.insert(key, node.into());
                part.roots.push(key);
            }
        }
        part.next_id = part
            .entities
            .keys()
            .max()
            .map_or(1, |k| k.saturating_add(1));
        crate::validate::validate_scene(&part, None)
            .diagnostics
            .into_iter()
            .filter(|d| {
                d.severity != Severity::Info
                    && d.code != codes::name::DUPLICATE
                    && d.entity.is_some_and(|e| self.paths.contains_key(&e))
            })
            .filter_map(|d| self.locate(parsed, d))
            .collect()
    }

    /// The keys of the placed entities the overrides of `parsed` (its instances' and its tile
    /// layers') target, in file order (an entity targeted twice is listed twice).
    pub(crate) fn overridden(&self, parsed: &ParsedScene) -> Vec<u64> {
        let holders = parsed
            .doc
            .entities
            .iter()
            .filter_map(|(id, n)| Some((*id, &n.instance.as_deref()?.overrides)))
            .chain(parsed.doc.layers.iter().map(|l| (l.id, &l.overrides)));
        let mut out = Vec::new();
        for (id, overrides) in holders {
            for o in overrides {
                let mut path = Vec::with_capacity(o.target.len() + 1);
                path.push(id);
                path.extend_from_slice(&o.target);
                out.extend(self.key(&path));
            }
        }
        out
    }

    /// What entity references (`#7/2`) of this scene may name.
    pub(crate) fn referable(&self) -> crate::validate::custom::Referable<'_> {
        crate::validate::custom::Referable::new(&self.doc, Some(self))
    }

    /// A diagnostic that scene rules gave about the expanded document, pointed at the scene file:
    /// unchanged for the scene's own entities; for an entity an instance placed, moved to the
    /// override that changed the value (its entity the instance entity, its path the override's
    /// part, its help naming the prefab entity), or `None` when no override of this scene made
    /// it (the prefab's own file reports it).
    pub fn locate(&self, parsed: &ParsedScene, mut d: Diagnostic) -> Option<Diagnostic> {
        let Some(key) = d.entity else {
            return Some(d);
        };
        let Some(path) = self.paths.get(&key) else {
            return Some(d);
        };
        let (instance_id, target) = (path[0], &path[1..]);
        // An instance entity's overrides, or a tile layer's (by the layer's id).
        let (overrides, scene, holder) = match parsed.doc.entities.get(&instance_id) {
            Some(entity) => {
                let instance = entity.instance.as_deref()?;
                (
                    &instance.overrides[..],
                    &instance.scene,
                    "instance".to_owned(),
                )
            }
            None => {
                let n = parsed.doc.layers.iter().position(|l| l.id == instance_id)?;
                let layer = &parsed.doc.layers[n];
                let key = layer.key_at(*target.first()?, *target.get(1)?)?;
                let scene = &layer.palette.iter().find(|(k, _)| *k == key)?.1;
                (&layer.overrides[..], scene, format!("layers[{n}]"))
            }
        };
        let node = self.doc.entities.get(&key)?;
        let field = d.path.clone().unwrap_or_default();
        let (i, part, part_path) = overrides
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, o)| o.target == target)
            .find_map(|(i, o)| {
                override_part(o, node, &field).map(|(part, part_path)| (i, part, part_path))
            })?;
        d.entity = Some(instance_id);
        d.position = parsed.source_map.override_part(instance_id, i, part);
        // Inside the override's expression, as everywhere else, not at its opening quote.
        let set_custom = |j: usize| match overrides[i].set.get(j).map(|p| &p.component) {
            Some(ComponentData::Custom(c)) => Some(c),
            _ => None,
        };
        let expr = match part {
            OverridePart::SetCustomExpr(j, f) => set_custom(j)
                .and_then(|c| c.fields.get(f))
                .map(|f| f.expr.as_str()),
            OverridePart::SetField(j, "value") => set_custom(j).and_then(|c| c.value.as_deref()),
            _ => None,
        };
        if let Some(at) = d.expr_at {
            let map = &parsed.source_map;
            if let (Some(span), Some(expr)) = (map.override_part_span(instance_id, i, part), expr) {
                d.position = Some(map.position_of_offset(map.expr_offset(span, expr, at)));
            }
        }
        d.path = Some(format!("{holder}.overrides[{i}].{part_path}"));
        let about = format!(
            "in prefab entity {target:?} (`{}`) of `{scene}`, placed by {} {instance_id}",
            node.name,
            if holder == "instance" {
                "entity"
            } else {
                "layer"
            }
        );
        d.help = Some(match d.help.take() {
            Some(help) => format!("{help}; {about}"),
            None => about,
        });
        Some(d)
    }
}

/// Expands the instances of `parsed`, the scene read from its file. `prefab` gives each prefab
/// by its asset path, already expanded; an instance whose prefab it does not give (the caller
/// failed to read it and reports why) places nothing.
///
/// Returns the expanded scene (`None` when `parsed` has no instance: the document is its own
/// expansion) and what the overrides showed: `forge::prefab::unused_override` warnings,
/// `forge::prefab::add_existing` and `forge::prefab::key_collision` errors, each at its line in
/// `parsed`.
pub fn expand<'p>(
    parsed: &ParsedScene,
    prefab: &dyn Fn(&str) -> Option<&'p ExpandedScene>,
) -> (Option<ExpandedScene>, Vec<Diagnostic>) {
    let doc = &parsed.doc;
    if !places_prefabs(doc) {
        return (None, Vec::new());
    }
    let mut diagnostics = Vec::new();
    let mut out = SceneDoc {
        format_version: doc.format_version,
        name: doc.name.clone(),
        entities: Default::default(),
        roots: doc.roots.clone(),
        next_id: doc.next_id,
        layers: Vec::new(),
    };
    let mut paths = HashMap::default();
    let mut instances = HashMap::default();
    // Entities of this file an override places under a prefab entity: (child, new parent key).
    let mut placed: Vec<(u64, u64)> = Vec::new();
    for (&id, node) in &doc.entities {
        let Some(instance) = node.instance.as_deref() else {
            // Shared with the file's document, not copied.
            out.entities.insert(id, node.clone());
            continue;
        };
        let mut own = EntityNode::clone(node);
        own.instance = None;
        if instance.is_model() {
            // A glTF model is not expanded here: its nodes come from the model file when it
            // spawns. The entity keeps its instance (and its overrides as written); entities
            // they place under a node stay under the instance entity for now.
            own.instance = node.instance.clone();
            for o in &instance.overrides {
                for child in &o.children {
                    if !own.children.contains(child) {
                        own.children.push(*child);
                    }
                }
            }
            out.entities.insert(id, own.into());
            continue;
        }
        instances.insert(id, instance.scene.clone());
        let Some(prefab) = prefab(&instance.scene) else {
            out.entities.insert(id, own.into());
            continue;
        };
        if out.entities.len() + prefab.doc.entities.len() + doc.entities.len()
            > MAX_EXPANDED_ENTITIES
        {
            let mut d = Diagnostic::new(
                Severity::Error,
                codes::prefab::TOO_LARGE,
                format!(
                    "with `{}` placed here the scene would have more than {MAX_EXPANDED_ENTITIES} entities",
                    instance.scene
                ),
            )
            .with_entity(id)
            .with_path("instance.scene")
            .with_help("a prefab placed many times by prefabs placed many times multiplies: place fewer copies, or split the level");
            d.position = parsed.source_map.instance_scene(id);
            diagnostics.push(d);
            out.entities.insert(id, own.into());
            continue;
        }
        // The prefab's roots come first, then the instance entity's own children.
        let roots: Vec<u64> = prefab
            .doc
            .roots
            .iter()
            .map(|r| key_of(&prefixed(&[id], prefab, *r)))
            .collect();
        own.children.splice(0..0, roots);
        out.entities.insert(id, own.into());
        let place = Placement {
            prefix: &[id],
            parent: id,
            offset: None,
            at: id,
            field: "instance",
        };
        place_prefab(
            &place,
            prefab,
            &mut out,
            &mut paths,
            &mut instances,
            &mut diagnostics,
            &parsed.source_map,
        );
        apply_overrides(
            id,
            instance,
            prefab,
            &mut out,
            &mut placed,
            &mut diagnostics,
            &parsed.source_map,
        );
    }
    for (n, layer) in doc.layers.iter().enumerate() {
        let mut into = Into {
            out: &mut out,
            paths: &mut paths,
            instances: &mut instances,
            placed: &mut placed,
            diagnostics: &mut diagnostics,
        };
        expand_layer(n, layer, doc, prefab, &mut into, &parsed.source_map);
    }
    for (child, parent) in placed {
        if let Some(node) = out.entities.get_mut(&child).map(std::sync::Arc::make_mut) {
            node.parent = Some(parent);
        }
        if let Some(node) = out.entities.get_mut(&parent).map(std::sync::Arc::make_mut) {
            node.children.push(child);
        }
    }
    // Keys of placed entities are large: the expanded document's next id stays above them.
    if let Some(max) = out.entities.keys().max() {
        out.next_id = out.next_id.max(max.saturating_add(1));
    }
    let layers = doc
        .layers
        .iter()
        .filter(|l| out.entities.contains_key(&l.id) && !doc.entities.contains_key(&l.id))
        .map(|l| (l.id, l.cell_bounds()))
        .collect();
    let expanded = ExpandedScene {
        doc: Arc::new(out),
        paths: Arc::new(paths),
        instances,
        layers,
    };
    (Some(expanded), diagnostics)
}

/// Whether any entity of `doc` places a prefab.
pub fn has_instances(doc: &SceneDoc) -> bool {
    doc.entities.values().any(|n| n.instance.is_some())
}

/// Whether `doc` places prefabs: through instance entities or tile layers.
pub fn places_prefabs(doc: &SceneDoc) -> bool {
    !doc.layers.is_empty() || has_instances(doc)
}

/// The prefab files `doc` places directly (by instances, then by the palettes of its tile
/// layers), each once, in file order.
pub(crate) fn instance_scenes(doc: &SceneDoc) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for node in doc.entities.values() {
        if let Some(instance) = &node.instance
            && !instance.is_model()
            && !out.contains(&instance.scene.as_str())
        {
            out.push(&instance.scene);
        }
    }
    for (_, scene) in doc.layers.iter().flat_map(|l| &l.palette) {
        if !out.contains(&scene.as_str()) {
            out.push(scene);
        }
    }
    out
}

/// Where [`expand_layer`] writes.
struct Into<'a> {
    out: &'a mut SceneDoc,
    paths: &'a mut PlacedPaths,
    instances: &'a mut HashMap<u64, EcoString>,
    placed: &'a mut Vec<(u64, u64)>,
    diagnostics: &'a mut Vec<Diagnostic>,
}

/// Expands tile layer `layer` (entry `n` of `doc.layers`): the layer entity (key: the layer's
/// id) under the layer's parent, and under it every filled cell's prefab, its roots moved to the
/// cell, keyed by the id paths `[layer, i, j, inner..]`; then the layer's overrides of single
/// cells. A layer whose id is taken, whose parent is missing or that is too large places
/// nothing (validation reports why); so does a cell whose key or prefab is unknown.
fn expand_layer<'p>(
    n: usize,
    layer: &crate::format::TileLayer,
    doc: &SceneDoc,
    prefab: &dyn Fn(&str) -> Option<&'p ExpandedScene>,
    into: &mut Into<'_>,
    map: &SourceMap,
) {
    use crate::format::{LayerPart, MAX_LAYER_CELLS};
    let id = layer.id;
    if id == 0
        || into.out.entities.contains_key(&id)
        || layer.parent.is_some_and(|p| !doc.entities.contains_key(&p))
        || layer.extent() > MAX_LAYER_CELLS
    {
        return;
    }
    let mut node = EntityNode::new(id, layer.name.clone());
    node.parent = layer.parent;
    node.transform.translation = layer.anchor();
    match layer.parent {
        Some(p) => {
            if let Some(parent) = into.out.entities.get_mut(&p).map(std::sync::Arc::make_mut) {
                parent.children.push(id);
            }
        }
        None => into.out.roots.push(id),
    }
    into.out.entities.insert(id, node.into());
    let prefabs: Vec<Option<&ExpandedScene>> = layer
        .palette
        .iter()
        .map(|(_, scene)| prefab(scene))
        .collect();
    let per_cell: usize = layer
        .filled()
        .filter_map(|(_, _, key, _)| layer.palette.iter().position(|(k, _)| *k == key))
        .filter_map(|k| prefabs[k])
        .map(|p| p.doc.entities.len())
        .sum();
    if into.out.entities.len() + per_cell > MAX_EXPANDED_ENTITIES {
        let mut d = Diagnostic::new(
            Severity::Error,
            codes::prefab::TOO_LARGE,
            format!(
                "with its cells placed the scene would have more than {MAX_EXPANDED_ENTITIES} entities"
            ),
        )
        .with_entity(id)
        .with_path(format!("layers[{n}]"))
        .with_help("use smaller prefabs in the palette, or split the layer");
        d.position = map.layer_part(id, LayerPart::Entry);
        into.diagnostics.push(d);
        return;
    }
    let field = format!("layers[{n}]");
    into.out.entities.reserve(per_cell);
    into.paths.reserve(per_cell);
    let mut roots = Vec::new();
    // The cell each filled cell's prefab is placed for, with its prefab.
    let mut cells: HashMap<(u64, u64), usize> = HashMap::default();
    for (i, j, key, _) in layer.filled() {
        let Some(k) = layer.palette.iter().position(|(p, _)| *p == key) else {
            continue;
        };
        let Some(cell_prefab) = prefabs[k] else {
            continue;
        };
        match cells.entry((i, j)) {
            bevy_platform::collections::hash_map::Entry::Occupied(_) => continue,
            bevy_platform::collections::hash_map::Entry::Vacant(cell) => {
                cell.insert(k);
            }
        }
        let prefix = [id, i, j];
        let place = Placement::cell(layer, &prefix, &field);
        roots.extend(place_prefab(
            &place,
            cell_prefab,
            into.out,
            into.paths,
            into.instances,
            into.diagnostics,
            map,
        ));
    }
    if let Some(node) = into.out.entities.get_mut(&id).map(std::sync::Arc::make_mut) {
        node.children = roots;
    }
    for (index, o) in layer.overrides.iter().enumerate() {
        let [i, j, inner @ ..] = &o.target[..] else {
            continue; // a validation error of its own
        };
        let Some(&k) = cells.get(&(*i, *j)) else {
            let inside = layer.cell_bounds().filter(|r| {
                (u64::from(r.i0)..=u64::from(r.i1)).contains(i)
                    && (u64::from(r.j0)..=u64::from(r.j1)).contains(j)
            });
            let why = match (inside, layer.cell_bounds()) {
                (Some(_), _) => "of the layer is empty".to_owned(),
                (None, Some(r)) => format!(
                    "is outside the layer, whose cells run from ({}, {}) to ({}, {})",
                    r.i0, r.j0, r.i1, r.j1
                ),
                (None, None) => "is outside the layer, which has no cells".to_owned(),
            };
            let mut d = Diagnostic::new(
                Severity::Warning,
                codes::prefab::UNUSED_OVERRIDE,
                format!("override target {:?}: cell ({i}, {j}) {why}", o.target),
            )
            .with_entity(id)
            .with_path(format!("{field}.overrides[{index}]"))
            .with_help("the override is kept and applies again when the cell is painted with a prefab that has its target");
            d.position = map.override_part(id, index, OverridePart::Field("target"));
            into.diagnostics.push(d);
            continue;
        };
        let Some(cell_prefab) = prefabs[k] else {
            continue;
        };
        let prefix = [id, *i, *j];
        let place = OverridesOf {
            id,
            path: &field,
            prefix: &prefix,
            scene: &layer.palette[k].1,
        };
        apply_overrides_at(
            &place,
            std::iter::once((index, o, inner)),
            cell_prefab,
            into.out,
            into.placed,
            into.diagnostics,
            map,
        );
    }
}

/// The path of prefab entity `key` (a key of `prefab`'s document) under `prefix` (an instance
/// entity's id, or a layer's id and a cell's `i` and `j`).
pub(crate) fn prefixed(prefix: &[u64], prefab: &ExpandedScene, key: u64) -> Vec<u64> {
    let inner = prefab.paths.get(&key);
    let mut path = Vec::with_capacity(prefix.len() + inner.map_or(1, |p| p.len()));
    path.extend_from_slice(prefix);
    match inner {
        Some(p) => path.extend_from_slice(p),
        None => path.push(key),
    }
    path
}

/// Where [`place_prefab`] puts a prefab: under `prefix` (an instance entity's id, or a layer's
/// id and a cell's `i` and `j`), its roots under entity `parent`, moved by `offset` (a cell's
/// place in its layer), problems reported at entity `at` and its field `field`.
struct Placement<'a> {
    prefix: &'a [u64],
    parent: u64,
    offset: Option<crate::format::Vec3Data>,
    at: u64,
    field: &'a str,
}

/// Copies every entity of `prefab` under `place` into `out`; the keys of its roots, in order.
impl<'a> Placement<'a> {
    /// Where tile layer `layer` places the prefab of cell `prefix` (`[layer, i, j]`): under
    /// the layer entity, moved to the cell, problems reported at the layer's `field`.
    fn cell(layer: &crate::format::TileLayer, prefix: &'a [u64; 3], field: &'a str) -> Self {
        let [id, i, j] = *prefix;
        Self {
            prefix,
            parent: id,
            offset: Some(layer.cell_offset(i, j)),
            at: id,
            field,
        }
    }
}

fn place_prefab(
    place: &Placement<'_>,
    prefab: &ExpandedScene,
    out: &mut SceneDoc,
    paths: &mut PlacedPaths,
    instances: &mut HashMap<u64, EcoString>,
    diagnostics: &mut Vec<Diagnostic>,
    map: &SourceMap,
) -> Vec<u64> {
    let id = place.parent;
    // Each prefab entity's path and key here, in the prefab's order (one path each: a layer
    // places its prefabs thousands of times).
    let (placed, keys): (Vec<Arc<[u64]>>, Vec<u64>) = prefab
        .doc
        .entities
        .keys()
        .map(|k| {
            let path: Arc<[u64]> = prefixed(place.prefix, prefab, *k).into();
            let key = key_of(&path);
            (path, key)
        })
        .unzip();
    let key_here = |k: &u64| prefab.doc.entities.get_index_of(k).map(|i| keys[i]);
    let roots = prefab.doc.roots.iter().filter_map(key_here).collect();
    for ((node, path), &new_key) in prefab.doc.entities.values().zip(placed).zip(&keys) {
        if out.entities.contains_key(&new_key) {
            let mut d = Diagnostic::new(
                Severity::Error,
                codes::prefab::KEY_COLLISION,
                format!(
                    "the id path {path:?} hashes to the key of another entity ({new_key}); renumber entity {}",
                    place.at
                ),
            )
            .with_entity(place.at)
            .with_path(place.field);
            d.position = match place.offset {
                None => map.entity_field(place.at, "instance"),
                Some(_) => map.layer_part(place.at, crate::format::LayerPart::Entry),
            };
            diagnostics.push(d);
            continue;
        }
        let mut copy = EntityNode {
            id: new_key,
            name: node.name.clone(),
            parent: Some(node.parent.and_then(|p| key_here(&p)).unwrap_or(id)),
            children: node.children.iter().filter_map(key_here).collect(),
            transform: node.transform,
            components: node.components.clone(),
            locked: node.locked,
            // A model the prefab places stays placed (its nodes spawn from the model file);
            // the entities its overrides put under nodes are named by their keys here, and
            // the references in their values by their paths here.
            instance: node.instance.as_ref().filter(|i| i.is_model()).map(|i| {
                let mut i = i.clone();
                for o in &mut i.overrides {
                    o.children = o.children.iter().filter_map(key_here).collect();
                    let values = o
                        .add
                        .iter_mut()
                        .chain(o.set.iter_mut().map(|p| &mut p.component));
                    for component in values {
                        if let ComponentData::Custom(custom) = component {
                            prefix_custom_references(custom, place.prefix);
                        }
                    }
                }
                i
            }),
        };
        if let (Some(offset), None) = (place.offset, node.parent) {
            let t = &mut copy.transform.translation;
            t.x += offset.x;
            t.y += offset.y;
            t.z += offset.z;
        }
        prefix_component_references(&mut copy, place.prefix);
        out.entities.insert(new_key, copy.into());
        paths.insert(new_key, path);
    }
    for (k, scene) in &prefab.instances {
        if let Some(key) = key_here(k) {
            instances.insert(key, scene.clone());
        }
    }
    roots
}

/// Moves the entity references (`#2`) of `node`'s custom components, written in its prefab's
/// frame, under `prefix` (`#id/2` for an instance entity `id`), where they name the same
/// entities in the scene that places the prefab (the `format` module docs, "Entity references").
fn prefix_component_references(node: &mut EntityNode, prefix: &[u64]) {
    for component in &mut node.components {
        if let ComponentData::Custom(custom) = component {
            prefix_custom_references(custom, prefix);
        }
    }
}

/// Moves the entity references of `custom`'s expressions (each field's, and an enum's whole
/// `value`) under `prefix`, as [`prefix_component_references`] does for an entity's.
fn prefix_custom_references(custom: &mut crate::format::CustomComponent, prefix: &[u64]) {
    for field in &mut custom.fields {
        if let Some(prefixed) = crate::schema::expr::prefix_references(&field.expr, prefix) {
            field.expr = prefixed.into();
        }
    }
    if let Some(value) = &mut custom.value
        && let Some(prefixed) = crate::schema::expr::prefix_references(value, prefix)
    {
        *value = prefixed.into();
    }
}

/// Whether two components are the same one for an override: the same key, or custom
/// components whose type paths name the same type, one of them by its bare name (`Orbit` and
/// `game::Orbit`, as the loader resolves a bare name).
fn same_component(a: &ComponentData, b: &ComponentData) -> bool {
    match (a, b) {
        (ComponentData::Custom(a), ComponentData::Custom(b)) => {
            same_type_path(&a.type_path, &b.type_path)
        }
        _ => a.same_key(b),
    }
}

/// Whether `component` has `key`, a custom key matching by bare name as [`same_component`].
fn has_component_key(component: &ComponentData, key: &str) -> bool {
    match (component, key.strip_prefix("custom:")) {
        (ComponentData::Custom(c), Some(path)) => same_type_path(&c.type_path, path),
        _ => component.has_key(key),
    }
}

fn same_type_path(a: &str, b: &str) -> bool {
    let bare =
        |full: &str, name: &str| !name.contains("::") && full.rsplit("::").next() == Some(name);
    a == b || bare(a, b) || bare(b, a)
}

/// Why override target `target` of an instance of `scene` (expanded as `prefab`) finds no
/// entity: the file where the path stops, and the id that file does not have.
fn missing_target(target: &[u64], shown: &[u64], scene: &str, prefab: &ExpandedScene) -> String {
    // The deepest instance entity the path goes through: the file it places is where it stops.
    let mut file = scene.to_owned();
    let mut at = 0;
    for len in 1..target.len() {
        let nested = prefab
            .key(&target[..len])
            .and_then(|key| prefab.instance_scene(key));
        match nested {
            Some(nested) => {
                file = nested.to_owned();
                at = len;
            }
            None => break,
        }
    }
    if at == 0 {
        format!("override target {shown:?} is not an entity of `{scene}`")
    } else {
        format!(
            "override target {shown:?}: `{file}` (placed at {:?}) has no entity {}",
            &target[..at],
            target[at]
        )
    }
}

/// Applies the overrides of instance entity `id` to the entities it placed in `out`.
fn apply_overrides(
    id: u64,
    instance: &Instance,
    prefab: &ExpandedScene,
    out: &mut SceneDoc,
    placed: &mut Vec<(u64, u64)>,
    diagnostics: &mut Vec<Diagnostic>,
    map: &SourceMap,
) {
    let overrides = instance
        .overrides
        .iter()
        .enumerate()
        .map(|(i, o)| (i, o, &o.target[..]));
    let scene = instance.scene.as_str();
    let place = OverridesOf {
        id,
        path: "instance",
        prefix: &[id],
        scene,
    };
    apply_overrides_at(&place, overrides, prefab, out, placed, diagnostics, map);
}

/// Whose overrides [`apply_overrides_at`] applies: those of entity (or layer) `id`, to the
/// entities placed under `prefix` from prefab `scene`.
struct OverridesOf<'a> {
    id: u64,
    /// The path of what holds the overrides, in diagnostics: `instance`, `layers[2]`.
    path: &'a str,
    prefix: &'a [u64],
    scene: &'a str,
}

/// Applies `overrides` (index, override, target inside the prefab) to the entities placed
/// under `place` in `out`.
fn apply_overrides_at<'o>(
    place: &OverridesOf<'_>,
    overrides: impl Iterator<Item = (usize, &'o crate::format::Override, &'o [u64])>,
    prefab: &ExpandedScene,
    out: &mut SceneDoc,
    placed: &mut Vec<(u64, u64)>,
    diagnostics: &mut Vec<Diagnostic>,
    map: &SourceMap,
) {
    let id = place.id;
    for (i, o, target_path) in overrides {
        let unused = |part: OverridePart<'_>, what: String| {
            let mut d = Diagnostic::new(
                Severity::Warning,
                codes::prefab::UNUSED_OVERRIDE,
                what,
            )
            .with_entity(id)
            .with_path(format!("{}.overrides[{i}]", place.path))
            .with_help(
                "the override is kept and applies again if the prefab gets it back; delete it if it is no longer wanted",
            );
            d.position = map.override_part(id, i, part);
            d
        };
        let target = prefab
            .key(target_path)
            .map(|k| key_of(&prefixed(place.prefix, prefab, k)));
        let Some(node) =
            target.and_then(|k| out.entities.get_mut(&k).map(std::sync::Arc::make_mut))
        else {
            // An empty target is a validation error of its own.
            if !target_path.is_empty() {
                diagnostics.push(unused(
                    OverridePart::Field("target"),
                    missing_target(target_path, &o.target, place.scene, prefab),
                ));
            }
            // Entities it would place stay under the instance entity.
            for child in &o.children {
                if let Some(own) = out.entities.get_mut(&id).map(std::sync::Arc::make_mut)
                    && !own.children.contains(child)
                {
                    own.children.push(*child);
                }
            }
            continue;
        };
        if let Some(name) = &o.name {
            node.name.clone_from(name);
        }
        if let Some(transform) = o.transform {
            node.transform = transform;
        }
        for (j, patch) in o.set.iter().enumerate() {
            let slot = node
                .components
                .iter_mut()
                .find(|c| same_component(c, &patch.component));
            match slot {
                Some(component) => {
                    patch.apply_to(component);
                }
                None => diagnostics.push(unused(
                    OverridePart::Set(j),
                    format!(
                        "prefab entity {:?} (`{}`) has no `{}` component to set",
                        o.target,
                        node.name,
                        patch.component.key()
                    ),
                )),
            }
        }
        for (j, key) in o.remove.iter().enumerate() {
            if !crate::validate::is_component_key(key) {
                continue; // a validation error of its own
            }
            let before = node.components.len();
            node.components.retain(|c| !has_component_key(c, key));
            if node.components.len() == before {
                diagnostics.push(unused(
                    OverridePart::Remove(j),
                    format!(
                        "prefab entity {:?} (`{}`) has no `{key}` component to remove",
                        o.target, node.name
                    ),
                ));
            }
        }
        for (j, component) in o.add.iter().enumerate() {
            if node.components.iter().any(|c| same_component(c, component)) {
                let mut d = Diagnostic::new(
                    Severity::Error,
                    codes::prefab::ADD_EXISTING,
                    format!(
                        "prefab entity {:?} (`{}`) already has a `{}` component",
                        o.target,
                        node.name,
                        component.key()
                    ),
                )
                .with_entity(id)
                .with_path(format!("{}.overrides[{i}].add[{j}]", place.path))
                .with_help("change its fields with `set` instead of adding it");
                d.position = map.override_part(id, i, OverridePart::Add(j));
                diagnostics.push(d);
                continue;
            }
            node.components.push(component.clone());
        }
        if let Some(key) = target {
            placed.extend(o.children.iter().map(|c| (*c, key)));
        }
    }
}

impl crate::validate::custom::PlacedEntities for ExpandedScene {
    fn placed_path(&self, key: u64) -> Option<&[u64]> {
        ExpandedScene::placed_path(self, key)
    }

    fn key(&self, path: &[u64]) -> Option<u64> {
        ExpandedScene::key(self, path)
    }

    fn places(&self, key: u64) -> Option<&str> {
        self.instances.get(&key).map(EcoString::as_str)
    }

    fn layer_cells(&self, key: u64) -> Option<Option<crate::format::CellRect>> {
        self.layers.get(&key).copied()
    }
}
