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
/// pairs in the schedules goes through this one function. A heap sort:
/// pairs equal in both numbers cannot be told apart, so it leaves what a
/// stable sort would, in ~0.3 KB of the page's wasm where the standard
/// library's stable sort took 4.6 KB (the page has no other sort of its
/// own to share it with).
pub(super) fn sort_pairs(v: &mut [(f64, f64)]) {
    fn less(a: (f64, f64), b: (f64, f64)) -> bool {
        a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).is_lt()
    }
    // Moves `root` down the max-heap `v[..end]` to its place.
    fn sift(v: &mut [(f64, f64)], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && less(v[child], v[child + 1]) {
                child += 1;
            }
            if !less(v[root], v[child]) {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for i in (0..n / 2).rev() {
        sift(v, i, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end);
    }
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

#[cfg(test)]
mod tests {
    /// The heap sort leaves what the standard library's stable sort does,
    /// repeated pairs, −0 and NaN included, at every length to 300.
    #[test]
    fn sort_pairs_sorts_as_a_stable_sort() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let pick = [0.0, -0.0, 1.0, 2.5, -3.0, f64::NAN, f64::INFINITY, 1e-300];
        for n in 0..300 {
            let v: alloc::vec::Vec<(f64, f64)> = (0..n)
                .map(|_| {
                    let a = pick[(next() % 8) as usize];
                    let b = pick[(next() % 8) as usize];
                    (a, b)
                })
                .collect();
            let mut ours = v.clone();
            super::sort_pairs(&mut ours);
            let mut std = v;
            std.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            let bits = |v: &[(f64, f64)]| {
                v.iter()
                    .map(|p| (p.0.to_bits(), p.1.to_bits()))
                    .collect::<alloc::vec::Vec<_>>()
            };
            assert_eq!(bits(&ours), bits(&std), "length {n}");
        }
    }
}
