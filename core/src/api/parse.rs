//! Requests into core's types: a model, hardware, the practice knobs,
//! constraints and a configuration, each refused in words naming the field
//! and the value (the entry points are [`super`]'s).

use alloc::format;
use alloc::vec::Vec;

use super::report::EvaluationReport;
use super::request::{ConstraintsRequest, HardwareRequest, ModelRequest, PracticeRequest};
use super::ApiError;
use crate::cost::{
    AssumptionSet, Assumptions, Config, Method, PipelineSchedule, Precision, Zero, ZeroR,
};
use crate::error::Error;
use crate::hardware::{self, Hardware, Network};
use crate::memory::ActivationModel;
use crate::model::{self, ModelShape};
use crate::search::{Constraints, Parallelism};
use crate::units::Bytes;

/// `e` followed by the value it is about: `unknown GPU 'h900'`.
pub(super) fn naming(e: Error, value: &str) -> ApiError {
    ApiError(format!("{e} '{value}'"))
}

/// An unknown name refused with the names that would do, and the nearest
/// of them where one is near (a prefix of it, or within two edits: `h100`
/// → `h100-sxm`, `llama-3-8b` → `llama-3.1-8b`): `unknown GPU 'h100': use
/// a100-80gb, …; did you mean h100-sxm?`.
fn unknown_name<'a>(
    what: &str,
    value: &str,
    names: impl Iterator<Item = &'a str> + Clone,
    also: &str,
) -> ApiError {
    let v = value.trim().to_ascii_lowercase();
    let near = names
        .clone()
        .map(|n| {
            let d = if !v.is_empty() && n.starts_with(v.as_str()) {
                0
            } else {
                edit_distance(&v, n)
            };
            (d, n)
        })
        .filter(|&(d, n)| d <= 2 && 2 * d < v.len().max(n.len()))
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| format!("; did you mean {n}?"))
        .unwrap_or_default();
    let list: Vec<&str> = names.collect();
    ApiError(format!(
        "unknown {what} '{value}': use {}{also}{near}",
        list.join(", ")
    ))
}

/// Levenshtein distance over bytes (names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// A model preset by name ([`model::preset`]), refused naming the presets.
pub(super) fn preset_of(name: &str) -> Result<ModelShape, ApiError> {
    model::preset(name).map_err(|e| match e {
        Error::Unknown { .. } => unknown_name(
            "model",
            name,
            model::PRESETS.iter().map(|&(n, _)| n),
            ", x<N> (N even) or a custom shape (seq_len, heads, head_size, layers)",
        ),
        e => naming(e, name),
    })
}

/// A GPU preset by name ([`hardware::gpu`]), refused naming the presets.
fn gpu_of(name: &str) -> Result<hardware::Gpu, ApiError> {
    hardware::gpu(name)
        .map_err(|_| unknown_name("GPU", name, hardware::GPUS.iter().map(|g| g.name), ""))
}

/// A network by name ([`Network::parse`]), refused naming the networks.
fn network_of(name: &str) -> Result<Network, ApiError> {
    Network::parse(name)
        .map_err(|_| unknown_name("network", name, Network::ALL.iter().map(|n| n.name()), ""))
}

/// The shape a [`ModelRequest`] names: a preset with its fields
/// overridden, or a custom shape (then the four core fields are needed;
/// the FFN defaults to 4 × width).
///
/// # Errors
///
/// An unknown preset, missing fields of a custom shape, or an invalid
/// shape.
pub fn shape(r: &ModelRequest) -> Result<ModelShape, ApiError> {
    let name = r.model.as_deref();
    let mut m = match name {
        Some(n) => preset_of(n)?,
        None => {
            let missing: Vec<&str> = [
                ("--seq-len", r.seq_len.is_none()),
                ("--heads", r.heads.is_none()),
                ("--head-size", r.head_size.is_none()),
                ("--layers", r.layers.is_none()),
            ]
            .into_iter()
            .filter_map(|(f, m)| m.then_some(f))
            .collect();
            if !missing.is_empty() {
                return Err(ApiError(format!(
                    "give a model name or a custom shape (missing {})",
                    missing.join(", ")
                )));
            }
            // Placeholders the fields below overwrite (the width's 4×
            // feed-forward size too).
            crate::model::classic(1, r.heads.unwrap_or(1), 1, 1)
        }
    };
    if let Some(v) = r.seq_len {
        m.seq_len = v;
    }
    if let Some(v) = r.heads {
        m.heads = v;
        m.kv_heads = v;
    }
    if let Some(v) = r.head_size {
        m.head_size = v;
    }
    if let Some(v) = r.layers {
        m.layers = v;
    }
    if name.is_none() || r.heads.is_some() || r.head_size.is_some() {
        m.ffn = u32::try_from(4 * m.width()).unwrap_or(u32::MAX);
    }
    if let Some(v) = r.ffn {
        m.ffn = v;
    }
    if let Some(v) = r.kv_heads {
        m.kv_heads = v;
    }
    m.gated_mlp |= r.gated;
    m.biases &= !r.no_biases;
    if r.vocab.is_some() {
        m.vocab = r.vocab;
    }
    m.tied_embeddings &= !r.untied;
    m.qk_norm |= r.qk_norm;
    let moe_flags = r.top_k.is_some()
        || r.expert_ffn.is_some()
        || r.shared_experts.is_some()
        || r.dense_layers.is_some()
        || r.expert_node_limit.is_some();
    match (r.experts, m.experts) {
        (Some(0), _) => m.experts = None,
        (Some(n), current) => {
            let base = current.unwrap_or(crate::model::Experts {
                routed: n,
                top_k: 0,
                ffn: m.ffn,
                shared: 0,
                dense_layers: 0,
                node_limit: 0,
            });
            m.experts = Some(crate::model::Experts { routed: n, ..base });
        }
        (None, None) if moe_flags => {
            return Err(ApiError(
                "--top-k, --expert-ffn, --shared-experts and --dense-layers describe a mixture of experts: give --experts N too".into(),
            ))
        }
        _ => {}
    }
    if let Some(e) = m.experts.as_mut() {
        if let Some(k) = r.top_k {
            e.top_k = k;
        }
        if let Some(f) = r.expert_ffn {
            e.ffn = f;
        }
        if let Some(s) = r.shared_experts {
            e.shared = s;
        }
        if let Some(l) = r.dense_layers {
            e.dense_layers = l;
        }
        if let Some(n) = r.expert_node_limit {
            e.node_limit = n;
        }
        if e.top_k == 0 {
            return Err(ApiError(
                "a mixture of experts needs --top-k (experts per token)".into(),
            ));
        }
    }
    m.validate()?;
    Ok(m)
}

/// The hardware a [`HardwareRequest`] names. A node size not given is the
/// GPU's own NVLink domain ([`Gpu::default_node_size`](crate::hardware::Gpu):
/// 8 for an H100, H200 or B200 board, 72 for a GB200 or GB300 rack, 16 for
/// the paper's A100), as the page's URL reads `gpu` without `node`
/// ([`crate::state::Inputs::from_query`], issue 26): an H100 asked for
/// alone had planned in a 16-GPU node that does not exist.
///
/// # Errors
///
/// An unknown GPU or network, or a value out of range.
pub fn hardware_of(r: &HardwareRequest) -> Result<Hardware, ApiError> {
    let mut gpu = gpu_of(&r.gpu)?;
    if let Some(gib) = r.gpu_memory {
        if !(gib.is_finite() && gib > 0.0 && gib <= 1e6) {
            return Err(Error::OutOfRange {
                what: "GPU memory (GiB)",
                value: gib,
                min: 0.0,
                max: 1e6,
            }
            .into());
        }
        gpu.memory = Bytes::from_gib(gib);
    }
    if r.no_node_limit && r.node_size.is_some() {
        return Err("give a node size or no node limit, not both".into());
    }
    let hw = Hardware {
        gpu,
        node_size: if r.no_node_limit {
            None
        } else {
            Some(r.node_size.unwrap_or(gpu.default_node_size))
        },
        network: network_of(&r.network)?,
        kernel_efficiency: r.kernel_efficiency,
    };
    hw.validate()?;
    Ok(hw)
}

pub(super) fn activation(name: &str) -> Result<ActivationModel, ApiError> {
    ActivationModel::parse(name).map_err(|_| {
        unknown_name(
            "activation model",
            name,
            ActivationModel::ALL.iter().map(|m| m.name()),
            "",
        )
    })
}

pub(super) fn zero_stage(name: &str) -> Result<Zero, ApiError> {
    Zero::parse(name)
        .map_err(|_| unknown_name("ZeRO stage", name, Zero::ALL.iter().map(|z| z.name()), ""))
}

pub(super) fn pipeline_schedule(name: &str) -> Result<PipelineSchedule, ApiError> {
    // The schedule names of `plan3d schedule --kind`: interleaved is 1F1B
    // with virtual stages; the modular pipeline is a method.
    if name.trim().eq_ignore_ascii_case("interleaved") {
        return Ok(PipelineSchedule::OneFOneB);
    }
    if name.trim().eq_ignore_ascii_case("modular") {
        return Err(ApiError(
            "the modular pipeline is a method: use --method improved".into(),
        ));
    }
    PipelineSchedule::parse(name).map_err(|_| {
        ApiError(format!(
            "unknown pipeline schedule '{name}': use 1f1b, gpipe, zb-h1, zb-v or dualpipe (or any, in a practice plan)"
        ))
    })
}

pub(super) fn zero_r(name: &str) -> Result<ZeroR, ApiError> {
    ZeroR::parse(name).map_err(|_| {
        ApiError(format!(
            "unknown ZeRO-R checkpoint placement '{name}': use none, pa or pa-cpu"
        ))
    })
}

/// Recomputation: `none`, `selective` or `full`.
pub(super) fn recompute(name: &str) -> Result<ActivationModel, ApiError> {
    match ActivationModel::parse(name) {
        Ok(ActivationModel::Paper) | Err(_) => Err(ApiError(format!(
            "unknown recomputation '{name}': use none, selective or full"
        ))),
        Ok(a) => Ok(a),
    }
}

/// `a` calibrated by the request's profile on `hw`
/// ([`crate::cost::profile`]): checked, then fitted; `a` itself without
/// one.
///
/// # Errors
///
/// A profile under the paper's assumptions, or one [`Profile::check`]
/// refuses (`profile field gemm[3].seconds: …`).
///
/// [`Profile::check`]: crate::cost::profile::Profile::check
pub fn calibrated(
    a: Assumptions,
    hw: &Hardware,
    r: &PracticeRequest,
) -> Result<Assumptions, ApiError> {
    let Some(p) = &r.profile else {
        return Ok(a);
    };
    if a.set != crate::cost::AssumptionSet::Practice {
        return Err(ApiError(
            "a calibration profile sets practice's kernel curves: the paper's model has one \
             efficiency (add --assumptions practice)"
                .into(),
        ));
    }
    p.check(hw)
        .map_err(|e| ApiError(alloc::string::ToString::to_string(&e)))?;
    Ok(p.fit(hw, crate::cost::kernels::curves(&hw.gpu)).apply(a))
}

/// The knobs a [`PracticeRequest`] names: `paper` or `practice`, the
/// token budget and the optimizer.
///
/// # Errors
///
/// An unknown setting or optimizer, or a token budget that is not a
/// positive number.
pub fn assumptions_of(r: &PracticeRequest) -> Result<Assumptions, ApiError> {
    let set = AssumptionSet::parse(&r.assumptions).map_err(|_| {
        ApiError(format!(
            "unknown assumptions '{}': use paper or practice",
            r.assumptions
        ))
    })?;
    let mut a = set.knobs();
    if let Some(name) = &r.framework {
        let f = crate::cost::framework::Framework::parse(name).map_err(|_| {
            ApiError(format!(
                "unknown framework '{name}': use megatron-core, megatron-2022, torchtitan, pytorch-fsdp, pytorch or deepspeed"
            ))
        })?;
        if set != AssumptionSet::Practice {
            return Err(ApiError(
                "framework needs --assumptions practice (the paper counts its own memory)".into(),
            ));
        }
        a = f.apply(a);
    }
    if let Some(g) = &r.grad_reduce {
        a.gradient_reduce_bytes = match g.trim().to_ascii_lowercase().as_str() {
            "fp32" => 4.0,
            "bf16" => 2.0,
            _ => {
                return Err(ApiError(format!(
                    "unknown grad_reduce '{g}': use fp32 or bf16"
                )))
            }
        };
    }
    if let Some(t) = r.tokens {
        if !(t.is_finite() && t >= 1.0) {
            return Err(ApiError(format!(
                "token budget {t} is not a positive number"
            )));
        }
        a.tokens = Some(t);
    }
    if let Some(c) = &r.precision {
        a.compute = crate::cost::assumptions::Compute::parse(c).map_err(|_| {
            unknown_name(
                "precision",
                c,
                crate::cost::formats::Compute::ALL.iter().map(|f| f.name()),
                "",
            )
        })?;
    }
    if let Some(x) = r.expert_imbalance {
        if !(x.is_finite() && (1.0..=16.0).contains(&x)) {
            return Err(ApiError(format!(
                "expert imbalance {x} is not between 1 and 16 (the busiest GPU's expert work over the mean)"
            )));
        }
        a.expert_imbalance = x;
    }
    if let Some(o) = r.overlap_expert {
        a.overlap_expert = o;
    }
    // A `cross_entropy` given below wins over the compiled loss.
    if let Some(c) = r.compile {
        a = a.with_compiled(c);
    }
    if let Some(e) = r.expandable_segments {
        a.expandable_segments = e;
    }
    if let Some(name) = &r.attention {
        use crate::cost::kernels::AttentionKernel;
        // `flash` keeps the framework's flash kernel.
        let (flash, kernel) = match name.trim().to_ascii_lowercase().as_str() {
            "flash" => (true, a.attention_kernel),
            "cudnn" | "fa3" => (true, AttentionKernel::Cudnn),
            "fa2" => (true, AttentionKernel::Fa2),
            "fa1" | "triton" => (true, AttentionKernel::Fa1),
            "materialized" => (false, a.attention_kernel),
            _ => {
                return Err(ApiError(format!(
                    "unknown attention '{name}': use flash, cudnn, fa3, fa2, fa1, triton or materialized"
                )))
            }
        };
        a.flash_attention = flash;
        a.attention_kernel = kernel;
    }
    if let Some(o) = r.overlap_tensor {
        a.overlap_tensor = o;
    }
    if let Some(name) = &r.cross_entropy {
        a.cross_entropy = crate::cost::assumptions::CrossEntropy::parse(name).map_err(|_| {
            ApiError(format!(
                "unknown cross_entropy '{name}': use vocab-parallel, eager, compiled, fused-linear or logits"
            ))
        })?;
    }
    if let Some(name) = &r.activation_layout {
        a.batch_first_layout = match name.trim().to_ascii_lowercase().as_str() {
            "batch-first" => true,
            "tokens" => false,
            _ => {
                return Err(ApiError(format!(
                    "unknown activation_layout '{name}': use batch-first or tokens"
                )))
            }
        };
    }
    // Knobs the page cannot set: their parsing stays out of the page.
    #[cfg(feature = "knobs")]
    if let Some(e) = r.checkpoint_early_stop {
        a.checkpoint_early_stop = e;
    }
    #[cfg(feature = "knobs")]
    if let Some(name) = &r.context_exchange {
        use crate::cost::context::ContextExchange;
        a.context_exchange = ContextExchange::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| {
                ApiError(format!(
                    "unknown context_exchange '{name}': use ring or allgather"
                ))
            })?;
    }
    #[cfg(feature = "knobs")]
    if let Some(r) = r.repeat_kv {
        a.repeat_kv = r;
    }
    #[cfg(feature = "knobs")]
    if let Some(name) = &r.norm_kernel {
        a.unfused_norm = match name.trim().to_ascii_lowercase().as_str() {
            "fused" => false,
            "unfused" => true,
            _ => {
                return Err(ApiError(format!(
                    "unknown norm_kernel '{name}': use fused or unfused"
                )))
            }
        };
    }
    if let Some(o) = r.overlap_data {
        a.overlap_data = o;
    }
    if let Some(o) = &r.optimizer {
        a.precision = Precision::parse(o).map_err(|_| {
            ApiError(format!(
                "unknown optimizer '{o}': use mixed-adam, fp32-adam, adam-8bit or sgd-momentum"
            ))
        })?;
    }
    Ok(a)
}

pub(super) fn method(name: &str) -> Result<Method, ApiError> {
    Method::parse(name)
        .map_err(|_| unknown_name("method", name, Method::ALL.iter().map(|m| m.name()), ""))
}

pub(super) fn parallelism(name: &str) -> Result<Parallelism, ApiError> {
    Parallelism::parse(name).map_err(|e| naming(e, name))
}

/// The constraints a [`ConstraintsRequest`] names.
///
/// # Errors
///
/// An unknown activation model (the search checks the values).
pub fn constraints_of(r: &ConstraintsRequest) -> Result<Constraints, ApiError> {
    Ok(Constraints {
        max_gpus: r.max_gpus,
        exact_gpus: r.gpus,
        tensor: r.tensor,
        batch: r.batch,
        target_days: r.target_days,
        min_efficiency: r.min_efficiency,
        activation: activation(&r.activations)?,
        cheapest: r.cheapest,
        ..Constraints::default()
    })
}

/// The recomputation a practice request fixes: `recompute`, or the
/// constraints' activation model where it names one (`full`, `selective`,
/// `none`; `paper` leaves it to the search). Both, differing, is an error.
pub(super) fn recomputation(
    recompute_name: Option<&str>,
    activations: ActivationModel,
) -> Result<Option<ActivationModel>, ApiError> {
    let from_activations = (activations != ActivationModel::Paper).then_some(activations);
    match (recompute_name.map(recompute).transpose()?, from_activations) {
        (Some(r), Some(a)) if r != a => Err(ApiError(format!(
            "recompute {} contradicts activations {}: give one of them",
            r.name(),
            a.name()
        ))),
        (r, a) => Ok(r.or(a)),
    }
}

/// The method and the default ZeRO stage of an `evaluate` request. No
/// method and no stage named: the framework's own sharding
/// ([`crate::cost::framework::Framework::sharding`]: FSDP shards
/// everything, DDP nothing); a stage alone picks the method that admits
/// it; an explicit method keeps practice's stage 1 (none under DDP's
/// baseline, none in the paper setting).
pub(super) fn sharding(
    method_name: &str,
    zero: Option<Zero>,
    framework: crate::cost::framework::Framework,
    practice: bool,
) -> Result<(Method, Zero), ApiError> {
    if !method_name.is_empty() {
        let m = method(method_name)?;
        let ddp = framework.sharding() == (Method::Baseline, Zero::None);
        let z = if !practice || (ddp && m == Method::Baseline) {
            Zero::None
        } else {
            Zero::One
        };
        return Ok((m, z));
    }
    Ok(match zero {
        _ if !practice => (Method::Baseline, Zero::None),
        Some(z) if z.stage() == 3 => (Method::Partitioned, z),
        Some(z) => (Method::Baseline, z),
        None => framework.sharding(),
    })
}

/// The configuration a report describes, exactly: every field of
/// [`Config`] is in [`EvaluationReport`] by name.
pub(super) fn config_of(e: &EvaluationReport) -> Result<Config, ApiError> {
    Ok(Config {
        method: method(&e.method)?,
        data: e.data,
        pipe: e.pipe,
        tensor: e.tensor,
        micro_batch: e.micro_batch,
        micro_batches: e.micro_batches,
        offload: e.offload,
        activation: activation(&e.recompute)?,
        virtual_stages: e.virtual_stages,
        // The report gives the group in use; the default's is 0.
        microbatch_group: if e.microbatch_group
            == crate::cost::step::microbatch_group(&Config {
                pipe: e.pipe,
                micro_batches: e.micro_batches,
                virtual_stages: e.virtual_stages,
                ..Config::default()
            }) {
            0
        } else {
            e.microbatch_group
        },
        sequence_parallel: e.sequence_parallel,
        zero: zero_stage(&e.zero)?,
        pipeline_schedule: pipeline_schedule(&e.pipeline_schedule)?,
        zero_r: zero_r(&e.zero_r)?,
        context: e.context_parallel,
        expert: e.expert_parallel,
        expert_tensor: if e.expert_tensor_parallel == e.tensor {
            0
        } else {
            e.expert_tensor_parallel
        },
        embedding_layers: e.embedding_layers,
        head_layers: e.head_layers,
        recompute_layers: e.recompute_layers,
        offload_layers: e.offload_layers,
        recompute_modules: if e.recompute == "selective" {
            modules(&e.recompute_modules)?
        } else {
            crate::cost::saved::Modules(0)
        },
        offload_modules: offload_modules(&e.offload_modules)?,
    })
}

/// Megatron-Core's `--offload-modules`, comma-separated.
pub(super) fn offload_modules(
    list: &str,
) -> Result<crate::cost::offload::OffloadModules, ApiError> {
    crate::cost::offload::OffloadModules::parse(list).map_err(|_| {
        ApiError(format!(
            "unknown offload module in '{list}': use attn_norm, qkv_linear, core_attn, attn_proj, mlp_norm, expert_fc1 or moe_act"
        ))
    })
}

/// Megatron-Core's `--recompute-modules`, comma-separated.
pub(super) fn modules(list: &str) -> Result<crate::cost::saved::Modules, ApiError> {
    crate::cost::saved::Modules::parse(list).map_err(|_| {
        ApiError(format!(
            "unknown recompute module in '{list}': use core_attn, layernorm, mlp, moe, moe_act, shared_experts or mla_up_proj"
        ))
    })
}
