//! `plan3d run`: a plan and its whole run: wall-clock days with a batch
//! ramp, goodput under interruptions and checkpoints, GPU-hours, cost,
//! energy.

use clap::Args;
use plan3d_core::api::{self, request::RunRequest};
use serde_json::Value;

use crate::output::to_json;
use crate::plan::PlanArgs;

#[derive(Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) plan: PlanArgs,
    /// Global batch in tokens (instead of --global-batch in sequences;
    /// suffixes as --batch-ramp's: 16Mi)
    #[arg(long, value_parser = crate::args::count)]
    pub(crate) batch_tokens: Option<f64>,
    /// Batch ramp TOKENS:BATCH,... in tokens, e.g. 0:4Mi,252M:8Mi,2.87T:16Mi
    /// (suffixes k M G/B T, Ki Mi Gi Ti); the plan is searched at the last
    #[arg(long)]
    pub(crate) batch_ramp: Option<String>,
    /// US dollars per GPU-hour (default per GPU, late-2025 cloud prices)
    #[arg(long)]
    pub(crate) price_per_gpu_hour: Option<f64>,
    /// Interruptions per GPU-hour (default 2.19e-5, Llama 3 405B's)
    #[arg(long)]
    pub(crate) interruptions_per_gpu_hour: Option<f64>,
    /// Checkpoint write bandwidth per node, bytes/s (default 1e9; 2GB, 4Gi)
    #[arg(long, value_parser = crate::args::count)]
    pub(crate) checkpoint_bandwidth: Option<f64>,
    /// Asynchronous checkpoints: wait only for a snapshot to host memory
    #[arg(long)]
    pub(crate) async_checkpoint: bool,
    /// Minutes from an interruption to training again (default 10)
    #[arg(long)]
    pub(crate) restart_minutes: Option<f64>,
    /// Power usage effectiveness (default 1.2)
    #[arg(long)]
    pub(crate) pue: Option<f64>,
    /// Watts per node besides its GPUs (default 575 per GPU of the node)
    #[arg(long)]
    pub(crate) node_watts: Option<f64>,
    /// kg CO2 per kWh of the grid (adds co2_tonnes)
    #[arg(long)]
    pub(crate) grid_kg_per_kwh: Option<f64>,
}

pub(crate) fn run_cmd(a: &RunArgs) -> Result<Value, String> {
    to_json(api::run(&request(a)?))
}

/// `run`'s answer first, in words.
pub(crate) fn run_text(a: &RunArgs) -> Result<String, String> {
    api::run_answer(&request(a)?)
        .map(|t| {
            let most = a.plan.constraints.most_gpus();
            a.plan.hw.with_network_note(t, most)
        })
        .map_err(|e| e.to_string())
}

/// The request these flags make.
fn request(a: &RunArgs) -> Result<RunRequest, String> {
    Ok(RunRequest {
        plan: crate::plan::request(&a.plan)?,
        batch_tokens: a.batch_tokens,
        batch_ramp: a.batch_ramp.clone(),
        price_per_gpu_hour: a.price_per_gpu_hour,
        interruptions_per_gpu_hour: a.interruptions_per_gpu_hour,
        checkpoint_bandwidth: a.checkpoint_bandwidth,
        async_checkpoint: a.async_checkpoint,
        restart_minutes: a.restart_minutes,
        pue: a.pue,
        node_watts: a.node_watts,
        grid_kg_per_kwh: a.grid_kg_per_kwh,
    })
}
