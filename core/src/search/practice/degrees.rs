//! What the practice search enumerates for each dimension (the module
//! documentation of [`super`] says why): the degrees tried, the ZeRO stages
//! in order, and the memory floors that skip a candidate before it is
//! evaluated.

use super::{Space, LONG_SEQUENCE};
use crate::cost::assumptions::{Assumptions, Zero};
use crate::cost::{Method, PipelineSchedule};
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::search::Constraints;

/// The context-parallel degrees tried for a model (none but 1 where the
/// framework has no context parallelism:
/// [`crate::cost::framework::Framework::model_parallel`]).
pub(super) fn context_degrees(
    model: &ModelShape,
    space: &Space,
    a: &Assumptions,
) -> alloc::vec::Vec<u64> {
    match space.context {
        Some(c) => alloc::vec![u64::from(c)],
        None if model.seq_len >= LONG_SEQUENCE && a.framework.model_parallel() => {
            let s = u64::from(model.seq_len);
            (0..8)
                .map(|k| 1u64 << k)
                .filter(|cp| s % cp == 0 && s / cp >= 4096)
                .collect()
        }
        None => alloc::vec![1],
    }
}

/// No virtual stages to try: no pipeline, the modular pipeline, or a fixed
/// zero-bubble schedule (ZB-H1, DualPipe and ZB-V take none).
pub(super) fn single_stage_chunks(space: &Space, method: Method, p: u64) -> bool {
    p == 1
        || method.layered()
        || matches!(
            space.pipeline_schedule,
            Some(PipelineSchedule::ZbH1 | PipelineSchedule::DualPipe | PipelineSchedule::ZbV)
        )
}

/// The (expert, expert tensor) degrees tried at tensor degree `t` for
/// `dp_cp` data × context ranks, the second as [`crate::cost::Config::expert_tensor`]
/// holds it (0: t): the fixed ones; (1, 0) for a dense model; else every
/// divisor ep of the routed experts whose ep·etp divides t·dp_cp, with
/// etp = t (Megatron-Core's default) and, where t > 1, etp = 1 (experts
/// whole, each on its own GPU: MoE parallel folding).
pub(super) fn expert_degrees(
    model: &ModelShape,
    space: &Space,
    t: u64,
    dp_cp: u64,
) -> alloc::vec::Vec<(u64, u32)> {
    let mut out = alloc::vec::Vec::new();
    expert_options(model, space, t, dp_cp, |ep, x| out.push((ep, x)));
    out
}

/// Calls `f` with each of [`expert_degrees`]' pairs, ascending in ep for
/// each expert tensor degree.
fn expert_options(
    model: &ModelShape,
    space: &Space,
    t: u64,
    dp_cp: u64,
    mut f: impl FnMut(u64, u32),
) {
    let Some(e) = model.experts else {
        f(
            space.expert.map_or(1, u64::from),
            space.expert_tensor.unwrap_or(0),
        );
        return;
    };
    let (fixed, free) = ([space.expert_tensor.unwrap_or(0)], [0, 1]);
    let etps: &[u32] = match space.expert_tensor {
        Some(_) => &fixed,
        None if t > 1 => &free,
        None => &free[..1],
    };
    for &x in etps {
        let etp = if x == 0 { t } else { u64::from(x) };
        if etp == 0 || u64::from(e.ffn) % etp != 0 {
            continue;
        }
        let fits = |ep: u64| (t * dp_cp) % (ep * etp) == 0;
        match space.expert {
            Some(ep) => {
                if fits(ep.into()) {
                    f(ep.into(), x);
                }
            }
            None => divisors(u64::from(e.routed))
                .filter(|&ep| fits(ep))
                .for_each(|ep| f(ep, x)),
        }
    }
}

/// The most a routed expert's weights are split among [`expert_degrees`]'
/// pairs, over t: max ep·etp / t (1 for a dense model or where none
/// fits), without building the list.
pub(super) fn max_expert_split(model: &ModelShape, space: &Space, t: u64, dp_cp: u64) -> f64 {
    let mut most = 0;
    expert_options(model, space, t, dp_cp, |ep, x| {
        let etp = if x == 0 { t } else { u64::from(x) };
        most = most.max(ep * etp);
    });
    if most == 0 {
        1.0
    } else {
        most as f64 / t.max(1) as f64
    }
}

pub(super) const RECOMPUTE: [ActivationModel; 3] = [
    ActivationModel::None,
    ActivationModel::Selective,
    ActivationModel::Full,
];

/// The divisors of `n`, ascending: those up to √n by trial division and
/// their cofactors (a batch of 2³⁰ sequences has its 31 divisors in 2¹⁵
/// trials, where trying every number up to it took the search minutes).
pub(super) fn divisors(n: u64) -> impl Iterator<Item = u64> {
    let mut low = alloc::vec::Vec::new();
    let mut k = 1;
    while k <= n / k {
        if n % k == 0 {
            low.push(k);
        }
        k += 1;
    }
    // Then the cofactors, largest divisor first among `low` giving the
    // smallest; a square's root once.
    let len = low.len();
    let root = usize::from(low.last().is_some_and(|&k| k * k == n));
    let all = 2 * len - root;
    (0..all).map(move |i| {
        if i < len {
            low[i]
        } else {
            n / low[all - 1 - i]
        }
    })
}

/// The pipeline degrees tried: the divisors of the layers (even stages)
/// and the powers of two below them (uneven stages, as Llama 3.1 405B's 126
/// layers over 16), the degrees practitioners pick.
pub fn pipe_degrees(layers: u32) -> impl Iterator<Item = u64> {
    let l = u64::from(layers);
    (1..=l).filter(move |p| l % p == 0 || p.is_power_of_two())
}

/// The free data degrees up to `max`, sorted: 1, 3 and 5 times the powers
/// of two. Built once per micro-batch size; [`data_degrees`] cuts it.
pub(super) fn data_ladder(max: u64) -> alloc::vec::Vec<u64> {
    let mut out = alloc::vec::Vec::new();
    // Kept sorted and unique by insertion (a sort's instantiation costs the
    // page ~3.5 KB of wasm).
    for base in [1u64, 3, 5] {
        let mut d = base;
        while d <= max {
            if let Err(at) = out.binary_search(&d) {
                out.insert(at, d);
            }
            d *= 2;
        }
    }
    out
}

/// The data degrees to try for (t, p, b) (see the module's documentation);
/// `ladder` is [`data_ladder`] of the batch limit over b.
pub(super) fn data_degrees(
    c: &Constraints,
    space: &Space,
    per_replica: u64,
    micro_batch: u64,
    batch_limit: u64,
    ladder: &[u64],
) -> alloc::vec::Vec<u64> {
    let mut out = alloc::vec::Vec::new();
    if let Some(d) = space.data {
        out.push(u64::from(d));
        return out;
    }
    if let Some(n) = c.exact_gpus {
        if n % per_replica == 0 {
            out.push(n / per_replica);
        }
        return out;
    }
    let by_budget = c.max_gpus.map_or(u64::MAX, |g| g / per_replica);
    if let Some(b) = space.global_batch {
        if b % micro_batch == 0 {
            out.extend(divisors(b / micro_batch).filter(|&d| d <= by_budget));
        }
        return out;
    }
    let max = by_budget.min(batch_limit / micro_batch);
    if max == 0 {
        return out;
    }
    out.extend(ladder.iter().copied().take_while(|&d| d < max));
    out.push(max);
    out
}

/// The ZeRO stages tried for a candidate, from the fastest to the least
/// memory. ZeRO-1 dominates 0 (the same traffic, split; less memory and
/// optimizer work), and without a pipeline the stages go 1, 3 gathered
/// once per step (the same traffic, less memory), 2, 3: the first that
/// fits is the fastest of them.
pub(super) fn zeros_for<'s>(
    space: &'s Space,
    a: &Assumptions,
    method: Method,
    p: u64,
) -> &'s [Zero] {
    match space.zero {
        Some(ref z) => core::slice::from_ref(z),
        // The method sets the sharding (its ZeRO-3, or none). Layered
        // accumulation restores a partitioned state once per layer and step
        // (sec. 3): ZeRO-3's memory, not per step.
        None if method.layered() && method.partitioned() => &[Zero::Three],
        None if method.partitioned() => &[Zero::ThreePerStep, Zero::Three],
        None if method.layered() => &[Zero::None],
        // Megatron-style: as the framework shards a replicated layout
        // (sharded weights are the ZeRO-3 / FSDP row, [`Method::admits`]).
        None => a.framework.replicated_zeros(p > 1),
    }
}

/// A floor on the heaviest device's memory for (t, p, d), whatever the
/// rest: the training state of ⌈d_l/p⌉ layers (the heaviest device holds
/// at least that many) under the most sharded ZeRO stage tried, and the
/// reserve. [`activation_floor`] adds what one layer needs while it runs.
/// Built once per (t, p); [`StateFloor::at`] takes the data ranks.
pub(super) struct StateFloor {
    zero: Zero,
    /// Bytes per parameter of the weights, gradients and optimizer.
    bytes: (f64, f64, f64),
    layers: f64,
    /// One layer's weights on a GPU apart from the routed experts, and the
    /// routed experts' over t (not yet over ep).
    dense: f64,
    experts: f64,
    reserve: f64,
    /// The tensor degree.
    t: u64,
}

impl StateFloor {
    pub(super) fn new(
        model: &ModelShape,
        space: &Space,
        a: &Assumptions,
        method: Method,
        t: u64,
        p: u64,
    ) -> Self {
        let zero = zeros_for(space, a, method, p)
            .last()
            .copied()
            .unwrap_or(Zero::None);
        let zero = if method.partitioned() && zero.stage() < 3 {
            Zero::Three
        } else {
            zero
        };
        let (dense, experts) = crate::cost::step::layer_weights_on_gpu(
            model,
            u32::try_from(t).unwrap_or(u32::MAX),
            1,
            0,
        );
        Self {
            zero,
            bytes: {
                // As the stage's memory counts them: the gradient buffer in
                // the reduction's dtype; none at the peak where gradients
                // are freed between steps (a floor).
                let (w, g, o) = a.precision.bytes();
                let g = if a.frees_gradients {
                    0.0
                } else if a.precision == crate::cost::assumptions::Precision::MixedAdam {
                    a.gradient_reduce_bytes
                } else {
                    g
                };
                (w, g, o)
            },
            layers: u64::from(model.layers).div_ceil(p) as f64,
            dense,
            experts,
            reserve: a.reserve.0,
            t,
        }
    }

    /// The floor at `d` data × context ranks: the routed experts as spread
    /// as any expert degrees allowed at this d spread them (a floor for
    /// every (ep, etp) tried).
    pub(super) fn at(&self, model: &ModelShape, space: &Space, d: u64) -> f64 {
        let (sw, sg, so) = self.zero.shards(d as f64);
        let (bw, bg, bo) = self.bytes;
        let mut total = self.layers * self.dense * (bw / sw + bg / sg + bo / so) + self.reserve;
        if self.experts > 0.0 {
            // Split ep·etp ways, over t·d / (ep·etp) expert-data ranks.
            let split = max_expert_split(model, space, self.t, d);
            let (swe, sge, soe) = self.zero.shards(d as f64 / split);
            total += self.layers * self.experts / split * (bw / swe + bg / sge + bo / soe);
        }
        total
    }
}

/// One layer's activations for micro-batch `b` at tensor degree `t`, as
/// split as sequence parallelism allows: every recomputation keeps at
/// least that while a layer runs ([`crate::cost::step::kept_per_token`]).
pub(super) fn activation_floor(
    model: &ModelShape,
    space: &Space,
    a: &Assumptions,
    t: u64,
    b: u64,
) -> f64 {
    let tf = t as f64;
    let sp = space.sequence_parallel.unwrap_or(true) && t > 1;
    let t_sp = if sp { tf } else { 1.0 };
    let (rep, split, scores) = crate::cost::step::saved_per_token(model, a);
    (rep / t_sp + (split + scores) / tf) * (b * u64::from(model.seq_len)) as f64
}
