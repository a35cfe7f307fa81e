//! `plan3d calibrate` and `--profile`: the shipped script measures (on the
//! CPU here), a profile is checked and says what it sets, every subcommand
//! takes it and gives the preset's figures beside.

use super::{json, json_words, plan3d};

/// The H100 tables the preset was fitted on, as a profile.
const TABLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../calibration/h100-2026-11-25/profile.json"
);

const EVALUATE: &str = "evaluate --model llama-3.1-8b --seq-len 8192 --gpu h100-sxm --node-size 8 \
     --method partitioned --data 8 --tensor 1 --micro-batch 1 --global-batch 8 --recompute selective";

/// A copy of the tables' profile with every BF16 GEMM `factor` times as
/// slow, in a temporary file.
fn slowed(factor: f64) -> std::path::PathBuf {
    let mut p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(TABLES).unwrap()).unwrap();
    for r in p["gemm"].as_array_mut().unwrap() {
        if r["fp8"] == false {
            let s = r["seconds"].as_f64().unwrap();
            r["seconds"] = (s * factor).into();
        }
    }
    let path =
        std::env::temp_dir().join(format!("plan3d-slow-{}-{factor}.json", std::process::id()));
    std::fs::write(&path, p.to_string()).unwrap();
    path
}

/// The preset's own tables check and set the preset's figures; the step
/// with them is the preset's to the bit, said beside.
#[test]
fn the_tables_profile_is_the_preset() {
    let v = json(&["calibrate", "--check", TABLES, "--gpu", "h100-sxm"]);
    for key in [
        "ceiling_bf16",
        "ceiling_fp8",
        "attention_forward",
        "attention_backward",
        "memory",
    ] {
        assert_eq!(v[key][0], v[key][1], "{key}: {v}");
    }
    assert_eq!(v["ceiling_bf16"][0], 0.72);
    assert_eq!(v["sms"], 132.0);
    let with = json_words(&format!("{EVALUATE} --profile {TABLES}"));
    let without = json_words(EVALUATE);
    assert_eq!(with["step_seconds"], without["step_seconds"]);
    assert_eq!(with["preset"]["step_seconds"], without["step_seconds"]);
    assert!(with["profile"]["device"].as_str().unwrap().contains("H100"));
    assert!(without.get("preset").is_none() && without.get("profile").is_none());
}

/// BF16 GEMMs twice as slow: the ceiling halves, the step's linear GEMMs
/// double; `plan` and `run` take the profile too and give the preset's
/// plan beside; the words say so.
#[test]
fn a_slower_profile_slows_the_step_and_says_so() {
    let slow = slowed(2.0);
    let slow = slow.to_str().unwrap();
    let v = json_words(&format!("{EVALUATE} --profile {slow}"));
    assert_eq!(
        v["profile"]["ceiling_bf16"],
        serde_json::json!([0.36, 0.72])
    );
    let gemms = |r: &serde_json::Value| {
        r["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["class"] == "linear GEMMs")
            .unwrap()["seconds"]
            .as_f64()
            .unwrap()
    };
    let ratio = gemms(&v) / gemms(&v["preset"]);
    assert!((ratio - 2.0).abs() < 0.02, "{ratio}");
    let out = plan3d(
        &format!("{EVALUATE} --profile {slow}")
            .split_whitespace()
            .collect::<Vec<_>>(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Calibrated on NVIDIA H100"), "{text}");
    assert!(text.contains("36 % (72 %)"), "{text}");
    assert!(
        text.contains("With the preset's curves the step is"),
        "{text}"
    );
    let p = json_words(&format!(
        "plan --model llama-3.1-70b --gpu h100-sxm --node-size 8 --max-gpus 64 --profile {slow}"
    ));
    assert!(p["preset"]["layout"].as_str().unwrap().starts_with("DP "));
    assert!(p["step_seconds"].as_f64().unwrap() > p["preset"]["step_seconds"].as_f64().unwrap());
    let r = json_words(&format!(
        "run --model llama-3.1-8b --gpu h100-sxm --node-size 8 --max-gpus 64 --tokens 1e12 --profile {slow}"
    ));
    assert!(r["preset"].is_object() && r["profile"].is_object());
}

/// A bad profile is refused naming its field (or the file), never a panic;
/// a profile under the paper's assumptions is refused in words.
#[test]
fn bad_profiles_are_refused_in_words() {
    let err = |args: &[&str]| {
        let out = plan3d(args);
        assert!(!out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = err(&["calibrate", "--check", TABLES, "--gpu", "a100-80gb"]);
    assert!(
        e.contains("profile field gemm[") && e.contains("above the a100-80gb's BF16 peak"),
        "{e}"
    );
    let e = err(&[
        "evaluate",
        "--model",
        "gpt-3",
        "--profile",
        "/nonexistent/p.json",
    ]);
    assert!(
        e.contains("--profile /nonexistent/p.json: cannot read it"),
        "{e}"
    );
    let bad = std::env::temp_dir().join(format!("plan3d-bad-{}.json", std::process::id()));
    std::fs::write(
        &bad,
        r#"{"plan3d_profile": 1, "device": {"sms": 132}, "gemm": [{"m": 1}]}"#,
    )
    .unwrap();
    let e = err(&[
        "evaluate",
        "--model",
        "gpt-3",
        "--profile",
        bad.to_str().unwrap(),
    ]);
    assert!(
        e.contains("not a calibration profile") && e.contains("missing field"),
        "{e}"
    );
    let e = err(&[
        "evaluate",
        "--model",
        "gpt-3",
        "--assumptions",
        "paper",
        "--profile",
        TABLES,
    ]);
    assert!(
        e.contains("calibration profile sets practice's kernel curves"),
        "{e}"
    );
    let e = err(&["calibrate"]);
    assert!(e.contains("--run") && e.contains("--check"), "{e}");
}

/// `--script` prints the shipped script; `--run --cpu --quick` runs it
/// here with PyTorch on the CPU (tiny shapes) and checks what it wrote as
/// a profile. CI installs PyTorch (Debian's python3-torch) and must run
/// it; elsewhere it runs where a Python with PyTorch is found.
#[test]
fn the_script_runs_on_the_cpu_and_writes_a_profile() {
    let out = plan3d(&["calibrate", "--script"]);
    let script = String::from_utf8_lossy(&out.stdout);
    assert!(script.contains("def measure_gemms") && script.contains("plan3d_profile"));
    let python = std::env::var("PLAN3D_TORCH_PYTHON").unwrap_or_else(|_| "/usr/bin/python3".into());
    let has_torch = std::process::Command::new(&python)
        .args(["-c", "import torch"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_torch {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the measuring script: no PyTorch in {python} (cargo xtask test installs python3-torch)"
        );
        eprintln!("skipped: no PyTorch in {python} (set PLAN3D_TORCH_PYTHON)");
        return;
    }
    let path = std::env::temp_dir().join(format!("plan3d-cpu-{}.json", std::process::id()));
    let path = path.to_str().unwrap();
    let v = json(&[
        "calibrate",
        "--run",
        "--cpu",
        "--quick",
        "--python",
        &python,
        "--out",
        path,
        "--gpu",
        "a100-80gb",
    ]);
    assert!(v["device"].as_str().unwrap().starts_with("cpu"), "{v}");
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(p["plan3d_profile"], 1);
    assert_eq!(p["gemm"].as_array().unwrap().len(), 48);
    assert!(!p["attention"].as_array().unwrap().is_empty());
}

/// The script's CUDA path, run on one H100 (2026-11-26, `--quick`, 7 s):
/// the profile checks, and what it sets is the preset within what the
/// preset's own fit left (BF16 GEMMs 8 % above: the quick grid's largest
/// GEMMs are its best; attention within 3 %); the text names each
/// quantity beside the preset's and says that no collective was timed.
#[test]
fn a_real_h100_profile_is_near_the_preset() {
    const QUICK: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../calibration/h100-2026-11-26/profile_quick.json"
    );
    let v = json(&["calibrate", "--check", QUICK, "--gpu", "h100-sxm"]);
    let ratio = |k: &str| v[k][0].as_f64().unwrap() / v[k][1].as_f64().unwrap();
    assert!((1.0..1.12).contains(&ratio("ceiling_bf16")), "{v}");
    for k in ["attention_forward", "attention_backward"] {
        assert!((ratio(k) - 1.0).abs() < 0.05, "{k}: {v}");
    }
    assert!((1.0..1.25).contains(&ratio("memory")), "{v}");
    let out = plan3d(&["calibrate", "--check", QUICK, "--gpu", "h100-sxm"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("BF16 GEMMs' ceiling, of the BF16 peak       77.7%      72.0%    1.08"),
        "{text}"
    );
    assert!(text.contains("no collective was timed"), "{text}");
}
