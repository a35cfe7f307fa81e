//! Framework presets: what each training framework really keeps in memory
//! (`--framework`, JSON `framework`, URL key `fw`). A preset sets the
//! practice knobs of [`Assumptions`] that a framework decides; a flag the
//! user gives still overrides it.

use crate::cost::assumptions::{Assumptions, CrossEntropy, Precision};
use crate::cost::kernels::AttentionKernel;
use crate::cost::saved::LayerCode;
use crate::units::{Bytes, GIB};

/// A training framework.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Framework {
    /// Megatron-Core (NeMo, Megatron-LM today) with Transformer Engine:
    /// bf16 weights (FP8 ones with FP8 GEMMs: NeMo's `fp8_params`), main
    /// gradients in the reduction's dtype (bf16 by default) and the
    /// distributed optimizer's fp32 main weights and moments
    /// (`megatron/core/distributed/param_and_grad_buffer.py`,
    /// `optimizer/distrib_optimizer.py`), TE's fused layers
    /// ([`LayerCode::Fused`]), no dropout (the Llama, Mixtral, DeepSeek and
    /// Nemotron recipes set `hidden_dropout = attention_dropout = 0`),
    /// the vocab-parallel cross-entropy. Practice's default.
    #[default]
    MegatronCore,
    /// Megatron-LM as Korthikanti et al. 2022 measured it: the same state,
    /// Korthikanti's activation count with dropout (seed 003).
    Megatron2022,
    /// torchtitan: FSDP2 (`fully_shard`) with fp32 sharded parameters,
    /// gradients and moments, bf16 gathered copies
    /// (`MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)`), its
    /// Llama code ([`LayerCode::Torchtitan`]), eager by default, the loss
    /// on fp32 logits, gradients freed every step.
    Torchtitan,
    /// PyTorch FSDP as Composer / llm-foundry, Hugging Face Accelerate and
    /// Lightning run it: fp32 sharded state, bf16 compute
    /// (`MixedPrecision(param_dtype=bf16)`), eager cross-entropy; gated
    /// models in Hugging Face's Llama code ([`LayerCode::HfLlama`]),
    /// GPT-style ones in a fused-QKV, one-op-GELU layer
    /// ([`LayerCode::Plain`]: llm-foundry's MPT block, nanoGPT).
    PytorchFsdp,
    /// Plain PyTorch AMP on one GPU or DDP: fp32 weights (4 bytes), fp32
    /// gradients (4), AdamW's two fp32 moments (8), a bf16 copy of each
    /// weight cast by autocast and saved for backward, the plain layer
    /// ([`LayerCode::Plain`]), the loss on fp32 logits, gradients freed by
    /// `zero_grad(set_to_none=True)` (PyTorch's default since 2.0).
    Pytorch,
    /// DeepSpeed ZeRO 1–3 (Megatron-DeepSpeed): bf16 weights and gradients
    /// (2 + 2), fp32 master weights and moments in partitions (12),
    /// Megatron's layer with dropout.
    Deepspeed,
}

impl Framework {
    /// Every preset, in the order the CLI lists them.
    pub const ALL: [Self; 6] = [
        Self::MegatronCore,
        Self::Megatron2022,
        Self::Torchtitan,
        Self::PytorchFsdp,
        Self::Pytorch,
        Self::Deepspeed,
    ];

    /// Stable name (CLI `--framework`, JSON `framework`, URL `fw`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::MegatronCore => "megatron-core",
            Self::Megatron2022 => "megatron-2022",
            Self::Torchtitan => "torchtitan",
            Self::PytorchFsdp => "pytorch-fsdp",
            Self::Pytorch => "pytorch",
            Self::Deepspeed => "deepspeed",
        }
    }

    /// In words, for a menu and "Why this plan".
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::MegatronCore => "Megatron-Core (NeMo)",
            Self::Megatron2022 => "Megatron-LM 2022",
            Self::Torchtitan => "torchtitan (FSDP2)",
            Self::PytorchFsdp => "PyTorch FSDP (Hugging Face)",
            Self::Pytorch => "plain PyTorch AMP",
            Self::Deepspeed => "DeepSpeed ZeRO",
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
            .find(|f| f.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(crate::Error::Unknown { what: "framework" })
    }

    /// Whether this framework's FSDP keeps a pipeline stage gathered for
    /// the whole step and reduces its gradients once, after the last
    /// micro-batch: torchtitan's (`reshard_after_forward = False` under a
    /// pipeline, [`crate::cost::step::zero_run`]).
    #[must_use]
    pub fn pipeline_gathers_step(self) -> bool {
        self == Self::Torchtitan
    }

    /// What this framework keeps in memory, set on practice's knobs: the
    /// state's formats, the layer's code, dropout, autocast's weight
    /// copies, whether gradients live between steps, the loss kernel.
    /// The timing knobs stay practice's (the time issue's presets).
    #[must_use]
    pub fn apply(self, mut a: Assumptions) -> Assumptions {
        a.framework = self;
        // torchtitan's own ways: per-op selective checkpointing, and with a
        // pipeline the stage gathered for the step
        // (`torchtitan/distributed/fsdp.py`'s reshard policy).
        a.op_selective = self == Self::Torchtitan;
        a.pipeline_gathers_step = self.pipeline_gathers_step();
        a.batch_first_layout = self.batch_first_sequence_parallel();
        a.checkpoint_early_stop = self.checkpoint_early_stop();
        a.context_exchange = self.context_exchange();
        // The attention kernel each ships with ([`AttentionKernel`]):
        // Transformer Engine's cuDNN fused attention; torchtitan's cuDNN
        // first on every GPU (pytorch/torchtitan#1776, October 2025: on
        // B200 alone from May 2025, #1196, and FlashAttention-2 first on
        // Hopper until then); plain PyTorch's SDPA
        // default from 2.11 on Hopper and Blackwell; the `flash-attn` 2
        // package under Hugging Face's `flash_attention_2`, llm-foundry and
        // Megatron-DeepSpeed (and Megatron-LM's `--use-flash-attn` of
        // 2023, after Korthikanti's runs).
        // Tensor-parallel communication under the GEMMs: Transformer
        // Engine's userbuffers in NeMo's recipes (`tp_comm_overlap`);
        // torchtitan's async TP is off by default
        // (`parallelism.enable_async_tensor_parallel = false`) and hides
        // little of it where on (its June 2025 benchmarks: +5–16 %);
        // Hugging Face, DeepSpeed and Megatron-LM 2022 have none.
        a.overlap_tensor = self == Self::MegatronCore;
        // Plain training scripts run PyTorch's default caching allocator;
        // torchtitan's `run_train.sh` sets `expandable_segments:True`, and
        // the other frameworks' transients are small per GPU (vocabulary-
        // parallel logits, sharded layers): their margin stays the share.
        a.expandable_segments = self != Self::Pytorch;
        a.attention_kernel = match self {
            Self::MegatronCore | Self::Torchtitan | Self::Pytorch => AttentionKernel::Cudnn,
            Self::Megatron2022 | Self::PytorchFsdp | Self::Deepspeed => AttentionKernel::Fa2,
        };
        match self {
            Self::MegatronCore => {
                a.precision = Precision::MixedAdam;
                // `DistributedDataParallelConfig.grad_reduce_in_fp32` is
                // off by default; NVIDIA's performance recipes keep it off.
                a.gradient_reduce_bytes = 2.0;
                a.fp8_params = true;
                a.layer_code = LayerCode::Fused;
                a.dropout = false;
                a.weight_casts = false;
                a.frees_gradients = false;
                a.cross_entropy = CrossEntropy::VocabParallel;
            }
            Self::Megatron2022 | Self::Deepspeed => {
                a.precision = Precision::MixedAdam;
                // DeepSpeed keeps and reduces bf16 gradients; Megatron its
                // fp32 `main_grad`.
                a.gradient_reduce_bytes = if self == Self::Deepspeed { 2.0 } else { 4.0 };
                a.fp8_params = false;
                a.layer_code = LayerCode::Megatron2022;
                a.dropout = true;
                a.weight_casts = false;
                a.frees_gradients = false;
                a.cross_entropy = CrossEntropy::VocabParallel;
            }
            Self::Torchtitan | Self::PytorchFsdp | Self::Pytorch => {
                a.precision = Precision::Fp32Adam;
                a.gradient_reduce_bytes = 4.0;
                a.fp8_params = false;
                a.layer_code = match self {
                    Self::Torchtitan => LayerCode::Torchtitan,
                    Self::Pytorch => LayerCode::Plain,
                    _ => LayerCode::HfLlama,
                };
                a.dropout = false;
                a.weight_casts = self == Self::Pytorch;
                a.frees_gradients = true;
                a.cross_entropy = CrossEntropy::Eager;
            }
        }
        // Hugging Face's `LlamaRMSNorm` runs op by op; torchtitan's and
        // plain PyTorch's `nn.RMSNorm` is one kernel since PyTorch 2.9,
        // Transformer Engine's and Megatron's norms fused (JSON
        // `norm_kernel` for other runs).
        a.unfused_norm = a.layer_code == LayerCode::HfLlama;
        a
    }

    /// Do its FP8 GEMMs keep FP8 copies in memory: each FP8 GEMM's input
    /// saved for backward in FP8 (1 byte), and the weights' FP8 casts and
    /// transposes cached for the step? Transformer Engine's do
    /// (Megatron-Core, and Megatron-DeepSpeed where it runs FP8). torchao's
    /// float8 training, torchtitan's and plain PyTorch's, saves the
    /// high-precision tensors and casts again in the backward
    /// (`torchao/float8/float8_linear.py`, `matmul_with_hp_or_float8_args`:
    /// `ctx.save_for_backward(input_hp, weight_hp_t)`): its activations are
    /// BF16's and nothing is cached.
    #[must_use]
    pub fn fp8_keeps_fp8_copies(self) -> bool {
        matches!(
            self,
            Self::MegatronCore | Self::Megatron2022 | Self::Deepspeed
        )
    }

    /// Does its FP8 run eager PyTorch's per-tensor casts, op by op, when
    /// uncompiled ([`crate::cost::step::EAGER_FP8_CAST_BYTES`])? torchao's
    /// `Float8Linear`, torchtitan's float8 and plain PyTorch's, does; the
    /// others run Transformer Engine's fused casts: Megatron-Core,
    /// Megatron-DeepSpeed, and FSDP as Composer / llm-foundry (`fc_type:
    /// te`), Hugging Face Accelerate (`fp8_backend="te"`) and Lightning
    /// (`precision="transformer-engine"`) run FP8.
    #[must_use]
    pub fn eager_fp8_casts(self) -> bool {
        matches!(self, Self::Torchtitan | Self::Pytorch)
    }

    /// Does its async TP (`--overlap-tensor`) leave some tensor
    /// collectives exposed? PyTorch's micro-pipelined TP (torchtitan's
    /// `enable_async_tensor_parallel`, Inductor's `micro_pipeline_tp` pass,
    /// `torch/_inductor/fx_passes/micro_pipeline_tp.py`) fuses an
    /// all-gather with the GEMMs that read it and a reduce-scatter with the
    /// one GEMM that feeds it: every forward collective of a Llama layer,
    /// and in the backward the all-gathers before the output projections'
    /// data gradients, but not the reduce-scatters of the q, k, v and the
    /// gate and up projections' input gradients, whose input is the sum of
    /// two or three GEMMs ([`crate::cost::step::micro_pipelined_exposure`]).
    /// Transformer Engine's userbuffers (Megatron-Core) overlap every one.
    #[must_use]
    pub fn micro_pipelined_tensor_overlap(self) -> bool {
        matches!(self, Self::Torchtitan | Self::Pytorch)
    }

    /// Does its tensor parallelism shard the sequence as dimension 1 of
    /// `[batch, sequence, hidden]` activations
    /// ([`Assumptions::batch_first_layout`])? PyTorch's DTensor plans do
    /// (`SequenceParallel` and `PrepareModuleInput` with `Shard(1)`, as
    /// PyTorch's tensor-parallel tutorial and Hugging Face's `tp_plan`
    /// apply them), so each sequence-parallel all-gather and
    /// reduce-scatter, which NCCL runs along dimension 0, copies its tensor
    /// through memory once more
    /// ([`crate::cost::step::layout_copy_bytes_per_token`]). torchtitan
    /// did until it folded the batch into the tokens (`[T, D]`
    /// activations, sequence parallelism on dimension 0:
    /// pytorch/torchtitan#4121, August 2026; JSON `activation_layout`
    /// `batch-first` for its earlier runs). Megatron's layers,
    /// Megatron-DeepSpeed's among them, keep activations sequence-first
    /// (`[s, b, h]`) and gather along dimension 0.
    #[must_use]
    pub fn batch_first_sequence_parallel(self) -> bool {
        matches!(self, Self::PytorchFsdp | Self::Pytorch)
    }

    /// Does its full recomputation stop early? Plain scripts call
    /// `torch.utils.checkpoint(..., use_reentrant=False)`, whose early stop
    /// is on by default since PyTorch 2.1
    /// (`torch.utils.checkpoint.set_checkpoint_early_stop`): the
    /// recomputed forward ends once every saved tensor is back, before the
    /// layer's last matmul ([`crate::cost::step::early_stop_skipped_flops`]).
    /// PyTorch FSDP's activation checkpointing is the same checkpoint:
    /// `checkpoint_wrapper(..., checkpoint_impl=CheckpointImpl.NO_REENTRANT)`
    /// applied per layer by Hugging Face Accelerate's FSDP plugin
    /// (`fsdp_activation_checkpointing`, `accelerator.py`), Meta's
    /// llama-recipes (`apply_fsdp_checkpointing`) and Lightning's
    /// `activation_checkpointing_policy` (the wrapper's default
    /// implementation), and llm-foundry's benchmarks set
    /// `activation_checkpointing_reentrant = False` for Composer
    /// (`scripts/train/benchmarking/submit_benchmarks.py`).
    /// torchtitan wraps its blocks with `early_stop=False`
    /// (`torchtitan/distributed/activation_checkpoint.py`, since
    /// pytorch/torchtitan#1580 of August 2025; its `ptd_checkpoint_wrapper`
    /// took PyTorch's default before, so its earlier runs stopped early:
    /// JSON `checkpoint_early_stop`); Hugging Face's
    /// `gradient_checkpointing_enable`, outside FSDP, defaults to the
    /// reentrant checkpoint, which has none; Megatron and DeepSpeed
    /// recompute the whole forward.
    #[must_use]
    pub fn checkpoint_early_stop(self) -> bool {
        matches!(self, Self::Pytorch | Self::PytorchFsdp)
    }

    /// Does its context parallelism run PyTorch's ring attention
    /// (`torch.distributed.tensor.experimental.context_parallel`, which
    /// torchtitan applies, and any PyTorch script that calls it), rather
    /// than Transformer Engine's (Megatron-Core, NeMo, Megatron-LM,
    /// Megatron-DeepSpeed)? PyTorch's sends the keys' and values'
    /// gradients in fp32 at every block
    /// ([`crate::cost::context::Exchange::grad_home`]).
    #[must_use]
    pub fn torch_context_parallel(self) -> bool {
        matches!(self, Self::Torchtitan | Self::Pytorch | Self::PytorchFsdp)
    }

    /// How its context parallelism exchanges keys and values by default:
    /// PyTorch's `context_parallel` all-gathers them
    /// (`_ContextParallelOptions.rotate_method = ALL_GATHER`, and
    /// torchtitan's `context_parallel_rotate_method = "allgather"`),
    /// Transformer Engine passes them round a ring (`cp_comm_type =
    /// "p2p"`, Megatron-Core's default).
    #[must_use]
    pub fn context_exchange(self) -> crate::cost::context::ContextExchange {
        if self.torch_context_parallel() {
            crate::cost::context::ContextExchange::AllGather
        } else {
            crate::cost::context::ContextExchange::Ring
        }
    }

    /// Does it split a model over GPUs itself (tensor, pipeline and
    /// context parallelism)? Plain PyTorch AMP runs one GPU or DDP, and
    /// PyTorch FSDP as Composer / llm-foundry, Hugging Face Accelerate and
    /// Lightning run it shards data-parallel ranks only: the practice
    /// search leaves those degrees at 1 for them unless the user fixes
    /// one.
    #[must_use]
    pub fn model_parallel(self) -> bool {
        !matches!(self, Self::Pytorch | Self::PytorchFsdp)
    }

    /// The methods it ships, which the practice search tries by default
    /// and the page's headline picks from: Megatron-Core's 3D parallelism
    /// with the distributed optimizer and its Megatron-FSDP
    /// (`megatron/core/distributed/fsdp/`, `--use-megatron-fsdp`);
    /// DeepSpeed's ZeRO-1/2 with its pipeline engine and ZeRO-3
    /// (`deepspeed/runtime/zero/`); Megatron-LM 2022's 3D parallelism
    /// alone; torchtitan's and PyTorch's FSDP (ZeRO-3: `fully_shard`,
    /// `FULL_SHARD`; with torchtitan's TP, PP and CP); plain PyTorch's DDP,
    /// which replicates the whole state.
    #[must_use]
    pub fn shipped(self) -> &'static [crate::cost::Method] {
        use crate::cost::Method;
        match self {
            Self::MegatronCore | Self::Deepspeed => &[Method::Baseline, Method::Partitioned],
            Self::Megatron2022 | Self::Pytorch => &[Method::Baseline],
            Self::Torchtitan | Self::PytorchFsdp => &[Method::Partitioned],
        }
    }

    /// Why it cannot run `zero` with a pipeline of `pipe` stages, if it
    /// cannot: DeepSpeed's `PipelineEngine` asserts
    /// `zero_optimization_stage() < ZeroStageEnum.gradients` ("ZeRO-2 and
    /// ZeRO-3 are incompatible with pipeline parallelism",
    /// `deepspeed/runtime/pipe/engine.py`); its ZeRO-3 runs without one.
    #[must_use]
    pub fn pipeline_refusal(self, zero: crate::cost::Zero, pipe: u32) -> Option<&'static str> {
        (self == Self::Deepspeed && pipe > 1 && zero.stage() >= 2)
            .then_some("DeepSpeed's pipeline engine runs ZeRO-0 or ZeRO-1 only")
    }

    /// `method` in words under this framework: plain PyTorch's replicated
    /// layout is DDP ("data parallel (DDP)"), every other the method's own
    /// label. The one place that name is written (the plans' rows, the
    /// headline and the no-plan sentence read it).
    #[must_use]
    pub fn method_label(self, method: crate::cost::Method) -> &'static str {
        match (self, method) {
            (Self::Pytorch, crate::cost::Method::Baseline) => "data parallel (DDP)",
            (_, m) => m.label(),
        }
    }

    /// The ZeRO stages a replicated (Megatron-style) layout tries under it,
    /// the fastest first: plain PyTorch's DDP shards nothing; the
    /// distributed optimizer (stage 1) with a pipeline, and Megatron-LM
    /// 2022's at any degree; otherwise the gradients sharded too (stage 2,
    /// reduce-scattered once per step: DeepSpeed's ZeRO-2, Megatron-FSDP's
    /// `optim_grads`).
    #[must_use]
    pub fn replicated_zeros(self, pipelined: bool) -> &'static [crate::cost::Zero] {
        use crate::cost::Zero;
        match self {
            Self::Pytorch => &[Zero::None],
            Self::Megatron2022 => &[Zero::One],
            _ if pipelined => &[Zero::One],
            _ => &[Zero::One, Zero::Two],
        }
    }

    /// How it shards the training state when a configuration names neither
    /// a method nor a ZeRO stage (`plan3d evaluate` without `--method` or
    /// `--zero`): torchtitan and PyTorch FSDP shard everything (FSDP2's
    /// `fully_shard`, FSDP's default `FULL_SHARD`: ZeRO-3, the partitioned
    /// method); plain PyTorch's DDP replicates it all (no ZeRO); the
    /// Megatron presets and DeepSpeed keep the Megatron-style layout with
    /// the optimizer sharded (Megatron-Core's distributed optimizer, ZeRO-1).
    #[must_use]
    pub fn sharding(self) -> (crate::cost::Method, crate::cost::Zero) {
        use crate::cost::Method;
        use crate::cost::Zero;
        match self {
            Self::Torchtitan | Self::PytorchFsdp => (Method::Partitioned, Zero::Three),
            Self::Pytorch => (Method::Baseline, Zero::None),
            Self::MegatronCore | Self::Megatron2022 | Self::Deepspeed => {
                (Method::Baseline, Zero::One)
            }
        }
    }

    /// Does it pad the vocabulary (Megatron's `--make-vocab-size-divisible-by`
    /// 128 per tensor rank; Megatron-DeepSpeed inherits it)?
    #[must_use]
    pub fn pads_vocabulary(self) -> bool {
        matches!(
            self,
            Self::MegatronCore | Self::Megatron2022 | Self::Deepspeed
        )
    }

    /// The layer code for a model: Hugging Face's Llama code only runs
    /// gated models; a GPT-style shape under that preset runs the plain
    /// layer (llm-foundry's MPT block saves what it saves).
    #[must_use]
    pub fn code_for(code: LayerCode, gated: bool) -> LayerCode {
        match (code, gated) {
            (LayerCode::HfLlama, false) => LayerCode::Plain,
            (c, _) => c,
        }
    }
}

/// The CUDA context and the libraries' workspaces (cuBLAS, cuDNN,
/// Transformer Engine), outside PyTorch's allocator: ~0.5–0.8 GiB on a
/// Hopper GPU with CUDA 12–13 (a stated figure, not fitted).
pub const CUDA_CONTEXT: Bytes = Bytes(0.75 * GIB);

/// NCCL's buffers once a GPU talks to others: 4 MiB
/// (`NCCL_BUFFSIZE`) per channel and peer, for each communicator (data,
/// tensor, pipeline, context, expert): ~1 GiB (a stated figure).
pub const NCCL_BUFFERS: Bytes = Bytes(1.0 * GIB);

/// The caching allocator's fragmentation, as a share of what is allocated
/// and freed during a step (activations, logits, gathered weights): 5 %
/// with `expandable_segments` (the frameworks' recipes set it); a stated
/// margin, not fitted.
pub const FRAGMENTATION: f64 = 0.05;

/// DeepSpeed ZeRO's defaults (`deepspeed/runtime/zero/config.py`), in
/// parameters (elements): `stage3_max_live_parameters`, the gathered
/// parameters ZeRO-3 keeps on a GPU before releasing any.
pub const DEEPSPEED_MAX_LIVE: f64 = 1e9;
/// `stage3_prefetch_bucket_size`: parameters fetched ahead of their use.
pub const DEEPSPEED_PREFETCH: f64 = 5e7;
/// `reduce_bucket_size`: gradient elements reduced at a time (the
/// contiguous bucket stages 2 and 3 copy gradients into).
pub const DEEPSPEED_REDUCE_BUCKET: f64 = 5e8;

/// The largest weight matrix of a dense layer on one tensor rank (of
/// `t`), in parameters: DeepSpeed gathers and reduces module by module,
/// and one module larger than its live limit is gathered whole.
#[must_use]
pub fn largest_module(model: &crate::model::ModelShape, t: f64) -> f64 {
    let dm = model.width() as f64;
    let q = model.attention_width() as f64;
    let ffn = f64::from(model.ffn);
    let up = if model.gated_mlp { 2.0 } else { 1.0 };
    let qkv = dm * (q + 2.0 * model.kv_width());
    qkv.max(q * dm).max(up * dm * ffn).max(ffn * dm) / t
}

/// DeepSpeed ZeRO-3's gathered parameters on a GPU, in parameters: its
/// live set, `stage3_max_live_parameters` or the largest module where that
/// is larger, and the prefetch bucket; at most `stage` (the stage's
/// parameters on the GPU). EleutherAI's transformer-math notes count these
/// "ZeRO-3 live params" apart for that reason. FSDP gathers a whole layer
/// and prefetches the next instead.
#[must_use]
pub fn deepspeed_live(model: &crate::model::ModelShape, t: f64, stage: f64) -> f64 {
    (largest_module(model, t).max(DEEPSPEED_MAX_LIVE) + DEEPSPEED_PREFETCH).min(stage)
}

/// DeepSpeed's unsharded gradients in flight under ZeRO-2 and -3, in
/// elements: the reduce bucket they are copied into and the module whose
/// backward is producing them; at most `stage`.
#[must_use]
pub fn deepspeed_bucket(model: &crate::model::ModelShape, t: f64, stage: f64) -> f64 {
    (DEEPSPEED_REDUCE_BUCKET + largest_module(model, t)).min(stage)
}

/// Fragmentation under PyTorch's default caching allocator (no
/// `expandable_segments`), beyond [`FRAGMENTATION`]'s share: one more
/// block the size of the largest transient tensor, `largest`.
///
/// The allocator keeps every segment it has `cudaMalloc`ed and splits a
/// free one for smaller requests; tensors made between two uses of a large
/// block (the first step's optimizer states, the gradients) can land in it,
/// and the next large request then needs a fresh segment. Measured on one
/// H100 (`calibration/h100-2026-11-26/`, plain PyTorch AMP, 15.66 GiB fp32
/// logits blocks): two steps needing 72.3 and 66.4 GiB ran out of memory
/// with 13.9 and 16.1 GiB reserved but unallocated, and ran with
/// `expandable_segments`; two needing 65.7 GiB ran with 2.5 GiB
/// fragmented. Which way a step goes depends on the order of its
/// allocations, so the margin is the block itself: conservative (the two
/// that ran are called "does not fit"), stated, not fitted; 34 steps that
/// ran with smaller blocks left 0.7–12 GiB reserved but unallocated.
#[must_use]
pub fn default_allocator_margin(largest: Bytes) -> Bytes {
    largest
}
