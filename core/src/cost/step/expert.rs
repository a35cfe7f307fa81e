//! The experts' all-to-all: what expert parallelism sends and what of it
//! waits ([`all_to_all`], called by [`super::step_time_shaped`]).

use super::per_direction;
use crate::cost::assumptions::Assumptions;
use crate::cost::collective::{self, Collective, Fabric, Group};
use crate::cost::config::{Config, PipelineSchedule};
use crate::hardware::Hardware;
use crate::model::ModelShape;

/// Expert parallelism: every MoE layer dispatches each token's k copies
/// to the GPUs holding its experts and combines them back: forward a
/// dispatch (in FP8 under FP8 compute, DeepSeek-V3 sec. 3.3.2; else
/// BF16) and a BF16 combine, backward the two in BF16, and the forward
/// again when it is recomputed; d_m elements per copy, tokens/t tokens
/// per GPU. The ep ranks are etp apart (Megatron-Core's folded expert
/// groups, etp × ep × edp): g = node/etp of them share a node.
/// Unrestricted routing sends k·(ep−g)/ep copies per token over the
/// network and k·(g−1)/ep over NVLink; node-limited
/// routing sends one copy per distinct remote node (of n = ep/g nodes,
/// n·(1−(1−1/n)^k) expected for uniform routing, at most the limit)
/// and forwards k·(g−1)/g inside the node. The slower link sets the
/// time.
///
/// One micro-batch on the heaviest device of `heavy_layers` layers and
/// `tokens` tokens: the seconds left exposed (all of it, or what outlasts
/// the `window` of its compute where the all-to-all is overlapped) and the
/// bytes one GPU sends.
#[allow(clippy::too_many_arguments)]
pub(super) fn all_to_all(
    model: &ModelShape,
    hw: &Hardware,
    cfg: &Config,
    a: &Assumptions,
    fabric: Fabric,
    tokens: f64,
    heavy_layers: f64,
    recomputes: bool,
    window: f64,
) -> (f64, f64) {
    let t = f64::from(cfg.tensor);
    let dm = model.width() as f64;
    let node = f64::from(hw.node_size.unwrap_or(u32::MAX));
    match model.experts {
        Some(e) if cfg.expert > 1 => {
            let ep = f64::from(cfg.expert);
            let etp = f64::from(cfg.expert_tensor_degree());
            let g = crate::math::floor(node / etp).clamp(1.0, ep);
            let k = f64::from(e.top_k);
            let nodes = ep / g;
            let (remote, local) = if e.node_limit > 0 && nodes > 1.0 {
                let distinct = nodes * (1.0 - crate::math::pow(1.0 - 1.0 / nodes, k));
                (
                    distinct.min(f64::from(e.node_limit)) * (nodes - 1.0) / nodes,
                    k * (g - 1.0) / g,
                )
            } else {
                (k * (ep - g) / ep, k * (g - 1.0) / ep)
            };
            let dispatch = if a.compute.is_fp8() { 1.0 } else { 2.0 };
            let forward = dispatch + 2.0;
            let bytes_per_element = if recomputes { 2.0 * forward } else { forward } + 4.0;
            let moe_share = f64::from(model.moe_layers()) / f64::from(model.layers);
            let elements = heavy_layers * moe_share * tokens / t * dm;
            // Inside a node each all-to-all runs as NCCL's all-gather of
            // the same buffer over the g ranks does (its latency and ramp:
            // nccl-tests' in-node all-to-all, `in_node_all_to_all_follows_nccl_tests`),
            // one call per dispatch and combine of each pass.
            let inside = if local > 0.0 && g > 1.0 {
                let calls = [dispatch, 2.0, 2.0, 2.0, dispatch, 2.0];
                let n = if recomputes { 6 } else { 4 };
                let per_layer: f64 = calls[..n]
                    .iter()
                    .map(|b| {
                        let leaving = b * tokens / t * dm * local;
                        collective::seconds(
                            Collective::AllGather,
                            leaving * g / (g - 1.0),
                            Group::inside(g),
                            fabric,
                        )
                    })
                    .sum();
                heavy_layers * moe_share * per_layer
            } else {
                0.0
            };
            let a2a =
                inside.max(bytes_per_element * elements * remote / per_direction(hw, a, false));
            let bytes = bytes_per_element * elements * (remote + local);
            // DualPipe's fused F&B pairs exist to hide these.
            let exposed = if a.overlap_expert || cfg.pipeline_schedule == PipelineSchedule::DualPipe
            {
                (a2a - window).max(0.0)
            } else {
                a2a
            };
            (exposed, bytes)
        }
        _ => (0.0, 0.0),
    }
}
