//! Schedules painted on a canvas, frame by frame: devices as rows, compute
//! lanes coloured by layer, network lanes under them, a time cursor. A frame
//! is a pure function of the clock (the fraction of the step shown).

use plan3d_core::schedule::{EventKind, Schedule, Stream};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// The labels' font.
const LABEL_FONT: &str = "11px sans-serif";

/// Left margin of timelines and memory strips (device and memory labels).
const LEFT: f64 = 66.0;

/// Above this many events a timeline is drawn as merged busy intervals,
/// so drawing cost does not grow with the event count.
pub const DETAIL_LIMIT: usize = 4000;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Block {
    start: f64,
    end: f64,
    kind: EventKind,
    layer: u32,
}

/// A block placed on the timeline: device, on the transfer lane, start, end.
type Placed = (usize, bool, f64, f64);

/// A schedule prepared for drawing: per device, its compute and transfer
/// blocks (events, or merged intervals for big schedules).
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    /// End of the step.
    pub makespan: f64,
    /// Unit of the times: `s`, or `unit` for teaching schedules.
    pub unit: &'static str,
    layers: u32,
    compute: Vec<Vec<Block>>,
    transfers: Vec<Vec<Block>>,
    /// Every block, grouped by colour: `(colour, [(device, transfer lane,
    /// start, end)])`. A frame sets each fill style once, not once a block
    /// (the layer gradient is drawn in [`SHADES`] steps).
    by_color: Vec<(String, EventKind, Vec<Placed>)>,
    /// Memory over time of device 0, as steps.
    pub memory: Vec<(f64, f64)>,
    /// Whether blocks are merged intervals.
    pub aggregated: bool,
}

impl Timeline {
    /// The kinds of block drawn, one bit each (`EventKind as u32`).
    pub fn kinds_drawn(&self) -> u32 {
        self.by_color
            .iter()
            .filter(|(_, _, v)| !v.is_empty())
            .fold(0, |m, (_, k, _)| m | 1 << *k as u32)
    }

    /// Prepares a schedule.
    pub fn new(s: &Schedule) -> Self {
        let n = s.spec.devices as usize;
        let aggregated = s.events.len() > DETAIL_LIMIT;
        let mut compute = vec![Vec::new(); n];
        let mut transfers = vec![Vec::new(); n];
        if aggregated {
            // Too many events to draw one by one: each device's busy time,
            // merged per kind, so that forward, backward and weight-gradient
            // passes keep their colours (compute), and the network's lane
            // is one colour.
            let add = |lanes: &mut Vec<Vec<Block>>, per: Vec<Vec<(f64, f64)>>, kind| {
                for (d, v) in per.into_iter().enumerate() {
                    let layer = match kind {
                        EventKind::Reduce => 0,
                        _ => d as u32 * s.spec.layers / s.spec.devices.max(1),
                    };
                    lanes[d].extend(v.into_iter().map(|(start, end)| Block {
                        start,
                        end,
                        kind,
                        layer,
                    }));
                }
            };
            for kind in [
                EventKind::Forward,
                EventKind::Backward,
                EventKind::WeightGradient,
            ] {
                add(
                    &mut compute,
                    s.busy_intervals_of_kind(Stream::Compute, kind),
                    kind,
                );
            }
            add(
                &mut transfers,
                s.busy_intervals_by_device(Stream::Network),
                EventKind::Reduce,
            );
        } else {
            for e in s.events.iter().filter(|e| e.end > e.start) {
                let b = Block {
                    start: e.start,
                    end: e.end,
                    kind: e.kind,
                    layer: e.layer,
                };
                let lane = if e.stream == Stream::Compute {
                    &mut compute
                } else {
                    &mut transfers
                };
                if let Some(v) = lane.get_mut(e.device as usize) {
                    v.push(b);
                }
            }
        }
        let layers = s.spec.layers.max(1);
        // A few dozen colours at most: found by a linear search from the
        // last one used (neighbours mostly share it), not a hash map (whose
        // instantiation costs the page ~2 KB of wasm).
        let mut groups: Vec<(String, EventKind, Vec<Placed>)> = Vec::new();
        let mut last = 0;
        for (lane, is_net) in [(&compute, false), (&transfers, true)] {
            for (d, blocks) in lane.iter().enumerate() {
                for b in blocks {
                    let c = color(b, layers);
                    let k = if groups.get(last).is_some_and(|g| g.0 == c) {
                        last
                    } else if let Some(k) = groups.iter().position(|g| g.0 == c) {
                        k
                    } else {
                        groups.push((c, b.kind, Vec::new()));
                        groups.len() - 1
                    };
                    last = k;
                    groups[k].2.push((d, is_net, b.start, b.end));
                }
            }
        }
        // Neighbouring blocks of one colour on one lane are drawn as one
        // rectangle: a pipeline's consecutive layers mostly share a shade,
        // and a gap under 1/4000 of the step is under a pixel on any screen.
        // Each lane's blocks come in time order (a device runs its
        // operations in turn), so neighbours are adjacent: no sort (a sort
        // of these tuples would cost ~4.5 KB of wasm).
        let eps = s.makespan / 4000.0;
        for (_, _, items) in &mut groups {
            let mut merged: Vec<Placed> = Vec::with_capacity(items.len());
            for &it in items.iter() {
                match merged.last_mut() {
                    Some(last) if last.0 == it.0 && last.1 == it.1 && it.2 <= last.3 + eps => {
                        last.3 = last.3.max(it.3);
                    }
                    _ => merged.push(it),
                }
            }
            *items = merged;
        }
        Self {
            makespan: s.makespan,
            unit: s.spec.durations.unit,
            layers,
            by_color: groups,
            compute,
            transfers,
            memory: s.memory_over_time(0),
            aggregated,
        }
    }
}

impl Timeline {
    /// The blocks drawn in a kind's colours: `(device, start, end)` on the
    /// compute lanes (what the tests hold against the simulated events).
    pub fn drawn(&self, kind: EventKind) -> Vec<(usize, f64, f64)> {
        self.by_color
            .iter()
            .filter(|g| g.1 == kind)
            .flat_map(|g| g.2.iter().filter(|p| !p.1).map(|p| (p.0, p.2, p.3)))
            .collect()
    }
}

/// The canvas's context, scaled to logical pixels, and its logical size.
fn context(canvas: &HtmlCanvasElement) -> Option<(CanvasRenderingContext2d, f64, f64)> {
    let ctx = crate::backend::context_of(canvas)?;
    crate::backend::scale_context(&ctx);
    let (w, h) = crate::backend::logical_size(canvas);
    Some((ctx, w, h))
}

/// Colours: the layers as a gradient, light (first layer) to dark (last),
/// blue for the forward pass and red for the backward pass (recomputation
/// included); communication in its own colours (the legend under the
/// timeline names them, `style/main.css`).
fn color(b: &Block, layers: u32) -> String {
    let f = f64::from(b.layer) / f64::from(layers.max(2) - 1).max(1.0);
    let f = (f * SHADES).round() / SHADES;
    match b.kind {
        EventKind::Forward => format!("hsl(215,70%,{:.0}%)", 80.0 - 28.0 * f.min(1.0)),
        EventKind::Backward => format!("hsl(8,65%,{:.0}%)", 68.0 - 28.0 * f.min(1.0)),
        EventKind::WeightGradient => format!("hsl(280,45%,{:.0}%)", 70.0 - 28.0 * f.min(1.0)),
        EventKind::Restore => "#3aa39b".into(),
        EventKind::Reduce => "#e08a2c".into(),
        EventKind::Send => "#8d8d8d".into(),
        EventKind::Offload | EventKind::Reload => "#7fb069".into(),
        EventKind::Optimizer => "#6d6d6d".into(),
    }
}

/// Steps of the layer gradient.
const SHADES: f64 = 24.0;

/// A time on the axis: seconds (or units) with just enough digits.
fn time_label(t: f64, step: f64, unit: &str) -> String {
    let digits = if step >= 1.0 {
        0
    } else {
        (-libm::log10(step).floor()) as usize
    };
    if unit == "s" {
        format!("{t:.digits$} s")
    } else {
        format!("{t:.digits$}")
    }
}

/// The height a GPU's label needs, pixels ([`LABEL_FONT`]'s size and a gap).
const LABEL_PITCH: f64 = 12.0;

/// Paints the timeline up to `frac` of the step (0–1).
pub fn draw(canvas: &HtmlCanvasElement, tl: &Timeline, frac: f64, dark: bool) {
    let Some((ctx, w, h)) = context(canvas) else {
        return;
    };
    let (fg, bg, lane) = if dark {
        ("#e8e9ee", "#1b1d23", "#262932")
    } else {
        ("#1b1d23", "#ffffff", "#f0f1f4")
    };
    ctx.set_fill_style_str(bg);
    ctx.fill_rect(0.0, 0.0, w, h);
    let n = tl.compute.len().max(1);
    let has_net = tl.transfers.iter().any(|v| !v.is_empty());
    // The same left margin as the memory strip, so their time axes line up.
    let left = LEFT;
    let (top, bottom) = (6.0, 20.0);
    let row = (h - top - bottom) / n as f64;
    let comp_h = if has_net { row * 0.62 } else { row * 0.85 };
    let net_h = row * 0.22;
    let scale = if tl.makespan > 0.0 {
        (w - left - 8.0) / tl.makespan
    } else {
        0.0
    };
    let now = frac.clamp(0.0, 1.0) * tl.makespan;
    ctx.set_font(LABEL_FONT);
    for d in 0..tl.compute.len() {
        let y = top + d as f64 * row;
        ctx.set_fill_style_str(lane);
        ctx.fill_rect(left, y, w - left - 8.0, comp_h);
        // Every row labelled where a label fits its row, else every k-th
        // (and the last), so that labels never overlap: a 600 × 400 embed
        // of 24 stages has 5 px rows.
        let every = (LABEL_PITCH / row).ceil().max(1.0) as usize;
        if (d % every == 0 && d + every < n) || d + 1 == n {
            ctx.set_fill_style_str(fg);
            let _ = ctx.fill_text(&format!("GPU {d}"), 4.0, y + comp_h.max(8.0) * 0.75);
        }
    }
    // The blocks, one fill style per colour.
    for (c, _, items) in &tl.by_color {
        ctx.set_fill_style_str(c);
        for &(d, is_net, start, end) in items {
            if start >= now {
                continue;
            }
            let y = top + d as f64 * row;
            let (y, hgt) = if is_net {
                (y + comp_h + row * 0.06, net_h)
            } else {
                (y, comp_h)
            };
            ctx.fill_rect(
                left + start * scale,
                y,
                ((end.min(now) - start) * scale).max(0.6),
                hgt,
            );
        }
    }
    // The time axis, in seconds for a plan's schedule.
    ctx.set_fill_style_str(fg);
    let axis = h - bottom + 2.0;
    if tl.makespan > 0.0 {
        let step = crate::fmt::tick_step(tl.makespan, 6.0);
        let mut k = 0.0;
        while k * step <= tl.makespan * 1.0001 {
            let x = left + k * step * scale;
            ctx.fill_rect(x, axis, 1.0, 4.0);
            let label = time_label(k * step, step, tl.unit);
            let _ = ctx.fill_text(&label, (x - 8.0).max(left).min(w - 40.0), h - 2.0);
            k += 1.0;
        }
    }
    // The cursor.
    ctx.fill_rect(left + now * scale, 0.0, 1.5, h - bottom + 4.0);
}

/// Paints device 0's memory over time, with the cursor.
pub fn draw_memory(
    canvas: &HtmlCanvasElement,
    tl: &Timeline,
    frac: f64,
    unit_bytes: bool,
    dark: bool,
) {
    let Some((ctx, w, h)) = context(canvas) else {
        return;
    };
    let (fg, bg, line) = if dark {
        ("#e8e9ee", "#1b1d23", "#8fb0ff")
    } else {
        ("#1b1d23", "#ffffff", "#2f5bd3")
    };
    ctx.set_fill_style_str(bg);
    ctx.fill_rect(0.0, 0.0, w, h);
    let peak = tl.memory.iter().map(|p| p.1).fold(0.0, f64::max);
    if peak <= 0.0 || tl.makespan <= 0.0 {
        return;
    }
    let (left, top, bottom) = (LEFT, 6.0, 16.0);
    let sx = (w - left - 8.0) / tl.makespan;
    let sy = (h - top - bottom) / peak;
    ctx.set_stroke_style_str(line);
    ctx.set_line_width(1.5);
    ctx.begin_path();
    let mut prev = None;
    for &(t, m) in &tl.memory {
        let (x, y) = (left + t * sx, h - bottom - m * sy);
        match prev {
            None => ctx.move_to(x, y),
            Some(py) => {
                ctx.line_to(x, py);
                ctx.line_to(x, y);
            }
        }
        prev = Some(y);
    }
    ctx.line_to(w - 8.0, prev.unwrap_or(h - bottom));
    ctx.stroke();
    ctx.set_fill_style_str(fg);
    ctx.set_font(LABEL_FONT);
    let label = if unit_bytes {
        format!("{} GiB", crate::fmt::gib(peak))
    } else {
        format!("{peak} units")
    };
    let _ = ctx.fill_text(&label, 2.0, top + 10.0);
    let _ = ctx.fill_text("GPU 0 memory", left, h - 3.0);
    ctx.fill_rect(
        left + frac.clamp(0.0, 1.0) * tl.makespan * sx,
        0.0,
        1.5,
        h - bottom,
    );
}

/// The legend's class list for the kinds of block drawn
/// ([`Timeline::kinds_drawn`]): each key whose colour no schedule shows is
/// hidden by the style sheet (`p3-no-…`).
pub fn legend_class(drawn: u32) -> String {
    let mut class = String::from("p3-legend");
    for (kinds, name) in [
        (&[EventKind::WeightGradient][..], " p3-no-wgrad"),
        (&[EventKind::Reduce], " p3-no-reduce"),
        (&[EventKind::Restore], " p3-no-restore"),
        (&[EventKind::Send], " p3-no-send"),
        (&[EventKind::Offload, EventKind::Reload], " p3-no-offload"),
    ] {
        if kinds.iter().all(|k| drawn & 1 << *k as u32 == 0) {
            class.push_str(name);
        }
    }
    class
}
