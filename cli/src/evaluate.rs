//! `plan3d evaluate`: the cost of one configuration.

use clap::Args;
use plan3d_core::api::{self, request::EvaluateRequest};
use serde_json::Value;

use crate::args::{HardwareArgs, PracticeArgs, ShapeArgs};
use crate::output::to_json;

#[derive(Args)]
pub(crate) struct EvaluateArgs {
    /// Model preset or x<N>; custom shape flags override its fields.
    #[arg(long)]
    pub(crate) model: Option<String>,
    #[command(flatten)]
    pub(crate) shape: ShapeArgs,
    /// baseline, partitioned, improved or improved-unpartitioned.
    #[arg(long, default_value = "baseline")]
    pub(crate) method: String,
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
    #[arg(long)]
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
}

pub(crate) fn evaluate_cmd(a: &EvaluateArgs) -> Result<Value, String> {
    to_json(api::evaluate(&EvaluateRequest {
        model: a.shape.request(a.model.as_deref()),
        hardware: a.hw.request(),
        method: a.method.clone(),
        data: a.data,
        pipe: a.pipe,
        tensor: a.tensor,
        batch: a.batch,
        micro_batch: a.micro_batch,
        micro_batches: a.micro_batches,
        offload: a.offload,
        activations: a.activations.clone(),
        practice: a.practice.request(),
    }))
}
