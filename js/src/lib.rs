//! plan3d's JavaScript API: `evaluate`, `plan`, `sweep`, `schedule`,
//! `model`, `hardware`, `zero` and `estimate`, each taking a plain object
//! (the CLI's flags as fields, `snake_case`; anything left out takes the
//! CLI's default) and returning a plain object with the fields of the
//! CLI's `--json` output (`plan3d_core::api::report`).
//!
//! Bad input is a thrown `Error` with the CLI's message: an unknown name, a
//! value out of range, NaN, a field of the wrong type, or a field plan3d
//! does not know (a typo must not be silently ignored). Nothing panics.
//!
//! ```js
//! import init, { plan } from "./api/plan3d.js";
//! await init();
//! const p = plan({ model: "llama-3.1-405b", gpu: "h100-sxm", node_size: 8,
//!                  max_gpus: 16384, search: "exhaustive" });
//! console.log(p.gpus, p.days, p.binding);
//! ```

use plan3d_core::api::{self, request, ApiError};
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::prelude::*;

/// Plain objects out: maps as objects, `None` as `null`, 64-bit integers as
/// numbers (every count plan3d returns is below 2^53).
fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&format!("cannot return the result: {e}")))
}

/// The request in `value`: an object whose fields are all known, each of
/// the right type, read by core's JSON door ([`api::json::request`]) so
/// that every door accepts and refuses the same requests.
fn from_js<T: DeserializeOwned + Serialize + Default>(value: JsValue) -> Result<T, JsError> {
    api::json::request(&json_text(value)?).map_err(|e| JsError::new(&e.0))
}

/// `value` as JSON text (`null` for undefined or null).
fn json_text(value: JsValue) -> Result<String, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok("null".into());
    }
    if !value.is_object() || js_sys::Array::is_array(&value) {
        return Err(JsError::new(
            "bad request: expected an object of named fields",
        ));
    }
    // JSON has no NaN or infinity: `JSON.stringify` would write null,
    // which unsets an optional field without a word. Refuse them by name.
    let object: &js_sys::Object = value.unchecked_ref();
    for key in js_sys::Object::keys(object).iter() {
        let v = js_sys::Reflect::get(&value, &key).unwrap_or(JsValue::UNDEFINED);
        if let Some(x) = v.as_f64().filter(|x| !x.is_finite()) {
            return Err(JsError::new(&format!(
                "bad request: {} must be a finite number, not {x}",
                key.as_string().unwrap_or_default()
            )));
        }
    }
    js_sys::JSON::stringify(&value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| JsError::new("bad request: not representable as JSON"))
}

fn answer<T: Serialize>(r: Result<T, ApiError>) -> Result<JsValue, JsError> {
    match r {
        Ok(v) => to_js(&v),
        Err(e) => Err(JsError::new(&e.0)),
    }
}

/// `plan3d model`: `{model: "gpt-3"}` or a custom shape.
///
/// # Errors
///
/// A thrown `Error` for a bad request.
#[wasm_bindgen]
pub fn model(request: JsValue) -> Result<JsValue, JsError> {
    answer(api::model(&from_js::<request::ModelRequest>(request)?))
}

/// `plan3d hardware`: `{gpu: "h100-sxm", node_size: 8}`.
///
/// # Errors
///
/// A thrown `Error` for a bad request.
#[wasm_bindgen]
pub fn hardware(request: JsValue) -> Result<JsValue, JsError> {
    answer(api::hardware(&from_js::<request::HardwareRequest>(
        request,
    )?))
}

/// `plan3d evaluate`: one configuration.
///
/// # Errors
///
/// A thrown `Error` for a bad request.
#[wasm_bindgen]
pub fn evaluate(request: JsValue) -> Result<JsValue, JsError> {
    answer(api::evaluate(&from_js::<request::EvaluateRequest>(
        request,
    )?))
}

/// `plan3d plan`: the rules' plan or the exhaustive optimum.
///
/// # Errors
///
/// A thrown `Error` for a bad request.
#[wasm_bindgen]
pub fn plan(request: JsValue) -> Result<JsValue, JsError> {
    answer(api::plan(&from_js::<request::PlanRequest>(request)?))
}

/// `plan3d run`: a plan and its whole run (days, goodput, cost, energy).
///
/// # Errors
///
/// A thrown `Error` for a bad request.
#[wasm_bindgen]
pub fn run(request: JsValue) -> Result<JsValue, JsError> {
    answer(api::run(
        &api::json::run_request(&json_text(request)?).map_err(|e| JsError::new(&e.0))?,
    ))
}

/// `plan3d sweep`: an array of rows.
///
/// # Errors
///
/// A thrown `Error` for a bad request.
#[wasm_bindgen]
pub fn sweep(request: JsValue) -> Result<JsValue, JsError> {
    answer(api::sweep(&from_js::<request::SweepRequest>(request)?))
}

/// `plan3d schedule`: a simulated step with its events.
///
/// # Errors
///
/// A thrown `Error` for a bad request.
#[wasm_bindgen]
pub fn schedule(request: JsValue) -> Result<JsValue, JsError> {
    answer(api::schedule(&from_js::<request::ScheduleRequest>(
        request,
    )?))
}

/// `plan3d evaluate --timeline json`: an `evaluate` request's step as the
/// page animates it, with what of the plan it shows.
///
/// # Errors
///
/// A thrown `Error` for a bad request.
#[wasm_bindgen]
pub fn timeline(request: JsValue) -> Result<JsValue, JsError> {
    answer(api::evaluate_timeline(&from_js::<request::EvaluateRequest>(request)?).map(|(_, t)| t))
}

/// `plan3d plan --timeline json`: the plan a `plan` request finds, its
/// step as the page animates it.
///
/// # Errors
///
/// A thrown `Error` for a bad request or no plan.
#[wasm_bindgen(js_name = planTimeline)]
pub fn plan_timeline(request: JsValue) -> Result<JsValue, JsError> {
    answer(api::plan_timeline(&from_js::<request::PlanRequest>(request)?).map(|(_, t)| t))
}

/// `plan3d zero`: `zero(params, dp, stage, k = 12)`.
///
/// # Errors
///
/// A thrown `Error` for values out of range.
#[wasm_bindgen]
pub fn zero(params: f64, dp: u32, stage: u8, k: Option<f64>) -> Result<JsValue, JsError> {
    answer(api::zero(params, dp, stage, k.unwrap_or(12.0)))
}

/// `plan3d estimate`: `estimate(params, tokens, gpus, flops_per_gpu,
/// flops_factor = 8)`.
///
/// # Errors
///
/// A thrown `Error` for values out of range.
#[wasm_bindgen]
pub fn estimate(
    params: f64,
    tokens: f64,
    gpus: f64,
    flops_per_gpu: f64,
    flops_factor: Option<f64>,
) -> Result<JsValue, JsError> {
    answer(api::estimate(
        params,
        tokens,
        gpus,
        flops_per_gpu,
        flops_factor.unwrap_or(plan3d_core::estimate::FLOPS_FACTOR_RECOMPUTE),
    ))
}

/// Any entry point by name (`model`, `hardware`, `evaluate`, `plan`,
/// `run`, `sweep`, `schedule`, `timeline`, `plan_timeline`), JSON text in,
/// and out byte for byte what `plan3d … --json` prints (and Python's
/// `plan3d.call`).
///
/// # Errors
///
/// A thrown `Error` for an unknown entry or a bad request.
#[wasm_bindgen(js_name = callJson)]
pub fn call_json(entry: &str, text: &str) -> Result<String, JsError> {
    api::json::call(entry, text).map_err(|e| JsError::new(&e.0))
}

/// plan3d's version.
#[wasm_bindgen]
#[must_use]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
