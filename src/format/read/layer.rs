//! The reader's grammar of tile layers: a layer's fields, its palette, rows and sparse cells.

use super::grammar::all;
use super::{PResult, Parser};
use crate::format::error::ReadErrorKind;
use crate::format::layer::{MAX_CELL_INDEX, TILE_PLANES, TileCell, TileLayer, TilePlane};
use crate::format::source_map::{LAYER_FIELDS, LayerSpans};

impl<'a> Parser<'a> {
    /// One tile layer: `(id: .., name: .., parent: .., plane: xy, cell_size: (..), origin: (..),
    /// start: (i: .., j: ..), palette: {"g": ".."}, rows: [..], cells: [..], overrides: [..])`;
    /// `id`, `plane`, `cell_size` and `palette` are required.
    pub(super) fn layer(&mut self) -> PResult<(TileLayer, LayerSpans)> {
        let mut l = TileLayer::new(0, "");
        let mut spans = LayerSpans::new();
        let (start, seen) = self.structure("tile layer", &LAYER_FIELDS, |p, i, at| {
            match i {
                0 => l.id = p.id()?,
                1 => l.name = p.small_string()?,
                2 => l.parent = p.option(Self::id)?,
                3 => {
                    l.plane = match p.tag("plane", "tile plane", TILE_PLANES)? {
                        0 => TilePlane::Xy,
                        _ => TilePlane::Xz,
                    }
                }
                4 => l.cell_size = p.vec2()?,
                5 => l.origin = p.vec3(None)?,
                6 => {
                    let mut v = [0u32; 2];
                    let (s, seen) = p.structure("cell index", &IJ, |p, i, _| {
                        v[i] = p.cell_index()?;
                        Ok(())
                    })?;
                    p.require(s, "cell index", &IJ, seen, all(2))?;
                    l.start = (v[0], v[1]);
                }
                7 => {
                    p.expect(b'{', "`{` starting the palette")?;
                    loop {
                        p.skip_ws()?;
                        if p.peek() == Some(b'}') {
                            p.pos += 1;
                            break;
                        }
                        let key_at = p.pos;
                        let key = p.palette_key()?;
                        let key_span = p.span(key_at);
                        if l.palette.iter().any(|(k, _)| *k == key) {
                            return p.fail(
                                key_at,
                                ReadErrorKind::Unexpected {
                                    expected: "a palette key not listed before",
                                    found: format!("{key:?} again"),
                                },
                            );
                        }
                        p.expect(b':', "`:` after a palette key")?;
                        p.skip_ws()?;
                        let scene_at = p.pos;
                        let scene = p.small_string()?;
                        spans.palette.push((key_span, p.span(scene_at)));
                        l.palette.push((key, scene));
                        p.skip_ws()?;
                        match p.peek() {
                            Some(b',') => p.pos += 1,
                            Some(b'}') => {}
                            _ => return p.unexpected("`,` or `}`"),
                        }
                    }
                }
                8 => p.sequence(|p, _| {
                    p.skip_ws()?;
                    let at = p.pos;
                    l.rows.push(p.string()?);
                    p.keep_escaped(at);
                    spans.rows.push(p.span(at));
                    Ok(())
                })?,
                9 => p.sequence(|p, _| {
                    let mut cell = TileCell {
                        i: 0,
                        j: 0,
                        key: ' ',
                    };
                    let (s, seen) = p.structure("tile cell", &IJ_KEY, |p, i, _| {
                        match i {
                            0 => cell.i = p.cell_index()?,
                            1 => cell.j = p.cell_index()?,
                            _ => cell.key = p.palette_key()?,
                        }
                        Ok(())
                    })?;
                    p.require(s, "tile cell", &IJ_KEY, seen, all(3))?;
                    spans.cells.push(p.span(s));
                    l.cells.push(cell);
                    Ok(())
                })?,
                _ => p.sequence(|p, _| {
                    let (o, s) = p.override_entry()?;
                    l.overrides.push(o);
                    spans.overrides.push(s);
                    Ok(())
                })?,
            }
            spans.fields[i] = p.span(at);
            Ok(())
        })?;
        spans.entry = self.span(start);
        spans.id = l.id;
        let required = 1 | 1 << 3 | 1 << 4 | 1 << 7;
        self.require(start, "tile layer", &LAYER_FIELDS, seen, required)?;
        Ok((l, spans))
    }

    /// A cell index: an unsigned integer up to [`MAX_CELL_INDEX`].
    fn cell_index(&mut self) -> PResult<u32> {
        let v = self.u64(
            "a cell index (an unsigned integer)",
            "u16",
            u64::from(MAX_CELL_INDEX),
        )?;
        Ok(v as u32)
    }

    /// A palette key: a string of one character, not [`EMPTY_CELL`] nor a control character.
    fn palette_key(&mut self) -> PResult<char> {
        self.skip_ws()?;
        let at = self.pos;
        let key = self.string()?;
        let mut chars = key.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if crate::format::is_palette_key(c) => Ok(c),
            _ => self.fail(
                at,
                ReadErrorKind::Unexpected {
                    expected: "a palette key: one character, not `.` nor a control character",
                    found: format!("{key:?}"),
                },
            ),
        }
    }
}

const IJ: [&str; 2] = ["i", "j"];
const IJ_KEY: [&str; 3] = ["i", "j", "key"];
