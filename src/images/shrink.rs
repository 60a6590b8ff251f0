//! Decoding an upload straight down to the working size: PNGs row by row (8- or 16-bit,
//! interlaced or not, cut to 8 bits as they come), other formats as one frame that is
//! averaged down and freed at once. What `squares_of` and `picture_of` resize from.

use super::*;

/// The box filter: sums the pixels of a region of a `width`×`height` image (the
/// centered square, or the whole image: [`Shape`]) into `out_w`×`out_h` cells, in any
/// row order, one pass over the pixels.
pub(super) struct Shrinker {
    /// The region: its top-left corner and size, in source pixels.
    x0: u32,
    y0: u32,
    region_h: u32,
    out_w: u32,
    out_h: u32,
    alpha: bool,
    /// Output column of each source column of the region.
    col: Vec<u32>,
    /// Source columns (rows) per output column (row).
    col_n: Vec<u32>,
    row_n: Vec<u32>,
    /// Per cell: R, G, B (weighted by alpha when `alpha`), then alpha.
    sums: Vec<u32>,
}

/// How many of `from` source pixels fall in each of `to` cells, and the cell of each.
fn cells(from: u32, to: u32) -> (Vec<u32>, Vec<u32>) {
    let cell = |i: u32| u32::try_from(u64::from(i) * u64::from(to) / u64::from(from)).unwrap_or(0);
    let of: Vec<u32> = (0..from).map(cell).collect();
    let mut n = vec![0u32; to as usize];
    for c in &of {
        n[*c as usize] += 1;
    }
    (of, n)
}

impl Shrinker {
    fn new(width: u32, height: u32, alpha: bool, shape: Shape) -> Shrinker {
        let ((rw, rh), (out_w, out_h)) = shape.region_and_work(width, height);
        let (col, col_n) = cells(rw, out_w);
        let (_, row_n) = cells(rh, out_h);
        Shrinker {
            x0: (width - rw) / 2,
            y0: (height - rh) / 2,
            region_h: rh,
            out_w,
            out_h,
            alpha,
            row_n,
            col_n,
            col,
            sums: vec![0; out_w as usize * out_h as usize * if alpha { 4 } else { 3 }],
        }
    }

    /// Adds one decoded row: `samples` pixels of `channels` 8-bit samples (gray, gray +
    /// alpha, RGB, RGBA), the `i`th at column `x_start + i * x_step` of source row `y`.
    fn push(&mut self, y: u32, x_start: u32, x_step: u32, channels: usize, data: &[u8]) {
        if y < self.y0 || y >= self.y0 + self.region_h || channels == 0 {
            return;
        }
        let cell_row = u64::from(y - self.y0) * u64::from(self.out_h) / u64::from(self.region_h);
        let stride = if self.alpha { 4 } else { 3 };
        let base = cell_row as usize * self.out_w as usize * stride;
        // the pixels left of the square are skipped in one step
        let skip = self.x0.saturating_sub(x_start).div_ceil(x_step.max(1)) as usize;
        for (i, px) in data.chunks_exact(channels).enumerate().skip(skip) {
            let x = x_start + i as u32 * x_step;
            let Some(&c) = self.col.get(x.saturating_sub(self.x0) as usize) else {
                break;
            };
            let (r, g, b, a) = match *px {
                [l] => (l, l, l, 255),
                [l, a] => (l, l, l, a),
                [r, g, b] => (r, g, b, 255),
                [r, g, b, a, ..] => (r, g, b, a),
                [] => continue,
            };
            let at = base + c as usize * stride;
            let Some(cell) = self.sums.get_mut(at..at + stride) else {
                continue;
            };
            if self.alpha {
                // colour weighted by alpha, so transparent pixels lend no colour
                let w = u32::from(a);
                cell[0] += u32::from(r) * w;
                cell[1] += u32::from(g) * w;
                cell[2] += u32::from(b) * w;
                cell[3] += w;
            } else {
                cell[0] += u32::from(r);
                cell[1] += u32::from(g);
                cell[2] += u32::from(b);
            }
        }
    }

    /// The averaged region.
    fn finish(self) -> DynamicImage {
        let stride = if self.alpha { 4 } else { 3 };
        let mut px = Vec::with_capacity(self.sums.len());
        for (i, cell) in self.sums.chunks_exact(stride).enumerate() {
            let (row, col) = (i / self.out_w as usize, i % self.out_w as usize);
            let n = (self.row_n[row] * self.col_n[col]).max(1);
            let avg = |sum: u32, n: u32| u8::try_from((sum + n / 2) / n).unwrap_or(u8::MAX);
            if self.alpha {
                let w = cell[3];
                for s in &cell[..3] {
                    px.push(if w == 0 { 0 } else { avg(*s, w) });
                }
                px.push(avg(w, n));
            } else {
                px.extend(cell.iter().map(|s| avg(*s, n)));
            }
        }
        let (w, h) = (self.out_w, self.out_h);
        let img = if self.alpha {
            image::RgbaImage::from_raw(w, h, px).map(DynamicImage::ImageRgba8)
        } else {
            image::RgbImage::from_raw(w, h, px).map(DynamicImage::ImageRgb8)
        };
        img.unwrap_or_else(|| DynamicImage::new_rgb8(w, h))
    }
}

/// Adam7's passes (PNG §8.2): first column, first row, column step, row step.
pub(super) const ADAM7: [(u32, u32, u32, u32); 7] = [
    (0, 0, 8, 8),
    (4, 0, 8, 8),
    (0, 4, 4, 8),
    (2, 0, 4, 4),
    (0, 2, 2, 4),
    (1, 0, 2, 2),
    (0, 1, 1, 2),
];

/// Where each row the PNG decoder gives lies in the image: (row, first column, column
/// step), in the decoder's order; passes with no pixel are skipped, as the decoder does.
pub(super) fn png_rows(width: u32, height: u32, interlaced: bool) -> Vec<(u32, u32, u32)> {
    if !interlaced {
        return (0..height).map(|y| (y, 0, 1)).collect();
    }
    let mut rows = Vec::new();
    for (x0, y0, dx, dy) in ADAM7 {
        if width <= x0 || height <= y0 {
            continue;
        }
        rows.extend((y0..height).step_by(dy as usize).map(|y| (y, x0, dx)));
    }
    rows
}

/// Streams a PNG's rows through the box filter.
pub(super) fn shrink_png(bytes: &[u8], plan: &Plan) -> Result<DynamicImage, ImageError> {
    let over = |e: png::DecodingError| match e {
        png::DecodingError::LimitsExceeded => {
            ImageError::OverPlan { width: plan.width, height: plan.height, planned: plan.peak }
        }
        other => not_an_image(other),
    };
    let mut reader = png_decoder(bytes).read_info().map_err(over)?;
    let (color, _) = reader.output_color_type();
    let channels = color.samples();
    let interlaced = reader.info().interlaced;
    let mut shrinker = Shrinker::new(plan.width, plan.height, plan.alpha, plan.shape);
    for (y, x0, dx) in png_rows(plan.width, plan.height, interlaced) {
        let row = reader
            .next_row()
            .map_err(over)?
            .ok_or_else(|| not_an_image("fewer rows than the header says"))?;
        shrinker.push(y, x0, dx, channels, row.data());
    }
    Ok(shrinker.finish())
}

/// Decodes a JPEG, WebP or GIF frame whole, then filters and drops it.
pub(super) fn shrink_frame(bytes: &[u8], plan: &Plan) -> Result<DynamicImage, ImageError> {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    // the frame plus the decoder's own state: what the plan counted, so an upload whose
    // header lies cannot take more
    limits.max_alloc = Some((plan.frame + OVERHEAD) as u64);
    let mut r = reader(bytes)?;
    r.limits(limits);
    let frame = r.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => ImageError::OverPlan {
            width: plan.width,
            height: plan.height,
            planned: plan.frame + OVERHEAD,
        },
        other => not_an_image(other),
    })?;
    let frame = match frame {
        // these decoders give 8-bit frames; anything else is normalised first
        DynamicImage::ImageLuma8(_)
        | DynamicImage::ImageLumaA8(_)
        | DynamicImage::ImageRgb8(_)
        | DynamicImage::ImageRgba8(_) => frame,
        other => DynamicImage::ImageRgba8(other.to_rgba8()),
    };
    let channels = usize::from(frame.color().channel_count());
    let width = frame.width();
    let mut shrinker = Shrinker::new(width, frame.height(), plan.alpha, plan.shape);
    let row_len = width as usize * channels;
    if row_len > 0 {
        for (y, row) in frame.as_bytes().chunks_exact(row_len).enumerate() {
            shrinker.push(y as u32, 0, 1, channels, row);
        }
    }
    drop(frame);
    Ok(shrinker.finish())
}
