//! Everything the planner page shows, computed from its [`Inputs`]: the
//! rules' plan per method, the exhaustive optimum, network needs, the
//! scaling sweep and the schedules. The page only draws these.

use alloc::vec::Vec;

use crate::cost::{AssumptionSet, Assumptions, Method, TransferKind};
use crate::error::Error;
use crate::hardware::{Hardware, Link};
use crate::model::ModelShape;
use crate::schedule::{self, Durations, MemorySizes, Schedule, ScheduleKind, ScheduleSpec};
use crate::search::{self, Constraints, Plan, SearchResult, SweepRow};
use crate::state::{Comparison, Inputs, Notice};
use crate::units::BytesPerSec;

/// The methods compared side by side.
pub const METHODS: [Method; 3] = [Method::Baseline, Method::Partitioned, Method::Improved];

/// A transfer's bandwidth need against what its link offers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Need {
    /// What moves.
    pub kind: TransferKind,
    /// The link.
    pub link: Link,
    /// The equation of its intensity.
    pub equation: &'static str,
    /// Bandwidth needed to keep the GPU busy: peak / intensity.
    pub required: BytesPerSec,
    /// The link's bandwidth: peak / threshold.
    pub available: BytesPerSec,
    /// Overlapped with computation?
    pub overlapped: bool,
}

/// The page's numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Outputs {
    /// The model.
    pub model: ModelShape,
    /// The hardware.
    pub hardware: Hardware,
    /// The constraints.
    pub constraints: Constraints,
    /// The rules' plan of each method of [`METHODS`] (under practice, the
    /// practice search's best for it).
    pub plans: Vec<(Method, Result<Plan, Error>)>,
    /// Configurations the practice searches evaluated (0 under paper).
    pub evaluated: u64,
}

impl Outputs {
    /// The plan of the method the user selected.
    #[must_use]
    pub fn selected(&self, method: Method) -> Option<&Plan> {
        self.plans
            .iter()
            .find(|(m, _)| *m == method)
            .and_then(|(_, p)| p.as_ref().ok())
    }

    /// The rules' plan to hold against the exhaustive optimum: the one of
    /// the optimum's method when the rules cover it, else the fastest.
    #[must_use]
    pub fn rules_against(&self, optimum: &SearchResult) -> Option<&Plan> {
        self.selected(optimum.best.evaluation.config.method)
            .or_else(|| {
                self.plans
                    .iter()
                    .filter_map(|(_, p)| p.as_ref().ok())
                    .min_by(|a, b| a.evaluation.time.0.total_cmp(&b.evaluation.time.0))
            })
    }
}

/// The constraints the inputs set.
#[must_use]
pub fn constraints(inputs: &Inputs) -> Constraints {
    Constraints {
        max_gpus: inputs.max_gpus,
        exact_gpus: inputs.cluster,
        target_days: inputs.target_days,
        batch: inputs.batch,
        activation: inputs.activation,
        tensor: inputs.layout.tensor,
        ..Constraints::default()
    }
}

/// What the plans table says of its rows under practice.
pub const PRACTICE_NOTE: &str = "Each row is the practice search's best for its method over every \
     degree, virtual stages, micro-batch, sequence parallelism, recomputation and ZeRO stage (see \
     Validation).";

/// The dimensions the page fixes under practice: the recomputation when
/// `act` names one (`paper` leaves it to the search).
fn practice_space(inputs: &Inputs) -> search::Space {
    search::Space {
        recompute: match inputs.activation {
            crate::memory::ActivationModel::Paper => None,
            a => Some(a),
        },
        zero_bubble: inputs.zero_bubble,
        context: inputs.context,
        data: inputs.layout.data,
        pipe: inputs.layout.pipe,
        virtual_stages: inputs.layout.virtual_stages,
        micro_batch: inputs.layout.micro_batch,
        zero: inputs.layout.zero,
        pipeline_schedule: inputs.layout.schedule,
        // A dense model has no experts: `ep` is ignored there (said by
        // [`corrections`]).
        expert: inputs
            .expert
            .filter(|_| inputs.model.shape().is_ok_and(|m| m.experts.is_some())),
        ..search::Space::default()
    }
}

/// Under practice a method's row is the exhaustive practice search's best
/// for that method ([`search::practice`]), not the paper's rules.
fn practice_plan(
    inputs: &Inputs,
    model: &ModelShape,
    hw: &Hardware,
    c: &Constraints,
    method: Method,
) -> Result<SearchResult, Error> {
    let space = search::Space {
        method: Some(method),
        ..practice_space(inputs)
    };
    search::practice(model, hw, inputs.parallelism, c, &space, &inputs.knobs())
}

/// Why `method` has no practice plan for the page's inputs, with the
/// nearest change that has one ([`search::explain`]: the sentence the CLI
/// and the JavaScript API give). `None` under paper, or where the method
/// has a plan. It searches again a few times: call it for the headline
/// only, when it has no plan.
#[must_use]
pub fn explain(inputs: &Inputs, out: &Outputs, method: Method) -> Option<Error> {
    if !inputs.practice() {
        return None;
    }
    let (_, plan) = out.plans.iter().find(|(m, _)| *m == method)?;
    match plan {
        Err(Error::NoPlan { why: None, .. }) => {
            let space = search::Space {
                method: Some(method),
                ..practice_space(inputs)
            };
            Some(search::explain(
                &out.model,
                &out.hardware,
                inputs.parallelism,
                &out.constraints,
                &space,
                &inputs.knobs(),
                &[method],
            ))
        }
        _ => None,
    }
}

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
    v.push(format!(
        "step {:.2} s ({schedule}, {} micro-batches of {}): GEMMs {:.2} s, element-wise {:.2} s, \
         bubble {:.2} s, tensor collectives {:.2} s, pipeline sends {:.2} s, exposed data-parallel \
         {:.2} s, optimizer {:.3} s",
        e.step.0,
        c.micro_batches,
        c.micro_batch,
        p.compute,
        p.elementwise,
        p.bubble,
        p.tensor,
        p.pipeline,
        p.data,
        p.optimizer
    ));
    let h = e.stages.heaviest();
    v.push(format!(
        "heaviest stage (GPU {} of the pipeline, {} layers): {:.1} of {:.0} GiB: weights {:.1}, \
         gradients {:.1}, optimizer {:.1}, activations {:.1} ({} micro-batches in flight), \
         working {:.1}, logits {:.1}, reserve {:.1}",
        h.stage,
        h.layers,
        gib(h.total()),
        gib(hw.gpu.memory),
        gib(h.weights),
        gib(h.gradients),
        gib(h.optimizer),
        gib(h.activations),
        crate::math::round_sig(h.in_flight, 3),
        gib(h.working),
        gib(h.logits),
        gib(h.reserve)
    ));
    v.push(format!(
        "ZeRO-{}{}{}, recomputation {}; {:.2} M tokens/s, {:.0} model Tflop/s per GPU",
        crate::cost::step::zero_of(&c).stage(),
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
    if !crate::cost::assumptions::kernel_fit(&hw.gpu).validated {
        v.push(format!(
            "the {} has no published run in the calibration set: its kernel efficiency is the \
             H100's, unvalidated",
            hw.gpu.name
        ));
    }
    v
}

/// The rules' plan for every method: cheap enough for every input change.
///
/// # Errors
///
/// An invalid model or hardware (a plan that does not exist is an `Err`
/// inside [`Outputs::plans`], not an error here).
pub fn outputs(inputs: &Inputs) -> Result<Outputs, Error> {
    let model = inputs.model.shape()?;
    let hardware = inputs.hardware();
    hardware.validate()?;
    let c = constraints(inputs);
    let mut evaluated = 0;
    let plans = METHODS
        .iter()
        .map(|&m| {
            let plan = if inputs.practice() {
                practice_plan(inputs, &model, &hardware, &c, m).map(|r| {
                    evaluated += r.evaluated;
                    r.best
                })
            } else {
                search::rules(&model, &hardware, m, inputs.parallelism, &c)
            };
            (m, plan)
        })
        .collect();
    Ok(Outputs {
        model,
        hardware,
        constraints: c,
        plans,
        evaluated,
    })
}

/// The practice optimum from the plans the page has already searched: the
/// best of the methods' rows, which is what [`optimum`] searches again
/// ([`search::practice_methods`] over [`METHODS`] with the same space), at
/// no cost. `None` under paper, whose optimum is a search of its own.
///
/// # Errors
///
/// When no method has a plan: the last method's error, as
/// [`search::practice_methods`].
#[must_use]
pub fn practice_optimum(inputs: &Inputs, out: &Outputs) -> Option<Result<SearchResult, Error>> {
    if !inputs.practice() {
        return None;
    }
    let c = &out.constraints;
    let mut best: Option<&Plan> = None;
    let mut err = Error::NoPlan {
        reason: search::NO_PLAN_CONSTRAINTS,
        why: None,
    };
    for (_, p) in &out.plans {
        match p {
            Ok(p) => {
                if best.is_none_or(|b| search::practice::better(&p.evaluation, &b.evaluation, c)) {
                    best = Some(p);
                }
            }
            Err(e) => err = *e,
        }
    }
    Some(best.map_or(Err(err), |b| {
        Ok(SearchResult {
            best: *b,
            evaluated: out.evaluated,
        })
    }))
}

/// The whole run of `plan` for the page's inputs: its token budget, batch
/// ramp and price ([`crate::run::run`] with the other settings at their
/// defaults; each ramp phase runs the plan's degrees at its batch).
///
/// # Errors
///
/// As [`crate::run::run`].
pub fn whole_run(inputs: &Inputs, out: &Outputs, plan: &Plan) -> Result<crate::run::Run, Error> {
    crate::run::run(
        &out.model,
        &out.hardware,
        &plan.evaluation.config,
        &inputs.knobs(),
        &crate::run::RunSettings {
            price_per_gpu_hour: inputs.price,
            ramp: inputs.ramp.iter().flatten().copied().collect(),
            ..crate::run::RunSettings::default()
        },
    )
}

/// Corrections the plans make to the inputs, in words: a batch limit
/// above the model's critical batch is the critical batch (past it, more
/// sequences per step do not cut the step count, eq. 2, so they only add
/// work).
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
                     step only add work",
            used: alloc::format!("the critical batch, {} sequences", crate::math::floor(bc)),
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
        ] {
            if set {
                v.push(Notice {
                    key: key.into(),
                    value: inputs.field_text(key),
                    reason: "a layout is checked by the practice search (assume=practice); the \
                             paper's rules choose it",
                    used: "the rules' choice".into(),
                });
            }
        }
    }
    if let Some(e) = inputs.expert.filter(|_| out.model.experts.is_none()) {
        v.push(Notice {
            key: "ep".into(),
            value: alloc::format!("{e}"),
            reason: "a dense model has no experts to spread",
            used: "no expert parallelism".into(),
        });
    }
    v
}

/// The exhaustive optimum over every method. It takes from well under a
/// millisecond (X160 on InfiniBand: 67 evaluations, 0.07 ms) to ~10 ms
/// natively (small models on 25 Gb/s Ethernet: ~30 k evaluations), so the
/// page caches it by [`optimum_key`] and waits for a slider to pause once
/// a search has been slow.
///
/// # Errors
///
/// An invalid model or hardware, or no valid configuration.
pub fn optimum(inputs: &Inputs) -> Result<SearchResult, Error> {
    let model = inputs.model.shape()?;
    let hardware = inputs.hardware();
    if inputs.practice() {
        return search::practice_methods(
            &model,
            &hardware,
            inputs.parallelism,
            &constraints(inputs),
            &practice_space(inputs),
            &inputs.knobs(),
            &METHODS,
        );
    }
    search::exhaustive(
        &model,
        &hardware,
        None,
        inputs.parallelism,
        &constraints(inputs),
    )
}

/// Where a rules' plan stands against the exhaustive optimum, in the
/// search's objective: training time when it looks for the fastest plan,
/// the GPU count when a target time is set (the fewest GPUs that meet it;
/// there the rules' plan may well be faster, with more GPUs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Standing {
    /// The rules reach the optimum's objective value.
    Optimal,
    /// The rules' plan trains this many times as long (> 1).
    Slower(f64),
    /// The rules' plan needs this many times the GPUs (> 1) to meet the
    /// target time.
    MoreGpus(f64),
    /// The optimum meets the target time; the rules' plan does not.
    MissesTarget,
}

impl Standing {
    /// How much more the plan costs in the search's objective, as a
    /// fraction: 0.13 for 13 % slower, or 13 % more GPUs.
    #[must_use]
    pub fn excess(self) -> f64 {
        match self {
            Self::Slower(x) | Self::MoreGpus(x) => x - 1.0,
            Self::Optimal | Self::MissesTarget => 0.0,
        }
    }

    /// How much the better plan saves, as a fraction of this one's cost:
    /// 1 − 1/ratio (0.115 for a plan 13 % slower).
    #[must_use]
    pub fn saving(self) -> f64 {
        match self {
            Self::Slower(x) | Self::MoreGpus(x) => 1.0 - 1.0 / x,
            Self::Optimal | Self::MissesTarget => 0.0,
        }
    }
}

/// Where `plan` stands against `optimum` under `constraints`.
#[must_use]
pub fn standing(plan: &Plan, optimum: &SearchResult, constraints: &Constraints) -> Standing {
    const TIE: f64 = 1e-9;
    let opt = optimum.best.evaluation;
    // With a target the search minimises GPUs among plans that meet it;
    // when none does, it returns the fastest, as without one.
    let target = constraints
        .target_days
        .filter(|&d| opt.time.days() <= d * (1.0 + TIE));
    if let Some(days) = target {
        if plan.evaluation.time.days() > days * (1.0 + TIE) {
            return Standing::MissesTarget;
        }
        let r = plan.evaluation.gpus as f64 / opt.gpus as f64;
        if r > 1.0 + TIE {
            return Standing::MoreGpus(r);
        }
    } else {
        let r = slowdown(plan, optimum);
        if r > 1.0 + TIE {
            return Standing::Slower(r);
        }
    }
    Standing::Optimal
}

/// How the paper's rules compare with the plan shown in detail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RulesVersus {
    /// The shown plan is the rules' own, and the search confirms it.
    Same,
    /// The shown plan is the rules' own; the search has not answered yet.
    Pending,
    /// The shown plan is the rules' own; the search found no plan under
    /// the constraints (an exact cluster the rules can only take as a cap).
    SearchFailed(Error),
    /// The shown plan is the rules' own; the best plan found is of another
    /// method, and this plan stands so against it.
    OtherMethod(Method, Standing),
    /// The shown plan is the search's; the rules' plan stands behind it.
    Behind(Standing),
    /// The rules have no plan for this method; the search found one.
    NoPlan(Error),
}

/// The plan the page shows in detail for the selected method: the best one
/// found (headline, "why", network, schedule).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown {
    /// The plan.
    pub plan: Plan,
    /// Found by the exhaustive search (else it is the rules' plan).
    pub searched: bool,
    /// The rules' plan against it.
    pub rules: RulesVersus,
}

/// The best plan found for `method`: the exhaustive optimum when it is of
/// this method and the rules do not reach it, else the rules' plan (also
/// while the search has not answered). `None` when neither has a plan.
#[must_use]
pub fn shown(
    out: &Outputs,
    method: Method,
    optimum: Option<&Result<SearchResult, Error>>,
) -> Option<Shown> {
    let rules = out
        .plans
        .iter()
        .find(|(m, _)| *m == method)
        .map(|(_, p)| *p)?;
    let best = optimum
        .and_then(|r| r.as_ref().ok())
        .filter(|r| r.best.method == method);
    let own = |plan: Plan, rules: RulesVersus| Shown {
        plan,
        searched: false,
        rules,
    };
    match (best, rules) {
        (Some(r), Ok(p)) => match standing(&p, r, &out.constraints) {
            Standing::Optimal => Some(own(p, RulesVersus::Same)),
            s => Some(Shown {
                plan: r.best,
                searched: true,
                rules: RulesVersus::Behind(s),
            }),
        },
        (Some(r), Err(e)) => Some(Shown {
            plan: r.best,
            searched: true,
            rules: RulesVersus::NoPlan(e),
        }),
        (None, Ok(p)) => Some(own(
            p,
            match optimum {
                Some(Ok(r)) => {
                    RulesVersus::OtherMethod(r.best.method, standing(&p, r, &out.constraints))
                }
                Some(Err(e)) => RulesVersus::SearchFailed(*e),
                None => RulesVersus::Pending,
            },
        )),
        (None, Err(_)) => None,
    }
}

/// What to change when there is no plan, in words, for `model`.
#[must_use]
pub fn advice(err: &Error, inputs: &Inputs, model: &ModelShape) -> alloc::string::String {
    use alloc::string::String;
    match err {
        Error::NoPlan { reason, .. } if *reason == search::NO_PLAN_MEMORY => {
            String::from(if inputs.node.is_some() {
                "a GPU with more memory, a larger node or no node-size limit (wider tensor \
                 parallelism), or a method that partitions the state"
            } else {
                "a GPU with more memory, or a method that partitions the state"
            })
        }
        Error::NoPlan { reason, .. } if *reason == search::NO_PLAN_TENSOR_BUDGET => {
            String::from("a larger GPU budget or a smaller tensor degree")
        }
        Error::NoPlan { .. } if inputs.cluster.is_some() => match inputs.batch {
            None => alloc::format!(
                "a larger batch (a step holds at most the critical batch, {} sequences \
                 (eq. 2), unless the batch is set; large runs train above it), a smaller \
                 cluster, or a GPU budget instead: every pipeline needs at least as many \
                 micro-batches as stages, which caps how many GPUs one step keeps busy",
                crate::math::floor(model.critical_batch())
            ),
            Some(b) => alloc::format!(
                "a batch larger than {b} sequences, a smaller cluster, or a GPU budget \
                 instead: every pipeline needs at least as many micro-batches as stages, \
                 which caps how many GPUs one step keeps busy"
            ),
        },
        Error::NoPlan { .. } => String::from(
            "fewer constraints: a larger GPU budget, a later target time or no batch limit",
        ),
        _ => String::from("other inputs (see the notice above)"),
    }
}

/// The inputs [`optimum`] reads: `inputs` with what it ignores (the method
/// shown, the comparison, the embed view) set to defaults, for caching.
#[must_use]
pub fn optimum_key(inputs: &Inputs) -> Inputs {
    let d = Inputs::default();
    Inputs {
        method: d.method,
        compare: d.compare,
        embed: d.embed,
        ..*inputs
    }
}

/// The inputs [`scaling`] reads: the sweep does not depend on the model,
/// the method shown, a GPU budget, a target time or a batch limit.
#[must_use]
pub fn scaling_key(inputs: &Inputs) -> Inputs {
    let d = Inputs::default();
    Inputs {
        model: d.model,
        method: d.method,
        compare: d.compare,
        embed: d.embed,
        assumptions: d.assumptions,
        tokens: None,
        max_gpus: None,
        cluster: None,
        target_days: None,
        batch: None,
        ..*inputs
    }
}

/// How much longer a plan trains than the exhaustive optimum: its time over
/// the optimum's (1 when the rules find the optimum).
#[must_use]
pub fn slowdown(plan: &Plan, optimum: &SearchResult) -> f64 {
    plan.evaluation.time.get() / optimum.best.evaluation.time.get()
}

/// Bandwidth needs of a plan's transfers, per dimension.
#[must_use]
pub fn needs(plan: &Plan, hw: &Hardware) -> Vec<Need> {
    let peak = hw.gpu.peak.0;
    plan.evaluation
        .transfers
        .iter()
        .map(|t| Need {
            kind: t.kind,
            link: t.link,
            equation: t.equation,
            required: BytesPerSec(peak / t.intensity.0),
            available: BytesPerSec(peak / t.threshold.0),
            overlapped: t.overlapped,
        })
        .collect()
}

/// The rules' plan per method for X\[x\] models from 10⁸ to 10¹⁶ parameters
/// (figs. 4, 5, 8) on the inputs' hardware.
///
/// # Errors
///
/// Invalid hardware or constraints.
pub fn scaling(inputs: &Inputs, points: u32) -> Result<Vec<(Method, Vec<SweepRow>)>, Error> {
    let hw = inputs.hardware();
    let c = Constraints {
        // A budget or target for one model makes no sense across sizes.
        max_gpus: None,
        target_days: None,
        batch: None,
        ..constraints(inputs)
    };
    METHODS
        .iter()
        .map(|&m| {
            Ok((
                m,
                search::sweep(&hw, m, inputs.parallelism, &c, 1e8, 1e16, points)?,
            ))
        })
        .collect()
}

/// Largest schedule simulated for the page, in compute operations
/// (2 × layers × micro-batches): a few milliseconds in wasm, so that a
/// change of plan stays within a frame. Bigger plans are shown scaled down (see
/// [`plan_schedule`]).
pub const MAX_PAGE_OPS: u64 = 8_000;

/// What [`plan_schedule`] shows of a plan too big to simulate whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShownScale {
    /// Pipeline stages shown, of the plan's n_l.
    pub devices: (u32, u32),
    /// Micro-batches shown, of the plan's n_µ.
    pub micro_batches: (u32, u32),
}

impl ShownScale {
    /// Is the plan shown whole?
    #[must_use]
    pub fn whole(&self) -> bool {
        self.devices.0 == self.devices.1 && self.micro_batches.0 == self.micro_batches.1
    }
}

/// The schedule of a plan, with the cost model's durations: the baseline's
/// standard pipeline as 1F1B, the improved method's modular pipeline (or
/// layered accumulation without a pipeline), gradient accumulation
/// otherwise.
///
/// A plan of more than [`MAX_PAGE_OPS`] operations is shown scaled down.
/// Without a pipeline the step is shown with fewer micro-batches. With one,
/// stages and micro-batches shrink by the same factor and the layers per
/// stage stay, so the bubble — (n_l − 1)/n_µ for 1F1B (sec. 2.4),
/// (n_l − 1)·n_l/(n_µ·d_l) for the modular pipeline (sec. 4) — stays about
/// the plan's: X814's baseline without a node limit, 814 stages of 893
/// micro-batches (1.45 M operations, ~1 s to simulate in the browser), is
/// shown as 60 stages of 65 micro-batches.
///
/// # Errors
///
/// A plan the schedules cannot express, or one with so many layers per
/// stage that even one micro-batch exceeds the page's budget
/// ([`Error::OutOfRange`] on "schedule operations").
pub fn plan_schedule(
    model: &ModelShape,
    hw: &Hardware,
    plan: &Plan,
) -> Result<(Schedule, ShownScale), Error> {
    let c = plan.evaluation.config;
    let layered = c.method.layered();
    let kind = match (layered, c.pipe > 1) {
        (true, true) => ScheduleKind::Modular,
        (true, false) => ScheduleKind::Lga,
        (false, true) if c.pipeline_schedule == crate::cost::PipelineSchedule::ZbH1 => {
            ScheduleKind::ZbH1
        }
        (false, true) if c.pipeline_schedule == crate::cost::PipelineSchedule::DualPipe => {
            ScheduleKind::DualPipe
        }
        (false, true) if c.pipeline_schedule == crate::cost::PipelineSchedule::ZbV => {
            ScheduleKind::ZbV
        }
        (false, true) if c.virtual_stages > 1 => ScheduleKind::Interleaved,
        (false, true) => ScheduleKind::OneFOneB,
        (false, false) => ScheduleKind::Ga,
    };
    let chunks = if kind == ScheduleKind::Interleaved {
        c.virtual_stages
    } else {
        1
    };
    let (pipe, nmu) = (c.pipe.max(1), c.micro_batches.max(1));
    // Standard pipelines cut the layers into equal stages: use the largest
    // layer count the stages divide.
    let per_stage = f64::from(model.layers) / f64::from(pipe);
    let layers_for = |p: u32| -> u32 {
        if kind == ScheduleKind::ZbV {
            // 2p equal stages.
            model.layers / (2 * pipe) * 2 * p
        } else if kind == ScheduleKind::Interleaved {
            // p·v equal chunks.
            model.layers / (pipe * chunks) * p * chunks
        } else if matches!(
            kind,
            ScheduleKind::OneFOneB | ScheduleKind::ZbH1 | ScheduleKind::DualPipe
        ) {
            model.layers / pipe * p
        } else if p == pipe {
            model.layers
        } else {
            (crate::math::round(per_stage * f64::from(p)) as u32).max(p)
        }
    };
    let passes = if kind.splits_backward() { 3 } else { 2 };
    let ops = |layers: u32, n: u32| passes * u64::from(layers) * u64::from(n);
    let (mut p, mut n) = (pipe, nmu);
    if ops(layers_for(p), n) > MAX_PAGE_OPS {
        if pipe > 1 {
            // Shrink stages and micro-batches together: ops go as the
            // square of the factor.
            let f = crate::math::sqrt(MAX_PAGE_OPS as f64 / ops(layers_for(p), n) as f64);
            p = ((f64::from(pipe) * f) as u32).clamp(2, pipe);
            n = ((f64::from(nmu) * f64::from(p) / f64::from(pipe)) as u32).max(1);
            if nmu >= pipe {
                n = n.max(p);
            }
            while ops(layers_for(p), n) > MAX_PAGE_OPS && p > 2 {
                p -= 1;
                n = ((f64::from(nmu) * f64::from(p) / f64::from(pipe)) as u32).max(1);
                if nmu >= pipe {
                    n = n.max(p);
                }
            }
        }
        while ops(layers_for(p), n) > MAX_PAGE_OPS
            && n > 1
            && !(kind == ScheduleKind::Modular && n <= p)
        {
            n = (n / 2).max(1);
            if kind == ScheduleKind::Modular {
                n = n.max(p);
            }
        }
        if kind == ScheduleKind::DualPipe {
            // Shown scaled down, DualPipe keeps its shape: even devices,
            // an even number of micro-batches, at least twice the devices.
            p = (p / 2 * 2).max(2);
            n = (n / 2 * 2).max(2 * p);
        }
        if kind == ScheduleKind::ZbV {
            // ZB-V's warm-up alone is 2p − 1 forwards on GPU 0.
            n = n.max(2 * p - 1);
        }
        let total = ops(layers_for(p), n);
        if total > MAX_PAGE_OPS {
            return Err(Error::OutOfRange {
                what: "schedule operations",
                value: total as f64,
                min: 1.0,
                max: MAX_PAGE_OPS as f64,
            });
        }
    }
    if kind == ScheduleKind::Interleaved && n % p != 0 {
        // The simulated interleaved schedule takes whole rounds of p
        // micro-batches (Megatron's rule; Llama 3's schedule lifts it); the
        // caption says what is shown, never more micro-batches than the
        // plan has: fewer than p are shown on as many devices.
        if n < p {
            p = n;
        } else {
            n = n / p * p;
        }
    }
    let paper = Durations::from_cost_model(
        model,
        hw,
        c.tensor,
        c.micro_batch,
        c.data,
        c.method.partitioned(),
        c.activation,
    )?;
    // A practice plan is drawn with the practice evaluator's times and
    // memory (one evaluator, two settings): its simulated step is the
    // step the headline states, not the paper's perfect kernels.
    let practice = (plan.evaluation.assumptions == AssumptionSet::Practice).then(|| Assumptions {
        compute: plan.evaluation.compute,
        ..AssumptionSet::Practice.knobs()
    });
    let durations = match &practice {
        Some(a) => Durations::from_micro_batch(
            &crate::cost::step::micro_batch_seconds(model, hw, &c, a),
            layers_for(p).div_ceil(p),
            paper.cpu_gpu,
        ),
        None => paper,
    };
    let mut spec = ScheduleSpec {
        kind,
        devices: p,
        layers: layers_for(p),
        micro_batches: n,
        chunks,
        data: c.data,
        // Under practice, per-use weight gathers are ZeRO-3's; ZeRO-3
        // gathering once per step ("3-step") reduces like ZeRO-1.
        partition: match &practice {
            Some(_) => crate::cost::step::zero_of(&c) == crate::cost::Zero::Three,
            None => c.method.partitioned(),
        },
        offload: c.offload,
        durations,
        memory: MemorySizes::unit(),
    };
    spec.memory = match &practice {
        Some(a) => MemorySizes::from_stage(
            &crate::cost::memory::stage_memory(model, &c, a, 0),
            layers_for(p).div_ceil(p),
        ),
        None => MemorySizes::from_cost_model(model, &spec, c.tensor, c.micro_batch),
    };
    let shown = ShownScale {
        devices: (p, pipe),
        micro_batches: (n, nmu),
    };
    Ok((schedule::simulate(&spec)?, shown))
}

/// The paper's side-by-side comparisons, in unit durations: standard vs
/// layered accumulation (fig. 1, with a reduction of one unit per layer),
/// standard vs modular pipeline (fig. 3), 1F1B vs interleaved.
///
/// # Errors
///
/// Never for the fixed sizes used; kept for uniformity.
pub fn comparison(which: Comparison) -> Result<[Schedule; 2], Error> {
    let unit = |kind, devices, layers, mbs, chunks, data| {
        let mut s = ScheduleSpec::unit(kind, devices, layers, mbs);
        s.chunks = chunks;
        s.data = data;
        s.durations.reduce = if data > 1 { 1.0 } else { 0.0 };
        schedule::simulate(&s)
    };
    Ok(match which {
        Comparison::Lga => [
            unit(ScheduleKind::Ga, 1, 4, 4, 1, 2)?,
            unit(ScheduleKind::Lga, 1, 4, 4, 1, 2)?,
        ],
        Comparison::Modular => [
            unit(ScheduleKind::Gpipe, 4, 16, 4, 1, 1)?,
            unit(ScheduleKind::Modular, 4, 16, 4, 1, 1)?,
        ],
        Comparison::Interleaved => [
            unit(ScheduleKind::OneFOneB, 4, 16, 8, 1, 1)?,
            unit(ScheduleKind::Interleaved, 4, 16, 8, 2, 1)?,
        ],
        Comparison::ZeroBubble => [
            unit(ScheduleKind::OneFOneB, 4, 16, 8, 1, 1)?,
            unit(ScheduleKind::ZbH1, 4, 16, 8, 1, 1)?,
        ],
        Comparison::DualPipe => [
            unit(ScheduleKind::ZbH1, 4, 16, 8, 1, 1)?,
            unit(ScheduleKind::DualPipe, 4, 16, 8, 1, 1)?,
        ],
        Comparison::ZbV => [
            unit(ScheduleKind::ZbH1, 4, 16, 8, 1, 1)?,
            unit(ScheduleKind::ZbV, 4, 16, 8, 1, 1)?,
        ],
    })
}
