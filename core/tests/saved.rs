//! Memory as frameworks allocate it: the op-by-op saved-tensor model
//! against what PyTorch itself saves (fixtures counted on the CPU with
//! `calibration/saved_tensors.py`), and whole single-GPU steps against
//! their measured peaks.

use plan3d_core::cost::saved::{per_token, LayerCode};
use plan3d_core::model::ModelShape;

fn shape(row: &serde_json::Value) -> ModelShape {
    let u = |k: &str| u32::try_from(row[k].as_u64().unwrap()).unwrap();
    let hidden = u("hidden");
    let heads = u("heads");
    let llama = row["model"].as_str().unwrap() == "hf-llama";
    ModelShape {
        seq_len: u("seq"),
        heads,
        head_size: hidden / heads,
        kv_heads: u("kv_heads"),
        layers: 2,
        ffn: u("ffn"),
        gated_mlp: llama,
        biases: !llama,
        vocab: None,
        tied_embeddings: true,
        experts: None,
        hidden: None,
        latent: None,
        qk_norm: false,
    }
}

/// Every row of the fixture, to the byte: one layer's saved bytes of
/// Hugging Face's Llama and GPT-2 (transformers 5.24, torch 2.15, CPU),
/// plain AMP and bf16, dropout on and off, with and without full
/// recomputation.
#[test]
fn hugging_face_layers_save_what_the_model_says_to_the_byte() {
    let text = include_str!("fixtures/saved_tensors.json");
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.len() >= 40, "{} rows", rows.len());
    for row in rows {
        let model = shape(row);
        let code = match row["model"].as_str().unwrap() {
            "hf-llama" => LayerCode::HfLlama,
            "hf-gpt2" => LayerCode::HfGpt2,
            other => panic!("no code for {other}"),
        };
        let amp = row["precision"].as_str().unwrap() == "amp";
        let dropout = row["dropout"].as_f64().unwrap() > 0.0;
        let tokens = (row["micro_batch"].as_u64().unwrap() * row["seq"].as_u64().unwrap()) as f64;
        let h = f64::from(row["hidden"].as_u64().unwrap() as u32);
        let expected = match row["recompute"].as_str().unwrap() {
            // Only the layer's input: fp32 under AMP, bf16 otherwise.
            "full" => tokens * h * if amp { 4.0 } else { 2.0 },
            _ => {
                let (rep, split, scores) = per_token(&model, code, amp, dropout, true);
                // The CPU's dropout keeps its mask in the input's dtype
                // (bf16, 2 bytes), CUDA's `native_dropout` a 1-byte bool:
                // the model counts CUDA's.
                let cpu_masks = if dropout { 2.0 * h } else { 0.0 };
                assert_eq!(scores, 0.0);
                tokens * (rep + split + cpu_masks)
            }
        };
        assert_eq!(row["attention_kernel"], "flash", "{row}");
        assert_eq!(
            row["layer_bytes"].as_f64().unwrap(),
            expected,
            "{row}: plan3d counts {expected}"
        );
    }
}

/// Korthikanti's 34 bytes per token and hidden unit for a GPT layer with
/// dropout, and what today's fused layer keeps without it: 32 + the
/// statistics and log-sum-exp.
#[test]
fn the_fused_layer_is_korthikanti_without_dropout() {
    let gpt = plan3d_core::model::classic(2048, 32, 128, 2);
    let h = gpt.width() as f64;
    let (rep, split, _) = per_token(&gpt, LayerCode::Megatron2022, false, true, true);
    assert_eq!((rep + split) / h, 34.0);
    let (rep, split, _) = per_token(&gpt, LayerCode::Fused, false, false, true);
    assert_eq!(rep + split, 32.0 * h + 16.0 + 4.0 * 32.0);
    let (rep2, split2, _) = per_token(&gpt, LayerCode::Fused, false, true, true);
    assert_eq!(rep2 + split2 - (rep + split), 2.0 * h, "two 1-byte masks");
}

/// A single-GPU step's peak allocated memory (`torch.cuda.max_memory_allocated`,
/// so without plan3d's reserve) under `--framework pytorch`.
fn allocated(request: &str) -> f64 {
    let out = plan3d_core::api::json::call("evaluate", request).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let s = &v["memory"]["stages"][0];
    s["total"].as_f64().unwrap() - s["reserve"].as_f64().unwrap()
}

fn step(shape: &str, micro_batch: u32, recompute: &str) -> String {
    format!(
        r#"{{ {shape}, "gpu": "h100-sxm", "node_size": 8, "micro_batch": {micro_batch},
            "recompute": "{recompute}", "zero": "0", "framework": "pytorch" }}"#
    )
}

/// The single-GPU steps plan3d is checked on: plain PyTorch AMP on one
/// H100 (PyTorch 2.11, eager). The first nine are
/// `../shared/calibration/h100_steps.json` (the calibration set: peak
/// allocated in 1e9 bytes, step in ms), the others
/// `calibration/h100-2026-11-25/memory.json`'s phases (`peak_bytes`,
/// `step_s`): (shape, micro-batch, recomputation, peak bytes, seconds).
fn single_gpu_steps() -> Vec<(String, u32, &'static str, f64, f64)> {
    let gpt = |l: u32, heads: u32, head_size: u32, ffn: u32| {
        format!(
            r#""seq_len": 2048, "heads": {heads}, "head_size": {head_size}, "layers": {l}, "ffn": {ffn}, "vocab": 50257"#
        )
    };
    let llama8 = r#""seq_len": 8192, "heads": 32, "head_size": 128, "kv_heads": 8, "layers": 4, "ffn": 14336, "vocab": 128256, "gated": true, "no_biases": true, "untied": true"#;
    let llama3 = |l: u32| {
        format!(
            r#""seq_len": 4096, "heads": 24, "head_size": 128, "kv_heads": 8, "layers": {l}, "ffn": 8192, "vocab": 128256, "gated": true, "no_biases": true"#
        )
    };
    let g13 = gpt(24, 16, 128, 8192);
    let g13b = gpt(4, 40, 128, 20480);
    let g350 = gpt(24, 16, 64, 4096);
    let g27 = gpt(8, 32, 80, 10240);
    vec![
        (g13.clone(), 1, "none", 23.3e9, 0.0709),
        (g13.clone(), 2, "none", 28.2e9, 0.1118),
        (g13.clone(), 4, "none", 38.0e9, 0.1928),
        (g13.clone(), 8, "none", 57.5e9, 0.3573),
        (g13, 8, "full", 30.1e9, 0.4180),
        (g13b.clone(), 2, "none", 26.9e9, 0.1296),
        (g13b, 8, "full", 31.4e9, 0.4847),
        (llama8.into(), 1, "none", 44.8e9, 0.1705),
        (llama8.into(), 2, "none", 63.6e9, 0.3192),
        (g350.clone(), 1, "none", 8_049_699_328.0, 0.036_483),
        (g350.clone(), 4, "none", 17_207_286_272.0, 0.083_616),
        (g350, 8, "full", 15_944_835_584.0, 0.177_747),
        (g27.clone(), 1, "none", 13_428_290_048.0, 0.045_354),
        (g27.clone(), 4, "none", 21_742_380_544.0, 0.131_224),
        (g27, 4, "full", 15_544_051_712.0, 0.147_939),
        (llama3(4), 1, "none", 19_482_023_936.0, 0.057_519),
        (llama3(8), 1, "none", 27_067_340_800.0, 0.085_706),
        (llama3(8), 2, "none", 37_342_648_320.0, 0.146_639),
        (llama3(8), 4, "full", 42_310_367_232.0, 0.315_919),
    ]
}

/// `../shared/calibration/h100_steps.json` (plain PyTorch AMP on one H100,
/// PyTorch 2.11, peak allocated in 1e9 bytes; the calibration set) and
/// `calibration/h100-2026-11-25/memory.json`'s phases (the same framework,
/// other shapes, measured by the team): every peak within 5 %, the median
/// within 1 %. No figure was fitted: the parts are the mechanism's.
#[test]
fn single_gpu_peaks_follow_plain_pytorch() {
    let cases = single_gpu_steps();
    let mut errors = Vec::new();
    for (shape, mb, recompute, measured, _) in &cases {
        let got = allocated(&step(shape, *mb, recompute));
        let err = got / measured - 1.0;
        println!(
            "{shape} mb {mb} {recompute}: measured {measured:.3e}, plan3d {got:.3e} ({:+.1} %)",
            100.0 * err
        );
        assert!(
            err.abs() < 0.05,
            "{shape} mb {mb} {recompute}: {:+.1} %",
            100.0 * err
        );
        errors.push(err.abs());
    }
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    println!("median |error| {:.2} %", 100.0 * median);
    assert!(median < 0.01, "median {median}");
}

/// Meta's 8K layout for Llama 3.1 405B (TP 8, PP 16, DP 128, micro-batch
/// 1, gradients and optimizer sharded, no activation checkpointing: Llama 3
/// paper sec. 3.3.2; gradients reduce-scattered in fp32, sec. 3.3.4)
/// trained on 80 GB H100s: it fits under Megatron-Core's
/// memory, not under 2022's count (dropout masks, 8 bytes of SwiGLU).
#[test]
fn metas_layout_fits_on_80_gb() {
    let meta = |framework: &str| {
        let r = format!(
            r#"{{ "model": "llama-3.1-405b", "gpu": "h100-sxm", "node_size": 8, "data": 128,
                "pipe": 16, "tensor": 8, "micro_batch": 1, "global_batch": 2048,
                "recompute": "none", "zero": "2", "sequence_parallel": true,
                "framework": "{framework}", "grad_reduce": "fp32" }}"#
        );
        let out = plan3d_core::api::json::call("evaluate", &r).unwrap();
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let core = meta("megatron-core");
    assert_eq!(core["fits"], true, "{}", core["memory"]["peak_bytes"]);
    assert_eq!(core["framework"], "megatron-core");
    assert_eq!(meta("megatron-2022")["fits"], false);
}

/// Meta's layout given (TP 8, PP 16, DP 128 at 2 048 sequences of 8 192
/// tokens), the rest searched: within 10 % of the 400 Tflop/s per GPU
/// (41 % of the BF16 peak) Meta reports (Llama 3 paper, Table 4). The
/// search finds what Meta describes: no activation checkpointing, FSDP
/// without resharding after the forward pass, an interleaved schedule.
#[test]
fn metas_layout_searched_runs_near_metas_throughput() {
    // Meta reduce-scatters gradients in fp32 (Llama 3 paper sec. 3.3.4).
    let r = r#"{ "model": "llama-3.1-405b", "gpu": "h100-sxm", "node_size": 8, "data": 128,
                 "pipe": 16, "tensor": 8, "global_batch": 2048, "grad_reduce": "fp32" }"#;
    let out = plan3d_core::api::json::call("plan", r).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let tflops = v["tflops_per_gpu"].as_f64().unwrap();
    println!(
        "{tflops} Tflop/s per GPU, {} recomputation, ZeRO {}",
        v["recompute"], v["zero"]
    );
    assert!((tflops / 400.0 - 1.0).abs() < 0.10, "{tflops}");
    assert_eq!(v["recompute"], "none");
}

/// Korthikanti et al. 2022, Figure 1 and Table 2: the first pipeline
/// stage's activation memory for their 22B, 175B, 530B and 1T models
/// (Table 3: t = 8, s = 2 048, micro-batch 4 for 22B and 1 otherwise;
/// interleaved with 3 chunks for 175B and 530B) under tensor parallelism
/// alone, with sequence parallelism, selective recomputation, both, and
/// full recomputation. Figure 1's bars are not printed as numbers; they are
/// Table 2's per-layer bytes times L·(1 + (p−1)/(p·m)) layers (eq. 5 and
/// sec. 4.2.3), which the `megatron-2022` preset must give within 10 %.
#[test]
fn korthikanti_figure_1_within_ten_per_cent() {
    use plan3d_core::cost::assumptions::Assumptions;
    use plan3d_core::cost::framework::Framework;
    use plan3d_core::cost::memory::stage_memory;
    use plan3d_core::{ActivationModel, Config};
    let mut a = Framework::Megatron2022.apply(Assumptions::PRACTICE);
    a.flash_attention = false;
    // (heads, head size, layers, pipeline, chunks, micro-batch)
    let models = [
        ("22B", 64u32, 96u32, 48u32, 1u32, 1u32, 4u32),
        ("175B", 96, 128, 96, 8, 3, 1),
        ("530B", 128, 160, 105, 35, 3, 1),
        ("1T", 160, 160, 128, 64, 1, 1),
    ];
    for (name, heads, head_size, layers, p, v, b) in models {
        let m = plan3d_core::model::classic(2048, heads, head_size, layers);
        let (s, h, l, t) = (2048.0, f64::from(heads * head_size), f64::from(layers), 8.0);
        let a_s_h = 5.0 * f64::from(heads) * s / h;
        let sbh = s * f64::from(b) * h;
        let interleave = if v > 1 {
            1.0 + (f64::from(p) - 1.0) / (f64::from(p) * f64::from(v))
        } else {
            1.0
        };
        for (what, act, sp, per_layer) in [
            (
                "TP",
                ActivationModel::None,
                false,
                10.0 + 24.0 / t + a_s_h / t,
            ),
            ("TP+SP", ActivationModel::None, true, 34.0 / t + a_s_h / t),
            (
                "TP+selective",
                ActivationModel::Selective,
                false,
                10.0 + 24.0 / t,
            ),
            (
                "TP+SP+selective",
                ActivationModel::Selective,
                true,
                34.0 / t,
            ),
            ("full", ActivationModel::Full, false, 2.0),
        ] {
            let cfg = Config {
                tensor: 8,
                pipe: p,
                virtual_stages: v,
                micro_batch: b,
                micro_batches: 3 * p.max(1),
                sequence_parallel: sp,
                activation: act,
                ..Config::default()
            };
            let paper = sbh * per_layer * l * interleave;
            let ours = stage_memory(&m, &cfg, &a, 0).activations.0;
            let err = ours / paper - 1.0;
            println!(
                "{name} {what}: Korthikanti {:.1} GiB, plan3d {:.1} GiB ({:+.1} %)",
                paper / 1073741824.0,
                ours / 1073741824.0,
                100.0 * err
            );
            assert!(err.abs() < 0.10, "{name} {what}: {err}");
        }
    }
}

/// torchtitan's published runs (`benchmarks/llama3_h100_202412_torchtitan.md`
/// in pytorch/torchtitan: Llama 3.1 8B, 70B and 405B on Meta's 96 GB
/// H100s, `h100-96gb-500w`,
/// FSDP2 with TP, PP and CP, bf16 and float8; "memory" is the peak
/// reserved by PyTorch's allocator) all ran: under the torchtitan preset
/// none is "does not fit", and plan3d's peak stays under what the
/// allocator reserved. The errors are printed; float8's own buffers and
/// the allocator's caching are not modelled, so plan3d is low (most at
/// 405B with a pipeline). Their code repeated the keys and values before
/// SDPA (`repeat_kv`, until pytorch/torchtitan#2259): under these rows'
/// checkpointing only a recomputed layer's working set holds the copies.
#[test]
fn torchtitan_published_runs_fit() {
    // (reserved GiB, request fields)
    let runs = [
        (
            82.4,
            r#""model": "llama-3.1-8b", "data": 8, "micro_batch": 2, "global_batch": 16, "recompute": "selective""#,
        ),
        (
            67.0,
            r#""model": "llama-3.1-8b", "data": 128, "micro_batch": 2, "global_batch": 256, "recompute": "selective""#,
        ),
        (
            83.9,
            r#""model": "llama-3.1-8b", "seq_len": 32768, "data": 8, "micro_batch": 1, "global_batch": 8, "recompute": "full", "precision": "fp8""#,
        ),
        (
            84.5,
            r#""model": "llama-3.1-8b", "seq_len": 262144, "data": 1, "context_parallel": 8, "micro_batch": 1, "global_batch": 1, "recompute": "full", "precision": "fp8""#,
        ),
        (
            71.9,
            r#""model": "llama-3.1-70b", "data": 32, "tensor": 8, "micro_batch": 16, "global_batch": 512, "recompute": "full", "precision": "fp8", "sequence_parallel": true"#,
        ),
        (
            82.5,
            r#""model": "llama-3.1-405b", "data": 8, "tensor": 8, "pipe": 8, "micro_batch": 1, "global_batch": 256, "recompute": "full", "precision": "fp8", "sequence_parallel": true"#,
        ),
        (
            72.7,
            r#""model": "llama-3.1-405b", "data": 8, "tensor": 8, "pipe": 8, "virtual_stages": 2, "micro_batch": 1, "global_batch": 256, "recompute": "full", "precision": "fp8", "sequence_parallel": true"#,
        ),
        (
            84.9,
            r#""model": "llama-3.1-405b", "seq_len": 262144, "data": 1, "context_parallel": 8, "tensor": 8, "pipe": 8, "micro_batch": 1, "global_batch": 8, "recompute": "full", "precision": "fp8", "sequence_parallel": true"#,
        ),
    ];
    for (reserved, fields) in runs {
        let r = format!(
            r#"{{ {fields}, "gpu": "h100-96gb-500w", "node_size": 8,
                "method": "partitioned", "zero": "3", "framework": "torchtitan", "repeat_kv": true }}"#
        );
        let out = plan3d_core::api::json::call("evaluate", &r).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let peak = v["memory"]["peak_bytes"].as_f64().unwrap() / 1073741824.0;
        println!(
            "{fields}: reserved {reserved} GiB, plan3d {peak:.1} GiB ({:+.0} %)",
            100.0 * (peak / reserved - 1.0)
        );
        assert_eq!(v["fits"], true, "{fields}");
        assert!(peak < reserved * 1.05, "{fields}: {peak}");
    }
}

/// Qwen3's q and k normalized per head (`qk_norm`; Qwen3-235B-A22B: 64
/// query heads and 4 key/value heads of 128), by hand, per token and layer
/// on one GPU: Transformer Engine's `RMSNorm` (Megatron-Core's
/// `qk_layernorm`), PyTorch's `nn.RMSNorm` and torchtitan's keep each
/// norm's bf16 input, 2 bytes an element of q and k (under autocast the
/// plain layer's fp32 cast, 4), and 4 bytes a head row of fp32 statistics;
/// Hugging Face's `Qwen3RMSNorm` its fp32 upcast and the normalized bf16
/// tensor, 6 bytes an element (the projections write bf16 under autocast
/// too). The rotary embedding's saved q and k are the layer's already.
/// torchtitan's per-op checkpointing recomputes them; Korthikanti's 2022
/// count (`megatron-2022`, the paper) has no such norms.
#[test]
fn qk_norms_keep_their_inputs() {
    let qwen = plan3d_core::model::QWEN3_235B_A22B;
    assert!(qwen.qk_norm);
    let without = ModelShape {
        qk_norm: false,
        ..qwen
    };
    let (q, kv, rows) = (64.0 * 128.0, 4.0 * 128.0, 64.0 + 4.0);
    for (code, amp, per_element) in [
        (LayerCode::Fused, false, 2.0),
        (LayerCode::Torchtitan, false, 2.0),
        (LayerCode::Plain, false, 2.0),
        (LayerCode::Plain, true, 4.0),
        (LayerCode::HfLlama, false, 6.0),
        (LayerCode::HfLlama, true, 6.0),
    ] {
        let (r1, s1, c1) = per_token(&qwen, code, amp, false, true);
        let (r0, s0, c0) = per_token(&without, code, amp, false, true);
        assert_eq!((r1, c1), (r0, c0), "{code:?}");
        assert_eq!(
            s1 - s0,
            per_element * (q + kv) + 4.0 * rows,
            "{code:?} {amp}"
        );
    }
    let (_, s1, _) = per_token(&qwen, LayerCode::Megatron2022, false, true, true);
    let (_, s0, _) = per_token(&without, LayerCode::Megatron2022, false, true, true);
    assert_eq!(s1, s0);
    // Per-op checkpointing keeps what its policy saves, not the norms.
    assert_eq!(
        plan3d_core::cost::saved::op_sac_per_token(&qwen, false),
        plan3d_core::cost::saved::op_sac_per_token(&without, false)
    );
    // A request's `qk_norm` adds them under Megatron-Core: Llama 3.1 70B
    // (64 heads, 8 key/value heads of 128) on TP 8 × PP 4, one micro-batch
    // of 8 192 tokens, 4 in flight on the first stage's 20 layers: 2 bytes
    // an element of q and k and 4 a row, over the 8 tensor ranks.
    let activations = |qk_norm: bool| {
        let r = format!(
            r#"{{ "model": "llama-3.1-70b", "qk_norm": {qk_norm}, "gpu": "h100-sxm", "node_size": 8,
                "framework": "megatron-core", "data": 1, "pipe": 4, "tensor": 8,
                "micro_batch": 1, "micro_batches": 4, "recompute": "none", "sequence_parallel": true }}"#
        );
        let v: serde_json::Value =
            serde_json::from_str(&plan3d_core::api::json::call("evaluate", &r).unwrap()).unwrap();
        let s = &v["memory"]["stages"][0];
        (
            s["activations"].as_f64().unwrap(),
            s["layers"].as_f64().unwrap() * s["in_flight"].as_f64().unwrap(),
        )
    };
    let ((with, held), (without, _)) = (activations(true), activations(false));
    let per_token = (2.0 * (64.0 + 8.0) * 128.0 + 4.0 * (64.0 + 8.0)) / 8.0;
    let want = per_token * 8192.0 * held;
    assert!(
        ((with - without) / want - 1.0).abs() < 1e-9,
        "{with} {without} {want}"
    );
}

/// How much each framework's layer keeps, Llama 3.1 8B, one GPU, no
/// recomputation, bytes per token per hidden unit (the table of
/// docs/model.md): Transformer Engine's fused layer keeps least; Megatron
/// 2022 adds dropout masks and SwiGLU's output; eager PyTorch keeps each
/// op's own inputs, autocast's copies in fp32 and bf16 (plain AMP), Hugging
/// Face's RMSNorm its fp32 upcast and the q/k/v and gate/up inputs once per
/// linear.
#[test]
fn what_each_framework_keeps_of_a_llama_layer() {
    let m = plan3d_core::model::LLAMA_3_1_8B;
    let h = m.width() as f64;
    let per_h = |code, amp, dropout| {
        let (r, s, _) = per_token(&m, code, amp, dropout, true);
        libm::round((r + s) / h * 100.0) / 100.0
    };
    assert_eq!(per_h(LayerCode::Fused, false, false), 34.03);
    assert_eq!(per_h(LayerCode::Megatron2022, false, true), 43.0);
    assert_eq!(per_h(LayerCode::Torchtitan, false, false), 41.03);
    assert_eq!(per_h(LayerCode::Plain, true, false), 45.03);
    assert_eq!(per_h(LayerCode::Plain, false, false), 41.03);
    assert_eq!(per_h(LayerCode::HfLlama, true, false), 59.03);
    assert_eq!(per_h(LayerCode::HfLlama, false, false), 49.03);
}

/// A single-GPU step's time under `--framework pytorch` (seconds).
fn step_seconds(request: &str) -> f64 {
    let out = plan3d_core::api::json::call("evaluate", request).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["step_seconds"].as_f64().unwrap()
}

/// The same single-GPU steps' times. Kernels by shape, the unaligned
/// vocabulary's fallback GEMMs, Adam's and autocast's casts at the
/// memory-bound kernels' bandwidth and eager dispatch brought the median
/// |error| from 26.7 % to 5.5 % and the largest from 61 % to 26 % (GPT
/// 350M at micro-batch 1, bound by the CPU, whose speed varies between
/// machines); the eager cross-entropy's traffic (36 bytes a logit
/// measured in the same steps' profiles, and `.float()`'s casts), and the
/// logits' kernels filling the CPU-bound backward's wait, to 3.3 % and
/// 12 % (the Llama slices with 128 256-entry vocabularies had been 10–17 %
/// fast); the non-reentrant checkpoint's early stop (no down projection
/// recomputed), to 2.7 % and 12 %.
#[test]
fn single_gpu_steps_time() {
    let cases = single_gpu_steps();
    let mut errors = Vec::new();
    for (shape, mb, recompute, _, measured) in &cases {
        let got = step_seconds(&step(shape, *mb, recompute));
        let err = got / measured - 1.0;
        println!(
            "{shape} mb {mb} {recompute}: measured {:.1} ms, plan3d {:.1} ms ({:+.1} %)",
            measured * 1e3,
            got * 1e3,
            100.0 * err
        );
        errors.push(err.abs());
    }
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    let max = errors[errors.len() - 1];
    println!(
        "median |error| {:.2} %, max {:.2} %",
        100.0 * median,
        100.0 * max
    );
    assert!(median < 0.045 && max < 0.15, "{median} {max}");
}

/// DeepSpeed's ZeRO-3 gathers module by module: its live parameters
/// (`stage3_max_live_parameters` 1e9, or a larger module whole) and a 5e7
/// prefetch bucket, and reduces through a 5e8-element bucket
/// (`deepspeed/runtime/zero/config.py`'s defaults), where FSDP gathers a
/// layer and the next. PTD-P's GPT 530B with ZeRO-3 on 640 A100s (micro-
/// batch 4, 2021's attention) ran: it fits, by hand. Not reproduced: on
/// 560 GPUs it ran out of memory, and plan3d leaves 5.9 GiB free there (the
/// two differ by 1.7 GiB of sharded state).
#[test]
fn deepspeed_zero3_gathers_its_live_parameters() {
    let run = |gpus: u32, framework: &str| {
        let r = format!(
            r#"{{ "heads": 128, "head_size": 160, "layers": 105, "seq_len": 2048, "vocab": 51200,
                "gpu": "a100-80gb", "node_size": 8, "method": "partitioned", "data": {gpus},
                "pipe": 1, "tensor": 1, "micro_batch": 4, "global_batch": {},
                "recompute": "full", "zero": "3", "framework": "{framework}",
                "attention": "materialized" }}"#,
            gpus * 4
        );
        let out = plan3d_core::api::json::call("evaluate", &r).unwrap();
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let v = run(640, "deepspeed");
    assert_eq!(v["fits"], true, "{}", v["memory"]["peak_bytes"]);
    let s = &v["memory"]["stages"][0];
    let params = ModelShape {
        vocab: Some(51200),
        ..plan3d_core::model::classic(2048, 128, 160, 105)
    }
    .params();
    // The largest module: the MLP's first matrix, 20 480 × 81 920.
    let module = 20480.0 * 81920.0;
    let weights = 2.0 * params / 640.0 + 2.0 * (module + 5e7);
    let grads = 2.0 * params / 640.0 + 2.0 * (module + 5e8);
    let got = (
        s["weights"].as_f64().unwrap(),
        s["gradients"].as_f64().unwrap(),
    );
    assert!((got.0 / weights - 1.0).abs() < 0.01, "{got:?} {weights}");
    assert!((got.1 / grads - 1.0).abs() < 0.01, "{got:?} {grads}");
    // FSDP's unit, two layers gathered, holds more at this width.
    let fsdp = run(640, "pytorch-fsdp");
    assert!(fsdp["memory"]["stages"][0]["weights"].as_f64().unwrap() > 3.0 * got.0);
    println!(
        "560 GPUs: {:.1} GiB (ran out of memory)",
        run(560, "deepspeed")["memory"]["peak_bytes"]
            .as_f64()
            .unwrap()
            / (1u64 << 30) as f64
    );
}

/// torch.compile's saved tensors (`calibration/h200-2026-11-25/`
/// `memory_compiled.json`, one H200, PyTorch 2.11): per layer, what
/// Inductor's partition saves (bytes per token per unit of width, the
/// layer's input apart) to 0.1 %, and the whole compiled steps' peaks
/// (the loss compiled with the model, as `torch.compile(model)` compiles
/// a forward that computes it) within 4 %; eager counting had them 20–35 %
/// high. Not matched: the compiled step with full recomputation (plan3d
/// +16 %: checkpointing inside a compiled graph is partitioned otherwise).
#[test]
fn compiled_layers_and_steps_follow_inductor() {
    let data: serde_json::Value = serde_json::from_str(include_str!(
        "../../calibration/h200-2026-11-25/memory_compiled.json"
    ))
    .unwrap();
    for s in data["saved"].as_array().unwrap() {
        let h = s["h"].as_f64().unwrap();
        let (heads, kv) = (
            s["heads"].as_u64().unwrap(),
            s["kv_heads"].as_u64().unwrap(),
        );
        let llama = s["kind"] == "llama";
        let amp = s["weights"] == "amp";
        let m = ModelShape {
            kv_heads: kv as u32,
            ffn: s["ffn"].as_u64().unwrap() as u32,
            gated_mlp: llama,
            biases: !llama,
            ..plan3d_core::model::classic(2048, heads as u32, (h as u64 / heads) as u32, 1)
        };
        let (rep, split, _) = plan3d_core::cost::saved::per_token_compiled(&m, amp, false, true);
        let input = if amp { 4.0 } else { 2.0 };
        let got = (rep + split) / h - input;
        let measured = s["activation_bytes_per_token_h"].as_f64().unwrap();
        assert!(
            (got / measured - 1.0).abs() < 1e-3,
            "{}: {got} against {measured}",
            s["kind"]
        );
    }
    for p in data["phases"].as_array().unwrap() {
        if p["recompute"] != "none" {
            continue;
        }
        let u = |k: &str| p[k].as_u64().unwrap();
        let llama = p["llama"] == true;
        let r = format!(
            r#"{{ "seq_len": {}, "heads": {}, "head_size": {}, "kv_heads": {}, "layers": {},
                "ffn": {}, "vocab": {}, "gated": {llama}, "no_biases": {llama},
                "gpu": "h200", "node_size": 8, "micro_batch": {}, "recompute": "none",
                "zero": "0", "framework": "pytorch", "compile": true }}"#,
            u("seq"),
            u("heads"),
            u("h") / u("heads"),
            u("kv"),
            u("layers"),
            u("ffn"),
            u("vocab"),
            u("micro_batch"),
        );
        let got = allocated(&r);
        let measured = p["peak_bytes"].as_f64().unwrap();
        println!("{}: measured {measured:.3e}, plan3d {got:.3e}", p["model"]);
        assert!(
            (got / measured - 1.0).abs() < 0.04,
            "{}: {got} {measured}",
            p["model"]
        );
    }
}
