//! The picture a reviewer sees first: before | after side by side, cropped to where the changes
//! are ([`layout::crop_regions`]), one row per crop, each changed entity outlined in both
//! halves with its number (the row of the report's table), labels placed so that none covers
//! another ([`layout::place_labels`]). Also the marks of the full frames ([`mark_frame`]).
//!
//! In each half an entity's outline is solid where it is on that side and dashed where it is
//! on the other (an added entity's place in the before half, a moved one's other place).

use image::{Rgba, RgbaImage};

use crate::draw;
use crate::job::{ChangeKind, PixelRect};
use crate::layout::{self, LabelSpot, Scale};

/// A changed entity to mark: its number, kind and outline on each side (frame pixels).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// Its row in the report's table, from 1.
    pub number: usize,
    /// What changed, which sets the colour.
    pub kind: ChangeKind,
    /// Its outline in the before picture.
    pub before: Option<PixelRect>,
    /// Its outline in the after picture.
    pub after: Option<PixelRect>,
}

/// A composite and where its parts went.
#[derive(Debug, Clone)]
pub struct Composite {
    /// The picture.
    pub image: RgbaImage,
    /// The crops, in frame pixels, one per row; the whole frame when no change could be
    /// cropped to (none shows, or every one covers the frame).
    pub crops: Vec<PixelRect>,
    /// Every label drawn: its number and rectangle, in composite pixels.
    pub labels: Vec<(usize, PixelRect)>,
}

const ADDED: Rgba<u8> = Rgba([40, 200, 80, 255]);
const REMOVED: Rgba<u8> = Rgba([235, 50, 50, 255]);
const MOVED: Rgba<u8> = Rgba([60, 140, 255, 255]);
const EDITED: Rgba<u8> = Rgba([250, 200, 40, 255]);
const BACKGROUND: Rgba<u8> = Rgba([30, 31, 34, 255]);
const CAPTION: Rgba<u8> = Rgba([200, 200, 205, 255]);
const PANEL_EDGE: Rgba<u8> = Rgba([90, 92, 98, 255]);
const MARGIN: u32 = 10;
const GAP: u32 = 12;
/// Labels and captions of the composite: 5x7 glyphs drawn 2 pixels a font pixel.
const SCALE: u32 = 2;

/// The colour of an outline of `kind`: added green, removed red, moved blue, edited yellow.
pub fn outline_colour(kind: ChangeKind) -> Rgba<u8> {
    match kind {
        ChangeKind::Added => ADDED,
        ChangeKind::Removed => REMOVED,
        ChangeKind::Moved => MOVED,
        ChangeKind::Edited => EDITED,
    }
}

/// One outline to draw and maybe label, in the pixels of the picture it is drawn on.
#[derive(Debug, Clone, Copy)]
struct Outline {
    number: usize,
    colour: Rgba<u8>,
    /// The entity's rectangle; the 2-pixel frame is drawn just outside it.
    rect: PixelRect,
    dashed: bool,
    labelled: bool,
}

/// Outlines and labels planned for one picture (a panel or a full frame).
struct Plan {
    outlines: Vec<Outline>,
    /// One per labelled outline, in order.
    spots: Vec<(usize, LabelSpot)>,
    scale: u32,
}

impl Plan {
    fn new(outlines: Vec<Outline>, bounds: (u32, u32), scale: u32) -> Plan {
        let labelled: Vec<&Outline> = outlines.iter().filter(|o| o.labelled).collect();
        let anchors: Vec<PixelRect> = labelled
            .iter()
            .map(|o| o.rect.grown(2, bounds.0, bounds.1))
            .collect();
        let sizes: Vec<(u32, u32)> = labelled
            .iter()
            .map(|o| draw::label_size(&o.number.to_string(), scale))
            .collect();
        let spots = layout::place_labels(&anchors, &sizes, bounds)
            .into_iter()
            .enumerate()
            .collect();
        Plan {
            outlines,
            spots,
            scale,
        }
    }

    /// How far below the picture's top its labels reach (those that found no room in it).
    fn bottom(&self) -> u32 {
        self.spots.iter().map(|(_, s)| s.rect.y1).max().unwrap_or(0)
    }

    /// Draws the plan onto `image` with the picture's corner at `at`; labels that fall outside
    /// `clip` (in the picture's pixels) are left out when `clip` is given. Returns the labels
    /// drawn, with their numbers, in `image`'s pixels.
    fn draw(
        &self,
        image: &mut RgbaImage,
        at: (u32, u32),
        clip: Option<(u32, u32)>,
    ) -> Vec<(usize, PixelRect)> {
        let shift = |r: PixelRect| PixelRect {
            x0: r.x0 + at.0,
            y0: r.y0 + at.1,
            x1: r.x1 + at.0,
            y1: r.y1 + at.1,
        };
        let point = |p: (u32, u32)| (p.0 + at.0, p.1 + at.1);
        for dashed in [true, false] {
            for o in self.outlines.iter().filter(|o| o.dashed == dashed) {
                draw::outline(image, shift(o.rect), o.colour, 2, dashed);
            }
        }
        let labelled: Vec<&Outline> = self.outlines.iter().filter(|o| o.labelled).collect();
        let shown = |s: &LabelSpot| clip.is_none_or(|(w, h)| s.rect.x1 <= w && s.rect.y1 <= h);
        for (i, spot) in &self.spots {
            if let (Some([from, to]), true) = (spot.leader, shown(spot)) {
                draw::line(image, point(from), point(to), labelled[*i].colour);
            }
        }
        let mut drawn = Vec::new();
        for (i, spot) in &self.spots {
            if shown(spot) {
                let o = labelled[*i];
                let rect = shift(spot.rect);
                draw::label(image, rect, &o.number.to_string(), self.scale, o.colour);
                drawn.push((o.number, rect));
            }
        }
        drawn
    }
}

/// Outlines `marks` on a full frame (the before or after capture, or the difference image):
/// each mark's rectangle on the sides `sides` picks (both for the difference image), numbered.
/// Labels are 5x7 glyphs at scale 2 on frames at least 360 pixels high, else at scale 1; a
/// label that finds no room in the frame is left out (the composite and the table have it).
pub fn mark_frame(
    image: &mut RgbaImage,
    marks: &[Mark],
    sides: impl Fn(&Mark) -> Vec<PixelRect>,
) -> Vec<(usize, PixelRect)> {
    let (w, h) = image.dimensions();
    let mut outlines = Vec::new();
    for m in marks {
        let mut rects = sides(m);
        rects.dedup();
        for (i, rect) in rects.into_iter().enumerate() {
            outlines.push(Outline {
                number: m.number,
                colour: outline_colour(m.kind),
                rect,
                dashed: false,
                labelled: i == 0,
            });
        }
    }
    let plan = Plan::new(outlines, (w, h), if h >= 360 { 2 } else { 1 });
    plan.draw(image, (0, 0), Some((w, h)))
}

/// One row of the composite: a crop of both pictures with their plans.
struct Row {
    panels: [(RgbaImage, Plan); 2],
    size: (u32, u32),
    height: u32,
}

/// The outlines of `marks` in the panel of `crop` at `scale` for one side: solid where the
/// entity is on this side, dashed where it is on the other; the label on the solid one when
/// it is in the crop, else on the dashed one.
fn panel_outlines(
    marks: &[Mark],
    crop: PixelRect,
    scale: Scale,
    frame: (u32, u32),
    this: impl Fn(&Mark) -> Option<PixelRect>,
    other: impl Fn(&Mark) -> Option<PixelRect>,
) -> Vec<Outline> {
    let place = |r: Option<PixelRect>| {
        r.filter(|r| !layout::covers_frame(*r, frame.0, frame.1))
            .and_then(|r| scale.place(r, crop))
    };
    let mut out = Vec::new();
    for m in marks {
        let solid = place(this(m));
        let dashed = place(other(m)).filter(|d| Some(*d) != solid);
        for (rect, is_dashed) in [(solid, false), (dashed, true)] {
            if let Some(rect) = rect {
                out.push(Outline {
                    number: m.number,
                    colour: outline_colour(m.kind),
                    rect,
                    dashed: is_dashed,
                    labelled: !is_dashed || solid.is_none(),
                });
            }
        }
    }
    out
}

/// Builds the composite of `before` and `after` (captures of one size, without marks) for
/// `marks` (the changes that show; give none that draw nothing).
pub fn composite(before: &RgbaImage, after: &RgbaImage, marks: &[Mark]) -> Composite {
    let (w, h) = before.dimensions();
    let rects: Vec<PixelRect> = marks
        .iter()
        .flat_map(|m| [m.before, m.after])
        .flatten()
        .collect();
    let mut crops = layout::crop_regions(&rects, w, h);
    if crops.is_empty() {
        crops.push(PixelRect {
            x0: 0,
            y0: 0,
            x1: w,
            y1: h,
        });
    }
    let rows: Vec<Row> = crops
        .iter()
        .map(|crop| {
            let scale = layout::panel_scale(crop.width(), crop.height());
            let size = (scale.length(crop.width()), scale.length(crop.height()));
            let panel = |image: &RgbaImage, outlines: Vec<Outline>| {
                (
                    draw::scaled(image, *crop, scale),
                    Plan::new(outlines, size, SCALE),
                )
            };
            let panels = [
                panel(
                    before,
                    panel_outlines(marks, *crop, scale, (w, h), |m| m.before, |m| m.after),
                ),
                panel(
                    after,
                    panel_outlines(marks, *crop, scale, (w, h), |m| m.after, |m| m.before),
                ),
            ];
            let height = panels
                .iter()
                .map(|(_, p)| p.bottom())
                .fold(size.1, u32::max);
            Row {
                panels,
                size,
                height,
            }
        })
        .collect();
    let caption = draw::text_size("BEFORE", SCALE).1 + 8;
    // The after halves in one column, right of the widest before half.
    let column = rows.iter().map(|r| r.size.0).max().unwrap_or(0);
    let xs = [MARGIN, MARGIN + column + GAP];
    let width = xs[1] + column + MARGIN;
    let height = rows.iter().map(|r| r.height + GAP).sum::<u32>() - GAP + 2 * MARGIN + caption;
    let mut image = RgbaImage::from_pixel(width, height, BACKGROUND);
    let mut labels = Vec::new();
    let mut y = MARGIN + caption;
    for (i, row) in rows.iter().enumerate() {
        if i == 0 {
            draw::text(&mut image, xs[0], MARGIN, "BEFORE", SCALE, CAPTION);
            draw::text(&mut image, xs[1], MARGIN, "AFTER", SCALE, CAPTION);
        }
        for ((picture, _), x) in row.panels.iter().zip(xs) {
            let edge = PixelRect {
                x0: x,
                y0: y,
                x1: x + row.size.0,
                y1: y + row.size.1,
            };
            draw::outline(&mut image, edge, PANEL_EDGE, 1, false);
            image::imageops::replace(&mut image, picture, i64::from(x), i64::from(y));
        }
        for ((_, plan), x) in row.panels.iter().zip(xs) {
            labels.extend(plan.draw(&mut image, (x, y), None));
        }
        y += row.height + GAP;
    }
    Composite {
        image,
        crops,
        labels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x0: u32, y0: u32, x1: u32, y1: u32) -> PixelRect {
        PixelRect { x0, y0, x1, y1 }
    }

    fn count(image: &RgbaImage, colour: Rgba<u8>) -> usize {
        image.pixels().filter(|p| **p == colour).count()
    }

    #[test]
    fn a_moved_entity_is_cropped_magnified_and_outlined_in_both_halves() {
        let grey = Rgba([128, 128, 128, 255]);
        let mut before = RgbaImage::from_pixel(320, 180, grey);
        let mut after = before.clone();
        for (image, x) in [(&mut before, 40), (&mut after, 60)] {
            for y in 40..50 {
                for xx in x..x + 10 {
                    image.put_pixel(xx, y, Rgba([200, 0, 0, 255]));
                }
            }
        }
        let marks = [Mark {
            number: 1,
            kind: ChangeKind::Moved,
            before: Some(rect(40, 40, 50, 50)),
            after: Some(rect(60, 40, 70, 50)),
        }];
        let c = composite(&before, &after, &marks);
        assert_eq!(c.crops.len(), 1);
        let crop = c.crops[0];
        assert!(crop.width() < 160 && crop.contains(45, 45) && crop.contains(65, 45));
        // Magnified: wider than the crop twice over (two halves), each at least twice.
        assert!(
            c.image.width() >= 4 * crop.width(),
            "{:?}",
            c.image.dimensions()
        );
        // One label per half, apart.
        assert_eq!(c.labels.len(), 2, "{:?}", c.labels);
        let (a, b) = (c.labels[0], c.labels[1]);
        assert_eq!((a.0, b.0), (1, 1));
        assert!(a.1.x1 <= b.1.x0, "before's on the left");
        // The moved outline's blue, solid and dashed, in both halves.
        let half = c.image.width() / 2;
        let blue = |x0: u32, x1: u32| {
            (x0..x1)
                .flat_map(|x| (0..c.image.height()).map(move |y| (x, y)))
                .filter(|(x, y)| *c.image.get_pixel(*x, *y) == MOVED)
                .count()
        };
        assert!(blue(0, half) > 100 && blue(half, c.image.width()) > 100);
        assert!(count(&c.image, Rgba([200, 0, 0, 255])) > 2 * 100 * 4);
    }

    #[test]
    fn with_nothing_to_crop_the_composite_is_the_whole_frames() {
        let image = RgbaImage::from_pixel(320, 180, Rgba([10, 20, 30, 255]));
        let sun = Mark {
            number: 1,
            kind: ChangeKind::Edited,
            before: Some(rect(0, 0, 320, 180)),
            after: Some(rect(0, 0, 320, 180)),
        };
        let c = composite(&image, &image, &[sun]);
        assert_eq!(c.crops, [rect(0, 0, 320, 180)]);
        assert!(c.labels.is_empty(), "a change everywhere is not outlined");
        assert_eq!(count(&c.image, Rgba([10, 20, 30, 255])), 2 * 320 * 180);
    }

    #[test]
    fn full_frames_number_their_outlines_without_overlapping_labels() {
        let mut image = RgbaImage::from_pixel(160, 90, Rgba([0, 0, 0, 255]));
        let marks: Vec<Mark> = (0..4)
            .map(|i| Mark {
                number: i + 1,
                kind: ChangeKind::Edited,
                before: Some(rect(60 + i as u32 * 6, 40, 66 + i as u32 * 6, 46)),
                after: None,
            })
            .collect();
        let labels = mark_frame(&mut image, &marks, |m| m.before.into_iter().collect());
        assert_eq!(labels.len(), 4);
        let mut numbers: Vec<usize> = labels.iter().map(|l| l.0).collect();
        numbers.sort();
        assert_eq!(numbers, [1, 2, 3, 4]);
        for (i, (_, a)) in labels.iter().enumerate() {
            assert!(a.x1 <= 160 && a.y1 <= 90);
            for (_, b) in &labels[i + 1..] {
                assert!(a.intersection(*b).is_none(), "{a:?} {b:?}");
            }
        }
        assert!(count(&image, EDITED) > 4 * 20);
    }
}
