//! The image pipeline's tests.

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
fn a_picture_keeps_the_whole_image_and_its_proportions() {
    // a wide photo: scaled to PICTURE_SIDE on its long side, every column kept
    // (red left half, blue right half, in both paths: streamed PNG and a frame)
    let img = DynamicImage::ImageRgb8(ImageBuffer::from_fn(3000, 1000, |x, _| {
        if x < 1500 { Rgb([255, 0, 0]) } else { Rgb([0, 0, 255]) }
    }));
    for f in [ImageFormat::Png, ImageFormat::WebP] {
        let bytes = encode(img.clone(), f);
        let p = picture_of(&bytes, &plan_for(&bytes, Shape::Whole).unwrap()).unwrap();
        assert_eq!((p.width, p.height, p.content_type), (1280, 427, "image/jpeg"), "{f:?}");
        let out = image::load_from_memory(&p.bytes).unwrap();
        assert_eq!(out.dimensions(), (1280, 427));
        let [r, _, b] = out.to_rgb8().get_pixel(100, 200).0;
        assert!(r > 200 && b < 60, "{f:?}: the left is red");
        let [r, _, b] = out.to_rgb8().get_pixel(1180, 200).0;
        assert!(b > 200 && r < 60, "{f:?}: the right is blue");
    }
    // small and transparent: its own size, PNG
    let small = DynamicImage::ImageRgba8(ImageBuffer::from_fn(50, 80, |_, _| Rgba([1, 2, 3, 4])));
    let bytes = encode(small, ImageFormat::Png);
    let p = picture_of(&bytes, &plan_for(&bytes, Shape::Whole).unwrap()).unwrap();
    assert_eq!((p.width, p.height, p.extension), (50, 80, "png"));
    assert_eq!(fit(8000, 10, 1280), (1280, 2));
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
        let mut writer = png::Encoder::with_info(&mut out, info).unwrap().write_header().unwrap();
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
