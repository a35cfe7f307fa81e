//! Every input answered where it was typed: notices that say what is used
//! instead, fields parsed as the URL is, corrections in words, a layout no
//! plan can honour said beside its field in the search's words, the node
//! size that follows the GPU, the size slider, an exact cluster, a
//! preset's published batch, the target time, the simulated step.

use plan3d_core::{
    planner::{self, outputs},
    state::{Inputs, ModelChoice},
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
    let plan = planner::shown(&o, None, None, i.shipped()).unwrap().plan;
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
    let s = planner::shown(&o, None, Some(&opt), i.shipped()).unwrap();
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

/// GPT-3 at today's batch law trains several times OpenAI's 3.2 M tokens
/// (Brown et al. 2020, Table 2.1: 1 536 sequences of 2 048, as Megatron-LM
/// and MLPerf reproduce it): "Why this plan" says so, as for Meta's run.
#[test]
fn gpt3_says_the_batch_openai_trained_at() {
    let (i, n) = Inputs::from_query("model=gpt-3&gpu=a100-80gb&node=8&gpus=1024");
    assert!(n.is_empty(), "{n:?}");
    let o = outputs(&i).unwrap();
    let opt = planner::practice_optimum(&i, &o).unwrap();
    let s = planner::shown(&o, None, Some(&opt), i.shipped()).unwrap();
    assert!(
        s.plan.evaluation.batch > 4 * 1536,
        "{}",
        s.plan.evaluation.batch
    );
    let why = planner::limits(&i, &o, &s.plan);
    assert!(
        why.iter().any(|l| l.contains(
            "OpenAI trained at 1536 sequences (3.1 M tokens; GPT-3, arXiv 2005.14165 Table 2.1)"
        )),
        "{why:?}"
    );
}

/// The animation's step and the plan's differ where the simulation
/// overlaps what the estimate charges as exposed; the page says so with
/// both figures.
#[test]
fn the_simulated_step_says_why_it_differs_from_the_estimate() {
    let (i, _) = Inputs::from_query("assume=practice&model=x160&cluster=655360");
    let o = outputs(&i).unwrap();
    let opt = planner::practice_optimum(&i, &o).unwrap();
    let s = planner::shown(&o, None, Some(&opt), i.shipped()).unwrap();
    let (sched, shown) = planner::plan_schedule(&o.model, &o.hardware, &s.plan).unwrap();
    let e = &s.plan.evaluation;
    let gap = (sched.makespan / e.step.0 - 1.0).abs();
    // X160 on exactly 655 360 GPUs (DP 10240 × PP 4 × TP 16; without the
    // cluster the search keeps to 102 400, whose run ends first): the
    // estimate charges data-parallel reduction that the simulation hides.
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
    let s = planner::shown(&o, None, Some(&opt), i.shipped()).unwrap();
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

/// The opening's dot can sit above the scaling chart's lines: the note says
/// why (Llama's 8 192-token sequences against X128's 2 048), and where (a
/// batch that limits the replicas), since with today's batch it sits on them.
#[test]
fn the_scaling_note_says_why_a_dot_is_off_the_lines() {
    let note = planner::scaling_offset(&Inputs::opening()).unwrap();
    assert!(
        note.contains("(2048 at this size, X128); this model's are 8192 tokens"),
        "{note}"
    );
    assert!(
        note.contains("4× fewer sequences")
            && note.contains("can sit above the lines (fewer GPUs, more days)."),
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

/// A value the page does not use is named with what it uses instead.
#[test]
fn notices_say_what_is_used_instead() {
    let (_, n) = Inputs::from_query("assume=paper&gpus=-5&gpu=h900&node=99&batch=0&keff=3");
    let text: Vec<String> = n.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "ignored gpus=-5: GPU budget must be at least 1; using no GPU budget",
            "ignored gpu=h900: unknown GPU; using a100-80gb",
            "ignored node=99: node size must be 1–72 or none; using 16 GPUs per node",
            "ignored batch=0: batch must be at least 1 sequence; using the critical batch",
            "ignored keff=3: kernel efficiency must be in 0.05–1; using 1",
        ]
    );
}

/// The page's fields parse as the URL does: a bad value changes nothing
/// and says so; an empty optional field clears it.
#[test]
fn fields_parse_like_the_url() {
    let (mut i, _) = Inputs::from_query("assume=paper&gpus=512");
    let n = i.set_field("gpus", "-5").unwrap_err();
    assert_eq!(i.max_gpus, Some(512));
    assert_eq!(
        n.to_string(),
        "ignored gpus=-5: GPU budget must be at least 1; using 512 GPUs"
    );
    // Beside the field (which names itself), the value without its key.
    assert_eq!(
        n.beside_field(),
        "-5 ignored: GPU budget must be at least 1; using 512 GPUs"
    );
    i.set_field("gpus", " 64 ").unwrap();
    assert_eq!(i.max_gpus, Some(64));
    i.set_field("gpus", "").unwrap();
    assert_eq!(i.max_gpus, None);
    assert!(i.set_field("days", "nan").is_err());
    assert!(i.set_field("heads", "8").is_err(), "not a custom model");
    let (mut c, _) =
        Inputs::from_query("assume=paper&model=custom&seq=2048&heads=16&head=64&layers=24");
    c.set_field("layers", "48").unwrap();
    assert_eq!(c.described("layers"), "48");
    let n = c.set_field("heads", "0").unwrap_err();
    assert!(n.to_string().ends_with("using 16"), "{n}");
}

/// A batch limit above the critical batch is said to be the critical batch
/// (X160: b_c = 573 · (12 · 160⁵)^{1/3} / 2560 = 2416.7, eq. 2).
#[test]
fn a_batch_above_the_critical_batch_is_corrected_in_words() {
    let (i, _) = Inputs::from_query("assume=paper&model=x160&batch=9113");
    let o = outputs(&i).unwrap();
    let c = planner::corrections(&i, &o);
    assert_eq!(
        c.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "ignored batch=9113: above this model's critical batch (eq. 2): past it, more \
          sequences per step only add work; using the critical batch, 2416 sequences"
        ]
    );
    let (j, _) = Inputs::from_query("assume=paper&model=x160&batch=1000");
    assert!(planner::corrections(&j, &outputs(&j).unwrap()).is_empty());
}

/// Choosing an H100 on the page brings its 8-GPU node: no more tensor
/// degree 15 for 128 heads in a 16-GPU "node" of H100s.
#[test]
fn the_node_size_follows_the_gpu_chosen() {
    let (mut i, _) = Inputs::from_query("assume=paper&model=llama-3.1-405b");
    i.choose_gpu(plan3d_core::hardware::H100_SXM);
    assert_eq!(i.node, Some(8));
    assert_eq!(
        i.to_query(),
        "model=llama-3.1-405b&gpu=h100-sxm&node=8&assume=paper"
    );
    let o = outputs(&i).unwrap();
    for (_, p) in &o.plans {
        if let Ok(p) = p {
            assert!(p.evaluation.config.tensor <= 8);
        }
    }
    i.choose_gpu(plan3d_core::hardware::A100_80GB);
    assert_eq!(i.node, Some(16));
    let (mut j, _) = Inputs::from_query("assume=paper&node=none");
    j.choose_gpu(plan3d_core::hardware::H100_SXM);
    assert_eq!(j.node, None, "no limit stays");
    // A link with a GPU and no node takes the GPU's node (it kept 16, an
    // H100 node that does not exist: issue 26).
    let (k, _) = Inputs::from_query("assume=paper&gpu=h100-sxm");
    assert_eq!(k.node, Some(8));
}

/// The CLI, the JSON door, the JavaScript API and Python read a GPU
/// without a node size as the URL does: its own NVLink domain. `plan3d
/// plan --gpu gb200` had planned in 16-GPU nodes, not the NVL72 rack; an
/// H100 in 16-GPU nodes that do not exist.
#[test]
fn every_door_gives_a_gpu_its_own_node() {
    use plan3d_core::api::{self, request::HardwareRequest};
    let node = |gpu: &str| {
        let r = HardwareRequest {
            gpu: gpu.into(),
            ..HardwareRequest::default()
        };
        api::hardware(&r).unwrap().node_size
    };
    for (gpu, n) in [
        ("a100-80gb", 16),
        ("a100-40gb", 16),
        ("h100-sxm", 8),
        ("h800", 8),
        ("h200", 8),
        ("b200", 8),
        ("b300", 8),
        ("gb200", 72),
        ("gb300", 72),
    ] {
        assert_eq!(node(gpu), Some(n), "{gpu}");
        let (i, _) = Inputs::from_query(&format!("gpu={gpu}"));
        assert_eq!(i.node, Some(n), "the URL's {gpu}");
    }
    // Given, or unlimited, it stays.
    let given = HardwareRequest {
        gpu: "gb200".into(),
        node_size: Some(4),
        ..HardwareRequest::default()
    };
    assert_eq!(api::hardware(&given).unwrap().node_size, Some(4));
    let free = HardwareRequest {
        gpu: "h100-sxm".into(),
        no_node_limit: true,
        ..HardwareRequest::default()
    };
    assert_eq!(api::hardware(&free).unwrap().node_size, None);
}

/// Choosing another preset from the page's opening leaves Meta's 15.6 T
/// tokens behind with Llama 3.1 405B (GPT-3 had trained 15.6 T of them):
/// the default, 20 per parameter, as `?model=gpt-3` opens; a token budget
/// the user set stays, as do the GPUs, the GPU budget and the network.
#[test]
fn another_preset_leaves_the_openings_tokens() {
    use plan3d_core::state::ModelChoice;
    let mut i = Inputs::opening();
    i.choose_model(ModelChoice::Preset("gpt-3"));
    assert_eq!(i.tokens, None);
    assert_eq!(
        (i.max_gpus, i.gpu.name, i.node),
        (Some(16_384), "h100-sxm", Some(8))
    );
    // What the link to it says, and opens on.
    let q = i.to_query();
    assert!(!q.contains("tokens"), "{q}");
    assert_eq!(Inputs::from_query(&q).0, i);
    // Back to Llama 3.1 405B, the default stays: the user left the opening.
    i.choose_model(ModelChoice::Preset("llama-3.1-405b"));
    assert_eq!(i.tokens, None);
    // A budget the user typed is theirs.
    let mut j = Inputs::opening();
    j.tokens = Some(1e12);
    j.choose_model(ModelChoice::Preset("gpt-3"));
    assert_eq!(j.tokens, Some(1e12));
}

/// The size slider scales the X family; leaving a preset is said in words.
#[test]
fn the_size_slider_says_when_it_leaves_a_preset() {
    let (mut i, _) = Inputs::from_query("assume=paper&model=gpt-3");
    let n = i.slide_size(1e12).unwrap();
    // x = (10¹² / 12)^{1/5} = 152.8, the nearest even 152.
    assert_eq!(i.model, ModelChoice::X(152));
    assert_eq!(
        n.to_string(),
        "ignored model=gpt-3: the size slider scales the paper's X[x] family (eq. 1); using X152"
    );
    assert!(
        i.slide_size(2e12).is_none(),
        "within the family, nothing to say"
    );
}

/// An exact cluster size: the best plan found uses exactly that many GPUs,
/// the rules at most.
#[test]
fn an_exact_cluster_size_is_used_exactly() {
    let (i, n) = Inputs::from_query("assume=paper&model=gpt-3&cluster=1000");
    assert!(n.is_empty());
    assert_eq!(i.to_query(), "model=gpt-3&cluster=1000&assume=paper");
    let o = outputs(&i).unwrap();
    assert_eq!(planner::optimum(&i).unwrap().best.evaluation.gpus, 1000);
    for (_, p) in &o.plans {
        if let Ok(p) = p {
            assert!(p.evaluation.gpus <= 1000);
        }
    }
}

/// Under practice, a method with no plan is explained on the page as the
/// CLI explains it: the closest miss and the nearest change with its plan
/// (X160 on 8 A100s of 40 GB: the state alone needs 2 346 GiB a GPU; the
/// fewest GPUs that hold it, 512). Under paper, the rules' advice stays.
#[test]
fn no_plan_on_the_page_says_why_as_the_cli_does() {
    let (i, _) = Inputs::from_query("model=x160&gpu=a100-40gb&gpus=8&method=baseline");
    assert!(i.practice());
    let out = planner::outputs(&i).unwrap();
    let e = planner::explain(&i, &out, Some(plan3d_core::Method::Baseline)).expect("explained");
    let text = e.to_string();
    assert!(text.starts_with("no plan: no configuration satisfies the constraints. Closest: memory: the lightest layout tried"), "{text}");
    assert!(
        text.contains("with a GPU budget of at least 512 (max_gpus 512)"),
        "{text}"
    );
    // A method with a plan has nothing to explain.
    let (ok, _) = Inputs::from_query("model=gpt-3&gpus=1024");
    let out = planner::outputs(&ok).unwrap();
    assert!(planner::explain(&ok, &out, Some(plan3d_core::Method::Baseline)).is_none());
    let (paper, _) = Inputs::from_query("assume=paper&model=x1000");
    let out = planner::outputs(&paper).unwrap();
    assert!(planner::explain(&paper, &out, Some(plan3d_core::Method::Improved)).is_none());
}

/// `gpu=h100-sxm` without `node` is an 8-GPU node (it kept the A100
/// default's 16 and planned tensor degree 16 on H100s); a written URL reads
/// back to the same node either way.
#[test]
fn a_gpu_brings_its_node() {
    let (i, _) = Inputs::from_query("gpu=h100-sxm");
    assert_eq!(i.node, Some(8));
    let (i, _) = Inputs::from_query("gpu=gb200");
    assert_eq!(i.node, Some(72));
    let (i, _) = Inputs::from_query("gpu=h100-sxm&node=16");
    assert_eq!(i.node, Some(16));
    assert!(i.to_query().contains("node=16"), "{}", i.to_query());
    let (i, _) = Inputs::from_query("model=x160");
    assert_eq!(i.node, Some(16));
    for q in [
        "gpu=h100-sxm",
        "gpu=h100-sxm&node=16",
        "gpu=h100-sxm&node=none",
        "gpu=a100-40gb",
        "node=4",
    ] {
        let (i, _) = Inputs::from_query(q);
        assert_eq!(Inputs::from_query(&i.to_query()).0, i, "{q}");
    }
    // The practice plans on H100s keep tensor parallelism within 8.
    let (i, _) = Inputs::from_query("model=llama-3.1-405b&gpu=h100-sxm&gpus=4096");
    let o = outputs(&i).unwrap();
    for (_, p) in &o.plans {
        if let Ok(p) = p {
            assert!(p.evaluation.config.tensor <= 8);
        }
    }
}

/// The loss shown is the one counted: a framework's own (plain PyTorch's
/// eager cross-entropy) until `ce` sets another; the paper's fp32 logits
/// under paper.
#[test]
fn the_loss_shown_follows_the_framework() {
    let text = |q: &str| Inputs::from_query(q).0.described("ce");
    assert_eq!(text("model=llama-3.1-8b"), "vocab-parallel");
    assert_eq!(text("model=llama-3.1-8b&fw=pytorch"), "eager");
    assert_eq!(
        text("model=llama-3.1-8b&fw=pytorch&ce=fused-linear"),
        "fused-linear"
    );
    assert_eq!(text("model=llama-3.1-8b&fw=torchtitan"), "eager");
    assert_eq!(text("assume=paper&model=x16"), "logits");
}

/// A network faster than the GPU's PCIe link to its card runs at the
/// link's rate (`Hardware::network_bandwidth`), said beside the network
/// field: an A100's PCIe 4.0 (63 GiB/s both ways, 271 Gb/s in the
/// labels' count) under InfiniBand 400 or 800, an H100's PCIe 5.0 under
/// 800; not where the network is the slower (the paper's InfiniBand 200
/// on A100s, 400 on H100s).
#[test]
fn a_network_faster_than_the_pcie_link_is_said_at_its_field() {
    let said = |query: &str| -> Vec<String> {
        let (i, n) = Inputs::from_query(query);
        assert!(n.is_empty(), "{query}: {n:?}");
        let o = outputs(&i).unwrap();
        planner::corrections(&i, &o)
            .iter()
            .filter(|n| n.key == "net")
            .map(ToString::to_string)
            .collect()
    };
    for net in ["infiniband-400", "infiniband-800"] {
        assert_eq!(
            said(&format!("model=gpt-3&gpu=a100-80gb&net={net}")),
            [format!(
                "ignored net={net}: the GPU's PCIe link to its network card is slower; \
                 using the link's 271 Gb/s per GPU"
            )]
        );
    }
    assert!(said("model=gpt-3&gpu=a100-80gb&net=infiniband").is_empty());
    assert!(said("model=gpt-3&gpu=h100-sxm&net=infiniband-400").is_empty());
    // An H100's PCIe 5.0 (126 GB/s both ways) carries no 800 Gb/s either.
    assert_eq!(
        said("model=gpt-3&gpu=h100-sxm&net=infiniband-800"),
        [
            "ignored net=infiniband-800: the GPU's PCIe link to its network card is slower; \
          using the link's 504 Gb/s per GPU"
        ]
    );
    // Beside the network field, which names itself, the value alone (the
    // field read "ignored net=infiniband-800: …", the URL's words).
    let (i, _) = Inputs::from_query("model=gpt-3&gpu=h100-sxm&net=infiniband-800");
    let o = outputs(&i).unwrap();
    let beside: Vec<String> = planner::corrections(&i, &o)
        .iter()
        .filter(|n| n.key == "net")
        .map(|n| n.beside_field())
        .collect();
    assert_eq!(
        beside,
        [
            "infiniband-800 ignored: the GPU's PCIe link to its network card is slower; \
          using the link's 504 Gb/s per GPU"
        ]
    );
    // What the plans time: the link's rate.
    let (i, _) = Inputs::from_query("model=gpt-3&gpu=a100-80gb&net=infiniband-800");
    let hw = i.hardware();
    assert_eq!(hw.network_bandwidth().0, hw.gpu.pcie.0);
}
