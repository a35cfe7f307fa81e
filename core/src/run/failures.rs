//! What interruptions and checkpoints cost a run (Young 1974's
//! first-order model), and the practice search's objective: the run's
//! wall-clock time, not its ideal training time. Failures grow with the
//! GPUs, so past some size more GPUs finish training sooner but the run
//! later: GPT-3 on every GPU its batch can feed (245 760 A100s) trained
//! in 1.2 days and ran 13 at 9 % goodput.

use crate::cost::{Assumptions, Evaluation};
use crate::hardware::{Hardware, Link};
use crate::math;
use crate::model::ModelShape;

/// Interruptions per GPU-hour by default: Llama 3 405B saw 466 job
/// interruptions (419 unexpected) in a 54-day snapshot on 16 384 H100s
/// (Dubey et al. 2024, arXiv 2407.21783, sec. 3.3.4): 466 / (54 · 24 ·
/// 16 384) = 2.19·10⁻⁵.
pub const INTERRUPTIONS_PER_GPU_HOUR: f64 = 466.0 / (54.0 * 24.0 * 16_384.0);

/// Checkpoint write bandwidth per node by default, bytes/s: Llama 3's
/// Tectonic storage sustains 2 TB/s for up to 16 384 GPUs, 2 048 nodes of
/// 8 (arXiv 2407.21783 sec. 3.1.1): about 1 GB/s per node.
pub const CHECKPOINT_BYTES_PER_S_PER_NODE: f64 = 2e12 / 2048.0;

/// Restart time by default, seconds: re-scheduling, loading the
/// checkpoint and warming up. An assumption (Meta does not publish one):
/// 10 minutes.
pub const RESTART_SECONDS: f64 = 600.0;

/// The wall time of `ideal` seconds of training with a checkpoint of `c`
/// seconds every `tau` seconds of training, interruptions at `rate` per
/// second, each losing half an interval of work on average and `r`
/// seconds of restart (Young 1974's first-order model):
/// W = T·(1 + C/τ) + N·(τ/2 + R) with N = rate·W, so
/// W = T·(1 + C/τ) / (1 − rate·(τ/2 + R)). `None` when interruptions come
/// faster than that (the run never finishes).
#[must_use]
pub fn wall_time(ideal: f64, c: f64, tau: f64, rate: f64, r: f64) -> Option<f64> {
    let exposure = rate * (tau / 2.0 + r);
    if exposure >= 1.0 || exposure.is_nan() || tau <= 0.0 {
        return None;
    }
    Some(ideal * (1.0 + c / tau) / (1.0 - exposure))
}

/// The interval τ that minimizes [`wall_time`]: setting its derivative to
/// zero gives τ² + 2Cτ − 2C(M − R) = 0, τ = √(C² + 2C(M − R)) − C with
/// M = 1/rate, which for C, R ≪ M is Young's (1974) √(2·C·M) (Daly 2006
/// refines the same model).
#[must_use]
pub fn optimal_interval(c: f64, mtbi: f64, r: f64) -> f64 {
    let under = c * c + 2.0 * c * (mtbi - r);
    if under > 0.0 {
        (math::sqrt(under) - c).max(0.0)
    } else {
        0.0
    }
}

/// The settings of a run the wall time depends on (the rest of
/// [`super::RunSettings`] counts money and energy).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Failures {
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
}

impl Default for Failures {
    fn default() -> Self {
        Self {
            interruptions_per_gpu_hour: INTERRUPTIONS_PER_GPU_HOUR,
            checkpoint_bytes_per_s: CHECKPOINT_BYTES_PER_S_PER_NODE,
            async_checkpoint: false,
            restart_seconds: RESTART_SECONDS,
        }
    }
}

impl Failures {
    /// Interruptions per second of a run on `gpus` GPUs.
    #[must_use]
    pub fn rate(&self, gpus: u64) -> f64 {
        self.interruptions_per_gpu_hour * gpus as f64 / 3600.0
    }

    /// Seconds the run waits for one checkpoint of `checkpoint_bytes`
    /// (weights and optimizer state once: the data-parallel replicas hold
    /// copies) written by `nodes` nodes in parallel; when asynchronous, a
    /// snapshot of the heaviest GPU's state of `e` to host memory at
    /// `cpu_gpu` bytes/s.
    #[must_use]
    pub fn checkpoint_seconds(
        &self,
        checkpoint_bytes: f64,
        nodes: u64,
        e: &Evaluation,
        cpu_gpu: f64,
    ) -> f64 {
        if self.async_checkpoint {
            let heavy = e.stages.heaviest();
            (heavy.weights.0 + heavy.optimizer.0) / cpu_gpu
        } else {
            checkpoint_bytes / (self.checkpoint_bytes_per_s * nodes as f64)
        }
    }

    /// The wall time of `ideal` seconds of training in steps of `step`
    /// seconds on `gpus` GPUs, with checkpoints of `c` seconds, and the
    /// checkpoint interval τ: the whole number of steps (at least one) that
    /// minimizes [`wall_time`], next to [`optimal_interval`]; without
    /// interruptions, one checkpoint at the end. `None` when the run never
    /// finishes.
    #[must_use]
    pub fn wall(&self, ideal: f64, step: f64, gpus: u64, c: f64) -> Option<(f64, f64)> {
        let rate = self.rate(gpus);
        let r = self.restart_seconds;
        let wall_of = |tau: f64| wall_time(ideal, c, tau, rate, r);
        let tau = if rate > 0.0 && step > 0.0 {
            let best = optimal_interval(c, 1.0 / rate, r);
            let k = math::floor(best / step).max(1.0);
            let (a, b) = (k * step, (k + 1.0) * step);
            match (wall_of(a), wall_of(b)) {
                (Some(wa), Some(wb)) if wb < wa => b,
                _ => a,
            }
        } else {
            ideal
        };
        wall_of(tau).map(|w| (w, tau))
    }
}

/// The practice search's objective: a plan's whole-run wall-clock seconds
/// ([`Failures::wall`]) at its token budget and batch (no ramp), so that
/// of two plans the one that finishes first wins.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Objective {
    /// The run's interruptions and checkpoints.
    pub failures: Failures,
    /// Bytes of one checkpoint: weights and optimizer state, once.
    pub checkpoint_bytes: f64,
    /// GPUs per node.
    pub node: u64,
    /// CPU-GPU bandwidth, bytes/s (asynchronous checkpoints).
    pub cpu_gpu: f64,
}

impl Objective {
    /// The objective of `model`'s runs on `hw` under `a`.
    #[must_use]
    pub fn new(model: &ModelShape, hw: &Hardware, a: &Assumptions, failures: Failures) -> Self {
        let (bw, _, bo) = a.precision.bytes();
        Self {
            failures,
            checkpoint_bytes: model.params_exact() * (bw + bo),
            node: u64::from(hw.node_size.unwrap_or(hw.gpu.default_node_size).max(1)),
            cpu_gpu: hw.bandwidth(Link::CpuGpu).0,
        }
    }

    /// The wall-clock seconds of `e`'s run (infinite when it never
    /// finishes).
    #[must_use]
    pub fn seconds(&self, e: &Evaluation) -> f64 {
        let c = self.failures.checkpoint_seconds(
            self.checkpoint_bytes,
            e.gpus.div_ceil(self.node),
            e,
            self.cpu_gpu,
        );
        self.failures
            .wall(e.time.0, e.step.0, e.gpus, c)
            .map_or(f64::INFINITY, |(w, _)| w)
    }

    /// What a run on `gpus` GPUs whose steps take at least `step` seconds
    /// takes at least, over its ideal time: [`wall_time`]'s factor
    /// (1 + C/τ)/(1 − rate·(τ/2 + R)), which depends on the ideal time
    /// only through τ and falls then rises in it, at the interval of
    /// [`optimal_interval`] or, where a step is longer, at one step (τ is
    /// whole steps); with a synchronous checkpoint's time, or none when
    /// asynchronous (its snapshot depends on the layout). Infinite when
    /// the run never finishes.
    #[must_use]
    pub fn floor(&self, gpus: u64, step: f64) -> f64 {
        let f = &self.failures;
        let (rate, r) = (f.rate(gpus), f.restart_seconds);
        if rate <= 0.0 {
            return 1.0;
        }
        let c = if f.async_checkpoint {
            0.0
        } else {
            self.checkpoint_bytes / (f.checkpoint_bytes_per_s * gpus.div_ceil(self.node) as f64)
        };
        let best = if c > 0.0 {
            optimal_interval(c, 1.0 / rate, r)
        } else {
            0.0
        };
        let tau = best.max(step);
        let bound = if tau > 0.0 {
            wall_time(1.0, c, tau, rate, r)
        } else {
            // Checkpoints free and continual: 1/(1 − rate·R).
            (rate * r < 1.0).then(|| 1.0 / (1.0 - rate * r))
        };
        bound.unwrap_or(f64::INFINITY)
    }
}
