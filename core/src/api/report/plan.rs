//! Searches: the plan, the rules' plans, the Pareto front and size
//! sweeps (`plan3d plan`, `plan3d sweep`).

#[allow(clippy::wildcard_imports)]
use super::*;

/// A configuration on the Pareto front.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParetoPoint {
    /// The method.
    pub method: String,
    /// GPUs.
    pub gpus: u64,
    /// Training time, days.
    pub days: f64,
    /// Efficiency.
    pub efficiency: f64,
    /// Memory that stays on the GPU, bytes.
    pub memory_bytes: f64,
    /// Data-parallel degree.
    pub data: u32,
    /// Pipeline-parallel degree.
    pub pipe: u32,
    /// Tensor-parallel degree.
    pub tensor: u32,
    /// Micro-batch size.
    pub micro_batch: u32,
    /// Micro-batches.
    pub micro_batches: u32,
    /// Offloaded.
    pub offload: bool,
}

impl From<&Evaluation> for ParetoPoint {
    fn from(e: &Evaluation) -> Self {
        let c = &e.config;
        Self {
            method: c.method.name().to_string(),
            gpus: e.gpus,
            days: e.time.days(),
            efficiency: e.efficiency,
            memory_bytes: e.memory.on_gpu(c.offload).get(),
            data: c.data,
            pipe: c.pipe,
            tensor: c.tensor,
            micro_batch: c.micro_batch,
            micro_batches: c.micro_batches,
            offload: c.offload,
        }
    }
}

/// The rules' plan against the exhaustive optimum.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RulesReport {
    /// The rules' method.
    pub method: String,
    /// GPUs.
    pub gpus: u64,
    /// Training time, days.
    pub days: f64,
    /// Efficiency.
    pub efficiency: f64,
    /// Rules' time over the optimum's.
    pub slowdown: f64,
    /// Rules' GPUs over the optimum's.
    pub gpu_ratio: f64,
    /// The rules reach the optimum in the search's objective.
    pub optimal: bool,
}

/// `plan3d plan`: a plan, why, and (exhaustive) the front and the rules.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlanReport {
    /// The plan's evaluation.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub evaluation: EvaluationReport,
    /// The parallelism setting.
    pub parallelism: String,
    /// `rules` or `exhaustive`.
    pub search: String,
    /// Each constraint that sets a value, with its equation.
    pub binding: Vec<String>,
    /// (Exhaustive) configurations evaluated.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub evaluated: Option<u64>,
    /// (Exhaustive) the front over time, GPUs and memory, fastest first.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub pareto: Option<Vec<ParetoPoint>>,
    /// (Exhaustive) the rules' plan for the same method.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub rules: Option<RulesReport>,
    /// (Practice) the whole run's wall clock, days: the training time
    /// with the checkpoints, the work redone after interruptions and the
    /// restarts of Young's model, as `plan3d run` costs them (the search's
    /// objective, [`crate::run::Objective`]; `plan`'s defaults, the
    /// `run` request's settings). Absent under paper, and where the run
    /// never finishes (`goodput` 0).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub wall_days: Option<f64>,
    /// (Practice) the training time over the wall clock: the share of the
    /// run that trains (0: interruptions come faster than a checkpoint
    /// and a restart can keep up with).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub goodput: Option<f64>,
}

impl PlanReport {
    /// The report of a plan found by `search` (`rules` or `exhaustive`).
    #[must_use]
    pub fn new(p: &Plan, hw: &Hardware, search: &str) -> Self {
        Self {
            evaluation: EvaluationReport::new(&p.evaluation, hw),
            parallelism: p.parallelism.name().to_string(),
            search: search.to_string(),
            binding: p.binding.iter().map(ToString::to_string).collect(),
            evaluated: None,
            pareto: None,
            rules: None,
            wall_days: None,
            goodput: None,
        }
    }

    /// This report with the whole run's wall clock under the practice
    /// search's objective `o` ([`Self::wall_days`], [`Self::goodput`]).
    #[must_use]
    pub fn with_wall_clock(self, p: &Plan, o: &crate::run::Objective) -> Self {
        let wall = o.seconds(&p.evaluation);
        Self {
            wall_days: wall.is_finite().then_some(wall / 86_400.0),
            goodput: Some(if wall.is_finite() && wall > 0.0 {
                p.evaluation.time.0 / wall
            } else {
                0.0
            }),
            ..self
        }
    }

    /// The report of an exhaustive search, with its front and the rules'
    /// plan where the rules have one.
    #[must_use]
    pub fn exhaustive(
        r: &SearchResult,
        hw: &Hardware,
        front: &[Evaluation],
        rules: Option<RulesReport>,
    ) -> Self {
        Self {
            evaluated: Some(r.evaluated),
            pareto: Some(front.iter().map(ParetoPoint::from).collect()),
            rules,
            ..Self::new(&r.best, hw, "exhaustive")
        }
    }
}

/// One row of a size sweep; the plan's fields are null where a size has
/// no plan, and `error` says why.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SweepRowReport {
    /// The X\[x\] model (0 for other scalings).
    pub x: u32,
    /// Parameters.
    pub params: f64,
    /// Layers.
    pub layers: u32,
    /// Width.
    pub d_model: u64,
    /// GPUs.
    pub gpus: Option<u64>,
    /// Training time, days.
    pub days: Option<f64>,
    /// Efficiency.
    pub efficiency: Option<f64>,
    /// Offloaded.
    pub offload: Option<bool>,
    /// Offloadable memory per GPU, bytes.
    pub offloadable: Option<f64>,
    /// Non-offloadable memory per GPU, bytes.
    pub non_offloadable: Option<f64>,
    /// Data-parallel degree.
    pub data: Option<u32>,
    /// Pipeline-parallel degree.
    pub pipe: Option<u32>,
    /// Tensor-parallel degree.
    pub tensor: Option<u32>,
    /// Batch, sequences.
    pub batch: Option<u64>,
    /// Micro-batch size.
    pub micro_batch: Option<u32>,
    /// Micro-batches.
    pub micro_batches: Option<u32>,
    /// Why this size has no plan.
    pub error: Option<String>,
}

impl From<&SweepRow> for SweepRowReport {
    fn from(r: &SweepRow) -> Self {
        let e = r.plan.as_ref().ok().map(|p| &p.evaluation);
        let c = e.map(|e| &e.config);
        Self {
            x: r.x,
            params: r.params,
            layers: r.model.layers,
            d_model: r.model.width(),
            gpus: e.map(|e| e.gpus),
            days: e.map(|e| e.time.days()),
            efficiency: e.map(|e| e.efficiency),
            offload: c.map(|c| c.offload),
            offloadable: e.map(|e| e.memory.offloadable().get()),
            non_offloadable: e.map(|e| e.memory.non_offloadable().get()),
            data: c.map(|c| c.data),
            pipe: c.map(|c| c.pipe),
            tensor: c.map(|c| c.tensor),
            batch: e.map(|e| e.batch),
            micro_batch: c.map(|c| c.micro_batch),
            micro_batches: c.map(|c| c.micro_batches),
            error: r.plan.as_ref().err().map(ToString::to_string),
        }
    }
}
