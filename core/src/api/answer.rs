//! The answer first: what `plan`, `evaluate` and `run` say to a person, in
//! the page's words — one sentence with the plan, a short table of the
//! plans per method, and why — on one screen. The CLI prints these unless
//! `--details` asks for the full listing; `--json` prints the reports.
//!
//! Every figure is read off the same report the JSON gives
//! ([`super::plan`], [`super::evaluate`], [`super::run`]): nothing here is
//! computed, only said.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::report::{EvaluationReport, PlanReport, StageReport};
use super::request::{EvaluateRequest, PlanRequest, RunRequest};
use super::{assumptions_of, shape, ApiError};
use crate::cost::framework::Framework;
use crate::cost::{AssumptionSet, Method};
use crate::model::ModelShape;
use crate::planner;
use crate::text::{big, capitalized, duration, gib, gpus, params, pct, seconds};

/// The last line of every answer: where the rest is.
const MORE: &str = "More: --details for every figure, --json for scripts.";

/// A network faster than the GPU's PCIe link, in words: it runs at the
/// link's rate ([`planner::pcie_capped`]).
fn network_line(hw: &crate::Hardware) -> Option<String> {
    planner::pcie_capped(hw).map(|gbps| {
        format!(
            "Network: {} runs at {gbps:.0} Gb/s per GPU here: {}.",
            hw.network.name(),
            planner::PCIE_SLOWER
        )
    })
}

/// `plan3d plan`'s answer: the headline sentence (method, DP × PP × TP,
/// GPUs, days, MFU, the heaviest stage's memory), the paper's proposal
/// beside it where it would be faster, the plan per method, and why.
///
/// # Errors
///
/// As [`super::plan`]; a search with no plan says why in the page's words
/// ("No plan for …: …").
pub fn plan_answer(r: &PlanRequest) -> Result<String, ApiError> {
    let m = shape(&r.model)?;
    let practice = assumptions_of(&r.practice)?.set == AssumptionSet::Practice;
    let (_, hw, plan, report) = super::plan_with(r).map_err(|e| no_plan(r, &m, &e))?;
    let e = &report.evaluation;
    let mut out = Vec::new();
    out.push(headline(
        &label_of(e, practice),
        &r.model.model,
        &m,
        e,
        practice,
    ));
    if let Some(c) = planner::caveat(&plan.evaluation, &m, &hw) {
        out.push(format!("Caveat: {c}"));
    }
    out.extend(network_line(&hw));
    if let (true, Some(goodput)) = (practice, report.goodput) {
        // The search's objective: the whole run's wall clock. Said where
        // interruptions take a tenth of it or more.
        if goodput < 0.9 {
            out.push(format!(
                "With interruptions at Llama 3's rate per GPU, the run takes {} wall-clock (goodput {}): the search plans the run that ends first, not the fastest training; `plan3d run` for its cost.",
                report
                    .wall_days
                    .map_or_else(|| "forever".to_string(), duration),
                pct(goodput)
            ));
        }
    }
    if r.practice.profile.is_some() {
        out.extend(profile_lines(
            &super::plan(r)?.evaluation,
            &r.hardware.gpu,
            "plan",
        ));
    }
    // Each method's plan under the same request: the table, and the
    // proposal's line under practice.
    let rows: Vec<(Method, Result<PlanReport, ApiError>)> = planner::METHODS
        .iter()
        .map(|&meth| {
            let mut q = r.clone();
            q.method = meth.name().to_string();
            (meth, super::plan(&q))
        })
        .collect();
    if practice && e.method != Method::Improved.name() {
        if let Some((_, Ok(p))) = rows.iter().find(|(m, _)| *m == Method::Improved) {
            if 1.0 - p.evaluation.days / e.days >= crate::planner::PROPOSAL_GAIN {
                out.push(format!(
                    "The paper's proposal, layered + modular, would take {} ({} faster); no framework ships it.",
                    duration(p.evaluation.days),
                    pct(1.0 - p.evaluation.days / e.days)
                ));
            }
        }
    }
    let fw = framework_of(e);
    // With no method asked for, a plan of a method the framework does not
    // ship is the answer only when none it ships has one: say so.
    if practice && r.method.trim().is_empty() {
        let ships = fw.shipped();
        if Method::parse(&e.method).is_ok_and(|meth| !ships.contains(&meth)) {
            if let Some((meth, Err(err))) = rows.iter().find(|(m, _)| ships.contains(m)) {
                out.push(format!(
                    "{} has no plan with {}: {}; this is the fastest plan of a method it does not ship.",
                    fw.label(),
                    planner::method_label_for(*meth, practice, false, fw),
                    closest(&err.0)
                ));
            }
        }
    }
    if let Some(line) = published(r, &m, e) {
        out.push(line);
    }
    out.push(String::new());
    // The layout column as wide as its widest cell ("DP 32 × PP 16 × TP 4,
    // EP 16 · ZeRO-3 per step" overflowed a fixed 37).
    let cells: Vec<Option<String>> = rows
        .iter()
        .map(|(_, p)| {
            p.as_ref().ok().map(|p| {
                let q = &p.evaluation;
                if practice && q.data * q.context_parallel > 1 {
                    format!("{} · {}", layout(q), zero_label(&q.zero))
                } else {
                    layout(q)
                }
            })
        })
        .collect();
    let w = cells
        .iter()
        .flatten()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(0)
        .max(37);
    out.push(format!(
        "{:<41} {:<w$} {:>11} {:>11} {:>5} {:>8}",
        if practice {
            "plan per method"
        } else {
            "the paper's rules, per method"
        },
        "DP × PP × TP",
        "micro-batch",
        "days",
        "MFU",
        "GiB/GPU"
    ));
    for ((meth, p), cell) in rows.iter().zip(&cells) {
        let name = planner::method_label_for(*meth, practice, false, fw);
        out.push(match p {
            Ok(p) => {
                let q = &p.evaluation;
                format!(
                    "{:<41} {:<w$} {:>11} {:>11} {:>5} {:>8}",
                    name,
                    cell.as_deref().unwrap_or_default(),
                    format!("{} × {}", q.micro_batch, q.micro_batches),
                    days_cell(q.days),
                    pct(q.mfu),
                    gib(q.memory.peak_bytes)
                )
            }
            Err(err) => format!("{name:<41} no plan: {}", first_clause(&err.0)),
        });
    }
    out.push(String::new());
    if !report.binding.is_empty() {
        out.push("Why this plan:".into());
        out.extend(report.binding.iter().map(|b| format!("  - {b}")));
    }
    if practice {
        out.push(format!("Settings: {}.", settings(e)));
    }
    out.push(MORE.into());
    Ok(out.join("\n"))
}

/// `plan3d evaluate`'s answer: whether the configuration fits and what
/// dominates its memory, its step, MFU and days, and where the step goes.
///
/// # Errors
///
/// As [`super::evaluate`].
pub fn evaluate_answer(r: &EvaluateRequest) -> Result<String, ApiError> {
    let m = shape(&r.model)?;
    let practice = assumptions_of(&r.practice)?.set == AssumptionSet::Practice;
    let e = super::evaluate(r)?;
    let mut out = Vec::new();
    let label = capitalized(&label_of(&e, practice));
    let heaviest = heaviest(&e);
    let fit = if e.fits {
        format!(
            "fits: the heaviest stage needs {} of {} GiB ({} GiB free)",
            gib(e.memory.peak_bytes),
            gib(e.gpu_memory_bytes),
            gib(e.gpu_memory_bytes - e.memory.peak_bytes)
        )
    } else {
        format!(
            "does not fit: the heaviest stage needs {} of {} GiB ({} GiB over)",
            gib(e.memory.peak_bytes),
            gib(e.gpu_memory_bytes),
            gib(e.memory.peak_bytes - e.gpu_memory_bytes)
        )
    };
    out.push(format!(
        "{label} on {} ({}) {fit}.",
        gpus(e.gpus),
        layout(&e)
    ));
    out.extend(network_line(&super::hardware_of(&r.hardware)?));
    if !practice {
        let mem = &e.memory;
        out.push(format!(
            "Memory per GPU (the paper's C.3): state {}, checkpoints {}, buffers {}, activations {} GiB; {} GiB offloadable, {} GiB not.",
            gib(mem.state),
            gib(mem.checkpoints),
            gib(mem.buffers),
            gib(mem.activations),
            gib(mem.offloadable),
            gib(mem.non_offloadable)
        ));
    } else if let Some(s) = heaviest {
        let framework = crate::cost::framework::Framework::parse(&e.framework)
            .map(|f| format!(" as {} allocates it", f.label()))
            .unwrap_or_default();
        out.push(format!(
            "Memory of stage {}{framework}: {}.",
            s.stage,
            stage_parts(s)
        ));
        if !e.expandable_segments && !e.fits && s.fragmentation > 0.0 && s.logits > 0.0 {
            let without = s.total - s.fragmentation <= e.gpu_memory_bytes;
            out.push(format!(
                "The reserve keeps {} GiB for PyTorch's default caching allocator: once a freed \
                 fp32 logits block is split for other tensors, the next needs a fresh segment{}",
                gib(s.fragmentation),
                if without {
                    ". With PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True it would fit \
                     (--expandable-segments)."
                } else {
                    "."
                }
            ));
        }
    }
    out.push(format!(
        "Step {}, {} MFU ({} Tflop/s per GPU), {} tokens/s: {} for {} tokens of {}.",
        seconds(e.step_seconds),
        pct(e.mfu),
        crate::math::round_sig(e.tflops_per_gpu, 3),
        big(e.tokens_per_second),
        duration(e.days),
        big(e.tokens),
        model_name(&r.model.model, &m)
    ));
    if !e.kernels.is_empty() {
        out.push(String::new());
        out.push("Where the step goes:".into());
        // The classes that take a visible share of the step.
        for k in e.kernels.iter().filter(|k| k.share >= 0.005) {
            let rate = match (k.achieved, &k.unit) {
                (Some(x), Some(u)) => format!(", {} {u}", crate::math::round_sig(x, 3)),
                _ => String::new(),
            };
            out.push(format!(
                "  {:<28} {:>9} {:>5}{rate}",
                k.class,
                seconds(k.seconds),
                pct(k.share)
            ));
        }
    }
    out.extend(profile_lines(&e, &r.hardware.gpu, "step"));
    if practice {
        out.push(format!("Settings: {}.", settings(&e)));
    }
    out.push(MORE.into());
    Ok(out.join("\n"))
}

/// What a calibration profile set and what the preset's curves give
/// instead (`what`: the `plan` or the `step`), as the answer's lines;
/// none without a profile.
fn profile_lines(e: &EvaluationReport, gpu: &str, what: &str) -> Vec<String> {
    let (Some(p), Some(preset)) = (&e.profile, &e.preset) else {
        return Vec::new();
    };
    let pair = |x: [f64; 2]| format!("{} ({})", pct(x[0]), pct(x[1]));
    let mut lines = alloc::vec![
        String::new(),
        format!("Calibrated on {} (the {gpu} preset's in brackets): BF16 GEMMs at {} of peak, FP8 {}, attention forward {}, backward {}, memory-bound kernels {} of the bandwidth, NVLink collectives {}, network {}.",
            p.device,
            pair(p.ceiling_bf16),
            pair(p.ceiling_fp8),
            pair(p.attention_forward),
            pair(p.attention_backward),
            pair(p.memory),
            pair(p.bus_efficiency),
            pair(p.network_efficiency),
        ),
    ];
    let change = e.step_seconds / preset.step_seconds - 1.0;
    lines.push(if what == "plan" {
        format!(
            "With the preset's curves: {}, {} a step, {} Tflop/s per GPU (this plan's step {}{}).",
            preset.layout,
            seconds(preset.step_seconds),
            crate::math::round_sig(preset.tflops_per_gpu, 3),
            if change >= 0.0 { "+" } else { "−" },
            pct(change.abs())
        )
    } else {
        format!(
            "With the preset's curves the step is {}, {} Tflop/s per GPU (calibrated: {}{}).",
            seconds(preset.step_seconds),
            crate::math::round_sig(preset.tflops_per_gpu, 3),
            if change >= 0.0 { "+" } else { "−" },
            pct(change.abs())
        )
    });
    lines
}

/// `plan3d run`'s answer: the run's days, GPU-hours, cost, energy and
/// goodput, then the plan as `plan` says it.
///
/// # Errors
///
/// As [`super::run`].
pub fn run_answer(r: &RunRequest) -> Result<String, ApiError> {
    let m = shape(&r.plan.model)?;
    let rep = super::run(r).map_err(|e| no_plan(&r.plan, &m, &e))?;
    let e = &rep.plan.evaluation;
    let practice = e.assumptions == "practice";
    let mut out = Vec::new();
    out.push(format!(
        "The run takes {} wall-clock ({} of training, goodput {}): {} GPU-hours, ${} at ${}/GPU-hour, {} of energy.",
        duration(rep.wall_days),
        duration(rep.ideal_days),
        pct(rep.goodput),
        big(rep.gpu_hours),
        big(rep.cost),
        crate::math::round_sig(rep.price_per_gpu_hour, 3),
        crate::text::energy(rep.energy_mwh)
    ));
    out.push(headline(
        &label_of(e, practice),
        &r.plan.model.model,
        &m,
        e,
        practice,
    ));
    if rep.phases.len() > 1 {
        out.push(String::new());
        out.push("Batch phases:".into());
        for p in &rep.phases {
            out.push(format!(
                "  from {} tokens: batch {} tokens, {} per step, {}",
                big(p.start_tokens),
                big(p.batch_tokens),
                seconds(p.step_seconds),
                duration(p.days)
            ));
        }
    }
    out.push(format!(
        "Interruptions: {} expected (one every {} h of the cluster); a checkpoint every {} steps.",
        crate::math::round_sig(rep.expected_interruptions, 3),
        crate::math::round_sig(rep.mtbi_hours, 3),
        crate::math::round_sig(rep.checkpoint_interval_steps, 3)
    ));
    for n in &rep.notes {
        out.push(format!("Note: {n}"));
    }
    out.push(MORE.into());
    Ok(out.join("\n"))
}

/// A preset whose run published its batch, planned at another batch with
/// none given: the fastest shipped plan at the published batch, as the
/// page's "Why this plan" says it (`planner::published_batch_plan`).
fn published(r: &PlanRequest, m: &ModelShape, e: &EvaluationReport) -> Option<String> {
    let name = r.model.model.as_deref()?.trim().to_ascii_lowercase();
    if e.assumptions != "practice"
        || r.constraints.batch.is_some()
        || r.practice.global_batch.is_some()
    {
        return None;
    }
    let p = crate::calibration::published_batch_apart(&name, e.batch)?;
    let mut q = r.clone();
    q.practice.global_batch = Some(p.sequences);
    q.method = String::new();
    let tokens = |b: u64| b as f64 * f64::from(m.seq_len) / 1e6;
    let head = format!(
        "This plan's batch, {} sequences ({:.1} M tokens), is today's batch law's; {} trained at {} ({:.1} M tokens; {})",
        e.batch,
        tokens(e.batch),
        p.who,
        p.sequences,
        tokens(p.sequences),
        p.source
    );
    Some(match super::plan(&q) {
        Ok(at) => {
            let a = &at.evaluation;
            format!(
                "{head}: at that batch, {} on {} ({}) in {}, at {} MFU.",
                label_of(a, true),
                gpus(a.gpus),
                layout(a),
                duration(a.days),
                pct(a.mfu)
            )
        }
        Err(err) => format!("{head}: at that batch, no plan ({}).", first_clause(&err.0)),
    })
}

/// The page's headline sentence for a plan's evaluation.
fn headline(
    label: &str,
    name: &Option<String>,
    m: &ModelShape,
    e: &EvaluationReport,
    practice: bool,
) -> String {
    if practice {
        format!(
            "{} trains {} on {} tokens with {} ({}) in {} of training, at {} MFU: {} per step, {} tokens/s, heaviest stage {} of {} GiB.",
            capitalized(label),
            model_name(name, m),
            big(e.tokens),
            gpus(e.gpus),
            layout(e),
            duration(e.days),
            pct(e.mfu),
            seconds(e.step_seconds),
            big(e.tokens_per_second),
            gib(e.memory.peak_bytes),
            gib(e.gpu_memory_bytes),
        )
    } else {
        format!(
            "{} trains {} on {} ({}) in {}, at {} MFU (the paper's model).",
            capitalized(label),
            model_name(name, m),
            gpus(e.gpus),
            layout(e),
            duration(e.days),
            pct(e.mfu)
        )
    }
}

/// A "no plan" in the page's words: "No plan for 405.9 B (…): why".
fn no_plan(r: &PlanRequest, m: &ModelShape, e: &ApiError) -> ApiError {
    if e.0.starts_with("no plan") || e.0.starts_with("no configuration") {
        let with = match r.method.trim() {
            "" => String::new(),
            name => Method::parse(name)
                .map(|meth| format!(" with {}", meth.label()))
                .unwrap_or_default(),
        };
        let why = e.0.strip_prefix("no plan: ").unwrap_or(&e.0);
        ApiError(format!(
            "No plan for {}{with}: {why}",
            model_name(&r.model.model, m)
        ))
    } else {
        ApiError(e.0.clone())
    }
}

/// The model as a person names it: the preset's name and its size, or the
/// size alone.
fn model_name(name: &Option<String>, m: &ModelShape) -> String {
    match name.as_deref().map(str::trim) {
        Some(n) if !n.is_empty() => format!("{n} ({} parameters)", params(m.params_exact())),
        _ => format!("a {}-parameter model", params(m.params_exact())),
    }
}

/// The method's label for a report's method name.
fn label_of(e: &EvaluationReport, practice: bool) -> String {
    Method::parse(&e.method).map_or_else(
        |_| e.method.clone(),
        |meth| planner::method_label_for(meth, practice, false, framework_of(e)).to_string(),
    )
}

/// The framework a report was counted with (the default when unnamed).
fn framework_of(e: &EvaluationReport) -> Framework {
    Framework::parse(&e.framework).unwrap_or_default()
}

/// DP × PP × TP, with the context and expert degrees where used.
fn layout(e: &EvaluationReport) -> String {
    let mut s = format!("DP {} × PP {} × TP {}", e.data, e.pipe, e.tensor);
    if e.context_parallel > 1 {
        s.push_str(&format!(" × CP {}", e.context_parallel));
    }
    if e.expert_parallel > 1 {
        s.push_str(&format!(", EP {}", e.expert_parallel));
    }
    s
}

/// A report's ZeRO stage, short, as the page's table says it.
fn zero_label(name: &str) -> &'static str {
    crate::cost::Zero::parse(name).map_or("", crate::cost::Zero::label)
}

/// Days for a table cell: years past three years, as the headline says.
fn days_cell(d: f64) -> String {
    duration(d)
}

/// The practice knobs a plan runs with, in words.
fn settings(e: &EvaluationReport) -> String {
    let zero = match e.zero.as_str() {
        _ if e.data * e.context_parallel <= 1 => {
            "one replica (nothing for ZeRO to shard)".to_string()
        }
        "0" => "no ZeRO".to_string(),
        "1" => "ZeRO-1 (distributed optimizer)".to_string(),
        "3" => "ZeRO-3 (weights gathered per micro-batch)".to_string(),
        "3-step" => "ZeRO-3 (weights gathered once per step)".to_string(),
        z => format!("ZeRO-{z}"),
    };
    let recompute = match e.recompute.as_str() {
        "none" => "no recomputation".to_string(),
        "selective" if !e.recompute_modules.is_empty() => format!(
            "selective recomputation ({})",
            e.recompute_modules.replace(',', ", ")
        ),
        "full" if e.recompute_layers > 0 => format!(
            "full recomputation of {} layers a chunk",
            e.recompute_layers
        ),
        r => format!("{r} recomputation"),
    };
    // What leaves the GPU between a layer's forward and backward passes.
    let modules = e.offload_modules.replace(',', ", ");
    let recompute = match (e.offload_layers, modules.as_str()) {
        (0, "") => recompute,
        (0, m) => format!("{recompute}, modules offloaded to CPU memory ({m})"),
        (n, "") => format!("{recompute}, {n} layers a chunk offloaded to CPU memory"),
        (n, m) => format!(
            "{recompute}, {n} layers a chunk and the others' modules offloaded to CPU memory ({m})"
        ),
    };
    let mut s = format!(
        "micro-batch {} × {} per step (batch {} sequences), {zero}, {recompute}",
        e.micro_batch, e.micro_batches, e.batch
    );
    if e.tensor > 1 {
        s.push_str(if e.sequence_parallel {
            ", sequence parallel"
        } else {
            ", no sequence parallelism"
        });
    }
    if e.pipe > 1 {
        s.push_str(&match (e.pipeline_schedule.as_str(), e.virtual_stages) {
            ("1f1b", v) if v > 1 && e.microbatch_group != e.pipe => format!(
                ", interleaved 1F1B with {v} virtual stages, micro-batches in groups of {}",
                e.microbatch_group
            ),
            ("1f1b", v) if v > 1 => format!(", interleaved 1F1B with {v} virtual stages"),
            (sched, _) => format!(", {} schedule", sched.to_ascii_uppercase()),
        });
        if e.embedding_layers > 0 {
            s.push_str(&format!(
                ", the embedding and the loss as {} and {} layers of the split",
                e.embedding_layers, e.head_layers
            ));
        }
    }
    s.push_str(&format!(", {} GEMMs", e.precision.to_ascii_uppercase()));
    if e.assumptions == "practice" {
        let kernel = crate::cost::kernels::AttentionKernel::ALL
            .into_iter()
            .find(|k| k.name() == e.attention);
        s.push_str(", ");
        s.push_str(kernel.map_or("attention scores materialized", |k| k.label()));
        if e.compile {
            s.push_str(", compiled");
        }
    }
    s
}

/// The heaviest pipeline stage's memory.
fn heaviest(e: &EvaluationReport) -> Option<&StageReport> {
    e.memory
        .stages
        .iter()
        .max_by(|a, b| a.total.total_cmp(&b.total))
}

/// A stage's memory by kind, largest first, in GiB.
fn stage_parts(s: &StageReport) -> String {
    let mut parts = [
        ("activations", s.activations),
        ("weights", s.weights),
        ("gradients", s.gradients),
        ("optimizer", s.optimizer),
        ("working", s.working),
        ("logits", s.logits),
        ("reserve", s.reserve),
    ];
    parts.sort_by(|a, b| b.1.total_cmp(&a.1));
    parts
        .iter()
        .filter(|(_, b)| *b > 0.0)
        .map(|(n, b)| format!("{n} {}", gib(*b)))
        .collect::<Vec<_>>()
        .join(", ")
        + &format!(
            " GiB ({} micro-batch{} in flight)",
            // An interleaved stage holds fractions of micro-batches (its
            // virtual stages' shares): two decimals, not 8.583333333333334.
            if s.in_flight == crate::math::floor(s.in_flight) {
                format!("{:.0}", s.in_flight)
            } else {
                format!("{:.2}", s.in_flight)
            },
            if s.in_flight == 1.0 { "" } else { "es" }
        )
}

/// An error's first clause, for a table cell.
/// What stops the closest configuration of a search with no plan ("memory:
/// … needs 138 GiB …"), else its first clause.
fn closest(s: &str) -> &str {
    s.split_once("Closest: ").map_or_else(
        || first_clause(s),
        |(_, c)| c.split("; with ").next().unwrap_or(c),
    )
}

fn first_clause(s: &str) -> &str {
    let s = s.strip_prefix("no plan: ").unwrap_or(s);
    let end = [": ", ". ", " ("]
        .iter()
        .filter_map(|p| s.find(p))
        .min()
        .unwrap_or(s.len());
    &s[..end]
}
