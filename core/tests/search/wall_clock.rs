//! The practice search's objective is the whole run's wall-clock time
//! (interruptions and checkpoints included): against brute force over
//! every GPU count under a budget, and on GPT-3 without one.

use plan3d_core::cost::assumptions::Assumptions;
use plan3d_core::run::{self, Failures, Objective, RunSettings};
use plan3d_core::search::practice::{practice, practice_methods};
use plan3d_core::search::{Constraints, Parallelism, Space};
use plan3d_core::{hardware, model, Hardware, Network};

/// Interruptions so frequent (one per GPU every 50 hours, an hour to
/// restart) that a small model's fastest layout is not its largest.
const FLAKY: Failures = Failures {
    interruptions_per_gpu_hour: 0.02,
    checkpoint_bytes_per_s: 1e9,
    async_checkpoint: false,
    restart_seconds: 3600.0,
};

/// Under a budget of 64 GPUs the search returns the layout whose run ends
/// first of every layout brute force finds on 1 to 64 GPUs; with free
/// interruptions the fastest training takes more GPUs.
#[test]
fn the_search_ends_the_run_first_of_every_gpu_count() {
    let m = plan3d_core::ModelShape {
        vocab: Some(32_000),
        ..model::classic(2048, 16, 128, 8)
    };
    let hw = Hardware {
        gpu: hardware::H100_SXM,
        node_size: Some(8),
        network: Network::InfiniBand400,
        ..Hardware::default()
    };
    let a = Assumptions {
        tokens: Some(2e10),
        ..Assumptions::PRACTICE
    };
    let batch = 64;
    let space = Space {
        global_batch: Some(batch),
        ..Space::default()
    };
    let search = |failures: Failures| {
        let c = Constraints {
            max_gpus: Some(64),
            failures,
            ..Constraints::default()
        };
        practice(&m, &hw, Parallelism::ThreeD, &c, &space, &a)
            .unwrap()
            .best
            .evaluation
    };
    let o = Objective::new(&m, &hw, &a, FLAKY);
    let found = search(FLAKY);
    let brute = (1..=64u64)
        .filter_map(|g| super::practice::brute(&m, &hw, g, batch, &a))
        .map(|e| (o.seconds(&e), e.gpus))
        .min_by(|x, y| x.0.total_cmp(&y.0))
        .unwrap();
    let wall = o.seconds(&found);
    println!(
        "search {} GPUs, {wall:.1} s; brute force {} GPUs, {:.1} s",
        found.gpus, brute.1, brute.0
    );
    assert!(
        (wall - brute.0).abs() <= 1e-9 * brute.0,
        "{wall} vs {brute:?}"
    );
    let fastest = search(Failures {
        interruptions_per_gpu_hour: 0.0,
        ..FLAKY
    });
    assert!(
        fastest.gpus > found.gpus,
        "{} vs {}",
        fastest.gpus,
        found.gpus
    );
    assert!(fastest.time.0 < found.time.0);
}

/// GPT-3 on A100s with no GPU budget: the layout that trains fastest
/// (245 760 GPUs) runs 13 days at 9 % goodput under Llama 3's
/// interruption rate; the search now plans one whose run ends days
/// earlier on half the GPUs or fewer, and its objective is the run's own
/// wall time ([`run::run`], no ramp).
#[test]
fn gpt3_without_a_budget_plans_the_run_that_ends_first() {
    let m = model::GPT_3;
    let hw = Hardware {
        gpu: hardware::A100_80GB,
        ..Hardware::default()
    };
    let a = Assumptions::PRACTICE;
    let plan = |failures: Failures| {
        let c = Constraints {
            failures,
            ..Constraints::default()
        };
        practice_methods(
            &m,
            &hw,
            Parallelism::ThreeD,
            &c,
            &Space::default(),
            &a,
            a.framework.shipped(),
        )
        .unwrap()
        .best
        .evaluation
    };
    let ends_first = plan(Failures::default());
    let trains_fastest = plan(Failures {
        interruptions_per_gpu_hour: 0.0,
        ..Failures::default()
    });
    let s = RunSettings::default();
    let wall = |e: &plan3d_core::Evaluation| run::run(&m, &hw, &e.config, &a, &s).unwrap();
    let (w, f) = (wall(&ends_first), wall(&trains_fastest));
    println!(
        "ends first: {} GPUs, {:.1} days ({:.1} training, goodput {:.0} %); trains fastest: {} GPUs, {:.1} days ({:.1}, {:.0} %)",
        w.gpus,
        w.wall_days(),
        w.ideal_days(),
        100.0 * w.goodput,
        f.gpus,
        f.wall_days(),
        f.ideal_days(),
        100.0 * f.goodput
    );
    assert!(
        w.wall_days() < 0.5 * f.wall_days(),
        "{} vs {}",
        w.wall_days(),
        f.wall_days()
    );
    assert!(2 * w.gpus <= f.gpus);
    let o = Objective::new(&m, &hw, &a, Failures::default());
    assert!((o.seconds(&ends_first) - w.wall_seconds).abs() <= 1e-9 * w.wall_seconds);
}

/// `plan`'s JSON says the wall clock its search minimised (`wall_days`,
/// `goodput`), the same `run` reports for the plan it finds, with `plan`'s
/// defaults and with a `run` request's own failure settings; `paper`
/// says none. (The requests read as JSON: with `serde`.)
#[cfg(feature = "serde")]
#[test]
fn the_plan_report_says_the_wall_clock_the_search_minimised() {
    use plan3d_core::api::{self, request::PlanRequest, request::RunRequest};
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs();
    for (text, interruptions) in [
        (
            r#"{"model":"gpt-3","gpu":"a100-80gb","assumptions":"practice"}"#,
            None,
        ),
        (
            r#"{"model":"llama-3.1-405b","gpu":"h100-sxm","network":"infiniband-400","max_gpus":16384,"assumptions":"practice"}"#,
            None,
        ),
        (
            r#"{"model":"gpt-3","gpu":"a100-80gb","assumptions":"practice"}"#,
            Some(1e-4),
        ),
    ] {
        let plan: PlanRequest = api::json::request(text).unwrap();
        let run = RunRequest {
            plan: plan.clone(),
            interruptions_per_gpu_hour: interruptions,
            ..RunRequest::default()
        };
        let r = api::run(&run).unwrap();
        let (wall, goodput) = (r.plan.wall_days.unwrap(), r.plan.goodput.unwrap());
        assert!(
            close(wall, r.wall_days),
            "{text}: {wall} vs {}",
            r.wall_days
        );
        assert!(
            close(goodput, r.goodput),
            "{text}: {goodput} vs {}",
            r.goodput
        );
        if interruptions.is_none() {
            let p = api::plan(&plan).unwrap();
            assert_eq!(p.wall_days, Some(wall), "{text}");
            assert!(goodput < 1.0 && close(p.evaluation.days / wall, goodput));
        }
    }
    let paper: PlanRequest =
        api::json::request(r#"{"model":"gpt-3","assumptions":"paper"}"#).unwrap();
    let p = api::plan(&paper).unwrap();
    assert_eq!((p.wall_days, p.goodput), (None, None));
}
