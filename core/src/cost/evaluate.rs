//! All of the cost of one configuration: [`evaluate`].

use crate::cost::comm::{data_transfers, Transfer, TransferKind, Transfers};
use crate::cost::config::{validate, Config};
use crate::cost::memory::{memory_unchecked, MemoryBreakdown};
use crate::cost::overheads::{bubble, head_imbalance, imbalance, Overheads};
use crate::cost::work;
use crate::error::Error;
use crate::hardware::{Hardware, Link};
use crate::model::ModelShape;
use crate::units::{Flop, Seconds};

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
    let steps = work::steps(bc, b);
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
