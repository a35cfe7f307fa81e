//! Robustness: random inputs to every entry point of core. Each call returns
//! a value or an error — never a panic — and no NaN or infinity reaches an
//! output. 100 000 cases per entry point in release builds (`cargo xtask
//! test` runs them so), 2 000 in debug; `PLAN3D_ROBUST_CASES` overrides.

use plan3d_core::{
    evaluate, hardware, model, planner,
    schedule::{simulate, Durations, MemorySizes, ScheduleKind, ScheduleSpec},
    search::{exhaustive, rules, sweep_scaled, Constraints, Parallelism, Scaling},
    state::Inputs,
    ActivationModel, Config, Evaluation, Hardware, Method, ModelShape, Network,
};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PLAN3D_ROBUST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            2_000
        } else {
            100_000
        })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn num() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -1e3f64..1e3,
        2 => any::<f64>(),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(0.0),
        1 => 1e15f64..1e25,
    ]
}

fn count() -> impl Strategy<Value = u32> {
    prop_oneof![4 => 0u32..200, 2 => 0u32..100_000, 1 => any::<u32>()]
}

fn shape() -> impl Strategy<Value = ModelShape> {
    (
        (count(), count(), count(), count()),
        (count(), count(), any::<bool>(), any::<bool>()),
        (proptest::option::of(count()), any::<bool>()),
    )
        .prop_map(
            |((seq_len, heads, head_size, layers), (ffn, kv, gated_mlp, biases), (vocab, tied))| {
                ModelShape {
                    seq_len,
                    heads,
                    head_size,
                    kv_heads: kv,
                    layers,
                    ffn,
                    gated_mlp,
                    biases,
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

/// Small valid-ish shapes (most calls get past validation).
fn small_shape() -> impl Strategy<Value = ModelShape> {
    (1u32..=16, 1u32..=128, 1u32..=24, 1u32..=1024, any::<bool>()).prop_map(
        |(heads, head_size, layers, seq_len, gated)| ModelShape {
            seq_len,
            heads,
            head_size,
            kv_heads: heads,
            layers,
            ffn: 4 * heads * head_size,
            gated_mlp: gated,
            biases: !gated,
            vocab: None,
            tied_embeddings: true,
            experts: None,
            latent: None,
            hidden: None,
            qk_norm: false,
        },
    )
}

fn hw() -> impl Strategy<Value = Hardware> {
    (
        0usize..5,
        proptest::option::of(count()),
        0usize..5,
        num(),
        num(),
    )
        .prop_map(|(g, node_size, n, k, mem)| {
            let mut gpu = hardware::GPUS[g];
            if mem.is_finite() && mem > 0.0 {
                gpu.memory = plan3d_core::units::Bytes(mem * 1e6);
            }
            Hardware {
                gpu,
                node_size,
                network: Network::ALL[n],
                kernel_efficiency: k,
            }
        })
}

/// Valid hardware of every preset (the kernel efficiency is the paper's
/// knob; practice fits its own), memory sometimes tiny.
fn practice_hw() -> impl Strategy<Value = Hardware> {
    (0usize..7, 0usize..4, 0usize..5, any::<bool>()).prop_map(|(g, node, n, tiny)| {
        let mut gpu = hardware::GPUS[g % hardware::GPUS.len()];
        if tiny {
            gpu.memory = plan3d_core::units::Bytes(0.5e9);
        }
        Hardware {
            gpu,
            node_size: [Some(8), Some(4), Some(72), None][node],
            network: Network::ALL[n],
            ..Hardware::default()
        }
    })
}

/// Mixtures of experts, latent attention and widths apart from the heads,
/// with any counts.
fn frontier_shape() -> impl Strategy<Value = ModelShape> {
    (
        prop_oneof![shape(), small_shape()],
        (count(), count(), count(), count(), count(), count()),
        (any::<bool>(), any::<bool>(), proptest::option::of(count())),
    )
        .prop_map(|(mut m, (e, k, f, sh, d, nl), (moe, latent, hidden))| {
            if moe {
                m.experts = Some(model::Experts {
                    routed: e,
                    top_k: k,
                    ffn: f,
                    shared: sh,
                    dense_layers: d,
                    node_limit: nl,
                });
            }
            if latent {
                m.latent = Some(model::Latent {
                    heads: k,
                    q_rank: f,
                    kv_rank: sh,
                    nope: d,
                    rope: nl,
                    v: e,
                });
            }
            m.hidden = hidden;
            m
        })
}

/// Small mixtures of experts that mostly pass validation.
fn small_moe() -> impl Strategy<Value = ModelShape> {
    (
        small_shape(),
        (
            0usize..4,
            1u32..=2,
            1u32..=512,
            0u32..=1,
            0u32..=2,
            0u32..=3,
        ),
    )
        .prop_map(|(mut m, (e, k, f, sh, d, nl))| {
            m.experts = Some(model::Experts {
                routed: [2, 4, 8, 16][e],
                top_k: k,
                ffn: f,
                shared: sh,
                dense_layers: d.min(m.layers - 1),
                node_limit: nl,
            });
            m
        })
}

/// Small degrees of every practice knob that mostly pass validation.
fn small_practice_cfg() -> impl Strategy<Value = Config> {
    (
        (1u32..=16, 1u32..=4, 1u32..=2, 1u32..=4, 1u32..=16),
        (
            0usize..3,
            0usize..2,
            0usize..4,
            1u32..=2,
            0usize..3,
            any::<bool>(),
        ),
    )
        .prop_map(|((d, p, t, b, m), (ep, cp, s, v, a, sp))| Config {
            data: d,
            pipe: p,
            tensor: t,
            micro_batch: b,
            micro_batches: m,
            expert: [1, 2, 4][ep],
            context: [1, 2][cp],
            pipeline_schedule: plan3d_core::cost::PipelineSchedule::ALL[s],
            virtual_stages: v,
            activation: [
                ActivationModel::None,
                ActivationModel::Selective,
                ActivationModel::Full,
            ][a],
            sequence_parallel: sp,
            zero: plan3d_core::cost::assumptions::Zero::One,
            ..Config::default()
        })
}

/// Any degree of every practice knob: expert and context degrees, each
/// pipeline schedule.
fn practice_cfg() -> impl Strategy<Value = Config> {
    (cfg(), (count(), count(), 0usize..4, count(), any::<bool>())).prop_map(
        |(c, (ep, cp, s, v, sp))| Config {
            expert: ep,
            context: cp,
            pipeline_schedule: plan3d_core::cost::PipelineSchedule::ALL[s],
            virtual_stages: v,
            sequence_parallel: sp,
            zero: plan3d_core::cost::assumptions::Zero::One,
            ..c
        },
    )
}

/// Frontier cases that passed validation (printed by a test below).
static FRONTIER_VALID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static FRONTIER_ALL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn cfg() -> impl Strategy<Value = Config> {
    (
        (0usize..4, count(), count(), count()),
        (count(), count(), any::<bool>(), 0usize..4),
    )
        .prop_map(
            |((m, data, pipe, tensor), (micro_batch, micro_batches, offload, a))| Config {
                method: Method::ALL[m],
                data,
                pipe,
                tensor,
                micro_batch,
                micro_batches,
                offload,
                activation: ActivationModel::ALL[a],
                ..Config::default()
            },
        )
}

fn constraints() -> impl Strategy<Value = Constraints> {
    (
        proptest::option::of(0u64..100_000),
        proptest::option::of(0u64..100_000),
        proptest::option::of(0u32..64),
        proptest::option::of(0u64..10_000),
        proptest::option::of(num()),
        num(),
        0usize..8,
    )
        .prop_map(
            |(max_gpus, exact_gpus, tensor, batch, target_days, min_eff, a)| Constraints {
                max_gpus,
                exact_gpus,
                tensor,
                batch,
                target_days,
                min_efficiency: min_eff,
                activation: ActivationModel::ALL[a % 4],
                cheapest: a >= 4,
                ..Constraints::default()
            },
        )
}

fn finite_evaluation(e: &Evaluation) -> Result<(), TestCaseError> {
    let m = e.memory;
    for v in [
        m.state.get(),
        m.checkpoints.get(),
        m.buffers.get(),
        m.activations.get(),
        e.efficiency,
        e.time.get(),
        e.total_flops.get(),
        e.steps,
        e.critical_batch,
    ] {
        prop_assert!(v.is_finite(), "{e:?}");
    }
    for (_, o) in e.overheads.entries() {
        prop_assert!(o.is_finite() && o >= 0.0);
    }
    for t in e.transfers.iter() {
        prop_assert!(t.intensity.get().is_finite() && t.overhead.is_finite());
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn robust_model(m in shape(), name in ".{0,40}", x in any::<u32>()) {
        if m.validate().is_ok() {
            for v in [m.params(), m.params_exact(), m.critical_batch(), m.layer_activation_per_token()] {
                prop_assert!(v.is_finite() && v > 0.0);
            }
        }
        if let Ok(m) = model::preset(&name) {
            prop_assert!(m.params().is_finite());
        }
        if let Ok(m) = model::x_family(x) {
            prop_assert!(m.critical_batch().is_finite());
        }
    }

    #[test]
    fn robust_hardware(h in hw(), name in ".{0,40}") {
        if h.validate().is_ok() {
            for link in plan3d_core::Link::ALL {
                prop_assert!(h.threshold(link).get().is_finite());
            }
            prop_assert!(h.network_threshold().get().is_finite());
        }
        let _ = hardware::gpu(&name);
        let _ = Network::parse(&name);
    }

    /// The frontier knobs under practice (experts, latent attention, FP8,
    /// ZB-H1 and DualPipe, expert and context degrees, overlap and
    /// imbalance): a value or an error, every number of a value finite.
    #[test]
    fn robust_frontier(
        m in prop_oneof![1 => frontier_shape(), 3 => small_moe()],
        h in prop_oneof![1 => hw(), 3 => practice_hw()],
        c in prop_oneof![1 => practice_cfg(), 3 => small_practice_cfg()],
        (fp8, overlap, imbalance) in (any::<bool>(), any::<bool>(), num()),
    ) {
        use plan3d_core::cost::assumptions::{Assumptions, Compute};
        let a = Assumptions {
            compute: if fp8 { Compute::Fp8 } else { Compute::Bf16 },
            overlap_expert: overlap,
            expert_imbalance: if imbalance.is_finite() { imbalance.clamp(1.0, 16.0) } else { 1.1 },
            ..Assumptions::PRACTICE
        };
        if let Ok(e) = plan3d_core::cost::evaluate_with(&m, &h, &c, &a) {
            FRONTIER_VALID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            finite_evaluation(&e)?;
            let s = e.step_parts.unwrap_or_default();
            prop_assert!(s.total().is_finite() && s.all_to_all_bytes.is_finite() && s.context_ring_bytes.is_finite(), "{s:?}");
            prop_assert!(e.stages.heaviest().total().0.is_finite());
        }
        let n = FRONTIER_VALID.load(std::sync::atomic::Ordering::Relaxed);
        let all = FRONTIER_ALL.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if all % 10_000 == 0 {
            eprintln!("robust_frontier: {n} of {all} cases evaluated");
        }
    }

    #[test]
    fn robust_evaluate(m in prop_oneof![shape(), small_shape()], h in hw(), c in cfg()) {
        if let Ok(e) = evaluate(&m, &h, &c) {
            finite_evaluation(&e)?;
        }
    }

    /// The whole run: any settings, any configuration; every number of a
    /// run that exists is finite.
    #[test]
    fn robust_run(
        m in prop_oneof![shape(), small_shape()], h in hw(), c in cfg(),
        (rate, bw, restart, pue, price) in (num(), num(), num(), num(), num()),
        (tokens, ramp_at, ramp_batch, asynch) in (num(), num(), num(), any::<bool>()),
    ) {
        let s = plan3d_core::run::RunSettings {
            ramp: if ramp_at > 0.0 {
                vec![
                    plan3d_core::run::RampStep { start_tokens: 0.0, batch_tokens: ramp_batch },
                    plan3d_core::run::RampStep { start_tokens: ramp_at, batch_tokens: ramp_batch * 2.0 },
                ]
            } else {
                Vec::new()
            },
            price_per_gpu_hour: Some(price),
            interruptions_per_gpu_hour: rate,
            checkpoint_bytes_per_s: bw,
            async_checkpoint: asynch,
            restart_seconds: restart,
            pue,
            ..plan3d_core::run::RunSettings::default()
        };
        let a = plan3d_core::cost::Assumptions {
            tokens: Some(tokens),
            ..plan3d_core::cost::Assumptions::PRACTICE
        };
        if let Ok(r) = plan3d_core::run::run(&m, &h, &c, &a, &s) {
            for x in [r.wall_seconds, r.ideal_seconds, r.goodput, r.cost, r.energy_mwh,
                      r.gpu_hours, r.checkpoint_seconds, r.expected_interruptions, r.lost.total()] {
                prop_assert!(x.is_finite() && x >= 0.0, "{r:?}");
            }
            prop_assert!(r.goodput <= 1.0);
        }
    }

    #[test]
    fn robust_plan(m in small_shape(), h in hw(), c in constraints(), method in 0usize..4, par in 0usize..6) {
        let par = Parallelism::ALL[par];
        // Keep target-time bisections short.
        let c = Constraints { target_days: c.target_days.filter(|_| c.max_gpus.is_some()), ..c };
        if let Ok(p) = rules(&m, &h, Method::ALL[method], par, &c) {
            finite_evaluation(&p.evaluation)?;
            for b in p.binding.iter() {
                prop_assert!(!b.to_string().contains("NaN") && !b.to_string().contains("inf"));
            }
        }
        if c.target_days.is_none() {
            if let Ok(r) = exhaustive(&m, &h, None, par, &Constraints { max_gpus: c.max_gpus.map(|g| g.min(4096)).or(Some(4096)), ..c }) {
                finite_evaluation(&r.best.evaluation)?;
            }
        }
    }

    #[test]
    fn robust_sweep(h in hw(), from in num(), to in num(), points in 0u32..5, s in 0usize..3, r in num(), l in count(), hs in count(), method in 0usize..3) {
        let scaling = [
            Scaling::XFamily,
            Scaling::Aspect { ratio: r, head_size: hs, seq_len: 2048 },
            Scaling::FixedDepth { layers: l, head_size: hs, seq_len: 2048 },
        ][s];
        let (from, to) = (from.abs() * 1e9, to.abs() * 1e10);
        if let Ok(rows) = sweep_scaled(&h, Method::ALL[method], Parallelism::ThreeD, &Constraints::default(), scaling, from, to, points) {
            for row in rows {
                prop_assert!(row.params.is_finite());
                if let Ok(p) = row.plan {
                    finite_evaluation(&p.evaluation)?;
                }
            }
        }
    }

    #[test]
    fn robust_schedule(
        kind in 0usize..6, devices in 0u32..10, layers in 0u32..40, mbs in 0u32..24, chunks in 0u32..4, data in 0u32..4,
        partition in any::<bool>(), offload in any::<bool>(), d in proptest::array::uniform7(num())
    ) {
        let spec = ScheduleSpec {
            kind: ScheduleKind::ALL[kind],
            devices,
            layers,
            micro_batches: mbs,
            chunks,
            group: 0,
            data,
            partition,
            offload,
            durations: Durations { forward: d[0], backward: d[1], reduce: d[2], restore: d[3], send: d[4], cpu_gpu: d[5], optimizer: d[6], unit: "unit" },
            memory: MemorySizes { resident: d[6], checkpoint: d[0], activations: d[1] },
        };
        if let Ok(s) = simulate(&spec) {
            prop_assert!(s.makespan.is_finite() && s.bubble_fraction.is_finite() && s.exposed_communication.is_finite());
            prop_assert!(s.events.iter().all(|e| e.start.is_finite() && e.end.is_finite()));
            prop_assert!(s.memory_peak.iter().all(|m| m.is_finite()));
        }
    }

    #[test]
    fn robust_url_state(q in ".{0,200}", k in "[a-z]{1,6}", v in ".{0,80}") {
        for query in [q, format!("{k}={v}"), format!("model=custom&seq={v}&heads={v}&head={v}&layers={v}")] {
            let (i, notices) = Inputs::from_query(&query);
            prop_assert!(i.model.shape().is_ok());
            prop_assert!(notices.len() <= 64);
            let (back, n2) = Inputs::from_query(&i.to_query());
            prop_assert!(n2.is_empty());
            prop_assert_eq!(back, i);
        }
    }
}

/// The page's whole pipeline from a URL: plans, needs, the exhaustive
/// optimum and the shown schedule. Each case runs searches and simulations
/// (~0.1 s a case on average, natively), so 1/400 of the cases of the
/// other entry points: 250 in release.
fn page_config() -> ProptestConfig {
    ProptestConfig {
        cases: (cases() / 400).max(10),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn page_query() -> impl Strategy<Value = String> {
    let model = prop_oneof![
        (1u32..=2048).prop_map(|x| format!("x{}", 2 * x)),
        (0usize..model::PRESETS.len()).prop_map(|i| model::PRESETS[i].0.to_string()),
    ];
    (
        model,
        0usize..hardware::GPUS.len(),
        prop_oneof![
            (1u32..=72).prop_map(|n| n.to_string()),
            Just("none".to_string())
        ],
        0usize..Network::ALL.len(),
        0usize..Parallelism::ALL.len(),
        proptest::option::of(1u64..1_000_000),
        proptest::option::of(1u64..100_000),
        proptest::option::of(0.01f64..10_000.0),
        0usize..4,
    )
        .prop_map(|(m, g, node, net, par, gpus, batch, days, act)| {
            let mut q = format!(
                "model={m}&gpu={}&node={node}&net={}&par={}&act={}",
                hardware::GPUS[g].name,
                Network::ALL[net].name(),
                Parallelism::ALL[par].name().replace('+', "%2B"),
                ["paper", "full", "selective", "none"][act]
            );
            if let Some(g) = gpus {
                q += &format!("&gpus={g}");
            }
            if let Some(b) = batch {
                q += &format!("&batch={b}");
            }
            if let Some(d) = days {
                q += &format!("&days={d}");
            }
            q
        })
}

proptest! {
    #![proptest_config(page_config())]

    #[test]
    fn robust_page_pipeline(q in page_query()) {
        let (i, notices) = Inputs::from_query(&q);
        prop_assert!(notices.is_empty(), "{q}: {notices:?}");
        let Ok(o) = planner::outputs(&i) else { return Ok(()) };
        for (_, p) in &o.plans {
            let Ok(p) = p else { continue };
            finite_evaluation(&p.evaluation)?;
            for n in planner::needs(p, &o.hardware) {
                prop_assert!(n.required.get().is_finite() && n.available.get().is_finite());
            }
            if let Ok((s, shown)) = planner::plan_schedule(&o.model, &o.hardware, p) {
                let ops = 2 * u64::from(s.spec.layers) * u64::from(s.spec.micro_batches);
                prop_assert!(ops <= planner::MAX_PAGE_OPS, "{q}: {ops} operations");
                prop_assert!(s.makespan.is_finite() && s.bubble_fraction.is_finite());
                prop_assert_eq!(shown.devices.0, s.spec.devices);
            }
        }
        if let Ok(r) = planner::optimum(&i) {
            finite_evaluation(&r.best.evaluation)?;
            // No rules' plan beats the optimum in the search's objective:
            // fewer GPUs within a target time the optimum meets, else less
            // time.
            if let Some(p) = o.rules_against(&r) {
                let (e, best) = (p.evaluation, r.best.evaluation);
                let reached = |t: f64| i.target_days.is_some_and(|d| t / 86_400.0 <= d * (1.0 + 1e-9));
                if reached(best.time.0) && reached(e.time.0) {
                    prop_assert!(e.gpus >= best.gpus, "{q}: rules use fewer GPUs");
                } else if !reached(best.time.0) {
                    prop_assert!(planner::slowdown(p, &r) >= 1.0 - 1e-9, "{q}: rules beat the optimum");
                    prop_assert!(!reached(e.time.0), "{q}: rules meet a target the optimum misses");
                }
                let standing = planner::standing(p, &r, &o.constraints);
                if let planner::Standing::Slower(x) | planner::Standing::MoreGpus(x) = standing {
                    prop_assert!(x > 1.0 && x.is_finite(), "{q}: {standing:?}");
                }
            }
        }
    }
}
