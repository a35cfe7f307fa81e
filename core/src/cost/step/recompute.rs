//! Recomputation as a step pays it: the forward passes a layer computes,
//! the share of a chunk's layers fully recomputed (Megatron-Core's block
//! method) and the extra flops of selective recomputation's modules.

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
/// recomputation spends beyond its passes: selective recomputation's
/// modules ([`crate::cost::saved::Modules::flops`]; by default the
/// attention scores and values, 4·d_s·d_m).
#[must_use]
pub fn recomputed_flops(model: &ModelShape, cfg: &Config) -> f64 {
    match cfg.activation {
        ActivationModel::Selective => cfg.modules().flops(model),
        _ => 0.0,
    }
}
