//! Images (SPEC §5): read an upload's header, refuse what is too big before decoding a
//! pixel, say how much memory the decode will take (SPEC §3: image decoding counts
//! against the request memory budget), and make the four center-cropped squares of a
//! course's, a group's or a member's image ([`squares_of`]), or one picture of a
//! gallery or an item, whole and at most [`PICTURE_SIDE`] a side ([`picture_of`]).
//! Either is encoded anew: nothing of the upload but its pixels is kept (no EXIF).
//! Pure CPU work with no HTTP or SQL: callers run it in `spawn_blocking`, outside any
//! database transaction.
//!
//! The pixels go through a box filter ([`Shrinker`]) as they are decoded: the centered
//! square is reduced in one step to at most [`WORK_SIDE`] pixels of 8-bit RGB(A), and
//! only that small image is resized with a quality filter. PNGs (8- or 16-bit,
//! interlaced or not) are never held whole: their rows stream through the filter.
//! JPEG, WebP and GIF decoders give the whole frame at once, 8 bits a sample; it is
//! dropped as soon as it has been filtered.
//!
//! Peak resident memory of one job, measured with `/usr/bin/time -v` around a process
//! that only runs [`squares`] on one upload (release build; about 5 MiB of it is the
//! process and the upload), next to [`Plan::peak`], what the job takes from the request
//! memory budget. "Before" is the previous pipeline: whole decode (16-bit kept), a
//! cropped copy, then a CatmullRom resize of the full square.
//!
//! | upload (8000×8000 unless said)  | before                        | now     | planned |
//! |---------------------------------|-------------------------------|---------|---------|
//! | PNG, 8-bit RGB                  | 445 MiB                       | 25 MiB  | 36 MiB  |
//! | PNG, 16-bit RGB                 | refused ("corrupted image")   | 26 MiB  | 36 MiB  |
//! | PNG, 16-bit RGB, 6000×6000      | 473 MiB                       | 25 MiB  | 36 MiB  |
//! | JPEG, baseline                  | 446 MiB                       | 206 MiB | 221 MiB |
//! | JPEG, progressive 4:2:0         | 445 MiB                       | 371 MiB | 403 MiB |
//! | WebP, lossy                     | 444 MiB                       | 278 MiB | 311 MiB |
//! | WebP, lossless                  | 444 MiB                       | 430 MiB | 464 MiB |
//! | GIF, 4000×4000                  |                               | 91 MiB  | 168 MiB |
//!
//! With the default 256 MiB budget, then, the last three at 8000×8000 are refused
//! with a message that says so (their decoders hold whole-image buffers of their own);
//! a larger `--max-body-memory` takes them.

use std::io::Cursor;

use image::imageops::FilterType;
use image::{ColorType, DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};

mod shrink;
use shrink::*;

/// Largest upload accepted.
pub const MAX_BYTES: usize = 10 * 1024 * 1024;
/// Largest width and height accepted.
pub const MAX_SIDE: u32 = 8000;
/// The squares, largest first: (JSON field, side in pixels).
pub const SIZES: [(&str, u32); 4] =
    [("image_bigger", 600), ("image_big", 400), ("image_medium", 200), ("image_small", 100)];
/// The side the centered square is reduced to by the box filter before the quality
/// resize: twice the largest square, so the box filter's coarseness never shows.
pub const WORK_SIDE: u32 = 2 * SIZES[0].1;

/// The longest side of a picture ([`picture_of`]).
pub const PICTURE_SIDE: u32 = 1280;

/// What an upload becomes: the centered square ([`squares_of`]) or the whole image
/// ([`picture_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Square,
    Whole,
}

impl Shape {
    /// The region of a `width`×`height` image the box filter reads, and the size it
    /// reduces it to: the centered square to at most [`WORK_SIDE`]; the whole image to
    /// at most twice [`PICTURE_SIDE`] on its longer side, its proportions kept.
    fn region_and_work(self, width: u32, height: u32) -> ((u32, u32), (u32, u32)) {
        match self {
            Shape::Square => {
                let side = width.min(height);
                let out = side.min(WORK_SIDE);
                ((side, side), (out, out))
            }
            Shape::Whole => {
                let (w, h) = fit(width, height, 2 * PICTURE_SIDE);
                ((width, height), (w, h))
            }
        }
    }
}

/// `width`×`height` scaled down (never up) to at most `side` on its longer side.
pub fn fit(width: u32, height: u32, side: u32) -> (u32, u32) {
    let long = width.max(height);
    if long <= side {
        return (width, height);
    }
    let scale = |v: u32| {
        u32::try_from((u64::from(v) * u64::from(side) + u64::from(long) / 2) / u64::from(long))
            .unwrap_or(1)
            .max(1)
    };
    (scale(width), scale(height))
}

/// Memory of the decoders' own state (tables, zlib window, row buffers), and of the
/// encoders of the squares, on top of what [`Plan::peak`] counts by the pixel.
const OVERHEAD: usize = 8 * 1024 * 1024;

/// Why an upload was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageError {
    /// More than [`MAX_BYTES`].
    TooLarge,
    /// Wider or taller than [`MAX_SIDE`].
    TooManyPixels { width: u32, height: u32 },
    /// Decoding it would need more memory (`needed` bytes) than the server lets any
    /// request hold (`limit` bytes): waiting would not help.
    TooMuchMemory { width: u32, height: u32, needed: usize, limit: usize },
    /// The decoder needed more memory than its header made it plan for (`planned`
    /// bytes): an unusual or malformed file.
    OverPlan { width: u32, height: u32, planned: usize },
    /// Not a JPEG, PNG, WebP or GIF that decodes.
    NotAnImage(String),
    /// Encoding a square failed (never expected).
    Encode(String),
}

fn mib(bytes: usize) -> usize {
    bytes.div_ceil(1024 * 1024)
}

impl std::fmt::Display for ImageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImageError::TooLarge => write!(f, "The image is larger than 10 MiB."),
            ImageError::TooManyPixels { width, height } => write!(
                f,
                "The image is {width}×{height} pixels; at most {MAX_SIDE}×{MAX_SIDE} is accepted."
            ),
            ImageError::TooMuchMemory { width, height, needed, limit } => write!(
                f,
                "Decoding this {width}×{height} image needs about {} MiB of memory, more than this server allows a request ({} MiB). Upload it with fewer pixels, or as a PNG.",
                mib(*needed),
                mib(*limit)
            ),
            ImageError::OverPlan { width, height, planned } => write!(
                f,
                "Decoding this {width}×{height} image needs more than the {} MiB of memory an image of its size and format should; it may be animated or malformed. Upload it as a still PNG or JPEG.",
                mib(*planned)
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

/// The picture of one upload ([`picture_of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// `png` (images with transparency) or `jpg`.
    pub extension: &'static str,
    pub content_type: &'static str,
    pub width: u32,
    pub height: u32,
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

/// What an upload's header says, checked, and how much memory decoding it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    format: ImageFormat,
    /// What the upload is made into.
    pub shape: Shape,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Whether the image has an alpha channel (its squares are then PNG).
    pub alpha: bool,
    /// Bytes of the whole decoded frame and of the decoder's own buffers, for the
    /// decoders that make one (not PNG).
    frame: usize,
    /// The estimated peak memory of [`squares_of`] for this upload, in bytes.
    pub peak: usize,
}

fn not_an_image(e: impl std::fmt::Display) -> ImageError {
    ImageError::NotAnImage(e.to_string())
}

fn reader(bytes: &[u8]) -> Result<ImageReader<Cursor<&[u8]>>, ImageError> {
    let r = ImageReader::new(Cursor::new(bytes)).with_guessed_format().map_err(not_an_image)?;
    match r.format() {
        Some(ImageFormat::Jpeg | ImageFormat::Png | ImageFormat::WebP | ImageFormat::Gif) => Ok(r),
        Some(other) => Err(ImageError::NotAnImage(format!("{other:?} is not accepted"))),
        None => Err(ImageError::NotAnImage("unknown format".into())),
    }
}

fn png_decoder(bytes: &[u8]) -> png::Decoder<Cursor<&[u8]>> {
    let mut d = png::Decoder::new(Cursor::new(bytes));
    // palettes and low bit depths expanded, 16-bit samples cut to 8: rows come out as
    // 8-bit gray, gray+alpha, RGB or RGBA
    d.set_transformations(png::Transformations::normalize_to_color8());
    d
}

/// [`plan_for`] the squares.
pub fn plan(bytes: &[u8]) -> Result<Plan, ImageError> {
    plan_for(bytes, Shape::Square)
}

/// Reads an upload's header: refuses what is too large, not an accepted format, or
/// more than [`MAX_SIDE`] on a side, before any pixel is decoded; and estimates the
/// memory the rest will take to make it into `shape`.
pub fn plan_for(bytes: &[u8], shape: Shape) -> Result<Plan, ImageError> {
    if bytes.len() > MAX_BYTES {
        return Err(ImageError::TooLarge);
    }
    let r = reader(bytes)?;
    let format = r.format().unwrap_or(ImageFormat::Png);
    let (width, height, alpha, frame) = if format == ImageFormat::Png {
        let mut d = png_decoder(bytes);
        let info = d.read_header_info().map_err(not_an_image)?;
        let alpha =
            matches!(info.color_type, png::ColorType::Rgba | png::ColorType::GrayscaleAlpha)
                || info.trns.is_some();
        (info.width, info.height, alpha, 0)
    } else {
        let d = r.into_decoder().map_err(not_an_image)?;
        let (w, h) = d.dimensions();
        (w, h, d.color_type().has_alpha(), frame_bytes(w, h, d.color_type()))
    };
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(ImageError::TooManyPixels { width, height });
    }
    if width == 0 || height == 0 {
        return Err(ImageError::NotAnImage("empty image".into()));
    }
    let (_, (out_w, out_h)) = shape.region_and_work(width, height);
    let (out_w, out_h) = (out_w as usize, out_h as usize);
    let channels = if alpha { 4 } else { 3 };
    // the box filter's sums and result, then the first quality resize (f32 samples):
    // to the largest square, or to the picture
    let first = match shape {
        Shape::Square => SIZES[0].1 as usize,
        Shape::Whole => PICTURE_SIDE as usize,
    };
    let work = out_w * out_h * channels * 5 + out_w.max(out_h) * first * channels * 4;
    let extra = decoder_extra(format, bytes, width, height);
    Ok(Plan {
        format,
        shape,
        width,
        height,
        alpha,
        frame: frame + extra,
        peak: frame + extra + work + OVERHEAD,
    })
}

/// Bytes of a decoded frame: JPEG, WebP and GIF decode to 8-bit samples.
fn frame_bytes(w: u32, h: u32, color: ColorType) -> usize {
    (w as usize) * (h as usize) * usize::from(color.bytes_per_pixel())
}

/// What a decoder holds beside the frame it returns, by the pixel (measured: see the
/// module's table).
fn decoder_extra(format: ImageFormat, bytes: &[u8], w: u32, h: u32) -> usize {
    let pixels = (w as usize) * (h as usize);
    match format {
        // a copy of the upload, and a progressive image's coefficients
        ImageFormat::Jpeg => bytes.len() + jpeg_coefficient_bytes(bytes),
        // lossy: Y, U and V planes in 16-pixel macroblocks; lossless: one u32 a pixel;
        // extended (maybe lossless, maybe animated): a canvas and a frame of u32
        ImageFormat::WebP => match bytes.get(12..16) {
            Some(b"VP8 ") => (w.div_ceil(16) as usize) * (h.div_ceil(16) as usize) * 256 * 3 / 2,
            Some(b"VP8L") => pixels * 4,
            _ => pixels * 8,
        },
        // a first frame smaller than the canvas is decoded apart, then placed
        ImageFormat::Gif => pixels * 4,
        _ => 0,
    }
}

/// A progressive JPEG (SOF2) keeps every component's DCT coefficients (two bytes
/// each, padded to whole MCUs) until its last scan; a baseline one decodes row by row.
fn jpeg_coefficient_bytes(bytes: &[u8]) -> usize {
    let mut at = 2;
    while let (Some(&0xFF), Some(&marker)) = (bytes.get(at), bytes.get(at + 1)) {
        if marker == 0xFF {
            at += 1; // fill byte
            continue;
        }
        let len = match bytes.get(at + 2..at + 4) {
            Some(l) => usize::from(u16::from_be_bytes([l[0], l[1]])),
            None => return 0,
        };
        match marker {
            0xC2 => return progressive_coefficients(bytes.get(at + 4..at + 2 + len)),
            // another frame type, or the scan: no progressive frame header before it
            0xC0 | 0xC1 | 0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF | 0xDA => return 0,
            _ => at += 2 + len,
        }
    }
    0
}

/// The coefficient bytes of a progressive frame header's body (SOF2: precision,
/// height, width, components with their sampling factors).
fn progressive_coefficients(sof: Option<&[u8]>) -> usize {
    let Some(&[_, h1, h0, w1, w0, n, ref comps @ ..]) = sof else {
        return 0;
    };
    let (h, w) =
        (usize::from(u16::from_be_bytes([h1, h0])), usize::from(u16::from_be_bytes([w1, w0])));
    let factors: Vec<(usize, usize)> = comps
        .chunks_exact(3)
        .take(usize::from(n))
        .map(|c| (usize::from(c[1] >> 4).max(1), usize::from(c[1] & 15).max(1)))
        .collect();
    let hmax = factors.iter().map(|f| f.0).max().unwrap_or(1);
    let vmax = factors.iter().map(|f| f.1).max().unwrap_or(1);
    let (mcus_x, mcus_y) = (w.div_ceil(8 * hmax), h.div_ceil(8 * vmax));
    factors.iter().map(|(hs, vs)| mcus_x * hs * 8 * mcus_y * vs * 8 * 2).sum()
}

/// Makes the four squares of a planned upload: PNG when the image has an alpha channel
/// (transparency survives), else JPEG (a tenth of the size for photos).
pub fn squares_of(bytes: &[u8], plan: &Plan) -> Result<Squares, ImageError> {
    let work = if plan.format == ImageFormat::Png {
        shrink_png(bytes, plan)?
    } else {
        shrink_frame(bytes, plan)?
    };
    let (format, extension, content_type) = if plan.alpha {
        (ImageFormat::Png, "png", "image/png")
    } else {
        (ImageFormat::Jpeg, "jpg", "image/jpeg")
    };
    let mut out = Vec::with_capacity(SIZES.len());
    // each size is resized from the previous one: cheaper, and indistinguishable at
    // these halvings
    let mut source = work;
    for (_, side) in SIZES {
        let resized = source.resize_exact(side, side, FilterType::CatmullRom);
        let mut buf = Cursor::new(Vec::new());
        resized.write_to(&mut buf, format).map_err(|e| ImageError::Encode(e.to_string()))?;
        out.push(Square { side, bytes: buf.into_inner() });
        source = resized;
    }
    Ok(Squares { extension, content_type, squares: out })
}

/// Makes the picture of an upload planned for [`Shape::Whole`]: the whole image at most
/// [`PICTURE_SIDE`] a side, PNG when it has an alpha channel, else JPEG.
pub fn picture_of(bytes: &[u8], plan: &Plan) -> Result<Picture, ImageError> {
    let work = if plan.format == ImageFormat::Png {
        shrink_png(bytes, plan)?
    } else {
        shrink_frame(bytes, plan)?
    };
    let (w, h) = fit(plan.width, plan.height, PICTURE_SIDE);
    let picture = if (work.width(), work.height()) == (w, h) {
        work
    } else {
        work.resize_exact(w, h, FilterType::CatmullRom)
    };
    let (format, extension, content_type) = if plan.alpha {
        (ImageFormat::Png, "png", "image/png")
    } else {
        (ImageFormat::Jpeg, "jpg", "image/jpeg")
    };
    let mut buf = Cursor::new(Vec::new());
    picture.write_to(&mut buf, format).map_err(|e| ImageError::Encode(e.to_string()))?;
    Ok(Picture { extension, content_type, width: w, height: h, bytes: buf.into_inner() })
}

/// [`plan`] then [`squares_of`], with no memory budget.
pub fn squares(bytes: &[u8]) -> Result<Squares, ImageError> {
    squares_of(bytes, &plan(bytes)?)
}

#[cfg(test)]
mod tests;
