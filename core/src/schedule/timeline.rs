//! A simulated timeline: its events and the [`Schedule`] that holds them
//! with their metrics.

use alloc::vec::Vec;

use crate::schedule::spec::ScheduleSpec;

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
    /// Backward pass, recomputation included (the input gradient only,
    /// when the schedule splits the backward).
    Backward,
    /// The weight gradient of a split backward (zero-bubble schedules).
    WeightGradient,
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
            Self::WeightGradient => "weight-gradient",
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
