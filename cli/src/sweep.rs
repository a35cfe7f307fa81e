//! `plan3d sweep`: the rules' plan over a range of model sizes, as a
//! table, CSV or JSON.

use clap::Args;
use plan3d_core::api::{self, request::SweepRequest};
use serde_json::Value;

use crate::args::{ConstraintArgs, HardwareArgs};
use crate::output::num;
use crate::output::to_json;

#[derive(Args)]
pub(crate) struct SweepArgs {
    /// baseline, partitioned, improved or improved-unpartitioned.
    #[arg(long, default_value = "improved")]
    pub(crate) method: String,
    /// none, data, data+pipe, data+tensor, pipe+tensor or 3d.
    #[arg(long, default_value = "3d")]
    pub(crate) parallelism: String,
    /// Smallest parameter count.
    #[arg(long, default_value_t = 1e9, value_parser = crate::args::count)]
    pub(crate) from: f64,
    /// Largest parameter count.
    #[arg(long, default_value_t = 1e16, value_parser = crate::args::count)]
    pub(crate) to: f64,
    /// Points, log-spaced (sizes that round to the same X[x] appear once).
    #[arg(long, default_value_t = 50)]
    pub(crate) points: u32,
    /// How the shape grows: `x` (the X[x] family), `aspect:R` (width/depth
    /// ratio R, e.g. 128 like GPT-3) or `depth:L` (L layers, wider models).
    #[arg(long, default_value = "x")]
    pub(crate) scaling: String,
    /// Head size for `aspect:` and `depth:` scaling.
    #[arg(long, default_value_t = 128)]
    pub(crate) head_size: u32,
    /// Sequence length for `aspect:` and `depth:` scaling.
    #[arg(long, default_value_t = 2048)]
    pub(crate) seq_len: u32,
    /// Comma-separated values instead of a table.
    #[arg(long, conflicts_with = "json")]
    pub(crate) csv: bool,
    #[command(flatten)]
    pub(crate) constraints: ConstraintArgs,
    #[command(flatten)]
    pub(crate) hw: HardwareArgs,
}

pub(crate) fn sweep_cmd(a: &SweepArgs) -> Result<Value, String> {
    to_json(api::sweep(&SweepRequest {
        hardware: a.hw.request(),
        constraints: a.constraints.request(),
        method: a.method.clone(),
        parallelism: a.parallelism.clone(),
        from: a.from,
        to: a.to,
        points: a.points,
        scaling: a.scaling.clone(),
        head_size: a.head_size,
        seq_len: a.seq_len,
    }))
}

pub(crate) const SWEEP_COLUMNS: [&str; 17] = [
    "x",
    "params",
    "gpus",
    "days",
    "efficiency",
    "offload",
    "offloadable",
    "non_offloadable",
    "data",
    "pipe",
    "tensor",
    "batch",
    "micro_batch",
    "micro_batches",
    "error",
    "layers",
    "d_model",
];

pub(crate) fn csv(rows: &Value) -> String {
    let mut out = SWEEP_COLUMNS.join(",");
    for r in rows.as_array().into_iter().flatten() {
        out.push('\n');
        let cells: Vec<String> = SWEEP_COLUMNS
            .iter()
            .map(|k| match &r[*k] {
                Value::Null => String::new(),
                Value::String(s) => format!("\"{}\"", s.replace('"', "\"\"")),
                v => v.to_string(),
            })
            .collect();
        out.push_str(&cells.join(","));
    }
    out
}

pub(crate) fn sweep_table(rows: &Value) -> String {
    let mut out = format!(
        "{:>13} {:>10} {:>8} {:>10} {:>6} {:>7} {:>12} {:>12}  {}",
        "d_l × d_m",
        "params",
        "gpus",
        "days",
        "eff.",
        "offload",
        "offl. GiB",
        "non-off. GiB",
        "n_b × n_l × n_a"
    );
    for r in rows.as_array().into_iter().flatten() {
        let n = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
        out.push('\n');
        if let Some(err) = r["error"].as_str() {
            out.push_str(&format!(
                "{:>13} {:>10.3e}  {err}",
                format!("{} × {}", r["layers"], r["d_model"]),
                n("params")
            ));
            continue;
        }
        out.push_str(&format!(
            "{:>13} {:>10.3e} {:>8} {:>10} {:>6.3} {:>7} {:>12} {:>12}  {} × {} × {}",
            format!("{} × {}", r["layers"], r["d_model"]),
            n("params"),
            r["gpus"],
            num(n("days")),
            n("efficiency"),
            if r["offload"] == true { "yes" } else { "no" },
            num(n("offloadable") / plan3d_core::units::GIB),
            num(n("non_offloadable") / plan3d_core::units::GIB),
            r["data"],
            r["pipe"],
            r["tensor"]
        ));
    }
    out
}
