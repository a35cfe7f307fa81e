//! `plan3d evaluate`: the cost of one configuration.

use clap::Args;
use plan3d_core::api::{self, request::EvaluateRequest};
use serde_json::Value;

use crate::args::{HardwareArgs, PracticeArgs, ShapeArgs};
use crate::output::to_json;
use crate::schedule::timeline_output;

#[derive(Args)]
pub(crate) struct EvaluateArgs {
    /// Model preset or x<N>; custom shape flags override its fields.
    #[arg(long)]
    pub(crate) model: Option<String>,
    #[command(flatten)]
    pub(crate) shape: ShapeArgs,
    /// baseline, partitioned, improved or improved-unpartitioned; default:
    /// the framework's sharding (partitioned, ZeRO-3, under pytorch-fsdp
    /// and torchtitan; baseline otherwise), or the one --zero admits.
    #[arg(long)]
    pub(crate) method: Option<String>,
    /// Data-parallel degree n_b.
    #[arg(long, default_value_t = 1)]
    pub(crate) data: u32,
    /// Pipeline-parallel degree n_l.
    #[arg(long, default_value_t = 1)]
    pub(crate) pipe: u32,
    /// Tensor-parallel degree n_a.
    #[arg(long, default_value_t = 1)]
    pub(crate) tensor: u32,
    /// Batch size b in sequences; must equal data × micro-batches × micro-batch.
    #[arg(long, value_parser = crate::args::whole)]
    pub(crate) batch: Option<u64>,
    /// Micro-batch size b_µ.
    #[arg(long, default_value_t = 1)]
    pub(crate) micro_batch: u32,
    /// Micro-batch count n_µ.
    #[arg(long, default_value_t = 1)]
    pub(crate) micro_batches: u32,
    /// Offload the training state and checkpoints to CPU memory.
    #[arg(long)]
    pub(crate) offload: bool,
    /// Activation model: paper, full, selective or none.
    #[arg(long, default_value = "paper")]
    pub(crate) activations: String,
    #[command(flatten)]
    pub(crate) hw: HardwareArgs,
    #[command(flatten)]
    pub(crate) practice: PracticeArgs,
    /// Print the step's simulated timeline as the page animates it (the
    /// plan's schedule kind, its setting's durations and memory): ascii,
    /// svg or json.
    #[arg(long, value_parser = ["ascii", "svg", "json"])]
    pub(crate) timeline: Option<String>,
}

fn request(a: &EvaluateArgs) -> Result<EvaluateRequest, String> {
    Ok(EvaluateRequest {
        model: a.shape.request(a.model.as_deref()),
        hardware: a.hw.request(),
        method: a.method.clone().unwrap_or_default(),
        data: a.data,
        pipe: a.pipe,
        tensor: a.tensor,
        batch: a.batch,
        micro_batch: a.micro_batch,
        micro_batches: a.micro_batches,
        offload: a.offload,
        activations: a.activations.clone(),
        practice: a.practice.request()?,
    })
}

/// `evaluate`'s answer first, in words.
pub(crate) fn evaluate_text(a: &EvaluateArgs) -> Result<String, String> {
    api::evaluate_answer(&request(a)?)
        .map(|t| {
            let cp = u64::from(a.practice.context_parallel.unwrap_or(1).max(1));
            let gpus = u64::from(a.data) * u64::from(a.pipe) * u64::from(a.tensor) * cp;
            a.hw.with_network_note(t, Some(gpus))
        })
        .map_err(|e| e.to_string())
}

pub(crate) fn evaluate_cmd(a: &EvaluateArgs) -> Result<Value, String> {
    to_json(api::evaluate(&request(a)?))
}

/// `--timeline`: the configuration's simulated step.
pub(crate) fn timeline_cmd(a: &EvaluateArgs, format: &str) -> Result<String, String> {
    let (s, t) = api::evaluate_timeline(&request(a)?).map_err(|e| e.to_string())?;
    timeline_output(&s, &t, format)
}
