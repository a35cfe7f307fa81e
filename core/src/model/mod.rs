//! Transformer shapes: the X\[x\] family (App. B, eq. 1), named presets
//! (Table B.1, PTD-P Table 1, Llama 3.1), parameter counts and the critical
//! batch size (eq. 2).

mod presets;

pub use presets::{
    classic, preset, BERT, DEEPSEEK_V3, GPT_3, LLAMA_3_1_405B, LLAMA_3_1_70B, LLAMA_3_1_8B,
    MEGATRON_1T, MEGATRON_8_3B, MISTRAL_7B, MIXTRAL_8X22B, NEMOTRON_4_340B, PRESETS,
    QWEN3_235B_A22B, T_NLG,
};

use crate::error::{check_count, Error};
use crate::math;

/// The shape of a transformer: dense, or a mixture of experts.
///
/// Plain data: the fields are knobs, checked by [`ModelShape::validate`]
/// (every public function that takes a shape calls it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ModelShape {
    /// Sequence length d_s, in tokens.
    pub seq_len: u32,
    /// Attention heads d_a.
    pub heads: u32,
    /// Head size d_h; the width is d_m = d_a · d_h unless `hidden` says
    /// otherwise.
    pub head_size: u32,
    /// Key/value heads (grouped-query attention); equal to `heads` for
    /// multi-head attention.
    pub kv_heads: u32,
    /// Layers d_l.
    pub layers: u32,
    /// Feed-forward intermediate size d_I = n_I · d_m.
    pub ffn: u32,
    /// A gated (SwiGLU) feed-forward block: three weight matrices, not two.
    pub gated_mlp: bool,
    /// Linear biases and LayerNorm (gain and bias); otherwise no biases and
    /// RMSNorm (gain only). Only the exact count sees this.
    pub biases: bool,
    /// Vocabulary size, when the embedding and LM head should be counted.
    /// Table B.1 and the paper's formulas exclude them.
    pub vocab: Option<u32>,
    /// Input embedding shared with the LM head.
    pub tied_embeddings: bool,
    /// A mixture of experts: the feed-forward blocks of all but the first
    /// dense layers are routed experts. `None` for a dense model.
    #[cfg_attr(feature = "serde", serde(default))]
    pub experts: Option<Experts>,
    /// The width d_m when it is not heads × head size (Qwen3: 64 heads of
    /// 128 on a width of 4096; DeepSeek-V3: 7168 with 128 latent heads).
    /// `None`: d_m = d_a · d_h, as in the paper.
    #[cfg_attr(feature = "serde", serde(default))]
    pub hidden: Option<u32>,
    /// Multi-head latent attention (DeepSeek-V2/V3) in place of the
    /// attention `heads` × `head_size` describe. `None`: multi-head or
    /// grouped-query attention.
    #[cfg_attr(feature = "serde", serde(default))]
    pub latent: Option<Latent>,
    /// q and k normalized per head before the rotary embedding (RMSNorm
    /// over d_h: Qwen3, OLMo 2, Gemma 3; Megatron-Core's `qk_layernorm`).
    /// Their activations only: the norms' 2·d_h weights a layer are not
    /// counted.
    #[cfg_attr(feature = "serde", serde(default))]
    pub qk_norm: bool,
}

/// The routed experts of a mixture-of-experts model (Shazeer et al. 2017;
/// GShard; DeepSeekMoE, arXiv 2401.06066): each MoE layer's feed-forward
/// block is `routed` experts of intermediate size `ffn`, of which a router
/// picks `top_k` per token, plus `shared` experts every token passes
/// through; the first `dense_layers` layers keep the model's dense
/// feed-forward block. Experts are gated (SwiGLU) when the model is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Experts {
    /// Routed experts per MoE layer, E.
    pub routed: u32,
    /// Experts each token is routed to, k.
    pub top_k: u32,
    /// Each expert's intermediate size.
    pub ffn: u32,
    /// Shared experts (each of size `ffn`) every token passes through.
    pub shared: u32,
    /// Leading layers with the dense feed-forward block.
    pub dense_layers: u32,
    /// Node-limited routing (DeepSeek-V3 sec. 2.1.2: each token to experts
    /// on at most this many nodes), with each token sent once per node and
    /// forwarded inside it over NVLink (DeepEP's dispatch). 0: routing
    /// unrestricted, one copy per expert over the network.
    #[cfg_attr(feature = "serde", serde(default))]
    pub node_limit: u32,
}

/// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, sec. 2.1),
/// modelled by its projections: queries through a rank-`q_rank` latent
/// (W_DQ d_m×q_rank, W_UQ q_rank×n_h·(nope+rope)), keys and values through
/// a rank-`kv_rank` latent plus a shared rotary key (W_DKV d_m×(kv_rank +
/// rope), W_UKV kv_rank×n_h·(nope+v)), output n_h·v×d_m. The attention
/// scores use n_h heads of nope+rope dimensions, the values v. Norms of
/// the latents are left out (under 0.01 % of the weights).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Latent {
    /// Attention heads n_h.
    pub heads: u32,
    /// Query latent rank.
    pub q_rank: u32,
    /// Key/value latent rank.
    pub kv_rank: u32,
    /// Per-head query/key dimensions without rotary embedding.
    pub nope: u32,
    /// Per-head rotary query/key dimensions (the key's is shared).
    pub rope: u32,
    /// Per-head value dimensions.
    pub v: u32,
}

/// Largest accepted width d_m, heads × head size (far beyond X\[1600\]).
pub const MAX_WIDTH: u64 = 1 << 26;
/// Largest accepted layer count.
pub const MAX_LAYERS: u64 = 1 << 20;
/// Largest accepted sequence length.
pub const MAX_SEQ_LEN: u64 = 1 << 26;
/// Largest accepted feed-forward size.
pub const MAX_FFN: u64 = 1 << 28;
/// Largest accepted vocabulary.
pub const MAX_VOCAB: u64 = 1 << 28;
/// Largest accepted count of routed or shared experts.
pub const MAX_EXPERTS: u64 = 1 << 16;
/// Largest x of the X\[x\] family (X\[4096\] has 1.4e19 parameters).
pub const MAX_X: u32 = 4096;

/// DeepSeek LLM's batch-size law, B_opt = a · C^b tokens (arXiv 2401.02954
/// sec. 3.1): (a, b).
pub const BATCH_LAW: (f64, f64) = (0.2920, 0.3271);

impl ModelShape {
    /// Width d_m = d_a · d_h.
    #[must_use]
    pub fn width(&self) -> u64 {
        self.hidden.map_or(self.attention_width(), u64::from)
    }

    /// The attention's inner width d_a · d_h (queries, and the output
    /// projection's input); the model width unless `hidden` is set.
    #[must_use]
    pub fn attention_width(&self) -> u64 {
        u64::from(self.heads) * u64::from(self.head_size)
    }

    /// Feed-forward ratio n_I = d_I / d_m.
    #[must_use]
    pub fn ffn_ratio(&self) -> f64 {
        f64::from(self.ffn) / self.width() as f64
    }

    /// Checks every field; returns the shape for chaining.
    ///
    /// # Errors
    ///
    /// A zero or absurdly large dimension, or key/value heads that do not
    /// divide the heads.
    pub fn validate(&self) -> Result<&Self, Error> {
        check_count("sequence length", self.seq_len.into(), 1, MAX_SEQ_LEN)?;
        check_count("heads", self.heads.into(), 1, MAX_WIDTH)?;
        check_count("head size", self.head_size.into(), 1, MAX_WIDTH)?;
        check_count(
            "width (heads × head size)",
            self.attention_width(),
            1,
            MAX_WIDTH,
        )?;
        if let Some(h) = self.hidden {
            check_count("hidden size", h.into(), 1, MAX_WIDTH)?;
        }
        check_count(
            "key/value heads",
            self.kv_heads.into(),
            1,
            self.heads.into(),
        )?;
        if self.heads % self.kv_heads != 0 {
            return Err(Error::NotDivisible {
                what: "key/value heads",
                value: self.kv_heads.into(),
                of: "heads",
                total: self.heads.into(),
            });
        }
        check_count("layers", self.layers.into(), 1, MAX_LAYERS)?;
        check_count("feed-forward size", self.ffn.into(), 1, MAX_FFN)?;
        if let Some(v) = self.vocab {
            check_count("vocabulary", v.into(), 1, MAX_VOCAB)?;
        }
        if let Some(e) = self.experts {
            check_count("experts", e.routed.into(), 1, MAX_EXPERTS)?;
            check_count(
                "experts per token (top-k)",
                e.top_k.into(),
                1,
                e.routed.into(),
            )?;
            check_count("expert feed-forward size", e.ffn.into(), 1, MAX_FFN)?;
            check_count("shared experts", e.shared.into(), 0, MAX_EXPERTS)?;
            check_count(
                "dense layers",
                e.dense_layers.into(),
                0,
                u64::from(self.layers) - 1,
            )?;
        }
        if let Some(l) = self.latent {
            check_count("latent attention heads", l.heads.into(), 1, MAX_WIDTH)?;
            check_count("query latent rank", l.q_rank.into(), 1, MAX_WIDTH)?;
            check_count("key/value latent rank", l.kv_rank.into(), 1, MAX_WIDTH)?;
            check_count("query/key head size", l.nope.into(), 0, MAX_WIDTH)?;
            check_count("rotary head size", l.rope.into(), 0, MAX_WIDTH)?;
            check_count(
                "query/key head size with rotary",
                u64::from(l.nope) + u64::from(l.rope),
                1,
                MAX_WIDTH,
            )?;
            check_count("value head size", l.v.into(), 1, MAX_WIDTH)?;
        }
        Ok(self)
    }

    /// Attention weights of one layer: 2 d_m · d_a d_h + 2 d_m · kv_heads ·
    /// d_h (Q, O and grouped K, V; 2 d_m² + … when d_m = d_a d_h), or the latent projections of [`Latent`].
    #[must_use]
    pub fn attention_params(&self) -> f64 {
        let dm = self.width() as f64;
        match self.latent {
            None => {
                let kv = f64::from(self.kv_heads) * f64::from(self.head_size);
                2.0 * dm * self.attention_width() as f64 + 2.0 * dm * kv
            }
            Some(l) => {
                let (h, qr, kvr) = (
                    f64::from(l.heads),
                    f64::from(l.q_rank),
                    f64::from(l.kv_rank),
                );
                let (nope, rope, v) = (f64::from(l.nope), f64::from(l.rope), f64::from(l.v));
                dm * qr
                    + qr * h * (nope + rope)
                    + dm * (kvr + rope)
                    + kvr * h * (nope + v)
                    + h * v * dm
            }
        }
    }

    /// Forward flops per token of one layer's attention scores and
    /// weighted values: 4·d_s·d_a·d_h (QKᵀ and the weighted sum over the
    /// full square, as Megatron and NeMo count it), or 2·d_s·n_h·(nope +
    /// rope + v) with latent attention.
    #[must_use]
    pub fn score_flops_per_token(&self) -> f64 {
        let s = f64::from(self.seq_len);
        match self.latent {
            None => 4.0 * s * self.attention_width() as f64,
            Some(l) => 2.0 * s * f64::from(l.heads) * f64::from(l.nope + l.rope + l.v),
        }
    }

    /// Weights of one expert (or of the dense feed-forward block when
    /// `ffn` is the model's): 3 or 2 matrices d_m × ffn.
    fn mlp_params(&self, ffn: u32) -> f64 {
        let mlp = if self.gated_mlp { 3.0 } else { 2.0 };
        mlp * self.width() as f64 * f64::from(ffn)
    }

    /// Layers whose feed-forward block is routed experts.
    #[must_use]
    pub fn moe_layers(&self) -> u32 {
        self.experts
            .map_or(0, |e| self.layers - e.dense_layers.min(self.layers))
    }

    /// The routed experts' weights of one MoE layer, E × one expert: the
    /// part expert parallelism spreads over GPUs (0 for a dense model).
    #[must_use]
    pub fn layer_expert_params(&self) -> f64 {
        self.experts
            .map_or(0.0, |e| f64::from(e.routed) * self.mlp_params(e.ffn))
    }

    /// Weights of one dense layer (a mixture's first `dense_layers` are
    /// such layers).
    #[must_use]
    pub fn dense_layer_params(&self) -> f64 {
        self.attention_params() + self.mlp_params(self.ffn)
    }

    /// Weights of one MoE layer: attention, router (d_m × E), shared and
    /// routed experts.
    fn moe_layer_params(&self, active: bool) -> f64 {
        self.experts.map_or(0.0, |e| {
            let experts = if active { e.top_k } else { e.routed } + e.shared;
            self.attention_params()
                + self.width() as f64 * f64::from(e.routed)
                + f64::from(experts) * self.mlp_params(e.ffn)
        })
    }

    /// Parameters a token passes through (the flop count's weights): every
    /// weight of a dense model; the attention, router, shared and top-k
    /// routed experts of an MoE layer.
    #[must_use]
    pub fn active_params(&self) -> f64 {
        match self.experts {
            None => self.params(),
            Some(e) => {
                f64::from(e.dense_layers) * self.dense_layer_params()
                    + f64::from(self.moe_layers()) * self.moe_layer_params(true)
            }
        }
    }

    /// The routed experts' active weights per token and layer, averaged
    /// over the layers: k × one expert × (MoE layers / layers). 0 dense.
    #[must_use]
    pub fn layer_routed_active_params(&self) -> f64 {
        self.experts.map_or(0.0, |e| {
            f64::from(e.top_k) * self.mlp_params(e.ffn) * f64::from(self.moe_layers())
                / f64::from(self.layers)
        })
    }

    /// Width of the keys (and of the values) a token carries per layer:
    /// kv_heads · d_h, or with latent attention the mean of n_h·(nope +
    /// rope) and n_h·v (so that 2 × this is keys and values together).
    #[must_use]
    pub fn kv_width(&self) -> f64 {
        match self.latent {
            None => f64::from(self.kv_heads) * f64::from(self.head_size),
            Some(l) => f64::from(l.heads) * f64::from(l.nope + l.rope + l.v) / 2.0,
        }
    }

    /// Active weights per layer, averaged over the layers (dense and MoE):
    /// the flops of a layer are 2 per active weight and token.
    #[must_use]
    pub fn layer_active_params(&self) -> f64 {
        self.active_params() / f64::from(self.layers)
    }

    /// Weight-matrix parameters of one layer, p_l.
    ///
    /// Sec. 5: p_l ≈ (4 + 2 n_I) d_m² for multi-head attention and a
    /// two-matrix feed-forward block; generalised to grouped-query attention
    /// (2 d_m² + 2 d_m · kv_heads · d_h) and gated blocks (3 d_m d_I). For a
    /// mixture of experts, the largest layer: an MoE layer with all its
    /// experts (memory per layer; the flops use
    /// [`ModelShape::layer_active_params`]).
    #[must_use]
    pub fn layer_params(&self) -> f64 {
        if self.experts.is_some() {
            self.moe_layer_params(false).max(self.dense_layer_params())
        } else {
            self.dense_layer_params()
        }
    }

    /// The parameter count p = p_l · d_l used by every formula of the paper
    /// (sec. 5; MODEL_NOTES fact 2). For the X family, p = 12 x⁵. With
    /// experts, the dense layers' and the MoE layers' weights (every
    /// expert).
    #[must_use]
    pub fn params(&self) -> f64 {
        match self.experts {
            None => self.layer_params() * f64::from(self.layers),
            Some(e) => {
                f64::from(e.dense_layers) * self.dense_layer_params()
                    + f64::from(self.moe_layers()) * self.moe_layer_params(false)
            }
        }
    }

    /// The exact parameter count: weights, biases and norms of every layer,
    /// plus the embedding, LM head and final norm when a vocabulary is set.
    /// For the X family this is Table B.1's 12x⁵ + 13x³.
    #[must_use]
    pub fn params_exact(&self) -> f64 {
        let dm = self.width() as f64;
        let kv = f64::from(self.kv_heads) * f64::from(self.head_size);
        let di = f64::from(self.ffn);
        let per_layer_extra = if self.biases {
            // q, k, v and output biases; feed-forward biases; two LayerNorms
            // with gain and bias.
            let up = if self.gated_mlp { 2.0 * di } else { di };
            (dm + 2.0 * kv) + dm + up + dm + 4.0 * dm
        } else {
            // Two RMSNorm gains.
            2.0 * dm
        };
        let mut total = self.params() + per_layer_extra * f64::from(self.layers);
        if let Some(v) = self.vocab {
            let embed = f64::from(v) * dm;
            total += if self.tied_embeddings {
                embed
            } else {
                2.0 * embed
            };
            total += if self.biases { 2.0 * dm } else { dm };
        }
        total
    }

    /// Critical batch size b_c in sequences, eq. 2: b_c ≈ 573 p^{1/3} / d_s,
    /// with the formula count p (MODEL_NOTES fact 2: X2 prints 130, not the
    /// 141 the exact count would give). Not rounded: callers floor it.
    #[must_use]
    pub fn critical_batch(&self) -> f64 {
        573.0 * math::cbrt(self.params()) / f64::from(self.seq_len)
    }

    /// The global batch of today's pre-training for a run of `tokens`
    /// tokens, in sequences: DeepSeek LLM's batch-size law (Bi et al. 2024,
    /// arXiv 2401.02954 sec. 3.1), B_opt = 0.2920 · C^0.3271 tokens for a
    /// run of C = M · D flop, M the non-embedding flop per token (6 per
    /// active parameter and 6 · d_l · d_s · d_a·d_h of attention, their
    /// eq. 2) and D the tokens. It was fitted on grid searches from 10¹⁷
    /// to 3·10²⁰ flop and held on their 7B and 67B runs; at frontier scale
    /// it is a law of thumb (Llama 3.1 405B: 68 M tokens, Meta trained at
    /// 16 M; DeepSeek-V3: 30 M, trained at 63 M). The practice search's
    /// batch limit when none is set; the paper's setting keeps eq. 2's
    /// critical batch ([`ModelShape::critical_batch`]). Not rounded.
    #[must_use]
    pub fn batch_law(&self, tokens: f64) -> f64 {
        let attention = 6.0
            * f64::from(self.layers)
            * f64::from(self.seq_len)
            * f64::from(self.heads)
            * f64::from(self.head_size);
        let flops = (6.0 * self.active_params() + attention) * tokens;
        BATCH_LAW.0 * math::pow(flops, BATCH_LAW.1) / f64::from(self.seq_len)
    }

    /// Layer-activation memory per token m0, in bytes (App. C.3, where the
    /// text never defines it).
    ///
    /// plan3d uses 22 d_m + 4 d_I + 8 d_a d_s: fp16 copies of eleven
    /// width-sized tensors, the two feed-forward intermediates and the
    /// attention scores with their gradients at the peak of the recomputed
    /// backward pass. On the X family (d_a d_s = 8 d_m, d_I = 4 d_m) this is
    /// 102 d_m, the value Table 6.2's five activation cells bound to
    /// 101.99–102.07 d_m (MODEL_NOTES fact 3). A gated block holds three
    /// intermediates (6 d_I).
    #[must_use]
    pub fn layer_activation_per_token(&self) -> f64 {
        let dm = self.width() as f64;
        let di = f64::from(self.ffn);
        let ffn_factor = if self.gated_mlp { 6.0 } else { 4.0 };
        22.0 * dm + ffn_factor * di + 8.0 * f64::from(self.heads) * f64::from(self.seq_len)
    }
}

/// The X\[x\] model of eq. 1: d_a = x/2, d_h = 2x, d_l = x, d_s = 16x,
/// d_m = x², d_I = 4x².
///
/// # Errors
///
/// `x` odd (d_a would not be whole), zero, or above [`MAX_X`].
///
/// # Examples
///
/// ```
/// let x160 = plan3d_core::model::x_family(160)?;
/// assert_eq!(x160.width(), 25_600);
/// assert_eq!(x160.params(), 12.0 * 160f64.powi(5));
/// # Ok::<(), plan3d_core::Error>(())
/// ```
pub fn x_family(x: u32) -> Result<ModelShape, Error> {
    check_count("x", x.into(), 2, MAX_X.into())?;
    if x % 2 != 0 {
        return Err(Error::OddX { x });
    }
    // Eq. 1's shape is Table B.1's classic layer: d_a = x/2 heads of
    // d_h = 2x (d_m = x²), d_l = x layers, d_s = 16x, d_I = 4·d_m.
    Ok(classic(16 * x, x / 2, 2 * x, x))
}
