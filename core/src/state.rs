//! The planner's inputs and their URL query form: every input lives in the
//! query string so a view can be shared, and survives a reload.
//!
//! # Keys
//!
//! | key | values | default |
//! |---|---|---|
//! | `model` | a preset (`bert`, `gpt-3`, `llama-3.1-8b`, …), `x<N>` (N even), or `custom` | `x160` |
//! | `seq`, `heads`, `head`, `layers` | custom shape (with `model=custom`) | X160's |
//! | `ffn`, `kv`, `vocab`, `gated` | custom feed-forward size, key/value heads, vocabulary, gated MLP | 4 × width, one per head, none, 0 |
//! | `gpu` | `a100-80gb`, `a100-40gb`, `h100-sxm`, `h200`, `b200` | `a100-80gb` |
//! | `node` | GPUs per node, 1–72, or `none` | 16 |
//! | `net` | `infiniband`, `infiniband-400`, `ethernet`, `ethernet-100`, `ethernet-400` | `infiniband` |
//! | `method` | `baseline`, `partitioned`, `improved` | `improved` |
//! | `par` | `none`, `data`, `data+pipe`, `data+tensor`, `pipe+tensor`, `3d` | `3d` |
//! | `cluster` | exact GPU count | none |
//! | `gpus` | GPU budget (at most) | none |
//! | `days` | target training time in days (fewest GPUs) | none |
//! | `batch` | batch limit in sequences | the critical batch |
//! | `keff` | kernel efficiency, 0.05–1 | 1 |
//! | `act` | `paper`, `full`, `selective`, `none` | `paper` |
//! | `cmp` | schedule comparison: `lga`, `modular`, `interleaved` | `modular` |
//! | `embed` | one view alone, for an iframe: `planner`, `schedule`, `scaling` | none |
//!
//! Parsing never fails: a value that is malformed, out of range or unknown
//! falls back to its default and yields a [`Notice`] for the page to show.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

use crate::hardware::{self, Gpu, Hardware, Network};
use crate::memory::ActivationModel;
use crate::model::{self, ModelShape};
use crate::search::Parallelism;
use crate::Method;

/// The model choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelChoice {
    /// A named preset.
    Preset(&'static str),
    /// X\[x\].
    X(u32),
    /// A custom shape: sequence length, heads, head size, layers, and
    /// optionally the feed-forward size, grouped-query key/value heads, a
    /// vocabulary and a gated MLP.
    Custom {
        /// d_s.
        seq_len: u32,
        /// d_a.
        heads: u32,
        /// d_h.
        head_size: u32,
        /// d_l.
        layers: u32,
        /// Feed-forward size d_I; `None` for 4 × width.
        ffn: Option<u32>,
        /// Key/value heads (grouped-query attention); `None` for `heads`.
        kv_heads: Option<u32>,
        /// Vocabulary, to count the embeddings (untied); `None` leaves them
        /// out, as the paper's formulas do.
        vocab: Option<u32>,
        /// A gated (SwiGLU) feed-forward block: three matrices, not two.
        gated: bool,
    },
}

impl ModelChoice {
    /// The shape.
    ///
    /// # Errors
    ///
    /// A custom shape out of bounds.
    pub fn shape(&self) -> Result<ModelShape, crate::Error> {
        match *self {
            Self::Preset(name) => model::preset(name),
            Self::X(x) => model::x_family(x),
            Self::Custom {
                seq_len,
                heads,
                head_size,
                layers,
                ffn,
                kv_heads,
                vocab,
                gated,
            } => {
                let mut m = model::classic(seq_len, heads, head_size, layers);
                if let Some(f) = ffn {
                    m.ffn = f;
                }
                if let Some(k) = kv_heads {
                    m.kv_heads = k;
                }
                if vocab.is_some() {
                    m.vocab = vocab;
                    m.tied_embeddings = false;
                }
                m.gated_mlp = gated;
                m.validate()?;
                Ok(m)
            }
        }
    }

    /// A custom shape equal to `m` in what a custom shape holds (the
    /// starting point when a user switches a model to custom).
    #[must_use]
    pub fn custom_from(m: &ModelShape) -> Self {
        Self::Custom {
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
}

/// Which pair of schedules the page compares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Comparison {
    /// Standard vs layered gradient accumulation (fig. 1).
    Lga,
    /// Standard vs modular pipeline (fig. 3).
    #[default]
    Modular,
    /// 1F1B vs interleaved 1F1B (PTD-P).
    Interleaved,
}

impl Comparison {
    /// Every comparison.
    pub const ALL: [Self; 3] = [Self::Lga, Self::Modular, Self::Interleaved];
    /// Stable name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Lga => "lga",
            Self::Modular => "modular",
            Self::Interleaved => "interleaved",
        }
    }
}

/// One view shown alone, for an iframe (`embed=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmbedView {
    /// The plans table.
    Planner,
    /// The schedule animation.
    Schedule,
    /// The scaling chart.
    Scaling,
}

impl EmbedView {
    /// Every view.
    pub const ALL: [Self; 3] = [Self::Planner, Self::Schedule, Self::Scaling];
    /// Stable name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Planner => "planner",
            Self::Schedule => "schedule",
            Self::Scaling => "scaling",
        }
    }
}

/// Everything a user sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inputs {
    /// Model.
    pub model: ModelChoice,
    /// GPU.
    pub gpu: Gpu,
    /// GPUs per node; `None` for no limit.
    pub node: Option<u32>,
    /// Network of the data/pipeline dimensions.
    pub network: Network,
    /// Method whose plan is detailed.
    pub method: Method,
    /// Parallelism setting.
    pub parallelism: Parallelism,
    /// GPU budget (at most).
    pub max_gpus: Option<u64>,
    /// An exact cluster size: every plan uses exactly this many GPUs.
    pub cluster: Option<u64>,
    /// Target days.
    pub target_days: Option<f64>,
    /// Batch limit.
    pub batch: Option<u64>,
    /// Kernel efficiency.
    pub kernel_efficiency: f64,
    /// Activation model.
    pub activation: ActivationModel,
    /// Schedule comparison.
    pub compare: Comparison,
    /// A view shown alone, for embedding.
    pub embed: Option<EmbedView>,
}

impl Default for Inputs {
    fn default() -> Self {
        Self {
            model: ModelChoice::X(160),
            gpu: hardware::A100_80GB,
            node: Some(16),
            network: Network::InfiniBand200,
            method: Method::Improved,
            parallelism: Parallelism::ThreeD,
            max_gpus: None,
            cluster: None,
            target_days: None,
            batch: None,
            kernel_efficiency: 1.0,
            activation: ActivationModel::Paper,
            compare: Comparison::Modular,
            embed: None,
        }
    }
}

/// Node-size slider bounds.
pub const NODE_RANGE: (u32, u32) = (1, 72);
/// Kernel-efficiency bounds.
pub const KEFF_RANGE: (f64, f64) = (0.05, 1.0);
/// Longest query value read; longer ones are rejected.
pub const MAX_VALUE_LEN: usize = 64;

/// A value the page did not use as given, why, and what it used instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The key.
    pub key: String,
    /// The value as given (shortened, control characters removed).
    pub value: String,
    /// Why it was not used.
    pub reason: &'static str,
    /// What the page uses instead, in words (empty when nothing is used,
    /// e.g. a saved scenario skipped).
    pub used: String,
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ignored {}={}: {}", self.key, self.value, self.reason)?;
        if !self.used.is_empty() {
            write!(f, "; using {}", self.used)?;
        }
        Ok(())
    }
}

fn sanitize(s: &str, max: usize) -> String {
    let mut out: String = s.chars().filter(|c| !c.is_control()).take(max).collect();
    if s.chars().count() > max {
        out.push('…');
    }
    out
}

/// Percent-decodes a query component (`+` is a space). Invalid escapes are
/// kept as they are.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = |b: u8| (b as char).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn parse_u64(v: &str, min: u64, max: u64) -> Option<u64> {
    let v = v.trim();
    if v.is_empty() || v.len() > 20 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse::<u64>().ok().filter(|x| (min..=max).contains(x))
}

/// The custom shape's numeric URL keys, in the order the parser keeps them.
const CUSTOM_KEYS: [&str; 7] = ["seq", "heads", "head", "layers", "ffn", "kv", "vocab"];

fn parse_bool(v: &str) -> Option<bool> {
    match v.trim() {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

fn parse_f64(v: &str, min: f64, max: f64) -> Option<f64> {
    let v = v.trim();
    if v.is_empty() || v.len() > 24 {
        return None;
    }
    v.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= min && *x <= max)
}

impl Inputs {
    /// Reads a query string (with or without the leading `?`). Unknown keys
    /// are ignored; bad values fall back to defaults with a notice.
    #[must_use]
    pub fn from_query(query: &str) -> (Self, Vec<Notice>) {
        let mut s = Self::default();
        let mut notices = Vec::new();
        let query = query.strip_prefix('?').unwrap_or(query);
        let mut custom = [None::<u32>; 7];
        let mut gated = None::<bool>;
        let mut wants_custom = false;
        for pair in query.split('&').filter(|p| !p.is_empty()).take(64) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (k, v) = (decode(k), decode(v));
            let mut bad = |reason: &'static str| {
                notices.push(Notice {
                    key: sanitize(&k, 16),
                    value: sanitize(&v, 24),
                    reason,
                    used: String::new(),
                });
            };
            if v.len() > MAX_VALUE_LEN {
                bad("value too long");
                continue;
            }
            match k.as_str() {
                "model" => {
                    if v.eq_ignore_ascii_case("custom") {
                        wants_custom = true;
                    } else if let Some(&(name, _)) = model::PRESETS
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case(v.trim()))
                    {
                        s.model = ModelChoice::Preset(name);
                    } else {
                        match model::preset(&v) {
                            Ok(m) if m.layers >= 2 => s.model = ModelChoice::X(m.layers),
                            _ => bad("unknown model (a preset, x<N> with N even, or custom)"),
                        }
                    }
                }
                "seq" | "heads" | "head" | "layers" | "ffn" | "kv" | "vocab" => {
                    let i = CUSTOM_KEYS.iter().position(|x| *x == k).unwrap_or(0);
                    match parse_u64(&v, 1, 1 << 26) {
                        Some(x) => custom[i] = Some(x as u32),
                        None => bad("not a whole number in 1–67108864"),
                    }
                }
                "gated" => match parse_bool(&v) {
                    Some(g) => gated = Some(g),
                    None => bad("gated must be 1 or 0"),
                },
                _ => {
                    if let Err(reason) = s.parse_value(&k, &v) {
                        bad(reason);
                    }
                }
            }
        }
        if wants_custom || gated.is_some() || custom.iter().any(Option::is_some) {
            let base = s
                .model
                .shape()
                .unwrap_or(model::x_family(160).unwrap_or(model::BERT));
            let ModelChoice::Custom {
                ffn,
                kv_heads,
                vocab,
                gated: base_gated,
                ..
            } = ModelChoice::custom_from(&base)
            else {
                unreachable!("custom_from builds a custom shape")
            };
            let choice = ModelChoice::Custom {
                seq_len: custom[0].unwrap_or(base.seq_len),
                heads: custom[1].unwrap_or(base.heads),
                head_size: custom[2].unwrap_or(base.head_size),
                layers: custom[3].unwrap_or(base.layers),
                ffn: custom[4].or(ffn),
                kv_heads: custom[5].or(kv_heads),
                vocab: custom[6].or(vocab),
                gated: gated.unwrap_or(base_gated),
            };
            match choice.shape() {
                Ok(_) => s.model = choice,
                Err(_) => notices.push(Notice {
                    key: String::from("model"),
                    value: String::from("custom"),
                    reason: "the custom shape is out of bounds",
                    used: String::new(),
                }),
            }
        }
        // Say what each ignored value fell back to.
        for n in &mut notices {
            n.used = s.described(&n.key);
        }
        (s, notices)
    }

    /// Sets one key (every URL key but the model's) from its text, as the
    /// URL and the page's fields give it. Unknown keys are ignored.
    ///
    /// # Errors
    ///
    /// Why the value cannot be used; nothing is changed then.
    fn parse_value(&mut self, key: &str, v: &str) -> Result<(), &'static str> {
        match key {
            "gpu" => match hardware::gpu(v) {
                Ok(g) => self.gpu = g,
                Err(_) => return Err("unknown GPU"),
            },
            "node" => {
                if v.eq_ignore_ascii_case("none") {
                    self.node = None;
                } else {
                    match parse_u64(v, NODE_RANGE.0.into(), NODE_RANGE.1.into()) {
                        Some(n) => self.node = Some(n as u32),
                        None => return Err("node size must be 1–72 or none"),
                    }
                }
            }
            "net" => match Network::parse(v) {
                Ok(n) => self.network = n,
                Err(_) => return Err("unknown network"),
            },
            "method" => match Method::parse(v) {
                Ok(m) if m != Method::ImprovedUnpartitioned => self.method = m,
                _ => return Err("unknown method"),
            },
            "par" => match Parallelism::parse(v) {
                Ok(p) => self.parallelism = p,
                Err(_) => return Err("unknown parallelism"),
            },
            "gpus" => match parse_u64(v, 1, 1 << 32) {
                Some(n) => self.max_gpus = Some(n),
                None => return Err("GPU budget must be a whole number ≥ 1"),
            },
            "cluster" => match parse_u64(v, 1, 1 << 32) {
                Some(n) => self.cluster = Some(n),
                None => return Err("cluster size must be a whole number ≥ 1"),
            },
            "days" => match parse_f64(v, 1e-3, 1e7) {
                Some(d) => self.target_days = Some(d),
                None => return Err("target days must be a number in 0.001–1e7"),
            },
            "batch" => match parse_u64(v, 1, 1 << 32) {
                Some(n) => self.batch = Some(n),
                None => return Err("batch must be a whole number ≥ 1"),
            },
            "keff" => match parse_f64(v, KEFF_RANGE.0, KEFF_RANGE.1) {
                Some(x) => self.kernel_efficiency = x,
                None => return Err("kernel efficiency must be in 0.05–1"),
            },
            "act" => match ActivationModel::parse(v) {
                Ok(a) => self.activation = a,
                Err(_) => return Err("unknown activation model"),
            },
            "cmp" => match Comparison::ALL
                .into_iter()
                .find(|c| c.name().eq_ignore_ascii_case(v.trim()))
            {
                Some(c) => self.compare = c,
                None => return Err("unknown schedule comparison"),
            },
            "embed" => match EmbedView::ALL
                .into_iter()
                .find(|e| e.name().eq_ignore_ascii_case(v.trim()))
            {
                Some(e) => self.embed = Some(e),
                None => return Err("unknown embedded view (planner, schedule, scaling)"),
            },
            _ => {}
        }
        Ok(())
    }

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

    /// The query string (without `?`), listing only non-default values.
    #[must_use]
    pub fn to_query(&self) -> String {
        let d = Self::default();
        let mut q = String::new();
        let mut put = |k: &str, v: &dyn fmt::Display| {
            if !q.is_empty() {
                q.push('&');
            }
            let _ = write!(q, "{k}={v}");
        };
        match self.model {
            ModelChoice::Preset(n) => put("model", &n),
            ModelChoice::X(x) => put("model", &format_args!("x{x}")),
            ModelChoice::Custom {
                seq_len,
                heads,
                head_size,
                layers,
                ffn,
                kv_heads,
                vocab,
                gated,
            } => {
                put("model", &"custom");
                put("seq", &seq_len);
                put("heads", &heads);
                put("head", &head_size);
                put("layers", &layers);
                if let Some(f) = ffn {
                    put("ffn", &f);
                }
                if let Some(k) = kv_heads {
                    put("kv", &k);
                }
                if let Some(v) = vocab {
                    put("vocab", &v);
                }
                if gated {
                    put("gated", &1);
                }
            }
        }
        if self.gpu.name != d.gpu.name {
            put("gpu", &self.gpu.name);
        }
        if self.node != d.node {
            match self.node {
                Some(n) => put("node", &n),
                None => put("node", &"none"),
            }
        }
        if self.network != d.network {
            put("net", &self.network.name());
        }
        if self.method != d.method {
            put("method", &self.method.name());
        }
        if self.parallelism != d.parallelism {
            // `+` would read as a space: escape it.
            put("par", &self.parallelism.name().replace('+', "%2B"));
        }
        if let Some(g) = self.max_gpus {
            put("gpus", &g);
        }
        if let Some(g) = self.cluster {
            put("cluster", &g);
        }
        if let Some(days) = self.target_days {
            put("days", &days);
        }
        if let Some(b) = self.batch {
            put("batch", &b);
        }
        if self.kernel_efficiency != d.kernel_efficiency {
            put("keff", &self.kernel_efficiency);
        }
        if self.activation != d.activation {
            put("act", &self.activation.name());
        }
        if self.compare != d.compare {
            put("cmp", &self.compare.name());
        }
        if let Some(e) = self.embed {
            put("embed", &e.name());
        }
        q
    }

    /// The link to these inputs' full page (never embedded), from the
    /// page's address without its query (`https://host/path/`).
    #[must_use]
    pub fn link(&self, base: &str) -> String {
        let q = Self {
            embed: None,
            ..*self
        }
        .to_query();
        if q.is_empty() {
            String::from(base)
        } else {
            alloc::format!("{base}?{q}")
        }
    }

    /// HTML to embed one view of these inputs in a 600×400 iframe.
    #[must_use]
    pub fn embed_code(&self, base: &str, view: EmbedView) -> String {
        let src = Self {
            embed: Some(view),
            ..*self
        }
        .to_query();
        // The query holds only names and numbers; `&` must be escaped in HTML.
        alloc::format!(
            "<iframe src=\"{base}?{}\" width=\"600\" height=\"400\" title=\"plan3d: {}\" loading=\"lazy\" style=\"border:0\"></iframe>",
            src.replace('&', "&amp;"),
            view.name()
        )
    }

    /// The hardware these inputs describe.
    #[must_use]
    pub fn hardware(&self) -> Hardware {
        Hardware {
            gpu: self.gpu,
            node_size: self.node,
            network: self.network,
            kernel_efficiency: self.kernel_efficiency,
        }
    }

    /// The X\[x\] model nearest a parameter count (for a log-scale slider):
    /// x = (p/12)^{1/5}, rounded to an even integer in 2–[`model::MAX_X`].
    #[must_use]
    pub fn x_for_params(params: f64) -> u32 {
        if !params.is_finite() || params <= 0.0 {
            return 2;
        }
        let x = crate::math::pow(params / 12.0, 0.2);
        ((crate::math::round(x / 2.0) * 2.0) as u32).clamp(2, model::MAX_X)
    }
}

/// localStorage key prefix of saved scenarios (one key per scenario, its
/// value a query string).
pub const SCENARIO_PREFIX: &str = "plan3d.scenario.";
/// Longest scenario name kept.
pub const MAX_SCENARIO_NAME: usize = 60;

/// A saved scenario read back: its name and inputs, or why it was skipped.
pub fn read_scenario(key: &str, value: &str) -> Result<(String, Inputs), Notice> {
    let bad = |reason| Notice {
        key: sanitize(key, 40),
        value: sanitize(value, 24),
        reason,
        used: String::new(),
    };
    let name = key
        .strip_prefix(SCENARIO_PREFIX)
        .ok_or_else(|| bad("not a scenario"))?;
    if name.is_empty()
        || name.chars().count() > MAX_SCENARIO_NAME
        || name.chars().any(char::is_control)
    {
        return Err(bad("saved scenario with an unreadable name, skipped"));
    }
    let (inputs, notices) = Inputs::from_query(value);
    if !notices.is_empty() {
        return Err(bad("saved scenario is corrupt, skipped"));
    }
    Ok((
        String::from(name),
        Inputs {
            embed: None,
            ..inputs
        },
    ))
}

/// The page's state serializes as its URL query (`"model=gpt-3&node=8"`),
/// the form users share; reading one back refuses any value the page
/// would have corrected, naming it.
#[cfg(feature = "serde")]
impl serde::Serialize for Inputs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_query())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Inputs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let query = <String as serde::Deserialize>::deserialize(d)?;
        let (inputs, notices) = Self::from_query(&query);
        match notices.first() {
            None => Ok(inputs),
            Some(n) => Err(serde::de::Error::custom(n)),
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Inputs {
    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "Inputs".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "The page's inputs as its URL query (keys in the README), e.g. `model=gpt-3&node=8`."
        })
    }
}
