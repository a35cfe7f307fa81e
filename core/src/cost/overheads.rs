//! Overheads relative to a step's compute: the pipeline bubble, load
//! imbalance, and how they compose into efficiency (MODEL_NOTES fact 7).

use crate::math;
use crate::model::ModelShape;

/// The overheads of a configuration, each relative to the step's compute.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Overheads {
    /// Pipeline bubble (sec. 2.4, sec. 4).
    pub bubble: f64,
    /// Tensor-parallel all-reduces (eq. 12).
    pub tensor: f64,
    /// Data-parallel traffic (eqs. 5–9).
    pub data: f64,
    /// Pipeline transfers (eqs. 10–11).
    pub pipeline: f64,
    /// CPU-GPU offload transfers (eqs. 13–14).
    pub offload: f64,
    /// Load imbalance: ⌈d_l/n_l⌉·n_l/d_l − 1 for the pipeline, composed
    /// with an uneven split of the heads over the tensor devices.
    pub imbalance: f64,
}

impl Overheads {
    /// The overheads as `(key, value)` pairs.
    #[must_use]
    pub fn entries(&self) -> [(&'static str, f64); 6] {
        [
            ("bubble", self.bubble),
            ("tensor", self.tensor),
            ("data", self.data),
            ("pipeline", self.pipeline),
            ("offload", self.offload),
            ("imbalance", self.imbalance),
        ]
    }

    /// Π 1/(1 + overhead) (MODEL_NOTES fact 7).
    #[must_use]
    pub fn efficiency(&self) -> f64 {
        self.entries()
            .iter()
            .map(|(_, o)| 1.0 / (1.0 + o))
            .product()
    }
}

/// Pipeline bubble overhead: (n_l−1)/n_µ for a standard pipeline (sec. 2.4),
/// (n_l−1)·n_l/(n_µ·d_l) for the modular one (sec. 4). `micro_batches` may
/// be fractional (the search uses it as a bound).
#[must_use]
pub(crate) fn bubble(layered: bool, pipe: f64, micro_batches: f64, layers: f64) -> f64 {
    if pipe <= 1.0 {
        0.0
    } else if layered {
        (pipe - 1.0) * pipe / (micro_batches * layers)
    } else {
        (pipe - 1.0) / micro_batches
    }
}

/// Load imbalance when n_l does not divide d_l: ⌈d_l/n_l⌉·n_l/d_l − 1.
#[must_use]
pub(crate) fn imbalance(pipe: f64, layers: f64) -> f64 {
    math::ceil(layers / pipe) * pipe / layers - 1.0
}

/// Load imbalance when n_a does not divide the heads: the busiest device
/// holds ⌈d_a/n_a⌉ heads, which slows the attention projections (their
/// share of the layer's weights) by ⌈d_a/n_a⌉·n_a/d_a. The feed-forward
/// block splits evenly. Beyond the paper, which treats n_a as continuous.
#[must_use]
pub(crate) fn head_imbalance(model: &ModelShape, tensor: u32) -> f64 {
    let (da, na) = (f64::from(model.heads), f64::from(tensor));
    let dm = model.width() as f64;
    let kv = f64::from(model.kv_heads) * f64::from(model.head_size);
    let attention_share = (2.0 * dm * dm + 2.0 * dm * kv) / model.layer_params();
    (math::ceil(da / na) * na / da - 1.0) * attention_share
}
