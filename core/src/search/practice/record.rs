//! What the practice search rejected, kept when it is asked to explain a
//! search with no plan ([`crate::search::why`]): for each constraint, the
//! rejected layout that came closest to passing it. Off in the ordinary
//! search, where every method returns at once.

use crate::cost::step::zero_of;
use crate::cost::Config;
use crate::no_plan::{BatchSource, Layout, Miss};

/// The closest miss per constraint.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recorder {
    /// Recording at all (the search also skips its memory floor then, so
    /// that every layout's real heaviest stage is measured).
    pub(crate) on: bool,
    /// Where the batch limit came from.
    pub(crate) source: BatchSource,
    memory: Option<Miss>,
    micro: Option<Miss>,
    split: Option<u64>,
    budget: Option<(u64, u64)>,
    cluster: Option<u64>,
    efficiency: Option<(f64, f64)>,
    target: Option<(f64, u64, f64)>,
}

impl Recorder {
    /// Records nothing.
    pub(crate) const OFF: Self = Self {
        on: false,
        source: BatchSource::Law,
        memory: None,
        micro: None,
        split: None,
        budget: None,
        cluster: None,
        efficiency: None,
        target: None,
    };

    /// Records, with the batch limit from `source`.
    pub(crate) fn new(source: BatchSource) -> Self {
        Self {
            on: true,
            source,
            ..Self::OFF
        }
    }

    /// A layout of `framework` whose heaviest stage needs `need` bytes of
    /// `have`.
    pub(crate) fn memory(
        &mut self,
        need: f64,
        have: f64,
        stage: u32,
        cfg: &Config,
        framework: crate::cost::framework::Framework,
    ) {
        if !self.on {
            return;
        }
        if let Some(Miss::Memory { need: n, .. }) = self.memory {
            if n <= need {
                return;
            }
        }
        self.memory = Some(Miss::Memory {
            need,
            have,
            stage,
            layout: Layout {
                tensor: cfg.tensor,
                pipe: cfg.pipe,
                data: cfg.data,
                context: cfg.context,
                expert: cfg.expert,
                micro_batch: cfg.micro_batch,
                recompute: cfg.activation,
                zero: zero_of(cfg),
                method: cfg.method,
                framework,
            },
        });
    }

    /// A layout with `m` micro-batches for `p` stages from `batch`
    /// sequences at data degree `d` and micro-batch `b`: the one with the
    /// most micro-batches per stage is kept.
    pub(crate) fn micro_batches(&mut self, batch: u64, d: u64, b: u64, m: u64, p: u64) {
        if !self.on {
            return;
        }
        if let Some(Miss::MicroBatches {
            micro_batches,
            pipe,
            ..
        }) = self.micro
        {
            // m/p against the kept one's, without division.
            if u128::from(micro_batches) * u128::from(p) >= u128::from(m) * u128::from(pipe) {
                return;
            }
        }
        self.micro = Some(Miss::MicroBatches {
            batch,
            source: self.source,
            data: d,
            micro_batch: b,
            micro_batches: m,
            pipe: p,
        });
    }

    /// A fixed global batch that `d × b` does not divide.
    pub(crate) fn split(&mut self, batch: u64) {
        if self.on {
            self.split = Some(batch);
        }
    }

    /// A layout of `gpus` GPUs over the budget `max`: the smallest is kept.
    pub(crate) fn budget(&mut self, max: u64, gpus: u64) {
        if self.on && self.budget.is_none_or(|(_, g)| gpus < g) {
            self.budget = Some((max, gpus));
        }
    }

    /// A layout that does not split the cluster of `gpus` exactly.
    pub(crate) fn cluster(&mut self, gpus: u64) {
        if self.on {
            self.cluster = Some(gpus);
        }
    }

    /// A plan that fits, below the minimum efficiency.
    pub(crate) fn efficiency(&mut self, efficiency: f64, min: f64) {
        if self.on && self.efficiency.is_none_or(|(e, _)| efficiency > e) {
            self.efficiency = Some((efficiency, min));
        }
    }

    /// The fastest plan, past the target time.
    pub(crate) fn target(&mut self, days: f64, gpus: u64, target: f64) {
        if self.on && self.target.is_none_or(|(d, ..)| days < d) {
            self.target = Some((days, gpus, target));
        }
    }

    /// The constraint that failed closest to passing: a plan that fit but
    /// missed a target or an efficiency floor; else memory, the last check
    /// a layout meets; else too few micro-batches, a batch that does not
    /// split, the budget, the cluster.
    pub(crate) fn closest(&self) -> Miss {
        if let Some((best, gpus, target)) = self.target {
            return Miss::TargetDays { best, gpus, target };
        }
        if let Some((best, min)) = self.efficiency {
            return Miss::Efficiency { best, min };
        }
        if let Some(m) = self.memory.or(self.micro) {
            return m;
        }
        if let Some(batch) = self.split {
            return Miss::BatchSplit { batch };
        }
        if let Some((gpus, smallest)) = self.budget {
            return Miss::Budget { gpus, smallest };
        }
        if let Some(gpus) = self.cluster {
            return Miss::Cluster { gpus };
        }
        Miss::Nothing
    }
}
