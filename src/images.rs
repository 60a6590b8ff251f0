//! Course images (SPEC §5): decode an upload, refuse what is too big before decoding its
//! pixels, and make the four center-cropped squares. Pure CPU work with no HTTP or SQL:
//! callers run it in `spawn_blocking`, outside any database transaction.

use std::io::Cursor;

use image::imageops::FilterType;
use image::{DynamicImage, GenericImageView, ImageFormat, ImageReader, Limits};

/// Largest upload accepted.
pub const MAX_BYTES: usize = 10 * 1024 * 1024;
/// Largest width and height accepted.
pub const MAX_SIDE: u32 = 8000;
/// Most memory the decoder may allocate: one 8000×8000 RGBA frame plus slack, so a
/// decompression bomb that lies about nothing in its header still cannot take more.
pub const MAX_ALLOC: u64 = (MAX_SIDE as u64) * (MAX_SIDE as u64) * 4 + 16 * 1024 * 1024;

/// The squares, largest first: (JSON field, side in pixels).
pub const SIZES: [(&str, u32); 4] = [
    ("image_bigger", 600),
    ("image_big", 400),
    ("image_medium", 200),
    ("image_small", 100),
];

/// Why an upload was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageError {
    /// More than [`MAX_BYTES`].
    TooLarge,
    /// Wider or taller than [`MAX_SIDE`].
    TooManyPixels { width: u32, height: u32 },
    /// Not a JPEG, PNG, WebP or GIF that decodes.
    NotAnImage(String),
    /// Encoding a square failed (never expected).
    Encode(String),
}

impl std::fmt::Display for ImageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImageError::TooLarge => write!(f, "The image is larger than 10 MiB."),
            ImageError::TooManyPixels { width, height } => write!(
                f,
                "The image is {width}×{height} pixels; at most {MAX_SIDE}×{MAX_SIDE} is accepted."
            ),
            ImageError::NotAnImage(why) => write!(
                f,
                "Upload a valid image (JPEG, PNG, WebP or GIF). The file you uploaded was either not an image or a corrupted image ({why})."
            ),
            ImageError::Encode(why) => write!(f, "could not encode the image: {why}"),
        }
    }
}

/// One generated square.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Square {
    /// Side in pixels.
    pub side: u32,
    /// Encoded bytes.
    pub bytes: Vec<u8>,
}

/// The four squares of one upload, all in one format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Squares {
    /// `png` (images with transparency) or `jpg`.
    pub extension: &'static str,
    /// Content type of every square.
    pub content_type: &'static str,
    /// Largest first, as [`SIZES`].
    pub squares: Vec<Square>,
}

fn reader(bytes: &[u8]) -> Result<ImageReader<Cursor<&[u8]>>, ImageError> {
    let r = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| ImageError::NotAnImage(e.to_string()))?;
    match r.format() {
        Some(ImageFormat::Jpeg | ImageFormat::Png | ImageFormat::WebP | ImageFormat::Gif) => Ok(r),
        Some(other) => Err(ImageError::NotAnImage(format!("{other:?} is not accepted"))),
        None => Err(ImageError::NotAnImage("unknown format".into())),
    }
}

/// Decodes an upload, checking size and dimensions (read from the header) before any
/// pixel is decoded, with decoder limits as a second guard.
pub fn decode(bytes: &[u8]) -> Result<DynamicImage, ImageError> {
    if bytes.len() > MAX_BYTES {
        return Err(ImageError::TooLarge);
    }
    let (width, height) = reader(bytes)?
        .into_dimensions()
        .map_err(|e| ImageError::NotAnImage(e.to_string()))?;
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(ImageError::TooManyPixels { width, height });
    }
    if width == 0 || height == 0 {
        return Err(ImageError::NotAnImage("empty image".into()));
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    let mut r = reader(bytes)?;
    r.limits(limits);
    r.decode()
        .map_err(|e| ImageError::NotAnImage(e.to_string()))
}

/// The largest centered square of an image.
pub fn center_square(img: &DynamicImage) -> DynamicImage {
    let (w, h) = img.dimensions();
    let side = w.min(h);
    img.crop_imm((w - side) / 2, (h - side) / 2, side, side)
}

/// Decodes an upload and makes the four squares: PNG when the image has an alpha
/// channel (transparency survives), else JPEG (a tenth of the size for photos).
pub fn squares(bytes: &[u8]) -> Result<Squares, ImageError> {
    let img = decode(bytes)?;
    let square = center_square(&img);
    let alpha = img.color().has_alpha();
    let (format, extension, content_type) = if alpha {
        (ImageFormat::Png, "png", "image/png")
    } else {
        (ImageFormat::Jpeg, "jpg", "image/jpeg")
    };
    let mut out = Vec::with_capacity(SIZES.len());
    // each size is resized from the previous one: cheaper, and indistinguishable at
    // these halvings
    let mut source = square;
    for (_, side) in SIZES {
        let resized = source.resize_exact(side, side, FilterType::CatmullRom);
        let normalised = if alpha {
            DynamicImage::ImageRgba8(resized.to_rgba8())
        } else {
            DynamicImage::ImageRgb8(resized.to_rgb8())
        };
        let mut buf = Cursor::new(Vec::new());
        normalised
            .write_to(&mut buf, format)
            .map_err(|e| ImageError::Encode(e.to_string()))?;
        out.push(Square {
            side,
            bytes: buf.into_inner(),
        });
        source = normalised;
    }
    Ok(Squares {
        extension,
        content_type,
        squares: out,
    })
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use image::{ImageBuffer, Rgb, Rgba};

    fn encode(img: DynamicImage, format: ImageFormat) -> Vec<u8> {
        let mut buf = Cursor::new(Vec::new());
        img.write_to(&mut buf, format).unwrap();
        buf.into_inner()
    }

    fn rgb(w: u32, h: u32) -> DynamicImage {
        DynamicImage::ImageRgb8(ImageBuffer::from_fn(w, h, |x, y| {
            Rgb([(x % 256) as u8, (y % 256) as u8, 128])
        }))
    }

    #[test]
    fn non_square_png_becomes_four_squares() {
        let png = encode(rgb(300, 200), ImageFormat::Png);
        let s = squares(&png).unwrap();
        assert_eq!(s.extension, "jpg");
        let sides: Vec<u32> = s.squares.iter().map(|q| q.side).collect();
        assert_eq!(sides, vec![600, 400, 200, 100]);
        for q in &s.squares {
            let img = image::load_from_memory(&q.bytes).unwrap();
            assert_eq!(img.dimensions(), (q.side, q.side));
        }
    }

    #[test]
    fn transparency_keeps_png() {
        let img = DynamicImage::ImageRgba8(ImageBuffer::from_fn(50, 80, |_, _| Rgba([1, 2, 3, 4])));
        let s = squares(&encode(img, ImageFormat::Png)).unwrap();
        assert_eq!((s.extension, s.content_type), ("png", "image/png"));
        let small = image::load_from_memory(&s.squares[3].bytes).unwrap();
        assert!(small.color().has_alpha());
    }

    #[test]
    fn every_accepted_format_decodes() {
        for f in [ImageFormat::Jpeg, ImageFormat::Gif, ImageFormat::WebP] {
            let bytes = encode(rgb(40, 30), f);
            assert!(squares(&bytes).is_ok(), "{f:?}");
        }
    }

    #[test]
    fn center_crop_takes_the_middle() {
        let img = DynamicImage::ImageRgb8(ImageBuffer::from_fn(30, 10, |x, _| {
            Rgb([if (10..20).contains(&x) { 255 } else { 0 }, 0, 0])
        }));
        let sq = center_square(&img);
        assert_eq!(sq.dimensions(), (10, 10));
        assert!(sq.to_rgb8().pixels().all(|p| p.0[0] == 255));
    }

    #[test]
    fn refuses_non_images_and_oversized_ones() {
        assert!(matches!(
            squares(b"this is just text"),
            Err(ImageError::NotAnImage(_))
        ));
        assert!(matches!(
            squares(&vec![0u8; MAX_BYTES + 1]),
            Err(ImageError::TooLarge)
        ));
        // a truncated PNG: the header parses, the pixels do not
        let png = encode(rgb(64, 64), ImageFormat::Png);
        assert!(matches!(
            squares(&png[..png.len() / 2]),
            Err(ImageError::NotAnImage(_))
        ));
    }

    #[test]
    fn refuses_huge_dimensions_from_the_header() {
        // a 9000×10 PNG cut just after the start of its pixel data: refused on the
        // dimensions alone, before any decoding
        let png = encode(rgb(9000, 10), ImageFormat::Png);
        let idat = png.windows(4).position(|w| w == b"IDAT").unwrap();
        assert_eq!(
            decode(&png[..idat + 8]).err(),
            Some(ImageError::TooManyPixels {
                width: 9000,
                height: 10
            })
        );
        // a real 8001×1 PNG
        let png = encode(rgb(8001, 1), ImageFormat::Png);
        assert!(matches!(
            decode(&png),
            Err(ImageError::TooManyPixels { width: 8001, .. })
        ));
    }
}
