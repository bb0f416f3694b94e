//! The forest rules: `check_integrity` finds every broken rule and terminates on any forest.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_forge_scene::format::*;
use common::*;
use proptest::prelude::*;

fn problems(rel: &str) -> (Vec<IntegrityProblem>, ParsedScene) {
    let parsed = SceneDoc::from_str(&fixture_text(rel)).expect("fixture reads");
    (parsed.doc.check_integrity(), parsed)
}

fn line_of(parsed: &ParsedScene, p: &IntegrityProblem) -> Option<u32> {
    let id = p.entity()?;
    parsed
        .source_map
        .entity_field(id, p.field())
        .map(|pos| pos.line)
}

#[test]
fn valid_fixtures_have_no_problems() {
    for rel in [
        "valid/garden.forge.ron",
        "valid/platformer.forge.ron",
        "warnings/warnings-and-info.forge.ron",
        "invalid/bad-values.forge.ron",
    ] {
        assert_eq!(problems(rel).0, vec![], "{rel}");
    }
}

#[test]
fn id_mismatch_fixture() {
    let (found, parsed) = problems("invalid/id-mismatch.forge.ron");
    assert_eq!(
        found,
        vec![IntegrityProblem::KeyIdMismatch { key: 1, id: 2 }]
    );
    assert_eq!(line_of(&parsed, &found[0]), Some(5));
    assert_eq!(
        found[0].to_string(),
        "entity key 1 holds `id: 2`; the id must equal the key"
    );
}

#[test]
fn parent_children_disagree_fixture() {
    let (found, parsed) = problems("invalid/parent-children-disagree.forge.ron");
    assert!(
        found.contains(&IntegrityProblem::NotListedByParent { id: 2, parent: 1 }),
        "{found:?}"
    );
    let p = &found[0];
    assert_eq!(p, &IntegrityProblem::NotListedByParent { id: 2, parent: 1 });
    assert_eq!(line_of(&parsed, p), Some(6));
}

#[test]
fn dangling_child_fixture() {
    let (found, parsed) = problems("invalid/dangling-child.forge.ron");
    assert_eq!(
        found,
        vec![IntegrityProblem::MissingChild { id: 1, child: 9 }]
    );
    assert_eq!(line_of(&parsed, &found[0]), Some(5));
}

fn doc_with(entries: &[(u64, Option<u64>, &[u64])], roots: &[u64], next_id: u64) -> SceneDoc {
    let mut doc = SceneDoc::new("t");
    for (id, parent, children) in entries {
        let mut node = EntityNode::new(*id, format!("e{id}"));
        node.parent = *parent;
        node.children = children.to_vec();
        doc.entities.insert(*id, node.into());
    }
    doc.roots = roots.to_vec();
    doc.next_id = next_id;
    doc
}

#[test]
fn finds_every_kind_of_problem() {
    use IntegrityProblem::*;
    let cases: Vec<(SceneDoc, IntegrityProblem)> = vec![
        (
            doc_with(&[(1, Some(5), &[])], &[], 6),
            MissingParent { id: 1, parent: 5 },
        ),
        (
            doc_with(&[(1, None, &[])], &[1, 3], 4),
            MissingRoot { id: 3 },
        ),
        (
            doc_with(&[(1, None, &[2]), (2, None, &[])], &[1, 2], 3),
            ChildDisagrees {
                id: 1,
                child: 2,
                child_parent: None,
            },
        ),
        (
            doc_with(&[(1, None, &[2]), (2, Some(1), &[])], &[1, 2], 3),
            RootHasParent { id: 2, parent: 1 },
        ),
        (
            doc_with(&[(1, None, &[2]), (2, Some(1), &[])], &[1, 2], 3),
            DuplicateReference { id: 2, count: 2 },
        ),
        (doc_with(&[(1, None, &[])], &[], 2), Unplaced { id: 1 }),
        (
            doc_with(&[(1, Some(1), &[1])], &[], 2),
            SelfParent { id: 1 },
        ),
        (
            doc_with(&[(1, None, &[])], &[1], 1),
            NextIdTooLow {
                next_id: 1,
                max_id: 1,
            },
        ),
        (
            doc_with(
                &[(1, Some(3), &[2]), (2, Some(1), &[3]), (3, Some(2), &[1])],
                &[],
                4,
            ),
            Cycle { ids: vec![1, 3, 2] },
        ),
    ];
    for (doc, expected) in cases {
        let found = doc.check_integrity();
        assert!(
            found.contains(&expected),
            "expected {expected:?} in {found:?}"
        );
    }
}

#[test]
fn a_cycle_is_reported_once_and_terminates() {
    let doc = doc_with(
        &[(1, Some(2), &[2]), (2, Some(1), &[1]), (3, None, &[])],
        &[3],
        4,
    );
    let cycles: Vec<_> = doc
        .check_integrity()
        .into_iter()
        .filter(|p| matches!(p, IntegrityProblem::Cycle { .. }))
        .collect();
    assert_eq!(cycles, vec![IntegrityProblem::Cycle { ids: vec![1, 2] }]);
    assert_eq!(doc.depth_first(), vec![3]);
    assert_eq!(doc.subtree(1), vec![1, 2]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn terminates_on_arbitrary_forests(doc in any_doc()) {
        let found = doc.check_integrity();
        for p in &found {
            prop_assert!(!p.to_string().is_empty());
        }
        prop_assert!(doc.depth_first().len() <= doc.entities.len());
    }

    #[test]
    fn forests_built_by_edits_are_valid(doc in valid_doc()) {
        prop_assert_eq!(doc.check_integrity(), vec![]);
        prop_assert_eq!(doc.depth_first().len(), doc.entities.len());
    }
}
