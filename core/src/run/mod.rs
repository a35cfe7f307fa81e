//! The whole run of a plan: tokens to days (with a batch ramp), what
//! failures and checkpoints cost (goodput), GPU-hours, money and energy.
//!
//! The step time of each phase comes from [`crate::cost::evaluate_with`];
//! everything else here is arithmetic on it, each formula with its source:
//!
//! ```text
//! T      = Σ_phases steps_i · step_i                      ideal time
//! M      = 1 / (r · n_gpu)                                mean time between interruptions
//! C      = state bytes / (B_node · nodes)                 checkpoint (blocking: the
//!          or a snapshot to host memory when asynchronous   part the run waits for)
//! W(τ)   = T · (1 + C/τ) / (1 − (τ/2 + R) / M)            wall time, first order
//! τ      = the whole number of steps (≥ 1) minimizing W,
//!          next to √(C² + 2C(M − R)) − C ≈ √(2 · C · M)    Young 1974, Daly 2006
//! N      = W / M                                          expected interruptions
//! lost   = T·C/τ (checkpoints) + N·τ/2 (work redone) + N·R (restarts)
//! goodput = T / W
//! energy = (n_gpu · P_gpu + nodes · P_node) · W · PUE
//! cost   = n_gpu · W · price per GPU-hour
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use crate::cost::{evaluate_with, Assumptions, Config, Evaluation};
use crate::error::{check_range, Error};
use crate::hardware::{Gpu, Hardware, Link};
use crate::math;
use crate::model::ModelShape;

mod failures;

pub use failures::{
    optimal_interval, wall_time, Failures, Objective, CHECKPOINT_BYTES_PER_S_PER_NODE,
    INTERRUPTIONS_PER_GPU_HOUR, RESTART_SECONDS,
};

/// Power usage effectiveness by default: 1.2 (an assumption; large
/// operators report 1.1–1.2).
pub const PUE: f64 = 1.2;

/// Power of a node's CPUs, NICs, fans and storage per GPU slot by default,
/// watts: a DGX H100 draws 10.2 kW at most with 8 × 700 W of GPUs, which
/// leaves 575 W per GPU.
pub const NODE_WATTS_PER_GPU: f64 = (10_200.0 - 8.0 * 700.0) / 8.0;

/// A GPU's board power, watts (the vendors' data sheets: A100 SXM 400 W,
/// H100 and H200 SXM 700 W, B200 1000 W, GB200's Blackwell GPU 1200 W,
/// B300 1100 W (HGX B300; NVIDIA's DGX B300 caps it at 1000 W), GB300's
/// 1400 W).
#[must_use]
pub fn board_watts(gpu: &Gpu) -> f64 {
    match gpu.name {
        "a100-80gb" | "a100-40gb" => 400.0,
        "h100-sxm" | "h200" => 700.0,
        "h100-96gb-500w" => 500.0,
        "b200" => 1000.0,
        "b300" => 1100.0,
        "gb200" => 1200.0,
        "gb300" => 1400.0,
        _ => 700.0,
    }
}

/// Price per GPU-hour by default, US dollars: typical on-demand cloud
/// prices of late 2025 (an assumption: contracts differ by 2×; give your
/// own). A100 40 GB 1.30, A100 80 GB 1.80, H100 2.50, H200 3.50, B200 5.00,
/// GB200 6.00; B300 6.00 and GB300 7.00, a step above their predecessors
/// (a guess: few clouds listed them in 2025).
#[must_use]
pub fn default_price(gpu: &Gpu) -> f64 {
    match gpu.name {
        "a100-40gb" => 1.30,
        "a100-80gb" => 1.80,
        "h100-sxm" => 2.50,
        "h200" => 3.50,
        "b200" => 5.00,
        "gb200" | "b300" => 6.00,
        "gb300" => 7.00,
        _ => 2.50,
    }
}

/// One phase of a batch ramp: from `start_tokens` trained tokens on, a
/// global batch of `batch_tokens` tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RampStep {
    /// Where the phase starts, tokens trained.
    pub start_tokens: f64,
    /// Its global batch, tokens.
    pub batch_tokens: f64,
}

/// Parses a batch ramp, `TOKENS:BATCH,...`: each phase starts at TOKENS
/// trained tokens with a global batch of BATCH tokens. Numbers take the
/// suffixes k, M, G or B, T (10³ … 10¹²), Ki … Ti (2¹⁰ … 2⁴⁰) or an
/// exponent (`2.87e12`). Llama 3 405B: `0:4Mi,252M:8Mi,2.87T:16Mi`.
///
/// # Errors
///
/// A malformed entry, a non-positive batch, or starts that do not begin
/// at 0 and increase.
pub fn parse_ramp(text: &str) -> Result<Vec<RampStep>, String> {
    let mut out: Vec<RampStep> = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (start, batch) = entry
            .split_once(':')
            .ok_or_else(|| alloc::format!("batch ramp entry '{entry}' is not TOKENS:BATCH"))?;
        let start = crate::units::parse_count(start).ok_or_else(|| {
            alloc::format!(
                "batch ramp start '{start}' is not a number {}",
                crate::units::COUNT_FORMS
            )
        })?;
        let batch = crate::units::parse_count(batch).ok_or_else(|| {
            alloc::format!(
                "batch ramp batch '{batch}' is not a number {}",
                crate::units::COUNT_FORMS
            )
        })?;
        if batch < 1.0 {
            return Err(alloc::format!(
                "batch ramp batch {batch} tokens is not positive"
            ));
        }
        // The bounds of a training run (the token budget's, 1e18) and of a
        // step (1e15 tokens, a thousand times DeepSeek-V3's largest batch).
        if start > MAX_RAMP_START {
            return Err(alloc::format!(
                "batch ramp start {start} tokens is above 1e18"
            ));
        }
        if batch > MAX_RAMP_BATCH {
            return Err(alloc::format!(
                "batch ramp batch {batch} tokens is above 1e15"
            ));
        }
        // A phase starts at 0 or after some whole token.
        if start != 0.0 && start < 1.0 {
            return Err(alloc::format!(
                "batch ramp start {start} tokens is below 1 (a phase starts at 0 or after a token)"
            ));
        }
        if out.last().is_some_and(|l| start <= l.start_tokens) {
            return Err("batch ramp starts must increase".into());
        }
        out.push(RampStep {
            start_tokens: start,
            batch_tokens: batch,
        });
    }
    match out.first() {
        None => Err("the batch ramp is empty".into()),
        Some(f) if f.start_tokens != 0.0 => Err("the batch ramp must start at 0 tokens".into()),
        Some(_) => Ok(out),
    }
}

/// The latest start a ramp phase may have, in tokens (the token budget's
/// bound).
pub const MAX_RAMP_START: f64 = 1e18;
// The messages above write these bounds as text: `{:e}` would bring the
// exponent formatting code into the page (~1 KB of gzipped wasm).
const _: () = assert!(MAX_RAMP_START == 1e18 && MAX_RAMP_BATCH == 1e15);
/// The largest batch a ramp phase may have, in tokens.
pub const MAX_RAMP_BATCH: f64 = 1e15;

/// The most phases a ramp on the page holds.
pub const MAX_RAMP: usize = 4;

/// A ramp of at most [`MAX_RAMP`] phases, as the page keeps it.
pub type PageRamp = [Option<RampStep>; MAX_RAMP];

/// [`parse_ramp`] into a [`PageRamp`].
///
/// # Errors
///
/// As [`parse_ramp`], or more than [`MAX_RAMP`] phases.
pub fn page_ramp(text: &str) -> Result<PageRamp, String> {
    let v = parse_ramp(text)?;
    if v.len() > MAX_RAMP {
        return Err(alloc::format!("a batch ramp of at most {MAX_RAMP} phases"));
    }
    let mut out = [None; MAX_RAMP];
    for (slot, r) in out.iter_mut().zip(v) {
        *slot = Some(r);
    }
    Ok(out)
}

/// A ramp as [`parse_ramp`] reads it, each count with the largest exact
/// suffix (`0:4Mi,252M:8Mi,2870B:16Mi`).
#[must_use]
pub fn ramp_text(ramp: &[Option<RampStep>]) -> String {
    use core::fmt::Write as _;
    let count = |x: f64| -> String {
        let exact = |unit: f64| x >= unit && math::floor(x / unit) * unit == x;
        for (unit, suffix) in [
            (1_099_511_627_776.0, "Ti"),
            (1e12, "T"),
            (1_073_741_824.0, "Gi"),
            (1e9, "B"),
            (1_048_576.0, "Mi"),
            (1e6, "M"),
            (1024.0, "Ki"),
            (1e3, "k"),
        ] {
            if exact(unit) {
                return alloc::format!("{}{suffix}", x / unit);
            }
        }
        alloc::format!("{x}")
    };
    let mut out = String::new();
    for (k, r) in ramp.iter().flatten().enumerate() {
        if k > 0 {
            out.push(',');
        }
        let _ = write!(out, "{}:{}", count(r.start_tokens), count(r.batch_tokens));
    }
    out
}

/// What the run assumes beyond the plan.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunSettings {
    /// The batch ramp; empty: the plan's batch throughout.
    pub ramp: Vec<RampStep>,
    /// US dollars per GPU-hour; `None`: [`default_price`].
    pub price_per_gpu_hour: Option<f64>,
    /// Interruptions per GPU-hour ([`INTERRUPTIONS_PER_GPU_HOUR`]).
    pub interruptions_per_gpu_hour: f64,
    /// Checkpoint write bandwidth per node, bytes/s
    /// ([`CHECKPOINT_BYTES_PER_S_PER_NODE`]).
    pub checkpoint_bytes_per_s: f64,
    /// Asynchronous checkpointing: the run waits only for a snapshot of
    /// each GPU's state to host memory.
    pub async_checkpoint: bool,
    /// Seconds from an interruption to training again ([`RESTART_SECONDS`]).
    pub restart_seconds: f64,
    /// Power usage effectiveness ([`PUE`]).
    pub pue: f64,
    /// Watts per node besides the GPUs; `None`: [`NODE_WATTS_PER_GPU`] per
    /// GPU of the node.
    pub node_watts: Option<f64>,
    /// kg of CO₂ per kWh of the grid; `None`: no CO₂ figure.
    pub grid_kg_per_kwh: Option<f64>,
}

impl Default for RunSettings {
    fn default() -> Self {
        Self {
            ramp: Vec::new(),
            price_per_gpu_hour: None,
            interruptions_per_gpu_hour: INTERRUPTIONS_PER_GPU_HOUR,
            checkpoint_bytes_per_s: CHECKPOINT_BYTES_PER_S_PER_NODE,
            async_checkpoint: false,
            restart_seconds: RESTART_SECONDS,
            pue: PUE,
            node_watts: None,
            grid_kg_per_kwh: None,
        }
    }
}

impl RunSettings {
    /// What of these settings the wall time depends on.
    #[must_use]
    pub fn failures(&self) -> Failures {
        Failures {
            interruptions_per_gpu_hour: self.interruptions_per_gpu_hour,
            checkpoint_bytes_per_s: self.checkpoint_bytes_per_s,
            async_checkpoint: self.async_checkpoint,
            restart_seconds: self.restart_seconds,
        }
    }

    /// Checks every number (finite, in a sensible range).
    ///
    /// # Errors
    ///
    /// The first value out of range, named.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(p) = self.price_per_gpu_hour {
            check_range("price per GPU-hour", p, 0.0, 1e6)?;
        }
        check_range(
            "interruptions per GPU-hour",
            self.interruptions_per_gpu_hour,
            0.0,
            1.0,
        )?;
        check_range(
            "checkpoint bandwidth (bytes/s per node)",
            self.checkpoint_bytes_per_s,
            1e3,
            1e15,
        )?;
        check_range("restart time (s)", self.restart_seconds, 0.0, 1e7)?;
        check_range("PUE", self.pue, 1.0, 10.0)?;
        if let Some(w) = self.node_watts {
            check_range("node power (W)", w, 0.0, 1e7)?;
        }
        if let Some(g) = self.grid_kg_per_kwh {
            check_range("grid intensity (kg CO2/kWh)", g, 0.0, 10.0)?;
        }
        Ok(())
    }
}

/// One phase of the run at one global batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phase {
    /// Tokens trained when it starts.
    pub start_tokens: f64,
    /// Tokens it trains.
    pub tokens: f64,
    /// Its global batch, tokens (a whole number of micro-batches per
    /// data-parallel rank).
    pub batch_tokens: f64,
    /// Micro-batches per step and data-parallel rank.
    pub micro_batches: u32,
    /// One step, seconds.
    pub step_seconds: f64,
    /// Steps.
    pub steps: f64,
    /// Ideal seconds: steps × step.
    pub seconds: f64,
}

/// Time lost, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lost {
    /// Writing checkpoints (the blocking part).
    pub checkpoints: f64,
    /// Work since the last checkpoint, redone after each interruption.
    pub recompute: f64,
    /// Restarting after each interruption.
    pub restarts: f64,
}

impl Lost {
    /// All of it.
    #[must_use]
    pub fn total(&self) -> f64 {
        self.checkpoints + self.recompute + self.restarts
    }
}

/// The whole run of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The phases of the batch ramp (one without a ramp).
    pub phases: Vec<Phase>,
    /// Training tokens.
    pub tokens: f64,
    /// Steps, all phases.
    pub steps: f64,
    /// Ideal time, seconds: every step, nothing lost.
    pub ideal_seconds: f64,
    /// Wall-clock time, seconds.
    pub wall_seconds: f64,
    /// Ideal over wall time.
    pub goodput: f64,
    /// GPUs.
    pub gpus: u64,
    /// Nodes.
    pub nodes: u64,
    /// GPU-hours of the wall time.
    pub gpu_hours: f64,
    /// Mean time between interruptions of the whole cluster, seconds.
    pub mtbi_seconds: f64,
    /// Expected interruptions.
    pub expected_interruptions: f64,
    /// Bytes of one checkpoint (weights and optimizer state, once).
    pub checkpoint_bytes: f64,
    /// Seconds the run waits for one checkpoint.
    pub checkpoint_seconds: f64,
    /// Steps between checkpoints.
    pub checkpoint_interval_steps: f64,
    /// Seconds between checkpoints.
    pub checkpoint_interval_seconds: f64,
    /// Time lost.
    pub lost: Lost,
    /// Seconds from an interruption to training again.
    pub restart_seconds: f64,
    /// US dollars.
    pub cost: f64,
    /// The price used, per GPU-hour.
    pub price_per_gpu_hour: f64,
    /// Energy, MWh (at the wall plug, PUE included).
    pub energy_mwh: f64,
    /// Tonnes of CO₂, when a grid intensity is given.
    pub co2_tonnes: Option<f64>,
    /// Corrections made to the inputs, in words.
    pub notes: Vec<String>,
}

impl Run {
    /// Ideal days.
    #[must_use]
    pub fn ideal_days(&self) -> f64 {
        self.ideal_seconds / 86_400.0
    }
    /// Wall-clock days.
    #[must_use]
    pub fn wall_days(&self) -> f64 {
        self.wall_seconds / 86_400.0
    }
}

/// The whole run of `cfg` for `tokens` tokens (the knobs `a` give the step
/// time, and the run length when `tokens` is `None`).
///
/// # Errors
///
/// Invalid inputs (the evaluator's, or a setting out of range), a ramp
/// batch that the plan cannot run, or interruptions so frequent that the
/// run never finishes.
pub fn run(
    model: &ModelShape,
    hw: &Hardware,
    cfg: &Config,
    a: &Assumptions,
    s: &RunSettings,
) -> Result<Run, Error> {
    s.validate()?;
    let base = evaluate_with(model, hw, cfg, a)?;
    let tokens = base.tokens;
    let seq = f64::from(model.seq_len);
    let per_mb = f64::from(cfg.data) * f64::from(cfg.micro_batch) * seq;
    let mut notes = Vec::new();
    let ramp: Vec<RampStep> = if s.ramp.is_empty() {
        alloc::vec![RampStep {
            start_tokens: 0.0,
            batch_tokens: base.batch as f64 * seq,
        }]
    } else {
        s.ramp.clone()
    };
    let mut phases = Vec::new();
    for (i, r) in ramp.iter().enumerate() {
        if r.start_tokens >= tokens {
            notes.push(alloc::format!(
                "the batch ramp's phase from {} tokens starts after the run's {} tokens: \
                 not used",
                math::round_sig(r.start_tokens, 3),
                math::round_sig(tokens, 3)
            ));
            continue;
        }
        let end = ramp
            .get(i + 1)
            .map_or(tokens, |n| n.start_tokens.min(tokens));
        let m = math::round(r.batch_tokens / per_mb).max(1.0);
        let micro_batches = check_range("micro-batches of a ramp phase", m, 1.0, 1.6e7)? as u32;
        let batch_tokens = f64::from(micro_batches) * per_mb;
        if (batch_tokens - r.batch_tokens).abs() > 0.5 {
            notes.push(alloc::format!(
                "a batch of {} tokens is not a whole number of micro-batches of {} tokens \
                 per data-parallel rank: {} tokens are used",
                math::round_sig(r.batch_tokens, 4),
                math::round_sig(per_mb / f64::from(cfg.data), 4),
                math::round_sig(batch_tokens, 4)
            ));
        }
        let phase_cfg = Config {
            micro_batches,
            ..*cfg
        };
        // DualPipe needs an even m ≥ 2p, ZB-V m ≥ 2p − 1: a phase of a
        // small batch runs ZB-H1, their nearest schedule, and says so.
        let s = cfg.pipeline_schedule;
        let e: Evaluation = if cfg.pipe > 1 && !s.fits_micro_batches(cfg.pipe, micro_batches) {
            let name = if s == crate::cost::PipelineSchedule::DualPipe {
                "DualPipe"
            } else {
                "ZB-V"
            };
            notes.push(alloc::format!(
                "the batch ramp's phase from {} tokens has {} micro-batches, too few for \
                 {name} over {} stages (it needs {}): that phase runs ZB-H1",
                math::round_sig(r.start_tokens, 3),
                micro_batches,
                cfg.pipe,
                s.micro_batch_need(cfg.pipe),
            ));
            evaluate_with(
                model,
                hw,
                &Config {
                    pipeline_schedule: crate::cost::PipelineSchedule::ZbH1,
                    ..phase_cfg
                },
                a,
            )?
        } else {
            evaluate_with(model, hw, &phase_cfg, a)?
        };
        let steps = (end - r.start_tokens) / batch_tokens;
        phases.push(Phase {
            start_tokens: r.start_tokens,
            tokens: end - r.start_tokens,
            batch_tokens,
            micro_batches,
            step_seconds: e.step.0,
            steps,
            seconds: steps * e.step.0,
        });
    }
    let ideal: f64 = phases.iter().map(|p| p.seconds).sum();
    let steps: f64 = phases.iter().map(|p| p.steps).sum();
    let gpus = base.gpus;
    let node = u64::from(hw.node_size.unwrap_or(hw.gpu.default_node_size).max(1));
    let nodes = gpus.div_ceil(node);
    let f = s.failures();
    let (bw, _, bo) = a.precision.bytes();
    let checkpoint_bytes = model.params_exact() * (bw + bo);
    let c = f.checkpoint_seconds(checkpoint_bytes, nodes, &base, hw.bandwidth(Link::CpuGpu).0);
    let checkpoint_seconds = c;
    let rate = f.rate(gpus);
    let mtbi = if rate > 0.0 {
        1.0 / rate
    } else {
        f64::INFINITY
    };
    let step = if steps > 0.0 { ideal / steps } else { 0.0 };
    let r = s.restart_seconds;
    let Some((wall, tau)) = f.wall(ideal, step, gpus, c) else {
        return Err(Error::Incompatible {
            what: "interruptions come faster than a checkpoint interval and a restart: \
                   the run never finishes (fewer GPUs, faster checkpoints or restarts)",
        });
    };
    let checkpoint_interval_steps = if step > 0.0 {
        math::round(tau / step)
    } else {
        0.0
    };
    let checkpoints = if tau > 0.0 { ideal * c / tau } else { 0.0 };
    let n = wall * rate;
    let lost = Lost {
        checkpoints,
        recompute: n * tau / 2.0,
        restarts: n * r,
    };
    let price = s
        .price_per_gpu_hour
        .unwrap_or_else(|| default_price(&hw.gpu));
    let gpu_hours = gpus as f64 * wall / 3600.0;
    let node_watts = s.node_watts.unwrap_or(NODE_WATTS_PER_GPU * node as f64);
    let watts = gpus as f64 * board_watts(&hw.gpu) + nodes as f64 * node_watts;
    let energy_mwh = watts * wall / 3600.0 * s.pue / 1e6;
    Ok(Run {
        phases,
        tokens,
        steps,
        ideal_seconds: ideal,
        wall_seconds: wall,
        goodput: if wall > 0.0 { ideal / wall } else { 1.0 },
        gpus,
        nodes,
        gpu_hours,
        mtbi_seconds: mtbi,
        expected_interruptions: n,
        checkpoint_bytes,
        checkpoint_seconds,
        checkpoint_interval_steps,
        checkpoint_interval_seconds: tau,
        lost,
        restart_seconds: r,
        cost: gpu_hours * price,
        price_per_gpu_hour: price,
        energy_mwh,
        co2_tonnes: s.grid_kg_per_kwh.map(|g| energy_mwh * 1000.0 * g / 1000.0),
        notes,
    })
}

/// The whole run as a strip of wall-clock time, for a picture: positions
/// are fractions of the wall time (the lost time spread evenly).
#[derive(Clone, Debug, PartialEq)]
pub struct Strip {
    /// Each ramp phase: (start, end, batch in tokens).
    pub phases: Vec<(f64, f64, f64)>,
    /// Expected interruptions, one mark each (or each `per_mark`).
    pub interruptions: Vec<f64>,
    /// Interruptions per mark (1 unless there are more than the marks).
    pub per_mark: u64,
    /// Checkpoints per day of wall time.
    pub checkpoints_per_day: f64,
    /// Checkpoints, one mark each (or each `checkpoints_per_mark`).
    pub checkpoints: Vec<f64>,
    /// Checkpoints per mark.
    pub checkpoints_per_mark: u64,
}

impl Run {
    /// The strip of this run with at most `max_marks` interruption marks.
    #[must_use]
    pub fn strip(&self, max_marks: usize) -> Strip {
        let total = self.ideal_seconds.max(f64::MIN_POSITIVE);
        let mut at = 0.0;
        let phases = self
            .phases
            .iter()
            .map(|p| {
                let start = at / total;
                at += p.seconds;
                (start, at / total, p.batch_tokens)
            })
            .collect();
        let n = math::floor(self.expected_interruptions) as u64;
        let max = (max_marks.max(1)) as u64;
        let per_mark = n.div_ceil(max).max(1);
        let marks = n / per_mark;
        let interruptions = (1..=marks)
            .map(|k| (k * per_mark) as f64 / self.expected_interruptions.max(1.0))
            .filter(|x| *x < 1.0)
            .collect();
        let interval = self.checkpoint_interval_seconds + self.checkpoint_seconds;
        // Checkpoints fall every τ of training: ideal / τ of them.
        let count = if self.checkpoint_interval_seconds > 0.0 {
            math::floor(self.ideal_seconds / self.checkpoint_interval_seconds) as u64
        } else {
            0
        };
        let checkpoints_per_mark = count.div_ceil(max).max(1);
        let checkpoints = (1..=count / checkpoints_per_mark)
            .map(|k| (k * checkpoints_per_mark) as f64 / count.max(1) as f64)
            .filter(|x| *x < 1.0)
            .collect();
        Strip {
            phases,
            interruptions,
            per_mark,
            checkpoints,
            checkpoints_per_mark,
            checkpoints_per_day: if interval > 0.0 {
                86_400.0 / interval * self.goodput
            } else {
                0.0
            },
        }
    }
}
