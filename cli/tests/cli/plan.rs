//! `plan3d plan`: the rules, the exhaustive search, constraints, errors.

use super::*;

#[test]
fn plan_rules_and_exhaustive() {
    let v = json_words("plan --model x160 --method improved --parallelism 3d");
    assert_eq!(f(&v, "gpus"), 38640.0);
    assert_eq!(
        (f(&v, "data"), f(&v, "pipe"), f(&v, "tensor")),
        (483.0, 5.0, 16.0)
    );
    assert_eq!(v["search"], "rules");
    assert_eq!(v["parallelism"], "3d");
    let binding: Vec<&str> = v["binding"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    assert!(binding.iter().any(|b| b.contains("eq. 9")), "{binding:?}");
    // Same fields as evaluate.
    for k in [
        "batch",
        "micro_batch",
        "micro_batches",
        "offload",
        "efficiency",
        "days",
        "overheads",
        "memory",
    ] {
        assert!(!v[k].is_null(), "{k}");
    }
    let x = json_words("plan --model x160 --method any --search exhaustive");
    assert_eq!(f(&x, "gpus"), 38640.0);
    assert_eq!(f(&x["rules"], "slowdown"), 1.0);
    let pareto = x["pareto"].as_array().unwrap();
    assert!(pareto.len() >= 3);
    assert!(pareto
        .windows(2)
        .all(|w| f(&w[0], "days") <= f(&w[1], "days")));
    assert!(f(&x, "evaluated") > 0.0);
}

#[test]
fn plan_constraints() {
    // Table 6.3: the 3d baseline within a month needs 10240 GPUs.
    let v = json_words("plan --model x160 --method baseline --target-days 31");
    assert_eq!(f(&v, "gpus"), 10240.0);
    let v = json_words("plan --model x160 --method improved --max-gpus 1000");
    assert!(f(&v, "gpus") <= 1000.0);
    let v = json_words("plan --model x160 --method improved --batch 1000");
    assert!(f(&v, "batch") <= 1000.0);
    let v = json_words("plan --model x160 --method improved --tensor 8");
    assert_eq!(f(&v, "tensor"), 8.0);
    let v = json_words("plan --model x160 --method any --search exhaustive --gpus 7728");
    assert_eq!(f(&v, "gpus"), 7728.0);
    let eth = json_words("plan --model x160 --method improved --network ethernet");
    assert_eq!(f(&eth, "micro_batches"), 37.0);
    let small = json_words("plan --model x64 --method baseline --parallelism data --gpu-memory 40");
    assert_eq!(small["offload"], true);
}

#[test]
fn plan_and_sweep_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["plan", "--model", "x160", "--parallelism", "4d"],
            "unknown parallelism",
        ),
        (
            &["plan", "--model", "x160", "--search", "magic"],
            "unknown search",
        ),
        (
            &["plan", "--model", "x160", "--method", "any"],
            "the rules need a method",
        ),
        (
            &["plan", "--model", "x160", "--target-days=-1"],
            "target days",
        ),
        (
            &["plan", "--model", "x160", "--max-gpus", "0"],
            "GPU budget",
        ),
        (
            &["plan", "--model", "x160", "--gpu-memory", "0"],
            "GPU memory",
        ),
        (
            &[
                "plan",
                "--model",
                "x160",
                "--parallelism",
                "data",
                "--tensor",
                "8",
            ],
            "tensor",
        ),
        (&["sweep", "--from", "1e12", "--to", "1e9"], "sweep end"),
        (&["sweep", "--points", "0"], "sweep points"),
    ];
    assert_errors(cases);
}

/// `plan --timeline`: the plan found, as the page animates it. GPT-3
/// under the paper's rules: the improved method's modular pipeline over
/// the plan's own stages and micro-batches, the plan's step as the
/// estimate; under practice on 1 024 A100s, the search's plan with its
/// setting's durations (its simulated step within 10 % of the estimate).
#[test]
fn plan_timeline_draws_the_plan_found() {
    for line in [
        "plan --model gpt-3",
        "plan --model gpt-3 --assumptions practice --gpu a100-80gb --node-size 8 --max-gpus 1024",
    ] {
        let p = json_words(line);
        let t = timeline_json(line);
        assert_eq!(f(&t, "plan_devices"), f(&p, "pipe"), "{line}");
        assert_eq!(
            f(&t, "plan_micro_batches"),
            f(&p, "micro_batches"),
            "{line}"
        );
        assert_eq!(
            f(&t, "estimated_step_seconds"),
            f(&p, "step_seconds"),
            "{line}"
        );
        let err = f(&t, "makespan") / f(&p, "step_seconds") - 1.0;
        assert!(err.abs() < 0.1, "{line}: {err}");
    }
    assert_eq!(
        json_words("plan --model gpt-3")["method"],
        "improved",
        "the paper's default method"
    );
    let text = plan3d_words("plan --model gpt-3 --timeline ascii");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("modular schedule: makespan"), "{text}");
}
