//! Charts, drawn by hand through [`crate::paint`]: the scaling chart
//! (figs. 4, 5, 8) and the memory bars (Table 6.2's breakdown against the
//! GPU's memory).

use plan3d_core::{search::SweepRow, units::GIB, MemoryBreakdown, Method};

use crate::paint::{Anchor, Paint};

/// Colours per method, readable on light and dark backgrounds.
pub fn method_color(m: Method) -> &'static str {
    match m {
        Method::Baseline => "#d6604d",
        Method::Partitioned => "#74add1",
        _ => "#66bd63",
    }
}

/// Foreground and background for the theme.
pub fn theme(dark: bool) -> (&'static str, &'static str) {
    if dark {
        ("#e8e9ee", "#1b1d23")
    } else {
        ("#1b1d23", "#ffffff")
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

/// Training time of the fastest plan per method against model size, on
/// log–log axes (the current model is marked on an overlay, see
/// [`XMap::pixel`]): a grid line and label at every decade of parameters
/// and at the round times (1, 2 and 5 × 10^k days when fewer than three
/// decades show), one month and one year marked (sec. 7), a legend in the
/// lower right, where no curve goes (they rise from lower left to upper
/// right, and the month and year are labelled on the left).
pub fn scaling(p: &mut impl Paint, rows: &[(Method, Vec<SweepRow>)], dark: bool) -> XMap {
    let (fg, bg) = theme(dark);
    let (grid, axis, faint, legend_bg) = if dark {
        (
            "rgba(232,233,238,0.15)",
            "rgba(232,233,238,0.6)",
            "rgba(232,233,238,0.35)",
            "rgba(27,29,35,0.85)",
        )
    } else {
        (
            "rgba(27,29,35,0.15)",
            "rgba(27,29,35,0.6)",
            "rgba(27,29,35,0.35)",
            "rgba(255,255,255,0.85)",
        )
    };
    let (w, h) = p.size();
    p.rect(0.0, 0.0, w, h, bg);
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
    // The x range follows the sizes that have a plan, whole decades; a
    // size just below one (X[x] sizes fall near them) does not open
    // another.
    let (lo, hi) = all
        .iter()
        .fold(None, |r: Option<(f64, f64)>, p| {
            Some(r.map_or((p.0, p.0), |(a, b)| (a.min(p.0), b.max(p.0))))
        })
        .map_or((8.0, 16.0), |(a, b)| {
            let a = (a.log10() + 0.05).floor();
            (a, (b.log10() - 0.05).ceil().max(a + 1.0))
        });
    let (ylo, yhi) = (ymin.log10(), ymax.log10());
    // The plot's box: y labels on the left, the axis title above, x labels
    // and title below, room for the last x label on the right.
    let (x0, x1, y0, y1) = (64.0, w - 26.0, 30.0, h - 42.0);
    let px = |v: f64| x0 + (v.log10() - lo) / (hi - lo) * (x1 - x0);
    let py = |v: f64| y1 - (v.log10() - ylo) / (yhi - ylo) * (y1 - y0);
    // Decades of parameters.
    let mut k = lo;
    while k <= hi + 1e-9 {
        let x = px(10f64.powf(k));
        p.line(&[(x, y0), (x, y1)], grid, 1.0);
        p.text(
            &crate::fmt::power_of_ten(10f64.powf(k)),
            x,
            y1 + 14.0,
            fg,
            Anchor::Middle,
        );
        k += 1.0;
    }
    // Round times.
    let few = yhi.ceil() - ylo.floor() < 3.0;
    let mut d = ylo.floor();
    while d <= yhi.ceil() {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powf(d);
            if (m == 1.0 || few) && (ymin..=ymax).contains(&v) {
                let y = py(v);
                p.line(&[(x0, y), (x1, y)], grid, 1.0);
                p.text(&crate::fmt::tick(v), x0 - 6.0, y, fg, Anchor::End);
            }
        }
        d += 1.0;
    }
    p.line(&[(x0, y0), (x0, y1), (x1, y1)], axis, 1.0);
    p.text("training time (days)", 4.0, 12.0, fg, Anchor::Start);
    p.text("parameters", (x0 + x1) / 2.0, h - 10.0, fg, Anchor::Middle);
    // One month and one year (sec. 7).
    for (days, label) in [(30.0, "one month"), (365.0, "one year")] {
        if (ymin..ymax).contains(&days) {
            let y = py(days);
            p.line(&[(x0, y), (x1, y)], faint, 1.0);
            p.text(label, px(10f64.powf(lo) * 1.5), y - 9.0, fg, Anchor::Start);
        }
    }
    for (m, r) in rows {
        // Inside the plot only: a size just below the first decade is
        // left out rather than drawn across the axis.
        let line: Vec<(f64, f64)> = pts(r)
            .into_iter()
            .map(|(a, b)| (px(a), py(b)))
            .filter(|&(x, _)| (x0 - 0.5..=x1 + 0.5).contains(&x))
            .collect();
        p.line(&line, method_color(*m), 2.0);
    }
    // The legend; on a narrow chart (a phone) with the short names, so
    // that it stays clear of the y labels.
    let widest = |short: bool| {
        rows.iter()
            .map(|(m, _)| p.width(legend_name(*m, short)))
            .fold(0.0, f64::max)
    };
    let short = widest(false) + 42.0 > 0.45 * (x1 - x0);
    let wmax = widest(short);
    let line_h = 18.0;
    let (box_w, box_h) = (wmax + 42.0, line_h * rows.len() as f64 + 8.0);
    let (lx, ly) = (x1 - box_w - 10.0, y1 - box_h - 8.0);
    p.rect(lx, ly, box_w, box_h, legend_bg);
    p.line(
        &[
            (lx, ly),
            (lx + box_w, ly),
            (lx + box_w, ly + box_h),
            (lx, ly + box_h),
            (lx, ly),
        ],
        faint,
        1.0,
    );
    for (k, (m, _)) in rows.iter().enumerate() {
        let y = ly + 4.0 + line_h * (k as f64 + 0.5);
        p.line(&[(lx + 8.0, y), (lx + 26.0, y)], method_color(*m), 2.0);
        p.text(legend_name(*m, short), lx + 34.0, y, fg, Anchor::Start);
    }
    XMap {
        x0: x0 as i32,
        x1: x1 as i32,
        lo,
        hi,
        y0: y0 as i32,
        y1: y1 as i32,
        ylo,
        yhi,
    }
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
