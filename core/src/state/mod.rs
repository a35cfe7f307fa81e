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
//! | `gpu` | `a100-80gb`, `a100-40gb`, `h100-sxm`, `h800`, `h200`, `b200`, `gb200`, `b300`, `gb300` | `a100-80gb` |
//! | `node` | GPUs per node, 1–72, or `none` | the GPU's own (8 for an H100, 72 for a GB200) when `gpu` is given, else 16 |
//! | `net` | `infiniband`, `infiniband-400`, `infiniband-800`, `roce-400`, `ethernet`, `ethernet-100`, `ethernet-400` | `infiniband` |
//! | `method` | the method detailed: `baseline` (Megatron-style), `partitioned` (ZeRO-3 / FSDP), `improved` (layered + modular, the paper's proposal), `fastest` | `fastest`: the fastest plan found (under practice, of the methods frameworks ship; links from before `fastest` existed detailed `improved` when the key was absent) |
//! | `par` | `none`, `data`, `data+pipe`, `data+tensor`, `pipe+tensor`, `3d` | `3d` |
//! | `cluster` | exact GPU count | none |
//! | `gpus` | GPU budget (at most) | none |
//! | `days` | target training time in days (fewest GPUs) | none |
//! | `batch` | batch limit in sequences | practice: today's batch for the run (DeepSeek LLM's law, `ModelShape::batch_law`); paper: the critical batch |
//! | `keff` | kernel efficiency, 0.05–1 | 1 |
//! | `act` | `paper`, `full`, `selective`, `none` (under `practice`: `paper` leaves recomputation to the search) | `paper` |
//! | `assume` | `practice` (today's Megatron-Core, NeMo, torchtitan), `paper` (Lamy-Poirier 2021 exactly) | `practice` |
//! | `tokens` | (practice) training tokens, e.g. `15.6e12` | 20 per parameter |
//! | `price` | US dollars per GPU-hour, for the run's cost | per GPU ([`crate::run::default_price`]) |
//! | `prec` | (practice) the layers' GEMMs: `bf16` or `fp8` (H100, H200, B200, GB200; unvalidated) | `bf16` |
//! | `ramp` | the run's batch ramp, `TOKENS:BATCH,...` (at most 4 phases), e.g. `0:4Mi,252M:8Mi,2.87T:16Mi` | none: the plan's batch |
//! | `dp`, `pp`, `tp`, `vp`, `mb` | (a layout to check) data-parallel, pipeline, tensor-parallel degrees, virtual stages, micro-batch: each fixed when given (`tp` binds the paper's rules too) | searched |
//! | `zero`, `sched` | (practice) ZeRO stage `0`–`3`, `3-step`; pipeline schedule `1f1b`, `gpipe`, `zb-h1`, `zb-v`, `dualpipe` | searched |
//! | `cmp` | schedule comparison: `lga`, `modular`, `interleaved` | `modular` |
//! | `embed` | one view alone, for an iframe: `planner`, `schedule`, `scaling` | none |
//!
//! A URL with no key at all opens on [`Inputs::opening`] (Llama 3.1 405B
//! on up to 16 384 H100s); with any key, the defaults above.
//!
//! Parsing never fails: a value that is malformed, out of range or unknown
//! falls back to its default and yields a [`Notice`] for the page to show.

mod custom;
mod fields;
mod query;
mod scenario;

pub use custom::{CustomShape, CUSTOM_KEYS};

pub use query::FASTEST;
pub use scenario::{read_scenario, MAX_SCENARIO_NAME, SCENARIO_PREFIX};

use alloc::string::String;
use core::fmt;

use crate::cost::{AssumptionSet, Assumptions};
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
    /// A custom shape.
    Custom(CustomShape),
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
            Self::Custom(c) => c.shape(),
        }
    }

    /// A custom shape equal to `m` in what a custom shape holds (the
    /// starting point when a user switches a model to custom).
    #[must_use]
    pub fn custom_from(m: &ModelShape) -> Self {
        Self::Custom(CustomShape::from_shape(m))
    }
}

/// A layout the page is told to check: each field fixed when given (the
/// practice search honours it, or says why it cannot), searched when not.
/// The tensor degree also binds the paper's rules; the rest are practice
/// dimensions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Data-parallel degree (`dp`).
    pub data: Option<u32>,
    /// Pipeline degree (`pp`).
    pub pipe: Option<u32>,
    /// Tensor-parallel degree (`tp`).
    pub tensor: Option<u32>,
    /// Virtual stages per pipeline GPU (`vp`).
    pub virtual_stages: Option<u32>,
    /// Micro-batch size in sequences (`mb`).
    pub micro_batch: Option<u32>,
    /// ZeRO stage (`zero`: `0`, `1`, `2`, `3`, `3-step`).
    pub zero: Option<crate::cost::Zero>,
    /// Pipeline schedule (`sched`: `1f1b`, `gpipe`, `zb-h1`, `zb-v`,
    /// `dualpipe`).
    pub schedule: Option<crate::cost::PipelineSchedule>,
    /// The head's work in layers in the pipeline split (`lmhead`: the last
    /// stage holds this many layers fewer; 0 splits the layers evenly);
    /// by default the head's flops in layers.
    pub head_layers: Option<u32>,
    /// The embedding's work in layers in the pipeline split (`lmembed`:
    /// the first stage holds this many layers fewer, Megatron-Core's
    /// `--account-for-embedding-in-pipeline-split` at 1); by default 0.
    pub embedding_layers: Option<u32>,
}

impl Layout {
    /// The URL keys of a layout, in the order the query writes them.
    pub const KEYS: [&'static str; 9] = [
        "dp", "pp", "tp", "vp", "mb", "zero", "sched", "lmhead", "lmembed",
    ];

    /// Is anything fixed?
    #[must_use]
    pub fn any(&self) -> bool {
        *self != Self::default()
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
    /// 1F1B vs zero-bubble ZB-H1 (Qi et al. 2024).
    ZeroBubble,
    /// ZB-H1 vs DualPipe (DeepSeek-V3).
    DualPipe,
    /// ZB-H1 vs ZB-V (Qi et al. 2024, sec. 6).
    ZbV,
}

impl Comparison {
    /// Every comparison.
    pub const ALL: [Self; 6] = [
        Self::Lga,
        Self::Modular,
        Self::Interleaved,
        Self::ZeroBubble,
        Self::DualPipe,
        Self::ZbV,
    ];
    /// Stable name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Lga => "lga",
            Self::Modular => "modular",
            Self::Interleaved => "interleaved",
            Self::ZeroBubble => "zb-h1",
            Self::DualPipe => "dualpipe",
            Self::ZbV => "zb-v",
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
    /// Method whose plan is detailed: `None` (URL `method` absent, or
    /// `fastest`) details the fastest plan found ([`crate::planner::shown`]:
    /// under practice, of the methods frameworks ship).
    pub method: Option<Method>,
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
    /// The cost model's named setting.
    pub assumptions: AssumptionSet,
    /// (Practice) training tokens; `None`: 20 per parameter.
    pub tokens: Option<f64>,
    /// US dollars per GPU-hour; `None`: the GPU's default.
    pub price: Option<f64>,
    /// The run's batch ramp; all `None`: the plan's batch throughout.
    pub ramp: crate::run::PageRamp,
    /// (Practice) the number format of the layers' GEMMs.
    pub compute: crate::cost::assumptions::Compute,
    /// (Practice) the loss over the vocabulary, which sets the last
    /// stage's logits memory (`ce`); `None`: Megatron-Core's vocab-parallel
    /// cross-entropy, practice's default.
    pub cross_entropy: Option<crate::cost::assumptions::CrossEntropy>,
    /// (Practice) the framework whose memory is counted (`fw`); `None`:
    /// Megatron-Core, practice's default.
    pub framework: Option<crate::cost::framework::Framework>,
    /// (Practice) the search also tries the zero-bubble ZB-H1 schedule
    /// (`zb=1`).
    pub zero_bubble: bool,
    /// (Practice) a fixed context-parallel degree (`cp`); `None`: searched.
    pub context: Option<u32>,
    /// (Practice) a fixed expert-parallel degree (`ep`); `None`: searched.
    pub expert: Option<u32>,
    /// (Practice) the routed experts' own tensor-parallel degree (`etp`,
    /// Megatron-Core's `--expert-tensor-parallel-size`); `None`: searched
    /// (the tensor degree, or 1).
    pub expert_tensor: Option<u32>,
    /// (Practice) made with a calibration profile of the author's own GPU
    /// (`prof=custom`): the page uses the one this browser holds, else
    /// says so and uses the preset's curves.
    pub custom_profile: bool,
    /// The calibration the page computes with: the held profile fitted on
    /// the GPU chosen, as [`crate::cost::profile::Calibration::fitted`]'s
    /// eight numbers; not in the URL (the profile stays in the browser
    /// that loaded it).
    pub calibration: Option<[f64; 8]>,
    /// A layout to check (`dp`, `pp`, `tp`, `vp`, `mb`, `zero`, `sched`):
    /// each degree or choice fixed when given, searched otherwise.
    pub layout: Layout,
}

impl Default for Inputs {
    fn default() -> Self {
        Self {
            model: ModelChoice::X(160),
            gpu: hardware::A100_80GB,
            node: Some(16),
            network: Network::InfiniBand200,
            method: None,
            parallelism: Parallelism::ThreeD,
            max_gpus: None,
            cluster: None,
            target_days: None,
            batch: None,
            kernel_efficiency: 1.0,
            activation: ActivationModel::Paper,
            compare: Comparison::Modular,
            embed: None,
            assumptions: AssumptionSet::Practice,
            tokens: None,
            price: None,
            ramp: [None; crate::run::MAX_RAMP],
            compute: crate::cost::assumptions::Compute::Bf16,
            cross_entropy: None,
            framework: None,
            zero_bubble: false,
            context: None,
            expert: None,
            expert_tensor: None,
            custom_profile: false,
            calibration: None,
            layout: Layout::default(),
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
    /// The value as given (shortened, control characters removed); empty
    /// where the field was left empty and a plan filled it in.
    pub value: String,
    /// Why it was not used (most reasons are fixed words; a layout's
    /// conflict names its values).
    pub reason: alloc::borrow::Cow<'static, str>,
    /// What the page uses instead, in words (empty when nothing is used,
    /// e.g. a saved scenario skipped).
    pub used: String,
    /// A value kept as given that no plan can honour (a layout that
    /// contradicts the model, the hardware or another field): said beside
    /// its field as a refusal, not as a value ignored.
    pub refused: bool,
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.refused {
            return write!(
                f,
                "{}={} has no plan: {}",
                self.key, self.value, self.reason
            );
        }
        if self.value.is_empty() {
            // A field left empty that a plan filled in.
            write!(f, "{}: {}", self.key, self.reason)?;
        } else {
            write!(f, "ignored {}={}: {}", self.key, self.value, self.reason)?;
        }
        if !self.used.is_empty() {
            write!(f, "; using {}", self.used)?;
        }
        Ok(())
    }
}

impl Notice {
    /// The notice as said beside its own field, which names the key: the
    /// value, not `key=value` (the notices at the top keep the URL's
    /// words, [`fmt::Display`]).
    #[must_use]
    pub fn beside_field(&self) -> String {
        let value = if self.value.is_empty() {
            String::new()
        } else if self.refused {
            alloc::format!("{} has no plan: ", self.value)
        } else {
            alloc::format!("{} ignored: ", self.value)
        };
        let used = if self.used.is_empty() || self.refused {
            String::new()
        } else {
            alloc::format!("; using {}", self.used)
        };
        alloc::format!("{value}{}{used}", self.reason)
    }
}

/// Shortens a value for a notice and drops control characters.
pub(crate) fn sanitize(s: &str, max: usize) -> String {
    let mut out: String = s.chars().filter(|c| !c.is_control()).take(max).collect();
    if s.chars().count() > max {
        out.push('…');
    }
    out
}

impl Inputs {
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

    /// The cost model's knobs: the named setting with the token budget.
    #[must_use]
    pub fn knobs(&self) -> Assumptions {
        let base = match self.framework {
            Some(f) if self.practice() => f.apply(self.assumptions.knobs()),
            _ => self.assumptions.knobs(),
        };
        let a = Assumptions {
            tokens: self.tokens,
            compute: self.compute_used(),
            // Practice's knob; the paper counts its fp32 logits.
            cross_entropy: match self.cross_entropy {
                Some(c) if self.practice() => c,
                _ => base.cross_entropy,
            },
            ..base
        };
        // A calibration profile sets practice's kernel curves.
        match self.calibration {
            Some(x) if self.practice() && self.custom_profile => {
                crate::cost::profile::Calibration::from_fitted(&self.gpu, x).apply(a)
            }
            _ => a,
        }
    }

    /// The GEMM precision the page computes with: an FP8 format on a GPU
    /// without FP8 tensor cores runs BF16, MXFP8 on a Hopper GPU per-tensor
    /// FP8 (said beside the field by [`crate::planner::corrections`]; the
    /// CLI refuses them instead).
    #[must_use]
    pub fn compute_used(&self) -> crate::cost::assumptions::Compute {
        use crate::cost::assumptions::{fp8_peak, mx_native, Compute};
        match self.compute {
            c if c.is_fp8() && fp8_peak(&self.gpu).is_none() => Compute::Bf16,
            Compute::Mxfp8 if !mx_native(&self.gpu) => Compute::Fp8,
            c => c,
        }
    }

    /// Under today's practice?
    #[must_use]
    pub fn practice(&self) -> bool {
        self.assumptions == AssumptionSet::Practice
    }

    /// The framework practice counts with (Megatron-Core unless `fw` sets
    /// another; under paper, none of its presets apply: the default).
    #[must_use]
    pub fn framework_used(&self) -> crate::cost::framework::Framework {
        self.framework
            .filter(|_| self.practice())
            .unwrap_or_default()
    }

    /// The methods the plan shown is chosen from when none is asked for
    /// ([`crate::planner::shown`]): under practice, those the framework
    /// ships; under paper, every method.
    #[must_use]
    pub fn shipped(&self) -> &'static [crate::cost::Method] {
        if self.practice() {
            self.framework_used().shipped()
        } else {
            &crate::planner::METHODS
        }
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
