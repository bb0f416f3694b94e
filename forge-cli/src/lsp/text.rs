//! A document's text and its lines: LSP positions (UTF-16 code units by default, UTF-8 bytes
//! when the client offers it) to byte offsets and back, and incremental changes.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

/// How the client counts columns (`positionEncoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-16 code units: the protocol's default.
    Utf16,
    /// UTF-8 bytes, when the client offers `utf-8` in `general.positionEncodings`.
    Utf8,
}

/// The text of an open document with the start of each of its lines.
#[derive(Debug, Clone)]
pub struct Text {
    text: String,
    /// Byte offset of the first byte of each line (the first is 0).
    lines: Vec<u32>,
}

/// An edit in byte offsets: the bytes at `old` of the text before replaced by `new_len` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub old: std::ops::Range<usize>,
    pub new_len: usize,
}

impl Text {
    pub fn new(text: String) -> Self {
        let mut lines = vec![0];
        lines.extend(newlines(&text, 0));
        Self { text, lines }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The length of a byte-order mark the text starts with (0 or 3): the library's offsets
    /// start after it.
    pub fn bom(&self) -> usize {
        if self.text.starts_with('\u{feff}') {
            3
        } else {
            0
        }
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.lines
            .partition_point(|&s| s as usize <= offset)
            .saturating_sub(1)
    }

    /// The bytes of line `line` without its line end.
    fn line_range(&self, line: usize) -> std::ops::Range<usize> {
        let start = self
            .lines
            .get(line)
            .map_or(self.text.len(), |&s| s as usize);
        let mut end = self
            .lines
            .get(line + 1)
            .map_or(self.text.len(), |&s| s as usize - 1);
        if end > start && self.text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        start..end.max(start)
    }

    /// The byte offset of `position`; a column inside a character (between the two halves of
    /// a UTF-16 surrogate pair, or inside a UTF-8 sequence) is that character's start, a column
    /// past the end of its line is the line's end, a line past the end the end of the text.
    pub fn offset(&self, position: Position, encoding: Encoding) -> usize {
        let line = position.line as usize;
        if line >= self.lines.len() {
            return self.text.len();
        }
        let range = self.line_range(line);
        let mut units = 0u32;
        for (i, c) in self.text[range.clone()].char_indices() {
            units += match encoding {
                Encoding::Utf16 => c.len_utf16() as u32,
                Encoding::Utf8 => c.len_utf8() as u32,
            };
            if units > position.character {
                return range.start + i;
            }
        }
        range.end
    }

    /// The position of byte `offset` (a byte inside a character is the character's start).
    pub fn position(&self, offset: usize, encoding: Encoding) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.lines[line] as usize;
        let before = &self.text[start..offset];
        let character = match encoding {
            Encoding::Utf16 => before.encode_utf16().count(),
            Encoding::Utf8 => before.len(),
        } as u32;
        Position::new(line as u32, character)
    }

    /// The LSP range of bytes `range`.
    pub fn range(&self, range: std::ops::Range<usize>, encoding: Encoding) -> Range {
        Range::new(
            self.position(range.start, encoding),
            self.position(range.end, encoding),
        )
    }

    /// Applies one change of `textDocument/didChange`; the edit it made.
    pub fn apply(&mut self, change: TextDocumentContentChangeEvent, encoding: Encoding) -> Edit {
        let old = match change.range {
            Some(range) => {
                let start = self.offset(range.start, encoding);
                let end = self.offset(range.end, encoding).max(start);
                start..end
            }
            None => 0..self.text.len(),
        };
        let new_len = change.text.len();
        self.text.replace_range(old.clone(), &change.text);
        // Lines: those starting in the replaced bytes go, those after move, new ones come.
        let first = self.lines.partition_point(|&s| s as usize <= old.start);
        let last = self.lines.partition_point(|&s| s as usize <= old.end);
        let delta = new_len as i64 - (old.end - old.start) as i64;
        let added: Vec<u32> =
            newlines(&self.text[old.start..old.start + new_len], old.start).collect();
        let after = first + added.len();
        self.lines.splice(first..last, added);
        for s in &mut self.lines[after..] {
            *s = (i64::from(*s) + delta) as u32;
        }
        Edit { old, new_len }
    }
}

/// The start of the line after each `\n` of `text`, which starts at `base`.
fn newlines(text: &str, base: usize) -> impl Iterator<Item = u32> + '_ {
    text.bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'\n')
        .map(move |(i, _)| (base + i + 1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(text: &str, sl: u32, sc: u32, el: u32, ec: u32) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(sl, sc), Position::new(el, ec))),
            range_length: None,
            text: text.to_owned(),
        }
    }

    #[test]
    fn columns_count_utf16_units_or_bytes() {
        let text = Text::new("ab\r\nzoë 🌲 x\nend".to_owned());
        let x = text.as_str().find('x').unwrap_or_default();
        assert_eq!(text.position(x, Encoding::Utf16), Position::new(1, 7));
        assert_eq!(text.position(x, Encoding::Utf8), Position::new(1, 10));
        assert_eq!(text.offset(Position::new(1, 7), Encoding::Utf16), x);
        assert_eq!(text.offset(Position::new(1, 10), Encoding::Utf8), x);
        // Inside a character (the second half of the tree's surrogate pair, a byte inside
        // its UTF-8 sequence): that character.
        let tree = text.as_str().find('🌲').unwrap_or_default();
        assert_eq!(text.position(tree, Encoding::Utf16), Position::new(1, 4));
        assert_eq!(text.offset(Position::new(1, 5), Encoding::Utf16), tree);
        assert_eq!(text.offset(Position::new(1, 6), Encoding::Utf16), tree + 4);
        assert_eq!(text.offset(Position::new(1, 7), Encoding::Utf8), tree);
        // Past the end of a line: its end, before the CRLF.
        assert_eq!(text.offset(Position::new(0, 40), Encoding::Utf16), 2);
        assert_eq!(
            text.offset(Position::new(9, 0), Encoding::Utf16),
            text.as_str().len()
        );
    }

    #[test]
    fn changes_keep_the_lines() {
        let mut text = Text::new("one\ntwo\nthree\n".to_owned());
        let edit = text.apply(change("X\nY", 1, 1, 2, 2), Encoding::Utf16);
        assert_eq!(text.as_str(), "one\ntX\nYree\n");
        assert_eq!(
            edit,
            Edit {
                old: 5..10,
                new_len: 3
            }
        );
        assert_eq!(text.lines, Text::new(text.as_str().to_owned()).lines);
        text.apply(change("", 0, 0, 3, 0), Encoding::Utf16);
        assert_eq!(text.as_str(), "");
        assert_eq!(text.lines, vec![0]);
    }
}
