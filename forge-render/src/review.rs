//! A review of two versions of a scene: the changed entities numbered in the order of the
//! report's table, a composite of where they are ([`composite`]: before | after, cropped and
//! outlined), the full before and after captures with the changes outlined, a difference
//! image, and the structural diff in words ([`crate::report`] writes it as Markdown).
//!
//! Outline colours: added green, removed red, moved blue, edited yellow. Pixels that differ
//! (a channel off by more than the tolerance's step) are magenta in the difference image, over
//! the after image dimmed to grey.

use std::path::Path;

use image::{Rgba, RgbaImage};

use crate::compare::{Comparison, SizeMismatch, Tolerance, compare_masked};
use crate::composite::{Composite, Mark, composite, mark_frame};
use crate::job::{Capture, ChangeKind, EntityChangeWords, PixelRect, Rendered};
use crate::layout::covers_frame;

/// How a change shows in the pictures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Pixels differ inside its outline, which is small enough to crop to.
    Outlined,
    /// Pixels differ inside its outline, which covers more than half the picture (a directional
    /// light, a light whose reach holds the view): the full frames show it.
    Everywhere,
    /// Nothing of it shows: it changed only what draws nothing (a name, the game's own
    /// components), it is off the picture, or no pixel differs inside its outline.
    NotVisible,
}

/// One changed entity and where it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewEntry {
    /// Its number: its row in the report's table and its label in the pictures, from 1.
    pub number: usize,
    /// The change in words.
    pub change: EntityChangeWords,
    /// Its outline in the before image (removed, moved, edited), when it shows there.
    pub before: Option<PixelRect>,
    /// Its outline in the after image (added, moved, edited), when it shows there.
    pub after: Option<PixelRect>,
    /// Pixels that differ inside either outline.
    pub differing_inside: u64,
    /// How it shows.
    pub seen: Seen,
}

/// The images and findings of a review.
#[derive(Debug, Clone)]
pub struct Review {
    /// Before | after, cropped to the changes, each numbered: what a reviewer sees first.
    pub composite: Composite,
    /// The base capture with the outlines of removed, moved (old place) and edited entities.
    pub before: RgbaImage,
    /// The head capture with the outlines of added, moved (new place) and edited entities.
    pub after: RgbaImage,
    /// The after image in grey, differing pixels magenta, every outline.
    pub difference: RgbaImage,
    /// The two captures compared.
    pub comparison: Comparison,
    /// One entry per change, in the order of the structural diff.
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

const DIFFERS: Rgba<u8> = Rgba([255, 0, 255, 255]);

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
    let (comparison, mask) = compare_masked(&before, &after, tolerance)?;
    let (width, height) = before.dimensions();
    let mut entries = Vec::new();
    for (i, change) in rendered.changes.iter().enumerate() {
        let (b, a) = if change.path.is_empty() {
            (None, None)
        } else {
            let subtree = change.kind != ChangeKind::Edited;
            match change.kind {
                ChangeKind::Added => (None, find(head, &change.path, true)),
                ChangeKind::Removed => (find(base, &change.path, true), None),
                _ => (
                    find(base, &change.path, subtree),
                    find(head, &change.path, subtree),
                ),
            }
        };
        let rects: Vec<PixelRect> = [b, a].into_iter().flatten().collect();
        let differing_inside = count_inside(&mask, width, &rects);
        let seen = if !change.draws || differing_inside == 0 {
            Seen::NotVisible
        } else if rects.iter().any(|r| covers_frame(*r, width, height)) {
            Seen::Everywhere
        } else {
            Seen::Outlined
        };
        entries.push(ReviewEntry {
            number: i + 1,
            change: change.clone(),
            before: b,
            after: a,
            differing_inside,
            seen,
        });
    }
    let all: Vec<PixelRect> = entries
        .iter()
        .flat_map(|e| [e.before, e.after])
        .flatten()
        .collect();
    let differing_outside = comparison.differing - count_inside(&mask, width, &all);

    let mut difference = RgbaImage::new(width, height);
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
    let mark = |e: &ReviewEntry| Mark {
        number: e.number,
        kind: e.change.kind,
        before: e.before,
        after: e.after,
    };
    let cropped: Vec<Mark> = entries
        .iter()
        .filter(|e| e.seen == Seen::Outlined)
        .map(mark)
        .collect();
    let shown: Vec<Mark> = entries
        .iter()
        .filter(|e| e.seen != Seen::NotVisible)
        .map(mark)
        .collect();
    let composite = composite(&before, &after, &cropped);
    let (mut before_out, mut after_out) = (before, after);
    mark_frame(&mut before_out, &shown, |m| m.before.into_iter().collect());
    mark_frame(&mut after_out, &shown, |m| m.after.into_iter().collect());
    mark_frame(&mut difference, &shown, |m| {
        [m.before, m.after].into_iter().flatten().collect()
    });
    Ok(Review {
        composite,
        before: before_out,
        after: after_out,
        difference,
        comparison,
        entries,
        differing_outside,
        tolerance,
    })
}

/// Differing pixels inside any of `rects`, each pixel once, in time in proportion to the
/// rectangles' area: one or two counted directly (the second less what it shares with the
/// first), more through a mask of the pixels they cover.
fn count_inside(mask: &[bool], width: u32, rects: &[PixelRect]) -> u64 {
    if width == 0 {
        return 0;
    }
    let height = (mask.len() / width as usize) as u32;
    let picture = PixelRect {
        x0: 0,
        y0: 0,
        x1: width,
        y1: height,
    };
    let w = width as usize;
    let count = |r: Option<PixelRect>| {
        r.and_then(|r| r.intersection(picture)).map_or(0, |r| {
            (r.y0..r.y1)
                .map(|y| {
                    let row = &mask[y as usize * w..][r.x0 as usize..r.x1 as usize];
                    row.iter().filter(|d| **d).count() as u64
                })
                .sum::<u64>()
        })
    };
    match rects {
        [] => 0,
        [a] => count(Some(*a)),
        [a, b] => count(Some(*a)) + count(Some(*b)) - count(a.intersection(*b)),
        _ => {
            let mut covered = vec![false; mask.len()];
            for r in rects.iter().filter_map(|r| r.intersection(picture)) {
                for y in r.y0..r.y1 {
                    let start = y as usize * w;
                    covered[start + r.x0 as usize..start + r.x1 as usize].fill(true);
                }
            }
            mask.iter()
                .zip(&covered)
                .filter(|(differs, inside)| **differs && **inside)
                .count() as u64
        }
    }
}

impl Review {
    /// Writes `composite.png`, `before.png`, `after.png` and `difference.png` into `dir`, the
    /// four at once.
    ///
    /// # Errors
    /// The first file's or encoder's error, as an I/O error.
    pub fn write_images(&self, dir: &Path) -> std::io::Result<()> {
        use bevy_internal::tasks::{ComputeTaskPool, TaskPool};
        std::fs::create_dir_all(dir)?;
        let files = [
            ("composite.png", &self.composite.image),
            ("before.png", &self.before),
            ("after.png", &self.after),
            ("difference.png", &self.difference),
        ];
        let pool = ComputeTaskPool::get_or_init(TaskPool::default);
        let written = pool.scope(|s| {
            for (name, image) in files {
                let path = dir.join(name);
                s.spawn(async move { crate::compare::save_png(image, &path) });
            }
        });
        written.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(count_inside(&mask, 2, &[a]), 2);
        assert_eq!(count_inside(&mask, 2, &[]), 0);
        let outside = PixelRect {
            x0: 1,
            y0: 1,
            x1: 9,
            y1: 9,
        };
        assert_eq!(
            count_inside(&mask, 2, &[outside]),
            1,
            "clipped to the picture"
        );
        assert_eq!(
            count_inside(&mask, 2, &[a, b, outside]),
            3,
            "three through a mask"
        );
        assert_eq!(count_inside(&mask, 2, &[outside, b, a]), 3);
    }
}
