//! URL state: round trips, hostile input; the planner's outputs.

use plan3d_core::cost::AssumptionSet;
use plan3d_core::{
    hardware,
    planner::{self, needs, outputs},
    search::Parallelism,
    state::{
        read_scenario, Comparison, CustomShape, EmbedView, Inputs, ModelChoice, SCENARIO_PREFIX,
    },
    ActivationModel, Method, Network,
};
use proptest::prelude::*;

fn any_inputs() -> impl Strategy<Value = Inputs> {
    (
        (prop_oneof![
            (0usize..6).prop_map(|i| ModelChoice::Preset(plan3d_core::model::PRESETS[i].0)),
            (1u32..=2048).prop_map(|h| ModelChoice::X(2 * h)),
            (
                (1u32..=4096, 1u32..=128, 1u32..=256, 1u32..=256),
                (
                    proptest::option::of(1u32..=65_536),
                    proptest::option::of(1u32..=8),
                    proptest::option::of(1u32..=256_000),
                    any::<bool>()
                )
            )
                .prop_map(
                    |((seq_len, heads, head_size, layers), (ffn, kv, vocab, gated))| {
                        ModelChoice::Custom(CustomShape {
                            seq_len,
                            heads,
                            head_size,
                            layers,
                            ffn,
                            // Key/value heads must divide the heads.
                            kv_heads: kv.map(|k| if heads % k == 0 { k } else { 1 }),
                            vocab,
                            gated,
                            // Sometimes a mixture of experts.
                            experts: kv.filter(|_| gated).map(|k| 4 * k),
                            top_k: kv.filter(|_| gated).map(|_| 2),
                            expert_ffn: ffn.filter(|_| gated && kv.is_some()).map(|f| f / 2 + 1),
                            shared: kv.filter(|&k| gated && k % 2 == 0).map(|_| 1),
                            dense: None,
                        })
                    }
                ),
        ]),
        (
            0usize..5,
            proptest::option::of(1u32..=72),
            0usize..5,
            0usize..3,
            0usize..6,
        ),
        (
            proptest::option::of(1u64..1_000_000),
            proptest::option::of(0.01f64..1e5),
            proptest::option::of(1u64..10_000),
        ),
        (
            0.05f64..=1.0,
            0usize..4,
            0usize..3,
            proptest::option::of(0usize..3),
        ),
    )
        .prop_map(
            |(model, (g, node, n, m, p), (max_gpus, target_days, batch), (keff, a, c, e))| Inputs {
                model,
                gpu: hardware::GPUS[g],
                node,
                network: Network::ALL[n],
                method: Some(planner::METHODS[m]),
                parallelism: Parallelism::ALL[p],
                max_gpus,
                cluster: max_gpus.filter(|g| g % 3 == 0),
                target_days,
                batch,
                kernel_efficiency: keff,
                activation: ActivationModel::ALL[a],
                compare: Comparison::ALL[c],
                embed: e.map(|e| EmbedView::ALL[e]),
                assumptions: AssumptionSet::ALL[c % 2],
                tokens: batch.map(|b| b as f64 * 1.5e9),
                price: target_days.map(|d| (d.min(9999.0) * 100.0).round() / 100.0),
                ramp: match batch {
                    Some(b) => plan3d_core::run::page_ramp(&format!(
                        "0:{}Mi,{}B:{}Mi",
                        b % 64 + 1,
                        b,
                        2 * (b % 64) + 2
                    ))
                    .unwrap(),
                    None => [None; plan3d_core::run::MAX_RAMP],
                },
                compute: plan3d_core::cost::assumptions::Compute::ALL[(g + n) % 2],
                cross_entropy: (m % 5 == 0)
                    .then(|| plan3d_core::cost::assumptions::CrossEntropy::ALL[(g + n) % 4]),
                framework: (m % 3 == 0)
                    .then(|| plan3d_core::cost::framework::Framework::ALL[(g + m) % 6]),
                zero_bubble: (g + m) % 2 == 0,
                context: max_gpus.filter(|g| g % 2 == 0).map(|_| 2),
                expert: batch.filter(|b| b % 2 == 0).map(|_| 4),
                expert_tensor: batch.filter(|b| b % 4 == 0).map(|_| 1),
                custom_profile: (g + c) % 3 == 0,
                calibration: None,
                layout: plan3d_core::state::Layout {
                    data: batch.filter(|b| b % 3 == 0).map(|b| (b % 64 + 1) as u32),
                    pipe: max_gpus.map(|g| (g % 16 + 1) as u32),
                    tensor: node,
                    virtual_stages: (a > 1).then_some(a as u32),
                    micro_batch: target_days.map(|_| (m + 1) as u32),
                    zero: (c % 3 == 0).then(|| plan3d_core::cost::Zero::ALL[(g + c) % 5]),
                    schedule: (n % 2 == 1).then(|| plan3d_core::cost::PipelineSchedule::ALL[p % 5]),
                    head_layers: (p % 3 == 0).then_some((m % 4) as u32),
                    embedding_layers: (p % 2 == 0).then_some((g % 2) as u32),
                },
            },
        )
}

proptest! {
    #[test]
    fn prop_query_round_trips(i in any_inputs()) {
        let q = i.to_query();
        let (back, notices) = Inputs::from_query(&q);
        prop_assert!(notices.is_empty(), "{q}: {notices:?}");
        prop_assert_eq!(back, i, "{}", q);
    }

    #[test]
    fn prop_any_query_parses(q in ".{0,300}") {
        let (i, notices) = Inputs::from_query(&q);
        for n in &notices {
            let text = n.to_string();
            prop_assert!(!text.chars().any(char::is_control));
            prop_assert!(text.chars().count() < 200);
        }
        // Whatever came in, the model is valid.
        prop_assert!(i.model.shape().is_ok());
    }

    #[test]
    fn prop_key_value_noise(k in "(model|gpu|node|net|method|par|gpus|days|batch|keff|act|cmp|seq|heads|head|layers|assume|tokens)", v in ".{0,80}") {
        let q = format!("{k}={v}");
        let (i, _) = Inputs::from_query(&q);
        prop_assert!(i.model.shape().is_ok());
        prop_assert!(i.kernel_efficiency >= 0.05 && i.kernel_efficiency <= 1.0);
    }
}

#[test]
fn the_issues_url_gives_table_6_1() {
    let (i, notices) = Inputs::from_query("?model=x160&gpu=a100-80gb&node=16&net=infiniband");
    assert!(notices.is_empty());
    assert_eq!(i, Inputs::default());
    // The page opens in practice; the paper's tables are `assume=paper`.
    let (i, _) =
        Inputs::from_query("?model=x160&gpu=a100-80gb&node=16&net=infiniband&assume=paper");
    assert_eq!(i, paper_inputs());
    let o = outputs(&i).unwrap();
    let improved = o.selected(Method::Improved).unwrap().evaluation;
    assert_eq!(improved.gpus, 38_640);
    assert_eq!(format!("{:.1}", improved.time.days()), "6.8");
    assert_eq!(
        o.selected(Method::Baseline).unwrap().evaluation.gpus,
        35_840
    );
    assert_eq!(planner::optimum(&i).unwrap().best.evaluation.gpus, 38_640);
    // Network needs: eq. 9's restores need 312e12/6400 B/s of 50 GiB/s.
    let n = needs(o.selected(Method::Improved).unwrap(), &o.hardware);
    let fwd = n
        .iter()
        .find(|n| n.kind == plan3d_core::TransferKind::DataForward)
        .unwrap();
    assert!((fwd.required.get() - 312e12 / 6400.0).abs() < 1.0);
    assert_eq!(fwd.available.gib_per_s(), 50.0);
}

#[test]
fn hostile_values_fall_back_with_a_notice() {
    let long = "9".repeat(10_000);
    let cases = [
        "model=<script>alert(1)</script>".to_string(),
        "model=x3".into(),
        "model=x99999999999999999999".into(),
        "gpu=%3Cimg%20src%3Dx%3E".into(),
        "node=0".into(),
        "node=73".into(),
        "node=1e3".into(),
        format!("gpus={long}"),
        "days=NaN".into(),
        "days=-1".into(),
        "keff=inf".into(),
        "net=ethernet\u{0}".into(),
        "par=4d".into(),
        "method=improved-unpartitioned".into(),
        "cmp=☃".into(),
        "model=custom&heads=0".into(),
        "layers=99999999".into(),
    ];
    for q in cases {
        let (i, notices) = Inputs::from_query(&q);
        assert_eq!(notices.len(), 1, "{q}: {notices:?}");
        assert!(i.model.shape().is_ok());
        let text = notices[0].to_string();
        assert!(text.len() < 200 && !text.contains('\u{0}'), "{text}");
    }
    // A mistyped key is said, with the key it likely means; the rest of
    // the query is read.
    let (i, n) = Inputs::from_query("modle=gpt-3&gpuz=h100-sxm&gpus=1024&Tp=8");
    let said: Vec<String> = n.iter().map(ToString::to_string).collect();
    assert_eq!(
        said,
        [
            "ignored modle=gpt-3: not a key of this page: did you mean model?",
            "ignored gpuz=h100-sxm: not a key of this page: did you mean gpu?",
            "ignored Tp=8: not a key of this page: did you mean tp?",
        ]
    );
    assert_eq!(i.max_gpus, Some(1024));
    // Percent escapes and '+' decode; keys like none of the page's (a
    // tracker's) are ignored.
    let (i, n) = Inputs::from_query(
        "assume=paper&par=data%2Bpipe&net=ethernet-100&utm=x&utm_source=a&fbclid=b&model=GPT-3",
    );
    assert!(n.is_empty());
    assert_eq!(i.parallelism, Parallelism::DataPipe);
    assert_eq!(i.network, Network::Ethernet100);
    assert_eq!(i.model, ModelChoice::Preset("gpt-3"));
    let (i, _) = Inputs::from_query("assume=paper&model=custom&seq=512&heads=16&head=64&layers=24");
    assert_eq!(i.model.shape().unwrap().params(), 301_989_888.0);
    assert_eq!(Inputs::x_for_params(1.26e12), 160);
    assert_eq!(Inputs::x_for_params(f64::NAN), 2);
    assert_eq!(Inputs::x_for_params(1e30), 4096);
}

#[test]
fn embed_codes_and_links() {
    let (i, n) = Inputs::from_query("model=gpt-3&node=8&embed=schedule");
    assert!(n.is_empty());
    assert_eq!(i.embed, Some(EmbedView::Schedule));
    // The link opens the full page; the embed code shows one view.
    assert_eq!(
        i.link("https://u.github.io/plan3d/"),
        "https://u.github.io/plan3d/?model=gpt-3&node=8"
    );
    let code = i.embed_code("https://u.github.io/plan3d/", EmbedView::Planner);
    assert_eq!(
        code,
        "<iframe src=\"https://u.github.io/plan3d/?model=gpt-3&amp;node=8&amp;embed=planner\" width=\"600\" height=\"400\" title=\"plan3d: planner\" loading=\"lazy\" style=\"border:0\"></iframe>"
    );
    assert_eq!(
        Inputs::from_query("assume=paper&embed=dashboard").1.len(),
        1
    );
}

#[test]
fn saved_scenarios_read_back_or_are_skipped() {
    let (name, i) = read_scenario(
        &format!("{SCENARIO_PREFIX}trillion"),
        "model=x160&node=8&embed=planner",
    )
    .unwrap();
    assert_eq!(name, "trillion");
    assert_eq!(i.node, Some(8));
    assert_eq!(i.embed, None);
    for (k, v) in [
        (
            format!("{SCENARIO_PREFIX}bad"),
            "model=<script>".to_string(),
        ),
        (SCENARIO_PREFIX.to_string(), "model=x160".to_string()),
        (
            format!("{SCENARIO_PREFIX}{}", "n".repeat(200)),
            "model=x160".to_string(),
        ),
        ("other.key".to_string(), "model=x160".to_string()),
        (
            format!("{SCENARIO_PREFIX}junk"),
            "\u{0}\u{1}garbage=%%%&node=999".to_string(),
        ),
    ] {
        let e = read_scenario(&k, &v).unwrap_err();
        assert!(!e.to_string().chars().any(char::is_control));
    }
}

#[cfg(feature = "serde")]
#[test]
fn exports_name_their_inputs_and_parse_back() {
    use plan3d_core::export;
    let (i, _) = Inputs::from_query("assume=paper&model=x160&node=16");
    let o = outputs(&i).unwrap();
    let opt = planner::optimum(&i);
    let csv = export::plans_csv(&i, &o, Some(&opt));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "# plan3d plans for ?model=x160&assume=paper"
    );
    assert_eq!(lines.next().unwrap(), export::PLAN_COLUMNS.join(","));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4);
    let improved = rows
        .iter()
        .find(|r| r[0] == "improved" && r[1] == "rules")
        .unwrap();
    assert_eq!(
        (improved[5], improved[2], improved[3], improved[4]),
        ("38640", "483", "5", "16")
    );
    assert_eq!(rows[3][1], "exhaustive");
    let json: serde_json::Value =
        serde_json::from_str(&export::plans_json(&i, &o, Some(&opt))).unwrap();
    assert_eq!(json["inputs"], "model=x160&assume=paper");
    assert_eq!(json["plans"][2]["gpus"], 38640);
    assert_eq!(json["plans"][2]["method"], "improved");
    assert!((json["plans"][2]["days"].as_f64().unwrap() - 6.81).abs() < 0.01);
    let rows = planner::scaling(&i).unwrap();
    let csv = export::sweep_csv(&i, &rows);
    assert!(csv.starts_with("# plan3d scaling sweep for ?model=x160&assume=paper\nmethod,params,"));
    assert_eq!(
        csv.lines().count(),
        2 + rows.iter().map(|(_, r)| r.len()).sum::<usize>()
    );
    let json: serde_json::Value = serde_json::from_str(&export::sweep_json(&i, &rows)).unwrap();
    assert!(json["rows"].as_array().unwrap().len() > 20);
    // Both exports parse back into their types, equal to what was written.
    let plans: export::PlansExport =
        serde_json::from_str(&export::plans_json(&i, &o, Some(&opt))).unwrap();
    assert_eq!(plans, export::PlansExport::new(&i, &o, Some(&opt)));
    let sweep: export::SweepExport = serde_json::from_str(&export::sweep_json(&i, &rows)).unwrap();
    assert_eq!(sweep, export::SweepExport::new(&i, &rows));
    assert_eq!(
        export::file_name(&i, "plans", "csv"),
        "plan3d-plans-model-x160_assume-paper.csv"
    );
    let (j, _) = Inputs::from_query("assume=paper&model=gpt-3&par=data%2Bpipe&node=8");
    assert_eq!(
        export::file_name(&j, "scaling", "png"),
        "plan3d-scaling-model-gpt-3_node-8_par-data+pipe_assume-paper.png"
    );
}

/// The page's state round-trips through serde as its query string; a value
/// the page would correct is refused, with its notice.
#[cfg(feature = "serde")]
#[test]
fn inputs_serialize_as_their_query() {
    for q in [
        "",
        "model=gpt-3&gpu=h100-sxm&node=8",
        "model=custom&seq=4096&heads=32&head=128&layers=32&par=data%2Btensor&gpus=512",
        "model=x200&node=none&net=ethernet&method=baseline&days=30&batch=900&keff=0.5&act=selective&cmp=lga&embed=scaling",
    ] {
        let (i, notices) = Inputs::from_query(q);
        assert!(notices.is_empty(), "{q}: {notices:?}");
        let text = serde_json::to_string(&i).unwrap();
        assert_eq!(text, format!("\"{}\"", i.to_query()));
        assert_eq!(serde_json::from_str::<Inputs>(&text).unwrap(), i);
    }
    let err = serde_json::from_str::<Inputs>("\"gpu=h900\"").unwrap_err();
    assert!(err.to_string().contains("unknown GPU"), "{err}");
}

/// The page's inputs under the paper's assumptions (the page opens in
/// practice; these tests check the paper's numbers).
pub(crate) fn paper_inputs() -> Inputs {
    Inputs {
        assumptions: plan3d_core::cost::AssumptionSet::Paper,
        ..Inputs::default()
    }
}

/// A mixture of experts from the URL: the custom shape's MoE keys build
/// the experts, write back the same query, and the practice rows plan it
/// (expert parallelism chosen by the search, within the data ranks).
#[test]
fn custom_mixture_of_experts_from_the_url() {
    let q = "model=custom&seq=2048&heads=16&head=128&layers=8&kv=4&gated=1&experts=16&topk=2&effn=1024&shared=1&dense=1&gpu=h100-sxm&cluster=64&assume=practice";
    let (i, n) = Inputs::from_query(q);
    assert!(n.is_empty(), "{n:?}");
    let m = i.model.shape().unwrap();
    let e = m.experts.unwrap();
    assert_eq!(
        (e.routed, e.top_k, e.ffn, e.shared, e.dense_layers),
        (16, 2, 1024, 1, 1)
    );
    assert!(m.active_params() < m.params());
    let (back, _) = Inputs::from_query(&i.to_query());
    assert_eq!(back, i);
    let o = outputs(&i).unwrap();
    let p = o.selected(Method::Baseline).unwrap();
    let c = p.evaluation.config;
    assert_eq!(p.evaluation.gpus, 64);
    assert_eq!(
        (u64::from(c.data) * u64::from(c.context)) % u64::from(c.expert),
        0
    );
    // Bad values are refused in words, the rest kept.
    let (_, n) = Inputs::from_query("model=custom&seq=2048&heads=16&head=128&layers=8&experts=x");
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].key, "experts");
}

/// Fixed expert- and context-parallel degrees from the URL (`ep`, `cp`):
/// the practice rows keep them; on a dense model `ep` is ignored and said.
#[test]
fn fixed_expert_and_context_degrees_from_the_url() {
    let (i, n) =
        Inputs::from_query("model=mixtral-8x22b&gpu=h100-sxm&cluster=256&assume=practice&ep=4");
    assert!(n.is_empty(), "{n:?}");
    let o = outputs(&i).unwrap();
    for (_, p) in &o.plans {
        if let Ok(p) = p {
            assert_eq!(p.evaluation.config.expert, 4);
        }
    }
    assert!(o.plans.iter().any(|(_, p)| p.is_ok()));
    assert!(planner::corrections(&i, &o).is_empty());
    let (i, _) =
        Inputs::from_query("model=llama-3.1-8b&gpu=h100-sxm&cluster=64&assume=practice&ep=4&cp=2");
    let o = outputs(&i).unwrap();
    let c = planner::corrections(&i, &o);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].key, "ep");
    for p in o.plans.iter().filter_map(|(_, p)| p.as_ref().ok()) {
        assert_eq!(
            (p.evaluation.config.expert, p.evaluation.config.context),
            (1, 2)
        );
    }
    let (_, n) = Inputs::from_query("ep=0&cp=x");
    assert_eq!(n.len(), 2);
}

/// The layout keys round-trip through the URL and the page's fields; a
/// bad value is a notice naming what is used instead; an empty field
/// clears its key.
#[test]
fn layout_keys_round_trip_and_clear() {
    let q = "dp=128&pp=16&tp=8&vp=4&mb=2&zero=3-step&sched=zb-h1";
    let (i, notices) = Inputs::from_query(q);
    assert!(notices.is_empty(), "{notices:?}");
    let l = i.layout;
    assert_eq!(
        (l.data, l.pipe, l.tensor, l.virtual_stages, l.micro_batch),
        (Some(128), Some(16), Some(8), Some(4), Some(2))
    );
    assert_eq!(l.zero.map(|z| z.name()), Some("3-step"));
    assert_eq!(l.schedule.map(|s| s.name()), Some("zb-h1"));
    let (back, again) = Inputs::from_query(&i.to_query());
    assert!(again.is_empty());
    assert_eq!(back, i);
    assert_eq!(i.field_text("zero"), "3-step");
    let (_, bad) = Inputs::from_query("dp=0&zero=4&sched=zigzag&dp=1Ki");
    let keys: Vec<&str> = bad.iter().map(|n| n.key.as_str()).collect();
    assert_eq!(keys, ["dp", "zero", "sched"], "{bad:?}");
    // The later `dp=1Ki` is used; the others fall back to the search.
    let used: Vec<&str> = bad.iter().map(|n| n.used.as_str()).collect();
    assert_eq!(used, ["1024", "searched", "searched"], "{bad:?}");
    let mut j = i;
    j.set_field("dp", "").unwrap();
    j.set_field("sched", " ").unwrap();
    assert_eq!((j.layout.data, j.layout.schedule), (None, None));
    assert!(j.set_field("tp", "eight").is_err());
    assert_eq!(j.layout.tensor, Some(8));
}

/// The CSV exports write each row's fields themselves; they hold what
/// serde writes, field for field: each column is the row's JSON field of
/// that name, a number as Rust prints it, null empty (the reference below
/// is the serializer the CSV once went through).
#[cfg(feature = "serde")]
#[test]
fn csv_cells_are_the_rows_json_fields() {
    use plan3d_core::export;
    use serde_json::Value;
    fn reference(v: &Value) -> String {
        let s = match v {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => format!("{u}"),
                (None, Some(i), _) => format!("{i}"),
                (None, None, Some(x)) => format!("{x}"),
                _ => String::new(),
            },
            other => other.to_string(),
        };
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s
        }
    }
    fn check<T: serde::Serialize>(csv: &str, columns: &[&str], rows: &[T]) {
        let lines: Vec<&str> = csv.lines().skip(2).collect();
        assert_eq!(lines.len(), rows.len());
        for (line, row) in lines.iter().zip(rows) {
            let v = serde_json::to_value(row).unwrap();
            let want: Vec<String> = columns.iter().map(|c| reference(&v[*c])).collect();
            assert_eq!(*line, want.join(","));
            // Every column is a field of the row.
            for c in columns {
                assert!(v.get(*c).is_some(), "{c}");
            }
        }
    }
    for q in [
        "assume=paper&model=x160&node=16",
        "model=llama-3.1-405b&gpu=h100-sxm&gpus=16384&tokens=15.6T",
        // No plan for any method: the error column, with its commas.
        "model=llama-3.1-405b&gpu=h100-sxm&gpus=8&act=none",
    ] {
        let (i, _) = Inputs::from_query(q);
        let o = outputs(&i).unwrap();
        let opt = planner::optimum(&i);
        let e = export::PlansExport::new(&i, &o, Some(&opt));
        check(
            &export::plans_csv(&i, &o, Some(&opt)),
            &export::PLAN_COLUMNS,
            &e.plans,
        );
        if q.contains("paper") {
            let rows = planner::scaling(&i).unwrap();
            let e = export::SweepExport::new(&i, &rows);
            check(
                &export::sweep_csv(&i, &rows),
                &export::SWEEP_COLUMNS,
                &e.rows,
            );
        }
    }
}
