//! Lines and columns of a text: the start of each line in about one byte per line, and the
//! characters wider than one byte, so a byte offset becomes a 1-based line and column.

/// A place in a source text: 1-based line and column, and the byte offset.
///
/// Columns count characters (Unicode scalar values), not bytes, so they match what an editor
/// shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Byte offset from the start of the text (after a byte-order mark, if any).
    pub offset: usize,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// The byte offset of the first byte of each line of a text, in about one byte per line: the
/// start of every [`LineStarts::BLOCK`]th line, and for each other line its distance from the
/// line before (a byte; longer distances in a side table). A canonical file has a line every 20
/// bytes or so, so a plain `Vec<u32>` would take a fifth of the text's size.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LineStarts {
    /// The start of lines `0`, `BLOCK`, `2 * BLOCK`, ...
    blocks: Vec<u32>,
    /// For line `i >= 1` at `steps[i - 1]`: its start minus the start of line `i - 1`, or
    /// [`LineStarts::LONG`] when that is `LONG` or more.
    steps: Vec<u8>,
    /// `(line, step)` of each line whose step is `LONG` or more, in line order.
    long: Vec<(u32, u32)>,
    /// The start of the last line (`0` when there is none).
    last: u32,
}

impl LineStarts {
    /// Lines per absolute offset: a lookup steps over at most `BLOCK - 1` lines.
    const BLOCK: usize = 64;
    /// The step byte of a line whose step is in `long`.
    const LONG: u8 = u8::MAX;

    /// Room for about `lines` lines.
    pub(crate) fn with_capacity(lines: usize) -> Self {
        Self {
            blocks: Vec::with_capacity(lines / Self::BLOCK + 1),
            steps: Vec::with_capacity(lines),
            long: Vec::new(),
            last: 0,
        }
    }

    /// Number of lines recorded.
    pub(crate) fn len(&self) -> usize {
        if self.blocks.is_empty() {
            0
        } else {
            self.steps.len() + 1
        }
    }

    /// The start of the last line recorded.
    #[inline]
    pub(crate) fn last(&self) -> Option<u32> {
        (!self.blocks.is_empty()).then_some(self.last)
    }

    /// Records the next line, which starts at `start` (not before the last line's start).
    #[inline]
    pub(crate) fn push(&mut self, start: u32) {
        let line = self.len();
        if line.is_multiple_of(Self::BLOCK) {
            self.blocks.push(start);
        }
        if line > 0 {
            let step = start - self.last;
            if step >= u32::from(Self::LONG) {
                self.steps.push(Self::LONG);
                self.long.push((line as u32, step));
            } else {
                self.steps.push(step as u8);
            }
        }
        self.last = start;
    }

    /// Keeps the first `len` lines.
    pub(crate) fn truncate(&mut self, len: usize) {
        if len >= self.len() {
            return;
        }
        if len == 0 {
            *self = Self::default();
            return;
        }
        self.steps.truncate(len - 1);
        self.blocks.truncate((len - 1) / Self::BLOCK + 1);
        while self
            .long
            .last()
            .is_some_and(|(line, _)| *line as usize >= len)
        {
            self.long.pop();
        }
        self.last = self.line_of(u32::MAX).1;
    }

    /// Drops spare capacity.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.blocks.shrink_to_fit();
        self.steps.shrink_to_fit();
        self.long.shrink_to_fit();
    }

    /// The distance from the start of line `line - 1` to the start of line `line` (`line >= 1`).
    fn step(&self, line: usize) -> u32 {
        match self.steps[line - 1] {
            Self::LONG => {
                let i = self.long.partition_point(|(l, _)| (*l as usize) < line);
                self.long[i].1
            }
            step => u32::from(step),
        }
    }

    /// The last line starting at or before `offset`: its 0-based number and its start. `(0, 0)`
    /// when no line starts there (or none is recorded).
    pub(crate) fn line_of(&self, offset: u32) -> (usize, u32) {
        let block = self.blocks.partition_point(|&s| s <= offset);
        if block == 0 {
            return (0, 0);
        }
        let mut line = (block - 1) * Self::BLOCK;
        let mut start = self.blocks[block - 1];
        let len = self.len();
        while line + 1 < len {
            let next = start + self.step(line + 1);
            if next > offset {
                break;
            }
            line += 1;
            start = next;
        }
        (line, start)
    }
}

/// Maps byte offsets of one text to lines and columns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LineIndex {
    /// Byte offset of the first byte of each line.
    line_starts: LineStarts,
    /// For each non-ASCII character: the offset just past it and the running total of extra
    /// bytes (UTF-8 length minus one) up to and including it.
    wide: Vec<(u32, u32)>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = LineStarts::with_capacity(bytes.len() / 24 + 1);
        line_starts.push(0u32);
        for_each_newline(bytes, |nl| line_starts.push(nl as u32 + 1));
        line_starts.shrink_to_fit();
        let mut wide = WideChars::default();
        wide.scan(text, 0);
        Self::from_parts(line_starts, wide.table)
    }

    /// The index of a text from its line starts and the [`WideChars`] table of the same text.
    pub(crate) fn from_parts(line_starts: LineStarts, mut wide: Vec<(u32, u32)>) -> Self {
        wide.shrink_to_fit();
        Self { line_starts, wide }
    }

    /// The position of byte `offset`. Offsets past the end map to the end of the last line.
    pub(crate) fn position(&self, offset: usize) -> Position {
        let off = offset.min(u32::MAX as usize) as u32;
        // An empty index (a default map) is one line from offset 0.
        let (line, line_start) = self.line_starts.line_of(off);
        let line = line + 1;
        let extra_before = |at: u32| -> u32 {
            let i = self.wide.partition_point(|&(end, _)| end <= at);
            if i == 0 { 0 } else { self.wide[i - 1].1 }
        };
        let extra = extra_before(off) - extra_before(line_start);
        Position {
            line: line as u32,
            column: off - line_start - extra + 1,
            offset,
        }
    }
}

impl LineIndex {
    /// Makes this the index of `text`, which is the text it was made for with the bytes at
    /// `old` replaced by `text[old.start..old.start + new_len]` (the same index as
    /// [`LineIndex::new`] of `text`): the lines and characters before the edit are not touched,
    /// the edited bytes are scanned, and what follows is moved without being read again (a
    /// line count that changed renumbers the lines after it).
    pub(crate) fn edit(&mut self, text: &str, old: std::ops::Range<usize>, new_len: usize) {
        let delta = new_len as i64 - (old.end - old.start) as i64;
        let moved = |at: u32| (i64::from(at) + delta) as u32;
        let new_end = old.start + new_len;
        let mut added = Vec::new();
        for_each_newline(&text.as_bytes()[old.start..new_end], |nl| {
            added.push((old.start + nl) as u32 + 1);
        });
        self.line_starts.edit(&old, delta, &added);
        // Non-ASCII characters: those ending before the edit kept, the edited bytes scanned, the
        // rest moved with their running totals corrected.
        let keep = self
            .wide
            .partition_point(|&(end, _)| end as usize <= old.start);
        let after = self
            .wide
            .partition_point(|&(end, _)| (end as usize) <= old.end);
        let before = if keep == 0 { 0 } else { self.wide[keep - 1].1 };
        let old_extra = if after == 0 {
            0
        } else {
            self.wide[after - 1].1
        };
        let mut scanned = WideChars {
            table: Vec::new(),
            extra: before,
        };
        scanned.scan(&text[old.start..new_end], old.start);
        let extra_delta = i64::from(scanned.extra) - i64::from(old_extra);
        let added = scanned.table.len();
        self.wide.splice(keep..after, scanned.table);
        if delta != 0 || extra_delta != 0 {
            for (end, extra) in &mut self.wide[keep + added..] {
                *end = moved(*end);
                *extra = (i64::from(*extra) + extra_delta) as u32;
            }
        }
    }
}

impl LineStarts {
    /// The lines after an edit that replaced bytes `old` of the text, growing it by `delta`
    /// bytes: `added` are the starts of the lines that begin inside the new bytes (after their
    /// first). Lines starting at or before `old.start` stay, those starting in the replaced
    /// bytes go, those after move by `delta`; their steps stay as they are (a step is relative),
    /// only the block starts after the edit are set again.
    pub(crate) fn edit(&mut self, old: &std::ops::Range<usize>, delta: i64, added: &[u32]) {
        let n = self.len();
        if n == 0 {
            return;
        }
        let (l0, s0) = self.line_of(old.start as u32);
        let (l1, s1) = self.line_of(old.end as u32);
        let (k0, k1) = (l0 + 1, l1 + 1);
        // The first line after the edit, which moves: its start in the new text.
        let next = (k1 < n).then(|| (i64::from(s1 + self.step(k1)) + delta) as u32);
        let mut starts: Vec<u32> = Vec::with_capacity(added.len() + 1);
        starts.extend_from_slice(added);
        starts.extend(next);
        // The steps of lines `k0..` that change: those of the added lines and of the next one.
        let mut steps = Vec::with_capacity(starts.len());
        let mut long = Vec::new();
        let mut prev = s0;
        for (j, &start) in starts.iter().enumerate() {
            let step = start - prev;
            if step >= u32::from(Self::LONG) {
                steps.push(Self::LONG);
                long.push(((k0 + j) as u32, step));
            } else {
                steps.push(step as u8);
            }
            prev = start;
        }
        // Steps `k0 - 1..` are those of lines `k0..`: the removed lines' and the next one's go.
        let replaced = (k0 - 1)..(if k1 < n { k1 } else { n - 1 });
        let (removed_lines, new_lines) = (k1 - k0, added.len());
        self.steps.splice(replaced, steps);
        let shift = new_lines as i64 - removed_lines as i64;
        let first_after = if k1 < n { k1 + 1 } else { k1 };
        let l_from = self.long.partition_point(|(l, _)| (*l as usize) < k0);
        let l_to = self
            .long
            .partition_point(|(l, _)| (*l as usize) < first_after);
        let tail_from = l_from + long.len();
        self.long.splice(l_from..l_to, long);
        if shift != 0 {
            for (line, _) in &mut self.long[tail_from..] {
                *line = (i64::from(*line) + shift) as u32;
            }
        }
        // Block starts after the edit.
        let first_block = k0.div_ceil(Self::BLOCK);
        let len = self.len();
        if shift == 0 {
            for (b, start) in self.blocks.iter_mut().enumerate().skip(first_block) {
                let line = b * Self::BLOCK;
                *start = match line - k0 {
                    j if j < new_lines => added[j],
                    _ => (i64::from(*start) + delta) as u32,
                };
            }
        } else {
            self.blocks.truncate(first_block);
            let mut start = s0;
            for line in k0..len {
                start += self.step(line);
                if line.is_multiple_of(Self::BLOCK) {
                    self.blocks.push(start);
                }
            }
        }
        self.last = match next {
            Some(_) => (i64::from(self.last) + delta) as u32,
            None => added.last().copied().unwrap_or(s0),
        };
    }
}

/// The non-ASCII characters of a text, collected piece by piece (the [`LineIndex`] `wide` table).
#[derive(Debug, Default)]
pub(crate) struct WideChars {
    pub(crate) table: Vec<(u32, u32)>,
    extra: u32,
}

impl WideChars {
    /// Adds the characters of `text`, which starts at offset `base` of the whole text and
    /// follows the part scanned before.
    pub(crate) fn scan(&mut self, text: &str, base: usize) {
        if text.is_ascii() {
            return;
        }
        for (i, c) in text.char_indices() {
            let len = c.len_utf8();
            if len > 1 {
                self.extra += len as u32 - 1;
                self.table.push(((base + i + len) as u32, self.extra));
            }
        }
    }
}

/// Calls `f` with the offset of every `\n` in `bytes`, in order.
///
/// Lines are short (about 25 bytes in canonical files), so restarting a SIMD search after each
/// newline costs more than it saves: this reads eight bytes at a time and visits only the
/// newline bytes of each word, through a bit mask.
fn for_each_newline(bytes: &[u8], mut f: impl FnMut(usize)) {
    const LOW7: u64 = u64::from_le_bytes([0x7f; 8]);
    const NEWLINES: u64 = u64::from_le_bytes([b'\n'; 8]);
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let x = u64::from_le_bytes(eight) ^ NEWLINES;
        // Exactly the high bit of each byte of `x` that is zero (no carries between bytes).
        let mut zeros = !(((x & LOW7) + LOW7) | x | LOW7);
        while zeros != 0 {
            f(at + (zeros.trailing_zeros() / 8) as usize);
            zeros &= zeros - 1;
        }
        at += 8;
    }
    for (i, b) in words.remainder().iter().enumerate() {
        if *b == b'\n' {
            f(at + i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy as _;

    #[test]
    fn positions_count_lines_and_characters() {
        let text = "ab\ncé d\n\nxyz";
        let idx = LineIndex::new(text);
        assert_eq!(
            idx.position(0),
            Position {
                line: 1,
                column: 1,
                offset: 0
            }
        );
        assert_eq!(idx.position(1).column, 2);
        assert_eq!((idx.position(3).line, idx.position(3).column), (2, 1));
        // 'd' is after a two-byte 'é': byte 7, character column 4.
        let d = text.find('d').unwrap_or_default();
        assert_eq!((idx.position(d).line, idx.position(d).column), (2, 4));
        assert_eq!(idx.position(text.len() - 1).line, 4);
    }

    proptest::proptest! {
        #[test]
        fn positions_match_a_character_count(text in "[a\n\r é\u{8a}\u{1F600}\u{b}]{0,80}") {
            let idx = LineIndex::new(&text);
            let (mut line, mut column) = (1u32, 1u32);
            for (offset, c) in text.char_indices() {
                let p = idx.position(offset);
                proptest::prop_assert_eq!((p.line, p.column), (line, column), "offset {}", offset);
                if c == '\n' {
                    line += 1;
                    column = 1;
                } else {
                    column += 1;
                }
            }
        }
    }

    /// Line starts as a plain list: the model [`LineStarts`] must agree with.
    fn model_line_of(starts: &[u32], offset: u32) -> (usize, u32) {
        match starts.partition_point(|&s| s <= offset) {
            0 => (0, 0),
            n => (n - 1, starts[n - 1]),
        }
    }

    proptest::proptest! {
        /// Pushes (short and long line lengths, over many blocks) and truncations (as the
        /// reader undoes a partly read entry) answer every lookup as a plain list does.
        #[test]
        fn line_starts_answer_as_a_plain_list(
            ops in proptest::collection::vec(
                proptest::prop_oneof![
                    8 => (0u32..40).prop_map(Some),
                    2 => (250u32..260).prop_map(Some),
                    1 => (260u32..70_000).prop_map(Some),
                    1 => proptest::strategy::Just(None),
                ],
                0..400,
            ),
            cuts in proptest::collection::vec(0usize..450, 0..4),
        ) {
            use proptest::prop_assert_eq;
            let (mut starts, mut model) = (LineStarts::default(), Vec::<u32>::new());
            let mut cuts = cuts.into_iter();
            for op in ops {
                match op {
                    Some(step) => {
                        let start = model.last().map_or(0, |l| l + step);
                        starts.push(start);
                        model.push(start);
                    }
                    None => {
                        let len = cuts.next().unwrap_or(0);
                        starts.truncate(len);
                        model.truncate(len);
                    }
                }
                prop_assert_eq!(starts.len(), model.len());
                prop_assert_eq!(starts.last(), model.last().copied());
            }
            let end = model.last().map_or(0, |l| l + 300);
            for offset in (0..end).step_by(7).chain([end, u32::MAX]) {
                prop_assert_eq!(starts.line_of(offset), model_line_of(&model, offset), "offset {}", offset);
            }
            for &start in &model {
                prop_assert_eq!(starts.line_of(start).1, start);
            }
        }
    }

    proptest::proptest! {
        /// Edits of every kind (lines added, removed, joined; non-ASCII characters; over many
        /// blocks and long lines) give the index of the edited text.
        #[test]
        fn an_edited_index_is_the_index_of_the_new_text(
            text in "[a\n é\u{1F600}]{0,40}([a\n]{0,300}){0,8}",
            edits in proptest::collection::vec((0usize..4000, 0usize..40, "[a\né]{0,30}"), 1..6),
        ) {
            let mut text = text;
            let mut idx = LineIndex::new(&text);
            for (at, len, with) in edits {
                let mut start = at.min(text.len());
                while !text.is_char_boundary(start) {
                    start -= 1;
                }
                let mut end = (start + len).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.replace_range(start..end, &with);
                idx.edit(&text, start..end, with.len());
                proptest::prop_assert_eq!(&idx, &LineIndex::new(&text), "{:?}", text);
            }
        }
    }

    #[test]
    fn newlines_are_found_at_every_offset_of_a_word() {
        // Newlines at each of the eight byte positions, runs of them, and a remainder.
        let mut text = String::new();
        for i in 0..40 {
            text.push_str(&"x".repeat(i % 11));
            if i % 5 == 0 {
                text.push_str("\u{b}é\u{8a}");
            }
            text.push('\n');
            if i % 7 == 0 {
                text.push('\n');
            }
        }
        text.push_str("tail");
        let expected: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
        let mut found = Vec::new();
        for_each_newline(text.as_bytes(), |i| found.push(i));
        assert_eq!(found, expected);
        let idx = LineIndex::new(&text);
        assert_eq!(idx.line_starts.len(), expected.len() + 1);
    }
}
