//! Charts: the scaling chart (figs. 4, 5, 8) drawn with plotters, and the
//! memory bars (Table 6.2's breakdown against the GPU's memory) drawn by
//! hand through [`crate::paint`].

use plan3d_core::{search::SweepRow, units::GIB, MemoryBreakdown, Method};

use crate::paint::{Anchor, Paint};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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
            .then(|| 10f64.powf(self.lo + f * (self.hi - self.lo)))
    }

    /// The x pixel of a parameter count, if inside the plot.
    pub fn x_at(&self, params: f64) -> Option<f64> {
        if self.x1 <= self.x0 || params.is_nan() || params <= 0.0 {
            return None;
        }
        let fx = (params.log10() - self.lo) / (self.hi - self.lo);
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
        let fy = (days.log10() - self.ylo) / (self.yhi - self.ylo);
        (0.0..=1.0)
            .contains(&fy)
            .then(|| (x, f64::from(self.y1) - fy * f64::from(self.y1 - self.y0)))
    }
}

/// Training time of the fastest plan per method against model size (the
/// current model is marked on an overlay, see [`XMap::pixel`]).
pub fn scaling<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[(Method, Vec<SweepRow>)],
    dark: bool,
) -> Result<XMap, DrawingAreaErrorKind<DB::ErrorType>> {
    let (fg, bg) = theme(dark);
    area.fill(&bg)?;
    let pts = |r: &[SweepRow]| -> Vec<(f64, f64)> {
        r.iter()
            .filter_map(|r| {
                r.plan
                    .as_ref()
                    .ok()
                    .map(|p| (r.params, p.evaluation.time.days()))
            })
            .filter(|(_, d)| d.is_finite() && *d > 0.0)
            .collect()
    };
    let all: Vec<(f64, f64)> = rows.iter().flat_map(|(_, r)| pts(r)).collect();
    let (ymin, ymax) = all.iter().fold((f64::INFINITY, 0.0_f64), |(a, b), p| {
        (a.min(p.1), b.max(p.1))
    });
    let (ymin, ymax) = if all.is_empty() {
        (1e-3, 1e6)
    } else {
        (ymin / 2.0, ymax * 2.0)
    };
    // The x range follows the sizes that have a plan, whole decades.
    let (lo, hi) = all
        .iter()
        .fold(None, |r: Option<(f64, f64)>, p| {
            Some(r.map_or((p.0, p.0), |(a, b)| (a.min(p.0), b.max(p.0))))
        })
        .map_or((1e8, 1e16), |(a, b)| {
            // Whole decades; a size just below one (X[x] sizes fall near
            // them) does not open another.
            let a = (a.log10() + 0.05).floor();
            let b = (b.log10() - 0.05).ceil().max(a + 1.0);
            (10f64.powf(a), 10f64.powf(b))
        });
    let text = ("sans-serif", 13).into_font().color(&fg);
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        // Room for the last x label ("1e16"), centred on the right edge.
        .margin_right(22)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d((lo..hi).log_scale(), (ymin..ymax).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("parameters")
        .y_desc("training time (days)")
        .axis_desc_style(text.clone())
        .label_style(text.clone())
        .axis_style(fg.mix(0.6))
        .light_line_style(TRANSPARENT)
        .bold_line_style(fg.mix(0.15))
        .x_label_formatter(&|v| crate::fmt::power_of_ten(*v))
        .y_label_formatter(&|v| crate::fmt::tick(*v))
        .draw()?;
    // One month and one year (sec. 7).
    for (days, label) in [(30.0, "one month"), (365.0, "one year")] {
        if (ymin..ymax).contains(&days) {
            chart.draw_series(LineSeries::new([(lo, days), (hi, days)], fg.mix(0.35)))?;
            chart.draw_series(std::iter::once(Text::new(
                label,
                (lo * 1.5, days * 1.15),
                text.clone(),
            )))?;
        }
    }
    for (m, r) in rows {
        chart.draw_series(LineSeries::new(pts(r), method_color(*m).stroke_width(2)))?;
    }
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    // The legend, drawn here: plotters' own series labels measure their
    // text through a DOM element (a forced page layout, 2+ ms a redraw),
    // not through the backend.
    let names: Vec<(&str, RGBColor)> = rows
        .iter()
        .map(|(m, _)| (m.label(), method_color(*m)))
        .collect();
    let mut wmax = 0;
    let mut line_h = 16;
    for (name, _) in &names {
        let (w, h) = area.estimate_text_size(name, &text)?;
        wmax = wmax.max(w as i32);
        line_h = line_h.max(h as i32 + 2);
    }
    let box_w = 18 + 8 + wmax + 16;
    let box_h = line_h * names.len() as i32 + 8;
    // Lower right: the curves rise from lower left to upper right, and the
    // month and year lines are labelled on the left.
    let (lx, ly) = (xr.end - box_w - 10, yr.end - box_h - 8);
    area.draw(&Rectangle::new(
        [(lx, ly), (lx + box_w, ly + box_h)],
        bg.mix(0.85).filled(),
    ))?;
    area.draw(&Rectangle::new(
        [(lx, ly), (lx + box_w, ly + box_h)],
        fg.mix(0.3),
    ))?;
    for (k, (name, color)) in names.iter().enumerate() {
        let y = ly + 4 + line_h * k as i32 + line_h / 2;
        area.draw(&PathElement::new(
            [(lx + 8, y), (lx + 26, y)],
            color.stroke_width(2),
        ))?;
        area.draw(&Text::new(
            *name,
            (lx + 34, y),
            text.clone().pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(XMap {
        x0: xr.start,
        x1: xr.end,
        lo: lo.log10(),
        hi: hi.log10(),
        y0: yr.start,
        y1: yr.end,
        ylo: ymin.log10(),
        yhi: ymax.log10(),
    })
}

/// The memory that stays on each GPU per method, stacked by category
/// (state, checkpoints, buffers, activations), against the GPU's memory:
/// a y axis in GiB with round ticks, a legend strip above the plot (it
/// never covers a bar), the practitioners' method names under the bars.
pub fn memory(
    p: &mut impl Paint,
    bars: &[(Method, MemoryBreakdown, bool)],
    gpu_memory: f64,
    dark: bool,
) {
    let (fg, bg, grid) = if dark {
        ("#e8e9ee", "#1b1d23", "#33363f")
    } else {
        ("#1b1d23", "#ffffff", "#e4e6eb")
    };
    let colors = ["#5470c6", "#91cc75", "#fac858", "#ee6666"];
    let (w, h) = p.size();
    p.rect(0.0, 0.0, w, h, bg);
    let parts = |m: &MemoryBreakdown, offload: bool| m.on_gpu_parts(offload).map(|b| b.gib());
    let g = gpu_memory / GIB;
    let top = bars
        .iter()
        .map(|(_, m, o)| parts(m, *o).iter().sum::<f64>())
        .fold(g, f64::max)
        * 1.12;
    // The plot's box: y labels on the left, the legend above, names below.
    let (x0, x1, y0, y1) = (64.0, w - 12.0, 44.0, h - 30.0);
    let y_of = |v: f64| y1 - (v / top.max(f64::MIN_POSITIVE)) * (y1 - y0);
    // Round ticks: 1, 2 or 5 × 10^k, about six of them.
    let step = crate::fmt::tick_step(top, 6.0);
    let mut v = 0.0;
    while v <= top {
        let y = y_of(v);
        p.rect(x0, y, x1 - x0, 1.0, grid);
        p.text(&crate::fmt::tick(v), x0 - 6.0, y, fg, Anchor::End);
        v += step;
    }
    p.text("GiB per GPU", 4.0, y0 - 14.0, fg, Anchor::Start);
    p.rect(x0, y0, 1.0, y1 - y0, fg);
    p.rect(x0, y1, x1 - x0, 1.0, fg);
    let n = bars.len().max(1) as f64;
    let bw = (x1 - x0) / n;
    for (i, (m, mem, offload)) in bars.iter().enumerate() {
        let left = x0 + (i as f64 + 0.2) * bw;
        let mut acc = 0.0;
        for (j, part) in parts(mem, *offload).into_iter().enumerate() {
            let (ya, yb) = (y_of(acc), y_of(acc + part));
            p.rect(left, yb, 0.6 * bw, ya - yb, colors[j]);
            acc += part;
        }
        // The practitioners' name, without its parenthesis.
        let name = m.label().split(" (").next().unwrap_or(m.name());
        let label = if *offload {
            format!("{name} (offload)")
        } else {
            name.to_string()
        };
        p.text(&label, left + 0.3 * bw, y1 + 14.0, fg, Anchor::Middle);
    }
    // The GPU's memory: a red line, its figure right-aligned above it.
    let gy = y_of(g);
    p.rect(x0, gy - 1.0, x1 - x0, 2.0, "#e03131");
    p.text(
        &format!("GPU memory {} GiB", crate::fmt::gib(gpu_memory)),
        x1 - 4.0,
        gy - 10.0,
        fg,
        Anchor::End,
    );
    // The legend, in its own strip above the plot.
    let mut x = x0;
    for (j, name) in ["state", "checkpoints", "buffers", "activations"]
        .into_iter()
        .enumerate()
    {
        p.rect(x, 8.0, 14.0, 12.0, colors[j]);
        p.text(name, x + 20.0, 14.0, fg, Anchor::Start);
        x += 20.0 + p.width(name) + 18.0;
    }
}
