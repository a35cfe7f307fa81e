//! The practice pipeline against hand-derived values: the interleaved,
//! GPipe, ZB-H1, ZB-V and DualPipe bubbles and micro-batches in flight,
//! the layers of each stage with the head counted, and the micro-batches a
//! schedule needs, in words.

use super::practice::{close, h100, GPT3};
use plan3d_core::cost::assumptions::{Assumptions, Zero};
use plan3d_core::cost::memory::stage_memory;
use plan3d_core::cost::step::{bubble_fraction, in_flight, stage_layers};
use plan3d_core::cost::{evaluate_with, Method, PipelineSchedule};
use plan3d_core::model::{self, ModelShape};
use plan3d_core::{ActivationModel, Config};

/// The interleaved bubble (p−1)/(v·m) (PTD-P sec. 2.2.2) and its memory:
/// the first device holds p·(1 + (p−1)/(p·v)) micro-batches of its stage
/// (Korthikanti sec. 4.2.3), 1F1B p − i on device i.
#[test]
fn interleaved_bubble_and_in_flight() {
    let c = Config {
        pipe: 8,
        virtual_stages: 12,
        micro_batches: 64,
        ..Config::default()
    };
    assert!(close(bubble_fraction(&c, 96), 7.0 / (12.0 * 64.0), 1e-12));
    assert!(close(
        in_flight(&c, 0),
        8.0 * (1.0 + 7.0 / (8.0 * 12.0)),
        1e-12
    ));
    let plain = Config {
        virtual_stages: 1,
        ..c
    };
    assert!(close(bubble_fraction(&plain, 96), 7.0 / 64.0, 1e-12));
    for i in 0..8 {
        assert_eq!(in_flight(&plain, i), f64::from(8 - i));
    }
    // Never more than the batch's micro-batches.
    assert_eq!(
        in_flight(
            &Config {
                micro_batches: 3,
                ..plain
            },
            0
        ),
        3.0
    );
    // 126 layers over 16 stages (Llama 3.1 405B): 8 on the first 14, 7 on
    // the last two, 126 in all.
    let per: Vec<u32> = (0..16).map(|i| stage_layers(126, 16, 1, 0, i)).collect();
    assert_eq!(per.iter().sum::<u32>(), 126);
    assert_eq!((per[0], per[15]), (8, 7));
}

/// Interleaving takes any number of micro-batches m ≥ p, in groups of N
/// (Megatron-Core's `microbatch_group_size_per_vp_stage`, the Llama 3
/// paper's N): the first device holds 2·(p − 1) + (v − 1)·N + 1 chunks of
/// micro-batches at its peak, by hand for Llama 3.1 405B's PP 16 × VP 8;
/// the bubble stays (p−1)/(v·m).
#[test]
fn interleaved_groups_take_any_micro_batch_count() {
    use plan3d_core::cost::step::microbatch_group;
    let c = |m: u32, n: u32| Config {
        pipe: 16,
        virtual_stages: 8,
        micro_batches: m,
        microbatch_group: n,
        ..Config::default()
    };
    // m = 32: groups of p, Megatron's default: (30 + 7·16 + 1)/8.
    assert_eq!(microbatch_group(&c(32, 0)), 16);
    assert!(close(in_flight(&c(32, 0), 0), 143.0 / 8.0, 1e-12));
    // m = 40: 16 to 19 leave a last group under 16; 20 is the smallest.
    assert_eq!(microbatch_group(&c(40, 0)), 20);
    assert!(close(in_flight(&c(40, 0), 0), 171.0 / 8.0, 1e-12));
    assert!(close(in_flight(&c(40, 0), 15), 141.0 / 8.0, 1e-12));
    // One group of all 40 (breadth-first): 40 in flight at most.
    assert!(close(in_flight(&c(40, 40), 0), 311.0 / 8.0, 1e-12));
    assert!(close(bubble_fraction(&c(40, 0), 126), 15.0 / 320.0, 1e-12));
    assert_eq!(
        microbatch_group(&Config {
            virtual_stages: 1,
            ..c(40, 0)
        }),
        0
    );
}

/// The group a report gives, and the refusals of groups Megatron-Core
/// refuses, naming the field.
#[cfg(feature = "serde")]
#[test]
fn interleaved_groups_in_requests() {
    let request = |group: u32| {
        format!(
            r#"{{ "model": "llama-3.1-405b", "gpu": "h100-sxm", "node_size": 8, "seq_len": 8192,
                "tensor": 8, "pipe": 16, "data": 64, "micro_batch": 1, "micro_batches": 40,
                "virtual_stages": 8, "embedding_layers": 1, "head_layers": 1,
                "sequence_parallel": true, "zero": "3-step", "microbatch_group": {group} }}"#
        )
    };
    let v: serde_json::Value =
        serde_json::from_str(&plan3d_core::api::json::call("evaluate", &request(40)).unwrap())
            .unwrap();
    assert_eq!(v["microbatch_group"], 40);
    // Under p; a last group of 6; more than m (24 leaves 16: taken).
    for bad in [12, 17, 41] {
        let e = plan3d_core::api::json::call("evaluate", &request(bad)).unwrap_err();
        assert_eq!(
            plan3d_core::api::json::field_of(&e.to_string()),
            Some("microbatch_group"),
            "{bad}: {e}"
        );
    }
}

/// Megatron-Core's accounting of the embedding and the loss as layers
/// (`--account-for-embedding-in-pipeline-split
/// --account-for-loss-in-pipeline-split`): Llama 3.1 405B's 126 layers,
/// embedding and loss are 128 units over PP 16 × VP 8 = 128 chunks, one
/// each, the first chunk holding the embedding alone and the last the
/// loss alone: devices 0 and 15 hold 7 layers, the others 8. Without the
/// accounting VP 8 is refused (126 layers leave 7 per device).
#[test]
fn embedding_and_loss_count_as_layers() {
    use plan3d_core::cost::step::{device_layers, split_layers};
    let chunks: Vec<u32> = (0..128).map(|j| split_layers(126, 128, 1, 1, j)).collect();
    assert_eq!(
        (chunks[0], chunks[1], chunks[126], chunks[127]),
        (0, 1, 1, 0)
    );
    assert_eq!(chunks.iter().sum::<u32>(), 126);
    let cfg = Config {
        pipe: 16,
        virtual_stages: 8,
        micro_batches: 64,
        data: 8,
        tensor: 8,
        embedding_layers: 1,
        head_layers: 1,
        ..Config::default()
    };
    let per: Vec<u32> = (0..16).map(|i| device_layers(126, &cfg, i)).collect();
    assert_eq!(per.iter().sum::<u32>(), 126);
    assert_eq!((per[0], per[1], per[14], per[15]), (7, 8, 8, 7));
    let m = plan3d_core::model::ModelShape {
        seq_len: 8192,
        ..plan3d_core::model::LLAMA_3_1_405B
    };
    let hw = plan3d_core::hardware::Hardware {
        gpu: plan3d_core::hardware::H100_SXM,
        node_size: Some(8),
        ..plan3d_core::hardware::Hardware::default()
    };
    let a = plan3d_core::cost::assumptions::Assumptions::PRACTICE;
    assert!(plan3d_core::cost::evaluate_with(&m, &hw, &cfg, &a).is_ok());
    let plain = Config {
        embedding_layers: 0,
        head_layers: 0,
        ..cfg
    };
    assert!(matches!(
        plan3d_core::cost::evaluate_with(&m, &hw, &plain, &a),
        Err(plan3d_core::Error::OutOfRange { .. })
    ));
    // Where chunks are not more than layers, the embedding counts for
    // less rather than empty a chunk (8 layers over 4 chunks with the
    // embedding and the head one layer each: 2 each, the ends lighter by
    // a layer's work each); every chunk keeps a layer.
    assert_eq!(
        (0..4)
            .map(|j| split_layers(8, 4, 1, 1, j))
            .collect::<Vec<_>>(),
        [2, 2, 2, 2]
    );
    for (layers, chunks, e, h) in [(8, 4, 1, 1), (61, 16, 1, 1), (32, 8, 4, 0), (5, 5, 3, 3)] {
        let all: Vec<u32> = (0..chunks)
            .map(|j| split_layers(layers, chunks, e, h, j))
            .collect();
        assert_eq!(all.iter().sum::<u32>(), layers, "{layers} {chunks} {e} {h}");
        assert!(all.iter().all(|&l| l >= 1), "{all:?}");
    }
}

/// Virtual stages that outnumber the layers count the embedding and the
/// loss where the user left them to plan3d (`step::pipeline_ends`), as
/// NVIDIA's recipes must to run Llama 3.1 405B at PP 16 × VP 8: in
/// `evaluate`, in `plan` with the virtual stages fixed, and said in the
/// settings; given as none, or beyond what the ends make room for
/// (120 layers + 2 < 128 chunks), they are refused at the field.
#[cfg(feature = "serde")]
#[test]
fn virtual_stages_count_the_ends_where_they_need_them() {
    use plan3d_core::api::{self, json, request::EvaluateRequest};
    let text = |layers: u32, vp: u32, extra: &str| {
        format!(
            r#"{{ "heads": 128, "head_size": 128, "layers": {layers}, "ffn": 53248, "kv_heads": 8,
                "gated": true, "vocab": 128256, "seq_len": 8192, "gpu": "h100-sxm", "node_size": 8,
                "network": "infiniband-400", "pipe": 16, "tensor": 8, "virtual_stages": {vp},
                "global_batch": 2048, "sequence_parallel": true, "recompute": "full" {extra} }}"#
        )
    };
    let eval = |layers: u32, vp: u32, extra: &str| {
        let r = text(
            layers,
            vp,
            &format!(r#", "data": 64, "micro_batch": 1{extra}"#),
        );
        json::call("evaluate", &r)
            .map(|o| serde_json::from_str::<serde_json::Value>(&o).unwrap())
            .map_err(|e| (e.to_string(), r))
    };
    let v = eval(126, 8, "").unwrap();
    assert_eq!(
        (v["embedding_layers"].as_u64(), v["head_layers"].as_u64()),
        (Some(1), Some(1))
    );
    // The same as the ends given.
    let given = eval(126, 8, r#", "embedding_layers": 1, "head_layers": 1"#).unwrap();
    assert_eq!(v["step_seconds"], given["step_seconds"]);
    assert_eq!(v["memory"]["peak_bytes"], given["memory"]["peak_bytes"]);
    // Seven virtual stages fit the layers alone: no embedding counted.
    assert_eq!(eval(126, 7, "").unwrap()["embedding_layers"], 0);
    for (layers, extra) in [(126, r#", "embedding_layers": 0"#), (120, "")] {
        let (e, _) = eval(layers, 8, extra).unwrap_err();
        assert!(e.contains("virtual stages"), "{e}");
    }
    // Said in the settings.
    let (_, r) = eval(120, 8, "").unwrap_err();
    let r = r.replace(r#""layers": 120"#, r#""layers": 126"#);
    let answer = api::evaluate_answer(&json::request::<EvaluateRequest>(&r).unwrap()).unwrap();
    assert!(
        answer.contains("the embedding and the loss as 1 and 1 layers of the split"),
        "{answer}"
    );
    // The search with VP 8 fixed runs the same accounting.
    let p: serde_json::Value = serde_json::from_str(
        &json::call(
            "plan",
            &text(126, 8, r#", "gpus": 8192, "method": "baseline""#),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (p["virtual_stages"].as_u64(), p["embedding_layers"].as_u64()),
        (Some(8), Some(1))
    );
    // Virtual stages given with the pipeline searched interleave a
    // pipeline (a plan without one had been taken, its v unused).
    let free = r#"{ "model": "llama-3.1-405b", "gpu": "h100-sxm", "node_size": 8, "gpus": 16384,
        "network": "infiniband-400", "virtual_stages": 2 }"#;
    let p: serde_json::Value = serde_json::from_str(&json::call("plan", free).unwrap()).unwrap();
    assert!(p["pipe"].as_u64().unwrap() > 1, "{}", p["pipe"]);
    let e = json::call(
        "plan",
        &free.replace("}", r#", "parallelism": "data+tensor" }"#),
    );
    assert!(e.unwrap_err().to_string().contains("need a pipeline"));
}

/// The pipeline split with the head counted in layers: layers + head cut
/// evenly, the last stage holding the head in place of that many layers,
/// every layer placed once, the last stage never emptied.
#[test]
fn the_head_counts_in_the_pipeline_split() {
    use plan3d_core::cost::step::{balanced_head, chunk_layers, device_layers};
    // DeepSeek-V3: 61 layers, 16 stages, the head worth one layer: 62
    // units, 14 of 4 (the last's: 3 layers + head) and two of 3.
    let per: Vec<u32> = (0..16).map(|i| stage_layers(61, 16, 1, 1, i)).collect();
    assert_eq!(per.iter().sum::<u32>(), 61);
    assert_eq!(
        (per[0], per[12], per[13], per[14], per[15]),
        (4, 4, 3, 3, 3)
    );
    // Over 32 stages: 62 units, the last 1 layer + head, none above 2.
    let per: Vec<u32> = (0..32).map(|i| stage_layers(61, 32, 1, 1, i)).collect();
    assert_eq!(per.iter().sum::<u32>(), 61);
    assert_eq!((per[0], per[31]), (2, 1));
    assert!(per.iter().all(|&l| l <= 2));
    // A head worth more than a stage's share leaves the last stage one
    // layer.
    assert_eq!(chunk_layers(8, 4, 9, 3), 1);
    assert_eq!((0..4).map(|j| chunk_layers(8, 4, 9, j)).sum::<u32>(), 8);
    for (layers, chunks, head) in [(61, 16, 1), (126, 16, 2), (32, 8, 4), (5, 5, 3), (7, 1, 3)] {
        let all: Vec<u32> = (0..chunks)
            .map(|j| chunk_layers(layers, chunks, head, j))
            .collect();
        assert_eq!(all.iter().sum::<u32>(), layers, "{layers} {chunks} {head}");
        assert!(all[chunks as usize - 1] >= 1);
        // Evenly: no two chunks' work (the last's with its head) apart by
        // more than a layer, unless the head alone outweighs a share.
        let work: Vec<u32> = all
            .iter()
            .enumerate()
            .map(|(j, &l)| l + if j + 1 == chunks as usize { head } else { 0 })
            .collect();
        let (lo, hi) = (work.iter().min().unwrap(), work.iter().max().unwrap());
        assert!(hi - lo <= 1 || all[chunks as usize - 1] == 1, "{work:?}");
    }
    // The head's worth: DeepSeek-V3's 129 K × 7 168 head with full
    // recomputation is one layer; Llama 3.1 8B's 128 K × 4 096 head, one
    // (3 × 1.05 against 4 × 0.57 Gflop a token); GPT-3's 51 K × 12 288
    // head, none.
    let cfg = |pipe, activation| Config {
        pipe,
        activation,
        ..Config::default()
    };
    let full = cfg(16, ActivationModel::Full);
    let work = plan3d_core::cost::assumptions::WorkCount::AllGemms;
    let shape = |name: &str| plan3d_core::model::preset(name).unwrap();
    assert_eq!(balanced_head(&shape("deepseek-v3"), &full, work), 1);
    assert_eq!(balanced_head(&shape("gpt-3"), &full, work), 0);
    assert_eq!(balanced_head(&shape("llama-3.1-8b"), &full, work), 1);
    assert_eq!(
        balanced_head(&shape("deepseek-v3"), &cfg(1, ActivationModel::Full), work),
        0
    );
    // Under ZB-V the head's chunk sits on device 0, with the first chunk:
    // the remainder's extra layers go elsewhere, and no device's work
    // (device 0's with the head) is more than a layer apart.
    let v = Config {
        pipe: 4,
        head_layers: 2,
        pipeline_schedule: plan3d_core::cost::PipelineSchedule::ZbV,
        ..Config::default()
    };
    let per: Vec<u32> = (0..4).map(|i| device_layers(32, &v, i)).collect();
    assert_eq!(per.iter().sum::<u32>(), 32);
    assert_eq!(per, [7, 9, 8, 8]);
    let work = [per[0] + 2, per[1], per[2], per[3]];
    assert!(
        work.iter().max().unwrap() - work.iter().min().unwrap() <= 1,
        "{work:?}"
    );
}

/// GPipe runs every forward before any backward: 1F1B's bubble (p−1)/m and
/// step time, but all m micro-batches' activations on every stage, where
/// 1F1B's first stage holds p.
#[test]
fn gpipe_holds_every_micro_batch() {
    let m = model::LLAMA_3_1_70B;
    let one = Config {
        data: 4,
        pipe: 4,
        tensor: 8,
        micro_batch: 1,
        micro_batches: 32,
        sequence_parallel: true,
        zero: Zero::One,
        activation: ActivationModel::Selective,
        ..Config::default()
    };
    let gpipe = Config {
        pipeline_schedule: PipelineSchedule::GPipe,
        ..one
    };
    let a = Assumptions::PRACTICE;
    let (e1, eg) = (
        evaluate_with(&m, &h100(), &one, &a).unwrap(),
        evaluate_with(&m, &h100(), &gpipe, &a).unwrap(),
    );
    assert_eq!(e1.step, eg.step);
    assert!(close(bubble_fraction(&gpipe, m.layers), 3.0 / 32.0, 1e-12));
    for stage in 0..4 {
        assert_eq!(in_flight(&gpipe, stage), 32.0);
        let (s1, sg) = (
            stage_memory(&m, &one, &a, stage),
            stage_memory(&m, &gpipe, &a, stage),
        );
        assert!(close(
            sg.activations.0,
            s1.activations.0 * 32.0 / f64::from(4 - stage),
            1e-12
        ));
        assert_eq!((sg.weights, sg.optimizer), (s1.weights, s1.optimizer));
    }
    // GPipe has no virtual stages, and the layered methods run the modular
    // pipeline.
    for bad in [
        Config {
            virtual_stages: 2,
            ..gpipe
        },
        Config {
            method: Method::Improved,
            ..gpipe
        },
    ] {
        let err = evaluate_with(&m, &h100(), &bad, &a)
            .unwrap_err()
            .to_string();
        assert!(err.contains("GPipe"), "{err}");
    }
}

/// ZB-H1 (Qi et al. 2024): the bubble (p−1)(F + B − W)/(m(F + B + W)) is
/// a third of 1F1B's without recomputation (F = B = W) and half of it with
/// full recomputation (B = 2F); every device holds p micro-batches; not
/// with virtual stages, nor under the paper's model.
#[test]
fn zb_h1_bubble_and_memory_by_hand() {
    let base = Config {
        pipe: 8,
        micro_batches: 16,
        activation: ActivationModel::None,
        ..Config::default()
    };
    let zb = Config {
        pipeline_schedule: PipelineSchedule::ZbH1,
        ..base
    };
    assert!(close(bubble_fraction(&base, 96), 7.0 / 16.0, 1e-12));
    assert!(close(bubble_fraction(&zb, 96), 7.0 / 16.0 / 3.0, 1e-12));
    let full = Config {
        activation: ActivationModel::Full,
        ..zb
    };
    assert!(close(bubble_fraction(&full, 96), 7.0 / 16.0 / 2.0, 1e-12));
    // In flight: 1F1B p − stage; ZB-H1 p on every stage.
    assert_eq!(in_flight(&base, 7), 1.0);
    assert_eq!(in_flight(&zb, 7), 8.0);
    assert_eq!(in_flight(&zb, 0), in_flight(&base, 0));
    // The step: the same work, a third of the bubble.
    let hw = h100();
    let a = Assumptions::PRACTICE;
    let cfg = |s| Config {
        data: 2,
        pipe: 8,
        tensor: 8,
        micro_batch: 1,
        micro_batches: 16,
        activation: ActivationModel::None,
        sequence_parallel: true,
        zero: Zero::One,
        pipeline_schedule: s,
        ..Config::default()
    };
    let one = evaluate_with(&GPT3, &hw, &cfg(PipelineSchedule::OneFOneB), &a).unwrap();
    let zb = evaluate_with(&GPT3, &hw, &cfg(PipelineSchedule::ZbH1), &a).unwrap();
    let (s1, s2) = (one.step_parts.unwrap(), zb.step_parts.unwrap());
    assert_eq!(s1.compute, s2.compute);
    assert!(close(s2.bubble, s1.bubble / 3.0, 1e-12));
    assert!(zb.step.0 < one.step.0);
    // Rejected: virtual stages, the layered methods, the paper's model.
    let v2 = Config {
        virtual_stages: 2,
        ..cfg(PipelineSchedule::ZbH1)
    };
    assert!(evaluate_with(&GPT3, &hw, &v2, &a).is_err());
    let layered = Config {
        method: Method::Improved,
        ..cfg(PipelineSchedule::ZbH1)
    };
    assert!(evaluate_with(&GPT3, &hw, &layered, &a).is_err());
    assert!(evaluate_with(
        &GPT3,
        &hw,
        &cfg(PipelineSchedule::ZbH1),
        &Assumptions::PAPER
    )
    .is_err());
}

/// GPT-3 over 8 stages of 8 tensor ranks, 2 data ranks, 16 micro-batches
/// of 1: the setting the zero-bubble schedules are checked on.
fn gpt3_pp8(s: PipelineSchedule, activation: ActivationModel) -> Config {
    Config {
        data: 2,
        pipe: 8,
        tensor: 8,
        micro_batch: 1,
        micro_batches: 16,
        activation,
        sequence_parallel: true,
        zero: Zero::One,
        pipeline_schedule: s,
        ..Config::default()
    }
}

/// ZB-V (Qi et al. 2024, sec. 6): half ZB-H1's bubble; device i holds
/// 2p − i half-stage micro-batches (p stage-sized on device 0, 1F1B's
/// peak); the embedding and the head both on device 0; twice 1F1B's
/// pipeline sends; refused with too few micro-batches or layers, with
/// virtual stages, and under the paper's model.
#[test]
fn zb_v_bubble_memory_and_placement_by_hand() {
    let cfg = gpt3_pp8;
    let zbv = cfg(PipelineSchedule::ZbV, ActivationModel::None);
    let zbh1 = cfg(PipelineSchedule::ZbH1, ActivationModel::None);
    // (p−1)/m · (F + B − W)/(2(F + B + W)): 7/16 · 1/6, and 7/16 · 1/4
    // with full recomputation (B = 2F).
    assert!(close(bubble_fraction(&zbv, 96), 7.0 / 16.0 / 6.0, 1e-12));
    assert!(close(
        bubble_fraction(&zbv, 96),
        bubble_fraction(&zbh1, 96) / 2.0,
        1e-12
    ));
    let full = cfg(PipelineSchedule::ZbV, ActivationModel::Full);
    assert!(close(bubble_fraction(&full, 96), 7.0 / 16.0 / 4.0, 1e-12));
    assert_eq!(in_flight(&zbv, 0), 8.0);
    assert_eq!(in_flight(&zbv, 7), 4.5);
    let hw = h100();
    let a = Assumptions::PRACTICE;
    // GPT-3 with its 51 200-token vocabulary, tied.
    let gpt3 = ModelShape {
        vocab: Some(51_200),
        ..GPT3
    };
    let one = evaluate_with(
        &gpt3,
        &hw,
        &cfg(PipelineSchedule::OneFOneB, ActivationModel::None),
        &a,
    )
    .unwrap();
    let v = evaluate_with(&gpt3, &hw, &zbv, &a).unwrap();
    let h = evaluate_with(&gpt3, &hw, &zbh1, &a).unwrap();
    let (s1, sv, sh) = (
        one.step_parts.unwrap(),
        v.step_parts.unwrap(),
        h.step_parts.unwrap(),
    );
    assert!(close(sv.pipeline, 2.0 * s1.pipeline, 1e-12));
    // Half the bubble's slots, each a little longer (the sends).
    let slot =
        |s: &plan3d_core::cost::step::StepTime| s.bubble / (s.compute + s.elementwise + s.pipeline);
    assert!(close(slot(&sv), slot(&sh) / 2.0, 1e-9), "{sv:?} {sh:?}");
    assert!(v.step.0 < h.step.0);
    // Device 0: 96/16 · 2 = 12 layers, the 1F1B first device's activations,
    // and the logits (the head is there, not on device 7).
    let first = v.stages.iter().find(|s| s.stage == 0).unwrap();
    let last = v.stages.iter().find(|s| s.stage == 7).unwrap();
    let one_first = one.stages.iter().find(|s| s.stage == 0).unwrap();
    assert_eq!(first.layers, 12);
    assert!(close(first.activations.0, one_first.activations.0, 1e-12));
    assert!(first.logits.0 > 0.0 && last.logits.0 == 0.0);
    // The tied embedding: one copy, on device 0.
    let embedding = 51_200.0 * 12_288.0 / 8.0 * 2.0;
    assert!(close(first.weights.0 - last.weights.0, embedding, 1e-9));
    // Refused in words.
    for bad in [
        Config {
            micro_batches: 14,
            ..zbv
        },
        Config {
            virtual_stages: 2,
            ..zbv
        },
    ] {
        let e = evaluate_with(&gpt3, &hw, &bad, &a).unwrap_err().to_string();
        assert!(e.contains("ZB-V"), "{e}");
    }
    assert!(evaluate_with(
        &gpt3,
        &hw,
        &Config {
            micro_batches: 15,
            ..zbv
        },
        &a
    )
    .is_ok());
    assert!(evaluate_with(&gpt3, &hw, &zbv, &Assumptions::PAPER).is_err());
}

/// DualPipe (DeepSeek-V3 Table 2): bubble
/// (p/2 − 1)(F&B + B − 3W)/(m(F + B + W)) with B the whole backward: 2/3
/// of (p/2 − 1)/m without recomputation; p + 1 micro-batches in flight;
/// twice the weights, gradients and optimizer state; needs an even p and
/// m ≥ 2p.
#[test]
fn dualpipe_bubble_and_memory_by_hand() {
    let cfg = gpt3_pp8;
    let dual = cfg(PipelineSchedule::DualPipe, ActivationModel::None);
    assert!(close(
        bubble_fraction(&dual, 96),
        3.0 / 16.0 * 2.0 / 3.0,
        1e-12
    ));
    let full = cfg(PipelineSchedule::DualPipe, ActivationModel::Full);
    assert!(close(bubble_fraction(&full, 96), 3.0 / 16.0, 1e-12));
    assert_eq!(in_flight(&dual, 0), 9.0);
    let hw = h100();
    let a = Assumptions::PRACTICE;
    let one = evaluate_with(
        &GPT3,
        &hw,
        &cfg(PipelineSchedule::OneFOneB, ActivationModel::None),
        &a,
    )
    .unwrap();
    let two = evaluate_with(&GPT3, &hw, &dual, &a).unwrap();
    let (h1, h2) = (one.stages.heaviest(), two.stages.heaviest());
    assert!(close(h2.weights.0, 2.0 * h1.weights.0, 1e-12));
    assert!(close(h2.optimizer.0, 2.0 * h1.optimizer.0, 1e-12));
    assert!(close(h2.activations.0, h1.activations.0 * 9.0 / 8.0, 1e-12));
    // An odd pipeline, or too few micro-batches, is refused in words.
    let odd = Config {
        pipe: 6,
        micro_batches: 8,
        ..dual
    };
    assert!(evaluate_with(&GPT3, &hw, &odd, &a).is_err());
}

#[test]
fn micro_batch_needs_in_words_match_the_rule() {
    // DualPipe over 8 stages: an even count of at least 16.
    let dual = PipelineSchedule::DualPipe;
    assert_eq!(
        dual.micro_batch_need(8).to_string(),
        "an even number, at least 16"
    );
    assert!(dual.fits_micro_batches(8, 16) && !dual.fits_micro_batches(8, 17));
    assert!(!dual.fits_micro_batches(8, 14));
    // ZB-V over 8 stages: its first GPU's warm-up, 2p − 1 = 15.
    let zbv = PipelineSchedule::ZbV;
    assert_eq!(zbv.micro_batch_need(8).to_string(), "at least 15");
    assert!(zbv.fits_micro_batches(8, 15) && !zbv.fits_micro_batches(8, 14));
    assert_eq!(
        PipelineSchedule::OneFOneB.micro_batch_need(8).to_string(),
        "at least one"
    );
}
