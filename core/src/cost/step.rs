//! The practice timing ([`Timing::Seconds`](crate::cost::assumptions::Timing)):
//! a training step in seconds, from the work of every GEMM, the fitted
//! kernel model, ring collectives on real links and the pipeline schedule.
//!
//! A step is the heaviest pipeline stage's micro-batch time t_µ times the
//! schedule's slots, plus what data parallelism and the optimizer leave
//! exposed:
//!
//! ```text
//! step = slots · (t_compute + t_elementwise + t_tensor + v · t_send)
//!        + t_data,exposed + t_optimizer
//! slots = m · (1 + bubble),  bubble = (p−1)/(v·m) (1F1B, interleaved:
//!         PTD-P sec. 2.2) or (p−1)·p/(m·d_l) (modular, Lamy-Poirier sec. 4)
//! ```
//!
//! Each time here is per micro-batch on one GPU of the heaviest stage.

use crate::cost::assumptions::{
    fp8_peak, kernel_fit, Assumptions, Compute, KernelModel, WorkCount, Zero,
};
use crate::cost::config::{Config, PipelineSchedule, ZeroR};
use crate::hardware::{Hardware, Link};
use crate::memory::ActivationModel;
use crate::model::ModelShape;

/// The time of one step and its parts, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepTime {
    /// GEMMs of the step on the heaviest stage (all micro-batches).
    pub compute: f64,
    /// Memory-bound element-wise kernels.
    pub elementwise: f64,
    /// Tensor-parallel collectives (not overlapped).
    pub tensor: f64,
    /// Pipeline sends on the critical path.
    pub pipeline: f64,
    /// Idle time of the pipeline bubble.
    pub bubble: f64,
    /// Data-parallel traffic left exposed.
    pub data: f64,
    /// The optimizer step (memory-bound).
    pub optimizer: f64,
    /// ZeRO-R P_a+cpu: checkpoint copies to and from CPU memory left
    /// exposed.
    pub offload: f64,
    /// Context parallelism: the ring exchange of keys and values left
    /// exposed by the attention it overlaps.
    pub context: f64,
    /// Expert parallelism: the all-to-all dispatch and combine left
    /// exposed.
    pub expert: f64,
    /// Bytes one GPU sends in the expert all-to-alls per step (not a
    /// time; not in [`Self::total`]).
    pub all_to_all_bytes: f64,
    /// Bytes one GPU sends around the context-parallel ring per step (not
    /// a time).
    pub context_ring_bytes: f64,
    /// The parallel-model's load imbalance: the heaviest stage's extra
    /// layers and the logit layer, relative to an even split (already in
    /// `compute` and `elementwise`; reported for the overheads).
    pub imbalance: f64,
    /// Of `compute`: the attention scores' and values' forward passes
    /// (recomputed ones included).
    pub attention_forward: f64,
    /// Of `compute`: their backward pass.
    pub attention_backward: f64,
    /// Of `compute`: the logit layer.
    pub logits: f64,
    /// Flops of the linear GEMMs (weights, recomputation included) the
    /// heaviest device computes per step (not a time).
    pub linear_flops: f64,
    /// Flops of the attention forward passes, the same.
    pub attention_forward_flops: f64,
    /// Flops of the attention backward pass, the same.
    pub attention_backward_flops: f64,
    /// Flops of the logit layer, the same.
    pub logit_flops: f64,
    /// Bytes the element-wise kernels move per step (not a time).
    pub elementwise_bytes: f64,
    /// Bytes the optimizer step reads and writes (not a time).
    pub optimizer_bytes: f64,
}

/// One class of a step's time ([`StepTime::classes`]): seconds, and the
/// rate its kernels achieve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelClass {
    /// `linear GEMMs`, `attention forward`, `attention backward`,
    /// `logits`, `element-wise`, `optimizer`, `exposed communication`,
    /// `bubble`.
    pub class: &'static str,
    /// Seconds per step.
    pub seconds: f64,
    /// What it achieves, in `unit` per second (`None` for waiting).
    pub rate: Option<f64>,
    /// `flop` or `B`.
    pub unit: Option<&'static str>,
}

impl StepTime {
    /// Where a step goes, by kernel class (the issue's breakdown): the
    /// GEMMs split into linear layers, attention forward and backward and
    /// the logit layer, each with the flop/s it achieves; the element-wise
    /// kernels and the optimizer with the bytes/s they move; exposed
    /// communication; the bubble. The seconds sum to [`Self::total`].
    #[must_use]
    pub fn classes(&self) -> [KernelClass; 8] {
        let per = |amount: f64, seconds: f64| (seconds > 0.0).then(|| amount / seconds);
        let linear =
            (self.compute - self.attention_forward - self.attention_backward - self.logits)
                .max(0.0);
        let exposed =
            self.tensor + self.pipeline + self.data + self.offload + self.context + self.expert;
        let class = |class, seconds, rate, unit| KernelClass {
            class,
            seconds,
            rate,
            unit,
        };
        [
            class(
                "linear GEMMs",
                linear,
                per(self.linear_flops, linear),
                Some("flop"),
            ),
            class(
                "attention forward",
                self.attention_forward,
                per(self.attention_forward_flops, self.attention_forward),
                Some("flop"),
            ),
            class(
                "attention backward",
                self.attention_backward,
                per(self.attention_backward_flops, self.attention_backward),
                Some("flop"),
            ),
            class(
                "logits",
                self.logits,
                per(self.logit_flops, self.logits),
                Some("flop"),
            ),
            class(
                "element-wise",
                self.elementwise,
                per(self.elementwise_bytes, self.elementwise),
                Some("B"),
            ),
            class(
                "optimizer",
                self.optimizer,
                per(self.optimizer_bytes, self.optimizer),
                Some("B"),
            ),
            class("exposed communication", exposed, None, None),
            class("bubble", self.bubble, None, None),
        ]
    }

    /// The whole step.
    #[must_use]
    pub fn total(&self) -> f64 {
        self.compute
            + self.elementwise
            + self.tensor
            + self.pipeline
            + self.bubble
            + self.data
            + self.optimizer
            + self.offload
            + self.context
            + self.expert
    }
}

/// Forward flops per token of one layer: 2 per weight-matrix parameter
/// (the active ones of a mixture of experts, averaged over the layers),
/// and with [`WorkCount::AllGemms`] the attention scores and values,
/// 4·d_s·d_a·d_h (QKᵀ and the weighted sum, PTD-P eq. 3's s/(6h) term; the
/// full square, as Megatron and NeMo count it; see
/// [`ModelShape::score_flops_per_token`]).
#[must_use]
pub fn layer_forward_flops_per_token(model: &ModelShape, work: WorkCount) -> f64 {
    let weights = 2.0 * model.layer_active_params();
    match work {
        WorkCount::WeightMatrices => weights,
        WorkCount::AllGemms => weights + model.score_flops_per_token(),
    }
}

/// Forward flops per token of the logit layer, 2·V·d_m (none without a
/// vocabulary or with [`WorkCount::WeightMatrices`]).
#[must_use]
pub fn logit_forward_flops_per_token(model: &ModelShape, work: WorkCount) -> f64 {
    match (work, model.vocab) {
        (WorkCount::AllGemms, Some(v)) => 2.0 * f64::from(v) * model.width() as f64,
        _ => 0.0,
    }
}

/// Model flops per token (the MFU count: 3 × forward, no recomputation;
/// NeMo's `s·(24Lh² + 12Lhs + 48Lh² + 6Vh)` per sequence for GPT-3).
#[must_use]
pub fn model_flops_per_token(model: &ModelShape, work: WorkCount) -> f64 {
    3.0 * (f64::from(model.layers) * layer_forward_flops_per_token(model, work)
        + logit_forward_flops_per_token(model, work))
}

/// Forward passes a layer computes per training pass: 3 (forward, and the
/// backward's two GEMMs per forward GEMM), 4 with full recomputation (and
/// the paper's checkpointing). Selective recomputation adds the attention
/// scores' forward only ([`recomputed_attention`]).
#[must_use]
pub fn passes(activation: ActivationModel) -> f64 {
    match activation {
        ActivationModel::Paper | ActivationModel::Full => 4.0,
        ActivationModel::Selective | ActivationModel::None => 3.0,
    }
}

/// Extra forward flops per token and layer that selective recomputation
/// spends: the attention scores and values again, 4·d_s·d_m.
#[must_use]
pub fn recomputed_attention(model: &ModelShape, activation: ActivationModel) -> f64 {
    match activation {
        ActivationModel::Selective => model.score_flops_per_token(),
        _ => 0.0,
    }
}

/// Activation bytes per token one layer stores without recomputation
/// (Korthikanti et al. 2022, sec. 4.1, generalised to grouped-query
/// attention and gated feed-forward blocks), as (replicated, split,
/// scores):
///
/// * replicated over the tensor devices unless sequence parallel: the two
///   norms' inputs (4·d_m), the attention and feed-forward inputs (4·d_m),
///   two dropout masks (2·d_m): 10·d_m;
/// * split over the tensor devices: Q (2·d_m), K and V (4·d_kv), the
///   attention output (2·d_m), the feed-forward intermediates (4·d_I, or
///   8·d_I gated: gate, up, activation, product): 24·d_m for GPT; an MoE
///   layer keeps the k routed copies of its input and output (4·k·d_m)
///   and the intermediates of the k + shared experts; latent attention's
///   queries, keys, values and output at their own widths;
/// * the attention scores, softmax and dropout: 5·d_a·d_s, split, none
///   with FlashAttention.
#[must_use]
pub fn activation_bytes_per_token(model: &ModelShape, flash: bool) -> (f64, f64, f64) {
    let dm = model.width() as f64;
    let kv = model.kv_width();
    let gated = if model.gated_mlp { 8.0 } else { 4.0 };
    let ffn = match model.experts {
        None => gated * f64::from(model.ffn),
        // The heaviest (MoE) layer: each token's k routed copies in and out
        // (2·2·d_m·k) and the intermediates of its k routed and the shared
        // experts.
        Some(e) => {
            4.0 * dm * f64::from(e.top_k) + gated * f64::from(e.ffn) * f64::from(e.top_k + e.shared)
        }
    };
    let (q, out, heads) = match model.latent {
        None => {
            let aw = model.attention_width() as f64;
            (2.0 * aw, 2.0 * aw, f64::from(model.heads))
        }
        Some(l) => {
            let h = f64::from(l.heads);
            (
                2.0 * h * f64::from(l.nope + l.rope),
                2.0 * h * f64::from(l.v),
                h,
            )
        }
    };
    let split = q + 4.0 * kv + out + ffn;
    let scores = if flash {
        0.0
    } else {
        5.0 * heads * f64::from(model.seq_len)
    };
    (10.0 * dm, split, scores)
}

/// Activation bytes per token one layer keeps per micro-batch on one GPU,
/// and the working set while it is recomputed (both per token):
///
/// * none: everything, (replicated/t_sp + split/t + scores/t);
/// * selective: the scores are recomputed, the rest kept;
/// * full (and the paper's): the layer input only, the checkpoint
///   2·d_m/t_sp, plus one layer's full set while it is recomputed. ZeRO-R's
///   P_a splits the checkpoint over the t ranks as sequence parallelism
///   does; P_a+cpu keeps none on the GPU but two in the working set (the
///   one restored and the next, prefetched) (seed 001 sec. 6.1).
#[must_use]
pub fn kept_per_token(model: &ModelShape, cfg: &Config, flash: bool) -> (f64, f64) {
    let t = f64::from(cfg.tensor);
    let t_sp = if cfg.sequence_parallel { t } else { 1.0 };
    let (rep, split, scores) = activation_bytes_per_token(model, flash);
    let everything = rep / t_sp + (split + scores) / t;
    match cfg.activation {
        ActivationModel::None => (everything, 0.0),
        ActivationModel::Selective => (rep / t_sp + split / t, scores / t),
        ActivationModel::Full | ActivationModel::Paper => {
            let ckpt = checkpoint_per_token(model, cfg);
            if cfg.zero_r == ZeroR::PaCpu {
                (0.0, everything + 2.0 * ckpt)
            } else {
                (ckpt, everything)
            }
        }
    }
}

/// Bytes per token and layer that FP8 GEMMs save on one GPU (Transformer
/// Engine keeps the FP8 copy of each FP8 GEMM's input for its weight
/// gradient, 1 byte, instead of the BF16 tensor): the inputs of the QKV
/// and feed-forward projections (d_m each, replicated unless sequence
/// parallel), of the attention's output projection (d_a·d_h) and of the
/// down projection (d_I, or the k routed and the shared experts' of an
/// MoE layer), split over the tensor ranks. Only what is kept: none with
/// full recomputation, whose checkpoints are the BF16 layer inputs.
#[must_use]
pub fn fp8_saved_per_token(model: &ModelShape, cfg: &Config) -> f64 {
    if !matches!(
        cfg.activation,
        ActivationModel::None | ActivationModel::Selective
    ) {
        return 0.0;
    }
    let t = f64::from(cfg.tensor);
    let t_sp = if cfg.sequence_parallel { t } else { 1.0 };
    let down = match model.experts {
        None => f64::from(model.ffn),
        Some(e) => f64::from(e.ffn) * f64::from(e.top_k + e.shared),
    };
    let out = match model.latent {
        None => model.attention_width() as f64,
        Some(l) => f64::from(l.heads) * f64::from(l.v),
    };
    2.0 * model.width() as f64 / t_sp + (out + down) / t
}

/// Bytes per token of one layer's activation checkpoint on one GPU under
/// full recomputation: the layer input 2·d_m, split over the tensor ranks
/// by sequence parallelism or ZeRO-R's P_a.
#[must_use]
pub fn checkpoint_per_token(model: &ModelShape, cfg: &Config) -> f64 {
    let split = cfg.sequence_parallel || cfg.zero_r != ZeroR::None;
    let t = if split { f64::from(cfg.tensor) } else { 1.0 };
    2.0 * model.width() as f64 / t
}

/// Layers of each device when `layers` are cut into p·v chunks of near
/// equal size, chunk j on device j mod p (Megatron's interleaved
/// placement): device `stage`'s count.
#[must_use]
pub fn stage_layers(layers: u32, pipe: u32, virtual_stages: u32, stage: u32) -> u32 {
    let chunks = pipe * virtual_stages;
    let (base, rem) = (layers / chunks, layers % chunks);
    (0..virtual_stages)
        .map(|k| {
            let j = stage + k * pipe;
            base + u32::from(j < rem)
        })
        .sum()
}

/// Layers on pipeline device `stage`: [`stage_layers`], or under ZB-V
/// the V's stages `stage` and 2p−1−`stage` of 2p.
#[must_use]
pub fn device_layers(layers: u32, cfg: &Config, stage: u32) -> u32 {
    if v_shaped(cfg) {
        let chunks = 2 * cfg.pipe;
        let (base, rem) = (layers / chunks, layers % chunks);
        [stage, chunks - 1 - stage]
            .into_iter()
            .map(|j| base + u32::from(j < rem))
            .sum()
    } else {
        stage_layers(layers, cfg.pipe, cfg.virtual_stages, stage)
    }
}

/// ZB-V over a pipeline: two chunks per device in a V.
#[must_use]
pub fn v_shaped(cfg: &Config) -> bool {
    cfg.pipeline_schedule == PipelineSchedule::ZbV && cfg.pipe > 1
}

/// Model chunks on each pipeline device: v, or 2 under ZB-V.
#[must_use]
pub fn chunks_per_device(cfg: &Config) -> u32 {
    if v_shaped(cfg) {
        2
    } else {
        cfg.virtual_stages
    }
}

/// Does pipeline device `stage` hold the head (the logit layer)? The last
/// device, or under ZB-V the first (the V ends where it began).
#[must_use]
pub fn holds_head(cfg: &Config, stage: u32) -> bool {
    if v_shaped(cfg) {
        stage == 0
    } else {
        stage + 1 == cfg.pipe
    }
}

/// Micro-batches whose activations device `stage` holds at the peak of a
/// 1F1B schedule: p − stage; interleaved with v chunks, in chunk-micro-
/// batches, 2·(p − stage − 1) + (v − 1)·p + 1 (Megatron's warm-up), which on
/// the first device is p·(1 + (p−1)/(p·v)) stage-sized micro-batches
/// (Korthikanti sec. 4.2.3). Returned in stage-sized micro-batches, at most
/// the batch's m. The modular pipeline and GPipe hold all of their m.
#[must_use]
pub fn in_flight(cfg: &Config, stage: u32) -> f64 {
    let (p, v, m) = (
        f64::from(cfg.pipe),
        f64::from(cfg.virtual_stages),
        f64::from(cfg.micro_batches),
    );
    let i = f64::from(stage);
    if cfg.method.layered() || cfg.pipeline_schedule == PipelineSchedule::GPipe {
        return m;
    }
    if cfg.pipeline_schedule == PipelineSchedule::ZbH1 {
        // Device i: p − i in flight as in 1F1B, plus the i whose weight
        // gradients it defers.
        return p.min(m);
    }
    if cfg.pipeline_schedule == PipelineSchedule::DualPipe && cfg.pipe > 1 {
        return (p + 1.0).min(m);
    }
    if v_shaped(cfg) {
        // Device i holds 2p − i half-stage micro-batches (at most m): p
        // stage-sized on device 0, 1F1B's first device's peak.
        return (2.0 * p - i).min(m) / 2.0;
    }
    let chunk_mbs = if cfg.virtual_stages > 1 {
        2.0 * (p - i - 1.0) + (v - 1.0) * p + 1.0
    } else {
        p - i
    };
    (chunk_mbs / v).min(m)
}

/// Pipeline bubble as a fraction of the step's compute: (p−1)/(v·m) for
/// GPipe, 1F1B and interleaved 1F1B (PTD-P secs. 2.2.1–2.2.2), (p−1)·p/(m·d_l) for the
/// modular pipeline (Lamy-Poirier sec. 4), (p−1)/m · (F+B−W)/(F+B+W) for
/// ZB-H1 (Qi et al. 2024), half that for ZB-V (its chunks are half
/// stages), (p/2−1)/m · (F&B+B−3W)/(F+B+W) for DualPipe (DeepSeek-V3
/// Table 2).
#[must_use]
pub fn bubble_fraction(cfg: &Config, layers: u32) -> f64 {
    let (p, v, m) = (
        f64::from(cfg.pipe),
        f64::from(cfg.virtual_stages),
        f64::from(cfg.micro_batches),
    );
    if cfg.pipe <= 1 {
        0.0
    } else if cfg.method.layered() {
        (p - 1.0) * p / (m * f64::from(layers))
    } else if cfg.pipeline_schedule == PipelineSchedule::ZbH1 {
        // (p−1)(F + B − W) over m(F + B + W): W = F, B the rest of the
        // passes (1 forward-equivalent, 2 with full recomputation).
        let passes = passes(cfg.activation);
        (p - 1.0) / m * (passes - 2.0) / passes
    } else if cfg.pipeline_schedule == PipelineSchedule::ZbV {
        // ZB-H1's over half-stage chunks; the simulated order gives
        // (p−1)·B_chunk of idle per device with W = F ≤ B.
        let passes = passes(cfg.activation);
        (p - 1.0) / m * (passes - 2.0) / (2.0 * passes)
    } else if cfg.pipeline_schedule == PipelineSchedule::DualPipe {
        // (p/2 − 1)(F&B + B − 3W) over m(F + B + W), B the whole backward
        // (passes − 1 forward-equivalents), F&B = F + B, W = F.
        let passes = passes(cfg.activation);
        (p / 2.0 - 1.0) / m * (2.0 * passes - 4.0) / passes
    } else {
        (p - 1.0) / (v * m)
    }
}

/// Time of a ring collective moving `bytes` per GPU among `n` GPUs: an
/// all-reduce moves 2(n−1)/n of the data through each GPU's link, a
/// reduce-scatter or all-gather (n−1)/n (`factor` 2 or 1), at the link's
/// per-direction bandwidth × the bus efficiency.
#[must_use]
pub fn ring_seconds(bytes: f64, n: f64, factor: f64, bandwidth_per_direction: f64) -> f64 {
    if n <= 1.0 {
        0.0
    } else {
        factor * (n - 1.0) / n * bytes / bandwidth_per_direction
    }
}

/// The effective ZeRO stage: the paper's partitioned methods are ZeRO-3.
#[must_use]
pub fn zero_of(cfg: &Config) -> Zero {
    if cfg.method.partitioned() && cfg.zero.stage() < 3 {
        Zero::Three
    } else {
        cfg.zero
    }
}

/// Which links carry the data-parallel and pipeline traffic: ranks are
/// ordered tensor fastest, then data, then pipeline (Megatron's order), so
/// a data-parallel group stays inside a node when t·d ≤ node size and the
/// pipeline's neighbours when t·d·p ≤ node size.
fn per_direction(hw: &Hardware, a: &Assumptions, inside_node: bool) -> f64 {
    let bw = if inside_node {
        hw.bandwidth(Link::NvLink).0
    } else {
        hw.network_bandwidth().0
    };
    bw / 2.0 * a.bus_efficiency
}

/// Weights of pipeline device `stage` (one tensor shard, E/ep of each
/// layer's routed experts), embedding and head included where they live,
/// as (layers', the embedding's or head's).
#[must_use]
pub fn stage_params(model: &ModelShape, cfg: &Config, stage: u32) -> (f64, f64) {
    let layers = f64::from(device_layers(model.layers, cfg, stage));
    let t = f64::from(cfg.tensor);
    let embed = model
        .vocab
        .map_or(0.0, |v| f64::from(v) * model.width() as f64);
    let first = stage == 0;
    let last = holds_head(cfg, stage);
    // Untied: embedding on the first stage, head on the last; tied with a
    // pipeline: a copy on each end (Megatron keeps both in sync).
    let ends = match (first, last, model.tied_embeddings) {
        (true, true, true) => 1.0,
        (true, true, false) => 2.0,
        (true, false, _) | (false, true, _) => 1.0,
        (false, false, _) => 0.0,
    };
    let (dense, experts) = layer_weights_on_gpu(model, cfg.tensor, cfg.expert);
    let copies = dual_copies(cfg);
    (
        copies * layers * (dense + experts),
        copies * ends * embed / t,
    )
}

/// One layer's weights on one GPU, as (the rest, the routed experts): the
/// layer split over `tensor` ranks, its E routed experts also over
/// `expert` ranks (E/ep each). The experts' part is 0 for a dense model.
#[must_use]
pub fn layer_weights_on_gpu(model: &ModelShape, tensor: u32, expert: u32) -> (f64, f64) {
    let t = f64::from(tensor.max(1));
    let lep = model.layer_expert_params();
    (
        (model.layer_params() - lep) / t,
        lep / (f64::from(expert.max(1)) * t),
    )
}

/// DualPipe keeps two stages on each device (stage i and p−1−i): 2 copies
/// of a stage's weights, else 1.
#[must_use]
pub fn dual_copies(cfg: &Config) -> f64 {
    if cfg.pipeline_schedule == PipelineSchedule::DualPipe && cfg.pipe > 1 {
        2.0
    } else {
        1.0
    }
}

/// The routed experts' part of [`stage_params`]' layer weights on one GPU:
/// E/ep experts of each layer, split over the tensor ranks. The heaviest
/// stages are all MoE layers; a stage holding some of the first dense
/// layers is counted as if they were MoE layers too (an upper bound).
#[must_use]
pub fn stage_expert_params(model: &ModelShape, cfg: &Config, stage: u32) -> f64 {
    let layers = f64::from(device_layers(model.layers, cfg, stage));
    dual_copies(cfg) * layers * layer_weights_on_gpu(model, cfg.tensor, cfg.expert).1
}

/// The kernel model's GEMM efficiency and element-wise traffic factor
/// under `a`: flat (the paper's one efficiency, no traffic), the fitted
/// model of the GPU, or a given fit.
fn kernels(hw: &Hardware, a: &Assumptions) -> (f64, f64) {
    match a.kernel {
        KernelModel::Flat => (hw.kernel_efficiency, 0.0),
        KernelModel::Measured => {
            let fit = kernel_fit(&hw.gpu);
            (fit.gemm_efficiency, fit.elementwise_traffic)
        }
        KernelModel::Given(fit) => (fit.gemm_efficiency, fit.elementwise_traffic),
    }
}

/// The peak the linear layers' GEMMs run at: the GPU's FP8 peak under
/// [`Compute::Fp8`], else its BF16 peak (the FP8 check is
/// [`super::evaluate_with`]'s).
#[must_use]
pub fn linear_peak(hw: &Hardware, a: &Assumptions) -> f64 {
    match (a.compute, fp8_peak(&hw.gpu)) {
        (Compute::Fp8, Some(p)) => p.0,
        _ => hw.gpu.peak.0,
    }
}

/// A floor on the heaviest device's time per micro-batch for tensor
/// degree `tensor`, pipeline degree `pipe` and micro-batch `micro_batch`,
/// whatever the rest: the GEMMs and the element-wise traffic of d_l/p
/// layers without recomputation, the activations as split as sequence
/// parallelism makes them, a 1/`context` share of each sequence. The
/// search prunes with it.
#[must_use]
pub fn micro_batch_floor(
    model: &ModelShape,
    hw: &Hardware,
    a: &Assumptions,
    tensor: u32,
    pipe: u32,
    micro_batch: u32,
    context: u32,
) -> f64 {
    let (gemm_eff, traffic) = kernels(hw, a);
    let t = f64::from(tensor);
    let tokens = f64::from(micro_batch) * f64::from(model.seq_len) / f64::from(context.max(1));
    let (rep, split, scores) = activation_bytes_per_token(model, a.flash_attention);
    let elementwise =
        traffic * (rep + split + scores) / t * tokens * 3.0 / hw.bandwidth(Link::GpuMemory).0;
    let linear = 2.0 * model.layer_active_params();
    let attention = layer_forward_flops_per_token(model, a.work) - linear;
    f64::from(model.layers) / f64::from(pipe)
        * (3.0 * tokens / (t * gemm_eff)
            * (linear / linear_peak(hw, a) + attention / hw.gpu.peak.0)
            + elementwise)
}

/// The step time of a configuration under `a` ([`super::evaluate_with`]
/// calls it with [`Timing::Seconds`](crate::cost::assumptions::Timing)).
#[must_use]
pub fn step_time(model: &ModelShape, hw: &Hardware, cfg: &Config, a: &Assumptions) -> StepTime {
    let (t, p, d) = (
        f64::from(cfg.tensor),
        f64::from(cfg.pipe),
        f64::from(cfg.data),
    );
    let m = f64::from(cfg.micro_batches);
    // Each GPU computes a 1/cp share of each sequence's tokens (context
    // parallelism); every per-token cost below follows.
    let cp = f64::from(cfg.context.max(1));
    let tokens = f64::from(cfg.micro_batch) * f64::from(model.seq_len) / cp;
    let dm = model.width() as f64;
    let peak = hw.gpu.peak.0;
    let (gemm_eff, traffic) = kernels(hw, a);
    let mem_bw = hw.bandwidth(Link::GpuMemory).0;

    // The heaviest device: the most layers (device 0) and, on the last
    // device, the logit layer. Take the slower of the two.
    let per_layer_fwd = layer_forward_flops_per_token(model, a.work)
        + recomputed_attention(model, cfg.activation) / passes(cfg.activation);
    let passes = passes(cfg.activation);
    let (rep, split, scores) = activation_bytes_per_token(model, a.flash_attention);
    let t_sp = if cfg.sequence_parallel { t } else { 1.0 };
    let layer_traffic = traffic * (rep / t_sp + (split + scores) / t) * tokens * passes;
    // The linear layers' GEMMs at the linear peak (FP8 or BF16), the
    // attention's at BF16.
    let linear = 2.0 * model.layer_active_params();
    // Mixture of experts: the busiest GPU's routed experts compute
    // `expert_imbalance` times the average, and the rest wait for it.
    let routed_extra =
        2.0 * model.layer_routed_active_params() * (a.expert_imbalance - 1.0).max(0.0);
    let lin_peak = linear_peak(hw, a);
    let layer_gemm = if a.compute == Compute::Bf16 {
        passes * (per_layer_fwd + routed_extra) * tokens / (t * peak * gemm_eff)
    } else {
        passes * tokens / (t * gemm_eff)
            * ((linear + routed_extra) / lin_peak + (per_layer_fwd - linear) / peak)
    };
    let layer_time = layer_gemm + layer_traffic / mem_bw;
    let logit_time =
        3.0 * logit_forward_flops_per_token(model, a.work) * tokens / (t * peak * gemm_eff);
    let stage_time = |stage: u32| {
        let layers = f64::from(device_layers(model.layers, cfg, stage));
        let logits = if holds_head(cfg, stage) {
            logit_time
        } else {
            0.0
        };
        (layers, logits)
    };
    let (first_layers, first_logits) = stage_time(0);
    let (last_layers, last_logits) = stage_time(cfg.pipe - 1);
    let first = first_layers * layer_time + first_logits;
    let last = last_layers * layer_time + last_logits;
    let (heavy_layers, heavy_logits) = if first >= last {
        (first_layers, first_logits)
    } else {
        (last_layers, last_logits)
    };
    let compute_mb = heavy_layers * layer_gemm + heavy_logits;
    let elementwise_mb = heavy_layers * layer_traffic / mem_bw;
    // The attention's share of the GEMMs: forward once, twice when
    // recomputed (full or selective), backward twice the forward's work.
    let score = layer_forward_flops_per_token(model, a.work) - linear;
    let attention_forwards = match cfg.activation {
        ActivationModel::Paper | ActivationModel::Full | ActivationModel::Selective => 2.0,
        ActivationModel::None => 1.0,
    };
    let attention_flops_mb = heavy_layers * score * tokens / t;
    let logit_flops_mb = if heavy_logits > 0.0 {
        3.0 * logit_forward_flops_per_token(model, a.work) * tokens / t
    } else {
        0.0
    };
    let even = (f64::from(model.layers) * layer_time + logit_time) / p;

    // Tensor parallelism: per layer, two all-reduces forward, two backward,
    // two more to recompute the forward (full); with sequence parallelism
    // each is a reduce-scatter + all-gather of the same volume. Over
    // NVLink (t ≤ node size is checked).
    let collectives = match cfg.activation {
        ActivationModel::Paper | ActivationModel::Full => 6.0,
        _ => 4.0,
    };
    let nvlink = per_direction(hw, a, true);
    // ZeRO-R P_a without sequence parallelism: each layer's checkpoint is
    // all-gathered over the tensor ranks before it is recomputed.
    let recomputes = matches!(
        cfg.activation,
        ActivationModel::Paper | ActivationModel::Full
    );
    let gathers = if recomputes && cfg.zero_r != ZeroR::None && !cfg.sequence_parallel {
        ring_seconds(2.0 * tokens * dm, t, 1.0, nvlink)
    } else {
        0.0
    };
    let tensor_comm =
        heavy_layers * (collectives * ring_seconds(2.0 * tokens * dm, t, 2.0, nvlink) + gathers);
    let tensor_mb = if a.overlap_tensor {
        (tensor_comm - heavy_layers * layer_gemm).max(0.0)
    } else {
        tensor_comm
    };

    // Context parallelism (ring attention): each layer passes its key and
    // value chunk around the ring, (cp−1)/cp of a sequence's K and V per
    // GPU forward, and again with their gradients backward (3 times in
    // all, 4 with full recomputation), each 2·kv·b·s/t·2 bytes; over
    // NVLink while t·cp fits a node (ranks ordered tensor, context, data,
    // pipeline, as Megatron-Core), else the network; overlapped with the
    // attention it feeds.
    let node = f64::from(hw.node_size.unwrap_or(u32::MAX));
    let mut ring_bytes_mb = 0.0;
    let context_mb = if cfg.context > 1 {
        let kv = model.kv_width();
        let passes_kv = if recomputes { 4.0 } else { 3.0 };
        let bytes = passes_kv * (cp - 1.0) / cp
            * 2.0
            * kv
            * 2.0
            * f64::from(cfg.micro_batch)
            * f64::from(model.seq_len)
            / t;
        ring_bytes_mb = heavy_layers * bytes;
        let link = per_direction(hw, a, t * cp <= node);
        let attention = passes * (per_layer_fwd - linear) * tokens / (t * peak * gemm_eff);
        heavy_layers * (bytes / link - attention).max(0.0)
    } else {
        0.0
    };

    // Expert parallelism: every MoE layer dispatches each token's k copies
    // to the GPUs holding its experts and combines them back: forward a
    // dispatch (in FP8 under FP8 compute, DeepSeek-V3 sec. 3.3.2; else
    // BF16) and a BF16 combine, backward the two in BF16, and the forward
    // again when it is recomputed; d_m elements per copy, tokens/t tokens
    // per GPU. The ep ranks are data ranks t·cp apart: g = node/(t·cp) of
    // them share a node. Unrestricted routing sends k·(ep−g)/ep copies per
    // token over the network and k·(g−1)/ep over NVLink; node-limited
    // routing sends one copy per distinct remote node (of n = ep/g nodes,
    // n·(1−(1−1/n)^k) expected for uniform routing, at most the limit)
    // and forwards k·(g−1)/g inside the node. The slower link sets the
    // time.
    let mut a2a_bytes_mb = 0.0;
    let expert_mb = match model.experts {
        Some(e) if cfg.expert > 1 => {
            let ep = f64::from(cfg.expert);
            let g = crate::math::floor(node / (t * cp)).clamp(1.0, ep);
            let k = f64::from(e.top_k);
            let nodes = ep / g;
            let (remote, local) = if e.node_limit > 0 && nodes > 1.0 {
                let distinct = nodes * (1.0 - crate::math::pow(1.0 - 1.0 / nodes, k));
                (
                    distinct.min(f64::from(e.node_limit)) * (nodes - 1.0) / nodes,
                    k * (g - 1.0) / g,
                )
            } else {
                (k * (ep - g) / ep, k * (g - 1.0) / ep)
            };
            let dispatch = if a.compute == Compute::Fp8 { 1.0 } else { 2.0 };
            let forward = dispatch + 2.0;
            let bytes_per_element = if recomputes { 2.0 * forward } else { forward } + 4.0;
            let moe_share = f64::from(model.moe_layers()) / f64::from(model.layers);
            let elements = heavy_layers * moe_share * tokens / t * dm;
            let a2a = bytes_per_element
                * elements
                * (local / nvlink).max(remote / per_direction(hw, a, false));
            a2a_bytes_mb = bytes_per_element * elements * (remote + local);
            // DualPipe's fused F&B pairs exist to hide these.
            if a.overlap_expert || cfg.pipeline_schedule == PipelineSchedule::DualPipe {
                (a2a - (compute_mb + elementwise_mb)).max(0.0)
            } else {
                a2a
            }
        }
        _ => 0.0,
    };

    // Pipeline sends: one activation forward and one gradient backward per
    // micro-batch and chunk, 2·b·s·d_m/t bytes (split over the tensor
    // ranks: sequence parallelism, or PTD-P's scatter/gather).
    let pipe_bw = per_direction(hw, a, t * cp * d * p <= node);
    let send_mb = if cfg.pipe > 1 {
        2.0 * f64::from(chunks_per_device(cfg)) * (2.0 * tokens * dm / t) / pipe_bw
    } else {
        0.0
    };

    let bubble = bubble_fraction(cfg, model.layers);
    let mb = compute_mb + elementwise_mb + tensor_mb + send_mb + context_mb + expert_mb;
    let slots = m * (1.0 + bubble);

    // Data parallelism. Gradients of the heaviest device (one tensor
    // shard) reduced in `gradient_reduce_bytes`; with the optimizer state
    // sharded (ZeRO-1/2) a reduce-scatter and an all-gather of the bf16
    // weights, else an all-reduce; ZeRO-2/3 reduce every micro-batch's
    // gradients, ZeRO-3 gathers the weights for the forward and the
    // backward of every micro-batch (or once per step).
    let rings = DataRing::new(model, hw, cfg, a);
    let ring = |bytes_per_param: f64, factor: f64| rings.seconds(bytes_per_param, factor);
    let grad = a.gradient_reduce_bytes;
    let weights = 2.0;
    let zero = zero_of(cfg);
    let fwd_share = 1.0 / passes;
    let bwd_mb = (compute_mb + elementwise_mb) * (1.0 - fwd_share);
    let fwd_mb = (compute_mb + elementwise_mb) * fwd_share;
    let exposed = |comm: f64, window: f64| {
        if a.overlap_data {
            (comm - window).max(0.0)
        } else {
            comm
        }
    };
    let data = if cfg.method.layered() {
        // Layered gradient accumulation (Lamy-Poirier sec. 3): each layer's
        // gradients are reduced, and a partitioned state restored, once per
        // step, under the backward (forward) pass of all m micro-batches.
        let restore = if zero.stage() == 3 { weights } else { 0.0 };
        let factor = if zero.stage() >= 1 { 1.0 } else { 2.0 };
        exposed(ring(grad, factor) + ring(restore, 1.0), m * bwd_mb)
            + exposed(ring(restore, 1.0), m * fwd_mb)
    } else {
        match zero {
            Zero::None => exposed(ring(grad, 2.0), bwd_mb),
            Zero::One => exposed(ring(grad, 1.0), bwd_mb) + exposed(ring(weights, 1.0), fwd_mb),
            Zero::Two => m * exposed(ring(grad, 1.0), bwd_mb) + exposed(ring(weights, 1.0), fwd_mb),
            Zero::Three => {
                m * (exposed(ring(grad, 1.0), bwd_mb / 2.0)
                    + exposed(ring(weights, 1.0), bwd_mb / 2.0)
                    + exposed(ring(weights, 1.0), fwd_mb))
            }
            Zero::ThreePerStep => {
                exposed(ring(weights, 1.0), fwd_mb) + exposed(ring(grad, 1.0), bwd_mb)
            }
        }
    };

    // ZeRO-R P_a+cpu: each layer's (partitioned) checkpoint goes to CPU
    // memory in the forward and comes back before its recomputation, over
    // the CPU link, overlapped with the layer's own forward and backward.
    let offload = if recomputes && cfg.zero_r == ZeroR::PaCpu {
        let copy = checkpoint_per_token(model, cfg) * tokens / hw.bandwidth(Link::CpuGpu).0;
        let layer = (layer_gemm * passes.recip()).max(0.0);
        let exposed_fwd = (copy - layer).max(0.0);
        let exposed_bwd = (copy - layer * (passes - 1.0)).max(0.0);
        m * heavy_layers * (exposed_fwd + exposed_bwd)
    } else {
        0.0
    };

    // The optimizer step: memory-bound over the local shard.
    let (_, _, opt_shard) = zero.shards(rings.ranks);
    let (_, _, opt_shard_e) = zero.shards(rings.expert_ranks);
    let optimizer_bytes =
        (rings.dense / opt_shard + rings.experts / opt_shard_e) * a.precision.optimizer_traffic();
    let optimizer = optimizer_bytes / mem_bw;

    StepTime {
        compute: m * compute_mb,
        elementwise: m * elementwise_mb,
        tensor: m * tensor_mb,
        pipeline: m * send_mb,
        bubble: (slots - m) * mb,
        data,
        optimizer,
        offload,
        context: m * context_mb,
        expert: m * expert_mb,
        all_to_all_bytes: m * a2a_bytes_mb,
        context_ring_bytes: m * ring_bytes_mb,
        imbalance: ((compute_mb + elementwise_mb) / even.max(f64::MIN_POSITIVE) - 1.0).max(0.0),
        attention_forward: m * attention_forwards * attention_flops_mb / (peak * gemm_eff),
        attention_backward: m * 2.0 * attention_flops_mb / (peak * gemm_eff),
        logits: m * heavy_logits,
        linear_flops: m * heavy_layers * passes * (linear + routed_extra) * tokens / t,
        attention_forward_flops: m * attention_forwards * attention_flops_mb,
        attention_backward_flops: m * 2.0 * attention_flops_mb,
        logit_flops: m * logit_flops_mb,
        elementwise_bytes: m * heavy_layers * layer_traffic,
        optimizer_bytes,
    }
}

/// Ring collectives over the data-parallel ranks for the heaviest
/// device's weights: the routed experts' weights over the ep-fold smaller
/// expert-data-parallel group, the rest over the data and context ranks
/// (they hold the same weights), on NVLink while t·d·cp fits a node, else
/// the network.
#[derive(Clone, Copy, Debug)]
pub struct DataRing {
    dense: f64,
    experts: f64,
    ranks: f64,
    expert_ranks: f64,
    bandwidth: f64,
}

impl DataRing {
    /// The rings of a configuration under `a`.
    #[must_use]
    pub fn new(model: &ModelShape, hw: &Hardware, cfg: &Config, a: &Assumptions) -> Self {
        let (layer_w, ends_w) = stage_params(model, cfg, 0);
        let (layer_w_last, ends_w_last) = stage_params(model, cfg, cfg.pipe - 1);
        let params = (layer_w + ends_w).max(layer_w_last + ends_w_last);
        let experts = stage_expert_params(model, cfg, 0);
        let d = f64::from(cfg.data) * f64::from(cfg.context.max(1));
        let node = f64::from(hw.node_size.unwrap_or(u32::MAX));
        Self {
            dense: params - experts,
            experts,
            ranks: d,
            expert_ranks: d / f64::from(cfg.expert.max(1)),
            bandwidth: per_direction(hw, a, f64::from(cfg.tensor) * d <= node),
        }
    }

    /// Seconds of one collective of `bytes_per_param` per weight (`factor`
    /// 2 for an all-reduce, 1 for a reduce-scatter or an all-gather).
    #[must_use]
    pub fn seconds(&self, bytes_per_param: f64, factor: f64) -> f64 {
        ring_seconds(
            self.dense * bytes_per_param,
            self.ranks,
            factor,
            self.bandwidth,
        ) + ring_seconds(
            self.experts * bytes_per_param,
            self.expert_ranks,
            factor,
            self.bandwidth,
        )
    }
}

/// One micro-batch on the heaviest device as [`step_time`] times it, cut
/// into the passes a simulated schedule draws (the page's animation of a
/// practice plan takes its durations from here, so that its step is the
/// evaluator's, not the paper's perfect kernels).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MicroBatchSeconds {
    /// The forward pass of every layer on the device: 1/passes of its
    /// GEMMs, element-wise kernels and exposed tensor, context, expert
    /// and offload traffic ([`passes`]).
    pub forward: f64,
    /// The backward pass, recomputation included: the other
    /// (passes − 1)/passes.
    pub backward: f64,
    /// One pipeline send (one direction, one chunk).
    pub send: f64,
    /// The device's gradient reduction over the data ranks, whole (not
    /// only what is left exposed): a reduce-scatter with ZeRO ≥ 1, else
    /// an all-reduce, in the run's gradient precision.
    pub reduce: f64,
    /// The all-gather of the device's bf16 weights (ZeRO-1's after the
    /// step, ZeRO-3's before each use).
    pub restore: f64,
    /// The optimizer step over the device's shard.
    pub optimizer: f64,
}

/// [`MicroBatchSeconds`] of a configuration under `a`.
#[must_use]
pub fn micro_batch_seconds(
    model: &ModelShape,
    hw: &Hardware,
    cfg: &Config,
    a: &Assumptions,
) -> MicroBatchSeconds {
    let parts = step_time(model, hw, cfg, a);
    let m = f64::from(cfg.micro_batches.max(1));
    let busy = (parts.compute
        + parts.elementwise
        + parts.tensor
        + parts.context
        + parts.expert
        + parts.offload)
        / m;
    let passes = passes(cfg.activation);
    let factor = if zero_of(cfg).stage() >= 1 { 1.0 } else { 2.0 };
    let rings = DataRing::new(model, hw, cfg, a);
    MicroBatchSeconds {
        forward: busy / passes,
        backward: busy * (passes - 1.0) / passes,
        send: parts.pipeline / m / (2.0 * f64::from(chunks_per_device(cfg))),
        reduce: rings.seconds(a.gradient_reduce_bytes, factor),
        restore: rings.seconds(2.0, 1.0),
        optimizer: parts.optimizer,
    }
}
