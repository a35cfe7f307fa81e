//! A calibration profile: the kernels of the user's own GPU and software,
//! measured in minutes by `calibration/calibrate.py` (`plan3d calibrate`),
//! fitted here into the [`Curves`] the kernel model runs on in place of
//! the GPU preset's.
//!
//! A profile is untrusted input: [`Profile::check`] refuses a malformed or
//! implausible one (a GEMM faster than the GPU's peak, a time that is not
//! positive, a missing shape) naming its field, and [`Profile::fit`] turns
//! a checked one into curves by the same least squares that fitted the
//! preset ([`crate::cost::kernels`]'s doc): the GEMM constants by
//! coordinate descent over fixed grids from the preset's values, each
//! attention pass's ceiling and half-rate sequence over a grid, the
//! memory-bound kernels' fraction of the bandwidth from the measured
//! copies, the collectives' bus efficiencies from the largest messages. A
//! profile of the tables the preset was fitted on gives the preset's
//! curves back exactly (`core/tests/profile.rs`).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::cost::assumptions::{fp8_peak, Assumptions};
use crate::cost::kernels::{self, Curves, Format};
use crate::hardware::{Hardware, Link};
use crate::math;

/// The profile format's version: a profile of another is refused.
pub const PROFILE_VERSION: u32 = 1;

/// GEMMs a profile needs at least (in BF16), to fit six constants.
pub const MIN_GEMMS: usize = 8;

/// The machine and software a profile was measured on, as the script
/// reads them (all but `sms` informative).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Device {
    /// The device's name (`torch.cuda.get_device_name`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub name: String,
    /// Its streaming multiprocessors (the GEMM waves' width).
    pub sms: u32,
    /// Its memory, bytes.
    #[cfg_attr(feature = "serde", serde(default))]
    pub memory_bytes: f64,
    /// The driver's version.
    #[cfg_attr(feature = "serde", serde(default))]
    pub driver: String,
    /// CUDA's version.
    #[cfg_attr(feature = "serde", serde(default))]
    pub cuda: String,
    /// PyTorch's version.
    #[cfg_attr(feature = "serde", serde(default))]
    pub torch: String,
    /// cuBLAS's, cuDNN's and NCCL's versions, as one line.
    #[cfg_attr(feature = "serde", serde(default))]
    pub libraries: String,
}

/// One measured GEMM: C (M×N) = A (M×K) · B (K×N).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GemmRow {
    /// Rows.
    pub m: f64,
    /// Columns.
    pub n: f64,
    /// Depth.
    pub k: f64,
    /// Inputs in FP8 (per-tensor scales), else BF16.
    #[cfg_attr(feature = "serde", serde(default))]
    pub fp8: bool,
    /// Seconds of one GEMM.
    pub seconds: f64,
}

/// One measured causal flash attention, forward and backward.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AttentionRow {
    /// Sequences.
    pub batch: f64,
    /// Query heads.
    pub heads: f64,
    /// Sequence length.
    pub seq: f64,
    /// Head size.
    pub head_size: f64,
    /// Seconds of the forward kernel.
    pub forward_seconds: f64,
    /// Seconds of the backward kernel.
    pub backward_seconds: f64,
}

/// One memory-bound kernel: `bytes` read and written in `seconds`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BandwidthRow {
    /// Bytes read and written.
    pub bytes: f64,
    /// Seconds.
    pub seconds: f64,
}

/// One collective of NCCL's, as nccl-tests times it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectiveRow {
    /// An all-reduce (else an all-gather or reduce-scatter).
    pub all_reduce: bool,
    /// Ranks.
    pub ranks: f64,
    /// Over several nodes (else inside one).
    #[cfg_attr(feature = "serde", serde(default))]
    pub across_nodes: bool,
    /// The message, bytes (the whole buffer, as nccl-tests' size).
    pub bytes: f64,
    /// Seconds.
    pub seconds: f64,
}

/// A calibration profile: what `calibrate.py` measured.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Profile {
    /// The format's version, [`PROFILE_VERSION`].
    pub plan3d_profile: u32,
    /// The machine and software.
    pub device: Device,
    /// The shortest kernel the script could time, seconds: a GEMM the
    /// model puts under it is compared as it (0: none).
    #[cfg_attr(feature = "serde", serde(default))]
    pub timer_floor_seconds: f64,
    /// GEMMs (at least [`MIN_GEMMS`] in BF16).
    pub gemm: Vec<GemmRow>,
    /// Causal flash attention (none: the preset's curves).
    #[cfg_attr(feature = "serde", serde(default))]
    pub attention: Vec<AttentionRow>,
    /// Memory-bound copies (none: the GEMMs' fit sets the fraction).
    #[cfg_attr(feature = "serde", serde(default))]
    pub bandwidth: Vec<BandwidthRow>,
    /// Collectives (none: the preset's bus efficiencies).
    #[cfg_attr(feature = "serde", serde(default))]
    pub collectives: Vec<CollectiveRow>,
}

/// A profile refused: the field (`gemm[3].seconds`) and why, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileIssue {
    /// The field, as a path into the profile's JSON.
    pub field: String,
    /// Why.
    pub reason: String,
}

impl core::fmt::Display for ProfileIssue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "profile field {}: {}", self.field, self.reason)
    }
}

/// What a checked profile sets in the model: the kernel curves, and the
/// collectives' bus efficiencies where it measured them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// The fitted kernel curves.
    pub curves: Curves,
    /// NVLink's bus efficiency (large collectives inside a node).
    pub bus_efficiency: Option<f64>,
    /// The network's (large collectives across nodes).
    pub network_efficiency: Option<f64>,
}

impl Calibration {
    /// What the fit set, as eight numbers: the SMs, the BF16 and FP8
    /// GEMM ceilings, attention's forward and backward ceilings, the
    /// memory-bound fraction, NVLink's and the network's bus efficiencies
    /// (those of `a` where the profile timed no collective). The page
    /// keeps these ([`crate::state::Inputs::calibration`]).
    #[must_use]
    pub fn fitted(&self, a: &Assumptions) -> [f64; 8] {
        let c = &self.curves;
        [
            c.sms,
            c.ceiling_bf16,
            c.ceiling_fp8,
            c.attention_forward.0,
            c.attention_backward.0,
            c.memory,
            self.bus_efficiency.unwrap_or(a.bus_efficiency),
            self.network_efficiency.unwrap_or(a.network_efficiency),
        ]
    }

    /// The calibration of [`Self::fitted`]'s numbers on `gpu`'s preset
    /// curves.
    #[must_use]
    pub fn from_fitted(gpu: &crate::hardware::Gpu, x: [f64; 8]) -> Self {
        let base = kernels::curves(gpu);
        Self {
            curves: Curves {
                sms: x[0],
                ceiling_bf16: x[1],
                ceiling_fp8: x[2],
                attention_forward: (x[3], base.attention_forward.1),
                attention_backward: (x[4], base.attention_backward.1),
                memory: x[5],
                measured: true,
                ..base
            },
            bus_efficiency: Some(x[6]),
            network_efficiency: Some(x[7]),
        }
    }

    /// `a` with this calibration's curves and efficiencies.
    #[must_use]
    pub fn apply(&self, a: Assumptions) -> Assumptions {
        Assumptions {
            curves: Some(self.curves),
            bus_efficiency: self.bus_efficiency.unwrap_or(a.bus_efficiency),
            network_efficiency: self.network_efficiency.unwrap_or(a.network_efficiency),
            ..a
        }
    }
}

fn issue(field: String, reason: String) -> ProfileIssue {
    ProfileIssue { field, reason }
}

/// `table[i].field`, a row's field's path.
fn path(table: &str, i: usize, field: &str) -> String {
    format!("{table}[{i}].{field}")
}

/// A positive, finite number, or the issue naming its field.
fn positive(x: f64, table: &str, i: usize, field: &str) -> Result<(), ProfileIssue> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(issue(
            path(table, i, field),
            format!("must be a positive number, not {x}"),
        ))
    }
}

/// At most `limit` (with [`PLAUSIBLE`]'s margin), else the issue: `got`
/// and `limit` in `unit` (`scale` of them a unit), above `what`.
fn within(
    got: f64,
    limit: f64,
    (table, i, field): (&str, usize, &str),
    (scale, unit, gpu, what): (f64, &str, &str, &str),
) -> Result<(), ProfileIssue> {
    if got <= PLAUSIBLE * limit {
        return Ok(());
    }
    Err(issue(
        path(table, i, field),
        format!(
            "{} {unit} is above the {gpu}'s {what} of {}: is the profile for this GPU?",
            math::round(got / scale) as u64,
            math::round(limit / scale) as u64
        ),
    ))
}

/// The GEMMs whose times set a ceiling: 100 Gflop and more, where the
/// ceiling rules (smaller ones are ramp, tiles and memory).
const BIG_GEMM: f64 = 1e11;

/// Above this share of a peak a measurement is refused as implausible.
const PLAUSIBLE: f64 = 1.05;

/// A causal attention kernel's forward flops, as the kernels count them
/// (half the square): 2·b·h·s²·d; its backward does 2.5 times as much.
fn attention_flops(r: &AttentionRow) -> f64 {
    2.0 * r.batch * r.heads * r.seq * r.seq * r.head_size
}

impl Profile {
    /// Checks a profile against the GPU it is for: the version, the
    /// device's SMs, every row's numbers positive and finite, no GEMM
    /// faster than its format's peak, no copy faster than the memory's
    /// bandwidth, no attention faster than the BF16 peak, no collective
    /// faster than its link, and enough GEMMs to fit.
    ///
    /// # Errors
    ///
    /// The first field found wrong, and why.
    pub fn check(&self, hw: &Hardware) -> Result<(), ProfileIssue> {
        if self.plan3d_profile != PROFILE_VERSION {
            return Err(issue(
                "plan3d_profile".into(),
                format!(
                    "this plan3d reads profiles of version {PROFILE_VERSION}, not {}: measure again with its calibrate.py",
                    self.plan3d_profile
                ),
            ));
        }
        if self.device.sms == 0 || self.device.sms > 1024 {
            return Err(issue(
                "device.sms".into(),
                format!(
                    "{} is not a count of streaming multiprocessors (1–1024)",
                    self.device.sms
                ),
            ));
        }
        if !(self.timer_floor_seconds.is_finite() && (0.0..1.0).contains(&self.timer_floor_seconds))
        {
            return Err(issue(
                "timer_floor_seconds".into(),
                format!("{} is not a time in [0, 1) s", self.timer_floor_seconds),
            ));
        }
        let bf16 = hw.gpu.peak.0;
        let fp8 = fp8_peak(&hw.gpu).map(|p| p.0);
        for (i, r) in self.gemm.iter().enumerate() {
            for (x, name) in [(r.m, "m"), (r.n, "n"), (r.k, "k"), (r.seconds, "seconds")] {
                positive(x, "gemm", i, name)?;
            }
            for (x, name) in [(r.m, "m"), (r.n, "n"), (r.k, "k")] {
                if x > 1e7 || math::floor(x) != x {
                    return Err(issue(
                        path("gemm", i, name),
                        format!("{x} is not a GEMM dimension (a whole number up to 10 000 000)"),
                    ));
                }
            }
            let (peak, what) = match (r.fp8, fp8) {
                (false, _) => (bf16, "BF16 peak"),
                (true, Some(p)) => (p, "FP8 peak"),
                (true, None) => {
                    return Err(issue(
                        path("gemm", i, "fp8"),
                        format!("the {} has no FP8 tensor cores", hw.gpu.name),
                    ))
                }
            };
            within(
                2.0 * r.m * r.n * r.k / r.seconds,
                peak,
                ("gemm", i, "seconds"),
                (1e12, "Tflop/s", hw.gpu.name, what),
            )?;
        }
        let bf16_rows = self.gemm.iter().filter(|r| !r.fp8).count();
        if bf16_rows < MIN_GEMMS {
            return Err(issue(
                "gemm".into(),
                format!(
                    "{bf16_rows} BF16 GEMMs: a profile needs at least {MIN_GEMMS} to fit the curve"
                ),
            ));
        }
        for (i, r) in self.attention.iter().enumerate() {
            for (x, name) in [
                (r.batch, "batch"),
                (r.heads, "heads"),
                (r.seq, "seq"),
                (r.head_size, "head_size"),
                (r.forward_seconds, "forward_seconds"),
                (r.backward_seconds, "backward_seconds"),
            ] {
                positive(x, "attention", i, name)?;
            }
            let f = attention_flops(r);
            for (flops, s, name) in [
                (f, r.forward_seconds, "forward_seconds"),
                (2.5 * f, r.backward_seconds, "backward_seconds"),
            ] {
                within(
                    flops / s,
                    bf16,
                    ("attention", i, name),
                    (1e12, "Tflop/s", hw.gpu.name, "BF16 peak"),
                )?;
            }
        }
        let memory = hw.bandwidth(Link::GpuMemory).0;
        for (i, r) in self.bandwidth.iter().enumerate() {
            positive(r.bytes, "bandwidth", i, "bytes")?;
            positive(r.seconds, "bandwidth", i, "seconds")?;
            within(
                r.bytes / r.seconds,
                memory,
                ("bandwidth", i, "seconds"),
                (1e9, "GB/s", hw.gpu.name, "memory bandwidth"),
            )?;
        }
        for (i, r) in self.collectives.iter().enumerate() {
            positive(r.bytes, "collectives", i, "bytes")?;
            positive(r.seconds, "collectives", i, "seconds")?;
            if !(r.ranks >= 2.0 && r.ranks <= 1e6 && math::floor(r.ranks) == r.ranks) {
                return Err(issue(
                    path("collectives", i, "ranks"),
                    format!("{} ranks: a collective needs 2 or more", r.ranks),
                ));
            }
            within(
                bus_bandwidth(r),
                link_of(hw, r.across_nodes),
                ("collectives", i, "seconds"),
                (
                    1e9,
                    "GB/s of bus bandwidth",
                    hw.gpu.name,
                    if r.across_nodes {
                        "network per direction"
                    } else {
                        "NVLink per direction"
                    },
                ),
            )?;
        }
        Ok(())
    }

    /// The calibration this profile sets on `base`, the preset's curves
    /// (see the module's doc). Call [`Self::check`] first: an unchecked
    /// profile fits whatever it holds.
    #[must_use]
    pub fn fit(&self, hw: &Hardware, base: Curves) -> Calibration {
        let mut c = Curves {
            sms: f64::from(self.device.sms),
            measured: true,
            ..base
        };
        let memory = hw.bandwidth(Link::GpuMemory).0;
        if !self.bandwidth.is_empty() {
            let shares: Vec<f64> = self
                .bandwidth
                .iter()
                .map(|r| math::ln(r.bytes / r.seconds / memory))
                .collect();
            c.memory = rescale(
                c.memory,
                Some(-median(shares)),
                -math::ln(HOPPER_COPY_SHARE),
            );
        }
        let o = self.offsets(hw, &c);
        c.ceiling_bf16 = rescale(c.ceiling_bf16, o[0], HOPPER_OFFSETS[0]);
        c.ceiling_fp8 = rescale(c.ceiling_fp8, o[1], HOPPER_OFFSETS[1]);
        c.attention_forward.0 = rescale(c.attention_forward.0, o[2], HOPPER_OFFSETS[2]);
        c.attention_backward.0 = rescale(c.attention_backward.0, o[3], HOPPER_OFFSETS[3]);
        let efficiency = |across: bool| {
            // The largest messages' bus bandwidth against the link's.
            let rows: Vec<&CollectiveRow> = self
                .collectives
                .iter()
                .filter(|r| r.across_nodes == across)
                .collect();
            let largest = rows.iter().map(|r| r.bytes).fold(0.0, f64::max);
            let shares: Vec<f64> = rows
                .iter()
                .filter(|r| r.bytes >= largest / 4.0)
                .map(|r| bus_bandwidth(r) / link_of(hw, across))
                .collect();
            (!shares.is_empty()).then(|| snap(median(shares), 100.0))
        };
        Calibration {
            curves: c,
            bus_efficiency: efficiency(false),
            network_efficiency: efficiency(true),
        }
    }

    /// The kernel classes' medians of measured over predicted times on
    /// `c` (BF16 GEMMs of 100 Gflop and more, FP8 ones, attention forward,
    /// backward), as log ratios; `None` where the profile has no row of
    /// the class.
    #[must_use]
    pub fn offsets(&self, hw: &Hardware, c: &Curves) -> [Option<f64>; 4] {
        let bf16 = hw.gpu.peak.0;
        let fp8 = fp8_peak(&hw.gpu).map_or(bf16, |p| p.0);
        let bandwidth = hw.bandwidth(Link::GpuMemory).0;
        let floor = self.timer_floor_seconds;
        let gemms = |fp8_rows: bool| {
            let (format, peak) = if fp8_rows {
                (Format::Fp8, fp8)
            } else {
                (Format::Bf16, bf16)
            };
            let logs: Vec<f64> = self
                .gemm
                .iter()
                .filter(|r| {
                    r.fp8 == fp8_rows && r.seconds > floor && 2.0 * r.m * r.n * r.k >= BIG_GEMM
                })
                .map(|r| {
                    let t = kernels::gemm_seconds(c, format, peak, bandwidth, (r.m, r.n, r.k));
                    math::ln(r.seconds / t.max(floor))
                })
                .collect();
            (!logs.is_empty()).then(|| median(logs))
        };
        let attention = |forward: bool| {
            let logs: Vec<f64> = self
                .attention
                .iter()
                .map(|r| {
                    let (flops, s) = if forward {
                        (attention_flops(r), r.forward_seconds)
                    } else {
                        (2.5 * attention_flops(r), r.backward_seconds)
                    };
                    let predicted =
                        flops / (bf16 * kernels::attention_rate(c, r.seq, r.head_size, forward));
                    math::ln(s / predicted)
                })
                .collect();
            (!logs.is_empty()).then(|| median(logs))
        };
        [gemms(false), gemms(true), attention(true), attention(false)]
    }
}

/// The preset's own offsets ([`Profile::offsets`] of the H100's tables,
/// `calibration/h100-2026-11-25/`, on [`kernels::HOPPER`]): its joint fit
/// of six constants leaves the large BF16 GEMMs' median 3.3 % slower
/// than its curve, the FP8 ones' 3.8 % faster, attention's forward 1.2 %
/// slower and its backward 0.9 % faster. A profile's offsets are read against these, so that the
/// preset's own tables give the preset back (`core/tests/profile.rs`
/// holds them to the tables).
pub const HOPPER_OFFSETS: [f64; 4] = [
    0.031_991_379_029_118_14,
    -0.038_425_769_952_138_665,
    0.012_314_178_147_376_453,
    -0.009_492_352_682_797_299,
];

/// The H100's copies' median share of its memory bandwidth
/// (`calibration/h100-2026-11-25/kernels.json`: 8192 × 4096, 16384 ×
/// 8192 and 8192 × 12288 bf16 copies at 2 424, 2 569 and 2 962 GB/s of
/// 3 350), against which a profile's copies scale the preset's
/// memory-bound fraction (0.7, fitted with the GEMMs).
pub const HOPPER_COPY_SHARE: f64 = 2_568.661_994_471_009e9 / 3_350e9;

/// `ceiling` scaled by the profile's offset against the preset's, the
/// factor rounded to 0.001 (a profile within 0.05 % of the preset's
/// tables is the preset).
fn rescale(ceiling: f64, offset: Option<f64>, reference: f64) -> f64 {
    match offset {
        Some(o) => {
            let factor = math::round(libm::exp(reference - o) * 1000.0) / 1000.0;
            if factor == 1.0 {
                ceiling
            } else {
                (ceiling * factor).clamp(0.005, 1.0)
            }
        }
        None => ceiling,
    }
}

/// A profile's JSON text checked on `hw` and fitted on its preset's
/// curves: the calibration and the device it was measured on (the page's
/// door: a file dropped or kept in the browser).
///
/// # Errors
///
/// Text that is not a profile (serde's words), or the profile's
/// [`ProfileIssue`], as a sentence.
#[cfg(feature = "serde")]
pub fn calibrate_json(text: &str, hw: &Hardware) -> Result<(Calibration, String), String> {
    let p: Profile =
        serde_json::from_str(text).map_err(|e| format!("not a calibration profile: {e}"))?;
    calibrate(&p, hw)
}

/// A profile checked on `hw` and fitted on its preset's curves: the
/// calibration and the device it was measured on.
///
/// # Errors
///
/// The profile's [`ProfileIssue`], as a sentence.
pub fn calibrate(p: &Profile, hw: &Hardware) -> Result<(Calibration, String), String> {
    p.check(hw).map_err(|e| format!("{e}"))?;
    Ok((p.fit(hw, kernels::curves(&hw.gpu)), p.device.name.clone()))
}

/// nccl-tests' bus bandwidth of a row: all-reduce 2·(n−1)/n · S/t, the
/// others (n−1)/n · S/t.
fn bus_bandwidth(r: &CollectiveRow) -> f64 {
    let f = if r.all_reduce { 2.0 } else { 1.0 };
    f * (r.ranks - 1.0) / r.ranks * r.bytes / r.seconds
}

/// The link a collective runs on, per direction: NVLink inside a node,
/// the node's cards' network across nodes.
fn link_of(hw: &Hardware, across: bool) -> f64 {
    if across {
        let cards = f64::from(hw.node_size.unwrap_or(1).max(1));
        cards * hw.network_bandwidth().0 / 2.0
    } else {
        hw.gpu.nvlink.0 / 2.0
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    // Insertion sort: a few dozen rows, and no sort's instantiation in
    // the page's wasm.
    for i in 1..xs.len() {
        let mut j = i;
        while j > 0 && xs[j - 1] > xs[j] {
            xs.swap(j - 1, j);
            j -= 1;
        }
    }
    xs[xs.len() / 2]
}

/// `x` on a grid of 1/`per`.
fn snap(x: f64, per: f64) -> f64 {
    math::round(x * per) / per
}
