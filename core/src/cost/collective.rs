//! Collectives by placement: a communication group laid out on the
//! cluster's nodes, timed as NCCL runs it.
//!
//! A group of n ranks `stride` apart in rank order (Megatron's order:
//! tensor fastest, then context, then data, then pipeline) has
//! g = min(node/stride, n) of its ranks on each node it spans. Every group
//! of a kind communicates at once (all data-parallel groups reduce
//! together), so the node/g groups crossing a node share its network
//! cards: each gets g GPUs' worth. A ring over several nodes crosses each
//! node's boundary once per channel and spreads its channels over those
//! g cards, so its bus bandwidth is g network cards', capped by NVLink:
//!
//! ```text
//! bus = NVLink · e_nvlink                       (one node)
//!       min(NVLink · e_nvlink, g · NIC · e_net)  (several)
//! t   = latency + f · (n−1)/n · S / bus         (f = 2 all-reduce, 1 RS/AG)
//! ```
//!
//! With g = 1 (a tensor degree that fills the node) this is the old
//! "each GPU on its own card"; with g = 8 (FSDP over whole DGX nodes) the
//! group runs at the node's eight cards, which is what nccl-tests measures
//! across nodes (`calibration/published/nccl_tests.json`).
//!
//! The latency is NCCL's own tuning model (`src/graph/tuning.cc`,
//! `ncclTopoTuneModel`, NCCL 2.18): a base latency per algorithm and
//! protocol, plus a hop latency per ring step inside a node (NVLink) and
//! across nodes (the network); a tree all-reduce pays 2·((g−1) intra +
//! ⌊log₂ nodes⌋ inter) hops. NCCL picks, per message size, the fastest of
//! ring and tree (all-reduce only) under the LL, LL128 and Simple
//! protocols, whose bandwidths are 1/4, 0.92 and 1 of the bus's; so do we.
//! Small messages at many ranks are latency-bound: an FSDP all-gather of a
//! 125M model's layer (3.5 MB) over 64 GPUs takes ~0.1 ms of latency
//! against ~10 µs of transfer.

use crate::cost::assumptions::Assumptions;
use crate::hardware::{Hardware, Link};
use crate::math;

/// Which collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    /// Every rank ends with the sum: 2·(n−1)/n of the buffer through each
    /// rank's link.
    AllReduce,
    /// Every rank ends with its 1/n of the sum: (n−1)/n.
    ReduceScatter,
    /// Every rank ends with every shard: (n−1)/n.
    AllGather,
}

impl Collective {
    /// Buffers' worth through each rank's link per (n−1)/n: 2 or 1.
    #[must_use]
    pub fn factor(self) -> f64 {
        match self {
            Self::AllReduce => 2.0,
            Self::ReduceScatter | Self::AllGather => 1.0,
        }
    }
}

/// A communication group on the cluster: how many ranks, how many of them
/// share a node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Group {
    /// Ranks in the group, n.
    pub ranks: f64,
    /// Of them on one node, g (1 ≤ g ≤ n).
    pub per_node: f64,
}

impl Group {
    /// A group of `ranks` ranks `stride` apart in rank order on nodes of
    /// `node` GPUs (`None`: one NVLink domain holds everything):
    /// g = ⌊node/stride⌋ clamped to [1, n].
    #[must_use]
    pub fn strided(ranks: f64, stride: f64, node: Option<u32>) -> Self {
        let ranks = ranks.max(1.0);
        let per_node = match node {
            None => ranks,
            Some(node) => math::floor(f64::from(node) / stride.max(1.0)).clamp(1.0, ranks),
        };
        Self { ranks, per_node }
    }

    /// A group inside one node (tensor parallelism).
    #[must_use]
    pub fn inside(ranks: f64) -> Self {
        Self {
            ranks: ranks.max(1.0),
            per_node: ranks.max(1.0),
        }
    }

    /// Nodes the group spans, ⌈n/g⌉.
    #[must_use]
    pub fn nodes(self) -> f64 {
        math::ceil(self.ranks / self.per_node - 1e-9).max(1.0)
    }
}

/// The links a collective runs on: achievable bus bandwidths per GPU and
/// direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fabric {
    /// NVLink, per direction, times its bus efficiency.
    pub nvlink: f64,
    /// One GPU's share of the network, per direction, times its bus
    /// efficiency.
    pub nic: f64,
}

impl Fabric {
    /// The fabric of `hw` under `a`: each link's data-sheet bandwidth
    /// (input + output) halved, times `a.bus_efficiency` (NVLink) and
    /// `a.network_efficiency` (the network).
    #[must_use]
    pub fn of(hw: &Hardware, a: &Assumptions) -> Self {
        Self {
            nvlink: hw.bandwidth(Link::NvLink).0 / 2.0 * a.bus_efficiency,
            nic: hw.network_bandwidth().0 / 2.0 * a.network_efficiency,
        }
    }

    /// The bus bandwidth of `group` (bytes/s): NVLink inside one node,
    /// else g cards' worth capped by NVLink.
    #[must_use]
    pub fn bus(self, group: Group) -> f64 {
        if group.nodes() <= 1.0 {
            self.nvlink
        } else {
            self.nvlink.min(group.per_node * self.nic)
        }
    }
}

/// NCCL's protocols, as its tuning model describes them (`tuning.cc`):
/// (base latency of a ring, base latency of a tree, hop latency of a ring
/// step on NVLink, on the network, of a tree step on NVLink, on the
/// network, all µs; share of the bus bandwidth a ring gets, a tree gets).
const PROTOCOLS: [[f64; 8]; 3] = [
    // LL: 8-byte stores with flags, a quarter of the bandwidth.
    [6.6, 6.8, 0.47, 2.7, 0.52, 5.0, 0.25, 0.9 / 3.8],
    // LL128: 120 of every 128 bytes.
    [14.0, 14.0, 1.9, 4.0, 1.2, 8.5, 0.92, 0.9 * 0.915],
    // Simple: whole chunks; a tree's hop latency is a 256 KB chunk's.
    [8.4, 0.0, 3.4, 9.6, 28.0, 50.0, 1.0, 0.9],
];

/// Seconds of one `kind` collective of a `bytes` buffer per rank (the
/// whole buffer: an all-gather's output, a reduce-scatter's input) over
/// `group` on `fabric`: the fastest of NCCL's algorithms and protocols
/// (see the module's doc).
#[must_use]
pub fn seconds(kind: Collective, bytes: f64, group: Group, fabric: Fabric) -> f64 {
    let n = group.ranks;
    if n <= 1.0 || bytes <= 0.0 {
        return 0.0;
    }
    let nodes = group.nodes();
    let bus = fabric.bus(group);
    let (steps, inter) = match kind {
        Collective::AllReduce => (2.0 * (n - 1.0), 2.0 * (nodes - 1.0)),
        _ => (n - 1.0, nodes - 1.0),
    };
    let volume = kind.factor() * (n - 1.0) / n * bytes;
    let mut best = f64::INFINITY;
    for p in PROTOCOLS {
        let [ring_base, tree_base, ring_nv, ring_net, tree_nv, tree_net, ring_bw, tree_bw] = p;
        let mut ring_lat = ring_base + (steps - inter) * ring_nv + inter * ring_net;
        if kind == Collective::AllReduce && nodes > 1.0 && ring_bw >= 1.0 {
            // NCCL's "plateau effect of ring" for multi-node all-reduces.
            ring_lat *= 1.9;
        }
        best = best.min(ring_lat * 1e-6 + volume / (bus * ring_bw));
        if kind == Collective::AllReduce {
            // NCCL's `log2i`: the tree's depth over the nodes, whole.
            let depth = f64::from((nodes as u64).max(1).ilog2());
            let hops = (group.per_node - 1.0) * tree_nv + depth * tree_net;
            let tree_lat = tree_base + 2.0 * hops;
            // A tree's algorithm bandwidth is half its bus bandwidth.
            best = best.min(tree_lat * 1e-6 + 2.0 * bytes / (bus * tree_bw));
        }
    }
    best
}

/// Seconds of a point-to-point send of `bytes` on one GPU's link of
/// `bandwidth` bytes/s per direction: NCCL's Simple base latency plus one
/// hop, then the bytes.
#[must_use]
pub fn send_seconds(bytes: f64, bandwidth: f64, across_nodes: bool) -> f64 {
    if bytes <= 0.0 {
        return 0.0;
    }
    let hop = if across_nodes { 9.6 } else { 3.4 };
    (8.4 + hop) * 1e-6 + bytes / bandwidth
}

/// What a collective overlapped unit by unit leaves exposed: `comm` split
/// into `units` equal pieces, each run under the compute of the unit
/// before it (FSDP's prefetched all-gathers: the next layer's gather under
/// this layer's forward) or after it (bucketed gradient reductions: a
/// bucket reduced under the next bucket's backward), out of `window`
/// seconds of compute. The first (last) piece has nothing to hide under:
///
/// ```text
/// exposed = c + (u−1)·max(0, c − w),   c = comm/u, w = window/u
/// ```
///
/// One unit: all of it; `window` ≥ `comm` and many units: one piece.
#[must_use]
pub fn exposed_in_units(comm: f64, window: f64, units: f64) -> f64 {
    if comm <= 0.0 {
        return 0.0;
    }
    let u = units.max(1.0);
    let (c, w) = (comm / u, window.max(0.0) / u);
    c + (u - 1.0) * (c - w).max(0.0)
}
