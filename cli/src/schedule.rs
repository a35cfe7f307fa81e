//! `plan3d schedule`: a training step's timeline, simulated.

use clap::Args;
use plan3d_core::api::{
    self,
    report::{ScheduleReport, TimelineReport},
    request::ScheduleRequest,
};
use plan3d_core::schedule;
use serde_json::Value;

use crate::args::HardwareArgs;
use crate::output::num;
use crate::output::to_json;

#[derive(Args)]
pub(crate) struct ScheduleArgs {
    /// ga, lga, gpipe, 1f1b, interleaved, modular, zb-h1, zb-v or dualpipe (also
    /// `--schedule`).
    #[arg(long, alias = "schedule")]
    pub(crate) kind: String,
    /// Pipeline devices n_l (1 for ga and lga).
    #[arg(long)]
    pub(crate) devices: Option<u32>,
    /// Layers d_l (default: the model's, or 16).
    #[arg(long)]
    pub(crate) layers: Option<u32>,
    /// Micro-batches n_µ.
    #[arg(long, default_value_t = 4)]
    pub(crate) micro_batches: u32,
    /// Virtual stages per device (interleaved).
    #[arg(long, default_value_t = 2)]
    pub(crate) chunks: u32,
    /// Interleaved: micro-batches each chunk takes in a row, N (Megatron-Core's
    /// --microbatch-group-size-per-virtual-pipeline-stage, the Llama 3 paper's
    /// N); default the smallest Megatron-Core takes: the devices when they
    /// divide the micro-batches.
    #[arg(long)]
    pub(crate) group: Option<u32>,
    /// Data-parallel degree: above 1, gradients are reduced.
    #[arg(long, default_value_t = 1)]
    pub(crate) data: u32,
    /// State partitioned over the data-parallel devices (restores and
    /// per-layer reductions, Table C.1).
    #[arg(long)]
    pub(crate) partition: bool,
    /// State offloaded to CPU memory (reloads and offloads).
    #[arg(long)]
    pub(crate) offload: bool,
    /// Unit durations (forward 1, backward --backward, free transfers); the
    /// default without --model.
    #[arg(long, conflicts_with = "model")]
    pub(crate) unit: bool,
    /// Backward duration in unit mode (2, or 3 with recomputation).
    #[arg(long, default_value_t = 2.0)]
    pub(crate) backward: f64,
    /// Unit mode: duration of one layer's reduction.
    #[arg(long, default_value_t = 0.0)]
    pub(crate) reduce: f64,
    /// Unit mode: duration of one layer's restore.
    #[arg(long, default_value_t = 0.0)]
    pub(crate) restore: f64,
    /// Unit mode: duration of one micro-batch's send between stages.
    #[arg(long, default_value_t = 0.0)]
    pub(crate) send: f64,
    /// Durations and memory from the cost model for this model.
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// Tensor-parallel degree (cost-model mode).
    #[arg(long, default_value_t = 1)]
    pub(crate) tensor: u32,
    /// Micro-batch size (cost-model mode).
    #[arg(long, default_value_t = 1)]
    pub(crate) micro_batch: u32,
    #[command(flatten)]
    pub(crate) hw: HardwareArgs,
    /// An SVG drawing.
    #[arg(long, conflicts_with_all = ["ascii", "json"])]
    pub(crate) svg: bool,
    /// A text Gantt chart.
    #[arg(long, conflicts_with = "json")]
    pub(crate) ascii: bool,
    /// Include every event in the JSON (default with --json).
    #[arg(long, default_value_t = true)]
    pub(crate) events: bool,
}

pub(crate) fn schedule_cmd(a: &ScheduleArgs) -> Result<schedule::Schedule, String> {
    api::simulate(&ScheduleRequest {
        kind: a.kind.clone(),
        devices: a.devices,
        layers: a.layers,
        micro_batches: a.micro_batches,
        chunks: a.chunks,
        group: a.group,
        data: a.data,
        partition: a.partition,
        offload: a.offload,
        backward: a.backward,
        reduce: a.reduce,
        restore: a.restore,
        send: a.send,
        model: a.model.clone(),
        tensor: a.tensor,
        micro_batch: a.micro_batch,
        hardware: a.hw.request(),
    })
    .map_err(|e| e.to_string())
}

pub(crate) fn schedule_json(s: &schedule::Schedule) -> Result<Value, String> {
    to_json(Ok::<_, String>(ScheduleReport::from(s)))
}

/// The text Gantt chart and a summary line: one column per unit in unit
/// mode, 160 columns over the makespan in seconds.
pub(crate) fn schedule_text(sched: &schedule::Schedule) -> String {
    let step = if sched.spec.durations.unit == "unit" {
        1.0
    } else {
        sched.makespan / 160.0
    };
    format!(
        "{}{} schedule: makespan {} {}, bubble {:.4}, exposed communication {} {}",
        sched.to_ascii(step),
        sched.spec.kind.name(),
        num(sched.makespan),
        sched.spec.durations.unit,
        sched.bubble_fraction,
        num(sched.exposed_communication),
        sched.spec.durations.unit
    )
}

/// `evaluate --timeline` and `plan --timeline`: the simulated step in the
/// format asked, with a line (or fields) saying what is shown of the plan
/// and its estimated step.
pub(crate) fn timeline_output(
    s: &schedule::Schedule,
    t: &TimelineReport,
    format: &str,
) -> Result<String, String> {
    let of = |shown: u32, all: u32| {
        if shown == all {
            format!("{all}")
        } else {
            format!("{shown} of {all}")
        }
    };
    match format {
        "svg" => Ok(s.to_svg()),
        "json" => serde_json::to_string_pretty(t).map_err(|e| e.to_string()),
        _ => Ok(format!(
            "{}\nshown: {} stages, {} micro-batches; the plan's estimated step {} s",
            schedule_text(s),
            of(t.shown_devices, t.plan_devices),
            of(t.shown_micro_batches, t.plan_micro_batches),
            num(t.estimated_step_seconds)
        )),
    }
}
