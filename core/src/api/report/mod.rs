//! What plan3d answers: one plain struct per answer, in the units and with
//! the field names of the CLI's `--json` output, the page's JSON exports
//! and the JavaScript API. The field tables of `docs/cli.md` document these types;
//! with the `schema` feature they also give the JSON schema.
//!
//! Every quantity is a plain number in the unit its name or doc says:
//! bytes, bytes/s, flop, flop/s, days, seconds or a fraction.
//!
//! The public schema, read top to bottom beside `docs/cli.md`'s tables:
//! this file (a model, a GPU and its links), `evaluation.rs` (one
//! configuration: memory, step, kernels, transfers), `plan.rs` (searches,
//! the Pareto front, sweeps), `schedule.rs` (simulated timelines) and
//! `run.rs` (ZeRO, PTD-P's estimate, the whole run). Every type is
//! re-exported here, so `api::report::X` names each.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::cost::Evaluation;
use crate::hardware::{Hardware, Link};
use crate::model::ModelShape;
use crate::schedule::{Event, Schedule};
use crate::search::{Plan, SearchResult, SweepRow};

mod evaluation;
mod plan;
mod run;
mod schedule;

pub use evaluation::*;
pub use plan::*;
pub use run::*;
pub use schedule::*;

/// `plan3d model`: a shape, its parameter counts and critical batch.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ModelReport {
    /// Sequence length d_s, tokens.
    pub seq_len: u32,
    /// Attention heads d_a.
    pub heads: u32,
    /// Head size d_h.
    pub head_size: u32,
    /// Key/value heads (= heads unless grouped-query).
    pub kv_heads: u32,
    /// Width d_m = d_a · d_h.
    pub d_model: u64,
    /// Feed-forward size d_I.
    pub ffn: u32,
    /// Layers d_l.
    pub layers: u32,
    /// p = p_l · d_l, the count every formula uses (12 x⁵ for X\[x\]).
    pub params: f64,
    /// With biases, norms and, given a vocabulary, embeddings.
    pub params_exact: f64,
    /// b_c = 573 p^{1/3} / d_s in sequences (eq. 2), not rounded.
    pub critical_batch: f64,
    /// Parameters a token passes through (= `params` for a dense model;
    /// attention, router, shared and top-k experts of a mixture).
    pub active_params: f64,
    /// The routed experts, for a mixture of experts.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub experts: Option<crate::model::Experts>,
    /// Multi-head latent attention's projections, when the model uses it.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub latent: Option<crate::model::Latent>,
}

impl From<&ModelShape> for ModelReport {
    fn from(m: &ModelShape) -> Self {
        Self {
            seq_len: m.seq_len,
            heads: m.heads,
            head_size: m.head_size,
            kv_heads: m.kv_heads,
            d_model: m.width(),
            ffn: m.ffn,
            layers: m.layers,
            params: m.params(),
            params_exact: m.params_exact(),
            critical_batch: m.critical_batch(),
            active_params: m.active_params(),
            experts: m.experts,
            latent: m.latent,
        }
    }
}

/// A link's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LinkReport {
    /// Input + output bandwidth, bytes/s.
    pub bandwidth: f64,
    /// Arithmetic-intensity threshold peak / bandwidth, flop/B (Table A.1).
    pub threshold: f64,
}

/// Every link of a GPU, by its key.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LinksReport {
    /// GPU memory.
    #[cfg_attr(feature = "serde", serde(rename = "gpu-memory"))]
    pub gpu_memory: LinkReport,
    /// NVLink within the node.
    pub nvlink: LinkReport,
    /// The GPU's PCIe link.
    pub pcie: LinkReport,
    /// InfiniBand (or the network preset chosen).
    pub infiniband: LinkReport,
    /// CPU-GPU.
    #[cfg_attr(feature = "serde", serde(rename = "cpu-gpu"))]
    pub cpu_gpu: LinkReport,
    /// Ethernet 25 Gb/s.
    pub ethernet: LinkReport,
    /// NVMe.
    pub nvme: LinkReport,
    /// A hard drive.
    pub hdd: LinkReport,
}

/// `plan3d hardware`: a GPU and its links.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HardwareReport {
    /// The GPU preset.
    pub gpu: String,
    /// Dense half-precision peak, flop/s.
    pub peak_flops: f64,
    /// GPU memory, bytes.
    pub memory_bytes: f64,
    /// NVLink domain size in GPUs; null for no limit.
    pub node_size: Option<u32>,
    /// Network of the data and pipeline dimensions.
    pub network: String,
    /// Every link.
    pub links: LinksReport,
}

impl From<&Hardware> for HardwareReport {
    fn from(hw: &Hardware) -> Self {
        let l = |link: Link| LinkReport {
            bandwidth: hw.bandwidth(link).get(),
            threshold: hw.threshold(link).get(),
        };
        Self {
            gpu: hw.gpu.name.to_string(),
            peak_flops: hw.gpu.peak.get(),
            memory_bytes: hw.gpu.memory.get(),
            node_size: hw.node_size,
            network: hw.network.name().to_string(),
            links: LinksReport {
                gpu_memory: l(Link::GpuMemory),
                nvlink: l(Link::NvLink),
                pcie: l(Link::Pcie),
                infiniband: l(Link::InfiniBand),
                cpu_gpu: l(Link::CpuGpu),
                ethernet: l(Link::Ethernet),
                nvme: l(Link::Nvme),
                hdd: l(Link::Hdd),
            },
        }
    }
}

/// `true`, the default of report fields that older reports lack.
#[cfg(feature = "serde")]
pub(crate) fn yes() -> bool {
    true
}
