//! The practice page in headless Chromium: the whole run card, a layout
//! given by URL, the opening on a run of today, each view following its
//! cost model; checked against plan3d-core natively.

use plan3d_core::{planner, state::Inputs};
use plan3d_e2e::{artifact, count, days, dist, open, serve, set, webdriver::Browser, WAIT};

/// The whole run: the card shows core's wall-clock days, goodput and cost
/// for the plan shown; the price and the token budget are URL state and
/// move the numbers as core says; the strip draws the ramp and the
/// expected interruptions.
#[test]
fn the_whole_run_card() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 2000);
    let q = "model=llama-3.1-70b&gpu=h100-sxm&node=8&cluster=1024&batch=1024&method=baseline";
    open(&b, &format!("{base}?{q}"));
    b.wait(
        "return document.querySelector('[data-testid=run-wall]')",
        WAIT,
    );
    let (i, _) = Inputs::from_query(q);
    let core_run = |i: &Inputs| {
        let o = planner::outputs(i).unwrap();
        let opt = planner::practice_optimum(i, &o);
        let shown = planner::shown(&o, i.method, opt.as_ref(), i.shipped()).unwrap();
        planner::whole_run(i, &o, &shown.plan).unwrap()
    };
    let r = core_run(&i);
    assert_eq!(b.text("run-wall"), format!("{} days", days(r.wall_days())));
    assert_eq!(b.text("run-goodput"), format!("{:.0} %", 100.0 * r.goodput));
    assert!(b.text("run-cost").starts_with('$'));
    // One ramp phase, and interruption marks.
    let marks = b.exec(
        "const s = document.querySelector('[data-testid=run-strip]');
         const p = s.querySelector('path');
         return [s.querySelectorAll('rect').length, p ? p.getAttribute('d').split('M').length - 1 : 0];",
        &[],
    );
    assert_eq!(marks[0], 1);
    assert!(marks[1].as_u64().unwrap() > 0);
    // The band's batch is said in the caption, not drawn in the stretched
    // SVG (where a phone squeezed it unreadable).
    let caption = b.exec(
        "const s = document.querySelector('[data-testid=run-strip]');
         return [s.querySelectorAll('text').length, s.parentElement.querySelector('figcaption').textContent];",
        &[],
    );
    assert_eq!(caption[0], 0);
    let caption = caption[1].as_str().unwrap();
    assert!(
        caption.starts_with("Batch: ") && caption.contains(" tokens per step. "),
        "{caption}"
    );
    // A price: the cost follows it, and the URL keeps it.
    let cost0 = b.text("run-cost");
    set(&b, "run-price", "5", "change");
    b.wait(
        &format!(
            "return document.querySelector('[data-testid=run-cost]').textContent != '{cost0}'"
        ),
        WAIT,
    );
    let priced = Inputs {
        price: Some(5.0),
        ..i
    };
    let r5 = core_run(&priced);
    assert!(
        (r5.cost - 2.0 * r.cost).abs() < 1e-6 * r.cost,
        "$5 is twice $2.50"
    );
    b.wait("return location.search.includes('price=5')", WAIT);
    // The token budget slider: 10^12 tokens.
    set(&b, "run-tokens", "12", "input");
    let t = Inputs {
        tokens: Some(1e12),
        ..priced
    };
    let rt = core_run(&t);
    b.wait(
        &format!(
            "return document.querySelector('[data-testid=run-wall]').textContent == '{} days'",
            days(rt.wall_days())
        ),
        WAIT,
    );
    b.screenshot(&artifact("run-card"));
}

/// A layout to check, by URL and in the page's fields: Meta's Llama 3.1
/// 405B layout (TP 8, PP 16, DP 128 at 2 048 sequences) is what the
/// Megatron-style row plans, its fields show it, and clearing a field lets
/// the search choose again.
#[test]
fn a_layout_given_by_url_is_checked_and_shown() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 1600);
    b.goto(&format!(
        "{base}?model=llama-3.1-405b&gpu=h100-sxm&node=8&tp=8&pp=16&dp=128&batch=2048&method=baseline"
    ));
    let row = b
        .wait(
            "const r = document.querySelector('[data-testid=plan-baseline]');
             return r && r.textContent.includes('16,384') ? r.textContent : null;",
            WAIT,
        )
        .as_str()
        .unwrap()
        .to_string();
    assert!(row.contains("128 × 16 × 8"), "{row}");
    let field = |id: &str| {
        b.exec(
            "return document.querySelector('[data-testid=' + arguments[0] + ']').value;",
            &[serde_json::json!(id)],
        )
        .as_str()
        .unwrap()
        .to_string()
    };
    assert_eq!(
        (field("dp"), field("pp"), field("tp")),
        ("128".into(), "16".into(), "8".into())
    );
    assert!(
        b.exec(
            "return document.querySelector('[data-testid=layout]').open;",
            &[]
        ) == serde_json::json!(true)
    );
    // Cleared, the data degree is searched again.
    b.exec(
        "const f = document.querySelector('[data-testid=dp]');
         f.value = ''; f.dispatchEvent(new Event('change'));",
        &[],
    );
    b.wait("return !location.search.includes('dp=') || null;", WAIT);
}

/// "Check a layout" on a desktop (1440 px): opened by a click on its
/// summary, each field takes a real click (the element under the pointer
/// is the input, not a result card beside the sidebar) and typed digits;
/// the page then checks Meta's layout. Its labels are as wide as the
/// sidebar's other labels, not squeezed to nothing.
#[test]
fn the_layout_fields_take_clicks_and_keys_on_a_desktop() {
    let base = serve(dist(), "/");
    let b = Browser::start(1440, 900);
    b.goto(&format!(
        "{base}?model=llama-3.1-405b&gpu=h100-sxm&node=8&cluster=16384&batch=2048&method=baseline"
    ));
    b.wait(
        "const r = document.querySelector('[data-testid=plan-baseline]');
         return r && r.textContent.includes('16,384');",
        WAIT,
    );
    assert_eq!(b.click("[data-testid=layout] summary"), "summary");
    b.wait(
        "return document.querySelector('[data-testid=layout]').open;",
        WAIT,
    );
    for (id, value) in [("tp", "8"), ("pp", "16"), ("dp", "128")] {
        let hit = b.click(&format!("[data-testid={id}]"));
        assert_eq!(hit, id, "a click on the {id} field landed on {hit}");
        let focused = b.exec("return document.activeElement.dataset.testid || '';", &[]);
        assert_eq!(focused, serde_json::json!(id));
        b.keys(&format!("{value}\u{E007}"));
    }
    let widths = b.exec(
        "const w = id => document.querySelector(`label[for=${id}]`).getBoundingClientRect().width;
         return [w('p3-dp'), w('p3-gpu')];",
        &[],
    );
    let (dp, gpu) = (widths[0].as_f64().unwrap(), widths[1].as_f64().unwrap());
    assert!(
        dp > 0.8 * gpu && dp > 150.0,
        "label widths: dp {dp}, gpu {gpu}"
    );
    b.wait(
        "return location.search.includes('tp=8') && location.search.includes('pp=16')
             && location.search.includes('dp=128');",
        WAIT,
    );
    let row = b
        .wait(
            "const r = document.querySelector('[data-testid=plan-baseline]');
             return r && r.textContent.includes('128 × 16 × 8') ? r.textContent : null;",
            WAIT,
        )
        .as_str()
        .unwrap()
        .to_string();
    assert!(row.contains("16,384"), "{row}");
    b.screenshot(&artifact("layout-typed-1440.png"));
}

/// The page opens on a run of today (Llama 3.1 405B, up to 16 384 H100s,
/// 15.6 T tokens): its plan uses at least half the budget and "Why this
/// plan" says what limits it; every view follows the cost model shown (the
/// scaling chart, the network card, the footer); a correction is said
/// beside the field that caused it.
#[test]
fn the_page_opens_on_a_run_of_today_and_each_view_follows_its_cost_model() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 1800);
    open(&b, &base);
    let (i, _) = Inputs::from_page_query("");
    let o = planner::outputs(&i).unwrap();
    let opt = planner::practice_optimum(&i, &o).unwrap();
    let s = planner::shown(&o, None, Some(&opt), i.shipped()).unwrap();
    assert!(s.plan.evaluation.gpus >= 8192);
    let h = b.text("headline");
    assert!(h.contains("405.9 B") && h.contains("15.6 T tokens"), "{h}");
    assert!(
        h.contains(&format!("{} GPUs", count(s.plan.evaluation.gpus))),
        "{h}"
    );
    let why = b.text("binding");
    assert!(
        why.contains("today's batch for a run of this size"),
        "{why}"
    );
    // One run's two day counts, each named: the table's training days and
    // the run card's wall clock, both in the headline.
    let train = days(s.plan.evaluation.time.days());
    assert!(h.contains(&format!("{train} days of training")), "{h}");
    assert_eq!(
        b.text(&format!("plan-{}-days", s.plan.method.name())),
        train
    );
    let wall = b.text("run-wall");
    assert!(h.contains(&format!("({wall} wall-clock")), "{h} / {wall}");
    // Practice views: the network's exposed seconds, the practice sweep,
    // the practice footer.
    assert!(
        b.text("exposed").contains("data-parallel"),
        "{}",
        b.text("exposed")
    );
    assert!(b.text("scaling-note").contains("20 tokens per parameter"));
    assert!(b.text("footer").contains("practice model"));
    b.exec(
        "document.querySelector('[data-testid=timeline]').scrollIntoView()",
        &[],
    );
    b.wait(
        "return document.querySelector('[data-testid=schedule-title]').textContent.startsWith('Schedule of the plan: ')",
        WAIT,
    );
    // The paper: its own chart, table and footer.
    b.goto(&format!("{base}?assume=paper&model=x160"));
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        WAIT,
    );
    assert!(b.text("footer").contains("10⁵ steps"));
    assert!(b.text("scaling-note").contains("critical batch"));
    assert!(!b.text("needs").trim().is_empty());
    // FP8 on an A100: said at the precision field.
    b.goto(&format!(
        "{base}?model=llama-3.1-70b&gpu=a100-80gb&node=8&cluster=512&prec=fp8"
    ));
    let note = b
        .wait(
            "const n = document.querySelector('#p3-prec ~ [data-testid=field-note]');
             return n ? n.textContent : null;",
            WAIT,
        )
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        note.contains("no FP8 tensor cores") && note.ends_with("using BF16"),
        "{note}"
    );
    b.screenshot(&artifact("opening-and-fp8-note"));
}

/// The loss's field: choosing PyTorch's eager cross-entropy writes `ce` to
/// the URL and doubles the last stage's logits in "Why this plan" (the
/// layout fixed, so that the plan stays the same); the compiled loss,
/// chosen on a desktop with a real click and the keyboard, keeps a third
/// of eager's (4 bytes a logit against 12).
#[test]
fn the_loss_field_sets_the_logits_memory() {
    let base = serve(dist(), "/");
    let b = Browser::start(1440, 1600);
    open(
        &b,
        &format!("{base}?model=llama-3.1-8b&gpu=h100-sxm&gpus=8&dp=8&pp=1&tp=1&mb=1"),
    );
    let logits = |b: &Browser| -> f64 {
        let why = b.text("binding");
        // The heaviest stage's "…, logits X, reserve …" (the step's
        // kernel classes name "logits" too, with a share).
        let at = why.find(", logits ").expect("a logits figure");
        why[at + 9..]
            .split(|c: char| c == ',' || c.is_whitespace())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    // The field shows the loss in use: practice's default, then a URL's.
    let shown = |b: &Browser| {
        b.exec(
            "return document.querySelector('[data-testid=ce]').value",
            &[],
        )
    };
    assert_eq!(shown(&b), serde_json::json!("vocab-parallel"));
    let before = logits(&b);
    let text = b.text("binding");
    set(&b, "ce", "eager", "change");
    b.wait(
        &format!(
            "return location.search.includes('ce=eager') && \
             document.querySelector('[data-testid=binding]').textContent.trim() != {}",
            serde_json::json!(text)
        ),
        WAIT,
    );
    let after = logits(&b);
    assert!((after / before - 2.0).abs() < 0.05, "{before} -> {after}");
    let text = b.text("binding");
    let hit = b.click("[data-testid=ce]");
    assert_eq!(hit, "ce", "the click on the loss select landed on {hit}");
    // From eager, one entry down (compiled) and Enter.
    b.keys("\u{E015}\u{E007}");
    b.wait(
        &format!(
            "return location.search.includes('ce=compiled') && \
             document.querySelector('[data-testid=binding]').textContent.trim() != {}",
            serde_json::json!(text)
        ),
        WAIT,
    );
    assert_eq!(shown(&b), serde_json::json!("compiled"));
    let compiled = logits(&b);
    assert!(
        (compiled / after - 1.0 / 3.0).abs() < 0.02,
        "{after} -> {compiled}"
    );
    b.screenshot(&artifact("loss-compiled-1440"));
    open(
        &b,
        &format!("{base}?model=llama-3.1-8b&gpu=h100-sxm&ce=fused-linear"),
    );
    assert_eq!(shown(&b), serde_json::json!("fused-linear"));
}

/// A slider drag updates the answer in each frame and the explanations of
/// the plan shown (why this plan, its network, its whole run) once the
/// hand is still; a discrete choice updates everything at once. Either
/// way they end on core's figures for the inputs.
#[test]
fn the_explanations_follow_a_slider_once_it_is_still() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 1600);
    open(&b, &base);
    b.wait(
        "return document.querySelector('[data-testid=run-wall]')",
        WAIT,
    );
    // In the task after the input: the headline has moved, the run card
    // and the reasons not yet.
    let seen = b.exec_async(
        "const done = arguments[arguments.length - 1];
         const t = id => document.querySelector('[data-testid=' + id + ']').textContent;
         const before = [t('headline'), t('run-wall'), t('binding')];
         const e = document.querySelector('[data-testid=size]');
         e.value = '10.60';
         e.dispatchEvent(new Event('input', { bubbles: true }));
         setTimeout(() => done([before, [t('headline'), t('run-wall'), t('binding')]]), 0);",
        &[],
    );
    let (before, after) = (&seen[0], &seen[1]);
    assert_ne!(before[0], after[0], "the headline follows the drag at once");
    assert_eq!(before[1], after[1], "the run card waits for the hand");
    assert_eq!(before[2], after[2], "why this plan waits for the hand");
    // Once still: core's figures for the slid inputs.
    let mut i = Inputs::opening();
    let _ = i.slide_size(10f64.powf(10.6));
    let o = planner::outputs(&i).unwrap();
    let opt = planner::practice_optimum(&i, &o);
    let shown = planner::shown(&o, i.method, opt.as_ref(), i.shipped()).unwrap();
    let r = planner::whole_run(&i, &o, &shown.plan).unwrap();
    b.wait(
        &format!(
            "return document.querySelector('[data-testid=run-wall]').textContent == '{} days'",
            days(r.wall_days())
        ),
        WAIT,
    );
    assert_ne!(b.text("binding"), before[2].as_str().unwrap().trim());
    // The token budget's own slider: its figure follows the thumb at once,
    // the run once the hand is still.
    let seen = b.exec_async(
        "const done = arguments[arguments.length - 1];
         const t = id => document.querySelector('[data-testid=' + id + ']').textContent;
         const wall = t('run-wall');
         const e = document.querySelector('[data-testid=run-tokens]');
         e.value = '12';
         e.dispatchEvent(new Event('input', { bubbles: true }));
         setTimeout(() => done([t('run-tokens-value'), wall, t('run-wall')]), 0);",
        &[],
    );
    assert_eq!(seen[0], "1 T tokens");
    assert_eq!(seen[1], seen[2], "the run waits for the hand");
    // A discrete choice (the GPU): everything in the same update.
    let seen = b.exec_async(
        "const done = arguments[arguments.length - 1];
         const t = id => document.querySelector('[data-testid=' + id + ']').textContent;
         const before = [t('run-wall'), t('binding')];
         const e = document.querySelector('[data-testid=gpu]');
         e.value = 'a100-80gb';
         e.dispatchEvent(new Event('change', { bubbles: true }));
         setTimeout(() => done([before, [t('run-wall'), t('binding')]]), 0);",
        &[],
    );
    assert_ne!(
        seen[0][0], seen[1][0],
        "the run card follows a choice at once"
    );
    assert_ne!(
        seen[0][1], seen[1][1],
        "why this plan follows a choice at once"
    );
}

/// The framework select on a desktop (1440 px) takes a real click and the
/// keyboard: choosing plain PyTorch AMP (four entries down) puts `fw` in
/// the URL, and "Why this plan" counts the heaviest stage's memory as that
/// framework allocates it, with AMP's heavier state than Megatron-Core's.
#[test]
fn the_framework_select_takes_a_click_and_keys() {
    let base = serve(dist(), "/");
    let b = Browser::start(1440, 900);
    b.goto(&format!(
        "{base}?model=llama-3.1-8b&gpu=h100-sxm&node=8&gpus=8"
    ));
    let why = |who: &str| {
        b.wait(
            &format!(
                "const t = document.body.textContent;
                 return t.includes('as {who} allocates it') ? t : null;"
            ),
            WAIT,
        );
    };
    why("Megatron-Core (NeMo)");
    let hit = b.click("[data-testid=fw]");
    assert_eq!(
        hit, "fw",
        "the click on the framework select landed on {hit}"
    );
    // Down four entries (megatron-2022, torchtitan, pytorch-fsdp, pytorch)
    // and Enter.
    b.keys("\u{E015}\u{E015}\u{E015}\u{E015}\u{E007}");
    b.wait("return location.search.includes('fw=pytorch');", WAIT);
    why("plain PyTorch AMP");
    let value = b.exec(
        "return document.querySelector('[data-testid=fw]').value;",
        &[],
    );
    assert_eq!(value, serde_json::json!("pytorch"));
    b.screenshot(&artifact("framework-1440"));
}
