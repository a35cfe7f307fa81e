//! One schema for every door: the CLI, the page's exports and the
//! JavaScript API all take a [`request`] and give a [`report`].
//!
//! A request holds what a user types (names as strings, the CLI's
//! defaults); each function here resolves it into core's typed inputs,
//! runs core, and returns the report whose fields `docs/cli.md` documents.
//! Errors are [`ApiError`]s whose messages are the CLI's, naming the value
//! that was wrong.
//!
//! With the `serde` feature every request and report is `Serialize` and
//! `Deserialize`; with `schema` (needs std) they also derive a JSON schema.
//!
//! ```
//! use plan3d_core::api::{self, request::EvaluateRequest, request::ModelRequest};
//! let r = api::evaluate(&EvaluateRequest {
//!     model: ModelRequest { model: Some("x160".into()), ..Default::default() },
//!     method: "improved".into(),
//!     data: 483, pipe: 5, tensor: 16, micro_batch: 1, micro_batches: 5,
//!     ..Default::default()
//! })?;
//! assert_eq!(r.gpus, 38_640); // Table 6.1, 3d improved
//! # Ok::<(), plan3d_core::api::ApiError>(())
//! ```

mod answer;
#[cfg(feature = "serde")]
pub mod json;
mod parse;
pub mod profile_report;
mod refusals;
pub mod report;
pub mod request;
#[cfg(feature = "schema")]
pub mod schema;
mod simulate;

pub use answer::{evaluate_answer, plan_answer, run_answer};
pub use simulate::{schedule, simulate};

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::cost::{evaluate_with, AssumptionSet, Config, Method};
use crate::error::Error;
use crate::hardware::Hardware;
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::schedule::Schedule;
use crate::search::{self, Parallelism, Scaling, Space};
use crate::{estimate as estimate_mod, planner, zero as zero_mod};

use parse::{
    activation, config_of, method, parallelism, pipeline_schedule, recomputation, recompute,
    zero_r, zero_stage,
};
pub use parse::{assumptions_of, calibrated, constraints_of, hardware_of, shape};
use profile_report::{PresetReport, ProfileReport};
use refusals::practice_only;
use report::{
    EstimateReport, EvaluationReport, HardwareReport, ModelReport, PlanReport, RulesReport,
    RunReport, ScheduleReport, SweepRowReport, TimelineReport, ZeroReport,
};
use request::{
    EvaluateRequest, HardwareRequest, ModelRequest, PlanRequest, PracticeRequest, RunRequest,
    SweepRequest,
};

/// Why a request has no answer, in words (the CLI prints it after
/// `error: `; the JavaScript API throws it as an `Error`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError(pub String);

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl core::error::Error for ApiError {}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        Self(e.to_string())
    }
}

impl From<String> for ApiError {
    fn from(s: String) -> Self {
        Self(s)
    }
}

impl From<&str> for ApiError {
    fn from(s: &str) -> Self {
        Self(s.to_string())
    }
}

/// `plan3d model`.
///
/// # Errors
///
/// As [`shape`].
pub fn model(r: &ModelRequest) -> Result<ModelReport, ApiError> {
    Ok(ModelReport::from(&shape(r)?))
}

/// `plan3d hardware`.
///
/// # Errors
///
/// As [`hardware_of`].
pub fn hardware(r: &HardwareRequest) -> Result<HardwareReport, ApiError> {
    Ok(HardwareReport::from(&hardware_of(r)?))
}

/// `plan3d evaluate`: one configuration.
///
/// # Errors
///
/// An invalid model, hardware or name, a batch that is not data ×
/// micro-batches × micro-batch, or what [`crate::evaluate`] rejects.
pub fn evaluate(r: &EvaluateRequest) -> Result<EvaluationReport, ApiError> {
    let (_, hw, e) = evaluation_of(r)?;
    let mut report = EvaluationReport::new(&e, &hw);
    if let Some(p) = &r.practice.profile {
        // The same request on the preset's curves, beside.
        let mut bare = r.clone();
        bare.practice.profile = None;
        let (_, _, preset) = evaluation_of(&bare)?;
        report.profile = Some(profile_report(p, &hw, &r.practice)?);
        report.preset = Some(PresetReport::from(&EvaluationReport::new(&preset, &hw)));
    }
    Ok(report)
}

/// `plan3d calibrate --check`: a calibration profile checked against the
/// hardware it is for, and what it sets in the kernel model beside the
/// GPU preset's curves.
///
/// # Errors
///
/// Invalid hardware, or a profile [`crate::cost::profile::Profile::check`]
/// refuses (naming its field).
pub fn check_profile(
    hardware: &HardwareRequest,
    p: &crate::cost::profile::Profile,
) -> Result<ProfileReport, ApiError> {
    let hw = hardware_of(hardware)?;
    p.check(&hw)
        .map_err(|e| ApiError(alloc::string::ToString::to_string(&e)))?;
    profile_report(p, &hw, &PracticeRequest::default())
}

/// The JSON door's `calibrate`: [`check_profile`] of a request's
/// profile on its hardware.
///
/// # Errors
///
/// No profile, or as [`check_profile`].
pub fn calibrate(r: &request::CalibrateRequest) -> Result<ProfileReport, ApiError> {
    let p = r
        .profile
        .as_ref()
        .ok_or_else(|| ApiError("a calibration profile is needed (profile)".into()))?;
    check_profile(&r.hardware, p)
}

/// What profile `p` set on `hw`, against the preset.
fn profile_report(
    p: &crate::cost::profile::Profile,
    hw: &Hardware,
    r: &PracticeRequest,
) -> Result<ProfileReport, ApiError> {
    let a = assumptions_of(r)?;
    let preset = crate::cost::kernels::curves(&hw.gpu);
    Ok(ProfileReport::new(p, &p.fit(hw, preset), &preset, &a))
}

/// `plan3d evaluate --timeline`: the configuration's step as the page
/// animates it ([`planner::plan_schedule`]: the plan's own schedule kind,
/// with the durations and memory of its setting; scaled down beyond
/// [`planner::MAX_PAGE_OPS`] operations, which the report says), and the
/// simulated schedule itself (for drawing).
///
/// # Errors
///
/// As [`evaluate`], or a plan the schedules cannot draw.
pub fn evaluate_timeline(r: &EvaluateRequest) -> Result<(Schedule, TimelineReport), ApiError> {
    let (m, hw, e) = evaluation_of(r)?;
    let plan = search::Plan {
        method: e.config.method,
        parallelism: Parallelism::ThreeD,
        evaluation: e,
        binding: search::Bindings::default(),
    };
    timeline_of(&m, &hw, &plan)
}

/// A plan's simulated step ([`planner::plan_schedule`]) and its report.
fn timeline_of(
    m: &ModelShape,
    hw: &Hardware,
    plan: &search::Plan,
) -> Result<(Schedule, TimelineReport), ApiError> {
    let (s, shown) = planner::plan_schedule(m, hw, plan)?;
    let report = TimelineReport {
        schedule: ScheduleReport::from(&s),
        shown_devices: shown.devices.0,
        plan_devices: shown.devices.1,
        shown_micro_batches: shown.micro_batches.0,
        plan_micro_batches: shown.micro_batches.1,
        estimated_step_seconds: plan.evaluation.step.0,
    };
    Ok((s, report))
}

/// The model, hardware and evaluation of an [`EvaluateRequest`].
fn evaluation_of(
    r: &EvaluateRequest,
) -> Result<(ModelShape, Hardware, crate::cost::Evaluation), ApiError> {
    let m = shape(&r.model)?;
    let hw = hardware_of(&r.hardware)?;
    let a = calibrated(assumptions_of(&r.practice)?, &hw, &r.practice)?;
    let practice = a.set == AssumptionSet::Practice;
    let p = &r.practice;
    if let Some(field) = refusals::paper_ignores(p).filter(|_| !practice) {
        // Echoed and not counted would mislead: say so instead.
        return Err(ApiError(format!(
            "{field} is read only by the practice model: add assumptions practice \
             (--assumptions practice), or leave it out"
        )));
    }
    let given_zero = p.zero.as_deref().map(zero_stage).transpose()?;
    let (method, default_zero) = parse::sharding(&r.method, given_zero, a.framework, practice)?;
    let mut cfg = Config {
        method,
        data: r.data,
        pipe: r.pipe,
        tensor: r.tensor,
        micro_batch: r.micro_batch,
        micro_batches: r.micro_batches,
        offload: r.offload,
        activation: activation(&r.activations)?,
        virtual_stages: p.virtual_stages.unwrap_or(1),
        microbatch_group: p.microbatch_group.unwrap_or(0),
        // On with tensor parallelism under practice, as `plan` searches
        // (sequence parallelism dominates: the same traffic, less memory):
        // `evaluate` of the layout `plan` found gives the plan's figures.
        sequence_parallel: p.sequence_parallel.unwrap_or(practice && r.tensor > 1),
        zero: given_zero.unwrap_or(default_zero),
        pipeline_schedule: p
            .pipeline_schedule
            .as_deref()
            .map(pipeline_schedule)
            .transpose()?
            .unwrap_or_default(),
        zero_r: p
            .zero_r
            .as_deref()
            .map(zero_r)
            .transpose()?
            .unwrap_or_default(),
        context: p.context_parallel.unwrap_or(1),
        expert: p.expert_parallel.unwrap_or(1),
        expert_tensor: p
            .expert_tensor_parallel
            .filter(|&x| x != r.tensor)
            .unwrap_or(0),
        embedding_layers: p.embedding_layers.unwrap_or(0),
        head_layers: 0,
        recompute_layers: p.recompute_layers.unwrap_or(0),
        offload_layers: p.offload_layers.unwrap_or(0),
        recompute_modules: p
            .recompute_modules
            .as_deref()
            .map(parse::modules)
            .transpose()?
            .unwrap_or_default(),
        offload_modules: p
            .offload_modules
            .as_deref()
            .map(parse::offload_modules)
            .transpose()?
            .unwrap_or_default(),
    };
    if let Some(what) = a
        .framework
        .pipeline_refusal(cfg.zero, cfg.pipe)
        .filter(|_| practice && !cfg.method.layered())
    {
        return Err(ApiError(what.into()));
    }
    if let Some(n) = hw
        .node_size
        .filter(|n| practice && n % cfg.tensor.max(1) != 0)
    {
        // The value and the node size said, and how to change either.
        return Err(ApiError(format!(
            "{}: {} does not divide {n}; give another tensor degree or node size",
            crate::cost::TENSOR_SPANS_NODES,
            cfg.tensor
        )));
    }
    if let Some(rc) = &p.recompute {
        let r = recompute(rc)?;
        if cfg.activation != ActivationModel::Paper && cfg.activation != r {
            return Err(ApiError(format!(
                "recompute {} contradicts activations {}: give one of them",
                r.name(),
                cfg.activation.name()
            )));
        }
        cfg.activation = r;
    } else if practice && cfg.recompute_modules.0 != 0 && cfg.activation == ActivationModel::Paper {
        // Modules recomputed: selective recomputation of those.
        cfg.activation = ActivationModel::Selective;
    } else if practice && cfg.recompute_layers > 0 && cfg.activation == ActivationModel::Paper {
        // Some layers recomputed: full recomputation of those.
        cfg.activation = ActivationModel::Full;
    } else if practice && cfg.activation == ActivationModel::Paper {
        cfg.activation = ActivationModel::None;
    }
    // Practice splits the pipeline with the head counted in layers unless
    // told otherwise (the paper splits layers evenly).
    // The embedding counts too where the virtual stages need it.
    if practice {
        (cfg.embedding_layers, cfg.head_layers) =
            crate::cost::step::pipeline_ends(&m, &cfg, a.work, p.embedding_layers, p.head_layers);
    }
    if p.zero.is_some() && !cfg.method.admits(cfg.zero) {
        return Err(ApiError(cfg.method.zero_refusal().into()));
    }
    if let Some(gb) = p.global_batch {
        let per = u64::from(cfg.data) * u64::from(cfg.micro_batch);
        if per == 0 || gb == 0 || gb % per != 0 {
            return Err(ApiError(format!(
                "global batch {gb} is not a multiple of data × micro-batch = {per}"
            )));
        }
        let m = u32::try_from(gb / per).map_err(|_| ApiError("global batch too large".into()))?;
        if r.micro_batches != 1 && r.micro_batches != m {
            return Err(Error::BatchMismatch {
                batch: gb,
                product: cfg.batch(),
            }
            .into());
        }
        cfg.micro_batches = m;
    }
    if let Some(batch) = r.batch {
        if batch != cfg.batch() {
            return Err(Error::BatchMismatch {
                batch,
                product: cfg.batch(),
            }
            .into());
        }
    }
    let e = evaluate_with(&m, &hw, &cfg, &a)?;
    Ok((m, hw, e))
}

/// `plan3d plan`: the rules' plan, or the exhaustive optimum with its
/// Pareto front (8 budget levels) and the rules' standing against it.
///
/// # Errors
///
/// Invalid inputs, `any` method with the rules, an unknown search, or no
/// plan.
pub fn plan(r: &PlanRequest) -> Result<PlanReport, ApiError> {
    plan_failing(r, crate::run::Failures::default())
}

/// [`plan`] of a run with `failures`: the practice search's objective is
/// its wall-clock time.
fn plan_failing(r: &PlanRequest, failures: crate::run::Failures) -> Result<PlanReport, ApiError> {
    let (_, hw, _, mut report) = plan_under(r, failures)?;
    if let Some(p) = &r.practice.profile {
        // The plan the preset's curves find, beside.
        let mut bare = r.clone();
        bare.practice.profile = None;
        let (.., preset) = plan_under(&bare, failures)?;
        report.evaluation.profile = Some(profile_report(p, &hw, &r.practice)?);
        report.evaluation.preset = Some(PresetReport::from(&preset.evaluation));
    }
    Ok(report)
}

/// `plan3d plan --timeline`: the plan [`plan`] finds, its step as the page
/// animates it (see [`evaluate_timeline`]).
///
/// # Errors
///
/// As [`plan`], or a plan the schedules cannot draw.
pub fn plan_timeline(r: &PlanRequest) -> Result<(Schedule, TimelineReport), ApiError> {
    let (m, hw, p, _) = plan_with(r)?;
    timeline_of(&m, &hw, &p)
}

/// [`plan`]'s model, hardware, plan and report.
fn plan_with(
    r: &PlanRequest,
) -> Result<(ModelShape, Hardware, search::Plan, PlanReport), ApiError> {
    plan_under(r, crate::run::Failures::default())
}

/// [`plan_with`] for a run with `failures`.
fn plan_under(
    r: &PlanRequest,
    failures: crate::run::Failures,
) -> Result<(ModelShape, Hardware, search::Plan, PlanReport), ApiError> {
    let m = shape(&r.model)?;
    let hw = hardware_of(&r.hardware)?;
    let c = search::Constraints {
        failures,
        ..constraints_of(&r.constraints)?
    };
    let par = parallelism(&r.parallelism)?;
    let a = calibrated(assumptions_of(&r.practice)?, &hw, &r.practice)?;
    let practice = a.set == AssumptionSet::Practice;
    if c.cheapest && !practice {
        return Err("the cheapest plan is a practice search: add --assumptions practice".into());
    }
    if !practice {
        if let Some(field) = practice_only(r) {
            return Err(ApiError(format!(
                "{field} is read only by the practice search: add assumptions practice \
                 (--assumptions practice), or leave it out"
            )));
        }
    }
    // The setting's default method, for the CLI and JSON requests alike.
    // Under practice, no method is the fastest of those frameworks ship
    // (the page's headline), else the fastest of all; `any` is the fastest
    // of all, the paper's proposal included.
    let method_name = match r.method.trim() {
        "" if practice => "",
        "" => "improved",
        name => name,
    };
    if practice {
        let p = &r.practice;
        let chosen;
        let methods: &[Method] = if method_name.is_empty() {
            a.framework.shipped()
        } else if method_name.eq_ignore_ascii_case("any") {
            &search::PRACTICE_METHODS
        } else {
            chosen = [method(method_name)?];
            &chosen
        };
        if p.offload_modules.is_some()
            && matches!(
                recomputation(p.recompute.as_deref(), c.activation)?,
                Some(ActivationModel::Full)
            )
        {
            return Err(ApiError(
                crate::cost::offload::UNDER_FULL_RECOMPUTATION.into(),
            ));
        }
        let space = Space {
            method: None,
            data: r.data,
            pipe: r.pipe,
            virtual_stages: p.virtual_stages,
            microbatch_group: p.microbatch_group,
            micro_batch: r.micro_batch,
            sequence_parallel: p.sequence_parallel,
            zero: p.zero.as_deref().map(zero_stage).transpose()?,
            recompute: recomputation(p.recompute.as_deref(), c.activation)?,
            pipeline_schedule: p
                .pipeline_schedule
                .as_deref()
                .filter(|s| !s.eq_ignore_ascii_case("any"))
                .map(pipeline_schedule)
                .transpose()?,
            zero_r: p.zero_r.as_deref().map(zero_r).transpose()?,
            context: p.context_parallel,
            global_batch: p.global_batch,
            expert: p.expert_parallel,
            expert_tensor: p.expert_tensor_parallel,
            embedding_layers: p.embedding_layers,
            head_layers: p.head_layers,
            recompute_layers: p.recompute_layers,
            offload_layers: p.offload_layers,
            recompute_modules: p
                .recompute_modules
                .as_deref()
                .map(parse::modules)
                .transpose()?,
            offload_modules: p
                .offload_modules
                .as_deref()
                .map(parse::offload_modules)
                .transpose()?,
            zero_bubble: p
                .pipeline_schedule
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case("any")),
        };
        let best = match search::practice_explained(&m, &hw, par, &c, &space, &a, methods) {
            // No plan of the framework's methods: the fastest of any, else
            // the framework's own explanation (its fix keeps to what it
            // ships, never the paper's proposal).
            Err(e) if method_name.is_empty() => {
                search::practice_methods(&m, &hw, par, &c, &space, &a, &search::PRACTICE_METHODS)
                    .map_err(|_| e)?
            }
            found => found?,
        };
        let o = crate::run::Objective::new(&m, &hw, &a, c.failures);
        let mut report = PlanReport::exhaustive(&best, &hw, &[best.best.evaluation], None)
            .with_wall_clock(&best.best, &o);
        report.binding = planner::practice_limits(
            &m,
            &c,
            space.global_batch,
            space.data,
            &a,
            &best.best.evaluation,
            "--batch or --global-batch sets another",
        )?;
        return Ok((m, hw, best.best, report));
    }
    let method = if method_name.eq_ignore_ascii_case("any") {
        None
    } else {
        Some(method(method_name)?)
    };
    match r.search.to_ascii_lowercase().as_str() {
        "rules" => {
            let method =
                method.ok_or("the rules need a method; use --search exhaustive for any")?;
            let p = search::rules(&m, &hw, method, par, &c)?;
            let report = PlanReport::new(&p, &hw, "rules");
            Ok((m, hw, p, report))
        }
        "exhaustive" => {
            let best = search::exhaustive(&m, &hw, method, par, &c)?;
            let front = search::pareto(&m, &hw, method, par, &c, 8)?;
            // Where the paper's rules sit against the optimum.
            let rule_method = method.unwrap_or(best.best.method);
            let rules = search::rules(&m, &hw, rule_method, par, &c)
                .ok()
                .map(|p| RulesReport {
                    method: rule_method.name().to_string(),
                    gpus: p.evaluation.gpus,
                    days: p.evaluation.time.days(),
                    efficiency: p.evaluation.efficiency,
                    slowdown: planner::slowdown(&p, &best),
                    gpu_ratio: p.evaluation.gpus as f64 / best.best.evaluation.gpus as f64,
                    optimal: planner::standing(&p, &best, &c) == planner::Standing::Optimal,
                });
            let report = PlanReport::exhaustive(&best, &hw, &front, rules);
            Ok((m, hw, best.best, report))
        }
        other => Err(ApiError(format!(
            "unknown search '{other}': use rules or exhaustive"
        ))),
    }
}

/// `plan3d run`: the plan (as [`plan`]) and its whole run
/// ([`crate::run::run`]): days with a batch ramp, goodput under
/// interruptions and checkpoints, GPU-hours, cost and energy.
///
/// # Errors
///
/// As [`plan`]; a batch in tokens that is not whole sequences, a bad
/// ramp, a setting out of range, or a run that never finishes.
pub fn run(r: &RunRequest) -> Result<RunReport, ApiError> {
    let mut req = r.plan.clone();
    let m = shape(&req.model)?;
    let seq = f64::from(m.seq_len);
    let ramp = match &r.batch_ramp {
        Some(text) => crate::run::parse_ramp(text).map_err(ApiError)?,
        None => Vec::new(),
    };
    let sequences = |tokens: f64, what: &str| -> Result<u64, ApiError> {
        let n = tokens / seq;
        if !((1.0..=1e12).contains(&n) && crate::math::floor(n) == n) {
            return Err(ApiError(format!(
                "{what} of {tokens} tokens is not a whole number of {} -token sequences",
                m.seq_len
            )));
        }
        Ok(n as u64)
    };
    if let Some(bt) = r.batch_tokens {
        if req.practice.global_batch.is_some() {
            return Err("give a global batch in sequences or in tokens, not both".into());
        }
        req.practice.global_batch = Some(sequences(bt, "a global batch")?);
    }
    if let (Some(last), None) = (ramp.last(), req.practice.global_batch) {
        // The plan is searched at the batch most tokens are trained with.
        req.practice.global_batch = Some(sequences(last.batch_tokens, "the ramp's last batch")?);
    }
    let d = crate::run::RunSettings::default();
    let settings = crate::run::RunSettings {
        ramp,
        price_per_gpu_hour: r.price_per_gpu_hour,
        interruptions_per_gpu_hour: r
            .interruptions_per_gpu_hour
            .unwrap_or(d.interruptions_per_gpu_hour),
        checkpoint_bytes_per_s: r.checkpoint_bandwidth.unwrap_or(d.checkpoint_bytes_per_s),
        async_checkpoint: r.async_checkpoint,
        restart_seconds: r.restart_minutes.map_or(d.restart_seconds, |m| m * 60.0),
        pue: r.pue.unwrap_or(d.pue),
        node_watts: r.node_watts,
        grid_kg_per_kwh: r.grid_kg_per_kwh,
    };
    settings.validate()?;
    let plan_report = plan_failing(&req, settings.failures())?;
    let cfg = config_of(&plan_report.evaluation)?;
    let hw = hardware_of(&req.hardware)?;
    let a = calibrated(assumptions_of(&req.practice)?, &hw, &req.practice)?;
    let run = crate::run::run(&m, &hw, &cfg, &a, &settings)?;
    Ok(RunReport::new(plan_report, &run))
}

/// The scaling a sweep's `scaling` names: `x`, `aspect:R` or `depth:L`.
fn scaling(r: &SweepRequest) -> Result<Scaling, ApiError> {
    let s = r.scaling.trim();
    match s.split_once(':') {
        None if s.eq_ignore_ascii_case("x") => Ok(Scaling::XFamily),
        Some((kind, v)) if kind.eq_ignore_ascii_case("aspect") => Ok(Scaling::Aspect {
            ratio: v
                .parse()
                .map_err(|_| ApiError(format!("bad width/depth ratio '{v}'")))?,
            head_size: r.head_size,
            seq_len: r.seq_len,
        }),
        Some((kind, v)) if kind.eq_ignore_ascii_case("depth") => Ok(Scaling::FixedDepth {
            layers: v
                .parse()
                .map_err(|_| ApiError(format!("bad layer count '{v}'")))?,
            head_size: r.head_size,
            seq_len: r.seq_len,
        }),
        _ => Err(ApiError(format!(
            "unknown scaling '{}': use x, aspect:R or depth:L",
            r.scaling
        ))),
    }
}

/// `plan3d sweep`: one row per size.
///
/// # Errors
///
/// Invalid inputs or range (a size with no plan is a row with `error`).
pub fn sweep(r: &SweepRequest) -> Result<Vec<SweepRowReport>, ApiError> {
    let hw = hardware_of(&r.hardware)?;
    let c = constraints_of(&r.constraints)?;
    let par = parallelism(&r.parallelism)?;
    let method = method(&r.method)?;
    let rows = search::sweep_scaled(&hw, method, par, &c, scaling(r)?, r.from, r.to, r.points)?;
    Ok(rows.iter().map(SweepRowReport::from).collect())
}

/// `plan3d zero`: ZeRO-DP state per device for Ψ = `params` over `dp`
/// devices at `stage`, with optimizer multiplier `k`.
///
/// # Errors
///
/// As [`crate::zero::zero`].
pub fn zero(params: f64, dp: u32, stage: u8, k: f64) -> Result<ZeroReport, ApiError> {
    let z = zero_mod::zero(params, dp, stage, k)?;
    Ok(ZeroReport {
        params_bytes: z.params.get(),
        grads_bytes: z.grads.get(),
        optimizer_bytes: z.optimizer.get(),
        total_bytes: z.total().get(),
        comm_volume_elements: z.comm_volume_elements,
    })
}

/// `plan3d estimate`: factor · T · P / (N · X) (PTD-P eq. 4).
///
/// # Errors
///
/// As [`crate::estimate::training_time`].
pub fn estimate(
    params: f64,
    tokens: f64,
    gpus: f64,
    flops_per_gpu: f64,
    factor: f64,
) -> Result<EstimateReport, ApiError> {
    let t = estimate_mod::training_time(params, tokens, gpus, flops_per_gpu, factor)?;
    Ok(EstimateReport {
        seconds: t.get(),
        days: t.days(),
    })
}
