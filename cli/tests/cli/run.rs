//! `plan3d run`: the plan's fields and the whole run's, consistent with
//! each other; the cheapest plan; bad inputs.

use super::{assert_errors, f, json_words, plan3d_words};

const LLAMA70B: &str = "run --model llama-3.1-70b --gpu h100-sxm --node-size 8 \
     --network infiniband-400 --gpus 1024 --tokens 1.5e12 --global-batch 1024";

#[test]
fn run_reports_days_goodput_cost_and_energy() {
    let v = json_words(LLAMA70B);
    // Practice by default, with the plan's fields.
    assert_eq!(v["assumptions"], "practice");
    assert_eq!(f(&v, "gpus"), 1024.0);
    assert_eq!(f(&v, "batch"), 1024.0);
    // One phase at the plan's batch: its days are the plan's.
    assert_eq!(v["phases"].as_array().unwrap().len(), 1);
    assert!((f(&v, "ideal_days") - f(&v, "days")).abs() < 1e-9 * f(&v, "days"));
    let lost: f64 = ["checkpoints", "recompute", "restarts"]
        .iter()
        .map(|k| f(&v, &format!("lost_hours.{k}")))
        .sum();
    assert!((f(&v, "ideal_days") * 24.0 + lost - f(&v, "wall_days") * 24.0).abs() < 1e-6);
    assert!((f(&v, "goodput") - f(&v, "ideal_days") / f(&v, "wall_days")).abs() < 1e-12);
    assert!((f(&v, "gpu_hours") - 1024.0 * 24.0 * f(&v, "wall_days")).abs() < 1e-6);
    // H100's default price, $2.50 per GPU-hour.
    assert_eq!(f(&v, "price_per_gpu_hour"), 2.5);
    assert!((f(&v, "cost") - 2.5 * f(&v, "gpu_hours")).abs() < 1e-6);
    assert!(f(&v, "energy_mwh") > 0.0 && v.get("co2_tonnes").is_none());
    // A price, a grid and asynchronous checkpoints.
    let w = json_words(&format!(
        "{LLAMA70B} --price-per-gpu-hour 2 --grid-kg-per-kwh 0.4 --async-checkpoint"
    ));
    assert!((f(&w, "cost") - 2.0 * f(&w, "gpu_hours")).abs() < 1e-6);
    assert!((f(&w, "co2_tonnes") - 0.4 * f(&w, "energy_mwh")).abs() < 1e-9);
    assert!(f(&w, "checkpoint_seconds") < f(&v, "checkpoint_seconds"));
    assert!(f(&w, "goodput") >= f(&v, "goodput"));
}

#[test]
fn a_batch_ramp_runs_in_phases() {
    let v = json_words(
        "run --model llama-3.1-70b --method baseline --gpu h100-sxm --node-size 8 --gpus 1024 \
         --tokens 1.5e12 --batch-ramp 0:2Mi,100B:8Mi",
    );
    let phases = v["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 2);
    // The plan is searched at the last batch: 8 Mi tokens = 1024 sequences.
    assert_eq!(f(&v, "batch"), 1024.0);
    assert_eq!(f(&phases[0], "tokens"), 100e9);
    assert_eq!(f(&phases[1], "batch_tokens"), 8.0 * 1024.0 * 1024.0);
    let days: f64 = phases.iter().map(|p| f(p, "days")).sum();
    assert!((days - f(&v, "ideal_days")).abs() < 1e-9 * days);
    // A smaller batch per step is no faster per token.
    assert!(f(&phases[0], "step_seconds") < f(&phases[1], "step_seconds"));
}

#[test]
fn the_cheapest_plan_within_a_target() {
    let base = "plan --assumptions practice --model llama-3.1-8b --gpu h100-sxm --node-size 8 \
                --max-gpus 512 --target-days 20";
    let fewest = json_words(base);
    let cheapest = json_words(&format!("{base} --cheapest"));
    let gpu_days = |v: &serde_json::Value| f(v, "gpus") * f(v, "days");
    assert!(f(&cheapest, "days") <= 20.0 && f(&fewest, "days") <= 20.0);
    assert!(gpu_days(&cheapest) <= gpu_days(&fewest));
}

#[test]
fn run_rejects_bad_inputs() {
    let base: &[&str] = &[
        "run",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "h100-sxm",
        "--node-size",
        "8",
        "--gpus",
        "64",
    ];
    let with = |extra: &'static [&'static str]| -> Vec<&str> {
        base.iter().chain(extra.iter()).copied().collect()
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (with(&["--price-per-gpu-hour=-1"]), "price"),
        (
            with(&["--checkpoint-bandwidth", "0"]),
            "checkpoint bandwidth",
        ),
        (
            with(&["--interruptions-per-gpu-hour", "1e9"]),
            "interruptions",
        ),
        (with(&["--pue", "NaN"]), "PUE"),
        (with(&["--batch-ramp", "5:4M"]), "start at 0"),
        (with(&["--batch-tokens", "1000"]), "whole number"),
        (
            with(&[
                "--interruptions-per-gpu-hour",
                "0.5",
                "--restart-minutes",
                "600",
            ]),
            "never finishes",
        ),
    ];
    let refs: Vec<(&[&str], &str)> = cases.iter().map(|(a, n)| (a.as_slice(), *n)).collect();
    assert_errors(&refs);
    assert_errors(&[(
        &[
            "plan",
            "--assumptions",
            "paper",
            "--model",
            "x160",
            "--cheapest",
        ],
        "practice search",
    )]);
}

/// `--batch-tokens` reads the same suffixes as `--batch-ramp` (one parser
/// for every count), and so do `--tokens`, `--max-gpus` and `--global-batch`.
#[test]
fn counts_take_the_units_people_type() {
    let plain = json_words(
        "run --model llama-3.1-70b --gpu h100-sxm --node-size 8 --gpus 1024 \
         --tokens 1500000000000 --batch-tokens 8388608",
    );
    let suffixed = json_words(
        "run --model llama-3.1-70b --gpu h100-sxm --node-size 8 --gpus 1Ki \
         --tokens 1.5T --batch-tokens 8Mi",
    );
    assert_eq!(plain, suffixed);
    assert_eq!(f(&suffixed, "batch"), 1024.0);
    assert_errors(&[
        (
            &["run", "--model", "llama-3.1-70b", "--batch-tokens", "16Q"],
            "'16Q' is not a number",
        ),
        (
            &[
                "plan",
                "--assumptions",
                "paper",
                "--model",
                "gpt-3",
                "--max-gpus",
                "1000.5",
            ],
            "'1000.5' is not a whole number",
        ),
        (
            &["run", "--model", "llama-3.1-70b", "--batch-ramp", "0:4Qi"],
            "is not a number",
        ),
    ]);
}

/// Meta's published layout for Llama 3.1 405B (TP 8, PP 16, DP 128) runs
/// as given at today's batch for its run (DeepSeek LLM's law: 8 384
/// sequences, 65 micro-batches a replica); at the paper's critical batch,
/// 516 sequences, it has 4 micro-batches for 16 stages: the error says so
/// and that its own batch, 2 048 sequences (16 Mi tokens), gives a plan;
/// with that batch it runs on exactly that layout. DeepSeek-V3's layout
/// (PP 16, EP 64, no TP) likewise.
#[test]
fn a_published_layout_is_explained_then_run() {
    let meta = "run --model llama-3.1-405b --gpu h100-sxm --node-size 8 --data 128 --pipe 16 \
                --tensor 8 --tokens 15.6e12";
    let v = json_words(meta);
    assert_eq!(
        (f(&v, "data"), f(&v, "pipe"), f(&v, "tensor"), f(&v, "gpus")),
        (128.0, 16.0, 8.0, 16384.0)
    );
    assert!(
        f(&v, "batch") <= 8384.0 && f(&v, "batch") >= 8192.0,
        "{}",
        v["batch"]
    );
    let out = plan3d_words(&format!("{meta} --batch 516"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "Closest: micro-batches: the batch limit of 516 sequences leaves 4 micro-batches \
             (DP 128, micro-batch 1) for 16 pipeline stages"
        ),
        "{err}"
    );
    assert!(
        err.contains("with a batch of up to 2048 sequences (batch 2048)"),
        "{err}"
    );
    assert!(err.contains("on 16,384 GPUs"), "{err}");
    let v = json_words(&format!("{meta} --batch-tokens 16Mi"));
    assert_eq!(
        (
            f(&v, "data"),
            f(&v, "pipe"),
            f(&v, "tensor"),
            f(&v, "batch"),
            f(&v, "gpus")
        ),
        (128.0, 16.0, 8.0, 2048.0, 16384.0)
    );
    let deepseek = "run --model deepseek-v3 --gpu h800 --node-size 8 --gpus 2048 --pipe 16 \
                    --expert-parallel 64 --tensor 1 --precision fp8";
    let out = plan3d_words(&format!("{deepseek} --batch 1024"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Closest: micro-batches: the batch limit of 1024"),
        "{err}"
    );
    assert!(err.contains("(batch 2048)"), "{err}");
    let v = json_words(&format!("{deepseek} --global-batch 15360"));
    assert_eq!(
        (
            f(&v, "pipe"),
            f(&v, "expert_parallel"),
            f(&v, "tensor"),
            f(&v, "batch")
        ),
        (16.0, 64.0, 1.0, 15360.0)
    );
}
