//! The data-parallel collectives of a step, placed on the cluster.

use super::{stage_expert_params, stage_params};
use crate::cost::assumptions::Assumptions;
use crate::cost::collective::{self, Collective, Fabric, Group};
use crate::cost::config::Config;
use crate::hardware::Hardware;
use crate::model::ModelShape;

/// The data-parallel collectives of the heaviest device's weights, placed
/// on the cluster ([`crate::cost::collective`]): the routed experts'
/// weights over the ep-fold smaller expert-data-parallel group (ranks
/// t·cp·ep apart), the rest over the data and context ranks (they hold
/// the same weights; ranks t apart), each run as `units` equal
/// collectives: Megatron-Core's buckets of max(40 M, 1 M·d) parameters
/// (`DistributedDataParallelConfig.bucket_size`'s default), or one per
/// layer under ZeRO-3 ([`Self::in_units`]).
#[derive(Clone, Copy, Debug)]
pub struct DataRing {
    pub(super) dense: f64,
    pub(super) experts: f64,
    pub(super) ranks: f64,
    pub(super) expert_ranks: f64,
    group: Group,
    expert_group: Group,
    fabric: Fabric,
    /// Collectives the weights are reduced or gathered in.
    pub units: f64,
}

impl DataRing {
    /// The rings of a configuration under `a`.
    #[must_use]
    pub fn new(model: &ModelShape, hw: &Hardware, cfg: &Config, a: &Assumptions) -> Self {
        let (layer_w, ends_w) = stage_params(model, cfg, 0);
        let (layer_w_last, ends_w_last) = stage_params(model, cfg, cfg.pipe - 1);
        let params = (layer_w + ends_w).max(layer_w_last + ends_w_last);
        let experts = stage_expert_params(model, cfg, 0);
        let d = f64::from(cfg.data) * f64::from(cfg.context.max(1));
        let t = f64::from(cfg.tensor);
        // The MoE layers' GPUs in Megatron-Core's folded order (etp, ep,
        // edp): an expert's data-parallel ranks are etp·ep apart.
        let folded = f64::from(cfg.expert.max(1)) * f64::from(cfg.expert_tensor_degree());
        let bucket = 40e6_f64.max(1e6 * f64::from(cfg.data));
        Self {
            dense: params - experts,
            experts,
            ranks: d,
            expert_ranks: cfg.expert_data(),
            group: Group::strided(d, t, hw.node_size),
            expert_group: Group::strided(cfg.expert_data(), folded, hw.node_size),
            fabric: Fabric::of(hw, a),
            units: crate::math::ceil(params / bucket).max(1.0),
        }
    }

    /// The same collectives run as `units` pieces (ZeRO-3: one per layer).
    #[must_use]
    pub fn in_units(self, units: f64) -> Self {
        Self {
            units: units.max(1.0),
            ..self
        }
    }

    /// Seconds of one collective of `bytes_per_param` per weight (`factor`
    /// 2 for an all-reduce, 1 for a reduce-scatter or an all-gather), run
    /// as [`Self::units`] collectives: each pays its latency.
    #[must_use]
    pub fn seconds(&self, bytes_per_param: f64, factor: f64) -> f64 {
        let kind = if factor >= 2.0 {
            Collective::AllReduce
        } else {
            Collective::AllGather
        };
        let u = self.units;
        let one = |weights: f64, group: Group| {
            u * collective::seconds(kind, weights * bytes_per_param / u, group, self.fabric)
        };
        one(self.dense, self.group) + one(self.experts, self.expert_group)
    }
}
