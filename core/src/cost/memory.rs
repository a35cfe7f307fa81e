//! Memory per GPU (App. C.3) and the activation models a user can pick.

use crate::cost::assumptions::Assumptions;
use crate::cost::config::{validate, Config};
use crate::error::Error;
use crate::hardware::Hardware;
use crate::math;
use crate::model::ModelShape;
use crate::units::Bytes;

/// How activations are kept for the backward pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ActivationModel {
    /// The paper's: a checkpoint at every layer output (2 bytes per token and
    /// width), the layer being recomputed holding m0 bytes per token
    /// ([`crate::ModelShape::layer_activation_per_token`]). 8 flop per token
    /// and parameter.
    #[default]
    Paper,
    /// Full recomputation with Korthikanti et al.'s per-layer count
    /// s·b·h·(10 + 24/t + 5·a·s/(h·t)) for the layer being recomputed
    /// (seed 003). 8 flop per token and parameter.
    Full,
    /// Selective recomputation: every layer keeps s·b·h·(10 + 24/t); only
    /// the attention scores are recomputed, which C.1 neglects: 6 flop per
    /// token and parameter. No checkpoints.
    Selective,
    /// No recomputation: every layer keeps s·b·h·(10 + 24/t + 5·a·s/(h·t)).
    /// 6 flop per token and parameter. No checkpoints.
    None,
}

impl ActivationModel {
    /// Every model, for menus.
    pub const ALL: [Self; 4] = [Self::Paper, Self::Full, Self::Selective, Self::None];

    /// Flop per token and parameter for a training step: 2 forward + 4
    /// backward, plus 2 for recomputing the forward (C.1; PTD-P eq. 3-4).
    #[must_use]
    pub fn flops_per_token_param(self) -> f64 {
        match self {
            Self::Paper | Self::Full => 8.0,
            Self::Selective | Self::None => 6.0,
        }
    }

    /// Tensor-parallel all-reduces per layer and step: two forward, two for
    /// the gradients, two more to recompute the forward (C.4.3).
    #[must_use]
    pub fn tensor_allreduces(self) -> f64 {
        match self {
            Self::Paper | Self::Full => 6.0,
            Self::Selective | Self::None => 4.0,
        }
    }

    /// Stable name, as used by the CLI and URLs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::Full => "full",
            Self::Selective => "selective",
            Self::None => "none",
        }
    }

    /// Parses [`ActivationModel::name`].
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, crate::Error> {
        Self::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(crate::Error::Unknown {
                what: "activation model",
            })
    }
}

/// Memory per GPU in the paper's four categories (sec. 2.5, C.3).
///
/// # Properties
///
/// `offloadable() + non_offloadable() == total()`; `on_gpu(o)` is the sum of
/// `on_gpu_parts(o)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemoryBreakdown {
    /// Training state: fp32 weights, Adam's two moments (12 bytes per
    /// parameter), split over the model-parallel devices, or over all
    /// devices when partitioned.
    pub state: Bytes,
    /// Activation checkpoints.
    pub checkpoints: Bytes,
    /// Mixed-buffering parameter and gradient buffers (Table C.1).
    pub buffers: Bytes,
    /// Layer activations and their gradients.
    pub activations: Bytes,
}

impl MemoryBreakdown {
    /// State + checkpoints: what can move to CPU memory (C.3).
    #[must_use]
    pub fn offloadable(&self) -> Bytes {
        self.state + self.checkpoints
    }
    /// Buffers + activations: what must stay on the GPU.
    #[must_use]
    pub fn non_offloadable(&self) -> Bytes {
        self.buffers + self.activations
    }
    /// Everything.
    #[must_use]
    pub fn total(&self) -> Bytes {
        self.offloadable() + self.non_offloadable()
    }
    /// What the GPU holds of each category — state, checkpoints, buffers,
    /// activations — when offloading or not: offloading moves the state and
    /// the checkpoints to CPU memory (C.3).
    #[must_use]
    pub fn on_gpu_parts(&self, offload: bool) -> [Bytes; 4] {
        let moved = |b: Bytes| if offload { Bytes(0.0) } else { b };
        [
            moved(self.state),
            moved(self.checkpoints),
            self.buffers,
            self.activations,
        ]
    }

    /// What the GPU holds: the non-offloadable part when offloading, else all
    /// (the same sums as [`Self::non_offloadable`] and [`Self::total`], so
    /// never an ulp above the total; the parts' sum may differ by one).
    #[must_use]
    pub fn on_gpu(&self, offload: bool) -> Bytes {
        if offload {
            self.non_offloadable()
        } else {
            self.total()
        }
    }
}

/// Memory per GPU of a configuration (App. C.3; MODEL_NOTES facts 3–4).
///
/// * state: 12p/(n_l·n_a), or 12p/n_gpu when partitioned;
/// * checkpoints: 2·b·d_s·d_m·d_l/n_gpu (whole batch, every method);
/// * buffers: 6·p_l/n_a (two parameter buffers and one gradient buffer);
/// * activations: b_µ·d_s·m0/n_a for the paper's model; see
///   [`ActivationModel`] for the others.
///
/// # Errors
///
/// As [`crate::evaluate`].
pub fn memory_per_gpu(
    model: &ModelShape,
    hw: &Hardware,
    cfg: &Config,
) -> Result<MemoryBreakdown, Error> {
    validate(model, hw, cfg)?;
    Ok(memory_unchecked(model, cfg))
}

pub(crate) fn memory_unchecked(model: &ModelShape, cfg: &Config) -> MemoryBreakdown {
    let p = model.params();
    let (nb, nl, na) = (
        f64::from(cfg.data),
        f64::from(cfg.pipe),
        f64::from(cfg.tensor),
    );
    let ngpu = nb * nl * na;
    let b = cfg.batch() as f64;
    let bmu = f64::from(cfg.micro_batch);
    let (ds, dm, dl) = (
        f64::from(model.seq_len),
        model.width() as f64,
        f64::from(model.layers),
    );
    let state = if cfg.method.partitioned() {
        12.0 * p / ngpu
    } else {
        12.0 * p / (nl * na)
    };
    let buffers = 6.0 * model.layer_params() / na;
    let checkpoints = 2.0 * b * ds * dm * dl / ngpu;
    // Korthikanti et al. per-layer counts, bytes per token / d_m (seed 003).
    let attn_scores = 5.0 * f64::from(model.heads) * ds / (dm * na);
    let kept = 10.0 + 24.0 / na;
    let layers_per_stage = math::ceil(dl / nl);
    let in_flight = if cfg.method.layered() {
        f64::from(cfg.micro_batches)
    } else if cfg.pipe > 1 {
        f64::from(cfg.pipe.min(cfg.micro_batches))
    } else {
        1.0
    };
    let stored =
        |per_token_over_dm: f64| bmu * ds * dm * per_token_over_dm * layers_per_stage * in_flight;
    let (checkpoints, activations) = match cfg.activation {
        ActivationModel::Paper => (
            checkpoints,
            bmu * ds * model.layer_activation_per_token() / na,
        ),
        ActivationModel::Full => (checkpoints, bmu * ds * dm * (kept + attn_scores)),
        ActivationModel::Selective => (0.0, stored(kept)),
        ActivationModel::None => (0.0, stored(kept + attn_scores)),
    };
    MemoryBreakdown {
        state: Bytes(state),
        checkpoints: Bytes(checkpoints),
        buffers: Bytes(buffers),
        activations: Bytes(activations),
    }
}

/// The memory of one pipeline device under the practice knobs: what its
/// stage's weights, gradients and optimizer state take under its ZeRO
/// stage, the activations of its micro-batches in flight, the logits on
/// the last stage and the reserve.
///
/// # Properties
///
/// [`StageMemory::total`] is the sum of the parts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageMemory {
    /// Pipeline device index, 0 = first.
    pub stage: u32,
    /// Transformer layers it holds.
    pub layers: u32,
    /// Half-precision (or fp32) weights, the ZeRO-3 gathered copies
    /// included.
    pub weights: Bytes,
    /// Gradients.
    pub gradients: Bytes,
    /// Optimizer state: master weights and moments.
    pub optimizer: Bytes,
    /// Activations kept for the backward pass of the micro-batches in
    /// flight (checkpoints only with full recomputation).
    pub activations: Bytes,
    /// The working set of one layer being computed or recomputed.
    pub working: Bytes,
    /// One micro-batch's logits as the loss holds them (last device):
    /// 4·b·s·V/t, the fp32 logits (Korthikanti sec. 4.1's cross-entropy
    /// term; the paper setting), or as the assumptions' cross-entropy
    /// holds them ([`crate::cost::assumptions::CrossEntropy`]).
    pub logits: Bytes,
    /// Kept back for the CUDA context, NCCL and fragmentation.
    pub reserve: Bytes,
    /// Of the reserve, the allocator's fragmentation
    /// ([`crate::cost::assumptions::Assumptions::fragmentation`]).
    pub fragmentation: Bytes,
    /// CPU memory this device uses: ZeRO-R P_a+cpu's checkpoints (not in
    /// [`Self::total`], which is the GPU's).
    pub host: Bytes,
    /// Micro-batches in flight ([`crate::cost::step::in_flight`]).
    pub in_flight: f64,
}

impl StageMemory {
    /// Every part, as `(key, bytes)`.
    #[must_use]
    pub fn parts(&self) -> [(&'static str, Bytes); 7] {
        [
            ("weights", self.weights),
            ("gradients", self.gradients),
            ("optimizer", self.optimizer),
            ("activations", self.activations),
            ("working", self.working),
            ("logits", self.logits),
            ("reserve", self.reserve),
        ]
    }

    /// Everything the device holds.
    #[must_use]
    pub fn total(&self) -> Bytes {
        self.parts().iter().map(|(_, b)| *b).sum()
    }
}

/// The distinct pipeline devices: the first, one in the middle (when there
/// are three or more) and the last; one entry without a pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stages {
    items: [Option<StageMemory>; 3],
}

impl Stages {
    /// The stages, first to last.
    pub fn iter(&self) -> impl Iterator<Item = &StageMemory> + '_ {
        self.items.iter().flatten()
    }

    /// The heaviest stage.
    #[must_use]
    pub fn heaviest(&self) -> StageMemory {
        let mut best: Option<(&StageMemory, f64)> = None;
        for s in self.iter() {
            let total = s.total().0;
            if best.is_none_or(|(_, b)| b < total) {
                best = Some((s, total));
            }
        }
        best.map(|(s, _)| *s).unwrap_or_default()
    }

    /// The stages of a configuration under `a`.
    #[must_use]
    pub fn of(model: &ModelShape, cfg: &Config, a: &Assumptions) -> Self {
        // What every stage shares, worked out once (the practice search
        // asks this of every candidate).
        let common = Common::new(model, cfg, a);
        let last = cfg.pipe - 1;
        let mut items = [None; 3];
        items[0] = Some(common.stage(model, cfg, a, 0));
        if cfg.pipe > 2 {
            items[1] = Some(common.stage(model, cfg, a, 1));
        }
        if cfg.pipe > 1 {
            items[2] = Some(common.stage(model, cfg, a, last));
        }
        Self { items }
    }

    /// A single stage: the paper's uniform memory per GPU.
    #[must_use]
    pub fn uniform(m: &MemoryBreakdown, offload: bool, layers: u32) -> Self {
        let [state, checkpoints, buffers, activations] = m.on_gpu_parts(offload);
        let one = StageMemory {
            stage: 0,
            layers,
            weights: buffers,
            gradients: Bytes(0.0),
            optimizer: state,
            activations: checkpoints,
            working: activations,
            logits: Bytes(0.0),
            reserve: Bytes(0.0),
            fragmentation: Bytes(0.0),
            host: Bytes(0.0),
            in_flight: 1.0,
        };
        Self {
            items: [Some(one), None, None],
        }
    }
}

/// The memory of pipeline device `stage` ([`StageMemory`]):
///
/// * state: parameters × (weights, gradients, optimizer) bytes of
///   [`crate::cost::assumptions::Precision`], divided by the data-parallel
///   degree where the ZeRO stage shards them (seed 001 sec. 5), the routed
///   experts' (E/ep per GPU, over etp ranks) by the expert-data-parallel
///   degree t·cp·d/(ep·etp) (Megatron-Core's expert data parallelism,
///   [`Config::expert_data`]); ZeRO-3 adds
///   the gathered weights of two layers (the current one and the
///   prefetched next), or of the whole stage when gathered once per step;
/// * activations: [`crate::cost::step::kept_per_token`] (less
///   [`crate::cost::step::fp8_saved_per_token`] under FP8) × tokens per
///   micro-batch × layers × micro-batches in flight, plus one layer's
///   working set;
/// * logits on the last device; the reserve.
#[must_use]
pub fn stage_memory(model: &ModelShape, cfg: &Config, a: &Assumptions, stage: u32) -> StageMemory {
    Common::new(model, cfg, a).stage(model, cfg, a, stage)
}

/// What [`stage_memory`] computes alike for every stage of a
/// configuration: one layer's weights per GPU, the ZeRO shards, the
/// activations kept per token.
struct Common {
    layer_dense: f64,
    layer_experts: f64,
    shards: (f64, f64, f64),
    expert_shards: (f64, f64, f64),
    tokens: f64,
    kept: f64,
    working: f64,
    offloaded: f64,
    /// Per token and layer, what fine-grained offloading keeps in CPU
    /// memory ([`crate::cost::offload::per_token`]).
    sent: f64,
    /// A mixture's dense layers: how many lead the model, one's weights
    /// per GPU, and what one keeps per token (0, 0, 0 without them).
    dense_layers: u32,
    dense_layer: f64,
    kept_dense: f64,
}

impl Common {
    fn new(model: &ModelShape, cfg: &Config, a: &Assumptions) -> Self {
        use crate::cost::step;
        let d = f64::from(cfg.data) * f64::from(cfg.context.max(1));
        let d_e = cfg.expert_data();
        let zero = step::zero_of(cfg);
        let (layer_dense, layer_experts) =
            step::layer_weights_on_gpu(model, cfg.tensor, cfg.expert, cfg.expert_tensor);
        // A 1/cp share of each sequence's tokens (context parallelism).
        let tokens =
            f64::from(cfg.micro_batch) * f64::from(model.seq_len) / f64::from(cfg.context.max(1));
        // What a layer keeps per token, and what one of a mixture's leading
        // dense layers keeps: a dense layer of the model's feed-forward
        // width (Megatron-Core's `mlp` module is theirs, `moe` the
        // others'), counted in one pass over the two shapes. The dense
        // layers hold a dense layer's weights, none of them routed
        // experts.
        let dense_layers = model
            .experts
            .map_or(0, |e| e.dense_layers.min(model.layers));
        let dense = ModelShape {
            experts: None,
            ..*model
        };
        let mut kept = [0.0; 2];
        let mut working = 0.0;
        for (i, m) in [model, &dense].into_iter().enumerate() {
            if i == 1 && dense_layers == 0 {
                break;
            }
            let (k, w) = step::kept_per_token(m, cfg, a);
            kept[i] = Self::kept_of(m, cfg, a, k);
            if i == 0 {
                working = w;
            }
        }
        let [kept, kept_dense] = kept;
        let dense_layer = model.dense_layer_params() / f64::from(cfg.tensor.max(1));
        // Activation offloading: a share of each chunk's layers keeps its
        // activations in CPU memory.
        let offloaded = step::offloaded_share(cfg, model.layers);
        Self {
            layer_dense,
            layer_experts,
            shards: zero.shards(d),
            expert_shards: zero.shards(d_e),
            tokens,
            kept,
            working,
            offloaded,
            sent: crate::cost::offload::per_token(model, cfg, a),
            dense_layers,
            dense_layer,
            kept_dense,
        }
    }

    /// What a layer of `model` keeps per token, `kept` as recomputation
    /// leaves it, under the framework's FP8 copies and partial
    /// recomputation.
    fn kept_of(model: &ModelShape, cfg: &Config, a: &Assumptions, kept: f64) -> f64 {
        use crate::cost::step;
        // FP8: the FP8 GEMMs' inputs kept in FP8 (Transformer Engine's; not
        // torchao's, which keeps them in BF16).
        let fp8 = a.compute.is_fp8() && a.framework.fp8_keeps_fp8_copies();
        let kept = if fp8 {
            kept - step::fp8_saved_per_token(model, cfg)
        } else {
            kept
        };
        // Partial recomputation: the layers not recomputed keep what a
        // layer keeps without recomputation; per layer, on average, the
        // mix of the two.
        let share = step::recomputed_share(cfg, model.layers);
        if share < 1.0 && matches!(cfg.activation, ActivationModel::Full) {
            let t = f64::from(cfg.tensor);
            let t_sp = if cfg.sequence_parallel { t } else { 1.0 };
            let (rep, split, scores) = step::saved_per_token(model, a);
            let none = Config {
                activation: ActivationModel::None,
                ..*cfg
            };
            let everything = rep / t_sp + (split + scores) / t
                - if fp8 {
                    step::fp8_saved_per_token(model, &none)
                } else {
                    0.0
                };
            share * kept + (1.0 - share) * everything
        } else {
            kept
        }
    }

    fn stage(&self, model: &ModelShape, cfg: &Config, a: &Assumptions, stage: u32) -> StageMemory {
        use crate::cost::assumptions::Zero;
        use crate::cost::step;
        let layers = step::device_layers(model.layers, cfg, stage);
        let weights = (self.layer_dense, self.layer_experts);
        let (layer_w, ends_w) = step::stage_params_of(model, cfg, stage, layers, weights);
        // The model's leading dense layers on this device hold a dense
        // layer's weights, where every other layer holds an MoE layer's.
        let dense_here = f64::from(step::first_layers_on(
            model.layers,
            self.dense_layers,
            cfg,
            stage,
        ));
        let copies = step::dual_copies(cfg);
        let layer_w = layer_w
            - copies * dense_here * (self.layer_dense + self.layer_experts - self.dense_layer);
        let params = layer_w + ends_w;
        // The state is sharded over the data and context ranks; the routed
        // experts' over the ep-fold smaller expert-data-parallel group.
        let experts = copies * (f64::from(layers) - dense_here) * self.layer_experts;
        let dense = params - experts;
        let t = f64::from(cfg.tensor);
        let (sw, sg, so) = self.shards;
        let (swe, sge, soe) = self.expert_shards;
        let (bw, bg, bo) = a.precision.bytes();
        // Megatron's and DeepSpeed's gradient buffers hold the reduction's
        // dtype (`grad_reduce_in_fp32`, `main_grad`).
        let bg = if a.precision == crate::cost::assumptions::Precision::MixedAdam {
            a.gradient_reduce_bytes
        } else {
            bg
        };
        let zero = step::zero_of(cfg);
        let layer = self.layer_dense + self.layer_experts;
        // A pipeline whose FSDP gathers each stage for the step
        // ([`Assumptions::pipeline_gathers_step`]: torchtitan) holds the
        // stage's bf16 weights and its unsharded gradients.
        let per_step_fsdp = a.pipeline_gathers_step
            && cfg.pipe > 1
            && matches!(zero, Zero::Three | Zero::ThreePerStep);
        let deepspeed = a.framework == crate::cost::framework::Framework::Deepspeed;
        let gathered = match zero {
            _ if per_step_fsdp => 2.0 * params,
            // DeepSpeed's live parameters; FSDP's layer and the next.
            Zero::Three if deepspeed => {
                2.0 * crate::cost::framework::deepspeed_live(model, t, params)
            }
            Zero::Three => 2.0 * 2.0 * layer,
            Zero::ThreePerStep => 2.0 * params,
            _ => 0.0,
        };
        let tokens = self.tokens;
        let (kept, working) = (self.kept, self.working);
        let in_flight = step::in_flight(cfg, stage);
        let checkpoints = f64::from(layers) * in_flight * tokens;
        let host = if cfg.zero_r == crate::cost::config::ZeroR::PaCpu && working > 0.0 {
            step::checkpoint_per_token(model, cfg) * checkpoints
        } else {
            0.0
        };
        // The dense layers lead the device's first chunk, whose in-flight
        // micro-batches the interleaved schedule's groups set
        // ([`crate::cost::step::first_chunk_in_flight`]): they keep a dense
        // layer's activations there.
        let dense_kept = if dense_here > 0.0 {
            dense_here * step::first_chunk_in_flight(cfg, in_flight) * (kept - self.kept_dense)
        } else {
            0.0
        };
        let kept_all = (kept * f64::from(layers) * in_flight - dense_kept).max(0.0) * tokens;
        // Offloaded layers' activations live in CPU memory; one layer's
        // stays staged on the GPU while it is copied out or back.
        let host =
            host + self.offloaded * kept_all + self.sent * f64::from(layers) * in_flight * tokens;
        let staging = if self.offloaded > 0.0 {
            kept * tokens
        } else {
            0.0
        };
        let head = match model.vocab {
            Some(v) if step::holds_head(cfg, stage) => f64::from(v) * model.width() as f64 / t,
            _ => 0.0,
        };
        let logits = match model.vocab {
            Some(v) if head > 0.0 => {
                a.cross_entropy
                    .bytes(tokens, f64::from(v), model.width() as f64, t)
            }
            _ => 0.0,
        };
        // FP8: the layers' weights cast to FP8 and transposed, cached; of
        // the gathered layers only where ZeRO-3 shards the weights (the
        // FP8 copies are made from the gathered bf16 ones). torchao casts
        // per GEMM and caches nothing.
        let fp8 = a.compute.is_fp8() && a.framework.fp8_keeps_fp8_copies();
        let fp8_cache = if fp8 {
            let cached = match zero {
                Zero::Three => 2.0 * layer,
                _ => layer_w,
            };
            // FP8 primary weights keep only the transpose beside them.
            let per_param = if a.fp8_params {
                crate::cost::assumptions::FP8_WEIGHT_CACHE_BYTES / 2.0
            } else {
                crate::cost::assumptions::FP8_WEIGHT_CACHE_BYTES
            };
            cached * per_param
        } else {
            0.0
        };
        // FP8 primary weights (Transformer Engine's `fp8_model_init`,
        // NeMo's `fp8_params`, Megatron's `--fp8-param-gather`): the
        // layers' weights held in 1 byte instead of bw; the embedding and
        // head stay in bf16.
        let fp8_saving = if fp8 && a.fp8_params {
            let moe = copies * (f64::from(layers) - dense_here);
            (bw - 1.0).max(0.0)
                * ((moe * self.layer_dense + copies * dense_here * self.dense_layer) / sw
                    + moe * self.layer_experts / swe)
        } else {
            0.0
        };
        // Plain AMP: autocast's bf16 copy of each weight, saved for
        // backward: every layer's while its activations are kept (one
        // layer's under full recomputation, whose checkpoints save none)
        // and the head's.
        let casts = if a.weight_casts && gathered == 0.0 {
            let kept_layers = if working > 0.0 { layer } else { layer_w };
            2.0 * (kept_layers + head)
        } else {
            0.0
        };
        let activations = (1.0 - self.offloaded) * kept_all;
        // The loss's logits are freed before the last layer's backward
        // (or recomputation) begins: the working set adds only what
        // outgrows them.
        let working_set = ((working + kept) * tokens + staging - logits).max(0.0);
        // Sharded gradients (ZeRO-2, ZeRO-3) pass through one layer's
        // unsharded gradient in the reduction's dtype before its
        // reduce-scatter (FSDP's unit, DeepSpeed's bucket).
        let bucket = if per_step_fsdp {
            params * a.gradient_reduce_bytes
        } else if sg > 1.0 && deepspeed {
            crate::cost::framework::deepspeed_bucket(model, t, params) * a.gradient_reduce_bytes
        } else if sg > 1.0 {
            layer * a.gradient_reduce_bytes
        } else {
            0.0
        };
        let gradients = dense * bg / sg + experts * bg / sge + bucket;
        // Gradients that live only from the backward pass on grow as the
        // activations and casts are freed: at the peak (the backward's
        // start) only what outgrows them is extra. Accumulated over several
        // micro-batches, they are all there while the next one's
        // activations are.
        let gradients = if a.frees_gradients && cfg.micro_batches == 1 && !per_step_fsdp {
            (gradients - (activations + working_set + casts + logits)).max(0.0)
        } else {
            gradients
        };
        let mut fragmentation =
            a.fragmentation * (activations + working_set + logits + gathered + casts);
        if !a.expandable_segments && head > 0.0 {
            // The largest transient: one micro-batch's fp32 logits (bf16
            // where the loss is compiled).
            let per_logit = if a.cross_entropy == crate::cost::assumptions::CrossEntropy::Compiled {
                2.0
            } else {
                4.0
            };
            let block = per_logit * tokens * f64::from(model.vocab.unwrap_or(0)) / t;
            fragmentation = fragmentation
                .max(crate::cost::framework::default_allocator_margin(Bytes(block)).get());
        }
        StageMemory {
            stage,
            layers,
            weights: Bytes(
                dense * bw / sw + experts * bw / swe - fp8_saving + gathered + fp8_cache + casts,
            ),
            gradients: Bytes(gradients),
            optimizer: Bytes(dense * bo / so + experts * bo / soe),
            activations: Bytes(activations),
            working: Bytes(working_set),
            logits: Bytes(logits),
            reserve: a.reserve + Bytes(fragmentation),
            fragmentation: Bytes(fragmentation),
            host: Bytes(host),
            in_flight,
        }
    }
}
