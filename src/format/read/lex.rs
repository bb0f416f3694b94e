//! The reader's lexing: whitespace and comments, identifiers, numbers, strings with their
//! escapes, raw strings. Everything that turns bytes into one token, recording each newline it
//! crosses.

use std::borrow::Cow;

use super::{PErr, PResult, Parser};
use crate::format::component::EcoString;
use crate::format::error::{ReadErrorKind, closest};

/// Strings up to this many bytes are kept inline ([`EcoString`]).
const INLINE_STRING: usize = EcoString::INLINE_LIMIT;

impl<'a> Parser<'a> {
    // ---- lexing ----------------------------------------------------------------------------

    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// Skips whitespace and comments. Inlined check first: most calls are already at a token.
    #[inline(always)]
    pub(super) fn skip_ws(&mut self) -> PResult<()> {
        match self.b.get(self.pos) {
            Some(&c) if c > b' ' && c != b'/' => Ok(()),
            None => Ok(()),
            _ => self.skip_ws_slow(),
        }
    }

    #[inline(never)]
    pub(super) fn skip_ws_slow(&mut self) -> PResult<()> {
        let b = self.b;
        let mut i = self.pos;
        const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
        loop {
            // Indentation comes in runs of spaces: skip up to eight at a time, the length of a
            // run read from the first byte of the word that is not a space.
            while let Some(Ok(word)) = b.get(i..i + 8).map(<[u8; 8]>::try_from) {
                let other = u64::from_le_bytes(word) ^ SPACES;
                if other != 0 {
                    i += (other.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            match b.get(i) {
                Some(b' ' | b'\r' | b'\t') => i += 1,
                Some(b'\n') => {
                    self.newline(i);
                    i += 1;
                }
                Some(b'/') => {
                    self.pos = i;
                    self.comment()?;
                    i = self.pos;
                }
                _ => {
                    self.pos = i;
                    return Ok(());
                }
            }
        }
    }

    pub(super) fn comment(&mut self) -> PResult<()> {
        let start = self.pos;
        match self.b.get(start + 1) {
            Some(b'/') => {
                self.pos = match memchr::memchr(b'\n', &self.b[start..]) {
                    Some(i) => {
                        self.newline(start + i);
                        start + i + 1
                    }
                    None => self.b.len(),
                };
                Ok(())
            }
            Some(b'*') => {
                // Block comments nest, as in RON (and Rust: the expression scanner's rule).
                let Some(end) = crate::format::lexical::block_comment_end(self.b, start) else {
                    return self.fail(start, ReadErrorKind::UnterminatedComment);
                };
                for nl in memchr::memchr_iter(b'\n', &self.b[start..end]) {
                    self.newline(start + nl);
                }
                // A merge conflict marker (`/* forge-merge: .. */`): reported, as comments go
                // (block comments are rare in scenes, so this costs a read nothing).
                let prefix = crate::format::marker::PREFIX.as_bytes();
                if self.b[start..end].starts_with(prefix) {
                    let body = &self.b[start + prefix.len()..end - 2];
                    let note = String::from_utf8_lossy(body).trim().to_owned();
                    let at = self.base + start;
                    self.tables
                        .warnings
                        .push((at, super::ReadWarningKind::MergeConflict { note }));
                }
                self.pos = end;
                Ok(())
            }
            _ => self.unexpected("a value or a comment"),
        }
    }

    /// Skips whitespace, then consumes `byte` or fails with `expected`.
    pub(super) fn expect(&mut self, byte: u8, expected: &'static str) -> PResult<usize> {
        self.skip_ws()?;
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(self.pos - 1)
        } else {
            self.unexpected(expected)
        }
    }

    /// Consumes an identifier at the current position, if there is one.
    pub(super) fn ident(&mut self) -> Option<&'a str> {
        let start = self.pos;
        if !self.peek().is_some_and(is_ident_start) {
            return None;
        }
        let mut end = start + 1;
        while end < self.b.len() && is_ident_continue(self.b[end]) {
            end += 1;
        }
        // `r"..."` and `r#"..."#` are raw strings, not identifiers.
        if end == start + 1 && self.b[start] == b'r' && matches!(self.b.get(end), Some(b'"' | b'#'))
        {
            return None;
        }
        self.pos = end;
        Some(&self.text[start..end])
    }

    // ---- scalars -------------------------------------------------------------------------------

    pub(super) fn number_token(&mut self) -> &'a str {
        let start = self.pos;
        let mut i = start;
        if matches!(self.b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        while let Some(&c) = self.b.get(i) {
            let sign_after_exponent =
                matches!(c, b'-' | b'+') && matches!(self.b.get(i - 1), Some(b'e' | b'E'));
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || sign_after_exponent {
                i += 1;
            } else {
                break;
            }
        }
        self.pos = i;
        &self.text[start..i]
    }

    pub(super) fn u64(
        &mut self,
        expected: &'static str,
        ty: &'static str,
        max: u64,
    ) -> PResult<u64> {
        self.skip_ws()?;
        let at = self.pos;
        if !self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'+') {
            return self.unexpected(expected);
        }
        let token = self.number_token();
        let digits = token.strip_prefix('+').unwrap_or(token);
        let mut value: u64 = 0;
        let mut overflow = false;
        for (i, c) in digits.bytes().enumerate() {
            match c {
                b'0'..=b'9' => {
                    match value
                        .checked_mul(10)
                        .and_then(|v| v.checked_add(u64::from(c - b'0')))
                    {
                        Some(v) => value = v,
                        None => overflow = true,
                    }
                }
                b'_' if i > 0 => {}
                _ => {
                    self.pos = at;
                    return self.unexpected(expected);
                }
            }
        }
        if digits.is_empty() {
            self.pos = at;
            return self.unexpected(expected);
        }
        if overflow || value > max {
            return self.fail(
                at,
                ReadErrorKind::IntegerOutOfRange {
                    found: token.to_owned(),
                    ty,
                },
            );
        }
        Ok(value)
    }

    pub(super) fn id(&mut self) -> PResult<u64> {
        self.u64("an entity id (an unsigned integer)", "u64", u64::MAX)
    }

    pub(super) fn f32(&mut self) -> PResult<f32> {
        self.skip_ws()?;
        let at = self.pos;
        let starts_number = self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'i' | b'N'));
        if !starts_number {
            return self.unexpected("a number");
        }
        let token = self.number_token();
        match parse_f32(token) {
            Ok(v) => Ok(v),
            Err(reason) => {
                if token.starts_with(['i', 'N']) {
                    self.pos = at;
                    return self.unexpected("a number");
                }
                self.fail(
                    at,
                    ReadErrorKind::InvalidNumber {
                        found: token.to_owned(),
                        reason,
                    },
                )
            }
        }
    }

    pub(super) fn bool(&mut self) -> PResult<bool> {
        self.skip_ws()?;
        let at = self.pos;
        match self.ident() {
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            _ => {
                self.pos = at;
                self.unexpected("`true` or `false`")
            }
        }
    }

    pub(super) fn string(&mut self) -> PResult<String> {
        self.str_value().map(Cow::into_owned)
    }

    /// A string as an [`EcoString`]: no allocation up to [`EcoString::INLINE_LIMIT`] bytes (15
    /// on 64-bit targets). Longer strings seen before
    /// (type paths and field names repeat from entity to entity) share one allocation.
    pub(super) fn small_string(&mut self) -> PResult<EcoString> {
        let value = self.str_value()?;
        if value.len() <= INLINE_STRING {
            return Ok(EcoString::from(&*value));
        }
        let known = &mut self.tables.long_strings;
        if let Some(s) = known.iter().find(|s| **s == *value) {
            return Ok(s.clone());
        }
        let s = EcoString::from(&*value);
        if known.len() == 16 {
            known.remove(0);
        }
        known.push(s.clone());
        Ok(s)
    }

    /// A quoted or raw string, borrowed from the text when it has no escapes.
    pub(super) fn str_value(&mut self) -> PResult<Cow<'a, str>> {
        self.skip_ws()?;
        let at = self.pos;
        match self.peek() {
            Some(b'"') => self.quoted_string(at),
            Some(b'r') if matches!(self.b.get(at + 1), Some(b'"' | b'#')) => self.raw_string(at),
            _ => self.unexpected("a string"),
        }
    }

    pub(super) fn quoted_string(&mut self, at: usize) -> PResult<Cow<'a, str>> {
        let start = at + 1;
        // `i` starts the text not yet copied, `search` where to look for the next stop.
        let mut i = start;
        let mut search = start;
        let mut out: Option<String> = None;
        loop {
            let Some(rel) = memchr::memchr3(b'"', b'\\', b'\n', &self.b[search..]) else {
                return self.fail(at, ReadErrorKind::UnterminatedString);
            };
            let stop = search + rel;
            if self.b[stop] == b'\n' {
                self.newline(stop);
                search = stop + 1;
                continue;
            }
            if self.b[stop] == b'"' {
                self.pos = stop + 1;
                return Ok(match out {
                    None => Cow::Borrowed(&self.text[start..stop]),
                    Some(mut s) => {
                        s.push_str(&self.text[i..stop]);
                        Cow::Owned(s)
                    }
                });
            }
            let s = out.get_or_insert_with(String::new);
            s.push_str(&self.text[i..stop]);
            let (ch, len) = self.escape(stop)?;
            s.push(ch);
            i = stop + len;
            search = i;
        }
    }

    /// Decodes the escape starting at the backslash at `at`: the character and the escape's
    /// length in bytes.
    pub(super) fn escape(&self, at: usize) -> PResult<(char, usize)> {
        let bad = |reason| {
            Err(Box::new(PErr {
                offset: at,
                kind: ReadErrorKind::InvalidEscape { reason },
                segs: Vec::new(),
                entity: None,
            }))
        };
        let Some(&c) = self.b.get(at + 1) else {
            return self.fail(at, ReadErrorKind::UnterminatedString);
        };
        let simple = match c {
            b'"' => '"',
            b'\'' => '\'',
            b'\\' => '\\',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'0' => '\0',
            b'x' => {
                let hex = self.b.get(at + 2..at + 4);
                let Some(value) = hex.and_then(|h| {
                    std::str::from_utf8(h)
                        .ok()
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                }) else {
                    return bad("`\\x` needs two hexadecimal digits");
                };
                if value > 0x7f {
                    return bad("`\\x` escapes in strings must be ASCII (at most `\\x7F`)");
                }
                return Ok((char::from(value), 4));
            }
            b'u' => {
                if self.b.get(at + 2) != Some(&b'{') {
                    return bad("write unicode escapes as `\\u{XXXX}`");
                }
                let digits_start = at + 3;
                let Some(close) = self.b[digits_start..]
                    .iter()
                    .take(7)
                    .position(|&b| b == b'}')
                else {
                    return bad("`\\u{` needs 1 to 6 hexadecimal digits and a closing `}`");
                };
                let digits = &self.text[digits_start..digits_start + close];
                let Some(ch) = u32::from_str_radix(digits, 16)
                    .ok()
                    .filter(|_| !digits.is_empty() && !digits.starts_with(['+', '-']))
                    .and_then(char::from_u32)
                else {
                    return bad("not a valid unicode scalar value");
                };
                return Ok((ch, 3 + close + 1));
            }
            _ => {
                return bad(
                    "unknown escape; known are \\n \\r \\t \\0 \\\\ \\\" \\' \\xHH \\u{..}",
                );
            }
        };
        Ok((simple, 2))
    }

    pub(super) fn raw_string(&mut self, at: usize) -> PResult<Cow<'a, str>> {
        let mut i = at + 1;
        let mut hashes = 0;
        while self.b.get(i) == Some(&b'#') {
            hashes += 1;
            i += 1;
        }
        if self.b.get(i) != Some(&b'"') {
            return self.unexpected("a string");
        }
        let start = i + 1;
        let mut search = start;
        loop {
            let Some(rel) = memchr::memchr2(b'"', b'\n', &self.b[search..]) else {
                return self.fail(at, ReadErrorKind::UnterminatedString);
            };
            let quote = search + rel;
            if self.b[quote] == b'\n' {
                self.newline(quote);
                search = quote + 1;
                continue;
            }
            let closing = &self.b[quote + 1..];
            if closing.len() >= hashes && closing[..hashes].iter().all(|&b| b == b'#') {
                self.pos = quote + 1 + hashes;
                return Ok(Cow::Borrowed(&self.text[start..quote]));
            }
            search = quote + 1;
        }
    }

    /// Reads a tag (`type: sprite`): a bare identifier among `known`.
    pub(super) fn tag(
        &mut self,
        field: &'static str,
        what: &'static str,
        known: &'static [&'static str],
    ) -> PResult<usize> {
        self.skip_ws()?;
        let at = self.pos;
        if matches!(self.peek(), Some(b'"'))
            || (self.peek() == Some(b'r') && matches!(self.b.get(at + 1), Some(b'"' | b'#')))
        {
            let tag = self.string()?;
            return self.fail(at, ReadErrorKind::TagAsString { field, tag });
        }
        let Some(name) = self.ident() else {
            return self.unexpected(what_expected(what));
        };
        match known.iter().position(|k| *k == name) {
            Some(i) => Ok(i),
            None if self.pos == self.b.len() => self.unexpected(what_expected(what)),
            None => self.fail(
                at,
                ReadErrorKind::UnknownVariant {
                    what,
                    found: name.to_owned(),
                    expected: known,
                    suggestion: closest(name, known),
                },
            ),
        }
    }
}

/// `[-]digits.digits` with at most 7 significant digits, exactly: the digits as an integer below
/// 2^24 and the power of ten (at most 10^10) are both exact `f32`s, so one division rounds the
/// exact quotient once, which is the correctly rounded value (Clinger's fast path). Transforms
/// and colours are mostly written like this; everything else goes to the full parser.
pub(super) fn short_decimal_f32(token: &str) -> Option<f32> {
    const POWERS: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];
    let bytes = token.as_bytes();
    let (negative, body) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    let dot = body.iter().position(|b| *b == b'.')?;
    let (int, frac) = (&body[..dot], &body[dot + 1..]);
    if int.is_empty() || frac.is_empty() || frac.len() >= POWERS.len() {
        return None;
    }
    let mut mantissa = 0u32;
    let mut significant = 0;
    for &b in int.iter().chain(frac) {
        if !b.is_ascii_digit() {
            return None;
        }
        if mantissa > 0 || b != b'0' {
            significant += 1;
        }
        mantissa = mantissa * 10 + u32::from(b - b'0');
        if significant > 7 {
            return None;
        }
    }
    let magnitude = mantissa as f32 / POWERS[frac.len()];
    Some(if negative { -magnitude } else { magnitude })
}

pub(super) fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

pub(super) fn is_ident_continue(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Parses a RON float literal: optional sign, digits with `_` separators, fraction, exponent,
/// an optional `f32`/`f64` suffix, or `inf` / `NaN`. Integers are accepted (`1` is `1.0`).
pub(crate) fn parse_f32(token: &str) -> Result<f32, &'static str> {
    if let Some(v) = short_decimal_f32(token) {
        return Ok(v);
    }
    let (negative, body) = match token.as_bytes().first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    let body = body
        .strip_suffix("f32")
        .or_else(|| body.strip_suffix("f64"))
        .filter(|b| !b.is_empty() && !b.ends_with(['e', 'E']))
        .unwrap_or(body);
    let magnitude = match body {
        "inf" => f32::INFINITY,
        "NaN" => f32::NAN,
        _ => {
            let bytes = body.as_bytes();
            if !bytes
                .first()
                .is_some_and(|c| c.is_ascii_digit() || *c == b'.')
            {
                return Err("expected a number");
            }
            let mut digits = 0;
            let mut prev = 0u8;
            for &c in bytes {
                match c {
                    b'0'..=b'9' => digits += 1,
                    b'_' if prev.is_ascii_digit() || prev == b'_' => {}
                    b'.' | b'e' | b'E' | b'+' | b'-' => {}
                    b'_' => return Err("`_` may only follow a digit"),
                    _ => return Err("not a decimal number"),
                }
                prev = c;
            }
            if digits == 0 {
                return Err("a number needs at least one digit");
            }
            let parsed = if body.contains('_') {
                body.replace('_', "").parse::<f32>()
            } else {
                body.parse::<f32>()
            };
            parsed.map_err(|_| "not a decimal number")?
        }
    };
    Ok(if negative { -magnitude } else { magnitude })
}

pub(super) fn what_expected(what: &'static str) -> &'static str {
    match what {
        "component type" => "a component type (a bare identifier such as `sprite`)",
        "visibility mode" => "a visibility mode (`inherited`, `visible` or `hidden`)",
        "mesh source" => "a mesh source (`primitive` or `asset`)",
        "primitive shape" => "a primitive shape such as `cuboid(size: ..)`",
        _ => "an identifier",
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_f32, short_decimal_f32};

    proptest::proptest! {
        /// The short-decimal fast path gives exactly the standard library's value, or declines.
        #[test]
        fn short_decimals_are_exact(
            int in 0u32..100_000,
            frac in 0u64..10_000_000_000,
            frac_digits in 1usize..12,
            leading_zeros in 0usize..3,
            negative in proptest::bool::ANY,
        ) {
            let frac = format!("{frac:0width$}", width = frac_digits);
            let frac = &frac[frac.len() - frac_digits..];
            let token = format!(
                "{}{}{int}.{frac}",
                if negative { "-" } else { "" },
                "0".repeat(leading_zeros)
            );
            let expected = token.parse::<f32>().map(f32::to_bits).ok();
            if let Some(fast) = short_decimal_f32(&token) {
                proptest::prop_assert_eq!(Some(fast.to_bits()), expected, "{}", token);
            }
            proptest::prop_assert_eq!(parse_f32(&token).map(f32::to_bits).ok(), expected);
        }
    }

    #[test]
    fn short_decimals_take_the_fast_path_only_when_exact() {
        assert_eq!(
            short_decimal_f32("12.5").map(f32::to_bits),
            Some(12.5f32.to_bits())
        );
        assert_eq!(
            short_decimal_f32("-0.0").map(f32::to_bits),
            Some((-0.0f32).to_bits())
        );
        for declined in [
            "1",
            "1.",
            ".5",
            "1e3",
            "1.5f32",
            "+1.0",
            "1_0.5",
            "12345678.9",
            "0.12345678901",
        ] {
            assert_eq!(short_decimal_f32(declined), None, "{declined}");
        }
    }

    #[test]
    fn float_literals_follow_ron() {
        assert_eq!(parse_f32("1"), Ok(1.0));
        assert_eq!(parse_f32("-0.5"), Ok(-0.5));
        assert_eq!(parse_f32("1e3"), Ok(1000.0));
        assert_eq!(parse_f32("2.5E-1"), Ok(0.25));
        assert_eq!(parse_f32("1_000.5"), Ok(1000.5));
        assert_eq!(parse_f32("2.0f32"), Ok(2.0));
        assert_eq!(parse_f32("-inf"), Ok(f32::NEG_INFINITY));
        assert!(parse_f32("NaN").is_ok_and(f32::is_nan));
        assert!(parse_f32("-0.0").is_ok_and(|v| v == 0.0 && v.is_sign_negative()));
        assert!(parse_f32("1e").is_err());
        assert!(parse_f32("_1").is_err());
        assert!(parse_f32("0x10").is_err());
        assert!(parse_f32("infinity").is_err());
        assert!(parse_f32("nan").is_err());
        assert!(parse_f32("1.2.3").is_err());
    }
}
