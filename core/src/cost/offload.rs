//! Megatron-Core's fine-grained activation offloading
//! (`--fine-grained-activation-offloading --offload-modules ...`;
//! Megatron-LM `docs/source/api-guide/fine_grained_activation_offloading.md`):
//! the tensors a module saves for its backward (its input, "offload the
//! input of the module") go to CPU memory once its forward has run and come
//! back before its backward, copied on a side stream under the layers'
//! compute, the next layer's reloaded ahead. Unlike
//! [`crate::cost::Config::offload_layers`] it takes parts of every layer,
//! and unlike recomputation it computes nothing again.

use crate::cost::assumptions::Assumptions;
use crate::cost::config::Config;
use crate::cost::saved::{attention_widths, Modules};
use crate::memory::ActivationModel;
use crate::model::ModelShape;

/// The refusal of offloaded modules under full recomputation, whose layers
/// keep only their checkpoints: one wording for `evaluate` and `plan`.
pub const UNDER_FULL_RECOMPUTATION: &str = "an offload module sends what a layer keeps: full recomputation keeps only its checkpoints (recompute selective or none)";

/// The modules whose saved tensors are offloaded, by Megatron-Core's names
/// (`TransformerConfig.offload_modules`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OffloadModules(pub u8);

impl OffloadModules {
    /// The attention's norm: its input.
    pub const ATTN_NORM: Self = Self(1);
    /// The QKV (or latent down-) projection: its input, the norm's output.
    pub const QKV_LINEAR: Self = Self(2);
    /// The attention core: q, k, v, its output and log-sum-exp.
    pub const CORE_ATTN: Self = Self(4);
    /// The output projection: its input, the attention's output.
    pub const ATTN_PROJ: Self = Self(8);
    /// The feed-forward block's norm: its input.
    pub const MLP_NORM: Self = Self(16);
    /// The experts' first GEMM: the dispatched tokens.
    pub const EXPERT_FC1: Self = Self(32);
    /// The experts' activation: its input, the first GEMM's output.
    pub const MOE_ACT: Self = Self(64);
    /// Every module with its Megatron-Core name.
    pub const ALL: [(Self, &'static str); 7] = [
        (Self::ATTN_NORM, "attn_norm"),
        (Self::QKV_LINEAR, "qkv_linear"),
        (Self::CORE_ATTN, "core_attn"),
        (Self::ATTN_PROJ, "attn_proj"),
        (Self::MLP_NORM, "mlp_norm"),
        (Self::EXPERT_FC1, "expert_fc1"),
        (Self::MOE_ACT, "moe_act"),
    ];

    /// Whether `m` is among these.
    #[must_use]
    pub fn has(self, m: Self) -> bool {
        self.0 & m.0 != 0
    }

    /// Parses a comma-separated list of Megatron-Core's names.
    ///
    /// # Errors
    ///
    /// An unknown module.
    pub fn parse(list: &str) -> Result<Self, crate::Error> {
        crate::cost::saved::parse_bits(list, Self::ALL.map(|(m, n)| (m.0, n)), "offload module")
            .map(Self)
    }

    /// The modules' names, comma-separated (empty for none).
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn names(self) -> alloc::string::String {
        crate::cost::saved::join_names(Self::ALL.map(|(m, n)| (self.has(m), n)))
    }
}

/// Bytes per token and layer one GPU sends to CPU memory for `cfg`'s
/// offloaded modules, for the heaviest layer (an MoE layer in a mixture),
/// in the layer code's saved form ([`crate::cost::saved::LayerCode::saved`]):
/// a norm's input or output, a quarter of its `hidden` bytes each
/// (replicated over the tensor ranks unless sequence parallel); the
/// attention's q, k, v, output and log-sum-exp (its output alone for
/// `attn_proj`); the experts' dispatched input and first GEMM's output.
/// What the recomputed modules already free is not sent: the norms'
/// outputs (`layernorm`), latent attention's up-projected q, k and v
/// (`mla_up_proj`). None under full recomputation, whose layers keep only
/// their checkpoints (which `evaluate` and `plan` refuse).
#[must_use]
pub fn per_token(model: &ModelShape, cfg: &Config, a: &Assumptions) -> f64 {
    let off = cfg.offloaded_modules();
    if off.0 == 0
        || matches!(
            cfg.activation,
            ActivationModel::Full | ActivationModel::Paper
        )
    {
        return 0.0;
    }
    let code = crate::cost::framework::Framework::code_for(a.layer_code, model.gated_mlp);
    let s = code.saved(model, a.weight_casts);
    let recomputed = if cfg.activation == ActivationModel::Selective {
        cfg.modules().effective()
    } else {
        Modules(0)
    };
    let dm = model.width() as f64;
    let norm = s.hidden * dm / 4.0;
    let mut rep = 0.0;
    for m in [OffloadModules::ATTN_NORM, OffloadModules::MLP_NORM] {
        if off.has(m) {
            rep += norm;
        }
    }
    if off.has(OffloadModules::QKV_LINEAR) && !recomputed.has(Modules::LAYERNORM) {
        rep += norm;
    }
    let (q, kv, heads) = attention_widths(model);
    let mut split = 0.0;
    if off.has(OffloadModules::CORE_ATTN) {
        let attention = s.query * q + s.kv * kv + s.heads * heads;
        let up = if recomputed.has(Modules::MLA_UP_PROJ) {
            Modules::MLA_UP_PROJ.saved(model, code, a.weight_casts).1
        } else {
            0.0
        };
        split += (attention - up).max(0.0);
    } else if off.has(OffloadModules::ATTN_PROJ) {
        split += s.query / 2.0 * q;
    }
    if let Some(e) = model.experts {
        let (k, f) = (f64::from(e.top_k), f64::from(e.ffn));
        if off.has(OffloadModules::EXPERT_FC1) {
            split += 2.0 * dm * k;
        }
        if off.has(OffloadModules::MOE_ACT) {
            // The first GEMM's output: the layer's feed-forward bytes
            // less the second GEMM's 2-byte input.
            split += (s.ffn - 2.0).max(0.0) * f * k;
        }
    }
    let t = f64::from(cfg.tensor.max(1));
    let t_sp = if cfg.sequence_parallel { t } else { 1.0 };
    rep / t_sp + split / t
}
