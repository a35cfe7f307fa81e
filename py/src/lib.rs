//! plan3d in Python: the same core as the CLI, the page and the JavaScript
//! API, one `pip install` away from a notebook.
//!
//! Every entry point takes a plain dict in the one schema (the CLI's flags
//! as `snake_case` fields; anything left out takes the CLI's default),
//! keyword arguments for the common case, or both (keywords win), and
//! returns a plain dict with the CLI's `--json` fields. The `*_json`
//! functions take and return JSON text, byte for byte what `plan3d …
//! --json` prints. Requests travel as JSON through Python's own `json`
//! module and `plan3d_core::api::json`, so nothing is converted twice.
//!
//! Bad input raises `plan3d.Plan3dError` (a `ValueError`) with the core's
//! message and, where the message is about one field, its name in
//! `.field`. The GIL is released while core computes.

use plan3d_core::api::{self, json};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

pyo3::create_exception!(
    plan3d,
    Plan3dError,
    PyValueError,
    "A request plan3d cannot answer: the core's message, and in `field` the request field it is about (None when it is about no one field)."
);

/// The Python exception for a core error, with its field.
fn error(py: Python<'_>, e: &api::ApiError) -> PyErr {
    let field = json::unknown_field(&e.0).or_else(|| json::field_of(&e.0).map(str::to_string));
    let err = Plan3dError::new_err(e.0.clone());
    if let Err(set) = err.value(py).setattr("field", field) {
        return set;
    }
    err
}

/// `request` (a dict or None) updated with `kwargs`, as JSON text.
fn request_text(
    py: Python<'_>,
    request: Option<&Bound<'_, PyAny>>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let merged = PyDict::new(py);
    if let Some(r) = request.filter(|r| !r.is_none()) {
        let r = r.cast::<PyDict>().map_err(|_| {
            error(
                py,
                &api::ApiError("bad request: expected a dict of named fields (or keywords)".into()),
            )
        })?;
        merged.update(r.as_mapping())?;
    }
    if let Some(k) = kwargs {
        merged.update(k.as_mapping())?;
    }
    py.import("json")?
        .call_method1("dumps", (merged,))?
        .extract()
}

/// Answers `entry` for `text` with the GIL released.
fn answer_text(py: Python<'_>, entry: &str, text: String) -> PyResult<String> {
    let entry = entry.to_string();
    py.detach(move || json::call(&entry, &text))
        .map_err(|e| error(py, &e))
}

/// `entry` for a dict and keywords, as a dict.
fn answer(
    py: Python<'_>,
    entry: &str,
    request: Option<&Bound<'_, PyAny>>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let text = request_text(py, request, kwargs)?;
    let out = answer_text(py, entry, text)?;
    Ok(py.import("json")?.call_method1("loads", (out,))?.unbind())
}

macro_rules! entry_points {
    ($($name:ident, $json:ident, $entry:literal, $doc:literal;)*) => {$(
        #[doc = $doc]
        ///
        /// # Errors
        ///
        /// `Plan3dError` for a request plan3d cannot answer.
        #[pyfunction]
        #[pyo3(signature = (request = None, /, **kwargs))]
        fn $name(
            py: Python<'_>,
            request: Option<&Bound<'_, PyAny>>,
            kwargs: Option<&Bound<'_, PyDict>>,
        ) -> PyResult<Py<PyAny>> {
            answer(py, $entry, request, kwargs)
        }

        #[doc = $doc]
        /// JSON text in, `plan3d … --json`'s text out.
        ///
        /// # Errors
        ///
        /// `Plan3dError` for a request plan3d cannot answer.
        #[pyfunction]
        #[pyo3(signature = (text = "{}"))]
        fn $json(py: Python<'_>, text: &str) -> PyResult<String> {
            answer_text(py, $entry, text.to_string())
        }
    )*};
}

entry_points! {
    model, model_json, "model", "`plan3d model`: a preset (`model=\"gpt-3\"`) or a custom shape: parameters, width, critical batch.";
    hardware, hardware_json, "hardware", "`plan3d hardware`: a GPU and network's figures.";
    evaluate, evaluate_json, "evaluate", "`plan3d evaluate`: one configuration: memory, network needs, efficiency, time.";
    plan, plan_json, "plan", "`plan3d plan`: the fastest configuration (the rules, or the exhaustive search; under practice every dimension is searched) and why; a \"no plan\" says why and what single change has one.";
    run, run_json, "run", "`plan3d run`: a plan and its whole run: wall-clock days with a batch ramp, goodput, GPU-hours, cost, energy (practice by default).";
    sweep, sweep_json, "sweep", "`plan3d sweep`: the rules' plan over a range of model sizes (a list of rows).";
    schedule, schedule_json, "schedule", "`plan3d schedule`: a training schedule simulated: events, bubble, memory over time.";
    timeline, timeline_json, "timeline", "`plan3d evaluate --timeline json`: a configuration's step as the page animates it.";
    plan_timeline, plan_timeline_json, "plan_timeline", "`plan3d plan --timeline json`: the plan found, its step as the page animates it.";
}

/// `plan3d validate --json`: the practice model against the published
/// runs of the calibration set, one dict a run.
///
/// # Errors
///
/// `Plan3dError` if a run of the set cannot be evaluated (a defect).
#[pyfunction]
fn validate(py: Python<'_>) -> PyResult<Py<PyAny>> {
    let text = py
        .detach(|| {
            plan3d_core::calibration::validate()
                .map_err(api::ApiError)
                .and_then(|rows| json::text(&rows))
        })
        .map_err(|e| error(py, &e))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// The names plan3d knows: `models` (presets), `gpus`, `networks`,
/// `methods`, `entries` (the entry points of `call`).
#[pyfunction]
fn presets(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let models: Vec<&str> = plan3d_core::model::PRESETS
        .iter()
        .map(|(n, _)| *n)
        .collect();
    let gpus: Vec<&str> = plan3d_core::hardware::GPUS.iter().map(|g| g.name).collect();
    let networks: Vec<&str> = plan3d_core::hardware::Network::ALL
        .iter()
        .map(|n| n.name())
        .collect();
    let methods: Vec<&str> = plan3d_core::Method::ALL.iter().map(|m| m.name()).collect();
    d.set_item("models", models)?;
    d.set_item("gpus", gpus)?;
    d.set_item("networks", networks)?;
    d.set_item("methods", methods)?;
    d.set_item("entries", json::ENTRIES.to_vec())?;
    Ok(d)
}

/// The JSON schema of every request and report (`plan3d schema`), shipped
/// inside the package, as a dict.
///
/// # Errors
///
/// Never for the schema shipped.
#[pyfunction]
fn schema(py: Python<'_>) -> PyResult<Py<PyAny>> {
    Ok(py
        .import("json")?
        .call_method1("loads", (SCHEMA,))?
        .unbind())
}

/// The schema file, as `plan3d schema` writes it.
const SCHEMA: &str = include_str!("../../static/plan3d.schema.json");

/// Any entry point by name, JSON text in and out (`plan3d.call("plan",
/// '{"model": "gpt-3"}')`): byte for byte the CLI's `--json` output.
///
/// # Errors
///
/// `Plan3dError` for an unknown entry or a request plan3d cannot answer.
#[pyfunction]
fn call(py: Python<'_>, entry: &str, text: &str) -> PyResult<String> {
    answer_text(py, entry, text.to_string())
}

/// A sweep for a notebook: `entry` (`"plan"`, `"run"`, `"evaluate"`, …)
/// over every combination of the keyword arguments given as lists (the
/// others fixed), one flat row a request: its inputs, then the report's
/// scalar fields (nested ones as `memory.peak_bytes`), or `error` (and
/// `error_field`) where it has none. `pandas.DataFrame(rows)` takes it as
/// it is. The GIL is released for the whole sweep.
///
/// # Errors
///
/// `Plan3dError` for an unknown entry; a request's own error is its row's.
#[pyfunction]
#[pyo3(signature = (entry, /, **kwargs))]
fn grid(py: Python<'_>, entry: &str, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyList>> {
    if !json::ENTRIES.contains(&entry) {
        return Err(error(
            py,
            &api::ApiError(format!(
                "unknown entry point '{entry}': use one of {}",
                json::ENTRIES.join(", ")
            )),
        ));
    }
    // The axes: each keyword, a list of values (a scalar is one value).
    let mut axes: Vec<(String, Vec<Bound<'_, PyAny>>)> = Vec::new();
    if let Some(k) = kwargs {
        for (key, value) in k.iter() {
            let values = match value.cast::<PyList>() {
                Ok(list) => list.iter().collect(),
                Err(_) => vec![value],
            };
            axes.push((key.extract()?, values));
        }
    }
    let dumps = py.import("json")?.getattr("dumps")?;
    // Every combination, the last axis fastest: combination n's index on
    // each axis is a digit of n in the mixed radix of the axes' lengths.
    let total: usize = axes.iter().map(|(_, v)| v.len()).product();
    let mut requests: Vec<String> = Vec::with_capacity(total);
    for n in 0..total {
        let d = PyDict::new(py);
        let mut rest = n;
        for (key, values) in axes.iter().rev() {
            d.set_item(key, &values[rest % values.len()])?;
            rest /= values.len();
        }
        requests.push(dumps.call1((&d,))?.extract()?);
    }
    let entry_owned = entry.to_string();
    let rows: Vec<String> = py.detach(move || {
        requests
            .into_iter()
            .map(|request| row(&entry_owned, &request))
            .collect()
    });
    let loads = py.import("json")?.getattr("loads")?;
    let out = PyList::empty(py);
    for r in rows {
        out.append(loads.call1((r,))?)?;
    }
    Ok(out.unbind())
}

/// One row of [`grid`]: the request's fields, then the report's scalars
/// flattened, or the error; as a JSON object's text.
fn row(entry: &str, request: &str) -> String {
    use serde_json::{Map, Value};
    let mut row = Map::new();
    if let Ok(Value::Object(inputs)) = serde_json::from_str::<Value>(request) {
        row.extend(inputs);
    }
    match json::call(entry, request).map(|t| serde_json::from_str::<Value>(&t)) {
        Ok(Ok(report)) => flatten("", &report, &mut row),
        Ok(Err(e)) => {
            row.insert("error".into(), Value::String(e.to_string()));
        }
        Err(e) => {
            let field =
                json::unknown_field(&e.0).or_else(|| json::field_of(&e.0).map(str::to_string));
            row.insert("error".into(), Value::String(e.0));
            row.insert(
                "error_field".into(),
                field.map_or(Value::Null, Value::String),
            );
        }
    }
    Value::Object(row).to_string()
}

/// The scalars of `v` into `row`, nested keys joined by dots (a report's
/// lists are left out: a row holds one value a column).
fn flatten(
    prefix: &str,
    v: &serde_json::Value,
    row: &mut serde_json::Map<String, serde_json::Value>,
) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, row);
            }
        }
        Value::Array(_) => {}
        scalar => {
            row.insert(prefix.to_string(), scalar.clone());
        }
    }
}

/// plan3d's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The `plan3d` module.
#[pymodule(name = "plan3d")]
fn plan3d_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Plan3dError", m.py().get_type::<Plan3dError>())?;
    m.add_function(wrap_pyfunction!(model, m)?)?;
    m.add_function(wrap_pyfunction!(model_json, m)?)?;
    m.add_function(wrap_pyfunction!(hardware, m)?)?;
    m.add_function(wrap_pyfunction!(hardware_json, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_json, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(plan_json, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_json, m)?)?;
    m.add_function(wrap_pyfunction!(schedule, m)?)?;
    m.add_function(wrap_pyfunction!(schedule_json, m)?)?;
    m.add_function(wrap_pyfunction!(timeline, m)?)?;
    m.add_function(wrap_pyfunction!(timeline_json, m)?)?;
    m.add_function(wrap_pyfunction!(plan_timeline, m)?)?;
    m.add_function(wrap_pyfunction!(plan_timeline_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(call, m)?)?;
    m.add_function(wrap_pyfunction!(grid, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
