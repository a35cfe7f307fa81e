//! Flags shared by several subcommands: the model's shape, the hardware,
//! the constraints of a search.

use clap::Args;
use plan3d_core::api::request::{
    ConstraintsRequest, HardwareRequest, ModelRequest, PracticeRequest,
};

/// Custom shape flags; each overrides the preset's field.
#[derive(Args, Default)]
pub(crate) struct ShapeArgs {
    /// Sequence length d_s.
    #[arg(long)]
    pub(crate) seq_len: Option<u32>,
    /// Attention heads d_a.
    #[arg(long)]
    pub(crate) heads: Option<u32>,
    /// Head size d_h.
    #[arg(long)]
    pub(crate) head_size: Option<u32>,
    /// Layers d_l.
    #[arg(long)]
    pub(crate) layers: Option<u32>,
    /// Feed-forward size d_I (default 4 × width).
    #[arg(long)]
    pub(crate) ffn: Option<u32>,
    /// Key/value heads (grouped-query attention; default: heads).
    #[arg(long)]
    pub(crate) kv_heads: Option<u32>,
    /// Gated (SwiGLU) feed-forward block.
    #[arg(long)]
    pub(crate) gated: bool,
    /// No linear biases, RMSNorm.
    #[arg(long)]
    pub(crate) no_biases: bool,
    /// Vocabulary size (counts the embedding and LM head).
    #[arg(long)]
    pub(crate) vocab: Option<u32>,
    /// Untied input embedding and LM head.
    #[arg(long)]
    pub(crate) untied: bool,
    /// q and k normalized per head before the rotary embedding (Qwen3,
    /// OLMo 2, Gemma 3; Megatron-Core's qk_layernorm)
    #[arg(long)]
    pub(crate) qk_norm: bool,
    /// Routed experts per MoE layer (a mixture of experts; 0: dense).
    #[arg(long)]
    pub(crate) experts: Option<u32>,
    /// Experts each token is routed to.
    #[arg(long)]
    pub(crate) top_k: Option<u32>,
    /// Each expert's feed-forward size (default --ffn).
    #[arg(long)]
    pub(crate) expert_ffn: Option<u32>,
    /// Shared experts every token passes through.
    #[arg(long)]
    pub(crate) shared_experts: Option<u32>,
    /// Leading layers with the dense feed-forward block.
    #[arg(long)]
    pub(crate) dense_layers: Option<u32>,
    /// Node-limited routing: each token to experts on at most this many
    /// nodes, sent once per node (DeepSeek-V3: 4; 0: unrestricted).
    #[arg(long)]
    pub(crate) expert_node_limit: Option<u32>,
}

impl ShapeArgs {
    /// The request for the model `name` with these overrides.
    pub(crate) fn request(&self, name: Option<&str>) -> ModelRequest {
        ModelRequest {
            model: name.map(str::to_string),
            seq_len: self.seq_len,
            heads: self.heads,
            head_size: self.head_size,
            layers: self.layers,
            ffn: self.ffn,
            kv_heads: self.kv_heads,
            gated: self.gated,
            no_biases: self.no_biases,
            vocab: self.vocab,
            untied: self.untied,
            qk_norm: self.qk_norm,
            experts: self.experts,
            top_k: self.top_k,
            expert_ffn: self.expert_ffn,
            shared_experts: self.shared_experts,
            dense_layers: self.dense_layers,
            expert_node_limit: self.expert_node_limit,
        }
    }
}

/// A count as people type it (`15.6T`, `16Mi`, `2.5e12`): the one parser
/// of core ([`plan3d_core::units::parse_count`]) for every flag that takes
/// tokens, batches or bytes.
pub(crate) fn count(s: &str) -> Result<f64, String> {
    plan3d_core::units::parse_count(s)
        .ok_or_else(|| format!("'{s}' is not a number {}", plan3d_core::units::COUNT_FORMS))
}

/// A whole count as people type it (`16Ki` GPUs, `2048` sequences).
pub(crate) fn whole(s: &str) -> Result<u64, String> {
    plan3d_core::units::parse_whole(s).ok_or_else(|| {
        format!(
            "'{s}' is not a whole number {}",
            plan3d_core::units::COUNT_FORMS
        )
    })
}

#[derive(Args)]
pub(crate) struct HardwareArgs {
    /// GPU: a100-80gb, a100-40gb, h100-sxm, h100-96gb-500w (Meta's Grand
    /// Teton H100), h800, h200, b200, gb200, b300, gb300.
    #[arg(long, default_value = "a100-80gb")]
    pub(crate) gpu: String,
    /// GPUs per node (NVLink domain); default the GPU's own: 8 for an H100,
    /// H800, H200, B200 or B300, 72 for a GB200 or GB300 NVL72, 16 for the
    /// paper's HGX A100.
    #[arg(long)]
    pub(crate) node_size: Option<u32>,
    /// No node-size limit on tensor parallelism (sec. 7, fig. 5).
    #[arg(long, conflicts_with = "node_size")]
    pub(crate) no_node_limit: bool,
    /// Network of the data/pipeline dimensions: infiniband (200 Gb/s per
    /// GPU, the default: the paper's), infiniband-400, infiniband-800,
    /// roce-400, ethernet (25 Gb/s per GPU), ethernet-100, ethernet-400.
    #[arg(long)]
    pub(crate) network: Option<String>,
    /// Fraction of peak the kernels reach (the paper assumes 1).
    #[arg(long, default_value_t = 1.0)]
    pub(crate) kernel_efficiency: f64,
    /// Override the GPU's memory, in GiB.
    #[arg(long)]
    pub(crate) gpu_memory: Option<f64>,
}

impl HardwareArgs {
    /// Where the network was left at its default (the paper's 200 Gb/s),
    /// the GPU's clusters are usually built faster
    /// ([`plan3d_core::hardware::usual_network`]) and the plan may span
    /// nodes (`most_gpus`, at most, more than a node's), a line that says
    /// so and the flag that sets it: `plan3d plan --gpu h100-sxm` plans at
    /// 200 Gb/s per GPU, where every H100 cluster has 400.
    pub(crate) fn network_note(&self, most_gpus: Option<u64>) -> Option<String> {
        use plan3d_core::hardware::{faster_usual_network, Network};
        if self.network.is_some() {
            return None;
        }
        // The hardware every door plans on (its node size defaulted by
        // core), asked whether its usual network is faster.
        let hw = plan3d_core::api::hardware_of(&self.request()).ok()?;
        let usual = faster_usual_network(&hw, most_gpus)?;
        Some(format!(
            "Network: {}, the default; {} clusters are usually built with {}: --network {} plans on it.",
            Network::InfiniBand200.label(),
            hw.gpu.name,
            usual.label(),
            usual.name()
        ))
    }

    /// `answer` with [`Self::network_note`] under its headline (the first
    /// line); `most_gpus` as there.
    pub(crate) fn with_network_note(&self, answer: String, most_gpus: Option<u64>) -> String {
        match (self.network_note(most_gpus), answer.split_once('\n')) {
            (Some(note), Some((head, rest))) => format!("{head}\n{note}\n{rest}"),
            (Some(note), None) => format!("{answer}\n{note}"),
            (None, _) => answer,
        }
    }

    /// The request these flags make.
    pub(crate) fn request(&self) -> HardwareRequest {
        HardwareRequest {
            gpu: self.gpu.clone(),
            node_size: self.node_size,
            no_node_limit: self.no_node_limit,
            network: self.network.clone().unwrap_or_else(|| "infiniband".into()),
            kernel_efficiency: self.kernel_efficiency,
            gpu_memory: self.gpu_memory,
        }
    }
}

#[derive(Args)]
pub(crate) struct ConstraintArgs {
    /// Exactly this many GPUs (a cap for the rules).
    #[arg(long, value_parser = whole)]
    pub(crate) gpus: Option<u64>,
    /// At most this many GPUs.
    #[arg(long, value_parser = whole)]
    pub(crate) max_gpus: Option<u64>,
    /// A fixed tensor-parallel degree.
    #[arg(long)]
    pub(crate) tensor: Option<u32>,
    /// Train within this many days with as few GPUs as possible.
    #[arg(long)]
    pub(crate) target_days: Option<f64>,
    /// A batch limit other than the critical batch, in sequences.
    #[arg(long, value_parser = whole)]
    pub(crate) batch: Option<u64>,
    /// Discard configurations below this efficiency (exhaustive search).
    #[arg(long, default_value_t = 0.0)]
    pub(crate) min_efficiency: f64,
    /// Activation model: paper, full, selective or none.
    #[arg(long, default_value = "paper")]
    pub(crate) activations: String,
    /// (Practice) the cheapest plan, fewest GPU-hours, instead of the
    /// fastest; with --target-days, the cheapest that meets it
    #[arg(long)]
    pub(crate) cheapest: bool,
}

impl ConstraintArgs {
    /// The most GPUs a plan under these constraints may take, if bounded.
    pub(crate) fn most_gpus(&self) -> Option<u64> {
        self.gpus.or(self.max_gpus)
    }

    /// The request these flags make.
    pub(crate) fn request(&self) -> ConstraintsRequest {
        ConstraintsRequest {
            gpus: self.gpus,
            max_gpus: self.max_gpus,
            tensor: self.tensor,
            target_days: self.target_days,
            batch: self.batch,
            min_efficiency: self.min_efficiency,
            activations: self.activations.clone(),
            cheapest: self.cheapest,
        }
    }
}

/// The practice knobs (practice is the default) and the dimensions they
/// add; in `plan`, a flag given fixes its dimension.
#[derive(Args)]
pub(crate) struct PracticeArgs {
    /// practice (today's Megatron-Core, NeMo, torchtitan; validated on
    /// published runs) or paper (Lamy-Poirier 2021 exactly). The default
    /// was paper until November 2026: add --assumptions paper for the
    /// paper's tables.
    #[arg(long, default_value = "practice")]
    pub(crate) assumptions: String,
    /// Virtual stages per pipeline device (interleaved 1F1B).
    #[arg(long)]
    pub(crate) virtual_stages: Option<u32>,
    /// Interleaved 1F1B: micro-batches each virtual stage takes in a row
    /// (Megatron-Core's --microbatch-group-size-per-virtual-pipeline-stage,
    /// the Llama 3 paper's N): from the pipeline degree to every micro-batch;
    /// more holds more in flight. Default: in evaluate the smallest that
    /// fits; in plan Megatron-Core's, the pipeline degree, which must divide
    /// the micro-batches
    #[arg(long)]
    pub(crate) microbatch_group: Option<u32>,
    /// Sequence parallelism with tensor parallelism (in practice the
    /// default where --tensor > 1, as plan searches it).
    #[arg(long)]
    pub(crate) sequence_parallel: bool,
    /// No sequence parallelism (in `plan`, fixes it off).
    #[arg(long, conflicts_with = "sequence_parallel")]
    pub(crate) no_sequence_parallel: bool,
    /// ZeRO stage: 0, 1 (distributed optimizer), 2, 3 (FSDP) or 3-step
    /// (weights gathered once per step).
    #[arg(long)]
    pub(crate) zero: Option<String>,
    /// Recomputation: none, selective or full.
    #[arg(long)]
    pub(crate) recompute: Option<String>,
    /// Pipeline schedule (also `--schedule`): 1f1b, interleaved (1F1B with
    /// --virtual-stages), gpipe, zb-h1 (zero bubble), zb-v (zero bubble, two
    /// half stages per GPU in a V) or dualpipe; in `plan`, any tries 1f1b,
    /// zb-h1, zb-v and dualpipe; modular is --method improved
    #[arg(long, alias = "schedule")]
    pub(crate) pipeline_schedule: Option<String>,
    /// ZeRO-R activation checkpoints (full recomputation): none, pa
    /// (partitioned over the tensor ranks) or pa-cpu (and in CPU memory)
    #[arg(long)]
    pub(crate) zero_r: Option<String>,
    /// Global batch, sequences.
    #[arg(long, value_parser = whole)]
    pub(crate) global_batch: Option<u64>,
    /// Training tokens (practice default: 20 per parameter).
    #[arg(long, value_parser = count)]
    pub(crate) tokens: Option<f64>,
    /// Training state: mixed-adam (18 bytes per parameter), fp32-adam,
    /// adam-8bit, sgd-momentum.
    #[arg(long)]
    pub(crate) optimizer: Option<String>,
    /// Context-parallel degree: each sequence split over this many GPUs
    /// (ring attention)
    #[arg(long)]
    pub(crate) context_parallel: Option<u32>,
    /// The layers' GEMMs: bf16 (default); fp8 (per-tensor, delayed
    /// scaling), fp8-current (per-tensor, current scaling), fp8-blockwise
    /// (DeepSeek's 1x128 / 128x128 blocks) on H100, H800, H200 and the
    /// Blackwell GPUs; mxfp8 on B200, GB200, B300, GB300 (FP8 efficiency
    /// is an unvalidated assumption)
    #[arg(long)]
    pub(crate) precision: Option<String>,
    /// Expert-parallel degree (mixtures of experts): experts spread over
    /// this many of the data-parallel GPUs
    #[arg(long)]
    pub(crate) expert_parallel: Option<u32>,
    /// The routed experts' own tensor-parallel degree (Megatron-Core's
    /// --expert-tensor-parallel-size; default the tensor degree, searched
    /// over it and 1): ep × etp may then reach tensor × data × context
    #[arg(long)]
    pub(crate) expert_tensor_parallel: Option<u32>,
    /// The busiest GPU's routed-expert work over the average (default 1.1)
    #[arg(long)]
    pub(crate) expert_imbalance: Option<f64>,
    /// Overlap the expert all-to-alls with another micro-batch's compute
    /// (DualPipe, Megatron-Core's EP overlap)
    #[arg(long)]
    pub(crate) overlap_expert: bool,
    /// The layers compiled with torch.compile (torchtitan's
    /// --compile.enable): eager code's extra element-wise kernels (Hugging
    /// Face's fp32 RMSNorm, the rotary embedding) fused away, a layer
    /// keeps what Inductor's partition saves, and under torchtitan,
    /// pytorch and pytorch-fsdp the loss is compiled too
    #[arg(long)]
    pub(crate) compile: bool,
    /// PyTorch's allocator with expandable_segments:True (the default of
    /// every preset but pytorch)
    #[arg(long, conflicts_with = "default_allocator")]
    pub(crate) expandable_segments: bool,
    /// PyTorch's default caching allocator (plain scripts; the pytorch
    /// preset's default): its fragmentation can need one more block the
    /// size of the fp32 logits
    #[arg(long)]
    pub(crate) default_allocator: bool,
    /// Attention kernels: flash (the framework's FlashAttention kernel,
    /// practice's default), cudnn or fa3 (cuDNN's fused attention,
    /// FlashAttention-3's class: Transformer Engine, torchtitan since October
    /// 2025, PyTorch 2.11's SDPA on Hopper and Blackwell), fa2
    /// (FlashAttention-2: flash-attn 2, Hugging Face, llm-foundry,
    /// DeepSpeed, PyTorch's SDPA before 2.11; about half cuDNN's rate on
    /// Hopper), fa1 or triton (FlashAttention-1's class: flash-attn 1.x and
    /// the Triton kernel of llm-foundry's attn_impl: triton, as its
    /// published MPT benchmarks of 2023 ran; 0.42 of FlashAttention-2's
    /// rate on an A100) or materialized (scores stored and moved through
    /// memory: Megatron-LM until 2022)
    #[arg(long)]
    pub(crate) attention: Option<String>,
    /// Tensor-parallel collectives wait for their GEMMs (Megatron-LM
    /// 2021–22, torchtitan without async TP, Hugging Face, DeepSpeed;
    /// megatron-core overlaps them, as Transformer Engine does)
    #[arg(long, conflicts_with = "overlap_tensor")]
    pub(crate) no_overlap_tensor: bool,
    /// Tensor-parallel collectives under the GEMMs whatever the framework
    /// (torchtitan's async TP, Transformer Engine's userbuffers)
    #[arg(long)]
    pub(crate) overlap_tensor: bool,
    /// The data-parallel gradient reduction runs after the backward pass
    /// (Megatron-LM 2021; practice overlaps it in buckets)
    #[arg(long)]
    pub(crate) no_overlap_data: bool,
    /// The head's work in layers in the pipeline split: the last stage
    /// holds this many layers fewer than an even split of layers and head
    /// (Megatron-Core's --decoder-last-pipeline-num-layers); 0 splits the
    /// layers evenly. Default: the head's flops in layers, rounded
    #[arg(long)]
    pub(crate) head_layers: Option<u32>,
    /// The embedding's work in layers in the pipeline split: the first
    /// stage holds this many layers fewer (Megatron-Core's
    /// --account-for-embedding-in-pipeline-split: 1, with --head-layers 1
    /// for its loss; a chunk may then hold the embedding or the head
    /// alone, as PP 16 × VP 8 for 126 layers). Default 0, or 1 where the
    /// virtual stages outnumber the layers
    #[arg(long)]
    pub(crate) embedding_layers: Option<u32>,
    /// The loss over the vocabulary (the last stage's logits memory):
    /// vocab-parallel (Megatron-Core's, 6 bytes a logit; default), eager
    /// (PyTorch's F.cross_entropy on fp32 logits: torchtitan, Hugging Face;
    /// 12 bytes), compiled (the same under torch.compile; 4 bytes), fused-linear
    /// (Liger-Kernel's: logits in chunks) or logits
    /// (4 bytes, the paper's count)
    #[arg(long)]
    pub(crate) cross_entropy: Option<String>,
    /// How tensor parallelism lays out the activations it shards by
    /// sequence: batch-first ([batch, sequence, hidden]: PyTorch's DTensor
    /// plans, torchtitan before August 2026; each sequence-parallel
    /// collective copies its tensor once more) or tokens (Megatron,
    /// torchtitan today). Default: the framework's
    #[arg(long)]
    pub(crate) activation_layout: Option<String>,
    /// Full recomputation stops early, before each layer's down projection
    /// and its tensor-parallel reduction (PyTorch's non-reentrant
    /// checkpoint by default: the pytorch and pytorch-fsdp presets, and
    /// torchtitan before August 2025)
    #[arg(long, conflicts_with = "no_checkpoint_early_stop")]
    pub(crate) checkpoint_early_stop: bool,
    /// Full recomputation runs the whole forward again (Megatron,
    /// DeepSpeed, torchtitan since August 2025)
    #[arg(long)]
    pub(crate) no_checkpoint_early_stop: bool,
    /// How context parallelism exchanges keys and values: ring (each
    /// block computed while the chunk it holds goes to the next rank:
    /// Megatron-Core's cp_comm_type p2p, torchtitan's rotate method
    /// alltoall) or allgather (PyTorch's context_parallel default,
    /// torchtitan's: one all-gather a pass, hidden by the first block
    /// only). Default: the framework's
    #[arg(long)]
    pub(crate) context_exchange: Option<String>,
    /// The layer repeats grouped-query attention's keys and values to the
    /// query heads before the kernel (torchtitan before January 2026): the
    /// copies cost their bytes, the eager kernel keeps them, a
    /// context-parallel ring sends them
    #[arg(long)]
    pub(crate) repeat_kv: bool,
    /// How the layer's RMSNorms run: fused (one kernel: Transformer
    /// Engine, Liger-Kernel, nn.RMSNorm since PyTorch 2.9) or unfused (op
    /// by op in fp32: Hugging Face's LlamaRMSNorm, torchtitan before March
    /// 2025, nn.RMSNorm before PyTorch 2.9; uncompiled it moves and keeps
    /// more). Default: the framework's
    #[arg(long)]
    pub(crate) norm_kernel: Option<String>,
    /// The framework whose memory is counted: megatron-core (default),
    /// megatron-2022, torchtitan, pytorch-fsdp, pytorch (plain AMP) or
    /// deepspeed. It sets the state's formats, the layer's code, dropout,
    /// the loss, the attention kernel, the FP8 casts and, in evaluate, the
    /// sharding (FSDP: ZeRO-3); other flags override it. llm-foundry's
    /// published MPT benchmarks (2023) ran pytorch-fsdp with --attention
    /// triton
    #[arg(long)]
    pub(crate) framework: Option<String>,
    /// Gradients kept and reduced in fp32 or bf16 (Megatron-Core's
    /// grad_reduce_in_fp32; default: the framework's)
    #[arg(long)]
    pub(crate) grad_reduce: Option<String>,
    /// Full recomputation of only this many layers of each pipeline chunk
    /// (Megatron-Core's --recompute-method block --recompute-num-layers;
    /// implies --recompute full); the others keep their activations
    #[arg(long)]
    pub(crate) recompute_layers: Option<u32>,
    /// The activations of this many layers of each pipeline chunk kept in
    /// CPU memory (Megatron-Core's --cpu-offloading-num-layers)
    #[arg(long)]
    pub(crate) offload_layers: Option<u32>,
    /// What selective recomputation recomputes, Megatron-Core's
    /// --recompute-modules comma-separated: core_attn (default), layernorm,
    /// mlp, moe, moe_act, shared_experts, mla_up_proj (implies --recompute
    /// selective)
    #[arg(long)]
    pub(crate) recompute_modules: Option<String>,
    /// The modules whose saved tensors every layer offloads to CPU memory,
    /// Megatron-Core's --fine-grained-activation-offloading
    /// --offload-modules comma-separated: attn_norm, qkv_linear, core_attn,
    /// attn_proj, mlp_norm, expert_fc1, moe_act (copied over the CPU link
    /// under the layers' compute; none under full recomputation)
    #[arg(long)]
    pub(crate) offload_modules: Option<String>,
    /// A calibration profile of your own GPU (JSON, written by
    /// `plan3d calibrate --run` or calibration/calibrate.py): its measured
    /// kernels set the kernel curves in place of the GPU preset's; the
    /// answer gives the preset's figures beside
    #[arg(long, value_name = "FILE")]
    pub(crate) profile: Option<std::path::PathBuf>,
}

/// The calibration profile in `path`, read and parsed (checked against
/// the GPU by the core).
pub(crate) fn read_profile(
    path: &std::path::Path,
) -> Result<plan3d_core::cost::profile::Profile, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--profile {}: cannot read it: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "--profile {}: not a calibration profile: {e}",
            path.display()
        )
    })
}

impl PracticeArgs {
    /// The request these flags make (reading `--profile`'s file).
    pub(crate) fn request(&self) -> Result<PracticeRequest, String> {
        Ok(PracticeRequest {
            assumptions: self.assumptions.clone(),
            virtual_stages: self.virtual_stages,
            microbatch_group: self.microbatch_group,
            sequence_parallel: if self.sequence_parallel {
                Some(true)
            } else if self.no_sequence_parallel {
                Some(false)
            } else {
                None
            },
            zero: self.zero.clone(),
            recompute: self.recompute.clone(),
            pipeline_schedule: self.pipeline_schedule.clone(),
            zero_r: self.zero_r.clone(),
            global_batch: self.global_batch,
            tokens: self.tokens,
            optimizer: self.optimizer.clone(),
            context_parallel: self.context_parallel,
            precision: self.precision.clone(),
            expert_parallel: self.expert_parallel,
            expert_tensor_parallel: self.expert_tensor_parallel,
            expert_imbalance: self.expert_imbalance,
            overlap_expert: self.overlap_expert.then_some(true),
            compile: self.compile.then_some(true),
            expandable_segments: if self.expandable_segments {
                Some(true)
            } else if self.default_allocator {
                Some(false)
            } else {
                None
            },
            attention: self.attention.clone(),
            overlap_tensor: if self.overlap_tensor {
                Some(true)
            } else {
                self.no_overlap_tensor.then_some(false)
            },
            overlap_data: self.no_overlap_data.then_some(false),
            head_layers: self.head_layers,
            embedding_layers: self.embedding_layers,
            cross_entropy: self.cross_entropy.clone(),
            activation_layout: self.activation_layout.clone(),
            checkpoint_early_stop: if self.checkpoint_early_stop {
                Some(true)
            } else {
                self.no_checkpoint_early_stop.then_some(false)
            },
            context_exchange: self.context_exchange.clone(),
            repeat_kv: self.repeat_kv.then_some(true),
            norm_kernel: self.norm_kernel.clone(),
            framework: self.framework.clone(),
            grad_reduce: self.grad_reduce.clone(),
            recompute_layers: self.recompute_layers,
            offload_layers: self.offload_layers,
            recompute_modules: self.recompute_modules.clone(),
            offload_modules: self.offload_modules.clone(),
            profile: self.profile.as_deref().map(read_profile).transpose()?,
        })
    }
}
