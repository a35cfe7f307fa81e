//! Training schedules as event timelines: gradient accumulation, layered
//! gradient accumulation (fig. 1–2), GPipe, 1F1B, interleaved 1F1B (PTD-P)
//! and the modular pipeline (fig. 3), with data-parallel reductions, state
//! partition (mixed buffering, Table C.1) and offload.
//!
//! # Model
//!
//! The layers are cut into *segments*, contiguous layer ranges processed as
//! one compute operation, in forward order: one per layer for (layered)
//! gradient accumulation and the modular pipeline, one per stage for GPipe
//! and 1F1B, one per virtual stage for the interleaved schedule. Each
//! segment lives on a device. A schedule kind is only the order in which each
//! device runs its forward and backward operations; a list scheduler then
//! honours the dependencies — F(k, µ) after F(k−1, µ), B(k, µ) after
//! B(k+1, µ) and F(k, µ), plus the transfer between devices — with one
//! operation at a time on each stream (compute, network, CPU-GPU).
//!
//! Durations come from [`Durations`]: unit durations for teaching, or the
//! cost model (compute = flop / (peak × kernel efficiency), transfers =
//! bytes / bandwidth), so a transfer that cannot be hidden shows as idle
//! compute.
//!
//! # Files
//!
//! * `spec.rs`: what to schedule ([`ScheduleKind`], [`ScheduleSpec`]);
//! * `durations.rs`: operation durations and memory sizes, in units or
//!   from the cost model;
//! * `order.rs`: segments and each device's operation order, dispatching to
//!   one file per family: `accumulation.rs` (GA, LGA), `pipeline.rs`
//!   (GPipe, 1F1B, interleaved), `modular.rs`;
//! * `simulator.rs`: the list scheduler that turns orders into events;
//! * `timeline.rs`: events and the simulated [`Schedule`];
//! * `metrics.rs`: bubble, utilisation, in-flight micro-batches, busy
//!   intervals;
//! * `memory.rs`: memory over time;
//! * `render.rs`: text and SVG drawings.

mod accumulation;
mod dualpipe;
mod durations;
mod memory;
mod metrics;
mod modular;
mod order;
mod pipeline;
mod render;
mod simulator;
mod spec;
mod timeline;
mod zbv;

use alloc::vec::Vec;

use crate::error::{check_count, check_range, Error};

pub use crate::cost::step::{group_fits, group_size};
pub use durations::{Durations, MemorySizes};
pub use spec::{ScheduleKind, ScheduleSpec, MAX_EVENTS};
pub use timeline::{Event, EventKind, Schedule, Stream};

use metrics::measure;
use simulator::{has_transfers, run};

fn validate(spec: &ScheduleSpec) -> Result<(), Error> {
    spec.durations.validate()?;
    check_count("layers", spec.layers.into(), 1, 1 << 20)?;
    check_count("micro-batches", spec.micro_batches.into(), 1, 1 << 20)?;
    check_count(
        "data-parallel degree",
        spec.data.into(),
        1,
        crate::MAX_DEGREE,
    )?;
    check_count("chunks", spec.chunks.into(), 1, 1 << 10)?;
    for v in [
        spec.memory.resident,
        spec.memory.checkpoint,
        spec.memory.activations,
    ] {
        check_range("memory size", v, 0.0, 1e20)?;
    }
    let max_devices = if spec.kind.pipelined() {
        u64::from(spec.layers)
    } else {
        1
    };
    check_count("devices", spec.devices.into(), 1, max_devices)?;
    let stages = match spec.kind {
        ScheduleKind::Gpipe
        | ScheduleKind::OneFOneB
        | ScheduleKind::ZbH1
        | ScheduleKind::DualPipe => Some(spec.devices),
        ScheduleKind::Interleaved => Some(spec.devices * spec.chunks),
        ScheduleKind::ZbV => Some(2 * spec.devices),
        _ => None,
    };
    if let Some(stages) = stages {
        if spec.layers % stages != 0 {
            return Err(Error::NotDivisible {
                what: if spec.kind == ScheduleKind::ZbV {
                    "ZB-V's stages (2 × devices, in a V)"
                } else {
                    "pipeline stages (devices × chunks)"
                },
                value: stages.into(),
                of: "layers",
                total: spec.layers.into(),
            });
        }
    }
    if spec.kind == ScheduleKind::Interleaved
        && !group_fits(
            group_size(spec.group, spec.devices, spec.micro_batches),
            spec.devices,
            spec.micro_batches,
        )
    {
        return Err(Error::Incompatible {
            what: "the interleaved schedule takes its micro-batches in groups of N, from the \
                   devices to all of them, the last group empty or at least as long as the \
                   devices (Megatron-Core's microbatch_group_size_per_vp_stage)",
        });
    }
    if spec.kind == ScheduleKind::DualPipe
        && (spec.devices % 2 != 0
            || spec.micro_batches % 2 != 0
            || spec.micro_batches < 2 * spec.devices)
    {
        return Err(Error::Incompatible {
            what: "DualPipe needs an even number of devices and an even number of micro-batches, at least twice the devices",
        });
    }
    if spec.kind == ScheduleKind::ZbV && spec.micro_batches + 1 < 2 * spec.devices {
        return Err(Error::Incompatible {
            what: "ZB-V needs at least 2p − 1 micro-batches for p devices",
        });
    }
    if spec.kind == ScheduleKind::Modular && spec.micro_batches < spec.devices {
        return Err(Error::TooFewMicroBatches {
            micro_batches: spec.micro_batches,
            pipe: spec.devices,
        });
    }
    // Compute ops, each followed by at most one send and one reduction or
    // offload, plus the parameter loads.
    let ops = 2 * u64::from(spec.layers) * u64::from(spec.micro_batches);
    if ops * 2 > MAX_EVENTS {
        return Err(Error::OutOfRange {
            what: "schedule size (layers × micro-batches)",
            value: (ops / 2) as f64,
            min: 1.0,
            max: (MAX_EVENTS / 4) as f64,
        });
    }
    Ok(())
}

/// Simulates a schedule and measures it.
///
/// # Errors
///
/// Invalid sizes: a pipeline deeper than the layers, stages that do not
/// divide the layers (GPipe, 1F1B, interleaved), a group of micro-batches
/// Megatron-Core does not take (interleaved, [`group_fits`]), fewer micro-batches than devices
/// (modular), negative or non-finite durations, or more than
/// [`MAX_EVENTS`] events.
///
/// # Examples
///
/// ```
/// use plan3d_core::schedule::{simulate, ScheduleKind, ScheduleSpec};
/// let s = simulate(&ScheduleSpec::unit(ScheduleKind::OneFOneB, 4, 16, 8))?;
/// assert!((s.bubble_fraction - 3.0 / 8.0).abs() < 1e-12); // (n_l − 1)/n_µ
/// # Ok::<(), plan3d_core::Error>(())
/// ```
pub fn simulate(spec: &ScheduleSpec) -> Result<Schedule, Error> {
    validate(spec)?;
    let mut events = Vec::new();
    let span = run(spec, Some(&mut events));
    let free = if has_transfers(&spec.durations) {
        let mut s = *spec;
        s.durations.reduce = 0.0;
        s.durations.restore = 0.0;
        s.durations.send = 0.0;
        s.durations.cpu_gpu = 0.0;
        run(&s, None)
    } else {
        span
    };
    Ok(measure(spec, events, free))
}
