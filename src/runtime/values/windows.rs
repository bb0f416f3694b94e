//! Values prepared entity by entity, read through windows on shared parts, so the next version
//! of a scene keeps the values of the entities it did not change without copying them.

use std::sync::Arc;

use crate::pipeline::rules::Run;

/// The values of a scene's entities, in `doc.entities` order: entities `firsts[w]..` are those
/// of part `parts[w].0` from its entity `parts[w].1`. A load makes one window per part; a new
/// version keeps the windows of the entities it did not prepare again and adds a part of those
/// it did ([`reuse`](Self::reuse)). Cloning shares the parts.
#[derive(Debug)]
pub(crate) struct Windows<P> {
    parts: Vec<(Arc<P>, usize)>,
    /// The index of each window's first entity, ascending.
    firsts: Vec<usize>,
}

impl<P> Clone for Windows<P> {
    fn clone(&self) -> Self {
        Self {
            parts: self.parts.clone(),
            firsts: self.firsts.clone(),
        }
    }
}

impl<P> Default for Windows<P> {
    fn default() -> Self {
        Self {
            parts: Vec::new(),
            firsts: Vec::new(),
        }
    }
}

impl<P: Default> Windows<P> {
    /// Parts of consecutive entities, each with how many entities it has, in order.
    pub(crate) fn of(parts: impl IntoIterator<Item = (P, usize)>) -> Self {
        let mut out = Self::default();
        let mut first = 0;
        for (part, len) in parts {
            out.parts.push((Arc::new(part), 0));
            out.firsts.push(first);
            first += len;
        }
        out
    }

    /// The part holding entity `index`, and the entity's index in it; `None` before the first
    /// window (a lookup past a part's entities is the part's to answer).
    pub(crate) fn at(&self, index: usize) -> Option<(&P, usize)> {
        let w = self
            .firsts
            .partition_point(|first| *first <= index)
            .checked_sub(1)?;
        let (part, from) = self.parts.get(w)?;
        Some((part, from + index - self.firsts[w]))
    }

    /// Every part a window reads (a part read by two windows twice).
    pub(crate) fn parts(&self) -> impl Iterator<Item = &P> {
        self.parts.iter().map(|(p, _)| &**p)
    }

    /// How many windows the values are read through.
    pub(crate) fn windows(&self) -> usize {
        self.parts.len()
    }

    /// Adds a window from entity `first` on: `part` from its entity `from` (the last window
    /// grows instead when it continues it).
    fn push(&mut self, first: usize, part: &Arc<P>, from: usize) {
        if let (Some((last, last_from)), Some(&at)) = (self.parts.last(), self.firsts.last())
            && Arc::ptr_eq(last, part)
            && last_from + (first - at) == from
        {
            return;
        }
        self.parts.push((part.clone(), from));
        self.firsts.push(first);
    }

    /// The values of a new version's entities: `runs` of them kept from `kept` (by their index
    /// there) or taken from `fresh` (prepared now), in order.
    pub(crate) fn reuse(kept: &Self, fresh: P, runs: &[Run]) -> Self {
        let fresh = Arc::new(fresh);
        let none = Arc::new(P::default());
        let mut out = Self::default();
        let mut first = 0;
        for run in runs {
            match *run {
                Run::Fresh { from, len } => {
                    out.push(first, &fresh, from);
                    first += len;
                }
                Run::Kept { from, len } => {
                    let end = from + len;
                    let mut at = from;
                    while at < end {
                        let w = kept.firsts.partition_point(|f| *f <= at);
                        let (part, start, next) = match w.checked_sub(1) {
                            Some(w) => (
                                &kept.parts[w].0,
                                kept.parts[w].1 + (at - kept.firsts[w]),
                                kept.firsts.get(w + 1).copied().unwrap_or(usize::MAX),
                            ),
                            // Before the first window: no values.
                            None => (&none, 0, kept.firsts.first().copied().unwrap_or(usize::MAX)),
                        };
                        let take = (end - at).min(next - at);
                        out.push(first, part, start);
                        first += take;
                        at += take;
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A part whose entity `i` holds the value `base + i`.
    #[derive(Default, Debug)]
    struct Numbers(Vec<u32>);

    fn value(w: &Windows<Numbers>, index: usize) -> Option<u32> {
        let (part, i) = w.at(index)?;
        part.0.get(i).copied()
    }

    #[test]
    fn kept_and_fresh_values_read_where_the_runs_put_them() {
        let kept = Windows::of([
            (Numbers((0..4).collect()), 4),
            (Numbers((4..10).collect()), 6),
        ]);
        assert_eq!(
            (0..10).map(|i| value(&kept, i)).collect::<Vec<_>>(),
            (0..10).map(Some).collect::<Vec<_>>()
        );
        // Entity 5 prepared again (as 50), one new entity (51) after entity 8, entity 2 gone.
        let runs = Run::runs([
            Ok(0),
            Ok(1),
            Ok(3),
            Ok(4),
            Err(0),
            Ok(6),
            Ok(7),
            Ok(8),
            Err(1),
            Ok(9),
        ]);
        let next = Windows::reuse(&kept, Numbers(vec![50, 51]), &runs);
        let read: Vec<_> = (0..10).map(|i| value(&next, i).unwrap()).collect();
        assert_eq!(read, [0, 1, 3, 4, 50, 6, 7, 8, 51, 9]);
        // Kept windows continue each other where they can.
        assert_eq!(
            next.windows(),
            7,
            "A 0-1, A 3, B 0, fresh 0, B 2-4, fresh 1, B 5"
        );
        // And again on top of that.
        let runs = Run::runs((0..10).map(|i| if i == 0 { Err(0) } else { Ok(i) }));
        let again = Windows::reuse(&next, Numbers(vec![99]), &runs);
        let read: Vec<_> = (0..10).map(|i| value(&again, i).unwrap()).collect();
        assert_eq!(read, [99, 1, 3, 4, 50, 6, 7, 8, 51, 9]);
    }

    #[test]
    fn entities_before_any_window_have_no_values() {
        let kept: Windows<Numbers> = Windows::default();
        let next = Windows::reuse(&kept, Numbers(vec![7]), &Run::runs([Ok(0), Err(0)]));
        assert_eq!(value(&next, 0), None);
        assert_eq!(value(&next, 1), Some(7));
    }
}
