//! The schedule the page animates for a plan (its own kind, scaled down
//! when too big to simulate in a frame) and the comparisons.

use crate::cost::AssumptionSet;
use crate::error::Error;
use crate::hardware::Hardware;
use crate::model::ModelShape;
use crate::schedule::{self, Durations, MemorySizes, Schedule, ScheduleKind, ScheduleSpec};
use crate::search::Plan;
use crate::state::Comparison;

/// Largest schedule simulated for the page, in compute operations
/// (2 × layers × micro-batches): a few milliseconds in wasm, so that a
/// change of plan stays within a frame. Bigger plans are shown scaled down (see
/// [`plan_schedule`]).
pub const MAX_PAGE_OPS: u64 = 8_000;

/// What [`plan_schedule`] shows of a plan too big to simulate whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShownScale {
    /// Pipeline stages shown, of the plan's n_l.
    pub devices: (u32, u32),
    /// Micro-batches shown, of the plan's n_µ.
    pub micro_batches: (u32, u32),
}

impl ShownScale {
    /// Is the plan shown whole?
    #[must_use]
    pub fn whole(&self) -> bool {
        self.devices.0 == self.devices.1 && self.micro_batches.0 == self.micro_batches.1
    }
}

/// The schedule of a plan, with the cost model's durations: the baseline's
/// standard pipeline as 1F1B, the improved method's modular pipeline (or
/// layered accumulation without a pipeline), gradient accumulation
/// otherwise.
///
/// A plan of more than [`MAX_PAGE_OPS`] operations is shown scaled down.
/// Without a pipeline the step is shown with fewer micro-batches. With one,
/// stages and micro-batches shrink by the same factor and the layers per
/// stage stay, so the bubble — (n_l − 1)/n_µ for 1F1B (sec. 2.4),
/// (n_l − 1)·n_l/(n_µ·d_l) for the modular pipeline (sec. 4) — stays about
/// the plan's: X814's baseline without a node limit, 814 stages of 893
/// micro-batches (1.45 M operations, ~1 s to simulate in the browser), is
/// shown as 60 stages of 65 micro-batches.
///
/// # Errors
///
/// A plan the schedules cannot express, or one with so many layers per
/// stage that even one micro-batch exceeds the page's budget
/// ([`Error::OutOfRange`] on "schedule operations").
pub fn plan_schedule(
    model: &ModelShape,
    hw: &Hardware,
    plan: &Plan,
) -> Result<(Schedule, ShownScale), Error> {
    let c = plan.evaluation.config;
    let layered = c.method.layered();
    let kind = match (layered, c.pipe > 1) {
        (true, true) => ScheduleKind::Modular,
        (true, false) => ScheduleKind::Lga,
        (false, true) if c.pipeline_schedule == crate::cost::PipelineSchedule::ZbH1 => {
            ScheduleKind::ZbH1
        }
        (false, true) if c.pipeline_schedule == crate::cost::PipelineSchedule::DualPipe => {
            ScheduleKind::DualPipe
        }
        (false, true) if c.pipeline_schedule == crate::cost::PipelineSchedule::ZbV => {
            ScheduleKind::ZbV
        }
        (false, true) if c.virtual_stages > 1 => ScheduleKind::Interleaved,
        (false, true) => ScheduleKind::OneFOneB,
        (false, false) => ScheduleKind::Ga,
    };
    let chunks = if kind == ScheduleKind::Interleaved {
        c.virtual_stages
    } else {
        1
    };
    let (pipe, nmu) = (c.pipe.max(1), c.micro_batches.max(1));
    // Standard pipelines cut the layers into equal stages: use the largest
    // layer count the stages divide, a layer a chunk at least (PP 16 × VP 8
    // over 126 layers, the embedding and the loss counted, holds one a
    // chunk).
    let per_stage = f64::from(model.layers) / f64::from(pipe);
    let layers_for = |p: u32| -> u32 {
        if kind == ScheduleKind::ZbV {
            // 2p equal stages.
            (model.layers / (2 * pipe)).max(1) * 2 * p
        } else if kind == ScheduleKind::Interleaved {
            // p·v equal chunks.
            (model.layers / (pipe * chunks)).max(1) * p * chunks
        } else if matches!(
            kind,
            ScheduleKind::OneFOneB | ScheduleKind::ZbH1 | ScheduleKind::DualPipe
        ) {
            (model.layers / pipe).max(1) * p
        } else if p == pipe {
            model.layers
        } else {
            (crate::math::round(per_stage * f64::from(p)) as u32).max(p)
        }
    };
    let passes = if kind.splits_backward() { 3 } else { 2 };
    let ops = |layers: u32, n: u32| passes * u64::from(layers) * u64::from(n);
    let (mut p, mut n) = (pipe, nmu);
    if ops(layers_for(p), n) > MAX_PAGE_OPS {
        if pipe > 1 {
            // Shrink stages and micro-batches together: ops go as the
            // square of the factor.
            let f = crate::math::sqrt(MAX_PAGE_OPS as f64 / ops(layers_for(p), n) as f64);
            p = ((f64::from(pipe) * f) as u32).clamp(2, pipe);
            n = ((f64::from(nmu) * f64::from(p) / f64::from(pipe)) as u32).max(1);
            if nmu >= pipe {
                n = n.max(p);
            }
            while ops(layers_for(p), n) > MAX_PAGE_OPS && p > 2 {
                p -= 1;
                n = ((f64::from(nmu) * f64::from(p) / f64::from(pipe)) as u32).max(1);
                if nmu >= pipe {
                    n = n.max(p);
                }
            }
        }
        while ops(layers_for(p), n) > MAX_PAGE_OPS
            && n > 1
            && !(kind == ScheduleKind::Modular && n <= p)
        {
            n = (n / 2).max(1);
            if kind == ScheduleKind::Modular {
                n = n.max(p);
            }
        }
        if kind == ScheduleKind::DualPipe {
            // Shown scaled down, DualPipe keeps its shape: even devices,
            // an even number of micro-batches, at least twice the devices.
            p = (p / 2 * 2).max(2);
            n = (n / 2 * 2).max(2 * p);
        }
        if kind == ScheduleKind::ZbV {
            // ZB-V's warm-up alone is 2p − 1 forwards on GPU 0.
            n = n.max(2 * p - 1);
        }
        let total = ops(layers_for(p), n);
        if total > MAX_PAGE_OPS {
            return Err(Error::OutOfRange {
                what: "schedule operations",
                value: total as f64,
                min: 1.0,
                max: MAX_PAGE_OPS as f64,
            });
        }
    }
    if kind == ScheduleKind::Interleaved && n < p {
        // The interleaved schedule takes groups of at least p micro-batches
        // (Megatron-Core's microbatch_group_size_per_vp_stage): fewer than p
        // are shown on as many devices; the caption says what is shown.
        p = n;
    }
    let paper = Durations::from_cost_model(
        model,
        hw,
        c.tensor,
        c.micro_batch,
        c.data,
        c.method.partitioned(),
        c.activation,
    )?;
    // A practice plan is drawn with the practice evaluator's times and
    // memory (one evaluator, two settings): its simulated step is the
    // step the headline states, not the paper's perfect kernels.
    // Every knob the headline's evaluation ran with: the framework's
    // preset and the flags over it, not practice's defaults.
    let practice =
        (plan.evaluation.assumptions == AssumptionSet::Practice).then_some(plan.evaluation.knobs);
    let durations = match &practice {
        Some(a) => Durations::from_micro_batch(
            &crate::cost::step::micro_batch_seconds(model, hw, &c, a),
            layers_for(p).div_ceil(p),
            paper.cpu_gpu,
        ),
        None => paper,
    };
    let mut spec = ScheduleSpec {
        kind,
        devices: p,
        layers: layers_for(p),
        micro_batches: n,
        chunks,
        // The plan's own group when it is drawn whole, else the smallest
        // that fits what is drawn.
        group: if (p, n) == (pipe, nmu) {
            c.microbatch_group
        } else {
            0
        },
        data: c.data,
        // Under practice, per-use weight gathers are ZeRO-3's; ZeRO-3
        // gathering once per step ("3-step") reduces like ZeRO-1.
        partition: match &practice {
            Some(a) => {
                crate::cost::step::zero_run(&c, a.pipeline_gathers_step) == crate::cost::Zero::Three
            }
            None => c.method.partitioned(),
        },
        offload: c.offload,
        durations,
        memory: MemorySizes::unit(),
    };
    spec.memory = match &practice {
        Some(a) => MemorySizes::from_stage(
            &crate::cost::memory::stage_memory(model, &c, a, 0),
            layers_for(p).div_ceil(p),
        ),
        None => MemorySizes::from_cost_model(model, &spec, c.tensor, c.micro_batch),
    };
    let shown = ShownScale {
        devices: (p, pipe),
        micro_batches: (n, nmu),
    };
    Ok((schedule::simulate(&spec)?, shown))
}

/// The paper's side-by-side comparisons, in unit durations: standard vs
/// layered accumulation (fig. 1, with a reduction of one unit per layer),
/// standard vs modular pipeline (fig. 3), 1F1B vs interleaved.
///
/// # Errors
///
/// Never for the fixed sizes used; kept for uniformity.
pub fn comparison(which: Comparison) -> Result<[Schedule; 2], Error> {
    let unit = |kind, devices, layers, mbs, chunks, data| {
        let mut s = ScheduleSpec::unit(kind, devices, layers, mbs);
        s.chunks = chunks;
        s.data = data;
        s.durations.reduce = if data > 1 { 1.0 } else { 0.0 };
        schedule::simulate(&s)
    };
    Ok(match which {
        Comparison::Lga => [
            unit(ScheduleKind::Ga, 1, 4, 4, 1, 2)?,
            unit(ScheduleKind::Lga, 1, 4, 4, 1, 2)?,
        ],
        Comparison::Modular => [
            unit(ScheduleKind::Gpipe, 4, 16, 4, 1, 1)?,
            unit(ScheduleKind::Modular, 4, 16, 4, 1, 1)?,
        ],
        Comparison::Interleaved => [
            unit(ScheduleKind::OneFOneB, 4, 16, 8, 1, 1)?,
            unit(ScheduleKind::Interleaved, 4, 16, 8, 2, 1)?,
        ],
        Comparison::ZeroBubble => [
            unit(ScheduleKind::OneFOneB, 4, 16, 8, 1, 1)?,
            unit(ScheduleKind::ZbH1, 4, 16, 8, 1, 1)?,
        ],
        Comparison::DualPipe => [
            unit(ScheduleKind::ZbH1, 4, 16, 8, 1, 1)?,
            unit(ScheduleKind::DualPipe, 4, 16, 8, 1, 1)?,
        ],
        Comparison::ZbV => [
            unit(ScheduleKind::ZbH1, 4, 16, 8, 1, 1)?,
            unit(ScheduleKind::ZbV, 4, 16, 8, 1, 1)?,
        ],
    })
}

/// Why a practice plan's simulated step differs from the step its
/// evaluation states, in words for beside the animation: the estimate's
/// exposed communication and bubble against the simulation's (which
/// overlaps each transfer with whatever compute the schedule leaves beside
/// it). `None` when the two are within 2 %, the plan is shown scaled down,
/// or it has no step in seconds (paper).
#[must_use]
pub fn step_gap(
    e: &crate::cost::Evaluation,
    s: &crate::schedule::Schedule,
    shown: &ShownScale,
) -> Option<alloc::string::String> {
    let p = e.step_parts?;
    let (sim, est) = (s.makespan, e.step.0);
    if !shown.whole() || est <= 0.0 || (sim / est - 1.0).abs() <= 0.02 {
        return None;
    }
    let comm = p.data + p.tensor + p.pipeline + p.context + p.expert + p.offload;
    // The simulation's idle time on its busiest GPU: bubble and transfers
    // it could not hide.
    let idle = s.makespan * s.bubble_fraction / (1.0 + s.bubble_fraction);
    Some(alloc::format!(
        "the plan's estimate is {} s: it charges {} s of communication as exposed ({} s of \
         it data-parallel) and {} s of bubble; the simulation overlaps each transfer with the \
         compute beside it and idles {} s in all",
        crate::math::round_sig(est, 3),
        crate::math::round_sig(comm, 3),
        crate::math::round_sig(p.data, 3),
        crate::math::round_sig(p.bubble, 3),
        crate::math::round_sig(idle, 3),
    ))
}
