//! `plan3d schedule`: a training step's timeline, simulated.

use clap::Args;
use plan3d_core::{model, schedule, ActivationModel, Error};
use serde_json::{json, Value};

use crate::args::HardwareArgs;
use crate::output::num;

#[derive(Args)]
pub(crate) struct ScheduleArgs {
    /// ga, lga, gpipe, 1f1b, interleaved or modular.
    #[arg(long)]
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
    let e = |e: Error| e.to_string();
    let kind =
        schedule::ScheduleKind::parse(&a.kind).map_err(|err| format!("{err} '{}'", a.kind))?;
    let devices = a.devices.unwrap_or(if kind.pipelined() { 4 } else { 1 });
    let (durations, memory_model, layers) = match &a.model {
        Some(name) => {
            let m = model::preset(name).map_err(|err| format!("{err} '{name}'"))?;
            let hw = a.hw.hardware().map_err(e)?;
            let d = schedule::Durations::from_cost_model(
                &m,
                &hw,
                a.tensor,
                a.micro_batch,
                a.data,
                a.partition,
                ActivationModel::Paper,
            )
            .map_err(e)?;
            (d, Some(m), a.layers.unwrap_or(m.layers))
        }
        None => {
            let mut d = schedule::Durations::unit(a.backward);
            d.reduce = a.reduce;
            d.restore = a.restore;
            d.send = a.send;
            (d, None, a.layers.unwrap_or(16))
        }
    };
    let mut spec = schedule::ScheduleSpec {
        kind,
        devices,
        layers,
        micro_batches: a.micro_batches,
        chunks: if kind == schedule::ScheduleKind::Interleaved {
            a.chunks
        } else {
            1
        },
        data: a.data,
        partition: a.partition,
        offload: a.offload,
        durations,
        memory: schedule::MemorySizes::unit(),
    };
    if let Some(m) = memory_model {
        spec.memory = schedule::MemorySizes::from_cost_model(&m, &spec, a.tensor, a.micro_batch);
    }
    schedule::simulate(&spec).map_err(e)
}

pub(crate) fn schedule_json(s: &schedule::Schedule) -> Value {
    let spec = &s.spec;
    json!({
        "kind": spec.kind.name(),
        "devices": spec.devices,
        "layers": spec.layers,
        "micro_batches": spec.micro_batches,
        "chunks": spec.chunks,
        "data": spec.data,
        "partition": spec.partition,
        "offload": spec.offload,
        "unit": spec.durations.unit,
        "makespan": s.makespan,
        "bubble_fraction": s.bubble_fraction,
        "exposed_communication": s.exposed_communication,
        "utilisation": s.utilisation,
        "in_flight": s.in_flight,
        "memory_peak_bytes": s.memory_peak,
        "events": s.events.iter().map(|e| json!({
            "device": e.device,
            "stream": e.stream.name(),
            "kind": e.kind.name(),
            "layer": e.layer,
            "layers": e.layers,
            "micro_batch": e.micro_batch,
            "start": e.start,
            "end": e.end,
        })).collect::<Vec<_>>(),
    })
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
