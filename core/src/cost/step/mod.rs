//! The practice timing ([`Timing::Seconds`](crate::cost::assumptions::Timing)):
//! a training step in seconds, from the work of every GEMM, the fitted
//! kernel model, ring collectives on real links and the pipeline schedule.
//!
//! A step is the heaviest pipeline stage's micro-batch time t_µ times the
//! schedule's slots, plus what data parallelism and the optimizer leave
//! exposed:
//!
//! ```text
//! step = slots · (t_compute + t_elementwise + t_tensor + v · t_send)
//!        + t_data,exposed + t_optimizer
//! slots = m · (1 + bubble),  bubble = (p−1)/(v·m) (1F1B, interleaved:
//!         PTD-P sec. 2.2) or (p−1)·p/(m·d_l) (modular, Lamy-Poirier sec. 4)
//! ```
//!
//! Each time here is per micro-batch on one GPU of the heaviest stage.

mod activations;
mod data;
mod expert;
mod placement;
mod rates;
mod recompute;
mod tensor;
mod time;
mod work;
pub use activations::{
    activation_bytes_per_token, checkpoint_per_token, fp8_saved_per_token, kept_per_token,
    saved_per_token,
};
pub use data::DataRing;
pub use placement::{
    bubble_fraction, chunk_layers, chunks_per_device, device_layers, first_chunk_in_flight,
    first_layers_on, group_fits, group_size, holds_head, in_flight, microbatch_group, split_layers,
    stage_layers, v_shaped,
};
pub use rates::{
    fp8_casts, layer_ops, linear_format, linear_peak, micro_batch_floor, shaped_rates, Shaped,
    EAGER_FP8_CAST_BYTES, EAGER_FP8_CAST_EFFICIENCY, EAGER_FP8_OPS, FP8_OPS,
};
use rates::{kernels, memory_efficiency};
pub use recompute::{
    attention_forwards, chunk_size, early_stop_skipped_flops, elementwise_passes, offloaded_share,
    op_sac_linear_flops, passes_of, recomputed_flops, recomputed_parts, recomputed_share,
};
pub use tensor::{layout_copy_bytes_per_token, micro_pipelined_exposure, micro_pipelined_split};
pub use time::{KernelClass, StepTime};
pub(crate) use work::stage_params_of;
pub use work::{
    balanced_head, dual_copies, layer_forward_flops_per_token, layer_weights_on_gpu,
    logit_forward_flops_per_token, model_flops_per_token, pipeline_ends, stage_expert_params,
    stage_params, zero_of, zero_run,
};

use crate::cost::assumptions::{fp8_peak, Assumptions, Compute, Zero};
use crate::cost::collective::{self, exposed_in_units, Collective, Fabric, Group};
use crate::cost::config::{Config, ZeroR};
use crate::hardware::{Hardware, Link};
use crate::memory::ActivationModel;
use crate::model::ModelShape;

/// One GPU's bandwidth per direction for point-to-point traffic (pipeline
/// sends, the context ring, the experts' all-to-all): NVLink inside a
/// node, else its share of the network, each at its bus efficiency
/// ([`Fabric::of`]).
fn per_direction(hw: &Hardware, a: &Assumptions, inside_node: bool) -> f64 {
    let fabric = Fabric::of(hw, a);
    if inside_node {
        fabric.nvlink
    } else {
        fabric.nic
    }
}

/// The step time of a configuration under `a` ([`super::evaluate_with`]
/// calls it with [`Timing::Seconds`](crate::cost::assumptions::Timing)).
#[must_use]
pub fn step_time(model: &ModelShape, hw: &Hardware, cfg: &Config, a: &Assumptions) -> StepTime {
    step_time_shaped(model, hw, cfg, a, shaped_rates(model, hw, cfg, a))
}

/// [`step_time`] given the configuration's kernel rates
/// ([`shaped_rates`], computed once for many configurations).
#[must_use]
pub fn step_time_shaped(
    model: &ModelShape,
    hw: &Hardware,
    cfg: &Config,
    a: &Assumptions,
    shaped: Option<Shaped>,
) -> StepTime {
    let (t, p, d) = (
        f64::from(cfg.tensor),
        f64::from(cfg.pipe),
        f64::from(cfg.data),
    );
    let m = f64::from(cfg.micro_batches);
    // Each GPU computes a 1/cp share of each sequence's tokens (context
    // parallelism); every per-token cost below follows.
    let cp = f64::from(cfg.context.max(1));
    let tokens = f64::from(cfg.micro_batch) * f64::from(model.seq_len) / cp;
    let dm = model.width() as f64;
    let peak = hw.gpu.peak.0;
    let (gemm_eff, traffic) = kernels(hw, a);
    let mem_bw = hw.bandwidth(Link::GpuMemory).0;

    // The heaviest device: the most layers (device 0) and, on the last
    // device, the logit layer. Take the slower of the two.
    let per_layer_fwd = layer_forward_flops_per_token(model, a.work)
        + recomputed_flops(model, cfg, a) / passes_of(cfg, model.layers);
    let passes = passes_of(cfg, model.layers);
    let (rep, split, scores) = activation_bytes_per_token(model, a.flash_attention);
    let t_sp = if cfg.sequence_parallel { t } else { 1.0 };
    let layer_traffic = traffic
        * (rep / t_sp + (split + scores) / t)
        * tokens
        * elementwise_passes(cfg, a, model.layers);
    // The linear layers' GEMMs at the linear peak (FP8 or BF16), the
    // attention's at BF16.
    let linear = 2.0 * model.layer_active_params();
    // Mixture of experts: the busiest GPU's routed experts compute
    // `expert_imbalance` times the average, and the rest wait for it.
    let routed_extra =
        2.0 * model.layer_routed_active_params() * (a.expert_imbalance - 1.0).max(0.0);
    let lin_peak = linear_peak(hw, a);
    let score = layer_forward_flops_per_token(model, a.work) - linear;
    let per_gpu = tokens / t;
    // Forward passes of a layer's GEMMs: the forward and its recomputation.
    let forwards = passes - 2.0;
    // The dense linears' seconds per flop, forward and backward.
    let linear_rates = match shaped {
        None => {
            let r = 1.0 / (lin_peak * gemm_eff);
            (r, r)
        }
        Some(Shaped { rates: r, .. }) => (r.dense_forward, r.dense_backward),
    };
    let (layer_gemm, attn_fwd_layer, attn_bwd_layer, logit_time) = match shaped {
        None => {
            let layer_gemm = if a.compute == Compute::Bf16 {
                passes * (per_layer_fwd + routed_extra) * tokens / (t * peak * gemm_eff)
            } else {
                passes * tokens / (t * gemm_eff)
                    * ((linear + routed_extra) / lin_peak + (per_layer_fwd - linear) / peak)
            };
            let attention_forwards = attention_forwards(cfg, a);
            let per_flop = per_gpu / (peak * gemm_eff);
            (
                layer_gemm,
                attention_forwards * score * per_flop,
                2.0 * score * per_flop,
                3.0 * logit_forward_flops_per_token(model, a.work) * per_flop,
            )
        }
        Some(Shaped {
            rates: r,
            logit: logit_rate,
        }) => {
            // Each kind of flop at its kernels' rate: the dense and the
            // routed linears by their shapes, forward and backward
            // apart; the attention at the flash kernel's rate for its
            // sequence (or as GEMMs, materialized); selective
            // recomputation's modules at the attention's forward rate.
            let routed = 2.0 * model.layer_routed_active_params();
            let dense = linear - routed;
            let experts = routed + routed_extra;
            // Selective recomputation's GEMMs (Megatron's MLP module,
            // torchtitan's every second matmul) at the dense forward rate,
            // its attention at the attention's.
            let (extra, extra_linear) = recomputed_parts(model, cfg, a);
            let lin = forwards * (dense * r.dense_forward + experts * r.expert_forward)
                + 2.0 * (dense * r.dense_backward + experts * r.expert_backward)
                + extra_linear * r.dense_forward;
            let (af, ab) = if a.flash_attention {
                (r.attention_forward, r.attention_backward)
            } else {
                (r.dense_forward, r.dense_backward)
            };
            let attn_f = (forwards * score + extra) * af * per_gpu;
            let attn_b = 2.0 * score * ab * per_gpu;
            (
                lin * per_gpu + attn_f + attn_b,
                attn_f,
                attn_b,
                3.0 * logit_forward_flops_per_token(model, a.work) * per_gpu * logit_rate,
            )
        }
    };
    // Eager code's extra element-wise kernels (unfused fp32 RMSNorms, the
    // rotary embedding): each forward pass, and twice that in the
    // backward (autograd runs about two kernels for each one), as
    // measured against the same ops compiled.
    let code = crate::cost::framework::Framework::code_for(a.layer_code, model.gated_mlp);
    let layer_traffic = layer_traffic + {
        let (rep_x, split_x) = crate::cost::saved::eager_extra_per_token(
            model,
            code,
            a.compiled_layers(),
            a.unfused_norm,
        );
        (rep_x / t_sp + split_x / t) * tokens * (forwards + 2.0)
    };
    // Keys and values repeated to the query heads before the kernel
    // (`Assumptions::repeat_kv`): each forward pass reads them and writes
    // the copy, the backward sums the copy's gradient back, 4·(q + kv)
    // bytes a token each; compiled, the copy is written by the rotary
    // embedding's kernel in place of the narrow output and the sum read
    // by its backward, 4·(q − kv) more. At the memory-bound kernels'
    // fraction of the bandwidth. No preset repeats them: the page leaves
    // it out.
    let layer_traffic = layer_traffic
        + if cfg!(feature = "knobs") && a.repeat_kv && model.latent.is_none() {
            let (q, kv) = (model.attention_width() as f64, model.kv_width());
            let bytes = if a.compiled_layers() {
                4.0 * (q - kv)
            } else {
                4.0 * (q + kv)
            };
            bytes / t * tokens * (forwards + 1.0) / memory_efficiency(hw, a)
        } else {
            0.0
        };
    // Compiled, the plain layer's fp32 residual stream under autocast
    // (plain PyTorch AMP) runs fused: what the fitted traffic counts as
    // eager kernels comes off.
    let layer_traffic = layer_traffic
        - if a.compiled_layers() && a.weight_casts && code == crate::cost::saved::LayerCode::Plain {
            // Bytes at the memory-bound kernels' fraction of the
            // bandwidth, as autocast's casts.
            let (fwd, bwd) = crate::cost::saved::compiled_saving_per_token(model);
            (forwards * fwd + bwd) * tokens / memory_efficiency(hw, a)
        } else {
            0.0
        };
    // Autocast's casts of fp32 weights (plain PyTorch AMP): each forward
    // reads a layer's fp32 weights and writes their bf16 copies (6 bytes
    // a weight), each backward turns the bf16 weight gradients into the
    // fp32 `.grad`, accumulated (2 + 4 read, 4 written).
    let (dense, experts) = layer_weights_on_gpu(model, cfg.tensor, cfg.expert, cfg.expert_tensor);
    let weights = dense + experts;
    let layer_traffic = layer_traffic
        + if a.weight_casts {
            // At the memory-bound kernels' fraction of the bandwidth,
            // counted as the bytes that would move at full speed.
            weights * (6.0 * forwards + 10.0) / memory_efficiency(hw, a)
        } else {
            0.0
        };
    // FP8 GEMMs take FP8 inputs: Transformer Engine casts each GEMM's
    // input and each output gradient, computing its amax on the way
    // ([`fp8_casts`]), at the memory-bound kernels' fraction of the
    // bandwidth, and dispatches those kernels too.
    let fp8 = a.compute.is_fp8() && fp8_peak(&hw.gpu).is_some();
    // torchao's `Float8Linear` (`Framework::eager_fp8_casts`: no
    // Transformer Engine) casts each linear's input, weight and output
    // gradient and copies the FP8 operands of the backward GEMMs into the
    // layout `torch._scaled_mm` takes (2 bytes an element); uncompiled the
    // casts run op by op ([`EAGER_FP8_CAST_BYTES`]) and a bias is added
    // by its own kernel, compiled Inductor fuses them into Transformer
    // Engine's bytes.
    let torchao = fp8
        && a.framework.eager_fp8_casts()
        && matches!(a.compute, Compute::Fp8 | Compute::Fp8Current);
    let eager_fp8 = torchao && !a.compiled_layers();
    let layer_traffic = layer_traffic
        + if fp8 {
            let memory = memory_efficiency(hw, a);
            let (bytes, weights) = if torchao {
                let (cast, bias) = if eager_fp8 {
                    (
                        EAGER_FP8_CAST_BYTES * memory / EAGER_FP8_CAST_EFFICIENCY,
                        if model.biases { 4.0 } else { 0.0 },
                    )
                } else {
                    (a.compute.cast_bytes().0, 0.0)
                };
                (
                    (cast + 2.0, cast + 2.0, cast + 2.0 + bias),
                    weights * (forwards * cast + 2.0),
                )
            } else {
                (a.compute.cast_bytes(), 0.0)
            };
            // torchao's float8 tensor parallelism casts the sequence
            // shards it gathers (the same condition as its float8
            // gathers in `tensor::exposed_per_layer`), then copies the
            // gathered tensor into `_scaled_mm`'s layout.
            let gathered = (torchao && cfg.sequence_parallel && t > 1.0).then_some((t, 2.0));
            let (fwd, bwd) = fp8_casts(model, t, bytes, gathered);
            ((forwards * fwd + bwd) * tokens + weights) / memory
        } else {
            0.0
        };
    // PyTorch's tensor parallelism over `[batch, sequence, hidden]`
    // activations copies each sequence-parallel collective's tensor once
    // more ([`layout_copy_bytes_per_token`]), at the memory-bound
    // kernels' fraction of the bandwidth.
    let layer_traffic = layer_traffic
        + if a.batch_first_layout && cfg.sequence_parallel {
            let op_sac = cfg.activation == ActivationModel::Selective && a.op_selective;
            let gather_bytes = if torchao { 1.0 } else { 2.0 };
            tensor::layout_copy_bytes_per_token(
                model,
                t,
                cfg.micro_batch,
                forwards,
                op_sac,
                gather_bytes,
                matches!(
                    cfg.activation,
                    ActivationModel::Paper | ActivationModel::Full
                ) && a.recompute_stops_early(),
            ) * tokens
                / memory_efficiency(hw, a)
        } else {
            0.0
        };
    // An eager framework's CPU dispatches every operator of the layer;
    // where its kernels are shorter, the GPU waits for it.
    let (ops_fwd, ops_bwd) = layer_ops(model);
    let (ops_fwd, ops_bwd) = if eager_fp8 {
        (ops_fwd + EAGER_FP8_OPS.0, ops_bwd + EAGER_FP8_OPS.1)
    } else if fp8 {
        (ops_fwd + FP8_OPS.0, ops_bwd + FP8_OPS.1)
    } else {
        (ops_fwd, ops_bwd)
    };
    let dispatch = a.op_overhead * (forwards * ops_fwd + ops_bwd);
    let launch_layer = (dispatch - layer_gemm - layer_traffic / mem_bw).max(0.0);
    let layer_time = layer_gemm + layer_traffic / mem_bw + launch_layer;
    // The loss's own kernels on the last stage (PyTorch's eager
    // cross-entropy: [`crate::cost::assumptions::CrossEntropy::traffic_per_logit`]).
    let logit_time = logit_time
        + match (model.vocab, a.cross_entropy.traffic_per_logit()) {
            (Some(v), (full, fraction)) if full + fraction > 0.0 => {
                tokens * f64::from(v) / t * (full + fraction / memory_efficiency(hw, a)) / mem_bw
            }
            _ => 0.0,
        };
    let stage_time = |stage: u32| {
        let layers = f64::from(device_layers(model.layers, cfg, stage));
        let logits = if holds_head(cfg, stage) {
            logit_time
        } else {
            0.0
        };
        (layers, logits)
    };
    let (first_layers, first_logits) = stage_time(0);
    let (last_layers, last_logits) = stage_time(cfg.pipe - 1);
    let first = first_layers * layer_time + first_logits;
    let last = last_layers * layer_time + last_logits;
    let (heavy_layers, heavy_logits) = if first >= last {
        (first_layers, first_logits)
    } else {
        (last_layers, last_logits)
    };
    let compute_mb = heavy_layers * layer_gemm + heavy_logits;
    let elementwise_mb = heavy_layers * layer_traffic / mem_bw;
    // Where the CPU's dispatch is the bottleneck, the GPU runs the
    // logits' and the loss's long kernels (a few operators) while the CPU
    // dispatches the backward pass's: they fill the backward's share of
    // the wait.
    let backward_share = ops_bwd / (forwards * ops_fwd + ops_bwd).max(1.0);
    let launch_mb = heavy_layers * launch_layer;
    let launch_mb = launch_mb - heavy_logits.min(launch_mb * backward_share);
    // The attention's share of the GEMMs: forward once, twice when
    // recomputed (full or selective), backward twice the forward's work.
    let attention_forwards = attention_forwards(cfg, a);
    let attention_flops_mb = heavy_layers * score * tokens / t;
    // What the flash kernels compute of that count, so that their rate
    // reads against the peak: half the square under a causal mask, and a
    // backward of 2.5× the forward where the count charges 2×. The
    // materialized attention computes the whole count.
    let causal = if a.flash_attention && shaped.is_some() {
        0.5
    } else {
        1.0
    };
    let logit_flops_mb = if heavy_logits > 0.0 {
        3.0 * logit_forward_flops_per_token(model, a.work) * tokens / t
    } else {
        0.0
    };
    let even = (f64::from(model.layers) * layer_time + logit_time) / p;

    // ZeRO-R P_a and full recomputation re-run each layer's forward.
    let recomputes = matches!(
        cfg.activation,
        ActivationModel::Paper | ActivationModel::Full
    );
    let fabric = Fabric::of(hw, a);
    // Tensor parallelism's collectives, as far as they wait.
    let tensor_mb = heavy_layers
        * tensor::exposed_per_layer(
            model,
            cfg,
            a,
            fabric,
            tokens,
            torchao,
            linear_rates,
            layer_gemm,
        );

    // Context parallelism (ring attention): each layer passes its key and
    // value chunk around the ring, (cp−1)/cp of a sequence's K and V per
    // GPU forward, and again with their gradients backward, each chunk
    // 2·w·b·s/(cp·t) elements of 2 bytes (w the key/value width, or the
    // query width where the layer repeats K and V before the kernel,
    // `Assumptions::repeat_kv`), the gradients in fp32 under PyTorch's
    // ring; over NVLink while t·cp fits a node (ranks ordered tensor,
    // context, data, pipeline, as Megatron-Core), else the network; what
    // the attention's blocks leave exposed, as the framework exchanges
    // them ([`crate::cost::context::exposed`]).
    let node = f64::from(hw.node_size.unwrap_or(u32::MAX));
    let mut ring_bytes_mb = 0.0;
    let context_mb = if cfg.context > 1 {
        let width = if cfg!(feature = "knobs") && a.repeat_kv && model.latent.is_none() {
            model.attention_width() as f64
        } else {
            model.kv_width()
        };
        let chunk = 2.0 * width * 2.0 * tokens / t;
        let torch_ring = a.framework.torch_context_parallel();
        let grad = if torch_ring { 2.0 * chunk } else { chunk };
        let inside = t * cp <= node;
        let link = per_direction(hw, a, inside);
        let x = crate::cost::context::Exchange {
            ranks: cp,
            send: collective::send_seconds(chunk, link, !inside),
            gather: collective::seconds(
                Collective::AllGather,
                cp * chunk,
                Group::strided(cp, t, hw.node_size),
                fabric,
            ),
            grad_send: collective::send_seconds(grad, link, !inside),
            grad_home: torch_ring,
        };
        let forwards = attention_forwards.max(1.0);
        ring_bytes_mb = heavy_layers
            * ((forwards + 1.0) * (cp - 1.0) * chunk
                + grad * if torch_ring { cp } else { cp - 1.0 });
        heavy_layers
            * crate::cost::context::exposed(
                a.context_exchange,
                &x,
                forwards,
                attn_fwd_layer / forwards,
                attn_bwd_layer,
            )
    } else {
        0.0
    };

    // Expert parallelism's all-to-all ([`expert::all_to_all`]).
    let (expert_mb, a2a_bytes_mb) = expert::all_to_all(
        model,
        hw,
        cfg,
        a,
        fabric,
        tokens,
        heavy_layers,
        recomputes,
        compute_mb + elementwise_mb,
    );

    // Pipeline sends: one activation forward and one gradient backward per
    // micro-batch and chunk, 2·b·s·d_m/t bytes (split over the tensor
    // ranks: sequence parallelism, or PTD-P's scatter/gather).
    let pipe_inside = t * cp * d * p <= node;
    let pipe_bw = per_direction(hw, a, pipe_inside);
    let send_mb = if cfg.pipe > 1 {
        2.0 * f64::from(chunks_per_device(cfg))
            * collective::send_seconds(2.0 * tokens * dm / t, pipe_bw, !pipe_inside)
    } else {
        0.0
    };

    let bubble = bubble_fraction(cfg, model.layers);
    let mb = compute_mb + elementwise_mb + launch_mb + tensor_mb + send_mb + context_mb + expert_mb;
    let slots = m * (1.0 + bubble);

    // Data parallelism. Gradients of the heaviest device (one tensor
    // shard) reduced in `gradient_reduce_bytes`; with the optimizer state
    // sharded (ZeRO-1/2) a reduce-scatter and an all-gather of the bf16
    // weights, else an all-reduce; ZeRO-2/3 reduce every micro-batch's
    // gradients, ZeRO-3 gathers the weights for the forward and the
    // backward of every micro-batch (or once per step).
    let rings = DataRing::new(model, hw, cfg, a);
    let ring = |bytes_per_param: f64, factor: f64| rings.seconds(bytes_per_param, factor);
    // ZeRO-3 runs one collective per layer, not per bucket.
    let rings3 = rings.in_units(heavy_layers.max(1.0));
    let ring3 = |bytes_per_param: f64, factor: f64| rings3.seconds(bytes_per_param, factor);
    let grad = a.gradient_reduce_bytes;
    let weights = 2.0;
    let zero = zero_run(cfg, a.pipeline_gathers_step);
    let fwd_share = 1.0 / passes;
    // The windows data-parallel traffic hides under: the device's busy
    // time, the wait for an eager CPU included (the links are free then).
    let busy_mb = compute_mb + elementwise_mb + launch_mb;
    let bwd_mb = busy_mb * (1.0 - fwd_share);
    let fwd_mb = busy_mb * fwd_share;
    // FSDP (ZeRO-3) gathers and reduces layer by layer, each prefetched
    // under the layer before; bucketed reductions run a bucket under the
    // next one's backward: what is left exposed is one unit's collective
    // and whatever outlasts its neighbour's compute.
    let exposed = |comm: f64, window: f64, units: f64| {
        if a.overlap_data {
            exposed_in_units(comm, window, units)
        } else {
            comm
        }
    };
    let (layers_u, buckets) = (heavy_layers.max(1.0), rings.units);
    let data = if cfg.method.layered() {
        // Layered gradient accumulation (Lamy-Poirier sec. 3): each layer's
        // gradients are reduced, and a partitioned state restored, once per
        // step, under the backward (forward) pass of all m micro-batches.
        let restore = if zero.stage() == 3 { weights } else { 0.0 };
        let factor = if zero.stage() >= 1 { 1.0 } else { 2.0 };
        exposed(
            ring(grad, factor) + ring(restore, 1.0),
            m * bwd_mb,
            layers_u,
        ) + exposed(ring(restore, 1.0), m * fwd_mb, layers_u)
    } else {
        match zero {
            Zero::None => exposed(ring(grad, 2.0), bwd_mb, buckets),
            Zero::One => {
                exposed(ring(grad, 1.0), bwd_mb, buckets)
                    + exposed(ring(weights, 1.0), fwd_mb, buckets)
            }
            Zero::Two => {
                m * exposed(ring(grad, 1.0), bwd_mb, buckets)
                    + exposed(ring(weights, 1.0), fwd_mb, buckets)
            }
            Zero::Three => {
                m * (exposed(ring3(grad, 1.0) + ring3(weights, 1.0), bwd_mb, layers_u)
                    + exposed(ring3(weights, 1.0), fwd_mb, layers_u))
            }
            Zero::ThreePerStep => {
                exposed(ring3(weights, 1.0), fwd_mb, layers_u)
                    + exposed(ring3(grad, 1.0), bwd_mb, layers_u)
            }
        }
    };

    // What a layer's copy to or from CPU memory of `bytes` a token leaves
    // exposed, per layer and micro-batch: out under its forward, back under
    // its backward (the rest of its passes), over the CPU link; only what
    // outlasts the layer's own compute shows.
    let copied = |bytes: f64| {
        let copy = bytes * tokens / hw.bandwidth(Link::CpuGpu).0;
        let layer = (layer_gemm * passes.recip()).max(0.0);
        (copy - layer).max(0.0) + (copy - layer * (passes - 1.0)).max(0.0)
    };
    // ZeRO-R P_a+cpu: each layer's (partitioned) checkpoint, before its
    // recomputation.
    let offload = if recomputes && cfg.zero_r == ZeroR::PaCpu {
        m * heavy_layers * copied(checkpoint_per_token(model, cfg))
    } else {
        0.0
    };
    // Activation offloading (Megatron-Core's `--cpu-offloading-num-layers`):
    // an offloaded layer's activations, everything it keeps, not recomputed.
    let offload = offload
        + if cfg.offloaded_layers() > 0 {
            let (rep, split, scores) = saved_per_token(model, a);
            let per_device = offloaded_share(cfg, model.layers)
                * f64::from(chunk_size(cfg, model.layers))
                * f64::from(cfg.virtual_stages.max(1));
            m * per_device * copied(rep / t_sp + (split + scores) / t)
        } else {
            0.0
        }
        // Fine-grained offloading: every layer's modules' tensors
        // ([`crate::cost::offload::per_token`]).
        + m * heavy_layers * copied(crate::cost::offload::per_token(model, cfg, a));

    // The optimizer step: memory-bound over the local shard.
    let (_, _, opt_shard) = zero.shards(rings.ranks);
    let (_, _, opt_shard_e) = zero.shards(rings.expert_ranks);
    let optimizer_bytes =
        (rings.dense / opt_shard + rings.experts / opt_shard_e) * a.precision.optimizer_traffic();
    // Fused Adam reaches the memory-bound kernels' fraction of the
    // bandwidth (measured: 0.68–0.74 in whole steps), under the measured
    // kernel model.
    let optimizer = optimizer_bytes / (mem_bw * memory_efficiency(hw, a));

    StepTime {
        compute: m * compute_mb,
        elementwise: m * elementwise_mb,
        launch: m * launch_mb,
        tensor: m * tensor_mb,
        pipeline: m * send_mb,
        bubble: (slots - m) * mb,
        data,
        optimizer,
        offload,
        context: m * context_mb,
        expert: m * expert_mb,
        all_to_all_bytes: m * a2a_bytes_mb,
        context_ring_bytes: m * ring_bytes_mb,
        imbalance: ((compute_mb + elementwise_mb) / even.max(f64::MIN_POSITIVE) - 1.0).max(0.0),
        attention_forward: m * heavy_layers * attn_fwd_layer,
        attention_backward: m * heavy_layers * attn_bwd_layer,
        logits: m * heavy_logits,
        linear_flops: m * heavy_layers * passes * (linear + routed_extra) * tokens / t,
        attention_forward_flops: m * attention_forwards * attention_flops_mb * causal,
        attention_backward_flops: m * 2.0 * attention_flops_mb * causal * 1.25,
        logit_flops: m * logit_flops_mb,
        elementwise_bytes: m * heavy_layers * layer_traffic,
        optimizer_bytes,
    }
}

/// One micro-batch on the heaviest device as [`step_time`] times it, cut
/// into the passes a simulated schedule draws (the page's animation of a
/// practice plan takes its durations from here, so that its step is the
/// evaluator's, not the paper's perfect kernels).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MicroBatchSeconds {
    /// The forward pass of every layer on the device: 1/passes of its
    /// GEMMs, element-wise kernels and exposed tensor, context, expert
    /// and offload traffic ([`passes_of`]).
    pub forward: f64,
    /// The backward pass, recomputation included: the other
    /// (passes − 1)/passes.
    pub backward: f64,
    /// One pipeline send (one direction, one chunk).
    pub send: f64,
    /// The device's gradient reduction over the data ranks, whole (not
    /// only what is left exposed): a reduce-scatter with ZeRO ≥ 1, else
    /// an all-reduce, in the run's gradient precision.
    pub reduce: f64,
    /// The all-gather of the device's bf16 weights (ZeRO-1's after the
    /// step, ZeRO-3's before each use).
    pub restore: f64,
    /// The optimizer step over the device's shard.
    pub optimizer: f64,
}

/// [`MicroBatchSeconds`] of a configuration under `a`.
#[must_use]
pub fn micro_batch_seconds(
    model: &ModelShape,
    hw: &Hardware,
    cfg: &Config,
    a: &Assumptions,
) -> MicroBatchSeconds {
    let parts = step_time(model, hw, cfg, a);
    let m = f64::from(cfg.micro_batches.max(1));
    let busy = (parts.compute
        + parts.elementwise
        + parts.launch
        + parts.tensor
        + parts.context
        + parts.expert
        + parts.offload)
        / m;
    let passes = passes_of(cfg, model.layers);
    let factor = if zero_of(cfg).stage() >= 1 { 1.0 } else { 2.0 };
    let rings = DataRing::new(model, hw, cfg, a);
    MicroBatchSeconds {
        forward: busy / passes,
        backward: busy * (passes - 1.0) / passes,
        send: parts.pipeline / m / (2.0 * f64::from(chunks_per_device(cfg))),
        reduce: rings.seconds(a.gradient_reduce_bytes, factor),
        restore: rings.seconds(2.0, 1.0),
        optimizer: parts.optimizer,
    }
}
