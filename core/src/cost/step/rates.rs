//! The rates a step's kernels run at: the kernel model's figures under the
//! assumptions, a layer's kernels by shape ([`shaped_rates`], computed once
//! per micro-batch and degrees), Transformer Engine's FP8 casts, the
//! operators an eager CPU dispatches, and the search's floor on a
//! micro-batch.

use super::{activation_bytes_per_token, layer_forward_flops_per_token};
use crate::cost::assumptions::{
    fp8_peak, kernel_fit, mx_native, Assumptions, Compute, KernelModel,
};
use crate::cost::config::Config;
use crate::cost::kernels;
use crate::hardware::{Hardware, Link};
use crate::model::ModelShape;

/// The kernel model's GEMM efficiency and element-wise traffic factor
/// under `a`: flat (the paper's one efficiency, no traffic), the fitted
/// model of the GPU, or a given fit.
pub(super) fn kernels(hw: &Hardware, a: &Assumptions) -> (f64, f64) {
    match a.kernel {
        KernelModel::Flat => (hw.kernel_efficiency, 0.0),
        KernelModel::Measured => {
            let fit = kernel_fit(&hw.gpu);
            (fit.gemm_efficiency, fit.elementwise_traffic)
        }
        KernelModel::Given(fit) => (fit.gemm_efficiency, fit.elementwise_traffic),
    }
}

/// The peak the linear layers' GEMMs run at: the GPU's FP8 peak under an
/// FP8 format ([`Compute::is_fp8`]), else its BF16 peak (the format check
/// is [`crate::cost::evaluate_with`]'s).
#[must_use]
pub fn linear_peak(hw: &Hardware, a: &Assumptions) -> f64 {
    if !a.compute.is_fp8() {
        return hw.gpu.peak.0;
    }
    fp8_peak(&hw.gpu).map_or(hw.gpu.peak.0, |p| p.0)
}

/// The kernels the linear layers' GEMMs run as under `a` on `hw`: BF16;
/// per-tensor FP8 (delayed or current scaling); block-scaled FP8 on
/// Hopper's CUDA cores; MXFP8, and block scales on Blackwell, in its
/// block-scaled tensor cores.
#[must_use]
pub fn linear_format(hw: &Hardware, a: &Assumptions) -> kernels::Format {
    use kernels::Format;
    // BF16 first: no look-up of the GPU's name (the search's floor asks
    // this for every candidate).
    if a.compute == Compute::Bf16 || fp8_peak(&hw.gpu).is_none() {
        return Format::Bf16;
    }
    match a.compute {
        Compute::Bf16 => Format::Bf16,
        Compute::Fp8 | Compute::Fp8Current => Format::Fp8,
        Compute::Fp8Block if !mx_native(&hw.gpu) => Format::Fp8Block,
        Compute::Fp8Block | Compute::Mxfp8 => Format::Mx,
    }
}

/// Bytes per token one layer's FP8 casts move on one of `tensor` ranks,
/// (forward, backward), as Transformer Engine runs them under `compute`
/// (`bytes`: [`Compute::cast_bytes`], or eager PyTorch's,
/// [`EAGER_FP8_CAST_BYTES`]; per-tensor delayed scaling's figures here):
/// forward, the attention projection's and the second MLP GEMM's inputs
/// (split over the tensor ranks) read in BF16 and written in FP8, 3 bytes
/// an element, and the normalized inputs of the QKV and first MLP GEMMs
/// written in FP8 beside their BF16 (1 byte: `LayerNormLinear` fuses the
/// cast); backward, every GEMM's output gradient cast and transposed, 3
/// bytes. A mixture's routed experts count their k copies. FP8 weights
/// (`fp8_params`) need no cast.
///
/// `gathered`: where float8 tensor parallelism casts before its
/// sequence-parallel all-gathers (torchao's `Float8ColwiseParallel` and
/// `PrepareFloat8ModuleInput` cast each rank's sequence shard of the
/// normalized inputs, its `Float8RowwiseParallel` the shards of the
/// output projections' gradients, then gather float8), the sequence-
/// parallel degree and the bytes an element still moved on the gathered
/// tensor (its copy into `torch._scaled_mm`'s layout): those d_m-wide
/// tensors, 2·d_m forward and 2·d_m backward, are cast on 1/t of their
/// elements. `None`: cast whole, after any gather.
#[must_use]
pub fn fp8_casts(
    model: &ModelShape,
    tensor: f64,
    (unfused, fused, gradient): (f64, f64, f64),
    gathered: Option<(f64, f64)>,
) -> (f64, f64) {
    let t = tensor.max(1.0);
    let dm = model.width() as f64;
    let attn = model.attention_width() as f64;
    let qkv = attn + 2.0 * model.kv_width();
    let ffn = match model.experts {
        Some(e) => {
            let moe = f64::from(model.moe_layers()) / f64::from(model.layers);
            f64::from(e.ffn) * (f64::from(e.shared) + moe * f64::from(e.top_k))
                + (1.0 - moe) * f64::from(model.ffn)
        }
        None => f64::from(model.ffn),
    };
    let gate = if model.gated_mlp { 2.0 } else { 1.0 };
    // The d_m-wide tensors' bytes an element: cast whole, or cast on a
    // shard and copied whole.
    let (wide_fused, wide_gradient) = match gathered {
        Some((t_sp, copy)) => (
            (fused - copy) / t_sp.max(1.0) + copy,
            (gradient - copy) / t_sp.max(1.0) + copy,
        ),
        None => (fused, gradient),
    };
    (
        unfused * (attn + ffn) / t + wide_fused * 2.0 * dm,
        gradient * (qkv + gate * ffn) / t + wide_gradient * 2.0 * dm,
    )
}

/// Bytes one element's FP8 cast moves when eager PyTorch runs it op by op,
/// as torchao's `Float8Linear` (`tensorwise`) does without `torch.compile`
/// (`hp_tensor_to_float8_dynamic`: `x.abs()` 4, `.amax()` 2,
/// `.to(float32)` 6, `× scale` 8, `.clamp(±max)` 8, `.to(float8)` 5, from
/// bf16; from an fp32 input, autocast's norms', the `.to` is free and the
/// rest move the same 33), each a kernel, where Transformer Engine's fused
/// kernel moves 5 ([`Compute::cast_bytes`]). The step charges them on the
/// elements [`fp8_casts`] counts (every linear's input forward, every
/// output gradient backward) and on the layer's weights every forward,
/// with 2 bytes more an element for the copy into the layout
/// `torch._scaled_mm` takes (`.t().contiguous()`) and, with biases, 4 an
/// output element for the bias added by its own kernel (cuBLAS's epilogue
/// added it in BF16). The FP8 tensors are kept for the backward, as
/// torchao's tensorwise path keeps them
/// (`manual_float8_matmul_with_args_in_float8`).
pub const EAGER_FP8_CAST_BYTES: f64 = 33.0;

/// Fraction of the memory bandwidth an eager FP8 cast's kernels reach:
/// one H200 ran PyTorch 2.11's eager current-scaling cast (`abs`, `amax`,
/// the scale, `× scale`, `.to(float8)`: 13 bytes an element) over 2²⁸ bf16
/// elements at 341 GB/s of input, 2.2 TB/s of the 4.8
/// (`calibration/h200-2026-11-26/shapes.json`, `fp8_cast`): the amax at
/// 0.8, the scaled cast at a third. Copies reach 0.7
/// ([`crate::cost::kernels::Curves::memory`]).
pub const EAGER_FP8_CAST_EFFICIENCY: f64 = 0.46;

/// Operators eager FP8 adds to a layer, (forward, backward): per linear,
/// nine for each of the two casts (the amax, the scale's arithmetic, the
/// scaled cast) and the bias, then nine for the gradient's cast and three
/// layout copies.
pub const EAGER_FP8_OPS: (f64, f64) = (76.0, 48.0);

/// Operators Transformer Engine adds to a layer under FP8, (forward,
/// backward): the two unfused input casts, and the four output gradients'
/// cast-transposes.
pub const FP8_OPS: (f64, f64) = (2.0, 4.0);

/// Operators one layer dispatches, (forward, backward), as eager PyTorch
/// runs `../shared/calibration/measure_steps.py`'s block under autocast
/// (counted on the CPU with a `TorchDispatchMode`, views left out): a
/// GPT layer (LayerNorm, biases, GELU) 20 and 31, of them 10 and 12 casts;
/// a Llama layer (RMSNorm as PyTorch composes it, SwiGLU) 27 and 52.
#[must_use]
pub fn layer_ops(model: &ModelShape) -> (f64, f64) {
    if model.gated_mlp {
        (27.0, 52.0)
    } else {
        (20.0, 31.0)
    }
}

/// The kernel curves a step runs on: a calibration profile's
/// ([`Assumptions::curves`]), else the GPU preset's.
#[must_use]
pub fn curves_of(hw: &Hardware, a: &Assumptions) -> kernels::Curves {
    a.curves
        .unwrap_or_else(|| kernels::curves(&hw.gpu))
        .with_attention(a.attention_kernel)
}

/// The fraction of the memory bandwidth memory-bound kernels reach: the
/// GPU's curves' under a measured or given kernel model, 1 under the flat
/// one.
pub(super) fn memory_efficiency(hw: &Hardware, a: &Assumptions) -> f64 {
    if a.kernel == KernelModel::Flat {
        1.0
    } else {
        a.curves
            .map_or_else(|| kernels::curves(&hw.gpu).memory, |c| c.memory)
    }
}

/// The kernels-by-shape rates of a configuration's layer
/// ([`crate::cost::kernels::layer_rates`]) and the logit GEMM's seconds
/// per flop, under a measured or given kernel model; `None` under the
/// flat one (the paper's single efficiency).
///
/// They depend on the micro-batch's tokens, the tensor, context and
/// expert degrees and the GPU count only: the search computes them once
/// per candidate and passes them to every configuration it tries
/// ([`super::step_time_shaped`]).
#[must_use]
pub fn shaped_rates(
    model: &ModelShape,
    hw: &Hardware,
    cfg: &Config,
    a: &Assumptions,
) -> Option<Shaped> {
    if a.kernel == KernelModel::Flat {
        return None;
    }
    let tokens =
        f64::from(cfg.micro_batch) * f64::from(model.seq_len) / f64::from(cfg.context.max(1));
    // The sustained fraction is a multi-GPU run's (kernels sharing the
    // SMs and the power budget with NCCL's, waiting on its syncs): one GPU
    // alone runs its kernels as measured in isolation
    // (`calibration/h100-2026-11-26/profile_steps.json`: a Llama 8B
    // slice's GEMMs at 767 Tflop/s in a whole step).
    let gpus = f64::from(cfg.data)
        * f64::from(cfg.tensor)
        * f64::from(cfg.pipe)
        * f64::from(cfg.context.max(1));
    let sustained = if gpus > 1.0 { kernels(hw, a).0 } else { 1.0 };
    let curves = curves_of(hw, a);
    let format = linear_format(hw, a);
    let (peak, bw) = (hw.gpu.peak.0, hw.bandwidth(Link::GpuMemory).0);
    let t = f64::from(cfg.tensor);
    let shape = kernels::LayerShape {
        tokens,
        tensor: t,
        expert: f64::from(cfg.expert.max(1)),
        expert_tensor: f64::from(cfg.expert_tensor_degree()),
        sequence: f64::from(model.seq_len) / f64::from(cfg.context.max(1)),
        split_projections: crate::cost::framework::Framework::code_for(
            a.layer_code,
            model.gated_mlp,
        )
        .split_projections(),
    };
    let rates = kernels::layer_rates(
        model,
        &curves,
        format,
        (linear_peak(hw, a), peak, bw),
        shape,
        sustained,
    );
    let logit = match model.vocab {
        Some(v) => {
            // Megatron pads the vocabulary to a multiple of 128 per tensor
            // rank (`--make-vocab-size-divisible-by`); the others keep it.
            let v = f64::from(v);
            // Compiled, Inductor pads a compute-bound GEMM's unaligned
            // dimension to a multiple of 8 (`shape_padding`, on by default:
            // `torch/_inductor/fx_passes/pad_mm.py`), so an odd vocabulary
            // (GPT-2's 50 257) escapes cuBLAS's unaligned fallback.
            let n = if a.framework.pads_vocabulary() {
                crate::math::ceil(v / (128.0 * t)) * 128.0
            } else if a.compiled_layers() {
                crate::math::ceil(v / (8.0 * t)) * 8.0
            } else {
                v / t
            };
            let (m, k) = (tokens.max(1.0), model.width() as f64);
            let g = |shape| kernels::gemm_seconds(&curves, kernels::Format::Bf16, peak, bw, shape);
            (g((m, n, k)) + g((m, k, n)) + g((k, n, m))) / (6.0 * m * k * n) / sustained
        }
        None => 0.0,
    };
    Some(Shaped { rates, logit })
}

/// A layer's kernel rates and the logit GEMM's seconds per flop
/// ([`shaped_rates`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shaped {
    /// The layer's kernels, seconds per flop by kind.
    pub rates: kernels::LayerRates,
    /// The logit GEMM's seconds per flop (forward and backward).
    pub logit: f64,
}

/// A floor on the heaviest device's time per micro-batch for tensor
/// degree `tensor`, pipeline degree `pipe` and micro-batch `micro_batch`,
/// whatever the rest: the GEMMs and the element-wise traffic of d_l/p
/// layers without recomputation, the activations as split as sequence
/// parallelism makes them, a 1/`context` share of each sequence, or the
/// eager CPU's dispatch of its operators when that is longer. The search
/// prunes with it.
///
/// With `shaped` rates for (tensor, micro_batch, context)
/// ([`shaped_rates`], those of the run's GPU count or of one GPU alone,
/// which are faster), the GEMMs are no faster than those rates, one
/// forward and its backward each ([`super::step_time_shaped`] charges
/// every recomputation on top): an unaligned shape's fallback kernel,
/// far under the ceiling, no longer leaves the floor loose. For a mixture
/// of experts the caller passes rates no slower than those of any expert
/// degree it will try (each rate the least over them,
/// [`crate::cost::kernels::LayerRates::least`]): the grouped expert
/// GEMMs' rates depend on the tokens each expert gets.
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn micro_batch_floor(
    model: &ModelShape,
    hw: &Hardware,
    a: &Assumptions,
    tensor: u32,
    pipe: u32,
    micro_batch: u32,
    context: u32,
    shaped: Option<&Shaped>,
) -> f64 {
    let (gemm_eff, traffic) = kernels(hw, a);
    let t = f64::from(tensor);
    let tokens = f64::from(micro_batch) * f64::from(model.seq_len) / f64::from(context.max(1));
    let (rep, split, scores) = activation_bytes_per_token(model, a.flash_attention);
    let elementwise =
        traffic * (rep + split + scores) / t * tokens * 3.0 / hw.bandwidth(Link::GpuMemory).0;
    let linear = 2.0 * model.layer_active_params();
    let attention = layer_forward_flops_per_token(model, a.work) - linear;
    let peak = hw.gpu.peak.0;
    let gemms = if a.kernel == KernelModel::Flat {
        3.0 * tokens / (t * gemm_eff) * (linear / linear_peak(hw, a) + attention / peak)
    } else {
        // Kernels by shape: no GEMM beats its format's ceiling; the flash
        // kernels run at their rates for the sequence, forward once and
        // backward; one GPU alone runs unsustained (a run of one GPU per
        // these degrees may still be data-parallel: 1 is the bound).
        let c = curves_of(hw, a);
        let s = if tensor * pipe * context.max(1) > 1 {
            gemm_eff
        } else {
            1.0
        };
        // The deepest GEMM's ceiling (block-scaled FP8 approaches its own
        // from below as K grows).
        let ceiling = linear_format(hw, a).ceiling(&c, f64::INFINITY);
        let attn = if a.flash_attention {
            let seq = f64::from(model.seq_len) / f64::from(context.max(1));
            let head = f64::from(model.head_size);
            0.5 / kernels::attention_rate(&c, seq, head, true)
                + 1.25 / kernels::attention_rate(&c, seq, head, false)
        } else {
            3.0 / c.ceiling_bf16
        };
        let ceilings = tokens / (t * s)
            * (3.0 * linear / (linear_peak(hw, a) * ceiling) + attention * attn / peak);
        match shaped {
            Some(Shaped { rates: r, .. }) => {
                let (af, ab) = if a.flash_attention {
                    (r.attention_forward, r.attention_backward)
                } else {
                    (r.dense_forward, r.dense_backward)
                };
                // A mixture's routed experts at their grouped GEMMs' rates
                // (as [`super::step_time_shaped`] charges them, without
                // the busiest GPU's extra), the rest at the dense ones.
                let routed = 2.0 * model.layer_routed_active_params();
                let by_shape = tokens / t
                    * ((linear - routed) * (r.dense_forward + 2.0 * r.dense_backward)
                        + routed * (r.expert_forward + 2.0 * r.expert_backward)
                        + attention * (af + 2.0 * ab));
                ceilings.max(by_shape)
            }
            None => ceilings,
        }
    };
    // An eager CPU dispatches the layer's operators at least once each
    // way: no layer is shorter.
    let (ops_fwd, ops_bwd) = layer_ops(model);
    let dispatch = a.op_overhead * (ops_fwd + ops_bwd);
    f64::from(model.layers) / f64::from(pipe) * (gemms + elementwise).max(dispatch)
}
