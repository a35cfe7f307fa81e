//! Everything the planner page shows, computed from its [`Inputs`]: the
//! rules' plan per method, the exhaustive optimum, network needs, the
//! scaling sweep and the schedules. The page only draws these.

use alloc::vec::Vec;

mod notes;
mod shown;
mod timeline;
mod why;

pub use notes::{corrections, pcie_capped, published_batch_plan, scaling_offset, PCIE_SLOWER};
pub use shown::{
    method_label, method_label_for, proposal, shown, slowdown, standing, RulesVersus, Shown,
    Standing, PROPOSAL_GAIN, SHIPPED,
};
pub use timeline::{comparison, plan_schedule, step_gap, ShownScale, MAX_PAGE_OPS};
pub use why::{caveat, gib_part, practice_limits, practice_why};

use crate::cost::{Method, TransferKind};
use crate::error::Error;
use crate::hardware::{Hardware, Link};
use crate::model::ModelShape;
use crate::search::{self, Constraints, Plan, SearchResult, SweepRow};
use crate::state::Inputs;
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
pub(super) fn practice_space(inputs: &Inputs) -> search::Space {
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
        microbatch_group: None,
        micro_batch: inputs.layout.micro_batch,
        zero: inputs.layout.zero,
        pipeline_schedule: inputs.layout.schedule,
        head_layers: inputs.layout.head_layers,
        embedding_layers: inputs.layout.embedding_layers,
        // A dense model has no experts: `ep` and `etp` are ignored there
        // (said by [`corrections`]).
        expert: inputs
            .expert
            .filter(|_| inputs.model.shape().is_ok_and(|m| m.experts.is_some())),
        expert_tensor: inputs
            .expert_tensor
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

/// Why the page has no practice plan to show, with the nearest change
/// that has one ([`search::explain`]: the sentence the CLI and the
/// JavaScript API give): for the chosen method, or with none chosen for
/// every method the framework ships (its fix keeps to them). `None` under paper, or when one of those has a plan or
/// its error already says why. It searches again a few times: call it only
/// when the headline has no plan or shows another method's
/// ([`Shown::instead_of`]).
#[must_use]
pub fn explain(inputs: &Inputs, out: &Outputs, method: Option<Method>) -> Option<Error> {
    if !inputs.practice() {
        return None;
    }
    let chosen = [method.unwrap_or(Method::Baseline)];
    let methods: &[Method] = if method.is_some() {
        &chosen
    } else {
        inputs.shipped()
    };
    let unexplained = |m: &Method| {
        out.plans
            .iter()
            .any(|(pm, p)| pm == m && matches!(p, Err(Error::NoPlan { why: None, .. })))
    };
    if !methods.iter().all(unexplained) {
        return None;
    }
    let space = search::Space {
        method,
        ..practice_space(inputs)
    };
    Some(search::explain(
        &out.model,
        &out.hardware,
        inputs.parallelism,
        &out.constraints,
        &space,
        &inputs.knobs(),
        methods,
    ))
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
/// best row of the methods the framework ships
/// ([`crate::cost::framework::Framework::shipped`]), or when none
/// has a plan the best row at all, which is what [`optimum`] searches
/// again, at no cost. `None` under paper, whose optimum is a search of its
/// own.
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
    let o = crate::run::Objective::new(&out.model, &out.hardware, &inputs.knobs(), c.failures);
    let ships = inputs.shipped();
    let best_of = |shipped: bool| {
        let mut best: Option<&Plan> = None;
        for (m, p) in &out.plans {
            if let Ok(p) = p {
                if (!shipped || ships.contains(m))
                    && best.is_none_or(|b| {
                        search::practice::better(&p.evaluation, &b.evaluation, c, &o)
                    })
                {
                    best = Some(p);
                }
            }
        }
        best
    };
    let err = out
        .plans
        .iter()
        .rev()
        .find_map(|(_, p)| p.as_ref().err().copied())
        .unwrap_or(Error::NoPlan {
            reason: search::NO_PLAN_CONSTRAINTS,
            why: None,
        });
    Some(
        best_of(true)
            .or_else(|| best_of(false))
            .map_or(Err(err), |b| {
                Ok(SearchResult {
                    best: *b,
                    evaluated: out.evaluated,
                })
            }),
    )
}

/// What limits the page's practice plan, in words (its batch limit and
/// source, and why a GPU budget is not used whole): the CLI's `binding`
/// lines ([`practice_limits`]). Empty under paper (the rules' bindings say
/// it there).
#[must_use]
pub fn limits(inputs: &Inputs, out: &Outputs, plan: &Plan) -> Vec<alloc::string::String> {
    if !inputs.practice() {
        return Vec::new();
    }
    let mut v = practice_limits(
        &out.model,
        &out.constraints,
        None,
        inputs.layout.data,
        &inputs.knobs(),
        &plan.evaluation,
        "the batch limit field sets another batch",
    )
    .unwrap_or_default();
    v.extend(published_batch_plan(inputs, out, plan));
    v
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

/// The exhaustive optimum over every method (under practice, over the
/// methods the framework ships when one of them has a plan). It takes from well under a
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
        let search = |methods: &[Method]| {
            search::practice_methods(
                &model,
                &hardware,
                inputs.parallelism,
                &constraints(inputs),
                &practice_space(inputs),
                &inputs.knobs(),
                methods,
            )
        };
        // The framework's methods' best, else the best of every method.
        // When no method has a plan, the framework's explanation.
        return search(inputs.shipped()).or_else(|e| search(&METHODS).map_err(|_| e));
    }
    search::exhaustive(
        &model,
        &hardware,
        None,
        inputs.parallelism,
        &constraints(inputs),
    )
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
        _ => String::from("other inputs"),
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
/// the method shown, a target time, a batch limit, a token budget or a
/// layout; under paper not on a GPU budget or cluster either (the rules'
/// figures 4, 5 and 8 have none), under practice it does (the sizes one
/// cluster trains).
#[must_use]
pub fn scaling_key(inputs: &Inputs) -> Inputs {
    let d = Inputs::default();
    let practice = inputs.practice();
    Inputs {
        model: d.model,
        method: d.method,
        compare: d.compare,
        embed: d.embed,
        tokens: None,
        max_gpus: inputs.max_gpus.filter(|_| practice),
        cluster: inputs.cluster.filter(|_| practice),
        target_days: None,
        batch: None,
        ramp: d.ramp,
        price: None,
        layout: d.layout,
        context: None,
        expert: None,
        ..*inputs
    }
}

/// A practice plan's traffic of one kind: what it costs the step once
/// overlap has hidden what it can ([`crate::cost::step`]'s parts).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exposed {
    /// What moves.
    pub what: &'static str,
    /// Over which link.
    pub link: &'static str,
    /// Seconds per step not hidden behind computation.
    pub seconds: f64,
    /// Of the step.
    pub share: f64,
}

/// The network card under practice: each kind of traffic of `plan` and the
/// seconds it adds to the step (tensor collectives on NVLink within a node;
/// pipeline sends, data-parallel reductions and ZeRO gathers, the context
/// ring and the experts' all-to-all on the node's link or the network,
/// wherever their group spans nodes; checkpoints to CPU memory over PCIe).
/// Kinds the plan does not use are left out; empty under paper (there
/// [`needs`]: intensities against thresholds).
#[must_use]
pub fn exposed(plan: &Plan, hw: &Hardware) -> Vec<Exposed> {
    let e = &plan.evaluation;
    let Some(p) = e.step_parts else {
        return Vec::new();
    };
    let c = e.config;
    let node = u64::from(hw.node_size.unwrap_or(u32::MAX));
    let (t, cp, pp) = (u64::from(c.tensor), u64::from(c.context), u64::from(c.pipe));
    let link = |span: u64| {
        if span <= node {
            "NVLink (within a node)"
        } else {
            hw.network.label()
        }
    };
    let step = e.step.0.max(f64::MIN_POSITIVE);
    let mut v = Vec::new();
    let mut put = |what, link, seconds: f64, used: bool| {
        if used {
            v.push(Exposed {
                what,
                link,
                seconds,
                share: seconds / step,
            });
        }
    };
    put("tensor-parallel collectives", link(t), p.tensor, t > 1);
    put(
        "context-parallel ring (attention)",
        link(t * cp),
        p.context,
        cp > 1,
    );
    put("pipeline sends", link(t * cp * pp), p.pipeline, pp > 1);
    put(
        "data-parallel reduction and ZeRO gathers",
        link(e.gpus),
        p.data,
        c.data > 1,
    );
    put("experts' all-to-all", link(e.gpus), p.expert, c.expert > 1);
    put(
        "checkpoints to CPU memory",
        "PCIe",
        p.offload,
        p.offload > 0.0,
    );
    v
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

/// Each method's row of the scaling chart ([`scaling_method`]), at
/// [`sweep_points`] sizes.
///
/// # Errors
///
/// Invalid hardware or constraints.
pub fn scaling(inputs: &Inputs) -> Result<Vec<(Method, Vec<SweepRow>)>, Error> {
    METHODS
        .iter()
        .map(|&m| Ok((m, scaling_method(inputs, m)?)))
        .collect()
}

/// Sizes on the scaling chart: 48 under paper (the rules cost microseconds),
/// 16 under practice (each is a practice search: ~0.3–1 ms natively).
#[must_use]
pub fn sweep_points(inputs: &Inputs) -> u32 {
    if inputs.practice() {
        16
    } else {
        48
    }
}

/// One method's line of the scaling chart, under the assumptions shown.
/// Under paper, the rules' plan for X\[x\] models from 10⁸ to 10¹⁶
/// parameters (figs. 4, 5, 8), with no budget. Under practice, the practice
/// search's best plan from 10⁸ to 10¹³ ([`PRACTICE_SWEEP`]) on the inputs'
/// GPU budget or cluster, each size on 20 tokens per parameter.
///
/// # Errors
///
/// Invalid hardware or constraints.
pub fn scaling_method(inputs: &Inputs, m: Method) -> Result<Vec<SweepRow>, Error> {
    let hw = inputs.hardware();
    let points = sweep_points(inputs);
    if inputs.practice() {
        let c = Constraints {
            target_days: None,
            batch: None,
            tensor: None,
            ..constraints(inputs)
        };
        let key = scaling_key(inputs);
        return search::sweep_practice(
            &hw,
            m,
            inputs.parallelism,
            &c,
            &practice_space(&key),
            &key.knobs(),
            PRACTICE_SWEEP.0,
            PRACTICE_SWEEP.1,
            points,
        );
    }
    let c = Constraints {
        // A budget or target for one model makes no sense across sizes.
        max_gpus: None,
        target_days: None,
        batch: None,
        ..constraints(inputs)
    };
    search::sweep(&hw, m, inputs.parallelism, &c, 1e8, 1e16, points)
}

/// The tokens per parameter each size of the practice scaling chart trains
/// on (the default budget, Hoffmann et al. 2022).
pub const SWEEP_TOKENS_PER_PARAM: f64 = 20.0;

/// The sizes the practice scaling chart spans, in parameters: 100 M to
/// 10 T (X\[8\] to X\[200\]), what teams train; the paper's chart goes to
/// 10¹⁶.
pub const PRACTICE_SWEEP: (f64, f64) = (1e8, 1e13);
