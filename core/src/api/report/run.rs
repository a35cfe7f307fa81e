//! ZeRO's model states, PTD-P's estimate and the whole run (`plan3d
//! zero`, `plan3d estimate`, `plan3d run`).

#[allow(clippy::wildcard_imports)]
use super::*;

/// `plan3d zero`: model-state memory per device under ZeRO.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ZeroReport {
    /// Parameters, bytes per device.
    pub params_bytes: f64,
    /// Gradients, bytes per device.
    pub grads_bytes: f64,
    /// Optimizer state, bytes per device.
    pub optimizer_bytes: f64,
    /// All three.
    pub total_bytes: f64,
    /// Communication per step, parameters.
    pub comm_volume_elements: f64,
}

/// `plan3d estimate`: training time from tokens and throughput.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EstimateReport {
    /// Seconds.
    pub seconds: f64,
    /// Days.
    pub days: f64,
}

/// Hours lost over the run.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LostHoursReport {
    /// Waiting for checkpoints.
    pub checkpoints: f64,
    /// Work since the last checkpoint, redone after interruptions.
    pub recompute: f64,
    /// Restarting after interruptions.
    pub restarts: f64,
}

/// One phase of the batch ramp.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PhaseReport {
    /// Tokens trained when it starts.
    pub start_tokens: f64,
    /// Tokens it trains.
    pub tokens: f64,
    /// Global batch, tokens.
    pub batch_tokens: f64,
    /// Micro-batches per step and data-parallel rank.
    pub micro_batches: u32,
    /// One step, seconds.
    pub step_seconds: f64,
    /// Steps.
    pub steps: f64,
    /// Ideal days.
    pub days: f64,
}

/// `plan3d run`: the plan, and its whole run.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunReport {
    /// The plan (`plan`'s fields).
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub plan: PlanReport,
    /// Days of training with nothing lost.
    pub ideal_days: f64,
    /// Wall-clock days: checkpoints, interruptions and restarts included.
    pub wall_days: f64,
    /// Ideal over wall time (the effective training-time fraction).
    pub goodput: f64,
    /// GPU-hours of the wall time.
    pub gpu_hours: f64,
    /// Nodes.
    pub nodes: u64,
    /// Steps of the run.
    pub run_steps: f64,
    /// Bytes of one checkpoint.
    pub checkpoint_bytes: f64,
    /// Seconds the run waits for one checkpoint.
    pub checkpoint_seconds: f64,
    /// Steps between checkpoints (Young–Daly).
    pub checkpoint_interval_steps: f64,
    /// Mean time between interruptions of the cluster, hours.
    pub mtbi_hours: f64,
    /// Expected interruptions.
    pub expected_interruptions: f64,
    /// Hours lost.
    pub lost_hours: LostHoursReport,
    /// US dollars.
    pub cost: f64,
    /// The price used, US dollars per GPU-hour.
    pub price_per_gpu_hour: f64,
    /// Energy at the wall plug, MWh.
    pub energy_mwh: f64,
    /// Tonnes of CO₂ (when a grid intensity is given).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub co2_tonnes: Option<f64>,
    /// The phases of the batch ramp (one without a ramp).
    pub phases: Vec<PhaseReport>,
    /// Corrections made to the inputs, in words.
    pub notes: Vec<String>,
}

impl RunReport {
    /// The report of `run` for the plan `plan`.
    #[must_use]
    pub fn new(plan: PlanReport, r: &crate::run::Run) -> Self {
        let h = |s: f64| s / 3600.0;
        Self {
            plan,
            ideal_days: r.ideal_days(),
            wall_days: r.wall_days(),
            goodput: r.goodput,
            gpu_hours: r.gpu_hours,
            nodes: r.nodes,
            run_steps: r.steps,
            checkpoint_bytes: r.checkpoint_bytes,
            checkpoint_seconds: r.checkpoint_seconds,
            checkpoint_interval_steps: r.checkpoint_interval_steps,
            mtbi_hours: h(r.mtbi_seconds),
            expected_interruptions: r.expected_interruptions,
            lost_hours: LostHoursReport {
                checkpoints: h(r.lost.checkpoints),
                recompute: h(r.lost.recompute),
                restarts: h(r.lost.restarts),
            },
            cost: r.cost,
            price_per_gpu_hour: r.price_per_gpu_hour,
            energy_mwh: r.energy_mwh,
            co2_tonnes: r.co2_tonnes,
            phases: r
                .phases
                .iter()
                .map(|p| PhaseReport {
                    start_tokens: p.start_tokens,
                    tokens: p.tokens,
                    batch_tokens: p.batch_tokens,
                    micro_batches: p.micro_batches,
                    step_seconds: p.step_seconds,
                    steps: p.steps,
                    days: p.seconds / 86_400.0,
                })
                .collect(),
            notes: r.notes.clone(),
        }
    }
}
