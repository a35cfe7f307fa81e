//! What a caller asks for: the CLI's flags as plain data, one struct per
//! subcommand. Names are the flags' (`--micro-batches` is `micro_batches`)
//! and every field the CLI defaults has the same default here, so a
//! request written as JSON (`{"model": "gpt-3"}`) means what the same
//! flags mean.

use alloc::string::String;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

mod practice;
pub use practice::PracticeRequest;

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
