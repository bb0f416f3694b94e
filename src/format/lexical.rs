//! Lexical rules shared by everything that scans Rust or RON text: the scene reader, the
//! expression scanner of custom field values and the schema file reader. RON borrows Rust's
//! comments and string literals, so one definition serves all three.
//!
//! Each function takes the bytes and a start offset and returns the offset just past the token,
//! or `None` when the token is not closed before the end.

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
