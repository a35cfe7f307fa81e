//! The modular pipeline with layered accumulation (fig. 3, sec. 4): layer
//! l lives on device l mod n_l.

use alloc::vec::Vec;

use crate::schedule::order::{Op, Segment};

/// One segment per layer, dealt round-robin over the devices.
pub(super) fn segments(devices: u32, layers: u32) -> Vec<Segment> {
    (0..layers)
        .map(|l| Segment {
            device: l % devices,
            first: l,
            layers: 1,
            entry: l == 0,
            exit: l + 1 == layers,
        })
        .collect()
}

/// Fig. 3: the device's layers in turn, all micro-batches each; the
/// backward pass takes the micro-batches in reverse.
pub(super) fn order(own: &[u32], micro_batches: u32, ops: &mut Vec<Op>) {
    for &k in own {
        ops.extend((0..micro_batches).map(|mb| Op::f(k, mb)));
    }
    for &k in own.iter().rev() {
        ops.extend((0..micro_batches).rev().map(|mb| Op::b(k, mb)));
    }
}
