//! Why the practice search has no plan, and the nearest change that has
//! one ([`crate::no_plan`]).
//!
//! Two passes, run only when a search has failed:
//!
//! 1. **The closest miss.** The search runs again recording what it
//!    rejects (the practice search's recorder), its memory floor off so that every layout's
//!    real heaviest stage is measured; the constraint that failed closest
//!    to passing is kept.
//! 2. **The nearest change.** The search runs again with one input the
//!    caller fixed or bounded released (or, for too few micro-batches, the
//!    batch that would give one per stage), in an order that starts with
//!    what the miss is about: for memory the knobs that save memory
//!    (recomputation, ZeRO-R, ZeRO, sequence parallelism, micro-batch),
//!    then the degrees, the batch and the GPUs. The first change that
//!    yields a plan is the answer, with the value the plan takes for it.
//!
//! A release never adds a constraint, so a change found is a real plan of
//! the same evaluator; nothing is estimated.

use alloc::vec::Vec;

use super::practice::{search_methods, Recorder};
use super::{Constraints, Parallelism, SearchResult, Space, NO_PLAN_CONSTRAINTS};
use crate::cost::Assumptions;
use crate::cost::Method;
use crate::error::Error;
use crate::hardware::Hardware;
use crate::model::ModelShape;
use crate::no_plan::{BatchSource, Change, Fix, Miss, Why};

/// A target time every plan meets: with it the search's objective is the
/// fewest GPUs.
const FOREVER_DAYS: f64 = 1e9;

/// One input released (or, for the batch, raised) for a search again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Release {
    Recompute,
    ZeroR,
    Zero,
    SequenceParallel,
    MicroBatch,
    VirtualStages,
    Schedule,
    Method,
    Pipe,
    Tensor,
    Context,
    Expert,
    Data,
    GlobalBatch,
    /// A batch of this many sequences: a global batch where one was fixed,
    /// else a batch limit.
    Batch(u64),
    BatchLimit,
    Cluster,
    /// The cluster released altogether: the fewest GPUs that have a plan
    /// (where no plan fits on at most the cluster's GPUs).
    Grow,
    Budget,
    Target,
    MinEfficiency,
}

/// Every release, in the order tried after the miss's own.
const ORDER: [Release; 20] = [
    Release::Recompute,
    Release::ZeroR,
    Release::Zero,
    Release::SequenceParallel,
    Release::MicroBatch,
    Release::VirtualStages,
    Release::Schedule,
    Release::Method,
    Release::Pipe,
    Release::Tensor,
    Release::Context,
    Release::Expert,
    Release::Data,
    Release::GlobalBatch,
    Release::BatchLimit,
    Release::Cluster,
    Release::Grow,
    Release::Budget,
    Release::Target,
    Release::MinEfficiency,
];

/// The releases tried first for a miss.
fn first_for(miss: &Miss) -> Vec<Release> {
    match *miss {
        Miss::MicroBatches {
            data,
            micro_batch,
            pipe,
            ..
        } => alloc::vec![
            Release::Batch(data * micro_batch * pipe),
            Release::Data,
            Release::MicroBatch,
            Release::Pipe,
        ],
        Miss::BatchSplit { .. } => {
            alloc::vec![Release::GlobalBatch, Release::Data, Release::MicroBatch]
        }
        Miss::Budget { .. } => alloc::vec![
            Release::Budget,
            Release::Tensor,
            Release::Pipe,
            Release::Context,
            Release::Data,
        ],
        Miss::Cluster { .. } => alloc::vec![
            Release::Cluster,
            Release::Grow,
            Release::Tensor,
            Release::Pipe,
            Release::Data,
            Release::Context,
        ],
        Miss::Efficiency { .. } => alloc::vec![Release::MinEfficiency],
        Miss::TargetDays { .. } => {
            alloc::vec![
                Release::Target,
                Release::Budget,
                Release::Cluster,
                Release::Grow
            ]
        }
        Miss::Memory { .. } | Miss::Nothing => Vec::new(),
    }
}

/// The search's inputs with one release applied; `None` where the input
/// was not fixed or bounded (nothing to release).
fn apply(
    r: Release,
    c: &Constraints,
    s: &Space,
    methods: &[Method],
) -> Option<(Constraints, Space, bool)> {
    let (mut c2, mut s2) = (*c, *s);
    let mut all_methods = false;
    match r {
        Release::Recompute => {
            s.recompute?;
            s2.recompute = None;
        }
        Release::ZeroR => {
            s.zero_r?;
            s2.zero_r = None;
        }
        Release::Zero => {
            s.zero?;
            s2.zero = None;
        }
        Release::SequenceParallel => {
            s.sequence_parallel?;
            s2.sequence_parallel = None;
        }
        Release::MicroBatch => {
            s.micro_batch?;
            s2.micro_batch = None;
        }
        Release::VirtualStages => {
            s.virtual_stages?;
            s2.virtual_stages = None;
        }
        Release::Schedule => {
            s.pipeline_schedule?;
            s2.pipeline_schedule = None;
        }
        Release::Method => {
            if methods.len() != 1 {
                return None;
            }
            all_methods = true;
        }
        Release::Pipe => {
            s.pipe?;
            s2.pipe = None;
        }
        Release::Tensor => {
            c.tensor?;
            c2.tensor = None;
        }
        Release::Context => {
            s.context?;
            s2.context = None;
        }
        Release::Expert => {
            s.expert?;
            s2.expert = None;
        }
        Release::Data => {
            s.data?;
            s2.data = None;
        }
        Release::GlobalBatch => {
            s.global_batch?;
            s2.global_batch = None;
        }
        Release::Batch(b) => {
            if s.global_batch.is_some() {
                s2.global_batch = Some(b);
            } else {
                c2.batch = Some(b);
            }
        }
        Release::BatchLimit => {
            c.batch?;
            c2.batch = None;
        }
        Release::Cluster => {
            // The cluster's size as a budget: a plan on at most as many.
            c2.max_gpus = Some(c.exact_gpus?);
            c2.exact_gpus = None;
        }
        Release::Grow => {
            c.exact_gpus?;
            c2.exact_gpus = None;
            c2.max_gpus = None;
            // The fewest GPUs that have a plan, as for a budget.
            if c2.target_days.is_none() {
                c2.target_days = Some(FOREVER_DAYS);
            }
        }
        Release::Budget => {
            c.max_gpus?;
            c2.max_gpus = None;
            // The smallest budget that has a plan: the fewest GPUs (the
            // objective of a target time, here one every plan meets).
            if c2.target_days.is_none() {
                c2.target_days = Some(FOREVER_DAYS);
            }
        }
        Release::Target => {
            c.target_days?;
            c2.target_days = None;
        }
        Release::MinEfficiency => {
            if c.min_efficiency <= 0.0 {
                return None;
            }
            c2.min_efficiency = 0.0;
        }
    }
    Some((c2, s2, all_methods))
}

/// The change a release made, with the value the plan found takes.
fn change(r: Release, s: &Space, plan: &crate::cost::Evaluation) -> Change {
    let cfg = &plan.config;
    match r {
        Release::Recompute => Change::Recompute(cfg.activation),
        Release::ZeroR => Change::ZeroR(cfg.zero_r),
        Release::Zero => Change::Zero(crate::cost::step::zero_of(cfg)),
        Release::SequenceParallel => Change::SequenceParallel(cfg.sequence_parallel),
        Release::MicroBatch => Change::MicroBatch(cfg.micro_batch),
        Release::VirtualStages => Change::VirtualStages(cfg.virtual_stages),
        Release::Schedule => Change::Schedule(cfg.pipeline_schedule),
        Release::Method => Change::Method(cfg.method),
        Release::Pipe => Change::Pipe(cfg.pipe),
        Release::Tensor => Change::Tensor(cfg.tensor),
        Release::Context => Change::Context(cfg.context),
        Release::Expert => Change::Expert(cfg.expert),
        Release::Data => Change::Data(cfg.data),
        Release::GlobalBatch => Change::GlobalBatch(cfg.batch()),
        Release::Batch(b) if s.global_batch.is_some() => Change::GlobalBatch(b),
        Release::Batch(b) => Change::BatchLimit(b),
        Release::BatchLimit => Change::BatchLimit(cfg.batch()),
        Release::Cluster | Release::Grow => Change::Cluster(plan.gpus),
        Release::Budget => Change::Budget(plan.gpus),
        Release::Target => Change::NoTarget,
        Release::MinEfficiency => Change::NoMinEfficiency,
    }
}

/// Why [`super::practice_methods`] has no plan for these inputs: the
/// [`Error::NoPlan`] it returns with its [`Why`] filled in. Call it only
/// after the search failed (it searches again, a few times).
#[must_use]
pub fn explain(
    model: &ModelShape,
    hw: &Hardware,
    par: Parallelism,
    c: &Constraints,
    space: &Space,
    a: &Assumptions,
    methods: &[Method],
) -> Error {
    let source = if space.global_batch.is_some() {
        BatchSource::Global
    } else if c.batch.is_some() {
        BatchSource::Limit
    } else {
        BatchSource::Law
    };
    let mut rec = Recorder::new(source);
    let _ = search_methods(model, hw, par, c, space, a, methods, &mut rec);
    let miss = rec.closest();
    let found = |r: Release| -> Option<Fix> {
        let (c2, s2, all) = apply(r, c, space, methods)?;
        let ms: &[Method] = if all {
            &super::PRACTICE_METHODS
        } else {
            methods
        };
        let mut off = Recorder::OFF;
        let plan = search_methods(model, hw, par, &c2, &s2, a, ms, &mut off).ok()?;
        let e = &plan.best.evaluation;
        Some(Fix {
            change: change(r, space, e),
            gpus: u32::try_from(e.gpus).unwrap_or(u32::MAX),
            days: e.time.days() as f32,
            heaviest: e.peak_memory.0,
            have: hw.gpu.memory.0,
            or: None,
        })
    };
    let mut tried: Vec<Release> = Vec::new();
    let mut fix = None;
    let mut first = None;
    for r in first_for(&miss).into_iter().chain(ORDER) {
        if tried.contains(&r) {
            continue;
        }
        tried.push(r);
        if let Some(f) = found(r) {
            fix = Some(f);
            first = Some(r);
            break;
        }
    }
    // Today's batch is plan3d's choice, the cluster the user's: where the
    // fix raised the law's batch for an exact cluster, the same batch on
    // at most that cluster is said too (Llama 3.1 8B on exactly 16 384
    // H100s: a batch four times the law's, or 4 096 GPUs at the law's).
    if let (Some(Release::Batch(_)), BatchSource::Law, Some(f), true) =
        (first, source, fix.as_mut(), c.exact_gpus.is_some())
    {
        f.or = found(Release::Cluster).and_then(|o| {
            Some(crate::no_plan::Fewer {
                gpus: core::num::NonZeroU32::new(o.gpus)?,
                days: o.days,
            })
        });
    }
    let unsplit = !a.framework.model_parallel()
        && a.set == crate::cost::assumptions::AssumptionSet::Practice
        && c.tensor.is_none()
        && space.pipe.is_none();
    Error::NoPlan {
        reason: if unsplit {
            super::NO_PLAN_UNSPLIT
        } else {
            NO_PLAN_CONSTRAINTS
        },
        why: Some(Why { miss, fix }),
    }
}

/// [`super::practice_methods`], explained when it has no plan
/// ([`explain`]).
///
/// # Errors
///
/// As [`super::practice_methods`], a "no plan" with its [`Why`].
pub fn practice_explained(
    model: &ModelShape,
    hw: &Hardware,
    par: Parallelism,
    c: &Constraints,
    space: &Space,
    a: &Assumptions,
    methods: &[Method],
) -> Result<SearchResult, Error> {
    match super::practice_methods(model, hw, par, c, space, a, methods) {
        Err(Error::NoPlan { why: None, .. }) => Err(explain(model, hw, par, c, space, a, methods)),
        other => other,
    }
}
