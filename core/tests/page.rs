//! What the page shows for its inputs: the plan shown (the best found),
//! custom shapes, the practice headline and optimum, FP8, the scaling
//! chart, "Why this plan" and the plans CSV. (The inputs as people type
//! them, and what is said beside them: `fields.rs`; a layout given by URL:
//! `layout.rs`.)

use plan3d_core::{
    planner::{self, outputs},
    state::{Inputs, ModelChoice},
};

/// The plan shown in detail is the best one found: the search's when the
/// rules fall behind or have none, the rules' when they reach it.
#[test]
fn the_shown_plan_is_the_best_found() {
    use plan3d_core::planner::{shown, RulesVersus, Standing};
    let case = |q: &str| {
        let (i, _) = Inputs::from_query(&format!("assume=paper&{q}"));
        let o = outputs(&i).unwrap();
        let opt = planner::optimum(&i);
        (
            shown(&o, i.method, Some(&opt), &planner::METHODS),
            shown(&o, i.method, None, &planner::METHODS),
            opt,
        )
    };
    // X160 (Table 6.1): the rules find the optimum.
    let (s, _, _) = case("model=x160");
    let s = s.unwrap();
    assert!(!s.searched && s.rules == RulesVersus::Same);
    assert_eq!(s.plan.evaluation.gpus, 38_640);
    // GPT-3 within 1024 GPUs: the rules are 13 % slower than the search.
    let (s, before, opt) = case("model=gpt-3&gpus=1024");
    let s = s.unwrap();
    assert!(s.searched);
    assert_eq!(s.plan, opt.unwrap().best);
    match s.rules {
        RulesVersus::Behind(Standing::Slower(x)) => assert!((x - 1.133).abs() < 0.001, "{x}"),
        r => panic!("{r:?}"),
    }
    // Before the search answers, the rules' plan is shown.
    let before = before.unwrap();
    assert!(!before.searched && before.rules == RulesVersus::Pending);
    // The best plan found is of another method: said, not "confirmed".
    let (s, _, opt) = case("model=llama-3.1-405b&gpu=h100-sxm&node=8&gpus=16384");
    let s = s.unwrap();
    assert_eq!(
        opt.unwrap().best.method,
        plan3d_core::Method::ImprovedUnpartitioned
    );
    assert!(
        matches!(s.rules, RulesVersus::OtherMethod(plan3d_core::Method::ImprovedUnpartitioned, Standing::Slower(x)) if x > 1.0),
        "{:?}",
        s.rules
    );
    // With selective recomputation the rules have no plan for improved; the
    // search has one (the headline was blank).
    let (s, before, _) = case("model=gpt-3&gpus=1024&act=selective&method=improved");
    let s = s.unwrap();
    assert!(matches!(s.rules, RulesVersus::NoPlan(_)));
    assert!(s.plan.evaluation.gpus <= 1024);
    // Before the search answers, the fastest rules' plan of another method,
    // saying that the chosen one has none (never "no plan" while a method
    // has one).
    let before = before.unwrap();
    assert_ne!(before.plan.method, plan3d_core::Method::Improved);
    assert!(matches!(
        before.instead_of,
        Some((
            plan3d_core::Method::Improved,
            plan3d_core::Error::NoPlan { .. }
        ))
    ));
    assert!(before.plan.evaluation.gpus <= 1024);
    // With no method chosen, the fastest plan found, whichever answered.
    let (s, before, opt) = case("model=gpt-3&gpus=1024&act=selective");
    assert_eq!(s.unwrap().plan, opt.unwrap().best);
    assert!(before.unwrap().instead_of.is_none());
    // No plan at all: the advice names what to change.
    let (i, _) = Inputs::from_query("assume=paper&model=x1000");
    let o = outputs(&i).unwrap();
    let err = o.plans.iter().find_map(|(_, p)| p.as_ref().err()).unwrap();
    assert!(planner::advice(err, &i, &o.model).contains("more memory"));
    // An exact cluster wider than the critical batch can keep busy (Llama
    // 3.1 405B on Meta's 16 384 H100s: b_c = 516.1 sequences, eq. 2): the
    // search has no plan, the headline keeps the rules' capped plan and
    // says why, and the advice names the critical batch.
    let (i, _) =
        Inputs::from_query("assume=paper&model=llama-3.1-405b&gpu=h100-sxm&node=8&cluster=16384");
    let o = outputs(&i).unwrap();
    let opt = planner::optimum(&i);
    let err = opt.unwrap_err();
    let s = shown(&o, i.method, Some(&opt), &planner::METHODS).unwrap();
    assert_eq!(s.rules, RulesVersus::SearchFailed(err));
    let a = planner::advice(&err, &i, &o.model);
    assert!(a.starts_with("a larger batch"), "{a}");
    assert!(a.contains("critical batch, 516 sequences"), "{a}");
    // With the batch set, the advice is about that batch; and the batch
    // Meta trained with (2 048 sequences) does give a plan on the cluster.
    let (i, _) = Inputs::from_query(
        "assume=paper&model=llama-3.1-405b&gpu=h100-sxm&node=8&cluster=16384&batch=512",
    );
    let o = outputs(&i).unwrap();
    let err = planner::optimum(&i).unwrap_err();
    let a = planner::advice(&err, &i, &o.model);
    assert!(a.starts_with("a batch larger than 512 sequences"), "{a}");
    let (i, _) = Inputs::from_query(
        "assume=practice&model=llama-3.1-405b&gpu=h100-sxm&node=8&cluster=16384&batch=2048",
    );
    assert!(planner::optimum(&i).is_ok());
}

/// A custom shape carries a feed-forward size, key/value heads, a
/// vocabulary and a gated MLP: a Llama-3.1-8B-like shape from the URL counts
/// its published 8.03 B parameters, and switching a preset to custom keeps
/// them.
#[test]
fn custom_shapes_carry_ffn_kv_heads_vocab_and_gating() {
    let q = "model=custom&seq=8192&heads=32&head=128&layers=32&ffn=14336&kv=8&vocab=128256&gated=1";
    let (i, n) = Inputs::from_query(q);
    assert!(n.is_empty(), "{n:?}");
    assert_eq!(i.to_query(), q);
    let m = i.model.shape().unwrap();
    assert!(
        (m.params_exact() / 8.03e9 - 1.0).abs() < 0.005,
        "{}",
        m.params_exact()
    );
    let from = ModelChoice::custom_from(&plan3d_core::model::LLAMA_3_1_8B)
        .shape()
        .unwrap();
    assert_eq!(
        (from.ffn, from.kv_heads, from.vocab, from.gated_mlp),
        (14_336, 8, Some(128_256), true)
    );
    // Fields edit it, and an emptied optional field clears.
    let (mut c, _) = Inputs::from_query(q);
    c.set_field("kv", "4").unwrap();
    c.set_field("ffn", "").unwrap();
    assert_eq!(c.described("ffn"), "4 × width");
    assert!(
        c.set_field("kv", "5").is_err(),
        "5 does not divide 32 heads"
    );
    c.set_field("gated", "0").unwrap();
    assert!(!c.model.shape().unwrap().gated_mlp);
}

/// Under practice the page takes the optimum from the methods' rows it has
/// already searched: the same answer as searching again (the methods
/// frameworks ship, else the paper's proposal), at no cost.
#[test]
fn the_practice_optimum_comes_from_the_rows() {
    for q in [
        "",
        "model=llama-3.1-405b&gpu=h100-sxm&cluster=16384",
        "model=gpt-3&gpu=a100-40gb&gpus=96",
        "model=x24&net=ethernet",
        "model=llama-3.1-8b&gpu=h100-sxm&gpus=8&batch=512",
        "model=x160&gpus=3",
    ] {
        let (i, _) = Inputs::from_query(q);
        assert!(i.practice(), "{q}");
        let out = planner::outputs(&i).unwrap();
        let derived = planner::practice_optimum(&i, &out).unwrap();
        let searched = planner::optimum(&i);
        assert_eq!(
            derived.as_ref().map(|r| r.best),
            searched.as_ref().map(|r| r.best),
            "{q}"
        );
        // The rows searched the paper's proposal too.
        assert!(
            derived.map(|r| r.evaluated).ok() >= searched.map(|r| r.evaluated).ok(),
            "{q}"
        );
    }
    let (paper, _) = Inputs::from_query("assume=paper");
    let out = planner::outputs(&paper).unwrap();
    assert!(planner::practice_optimum(&paper, &out).is_none());
}

/// `prec=fp8` runs the page's practice plans with FP8 GEMMs: faster on an
/// H100; on an A100 every row says why there is no plan.
#[test]
fn the_page_takes_fp8() {
    let day = |q: &str| {
        let (i, n) = Inputs::from_query(q);
        assert!(n.is_empty(), "{n:?}");
        outputs(&i).unwrap().plans[0]
            .1
            .as_ref()
            .map(|p| p.evaluation.time.days())
            .map_err(ToString::to_string)
    };
    let bf16 = day("model=llama-3.1-70b&gpu=h100-sxm&node=8&cluster=512").unwrap();
    let fp8 = day("model=llama-3.1-70b&gpu=h100-sxm&node=8&cluster=512&prec=fp8").unwrap();
    assert!(fp8 < bf16, "{fp8} vs {bf16}");
    // On an A100 the page runs BF16 and says so beside the field (the CLI
    // refuses it); it said "see the notice above" with no notice.
    let a100 = "model=llama-3.1-70b&gpu=a100-80gb&node=8&cluster=512";
    assert_eq!(day(&format!("{a100}&prec=fp8")), day(a100));
    let (i, _) = Inputs::from_query(&format!("{a100}&prec=fp8"));
    let c = planner::corrections(&i, &outputs(&i).unwrap());
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].key, "prec");
    let text = c[0].to_string();
    assert!(
        text.contains("no FP8 tensor cores") && text.ends_with("using BF16"),
        "{text}"
    );
    assert!(
        i.to_query().ends_with("&prec=fp8"),
        "the URL keeps what was asked"
    );
}

/// Under practice the headline is the fastest plan of the methods
/// frameworks ship; the paper's proposal is a comparison; a chosen method
/// with no plan gives way to the fastest plan, saying so; the page opens on
/// Llama 3.1 405B on up to 16 384 H100s and uses at least half of them.
#[test]
fn the_practice_headline_is_the_fastest_shipped_plan() {
    use plan3d_core::planner::{proposal, shown, SHIPPED};
    use plan3d_core::Method;
    let show = |i: &Inputs| {
        let o = outputs(i).unwrap();
        let opt = planner::practice_optimum(i, &o).unwrap();
        let s = shown(&o, i.method, Some(&opt), i.shipped());
        (o, s)
    };
    // The URL: layered + modular has no plan with selective
    // recomputation; the headline has one, within the budget.
    let (i, _) = Inputs::from_query("model=gpt-3&gpus=1024&act=selective");
    assert_eq!(i.method, None);
    let (_, s) = show(&i);
    let s = s.expect("a plan");
    assert!(SHIPPED.contains(&s.plan.method));
    assert!(s.plan.evaluation.gpus <= 1024);
    assert!(s.instead_of.is_none());
    // Chosen by name, layered + modular with no plan gives way, saying why.
    let (i, _) = Inputs::from_query("model=gpt-3&gpus=1024&act=selective&method=improved");
    let (o, s) = show(&i);
    let s = s.expect("a plan");
    if o.selected(Method::Improved).is_none() {
        assert_eq!(s.instead_of.map(|(m, _)| m), Some(Method::Improved));
        assert!(SHIPPED.contains(&s.plan.method));
        let why = planner::explain(&i, &o, Some(Method::Improved)).expect("explained");
        assert!(
            matches!(why, plan3d_core::Error::NoPlan { why: Some(_), .. }),
            "{why}"
        );
    }

    // The opening: Llama 3.1 405B, up to 16 384 H100s, 15.6 T tokens.
    let (i, n) = Inputs::from_page_query("");
    assert!(n.is_empty());
    assert_eq!(i, Inputs::opening());
    assert_eq!(Inputs::from_page_query("?").0, Inputs::opening());
    // Any key: the defaults every link was written against.
    assert_eq!(
        Inputs::from_page_query("?assume=practice").0,
        Inputs::default()
    );
    let (o, s) = show(&i);
    let s = s.expect("a plan");
    assert!(SHIPPED.contains(&s.plan.method));
    assert!(s.plan.evaluation.gpus >= 8192, "{}", s.plan.evaluation.gpus);
    assert!(s.plan.evaluation.gpus <= 16_384);
    // Megatron-style and ZeRO-3 / FSDP are different plans: Megatron-style
    // replicates the weights (ZeRO ≤ 2).
    let mega = o.selected(Method::Baseline).unwrap().evaluation.config;
    let fsdp = o.selected(Method::Partitioned).unwrap().evaluation.config;
    assert!(mega.zero.stage() <= 2, "{:?}", mega.zero);
    assert_eq!(fsdp.zero.stage(), 3);
    assert_ne!(mega, fsdp);
    // The paper's proposal is faster here: said beside, not headlined.
    let improved = o.selected(Method::Improved).unwrap();
    match proposal(&o, true, &s) {
        Some((p, st)) => {
            assert_eq!(p, *improved);
            assert!(
                st.saving() >= 0.005,
                "printed as {:.0} %",
                100.0 * st.saving()
            );
        }
        // Not mentioned where it would read "(0 % faster)".
        None => assert!(improved.evaluation.time.0 >= 0.995 * s.plan.evaluation.time.0),
    }
    assert!(proposal(&o, false, &s).is_none());
    // Its URL, once written, keeps meaning the same inputs.
    let q = i.to_query();
    assert!(
        q.contains("model=llama-3.1-405b") && q.contains("gpus=16384"),
        "{q}"
    );
    assert_eq!(Inputs::from_page_query(&q).0, i);
}

/// `method`: absent or `fastest` details the fastest plan found; a name
/// details that method; the written URL says only a chosen method.
#[test]
fn the_method_key_reads_fastest_by_default() {
    use plan3d_core::Method;
    assert_eq!(Inputs::from_query("model=x160").0.method, None);
    let (i, n) = Inputs::from_query("method=fastest");
    assert!(n.is_empty());
    assert_eq!(i.method, None);
    assert!(!i.to_query().contains("method"));
    let (i, _) = Inputs::from_query("method=improved");
    assert_eq!(i.method, Some(Method::Improved));
    assert!(i.to_query().contains("method=improved"));
    assert_eq!(i.described("method"), "improved");
    assert_eq!(Inputs::default().described("method"), "fastest");
    let (_, n) = Inputs::from_query("method=best-ever");
    assert_eq!(n.len(), 1);
    assert!(n[0].reason.contains("fastest"), "{}", n[0]);
}

/// A token budget is written in the URL as people type it (`15.6e12`, not
/// `15600000000000`), and reads back exactly.
#[test]
fn the_url_writes_tokens_short() {
    for (typed, written) in [
        ("15.6T", "tokens=15.6e12"),
        ("2.87e12", "tokens=2.87e12"),
        ("300B", "tokens=300e9"),
        ("123456789", "tokens=123456789"),
    ] {
        let (mut i, _) = Inputs::from_query("model=x160");
        i.set_field("tokens", typed).unwrap();
        let q = i.to_query();
        assert!(q.contains(written), "{typed}: {q}");
        assert_eq!(Inputs::from_query(&q).0.tokens, i.tokens, "{typed}");
    }
}

/// Under practice the scaling chart is the practice search at every size,
/// on the inputs' GPU budget, each size on 20 tokens per parameter: one
/// cost model per view. A size on the chart is the plan the page shows for
/// that model (the dot lies on its line); under paper the rules, with no
/// budget, as figs. 4, 5 and 8.
#[test]
fn the_scaling_chart_follows_the_assumptions() {
    use plan3d_core::cost::AssumptionSet;
    use plan3d_core::state::ModelChoice;
    let (i, _) = Inputs::from_query("model=x160&gpu=h100-sxm&node=8&gpus=4096");
    let key = planner::scaling_key(&i);
    assert_eq!(key.max_gpus, Some(4096));
    assert_eq!(key.tokens, None);
    let rows = planner::scaling(&key).unwrap();
    assert_eq!(rows.len(), 3);
    let mut planned = 0;
    for (m, r) in &rows {
        assert!(r.len() >= 12, "{}", r.len());
        assert!(r.first().unwrap().params < 2e8 && r.last().unwrap().params > 5e12);
        for row in r {
            if let Ok(p) = &row.plan {
                planned += 1;
                assert_eq!(p.evaluation.assumptions, AssumptionSet::Practice);
                assert!(p.evaluation.gpus <= 4096);
                assert_eq!(p.method, *m);
                let want = planner::SWEEP_TOKENS_PER_PARAM * row.model.params_exact();
                assert!((p.evaluation.tokens / want - 1.0).abs() < 1e-9);
            }
        }
    }
    assert!(planned > 30, "{planned}");
    // The dot on its line: the page's plan for a size of the chart.
    let (m, r) = &rows[0];
    let row = r
        .iter()
        .find(|x| x.plan.is_ok() && x.params > 1e10)
        .unwrap();
    let at = Inputs {
        model: ModelChoice::X(row.x),
        method: Some(*m),
        ..i
    };
    let o = outputs(&at).unwrap();
    assert_eq!(o.selected(*m).unwrap(), row.plan.as_ref().unwrap());
    // Under paper: the rules, no budget, 10⁸ to 10¹⁶.
    let (p, _) = Inputs::from_query("assume=paper&model=x160&gpus=4096");
    let key = planner::scaling_key(&p);
    assert_eq!(key.max_gpus, None);
    let rows = planner::scaling(&key).unwrap();
    let r = &rows[0].1;
    assert!(r.last().unwrap().params > 1e15);
    assert!(r
        .iter()
        .filter_map(|x| x.plan.as_ref().ok())
        .all(|p| p.evaluation.assumptions == AssumptionSet::Paper));
}

/// DeepSeek-V3 on H800s with FP8: the headline's numbers carry their
/// caveat and its size (the out-of-sample check's error); Llama 3.1 70B in
/// BF16 on GB200s says its GPU is unvalidated, not sized by DeepSeek-V3;
/// Llama 3.1 405B in BF16 on H100s is validated and has none.
#[test]
fn unvalidated_numbers_say_so_and_by_how_much() {
    let show = |q: &str| {
        let (i, _) = Inputs::from_query(q);
        let o = outputs(&i).unwrap();
        let opt = planner::practice_optimum(&i, &o).unwrap_or_else(|| planner::optimum(&i));
        let s = planner::shown(&o, i.method, Some(&opt), i.shipped())?;
        planner::caveat(&s.plan.evaluation, &o.model, &o.hardware)
    };
    let c = show("model=deepseek-v3&gpu=h800&node=8&cluster=2048&batch=15360&prec=fp8").unwrap();
    assert!(c.contains("FP8 GEMMs"), "{c}");
    assert!(c.contains("experts"), "{c}");
    assert!(c.contains("h800"), "{c}");
    assert!(c.contains("3 % under its published GPU-hours"), "{c}");
    // Each recipe says what it rests on.
    let c = show("model=deepseek-v3&gpu=h800&node=8&cluster=2048&batch=15360&prec=fp8-blockwise")
        .unwrap();
    assert!(c.contains("DeepGEMM"), "{c}");
    let c = show("model=llama-3.1-70b&gpu=b200&node=8&gpus=64&prec=mxfp8").unwrap();
    assert!(c.contains("MXFP8 GEMMs") && c.contains("b200"), "{c}");
    // A dense BF16 plan on an unvalidated GPU says so, without sizing it
    // by DeepSeek-V3's FP8 mixture on H800s.
    let c = show("model=llama-3.1-70b&gpu=gb200&gpus=1152").unwrap();
    assert!(c.contains("gb200") && !c.contains("DeepSeek"), "{c}");
    assert!(show("model=llama-3.1-405b&gpu=h100-sxm&gpus=4096").is_none());
    assert!(show("assume=paper&model=deepseek-v3&gpu=h800").is_none());
}

/// The plans CSV carries what the table shows (MFU, step) and what a
/// practitioner needs to run the plan (ZeRO stage, recomputation, CP, EP,
/// virtual stages, schedule); under practice its rows say `practice`.
#[cfg(feature = "serde")]
#[test]
fn the_plans_csv_has_the_plan() {
    use plan3d_core::export;
    let (i, _) = Inputs::from_query("model=llama-3.1-405b&gpu=h100-sxm&gpus=16384&tokens=15.6T");
    let o = outputs(&i).unwrap();
    let opt = planner::practice_optimum(&i, &o).unwrap();
    let csv = export::plans_csv(&i, &o, Some(&opt));
    let mut lines = csv.lines().skip(1);
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let row: Vec<&str> = lines
        .find(|l| l.starts_with("baseline,"))
        .unwrap()
        .split(',')
        .collect();
    let e = o
        .selected(plan3d_core::Method::Baseline)
        .unwrap()
        .evaluation;
    assert_eq!(row[col("search")], "practice");
    assert!((row[col("mfu")].parse::<f64>().unwrap() - e.mfu()).abs() < 1e-9);
    assert!((row[col("step_seconds")].parse::<f64>().unwrap() - e.step.0).abs() < 1e-9);
    assert_eq!(row[col("zero")], e.config.zero.name());
    assert_eq!(row[col("recompute")], e.config.activation.name());
    assert_eq!(
        row[col("pipeline_schedule")],
        e.config.pipeline_schedule.name()
    );
    assert_eq!(
        row[col("virtual_stages")],
        e.config.virtual_stages.to_string()
    );
}

/// "Why this plan" writes small parts with two figures ("activations 0.03",
/// not "0.0" with micro-batches in flight), and one micro-batch in the
/// singular.
#[test]
fn why_this_plan_writes_small_parts_and_singulars() {
    use plan3d_core::units::{Bytes, GIB};
    assert_eq!(planner::gib_part(Bytes(0.031 * GIB)), "0.031");
    assert_eq!(planner::gib_part(Bytes(0.0)), "0"); // nothing, not "logits 0.0"
    assert_eq!(planner::gib_part(Bytes(15.76 * GIB)), "15.8");
    assert_eq!(planner::gib_part(Bytes(0.0004 * GIB)), "0.0004");
    let (i, _) = Inputs::from_query("model=llama-3.1-405b&gpu=h100-sxm&gpus=16384&tokens=15.6T");
    let o = outputs(&i).unwrap();
    for (_, p) in &o.plans {
        let Ok(p) = p else { continue };
        let why = planner::practice_why(&p.evaluation, &o.hardware).join(" | ");
        assert!(!why.contains(" 1 micro-batches"), "{why}");
        assert!(!why.contains("(1 micro-batches"), "{why}");
        let h = p.evaluation.stages.heaviest();
        if h.activations.0 > 0.0 {
            assert!(!why.contains("activations 0.0 "), "{why}");
        }
        // Where the step goes: the largest class first, with its rate.
        let line = why
            .split(" | ")
            .find(|l| l.starts_with("where the step goes: "))
            .unwrap();
        let parts = p.evaluation.step_parts.unwrap();
        let largest = parts
            .classes()
            .into_iter()
            .max_by(|a, b| a.seconds.total_cmp(&b.seconds))
            .unwrap();
        assert!(
            line["where the step goes: ".len()..].starts_with(largest.class),
            "{line}"
        );
        assert!(line.contains("Tflop/s"), "{line}");
    }
}

/// The practice scaling chart samples sizes a team would build: X[x] a
/// multiple of the largest power of two at most x/4 (at least 8). With no
/// budget, X[152] (8 · 19: few degrees divide it) found 155 648 GPUs and
/// 70 days where X[160] finds 655 360 and 24, so the line jumped 15× and
/// the default page's dot sat far below it. Now X[160] is a sampled size,
/// and the dot is its point on the line.
#[test]
fn the_scaling_line_samples_sizes_with_many_divisors() {
    use plan3d_core::search::sweep_x;
    for (x, want) in [
        (24.3, 24),
        (40.0, 40),
        (71.0, 64),
        (100.0, 96),
        (152.0, 160),
        (176.0, 192),
        (240.0, 256),
    ] {
        assert_eq!(sweep_x(x), want, "{x}");
    }
    let (i, _) = Inputs::from_query("embed=scaling");
    let rows = planner::scaling(&planner::scaling_key(&i)).unwrap();
    let o = outputs(&i).unwrap();
    for (m, line) in &rows {
        let at = line.iter().find(|r| r.x == 160).expect("X160 is sampled");
        let shown = o.selected(*m).unwrap();
        assert_eq!(at.plan.as_ref().unwrap(), shown, "{m:?}");
    }
}

/// The loss by URL (`ce`): under practice it sets the last stage's logits
/// memory (Llama 3.1 8B on one H100 at micro-batch 4: eager holds twice
/// vocab-parallel's, fused-linear far less), written back; under paper it
/// is said and the fp32 logits are counted.
#[test]
fn the_loss_is_a_url_key() {
    use plan3d_core::cost::assumptions::CrossEntropy;
    let logits = |q: &str| {
        let (i, notes) = Inputs::from_query(q);
        assert!(notes.is_empty(), "{notes:?}");
        let a = i.knobs();
        let m = i.model.shape().unwrap();
        let cfg = plan3d_core::Config {
            micro_batch: 4,
            activation: plan3d_core::ActivationModel::Full,
            ..plan3d_core::Config::default()
        };
        (
            i,
            plan3d_core::cost::memory::stage_memory(&m, &cfg, &a, 0)
                .logits
                .get(),
        )
    };
    let (_, vp) = logits("model=llama-3.1-8b&gpu=h100-sxm");
    let (i, eager) = logits("model=llama-3.1-8b&gpu=h100-sxm&ce=eager");
    let (_, fused) = logits("model=llama-3.1-8b&gpu=h100-sxm&ce=fused-linear");
    assert_eq!(i.cross_entropy, Some(CrossEntropy::Eager));
    assert!(i.to_query().contains("ce=eager"), "{}", i.to_query());
    assert!((eager / vp - 2.0).abs() < 1e-12);
    assert!(fused < vp / 30.0);
    let (p, _) = Inputs::from_query("assume=paper&model=gpt-3&gpus=1024&ce=eager");
    assert_eq!(p.knobs().cross_entropy, CrossEntropy::Logits);
    let out = planner::outputs(&p).unwrap();
    assert!(planner::corrections(&p, &out).iter().any(|n| n.key == "ce"));
    let (bad, notes) = Inputs::from_query("ce=chunked");
    assert_eq!(bad.cross_entropy, None);
    assert!(notes.iter().any(|n| n.key == "ce"), "{notes:?}");
}
