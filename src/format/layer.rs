//! Tile layers: grids of prefab placements written as a palette and rows of characters (the
//! `format` module docs, "Tile layers").

use serde::{Deserialize, Serialize};

use super::component::EcoString;
use super::edit::EditError;
use super::instance::Override;
use super::value::{Vec2Data, Vec3Data};

/// The character of a row that leaves its cell empty. It cannot be a palette key.
pub const EMPTY_CELL: char = '.';

/// Most cells one layer may have: for `rows`, the width times the height (empty cells count);
/// for `cells`, the number of entries (2^18, as [`MAX_EXPANDED_ENTITIES`](super::MAX_EXPANDED_ENTITIES)).
pub const MAX_LAYER_CELLS: usize = 1 << 18;

/// The largest cell index, in either direction (`i` or `j`): 65,535.
pub const MAX_CELL_INDEX: u32 = u16::MAX as u32;

/// Whether `c` may be a palette key: any character but [`EMPTY_CELL`] and control characters
/// (a tab or a line break in a row would not read back as one cell). Text and cooked scenes
/// check keys with this one rule.
pub(crate) fn is_palette_key(c: char) -> bool {
    c != EMPTY_CELL && !c.is_control()
}

/// The plane a layer's cells lie in, in the frame of its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum TilePlane {
    /// 2D: `i` along +X, `j` along +Y (a row further up the text is higher on the screen).
    #[default]
    Xy,
    /// 3D ground: `i` along +X, `j` along -Z (a row further up the text is further away from a
    /// camera looking down -Z).
    Xz,
}

/// The plane names as the text writes them, in [`TilePlane`] order.
pub const TILE_PLANES: &[&str] = &["xy", "xz"];

impl TilePlane {
    /// The name the text uses: `xy` or `xz`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Xy => "xy",
            Self::Xz => "xz",
        }
    }

    /// A point of the plane (`a` along the `i` axis, `b` along the `j` axis) in world units, as a
    /// vector of the layer's frame.
    pub fn point(self, a: f32, b: f32) -> Vec3Data {
        match self {
            Self::Xy => Vec3Data { x: a, y: b, z: 0.0 },
            Self::Xz => Vec3Data {
                x: a,
                y: 0.0,
                z: -b,
            },
        }
    }
}

/// One cell of a sparse layer: `(i: 3, j: 4, key: "g")`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileCell {
    /// Column: counts along the plane's first axis.
    pub i: u32,
    /// Row: counts along the plane's second axis (up the picture).
    pub j: u32,
    /// The palette key of the prefab the cell places.
    pub key: char,
}

/// A tile layer: a grid of prefab placements in a plane, each filled cell placing the prefab
/// its palette key names (the `format` module docs, "Tile layers").
///
/// Cell `(i, j)` sits at `origin + plane((i - start.0) * cell_size.x, (j - start.1) *
/// cell_size.y)`, in the frame of `parent`. With `rows`, the first character of the last row is
/// cell `start`; each character to the right is one `i` further, each row above one `j` further.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TileLayer {
    /// The layer's id, from the scene's entity ids (no entity has it): the first element of the
    /// id path of every entity the layer places (`[id, i, j, inner..]`).
    pub id: u64,
    /// Display name; the spawned layer entity's `Name`.
    pub name: EcoString,
    /// The entity the layer is placed under (it moves with it); `None` for a root.
    pub parent: Option<u64>,
    /// The plane of the cells.
    pub plane: TilePlane,
    /// The size of one cell in world units: `x` along `i`, `y` along `j`.
    pub cell_size: Vec2Data,
    /// Where cell `start` sits, in the parent's frame (world units).
    pub origin: Vec3Data,
    /// The cell index of the first character of the last row (and the cell at `origin`).
    pub start: (u32, u32),
    /// Palette keys, each one character, to prefab files (asset paths ending in `.forge.ron`),
    /// in file order.
    pub palette: Vec<(char, EcoString)>,
    /// The grid, top row first, one character per cell: a palette key or [`EMPTY_CELL`].
    pub rows: Vec<String>,
    /// Sparse cells, instead of `rows`.
    pub cells: Vec<TileCell>,
    /// Changes to entities of single cells: targets are `[i, j, inner..]`, the cell then the id
    /// path inside its prefab.
    pub overrides: Vec<Override>,
}

/// Where a filled cell was written: [`TileLayer::filled`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellSource {
    /// Row `row` (0 = the first string), at byte `byte` of the string.
    Row {
        /// Index into [`TileLayer::rows`].
        row: usize,
        /// Byte offset of the character in the row string.
        byte: usize,
    },
    /// Entry `index` of [`TileLayer::cells`].
    Cell(usize),
}

impl TileLayer {
    /// An empty `xy` layer with 1 × 1 cells at the origin.
    pub fn new(id: u64, name: impl Into<EcoString>) -> Self {
        Self {
            id,
            name: name.into(),
            parent: None,
            plane: TilePlane::Xy,
            cell_size: Vec2Data::new(1.0, 1.0),
            origin: Vec3Data::ZERO,
            start: (0, 0),
            palette: Vec::new(),
            rows: Vec::new(),
            cells: Vec::new(),
            overrides: Vec::new(),
        }
    }

    /// The prefab of palette key `key`.
    pub fn prefab(&self, key: char) -> Option<&str> {
        self.palette
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, s)| s.as_str())
    }

    /// The cell index of character `column` (counted in characters) of row `row`.
    pub fn row_cell(&self, row: usize, column: usize) -> (u64, u64) {
        let j = u64::from(self.start.1) + (self.rows.len() - 1 - row) as u64;
        (u64::from(self.start.0) + column as u64, j)
    }

    /// The row and column (characters) of cell `(i, j)` in `rows`, when it is inside them.
    pub fn row_of(&self, i: u64, j: u64) -> Option<(usize, usize)> {
        let (si, sj) = (u64::from(self.start.0), u64::from(self.start.1));
        let up = j.checked_sub(sj)? as usize;
        let row = self.rows.len().checked_sub(1)?.checked_sub(up)?;
        let column = i.checked_sub(si)? as usize;
        (column < self.rows[row].chars().count()).then_some((row, column))
    }

    /// Every filled cell: `(i, j, key, where)`, rows top to bottom, then the sparse cells in
    /// order. Empty characters are skipped; unknown keys are listed (validation reports them).
    pub fn filled(&self) -> impl Iterator<Item = (u64, u64, char, CellSource)> + '_ {
        let rows = self.rows.iter().enumerate().flat_map(move |(r, row)| {
            row.char_indices()
                .enumerate()
                .filter(|(_, (_, c))| *c != EMPTY_CELL)
                .map(move |(column, (byte, c))| {
                    let (i, j) = self.row_cell(r, column);
                    (i, j, c, CellSource::Row { row: r, byte })
                })
        });
        let cells = self
            .cells
            .iter()
            .enumerate()
            .map(|(k, c)| (u64::from(c.i), u64::from(c.j), c.key, CellSource::Cell(k)));
        rows.chain(cells)
    }

    /// The key of cell `(i, j)`, when it is filled.
    pub fn key_at(&self, i: u64, j: u64) -> Option<char> {
        if let Some((row, column)) = self.row_of(i, j) {
            let c = self.rows[row].chars().nth(column)?;
            return (c != EMPTY_CELL).then_some(c);
        }
        self.cells
            .iter()
            .rev()
            .find(|c| u64::from(c.i) == i && u64::from(c.j) == j)
            .map(|c| c.key)
    }

    /// The position of cell `(i, j)` relative to cell `(0, 0)`, in the layer's frame.
    pub fn cell_offset(&self, i: u64, j: u64) -> Vec3Data {
        self.plane
            .point(i as f32 * self.cell_size.x, j as f32 * self.cell_size.y)
    }

    /// Where cell `(0, 0)` sits in the parent's frame: the translation of the spawned layer
    /// entity. Growing the layer left or down (moving `origin` back by whole cells and lowering
    /// `start` by as many) keeps it.
    pub fn anchor(&self) -> Vec3Data {
        let back = self.cell_offset(u64::from(self.start.0), u64::from(self.start.1));
        Vec3Data {
            x: self.origin.x - back.x,
            y: self.origin.y - back.y,
            z: self.origin.z - back.z,
        }
    }

    /// The cells the layer has, as a rectangle: the grid of its `rows` (the first row's width),
    /// grown to hold its sparse `cells`; `None` for a layer with neither (or only empty rows).
    pub fn cell_bounds(&self) -> Option<CellRect> {
        let width = self.rows.first().map_or(0, |r| r.chars().count());
        let mut bounds = (width > 0).then(|| {
            let (i, j) = self.start;
            let up = u32::try_from(self.rows.len() - 1).unwrap_or(u32::MAX);
            let right = u32::try_from(width - 1).unwrap_or(u32::MAX);
            CellRect::between((i, j), (i.saturating_add(right), j.saturating_add(up)))
        });
        for c in &self.cells {
            let r = bounds.get_or_insert(CellRect::cell(c.i, c.j));
            *r = CellRect::between(
                (r.i0.min(c.i), r.j0.min(c.j)),
                (r.i1.max(c.i), r.j1.max(c.j)),
            );
        }
        bounds
    }

    /// The number of cells the layer spans: width × height for `rows` (the first row's width),
    /// plus the number of sparse cells.
    pub fn extent(&self) -> usize {
        let width = self.rows.first().map_or(0, |r| r.chars().count());
        width
            .saturating_mul(self.rows.len())
            .saturating_add(self.cells.len())
    }

    /// Whether `other` is this layer but for its cells (`rows` strings of the same count,
    /// `cells`): what a paint changes.
    pub(crate) fn same_but_tiles(&self, other: &TileLayer) -> bool {
        self.id == other.id
            && self.name == other.name
            && self.parent == other.parent
            && self.plane == other.plane
            && self.cell_size == other.cell_size
            && self.origin == other.origin
            && self.start == other.start
            && self.palette == other.palette
            && self.overrides == other.overrides
            && self.rows.len() == other.rows.len()
    }

    /// Whether an override of this layer targets an entity of cell `(i, j)`.
    pub(crate) fn overrides_cell(&self, i: u64, j: u64) -> bool {
        self.overrides
            .iter()
            .any(|o| o.target.get(..2) == Some(&[i, j][..]))
    }

    /// The cells whose key differs from this layer to `new` (the same layer but for its
    /// tiles, [`same_but_tiles`](Self::same_but_tiles)): those of `rows` in fill order, then
    /// those of `cells`. `None` when a row changed its width.
    pub(crate) fn changed_tiles(&self, new: &TileLayer) -> Option<Vec<TileChange>> {
        let mut out = Vec::new();
        let key = |c: char| (c != EMPTY_CELL).then_some(c);
        for (r, (a, b)) in self.rows.iter().zip(&new.rows).enumerate() {
            if a == b {
                continue;
            }
            let mut column = 0;
            let (mut ca, mut cb) = (a.chars(), b.chars());
            loop {
                match (ca.next(), cb.next()) {
                    (None, None) => break,
                    (Some(x), Some(y)) => {
                        if x != y {
                            let (i, j) = new.row_cell(r, column);
                            out.push((i, j, key(x), key(y)));
                        }
                    }
                    _ => return None,
                }
                column += 1;
            }
        }
        if self.cells != new.cells {
            let map = |cells: &[TileCell]| {
                let mut m = std::collections::BTreeMap::new();
                for c in cells {
                    m.entry((u64::from(c.i), u64::from(c.j))).or_insert(c.key);
                }
                m
            };
            let (a, b) = (map(&self.cells), map(&new.cells));
            // A cell both in rows and cells is a validation error; never here, but stay whole.
            for (cell, k) in &a {
                if b.get(cell) != Some(k) {
                    out.push((cell.0, cell.1, Some(*k), b.get(cell).copied()));
                }
            }
            for (cell, k) in &b {
                if !a.contains_key(cell) {
                    out.push((cell.0, cell.1, None, Some(*k)));
                }
            }
        }
        Some(out)
    }
}

/// A painted cell ([`TileLayer::changed_tiles`]): `(i, j)`, its old key and its new key
/// (`None`: empty).
pub(crate) type TileChange = (u64, u64, Option<char>, Option<char>);

/// A rectangle of cells, both corners included: `i` from `i0` to `i1`, `j` from `j0` to `j1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellRect {
    /// The first column.
    pub i0: u32,
    /// The first row (the lowest `j`).
    pub j0: u32,
    /// The last column.
    pub i1: u32,
    /// The last row (the highest `j`).
    pub j1: u32,
}

impl CellRect {
    /// The one cell `(i, j)`.
    pub fn cell(i: u32, j: u32) -> Self {
        Self {
            i0: i,
            j0: j,
            i1: i,
            j1: j,
        }
    }

    /// The cells between two corners, in any order.
    pub fn between(a: (u32, u32), b: (u32, u32)) -> Self {
        Self {
            i0: a.0.min(b.0),
            j0: a.1.min(b.1),
            i1: a.0.max(b.0),
            j1: a.1.max(b.1),
        }
    }
}

impl TileLayer {
    /// Fills every cell of `rect` with palette key `key`, or empties them with `None` (see the
    /// format page, "Growing a layer"). A `rows` layer grows to hold the cells: right and up by
    /// adding characters and rows, left and down by also lowering `start` and moving `origin`
    /// back by as many cells, so the cells already there keep their indices (id paths) and
    /// places; erasing never shrinks it. A `cells` layer (or one with neither rows nor cells,
    /// painted sparse when it has no rows) sets or removes entries, in order.
    ///
    /// # Errors
    /// [`EditError::Paint`] for a key not in the palette, a rectangle past [`MAX_CELL_INDEX`], a
    /// `rows` layer that would grow left of or below cell `(0, 0)` or past [`MAX_LAYER_CELLS`].
    /// The layer is unchanged then.
    pub fn paint(&mut self, rect: CellRect, key: Option<char>) -> Result<(), EditError> {
        let refuse = |why: String| EditError::Paint {
            layer: self.id,
            why,
        };
        if let Some(k) = key
            && self.prefab(k).is_none()
        {
            return Err(refuse(format!("`{k}` is not a key of its palette")));
        }
        if rect.i1 > MAX_CELL_INDEX || rect.j1 > MAX_CELL_INDEX {
            return Err(refuse(format!("cell indices go up to {MAX_CELL_INDEX}")));
        }
        if self.rows.is_empty() {
            self.cells.retain(|c| {
                !(rect.i0..=rect.i1).contains(&c.i) || !(rect.j0..=rect.j1).contains(&c.j)
            });
            if let Some(key) = key {
                for j in rect.j0..=rect.j1 {
                    for i in rect.i0..=rect.i1 {
                        self.cells.push(TileCell { i, j, key });
                    }
                }
            }
            return Ok(());
        }
        let width = self.rows[0].chars().count() as u32;
        let height = self.rows.len() as u32;
        let (si, sj) = self.start;
        // The rows' new extent: the union of the old one and the rectangle (erasing outside the
        // rows changes nothing).
        let (ni0, nj0, ni1, nj1) = match key {
            Some(_) => (
                si.min(rect.i0),
                sj.min(rect.j0),
                (si + width.max(1) - 1).max(rect.i1),
                (sj + height - 1).max(rect.j1),
            ),
            None => (si, sj, si + width.max(1) - 1, sj + height - 1),
        };
        let new_width = (ni1 - ni0 + 1) as usize;
        let new_height = (nj1 - nj0 + 1) as usize;
        if new_width.saturating_mul(new_height) > MAX_LAYER_CELLS {
            return Err(refuse(format!(
                "it would span {} cells; the limit is {MAX_LAYER_CELLS}",
                new_width * new_height
            )));
        }
        let mut grid: Vec<Vec<char>> = vec![vec![EMPTY_CELL; new_width]; new_height];
        for (r, row) in self.rows.iter().enumerate() {
            let j = sj + (height - 1 - r as u32);
            for (c, ch) in row.chars().enumerate() {
                let i = si + c as u32;
                grid[(nj1 - j) as usize][(i - ni0) as usize] = ch;
            }
        }
        for j in rect.j0.max(nj0)..=rect.j1.min(nj1) {
            for i in rect.i0.max(ni0)..=rect.i1.min(ni1) {
                grid[(nj1 - j) as usize][(i - ni0) as usize] = key.unwrap_or(EMPTY_CELL);
            }
        }
        // Growing left or down: `start` lowers, `origin` moves back by as many cells.
        let back = self.plane.point(
            (si - ni0) as f32 * self.cell_size.x,
            (sj - nj0) as f32 * self.cell_size.y,
        );
        self.origin = Vec3Data {
            x: self.origin.x - back.x,
            y: self.origin.y - back.y,
            z: self.origin.z - back.z,
        };
        self.start = (ni0, nj0);
        self.rows = grid.into_iter().map(|r| r.into_iter().collect()).collect();
        Ok(())
    }
}
