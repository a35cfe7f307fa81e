//! The URL query: reading it (every key, with notices for values not used)
//! and writing it (only what differs from the defaults); the state's serde
//! form is the same query.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

use super::{
    sanitize, Comparison, CustomShape, EmbedView, Inputs, ModelChoice, Notice, CUSTOM_KEYS,
    KEFF_RANGE, MAX_VALUE_LEN, NODE_RANGE,
};
use crate::cost::AssumptionSet;
use crate::hardware::{self, Network};
use crate::memory::ActivationModel;
use crate::model;
use crate::search::Parallelism;
use crate::Method;

/// Percent-decodes a query component (`+` is a space). Invalid escapes are
/// kept as they are.
pub(crate) fn decode(s: &str) -> String {
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

pub(crate) fn parse_u64(v: &str, min: u64, max: u64) -> Option<u64> {
    let v = v.trim();
    if v.is_empty() || v.len() > 20 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse::<u64>().ok().filter(|x| (min..=max).contains(x))
}

/// A whole count in `[min, max]` as people type it (`16Ki`, `2048`):
/// [`crate::units::parse_whole`].
/// A whole amount in `min..=max`, or which of three reasons says why not:
/// not a whole number, below `min` (a negative number too), above `max`.
fn amount(
    v: &str,
    (min, max): (u64, u64),
    reasons: [&'static str; 3],
) -> Result<u64, &'static str> {
    let [nan, low, high] = reasons;
    if v.trim_start().starts_with('-') {
        return Err(low);
    }
    match crate::units::parse_count(v) {
        Some(x) if x > max as f64 => Err(high),
        Some(x) if x < min as f64 => Err(low),
        Some(_) => crate::units::parse_whole(v).ok_or(nan),
        None => Err(nan),
    }
}

pub(crate) fn parse_bool(v: &str) -> Option<bool> {
    match v.trim() {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

pub(crate) fn parse_f64(v: &str, min: f64, max: f64) -> Option<f64> {
    let v = v.trim();
    if v.is_empty() || v.len() > 24 {
        return None;
    }
    crate::units::decimal(v).filter(|x| *x >= min && *x <= max)
}

/// The `method` value that details the fastest plan found (the default).
pub const FASTEST: &str = "fastest";

impl Inputs {
    /// What the page opens on when its URL has no query: a practitioner's
    /// run of today (Llama 3.1 405B on up to 16 384 H100s, eight to a node,
    /// 400 Gb/s InfiniBand, Meta's 15.6 T tokens) under practice, the
    /// fastest plan detailed. A URL with any key reads its missing keys as
    /// [`Inputs::default`] (the X\[160\] on A100s it always meant), and
    /// [`Inputs::to_query`] writes what differs from that, so links keep
    /// their meaning.
    #[must_use]
    pub fn opening() -> Self {
        Self {
            model: ModelChoice::Preset("llama-3.1-405b"),
            gpu: hardware::H100_SXM,
            node: Some(8),
            network: Network::InfiniBand400,
            max_gpus: Some(16_384),
            tokens: Some(15.6e12),
            ..Self::default()
        }
    }

    /// The page's URL query read: [`Inputs::opening`] when it has no key,
    /// else [`Inputs::from_query`].
    #[must_use]
    pub fn from_page_query(query: &str) -> (Self, Vec<Notice>) {
        let q = query.strip_prefix('?').unwrap_or(query);
        if q.split('&').all(str::is_empty) {
            (Self::opening(), Vec::new())
        } else {
            Self::from_query(q)
        }
    }

    /// Reads a query string (with or without the leading `?`). Unknown keys
    /// are ignored; bad values fall back to defaults with a notice.
    #[must_use]
    pub fn from_query(query: &str) -> (Self, Vec<Notice>) {
        let mut s = Self::default();
        let mut notices = Vec::new();
        let query = query.strip_prefix('?').unwrap_or(query);
        // The custom shape's keys, applied once the model is known.
        let mut custom: Vec<(String, String)> = Vec::new();
        let mut wants_custom = false;
        // A GPU without a node size brings its own node (8 H100s, not the
        // A100 default's 16).
        let (mut gpu_given, mut node_given) = (false, false);
        for pair in query.split('&').filter(|p| !p.is_empty()).take(64) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (k, v) = (decode(k), decode(v));
            let mut bad = |reason: &'static str| {
                notices.push(Notice {
                    key: sanitize(&k, 16),
                    value: sanitize(&v, 24),
                    reason: reason.into(),
                    used: String::new(),
                    refused: false,
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
                key if CUSTOM_KEYS.contains(&key) => custom.push((k.clone(), v.clone())),
                // A near miss of a key (`modle`, `gpuz`, `Model`) is said,
                // with the key it likely means; a key like no other (a
                // tracker's `utm_source`) is left alone.
                key if !is_key(key) => {
                    if let Some(meant) = mistyped(key) {
                        notices.push(Notice {
                            key: sanitize(&k, 16),
                            value: sanitize(&v, 24),
                            reason: alloc::format!("not a key of this page: did you mean {meant}?")
                                .into(),
                            used: String::new(),
                            refused: false,
                        });
                    }
                }
                _ => {
                    gpu_given |= k == "gpu";
                    node_given |= k == "node";
                    if let Err(reason) = s.parse_value(&k, &v) {
                        bad(reason);
                    }
                }
            }
        }
        if gpu_given && !node_given {
            s.node = Some(s.gpu.default_node_size);
        }
        if wants_custom || !custom.is_empty() {
            let base = s
                .model
                .shape()
                .unwrap_or(model::x_family(160).unwrap_or(model::BERT));
            let mut c = CustomShape::from_shape(&base);
            for (k, v) in &custom {
                if let Err(reason) = c.set(k, v) {
                    notices.push(Notice {
                        key: sanitize(k, 16),
                        value: sanitize(v, 24),
                        reason: reason.into(),
                        used: String::new(),
                        refused: false,
                    });
                }
            }
            let choice = ModelChoice::Custom(c);
            match choice.shape() {
                Ok(_) => s.model = choice,
                Err(_) => notices.push(Notice {
                    key: String::from("model"),
                    value: String::from("custom"),
                    reason: "the custom shape is out of bounds".into(),
                    used: String::new(),
                    refused: false,
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
    pub(crate) fn parse_value(&mut self, key: &str, v: &str) -> Result<(), &'static str> {
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
                Ok(m) if m != Method::ImprovedUnpartitioned => self.method = Some(m),
                _ if v.trim().eq_ignore_ascii_case(FASTEST) => self.method = None,
                _ => return Err("unknown method (baseline, partitioned, improved or fastest)"),
            },
            "par" => match Parallelism::parse(v) {
                Ok(p) => self.parallelism = p,
                Err(_) => return Err("unknown parallelism"),
            },
            "gpus" => {
                self.max_gpus = Some(amount(
                    v,
                    (1, 1 << 32),
                    [
                        "GPU budget must be a whole number (16384, 16k or 16Ki)",
                        "GPU budget must be at least 1",
                        "GPU budget must be at most 2³² = 4,294,967,296 GPUs",
                    ],
                )?);
            }
            "cluster" => {
                self.cluster = Some(amount(
                    v,
                    (1, 1 << 32),
                    [
                        "cluster size must be a whole number (16384, 16k or 16Ki)",
                        "cluster size must be at least 1",
                        "cluster size must be at most 2³² = 4,294,967,296 GPUs",
                    ],
                )?);
            }
            "days" => match parse_f64(v, 1e-3, 1e7) {
                Some(d) => self.target_days = Some(d),
                None => return Err("target days must be a number in 0.001–1e7"),
            },
            "batch" => {
                self.batch = Some(amount(
                    v,
                    (1, 1 << 32),
                    [
                        "batch must be a whole number of sequences (2048, 2k or 2Ki)",
                        "batch must be at least 1 sequence",
                        "batch must be at most 2³² sequences",
                    ],
                )?);
            }
            "keff" => match parse_f64(v, KEFF_RANGE.0, KEFF_RANGE.1) {
                Some(x) => self.kernel_efficiency = x,
                None => return Err("kernel efficiency must be in 0.05–1"),
            },
            "act" => match ActivationModel::parse(v) {
                Ok(a) => self.activation = a,
                Err(_) => return Err("unknown activation model"),
            },
            "assume" => match AssumptionSet::parse(v) {
                Ok(a) => self.assumptions = a,
                Err(_) => return Err("unknown assumptions (practice or paper)"),
            },
            "tokens" => match crate::units::parse_count(v).filter(|t| (1e6..=1e18).contains(t)) {
                Some(t) => self.tokens = Some(t),
                None => {
                    return Err("training tokens must be a number in 1e6–1e18 (15.6T, 15.6e12)")
                }
            },
            "dp" => {
                self.layout.data = Some(amount(
                    v,
                    (1, 1 << 24),
                    [
                        "the data-parallel degree must be a whole number",
                        "the data-parallel degree must be at least 1",
                        "the data-parallel degree must be at most 2²⁴ = 16,777,216",
                    ],
                )? as u32);
            }
            "pp" => match parse_u64(v, 1, 4096) {
                Some(p) => self.layout.pipe = Some(p as u32),
                None => return Err("the pipeline degree must be a whole number in 1–4096"),
            },
            "tp" => match parse_u64(v, 1, 1024) {
                Some(t) => self.layout.tensor = Some(t as u32),
                None => return Err("the tensor-parallel degree must be a whole number in 1–1024"),
            },
            "vp" => match parse_u64(v, 1, 256) {
                Some(x) => self.layout.virtual_stages = Some(x as u32),
                None => return Err("the virtual stages must be a whole number in 1–256"),
            },
            "mb" => match parse_u64(v, 1, 1024) {
                Some(b) => self.layout.micro_batch = Some(b as u32),
                None => return Err("the micro-batch size must be a whole number in 1–1024"),
            },
            "zero" => match crate::cost::Zero::parse(v) {
                Ok(z) => self.layout.zero = Some(z),
                Err(_) => return Err("the ZeRO stage is 0, 1, 2, 3 or 3-step"),
            },
            "lmhead" => {
                match parse_u64(v, 0, 64) {
                    Some(h) => self.layout.head_layers = Some(h as u32),
                    None => return Err(
                        "the head's layers in the pipeline split must be a whole number in 0–64",
                    ),
                }
            }
            "lmembed" => match parse_u64(v, 0, 64) {
                Some(e) => self.layout.embedding_layers = Some(e as u32),
                None => {
                    return Err(
                        "the embedding's layers in the pipeline split must be a whole number in 0–64",
                    )
                }
            },
            "sched" => match crate::cost::PipelineSchedule::parse(v) {
                Ok(s) => self.layout.schedule = Some(s),
                Err(_) => {
                    return Err("the pipeline schedule is 1f1b, gpipe, zb-h1, zb-v or dualpipe")
                }
            },
            "cp" => match parse_u64(v, 1, 1024) {
                Some(c) => self.context = Some(c as u32),
                None => return Err("the context-parallel degree must be a whole number in 1–1024"),
            },
            "ep" => match parse_u64(v, 1, 65_536) {
                Some(e) => self.expert = Some(e as u32),
                None => return Err("the expert-parallel degree must be a whole number in 1–65536"),
            },
            "prof" => match v.trim() {
                "custom" => self.custom_profile = true,
                _ => return Err("prof is custom (made with a GPU calibration profile) or absent"),
            },
            "etp" => match parse_u64(v, 1, 1024) {
                Some(e) => self.expert_tensor = Some(e as u32),
                None => {
                    return Err(
                        "the experts' tensor-parallel degree must be a whole number in 1–1024",
                    )
                }
            },
            "zb" => match v.trim() {
                "1" | "true" | "on" => self.zero_bubble = true,
                "0" | "false" | "off" => self.zero_bubble = false,
                _ => return Err("zero bubble is 1 (also try ZB-H1) or 0"),
            },
            "prec" => match crate::cost::assumptions::Compute::parse(v) {
                Ok(c) => self.compute = c,
                Err(_) => {
                    return Err(
                        "unknown precision (bf16, fp8, fp8-current, fp8-blockwise or mxfp8)",
                    )
                }
            },
            "fw" => match crate::cost::framework::Framework::parse(v) {
                Ok(f) => self.framework = Some(f),
                Err(_) => {
                    return Err("the framework is megatron-core, megatron-2022, torchtitan, pytorch-fsdp, pytorch or deepspeed")
                }
            },
            "ce" => match crate::cost::assumptions::CrossEntropy::parse(v) {
                Ok(c) => self.cross_entropy = Some(c),
                Err(_) => {
                    return Err(
                        "the cross-entropy is vocab-parallel, eager, compiled, fused-linear or logits",
                    )
                }
            },
            "ramp" => match crate::run::page_ramp(v) {
                Ok(r) => self.ramp = r,
                Err(_) => return Err("a batch ramp is TOKENS:BATCH,... from 0, at most 4 phases"),
            },
            "price" => match parse_f64(v, 0.0, 1e4) {
                Some(p) => self.price = Some(p),
                None => return Err("the price per GPU-hour must be a number in 0–10000"),
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
            ModelChoice::Custom(c) => {
                put("model", &"custom");
                for k in CUSTOM_KEYS {
                    if let Some(v) = c.get(k) {
                        put(k, &v);
                    }
                }
            }
        }
        if self.gpu.name != d.gpu.name {
            put("gpu", &self.gpu.name);
        }
        // With another GPU the node is always written (a reader would infer
        // the GPU's own).
        if self.node != d.node || self.gpu.name != d.gpu.name {
            match self.node {
                Some(n) => put("node", &n),
                None => put("node", &"none"),
            }
        }
        if self.network != d.network {
            put("net", &self.network.name());
        }
        if let Some(m) = self.method {
            put("method", &m.name());
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
        if self.assumptions != d.assumptions {
            put("assume", &self.assumptions.name());
        }
        if let Some(t) = self.tokens {
            // `15.6e12`, not `15600000000000`, where it reads back exactly.
            let short = crate::units::short_exp(t);
            if crate::units::parse_count(&short) == Some(t) {
                put("tokens", &short);
            } else {
                put("tokens", &t);
            }
        }
        if let Some(p) = self.price {
            put("price", &p);
        }
        if self.compute != d.compute {
            put("prec", &self.compute.name());
        }
        if let Some(c) = self.cross_entropy {
            put("ce", &c.name());
        }
        if let Some(f) = self.framework {
            put("fw", &f.name());
        }
        if self.zero_bubble {
            put("zb", &"1");
        }
        if let Some(c) = self.context {
            put("cp", &c);
        }
        if let Some(e) = self.expert {
            put("ep", &e);
        }
        if let Some(e) = self.expert_tensor {
            put("etp", &e);
        }
        if self.custom_profile {
            put("prof", &"custom");
        }
        let l = &self.layout;
        for (key, value) in [
            ("dp", l.data),
            ("pp", l.pipe),
            ("tp", l.tensor),
            ("vp", l.virtual_stages),
            ("mb", l.micro_batch),
        ] {
            if let Some(x) = value {
                put(key, &x);
            }
        }
        if let Some(z) = l.zero {
            put("zero", &z.name());
        }
        if let Some(s) = l.schedule {
            put("sched", &s.name());
        }
        if let Some(h) = l.head_layers {
            put("lmhead", &h);
        }
        if let Some(e) = l.embedding_layers {
            put("lmembed", &e);
        }
        if self.ramp[0].is_some() {
            put("ramp", &crate::run::ramp_text(&self.ramp));
        }
        if self.compare != d.compare {
            put("cmp", &self.compare.name());
        }
        if let Some(e) = self.embed {
            put("embed", &e.name());
        }
        q
    }
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
            "description": "The page's inputs as its URL query (keys in docs/page.md), e.g. `model=gpt-3&node=8`."
        })
    }
}

/// The page's URL keys: those [`Inputs::parse_value`] reads, the model's
/// and the custom shape's.
pub const URL_KEYS: [&str; 48] = [
    "model", "gpu", "node", "net", "method", "par", "gpus", "cluster", "days", "batch", "keff",
    "act", "assume", "tokens", "dp", "pp", "tp", "vp", "mb", "zero", "lmhead", "lmembed", "sched",
    "cp", "ep", "etp", "zb", "prec", "ce", "ramp", "price", "cmp", "embed", "seq", "heads", "head",
    "layers", "ffn", "kv", "vocab", "gated", "experts", "topk", "effn", "shared", "dense", "fw",
    "prof",
];

/// Whether `key` is one of the page's URL keys.
#[must_use]
pub fn is_key(key: &str) -> bool {
    URL_KEYS.contains(&key)
}

/// The key a near miss of one likely means (an edit or two away, or
/// another case): `modle` → `model`, `gpuz` → `gpu`. `None` for a key like
/// none of the page's (a tracker's `utm_source`).
#[must_use]
pub fn mistyped(key: &str) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    let mut best: Option<(usize, &'static str)> = None;
    for known in URL_KEYS {
        let d = edits(&lower, known);
        // One edit for short keys (tp, dp), two for longer ones.
        let limit = if known.len() <= 3 { 1 } else { 2 };
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, known));
        }
    }
    best.map(|(_, k)| k)
}

/// Edits (insertions, deletions, substitutions and swaps of neighbours)
/// from `a` to `b`: the optimal string alignment distance, over bytes.
fn edits(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > 2 {
        return usize::MAX;
    }
    let w = b.len() + 1;
    let mut d = alloc::vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * w + j] = if i == 0 {
                j
            } else if j == 0 {
                i
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (d[(i - 1) * w + j] + 1)
                    .min(d[i * w + j - 1] + 1)
                    .min(d[(i - 1) * w + j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(d[(i - 2) * w + j - 2] + 1);
                }
                v
            };
        }
    }
    d[a.len() * w + b.len()]
}
