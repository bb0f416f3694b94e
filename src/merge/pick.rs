//! The three-way rule every value of a merge goes through, and where a conflict is.

use std::fmt::Debug;

use crate::format::EcoString;

/// Which branch's value a merge keeps where both changed one: this branch's (the file git
/// asks to be written, `%A`) or the other's (`%B`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// This branch: the file being merged into (`%A`, "ours").
    Ours,
    /// The branch merged in (`%B`, "theirs").
    Theirs,
}

/// Where a conflict is: the smallest value of the document that holds both branches' changes.
/// The text places the marker after it, or after the value that holds it where the file does
/// not write it on its own (`parent` of the place).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Place {
    /// The scene's `name`.
    Name,
    /// `roots` (their order).
    Roots,
    /// The `layers` list (a layer deleted on one side and changed on the other).
    Layers,
    /// An entity's whole entry value.
    Entity(u64),
    /// An entity field (`name`, `parent`, `children`, `locked`, `instance`, `components`,
    /// `transform.translation`, ..).
    Field(u64, &'static str),
    /// A component, by key.
    Component(u64, EcoString),
    /// A payload field of a built-in component (`intensity`, `material.metallic`).
    Payload(u64, EcoString, &'static str),
    /// The `expr` of a custom component's field, by name.
    Expr(u64, EcoString, EcoString),
    /// The `value` of a custom (enum) component.
    Value(u64, EcoString),
    /// A tile layer's entry.
    Layer(u64),
    /// One cell of a tile layer.
    Cell(u64, u64, u64),
    /// An entity (with its subtree) this branch kept and changed, which the other deleted.
    Removed(u64),
    /// Entities this branch deleted, which the other changed: the subtree from this one.
    Kept(u64),
}

impl Place {
    /// The value that holds this one, for a file that does not write this one on its own.
    pub(crate) fn parent(&self) -> Option<Place> {
        Some(match self {
            Place::Name | Place::Roots | Place::Layers | Place::Removed(_) | Place::Kept(_) => {
                return None;
            }
            Place::Entity(_) => return None,
            Place::Field(id, f) => match f.strip_prefix("transform.") {
                Some(_) => Place::Field(*id, "transform"),
                None => Place::Entity(*id),
            },
            Place::Component(id, _) => Place::Field(*id, "components"),
            Place::Payload(id, key, _) | Place::Expr(id, key, _) | Place::Value(id, key) => {
                Place::Component(*id, key.clone())
            }
            Place::Layer(_) => Place::Layers,
            Place::Cell(layer, _, _) => Place::Layer(*layer),
        })
    }
}

/// A conflict found while merging: where, and in words.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Clash {
    pub(crate) place: Place,
    pub(crate) what: String,
}

/// Whether two values are the same as written (a NaN is not equal to itself, but writes the
/// same).
pub(crate) fn same<T: PartialEq + Debug>(a: Option<&T>, b: Option<&T>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b || format!("{a:?}") == format!("{b:?}"),
        (None, None) => true,
        _ => false,
    }
}

/// The three-way rule over one value: a change on one side only is taken, the same change on
/// both is taken once, different changes are a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Choice {
    Ours,
    Theirs,
    Clash,
}

/// Which side's value the three-way rule takes (`None` is a value: absent).
pub(crate) fn choose<T: PartialEq + Debug>(b: Option<&T>, o: Option<&T>, t: Option<&T>) -> Choice {
    if same(o, t) || same(t, b) {
        Choice::Ours
    } else if same(o, b) {
        Choice::Theirs
    } else {
        Choice::Clash
    }
}

/// The rule applied through a merge: which side a conflict keeps, and the conflicts found.
#[derive(Debug)]
pub(crate) struct Picker {
    pub(crate) side: Side,
    pub(crate) clashes: Vec<Clash>,
}

impl Picker {
    pub(crate) fn new(side: Side) -> Self {
        Self {
            side,
            clashes: Vec::new(),
        }
    }

    /// The side a conflict keeps, of `o` and `t`.
    pub(crate) fn kept<'a, T: ?Sized>(&self, o: &'a T, t: &'a T) -> &'a T {
        match self.side {
            Side::Ours => o,
            Side::Theirs => t,
        }
    }

    /// Records a conflict at `place`, described by `what`.
    pub(crate) fn clash(&mut self, place: Place, what: String) {
        self.clashes.push(Clash { place, what });
    }

    /// The merged value of `b`, `o` and `t` (`None` when absent); a conflict is recorded at
    /// what `at` gives.
    pub(crate) fn pick<T: Clone + PartialEq + Debug>(
        &mut self,
        b: Option<&T>,
        o: Option<&T>,
        t: Option<&T>,
        at: impl FnOnce() -> (Place, String),
    ) -> Option<T> {
        match choose(b, o, t) {
            Choice::Ours => o.cloned(),
            Choice::Theirs => t.cloned(),
            Choice::Clash => {
                let (place, what) = at();
                self.clash(place, what);
                self.kept(&o, &t).cloned()
            }
        }
    }

    /// [`pick`](Self::pick) of a value every side has.
    pub(crate) fn pick_value<T: Clone + PartialEq + Debug>(
        &mut self,
        b: Option<&T>,
        o: &T,
        t: &T,
        at: impl FnOnce() -> (Place, String),
    ) -> T {
        self.pick(b, Some(o), Some(t), at)
            .unwrap_or_else(|| o.clone())
    }
}

/// The keys of two keyed lists in merged order: the keys of both, each where its branch put
/// it: after the last key both lists have that it follows (at the start when none). Where both
/// branches put keys after one key, the two runs are ordered by `rank` of their first keys, so
/// the order does not depend on which branch is this one. Linear in the lengths.
pub(crate) fn merged_order<K, R>(ours: &[K], theirs: &[K], rank: impl Fn(&K) -> R) -> Vec<K>
where
    K: Clone + Eq + std::hash::Hash,
    R: Ord,
{
    use bevy_platform::collections::{HashMap, HashSet};
    let kept: HashSet<&K> = ours.iter().collect();
    let common: HashSet<&K> = theirs.iter().filter(|k| kept.contains(k)).collect();
    // The other branch's keys after each key both have (`None`: at the start).
    let mut after: HashMap<Option<&K>, Vec<&K>> = HashMap::default();
    let mut anchor = None;
    for k in theirs {
        if common.contains(k) {
            anchor = Some(k);
        } else {
            after.entry(anchor).or_default().push(k);
        }
    }
    if after.is_empty() {
        return ours.to_vec();
    }
    let mut out: Vec<K> = Vec::with_capacity(ours.len() + theirs.len());
    let mut i = 0;
    let mut anchor: Option<&K> = None;
    loop {
        let start = i;
        while i < ours.len() && !common.contains(&ours[i]) {
            i += 1;
        }
        let mine = &ours[start..i];
        let other = after.remove(&anchor).unwrap_or_default();
        let other_first = match (mine.first(), other.first()) {
            (Some(a), Some(b)) => rank(b) < rank(a),
            _ => false,
        };
        if other_first {
            out.extend(other.into_iter().cloned());
            out.extend(mine.iter().cloned());
        } else {
            out.extend(mine.iter().cloned());
            out.extend(other.into_iter().cloned());
        }
        if i == ours.len() {
            break;
        }
        out.push(ours[i].clone());
        anchor = Some(&ours[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sided_changes_are_taken_and_two_sided_ones_clash() {
        let (b, o, t) = (Some(&1), Some(&1), Some(&2));
        assert_eq!(choose(b, o, t), Choice::Theirs);
        assert_eq!(choose(b, t, o), Choice::Ours);
        assert_eq!(choose(b, t, t), Choice::Ours);
        assert_eq!(choose(b, Some(&3), t), Choice::Clash);
        assert_eq!(choose(None, Some(&3), None), Choice::Ours);
        assert_eq!(choose(b, None, o), Choice::Ours);
        assert_eq!(choose(b, o, None), Choice::Theirs);
        assert_eq!(choose(b, Some(&3), None), Choice::Clash);
        let nan = f32::NAN;
        assert_eq!(choose(Some(&nan), Some(&nan), Some(&1.0)), Choice::Theirs);
    }

    #[test]
    fn keys_only_theirs_has_follow_their_neighbour() {
        let id = |k: &u8| *k;
        assert_eq!(merged_order(&[1, 2, 3], &[1, 4, 2, 5], id), [1, 4, 2, 3, 5]);
        assert_eq!(merged_order(&[1], &[0, 1], id), [0, 1]);
        assert_eq!(merged_order(&[], &[7, 8], id), [7, 8]);
        // Runs after one key, ordered by rank whichever branch is this one.
        assert_eq!(merged_order(&[1, 9], &[1, 6], id), [1, 6, 9]);
        assert_eq!(merged_order(&[1, 6], &[1, 9], id), [1, 6, 9]);
    }
}
