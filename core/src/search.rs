//! The configuration search: the paper's selection rules (sec. 5,
//! MODEL_NOTES facts 8–13), an exhaustive search with a Pareto front,
//! user constraints (GPU budget, target time, batch, tensor degree,
//! efficiency floor) and size sweeps (sec. 7).
//!
//! Every candidate is scored by [`crate::evaluate`], so the search and the
//! evaluator can never disagree; a rule such as "the smallest micro-batch
//! with no communication bottleneck" reads "the smallest b_µ for which every
//! overlapped transfer of the evaluation is hidden".

use core::fmt;

use alloc::vec::Vec;

use crate::cost::{evaluate, Config, Evaluation, Method, TransferKind};
use crate::error::{check_range, Error};
use crate::hardware::{Hardware, Link};
use crate::math;
use crate::memory::ActivationModel;
use crate::model::{x_family, ModelShape, MAX_X};
use crate::units::{Bytes, Intensity};

/// Largest tensor-parallel overhead the rules accept (sec. 5: "We impose a
/// maximum overhead of 25 %").
pub const MAX_TENSOR_OVERHEAD: f64 = 0.25;
/// Largest exposed data-parallel reduction overhead with a pipeline (sec. 5).
pub const MAX_EXPOSED_REDUCTION: f64 = 0.25;

/// Which parallelism dimensions may exceed 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Parallelism {
    /// One GPU.
    None,
    /// Data parallelism only.
    Data,
    /// Data and pipeline.
    DataPipe,
    /// Data and tensor.
    DataTensor,
    /// Pipeline and tensor.
    PipeTensor,
    /// Data, pipeline and tensor.
    #[default]
    ThreeD,
}

impl Parallelism {
    /// Every setting, in Table 6.1's order.
    pub const ALL: [Self; 6] = [
        Self::None,
        Self::Data,
        Self::DataPipe,
        Self::DataTensor,
        Self::PipeTensor,
        Self::ThreeD,
    ];
    /// May n_b exceed 1?
    #[must_use]
    pub fn data(self) -> bool {
        matches!(
            self,
            Self::Data | Self::DataPipe | Self::DataTensor | Self::ThreeD
        )
    }
    /// May n_l exceed 1?
    #[must_use]
    pub fn pipe(self) -> bool {
        matches!(self, Self::DataPipe | Self::PipeTensor | Self::ThreeD)
    }
    /// May n_a exceed 1?
    #[must_use]
    pub fn tensor(self) -> bool {
        matches!(self, Self::DataTensor | Self::PipeTensor | Self::ThreeD)
    }
    /// Stable name, as used by the CLI and URLs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Data => "data",
            Self::DataPipe => "data+pipe",
            Self::DataTensor => "data+tensor",
            Self::PipeTensor => "pipe+tensor",
            Self::ThreeD => "3d",
        }
    }
    /// Parses [`Parallelism::name`].
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(Error::Unknown {
                what: "parallelism",
            })
    }
}

/// What a user constrains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constraints {
    /// At most this many GPUs.
    pub max_gpus: Option<u64>,
    /// Exactly this many GPUs (the rules treat it as a cap; the exhaustive
    /// search enforces it).
    pub exact_gpus: Option<u64>,
    /// A fixed tensor-parallel degree instead of the 25 % rule.
    pub tensor: Option<u32>,
    /// A batch limit below the critical batch, in sequences (a limit above
    /// it is the critical batch: plans never exceed b_c).
    pub batch: Option<u64>,
    /// Train within this many days with as few GPUs as possible.
    pub target_days: Option<f64>,
    /// Discard configurations below this efficiency (exhaustive search).
    pub min_efficiency: f64,
    /// How activations are kept.
    pub activation: ActivationModel,
}

impl Default for Constraints {
    fn default() -> Self {
        Self {
            max_gpus: None,
            exact_gpus: None,
            tensor: None,
            batch: None,
            target_days: None,
            min_efficiency: 0.0,
            activation: ActivationModel::Paper,
        }
    }
}

impl Constraints {
    fn validate(&self) -> Result<(), Error> {
        for (what, v) in [
            ("GPU budget", self.max_gpus),
            ("GPU count", self.exact_gpus),
        ] {
            if let Some(n) = v {
                crate::error::check_count(what, n, 1, crate::MAX_GPUS)?;
            }
        }
        if let Some(b) = self.batch {
            crate::error::check_count("batch", b, 1, crate::MAX_GPUS)?;
        }
        if let Some(t) = self.tensor {
            crate::error::check_count("tensor-parallel degree", t.into(), 1, crate::MAX_DEGREE)?;
        }
        if let Some(d) = self.target_days {
            check_range("target days", d, 1e-9, 1e9)?;
        }
        check_range("minimum efficiency", self.min_efficiency, 0.0, 1.0)?;
        Ok(())
    }

    fn budget(&self) -> Option<u64> {
        match (self.exact_gpus, self.max_gpus) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Why a plan has the value it has: the constraint that binds, with the
/// equation it comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Binding {
    /// n_a: the largest degree within the node whose overhead stays within
    /// 25 % (eq. 12).
    Tensor {
        /// Chosen degree.
        tensor: u32,
        /// Its overhead: NVLink (eq. 12) with any uneven head split.
        overhead: f64,
        /// The next larger candidate and its overhead, if the 25 % rule
        /// rejected it.
        rejected: Option<(u32, f64)>,
        /// The node size, if it capped the degree.
        node_size: Option<u32>,
    },
    /// n_a fixed by the user.
    TensorFixed {
        /// The degree.
        tensor: u32,
    },
    /// Offload: the whole footprint exceeds the GPU memory.
    Offload {
        /// Memory per GPU without offload.
        footprint: Bytes,
        /// GPU memory.
        memory: Bytes,
    },
    /// No offload: everything fits.
    Fits {
        /// Memory per GPU.
        footprint: Bytes,
        /// GPU memory.
        memory: Bytes,
    },
    /// A micro-batch size or count set by a transfer that must be hidden.
    Transfer {
        /// `"micro-batch"` or `"micro-batches"`.
        param: &'static str,
        /// Its value.
        value: u32,
        /// What moves.
        kind: TransferKind,
        /// Over which link.
        link: Link,
        /// The link's threshold.
        threshold: Intensity,
        /// The intensity reached.
        intensity: Intensity,
        /// Equation.
        equation: &'static str,
    },
    /// A transfer no micro-batching within the batch limit could hide.
    Unhidden {
        /// What moves.
        kind: TransferKind,
        /// Equation.
        equation: &'static str,
    },
    /// n_µ ≥ n_l·(1 + ν_net/ν_l): pipeline transfers overlapped (fact 8).
    PipelineOverlap {
        /// Micro-batches.
        micro_batches: u32,
        /// The minimum for overlap.
        min: u32,
    },
    /// The exposed reduction of eq. 6 capped at 25 %.
    ExposedReduction {
        /// Data-parallel degree.
        data: u32,
        /// Its overhead.
        overhead: f64,
    },
    /// Baseline: the pipeline as deep as the layers (sec. 5).
    PipeDepth {
        /// n_l = d_l.
        pipe: u32,
    },
    /// Improved: the n_l ≤ n_µ that trains fastest (sec. 5).
    PipeFastest {
        /// Chosen n_l.
        pipe: u32,
        /// n_µ.
        micro_batches: u32,
    },
    /// Partitioned: no pipeline (sec. 5).
    NoPipeline,
    /// n_b: the largest with b ≤ the batch limit.
    Batch {
        /// n_b.
        data: u32,
        /// The batch.
        batch: u64,
        /// The limit.
        limit: f64,
        /// Is the limit the critical batch (eq. 2)?
        critical: bool,
    },
    /// n_b capped by the GPU budget.
    GpuBudget {
        /// n_b.
        data: u32,
        /// The budget.
        gpus: u64,
    },
    /// The fewest GPUs that reach the target time.
    TargetTime {
        /// Target in days.
        days: f64,
        /// Reached?
        reached: bool,
    },
}

struct Si(f64);

impl fmt::Display for Si {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        let (v, unit) = if x >= 1e6 {
            (x / 1e6, " M")
        } else if x >= 1e3 {
            (x / 1e3, " k")
        } else {
            (x, "")
        };
        write!(f, "{}{unit}", math::round_sig(v, 3))
    }
}

fn link_name(l: Link) -> &'static str {
    match l {
        Link::GpuMemory => "GPU memory",
        Link::NvLink => "NVLink",
        Link::Pcie => "the shared PCIe link",
        Link::InfiniBand => "InfiniBand",
        Link::CpuGpu => "the CPU-GPU link",
        Link::Ethernet => "Ethernet",
        Link::Nvme => "NVMe",
        Link::Hdd => "the hard drive",
    }
}

fn kind_name(k: TransferKind) -> &'static str {
    match k {
        TransferKind::DataForward => "data-parallel restores (forward)",
        TransferKind::DataBackward => "data-parallel reduction (backward)",
        TransferKind::DataExposed => "data-parallel reduction",
        TransferKind::Pipeline => "pipeline transfers",
        TransferKind::Tensor => "tensor all-reduces",
        TransferKind::CpuGpu => "state and checkpoint offload",
        TransferKind::PcieShared => "offload and network traffic",
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = |x: f64| math::round_sig(100.0 * x, 3);
        match *self {
            Self::Tensor {
                tensor,
                overhead,
                rejected,
                node_size,
            } => {
                write!(
                    f,
                    "tensor {tensor}: overhead {} % (NVLink, eq. 12, and head split)",
                    pct(overhead)
                )?;
                match (rejected, node_size) {
                    (Some((t, o)), _) => write!(f, "; {t} would cost {} % > 25 %", pct(o)),
                    (None, Some(n)) => write!(f, "; capped by the node size {n}"),
                    (None, None) => write!(f, "; the largest divisor of the heads"),
                }
            }
            Self::TensorFixed { tensor } => write!(f, "tensor {tensor}: set by the user"),
            Self::Offload { footprint, memory } => write!(
                f,
                "offload: {} GiB per GPU exceeds the {} GiB of GPU memory (C.3)",
                math::round_sig(footprint.gib(), 3),
                math::round_sig(memory.gib(), 3)
            ),
            Self::Fits { footprint, memory } => write!(
                f,
                "no offload: {} GiB per GPU fits in {} GiB (C.3)",
                math::round_sig(footprint.gib(), 3),
                math::round_sig(memory.gib(), 3)
            ),
            Self::Transfer {
                param,
                value,
                kind,
                link,
                threshold,
                intensity,
                equation,
            } => write!(
                f,
                "{param} {value}: {} over {} needs ν ≥ {} flop/B, {equation}; it reaches {}",
                kind_name(kind),
                link_name(link),
                Si(threshold.0),
                Si(intensity.0)
            ),
            Self::Unhidden { kind, equation } => write!(
                f,
                "{} cannot be hidden within the batch limit ({equation}): it costs time",
                kind_name(kind)
            ),
            Self::PipelineOverlap { micro_batches, min } => write!(
                f,
                "micro-batches {micro_batches}: pipeline transfers overlap from {min} on \
                 (n_µ ≥ n_l·(1 + ν_net/ν_l), C.4.2)"
            ),
            Self::ExposedReduction { data, overhead } => write!(
                f,
                "data {data}: exposed gradient reduction {} % ≤ 25 % (eq. 6)",
                pct(overhead)
            ),
            Self::PipeDepth { pipe } => {
                write!(f, "pipe {pipe}: as deep as the layers (baseline, sec. 5)")
            }
            Self::PipeFastest {
                pipe,
                micro_batches,
            } => write!(
                f,
                "pipe {pipe}: the fastest n_l ≤ n_µ = {micro_batches} (modular pipeline, sec. 4)"
            ),
            Self::NoPipeline => write!(
                f,
                "pipe 1: the partitioned method uses no pipeline (sec. 5)"
            ),
            Self::Batch {
                data,
                batch,
                limit,
                critical,
            } => write!(
                f,
                "data {data}: the largest with batch {batch} ≤ {} {}",
                math::round_sig(limit, 4),
                if critical {
                    "(the critical batch, eq. 2)"
                } else {
                    "(the batch limit set)"
                }
            ),
            Self::GpuBudget { data, gpus } => {
                write!(f, "data {data}: capped by the budget of {gpus} GPUs")
            }
            Self::TargetTime { days, reached } => {
                if reached {
                    write!(f, "the fewest GPUs that train within {days} days")
                } else {
                    write!(f, "{days} days cannot be reached: this is the fastest plan")
                }
            }
        }
    }
}

/// The bindings of a plan; a fixed-capacity list.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bindings {
    items: [Option<Binding>; 10],
}

impl Bindings {
    fn push(&mut self, b: Binding) {
        if let Some(slot) = self.items.iter_mut().find(|s| s.is_none()) {
            *slot = Some(b);
        }
    }
    /// The bindings, in the order the rules set them.
    pub fn iter(&self) -> impl Iterator<Item = &Binding> + '_ {
        self.items.iter().flatten()
    }
}

/// A chosen configuration with its evaluation and why.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The method.
    pub method: Method,
    /// The parallelism setting.
    pub parallelism: Parallelism,
    /// The evaluation.
    pub evaluation: Evaluation,
    /// The constraints that bind.
    pub binding: Bindings,
}

/// The largest batch a plan may use, and whether it is the critical batch.
/// A limit above b_c is b_c: the paper trains at the critical batch
/// (sec. 5), and past it a step's extra sequences do not cut the step
/// count (eq. 2), so they only add work; the rules took them anyway (18.7
/// days for Megatron 1T on H100s with a 9113-sequence limit, against 6.2
/// days at b ≤ b_c), and the exhaustive search's bound assumed none.
fn batch_limit(model: &ModelShape, c: &Constraints) -> Result<(f64, bool), Error> {
    let bc = model.critical_batch();
    let (limit, critical) = match c.batch {
        // At least one sequence, even for a model whose b_c is below one.
        Some(b) => ((b as f64).min(bc.max(1.0)), b as f64 >= bc),
        None => (bc, true),
    };
    if limit < 1.0 {
        return Err(Error::OutOfRange {
            what: "batch limit",
            value: limit,
            min: 1.0,
            max: crate::MAX_GPUS as f64,
        });
    }
    Ok((limit, critical))
}

/// The first overlapped transfer that is not hidden, and by how much the
/// intensity must grow.
fn first_unhidden(e: &Evaluation) -> Option<(TransferKind, f64)> {
    e.transfers
        .iter()
        .filter(|t| t.overlapped && !t.hidden())
        .map(|t| (t.kind, t.threshold.0 / t.intensity.0))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The smallest `v` in `1..=max` whose evaluation hides every overlapped
/// transfer. Intensities grow at most linearly in `v`, so the search jumps
/// by the missing ratio and never overshoots. Returns the value, its
/// evaluation, and the transfer that bound it. If none qualifies, the last
/// tried value, flagged `false`.
fn smallest<F>(
    max: u64,
    mut make: F,
) -> Result<(u32, Evaluation, Option<TransferKind>, bool), Error>
where
    F: FnMut(u32) -> Result<Evaluation, Error>,
{
    let max = max.clamp(1, u64::from(u32::MAX)) as u32;
    let mut v = 1u32;
    let mut bound = None;
    loop {
        let e = make(v)?;
        match first_unhidden(&e) {
            None => return Ok((v, e, bound, true)),
            Some((kind, ratio)) => {
                bound = Some(kind);
                if v >= max {
                    return Ok((v, e, bound, false));
                }
                let jump = math::ceil(f64::from(v) * ratio).min(f64::from(max)) as u32;
                v = jump.max(v + 1).min(max);
            }
        }
    }
}

fn transfer_binding(
    param: &'static str,
    value: u32,
    e: &Evaluation,
    kind: TransferKind,
) -> Binding {
    match e.transfers.get(kind) {
        Some(t) => Binding::Transfer {
            param,
            value,
            kind,
            link: t.link,
            threshold: t.threshold,
            intensity: t.intensity,
            equation: t.equation,
        },
        None => Binding::Unhidden { kind, equation: "" },
    }
}

/// Tensor degrees to consider: every n_a ≤ min(heads, node size), largest
/// first (an uneven head split costs its imbalance).
fn tensor_candidates(heads: u32, cap: u32) -> impl Iterator<Item = u32> {
    (1..=heads.min(cap)).rev()
}

/// The tensor degree of the rules: the largest n_a within the node whose
/// NVLink overhead (eq. 12), with any uneven head split, costs at most 25 %
/// (MODEL_NOTES fact 9).
fn tensor_degree(
    model: &ModelShape,
    hw: &Hardware,
    par: Parallelism,
    c: &Constraints,
) -> Result<(u32, Option<Binding>), Error> {
    if let Some(t) = c.tensor {
        if t > 1 && !par.tensor() {
            return Err(Error::OutOfRange {
                what: "tensor-parallel degree (this parallelism has no tensor dimension)",
                value: f64::from(t),
                min: 1.0,
                max: 1.0,
            });
        }
        return Ok((t, Some(Binding::TensorFixed { tensor: t })));
    }
    if !par.tensor() {
        return Ok((1, None));
    }
    let cap = hw.node_size.unwrap_or(model.heads);
    let mut rejected = None;
    for t in tensor_candidates(model.heads, cap) {
        let cfg = Config {
            tensor: t,
            activation: c.activation,
            ..Config::default()
        };
        let o = evaluate(model, hw, &cfg)?.overheads;
        let overhead = (1.0 + o.tensor) * (1.0 + o.imbalance) - 1.0;
        if overhead <= MAX_TENSOR_OVERHEAD {
            let node_size = (rejected.is_none() && t < model.heads).then_some(cap);
            let b = Binding::Tensor {
                tensor: t,
                overhead,
                rejected,
                node_size: node_size.filter(|_| hw.node_size.is_some()),
            };
            return Ok((t, (t > 1).then_some(b)));
        }
        rejected = Some((t, overhead));
    }
    Ok((1, None))
}

struct Ctx<'a> {
    model: &'a ModelShape,
    hw: &'a Hardware,
    c: &'a Constraints,
    limit: f64,
    /// Is the limit the critical batch (no lower limit was set)?
    critical: bool,
    batch_max: u64,
    budget: Option<u64>,
}

impl Ctx<'_> {
    fn eval(&self, cfg: Config) -> Result<Evaluation, Error> {
        evaluate(
            self.model,
            self.hw,
            &Config {
                activation: self.c.activation,
                ..cfg
            },
        )
    }

    /// n_b capped by the batch (b ≤ limit) and the GPU budget.
    fn data_cap(&self, per_instance: u64, model_parallel: u64) -> (u32, bool) {
        let by_batch = (self.batch_max / per_instance.max(1)).max(1);
        let by_budget = self
            .budget
            .map_or(u64::MAX, |g| (g / model_parallel.max(1)).max(1));
        let n = by_batch.min(by_budget).min(crate::MAX_DEGREE);
        (n as u32, by_budget < by_batch)
    }
}

/// One method's rules for a given tensor degree and offload choice.
fn rule_config(
    ctx: &Ctx<'_>,
    method: Method,
    par: Parallelism,
    tensor: u32,
    offload: bool,
    binding: &mut Bindings,
) -> Result<Evaluation, Error> {
    let m = ctx.model;
    let base = Config {
        method,
        tensor,
        offload,
        ..Config::default()
    };
    let na = u64::from(tensor);
    let budget_binding = |data: u32, capped: bool, e: &Evaluation, b: &mut Bindings| {
        if capped {
            b.push(Binding::GpuBudget {
                data,
                gpus: ctx.budget.unwrap_or(0),
            });
        } else if par.data() {
            b.push(Binding::Batch {
                data,
                batch: e.batch,
                limit: ctx.limit,
                critical: ctx.critical,
            });
        }
    };
    // The deepest pipeline the GPU budget holds at this tensor degree.
    let pipe_budget = ctx
        .budget
        .map_or(u32::MAX, |g| (g / na).clamp(1, u64::from(u32::MAX)) as u32);
    if method.layered() {
        // Fact 13: b_µ = 1, the smallest n_µ satisfying eq. 9, n_b = ⌊b/n_µ⌋,
        // then the fastest n_l ≤ n_µ.
        let with = |nmu: u32, pipe: u32| -> (Config, bool) {
            if par.data() {
                let (data, capped) = ctx.data_cap(nmu.into(), u64::from(pipe) * na);
                let nmu = if capped {
                    (ctx.batch_max / u64::from(data)).clamp(1, u32::MAX.into()) as u32
                } else {
                    nmu
                };
                (
                    Config {
                        data,
                        pipe,
                        micro_batches: nmu,
                        ..base
                    },
                    capped,
                )
            } else {
                let nmu = ctx.batch_max.clamp(1, u32::MAX.into()) as u32;
                (
                    Config {
                        pipe,
                        micro_batches: nmu,
                        ..base
                    },
                    false,
                )
            }
        };
        let (nmu, _, bound, hidden) = smallest(ctx.batch_max, |n| ctx.eval(with(n, 1).0))?;
        let nmu = with(nmu, 1).0.micro_batches;
        let max_pipe = if par.pipe() {
            nmu.min(m.layers).min(pipe_budget)
        } else {
            1
        };
        let mut best: Option<(Evaluation, bool)> = None;
        for pipe in 1..=max_pipe {
            let (cfg, capped) = with(nmu, pipe);
            let cfg = Config {
                micro_batches: cfg.micro_batches.max(pipe),
                ..cfg
            };
            let e = ctx.eval(cfg)?;
            let better = match &best {
                None => true,
                Some((b, _)) => (e.fits, -e.time.0) > (b.fits, -b.time.0),
            };
            if better {
                best = Some((e, capped));
            }
        }
        let (e, capped) = best.ok_or(Error::Unknown { what: "plan" })?;
        if let Some(kind) = bound {
            binding.push(if hidden {
                transfer_binding("micro-batches", e.config.micro_batches, &e, kind)
            } else {
                Binding::Unhidden {
                    kind,
                    equation: e.transfers.get(kind).map_or("", |t| t.equation),
                }
            });
        }
        if par.pipe() {
            binding.push(Binding::PipeFastest {
                pipe: e.config.pipe,
                micro_batches: e.config.micro_batches,
            });
        }
        budget_binding(e.config.data, capped, &e, binding);
        return Ok(e);
    }

    // Baseline and partitioned (facts 11–12): as deep as the layers, or as
    // the GPU budget allows.
    let pipe = if method == Method::Baseline && par.pipe() {
        m.layers.min(pipe_budget)
    } else {
        1
    };
    // The pipeline-overlap minimum n_µ ≥ n_l·(1 + ν_net/ν_l), from the
    // evaluator's own ν_l.
    let nmu_min = if pipe > 1 {
        let e = ctx.eval(Config {
            pipe,
            micro_batches: pipe,
            ..base
        })?;
        let t = e.transfers.get(TransferKind::Pipeline);
        t.map_or(1, |t| {
            math::ceil(f64::from(pipe) * (1.0 + t.threshold.0 / t.intensity.0)) as u32
        })
    } else {
        1
    };
    let mut capped_out = false;
    let mut exposed_cap = false;
    let mut make = |bmu: u32| -> Result<Evaluation, Error> {
        let per = u64::from(bmu) * u64::from(nmu_min);
        let (mut data, capped) = if par.data() {
            ctx.data_cap(per, u64::from(pipe) * na)
        } else {
            (1, false)
        };
        let fill = |data: u32| {
            (ctx.batch_max / (u64::from(data) * u64::from(bmu))).clamp(1, u32::MAX.into()) as u32
        };
        let mut cfg = Config {
            data,
            pipe,
            micro_batch: bmu,
            micro_batches: fill(data),
            ..base
        };
        let mut e = ctx.eval(cfg)?;
        exposed_cap = false;
        // Sec. 5: with a pipeline, the exposed reduction may cost at most 25 %.
        if let Some(t) = e.transfers.get(TransferKind::DataExposed) {
            if t.overhead > MAX_EXPOSED_REDUCTION {
                let need =
                    math::ceil(f64::from(cfg.micro_batches) * t.overhead / MAX_EXPOSED_REDUCTION);
                data = ((ctx.batch_max as f64 / (need * f64::from(bmu))) as u32).max(1);
                cfg.data = data;
                cfg.micro_batches = fill(data);
                e = ctx.eval(cfg)?;
                exposed_cap = true;
            }
        }
        capped_out = capped;
        Ok(e)
    };
    let (bmu, e, bound, hidden) = smallest(ctx.batch_max, &mut make)?;
    // Re-run to settle the flags for the chosen b_µ.
    let e2 = make(bmu)?;
    debug_assert_eq!(e, e2);
    if method == Method::Partitioned && par.pipe() {
        binding.push(Binding::NoPipeline);
    } else if pipe > 1 {
        binding.push(Binding::PipeDepth { pipe });
    }
    if let Some(kind) = bound {
        binding.push(if hidden {
            transfer_binding("micro-batch", bmu, &e, kind)
        } else {
            Binding::Unhidden {
                kind,
                equation: e.transfers.get(kind).map_or("", |t| t.equation),
            }
        });
    }
    if pipe > 1 {
        binding.push(Binding::PipelineOverlap {
            micro_batches: e.config.micro_batches,
            min: nmu_min,
        });
        if exposed_cap {
            binding.push(Binding::ExposedReduction {
                data: e.config.data,
                overhead: e.overheads.data,
            });
        }
    }
    budget_binding(e.config.data, capped_out, &e, binding);
    Ok(e)
}

/// The paper's selection rules (sec. 5; MODEL_NOTES facts 8–13) for one
/// method and parallelism setting.
///
/// * tensor: the largest n_a ≤ node size dividing the heads whose NVLink
///   overhead is ≤ 25 % (eq. 12);
/// * offload the state and checkpoints iff the whole footprint exceeds the
///   GPU memory (the offloaded transfers share the PCIe link, fact 10);
/// * baseline: the deepest pipeline, the smallest b_µ with no bottleneck,
///   n_µ ≥ n_l·(1 + ν_net/ν_l), an exposed reduction ≤ 25 %, then the
///   largest n_b with b ≤ b_c;
/// * partitioned: no pipeline, n_µ = 1, the smallest b_µ satisfying eq. 7;
/// * improved: b_µ = 1, the smallest n_µ satisfying eq. 9, n_b = ⌊b_c/n_µ⌋,
///   the fastest n_l ≤ n_µ.
///
/// # Errors
///
/// Invalid inputs, or no configuration whose non-offloadable memory fits.
///
/// # Examples
///
/// ```
/// use plan3d_core::{model::x_family, search::{rules, Constraints, Parallelism}, Hardware, Method};
/// let p = rules(&x_family(160)?, &Hardware::default(), Method::Improved,
///               Parallelism::ThreeD, &Constraints::default())?;
/// assert_eq!(p.evaluation.gpus, 38_640);
/// # Ok::<(), plan3d_core::Error>(())
/// ```
pub fn rules(
    model: &ModelShape,
    hw: &Hardware,
    method: Method,
    par: Parallelism,
    c: &Constraints,
) -> Result<Plan, Error> {
    model.validate()?;
    hw.validate()?;
    c.validate()?;
    if let Some(days) = c.target_days {
        return fewest_gpus(c, days, |cc| rules(model, hw, method, par, cc));
    }
    let (limit, critical) = batch_limit(model, c)?;
    let ctx = Ctx {
        model,
        hw,
        c,
        limit,
        critical,
        batch_max: math::floor(limit) as u64,
        budget: c.budget(),
    };
    let (tensor, tb) = tensor_degree(model, hw, par, c)?;
    let mut last = None;
    for offload in [false, true] {
        let mut binding = Bindings::default();
        if let Some(b) = tb {
            binding.push(b);
        }
        let e = rule_config(&ctx, method, par, tensor, offload, &mut binding)?;
        if e.fits {
            let memory = hw.gpu.memory;
            let footprint = if offload {
                // What the same rules need without offload.
                last.map_or(e.memory.total(), |l: Evaluation| l.memory.total())
            } else {
                e.memory.total()
            };
            binding.push(if offload {
                Binding::Offload { footprint, memory }
            } else {
                Binding::Fits { footprint, memory }
            });
            return Ok(Plan {
                method,
                parallelism: par,
                evaluation: e,
                binding,
            });
        }
        last = Some(e);
    }
    Err(Error::NoPlan {
        reason: "even with offload, the buffers and layer activations exceed the GPU memory",
    })
}

/// The fewest GPUs whose plan trains within `days`: a bisection on the GPU
/// budget (a larger budget never slows a plan down).
fn fewest_gpus<F>(c: &Constraints, days: f64, mut plan: F) -> Result<Plan, Error>
where
    F: FnMut(&Constraints) -> Result<Plan, Error>,
{
    let free = Constraints {
        target_days: None,
        ..*c
    };
    let fastest = plan(&free)?;
    let with_binding = |mut p: Plan, reached: bool| {
        p.binding.push(Binding::TargetTime { days, reached });
        p
    };
    if fastest.evaluation.time.days() > days {
        return Ok(with_binding(fastest, false));
    }
    let (mut lo, mut hi) = (1u64, fastest.evaluation.gpus);
    let mut best = fastest;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match plan(&Constraints {
            max_gpus: Some(mid),
            ..free
        }) {
            Ok(p) if p.evaluation.time.days() <= days => {
                hi = p.evaluation.gpus.min(mid);
                best = p;
            }
            _ => lo = mid + 1,
        }
    }
    Ok(with_binding(best, true))
}

/// What an exhaustive search returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchResult {
    /// The fastest configuration (or, with a target time, the fewest GPUs).
    pub best: Plan,
    /// Configurations evaluated.
    pub evaluated: u64,
}

fn dominates(a: &Evaluation, b: &Evaluation) -> bool {
    let (am, bm) = (
        a.memory.on_gpu(a.config.offload).0,
        b.memory.on_gpu(b.config.offload).0,
    );
    let le = a.time.0 <= b.time.0 && a.gpus <= b.gpus && am <= bm;
    let lt = a.time.0 < b.time.0 || a.gpus < b.gpus || am < bm;
    le && lt
}

fn method_list(method: Option<Method>) -> &'static [Method] {
    match method {
        Some(Method::Baseline) => &[Method::Baseline],
        Some(Method::Partitioned) => &[Method::Partitioned],
        Some(Method::Improved) => &[Method::Improved],
        Some(Method::ImprovedUnpartitioned) => &[Method::ImprovedUnpartitioned],
        // The usually fastest first: a good early best prunes more.
        None => &[
            Method::Improved,
            Method::ImprovedUnpartitioned,
            Method::Partitioned,
            Method::Baseline,
        ],
    }
}

/// Exhaustive search over every valid configuration — n_b, n_l, n_a, b_µ,
/// n_µ, offload and, when `method` is `None`, the method — for the fastest
/// training (or, with a target time, the fewest GPUs reaching it).
///
/// Valid means: b ≤ the batch limit, n_µ ≥ n_l (MODEL_NOTES fact 7), n_a at
/// most the heads and the node size, the GPU budget (or exact count) and
/// efficiency floor hold, and what stays on the GPU fits.
///
/// Two facts keep it fast without losing the optimum. While b ≤ b_c the
/// time is W / (n_gpu · peak · efficiency) for a fixed work W; and for fixed
/// (n_l, n_a, b_µ, n_µ) no intensity falls as n_b grows (they depend on
/// b/n_b), so for each n_µ only the largest n_b can be fastest. A
/// candidate is skipped when even its unavoidable overheads — bubble,
/// tensor, imbalance — at n_µ = limit/(n_b·b_µ) leave it no faster than the
/// best found; that bound only grows as n_b or b_µ shrink, so the loops stop
/// there. Memory grows with n_µ, so the largest fitting n_µ is found by
/// bisection.
///
/// # Errors
///
/// Invalid inputs, or no valid configuration.
pub fn exhaustive(
    model: &ModelShape,
    hw: &Hardware,
    method: Option<Method>,
    par: Parallelism,
    c: &Constraints,
) -> Result<SearchResult, Error> {
    model.validate()?;
    hw.validate()?;
    c.validate()?;
    if let Some(days) = c.target_days {
        let mut evaluated = 0;
        let best = fewest_gpus(c, days, |cc| {
            let r = exhaustive(model, hw, method, par, cc)?;
            evaluated += r.evaluated;
            Ok(r.best)
        })?;
        return Ok(SearchResult { best, evaluated });
    }
    let (limit, _) = batch_limit(model, c)?;
    let batch_max = math::floor(limit) as u64;
    let tensors: Vec<u32> = match c.tensor {
        Some(t) => alloc::vec![t],
        None if par.tensor() => {
            tensor_candidates(model.heads, hw.node_size.unwrap_or(model.heads)).collect()
        }
        None => alloc::vec![1],
    };
    // Tensor overhead and head imbalance per degree (they depend on nothing
    // else).
    let mut tensor_oh = Vec::with_capacity(tensors.len());
    for &t in &tensors {
        let cfg = Config {
            tensor: t,
            activation: c.activation,
            ..Config::default()
        };
        let o = evaluate(model, hw, &cfg)?.overheads;
        tensor_oh.push((1.0 + o.tensor) * (1.0 + o.imbalance) - 1.0);
    }
    let max_pipe = if par.pipe() {
        u64::from(model.layers).min(batch_max) as u32
    } else {
        1
    };
    let budget = c.budget();
    let dl = f64::from(model.layers);
    // Work of the run: b ≤ b_c, so 10⁵ steps of b_c sequences' work.
    let w0 = c.activation.flops_per_token_param()
        * crate::TRAINING_STEPS
        * model.critical_batch()
        * f64::from(model.seq_len)
        * model.params()
        / (hw.gpu.peak.0 * hw.kernel_efficiency);
    // For the network-aware bound: what evaluate() charges data
    // parallelism (C.4.1), from the same function.
    let f = c.activation.flops_per_token_param();
    let ds = f64::from(model.seq_len);
    let data_overhead = |m: Method, nl: u32, nb: u64, nmu: u64, bmu: u64| -> f64 {
        if nb <= 1 {
            return 0.0;
        }
        let (g, back) =
            crate::cost::comm::data_transfers(m, nl, f, (nmu * bmu) as f64, nmu as f64, ds, hw);
        g.overhead + back.map_or(0.0, |t| t.overhead)
    };
    let mut evaluated = 0u64;
    let mut best: Option<Evaluation> = None;
    // With the paper's (or full-recomputation) activations, what must stay
    // on the GPU — buffers 6·p_l/n_a and one layer's activations at b_µ = 1 —
    // depends on n_a alone and only grows as n_a shrinks: once it does not
    // fit, no pipeline, data degree or offload helps, at this n_a or below.
    let floor_fits = |m: Method, na: u32| -> Result<bool, Error> {
        if !matches!(c.activation, ActivationModel::Paper | ActivationModel::Full) {
            return Ok(true);
        }
        let e = evaluate(
            model,
            hw,
            &Config {
                method: m,
                tensor: na,
                offload: true,
                activation: c.activation,
                ..Config::default()
            },
        )?;
        Ok(e.memory.non_offloadable().0 <= hw.gpu.memory.0)
    };
    for &m in method_list(method) {
        let mut tensor_floor = tensors.len();
        for (k, &na) in tensors.iter().enumerate() {
            if !floor_fits(m, na)? {
                tensor_floor = k;
                break;
            }
        }
        for offload in [false, true] {
            for (&na, &t_oh) in tensors.iter().zip(&tensor_oh).take(tensor_floor) {
                // Every candidate of this n_a runs on at most n_a·b GPUs
                // (n_b·n_l ≤ b since n_µ ≥ n_l), or the budget: a bound for
                // the whole n_a, which spares the n_l loop of hopeless
                // degrees (hundreds of them without a node limit).
                if let Some(b) = &best {
                    let gpus = (u64::from(na) * batch_max)
                        .min(budget.unwrap_or(u64::MAX))
                        .max(1);
                    if w0 / gpus as f64 * (1.0 + t_oh) > b.time.0 * (1.0 + 1e-9) {
                        continue;
                    }
                }
                for nl in 1..=max_pipe {
                    let mp = u64::from(nl) * u64::from(na);
                    if budget.is_some_and(|g| mp > g) {
                        break;
                    }
                    let fixed =
                        (1.0 + t_oh) * (1.0 + crate::cost::overheads::imbalance(f64::from(nl), dl));
                    // A lower bound on the time of n_b instances of n_µ_real
                    // micro-batches, and whether it can still win.
                    let hopeful = |nb: u64, nmu_real: f64, best: &Option<Evaluation>| {
                        let bubble = crate::cost::overheads::bubble(
                            m.layered(),
                            f64::from(nl),
                            nmu_real,
                            dl,
                        );
                        let lb = w0 / (nb * mp) as f64 * fixed * (1.0 + bubble);
                        best.as_ref().is_none_or(|b| lb < b.time.0)
                    };
                    for bmu in 1..=batch_max {
                        let n = batch_max / bmu;
                        let nmu_start = u64::from(nl);
                        if n < nmu_start {
                            break;
                        }
                        let nb_max = if par.data() { n / nmu_start } else { 1 };
                        let nb_max = budget.map_or(nb_max, |g| nb_max.min(g / mp));
                        if nb_max == 0 || !hopeful(nb_max, n as f64 / nb_max as f64, &best) {
                            break;
                        }
                        // Memory only grows as n_b shrinks, n_µ grows or b_µ
                        // grows: if the leanest candidate does not fit, no
                        // later one does.
                        evaluated += 1;
                        let leanest = evaluate(
                            model,
                            hw,
                            &Config {
                                method: m,
                                data: nb_max as u32,
                                pipe: nl,
                                tensor: na,
                                micro_batch: bmu as u32,
                                micro_batches: nmu_start as u32,
                                offload,
                                activation: c.activation,
                            },
                        )?;
                        if !leanest.fits {
                            break;
                        }
                        let mut prev_nmu = 0;
                        for nb in (1..=nb_max).rev() {
                            if !hopeful(nb, n as f64 / nb as f64, &best) {
                                break;
                            }
                            if c.exact_gpus.is_some_and(|g| nb * mp != g) {
                                continue;
                            }
                            let nmu_max = n / nb;
                            if nmu_max == prev_nmu {
                                continue;
                            }
                            prev_nmu = nmu_max;
                            // The bound with the network: the candidates of
                            // this n_b have n_µ ≤ nmu_max, where the bubble
                            // and the data-parallel overhead are smallest
                            // (see evaluate::data_transfers). Not monotone
                            // in n_b, so it skips rather than stops. On slow
                            // networks it spares most evaluations.
                            if let Some(b) = &best {
                                let bubble = crate::cost::overheads::bubble(
                                    m.layered(),
                                    f64::from(nl),
                                    nmu_max as f64,
                                    dl,
                                );
                                let lb = w0 / (nb * mp) as f64
                                    * fixed
                                    * (1.0 + bubble)
                                    * (1.0 + data_overhead(m, nl, nb, nmu_max, bmu));
                                if lb > b.time.0 * (1.0 + 1e-9) {
                                    continue;
                                }
                            }
                            let cfg = |nmu: u64| Config {
                                method: m,
                                data: nb as u32,
                                pipe: nl,
                                tensor: na,
                                micro_batch: bmu as u32,
                                micro_batches: nmu.min(u32::MAX.into()) as u32,
                                offload,
                                activation: c.activation,
                            };
                            evaluated += 1;
                            let mut e = evaluate(model, hw, &cfg(nmu_max))?;
                            if !e.fits {
                                // The largest n_µ that fits, by bisection.
                                let (mut lo, mut hi) = (nmu_start, nmu_max - 1);
                                let mut found = None;
                                while lo <= hi {
                                    let mid = lo + (hi - lo) / 2;
                                    evaluated += 1;
                                    let t = evaluate(model, hw, &cfg(mid))?;
                                    if t.fits {
                                        found = Some(t);
                                        lo = mid + 1;
                                    } else {
                                        hi = mid - 1;
                                    }
                                }
                                match found {
                                    Some(t) => e = t,
                                    None => continue,
                                }
                            }
                            if e.efficiency < c.min_efficiency {
                                continue;
                            }
                            let better = best
                                .as_ref()
                                .is_none_or(|b| (e.time.0, e.gpus) < (b.time.0, b.gpus));
                            if better {
                                best = Some(e);
                            }
                        }
                    }
                }
            }
        }
    }
    let best = best.ok_or(Error::NoPlan {
        reason: "no configuration satisfies the constraints",
    })?;
    let mut binding = Bindings::default();
    binding.push(if best.config.offload {
        Binding::Offload {
            footprint: best.memory.total(),
            memory: hw.gpu.memory,
        }
    } else {
        Binding::Fits {
            footprint: best.memory.total(),
            memory: hw.gpu.memory,
        }
    });
    for t in best.transfers.iter().filter(|t| t.overhead > 0.0) {
        binding.push(Binding::Unhidden {
            kind: t.kind,
            equation: t.equation,
        });
    }
    Ok(SearchResult {
        best: Plan {
            method: best.config.method,
            parallelism: par,
            evaluation: best,
            binding,
        },
        evaluated,
    })
}

/// The Pareto front over (training time, GPUs, memory on the GPU): the
/// exhaustive optimum of each method under a ladder of GPU budgets (the
/// unconstrained GPU count halved `levels` times), keeping the configurations
/// no other one beats on all three. Fastest first.
///
/// # Errors
///
/// As [`exhaustive`].
pub fn pareto(
    model: &ModelShape,
    hw: &Hardware,
    method: Option<Method>,
    par: Parallelism,
    c: &Constraints,
    levels: u32,
) -> Result<Vec<Evaluation>, Error> {
    let c = Constraints {
        target_days: None,
        ..*c
    };
    let mut all: Vec<Evaluation> = Vec::new();
    for &m in method_list(method) {
        let Ok(top) = exhaustive(model, hw, Some(m), par, &c) else {
            continue;
        };
        let mut budget = top.best.evaluation.gpus;
        all.push(top.best.evaluation);
        for _ in 0..levels.min(64) {
            budget /= 2;
            if budget == 0 {
                break;
            }
            let cc = Constraints {
                max_gpus: Some(c.budget().map_or(budget, |g| g.min(budget))),
                ..c
            };
            if let Ok(r) = exhaustive(model, hw, Some(m), par, &cc) {
                all.push(r.best.evaluation);
            }
        }
    }
    let mut front: Vec<Evaluation> = all
        .iter()
        .filter(|e| !all.iter().any(|o| dominates(o, e)))
        .copied()
        .collect();
    front.sort_by(|a, b| a.time.0.total_cmp(&b.time.0));
    front.dedup_by(|a, b| a.config == b.config);
    Ok(front)
}

/// A row of a size sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepRow {
    /// The X\[x\] model's x, or 0 for other scalings.
    pub x: u32,
    /// The model's parameter count p (12 x⁵ for X\[x\]).
    pub params: f64,
    /// The model.
    pub model: ModelShape,
    /// The rules' plan, or why there is none.
    pub plan: Result<Plan, Error>,
}

/// The index of the sweep row nearest `params` on the log scale the sweep
/// is spaced on (what a chart of it shows under a cursor).
#[must_use]
pub fn nearest_row(rows: &[SweepRow], params: f64) -> Option<usize> {
    let at = math::log10(params);
    rows.iter()
        .enumerate()
        .min_by(|a, b| {
            (math::log10(a.1.params) - at)
                .abs()
                .total_cmp(&(math::log10(b.1.params) - at).abs())
        })
        .map(|(k, _)| k)
}

/// How a model's shape grows with its size in a sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scaling {
    /// The paper's X\[x\] family (eq. 1), x rounded to an even integer.
    XFamily,
    /// A fixed width-to-depth ratio d_m/d_l (GPT-3: 12288/96 = 128), head
    /// size and sequence length; p = 12·d_m³/ratio.
    Aspect {
        /// d_m / d_l.
        ratio: f64,
        /// d_h.
        head_size: u32,
        /// d_s.
        seq_len: u32,
    },
    /// A fixed depth: the width grows, p = 12·d_m²·d_l.
    FixedDepth {
        /// d_l.
        layers: u32,
        /// d_h.
        head_size: u32,
        /// d_s.
        seq_len: u32,
    },
}

impl Scaling {
    /// The model of this family nearest `params` parameters: the width is
    /// rounded to whole heads, the depth to whole layers.
    ///
    /// # Errors
    ///
    /// A shape out of bounds (too big a model, or a ratio, head size or
    /// sequence length out of range).
    pub fn model(&self, params: f64) -> Result<ModelShape, Error> {
        let params = check_range("parameters", params, 1.0, 1e20)?;
        let shape =
            |heads: f64, head_size: u32, layers: f64, seq_len: u32| -> Result<ModelShape, Error> {
                let clamp = |v: f64| math::round(v).clamp(1.0, f64::from(u32::MAX)) as u32;
                let m = crate::model::classic(seq_len, clamp(heads), head_size, clamp(layers));
                m.validate()?;
                Ok(m)
            };
        match *self {
            Self::XFamily => {
                let x = math::pow(params / 12.0, 0.2);
                x_family(((math::round(x / 2.0) * 2.0) as u32).clamp(2, MAX_X))
            }
            Self::Aspect {
                ratio,
                head_size,
                seq_len,
            } => {
                let ratio = check_range("width/depth ratio", ratio, 1.0, 1e6)?;
                crate::error::check_count("head size", head_size.into(), 1, 1 << 16)?;
                let dm = math::cbrt(params * ratio / 12.0);
                let heads = (dm / f64::from(head_size)).max(1.0);
                let width = math::round(heads).max(1.0) * f64::from(head_size);
                shape(heads, head_size, (width / ratio).max(1.0), seq_len)
            }
            Self::FixedDepth {
                layers,
                head_size,
                seq_len,
            } => {
                crate::error::check_count("layers", layers.into(), 1, crate::model::MAX_LAYERS)?;
                crate::error::check_count("head size", head_size.into(), 1, 1 << 16)?;
                let dm = math::pow(params / (12.0 * f64::from(layers)), 0.5);
                shape(
                    (dm / f64::from(head_size)).max(1.0),
                    head_size,
                    f64::from(layers),
                    seq_len,
                )
            }
        }
    }
}

/// The rules' plan for X\[x\] models log-spaced in parameters from `from` to
/// `to` (sec. 7, figs. 4, 5, 8): [`sweep_scaled`] with [`Scaling::XFamily`].
///
/// # Errors
///
/// As [`sweep_scaled`].
pub fn sweep(
    hw: &Hardware,
    method: Method,
    par: Parallelism,
    c: &Constraints,
    from: f64,
    to: f64,
    points: u32,
) -> Result<Vec<SweepRow>, Error> {
    sweep_scaled(hw, method, par, c, Scaling::XFamily, from, to, points)
}

/// The rules' plan for models of a family log-spaced in parameters from
/// `from` to `to`. Sizes that round to the same shape appear once.
///
/// # Errors
///
/// A bound outside [488, 1.4e19], `from` > `to`, no point (or more than
/// 10 000), or a family that cannot reach a size.
#[allow(clippy::too_many_arguments)]
pub fn sweep_scaled(
    hw: &Hardware,
    method: Method,
    par: Parallelism,
    c: &Constraints,
    scaling: Scaling,
    from: f64,
    to: f64,
    points: u32,
) -> Result<Vec<SweepRow>, Error> {
    let max = 12.0 * math::pow(f64::from(MAX_X), 5.0);
    let from = check_range("sweep start (parameters)", from, 488.0, max)?;
    let to = check_range("sweep end (parameters)", to, from, max)?;
    crate::error::check_count("sweep points", points.into(), 1, 10_000)?;
    let mut rows: Vec<SweepRow> = Vec::with_capacity(points as usize);
    for i in 0..points {
        let t = if points == 1 {
            0.0
        } else {
            f64::from(i) / f64::from(points - 1)
        };
        let model = scaling.model(from * math::pow(to / from, t))?;
        if rows.last().is_some_and(|r| r.model == model) {
            continue;
        }
        rows.push(SweepRow {
            x: if scaling == Scaling::XFamily {
                model.layers
            } else {
                0
            },
            params: model.params(),
            model,
            plan: rules(&model, hw, method, par, c),
        });
    }
    Ok(rows)
}
