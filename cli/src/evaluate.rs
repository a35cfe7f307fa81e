//! `plan3d evaluate`: the cost of one configuration.

use clap::Args;
use plan3d_core::{evaluate, ActivationModel, Config, Error, Evaluation, Hardware, Method};
use serde_json::{json, Map, Value};

use crate::args::{HardwareArgs, ShapeArgs};

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
}

pub(crate) fn evaluate_cmd(a: &EvaluateArgs) -> Result<Value, String> {
    let m = a.shape.shape(a.model.as_deref())?;
    let hw = a.hw.hardware().map_err(|e| e.to_string())?;
    let cfg = Config {
        method: Method::parse(&a.method).map_err(|e| format!("{e} '{}'", a.method))?,
        data: a.data,
        pipe: a.pipe,
        tensor: a.tensor,
        micro_batch: a.micro_batch,
        micro_batches: a.micro_batches,
        offload: a.offload,
        activation: ActivationModel::parse(&a.activations)
            .map_err(|e| format!("{e} '{}'", a.activations))?,
    };
    if let Some(batch) = a.batch {
        if batch != cfg.batch() {
            return Err(Error::BatchMismatch {
                batch,
                product: cfg.batch(),
            }
            .to_string());
        }
    }
    let e = evaluate(&m, &hw, &cfg).map_err(|e| e.to_string())?;
    Ok(evaluation_json(&e, &hw))
}

pub(crate) fn evaluation_json(e: &Evaluation, hw: &Hardware) -> Value {
    let c = &e.config;
    let overheads: Map<String, Value> = e
        .overheads
        .entries()
        .iter()
        .map(|&(k, v)| (k.to_string(), json!(v)))
        .collect();
    let transfers: Vec<Value> = e
        .transfers
        .iter()
        .map(|t| {
            json!({
                "kind": t.kind.key(),
                "link": t.link.key(),
                "equation": t.equation,
                "intensity": t.intensity.get(),
                "threshold": t.threshold.get(),
                "overlapped": t.overlapped,
                "hidden": t.hidden(),
                "overhead": t.overhead,
            })
        })
        .collect();
    let m = &e.memory;
    json!({
        "method": c.method.name(),
        "batch": e.batch,
        "micro_batch": c.micro_batch,
        "micro_batches": c.micro_batches,
        "data": c.data,
        "pipe": c.pipe,
        "tensor": c.tensor,
        "gpus": e.gpus,
        "offload": c.offload,
        "critical_batch": e.critical_batch,
        "efficiency": e.efficiency,
        "days": e.time.days(),
        "steps": e.steps,
        "total_flops": e.total_flops.get(),
        "fits": e.fits,
        "gpu_memory_bytes": hw.gpu.memory.get(),
        "overheads": overheads,
        "memory": {
            "state": m.state.get(),
            "checkpoints": m.checkpoints.get(),
            "buffers": m.buffers.get(),
            "activations": m.activations.get(),
            "offloadable": m.offloadable().get(),
            "non_offloadable": m.non_offloadable().get(),
            "total": m.total().get(),
            "on_gpu": m.on_gpu(c.offload).get(),
        },
        "transfers": transfers,
    })
}
