//! A custom model shape as the page holds it: the four numbers of a classic
//! transformer, and optionally a feed-forward size, grouped-query key/value
//! heads, a vocabulary, a gated MLP and routed experts. One place reads,
//! writes and describes each of its URL keys (`seq`, `heads`, `head`,
//! `layers`, `ffn`, `kv`, `vocab`, `gated`, `experts`, `topk`, `effn`,
//! `shared`, `dense`).

use alloc::string::String;

use super::query::{parse_bool, parse_u64};
use crate::model::{self, ModelShape};

/// A custom shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CustomShape {
    /// d_s.
    pub seq_len: u32,
    /// d_a.
    pub heads: u32,
    /// d_h.
    pub head_size: u32,
    /// d_l.
    pub layers: u32,
    /// Feed-forward size d_I; `None` for 4 × width.
    pub ffn: Option<u32>,
    /// Key/value heads (grouped-query attention); `None` for `heads`.
    pub kv_heads: Option<u32>,
    /// Vocabulary, to count the embeddings (untied); `None` leaves them out,
    /// as the paper's formulas do.
    pub vocab: Option<u32>,
    /// A gated (SwiGLU) feed-forward block: three matrices, not two.
    pub gated: bool,
    /// Routed experts (a mixture of experts); `None`: dense.
    pub experts: Option<u32>,
    /// Experts per token; `None`: 1.
    pub top_k: Option<u32>,
    /// Each expert's feed-forward size; `None`: the feed-forward size.
    pub expert_ffn: Option<u32>,
    /// Shared experts; `None`: 0.
    pub shared: Option<u32>,
    /// Leading dense layers; `None`: 0.
    pub dense: Option<u32>,
}

/// The custom shape's URL keys, in the order they are written.
pub const CUSTOM_KEYS: [&str; 13] = [
    "seq", "heads", "head", "layers", "ffn", "kv", "vocab", "gated", "experts", "topk", "effn",
    "shared", "dense",
];

impl CustomShape {
    /// The shape it describes.
    ///
    /// # Errors
    ///
    /// A shape out of bounds.
    pub fn shape(&self) -> Result<ModelShape, crate::Error> {
        let mut m = model::classic(self.seq_len, self.heads, self.head_size, self.layers);
        if let Some(f) = self.ffn {
            m.ffn = f;
        }
        if let Some(k) = self.kv_heads {
            m.kv_heads = k;
        }
        if self.vocab.is_some() {
            m.vocab = self.vocab;
            m.tied_embeddings = false;
        }
        m.gated_mlp = self.gated;
        m.experts = self.experts.map(|routed| model::Experts {
            routed,
            top_k: self.top_k.unwrap_or(1),
            ffn: self.expert_ffn.unwrap_or(m.ffn),
            shared: self.shared.unwrap_or(0),
            dense_layers: self.dense.unwrap_or(0),
            node_limit: 0,
        });
        m.validate()?;
        Ok(m)
    }

    /// The custom shape equal to `m` in what a custom shape holds.
    #[must_use]
    pub fn from_shape(m: &ModelShape) -> Self {
        Self {
            seq_len: m.seq_len,
            heads: m.heads,
            head_size: m.head_size,
            layers: m.layers,
            ffn: (u64::from(m.ffn) != 4 * m.width()).then_some(m.ffn),
            kv_heads: (m.kv_heads != m.heads).then_some(m.kv_heads),
            vocab: m.vocab,
            gated: m.gated_mlp,
            experts: m.experts.map(|e| e.routed),
            top_k: m.experts.map(|e| e.top_k).filter(|&k| k != 1),
            expert_ffn: m.experts.map(|e| e.ffn).filter(|&f| f != m.ffn),
            shared: m.experts.map(|e| e.shared).filter(|&s| s != 0),
            dense: m.experts.map(|e| e.dense_layers).filter(|&d| d != 0),
        }
    }

    /// Sets one key from its text; an optional one clears when empty.
    ///
    /// # Errors
    ///
    /// Why the value cannot be used (nothing is changed then).
    pub fn set(&mut self, key: &str, v: &str) -> Result<(), &'static str> {
        let v = v.trim();
        let number = || {
            parse_u64(v, 1, 1 << 26)
                .map(|x| x as u32)
                .ok_or("not a whole number in 1–67108864")
        };
        let optional = || {
            if v.is_empty() {
                Ok(None)
            } else {
                number().map(Some)
            }
        };
        match key {
            "seq" => self.seq_len = number()?,
            "heads" => self.heads = number()?,
            "head" => self.head_size = number()?,
            "layers" => self.layers = number()?,
            "ffn" => self.ffn = optional()?,
            "kv" => self.kv_heads = optional()?,
            "vocab" => self.vocab = optional()?,
            "gated" => self.gated = parse_bool(v).ok_or("gated must be 1 or 0")?,
            "experts" => self.experts = optional()?,
            "topk" => self.top_k = optional()?,
            "effn" => self.expert_ffn = optional()?,
            "shared" | "dense" => {
                let n = if v.is_empty() {
                    None
                } else {
                    Some(
                        parse_u64(v, 0, 1 << 16)
                            .map(|x| x as u32)
                            .ok_or("not a whole number in 0–65536")?,
                    )
                };
                if key == "shared" {
                    self.shared = n;
                } else {
                    self.dense = n;
                }
            }
            _ => return Err("not a field of the custom shape"),
        }
        Ok(())
    }

    /// A key's value as the URL writes it; `None` for an optional one at
    /// its default.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<String> {
        let n = |x: u32| Some(alloc::format!("{x}"));
        match key {
            "seq" => n(self.seq_len),
            "heads" => n(self.heads),
            "head" => n(self.head_size),
            "layers" => n(self.layers),
            "ffn" => self.ffn.and_then(n),
            "kv" => self.kv_heads.and_then(n),
            "vocab" => self.vocab.and_then(n),
            "gated" => self.gated.then(|| String::from("1")),
            "experts" => self.experts.and_then(n),
            "topk" => self.top_k.and_then(n),
            "effn" => self.expert_ffn.and_then(n),
            "shared" => self.shared.and_then(n),
            "dense" => self.dense.and_then(n),
            _ => None,
        }
    }

    /// A key's value in words, for a notice.
    #[must_use]
    pub fn described(&self, key: &str) -> String {
        self.get(key).unwrap_or_else(|| {
            String::from(match key {
                "ffn" => "4 × width",
                "kv" => "one per head",
                "vocab" => "no vocabulary",
                "gated" => "not gated",
                "experts" => "dense (no experts)",
                "topk" => "1 expert per token",
                "effn" => "the feed-forward size",
                "shared" => "no shared expert",
                "dense" => "no dense layers first",
                _ => "",
            })
        })
    }
}
