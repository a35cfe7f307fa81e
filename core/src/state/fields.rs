//! The page's fields: typed values parsed as the URL's are, the custom
//! shape's fields, the size slider and the GPU menu, and each key's value in
//! words for the notices.

use alloc::string::String;

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
            "dp" | "pp" | "tp" | "vp" | "mb" | "zero" | "sched" | "lmhead" | "lmembed"
                if v.is_empty() =>
            {
                let l = &mut self.layout;
                match key {
                    "dp" => l.data = None,
                    "pp" => l.pipe = None,
                    "tp" => l.tensor = None,
                    "vp" => l.virtual_stages = None,
                    "mb" => l.micro_batch = None,
                    "zero" => l.zero = None,
                    "lmhead" => l.head_layers = None,
                    "lmembed" => l.embedding_layers = None,
                    _ => l.schedule = None,
                }
                Ok(())
            }
            "gpus" | "cluster" | "days" | "batch" | "tokens" | "price" | "ramp" if v.is_empty() => {
                match key {
                    "gpus" => self.max_gpus = None,
                    "cluster" => self.cluster = None,
                    "days" => self.target_days = None,
                    "tokens" => self.tokens = None,
                    "price" => self.price = None,
                    "ramp" => self.ramp = [None; crate::run::MAX_RAMP],
                    _ => self.batch = None,
                }
                Ok(())
            }
            "seq" | "heads" | "head" | "layers" | "ffn" | "kv" | "vocab" | "gated" | "experts"
            | "topk" | "effn" | "shared" | "dense" => self.set_custom(key, v),
            _ => self.parse_value(key, v),
        };
        result.map_err(|reason| Notice {
            key: sanitize(key, 16),
            value: sanitize(value, 24),
            reason: reason.into(),
            used: self.described(key),
            refused: false,
        })
    }

    fn set_custom(&mut self, key: &str, v: &str) -> Result<(), &'static str> {
        let ModelChoice::Custom(mut c) = self.model else {
            return Err("the model is not a custom shape");
        };
        c.set(key, v)?;
        c.shape()
            .map_err(|_| "the custom shape would be out of bounds")?;
        self.model = ModelChoice::Custom(c);
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
            ModelChoice::Preset(_) | ModelChoice::Custom(_) => Some(Notice {
                key: String::from("model"),
                value: match before {
                    ModelChoice::Preset(n) => String::from(n),
                    _ => String::from("custom"),
                },
                reason: "the size slider scales the paper's X[x] family (eq. 1)".into(),
                used: self.described("model"),
                refused: false,
            }),
        }
    }

    /// Chooses a model from the page's preset menu. The opening's token
    /// budget ([`Inputs::opening`]: Meta's 15.6 T) is Llama 3.1 405B's:
    /// leaving that model for another clears it to the default, 20 per
    /// parameter, as a URL naming the other model opens; another budget
    /// stays, and so do the hardware and the GPU budget.
    pub fn choose_model(&mut self, model: ModelChoice) {
        let opening = Self::opening();
        if self.model == opening.model && self.tokens == opening.tokens && model != opening.model {
            self.tokens = None;
        }
        self.model = model;
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

    /// An optional number field's text as the page shows it (`gpus`,
    /// `cluster`, `days`, `batch`, `tokens`, `price`): its URL value, empty when
    /// unset.
    #[must_use]
    pub fn field_text(&self, key: &str) -> String {
        use alloc::string::ToString;
        match key {
            "gpus" => self.max_gpus.map(|g| g.to_string()),
            "cluster" => self.cluster.map(|g| g.to_string()),
            "days" => self.target_days.map(|d| d.to_string()),
            "batch" => self.batch.map(|b| b.to_string()),
            "tokens" => self.tokens.map(crate::units::short_exp),
            "price" => self.price.map(|p| p.to_string()),
            "ramp" => self.ramp[0].map(|_| crate::run::ramp_text(&self.ramp)),
            "dp" => self.layout.data.map(|x| x.to_string()),
            "pp" => self.layout.pipe.map(|x| x.to_string()),
            "tp" => self.layout.tensor.map(|x| x.to_string()),
            "vp" => self.layout.virtual_stages.map(|x| x.to_string()),
            "mb" => self.layout.micro_batch.map(|x| x.to_string()),
            "zero" => self.layout.zero.map(|z| z.name().to_string()),
            "sched" => self.layout.schedule.map(|s| s.name().to_string()),
            "lmhead" => self.layout.head_layers.map(|x| x.to_string()),
            "lmembed" => self.layout.embedding_layers.map(|x| x.to_string()),
            _ => None,
        }
        .unwrap_or_default()
    }

    /// The value of a key in words, as a notice says what is used.
    #[must_use]
    pub fn described(&self, key: &str) -> String {
        let custom = |k: &str| match self.model {
            ModelChoice::Custom(c) => c.described(k),
            _ => String::from("the model's"),
        };
        match key {
            "model" => match self.model {
                ModelChoice::Preset(n) => String::from(n),
                ModelChoice::X(x) => alloc::format!("X{x}"),
                ModelChoice::Custom(_) => String::from("the custom shape"),
            },
            "seq" => custom("seq"),
            "heads" => custom("heads"),
            "head" => custom("head"),
            "layers" => custom("layers"),
            "ffn" => custom("ffn"),
            "kv" => custom("kv"),
            "vocab" => custom("vocab"),
            "gated" => custom("gated"),
            "experts" => custom("experts"),
            "topk" => custom("topk"),
            "effn" => custom("effn"),
            "shared" => custom("shared"),
            "dense" => custom("dense"),
            "gpu" => String::from(self.gpu.name),
            "node" => self.node.map_or(String::from("no node limit"), |n| {
                alloc::format!("{n} GPUs per node")
            }),
            "net" => String::from(self.network.name()),
            "assume" => String::from(self.assumptions.name()),
            "tokens" => self
                .tokens
                .map_or(String::from("20 tokens per parameter"), |t| {
                    alloc::format!("{} tokens", crate::units::short_exp(t))
                }),
            "prec" => String::from(self.compute.name()),
            "fw" => String::from(
                self.framework
                    .unwrap_or(crate::cost::framework::Framework::MegatronCore)
                    .name(),
            ),
            // The loss counted: the one set, else the framework's.
            "ce" => String::from(self.knobs().cross_entropy.name()),
            "lmhead" => self
                .layout
                .head_layers
                .map_or(String::from("the head's flops in layers"), |h| {
                    alloc::format!("{h} layers")
                }),
            "dp" | "pp" | "tp" | "vp" | "mb" | "zero" | "sched" => {
                let text = self.field_text(key);
                if text.is_empty() {
                    String::from("searched")
                } else {
                    text
                }
            }
            "cp" => self
                .context
                .map_or(String::from("searched"), |c| alloc::format!("{c}")),
            "ep" => self
                .expert
                .map_or(String::from("searched"), |e| alloc::format!("{e}")),
            "prof" => String::from(if self.calibration.is_some() {
                "your GPU's calibration profile"
            } else {
                "the GPU preset's kernel curves"
            }),
            "etp" => self
                .expert_tensor
                .map_or(String::from("searched"), |e| alloc::format!("{e}")),
            "lmembed" => self
                .layout
                .embedding_layers
                .map_or(String::from("0 layers"), |e| alloc::format!("{e} layers")),
            "zb" => String::from(if self.zero_bubble {
                "1F1B, ZB-H1, ZB-V and DualPipe"
            } else {
                "1F1B and interleaved 1F1B"
            }),
            "ramp" => match self.ramp[0] {
                Some(_) => crate::run::ramp_text(&self.ramp),
                None => String::from("the plan's batch throughout"),
            },
            "price" => self.price.map_or(
                alloc::format!("${} per GPU-hour", crate::run::default_price(&self.gpu)),
                |p| alloc::format!("${p} per GPU-hour"),
            ),
            "method" => String::from(
                self.method
                    .map_or(super::query::FASTEST, crate::Method::name),
            ),
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
            "batch" => self.batch.map_or(
                String::from(if self.practice() {
                    "today's batch for the run (DeepSeek LLM's batch-size law)"
                } else {
                    "the critical batch"
                }),
                |b| alloc::format!("a limit of {b} sequences"),
            ),
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
