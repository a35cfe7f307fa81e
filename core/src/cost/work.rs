//! Work: the compute of a training step and of the whole run.

/// Training steps at the critical batch size (sec. 6; MODEL_NOTES fact 6).
pub const TRAINING_STEPS: f64 = 1e5;

/// Steps to train at batch `batch`: [`TRAINING_STEPS`] at the critical
/// batch, proportionally more below it (sec. 2.1), never fewer above it
/// (eq. 2: past b_c a step's extra sequences do not cut the step count).
#[must_use]
pub fn steps(critical_batch: f64, batch: f64) -> f64 {
    TRAINING_STEPS * (critical_batch / batch).max(1.0)
}
