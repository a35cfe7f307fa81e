//! torchtitan's published tables row by row (`calibration/published/`
//! `torchtitan.json`: pytorch/torchtitan's `docs/performance.md` and
//! `benchmarks/`): each row read as the torchtitan of its date ran it,
//! its throughput, its memory, and the Blackwell rows of the NVFP4 document.

use super::{json, median};

/// The model of a row, as request fields.
pub(super) fn model(name: &str) -> Option<&'static str> {
    Some(match name.split(" (").next()? {
        "Llama 3.1 8B" | "Llama 3 8B" => r#""model": "llama-3.1-8b""#,
        "Llama 3.1 70B" | "Llama 3 70B" => r#""model": "llama-3.1-70b""#,
        "Llama 3.1 405B" => r#""model": "llama-3.1-405b""#,
        "Llama 2 13B" => {
            r#""layers": 40, "heads": 40, "head_size": 128, "ffn": 13824, "gated": true, "no_biases": true, "vocab": 32000, "untied": true"#
        }
        "Llama 2 70B" => {
            r#""layers": 80, "heads": 64, "kv_heads": 8, "head_size": 128, "ffn": 28672, "gated": true, "no_biases": true, "vocab": 32000, "untied": true"#
        }
        _ => return None,
    })
}

/// plan3d's tokens per second per GPU for one published row under the
/// torchtitan preset, and the row's GPU (`None`: a row plan3d cannot
/// express, a float8 recipe it has no name for or a model not given).
pub(super) fn predicted(r: &serde_json::Value) -> Option<(f64, &'static str)> {
    let (v, gpu) = evaluation(r)?;
    let u = |k: &str| r[k].as_u64().unwrap_or(1);
    let step = v["step_seconds"].as_f64().unwrap();
    let tokens = (u("local_batch_size") * u("seq_len")) as f64;
    Some((tokens / step / (u("tp") * u("pp") * u("cp")) as f64, gpu))
}

/// plan3d's evaluation of one published row under the torchtitan preset,
/// and the row's GPU.
pub(super) fn evaluation(r: &serde_json::Value) -> Option<(serde_json::Value, &'static str)> {
    let m = model(r["model"].as_str()?)?;
    let g = r["gpu_type"].as_str()?;
    let (gpu, memory) = if g.contains("A100") {
        ("a100-80gb", "")
    } else if g.contains("H200") {
        ("h200", "")
    } else if g.contains("H100") {
        ("h100-96gb-500w", "")
    } else {
        return None;
    };
    // torchao's float8 "tensorwise" recipe scales each tensor by its own
    // amax every step: current scaling.
    let precision = match &r["float8"] {
        serde_json::Value::Bool(true) => "fp8-current",
        serde_json::Value::String(s) if s.starts_with("tensorwise") => "fp8-current",
        serde_json::Value::Bool(false) | serde_json::Value::Null => "bf16",
        _ => return None,
    };
    let u = |k: &str| r[k].as_u64().unwrap_or(1);
    let (dp, tp, pp, cp, lbs, seq) = (
        u("dp_shard"),
        u("tp"),
        u("pp"),
        u("cp"),
        u("local_batch_size"),
        u("seq_len"),
    );
    let ac = r["ac_mode"].as_str()?;
    let recompute = if ac.starts_with("full") {
        "full"
    } else if ac.starts_with("selective") {
        "selective"
    } else {
        "none"
    };
    // The kernel torchtitan ran then on Hopper and Ampere: SDPA's default,
    // FlashAttention-2, and from May 2025 FlashAttention-2 asked for first
    // (`sdpa_kernel([FLASH_ATTENTION, …], set_priority=True)` with cuDNN
    // first on B200 alone, pytorch/torchtitan#1196, `models/attention.py`
    // at e7c0cae, the June 2025 rows' commit) until cuDNN came first on
    // every GPU (#1776, October 2025). Before April 2025 its `compile` left
    // the loss eager (pytorch/torchtitan#1033 compiled it with the model).
    let source = r["source"].as_str()?;
    let attention = match source {
        "tt_2412" | "tt_perf_2412_archived" | "tt_perf_2404_llama2" => {
            r#", "attention": "fa2", "cross_entropy": "eager""#
        }
        "tt_asynctp_2506" | "tt_h200_2506" => r#", "attention": "fa2""#,
        _ => "",
    };
    let overlap = if r["async_tp"] == true {
        r#", "overlap_tensor": true"#
    } else {
        ""
    };
    // A row that does not say reads as its config file ran it: the 405B
    // rows' `llama3_405b.toml` compiled (`compile_note`).
    let compile = if r["compile"] == true
        || r["compile_note"]
            .as_str()
            .is_some_and(|n| n.contains("compile=true"))
    {
        r#", "compile": true"#
    } else {
        ""
    };
    // Under a pipeline, torchtitan of the runs (9dec370) cut the local
    // batch into as many micro-batches as pipeline ranks unless told
    // otherwise (`pipelining_utils.py`: `pipeline_parallel_microbatches`
    // or `pipeline_parallel_degree`; no row's config sets it): the 405B
    // rows' local batch of 32 ran as 8 micro-batches of 4 sequences, under
    // 1F1B and interleaved 1F1B alike.
    let (micro, count) = if pp > 1 { (lbs / pp, pp) } else { (lbs, 1) };
    let virtual_stages = if r["label"]
        .as_str()
        .is_some_and(|l| l.contains("Interleaved"))
    {
        2
    } else {
        1
    };
    // The RMSNorm each row ran: torchtitan's own fp32 one op by op
    // (`norm_type = "rmsnorm"` in the configs, `torchtitan/models/norms.py`
    // at 9dec370) until it took `nn.RMSNorm` (pytorch/torchtitan#985, March
    // 2025), itself a composite of the same ops before PyTorch 2.9; the
    // Llama 2 13B rows' config asked for the fused Triton kernel
    // (`norm_type = "fused_rmsnorm"`, `llama2_13b.toml` at 157a12c5).
    let norm = if r["model"].as_str()?.starts_with("Llama 2 13B") {
        "fused"
    } else {
        "unfused"
    };
    // Every row ran before torchtitan set `early_stop=False` on its full
    // checkpoint (pytorch/torchtitan#1580, August 2025): its
    // `ptd_checkpoint_wrapper` took PyTorch's default, which stops the
    // recomputation before each block's down projection. And before it
    // folded the batch into the tokens
    // (pytorch/torchtitan#4121, August 2026): its tensor parallelism
    // sharded `[batch, sequence, hidden]` activations on dimension 1.
    // And each repeated the keys and values to the query heads before
    // SDPA (`repeat_kv` in `models/llama/model.py`, until
    // pytorch/torchtitan#2259 passed `enable_gqa`, January 2026), so a
    // context-parallel ring sent the copies.
    let request = format!(
        r#"{{ {m}, "seq_len": {seq}, "gpu": "{gpu}"{memory}, "node_size": 8, "network": "infiniband-400",
            "method": "partitioned", "zero": "3", "framework": "torchtitan", "precision": "{precision}",
            "activation_layout": "batch-first", "norm_kernel": "{norm}",
            "checkpoint_early_stop": true, "repeat_kv": true,
            "data": {dp}, "tensor": {tp}, "pipe": {pp}, "context_parallel": {cp},
            "virtual_stages": {virtual_stages}, "sequence_parallel": {sp},
            "micro_batch": {micro}, "micro_batches": {count}, "global_batch": {global},
            "recompute": "{recompute}"{attention}{overlap}{compile} }}"#,
        sp = tp > 1,
        global = lbs * dp,
    );
    let out = plan3d_core::api::json::call("evaluate", &request)
        .unwrap_or_else(|e| panic!("{request}: {e}"));
    Some((serde_json::from_str(&out).unwrap(), gpu))
}

/// Every row plan3d can express, against what torchtitan logged:
///
/// * the A100 rows (FlashAttention-2, the kernel every framework ran
///   there; Llama 2 13B and 70B, Llama 3 8B and 70B on 64 GPUs, no,
///   selective and full checkpointing): median ≤ 5 %, worst ≤ 12 %
///   (measured 2.0 and 9.6 %; 3.2 % before the full recomputation
///   stopped early; the worst 13.8 % before the unfused
///   RMSNorm of Llama 3 and Llama 2 70B's runs was charged);
/// * the H200 rows (float8, compiled, the loss too, FlashAttention-2,
///   32 and 64 GPUs): within 5 % (measured −1.1 and +0.7 %; +11.9 and
///   +13.9 % read with cuDNN's attention, which they did not run);
/// * the H100 rows ran on Meta's 500 W parts with 2.4 TB/s HBM2e (the
///   benchmark's own footnote: its MFU "understates the true MFU"), the
///   `h100-96gb-500w` preset. Its one fitted number, the sustained clock
///   at 500 W (`assumptions::H100_500W_SUSTAINED`), is the least-squares
///   optimum on the log ratio of the four 1D FSDP compiled rows (Llama 3.1
///   8B on 8 and 128 GPUs, BF16 and float8): their mean log error is
///   within ±0.5 %. The other 25 rows (eager, TP and async TP, PP, CP to
///   262 K tokens, 70B and 405B) are out of the fit: median ≤ 6 %
///   (measured 5.6 %: 4.5 % before their full recomputation stopped
///   early, which brought the 70B rows in and took the 405B rows out;
///   8.2 % before torchao's float8 tensor parallelism
///   cast its gathered tensors on their shards, 8.9 % before the rows'
///   unfused RMSNorm was charged, 10.2 % before the sequence-sharded collectives' copies
///   were, 13.3 % before per-op checkpointing's regathered
///   tensor inputs were; 29 % at the 700 W preset's clock and
///   bandwidth), worst ≤ 45 % (context parallelism at 4 and 8 ranks, not
///   matched);
/// * the 405B pipelines as torchtitan ran them (its micro-batch count,
///   its stage gathered once per step): below.
#[test]
fn torchtitan_published_throughput() {
    let t = json("published/torchtitan.json");
    let (mut a100, mut h200, mut h100) = (Vec::new(), Vec::new(), Vec::new());
    let mut fitted = Vec::new();
    let mut pipelines = Vec::new();
    for r in t["rows"].as_array().unwrap() {
        let (Some(published), false) = (
            r["tps_per_gpu"].as_f64(),
            r["source"] == "tt_perf_2408_405b_superseded",
        ) else {
            continue;
        };
        let Some((tps, gpu)) = predicted(r) else {
            continue;
        };
        let err = tps / published - 1.0;
        if r["gpus"] == 512 && r["seq_len"] == 8192 {
            pipelines.push((tps, published));
        }
        println!(
            "{} {} on {} {gpu}: published {published}, plan3d {tps:.0} ({:+.1} %)",
            r["source"],
            r["label"],
            r["gpus"],
            100.0 * err
        );
        match gpu {
            "a100-80gb" => a100.push(err),
            "h200" => h200.push(err),
            _ if r["source"] == "tt_2412"
                && r["compile"] == true
                && r["seq_len"] == 8192
                && [r["tp"].as_u64(), r["pp"].as_u64(), r["cp"].as_u64()] == [Some(1); 3] =>
            {
                fitted.push((published / tps).ln());
            }
            _ => h100.push(err),
        }
    }
    assert_eq!((a100.len(), h200.len()), (8, 2));
    let abs = |e: &[f64]| e.iter().map(|x| x.abs()).collect::<Vec<_>>();
    let worst = |e: &[f64]| e.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    println!(
        "A100: median {:.1} %, worst {:.1} %; H200 worst {:.1} %",
        100.0 * median(abs(&a100)),
        100.0 * worst(&a100),
        100.0 * worst(&h200),
    );
    assert!(median(abs(&a100)) < 0.05 && worst(&a100) < 0.12);
    // +11.9 and +13.9 % (+15.3 and +17.3 % at stop 49; +13.5 and +15.5
    // with the loss eager, before torchtitan's compiled loss was counted:
    // 4 bytes a logit kept, 6 moved, where eager keeps 12 and moves 48).
    assert!(worst(&h200) < 0.05);
    assert_eq!((fitted.len(), h100.len()), (4, 25));
    let mean = fitted.iter().sum::<f64>() / 4.0;
    println!(
        "H100 500 W: fitted rows' mean log error {:+.2} %; the rest median {:.1} %, worst {:.1} %",
        100.0 * mean,
        100.0 * median(abs(&h100)),
        100.0 * worst(&h100)
    );
    assert!(mean.abs() < 0.005, "{mean}");
    assert!(median(abs(&h100)) < 0.06 && worst(&h100) < 0.45);
    // Llama 3.1 405B's 1F1B and interleaved 1F1B (FSDP 8 × TP 8 × PP 8):
    // each within 10 %, and what interleaving gains (measured 1.28×) within
    // 5 %. With 32 micro-batches of one, each regathered, they were −5 and
    // −21 %, and interleaving gained 1.05×.
    let [(one, one_published), (inter, inter_published)] = pipelines[..] else {
        panic!("{pipelines:?}")
    };
    for (tps, published) in &pipelines {
        assert!((tps / published - 1.0).abs() < 0.10, "{pipelines:?}");
    }
    let gain = (inter / one) / (inter_published / one_published);
    assert!((gain - 1.0).abs() < 0.05, "{gain}");
}

/// Memory as torchtitan logged it (`memory_gib`: the step's peak reserved
/// by PyTorch's allocator, with `expandable_segments`) for the Llama 8B
/// rows on 8 and 128 H100s (December 2024: FSDP, local batch 2 at 8 K,
/// op-level selective checkpointing; eager, compiled, compiled with
/// float8; the loss eager) and on 32 and 64 H200s (June 2025: float8,
/// compiled, the loss compiled too). torchao's float8 saves the GEMMs'
/// BF16 inputs, so float8 takes what compiled BF16 takes (published 76.8
/// and 77.0 GiB; Transformer Engine's FP8 copies had put plan3d 18 %
/// lower); the compiled loss keeps 4 bytes a logit where eager keeps 12
/// (the H200 rows had been +31 %). Compiled, per-op checkpointing keeps
/// no down-projection output (`saved::op_sac_per_token`): the logged
/// compiled rows are 5.4 and 5.0 GiB under the eager ones, plan3d's 4.2
/// (it had counted them alike). plan3d counts 9–14 % less than reserved
/// (eager's extra saved tensors and the reserved-over-allocated margin are
/// not counted).
#[test]
fn torchtitan_published_memory() {
    let rows = json("published/torchtitan.json");
    let mut by_label = std::collections::BTreeMap::new();
    for r in rows["rows"].as_array().unwrap() {
        let (Some(published), Some("Llama 3.1 8B" | "Llama 3 8B")) =
            (r["memory_gib"].as_f64(), r["model"].as_str())
        else {
            continue;
        };
        if r["cp"].as_u64().unwrap_or(1) > 1 || r["seq_len"].as_u64() != Some(8192) {
            continue;
        }
        let Some((v, gpu)) = evaluation(r) else {
            continue;
        };
        let got = v["memory"]["peak_bytes"].as_f64().unwrap() / (1u64 << 30) as f64;
        let err = got / published - 1.0;
        let label = format!("{gpu} {} GPUs {}", r["gpus"], r["label"].as_str().unwrap());
        println!(
            "{label}: published {published} GiB, plan3d {got:.1} ({:+.1} %)",
            100.0 * err
        );
        assert!((-0.15..0.02).contains(&err), "{label}: {err}");
        by_label.insert(label, got);
    }
    assert!(by_label.len() >= 8, "{by_label:?}");
    for gpus in [8, 128] {
        let compiled = by_label[&format!("h100-96gb-500w {gpus} GPUs FSDP + torch.compile")];
        let eager = by_label[&format!("h100-96gb-500w {gpus} GPUs FSDP")];
        let logged = |l: &str| {
            rows["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| {
                    r["source"] == "tt_2412"
                        && r["gpus"] == gpus
                        && r["label"] == l
                        && r["seq_len"] == 8192
                })
                .and_then(|r| r["memory_gib"].as_f64())
                .unwrap()
        };
        let published = logged("FSDP") - logged("FSDP + torch.compile");
        let saved = eager - compiled;
        println!("{gpus} GPUs, compiling saves: published {published:.1} GiB, plan3d {saved:.1}");
        assert!((saved / published - 1.0).abs() < 0.3, "{saved} {published}");
        let float8 = by_label[&format!("h100-96gb-500w {gpus} GPUs FSDP + torch.compile + Float8")];
        assert!(
            (float8 / compiled - 1.0).abs() < 0.01,
            "{float8} {compiled}"
        );
    }
}

/// Where torchtitan's first table ran out of memory (`docs/performance.md`
/// at 395a52627, April 2024, kept through 3faaa1a0d: Llama 2 70B with
/// FSDP on 64 A100s of 80 GB, 4 096 tokens a sequence): local batch 2
/// with selective checkpointing, per op or every second layer, "OOM";
/// local batch 1 per op, and 2 with full checkpointing, ran (355 and 353
/// tokens/s a GPU, `tt_perf_2404_llama2`). Every row read as the table's
/// code ran it ([`evaluation`]); every second layer checkpointed whole is
/// `recompute_layers` 40 of 80 under full recomputation.
#[test]
fn torchtitan_llama2_70b_out_of_memory_where_it_was() {
    let row = |lbs: u64, ac: &str| {
        serde_json::json!({
            "source": "tt_perf_2404_llama2", "model": "Llama 2 70B", "gpus": 64,
            "gpu_type": "A100 80GB", "dp_shard": 64, "tp": 1, "pp": 1, "cp": 1,
            "local_batch_size": lbs, "seq_len": 4096, "ac_mode": ac, "float8": false,
        })
    };
    let fits = |lbs: u64, ac: &str| {
        let (v, _) = evaluation(&row(lbs, ac)).unwrap();
        let gib = v["memory"]["peak_bytes"].as_f64().unwrap() / (1u64 << 30) as f64;
        println!("Llama 2 70B, local batch {lbs}, {ac}: plan3d {gib:.1} GiB");
        v["fits"] == true
    };
    assert!(!fits(2, "selective op"));
    assert!(fits(1, "selective op"));
    assert!(fits(2, "full"));
    // Every second layer checkpointed (`selective_ac_option = "2"`).
    let layered = plan3d_core::api::json::call(
        "evaluate",
        &format!(
            r#"{{ {}, "seq_len": 4096, "gpu": "a100-80gb", "node_size": 8,
                "method": "partitioned", "zero": "3", "framework": "torchtitan",
                "data": 64, "micro_batch": 2, "global_batch": 128,
                "recompute": "full", "recompute_layers": 40, "attention": "fa2",
                "cross_entropy": "eager", "norm_kernel": "unfused",
                "checkpoint_early_stop": true, "repeat_kv": true }}"#,
            model("Llama 2 70B").unwrap()
        ),
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&layered).unwrap();
    assert_eq!(v["fits"], false);
}

/// The evaluation of one of torchtitan's NVFP4 document's BF16 or MXFP8
/// rows (`tt_nvfp4_doc`): FSDP on four GB200-class GPUs, compiled, local
/// batch as logged at 2 K, per-op checkpointing (torchtitan's default).
fn blackwell_row(r: &serde_json::Value) -> serde_json::Value {
    let shape = match r["model"].as_str().unwrap() {
        "Llama 3 8B" => r#""model": "llama-3.1-8b""#,
        "Qwen3 8B" => {
            r#""layers": 36, "heads": 32, "kv_heads": 8, "head_size": 128, "ffn": 12288, "gated": true, "no_biases": true, "vocab": 151936, "untied": true"#
        }
        other => panic!("{other}"),
    };
    let precision = if r["float8"] == "MXFP8" {
        "mxfp8"
    } else {
        "bf16"
    };
    let lbs = r["local_batch_size"].as_u64().unwrap();
    let request = format!(
        r#"{{ {shape}, "seq_len": 2048, "gpu": "gb200", "node_size": 4, "method": "partitioned",
            "zero": "3", "framework": "torchtitan", "precision": "{precision}", "data": 4,
            "micro_batch": {lbs}, "micro_batches": 1, "global_batch": {g},
            "recompute": "selective", "compile": true }}"#,
        g = 4 * lbs
    );
    serde_json::from_str(&plan3d_core::api::json::call("evaluate", &request).unwrap()).unwrap()
}

/// Blackwell, from torchtitan's NVFP4 document (`tt_nvfp4_doc`, allowed
/// calibration data): Llama 3 8B and Qwen3 8B on four GPUs reporting
/// 184 GiB (a GB200's), FSDP, compiled, sequence 2 048, BF16 and MXFP8.
/// Their checkpointing is not stated: torchtitan's default per-op
/// selective one is taken. The BF16 rows check the GB200's sustained rate
/// (`assumptions::GB_SUSTAINED`, not fitted); the MXFP8 over BF16 ratios are
/// what the Blackwell FP8 ceiling (`kernels::BLACKWELL_FP8`) is fitted on.
#[test]
fn torchtitan_blackwell_rows() {
    let t = json("published/torchtitan.json");
    let rows: Vec<_> = t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["source"] == "tt_nvfp4_doc" && r["float8"] != "NVFP4 (bf16 tail)")
        .collect();
    assert_eq!(rows.len(), 4);
    let tps = |r: &serde_json::Value| {
        let v = blackwell_row(r);
        (r["local_batch_size"].as_u64().unwrap() * 2048) as f64
            / v["step_seconds"].as_f64().unwrap()
    };
    let mut worst_bf16 = 0.0_f64;
    let mut ratio_errors = Vec::new();
    for model in ["Llama 3 8B", "Qwen3 8B"] {
        let of = |label: &str| {
            rows.iter()
                .find(|r| r["model"] == model && r["label"] == label)
                .copied()
                .unwrap()
        };
        let (bf16, mx) = (of("BF16"), of("MXFP8"));
        let (pb, pm) = (tps(bf16), tps(mx));
        let (b, m) = (
            bf16["tps_per_gpu"].as_f64().unwrap(),
            mx["tps_per_gpu"].as_f64().unwrap(),
        );
        let ratio = (pm / pb) / (m / b) - 1.0;
        println!(
            "{model}: BF16 published {b}, plan3d {pb:.0} ({:+.1} %); MXFP8 {m}, plan3d {pm:.0} \
             ({:+.1} %); MXFP8/BF16 published {:.3}, plan3d {:.3} ({:+.1} %)",
            100.0 * (pb / b - 1.0),
            100.0 * (pm / m - 1.0),
            m / b,
            pm / pb,
            100.0 * ratio
        );
        worst_bf16 = worst_bf16.max((pb / b - 1.0).abs());
        ratio_errors.push(ratio);
    }
    assert!(worst_bf16 < 0.06, "{worst_bf16}");
    // The fit splits the two rows' disagreement.
    assert!(
        ratio_errors.iter().all(|e| e.abs() < 0.03),
        "{ratio_errors:?}"
    );
    assert!(ratio_errors[0] * ratio_errors[1] < 0.0, "{ratio_errors:?}");
}

/// torchtitan's NVFP4 document's BF16 and MXFP8 rows (GB200-class, FSDP on
/// four, local batch 32 and 16 at 2 K, compiled, per-op checkpointing
/// taken as torchtitan's default) all ran: none "does not fit", and plan3d's
/// peak is within 10 % of the peak the allocator reserved. Llama 3 8B's
/// BF16 row reserved 174.5 of 184.3 GiB; plan3d had counted 188.4, the
/// down projection's output kept as eager SAC keeps it.
#[test]
fn torchtitan_blackwell_rows_fit() {
    let t = json("published/torchtitan.json");
    let mut n = 0;
    for r in t["rows"].as_array().unwrap() {
        if r["source"] != "tt_nvfp4_doc" || r["float8"] == "NVFP4 (bf16 tail)" {
            continue;
        }
        let v = blackwell_row(r);
        let peak = v["memory"]["peak_bytes"].as_f64().unwrap() / (1u64 << 30) as f64;
        let reserved = r["memory_gib"].as_f64().unwrap();
        let label = format!("{} {}", r["model"], r["label"]);
        println!(
            "{label}: reserved {reserved} GiB, plan3d {peak:.1} ({:+.1} %)",
            100.0 * (peak / reserved - 1.0)
        );
        assert_eq!(v["fits"], true, "{label}");
        assert!((peak / reserved - 1.0).abs() < 0.10, "{label}: {peak}");
        n += 1;
    }
    assert_eq!(n, 4);
}
