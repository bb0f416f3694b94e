//! A review of two versions of a scene: the before and after captures with the changed
//! entities outlined by id path, a difference image, and the structural diff in words, as
//! Markdown ready for a pull request comment.
//!
//! Outline colours: added green, removed red, moved blue, edited yellow. Pixels that differ
//! (a channel off by more than the tolerance's step) are magenta in the difference image, over
//! the after image dimmed to grey.

use std::path::Path;

use image::{Rgba, RgbaImage};

use crate::compare::{Comparison, SizeMismatch, Tolerance, compare, differing_pixels};
use crate::headless::path_text;
use crate::job::{Capture, ChangeKind, EntityChangeWords, PixelRect, Rendered};

/// One changed entity and where it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewEntry {
    /// The change in words.
    pub change: EntityChangeWords,
    /// Its outline in the before image (removed, moved, edited), when it shows there.
    pub before: Option<PixelRect>,
    /// Its outline in the after image (added, moved, edited), when it shows there.
    pub after: Option<PixelRect>,
    /// Pixels that differ inside either outline.
    pub differing_inside: u64,
}

/// The images and findings of a review.
#[derive(Debug, Clone)]
pub struct Review {
    /// The base capture with the outlines of removed, moved (old place) and edited entities.
    pub before: RgbaImage,
    /// The head capture with the outlines of added, moved (new place) and edited entities.
    pub after: RgbaImage,
    /// The after image in grey, differing pixels magenta, every outline.
    pub difference: RgbaImage,
    /// The two captures compared.
    pub comparison: Comparison,
    /// One entry per change.
    pub entries: Vec<ReviewEntry>,
    /// Differing pixels outside every outline (shadows and light falling elsewhere, or a
    /// change the diff does not name).
    pub differing_outside: u64,
    /// The tolerance used.
    pub tolerance: Tolerance,
}

/// Why a review could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// A capture could not be read.
    #[error("{path}: {message}")]
    Image {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The render gave other than two captures.
    #[error("a review needs two captures, the render gave {0}")]
    Captures(usize),
    /// The captures differ in size.
    #[error(transparent)]
    Size(#[from] SizeMismatch),
}

const ADDED: Rgba<u8> = Rgba([40, 200, 80, 255]);
const REMOVED: Rgba<u8> = Rgba([235, 50, 50, 255]);
const MOVED: Rgba<u8> = Rgba([60, 140, 255, 255]);
const EDITED: Rgba<u8> = Rgba([250, 200, 40, 255]);
const DIFFERS: Rgba<u8> = Rgba([255, 0, 255, 255]);

/// The colour of an outline of `kind`.
pub fn outline_colour(kind: ChangeKind) -> Rgba<u8> {
    match kind {
        ChangeKind::Added => ADDED,
        ChangeKind::Removed => REMOVED,
        ChangeKind::Moved => MOVED,
        ChangeKind::Edited => EDITED,
    }
}

fn read(capture: &Capture) -> Result<RgbaImage, ReviewError> {
    image::open(&capture.image)
        .map(|i| i.to_rgba8())
        .map_err(|e| ReviewError::Image {
            path: capture.image.display().to_string(),
            message: e.to_string(),
        })
}

fn find(capture: &Capture, path: &[u64], subtree: bool) -> Option<PixelRect> {
    let found = capture.entities.iter().find(|b| b.path == path)?;
    if subtree { found.subtree } else { found.own }
}

/// Builds the review of a render of two scenes (base, head).
///
/// # Errors
/// [`ReviewError`]: not two captures, a capture that cannot be read, captures of two sizes.
pub fn review(rendered: &Rendered, tolerance: Tolerance) -> Result<Review, ReviewError> {
    let [base, head] = &rendered.captures[..] else {
        return Err(ReviewError::Captures(rendered.captures.len()));
    };
    let (before, after) = (read(base)?, read(head)?);
    let comparison = compare(&before, &after, tolerance)?;
    let mask = differing_pixels(&before, &after, tolerance)?;
    let width = before.width();
    let mut entries = Vec::new();
    for change in &rendered.changes {
        if change.path.is_empty() {
            entries.push(ReviewEntry {
                change: change.clone(),
                before: None,
                after: None,
                differing_inside: 0,
            });
            continue;
        }
        let subtree = change.kind != ChangeKind::Edited;
        let (b, a) = match change.kind {
            ChangeKind::Added => (None, find(head, &change.path, true)),
            ChangeKind::Removed => (find(base, &change.path, true), None),
            _ => (
                find(base, &change.path, subtree),
                find(head, &change.path, subtree),
            ),
        };
        let rects: Vec<PixelRect> = [b, a].into_iter().flatten().collect();
        entries.push(ReviewEntry {
            change: change.clone(),
            before: b,
            after: a,
            differing_inside: count_inside(&mask, width, &rects),
        });
    }
    let all: Vec<PixelRect> = entries
        .iter()
        .flat_map(|e| [e.before, e.after])
        .flatten()
        .collect();
    let differing_outside = comparison.differing - count_inside(&mask, width, &all);

    let mut difference = RgbaImage::new(after.width(), after.height());
    for ((x, y, out), differs) in difference.enumerate_pixels_mut().zip(&mask) {
        *out = if *differs {
            DIFFERS
        } else {
            let p = after.get_pixel(x, y).0;
            let luma = (0.299 * p[0] as f32 + 0.587 * p[1] as f32 + 0.114 * p[2] as f32) * 0.4;
            let v = luma as u8;
            Rgba([v, v, v, 255])
        };
    }
    let (mut before_out, mut after_out) = (before, after);
    for e in &entries {
        let colour = outline_colour(e.change.kind);
        let label = path_text(&e.change.path);
        if let Some(r) = e.before {
            outline(&mut before_out, r, colour, &label);
            outline(&mut difference, r, colour, &label);
        }
        if let Some(r) = e.after {
            outline(&mut after_out, r, colour, &label);
            if e.before != Some(r) {
                outline(&mut difference, r, colour, &label);
            }
        }
    }
    Ok(Review {
        before: before_out,
        after: after_out,
        difference,
        comparison,
        entries,
        differing_outside,
        tolerance,
    })
}

/// Differing pixels inside any of `rects`, each pixel once.
fn count_inside(mask: &[bool], width: u32, rects: &[PixelRect]) -> u64 {
    if rects.is_empty() || width == 0 {
        return 0;
    }
    let mut n = 0;
    for (i, differs) in mask.iter().enumerate() {
        if *differs {
            let (x, y) = ((i as u32) % width, (i as u32) / width);
            if rects.iter().any(|r| r.contains(x, y)) {
                n += 1;
            }
        }
    }
    n
}

/// A 2-pixel frame around `rect` and the label above it (inside when there is no room).
fn outline(image: &mut RgbaImage, rect: PixelRect, colour: Rgba<u8>, label: &str) {
    let (w, h) = image.dimensions();
    let r = rect.grown(2, w, h);
    for t in 0..2 {
        for x in r.x0..r.x1 {
            for y in [r.y0 + t, r.y1.saturating_sub(1 + t)] {
                if y < h {
                    image.put_pixel(x, y, colour);
                }
            }
        }
        for y in r.y0..r.y1 {
            for x in [r.x0 + t, r.x1.saturating_sub(1 + t)] {
                if x < w {
                    image.put_pixel(x, y, colour);
                }
            }
        }
    }
    let label_h = GLYPH_H * SCALE + 4;
    let y = if r.y0 >= label_h {
        r.y0 - label_h
    } else {
        r.y0 + 2
    };
    text(image, r.x0, y, label, colour);
}

const SCALE: u32 = 2;
const GLYPH_W: u32 = 3;
const GLYPH_H: u32 = 5;

/// The rows of a 3x5 glyph, top first, three bits each (the high bit on the left).
fn glyph(c: char) -> [u8; 5] {
    match c {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 1, 1, 1],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        '[' => [6, 4, 4, 4, 6],
        ']' => [3, 1, 1, 1, 3],
        ',' => [0, 0, 0, 2, 4],
        _ => [0; 5],
    }
}

/// `text` (digits, brackets, commas) on a dark box at `(x, y)`, clipped to the image.
fn text(image: &mut RgbaImage, x: u32, y: u32, text: &str, colour: Rgba<u8>) {
    let (w, h) = image.dimensions();
    let advance = (GLYPH_W + 1) * SCALE;
    let box_w = advance * text.chars().count() as u32 + 2 * SCALE;
    let box_h = GLYPH_H * SCALE + 2 * SCALE;
    for yy in y..(y + box_h).min(h) {
        for xx in x..(x + box_w).min(w) {
            image.put_pixel(xx, yy, Rgba([0, 0, 0, 255]));
        }
    }
    for (i, c) in text.chars().enumerate() {
        let gx = x + SCALE + i as u32 * advance;
        for (row, bits) in glyph(c).iter().enumerate() {
            for col in 0..GLYPH_W {
                if bits & (4 >> col) == 0 {
                    continue;
                }
                for dy in 0..SCALE {
                    for dx in 0..SCALE {
                        let px = gx + col * SCALE + dx;
                        let py = y + SCALE + row as u32 * SCALE + dy;
                        if px < w && py < h {
                            image.put_pixel(px, py, colour);
                        }
                    }
                }
            }
        }
    }
}

impl Review {
    /// Writes `before.png`, `after.png` and `difference.png` into `dir`.
    ///
    /// # Errors
    /// The image encoder's error, as an I/O error.
    pub fn write_images(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        for (name, image) in [
            ("before.png", &self.before),
            ("after.png", &self.after),
            ("difference.png", &self.difference),
        ] {
            crate::compare::save_png(image, &dir.join(name))?;
        }
        Ok(())
    }

    /// The review as Markdown: a heading naming `title`, the three images (linked as
    /// `images/before.png` ..., `images` relative to the report), what differs, and the
    /// changes by id path.
    pub fn markdown(&self, title: &str, images: &str, adapter: &str) -> String {
        let mut md = String::new();
        let c = &self.comparison;
        md.push_str(&format!("## `{title}`\n\n"));
        let verdict = if c.within(self.tolerance) {
            "the same picture within the tolerance"
        } else {
            "the pictures differ"
        };
        md.push_str(&format!(
            "{:.2}% of pixels differ ({} of {}; a pixel differs when a channel is off by more than {}/255): {verdict}. Rendered on {adapter}.\n\n",
            c.share() * 100.0,
            c.differing,
            c.pixels,
            self.tolerance.channel,
        ));
        md.push_str("| before | after | difference |\n|---|---|---|\n");
        md.push_str(&format!(
            "| ![before]({images}/before.png) | ![after]({images}/after.png) | ![difference]({images}/difference.png) |\n\n"
        ));
        if self.entries.is_empty() {
            md.push_str("No entity changed.\n");
        } else {
            md.push_str(&format!(
                "{} changed (outlines: green added, red removed, blue moved, yellow edited; magenta: differing pixels):\n\n",
                match self.entries.len() {
                    1 => "1 entity".to_owned(),
                    n => format!("{n} entities"),
                }
            ));
        }
        for e in &self.entries {
            let ch = &e.change;
            let at = if ch.path.is_empty() {
                String::new()
            } else {
                format!(" `{}`", path_text(&ch.path))
            };
            let seen = if ch.path.is_empty() {
                String::new()
            } else if e.before.is_none() && e.after.is_none() {
                " (not in the picture)".to_owned()
            } else if e.differing_inside == 0 {
                " (no pixel differs in its outline)".to_owned()
            } else {
                format!(" ({} pixels differ in its outline)", e.differing_inside)
            };
            md.push_str(&format!(
                "- **{}**{at} {:?}{seen}\n",
                ch.kind.word(),
                ch.name
            ));
            for line in &ch.lines {
                md.push_str(&format!("  - {line}\n"));
            }
        }
        if self.differing_outside > 0 {
            md.push_str(&format!(
                "\n{} differing pixels are outside every outline (light and shadow falling elsewhere).\n",
                self.differing_outside
            ));
        }
        md
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_draw_their_digits() {
        let mut image = RgbaImage::from_pixel(40, 20, Rgba([255, 255, 255, 255]));
        text(&mut image, 0, 0, "[1]", ADDED);
        let lit = image.pixels().filter(|p| **p == ADDED).count();
        // `[` has 7 lit cells, `1` 8, `]` 7; each cell is 2x2 pixels.
        assert_eq!(lit, (7 + 8 + 7) * 4);
        assert_eq!(*image.get_pixel(39, 19), Rgba([255, 255, 255, 255]));
    }

    #[test]
    fn differing_pixels_are_counted_once_inside_overlapping_outlines() {
        let mask = vec![true, true, false, true];
        let a = PixelRect {
            x0: 0,
            y0: 0,
            x1: 2,
            y1: 1,
        };
        let b = PixelRect {
            x0: 1,
            y0: 0,
            x1: 2,
            y1: 2,
        };
        assert_eq!(count_inside(&mask, 2, &[a, b]), 3);
        assert_eq!(count_inside(&mask, 2, &[b]), 2);
        assert_eq!(count_inside(&mask, 2, &[]), 0);
    }
}
