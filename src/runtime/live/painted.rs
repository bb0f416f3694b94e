//! The diff of a paint: two versions of a scene that differ only in the cells of their tile
//! layers (characters of `rows`, entries of `cells`) are diffed over the entities of those cells
//! alone, not over the whole expansion. The result is the [`diff`] of the two expansions, field
//! for field; anything else (another field changed, a prefab changed, an override on a painted
//! cell, rows added or removed) takes the whole diff.

use std::sync::Arc;

use bevy_platform::collections::HashSet;

use crate::diff::{SceneDiff, diff};
use crate::format::{EcoString, SceneDoc, TileLayer};
use crate::prefab::{ExpandedScene, key_of, prefixed};
use crate::runtime::asset::scene::{ForgeScene, SceneVersion};

impl ForgeScene {
    /// The changes from `old` to this scene, as hot reload computes them: [`diff`] of the two
    /// documents, except that an entity whose entry is written byte for byte the same in both
    /// files is known unchanged without comparing it (when neither document was edited in
    /// memory since it was read). Apply them with [`apply_diff`](crate::apply_diff).
    ///
    /// When the two versions differ only in the cells of their tile layers (a paint), only
    /// the painted tiles' entities and their layer entities are compared: the same diff, in
    /// time proportional to the paint rather than to the layer.
    pub fn changes_since(&self, old: &ForgeScene) -> SceneDiff {
        let painted = old.expanded.as_deref().map(|expanded| Version {
            file: &old.doc,
            expanded,
            prefab_docs: &old.prefabs.docs,
        });
        changes_from(painted, old.spawn_doc(), old.text_hashes.as_deref(), self)
    }
}

/// The changes from `old`, the version live instances stand at, to `scene`: as
/// [`ForgeScene::changes_since`] computes them.
pub(crate) fn changes(old: &SceneVersion, scene: &ForgeScene) -> SceneDiff {
    let painted = old.placed.as_ref().map(|placed| Version {
        file: &placed.file,
        expanded: &placed.expanded,
        prefab_docs: &placed.prefab_docs,
    });
    changes_from(painted, &old.doc, old.text_hashes.as_deref(), scene)
}

/// The changes to `new` from the version whose spawned document is `old_doc` (with its text
/// hashes), through the paint diff when both place prefabs (`old`) and only tiles changed.
fn changes_from(
    old: Option<Version<'_>>,
    old_doc: &SceneDoc,
    old_hashes: Option<&[u64]>,
    new: &ForgeScene,
) -> SceneDiff {
    if let Some(old) = old
        && let Some(expanded) = new.expanded.as_deref()
    {
        let version = Version {
            file: &new.doc,
            expanded,
            prefab_docs: &new.prefabs.docs,
        };
        let scenes = |path: &str| new.prefabs.scenes.get(path).map(|s| &**s);
        if let Some(changes) = paint_diff(&old, &version, &scenes) {
            return changes;
        }
    }
    crate::diff::diff_with_hashes(
        old_doc,
        old_hashes,
        new.spawn_doc(),
        new.text_hashes.as_deref(),
    )
}

/// One version of a scene, as a paint diff needs it.
struct Version<'a> {
    /// The document as read (layers as rows).
    file: &'a SceneDoc,
    /// Its expansion.
    expanded: &'a ExpandedScene,
    /// The document of every prefab file it places, by asset path.
    prefab_docs: &'a [(EcoString, Arc<SceneDoc>)],
}

/// The keys of every entity prefab `scene` places at cell `(i, j)` of layer `layer`.
fn tile_keys<'s>(
    layer: &TileLayer,
    i: u64,
    j: u64,
    key: Option<char>,
    scenes: &dyn Fn(&str) -> Option<&'s ExpandedScene>,
    into: &mut Vec<u64>,
) -> Option<()> {
    let Some(key) = key else {
        return Some(());
    };
    let prefab = scenes(layer.prefab(key)?)?;
    let prefix = [layer.id, i, j];
    into.extend(
        prefab
            .doc
            .entities
            .keys()
            .map(|k| key_of(&prefixed(&prefix, prefab, *k))),
    );
    Some(())
}

/// The changes from `old` to `new` when they differ only in the cells of their tile layers:
/// the [`diff`] of their expansions, computed over the
/// painted cells' entities and their layer entities. `None` when anything else differs.
/// `scenes` gives the prefabs both place, expanded.
fn paint_diff<'s>(
    old: &Version<'_>,
    new: &Version<'_>,
    scenes: &dyn Fn(&str) -> Option<&'s ExpandedScene>,
) -> Option<SceneDiff> {
    let (a, b) = (old.file, new.file);
    if a.layers.is_empty()
        || a.layers.len() != b.layers.len()
        || a.format_version != b.format_version
        || a.name != b.name
        || a.next_id != b.next_id
        || a.roots != b.roots
        || old.prefab_docs.len() != new.prefab_docs.len()
    {
        return None;
    }
    let same_prefabs = old
        .prefab_docs
        .iter()
        .zip(new.prefab_docs)
        .all(|((pa, da), (pb, db))| pa == pb && (Arc::ptr_eq(da, db) || da == db));
    if !same_prefabs || a.entities != b.entities {
        return None;
    }
    let (eo, en) = (&old.expanded.doc, &new.expanded.doc);
    let mut keys_old = Vec::new();
    let mut keys_new = Vec::new();
    let mut layers = Vec::new();
    for (la, lb) in a.layers.iter().zip(&b.layers) {
        if !la.same_but_tiles(lb) {
            return None;
        }
        if la.rows == lb.rows && la.cells == lb.cells {
            continue;
        }
        let cells = la.changed_tiles(lb)?;
        for (i, j, from, to) in cells {
            // An override of a painted cell may place the file's entities under it: whole diff.
            if lb.overrides_cell(i, j) {
                return None;
            }
            tile_keys(la, i, j, from, scenes, &mut keys_old)?;
            tile_keys(lb, i, j, to, scenes, &mut keys_new)?;
        }
        layers.push(la.id);
    }
    // Both documents cut down to the painted entities and their layers, in file order.
    let part = |full: &SceneDoc, keys: &[u64], other: &[u64]| -> Option<SceneDoc> {
        let mut wanted: Vec<usize> = Vec::with_capacity(keys.len() + other.len() + layers.len());
        let mut seen = HashSet::with_capacity(wanted.capacity());
        for key in layers.iter().chain(keys).chain(other) {
            if seen.insert(*key)
                && let Some(index) = full.entities.get_index_of(key)
            {
                wanted.push(index);
            }
        }
        wanted.sort_unstable();
        let mut doc = SceneDoc {
            format_version: full.format_version,
            name: full.name.clone(),
            entities: Default::default(),
            roots: full.roots.clone(),
            next_id: full.next_id,
            layers: Vec::new(),
        };
        for index in wanted {
            let (key, node) = full.entities.get_index(index)?;
            doc.entities.insert(*key, node.clone());
        }
        Some(doc)
    };
    let small_old = part(eo, &keys_old, &keys_new)?;
    let small_new = part(en, &keys_new, &keys_old)?;
    let mut d = diff(&small_old, &small_new);
    // The file order as the whole diff gives it: none when the added entities come last in the
    // new document, in the order they are added.
    d.file_order = None;
    if !d.added.is_empty() {
        let n = en.entities.len();
        let last = n - d.added.len().min(n);
        let in_order = d
            .added
            .iter()
            .enumerate()
            .all(|(k, added)| en.entities.get_index_of(&added.id) == Some(last + k));
        if !in_order {
            d.file_order = Some(en.entities.keys().copied().collect());
        }
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::PrefabFiles;

    const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

    fn sprite(r: f32) -> String {
        format!(
            "(type: sprite, data: (image: None, color: (r: {r:?}, g: 0.5, b: 0.5, a: 1.0), custom_size: None, flip_x: false, flip_y: false))"
        )
    }

    /// Prefab `a`: a root with a child; prefab `b`: one entity (the same id as `a`'s root).
    fn prefab(name: &str) -> String {
        let entities = if name == "a" {
            format!(
                "1: (id: 1, name: \"A\", parent: None, children: [2], {T}, components: [{}]), 2: (id: 2, name: \"A2\", parent: Some(1), children: [], {T}, components: [{}])",
                sprite(0.1),
                sprite(0.2)
            )
        } else {
            format!(
                "1: (id: 1, name: \"B\", parent: None, children: [], {T}, components: [{}])",
                sprite(0.9)
            )
        };
        format!(
            "(format_version: 1, name: \"{name}\", entities: {{ {entities} }}, roots: [1], next_id: 3)"
        )
    }

    /// Entity 1 with layer 9 (`rows`, an override of cell (0, 0)) under it and layer 8
    /// (sparse `cells`) at the root.
    fn level(rows: &[String], cells: &[(u32, u32, char)]) -> String {
        let rows: Vec<String> = rows.iter().map(|r| format!("\"{r}\"")).collect();
        let cells: Vec<String> = cells
            .iter()
            .map(|(i, j, k)| format!("(i: {i}, j: {j}, key: \"{k}\")"))
            .collect();
        let palette = "palette: {\"a\": \"a.forge.ron\", \"b\": \"b.forge.ron\"}";
        format!(
            "(format_version: 1, name: \"L\", entities: {{ 1: (id: 1, name: \"Ground\", parent: None, children: [], {T}, components: []) }}, roots: [1], next_id: 10, layers: [\
             (id: 9, parent: Some(1), plane: xy, cell_size: (x: 2, y: 2), {palette}, rows: [{}], overrides: [(target: [0, 0, 1], name: Some(\"Corner\"))]),\
             (id: 8, plane: xz, cell_size: (x: 1, y: 1), {palette}, cells: [{}])])",
            rows.join(", "),
            cells.join(", ")
        )
    }

    type Read = fn(&str) -> Result<Vec<u8>, String>;

    fn read(path: &str) -> Result<Vec<u8>, String> {
        match path {
            "a.forge.ron" => Ok(prefab("a").into_bytes()),
            "b.forge.ron" => Ok(prefab("b").into_bytes()),
            _ => Err("no such file".to_owned()),
        }
    }

    fn expand_level(text: &str) -> (SceneDoc, ExpandedScene, PrefabFiles<Read>) {
        let parsed = SceneDoc::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let mut files = PrefabFiles::new(read as Read);
        let (expanded, problems) = files.expand_scene("level.forge.ron", &parsed);
        assert!(
            problems
                .iter()
                .all(|d| d.severity != crate::validate::Severity::Error),
            "{problems:#?}"
        );
        let expanded = expanded.unwrap_or_else(|| panic!("layers place prefabs"));
        (parsed.doc, expanded, files)
    }

    fn key(n: u8) -> char {
        ['a', 'b', '.'][usize::from(n % 3)]
    }

    proptest::proptest! {
        /// A paint's diff over its cells is the diff of the whole expansions; it gives up only
        /// on a cell with an override, and replays to the new document.
        #[test]
        fn painted_cells_diff_as_the_whole(
            grid in proptest::collection::vec(0u8..3, 20),
            sparse in proptest::collection::btree_map((0u32..4, 0u32..4), 0u8..2, 0..5),
            paints in proptest::collection::vec((0u32..5, 0u32..4, 0u8..3, proptest::bool::ANY), 0..5),
        ) {
            let rows = |grid: &[u8]| -> Vec<String> {
                grid.chunks(5).map(|r| r.iter().map(|n| key(*n)).collect()).collect()
            };
            let cells_of = |m: &std::collections::BTreeMap<(u32, u32), u8>| -> Vec<(u32, u32, char)> {
                m.iter().map(|((i, j), k)| (*i, *j, key(*k))).collect()
            };
            let mut new_grid = grid.clone();
            let mut new_sparse = sparse.clone();
            let mut corner = false;
            for (i, j, k, in_rows) in &paints {
                if *in_rows {
                    // Row 0 is the top row: cell (i, j) is row 3 - j.
                    new_grid[(3 - *j as usize) * 5 + *i as usize] = *k;
                    corner |= (*i, *j) == (0, 0);
                } else if *k == 2 {
                    new_sparse.remove(&(*i % 4, *j));
                } else {
                    new_sparse.insert((*i % 4, *j), *k);
                }
            }
            let (old_file, old_exp, _) = expand_level(&level(&rows(&grid), &cells_of(&sparse)));
            let (new_file, new_exp, files) =
                expand_level(&level(&rows(&new_grid), &cells_of(&new_sparse)));
            let whole = diff(&old_exp.doc, &new_exp.doc);
            let old = Version { file: &old_file, expanded: &old_exp, prefab_docs: &[] };
            let new = Version { file: &new_file, expanded: &new_exp, prefab_docs: &[] };
            let scenes = |p: &str| files.file(p).and_then(|f| f.expanded.as_deref());
            match paint_diff(&old, &new, &scenes) {
                Some(painted) => {
                    proptest::prop_assert_eq!(&painted, &whole);
                    let mut replayed = SceneDoc::clone(&old_exp.doc);
                    painted.apply_to(&mut replayed);
                    proptest::prop_assert_eq!(&replayed, &*new_exp.doc);
                }
                None => proptest::prop_assert!(
                    corner && grid[15] != new_grid[15],
                    "only a paint of the overridden cell takes the whole diff"
                ),
            }
        }
    }

    #[test]
    fn anything_but_cells_takes_the_whole_diff() {
        let rows = vec!["aaaaa".to_owned(); 4];
        let (old_file, old_exp, _) = expand_level(&level(&rows, &[]));
        let renamed = level(&rows, &[]).replace("name: \"Ground\"", "name: \"Earth\"");
        let (new_file, new_exp, files) = expand_level(&renamed);
        let old = Version {
            file: &old_file,
            expanded: &old_exp,
            prefab_docs: &[],
        };
        let new = Version {
            file: &new_file,
            expanded: &new_exp,
            prefab_docs: &[],
        };
        let scenes = |p: &str| files.file(p).and_then(|f| f.expanded.as_deref());
        assert!(paint_diff(&old, &new, &scenes).is_none());
        // A changed prefab document too.
        let a = SceneDoc::from_str(&prefab("a")).map(|p| Arc::new(p.doc));
        let b = SceneDoc::from_str(&prefab("b")).map(|p| Arc::new(p.doc));
        let (Ok(a), Ok(b)) = (a, b) else {
            panic!("prefabs read")
        };
        let before = [("a.forge.ron".into(), a)];
        let after = [("a.forge.ron".into(), b)];
        let old = Version {
            file: &old_file,
            expanded: &old_exp,
            prefab_docs: &before,
        };
        let new = Version {
            file: &old_file,
            expanded: &old_exp,
            prefab_docs: &after,
        };
        assert!(paint_diff(&old, &new, &scenes).is_none());
    }
}
