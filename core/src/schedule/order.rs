//! Segments (contiguous layer ranges run as one operation) and each
//! device's order of operations. Each family of schedules lives in its own
//! file: [`accumulation`](super::accumulation) (GA, LGA),
//! [`pipeline`](super::pipeline) (GPipe, 1F1B, interleaved) and
//! [`modular`](super::modular).

use alloc::vec::Vec;

use crate::schedule::spec::{ScheduleKind, ScheduleSpec};
use crate::schedule::{accumulation, dualpipe, modular, pipeline, zbv};

/// A contiguous range of layers run as one operation on one device.
#[derive(Clone, Copy)]
pub(super) struct Segment {
    /// The device it lives on.
    pub(super) device: u32,
    /// Its first layer.
    pub(super) first: u32,
    /// Its layer count.
    pub(super) layers: u32,
    /// Micro-batches enter the pipeline here (no forward before it).
    pub(super) entry: bool,
    /// Micro-batches leave here (no segment after it).
    pub(super) exit: bool,
}

/// Forward, backward (the input gradient only when the schedule splits
/// it), or the weight gradient W of a split backward.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Pass {
    F,
    B,
    W,
}

/// One compute operation: a pass of a segment for a micro-batch.
#[derive(Clone, Copy)]
pub(super) struct Op {
    /// Forward or backward.
    pub(super) pass: Pass,
    /// The segment.
    pub(super) seg: u32,
    /// The micro-batch.
    pub(super) mb: u32,
    /// Fused with the next op (DualPipe's F&B): both start once both have
    /// their inputs, and hand on their outputs when the second ends.
    pub(super) fused: bool,
}

impl Op {
    /// The forward pass of segment `seg` for micro-batch `mb`.
    pub(super) fn f(seg: u32, mb: u32) -> Self {
        Self {
            pass: Pass::F,
            seg,
            mb,
            fused: false,
        }
    }
    /// The backward pass of segment `seg` for micro-batch `mb`.
    pub(super) fn b(seg: u32, mb: u32) -> Self {
        Self {
            pass: Pass::B,
            seg,
            mb,
            fused: false,
        }
    }
    /// The weight-gradient pass of segment `seg` for micro-batch `mb`.
    pub(super) fn w(seg: u32, mb: u32) -> Self {
        Self {
            pass: Pass::W,
            seg,
            mb,
            fused: false,
        }
    }
}

/// The segments of a schedule, in forward order.
pub(super) fn segments(spec: &ScheduleSpec) -> Vec<Segment> {
    match spec.kind {
        ScheduleKind::Ga | ScheduleKind::Lga => accumulation::segments(spec.layers),
        ScheduleKind::Modular => modular::segments(spec.devices, spec.layers),
        ScheduleKind::Gpipe
        | ScheduleKind::OneFOneB
        | ScheduleKind::Interleaved
        | ScheduleKind::ZbH1 => pipeline::segments(spec),
        ScheduleKind::DualPipe => dualpipe::segments(spec),
        ScheduleKind::ZbV => zbv::segments(spec),
    }
}

/// The compute order of one device.
pub(super) fn order(spec: &ScheduleSpec, device: u32, segs: &[Segment]) -> Vec<Op> {
    let own: Vec<u32> = (0..segs.len() as u32)
        .filter(|&k| segs[k as usize].device == device)
        .collect();
    let nmu = spec.micro_batches;
    let mut ops = Vec::with_capacity(3 * own.len() * nmu as usize);
    match spec.kind {
        ScheduleKind::Ga => accumulation::ga(&own, nmu, &mut ops),
        ScheduleKind::Lga => accumulation::lga(&own, nmu, &mut ops),
        ScheduleKind::Modular => modular::order(&own, nmu, &mut ops),
        ScheduleKind::Gpipe => pipeline::gpipe(own[0], nmu, &mut ops),
        ScheduleKind::OneFOneB => pipeline::one_f_one_b(spec, device, own[0], &mut ops),
        ScheduleKind::Interleaved => pipeline::interleaved(spec, device, &mut ops),
        ScheduleKind::ZbH1 => pipeline::zb_h1(spec, device, own[0], &mut ops),
        ScheduleKind::DualPipe => dualpipe::order(spec, device, &mut ops),
        ScheduleKind::ZbV => zbv::order(spec, device, &mut ops),
    }
    ops
}
