//! Gradient accumulation on one device: standard (GA, fig. 1 top) and
//! layered (LGA, fig. 1 bottom, sec. 3).

use alloc::vec::Vec;

use crate::schedule::order::{Op, Segment};

/// One segment per layer, all on device 0.
pub(super) fn segments(layers: u32) -> Vec<Segment> {
    (0..layers)
        .map(|l| Segment {
            device: 0,
            first: l,
            layers: 1,
            entry: l == 0,
            exit: l + 1 == layers,
        })
        .collect()
}

/// Standard accumulation: each micro-batch's forward through every layer,
/// then its backward.
pub(super) fn ga(own: &[u32], micro_batches: u32, ops: &mut Vec<Op>) {
    for mb in 0..micro_batches {
        ops.extend(own.iter().map(|&k| Op::f(k, mb)));
        ops.extend(own.iter().rev().map(|&k| Op::b(k, mb)));
    }
}

/// Layered accumulation (fig. 1): every micro-batch of a layer before the
/// next layer.
pub(super) fn lga(own: &[u32], micro_batches: u32, ops: &mut Vec<Op>) {
    for &k in own {
        ops.extend((0..micro_batches).map(|mb| Op::f(k, mb)));
    }
    for &k in own.iter().rev() {
        ops.extend((0..micro_batches).map(|mb| Op::b(k, mb)));
    }
}
