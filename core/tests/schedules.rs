//! The page's schedules: what the planner draws for a plan (its own
//! schedule kind, durations and memory, scaled down when large, keeping
//! the bubble), the paper's comparisons, and where the rules stand against
//! the optimum.

use plan3d_core::{
    planner::{self, comparison, outputs, plan_schedule, scaling},
    search::Parallelism,
    state::{Comparison, CustomShape, Inputs, ModelChoice},
    ActivationModel, Error, Method,
};

use crate::state::paper_inputs;

#[test]
fn schedules_and_scaling_for_the_page() {
    let i = paper_inputs();
    let o = outputs(&i).unwrap();
    let (s, shown) =
        plan_schedule(&o.model, &o.hardware, o.selected(Method::Improved).unwrap()).unwrap();
    assert_eq!(s.spec.devices, 5);
    assert!(shown.whole());
    assert!(s.makespan > 5.0 && s.makespan < 7.0);
    // The baseline's 160-stage pipeline of 172 micro-batches (55 k
    // operations) is shown scaled down, with about its bubble.
    let p = o.selected(Method::Baseline).unwrap();
    let (b, shown) = plan_schedule(&o.model, &o.hardware, p).unwrap();
    assert_eq!(shown.devices.1, 160);
    assert_eq!(shown.micro_batches.1, p.evaluation.config.micro_batches);
    assert!(!shown.whole());
    assert_eq!(
        (b.spec.devices, b.spec.layers),
        (shown.devices.0, shown.devices.0)
    );
    assert!(
        2 * u64::from(b.spec.layers) * u64::from(b.spec.micro_batches) <= planner::MAX_PAGE_OPS
    );
    let plan_bubble = 159.0 / f64::from(shown.micro_batches.1);
    let shown_bubble = f64::from(b.spec.devices - 1) / f64::from(b.spec.micro_batches);
    assert!(
        (shown_bubble / plan_bubble - 1.0).abs() < 0.05,
        "{shown_bubble} vs {plan_bubble}"
    );
    for c in Comparison::ALL {
        let [a, b] = comparison(c).unwrap();
        assert!(b.bubble_fraction <= a.bubble_fraction + 1e-12);
        assert!(b.makespan <= a.makespan);
    }
    let rows = scaling(&i).unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|(_, r)| r.len() > 20));
}

/// The rules held against the optimum: the same method's plan, or the
/// fastest when the optimum's method has no rules (improved-unpartitioned).
#[test]
fn rules_against_the_optimum() {
    let i = paper_inputs();
    let (o, r) = (outputs(&i).unwrap(), planner::optimum(&i).unwrap());
    let p = o.rules_against(&r).unwrap();
    assert_eq!(p.evaluation.config.method, Method::Improved);
    assert_eq!(planner::slowdown(p, &r), 1.0);
    // X24 on 25 Gb/s Ethernet: the optimum is improved-unpartitioned; the
    // fastest rules' plan is at least as slow.
    let (i, _) = Inputs::from_query("assume=paper&model=x24&net=ethernet-25");
    let (o, r) = (outputs(&i).unwrap(), planner::optimum(&i).unwrap());
    assert_eq!(
        r.best.evaluation.config.method,
        Method::ImprovedUnpartitioned
    );
    let p = o.rules_against(&r).unwrap();
    let fastest = o
        .plans
        .iter()
        .filter_map(|(_, p)| p.as_ref().ok())
        .map(|p| p.evaluation.time.0)
        .fold(f64::INFINITY, f64::min);
    assert_eq!(p.evaluation.time.0, fastest);
    assert!(planner::slowdown(p, &r) > 1.0);
}

/// Plans of any size get a schedule the page can simulate within a frame,
/// with about the plan's bubble; a too-deep custom model gets an error, not
/// a freeze.
#[test]
fn page_schedules_stay_small_and_keep_the_bubble() {
    let mut cases = 0;
    for node in [Some(1), Some(8), Some(16), Some(72), None] {
        for x in [8u32, 64, 160, 344, 530, 814, 1200, 2048, 4096] {
            for method in [Method::Baseline, Method::Improved, Method::Partitioned] {
                let i = Inputs {
                    model: ModelChoice::X(x),
                    node,
                    method: Some(method),
                    ..paper_inputs()
                };
                let Ok(o) = outputs(&i) else { continue };
                let Some(p) = o.selected(method) else {
                    continue;
                };
                let c = p.evaluation.config;
                let (s, shown) = plan_schedule(&o.model, &o.hardware, p).unwrap();
                let ops = 2 * u64::from(s.spec.layers) * u64::from(s.spec.micro_batches);
                assert!(
                    ops <= planner::MAX_PAGE_OPS,
                    "X{x} {node:?} {method:?}: {ops}"
                );
                assert_eq!(
                    (shown.devices.1, shown.micro_batches.1),
                    (c.pipe, c.micro_batches)
                );
                assert_eq!(
                    (shown.devices.0, shown.micro_batches.0),
                    (s.spec.devices, s.spec.micro_batches)
                );
                if c.pipe > 1 && c.micro_batches >= c.pipe {
                    // Compare the formulas' bubbles of the plan and of what
                    // is shown (the simulation matches the formula, see
                    // the schedule tests).
                    let (pl, pn, pd) = (
                        f64::from(c.pipe),
                        f64::from(c.micro_batches),
                        f64::from(o.model.layers),
                    );
                    let (sl, sn, sd) = (
                        f64::from(s.spec.devices),
                        f64::from(s.spec.micro_batches),
                        f64::from(s.spec.layers),
                    );
                    let (want, got) = if c.method.layered() {
                        ((pl - 1.0) * pl / (pn * pd), (sl - 1.0) * sl / (sn * sd))
                    } else {
                        ((pl - 1.0) / pn, (sl - 1.0) / sn)
                    };
                    assert!(
                        (got - want).abs() <= 0.1 * want + 0.01,
                        "X{x} {node:?} {method:?} {c:?}: bubble {got} shown vs {want}"
                    );
                    cases += 1;
                }
            }
        }
    }
    assert!(cases > 20, "{cases} pipelined cases");
    // A custom model of a million layers: no schedule fits the page.
    let i = Inputs {
        model: ModelChoice::Custom(CustomShape {
            seq_len: 2048,
            heads: 16,
            head_size: 64,
            layers: 1_000_000,
            ffn: None,
            kv_heads: None,
            vocab: None,
            gated: false,
            experts: None,
            top_k: None,
            expert_ffn: None,
            shared: None,
            dense: None,
        }),
        method: Some(Method::Baseline),
        parallelism: Parallelism::Data,
        ..paper_inputs()
    };
    let o = outputs(&i).unwrap();
    let p = o.selected(Method::Baseline).unwrap();
    assert!(matches!(
        plan_schedule(&o.model, &o.hardware, p),
        Err(Error::OutOfRange {
            what: "schedule operations",
            ..
        })
    ));
}

#[test]
fn schedule_comparisons_by_name() {
    // Every comparison the name knows is in the list.
    assert_eq!(Comparison::ALL.len(), 6);
    for c in Comparison::ALL {
        let (i, n) = Inputs::from_query(&format!("cmp={}", c.name()));
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(i.compare, c);
        assert_eq!(Inputs::from_query(&i.to_query()).0.compare, c);
    }
    let (i, n) = Inputs::from_query(
        "model=gpt-3&gpu=h100-sxm&cluster=1024&assume=practice&zb=1&cmp=dualpipe",
    );
    assert!(n.is_empty(), "{n:?}");
    assert_eq!(i.compare, Comparison::DualPipe);
    assert!(i.zero_bubble);
    assert_eq!(Inputs::from_query("cmp=zb-v").0.compare, Comparison::ZbV);
}

/// A ZB-V plan (Llama 3.1 405B, PP16, 32 micro-batches) is drawn as ZB-V:
/// scaled down, it keeps its shape (2p equal stages, at least 2p − 1
/// micro-batches) and half ZB-H1's bubble at the shape shown.
#[test]
fn a_zb_v_plan_is_drawn_as_zb_v() {
    use plan3d_core::cost::{evaluate_with, Assumptions, PipelineSchedule, Zero};
    use plan3d_core::schedule::ScheduleKind;
    let (i, _) =
        Inputs::from_query("model=llama-3.1-405b&gpu=h100-sxm&cluster=1024&assume=practice");
    let o = outputs(&i).unwrap();
    let hw = o.hardware;
    let cfg = |s| plan3d_core::Config {
        data: 8,
        pipe: 16,
        tensor: 8,
        micro_batch: 1,
        micro_batches: 32,
        activation: ActivationModel::Full,
        sequence_parallel: true,
        zero: Zero::One,
        pipeline_schedule: s,
        ..plan3d_core::Config::default()
    };
    let draw = |s| {
        let evaluation = evaluate_with(&o.model, &hw, &cfg(s), &Assumptions::PRACTICE).unwrap();
        let plan = plan3d_core::search::Plan {
            method: Method::Baseline,
            parallelism: Parallelism::ThreeD,
            evaluation,
            binding: plan3d_core::search::Bindings::default(),
        };
        plan_schedule(&o.model, &hw, &plan).unwrap()
    };
    let (v, shown) = draw(PipelineSchedule::ZbV);
    assert_eq!(v.spec.kind, ScheduleKind::ZbV);
    assert_eq!(shown.devices.1, 16);
    let p = v.spec.devices;
    assert_eq!(v.spec.layers % (2 * p), 0);
    assert!(v.spec.micro_batches + 1 >= 2 * p);
    let (h, _) = draw(PipelineSchedule::ZbH1);
    assert_eq!(h.spec.kind, ScheduleKind::ZbH1);
    assert!(
        v.bubble_fraction < h.bubble_fraction,
        "{} vs {}",
        v.bubble_fraction,
        h.bubble_fraction
    );
}

/// A practice plan is animated with the practice evaluator's times and
/// memory, not the paper's perfect kernels: the page said "one step:
/// 4.18 s" beside Llama 3.1 405B's 6.11 s plan on 16 384 H100s. The
/// simulated step is now the evaluated one, up to the exposed
/// data-parallel traffic, which the simulation overlaps with the drain
/// where the estimate charges all but one micro-batch's window; GPU 0's
/// simulated peak is the plan's stage-0 memory, up to the interleaved
/// schedule's in-flight count.
#[test]
fn a_practice_plan_is_drawn_with_its_own_step_and_memory() {
    let mut checked = 0;
    for q in [
        "model=llama-3.1-405b&gpu=h100-sxm&node=8&cluster=16384&batch=2048",
        // A batch drawn whole (the batch law's is drawn scaled down).
        "model=gpt-3&gpu=a100-80gb&node=8&gpus=1024&batch=1536",
    ] {
        let (i, _) = Inputs::from_query(q);
        assert!(i.practice());
        let o = outputs(&i).unwrap();
        for (method, plan) in &o.plans {
            let p = plan.as_ref().unwrap();
            let (s, shown) = plan_schedule(&o.model, &o.hardware, p).unwrap();
            assert!(shown.whole(), "{q} {method:?}");
            let e = &p.evaluation;
            let data = e.step_parts.unwrap().data;
            assert!(
                (s.makespan - e.step.0).abs() <= 0.12 * e.step.0 + data,
                "{q} {method:?}: simulated {} s vs evaluated {} s ({data} s data exposed)",
                s.makespan,
                e.step.0
            );
            let stage0 = e.stages.iter().next().unwrap().total().0;
            let peak = s.memory_peak[0];
            assert!(
                (peak / stage0 - 1.0).abs() < 0.01,
                "{q} {method:?}: simulated peak {peak} vs stage 0 {stage0}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
}
