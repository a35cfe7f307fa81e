//! What is evaluated: the method and the configuration (degrees, micro-
//! batches, offload), and the limits every entry point accepts.

use crate::cost::assumptions::Zero;
use crate::error::Error;
use crate::memory::ActivationModel;

mod validate;
pub use validate::max_virtual_stages;
pub(crate) use validate::validate;

/// Largest degree or count accepted for any one dimension.
pub const MAX_DEGREE: u64 = 1 << 24;
/// Largest GPU count accepted.
pub const MAX_GPUS: u64 = 1 << 32;

/// A training method (sec. 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Method {
    /// Standard data and pipeline parallelism, state not partitioned.
    #[default]
    Baseline,
    /// As the baseline, with the training state partitioned over the
    /// data-parallel devices (ZeRO stage 3).
    Partitioned,
    /// Layered gradient accumulation and the modular pipeline, state
    /// partitioned (secs. 3–4).
    Improved,
    /// Layered gradient accumulation and the modular pipeline, state not
    /// partitioned (the "no partition" line of fig. 8).
    ImprovedUnpartitioned,
}

impl Method {
    /// Every method.
    pub const ALL: [Self; 4] = [
        Self::Baseline,
        Self::Partitioned,
        Self::Improved,
        Self::ImprovedUnpartitioned,
    ];

    /// Layered gradient accumulation and the modular pipeline?
    #[must_use]
    pub fn layered(self) -> bool {
        matches!(self, Self::Improved | Self::ImprovedUnpartitioned)
    }

    /// Training state partitioned over the data-parallel devices?
    #[must_use]
    pub fn partitioned(self) -> bool {
        matches!(self, Self::Partitioned | Self::Improved)
    }

    /// Does the method run with ZeRO stage `zero`? ZeRO-3 / FSDP shards
    /// the whole state (stage 3, gathered per micro-batch or once per step);
    /// the layered method restores its partitioned state once per layer and
    /// step (sec. 3: stage 3); the replicated layered method shards nothing;
    /// the Megatron-style baseline replicates the weights and shards at
    /// most the optimizer and gradients (stages 0–2: Megatron-Core's
    /// distributed optimizer is stage 1, `--use-distributed-optimizer`);
    /// sharded weights are the ZeRO-3 / FSDP row.
    #[must_use]
    pub fn admits(self, zero: Zero) -> bool {
        match self {
            Self::Baseline => zero.stage() <= 2,
            Self::Partitioned => zero.stage() == 3,
            Self::Improved => zero == Zero::Three,
            Self::ImprovedUnpartitioned => zero == Zero::None,
        }
    }

    /// Why [`Method::admits`] refuses a stage, in words naming both fields.
    #[must_use]
    pub fn zero_refusal(self) -> &'static str {
        match self {
            Self::Partitioned => {
                "method partitioned (ZeRO-3 / FSDP) shards the whole state: zero must be 3 or 3-step"
            }
            Self::Improved => {
                "method improved (layered + modular) partitions the whole state: zero must be 3"
            }
            Self::ImprovedUnpartitioned => {
                "method improved-unpartitioned replicates the state: zero must be 0"
            }
            Self::Baseline => {
                "method baseline (Megatron-style) replicates the weights: zero must be 0, 1 (the \
                 distributed optimizer) or 2; sharded weights are method partitioned (ZeRO-3 / FSDP)"
            }
        }
    }

    /// Stable name, as used by the CLI and URLs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Baseline => "baseline",
            Self::Partitioned => "partitioned",
            Self::Improved => "improved",
            Self::ImprovedUnpartitioned => "improved-unpartitioned",
        }
    }

    /// The name practitioners use: `Megatron-style` (state replicated),
    /// `ZeRO-3 / FSDP` (state partitioned), `layered + modular
    /// (Lamy-Poirier)`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Baseline => "Megatron-style",
            Self::Partitioned => "ZeRO-3 / FSDP",
            Self::Improved => "layered + modular (Lamy-Poirier)",
            Self::ImprovedUnpartitioned => "layered + modular, state replicated",
        }
    }

    /// Parses [`Method::name`], case-insensitive.
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(Error::Unknown { what: "method" })
    }
}

/// How a pipeline without layered accumulation orders its micro-batches
/// (the modular pipeline of the layered methods has its own order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PipelineSchedule {
    /// One forward, one backward (PipeDream-Flush, PTD-P sec. 2.2.1): a
    /// device holds at most p − stage micro-batches' activations;
    /// interleaved when there are virtual stages.
    #[default]
    OneFOneB,
    /// GPipe (Huang et al. 2019): every forward, then every backward. The
    /// same bubble (p−1)/m, but all m micro-batches' activations are held.
    GPipe,
    /// Zero-bubble ZB-H1 (Qi et al. 2024, arXiv 2401.10241, sec. 3.1): the
    /// backward split into input- and weight-gradient passes, the weight
    /// gradients deferred into the cool-down. Bubble (p−1)·(F + B − W)/m
    /// per micro-batch's F + B + W: a third of 1F1B's without
    /// recomputation (F = B = W), half with full recomputation (B = 2F);
    /// every device holds p micro-batches (1F1B's first device's peak).
    /// No virtual stages (torchtitan's `ZBVZeroBubble` is the V-shaped
    /// variant, not modelled).
    ZbH1,
    /// DualPipe (DeepSeek-V3, arXiv 2412.19437, sec. 3.2.1): micro-batches
    /// from both ends, each device holding two stages (twice the weights,
    /// gradients and optimizer state), forward and backward chunks fused in
    /// pairs that hide the expert all-to-alls. Bubble (p/2 − 1)·(F&B + B −
    /// 3W)/m per F + B + W, p + 1 micro-batches in flight. Needs an even p
    /// and an even m of at least 2p; no virtual stages.
    DualPipe,
    /// ZB-V (Qi et al. 2024, arXiv 2401.10241, sec. 6): the model cut into
    /// 2p stages placed in a V (device i holds stages i and 2p−1−i, so the
    /// embedding and the head both sit on device 0), the backward split
    /// as in ZB-H1. Bubble (p−1)·(F + B − W)/2 over m(F + B + W), half
    /// ZB-H1's (the simulated order gives it exactly when W = F ≤ B); the
    /// peak activations of 1F1B's first device (2p half stages) and twice
    /// its pipeline sends. Needs m ≥ 2p − 1 and at least 2p layers; the two
    /// chunks are implied (virtual stages stay 1).
    ZbV,
}

impl PipelineSchedule {
    /// Every schedule.
    pub const ALL: [Self; 5] = [
        Self::OneFOneB,
        Self::GPipe,
        Self::ZbH1,
        Self::DualPipe,
        Self::ZbV,
    ];

    /// Stable name: `1f1b`, `gpipe`, `zb-h1`, `dualpipe`, `zb-v`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::OneFOneB => "1f1b",
            Self::GPipe => "gpipe",
            Self::ZbH1 => "zb-h1",
            Self::DualPipe => "dualpipe",
            Self::ZbV => "zb-v",
        }
    }

    /// Can `m` micro-batches run this schedule over `pipe` > 1 stages?
    /// DualPipe needs an even m of at least 2p, ZB-V at least 2p − 1 (its
    /// first GPU's warm-up), the others any.
    #[must_use]
    pub fn fits_micro_batches(self, pipe: u32, m: u32) -> bool {
        match self {
            Self::DualPipe => m % 2 == 0 && m >= 2 * pipe,
            Self::ZbV => m + 1 >= 2 * pipe,
            _ => true,
        }
    }

    /// What [`Self::fits_micro_batches`] asks for `pipe` stages; its
    /// `Display` says it in words ("an even number, at least 16").
    #[must_use]
    pub fn micro_batch_need(self, pipe: u32) -> MicroBatchNeed {
        match self {
            Self::DualPipe => MicroBatchNeed {
                even: true,
                at_least: 2 * pipe,
            },
            Self::ZbV => MicroBatchNeed {
                even: false,
                at_least: (2 * pipe).saturating_sub(1),
            },
            _ => MicroBatchNeed {
                even: false,
                at_least: 1,
            },
        }
    }

    /// Parses [`Self::name`], case-insensitive.
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(Error::Unknown {
                what: "pipeline schedule",
            })
    }
}

/// ZeRO-R's activation checkpoints (seed 001 sec. 6.1): kept whole on every
/// tensor-parallel rank, partitioned across them (P_a: each keeps 1/t and
/// all-gathers a layer's before recomputing it), or partitioned and
/// offloaded to CPU memory (P_a+cpu). Checkpoints exist under full
/// recomputation only; sequence parallelism already splits them, so there
/// P_a changes nothing and P_a+cpu only moves them to CPU memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ZeroR {
    /// Every tensor rank keeps the whole checkpoint (unless sequence
    /// parallelism splits it).
    #[default]
    None,
    /// P_a: partitioned across the tensor ranks.
    Pa,
    /// P_a+cpu: partitioned and offloaded to CPU memory.
    PaCpu,
}

impl ZeroR {
    /// Every placement, from the fastest to the least GPU memory.
    pub const ALL: [Self; 3] = [Self::None, Self::Pa, Self::PaCpu];

    /// Stable name: `none`, `pa`, `pa-cpu` (also read as `pa+cpu`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Pa => "pa",
            Self::PaCpu => "pa-cpu",
        }
    }

    /// Parses [`Self::name`], case-insensitive; `pa+cpu` is `pa-cpu`.
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, Error> {
        let n = name.trim();
        if n.eq_ignore_ascii_case("pa+cpu") {
            return Ok(Self::PaCpu);
        }
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(n))
            .ok_or(Error::Unknown {
                what: "ZeRO-R checkpoint placement",
            })
    }
}

/// The micro-batch count a pipeline schedule asks for
/// ([`PipelineSchedule::micro_batch_need`]), printable without `alloc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MicroBatchNeed {
    /// The count must be even (DualPipe's two directions).
    pub even: bool,
    /// The fewest micro-batches.
    pub at_least: u32,
}

impl core::fmt::Display for MicroBatchNeed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.even, self.at_least) {
            (false, 1) => f.write_str("at least one"),
            (true, n) => write!(f, "an even number, at least {n}"),
            (false, n) => write!(f, "at least {n}"),
        }
    }
}

/// A training configuration: degrees n_b, n_l, n_a, micro-batch b_µ,
/// micro-batch count n_µ, offload. The batch is b = n_b · n_µ · b_µ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Config {
    /// Method.
    pub method: Method,
    /// Data-parallel degree n_b.
    pub data: u32,
    /// Pipeline-parallel degree n_l.
    pub pipe: u32,
    /// Tensor-parallel degree n_a.
    pub tensor: u32,
    /// Micro-batch size b_µ, in sequences.
    pub micro_batch: u32,
    /// Micro-batches per batch and data-parallel instance, n_µ.
    pub micro_batches: u32,
    /// Offload the training state and checkpoints to CPU memory.
    pub offload: bool,
    /// How activations are kept (recomputation).
    pub activation: ActivationModel,
    /// Virtual stages per pipeline device v (interleaved 1F1B, PTD-P
    /// sec. 2.2.2); 1 for plain 1F1B. Read by the practice timing.
    #[cfg_attr(feature = "serde", serde(default = "one"))]
    pub virtual_stages: u32,
    /// Interleaved 1F1B: micro-batches each virtual stage takes in a row, N
    /// (Megatron-Core's `--microbatch-group-size-per-virtual-pipeline-stage`;
    /// the Llama 3 paper's N, sec. 3.3.2, which lets the batch be any number
    /// of micro-batches). A larger N holds more micro-batches in flight.
    /// 0: the smallest Megatron-Core takes ([`crate::cost::step::group_size`]):
    /// the pipeline degree when it divides the micro-batches.
    #[cfg_attr(feature = "serde", serde(default))]
    pub microbatch_group: u32,
    /// Sequence parallelism with tensor parallelism (Korthikanti et al.):
    /// reduce-scatter/all-gather instead of all-reduce, the norms' and
    /// dropouts' activations split over the tensor devices.
    #[cfg_attr(feature = "serde", serde(default))]
    pub sequence_parallel: bool,
    /// Optimizer-state sharding over the data-parallel devices (practice;
    /// the paper's methods say it themselves: partitioned is ZeRO-3).
    #[cfg_attr(feature = "serde", serde(default))]
    pub zero: Zero,
    /// The pipeline's order (practice; the layered methods use the modular
    /// pipeline).
    #[cfg_attr(feature = "serde", serde(default))]
    pub pipeline_schedule: PipelineSchedule,
    /// ZeRO-R activation checkpoints: partitioned, offloaded (practice).
    #[cfg_attr(feature = "serde", serde(default))]
    pub zero_r: ZeroR,
    /// Context-parallel degree (practice): each sequence split over this
    /// many GPUs, attention by ring exchange of keys and values
    /// (Megatron-Core's context parallelism). 1: none.
    #[cfg_attr(feature = "serde", serde(default = "one"))]
    pub context: u32,
    /// Expert-parallel degree (practice, mixtures of experts): each MoE
    /// layer's routed experts spread over this many GPUs of the data (and
    /// context) ranks, tokens exchanged by all-to-all (Megatron-Core's
    /// expert parallelism, with the experts' tensor degree that of the
    /// rest). 1: every GPU holds every expert.
    #[cfg_attr(feature = "serde", serde(default = "one"))]
    pub expert: u32,
    /// The routed experts' own tensor-parallel degree (practice, mixtures
    /// of experts; Megatron-Core's `--expert-tensor-parallel-size`, "MoE
    /// parallel folding", Liu et al. 2025, arXiv 2504.14960): the MoE
    /// layers regroup the t·cp·d GPUs of a stage as etp × ep × edp, so ep
    /// may exceed d·cp where etp < t. 0: the tensor degree (Megatron-Core's
    /// default, and plan3d's before this field).
    #[cfg_attr(feature = "serde", serde(default))]
    pub expert_tensor: u32,
    /// The embedding's work in layers, for the pipeline split (practice):
    /// the first chunk holds this many layers fewer than an even split of
    /// layers, embedding and head would give it (Megatron-Core's
    /// `--account-for-embedding-in-pipeline-split`, which counts it as 1).
    /// 0: the embedding rides on the first chunk.
    #[cfg_attr(feature = "serde", serde(default))]
    pub embedding_layers: u32,
    /// The head's work in layers, for the pipeline split (practice): the
    /// last stage holds this many layers fewer than an even split of
    /// layers and head would give it ([`crate::cost::step::chunk_layers`];
    /// Megatron-Core's `--decoder-last-pipeline-num-layers`). 0: layers
    /// split evenly, the head on top (the paper).
    #[cfg_attr(feature = "serde", serde(default))]
    pub head_layers: u32,
    /// Full recomputation of only this many layers of each pipeline chunk
    /// (practice; Megatron-Core's `--recompute-method block
    /// --recompute-num-layers`): the chunk's other layers keep all their
    /// activations and are not recomputed. 0: every layer.
    #[cfg_attr(feature = "serde", serde(default))]
    pub recompute_layers: u32,
    /// The activations of this many layers of each pipeline chunk kept in
    /// CPU memory between their forward and backward passes (practice;
    /// Megatron-Core's `--cpu-offloading-num-layers`), copied over the CPU
    /// link under the layers' compute. 0: none.
    #[cfg_attr(feature = "serde", serde(default))]
    pub offload_layers: u32,
    /// The modules selective recomputation recomputes (practice;
    /// Megatron-Core's `--recompute-modules`); empty: `core_attn`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub recompute_modules: crate::cost::saved::Modules,
    /// The modules whose saved tensors every layer sends to CPU memory
    /// between its forward and backward passes (practice; Megatron-Core's
    /// `--fine-grained-activation-offloading --offload-modules`); empty:
    /// none.
    #[cfg_attr(feature = "serde", serde(default))]
    pub offload_modules: crate::cost::offload::OffloadModules,
}

#[cfg(feature = "serde")]
fn one() -> u32 {
    1
}

impl Default for Config {
    fn default() -> Self {
        Self {
            method: Method::Baseline,
            data: 1,
            pipe: 1,
            tensor: 1,
            micro_batch: 1,
            micro_batches: 1,
            offload: false,
            activation: ActivationModel::Paper,
            virtual_stages: 1,
            microbatch_group: 0,
            sequence_parallel: false,
            zero: Zero::None,
            pipeline_schedule: PipelineSchedule::OneFOneB,
            zero_r: ZeroR::None,
            context: 1,
            expert: 1,
            expert_tensor: 0,
            embedding_layers: 0,
            head_layers: 0,
            recompute_layers: 0,
            offload_layers: 0,
            recompute_modules: crate::cost::saved::Modules(0),
            offload_modules: crate::cost::offload::OffloadModules(0),
        }
    }
}

impl Config {
    /// [`Self::recompute_layers`] as the cost model reads it: without the
    /// `knobs` feature (the page's build, which cannot set it) always 0, so
    /// that its code stays out of the page's wasm.
    #[must_use]
    pub fn partial_recompute(&self) -> u32 {
        if cfg!(feature = "knobs") {
            self.recompute_layers
        } else {
            0
        }
    }

    /// [`Self::offload_layers`] as the cost model reads it (see
    /// [`Self::partial_recompute`]).
    #[must_use]
    pub fn offloaded_layers(&self) -> u32 {
        if cfg!(feature = "knobs") {
            self.offload_layers
        } else {
            0
        }
    }

    /// [`Self::recompute_modules`] as the cost model reads it (see
    /// [`Self::partial_recompute`]).
    #[must_use]
    pub fn modules(&self) -> crate::cost::saved::Modules {
        if cfg!(feature = "knobs") {
            self.recompute_modules
        } else {
            crate::cost::saved::Modules(0)
        }
    }

    /// [`Self::offload_modules`] as the cost model reads it (see
    /// [`Self::partial_recompute`]).
    #[must_use]
    pub fn offloaded_modules(&self) -> crate::cost::offload::OffloadModules {
        if cfg!(feature = "knobs") {
            self.offload_modules
        } else {
            crate::cost::offload::OffloadModules(0)
        }
    }

    /// The routed experts' tensor degree as the cost model reads it:
    /// [`Self::expert_tensor`], or the tensor degree where it is 0.
    #[must_use]
    #[inline]
    pub fn expert_tensor_degree(&self) -> u32 {
        if self.expert_tensor == 0 {
            self.tensor.max(1)
        } else {
            self.expert_tensor
        }
    }

    /// The expert-data-parallel degree of a mixture's routed experts:
    /// t·cp·d / (ep·etp), the GPUs of a stage holding the same experts'
    /// shard (Megatron-Core's expert data parallelism).
    #[must_use]
    pub fn expert_data(&self) -> f64 {
        f64::from(self.tensor.max(1)) * f64::from(self.data) * f64::from(self.context.max(1))
            / (f64::from(self.expert.max(1)) * f64::from(self.expert_tensor_degree()))
    }

    /// Batch size b = n_b · n_µ · b_µ, in sequences.
    #[must_use]
    pub fn batch(&self) -> u64 {
        u64::from(self.data) * u64::from(self.micro_batches) * u64::from(self.micro_batch)
    }

    /// GPU count n_gpu = n_b · n_l · n_a (· the context-parallel degree).
    #[must_use]
    pub fn gpus(&self) -> u64 {
        u64::from(self.data)
            * u64::from(self.pipe)
            * u64::from(self.tensor)
            * u64::from(self.context.max(1))
    }
}
