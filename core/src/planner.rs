//! Everything the planner page shows, computed from its [`Inputs`]: the
//! rules' plan per method, the exhaustive optimum, network needs, the
//! scaling sweep and the schedules. The page only draws these.

use alloc::vec::Vec;

use crate::error::Error;
use crate::evaluate::{Method, TransferKind};
use crate::hardware::{Hardware, Link};
use crate::model::ModelShape;
use crate::schedule::{self, Durations, MemorySizes, Schedule, ScheduleKind, ScheduleSpec};
use crate::search::{self, Constraints, Plan, SearchResult, SweepRow};
use crate::state::{Comparison, Inputs};
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
    /// The rules' plan of each method of [`METHODS`].
    pub plans: Vec<(Method, Result<Plan, Error>)>,
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
}

/// The constraints the inputs set.
#[must_use]
pub fn constraints(inputs: &Inputs) -> Constraints {
    Constraints {
        max_gpus: inputs.max_gpus,
        target_days: inputs.target_days,
        batch: inputs.batch,
        activation: inputs.activation,
        ..Constraints::default()
    }
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
    let plans = METHODS
        .iter()
        .map(|&m| {
            (
                m,
                search::rules(&model, &hardware, m, inputs.parallelism, &c),
            )
        })
        .collect();
    Ok(Outputs {
        model,
        hardware,
        constraints: c,
        plans,
    })
}

/// The exhaustive optimum over every method (up to a few milliseconds: the
/// page computes it just after the plans).
///
/// # Errors
///
/// An invalid model or hardware, or no valid configuration.
pub fn optimum(inputs: &Inputs) -> Result<SearchResult, Error> {
    let model = inputs.model.shape()?;
    let hardware = inputs.hardware();
    search::exhaustive(
        &model,
        &hardware,
        None,
        inputs.parallelism,
        &constraints(inputs),
    )
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

/// Largest schedule simulated for the page; bigger plans are shown with
/// their micro-batches scaled down (the same pipeline, a smaller batch).
pub const MAX_PAGE_OPS: u64 = 60_000;

/// The schedule of a plan, with the cost model's durations: the baseline's
/// standard pipeline as 1F1B, the improved method's modular pipeline (or
/// layered accumulation without a pipeline), gradient accumulation
/// otherwise.
///
/// # Errors
///
/// A plan the schedules cannot express.
pub fn plan_schedule(model: &ModelShape, hw: &Hardware, plan: &Plan) -> Result<Schedule, Error> {
    let c = plan.evaluation.config;
    let layered = c.method.layered();
    let kind = match (layered, c.pipe > 1) {
        (true, true) => ScheduleKind::Modular,
        (true, false) => ScheduleKind::Lga,
        (false, true) => ScheduleKind::OneFOneB,
        (false, false) => ScheduleKind::Ga,
    };
    // Standard pipelines cut the layers into equal stages: use the largest
    // layer count the stages divide.
    let layers = if kind == ScheduleKind::OneFOneB {
        model.layers / c.pipe * c.pipe
    } else {
        model.layers
    };
    let mut nmu = c.micro_batches;
    let ops = |n: u32| 2 * u64::from(layers) * u64::from(n);
    while ops(nmu) > MAX_PAGE_OPS && nmu > c.pipe.max(1) {
        nmu = (nmu / 2).max(c.pipe.max(1));
    }
    let durations = Durations::from_cost_model(
        model,
        hw,
        c.tensor,
        c.micro_batch,
        c.data,
        c.method.partitioned(),
        c.activation,
    )?;
    let mut spec = ScheduleSpec {
        kind,
        devices: c.pipe,
        layers,
        micro_batches: nmu,
        chunks: 1,
        data: c.data,
        partition: c.method.partitioned(),
        offload: c.offload,
        durations,
        memory: MemorySizes::unit(),
    };
    spec.memory = MemorySizes::from_cost_model(model, &spec, c.tensor, c.micro_batch);
    schedule::simulate(&spec)
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
    })
}
