//! Kernels by shape: how long one GEMM or one attention kernel takes on a
//! GPU, from its shape, before a training run's sustained clock
//! ([`crate::cost::assumptions::KernelFit::gemm_efficiency`]) scales it.
//!
//! # GEMMs
//!
//! A GEMM of M×K by K×N is cut into output tiles, each computed by one
//! streaming multiprocessor; the tiles run in waves of one tile per SM, so
//! a last, partly filled wave wastes the rest (NVIDIA's *Deep Learning
//! Performance* guide, "Matrix Multiplication Background": tile and wave
//! quantization). The library picks the tile (256×128, 128×128, 128×64,
//! either way round) and a split of K (1, 2, 4, 8 pieces of at least 512,
//! more tiles for short and wide GEMMs) that fills the waves best, a
//! smaller tile running at a lower fraction of the large tile's rate. The
//! GEMM then takes the longer of its flops at the filled fraction of the
//! ceiling and its bytes at the memory's achievable bandwidth, plus a
//! fixed ramp:
//!
//! ```text
//! t = max(2MNK / (peak · ceiling · η_tile · fill),
//!         (MK + KN)·b_in + 2·MN) / (β · e_mem)) + t_ramp
//! fill = tiles / (⌈tiles/SMs⌉ · SMs)
//! ```
//!
//! Fitted on 1 832 GEMMs measured on one H100 (`calibration/h100-2026-11-25/`
//! `kernels.json` and `small_gemms.json`: a GPT layer's linears forward,
//! data- and weight-gradient, widths 1 024–16 384, 1 024–16 384 tokens,
//! tensor degrees 1–8; the experts' and small-batch GEMMs of 64–8 192
//! rows; bf16 and FP8) by least squares on the log time ratio (a grid
//! over the six constants of [`HOPPER`]), a prediction under the
//! measuring loop's 20 µs launch floor compared as that floor: median
//! |error| 5.5 %, GEMMs over 100 Gflop 4.5 %, largest 44 % (a 1 024 × 768
//! × 8 192 weight gradient); `core/tests/kernels.rs` holds the fit to
//! those tables. The sustained clock of a training run is fitted apart,
//! on the calibration runs ([`crate::cost::assumptions::KernelFit`]): H100
//! 0.88, the 700 W part's clock under a whole step's load against the
//! isolated kernels' boost.
//!
//! # Attention
//!
//! A causal flash-attention kernel's rate rises with the sequence (each
//! tile of queries meets more keys, the masked diagonal is a smaller
//! share) toward a ceiling: rate(s) = ceiling · s/(s + s½), forward and
//! backward apart, counted as the kernels count, half the square for a
//! causal mask; a head size of 64 runs at (64/128)^0.4 of 128's. Fitted on
//! the H100's `scaled_dot_product_attention` (PyTorch 2.11's flash
//! backend: the same tables, head size 128, sequences 1 024–32 768, and
//! head size 64 at 1 024–16 384; PyTorch picks cuDNN's kernel there, as
//! Transformer Engine does for Megatron-Core): median under 5 %, worst
//! 21 % (the forward at 32 K, slower than at 16 K), save 16 heads at 1 K
//! (too few tiles, 26 % under). The Blackwell GPUs take these fractions
//! with their own SM counts, stated as not measured (`measured: false`),
//! save the FP8 ceiling ([`BLACKWELL_FP8`], fitted on torchtitan's MXFP8
//! speed-ups on GB200-class GPUs).
//!
//! Which kernel runs is the framework's ([`AttentionKernel`]): cuDNN's
//! fused attention (or FlashAttention-3, as fast) where Transformer Engine,
//! torchtitan (since March 2025) or PyTorch ≥ 2.11's
//! `scaled_dot_product_attention` run it on Hopper and Blackwell, the
//! curves above; FlashAttention-2 where the `flash-attn` 2 package
//! (Hugging Face's `flash_attention_2`, llm-foundry, Megatron-DeepSpeed)
//! or an older PyTorch's SDPA runs it. FlashAttention-2 does not use
//! Hopper's warp-group instructions and reaches about half the rate
//! ([`HOPPER_FA2`]: fitted on the FlashAttention-3 paper's H100 forward
//! figures and the FlashAttention-2 README's H100 forward + backward
//! figures, with one H200's PyTorch 2.11 `flash` backend from 512 to 65 536
//! tokens, `calibration/h200-2026-11-26/shapes.json`: forward median 2.2 %,
//! worst 7 %; backward median 6.5 %, worst 22 % at 512 tokens, where the
//! two sources disagree by 40 %). On an A100 both kernels are
//! FlashAttention-2's ([`AMPERE_FA2`]: the FlashAttention-2 README's A100
//! forward + backward figures, causal, head size 128, 512–16 384 tokens,
//! worst 1.1 %; the forward/backward split is Hopper's FlashAttention-2
//! ratio, stated, not measured).
//!
//! FlashAttention-1's class ([`AttentionKernel::Fa1`]): the `flash-attn`
//! 1.x CUDA kernel and the Triton FlashAttention that llm-foundry runs as
//! `attn_impl: triton` (MPT's published benchmarks of 2023, from
//! HazyResearch's `flash_attn_triton.py`), the same speed within 4 % on
//! an A100. Fitted on the FlashAttention-2 README's forward + backward
//! figures, causal, head size 128: on an A100 both kernels, 512–16 384
//! tokens, worst 5.2 % ([`AMPERE_FA1`]: about 0.42 of FlashAttention-2's
//! rate at 16 K); on an H100 the CUDA kernel, worst 10 % ([`HOPPER_FA1`]:
//! 137 Tflop/s at 16 K, 14 % of the peak). Its forward/backward split is
//! FlashAttention-2's A100 ratio, stated; its head size 64 runs 0–21 %
//! faster than 128 in those figures and is taken at 128's rate
//! (conservative), where cuDNN's and FlashAttention-2's run slower
//! ([`Curves::head_exponent`]).

use crate::hardware::Gpu;

/// The attention kernel a framework runs (CLI `--attention`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AttentionKernel {
    /// cuDNN's fused attention or FlashAttention-3: Transformer Engine's
    /// choice on Hopper and Blackwell, torchtitan's on every GPU since
    /// October 2025 (`sdpa_kernel([CUDNN_ATTENTION, FLASH_ATTENTION, …],
    /// set_priority=True)`, pytorch/torchtitan#1776; on B200 alone from
    /// May 2025, #1196, FlashAttention-2 first on Hopper), PyTorch ≥ 2.11's
    /// SDPA default there (`check_prefer_cudnn_attention`, once the wheel's
    /// cuDNN passes 9.15).
    #[default]
    Cudnn,
    /// FlashAttention-2: the `flash-attn` 2 package, and PyTorch's SDPA
    /// `flash` backend, its default before 2.11.
    Fa2,
    /// FlashAttention-1's class: `flash-attn` 1.x and the Triton
    /// FlashAttention (llm-foundry's `attn_impl: triton`, its published
    /// MPT benchmarks of 2023).
    Fa1,
}

impl AttentionKernel {
    /// Stable name (CLI `--attention`, JSON `attention`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Cudnn => "cudnn",
            Self::Fa2 => "fa2",
            Self::Fa1 => "fa1",
        }
    }

    /// Every kernel.
    pub const ALL: [Self; 3] = [Self::Cudnn, Self::Fa2, Self::Fa1];

    /// In words (the CLI's answer).
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Cudnn => "cuDNN attention",
            Self::Fa2 => "FlashAttention-2",
            Self::Fa1 => "FlashAttention-1 (or Triton's)",
        }
    }
}

/// The number format of a GEMM's inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// BF16 (or FP16) inputs.
    Bf16,
    /// FP8 inputs (E4M3/E5M2) with one scale per tensor, BF16 output.
    Fp8,
    /// FP8 inputs with 1×128 and 128×128 block scales applied on the CUDA
    /// cores (Hopper: DeepGEMM, Transformer Engine's `Float8BlockScaling`).
    Fp8Block,
    /// MXFP8: FP8 inputs with a scale per 32 elements, in Blackwell's
    /// block-scaled tensor cores.
    Mx,
}

impl Format {
    fn bytes(self) -> f64 {
        match self {
            Self::Bf16 => 2.0,
            Self::Fp8 | Self::Fp8Block | Self::Mx => 1.0,
        }
    }

    /// The fraction of its peak the largest GEMMs of depth `k` reach in
    /// this format on curves `c`: the format's ceiling; block-scaled FP8
    /// on Hopper pays a fixed cost per output tile (the scales' loads and
    /// the promotion of each 128-deep block's partial sums into FP32
    /// registers), k/(k + k½) of its ceiling.
    #[must_use]
    pub fn ceiling(self, c: &Curves, k: f64) -> f64 {
        match self {
            Self::Bf16 => c.ceiling_bf16,
            Self::Fp8 => c.ceiling_fp8,
            Self::Fp8Block => c.ceiling_fp8_block * k / (k + c.block_k_half),
            Self::Mx => c.ceiling_fp8 * c.mx_kernel,
        }
    }
}

/// One GPU's kernel curves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Curves {
    /// Streaming multiprocessors.
    pub sms: f64,
    /// Fraction of the BF16 peak the largest GEMMs reach.
    pub ceiling_bf16: f64,
    /// Fraction of the FP8 peak the largest FP8 GEMMs reach.
    pub ceiling_fp8: f64,
    /// Fraction of the FP8 peak the deepest block-scaled FP8 GEMMs reach
    /// on Hopper ([`Format::Fp8Block`]).
    pub ceiling_fp8_block: f64,
    /// The depth K at which block-scaled FP8 reaches half that.
    pub block_k_half: f64,
    /// An MXFP8 GEMM's rate against the per-tensor FP8 kernel's at the
    /// same shape ([`Format::Mx`]).
    pub mx_kernel: f64,
    /// A 128×128 tile's rate against a 256×128 tile's.
    pub tile_128: f64,
    /// A 128×64 tile's.
    pub tile_64: f64,
    /// Fixed ramp of a GEMM (s).
    pub ramp: f64,
    /// Fraction of the memory bandwidth a memory-bound kernel reaches
    /// (GEMMs; the optimizer's and autocast's casts, measured apart at
    /// the same 0.68–0.74 in whole steps).
    pub memory: f64,
    /// Fraction of the BF16 peak a GEMM reaches when one of its
    /// dimensions is not a multiple of 8 elements (16 bytes): cuBLAS falls
    /// back to CUTLASS's SM75 `align1` kernels (GPT-2's 50 257-entry
    /// vocabulary unpadded: 116–128 Tflop/s in three whole steps of
    /// `calibration/h100-2026-11-26/profile_steps.json`).
    pub unaligned: f64,
    /// Causal attention forward: ceiling (fraction of the BF16 peak) and
    /// the sequence at which half of it is reached.
    pub attention_forward: (f64, f64),
    /// The same for the backward pass.
    pub attention_backward: (f64, f64),
    /// A head size h under 128 runs at (h/128)^this of 128's rate (0.4
    /// for cuDNN's and FlashAttention-2's kernels; 0 for
    /// FlashAttention-1's class, whose figures run faster at 64).
    pub head_exponent: f64,
    /// Were these curves measured on this GPU (else another's, scaled)?
    pub measured: bool,
}

/// The H100's curves (fitted, see the module's doc).
pub const HOPPER: Curves = Curves {
    sms: 132.0,
    ceiling_bf16: 0.72,
    ceiling_fp8: 0.65,
    ceiling_fp8_block: 0.71,
    block_k_half: 625.0,
    mx_kernel: 0.95,
    tile_128: 0.8,
    tile_64: 0.6,
    ramp: 4e-6,
    memory: 0.7,
    unaligned: 0.125,
    attention_forward: (0.66, 392.0),
    attention_backward: (0.54, 1336.0),
    head_exponent: 0.4,
    measured: true,
};

/// The fraction of its FP8 peak the largest FP8 GEMMs reach on a
/// Blackwell GPU (B200, GB200, B300, GB300), where the H100's curves give
/// 0.65: fitted on torchtitan's MXFP8 over BF16 speed-ups on GB200-class
/// GPUs (`calibration/published/torchtitan.json`, `tt_nvfp4_doc`: Llama 3
/// 8B 1.281, Qwen3 8B 1.319, compiled, FSDP on four), by least squares on
/// the log ratio with every other figure held: the two rows' errors ±1.9 %,
/// where 0.65 gave +7.4 and +3.3 % (`core/tests/frameworks/`). Twice the
/// BF16 peak is not reached at FP8: the same clock under a heavier load.
pub const BLACKWELL_FP8: f64 = 0.595;

/// FlashAttention-2 on Hopper, forward and backward: ceiling and half
/// sequence (fitted, see the module's doc).
pub const HOPPER_FA2: [(f64, f64); 2] = [(0.355, 368.0), (0.329, 832.0)];

/// FlashAttention-2 on an A100, forward and backward (fitted, see the
/// module's doc): every framework's kernel there.
pub const AMPERE_FA2: [(f64, f64); 2] = [(0.655, 480.0), (0.607, 480.0)];

/// FlashAttention-1's class on Hopper, forward and backward (fitted on
/// the FlashAttention-2 README's H100 figures, see the module's doc).
pub const HOPPER_FA1: [(f64, f64); 2] = [(0.132, 75.0), (0.122, 75.0)];

/// FlashAttention-1's class on an A100 (fitted on the FlashAttention-2
/// README's A100 figures of both kernels, see the module's doc).
pub const AMPERE_FA1: [(f64, f64); 2] = [(0.271, 275.0), (0.251, 275.0)];

impl Curves {
    /// These curves with `kernel`'s attention.
    #[must_use]
    pub fn with_attention(mut self, kernel: AttentionKernel) -> Self {
        // The A100's curves on its 108 SMs, else Hopper's.
        let ampere = self.sms < 120.0;
        let curves = match kernel {
            AttentionKernel::Cudnn => return self,
            AttentionKernel::Fa2 if ampere => AMPERE_FA2,
            AttentionKernel::Fa2 => HOPPER_FA2,
            // The page cannot pick a kernel: without the `knobs` feature
            // FlashAttention-1's curves stay out of its wasm.
            AttentionKernel::Fa1 if !cfg!(feature = "knobs") => return self,
            AttentionKernel::Fa1 => {
                self.head_exponent = 0.0;
                if ampere {
                    AMPERE_FA1
                } else {
                    HOPPER_FA1
                }
            }
        };
        self.attention_forward = curves[0];
        self.attention_backward = curves[1];
        self
    }
}

/// The curves of a GPU: the H100's measured ones for the Hopper GPUs
/// (H100, H800, H200: one die); for the others the same fractions with
/// their generation's SM count (read off the BF16 peak: an A100's 312
/// Tflop/s, 108 SMs; a Blackwell's 2.25 Pflop/s and more, 148), stated as
/// not measured, save the A100's attention: FlashAttention-2's, measured
/// ([`AMPERE_FA2`]).
#[must_use]
pub fn curves(gpu: &Gpu) -> Curves {
    let peak = gpu.peak.0;
    let (attention_forward, attention_backward) = if peak < 500e12 {
        (AMPERE_FA2[0], AMPERE_FA2[1])
    } else {
        (HOPPER.attention_forward, HOPPER.attention_backward)
    };
    Curves {
        attention_forward,
        attention_backward,
        ceiling_fp8: if peak < 1500e12 {
            HOPPER.ceiling_fp8
        } else {
            BLACKWELL_FP8
        },
        sms: if matches!(gpu.name, "b300" | "gb300") {
            // Blackwell Ultra: 160 SMs (NVIDIA, "Inside NVIDIA Blackwell
            // Ultra", 2025).
            160.0
        } else if peak < 500e12 {
            108.0
        } else if peak < 1500e12 {
            132.0
        } else {
            148.0
        },
        measured: matches!(gpu.name, "h100-sxm" | "h100-96gb-500w" | "h800" | "h200"),
        ..HOPPER
    }
}

/// Tiles (rows × columns) the library chooses among, with their rate
/// against the largest: (rows, columns, which rate).
const TILES: [(u16, u16, u8); 3] = [(256, 128, 0), (128, 128, 1), (128, 64, 2)];

/// The best fraction of the ceiling the waves of an M×N output over K
/// reach: the tile and split of K that fill the SMs best. A split of K
/// only helps a GEMM whose tiles do not fill one wave, and is tried only
/// there (the search calls this for every candidate's layer: integer
/// arithmetic, no float rounding calls).
#[must_use]
pub fn fill(c: &Curves, m: f64, n: f64, k: f64) -> f64 {
    use crate::math::ceil;
    let sms = c.sms;
    let mut best: f64 = 0.0;
    for (rows, cols, which) in TILES {
        let eta = match which {
            0 => 1.0,
            1 => c.tile_128,
            _ => c.tile_64,
        };
        if eta <= best {
            continue;
        }
        let (rows, cols) = (rows as f64, cols as f64);
        let bases = [
            ceil(m / rows) * ceil(n / cols),
            ceil(n / rows) * ceil(m / cols),
        ];
        let orientations = if rows == cols { 1 } else { 2 };
        for &base in &bases[..orientations] {
            let mut split = 1.0;
            loop {
                let tiles = base * split;
                best = best.max(eta * tiles / (ceil(tiles / sms) * sms));
                split *= 2.0;
                if split > 8.0 || k / split < 512.0 || best >= eta {
                    break;
                }
            }
        }
    }
    best
}

/// A fractional dimension (an average over layers or experts) is not a
/// real shape, and counts as aligned.
fn aligned(x: f64) -> bool {
    if (x - crate::math::round(x)).abs() > 1e-6 {
        return true;
    }
    let r = x - 8.0 * crate::math::floor(x / 8.0);
    r.abs() < 1e-6 || (8.0 - r).abs() < 1e-6
}

/// Seconds of one M×N×K GEMM in `format` at `peak` flop/s (the format's)
/// and `bandwidth` bytes/s of memory, on curves `c`.
#[must_use]
pub fn gemm_seconds(
    c: &Curves,
    format: Format,
    peak: f64,
    bandwidth: f64,
    (m, n, k): (f64, f64, f64),
) -> f64 {
    if m <= 0.0 || n <= 0.0 || k <= 0.0 {
        return 0.0;
    }
    if !(aligned(m) && aligned(n) && aligned(k)) {
        // The fallback kernel: no tile choice recovers it.
        let compute = 2.0 * m * n * k / (peak * c.unaligned);
        return compute + c.ramp;
    }
    let ceiling = format.ceiling(c, k);
    let compute = 2.0 * m * n * k / (peak * ceiling * fill(c, m, n, k));
    let bytes = (m * k + k * n) * format.bytes() + 2.0 * m * n;
    compute.max(bytes / (bandwidth * c.memory)) + c.ramp
}

/// A causal attention kernel's rate as a fraction of the BF16 peak, for
/// sequence `seq` and head size `head`, counting half the square
/// (`forward`: the forward kernel, else the backward).
#[must_use]
pub fn attention_rate(c: &Curves, seq: f64, head: f64, forward: bool) -> f64 {
    let (ceiling, half) = if forward {
        c.attention_forward
    } else {
        c.attention_backward
    };
    let head = if head >= 128.0 {
        1.0
    } else {
        crate::math::pow(head / 128.0, c.head_exponent)
    };
    ceiling * head * seq / (seq + half)
}

/// Seconds of `groups` equal M×N×K GEMMs run as one grouped GEMM (a
/// mixture's local experts: their tiles share the waves).
#[must_use]
pub fn grouped_seconds(
    c: &Curves,
    format: Format,
    peak: f64,
    bandwidth: f64,
    groups: f64,
    (m, n, k): (f64, f64, f64),
) -> f64 {
    if groups <= 1.0 {
        // One expert's rows are whatever routing sends it: grouped-GEMM
        // kernels pad them to the tile's alignment.
        let rows = crate::math::ceil(m / 8.0) * 8.0;
        return gemm_seconds(c, format, peak, bandwidth, (rows, n, k));
    }
    // The tiles of all groups fill the waves together: as one GEMM of
    // `groups` times the rows, with each group's own memory traffic.
    let ceiling = format.ceiling(c, k);
    let rows = crate::math::ceil(m / 128.0) * 128.0;
    let compute = groups * 2.0 * m * n * k / (peak * ceiling * fill(c, groups * rows, n, k));
    let bytes = groups * ((m * k + k * n) * format.bytes() + 2.0 * m * n);
    compute.max(bytes / (bandwidth * c.memory)) + c.ramp
}

/// Seconds per flop of a layer's kernels on one GPU, by kind and pass
/// (sustained clock included): what [`crate::cost::step::step_time`]
/// multiplies the layer's flops by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerRates {
    /// The dense linears' (attention projections, dense or shared MLP)
    /// forward GEMMs.
    pub dense_forward: f64,
    /// Their data- and weight-gradient GEMMs.
    pub dense_backward: f64,
    /// The routed experts' forward GEMMs (grouped).
    pub expert_forward: f64,
    /// Their backward GEMMs.
    pub expert_backward: f64,
    /// Causal flash attention forward, per flop of the full square (the
    /// count plan3d reports; the kernel computes half).
    pub attention_forward: f64,
    /// Its backward, per flop of the full square's 2× forward.
    pub attention_backward: f64,
}

impl LayerRates {
    /// Each rate the least of the two: a layer's rates no slower than
    /// either's (the search's floor over the expert degrees it tries).
    #[must_use]
    pub fn least(self, o: Self) -> Self {
        Self {
            dense_forward: self.dense_forward.min(o.dense_forward),
            dense_backward: self.dense_backward.min(o.dense_backward),
            expert_forward: self.expert_forward.min(o.expert_forward),
            expert_backward: self.expert_backward.min(o.expert_backward),
            attention_forward: self.attention_forward.min(o.attention_forward),
            attention_backward: self.attention_backward.min(o.attention_backward),
        }
    }
}

/// What one layer's GEMMs look like on one GPU: `tokens` rows of a
/// micro-batch (b·s/cp), `tensor` ranks splitting each weight, `expert`
/// ranks holding the routed experts, each expert split over
/// `expert_tensor` ranks, `sequence` the attention's query length per
/// kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerShape {
    /// Rows of each dense GEMM, b·s/cp.
    pub tokens: f64,
    /// Tensor-parallel degree.
    pub tensor: f64,
    /// Expert-parallel degree.
    pub expert: f64,
    /// The routed experts' tensor-parallel degree (Megatron-Core's
    /// `--expert-tensor-parallel-size`).
    pub expert_tensor: f64,
    /// The attention kernel's sequence (s/cp).
    pub sequence: f64,
    /// q, k and v (and a gated MLP's gate and up) as separate GEMMs
    /// ([`crate::cost::saved::LayerCode::split_projections`]).
    pub split_projections: bool,
}

/// Forward and backward seconds of one y = x·W GEMM of M rows, K in,
/// N out: forward (M, N, K), data gradient (M, K, N), weight gradient
/// (K, N, M), `groups` at once.
fn passes(
    c: &Curves,
    format: Format,
    peak: f64,
    bandwidth: f64,
    groups: f64,
    (m, k, n): (f64, f64, f64),
) -> (f64, f64) {
    let g = |shape| grouped_seconds(c, format, peak, bandwidth, groups, shape);
    (g((m, n, k)), g((m, k, n)) + g((k, n, m)))
}

/// [`LayerRates`] of `model` on `gpu`'s curves `c`: linears in `format` at
/// `linear_peak`, attention at the BF16 `peak`, `bandwidth` of memory,
/// `sustained` the run's fraction of the isolated kernels' speed.
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn layer_rates(
    model: &crate::model::ModelShape,
    c: &Curves,
    format: Format,
    (linear_peak, peak, bandwidth): (f64, f64, f64),
    shape: LayerShape,
    sustained: f64,
) -> LayerRates {
    let dm = model.width() as f64;
    let t = shape.tensor.max(1.0);
    let m = shape.tokens.max(1.0);
    // The attention's projections: (K, N) pairs, split over t.
    let qkv_out = match model.latent {
        None => model.attention_width() as f64 + 2.0 * model.kv_width(),
        Some(_) => model.attention_params() / (2.0 * dm),
    };
    let attn_in = match model.latent {
        None => model.attention_width() as f64,
        Some(_) => qkv_out,
    };
    let gate = if model.gated_mlp { 2.0 } else { 1.0 };
    let dense_ffn = match model.experts {
        Some(e) => f64::from(e.ffn) * f64::from(e.shared),
        None => f64::from(model.ffn),
    };
    // (K, N, how many alike): fused, one QKV and one gate-up GEMM; split
    // (a layer code's own projections), q, then k and v of the key-value
    // width each, and gate and up apart.
    let split = shape.split_projections && model.latent.is_none();
    let kv = model.kv_width();
    let mut gemms: [(f64, f64, f64); 5] = if split {
        [
            (dm, model.attention_width() as f64 / t, 1.0),
            (dm, kv / t, 2.0),
            (attn_in / t, dm, 1.0),
            (dm, dense_ffn / t, gate),
            (dense_ffn / t, dm, 1.0),
        ]
    } else {
        [
            (dm, qkv_out / t, 1.0),
            (attn_in / t, dm, 1.0),
            (dm, gate * dense_ffn / t, 1.0),
            (dense_ffn / t, dm, 1.0),
            (0.0, 0.0, 0.0),
        ]
    };
    if dense_ffn <= 0.0 {
        // No dense MLP (a mixture without shared experts).
        let up = if split { 3 } else { 2 };
        gemms[up] = (0.0, 0.0, 0.0);
        gemms[up + 1] = (0.0, 0.0, 0.0);
    }
    let (mut flops, mut fwd, mut bwd) = (0.0, 0.0, 0.0);
    for (k, n, count) in gemms {
        if k > 0.0 && n > 0.0 && count > 0.0 {
            let (f, b) = passes(c, format, linear_peak, bandwidth, 1.0, (m, k, n));
            flops += count * 2.0 * m * k * n;
            fwd += count * f;
            bwd += count * b;
        }
    }
    let dense_forward = fwd / flops.max(1.0);
    let dense_backward = bwd / (2.0 * flops).max(1.0);
    let (expert_forward, expert_backward) = match model.experts {
        Some(e) if e.routed > 0 => {
            let ep = shape.expert.max(1.0);
            let etp = shape.expert_tensor.max(1.0);
            let local = (f64::from(e.routed) / ep).max(1.0);
            // Each expert's rows: the k copies of the tokens of ep ranks'
            // expert-tensor groups (each gathers etp sequence-parallel
            // shards of m/t rows) spread over the E experts.
            let rows = (m * etp / t * f64::from(e.top_k) * ep / f64::from(e.routed)).max(1.0);
            let ffn = f64::from(e.ffn);
            let mut fl = 0.0;
            let (mut f, mut b) = (0.0, 0.0);
            for (k, n) in [(dm, gate * ffn / etp), (ffn / etp, dm)] {
                let (pf, pb) = passes(c, format, linear_peak, bandwidth, local, (rows, k, n));
                fl += 2.0 * local * rows * k * n;
                f += pf;
                b += pb;
            }
            (f / fl.max(1.0), b / (2.0 * fl).max(1.0))
        }
        _ => (dense_forward, dense_backward),
    };
    let head = f64::from(model.head_size);
    let seq = shape.sequence.max(1.0);
    // Half the square computed for a causal mask; the backward kernel
    // does 2.5× the forward's work (it recomputes the scores) where the
    // full count charges 2×.
    let attention_forward = 0.5 / (peak * attention_rate(c, seq, head, true));
    let attention_backward = 0.5 * 2.5 / 2.0 / (peak * attention_rate(c, seq, head, false));
    let s = sustained.max(1e-6);
    LayerRates {
        dense_forward: dense_forward / s,
        dense_backward: dense_backward / s,
        expert_forward: expert_forward / s,
        expert_backward: expert_backward / s,
        attention_forward: attention_forward / s,
        attention_backward: attention_backward / s,
    }
}
