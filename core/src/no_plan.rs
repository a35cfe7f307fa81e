//! Why a search has no plan, in numbers and in words: the constraint that
//! failed closest to passing ([`Miss`]) and the nearest change that yields a
//! plan ([`Fix`]), found by searching again with one fixed input released
//! (`search::why`). Plain `Copy` data, so that [`crate::Error`] stays
//! allocation-free; the words are its `Display`, the same sentence for the
//! CLI, the JavaScript API and the page.
//!
//! Inputs are named as the request's fields (the CLI's flags without
//! their dashes: `recompute selective` is `--recompute selective`).

use core::fmt;

use crate::cost::assumptions::Zero;
use crate::cost::{Method, PipelineSchedule, ZeroR};
use crate::memory::ActivationModel;
use crate::units::GIB;

/// A layout the search tried, as the sentence names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// Tensor-parallel degree.
    pub tensor: u32,
    /// Pipeline degree.
    pub pipe: u32,
    /// Data-parallel degree.
    pub data: u32,
    /// Context-parallel degree.
    pub context: u32,
    /// Expert-parallel degree.
    pub expert: u32,
    /// Micro-batch size.
    pub micro_batch: u32,
    /// Recomputation.
    pub recompute: ActivationModel,
    /// ZeRO stage (the effective one: ZeRO-3 / FSDP's 3).
    pub zero: Zero,
    /// The method.
    pub method: Method,
    /// The framework, which names the method (plain PyTorch's replicated
    /// layout is DDP, not "Megatron-style").
    pub framework: crate::cost::framework::Framework,
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TP {} × PP {} × DP {}",
            self.tensor, self.pipe, self.data
        )?;
        if self.context > 1 {
            write!(f, " × CP {}", self.context)?;
        }
        if self.expert > 1 {
            write!(f, ", EP {}", self.expert)?;
        }
        write!(
            f,
            ", micro-batch {}, recomputation {}, ZeRO {}, {}",
            self.micro_batch,
            self.recompute.name(),
            self.zero.name(),
            self.framework.method_label(self.method)
        )
    }
}

/// Where the batch that was too small came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchSource {
    /// Today's batch for the run's flop (DeepSeek LLM's law,
    /// `ModelShape::batch_law`), the practice limit when none is set.
    Law,
    /// The batch limit set (`batch`).
    Limit,
    /// The global batch fixed (`global_batch`).
    Global,
}

/// The constraint that failed closest to passing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Miss {
    /// Every layout that met the rest ran out of memory; this one needed
    /// the least on its heaviest stage.
    Memory {
        /// Bytes its heaviest stage needs.
        need: f64,
        /// Bytes the GPU has.
        have: f64,
        /// That stage.
        stage: u32,
        /// The layout.
        layout: Layout,
    },
    /// A pipeline needs at least as many micro-batches as stages; the
    /// batch gave this layout fewer (the one that came closest).
    MicroBatches {
        /// The batch, in sequences.
        batch: u64,
        /// Where it came from.
        source: BatchSource,
        /// Data-parallel degree.
        data: u64,
        /// Micro-batch size.
        micro_batch: u64,
        /// The micro-batches per pipeline it gave.
        micro_batches: u64,
        /// Pipeline stages.
        pipe: u64,
    },
    /// The fixed global batch splits over no data degree × micro-batch
    /// tried.
    BatchSplit {
        /// The global batch, in sequences.
        batch: u64,
    },
    /// Every layout the degrees allow needs more GPUs than the budget.
    Budget {
        /// The budget.
        gpus: u64,
        /// The fewest GPUs a layout tried needs.
        smallest: u64,
    },
    /// No layout of the degrees allowed splits the cluster exactly.
    Cluster {
        /// The cluster's GPUs.
        gpus: u64,
    },
    /// Plans fit, none reaches the minimum efficiency.
    Efficiency {
        /// The best efficiency found.
        best: f64,
        /// The minimum set.
        min: f64,
    },
    /// Plans fit, none trains within the target time.
    TargetDays {
        /// The fastest plan's days.
        best: f64,
        /// Its GPUs.
        gpus: u64,
        /// The target.
        target: f64,
    },
    /// No layout was tried at all.
    Nothing,
}

impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Memory {
                need,
                have,
                stage,
                layout,
            } => write!(
                f,
                "memory: the lightest layout tried ({layout}) needs {:.1} GiB on its heaviest \
                 stage (stage {stage}), of the GPU's {:.0} GiB",
                need / GIB,
                have / GIB
            ),
            Self::MicroBatches {
                batch,
                source,
                data,
                micro_batch,
                micro_batches,
                pipe,
            } => {
                match source {
                    BatchSource::Law => {
                        write!(f, "micro-batches: today's batch for this run, {batch} sequences (DeepSeek LLM's batch-size law; no batch was set)")?;
                    }
                    BatchSource::Limit => {
                        write!(f, "micro-batches: the batch limit of {batch} sequences")?;
                    }
                    BatchSource::Global => {
                        write!(f, "micro-batches: the global batch of {batch} sequences")?;
                    }
                }
                write!(
                    f,
                    " leaves {micro_batches} micro-batch{} (DP {data}, micro-batch {micro_batch}) \
                     for {pipe} pipeline stages; a pipeline needs at least one per stage",
                    if micro_batches == 1 { "" } else { "es" }
                )
            }
            Self::BatchSplit { batch } => write!(
                f,
                "global batch: {batch} sequences split over no data-parallel degree × \
                 micro-batch the other inputs allow"
            ),
            Self::Budget { gpus, smallest } => write!(
                f,
                "GPU budget: the smallest layout the inputs allow needs {smallest} GPUs, \
                 above the budget of {gpus}"
            ),
            Self::Cluster { gpus } => write!(
                f,
                "cluster: no layout of the degrees allowed uses exactly {gpus} GPUs"
            ),
            Self::Efficiency { best, min } => write!(
                f,
                "efficiency: the best plan reaches {:.1} %, below the minimum of {:.1} %",
                best * 100.0,
                min * 100.0
            ),
            Self::TargetDays { best, gpus, target } => write!(
                f,
                "target time: the fastest plan takes {best:.1} days on {gpus} GPUs, past the \
                 target of {target} days"
            ),
            Self::Nothing => f.write_str("no layout could be tried with these inputs"),
        }
    }
}

/// One input changed: the nearest change that yields a plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Change {
    /// Recomputation (`recompute`).
    Recompute(ActivationModel),
    /// ZeRO stage (`zero`).
    Zero(Zero),
    /// The method (`method`).
    Method(Method),
    /// Sequence parallelism (`sequence_parallel`).
    SequenceParallel(bool),
    /// ZeRO-R checkpoints (`zero_r`).
    ZeroR(ZeroR),
    /// Virtual stages (`virtual_stages`).
    VirtualStages(u32),
    /// The pipeline schedule (`pipeline_schedule`).
    Schedule(PipelineSchedule),
    /// Micro-batch size (`micro_batch`).
    MicroBatch(u32),
    /// Data-parallel degree (`data`).
    Data(u32),
    /// Pipeline degree (`pipe`).
    Pipe(u32),
    /// Tensor-parallel degree (`tensor`).
    Tensor(u32),
    /// Context-parallel degree (`context_parallel`).
    Context(u32),
    /// Expert-parallel degree (`expert_parallel`).
    Expert(u32),
    /// A global batch, in sequences (`global_batch`).
    GlobalBatch(u64),
    /// A batch limit, in sequences (`batch`).
    BatchLimit(u64),
    /// The cluster's size (`gpus`).
    Cluster(u64),
    /// The GPU budget (`max_gpus`): the fewest GPUs with a plan.
    Budget(u64),
    /// No target time (`target_days` removed).
    NoTarget,
    /// No minimum efficiency (`min_efficiency` removed).
    NoMinEfficiency,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Recompute(r) => write!(f, "recompute {}", r.name()),
            Self::Zero(z) => write!(f, "zero {}", z.name()),
            Self::Method(m) => write!(f, "method {} ({})", m.name(), m.label()),
            Self::SequenceParallel(on) => {
                write!(f, "sequence parallelism {}", if on { "on" } else { "off" })
            }
            Self::ZeroR(z) => write!(f, "zero_r {}", z.name()),
            Self::VirtualStages(v) => write!(f, "virtual_stages {v}"),
            Self::Schedule(s) => write!(f, "pipeline_schedule {}", s.name()),
            Self::MicroBatch(b) => write!(f, "micro_batch {b}"),
            Self::Data(d) => write!(f, "data {d}"),
            Self::Pipe(p) => write!(f, "pipe {p}"),
            Self::Tensor(t) => write!(f, "tensor {t}"),
            Self::Context(c) => write!(f, "context_parallel {c}"),
            Self::Expert(e) => write!(f, "expert_parallel {e}"),
            Self::GlobalBatch(b) => write!(f, "global_batch {b} (sequences)"),
            Self::BatchLimit(b) => write!(f, "a batch of up to {b} sequences (batch {b})"),
            Self::Cluster(n) => write!(f, "a cluster of {n} GPUs (gpus {n})"),
            Self::Budget(n) => write!(f, "a GPU budget of at least {n} (max_gpus {n})"),
            Self::NoTarget => f.write_str("no target time (target_days unset)"),
            Self::NoMinEfficiency => f.write_str("no minimum efficiency (min_efficiency 0)"),
        }
    }
}

/// The nearest change and the plan it yields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fix {
    /// What changes.
    pub change: Change,
    /// The plan's GPUs.
    pub gpus: u32,
    /// The plan's training days.
    pub days: f32,
    /// Bytes its heaviest stage needs.
    pub heaviest: f64,
    /// Bytes the GPU has.
    pub have: f64,
    /// Where this change raised today's batch (plan3d's choice) for a
    /// cluster the user gave exactly: the plan at today's batch on at
    /// most that cluster, the user's other way out.
    pub or: Option<Fewer>,
}

/// Today's batch on fewer GPUs than the cluster given ([`Fix::or`]). A
/// fix's counts are 32-bit so that the crate's `Copy` error stays under
/// 128 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fewer {
    /// The plan's GPUs.
    pub gpus: core::num::NonZeroU32,
    /// The plan's training days.
    pub days: f32,
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "with {} the heaviest stage needs {:.1} GiB of {:.0} and a plan trains in ",
            self.change,
            self.heaviest / GIB,
            self.have / GIB,
        )?;
        // As the headline says a time: years past three, hours or minutes
        // under a tenth of a day (not "0.0 days").
        write_duration(f, f64::from(self.days))?;
        write!(f, " on ")?;
        write_gpus(f, u64::from(self.gpus))?;
        if let Some(o) = self.or {
            let n = o.gpus.get();
            write!(
                f,
                "; or, at today's batch, a cluster of {n} GPUs (gpus {n}) trains in "
            )?;
            write_duration(f, f64::from(o.days))?;
        }
        Ok(())
    }
}

/// A time as the headline says it ([`crate::text::duration`]: years past
/// three, hours or minutes under a tenth of a day, not "0.0 days").
fn write_duration(f: &mut fmt::Formatter<'_>, days: f64) -> fmt::Result {
    #[cfg(feature = "alloc")]
    {
        f.write_str(&crate::text::duration(days))
    }
    #[cfg(not(feature = "alloc"))]
    {
        write!(f, "{days:.1} days")
    }
}

/// A GPU count with its noun ([`crate::text::gpus`]: "16,384 GPUs").
fn write_gpus(f: &mut fmt::Formatter<'_>, n: u64) -> fmt::Result {
    #[cfg(feature = "alloc")]
    {
        f.write_str(&crate::text::gpus(n))
    }
    #[cfg(not(feature = "alloc"))]
    {
        write!(f, "{n} GPUs")
    }
}

/// Why a search has no plan: the closest miss and, when one change of
/// what was fixed or bounded yields a plan, the nearest such change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Why {
    /// The constraint that failed closest to passing.
    pub miss: Miss,
    /// The nearest change that yields a plan, if one was found.
    pub fix: Option<Fix>,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.miss)?;
        match self.fix {
            Some(fix) => write!(f, "; {fix}"),
            None => f.write_str("; no single change of what was fixed or bounded finds a plan"),
        }
    }
}
