//! The practice model against the calibration set (`core/data/calibration`):
//! the fit of [`plan3d_core::cost::assumptions::kernel_fit`] is the
//! least-squares optimum of that set, and the errors stay within the
//! issue's bounds (median |error| ≤ 8 %, max ≤ 20 %).

use plan3d_core::calibration::{self, Run};
use plan3d_core::cost::assumptions::{kernel_fit, KernelFit, KernelModel};
use plan3d_core::cost::evaluate_with;

/// Sum of squared relative step errors of `runs` with the kernel figures
/// `fit`.
fn sse(runs: &[&Run], fit: KernelFit) -> f64 {
    runs.iter()
        .map(|r| {
            let mut a = r.assumptions();
            a.kernel = KernelModel::Given(fit);
            let e = evaluate_with(&r.shape(), &r.hardware().unwrap(), &r.config(), &a).unwrap();
            let err = e.step.0 / r.measured_step().unwrap() - 1.0;
            err * err
        })
        .sum()
}

fn given(gemm_efficiency: f64, elementwise_traffic: f64) -> KernelFit {
    KernelFit {
        gemm_efficiency,
        elementwise_traffic,
        validated: false,
    }
}

/// The shipped constants are the grid optimum: step 0.005 in efficiency,
/// 0.05 in traffic. Prints the fit.
#[test]
fn kernel_fit_is_the_least_squares_optimum() {
    let runs = calibration::RUNS;
    let (a100, h100): (Vec<&Run>, Vec<&Run>) =
        runs.iter().partition(|r| r.plan3d_gpu.starts_with("a100"));
    assert_eq!((a100.len(), h100.len()), (10, 2));
    let hw_a = a100[0].hardware().unwrap();
    let hw_h = h100[0].hardware().unwrap();
    let (fa, fh) = (kernel_fit(&hw_a.gpu), kernel_fit(&hw_h.gpu));
    // Step 1: traffic and the A100's GEMM efficiency on PTD-P Table 1.
    let mut best = (f64::INFINITY, 0.0, 0.0);
    for k in 0..=80 {
        let traffic = f64::from(k) * 0.05;
        for e in 100..=190 {
            let eff = f64::from(e) * 0.005;
            let s = sse(&a100, given(eff, traffic));
            if s < best.0 {
                best = (s, eff, traffic);
            }
        }
    }
    println!(
        "A100: gemm {:.3}, traffic {:.2}, sse {:.5}",
        best.1, best.2, best.0
    );
    assert!((best.1 - fa.gemm_efficiency).abs() < 0.003, "{best:?}");
    assert!((best.2 - fa.elementwise_traffic).abs() < 0.03, "{best:?}");
    // Step 2: the H100's efficiency, traffic held.
    let mut best_h = (f64::INFINITY, 0.0);
    for e in 100..=195 {
        let eff = f64::from(e) * 0.005;
        let s = sse(&h100, given(eff, fa.elementwise_traffic));
        if s < best_h.0 {
            best_h = (s, eff);
        }
    }
    println!("H100: gemm {:.3}, sse {:.5}", best_h.1, best_h.0);
    assert!((best_h.1 - fh.gemm_efficiency).abs() < 0.003, "{best_h:?}");
    assert!(fa.validated && fh.validated);
}

/// The bounds: median |error| ≤ 8 %, max ≤ 20 %, and every run
/// that ran fits in memory.
#[test]
fn calibration_errors_within_bounds() {
    let rows = calibration::validate().unwrap();
    assert_eq!(rows.len(), 12);
    let mut abs: Vec<f64> = rows.iter().map(|r| r.error.abs()).collect();
    abs.sort_by(f64::total_cmp);
    for r in &rows {
        println!(
            "{:26} {:>8.3} s {:>8.3} s {:+6.1}%  MFU {:.3}  {:.1} GiB  {}",
            r.id,
            r.measured_step,
            r.predicted_step,
            100.0 * r.error,
            r.mfu,
            r.peak_memory / f64::from(1u32 << 30),
            r.config
        );
        assert!(
            r.fits,
            "{} ran, so it fits: {:.1} GiB",
            r.id,
            r.peak_memory / 1e9
        );
    }
    // MFU is not fitted (step times are): where a run publishes it, the
    // model's flop count must give it back from the predicted step.
    for (r, run) in rows.iter().zip(calibration::RUNS) {
        if let Some(mfu) = run.mfu {
            let expected = mfu / 100.0 * run.measured_step().unwrap() / r.predicted_step;
            assert!(
                (r.mfu - expected).abs() < 0.005,
                "{}: {} vs {expected}",
                r.id,
                r.mfu
            );
        }
    }
    let median = (abs[5] + abs[6]) / 2.0;
    println!(
        "median |error| {:.1} %, max {:.1} %",
        100.0 * median,
        100.0 * abs[11]
    );
    assert!(median <= 0.08, "median {median}");
    assert!(abs[11] <= 0.20, "max {}", abs[11]);
}

/// `calibration::RUNS` is `data/calibration/real_runs.json`, field for field.
#[test]
fn runs_are_the_calibration_file() {
    let text = include_str!("../data/calibration/real_runs.json");
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), calibration::RUNS.len());
    let opt_u = |x: &serde_json::Value| x.as_u64();
    let opt_f = |x: &serde_json::Value| x.as_f64();
    for (j, r) in runs.iter().zip(calibration::RUNS) {
        let (m, h, p, me) = (
            &j["model"],
            &j["hardware"],
            &j["parallelism"],
            &j["measured"],
        );
        assert_eq!(j["id"], r.id);
        assert_eq!(j["source"]["title"], r.title);
        assert_eq!(j["source"]["arxiv"].as_str(), r.arxiv);
        assert_eq!(j["source"]["repo"].as_str(), r.repo);
        assert_eq!(m["params_published_b"], r.params_published_b);
        for (k, want) in [
            ("layers", r.layers),
            ("d_model", r.d_model),
            ("heads", r.heads),
            ("kv_heads", r.kv_heads),
            ("head_size", r.head_size),
            ("ffn", r.ffn),
            ("seq_len", r.seq_len),
            ("vocab", r.vocab),
        ] {
            assert_eq!(m[k].as_u64(), Some(u64::from(want)), "{} {k}", r.id);
        }
        assert_eq!(m["gated"].as_bool(), Some(r.gated));
        assert_eq!(h["plan3d_gpu"], r.plan3d_gpu);
        assert_eq!(h["plan3d_network"], r.plan3d_network);
        assert_eq!(
            h["gpus_per_node"].as_u64(),
            Some(u64::from(r.gpus_per_node))
        );
        assert_eq!(h["gpus"].as_u64(), Some(r.gpus));
        for (k, want) in [
            ("tp", r.tp),
            ("pp", r.pp),
            ("dp", r.dp),
            ("micro_batch", r.micro_batch),
        ] {
            assert_eq!(p[k].as_u64(), Some(u64::from(want)), "{} {k}", r.id);
        }
        assert_eq!(p["global_batch"].as_u64(), Some(r.global_batch));
        assert_eq!(opt_u(&p["virtual_stages"]), r.virtual_stages.map(u64::from));
        assert_eq!(opt_u(&p["zero_stage"]), r.zero_stage.map(u64::from));
        assert_eq!(p["sequence_parallel"].as_bool(), r.sequence_parallel);
        assert_eq!(p["recompute"], r.recompute);
        assert_eq!(opt_f(&me["tflops_per_gpu"]), r.tflops_per_gpu);
        assert_eq!(opt_f(&me["seconds_per_iteration"]), r.seconds_per_iteration);
        assert_eq!(opt_f(&me["mfu"]), r.mfu);
        assert_eq!(j["convention"]["kind"], r.convention);
    }
}

/// Out of sample: Megatron-Turing NLG 530B (Smith et al. 2022, arXiv
/// 2201.11990: 105 layers, d_m 20480, 128 heads, sequence 2048, batch
/// 1 920; TP8 PP35 on 280, 350 and 420 DGX A100 80 GB nodes of Selene,
/// HDR InfiniBand; 60.1, 50.2 and 44.4 s per step, which its 126, 121
/// and 113 Tflop/s per GPU give by PTD-P's eq. 3). Not in the calibration
/// set and not fitted. Its DeepSpeed + Megatron software of 2021 is read
/// as PTD-P's (no FlashAttention, no sequence parallelism, no overlap,
/// full recomputation, 1F1B without interleaving); the vocabulary is
/// Megatron's padded 51 200. The micro-batch is not published: at 2 the
/// model is 5–6 % fast, at 1 it is 16–19 % fast (its bubble (p−1)/m
/// doubles). The README's out-of-sample table holds these figures.
#[test]
fn mt_nlg_530b_out_of_sample() {
    let base = calibration::RUNS
        .iter()
        .find(|r| r.id == "ptdp-t1-529.6b")
        .unwrap();
    for (dp, measured, mb2, mb1) in [
        (8u32, 60.1, -0.072, -0.169),
        (10, 50.2, -0.061, -0.177),
        (12, 44.4, -0.068, -0.200),
    ] {
        for (micro_batch, want) in [(2u32, mb2), (1, mb1)] {
            let run = Run {
                id: "mt-nlg-530b",
                title: "Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B (Smith et al. 2022)",
                arxiv: Some("2201.11990"),
                params_published_b: "530",
                gpus: u64::from(dp) * 8 * 35,
                dp,
                virtual_stages: None,
                micro_batch,
                global_batch: 1920,
                tflops_per_gpu: None,
                seconds_per_iteration: Some(measured),
                ..*base
            };
            assert_eq!(run.config().micro_batches, 1920 / (dp * micro_batch));
            let e = evaluate_with(
                &run.shape(),
                &run.hardware().unwrap(),
                &run.config(),
                &run.assumptions(),
            )
            .unwrap();
            assert!(e.fits);
            // The Validation card's rows (micro-batch 2, as stated there).
            if micro_batch == 2 {
                let row = calibration::OUT_OF_SAMPLE
                    .iter()
                    .find(|c| c.published == measured)
                    .unwrap();
                assert!((e.step.0 / row.plan3d - 1.0).abs() < 0.005, "{}", e.step.0);
            }
            let err = e.step.0 / measured - 1.0;
            assert!(
                (err - want).abs() < 0.002,
                "DP{dp} mb{micro_batch}: {:.2} s against {measured} ({err:+.3})",
                e.step.0
            );
        }
    }
}

/// Out of sample: Korthikanti et al. 2022 (arXiv 2205.05198), Table 5's
/// 22B model (Table 3: 64 heads, d_m 6 144, 48 layers, TP 8 on 8 A100 80 GB,
/// batch 4; sequence 2 048, Megatron's padded vocabulary 51 200): 1.42 s a
/// step with full recomputation, 1.10 s with sequence parallelism and
/// selective recomputation. Their Megatron-LM of 2022 had no
/// FlashAttention and did not overlap the tensor collectives: with
/// `attention materialized` and `overlap_tensor false` plan3d gives 1.451 s
/// (+2.2 %) and 1.028 s (−6.5 %); with practice's defaults (today's
/// software) 1.102 and 0.786 s.
/// Nothing was fitted on them. The CLI gives the same (cli/tests).
#[test]
fn korthikanti_22b_out_of_sample() {
    use plan3d_core::api::{self, request::EvaluateRequest};
    let request = |recompute: &str, sp: bool, era: bool| {
        let mut r = EvaluateRequest::default();
        r.model.seq_len = Some(2048);
        r.model.heads = Some(64);
        r.model.head_size = Some(96);
        r.model.layers = Some(48);
        r.model.vocab = Some(51_200);
        r.hardware.gpu = "a100-80gb".into();
        r.hardware.node_size = Some(8);
        r.tensor = 8;
        r.micro_batch = 4;
        r.micro_batches = 1;
        r.practice.assumptions = "practice".into();
        r.practice.recompute = Some(recompute.into());
        r.practice.sequence_parallel = Some(sp);
        if era {
            r.practice.attention = Some("materialized".into());
            r.practice.overlap_tensor = Some(false);
        }
        api::evaluate(&r).unwrap().step_seconds
    };
    let rows: Vec<_> = calibration::OUT_OF_SAMPLE
        .iter()
        .filter(|c| c.test.ends_with("korthikanti_22b_out_of_sample"))
        .collect();
    assert_eq!(rows.len(), 2);
    for (row, recompute, sp, today) in [
        (rows[0], "full", false, 1.102),
        (rows[1], "selective", true, 0.775),
    ] {
        let step = request(recompute, sp, true);
        println!(
            "Korthikanti 22B, {recompute}: {step:.3} s against {} ({:+.1} %)",
            row.published,
            100.0 * (step / row.published - 1.0)
        );
        assert!((step / row.plan3d - 1.0).abs() < 0.005, "{step}");
        assert!((step / row.published - 1.0).abs() < 0.11);
        // Today's software (FlashAttention, overlapped collectives) is
        // faster, as the issue measured.
        let now = request(recompute, sp, false);
        println!("  with today's software: {now:.3} s");
        assert!((now / today - 1.0).abs() < 0.01, "{now}");
    }
}
