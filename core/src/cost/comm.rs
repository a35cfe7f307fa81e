//! Communication: every transfer of a configuration, its arithmetic
//! intensity against the link it uses (eq. 3), and the data-parallel
//! transfers of C.4.1.

use crate::cost::config::Method;
use crate::hardware::{Hardware, Link};
use crate::units::Intensity;

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
    pub(crate) fn overlapped(
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

    pub(crate) fn exposed(
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
    pub(crate) fn push(&mut self, t: Transfer) {
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
