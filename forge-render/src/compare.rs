//! Comparing captures: which pixels differ, whether two pictures are the same within a
//! [`Tolerance`], and whether a capture shows anything at all ([`check_not_blank`]).

use image::{Rgba, RgbaImage};

/// How far two captures may differ and still be the same picture: the rule of Bevy's example
/// screenshots and Blender's render tests (STYLE.md, point 21).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// A pixel differs when any of its four channels is off by more than this, in 1/255 steps.
    pub channel: u8,
    /// The pictures differ when more than this share of pixels (0 to 1) differs.
    pub share: f64,
}

impl Tolerance {
    /// A channel within 4/255, at most 1% of pixels: small enough that a moved sprite or a
    /// changed light fails it, large enough for rasteriser rounding between two runs.
    pub const DEFAULT: Tolerance = Tolerance {
        channel: 4,
        share: 0.01,
    };
}

impl Default for Tolerance {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What [`compare`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// Pixels compared (width times height).
    pub pixels: u64,
    /// Pixels with a channel off by more than the tolerance's `channel`.
    pub differing: u64,
    /// The largest difference of any channel of any pixel, in 1/255 steps.
    pub max_channel_delta: u8,
}

impl Comparison {
    /// The share of pixels that differ, 0 to 1.
    pub fn share(&self) -> f64 {
        if self.pixels == 0 {
            0.0
        } else {
            self.differing as f64 / self.pixels as f64
        }
    }

    /// Whether the two pictures are the same within `tolerance` (its `share`; the channel
    /// step was given to [`compare`]).
    pub fn within(&self, tolerance: Tolerance) -> bool {
        self.share() <= tolerance.share
    }
}

/// Two images that cannot be compared pixel by pixel.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the images differ in size: {a_width}x{a_height} and {b_width}x{b_height}")]
pub struct SizeMismatch {
    /// The first image's width in pixels.
    pub a_width: u32,
    /// The first image's height in pixels.
    pub a_height: u32,
    /// The second image's width in pixels.
    pub b_width: u32,
    /// The second image's height in pixels.
    pub b_height: u32,
}

fn same_size(a: &RgbaImage, b: &RgbaImage) -> Result<(), SizeMismatch> {
    if a.dimensions() == b.dimensions() {
        Ok(())
    } else {
        Err(SizeMismatch {
            a_width: a.width(),
            a_height: a.height(),
            b_width: b.width(),
            b_height: b.height(),
        })
    }
}

fn delta(p: &Rgba<u8>, q: &Rgba<u8>) -> u8 {
    p.0.iter()
        .zip(q.0.iter())
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0)
}

/// Compares `a` and `b` pixel by pixel: a pixel differs when a channel is off by more than
/// `tolerance.channel`.
///
/// # Errors
/// [`SizeMismatch`] when the images differ in size.
pub fn compare(
    a: &RgbaImage,
    b: &RgbaImage,
    tolerance: Tolerance,
) -> Result<Comparison, SizeMismatch> {
    same_size(a, b)?;
    let mut differing = 0;
    let mut max_channel_delta = 0;
    for (p, q) in a.pixels().zip(b.pixels()) {
        let d = delta(p, q);
        max_channel_delta = max_channel_delta.max(d);
        if d > tolerance.channel {
            differing += 1;
        }
    }
    Ok(Comparison {
        pixels: u64::from(a.width()) * u64::from(a.height()),
        differing,
        max_channel_delta,
    })
}

/// Which pixels differ (row by row, `width * height` entries), as [`compare`] counts them.
///
/// # Errors
/// [`SizeMismatch`] when the images differ in size.
pub fn differing_pixels(
    a: &RgbaImage,
    b: &RgbaImage,
    tolerance: Tolerance,
) -> Result<Vec<bool>, SizeMismatch> {
    Ok(compare_masked(a, b, tolerance)?.1)
}

/// [`compare`] and [`differing_pixels`] in one pass over the pixels.
///
/// # Errors
/// [`SizeMismatch`] when the images differ in size.
pub fn compare_masked(
    a: &RgbaImage,
    b: &RgbaImage,
    tolerance: Tolerance,
) -> Result<(Comparison, Vec<bool>), SizeMismatch> {
    same_size(a, b)?;
    let mut max_channel_delta = 0;
    let mut differing = 0;
    let mask = a
        .pixels()
        .zip(b.pixels())
        .map(|(p, q)| {
            let d = delta(p, q);
            max_channel_delta = max_channel_delta.max(d);
            let differs = d > tolerance.channel;
            differing += u64::from(differs);
            differs
        })
        .collect();
    let comparison = Comparison {
        pixels: u64::from(a.width()) * u64::from(a.height()),
        differing,
        max_channel_delta,
    };
    Ok((comparison, mask))
}

/// A capture that shows nothing: every pixel is the same colour (within the default
/// tolerance's channel step), so no entity was drawn, or the renderer had not drawn yet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the capture is one colour (rgba {r}, {g}, {b}, {a} in every pixel): nothing was drawn; check that the scene has visible sprites, text or meshes in front of the camera"
)]
pub struct BlankCapture {
    /// Red, 0 to 255.
    pub r: u8,
    /// Green, 0 to 255.
    pub g: u8,
    /// Blue, 0 to 255.
    pub b: u8,
    /// Alpha, 0 to 255.
    pub a: u8,
}

/// Refuses a capture that is all one colour: every pixel within [`Tolerance::DEFAULT`]'s
/// channel step of the first one (an empty image counts as blank).
///
/// # Errors
/// [`BlankCapture`] with the colour.
pub fn check_not_blank(image: &RgbaImage) -> Result<(), BlankCapture> {
    let first = image.pixels().next().copied().unwrap_or(Rgba([0, 0, 0, 0]));
    let step = Tolerance::DEFAULT.channel;
    if image.pixels().any(|p| delta(p, &first) > step) {
        return Ok(());
    }
    let [r, g, b, a] = first.0;
    Err(BlankCapture { r, g, b, a })
}

/// Writes `image` as a PNG file, small: RGB when every pixel is opaque (captures are) and
/// adaptive filtering (golden images and README pictures are kept in the repository), at the
/// encoder's default compression: its best made a 1,000-cube capture at 1280x720 under 1%
/// smaller (285 KB against 286 KB) and took twice as long (0.5 s against 0.25 s per file, and
/// a review writes five).
///
/// # Errors
/// The file's or the encoder's error, as an I/O error.
pub fn save_png(image: &RgbaImage, path: &std::path::Path) -> std::io::Result<()> {
    use image::codecs::png::{CompressionType, FilterType};
    write_png(image, path, CompressionType::Default, FilterType::Adaptive)
}

/// Writes `image` as a PNG file quickly, at the encoder's fastest setting: files several times
/// larger than [`save_png`]'s, for captures a review reads once and does not keep.
///
/// # Errors
/// The file's or the encoder's error, as an I/O error.
pub fn save_png_quick(image: &RgbaImage, path: &std::path::Path) -> std::io::Result<()> {
    use image::codecs::png::{CompressionType, FilterType};
    write_png(image, path, CompressionType::Fast, FilterType::NoFilter)
}

fn write_png(
    image: &RgbaImage,
    path: &std::path::Path,
    compression: image::codecs::png::CompressionType,
    filter: image::codecs::png::FilterType,
) -> std::io::Result<()> {
    use image::ImageEncoder;
    use image::codecs::png::PngEncoder;
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let encoder = PngEncoder::new_with_quality(file, compression, filter);
    let (w, h) = image.dimensions();
    let result = if image.pixels().all(|p| p.0[3] == 255) {
        let rgb: Vec<u8> = image
            .pixels()
            .flat_map(|p| [p.0[0], p.0[1], p.0[2]])
            .collect();
        encoder.write_image(&rgb, w, h, image::ExtendedColorType::Rgb8)
    } else {
        encoder.write_image(image.as_raw(), w, h, image::ExtendedColorType::Rgba8)
    };
    result.map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(w: u32, h: u32, c: [u8; 4]) -> RgbaImage {
        RgbaImage::from_pixel(w, h, Rgba(c))
    }

    #[test]
    fn a_channel_off_by_the_step_is_the_same_and_one_more_differs() {
        let a = filled(10, 10, [100, 100, 100, 255]);
        let mut b = a.clone();
        b.put_pixel(0, 0, Rgba([104, 100, 100, 255]));
        let same = compare(&a, &b, Tolerance::DEFAULT).unwrap();
        assert_eq!((same.differing, same.max_channel_delta), (0, 4));
        b.put_pixel(1, 0, Rgba([100, 95, 100, 255]));
        let one = compare(&a, &b, Tolerance::DEFAULT).unwrap();
        assert_eq!(one.differing, 1);
        assert!(one.within(Tolerance::DEFAULT), "1 of 100 pixels is 1%");
        b.put_pixel(2, 0, Rgba([0, 0, 0, 255]));
        let two = compare(&a, &b, Tolerance::DEFAULT).unwrap();
        assert!(
            !two.within(Tolerance::DEFAULT),
            "2 of 100 pixels is over 1%"
        );
        let mask = differing_pixels(&a, &b, Tolerance::DEFAULT).unwrap();
        assert_eq!(mask.iter().filter(|d| **d).count(), 2);
        let (both, same_mask) = compare_masked(&a, &b, Tolerance::DEFAULT).unwrap();
        assert_eq!((both, &same_mask), (two, &mask));
        assert!(mask[1] && mask[2] && !mask[0]);
    }

    #[test]
    fn images_of_other_sizes_are_not_compared() {
        let e = compare(
            &filled(2, 2, [0; 4]),
            &filled(2, 3, [0; 4]),
            Tolerance::DEFAULT,
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "the images differ in size: 2x2 and 2x3"
        );
    }

    #[test]
    fn one_colour_is_blank_and_one_drawn_pixel_is_not() {
        let mut image = filled(8, 8, [40, 40, 50, 255]);
        let e = check_not_blank(&image).unwrap_err();
        assert_eq!((e.r, e.g, e.b, e.a), (40, 40, 50, 255));
        assert!(e.to_string().contains("one colour"));
        image.put_pixel(7, 7, Rgba([44, 40, 50, 255]));
        assert!(
            check_not_blank(&image).is_err(),
            "within the step is still one colour"
        );
        image.put_pixel(7, 7, Rgba([200, 40, 50, 255]));
        assert!(check_not_blank(&image).is_ok());
        assert!(check_not_blank(&RgbaImage::new(0, 0)).is_err());
    }

    #[test]
    fn a_saved_png_reads_back_the_same_pixels() {
        let dir = tempfile::tempdir().unwrap();
        let mut opaque = filled(5, 3, [10, 20, 30, 255]);
        opaque.put_pixel(4, 2, Rgba([200, 0, 90, 255]));
        let mut clear = opaque.clone();
        clear.put_pixel(0, 0, Rgba([1, 2, 3, 4]));
        for (name, image) in [("opaque.png", &opaque), ("clear.png", &clear)] {
            let path = dir.path().join(name);
            save_png(image, &path).unwrap();
            assert_eq!(&image::open(&path).unwrap().to_rgba8(), image);
            let quick = dir.path().join(format!("quick-{name}"));
            save_png_quick(image, &quick).unwrap();
            assert_eq!(&image::open(&quick).unwrap().to_rgba8(), image);
        }
        let colour = |name: &str| image::open(dir.path().join(name)).unwrap().color();
        assert_eq!(colour("opaque.png"), image::ColorType::Rgb8);
        assert_eq!(colour("clear.png"), image::ColorType::Rgba8);
    }
}
