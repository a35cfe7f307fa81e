//! The practice knobs against hand-derived values: Korthikanti et al.'s
//! activation counts, the 18-byte and sharded state, ring collectives,
//! FP8, context parallelism, the loss's memory, and the paper's numbers
//! unchanged (the pipeline's schedules and placement: `pipeline.rs`).

use plan3d_core::cost::assumptions::{Assumptions, Precision, Zero};
use plan3d_core::cost::memory::stage_memory;
use plan3d_core::cost::step;
use plan3d_core::cost::{evaluate_with, Method, ZeroR};
use plan3d_core::model::{self, ModelShape};
use plan3d_core::{evaluate, hardware, ActivationModel, Config, Hardware, Network};

pub(crate) fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
}

/// GPT-3 175B (Korthikanti's running example: s 2048, h 12288, a 96).
pub(crate) const GPT3: ModelShape = model::GPT_3;

pub(crate) fn cfg(activation: ActivationModel, sp: bool, tensor: u32) -> Config {
    Config {
        tensor,
        activation,
        sequence_parallel: sp,
        ..Config::default()
    }
}

/// Korthikanti et al. 2022, Table 2, per layer and token (divide their
/// s·b·h·(…) by s·b): without recomputation 10h + 24h/t + 5as/t; with
/// sequence parallelism 34h/t + 5as/t; selective drops the 5as/t; full
/// keeps the layer input, 2h (2h/t with sequence parallelism).
#[test]
fn korthikanti_activation_counts() {
    let (h, a, s, t) = (12_288.0, 96.0, 2048.0, 8.0);
    // Korthikanti's count: Megatron-LM 2022's layer, dropout on.
    let korthikanti = |flash: bool| {
        let mut a =
            plan3d_core::cost::framework::Framework::Megatron2022.apply(Assumptions::PRACTICE);
        a.flash_attention = flash;
        a
    };
    let kept = |act, sp| step::kept_per_token(&GPT3, &cfg(act, sp, 8), &korthikanti(false)).0;
    assert!(close(
        kept(ActivationModel::None, false),
        10.0 * h + 24.0 * h / t + 5.0 * a * s / t,
        1e-12
    ));
    assert!(close(
        kept(ActivationModel::None, true),
        34.0 * h / t + 5.0 * a * s / t,
        1e-12
    ));
    assert!(close(
        kept(ActivationModel::Selective, false),
        10.0 * h + 24.0 * h / t,
        1e-12
    ));
    assert!(close(
        kept(ActivationModel::Selective, true),
        34.0 * h / t,
        1e-12
    ));
    assert!(close(kept(ActivationModel::Full, false), 2.0 * h, 1e-12));
    assert!(close(kept(ActivationModel::Full, true), 2.0 * h / t, 1e-12));
    // FlashAttention stores no scores: no recomputation equals selective.
    let flash = |act| step::kept_per_token(&GPT3, &cfg(act, true, 8), &korthikanti(true)).0;
    assert_eq!(
        flash(ActivationModel::None),
        flash(ActivationModel::Selective)
    );
    // Full recomputation's working set is one layer without recomputation.
    let full = step::kept_per_token(
        &GPT3,
        &cfg(ActivationModel::Full, false, 8),
        &korthikanti(false),
    );
    assert!(close(
        full.1,
        10.0 * h + 24.0 * h / t + 5.0 * a * s / t,
        1e-12
    ));
}

/// Mixed-precision Adam keeps 2 + 4 + 12 = 18 bytes per parameter; the
/// distributed optimizer (ZeRO-1) divides the 12 by d, ZeRO-2 the
/// gradients too, ZeRO-3 everything (seed 001, Table 1's Ψ terms).
#[test]
fn eighteen_bytes_and_their_shards() {
    assert_eq!(Precision::MixedAdam.total(), 18.0);
    assert_eq!(Precision::Fp32Adam.total(), 16.0);
    assert_eq!(Precision::SgdMomentum.total(), 14.0);
    assert_eq!(Precision::Adam8Bit.total(), 10.0);
    let m = ModelShape {
        vocab: None,
        ..GPT3
    };
    let p = m.params();
    // Gradients kept in fp32 (`grad_reduce_in_fp32`): 18 bytes; bf16 ones,
    // Megatron-Core's default, 16.
    let a = Assumptions {
        gradient_reduce_bytes: 4.0,
        ..Assumptions::PRACTICE
    };
    let base = Config {
        data: 8,
        ..Config::default()
    };
    let bf16 = stage_memory(&m, &base, &Assumptions::PRACTICE, 0);
    assert_eq!(bf16.gradients.0, 2.0 * p);
    let state = |zero| {
        let s = stage_memory(&m, &Config { zero, ..base }, &a, 0);
        (s.weights.0, s.gradients.0, s.optimizer.0)
    };
    assert_eq!(state(Zero::None), (2.0 * p, 4.0 * p, 12.0 * p));
    assert_eq!(state(Zero::One), (2.0 * p, 4.0 * p, 12.0 * p / 8.0));
    // Sharded gradients pass through one layer's unsharded gradient (fp32
    // here) before its reduce-scatter.
    let bucket = 4.0 * m.layer_params();
    let (w, g, o) = state(Zero::Two);
    assert_eq!((w, o), (2.0 * p, 12.0 * p / 8.0));
    assert!(close(g, 4.0 * p / 8.0 + bucket, 1e-12));
    // ZeRO-3 holds its shard plus two gathered layers (current, prefetched).
    let (w, g, o) = state(Zero::Three);
    assert!(close(w, 2.0 * p / 8.0 + 4.0 * m.layer_params(), 1e-12));
    assert!(close(g, 4.0 * p / 8.0 + bucket, 1e-12));
    assert_eq!(o, 12.0 * p / 8.0);
    // The paper's partitioned method is ZeRO-3.
    let part = Config {
        method: Method::Partitioned,
        ..base
    };
    assert_eq!(stage_memory(&m, &part, &a, 0).optimizer.0, 12.0 * p / 8.0);
}

pub(crate) fn h100() -> Hardware {
    Hardware {
        gpu: hardware::H100_SXM,
        node_size: Some(8),
        network: Network::InfiniBand400,
        ..Hardware::default()
    }
}

/// Every stage's parts sum to its total, the heaviest is what `fits`
/// compares, and the step's parts sum to the step; MFU ≤ HFU.
#[test]
fn practice_invariants() {
    let m = model::LLAMA_3_1_405B;
    let c = Config {
        data: 128,
        pipe: 16,
        tensor: 8,
        virtual_stages: 2,
        micro_batch: 1,
        micro_batches: 16,
        sequence_parallel: true,
        zero: Zero::One,
        activation: ActivationModel::Full,
        ..Config::default()
    };
    let e = evaluate_with(&m, &h100(), &c, &Assumptions::PRACTICE).unwrap();
    let parts = e.step_parts.unwrap();
    assert!(close(parts.total(), e.step.0, 1e-12));
    let mut heaviest = 0.0_f64;
    for s in e.stages.iter() {
        let sum: f64 = s.parts().iter().map(|(_, b)| b.0).sum();
        assert!(close(sum, s.total().0, 1e-12));
        heaviest = heaviest.max(s.total().0);
    }
    assert_eq!(e.peak_memory.0, heaviest);
    assert_eq!(e.fits, heaviest <= hardware::H100_SXM.memory.0);
    assert!(e.mfu() < e.hfu());
    assert!(close(
        e.tokens_per_second * e.step.0,
        2048.0 * 8192.0,
        1e-12
    ));
    // 20 tokens per parameter by default.
    assert!(close(e.tokens, 20.0 * m.params_exact(), 1e-12));
    // A token budget sets the days.
    let a = Assumptions {
        tokens: Some(15.6e12),
        ..Assumptions::PRACTICE
    };
    let e2 = evaluate_with(&m, &h100(), &c, &a).unwrap();
    assert!(close(e2.time.0, 15.6e12 / e2.tokens_per_second, 1e-12));
}

/// ZeRO-R (seed 001 sec. 6.1) on GPT-3 175B with full recomputation, t = 8,
/// b = 1, s = 2048, h = 12 288: P_a keeps each checkpoint's 1/t share,
/// 2·s·h/t = 6.29 MB per layer and micro-batch instead of 50.3 MB, and
/// all-gathers it before recomputing, (t−1)/t·2·s·h bytes over NVLink at
/// 0.8 × 450 GB/s per direction; P_a+cpu keeps no checkpoint on the GPU, 2 in its working
/// set, and copies each to and from CPU memory, exposed where a copy
/// outlasts its layer's forward (backward) GEMMs. With sequence
/// parallelism the checkpoint is split already, and P_a changes nothing.
#[test]
fn zero_r_partitions_and_offloads_checkpoints() {
    let m = GPT3;
    let a = Assumptions {
        overlap_tensor: false,
        ..Assumptions::PRACTICE
    };
    let hw = h100();
    let base = Config {
        data: 8,
        pipe: 8,
        tensor: 8,
        micro_batch: 1,
        micro_batches: 16,
        zero: Zero::One,
        activation: ActivationModel::Full,
        ..Config::default()
    };
    let with = |zero_r, sp| Config {
        zero_r,
        sequence_parallel: sp,
        ..base
    };
    let (s, h, t) = (2048.0, 12_288.0, 8.0);
    let eval = |c: &Config| evaluate_with(&m, &hw, c, &a).unwrap();
    let (kept, pa, cpu) = (
        eval(&with(ZeroR::None, false)),
        eval(&with(ZeroR::Pa, false)),
        eval(&with(ZeroR::PaCpu, false)),
    );
    let layers = 12.0; // 96 layers over 8 stages
    let in_flight0 = 8.0; // 1F1B, first stage
    let ckpt = 2.0 * s * h;
    let first = |e: &plan3d_core::Evaluation| *e.stages.iter().next().unwrap();
    assert!(close(
        first(&kept).activations.0,
        ckpt * layers * in_flight0,
        1e-12
    ));
    assert!(close(
        first(&pa).activations.0,
        ckpt / t * layers * in_flight0,
        1e-12
    ));
    assert_eq!(first(&cpu).activations.0, 0.0);
    assert!(close(
        first(&cpu).host.0,
        ckpt / t * layers * in_flight0,
        1e-12
    ));
    assert!(close(
        first(&cpu).working.0 - first(&pa).working.0,
        ckpt / t,
        1e-12
    ));
    assert_eq!(first(&pa).host.0, 0.0);
    // The all-gathers: per layer and micro-batch, (t−1)/t · 2sh bytes,
    // at 80 % of NVLink's 450 GB/s per direction, after NCCL's latency
    // (the better of a Simple ring, 8.4 + 7 × 3.4 µs, and LL128,
    // 14 + 7 × 1.9 µs at 92 % of the bandwidth).
    let bw = 900e9 / 2.0 * 0.8;
    let volume = (t - 1.0) / t * ckpt;
    let gather = f64::min(
        (8.4 + 7.0 * 3.4) * 1e-6 + volume / bw,
        (14.0 + 7.0 * 1.9) * 1e-6 + volume / (0.92 * bw),
    );
    let (pk, pp) = (kept.step_parts.unwrap(), pa.step_parts.unwrap());
    assert!(close(pp.tensor - pk.tensor, 16.0 * layers * gather, 1e-9));
    // P_a+cpu: the copies over the 50 GB/s CPU link hide under a GPT-3
    // layer's GEMMs here (no exposed time), and cost the P_a gathers.
    let pc = cpu.step_parts.unwrap();
    let copy = ckpt / t / hw.bandwidth(plan3d_core::Link::CpuGpu).0;
    assert!(copy < pc.compute / (16.0 * layers * 4.0), "{copy}");
    assert_eq!(pc.offload, 0.0);
    assert!(close(pc.tensor, pp.tensor, 1e-12));
    // On a slow CPU link the copies are exposed: (copy − forward) + (copy −
    // 3 × forward) per layer and micro-batch.
    let mut slow = hw;
    slow.gpu.cpu_gpu = plan3d_core::units::BytesPerSec(1e8);
    let c = with(ZeroR::PaCpu, false);
    let e = evaluate_with(&m, &slow, &c, &a)
        .unwrap()
        .step_parts
        .unwrap();
    let slow_copy = ckpt / t / 1e8;
    let fwd = e.compute / (16.0 * layers * 4.0);
    assert!(close(
        e.offload,
        16.0 * layers * ((slow_copy - fwd) + (slow_copy - 3.0 * fwd)),
        1e-9
    ));
    // With sequence parallelism P_a is a no-op.
    assert_eq!(
        eval(&with(ZeroR::Pa, true)).step,
        eval(&with(ZeroR::None, true)).step
    );
    assert_eq!(
        first(&eval(&with(ZeroR::Pa, true))),
        first(&eval(&with(ZeroR::None, true)))
    );
    // Checkpoints exist under full recomputation only.
    let err = evaluate_with(
        &m,
        &hw,
        &Config {
            activation: ActivationModel::Selective,
            ..with(ZeroR::Pa, false)
        },
        &a,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("full recomputation"), "{err}");
}

/// FP8 (`--precision fp8`): the linear layers' GEMMs at the FP8 peak
/// (1979 of H100's 989 Tflop/s), attention and the logit layer at BF16;
/// two more bytes per layer parameter for the cached FP8 weights and
/// their transpose; no FP8 on an A100.
#[test]
fn fp8_runs_the_linear_gemms_at_the_fp8_peak() {
    use plan3d_core::cost::assumptions::{kernel_fit, Compute};
    let m = GPT3;
    let hw = h100();
    let c = Config {
        data: 8,
        tensor: 8,
        micro_batch: 1,
        micro_batches: 4,
        sequence_parallel: true,
        zero: Zero::Three,
        activation: ActivationModel::Selective,
        ..Config::default()
    };
    // FP8 copies beside bf16 weights (Transformer Engine without FP8
    // primary weights); `fp8_params` below.
    let bf = Assumptions {
        fp8_params: false,
        ..Assumptions::PRACTICE
    };
    let f8 = Assumptions {
        compute: Compute::Fp8,
        ..bf
    };
    let (eb, e8) = (
        evaluate_with(&m, &hw, &c, &bf).unwrap(),
        evaluate_with(&m, &hw, &c, &f8).unwrap(),
    );
    // FP8 moves only the linear GEMMs: the attention's kernels and the
    // logit layer take the same time; the linear GEMMs run faster, but
    // by less than the peaks' 2× (the FP8 ceiling is a lower fraction of
    // its peak, kernels_by_shape).
    let (pb, p8) = (eb.step_parts.unwrap(), e8.step_parts.unwrap());
    assert!(close(pb.attention_forward, p8.attention_forward, 1e-12));
    assert!(close(pb.attention_backward, p8.attention_backward, 1e-12));
    assert!(close(pb.logits, p8.logits, 1e-12));
    let linear_b = pb.compute - pb.attention_forward - pb.attention_backward - pb.logits;
    let linear_8 = p8.compute - p8.attention_forward - p8.attention_backward - p8.logits;
    let ratio = linear_8 / linear_b;
    let curves = plan3d_core::cost::kernels::curves(&hw.gpu);
    let peaks = curves.ceiling_bf16 * 989.0 / (curves.ceiling_fp8 * 1979.0);
    assert!(ratio >= peaks * 0.999 && ratio < 0.75, "{ratio} vs {peaks}");
    let _ = kernel_fit;
    // The same work: model flops unchanged.
    assert_eq!(eb.model_flops_per_step, e8.model_flops_per_step);
    // Memory: 2 bytes per layer parameter of the FP8 copies, made from the
    // gathered bf16 layers under ZeRO-3 (the current and the prefetched
    // one, over t = 8), of all 96 layers' shards without it.
    let (sb, s8) = (eb.stages.heaviest(), e8.stages.heaviest());
    assert!(close(
        s8.weights.0 - sb.weights.0,
        2.0 * 2.0 * m.layer_params() / 8.0,
        1e-12
    ));
    let z1 = Config {
        zero: Zero::One,
        ..c
    };
    let weights = |a: &Assumptions| {
        evaluate_with(&m, &hw, &z1, a)
            .unwrap()
            .stages
            .heaviest()
            .weights
            .0
    };
    assert!(close(
        weights(&f8) - weights(&bf),
        2.0 * 96.0 * m.layer_params() / 8.0,
        1e-12
    ));
    // FP8 primary weights (NeMo's `fp8_params`, Megatron-Core's default
    // here): 1 byte each and a cached 1-byte transpose, in place of bf16's
    // 2: the layers' weights no heavier than bf16.
    let p8 = Assumptions {
        fp8_params: true,
        ..f8
    };
    assert!(close(weights(&p8), weights(&bf), 1e-12));
    // Activations: the FP8 GEMMs' inputs kept in 1 byte, not 2: per token
    // and layer d_m (QKV input) + d_m (FFN input), split by sequence
    // parallelism, + d_m (output projection's input) + 4·d_m (fc2's),
    // split over t = 8.
    let saved = (2.0 * 12288.0 + 12288.0 + 4.0 * 12288.0) / 8.0;
    let in_flight_tokens = sb.in_flight * 2048.0 * f64::from(sb.layers);
    assert!(close(
        sb.activations.0 - s8.activations.0,
        saved * in_flight_tokens,
        1e-12
    ));
    // No FP8 tensor cores on the A100.
    let a100 = Hardware {
        gpu: hardware::A100_80GB,
        node_size: Some(8),
        ..Hardware::default()
    };
    let err = evaluate_with(&m, &a100, &c, &f8).unwrap_err().to_string();
    assert!(err.contains("FP8"), "{err}");
}

/// Practice shards whole heads: a tensor degree that does not divide the
/// key/value heads is an error, not a number.
#[test]
fn practice_rejects_split_heads() {
    let c = Config {
        tensor: 16,
        data: 1,
        ..Config::default()
    };
    let hw = Hardware {
        node_size: Some(16),
        ..h100()
    };
    assert!(evaluate_with(&model::LLAMA_3_1_405B, &hw, &c, &Assumptions::PRACTICE).is_err());
    assert!(evaluate(&model::LLAMA_3_1_405B, &hw, &c).is_ok());
}

/// The paper setting is `evaluate`, field for field.
#[test]
fn paper_setting_is_evaluate() {
    let x160 = model::x_family(160).unwrap();
    let c = Config {
        method: Method::Improved,
        data: 483,
        pipe: 5,
        tensor: 16,
        micro_batches: 5,
        ..Config::default()
    };
    let a = evaluate(&x160, &Hardware::default(), &c).unwrap();
    let b = evaluate_with(&x160, &Hardware::default(), &c, &Assumptions::PAPER).unwrap();
    assert_eq!(a, b);
    assert!(close(a.step.0 * a.steps, a.time.0, 1e-12));
}

/// Where a step goes, by kernel class: the classes sum to the step; the
/// linear GEMMs at most their format's ceiling (kernels by shape), the
/// flash kernels at their rates for the sequence on the work they
/// compute (the backward 2.5× its forward's, the forward twice with
/// recomputation), the element-wise kernels at the memory bandwidth and
/// fused Adam at its memory-bound fraction. Llama 3.1 405B as Meta laid it out, full and selective
/// recomputation, BF16 and FP8; DeepSeek-V3's mixture of experts.
#[test]
fn step_classes_sum_to_the_step_at_their_rates() {
    use plan3d_core::cost::assumptions::{kernel_fit, Compute};
    let hw = h100();
    let eff = kernel_fit(&hw.gpu).gemm_efficiency;
    let cases = [
        (
            model::LLAMA_3_1_405B,
            ActivationModel::Full,
            Compute::Bf16,
            2.0,
        ),
        (
            model::LLAMA_3_1_405B,
            ActivationModel::Selective,
            Compute::Fp8,
            2.0,
        ),
        (
            model::LLAMA_3_1_405B,
            ActivationModel::None,
            Compute::Bf16,
            1.0,
        ),
        (model::DEEPSEEK_V3, ActivationModel::Full, Compute::Fp8, 2.0),
    ];
    let mut saw_logits = false;
    for (m, activation, compute, forwards) in cases {
        let moe = m.experts.is_some();
        let c = Config {
            data: if moe { 8 } else { 128 },
            pipe: 16,
            tensor: if moe { 1 } else { 8 },
            expert: if moe { 8 } else { 1 },
            micro_batch: 1,
            micro_batches: 16,
            sequence_parallel: !moe,
            zero: Zero::One,
            activation,
            ..Config::default()
        };
        let a = Assumptions {
            compute,
            ..Assumptions::PRACTICE
        };
        let e = evaluate_with(&m, &hw, &c, &a).unwrap();
        let p = e.step_parts.unwrap();
        let classes = p.classes();
        let sum: f64 = classes.iter().map(|k| k.seconds).sum();
        assert!(close(sum, p.total(), 1e-12) && close(sum, e.step.0, 1e-12));
        let shares: f64 = classes.iter().map(|k| k.share).sum();
        assert!(close(shares, 1.0, 1e-12));
        let rate = |name: &str| {
            let k = classes.iter().find(|k| k.class == name).unwrap();
            assert!(k.seconds >= 0.0, "{name}");
            k.achieved
        };
        // Tflop/s and GB/s.
        let linear_peak = if compute == Compute::Fp8 {
            1979.0
        } else {
            989.0
        };
        // The linear GEMMs at most at the ceiling of their format's peak
        // (kernels by shape, times the sustained clock), and above half
        // of it at these shapes; the attention at the flash kernels'
        // rates for the sequence, counted as the kernels compute (half
        // the square under the causal mask, the backward 2.5× the
        // forward): never above the peak.
        let curves = plan3d_core::cost::kernels::curves(&hw.gpu);
        let ceiling = if compute == Compute::Fp8 {
            curves.ceiling_fp8
        } else {
            curves.ceiling_bf16
        };
        let linear = rate("linear GEMMs").unwrap();
        let top = linear_peak * ceiling * eff;
        assert!(linear <= top && linear > 0.5 * top, "{linear} vs {top}");
        let seq = f64::from(m.seq_len);
        let head = f64::from(m.head_size);
        let forward = plan3d_core::cost::kernels::attention_rate(&curves, seq, head, true);
        let backward = plan3d_core::cost::kernels::attention_rate(&curves, seq, head, false);
        if m.latent.is_none() {
            assert!(close(
                rate("attention forward").unwrap(),
                989.0 * forward * eff,
                1e-9
            ));
            let got = rate("attention backward").unwrap();
            assert!(
                close(got, 989.0 * backward * eff, 1e-9),
                "{got} vs {}",
                989.0 * backward * eff
            );
        }
        // Element-wise traffic counts its bytes at the bandwidth (the
        // fitted traffic factor holds the rest); fused Adam reaches the
        // memory-bound kernels' fraction of it.
        assert!(close(rate("element-wise").unwrap(), 3350.0, 1e-9));
        assert!(close(
            rate("optimizer").unwrap(),
            3350.0 * curves.memory,
            1e-9
        ));
        assert!(close(
            p.attention_backward_flops,
            2.5 / forwards * p.attention_forward_flops,
            1e-12
        ));
        // The logit layer, 3 passes of 2·V·d_m per token, counts where the
        // heaviest device holds it (the last stage's), else nothing.
        let v = f64::from(m.vocab.unwrap());
        let tokens = 16.0 * f64::from(m.seq_len) / f64::from(c.tensor);
        match rate("logits") {
            Some(r) => {
                saw_logits = true;
                assert!(r <= 989.0 * curves.ceiling_bf16 * eff && r > 0.5 * 989.0 * eff);
                assert!(close(
                    p.logit_flops,
                    3.0 * 2.0 * v * m.width() as f64 * tokens,
                    1e-12
                ));
            }
            None => assert_eq!((p.logits, p.logit_flops), (0.0, 0.0)),
        }
    }
    assert!(saw_logits);
}

/// The loss sets what the last stage holds for one micro-batch's logits:
/// Llama 3.1 8B at 4 × 8 192 tokens on one GPU (4.20 G logits of its
/// 128 256-entry vocabulary): Megatron's vocab-parallel cross-entropy 6
/// bytes each, 23.48 GiB; PyTorch eager on fp32 logits 12, 46.97 GiB (the
/// step that runs out of an 80 GB GPU); Liger's fused linear one chunks of
/// tokens·d/V rows, 6·32 768·4 096 bytes, 0.75 GiB; the paper's fp32
/// logits, 15.66 GiB. Nothing else of the stage moves.
#[test]
fn the_loss_sets_the_logits_memory() {
    use plan3d_core::cost::assumptions::CrossEntropy;
    use plan3d_core::cost::memory::stage_memory;
    use plan3d_core::units::GIB;
    let m = plan3d_core::model::preset("llama-3.1-8b").unwrap();
    assert_eq!((m.seq_len, m.vocab), (8192, Some(128_256)));
    let cfg = Config {
        micro_batch: 4,
        activation: ActivationModel::Full,
        ..Config::default()
    };
    let at = |ce| {
        let a = Assumptions {
            cross_entropy: ce,
            ..Assumptions::PRACTICE
        };
        stage_memory(&m, &cfg, &a, 0)
    };
    let base = at(CrossEntropy::VocabParallel);
    for (ce, gib) in [
        (CrossEntropy::VocabParallel, 23.484),
        (CrossEntropy::Eager, 46.968),
        (CrossEntropy::FusedLinear, 0.750),
        (CrossEntropy::Logits, 15.656),
    ] {
        let s = at(ce);
        assert!(
            (s.logits.get() / GIB - gib).abs() < 0.001,
            "{ce:?}: {}",
            s.logits.get() / GIB
        );
        // The rest stays, but for the working set the logits overlap (they
        // are freed before the layers' backward) and the fragmentation
        // margin, which grows with them.
        let rest = |s: &plan3d_core::cost::memory::StageMemory| {
            s.total().get() - s.logits.get() - s.working.get() - s.fragmentation.get()
        };
        assert!((rest(&s) - rest(&base)).abs() < 1.0, "{ce:?}");
        assert_eq!(CrossEntropy::parse(ce.name()), Ok(ce));
    }
    // Split over the tensor ranks with the vocabulary.
    let t8 = Config { tensor: 8, ..cfg };
    let a = Assumptions::PRACTICE;
    assert!((stage_memory(&m, &t8, &a, 0).logits.get() * 8.0 - base.logits.get()).abs() < 1.0);
}
