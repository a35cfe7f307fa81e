//! `plan3d estimate`: training time from tokens and achieved throughput
//! (PTD-P eq. 4).

use plan3d_core::estimate;
use serde_json::{json, Value};

/// factor · T · P / (N · X), in seconds and days.
pub(crate) fn estimate_cmd(
    params: f64,
    tokens: f64,
    gpus: f64,
    flops_per_gpu: f64,
    factor: f64,
) -> Result<Value, String> {
    let t = estimate::training_time(params, tokens, gpus, flops_per_gpu, factor)
        .map_err(|e| e.to_string())?;
    Ok(json!({ "seconds": t.get(), "days": t.days() }))
}
