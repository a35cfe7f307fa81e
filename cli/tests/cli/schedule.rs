//! `plan3d schedule`.

use super::*;

#[test]
fn schedule_json_ascii_svg() {
    let v = json_words("schedule --kind 1f1b --devices 4 --layers 16 --micro-batches 8");
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
    let m = json_words("schedule --kind modular --devices 5 --micro-batches 5 --model x160 --tensor 16 --data 483 --partition");
    assert_eq!(m["unit"], "s");
    assert_eq!(f(&m, "layers"), 160.0);
    assert!(f(&m, "makespan") > 5.0 && f(&m, "makespan") < 7.0);
    // The simulated peak equals the evaluator's total (Table 6.2: 4.72 GiB).
    let peak = m["memory_peak_bytes"][0].as_f64().unwrap() / GIB;
    assert_eq!((peak * 100.0).round(), 472.0);
    let ascii = String::from_utf8(
        plan3d_words("schedule --kind lga --layers 4 --data 2 --reduce 1").stdout,
    )
    .unwrap();
    assert!(
        ascii.starts_with("  0    |abcdabcdabcdabcdAABBCCDD"),
        "{ascii}"
    );
    assert!(ascii.contains("bubble 0.0000"));
    let svg = String::from_utf8(
        plan3d_words("schedule --kind modular --devices 4 --layers 16 --svg").stdout,
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

/// ZB-H1 by its issue's name (`--schedule`): 4 stages of 4 layers, 8
/// micro-batches, forward 1, input gradient 1, weight gradient 1 per layer:
/// makespan (8·3 + 3·1)·4, a third of 1F1B's bubble, and 1F1B's peak
/// micro-batches in flight; three events per layer-stage and micro-batch.
#[test]
fn zero_bubble_schedule() {
    let v = json_words("schedule --schedule zb-h1 --devices 4 --layers 16 --micro-batches 8");
    assert_eq!(v["kind"], "zb-h1");
    assert_eq!(f(&v, "makespan"), (8.0 * 3.0 + 3.0) * 4.0);
    assert_eq!(f(&v, "bubble_fraction"), 3.0 / 8.0 / 3.0);
    assert_eq!(v["in_flight"][0], 4);
    assert_eq!(v["events"].as_array().unwrap().len(), 3 * 4 * 8);
    assert!(v["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["kind"] == "weight-gradient"));
    // In evaluate and plan, `--schedule` names the pipeline schedule.
    let e = json_words(
        "evaluate --model gpt-3 --assumptions practice --gpu h100-sxm --node-size 8 --data 2 --pipe 8 --tensor 8 --micro-batch 1 --global-batch 32 --schedule zb-h1",
    );
    assert_eq!(e["pipeline_schedule"], "zb-h1");
    let one = json_words(
        "evaluate --model gpt-3 --assumptions practice --gpu h100-sxm --node-size 8 --data 2 --pipe 8 --tensor 8 --micro-batch 1 --global-batch 32",
    );
    let (b1, b2) = (f(&one["step"], "bubble"), f(&e["step"], "bubble"));
    assert!((b2 * 3.0 - b1).abs() < 1e-9 * b1, "{b1} {b2}");
}

/// A fixed expert degree on a dense model is an error in words, in a plan
/// as in an evaluation (not "no plan").
#[test]
fn expert_parallelism_on_a_dense_model_says_why() {
    for cmd in [
        "plan --model llama-3.1-8b --assumptions practice --gpu h100-sxm --gpus 64 --expert-parallel 4",
        "evaluate --model llama-3.1-8b --assumptions practice --gpu h100-sxm --data 8 --expert-parallel 4",
    ] {
        let out = plan3d_words(cmd);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("needs a mixture of experts"), "{cmd}: {err}");
    }
}

/// ZB-V's shapes are refused in its own words: 2p stages of whole layers,
/// at least 2p − 1 micro-batches.
#[test]
fn zb_v_shapes_are_refused_in_words() {
    assert_errors(&[
        (
            &[
                "schedule",
                "--kind",
                "zb-v",
                "--devices",
                "4",
                "--layers",
                "12",
                "--micro-batches",
                "8",
            ],
            "ZB-V's stages (2 × devices, in a V)",
        ),
        (
            &[
                "schedule",
                "--kind",
                "zb-v",
                "--devices",
                "4",
                "--layers",
                "16",
                "--micro-batches",
                "6",
            ],
            "ZB-V needs at least 2p − 1 micro-batches",
        ),
    ]);
    let v = json_words("schedule --kind zb-v --devices 4 --layers 16 --micro-batches 8");
    // (p − 1)·B/2 of idle per device over m(F + B + W), unit durations.
    assert!((f(&v, "bubble_fraction") - 3.0 / 48.0).abs() < 1e-12, "{v}");
}
