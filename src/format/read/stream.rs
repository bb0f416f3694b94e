//! Reading a large file in pieces ([`StreamRead`]): one entity entry at a time, so its text is
//! never in memory whole.

use super::grammar::all;
use super::{PResult, ParsedScene, Parser, Tables, Top};
use crate::format::EntityMap;
use crate::format::source_map::{ABSENT, SourceMap, TOP_FIELDS, WideChars};

/// Where a [`StreamRead`] is in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the opening `(`.
    Open,
    /// Between top-level fields.
    Fields,
    /// Inside the `entities` map.
    Entities,
    /// After the closing `)`: only whitespace and comments may follow.
    End,
}

/// What a [`StreamRead`] needs next.
pub(crate) enum Step {
    /// More text: fill [`StreamRead::spare`] and call [`StreamRead::filled`].
    Read,
    /// The document, or `None` when the text cannot be read this way: the caller reads the whole
    /// text with [`read_bytes`](super::read_bytes), which gives the exact error.
    Done(Option<Box<ParsedScene>>),
}

/// Bytes asked of the source per read.
const PIECE: usize = 256 * 1024;

/// Reads a document from text that arrives in pieces (a loader's reader), holding only the part
/// not read yet: a large file is never in memory whole.
///
/// Top-level fields and entity entries are read one at a time, each once the text holds
/// `lookahead` bytes past its start (or the end of the file). An entry that does not fit is read
/// again with twice the room. For any text, the result is exactly what
/// [`read_bytes`](super::read_bytes) gives when
/// that succeeds; anything `read_bytes` refuses (and nothing else) ends in `Done(None)`, and the
/// error is found by reading the text whole. The positions in errors therefore never depend on
/// how the text was cut.
pub(crate) struct StreamRead {
    /// Text not read yet in `buf[..len]` (`buf[..done]` is read and dropped at the next
    /// [`spare`](Self::spare)); the rest of `buf` is room for the next piece.
    buf: Vec<u8>,
    len: usize,
    done: usize,
    /// Offset of `buf[0]` in the text (after a byte-order mark).
    base: usize,
    eof: bool,
    bom_checked: bool,
    failed: bool,
    lookahead: usize,
    phase: Phase,
    tables: Option<Tables>,
    wide: WideChars,
    map: SourceMap,
    top: Top,
    /// Top-level fields seen (bit mask of [`TOP_FIELDS`]) and the offset of the opening `(`.
    seen: u32,
    open_at: usize,
    entities: EntityMap,
}

impl StreamRead {
    /// A reader of a text of about `len` bytes (capacities are estimated from it), reading each
    /// entry once `lookahead` bytes past its start are in.
    pub(crate) fn new(len: usize, lookahead: usize) -> Self {
        Self {
            buf: Vec::new(),
            len: 0,
            done: 0,
            base: 0,
            eof: false,
            bom_checked: false,
            failed: false,
            lookahead: lookahead.max(1),
            phase: Phase::Open,
            tables: Some(Tables::new(len)),
            wide: WideChars::default(),
            map: SourceMap::default(),
            top: Top::default(),
            seen: 0,
            open_at: 0,
            entities: EntityMap::default(),
        }
    }

    /// Room for the next piece of text (at least [`PIECE`] bytes), read bytes dropped first.
    pub(crate) fn spare(&mut self) -> &mut [u8] {
        if self.done > 0 {
            self.buf.copy_within(self.done..self.len, 0);
            self.len -= self.done;
            self.base += self.done;
            self.done = 0;
        }
        if self.buf.len() - self.len < PIECE {
            self.buf.resize(self.len + PIECE, 0);
        }
        &mut self.buf[self.len..]
    }

    /// `n` bytes were written at the start of [`spare`](Self::spare); `0` means the end of the
    /// text.
    pub(crate) fn filled(&mut self, n: usize) {
        self.len += n.min(self.buf.len() - self.len);
        if n == 0 {
            self.eof = true;
        }
    }

    /// Reads what the text so far allows.
    pub(crate) fn step(&mut self) -> Step {
        if self.failed {
            return Step::Done(None);
        }
        if !self.bom_checked {
            if self.len < 3 && !self.eof {
                return Step::Read;
            }
            if self.buf[..self.len].starts_with(b"\xEF\xBB\xBF") {
                self.buf.copy_within(3..self.len, 0);
                self.len -= 3;
            }
            self.bom_checked = true;
        }
        if self.base + self.len >= ABSENT as usize {
            return Step::Done(None);
        }
        // Nothing to read until the next entry fits (or, after the closing `)`, the end).
        if !self.eof && (self.phase == Phase::End || self.len - self.done < self.lookahead) {
            return Step::Read;
        }
        // Out of `self` while the parser borrows it.
        let buf = std::mem::take(&mut self.buf);
        let step = self.step_in(&buf[self.done..self.len]);
        self.buf = buf;
        step
    }

    fn step_in(&mut self, window: &[u8]) -> Step {
        let text = match std::str::from_utf8(window) {
            Ok(text) => text,
            // A character cut at the end of the piece: read up to it.
            Err(e) if e.error_len().is_none() && !self.eof => {
                std::str::from_utf8(&window[..e.valid_up_to()]).unwrap_or_default()
            }
            Err(_) => return Step::Done(None),
        };
        let Some(tables) = self.tables.take() else {
            return Step::Done(None);
        };
        let mut p = Parser::new(text, self.base + self.done, tables);
        let mut finished = false;
        loop {
            if self.phase == Phase::End {
                // Only whitespace and comments may follow: decided at the end of the text, as
                // a comment may go on in the next piece.
                if self.eof {
                    let ok = p.skip_ws().is_ok() && p.pos == p.b.len();
                    self.failed = !ok;
                    finished = ok;
                }
                break;
            }
            if !self.eof && p.b.len() - p.pos < self.lookahead {
                break;
            }
            let (mark, pos, seen, offsets) = (p.tables.mark(), p.pos, self.seen, self.top.offsets);
            let phase = self.phase;
            if self.unit(&mut p).is_err() {
                p.tables.undo(mark);
                p.pos = pos;
                self.seen = seen;
                self.top.offsets = offsets;
                self.phase = phase;
                if self.eof {
                    self.failed = true;
                    break;
                }
                // Perhaps cut at the end of the piece: try again with twice the room.
                self.lookahead = self.lookahead.saturating_mul(2);
            }
        }
        let read = p.pos;
        self.wide.scan(&p.text[..read], self.base + self.done);
        self.tables = Some(p.tables);
        self.done += read;
        if self.failed {
            return Step::Done(None);
        }
        if !finished {
            return Step::Read;
        }
        Step::Done(self.finish().map(Box::new))
    }

    /// Reads one top-level field, entity entry or delimiter.
    fn unit(&mut self, p: &mut Parser<'_>) -> PResult<()> {
        match self.phase {
            Phase::Open => {
                self.open_at = p.expect(b'(', "`(`")?;
                self.phase = Phase::Fields;
            }
            Phase::Entities => {
                if !p.entity_entry(&mut self.entities, &mut self.map.entities)? {
                    // The map's closing `}` was just read.
                    self.top.offsets[2].end = p.abs(p.pos);
                    p.skip_ws()?;
                    match p.peek() {
                        Some(b',') => p.pos += 1,
                        Some(b')') => {}
                        _ => return p.unexpected("`,` or `)`"),
                    }
                    self.phase = Phase::Fields;
                }
            }
            Phase::Fields => {
                // As `Parser::structure` reads the top level, one field at a time.
                p.skip_ws()?;
                if p.peek() == Some(b')') {
                    p.pos += 1;
                    self.phase = Phase::End;
                    return Ok(());
                }
                let Some(name) = p.ident() else {
                    return p.unexpected("a field name or `)`");
                };
                let Some(i) = TOP_FIELDS.iter().position(|f| *f == name) else {
                    return p.unexpected("a field name");
                };
                if self.seen & (1 << i) != 0 {
                    return p.unexpected("a field not seen before");
                }
                self.seen |= 1 << i;
                p.expect(b':', "`:`")?;
                p.skip_ws()?;
                let at = p.pos;
                if i == 2 {
                    self.top.offsets[i] = p.open(at);
                    p.expect(b'{', "`{` starting the entity map")?;
                    if self.entities.capacity() == 0 {
                        self.entities = p.entity_map(&mut self.map.entities);
                    }
                    self.phase = Phase::Entities;
                    return Ok(());
                }
                p.top_field(&mut self.top, i, at)?;
                p.skip_ws()?;
                match p.peek() {
                    Some(b',') => p.pos += 1,
                    Some(b')') => {}
                    _ => return p.unexpected("`,` or `)`"),
                }
            }
            Phase::End => {}
        }
        Ok(())
    }

    /// The result once the whole text is read.
    fn finish(&mut self) -> Option<ParsedScene> {
        if self.seen & all(5) != all(5) {
            return None;
        }
        let mut top = std::mem::take(&mut self.top);
        top.entities = Some(std::mem::take(&mut self.entities));
        let mut map = std::mem::take(&mut self.map);
        map.top = top.offsets;
        map.layers = std::mem::take(&mut top.layer_spans);
        let doc = top.into_doc()?;
        let tables = self.tables.take()?;
        Some(tables.finish(doc, map, std::mem::take(&mut self.wide)))
    }
}

/// Reads `bytes` as a [`StreamRead`] gets them from a reader that gives `piece` bytes at a time.
#[cfg(test)]
fn read_in_pieces(bytes: &[u8], piece: usize, lookahead: usize) -> Option<ParsedScene> {
    let mut stream = StreamRead::new(bytes.len(), lookahead);
    let mut rest = bytes;
    loop {
        match stream.step() {
            Step::Read => {
                let spare = stream.spare();
                let n = piece.max(1).min(rest.len()).min(spare.len());
                spare[..n].copy_from_slice(&rest[..n]);
                rest = &rest[n..];
                stream.filled(n);
            }
            Step::Done(result) => return result.map(|b| *b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ParsedScene, read_bytes};
    use super::read_in_pieces;

    /// Every feature the reader crosses: comments (nested, at entry boundaries, at the end),
    /// strings with escapes and raw strings, non-ASCII text, custom components, `format_version`
    /// 0 (a warning), CRLF, and top-level fields out of order.
    const RICH: &str = "\u{feff}// A scene\r\n(\r\n  next_id: 9,\r\n  format_version: 0,\r\n  name: \"Zoë's \\\"garden\\\" 🌲\",\r\n  entities: { /* one /* nested */ comment */\r\n    4: (id: 4, name: \"Ünïcode ✓\", parent: None, children: [5], transform: (translation: (x: 1.5, y: -2.0, z: 3e2), rotation: (x: 0.0, y: 90.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [(type: sprite, data: (color: (r: 1.0, g: 0.5, b: 0.25, a: 1.0), flip_x: true)), (type: custom, data: (type_path: \"game::Orbit\", fields: [(name: \"radius\", expr: \"2.5 * 2.0\"), (name: \"label\", expr: r#\"\"ring \\n\"\"#)]))], locked: true), // after an entry\r\n    5: (\r\n      id: 5,\r\n      name: \"child\",\r\n      parent: Some(4),\r\n      children: [],\r\n      transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),\r\n      components: [(type: text2d, data: (text: \"héllo\\u{1F600}\", font_size: 12.0, color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0)))],\r\n    ),\r\n  },\r\n  roots: [4],\r\n) // the end\r\n";

    fn texts() -> Vec<Vec<u8>> {
        let mut out = vec![
            RICH.as_bytes().to_vec(),
            RICH.replace("\r\n", "\n").into_bytes(),
        ];
        // Tile layers: a top-level field after the entities.
        for scene in ["dungeon", "meadow"] {
            let path = format!(
                "{}/assets/scenes/{scene}.forge.ron",
                env!("CARGO_MANIFEST_DIR")
            );
            out.push(std::fs::read(path).unwrap_or_default());
        }
        for dir in ["valid", "invalid", "warnings"] {
            let path = format!("{}/tests/fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
            for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
                if entry.path().to_string_lossy().ends_with(".forge.ron") {
                    out.push(std::fs::read(entry.path()).unwrap_or_default());
                }
            }
        }
        out
    }

    /// The whole-text read, as a streamed read gives it (errors are found by reading whole).
    fn whole(bytes: &[u8]) -> Option<ParsedScene> {
        read_bytes(bytes).ok()
    }

    #[test]
    fn a_text_read_in_pieces_is_read_as_a_whole() {
        let all = texts();
        assert!(all.len() >= 7, "fixtures missing: {}", all.len());
        assert!(
            whole(RICH.as_bytes()).is_some(),
            "{:?}",
            read_bytes(RICH.as_bytes()).err()
        );
        for bytes in &all {
            for piece in [1, 2, 3, 5, 17, 64, 4096] {
                for lookahead in [1, 8, 100, 1 << 20] {
                    assert_eq!(
                        read_in_pieces(bytes, piece, lookahead),
                        whole(bytes),
                        "piece {piece}, lookahead {lookahead}:\n{}",
                        String::from_utf8_lossy(bytes)
                    );
                }
            }
        }
    }

    #[test]
    fn every_cut_of_a_text_is_refused_or_read_as_a_whole() {
        // A text that ends early (at every byte) is refused by both, or read the same: a streamed
        // read never takes a cut for the end of the text.
        let rich = RICH.as_bytes();
        for end in 0..rich.len() {
            let cut = &rich[..end];
            assert_eq!(read_in_pieces(cut, 7, 4), whole(cut), "cut at {end}");
        }
    }

    /// Bytes that change what a reader sees: delimiters, comment and string starts, escapes,
    /// newlines, a multi-byte character and an invalid UTF-8 byte.
    const EDIT_BYTES: &[u8] = b"/*\"\\\n\r(){}[],:#r0 x\xC3\xA9\xFF";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Fuzz: any edit of any text, cut into any pieces, reads as the whole text reads (the
        /// same document, or a refusal).
        #[test]
        fn edited_texts_read_in_pieces_as_a_whole(
            which in 0usize..64,
            edits in proptest::collection::vec((0usize..4096, 0usize..3, 0usize..EDIT_BYTES.len(), 1usize..4), 0..4),
            piece in 1usize..300,
            lookahead in 1usize..200,
        ) {
            let all = texts();
            let mut bytes = all[which % all.len()].clone();
            for (at, kind, b, n) in edits {
                let at = at % (bytes.len() + 1);
                match kind {
                    0 => bytes.insert(at, EDIT_BYTES[b]),
                    1 => { bytes.drain(at..(at + n).min(bytes.len())); }
                    _ => if at < bytes.len() { bytes[at] = EDIT_BYTES[b] },
                }
            }
            proptest::prop_assert_eq!(read_in_pieces(&bytes, piece, lookahead), whole(&bytes));
        }
    }
}
