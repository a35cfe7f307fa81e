//! What a caller asks for: the CLI's flags as plain data, one struct per
//! subcommand. Names are the flags' (`--micro-batches` is `micro_batches`)
//! and every field the CLI defaults has the same default here, so a
//! request written as JSON (`{"model": "gpt-3"}`) means what the same
//! flags mean.

use alloc::string::String;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

/// A model: a preset name, or a custom shape, or a preset with some fields
/// overridden (the CLI's `--model` plus its shape flags).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ModelRequest {
    /// A preset (`bert`, `gpt-3`, `llama-3.1-405b`, …) or `x<N>`; none for a
    /// custom shape (then `seq_len`, `heads`, `head_size` and `layers` are
    /// needed).
    pub model: Option<String>,
    /// Sequence length d_s, in tokens.
    pub seq_len: Option<u32>,
    /// Attention heads d_a (also sets the key/value heads).
    pub heads: Option<u32>,
    /// Head size d_h.
    pub head_size: Option<u32>,
    /// Layers d_l.
    pub layers: Option<u32>,
    /// Feed-forward size d_I (default 4 × width for a custom or reshaped
    /// model).
    pub ffn: Option<u32>,
    /// Key/value heads (grouped-query attention).
    pub kv_heads: Option<u32>,
    /// A gated (SwiGLU) feed-forward block.
    pub gated: bool,
    /// No biases, RMSNorm.
    pub no_biases: bool,
    /// Vocabulary size, to count the embeddings.
    pub vocab: Option<u32>,
    /// Input embedding and LM head not shared.
    pub untied: bool,
    /// q and k normalized per head before the rotary embedding (Qwen3,
    /// OLMo 2, Gemma 3; Megatron-Core's `qk_layernorm`): their norms'
    /// saved activations.
    pub qk_norm: bool,
    /// Routed experts per MoE layer (a mixture of experts; needs `top_k`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub experts: Option<u32>,
    /// Experts each token is routed to.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub top_k: Option<u32>,
    /// Each expert's feed-forward size (default the model's `ffn`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub expert_ffn: Option<u32>,
    /// Shared experts every token passes through (default 0).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub shared_experts: Option<u32>,
    /// Leading layers with the dense feed-forward block (default 0).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub dense_layers: Option<u32>,
    /// Node-limited routing: each token to experts on at most this many
    /// nodes, sent once per node (0: unrestricted).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub expert_node_limit: Option<u32>,
}

/// The hardware (the CLI's `--gpu`, `--node-size`, `--no-node-limit`,
/// `--network`, `--kernel-efficiency`, `--gpu-memory`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HardwareRequest {
    /// GPU preset: `a100-80gb`, `a100-40gb`, `h100-sxm`, `h800`, `h200`,
    /// `b200`, `gb200`, `b300`, `gb300`.
    pub gpu: String,
    /// GPUs per NVLink node (default: the GPU's own, 8 for an H100, 72 for
    /// a GB200, 16 for the paper's A100).
    pub node_size: Option<u32>,
    /// No node-size limit (fig. 5).
    pub no_node_limit: bool,
    /// Network of the data and pipeline dimensions: `infiniband`,
    /// `infiniband-400`, `ethernet`, `ethernet-100`, `ethernet-400`.
    pub network: String,
    /// Fraction of peak the kernels reach, 0.05–1.
    pub kernel_efficiency: f64,
    /// GPU memory in GiB, overriding the preset's.
    pub gpu_memory: Option<f64>,
}

impl Default for HardwareRequest {
    fn default() -> Self {
        Self {
            gpu: "a100-80gb".into(),
            node_size: None,
            no_node_limit: false,
            network: "infiniband".into(),
            kernel_efficiency: 1.0,
            gpu_memory: None,
        }
    }
}

/// The practice knobs and the dimensions they add (the CLI's
/// `--assumptions`, `--virtual-stages`, `--sequence-parallel`, `--zero`,
/// `--recompute`, `--pipeline-schedule`, `--zero-r`, `--global-batch`,
/// `--tokens`, `--optimizer`). Under
/// `paper` only `assumptions` is read.
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
            profile: None,
        }
    }
}

/// `plan3d evaluate`: one configuration.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EvaluateRequest {
    /// The model.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub model: ModelRequest,
    /// The hardware.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub hardware: HardwareRequest,
    /// `baseline`, `partitioned`, `improved` or `improved-unpartitioned`;
    /// empty (the default): the framework's own sharding unless `zero`
    /// names a stage (partitioned, ZeRO-3, under `pytorch-fsdp` and
    /// `torchtitan`; baseline otherwise, without ZeRO under `pytorch`'s
    /// DDP and in the paper setting). Before November 2026 an absent
    /// method meant `baseline` under every framework.
    pub method: String,
    /// Data-parallel degree n_b.
    pub data: u32,
    /// Pipeline-parallel degree n_l.
    pub pipe: u32,
    /// Tensor-parallel degree n_a.
    pub tensor: u32,
    /// Batch in sequences; when given, it must equal data × micro-batches ×
    /// micro-batch.
    pub batch: Option<u64>,
    /// Micro-batch size b_µ.
    pub micro_batch: u32,
    /// Micro-batches n_µ.
    pub micro_batches: u32,
    /// State and checkpoints offloaded to CPU memory.
    pub offload: bool,
    /// Activation memory: `paper`, `full`, `selective`, `none`.
    pub activations: String,
    /// The practice knobs.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub practice: PracticeRequest,
}

impl Default for EvaluateRequest {
    fn default() -> Self {
        Self {
            model: ModelRequest::default(),
            hardware: HardwareRequest::default(),
            method: String::new(),
            data: 1,
            pipe: 1,
            tensor: 1,
            batch: None,
            micro_batch: 1,
            micro_batches: 1,
            offload: false,
            activations: "paper".into(),
            practice: PracticeRequest::default(),
        }
    }
}

/// What a search may use (the CLI's constraint flags).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConstraintsRequest {
    /// Exactly this many GPUs (a cap for the rules).
    pub gpus: Option<u64>,
    /// At most this many GPUs.
    pub max_gpus: Option<u64>,
    /// This tensor-parallel degree.
    pub tensor: Option<u32>,
    /// The fewest GPUs that train within this many days.
    pub target_days: Option<f64>,
    /// A batch limit in sequences (above the critical batch it is the
    /// critical batch).
    pub batch: Option<u64>,
    /// Least efficiency accepted.
    pub min_efficiency: f64,
    /// Activation memory: `paper`, `full`, `selective`, `none`.
    pub activations: String,
    /// (Practice) the cheapest plan (fewest GPU-hours) instead of the
    /// fastest; with `target_days`, the cheapest that meets it.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "core::ops::Not::not"))]
    pub cheapest: bool,
}

impl Default for ConstraintsRequest {
    fn default() -> Self {
        Self {
            gpus: None,
            max_gpus: None,
            tensor: None,
            target_days: None,
            batch: None,
            min_efficiency: 0.0,
            activations: "paper".into(),
            cheapest: false,
        }
    }
}

/// `plan3d plan`: the rules' plan, or the exhaustive optimum.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlanRequest {
    /// The model.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub model: ModelRequest,
    /// The hardware.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub hardware: HardwareRequest,
    /// The constraints.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub constraints: ConstraintsRequest,
    /// A method, or `any` (exhaustive search or practice only); empty for
    /// the setting's default: `improved` under paper, `any` under practice.
    pub method: String,
    /// `none`, `data`, `data+pipe`, `data+tensor`, `pipe+tensor` or `3d`.
    pub parallelism: String,
    /// `rules` or `exhaustive`.
    pub search: String,
    /// The practice knobs; under `practice` the search is exhaustive.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub practice: PracticeRequest,
    /// (Practice) a fixed data-parallel degree.
    pub data: Option<u32>,
    /// (Practice) a fixed pipeline degree.
    pub pipe: Option<u32>,
    /// (Practice) a fixed micro-batch size.
    pub micro_batch: Option<u32>,
}

impl Default for PlanRequest {
    fn default() -> Self {
        Self {
            model: ModelRequest::default(),
            hardware: HardwareRequest::default(),
            constraints: ConstraintsRequest::default(),
            method: String::new(),
            parallelism: "3d".into(),
            search: "rules".into(),
            practice: PracticeRequest::default(),
            data: None,
            pipe: None,
            micro_batch: None,
        }
    }
}

/// `plan3d sweep`: the rules' plan over log-spaced model sizes.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SweepRequest {
    /// The hardware.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub hardware: HardwareRequest,
    /// The constraints.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub constraints: ConstraintsRequest,
    /// The method.
    pub method: String,
    /// The parallelism setting.
    pub parallelism: String,
    /// Smallest size in parameters.
    pub from: f64,
    /// Largest size in parameters.
    pub to: f64,
    /// Sizes.
    pub points: u32,
    /// `x` (the X\[x\] family), `aspect:R` (width/depth ratio R) or
    /// `depth:L` (L layers).
    pub scaling: String,
    /// Head size for `aspect:` and `depth:`.
    pub head_size: u32,
    /// Sequence length for `aspect:` and `depth:`.
    pub seq_len: u32,
}

impl Default for SweepRequest {
    fn default() -> Self {
        Self {
            hardware: HardwareRequest::default(),
            constraints: ConstraintsRequest::default(),
            method: "improved".into(),
            parallelism: "3d".into(),
            from: 1e9,
            to: 1e16,
            points: 50,
            scaling: "x".into(),
            head_size: 128,
            seq_len: 2048,
        }
    }
}

/// `plan3d schedule`: a training step simulated.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScheduleRequest {
    /// `ga`, `lga`, `gpipe`, `1f1b`, `interleaved` or `modular`.
    pub kind: String,
    /// Pipeline devices (default 4 when pipelined, else 1).
    pub devices: Option<u32>,
    /// Layers (default 16, or the model's).
    pub layers: Option<u32>,
    /// Micro-batches.
    pub micro_batches: u32,
    /// Virtual stages per device (interleaved).
    pub chunks: u32,
    /// Interleaved: micro-batches each chunk takes in a row (Megatron-Core's
    /// `microbatch_group_size_per_vp_stage`, the Llama 3 paper's N); none:
    /// the smallest Megatron-Core takes, the devices when they divide the
    /// micro-batches.
    pub group: Option<u32>,
    /// Data-parallel degree: above 1, gradients are reduced.
    pub data: u32,
    /// State partitioned over the data-parallel devices.
    pub partition: bool,
    /// State offloaded to CPU memory.
    pub offload: bool,
    /// Unit mode: backward duration (forward is 1).
    pub backward: f64,
    /// Unit mode: reduction duration per layer.
    pub reduce: f64,
    /// Unit mode: restore duration per layer.
    pub restore: f64,
    /// Unit mode: send duration per micro-batch.
    pub send: f64,
    /// A preset model: durations and memory from the cost model.
    pub model: Option<String>,
    /// Tensor-parallel degree (with `model`).
    pub tensor: u32,
    /// Micro-batch size (with `model`).
    pub micro_batch: u32,
    /// The hardware (with `model`).
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub hardware: HardwareRequest,
}

impl Default for ScheduleRequest {
    fn default() -> Self {
        Self {
            kind: "1f1b".into(),
            devices: None,
            layers: None,
            micro_batches: 4,
            chunks: 2,
            group: None,
            data: 1,
            partition: false,
            offload: false,
            backward: 2.0,
            reduce: 0.0,
            restore: 0.0,
            send: 0.0,
            model: None,
            tensor: 1,
            micro_batch: 1,
            hardware: HardwareRequest::default(),
        }
    }
}

/// `plan3d run`: a plan and its whole run (cost, energy, failures).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunRequest {
    /// The plan (`plan`'s fields; `assumptions` defaults to `practice`
    /// here, and `tokens` is the run's token budget).
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub plan: PlanRequest,
    /// The global batch in tokens (instead of `global_batch` in
    /// sequences): a multiple of the sequence length.
    pub batch_tokens: Option<f64>,
    /// A batch ramp, `TOKENS:BATCH,...` (batches in tokens; suffixes k, M,
    /// G/B, T and Ki … Ti): `0:4Mi,252M:8Mi,2.87T:16Mi`. The plan is
    /// searched at the last batch.
    pub batch_ramp: Option<String>,
    /// US dollars per GPU-hour (default per GPU: `run::default_price`).
    pub price_per_gpu_hour: Option<f64>,
    /// Interruptions per GPU-hour (default Llama 3's, 2.19e-5).
    pub interruptions_per_gpu_hour: Option<f64>,
    /// Checkpoint write bandwidth per node, bytes/s (default 1e9).
    pub checkpoint_bandwidth: Option<f64>,
    /// Asynchronous checkpoints: the run waits for a snapshot to host
    /// memory only.
    pub async_checkpoint: bool,
    /// Minutes from an interruption to training again (default 10).
    pub restart_minutes: Option<f64>,
    /// Power usage effectiveness (default 1.2).
    pub pue: Option<f64>,
    /// Watts per node besides its GPUs (default 575 per GPU of the node).
    pub node_watts: Option<f64>,
    /// kg CO₂ per kWh of the grid; gives `co2_tonnes`.
    pub grid_kg_per_kwh: Option<f64>,
}

impl Default for RunRequest {
    fn default() -> Self {
        Self {
            plan: PlanRequest {
                practice: PracticeRequest {
                    assumptions: "practice".into(),
                    ..PracticeRequest::default()
                },
                ..PlanRequest::default()
            },
            batch_tokens: None,
            batch_ramp: None,
            price_per_gpu_hour: None,
            interruptions_per_gpu_hour: None,
            checkpoint_bandwidth: None,
            async_checkpoint: false,
            restart_minutes: None,
            pue: None,
            node_watts: None,
            grid_kg_per_kwh: None,
        }
    }
}

/// A calibration profile to check and fit (`plan3d calibrate --check`;
/// the JSON door's `calibrate`, which the page calls): the hardware it is
/// for and the profile itself.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CalibrateRequest {
    /// The hardware.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub hardware: HardwareRequest,
    /// The profile (`calibration/calibrate.py`'s output).
    pub profile: Option<crate::cost::profile::Profile>,
}
