//! Training time from achieved throughput (Megatron-LM PTD-P, seed 002,
//! eq. 4).

use crate::error::{check_range, Error};
use crate::units::Seconds;

/// Flop per token and parameter with activation recomputation (PTD-P eq. 4).
pub const FLOPS_FACTOR_RECOMPUTE: f64 = 8.0;
/// Flop per token and parameter without recomputation (C = 6PD).
pub const FLOPS_FACTOR: f64 = 6.0;

/// End-to-end training time ≈ factor · T · P / (n · X) (PTD-P eq. 4):
/// `tokens` T, `params` P, `gpus` n, achieved flop/s per GPU X, and the
/// flop-per-token-per-parameter `factor` (8 with recomputation, 6 without).
///
/// # Errors
///
/// Any input non-finite, non-positive or absurd (params or tokens above
/// 1e20, GPUs above 1e9, throughput above 1e18 flop/s, factor outside
/// [1, 100]).
///
/// # Examples
///
/// PTD-P sec. 5.1: GPT-3 (175B) on 300B tokens with 1024 A100s at 140
/// Tflop/s each takes about 34 days.
///
/// ```
/// let t = plan3d_core::estimate::training_time(175e9, 300e9, 1024.0, 140e12, 8.0)?;
/// assert_eq!(t.days().round(), 34.0);
/// # Ok::<(), plan3d_core::Error>(())
/// ```
pub fn training_time(
    params: f64,
    tokens: f64,
    gpus: f64,
    flops_per_gpu: f64,
    factor: f64,
) -> Result<Seconds, Error> {
    let p = check_range("parameters", params, 1.0, 1e20)?;
    let t = check_range("tokens", tokens, 1.0, 1e20)?;
    let n = check_range("GPUs", gpus, 1.0, 1e9)?;
    let x = check_range("flop/s per GPU", flops_per_gpu, 1.0, 1e18)?;
    let f = check_range("flop per token and parameter", factor, 1.0, 100.0)?;
    Ok(Seconds(f * t * p / (n * x)))
}
