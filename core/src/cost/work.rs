//! Work: the compute of a training step and of the whole run, and how
//! much of the peak it uses (MFU, HFU).

use crate::cost::Evaluation;

/// Training steps at the critical batch size (sec. 6; MODEL_NOTES fact 6).
pub const TRAINING_STEPS: f64 = 1e5;

/// Steps to train at batch `batch`: [`TRAINING_STEPS`] at the critical
/// batch, proportionally more below it (sec. 2.1), never fewer above it
/// (eq. 2: past b_c a step's extra sequences do not cut the step count).
#[must_use]
pub fn steps(critical_batch: f64, batch: f64) -> f64 {
    TRAINING_STEPS * (critical_batch / batch).max(1.0)
}

/// Model flops per token and parameter in the standard MFU count: 6 (2 in
/// the forward pass, 4 in the backward pass), no recomputation. Like the
/// paper's work (C.1), it leaves out the attention scores (the d_s² term)
/// and the logit layer.
pub const MODEL_FLOPS_PER_TOKEN_PARAM: f64 = 6.0;

impl Evaluation {
    /// Model flops utilisation: the model's flops (6 per token and
    /// parameter, [`MODEL_FLOPS_PER_TOKEN_PARAM`]) over the GPUs' peak for
    /// the training time: the efficiency × 6 / f, with f = 8 when every
    /// layer is recomputed (the paper's and full recomputation), 6 without
    /// or with selective recomputation (C.1).
    #[must_use]
    pub fn mfu(&self) -> f64 {
        self.efficiency * MODEL_FLOPS_PER_TOKEN_PARAM
            / self.config.activation.flops_per_token_param()
    }

    /// Hardware flops utilisation: every flop computed, recomputation
    /// included, over the peak: the paper's efficiency.
    #[must_use]
    pub fn hfu(&self) -> f64 {
        self.efficiency
    }
}
