//! The paper's selection rules (sec. 5, MODEL_NOTES facts 8–13): one plan
//! per method and parallelism setting, each value set by the constraint
//! that binds.

use crate::cost::{evaluate, Config, Evaluation, Method, TransferKind};
use crate::error::Error;
use crate::hardware::Hardware;
use crate::math;
use crate::model::ModelShape;
use crate::search::constraints::{batch_limit, fewest_gpus};
use crate::search::{Binding, Bindings, Constraints, Parallelism, Plan};

/// Largest tensor-parallel overhead the rules accept (sec. 5: "We impose a
/// maximum overhead of 25 %").
pub const MAX_TENSOR_OVERHEAD: f64 = 0.25;
/// Largest exposed data-parallel reduction overhead with a pipeline (sec. 5).
pub const MAX_EXPOSED_REDUCTION: f64 = 0.25;

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
pub(crate) fn tensor_candidates(heads: u32, cap: u32) -> impl Iterator<Item = u32> {
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
        if c.budget().is_some_and(|g| u64::from(t) > g) {
            return Err(Error::NoPlan {
                reason: crate::search::NO_PLAN_TENSOR_BUDGET,
                why: None,
            });
        }
        return Ok((t, Some(Binding::TensorFixed { tensor: t })));
    }
    if !par.tensor() {
        return Ok((1, None));
    }
    let node_cap = hw.node_size.unwrap_or(model.heads);
    // No plan may use more GPUs than the budget, the tensor group included.
    let budget_cap = c
        .budget()
        .map_or(u32::MAX, |g| u32::try_from(g).unwrap_or(u32::MAX));
    let cap = node_cap.min(budget_cap);
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
            let capped = rejected.is_none() && t < model.heads && t == cap;
            let b = if capped && budget_cap < node_cap {
                Binding::TensorBudget {
                    tensor: t,
                    overhead,
                    gpus: budget_cap,
                }
            } else {
                Binding::Tensor {
                    tensor: t,
                    overhead,
                    rejected,
                    node_size: (rejected.is_none() && t < model.heads && hw.node_size.is_some())
                        .then_some(node_cap),
                }
            };
            return Ok((t, (t > 1).then_some(b)));
        }
        rejected = Some((t, overhead));
    }
    Ok((1, None))
}

#[derive(Clone, Copy)]
struct Ctx<'a> {
    model: &'a ModelShape,
    hw: &'a Hardware,
    c: &'a Constraints,
    limit: f64,
    /// Is the limit the critical batch (no lower limit was set)?
    critical: bool,
    batch_max: u64,
    budget: Option<u64>,
    /// A given cluster: the user fixed the GPU count (fact 14).
    exact: bool,
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

/// The pipeline-overlap minimum n_µ ≥ n_l·(1 + ν_net/ν_l) (fact 8, C.4.2),
/// from the evaluator's own ν_l at n_µ = n_l.
fn overlap_min(ctx: &Ctx<'_>, base: Config, pipe: u32) -> Result<u32, Error> {
    if pipe <= 1 {
        return Ok(1);
    }
    let e = ctx.eval(Config {
        pipe,
        micro_batches: pipe,
        ..base
    })?;
    let t = e.transfers.get(TransferKind::Pipeline);
    Ok(t.map_or(1, |t| {
        math::ceil(f64::from(pipe) * (1.0 + t.threshold.0 / t.intensity.0)) as u32
    }))
}

/// The modular pipeline on a given cluster (MODEL_NOTES fact 14, Table
/// 6.3): n_l = the smallest n_µ satisfying eq. 9, one spare micro-batch or
/// more so that the pipeline transfers overlap, n_µ = ⌈n_l·(1 + ν_net/ν_l)⌉,
/// and n_b = n_gpu/(n_l·n_a), the batch staying at or below the limit.
fn given_cluster(
    ctx: &Ctx<'_>,
    base: Config,
    nmu: u32,
    gpus: u64,
) -> Result<(Evaluation, u32, bool), Error> {
    let na = u64::from(base.tensor);
    let pipe_budget = (gpus / na).clamp(1, u64::from(u32::MAX)) as u32;
    let pipe = nmu.min(ctx.model.layers).min(pipe_budget).max(1);
    let min = overlap_min(ctx, base, pipe)?;
    let micro_batches = nmu.max(min).max(pipe);
    let (data, capped) = ctx.data_cap(micro_batches.into(), u64::from(pipe) * na);
    let e = ctx.eval(Config {
        data,
        pipe,
        micro_batches,
        ..base
    })?;
    Ok((e, min, capped))
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
        if let (true, Some(gpus), true) = (ctx.exact, ctx.budget, par.data() && par.pipe()) {
            // Fact 14: eq. 9's n_µ is that of a data dimension filled up to
            // the batch limit, not of one the cluster caps.
            let free = |n: u32| Config {
                data: (ctx.batch_max / u64::from(n)).clamp(1, crate::MAX_DEGREE) as u32,
                micro_batches: n,
                ..base
            };
            let (nmu, _, bound, hidden) = smallest(ctx.batch_max, |n| ctx.eval(free(n)))?;
            let (e, min, capped) = given_cluster(ctx, base, nmu, gpus)?;
            if let Some(kind) = bound {
                binding.push(if hidden {
                    transfer_binding("micro-batches", nmu, &ctx.eval(free(nmu))?, kind)
                } else {
                    Binding::Unhidden {
                        kind,
                        equation: e.transfers.get(kind).map_or("", |t| t.equation),
                    }
                });
            }
            binding.push(Binding::PipeCluster {
                pipe: e.config.pipe,
            });
            if e.config.pipe > 1 {
                binding.push(Binding::PipelineOverlap {
                    micro_batches: e.config.micro_batches,
                    min,
                });
            }
            budget_binding(e.config.data, capped, &e, binding);
            return Ok(e);
        }
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
    // the GPU budget allows, and no deeper than the batch, whose sequences
    // are the most micro-batches there can be (n_µ ≥ n_l, fact 7; a batch
    // of one sequence had a three-stage pipeline of one micro-batch).
    let pipe = if method == Method::Baseline && par.pipe() {
        m.layers
            .min(pipe_budget)
            .min(ctx.batch_max.clamp(1, u64::from(u32::MAX)) as u32)
    } else {
        1
    };
    // The pipeline-overlap minimum n_µ ≥ n_l·(1 + ν_net/ν_l), from the
    // evaluator's own ν_l.
    let nmu_min = overlap_min(ctx, base, pipe)?;
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
        exact: c.exact_gpus.is_some(),
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
        reason: crate::search::NO_PLAN_MEMORY,
        why: None,
    })
}
