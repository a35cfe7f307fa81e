//! Work: the compute of a training step and of the whole run, and how
//! much of the peak it uses (MFU, HFU).

use crate::cost::assumptions::Assumptions;
use crate::cost::Evaluation;
use crate::error::{check_range, Error};
use crate::model::ModelShape;

/// Training tokens of the run under `a`: its budget, else
/// `tokens_per_param` × the exact parameter count (embeddings included).
///
/// # Errors
///
/// A budget that is not finite, below 1 or above 10¹⁸; no rule for the
/// tokens (the paper's fixed work is counted in steps, not here).
pub fn tokens(model: &ModelShape, a: &Assumptions) -> Result<f64, Error> {
    match (a.tokens, a.tokens_per_param) {
        (Some(t), _) => {
            check_range("token budget", t, 1.0, 1e18)?;
            Ok(t)
        }
        (None, Some(r)) => Ok(r * model.params_exact()),
        (None, None) => Err(Error::Unknown {
            what: "token budget",
        }),
    }
}

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
    /// The flash attention kernel timed (`None`: the scores materialized).
    #[must_use]
    pub fn attention(&self) -> Option<crate::cost::kernels::AttentionKernel> {
        self.knobs
            .flash_attention
            .then_some(self.knobs.attention_kernel)
    }

    /// Model flops utilisation: the model's flops (6 per token and
    /// parameter, [`MODEL_FLOPS_PER_TOKEN_PARAM`]) over the GPUs' peak for
    /// the training time: the efficiency × 6 / f, with f = 8 when every
    /// layer is recomputed (the paper's and full recomputation), 6 without
    /// or with selective recomputation (C.1).
    /// Practice: model flops per step (every GEMM, 3 × forward) over the
    /// GPUs' peak for the step.
    #[must_use]
    pub fn mfu(&self) -> f64 {
        // The paper's timing keeps its own expression (efficiency × 6/f):
        // the ratio of the stored flop counts is the same number but can
        // differ in the last bit, and the paper's JSON is pinned byte for
        // byte.
        match self.step_parts {
            None => {
                self.efficiency * MODEL_FLOPS_PER_TOKEN_PARAM
                    / self.config.activation.flops_per_token_param()
            }
            Some(_) => {
                self.efficiency * self.model_flops_per_step.0 / self.hardware_flops_per_step.0
            }
        }
    }

    /// Model Tflop/s per GPU: the MFU count per GPU and second (what
    /// Megatron-Core and NeMo log today; PTD-P's 2021 figures counted the
    /// recomputation too, as [`Self::hfu`] does).
    #[must_use]
    pub fn tflops_per_gpu(&self) -> f64 {
        self.model_flops_per_step.0 / (self.gpus as f64 * self.step.0) / 1e12
    }

    /// Hardware flops utilisation: every flop computed, recomputation
    /// included, over the peak: the paper's efficiency.
    #[must_use]
    pub fn hfu(&self) -> f64 {
        self.efficiency
    }
}
