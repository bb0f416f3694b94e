//! Lexical rules shared by everything that scans Rust or RON text: the scene reader, the
//! expression scanner of custom field values and the schema file reader. RON borrows Rust's
//! comments and string literals, so one definition serves all three.
//!
//! Each function takes the bytes and a start offset and returns the offset just past the token,
//! or `None` when the token is not closed before the end. [`tokens`] (public) is the same rules
//! as one iterator of tokens, for tools that look at the text around a read.

/// The end of a block comment starting at `at` (`/*`), nested comments included (Rust and RON
/// nest them alike); `None` when it is not closed.
pub(crate) fn block_comment_end(b: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    while i + 1 < b.len() {
        match (b[i], b[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The end (after the closing `"`) of a string whose text starts at `from`, with escapes.
pub(crate) fn string_end(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        i += memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        if b[i] == b'"' {
            return Some(i + 1);
        }
        i += 2;
    }
}

/// The end of a raw string whose text starts at `from`, closed by `"` and `hashes` `#`.
pub(crate) fn raw_string_end(b: &[u8], from: usize, hashes: usize) -> Option<usize> {
    let mut i = from;
    loop {
        i += memchr::memchr(b'"', b.get(i..)?)?;
        let close = i + 1 + hashes;
        if b.get(i + 1..close)
            .is_some_and(|h| h.iter().all(|&c| c == b'#'))
        {
            return Some(close);
        }
        i += 1;
    }
}

/// The end of the raw string (`r"..."`, `r#"..."#`) whose `r` is at `at`: `None` when no raw
/// string starts there (`r` is a word, `r#ident`), `Some(None)` when one starts but is not
/// closed. The caller checks that the `r` does not end a name.
pub(crate) fn raw_string_at(b: &[u8], at: usize) -> Option<Option<usize>> {
    let hashes = b.get(at + 1..)?.iter().take_while(|&&c| c == b'#').count();
    (b.get(at + 1 + hashes) == Some(&b'"')).then(|| raw_string_end(b, at + 2 + hashes, hashes))
}

/// The end of the string literal starting at `at` in RON text `b`: a `"..."` string, or a raw
/// string (`r"..."`, `r#"..."#`) whose `r` does not end a name. `None` when none starts there,
/// `Some(None)` when one starts but is not closed. What scanners of RON text call to step over
/// strings, where brackets and comment markers mean nothing.
pub(crate) fn string_literal_end(b: &[u8], at: usize) -> Option<Option<usize>> {
    match *b.get(at)? {
        b'"' => Some(string_end(b, at + 1)),
        b'r' if at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') => {
            raw_string_at(b, at)
        }
        _ => None,
    }
}

/// The first byte from `i` that is not whitespace or in a comment (a block comment that is not
/// closed runs to the end).
pub(crate) fn skip_trivia(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            Some(c) if c.is_ascii_whitespace() => i += 1,
            Some(b'/') if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
            }
            Some(b'/') if b.get(i + 1) == Some(&b'*') => match block_comment_end(b, i) {
                Some(end) => i = end,
                None => return b.len(),
            },
            _ => return i,
        }
    }
}

/// The offset of the first byte from `i` that is not a space, a tab or a comment, staying on
/// the line: a line comment is skipped to its end (the line break itself is not skipped), and so
/// is a block comment that closes on the line.
pub(crate) fn skip_trivia_on_line(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            Some(b' ' | b'\t') => i += 1,
            Some(b'/') if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                if i > 0 && b[i - 1] == b'\r' {
                    i -= 1;
                }
                return i;
            }
            Some(b'/') if b.get(i + 1) == Some(&b'*') => match block_comment_end(b, i) {
                Some(end) if !b[i..end].contains(&b'\n') => i = end,
                _ => return i,
            },
            _ => return i,
        }
    }
}

/// The offset of the first comment (`//` or `/*`) of RON text `b` outside strings; `None` when
/// it has none (or a string is not closed).
pub(crate) fn first_comment(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if matches!(b.get(i + 1), Some(b'/' | b'*')) => return Some(i),
            _ => match string_literal_end(b, i) {
                Some(end) => i = end?,
                None => i += 1,
            },
        }
    }
    None
}

/// What a [`Token`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenKind {
    /// A run of spaces, tabs and line ends.
    Whitespace,
    /// A `// ..` comment (to the end of its line, the line end not included) or a `/* .. */`
    /// comment (nested ones included); `closed` is `false` for a block comment that runs to the
    /// end of the text.
    Comment {
        /// Whether a block comment is closed (always `true` for a line comment).
        closed: bool,
    },
    /// A name: an ASCII letter or `_`, then letters, digits and `_` (`point_light`, `Some`,
    /// `true`).
    Ident,
    /// A number as the reader reads one: a digit (or a sign or `.` before a digit), then
    /// letters, digits, `_`, `.` and a sign after an exponent (`12`, `-0.5`, `1e-3`, `2.0f32`).
    Number,
    /// A string, quoted (`"a \"b\""`, escapes not decoded) or raw (`r#"a"#`); `closed` is
    /// `false` for one that runs to the end of the text.
    String {
        /// Whether the string is closed.
        closed: bool,
    },
    /// One of `( ) [ ] { } , :`.
    Punct,
    /// Any other character.
    Other,
}

/// One token of `.forge.ron` text: its kind and its byte range in the text given to
/// [`tokens`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is, in bytes.
    pub range: std::ops::Range<usize>,
}

impl Token {
    /// Whether it is whitespace or a comment.
    pub fn is_trivia(&self) -> bool {
        matches!(self.kind, TokenKind::Whitespace | TokenKind::Comment { .. })
    }
}

/// The tokens of `.forge.ron` text, in order, covering every byte: whitespace, comments,
/// names, numbers, strings, punctuation, and anything else one character at a time.
///
/// The lexical rules are the reader's ([`SceneDoc::from_str`](super::SceneDoc::from_str)):
/// comments as in RON (block comments nest), strings with escapes and raw strings that may span
/// lines. It never fails: a string or block comment that is not closed is one token to the end
/// of the text. Tools that look at the text around a read (the language server, `forge lsp`)
/// use this rather than scanning on their own.
///
/// ```
/// use bevy_forge_scene::format::{TokenKind, tokens};
/// let text = "children: [2, /* 3 */ 4]";
/// let numbers: Vec<&str> = tokens(text)
///     .filter(|t| t.kind == TokenKind::Number)
///     .map(|t| &text[t.range])
///     .collect();
/// assert_eq!(numbers, ["2", "4"]);
/// ```
pub fn tokens(text: &str) -> Tokens<'_> {
    Tokens { text, at: 0 }
}

/// The iterator of [`tokens`].
#[derive(Debug, Clone)]
pub struct Tokens<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Tokens<'a> {
    /// The offset of the next token (the length of the text at the end).
    pub fn offset(&self) -> usize {
        self.at
    }

    /// The next token that is not whitespace or a comment.
    pub fn next_significant(&mut self) -> Option<Token> {
        self.find(|t| !t.is_trivia())
    }
}

impl Iterator for Tokens<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let b = self.text.as_bytes();
        let start = self.at;
        let &c = b.get(start)?;
        let (kind, end) = match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                let n = b[start..]
                    .iter()
                    .take_while(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
                    .count();
                (TokenKind::Whitespace, start + n)
            }
            b'/' if b.get(start + 1) == Some(&b'/') => {
                let end = memchr::memchr(b'\n', &b[start..]).map_or(b.len(), |n| start + n);
                (TokenKind::Comment { closed: true }, end)
            }
            b'/' if b.get(start + 1) == Some(&b'*') => match block_comment_end(b, start) {
                Some(end) => (TokenKind::Comment { closed: true }, end),
                None => (TokenKind::Comment { closed: false }, b.len()),
            },
            b'(' | b')' | b'[' | b']' | b'{' | b'}' | b',' | b':' => (TokenKind::Punct, start + 1),
            _ => match string_literal_end(b, start) {
                Some(Some(end)) => (TokenKind::String { closed: true }, end),
                Some(None) => (TokenKind::String { closed: false }, b.len()),
                None if starts_number(b, start) => (TokenKind::Number, number_end(b, start)),
                None if c.is_ascii_alphabetic() || c == b'_' => {
                    let n = b[start..]
                        .iter()
                        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                        .count();
                    (TokenKind::Ident, start + n)
                }
                None => {
                    let len = self.text[start..].chars().next().map_or(1, char::len_utf8);
                    (TokenKind::Other, start + len)
                }
            },
        };
        self.at = end;
        Some(Token {
            kind,
            range: start..end,
        })
    }
}

/// Whether a number starts at `at`: a digit, or a sign or `.` before a digit.
fn starts_number(b: &[u8], at: usize) -> bool {
    match b[at] {
        b'0'..=b'9' => true,
        b'-' | b'+' | b'.' => b.get(at + 1).is_some_and(u8::is_ascii_digit),
        _ => false,
    }
}

/// The end of the number starting at `at`, as the reader's number token ends.
fn number_end(b: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while let Some(&c) = b.get(i) {
        let sign_after_exponent = matches!(c, b'-' | b'+') && matches!(b[i - 1], b'e' | b'E');
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || sign_after_exponent {
            i += 1;
        } else {
            break;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(TokenKind, &str)> {
        tokens(text).map(|t| (t.kind, &text[t.range])).collect()
    }

    #[test]
    fn tokens_follow_the_readers_rules() {
        use TokenKind::*;
        let text = "(a_1: -0.5e-3, s: \"x // \\\"y\", r: r#\"(\"#) /* c /* d */ */ // e\n# é";
        assert_eq!(
            kinds(text),
            [
                (Punct, "("),
                (Ident, "a_1"),
                (Punct, ":"),
                (Whitespace, " "),
                (Number, "-0.5e-3"),
                (Punct, ","),
                (Whitespace, " "),
                (Ident, "s"),
                (Punct, ":"),
                (Whitespace, " "),
                (String { closed: true }, "\"x // \\\"y\""),
                (Punct, ","),
                (Whitespace, " "),
                (Ident, "r"),
                (Punct, ":"),
                (Whitespace, " "),
                (String { closed: true }, "r#\"(\"#"),
                (Punct, ")"),
                (Whitespace, " "),
                (Comment { closed: true }, "/* c /* d */ */"),
                (Whitespace, " "),
                (Comment { closed: true }, "// e"),
                (Whitespace, "\n"),
                (Other, "#"),
                (Whitespace, " "),
                (Other, "é"),
            ]
        );
        assert_eq!(kinds("\"open"), [(String { closed: false }, "\"open")]);
        assert_eq!(kinds("/* open"), [(Comment { closed: false }, "/* open")]);
        assert_eq!(
            kinds("- 1"),
            [(Other, "-"), (Whitespace, " "), (Number, "1")]
        );
    }

    proptest::proptest! {
        /// Any text is covered by its tokens, in order, each one at least a byte, on character
        /// boundaries.
        #[test]
        fn tokens_cover_any_text(text in "[ -~é\n\t]{0,60}") {
            let mut at = 0;
            for t in tokens(&text) {
                proptest::prop_assert_eq!(t.range.start, at);
                proptest::prop_assert!(t.range.end > t.range.start);
                proptest::prop_assert!(text.is_char_boundary(t.range.end));
                at = t.range.end;
            }
            proptest::prop_assert_eq!(at, text.len());
        }
    }
}
