//! Drawing a review's marks into its pictures: outlines (solid, or dashed where an entity is
//! not), numbered labels in a built-in 5x7 pixel font (digits and the capitals of `BEFORE` and
//! `AFTER`: labels are drawing, not text layout), leader lines, and crops scaled by whole
//! steps.

use image::{Rgba, RgbaImage};

use crate::job::PixelRect;
use crate::layout::Scale;

/// Glyph width and height in font pixels.
pub const GLYPH: (u32, u32) = (5, 7);
/// Padding around a label's text, in font pixels at scale 1.
const PAD: u32 = 2;
/// The ink of label text and label borders.
pub const INK: Rgba<u8> = Rgba([16, 16, 16, 255]);

/// The rows of a 5x7 glyph, top first, five bits each (the high bit on the left); `None` for
/// a character the font lacks.
fn glyph(c: char) -> Option<[u8; 7]> {
    Some(match c {
        '0' => [14, 17, 19, 21, 25, 17, 14],
        '1' => [4, 12, 4, 4, 4, 4, 14],
        '2' => [14, 17, 1, 6, 8, 16, 31],
        '3' => [31, 2, 4, 2, 1, 17, 14],
        '4' => [2, 6, 10, 18, 31, 2, 2],
        '5' => [31, 16, 30, 1, 1, 17, 14],
        '6' => [6, 8, 16, 30, 17, 17, 14],
        '7' => [31, 1, 2, 4, 8, 8, 8],
        '8' => [14, 17, 17, 14, 17, 17, 14],
        '9' => [14, 17, 17, 15, 1, 2, 12],
        'A' => [14, 17, 17, 31, 17, 17, 17],
        'B' => [30, 17, 17, 30, 17, 17, 30],
        'E' => [31, 16, 16, 30, 16, 16, 31],
        'F' => [31, 16, 16, 30, 16, 16, 16],
        'O' => [14, 17, 17, 17, 17, 17, 14],
        'R' => [30, 17, 17, 30, 20, 18, 17],
        'T' => [31, 4, 4, 4, 4, 4, 4],
        ' ' => [0; 7],
        _ => return None,
    })
}

/// The size in pixels of `text` drawn at `scale` (glyphs one font pixel apart).
pub fn text_size(text: &str, scale: u32) -> (u32, u32) {
    let n = text.chars().count() as u32;
    let w = if n == 0 { 0 } else { n * (GLYPH.0 + 1) - 1 };
    (w * scale, GLYPH.1 * scale)
}

/// The size in pixels of a label holding `text` at `scale`: the text, its padding, a border.
pub fn label_size(text: &str, scale: u32) -> (u32, u32) {
    let (w, h) = text_size(text, scale);
    (w + 2 * PAD * scale + 2, h + 2 * PAD * scale + 2)
}

fn put(image: &mut RgbaImage, x: i64, y: i64, colour: Rgba<u8>) {
    if let (Ok(x), Ok(y)) = (u32::try_from(x), u32::try_from(y))
        && x < image.width()
        && y < image.height()
    {
        image.put_pixel(x, y, colour);
    }
}

fn fill(image: &mut RgbaImage, r: PixelRect, colour: Rgba<u8>) {
    for y in r.y0..r.y1.min(image.height()) {
        for x in r.x0..r.x1.min(image.width()) {
            image.put_pixel(x, y, colour);
        }
    }
}

/// `text` at `(x, y)` (its top-left corner) at `scale`, clipped to the image; characters the
/// font lacks leave a gap.
pub fn text(image: &mut RgbaImage, x: u32, y: u32, text: &str, scale: u32, colour: Rgba<u8>) {
    for (i, c) in text.chars().enumerate() {
        let Some(rows) = glyph(c) else { continue };
        let gx = x + i as u32 * (GLYPH.0 + 1) * scale;
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..GLYPH.0 {
                if bits & (16 >> col) != 0 {
                    let cell = PixelRect {
                        x0: gx + col * scale,
                        y0: y + row as u32 * scale,
                        x1: gx + (col + 1) * scale,
                        y1: y + (row as u32 + 1) * scale,
                    };
                    fill(image, cell, colour);
                }
            }
        }
    }
}

/// A label: `rect` (of [`label_size`]) filled with `colour`, a dark border, `text` in dark ink.
pub fn label(image: &mut RgbaImage, rect: PixelRect, text: &str, scale: u32, colour: Rgba<u8>) {
    fill(image, rect, INK);
    let inner = PixelRect {
        x0: rect.x0 + 1,
        y0: rect.y0 + 1,
        x1: rect.x1.saturating_sub(1),
        y1: rect.y1.saturating_sub(1),
    };
    fill(image, inner, colour);
    self::text(
        image,
        rect.x0 + 1 + PAD * scale,
        rect.y0 + 1 + PAD * scale,
        text,
        scale,
        INK,
    );
}

/// A frame `thickness` pixels wide just outside `rect` (clipped to the image); dashed (4 on, 3
/// off) when `dashed`.
pub fn outline(
    image: &mut RgbaImage,
    rect: PixelRect,
    colour: Rgba<u8>,
    thickness: u32,
    dashed: bool,
) {
    let t = i64::from(thickness);
    let (x0, y0) = (i64::from(rect.x0) - t, i64::from(rect.y0) - t);
    let (x1, y1) = (i64::from(rect.x1) + t, i64::from(rect.y1) + t);
    let on = |i: i64| !dashed || i.rem_euclid(7) < 4;
    for k in 0..t {
        for x in x0..x1 {
            if on(x - x0) {
                put(image, x, y0 + k, colour);
                put(image, x, y1 - 1 - k, colour);
            }
        }
        for y in y0..y1 {
            if on(y - y0) {
                put(image, x0 + k, y, colour);
                put(image, x1 - 1 - k, y, colour);
            }
        }
    }
}

/// A line from `a` to `b` in `colour`, 2 pixels wide with a dark edge (Bresenham's steps).
pub fn line(image: &mut RgbaImage, a: (u32, u32), b: (u32, u32), colour: Rgba<u8>) {
    let (mut x, mut y) = (i64::from(a.0), i64::from(a.1));
    let (x1, y1) = (i64::from(b.0), i64::from(b.1));
    let (dx, dy) = ((x1 - x).abs(), -(y1 - y).abs());
    let (sx, sy) = (if x < x1 { 1 } else { -1 }, if y < y1 { 1 } else { -1 });
    let mut points = Vec::new();
    let mut err = dx + dy;
    loop {
        points.push((x, y));
        if x == x1 && y == y1 {
            break;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            y += sy;
        }
    }
    for &(x, y) in &points {
        for (ox, oy) in [(-1, -1), (1, -1), (-1, 1), (1, 1), (2, 0), (0, 2), (-1, 0)] {
            put(image, x + ox, y + oy, INK);
        }
    }
    for &(x, y) in &points {
        for (ox, oy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            put(image, x + ox, y + oy, colour);
        }
    }
}

/// The pixels of `region` of `image` at `scale`: each pixel repeated `up` times each way, or
/// each `down` x `down` block averaged (a block cut by the region's edge averages what it has).
pub fn scaled(image: &RgbaImage, region: PixelRect, scale: Scale) -> RgbaImage {
    let region = region
        .intersection(PixelRect {
            x0: 0,
            y0: 0,
            x1: image.width(),
            y1: image.height(),
        })
        .unwrap_or(PixelRect {
            x0: 0,
            y0: 0,
            x1: 0,
            y1: 0,
        });
    let (w, h) = (scale.length(region.width()), scale.length(region.height()));
    let mut out = RgbaImage::new(w, h);
    if scale.down <= 1 {
        let up = scale.up.max(1);
        for (x, y, p) in out.enumerate_pixels_mut() {
            *p = *image.get_pixel(region.x0 + x / up, region.y0 + y / up);
        }
        return out;
    }
    let d = scale.down;
    for (x, y, p) in out.enumerate_pixels_mut() {
        let (sx, sy) = (region.x0 + x * d, region.y0 + y * d);
        let (ex, ey) = ((sx + d).min(region.x1), (sy + d).min(region.y1));
        let mut sum = [0u32; 4];
        for yy in sy..ey {
            for xx in sx..ex {
                for (s, c) in sum.iter_mut().zip(image.get_pixel(xx, yy).0) {
                    *s += u32::from(c);
                }
            }
        }
        let n = ((ex - sx) * (ey - sy)).max(1);
        *p = Rgba(sum.map(|s| ((s + n / 2) / n) as u8));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: Rgba<u8> = Rgba([255, 255, 255, 255]);
    const GOLD: Rgba<u8> = Rgba([250, 200, 40, 255]);

    fn count(image: &RgbaImage, colour: Rgba<u8>) -> usize {
        image.pixels().filter(|p| **p == colour).count()
    }

    #[test]
    fn a_label_draws_its_digits_in_ink_on_its_colour() {
        let (w, h) = label_size("12", 2);
        // Two glyphs of 5 and a gap of 1, 7 high, at scale 2; padding 2 x 2 each side; border.
        assert_eq!((w, h), (22 + 8 + 2, 14 + 8 + 2));
        let mut image = RgbaImage::from_pixel(40, 30, WHITE);
        let rect = PixelRect {
            x0: 1,
            y0: 1,
            x1: 1 + w,
            y1: 1 + h,
        };
        label(&mut image, rect, "12", 2, GOLD);
        let lit: u32 = ['1', '2']
            .iter()
            .map(|c| {
                glyph(*c)
                    .unwrap()
                    .iter()
                    .map(|r| r.count_ones())
                    .sum::<u32>()
            })
            .sum();
        let border = 2 * (w + h) as usize - 4;
        assert_eq!(count(&image, INK), lit as usize * 4 + border);
        assert_eq!(
            count(&image, GOLD),
            ((w - 2) * (h - 2)) as usize - lit as usize * 4
        );
        assert_eq!(count(&image, WHITE), 40 * 30 - (w * h) as usize);
        // Every glyph the labels and captions use is in the font.
        assert!("0123456789BEFORE AFTER".chars().all(|c| glyph(c).is_some()));
    }

    #[test]
    fn a_dashed_outline_leaves_gaps_and_a_solid_one_none() {
        let rect = PixelRect {
            x0: 5,
            y0: 5,
            x1: 25,
            y1: 15,
        };
        let mut solid = RgbaImage::from_pixel(30, 20, WHITE);
        outline(&mut solid, rect, GOLD, 2, false);
        // A 2-pixel frame around 20x10: (24 x 14) - (20 x 10).
        assert_eq!(count(&solid, GOLD), 24 * 14 - 20 * 10);
        let mut dashed = RgbaImage::from_pixel(30, 20, WHITE);
        outline(&mut dashed, rect, GOLD, 2, true);
        let n = count(&dashed, GOLD);
        assert!(n > (24 * 14 - 20 * 10) / 3 && n < 24 * 14 - 20 * 10, "{n}");
        // Clipped at the image's edge, never panicking.
        outline(
            &mut dashed,
            PixelRect {
                x0: 0,
                y0: 0,
                x1: 30,
                y1: 20,
            },
            GOLD,
            2,
            false,
        );
    }

    #[test]
    fn crops_scale_by_whole_steps() {
        let mut image = RgbaImage::from_pixel(8, 8, Rgba([0, 0, 0, 255]));
        image.put_pixel(2, 2, WHITE);
        let region = PixelRect {
            x0: 2,
            y0: 2,
            x1: 6,
            y1: 5,
        };
        let up = scaled(&image, region, Scale { up: 3, down: 1 });
        assert_eq!(up.dimensions(), (12, 9));
        assert_eq!(count(&up, WHITE), 9);
        assert_eq!(*up.get_pixel(2, 2), WHITE);
        assert_eq!(*up.get_pixel(3, 3), Rgba([0, 0, 0, 255]));
        let down = scaled(&image, region, Scale { up: 1, down: 2 });
        assert_eq!(down.dimensions(), (2, 2));
        // The white pixel is one of the top-left block's four: a quarter of white.
        assert_eq!(down.get_pixel(0, 0).0, [64, 64, 64, 255]);
        assert_eq!(down.get_pixel(1, 1).0, [0, 0, 0, 255]);
    }

    #[test]
    fn a_leader_line_runs_from_end_to_end() {
        let mut image = RgbaImage::from_pixel(20, 20, WHITE);
        line(&mut image, (2, 3), (15, 12), GOLD);
        for (x, y) in [(2u32, 3u32), (15, 12), (8, 7)] {
            let near = (x.saturating_sub(1)..=x + 1)
                .flat_map(|xx| (y - 1..=y + 1).map(move |yy| (xx, yy)))
                .any(|(xx, yy)| *image.get_pixel(xx, yy) == GOLD);
            assert!(near, "({x}, {y})");
        }
        assert_eq!(*image.get_pixel(18, 1), WHITE);
    }
}
