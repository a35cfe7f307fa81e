//! Drawings of a simulated schedule: a text Gantt chart and an SVG in the
//! manner of the paper's figures.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::schedule::timeline::{Event, EventKind, Schedule, Stream};

impl Schedule {
    /// A text Gantt chart, one column per `step` of time: per device a
    /// compute row (forward: micro-batch as `a`, `b`, …; backward: `A`, `B`,
    /// …; `.` idle) and, when it has transfers, a network row (`r` restore,
    /// `R` reduce, `-` idle), a pipeline row (`s` send) and a CPU-GPU row
    /// (`l` reload, `o` offload).
    #[must_use]
    pub fn to_ascii(&self, step: f64) -> String {
        let step = if step > 0.0 && step.is_finite() {
            step
        } else {
            1.0
        };
        let cols = crate::math::ceil(self.makespan / step - 1e-9).max(0.0) as usize;
        let cols = cols.min(4000);
        let letter = |mb: Option<u32>, upper: bool| match mb {
            Some(m) if m < 26 => {
                let c = (b'a' + m as u8) as char;
                if upper {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            }
            _ => '#',
        };
        let mut out = String::new();
        for dev in 0..self.spec.devices {
            for stream in [
                Stream::Compute,
                Stream::Network,
                Stream::Pipeline,
                Stream::CpuGpu,
            ] {
                let evs: Vec<&Event> = self
                    .events
                    .iter()
                    .filter(|e| e.device == dev && e.stream == stream && e.end > e.start)
                    .collect();
                if stream != Stream::Compute && evs.is_empty() {
                    continue;
                }
                let idle = if stream == Stream::Compute { '.' } else { '-' };
                let mut row = vec![idle; cols];
                for e in evs {
                    let c = match e.kind {
                        EventKind::Forward => letter(e.micro_batch, false),
                        EventKind::Backward => letter(e.micro_batch, true),
                        EventKind::WeightGradient => '~',
                        EventKind::Restore => 'r',
                        EventKind::Reduce => 'R',
                        EventKind::Send => 's',
                        EventKind::Offload => 'o',
                        EventKind::Reload => 'l',
                        EventKind::Optimizer => '*',
                    };
                    // Cells whose midpoint the event covers.
                    let a = crate::math::ceil(e.start / step - 0.5).max(0.0) as usize;
                    let b = (crate::math::ceil(e.end / step - 0.5).max(0.0) as usize).min(cols);
                    for cell in row.iter_mut().take(b).skip(a) {
                        *cell = c;
                    }
                }
                let label = match stream {
                    Stream::Compute => "",
                    Stream::Network => " net",
                    Stream::Pipeline => " pp",
                    Stream::CpuGpu => " cpu",
                };
                let _ = writeln!(
                    out,
                    "{dev:>3}{label:<4}|{}|",
                    row.iter().collect::<String>()
                );
            }
        }
        out
    }

    /// An SVG drawing in the manner of the paper's figures: devices as rows,
    /// layers coloured (lighter forward, darker backward), micro-batch numbers
    /// on blocks wide enough, network and CPU-GPU rows under each device.
    #[must_use]
    pub fn to_svg(&self) -> String {
        let (left, width, row_h, gap) = (64.0, 960.0, 22.0, 6.0);
        let scale = if self.makespan > 0.0 {
            width / self.makespan
        } else {
            1.0
        };
        let rows: Vec<(u32, Stream)> = (0..self.spec.devices)
            .flat_map(|d| {
                [
                    Stream::Compute,
                    Stream::Network,
                    Stream::Pipeline,
                    Stream::CpuGpu,
                ]
                .into_iter()
                .filter(move |&s| {
                    s == Stream::Compute
                        || self
                            .events
                            .iter()
                            .any(|e| e.device == d && e.stream == s && e.end > e.start)
                })
                .map(move |s| (d, s))
            })
            .collect();
        let height = rows.len() as f64 * (row_h + gap) + 40.0;
        let mut s = String::new();
        let _ = write!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" viewBox="0 0 {w} {height}" font-family="sans-serif" font-size="11">"#,
            w = left + width + 16.0
        );
        let _ = write!(
            s,
            r#"<title>{} schedule: {} devices, {} layers, {} micro-batches</title>"#,
            self.spec.kind.name(),
            self.spec.devices,
            self.spec.layers,
            self.spec.micro_batches
        );
        let layers = f64::from(self.spec.layers.max(1));
        for (r, &(dev, stream)) in rows.iter().enumerate() {
            let y = 8.0 + r as f64 * (row_h + gap);
            let label = match stream {
                Stream::Compute => alloc::format!("Device {dev}"),
                Stream::Network => String::from("network"),
                Stream::Pipeline => String::from("pipeline"),
                Stream::CpuGpu => String::from("CPU-GPU"),
            };
            let _ = write!(
                s,
                r##"<text x="4" y="{}" fill="#444">{label}</text><rect x="{left}" y="{y}" width="{width}" height="{row_h}" fill="#f2f2f2"/>"##,
                y + row_h * 0.7
            );
            for e in self
                .events
                .iter()
                .filter(|e| e.device == dev && e.stream == stream && e.end > e.start)
            {
                let x = left + e.start * scale;
                let w = ((e.end - e.start) * scale).max(0.5);
                let hue = crate::math::round(f64::from(e.layer) / layers * 300.0);
                let fill = match e.kind {
                    EventKind::Forward => alloc::format!("hsl({hue},70%,72%)"),
                    EventKind::Backward => alloc::format!("hsl({hue},60%,45%)"),
                    EventKind::WeightGradient => alloc::format!("hsl({hue},50%,30%)"),
                    EventKind::Restore => String::from("#7aa6d8"),
                    EventKind::Reduce => String::from("#d88a5a"),
                    EventKind::Send => String::from("#9c9c9c"),
                    EventKind::Offload | EventKind::Reload => String::from("#8fbf7a"),
                    EventKind::Optimizer => String::from("#555555"),
                };
                let _ = write!(
                    s,
                    r#"<rect x="{x:.2}" y="{y}" width="{w:.2}" height="{row_h}" fill="{fill}" stroke="white" stroke-width="0.5"><title>{} layer {}{} {:.4}–{:.4} {}</title></rect>"#,
                    e.kind.name(),
                    e.layer,
                    e.micro_batch
                        .map(|m| alloc::format!(" micro-batch {m}"))
                        .unwrap_or_default(),
                    e.start,
                    e.end,
                    self.spec.durations.unit
                );
                let text = match (e.kind, e.micro_batch) {
                    (EventKind::Forward | EventKind::Backward, Some(m)) => alloc::format!("{m}"),
                    (EventKind::Restore, _) => String::from("restore"),
                    (EventKind::Reduce, _) => String::from("reduce"),
                    _ => String::new(),
                };
                if !text.is_empty() && w >= 7.0 * text.len() as f64 {
                    let _ = write!(
                        s,
                        r#"<text x="{:.2}" y="{}" text-anchor="middle">{text}</text>"#,
                        x + w / 2.0,
                        y + row_h * 0.7
                    );
                }
            }
        }
        let y = height - 12.0;
        let unit = match self.spec.durations.unit {
            "unit" => "units",
            u => u,
        };
        let _ = write!(
            s,
            r##"<text x="{left}" y="{y}" fill="#444">0</text><text x="{}" y="{y}" text-anchor="end" fill="#444">{} {unit}</text></svg>"##,
            left + width,
            crate::math::round_sig(self.makespan, 4)
        );
        s
    }
}
