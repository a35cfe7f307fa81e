//! DualPipe (DeepSeek-V3, arXiv 2412.19437, sec. 3.2.1; the order of
//! DeepSeek's open `dualpipe` reference): micro-batches enter from both
//! ends. Device i holds stage i of the forward direction and stage p−1−i of
//! the reverse one (the parameters twice), so every device is shallow in
//! one direction and deep in the other.

use alloc::vec::Vec;

use crate::schedule::order::{Op, Pass, Segment};
use crate::schedule::spec::ScheduleSpec;

/// 2p segments: the forward direction's stage s on device s (segments
/// 0..p), the reverse direction's stage s on device p−1−s (segments
/// p..2p), each of d_l/p layers; micro-batches 0..m/2 take the first
/// chain, m/2..m the second.
pub(super) fn segments(spec: &ScheduleSpec) -> Vec<Segment> {
    let p = spec.devices;
    let per = spec.layers / p;
    (0..2 * p)
        .map(|k| {
            let s = k % p;
            Segment {
                device: if k < p { s } else { p - 1 - s },
                first: s * per,
                layers: per,
                entry: s == 0,
                exit: s + 1 == p,
            }
        })
        .collect()
}

/// One device's order, in DualPipe's eight steps. Chunk 0 is the direction
/// in which the device is shallow (depth h = min(i, p−1−i)), chunk 1 the
/// other; `F&B` pairs are fused; a split backward defers its weight
/// gradient to the next W. With free transfers and F = B = W the bubble is
/// (p/2 − 1)·(F&B + B − 3W) (tests/schedule.rs).
pub(super) fn order(spec: &ScheduleSpec, device: u32, ops: &mut Vec<Op>) {
    let (p, m) = (spec.devices, spec.micro_batches);
    let (hp, hm) = (p / 2, m / 2);
    let h = device.min(p - 1 - device);
    // Segment and first micro-batch of each chunk.
    let dir0 = (device, 0);
    let dir1 = (p + (p - 1 - device), hm);
    let chunks = if device < hp {
        [dir0, dir1]
    } else {
        [dir1, dir0]
    };
    let mut next = [[0u32; 2]; 2]; // [chunk][F = 0, B = 1]
    let mut deferred: Vec<(u32, u32)> = Vec::new();
    let mut take = |c: usize, pass: usize| {
        let mb = chunks[c].1 + next[c][pass];
        next[c][pass] += 1;
        (chunks[c].0, mb)
    };
    let f = |ops: &mut Vec<Op>, (seg, mb): (u32, u32)| ops.push(Op::f(seg, mb));
    // A backward: its weight gradient now, or deferred.
    let b = |ops: &mut Vec<Op>, deferred: &mut Vec<(u32, u32)>, (seg, mb): (u32, u32), zb: bool| {
        ops.push(Op::b(seg, mb));
        if zb {
            deferred.push((seg, mb));
        } else {
            ops.push(Op::w(seg, mb));
        }
    };
    let w = |ops: &mut Vec<Op>, deferred: &mut Vec<(u32, u32)>| {
        if !deferred.is_empty() {
            let (seg, mb) = deferred.remove(0);
            ops.push(Op::w(seg, mb));
        }
    };
    // F of one chunk fused with the backward (and its W) of the other.
    let fb = |ops: &mut Vec<Op>, fwd: (u32, u32), bwd: (u32, u32)| {
        let mut op = Op::f(fwd.0, fwd.1);
        op.fused = true;
        ops.push(op);
        let mut op = Op::b(bwd.0, bwd.1);
        op.fused = true;
        ops.push(op);
        ops.push(Op::w(bwd.0, bwd.1));
    };
    // 1: forwards of chunk 0.
    for _ in 0..(hp - h - 1) * 2 {
        f(ops, take(0, 0));
    }
    // 2: F0 F1.
    for _ in 0..=h {
        f(ops, take(0, 0));
        f(ops, take(1, 0));
    }
    // 3: B1 W1 F1, weight gradients deferred.
    for _ in 0..hp - h - 1 {
        b(ops, &mut deferred, take(1, 1), true);
        w(ops, &mut deferred);
        f(ops, take(1, 0));
    }
    // 4, the main step: F0&B1, F1&B0 (the middle devices start with F0
    // and B1 apart).
    for i in 0..hm + h + 1 - p {
        if i == 0 && h == hp - 1 {
            f(ops, take(0, 0));
            b(ops, &mut deferred, take(1, 1), false);
        } else {
            let (x, y) = (take(0, 0), take(1, 1));
            fb(ops, x, y);
        }
        let (x, y) = (take(1, 0), take(0, 1));
        fb(ops, x, y);
    }
    // 5: B1, F1&B0.
    for _ in 0..hp - h - 1 {
        b(ops, &mut deferred, take(1, 1), false);
        let (x, y) = (take(1, 0), take(0, 1));
        fb(ops, x, y);
    }
    // 6: B1 B0, the second half deferring weight gradients.
    let mut zb = false;
    for i in 0..=h {
        if i == h.div_ceil(2) && h % 2 == 1 {
            zb = true;
        }
        b(ops, &mut deferred, take(1, 1), zb);
        if i == h.div_ceil(2) && h % 2 == 0 {
            zb = true;
        }
        b(ops, &mut deferred, take(0, 1), zb);
    }
    // 7: W, B0 deferred.
    for _ in 0..hp - h - 1 {
        w(ops, &mut deferred);
        b(ops, &mut deferred, take(0, 1), true);
    }
    // 8: the remaining weight gradients.
    while !deferred.is_empty() {
        w(ops, &mut deferred);
    }
    debug_assert!(ops.iter().all(|o| o.pass != Pass::F || o.mb < m));
}
