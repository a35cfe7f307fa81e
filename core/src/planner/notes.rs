//! What the page says beside its inputs and its plan, in words: the
//! corrections the plans make to the inputs, a layout no plan can honour
//! (said at its field), the published run a preset's plan is compared with,
//! and why a model's dot sits off the scaling chart's lines.

use alloc::vec::Vec;

use super::{constraints, practice_space, Outputs, METHODS};
use crate::cost::Method;
use crate::search::{self, Plan};
use crate::state::{Inputs, ModelChoice, Notice};

/// Why a network runs slower than its label ([`pcie_capped`]).
pub const PCIE_SLOWER: &str = "the GPU's PCIe link to its network card is slower";

/// The rate a network faster than the GPU's PCIe link runs at, in the
/// networks' labels' Gb/s per GPU; `None` where the network is the slower.
/// Its traffic crosses that link to the card
/// ([`crate::Hardware::network_bandwidth`]): an A100's PCIe 4.0 carries
/// less than InfiniBand 400, an H100's PCIe 5.0 less than 800. Both are
/// counted both ways, as the labels' rates are.
#[must_use]
pub fn pcie_capped(hw: &crate::Hardware) -> Option<f64> {
    (hw.network.bandwidth().0 > hw.gpu.pcie.0).then_some(hw.gpu.pcie.0 * 4e-9)
}

/// Corrections the plans make to the inputs, in words: a batch limit
/// above the model's critical batch is the critical batch (past it, more
/// sequences per step do not cut the step count, eq. 2, so they only add
/// work); a network faster than the GPU's PCIe link runs at the link's
/// rate; and the rest below, each at its field.
#[must_use]
pub fn corrections(inputs: &Inputs, out: &Outputs) -> Vec<Notice> {
    let mut v = Vec::new();
    let bc = out.model.critical_batch();
    // Under practice the batch is the user's global batch, above b_c too.
    if let Some(b) = inputs
        .batch
        .filter(|&b| b as f64 > bc && !inputs.practice())
    {
        v.push(Notice {
            key: "batch".into(),
            value: alloc::format!("{b}"),
            reason: "above this model's critical batch (eq. 2): past it, more sequences per \
                     step only add work"
                .into(),
            used: alloc::format!("the critical batch, {} sequences", crate::math::floor(bc)),
            refused: false,
        });
    }
    if !inputs.practice() {
        // The paper's rules take the tensor degree; the rest of a layout is
        // the practice search's.
        let l = inputs.layout;
        for (key, set) in [
            ("dp", l.data.is_some()),
            ("pp", l.pipe.is_some()),
            ("vp", l.virtual_stages.is_some()),
            ("mb", l.micro_batch.is_some()),
            ("zero", l.zero.is_some()),
            ("sched", l.schedule.is_some()),
            ("lmhead", l.head_layers.is_some()),
            ("lmembed", l.embedding_layers.is_some()),
        ] {
            if set {
                v.push(Notice {
                    key: key.into(),
                    value: inputs.field_text(key),
                    reason: "a layout is checked by the practice search (assume=practice); the \
                             paper's rules choose it"
                        .into(),
                    used: "the rules' choice".into(),
                    refused: false,
                });
            }
        }
    }
    if let Some(gbps) = pcie_capped(&inputs.hardware()) {
        v.push(Notice {
            key: "net".into(),
            value: inputs.network.name().into(),
            reason: PCIE_SLOWER.into(),
            used: alloc::format!("the link's {gbps:.0} Gb/s per GPU"),
            refused: false,
        });
    }
    if inputs.practice() && inputs.compute_used() != inputs.compute {
        v.push(Notice {
            key: "prec".into(),
            value: inputs.compute.name().into(),
            reason: crate::cost::assumptions::format_refusal(inputs.compute, &inputs.gpu)
                .unwrap_or_default()
                .into(),
            used: inputs.compute_used().name().to_ascii_uppercase(),
            refused: false,
        });
    }
    if let Some(c) = inputs.cross_entropy.filter(|_| !inputs.practice()) {
        v.push(Notice {
            key: "ce".into(),
            value: c.name().into(),
            reason: "the loss's memory is a practice knob: the paper counts the fp32 logits".into(),
            used: "the fp32 logits (4 bytes each)".into(),
            refused: false,
        });
    }
    if let Some(f) = inputs.framework.filter(|_| !inputs.practice()) {
        v.push(Notice {
            key: "fw".into(),
            value: f.name().into(),
            reason: "a practice knob: the paper counts its own memory".into(),
            used: "the paper's memory".into(),
            refused: false,
        });
    }
    if let Some(e) = inputs.expert.filter(|_| out.model.experts.is_none()) {
        v.push(Notice {
            key: "ep".into(),
            value: alloc::format!("{e}"),
            reason: "a dense model has no experts to spread".into(),
            used: "no expert parallelism".into(),
            refused: false,
        });
    }
    if inputs.custom_profile && inputs.calibration.is_none() {
        v.push(Notice {
            key: "prof".into(),
            value: "custom".into(),
            reason: "this link was made with a calibration profile of its author's GPU, which \
                     this browser does not hold (load it beside the GPU to use it)"
                .into(),
            used: alloc::format!("the {} preset's kernel curves", inputs.gpu.name),
            refused: false,
        });
    } else if inputs.custom_profile && !inputs.practice() {
        v.push(Notice {
            key: "prof".into(),
            value: "custom".into(),
            reason: "a calibration profile sets practice's kernel curves: the paper's model has \
                     one efficiency"
                .into(),
            used: "the paper's".into(),
            refused: false,
        });
    }
    if let Some(e) = inputs.expert_tensor.filter(|_| out.model.experts.is_none()) {
        v.push(Notice {
            key: "etp".into(),
            value: alloc::format!("{e}"),
            reason: "a dense model has no experts to split".into(),
            used: "the tensor-parallel degree".into(),
            refused: false,
        });
    }
    // Virtual stages that outnumber the layers: the embedding counted
    // (`step::pipeline_ends`), said at the field left empty.
    if inputs.layout.embedding_layers.is_none()
        && out.plans.iter().any(|(_, p)| {
            p.as_ref()
                .is_ok_and(|p| p.evaluation.config.embedding_layers > 0)
        })
    {
        v.push(Notice {
            key: "lmembed".into(),
            value: alloc::string::String::new(),
            reason: "more chunks (PP × VP) than layers: Megatron-Core counts the embedding and \
                     the loss as a layer each"
                .into(),
            used: "1 layer".into(),
            refused: false,
        });
    }
    if let Some(n) = layout_refusal(inputs, out) {
        v.push(n);
    }
    v
}

/// Under practice, a fixed value no method the page searches can honour
/// (a tensor degree above the node, virtual stages without a pipeline, a
/// layout larger than the budget), said beside the field it was typed in
/// (`search::practice::fixed::refusal`), in the words the headline uses.
fn layout_refusal(inputs: &Inputs, out: &Outputs) -> Option<Notice> {
    if !inputs.practice() {
        return None;
    }
    let space = practice_space(inputs);
    let c = constraints(inputs);
    let chosen;
    let methods: &[Method] = match inputs.method {
        Some(m) => {
            chosen = [m];
            &chosen
        }
        None => &METHODS,
    };
    let mut first = None;
    for &m in methods {
        match search::practice::fixed::refusal(
            &out.model,
            &out.hardware,
            inputs.parallelism,
            &c,
            &space,
            m,
        ) {
            None => return None,
            Some(r) => {
                first.get_or_insert(r);
            }
        }
    }
    let (key, e) = first?;
    let value = inputs.field_text(key);
    Some(Notice {
        key: key.into(),
        value: if value.is_empty() {
            inputs.described(key)
        } else {
            value
        },
        reason: alloc::string::ToString::to_string(&e).into(),
        used: alloc::string::String::new(),
        refused: true,
    })
}

/// Why the plan's dot may sit off the scaling chart's lines, in words:
/// the lines are the paper's X\[x\] family (sequences of 16·x tokens); a
/// model with longer sequences has fewer of them in a batch of the same
/// tokens to spread over data-parallel replicas, so its fastest plan uses
/// fewer GPUs and more days than the line at its size. `None` for an X\[x\]
/// model or one whose sequences are within 25 % of the line's.
#[must_use]
pub fn scaling_offset(inputs: &Inputs) -> Option<alloc::string::String> {
    if matches!(inputs.model, ModelChoice::X(_)) {
        return None;
    }
    let m = inputs.model.shape().ok()?;
    let x = Inputs::x_for_params(m.params());
    let line = crate::model::x_family(x).ok()?;
    let ratio = f64::from(m.seq_len) / f64::from(line.seq_len);
    if (0.8..=1.25).contains(&ratio) {
        return None;
    }
    Some(alloc::format!(
        " The lines are the paper's X[x] models, whose sequences are 16·x tokens ({} at \
         this size, X{x}); this model's are {} tokens, so a batch of the same tokens holds \
         {}× {} sequences to spread over data-parallel replicas, and its dot can sit {}.",
        line.seq_len,
        m.seq_len,
        crate::math::round_sig(if ratio > 1.0 { ratio } else { 1.0 / ratio }, 2),
        if ratio > 1.0 { "fewer" } else { "more" },
        if ratio > 1.0 {
            "above the lines (fewer GPUs, more days)"
        } else {
            "below the lines (more GPUs, fewer days)"
        },
    ))
}

/// A preset whose run published its batch, planned at today's batch law
/// with no batch given: the fastest shipped plan at the published batch, so
/// that a plan at another batch is not read as the published run's ("Meta
/// trained at 2 048 sequences: at that batch …"). `None` when the user set
/// a batch, the model has no published batch, or the plan's batch is
/// within 10 % of it.
#[must_use]
pub fn published_batch_plan(
    inputs: &Inputs,
    out: &Outputs,
    plan: &Plan,
) -> Option<alloc::string::String> {
    let ModelChoice::Preset(name) = inputs.model else {
        return None;
    };
    let trained = plan.evaluation.config.batch();
    if inputs.batch.is_some() {
        return None;
    }
    let p = crate::calibration::published_batch_apart(name, trained)?;
    let tokens = |b: u64| b as f64 * f64::from(out.model.seq_len) / 1e6;
    let head = alloc::format!(
        "this plan's batch, {trained} sequences ({:.1} M tokens), is today's batch law's; {} \
         trained at {} sequences ({:.1} M tokens; {})",
        tokens(trained),
        p.who,
        p.sequences,
        tokens(p.sequences),
        p.source
    );
    let space = search::Space {
        global_batch: Some(p.sequences),
        ..practice_space(inputs)
    };
    let at = search::practice_methods(
        &out.model,
        &out.hardware,
        inputs.parallelism,
        &out.constraints,
        &space,
        &inputs.knobs(),
        inputs.shipped(),
    );
    Some(match at {
        Ok(r) => {
            let e = &r.best.evaluation;
            alloc::format!(
                "{head}: at that batch {} takes {:.1} days at {:.0} % MFU on {} GPUs \
                 ({} × {} × {})",
                r.best.method.label(),
                e.time.days(),
                100.0 * e.mfu(),
                e.gpus,
                e.config.data,
                e.config.pipe,
                e.config.tensor
            )
        }
        Err(e) => alloc::format!(
            "{head}: at that batch {} has no plan ({e})",
            plan.method.label()
        ),
    })
}
