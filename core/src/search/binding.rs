//! Why a plan has the values it has: each binding constraint in words,
//! with the equation it comes from.

use core::fmt;

use crate::cost::TransferKind;
use crate::hardware::Link;
use crate::math;
use crate::units::{Bytes, Intensity};

/// Why a plan has the value it has: the constraint that binds, with the
/// equation it comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Binding {
    /// n_a: the largest degree within the node whose overhead stays within
    /// 25 % (eq. 12).
    Tensor {
        /// Chosen degree.
        tensor: u32,
        /// Its overhead: NVLink (eq. 12) with any uneven head split.
        overhead: f64,
        /// The next larger candidate and its overhead, if the 25 % rule
        /// rejected it.
        rejected: Option<(u32, f64)>,
        /// The node size, if it capped the degree.
        node_size: Option<u32>,
    },
    /// n_a: capped by the GPU budget (below the node size).
    TensorBudget {
        /// Chosen degree.
        tensor: u32,
        /// Its overhead: NVLink (eq. 12) with any uneven head split.
        overhead: f64,
        /// The GPU budget.
        gpus: u32,
    },
    /// n_a fixed by the user.
    TensorFixed {
        /// The degree.
        tensor: u32,
    },
    /// Offload: the whole footprint exceeds the GPU memory.
    Offload {
        /// Memory per GPU without offload.
        footprint: Bytes,
        /// GPU memory.
        memory: Bytes,
    },
    /// No offload: everything fits.
    Fits {
        /// Memory per GPU.
        footprint: Bytes,
        /// GPU memory.
        memory: Bytes,
    },
    /// A micro-batch size or count set by a transfer that must be hidden.
    Transfer {
        /// `"micro-batch"` or `"micro-batches"`.
        param: &'static str,
        /// Its value.
        value: u32,
        /// What moves.
        kind: TransferKind,
        /// Over which link.
        link: Link,
        /// The link's threshold.
        threshold: Intensity,
        /// The intensity reached.
        intensity: Intensity,
        /// Equation.
        equation: &'static str,
    },
    /// A transfer no micro-batching within the batch limit could hide.
    Unhidden {
        /// What moves.
        kind: TransferKind,
        /// Equation.
        equation: &'static str,
    },
    /// n_µ ≥ n_l·(1 + ν_net/ν_l): pipeline transfers overlapped (fact 8).
    PipelineOverlap {
        /// Micro-batches.
        micro_batches: u32,
        /// The minimum for overlap.
        min: u32,
    },
    /// The exposed reduction of eq. 6 capped at 25 %.
    ExposedReduction {
        /// Data-parallel degree.
        data: u32,
        /// Its overhead.
        overhead: f64,
    },
    /// Baseline: the pipeline as deep as the layers (sec. 5).
    PipeDepth {
        /// n_l = d_l.
        pipe: u32,
    },
    /// Improved: the n_l ≤ n_µ that trains fastest (sec. 5).
    PipeFastest {
        /// Chosen n_l.
        pipe: u32,
        /// n_µ.
        micro_batches: u32,
    },
    /// Improved on a given cluster: n_l = the n_µ of eq. 9 (fact 14).
    PipeCluster {
        /// Chosen n_l.
        pipe: u32,
    },
    /// Partitioned: no pipeline (sec. 5).
    NoPipeline,
    /// n_b: the largest with b ≤ the batch limit.
    Batch {
        /// n_b.
        data: u32,
        /// The batch.
        batch: u64,
        /// The limit.
        limit: f64,
        /// Is the limit the critical batch (eq. 2)?
        critical: bool,
    },
    /// n_b capped by the GPU budget.
    GpuBudget {
        /// n_b.
        data: u32,
        /// The budget.
        gpus: u64,
    },
    /// The fewest GPUs that reach the target time.
    TargetTime {
        /// Target in days.
        days: f64,
        /// Reached?
        reached: bool,
    },
}

struct Si(f64);

impl fmt::Display for Si {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        let (v, unit) = if x >= 1e6 {
            (x / 1e6, " M")
        } else if x >= 1e3 {
            (x / 1e3, " k")
        } else {
            (x, "")
        };
        write!(f, "{}{unit}", math::round_sig(v, 3))
    }
}

fn link_name(l: Link) -> &'static str {
    match l {
        Link::GpuMemory => "GPU memory",
        Link::NvLink => "NVLink",
        Link::Pcie => "the shared PCIe link",
        Link::InfiniBand => "InfiniBand",
        Link::CpuGpu => "the CPU-GPU link",
        Link::Ethernet => "Ethernet",
        Link::Nvme => "NVMe",
        Link::Hdd => "the hard drive",
    }
}

fn kind_name(k: TransferKind) -> &'static str {
    match k {
        TransferKind::DataForward => "data-parallel restores (forward)",
        TransferKind::DataBackward => "data-parallel reduction (backward)",
        TransferKind::DataExposed => "data-parallel reduction",
        TransferKind::Pipeline => "pipeline transfers",
        TransferKind::Tensor => "tensor all-reduces",
        TransferKind::CpuGpu => "state and checkpoint offload",
        TransferKind::PcieShared => "offload and network traffic",
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = |x: f64| math::round_sig(100.0 * x, 3);
        match *self {
            Self::Tensor {
                tensor,
                overhead,
                rejected,
                node_size,
            } => {
                write!(
                    f,
                    "tensor {tensor}: overhead {} % (NVLink, eq. 12, and head split)",
                    pct(overhead)
                )?;
                match (rejected, node_size) {
                    (Some((t, o)), _) => write!(f, "; {t} would cost {} % > 25 %", pct(o)),
                    (None, Some(n)) => write!(f, "; capped by the node size {n}"),
                    (None, None) => write!(f, "; the largest divisor of the heads"),
                }
            }
            Self::TensorBudget {
                tensor,
                overhead,
                gpus,
            } => write!(
                f,
                "tensor {tensor}: overhead {} % (NVLink, eq. 12, and head split); capped by the \
                 budget of {gpus} GPU{}",
                pct(overhead),
                if gpus == 1 { "" } else { "s" }
            ),
            Self::TensorFixed { tensor } => write!(f, "tensor {tensor}: set by the user"),
            Self::Offload { footprint, memory } => write!(
                f,
                "offload: {} GiB per GPU exceeds the {} GiB of GPU memory (C.3)",
                math::round_sig(footprint.gib(), 3),
                math::round_sig(memory.gib(), 3)
            ),
            Self::Fits { footprint, memory } => write!(
                f,
                "no offload: {} GiB per GPU fits in {} GiB (C.3)",
                math::round_sig(footprint.gib(), 3),
                math::round_sig(memory.gib(), 3)
            ),
            Self::Transfer {
                param,
                value,
                kind,
                link,
                threshold,
                intensity,
                equation,
            } => write!(
                f,
                "{param} {value}: {} over {} needs ν ≥ {} flop/B, {equation}; it reaches {}",
                kind_name(kind),
                link_name(link),
                Si(threshold.0),
                Si(intensity.0)
            ),
            Self::Unhidden { kind, equation } => write!(
                f,
                "{} cannot be hidden within the batch limit ({equation}): it costs time",
                kind_name(kind)
            ),
            Self::PipelineOverlap { micro_batches, min } => write!(
                f,
                "micro-batches {micro_batches}: pipeline transfers overlap from {min} on \
                 (n_µ ≥ n_l·(1 + ν_net/ν_l), C.4.2)"
            ),
            Self::ExposedReduction { data, overhead } => write!(
                f,
                "data {data}: exposed gradient reduction {} % ≤ 25 % (eq. 6)",
                pct(overhead)
            ),
            Self::PipeDepth { pipe } => {
                write!(f, "pipe {pipe}: as deep as the layers (baseline, sec. 5)")
            }
            Self::PipeFastest {
                pipe,
                micro_batches,
            } => write!(
                f,
                "pipe {pipe}: the fastest n_l ≤ n_µ = {micro_batches} (modular pipeline, sec. 4)"
            ),
            Self::PipeCluster { pipe } => write!(
                f,
                "pipe {pipe}: n_l = the n_µ of eq. 9 on a given cluster, with a spare \
                 micro-batch for the pipeline transfers (modular pipeline, Table 6.3)"
            ),
            Self::NoPipeline => write!(
                f,
                "pipe 1: the partitioned method uses no pipeline (sec. 5)"
            ),
            Self::Batch {
                data,
                batch,
                limit,
                critical,
            } => write!(
                f,
                "data {data}: the largest with batch {batch} ≤ {} {}",
                math::round_sig(limit, 4),
                if critical {
                    "(the critical batch, eq. 2)"
                } else {
                    "(the batch limit set)"
                }
            ),
            Self::GpuBudget { data, gpus } => {
                write!(f, "data {data}: capped by the budget of {gpus} GPUs")
            }
            Self::TargetTime { days, reached } => {
                if reached {
                    write!(f, "the fewest GPUs that train within {days} days")
                } else {
                    write!(f, "{days} days cannot be reached: this is the fastest plan")
                }
            }
        }
    }
}

/// The bindings of a plan; a fixed-capacity list.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bindings {
    items: [Option<Binding>; 10],
}

impl Bindings {
    pub(crate) fn push(&mut self, b: Binding) {
        if let Some(slot) = self.items.iter_mut().find(|s| s.is_none()) {
            *slot = Some(b);
        }
    }
    /// The bindings, in the order the rules set them.
    pub fn iter(&self) -> impl Iterator<Item = &Binding> + '_ {
        self.items.iter().flatten()
    }
}
