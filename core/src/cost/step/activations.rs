//! Activation bytes per token a layer keeps, by recomputation (Korthikanti
//! et al. 2022), and what FP8 and checkpoints change of them.

use crate::cost::assumptions::Assumptions;
use crate::cost::config::{Config, ZeroR};
use crate::memory::ActivationModel;
use crate::model::ModelShape;

/// Activation bytes per token one layer stores without recomputation
/// (Korthikanti et al. 2022, sec. 4.1, generalised to grouped-query
/// attention and gated feed-forward blocks), as (replicated, split,
/// scores):
///
/// * replicated over the tensor devices unless sequence parallel: the two
///   norms' inputs (4·d_m), the attention and feed-forward inputs (4·d_m),
///   two dropout masks (2·d_m): 10·d_m;
/// * split over the tensor devices: Q (2·d_m), K and V (4·d_kv), the
///   attention output (2·d_m), the feed-forward intermediates (4·d_I, or
///   8·d_I gated: gate, up, activation, product): 24·d_m for GPT; an MoE
///   layer keeps the k routed copies of its input and output (4·k·d_m)
///   and the intermediates of the k + shared experts; latent attention's
///   queries, keys, values and output at their own widths;
/// * the attention scores, softmax and dropout: 5·d_a·d_s, split, none
///   with FlashAttention.
#[must_use]
pub fn activation_bytes_per_token(model: &ModelShape, flash: bool) -> (f64, f64, f64) {
    let dm = model.width() as f64;
    let kv = model.kv_width();
    let gated = if model.gated_mlp { 8.0 } else { 4.0 };
    let ffn = match model.experts {
        None => gated * f64::from(model.ffn),
        // The heaviest (MoE) layer: each token's k routed copies in and out
        // (2·2·d_m·k) and the intermediates of its k routed and the shared
        // experts.
        Some(e) => {
            4.0 * dm * f64::from(e.top_k) + gated * f64::from(e.ffn) * f64::from(e.top_k + e.shared)
        }
    };
    let (q, out, heads) = match model.latent {
        None => {
            let aw = model.attention_width() as f64;
            (2.0 * aw, 2.0 * aw, f64::from(model.heads))
        }
        Some(l) => {
            let h = f64::from(l.heads);
            (
                2.0 * h * f64::from(l.nope + l.rope),
                2.0 * h * f64::from(l.v),
                h,
            )
        }
    };
    let split = q + 4.0 * kv + out + ffn;
    let scores = if flash {
        0.0
    } else {
        5.0 * heads * f64::from(model.seq_len)
    };
    (10.0 * dm, split, scores)
}

/// What one layer saves per token under `a`, as (replicated, split,
/// scores): the op-by-op count of the framework's layer code
/// ([`crate::cost::saved::per_token`]).
#[must_use]
pub fn saved_per_token(model: &ModelShape, a: &Assumptions) -> (f64, f64, f64) {
    use crate::cost::saved::LayerCode;
    let code = crate::cost::framework::Framework::code_for(a.layer_code, model.gated_mlp);
    // Eager code compiled: Inductor's partition saves its own set;
    // Transformer Engine's and Korthikanti's layers are fused already.
    if a.compiled_layers() && !matches!(code, LayerCode::Fused | LayerCode::Megatron2022) {
        return crate::cost::saved::per_token_compiled(
            model,
            a.weight_casts,
            a.dropout,
            a.flash_attention,
        );
    }
    let (rep, split, scores) =
        crate::cost::saved::per_token(model, code, a.weight_casts, a.dropout, a.flash_attention);
    // The norms as they run: an unfused RMSNorm keeps more than a fused
    // one. The page cannot set the kernel, and each preset's own keeps
    // what its code counts (0): that code stays out of the page.
    let norms = if cfg!(feature = "knobs") {
        crate::cost::saved::unfused_norm_saved(model, code, a.unfused_norm)
    } else {
        0.0
    };
    // Keys and values repeated before the kernel: it saves the copies,
    // 2 bytes a query width each, where the two narrow ones were.
    let repeated = if cfg!(feature = "knobs") && a.repeat_kv && model.latent.is_none() {
        4.0 * (model.attention_width() as f64 - model.kv_width())
    } else {
        0.0
    };
    (rep + norms * model.width() as f64, split + repeated, scores)
}

/// Activation bytes per token one layer keeps per micro-batch on one GPU,
/// and the working set while it is recomputed (both per token):
///
/// * none: everything, (replicated/t_sp + split/t + scores/t);
/// * selective: the scores are recomputed, the rest kept;
/// * full (and the paper's): the layer input only, the checkpoint
///   2·d_m/t_sp, plus one layer's full set while it is recomputed. ZeRO-R's
///   P_a splits the checkpoint over the t ranks as sequence parallelism
///   does; P_a+cpu keeps none on the GPU but two in the working set (the
///   one restored and the next, prefetched) (seed 001 sec. 6.1).
#[must_use]
pub fn kept_per_token(model: &ModelShape, cfg: &Config, a: &Assumptions) -> (f64, f64) {
    let t = f64::from(cfg.tensor);
    let t_sp = if cfg.sequence_parallel { t } else { 1.0 };
    let (rep, split, scores) = saved_per_token(model, a);
    let everything = rep / t_sp + (split + scores) / t;
    // Fine-grained offloading: the modules' tensors leave the kept set;
    // the layer being copied holds them a while ([`crate::cost::offload`]).
    let offloaded = crate::cost::offload::per_token(model, cfg, a);
    let (kept, working) = kept_on_gpu(model, cfg, a, everything, (rep, split, scores), (t, t_sp));
    let sent = offloaded.min(kept);
    (kept - sent, working + sent)
}

/// [`kept_per_token`] before fine-grained offloading.
fn kept_on_gpu(
    model: &ModelShape,
    cfg: &Config,
    a: &Assumptions,
    everything: f64,
    (rep, split, scores): (f64, f64, f64),
    (t, t_sp): (f64, f64),
) -> (f64, f64) {
    match cfg.activation {
        ActivationModel::None => (everything, 0.0),
        // torchtitan's selective checkpointing is per op
        // (`activation_checkpoint.mode = "selective"`, option "op"):
        // [`crate::cost::saved::op_sac_per_token`] kept, the rest
        // recomputed in the layer's backward.
        ActivationModel::Selective if a.op_selective => {
            let (rep_k, split_k) = crate::cost::saved::op_sac_per_token(model, a.compiled_layers());
            let kept = rep_k / t_sp + split_k / t;
            (kept, (everything - kept).max(0.0))
        }
        ActivationModel::Selective => {
            // Megatron-Core's modules: what they keep is computed again.
            let code = crate::cost::framework::Framework::code_for(a.layer_code, model.gated_mlp);
            let (r, s) = cfg.modules().saved(model, code, a.weight_casts);
            let (r, s) = (r.min(rep), s.min(split));
            let scores_kept = if cfg.modules().has(crate::cost::saved::Modules::CORE_ATTN) {
                0.0
            } else {
                scores
            };
            (
                (rep - r) / t_sp + (split - s + scores_kept) / t,
                r / t_sp + (s + scores - scores_kept) / t,
            )
        }
        ActivationModel::Full | ActivationModel::Paper => {
            // Plain AMP's residual stream is fp32: its checkpoints too.
            let width = if a.weight_casts { 2.0 } else { 1.0 };
            let ckpt = width * checkpoint_per_token(model, cfg);
            if cfg.zero_r == ZeroR::PaCpu {
                (0.0, everything + 2.0 * ckpt)
            } else {
                (ckpt, everything)
            }
        }
    }
}

/// Bytes per token and layer that FP8 GEMMs save on one GPU (Transformer
/// Engine keeps the FP8 copy of each FP8 GEMM's input for its weight
/// gradient, 1 byte, instead of the BF16 tensor): the inputs of the QKV
/// and feed-forward projections (d_m each, replicated unless sequence
/// parallel), of the attention's output projection (d_a·d_h) and of the
/// down projection (d_I, or the k routed and the shared experts' of an
/// MoE layer), split over the tensor ranks. Only what is kept: none with
/// full recomputation, whose checkpoints are the BF16 layer inputs.
#[must_use]
pub fn fp8_saved_per_token(model: &ModelShape, cfg: &Config) -> f64 {
    if !matches!(
        cfg.activation,
        ActivationModel::None | ActivationModel::Selective
    ) {
        return 0.0;
    }
    let t = f64::from(cfg.tensor);
    let t_sp = if cfg.sequence_parallel { t } else { 1.0 };
    // What selective recomputation's modules no longer keep saves nothing.
    let modules = if cfg.activation == ActivationModel::Selective {
        cfg.modules()
    } else {
        crate::cost::saved::Modules(0)
    };
    use crate::cost::saved::Modules;
    let down = match model.experts {
        None if modules.has(Modules::MLP) => 0.0,
        None => f64::from(model.ffn),
        Some(_) if modules.has(Modules::MOE) => 0.0,
        Some(e) => {
            let routed = if modules.has(Modules::MOE_ACT) {
                0.0
            } else {
                f64::from(e.top_k)
            };
            let shared = if modules.has(Modules::SHARED_EXPERTS) {
                0.0
            } else {
                f64::from(e.shared)
            };
            f64::from(e.ffn) * (routed + shared)
        }
    };
    // What fine-grained offloading sends is not kept, in FP8 or not: the
    // attention's output (`core_attn`, `attn_proj`), the QKV projection's
    // input (`qkv_linear`).
    use crate::cost::offload::OffloadModules;
    let off = cfg.offloaded_modules();
    let out = match model.latent {
        _ if off.has(OffloadModules::CORE_ATTN) || off.has(OffloadModules::ATTN_PROJ) => 0.0,
        None => model.attention_width() as f64,
        Some(l) => f64::from(l.heads) * f64::from(l.v),
    };
    let inputs = if modules.has(Modules::LAYERNORM) {
        0.0
    } else if off.has(OffloadModules::QKV_LINEAR) {
        model.width() as f64
    } else {
        2.0 * model.width() as f64
    };
    inputs / t_sp + (out + down) / t
}

/// Bytes per token of one layer's activation checkpoint on one GPU under
/// full recomputation: the layer input 2·d_m, split over the tensor ranks
/// by sequence parallelism or ZeRO-R's P_a.
#[must_use]
pub fn checkpoint_per_token(model: &ModelShape, cfg: &Config) -> f64 {
    let split = cfg.sequence_parallel || cfg.zero_r != ZeroR::None;
    let t = if split { f64::from(cfg.tensor) } else { 1.0 };
    2.0 * model.width() as f64 / t
}
