//! Course images (SPEC §5): read an upload's header, refuse what is too big before
//! decoding a pixel, say how much memory the decode will take (SPEC §3: image decoding
//! counts against the request memory budget), and make the four center-cropped squares.
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

/// Reads an upload's header: refuses what is too large, not an accepted format, or
/// more than [`MAX_SIDE`] on a side, before any pixel is decoded; and estimates the
/// memory the rest will take.
pub fn plan(bytes: &[u8]) -> Result<Plan, ImageError> {
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
    let out = width.min(height).min(WORK_SIDE) as usize;
    let channels = if alpha { 4 } else { 3 };
    // the box filter's sums and result, then the first quality resize (f32 samples)
    let work = out * out * channels * 5 + out * SIZES[0].1 as usize * channels * 4;
    let extra = decoder_extra(format, bytes, width, height);
    Ok(Plan {
        format,
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

/// [`plan`] then [`squares_of`], with no memory budget.
pub fn squares(bytes: &[u8]) -> Result<Squares, ImageError> {
    squares_of(bytes, &plan(bytes)?)
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use image::{GenericImageView, ImageBuffer, Rgb, Rgba};

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

    /// The colour of the middle of the largest square.
    fn middle(s: &Squares) -> [u8; 4] {
        let img = image::load_from_memory(&s.squares[0].bytes).unwrap();
        img.get_pixel(300, 300).0
    }

    #[test]
    fn center_crop_takes_the_middle_in_every_path() {
        // red in the middle third of a wide image, blue elsewhere: the square is red
        let wide = |w: u32, h: u32| {
            ImageBuffer::from_fn(w, h, move |x, _| {
                if (w / 3..2 * w / 3).contains(&x) { Rgb([255u8, 0, 0]) } else { Rgb([0, 0, 255]) }
            })
        };
        // small (no box step), large (box step), JPEG (a whole frame)
        for (img, f) in [
            (DynamicImage::ImageRgb8(wide(300, 100)), ImageFormat::Png),
            (DynamicImage::ImageRgb8(wide(3900, 1300)), ImageFormat::Png),
            (DynamicImage::ImageRgb8(wide(3900, 1300)), ImageFormat::Jpeg),
        ] {
            let s = squares(&encode(img, f)).unwrap();
            let [r, g, b, _] = middle(&s);
            assert!(r > 240 && g < 16 && b < 16, "{f:?}: {r} {g} {b}");
        }
    }

    #[test]
    fn sixteen_bit_and_interlaced_pngs_stream() {
        // 16-bit RGBA, half transparent: 8-bit colour, alpha kept
        let img: ImageBuffer<Rgba<u16>, Vec<u16>> =
            ImageBuffer::from_fn(1300, 1250, |_, _| Rgba([65535, 32896, 0, 32896]));
        let bytes = encode(DynamicImage::ImageRgba16(img), ImageFormat::Png);
        let p = plan(&bytes).unwrap();
        assert!(p.alpha);
        assert!(p.peak < 64 * 1024 * 1024, "{}", p.peak);
        let s = squares_of(&bytes, &p).unwrap();
        assert_eq!(s.extension, "png");
        let [r, g, b, a] = middle(&s);
        assert!(r == 255 && (126..=130).contains(&g) && b == 0, "{r} {g} {b}");
        assert!((126..=130).contains(&a), "{a}");
        // an Adam7-interlaced PNG: every pass lands where it belongs
        let (w, h) = (1251, 1213);
        let pixel = |x: u32, y: u32| [(x % 7) as u8 * 30, (y % 5) as u8 * 50, 77];
        let plain = ImageBuffer::from_fn(w, h, |x, y| Rgb(pixel(x, y)));
        let plain = squares(&encode(DynamicImage::ImageRgb8(plain), ImageFormat::Png));
        assert_eq!(squares(&adam7_png(w, h, pixel)).unwrap(), plain.unwrap());
    }

    /// An interlaced 8-bit RGB PNG (png's encoder writes none): the rows of each pass,
    /// filter byte 0, in one stored (uncompressed) zlib stream.
    fn adam7_png(w: u32, h: u32, pixel: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
        let mut raw = Vec::new();
        for (y, x0, dx) in png_rows(w, h, true) {
            raw.push(0);
            for x in (x0..w).step_by(dx as usize) {
                raw.extend(pixel(x, y));
            }
        }
        let mut zlib = vec![0x78, 0x01];
        let blocks: Vec<&[u8]> = raw.chunks(65535).collect();
        for (i, block) in blocks.iter().enumerate() {
            let len = block.len() as u16;
            zlib.push(u8::from(i + 1 == blocks.len()));
            zlib.extend(len.to_le_bytes());
            zlib.extend((!len).to_le_bytes());
            zlib.extend(*block);
        }
        let (mut a, mut b) = (1u32, 0u32);
        for byte in &raw {
            a = (a + u32::from(*byte)) % 65521;
            b = (b + a) % 65521;
        }
        zlib.extend(((b << 16) | a).to_be_bytes());
        let mut info = png::Info::with_size(w, h);
        info.color_type = png::ColorType::Rgb;
        info.bit_depth = png::BitDepth::Eight;
        info.interlaced = true;
        let mut out = Vec::new();
        {
            let mut writer =
                png::Encoder::with_info(&mut out, info).unwrap().write_header().unwrap();
            writer.write_chunk(png::chunk::IDAT, &zlib).unwrap();
            writer.write_chunk(png::chunk::IEND, &[]).unwrap();
            std::mem::forget(writer);
        }
        out
    }

    #[test]
    fn refuses_non_images_and_oversized_ones() {
        assert!(matches!(squares(b"this is just text"), Err(ImageError::NotAnImage(_))));
        assert!(matches!(squares(&vec![0u8; MAX_BYTES + 1]), Err(ImageError::TooLarge)));
        // a truncated PNG and JPEG: the header parses, the pixels do not
        for f in [ImageFormat::Png, ImageFormat::Jpeg] {
            let bytes = encode(rgb(64, 64), f);
            assert!(
                matches!(squares(&bytes[..bytes.len() / 2]), Err(ImageError::NotAnImage(_))),
                "{f:?}"
            );
        }
    }

    #[test]
    fn refuses_huge_dimensions_from_the_header() {
        // a 9000×10 PNG cut just after the start of its pixel data: refused on the
        // dimensions alone, before any decoding
        let png = encode(rgb(9000, 10), ImageFormat::Png);
        let idat = png.windows(4).position(|w| w == b"IDAT").unwrap();
        assert_eq!(
            plan(&png[..idat + 8]).err(),
            Some(ImageError::TooManyPixels { width: 9000, height: 10 })
        );
        // a real 8001×1 PNG
        let png = encode(rgb(8001, 1), ImageFormat::Png);
        assert!(matches!(plan(&png), Err(ImageError::TooManyPixels { width: 8001, .. })));
    }

    #[test]
    fn the_plan_counts_the_frame() {
        let jpeg = encode(rgb(2000, 1000), ImageFormat::Jpeg);
        let p = plan(&jpeg).unwrap();
        assert!(p.peak >= 2000 * 1000 * 3 + jpeg.len(), "{}", p.peak);
        assert!(p.peak < 2000 * 1000 * 3 + 64 * 1024 * 1024, "{}", p.peak);
    }
}
