//! Every entry point as JSON text in, JSON text out: the request as a
//! script writes it (the CLI's flags as `snake_case` fields, anything left
//! out at the CLI's default), the report exactly as `plan3d … --json`
//! prints it (keys sorted, two-space indent, serde_json's numbers), so a
//! request gives byte-identical JSON from the CLI, the JavaScript API and
//! Python. A field plan3d does not know is refused: a typo must not be
//! silently ignored.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;

use super::{request, ApiError};

/// The entry points [`call`] answers, by name.
pub const ENTRIES: [&str; 10] = [
    "model",
    "hardware",
    "evaluate",
    "plan",
    "run",
    "sweep",
    "schedule",
    "timeline",
    "plan_timeline",
    "calibrate",
];

/// The request `T` in `text`: a JSON object of known fields (`null` or an
/// empty text: every default).
///
/// # Errors
///
/// Text that is not JSON, not an object, a field of the wrong type, or a
/// field `T` does not have, each named.
pub fn request<T: DeserializeOwned + Serialize + Default>(text: &str) -> Result<T, ApiError> {
    let text = text.trim();
    if text.is_empty() || text == "null" {
        return Ok(T::default());
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| ApiError(format!("bad request: {e}")))?;
    let Value::Object(given) = &value else {
        return Err("bad request: expected an object of named fields".into());
    };
    let parsed: T =
        serde_json::from_value(value.clone()).map_err(|e| ApiError(format!("bad request: {e}")))?;
    // The known fields: those the request keeps (a field given is kept,
    // even one left out of a default's serialization when unset) and the
    // defaults'.
    let keys = |v: Value| -> Vec<String> {
        match v {
            Value::Object(m) => m.into_iter().map(|(k, _)| k).collect(),
            _ => Vec::new(),
        }
    };
    let mut known = keys(serde_json::to_value(&parsed).unwrap_or(Value::Null));
    known.extend(keys(
        serde_json::to_value(T::default()).unwrap_or(Value::Null),
    ));
    for (key, v) in given {
        if !v.is_null() && !known.iter().any(|k| k == key) {
            let mut names: Vec<&str> = known.iter().map(String::as_str).collect();
            names.sort_unstable();
            names.dedup();
            return Err(ApiError(format!(
                "bad request: unknown field '{key}' (known: {})",
                names.join(", ")
            )));
        }
    }
    Ok(parsed)
}

/// A `run` request: as [`request()`], under `practice` unless `assumptions`
/// is given (as the CLI's `run`: the plan's flattened fields would
/// otherwise default it to `paper`).
///
/// # Errors
///
/// As [`request()`].
pub fn run_request(text: &str) -> Result<request::RunRequest, ApiError> {
    let mut r: request::RunRequest = request(text)?;
    let given = serde_json::from_str::<Value>(text.trim())
        .ok()
        .and_then(|v| v.get("assumptions").filter(|a| !a.is_null()).cloned());
    if given.is_none() {
        r.plan.practice.assumptions = "practice".into();
    }
    Ok(r)
}

/// A report as `plan3d … --json` prints it.
///
/// # Errors
///
/// A report that does not serialize (never for plan3d's own).
pub fn text<T: Serialize>(report: &T) -> Result<String, ApiError> {
    let v = serde_json::to_value(report).map_err(|e| ApiError(e.to_string()))?;
    serde_json::to_string_pretty(&v).map_err(|e| ApiError(e.to_string()))
}

/// A report in its own field order (`--timeline json`).
fn pretty<T: Serialize>(report: &T) -> Result<String, ApiError> {
    serde_json::to_string_pretty(report).map_err(|e| ApiError(e.to_string()))
}

/// Answers the entry point `entry` (one of [`ENTRIES`]) for the JSON
/// request `text`, as the CLI's `--json` output.
///
/// # Errors
///
/// An unknown entry, a bad request, or the entry point's error.
pub fn call(entry: &str, text_in: &str) -> Result<String, ApiError> {
    match entry {
        "model" => text(&super::model(&request::<request::ModelRequest>(text_in)?)?),
        "hardware" => text(&super::hardware(&request::<request::HardwareRequest>(
            text_in,
        )?)?),
        "evaluate" => text(&super::evaluate(&request::<request::EvaluateRequest>(
            text_in,
        )?)?),
        "plan" => text(&super::plan(&request::<request::PlanRequest>(text_in)?)?),
        "run" => text(&super::run(&run_request(text_in)?)?),
        "sweep" => text(&super::sweep(&request::<request::SweepRequest>(text_in)?)?),
        "schedule" => text(&super::schedule(&request::<request::ScheduleRequest>(
            text_in,
        )?)?),
        // As `--timeline json` prints them: in the report's field order.
        "timeline" => {
            pretty(&super::evaluate_timeline(&request::<request::EvaluateRequest>(text_in)?)?.1)
        }
        "plan_timeline" => {
            pretty(&super::plan_timeline(&request::<request::PlanRequest>(text_in)?)?.1)
        }
        "calibrate" => text(&super::calibrate(&request::<request::CalibrateRequest>(
            text_in,
        )?)?),
        other => Err(ApiError(format!(
            "unknown entry point '{other}': use one of {}",
            ENTRIES.join(", ")
        ))),
    }
}

/// The request field an error is about, where its words name one (for
/// callers that point at the field: Python's exception, the page).
#[must_use]
pub fn field_of(message: &str) -> Option<&'static str> {
    if message.starts_with("bad request: unknown field '") {
        // The caller's own word: [`unknown_field`].
        return None;
    }
    // Phrases of core's errors, most specific first, and the field each
    // names.
    const PHRASES: [(&str, &str); 48] = [
        ("profile field", "profile"),
        ("microbatch_group", "microbatch_group"),
        ("calibration profile", "profile"),
        ("expert tensor-parallel", "expert_tensor_parallel"),
        ("experts' tensor-parallel", "expert_tensor_parallel"),
        ("embedding layers", "embedding_layers"),
        ("MXFP8", "precision"),
        ("FP8 tensor cores", "precision"),
        ("data-parallel degree × micro-batch size", "global_batch"),
        ("the fixed degrees' product", "gpus"),
        ("tensor-parallel degree", "tensor"),
        ("pipeline-parallel degree", "pipe"),
        ("data-parallel degree", "data"),
        ("context-parallel degree", "context_parallel"),
        ("context parallelism is a practice knob", "context_parallel"),
        ("framework needs", "framework"),
        ("offload module", "offload_modules"),
        ("expert-parallel degree", "expert_parallel"),
        ("expert parallelism", "expert_parallel"),
        ("expert imbalance", "expert_imbalance"),
        ("micro-batch size", "micro_batch"),
        ("micro-batch count", "micro_batches"),
        ("virtual stages", "virtual_stages"),
        ("virtual_stages", "virtual_stages"),
        ("global batch", "global_batch"),
        ("token budget", "tokens"),
        ("batch ramp", "batch_ramp"),
        ("zero_r", "zero_r"),
        ("ZeRO-R", "zero_r"),
        ("recompute", "recompute"),
        ("recomputation", "recompute"),
        ("zero must be", "zero"),
        ("ZeRO stage", "zero"),
        ("pipeline_schedule", "pipeline_schedule"),
        ("pipeline schedule", "pipeline_schedule"),
        ("unknown GPU", "gpu"),
        ("unknown model", "model"),
        ("unknown network", "network"),
        ("unknown method", "method"),
        ("unknown activation model", "activations"),
        ("unknown precision", "precision"),
        ("unknown optimizer", "optimizer"),
        ("unknown attention", "attention"),
        ("unknown assumptions", "assumptions"),
        ("GPU budget", "max_gpus"),
        ("cluster size", "gpus"),
        ("GPU count", "gpus"),
        ("kernel efficiency", "kernel_efficiency"),
    ];
    if let Some(start) = message
        .find(" is read only by the practice search")
        .or_else(|| message.find(" is read only by the practice model"))
    {
        let name = &message[..start];
        return PRACTICE_ONLY.iter().copied().find(|f| *f == name);
    }
    PHRASES
        .iter()
        .find(|(phrase, _)| message.contains(phrase))
        .map(|&(_, field)| field)
}

/// The plan request's fields only the practice search reads.
pub(crate) const PRACTICE_ONLY: [&str; 39] = [
    "data",
    "pipe",
    "micro_batch",
    "virtual_stages",
    "microbatch_group",
    "sequence_parallel",
    "zero",
    "recompute",
    "pipeline_schedule",
    "zero_r",
    "global_batch",
    "context_parallel",
    "precision",
    "expert_parallel",
    "expert_tensor_parallel",
    "expert_imbalance",
    "overlap_expert",
    "compile",
    "expandable_segments",
    "attention",
    "overlap_tensor",
    "overlap_data",
    "head_layers",
    "embedding_layers",
    "cross_entropy",
    "activation_layout",
    "checkpoint_early_stop",
    "context_exchange",
    "repeat_kv",
    "norm_kernel",
    "framework",
    "grad_reduce",
    "recompute_layers",
    "offload_layers",
    "recompute_modules",
    "offload_modules",
    "profile",
    "tokens",
    "optimizer",
];

/// The field a `bad request: unknown field 'x'` is about (owned: it is the
/// caller's word).
#[must_use]
pub fn unknown_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("bad request: unknown field '")?;
    Some(rest.split('\'').next()?.to_string())
}
