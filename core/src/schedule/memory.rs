//! Memory of a device over a simulated step: resident state and buffers,
//! checkpoints kept until their backward, the running layer's activations.

use alloc::vec::Vec;

use crate::schedule::durations::MemorySizes;
use crate::schedule::timeline::{Event, EventKind, Schedule};

/// Memory changes of one event: activations while a pass runs, a
/// checkpoint kept from the end of a forward to the end of its backward
/// (of its weight-gradient pass when the backward is `split`).
pub(super) fn memory_deltas(m: &MemorySizes, e: &Event, split: bool, out: &mut Vec<(f64, f64)>) {
    let ckpt = m.checkpoint * f64::from(e.layers);
    match e.kind {
        EventKind::Forward => {
            out.push((e.start, m.activations));
            out.push((e.end, ckpt - m.activations));
        }
        EventKind::Backward | EventKind::WeightGradient => {
            let frees = (e.kind == EventKind::WeightGradient) == split;
            out.push((e.start, m.activations));
            out.push((e.end, -m.activations - if frees { ckpt } else { 0.0 }));
        }
        _ => {}
    }
}

/// Sorts pairs by their first, then their second number. Every sort of
/// pairs in the schedules goes through this one function: each distinct
/// sort costs ~4.5 KB of the page's wasm.
pub(super) fn sort_pairs(v: &mut [(f64, f64)]) {
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
}

/// Cumulative steps from deltas; at equal times, frees before allocations.
pub(super) fn memory_steps(resident: f64, mut deltas: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    sort_pairs(&mut deltas);
    let mut out = Vec::with_capacity(deltas.len() + 1);
    let mut cur = resident;
    out.push((0.0, cur));
    for (t, d) in deltas {
        cur += d;
        match out.last_mut() {
            Some(last) if last.0 == t => last.1 = cur,
            _ => out.push((t, cur)),
        }
    }
    out
}

impl Schedule {
    /// Memory of a device over time, as steps `(time, bytes)`: resident
    /// state and buffers, checkpoints from the end of a layer's forward to
    /// the end of its backward, and layer activations while a compute op runs.
    #[must_use]
    pub fn memory_over_time(&self, device: u32) -> Vec<(f64, f64)> {
        let mut deltas = Vec::new();
        for e in self.events.iter().filter(|e| e.device == device) {
            memory_deltas(
                &self.spec.memory,
                e,
                self.spec.kind.splits_backward(),
                &mut deltas,
            );
        }
        memory_steps(self.spec.memory.resident, deltas)
    }
}
