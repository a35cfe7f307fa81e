//! `plan3d zero`: ZeRO-DP model-state memory per device and communication
//! volume.

use plan3d_core::api;
use serde_json::Value;

use crate::output::to_json;

/// Memory per device for Ψ parameters over `dp` devices at a ZeRO stage.
pub(crate) fn zero_cmd(params: f64, dp: u32, stage: u8, k: f64) -> Result<Value, String> {
    to_json(api::zero(params, dp, stage, k))
}
