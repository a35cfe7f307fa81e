//! Fixed means fixed: random requests to every entry point of the API
//! (`evaluate`, `plan`, `run`, and the timelines of both), as the CLI, the
//! JavaScript API and a JSON caller send them. Each answer is a report or
//! an error in words — never a panic — and no plan returned differs from a
//! field the request fixed, or exceeds the budget, cluster, batch limit,
//! target time, efficiency floor or GPU memory it was given. A "no plan"
//! says why (the closest miss) whenever the practice search ran.
//!
//! 100 000 requests per entry point in release builds (`cargo xtask test`
//! runs them so), 500 in debug; `PLAN3D_REQUEST_CASES` overrides.

use plan3d_core::api::{
    self,
    report::EvaluationReport,
    request::{
        ConstraintsRequest, EvaluateRequest, HardwareRequest, ModelRequest, PlanRequest,
        PracticeRequest, RunRequest,
    },
};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PLAN3D_REQUEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 500 } else { 100_000 })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Small models (dense or a small mixture), so that a search takes
/// microseconds: a preset's shape with its size overridden.
fn model() -> impl Strategy<Value = ModelRequest> {
    (
        prop_oneof![Just(4u32), Just(8), Just(16), Just(6)],
        prop_oneof![Just(1u32), Just(2), Just(4)],
        prop_oneof![Just(64u32), Just(128)],
        2u32..=24,
        prop_oneof![Just(512u32), Just(2048), Just(4096), Just(32_768)],
        proptest::option::of(prop_oneof![Just(8u32), Just(16)]),
        proptest::option::of(prop_oneof![Just(32_000u32), Just(128_256)]),
    )
        .prop_map(
            |(heads, kv_div, head_size, layers, seq_len, experts, vocab)| ModelRequest {
                seq_len: Some(seq_len),
                heads: Some(heads),
                kv_heads: Some((heads / kv_div).max(1)),
                head_size: Some(head_size),
                layers: Some(layers),
                gated: true,
                no_biases: true,
                vocab,
                experts,
                top_k: experts.map(|_| 2),
                ..ModelRequest::default()
            },
        )
}

fn hardware() -> impl Strategy<Value = HardwareRequest> {
    (
        prop_oneof![
            Just("a100-80gb"),
            Just("a100-40gb"),
            Just("h100-sxm"),
            Just("h200"),
            Just("b200")
        ],
        proptest::option::of(prop_oneof![Just(1u32), Just(4), Just(8), Just(16)]),
        prop_oneof![Just("infiniband"), Just("infiniband-400"), Just("ethernet")],
        proptest::option::of(prop_oneof![Just(0.5f64), Just(4.0), Just(24.0)]),
    )
        .prop_map(|(gpu, node_size, network, gpu_memory)| HardwareRequest {
            gpu: gpu.into(),
            node_size,
            network: network.into(),
            gpu_memory,
            ..HardwareRequest::default()
        })
}

fn some_of<T: Clone + core::fmt::Debug + 'static>(
    values: &'static [T],
) -> impl Strategy<Value = Option<T>> {
    proptest::option::weighted(0.2, proptest::sample::select(values))
}

fn practice() -> impl Strategy<Value = PracticeRequest> {
    (
        (
            some_of(&[1u32, 2, 3, 4]),
            some_of(&[false, true]),
            some_of(&["0", "1", "2", "3", "3-step"]),
            some_of(&["none", "selective", "full"]),
            some_of(&["1f1b", "gpipe", "zb-h1", "zb-v", "dualpipe", "any"]),
            some_of(&["none", "pa", "pa-cpu"]),
        ),
        (
            some_of(&[1u64, 6, 16, 64, 96, 256, 1024, 2048]),
            some_of(&[1u32, 2, 4]),
            some_of(&[1u32, 2, 4, 8]),
            some_of(&["bf16", "fp8"]),
            proptest::option::weighted(0.5, prop_oneof![Just(1e9f64), Just(1e11), Just(3e12)]),
        ),
        (
            some_of(&["flash", "materialized"]),
            some_of(&[false, true]),
            some_of(&[false, true]),
        ),
    )
        .prop_map(
            |(
                (virtual_stages, sequence_parallel, zero, recompute, schedule, zero_r),
                (global_batch, context_parallel, expert_parallel, precision, tokens),
                (attention, overlap_tensor, overlap_data),
            )| PracticeRequest {
                assumptions: "practice".into(),
                virtual_stages,
                sequence_parallel,
                zero: zero.map(Into::into),
                recompute: recompute.map(Into::into),
                pipeline_schedule: schedule.map(Into::into),
                zero_r: zero_r.map(Into::into),
                global_batch,
                tokens,
                context_parallel,
                precision: precision.map(Into::into),
                expert_parallel,
                attention: attention.map(Into::into),
                overlap_tensor,
                overlap_data,
                ..PracticeRequest::default()
            },
        )
}

fn constraints() -> impl Strategy<Value = ConstraintsRequest> {
    (
        some_of(&[1u64, 8, 24, 64, 256, 1000, 1024, 4096]),
        some_of(&[1u64, 8, 64, 512, 4096, 65_536]),
        some_of(&[1u32, 2, 3, 4, 8, 16]),
        some_of(&[0.01f64, 1.0, 30.0, 1e4]),
        some_of(&[1u64, 16, 128, 512, 4096]),
        proptest::option::weighted(0.1, prop_oneof![Just(0.2f64), Just(0.5), Just(0.9)]),
        some_of(&["full", "selective", "none"]),
        any::<bool>(),
    )
        .prop_map(
            |(gpus, max_gpus, tensor, target_days, batch, min_eff, activations, cheapest)| {
                ConstraintsRequest {
                    gpus,
                    max_gpus,
                    tensor,
                    target_days,
                    batch,
                    min_efficiency: min_eff.unwrap_or(0.0),
                    activations: activations.unwrap_or("paper").into(),
                    cheapest,
                }
            },
        )
}

fn plan_request() -> impl Strategy<Value = PlanRequest> {
    (
        model(),
        hardware(),
        constraints(),
        practice(),
        prop_oneof![
            3 => Just(""),
            1 => Just("any"),
            1 => Just("baseline"),
            1 => Just("partitioned"),
            1 => Just("improved"),
            1 => Just("improved-unpartitioned")
        ],
        (
            some_of(&[1u32, 2, 4, 8, 12, 64]),
            some_of(&[1u32, 2, 3, 4, 8]),
            some_of(&[1u32, 2, 3, 8]),
        ),
    )
        .prop_map(
            |(model, hardware, constraints, practice, method, (data, pipe, micro_batch))| {
                PlanRequest {
                    model,
                    hardware,
                    constraints,
                    method: method.into(),
                    practice,
                    data,
                    pipe,
                    micro_batch,
                    ..PlanRequest::default()
                }
            },
        )
}

fn evaluate_request() -> impl Strategy<Value = EvaluateRequest> {
    (
        model(),
        hardware(),
        practice(),
        prop_oneof![
            Just("baseline"),
            Just("partitioned"),
            Just("improved"),
            Just("improved-unpartitioned")
        ],
        (1u32..=64, 1u32..=8, 1u32..=8, 1u32..=8, 1u32..=32),
        prop_oneof![Just("paper"), Just("full"), Just("selective"), Just("none")],
    )
        .prop_map(
            |(
                model,
                hardware,
                practice,
                method,
                (data, pipe, tensor, micro_batch, micro_batches),
                act,
            )| {
                EvaluateRequest {
                    model,
                    hardware,
                    method: method.into(),
                    data,
                    pipe,
                    tensor,
                    micro_batch,
                    micro_batches,
                    activations: act.into(),
                    practice,
                    ..EvaluateRequest::default()
                }
            },
        )
}

/// The violations of what `r` fixed or bounded in the plan `e`, in words.
fn violations(r: &PlanRequest, e: &EvaluationReport) -> Vec<String> {
    let mut v = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            v.push(what);
        }
    };
    let (c, p) = (&r.constraints, &r.practice);
    if let Some(d) = r.data {
        check(e.data == d, format!("data {} ≠ {d}", e.data));
    }
    if let Some(x) = r.pipe {
        check(e.pipe == x, format!("pipe {} ≠ {x}", e.pipe));
    }
    if let Some(b) = r.micro_batch {
        check(
            e.micro_batch == b,
            format!("micro_batch {} ≠ {b}", e.micro_batch),
        );
    }
    if let Some(t) = c.tensor {
        check(e.tensor == t, format!("tensor {} ≠ {t}", e.tensor));
    }
    if let Some(x) = p.virtual_stages {
        check(
            e.virtual_stages == x,
            format!("virtual_stages {} ≠ {x}", e.virtual_stages),
        );
    }
    if let Some(x) = p.sequence_parallel {
        check(
            e.sequence_parallel == x,
            format!("sequence_parallel {} ≠ {x}", e.sequence_parallel),
        );
    }
    if let Some(z) = &p.zero {
        check(&e.zero == z, format!("zero {} ≠ {z}", e.zero));
    }
    let fixed_recompute = p
        .recompute
        .clone()
        .or_else(|| (c.activations != "paper").then(|| c.activations.clone()));
    if let Some(x) = fixed_recompute {
        check(e.recompute == x, format!("recompute {} ≠ {x}", e.recompute));
    }
    if let Some(s) = p.pipeline_schedule.as_deref().filter(|s| *s != "any") {
        check(
            e.pipeline_schedule == s,
            format!("schedule {} ≠ {s}", e.pipeline_schedule),
        );
    }
    if let Some(z) = &p.zero_r {
        check(&e.zero_r == z, format!("zero_r {} ≠ {z}", e.zero_r));
    }
    if let Some(x) = p.context_parallel {
        check(
            e.context_parallel == x,
            format!("context {} ≠ {x}", e.context_parallel),
        );
    }
    if let Some(x) = p.expert_parallel {
        check(
            e.expert_parallel == x,
            format!("expert {} ≠ {x}", e.expert_parallel),
        );
    }
    if let Some(x) = &p.precision {
        check(
            &e.precision == x,
            format!("precision {} ≠ {x}", e.precision),
        );
    }
    if !matches!(r.method.as_str(), "" | "any") {
        check(
            e.method == r.method,
            format!("method {} ≠ {}", e.method, r.method),
        );
    }
    if let Some(gb) = p.global_batch {
        check(
            e.batch == gb,
            format!("batch {} ≠ global batch {gb}", e.batch),
        );
    } else {
        // The limit given, else today's batch for the run (DeepSeek LLM's
        // law over the plan's own tokens).
        let law = || {
            let m = api::shape(&r.model).expect("a plan's model");
            m.batch_law(e.tokens).floor().max(1.0)
        };
        let limit = c.batch.map_or_else(law, |b| b as f64);
        check(
            e.batch as f64 <= limit,
            format!("batch {} > limit {limit}", e.batch),
        );
    }
    if let Some(n) = c.gpus {
        check(e.gpus == n, format!("gpus {} ≠ cluster {n}", e.gpus));
    }
    if let Some(n) = c.max_gpus {
        check(e.gpus <= n, format!("gpus {} > budget {n}", e.gpus));
    }
    if let Some(d) = c.target_days {
        check(e.days <= d, format!("days {} > target {d}", e.days));
    }
    check(
        e.efficiency >= c.min_efficiency,
        format!("efficiency {} < {}", e.efficiency, c.min_efficiency),
    );
    check(
        e.fits && e.memory.peak_bytes <= e.gpu_memory_bytes,
        format!("memory {} > {}", e.memory.peak_bytes, e.gpu_memory_bytes),
    );
    check(
        e.batch == u64::from(e.data) * u64::from(e.micro_batch) * u64::from(e.micro_batches),
        format!("batch {} ≠ d·b·m", e.batch),
    );
    v
}

/// An error in words; a practice "no plan" says why.
fn words(err: &api::ApiError) -> Result<(), TestCaseError> {
    prop_assert!(!err.0.is_empty());
    if err.0.starts_with("no plan") {
        prop_assert!(err.0.contains("Closest: "), "unexplained: {}", err.0);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_plan_honours_every_fixed_field(r in plan_request()) {
        match api::plan(&r) {
            Ok(report) => {
                let v = violations(&r, &report.evaluation);
                prop_assert!(v.is_empty(), "{:?} in the plan for {:?}", v, r);
            }
            Err(e) => words(&e)?,
        }
    }

    #[test]
    fn a_run_honours_every_fixed_field(r in plan_request(), ramp in any::<bool>()) {
        let run = RunRequest {
            plan: r.clone(),
            batch_ramp: ramp.then(|| "0:1Mi,1G:2Mi".to_string()),
            ..RunRequest::default()
        };
        match api::run(&run) {
            Ok(report) => {
                let mut fixed = r;
                if ramp && fixed.practice.global_batch.is_none() {
                    // The plan is searched at the ramp's last batch.
                    fixed.practice.global_batch = Some(report.plan.evaluation.batch);
                }
                let v = violations(&fixed, &report.plan.evaluation);
                prop_assert!(v.is_empty(), "{:?} in the run for {:?}", v, run);
                prop_assert!(report.wall_days.is_finite() && report.wall_days >= report.ideal_days);
            }
            Err(e) => words(&e)?,
        }
    }

    #[test]
    fn an_evaluation_is_the_configuration_asked_for(r in evaluate_request()) {
        match api::evaluate(&r) {
            Ok(e) => {
                prop_assert_eq!(
                    (e.data, e.pipe, e.tensor, e.micro_batch),
                    (r.data, r.pipe, r.tensor, r.micro_batch)
                );
                prop_assert_eq!(&e.method, &r.method);
                if let Some(z) = &r.practice.zero {
                    prop_assert_eq!(&e.zero, z);
                }
                if let Some(x) = &r.practice.recompute {
                    prop_assert_eq!(&e.recompute, x);
                } else if r.activations != "paper" {
                    prop_assert_eq!(&e.recompute, &r.activations);
                }
                if let Some(gb) = r.practice.global_batch {
                    prop_assert_eq!(e.batch, gb);
                } else {
                    prop_assert_eq!(e.micro_batches, r.micro_batches);
                }
                for (x, want) in [
                    (e.virtual_stages, r.practice.virtual_stages),
                    (e.context_parallel, r.practice.context_parallel),
                    (e.expert_parallel, r.practice.expert_parallel),
                ] {
                    if let Some(w) = want {
                        prop_assert_eq!(x, w);
                    }
                }
            }
            Err(e) => words(&e)?,
        }
    }

    #[test]
    fn timelines_answer_or_refuse_in_words(r in plan_request(), ev in evaluate_request()) {
        // Only plans whose layouts draw quickly: the page caps a timeline's
        // operations, this keeps the cases many.
        match api::plan_timeline(&r) {
            Ok((_, t)) => {
                prop_assert!(t.shown_devices <= t.plan_devices);
                prop_assert!(t.shown_micro_batches <= t.plan_micro_batches);
                prop_assert!(t.estimated_step_seconds.is_finite());
            }
            Err(e) => words(&e)?,
        }
        match api::evaluate_timeline(&ev) {
            Ok((_, t)) => prop_assert!(t.shown_devices <= t.plan_devices),
            Err(e) => words(&e)?,
        }
    }
}

/// A name the presets do not have is refused with the names that would do,
/// the nearest one offered where it is near, and the field it belongs to.
#[test]
fn unknown_names_list_the_known_ones() {
    let err = |request: &str| {
        let e = api::json::call("evaluate", request).unwrap_err();
        let field = api::json::field_of(&e.to_string());
        (e.to_string(), field)
    };
    let (e, field) = err(r#"{ "model": "gpt-3", "gpu": "h100" }"#);
    assert!(
        e.starts_with("unknown GPU 'h100': use a100-80gb, a100-40gb, h100-sxm,"),
        "{e}"
    );
    assert!(e.ends_with("; did you mean h100-sxm?"), "{e}");
    assert_eq!(field, Some("gpu"));
    let (e, field) = err(r#"{ "model": "llama-3-8b" }"#);
    assert!(
        e.contains("llama-3.1-405b") && e.contains("x<N> (N even)"),
        "{e}"
    );
    assert!(e.ends_with("; did you mean llama-3.1-8b?"), "{e}");
    assert_eq!(field, Some("model"));
    let (e, field) = err(r#"{ "model": "gpt-3", "network": "carrier-pigeon" }"#);
    assert!(
        e.contains("infiniband-400, infiniband-800, roce-400"),
        "{e}"
    );
    assert!(!e.contains("did you mean"), "nothing is near: {e}");
    assert_eq!(field, Some("network"));
    // A name within two edits of two presets offers the nearer.
    let (e, _) = err(r#"{ "model": "gpt3" }"#);
    assert!(e.ends_with("; did you mean gpt-3?"), "{e}");
    let (e, field) = err(r#"{ "model": "gpt-3", "precision": "fp8-block" }"#);
    assert!(
        e.starts_with(
            "unknown precision 'fp8-block': use bf16, fp8, fp8-current, fp8-blockwise, mxfp8"
        ),
        "{e}"
    );
    assert!(e.ends_with("; did you mean fp8-blockwise?"), "{e}");
    assert_eq!(field, Some("precision"));
    // One character is not near anything: '5' is no typo of '0'.
    let (e, field) = err(r#"{ "model": "gpt-3", "zero": "5" }"#);
    assert_eq!(e, "unknown ZeRO stage '5': use 0, 1, 2, 3, 3-step");
    assert_eq!(field, Some("zero"));
    let (e, field) = err(r#"{ "model": "gpt-3", "activations": "most" }"#);
    assert_eq!(
        e,
        "unknown activation model 'most': use paper, full, selective, none"
    );
    assert_eq!(field, Some("activations"));
}

/// The layered methods' refusals say what to do in words a page reader
/// follows (they read "virtual_stages must be 1 with method improved"),
/// and still name the field for the JSON door.
#[test]
fn layered_method_refusals_read_as_words() {
    for (fixed, field, words) in [
        (
            r#""virtual_stages": 2"#,
            "virtual_stages",
            "which has no virtual stages: leave them at 1",
        ),
        (
            r#""pipeline_schedule": "zb-h1""#,
            "pipeline_schedule",
            "leave the pipeline schedule free",
        ),
    ] {
        let r = format!(
            r#"{{ "model": "llama-3.1-8b", "gpu": "h100-sxm", "max_gpus": 64, "method": "improved", {fixed} }}"#
        );
        let e = api::json::call("plan", &r).unwrap_err().to_string();
        assert!(e.contains(words) && !e.contains('_'), "{e}");
        assert_eq!(api::json::field_of(&e), Some(field), "{e}");
    }
}
