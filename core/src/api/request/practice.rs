//! The practice knobs of a request: the fields `evaluate`, `plan` and
//! `run` share beyond the layout (split from `request.rs`, which holds one
//! struct per subcommand).

use alloc::string::String;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

/// The practice knobs and the dimensions they add (the CLI's
/// `--assumptions`, `--virtual-stages`, `--sequence-parallel`, `--zero`,
/// `--recompute`, `--pipeline-schedule`, `--zero-r`, `--global-batch`,
/// `--tokens`, `--optimizer` and the rest below). Under `paper` only
/// `assumptions`, `recompute` and `global_batch` are read; `evaluate` and
/// `plan` refuse the others in words.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PracticeRequest {
    /// `practice` (default: today's Megatron-Core, NeMo, torchtitan) or
    /// `paper` (Lamy-Poirier 2021 exactly). The default was `paper` until
    /// November 2026: a request that means the paper's model says so.
    pub assumptions: String,
    /// Virtual stages per pipeline device (interleaved 1F1B); free in a
    /// search when not given, 1 in an evaluation.
    pub virtual_stages: Option<u32>,
    /// Interleaved 1F1B: micro-batches each virtual stage takes in a row, N
    /// (Megatron-Core's `--microbatch-group-size-per-virtual-pipeline-stage`,
    /// the Llama 3 paper's N): from the pipeline degree to every
    /// micro-batch, the micro-batches a multiple of it or their remainder at
    /// least the pipeline degree. Default in an evaluation: the smallest
    /// that fits, the pipeline degree when it divides the micro-batches; in
    /// a search Megatron-Core's default, the pipeline degree (interleaving
    /// only micro-batch counts it divides).
    pub microbatch_group: Option<u32>,
    /// Sequence parallelism; free in a search when not given (on with
    /// tensor parallelism), and in a practice evaluation on with tensor
    /// parallelism, as the search and Megatron-Core's and torchtitan's
    /// recipes run it (off before November 2026); off under the paper.
    pub sequence_parallel: Option<bool>,
    /// ZeRO stage: `0`, `1` (distributed optimizer), `2`, `3` (FSDP,
    /// weights gathered per micro-batch) or `3-step` (gathered once per
    /// step); free in a search, 1 in an evaluation.
    pub zero: Option<String>,
    /// Recomputation: `none`, `selective` or `full`; free in a search,
    /// `none` in an evaluation.
    pub recompute: Option<String>,
    /// Pipeline schedule without layered accumulation: `1f1b` (default;
    /// interleaved with virtual stages), `gpipe`, `zb-h1`, `zb-v` or
    /// `dualpipe`; in a search, `1f1b` unless given (GPipe holds more and is
    /// never faster), `any` for 1F1B, ZB-H1, ZB-V and DualPipe.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub pipeline_schedule: Option<String>,
    /// ZeRO-R activation checkpoints under full recomputation: `none`,
    /// `pa` (partitioned over the tensor ranks) or `pa-cpu` (and offloaded
    /// to CPU memory); free in a search, `none` in an evaluation.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub zero_r: Option<String>,
    /// Global batch in sequences.
    pub global_batch: Option<u64>,
    /// Training tokens (default 20 per parameter).
    pub tokens: Option<f64>,
    /// Training state: `mixed-adam` (18 bytes per parameter, default),
    /// `fp32-adam`, `adam-8bit`, `sgd-momentum`.
    pub optimizer: Option<String>,
    /// Context-parallel degree: each sequence split over this many GPUs
    /// (ring attention); free in a search (tried for sequences of 32 k
    /// tokens and more), 1 in an evaluation.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub context_parallel: Option<u32>,
    /// The layers' GEMMs: `bf16` (default); `fp8` (per-tensor scales from
    /// the amax history), `fp8-current` (per-tensor, current scaling),
    /// `fp8-blockwise` (DeepSeek-V3's 1×128 and 128×128 blocks) on H100,
    /// H800, H200, B200, GB200, B300 and GB300; `mxfp8` on the Blackwell
    /// GPUs (`cost::assumptions::Compute`; unvalidated).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub precision: Option<String>,
    /// Expert-parallel degree (mixtures of experts): free in a search, 1 in
    /// an evaluation.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub expert_parallel: Option<u32>,
    /// The routed experts' own tensor-parallel degree (Megatron-Core's
    /// `--expert-tensor-parallel-size`): the MoE layers regroup a stage's
    /// GPUs as etp × ep × edp, so ep may exceed data × context where etp <
    /// tensor. Default the tensor degree in an evaluation; a search tries
    /// it and, where tensor > 1, 1.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub expert_tensor_parallel: Option<u32>,
    /// The busiest GPU's routed-expert work over the average, ≥ 1
    /// (default 1.1).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub expert_imbalance: Option<f64>,
    /// Overlap the expert all-to-alls with another micro-batch's compute
    /// (DualPipe; Megatron-Core's EP overlap). Default off.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub overlap_expert: Option<bool>,
    /// The layers compiled with `torch.compile` (torchtitan's
    /// `compile.enable`): eager code's extra element-wise kernels (Hugging
    /// Face's fp32 RMSNorm, the rotary embedding) fused away. Default off.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub compile: Option<bool>,
    /// PyTorch's allocator with `expandable_segments:True` (true) or its
    /// default caching allocator (false), whose fragmentation can need one
    /// more block the size of the largest transient (the fp32 logits).
    /// Default: the framework's (false for `pytorch`, true otherwise).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub expandable_segments: Option<bool>,
    /// Attention kernels: `flash` (the framework's FlashAttention kernel:
    /// the d_s² scores are never stored; practice's default), `cudnn` or
    /// `fa3` (cuDNN's fused attention), `fa2` (FlashAttention-2), `fa1` or
    /// `triton` (FlashAttention-1's class: `flash-attn` 1.x, llm-foundry's
    /// `attn_impl: triton`) or `materialized` (the scores, softmax and dropout stored and moved
    /// through memory, as Megatron-LM did until 2022).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub attention: Option<String>,
    /// Overlap the tensor-parallel collectives with the GEMMs they feed
    /// (Transformer Engine's userbuffers; practice's default). `false`:
    /// they wait for each other (Megatron-LM 2021–22).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub overlap_tensor: Option<bool>,
    /// Overlap the data-parallel gradient reduction (and the distributed
    /// optimizer's weight gather) with the backward (forward) pass
    /// (practice's default). `false`: it runs after the backward pass
    /// (Megatron-LM 2021).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub overlap_data: Option<bool>,
    /// The head's work in layers in the pipeline split: the last stage
    /// holds this many layers fewer than an even split of layers and head
    /// gives it (Megatron-Core's `--decoder-last-pipeline-num-layers`);
    /// `0` splits the layers evenly. Default: the head's flops in layers,
    /// rounded (`cost::step::balanced_head`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub head_layers: Option<u32>,
    /// The embedding's work in layers in the pipeline split: the first
    /// stage holds this many layers fewer (Megatron-Core's
    /// `--account-for-embedding-in-pipeline-split` is 1, with
    /// `head_layers` 1 for its `--account-for-loss-in-pipeline-split`; a
    /// chunk may then hold the embedding or the head alone, as PP 16 × VP
    /// 8 for 126 layers). Default 0, or 1 (with `head_layers` at least 1)
    /// where the virtual stages outnumber the layers
    /// (`cost::step::pipeline_ends`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub embedding_layers: Option<u32>,
    /// The loss over the vocabulary, which sets the last stage's logits
    /// memory: `vocab-parallel` (Megatron-Core's; practice's default, 6
    /// bytes a logit), `eager` (PyTorch's `F.cross_entropy` on fp32
    /// logits, torchtitan and Hugging Face; 12 bytes), `fused-linear`
    /// (Liger-Kernel's fused linear cross-entropy: the logits in chunks of
    /// tokens·d/V rows) or `logits` (the fp32 logits alone, 4 bytes: the
    /// paper's count).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub cross_entropy: Option<String>,
    /// How tensor parallelism lays out the activations it shards by
    /// sequence: `batch-first` (`[batch, sequence, hidden]`, sharded on
    /// dimension 1: PyTorch's DTensor plans, and torchtitan until August
    /// 2026; each all-gather and reduce-scatter copies its tensor once
    /// more, `cost::step::layout_copy_bytes_per_token`) or `tokens`
    /// (sequence- or tokens-first: Megatron, torchtitan since
    /// pytorch/torchtitan#4121). Default: the framework's.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub activation_layout: Option<String>,
    /// Whether full recomputation stops early (PyTorch's non-reentrant
    /// checkpoint by default: the recomputed forward ends before the
    /// layer's down projection and its tensor-parallel reduction). Default:
    /// the framework's (`pytorch`, `pytorch-fsdp`; torchtitan's runs before
    /// it set `early_stop=False`, pytorch/torchtitan#1580 of August 2025,
    /// stopped early too).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub checkpoint_early_stop: Option<bool>,
    /// How context parallelism exchanges keys and values: `ring` (each
    /// block computed while the chunk it holds goes to the next rank:
    /// Megatron-Core's `cp_comm_type = "p2p"`, torchtitan's
    /// `context_parallel_rotate_method = "alltoall"`) or `allgather`
    /// (PyTorch's `context_parallel` default, torchtitan's: one all-gather
    /// a pass, hidden by the first block only). Default: the framework's.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub context_exchange: Option<String>,
    /// Whether the layer repeats grouped-query attention's keys and values
    /// to the query heads before the kernel (torchtitan's `repeat_kv` until
    /// pytorch/torchtitan#2259, January 2026): the eager kernel saves the
    /// copies, the copies cost their bytes, a context-parallel ring sends
    /// them. Default: false.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub repeat_kv: Option<bool>,
    /// How the layer's RMSNorms run: `fused` (one kernel each way:
    /// Transformer Engine's, Liger-Kernel's, `nn.RMSNorm` since PyTorch
    /// 2.9) or `unfused` (op by op in fp32: Hugging Face's `LlamaRMSNorm`,
    /// torchtitan's before March 2025, `nn.RMSNorm` before PyTorch 2.9),
    /// which moves more and keeps more where the layer is not compiled
    /// (`cost::saved::eager_extra_per_token`). Default: the framework's.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub norm_kernel: Option<String>,
    /// The framework whose memory is counted: `megatron-core` (practice's
    /// default), `megatron-2022`, `torchtitan`, `pytorch-fsdp`, `pytorch`
    /// or `deepspeed` (`cost::framework::Framework`). It sets the state's
    /// formats, the layer's code, dropout and the loss; the other fields
    /// override it.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub framework: Option<String>,
    /// The dtype gradients are kept and reduced in by Megatron's and
    /// DeepSpeed's buffers: `fp32` or `bf16` (Megatron-Core's
    /// `grad_reduce_in_fp32`). Default: the framework's.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub grad_reduce: Option<String>,
    /// Full recomputation of only this many layers of each pipeline chunk
    /// (Megatron-Core's `--recompute-method block --recompute-num-layers`;
    /// implies `recompute` `full`); the others keep their activations.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub recompute_layers: Option<u32>,
    /// The activations of this many layers of each pipeline chunk kept in
    /// CPU memory (Megatron-Core's `--cpu-offloading-num-layers`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub offload_layers: Option<u32>,
    /// What selective recomputation recomputes, Megatron-Core's
    /// `--recompute-modules` comma-separated: `core_attn` (the default),
    /// `layernorm`, `mlp`, `moe`, `moe_act`, `shared_experts`,
    /// `mla_up_proj` (implies `recompute` `selective`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub recompute_modules: Option<String>,
    /// The modules whose saved tensors every layer offloads to CPU memory,
    /// Megatron-Core's `--fine-grained-activation-offloading
    /// --offload-modules` comma-separated: `attn_norm`, `qkv_linear`,
    /// `core_attn`, `attn_proj`, `mlp_norm`, `expert_fc1`, `moe_act`.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub offload_modules: Option<String>,
    /// A calibration profile of your own GPU (`calibration/calibrate.py`,
    /// `plan3d calibrate`): its kernels' measured times set the kernel
    /// curves in place of the GPU preset's (`cost::profile`); the report
    /// then gives the preset's figures beside (`preset`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub profile: Option<crate::cost::profile::Profile>,
}

impl Default for PracticeRequest {
    fn default() -> Self {
        Self {
            assumptions: "practice".into(),
            virtual_stages: None,
            microbatch_group: None,
            sequence_parallel: None,
            zero: None,
            recompute: None,
            pipeline_schedule: None,
            zero_r: None,
            global_batch: None,
            tokens: None,
            optimizer: None,
            context_parallel: None,
            precision: None,
            expert_parallel: None,
            expert_tensor_parallel: None,
            expert_imbalance: None,
            overlap_expert: None,
            compile: None,
            expandable_segments: None,
            attention: None,
            overlap_tensor: None,
            overlap_data: None,
            head_layers: None,
            embedding_layers: None,
            cross_entropy: None,
            activation_layout: None,
            checkpoint_early_stop: None,
            context_exchange: None,
            repeat_kv: None,
            norm_kernel: None,
            framework: None,
            grad_reduce: None,
            recompute_layers: None,
            offload_layers: None,
            recompute_modules: None,
            offload_modules: None,
            profile: None,
        }
    }
}
