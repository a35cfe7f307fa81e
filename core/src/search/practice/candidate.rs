//! One candidate (t, cp, p, b, d, m) of the practice search and its
//! evaluation over the remaining choices: virtual stages, schedule,
//! sequence parallelism, expert degree, recomputation, ZeRO-R and ZeRO,
//! with the dominance of [`super`]'s documentation.

use super::degrees::{divisors, expert_degrees, single_stage_chunks, zeros_for, RECOMPUTE};
use super::{better, bubble_factor, Recorder, Space};
use crate::cost::assumptions::Assumptions;
use crate::cost::{
    evaluate_staged, memory::Stages, step::pipeline_ends, step::Shaped, Config, Evaluation, Method,
    PipelineSchedule, ZeroR,
};
use crate::hardware::Hardware;
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::run::Objective;
use crate::search::Constraints;

/// One (t, p, b, d, m) of the search and its floor: the GEMMs of its m
/// micro-batches and the smallest bubble its v allows, in seconds per
/// training token. Ordered so that a max-heap pops the lowest floor first.
#[derive(Clone, Copy, Debug)]
pub(super) struct Candidate {
    pub(super) t: u64,
    pub(super) cp: u64,
    pub(super) p: u64,
    pub(super) b: u64,
    pub(super) d: u64,
    pub(super) m: u64,
    pub(super) floor: f64,
    /// [`crate::cost::step::micro_batch_floor`] for (t, p, b).
    pub(super) mb_floor: f64,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    /// Reversed floor, then the order of generation (t, p, b, d), so that
    /// ties pop in a fixed order.
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        other.floor.total_cmp(&self.floor).then_with(|| {
            (other.t, other.p, other.b, other.d).cmp(&(self.t, self.p, self.b, self.d))
        })
    }
}

/// Every v, sequence parallelism, recomputation, ZeRO-R placement and
/// ZeRO stage of one candidate, with the dominance of the module's
/// documentation; keeps the best in `best`.
#[allow(clippy::too_many_arguments)]
pub(super) fn evaluate_candidate(
    model: &ModelShape,
    hw: &Hardware,
    c: &Constraints,
    space: &Space,
    a: &Assumptions,
    method: Method,
    k: &Candidate,
    o: &Objective,
    best: &mut Option<Evaluation>,
    evaluated: &mut u64,
    rec: &mut Recorder,
    rates: &mut RateCache,
) {
    let Candidate {
        t, cp, p, b, d, m, ..
    } = *k;
    let layers = model.layers;
    let gpu_memory = hw.gpu.memory.0;
    let stage_layers = u64::from(layers).div_ceil(p);
    // One v (most candidates) without an allocation.
    let (one_v, many_v);
    let vs: &[u64] = match space.virtual_stages {
        Some(v) => {
            one_v = [u64::from(v)];
            &one_v
        }
        None if single_stage_chunks(space, method, p) => &[1],
        None => {
            many_v = divisors(stage_layers).collect::<alloc::vec::Vec<u64>>();
            &many_v
        }
    };
    let zeros = zeros_for(space, a, method, p);
    // Sequence parallelism dominates without it (the same traffic, less
    // memory and element-wise work).
    let sps: &[bool] = match space.sequence_parallel {
        Some(true) => &[true],
        Some(false) => &[false],
        None => &[t > 1],
    };
    // Every recomputation: more GEMMs also hide more of the overlapped
    // collectives, so none is not always the fastest.
    let recomputes: &[ActivationModel] = match space.recompute {
        Some(ref r) => core::slice::from_ref(r),
        // Some layers recomputed: full recomputation of those.
        None if space.recompute_layers.is_some_and(|n| n > 0) => &[ActivationModel::Full],
        None if space.recompute_modules.is_some_and(|m| m.0 != 0) => &[ActivationModel::Selective],
        None => &RECOMPUTE,
    };
    // The floor of this v (and of full recomputation, a third more GEMMs).
    let beaten = |bst: &Option<Evaluation>, v: u64, full: bool| {
        c.target_days.is_none()
            && !c.cheapest
            && bst.as_ref().is_some_and(|e| {
                let (pf, mf) = (p as f64, m as f64);
                let bubble = if method.layered() {
                    (pf - 1.0) * pf / (mf * f64::from(layers))
                } else {
                    (pf - 1.0) / mf * bubble_factor(space, v)
                };
                let steps = e.tokens / ((d * b * m) as f64 * f64::from(model.seq_len));
                // Full recomputation: a third more GEMMs, or that share of
                // a third when only some layers are recomputed.
                let recompute = if full {
                    let part = Config {
                        pipe: p as u32,
                        virtual_stages: v as u32,
                        activation: ActivationModel::Full,
                        recompute_layers: space.recompute_layers.unwrap_or(0),
                        ..Config::default()
                    };
                    crate::cost::step::passes_of(&part, layers) / 3.0
                } else {
                    1.0
                };
                let gpus = d * t * cp * p;
                let step = mf * (1.0 + bubble) * k.mb_floor * recompute;
                super::beyond(steps * step * o.floor(gpus, step), o.seconds(e))
            })
    };
    // A dense model's one (ep, etp) without an allocation.
    let (one_ep, many_ep);
    let eps: &[(u64, u32)] = if model.experts.is_none() {
        one_ep = [(
            space.expert.map_or(1, u64::from),
            space.expert_tensor.unwrap_or(0),
        )];
        &one_ep
    } else {
        many_ep = expert_degrees(model, space, t, d * cp);
        &many_ep
    };
    for &v in vs {
        // Interleaving keeps Megatron-Core's default group, p micro-batches:
        // without a group given, m a multiple of p. A group given asks for
        // interleaving, in groups that fit (any m ≥ p with N = m).
        let group = space.microbatch_group.unwrap_or(0);
        let interleaves = if group > 0 {
            crate::cost::step::group_fits(group, p as u32, m as u32)
        } else {
            m % p == 0
        };
        if (v == 1 && group > 0) || (v > 1 && !interleaves) || beaten(best, v, false) {
            continue;
        }
        // The schedules: the fixed one; else 1F1B (interleaved when v > 1),
        // and at v = 1 when asked ZB-H1, ZB-V and DualPipe where they run.
        let mut free = [PipelineSchedule::OneFOneB; 4];
        let mut n = 1;
        if space.zero_bubble && v == 1 && p > 1 && !method.layered() {
            let mut add = |s| {
                free[n] = s;
                n += 1;
            };
            add(PipelineSchedule::ZbH1);
            let fits = |s: PipelineSchedule| {
                s.fits_micro_batches(p as u32, u32::try_from(m).unwrap_or(u32::MAX))
            };
            if fits(PipelineSchedule::ZbV) && u64::from(layers) >= 2 * p {
                add(PipelineSchedule::ZbV);
            }
            if p % 2 == 0 && fits(PipelineSchedule::DualPipe) {
                add(PipelineSchedule::DualPipe);
            }
        }
        let schedules: &[PipelineSchedule] = match space.pipeline_schedule {
            Some(ref s) => core::slice::from_ref(s),
            None => &free[..n],
        };
        for (&sp, &(ep, etp), &schedule) in sps.iter().flat_map(|sp| {
            eps.iter()
                .flat_map(move |ep| schedules.iter().map(move |s| (sp, ep, s)))
        }) {
            for &recompute in recomputes {
                let full = recompute == ActivationModel::Full;
                if full && beaten(best, v, true) {
                    continue;
                }
                let zero_rs: &[ZeroR] = match space.zero_r {
                    Some(ref z) => core::slice::from_ref(z),
                    None if !full => &[ZeroR::None],
                    None if sp || t == 1 => &[ZeroR::None, ZeroR::PaCpu],
                    None => &ZeroR::ALL,
                };
                'place: for &zero_r in zero_rs {
                    'fit: for (zi, &zero) in zeros.iter().enumerate() {
                        let mut cfg = Config {
                            method,
                            data: u32::try_from(d).unwrap_or(u32::MAX),
                            pipe: u32::try_from(p).unwrap_or(u32::MAX),
                            tensor: u32::try_from(t).unwrap_or(u32::MAX),
                            micro_batch: u32::try_from(b).unwrap_or(u32::MAX),
                            micro_batches: u32::try_from(m).unwrap_or(u32::MAX),
                            offload: false,
                            activation: recompute,
                            virtual_stages: u32::try_from(v).unwrap_or(u32::MAX),
                            microbatch_group: if v > 1 { group } else { 0 },
                            sequence_parallel: sp,
                            zero,
                            pipeline_schedule: schedule,
                            zero_r,
                            context: u32::try_from(cp).unwrap_or(u32::MAX),
                            expert: u32::try_from(ep).unwrap_or(u32::MAX),
                            expert_tensor: etp,
                            embedding_layers: space.embedding_layers.unwrap_or(0),
                            head_layers: 0,
                            recompute_layers: if full {
                                space.recompute_layers.unwrap_or(0)
                            } else {
                                0
                            },
                            offload_layers: space.offload_layers.unwrap_or(0),
                            recompute_modules: if recompute == ActivationModel::Selective {
                                space.recompute_modules.unwrap_or_default()
                            } else {
                                crate::cost::saved::Modules(0)
                            },
                            offload_modules: space.offload_modules.unwrap_or_default(),
                        };
                        // The embedding counts where a virtual-stage
                        // count the user fixed needs it (the free search
                        // takes v among the divisors of a stage's layers).
                        let embedding = space
                            .embedding_layers
                            .or(space.virtual_stages.is_none().then_some(0));
                        (cfg.embedding_layers, cfg.head_layers) =
                            pipeline_ends(model, &cfg, a.work, embedding, space.head_layers);
                        // Memory first: cheaper than the step.
                        let stages = Stages::of(model, &cfg, a);
                        let heavy = stages.heaviest();
                        if heavy.total().0 > gpu_memory {
                            rec.memory(heavy.total().0, gpu_memory, heavy.stage, &cfg, a.framework);
                            continue;
                        }
                        let shaped = rates.get(model, hw, &cfg, a);
                        let Ok(e) = evaluate_staged(model, hw, &cfg, a, Some(stages), Some(shaped))
                        else {
                            continue;
                        };
                        *evaluated += 1;
                        if !e.fits {
                            rec.memory(e.peak_memory.0, gpu_memory, heavy.stage, &cfg, a.framework);
                            continue;
                        }
                        if e.efficiency < c.min_efficiency {
                            rec.efficiency(e.efficiency, c.min_efficiency);
                        } else if best.as_ref().is_none_or(|bst| better(&e, bst, c, o)) {
                            *best = Some(e);
                        }
                        if zi == 0 {
                            // Neither a later stage nor a later placement
                            // is faster.
                            break 'place;
                        }
                        // What follows is no faster.
                        break 'fit;
                    }
                }
            }
        }
    }
}

/// The kernel rates of the configurations a search tries, computed once
/// per micro-batch, tensor, context and expert degree (and whether the run
/// has more than one GPU): all they depend on
/// ([`crate::cost::step::shaped_rates`]).
#[derive(Default)]
pub(super) struct RateCache(alloc::vec::Vec<(RateKey, Option<Shaped>)>);

/// What the rates depend on: micro-batch, tensor, context, expert and
/// expert tensor degrees, and more than one GPU.
type RateKey = (u32, u32, u32, u32, u32, bool);

impl RateCache {
    /// The rates of `cfg`, computed at its first asking.
    pub(super) fn get(
        &mut self,
        model: &ModelShape,
        hw: &Hardware,
        cfg: &Config,
        a: &Assumptions,
    ) -> Option<Shaped> {
        let many = u64::from(cfg.data)
            * u64::from(cfg.tensor)
            * u64::from(cfg.pipe)
            * u64::from(cfg.context.max(1))
            > 1;
        let key = (
            cfg.micro_batch,
            cfg.tensor,
            cfg.context,
            cfg.expert,
            cfg.expert_tensor_degree(),
            many,
        );
        if let Some(&(_, s)) = self.0.iter().find(|(k, _)| *k == key) {
            return s;
        }
        let s = crate::cost::step::shaped_rates(model, hw, cfg, a);
        self.0.push((key, s));
        s
    }

    /// For a mixture of experts, a floor's rates: each of the layer's
    /// rates the least over every expert and expert tensor degree the
    /// search may pair with `cfg`'s tensor degree, at any data degree (the
    /// grouped expert GEMMs' rows grow with the expert degree, but their
    /// tiles' waves do not fall monotonically); `cfg`'s own for a dense
    /// model.
    pub(super) fn least_over_experts(
        &mut self,
        model: &ModelShape,
        hw: &Hardware,
        cfg: &Config,
        a: &Assumptions,
        space: &Space,
    ) -> Option<Shaped> {
        let Some(e) = model.experts else {
            return self.get(model, hw, cfg, a);
        };
        // A data × context degree every pair divides.
        let any = u64::from(e.routed)
            * u64::from(space.expert.unwrap_or(1))
            * u64::from(space.expert_tensor.unwrap_or(1).max(1));
        let mut least: Option<Shaped> = None;
        for (ep, etp) in expert_degrees(model, space, u64::from(cfg.tensor), any) {
            let probe = Config {
                expert: u32::try_from(ep).unwrap_or(u32::MAX),
                expert_tensor: etp,
                ..*cfg
            };
            let s = self.get(model, hw, &probe, a)?;
            least = Some(least.map_or(s, |l| Shaped {
                rates: l.rates.least(s.rates),
                logit: l.logit.min(s.logit),
            }));
        }
        least
    }
}
