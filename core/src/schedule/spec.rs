//! What to schedule: the kind and its sizes.

use crate::error::Error;
use crate::schedule::durations::{Durations, MemorySizes};

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
    /// Zero-bubble ZB-H1 (Qi et al. 2024, arXiv 2401.10241, sec. 3): the
    /// backward split into the input gradient (B) and the weight gradient
    /// (W); 1F1B's order of forwards and B, with device i's W passes
    /// deferred by i micro-batches to fill the cool-down. Bubble
    /// (p−1)·(F + B − W), a third of 1F1B's when the three are equal;
    /// 1F1B's peak activation memory.
    ZbH1,
    /// DualPipe (DeepSeek-V3, arXiv 2412.19437, sec. 3.2.1): micro-batches
    /// fed from both ends of the pipeline, each device holding two stages
    /// (i and p−1−i: twice the parameters); forward and backward chunks of
    /// the two directions fused in pairs (F&B), weight gradients deferred
    /// at the ends. Bubble (p/2 − 1)·(F&B + B − 3W) with B the whole
    /// backward, which the simulation gives exactly when F, the input
    /// gradient and W are equal; p + 1 micro-batches in flight. Needs an
    /// even p and m ≥ 2p, m even.
    DualPipe,
    /// ZB-V (Qi et al. 2024, arXiv 2401.10241, sec. 6): 2p stages placed
    /// in a V (device i holds stages i and 2p−1−i), the backward split
    /// into B and W, the paper's handcrafted order. 1F1B's peak activation
    /// memory; bubble (p−1)·(F + B − 2W)/2 with whole-stage F, B and W,
    /// none when F = B = W. Needs m ≥ 2p − 1 and 2p stages of layers.
    ZbV,
}

impl ScheduleKind {
    /// Every kind.
    pub const ALL: [Self; 9] = [
        Self::Ga,
        Self::Lga,
        Self::Gpipe,
        Self::OneFOneB,
        Self::Interleaved,
        Self::Modular,
        Self::ZbH1,
        Self::DualPipe,
        Self::ZbV,
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
            Self::ZbH1 => "zb-h1",
            Self::DualPipe => "dualpipe",
            Self::ZbV => "zb-v",
        }
    }
    /// In words, for a heading: "1F1B pipeline".
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Ga => "gradient accumulation, no pipeline",
            Self::Lga => "layered gradient accumulation, no pipeline",
            Self::Gpipe => "GPipe pipeline",
            Self::OneFOneB => "1F1B pipeline",
            Self::Interleaved => "interleaved 1F1B pipeline",
            Self::Modular => "modular pipeline",
            Self::ZbH1 => "zero-bubble ZB-H1 pipeline",
            Self::DualPipe => "DualPipe pipeline",
            Self::ZbV => "zero-bubble ZB-V pipeline",
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
    /// Is the backward split into input-gradient (B) and weight-gradient
    /// (W) passes?
    #[must_use]
    pub fn splits_backward(self) -> bool {
        matches!(self, Self::ZbH1 | Self::DualPipe | Self::ZbV)
    }
    /// Layered: each segment processes all its micro-batches in a row.
    #[must_use]
    pub fn layered(self) -> bool {
        matches!(self, Self::Lga | Self::Modular)
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
    /// Interleaved only: micro-batches each chunk takes in a row, N
    /// (Megatron-Core's `microbatch_group_size_per_vp_stage`, the Llama 3
    /// paper's N, sec. 3.3.2): groups of N micro-batches pass through every
    /// chunk, the last group holding the rest. Megatron-Core takes p ≤ N ≤
    /// n_µ with n_µ mod N zero or at least p. 0: the smallest such N
    /// ([`crate::cost::step::group_size`]; p, Megatron's default, when p divides n_µ).
    pub group: u32,
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
            group: 0,
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
