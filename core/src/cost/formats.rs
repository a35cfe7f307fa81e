//! The number formats of the layers' GEMMs (`--precision`): BF16 and the
//! FP8 scaling recipes Transformer Engine and Megatron-Core name, what each
//! cast moves, each GPU's FP8 peak and which formats it runs.

use crate::hardware::Gpu;
use crate::units::FlopPerSec;

/// The number format of the transformer layers' GEMMs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Compute {
    /// BF16 everywhere (the calibrated setting).
    #[default]
    Bf16,
    /// FP8 for the linear layers' GEMMs (QKV, projection, MLP: forward,
    /// input and weight gradients) with one scale per tensor from the
    /// amax history (Transformer Engine's `DelayedScaling`, Megatron-Core's
    /// `--fp8-recipe delayed`): each cast reads its BF16 input once. The
    /// GEMMs run at the FP8 ceiling one H100 measured with cuBLAS's
    /// per-tensor kernels ([`crate::cost::kernels::HOPPER`]). Attention,
    /// the logit layer, norms and the optimizer stay in BF16/FP32.
    Fp8,
    /// FP8 with one scale per tensor from its own amax (Transformer
    /// Engine's `Float8CurrentScaling`, Megatron-Core's `--fp8-recipe
    /// tensorwise`, torchao's `tensorwise`): each cast reads its input
    /// twice, once for the amax and once to cast ("significant overhead
    /// compared to other recipes, which typically require only a single
    /// memory read", TE's docs), and a norm can no longer fuse it.
    Fp8Current,
    /// FP8 with a scale per 1×128 block of activations and gradients and
    /// 128×128 block of weights (DeepSeek-V3, arXiv 2412.19437 sec. 3.3;
    /// Transformer Engine's `Float8BlockScaling`, Megatron-Core's
    /// `--fp8-recipe blockwise`): both directions of each tensor quantized
    /// from the BF16 source. On Hopper the block scales are applied on the
    /// CUDA cores (DeepGEMM's promotion): GEMMs at the block-scaled curve
    /// fitted on DeepGEMM's H800 tables; on Blackwell run as MXFP8 (TE's
    /// docs: "emulated with MXFP8").
    Fp8Block,
    /// MXFP8: a power-of-two scale per 32 elements, in Blackwell's
    /// block-scaled tensor cores (OCP MX; Transformer Engine's
    /// `MXFP8BlockScaling`, `--fp8-recipe mxfp8`): both directions of each
    /// tensor quantized from the source, the GEMM kernel ~5 % slower than
    /// the per-tensor one. Blackwell only.
    Mxfp8,
}

impl Compute {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [Self; 5] = [
        Self::Bf16,
        Self::Fp8,
        Self::Fp8Current,
        Self::Fp8Block,
        Self::Mxfp8,
    ];

    /// Stable name: `bf16`, `fp8`, `fp8-current`, `fp8-blockwise`,
    /// `mxfp8`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Bf16 => "bf16",
            Self::Fp8 => "fp8",
            Self::Fp8Current => "fp8-current",
            Self::Fp8Block => "fp8-blockwise",
            Self::Mxfp8 => "mxfp8",
        }
    }

    /// Parses [`Self::name`], case-insensitive.
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, crate::Error> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(crate::Error::Unknown {
                what: "compute precision",
            })
    }

    /// Any of the 8-bit formats?
    #[must_use]
    pub fn is_fp8(self) -> bool {
        self != Self::Bf16
    }

    /// Bytes one element's cast moves, (an unfused GEMM input, a
    /// norm-fused one, an output gradient): per tensor with delayed
    /// scaling 3 (2 read, 1 written), 1 where the norm writes it, 3;
    /// current scaling reads each input once more for its amax and
    /// cannot fuse, 5 each; block scales (1×128, 1×32) quantize the two
    /// directions apart from one read, 2 + 2 (the norm writing both
    /// copies: 2). [`crate::cost::step::fp8_casts`] counts the elements.
    #[must_use]
    pub fn cast_bytes(self) -> (f64, f64, f64) {
        match self {
            Self::Bf16 => (0.0, 0.0, 0.0),
            Self::Fp8 => (3.0, 1.0, 3.0),
            Self::Fp8Current => (5.0, 5.0, 5.0),
            Self::Fp8Block | Self::Mxfp8 => (4.0, 2.0, 4.0),
        }
    }
}

/// A GPU's dense FP8 peak (the vendors' data sheets, without sparsity:
/// H100 and H200 SXM 1979 Tflop/s, B200 and B300 4.5 Pflop/s, GB200's
/// and GB300's Blackwell GPUs 5 Pflop/s; MXFP8 runs on the same tensor
/// cores at the same peak); `None` for GPUs without FP8 tensor cores
/// (A100).
#[must_use]
pub fn fp8_peak(gpu: &Gpu) -> Option<FlopPerSec> {
    match gpu.name {
        "h100-sxm" | "h100-96gb-500w" | "h800" | "h200" => Some(FlopPerSec(1979e12)),
        "b200" | "b300" => Some(FlopPerSec(4500e12)),
        "gb200" | "gb300" => Some(FlopPerSec(5000e12)),
        _ => None,
    }
}

/// Does the GPU have block-scaled (MX) tensor cores: the Blackwell GPUs
/// (SM 10.0, 10.3; Transformer Engine's support matrix)?
#[must_use]
pub fn mx_native(gpu: &Gpu) -> bool {
    matches!(gpu.name, "b200" | "gb200" | "b300" | "gb300")
}

/// Why FP8 cannot run on a GPU without FP8 tensor cores.
pub const NO_FP8: &str =
    "this GPU has no FP8 tensor cores (FP8 needs an H100, H800, H200, B200, GB200, B300 or GB300)";

/// Why MXFP8 cannot run on a GPU without block-scaled tensor cores.
pub const NO_MXFP8: &str = "MXFP8 needs Blackwell's block-scaled tensor cores (B200, GB200, B300 or GB300); a Hopper GPU runs fp8, fp8-current or fp8-blockwise";

/// Why `compute` cannot run on `gpu`, or `None` where it can.
#[must_use]
pub fn format_refusal(compute: Compute, gpu: &Gpu) -> Option<&'static str> {
    if compute.is_fp8() && fp8_peak(gpu).is_none() {
        Some(NO_FP8)
    } else if compute == Compute::Mxfp8 && !mx_native(gpu) {
        Some(NO_MXFP8)
    } else {
        None
    }
}
