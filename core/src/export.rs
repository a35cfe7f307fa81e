//! Exports of the page's results: the plans and the scaling sweep as CSV
//! and JSON. Every export names its inputs (the query string that
//! reproduces it) and its units.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::cost::{Evaluation, Method};
use crate::planner::Outputs;
use crate::search::{Plan, SearchResult, SweepRow};
use crate::state::Inputs;
use crate::Error;

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Appends one JSON object: `strings` columns are quoted, empty cells null.
fn json_row(out: &mut String, columns: &[&str], row: &[String], strings: &[&str]) {
    out.push('{');
    for (j, (k, v)) in columns.iter().zip(row).enumerate() {
        if j > 0 {
            out.push(',');
        }
        let value = if v.is_empty() {
            String::from("null")
        } else if strings.contains(k) {
            json_str(v)
        } else {
            v.clone()
        };
        let _ = write!(out, "{}:{value}", json_str(k));
    }
    out.push('}');
}

/// A finite number as JSON (non-finite ones become null).
fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::from("null")
    }
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        String::from(s)
    }
}

/// Columns of the plans export, with units.
pub const PLAN_COLUMNS: [&str; 16] = [
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
];

fn plan_cells(
    name: &str,
    search: &str,
    e: Option<&Evaluation>,
    err: Option<&Error>,
) -> Vec<String> {
    match e {
        Some(e) => {
            let c = e.config;
            let m = e.memory;
            Vec::from([
                String::from(name),
                String::from(search),
                format!("{}", c.data),
                format!("{}", c.pipe),
                format!("{}", c.tensor),
                format!("{}", e.gpus),
                format!("{}", e.batch),
                format!("{}", c.micro_batch),
                format!("{}", c.micro_batches),
                format!("{}", c.offload),
                json_num(e.efficiency),
                json_num(e.time.days()),
                json_num(m.on_gpu(c.offload).get()),
                json_num(m.offloadable().get()),
                json_num(m.non_offloadable().get()),
                String::new(),
            ])
        }
        None => {
            let mut v = Vec::from([String::from(name), String::from(search)]);
            v.extend((0..13).map(|_| String::new()));
            v.push(err.map(|e| format!("{e}")).unwrap_or_default());
            v
        }
    }
}

fn plan_rows(out: &Outputs, optimum: Option<&Result<SearchResult, Error>>) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = out
        .plans
        .iter()
        .map(|(m, p): &(Method, Result<Plan, Error>)| match p {
            Ok(p) => plan_cells(m.name(), "rules", Some(&p.evaluation), None),
            Err(e) => plan_cells(m.name(), "rules", None, Some(e)),
        })
        .collect();
    match optimum {
        Some(Ok(r)) => rows.push(plan_cells(
            r.best.method.name(),
            "exhaustive",
            Some(&r.best.evaluation),
            None,
        )),
        Some(Err(e)) => rows.push(plan_cells("any", "exhaustive", None, Some(e))),
        None => {}
    }
    rows
}

/// The plans as CSV: a `#` line naming the inputs, a header, one row per
/// method (and the exhaustive optimum when given). Bytes, days, fractions.
#[must_use]
pub fn plans_csv(
    inputs: &Inputs,
    out: &Outputs,
    optimum: Option<&Result<SearchResult, Error>>,
) -> String {
    let mut s = format!(
        "# plan3d plans for ?{}\n{}\n",
        inputs.to_query(),
        PLAN_COLUMNS.join(",")
    );
    for row in plan_rows(out, optimum) {
        let cells: Vec<String> = row.iter().map(|c| csv_cell(c)).collect();
        s.push_str(&cells.join(","));
        s.push('\n');
    }
    s
}

/// The plans as JSON: `{"inputs": query, "model": {...}, "plans": [...]}`
/// with the fields of [`PLAN_COLUMNS`].
#[must_use]
pub fn plans_json(
    inputs: &Inputs,
    out: &Outputs,
    optimum: Option<&Result<SearchResult, Error>>,
) -> String {
    let mut s = format!(
        "{{\"inputs\":{},\"model\":{{\"params\":{},\"layers\":{},\"d_model\":{},\"seq_len\":{}}},\"gpu\":{},\"plans\":[",
        json_str(&inputs.to_query()),
        json_num(out.model.params()),
        out.model.layers,
        out.model.width(),
        out.model.seq_len,
        json_str(out.hardware.gpu.name)
    );
    for (i, row) in plan_rows(out, optimum).iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        json_row(&mut s, &PLAN_COLUMNS, row, &["method", "search", "error"]);
    }
    s.push_str("]}");
    s
}

/// Columns of the sweep export.
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

fn sweep_rows(rows: &[(Method, Vec<SweepRow>)]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (m, rs) in rows {
        for r in rs {
            let mut v = Vec::from([
                String::from(m.name()),
                json_num(r.params),
                format!("{}", r.model.layers),
                format!("{}", r.model.width()),
            ]);
            match &r.plan {
                Ok(p) => {
                    let e = p.evaluation;
                    v.extend([
                        format!("{}", e.gpus),
                        json_num(e.time.days()),
                        json_num(e.efficiency),
                        format!("{}", e.config.offload),
                        String::new(),
                    ]);
                }
                Err(err) => {
                    v.extend([
                        String::new(),
                        String::new(),
                        String::new(),
                        String::new(),
                        format!("{err}"),
                    ]);
                }
            }
            out.push(v);
        }
    }
    out
}

/// The scaling sweep as CSV, naming the inputs in a `#` line.
#[must_use]
pub fn sweep_csv(inputs: &Inputs, rows: &[(Method, Vec<SweepRow>)]) -> String {
    let mut s = format!(
        "# plan3d scaling sweep for ?{}\n{}\n",
        inputs.to_query(),
        SWEEP_COLUMNS.join(",")
    );
    for row in sweep_rows(rows) {
        let cells: Vec<String> = row.iter().map(|c| csv_cell(c)).collect();
        s.push_str(&cells.join(","));
        s.push('\n');
    }
    s
}

/// The scaling sweep as JSON: `{"inputs": query, "rows": [...]}`.
#[must_use]
pub fn sweep_json(inputs: &Inputs, rows: &[(Method, Vec<SweepRow>)]) -> String {
    let mut s = format!("{{\"inputs\":{},\"rows\":[", json_str(&inputs.to_query()));
    for (i, row) in sweep_rows(rows).iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        json_row(&mut s, &SWEEP_COLUMNS, row, &["method", "error"]);
    }
    s.push_str("]}");
    s
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
