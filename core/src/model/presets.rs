//! Named model shapes: Table B.1's, PTD-P Table 1's, and today's open
//! models (Llama 3.1, Mistral, Nemotron-4, DeepSeek-V3, Mixtral, Qwen3),
//! each with its source; [`preset`] reads a name or an `x<N>`.

use super::{x_family, Experts, Latent, ModelShape, MAX_X};
use crate::error::Error;

/// A classic transformer (multi-head attention, 4× feed-forward, biases),
/// without embeddings, as in Table B.1. Not validated: call
/// [`ModelShape::validate`] on user sizes (the feed-forward size saturates).
#[must_use]
pub const fn classic(seq_len: u32, heads: u32, head_size: u32, layers: u32) -> ModelShape {
    ModelShape {
        seq_len,
        heads,
        head_size,
        kv_heads: heads,
        layers,
        ffn: 4u32.saturating_mul(heads).saturating_mul(head_size),
        gated_mlp: false,
        biases: true,
        vocab: None,
        tied_embeddings: true,
        experts: None,
        latent: None,
        hidden: None,
        qk_norm: false,
    }
}

/// BERT-large (Table B.1).
pub const BERT: ModelShape = classic(512, 16, 64, 24);
/// Megatron-LM 8.3B (Table B.1).
pub const MEGATRON_8_3B: ModelShape = classic(1024, 32, 96, 72);
/// Turing-NLG 17B (Table B.1).
pub const T_NLG: ModelShape = classic(1024, 28, 152, 78);
/// GPT-3 175B (Table B.1).
pub const GPT_3: ModelShape = classic(2048, 96, 128, 96);
/// Megatron-LM's 1T model (PTD-P Table 1: 128 layers, width 25600, 160
/// heads, sequence 2048, vocabulary 51200 tied).
pub const MEGATRON_1T: ModelShape = ModelShape {
    vocab: Some(51_200),
    ..classic(2048, 160, 160, 128)
};
/// Llama 3.1 405B: 126 layers, width 16384, 128 heads with 8 key/value
/// heads, SwiGLU feed-forward 53248, RMSNorm, vocabulary 128256 untied,
/// sequence 8192.
pub const LLAMA_3_1_405B: ModelShape = llama_3_1(128, 126, 53_248);

/// A Llama 3.1 shape: SwiGLU, RMSNorm, 8 key/value heads of 128, vocabulary
/// 128256 untied, sequence 8192 (Llama 3 paper, arXiv 2407.21783, Table 3;
/// feed-forward sizes as in the released configs' `intermediate_size`).
const fn llama_3_1(heads: u32, layers: u32, ffn: u32) -> ModelShape {
    ModelShape {
        kv_heads: 8,
        ffn,
        gated_mlp: true,
        biases: false,
        vocab: Some(128_256),
        tied_embeddings: false,
        ..classic(8192, heads, 128, layers)
    }
}

/// Llama 3.1 8B: 32 layers, width 4096 (32 heads), feed-forward 14336.
pub const LLAMA_3_1_8B: ModelShape = llama_3_1(32, 32, 14_336);
/// Llama 3.1 70B: 80 layers, width 8192 (64 heads), feed-forward 28672.
pub const LLAMA_3_1_70B: ModelShape = llama_3_1(64, 80, 28_672);
/// Mistral 7B (arXiv 2310.06825, Table 1): 32 layers, width 4096, 32 heads
/// of 128 with 8 key/value heads, SwiGLU 14336, vocabulary 32000 untied,
/// context 8192.
pub const MISTRAL_7B: ModelShape = ModelShape {
    seq_len: 8192,
    heads: 32,
    head_size: 128,
    kv_heads: 8,
    layers: 32,
    ffn: 14_336,
    gated_mlp: true,
    biases: false,
    vocab: Some(32_000),
    tied_embeddings: false,
    experts: None,
    latent: None,
    hidden: None,
    qk_norm: false,
};
/// Nemotron-4 340B (arXiv 2406.11704, Table 1): 96 layers, width 18432,
/// 96 heads with 8 key/value heads, squared-ReLU feed-forward 4 × 18432 (not
/// gated), no biases, vocabulary 256000 untied, sequence 4096.
pub const NEMOTRON_4_340B: ModelShape = ModelShape {
    seq_len: 4096,
    heads: 96,
    head_size: 192,
    kv_heads: 8,
    layers: 96,
    ffn: 73_728,
    gated_mlp: false,
    biases: false,
    vocab: Some(256_000),
    tied_embeddings: false,
    experts: None,
    latent: None,
    hidden: None,
    qk_norm: false,
};

/// DeepSeek-V3 (arXiv 2412.19437, sec. 4.2, and the released
/// `config.json`): 61 layers of width 7168; multi-head latent attention
/// with 128 heads (query rank 1536, key/value rank 512, 128 + 64 rotary
/// query/key and 128 value dimensions per head); 256 routed experts of
/// 2048, 8 per token, one shared expert, the first 3 layers dense
/// (feed-forward 18432); SwiGLU, RMSNorm, vocabulary 129280 untied,
/// sequence 4096. 671 B parameters, 37 B active (the multi-token
/// prediction module's 14 B left out, as the paper's count does).
pub const DEEPSEEK_V3: ModelShape = ModelShape {
    seq_len: 4096,
    heads: 128,
    head_size: 128,
    kv_heads: 128,
    layers: 61,
    ffn: 18_432,
    gated_mlp: true,
    biases: false,
    vocab: Some(129_280),
    tied_embeddings: false,
    experts: Some(Experts {
        routed: 256,
        top_k: 8,
        ffn: 2048,
        shared: 1,
        dense_layers: 3,
        node_limit: 4,
    }),
    hidden: Some(7168),
    latent: Some(Latent {
        heads: 128,
        q_rank: 1536,
        kv_rank: 512,
        nope: 128,
        rope: 64,
        v: 128,
    }),
    qk_norm: false,
};
/// Mixtral 8×22B (Mistral AI's released `config.json`): 56 layers, width
/// 6144, 48 heads of 128 with 8 key/value heads, 8 experts of 16384 (2 per
/// token) in every layer, SwiGLU, vocabulary 32768 untied. 141 B
/// parameters, 39 B active. Sequence 4096: the training length is not
/// published (the model serves 64 k).
pub const MIXTRAL_8X22B: ModelShape = ModelShape {
    seq_len: 4096,
    heads: 48,
    head_size: 128,
    kv_heads: 8,
    layers: 56,
    ffn: 16_384,
    gated_mlp: true,
    biases: false,
    vocab: Some(32_768),
    tied_embeddings: false,
    experts: Some(Experts {
        routed: 8,
        top_k: 2,
        ffn: 16_384,
        shared: 0,
        dense_layers: 0,
        node_limit: 0,
    }),
    hidden: None,
    latent: None,
    qk_norm: false,
};
/// Qwen3-235B-A22B (Qwen3 technical report, arXiv 2505.09388, Table 2, and
/// the released `config.json`): 94 layers, width 4096, 64 query heads of
/// 128 with 4 key/value heads, 128 experts of 1536 (8 per token, no
/// shared expert) in every layer, SwiGLU, vocabulary 151936 untied,
/// sequence 4096 (the report's first pre-training stage). 235 B
/// parameters, 22 B active.
pub const QWEN3_235B_A22B: ModelShape = ModelShape {
    seq_len: 4096,
    heads: 64,
    head_size: 128,
    kv_heads: 4,
    layers: 94,
    ffn: 12_288,
    gated_mlp: true,
    biases: false,
    vocab: Some(151_936),
    tied_embeddings: false,
    experts: Some(Experts {
        routed: 128,
        top_k: 8,
        ffn: 1536,
        shared: 0,
        dense_layers: 0,
        node_limit: 0,
    }),
    hidden: Some(4096),
    latent: None,
    // `Qwen3MoeAttention`'s `q_norm` and `k_norm` (Qwen3 technical report
    // sec. 2: QK-Norm in place of QKV bias).
    qk_norm: true,
};

/// Named presets (besides `x<N>`), as `(name, shape)`; feeds dropdowns.
pub const PRESETS: &[(&str, ModelShape)] = &[
    ("bert", BERT),
    ("megatron-8.3b", MEGATRON_8_3B),
    ("t-nlg", T_NLG),
    ("gpt-3", GPT_3),
    ("megatron-1t", MEGATRON_1T),
    ("mistral-7b", MISTRAL_7B),
    ("llama-3.1-8b", LLAMA_3_1_8B),
    ("llama-3.1-70b", LLAMA_3_1_70B),
    ("nemotron-4-340b", NEMOTRON_4_340B),
    ("llama-3.1-405b", LLAMA_3_1_405B),
    ("mixtral-8x22b", MIXTRAL_8X22B),
    ("qwen3-235b-a22b", QWEN3_235B_A22B),
    ("deepseek-v3", DEEPSEEK_V3),
];

/// Looks a model up by name: a preset of [`PRESETS`] or `x<N>` (any even
/// N), case-insensitive.
///
/// # Errors
///
/// An unknown name, or an `x<N>` that [`x_family`] rejects.
pub fn preset(name: &str) -> Result<ModelShape, Error> {
    let name = name.trim();
    if let Some(rest) = name.strip_prefix(['x', 'X']) {
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
            let x: u32 = rest.parse().map_err(|_| Error::OutOfRange {
                what: "x",
                value: f64::INFINITY,
                min: 2.0,
                max: f64::from(MAX_X),
            })?;
            return x_family(x);
        }
    }
    PRESETS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, m)| m)
        .ok_or(Error::Unknown { what: "model" })
}
