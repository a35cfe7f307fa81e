//! Recomputation as a step pays it: the forward passes a layer computes,
//! the share of a chunk's layers fully recomputed (Megatron-Core's block
//! method) and the extra flops of selective recomputation's modules.

use crate::cost::assumptions::Assumptions;
use crate::cost::config::Config;
use crate::memory::ActivationModel;
use crate::model::ModelShape;

/// Layers of the largest pipeline chunk: ⌈d_l/(p·v)⌉, what
/// [`Config::recompute_layers`] and [`Config::offload_layers`] count in.
#[must_use]
pub fn chunk_size(cfg: &Config, layers: u32) -> u32 {
    let chunks = cfg.pipe.max(1).saturating_mul(cfg.virtual_stages.max(1));
    layers.div_ceil(chunks).max(1)
}

/// The share of a pipeline chunk's layers that full recomputation
/// recomputes: all of them, or [`Config::recompute_layers`] of the
/// [`chunk_size`] a chunk holds (Megatron-Core's block method); 0 without
/// full recomputation.
#[must_use]
pub fn recomputed_share(cfg: &Config, layers: u32) -> f64 {
    match cfg.activation {
        ActivationModel::Paper | ActivationModel::Full if cfg.partial_recompute() > 0 => {
            (f64::from(cfg.partial_recompute()) / f64::from(chunk_size(cfg, layers))).min(1.0)
        }
        ActivationModel::Paper | ActivationModel::Full => 1.0,
        ActivationModel::Selective | ActivationModel::None => 0.0,
    }
}

/// The share of a chunk's layers whose activations are offloaded to CPU
/// memory ([`Config::offload_layers`]).
#[must_use]
pub fn offloaded_share(cfg: &Config, layers: u32) -> f64 {
    (f64::from(cfg.offloaded_layers()) / f64::from(chunk_size(cfg, layers))).min(1.0)
}

/// Forward passes a layer computes per training pass: 3 (forward, and the
/// backward's two GEMMs per forward GEMM), plus the share of the layers
/// fully recomputed ([`recomputed_share`]: 4 with full recomputation of
/// every layer, as the paper's checkpointing). Selective recomputation
/// adds its modules' flops instead ([`recomputed_flops`]).
#[must_use]
pub fn passes_of(cfg: &Config, layers: u32) -> f64 {
    3.0 + recomputed_share(cfg, layers)
}

/// Extra forward flops per token and layer a configuration's
/// recomputation spends beyond its passes ([`recomputed_parts`], summed).
#[must_use]
pub fn recomputed_flops(model: &ModelShape, cfg: &Config, a: &Assumptions) -> f64 {
    let (attention, linear) = recomputed_parts(model, cfg, a);
    attention + linear
}

/// Extra forward flops per token and layer of selective recomputation, as
/// (attention's scores and values, GEMMs of linear layers):
///
/// * Megatron-Core's modules ([`crate::cost::saved::Modules::flops`]; by
///   default `core_attn`, the scores and values, 4·d_s·d_m);
/// * torchtitan's per-op checkpointing ([`Assumptions::op_selective`]):
///   the forward of every second matmul of the layer, counted in the
///   order it runs them (wq, **wk**, wv, **wo**, w1, **w3**, w2: its
///   `_custom_policy` saves an `aten.mm` output only when the layer's mm
///   count is odd) — the attention's output is saved, so the attention is
///   not computed again.
#[must_use]
pub fn recomputed_parts(model: &ModelShape, cfg: &Config, a: &Assumptions) -> (f64, f64) {
    match cfg.activation {
        ActivationModel::Selective if a.op_selective => (0.0, op_sac_linear_flops(model)),
        ActivationModel::Selective => {
            let m = cfg.modules();
            let all = m.flops(model);
            let scores = if m.has(crate::cost::saved::Modules::CORE_ATTN) {
                model.score_flops_per_token()
            } else {
                0.0
            };
            (scores, (all - scores).max(0.0))
        }
        ActivationModel::Paper | ActivationModel::Full if a.recompute_stops_early() => (
            0.0,
            -early_stop_skipped_flops(model) * recomputed_share(cfg, model.layers),
        ),
        _ => (0.0, 0.0),
    }
}

/// The forward flops per token a recomputed layer skips under PyTorch's
/// non-reentrant checkpoint with early stop
/// ([`Assumptions::recompute_stops_early`]): the
/// recomputation ends once every tensor the backward saved is back, and
/// the last of them are the down projection's input and (under autocast)
/// its bf16 weight, so that matmul, 2·d_ff·d_m, and the residual add after
/// it are not run again. A mixture's layer ends in the experts' combine,
/// which saves the experts' outputs: nothing is skipped.
///
/// Measured on one H100 (`calibration/h100-2026-11-26/profile_steps.json`,
/// GPT 1.3B at micro-batch 8): full recomputation added 34.6 ms of GEMMs
/// where the whole forward's layer GEMMs take ~57 ms, two thirds of them.
#[must_use]
pub fn early_stop_skipped_flops(model: &ModelShape) -> f64 {
    match model.experts {
        None => 2.0 * f64::from(model.ffn) * model.width() as f64,
        Some(_) => 0.0,
    }
}

/// The forward flops per token of the matmuls torchtitan's per-op
/// checkpointing runs again ([`recomputed_parts`]): wk (d_m → kv), wo
/// (attention → d_m) and the second matmul of the feed-forward block (w3
/// of a gated one, the down projection w2 of a plain one), the active
/// experts' for a mixture.
#[must_use]
pub fn op_sac_linear_flops(model: &ModelShape) -> f64 {
    let dm = model.width() as f64;
    let q = model.attention_width() as f64;
    let ffn = match model.experts {
        None => f64::from(model.ffn),
        Some(e) => f64::from(e.ffn) * f64::from(e.top_k + e.shared),
    };
    2.0 * (dm * model.kv_width() + q * dm + dm * ffn)
}

/// Forward passes of a layer's element-wise operators per training pass:
/// [`passes_of`], and one more under torchtitan's per-op checkpointing,
/// which keeps only matmul and attention outputs (norms, rotary, SwiGLU
/// and residual adds all run again).
#[must_use]
pub fn elementwise_passes(cfg: &Config, a: &Assumptions, layers: u32) -> f64 {
    let op_sac = cfg.activation == ActivationModel::Selective && a.op_selective;
    passes_of(cfg, layers) + if op_sac { 1.0 } else { 0.0 }
}

/// Forward passes of the attention kernel per training pass: once, and
/// again when the layer is recomputed (full, or selective with the
/// attention's core among what is recomputed; torchtitan's per-op
/// checkpointing keeps the attention's output).
#[must_use]
pub fn attention_forwards(cfg: &Config, a: &Assumptions) -> f64 {
    match cfg.activation {
        ActivationModel::Paper | ActivationModel::Full => 2.0,
        ActivationModel::Selective if a.op_selective => 1.0,
        ActivationModel::Selective => {
            if cfg.modules().has(crate::cost::saved::Modules::CORE_ATTN) {
                2.0
            } else {
                1.0
            }
        }
        ActivationModel::None => 1.0,
    }
}
