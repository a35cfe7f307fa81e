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

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::error::{check_count, check_range, Error};
use crate::hardware::{Hardware, Link};
use crate::memory::ActivationModel;
use crate::model::ModelShape;

/// A schedule kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleKind {
    /// Standard gradient accumulation, one device (fig. 1 top).
    Ga,
    /// Layered gradient accumulation, one device (fig. 1 bottom, sec. 3).
    Lga,
    /// GPipe: all forward passes, then all backward passes.
    Gpipe,
    /// 1F1B (PipeDream-Flush): one forward, one backward in steady state.
    OneFOneB,
    /// Interleaved 1F1B with `chunks` virtual stages per device (PTD-P).
    Interleaved,
    /// The modular pipeline with layered accumulation (fig. 3, sec. 4).
    Modular,
}

impl ScheduleKind {
    /// Every kind.
    pub const ALL: [Self; 6] = [
        Self::Ga,
        Self::Lga,
        Self::Gpipe,
        Self::OneFOneB,
        Self::Interleaved,
        Self::Modular,
    ];
    /// Stable name, as used by the CLI and URLs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Ga => "ga",
            Self::Lga => "lga",
            Self::Gpipe => "gpipe",
            Self::OneFOneB => "1f1b",
            Self::Interleaved => "interleaved",
            Self::Modular => "modular",
        }
    }
    /// Parses [`ScheduleKind::name`].
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(Error::Unknown {
                what: "schedule kind",
            })
    }
    /// Does this kind run on a pipeline of several devices?
    #[must_use]
    pub fn pipelined(self) -> bool {
        !matches!(self, Self::Ga | Self::Lga)
    }
    /// Layered: each segment processes all its micro-batches in a row.
    #[must_use]
    pub fn layered(self) -> bool {
        matches!(self, Self::Lga | Self::Modular)
    }
}

/// A stream of a device: operations on one stream never overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stream {
    /// The GPU's compute.
    Compute,
    /// The network's data-parallel traffic: restores and reductions.
    Network,
    /// The network's pipeline traffic: activations between stages. The
    /// paper checks it apart from the data-parallel traffic (eqs. 9 and 11
    /// each against the full bandwidth), and so does the simulation.
    Pipeline,
    /// The CPU-GPU link (offload).
    CpuGpu,
}

impl Stream {
    /// Stable name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Compute => "compute",
            Self::Network => "network",
            Self::Pipeline => "pipeline",
            Self::CpuGpu => "cpu-gpu",
        }
    }
}

/// What an event does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// Forward pass of a segment for one micro-batch.
    Forward,
    /// Backward pass, recomputation included.
    Backward,
    /// Restore a segment's parameters from their partition (network).
    Restore,
    /// Reduce a segment's gradients over the data-parallel devices.
    Reduce,
    /// Send activations (or their gradients) to the next (previous) stage.
    Send,
    /// Move a segment's gradients to CPU memory.
    Offload,
    /// Bring a segment's parameters from CPU memory.
    Reload,
    /// The optimizer step.
    Optimizer,
}

impl EventKind {
    /// Stable name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Forward => "forward",
            Self::Backward => "backward",
            Self::Restore => "restore",
            Self::Reduce => "reduce",
            Self::Send => "send",
            Self::Offload => "offload",
            Self::Reload => "reload",
            Self::Optimizer => "optimizer",
        }
    }
}

/// One event of a timeline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event {
    /// Device (pipeline stage).
    pub device: u32,
    /// Stream.
    pub stream: Stream,
    /// What it does.
    pub kind: EventKind,
    /// First layer concerned.
    pub layer: u32,
    /// Number of layers concerned.
    pub layers: u32,
    /// Micro-batch, if the event concerns one.
    pub micro_batch: Option<u32>,
    /// Start time.
    pub start: f64,
    /// End time.
    pub end: f64,
}

impl Event {
    /// Progress of the event at time `t`, in [0, 1] (for animations).
    #[must_use]
    pub fn progress(&self, t: f64) -> f64 {
        if self.end <= self.start {
            return if t >= self.end { 1.0 } else { 0.0 };
        }
        ((t - self.start) / (self.end - self.start)).clamp(0.0, 1.0)
    }
}

/// Durations of the operations, per layer (per micro-batch for compute and
/// sends), in `unit`s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Durations {
    /// Forward pass of one layer for one micro-batch.
    pub forward: f64,
    /// Backward pass of one layer for one micro-batch (recomputation
    /// included).
    pub backward: f64,
    /// Gradient reduction of one layer (an all-reduce, or a reduce-scatter
    /// when partitioned).
    pub reduce: f64,
    /// Parameter restore of one layer (partitioned).
    pub restore: f64,
    /// Activations of one micro-batch between two stages.
    pub send: f64,
    /// CPU-GPU transfer of one layer's parameters or gradients (offload).
    pub cpu_gpu: f64,
    /// Optimizer step of one layer.
    pub optimizer: f64,
    /// `"unit"` for teaching durations, `"s"` for seconds.
    pub unit: &'static str,
}

impl Durations {
    /// Teaching durations: forward 1, backward `backward` (2, or 3 with
    /// recomputation), free transfers, no optimizer step.
    #[must_use]
    pub fn unit(backward: f64) -> Self {
        Self {
            forward: 1.0,
            backward,
            reduce: 0.0,
            restore: 0.0,
            send: 0.0,
            cpu_gpu: 0.0,
            optimizer: 0.0,
            unit: "unit",
        }
    }

    /// Durations in seconds from the cost model: compute = flop / (peak ×
    /// kernel efficiency), with the tensor all-reduces (eq. 12) added since
    /// they are not overlapped; transfers = bytes / bandwidth (input +
    /// output, as in Table A.1):
    ///
    /// * forward: 2·b_µ·d_s·p_l / n_a flop (C.1); backward: (f−2)/2 times
    ///   that (3× with recomputation);
    /// * reduction: 8·p_l/n_a bytes, 4·p_l/n_a when partitioned
    ///   (reduce-scatter; C.4.1); restore: 4·p_l/n_a bytes;
    /// * send: 4·b_µ·d_s·d_m/n_a bytes per micro-batch (C.4.2);
    /// * CPU-GPU: 4·p_l/n_a bytes (fp16 parameters in, gradients out; C.5);
    /// * optimizer: reading and writing the layer's 12·p_l/n_a bytes of
    ///   state, at the memory bandwidth (partitioned: its 1/n_b share).
    ///
    /// # Errors
    ///
    /// Invalid shape or hardware, or degrees out of range.
    pub fn from_cost_model(
        model: &ModelShape,
        hw: &Hardware,
        tensor: u32,
        micro_batch: u32,
        data: u32,
        partition: bool,
        activation: ActivationModel,
    ) -> Result<Self, Error> {
        model.validate()?;
        hw.validate()?;
        check_count(
            "tensor-parallel degree",
            tensor.into(),
            1,
            model.heads.into(),
        )?;
        check_count("micro-batch size", micro_batch.into(), 1, crate::MAX_DEGREE)?;
        check_count("data-parallel degree", data.into(), 1, crate::MAX_DEGREE)?;
        let na = f64::from(tensor);
        let pl = model.layer_params();
        let (ds, dm) = (f64::from(model.seq_len), model.width() as f64);
        let bmu = f64::from(micro_batch);
        let f = activation.flops_per_token_param();
        let rate = hw.gpu.peak.0 * hw.kernel_efficiency;
        // The tensor all-reduces add ν_NVLink/ν_a to every compute op.
        let tensor_overhead = if tensor > 1 {
            let nu_a = f * pl / (4.0 * activation.tensor_allreduces() * dm * (na - 1.0));
            hw.threshold(Link::NvLink).0 / nu_a
        } else {
            0.0
        };
        let forward = 2.0 * bmu * ds * pl / na / rate * (1.0 + tensor_overhead);
        let net = hw.network_bandwidth().0;
        let state_share = if partition { f64::from(data) } else { 1.0 };
        Ok(Self {
            forward,
            backward: forward * (f - 2.0) / 2.0,
            reduce: if partition { 4.0 } else { 8.0 } * pl / na / net,
            restore: 4.0 * pl / na / net,
            send: 4.0 * bmu * ds * dm / na / net,
            cpu_gpu: 4.0 * pl / na / hw.bandwidth(Link::CpuGpu).0,
            optimizer: 2.0 * 12.0 * pl / na / state_share / hw.gpu.memory_bandwidth.0,
            unit: "s",
        })
    }

    fn validate(&self) -> Result<(), Error> {
        for (what, v) in [
            ("forward duration", self.forward),
            ("backward duration", self.backward),
            ("reduce duration", self.reduce),
            ("restore duration", self.restore),
            ("send duration", self.send),
            ("CPU-GPU duration", self.cpu_gpu),
            ("optimizer duration", self.optimizer),
        ] {
            check_range(what, v, 0.0, 1e12)?;
        }
        // Ratios of transfers to compute must stay finite: no vanishing
        // compute (a subnormal forward made the bubble infinite).
        check_range("forward duration", self.forward, 1e-15, 1e12)?;
        check_range("backward duration", self.backward, 1e-15, 1e12)?;
        Ok(())
    }
}

/// Memory sizes for the memory-over-time curves, in bytes (or units).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemorySizes {
    /// Resident per device: training state and buffers.
    pub resident: f64,
    /// One layer's activation checkpoint for one micro-batch.
    pub checkpoint: f64,
    /// The layer activations while one operation runs.
    pub activations: f64,
}

impl MemorySizes {
    /// Teaching sizes: one unit per layer checkpoint, nothing else.
    #[must_use]
    pub fn unit() -> Self {
        Self {
            resident: 0.0,
            checkpoint: 1.0,
            activations: 0.0,
        }
    }

    /// Sizes from the cost model (C.3): checkpoints 2·b_µ·d_s·d_m/n_a per
    /// layer and micro-batch, layer activations b_µ·d_s·m0/n_a, resident
    /// state (12p over the model-parallel devices, or all devices when
    /// partitioned) and buffers 6·p_l/n_a.
    #[must_use]
    pub fn from_cost_model(
        model: &ModelShape,
        spec: &ScheduleSpec,
        tensor: u32,
        micro_batch: u32,
    ) -> Self {
        let na = f64::from(tensor.max(1));
        let (ds, dm) = (f64::from(model.seq_len), model.width() as f64);
        let bmu = f64::from(micro_batch.max(1));
        let mp = f64::from(spec.devices) * na;
        let state = if spec.partition {
            12.0 * model.params() / (mp * f64::from(spec.data.max(1)))
        } else {
            12.0 * model.params() / mp
        };
        Self {
            resident: state + 6.0 * model.layer_params() / na,
            checkpoint: 2.0 * bmu * ds * dm / na,
            activations: bmu * ds * model.layer_activation_per_token() / na,
        }
    }
}

/// What to schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScheduleSpec {
    /// The kind.
    pub kind: ScheduleKind,
    /// Pipeline devices n_l (1 for `ga` and `lga`).
    pub devices: u32,
    /// Layers d_l.
    pub layers: u32,
    /// Micro-batches n_µ.
    pub micro_batches: u32,
    /// Virtual stages per device v (interleaved only).
    pub chunks: u32,
    /// Data-parallel degree n_b: above 1, gradients are reduced.
    pub data: u32,
    /// Training state partitioned over the data-parallel devices.
    pub partition: bool,
    /// Training state offloaded to CPU memory.
    pub offload: bool,
    /// Operation durations.
    pub durations: Durations,
    /// Memory sizes.
    pub memory: MemorySizes,
}

impl ScheduleSpec {
    /// A teaching schedule: unit durations (backward 2), unit memory.
    #[must_use]
    pub fn unit(kind: ScheduleKind, devices: u32, layers: u32, micro_batches: u32) -> Self {
        Self {
            kind,
            devices,
            layers,
            micro_batches,
            chunks: 1,
            data: 1,
            partition: false,
            offload: false,
            durations: Durations::unit(2.0),
            memory: MemorySizes::unit(),
        }
    }
}

/// Largest number of events a schedule may have.
pub const MAX_EVENTS: u64 = 4_000_000;

#[derive(Clone, Copy)]
struct Segment {
    device: u32,
    first: u32,
    layers: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    F,
    B,
}

#[derive(Clone, Copy)]
struct Op {
    pass: Pass,
    seg: u32,
    mb: u32,
}

/// A simulated timeline and its metrics.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// What was scheduled.
    pub spec: ScheduleSpec,
    /// Every event, in the order it was scheduled.
    pub events: Vec<Event>,
    /// End of the last event.
    pub makespan: f64,
    /// (span of the compute passes) / (busiest device's compute) − 1: the
    /// pipeline bubble as the paper defines it (sec. 2.4).
    pub bubble_fraction: f64,
    /// Makespan minus the makespan of the same schedule with free transfers.
    pub exposed_communication: f64,
    /// Per device: compute busy time / makespan.
    pub utilisation: Vec<f64>,
    /// Per device: the most micro-batches between their first forward and
    /// last backward on the device at once.
    pub in_flight: Vec<u32>,
    /// Per device: peak memory.
    pub memory_peak: Vec<f64>,
}

fn segments(spec: &ScheduleSpec) -> Vec<Segment> {
    let (nl, dl) = (spec.devices, spec.layers);
    match spec.kind {
        ScheduleKind::Ga | ScheduleKind::Lga => (0..dl)
            .map(|l| Segment {
                device: 0,
                first: l,
                layers: 1,
            })
            .collect(),
        ScheduleKind::Modular => (0..dl)
            .map(|l| Segment {
                device: l % nl,
                first: l,
                layers: 1,
            })
            .collect(),
        ScheduleKind::Gpipe | ScheduleKind::OneFOneB | ScheduleKind::Interleaved => {
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
                })
                .collect()
        }
    }
}

/// The compute order of one device.
fn order(spec: &ScheduleSpec, device: u32, segs: &[Segment]) -> Vec<Op> {
    let (nl, nmu) = (spec.devices, spec.micro_batches);
    let own: Vec<u32> = (0..segs.len() as u32)
        .filter(|&k| segs[k as usize].device == device)
        .collect();
    let f = |seg, mb| Op {
        pass: Pass::F,
        seg,
        mb,
    };
    let b = |seg, mb| Op {
        pass: Pass::B,
        seg,
        mb,
    };
    let mut ops = Vec::with_capacity(2 * own.len() * nmu as usize);
    match spec.kind {
        ScheduleKind::Ga => {
            for mb in 0..nmu {
                ops.extend(own.iter().map(|&k| f(k, mb)));
                ops.extend(own.iter().rev().map(|&k| b(k, mb)));
            }
        }
        ScheduleKind::Lga => {
            // Fig. 1: every micro-batch of a layer before the next layer.
            for &k in &own {
                ops.extend((0..nmu).map(|mb| f(k, mb)));
            }
            for &k in own.iter().rev() {
                ops.extend((0..nmu).map(|mb| b(k, mb)));
            }
        }
        ScheduleKind::Modular => {
            // Fig. 3: the device's layers in turn, all micro-batches each;
            // the backward pass takes the micro-batches in reverse.
            for &k in &own {
                ops.extend((0..nmu).map(|mb| f(k, mb)));
            }
            for &k in own.iter().rev() {
                ops.extend((0..nmu).rev().map(|mb| b(k, mb)));
            }
        }
        ScheduleKind::Gpipe => {
            let k = own[0];
            ops.extend((0..nmu).map(|mb| f(k, mb)));
            ops.extend((0..nmu).map(|mb| b(k, mb)));
        }
        ScheduleKind::OneFOneB => {
            let k = own[0];
            let warmup = (nl - device - 1).min(nmu);
            ops.extend((0..warmup).map(|mb| f(k, mb)));
            for i in 0..nmu - warmup {
                ops.push(f(k, warmup + i));
                ops.push(b(k, i));
            }
            ops.extend((nmu - warmup..nmu).map(|mb| b(k, mb)));
        }
        ScheduleKind::Interleaved => {
            // Megatron-LM's order: groups of n_l micro-batches per chunk.
            let v = spec.chunks;
            let total = nmu * v;
            let fwd = |i: u32| {
                let chunk = (i / nl) % v;
                let mb = (i / (nl * v)) * nl + i % nl;
                f(chunk * nl + device, mb)
            };
            let bwd = |i: u32| {
                let chunk = v - 1 - (i / nl) % v;
                let mb = (i / (nl * v)) * nl + i % nl;
                b(chunk * nl + device, mb)
            };
            let warmup = ((nl - device - 1) * 2 + (v - 1) * nl).min(total);
            ops.extend((0..warmup).map(fwd));
            for i in 0..total - warmup {
                ops.push(fwd(warmup + i));
                ops.push(bwd(i));
            }
            ops.extend((total - warmup..total).map(bwd));
        }
    }
    ops
}

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
        ScheduleKind::Gpipe | ScheduleKind::OneFOneB => Some(spec.devices),
        ScheduleKind::Interleaved => Some(spec.devices * spec.chunks),
        _ => None,
    };
    if let Some(stages) = stages {
        if spec.layers % stages != 0 {
            return Err(Error::NotDivisible {
                what: "pipeline stages (devices × chunks)",
                value: stages.into(),
                of: "layers",
                total: spec.layers.into(),
            });
        }
    }
    if spec.kind == ScheduleKind::Interleaved && spec.micro_batches % spec.devices != 0 {
        return Err(Error::NotDivisible {
            what: "devices",
            value: spec.devices.into(),
            of: "micro-batches (interleaved schedule)",
            total: spec.micro_batches.into(),
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
/// divide the layers (GPipe, 1F1B, interleaved), micro-batches not a
/// multiple of the devices (interleaved), fewer micro-batches than devices
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

/// Sorts intervals and merges those that touch (within `eps`).
fn merge_intervals(mut v: Vec<(f64, f64)>, eps: f64) -> Vec<(f64, f64)> {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(v.len());
    for (s, e) in v {
        match out.last_mut() {
            Some(last) if s <= last.1 + eps => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

fn has_transfers(d: &Durations) -> bool {
    d.reduce > 0.0 || d.restore > 0.0 || d.send > 0.0 || d.cpu_gpu > 0.0
}

fn makespan(events: &[Event]) -> f64 {
    events.iter().map(|e| e.end).fold(0.0, f64::max)
}

/// Parameter loads a device needs before an op: one per op whose segment
/// differs from the previous op's (the mixed buffering of Table C.1 keeps
/// the current layer's parameters between consecutive uses).
fn loads(ops: &[Op]) -> (Vec<Option<u32>>, Vec<u32>) {
    let mut need = Vec::with_capacity(ops.len());
    let mut list = Vec::new();
    let mut prev: Option<u32> = None;
    for op in ops {
        if prev == Some(op.seg) {
            need.push(None);
        } else {
            need.push(Some(list.len() as u32));
            list.push(op.seg);
        }
        prev = Some(op.seg);
    }
    (need, list)
}

/// Reductions (or offloads) follow these ops: every backward when the state
/// is partitioned or offloaded with standard accumulation (fig. 2 top),
/// else the last backward of the segment.
fn reduces_after(ops: &[Op], per_micro_batch: bool) -> Vec<bool> {
    let mut last = vec![false; ops.len()];
    if per_micro_batch {
        for (i, op) in ops.iter().enumerate() {
            last[i] = op.pass == Pass::B;
        }
        return last;
    }
    let mut seen = vec![false; ops.iter().map(|o| o.seg as usize + 1).max().unwrap_or(0)];
    for (i, op) in ops.iter().enumerate().rev() {
        if op.pass == Pass::B && !seen[op.seg as usize] {
            seen[op.seg as usize] = true;
            last[i] = true;
        }
    }
    last
}

struct DeviceState {
    ops: Vec<Op>,
    next: usize,
    compute_free: f64,
    net_free: f64,
    pipe_free: f64,
    cpu_free: f64,
    need: Vec<Option<u32>>,
    load_segs: Vec<u32>,
    /// End of each parameter load (NaN until issued).
    load_end: Vec<f64>,
    issued: usize,
    /// Index of the last op consuming each load.
    last_use: Vec<usize>,
    reduce_after: Vec<bool>,
}

/// Runs the list scheduler; records the events into `record` when given.
/// Returns the makespan.
fn run(spec: &ScheduleSpec, record: Option<&mut Vec<Event>>) -> f64 {
    let mut sink = Sink {
        events: record,
        makespan: 0.0,
    };
    run_into(spec, &mut sink);
    sink.makespan
}

struct Sink<'a> {
    events: Option<&'a mut Vec<Event>>,
    makespan: f64,
}

impl Sink<'_> {
    fn push(&mut self, e: Event) {
        self.makespan = self.makespan.max(e.end);
        if let Some(v) = self.events.as_deref_mut() {
            v.push(e);
        }
    }
}

fn run_into(spec: &ScheduleSpec, events: &mut Sink<'_>) {
    let d = spec.durations;
    let segs = segments(spec);
    let nseg = segs.len();
    let nmu = spec.micro_batches as usize;
    let idx = |k: u32, mb: u32| k as usize * nmu + mb as usize;
    // When each forward/backward output is available to the next
    // (previous) segment's device, and when each forward ended.
    let mut f_ready = vec![f64::NAN; nseg * nmu];
    let mut b_ready = vec![f64::NAN; nseg * nmu];
    let mut f_end = vec![f64::NAN; nseg * nmu];
    let loads_needed = spec.partition || spec.offload;
    let per_mb_reduce = (spec.partition || spec.offload) && !spec.kind.layered();
    let mut devs: Vec<DeviceState> = (0..spec.devices)
        .map(|dev| {
            let ops = order(spec, dev, &segs);
            let (need, load_segs) = if loads_needed {
                loads(&ops)
            } else {
                (vec![None; ops.len()], Vec::new())
            };
            let mut last_use = vec![0; load_segs.len()];
            let mut current = 0usize;
            for (i, n) in need.iter().enumerate() {
                if let Some(j) = n {
                    current = *j as usize;
                }
                if !load_segs.is_empty() {
                    last_use[current] = i;
                }
            }
            let reduce_after = reduces_after(&ops, per_mb_reduce);
            DeviceState {
                load_end: vec![f64::NAN; load_segs.len()],
                ops,
                next: 0,
                compute_free: 0.0,
                net_free: 0.0,
                pipe_free: 0.0,
                cpu_free: 0.0,
                need,
                load_segs,
                issued: 0,
                last_use,
                reduce_after,
            }
        })
        .collect();
    let total: usize = devs.iter().map(|s| s.ops.len()).sum();
    if let Some(v) = events.events.as_deref_mut() {
        v.reserve(total * 2);
    }
    let layers = |k: u32| f64::from(segs[k as usize].layers);

    // Issue parameter loads whose buffer is free: load j needs load j−2's
    // last consumer done (two parameter buffers, Table C.1).
    let issue = |dev: u32, st: &mut DeviceState, events: &mut Sink<'_>| {
        while st.issued < st.load_segs.len() {
            let j = st.issued;
            // Issued right after that consumer is scheduled, so the device's
            // compute is free exactly when it ended.
            let free_at = if j < 2 {
                0.0
            } else if st.last_use[j - 2] < st.next {
                st.compute_free
            } else {
                return;
            };
            let k = st.load_segs[j];
            let seg = segs[k as usize];
            let mut end = free_at;
            if spec.partition {
                let start = st.net_free.max(free_at);
                end = start + d.restore * layers(k);
                st.net_free = end;
                if end > start {
                    events.push(Event {
                        device: dev,
                        stream: Stream::Network,
                        kind: EventKind::Restore,
                        layer: seg.first,
                        layers: seg.layers,
                        micro_batch: None,
                        start,
                        end,
                    });
                }
            }
            if spec.offload {
                let start = st.cpu_free.max(free_at);
                let e = start + d.cpu_gpu * layers(k);
                st.cpu_free = e;
                if e > start {
                    events.push(Event {
                        device: dev,
                        stream: Stream::CpuGpu,
                        kind: EventKind::Reload,
                        layer: seg.first,
                        layers: seg.layers,
                        micro_batch: None,
                        start,
                        end: e,
                    });
                }
                end = end.max(e);
            }
            st.load_end[j] = end;
            st.issued += 1;
        }
    };

    for (dev, st) in devs.iter_mut().enumerate() {
        issue(dev as u32, st, events);
    }
    let mut done = 0usize;
    while done < total {
        let mut progressed = false;
        for (dev, st) in devs.iter_mut().enumerate() {
            while let Some(&op) = st.ops.get(st.next) {
                let i = idx(op.seg, op.mb);
                let k = op.seg as usize;
                // Inputs: the previous segment's forward output, or the next
                // segment's backward output and this segment's own forward.
                // NaN until the producing op is scheduled.
                let ready = match op.pass {
                    Pass::F if k == 0 => 0.0,
                    Pass::F => f_ready[i - nmu],
                    Pass::B if k + 1 == nseg => f_end[i],
                    Pass::B => {
                        let (own, next) = (f_end[i], b_ready[i + nmu]);
                        if own.is_nan() || next.is_nan() {
                            f64::NAN
                        } else {
                            own.max(next)
                        }
                    }
                };
                if ready.is_nan() {
                    break;
                }
                let load_ready = match st.need[st.next] {
                    Some(j) => {
                        let e = st.load_end[j as usize];
                        if e.is_nan() {
                            break;
                        }
                        e
                    }
                    None => 0.0,
                };
                let seg = segs[k];
                let dur = match op.pass {
                    Pass::F => d.forward,
                    Pass::B => d.backward,
                } * f64::from(seg.layers);
                let start = st.compute_free.max(ready).max(load_ready);
                let end = start + dur;
                st.compute_free = end;
                events.push(Event {
                    device: dev as u32,
                    stream: Stream::Compute,
                    kind: match op.pass {
                        Pass::F => EventKind::Forward,
                        Pass::B => EventKind::Backward,
                    },
                    layer: seg.first,
                    layers: seg.layers,
                    micro_batch: Some(op.mb),
                    start,
                    end,
                });
                // Hand the output to the neighbouring segment.
                let neighbour = match op.pass {
                    Pass::F => (k + 1 < nseg).then(|| k + 1),
                    Pass::B => k.checked_sub(1),
                };
                let mut avail = end;
                if let Some(nk) = neighbour {
                    if segs[nk].device != seg.device && d.send > 0.0 {
                        let s = st.pipe_free.max(end);
                        avail = s + d.send;
                        st.pipe_free = avail;
                        events.push(Event {
                            device: dev as u32,
                            stream: Stream::Pipeline,
                            kind: EventKind::Send,
                            layer: seg.first,
                            layers: seg.layers,
                            micro_batch: Some(op.mb),
                            start: s,
                            end: avail,
                        });
                    }
                }
                match op.pass {
                    Pass::F => {
                        f_end[i] = end;
                        f_ready[i] = avail;
                    }
                    Pass::B => b_ready[i] = avail,
                }
                // Gradients leave after the segment's (last) backward.
                if st.reduce_after[st.next] {
                    if spec.data > 1 && d.reduce > 0.0 {
                        let s = st.net_free.max(end);
                        st.net_free = s + d.reduce * f64::from(seg.layers);
                        events.push(Event {
                            device: dev as u32,
                            stream: Stream::Network,
                            kind: EventKind::Reduce,
                            layer: seg.first,
                            layers: seg.layers,
                            micro_batch: per_mb_reduce.then_some(op.mb),
                            start: s,
                            end: st.net_free,
                        });
                    }
                    if spec.offload && d.cpu_gpu > 0.0 {
                        let s = st.cpu_free.max(end);
                        st.cpu_free = s + d.cpu_gpu * f64::from(seg.layers);
                        events.push(Event {
                            device: dev as u32,
                            stream: Stream::CpuGpu,
                            kind: EventKind::Offload,
                            layer: seg.first,
                            layers: seg.layers,
                            micro_batch: per_mb_reduce.then_some(op.mb),
                            start: s,
                            end: st.cpu_free,
                        });
                    }
                }
                st.next += 1;
                issue(dev as u32, st, events);
                done += 1;
                progressed = true;
            }
        }
        if !progressed {
            // Unreachable for the orders built above; guard against a hang.
            break;
        }
    }
    // The optimizer step, once the device's transfers are done.
    if spec.durations.optimizer > 0.0 {
        for (dev, st) in devs.iter().enumerate() {
            let own: u32 = segs
                .iter()
                .filter(|s| s.device == dev as u32)
                .map(|s| s.layers)
                .sum();
            let start = st
                .compute_free
                .max(st.net_free)
                .max(st.pipe_free)
                .max(st.cpu_free);
            events.push(Event {
                device: dev as u32,
                stream: Stream::Compute,
                kind: EventKind::Optimizer,
                layer: 0,
                layers: own,
                micro_batch: None,
                start,
                end: start + spec.durations.optimizer * f64::from(own),
            });
        }
    }
}

fn measure(spec: &ScheduleSpec, events: Vec<Event>, free_makespan: f64) -> Schedule {
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
            if matches!(e.kind, EventKind::Forward | EventKind::Backward) {
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
            let mut marks: Vec<(f64, i32)> = Vec::with_capacity(2 * nmu);
            for &(s, e) in &span[dev * nmu..(dev + 1) * nmu] {
                if s.is_finite() {
                    marks.push((s, 1));
                    marks.push((e, -1));
                }
            }
            // Ends before starts at equal times.
            marks.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let (mut cur, mut peak) = (0i32, 0i32);
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
        memory_deltas(&spec.memory, e, &mut deltas[e.device as usize]);
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

/// Memory changes of one event: activations while a pass runs, a
/// checkpoint kept from the end of a forward to the end of its backward.
fn memory_deltas(m: &MemorySizes, e: &Event, out: &mut Vec<(f64, f64)>) {
    let ckpt = m.checkpoint * f64::from(e.layers);
    match e.kind {
        EventKind::Forward => {
            out.push((e.start, m.activations));
            out.push((e.end, ckpt - m.activations));
        }
        EventKind::Backward => {
            out.push((e.start, m.activations));
            out.push((e.end, -ckpt - m.activations));
        }
        _ => {}
    }
}

/// Cumulative steps from deltas; at equal times, frees before allocations.
fn memory_steps(resident: f64, mut deltas: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    deltas.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
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
            memory_deltas(&self.spec.memory, e, &mut deltas);
        }
        memory_steps(self.spec.memory.resident, deltas)
    }

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
        let mut per: Vec<Vec<(f64, f64)>> = alloc::vec![Vec::new(); self.spec.devices as usize];
        for e in &self.events {
            if e.stream == stream && e.end > e.start {
                if let Some(v) = per.get_mut(e.device as usize) {
                    v.push((e.start, e.end));
                }
            }
        }
        let eps = self.makespan * 1e-9;
        per.into_iter().map(|v| merge_intervals(v, eps)).collect()
    }

    /// A text Gantt chart, one column per `step` of time: per device a
    /// compute row (forward: micro-batch as `a`, `b`, …; backward: `A`, `B`,
    /// …; `.` idle) and, when it has transfers, a network row (`r` restore,
    /// `R` reduce, `-` idle), a pipeline row (`s` send) and a CPU-GPU row
    /// (`l` reload, `o` offload).
    #[must_use]
    pub fn to_ascii(&self, step: f64) -> String {
        let step = if step > 0.0 && step.is_finite() {
            step
        } else {
            1.0
        };
        let cols = crate::math::ceil(self.makespan / step - 1e-9).max(0.0) as usize;
        let cols = cols.min(4000);
        let letter = |mb: Option<u32>, upper: bool| match mb {
            Some(m) if m < 26 => {
                let c = (b'a' + m as u8) as char;
                if upper {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            }
            _ => '#',
        };
        let mut out = String::new();
        for dev in 0..self.spec.devices {
            for stream in [
                Stream::Compute,
                Stream::Network,
                Stream::Pipeline,
                Stream::CpuGpu,
            ] {
                let evs: Vec<&Event> = self
                    .events
                    .iter()
                    .filter(|e| e.device == dev && e.stream == stream && e.end > e.start)
                    .collect();
                if stream != Stream::Compute && evs.is_empty() {
                    continue;
                }
                let idle = if stream == Stream::Compute { '.' } else { '-' };
                let mut row = vec![idle; cols];
                for e in evs {
                    let c = match e.kind {
                        EventKind::Forward => letter(e.micro_batch, false),
                        EventKind::Backward => letter(e.micro_batch, true),
                        EventKind::Restore => 'r',
                        EventKind::Reduce => 'R',
                        EventKind::Send => 's',
                        EventKind::Offload => 'o',
                        EventKind::Reload => 'l',
                        EventKind::Optimizer => '*',
                    };
                    // Cells whose midpoint the event covers.
                    let a = crate::math::ceil(e.start / step - 0.5).max(0.0) as usize;
                    let b = (crate::math::ceil(e.end / step - 0.5).max(0.0) as usize).min(cols);
                    for cell in row.iter_mut().take(b).skip(a) {
                        *cell = c;
                    }
                }
                let label = match stream {
                    Stream::Compute => "",
                    Stream::Network => " net",
                    Stream::Pipeline => " pp",
                    Stream::CpuGpu => " cpu",
                };
                let _ = writeln!(
                    out,
                    "{dev:>3}{label:<4}|{}|",
                    row.iter().collect::<String>()
                );
            }
        }
        out
    }

    /// An SVG drawing in the manner of the paper's figures: devices as rows,
    /// layers coloured (lighter forward, darker backward), micro-batch numbers
    /// on blocks wide enough, network and CPU-GPU rows under each device.
    #[must_use]
    pub fn to_svg(&self) -> String {
        let (left, width, row_h, gap) = (64.0, 960.0, 22.0, 6.0);
        let scale = if self.makespan > 0.0 {
            width / self.makespan
        } else {
            1.0
        };
        let rows: Vec<(u32, Stream)> = (0..self.spec.devices)
            .flat_map(|d| {
                [
                    Stream::Compute,
                    Stream::Network,
                    Stream::Pipeline,
                    Stream::CpuGpu,
                ]
                .into_iter()
                .filter(move |&s| {
                    s == Stream::Compute
                        || self
                            .events
                            .iter()
                            .any(|e| e.device == d && e.stream == s && e.end > e.start)
                })
                .map(move |s| (d, s))
            })
            .collect();
        let height = rows.len() as f64 * (row_h + gap) + 40.0;
        let mut s = String::new();
        let _ = write!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" viewBox="0 0 {w} {height}" font-family="sans-serif" font-size="11">"#,
            w = left + width + 16.0
        );
        let _ = write!(
            s,
            r#"<title>{} schedule: {} devices, {} layers, {} micro-batches</title>"#,
            self.spec.kind.name(),
            self.spec.devices,
            self.spec.layers,
            self.spec.micro_batches
        );
        let layers = f64::from(self.spec.layers.max(1));
        for (r, &(dev, stream)) in rows.iter().enumerate() {
            let y = 8.0 + r as f64 * (row_h + gap);
            let label = match stream {
                Stream::Compute => alloc::format!("Device {dev}"),
                Stream::Network => String::from("network"),
                Stream::Pipeline => String::from("pipeline"),
                Stream::CpuGpu => String::from("CPU-GPU"),
            };
            let _ = write!(
                s,
                r##"<text x="4" y="{}" fill="#444">{label}</text><rect x="{left}" y="{y}" width="{width}" height="{row_h}" fill="#f2f2f2"/>"##,
                y + row_h * 0.7
            );
            for e in self
                .events
                .iter()
                .filter(|e| e.device == dev && e.stream == stream && e.end > e.start)
            {
                let x = left + e.start * scale;
                let w = ((e.end - e.start) * scale).max(0.5);
                let hue = crate::math::round(f64::from(e.layer) / layers * 300.0);
                let fill = match e.kind {
                    EventKind::Forward => alloc::format!("hsl({hue},70%,72%)"),
                    EventKind::Backward => alloc::format!("hsl({hue},60%,45%)"),
                    EventKind::Restore => String::from("#7aa6d8"),
                    EventKind::Reduce => String::from("#d88a5a"),
                    EventKind::Send => String::from("#9c9c9c"),
                    EventKind::Offload | EventKind::Reload => String::from("#8fbf7a"),
                    EventKind::Optimizer => String::from("#555555"),
                };
                let _ = write!(
                    s,
                    r#"<rect x="{x:.2}" y="{y}" width="{w:.2}" height="{row_h}" fill="{fill}" stroke="white" stroke-width="0.5"><title>{} layer {}{} {:.4}–{:.4} {}</title></rect>"#,
                    e.kind.name(),
                    e.layer,
                    e.micro_batch
                        .map(|m| alloc::format!(" micro-batch {m}"))
                        .unwrap_or_default(),
                    e.start,
                    e.end,
                    self.spec.durations.unit
                );
                let text = match (e.kind, e.micro_batch) {
                    (EventKind::Forward | EventKind::Backward, Some(m)) => alloc::format!("{m}"),
                    (EventKind::Restore, _) => String::from("restore"),
                    (EventKind::Reduce, _) => String::from("reduce"),
                    _ => String::new(),
                };
                if !text.is_empty() && w >= 7.0 * text.len() as f64 {
                    let _ = write!(
                        s,
                        r#"<text x="{:.2}" y="{}" text-anchor="middle">{text}</text>"#,
                        x + w / 2.0,
                        y + row_h * 0.7
                    );
                }
            }
        }
        let y = height - 12.0;
        let unit = match self.spec.durations.unit {
            "unit" => "units",
            u => u,
        };
        let _ = write!(
            s,
            r##"<text x="{left}" y="{y}" fill="#444">0</text><text x="{}" y="{y}" text-anchor="end" fill="#444">{} {unit}</text></svg>"##,
            left + width,
            crate::math::round_sig(self.makespan, 4)
        );
        s
    }
}
