//! A layout given by URL, as the page plans it: Meta's and DeepSeek-V3's
//! layouts as given, fixed fields honoured or refused in words, the
//! pipeline split's head and embedding (`lmhead`, `lmembed`) and what
//! "Why this plan" says of them. (Split from `page.rs`.)

use plan3d_core::{
    planner::{self, outputs},
    state::Inputs,
};

/// A layout to check, by URL: Meta's Llama 3.1 405B (TP 8, PP 16, DP 128,
/// 2 048 sequences: 16 Mi tokens) and DeepSeek-V3's (PP 16, EP 64, no TP,
/// 15 360 sequences) plan exactly as given; a fixed ZeRO stage the layered
/// method cannot run is that row's refusal in words, not a plan that differs.
#[test]
fn a_layout_given_by_url_is_planned_as_given() {
    let row = |q: &str, m: plan3d_core::Method| {
        let (i, notices) = Inputs::from_query(q);
        assert!(notices.is_empty(), "{q}: {notices:?}");
        let out = planner::outputs(&i).unwrap();
        out.plans.iter().find(|(x, _)| *x == m).unwrap().1
    };
    let meta = row(
        "model=llama-3.1-405b&gpu=h100-sxm&node=8&net=infiniband-400&tp=8&pp=16&dp=128&batch=2048&tokens=15.6T",
        plan3d_core::Method::Baseline,
    )
    .expect("Meta's layout plans");
    let c = meta.evaluation.config;
    assert_eq!(
        (c.tensor, c.pipe, c.data, c.batch(), meta.evaluation.gpus),
        (8, 16, 128, 2048, 16_384)
    );
    let deepseek = row(
        "model=deepseek-v3&gpu=h800&node=8&pp=16&ep=64&tp=1&batch=15360&prec=fp8&tokens=14.8T",
        plan3d_core::Method::Baseline,
    )
    .expect("DeepSeek-V3's layout plans");
    let c = deepseek.evaluation.config;
    assert_eq!((c.pipe, c.expert, c.tensor, c.batch()), (16, 64, 1, 15_360));
    // Fixed means fixed on the page too.
    let q = "model=gpt-3&gpus=1024&zero=1&mb=2&vp=2&sched=1f1b";
    let p = row(q, plan3d_core::Method::Baseline).expect("Megatron-style plans");
    let c = p.evaluation.config;
    assert_eq!(
        (c.zero.name(), c.micro_batch, c.virtual_stages),
        ("1", 2, 2)
    );
    let refused = row(q, plan3d_core::Method::Partitioned).unwrap_err();
    assert!(
        refused.to_string().contains("zero must be 3 or 3-step"),
        "{refused}"
    );
    // Under paper only the tensor degree binds the rules; the rest is said.
    let (i, _) = Inputs::from_query("assume=paper&model=gpt-3&gpus=1024&tp=4&dp=8");
    let out = planner::outputs(&i).unwrap();
    for (_, p) in &out.plans {
        assert_eq!(p.unwrap().evaluation.config.tensor, 4);
    }
    let said = planner::corrections(&i, &out);
    assert!(said.iter().any(|n| n.key == "dp"), "{said:?}");
}

/// Meta's 405B layout with NVIDIA's eight virtual stages (PP 16 × VP 8:
/// 128 chunks for 126 layers) plans on the page with the embedding and
/// the loss counted as layers, said beside the embedding field left
/// empty; with the field set to 0 the virtual stages are refused there.
#[test]
fn virtual_stages_beyond_the_layers_count_the_embedding_on_the_page() {
    let q = "model=llama-3.1-405b&gpu=h100-sxm&node=8&net=infiniband-400&tp=8&pp=16&dp=128&vp=8&batch=2048";
    let (i, notices) = Inputs::from_query(q);
    assert!(notices.is_empty(), "{notices:?}");
    let out = planner::outputs(&i).unwrap();
    let (_, meta) = out
        .plans
        .iter()
        .find(|(m, _)| *m == plan3d_core::Method::Baseline)
        .unwrap();
    let c = meta.as_ref().expect("plans").evaluation.config;
    assert_eq!(
        (c.virtual_stages, c.embedding_layers, c.head_layers),
        (8, 1, 1)
    );
    // 128 units over 16 GPUs: the first and the last hold 7 layers.
    let why = planner::practice_why(&meta.as_ref().unwrap().evaluation, &out.hardware).join(" | ");
    assert!(
        why.contains(
            "pipeline split with the embedding and the head counted as 1 layer and 1: GPU 0 \
             holds 7 layers, GPU 15 7 and the logits"
        ),
        "{why}"
    );
    // Its schedule is drawn (a chunk of 126 / 128 layers had been 0: "no
    // schedule for this plan").
    let (s, _) = planner::plan_schedule(&out.model, &out.hardware, meta.as_ref().unwrap())
        .expect("a schedule");
    assert!(s.bubble_fraction > 0.0 && !s.events.is_empty());
    let said = planner::corrections(&i, &out);
    let n = said.iter().find(|n| n.key == "lmembed").expect("said");
    let text = n.to_string();
    assert!(
        text.starts_with("lmembed: more chunks (PP × VP) than layers")
            && text.ends_with("; using 1 layer"),
        "{text}"
    );
    let (i, _) = Inputs::from_query(&format!("{q}&lmembed=0"));
    let out = planner::outputs(&i).unwrap();
    assert!(out.plans.iter().all(|(_, p)| p.is_err()));
    let refused = planner::corrections(&i, &out);
    assert!(
        refused.iter().any(|n| n.key == "vp" && n.refused),
        "{refused:?}"
    );
}

/// "Why this plan" says where a head-counted pipeline split put the head:
/// DeepSeek-V3's published layout (PP16, its head worth a layer) puts 3
/// layers and the logits on the last GPU of the pipeline (62 units over 16
/// stages: 14 of 4, two of 3).
#[test]
fn why_this_plan_says_where_the_head_went() {
    let (i, _) = Inputs::from_query(
        "model=deepseek-v3&gpu=h800&node=8&pp=16&ep=64&tp=1&batch=15360&prec=fp8&tokens=14.8T",
    );
    let o = outputs(&i).unwrap();
    let p = o.selected(plan3d_core::Method::Baseline).unwrap();
    let c = p.evaluation.config;
    assert_eq!((c.pipe, c.head_layers), (16, 1));
    let why = planner::practice_why(&p.evaluation, &o.hardware).join(" | ");
    assert!(
        why.contains("pipeline split with the head counted as 1 layer: GPU 15 of the pipeline holds 3 layers and the logits"),
        "{why}"
    );
    // The step line's parts add up to the step, the experts' all-to-all
    // among them (it had been left out: 9.96 of 12.32 s).
    let line = planner::practice_why(&p.evaluation, &o.hardware)
        .into_iter()
        .find(|l| l.starts_with("step "))
        .unwrap();
    assert!(line.contains(", all-to-all, ring and CPU "), "{line}");
    let (head, parts) = line.split_once("): ").unwrap();
    let step: f64 = head[5..].split(' ').next().unwrap().parse().unwrap();
    // Each part ends "… X.XX s".
    let sum: f64 = parts
        .split(" s")
        .filter_map(|x| x.rsplit(' ').next().and_then(|n| n.parse::<f64>().ok()))
        .sum();
    assert!(
        (sum / step - 1.0).abs() < 0.01,
        "{sum} against {step}: {line}"
    );
}

/// The head's layers in the pipeline split by URL (`lmhead`): fixed when
/// given (0: the even split), written back, said under paper.
#[test]
fn the_head_split_is_a_url_key() {
    let q = "model=deepseek-v3&gpu=h800&node=8&pp=16&ep=64&tp=1&batch=15360&lmhead=0";
    let (i, notes) = Inputs::from_query(q);
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(i.layout.head_layers, Some(0));
    assert!(i.to_query().contains("lmhead=0"), "{}", i.to_query());
    let o = outputs(&i).unwrap();
    let c = o
        .selected(plan3d_core::Method::Baseline)
        .unwrap()
        .evaluation
        .config;
    assert_eq!((c.pipe, c.head_layers), (16, 0));
    // The custom shape's `head` (head size) keeps its meaning.
    let (j, _) = Inputs::from_query("model=custom&seq=2048&heads=16&head=64&layers=8");
    assert_eq!(j.model.shape().unwrap().head_size, 64);
    assert_eq!(j.layout.head_layers, None);
    // Under paper the split is the practice search's, and said.
    let (p, _) = Inputs::from_query("assume=paper&model=gpt-3&gpus=1024&lmhead=1");
    let out = planner::outputs(&p).unwrap();
    assert!(planner::corrections(&p, &out)
        .iter()
        .any(|n| n.key == "lmhead"));
}

/// A layout no framework runs is refused beside its field, not planned: a
/// tensor degree that does not divide the node (TP 3 on 8-GPU nodes: a
/// group of consecutive ranks straddles two nodes, off NVLink), and under
/// DeepSpeed a pipeline with ZeRO-3 (its `PipelineEngine` runs ZeRO ≤ 1).
/// The search volunteers neither.
#[test]
fn a_layout_the_framework_cannot_run_is_refused() {
    use plan3d_core::Method;
    let (i, _) = Inputs::from_query("model=gpt-3&gpu=a100-80gb&node=8&tp=3&gpus=4096");
    let out = planner::outputs(&i).unwrap();
    assert!(out.plans.iter().all(|(_, p)| p.is_err()));
    let said = planner::corrections(&i, &out);
    let n = said.iter().find(|n| n.key == "tp" && n.refused);
    let text = n.map(ToString::to_string).unwrap_or_default();
    assert!(text.contains("must divide the GPUs per node"), "{said:?}");
    // Free, every method keeps its tensor groups inside a node, and
    // DeepSpeed's ZeRO-3 runs without a pipeline.
    let (i, _) = Inputs::from_query("model=gpt-3&gpu=a100-80gb&node=8&gpus=4096&fw=deepspeed");
    let out = planner::outputs(&i).unwrap();
    for (m, p) in &out.plans {
        let c = p.as_ref().expect("a plan").evaluation.config;
        assert_eq!(8 % c.tensor, 0, "{m:?}: TP {}", c.tensor);
        if *m == Method::Partitioned {
            assert_eq!(c.pipe, 1, "DeepSpeed's ZeRO-3 with PP {}", c.pipe);
        }
    }
    // With the pipeline fixed, DeepSpeed's ZeRO-3 row says why it has none;
    // its Megatron-style row (ZeRO-1) plans.
    let (i, _) = Inputs::from_query("model=gpt-3&gpu=a100-80gb&node=8&gpus=4096&fw=deepspeed&pp=4");
    let out = planner::outputs(&i).unwrap();
    let row = |m: Method| &out.plans.iter().find(|(x, _)| *x == m).unwrap().1;
    let e = row(Method::Partitioned).as_ref().unwrap_err().to_string();
    assert!(
        e.contains("DeepSpeed's pipeline engine runs ZeRO-0 or ZeRO-1 only"),
        "{e}"
    );
    let c = row(Method::Baseline)
        .as_ref()
        .expect("ZeRO-1 plans")
        .evaluation
        .config;
    assert_eq!((c.pipe, c.zero.stage()), (4, 1));
}
