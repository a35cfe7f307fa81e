//! The design card's charts, through plotters: the scaling chart (figs. 4,
//! 5, 8) and the memory bars (Table 6.2's breakdown against the GPU's
//! memory). The page draws them with plotters-canvas and the exports with
//! plotters' SVG backend, both behind [`crate::backend::Measured`].
//!
//! Both charts sit on one coordinate type, [`Axis`] × [`Axis`]: linear
//! `f64` axes whose ticks the chart gives. The scaling chart plots
//! log10 values and labels them as powers, so that its ticks are the ones
//! it wants (every decade of parameters; 1, 2 and 5 × 10^k days when few
//! decades show, which plotters' own log axis does not give) and so that
//! plotters' chart and mesh code is compiled once for the page, not once
//! per coordinate type (each copy is several KB of wasm).

use core::ops::Range;

use plan3d_core::{search::SweepRow, units::GIB, MemoryBreakdown, Method};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One axis of either chart: linear over `range`, a tick and a grid line
/// at each of `ticks` and nowhere else. (plotters' own key-point
/// combinator over an `f64` axis has no default label format, which its
/// mesh asks for even when every label has its formatter.)
pub struct Axis {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let f = if span > 0.0 {
            (v - self.range.start) / span
        } else {
            0.5
        };
        // As plotters' own f64 axis: floor, with a thousandth of a pixel
        // of slack; clamped far outside, so that nothing overflows.
        let px = f64::from(limit.1 - limit.0) * f.clamp(-1e3, 1e3) + 1e-3;
        limit.0 + px.floor() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// A drawing's result on backend `DB`.
pub type Drawn<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Colours per method, readable on light and dark backgrounds.
pub fn method_color(m: Method) -> RGBColor {
    match m {
        Method::Baseline => RGBColor(214, 96, 77),
        Method::Partitioned => RGBColor(116, 173, 209),
        _ => RGBColor(102, 189, 99),
    }
}

/// Foreground and background for the theme.
pub fn theme(dark: bool) -> (RGBColor, RGBColor) {
    if dark {
        (RGBColor(232, 233, 238), RGBColor(27, 29, 35))
    } else {
        (RGBColor(27, 29, 35), RGBColor(255, 255, 255))
    }
}

/// The labels' font: the page's sans-serif at 13 px. (Named by its enum:
/// plotters reads a family's name with `to_lowercase`, which would bring
/// Unicode's case tables into the page, +14 KB of wasm.)
fn font(fg: RGBColor) -> TextStyle<'static> {
    FontDesc::new(FontFamily::SansSerif, 13.0, FontStyle::Normal).color(&fg)
}

/// The plotting area's pixels and its log10 ranges: maps the mouse to a
/// model size, and a (parameters, days) point to pixels for the marker.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XMap {
    /// Left pixel.
    pub x0: i32,
    /// Right pixel.
    pub x1: i32,
    /// log10 of the leftmost parameter count.
    pub lo: f64,
    /// log10 of the rightmost parameter count.
    pub hi: f64,
    /// Top pixel.
    pub y0: i32,
    /// Bottom pixel.
    pub y1: i32,
    /// log10 of the smallest time shown (bottom).
    pub ylo: f64,
    /// log10 of the largest time shown (top).
    pub yhi: f64,
}

impl XMap {
    /// The parameter count under pixel `x`.
    pub fn params_at(&self, x: f64) -> Option<f64> {
        if self.x1 <= self.x0 {
            return None;
        }
        let f = (x - f64::from(self.x0)) / f64::from(self.x1 - self.x0);
        (0.0..=1.0)
            .contains(&f)
            .then(|| libm::pow(10.0, self.lo + f * (self.hi - self.lo)))
    }

    /// The x pixel of a parameter count, if inside the plot.
    pub fn x_at(&self, params: f64) -> Option<f64> {
        if self.x1 <= self.x0 || params.is_nan() || params <= 0.0 {
            return None;
        }
        let fx = (libm::log10(params) - self.lo) / (self.hi - self.lo);
        (0.0..=1.0)
            .contains(&fx)
            .then(|| f64::from(self.x0) + fx * f64::from(self.x1 - self.x0))
    }

    /// The pixel of a (parameters, days) point, if inside the plot.
    pub fn pixel(&self, params: f64, days: f64) -> Option<(f64, f64)> {
        let x = self.x_at(params)?;
        if days.is_nan() || days <= 0.0 {
            return None;
        }
        let fy = (libm::log10(days) - self.ylo) / (self.yhi - self.ylo);
        (0.0..=1.0)
            .contains(&fy)
            .then(|| (x, f64::from(self.y1) - fy * f64::from(self.y1 - self.y0)))
    }
}

/// What [`frame`] draws: the ranges, their ticks and labels, the axes'
/// titles, and the room around the plot in pixels.
struct Frame<'f> {
    x: (Range<f64>, Vec<f64>),
    y: (Range<f64>, Vec<f64>),
    x_label: &'f dyn Fn(&f64) -> String,
    y_label: &'f dyn Fn(&f64) -> String,
    x_desc: &'f str,
    y_desc: &'f str,
    /// Top, right, bottom (x labels and title), left (y labels and title).
    room: [u32; 4],
    /// Grid lines across the plot at the x ticks too.
    x_grid: bool,
}

/// A chart on `area`: background, axes, grid lines at the ticks, labels.
fn frame<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    f: Frame<'_>,
    dark: bool,
) -> Drawn<ChartContext<'a, DB, Cartesian2d<Axis, Axis>>, DB> {
    let (fg, bg) = theme(dark);
    area.fill(&bg)?;
    let [top, right, bottom, left] = f.room;
    let mut chart = ChartBuilder::on(area)
        .margin_top(top)
        .margin_right(right)
        .margin_left(4)
        .x_label_area_size(bottom)
        .y_label_area_size(left)
        .build_cartesian_2d(
            Axis {
                range: f.x.0,
                ticks: f.x.1,
            },
            Axis {
                range: f.y.0,
                ticks: f.y.1,
            },
        )?;
    let text = font(fg);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(f.x_desc)
        .y_desc(f.y_desc)
        .axis_desc_style(text.clone())
        .label_style(text)
        .axis_style(fg.mix(0.6))
        .bold_line_style(fg.mix(0.15))
        .light_line_style(TRANSPARENT)
        .x_label_formatter(f.x_label)
        .y_label_formatter(f.y_label);
    if !f.x_grid {
        mesh.disable_x_mesh();
    }
    mesh.draw()?;
    Ok(chart)
}

/// Training time of the fastest plan per method against model size, on
/// log–log axes (the current model is marked on an overlay, see
/// [`XMap::pixel`]): a grid line and label at every decade of parameters
/// and at the round times (1, 2 and 5 × 10^k days when fewer than three
/// decades show), one month and one year marked (sec. 7), a legend in the
/// lower right, where no curve goes (they rise from lower left to upper
/// right, and the month and year are labelled on the left).
pub fn scaling<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[(Method, Vec<SweepRow>)],
    dark: bool,
) -> Drawn<XMap, DB> {
    let (fg, bg) = theme(dark);
    // (log10 parameters, log10 days) of each method's plans.
    let pts = |r: &[SweepRow]| -> Vec<(f64, f64)> {
        r.iter()
            .filter_map(|r| {
                r.plan
                    .as_ref()
                    .ok()
                    .map(|p| (r.params, p.evaluation.time.days()))
            })
            .filter(|&(p, d)| d.is_finite() && d > 0.0 && p > 0.0)
            .map(|(p, d)| (libm::log10(p), libm::log10(d)))
            .collect()
    };
    let all: Vec<(f64, f64)> = rows.iter().flat_map(|(_, r)| pts(r)).collect();
    let (ylo, yhi) = all
        .iter()
        .fold(None, |r: Option<(f64, f64)>, p| {
            Some(r.map_or((p.1, p.1), |(a, b)| (a.min(p.1), b.max(p.1))))
        })
        // A factor of two of room above and below; before any plan, an
        // hour to three centuries.
        .map_or((-1.5, 5.0), |(a, b)| {
            (a - libm::log10(2.0), b + libm::log10(2.0))
        });
    // The x range follows the sizes that have a plan, whole decades; a
    // size just below one (X[x] sizes fall near them) does not open
    // another.
    let (lo, hi) = all
        .iter()
        .fold(None, |r: Option<(f64, f64)>, p| {
            Some(r.map_or((p.0, p.0), |(a, b)| (a.min(p.0), b.max(p.0))))
        })
        .map_or((8.0, 16.0), |(a, b)| {
            let a = (a + 0.05).floor();
            (a, (b - 0.05).ceil().max(a + 1.0))
        });
    let decades: Vec<f64> = (0..=(hi - lo) as i32).map(|k| lo + f64::from(k)).collect();
    // Round times.
    let few = yhi.ceil() - ylo.floor() < 3.0;
    let mut times = Vec::new();
    let mut d = ylo.floor();
    while d <= yhi.ceil() {
        for m in [1.0_f64, 2.0, 5.0] {
            let v = d + libm::log10(m);
            if (m == 1.0 || few) && (ylo..=yhi).contains(&v) {
                times.push(v);
            }
        }
        d += 1.0;
    }
    let x_label = |v: &f64| crate::fmt::power_of_ten(libm::pow(10.0, *v));
    let y_label = |v: &f64| crate::fmt::tick(libm::pow(10.0, *v));
    let chart = frame(
        area,
        Frame {
            x: (lo..hi, decades),
            y: (ylo..yhi, times),
            x_label: &x_label,
            y_label: &y_label,
            x_desc: "parameters",
            y_desc: "training time (days)",
            // Room for the last x label, centred on the right edge, and for
            // a six-digit y label beside the axis title.
            room: [12, 26, 40, 72],
            x_grid: true,
        },
        dark,
    )?;
    let text = font(fg);
    // Everything below is a path in the chart's coordinates or a shape in
    // pixels: one element type each, so that plotters' drawing code is
    // instantiated a few times only.
    let plot = chart.plotting_area();
    // One month and one year (sec. 7).
    for (days, label) in [(30.0_f64, "one month"), (365.0, "one year")] {
        let l = libm::log10(days);
        if (ylo..yhi).contains(&l) {
            plot.draw(&PathElement::new(vec![(lo, l), (hi, l)], fg.mix(0.35)))?;
            let (x, y) = chart.backend_coord(&(lo + libm::log10(1.5), l));
            area.draw(&Text::new(
                label,
                (x, y - 2),
                text.clone().pos(Pos::new(HPos::Left, VPos::Bottom)),
            ))?;
        }
    }
    // Each line drawn wider than the next, so that two methods with the
    // same plans (Megatron-style and ZeRO-3 / FSDP often) both show: the
    // first as a broad band under the second.
    let width = |k: usize| 2 * (rows.len() - k) as u32;
    for (k, (m, r)) in rows.iter().enumerate() {
        // Inside the plot only: a size just below the first decade is left
        // out rather than drawn across the axis.
        let line: Vec<(f64, f64)> = pts(r)
            .into_iter()
            .filter(|&(x, _)| (lo - 1e-9..=hi + 1e-9).contains(&x))
            .collect();
        plot.draw(&PathElement::new(
            line,
            method_color(*m).stroke_width(width(k)),
        ))?;
    }
    let (xr, yr) = plot.get_pixel_range();
    // The legend, drawn here: plotters' own series labels measure their
    // text through a DOM element (a forced page layout, 2+ ms a redraw),
    // not through the backend. On a narrow chart (a phone) it names the
    // methods without their parenthesis, so that it stays clear of the y
    // labels.
    let widest = |short: bool| -> Drawn<i32, DB> {
        let mut w = 0;
        for (m, _) in rows {
            w = w.max(area.estimate_text_size(legend_name(*m, short), &text)?.0 as i32);
        }
        Ok(w)
    };
    let short = f64::from(widest(false)? + 42) > 0.45 * f64::from(xr.end - xr.start);
    let map = XMap {
        x0: xr.start,
        x1: xr.end,
        lo,
        hi,
        y0: yr.start,
        y1: yr.end,
        ylo,
        yhi,
    };
    // Before the sweep lands there is nothing to name: no empty box.
    if rows.is_empty() {
        return Ok(map);
    }
    let line_h = 18;
    let (box_w, box_h) = (widest(short)? + 42, line_h * rows.len() as i32 + 8);
    let (lx, ly) = (xr.end - box_w - 10, yr.end - box_h - 8);
    let corners = [(lx, ly), (lx + box_w, ly + box_h)];
    area.draw(&Rectangle::new(corners, bg.mix(0.85).filled()))?;
    area.draw(&Rectangle::new(corners, fg.mix(0.35)))?;
    for (k, (m, _)) in rows.iter().enumerate() {
        let y = ly + 4 + line_h * k as i32 + line_h / 2;
        area.draw(&PathElement::new(
            [(lx + 8, y), (lx + 26, y)],
            method_color(*m).stroke_width(width(k)),
        ))?;
        area.draw(&Text::new(
            legend_name(*m, short),
            (lx + 34, y),
            text.clone().pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(map)
}

/// A method's name in a legend: the practitioners' name, without its
/// parenthesis when `short`.
fn legend_name(m: Method, short: bool) -> &'static str {
    let l = m.label();
    if short {
        l.split(" (").next().unwrap_or(l)
    } else {
        l
    }
}

/// One bar of the memory chart: a method, its plan's memory, offloaded.
pub type MemoryBar = (Method, MemoryBreakdown, bool);

/// The memory chart's bars: each method's plan, where it has one.
#[must_use]
pub fn memory_bars(out: &plan3d_core::planner::Outputs) -> Vec<MemoryBar> {
    out.plans
        .iter()
        .filter_map(|(m, p)| {
            p.as_ref()
                .ok()
                .map(|p| (*m, p.evaluation.memory, p.evaluation.config.offload))
        })
        .collect()
}

/// The memory categories' colours: state, checkpoints, buffers,
/// activations.
const PARTS: [(&str, RGBColor); 4] = [
    ("state", RGBColor(0x54, 0x70, 0xc6)),
    ("checkpoints", RGBColor(0x91, 0xcc, 0x75)),
    ("buffers", RGBColor(0xfa, 0xc8, 0x58)),
    ("activations", RGBColor(0xee, 0x66, 0x66)),
];

/// The memory that stays on each GPU per method, stacked by category
/// (state, checkpoints, buffers, activations), against the GPU's memory:
/// a y axis in GiB with round ticks, a legend strip above the plot (it
/// never covers a bar; two rows on a phone), the practitioners' method
/// names under the bars (their first words where the full ones would
/// collide).
pub fn memory<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    bars: &[MemoryBar],
    gpu_memory: f64,
    dark: bool,
) -> Drawn<(), DB> {
    let (fg, _) = theme(dark);
    let parts = |m: &MemoryBreakdown, offload: bool| m.on_gpu_parts(offload).map(|b| b.gib());
    let g = gpu_memory / GIB;
    let top = (bars
        .iter()
        .map(|(_, m, o)| parts(m, *o).iter().sum::<f64>())
        .fold(g, f64::max)
        * 1.12)
        .max(f64::MIN_POSITIVE);
    // Round ticks: 1, 2 or 5 × 10^k, about six of them.
    let step = crate::fmt::tick_step(top, 6.0);
    let ticks: Vec<f64> = (0..)
        .map(|k| f64::from(k) * step)
        .take_while(|v| *v <= top)
        .collect();
    let n = bars.len().max(1);
    let text = font(fg);
    // The practitioners' names under the bars, without their parenthesis;
    // where the widest would run into its neighbour (a phone), the first
    // word alone ("Megatron", "ZeRO-3", "layered").
    let name_of = |m: Method, offload: bool, short: bool| {
        let l = m.label();
        let name = if short {
            l.split(' ').next().unwrap_or(l).trim_end_matches("-style")
        } else {
            l.split(" (").next().unwrap_or(l)
        };
        match (offload, short) {
            (false, _) => name.to_string(),
            (true, false) => format!("{name} (offload)"),
            (true, true) => format!("{name} (off.)"),
        }
    };
    let (w, _) = area.dim_in_pixel();
    let bar_w = (f64::from(w) - 76.0) / n as f64;
    let mut widest = 0;
    for (m, _, offload) in bars {
        widest = widest.max(
            area.estimate_text_size(&name_of(*m, *offload, false), &text)?
                .0,
        );
    }
    let short = f64::from(widest) > 0.95 * bar_w;
    let names: Vec<String> = bars
        .iter()
        .map(|(m, _, offload)| name_of(*m, *offload, short))
        .collect();
    // The legend above the plot: one strip, or two rows where one does not
    // fit (a phone).
    let mut keys = Vec::new();
    let (mut x, mut y) = (64, 14);
    for (name, color) in PARTS {
        let kw = 20 + area.estimate_text_size(name, &text)?.0 as i32;
        if x + kw > w as i32 - 8 && x > 64 {
            (x, y) = (64, y + 18);
        }
        keys.push((x, y, name, color));
        x += kw + 18;
    }
    let x_label = |v: &f64| names.get(*v as usize).cloned().unwrap_or_default();
    let y_label = |v: &f64| crate::fmt::tick(*v);
    let chart = frame(
        area,
        Frame {
            x: (
                0.0..n as f64,
                (0..bars.len()).map(|i| i as f64 + 0.5).collect(),
            ),
            y: (0.0..top, ticks),
            x_label: &x_label,
            y_label: &y_label,
            x_desc: "",
            y_desc: "GiB per GPU",
            // The legend's strip above the plot.
            room: [y as u32 + 20, 12, 28, 60],
            x_grid: false,
        },
        dark,
    )?;
    // Bars and labels in pixels (see the scaling chart).
    let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
    for (i, (_, mem, offload)) in bars.iter().enumerate() {
        let left = i as f64 + 0.2;
        let mut acc = 0.0;
        for (part, (_, color)) in parts(mem, *offload).into_iter().zip(PARTS) {
            area.draw(&Rectangle::new(
                [px(left, acc + part), px(left + 0.6, acc)],
                color.filled(),
            ))?;
            acc += part;
        }
    }
    // The GPU's memory: a red line, its figure right-aligned above it.
    let red = RGBColor(0xe0, 0x31, 0x31);
    let plot = chart.plotting_area();
    plot.draw(&PathElement::new(
        vec![(0.0, g), (n as f64, g)],
        red.stroke_width(2),
    ))?;
    let (x, y) = px(n as f64, g);
    let label = format!("GPU memory {} GiB", crate::fmt::gib(gpu_memory));
    area.draw(&Text::new(
        label.as_str(),
        (x - 4, y - 3),
        text.clone().pos(Pos::new(HPos::Right, VPos::Bottom)),
    ))?;
    for (x, y, name, color) in keys {
        area.draw(&Rectangle::new(
            [(x, y - 6), (x + 14, y + 6)],
            color.filled(),
        ))?;
        area.draw(&Text::new(
            name,
            (x + 20, y),
            text.clone().pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}
