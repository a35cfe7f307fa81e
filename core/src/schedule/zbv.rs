//! ZB-V (Qi et al. 2024, arXiv 2401.10241, sec. 6): the zero-bubble
//! schedule on a V-shaped placement. The model is cut into 2p stages;
//! device i holds stage i and stage 2p−1−i, so a micro-batch's forward runs
//! down the devices and back up, and its loss (and first backward) is on
//! device 0 again, where the forward began. The backward is split into the
//! input gradient B and the weight gradient W. Peak activation memory is
//! 1F1B's (device 0 holds 2p half-stages of activations, p whole stages'),
//! the bubble nearly zero when F = B = W.
//!
//! The order is the paper's handcrafted one (its fig. 8, as PyTorch's
//! `ScheduleZBVZeroBubble` writes it): a warm-up of chunk-0 forwards, then
//! F1 B1 W1 triples, a steady state of F0 B0 W0 F1 B1 W1, and a cool-down
//! whose weight gradients fill the drain.

use alloc::vec::Vec;

use crate::schedule::order::{Op, Segment};
use crate::schedule::spec::ScheduleSpec;

/// 2p segments of d_l/(2p) layers: stage s on device s for s < p, on
/// device 2p−1−s after. Micro-batches enter and leave on device 0.
pub(super) fn segments(spec: &ScheduleSpec) -> Vec<Segment> {
    let p = spec.devices;
    let per = spec.layers / (2 * p);
    (0..2 * p)
        .map(|s| Segment {
            device: if s < p { s } else { 2 * p - 1 - s },
            first: s * per,
            layers: per,
            entry: s == 0,
            exit: s + 1 == 2 * p,
        })
        .collect()
}

/// Device `r`'s order. Chunk 0 is its stage r, chunk 1 its stage 2p−1−r.
/// Needs m ≥ 2p − 1 (device 0's warm-up alone is 2p − 1 forwards).
pub(super) fn order(spec: &ScheduleSpec, r: u32, ops: &mut Vec<Op>) {
    let (p, m) = (spec.devices, spec.micro_batches);
    let mut v = Order {
        ops,
        seg: [r, 2 * p - 1 - r],
        next: [[0; 3]; 2],
    };
    // Warm-up: 2(p−r)−1 forwards of chunk 0, then r pairs F1 F0, then
    // p−r triples F1 B1 W1.
    for _ in 0..2 * (p - r) - 1 {
        v.push(0, F);
    }
    for _ in 0..r {
        v.push(1, F);
        v.push(0, F);
    }
    for _ in 0..p - r {
        v.push(1, F);
        v.push(1, B);
        v.push(1, W);
    }
    // Steady state: F0 B0 W0 F1 B1 W1 (no F0 once all have entered),
    // until chunk 1 has caught up with chunk 0.
    while v.next[1][F] < v.next[0][F] || v.next[0][F] < m {
        if v.next[0][F] < m {
            v.push(0, F);
        }
        v.push(0, B);
        v.push(0, W);
        v.push(1, F);
        v.push(1, B);
        v.push(1, W);
    }
    // Cool-down: r pairs B0 B1 (weight gradients deferred), p−r pairs
    // B0 W0, then the deferred weight gradients, chunk 1's first.
    for _ in 0..r {
        v.push(0, B);
        v.push(1, B);
    }
    for _ in 0..p - r {
        v.push(0, B);
        v.push(0, W);
    }
    for c in [1, 0] {
        while v.next[c][W] < v.next[c][B] {
            v.push(c, W);
        }
    }
}

const F: usize = 0;
const B: usize = 1;
const W: usize = 2;

/// A device's order being written: its two segments and, per chunk, the
/// next micro-batch of each pass.
struct Order<'a> {
    ops: &'a mut Vec<Op>,
    seg: [u32; 2],
    next: [[u32; 3]; 2],
}

impl Order<'_> {
    fn push(&mut self, chunk: usize, pass: usize) {
        let make = [Op::f, Op::b, Op::w][pass];
        self.ops.push(make(self.seg[chunk], self.next[chunk][pass]));
        self.next[chunk][pass] += 1;
    }
}
