//! A configuration checked against its model and hardware before it is
//! evaluated: every degree, batch and knob in range, each refusal naming
//! its field.

#[allow(clippy::wildcard_imports)]
use super::*;
use crate::error::{check_count, Error};
use crate::hardware::Hardware;
use crate::model::ModelShape;

/// The most virtual stages a pipeline of `pipe` stages takes over
/// `layers` layers: a chunk per layer, with `ends` (0–2) of the embedding
/// and the loss counted as a layer each (Megatron-Core's accounting: a
/// chunk may then hold one alone); at least 1.
#[must_use]
pub fn max_virtual_stages(layers: u32, pipe: u32, ends: u32) -> u32 {
    ((layers + ends) / pipe.max(1)).max(1)
}

/// Checks a configuration against the model and hardware (the errors of
/// [`crate::evaluate`]).
pub(crate) fn validate(model: &ModelShape, hw: &Hardware, cfg: &Config) -> Result<(), Error> {
    model.validate()?;
    hw.validate()?;
    check_count("data-parallel degree", cfg.data.into(), 1, MAX_DEGREE)?;
    check_count(
        "pipeline-parallel degree",
        cfg.pipe.into(),
        1,
        model.layers.into(),
    )?;
    check_count("tensor-parallel degree", cfg.tensor.into(), 1, MAX_DEGREE)?;
    check_count(
        "context-parallel degree",
        cfg.context.into(),
        1,
        model.seq_len.into(),
    )?;
    if model.seq_len % cfg.context != 0 {
        return Err(Error::NotDivisible {
            what: "context-parallel degree",
            value: cfg.context.into(),
            of: "sequence length",
            total: model.seq_len.into(),
        });
    }
    check_count("expert-parallel degree", cfg.expert.into(), 1, MAX_DEGREE)?;
    check_count(
        "recomputed layers",
        cfg.recompute_layers.into(),
        0,
        model.layers.into(),
    )?;
    check_count(
        "offloaded layers",
        cfg.offload_layers.into(),
        0,
        model.layers.into(),
    )?;
    if cfg.recompute_modules.0 != 0 && cfg.activation != ActivationModel::Selective {
        return Err(Error::Incompatible {
            what: "recompute_modules needs recompute selective",
        });
    }
    if cfg.offload_modules.0 != 0
        && matches!(
            cfg.activation,
            ActivationModel::Full | ActivationModel::Paper
        )
    {
        return Err(Error::Incompatible {
            what: crate::cost::offload::UNDER_FULL_RECOMPUTATION,
        });
    }
    if cfg.recompute_layers > 0 && cfg.activation != ActivationModel::Full {
        return Err(Error::Incompatible {
            what: "recompute_layers needs recompute full",
        });
    }
    match model.experts {
        None if cfg.expert > 1 => {
            return Err(Error::Incompatible {
                what: "expert parallelism needs a mixture of experts (--experts)",
            })
        }
        Some(e) if e.routed % cfg.expert != 0 => {
            return Err(Error::NotDivisible {
                what: "expert-parallel degree",
                value: cfg.expert.into(),
                of: "routed experts",
                total: e.routed.into(),
            })
        }
        _ => {}
    }
    check_count(
        "expert tensor-parallel degree",
        cfg.expert_tensor.into(),
        0,
        MAX_DEGREE,
    )?;
    if model.experts.is_none() && cfg.expert_tensor > 1 && cfg.expert_tensor != cfg.tensor {
        return Err(Error::Incompatible {
            what: "expert tensor parallelism needs a mixture of experts (--experts)",
        });
    }
    if let Some(e) = model.experts {
        let etp = cfg.expert_tensor_degree();
        if e.ffn % etp != 0 {
            return Err(Error::NotDivisible {
                what: "expert tensor-parallel degree",
                value: etp.into(),
                of: "expert feed-forward size",
                total: e.ffn.into(),
            });
        }
    }
    // The MoE layers regroup a stage's t·cp·d GPUs as etp × ep × edp.
    let stage = u64::from(cfg.tensor) * u64::from(cfg.data) * u64::from(cfg.context.max(1));
    let folded = u64::from(cfg.expert) * u64::from(cfg.expert_tensor_degree());
    if stage % folded != 0 {
        return Err(Error::NotDivisible {
            what: "expert × expert tensor-parallel degree",
            value: folded,
            of: "tensor × data × context-parallel degree",
            total: stage,
        });
    }
    check_count(
        "embedding layers",
        cfg.embedding_layers.into(),
        0,
        model.layers.into(),
    )?;
    check_count("micro-batch size", cfg.micro_batch.into(), 1, MAX_DEGREE)?;
    check_count("micro-batch count", cfg.micro_batches.into(), 1, MAX_DEGREE)?;
    check_count("GPU count", cfg.gpus(), 1, MAX_GPUS)?;
    check_count("batch", cfg.batch(), 1, MAX_GPUS)?;
    check_count(
        "tensor-parallel degree",
        cfg.tensor.into(),
        1,
        model.heads.into(),
    )?;
    if let Some(node) = hw.node_size {
        if cfg.tensor > node {
            return Err(Error::TensorAboveNode {
                tensor: cfg.tensor,
                node_size: node,
            });
        }
    }
    // A chunk may hold the embedding or the head alone (Megatron-Core's
    // accounting: 126 layers, embedding and loss over PP 16 × VP 8).
    check_count(
        "virtual stages",
        cfg.virtual_stages.into(),
        1,
        max_virtual_stages(
            model.layers,
            cfg.pipe,
            cfg.embedding_layers.min(1) + cfg.head_layers.min(1),
        )
        .into(),
    )?;
    if cfg.microbatch_group > 0 {
        if cfg.virtual_stages <= 1 || cfg.pipe <= 1 || cfg.method.layered() {
            return Err(Error::Incompatible {
                what: "microbatch_group groups the micro-batches of an interleaved schedule: it \
                       needs a pipeline with virtual_stages above 1",
            });
        }
        if !crate::cost::step::group_fits(cfg.microbatch_group, cfg.pipe, cfg.micro_batches) {
            return Err(Error::Incompatible {
                what: "microbatch_group must lie between the pipeline degree and the \
                       micro-batches, which must be a multiple of it or leave a last group at \
                       least as long as the pipeline degree (Megatron-Core's rule)",
            });
        }
    }
    if cfg.pipeline_schedule == PipelineSchedule::GPipe {
        if cfg.method.layered() {
            return Err(Error::Incompatible {
                what: "the layered methods run the modular pipeline, not GPipe",
            });
        }
        if cfg.virtual_stages > 1 {
            return Err(Error::Incompatible {
                what: "GPipe has no virtual stages: interleaving is a 1F1B schedule",
            });
        }
    }
    if matches!(
        cfg.pipeline_schedule,
        PipelineSchedule::ZbH1 | PipelineSchedule::DualPipe | PipelineSchedule::ZbV
    ) {
        if cfg.method.layered() {
            return Err(Error::Incompatible {
                what: "the layered methods run the modular pipeline, not a zero-bubble schedule",
            });
        }
        if cfg.virtual_stages > 1 {
            return Err(Error::Incompatible {
                what: "ZB-H1, DualPipe and ZB-V take no virtual stages (ZB-V's two chunks per GPU are implied)",
            });
        }
    }
    if cfg.pipeline_schedule == PipelineSchedule::DualPipe
        && cfg.pipe > 1
        && (cfg.pipe % 2 != 0
            || !cfg
                .pipeline_schedule
                .fits_micro_batches(cfg.pipe, cfg.micro_batches))
    {
        return Err(Error::Incompatible {
            what: "DualPipe needs an even pipeline degree and an even number of micro-batches, at least twice the pipeline degree",
        });
    }
    if cfg.pipeline_schedule == PipelineSchedule::ZbV
        && cfg.pipe > 1
        && (!cfg
            .pipeline_schedule
            .fits_micro_batches(cfg.pipe, cfg.micro_batches)
            || model.layers < 2 * cfg.pipe)
    {
        return Err(Error::Incompatible {
            what: "ZB-V needs at least 2p − 1 micro-batches and 2p layers for a pipeline degree p (it cuts the model into 2p stages)",
        });
    }
    if cfg.zero_r != ZeroR::None
        && !matches!(
            cfg.activation,
            ActivationModel::Full | ActivationModel::Paper
        )
    {
        return Err(Error::Incompatible {
            what: "ZeRO-R's P_a places activation checkpoints: it needs full recomputation",
        });
    }
    if cfg.method.layered() && cfg.pipe > 1 && cfg.micro_batches < cfg.pipe {
        return Err(Error::TooFewMicroBatches {
            micro_batches: cfg.micro_batches,
            pipe: cfg.pipe,
        });
    }
    Ok(())
}
