//! What a transformer layer's code saves for its backward pass, op by op:
//! the activation memory of a layer as each framework's code allocates it.
//!
//! Every figure is bytes per token, a linear form in the layer's widths
//! ([`Saved`]), read off the ops of the code named by [`LayerCode`] and
//! checked against what PyTorch itself saves:
//!
//! * `core/tests/fixtures/saved_tensors.json`: Hugging Face's Llama and
//!   GPT-2 counted on the CPU with `torch.autograd.graph.saved_tensors_hooks`
//!   (`calibration/saved_tensors.py`), reproduced to the byte by
//!   `core/tests/saved.rs`;
//! * `calibration/h100-2026-11-25/memory.json`: the plain PyTorch layer of
//!   `../shared/calibration/measure_steps.py` counted the same way on an
//!   H100 (CUDA FlashAttention), within 0.01 %.
//!
//! Where a CPU kernel saves differently from the CUDA one the model follows
//! CUDA: dropout keeps a 1-byte mask per element on CUDA (`native_dropout`)
//! and one in the input's dtype on the CPU; FlashAttention keeps q, k, v, its
//! output and the fp32 log-sum-exp on both.

use crate::model::ModelShape;

/// The code a framework runs a layer with: which ops it calls, so what
/// autograd saves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LayerCode {
    /// Korthikanti et al. 2022's count (seed 003) for Megatron-LM's fused
    /// layer: 10·d_m replicated (two norm inputs, the attention and MLP
    /// inputs, two dropout masks) and 24·d_m split for GPT, a gated MLP's
    /// gate, up, activation and product (8·d_I). The paper setting's and
    /// `megatron-2022`'s.
    #[default]
    Megatron2022,
    /// Megatron-Core with Transformer Engine: each norm fused with the
    /// linear after it (`LayerNormLinear` keeps the norm's input and its
    /// output, 2 + 2 bytes), q, k and v as the QKV GEMM wrote them, the
    /// attention output (the projection's input), the fused SwiGLU's input
    /// (gate and up) and output (`bias_swiglu_impl` saves only its input),
    /// or GELU's input and output; dropout masks only where dropout is on
    /// (today's pre-training recipes set it off).
    Fused,
    /// Plain PyTorch: `nn.LayerNorm`/`nn.RMSNorm`, one QKV linear, SDPA,
    /// one gate-up linear, `F.silu(g) * u` or `F.gelu` (the layer of
    /// `../shared/calibration/measure_steps.py`, nanoGPT-like scripts).
    Plain,
    /// Hugging Face `transformers`' Llama (`modeling_llama.py`):
    /// `LlamaRMSNorm` upcasts to fp32 and keeps its fp32 input and the
    /// normalized fp32 tensor, then `weight * x.to(dtype)`; separate q, k,
    /// v, gate and up projections (under autocast each casts its input
    /// again); rotary embedding writes new q and k.
    HfLlama,
    /// Hugging Face `transformers`' GPT-2 (`modeling_gpt2.py`): `Conv1D`
    /// QKV whose split keeps the fused output's storage alive beside new q
    /// and k, `NewGELUActivation` (tanh formula in five ops: its input,
    /// tanh, 1 + tanh and x/2 kept beside the product).
    HfGpt2,
    /// torchtitan's Llama (`torchtitan/models/llama3/model/model.py`):
    /// `nn.RMSNorm`, separate wq/wk/wv and w1/w3 reading one input
    /// (parameters in bf16 under FSDP2, no casts), rotary writing new q
    /// and k, SDPA, `w2(F.silu(w1(x)) * w3(x))` (8·d_I).
    Torchtitan,
}

/// Bytes per token a layer keeps, as a linear form in its widths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Saved {
    /// Per unit of d_m, replicated over the tensor ranks unless sequence
    /// parallel: norm inputs and outputs, the linears' inputs.
    pub hidden: f64,
    /// Per unit of the query width d_a·d_h (q, the attention output).
    pub query: f64,
    /// Per unit of the key/value width (k and v).
    pub kv: f64,
    /// Per unit of the feed-forward width d_I.
    pub ffn: f64,
    /// Per head: FlashAttention's fp32 log-sum-exp.
    pub heads: f64,
    /// Per token, replicated: the norms' statistics.
    pub fixed: f64,
    /// Per unit of d_m with dropout on: the masks (replicated).
    pub dropout: f64,
    /// Per element of q and of k where the model normalizes them per head
    /// ([`ModelShape::qk_norm`]: Qwen3, OLMo 2, Gemma 3): what the two
    /// norms keep of their inputs.
    pub qk: f64,
    /// Per head row of q and of k under those norms: their statistics.
    pub qk_rows: f64,
    /// Per unit of d_m and routed copy of a token (a mixture of experts'
    /// k copies): the dispatched input the experts' first GEMM keeps (2),
    /// and where the combine weights the experts' outputs by the router's
    /// probabilities, those outputs, which the probabilities' gradient
    /// reads (2 more). Megatron-Core's grouped experts (`TEGroupedMLP`)
    /// weight inside the activation instead (`weighted_bias_swiglu_impl`
    /// with `permuted_probs`, `megatron/core/transformer/moe/experts.py`),
    /// whose saved input is the gate and up projections already counted,
    /// and the combine is a scatter-add that keeps nothing.
    pub routed: f64,
}

impl LayerCode {
    /// Whether this code runs the attention's q, k and v projections, and
    /// a gated MLP's gate and up projections, as separate GEMMs reading one
    /// input (Hugging Face's Llama: `q_proj`, `k_proj`, `v_proj`,
    /// `gate_proj`, `up_proj`; torchtitan's: `wq`, `wk`, `wv`, `w1`, `w3`),
    /// where the others run one QKV and one gate-up GEMM (Megatron's
    /// `linear_qkv` and `linear_fc1`, GPT-2's `c_attn`, the plain layer's).
    /// A grouped-query model's k and v projections are narrow: N = d_kv/t.
    #[must_use]
    pub fn split_projections(self) -> bool {
        matches!(self, Self::HfLlama | Self::Torchtitan)
    }

    /// Whether this code's norms are RMSNorms written in PyTorch, which run
    /// op by op unless fused ([`eager_extra_per_token`]): Hugging Face's
    /// `LlamaRMSNorm`, torchtitan's, and the plain layer's `nn.RMSNorm`
    /// in a Llama-shaped model (gated, no biases: `measure_steps.py`'s
    /// `llama` block). Otherwise the plain layer runs `nn.LayerNorm`, one
    /// kernel (GPT's, and llm-foundry's MPT, whose low-precision
    /// LayerNorm has no biases either). Transformer Engine's and
    /// Megatron's norms are fused.
    #[must_use]
    pub fn torch_rms_norm(self, model: &ModelShape) -> bool {
        match self {
            Self::HfLlama | Self::Torchtitan => true,
            Self::Plain => model.gated_mlp && !model.biases,
            _ => false,
        }
    }

    /// Every code.
    pub const ALL: [Self; 6] = [
        Self::Megatron2022,
        Self::Fused,
        Self::Plain,
        Self::HfLlama,
        Self::HfGpt2,
        Self::Torchtitan,
    ];

    /// Stable name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Megatron2022 => "megatron-2022",
            Self::Fused => "fused",
            Self::Plain => "plain",
            Self::HfLlama => "hf-llama",
            Self::HfGpt2 => "hf-gpt2",
            Self::Torchtitan => "torchtitan",
        }
    }

    /// The code's saved bytes for a model, `amp` when the weights are fp32
    /// and autocast computes in bf16 (the residual stream then stays fp32
    /// and each linear casts its input), else everything in bf16.
    ///
    /// Op by op, per token (d = d_m, q = query width, kv = key/value
    /// width, I = d_I, a = heads):
    ///
    /// * `Fused`: norm input 2d and output 2d, twice (8d); q 2q, k and v
    ///   4kv, attention output 2q; fc1 output (4I gated, 2I) and fc2 input
    ///   2I; log-sum-exp 4a; statistics 8 (RMSNorm) or 16 (LayerNorm) per
    ///   token; masks 1 byte × 2d.
    /// * `Plain`, amp: fp32 norm inputs 4d twice, the QKV and fc1 casts 2d
    ///   each (12d); bf16: norm inputs and outputs 2d each (8d); q, k, v,
    ///   output as `Fused`; gated fc1 output 4I, silu output 2I, product
    ///   2I (8I) or GELU input and output (4I).
    /// * `HfLlama`, amp: each norm its fp32 input 4d and normalized fp32
    ///   4d (16d), q, k, v each cast 2d (6d), gate and up each cast 2d
    ///   (4d): 26d; bf16: each norm its fp32 upcast 4d and bf16 normalized
    ///   2d (12d), the q/k/v and gate/up input once each 2d: 16d; new
    ///   rotated q and k, v, output: 4q + 4kv; 8I.
    /// * `HfGpt2`, amp: LN inputs 4d twice and two input casts 2d (12d);
    ///   bf16 8d; the fused QKV output kept whole (2q + 4kv) beside new q
    ///   and k (2q + 2kv) and the output 2q: 6q + 6kv (with kv = q);
    ///   fc output, tanh, 1 + tanh, x/2, product: 10I.
    /// * `Torchtitan` (bf16): norm inputs and outputs 8d; rotated q and
    ///   k, v, output: 4q + 4kv; 8I.
    #[must_use]
    pub fn saved(self, model: &ModelShape, amp: bool) -> Saved {
        let gated = model.gated_mlp;
        let stats = if model.biases { 16.0 } else { 8.0 };
        let (hidden, query, kv, ffn, fixed) = match self {
            // Korthikanti's count, as a linear form (dropout included).
            Self::Megatron2022 => (10.0, 4.0, 4.0, if gated { 8.0 } else { 4.0 }, 0.0),
            Self::Fused => (8.0, 4.0, 4.0, if gated { 6.0 } else { 4.0 }, stats),
            Self::Plain => (
                if amp { 12.0 } else { 8.0 },
                4.0,
                4.0,
                if gated { 8.0 } else { 4.0 },
                stats,
            ),
            Self::HfLlama => (if amp { 26.0 } else { 16.0 }, 4.0, 4.0, 8.0, 8.0),
            Self::HfGpt2 => (
                if amp { 12.0 } else { 8.0 },
                6.0,
                6.0,
                10.0,
                if amp { 16.0 } else { 8.0 },
            ),
            Self::Torchtitan => (8.0, 4.0, 4.0, if gated { 8.0 } else { 4.0 }, 8.0),
        };
        let (heads, dropout) = match self {
            // Korthikanti counts the masks in `hidden` and no log-sum-exp.
            Self::Megatron2022 => (0.0, 0.0),
            _ => (4.0, 2.0),
        };
        // q and k normalized per head (RMSNorm over d_h), after their
        // projections and before the rotary embedding, whose saved q and
        // k are already counted: Transformer Engine's `RMSNorm` (Megatron-
        // Core's `qk_layernorm`) and PyTorch's `nn.RMSNorm` keep their
        // input (bf16, or autocast's fp32 cast of it) and the fp32
        // reciprocal deviation per row; Hugging Face's `Qwen3RMSNorm` (as
        // `LlamaRMSNorm`) its fp32 upcast and the normalized bf16 tensor
        // (the q and k projections write bf16 under autocast too).
        let qk = match self {
            Self::HfLlama | Self::HfGpt2 => 6.0,
            Self::Plain if amp => 4.0,
            _ => 2.0,
        };
        Saved {
            hidden,
            query,
            kv,
            ffn,
            heads,
            fixed,
            dropout,
            qk,
            qk_rows: 4.0,
            routed: if self == Self::Fused { 2.0 } else { 4.0 },
        }
    }
}

/// What Inductor's min-cut partition saves of an eager layer (the plain
/// layer, Hugging Face's, torchtitan's) compiled with `torch.compile`,
/// measured op by op on one H200 (`calibration/h200-2026-11-25/`
/// `memory_compiled.json`, PyTorch 2.11; a GPT-style and a Llama-style
/// layer under AMP and a GPT-style one in bf16, all three to the byte):
/// the layer's input (fp32 4d under AMP, else 2d), each norm's output 2d
/// (the inputs of the QKV and feed-forward GEMMs; the norms themselves
/// run again from them), q, k and v, the attention's output and the
/// output projection's own contiguous copy of it (6q + 4kv), the
/// feed-forward GEMM's output and the down projection's input (gated:
/// gate and up 4I, the product 2I; plain: 2I and 2I), the norms'
/// statistics and the log-sum-exp. Element-wise intermediates are
/// recomputed.
#[must_use]
pub fn compiled_saved(model: &ModelShape, amp: bool) -> Saved {
    Saved {
        hidden: if amp { 8.0 } else { 6.0 },
        query: 6.0,
        kv: 4.0,
        ffn: if model.gated_mlp { 6.0 } else { 4.0 },
        heads: 4.0,
        fixed: if model.biases { 16.0 } else { 8.0 },
        dropout: 2.0,
        // Not measured: the normalized q and k, as the norms of the
        // layer, with their statistics recomputed.
        qk: 2.0,
        qk_rows: 0.0,
        routed: 4.0,
    }
}

/// Activation bytes per token one layer of `code` keeps without
/// recomputation, as (replicated, split over the tensor ranks, attention
/// scores): [`LayerCode::saved`] applied to the layer's widths, with a
/// mixture of experts' routed copies ([`Saved::routed`]·d_m·k: the
/// dispatched input, and the expert outputs where the combine weights
/// them) and the intermediates of its k routed and
/// shared experts, latent attention's q, k, v and output at their own
/// widths; the scores (5·a·d_s, materialized attention only) as
/// Korthikanti counts them. [`LayerCode::Megatron2022`] is exactly
/// [`crate::cost::step::activation_bytes_per_token`].
#[must_use]
pub fn per_token(
    model: &ModelShape,
    code: LayerCode,
    amp: bool,
    dropout: bool,
    flash: bool,
) -> (f64, f64, f64) {
    if code == LayerCode::Megatron2022 {
        return crate::cost::step::activation_bytes_per_token(model, flash);
    }
    per_token_of(model, code.saved(model, amp), dropout, flash)
}

/// [`per_token`] of a layer compiled with `torch.compile`
/// ([`compiled_saved`]).
#[must_use]
pub fn per_token_compiled(
    model: &ModelShape,
    amp: bool,
    dropout: bool,
    flash: bool,
) -> (f64, f64, f64) {
    per_token_of(model, compiled_saved(model, amp), dropout, flash)
}

/// The attention's widths the saved forms count in, as (query width,
/// key/value width, heads): latent attention's up-projected queries and
/// keys (nope + rope per head) and values per head.
#[must_use]
pub(crate) fn attention_widths(model: &ModelShape) -> (f64, f64, f64) {
    match model.latent {
        None => (
            model.attention_width() as f64,
            model.kv_width(),
            f64::from(model.heads),
        ),
        Some(l) => {
            let h = f64::from(l.heads);
            (h * f64::from(l.nope + l.rope), h * f64::from(l.v), h)
        }
    }
}

/// A linear form's bytes per token for `model`'s widths ([`per_token`]).
fn per_token_of(model: &ModelShape, s: Saved, dropout: bool, flash: bool) -> (f64, f64, f64) {
    let dm = model.width() as f64;
    let (q, kv, heads) = attention_widths(model);
    let ffn = match model.experts {
        None => s.ffn * f64::from(model.ffn),
        Some(e) => {
            s.routed * dm * f64::from(e.top_k)
                + s.ffn * f64::from(e.ffn) * f64::from(e.top_k + e.shared)
        }
    };
    let masks = if dropout { s.dropout * dm } else { 0.0 };
    let replicated = s.hidden * dm + s.fixed + masks;
    // Per-head norms of q and k (not of latent attention's compressed
    // ones, which DeepSeek-V3's own norms count in its widths).
    let qk_norms = if model.qk_norm && model.latent.is_none() {
        s.qk * (q + kv) + s.qk_rows * (heads + f64::from(model.kv_heads))
    } else {
        0.0
    };
    let split = s.query * q + s.kv * kv + ffn + s.heads * heads + qk_norms;
    let scores = if flash {
        0.0
    } else {
        5.0 * heads * f64::from(model.seq_len)
    };
    (replicated, split, scores)
}

/// Bytes per element a forward pass of Hugging Face's `LlamaRMSNorm` moves
/// in eager PyTorch beyond the same norm compiled into one kernel (its
/// fp32 upcast, square, mean, rsqrt, two products and the cast back, each
/// a kernel): one H200, PyTorch 2.11, 8 192 × 4 096 bf16 elements, 0.439 ms
/// eager against 0.070 ms compiled, the difference at 4.8 TB/s
/// (`calibration/h200-2026-11-26/shapes.json`, `rmsnorm_hf_fp32`).
pub const EAGER_HF_RMSNORM: f64 = 52.8;

/// Bytes per element of q and k a forward pass of the rotary embedding
/// moves in eager PyTorch beyond it compiled (torchtitan's complex
/// product, Hugging Face's `rotate_half`: several kernels each): the same
/// H200, 0.382 ms eager against 0.084 ms compiled for 8 192 × 4 096
/// elements (`rope`).
pub const EAGER_ROPE: f64 = 42.6;

/// The element-wise bytes per token of one layer's forward pass that
/// eager code moves beyond fused or compiled kernels, as (replicated;
/// split over the tensor ranks): two unfused RMSNorms
/// ([`EAGER_HF_RMSNORM`] a d_m element each, where `unfused_norm` and the
/// code's norm is PyTorch code: [`LayerCode::torch_rms_norm`]) and the
/// rotary embedding of Hugging Face's and torchtitan's Llama code
/// ([`EAGER_ROPE`] on q and k; on the rotary part of latent attention's).
/// Transformer Engine's layer and Megatron's add none, and neither does
/// code compiled with `torch.compile` (`compiled`). Unfused is Hugging
/// Face's `LlamaRMSNorm`, torchtitan's own RMSNorm before it took
/// `nn.RMSNorm` (pytorch/torchtitan#985, March 2025), and `nn.RMSNorm`
/// itself before PyTorch 2.9 (a composite of the same ops in ATen's
/// `rms_norm`; one kernel since `_fused_rms_norm`, pytorch/pytorch#153666).
/// The element-wise traffic fitted on Megatron's runs covers the rest.
#[must_use]
pub fn eager_extra_per_token(
    model: &ModelShape,
    code: LayerCode,
    compiled: bool,
    unfused_norm: bool,
) -> (f64, f64) {
    if compiled {
        return (0.0, 0.0);
    }
    let norms = if unfused_norm && code.torch_rms_norm(model) {
        2.0 * EAGER_HF_RMSNORM * model.width() as f64
    } else {
        0.0
    };
    let rope = match model.latent {
        None => model.attention_width() as f64 + model.kv_width(),
        Some(l) => f64::from(l.heads + 1) * f64::from(l.rope),
    };
    match code {
        LayerCode::HfLlama | LayerCode::Torchtitan => (norms, EAGER_ROPE * rope),
        _ => (norms, 0.0),
    }
}

/// What an unfused RMSNorm keeps beyond a fused one, per unit of d_m and
/// layer, replicated ([`LayerCode::saved`] counts each code with its usual
/// norm: Hugging Face's unfused, the others fused): autograd keeps the
/// fp32 normalized tensor for the weight's product (4 bytes a norm, where
/// a fused kernel keeps its input and a statistic per row), and where the
/// input is bf16 its fp32 upcast in place of it (2 more) and the
/// normalized cast back (2 less than the upcast's 4, as the weight's
/// product keeps it): 8·d_m a layer of two norms either way. Hugging
/// Face's `LlamaRMSNorm` fused (Liger-Kernel's) keeps 8·d_m less; an
/// unfused norm in torchtitan's or the plain layer 8·d_m more.
#[must_use]
pub fn unfused_norm_saved(model: &ModelShape, code: LayerCode, unfused_norm: bool) -> f64 {
    match (
        code.torch_rms_norm(model),
        code == LayerCode::HfLlama,
        unfused_norm,
    ) {
        (true, true, false) => -8.0,
        (true, false, true) => 8.0,
        _ => 0.0,
    }
}

/// Element-wise bytes per token of one plain layer (`LayerCode::Plain`:
/// `measure_steps.py`'s block, nanoGPT) under autocast that
/// `torch.compile` fuses away, (forward, backward), counted kernel by
/// kernel on its residual stream, which autocast leaves in fp32. Eager,
/// each norm reads and writes fp32 (8·d_m) and autocast casts its output
/// for the next linear (6·d_m), and each residual add reads fp32 and
/// bf16 and writes fp32 (10·d_m); compiled, a residual add, the next norm
/// and its cast are one kernel (12·d_m): 24·d_m less forward. Backward,
/// eager runs each norm's backward (12·d_m), the cast's (6·d_m), the
/// residual gradient's sum (12·d_m) and the add's cast (6·d_m) apart, and
/// the biases' gradients as reductions of their own (18·d_m), where
/// compiled they share two kernels of 16·d_m and the bias reductions
/// fold in (10·d_m): 48·d_m less. A gated MLP has no biases but fuses
/// SiLU and the product (forward 10·d_I → 6·d_I, backward 16·d_I →
/// 10·d_I): 24·d_m + 4·d_I forward, 40·d_m + 6·d_I backward.
#[must_use]
pub fn compiled_saving_per_token(model: &ModelShape) -> (f64, f64) {
    let dm = model.width() as f64;
    if model.gated_mlp {
        let ffn = f64::from(model.ffn);
        (24.0 * dm + 4.0 * ffn, 40.0 * dm + 6.0 * ffn)
    } else {
        (24.0 * dm, 48.0 * dm)
    }
}

/// What torchtitan's per-op selective activation checkpointing keeps per
/// token of a layer, as (replicated, split): the layer's input (its
/// checkpoint, 2·d_m) and the outputs of the ops its policy saves — every
/// other matmul (wq, wv, w1, w2 of wq, wk, wv, wo, w1, w3, w2: 2·q +
/// 2·kv + 2·I + 2·d_m), the attention's output and log-sum-exp (2·q +
/// 4·a) — everything else recomputed (`_save_list` and `_custom_policy` in
/// torchtitan's `activation_checkpoint.py`: "saves output of all compute
/// ops, except every second mm").
///
/// Compiled (`compiled`), a dense layer keeps 2·d_m less: eager SAC's
/// cache holds every saved op's output until the recomputation, but
/// Inductor's partition saves only what the backward graph reads, and the
/// down projection's (w2's) output is read by nothing but the residual
/// add, whose gradient needs no input (the partition of an unwrapped layer
/// keeps its input and not its output either: [`compiled_saved`]). Evidence
/// from torchtitan's NVFP4 document (`tt_nvfp4_doc`, GB200-class, FSDP on
/// four, compiled, per-op SAC): NVFP4's linears are not `aten.mm`, so its
/// runs keep no matmul output, and they reserve 36.6 (Llama 3 8B) and 37.4
/// (Qwen3 8B) KB less per token and NVFP4 layer than BF16; the matmul
/// outputs kept without w2's are 38.9 and 34.8 KB, with it 47.1 and 43.0.
/// A mixture of experts' combine reads the experts' outputs (the router's
/// gradient): unchanged.
#[must_use]
pub fn op_sac_per_token(model: &ModelShape, compiled: bool) -> (f64, f64) {
    let dm = model.width() as f64;
    let q = model.attention_width() as f64;
    let kv = model.kv_width();
    let ffn = match model.experts {
        None => f64::from(model.ffn),
        Some(e) => f64::from(e.ffn) * f64::from(e.top_k + e.shared),
    };
    let output = if compiled && model.experts.is_none() {
        0.0
    } else {
        2.0 * dm
    };
    (
        2.0 * dm + output,
        4.0 * q + 2.0 * kv + 2.0 * ffn + 4.0 * f64::from(model.heads),
    )
}

/// The bits of a comma-separated list of names (case-insensitive, blanks
/// ignored), each of `all`'s: the recomputed and the offloaded modules.
///
/// # Errors
///
/// A name not among `all`, as an unknown `what`.
pub(crate) fn parse_bits<const N: usize>(
    list: &str,
    all: [(u8, &str); N],
    what: &'static str,
) -> Result<u8, crate::Error> {
    let mut bits = 0;
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let (b, _) = all
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(name))
            .ok_or(crate::Error::Unknown { what })?;
        bits |= b;
    }
    Ok(bits)
}

/// The names marked in `all`, comma-separated.
#[cfg(feature = "alloc")]
pub(crate) fn join_names<const N: usize>(all: [(bool, &str); N]) -> alloc::string::String {
    let mut out = alloc::string::String::new();
    for (_, n) in all.iter().filter(|(on, _)| *on) {
        if !out.is_empty() {
            out.push(',');
        }
        out.push_str(n);
    }
    out
}

/// The modules Megatron-Core's selective recomputation recomputes
/// (`--recompute-granularity selective --recompute-modules ...`): each
/// module's outputs are not kept but computed again in the backward pass.
/// Empty: Megatron-Core's default, `core_attn` alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Modules(pub u8);

impl Modules {
    /// The attention's core (scores, softmax, weighted values).
    pub const CORE_ATTN: Self = Self(1);
    /// The norms' outputs.
    pub const LAYERNORM: Self = Self(2);
    /// A dense layer's whole MLP.
    pub const MLP: Self = Self(4);
    /// An MoE layer's whole expert block (dispatch, experts, combine).
    pub const MOE: Self = Self(8);
    /// The experts' activation function (SwiGLU's output).
    pub const MOE_ACT: Self = Self(16);
    /// The shared experts.
    pub const SHARED_EXPERTS: Self = Self(32);
    /// Latent attention's up-projections (queries, keys and values).
    pub const MLA_UP_PROJ: Self = Self(64);
    /// Every module with its Megatron-Core name.
    pub const ALL: [(Self, &'static str); 7] = [
        (Self::CORE_ATTN, "core_attn"),
        (Self::LAYERNORM, "layernorm"),
        (Self::MLP, "mlp"),
        (Self::MOE, "moe"),
        (Self::MOE_ACT, "moe_act"),
        (Self::SHARED_EXPERTS, "shared_experts"),
        (Self::MLA_UP_PROJ, "mla_up_proj"),
    ];

    /// What is recomputed: the default is `core_attn`.
    #[must_use]
    pub fn effective(self) -> Self {
        if self.0 == 0 {
            Self::CORE_ATTN
        } else {
            self
        }
    }

    /// Whether `m` is among these.
    #[must_use]
    pub fn has(self, m: Self) -> bool {
        self.effective().0 & m.0 != 0
    }

    /// Parses a comma-separated list of Megatron-Core's names.
    ///
    /// # Errors
    ///
    /// An unknown module.
    pub fn parse(list: &str) -> Result<Self, crate::Error> {
        parse_bits(list, Self::ALL.map(|(m, n)| (m.0, n)), "recompute module").map(Self)
    }

    /// The modules' names, comma-separated (`core_attn` for the default).
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn names(self) -> alloc::string::String {
        join_names(Self::ALL.map(|(m, n)| (self.has(m), n)))
    }

    /// Bytes per token a layer does not keep when these modules are
    /// recomputed, as (replicated, split over the tensor ranks), for the
    /// heaviest layer [`per_token`] counts (an MoE layer in a mixture of
    /// experts): the norms' outputs (2 × 2·d_m); a dense MLP's
    /// intermediates (its d_I term); an MoE block's routed copies and
    /// expert intermediates; the experts' SwiGLU output (2·d_I·k); the
    /// shared experts' intermediates; latent attention's up-projected
    /// queries, keys and values. The attention core's scores are
    /// [`per_token`]'s third figure.
    #[must_use]
    pub fn saved(self, model: &ModelShape, code: LayerCode, amp: bool) -> (f64, f64) {
        let s = code.saved(model, amp);
        let dm = model.width() as f64;
        let mut rep = 0.0;
        let mut split = 0.0;
        if self.has(Self::LAYERNORM) {
            rep += 4.0 * dm;
        }
        match model.experts {
            None => {
                if self.has(Self::MLP) {
                    split += s.ffn * f64::from(model.ffn);
                }
            }
            Some(e) => {
                let (k, sh, f) = (f64::from(e.top_k), f64::from(e.shared), f64::from(e.ffn));
                if self.has(Self::MOE) {
                    split += s.routed * dm * k + s.ffn * f * (k + sh);
                } else {
                    if self.has(Self::MOE_ACT) {
                        split += 2.0 * f * k;
                    }
                    if self.has(Self::SHARED_EXPERTS) {
                        split += s.ffn * f * sh;
                    }
                }
            }
        }
        if let (true, Some(l)) = (self.has(Self::MLA_UP_PROJ), model.latent) {
            let h = f64::from(l.heads);
            split += 2.0 * h * f64::from(l.nope + l.rope) * 2.0 + 2.0 * h * f64::from(l.v);
        }
        (rep, split)
    }

    /// Forward flops per token and layer (averaged over the layers) the
    /// recomputation of these modules spends again: the attention scores
    /// and values (core_attn), a dense MLP's GEMMs, an MoE block's active
    /// experts', the shared experts', latent attention's up-projections.
    #[must_use]
    pub fn flops(self, model: &ModelShape) -> f64 {
        let dm = model.width() as f64;
        let mats = if model.gated_mlp { 3.0 } else { 2.0 };
        let layers = f64::from(model.layers.max(1));
        let mut f = 0.0;
        if self.has(Self::CORE_ATTN) {
            f += model.score_flops_per_token();
        }
        match model.experts {
            None => {
                if self.has(Self::MLP) {
                    f += 2.0 * mats * dm * f64::from(model.ffn);
                }
            }
            Some(e) => {
                let moe = f64::from(model.moe_layers()) / layers;
                let dense = 1.0 - moe;
                if self.has(Self::MLP) {
                    f += dense * 2.0 * mats * dm * f64::from(model.ffn);
                }
                let expert = 2.0 * mats * dm * f64::from(e.ffn);
                if self.has(Self::MOE) {
                    f += moe * expert * f64::from(e.top_k + e.shared);
                } else if self.has(Self::SHARED_EXPERTS) {
                    f += moe * expert * f64::from(e.shared);
                }
            }
        }
        if let (true, Some(l)) = (self.has(Self::MLA_UP_PROJ), model.latent) {
            let h = f64::from(l.heads);
            f += 2.0
                * (f64::from(l.q_rank) * h * f64::from(l.nope + l.rope)
                    + f64::from(l.kv_rank) * h * f64::from(l.nope + l.v));
        }
        f
    }
}
