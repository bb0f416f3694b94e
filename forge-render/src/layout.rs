//! Where a review's composite puts things, over plain rectangles and sizes (no pixels): the
//! crops that hold the changes ([`crop_regions`]), the scale each crop is drawn at
//! ([`panel_scale`]), and numbered labels placed so that none covers another
//! ([`place_labels`]).

use crate::job::PixelRect;

/// An outline covering more than this share of the frame shows "everywhere" (a directional
/// light, a light whose reach holds the whole view): crops leave it out, or every crop would be
/// the whole frame. The full frames show it.
pub const WHOLE_FRAME_SHARE: f64 = 0.5;

/// At most this many crops; the nearest are joined until there are no more.
pub const MAX_CROPS: usize = 4;

/// Whether `rect` covers more than [`WHOLE_FRAME_SHARE`] of a `width` by `height` frame.
pub fn covers_frame(rect: PixelRect, width: u32, height: u32) -> bool {
    rect.area() as f64 > WHOLE_FRAME_SHARE * f64::from(width) * f64::from(height)
}

/// The empty pixels between two rectangles, along the axis where they are farthest apart
/// (0 when they touch or overlap).
fn gap(a: PixelRect, b: PixelRect) -> u32 {
    let dx = b.x0.saturating_sub(a.x1).max(a.x0.saturating_sub(b.x1));
    let dy = b.y0.saturating_sub(a.y1).max(a.y0.saturating_sub(b.y1));
    dx.max(dy)
}

/// `rect` grown about its centre to at least `min_w` by `min_h` (each at most the frame's),
/// shifted to stay inside the `width` by `height` frame.
fn at_least(rect: PixelRect, min_w: u32, min_h: u32, width: u32, height: u32) -> PixelRect {
    fn span(lo: u32, hi: u32, min: u32, limit: u32) -> (u32, u32) {
        let min = min.min(limit);
        let len = hi - lo;
        if len >= min {
            return (lo, hi);
        }
        let start = lo.saturating_sub((min - len) / 2).min(limit - min);
        (start, start + min)
    }
    let (x0, x1) = span(rect.x0, rect.x1, min_w, width);
    let (y0, y1) = span(rect.y0, rect.y1, min_h, height);
    PixelRect { x0, y0, x1, y1 }
}

/// The regions of a `width` by `height` frame a reviewer is shown first: the outlines `rects`
/// of the changed entities (both pictures' together), each padded by a 40th of the frame's
/// longer side, joined when less than an eighth of it apart, at most [`MAX_CROPS`] (the
/// nearest joined first). Each region is at least a sixth of the frame each way, and at least
/// a quarter as high as it is wide (a row of changes keeps some of its surroundings). Outlines
/// that [`cover the frame`](covers_frame) and empty ones are left out; with none left, no
/// region. Sorted top to bottom, then left to right.
pub fn crop_regions(rects: &[PixelRect], width: u32, height: u32) -> Vec<PixelRect> {
    if width == 0 || height == 0 {
        return Vec::new();
    }
    let side = width.max(height);
    let (pad, join) = ((side / 40).max(4), side / 8);
    let fit = |r: PixelRect| {
        let r = at_least(r, width / 6, height / 6, width, height);
        at_least(r, 0, r.width().div_ceil(4), width, height)
    };
    let mut crops: Vec<PixelRect> = rects
        .iter()
        .filter(|r| r.area() > 0 && r.x1 <= width && r.y1 <= height)
        .filter(|r| !covers_frame(**r, width, height))
        .map(|r| fit(r.grown(pad, width, height)))
        .collect();
    loop {
        // Join the nearest pair while it is near enough, or while there are too many.
        loop {
            let mut nearest: Option<(u32, usize, usize)> = None;
            for i in 0..crops.len() {
                for j in i + 1..crops.len() {
                    let g = gap(crops[i], crops[j]);
                    if nearest.is_none_or(|(best, _, _)| g < best) {
                        nearest = Some((g, i, j));
                    }
                }
            }
            match nearest {
                Some((g, i, j)) if g <= join || crops.len() > MAX_CROPS => {
                    crops[i] = crops[i].union(crops[j]);
                    crops.swap_remove(j);
                }
                _ => break,
            }
        }
        let fitted: Vec<PixelRect> = crops.iter().map(|r| fit(*r)).collect();
        if fitted == crops {
            break;
        }
        crops = fitted;
    }
    crops.sort_by_key(|r| (r.y0, r.x0));
    crops
}

/// How much a crop is magnified: by `up / down`, one of them 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    /// Each pixel drawn as `up` x `up` pixels.
    pub up: u32,
    /// Each `down` x `down` block of pixels drawn as one (their average).
    pub down: u32,
}

impl Scale {
    /// A length of `n` crop pixels, in panel pixels (a partial block counts whole).
    pub fn length(self, n: u32) -> u32 {
        (n * self.up).div_ceil(self.down)
    }

    /// `rect` (in frame pixels) in the panel of `crop`: clipped to the crop, moved to its
    /// corner and scaled; `None` when it is outside the crop.
    pub fn place(self, rect: PixelRect, crop: PixelRect) -> Option<PixelRect> {
        let r = rect.intersection(crop)?;
        let at = |v: u32, origin: u32| (v - origin) * self.up / self.down;
        let end = |v: u32, origin: u32| ((v - origin) * self.up).div_ceil(self.down);
        Some(PixelRect {
            x0: at(r.x0, crop.x0),
            y0: at(r.y0, crop.y0),
            x1: end(r.x1, crop.x0),
            y1: end(r.y1, crop.y0),
        })
    }
}

/// The largest panel: two side by side make a composite about 1,230 pixels wide.
pub const PANEL_MAX: (u32, u32) = (600, 420);
/// Small crops are magnified (by whole steps, at most 4 times) towards this size.
pub const PANEL_READABLE: (u32, u32) = (400, 300);

/// The scale of a `width` by `height` crop: shrunk by the smallest whole step that fits
/// [`PANEL_MAX`], else magnified by the largest whole step (1 to 4) that stays within
/// [`PANEL_READABLE`].
pub fn panel_scale(width: u32, height: u32) -> Scale {
    let (width, height) = (width.max(1), height.max(1));
    if width > PANEL_MAX.0 || height > PANEL_MAX.1 {
        let down = width
            .div_ceil(PANEL_MAX.0)
            .max(height.div_ceil(PANEL_MAX.1));
        return Scale { up: 1, down };
    }
    let up = (PANEL_READABLE.0 / width)
        .min(PANEL_READABLE.1 / height)
        .clamp(1, 4);
    Scale { up, down: 1 }
}

/// Where a label goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelSpot {
    /// The label's rectangle. Inside the bounds given to [`place_labels`], except for labels
    /// that found no room there: those are in rows below the bounds.
    pub rect: PixelRect,
    /// A line from the label (first point) to its outline (second point), when the label
    /// could not sit beside its outline.
    pub leader: Option<[(u32, u32); 2]>,
}

/// A rectangle in signed pixels, for places that may fall outside the bounds.
#[derive(Debug, Clone, Copy)]
struct Area {
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
}

impl Area {
    fn of(r: PixelRect) -> Area {
        Area {
            x0: i64::from(r.x0),
            y0: i64::from(r.y0),
            x1: i64::from(r.x1),
            y1: i64::from(r.y1),
        }
    }

    fn at(x: i64, y: i64, (w, h): (u32, u32)) -> Area {
        Area {
            x0: x,
            y0: y,
            x1: x + i64::from(w),
            y1: y + i64::from(h),
        }
    }

    fn overlaps(&self, o: &Area) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    fn within(&self, o: &Area) -> bool {
        self.x0 >= o.x0 && self.y0 >= o.y0 && self.x1 <= o.x1 && self.y1 <= o.y1
    }

    /// Whether a label here would hide part of outline `o`'s frame: it overlaps `o` without
    /// lying inside it (clear of its 3-pixel border).
    fn crosses_frame_of(&self, o: &Area) -> bool {
        let inner = Area {
            x0: o.x0 + 3,
            y0: o.y0 + 3,
            x1: o.x1 - 3,
            y1: o.y1 - 3,
        };
        self.overlaps(o) && !self.within(&inner)
    }

    /// The distance between the two rectangles' nearest points, per axis, squared and summed.
    fn distance2(&self, o: &Area) -> i64 {
        let dx = (o.x0 - self.x1).max(self.x0 - o.x1).max(0);
        let dy = (o.y0 - self.y1).max(self.y0 - o.y1).max(0);
        dx * dx + dy * dy
    }

    fn rect(&self) -> PixelRect {
        let c = |v: i64| u32::try_from(v.max(0)).unwrap_or(u32::MAX);
        PixelRect {
            x0: c(self.x0),
            y0: c(self.y0),
            x1: c(self.x1),
            y1: c(self.y1),
        }
    }
}

/// The points of `label` and `outline` nearest each other: where a leader line runs.
fn leader(label: &Area, outline: &Area) -> [(u32, u32); 2] {
    fn axis(a0: i64, a1: i64, b0: i64, b1: i64) -> (i64, i64) {
        if a1 <= b0 {
            (a1 - 1, b0)
        } else if b1 <= a0 {
            (a0, b1 - 1)
        } else {
            let mid = (a0.max(b0) + a1.min(b1) - 1) / 2;
            (mid, mid)
        }
    }
    let (lx, ox) = axis(label.x0, label.x1, outline.x0, outline.x1);
    let (ly, oy) = axis(label.y0, label.y1, outline.y0, outline.y1);
    let c = |v: i64| u32::try_from(v.max(0)).unwrap_or(u32::MAX);
    [(c(lx), c(ly)), (c(ox), c(oy))]
}

/// Places label `i` (of size `sizes[i]`) beside outline `outlines[i]`, inside a `bounds` (width,
/// height) panel, in order, so that no two labels overlap:
///
/// 1. a spot touching the outline: above it at its left or right end, below it likewise, to
///    its right or left at its top, or inside its top-left corner, the first that neither
///    overlaps a label placed before nor hides part of an outline's frame;
/// 2. else the nearest spot on a grid over the panel (half a label's height apart) that does
///    neither, with a leader line to the outline;
/// 3. else the first of those spots (1, then 2) that overlaps no label, hiding a frame;
/// 4. else, when the panel is full, in rows below it (with a leader line).
///
/// `sizes` and `outlines` have one entry per label; a missing size counts as 0 x 0.
pub fn place_labels(
    outlines: &[PixelRect],
    sizes: &[(u32, u32)],
    bounds: (u32, u32),
) -> Vec<LabelSpot> {
    let panel = Area::of(PixelRect {
        x0: 0,
        y0: 0,
        x1: bounds.0,
        y1: bounds.1,
    });
    let frames: Vec<Area> = outlines.iter().map(|r| Area::of(*r)).collect();
    let mut placed: Vec<Area> = Vec::new();
    let mut spots = Vec::new();
    let (mut overflow_x, mut overflow_y, mut overflow_row) = (0i64, panel.y1 + 2, 0i64);
    for (i, outline) in frames.iter().enumerate() {
        let size = sizes.get(i).copied().unwrap_or((0, 0));
        let (w, h) = (i64::from(size.0), i64::from(size.1));
        let beside = [
            (outline.x0, outline.y0 - h),
            (outline.x1 - w, outline.y0 - h),
            (outline.x0, outline.y1),
            (outline.x1 - w, outline.y1),
            (outline.x1, outline.y0),
            (outline.x0 - w, outline.y0),
            (outline.x0 + 3, outline.y0 + 3),
        ]
        .map(|(x, y)| Area::at(x, y, size));
        let free =
            |a: &Area, placed: &[Area]| a.within(&panel) && !placed.iter().any(|p| p.overlaps(a));
        let clear = |a: &Area| frames.iter().all(|f| !a.crosses_frame_of(f));
        let step = (h / 2).max(2);
        let grid = || {
            let mut grid: Vec<Area> = Vec::new();
            let mut y = 0;
            while y + h <= panel.y1 {
                let mut x = 0;
                while x + w <= panel.x1 {
                    grid.push(Area::at(x, y, size));
                    x += step;
                }
                y += step;
            }
            grid.sort_by_key(|a| a.distance2(outline));
            grid
        };
        let found = beside
            .iter()
            .find(|a| free(a, &placed) && clear(a))
            .map(|a| (*a, false))
            .or_else(|| {
                let grid = grid();
                grid.iter()
                    .find(|a| free(a, &placed) && clear(a))
                    .map(|a| (*a, true))
                    .or_else(|| {
                        beside
                            .iter()
                            .find(|a| free(a, &placed))
                            .map(|a| (*a, false))
                            .or_else(|| grid.iter().find(|a| free(a, &placed)).map(|a| (*a, true)))
                    })
            });
        let (area, led) = found.unwrap_or_else(|| {
            if overflow_x > 0 && overflow_x + w > panel.x1 {
                overflow_x = 0;
                overflow_y += overflow_row + 2;
                overflow_row = 0;
            }
            let a = Area::at(overflow_x, overflow_y, size);
            overflow_x += w + 2;
            overflow_row = overflow_row.max(h);
            (a, true)
        });
        placed.push(area);
        spots.push(LabelSpot {
            rect: area.rect(),
            leader: led.then(|| leader(&area, outline)),
        });
    }
    spots
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x0: u32, y0: u32, x1: u32, y1: u32) -> PixelRect {
        PixelRect { x0, y0, x1, y1 }
    }

    fn overlap(a: PixelRect, b: PixelRect) -> bool {
        a.intersection(b).is_some()
    }

    #[test]
    fn near_changes_share_a_crop_and_far_ones_get_their_own() {
        // Two sprites 40 pixels apart and one in the far corner of a 1280x720 frame.
        let rects = [
            rect(100, 100, 140, 140),
            rect(180, 110, 220, 150),
            rect(1100, 600, 1140, 640),
        ];
        let crops = crop_regions(&rects, 1280, 720);
        assert_eq!(crops.len(), 2, "{crops:?}");
        let (near, far) = (crops[0], crops[1]);
        for r in &rects[..2] {
            assert_eq!(near.intersection(*r), Some(*r), "{near:?} holds {r:?}");
        }
        assert_eq!(far.intersection(rects[2]), Some(rects[2]));
        assert!(!overlap(near, far));
        // Padded by 32 pixels, at least a sixth of the frame each way, inside the frame.
        assert!(near.x0 <= 100 - 32 && near.x1 >= 220 + 32, "{near:?}");
        assert!(near.width() >= 1280 / 6 && near.height() >= 720 / 6);
        assert!(far.x1 <= 1280 && far.y1 <= 720);
        assert!(far.width() * 2 < 1280, "a crop, not the frame: {far:?}");
    }

    #[test]
    fn a_change_that_covers_the_frame_is_left_out_of_the_crops() {
        let sun = rect(0, 0, 320, 180);
        assert!(covers_frame(sun, 320, 180));
        assert!(crop_regions(&[sun], 320, 180).is_empty());
        let crops = crop_regions(&[sun, rect(10, 10, 20, 20)], 320, 180);
        assert_eq!(crops.len(), 1);
        assert!(crops[0].width() < 160, "{crops:?}");
        assert!(crop_regions(&[rect(5, 5, 5, 9)], 320, 180).is_empty());
    }

    #[test]
    fn many_scattered_changes_make_at_most_four_crops_holding_them_all() {
        let rects: Vec<PixelRect> = (0..9)
            .map(|i| {
                let (x, y) = ((i % 3) * 600, (i / 3) * 500);
                rect(x, y, x + 20, y + 20)
            })
            .collect();
        let crops = crop_regions(&rects, 1300, 1100);
        assert!(crops.len() <= MAX_CROPS, "{crops:?}");
        for r in &rects {
            assert!(
                crops.iter().any(|c| c.intersection(*r) == Some(*r)),
                "{r:?}"
            );
        }
        for (i, a) in crops.iter().enumerate() {
            for b in &crops[i + 1..] {
                assert!(!overlap(*a, *b), "{a:?} and {b:?} overlap");
            }
        }
    }

    #[test]
    fn a_row_of_changes_keeps_a_quarter_of_its_width_in_height() {
        let rects: Vec<PixelRect> = (0..20)
            .map(|i| rect(40 + i * 60, 300, 60 + i * 60, 320))
            .collect();
        let crops = crop_regions(&rects, 1280, 720);
        assert_eq!(crops.len(), 1);
        assert!(crops[0].height() * 4 >= crops[0].width(), "{crops:?}");
    }

    #[test]
    fn small_crops_are_magnified_and_large_ones_shrunk() {
        assert_eq!(panel_scale(100, 60), Scale { up: 4, down: 1 });
        assert_eq!(panel_scale(160, 90), Scale { up: 2, down: 1 });
        assert_eq!(panel_scale(400, 300), Scale { up: 1, down: 1 });
        assert_eq!(panel_scale(1280, 720), Scale { up: 1, down: 3 });
        assert_eq!(panel_scale(1200, 300), Scale { up: 1, down: 2 });
        let s = Scale { up: 1, down: 3 };
        assert_eq!(s.length(1280), 427);
        let crop = rect(100, 100, 400, 400);
        assert_eq!(
            s.place(rect(130, 160, 190, 190), crop),
            Some(rect(10, 20, 30, 30))
        );
        assert_eq!(s.place(rect(0, 0, 50, 50), crop), None);
        let up = Scale { up: 2, down: 1 };
        assert_eq!(
            up.place(rect(90, 110, 120, 120), crop),
            Some(rect(0, 20, 40, 40))
        );
    }

    /// The collision: a goblin, its hat and a crown side by side; each label's first
    /// choice is above its outline's left end, where the others' labels would sit.
    #[test]
    fn labels_of_close_entities_do_not_overlap() {
        let outlines = [
            rect(100, 100, 130, 160),
            rect(104, 84, 126, 100),
            rect(112, 90, 140, 104),
            rect(96, 96, 150, 170),
            rect(200, 20, 204, 24),
        ];
        let sizes = [(20, 14), (20, 14), (20, 14), (28, 14), (20, 14)];
        let spots = place_labels(&outlines, &sizes, (320, 180));
        assert_eq!(spots.len(), outlines.len());
        for (i, a) in spots.iter().enumerate() {
            assert_eq!(
                (a.rect.width(), a.rect.height()),
                sizes[i],
                "label {i} keeps its size"
            );
            assert!(
                a.rect.x1 <= 320 && a.rect.y1 <= 180,
                "label {i} inside: {a:?}"
            );
            for (j, b) in spots.iter().enumerate().skip(i + 1) {
                assert!(
                    !overlap(a.rect, b.rect),
                    "labels {i} and {j} overlap: {a:?} {b:?}"
                );
            }
        }
        // The far sprite's label sits at its first choice, above its left end.
        assert_eq!(spots[4].rect, rect(200, 6, 220, 20));
        assert_eq!(spots[4].leader, None);
        // Each label touches its outline, or has a leader line from it to the outline.
        for (i, (spot, outline)) in spots.iter().zip(&outlines).enumerate() {
            let touching = spot
                .rect
                .grown(1, 320, 180)
                .intersection(*outline)
                .is_some();
            match spot.leader {
                None => assert!(touching, "label {i} {spot:?} beside {outline:?}"),
                Some([from, to]) => {
                    assert!(outline.grown(1, 320, 180).contains(to.0, to.1), "{to:?}");
                    assert!(spot.rect.grown(1, 320, 180).contains(from.0, from.1));
                }
            }
        }
    }

    #[test]
    fn labels_beyond_a_full_panel_go_in_rows_below_it() {
        // A 40x30 panel holds four 20x14 labels at most.
        let outlines = [rect(18, 13, 22, 17); 7];
        let spots = place_labels(&outlines, &[(20, 14); 7], (40, 30));
        let inside = spots.iter().filter(|s| s.rect.y1 <= 30).count();
        assert!((1..=4).contains(&inside), "{spots:?}");
        for (i, a) in spots.iter().enumerate() {
            for b in &spots[i + 1..] {
                assert!(!overlap(a.rect, b.rect), "{a:?} {b:?}");
            }
            if a.rect.y1 > 30 {
                assert!(
                    a.rect.y0 >= 32 && a.rect.x1 <= 40 && a.leader.is_some(),
                    "{a:?}"
                );
            }
        }
    }
}
