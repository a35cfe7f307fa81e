//! `plan3d estimate`: training time from tokens and achieved throughput
//! (PTD-P eq. 4).

use plan3d_core::api;
use serde_json::Value;

use crate::output::to_json;

/// factor · T · P / (N · X), in seconds and days.
pub(crate) fn estimate_cmd(
    params: f64,
    tokens: f64,
    gpus: f64,
    flops_per_gpu: f64,
    factor: f64,
) -> Result<Value, String> {
    to_json(api::estimate(params, tokens, gpus, flops_per_gpu, factor))
}
