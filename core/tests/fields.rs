//! Every input answered where it was typed: a layout no plan can honour is
//! said beside its field in the headline's words (not in the search's
//! internal words), and a mistyped URL key is named with the key it
//! likely means.

use plan3d_core::{
    planner::{self, outputs},
    state::Inputs,
};

/// The refusal `planner::corrections` says beside the field, as the page
/// shows it.
fn refusal(query: &str) -> Vec<String> {
    let (i, n) = Inputs::from_query(query);
    assert!(n.is_empty(), "{query}: {n:?}");
    let o = outputs(&i).unwrap();
    planner::corrections(&i, &o)
        .iter()
        .filter(|n| n.refused)
        .map(ToString::to_string)
        .collect()
}

const META: &str = "assume=practice&model=llama-3.1-405b&gpu=h100-sxm&node=8";

#[test]
fn a_layout_no_plan_can_honour_is_said_at_its_field() {
    // A tensor degree that does not divide the key/value heads, and one
    // above the node.
    assert_eq!(
        refusal(&format!("{META}&tp=16")),
        ["tp=16 has no plan: tensor-parallel degree (16) must divide key/value heads (8)"]
    );
    let above = refusal("assume=practice&model=gpt-3&gpu=h100-sxm&node=8&tp=16");
    assert_eq!(above.len(), 1, "{above:?}");
    assert!(above[0].starts_with("tp=16 has no plan: "), "{above:?}");
    assert!(above[0].contains("node"), "{above:?}");
    // A layout larger than the cluster: said at the data degree.
    let r = refusal(&format!("{META}&tp=8&pp=16&dp=256&gpus=16384"));
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(
        r[0].starts_with("dp=256 has no plan: the fixed degrees' product"),
        "{r:?}"
    );
    assert!(r[0].contains("32768"), "{r:?}");
    // Virtual stages without a pipeline: the reason, not "with method
    // improved".
    assert_eq!(
        refusal(&format!("{META}&vp=3&pp=1")),
        ["vp=3 has no plan: virtual stages need a pipeline (pipe above 1)"]
    );
    // Meta's layout itself is honoured: nothing said.
    assert!(refusal(&format!("{META}&tp=8&pp=16&dp=128&batch=2048")).is_empty());
    // The field's own notes carry it (the page filters them by key).
    let (i, _) = Inputs::from_query(&format!("{META}&tp=16"));
    let o = outputs(&i).unwrap();
    let c = planner::corrections(&i, &o);
    assert_eq!(c.iter().filter(|n| n.key == "tp").count(), 1);
}

/// A fixed data degree that does not divide the batch limit: the batch
/// trained is said with why, and the budget's unused GPUs by the fixed
/// degree, not by a replica count the user did not choose.
#[test]
fn a_fixed_data_degree_says_the_batch_it_trains() {
    let (i, _) = Inputs::from_query(&format!("{META}&dp=100&batch=2048&gpus=16384"));
    let o = outputs(&i).unwrap();
    let plan = planner::shown(&o, None, None).unwrap().plan;
    assert_eq!(plan.evaluation.config.data, 100);
    let trained = plan.evaluation.config.batch();
    assert!(trained < 2048 && trained % 100 == 0, "{trained}");
    let why = planner::limits(&i, &o, &plan);
    assert!(
        why.contains(&format!(
            "batch {trained} sequences trained: the largest under 2048 that 100 data-parallel \
             replicas × micro-batch {} × a whole number of micro-batches divide",
            plan.evaluation.config.micro_batch
        )),
        "{why:?}"
    );
    assert!(
        why.iter()
            .any(|w| w.contains("the data-parallel degree is fixed at 100")),
        "{why:?}"
    );
    assert!(!why.iter().any(|w| w.contains("replicas of")), "{why:?}");
}

/// The opening (Llama 3.1 405B on up to 16 384 H100s, 15.6 T tokens, no
/// batch given) plans at today's batch law, four times Meta's 16 M tokens:
/// "Why this plan" says so, with the same method's plan at Meta's batch.
#[test]
fn the_opening_says_how_it_differs_from_metas_run() {
    let i = Inputs::opening();
    let o = outputs(&i).unwrap();
    let opt = planner::practice_optimum(&i, &o).unwrap();
    let s = planner::shown(&o, None, Some(&opt)).unwrap();
    let why = planner::limits(&i, &o, &s.plan);
    let line = why
        .iter()
        .find(|l| l.contains("Meta trained at 2048 sequences (16.8 M tokens; Llama 3, arXiv 2407.21783 sec. 3.4.1)"))
        .unwrap_or_else(|| panic!("{why:?}"));
    assert!(line.contains(": at that batch "), "{line}");
    // A quarter of the batch trains no faster: more steps, each with less
    // work per GPU to hide its communication and bubble behind.
    let days: f64 = line
        .split("takes ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(days >= s.plan.evaluation.time.days() - 0.05, "{line}");
    let (at, _) = Inputs::from_query(&format!("{}&batch=2048", i.to_query()));
    let ao = outputs(&at).unwrap();
    let p = ao.selected(s.plan.method).unwrap();
    // With the batch given, nothing to compare.
    assert!(planner::published_batch_plan(&at, &ao, p).is_none());
}

/// The animation's step and the plan's differ where the simulation
/// overlaps what the estimate charges as exposed; the page says so with
/// both figures.
#[test]
fn the_simulated_step_says_why_it_differs_from_the_estimate() {
    let (i, _) = Inputs::from_query("assume=practice&model=x160");
    let o = outputs(&i).unwrap();
    let opt = planner::practice_optimum(&i, &o).unwrap();
    let s = planner::shown(&o, None, Some(&opt)).unwrap();
    let (sched, shown) = planner::plan_schedule(&o.model, &o.hardware, &s.plan).unwrap();
    let e = &s.plan.evaluation;
    let gap = (sched.makespan / e.step.0 - 1.0).abs();
    // X160's plan (DP 5120 × PP 8 × TP 16): the estimate charges ~2 s of
    // data-parallel reduction that the simulation hides.
    assert!(shown.whole() && gap > 0.02, "{gap}");
    let words = planner::step_gap(e, &sched, &shown).unwrap();
    let parts = e.step_parts.unwrap();
    assert!(
        words.starts_with(&format!(
            "the plan's estimate is {} s: it charges ",
            plan3d_core::round_sig(e.step.0, 3)
        )),
        "{words}"
    );
    assert!(
        words.contains(&format!(
            "({} s of it data-parallel)",
            plan3d_core::round_sig(parts.data, 3)
        )),
        "{words}"
    );
}

/// A target time binds the training days, and says so: the whole run's
/// wall clock (checkpoints, interruptions) may pass it.
#[test]
fn a_target_time_says_what_it_binds() {
    let (i, _) = Inputs::from_query(&format!("{META}&days=90&tokens=15.6T"));
    let o = outputs(&i).unwrap();
    let opt = planner::practice_optimum(&i, &o).unwrap();
    let s = planner::shown(&o, None, Some(&opt)).unwrap();
    assert!(s.plan.evaluation.time.days() <= 90.0);
    let why = planner::limits(&i, &o, &s.plan);
    assert!(
        why.iter().any(
            |w| w.starts_with("target 90 days of training: the fewest GPUs")
                && w.contains("which the target does not bind")
        ),
        "{why:?}"
    );
}

/// The opening's dot sits above the scaling chart's lines: the note says
/// why (Llama's 8 192-token sequences against X128's 2 048).
#[test]
fn the_scaling_note_says_why_a_dot_is_off_the_lines() {
    let note = planner::scaling_offset(&Inputs::opening()).unwrap();
    assert!(
        note.contains("(2048 at this size, X128); this model's are 8192 tokens"),
        "{note}"
    );
    assert!(
        note.contains("4× fewer sequences") && note.contains("sits above"),
        "{note}"
    );
    let (x, _) = Inputs::from_query("assume=practice&model=x128");
    assert!(planner::scaling_offset(&x).is_none());
}

/// Rows that differ only in name say what makes each its method: what it
/// shards over its replicas, and that a ZeRO-3 gathered once per step
/// holds its weights through the step.
#[test]
fn each_row_says_what_it_shards() {
    let (i, _) = Inputs::from_query("assume=practice&model=gpt-3&gpu=h100-sxm&node=8&gpus=1024");
    let o = outputs(&i).unwrap();
    let why = |m: plan3d_core::Method| {
        let p = o.selected(m).unwrap();
        (
            p.evaluation.config,
            planner::practice_why(&p.evaluation, &o.hardware).join(" | "),
        )
    };
    let (mega, w) = why(plan3d_core::Method::Baseline);
    assert!(mega.data > 1);
    assert!(
        w.contains("ZeRO-1 (the distributed optimizer): optimizer states sharded")
            || w.contains("ZeRO-2:")
            || w.contains("no ZeRO:"),
        "{w}"
    );
    let (fsdp, w) = why(plan3d_core::Method::Partitioned);
    assert!(fsdp.data > 1);
    assert!(
        w.contains("ZeRO-3 / FSDP: weights, gradients and optimizer states sharded, the weights gathered for each micro-batch")
            || w.contains("held through its micro-batches (as much weight memory as ZeRO-2"),
        "{w}"
    );
    // One replica: nothing to shard, said so.
    let (one, _) =
        Inputs::from_query("assume=practice&model=llama-3.1-8b&gpu=h100-sxm&node=8&gpus=8&tp=8");
    let oo = outputs(&one).unwrap();
    let p = oo.selected(plan3d_core::Method::Baseline).unwrap();
    assert_eq!(p.evaluation.config.data, 1);
    let w = planner::practice_why(&p.evaluation, &oo.hardware).join(" | ");
    assert!(w.contains("one replica: nothing to shard"), "{w}");
}
