//! The page's fields: typed values parsed as the URL's are, the custom
//! shape's fields, the size slider and the GPU menu, and each key's value in
//! words for the notices.

use alloc::string::String;

use super::query::parse_bool;
use super::query::parse_u64;
use super::{sanitize, Inputs, ModelChoice, Notice};
use crate::hardware::Gpu;

impl Inputs {
    /// Sets a key from a field of the page: as in the URL, and an empty
    /// field clears an optional input (GPU budget, target days, batch
    /// limit); a custom shape field changes the custom model.
    ///
    /// # Errors
    ///
    /// The notice to show (the value is not used; it names what is).
    pub fn set_field(&mut self, key: &str, value: &str) -> Result<(), Notice> {
        let v = value.trim();
        let result = match key {
            "gpus" | "cluster" | "days" | "batch" if v.is_empty() => {
                match key {
                    "gpus" => self.max_gpus = None,
                    "cluster" => self.cluster = None,
                    "days" => self.target_days = None,
                    _ => self.batch = None,
                }
                Ok(())
            }
            "seq" | "heads" | "head" | "layers" | "ffn" | "kv" | "vocab" | "gated" => {
                self.set_custom(key, v)
            }
            _ => self.parse_value(key, v),
        };
        result.map_err(|reason| Notice {
            key: sanitize(key, 16),
            value: sanitize(value, 24),
            reason,
            used: self.described(key),
        })
    }

    fn set_custom(&mut self, key: &str, v: &str) -> Result<(), &'static str> {
        let ModelChoice::Custom {
            mut seq_len,
            mut heads,
            mut head_size,
            mut layers,
            mut ffn,
            mut kv_heads,
            mut vocab,
            mut gated,
        } = self.model
        else {
            return Err("the model is not a custom shape");
        };
        let number = || {
            parse_u64(v, 1, 1 << 26)
                .map(|x| x as u32)
                .ok_or("not a whole number in 1–67108864")
        };
        // The optional ones clear when emptied.
        let optional = || {
            if v.is_empty() {
                Ok(None)
            } else {
                number().map(Some)
            }
        };
        match key {
            "seq" => seq_len = number()?,
            "heads" => heads = number()?,
            "head" => head_size = number()?,
            "layers" => layers = number()?,
            "ffn" => ffn = optional()?,
            "kv" => kv_heads = optional()?,
            "vocab" => vocab = optional()?,
            "gated" => gated = parse_bool(v).ok_or("gated must be 1 or 0")?,
            _ => return Err("not a field of the custom shape"),
        }
        let next = ModelChoice::Custom {
            seq_len,
            heads,
            head_size,
            layers,
            ffn,
            kv_heads,
            vocab,
            gated,
        };
        next.shape()
            .map_err(|_| "the custom shape would be out of bounds")?;
        self.model = next;
        Ok(())
    }

    /// Moves the size slider to `params` parameters: the model becomes the
    /// nearest X\[x\] of the paper's family (eq. 1). When that replaces a
    /// preset or a custom shape, the notice says so.
    pub fn slide_size(&mut self, params: f64) -> Option<Notice> {
        let before = self.model;
        self.model = ModelChoice::X(Self::x_for_params(params));
        match before {
            ModelChoice::X(_) => None,
            ModelChoice::Preset(_) | ModelChoice::Custom { .. } => Some(Notice {
                key: String::from("model"),
                value: match before {
                    ModelChoice::Preset(n) => String::from(n),
                    _ => String::from("custom"),
                },
                reason: "the size slider scales the paper's X[x] family (eq. 1)",
                used: self.described("model"),
            }),
        }
    }

    /// Chooses a GPU from the page's menu: the node size follows it (the
    /// GPUs of its usual NVLink domain: 8 in an HGX H100 or B200 board, 16
    /// in the paper's A100 node), unless the node size is unlimited. A URL
    /// keeps its explicit or default node size, so old links mean what they
    /// meant.
    pub fn choose_gpu(&mut self, gpu: Gpu) {
        self.gpu = gpu;
        if self.node.is_some() {
            self.node = Some(gpu.default_node_size);
        }
    }

    /// The value of a key in words, as a notice says what is used.
    #[must_use]
    pub fn described(&self, key: &str) -> String {
        let custom = |i: usize| match self.model {
            ModelChoice::Custom {
                seq_len,
                heads,
                head_size,
                layers,
                ffn,
                kv_heads,
                vocab,
                gated,
            } => match i {
                0..=3 => alloc::format!("{}", [seq_len, heads, head_size, layers][i]),
                4 => ffn.map_or(String::from("4 × width"), |f| alloc::format!("{f}")),
                5 => kv_heads.map_or(String::from("one per head"), |k| alloc::format!("{k}")),
                6 => vocab.map_or(String::from("no vocabulary"), |v| alloc::format!("{v}")),
                _ => String::from(if gated { "gated" } else { "not gated" }),
            },
            _ => String::from("the model's"),
        };
        match key {
            "model" => match self.model {
                ModelChoice::Preset(n) => String::from(n),
                ModelChoice::X(x) => alloc::format!("X{x}"),
                ModelChoice::Custom { .. } => String::from("the custom shape"),
            },
            "seq" => custom(0),
            "heads" => custom(1),
            "head" => custom(2),
            "layers" => custom(3),
            "ffn" => custom(4),
            "kv" => custom(5),
            "vocab" => custom(6),
            "gated" => custom(7),
            "gpu" => String::from(self.gpu.name),
            "node" => self.node.map_or(String::from("no node limit"), |n| {
                alloc::format!("{n} GPUs per node")
            }),
            "net" => String::from(self.network.name()),
            "method" => String::from(self.method.name()),
            "par" => String::from(self.parallelism.name()),
            "gpus" => self.max_gpus.map_or(String::from("no GPU budget"), |g| {
                alloc::format!("{g} GPUs")
            }),
            "cluster" => self
                .cluster
                .map_or(String::from("no fixed cluster size"), |g| {
                    alloc::format!("exactly {g} GPUs")
                }),
            "days" => self
                .target_days
                .map_or(String::from("no target time"), |d| {
                    alloc::format!("{d} days")
                }),
            "batch" => self.batch.map_or(String::from("the critical batch"), |b| {
                alloc::format!("a limit of {b} sequences")
            }),
            "keff" => alloc::format!("{}", self.kernel_efficiency),
            "act" => String::from(self.activation.name()),
            "cmp" => String::from(self.compare.name()),
            "embed" => self
                .embed
                .map_or(String::from("the full page"), |e| String::from(e.name())),
            _ => String::new(),
        }
    }
}
