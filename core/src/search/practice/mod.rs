//! The exhaustive search under the practice knobs: every tensor,
//! pipeline and data degree, virtual stages, micro-batch, sequence
//! parallelism, recomputation and ZeRO stage, each either fixed by the
//! caller ([`Space`]) or free, scored by [`crate::cost::evaluate_with`] so
//! that the search and the evaluator never disagree.
//!
//! # What is enumerated
//!
//! * tensor degree t: divisors of the heads and of the key/value heads, at
//!   most the node size (whole heads per device, as Megatron-Core shards);
//! * pipeline degree p: the divisors of d_l and the powers of two below it
//!   (uneven stages costed by their imbalance), with at least p
//!   micro-batches; with an exact GPU count, p divides N/t;
//! * virtual stages v: divisors of ⌈d_l/p⌉ (whole layers per chunk), and
//!   only when the micro-batches are a multiple of p (PTD-P sec. 2.2.2);
//! * micro-batch b ∈ {1, 2, 4, 8};
//! * data degree d: N/(t·p) for an exact count; with a global batch B,
//!   the d for which d·b divides B; with the batch free, d of the forms
//!   2^k, 3·2^k, 5·2^k and the largest the budget allows (a geometric
//!   ladder, not every integer), the batch then the largest multiple of
//!   d·b at most the batch limit (the critical batch by default);
//! * recomputation none / selective / full; sequence parallelism with t > 1;
//! * for a mixture of experts, the expert-parallel degree ep: every divisor
//!   of the routed experts that divides d·cp (no dominance: a larger ep
//!   holds fewer experts but sends more of the all-to-all off the node);
//! * with full recomputation, ZeRO-R's checkpoints kept, partitioned (P_a,
//!   without sequence parallelism, which already splits them) or offloaded
//!   to CPU memory (P_a+cpu);
//! * the pipeline schedule: 1F1B (interleaved with v > 1); GPipe only when
//!   fixed: it has 1F1B's bubble and holds all m micro-batches; ZB-H1 and
//!   DualPipe when fixed, or beside 1F1B at v = 1 with
//!   [`Space::zero_bubble`] (DualPipe where p and m are even, m ≥ 2p);
//!   ZeRO 0 or 1 with a pipeline, 0–3 (and 3 gathered once per step)
//!   without (DeepSpeed and Megatron-Core do not shard gradients under a
//!   pipeline that accumulates them).
//!
//! # Dominance, and why the search is fast
//!
//! In this model some choices are never slower and never use more memory
//! than others, so the search skips the dominated ones (when they are not
//! fixed): ZeRO-1 over 0 (the same traffic, split), sequence parallelism
//! over none (t > 1; less memory and element-wise work, the same traffic).
//! ZeRO stages are ordered from fastest to least memory (1 → 3 gathered
//! per step → 2 → 3) and the first that fits ends the list; ZeRO-R's
//! placements likewise (kept → P_a → P_a+cpu), each with its first fitting
//! ZeRO stage, ending when one fits with the fastest stage. Every
//! recomputation is tried: its extra GEMMs also hide overlapped
//! collectives, so none is not always fastest. A test checks the result
//! against brute force over every combination, and a bound on the GEMMs
//! alone skips what cannot beat the best so far: at their kernels' rates
//! by shape for a dense model (an unaligned width's fallback kernels run
//! at a fraction of the ceiling: the page's size slider met X\[210\] on
//! H100s, whose plans run at 12 % of peak, in 10.6 ms natively, now 1.6).
//!
//! A candidate that does not fit is never returned. The objective is the
//! wall-clock time of the whole run of the token budget
//! ([`crate::run::Objective`]: the training time with what interruptions
//! and checkpoints lose, which grows with the GPUs); with a target time,
//! the fewest GPUs that meet it, then the fastest. The floors bound the
//! wall time: the training time's floor times Young's least factor on the
//! candidate's GPU count ([`Objective::floor`]). Where no layout's run
//! finishes (every wall time infinite), the fastest training wins.

mod candidate;
mod degrees;
pub mod fixed;
mod record;

use candidate::{evaluate_candidate, Candidate};
pub use degrees::pipe_degrees;
use degrees::{
    activation_floor, context_degrees, data_degrees, data_ladder, divisors, single_stage_chunks,
    StateFloor,
};
pub(crate) use record::Recorder;

use crate::cost::assumptions::{Assumptions, Zero};
use crate::cost::{Evaluation, Method, PipelineSchedule, ZeroR};
use crate::error::Error;
use crate::hardware::Hardware;
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::run::Objective;
use crate::search::{Bindings, Constraints, Parallelism, Plan, SearchResult};

/// The dimensions a caller fixes (`None`: searched).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Space {
    /// The method (default the Megatron-style baseline: 1F1B or
    /// interleaved, ZeRO as searched); `Partitioned` fixes ZeRO-3,
    /// `Improved` is layered gradient accumulation with the modular
    /// pipeline (Lamy-Poirier secs. 3–4) under the practice knobs.
    pub method: Option<Method>,
    /// Data-parallel degree.
    pub data: Option<u32>,
    /// Pipeline degree.
    pub pipe: Option<u32>,
    /// Virtual stages per pipeline device.
    pub virtual_stages: Option<u32>,
    /// Interleaved 1F1B's micro-batches a group
    /// ([`crate::Config::microbatch_group`]); none: Megatron-Core's default,
    /// p, so that only micro-batch counts p divides interleave.
    pub microbatch_group: Option<u32>,
    /// Micro-batch size.
    pub micro_batch: Option<u32>,
    /// Sequence parallelism.
    pub sequence_parallel: Option<bool>,
    /// ZeRO stage.
    pub zero: Option<Zero>,
    /// Recomputation.
    pub recompute: Option<ActivationModel>,
    /// The pipeline schedule (searched: 1F1B, which GPipe never beats).
    pub pipeline_schedule: Option<PipelineSchedule>,
    /// ZeRO-R activation checkpoints (full recomputation only).
    pub zero_r: Option<ZeroR>,
    /// Context-parallel degree (searched for sequences of [`LONG_SEQUENCE`]
    /// tokens and more: powers of two leaving at least 4 k tokens per GPU).
    pub context: Option<u32>,
    /// The global batch in sequences.
    pub global_batch: Option<u64>,
    /// Expert-parallel degree (searched for mixtures of experts: every
    /// divisor of the routed experts whose product with the expert tensor
    /// degree divides t·d·cp).
    pub expert: Option<u32>,
    /// The routed experts' tensor degree
    /// ([`crate::cost::Config::expert_tensor`]; 0: t). Searched: t and,
    /// where t > 1, 1.
    pub expert_tensor: Option<u32>,
    /// The embedding's work in layers in the pipeline split
    /// ([`crate::cost::Config::embedding_layers`]); default 0.
    pub embedding_layers: Option<u32>,
    /// The head's work in layers in the pipeline split
    /// ([`crate::cost::Config::head_layers`]); by default the head's flops in layers
    /// ([`crate::cost::step::balanced_head`]).
    pub head_layers: Option<u32>,
    /// Full recomputation of only this many layers of each chunk
    /// ([`crate::cost::Config::recompute_layers`]): fixes recomputation to
    /// full.
    pub recompute_layers: Option<u32>,
    /// Layers of each chunk whose activations are offloaded
    /// ([`crate::cost::Config::offload_layers`]).
    pub offload_layers: Option<u32>,
    /// What selective recomputation recomputes
    /// ([`crate::cost::Config::recompute_modules`]): fixes recomputation
    /// to selective.
    pub recompute_modules: Option<crate::cost::saved::Modules>,
    /// The modules whose saved tensors are offloaded
    /// ([`crate::cost::Config::offload_modules`]).
    pub offload_modules: Option<crate::cost::offload::OffloadModules>,
    /// With the schedule free, also try ZB-H1, ZB-V and DualPipe where
    /// there are no virtual stages (`--pipeline-schedule any`); otherwise the search
    /// keeps to Megatron-Core's 1F1B and interleaved 1F1B.
    pub zero_bubble: bool,
}

/// The smallest bubble factor a candidate's schedules allow, against
/// (p−1)/m: 1/v for 1F1B with v virtual stages; 1/3 for ZB-H1 (its
/// (F + B − W)/(F + B + W) is 1/3 without recomputation, more with); 1/6
/// for ZB-V (half ZB-H1's); 0 where DualPipe may run (its bubble is (p/2 − 1)/(p − 1) of ZB-H1's,
/// down to none at p = 2).
fn bubble_factor(space: &Space, v: u64) -> f64 {
    match space.pipeline_schedule {
        Some(PipelineSchedule::ZbH1) => 1.0 / 3.0,
        Some(PipelineSchedule::ZbV) => 1.0 / 6.0,
        Some(PipelineSchedule::DualPipe) => 0.0,
        None if space.zero_bubble && v == 1 => 0.0,
        _ => 1.0 / v as f64,
    }
}

const MICRO_BATCHES: [u32; 4] = [1, 2, 4, 8];

/// From this sequence length on, the search tries context parallelism.
pub const LONG_SEQUENCE: u32 = 32_768;

/// Is `a` a better plan than `b` under the constraints: its whole run
/// ends first (`o`: interruptions and checkpoints included, so that more
/// GPUs that fail more often can lose); with a target time, meeting it
/// with fewer GPUs; cheaper (fewer GPU-hours) when `cheapest` is set,
/// within the target time if there is one.
#[must_use]
pub fn better(a: &Evaluation, b: &Evaluation, c: &Constraints, o: &Objective) -> bool {
    let gpu_seconds = |e: &Evaluation| e.gpus as f64 * e.time.0;
    if let Some(days) = c.target_days {
        let (ma, mb) = (a.time.days() <= days, b.time.days() <= days);
        if ma != mb {
            return ma;
        }
        if ma && c.cheapest {
            return gpu_seconds(a) < gpu_seconds(b);
        }
        if ma && a.gpus != b.gpus {
            return a.gpus < b.gpus;
        }
    } else if c.cheapest {
        return gpu_seconds(a) < gpu_seconds(b);
    }
    let (wa, wb) = (o.seconds(a), o.seconds(b));
    if wa != wb {
        return wa < wb;
    }
    a.time.0 < b.time.0
}

/// Does a candidate whose wall time is at least `floor` lose to a best
/// plan of wall time `best`? Never while the best never finishes: ties
/// between runs that never finish go to the fastest training.
fn beyond(floor: f64, best: f64) -> bool {
    best.is_finite() && floor >= best
}

/// The practice optimum.
///
/// # Errors
///
/// Invalid inputs, or no configuration that fits and meets the
/// constraints ([`crate::search::NO_PLAN_CONSTRAINTS`]).
pub fn practice(
    model: &ModelShape,
    hw: &Hardware,
    par: Parallelism,
    c: &Constraints,
    space: &Space,
    a: &Assumptions,
) -> Result<SearchResult, Error> {
    let mut off = Recorder::OFF;
    search(model, hw, par, c, space, a, &mut off)
}

/// [`practice`], keeping in `rec` what it rejects when `rec` records.
pub(crate) fn search(
    model: &ModelShape,
    hw: &Hardware,
    par: Parallelism,
    c: &Constraints,
    space: &Space,
    a: &Assumptions,
    rec: &mut Recorder,
) -> Result<SearchResult, Error> {
    model.validate()?;
    hw.validate()?;
    c.validate()?;
    if let Some(what) = crate::cost::assumptions::format_refusal(a.compute, &hw.gpu) {
        return Err(Error::Incompatible { what });
    }
    let method = space.method.unwrap_or(Method::Baseline);
    fixed::check(model, hw, par, c, space, method)?;
    // A pipeline the framework cannot shard (DeepSpeed's engine: ZeRO ≤ 1).
    let sharded = space.zero.map_or(method.partitioned(), |z| {
        z.stage() >= 2 && !method.layered()
    });
    let unpipelined = sharded && a.framework.pipeline_refusal(Zero::Three, 2).is_some();
    if let (true, Some(p)) = (unpipelined, space.pipe.filter(|&p| p > 1)) {
        let zero = space.zero.unwrap_or(Zero::Three);
        if let Some(what) = a.framework.pipeline_refusal(zero, p) {
            return Err(Error::Incompatible { what });
        }
    }
    let heads = u64::from(model.heads);
    let kv = u64::from(model.kv_heads);
    let node = u64::from(hw.node_size.unwrap_or(u32::MAX));
    let layers = model.layers;
    // The batch limit when free: the user's, else today's batch for the
    // run's flop (DeepSeek LLM's law, `ModelShape::batch_law`).
    let batch_limit = match c.batch {
        Some(b) => b,
        None => batch_limit(model, a)?,
    };

    // The kernels' rates by shape, computed once per (b, t, cp, …) for
    // the floors and the evaluations.
    let mut rates = candidate::RateCache::default();
    let o = Objective::new(model, hw, a, c.failures);
    // Phase 1: every (t, p, b, d, m) with its floor, the GEMMs of its m
    // micro-batches and the smallest bubble of its v, per token.
    let mut cands: alloc::vec::Vec<Candidate> = alloc::vec::Vec::new();
    // A framework without model parallelism of its own tries none unless
    // a degree is fixed.
    let split = a.framework.model_parallel();
    let tensors = divisors(kv)
        .filter(|t| heads % t == 0 && *t <= node && (node == u64::from(u32::MAX) || node % t == 0))
        .filter(|&t| {
            c.tensor
                .map_or(t == 1 || (par.tensor() && split), |f| u64::from(f) == t)
        });
    let contexts = context_degrees(model, space, a);
    // The micro-batch sizes tried: the fixed one (any size), else 1–8.
    let sizes: &[u32] = match space.micro_batch {
        Some(ref b) => core::slice::from_ref(b),
        None => &MICRO_BATCHES,
    };
    let ladders: alloc::vec::Vec<alloc::vec::Vec<u64>> = sizes
        .iter()
        .map(|&b| data_ladder(batch_limit / u64::from(b)))
        .collect();
    for (t, cp) in tensors.flat_map(|t| contexts.iter().map(move |&cp| (t, cp))) {
        let pipes: alloc::vec::Vec<u64> = match space.pipe {
            Some(p) => alloc::vec![u64::from(p)],
            None if !par.pipe() || !split || unpipelined => alloc::vec![1],
            None => pipe_degrees(layers).collect(),
        };
        for p in pipes {
            // Virtual stages given interleave a pipeline: none without one.
            if p == 1 && space.virtual_stages.is_some_and(|v| v > 1) {
                continue;
            }
            let per_replica = t * cp * p;
            if let Some(n) = c.exact_gpus.filter(|n| n % per_replica != 0) {
                rec.cluster(n);
                continue;
            }
            if let Some(g) = c.max_gpus.filter(|&g| per_replica > g) {
                rec.budget(g, per_replica);
                continue;
            }
            let state = StateFloor::new(model, space, a, method, t, p);
            let v_max = match space.virtual_stages {
                Some(v) => u64::from(v),
                None if single_stage_chunks(space, method, p) => 1,
                None => u64::from(layers).div_ceil(p),
            };
            for (&b, ladder) in sizes.iter().zip(&ladders) {
                let b = u64::from(b);
                // The kernels by shape for (t, b, cp), as the evaluations
                // take them (they share them; a mixture's the least over
                // its expert degrees): an unaligned shape's fallback
                // kernels, far under the ceiling, and small grouped expert
                // GEMMs raise the floor (one GPU alone, where t·p·cp is
                // 1, runs the faster ones: a floor for every d). Not with
                // the embedding counted in the split: the first device
                // may then hold fewer than d_l/p layers, which the floor
                // takes, and only the ceilings' slack covers that.
                let ends_counted = space.embedding_layers.unwrap_or(0) > 0
                    || (space.embedding_layers.is_none()
                        && space.virtual_stages.is_some()
                        && v_max * p > u64::from(layers));
                let shaped = if !ends_counted {
                    let probe = crate::cost::Config {
                        tensor: t as u32,
                        pipe: p as u32,
                        context: cp as u32,
                        micro_batch: b as u32,
                        data: 1,
                        ..crate::cost::Config::default()
                    };
                    rates.least_over_experts(model, hw, &probe, a, space)
                } else {
                    None
                };
                let mb_floor = crate::cost::step::micro_batch_floor(
                    model,
                    hw,
                    a,
                    t as u32,
                    p as u32,
                    b as u32,
                    cp as u32,
                    shaped.as_ref(),
                );
                let activations = activation_floor(model, space, a, t, b) / cp as f64;
                // Ascending d: the GPUs grow and the micro-batches m shrink,
                // so the first d past the budget or below p micro-batches
                // ends the list.
                let ds = data_degrees(c, space, per_replica, b, batch_limit, ladder);
                if ds.is_empty() && rec.on {
                    match space.global_batch {
                        Some(gb) => rec.split(gb),
                        None if batch_limit / b == 0 => {
                            rec.micro_batches(batch_limit, 1, b, 0, p);
                        }
                        None => {}
                    }
                }
                for d in ds {
                    if !par.data() && d > 1 {
                        break;
                    }
                    let gpus = d * per_replica;
                    if let Some(g) = c.max_gpus.filter(|&g| gpus > g) {
                        rec.budget(g, gpus);
                        break;
                    }
                    if let Some(g) = c.exact_gpus.filter(|&g| gpus != g) {
                        rec.cluster(g);
                        continue;
                    }
                    let (m, fewer) = match space.global_batch {
                        Some(gb) if gb % (d * b) == 0 => (gb / (d * b), None),
                        Some(gb) => {
                            rec.split(gb);
                            continue;
                        }
                        None => {
                            // Under the batch law's limit (not a batch the
                            // user gave, which is trained as the largest it
                            // allows), also the largest count of
                            // micro-batches the pipeline degree divides,
                            // which interleaves where the limit's own count
                            // does not (Megatron-Core's default group is p):
                            // Nemotron-4 340B on ≤ 6 144 H100s trains in
                            // 48.4 days where the limit's count gave 49.4.
                            let m = batch_limit / (d * b);
                            let even = m / p * p;
                            let interleaves = v_max > 1
                                && c.batch.is_none()
                                && space.microbatch_group.is_none()
                                && !method.layered();
                            (m, (interleaves && m % p != 0 && even >= p).then_some(even))
                        }
                    };
                    // At least as many micro-batches as stages: the modular
                    // pipeline needs it (sec. 4), and a 1F1B pipeline with
                    // fewer idles most of its GPUs (the paper's exhaustive
                    // search keeps n_µ ≥ n_l too; without it the "fastest"
                    // plan runs millions of GPUs at 1 % MFU).
                    if m == 0 || m < p {
                        rec.micro_batches(space.global_batch.unwrap_or(batch_limit), d, b, m, p);
                        break;
                    }
                    // (Recording, every layout's real memory is measured.)
                    if !rec.on && state.at(model, space, d * cp) + activations > hw.gpu.memory.0 {
                        continue;
                    }
                    let seq = f64::from(model.seq_len);
                    for m in core::iter::once(m).chain(fewer) {
                        let floor = |v: u64| {
                            let (pf, mf) = (p as f64, m as f64);
                            let bubble = if method.layered() {
                                (pf - 1.0) * pf / (mf * f64::from(layers))
                            } else {
                                // The smaller of v's and, at v = 1, ZB-H1's.
                                (pf - 1.0) / mf
                                    * bubble_factor(space, v).min(bubble_factor(space, 1))
                            };
                            mf * (1.0 + bubble) * mb_floor
                                / ((d * b * m) as f64 * f64::from(model.seq_len))
                        };
                        // Per token of the run's wall clock: the training
                        // floor times the least Young's model adds on this
                        // many GPUs (infinite where no run finishes).
                        cands.push(Candidate {
                            t,
                            cp,
                            p,
                            b,
                            d,
                            m,
                            floor: floor(v_max)
                                * o.floor(gpus, floor(v_max) * (d * b * m) as f64 * seq),
                            mb_floor,
                        });
                    }
                }
            }
        }
    }
    // Phase 2, best first: in the order of the floors, so that a good plan
    // is found early and the rest end the search at once (without a
    // target time: there the objective is the GPU count, and every
    // candidate is tried).
    let mut best: Option<Evaluation> = None;
    let mut evaluated = 0u64;
    if c.target_days.is_none() && !c.cheapest {
        // A heap: built in linear time, and only what is tried is ordered.
        let mut heap = alloc::collections::BinaryHeap::from(cands);
        while let Some(k) = heap.pop() {
            if best
                .as_ref()
                .is_some_and(|b| beyond(k.floor * b.tokens, o.seconds(b)))
            {
                break;
            }
            evaluate_candidate(
                model,
                hw,
                c,
                space,
                a,
                method,
                &k,
                &o,
                &mut best,
                &mut evaluated,
                rec,
                &mut rates,
            );
        }
    } else {
        for k in &cands {
            evaluate_candidate(
                model,
                hw,
                c,
                space,
                a,
                method,
                k,
                &o,
                &mut best,
                &mut evaluated,
                rec,
                &mut rates,
            );
        }
    }
    let best = best.ok_or(Error::NoPlan {
        reason: crate::search::NO_PLAN_CONSTRAINTS,
        why: None,
    })?;
    if let Some(days) = c.target_days.filter(|&days| best.time.days() > days) {
        rec.target(best.time.days(), best.gpus, days);
        return Err(Error::NoPlan {
            reason: crate::search::NO_PLAN_CONSTRAINTS,
            why: None,
        });
    }
    Ok(SearchResult {
        best: Plan {
            method,
            parallelism: par,
            evaluation: best,
            binding: Bindings::default(),
        },
        evaluated,
    })
}

/// The practice search's batch limit when the caller sets none, in
/// sequences: [`ModelShape::batch_law`] for the run's token budget, at
/// least one.
///
/// # Errors
///
/// A token budget that is not a positive number.
pub fn batch_limit(model: &ModelShape, a: &Assumptions) -> Result<u64, Error> {
    let tokens = crate::cost::work::tokens(model, a)?;
    Ok((crate::math::floor(model.batch_law(tokens)) as u64).max(1))
}

/// The practice optimum over several methods (`Space::method` ignored):
/// the best of [`practice`] for each, the evaluations summed.
///
/// # Errors
///
/// As [`practice`], when no method has a plan (the last method's error).
pub fn practice_methods(
    model: &ModelShape,
    hw: &Hardware,
    par: Parallelism,
    c: &Constraints,
    space: &Space,
    a: &Assumptions,
    methods: &[Method],
) -> Result<SearchResult, Error> {
    let mut off = Recorder::OFF;
    search_methods(model, hw, par, c, space, a, methods, &mut off)
}

/// [`practice_methods`], keeping in `rec` what each method's search
/// rejects when `rec` records (`search::why`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn search_methods(
    model: &ModelShape,
    hw: &Hardware,
    par: Parallelism,
    c: &Constraints,
    space: &Space,
    a: &Assumptions,
    methods: &[Method],
    rec: &mut Recorder,
) -> Result<SearchResult, Error> {
    let mut best: Option<SearchResult> = None;
    let o = Objective::new(model, hw, a, c.failures);
    let mut err = Error::NoPlan {
        reason: crate::search::NO_PLAN_CONSTRAINTS,
        why: None,
    };
    let mut evaluated = 0;
    // Of several methods, those that can honour what is fixed (a `zero`
    // that contradicts ZeRO-3 / FSDP excludes it); one method that cannot
    // is refused in words.
    let several = methods.len() > 1;
    let mut tried = false;
    for &method in methods
        .iter()
        .filter(|&&m| !several || fixed::compatible(space, m))
    {
        tried = true;
        let one = Space {
            method: Some(method),
            ..*space
        };
        match search(model, hw, par, c, &one, a, rec) {
            Ok(r) => {
                evaluated += r.evaluated;
                if best
                    .as_ref()
                    .is_none_or(|b| better(&r.best.evaluation, &b.best.evaluation, c, &o))
                {
                    best = Some(r);
                }
            }
            Err(e) => err = e,
        }
    }
    if !tried {
        // No method of the list can: the first one's refusal.
        if let Some(&m) = methods.first() {
            fixed::check(
                model,
                hw,
                par,
                c,
                &Space {
                    method: Some(m),
                    ..*space
                },
                m,
            )?;
        }
    }
    let mut best = best.ok_or(err)?;
    best.evaluated = evaluated;
    Ok(best)
}

/// The methods practice searches for `any`: Megatron-style (1F1B or
/// interleaved, ZeRO-1), ZeRO-3/FSDP, and the paper's layered gradient
/// accumulation with the modular pipeline.
pub const PRACTICE_METHODS: [Method; 3] = [Method::Baseline, Method::Partitioned, Method::Improved];
