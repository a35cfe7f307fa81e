//! Exports of the page's results: the plans and the scaling sweep as CSV
//! and JSON. Every export names its inputs (the query string that
//! reproduces it) and its units: bytes (whole numbers), days, fractions.
//!
//! Both formats come from the same rows ([`PlanRow`], [`SweepExportRow`]):
//! JSON serialized by serde as they are, CSV one column per field in
//! [`PLAN_COLUMNS`] / [`SWEEP_COLUMNS`] order, written by [`Row::cells`]
//! (the CSV once went through `serde_json::Value`, a second serializer of
//! every row type: 5.4 KB of the page's gzipped wasm; a test keeps the two
//! equal).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::api::report::{ModelReport, SweepRowReport};
use crate::cost::{Evaluation, Method};
use crate::planner::Outputs;
use crate::search::{SearchResult, SweepRow};
use crate::state::Inputs;
use crate::Error;

/// Bytes as a whole number for an export.
fn whole_bytes(b: crate::units::Bytes) -> u64 {
    // Memory figures are far below 2^53: the cast is exact after rounding.
    libm::round(b.get()) as u64
}

/// One row of the plans export: a method's plan (or why it has none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlanRow {
    /// The method.
    pub method: String,
    /// `rules` or `exhaustive`.
    pub search: String,
    /// Data-parallel degree.
    pub data: Option<u32>,
    /// Pipeline-parallel degree.
    pub pipe: Option<u32>,
    /// Tensor-parallel degree.
    pub tensor: Option<u32>,
    /// GPUs.
    pub gpus: Option<u64>,
    /// Batch, sequences.
    pub batch: Option<u64>,
    /// Micro-batch size, sequences.
    pub micro_batch: Option<u32>,
    /// Micro-batches.
    pub micro_batches: Option<u32>,
    /// Offloaded.
    pub offload: Option<bool>,
    /// Efficiency, a fraction.
    pub efficiency: Option<f64>,
    /// Training time, days.
    pub days: Option<f64>,
    /// What stays on each GPU, bytes.
    pub memory_on_gpu_bytes: Option<u64>,
    /// What offload can move, bytes per GPU.
    pub offloadable_bytes: Option<u64>,
    /// What must stay on the GPU, bytes.
    pub non_offloadable_bytes: Option<u64>,
    /// Why there is no plan.
    pub error: Option<String>,
    /// Model flops utilisation, a fraction.
    pub mfu: Option<f64>,
    /// One training step, seconds (practice; under paper the step of the
    /// fixed work).
    pub step_seconds: Option<f64>,
    /// ZeRO stage (`0`–`3`, `3-step`).
    pub zero: Option<String>,
    /// Recomputation (`none`, `selective`, `full`; `paper` under paper).
    pub recompute: Option<String>,
    /// Context-parallel degree.
    pub context_parallel: Option<u32>,
    /// Expert-parallel degree.
    pub expert_parallel: Option<u32>,
    /// Virtual stages per GPU.
    pub virtual_stages: Option<u32>,
    /// Pipeline schedule.
    pub pipeline_schedule: Option<String>,
}

/// Columns of the plans export, with units: the fields of [`PlanRow`]
/// (the columns after `error` were added later: a reader by position keeps
/// working).
pub const PLAN_COLUMNS: [&str; 24] = [
    "method",
    "search",
    "data",
    "pipe",
    "tensor",
    "gpus",
    "batch",
    "micro_batch",
    "micro_batches",
    "offload",
    "efficiency",
    "days",
    "memory_on_gpu_bytes",
    "offloadable_bytes",
    "non_offloadable_bytes",
    "error",
    "mfu",
    "step_seconds",
    "zero",
    "recompute",
    "context_parallel",
    "expert_parallel",
    "virtual_stages",
    "pipeline_schedule",
];

impl PlanRow {
    fn new(method: &str, search: &str, plan: Result<&Evaluation, &Error>) -> Self {
        let e = plan.ok();
        let c = e.map(|e| &e.config);
        Self {
            method: method.to_string(),
            search: search.to_string(),
            data: c.map(|c| c.data),
            pipe: c.map(|c| c.pipe),
            tensor: c.map(|c| c.tensor),
            gpus: e.map(|e| e.gpus),
            batch: e.map(|e| e.batch),
            micro_batch: c.map(|c| c.micro_batch),
            micro_batches: c.map(|c| c.micro_batches),
            offload: c.map(|c| c.offload),
            efficiency: e.map(|e| e.efficiency),
            days: e.map(|e| e.time.days()),
            memory_on_gpu_bytes: e.map(|e| whole_bytes(e.memory.on_gpu(e.config.offload))),
            offloadable_bytes: e.map(|e| whole_bytes(e.memory.offloadable())),
            non_offloadable_bytes: e.map(|e| whole_bytes(e.memory.non_offloadable())),
            error: plan.err().map(ToString::to_string),
            mfu: e.map(Evaluation::mfu),
            step_seconds: e.map(|e| e.step.0),
            zero: c.map(|c| c.zero.name().to_string()),
            recompute: c.map(|c| c.activation.name().to_string()),
            context_parallel: c.map(|c| c.context),
            expert_parallel: c.map(|c| c.expert),
            virtual_stages: c.map(|c| c.virtual_stages),
            pipeline_schedule: c.map(|c| c.pipeline_schedule.name().to_string()),
        }
    }
}

/// The plans export: its inputs, the model, the GPU and one row per method
/// (and the exhaustive optimum when known).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlansExport {
    /// The inputs, as the query that reproduces this export.
    pub inputs: Inputs,
    /// The model.
    pub model: ModelReport,
    /// The GPU preset.
    pub gpu: String,
    /// The plans.
    pub plans: Vec<PlanRow>,
}

impl PlansExport {
    /// The export of the page's outputs.
    #[must_use]
    pub fn new(
        inputs: &Inputs,
        out: &Outputs,
        optimum: Option<&Result<SearchResult, Error>>,
    ) -> Self {
        let mut plans: Vec<PlanRow> = out
            .plans
            .iter()
            .map(|(m, p)| {
                // Under practice each row is the practice search's best.
                let search = if inputs.practice() {
                    "practice"
                } else {
                    "rules"
                };
                PlanRow::new(m.name(), search, p.as_ref().map(|p| &p.evaluation))
            })
            .collect();
        match optimum {
            Some(Ok(r)) => plans.push(PlanRow::new(
                r.best.method.name(),
                "exhaustive",
                Ok(&r.best.evaluation),
            )),
            Some(Err(e)) => plans.push(PlanRow::new("any", "exhaustive", Err(e))),
            None => {}
        }
        Self {
            inputs: *inputs,
            model: ModelReport::from(&out.model),
            gpu: out.hardware.gpu.name.to_string(),
            plans,
        }
    }
}

/// One row of the sweep export: a method's row of the sweep, with the
/// fields of `plan3d sweep --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SweepExportRow {
    /// The method.
    pub method: String,
    /// The size and its plan.
    #[serde(flatten)]
    pub row: SweepRowReport,
}

/// Columns of the sweep CSV (of the fields of [`SweepExportRow`]).
pub const SWEEP_COLUMNS: [&str; 9] = [
    "method",
    "params",
    "layers",
    "d_model",
    "gpus",
    "days",
    "efficiency",
    "offload",
    "error",
];

/// The sweep export: its inputs and one row per method and size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SweepExport {
    /// The inputs, as the query that reproduces this export.
    pub inputs: Inputs,
    /// The rows.
    pub rows: Vec<SweepExportRow>,
}

impl SweepExport {
    /// The export of the page's scaling sweep.
    #[must_use]
    pub fn new(inputs: &Inputs, rows: &[(Method, Vec<SweepRow>)]) -> Self {
        let rows = rows
            .iter()
            .flat_map(|(m, rs)| {
                rs.iter().map(move |r| SweepExportRow {
                    method: m.name().to_string(),
                    row: SweepRowReport::from(r),
                })
            })
            .collect();
        Self {
            inputs: *inputs,
            rows,
        }
    }
}

/// One CSV cell: numbers as Rust prints them (a non-finite float, which
/// JSON cannot hold either, and a missing value are empty), text quoted
/// when it holds a comma, a quote or a newline.
trait Cell {
    fn cell(&self) -> String;
}

impl Cell for str {
    fn cell(&self) -> String {
        if self.contains([',', '"', '\n']) {
            format!("\"{}\"", self.replace('"', "\"\""))
        } else {
            self.to_string()
        }
    }
}

impl Cell for String {
    fn cell(&self) -> String {
        self.as_str().cell()
    }
}

impl Cell for u32 {
    fn cell(&self) -> String {
        format!("{self}")
    }
}

impl Cell for u64 {
    fn cell(&self) -> String {
        format!("{self}")
    }
}

impl Cell for f64 {
    fn cell(&self) -> String {
        if self.is_finite() {
            format!("{self}")
        } else {
            String::new()
        }
    }
}

impl Cell for bool {
    fn cell(&self) -> String {
        if *self { "true" } else { "false" }.to_string()
    }
}

impl<T: Cell> Cell for Option<T> {
    fn cell(&self) -> String {
        self.as_ref().map(Cell::cell).unwrap_or_default()
    }
}

/// A row of a CSV export.
pub trait Row {
    /// The row's cells, in its columns' order.
    fn cells(&self) -> Vec<String>;
}

impl Row for PlanRow {
    fn cells(&self) -> Vec<String> {
        let r = self;
        [
            r.method.cell(),
            r.search.cell(),
            r.data.cell(),
            r.pipe.cell(),
            r.tensor.cell(),
            r.gpus.cell(),
            r.batch.cell(),
            r.micro_batch.cell(),
            r.micro_batches.cell(),
            r.offload.cell(),
            r.efficiency.cell(),
            r.days.cell(),
            r.memory_on_gpu_bytes.cell(),
            r.offloadable_bytes.cell(),
            r.non_offloadable_bytes.cell(),
            r.error.cell(),
            r.mfu.cell(),
            r.step_seconds.cell(),
            r.zero.cell(),
            r.recompute.cell(),
            r.context_parallel.cell(),
            r.expert_parallel.cell(),
            r.virtual_stages.cell(),
            r.pipeline_schedule.cell(),
        ]
        .into()
    }
}

impl Row for SweepExportRow {
    fn cells(&self) -> Vec<String> {
        let r = &self.row;
        [
            self.method.cell(),
            r.params.cell(),
            r.layers.cell(),
            r.d_model.cell(),
            r.gpus.cell(),
            r.days.cell(),
            r.efficiency.cell(),
            r.offload.cell(),
            r.error.cell(),
        ]
        .into()
    }
}

/// CSV of rows: a `#` line naming the inputs, a header, one line per row.
fn csv<T: Row>(title: &str, inputs: &Inputs, columns: &[&str], rows: &[T]) -> String {
    let mut s = format!(
        "# plan3d {title} for ?{}\n{}\n",
        inputs.to_query(),
        columns.join(",")
    );
    for row in rows {
        s.push_str(&row.cells().join(","));
        s.push('\n');
    }
    s
}

fn json<T: Serialize>(value: &T) -> String {
    // Rows hold only strings, integers, booleans and finite floats (a
    // non-finite float would become null): serialization cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

/// The plans as CSV: a `#` line naming the inputs, a header, one row per
/// method (and the exhaustive optimum when given). Bytes, days, fractions.
#[must_use]
pub fn plans_csv(
    inputs: &Inputs,
    out: &Outputs,
    optimum: Option<&Result<SearchResult, Error>>,
) -> String {
    let e = PlansExport::new(inputs, out, optimum);
    csv("plans", inputs, &PLAN_COLUMNS, &e.plans)
}

/// The plans as JSON: [`PlansExport`].
#[must_use]
pub fn plans_json(
    inputs: &Inputs,
    out: &Outputs,
    optimum: Option<&Result<SearchResult, Error>>,
) -> String {
    json(&PlansExport::new(inputs, out, optimum))
}

/// The scaling sweep as CSV, naming the inputs in a `#` line.
#[must_use]
pub fn sweep_csv(inputs: &Inputs, rows: &[(Method, Vec<SweepRow>)]) -> String {
    csv(
        "scaling sweep",
        inputs,
        &SWEEP_COLUMNS,
        &SweepExport::new(inputs, rows).rows,
    )
}

/// The scaling sweep as JSON: [`SweepExport`].
#[must_use]
pub fn sweep_json(inputs: &Inputs, rows: &[(Method, Vec<SweepRow>)]) -> String {
    json(&SweepExport::new(inputs, rows))
}

/// A file name for an export that names its inputs:
/// `plan3d-<what>-<query with = as - and & as _>.<ext>`.
#[must_use]
pub fn file_name(inputs: &Inputs, what: &str, ext: &str) -> String {
    let q: String = inputs
        .to_query()
        .replace("%2B", "+")
        .chars()
        .map(|c| match c {
            '=' => '-',
            '&' => '_',
            c if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_') => c,
            _ => '~',
        })
        .take(120)
        .collect();
    format!("plan3d-{what}-{q}.{ext}")
}
