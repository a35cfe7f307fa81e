//! `plan3d evaluate`, `zero` and `estimate`.

use super::*;

#[test]
fn evaluate_table_6_1_3d_improved() {
    let v = json_words("evaluate --model x160 --method improved --data 483 --pipe 5 --tensor 16 --batch 2415 --micro-batch 1 --micro-batches 5");
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
    let v = json_words("evaluate --model x160 --data 483 --tensor 16 --micro-batch 5 --offload");
    assert_eq!(f(&v, "days").round(), 32.0);
    assert_eq!(v["offload"], true);
    assert_eq!(v["fits"], true);
    // Over Ethernet the same plan is never faster.
    let eth = json_words(
        "evaluate --model x160 --data 483 --tensor 16 --micro-batch 5 --offload --network ethernet",
    );
    assert!(f(&eth, "days") >= f(&v, "days"));
}

#[test]
fn zero_and_estimate_fields() {
    let z = json_words("zero --params 7.5e9 --dp 64 --stage 3");
    assert_eq!(f(&z, "params_bytes"), 15e9 / 64.0);
    assert_eq!(f(&z, "grads_bytes"), 15e9 / 64.0);
    assert_eq!(f(&z, "optimizer_bytes"), 90e9 / 64.0);
    assert_eq!(f(&z, "total_bytes"), 1.875e9);
    assert_eq!(f(&z, "comm_volume_elements"), 22.5e9);
    let z1 = json_words("zero --params 7.5e9 --dp 64 --stage 1 --k 16");
    assert_eq!(f(&z1, "optimizer_bytes"), 16.0 * 7.5e9 / 64.0);
    let e = json_words("estimate --params 175e9 --tokens 300e9 --gpus 1024 --flops-per-gpu 140e12");
    assert_eq!(f(&e, "days").round(), 34.0);
    let e6 = json_words("estimate --params 175e9 --tokens 300e9 --gpus 1024 --flops-per-gpu 140e12 --flops-factor 6");
    assert!((f(&e6, "days") / f(&e, "days") - 0.75).abs() < 1e-12);
}
