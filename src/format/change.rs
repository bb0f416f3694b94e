//! The one edit that turns a version of a text into the next ([`TextChange`]): what a check of
//! the next version needs to know to reuse what it found in the last one.

/// The edit between two versions of a scene's text: bytes `start..old_end` of the old text
/// were replaced by `new_len` bytes (the rest is the same in both), in offsets after a
/// byte-order mark, as the reader counts them.
///
/// ```
/// use bevy_forge_scene::format::TextChange;
/// let change = TextChange::between("name: \"A\"", "name: \"Bee\"").unwrap();
/// assert_eq!((change.start, change.old_end, change.new_len), (7, 8, 3));
/// // Offsets before the change stay; offsets after it move by what it added.
/// assert_eq!(change.moved(2), Some(2));
/// assert_eq!(change.moved(8), Some(10));
/// assert_eq!(change.moved(7), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextChange {
    /// The first byte that differs.
    pub start: usize,
    /// Where the replaced bytes end in the old text.
    pub old_end: usize,
    /// How many bytes replaced them.
    pub new_len: usize,
}

impl TextChange {
    /// No change at all.
    pub const NONE: TextChange = TextChange {
        start: 0,
        old_end: 0,
        new_len: 0,
    };

    /// The smallest single edit that makes `new` of `old` (the common start and end of both
    /// left out), on character boundaries. `None` when either starts with a byte-order mark:
    /// offsets are counted after it, and a mark that comes or goes moves them all.
    pub fn between(old: &str, new: &str) -> Option<TextChange> {
        const BOM: char = '\u{feff}';
        if old.starts_with(BOM) || new.starts_with(BOM) {
            return None;
        }
        let (a, b) = (old.as_bytes(), new.as_bytes());
        let mut start = common_prefix(a, b);
        while !old.is_char_boundary(start) {
            start -= 1;
        }
        let most = a.len().min(b.len()) - start;
        let mut tail = common_suffix(&a[a.len() - most..], &b[b.len() - most..]);
        while !old.is_char_boundary(a.len() - tail) || !new.is_char_boundary(b.len() - tail) {
            tail -= 1;
        }
        Some(TextChange {
            start,
            old_end: a.len() - tail,
            new_len: b.len() - tail - start,
        })
    }

    /// Whether the two versions are the same text.
    pub fn is_none(&self) -> bool {
        self.old_end == self.start && self.new_len == 0
    }

    /// Where the replacement ends in the new text.
    pub fn new_end(&self) -> usize {
        self.start + self.new_len
    }

    /// How many bytes longer the new text is (negative when shorter).
    pub fn delta(&self) -> i64 {
        self.new_len as i64 - (self.old_end - self.start) as i64
    }

    /// Where byte `offset` of the old text is in the new one: the same before the change,
    /// moved by [`delta`](Self::delta) from its end on; `None` inside the bytes it replaced.
    pub fn moved(&self, offset: usize) -> Option<usize> {
        if offset < self.start {
            Some(offset)
        } else if offset >= self.old_end && (offset > self.start || self.old_end == self.start) {
            usize::try_from(offset as i64 + self.delta()).ok()
        } else {
            None
        }
    }

    /// Whether the bytes `start..=end` of the new text touch the change: they hold some of the
    /// new bytes, or the change is right beside them (an entry the edit begins or ends at is
    /// counted as changed, to be safe).
    pub fn touches_new(&self, start: usize, end: usize) -> bool {
        start <= self.new_end() && self.start <= end
    }

    /// The edit that makes the old text of `self` into the new text of `next`, where `next`
    /// edits the new text of `self`: one edit covering both.
    pub fn then(&self, next: &TextChange) -> TextChange {
        if self.is_none() {
            return *next;
        }
        if next.is_none() {
            return *self;
        }
        // Both in the coordinates of the text between them (self's new text).
        let start = self.start.min(next.start);
        let mid_end = self.new_end().max(next.old_end);
        // The end of that stretch in the old text, and in the final text.
        let old_end = (mid_end as i64 - self.delta()) as usize;
        let final_end = (mid_end as i64 + next.delta()) as usize;
        TextChange {
            start,
            old_end,
            new_len: final_end - start,
        }
    }
}

/// How many bytes `a` and `b` start with in common (compared a block at a time: a scene's
/// text is megabytes).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    // Large blocks first (one `memcmp` each), then the bytes of the first block that differs.
    const BLOCK: usize = 4096;
    let blocks = a
        .chunks_exact(BLOCK)
        .zip(b.chunks_exact(BLOCK))
        .take_while(|(x, y)| x == y)
        .count();
    let at = blocks * BLOCK;
    at + a[at..]
        .iter()
        .zip(&b[at..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b` end with in common.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    // As `common_prefix`, from the ends.
    const BLOCK: usize = 4096;
    let blocks = a
        .rchunks_exact(BLOCK)
        .zip(b.rchunks_exact(BLOCK))
        .take_while(|(x, y)| x == y)
        .count();
    let at = blocks * BLOCK;
    at + a[..a.len() - at]
        .iter()
        .rev()
        .zip(b[..b.len() - at].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::TextChange;

    fn change(start: usize, old_end: usize, new_len: usize) -> TextChange {
        TextChange {
            start,
            old_end,
            new_len,
        }
    }

    #[test]
    fn the_change_between_two_texts_is_on_character_boundaries() {
        assert_eq!(TextChange::between("abc", "abc"), Some(change(3, 3, 0)));
        assert_eq!(TextChange::between("abc", "axc"), Some(change(1, 2, 1)));
        assert_eq!(TextChange::between("abc", "abbc"), Some(change(2, 2, 1)));
        // é (c3 a9) and è (c3 a8) share a first byte: the edit starts before it.
        assert_eq!(TextChange::between("xéy", "xèy"), Some(change(1, 3, 2)));
        assert_eq!(TextChange::between("\u{feff}a", "a"), None);
        // Past a block of 64 bytes on either side.
        let long = "x".repeat(200);
        let (old, new) = (format!("{long}a{long}"), format!("{long}bc{long}"));
        assert_eq!(TextChange::between(&old, &new), Some(change(200, 201, 2)));
        assert_eq!(
            TextChange::between(&long, &format!("{long}y")),
            Some(change(200, 200, 1))
        );
        assert_eq!(
            TextChange::between(&format!("{long}y"), &long),
            Some(change(200, 201, 0))
        );
    }

    /// Two edits in a row cover what each changed: applying the covering edit to the first
    /// text gives the last.
    #[test]
    fn two_changes_in_a_row_are_one_covering_both() {
        let apply = |text: &str, c: &TextChange, with: &str| {
            format!("{}{with}{}", &text[..c.start], &text[c.old_end..])
        };
        let texts = ["abcdefghij", "abXYdefghij", "abXYdefZZZj", "Qj", "Q", ""];
        for w in texts.windows(3) {
            let first = TextChange::between(w[0], w[1]).unwrap();
            let second = TextChange::between(w[1], w[2]).unwrap();
            let both = first.then(&second);
            let replaced = &w[2][both.start..both.new_end()];
            assert_eq!(apply(w[0], &both, replaced), w[2], "{w:?}");
            // Outside the covering edit, both texts agree.
            assert_eq!(&w[0][..both.start], &w[2][..both.start]);
            assert_eq!(&w[0][both.old_end..], &w[2][both.new_end()..]);
        }
    }

    #[test]
    fn offsets_move_around_the_change() {
        let c = change(4, 6, 5);
        assert_eq!(c.moved(3), Some(3));
        assert_eq!(c.moved(4), None);
        assert_eq!(c.moved(5), None);
        assert_eq!(c.moved(6), Some(9));
        // An insertion: what starts where it is inserted moves after it.
        let insert = change(4, 4, 2);
        assert_eq!(insert.moved(4), Some(6));
        assert_eq!(insert.moved(3), Some(3));
    }

    proptest::proptest! {
        /// Whatever the two texts share at either end (more than a block of it, or less), the
        /// change rebuilds the new text from the old one and covers no more than what differs.
        #[test]
        fn the_change_rebuilds_the_new_text_and_no_more(
            head in "[a-z\\n]{0,9000}",
            was in "\\PC{0,40}",
            now in "\\PC{0,40}",
            tail in "[a-z\\n]{0,9000}",
        ) {
            let old = format!("{head}{was}{tail}");
            let new = format!("{head}{now}{tail}");
            let c = TextChange::between(&old, &new).unwrap();
            let rebuilt = format!("{}{}{}", &old[..c.start], &new[c.start..c.new_end()], &old[c.old_end..]);
            proptest::prop_assert_eq!(rebuilt, new);
            proptest::prop_assert!(c.old_end - c.start <= was.len());
            proptest::prop_assert!(c.new_len <= now.len());
        }
    }
}
