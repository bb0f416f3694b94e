//! Reading past errors ([`SceneDoc::from_str_recovering`](crate::format::SceneDoc::from_str_recovering)),
//! for an editor, whose text is broken most of the time it is being typed.
//!
//! Each entity entry and each top-level field is read as [`SceneDoc::from_str`] reads it; when
//! one fails, its error is kept and it is read again leniently: a structure or a list skips what
//! does not read (an unknown field with its value, a value of the wrong shape, a list item) and
//! goes on at the next `,`; a structure not closed ends where an outer one's field, the next
//! entity entry (`7: (`) or a top-level field (`roots:`) starts; missing fields take their
//! defaults. What reads keeps its spans. An entry that cannot be read even so (its key does not
//! read, or is taken) is skipped whole. So one problem gives one error however much it breaks
//! its entry, and the errors that follow from it (the missing `,` after an entry not closed,
//! the end of the text after an unclosed string) are not reported.
//!
//! [`SceneDoc::from_str`]: crate::format::SceneDoc::from_str

use super::grammar::all;
use super::{PErr, PResult, ParsedScene, Parser, Seg, Tables, Top};
use crate::format::error::{ReadError, ReadErrorKind, closest};
use crate::format::lexical::{TokenKind, tokens};
use crate::format::source_map::{EntitySpans, LineIndex, SourceMap, Span, TOP_FIELDS};
use crate::format::{EntityMap, FORMAT_VERSION, IdHasher, SceneDoc};

/// A read of text that went on past its errors: what read, and every problem met
/// ([`SceneDoc::from_str_recovering`](crate::format::SceneDoc::from_str_recovering)).
#[derive(Debug, Clone, PartialEq)]
pub struct Recovered {
    /// What read: every entity entry and top-level field that reads, the parts of a broken
    /// entry that read, with their spans; fields that did not read at their defaults (an empty
    /// name, an identity transform, no components). Without errors, exactly what
    /// [`SceneDoc::from_str`](crate::format::SceneDoc::from_str) gives.
    pub parsed: ParsedScene,
    /// The problems, in text order, each once: the first is the error
    /// [`SceneDoc::from_str`](crate::format::SceneDoc::from_str) gives; then at most one per
    /// entity entry and per top-level field. Empty when the text reads.
    pub errors: Vec<ReadError>,
}

/// The errors met while reading past them.
#[derive(Default)]
pub(super) struct Recovery {
    errors: Vec<PErr>,
    /// Inside an entry or field whose error is kept: what else goes wrong there follows from it.
    muted: bool,
}

/// The top-level fields that no other part of the document has: where one starts, whatever was
/// being read before it was not closed.
const TOP_ONLY: [&str; 5] = ["format_version", "entities", "roots", "next_id", "layers"];

/// Where skipping a value stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// At a `,` of the level the value is in.
    Comma,
    /// At a closing bracket of that level (or a stray one).
    Close,
    /// At something that starts a new part: an entity entry, a top-level field, a field of the
    /// structure being read.
    Next,
    /// At the end of the text.
    End,
}

/// Reads `text` past its errors. See [`Recovered`].
pub(crate) fn read_recovering(text: &str) -> Recovered {
    let text = match super::readable_text(text) {
        Ok(text) => text,
        Err(error) => {
            return Recovered {
                parsed: ParsedScene {
                    doc: SceneDoc::new(""),
                    source_map: SourceMap::default(),
                    warnings: Vec::new(),
                },
                errors: vec![error],
            };
        }
    };
    let mut parser = Parser::new(text, 0, Tables::new(text.len()));
    parser.rec = Some(Box::default());
    let mut map = SourceMap::default();
    let doc = parser.document_recovering(&mut map);
    let lines = LineIndex::new(text);
    let errors = parser.rec.take().map(|r| r.errors).unwrap_or_default();
    let mut errors: Vec<ReadError> = errors.into_iter().map(|e| e.finish(&lines)).collect();
    if !errors.is_empty()
        && let Some(git) = super::git_conflict(text)
    {
        // Git's conflict markers: that one error says what is wrong with the text.
        errors = vec![git];
    }
    Recovered {
        parsed: parser.tables.finish_with(doc, map, lines),
        errors,
    }
}

impl Parser<'_> {
    /// Keeps `error` as a problem of the text, unless it follows from one kept before: inside an
    /// entry whose error is kept, at or before the place of the last one, or at the end of the
    /// text after any. Dropped when not reading past errors.
    pub(super) fn tolerate(&mut self, error: PErr) {
        let len = self.b.len();
        let Some(rec) = &mut self.rec else {
            return;
        };
        let follows = rec.muted
            || rec
                .errors
                .last()
                .is_some_and(|last| last.offset >= error.offset)
            || (error.offset >= len && !rec.errors.is_empty());
        if !follows {
            rec.errors.push(error);
        }
    }

    fn errors_kept(&self) -> usize {
        self.rec.as_ref().map_or(0, |r| r.errors.len())
    }

    /// Runs `read` leniently with its errors dropped: the part it reads has its error kept.
    fn muted<T>(&mut self, read: impl FnOnce(&mut Self) -> T) -> T {
        let lenient = std::mem::replace(&mut self.lenient, true);
        let muted = self
            .rec
            .as_mut()
            .map(|r| std::mem::replace(&mut r.muted, true));
        let out = read(self);
        self.lenient = lenient;
        if let (Some(rec), Some(muted)) = (&mut self.rec, muted) {
            rec.muted = muted;
        }
        out
    }

    /// Runs `read` as the strict reader does (nothing skipped).
    fn strictly<T>(&mut self, read: impl FnOnce(&mut Self) -> T) -> T {
        let lenient = std::mem::replace(&mut self.lenient, false);
        let out = read(self);
        self.lenient = lenient;
        out
    }

    // ---- what starts a new part ---------------------------------------------------------------

    /// The significant tokens from `at`: their kinds and texts.
    fn significant(&self, at: usize) -> impl Iterator<Item = (TokenKind, &str)> + '_ {
        let text = self.text.get(at..).unwrap_or_default();
        tokens(text)
            .filter(|t| !t.is_trivia())
            .map(move |t| (t.kind, &text[t.range]))
    }

    /// Whether an entity entry (`7: (`) starts at `at`.
    fn entry_starts(&self, at: usize) -> bool {
        let mut t = self.significant(at);
        matches!(t.next(), Some((TokenKind::Number, n)) if n.bytes().all(|b| b.is_ascii_digit() || b == b'_'))
            && matches!(t.next(), Some((TokenKind::Punct, ":")))
            && matches!(t.next(), Some((TokenKind::Punct, "(")))
    }

    /// Whether field `name:` starts at `at`, `name` one of `names`.
    fn field_starts(&self, at: usize, names: &[&str]) -> bool {
        let mut t = self.significant(at);
        matches!(t.next(), Some((TokenKind::Ident, n)) if names.contains(&n))
            && matches!(t.next(), Some((TokenKind::Punct, ":")))
    }

    /// Whether a new entity entry or a top-level field starts at the current position: what was
    /// being read there was not closed.
    fn at_boundary(&self) -> bool {
        self.entry_starts(self.pos) || self.field_starts(self.pos, &TOP_ONLY)
    }

    /// Skips the value starting at `from` (whatever its shape, brackets balanced as written) to
    /// where the level it is in goes on: a `,` or closing bracket of that level, or a new part
    /// (an entity entry, a top-level field, a field `own:` of the structure it is in, at any
    /// depth, as when the value's brackets are not closed).
    fn skip_to_boundary(&mut self, from: usize, own: &[&str]) -> Stop {
        let text = self.text.get(from..).unwrap_or_default();
        let mut depth = 0usize;
        for t in tokens(text) {
            let at = from + t.range.start;
            let stop = match t.kind {
                TokenKind::String { closed: false } | TokenKind::Comment { closed: false } => {
                    break;
                }
                TokenKind::Punct => match text.as_bytes()[t.range.start] {
                    b'(' | b'[' | b'{' => {
                        depth += 1;
                        None
                    }
                    b')' | b']' | b'}' if depth == 0 => Some(Stop::Close),
                    b')' | b']' | b'}' => {
                        depth -= 1;
                        None
                    }
                    b',' if depth == 0 => Some(Stop::Comma),
                    _ => None,
                },
                TokenKind::Number if self.entry_starts(at) => Some(Stop::Next),
                TokenKind::Ident
                    if self.field_starts(at, &TOP_ONLY) || self.field_starts(at, own) =>
                {
                    Some(Stop::Next)
                }
                _ => None,
            };
            if let Some(stop) = stop {
                self.pos = at;
                return stop;
            }
        }
        self.pos = self.b.len();
        Stop::End
    }

    /// Skips the rest of the entity entry starting at `at` (its key did not read, or is taken):
    /// to after its `,`, or to the `}` closing the map, the next entry or a top-level field.
    fn skip_entry(&mut self, at: usize) {
        let text = self.text.get(at..).unwrap_or_default();
        let mut depth = 0usize;
        // The first token is the entry's own start.
        let mut all = tokens(text).skip_while(|t| t.is_trivia()).skip(1);
        for t in all.by_ref() {
            let here = at + t.range.start;
            match t.kind {
                TokenKind::String { closed: false } | TokenKind::Comment { closed: false } => {
                    break;
                }
                TokenKind::Punct => match text.as_bytes()[t.range.start] {
                    b'(' | b'[' | b'{' => depth += 1,
                    b'}' if depth == 0 => {
                        self.pos = here;
                        return;
                    }
                    b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                    b',' if depth == 0 => {
                        self.pos = here + 1;
                        return;
                    }
                    _ => {}
                },
                TokenKind::Number | TokenKind::Ident
                    if self.entry_starts(here) || self.field_starts(here, &TOP_ONLY) =>
                {
                    self.pos = here;
                    return;
                }
                _ => {}
            }
        }
        self.pos = self.b.len();
    }

    /// The offset just past the last token before `at` that is not whitespace or a `,` (a span
    /// of a part that was not closed ends there, not at what follows).
    fn trimmed(&self, from: usize, at: usize) -> usize {
        let text = &self.text[from..at.max(from)];
        from + text
            .trim_end_matches(|c: char| c.is_whitespace() || c == ',')
            .len()
    }

    // ---- lenient shapes ------------------------------------------------------------------------

    /// [`structure`](Self::structure), skipping what does not read (see the module docs). Each
    /// problem is [tolerated](Self::tolerate) as the strict reader would report it.
    pub(super) fn structure_lenient(
        &mut self,
        context: &'static str,
        fields: &'static [&'static str],
        on_field: impl FnMut(&mut Self, usize, usize) -> PResult<()>,
    ) -> PResult<(usize, u32)> {
        let start = self.expect(b'(', "`(`")?;
        self.open.push(fields);
        let seen = self.fields_lenient(context, fields, on_field);
        self.open.pop();
        Ok((start, seen))
    }

    fn fields_lenient(
        &mut self,
        context: &'static str,
        fields: &'static [&'static str],
        mut on_field: impl FnMut(&mut Self, usize, usize) -> PResult<()>,
    ) -> u32 {
        let mut seen = 0u32;
        let mut next = 0usize;
        loop {
            if let Err(e) = self.skip_ws() {
                self.tolerate(*e);
                self.pos = self.b.len();
                return seen;
            }
            match self.peek() {
                Some(b')') => {
                    self.pos += 1;
                    return seen;
                }
                None | Some(b']' | b'}') => {
                    if let Err(e) = self.unexpected::<()>("a field name or `)`") {
                        self.tolerate(*e);
                    }
                    return seen;
                }
                Some(b',') => {
                    if let Err(e) = self.unexpected::<()>("a field name or `)`") {
                        self.tolerate(*e);
                    }
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            let name_at = self.pos;
            let name = if self.at_boundary() && self.open.len() > 1 {
                None
            } else {
                self.ident()
            };
            let Some(name) = name else {
                if let Err(e) = self.unexpected::<()>("a field name or `)`") {
                    self.tolerate(*e);
                }
                if self.at_boundary() && self.open.len() > 1 {
                    return seen;
                }
                match self.skip_to_boundary(name_at, fields) {
                    Stop::Comma => self.pos += 1,
                    // Nothing skipped: an entry outside the entity map, at the top.
                    _ if self.pos == name_at && self.open.len() > 1 => return seen,
                    _ if self.pos == name_at => self.skip_entry(name_at),
                    _ => {}
                }
                continue;
            };
            let found = match fields.get(next) {
                Some(f) if *f == name => Some(next),
                _ => fields.iter().position(|f| *f == name),
            };
            let i = match found {
                None if self.pos == self.b.len() => {
                    if let Err(e) = self.unexpected::<()>("`:` after a field name") {
                        self.tolerate(*e);
                    }
                    return seen;
                }
                None => {
                    let e = self.fail::<()>(
                        name_at,
                        ReadErrorKind::UnknownField {
                            field: name.to_owned(),
                            context,
                            expected: fields,
                            suggestion: closest(name, fields),
                        },
                    );
                    if let Err(e) = e {
                        self.tolerate(*e);
                    }
                    // A field of a structure this one is inside: this one was not closed.
                    let outer = self.open.len().saturating_sub(1);
                    if self.open[..outer].iter().any(|f| f.contains(&name))
                        && self.field_starts(name_at, &[name])
                    {
                        self.pos = name_at;
                        return seen;
                    }
                    self.skip_field_value(fields);
                    continue;
                }
                Some(i) if seen & (1 << i) != 0 => {
                    let e = self.fail::<()>(
                        name_at,
                        ReadErrorKind::DuplicateField {
                            field: fields[i],
                            context,
                        },
                    );
                    if let Err(e) = e {
                        self.tolerate(*e);
                    }
                    self.skip_field_value(fields);
                    continue;
                }
                Some(i) => i,
            };
            seen |= 1 << i;
            next = i + 1;
            if let Err(mut e) = self.expect(b':', "`:`") {
                e.segs.push(Seg::Field(fields[i]));
                self.tolerate(*e);
            }
            if let Err(e) = self.skip_ws() {
                self.tolerate(*e);
                self.pos = self.b.len();
                return seen;
            }
            let value_at = self.pos;
            let kept = self.errors_kept();
            if let Err(mut e) = on_field(self, i, value_at) {
                if e.entity.is_none() {
                    e.segs.push(Seg::Field(fields[i]));
                }
                self.tolerate(*e);
                // Where the value's brackets are not closed, a field not read yet ends it.
                let unseen: Vec<&str> = (0..fields.len())
                    .filter(|k| seen & (1 << k) == 0)
                    .map(|k| fields[k])
                    .collect();
                if self.skip_to_boundary(value_at, &unseen) == Stop::Comma {
                    self.pos += 1;
                }
                continue;
            }
            if let Err(e) = self.skip_ws() {
                self.tolerate(*e);
                self.pos = self.b.len();
                return seen;
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {}
                // Read on as if the `,` were there (after a value whose error is kept, the `,`
                // is part of the same problem).
                _ if self.errors_kept() > kept => {}
                _ => {
                    if let Err(e) = self.unexpected::<()>("`,` or `)`") {
                        self.tolerate(*e);
                    }
                }
            }
        }
    }

    /// After a field name that is not taken: its `:` and value skipped.
    fn skip_field_value(&mut self, fields: &[&str]) {
        let _ = self.skip_ws();
        if self.peek() == Some(b':') {
            self.pos += 1;
        }
        let _ = self.skip_ws();
        let at = self.pos;
        if self.skip_to_boundary(at, fields) == Stop::Comma {
            self.pos += 1;
        }
    }

    /// [`sequence`](Self::sequence), skipping the items that do not read (their spans undone).
    pub(super) fn sequence_lenient(
        &mut self,
        mut item: impl FnMut(&mut Self, usize) -> PResult<()>,
    ) -> PResult<()> {
        self.expect(b'[', "`[`")?;
        let mut i = 0;
        loop {
            let began = self.pos;
            if let Err(e) = self.skip_ws() {
                self.tolerate(*e);
                self.pos = self.b.len();
                return Ok(());
            }
            match self.peek() {
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                None | Some(b')' | b'}') => {
                    if let Err(e) = self.unexpected::<()>("`,` or `]`") {
                        self.tolerate(*e);
                    }
                    return Ok(());
                }
                Some(b',') => {
                    if let Err(e) = self.unexpected::<()>("a value or `]`") {
                        self.tolerate(*e);
                    }
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            if self.at_boundary() {
                if let Err(e) = self.unexpected::<()>("`,` or `]`") {
                    self.tolerate(*e);
                }
                return Ok(());
            }
            let item_at = self.pos;
            let mark = self.tables.mark();
            if let Err(mut e) = item(self, i) {
                self.tables.undo(mark);
                e.segs.push(Seg::Index(i));
                self.tolerate(*e);
                i += 1;
                match self.skip_to_boundary(item_at, &[]) {
                    Stop::Comma => self.pos += 1,
                    _ if self.pos == began => return Ok(()),
                    _ => {}
                }
                continue;
            }
            i += 1;
            if let Err(e) = self.skip_ws() {
                self.tolerate(*e);
                self.pos = self.b.len();
                return Ok(());
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {}
                _ => {
                    if let Err(e) = self.unexpected::<()>("`,` or `]`") {
                        self.tolerate(*e);
                    }
                }
            }
            if self.pos == began {
                return Ok(());
            }
        }
    }

    // ---- the document ----------------------------------------------------------------------------

    /// The document, read past its errors: each top-level field and entity entry strictly, and
    /// again leniently when that fails, its error kept.
    fn document_recovering(&mut self, map: &mut SourceMap) -> SceneDoc {
        let mut top = Top::default();
        let start = self.pos;
        let read = self.muted_top(|p| {
            p.structure("the scene", &TOP_FIELDS, |p, i, at| {
                if i == 2 {
                    top.entities = Some(p.entities_recovering(&mut map.entities));
                    top.offsets[i] = p.span(at);
                    return Ok(());
                }
                let mark = p.tables.mark();
                let Err(mut e) = p.strictly(|p| p.top_field(&mut top, i, at)) else {
                    return Ok(());
                };
                p.tables.undo(mark);
                if e.entity.is_none() {
                    e.segs.push(Seg::Field(TOP_FIELDS[i]));
                }
                p.tolerate(*e);
                p.pos = at;
                p.muted(|p| {
                    if p.top_field(&mut top, i, at).is_err() {
                        // To the `,` (the structure reads it) or what comes next.
                        p.skip_to_boundary(at, &TOP_FIELDS);
                    }
                });
                Ok(())
            })
        });
        match read {
            Ok((open, seen)) => {
                if self.errors_kept() == 0
                    && let Err(e) = self.strictly(|p| {
                        p.require(open, "the scene", &TOP_FIELDS, seen, all(5))?;
                        p.skip_ws()?;
                        if p.pos < p.b.len() {
                            let found = p.describe(p.pos);
                            return p.fail(p.pos, ReadErrorKind::TrailingCharacters { found });
                        }
                        Ok(())
                    })
                {
                    self.tolerate(*e);
                }
            }
            Err(e) => {
                self.tolerate(*e);
                self.pos = start;
            }
        }
        map.top = top.offsets;
        map.layers = std::mem::take(&mut top.layer_spans);
        let entities = top.entities.unwrap_or_default();
        let next_id = entities.keys().max().map_or(1, |m| m.saturating_add(1));
        SceneDoc {
            format_version: top.format_version.unwrap_or(FORMAT_VERSION),
            name: top.name.unwrap_or_default(),
            entities,
            roots: top.roots.unwrap_or_default(),
            next_id: top.next_id.unwrap_or(next_id),
            layers: top.layers,
        }
    }

    /// Runs `read` leniently with its errors kept (the document's own structure).
    fn muted_top<T>(&mut self, read: impl FnOnce(&mut Self) -> T) -> T {
        let lenient = std::mem::replace(&mut self.lenient, true);
        let out = read(self);
        self.lenient = lenient;
        out
    }

    /// The entity map, each entry read strictly and again leniently when that fails.
    fn entities_recovering(
        &mut self,
        spans: &mut indexmap::IndexMap<u64, EntitySpans, IdHasher>,
    ) -> EntityMap {
        let in_map = |mut e: Box<PErr>| {
            if e.entity.is_none() {
                e.segs.push(Seg::Field("entities"));
            }
            e
        };
        let mut map = self.entity_map(spans);
        if let Err(e) = self.strictly(|p| p.expect(b'{', "`{` starting the entity map")) {
            self.tolerate(*in_map(e));
            if !self.entry_starts(self.pos) {
                let at = self.pos;
                self.skip_to_boundary(at, &TOP_FIELDS);
                return map;
            }
        }
        let mut broken = false;
        loop {
            if let Err(e) = self.skip_ws() {
                self.tolerate(*in_map(e));
                self.pos = self.b.len();
                return map;
            }
            if self.peek().is_none() || self.field_starts(self.pos, &TOP_ONLY) {
                if let Err(e) = self.unexpected::<()>("an entity id (an unsigned integer)") {
                    self.tolerate(*in_map(e));
                }
                return map;
            }
            let key_at = self.pos;
            if broken && self.peek() != Some(b'}') && !self.entry_starts(key_at) {
                // What is left of an entry that did not read, up to the next one.
                self.skip_entry(key_at);
                continue;
            }
            let mark = self.tables.mark();
            match self.strictly(|p| p.entity_entry(&mut map, spans)) {
                Ok(true) => broken = false,
                Ok(false) => return map,
                Err(e) => {
                    self.tables.undo(mark);
                    self.tolerate(*in_map(e));
                    self.pos = key_at;
                    self.muted(|p| p.entry_lenient(&mut map, spans, key_at));
                    broken = true;
                }
            }
            if self.pos == key_at {
                // Nothing read: a stray character.
                self.skip_entry(key_at);
            }
        }
    }

    /// One entity entry read leniently (its error kept already): what reads goes in; an entry
    /// whose key does not read, or is taken, is skipped.
    fn entry_lenient(
        &mut self,
        map: &mut EntityMap,
        spans: &mut indexmap::IndexMap<u64, EntitySpans, IdHasher>,
        key_at: usize,
    ) {
        let key = match self.id() {
            Ok(key) if !spans.contains_key(&key) => key,
            _ => return self.skip_entry(key_at),
        };
        if self.expect(b':', "`:`").is_err() {
            return self.skip_entry(key_at);
        }
        let mut entity_spans = EntitySpans::new(Span::NONE);
        let Ok(node) = self.entity(&mut entity_spans) else {
            return self.skip_entry(key_at);
        };
        let end = self.trimmed(key_at, self.pos);
        entity_spans.entry = Span::new(self.abs(key_at), self.abs(end));
        entity_spans.text_hash = super::grammar::text_hash(&self.b[key_at..end]);
        let _ = self.skip_ws();
        if self.peek() == Some(b',') {
            self.pos += 1;
        }
        spans.insert(key, entity_spans);
        map.insert(key, node.into());
    }
}
