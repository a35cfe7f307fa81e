//! The cost of one training configuration: memory (C.3), the arithmetic
//! intensity of every transfer (C.4, C.5), the overheads, efficiency and
//! training time (sec. 5, MODEL_NOTES facts 6–10).
//!
//! # How efficiency composes (MODEL_NOTES fact 7)
//!
//! Efficiency is `kernel_efficiency × Π 1/(1 + overhead)` over:
//!
//! * the pipeline bubble: (n_l−1)/n_µ for a standard pipeline,
//!   (n_l−1)·n_l/(n_µ·d_l) for the modular one (sec. 4);
//! * tensor parallelism, never overlapped: ν_NVLink/ν_a (eq. 12);
//! * the data-parallel reduction: exposed for the baseline with a pipeline
//!   (ν_net/ν, eq. 6), otherwise overlapped (eqs. 5, 7–9);
//! * pipeline transfers, exposed unless n_µ ≥ n_l·(1 + ν_net/ν_l)
//!   (fact 8; eqs. 10–11);
//! * CPU-GPU transfers when offloading, sharing the PCIe link with the
//!   overlapped network traffic (eqs. 13–14, fact 10);
//! * load imbalance when n_l does not divide d_l, or n_a the heads.
//!
//! An overlapped transfer costs nothing while its intensity is at or above
//! the link's threshold (eq. 3). plan3d goes beyond the paper for
//! configurations that break that bound: the phase the transfer overlaps
//! (a fraction w of the step's compute) then lasts as long as the transfer
//! (sec. 2.3: "the runtime is determined by the slowest of the
//! operations"), an overhead of w·(ν_net/ν − 1). Configurations the paper's
//! rules select never pay it.

use crate::error::{check_count, Error};
use crate::hardware::{Hardware, Link};
use crate::math;
use crate::memory::{ActivationModel, MemoryBreakdown};
use crate::model::ModelShape;
use crate::units::{Bytes, Flop, Intensity, Seconds};

/// Training steps at the critical batch size (sec. 6; MODEL_NOTES fact 6).
pub const TRAINING_STEPS: f64 = 1e5;
/// Largest degree or count accepted for any one dimension.
pub const MAX_DEGREE: u64 = 1 << 24;
/// Largest GPU count accepted.
pub const MAX_GPUS: u64 = 1 << 32;

/// A training method (sec. 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Method {
    /// Standard data and pipeline parallelism, state not partitioned.
    #[default]
    Baseline,
    /// As the baseline, with the training state partitioned over the
    /// data-parallel devices (ZeRO stage 3).
    Partitioned,
    /// Layered gradient accumulation and the modular pipeline, state
    /// partitioned (secs. 3–4).
    Improved,
    /// Layered gradient accumulation and the modular pipeline, state not
    /// partitioned (the "no partition" line of fig. 8).
    ImprovedUnpartitioned,
}

impl Method {
    /// Every method.
    pub const ALL: [Self; 4] = [
        Self::Baseline,
        Self::Partitioned,
        Self::Improved,
        Self::ImprovedUnpartitioned,
    ];

    /// Layered gradient accumulation and the modular pipeline?
    #[must_use]
    pub fn layered(self) -> bool {
        matches!(self, Self::Improved | Self::ImprovedUnpartitioned)
    }

    /// Training state partitioned over the data-parallel devices?
    #[must_use]
    pub fn partitioned(self) -> bool {
        matches!(self, Self::Partitioned | Self::Improved)
    }

    /// Stable name, as used by the CLI and URLs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Baseline => "baseline",
            Self::Partitioned => "partitioned",
            Self::Improved => "improved",
            Self::ImprovedUnpartitioned => "improved-unpartitioned",
        }
    }

    /// Parses [`Method::name`], case-insensitive.
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(Error::Unknown { what: "method" })
    }
}

/// A training configuration: degrees n_b, n_l, n_a, micro-batch b_µ,
/// micro-batch count n_µ, offload. The batch is b = n_b · n_µ · b_µ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Method.
    pub method: Method,
    /// Data-parallel degree n_b.
    pub data: u32,
    /// Pipeline-parallel degree n_l.
    pub pipe: u32,
    /// Tensor-parallel degree n_a.
    pub tensor: u32,
    /// Micro-batch size b_µ, in sequences.
    pub micro_batch: u32,
    /// Micro-batches per batch and data-parallel instance, n_µ.
    pub micro_batches: u32,
    /// Offload the training state and checkpoints to CPU memory.
    pub offload: bool,
    /// How activations are kept.
    pub activation: ActivationModel,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            method: Method::Baseline,
            data: 1,
            pipe: 1,
            tensor: 1,
            micro_batch: 1,
            micro_batches: 1,
            offload: false,
            activation: ActivationModel::Paper,
        }
    }
}

impl Config {
    /// Batch size b = n_b · n_µ · b_µ, in sequences.
    #[must_use]
    pub fn batch(&self) -> u64 {
        u64::from(self.data) * u64::from(self.micro_batches) * u64::from(self.micro_batch)
    }

    /// GPU count n_gpu = n_b · n_l · n_a.
    #[must_use]
    pub fn gpus(&self) -> u64 {
        u64::from(self.data) * u64::from(self.pipe) * u64::from(self.tensor)
    }
}

/// What a transfer moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransferKind {
    /// Data-parallel traffic overlapped with the forward pass (parameter
    /// restores of a partitioned state).
    DataForward,
    /// Data-parallel traffic overlapped with the backward pass (gradient
    /// reduction, and restores when partitioned).
    DataBackward,
    /// The data-parallel gradient reduction, not overlapped (eq. 6).
    DataExposed,
    /// Activations between pipeline stages.
    Pipeline,
    /// Tensor-parallel all-reduces over NVLink.
    Tensor,
    /// State and checkpoint offload to CPU memory.
    CpuGpu,
    /// Everything that crosses the GPU's PCIe link while offloading.
    PcieShared,
}

impl TransferKind {
    /// Stable key, as used in the CLI's JSON.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Self::DataForward => "data-forward",
            Self::DataBackward => "data-backward",
            Self::DataExposed => "data-exposed",
            Self::Pipeline => "pipeline",
            Self::Tensor => "tensor",
            Self::CpuGpu => "cpu-gpu",
            Self::PcieShared => "pcie-shared",
        }
    }
}

/// One transfer of a configuration against the link it uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transfer {
    /// What moves.
    pub kind: TransferKind,
    /// The link.
    pub link: Link,
    /// The equation the intensity comes from.
    pub equation: &'static str,
    /// The operation's arithmetic intensity ν_op (flop per byte moved).
    pub intensity: Intensity,
    /// The link's threshold ν_net (Table A.1).
    pub threshold: Intensity,
    /// Overlapped with computation?
    pub overlapped: bool,
    /// Fraction of the step's compute it overlaps (0 when exposed).
    pub window: f64,
    /// The relative time it adds to a step.
    pub overhead: f64,
}

impl Transfer {
    fn overlapped(
        kind: TransferKind,
        link: Link,
        equation: &'static str,
        intensity: f64,
        threshold: Intensity,
        window: f64,
    ) -> Self {
        let excess = threshold.0 / intensity - 1.0;
        Self {
            kind,
            link,
            equation,
            intensity: Intensity(intensity),
            threshold,
            overlapped: true,
            window,
            overhead: if excess > 0.0 { window * excess } else { 0.0 },
        }
    }

    fn exposed(
        kind: TransferKind,
        link: Link,
        equation: &'static str,
        intensity: f64,
        threshold: Intensity,
    ) -> Self {
        Self {
            kind,
            link,
            equation,
            intensity: Intensity(intensity),
            threshold,
            overlapped: false,
            window: 0.0,
            overhead: threshold.0 / intensity,
        }
    }

    /// Is the transfer hidden behind computation: overlapped and costing
    /// nothing (eq. 3, or for pipeline transfers the spare micro-batches of
    /// MODEL_NOTES fact 8)?
    #[must_use]
    pub fn hidden(&self) -> bool {
        self.overlapped && self.overhead <= 0.0
    }
}

/// The transfers of a configuration; a fixed-capacity list, so no `alloc`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transfers {
    items: [Option<Transfer>; 8],
    len: usize,
}

impl Transfers {
    fn push(&mut self, t: Transfer) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = Some(t);
            self.len += 1;
        }
    }

    /// The transfers, in a fixed order.
    pub fn iter(&self) -> impl Iterator<Item = &Transfer> + '_ {
        self.items.iter().flatten()
    }

    /// The transfer of a kind, if the configuration has one.
    #[must_use]
    pub fn get(&self, kind: TransferKind) -> Option<&Transfer> {
        self.iter().find(|t| t.kind == kind)
    }
}

/// The overheads of a configuration, each relative to the step's compute.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Overheads {
    /// Pipeline bubble (sec. 2.4, sec. 4).
    pub bubble: f64,
    /// Tensor-parallel all-reduces (eq. 12).
    pub tensor: f64,
    /// Data-parallel traffic (eqs. 5–9).
    pub data: f64,
    /// Pipeline transfers (eqs. 10–11).
    pub pipeline: f64,
    /// CPU-GPU offload transfers (eqs. 13–14).
    pub offload: f64,
    /// Load imbalance: ⌈d_l/n_l⌉·n_l/d_l − 1 for the pipeline, composed
    /// with an uneven split of the heads over the tensor devices.
    pub imbalance: f64,
}

impl Overheads {
    /// The overheads as `(key, value)` pairs.
    #[must_use]
    pub fn entries(&self) -> [(&'static str, f64); 6] {
        [
            ("bubble", self.bubble),
            ("tensor", self.tensor),
            ("data", self.data),
            ("pipeline", self.pipeline),
            ("offload", self.offload),
            ("imbalance", self.imbalance),
        ]
    }

    /// Π 1/(1 + overhead) (MODEL_NOTES fact 7).
    #[must_use]
    pub fn efficiency(&self) -> f64 {
        self.entries()
            .iter()
            .map(|(_, o)| 1.0 / (1.0 + o))
            .product()
    }
}

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
}

/// Pipeline bubble overhead: (n_l−1)/n_µ for a standard pipeline (sec. 2.4),
/// (n_l−1)·n_l/(n_µ·d_l) for the modular one (sec. 4). `micro_batches` may
/// be fractional (the search uses it as a bound).
#[must_use]
pub(crate) fn bubble(layered: bool, pipe: f64, micro_batches: f64, layers: f64) -> f64 {
    if pipe <= 1.0 {
        0.0
    } else if layered {
        (pipe - 1.0) * pipe / (micro_batches * layers)
    } else {
        (pipe - 1.0) / micro_batches
    }
}

/// Load imbalance when n_l does not divide d_l: ⌈d_l/n_l⌉·n_l/d_l − 1.
#[must_use]
pub(crate) fn imbalance(pipe: f64, layers: f64) -> f64 {
    math::ceil(layers / pipe) * pipe / layers - 1.0
}

/// Load imbalance when n_a does not divide the heads: the busiest device
/// holds ⌈d_a/n_a⌉ heads, which slows the attention projections (their
/// share of the layer's weights) by ⌈d_a/n_a⌉·n_a/d_a. The feed-forward
/// block splits evenly. Beyond the paper, which treats n_a as continuous.
#[must_use]
pub(crate) fn head_imbalance(model: &ModelShape, tensor: u32) -> f64 {
    let (da, na) = (f64::from(model.heads), f64::from(tensor));
    let dm = model.width() as f64;
    let kv = f64::from(model.kv_heads) * f64::from(model.head_size);
    let attention_share = (2.0 * dm * dm + 2.0 * dm * kv) / model.layer_params();
    (math::ceil(da / na) * na / da - 1.0) * attention_share
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
/// As [`evaluate`].
pub fn memory(model: &ModelShape, hw: &Hardware, cfg: &Config) -> Result<MemoryBreakdown, Error> {
    validate(model, hw, cfg)?;
    Ok(memory_unchecked(model, cfg))
}

fn memory_unchecked(model: &ModelShape, cfg: &Config) -> MemoryBreakdown {
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

fn validate(model: &ModelShape, hw: &Hardware, cfg: &Config) -> Result<(), Error> {
    model.validate()?;
    hw.validate()?;
    check_count("data-parallel degree", cfg.data.into(), 1, MAX_DEGREE)?;
    check_count(
        "pipeline-parallel degree",
        cfg.pipe.into(),
        1,
        model.layers.into(),
    )?;
    check_count("tensor-parallel degree", cfg.tensor.into(), 1, MAX_DEGREE)?;
    check_count("micro-batch size", cfg.micro_batch.into(), 1, MAX_DEGREE)?;
    check_count("micro-batch count", cfg.micro_batches.into(), 1, MAX_DEGREE)?;
    check_count("GPU count", cfg.gpus(), 1, MAX_GPUS)?;
    check_count("batch", cfg.batch(), 1, MAX_GPUS)?;
    check_count(
        "tensor-parallel degree",
        cfg.tensor.into(),
        1,
        model.heads.into(),
    )?;
    if let Some(node) = hw.node_size {
        if cfg.tensor > node {
            return Err(Error::TensorAboveNode {
                tensor: cfg.tensor,
                node_size: node,
            });
        }
    }
    if cfg.method.layered() && cfg.pipe > 1 && cfg.micro_batches < cfg.pipe {
        return Err(Error::TooFewMicroBatches {
            micro_batches: cfg.micro_batches,
            pipe: cfg.pipe,
        });
    }
    Ok(())
}

/// The data-parallel transfers of C.4.1 for one instance's batch
/// `batch_per_instance` = b/n_b in `micro_batches` = n_µ micro-batches:
/// the governing transfer of the method's equation, and for partitioned
/// methods the backward one.
///
/// * Standard accumulation, unpartitioned: eq. 5, ν = (f−2)·b·d_s/(8·n_b·n_µ),
///   overlapped with the last micro-batch's backward pass; with a pipeline
///   eq. 6, ν = f·b·d_s/(8·n_b), not overlapped.
/// * Layered, unpartitioned: eq. 8, ν = (f−2)·b·d_s/(8·n_b) over the whole
///   backward pass.
/// * Partitioned: restores in the forward pass, ν = b·d_s/(2·n_b·n) (eqs. 7
///   and 9; n = n_µ for standard accumulation, 1 for layered), and restores
///   and reductions in the backward pass, (f−2)·b·d_s/(8·n_b·n).
///
/// Every overhead here falls as n_µ grows with b/n_b/n_µ fixed, or stays:
/// the search relies on that to bound a row of candidates by its largest
/// n_µ.
pub(crate) fn data_transfers(
    method: Method,
    pipe: u32,
    f: f64,
    batch_per_instance: f64,
    micro_batches: f64,
    ds: f64,
    hw: &Hardware,
) -> (Transfer, Option<Transfer>) {
    let (bi, nmu) = (batch_per_instance, micro_batches);
    let (nu_net, net) = (hw.network_threshold(), hw.network_link());
    let (fwd, bwd) = (2.0 / f, (f - 2.0) / f);
    let d = TransferKind::DataBackward;
    match (method.layered(), method.partitioned()) {
        (false, false) if pipe > 1 => {
            let nu = f * bi * ds / 8.0;
            (
                Transfer::exposed(TransferKind::DataExposed, net, "eq. 6", nu, nu_net),
                None,
            )
        }
        (false, false) => {
            let nu = (f - 2.0) * bi * ds / (8.0 * nmu);
            (
                Transfer::overlapped(d, net, "eq. 5", nu, nu_net, bwd / nmu),
                None,
            )
        }
        (true, false) => {
            let nu = (f - 2.0) * bi * ds / 8.0;
            (Transfer::overlapped(d, net, "eq. 8", nu, nu_net, bwd), None)
        }
        (layered, true) => {
            let per = if layered { 1.0 } else { nmu };
            let (eq_f, eq_b) = if layered {
                ("eq. 9", "eq. 9 (backward)")
            } else {
                ("eq. 7", "eq. 7 (backward)")
            };
            let nu_f = bi * ds / (2.0 * per);
            let nu_b = (f - 2.0) * bi * ds / (8.0 * per);
            (
                Transfer::overlapped(TransferKind::DataForward, net, eq_f, nu_f, nu_net, fwd),
                Some(Transfer::overlapped(d, net, eq_b, nu_b, nu_net, bwd)),
            )
        }
    }
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
    validate(model, hw, cfg)?;
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
    let steps = TRAINING_STEPS * (bc / b).max(1.0);
    let total_flops = Flop(f * steps * b * ds * p);
    let time = Seconds(total_flops.0 / (ngpu * hw.gpu.peak.0 * efficiency));
    Ok(Evaluation {
        config: *cfg,
        batch: cfg.batch(),
        gpus: cfg.gpus(),
        critical_batch: bc,
        memory,
        fits: memory.on_gpu(cfg.offload).0 <= hw.gpu.memory.0,
        transfers,
        overheads: o,
        efficiency,
        flops_per_gpu_step: Flop(f * b * ds * p / ngpu),
        steps,
        total_flops,
        time,
    })
}
