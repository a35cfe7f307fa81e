//! What a simulated schedule measures: makespan, bubble, exposed
//! communication, utilisation, in-flight micro-batches, memory peaks, and
//! busy intervals for drawing.

use alloc::vec;
use alloc::vec::Vec;

use crate::schedule::memory::{memory_deltas, memory_steps, sort_pairs};
use crate::schedule::spec::ScheduleSpec;
use crate::schedule::timeline::{Event, EventKind, Schedule, Stream};

/// Sorts intervals and merges those that touch (within `eps`).
fn merge_intervals(mut v: Vec<(f64, f64)>, eps: f64) -> Vec<(f64, f64)> {
    sort_pairs(&mut v);
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(v.len());
    for (s, e) in v {
        match out.last_mut() {
            Some(last) if s <= last.1 + eps => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

fn makespan(events: &[Event]) -> f64 {
    events.iter().map(|e| e.end).fold(0.0, f64::max)
}

pub(super) fn measure(spec: &ScheduleSpec, events: Vec<Event>, free_makespan: f64) -> Schedule {
    let n = spec.devices as usize;
    let mut busy = vec![0.0; n];
    let mut compute_busy = vec![0.0; n];
    let (mut first, mut last) = (f64::INFINITY, 0.0_f64);
    // Per device and micro-batch: first forward start, last backward end.
    let nmu = spec.micro_batches as usize;
    let mut span = vec![(f64::INFINITY, 0.0_f64); n * nmu];
    for e in &events {
        let dev = e.device as usize;
        if e.stream == Stream::Compute {
            busy[dev] += e.end - e.start;
            if matches!(
                e.kind,
                EventKind::Forward | EventKind::Backward | EventKind::WeightGradient
            ) {
                compute_busy[dev] += e.end - e.start;
                first = first.min(e.start);
                last = last.max(e.end);
                if let Some(mb) = e.micro_batch {
                    let s = &mut span[dev * nmu + mb as usize];
                    if e.kind == EventKind::Forward {
                        s.0 = s.0.min(e.start);
                    } else {
                        s.1 = s.1.max(e.end);
                    }
                }
            }
        }
    }
    let makespan = makespan(&events);
    let max_busy = compute_busy.iter().copied().fold(0.0, f64::max);
    let bubble_fraction = if max_busy > 0.0 {
        (last - first) / max_busy - 1.0
    } else {
        0.0
    };
    let in_flight = (0..n)
        .map(|dev| {
            let mut marks: Vec<(f64, f64)> = Vec::with_capacity(2 * nmu);
            for &(s, e) in &span[dev * nmu..(dev + 1) * nmu] {
                if s.is_finite() {
                    marks.push((s, 1.0));
                    marks.push((e, -1.0));
                }
            }
            // Ends (−1) before starts (+1) at equal times.
            sort_pairs(&mut marks);
            let (mut cur, mut peak) = (0.0_f64, 0.0_f64);
            for (_, d) in marks {
                cur += d;
                peak = peak.max(cur);
            }
            peak as u32
        })
        .collect();
    let schedule = Schedule {
        spec: *spec,
        events,
        makespan,
        bubble_fraction,
        exposed_communication: (makespan - free_makespan).max(0.0),
        utilisation: busy
            .iter()
            .map(|b| if makespan > 0.0 { b / makespan } else { 0.0 })
            .collect(),
        in_flight,
        memory_peak: Vec::new(),
    };
    let mut deltas: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
    for e in &schedule.events {
        memory_deltas(
            &spec.memory,
            e,
            spec.kind.splits_backward(),
            &mut deltas[e.device as usize],
        );
    }
    let memory_peak = deltas
        .into_iter()
        .map(|d| {
            memory_steps(spec.memory.resident, d)
                .iter()
                .map(|p| p.1)
                .fold(0.0, f64::max)
        })
        .collect();
    Schedule {
        memory_peak,
        ..schedule
    }
}

impl Schedule {
    /// Busy intervals of a device's stream, merged where events touch: what
    /// to draw when events are too many to draw one by one.
    #[must_use]
    pub fn busy_intervals(&self, device: u32, stream: Stream) -> Vec<(f64, f64)> {
        let v = self
            .events
            .iter()
            .filter(|e| e.device == device && e.stream == stream && e.end > e.start)
            .map(|e| (e.start, e.end))
            .collect();
        merge_intervals(v, self.makespan * 1e-9)
    }

    /// [`Schedule::busy_intervals`] of every device, in one pass over the
    /// events (a per-device call each is devices × events).
    #[must_use]
    pub fn busy_intervals_by_device(&self, stream: Stream) -> Vec<Vec<(f64, f64)>> {
        self.busy_by_device(stream, None)
    }

    /// [`Schedule::busy_intervals_by_device`] of one kind of event only:
    /// a schedule too large to draw event by event still shows its forward
    /// and backward passes apart.
    #[must_use]
    pub fn busy_intervals_of_kind(&self, stream: Stream, kind: EventKind) -> Vec<Vec<(f64, f64)>> {
        self.busy_by_device(stream, Some(kind))
    }

    /// Busy intervals per device of a stream's events (of one kind, if
    /// given), merged where they touch.
    fn busy_by_device(&self, stream: Stream, kind: Option<EventKind>) -> Vec<Vec<(f64, f64)>> {
        let mut per: Vec<Vec<(f64, f64)>> = alloc::vec![Vec::new(); self.spec.devices as usize];
        for e in &self.events {
            if e.stream == stream && e.end > e.start && kind.is_none_or(|k| k == e.kind) {
                if let Some(v) = per.get_mut(e.device as usize) {
                    v.push((e.start, e.end));
                }
            }
        }
        let eps = self.makespan * 1e-9;
        per.into_iter().map(|v| merge_intervals(v, eps)).collect()
    }
}
