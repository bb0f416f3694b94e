//! The forest rules ([`SceneDoc::check_integrity`]) as diagnostics, the scene's name, and
//! duplicate names.

use bevy_platform::collections::HashMap;

use super::{Collector, Diagnostic, Loc, Severity};
use crate::codes;
use crate::format::{IntegrityProblem, OverridePart, SceneDoc};

/// The forest rules, through [`SceneDoc::check_integrity`].
pub(super) fn structure(c: &mut Collector, doc: &SceneDoc) {
    let problems = doc.check_integrity();
    // An entity whose parent is missing is in no place as a consequence: one problem, one
    // diagnostic (the missing parent, at its `parent`).
    let orphans: Vec<u64> = problems
        .iter()
        .filter_map(|p| match p {
            IntegrityProblem::MissingParent { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    for problem in problems {
        if let IntegrityProblem::Unplaced { id } = &problem
            && orphans.contains(id)
        {
            continue;
        }
        let (code, help) = match &problem {
            IntegrityProblem::KeyIdMismatch { key, id } => (
                codes::structure::ID_MISMATCH,
                format!("set `id: {key}`, or move the entry under the key `{id}`"),
            ),
            IntegrityProblem::MissingParent { parent, .. } => (
                codes::structure::MISSING_PARENT,
                match doc.layers.iter().find(|l| l.id == *parent) {
                    // A layer's id names no entity of `entities`: a layer holds its cells only.
                    Some(layer) => format!(
                        "{parent} is tile layer `{}`, which holds only its cells: place the entity under the layer's parent, or an entity",
                        layer.name
                    ),
                    None => format!(
                        "create entity {parent}, or set `parent: None` and list the entity in `roots`"
                    ),
                },
            ),
            IntegrityProblem::MissingChild { child, .. } => (
                codes::structure::MISSING_CHILD,
                format!("remove {child} from `children`"),
            ),
            IntegrityProblem::MissingRoot { id } => (
                codes::structure::MISSING_ROOT,
                format!("remove {id} from `roots`"),
            ),
            IntegrityProblem::NotListedByParent { id, parent } => (
                codes::structure::NOT_LISTED_BY_PARENT,
                format!("add {id} to the `children` of entity {parent}, or change `parent`"),
            ),
            IntegrityProblem::ChildDisagrees { id, child, .. } => (
                codes::structure::CHILD_DISAGREES,
                format!(
                    "set `parent: Some({id})` on entity {child}, or remove {child} from `children`"
                ),
            ),
            IntegrityProblem::RootHasParent { .. } => (
                codes::structure::ROOT_HAS_PARENT,
                "set `parent: None`, or remove the entity from `roots`".to_owned(),
            ),
            IntegrityProblem::DuplicateReference { .. } => (
                codes::structure::DUPLICATE_REFERENCE,
                "list each entity exactly once: in `roots` or in one parent's `children`"
                    .to_owned(),
            ),
            IntegrityProblem::Unplaced { .. } => (
                codes::structure::UNPLACED,
                "add the entity to `roots` (with `parent: None`) or to its parent's `children`"
                    .to_owned(),
            ),
            IntegrityProblem::SelfParent { .. } => (
                codes::structure::SELF_PARENT,
                "set `parent: None` or another entity".to_owned(),
            ),
            IntegrityProblem::Cycle { .. } => (
                codes::structure::CYCLE,
                "make one entity of the cycle a root (`parent: None`, listed in `roots`)"
                    .to_owned(),
            ),
            IntegrityProblem::NextIdTooLow { max_id, .. } => (
                codes::structure::NEXT_ID,
                match max_id.checked_add(1) {
                    Some(next) => format!("set `next_id: {next}`"),
                    None => "ids must stay below the largest `u64`".to_owned(),
                },
            ),
        };
        let field = problem.field();
        let mut d = Diagnostic::new(Severity::Error, code, problem.to_string())
            .with_path(field)
            .with_help(help);
        let mut loc = match problem.entity() {
            Some(id) => {
                d.entity = Some(id);
                Loc::EntityField(field)
            }
            None => Loc::Top(field),
        };
        // A child an instance's override places is listed in that override, not in `children`.
        if let IntegrityProblem::MissingChild { id, child }
        | IntegrityProblem::ChildDisagrees { id, child, .. } = &problem
            && let Some(i) = placing_override(doc, *id, *child)
        {
            d.path = Some(format!("instance.overrides[{i}].children"));
            d.help = Some(match &problem {
                IntegrityProblem::MissingChild { .. } => {
                    format!("remove {child} from the override's `children`")
                }
                _ => format!(
                    "set `parent: Some({id})` on entity {child} (the instance entity), or remove {child} from the override's `children`"
                ),
            });
            loc = Loc::Override(i, OverridePart::Field("children"));
        }
        c.push(d, loc);
    }
}

/// The override of `id`'s instance that lists `child` in its `children`, when one does and
/// `id`'s own `children` does not.
fn placing_override(doc: &SceneDoc, id: u64, child: u64) -> Option<usize> {
    let node = doc.entities.get(&id)?;
    if node.children.contains(&child) {
        return None;
    }
    node.instance
        .as_deref()?
        .overrides
        .iter()
        .position(|o| o.children.contains(&child))
}

/// Whether a name counts as blank (empty or whitespace only).
pub(super) fn blank(name: &str) -> bool {
    name.chars().all(char::is_whitespace)
}

/// The scene's own name: a blank one is a warning (`forge::scene::empty_name`).
pub(super) fn scene_name(c: &mut Collector, doc: &SceneDoc) {
    if blank(&doc.name) {
        c.push(
            Diagnostic::new(
                Severity::Warning,
                codes::scene::EMPTY_NAME,
                if doc.name.is_empty() {
                    "the scene name is empty".to_owned()
                } else {
                    "the scene name is only whitespace".to_owned()
                },
            )
            .with_path("name")
            .with_help("give the scene a display name; it is independent of the file name"),
            Loc::Top("name"),
        );
    }
}

pub(super) fn duplicate_names(c: &mut Collector, doc: &SceneDoc) {
    // Count first, so only repeated names get a list of ids.
    let mut counts: HashMap<&str, usize> = HashMap::with_capacity(doc.entities.len());
    let mut repeated = false;
    for node in doc.entities.values() {
        if !blank(&node.name) {
            let count = counts.entry(node.name.as_str()).or_default();
            *count += 1;
            repeated |= *count > 1;
        }
    }
    // Most scenes name every entity differently: nothing more to look at.
    if !repeated {
        return;
    }
    let mut by_name: HashMap<&str, Vec<u64>> = HashMap::new();
    for (&id, node) in &doc.entities {
        if counts.get(node.name.as_str()).is_some_and(|n| *n > 1) {
            by_name.entry(node.name.as_str()).or_default().push(id);
        }
    }
    for (&id, node) in &doc.entities {
        let Some(ids) = by_name.get(node.name.as_str()) else {
            continue;
        };
        if ids.len() < 2 {
            continue;
        }
        // Keys are unique, so `id` is in `ids` exactly once; look at no more than four ids.
        let shown: Vec<String> = ids
            .iter()
            .filter(|o| **o != id)
            .take(3)
            .map(u64::to_string)
            .collect();
        let more = ids.len() - 1 - shown.len();
        let list = match (shown.as_slice(), more) {
            ([one], 0) => format!("entity {one}"),
            ([rest @ .., last], 0) => format!("entities {} and {last}", rest.join(", ")),
            (_, more) => format!("entities {} and {more} more", shown.join(", ")),
        };
        c.push(
            Diagnostic::new(
                Severity::Warning,
                codes::name::DUPLICATE,
                format!("entity name `{}` is also used by {list}", node.name),
            )
            .with_entity(id)
            .with_path("name")
            .with_help("give each entity its own name so hierarchy labels and `Name` lookups are unambiguous"),
            Loc::EntityField("name"),
        );
    }
}
