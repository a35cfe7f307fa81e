//! Calibration profiles (`cost::profile`): a profile of the tables the
//! preset was fitted on gives the preset back; a slowed kernel class
//! slows the step by as much; a bad profile is refused naming its field.

use plan3d_core::cost::assumptions::Assumptions;
use plan3d_core::cost::kernels;
use plan3d_core::cost::profile::{
    AttentionRow, BandwidthRow, CollectiveRow, Device, GemmRow, Profile, PROFILE_VERSION,
};
use plan3d_core::{hardware, Hardware};

fn json(path: &str) -> serde_json::Value {
    let full = format!("{}/../calibration/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&full).unwrap()).unwrap()
}

fn f(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// The H100's published tables as a profile: every GEMM of
/// `calibration/h100-2026-11-25/` (forward, data and weight gradients;
/// FP8), its flash attention, the measuring loop's 20 µs floor.
pub(crate) fn h100_profile() -> Profile {
    let k = json("h100-2026-11-25/kernels.json");
    let s = json("h100-2026-11-25/small_gemms.json");
    let mut gemm = Vec::new();
    let row = |m, n, k, fp8, seconds| GemmRow {
        m,
        n,
        k,
        fp8,
        seconds,
    };
    for r in k["gemm"].as_array().unwrap() {
        let (t, kk, n) = (f(r, "tokens"), f(r, "K"), f(r, "N"));
        gemm.push(row(t, n, kk, false, f(r, "fwd_s")));
        gemm.push(row(t, kk, n, false, f(r, "dgrad_s")));
        gemm.push(row(kk, n, t, false, f(r, "wgrad_s")));
    }
    for r in k["fp8"].as_array().unwrap() {
        gemm.push(row(
            f(r, "tokens"),
            f(r, "N"),
            f(r, "K"),
            true,
            f(r, "fwd_s"),
        ));
    }
    for r in s["gemm"].as_array().unwrap() {
        let (m, n, kk) = (f(r, "M"), f(r, "N"), f(r, "K"));
        gemm.push(row(m, n, kk, false, f(r, "bf16_s")));
        gemm.push(row(m, n, kk, true, f(r, "fp8_s")));
    }
    let attention = k["attention"]
        .as_array()
        .unwrap()
        .iter()
        .chain(s["attention"].as_array().unwrap())
        .map(|r| AttentionRow {
            batch: f(r, "batch"),
            heads: f(r, "heads"),
            seq: f(r, "seq"),
            head_size: f(r, "head_dim"),
            forward_seconds: f(r, "fwd_s"),
            backward_seconds: f(r, "fwd_bwd_s") - f(r, "fwd_s"),
        })
        .collect();
    let bandwidth = k["bandwidth"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["op"] == "copy")
        .map(|r| BandwidthRow {
            bytes: f(r, "gbps") * 1e9 * f(r, "s"),
            seconds: f(r, "s"),
        })
        .collect();
    Profile {
        plan3d_profile: PROFILE_VERSION,
        bandwidth,
        device: Device {
            name: "NVIDIA H100 80GB HBM3".into(),
            sms: 132,
            ..Device::default()
        },
        timer_floor_seconds: 20e-6,
        gemm,
        attention,
        ..Profile::default()
    }
}

pub(crate) fn h100() -> Hardware {
    Hardware {
        gpu: hardware::H100_SXM,
        node_size: Some(8),
        ..Hardware::default()
    }
}

/// Llama 3.1 8B at 8 192 tokens, FSDP over 8 H100s, micro-batch 1:
/// its kernel classes' seconds under `a`.
fn classes(a: &Assumptions) -> Vec<(String, f64)> {
    use plan3d_core::cost::{evaluate_with, Method};
    let m = plan3d_core::model::ModelShape {
        seq_len: 8192,
        ..plan3d_core::model::LLAMA_3_1_8B
    };
    let cfg = plan3d_core::Config {
        method: Method::Partitioned,
        data: 8,
        micro_batch: 1,
        micro_batches: 1,
        activation: plan3d_core::ActivationModel::Selective,
        ..plan3d_core::Config::default()
    };
    let e = evaluate_with(&m, &h100(), &cfg, a).unwrap();
    e.step_parts
        .unwrap()
        .classes()
        .iter()
        .map(|k| (k.class.to_string(), k.seconds))
        .collect()
}

fn class(c: &[(String, f64)], name: &str) -> f64 {
    c.iter().find(|(n, _)| n == name).unwrap().1
}

/// The tables the H100 preset was fitted on, as a profile, give the
/// preset's curves back exactly, and so the same step to the bit; the
/// profile round-trips through JSON.
#[test]
fn the_presets_own_tables_give_the_preset_back() {
    let p = h100_profile();
    p.check(&h100()).unwrap();
    let cal = p.fit(&h100(), kernels::curves(&hardware::H100_SXM));
    assert_eq!(cal.curves, kernels::HOPPER);
    assert_eq!((cal.bus_efficiency, cal.network_efficiency), (None, None));
    let a = Assumptions::PRACTICE;
    assert_eq!(classes(&cal.apply(a)), classes(&a));
    let text = serde_json::to_string(&p).unwrap();
    let back: Profile = serde_json::from_str(&text).unwrap();
    assert_eq!(back, p);
    // The shipped file of those tables (`calibration/tables_profile.py`)
    // fits to the preset too.
    let shipped: Profile = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/../calibration/h100-2026-11-25/profile.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(shipped.gemm.len(), p.gemm.len());
    assert_eq!(
        shipped.fit(&h100(), kernels::HOPPER).curves,
        kernels::HOPPER
    );
}

/// A profile whose BF16 GEMMs all take twice as long halves the BF16
/// ceiling and doubles the step's linear GEMMs (they are compute-bound
/// here: within 1 %), leaving attention alone; one whose attention
/// forward takes twice as long doubles that class exactly.
#[test]
fn a_class_twice_as_slow_doubles_its_time() {
    let a = Assumptions::PRACTICE;
    let base = classes(&a);
    let mut slow = h100_profile();
    for r in slow.gemm.iter_mut().filter(|r| !r.fp8) {
        r.seconds *= 2.0;
    }
    let cal = slow.fit(&h100(), kernels::HOPPER);
    assert_eq!(cal.curves.ceiling_bf16, 0.36);
    assert_eq!(cal.curves.ceiling_fp8, kernels::HOPPER.ceiling_fp8);
    let c = classes(&cal.apply(a));
    let ratio = class(&c, "linear GEMMs") / class(&base, "linear GEMMs");
    assert!((ratio - 2.0).abs() < 0.02, "{ratio}");
    assert_eq!(
        class(&c, "attention forward"),
        class(&base, "attention forward")
    );
    let mut slow = h100_profile();
    for r in &mut slow.attention {
        r.forward_seconds *= 2.0;
    }
    let c = classes(&slow.fit(&h100(), kernels::HOPPER).apply(a));
    let ratio = class(&c, "attention forward") / class(&base, "attention forward");
    assert!((ratio - 2.0).abs() < 1e-9, "{ratio}");
    assert_eq!(class(&c, "linear GEMMs"), class(&base, "linear GEMMs"));
}

/// Collectives set the bus efficiencies from the largest messages:
/// nccl-tests' 8 GiB all-reduce inside a DGX H100 at 368 GB/s of bus
/// bandwidth is 0.82 of NVLink's 450 GB/s a direction; four nodes' 331
/// GB/s, 0.83 of eight 400 Gb/s cards'.
#[test]
fn collectives_set_the_bus_efficiencies() {
    let mut p = h100_profile();
    let gib8 = 8.0 * 1024f64.powi(3);
    let row = |ranks: f64, across, busbw: f64| CollectiveRow {
        all_reduce: true,
        ranks,
        across_nodes: across,
        bytes: gib8,
        seconds: 2.0 * (ranks - 1.0) / ranks * gib8 / busbw,
    };
    p.collectives = vec![row(8.0, false, 368e9), row(32.0, true, 331e9)];
    let hw = Hardware {
        network: plan3d_core::Network::InfiniBand400,
        ..h100()
    };
    p.check(&hw).unwrap();
    let cal = p.fit(&hw, kernels::HOPPER);
    assert_eq!(cal.bus_efficiency, Some(0.82));
    assert_eq!(cal.network_efficiency, Some(0.83));
}

/// A bad profile is refused naming its field, never a panic.
#[test]
fn bad_profiles_name_their_field() {
    let hw = h100();
    let refused = |p: &Profile| p.check(&hw).unwrap_err().field;
    let good = h100_profile();
    let mut p = good.clone();
    p.plan3d_profile = 2;
    assert_eq!(refused(&p), "plan3d_profile");
    let mut p = good.clone();
    p.gemm[3].seconds = -1.0;
    assert_eq!(refused(&p), "gemm[3].seconds");
    let mut p = good.clone();
    p.gemm[5].seconds /= 100.0;
    let issue = p.check(&hw).unwrap_err();
    assert_eq!(issue.field, "gemm[5].seconds");
    assert!(
        issue.reason.contains("above the h100-sxm's BF16 peak"),
        "{issue}"
    );
    let mut p = good.clone();
    p.gemm[0].m = 0.0;
    assert_eq!(refused(&p), "gemm[0].m");
    let mut p = good.clone();
    p.gemm[0].k = f64::NAN;
    assert_eq!(refused(&p), "gemm[0].k");
    let mut p = good.clone();
    p.gemm.truncate(3);
    assert_eq!(refused(&p), "gemm");
    let mut p = good.clone();
    p.attention[1].backward_seconds /= 10.0;
    assert_eq!(refused(&p), "attention[1].backward_seconds");
    let mut p = good.clone();
    p.device.sms = 0;
    assert_eq!(refused(&p), "device.sms");
    let mut p = good.clone();
    p.bandwidth[0].seconds /= 10.0;
    assert_eq!(refused(&p), "bandwidth[0].seconds");
    let mut p = good.clone();
    p.collectives = vec![CollectiveRow {
        all_reduce: true,
        ranks: 1.0,
        across_nodes: false,
        bytes: 1e9,
        seconds: 1.0,
    }];
    assert_eq!(refused(&p), "collectives[0].ranks");
    // FP8 rows on a GPU without FP8 (the H100's times slowed tenfold, all
    // under the A100's BF16 peak).
    let a100 = Hardware {
        gpu: hardware::A100_80GB,
        ..h100()
    };
    let mut p = good.clone();
    for r in &mut p.gemm {
        r.seconds *= 10.0;
    }
    let fp8_row = p.gemm.iter().position(|r| r.fp8).unwrap();
    assert_eq!(
        p.check(&a100).unwrap_err().field,
        format!("gemm[{fp8_row}].fp8")
    );
}

/// The JSON door (the JavaScript API's and Python's) takes the profile as
/// the request's `profile` field and names it when it is bad.
#[test]
fn the_json_door_takes_a_profile() {
    let p = serde_json::to_value(h100_profile()).unwrap();
    let req = serde_json::json!({
        "model": "llama-3.1-8b", "gpu": "h100-sxm", "node_size": 8, "data": 8,
        "method": "partitioned", "micro_batch": 1, "micro_batches": 1,
        "recompute": "selective", "profile": p,
    });
    let out: serde_json::Value =
        serde_json::from_str(&plan3d_core::api::json::call("evaluate", &req.to_string()).unwrap())
            .unwrap();
    assert_eq!(
        out["profile"]["ceiling_bf16"],
        serde_json::json!([0.72, 0.72])
    );
    assert_eq!(out["preset"]["step_seconds"], out["step_seconds"]);
    let mut bad = req.clone();
    bad["profile"]["gemm"][2]["seconds"] = serde_json::json!(0.0);
    let e = plan3d_core::api::json::call("evaluate", &bad.to_string()).unwrap_err();
    assert!(e.0.contains("profile field gemm[2].seconds"), "{e}");
    assert_eq!(plan3d_core::api::json::field_of(&e.0), Some("profile"));
}

/// The page: a link made with a profile (`prof=custom`) says, beside the
/// GPU, that this browser holds none and uses the preset's curves; with
/// the profile held, its curves set the plan (a profile of BF16 GEMMs
/// twice as slow slows the plan's step) and the link keeps saying so.
#[test]
fn the_page_uses_a_held_profile_or_says_it_has_none() {
    use plan3d_core::planner;
    use plan3d_core::state::Inputs;
    let q = "assume=practice&model=llama-3.1-8b&gpu=h100-sxm&node=8&gpus=8&prof=custom";
    let (mut i, notices) = Inputs::from_query(q);
    assert!(notices.is_empty(), "{notices:?}");
    assert!(i.custom_profile && i.calibration.is_none());
    let o = planner::outputs(&i).unwrap();
    let n = planner::corrections(&i, &o);
    let note = n
        .iter()
        .find(|n| n.key == "prof")
        .expect("a notice for prof");
    assert!(note.reason.contains("does not hold"), "{}", note.reason);
    assert_eq!(note.used, "the h100-sxm preset's kernel curves");
    let step = |i: &Inputs| {
        let o = planner::outputs(i).unwrap();
        planner::practice_optimum(i, &o)
            .unwrap()
            .unwrap()
            .best
            .evaluation
            .step
            .0
    };
    let preset = step(&i);
    let mut slow = h100_profile();
    for r in slow.gemm.iter_mut().filter(|r| !r.fp8) {
        r.seconds *= 2.0;
    }
    let text = serde_json::to_string(&slow).unwrap();
    let (cal, device) = plan3d_core::cost::profile::calibrate_json(&text, &i.hardware()).unwrap();
    assert!(device.contains("H100"));
    i.calibration = Some(cal.fitted(&i.knobs()));
    assert_eq!(
        plan3d_core::cost::profile::Calibration::from_fitted(&i.gpu, cal.fitted(&i.knobs())).curves,
        cal.curves
    );
    assert_eq!(i.knobs().curves.unwrap().ceiling_bf16, 0.36);
    assert!(step(&i) > 1.3 * preset, "{} vs {preset}", step(&i));
    let o = planner::outputs(&i).unwrap();
    assert!(planner::corrections(&i, &o).iter().all(|n| n.key != "prof"));
    assert!(i.to_query().contains("prof=custom"));
    // Not a profile: refused in words.
    let e = plan3d_core::cost::profile::calibrate_json("{\"gpu\": 1}", &i.hardware()).unwrap_err();
    assert!(e.starts_with("not a calibration profile"), "{e}");
}
