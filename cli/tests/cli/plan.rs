//! `plan3d plan`: the rules, the exhaustive search, constraints, errors.

use super::*;

#[test]
fn plan_rules_and_exhaustive() {
    let v = json_words("plan --assumptions paper --model x160 --method improved --parallelism 3d");
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
    let x = json_words("plan --assumptions paper --model x160 --method any --search exhaustive");
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
    let v = json_words("plan --assumptions paper --model x160 --method baseline --target-days 31");
    assert_eq!(f(&v, "gpus"), 10240.0);
    let v = json_words("plan --assumptions paper --model x160 --method improved --max-gpus 1000");
    assert!(f(&v, "gpus") <= 1000.0);
    let v = json_words("plan --assumptions paper --model x160 --method improved --batch 1000");
    assert!(f(&v, "batch") <= 1000.0);
    let v = json_words("plan --assumptions paper --model x160 --method improved --tensor 8");
    assert_eq!(f(&v, "tensor"), 8.0);
    let v = json_words(
        "plan --assumptions paper --model x160 --method any --search exhaustive --gpus 7728",
    );
    assert_eq!(f(&v, "gpus"), 7728.0);
    let eth =
        json_words("plan --assumptions paper --model x160 --method improved --network ethernet");
    assert_eq!(f(&eth, "micro_batches"), 37.0);
    let small = json_words(
        "plan --assumptions paper --model x64 --method baseline --parallelism data --gpu-memory 40",
    );
    assert_eq!(small["offload"], true);
}

#[test]
fn plan_and_sweep_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "plan",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--parallelism",
                "4d",
            ],
            "unknown parallelism",
        ),
        (
            &[
                "plan",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--search",
                "magic",
            ],
            "unknown search",
        ),
        (
            &[
                "plan",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--method",
                "any",
            ],
            "the rules need a method",
        ),
        (
            &[
                "plan",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--target-days=-1",
            ],
            "target days",
        ),
        (
            &[
                "plan",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--max-gpus",
                "0",
            ],
            "GPU budget",
        ),
        (
            &[
                "plan",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--gpu-memory",
                "0",
            ],
            "GPU memory",
        ),
        (
            &[
                "plan",
                "--assumptions",
                "paper",
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
        "plan --assumptions paper --model gpt-3",
        // A batch the page draws whole (the batch law's 15 360 sequences
        // are drawn scaled down).
        "plan --model gpt-3 --assumptions practice --gpu a100-80gb --node-size 8 --max-gpus 1024 --batch 1536",
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
        json_words("plan --assumptions paper --model gpt-3")["method"],
        "improved",
        "the paper's default method"
    );
    let text = plan3d_words("plan --assumptions paper --model gpt-3 --timeline ascii");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("modular schedule: makespan"), "{text}");
}

/// A fixed `--zero` is honoured: the method that implies ZeRO-3 leaves
/// `any`, and asking for it with another stage is refused in words.
#[test]
fn a_fixed_zero_stage_is_honoured() {
    let base = "plan --assumptions practice --model gpt-3 --gpu a100-80gb --gpus 1024";
    for z in ["0", "1", "2"] {
        let v = json_words(&format!("{base} --zero {z}"));
        assert_eq!(v["zero"], z, "--zero {z}");
        assert_eq!(v["method"], "baseline", "--zero {z}");
        assert_eq!(f(&v, "gpus"), 1024.0);
    }
    let v = json_words(&format!("{base} --zero 3-step"));
    assert_eq!(v["zero"], "3-step");
    // Meta's layout with the batch it trained at: ZeRO 1 as asked.
    let v = json_words(
        "plan --assumptions practice --model llama-3.1-405b --gpu h100-sxm --node-size 8 \
         --data 64 --pipe 16 --tensor 8 --zero 1 --global-batch 1024",
    );
    assert_eq!(
        (
            v["zero"].as_str(),
            f(&v, "data"),
            f(&v, "pipe"),
            f(&v, "tensor")
        ),
        (Some("1"), 64.0, 16.0, 8.0)
    );
    assert_errors(&[
        (
            &[
                "plan",
                "--assumptions",
                "practice",
                "--model",
                "gpt-3",
                "--method",
                "partitioned",
                "--zero",
                "1",
            ],
            "zero must be 3 or 3-step",
        ),
        (
            &[
                "plan",
                "--assumptions",
                "paper",
                "--model",
                "gpt-3",
                "--data",
                "64",
            ],
            "data is read only by the practice search",
        ),
        (
            &[
                "plan",
                "--assumptions",
                "practice",
                "--model",
                "gpt-3",
                "--tensor",
                "5",
            ],
            "tensor-parallel degree (5) must divide attention heads (96)",
        ),
        (
            &[
                "plan",
                "--assumptions",
                "practice",
                "--model",
                "gpt-3",
                "--recompute",
                "none",
                "--activations",
                "full",
            ],
            "recompute none contradicts activations full",
        ),
    ]);
}

/// "No plan" names the constraint that failed closest and the nearest
/// change, with the plan that change gives.
#[test]
fn no_plan_says_why_and_what_would_work() {
    // Llama 3.1 405B at 8 K without recomputation on 256 GPUs: memory (on
    // 16 384 it fits, as Meta's run did).
    let out = plan3d_words(
        "plan --assumptions practice --model llama-3.1-405b --gpu h100-sxm --node-size 8 \
         --recompute none --max-gpus 256",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("Closest: memory: the lightest layout tried"),
        "{err}"
    );
    assert!(err.contains("of the GPU's 80 GiB"), "{err}");
    assert!(err.contains("; with recompute "), "{err}");
    assert!(err.contains("the heaviest stage needs"), "{err}");
    // Plain PyTorch splits no model: said, and only there.
    let no_plan = |framework: &str| {
        let out = plan3d_words(&format!(
            "plan --model llama-3.1-70b --gpu h100-sxm --node-size 8 --max-gpus 8 \
             --framework {framework}"
        ));
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let plain = no_plan("pytorch");
    assert!(
        plain.contains("constraints of a framework that splits no model over GPUs (tensor"),
        "{plain}"
    );
    assert!(!no_plan("megatron-core").contains("splits no model"));
    // A fixed micro-batch outside 1-8 is honoured, not silently dropped.
    let v = json_words(
        "plan --assumptions practice --model llama-3.1-8b --gpu h100-sxm --node-size 8 \
         --gpus 64 --micro-batch 3 --global-batch 768",
    );
    assert_eq!(f(&v, "micro_batch"), 3.0);
}

/// Without `--method`, a plan keeps to the methods its framework ships:
/// plain PyTorch's DDP (nothing sharded), Megatron-LM 2022's
/// Megatron-style layout with at most ZeRO-1, torchtitan's and PyTorch
/// FSDP's ZeRO-3; where none of them has a plan the answer is another
/// method's, and a line says which had none and why.
#[test]
fn a_plan_keeps_to_the_framework() {
    let base = "plan --model llama-3.1-8b --gpu h100-sxm --node-size 8 --gpus 8";
    let v = json_words(
        "plan --model mistral-7b --seq-len 1024 --gpu h200 --node-size 8 --gpus 8 --framework pytorch",
    );
    assert_eq!(
        (v["method"].as_str(), v["zero"].as_str()),
        (Some("baseline"), Some("0"))
    );
    let v = json_words(&format!("{base} --framework megatron-2022"));
    assert_eq!(
        (v["method"].as_str(), v["zero"].as_str()),
        (Some("baseline"), Some("1"))
    );
    for fw in ["torchtitan", "pytorch-fsdp"] {
        let v = json_words(&format!("{base} --framework {fw}"));
        assert_eq!(v["method"], "partitioned", "{fw}");
    }
    // DDP would need 138 GiB a GPU: FSDP's plan, said as such.
    let v = json_words(&format!("{base} --framework pytorch"));
    assert_eq!(v["method"], "partitioned");
    let out = plan3d_words(&format!("{base} --framework pytorch"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("plain PyTorch AMP has no plan with data parallel (DDP): memory:")
            && text.contains("this is the fastest plan of a method it does not ship"),
        "{text}"
    );
    assert!(text.contains("\ndata parallel (DDP) "), "{text}");
    // The lightest layout tried is DDP's, named so (it said "Megatron-style").
    assert!(text.contains(", data parallel (DDP)) needs"), "{text}");
    // An explicit method keeps meaning what it meant.
    let v = json_words(&format!(
        "{base} --framework pytorch-fsdp --method baseline"
    ));
    assert_eq!(v["method"], "baseline");
}

/// With no plan of any method, the explanation keeps to the framework: its
/// fix is a plan the framework ships, the one the search finds with that
/// change made, never the paper's proposal (it had said 36.4 days, the
/// layered + modular plan, where torchtitan's FSDP takes 40.6).
#[test]
fn a_no_plan_fix_keeps_to_the_framework() {
    let base = "plan --framework torchtitan --model llama-3.1-405b --gpu h100-sxm --gpus 16384 \
                --seq-len 8192 --tensor 8 --pipe 16 --data 128 --micro-batch 1 \
                --global-batch 2048 --network roce-400 --compile";
    let out = plan3d_words(&format!("{base} --recompute none"));
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stderr);
    let days = text
        .split("a plan trains in ")
        .nth(1)
        .and_then(|t| t.split(" days").next())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(text.contains("with recompute selective"), "{text}");
    let v = json_words(&format!("{base} --recompute selective"));
    assert_eq!(v["method"], "partitioned");
    assert_eq!(days, format!("{:.1}", f(&v, "days")), "{text}");
}

/// The search keeps Megatron-Core's default group of p micro-batches (a
/// batch of 40 micro-batches on 16 stages runs plain 1F1B), and a group
/// given interleaves it (`--microbatch-group 20`: two groups of 20).
#[test]
fn a_microbatch_group_lets_any_batch_interleave() {
    let base = "plan --model llama-3.1-405b --gpu h100-sxm --node-size 8 --gpus 8192 \
                --seq-len 8192 --tensor 8 --pipe 16 --global-batch 2560";
    let v = json_words(base);
    assert_eq!(
        (
            f(&v, "micro_batches"),
            f(&v, "virtual_stages"),
            f(&v, "microbatch_group")
        ),
        (40.0, 1.0, 0.0)
    );
    let v = json_words(&format!("{base} --microbatch-group 20"));
    assert_eq!(
        (f(&v, "micro_batches"), f(&v, "microbatch_group")),
        (40.0, 20.0)
    );
    assert!(f(&v, "virtual_stages") > 1.0);
    let out = plan3d_words(&format!("{base} --microbatch-group 20"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("micro-batches in groups of 20"));
}

/// A network faster than the GPU's PCIe link runs at the link's rate, and
/// the answers say so under their headline (the page beside its network
/// field): an A100's PCIe 4.0 carries 271 Gb/s of InfiniBand 400.
#[test]
fn a_network_the_pcie_link_caps_is_said() {
    let line = "Network: infiniband-400 runs at 271 Gb/s per GPU here: the GPU's PCIe link to its network card is slower.";
    for cmd in [
        "plan --model gpt-3 --gpu a100-80gb --network infiniband-400 --max-gpus 1024 --assumptions practice",
        "evaluate --model gpt-3 --gpu a100-80gb --network infiniband-400 --data 8 --pipe 8 --tensor 8",
    ] {
        let out = plan3d_words(cmd);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.lines().nth(1) == Some(line), "{cmd}: {text}");
    }
    let out = plan3d_words("evaluate --model gpt-3 --gpu a100-80gb --data 8 --pipe 8 --tensor 8");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Network:"));
}

/// A network left at its default, the paper's 200 Gb/s, is said under
/// the headline where the GPU's clusters are built faster and the plan
/// may leave its node; not where it is given, nor within one node, nor
/// for the A100 the default was measured on.
#[test]
fn a_default_network_slower_than_the_gpus_usual_one_is_said() {
    let said = |cmd: &str| {
        let out = plan3d_words(cmd);
        assert!(out.status.success(), "{cmd}");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines().nth(1).unwrap_or_default().to_string()
    };
    let h100 = "Network: InfiniBand 200 Gb/s per GPU, the default; h100-sxm clusters are usually built with InfiniBand 400 Gb/s per GPU: --network infiniband-400 plans on it.";
    assert_eq!(
        said("plan --model llama-3.1-70b --gpu h100-sxm --max-gpus 1024"),
        h100
    );
    assert_eq!(
        said("evaluate --model llama-3.1-70b --gpu h100-sxm --data 8 --pipe 2 --tensor 8 --micro-batches 16"),
        h100
    );
    assert!(
        said("plan --model llama-3.1-70b --gpu gb300 --max-gpus 1024")
            .ends_with("InfiniBand 800 Gb/s per GPU: --network infiniband-800 plans on it.")
    );
    for quiet in [
        "plan --model llama-3.1-70b --gpu h100-sxm --max-gpus 1024 --network infiniband",
        "plan --model llama-3.1-8b --gpu h100-sxm --gpus 8",
        "evaluate --model llama-3.1-8b --gpu h100-sxm --data 8",
        "plan --model llama-3.1-70b --gpu a100-80gb --max-gpus 1024",
    ] {
        assert!(!said(quiet).starts_with("Network:"), "{quiet}");
    }
}

/// The plan-per-method table stays a table when a layout is long:
/// DeepSeek-V3's "DP 64 × PP 8 × TP 4, EP 4 · ZeRO-3 per step" had pushed
/// its row's figures out of their columns.
#[test]
fn the_method_table_keeps_its_columns_for_long_layouts() {
    let out = plan3d_words(
        "plan --model deepseek-v3 --gpu h800 --network infiniband-400 --gpus 2048 --global-batch 15360 --precision fp8-blockwise",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text
        .lines()
        .skip_while(|l| !l.starts_with("plan per method"));
    let header = lines.next().expect("a table");
    let rows: Vec<&str> = lines.take_while(|l| !l.is_empty()).collect();
    assert!(rows.iter().any(|r| r.contains("ZeRO-3 per step")), "{text}");
    for r in rows.iter().filter(|r| !r.contains("no plan")) {
        assert_eq!(r.chars().count(), header.chars().count(), "{r}\n{header}");
        assert!(r.ends_with(|c: char| c.is_ascii_digit()), "{r}");
    }
}

/// Why a plan leaves GPUs of its budget idle, without a pipeline: the
/// batch binds, said without "a pipeline of 1 stages needs at least 1
/// micro-batches" or "replicas of 1 GPUs".
#[test]
fn an_idle_budget_without_a_pipeline_reads_as_the_batch() {
    let out = plan3d_words(
        "plan --model llama-3.1-405b --gpu h100-sxm --network infiniband-400 --max-gpus 16384 --framework pytorch-fsdp",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("of the budget's 16384"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("replicas of 1 GPU busy"), "{line}");
    assert!(
        !line.contains("pipeline") && !line.contains("1 GPUs"),
        "{line}"
    );
}

/// Under the batch law's limit the search also tries the most
/// micro-batches the pipeline divides, which interleave: Nemotron-4 340B
/// on ≤ 6 144 H100s trains 45 micro-batches of DP 256 × PP 3, interleaved,
/// faster than the limit's own whole count allowed (the same limit given
/// as `--batch`, trained as the largest it allows, as before), and says so.
#[test]
fn the_batch_law_lets_a_pipeline_interleave() {
    let base =
        "plan --model nemotron-4-340b --gpu h100-sxm --network infiniband-400 --max-gpus 6144";
    let law = json_words(base);
    let limit = law["binding"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|b| {
            b.as_str()?
                .strip_prefix("batch at most ")?
                .split(' ')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .unwrap();
    let given = json_words(&format!("{base} --batch {limit}"));
    let (m, p) = (
        law["micro_batches"].as_u64().unwrap(),
        law["pipe"].as_u64().unwrap(),
    );
    assert!(
        m % p == 0 && law["virtual_stages"].as_u64().unwrap() > 1,
        "{law}"
    );
    assert!(
        f(&law, "days") < f(&given, "days"),
        "{} {}",
        law["days"],
        given["days"]
    );
    assert!(law["binding"].as_array().unwrap().iter().any(|b| b
        .as_str()
        .unwrap()
        .contains("so that the schedule interleaves")));
}

/// A 1B model on one H100 under plain PyTorch: the batch line counts one
/// replica in the singular ("1 data-parallel replicas" before).
#[test]
fn one_replica_is_one_replica() {
    let out = plan3d_words(
        "plan --layers 16 --heads 32 --head-size 64 --kv-heads 8 --ffn 8192 --gated --no-biases \
         --vocab 128256 --seq-len 8192 --gpu h100-sxm --gpus 1 --framework pytorch",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(" that 1 data-parallel replica × micro-batch "),
        "{text}"
    );
    assert!(!text.contains("1 data-parallel replicas"), "{text}");
}
