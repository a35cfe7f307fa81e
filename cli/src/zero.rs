//! `plan3d zero`: ZeRO-DP model-state memory per device and communication
//! volume.

use plan3d_core::zero;
use serde_json::{json, Value};

/// Memory per device for Ψ parameters over `dp` devices at a ZeRO stage.
pub(crate) fn zero_cmd(params: f64, dp: u32, stage: u8, k: f64) -> Result<Value, String> {
    let z = zero::zero(params, dp, stage, k).map_err(|e| e.to_string())?;
    Ok(json!({
        "params_bytes": z.params.get(),
        "grads_bytes": z.grads.get(),
        "optimizer_bytes": z.optimizer.get(),
        "total_bytes": z.total().get(),
        "comm_volume_elements": z.comm_volume_elements,
    }))
}
