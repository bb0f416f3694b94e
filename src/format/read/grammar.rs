//! The reader's grammar, its shapes: structures of named fields in any order, sequences,
//! options, values skipped whole, and the small values (vectors, colours, id lists) every part
//! of the document is made of. The parts themselves are in `document`, `component` and `layer`.

use super::lex::is_ident_start;
use super::{PResult, Parser, Trail};
use crate::format::IdHasher;
use crate::format::error::{ReadErrorKind, closest};
use crate::format::source_map::Span;
use crate::format::value::{ColorData, Vec2Data, Vec3Data};

impl<'a> Parser<'a> {
    // ---- structure ---------------------------------------------------------------------------

    /// Reads `( field: value, ... )` with fields in any order. `on_field` gets the field's index
    /// in `fields` and the offset of its value. Returns the offset of `(` and the set of fields
    /// seen as a bit mask.
    pub(super) fn structure(
        &mut self,
        context: &'static str,
        fields: &'static [&'static str],
        mut on_field: impl FnMut(&mut Self, usize, usize) -> PResult<()>,
    ) -> PResult<(usize, u32)> {
        if self.lenient {
            return self.structure_lenient(context, fields, on_field);
        }
        let start = self.expect(b'(', "`(`")?;
        let mut seen = 0u32;
        // Canonical files list fields in declaration order: try the next one first.
        let mut next = 0usize;
        loop {
            self.skip_ws()?;
            if self.peek() == Some(b')') {
                self.pos += 1;
                return Ok((start, seen));
            }
            let name_at = self.pos;
            let Some(name) = self.ident() else {
                return self.unexpected("a field name or `)`");
            };
            let found = match fields.get(next) {
                Some(f) if *f == name => Some(next),
                _ => fields.iter().position(|f| *f == name),
            };
            let Some(i) = found else {
                if self.pos == self.b.len() {
                    return self.unexpected("`:` after a field name");
                }
                return self.fail(
                    name_at,
                    ReadErrorKind::UnknownField {
                        field: name.to_owned(),
                        context,
                        expected: fields,
                        suggestion: closest(name, fields),
                    },
                );
            };
            if seen & (1 << i) != 0 {
                return self.fail(
                    name_at,
                    ReadErrorKind::DuplicateField {
                        field: fields[i],
                        context,
                    },
                );
            }
            seen |= 1 << i;
            next = i + 1;
            self.expect(b':', "`:`").field(fields[i])?;
            self.skip_ws()?;
            let value_at = self.pos;
            on_field(self, i, value_at).field(fields[i])?;
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {}
                _ => return self.unexpected("`,` or `)`"),
            }
        }
    }

    /// Fails with "missing field" for the first field of `required` not in `seen`.
    pub(super) fn require(
        &self,
        at: usize,
        context: &'static str,
        fields: &'static [&'static str],
        seen: u32,
        required: u32,
    ) -> PResult<()> {
        let missing = required & !seen;
        if missing == 0 || self.lenient {
            return Ok(());
        }
        let field = fields[missing.trailing_zeros() as usize];
        self.fail(at, ReadErrorKind::MissingField { field, context })
    }

    /// [`require`](Self::require), except inside the `set` list of an override, where payload
    /// fields are optional.
    pub(super) fn require_unless_patching(
        &self,
        at: usize,
        context: &'static str,
        fields: &'static [&'static str],
        seen: u32,
        required: u32,
    ) -> PResult<()> {
        if self.patching {
            return Ok(());
        }
        self.require(at, context, fields, seen, required)
    }

    /// Reads `[ item, ... ]`, calling `item` with each element's index.
    pub(super) fn sequence(
        &mut self,
        mut item: impl FnMut(&mut Self, usize) -> PResult<()>,
    ) -> PResult<()> {
        if self.lenient {
            return self.sequence_lenient(item);
        }
        self.expect(b'[', "`[`")?;
        let mut i = 0;
        loop {
            self.skip_ws()?;
            if self.peek() == Some(b']') {
                self.pos += 1;
                return Ok(());
            }
            item(self, i).index(i)?;
            i += 1;
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {}
                _ => return self.unexpected("`,` or `]`"),
            }
        }
    }

    /// Reads `None` or `Some(value)`.
    pub(super) fn option<T>(
        &mut self,
        value: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<Option<T>> {
        self.skip_ws()?;
        let at = self.pos;
        match self.ident() {
            Some("None") => Ok(None),
            Some("Some") => {
                self.expect(b'(', "`(` after `Some`")?;
                let v = value(self)?;
                self.expect(b')', "`)` closing `Some(..)`")?;
                Ok(Some(v))
            }
            _ => {
                self.pos = at;
                self.unexpected("`None` or `Some(..)`")
            }
        }
    }

    /// Skips one value of any shape without interpreting it (used when `data` comes before
    /// `type`). Iterative, so depth cannot overflow the stack.
    pub(super) fn skip_value(&mut self) -> PResult<()> {
        let mut depth = 0usize;
        loop {
            self.skip_ws()?;
            let Some(c) = self.peek() else {
                return self.unexpected("a value");
            };
            match c {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    self.pos += 1;
                    continue;
                }
                b')' | b']' | b'}' => {
                    if depth == 0 {
                        return self.unexpected("a value");
                    }
                    depth -= 1;
                    self.pos += 1;
                }
                b',' | b':' if depth > 0 => {
                    self.pos += 1;
                    continue;
                }
                b'"' => {
                    self.string()?;
                }
                b'r' if matches!(self.b.get(self.pos + 1), Some(b'"' | b'#')) => {
                    self.string()?;
                }
                c if is_ident_start(c) => {
                    self.ident();
                    self.skip_ws()?;
                    if self.peek() == Some(b'(') {
                        continue;
                    }
                }
                c if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.') => {
                    self.number_token();
                }
                _ => return self.unexpected("a value"),
            }
            if depth == 0 {
                return Ok(());
            }
        }
    }

    // ---- format values ---------------------------------------------------------------------------

    pub(super) fn floats<const N: usize>(
        &mut self,
        context: &'static str,
        names: &'static [&'static str; N],
        mut offsets: Option<&mut [Span]>,
    ) -> PResult<[f32; N]> {
        let mut v = [0.0f32; N];
        let (start, seen) = self.structure(context, names, |p, i, at| {
            v[i] = p.f32()?;
            if let Some(o) = offsets.as_deref_mut() {
                o[i] = p.span(at);
            }
            Ok(())
        })?;
        self.require(start, context, names, seen, all(N))?;
        Ok(v)
    }

    pub(super) fn vec2(&mut self) -> PResult<Vec2Data> {
        let [x, y] = self.floats("vector", &XY, None)?;
        Ok(Vec2Data { x, y })
    }

    pub(super) fn vec3(&mut self, offsets: Option<&mut [Span]>) -> PResult<Vec3Data> {
        let [x, y, z] = self.floats("vector", &XYZ, offsets)?;
        Ok(Vec3Data { x, y, z })
    }

    pub(super) fn color(&mut self) -> PResult<ColorData> {
        let [r, g, b, a] = self.floats("color", &RGBA, None)?;
        Ok(ColorData { r, g, b, a })
    }

    pub(super) fn id_list(&mut self) -> PResult<Vec<u64>> {
        let mut out = Vec::new();
        self.sequence(|p, _| {
            out.push(p.id()?);
            Ok(())
        })?;
        out.shrink_to_fit();
        Ok(out)
    }
}

const XY: [&str; 2] = ["x", "y"];
const XYZ: [&str; 3] = ["x", "y", "z"];
const RGBA: [&str; 4] = ["r", "g", "b", "a"];

pub(super) fn all(n: usize) -> u32 {
    (1u32 << n) - 1
}

/// The hash of an entity entry's text ([`EntitySpans::text_hash`]).
pub(super) fn text_hash(text: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    IdHasher::default().hash_one(text)
}
