//! What a step computes and holds: flops per token of a layer, the logit
//! layer and the model; the head's work in layers; the ZeRO stage a
//! configuration runs; the weights on each pipeline device.

use super::{device_layers, holds_head, passes_of};
use crate::cost::assumptions::{WorkCount, Zero};
use crate::cost::config::{Config, PipelineSchedule};
use crate::model::ModelShape;

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

/// The head's work in whole layers, for a pipeline split that balances
/// it ([`Config::head_layers`]): the logit layer's forward and backward
/// (3 × its forward flops; it is never recomputed) over a layer's passes
/// (with the recomputation `cfg` runs), rounded. For DeepSeek-V3 (a
/// 129 K × 7 168 head, 37 B active parameters over 61 layers) with full
/// recomputation, 1; GPT-3's (51 K × 12 288), 0. 0 without
/// a pipeline or a vocabulary, and under DualPipe (each of its devices
/// holds a stage from each end).
#[must_use]
pub fn balanced_head(model: &ModelShape, cfg: &Config, work: WorkCount) -> u32 {
    if cfg.pipe <= 1 || cfg.pipeline_schedule == PipelineSchedule::DualPipe {
        return 0;
    }
    let layer = passes_of(cfg, model.layers) * layer_forward_flops_per_token(model, work);
    let head = 3.0 * logit_forward_flops_per_token(model, work);
    if layer > 0.0 && head > 0.0 {
        // Bounded by the layers: the cast cannot overflow.
        libm::round(head / layer).min(f64::from(model.layers)) as u32
    } else {
        0
    }
}

/// The embedding's and the head's work in layers in the pipeline split
/// ([`Config::embedding_layers`], [`Config::head_layers`]), each as given
/// or, where left to plan3d, the head's [`balanced_head`] and no
/// embedding; unless the virtual stages need them: Megatron-Core takes
/// more model chunks (p·v) than layers only with the embedding and the
/// loss counted as a layer each (`account_for_embedding_in_pipeline_split`,
/// `account_for_loss_in_pipeline_split`; Llama 3.1 405B's 126 layers over
/// PP 16 × VP 8, as NVIDIA's recipes run it), so then the embedding left
/// to plan3d counts as one layer, and the head as one at least.
#[must_use]
pub fn pipeline_ends(
    model: &ModelShape,
    cfg: &Config,
    work: WorkCount,
    embedding: Option<u32>,
    head: Option<u32>,
) -> (u32, u32) {
    let balanced = head.unwrap_or_else(|| balanced_head(model, cfg, work));
    let needed = cfg.pipe > 1
        && cfg.virtual_stages
            > crate::cost::config::max_virtual_stages(model.layers, cfg.pipe, balanced.min(1));
    match embedding {
        Some(e) => (e, balanced),
        None if needed => (
            1,
            if head.is_none() {
                balanced.max(1)
            } else {
                balanced
            },
        ),
        None => (0, balanced),
    }
}

/// Model flops per token (the MFU count: 3 × forward, no recomputation;
/// NeMo's `s·(24Lh² + 12Lhs + 48Lh² + 6Vh)` per sequence for GPT-3).
#[must_use]
pub fn model_flops_per_token(model: &ModelShape, work: WorkCount) -> f64 {
    3.0 * (f64::from(model.layers) * layer_forward_flops_per_token(model, work)
        + logit_forward_flops_per_token(model, work))
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

/// The ZeRO stage as the framework runs it ([`zero_of`], then the
/// framework's own rule). torchtitan's FSDP under a pipeline does not
/// reshard after the forward (`reshard_after_forward = False` "to avoid
/// per-microbatch all-gathers, which can be expensive and non-overlapped":
/// `parallelize_llama.py` of 9dec370, `torchtitan/distributed/fsdp.py`
/// today), and PyTorch's pipelining stage syncs gradients on the last
/// micro-batch's backward only (`backward_maybe_with_nosync`): each
/// stage's weights are gathered once per step and its gradients reduced
/// once: ZeRO-3 per step, where `pipeline_gathers_step` (the framework's
/// [`Framework::pipeline_gathers_step`], whose memory counts it too).
///
/// [`Framework::pipeline_gathers_step`]: crate::cost::framework::Framework::pipeline_gathers_step
#[must_use]
pub fn zero_run(cfg: &Config, pipeline_gathers_step: bool) -> Zero {
    match zero_of(cfg) {
        Zero::Three if pipeline_gathers_step && cfg.pipe > 1 => Zero::ThreePerStep,
        zero => zero,
    }
}

/// Weights of pipeline device `stage` (one tensor shard, E/ep of each
/// layer's routed experts), embedding and head included where they live,
/// as (layers', the embedding's or head's).
#[must_use]
pub fn stage_params(model: &ModelShape, cfg: &Config, stage: u32) -> (f64, f64) {
    stage_params_of(
        model,
        cfg,
        stage,
        device_layers(model.layers, cfg, stage),
        layer_weights_on_gpu(model, cfg.tensor, cfg.expert, cfg.expert_tensor),
    )
}

/// [`stage_params`] given the device's layers ([`device_layers`]) and one
/// layer's weights on a GPU ([`layer_weights_on_gpu`]).
pub(crate) fn stage_params_of(
    model: &ModelShape,
    cfg: &Config,
    stage: u32,
    layers: u32,
    (dense, experts): (f64, f64),
) -> (f64, f64) {
    let layers = f64::from(layers);
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
    let copies = dual_copies(cfg);
    (
        copies * layers * (dense + experts),
        copies * ends * embed / t,
    )
}

/// One layer's weights on one GPU, as (the rest, the routed experts): the
/// layer split over `tensor` ranks, its E routed experts over `expert`
/// ranks (E/ep each) and each expert over its own `expert_tensor` ranks
/// ([`Config::expert_tensor`]; 0: `tensor`). The experts' part is 0 for
/// a dense model.
#[must_use]
#[inline]
pub fn layer_weights_on_gpu(
    model: &ModelShape,
    tensor: u32,
    expert: u32,
    expert_tensor: u32,
) -> (f64, f64) {
    let t = f64::from(tensor.max(1));
    let etp = if expert_tensor == 0 {
        t
    } else {
        f64::from(expert_tensor)
    };
    let lep = model.layer_expert_params();
    (
        (model.layer_params() - lep) / t,
        lep / (f64::from(expert.max(1)) * etp),
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
    dual_copies(cfg)
        * layers
        * layer_weights_on_gpu(model, cfg.tensor, cfg.expert, cfg.expert_tensor).1
}
