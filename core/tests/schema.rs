//! The api's requests and reports survive a JSON round trip exactly:
//! serialized, parsed back, equal. Requests are random; reports are what
//! the api answers to them (every kind, successes and errors alike).

use plan3d_core::api::{
    self,
    report::{EstimateReport, ZeroReport},
    request::{
        ConstraintsRequest, EvaluateRequest, HardwareRequest, ModelRequest, PlanRequest,
        PracticeRequest, ScheduleRequest, SweepRequest,
    },
};
use proptest::prelude::*;
use serde::{de::DeserializeOwned, Serialize};

/// Serializes, parses back, and checks equality.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(v: &T) {
    let text = serde_json::to_string(v).expect("serializes");
    let back: T = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(&back, v, "{text}");
}

fn name(pool: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(pool).prop_map(String::from),
        1 => "[a-z0-9+:.-]{0,12}",
    ]
}

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![0.0f64..2.0, -1e300f64..1e300, Just(0.0), Just(1e-310)]
}

fn small() -> impl Strategy<Value = u32> {
    prop_oneof![1u32..9, 0u32..200]
}

fn model() -> impl Strategy<Value = ModelRequest> {
    let names = &[
        "x8",
        "x16",
        "x24",
        "bert",
        "gpt-3",
        "megatron-8.3b",
        "llama-3.1-405b",
    ];
    (
        proptest::option::of(name(names)),
        proptest::option::of(1u32..4096),
        proptest::option::of(1u32..64),
        proptest::option::of(1u32..256),
        proptest::option::of(1u32..64),
        (
            proptest::option::of(1u32..20_000),
            proptest::option::of(1u32..64),
        ),
        (
            any::<bool>(),
            any::<bool>(),
            proptest::option::of(1u32..200_000),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                model,
                seq_len,
                heads,
                head_size,
                layers,
                (ffn, kv_heads),
                (gated, nb, vocab, untied),
            )| {
                ModelRequest {
                    model,
                    seq_len,
                    heads,
                    head_size,
                    layers,
                    ffn,
                    kv_heads,
                    gated,
                    no_biases: nb,
                    vocab,
                    untied,
                    // Sometimes q and k normalized per head.
                    qk_norm: gated && !nb,
                    // Sometimes a mixture of experts.
                    experts: (gated && untied).then_some(4),
                    top_k: (gated && untied).then_some(2),
                    expert_ffn: None,
                    shared_experts: (gated && untied && nb).then_some(1),
                    dense_layers: None,
                    expert_node_limit: None,
                }
            },
        )
}

fn hardware() -> impl Strategy<Value = HardwareRequest> {
    (
        name(&["a100-80gb", "a100-40gb", "h100-sxm", "h200", "b200"]),
        proptest::option::of(1u32..80),
        any::<bool>(),
        name(&["infiniband", "infiniband-400", "ethernet", "ethernet-100"]),
        prop_oneof![Just(1.0), 0.05f64..1.0, finite()],
        proptest::option::of(prop_oneof![1.0f64..200.0, finite()]),
    )
        .prop_map(
            |(gpu, node_size, no_limit, network, keff, gpu_memory)| HardwareRequest {
                gpu,
                node_size: if no_limit { None } else { node_size },
                no_node_limit: no_limit,
                network,
                kernel_efficiency: keff,
                gpu_memory,
            },
        )
}

fn constraints() -> impl Strategy<Value = ConstraintsRequest> {
    (
        proptest::option::of(1u64..100_000),
        proptest::option::of(1u64..100_000),
        proptest::option::of(1u32..16),
        proptest::option::of(prop_oneof![1.0f64..1e4, finite()]),
        proptest::option::of(1u64..5_000),
        prop_oneof![Just(0.0), 0.0f64..1.0],
        name(&["paper", "full", "selective", "none"]),
    )
        .prop_map(
            |(gpus, max_gpus, tensor, target_days, batch, min_eff, act)| ConstraintsRequest {
                gpus,
                max_gpus,
                tensor,
                target_days,
                batch,
                cheapest: min_eff > 0.5,
                min_efficiency: min_eff,
                activations: act,
            },
        )
}

const METHODS: &[&str] = &[
    "baseline",
    "partitioned",
    "improved",
    "improved-unpartitioned",
];
const PARS: &[&str] = &[
    "none",
    "data",
    "data+pipe",
    "data+tensor",
    "pipe+tensor",
    "3d",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn model_and_hardware(m in model(), h in hardware()) {
        round_trip(&m);
        round_trip(&h);
        if let Ok(r) = api::model(&m) { round_trip(&r); }
        if let Ok(r) = api::hardware(&h) { round_trip(&r); }
    }

    #[test]
    fn evaluate(
        m in model(), h in hardware(), method in name(METHODS),
        (data, pipe, tensor) in (small(), small(), small()),
        (micro_batch, micro_batches, offload) in (small(), small(), any::<bool>()),
        batch in proptest::option::of(1u64..1000), act in name(&["paper", "full", "selective", "none"]),
        (practice, v, sp, zero) in (any::<bool>(), proptest::option::of(1u32..4), proptest::option::of(any::<bool>()), proptest::option::of(name(&["0", "1", "2", "3", "3-step", "9"]))),
        (tokens, gb) in (proptest::option::of(1e9f64..1e13), proptest::option::of(1u64..4096)),
        (recompute, schedule, zero_r) in (
            proptest::option::of(name(&["none", "selective", "full"])),
            proptest::option::of(name(&["1f1b", "gpipe", "pipedream"])),
            proptest::option::of(name(&["none", "pa", "pa-cpu", "pa+cpu", "cpu"])),
        ),
    ) {
        let r = EvaluateRequest {
            model: m, hardware: h, method, data, pipe, tensor, batch, micro_batch,
            micro_batches, offload, activations: act,
            practice: PracticeRequest {
                assumptions: if practice { "practice".into() } else { "paper".into() },
                virtual_stages: v, microbatch_group: None, sequence_parallel: sp, zero, recompute,
                pipeline_schedule: schedule, zero_r,
                global_batch: gb, tokens, optimizer: None, precision: if practice && v == Some(2) { Some("fp8".into()) } else { None }, context_parallel: v.filter(|&x| x == 3).map(|_| 2),
                expert_parallel: v.filter(|&x| x == 4).map(|_| 2),
                expert_tensor_parallel: v.filter(|&x| x == 4).map(|_| 1),
                expert_imbalance: v.filter(|&x| x == 4).map(|_| 1.25),
                overlap_expert: v.filter(|&x| x == 4).map(|_| true),
                compile: v.filter(|&x| x == 3).map(|_| true),
                expandable_segments: v.filter(|&x| x == 3).map(|_| false),
                attention: v.map(|x| if x == 1 { "materialized".into() } else { "flash".into() }),
                overlap_tensor: v.map(|x| x != 2),
                overlap_data: v.map(|x| x != 3),
                head_layers: v.filter(|&x| x == 3).map(|_| 1),
                embedding_layers: v.filter(|&x| x == 3).map(|_| 1),
                cross_entropy: v.filter(|&x| x == 2).map(|_| "eager".into()),
                activation_layout: v.filter(|&x| x == 3).map(|_| "batch-first".into()),
                checkpoint_early_stop: v.filter(|&x| x == 3).map(|_| true),
                context_exchange: v.filter(|&x| x == 3).map(|_| "allgather".into()),
                repeat_kv: v.filter(|&x| x == 3).map(|_| true),
                norm_kernel: v.filter(|&x| x == 3).map(|_| "unfused".into()),
                framework: v.filter(|&x| x == 1).map(|_| "pytorch".into()),
                grad_reduce: v.filter(|&x| x == 3).map(|_| "bf16".into()),
                recompute_layers: v.filter(|&x| x == 4).map(|_| 1),
                offload_layers: v.filter(|&x| x == 2).map(|_| 1),
                recompute_modules: v.filter(|&x| x == 1).map(|_| "moe_act,layernorm".into()),
                offload_modules: v.filter(|&x| x == 2).map(|_| "core_attn,attn_proj".into()),
                profile: None,
            },
        };
        round_trip(&r);
        if let Ok(e) = api::evaluate(&r) { round_trip(&e); }
    }

    #[test]
    fn plan(
        model in name(&["x8", "x16", "x24", "bert", "megatron-8.3b"]),
        h in hardware(), c in constraints(), method in name(METHODS), par in name(PARS),
        exhaustive in any::<bool>(),
    ) {
        let r = PlanRequest {
            model: ModelRequest { model: Some(model), ..ModelRequest::default() },
            hardware: h,
            constraints: c,
            method: if exhaustive { "any".into() } else { method },
            parallelism: par,
            search: if exhaustive { "exhaustive".into() } else { "rules".into() },
            ..PlanRequest::default()
        };
        round_trip(&r);
        if let Ok(p) = api::plan(&r) { round_trip(&p); }
    }

    #[test]
    fn sweep(
        h in hardware(), c in constraints(), method in name(METHODS), par in name(PARS),
        from in 1e8f64..1e11, decades in 0.0f64..4.0, points in 1u32..6,
        scaling in name(&["x", "aspect:128", "depth:32", "aspect:nope"]),
    ) {
        let r = SweepRequest {
            hardware: h, constraints: c, method, parallelism: par, from,
            to: from * 10f64.powf(decades), points, scaling, head_size: 128, seq_len: 2048,
        };
        round_trip(&r);
        if let Ok(rows) = api::sweep(&r) { round_trip(&rows); }
    }

    #[test]
    fn schedule(
        kind in name(&["ga", "lga", "gpipe", "1f1b", "interleaved", "modular"]),
        (devices, layers, micro_batches) in (proptest::option::of(1u32..5), proptest::option::of(1u32..17), 1u32..9),
        (data, partition, offload) in (1u32..4, any::<bool>(), any::<bool>()),
        (reduce, restore, send) in (0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0),
        model in proptest::option::of(name(&["x8", "x16", "bert"])), h in hardware(),
    ) {
        let r = ScheduleRequest {
            kind, devices, layers, micro_batches, chunks: 2, group: None, data, partition, offload,
            backward: 2.0, reduce, restore, send, model, tensor: 1, micro_batch: 1, hardware: h,
        };
        round_trip(&r);
        if let Ok(s) = api::schedule(&r) { round_trip(&s); }
    }

    #[test]
    fn zero_and_estimate(p in finite(), dp in 0u32..5000, stage in 0u8..5, x in finite()) {
        if let Ok(z) = api::zero(p, dp, stage, 12.0) { round_trip::<ZeroReport>(&z); }
        if let Ok(e) = api::estimate(p, x, 1024.0, 1e14, 8.0) { round_trip::<EstimateReport>(&e); }
    }
}

/// A request written by hand as JSON means what the same CLI flags mean:
/// defaults fill what is left out. Practice is the default, as on the
/// page and in the CLI; the paper's tables are one field away.
#[test]
fn requests_take_the_clis_defaults() {
    let r: PlanRequest = serde_json::from_str(r#"{"model": "x160"}"#).unwrap();
    assert_eq!(r.method, "");
    assert_eq!(r.parallelism, "3d");
    assert_eq!(r.hardware.gpu, "a100-80gb");
    assert_eq!(r.practice.assumptions, "practice");
    let paper: PlanRequest =
        serde_json::from_str(r#"{"model": "x160", "assumptions": "paper"}"#).unwrap();
    // No method under paper: `improved`, the paper's proposal (Table 6.1).
    let p = api::plan(&paper).unwrap();
    assert_eq!(p.evaluation.assumptions, "paper");
    assert_eq!(p.evaluation.method, "improved");
    assert_eq!(p.evaluation.gpus, 38_640); // Table 6.1
                                           // No method under practice: the fastest of the methods frameworks ship
                                           // (the page's headline); `any` adds the paper's proposal.
    let q: PlanRequest = serde_json::from_str(
        r#"{"model": "llama-3.1-70b", "gpu": "h100-sxm", "node_size": 8, "max_gpus": 512}"#,
    )
    .unwrap();
    let shown = api::plan(&q).unwrap();
    assert_eq!(shown.evaluation.assumptions, "practice");
    let of = |m: &str| {
        let mut r = q.clone();
        r.method = m.into();
        api::plan(&r).unwrap()
    };
    let (mega, fsdp) = (of("baseline"), of("partitioned"));
    let best = if fsdp.evaluation.days < mega.evaluation.days {
        fsdp
    } else {
        mega
    };
    assert_eq!(shown.evaluation, best.evaluation);
    assert!(of("any").evaluation.days <= shown.evaluation.days);
    let e: EvaluateRequest = serde_json::from_str(
        r#"{"model": "x160", "method": "improved", "data": 483, "pipe": 5,
            "tensor": 16, "micro_batches": 5, "assumptions": "paper"}"#,
    )
    .unwrap();
    let e = api::evaluate(&e).unwrap();
    assert!((e.days - 6.8).abs() < 0.05);
}

/// core's own inputs round-trip too: shapes, configurations, constraints,
/// hardware (a GPU by its preset name and figures), and the named choices
/// by their CLI names.
mod core_types {
    use super::round_trip;
    use plan3d_core::{
        hardware::{self, Hardware, Network},
        schedule::ScheduleKind,
        search::{Constraints, Parallelism},
        units::Bytes,
        ActivationModel, Config, Method, ModelShape,
    };
    use proptest::prelude::*;

    fn shape() -> impl Strategy<Value = ModelShape> {
        (
            (1u32..70_000, 1u32..3_000, 1u32..3_000, 1u32..4_000),
            (1u32..100_000, 1u32..64, any::<bool>(), any::<bool>()),
            (proptest::option::of(1u32..300_000), any::<bool>()),
        )
            .prop_map(
                |((seq_len, heads, head_size, layers), (ffn, kv, g, b), (vocab, tied))| {
                    ModelShape {
                        seq_len,
                        heads,
                        head_size,
                        kv_heads: kv,
                        layers,
                        ffn,
                        gated_mlp: g,
                        biases: b,
                        vocab,
                        tied_embeddings: tied,
                        experts: None,
                        latent: None,
                        hidden: None,
                        qk_norm: false,
                    }
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        #[test]
        fn shapes_configs_constraints_hardware(
            m in shape(),
            (method, act, par, net) in (0usize..4, 0usize..4, 0usize..6, 0usize..5),
            (data, pipe, tensor, mb, nmu, offload) in (1u32..9999, 1u32..999, 1u32..99, 1u32..99, 1u32..9999, any::<bool>()),
            (max_gpus, exact, t, days, batch, floor) in (
                proptest::option::of(1u64..1 << 32),
                proptest::option::of(1u64..1 << 32),
                proptest::option::of(1u32..64),
                proptest::option::of(0.001f64..1e7),
                proptest::option::of(1u64..100_000),
                0.0f64..1.0,
            ),
            (g, node, keff, mem) in (0usize..5, proptest::option::of(1u32..72), 0.05f64..1.0, proptest::option::of(1.0f64..400.0)),
        ) {
            round_trip(&m);
            let a = ActivationModel::ALL[act];
            round_trip(&Config { method: Method::ALL[method], data, pipe, tensor, micro_batch: mb, micro_batches: nmu, offload, activation: a, ..Config::default() });
            round_trip(&Constraints { max_gpus, exact_gpus: exact, tensor: t, batch, target_days: days, min_efficiency: floor, activation: a, cheapest: offload, ..Constraints::default() });
            let mut gpu = hardware::GPUS[g];
            if let Some(gib) = mem {
                gpu.memory = Bytes::from_gib(gib);
            }
            round_trip(&Hardware { gpu, node_size: node, network: Network::ALL[net], kernel_efficiency: keff });
            round_trip(&Parallelism::ALL[par]);
        }
    }

    #[test]
    fn named_choices_are_their_cli_names() {
        assert_eq!(
            serde_json::to_string(&Method::ImprovedUnpartitioned).unwrap(),
            "\"improved-unpartitioned\""
        );
        assert_eq!(
            serde_json::to_string(&Parallelism::DataPipe).unwrap(),
            "\"data+pipe\""
        );
        for k in ScheduleKind::ALL {
            round_trip(&k);
        }
        let e = serde_json::from_str::<Method>("\"fastest\"").unwrap_err();
        assert!(e.to_string().contains("'fastest'"), "{e}");
        let hw = serde_json::to_value(Hardware::default()).unwrap();
        assert_eq!(hw["gpu"]["name"], "a100-80gb");
        assert_eq!(hw["network"], "infiniband");
        let mut bad = hw.clone();
        bad["gpu"]["name"] = "h900".into();
        assert!(
            serde_json::from_value::<Hardware>(bad).is_err(),
            "a GPU must name a preset"
        );
    }
}

/// Every practice field of an `evaluate` request under `paper` either moves
/// the paper's figures or is refused in words naming it: never echoed and
/// ignored. A field added to `PracticeRequest` without a sample here fails
/// the test, so that someone decides which it is.
#[test]
fn the_paper_reads_or_refuses_every_practice_field() {
    use plan3d_core::api::json::{call, field_of};
    // A valid value of each field (under practice) for Llama 3.1 70B on
    // 256 H100s: DP 8 × PP 4 × TP 8.
    let samples: &[(&str, &str)] = &[
        ("virtual_stages", "2"),
        ("microbatch_group", "4"),
        ("sequence_parallel", "true"),
        ("zero", "\"1\""),
        ("recompute", "\"full\""),
        ("pipeline_schedule", "\"gpipe\""),
        ("zero_r", "\"pa\""),
        ("global_batch", "1024"),
        ("tokens", "1e12"),
        ("optimizer", "\"sgd-momentum\""),
        ("context_parallel", "2"),
        ("precision", "\"fp8\""),
        ("expert_parallel", "1"),
        ("expert_tensor_parallel", "8"),
        ("expert_imbalance", "1.5"),
        ("overlap_expert", "true"),
        ("compile", "true"),
        ("expandable_segments", "false"),
        ("attention", "\"fa2\""),
        ("overlap_tensor", "false"),
        ("overlap_data", "false"),
        ("head_layers", "1"),
        ("embedding_layers", "1"),
        ("cross_entropy", "\"eager\""),
        ("activation_layout", "\"batch-first\""),
        ("checkpoint_early_stop", "true"),
        ("context_exchange", "\"allgather\""),
        ("repeat_kv", "true"),
        ("norm_kernel", "\"unfused\""),
        ("framework", "\"torchtitan\""),
        ("grad_reduce", "\"fp32\""),
        ("recompute_layers", "1"),
        ("offload_layers", "1"),
        ("recompute_modules", "\"core_attn\""),
        ("offload_modules", "\"core_attn\""),
        ("profile", "null"),
    ];
    // The struct's fields, read off its Debug form (JSON leaves out the
    // unset ones): `PracticeRequest { assumptions: "practice", x: None, … }`.
    let debug = format!("{:?}", PracticeRequest::default());
    let fields: Vec<&str> = debug
        .split([',', '{'])
        .filter_map(|part| part.trim().split_once(": ").map(|(name, _)| name))
        .filter(|name| *name != "assumptions")
        .collect();
    assert!(fields.len() > 30, "{debug}");
    for f in &fields {
        assert!(
            samples.iter().any(|(n, _)| n == f),
            "PracticeRequest.{f} has no sample: does the paper read it or refuse it?"
        );
    }
    let base = r#""model": "llama-3.1-70b", "gpu": "h100-sxm", "data": 8, "pipe": 4, "tensor": 8, "micro_batch": 1, "assumptions": "paper""#;
    let figures = |text: &str| {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        // The echo of the request's own fields is not a figure.
        for echo in fields.iter().copied().chain(["assumptions"]) {
            v.as_object_mut().unwrap().remove(echo);
        }
        v
    };
    let paper = figures(&call("evaluate", &format!("{{{base}}}")).unwrap());
    let (mut read, mut refused) = (Vec::new(), 0);
    for (field, value) in samples {
        if *value == "null" {
            continue; // a profile is an object: held by core/tests/profile.rs
        }
        match call("evaluate", &format!("{{{base}, \"{field}\": {value}}}")) {
            Ok(text) => {
                read.push(*field);
                assert_ne!(
                    figures(&text),
                    paper,
                    "{field} is echoed and ignored under paper"
                );
            }
            Err(e) => {
                refused += 1;
                // Named, so that Python's exception and the page point at it.
                assert_eq!(field_of(&e.0), Some(*field), "{e}");
            }
        }
    }
    // What the paper's model reads: the recomputation and the batch (its
    // optimizer is the paper's Adam, its ZeRO the method's).
    assert_eq!(read, ["recompute", "global_batch"]);
    assert_eq!(refused, samples.len() - read.len() - 1);
}
