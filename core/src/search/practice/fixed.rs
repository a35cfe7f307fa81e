//! What a caller fixes, checked before the search: a fixed value that
//! cannot be honoured is refused in words that name it, never searched
//! around and never answered with a plan that differs from it. What is
//! left (a layout whose memory or micro-batches do not work out) is the
//! search's to find and, when nothing fits, [`crate::search::why`]'s to explain.

use super::Space;
use crate::cost::TENSOR_SPANS_NODES;
use crate::cost::{Method, PipelineSchedule, ZeroR};
use crate::error::{check_count, Error};
use crate::hardware::Hardware;
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::search::{Constraints, Parallelism};

/// Can `method` honour what `space` fixes, whatever the degrees: its ZeRO
/// stage ([`Method::admits`]), and for the layered methods (which run the
/// modular pipeline) no other schedule and no virtual stages. `any`
/// searches only the methods that can.
#[must_use]
pub fn compatible(space: &Space, method: Method) -> bool {
    method_conflict(space, method).is_none()
}

/// Why `method` cannot honour `space`, in words naming the fields.
fn method_conflict(space: &Space, method: Method) -> Option<&'static str> {
    if space.zero.is_some_and(|z| !method.admits(z)) {
        return Some(method.zero_refusal());
    }
    if method.layered() {
        if space
            .pipeline_schedule
            .is_some_and(|s| s != PipelineSchedule::OneFOneB)
        {
            return Some(
                "the paper's layered methods (improved) run the modular pipeline: leave the pipeline schedule free",
            );
        }
        if space.virtual_stages.is_some_and(|v| v > 1) {
            return Some(
                "the paper's layered methods (improved) run the modular pipeline, which has no virtual stages: leave them at 1",
            );
        }
    }
    None
}

/// Checks every fixed field of `space` and `c` against the model, the
/// hardware, the parallelism setting and each other.
///
/// # Errors
///
/// The first fixed value that cannot be honoured, naming it: a degree that
/// does not divide what it splits, a tensor degree above the node, a degree
/// the parallelism setting forbids, a layout larger than the cluster or
/// the budget, a global batch that the fixed data degree and micro-batch
/// do not divide, settings that contradict each other or the method.
pub(super) fn check(
    model: &ModelShape,
    hw: &Hardware,
    par: Parallelism,
    c: &Constraints,
    space: &Space,
    method: Method,
) -> Result<(), Error> {
    check_keyed(model, hw, par, c, space, method).map_err(|(_, e)| e)
}

/// The first fixed value the search refuses (`check`), with the page's URL key of the
/// field it was typed in (`tp`, `pp`, `dp`, `vp`, `mb`, `zero`, `sched`,
/// `cp`, `ep`, `batch`, `cluster`; `""` for what no page field sets), so
/// that the page can say it beside that field. `None` when every fixed
/// value can be honoured.
#[must_use]
pub fn refusal(
    model: &ModelShape,
    hw: &Hardware,
    par: Parallelism,
    c: &Constraints,
    space: &Space,
    method: Method,
) -> Option<(&'static str, Error)> {
    check_keyed(model, hw, par, c, space, method).err()
}

/// [`check`], each refusal with its field's URL key. (The error is the
/// crate's `Copy` error, as [`check`]'s; a key beside it costs 16 bytes.)
#[allow(clippy::result_large_err)]
fn check_keyed(
    model: &ModelShape,
    hw: &Hardware,
    par: Parallelism,
    c: &Constraints,
    space: &Space,
    method: Method,
) -> Result<(), (&'static str, Error)> {
    if let Some(what) = method_conflict(space, method) {
        let key = if space.zero.is_some_and(|z| !method.admits(z)) {
            "zero"
        } else if space.virtual_stages.is_some_and(|v| v > 1) && method.layered() {
            "vp"
        } else {
            "sched"
        };
        return Err((key, Error::Incompatible { what }));
    }
    let key = |k: &'static str| move |e: Error| (k, e);
    if let Some(t) = c.tensor {
        let t = u64::from(t);
        for (of, total) in [
            ("attention heads", model.heads),
            ("key/value heads", model.kv_heads),
        ] {
            if u64::from(total) % t != 0 {
                return Err((
                    "tp",
                    Error::NotDivisible {
                        what: "tensor-parallel degree",
                        value: t,
                        of,
                        total: total.into(),
                    },
                ));
            }
        }
        if let Some(node) = hw.node_size {
            if t > u64::from(node) {
                return Err((
                    "tp",
                    Error::TensorAboveNode {
                        tensor: u32::try_from(t).unwrap_or(u32::MAX),
                        node_size: node,
                    },
                ));
            }
            if u64::from(node) % t != 0 {
                return Err((
                    "tp",
                    Error::Incompatible {
                        what: TENSOR_SPANS_NODES,
                    },
                ));
            }
        }
        if t > 1 && !par.tensor() {
            return Err(("tp", Error::Incompatible {
                what: "a tensor-parallel degree above 1 needs a parallelism setting with tensor parallelism",
            }));
        }
    }
    if let Some(p) = space.pipe {
        check_count("pipeline-parallel degree", p.into(), 1, model.layers.into())
            .map_err(key("pp"))?;
        if p > 1 && !par.pipe() {
            return Err(("pp", Error::Incompatible {
                what: "a pipeline degree above 1 needs a parallelism setting with pipeline parallelism",
            }));
        }
    }
    if let Some(d) = space.data {
        check_count("data-parallel degree", d.into(), 1, crate::MAX_DEGREE).map_err(key("dp"))?;
        if d > 1 && !par.data() {
            return Err(("dp", Error::Incompatible {
                what: "a data-parallel degree above 1 needs a parallelism setting with data parallelism",
            }));
        }
    }
    if let Some(b) = space.micro_batch {
        check_count("micro-batch size", b.into(), 1, crate::MAX_DEGREE).map_err(key("mb"))?;
    }
    if let Some(v) = space.virtual_stages {
        // At most a chunk per layer, the embedding and the loss counted
        // as one each unless given as none (`step::pipeline_ends`).
        let ends = space.embedding_layers.map_or(1, |e| e.min(1))
            + space.head_layers.map_or(1, |h| h.min(1));
        let most = space.pipe.map_or(model.layers, |p| {
            crate::cost::config::max_virtual_stages(model.layers, p, ends)
        });
        check_count("virtual stages", v.into(), 1, most.into()).map_err(key("vp"))?;
        if v > 1
            && space.pipeline_schedule.is_some_and(|s| {
                matches!(
                    s,
                    PipelineSchedule::GPipe
                        | PipelineSchedule::ZbH1
                        | PipelineSchedule::ZbV
                        | PipelineSchedule::DualPipe
                )
            })
        {
            return Err((
                "vp",
                Error::Incompatible {
                    what:
                        "virtual stages interleave 1F1B: GPipe, ZB-H1, ZB-V and DualPipe take none",
                },
            ));
        }
        if v > 1 && (space.pipe == Some(1) || !par.pipe()) {
            return Err((
                "vp",
                Error::Incompatible {
                    what: "virtual stages need a pipeline (pipe above 1)",
                },
            ));
        }
    }
    if let Some(cp) = space.context {
        check_count(
            "context-parallel degree",
            cp.into(),
            1,
            model.seq_len.into(),
        )
        .map_err(key("cp"))?;
        if model.seq_len % cp != 0 {
            return Err((
                "cp",
                Error::NotDivisible {
                    what: "context-parallel degree",
                    value: cp.into(),
                    of: "sequence length",
                    total: model.seq_len.into(),
                },
            ));
        }
    }
    if let Some(ep) = space.expert {
        check_count("expert-parallel degree", ep.into(), 1, crate::MAX_DEGREE)
            .map_err(key("ep"))?;
        match model.experts {
            None if ep > 1 => {
                return Err((
                    "ep",
                    Error::Incompatible {
                        what: "expert parallelism needs a mixture of experts (--experts)",
                    },
                ))
            }
            Some(e) if e.routed % ep != 0 => {
                return Err((
                    "ep",
                    Error::NotDivisible {
                        what: "expert-parallel degree",
                        value: ep.into(),
                        of: "routed experts",
                        total: e.routed.into(),
                    },
                ))
            }
            _ => {}
        }
        // With the experts' tensor degree that of the rest, ep divides
        // d·cp; a smaller one (searched, or fixed) lets ep reach t·d·cp.
        if let (Some(d), cp, Some(0)) =
            (space.data, space.context.unwrap_or(1), space.expert_tensor)
        {
            let dp_cp = u64::from(d) * u64::from(cp);
            if dp_cp % u64::from(ep) != 0 {
                return Err((
                    "ep",
                    Error::NotDivisible {
                        what: "expert-parallel degree",
                        value: ep.into(),
                        of: "data × context-parallel degree",
                        total: dp_cp,
                    },
                ));
            }
        }
    }
    if let Some(x) = space.expert_tensor {
        check_count(
            "expert tensor-parallel degree",
            x.into(),
            0,
            crate::MAX_DEGREE,
        )
        .map_err(key("etp"))?;
        match model.experts {
            None if x > 1 => {
                return Err((
                    "etp",
                    Error::Incompatible {
                        what: "expert tensor parallelism needs a mixture of experts (--experts)",
                    },
                ))
            }
            Some(e) if x > 0 && e.ffn % x != 0 => {
                return Err((
                    "etp",
                    Error::NotDivisible {
                        what: "expert tensor-parallel degree",
                        value: x.into(),
                        of: "expert feed-forward size",
                        total: e.ffn.into(),
                    },
                ))
            }
            _ => {}
        }
    }
    if let Some(n) = space.embedding_layers {
        check_count("embedding layers", n.into(), 0, model.layers.into())
            .map_err(key("lmembed"))?;
    }
    if let (Some(m), Some(r)) = (space.recompute_modules, space.recompute) {
        if m.0 != 0 && r != ActivationModel::Selective {
            return Err((
                "",
                Error::Incompatible {
                    what: "recompute_modules needs recompute selective",
                },
            ));
        }
    }
    if let (Some(n), Some(r)) = (space.recompute_layers, space.recompute) {
        if n > 0 && r != ActivationModel::Full {
            return Err((
                "",
                Error::Incompatible {
                    what: "recompute_layers needs recompute full",
                },
            ));
        }
    }
    if let (Some(z), Some(r)) = (space.zero_r, space.recompute) {
        if z != ZeroR::None && r != ActivationModel::Full {
            return Err(("", Error::Incompatible {
                what: "ZeRO-R's activation checkpoints (zero_r pa or pa-cpu) need full recomputation (recompute full)",
            }));
        }
    }
    if let Some(gb) = space.global_batch {
        check_count("global batch", gb, 1, crate::MAX_GPUS).map_err(key("batch"))?;
        let per = u64::from(space.data.unwrap_or(1)) * u64::from(space.micro_batch.unwrap_or(1));
        if gb % per != 0 {
            return Err((
                "batch",
                Error::NotDivisible {
                    what: "data-parallel degree × micro-batch size",
                    value: per,
                    of: "global batch",
                    total: gb,
                },
            ));
        }
    }
    if let (Some(n), Some(max)) = (c.exact_gpus, c.max_gpus) {
        if n > max {
            return Err((
                "cluster",
                Error::Incompatible {
                    what: "the cluster size (gpus) is above the GPU budget (max_gpus)",
                },
            ));
        }
    }
    // The fixed degrees' product against the cluster or the budget, said
    // at the data degree (the one usually typed last), else the others.
    let product_key = if space.data.is_some() {
        "dp"
    } else if space.pipe.is_some() {
        "pp"
    } else if c.tensor.is_some() {
        "tp"
    } else {
        "cluster"
    };
    let fixed = [c.tensor, space.pipe, space.data, space.context];
    let product: u64 = fixed.iter().flatten().map(|&x| u64::from(x)).product();
    let all = fixed.iter().all(Option::is_some);
    if let Some(n) = c.exact_gpus {
        if all && product != n {
            return Err((product_key, Error::OutOfRange {
                what: "the fixed degrees' product (tensor × pipe × data × context) against the cluster's GPUs",
                value: product as f64,
                min: n as f64,
                max: n as f64,
            }));
        }
        if n % product != 0 {
            return Err((
                product_key,
                Error::NotDivisible {
                    what: "the fixed degrees' product (tensor × pipe × data × context)",
                    value: product,
                    of: "the cluster's GPUs",
                    total: n,
                },
            ));
        }
    }
    if let Some(max) = c.max_gpus {
        if product > max {
            return Err((product_key, Error::OutOfRange {
                what: "the fixed degrees' product (tensor × pipe × data × context) against the GPU budget",
                value: product as f64,
                min: 1.0,
                max: max as f64,
            }));
        }
    }
    Ok(())
}
