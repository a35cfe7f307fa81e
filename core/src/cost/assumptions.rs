//! The knobs of the cost model and their two named settings, **paper**
//! (Lamy-Poirier 2021, every table reproduced exactly) and **practice**
//! (how Megatron-Core, NeMo and torchtitan train dense transformers today,
//! validated on `../shared/calibration/real_runs.json`).
//!
//! One evaluator reads these knobs ([`crate::cost::evaluate_with`]); the two
//! settings are values of [`Assumptions`], not two code paths, and a caller
//! may set them one by one (the practice timing with an 8-bit optimizer, say).

pub use super::sharding::Zero;
use crate::hardware::Gpu;
use crate::units::Bytes;

/// The named settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AssumptionSet {
    /// Lamy-Poirier 2021 as printed.
    #[default]
    Paper,
    /// Today's practice (Megatron-Core, NeMo, torchtitan).
    Practice,
}

impl AssumptionSet {
    /// Both, for menus.
    pub const ALL: [Self; 2] = [Self::Paper, Self::Practice];

    /// Stable name (CLI `--assumptions`, URL key `assume`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::Practice => "practice",
        }
    }

    /// Parses [`Self::name`], case-insensitive.
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, crate::Error> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(crate::Error::Unknown {
                what: "assumptions",
            })
    }

    /// The knobs of this setting.
    #[must_use]
    pub fn knobs(self) -> Assumptions {
        match self {
            Self::Paper => Assumptions::PAPER,
            Self::Practice => Assumptions::PRACTICE,
        }
    }
}

/// What a step computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkCount {
    /// The weight matrices only, 2 flop per token and parameter and pass
    /// (C.1; the paper's count).
    WeightMatrices,
    /// Every GEMM: the weight matrices, the attention scores and values
    /// (4·d_s·d_m per token and layer in the forward pass) and the logit
    /// layer (2·V·d_m per token), as PTD-P eq. 3 and NeMo count them.
    AllGemms,
}

/// How fast the kernels run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KernelModel {
    /// One fraction of peak for everything: [`crate::Hardware::kernel_efficiency`]
    /// (the paper ignores kernel efficiency: 1).
    Flat,
    /// The measured model of [`KernelFit`]: GEMMs at a fitted fraction of
    /// the GPU's peak, plus the memory-bound element-wise work
    /// (normalisations, activations, dropout, softmax) moving a fitted
    /// multiple of the activation bytes at the GPU's memory bandwidth.
    Measured,
    /// Given figures (your own cluster's, or a fit's candidate).
    Given(KernelFit),
}

/// How the time of a step is composed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Timing {
    /// The paper's: overheads relative to compute from arithmetic
    /// intensities against each link's threshold (eq. 3), composed as
    /// Π 1/(1+o) (MODEL_NOTES fact 7).
    Intensity,
    /// Seconds: the heaviest pipeline stage's micro-batch time (compute,
    /// element-wise traffic, tensor-parallel collectives, pipeline sends)
    /// times the schedule's slots, plus what the data-parallel traffic and
    /// the optimizer leave exposed ([`crate::cost::step`]).
    Seconds,
}

/// The bytes of training state per parameter: weights, gradients,
/// optimizer (master weights and moments), after the transformer-math
/// notes (seed 003, "Model Parameters", "Optimizer States", "Gradients").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    /// The paper's 12 bytes of fp32 weights and Adam moments (C.3), its
    /// half-precision copies counted in the buffers instead.
    #[default]
    Paper,
    /// Mixed-precision Adam as Megatron keeps it: bf16 weights (2), fp32
    /// gradients (4, Megatron's `main_grad`), fp32 master weights and two
    /// moments (12): 18 bytes.
    MixedAdam,
    /// Pure fp32 Adam: weights 4, gradients 4, moments 8: 16 bytes.
    Fp32Adam,
    /// An 8-bit optimizer (bitsandbytes Adam): bf16 weights (2) and
    /// gradients (2), fp32 master copy (4) and two 1-byte moments: 10 bytes.
    Adam8Bit,
    /// SGD with momentum in mixed precision: bf16 weights (2), fp32
    /// gradients (4), fp32 master weights and momentum (8): 14 bytes.
    SgdMomentum,
}

impl Precision {
    /// Every choice, for menus.
    pub const ALL: [Self; 5] = [
        Self::Paper,
        Self::MixedAdam,
        Self::Fp32Adam,
        Self::Adam8Bit,
        Self::SgdMomentum,
    ];

    /// Bytes per parameter as (weights, gradients, optimizer).
    #[must_use]
    pub fn bytes(self) -> (f64, f64, f64) {
        match self {
            Self::Paper => (0.0, 0.0, 12.0),
            Self::MixedAdam => (2.0, 4.0, 12.0),
            Self::Fp32Adam => (4.0, 4.0, 8.0),
            Self::Adam8Bit => (2.0, 2.0, 6.0),
            Self::SgdMomentum => (2.0, 4.0, 8.0),
        }
    }

    /// Total bytes per parameter.
    #[must_use]
    pub fn total(self) -> f64 {
        let (w, g, o) = self.bytes();
        w + g + o
    }

    /// Bytes the optimizer step reads and writes per parameter: it reads
    /// the gradient and the optimizer state, writes the state back and the
    /// half-precision weights (memory-bound).
    #[must_use]
    pub fn optimizer_traffic(self) -> f64 {
        let (w, g, o) = self.bytes();
        match self {
            // The fp32 weights are the master copy: read and written
            // (fused AdamW: p, g, m, v read, p, m, v written, 28 bytes).
            Self::Fp32Adam => g + 2.0 * (o + w),
            _ => g + 2.0 * o + w,
        }
    }

    /// Stable name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::MixedAdam => "mixed-adam",
            Self::Fp32Adam => "fp32-adam",
            Self::Adam8Bit => "adam-8bit",
            Self::SgdMomentum => "sgd-momentum",
        }
    }

    /// Parses [`Self::name`].
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, crate::Error> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(crate::Error::Unknown { what: "precision" })
    }
}

/// The fitted kernel model of one GPU ([`KernelModel::Measured`]).
///
/// # How it was fitted (and on what)
///
/// On `../shared/calibration/real_runs.json` and nothing else, by least
/// squares on the relative step-time error (the published TFLOP/s turned
/// into seconds with each source's own flop formula):
///
/// 1. `elementwise_traffic` and the A100's `gemm_efficiency` on the ten
///    PTD-P Table 1 runs (1.7B–1T, A100): two parameters, ten runs;
/// 2. the H100's `gemm_efficiency` on the two DGX Cloud GPT-3 175B runs,
///    the traffic factor held. Both runs share one shape, so this is one
///    number, not a shape model: the H100 is validated at one shape only.
///
/// `core/tests/calibration.rs` checks that these constants are that
/// optimum (a grid search around them finds nothing better) and prints
/// every run's error. The H200 shares the H100's compute die and takes its
/// figure; the B200 has no published run in the set and takes the H100's
/// figure too, which plan3d states as unvalidated.
///
/// The GB200 and GB300 are the B200's and B300's dies rated at a higher
/// power (1 200 and 1 400 W): their spec peak (2.5 Pflop/s dense BF16, 10 %
/// over the HGX parts') is a boost clock that a training step's sustained
/// load does not hold, so they take the HGX part's sustained GEMM rate:
/// `gemm_efficiency` × 2.25/2.5. Checked, not fitted, on torchtitan's
/// NVFP4 document (`calibration/published/torchtitan.json`,
/// `tt_nvfp4_doc`), whose BF16 rows ran on GPUs reporting 184 GiB (a
/// GB200's): Llama 3 8B and Qwen3 8B on four, compiled, per-op
/// checkpointing, +11 % and +14 % at the GB200's spec peak, +1 % and +4 %
/// at this rate (`core/tests/frameworks/`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelFit {
    /// Fraction of the dense peak the GEMMs reach.
    pub gemm_efficiency: f64,
    /// Bytes the element-wise kernels move (read + write) per byte of
    /// activations a layer stores without recomputation (Korthikanti's
    /// count), in each pass. The mechanism that makes small widths slow:
    /// this traffic grows as d_m while the GEMMs grow as d_m².
    pub elementwise_traffic: f64,
    /// Was this GPU in the calibration set?
    pub validated: bool,
}

/// A GB200's or GB300's sustained GEMM rate against its spec peak: the
/// HGX part's peak over its own, 2.25/2.5 (see [`KernelFit`]).
pub const GB_SUSTAINED: f64 = 2.25 / 2.5;

/// The 500 W H100's sustained clock against the 700 W part's under a
/// step's load ([`crate::hardware::H100_500W`]): its GEMMs and attention
/// run at 0.88 × 0.895 = 0.79 of the isolated kernels' rate.
///
/// Fitted, one number, on torchtitan's published H100 benchmark
/// (`benchmarks/llama3_h100_202412_torchtitan.md`,
/// `calibration/published/torchtitan.json`): the least-squares optimum of
/// the log throughput ratio over its four 1D FSDP compiled rows (Llama
/// 3.1 8B on 8 and 128 GPUs, BF16 and float8, with the keys and values
/// their code repeated before SDPA: 0.89 without), whose steps are the
/// kernels' with little communication. A power law gives the same
/// figure within 3 %: a dynamic power ∝ f³ over ~120 W of static power
/// and memory, (380/580)^(1/3) = 0.87. The other 25 rows of that benchmark
/// are out of the fit (`core/tests/frameworks/`,
/// `torchtitan_published_throughput`).
pub const H100_500W_SUSTAINED: f64 = 0.895;

/// Element-wise traffic per stored activation byte (fitted, see [`KernelFit`]).
pub const ELEMENTWISE_TRAFFIC: f64 = 2.40;

pub use super::context::ContextExchange;
pub use super::cross_entropy::CrossEntropy;
pub use super::formats::{format_refusal, fp8_peak, mx_native, Compute, NO_FP8, NO_MXFP8};

/// Extra bytes per linear-layer parameter that FP8 training keeps: the
/// weights cast to FP8 and their transpose (Transformer Engine caches both
/// for the forward and the backward GEMMs on Hopper).
pub const FP8_WEIGHT_CACHE_BYTES: f64 = 2.0;

/// Large collectives across nodes reach this fraction of the network
/// cards' line rate per direction (nccl-tests' all-reduce bus bandwidth
/// over several nodes against the node's cards' rate:
/// `calibration/published/nccl_tests.json`).
pub const NETWORK_EFFICIENCY: f64 = 0.83;

/// CPU seconds per dispatched operator in eager PyTorch: measured, not
/// fitted (`calibration/h200-2026-11-26/shapes.json`: 6.6 µs per tiny
/// in-place add launched from a Python loop, 7.1 µs when each allocates;
/// PyTorch 2.11). The operators a layer dispatches were counted on the CPU
/// with a `TorchDispatchMode` over `measure_steps.py`'s block
/// ([`crate::cost::step::layer_ops`]).
pub const OP_OVERHEAD: f64 = 30e-6;

/// The fitted kernel model of a GPU (see [`KernelFit`] for the fit).
#[must_use]
pub fn kernel_fit(gpu: &Gpu) -> KernelFit {
    let (gemm_efficiency, validated) = match gpu.name {
        "a100-80gb" | "a100-40gb" => (0.945, true),
        "h100-sxm" => (0.88, true),
        "h100-96gb-500w" => (0.88 * H100_500W_SUSTAINED, true),
        "gb200" | "gb300" => (0.88 * GB_SUSTAINED, false),
        _ => (0.88, false),
    };
    KernelFit {
        gemm_efficiency,
        elementwise_traffic: ELEMENTWISE_TRAFFIC,
        validated,
    }
}

/// The knobs of the cost model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Assumptions {
    /// Which named setting these knobs are (or started from).
    pub set: AssumptionSet,
    /// What a step computes.
    pub work: WorkCount,
    /// How fast the kernels run.
    pub kernel: KernelModel,
    /// The kernel curves of the user's own GPU, fitted on a calibration
    /// profile ([`crate::cost::profile`]); `None`: the GPU preset's
    /// ([`crate::cost::kernels::curves`]).
    pub curves: Option<crate::cost::kernels::Curves>,
    /// How a step's time is composed.
    pub timing: Timing,
    /// Bytes of training state per parameter.
    pub precision: Precision,
    /// FlashAttention: the attention scores are never stored (no d_s²
    /// activation memory or traffic); their flops are still counted.
    pub flash_attention: bool,
    /// Which flash kernel runs the attention (the framework's:
    /// [`crate::cost::framework::Framework::apply`]).
    pub attention_kernel: crate::cost::kernels::AttentionKernel,
    /// How the loss is computed: the last stage's logits memory.
    pub cross_entropy: CrossEntropy,
    /// The data-parallel gradient reduction runs in buckets during the
    /// backward pass (Megatron-Core `overlap_grad_reduce`, FSDP), and the
    /// distributed optimizer's parameter gather during the forward pass
    /// (`overlap_param_gather`): only what does not fit under that compute
    /// is exposed. Otherwise it runs after the backward pass.
    pub overlap_data: bool,
    /// The tensor-parallel collectives run under the GEMMs they feed
    /// (Transformer Engine's userbuffers, NeMo's `ub_tp_comm_overlap`,
    /// torchtitan's async TP): only what outlasts the layer's GEMMs is
    /// exposed. Otherwise they wait for each other (Megatron-LM 2021).
    pub overlap_tensor: bool,
    /// Bytes per element of the data-parallel gradient reduction (4:
    /// Megatron reduces its fp32 `main_grad` for bf16 training).
    pub gradient_reduce_bytes: f64,
    /// Achievable fraction of a link's data-sheet bandwidth per direction
    /// for large collectives (NCCL's bus bandwidth).
    pub bus_efficiency: f64,
    /// Achievable fraction of the network's per-direction bandwidth for
    /// large collectives across nodes (nccl-tests' bus bandwidth over the
    /// node's cards: [`crate::cost::collective`]).
    pub network_efficiency: f64,
    /// CPU seconds an eager framework spends dispatching one operator
    /// (Python, the dispatcher, the launch): a layer whose kernels take
    /// less than its operators' dispatch waits for the CPU (fitted,
    /// [`OP_OVERHEAD`]; 0 ignores it).
    pub op_overhead: f64,
    /// Memory kept back on every GPU outside the allocator's step: the
    /// CUDA context and NCCL's buffers (fragmentation is
    /// [`Self::fragmentation`]).
    pub reserve: Bytes,
    /// The run's token budget; `None`: see `tokens_per_param`.
    pub tokens: Option<f64>,
    /// Training tokens per parameter when no token budget is given;
    /// `None`: the paper's fixed work (10⁵ steps at the critical batch).
    pub tokens_per_param: Option<f64>,
    /// The number format of the layers' GEMMs (practice timing).
    pub compute: Compute,
    /// Mixture of experts: the busiest GPU's routed-expert work over the
    /// average (load imbalance of dropless routing; a capacity factor
    /// when tokens beyond it are dropped and the experts padded to it).
    pub expert_imbalance: f64,
    /// Mixture of experts: the expert-parallel all-to-alls overlapped with
    /// the computation of another micro-batch (DeepSeek-V3's DualPipe,
    /// Megatron-Core's `overlap_moe_expert_parallel_comm`); otherwise on
    /// the critical path (Megatron-Core's default 1F1B).
    pub overlap_expert: bool,
    /// The framework whose memory these knobs describe
    /// ([`crate::cost::framework::Framework::apply`]).
    pub framework: crate::cost::framework::Framework,
    /// The code a layer runs, so what autograd saves
    /// ([`crate::cost::saved`]).
    pub layer_code: crate::cost::saved::LayerCode,
    /// Dropout on the hidden states: its masks are kept.
    pub dropout: bool,
    /// Autocast's bf16 copies of fp32 weights, cast per op and saved for
    /// backward, live from a layer's forward to its backward (plain AMP).
    pub weight_casts: bool,
    /// Gradients exist only from the backward pass to the optimizer step
    /// (`zero_grad(set_to_none=True)`, FSDP's sharded gradients), so they
    /// grow as the activations are freed instead of adding to them;
    /// otherwise a persistent buffer holds them (Megatron's `main_grad`,
    /// DDP's buckets, DeepSpeed's partitions).
    pub frees_gradients: bool,
    /// The caching allocator's fragmentation, a share of what a step
    /// allocates and frees ([`crate::cost::framework::FRAGMENTATION`]).
    pub fragmentation: f64,
    /// With FP8 GEMMs, the layers' weights are kept in FP8 (1 byte and a
    /// cached transpose) instead of bf16 with FP8 copies beside them.
    pub fp8_params: bool,
    /// Selective recomputation is per op, as torchtitan's
    /// `activation_checkpoint.mode = "selective"` runs it
    /// ([`crate::cost::saved::op_sac_per_token`]), not Megatron's modules.
    pub op_selective: bool,
    /// With a pipeline, FSDP keeps each stage's weights gathered for the
    /// whole step and accumulates its gradients unsharded until the last
    /// micro-batch (torchtitan: `reshard_after_forward` off with PP, the
    /// schedule's `set_requires_gradient_sync(False)`).
    pub pipeline_gathers_step: bool,
    /// Tensor parallelism shards the sequence as dimension 1 of
    /// `[batch, sequence, hidden]` activations (PyTorch's DTensor plans;
    /// torchtitan until it folded the batch into the tokens in August
    /// 2026), so each sequence-parallel collective copies its tensor once
    /// more ([`crate::cost::step::layout_copy_bytes_per_token`]);
    /// otherwise activations are sequence-first or tokens-first
    /// (Megatron, torchtitan today) and gather in place.
    pub batch_first_layout: bool,
    /// Full recomputation stops early, as PyTorch's non-reentrant
    /// checkpoint does by default: the recomputed forward ends once every
    /// saved tensor is back, before the layer's down projection and, under
    /// tensor parallelism, its reduction
    /// ([`crate::cost::framework::Framework::checkpoint_early_stop`], JSON
    /// `checkpoint_early_stop`).
    pub checkpoint_early_stop: bool,
    /// How context parallelism exchanges keys and values
    /// ([`crate::cost::context::ContextExchange`]: Transformer Engine's
    /// ring, or PyTorch's all-gather hidden by the first block only; JSON
    /// `context_exchange`), set by the framework
    /// ([`crate::cost::framework::Framework::context_exchange`]).
    pub context_exchange: ContextExchange,
    /// The layer repeats the keys and values of grouped-query attention to
    /// the query heads before the attention kernel (torchtitan's
    /// `repeat_kv` until it passed `enable_gqa`, pytorch/torchtitan#2259 of
    /// January 2026): the kernel saves the repeated tensors where the layer
    /// is eager, the copies move them, and a context-parallel ring
    /// exchanges them (JSON `repeat_kv`; no preset sets it).
    pub repeat_kv: bool,
    /// The layer's RMSNorms run unfused, op by op in fp32 (Hugging Face's
    /// `LlamaRMSNorm`; torchtitan's before March 2025 and `nn.RMSNorm`
    /// before PyTorch 2.9): their extra kernels
    /// ([`crate::cost::saved::eager_extra_per_token`]) and what autograd
    /// keeps of them ([`crate::cost::saved::unfused_norm_saved`]), where
    /// the layer is not compiled and its norms are PyTorch code.
    pub unfused_norm: bool,
    /// The layers run compiled (`torch.compile`: torchtitan's
    /// `compile.enable`): eager code's extra element-wise kernels fused
    /// away ([`crate::cost::saved::eager_extra_per_token`]).
    pub compiled: bool,
    /// PyTorch's caching allocator grows segments in place
    /// (`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`, as torchtitan's
    /// `run_train.sh` sets it). Off, a freed segment is split for smaller
    /// tensors and a large transient can need a fresh one: the margin holds
    /// one more of the largest ([`crate::cost::framework::default_allocator_margin`]).
    pub expandable_segments: bool,
}

/// The practice default of [`Assumptions::expert_imbalance`]: 1.1, a
/// stated guess, not fitted (no mixture-of-experts run is in the
/// calibration set). Dropless routing with a load-balancing loss keeps the
/// busiest expert-parallel rank within ~10–20 % of the mean once training
/// has settled (Switch Transformer's capacity factors 1.0–1.25 pad the
/// same way; DeepSeek-V3's auxiliary-loss-free balancing aims lower).
pub const DEFAULT_EXPERT_IMBALANCE: f64 = 1.1;

impl Assumptions {
    /// [`Self::compiled`] as the cost model reads it: without the `knobs`
    /// feature (the page's build, which has no compile switch) false, so
    /// that what compiling changes stays out of the page's wasm.
    #[must_use]
    pub fn compiled_layers(&self) -> bool {
        cfg!(feature = "knobs") && self.compiled
    }

    /// Whether full recomputation ends before each layer's down
    /// projection: a checkpoint that stops early
    /// ([`Self::checkpoint_early_stop`]), or layers compiled with
    /// `torch.compile`, whose partitioner recomputes in the backward graph
    /// only what the backward reads (the down projection's output and its
    /// reduction are read by nothing but the residual add), whatever the
    /// checkpoint's `early_stop`.
    #[must_use]
    pub fn recompute_stops_early(&self) -> bool {
        self.checkpoint_early_stop || self.compiled_layers()
    }

    /// These knobs with the layers compiled by `torch.compile` (or not):
    /// eager code's extra kernels fused away
    /// ([`crate::cost::saved::eager_extra_per_token`]), a layer keeping
    /// what Inductor's partition saves
    /// ([`crate::cost::saved::compiled_saved`]), and an eager loss
    /// compiled with them ([`CrossEntropy::Compiled`]): torchtitan's
    /// `compile` has compiled its loss since pytorch/torchtitan#1033
    /// (April 2025), and a model whose forward computes its loss (Hugging
    /// Face's, plain scripts') is compiled whole.
    #[must_use]
    pub fn with_compiled(mut self, on: bool) -> Self {
        self.compiled = on;
        if on && self.cross_entropy == CrossEntropy::Eager {
            self.cross_entropy = CrossEntropy::Compiled;
        }
        self
    }

    /// The paper's knobs: every table of Lamy-Poirier 2021 exactly.
    pub const PAPER: Self = Self {
        set: AssumptionSet::Paper,
        work: WorkCount::WeightMatrices,
        kernel: KernelModel::Flat,
        curves: None,
        timing: Timing::Intensity,
        precision: Precision::Paper,
        flash_attention: false,
        attention_kernel: crate::cost::kernels::AttentionKernel::Cudnn,
        cross_entropy: CrossEntropy::Logits,
        overlap_data: false,
        overlap_tensor: false,
        gradient_reduce_bytes: 2.0,
        bus_efficiency: 1.0,
        network_efficiency: 1.0,
        op_overhead: 0.0,
        reserve: Bytes(0.0),
        tokens: None,
        tokens_per_param: None,
        compute: Compute::Bf16,
        expert_imbalance: 1.0,
        overlap_expert: false,
        framework: crate::cost::framework::Framework::Megatron2022,
        layer_code: crate::cost::saved::LayerCode::Megatron2022,
        dropout: true,
        weight_casts: false,
        frees_gradients: false,
        fragmentation: 0.0,
        fp8_params: false,
        op_selective: false,
        pipeline_gathers_step: false,
        batch_first_layout: false,
        unfused_norm: false,
        checkpoint_early_stop: false,
        context_exchange: ContextExchange::Ring,
        repeat_kv: false,
        compiled: false,
        expandable_segments: true,
    };

    /// Today's practice.
    ///
    /// * the work of every GEMM, kernels as measured ([`kernel_fit`]);
    /// * mixed-precision Adam, 18 bytes per parameter;
    /// * FlashAttention (Megatron-Core and torchtitan default to it);
    /// * Megatron-Core's vocab-parallel cross-entropy (6 bytes a logit at
    ///   the last stage's peak, [`CrossEntropy::VocabParallel`]);
    /// * data-parallel traffic overlapped with compute (Megatron-Core's
    ///   `overlap_grad_reduce`, `overlap_param_gather`), gradients kept and
    ///   reduced in bf16 (Megatron-Core's `DistributedDataParallelConfig`
    ///   default `grad_reduce_in_fp32 = False`, as NVIDIA's performance
    ///   recipes run it: the DGX Cloud recipe of the calibration set);
    ///   with FP8, the layers' weights in FP8 (NeMo's `fp8_params`); tensor-parallel collectives
    ///   overlapped with the GEMMs (NeMo's `ub_tp_comm_overlap`, on in its
    ///   H100 recipes);
    /// * collectives at 80 % of a link's per-direction bandwidth: NCCL's
    ///   all-reduce bus bandwidth on DGX A100 (~230 of 300 GB/s over
    ///   NVLink 3) and DGX H100 (~360 of 450 GB/s), and ~80 % of line rate
    ///   on InfiniBand (nccl-tests' published results; not fitted);
    /// * memory as Megatron-Core allocates it
    ///   ([`crate::cost::framework::Framework::MegatronCore`]): Transformer
    ///   Engine's fused layers without dropout, 0.75 GiB of CUDA context
    ///   and 1 GiB of NCCL buffers kept back, 5 % of what a step allocates
    ///   and frees for fragmentation (stated figures, not fitted);
    /// * 20 tokens per parameter (Hoffmann et al. 2022's compute-optimal
    ///   ratio) when no budget is given;
    /// * mixtures of experts: the busiest GPU's experts get 10 % more
    ///   tokens than the average ([`DEFAULT_EXPERT_IMBALANCE`]), and the
    ///   all-to-alls are not overlapped (Megatron-Core's default).
    pub const PRACTICE: Self = Self {
        set: AssumptionSet::Practice,
        work: WorkCount::AllGemms,
        kernel: KernelModel::Measured,
        curves: None,
        timing: Timing::Seconds,
        precision: Precision::MixedAdam,
        flash_attention: true,
        attention_kernel: crate::cost::kernels::AttentionKernel::Cudnn,
        cross_entropy: CrossEntropy::VocabParallel,
        overlap_data: true,
        overlap_tensor: true,
        gradient_reduce_bytes: 2.0,
        bus_efficiency: 0.8,
        network_efficiency: NETWORK_EFFICIENCY,
        op_overhead: OP_OVERHEAD,
        reserve: Bytes(
            crate::cost::framework::CUDA_CONTEXT.0 + crate::cost::framework::NCCL_BUFFERS.0,
        ),
        tokens: None,
        tokens_per_param: Some(20.0),
        compute: Compute::Bf16,
        expert_imbalance: DEFAULT_EXPERT_IMBALANCE,
        overlap_expert: false,
        framework: crate::cost::framework::Framework::MegatronCore,
        layer_code: crate::cost::saved::LayerCode::Fused,
        dropout: false,
        weight_casts: false,
        frees_gradients: false,
        fragmentation: crate::cost::framework::FRAGMENTATION,
        fp8_params: true,
        op_selective: false,
        pipeline_gathers_step: false,
        batch_first_layout: false,
        unfused_norm: false,
        checkpoint_early_stop: false,
        context_exchange: ContextExchange::Ring,
        repeat_kv: false,
        compiled: false,
        expandable_segments: true,
    };
}

impl Default for Assumptions {
    fn default() -> Self {
        Self::PAPER
    }
}
