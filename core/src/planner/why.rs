//! Why a practice plan takes its time and memory, in words.

use alloc::vec::Vec;

use crate::hardware::Hardware;

/// Why a practice plan takes its time and memory, in words: the step's
/// parts and the heaviest stage's memory (the practice counterpart of the
/// rules' bindings).
#[must_use]
pub fn practice_why(e: &crate::Evaluation, hw: &Hardware) -> Vec<alloc::string::String> {
    use alloc::format;
    let mut v = Vec::new();
    let c = e.config;
    let Some(p) = e.step_parts else { return v };
    let gib = |b: crate::units::Bytes| b.0 / crate::units::GIB;
    let small = gib_part;
    let schedule = if c.method.layered() {
        format!(
            "layered accumulation, modular pipeline over {} stages",
            c.pipe
        )
    } else if c.pipe > 1 && c.virtual_stages > 1 {
        format!(
            "interleaved 1F1B, {} stages × {} virtual",
            c.pipe, c.virtual_stages
        )
    } else if c.pipe > 1 && c.pipeline_schedule == crate::cost::PipelineSchedule::DualPipe {
        format!(
            "DualPipe over {} stages (micro-batches from both ends, two stages per GPU)",
            c.pipe
        )
    } else if c.pipe > 1 && c.pipeline_schedule == crate::cost::PipelineSchedule::ZbV {
        format!(
            "zero-bubble ZB-V over {} GPUs (2 stages each, placed in a V; embedding and head on GPU 0)",
            c.pipe
        )
    } else if c.pipe > 1 && c.pipeline_schedule == crate::cost::PipelineSchedule::ZbH1 {
        format!(
            "zero-bubble ZB-H1 over {} stages (weight gradients fill the cool-down)",
            c.pipe
        )
    } else if c.pipe > 1 {
        format!("1F1B over {} stages", c.pipe)
    } else {
        alloc::string::String::from("no pipeline")
    };
    let plural = |n: f64, one: &str, many: &str| {
        let n = crate::math::round_sig(n, 3);
        format!("{n} {}", if n == 1.0 { one } else { many })
    };
    let mut step = format!(
        "step {:.2} s ({schedule}, {} of {}): GEMMs {:.2} s, element-wise {:.2} s, \
         bubble {:.2} s, tensor collectives {:.2} s, pipeline sends {:.2} s, exposed data-parallel \
         {:.2} s, optimizer {:.3} s",
        e.step.0,
        plural(f64::from(c.micro_batches), "micro-batch", "micro-batches"),
        plural(f64::from(c.micro_batch), "sequence", "sequences"),
        p.compute,
        p.elementwise,
        p.bubble,
        p.tensor,
        p.pipeline,
        p.data,
        p.optimizer
    );
    // The rest of the sum, where a plan has it: the experts' all-to-all
    // and the context ring exposed, the CPU's dispatch and copies.
    let rest = p.expert + p.context + p.launch + p.offload;
    if rest >= 0.005 {
        step.push_str(&format!(", all-to-all, ring and CPU {rest:.2} s"));
    }
    v.push(step);
    // Where the step goes, largest first, with what each class achieves.
    let mut classes = p.classes();
    classes.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    let parts: Vec<alloc::string::String> = classes
        .iter()
        .filter(|k| k.share >= 0.001)
        .map(|k| match (k.achieved, k.unit) {
            (Some(x), Some(unit)) => format!("{} {:.1} %, {x:.0} {unit}", k.class, 100.0 * k.share),
            _ => format!("{} {:.1} %", k.class, 100.0 * k.share),
        })
        .collect();
    v.push(format!("where the step goes: {}", parts.join("; ")));
    let h = e.stages.heaviest();
    // The stage with the head: the one holding logits.
    let head = e.stages.iter().find(|s| s.logits.get() > 0.0);
    let first = e.stages.iter().find(|s| s.stage == 0);
    if let (true, Some(s), Some(f)) = (c.pipe > 1 && c.embedding_layers > 0, head, first) {
        v.push(format!(
            "pipeline split with the embedding and the head counted as {} and {}: GPU 0 holds \
             {}, GPU {} {} and the logits (Megatron-Core's --account-for-embedding-in-pipeline-split \
             and --account-for-loss-in-pipeline-split)",
            plural(f64::from(c.embedding_layers), "layer", "layers"),
            c.head_layers,
            plural(f64::from(f.layers), "layer", "layers"),
            s.stage,
            s.layers
        ));
    } else if let (true, Some(s)) = (c.pipe > 1 && c.head_layers > 0, head) {
        v.push(format!(
            "pipeline split with the head counted as {}: GPU {} of the pipeline holds {} and \
             the logits (Megatron-Core's --decoder-last-pipeline-num-layers {})",
            plural(f64::from(c.head_layers), "layer", "layers"),
            s.stage,
            plural(f64::from(s.layers), "layer", "layers"),
            s.layers
        ));
    }
    v.push(format!(
        "heaviest stage (GPU {} of the pipeline, {} layers), as {} allocates it: {} of {:.0} GiB: weights {}, \
         gradients {}, optimizer {}, activations {} ({} in flight), working {}, logits {}, \
         reserve {}",
        h.stage,
        h.layers,
        e.knobs.framework.label(),
        // As the headline writes it (three figures), not "7.3" beside "7.29".
        crate::text::gib(h.total().0),
        gib(hw.gpu.memory),
        small(h.weights),
        small(h.gradients),
        small(h.optimizer),
        small(h.activations),
        if crate::math::floor(h.in_flight) == h.in_flight {
            plural(h.in_flight, "micro-batch", "micro-batches")
        } else {
            // Interleaved stages hold chunks of micro-batches: their
            // activations add up to a fraction of whole ones.
            format!(
                "{} micro-batches' worth, as virtual-stage chunks,",
                crate::math::round_sig(h.in_flight, 3)
            )
        },
        small(h.working),
        small(h.logits),
        small(h.reserve)
    ));
    v.push(format!(
        "{}{}{}, recomputation {}; {:.2} M tokens/s, {:.0} model Tflop/s per GPU",
        zero_words(&c, e.knobs.pipeline_gathers_step),
        if c.sequence_parallel {
            ", sequence parallel"
        } else {
            ""
        },
        if c.context > 1 {
            format!(
                ", context parallel over {} GPUs (ring exchange exposed {:.2} s)",
                c.context, p.context
            )
        } else {
            alloc::string::String::new()
        } + &if c.expert > 1 {
            format!(
                ", experts spread over {} GPUs (all-to-all exposed {:.2} s)",
                c.expert, p.expert
            )
        } else {
            alloc::string::String::new()
        },
        c.activation.name(),
        e.tokens_per_second / 1e6,
        e.tflops_per_gpu()
    ));
    v
}

/// Where a practice plan's figures are unvalidated, and by about how much
/// they may be off, in words for beside the number: FP8 GEMMs (no FP8 run
/// in the calibration set: they take BF16's fitted fraction of the FP8
/// peak), a mixture of experts (its small grouped GEMMs take the dense
/// fraction) and a GPU with no published run. With FP8 or experts, the
/// size is the nearest out-of-sample check's
/// ([`crate::calibration::OUT_OF_SAMPLE`]: DeepSeek-V3, FP8 and experts on
/// H800s); a dense BF16 plan on an unvalidated GPU is not sized by it.
/// `None` for a validated plan or under paper.
#[must_use]
pub fn caveat(
    e: &crate::Evaluation,
    model: &crate::model::ModelShape,
    hw: &Hardware,
) -> Option<alloc::string::String> {
    use alloc::format;
    use alloc::string::String;
    if e.assumptions != crate::cost::AssumptionSet::Practice {
        return None;
    }
    let mut why: Vec<String> = Vec::new();
    if e.knobs.compute.is_fp8() {
        use crate::cost::assumptions::Compute;
        why.push(String::from(match e.knobs.compute {
            Compute::Fp8Block if !crate::cost::assumptions::mx_native(&hw.gpu) => {
                "block-scaled FP8 GEMMs run at the curve fitted on DeepGEMM's H800 tables (no \
                 FP8 training run in the calibration set)"
            }
            Compute::Fp8Block | Compute::Mxfp8 => {
                "MXFP8 GEMMs run at 0.95 of the per-tensor FP8 ceiling one H100 measured \
                 (Transformer Engine's B300 kernel timings; no MXFP8 training run in the \
                 calibration set)"
            }
            _ => {
                "FP8 GEMMs run at the FP8 ceiling one H100 measured with per-tensor scales (no \
                 FP8 training run in the calibration set)"
            }
        }));
    }
    if model.experts.is_some() {
        why.push(String::from(
            "the experts' grouped GEMMs are timed by their shapes, but no \
             mixture-of-experts run was fitted",
        ));
    }
    if !crate::cost::assumptions::kernel_fit(&hw.gpu).validated {
        why.push(format!(
            "the {} takes the H100's kernel curves and sustained clock (no published run of \
             it)",
            hw.gpu.name
        ));
    }
    if why.is_empty() {
        return None;
    }
    // DeepSeek-V3's check speaks for FP8 and experts; a dense BF16 plan on
    // an unvalidated GPU gets no word of it.
    if !e.knobs.compute.is_fp8() && model.experts.is_none() {
        return Some(format!("Unvalidated: {}.", why.join("; ")));
    }
    let check = crate::calibration::DEEPSEEK_V3;
    Some(format!(
        "Unvalidated: {}. Likely optimistic: DeepSeek-V3's published layout (FP8, experts, \
         H800s) comes out {:.0} % under its published GPU-hours, and a searched plan can be \
         further off.",
        why.join("; "),
        -100.0 * check.error()
    ))
}

/// What a plan shards over its data-parallel replicas, in words: what
/// makes a ZeRO-3 / FSDP row another method than a Megatron-style one with
/// the same degrees (and nothing sharded with one replica).
fn zero_words(c: &crate::cost::Config, pipeline_gathers_step: bool) -> &'static str {
    use crate::cost::Zero;
    if c.data * c.context <= 1 {
        return "one replica: nothing to shard (ZeRO has no effect)";
    }
    match crate::cost::step::zero_run(c, pipeline_gathers_step) {
        Zero::None => "no ZeRO: every replica holds the whole training state",
        Zero::One => "ZeRO-1 (the distributed optimizer): optimizer states sharded",
        Zero::Two => "ZeRO-2: optimizer states and gradients sharded",
        Zero::Three => {
            "ZeRO-3 / FSDP: weights, gradients and optimizer states sharded, the weights \
             gathered for each micro-batch's forward and backward"
        }
        Zero::ThreePerStep => {
            "ZeRO-3: weights, gradients and optimizer states sharded, the weights gathered \
             once per step and held through its micro-batches (as much weight memory as \
             ZeRO-2, less traffic)"
        }
    }
}

/// What limits a practice plan's batch and GPUs, in words: the batch limit
/// with its source, the batch trained when the plan's degrees do not divide
/// the limit, and why a GPU budget is not used whole (`how`: how the user
/// sets another batch, in the words of the door asking; `fixed_data`: a
/// data-parallel degree the user fixed).
///
/// # Errors
///
/// The run's token budget cannot be read (as [`crate::search::practice::batch_limit`]).
#[must_use = "the lines say what limits the plan"]
pub fn practice_limits(
    m: &crate::model::ModelShape,
    c: &crate::search::Constraints,
    global_batch: Option<u64>,
    fixed_data: Option<u32>,
    a: &crate::cost::Assumptions,
    e: &crate::cost::Evaluation,
    how: &str,
) -> Result<Vec<alloc::string::String>, crate::Error> {
    use alloc::format;
    let seq = f64::from(m.seq_len);
    let mut out = Vec::new();
    let limit = match (global_batch, c.batch) {
        (Some(b), _) => {
            out.push(format!("batch {b} sequences: the global batch given"));
            b
        }
        (None, Some(b)) => {
            out.push(format!(
                "batch at most {b} sequences: the batch limit given"
            ));
            b
        }
        (None, None) => {
            let b = crate::search::practice::batch_limit(m, a)?;
            out.push(format!(
                "batch at most {b} sequences ({:.1} M tokens): today's batch for a run of \
                 this size, DeepSeek LLM's batch-size law B = 0.292 · C^0.3271 tokens \
                 (arXiv 2401.02954 sec. 3.1; the paper's critical batch, eq. 2, is {:.0}); \
                 {how}",
                b as f64 * seq / 1e6,
                m.critical_batch()
            ));
            b
        }
    };
    if let Some(t) = c.target_days {
        out.push(format!(
            "target {t} days of training: the fewest GPUs whose plan trains within it, in \
             {:.1} days (training time; checkpoints and interruptions add to the wall clock, \
             which the target does not bind)",
            e.time.days()
        ));
    }
    let cfg = &e.config;
    let trained = cfg.batch();
    let whole = limit / (u64::from(cfg.data) * u64::from(cfg.micro_batch)).max(1);
    let p = u64::from(cfg.pipe);
    let m = u64::from(cfg.micro_batches);
    if trained < limit && cfg.virtual_stages > 1 && m < whole && m % p == 0 {
        // The search's second count under the batch law: the most
        // micro-batches the stages divide, which interleave.
        out.push(format!(
            "batch {trained} sequences trained: {m} micro-batches, the most under {limit} \
             sequences that the {p} stages divide, so that the schedule interleaves"
        ));
    } else if trained < limit {
        out.push(format!(
            "batch {trained} sequences trained: the largest under {limit} that {} data-parallel \
             replica{} × micro-batch {} × a whole number of micro-batches divide",
            cfg.data,
            if cfg.data == 1 { "" } else { "s" },
            cfg.micro_batch
        ));
    }
    let budget = c.max_gpus.or(c.exact_gpus);
    if let Some(budget) = budget.filter(|&g| e.gpus < g) {
        let (p, b) = (u64::from(cfg.pipe), u64::from(cfg.micro_batch));
        let per_replica = p * u64::from(cfg.tensor) * u64::from(cfg.context);
        // The most replicas the batch keeps at one micro-batch per stage.
        let replicas = limit / (p * b).max(1);
        out.push(if let Some(d) = fixed_data {
            format!(
                "GPUs {} of the budget's {budget}: the data-parallel degree is fixed at {d}, \
                 and each replica takes {per_replica} GPUs",
                e.gpus
            )
        } else if 2 * u64::from(cfg.data) > replicas {
            // Without a pipeline, only the batch binds ("a pipeline of 1
            // stages needs at least 1 micro-batches" read badly).
            let (why, or) = if p > 1 {
                (
                    format!("a pipeline of {p} stages needs at least {p} micro-batches, so "),
                    ", or a shorter pipeline,",
                )
            } else {
                (alloc::string::String::new(), "")
            };
            format!(
                "GPUs {} of the budget's {budget}: {why}a batch of {limit} sequences keeps at \
                 most {replicas} replicas of {per_replica} GPU{} busy at micro-batch {b} (a \
                 larger batch{or} uses more)",
                e.gpus,
                if per_replica == 1 { "" } else { "s" }
            )
        } else {
            format!(
                "GPUs {} of the budget's {budget}: no plan on more GPUs is faster (more \
                 replicas add more communication and bubble than they save)",
                e.gpus
            )
        });
    }
    Ok(out)
}

/// A part of a stage's memory in GiB, as "Why this plan" writes it: one
/// decimal, or two significant figures below 1 GiB (a stage's 0.03 GiB of
/// checkpoints is not "0.0"; only nothing is).
#[must_use]
pub fn gib_part(b: crate::units::Bytes) -> alloc::string::String {
    let x = b.0 / crate::units::GIB;
    if x == 0.0 {
        alloc::string::String::from("0")
    } else if x >= 1.0 {
        alloc::format!("{x:.1}")
    } else {
        alloc::format!("{}", crate::math::round_sig(x, 2))
    }
}
