//! Standard pipelines: GPipe, 1F1B (PipeDream-Flush), interleaved 1F1B
//! with v virtual stages per device (PTD-P, Megatron-LM's order), and the
//! zero-bubble ZB-H1 (Qi et al. 2024).

use alloc::vec::Vec;

use crate::cost::step::group_size;
use crate::schedule::order::{Op, Segment};
use crate::schedule::spec::{ScheduleKind, ScheduleSpec};

/// One segment per stage (n_l, or n_l·v interleaved), stage s on device
/// s mod n_l.
pub(super) fn segments(spec: &ScheduleSpec) -> Vec<Segment> {
    let (nl, dl) = (spec.devices, spec.layers);
    let stages = nl
        * if spec.kind == ScheduleKind::Interleaved {
            spec.chunks
        } else {
            1
        };
    let per = dl / stages;
    (0..stages)
        .map(|s| Segment {
            device: s % nl,
            first: s * per,
            layers: per,
            entry: s == 0,
            exit: s + 1 == stages,
        })
        .collect()
}

/// GPipe: all forward passes, then all backward passes.
pub(super) fn gpipe(k: u32, micro_batches: u32, ops: &mut Vec<Op>) {
    ops.extend((0..micro_batches).map(|mb| Op::f(k, mb)));
    ops.extend((0..micro_batches).map(|mb| Op::b(k, mb)));
}

/// 1F1B: n_l − device − 1 warm-up forwards, then one forward and one
/// backward in turn, then the remaining backwards.
pub(super) fn one_f_one_b(spec: &ScheduleSpec, device: u32, k: u32, ops: &mut Vec<Op>) {
    let (nl, nmu) = (spec.devices, spec.micro_batches);
    let warmup = (nl - device - 1).min(nmu);
    ops.extend((0..warmup).map(|mb| Op::f(k, mb)));
    for i in 0..nmu - warmup {
        ops.push(Op::f(k, warmup + i));
        ops.push(Op::b(k, i));
    }
    ops.extend((nmu - warmup..nmu).map(|mb| Op::b(k, mb)));
}

/// Interleaved 1F1B, Megatron-Core's order (`get_schedule_table`): groups
/// of N micro-batches (n_l by default), each group through every chunk in
/// turn, the last group holding the rest; 2·(n_l − device − 1) + (v − 1)·N
/// warm-up forwards (`get_pp_rank_microbatches`).
pub(super) fn interleaved(spec: &ScheduleSpec, device: u32, ops: &mut Vec<Op>) {
    let (nl, nmu, v) = (spec.devices, spec.micro_batches, spec.chunks);
    let n = group_size(spec.group, nl, nmu);
    let total = nmu * v;
    // Virtual micro-batch i: its micro-batch and chunk. Every group before
    // the last is full.
    let at = |i: u32| {
        let start = i / (n * v) * n;
        let size = n.min(nmu - start);
        let r = i - start * v;
        (start + r % size, r / size)
    };
    let fwd = |i: u32| {
        let (mb, chunk) = at(i);
        Op::f(chunk * nl + device, mb)
    };
    let bwd = |i: u32| {
        let (mb, chunk) = at(i);
        Op::b((v - 1 - chunk) * nl + device, mb)
    };
    let warmup = ((nl - device - 1) * 2 + (v - 1) * n).min(total);
    ops.extend((0..warmup).map(fwd));
    for i in 0..total - warmup {
        ops.push(fwd(warmup + i));
        ops.push(bwd(i));
    }
    ops.extend((total - warmup..total).map(bwd));
}

/// ZB-H1 (Qi et al. 2024, sec. 3.1): 1F1B's forwards and input-gradient
/// passes B, each weight-gradient pass W issued after the B of the
/// micro-batch `device` places later, the last W's at the end. The later
/// devices, idle longest in 1F1B's cool-down, keep their W's to fill it;
/// device i holds at most (p − i) + i micro-batches, 1F1B's peak. With free
/// transfers the bubble is (p−1)·(F + B − W) (tests/schedule.rs).
pub(super) fn zb_h1(spec: &ScheduleSpec, device: u32, k: u32, ops: &mut Vec<Op>) {
    let (nl, nmu) = (spec.devices, spec.micro_batches);
    let warmup = (nl - device - 1).min(nmu);
    ops.extend((0..warmup).map(|mb| Op::f(k, mb)));
    let mut weights = 0;
    let mut after_b = |b_done: u32, ops: &mut Vec<Op>| {
        while weights + device < b_done {
            ops.push(Op::w(k, weights));
            weights += 1;
        }
    };
    for i in 0..nmu - warmup {
        ops.push(Op::f(k, warmup + i));
        ops.push(Op::b(k, i));
        after_b(i + 1, ops);
    }
    for mb in nmu - warmup..nmu {
        ops.push(Op::b(k, mb));
        after_b(mb + 1, ops);
    }
    ops.extend((weights..nmu).map(|mb| Op::w(k, mb)));
}
