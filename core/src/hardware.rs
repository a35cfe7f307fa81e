//! GPUs, links and their arithmetic-intensity thresholds (App. A, Table A.1).
//!
//! # Units of the presets
//!
//! Figures the paper quotes are read as it reads them, in GiB and GiB/s
//! (MODEL_NOTES fact 1): the A100 80 GB and 40 GB (memory 80 / 40 GiB,
//! bandwidth 2039 / 1555 GiB/s), NVLink 3 (600), PCIe 4.0 x16 (63),
//! InfiniBand 200 Gb/s (50), the CPU-GPU path (31.5), Ethernet 25 Gb/s
//! (6.25), NVMe (3.2) and a hard drive (0.1). With them the `a100-80gb`
//! preset reproduces the paper's tables exactly.
//!
//! Figures for newer hardware come from vendors' data sheets and are
//! decimal (GB = 1e9 bytes): H100 SXM (80 GiB of HBM3, 3.35 TB/s), Meta's
//! Grand Teton H100 (96 GB of HBM2e, 2.4 TB/s, 500 W), H200
//! (141 GB, 4.8 TB/s), B200 (180 GB, 7.7 TB/s), B300 and GB300 (288 GB,
//! 8 TB/s), NVLink 4 (900 GB/s),
//! NVLink 5 (1800 GB/s), PCIe 5.0 x16 (126 GB/s), InfiniBand 400 Gb/s
//! (100 GB/s) and Ethernet 100 / 400 Gb/s per GPU (25 / 100 GB/s).
//! Every link figure is input + output, as in Table A.1.

use crate::error::{check_count, check_range, Error};
use crate::units::{Bytes, BytesPerSec, FlopPerSec, Intensity};

/// A GPU and the links attached to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gpu {
    /// Preset name (`a100-80gb`, ...).
    pub name: &'static str,
    /// Dense half-precision peak c_gpu.
    pub peak: FlopPerSec,
    /// Memory m_gpu.
    pub memory: Bytes,
    /// Memory bandwidth β_gpu.
    pub memory_bandwidth: BytesPerSec,
    /// NVLink bandwidth to the other GPUs of its node.
    pub nvlink: BytesPerSec,
    /// Its PCI-express link (shared by CPU transfers and the network card).
    pub pcie: BytesPerSec,
    /// Effective CPU-GPU bandwidth: half the PCIe link, since two GPUs
    /// share one CPU link in an HGX node (App. A); half a Grace's memory
    /// bandwidth in a Grace superchip.
    pub cpu_gpu: BytesPerSec,
    /// GPUs per NVLink domain in the usual node.
    pub default_node_size: u32,
}

const fn gib(x: f64) -> f64 {
    x * 1_073_741_824.0
}
const fn gb(x: f64) -> f64 {
    x * 1e9
}

/// The memory CUDA reports (`torch.cuda.get_device_properties().total_memory`,
/// what a process can allocate into, its context included) of a GPU sold
/// as `x` GB: 0.991 of x GiB, the HBM less what the driver keeps. Measured:
/// an H100 80 GB reports 79.18 GiB (0.990: PyTorch's out-of-memory message,
/// `calibration/h100-2026-11-26/oom_*.json`), an H200 141 GB 139.80 GiB
/// (0.9915: `calibration/h200-2026-11-26/shapes.json`), a GB200 186 GB
/// 184.3 GiB (0.991: torchtitan's NVFP4 document, reserved bytes over their
/// percentage, `calibration/published/torchtitan.json`). The H200's
/// 141 GB read as 10⁹ bytes had left it 8.5 GiB short (131.3 GiB), a GB200's
/// 11 GiB: two torchtitan rows that ran reserved more than that. The A100,
/// H100 and H800 keep the paper's 80 GiB, 0.8 GiB over, inside the reserve.
const fn reported(x: f64) -> f64 {
    0.991 * gib(x)
}

/// NVIDIA A100 80 GB, the paper's reference (App. A), in a 16-GPU HGX node.
pub const A100_80GB: Gpu = Gpu {
    name: "a100-80gb",
    peak: FlopPerSec(312e12),
    memory: Bytes(gib(80.0)),
    memory_bandwidth: BytesPerSec(gib(2039.0)),
    nvlink: BytesPerSec(gib(600.0)),
    pcie: BytesPerSec(gib(63.0)),
    cpu_gpu: BytesPerSec(gib(31.5)),
    default_node_size: 16,
};
/// NVIDIA A100 40 GB.
pub const A100_40GB: Gpu = Gpu {
    name: "a100-40gb",
    memory: Bytes(gib(40.0)),
    memory_bandwidth: BytesPerSec(gib(1555.0)),
    ..A100_80GB
};
/// NVIDIA H100 SXM: 989 Tflop/s dense BF16, NVLink 4, PCIe 5, 8 per node.
pub const H100_SXM: Gpu = Gpu {
    name: "h100-sxm",
    peak: FlopPerSec(989e12),
    memory: Bytes(gib(80.0)),
    memory_bandwidth: BytesPerSec(gb(3350.0)),
    nvlink: BytesPerSec(gb(900.0)),
    pcie: BytesPerSec(gb(126.0)),
    cpu_gpu: BytesPerSec(gb(63.0)),
    default_node_size: 8,
};
/// Meta's Grand Teton H100 (the GPU of torchtitan's published H100
/// benchmarks, `calibration/published/torchtitan.json`): the H100 SXM's
/// die with 96 GB of HBM2e at 2.4 TB/s (95.1 GiB as CUDA reports it) and
/// a 500 W power limit, under which a step's kernels hold a lower clock
/// ([`crate::cost::assumptions::H100_500W_SUSTAINED`]).
pub const H100_500W: Gpu = Gpu {
    name: "h100-96gb-500w",
    memory: Bytes(reported(96.0)),
    memory_bandwidth: BytesPerSec(gb(2400.0)),
    ..H100_SXM
};
/// NVIDIA H800 (the H100 SXM for the Chinese market): the H100's compute
/// and memory, NVLink cut to 400 GB/s (DeepSeek-V3, arXiv 2412.19437,
/// sec. 3.1: 8 per node, ~160 GB/s achieved per direction, which the 80 %
/// bus efficiency of `practice` gives).
pub const H800: Gpu = Gpu {
    name: "h800",
    nvlink: BytesPerSec(gb(400.0)),
    ..H100_SXM
};
/// NVIDIA H200: the H100's compute with 141 GB at 4.8 TB/s (139.8 GiB as
/// CUDA reports it).
pub const H200: Gpu = Gpu {
    name: "h200",
    memory: Bytes(reported(141.0)),
    memory_bandwidth: BytesPerSec(gb(4800.0)),
    ..H100_SXM
};
/// NVIDIA B200: 2.25 Pflop/s dense BF16, 180 GB at 7.7 TB/s (178.4 GiB as
/// CUDA reports it), NVLink 5.
pub const B200: Gpu = Gpu {
    name: "b200",
    peak: FlopPerSec(2250e12),
    memory: Bytes(reported(180.0)),
    memory_bandwidth: BytesPerSec(gb(7700.0)),
    nvlink: BytesPerSec(gb(1800.0)),
    pcie: BytesPerSec(gb(126.0)),
    cpu_gpu: BytesPerSec(gb(63.0)),
    default_node_size: 8,
};

/// NVIDIA GB200 in an NVL72 rack: a B200-class GPU (2.5 Pflop/s dense
/// BF16, 186 GB at 8 TB/s) with NVLink 5 across 72 GPUs. Its CPU is a
/// Grace on NVLink-C2C (900 GB/s), not PCIe: two GPUs share the Grace's
/// LPDDR5X, up to 512 GB/s (NVIDIA's GB200 NVL72 and Grace data sheets),
/// so each gets 256 GB/s, where a PCIe 5.0 host gives 63.
pub const GB200: Gpu = Gpu {
    name: "gb200",
    peak: FlopPerSec(2500e12),
    memory: Bytes(reported(186.0)),
    memory_bandwidth: BytesPerSec(gb(8000.0)),
    cpu_gpu: BytesPerSec(GRACE_PER_GPU),
    default_node_size: 72,
    ..B200
};

/// CPU-GPU bandwidth of a Grace superchip's GPU: the Grace's LPDDR5X
/// (512 GB/s) shared by its two GPUs, under NVLink-C2C's 900 GB/s.
const GRACE_PER_GPU: f64 = gb(512.0) / 2.0;

/// NVIDIA B300 (HGX B300, Blackwell Ultra): the B200's 2.25 Pflop/s
/// dense BF16 and 4.5 Pflop/s FP8 (Blackwell Ultra cut FP64 and INT8,
/// not BF16: the DGX B300 data sheet, torchtitan's peak table), 288 GB of
/// HBM3e at 8 TB/s, 160 SMs, NVLink 5 (1.8 TB/s) across 8 GPUs, a
/// ConnectX-8 (800 Gb/s, `infiniband-800`) per GPU. Its PCIe and CPU
/// links are taken as the B200's.
pub const B300: Gpu = Gpu {
    name: "b300",
    memory: Bytes(reported(288.0)),
    memory_bandwidth: BytesPerSec(gb(8000.0)),
    ..B200
};

/// NVIDIA GB300 in an NVL72 rack: the B300's die at 1 400 W, 2.5 Pflop/s
/// dense BF16 (5 FP8), 288 GB at 8 TB/s, NVLink 5 across 72 GPUs
/// (NVIDIA's GB300 NVL72 page; "Inside NVIDIA Blackwell Ultra"), on a
/// Grace as the GB200.
pub const GB300: Gpu = Gpu {
    name: "gb300",
    peak: FlopPerSec(2500e12),
    cpu_gpu: BytesPerSec(GRACE_PER_GPU),
    default_node_size: 72,
    ..B300
};

/// Every GPU preset.
pub const GPUS: &[Gpu] = &[
    A100_80GB, A100_40GB, H100_SXM, H100_500W, H800, H200, B200, GB200, B300, GB300,
];

/// Looks a GPU up by name, case-insensitive.
///
/// # Errors
///
/// An unknown name.
pub fn gpu(name: &str) -> Result<Gpu, Error> {
    GPUS.iter()
        .find(|g| g.name.eq_ignore_ascii_case(name.trim()))
        .copied()
        .ok_or(Error::Unknown { what: "GPU" })
}

/// The network a cluster of `gpu` is usually built with, per GPU: one
/// network card per GPU in NVIDIA's reference systems. DGX A100: eight
/// ConnectX-6 HDR, 200 Gb/s; DGX H100, HGX H200 and DGX B200: eight
/// ConnectX-7 NDR, 400 Gb/s (DeepSeek-V3's H800s likewise: "IB (50 GB/s)",
/// arXiv 2412.19437 sec. 3.2.2); GB200 NVL72: a ConnectX-7 per GPU; B300
/// and GB300: ConnectX-8, 800 Gb/s; Meta's Grand Teton H100s: RoCE at
/// 400 Gb/s (Llama 3, arXiv 2407.21783 sec. 3.3.1). The CLI says it where
/// its default, the paper's 200 Gb/s, is slower (the page's opening sets
/// 400 Gb/s H100s itself).
#[must_use]
pub fn usual_network(gpu: &Gpu) -> Network {
    match gpu.name {
        "a100-80gb" | "a100-40gb" => Network::InfiniBand200,
        "b300" | "gb300" => Network::InfiniBand800,
        "h100-96gb-500w" => Network::Roce400,
        _ => Network::InfiniBand400,
    }
}

/// The GPU's [`usual_network`] where a plan on `hw` at the paper's default
/// network, InfiniBand 200 Gb/s, would be slower than on it: `None` where
/// the usual network is that default, or where the plan cannot leave its
/// node (`most_gpus`, the most GPUs a plan may use, at most the NVLink
/// domain; a domain without limit holds any plan). The CLI says it under
/// its headline when no network was given.
#[must_use]
pub fn faster_usual_network(hw: &Hardware, most_gpus: Option<u64>) -> Option<Network> {
    let node = u64::from(hw.node_size?);
    if most_gpus.is_some_and(|n| n <= node) {
        return None;
    }
    let usual = usual_network(&hw.gpu);
    (usual != Network::InfiniBand200).then_some(usual)
}

/// The network that carries the data- and pipeline-parallel traffic,
/// per GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Network {
    /// InfiniBand HDR, 200 Gb/s per GPU (the paper's setup).
    #[default]
    InfiniBand200,
    /// InfiniBand NDR, 400 Gb/s per GPU.
    InfiniBand400,
    /// Ethernet, 25 Gb/s per GPU (400 Gb/s per 16-GPU node, sec. 8.3).
    Ethernet25,
    /// Ethernet, 100 Gb/s per GPU.
    Ethernet100,
    /// Ethernet, 400 Gb/s per GPU.
    Ethernet400,
    /// InfiniBand XDR, 800 Gb/s per GPU (ConnectX-8).
    InfiniBand800,
    /// RDMA over converged Ethernet, 400 Gb/s per GPU (Spectrum-X, the
    /// Llama 3 RoCE cluster).
    Roce400,
}

impl Network {
    /// Every network, for menus.
    pub const ALL: [Self; 7] = [
        Self::InfiniBand200,
        Self::InfiniBand400,
        Self::InfiniBand800,
        Self::Roce400,
        Self::Ethernet25,
        Self::Ethernet100,
        Self::Ethernet400,
    ];

    /// Bandwidth per GPU, input + output.
    #[must_use]
    pub fn bandwidth(self) -> BytesPerSec {
        BytesPerSec(match self {
            Self::InfiniBand200 => gib(50.0),
            Self::InfiniBand400 => gb(100.0),
            Self::Ethernet25 => gib(6.25),
            Self::Ethernet100 => gb(25.0),
            Self::Ethernet400 | Self::Roce400 => gb(100.0),
            Self::InfiniBand800 => gb(200.0),
        })
    }

    /// Stable name, as used by the CLI and URLs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::InfiniBand200 => "infiniband",
            Self::InfiniBand400 => "infiniband-400",
            Self::Ethernet25 => "ethernet",
            Self::Ethernet100 => "ethernet-100",
            Self::Ethernet400 => "ethernet-400",
            Self::InfiniBand800 => "infiniband-800",
            Self::Roce400 => "roce-400",
        }
    }

    /// What a menu shows.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::InfiniBand200 => "InfiniBand 200 Gb/s per GPU",
            Self::InfiniBand400 => "InfiniBand 400 Gb/s per GPU",
            Self::InfiniBand800 => "InfiniBand 800 Gb/s per GPU",
            Self::Roce400 => "RoCE 400 Gb/s per GPU",
            Self::Ethernet25 => "Ethernet 25 Gb/s per GPU",
            Self::Ethernet100 => "Ethernet 100 Gb/s per GPU",
            Self::Ethernet400 => "Ethernet 400 Gb/s per GPU",
        }
    }

    /// Is it InfiniBand?
    #[must_use]
    pub fn is_infiniband(self) -> bool {
        matches!(
            self,
            Self::InfiniBand200 | Self::InfiniBand400 | Self::InfiniBand800
        )
    }

    /// Parses a name: `infiniband` (= `infiniband-200`), `infiniband-400`,
    /// `infiniband-800`, `roce-400`, `ethernet` (= `ethernet-25`),
    /// `ethernet-100`, `ethernet-400`.
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, Error> {
        let n = name.trim();
        let eq = |s: &str| n.eq_ignore_ascii_case(s);
        Ok(if eq("infiniband") || eq("infiniband-200") || eq("ib") {
            Self::InfiniBand200
        } else if eq("infiniband-400") {
            Self::InfiniBand400
        } else if eq("ethernet") || eq("ethernet-25") {
            Self::Ethernet25
        } else if eq("ethernet-100") {
            Self::Ethernet100
        } else if eq("ethernet-400") {
            Self::Ethernet400
        } else if eq("infiniband-800") {
            Self::InfiniBand800
        } else if eq("roce-400") || eq("roce") {
            Self::Roce400
        } else {
            return Err(Error::Unknown { what: "network" });
        })
    }
}

/// The rows of Table A.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Link {
    /// The GPU's own memory.
    GpuMemory,
    /// NVLink (tensor parallelism).
    NvLink,
    /// The GPU's PCI-express link.
    Pcie,
    /// InfiniBand, per GPU.
    InfiniBand,
    /// CPU memory through the shared PCIe switch.
    CpuGpu,
    /// Ethernet, per GPU.
    Ethernet,
    /// A local NVMe disk.
    Nvme,
    /// A hard drive.
    Hdd,
}

impl Link {
    /// Table A.1's rows, in its order.
    pub const ALL: [Self; 8] = [
        Self::GpuMemory,
        Self::NvLink,
        Self::Pcie,
        Self::InfiniBand,
        Self::CpuGpu,
        Self::Ethernet,
        Self::Nvme,
        Self::Hdd,
    ];

    /// Stable key, as used in the CLI's JSON.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Self::GpuMemory => "gpu-memory",
            Self::NvLink => "nvlink",
            Self::Pcie => "pcie",
            Self::InfiniBand => "infiniband",
            Self::CpuGpu => "cpu-gpu",
            Self::Ethernet => "ethernet",
            Self::Nvme => "nvme",
            Self::Hdd => "hdd",
        }
    }
}

/// A cluster: a GPU, its node size and the network between nodes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Hardware {
    /// The GPU.
    pub gpu: Gpu,
    /// GPUs per NVLink domain; `None` for no limit (sec. 7, fig. 5).
    pub node_size: Option<u32>,
    /// Network for the data- and pipeline-parallel dimensions.
    pub network: Network,
    /// Fraction of peak the kernels reach. The paper ignores kernel
    /// efficiency (sec. 5, "Resource usage"), so the default is 1.
    pub kernel_efficiency: f64,
}

/// Largest node size accepted (an NVL72 rack is 72).
pub const MAX_NODE_SIZE: u32 = 1 << 16;

impl Default for Hardware {
    /// The paper's setup: A100 80 GB, 16 GPUs per node, InfiniBand 200 Gb/s.
    fn default() -> Self {
        Self {
            gpu: A100_80GB,
            node_size: Some(16),
            network: Network::InfiniBand200,
            kernel_efficiency: 1.0,
        }
    }
}

impl Hardware {
    /// Checks the node size and kernel efficiency.
    ///
    /// # Errors
    ///
    /// A node size of 0 or above [`MAX_NODE_SIZE`], or a kernel efficiency
    /// outside (0, 1].
    pub fn validate(&self) -> Result<&Self, Error> {
        if let Some(n) = self.node_size {
            check_count("node size", n.into(), 1, MAX_NODE_SIZE.into())?;
        }
        check_range("kernel efficiency", self.kernel_efficiency, 1e-3, 1.0)?;
        Ok(self)
    }

    /// The link of the data and pipeline network: InfiniBand or Ethernet.
    #[must_use]
    pub fn network_link(&self) -> Link {
        if self.network.is_infiniband() {
            Link::InfiniBand
        } else {
            Link::Ethernet
        }
    }

    /// Bandwidth of a link. InfiniBand and Ethernet give the configured
    /// network when it is of that kind, else the paper's (200 / 25 Gb/s).
    #[must_use]
    pub fn bandwidth(&self, link: Link) -> BytesPerSec {
        let g = &self.gpu;
        match link {
            Link::GpuMemory => g.memory_bandwidth,
            Link::NvLink => g.nvlink,
            Link::Pcie => g.pcie,
            Link::CpuGpu => g.cpu_gpu,
            Link::InfiniBand if self.network.is_infiniband() => self.network.bandwidth(),
            Link::InfiniBand => Network::InfiniBand200.bandwidth(),
            Link::Ethernet if !self.network.is_infiniband() => self.network.bandwidth(),
            Link::Ethernet => Network::Ethernet25.bandwidth(),
            Link::Nvme => BytesPerSec(gib(3.2)),
            Link::Hdd => BytesPerSec(gib(0.1)),
        }
    }

    /// Arithmetic-intensity threshold of a link: c_gpu / bandwidth
    /// (sec. 2.3, Table A.1). An operation overlapped with a transfer on
    /// this link is compute-bound iff its intensity is at least this (eq. 3).
    #[must_use]
    pub fn threshold(&self, link: Link) -> Intensity {
        self.gpu.peak / self.bandwidth(link)
    }

    /// Bandwidth of the data/pipeline network. Its traffic also crosses the
    /// GPU's PCIe link to reach the network card, so the slower of the two
    /// binds (for the paper's A100 + InfiniBand 200 it is InfiniBand).
    #[must_use]
    pub fn network_bandwidth(&self) -> BytesPerSec {
        let net = self.network.bandwidth();
        if net.0 <= self.gpu.pcie.0 {
            net
        } else {
            self.gpu.pcie
        }
    }

    /// Threshold of the data/pipeline network: c_gpu / [`Hardware::network_bandwidth`].
    #[must_use]
    pub fn network_threshold(&self) -> Intensity {
        self.gpu.peak / self.network_bandwidth()
    }
}
