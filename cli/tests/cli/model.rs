//! `plan3d model` and `plan3d hardware`.

use super::*;

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
    let custom = json_words("model --seq-len 512 --heads 16 --head-size 64 --layers 24");
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
fn model_help_names_every_preset() {
    let out = plan3d(&["model", "--help"]);
    assert!(out.status.success());
    // clap folds the doc comment's lines; compare without whitespace.
    let help: String = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect();
    for (name, _) in plan3d_core::model::PRESETS {
        assert!(help.contains(name), "`plan3d model --help` omits {name}");
        // Every preset the help names is one `plan3d model` answers.
        assert!(plan3d(&["model", name]).status.success(), "{name}");
    }
}
