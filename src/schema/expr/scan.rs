//! A cheap lexical pass over an expression before `syn` parses it, so that parsing, evaluating
//! and dropping the syntax tree stay within a bounded depth and time whatever the text.
//!
//! `syn` recurses on every level of the syntax tree (brackets, but also unary operators, method
//! chains, casts, `return`, `if .. else` chains, generic arguments), and so do the evaluator, the
//! tree's `Drop` and its spans. The pass estimates an upper bound of the tree's depth from the
//! tokens and refuses the expression beyond [`MAX_DEPTH`]:
//!
//! - each open bracket (`(`, `[`, `{`) counts one level while it is open;
//! - each operator character (`-`, `!`, `.`, `&`, `|`, `+`, `?`, ...), each keyword (`as`,
//!   `return`, `if`, `else`, ...) and each bracket that directly follows a closing bracket
//!   (`f()()`, `a[0][1]`) counts one level until the next `,` or `;` of its bracket (list items
//!   are siblings, not nested);
//! - each `<` counts one level until a matching `>` or the end of its bracket (generic
//!   arguments may nest across commas).
//!
//! Strings, raw strings, characters and comments are skipped as Rust lexes them, so brackets and
//! operators inside them do not count. The pass also refuses texts longer than [`MAX_LEN`] bytes
//! and number literals longer than [`MAX_NUMBER_LEN`] characters (`syn` reads those in quadratic
//! time), and reports lexical errors (an unterminated string, an invalid character) with their
//! position instead of the tokenizer's "cannot parse string into token stream".

use super::ExprError;
use crate::format::lexical::{block_comment_end, raw_string_end, string_end};

/// Deepest nesting of a field expression, in levels (see [the limits](crate::schema::expr#limits)):
/// open brackets plus chained operators, method calls, casts and keywords. At this depth parsing
/// and evaluating use at most about 512 KiB of stack in a debug build (Rust threads get 2 MiB by
/// default), much less with optimizations.
pub const MAX_DEPTH: usize = 64;

/// Longest field expression accepted, in bytes (1 MiB).
pub const MAX_LEN: usize = 1 << 20;

/// Longest number literal accepted in a field expression, in characters (digits, `_`, `.`, exponent
/// and suffix). The largest integer, `u128::MAX`, has 39 digits and `f64::MAX` 309.
pub const MAX_NUMBER_LEN: usize = 400;

/// Most `#` a raw string may have (as in Rust).
const MAX_RAW_HASHES: usize = 255;

/// The message of nesting refused beyond `limit` levels.
pub(crate) fn too_deep_message(limit: usize) -> String {
    format!("nesting deeper than {limit} levels")
}

/// Keywords that make an expression, pattern or type nest (`return x`, `x as T`, `if .. else`).
const NESTING_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop",
    "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return", "static",
    "struct", "trait", "try", "type", "typeof", "union", "unsafe", "unsized", "use", "virtual",
    "where", "while", "yield",
];

/// The nesting counters of one open bracket.
#[derive(Default)]
struct Level {
    /// Operators, keywords and chained brackets since the last `,` or `;`.
    chain: usize,
    /// Unclosed `<`.
    angles: usize,
}

/// Checks `text` before parsing (see [the module docs](self)).
///
/// # Errors
/// [`ExprError::Unsupported`] for a text longer than [`MAX_LEN`], a number literal longer than
/// [`MAX_NUMBER_LEN`] or nesting deeper than [`MAX_DEPTH`]; [`ExprError::Syntax`] for an
/// unterminated string, character or comment and for a character Rust does not allow there.
pub(crate) fn check(text: &str) -> Result<(), ExprError> {
    if text.len() > MAX_LEN {
        return Err(ExprError::Unsupported {
            at: 0,
            what: format!("an expression longer than {MAX_LEN} bytes"),
        });
    }
    let b = text.as_bytes();
    let mut levels = vec![Level::default()];
    // The sums of `chain` and `angles` over `levels`.
    let mut nested = 0usize;
    let mut after_close = false;
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        let mut closes = false;
        // How many levels this token adds to the current bracket's chain.
        let mut chain = 0usize;
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = block_comment_end(b, i).ok_or_else(|| {
                    syntax(
                        start,
                        "unterminated block comment: the closing `*/` is missing",
                    )
                })?;
                continue;
            }
            b'(' | b'[' | b'{' => {
                if after_close {
                    chain = 1;
                }
                i += 1;
            }
            b')' | b']' | b'}' => {
                if levels.len() > 1
                    && let Some(level) = levels.pop()
                {
                    nested -= level.chain + level.angles;
                }
                closes = true;
                i += 1;
            }
            b',' | b';' => {
                if let Some(level) = levels.last_mut() {
                    nested -= level.chain;
                    level.chain = 0;
                }
                i += 1;
            }
            b':' => i += 1,
            b'"' => {
                i = string_end(b, i + 1).ok_or_else(|| unterminated_string(start))?;
                check_escapes(text, start + 1, i - 1)?;
            }
            b'\'' => i = quote_end(text, i)?,
            b'0'..=b'9' => {
                i = number_end(b, i);
                if i - start > MAX_NUMBER_LEN {
                    return Err(ExprError::Unsupported {
                        at: start,
                        what: format!("a number literal longer than {MAX_NUMBER_LEN} characters"),
                    });
                }
            }
            b'<' => {
                if let Some(level) = levels.last_mut() {
                    level.angles += 1;
                    nested += 1;
                }
                chain = 1;
                i += 1;
            }
            b'>' => {
                let arrow = start > 0 && matches!(b[start - 1], b'-' | b'=');
                if !arrow
                    && let Some(level) = levels.last_mut()
                    && level.angles > 0
                {
                    level.angles -= 1;
                    nested -= 1;
                }
                chain = 1;
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let (end, nests) = word_end(text, i)?;
                i = end;
                chain = usize::from(nests);
            }
            c if c.is_ascii_punctuation() => {
                chain = 1;
                i += 1;
            }
            c if c.is_ascii() => return Err(invalid_char(start, char::from(c))),
            _ => {
                let ch = text[i..].chars().next().unwrap_or_default();
                if ch.is_whitespace() || matches!(ch, '\u{200e}' | '\u{200f}') {
                    i += ch.len_utf8();
                    continue;
                }
                if !unicode_ident::is_xid_start(ch) {
                    return Err(invalid_char(start, ch));
                }
                let (end, _) = word_end(text, i)?;
                i = end;
            }
        }
        if chain > 0
            && let Some(level) = levels.last_mut()
        {
            level.chain += chain;
            nested += chain;
        }
        if matches!(c, b'(' | b'[' | b'{') {
            levels.push(Level::default());
        }
        if levels.len() - 1 + nested > MAX_DEPTH {
            return Err(ExprError::Unsupported {
                at: start,
                what: too_deep_message(MAX_DEPTH),
            });
        }
        after_close = closes;
    }
    Ok(())
}

fn syntax(at: usize, message: &str) -> ExprError {
    ExprError::Syntax {
        at,
        message: message.to_owned(),
    }
}

/// Refuses an escape rustc does not know in the string or character whose text is
/// `text[from..to]` (`\q`), or a `\x` or `\u` not followed by its digits, naming it at its
/// backslash, and a carriage return outside a line break: syn would only say the text is not
/// Rust. The value of a known escape
/// (`\x80` in a string, `\u{110000}`) is left to syn.
fn check_escapes(text: &str, from: usize, to: usize) -> Result<(), ExprError> {
    let body = text.get(from..to).unwrap_or_default();
    let mut i = 0;
    while let Some(n) = memchr::memchr(b'\\', body.as_bytes().get(i..).unwrap_or_default()) {
        let at = i + n;
        let Some(next) = body[at + 1..].chars().next() else {
            return Ok(());
        };
        let rest = &body[at + 1 + next.len_utf8()..];
        let (ok, len) = match next {
            'n' | 'r' | 't' | '\\' | '0' | '\'' | '"' | '\n' | '\r' => (true, 0),
            'x' => {
                let hex = rest.bytes().take(2).filter(u8::is_ascii_hexdigit).count();
                (hex == 2, hex)
            }
            'u' => match rest
                .strip_prefix('{')
                .and_then(|r| r.find('}').map(|end| &r[..end]))
            {
                Some(digits)
                    if !digits.is_empty()
                        && digits.len() <= 16
                        && digits.bytes().all(|b| b.is_ascii_hexdigit() || b == b'_') =>
                {
                    (true, digits.len() + 2)
                }
                _ => (false, 0),
            },
            _ => (false, 0),
        };
        if !ok {
            let escape = if next.is_alphanumeric() || next.is_ascii_punctuation() {
                format!("`\\{next}`")
            } else {
                format!("`\\` followed by U+{:04X}", u32::from(next))
            };
            let message = match next {
                'x' => format!("{escape} needs two hex digits, as in `\\x41`"),
                'u' => format!("{escape} needs hex digits in braces, as in `\\u{{1F600}}`"),
                _ => format!(
                    "unknown character escape {escape}: the escapes are `\\n`, `\\r`, `\\t`, \
                     `\\\\`, `\\0`, `\\'`, `\\\"`, `\\x41` and `\\u{{1F600}}`"
                ),
            };
            return Err(ExprError::Syntax {
                at: from + at,
                message,
            });
        }
        i = at + 1 + next.len_utf8() + len;
    }
    // A carriage return is only part of a line break (`\r\n`), as rustc reads source text.
    let mut from_cr = 0;
    while let Some(n) = memchr::memchr(b'\r', body.as_bytes().get(from_cr..).unwrap_or_default()) {
        let cr = from_cr + n;
        if body.as_bytes().get(cr + 1) != Some(&b'\n') {
            return Err(ExprError::Syntax {
                at: from + cr,
                message: "a carriage return (U+000D) alone cannot appear in a string or \
                          character: write `\\r`"
                    .to_owned(),
            });
        }
        from_cr = cr + 2;
    }
    Ok(())
}

fn unterminated_string(at: usize) -> ExprError {
    syntax(at, "unterminated string: the closing `\"` is missing")
}

fn invalid_char(at: usize, c: char) -> ExprError {
    ExprError::Syntax {
        at,
        message: format!(
            "the character `{}` (U+{:04X}) cannot appear here",
            c.escape_debug(),
            u32::from(c)
        ),
    }
}

/// How many bytes after a character literal's escaped character its closing quote is looked
/// for: room for `'\u{10_FFFF}'` and a few more underscores; past it the literal is refused as
/// unterminated. The reference rewriter ([`super::refs`]) looks as far.
pub(super) const ESCAPED_CHAR_WINDOW: usize = 32;

/// The end of a character literal or a lifetime or label starting at `at` (`'`).
fn quote_end(text: &str, at: usize) -> Result<usize, ExprError> {
    let rest = &text[at + 1..];
    let mut chars = rest.chars();
    match chars.next() {
        // `'\n'`, `'\''`, `'\u{1F600}'`: the escape, then the closing quote close by.
        Some('\\') => {
            let escaped = chars.next().map_or(0, char::len_utf8);
            let body = at + 2 + escaped;
            let window = text.as_bytes().get(body..).unwrap_or_default();
            let window = &window[..window.len().min(ESCAPED_CHAR_WINDOW)];
            let end = memchr::memchr(b'\'', window)
                .map(|n| body + n + 1)
                .ok_or_else(|| {
                    syntax(
                        at,
                        "unterminated character literal: the closing `'` is missing",
                    )
                })?;
            check_escapes(text, at + 1, end - 1)?;
            Ok(end)
        }
        // `'x'`.
        Some(c) if chars.next() == Some('\'') => Ok(at + 1 + c.len_utf8() + 1),
        // A lifetime or label (`'a`): the name is read as a word next.
        _ => Ok(at + 1),
    }
}

/// The end of a number literal starting at `at`: digits, `_`, a fraction, an exponent, a suffix.
fn number_end(b: &[u8], at: usize) -> usize {
    let radix = b[at] == b'0' && matches!(b.get(at + 1), Some(b'x' | b'o' | b'b'));
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let mut seen_dot = false;
    let mut i = at + 1;
    loop {
        match b.get(i) {
            Some(&c) if c.is_ascii_alphanumeric() || c == b'_' => {
                i += 1;
                let exponent = !radix && matches!(c, b'e' | b'E');
                if exponent && matches!(b.get(i), Some(b'+' | b'-')) && digit(i + 1) {
                    i += 1;
                }
            }
            Some(b'.') if !radix && !seen_dot && digit(i + 1) => {
                seen_dot = true;
                i += 1;
            }
            _ => return i,
        }
    }
}

/// The end of a word (identifier or keyword) starting at `at`, and whether it nests; raw strings
/// (`r"..."`, `br#"..."#`, `cr".."`) and raw identifiers (`r#type`) are read whole.
fn word_end(text: &str, at: usize) -> Result<(usize, bool), ExprError> {
    let b = text.as_bytes();
    let i = ident_end(text, at);
    let word = &text[at..i];
    if matches!(word, "r" | "br" | "cr") && matches!(b.get(i), Some(b'"' | b'#')) {
        let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
        let quote = i + hashes;
        if b.get(quote) == Some(&b'"') {
            if hashes > MAX_RAW_HASHES {
                return Err(syntax(at, "a raw string has more than 255 `#`"));
            }
            return raw_string_end(b, quote + 1, hashes)
                .map(|end| (end, false))
                .ok_or_else(|| ExprError::Syntax {
                    at,
                    message: format!(
                        "unterminated raw string: the closing `\"{}` is missing",
                        "#".repeat(hashes)
                    ),
                });
        }
        if word == "r" && hashes == 1 {
            // A raw identifier: `r#type` is the name `type`, never a keyword.
            return Ok((ident_end(text, i + 1), false));
        }
    }
    Ok((i, NESTING_KEYWORDS.contains(&word)))
}

/// The end of the identifier starting at `at` (`at` itself when there is none).
fn ident_end(text: &str, at: usize) -> usize {
    let mut end = at;
    for (n, c) in text[at..].char_indices() {
        let part = if n == 0 {
            c == '_' || unicode_ident::is_xid_start(c)
        } else {
            unicode_ident::is_xid_continue(c)
        };
        if !part {
            break;
        }
        end = at + n + c.len_utf8();
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_error(text: &str) -> bool {
        matches!(check(text), Err(ExprError::Unsupported { what, .. }) if what == too_deep_message(MAX_DEPTH))
    }

    #[test]
    fn brackets_and_operators_inside_literals_and_comments_do_not_count() {
        let inside = "(".repeat(200);
        assert!(check(&format!("\"{inside}\"")).is_ok());
        assert!(check(&format!("\"\\\"{inside}\"")).is_ok());
        assert!(check(&format!("r#\"\"{inside}\"#")).is_ok());
        assert!(check(&format!("br\"{inside}\\\"")).is_ok());
        assert!(
            check(&format!(
                "'(' /* {inside} /* nested */ {inside} */ // {inside}"
            ))
            .is_ok()
        );
        assert!(check(&format!("'\\'' \"{}\"", "-".repeat(200))).is_ok());
        assert!(depth_error(&format!("\"x\" {inside}")));
    }

    #[test]
    fn siblings_do_not_add_up_but_chains_do() {
        let list = format!("vec![{}]", "-1.0, ".repeat(1000));
        assert!(check(&list).is_ok());
        let calls = format!("vec![{}]", "Vec::<f32>::new(), ".repeat(1000));
        assert!(check(&calls).is_ok());
        assert!(check(&format!("{}1.0", "-".repeat(MAX_DEPTH))).is_ok());
        assert!(depth_error(&format!("{}1.0", "-".repeat(MAX_DEPTH + 1))));
        assert!(depth_error(&format!("f{}", "()".repeat(MAX_DEPTH + 1))));
        assert!(depth_error(&format!("1{}", " as u8".repeat(MAX_DEPTH + 1))));
        assert!(depth_error(&format!(
            "f::<{}u8>()",
            "A<x, ".repeat(MAX_DEPTH + 1)
        )));
        assert!(depth_error(&format!("{}1", "if ".repeat(MAX_DEPTH + 1))));
        // Raw identifiers are names, not keywords.
        assert!(check(&format!("{}1", "r#if ".repeat(MAX_DEPTH + 1))).is_ok());
        assert!(depth_error(&"r#".repeat(100_000)));
    }

    #[test]
    fn numbers_are_read_whole() {
        assert!(check("1.0e-3f32 0x1e+2 1_000.5").is_ok());
        let long = "1".repeat(MAX_NUMBER_LEN + 1);
        assert!(matches!(
            check(&long),
            Err(ExprError::Unsupported { at: 0, .. })
        ));
        assert!(check(&"1".repeat(MAX_NUMBER_LEN)).is_ok());
    }

    #[test]
    fn lexical_errors_say_what_and_where() {
        let message = |text: &str| match check(text) {
            Err(ExprError::Syntax { at, message }) => (at, message),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(
            message("Some(\"abc)"),
            (5, "unterminated string: the closing `\"` is missing".into())
        );
        assert_eq!(
            message("1 + r##\"x\"#"),
            (
                4,
                "unterminated raw string: the closing `\"##` is missing".into()
            )
        );
        assert_eq!(
            message("1.0 /* x"),
            (
                4,
                "unterminated block comment: the closing `*/` is missing".into()
            )
        );
        assert_eq!(
            message("Vec3::new(１.0)"),
            (10, "the character `１` (U+FF11) cannot appear here".into())
        );
        assert_eq!(
            message("'\\u{41"),
            (
                0,
                "unterminated character literal: the closing `'` is missing".into()
            )
        );
        assert!(check("'a: loop {} b'x' c\"s\" 'é' ünïcödé").is_ok());
    }
}
