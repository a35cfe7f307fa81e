//! All of the cost of one configuration: [`evaluate`].

use crate::cost::assumptions::{AssumptionSet, Assumptions, Timing};
use crate::cost::comm::{data_transfers, Transfer, TransferKind, Transfers};
use crate::cost::config::{validate, Config};
use crate::cost::memory::Stages;
use crate::cost::memory::{memory_unchecked, MemoryBreakdown};
use crate::cost::overheads::{bubble, head_imbalance, imbalance, Overheads};
use crate::cost::step::{self, step_time, StepTime};
use crate::cost::work;
use crate::error::Error;
use crate::hardware::{Hardware, Link};
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::units::{Bytes, Flop, Seconds};

/// Everything plan3d knows about one configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    /// The configuration evaluated.
    pub config: Config,
    /// Batch b in sequences.
    pub batch: u64,
    /// GPUs n_gpu.
    pub gpus: u64,
    /// Critical batch size b_c (eq. 2).
    pub critical_batch: f64,
    /// Memory per GPU.
    pub memory: MemoryBreakdown,
    /// Does what stays on the GPU fit in its memory?
    pub fits: bool,
    /// The transfers and their intensities.
    pub transfers: Transfers,
    /// The overheads.
    pub overheads: Overheads,
    /// Fraction of peak reached, kernel efficiency included.
    pub efficiency: f64,
    /// Work of one step on one GPU (C.1: 8·b·d_s·p / n_gpu).
    pub flops_per_gpu_step: Flop,
    /// Steps to train: 10⁵ at the critical batch, proportionally more below
    /// it (sec. 2.1), never fewer above it.
    pub steps: f64,
    /// Work of the whole training run.
    pub total_flops: Flop,
    /// Training time.
    pub time: Seconds,
    /// The named setting of the knobs evaluated with.
    pub assumptions: AssumptionSet,
    /// Every knob evaluated with (the named setting's, the framework's
    /// preset, the flags over it): what a plan's simulated schedule times,
    /// so that it runs the step the headline states.
    pub knobs: Assumptions,
    /// One training step.
    pub step: Seconds,
    /// Tokens trained per second, b·d_s/step.
    pub tokens_per_second: f64,
    /// Training tokens of the run.
    pub tokens: f64,
    /// Model flops of a step (the MFU count: 6 per token and parameter for
    /// the paper's weight-matrix work; every GEMM, 3 × forward, without
    /// recomputation, for practice).
    pub model_flops_per_step: Flop,
    /// Every flop a step computes, recomputation included (HFU count).
    pub hardware_flops_per_step: Flop,
    /// Memory of each distinct pipeline device (one for the paper's
    /// uniform model).
    pub stages: Stages,
    /// Memory of the heaviest device: what [`Self::fits`] compares.
    pub peak_memory: Bytes,
    /// The step's time in parts (practice timing only).
    pub step_parts: Option<StepTime>,
}

/// Evaluates a configuration: memory, transfers, overheads, efficiency and
/// training time.
///
/// # Errors
///
/// An invalid shape or hardware, a zero or absurd degree, a pipeline deeper
/// than the model, a tensor degree above the heads or the node size, or a
/// modular pipeline with fewer micro-batches than stages.
///
/// # Examples
///
/// Table 6.1's fastest configuration for X160 (3d, improved):
///
/// ```
/// use plan3d_core::{evaluate, model::x_family, Config, Hardware, Method};
/// let cfg = Config { method: Method::Improved, data: 483, pipe: 5, tensor: 16,
///                    micro_batch: 1, micro_batches: 5, ..Config::default() };
/// let e = evaluate(&x_family(160)?, &Hardware::default(), &cfg)?;
/// assert_eq!(e.gpus, 38_640);
/// assert!((e.efficiency - 0.88).abs() < 0.005);
/// assert!((e.time.days() - 6.8).abs() < 0.05);
/// # Ok::<(), plan3d_core::Error>(())
/// ```
pub fn evaluate(model: &ModelShape, hw: &Hardware, cfg: &Config) -> Result<Evaluation, Error> {
    evaluate_with(model, hw, cfg, &Assumptions::PAPER)
}

/// Evaluates a configuration under the knobs `a`: [`Assumptions::PAPER`]
/// is [`evaluate`]; [`Assumptions::PRACTICE`] times a step in seconds
/// ([`crate::cost::step`]) and holds each pipeline device's memory
/// ([`crate::cost::memory::stage_memory`]).
///
/// # Errors
///
/// As [`evaluate`]; with the practice timing also a tensor degree that
/// does not divide the heads and the key/value heads (Megatron-Core and
/// torchtitan shard whole heads), and a token budget that is not finite
/// and positive.
///
/// # Examples
///
/// GPT-3 175B on 128 H100s as NVIDIA's DGX Cloud recipe runs it (8.309 s
/// per step and 53.5 % MFU measured; plan3d says 8.32 s and 53.6 %):
///
/// ```
/// use plan3d_core::cost::{evaluate_with, Assumptions, Zero};
/// use plan3d_core::{hardware, model, ActivationModel, Config, Hardware, Network};
/// let hw = Hardware { gpu: hardware::H100_SXM, node_size: Some(8),
///                     network: Network::InfiniBand400, ..Hardware::default() };
/// let cfg = Config { data: 4, pipe: 8, tensor: 4, virtual_stages: 12,
///                    micro_batch: 1, micro_batches: 64, sequence_parallel: true,
///                    zero: Zero::One, activation: ActivationModel::None,
///                    ..Config::default() };
/// let gpt3 = model::ModelShape { vocab: Some(51_200), ..model::GPT_3 };
/// // The recipe reduces gradients in bf16 (`grad_sync_dtype: bf16`).
/// let a = Assumptions { gradient_reduce_bytes: 2.0, ..Assumptions::PRACTICE };
/// let e = evaluate_with(&gpt3, &hw, &cfg, &a)?;
/// assert!((e.step.0 / 8.309 - 1.0).abs() < 0.02);
/// assert!((e.mfu() - 0.535).abs() < 0.01);
/// assert!(e.fits);
/// # Ok::<(), plan3d_core::Error>(())
/// ```
pub fn evaluate_with(
    model: &ModelShape,
    hw: &Hardware,
    cfg: &Config,
    a: &Assumptions,
) -> Result<Evaluation, Error> {
    evaluate_staged(model, hw, cfg, a, None, None)
}

/// [`evaluate_with`], given the configuration's [`Stages`] when the caller
/// has them already (the practice search checks memory first).
pub(crate) fn evaluate_staged(
    model: &ModelShape,
    hw: &Hardware,
    cfg: &Config,
    a: &Assumptions,
    stages: Option<Stages>,
    shaped: Option<Option<step::Shaped>>,
) -> Result<Evaluation, Error> {
    validate(model, hw, cfg)?;
    if let Some(what) = crate::cost::assumptions::format_refusal(a.compute, &hw.gpu) {
        return Err(Error::Incompatible { what });
    }
    match a.timing {
        Timing::Intensity if cfg.context > 1 => Err(Error::Incompatible {
            what: "context parallelism is a practice knob: the paper's model has none",
        }),
        Timing::Intensity
            if matches!(
                cfg.pipeline_schedule,
                crate::cost::PipelineSchedule::ZbH1
                    | crate::cost::PipelineSchedule::DualPipe
                    | crate::cost::PipelineSchedule::ZbV
            ) =>
        {
            Err(Error::Incompatible {
                what: "ZB-H1, DualPipe and ZB-V are practice schedules: the paper's model has 1F1B, GPipe and the modular pipeline",
            })
        }
        Timing::Intensity if model.experts.is_some() || model.latent.is_some() => {
            Err(Error::Incompatible {
                what: "the paper's model is dense with multi-head attention: mixtures of experts and latent attention are practice models (--assumptions practice)",
            })
        }
        Timing::Intensity => Ok(by_intensity(model, hw, cfg, a)),
        Timing::Seconds => by_seconds(model, hw, cfg, a, stages, shaped),
    }
}

/// Why practice refuses a tensor degree that does not divide the node: it
/// times tensor parallelism on NVLink, and a group (consecutive ranks,
/// Megatron's order) that does not divide it straddles two nodes. The
/// paper only bounds the degree by the node (sec. 7). The practice search
/// and the API's `evaluate` refuse it.
pub const TENSOR_SPANS_NODES: &str = "the tensor-parallel degree must divide the GPUs per node";

/// The paper's evaluation (eq. 3 intensities, MODEL_NOTES fact 7).
fn by_intensity(model: &ModelShape, hw: &Hardware, cfg: &Config, a: &Assumptions) -> Evaluation {
    let memory = memory_unchecked(model, cfg);
    let p = model.params();
    let pl = model.layer_params();
    let (nb, nl, na) = (
        f64::from(cfg.data),
        f64::from(cfg.pipe),
        f64::from(cfg.tensor),
    );
    let nmu = f64::from(cfg.micro_batches);
    let ngpu = cfg.gpus() as f64;
    let b = cfg.batch() as f64;
    let (ds, dm, dl) = (
        f64::from(model.seq_len),
        model.width() as f64,
        f64::from(model.layers),
    );
    let f = cfg.activation.flops_per_token_param();
    // Fraction of a step's compute spent in the forward pass.
    let fwd = 2.0 / f;
    let nu_net = hw.network_threshold();
    let net = hw.network_link();
    let layered = cfg.method.layered();
    let partitioned = cfg.method.partitioned();

    let mut transfers = Transfers::default();
    let mut o = Overheads {
        bubble: bubble(layered, nl, nmu, dl),
        imbalance: (1.0 + imbalance(nl, dl)) * (1.0 + head_imbalance(model, cfg.tensor)) - 1.0,
        ..Overheads::default()
    };

    // Tensor parallelism, C.4.3 eq. 12: ν_a = (4+2n_I)d_m / (3(n_a−1)) with
    // six all-reduces; (f/8)·(6/n_ar) of that with n_ar all-reduces.
    if cfg.tensor > 1 {
        let nu_a = f * pl / (4.0 * cfg.activation.tensor_allreduces() * dm * (na - 1.0));
        let t = Transfer::exposed(
            TransferKind::Tensor,
            Link::NvLink,
            "eq. 12",
            nu_a,
            hw.threshold(Link::NvLink),
        );
        o.tensor = t.overhead;
        transfers.push(t);
    }

    // Data parallelism, C.4.1. `overlapped_net` collects the overlapped
    // network intensities that share the PCIe link with offload (fact 10).
    let mut overlapped_net = 0.0_f64;
    if cfg.data > 1 {
        // The governing transfer (eq. 5, 7, 8 or 9) is the one fact 10 adds
        // to the PCIe load.
        let (governing, backward) = data_transfers(cfg.method, cfg.pipe, f, b / nb, nmu, ds, hw);
        for (t, gov) in [(Some(governing), true), (backward, false)] {
            let Some(t) = t else { continue };
            o.data += t.overhead;
            if t.overlapped && gov {
                overlapped_net += 1.0 / t.intensity.0;
            }
            transfers.push(t);
        }
    }

    // Pipeline transfers, C.4.2 eqs. 10–11 and MODEL_NOTES fact 8.
    if cfg.pipe > 1 {
        let nu_l = if layered {
            pl / (2.0 * dm)
        } else {
            pl * dl / (2.0 * dm * nl)
        };
        // Fact 8: with n_µ ≥ n_l·(1 + ν_net/ν_l) the spare micro-batches
        // absorb the transfers, whatever the ratio: no phase is stretched.
        let t = if nmu >= nl * (1.0 + nu_net.0 / nu_l) {
            overlapped_net += 1.0 / nu_l;
            Transfer::overlapped(
                TransferKind::Pipeline,
                net,
                if layered { "eq. 11" } else { "eq. 10" },
                nu_l,
                nu_net,
                0.0,
            )
        } else {
            Transfer::exposed(
                TransferKind::Pipeline,
                net,
                if layered { "eq. 11" } else { "eq. 10" },
                nu_l,
                nu_net,
            )
        };
        o.pipeline = t.overhead;
        transfers.push(t);
    }

    // Offload, C.5 eqs. 13–14, sharing PCIe with the network (fact 10).
    if cfg.offload {
        let nu_s = match (layered, partitioned) {
            (false, false) => b * ds / (nmu * nb),
            (false, true) => b * ds / nmu,
            (true, false) => b * ds / nb,
            (true, true) => b * ds,
        };
        let nu_c = pl / dm;
        let cpu_inv = 1.0 / nu_s
            + if memory.checkpoints.0 > 0.0 {
                1.0 / nu_c
            } else {
                0.0
            };
        let cpu = Transfer::overlapped(
            TransferKind::CpuGpu,
            Link::CpuGpu,
            "eqs. 13–14",
            1.0 / cpu_inv,
            hw.threshold(Link::CpuGpu),
            fwd,
        );
        let pcie = Transfer::overlapped(
            TransferKind::PcieShared,
            Link::Pcie,
            "eqs. 13–14 + network (shared PCIe)",
            1.0 / (cpu_inv + overlapped_net),
            hw.threshold(Link::Pcie),
            fwd,
        );
        o.offload = cpu.overhead.max(pcie.overhead);
        transfers.push(cpu);
        transfers.push(pcie);
    }

    let efficiency = hw.kernel_efficiency * o.efficiency();
    let bc = model.critical_batch();
    let steps = work::steps(bc, b);
    let total_flops = Flop(f * steps * b * ds * p);
    let time = Seconds(total_flops.0 / (ngpu * hw.gpu.peak.0 * efficiency));
    let step = Seconds(time.0 / steps);
    let peak_memory = memory.on_gpu(cfg.offload);
    Evaluation {
        config: *cfg,
        batch: cfg.batch(),
        gpus: cfg.gpus(),
        critical_batch: bc,
        memory,
        fits: peak_memory.0 <= hw.gpu.memory.0,
        transfers,
        overheads: o,
        efficiency,
        flops_per_gpu_step: Flop(f * b * ds * p / ngpu),
        steps,
        total_flops,
        time,
        assumptions: a.set,
        knobs: *a,
        step,
        tokens_per_second: b * ds / step.0,
        tokens: steps * b * ds,
        model_flops_per_step: Flop(work::MODEL_FLOPS_PER_TOKEN_PARAM * b * ds * p),
        hardware_flops_per_step: Flop(f * b * ds * p),
        stages: Stages::uniform(&memory, cfg.offload, model.layers),
        peak_memory,
        step_parts: None,
    }
}

/// The practice evaluation: a step in seconds, memory per pipeline device.
fn by_seconds(
    model: &ModelShape,
    hw: &Hardware,
    cfg: &Config,
    a: &Assumptions,
    stages: Option<Stages>,
    shaped: Option<Option<step::Shaped>>,
) -> Result<Evaluation, Error> {
    for (what, total) in [("heads", model.heads), ("key/value heads", model.kv_heads)] {
        if total % cfg.tensor != 0 {
            return Err(Error::NotDivisible {
                what: "tensor-parallel degree",
                value: cfg.tensor.into(),
                of: what,
                total: total.into(),
            });
        }
    }
    let parts = match shaped {
        Some(shaped) => step::step_time_shaped(model, hw, cfg, a, shaped),
        None => step_time(model, hw, cfg, a),
    };
    let step = Seconds(parts.total());
    let b = cfg.batch() as f64;
    let ds = f64::from(model.seq_len);
    let tokens_per_step = b * ds;
    let tokens = work::tokens(model, a)?;
    let steps = tokens / tokens_per_step;
    let model_flops = step::model_flops_per_token(model, a.work) * tokens_per_step;
    let per_layer = step::layer_forward_flops_per_token(model, a.work)
        * step::passes_of(cfg, model.layers)
        + step::recomputed_flops(model, cfg, a);
    let hardware_flops = (f64::from(model.layers) * per_layer
        + 3.0 * step::logit_forward_flops_per_token(model, a.work))
        * tokens_per_step;
    let ngpu = cfg.gpus() as f64;
    let efficiency = hardware_flops / (ngpu * hw.gpu.peak.0 * step.0);
    let stages = stages.unwrap_or_else(|| Stages::of(model, cfg, a));
    let heavy = stages.heaviest();
    let full = matches!(
        cfg.activation,
        ActivationModel::Full | ActivationModel::Paper
    );
    let memory = MemoryBreakdown {
        state: heavy.weights + heavy.gradients + heavy.optimizer,
        checkpoints: if full { heavy.activations } else { Bytes(0.0) },
        buffers: heavy.reserve + heavy.logits,
        activations: heavy.working + if full { Bytes(0.0) } else { heavy.activations },
    };
    let peak_memory = heavy.total();
    // Overheads as time relative to the compute (GEMMs + element-wise).
    let busy = parts.compute + parts.elementwise;
    let o = Overheads {
        bubble: parts.bubble / busy,
        tensor: parts.tensor / busy,
        data: (parts.data + parts.optimizer) / busy,
        pipeline: parts.pipeline / busy,
        offload: 0.0,
        imbalance: parts.imbalance,
    };
    Ok(Evaluation {
        config: *cfg,
        batch: cfg.batch(),
        gpus: cfg.gpus(),
        critical_batch: model.critical_batch(),
        memory,
        fits: peak_memory.0 <= hw.gpu.memory.0,
        transfers: Transfers::default(),
        overheads: o,
        efficiency,
        flops_per_gpu_step: Flop(hardware_flops / ngpu),
        steps,
        total_flops: Flop(hardware_flops * steps),
        time: Seconds(step.0 * steps),
        assumptions: a.set,
        knobs: *a,
        step,
        tokens_per_second: tokens_per_step / step.0,
        tokens,
        model_flops_per_step: Flop(model_flops),
        hardware_flops_per_step: Flop(hardware_flops),
        stages,
        peak_memory,
        step_parts: Some(parts),
    })
}
