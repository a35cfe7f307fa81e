//! A custom model shape as the page holds it: the four numbers of a classic
//! transformer, and optionally a feed-forward size, grouped-query key/value
//! heads, a vocabulary and a gated MLP. One place reads, writes and
//! describes each of its URL keys (`seq`, `heads`, `head`, `layers`, `ffn`,
//! `kv`, `vocab`, `gated`).

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
}

/// The custom shape's URL keys, in the order they are written.
pub const CUSTOM_KEYS: [&str; 8] = [
    "seq", "heads", "head", "layers", "ffn", "kv", "vocab", "gated",
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
                _ => "",
            })
        })
    }
}
