//! ZeRO-DP model-state memory and communication (Rajbhandari et al.,
//! seed 001, sec. 5 and fig. 1; communication, sec. 7).

use crate::error::{check_count, check_range, Error};
use crate::units::Bytes;

/// Model-state memory per device and communication per step for a ZeRO
/// stage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZeroState {
    /// fp16 parameters: 2Ψ, divided by N_d at stage 3 (P_os+g+p).
    pub params: Bytes,
    /// fp16 gradients: 2Ψ, divided by N_d from stage 2 (P_os+g).
    pub grads: Bytes,
    /// Optimizer state: KΨ, divided by N_d from stage 1 (P_os).
    pub optimizer: Bytes,
    /// Parameter elements sent and received per device and step: 2Ψ for a
    /// reduce-scatter plus all-gather (stages 0–2), 3Ψ with parameter
    /// partitioning (stage 3: an extra all-gather, sec. 7.2).
    pub comm_volume_elements: f64,
}

impl ZeroState {
    /// params + grads + optimizer: (2 + 2 + K)Ψ with no partitioning.
    #[must_use]
    pub fn total(&self) -> Bytes {
        self.params + self.grads + self.optimizer
    }
}

/// Largest parameter count accepted (1e20, far beyond any model).
pub const MAX_PARAMS: f64 = 1e20;

/// ZeRO-DP memory per device (fig. 1): stage 0 is plain data parallelism,
/// 1 partitions the optimizer state, 2 also the gradients, 3 also the
/// parameters. `k` is the optimizer multiplier (12 for mixed-precision Adam).
///
/// # Errors
///
/// Parameters not in [1, 1e20], a data-parallel degree of 0 or above 2^32,
/// a stage above 3, or `k` not in [0, 1000].
///
/// # Examples
///
/// The paper's example, Ψ = 7.5B, N_d = 64, K = 12: 120 GB at stage 0,
/// 1.9 GB at stage 3.
///
/// ```
/// let s0 = plan3d_core::zero::zero(7.5e9, 64, 0, 12.0)?;
/// let s3 = plan3d_core::zero::zero(7.5e9, 64, 3, 12.0)?;
/// assert_eq!(s0.total().get(), 120e9);
/// assert_eq!(s3.total().get(), 1.875e9);
/// # Ok::<(), plan3d_core::Error>(())
/// ```
pub fn zero(params: f64, dp: u32, stage: u8, k: f64) -> Result<ZeroState, Error> {
    let psi = check_range("parameters", params, 1.0, MAX_PARAMS)?;
    let nd = check_count("data-parallel degree", dp.into(), 1, 1 << 32)? as f64;
    check_count("ZeRO stage", stage.into(), 0, 3)?;
    let k = check_range("optimizer multiplier K", k, 0.0, 1000.0)?;
    let split = |from: u8| if stage >= from { nd } else { 1.0 };
    Ok(ZeroState {
        params: Bytes(2.0 * psi / split(3)),
        grads: Bytes(2.0 * psi / split(2)),
        optimizer: Bytes(k * psi / split(1)),
        comm_volume_elements: if stage >= 3 { 3.0 * psi } else { 2.0 * psi },
    })
}
