//! One configuration evaluated: memory by stage, the step and where it
//! goes by kernel class, transfers (`plan3d evaluate`).

#[allow(clippy::wildcard_imports)]
use super::*;

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
    /// Interleaved 1F1B: the micro-batches each virtual stage takes in a
    /// row (Megatron-Core's `microbatch_group_size_per_vp_stage`); 0 without
    /// interleaving.
    #[cfg_attr(feature = "serde", serde(default))]
    pub microbatch_group: u32,
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
    /// The layers timed compiled (`torch.compile`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub compile: bool,
    /// PyTorch's allocator with `expandable_segments:True`; false: its
    /// default caching allocator, whose fragmentation the reserve holds one
    /// more fp32 logits block for (`--expandable-segments`,
    /// `--default-allocator`).
    #[cfg_attr(feature = "serde", serde(default = "crate::api::report::yes"))]
    pub expandable_segments: bool,
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
    /// The modules whose saved tensors are offloaded to CPU memory
    /// (Megatron-Core's `--offload-modules`), comma-separated; absent
    /// without them.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "String::is_empty")
    )]
    pub offload_modules: String,
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
    pub profile: Option<crate::api::profile_report::ProfileReport>,
    /// (A calibration profile in use) the same request on the GPU
    /// preset's curves, beside: for `plan`, the plan the preset finds.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub preset: Option<crate::api::profile_report::PresetReport>,
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
            microbatch_group: crate::cost::step::microbatch_group(c),
            sequence_parallel: c.sequence_parallel,
            zero: crate::cost::step::zero_of(c).name().to_string(),
            recompute: c.activation.name().to_string(),
            pipeline_schedule: c.pipeline_schedule.name().to_string(),
            zero_r: c.zero_r.name().to_string(),
            precision: e.knobs.compute.name().to_string(),
            cross_entropy: e.knobs.cross_entropy.name().to_string(),
            attention: e
                .attention()
                .map_or("materialized", crate::cost::kernels::AttentionKernel::name)
                .to_string(),
            compile: e.knobs.compiled,
            expandable_segments: e.knobs.expandable_segments,
            recompute_layers: c.recompute_layers,
            offload_layers: c.offload_layers,
            recompute_modules: if c.activation == crate::memory::ActivationModel::Selective {
                c.recompute_modules.names()
            } else {
                String::new()
            },
            offload_modules: c.offload_modules.names(),
            framework: if e.assumptions == crate::cost::assumptions::AssumptionSet::Practice {
                e.knobs.framework.name().to_string()
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
