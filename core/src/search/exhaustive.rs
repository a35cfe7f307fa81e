//! The exhaustive search: every valid configuration, bounded so that it
//! stays fast without losing the optimum.

use alloc::vec::Vec;

use crate::cost::{evaluate, Config, Evaluation, Method};
use crate::error::Error;
use crate::hardware::Hardware;
use crate::math;
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::search::constraints::{batch_limit, fewest_gpus};
use crate::search::rules::tensor_candidates;
use crate::search::{Binding, Bindings, Constraints, Parallelism, Plan};

/// What an exhaustive search returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchResult {
    /// The fastest configuration (or, with a target time, the fewest GPUs).
    pub best: Plan,
    /// Configurations evaluated.
    pub evaluated: u64,
}

pub(crate) fn method_list(method: Option<Method>) -> &'static [Method] {
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
                                ..Config::default()
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
                                ..Config::default()
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
        reason: crate::search::NO_PLAN_CONSTRAINTS,
        why: None,
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
