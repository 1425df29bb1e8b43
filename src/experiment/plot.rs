//! Figures as SVG and PNG, drawn with plotters. Text uses DejaVu Sans embedded in the binary
//! (the `dejavu` crate) through plotters' ab_glyph feature, so a machine without system fonts
//! renders the same PNG; the PNG is encoded with the `png` crate from plotters' RGB buffer.

use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::BindKeyPoints;
use plotters::prelude::*;

use super::store::write_atomic;
use pgomea::error::{Error, Result};

/// Width and height of every figure, in pixels (PNG) or user units (SVG).
pub const SIZE: (u32, u32) = (800, 560);

/// One line of a figure, with an optional band (x, low, high) drawn beneath it.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub band: Vec<(f64, f64, f64)>,
    /// Draw a marker at every point (sparse data such as the scalability plot).
    pub markers: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Figure {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_log: bool,
    pub y_log: bool,
    pub series: Vec<Series>,
    /// A dashed horizontal reference line (e.g. speed-up 1, or the best-known value), with its label.
    pub hline: Option<(f64, String)>,
    /// Put the legend at the lower right (rising curves) instead of the upper left.
    pub legend_lower_right: bool,
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

fn plot_err<E: std::fmt::Debug>(e: E) -> Error {
    Error::usage(format!("drawing a figure: {e:?}"))
}

/// Registers the embedded font as plotters' sans-serif (once per process).
fn fonts() -> Result<()> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = *DONE.get_or_init(|| {
        // Only the regular face: every text of the figures uses it (and the binary stays ~0.7 MB smaller).
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular()).is_ok()
    });
    if ok { Ok(()) } else { Err(Error::usage("the embedded font could not be loaded")) }
}

/// The data range of a figure along one axis, padded; positive for a log axis.
fn range(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && v.abs() < 1e300 && (!log || *v > 0.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return if log { (0.1, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        if hi <= lo * 1.0001 {
            return (lo / 2.0, hi * 2.0);
        }
        let pad = (hi / lo).powf(0.03);
        (lo / pad, hi * pad)
    } else {
        if hi - lo < 1e-9 {
            let d = lo.abs().max(1.0) * 0.01;
            return (lo - d, hi + d);
        }
        let pad = (hi - lo) * 0.05;
        (lo - pad, hi + pad)
    }
}

fn number_label(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e6).contains(&a) {
        format!("{v:.0e}")
    } else if a >= 100.0 || (v.fract() == 0.0 && a >= 1.0) {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').to_string()
    }
}

fn draw_on<DB, X, Y>(root: DrawingArea<DB, Shift>, fig: &Figure, x: X, y: Y, y_bounds: (f64, f64)) -> Result<()>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    root.fill(&WHITE).map_err(plot_err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&fig.title, ("sans-serif", 22))
        .margin(14)
        .x_label_area_size(46)
        .y_label_area_size(78)
        .build_cartesian_2d(x, y)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc(fig.x_label.as_str())
        .y_desc(fig.y_label.as_str())
        .x_labels(7)
        .y_labels(9)
        .x_label_formatter(&|v| number_label(*v))
        .y_label_formatter(&|v| number_label(*v))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(200, 200, 200))
        .draw()
        .map_err(plot_err)?;
    let clip = |v: f64| v.clamp(y_bounds.0, y_bounds.1);
    for (i, s) in fig.series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        if s.band.len() >= 2 {
            let outline: Vec<(f64, f64)> = s
                .band
                .iter()
                .map(|&(x, _, hi)| (x, clip(hi)))
                .chain(s.band.iter().rev().map(|&(x, lo, _)| (x, clip(lo))))
                .collect();
            chart.draw_series(std::iter::once(Polygon::new(outline, color.mix(0.18)))).map_err(plot_err)?;
        }
        let points: Vec<(f64, f64)> = s.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
        let style = ShapeStyle { color: color.to_rgba(), filled: false, stroke_width: 2 };
        chart.draw_series(LineSeries::new(points.clone(), style)).map_err(plot_err)?.label(s.name.as_str()).legend(
            move |(x, y)| {
                PathElement::new(
                    vec![(x, y), (x + 22, y)],
                    ShapeStyle { color: color.to_rgba(), filled: false, stroke_width: 2 },
                )
            },
        );
        if s.markers {
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled()))).map_err(plot_err)?;
        }
    }
    if let Some((value, label)) = &fig.hline {
        let (x0, x1) = (chart.x_range().start, chart.x_range().end);
        let dashed = DashedLineSeries::new(vec![(x0, *value), (x1, *value)], 6, 4, BLACK.mix(0.6).stroke_width(1));
        chart
            .draw_series(dashed)
            .map_err(plot_err)?
            .label(label.as_str())
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], BLACK.mix(0.6).stroke_width(1)));
    }
    chart
        .configure_series_labels()
        .position(if fig.legend_lower_right { SeriesLabelPosition::LowerRight } else { SeriesLabelPosition::UpperLeft })
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(plot_err)?;
    root.present().map_err(plot_err)?;
    Ok(())
}

/// Tick values of a log axis: the powers of ten in range, refined with 2 and 5 (then 3, 4, 6, 8)
/// times them while fewer than four fit; the light grid lines are every digit times a power of ten.
fn log_ticks(lo: f64, hi: f64) -> (Vec<f64>, Vec<f64>) {
    let (k0, k1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let with = |ms: &[f64]| -> Vec<f64> {
        (k0..=k1).flat_map(|k| ms.iter().map(move |m| m * 10f64.powi(k))).filter(|v| *v >= lo && *v <= hi).collect()
    };
    let light = with(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    for ms in [&[1.0][..], &[1.0, 2.0, 5.0], &[1.0, 2.0, 3.0, 5.0], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0]] {
        let bold = with(ms);
        if bold.len() >= 4 {
            return (bold, light);
        }
    }
    (with(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]), light)
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, fig: &Figure) -> Result<()> {
    let xs = fig.series.iter().flat_map(|s| s.points.iter().map(|p| p.0).chain(s.band.iter().map(|b| b.0)));
    let (x0, x1) = range(xs, fig.x_log);
    let ys = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1).chain(s.band.iter().flat_map(|b| [b.1, b.2])))
        .chain(fig.hline.iter().map(|h| h.0));
    let (y0, y1) = range(ys, fig.y_log);
    let log = |a: f64, b: f64| {
        let (bold, light) = log_ticks(a, b);
        (a..b).log_scale().with_key_points(bold).with_light_points(light)
    };
    match (fig.x_log, fig.y_log) {
        (true, true) => draw_on(root, fig, log(x0, x1), log(y0, y1), (y0, y1)),
        (true, false) => draw_on(root, fig, log(x0, x1), y0..y1, (y0, y1)),
        (false, true) => draw_on(root, fig, x0..x1, log(y0, y1), (y0, y1)),
        (false, false) => draw_on(root, fig, x0..x1, y0..y1, (y0, y1)),
    }
}

/// The figure as an SVG document.
pub fn svg(fig: &Figure) -> Result<String> {
    fonts()?;
    let mut s = String::new();
    draw(SVGBackend::with_string(&mut s, SIZE).into_drawing_area(), fig)?;
    Ok(s)
}

/// The figure as a PNG file (8-bit RGB).
pub fn png(fig: &Figure) -> Result<Vec<u8>> {
    fonts()?;
    let (w, h) = SIZE;
    let mut rgb = vec![255u8; (w * h * 3) as usize];
    draw(BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area(), fig)?;
    let mut out = Vec::new();
    {
        let mut enc = ::png::Encoder::new(&mut out, w, h);
        enc.set_color(::png::ColorType::Rgb);
        enc.set_depth(::png::BitDepth::Eight);
        enc.set_compression(::png::Compression::Balanced);
        let mut writer = enc.write_header().map_err(|e| Error::usage(format!("PNG: {e}")))?;
        writer.write_image_data(&rgb).map_err(|e| Error::usage(format!("PNG: {e}")))?;
    }
    Ok(out)
}

/// Writes `<dir>/<name>.svg` and `<dir>/<name>.png` (atomically).
pub fn write(dir: &Path, name: &str, fig: &Figure) -> Result<()> {
    write_atomic(&dir.join(format!("{name}.svg")), svg(fig)?.as_bytes())?;
    write_atomic(&dir.join(format!("{name}.png")), &png(fig)?)
}

/// Decodes a PNG: (width, height, bytes per pixel, pixels). For tests and checks of the figures.
pub fn decode_png(bytes: &[u8]) -> Result<(u32, u32, usize, Vec<u8>)> {
    let err = |e: ::png::DecodingError| Error::usage(format!("PNG: {e}"));
    let decoder = ::png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().map_err(err)?;
    let size = reader.output_buffer_size().ok_or_else(|| Error::usage("PNG: image too large"))?;
    let mut buf = vec![0u8; size];
    let info = reader.next_frame(&mut buf).map_err(err)?;
    buf.truncate(info.buffer_size());
    Ok((info.width, info.height, info.color_type.samples(), buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_give_at_least_four_labels() {
        assert_eq!(log_ticks(1e-4, 1e2).0, vec![1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0]);
        let (bold, light) = log_ticks(6.0, 100.0);
        assert_eq!(bold, vec![10.0, 20.0, 50.0, 100.0]);
        assert!(light.contains(&6.0) && light.contains(&90.0));
        assert!(log_ticks(0.15, 1.6).0.len() >= 4);
    }
}
