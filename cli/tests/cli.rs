//! Runs the `plan3d` binary and checks its JSON fields: the stable interface.

use std::process::{Command, Output};

use serde_json::Value;

fn plan3d(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_plan3d"))
        .args(args)
        .output()
        .expect("run plan3d")
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = plan3d(&all);
    assert!(
        out.status.success(),
        "plan3d {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn f(v: &Value, path: &str) -> f64 {
    path.split('.')
        .fold(v, |v, k| &v[k])
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number in {v}"))
}

const GIB: f64 = 1_073_741_824.0;

/// Each call fails with exit code 2, a message containing its needle, and
/// no panic.
fn assert_errors(cases: &[(&[&str], &str)]) {
    for (args, needle) in cases {
        let out = plan3d(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn model_fields() {
    let v = json(&["model", "X160"]);
    assert_eq!(f(&v, "seq_len"), 2560.0);
    assert_eq!(f(&v, "heads"), 80.0);
    assert_eq!(f(&v, "head_size"), 320.0);
    assert_eq!(f(&v, "d_model"), 25600.0);
    assert_eq!(f(&v, "layers"), 160.0);
    assert_eq!(f(&v, "params"), 12.0 * 160f64.powi(5));
    assert_eq!(
        f(&v, "params_exact"),
        12.0 * 160f64.powi(5) + 13.0 * 160f64.powi(3)
    );
    assert_eq!(f(&v, "critical_batch").round(), 2416.0);
    // Case-insensitive presets and custom shapes.
    assert_eq!(f(&json(&["model", "bert"]), "params"), 301_989_888.0);
    let custom = json(&[
        "model",
        "--seq-len",
        "512",
        "--heads",
        "16",
        "--head-size",
        "64",
        "--layers",
        "24",
    ]);
    assert_eq!(f(&custom, "params"), 301_989_888.0);
    let llama = json(&["model", "llama-3.1-405b"]);
    assert_eq!(f(&llama, "params_exact"), 405_853_388_800.0);
}

#[test]
fn hardware_fields() {
    let v = json(&["hardware", "--gpu", "a100-80gb"]);
    assert_eq!(v["gpu"], "a100-80gb");
    assert_eq!(f(&v, "peak_flops"), 312e12);
    assert_eq!(f(&v, "memory_bytes"), 80.0 * GIB);
    for link in [
        "gpu-memory",
        "nvlink",
        "pcie",
        "infiniband",
        "cpu-gpu",
        "ethernet",
        "nvme",
        "hdd",
    ] {
        let bw = f(&v["links"][link], "bandwidth");
        let thr = f(&v["links"][link], "threshold");
        assert!((thr - 312e12 / bw).abs() < 1e-9 * thr, "{link}");
    }
    assert_eq!(f(&v["links"]["infiniband"], "bandwidth"), 50.0 * GIB);
    assert_eq!(f(&v["links"]["pcie"], "threshold").round(), 4612.0);
}

#[test]
fn evaluate_table_6_1_3d_improved() {
    let v = json(&[
        "evaluate",
        "--model",
        "x160",
        "--method",
        "improved",
        "--data",
        "483",
        "--pipe",
        "5",
        "--tensor",
        "16",
        "--batch",
        "2415",
        "--micro-batch",
        "1",
        "--micro-batches",
        "5",
    ]);
    for (k, want) in [
        ("batch", 2415.0),
        ("micro_batch", 1.0),
        ("micro_batches", 5.0),
        ("data", 483.0),
        ("pipe", 5.0),
        ("tensor", 16.0),
        ("gpus", 38640.0),
    ] {
        assert_eq!(f(&v, k), want, "{k}");
    }
    assert_eq!(v["offload"], false);
    assert_eq!((f(&v, "efficiency") * 100.0).round(), 88.0);
    assert_eq!((f(&v, "days") * 10.0).round(), 68.0);
    assert_eq!(f(&v, "overheads.bubble"), 4.0 * 5.0 / (5.0 * 160.0));
    assert_eq!(f(&v, "overheads.data"), 0.0);
    let state = f(&v, "memory.state");
    assert_eq!(state, 12.0 * 12.0 * 160f64.powi(5) / 38640.0);
    let sum: f64 = ["state", "checkpoints", "buffers", "activations"]
        .iter()
        .map(|k| f(&v["memory"], k))
        .sum();
    let (off, non) = (f(&v, "memory.offloadable"), f(&v, "memory.non_offloadable"));
    assert!((sum - off - non).abs() < 1e-6 * sum);
    assert_eq!((non / GIB * 100.0).round(), 314.0); // Table 6.2: 3.14
}

#[test]
fn evaluate_defaults_are_the_papers_setup() {
    // Data + tensor baseline with offload, Table 6.1: 32 days on 7728 GPUs.
    let v = json(&[
        "evaluate",
        "--model",
        "x160",
        "--data",
        "483",
        "--tensor",
        "16",
        "--micro-batch",
        "5",
        "--offload",
    ]);
    assert_eq!(f(&v, "days").round(), 32.0);
    assert_eq!(v["offload"], true);
    assert_eq!(v["fits"], true);
    // Over Ethernet the same plan is never faster.
    let eth = json(&[
        "evaluate",
        "--model",
        "x160",
        "--data",
        "483",
        "--tensor",
        "16",
        "--micro-batch",
        "5",
        "--offload",
        "--network",
        "ethernet",
    ]);
    assert!(f(&eth, "days") >= f(&v, "days"));
}

#[test]
fn zero_and_estimate_fields() {
    let z = json(&["zero", "--params", "7.5e9", "--dp", "64", "--stage", "3"]);
    assert_eq!(f(&z, "params_bytes"), 15e9 / 64.0);
    assert_eq!(f(&z, "grads_bytes"), 15e9 / 64.0);
    assert_eq!(f(&z, "optimizer_bytes"), 90e9 / 64.0);
    assert_eq!(f(&z, "total_bytes"), 1.875e9);
    assert_eq!(f(&z, "comm_volume_elements"), 22.5e9);
    let z1 = json(&[
        "zero", "--params", "7.5e9", "--dp", "64", "--stage", "1", "--k", "16",
    ]);
    assert_eq!(f(&z1, "optimizer_bytes"), 16.0 * 7.5e9 / 64.0);
    let e = json(&[
        "estimate",
        "--params",
        "175e9",
        "--tokens",
        "300e9",
        "--gpus",
        "1024",
        "--flops-per-gpu",
        "140e12",
    ]);
    assert_eq!(f(&e, "days").round(), 34.0);
    let e6 = json(&[
        "estimate",
        "--params",
        "175e9",
        "--tokens",
        "300e9",
        "--gpus",
        "1024",
        "--flops-per-gpu",
        "140e12",
        "--flops-factor",
        "6",
    ]);
    assert!((f(&e6, "days") / f(&e, "days") - 0.75).abs() < 1e-12);
}

#[test]
fn bad_input_is_a_clear_error_not_a_panic() {
    let cases: &[(&[&str], &str)] = &[
        (&["model", "x3"], "even x"),
        (&["model", "gpt-9"], "unknown model"),
        (&["model"], "give a model name"),
        (
            &["evaluate", "--model", "x160", "--tensor", "0"],
            "tensor-parallel degree",
        ),
        (
            &[
                "evaluate",
                "--model",
                "x160",
                "--tensor",
                "96",
                "--no-node-limit",
            ],
            "tensor-parallel degree",
        ),
        (
            &["evaluate", "--model", "x160", "--tensor", "32"],
            "exceeds the node size 16",
        ),
        (
            &["evaluate", "--model", "x160", "--data", "2", "--batch", "3"],
            "batch 3 must equal",
        ),
        (
            &["evaluate", "--model", "x160", "--gpu", "tpu-v9"],
            "unknown GPU",
        ),
        (
            &["evaluate", "--model", "x160", "--network", "carrier-pigeon"],
            "unknown network",
        ),
        (
            &["evaluate", "--model", "x160", "--kernel-efficiency", "NaN"],
            "finite",
        ),
        (
            &["evaluate", "--model", "x160", "--pipe", "4000"],
            "pipeline-parallel degree",
        ),
        (
            &["zero", "--params", "inf", "--dp", "1", "--stage", "0"],
            "finite",
        ),
        (
            &["zero", "--params", "1e9", "--dp", "1", "--stage", "7"],
            "ZeRO stage",
        ),
        (
            &[
                "estimate",
                "--params",
                "1e9",
                "--tokens",
                "1e9",
                "--gpus",
                "0",
                "--flops-per-gpu",
                "1e12",
            ],
            "GPUs",
        ),
    ];
    assert_errors(cases);
}

#[test]
fn tables_are_readable() {
    let out = plan3d(&[
        "evaluate",
        "--model",
        "x160",
        "--data",
        "483",
        "--tensor",
        "16",
        "--micro-batch",
        "5",
        "--offload",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("days"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("memory.state") && l.ends_with("GiB")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("gpus") && l.ends_with("7728")),
        "{text}"
    );
}

#[test]
fn plan_rules_and_exhaustive() {
    let v = json(&[
        "plan",
        "--model",
        "x160",
        "--method",
        "improved",
        "--parallelism",
        "3d",
    ]);
    assert_eq!(f(&v, "gpus"), 38640.0);
    assert_eq!(
        (f(&v, "data"), f(&v, "pipe"), f(&v, "tensor")),
        (483.0, 5.0, 16.0)
    );
    assert_eq!(v["search"], "rules");
    assert_eq!(v["parallelism"], "3d");
    let binding: Vec<&str> = v["binding"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    assert!(binding.iter().any(|b| b.contains("eq. 9")), "{binding:?}");
    // Same fields as evaluate.
    for k in [
        "batch",
        "micro_batch",
        "micro_batches",
        "offload",
        "efficiency",
        "days",
        "overheads",
        "memory",
    ] {
        assert!(!v[k].is_null(), "{k}");
    }
    let x = json(&[
        "plan",
        "--model",
        "x160",
        "--method",
        "any",
        "--search",
        "exhaustive",
    ]);
    assert_eq!(f(&x, "gpus"), 38640.0);
    assert_eq!(f(&x["rules"], "slowdown"), 1.0);
    let pareto = x["pareto"].as_array().unwrap();
    assert!(pareto.len() >= 3);
    assert!(pareto
        .windows(2)
        .all(|w| f(&w[0], "days") <= f(&w[1], "days")));
    assert!(f(&x, "evaluated") > 0.0);
}

#[test]
fn plan_constraints() {
    // Table 6.3: the 3d baseline within a month needs 10240 GPUs.
    let v = json(&[
        "plan",
        "--model",
        "x160",
        "--method",
        "baseline",
        "--target-days",
        "31",
    ]);
    assert_eq!(f(&v, "gpus"), 10240.0);
    let v = json(&[
        "plan",
        "--model",
        "x160",
        "--method",
        "improved",
        "--max-gpus",
        "1000",
    ]);
    assert!(f(&v, "gpus") <= 1000.0);
    let v = json(&[
        "plan", "--model", "x160", "--method", "improved", "--batch", "1000",
    ]);
    assert!(f(&v, "batch") <= 1000.0);
    let v = json(&[
        "plan", "--model", "x160", "--method", "improved", "--tensor", "8",
    ]);
    assert_eq!(f(&v, "tensor"), 8.0);
    let v = json(&[
        "plan",
        "--model",
        "x160",
        "--method",
        "any",
        "--search",
        "exhaustive",
        "--gpus",
        "7728",
    ]);
    assert_eq!(f(&v, "gpus"), 7728.0);
    let eth = json(&[
        "plan",
        "--model",
        "x160",
        "--method",
        "improved",
        "--network",
        "ethernet",
    ]);
    assert_eq!(f(&eth, "micro_batches"), 37.0);
    let small = json(&[
        "plan",
        "--model",
        "x64",
        "--method",
        "baseline",
        "--parallelism",
        "data",
        "--gpu-memory",
        "40",
    ]);
    assert_eq!(small["offload"], true);
}

#[test]
fn sweep_rows() {
    let v = json(&[
        "sweep",
        "--method",
        "improved",
        "--parallelism",
        "3d",
        "--from",
        "1e10",
        "--to",
        "1e13",
        "--points",
        "20",
    ]);
    let rows = v.as_array().unwrap();
    assert!(rows.len() >= 10);
    for r in rows {
        for k in [
            "params",
            "gpus",
            "days",
            "efficiency",
            "offload",
            "offloadable",
            "non_offloadable",
        ] {
            assert!(!r[k].is_null(), "{k} in {r}");
        }
        assert_eq!(f(r, "params"), 12.0 * f(r, "x").powi(5));
    }
    let out = plan3d(&[
        "sweep",
        "--from",
        "1e10",
        "--to",
        "1e12",
        "--points",
        "5",
        "--csv",
        "--no-node-limit",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("x,params,gpus,days,efficiency,offload,offloadable,non_offloadable"));
    assert_eq!(lines.count(), 5);
    let table = String::from_utf8(
        plan3d(&["sweep", "--from", "1e10", "--to", "1e12", "--points", "3"]).stdout,
    )
    .unwrap();
    assert!(table.contains("n_b × n_l × n_a"), "{table}");
}

#[test]
fn plan_and_sweep_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["plan", "--model", "x160", "--parallelism", "4d"],
            "unknown parallelism",
        ),
        (
            &["plan", "--model", "x160", "--search", "magic"],
            "unknown search",
        ),
        (
            &["plan", "--model", "x160", "--method", "any"],
            "the rules need a method",
        ),
        (
            &["plan", "--model", "x160", "--target-days=-1"],
            "target days",
        ),
        (
            &["plan", "--model", "x160", "--max-gpus", "0"],
            "GPU budget",
        ),
        (
            &["plan", "--model", "x160", "--gpu-memory", "0"],
            "GPU memory",
        ),
        (
            &[
                "plan",
                "--model",
                "x160",
                "--parallelism",
                "data",
                "--tensor",
                "8",
            ],
            "tensor",
        ),
        (&["sweep", "--from", "1e12", "--to", "1e9"], "sweep end"),
        (&["sweep", "--points", "0"], "sweep points"),
    ];
    assert_errors(cases);
}

#[test]
fn schedule_json_ascii_svg() {
    let v = json(&[
        "schedule",
        "--kind",
        "1f1b",
        "--devices",
        "4",
        "--layers",
        "16",
        "--micro-batches",
        "8",
    ]);
    assert_eq!(v["kind"], "1f1b");
    assert_eq!(f(&v, "bubble_fraction"), 3.0 / 8.0);
    assert_eq!(f(&v, "makespan"), (8.0 + 3.0) * 4.0 * 3.0);
    assert_eq!(v["memory_peak_bytes"].as_array().unwrap().len(), 4);
    assert_eq!(v["in_flight"][0], 4);
    let events = v["events"].as_array().unwrap();
    assert_eq!(events.len(), 2 * 4 * 8);
    for k in [
        "device",
        "stream",
        "kind",
        "layer",
        "layers",
        "micro_batch",
        "start",
        "end",
    ] {
        assert!(events[0].get(k).is_some(), "{k}");
    }
    let m = json(&[
        "schedule",
        "--kind",
        "modular",
        "--devices",
        "5",
        "--micro-batches",
        "5",
        "--model",
        "x160",
        "--tensor",
        "16",
        "--data",
        "483",
        "--partition",
    ]);
    assert_eq!(m["unit"], "s");
    assert_eq!(f(&m, "layers"), 160.0);
    assert!(f(&m, "makespan") > 5.0 && f(&m, "makespan") < 7.0);
    // The simulated peak equals the evaluator's total (Table 6.2: 4.72 GiB).
    let peak = m["memory_peak_bytes"][0].as_f64().unwrap() / GIB;
    assert_eq!((peak * 100.0).round(), 472.0);
    let ascii = String::from_utf8(
        plan3d(&[
            "schedule", "--kind", "lga", "--layers", "4", "--data", "2", "--reduce", "1",
        ])
        .stdout,
    )
    .unwrap();
    assert!(
        ascii.starts_with("  0    |abcdabcdabcdabcdAABBCCDD"),
        "{ascii}"
    );
    assert!(ascii.contains("bubble 0.0000"));
    let svg = String::from_utf8(
        plan3d(&[
            "schedule",
            "--kind",
            "modular",
            "--devices",
            "4",
            "--layers",
            "16",
            "--svg",
        ])
        .stdout,
    )
    .unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    let bad: &[(&[&str], &str)] = &[
        (&["schedule", "--kind", "zigzag"], "unknown schedule kind"),
        (
            &[
                "schedule",
                "--kind",
                "gpipe",
                "--devices",
                "3",
                "--layers",
                "16",
            ],
            "must divide layers",
        ),
        (
            &[
                "schedule",
                "--kind",
                "modular",
                "--devices",
                "8",
                "--micro-batches",
                "4",
            ],
            "micro-batches",
        ),
        (&["schedule", "--kind", "ga", "--devices", "2"], "devices"),
        (
            &[
                "schedule",
                "--kind",
                "lga",
                "--layers",
                "100000",
                "--micro-batches",
                "100000",
            ],
            "schedule size",
        ),
    ];
    assert_errors(bad);
}

#[test]
fn sweep_custom_scaling() {
    let v = json(&[
        "sweep",
        "--scaling",
        "aspect:128",
        "--from",
        "1e10",
        "--to",
        "1e12",
        "--points",
        "5",
    ]);
    for r in v.as_array().unwrap() {
        assert_eq!(f(r, "x"), 0.0);
        assert!(
            (f(r, "d_model") / f(r, "layers") / 128.0 - 1.0).abs() < 0.2,
            "{r}"
        );
    }
    let v = json(&[
        "sweep",
        "--scaling",
        "depth:64",
        "--from",
        "1e10",
        "--to",
        "1e12",
        "--points",
        "3",
    ]);
    assert!(v.as_array().unwrap().iter().all(|r| f(r, "layers") == 64.0));
    let out = plan3d(&["sweep", "--scaling", "spiral"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown scaling"));
}

/// A reader that closes the pipe early (`plan3d … | head -1`) ends the
/// output quietly: no panic, exit 0.
#[test]
fn closed_stdout_is_not_a_panic() {
    use std::io::Read as _;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_plan3d"))
        .args([
            "schedule",
            "--kind",
            "modular",
            "--devices",
            "4",
            "--layers",
            "64",
        ])
        .args(["--micro-batches", "64", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run plan3d");
    // Read one byte, then close our end while it is still writing.
    let mut first = [0_u8; 1];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("some output");
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success(), "{:?}: {err}", out.status);
}
