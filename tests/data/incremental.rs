//! The incremental check (`pipeline::check_again`) against the whole check (`pipeline::check`):
//! random scenes edited step by step (entities, their values and forest, entity references,
//! prefab instances and their overrides, tile layers and their cells, text outside the
//! canonical layout), and after every step the check of the new text from the last one's
//! memory gives exactly what a whole check of it gives: the same diagnostics in the same order
//! and the same expansion.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_forge_scene::format::{
    ComponentData, ComponentPatch, CustomComponent, CustomField, Instance, Override, SceneDoc,
    TextChange, TileLayer,
};
use bevy_forge_scene::pipeline::{self, Checked, LastCheck, Source};
use common::incremental::{assert_same, files};
use proptest::prelude::*;

const PREFABS: [&str; 4] = [
    "prefabs/lamp.forge.ron",
    "prefabs/post.forge.ron",
    "prefabs/tile.forge.ron",
    "prefabs/missing.forge.ron",
];

/// One step of a scene's life.
#[derive(Debug, Clone)]
enum Step {
    /// A forest edit of the shared generator (add, delete, duplicate, reparent, components,
    /// names, transforms).
    Forest(common::Edit),
    /// A custom component naming another entity (or none) by reference.
    Refer {
        from: usize,
        to: usize,
        missing: bool,
    },
    /// An entity made an instance of a prefab, with an override.
    Place {
        pick: usize,
        prefab: usize,
        target: u64,
        rename: bool,
    },
    /// An instance's overrides changed.
    Override { pick: usize, target: u64 },
    /// A tile layer added under an entity (or at the root).
    Layer { parent: Option<usize>, rows: usize },
    /// One cell of a layer painted or erased.
    Paint { layer: usize, cell: usize },
    /// A cell override added to a layer.
    LayerOverride { layer: usize, i: u64, j: u64 },
    /// A parent set to an entity that does not exist, or `next_id` lowered: forest errors.
    Break { pick: usize, how: u8 },
    /// Text outside the canonical layout: a comment and spaces inserted at a byte.
    Comment { at: usize },
}

fn step() -> BoxedStrategy<Step> {
    let pick = any::<usize>();
    prop_oneof![
        8 => common::edit().prop_map(Step::Forest),
        2 => (pick, pick, any::<bool>()).prop_map(|(from, to, missing)| Step::Refer { from, to, missing }),
        2 => (pick, 0..PREFABS.len(), 1..4u64, any::<bool>()).prop_map(|(pick, prefab, target, rename)| Step::Place { pick, prefab, target, rename }),
        2 => (pick, 1..4u64).prop_map(|(pick, target)| Step::Override { pick, target }),
        1 => (proptest::option::of(pick), 1..4usize).prop_map(|(parent, rows)| Step::Layer { parent, rows }),
        3 => (pick, pick).prop_map(|(layer, cell)| Step::Paint { layer, cell }),
        1 => (pick, 0..5u64, 0..5u64).prop_map(|(layer, i, j)| Step::LayerOverride { layer, i, j }),
        1 => (pick, 0..3u8).prop_map(|(pick, how)| Step::Break { pick, how }),
        1 => pick.prop_map(|at| Step::Comment { at }),
    ]
    .boxed()
}

fn custom(type_path: &str, field: &str, expr: &str) -> ComponentData {
    ComponentData::Custom(CustomComponent {
        type_path: type_path.into(),
        fields: vec![CustomField::new(field, expr)],
        value: None,
    })
}

/// Applies `step` to `doc` (or to `text`, for steps below the document); the new text.
fn apply(doc: &mut SceneDoc, text: &str, step: &Step) -> String {
    let ids: Vec<u64> = doc.entities.keys().copied().collect();
    let pick = |i: usize| (!ids.is_empty()).then(|| ids[i % ids.len()]);
    match step {
        Step::Forest(edit) => forest(doc, edit),
        Step::Refer { from, to, missing } => {
            if let (Some(from), Some(to)) = (pick(*from), pick(*to)) {
                let to = if *missing { doc.next_id + 7 } else { to };
                let node = doc.entity_mut(from).unwrap();
                node.components.retain(
                    |c| !matches!(c, ComponentData::Custom(c) if c.type_path == "game::Link"),
                );
                node.components
                    .push(custom("game::Link", "to", &format!("#{to}")));
            }
        }
        Step::Place {
            pick: p,
            prefab,
            target,
            rename,
        } => {
            if let Some(id) = pick(*p) {
                let mut instance = Instance::new(PREFABS[*prefab]);
                let mut o = Override::new(vec![*target]);
                if *rename {
                    o.name = Some("Renamed".into());
                } else {
                    o.set = vec![ComponentPatch::new(
                        custom("game::Glow", "level", "#1"),
                        &["level"],
                    )];
                }
                instance.overrides.push(o);
                doc.entity_mut(id).unwrap().instance = Some(Box::new(instance));
            }
        }
        Step::Override { pick: p, target } => {
            let instances: Vec<u64> = doc
                .entities
                .values()
                .filter(|n| n.instance.is_some())
                .map(|n| n.id)
                .collect();
            if !instances.is_empty() {
                let id = instances[p % instances.len()];
                let instance = doc.entity_mut(id).unwrap().instance.as_mut().unwrap();
                match instance.overrides.first_mut() {
                    Some(o) if o.target == [*target] => instance.overrides.clear(),
                    Some(o) => o.target = vec![*target],
                    None => instance.overrides.push(Override {
                        transform: Some(Default::default()),
                        ..Override::new(vec![*target])
                    }),
                }
            }
        }
        Step::Layer { parent, rows } => {
            let id = doc.next_id;
            doc.next_id += 1;
            let mut layer = TileLayer::new(id, format!("Layer {id}"));
            layer.parent = parent.and_then(pick);
            // `p` places a prefab of two entities that places another: a cell of four.
            layer.palette = vec![
                ('t', "prefabs/tile.forge.ron".into()),
                ('p', "prefabs/post.forge.ron".into()),
            ];
            layer.rows = (0..*rows)
                .map(|r| if r % 2 == 0 { "t.tp" } else { ".tpt" }.to_owned())
                .collect();
            match layer.parent {
                Some(_) => {}
                None => doc.roots.push(id),
            }
            doc.layers.push(layer);
        }
        Step::Paint { layer, cell } => {
            if !doc.layers.is_empty() {
                let n = doc.layers.len();
                let layer = &mut doc.layers[layer % n];
                if !layer.rows.is_empty() {
                    let r = cell % layer.rows.len();
                    let row = &mut layer.rows[r];
                    let c = (cell / 7) % row.len().max(1);
                    // Round the keys: empty, `t`, `p`, empty.
                    let now = match row.as_bytes().get(c) {
                        Some(b'.') => "t",
                        Some(b't') => "p",
                        _ => ".",
                    };
                    if c < row.len() {
                        row.replace_range(c..c + 1, now);
                    }
                }
            }
        }
        Step::LayerOverride { layer, i, j } => {
            if !doc.layers.is_empty() {
                let n = doc.layers.len();
                let layer = &mut doc.layers[layer % n];
                layer.overrides.push(Override {
                    name: Some("Picked".into()),
                    ..Override::new(vec![*i, *j, 1])
                });
            }
        }
        Step::Break { pick: p, how } => {
            if let Some(id) = pick(*p) {
                match how {
                    0 => doc.entity_mut(id).unwrap().parent = Some(doc.next_id + 100),
                    1 => doc.next_id = id,
                    _ => doc.entity_mut(id).unwrap().name = "Dup".into(),
                }
            }
        }
        Step::Comment { at } => {
            // Not through the document: a comment and spaces where the text allows them (between
            // tokens), which the canonical layout would not write.
            let mut text = text.to_owned();
            let places: Vec<usize> = text.match_indices(",\n").map(|(i, _)| i + 1).collect();
            if !places.is_empty() {
                let at = places[at % places.len()];
                text.insert_str(at, " // note\n   ");
            }
            return text;
        }
    }
    doc.to_canonical_string()
}

/// A forest edit, through the document's editing operations; one the document refuses (a
/// forest a `Break` step left broken) changes nothing.
fn forest(doc: &mut SceneDoc, edit: &common::Edit) {
    use common::Edit;
    let ids: Vec<u64> = doc.entities.keys().copied().collect();
    let pick = |i: usize| (!ids.is_empty()).then(|| ids[i % ids.len()]);
    match edit {
        Edit::Add { name, parent_pick } => {
            let _ = doc.add_entity(name.clone(), parent_pick.and_then(pick));
        }
        Edit::Delete(p) => {
            if let Some(id) = pick(*p) {
                let _ = doc.delete_subtree(id);
            }
        }
        Edit::Duplicate(p) => {
            if let Some(id) = pick(*p) {
                let _ = doc.duplicate_subtree(id);
            }
        }
        Edit::Reparent {
            pick: p,
            parent_pick,
            index,
        } => {
            if let Some(id) = pick(*p) {
                let _ = doc.reparent(id, parent_pick.and_then(pick), index % 3);
            }
        }
        Edit::AddComponent(p, c) => {
            if let Some(id) = pick(*p) {
                let _ = doc.add_component(id, c.clone());
            }
        }
        Edit::RemoveComponent(p, i) => {
            if let Some(id) = pick(*p) {
                let keys: Vec<String> = doc.entities[&id]
                    .components
                    .iter()
                    .map(|c| c.key())
                    .collect();
                if !keys.is_empty() {
                    let _ = doc.remove_component(id, &keys[i % keys.len()]);
                }
            }
        }
        Edit::Rename(p, n) => {
            if let Some(id) = pick(*p) {
                let _ = doc.rename(id, n.clone());
            }
        }
        Edit::SetTransform(p, t) => {
            if let Some(id) = pick(*p) {
                let _ = doc.set_transform(id, *t);
            }
        }
    }
}

/// A starting scene: a forest from the shared generator, with a camera so the scene-wide
/// rules have something to count.
fn start() -> BoxedStrategy<SceneDoc> {
    common::valid_doc()
        .prop_map(|mut doc| {
            if let Ok(id) = doc.add_entity("Camera", None) {
                let _ = doc.add_component(id, ComponentData::Camera2d);
            }
            doc
        })
        .boxed()
}

const NAME: &str = "levels/one.forge.ron";

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn an_incremental_check_gives_what_a_whole_check_gives(
        mut doc in start(),
        steps in proptest::collection::vec(step(), 1..25),
    ) {
        let mut text = doc.to_canonical_string();
        let source = Source::read(NAME, text.as_bytes()).unwrap();
        let (_, mut last): (Checked, Option<LastCheck>) = pipeline::check_keeping(source, &mut files());
        for (n, step) in steps.iter().enumerate() {
            let next = apply(&mut doc, &text, step);
            let Ok(source) = Source::read(NAME, next.as_bytes()) else {
                // A step the text does not read after is not a version to check.
                doc = SceneDoc::from_str(&text).unwrap().doc;
                continue;
            };
            let change = TextChange::between(&text, &next).unwrap();
            let whole = pipeline::check(source.clone(), &mut files());
            let (again, kept) = match last.take() {
                Some(last) => pipeline::check_again(source, &mut files(), last, change),
                None => pipeline::check_keeping(source, &mut files()),
            };
            assert_same(&again, &whole, &format!("step {n}: {step:?}"));
            last = kept;
            text = next;
            doc = SceneDoc::from_str(&text).unwrap().doc;
        }
    }
}

/// Whether `checked` says a reference of entity `from` names nothing.
fn names_nothing(checked: &Checked, from: u64) -> bool {
    checked
        .diagnostics
        .iter()
        .any(|d| d.code == "forge::custom::reference" && d.entity == Some(from))
}

/// An edit of one entity's value in a large scene checks that entity again, not the rest:
/// the result is the whole check's, and a reference into an entity that went is found.
#[test]
fn a_removed_entity_is_found_missing_by_a_kept_reference() {
    let mut doc = SceneDoc::new("Refs");
    let a = doc.add_entity("A", None).unwrap();
    let b = doc.add_entity("B", None).unwrap();
    doc.add_component(a, custom("game::Link", "to", &format!("#{b}")))
        .unwrap();
    let text = doc.to_canonical_string();
    let (first, last) =
        pipeline::check_keeping(Source::read(NAME, text.as_bytes()).unwrap(), &mut files());
    assert!(!first.has_errors(), "{:?}", first.diagnostics);
    doc.delete_subtree(b).unwrap();
    let next = doc.to_canonical_string();
    let change = TextChange::between(&text, &next).unwrap();
    let (again, _) = pipeline::check_again(
        Source::read(NAME, next.as_bytes()).unwrap(),
        &mut files(),
        last.unwrap(),
        change,
    );
    let whole = pipeline::check(Source::read(NAME, next.as_bytes()).unwrap(), &mut files());
    assert_same(&again, &whole, "deleting the referenced entity");
    assert!(names_nothing(&again, a), "{:?}", again.diagnostics);
}

/// Every cell of a small layer taken through every key (empty, a one-entity prefab, a prefab
/// of four that places another), one paint at a time, with a reference into one cell: after
/// each paint the check from the last one's memory is the whole check, and the reference
/// names nothing exactly while its cell is empty.
#[test]
fn painting_cells_one_at_a_time_gives_the_whole_check() {
    let mut doc = SceneDoc::new("Paint");
    let a = doc.add_entity("A", None).unwrap();
    let id = doc.next_id;
    doc.next_id += 1;
    let mut layer = TileLayer::new(id, "Ground");
    layer.palette = vec![
        ('t', "prefabs/tile.forge.ron".into()),
        ('p', "prefabs/post.forge.ron".into()),
    ];
    layer.rows = vec!["tp.".to_owned(), ".pt".to_owned()];
    doc.layers.push(layer);
    // Cell (1, 1) is the top row's second character; entity 1 of its prefab.
    doc.add_component(a, custom("game::Link", "to", &format!("#{id}/1/1/1")))
        .unwrap();
    let mut text = doc.to_canonical_string();
    let (_, mut last) =
        pipeline::check_keeping(Source::read(NAME, text.as_bytes()).unwrap(), &mut files());
    for round in 0..3 {
        for (row, column) in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)] {
            let cells = &mut doc.layers[0].rows[row];
            let now = match &cells[column..=column] {
                "." => "t",
                "t" => "p",
                _ => ".",
            };
            cells.replace_range(column..=column, now);
            let next = doc.to_canonical_string();
            let change = TextChange::between(&text, &next).unwrap();
            let source = Source::read(NAME, next.as_bytes()).unwrap();
            let whole = pipeline::check(source.clone(), &mut files());
            let (again, kept) =
                pipeline::check_again(source, &mut files(), last.take().unwrap(), change);
            let what = format!("round {round}, cell ({row}, {column}) to `{now}`");
            assert_same(&again, &whole, &what);
            let empty = doc.layers[0].rows[0].as_bytes()[1] == b'.';
            assert_eq!(
                names_nothing(&again, a),
                empty,
                "{what}: {:?}",
                again.diagnostics
            );
            last = kept;
            text = next;
        }
    }
}

/// One named edit of a document.
type Edit<'a> = dyn Fn(&mut SceneDoc) + 'a;

/// A reference written by an edit checked in part is still found naming nothing when a later
/// edit deletes the entity it names (what may refer is kept from check to check).
#[test]
fn a_reference_added_in_part_is_found_missing_when_its_entity_goes() {
    let mut doc = SceneDoc::new("Refs");
    let a = doc.add_entity("A", None).unwrap();
    let b = doc.add_entity("B", None).unwrap();
    let mut text = doc.to_canonical_string();
    let (_, mut last) =
        pipeline::check_keeping(Source::read(NAME, text.as_bytes()).unwrap(), &mut files());
    let steps: [(&str, &Edit<'_>); 2] = [
        ("a reference from A to B", &|d: &mut SceneDoc| {
            d.add_component(a, custom("game::Link", "to", &format!("#{b}")))
                .unwrap()
        }),
        ("deleting B", &|d: &mut SceneDoc| {
            d.delete_subtree(b).unwrap();
        }),
    ];
    let mut again = None;
    for (what, step) in steps {
        step(&mut doc);
        let next = doc.to_canonical_string();
        let change = TextChange::between(&text, &next).unwrap();
        let source = Source::read(NAME, next.as_bytes()).unwrap();
        let whole = pipeline::check(source.clone(), &mut files());
        let (checked, kept) =
            pipeline::check_again(source, &mut files(), last.take().unwrap(), change);
        assert_same(&checked, &whole, what);
        last = kept;
        text = next;
        again = Some(checked);
    }
    let again = again.unwrap();
    assert!(names_nothing(&again, a), "{:?}", again.diagnostics);
}
