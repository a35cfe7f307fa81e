//! What plan3d answers: one plain struct per answer, in the units and with
//! the field names of the CLI's `--json` output, the page's JSON exports
//! and the JavaScript API. The field tables of `docs/cli.md` document these types;
//! with the `schema` feature they also give the JSON schema.
//!
//! Every quantity is a plain number in the unit its name or doc says:
//! bytes, bytes/s, flop, flop/s, days, seconds or a fraction.
//!
//! One file on purpose (over 600 lines): it is the public schema, every
//! answer's fields in one place, read top to bottom beside `docs/cli.md`'s
//! tables.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::cost::Evaluation;
use crate::hardware::{Hardware, Link};
use crate::model::ModelShape;
use crate::schedule::{Event, Schedule};
use crate::search::{Plan, SearchResult, SweepRow};

/// `plan3d model`: a shape, its parameter counts and critical batch.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ModelReport {
    /// Sequence length d_s, tokens.
    pub seq_len: u32,
    /// Attention heads d_a.
    pub heads: u32,
    /// Head size d_h.
    pub head_size: u32,
    /// Key/value heads (= heads unless grouped-query).
    pub kv_heads: u32,
    /// Width d_m = d_a · d_h.
    pub d_model: u64,
    /// Feed-forward size d_I.
    pub ffn: u32,
    /// Layers d_l.
    pub layers: u32,
    /// p = p_l · d_l, the count every formula uses (12 x⁵ for X\[x\]).
    pub params: f64,
    /// With biases, norms and, given a vocabulary, embeddings.
    pub params_exact: f64,
    /// b_c = 573 p^{1/3} / d_s in sequences (eq. 2), not rounded.
    pub critical_batch: f64,
    /// Parameters a token passes through (= `params` for a dense model;
    /// attention, router, shared and top-k experts of a mixture).
    pub active_params: f64,
    /// The routed experts, for a mixture of experts.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub experts: Option<crate::model::Experts>,
    /// Multi-head latent attention's projections, when the model uses it.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub latent: Option<crate::model::Latent>,
}

impl From<&ModelShape> for ModelReport {
    fn from(m: &ModelShape) -> Self {
        Self {
            seq_len: m.seq_len,
            heads: m.heads,
            head_size: m.head_size,
            kv_heads: m.kv_heads,
            d_model: m.width(),
            ffn: m.ffn,
            layers: m.layers,
            params: m.params(),
            params_exact: m.params_exact(),
            critical_batch: m.critical_batch(),
            active_params: m.active_params(),
            experts: m.experts,
            latent: m.latent,
        }
    }
}

/// A link's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LinkReport {
    /// Input + output bandwidth, bytes/s.
    pub bandwidth: f64,
    /// Arithmetic-intensity threshold peak / bandwidth, flop/B (Table A.1).
    pub threshold: f64,
}

/// Every link of a GPU, by its key.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LinksReport {
    /// GPU memory.
    #[cfg_attr(feature = "serde", serde(rename = "gpu-memory"))]
    pub gpu_memory: LinkReport,
    /// NVLink within the node.
    pub nvlink: LinkReport,
    /// The GPU's PCIe link.
    pub pcie: LinkReport,
    /// InfiniBand (or the network preset chosen).
    pub infiniband: LinkReport,
    /// CPU-GPU.
    #[cfg_attr(feature = "serde", serde(rename = "cpu-gpu"))]
    pub cpu_gpu: LinkReport,
    /// Ethernet 25 Gb/s.
    pub ethernet: LinkReport,
    /// NVMe.
    pub nvme: LinkReport,
    /// A hard drive.
    pub hdd: LinkReport,
}

/// `plan3d hardware`: a GPU and its links.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HardwareReport {
    /// The GPU preset.
    pub gpu: String,
    /// Dense half-precision peak, flop/s.
    pub peak_flops: f64,
    /// GPU memory, bytes.
    pub memory_bytes: f64,
    /// NVLink domain size in GPUs; null for no limit.
    pub node_size: Option<u32>,
    /// Network of the data and pipeline dimensions.
    pub network: String,
    /// Every link.
    pub links: LinksReport,
}

impl From<&Hardware> for HardwareReport {
    fn from(hw: &Hardware) -> Self {
        let l = |link: Link| LinkReport {
            bandwidth: hw.bandwidth(link).get(),
            threshold: hw.threshold(link).get(),
        };
        Self {
            gpu: hw.gpu.name.to_string(),
            peak_flops: hw.gpu.peak.get(),
            memory_bytes: hw.gpu.memory.get(),
            node_size: hw.node_size,
            network: hw.network.name().to_string(),
            links: LinksReport {
                gpu_memory: l(Link::GpuMemory),
                nvlink: l(Link::NvLink),
                pcie: l(Link::Pcie),
                infiniband: l(Link::InfiniBand),
                cpu_gpu: l(Link::CpuGpu),
                ethernet: l(Link::Ethernet),
                nvme: l(Link::Nvme),
                hdd: l(Link::Hdd),
            },
        }
    }
}

/// Overheads relative to a step's compute.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OverheadsReport {
    /// Pipeline bubble.
    pub bubble: f64,
    /// Tensor-parallel all-reduces (eq. 12).
    pub tensor: f64,
    /// Data-parallel traffic (eqs. 5–9).
    pub data: f64,
    /// Pipeline transfers (eqs. 10–11).
    pub pipeline: f64,
    /// CPU-GPU offload (eqs. 13–14).
    pub offload: f64,
    /// Load imbalance (layers or heads that do not divide).
    pub imbalance: f64,
}

/// Memory per GPU, bytes.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MemoryReport {
    /// Training state (weights, gradients, optimizer).
    pub state: f64,
    /// Activation checkpoints.
    pub checkpoints: f64,
    /// Parameter and gradient buffers.
    pub buffers: f64,
    /// Activations of the layer being computed.
    pub activations: f64,
    /// What offload can move to CPU memory (state and checkpoints).
    pub offloadable: f64,
    /// What must stay on the GPU.
    pub non_offloadable: f64,
    /// All of it.
    pub total: f64,
    /// What stays on the GPU with this plan's offload choice.
    pub on_gpu: f64,
    /// The heaviest pipeline device's memory: what `fits` compares.
    pub peak_bytes: f64,
    /// The fit boundary: the GPU's memory less `peak_bytes` (negative when
    /// it does not fit).
    #[cfg_attr(feature = "serde", serde(default))]
    pub margin_bytes: f64,
    /// The heaviest device's largest part (`weights`, `gradients`,
    /// `optimizer`, `activations`, `working`, `logits` or `reserve`; under
    /// the paper `state`, `checkpoints`, `buffers` or `activations`): what
    /// dominates the fit.
    #[cfg_attr(feature = "serde", serde(default))]
    pub dominant: String,
    /// Each distinct pipeline device (first, a middle one, last); one entry
    /// under the paper's uniform model.
    pub stages: Vec<StageReport>,
}

/// One pipeline device's memory, bytes.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StageReport {
    /// Device index in the pipeline, 0 = first.
    pub stage: u32,
    /// Transformer layers it holds.
    pub layers: u32,
    /// Weights (with ZeRO-3's gathered copies). Paper: the buffers.
    pub weights: f64,
    /// Gradients.
    pub gradients: f64,
    /// Optimizer state. Paper: the 12-byte state.
    pub optimizer: f64,
    /// Activations of the micro-batches in flight. Paper: checkpoints.
    pub activations: f64,
    /// One layer's working set. Paper: the layer activations.
    pub working: f64,
    /// Logits (last device).
    pub logits: f64,
    /// CUDA context, NCCL, fragmentation.
    pub reserve: f64,
    /// Of the reserve, the allocator's fragmentation.
    #[cfg_attr(feature = "serde", serde(default))]
    pub fragmentation: f64,
    /// Micro-batches in flight.
    pub in_flight: f64,
    /// All of it (on the GPU).
    pub total: f64,
    /// CPU memory: ZeRO-R P_a+cpu's checkpoints (not in `total`).
    pub host: f64,
}

/// A step's time in parts, seconds (practice).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepReport {
    /// GEMMs.
    pub compute: f64,
    /// Memory-bound element-wise kernels.
    pub elementwise: f64,
    /// The GPU waiting for an eager framework's CPU to dispatch the
    /// operators of layers whose kernels are shorter.
    #[cfg_attr(feature = "serde", serde(default))]
    pub launch: f64,
    /// Exposed tensor-parallel collectives.
    pub tensor: f64,
    /// Pipeline sends.
    pub pipeline: f64,
    /// Pipeline bubble.
    pub bubble: f64,
    /// Exposed data-parallel traffic.
    pub data: f64,
    /// Optimizer step.
    pub optimizer: f64,
    /// ZeRO-R P_a+cpu checkpoint copies left exposed.
    pub offload: f64,
    /// Context parallelism's ring exchange left exposed.
    pub context: f64,
    /// Expert parallelism's all-to-all dispatch and combine left exposed.
    pub expert: f64,
    /// Bytes one GPU sends in the expert all-to-alls per step.
    pub all_to_all_bytes: f64,
    /// Bytes one GPU sends around the context-parallel ring per step.
    pub context_ring_bytes: f64,
}

/// One class of a step's time (practice): where the step goes, by kernel
/// class, with the rate its kernels achieve.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KernelClassReport {
    /// `linear GEMMs`, `attention forward`, `attention backward`,
    /// `logits`, `element-wise`, `optimizer`, `CPU dispatch`, `exposed
    /// communication`, `bubble`.
    pub class: String,
    /// Seconds per step on the heaviest GPU.
    pub seconds: f64,
    /// Its share of the step.
    pub share: f64,
    /// What its kernels achieve: Tflop/s for GEMMs, GB/s for memory-bound
    /// kernels; absent for waiting.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub achieved: Option<f64>,
    /// `Tflop/s` or `GB/s`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub unit: Option<String>,
}

/// One transfer against its link.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TransferReport {
    /// What moves: `data-forward`, `data-backward`, `data-exposed`,
    /// `pipeline`, `tensor`, `cpu-gpu`, `pcie-shared`.
    pub kind: String,
    /// The link's key.
    pub link: String,
    /// The equation of the intensity.
    pub equation: String,
    /// Arithmetic intensity, flop/B.
    pub intensity: f64,
    /// The link's threshold, flop/B.
    pub threshold: f64,
    /// Overlapped with compute.
    pub overlapped: bool,
    /// Overlapped and fully hidden.
    pub hidden: bool,
    /// Its overhead relative to the step's compute.
    pub overhead: f64,
}

/// `plan3d evaluate`: everything about one configuration.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EvaluationReport {
    /// The method.
    pub method: String,
    /// Batch b, sequences.
    pub batch: u64,
    /// Micro-batch size b_µ, sequences.
    pub micro_batch: u32,
    /// Micro-batches n_µ.
    pub micro_batches: u32,
    /// Data-parallel degree n_b.
    pub data: u32,
    /// Pipeline-parallel degree n_l.
    pub pipe: u32,
    /// Tensor-parallel degree n_a.
    pub tensor: u32,
    /// GPUs n_gpu.
    pub gpus: u64,
    /// State and checkpoints offloaded to CPU memory.
    pub offload: bool,
    /// Critical batch b_c, sequences (eq. 2).
    pub critical_batch: f64,
    /// Fraction of peak reached, kernel efficiency included.
    pub efficiency: f64,
    /// Model flops utilisation: 6 flop per token and parameter over peak.
    pub mfu: f64,
    /// Hardware flops utilisation: every flop computed over peak (the
    /// efficiency).
    pub hfu: f64,
    /// Training time, days.
    pub days: f64,
    /// Training steps.
    pub steps: f64,
    /// Work of the run, flop.
    pub total_flops: f64,
    /// What stays on the GPU fits in its memory.
    pub fits: bool,
    /// The GPU's memory, bytes.
    pub gpu_memory_bytes: f64,
    /// Overheads.
    pub overheads: OverheadsReport,
    /// Memory per GPU.
    pub memory: MemoryReport,
    /// Every transfer.
    pub transfers: Vec<TransferReport>,
    /// `paper` or `practice`.
    pub assumptions: String,
    /// Virtual stages per pipeline device.
    pub virtual_stages: u32,
    /// Sequence parallelism.
    pub sequence_parallel: bool,
    /// ZeRO stage: `0`, `1`, `2`, `3`, `3-step` (the paper's partitioned
    /// methods are `3`).
    pub zero: String,
    /// Recomputation: `paper`, `full`, `selective`, `none` (the activation
    /// model).
    pub recompute: String,
    /// Pipeline schedule: `1f1b` (interleaved with virtual stages) or
    /// `gpipe`; the layered methods run the modular pipeline.
    pub pipeline_schedule: String,
    /// ZeRO-R checkpoints: `none`, `pa`, `pa-cpu`.
    pub zero_r: String,
    /// The layers' GEMMs: `bf16` or `fp8`.
    pub precision: String,
    /// The loss over the vocabulary the last stage's logits memory is
    /// counted for: `vocab-parallel`, `eager`, `fused-linear` or `logits`
    /// (the paper's fp32 logits).
    #[cfg_attr(feature = "serde", serde(default))]
    pub cross_entropy: String,
    /// The attention kernel timed: `cudnn` (cuDNN's fused attention,
    /// FlashAttention-3's class), `fa2` (FlashAttention-2) or
    /// `materialized` (the scores stored: the paper, Megatron-LM 2021–22).
    #[cfg_attr(feature = "serde", serde(default))]
    pub attention: String,
    /// Layers of each pipeline chunk fully recomputed (0: all, with full
    /// recomputation).
    #[cfg_attr(feature = "serde", serde(default))]
    pub recompute_layers: u32,
    /// Layers of each pipeline chunk whose activations are kept in CPU
    /// memory.
    #[cfg_attr(feature = "serde", serde(default))]
    pub offload_layers: u32,
    /// What selective recomputation recomputes (Megatron-Core's
    /// `--recompute-modules`), comma-separated; empty without it.
    #[cfg_attr(feature = "serde", serde(default))]
    pub recompute_modules: String,
    /// The framework whose memory was counted (practice; empty under
    /// paper).
    #[cfg_attr(feature = "serde", serde(default))]
    pub framework: String,
    /// Context-parallel degree (1: none).
    pub context_parallel: u32,
    /// Expert-parallel degree (1: none).
    pub expert_parallel: u32,
    /// The routed experts' tensor-parallel degree (Megatron-Core's
    /// `--expert-tensor-parallel-size`; the tensor degree unless set).
    #[cfg_attr(feature = "serde", serde(default))]
    pub expert_tensor_parallel: u32,
    /// The embedding's work in layers in the pipeline split (practice; 0:
    /// none).
    #[cfg_attr(feature = "serde", serde(default))]
    pub embedding_layers: u32,
    /// The head's work in layers in the pipeline split: the last stage
    /// holds this many layers fewer than an even split of layers and head
    /// gives it (practice; 0: layers split evenly).
    #[cfg_attr(feature = "serde", serde(default))]
    pub head_layers: u32,
    /// One step, seconds.
    pub step_seconds: f64,
    /// Tokens per second.
    pub tokens_per_second: f64,
    /// Training tokens of the run.
    pub tokens: f64,
    /// Model flops of a step (the MFU count; practice: every GEMM, 3 ×
    /// forward; paper: 6 per token and parameter).
    pub model_flops_per_step: f64,
    /// Every flop of a step, recomputation included (the HFU count).
    pub hardware_flops_per_step: f64,
    /// Model Tflop/s per GPU (the MFU count).
    pub tflops_per_gpu: f64,
    /// (Practice) the step's time in parts.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub step: Option<StepReport>,
    /// (Practice) where the step goes, by kernel class; the seconds sum
    /// to `step_seconds`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub kernels: Vec<KernelClassReport>,
    /// (A calibration profile in use) what it set in the kernel model.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub profile: Option<super::profile_report::ProfileReport>,
    /// (A calibration profile in use) the same request on the GPU
    /// preset's curves, beside: for `plan`, the plan the preset finds.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub preset: Option<super::profile_report::PresetReport>,
}

impl EvaluationReport {
    /// The report of an evaluation on `hw`.
    #[must_use]
    pub fn new(e: &Evaluation, hw: &Hardware) -> Self {
        let (c, m, o) = (&e.config, &e.memory, &e.overheads);
        Self {
            method: c.method.name().to_string(),
            batch: e.batch,
            micro_batch: c.micro_batch,
            micro_batches: c.micro_batches,
            data: c.data,
            pipe: c.pipe,
            tensor: c.tensor,
            gpus: e.gpus,
            offload: c.offload,
            critical_batch: e.critical_batch,
            efficiency: e.efficiency,
            mfu: e.mfu(),
            hfu: e.hfu(),
            days: e.time.days(),
            steps: e.steps,
            total_flops: e.total_flops.get(),
            fits: e.fits,
            gpu_memory_bytes: hw.gpu.memory.get(),
            overheads: OverheadsReport {
                bubble: o.bubble,
                tensor: o.tensor,
                data: o.data,
                pipeline: o.pipeline,
                offload: o.offload,
                imbalance: o.imbalance,
            },
            memory: MemoryReport {
                state: m.state.get(),
                checkpoints: m.checkpoints.get(),
                buffers: m.buffers.get(),
                activations: m.activations.get(),
                offloadable: m.offloadable().get(),
                non_offloadable: m.non_offloadable().get(),
                total: m.total().get(),
                on_gpu: m.on_gpu(c.offload).get(),
                peak_bytes: e.peak_memory.get(),
                margin_bytes: hw.gpu.memory.get() - e.peak_memory.get(),
                dominant: dominant(e),
                stages: e
                    .stages
                    .iter()
                    .map(|s| StageReport {
                        stage: s.stage,
                        layers: s.layers,
                        weights: s.weights.get(),
                        gradients: s.gradients.get(),
                        optimizer: s.optimizer.get(),
                        activations: s.activations.get(),
                        working: s.working.get(),
                        logits: s.logits.get(),
                        reserve: s.reserve.get(),
                        fragmentation: s.fragmentation.get(),
                        in_flight: s.in_flight,
                        total: s.total().get(),
                        host: s.host.get(),
                    })
                    .collect(),
            },
            transfers: e
                .transfers
                .iter()
                .map(|t| TransferReport {
                    kind: t.kind.key().to_string(),
                    link: t.link.key().to_string(),
                    equation: t.equation.to_string(),
                    intensity: t.intensity.get(),
                    threshold: t.threshold.get(),
                    overlapped: t.overlapped,
                    hidden: t.hidden(),
                    overhead: t.overhead,
                })
                .collect(),
            assumptions: e.assumptions.name().to_string(),
            virtual_stages: c.virtual_stages,
            sequence_parallel: c.sequence_parallel,
            zero: crate::cost::step::zero_of(c).name().to_string(),
            recompute: c.activation.name().to_string(),
            pipeline_schedule: c.pipeline_schedule.name().to_string(),
            zero_r: c.zero_r.name().to_string(),
            precision: e.compute.name().to_string(),
            cross_entropy: e.cross_entropy.name().to_string(),
            attention: e
                .attention
                .map_or("materialized", crate::cost::kernels::AttentionKernel::name)
                .to_string(),
            recompute_layers: c.recompute_layers,
            offload_layers: c.offload_layers,
            recompute_modules: if c.activation == crate::memory::ActivationModel::Selective {
                c.recompute_modules.names()
            } else {
                String::new()
            },
            framework: if e.assumptions == crate::cost::assumptions::AssumptionSet::Practice {
                e.framework.name().to_string()
            } else {
                String::new()
            },
            context_parallel: c.context,
            expert_parallel: c.expert,
            expert_tensor_parallel: c.expert_tensor_degree(),
            embedding_layers: c.embedding_layers,
            head_layers: c.head_layers,
            step_seconds: e.step.get(),
            tokens_per_second: e.tokens_per_second,
            tokens: e.tokens,
            model_flops_per_step: e.model_flops_per_step.get(),
            hardware_flops_per_step: e.hardware_flops_per_step.get(),
            tflops_per_gpu: e.tflops_per_gpu(),
            step: e.step_parts.map(|p| StepReport {
                compute: p.compute,
                elementwise: p.elementwise,
                launch: p.launch,
                tensor: p.tensor,
                pipeline: p.pipeline,
                bubble: p.bubble,
                data: p.data,
                optimizer: p.optimizer,
                offload: p.offload,
                context: p.context,
                expert: p.expert,
                all_to_all_bytes: p.all_to_all_bytes,
                context_ring_bytes: p.context_ring_bytes,
            }),
            kernels: e.step_parts.map_or_else(Vec::new, |p| {
                p.classes()
                    .iter()
                    .map(|k| KernelClassReport {
                        class: k.class.to_string(),
                        seconds: k.seconds,
                        share: k.share,
                        achieved: k.achieved,
                        unit: k.unit.map(ToString::to_string),
                    })
                    .collect()
            }),
            profile: None,
            preset: None,
        }
    }
}

/// A configuration on the Pareto front.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParetoPoint {
    /// The method.
    pub method: String,
    /// GPUs.
    pub gpus: u64,
    /// Training time, days.
    pub days: f64,
    /// Efficiency.
    pub efficiency: f64,
    /// Memory that stays on the GPU, bytes.
    pub memory_bytes: f64,
    /// Data-parallel degree.
    pub data: u32,
    /// Pipeline-parallel degree.
    pub pipe: u32,
    /// Tensor-parallel degree.
    pub tensor: u32,
    /// Micro-batch size.
    pub micro_batch: u32,
    /// Micro-batches.
    pub micro_batches: u32,
    /// Offloaded.
    pub offload: bool,
}

impl From<&Evaluation> for ParetoPoint {
    fn from(e: &Evaluation) -> Self {
        let c = &e.config;
        Self {
            method: c.method.name().to_string(),
            gpus: e.gpus,
            days: e.time.days(),
            efficiency: e.efficiency,
            memory_bytes: e.memory.on_gpu(c.offload).get(),
            data: c.data,
            pipe: c.pipe,
            tensor: c.tensor,
            micro_batch: c.micro_batch,
            micro_batches: c.micro_batches,
            offload: c.offload,
        }
    }
}

/// The rules' plan against the exhaustive optimum.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RulesReport {
    /// The rules' method.
    pub method: String,
    /// GPUs.
    pub gpus: u64,
    /// Training time, days.
    pub days: f64,
    /// Efficiency.
    pub efficiency: f64,
    /// Rules' time over the optimum's.
    pub slowdown: f64,
    /// Rules' GPUs over the optimum's.
    pub gpu_ratio: f64,
    /// The rules reach the optimum in the search's objective.
    pub optimal: bool,
}

/// `plan3d plan`: a plan, why, and (exhaustive) the front and the rules.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlanReport {
    /// The plan's evaluation.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub evaluation: EvaluationReport,
    /// The parallelism setting.
    pub parallelism: String,
    /// `rules` or `exhaustive`.
    pub search: String,
    /// Each constraint that sets a value, with its equation.
    pub binding: Vec<String>,
    /// (Exhaustive) configurations evaluated.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub evaluated: Option<u64>,
    /// (Exhaustive) the front over time, GPUs and memory, fastest first.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub pareto: Option<Vec<ParetoPoint>>,
    /// (Exhaustive) the rules' plan for the same method.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub rules: Option<RulesReport>,
}

impl PlanReport {
    /// The report of a plan found by `search` (`rules` or `exhaustive`).
    #[must_use]
    pub fn new(p: &Plan, hw: &Hardware, search: &str) -> Self {
        Self {
            evaluation: EvaluationReport::new(&p.evaluation, hw),
            parallelism: p.parallelism.name().to_string(),
            search: search.to_string(),
            binding: p.binding.iter().map(ToString::to_string).collect(),
            evaluated: None,
            pareto: None,
            rules: None,
        }
    }

    /// The report of an exhaustive search, with its front and the rules'
    /// plan where the rules have one.
    #[must_use]
    pub fn exhaustive(
        r: &SearchResult,
        hw: &Hardware,
        front: &[Evaluation],
        rules: Option<RulesReport>,
    ) -> Self {
        Self {
            evaluated: Some(r.evaluated),
            pareto: Some(front.iter().map(ParetoPoint::from).collect()),
            rules,
            ..Self::new(&r.best, hw, "exhaustive")
        }
    }
}

/// One row of a size sweep; the plan's fields are null where a size has
/// no plan, and `error` says why.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SweepRowReport {
    /// The X\[x\] model (0 for other scalings).
    pub x: u32,
    /// Parameters.
    pub params: f64,
    /// Layers.
    pub layers: u32,
    /// Width.
    pub d_model: u64,
    /// GPUs.
    pub gpus: Option<u64>,
    /// Training time, days.
    pub days: Option<f64>,
    /// Efficiency.
    pub efficiency: Option<f64>,
    /// Offloaded.
    pub offload: Option<bool>,
    /// Offloadable memory per GPU, bytes.
    pub offloadable: Option<f64>,
    /// Non-offloadable memory per GPU, bytes.
    pub non_offloadable: Option<f64>,
    /// Data-parallel degree.
    pub data: Option<u32>,
    /// Pipeline-parallel degree.
    pub pipe: Option<u32>,
    /// Tensor-parallel degree.
    pub tensor: Option<u32>,
    /// Batch, sequences.
    pub batch: Option<u64>,
    /// Micro-batch size.
    pub micro_batch: Option<u32>,
    /// Micro-batches.
    pub micro_batches: Option<u32>,
    /// Why this size has no plan.
    pub error: Option<String>,
}

impl From<&SweepRow> for SweepRowReport {
    fn from(r: &SweepRow) -> Self {
        let e = r.plan.as_ref().ok().map(|p| &p.evaluation);
        let c = e.map(|e| &e.config);
        Self {
            x: r.x,
            params: r.params,
            layers: r.model.layers,
            d_model: r.model.width(),
            gpus: e.map(|e| e.gpus),
            days: e.map(|e| e.time.days()),
            efficiency: e.map(|e| e.efficiency),
            offload: c.map(|c| c.offload),
            offloadable: e.map(|e| e.memory.offloadable().get()),
            non_offloadable: e.map(|e| e.memory.non_offloadable().get()),
            data: c.map(|c| c.data),
            pipe: c.map(|c| c.pipe),
            tensor: c.map(|c| c.tensor),
            batch: e.map(|e| e.batch),
            micro_batch: c.map(|c| c.micro_batch),
            micro_batches: c.map(|c| c.micro_batches),
            error: r.plan.as_ref().err().map(ToString::to_string),
        }
    }
}

/// One event of a simulated schedule.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EventReport {
    /// Device (pipeline stage).
    pub device: u32,
    /// `compute`, `network`, `pipeline` or `cpu-gpu`.
    pub stream: String,
    /// `forward`, `backward`, `restore`, `reduce`, `send`, `offload`,
    /// `reload` or `optimizer`.
    pub kind: String,
    /// First layer.
    pub layer: u32,
    /// Layers.
    pub layers: u32,
    /// Micro-batch, or null.
    pub micro_batch: Option<u32>,
    /// Start, in the schedule's unit.
    pub start: f64,
    /// End, in the schedule's unit.
    pub end: f64,
}

impl From<&Event> for EventReport {
    fn from(e: &Event) -> Self {
        Self {
            device: e.device,
            stream: e.stream.name().to_string(),
            kind: e.kind.name().to_string(),
            layer: e.layer,
            layers: e.layers,
            micro_batch: e.micro_batch,
            start: e.start,
            end: e.end,
        }
    }
}

/// `plan3d schedule`: a simulated training step.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScheduleReport {
    /// The kind.
    pub kind: String,
    /// Pipeline devices.
    pub devices: u32,
    /// Layers.
    pub layers: u32,
    /// Micro-batches.
    pub micro_batches: u32,
    /// Virtual stages per device.
    pub chunks: u32,
    /// Data-parallel degree.
    pub data: u32,
    /// State partitioned.
    pub partition: bool,
    /// State offloaded.
    pub offload: bool,
    /// `unit` or `s`: the unit of every duration.
    pub unit: String,
    /// End of the last event.
    pub makespan: f64,
    /// Compute span over the busiest device's compute, minus 1.
    pub bubble_fraction: f64,
    /// Makespan minus the makespan with free transfers.
    pub exposed_communication: f64,
    /// Per device, compute busy time over the makespan.
    pub utilisation: Vec<f64>,
    /// Per device, most micro-batches in flight.
    pub in_flight: Vec<u32>,
    /// Per device, peak memory (bytes, or units in unit mode).
    pub memory_peak_bytes: Vec<f64>,
    /// Every event.
    pub events: Vec<EventReport>,
}

/// `plan3d evaluate --timeline json`: a configuration's step as the page
/// animates it, and what of the plan it shows.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimelineReport {
    /// The simulated step ([`ScheduleReport`]'s fields).
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub schedule: ScheduleReport,
    /// Pipeline devices simulated (fewer than the plan's when scaled down).
    pub shown_devices: u32,
    /// The plan's pipeline devices.
    pub plan_devices: u32,
    /// Micro-batches simulated.
    pub shown_micro_batches: u32,
    /// The plan's micro-batches.
    pub plan_micro_batches: u32,
    /// The evaluator's step for the plan, seconds (the simulation overlaps
    /// sends and data-parallel traffic its own way).
    pub estimated_step_seconds: f64,
}

impl From<&Schedule> for ScheduleReport {
    fn from(s: &Schedule) -> Self {
        let spec = &s.spec;
        Self {
            kind: spec.kind.name().to_string(),
            devices: spec.devices,
            layers: spec.layers,
            micro_batches: spec.micro_batches,
            chunks: spec.chunks,
            data: spec.data,
            partition: spec.partition,
            offload: spec.offload,
            unit: spec.durations.unit.to_string(),
            makespan: s.makespan,
            bubble_fraction: s.bubble_fraction,
            exposed_communication: s.exposed_communication,
            utilisation: s.utilisation.clone(),
            in_flight: s.in_flight.clone(),
            memory_peak_bytes: s.memory_peak.clone(),
            events: s.events.iter().map(EventReport::from).collect(),
        }
    }
}

/// `plan3d zero`: model-state memory per device under ZeRO.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ZeroReport {
    /// Parameters, bytes per device.
    pub params_bytes: f64,
    /// Gradients, bytes per device.
    pub grads_bytes: f64,
    /// Optimizer state, bytes per device.
    pub optimizer_bytes: f64,
    /// All three.
    pub total_bytes: f64,
    /// Communication per step, parameters.
    pub comm_volume_elements: f64,
}

/// `plan3d estimate`: training time from tokens and throughput.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EstimateReport {
    /// Seconds.
    pub seconds: f64,
    /// Days.
    pub days: f64,
}

/// Hours lost over the run.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LostHoursReport {
    /// Waiting for checkpoints.
    pub checkpoints: f64,
    /// Work since the last checkpoint, redone after interruptions.
    pub recompute: f64,
    /// Restarting after interruptions.
    pub restarts: f64,
}

/// One phase of the batch ramp.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PhaseReport {
    /// Tokens trained when it starts.
    pub start_tokens: f64,
    /// Tokens it trains.
    pub tokens: f64,
    /// Global batch, tokens.
    pub batch_tokens: f64,
    /// Micro-batches per step and data-parallel rank.
    pub micro_batches: u32,
    /// One step, seconds.
    pub step_seconds: f64,
    /// Steps.
    pub steps: f64,
    /// Ideal days.
    pub days: f64,
}

/// `plan3d run`: the plan, and its whole run.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunReport {
    /// The plan (`plan`'s fields).
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub plan: PlanReport,
    /// Days of training with nothing lost.
    pub ideal_days: f64,
    /// Wall-clock days: checkpoints, interruptions and restarts included.
    pub wall_days: f64,
    /// Ideal over wall time (the effective training-time fraction).
    pub goodput: f64,
    /// GPU-hours of the wall time.
    pub gpu_hours: f64,
    /// Nodes.
    pub nodes: u64,
    /// Steps of the run.
    pub run_steps: f64,
    /// Bytes of one checkpoint.
    pub checkpoint_bytes: f64,
    /// Seconds the run waits for one checkpoint.
    pub checkpoint_seconds: f64,
    /// Steps between checkpoints (Young–Daly).
    pub checkpoint_interval_steps: f64,
    /// Mean time between interruptions of the cluster, hours.
    pub mtbi_hours: f64,
    /// Expected interruptions.
    pub expected_interruptions: f64,
    /// Hours lost.
    pub lost_hours: LostHoursReport,
    /// US dollars.
    pub cost: f64,
    /// The price used, US dollars per GPU-hour.
    pub price_per_gpu_hour: f64,
    /// Energy at the wall plug, MWh.
    pub energy_mwh: f64,
    /// Tonnes of CO₂ (when a grid intensity is given).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub co2_tonnes: Option<f64>,
    /// The phases of the batch ramp (one without a ramp).
    pub phases: Vec<PhaseReport>,
    /// Corrections made to the inputs, in words.
    pub notes: Vec<String>,
}

impl RunReport {
    /// The report of `run` for the plan `plan`.
    #[must_use]
    pub fn new(plan: PlanReport, r: &crate::run::Run) -> Self {
        let h = |s: f64| s / 3600.0;
        Self {
            plan,
            ideal_days: r.ideal_days(),
            wall_days: r.wall_days(),
            goodput: r.goodput,
            gpu_hours: r.gpu_hours,
            nodes: r.nodes,
            run_steps: r.steps,
            checkpoint_bytes: r.checkpoint_bytes,
            checkpoint_seconds: r.checkpoint_seconds,
            checkpoint_interval_steps: r.checkpoint_interval_steps,
            mtbi_hours: h(r.mtbi_seconds),
            expected_interruptions: r.expected_interruptions,
            lost_hours: LostHoursReport {
                checkpoints: h(r.lost.checkpoints),
                recompute: h(r.lost.recompute),
                restarts: h(r.lost.restarts),
            },
            cost: r.cost,
            price_per_gpu_hour: r.price_per_gpu_hour,
            energy_mwh: r.energy_mwh,
            co2_tonnes: r.co2_tonnes,
            phases: r
                .phases
                .iter()
                .map(|p| PhaseReport {
                    start_tokens: p.start_tokens,
                    tokens: p.tokens,
                    batch_tokens: p.batch_tokens,
                    micro_batches: p.micro_batches,
                    step_seconds: p.step_seconds,
                    steps: p.steps,
                    days: p.seconds / 86_400.0,
                })
                .collect(),
            notes: r.notes.clone(),
        }
    }
}

/// The largest part of the heaviest device's memory, by name.
fn dominant(e: &crate::Evaluation) -> String {
    let parts: alloc::vec::Vec<(&str, f64)> =
        if e.assumptions == crate::cost::assumptions::AssumptionSet::Practice {
            e.stages
                .heaviest()
                .parts()
                .iter()
                .map(|(k, b)| (*k, b.0))
                .collect()
        } else {
            let m = &e.memory;
            alloc::vec![
                ("state", m.state.0),
                ("checkpoints", m.checkpoints.0),
                ("buffers", m.buffers.0),
                ("activations", m.activations.0),
            ]
        };
    parts
        .into_iter()
        .fold(
            ("", f64::NEG_INFINITY),
            |best, p| if p.1 > best.1 { p } else { best },
        )
        .0
        .into()
}
