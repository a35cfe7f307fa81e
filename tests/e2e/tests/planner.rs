//! The planner in headless Chromium: numbers, sliders, charts, animation,
//! URL state and hostile input, checked against plan3d-core natively.

use std::time::Duration;

use plan3d_core::{
    planner,
    state::{Inputs, ModelChoice},
    Method,
};
use plan3d_e2e::{artifact, count, days, dist, open, serve, set, webdriver::Browser, WAIT};
use serde_json::json;

fn expected(i: &Inputs, m: Method) -> (String, String) {
    let o = planner::outputs(i).unwrap();
    let e = o.selected(m).unwrap().evaluation;
    (count(e.gpus), days(e.time.days()))
}

#[test]
fn planner_numbers_sliders_and_history() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 2000);
    open(
        &b,
        &format!("{base}?assume=paper&model=x160&gpu=a100-80gb&node=16&net=infiniband"),
    );
    // Table 6.1: 3d improved on 38640 GPUs in 6.8 days; the baseline on 35840.
    assert_eq!(b.text("plan-improved-gpus"), "38,640");
    assert_eq!(b.text("plan-improved-days"), "6.8");
    assert_eq!(b.text("plan-baseline-gpus"), "35,840");
    assert!(b.text("headline").contains("38,640 GPUs"));
    assert!(b.text("binding").contains("eq. 9"));
    b.screenshot(&artifact("planner-x160"));

    // Drag the size slider to 1e11 parameters: the numbers follow core.
    let h0 = b.exec("return history.length", &[]);
    for v in ["11.4", "11.2", "11"] {
        set(&b, "size", v, "input");
    }
    let x = Inputs::x_for_params(1e11);
    let mut i = Inputs {
        model: ModelChoice::X(x),
        assumptions: plan3d_core::cost::AssumptionSet::Paper,
        ..Inputs::default()
    };
    let (gpus, d) = expected(&i, Method::Improved);
    b.wait(&format!("return document.querySelector('[data-testid=plan-improved-gpus]').textContent == '{gpus}'"), WAIT);
    assert_eq!(b.text("plan-improved-days"), d);
    // Drags replace the history entry; once the drag pauses, the URL holds
    // the new model.
    b.wait(
        &format!("return location.search.includes('model=x{x}')"),
        WAIT,
    );
    assert_eq!(b.exec("return history.length", &[]), h0);
    let search = b.exec("return location.search", &[]);
    assert!(
        search.as_str().unwrap().contains(&format!("model=x{x}")),
        "{search}"
    );

    // The node-size slider, then a discrete choice that pushes an entry.
    set(&b, "node", "8", "input");
    i.node = Some(8);
    let (gpus8, _) = expected(&i, Method::Improved);
    b.wait(&format!("return document.querySelector('[data-testid=plan-improved-gpus]').textContent == '{gpus8}'"), WAIT);
    b.wait("return location.search.includes('node=8')", WAIT);
    set(&b, "net", "ethernet", "change");
    i.network = plan3d_core::Network::Ethernet25;
    let (gpus_eth, days_eth) = expected(&i, Method::Improved);
    b.wait(&format!("return document.querySelector('[data-testid=plan-improved-days]').textContent == '{days_eth}'"), WAIT);
    assert_eq!(b.text("plan-improved-gpus"), gpus_eth);
    assert_eq!(
        b.exec("return history.length", &[]),
        json!(h0.as_u64().unwrap() + 1)
    );
    // Back restores the InfiniBand plan.
    b.exec("history.back()", &[]);
    b.wait(&format!("return document.querySelector('[data-testid=plan-improved-gpus]').textContent == '{gpus8}'"), WAIT);
    assert!(!b
        .exec("return location.search", &[])
        .as_str()
        .unwrap()
        .contains("net="));

    // The URL round-trips through a reload.
    let before = b.exec("return location.search", &[]);
    b.exec("location.reload()", &[]);
    std::thread::sleep(Duration::from_millis(300));
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        WAIT,
    );
    assert_eq!(b.exec("return location.search", &[]), before);
    assert_eq!(b.text("plan-improved-gpus"), gpus8);
    assert_eq!(
        b.exec(
            "return document.querySelector('[data-testid=node]').value",
            &[]
        ),
        json!("8")
    );
}

#[test]
fn charts_draw_and_the_schedule_animates() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 2400);
    open(&b, &format!("{base}?assume=paper"));
    // A canvas is drawn when many pixels differ from its corner pixel.
    let drawn = "const c = document.querySelector(`[data-testid=\"${arguments[0]}\"]`);
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) {
            if (Math.abs(d[i] - d[0]) + Math.abs(d[i+1] - d[1]) + Math.abs(d[i+2] - d[2]) > 30) n++;
        }
        return n;";
    std::thread::sleep(Duration::from_millis(800));
    for id in [
        "memory-chart",
        "scaling-chart",
        "timeline",
        "memory-strip",
        "compare-a",
        "compare-b",
    ] {
        let n = b.exec(drawn, &[json!(id)]).as_u64().unwrap();
        assert!(n > 500, "{id}: {n} pixels drawn");
    }
    // The animation advances while on screen: frames count up and the
    // timeline changes.
    b.exec(
        "document.querySelector('[data-testid=timeline]').scrollIntoView({ block: 'center' })",
        &[],
    );
    std::thread::sleep(Duration::from_millis(200));
    let frames = |b: &Browser| {
        b.exec(
            "return +document.querySelector('[data-testid=frames]').dataset.frames",
            &[],
        )
        .as_u64()
        .unwrap()
    };
    let hash = "const c = document.querySelector('[data-testid=timeline]');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let h = 0; for (let i = 0; i < d.length; i += 97) h = (h * 31 + d[i]) >>> 0; return h;";
    let (f0, h0) = (frames(&b), b.exec(hash, &[]));
    std::thread::sleep(Duration::from_millis(600));
    let (f1, h1) = (frames(&b), b.exec(hash, &[]));
    assert!(f1 > f0 + 5, "{f0} -> {f1} frames");
    assert_ne!(h0, h1);
    // Pause stops it; scrubbing draws a given position.
    b.exec("document.querySelector('[data-testid=play]').click()", &[]);
    let f2 = frames(&b);
    std::thread::sleep(Duration::from_millis(300));
    assert!(frames(&b) <= f2 + 1);
    set(&b, "scrub", "0.9", "input");
    std::thread::sleep(Duration::from_millis(100));
    assert_ne!(b.exec(hash, &[]), h1);
    // Hovering the scaling chart names a model and its plans.
    b.exec(
        "const c = document.querySelector('[data-testid=scaling-marker]'); const r = c.getBoundingClientRect();
         c.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + r.width * 0.5, clientY: r.top + r.height / 2, bubbles: true }));",
        &[],
    );
    let hover = b.wait(
        "return document.querySelector('[data-testid=scaling-hover]').textContent",
        WAIT,
    );
    assert!(
        hover.as_str().unwrap().contains("layered + modular"),
        "{hover}"
    );
    // The cursor is drawn where the mouse is (the middle), the plan's dot
    // on the chart.
    let marks = b.wait(
        "const l = document.querySelector('#p3-scale-marks line'); const d = document.querySelector('[data-testid=scaling-dot]');
         return l && d ? [parseFloat(l.getAttribute('x1')), parseFloat(d.getAttribute('cx')), parseFloat(d.getAttribute('cy'))] : null",
        WAIT,
    );
    let x = marks[0].as_f64().unwrap();
    assert!((x - 50.0).abs() < 1.0, "cursor at {x} %");
    for v in [marks[1].as_f64().unwrap(), marks[2].as_f64().unwrap()] {
        assert!((0.0..=100.0).contains(&v), "dot at {v} %");
    }
    // The same from the keyboard: focus the chart, step with the arrows.
    let key = |b: &Browser, k: &str| {
        b.exec(
            "const c = document.querySelector('[data-testid=scaling-marker]'); c.focus();
             c.dispatchEvent(new KeyboardEvent('keydown', { key: arguments[0], bubbles: true }));",
            &[json!(k)],
        );
        // The text updates in a microtask: read it in the next call.
        b.text("scaling-hover")
    };
    let first = key(&b, "Home");
    let second = key(&b, "ArrowRight");
    let last = key(&b, "End");
    assert!(
        first.starts_with('X') && first.contains("Megatron-style"),
        "{first}"
    );
    assert!(
        first != second && second != last,
        "{first} | {second} | {last}"
    );
    assert!(last.contains("no method"), "{last}");
    assert_eq!(key(&b, "End"), last, "End stays at the last size");
    b.screenshot(&artifact("planner-charts"));
}

#[test]
fn hostile_urls_are_not_rendered_as_html() {
    let base = serve(dist(), "/");
    let b = Browser::start(1200, 1600);
    let long = "9".repeat(10_000);
    let url = format!(
        "{base}?assume=paper&model=%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E&node=%3Cimg%20src%3Dx%20onerror%3Dwindow.__pwned%3D1%3E\
         &gpus=1e400&days={long}&net=%E2%98%83&keff=NaN&gpu=../../etc/passwd"
    );
    open(&b, &url);
    let notices = b.text("notices");
    for key in ["model=", "node=", "gpus=", "days=", "net=", "keff=", "gpu="] {
        assert!(
            notices.contains(&format!("ignored {key}")),
            "{key}: {notices}"
        );
    }
    assert_eq!(
        b.exec("return typeof window.__pwned", &[]),
        json!("undefined")
    );
    assert_eq!(
        b.exec("return document.querySelectorAll('img').length", &[]),
        json!(0)
    );
    assert_eq!(
        b.exec(
            "return [...document.scripts].filter(s => s.textContent.includes('pwned')).length",
            &[]
        ),
        json!(0)
    );
    // The page still plans with the defaults.
    assert_eq!(b.text("plan-improved-gpus"), "38,640");
    b.screenshot(&artifact("planner-hostile"));
}

/// Huge plans do not freeze the page: X814 without a node limit has a
/// pipeline the page shows scaled down, within a frame's work; and where
/// the exhaustive search is slow (small models on 25 Gb/s Ethernet), it
/// waits for the slider to pause and still arrives.
#[test]
fn huge_plans_and_slow_searches_keep_the_page_responsive() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 1800);
    open(
        &b,
        &format!("{base}?assume=paper&model=x814&node=none&method=baseline"),
    );
    // The schedule is simulated near the screen only.
    b.exec(
        "document.querySelector('[data-testid=timeline]').scrollIntoView()",
        &[],
    );
    let label = b
        .wait(
            "const t = document.querySelector('[data-testid=frames]').textContent;
             return t.includes('one step') ? t : null;",
            WAIT,
        )
        .as_str()
        .unwrap()
        .to_string();
    let i = Inputs::from_query("assume=paper&model=x814&node=none&method=baseline").0;
    let o = planner::outputs(&i).unwrap();
    let p = o.selected(Method::Baseline).unwrap();
    let (_, shown) = planner::plan_schedule(&o.model, &o.hardware, p).unwrap();
    assert!(!shown.whole(), "X814's baseline is too big to show whole");
    assert!(
        label.contains(&format!(
            "{} of its {} stages",
            shown.devices.0, shown.devices.1
        )),
        "{label}"
    );
    // Switching method and back re-simulates: each change is one frame's
    // work, far from the ~1 s the whole pipeline took.
    let ms = b.exec_async(
        "const done = arguments[arguments.length - 1];
         const t = [];
         (async () => {
           for (const m of ['improved', 'baseline', 'partitioned', 'baseline']) {
             const e = document.querySelector('[data-testid=method-' + m + ']');
             const t0 = performance.now();
             e.checked = true;
             e.dispatchEvent(new Event('change', { bubbles: true }));
             // The next task: after the effects and whatever they queued.
             await new Promise(r => setTimeout(r, 0));
             t.push(performance.now() - t0);
             await new Promise(r => setTimeout(r, 50));
           }
           done(t);
         })();",
        &[],
    );
    let worst = ms
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(worst < 200.0, "a method change took {worst} ms");

    // X24 on 25 Gb/s Ethernet: ~170 k evaluations. The optimum arrives,
    // and agrees with core.
    open(
        &b,
        &format!("{base}?assume=paper&model=x24&net=ethernet-25"),
    );
    let i = Inputs::from_query("assume=paper&model=x24&net=ethernet-25").0;
    let best = planner::optimum(&i).unwrap().best.evaluation;
    let gpus = b.wait(
        "const e = document.querySelector('[data-testid=plan-optimum-gpus]'); return e && e.textContent;",
        WAIT,
    );
    assert_eq!(gpus.as_str().unwrap(), count(best.gpus));
    // Dragging the size slider nearby: the rows update at once, the
    // optimum follows once the slider is still.
    for v in ["10.10", "10.14", "10.18"] {
        set(&b, "size", v, "input");
        std::thread::sleep(Duration::from_millis(20));
    }
    let i = Inputs {
        model: ModelChoice::X(Inputs::x_for_params(10f64.powf(10.18))),
        ..i
    };
    let (want, _) = expected(&i, Method::Improved);
    assert_eq!(b.text("plan-improved-gpus"), want);
    let best = planner::optimum(&i).unwrap().best.evaluation;
    b.wait(
        &format!(
            "const e = document.querySelector('[data-testid=plan-optimum-gpus]'); return e && e.textContent === '{}';",
            count(best.gpus)
        ),
        WAIT,
    );
}

/// Every correction is visible, in words (the page used to clear `-5` in
/// the GPU budget silently, and cut a batch above the critical batch
/// without a word); numbers apply while typing, once the typing pauses.
#[test]
fn corrections_are_shown_in_words() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 1600);
    open(&b, &format!("{base}?assume=paper&model=x160&gpus=512"));
    set(&b, "budget", "-5", "change");
    let notices = b.wait(
        "const t = document.querySelector('[data-testid=notices]').textContent;
         return t.includes('gpus=-5') ? t : null;",
        WAIT,
    );
    assert!(
        notices.as_str().unwrap().contains("using 512 GPUs"),
        "{notices}"
    );
    assert_eq!(b.text("plan-improved-gpus"), "512");
    // A valid value clears the notice; typing applies after a pause,
    // without a change event.
    set(&b, "budget", "256", "input");
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]').textContent === '256'",
        WAIT,
    );
    assert!(
        !b.text("notices").contains("gpus="),
        "{}",
        b.text("notices")
    );
    // A batch limit above the critical batch is the critical batch, said so.
    set(&b, "budget", "", "change");
    set(&b, "batch", "9113", "change");
    let notices = b.wait(
        "const t = document.querySelector('[data-testid=notices]').textContent;
         return t.includes('batch=9113') ? t : null;",
        WAIT,
    );
    assert!(
        notices
            .as_str()
            .unwrap()
            .contains("using the critical batch, 2416 sequences"),
        "{notices}"
    );
    // A URL value the page ignores names what it uses instead.
    open(&b, &format!("{base}?assume=paper&model=x160&gpu=h900"));
    assert!(
        b.text("notices").contains("unknown GPU; using a100-80gb"),
        "{}",
        b.text("notices")
    );
}

/// The headline shows the best plan found, the paper's rules as the
/// comparison, and is never blank: with no plan it says why and what to
/// change (it was blank for GPT-3 on 1 024 GPUs with selective
/// recomputation, and showed a plan 13 % slower than the optimum).
#[test]
fn the_headline_is_the_best_plan_and_never_blank() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 1600);
    let headline = |q: &str| {
        b.goto(&format!("{base}?assume=paper&{q}"));
        // The search may answer a frame after the plans.
        b.wait(
            "const e = document.querySelector('[data-testid=headline]'); const t = e && e.textContent;
             return t && !t.includes('searching') && !t.includes('Searching') ? t : null;",
            WAIT,
        )
        .as_str()
        .unwrap()
        .to_string()
    };
    let h = headline("model=gpt-3&gpus=1024");
    assert!(h.contains("The paper's rules: 13 % slower"), "{h}");
    let h = headline("model=gpt-3&gpus=1024&act=selective");
    assert!(
        h.starts_with("Layered + modular (Lamy-Poirier) trains"),
        "{h}"
    );
    assert!(h.contains("The paper's rules find no plan"), "{h}");
    assert!(!b.text("binding").is_empty(), "why this plan is empty");
    assert!(
        !b.text("needs").trim().is_empty(),
        "the network table is empty"
    );
    let h = headline("model=x1000");
    assert!(h.starts_with("No plan for"), "{h}");
    assert!(h.contains("Try a GPU with more memory"), "{h}");
    // Under practice the headline gives the search's own explanation, the
    // sentence the CLI prints: the closest miss and the nearest change.
    b.goto(&format!(
        "{base}?model=x160&gpu=a100-40gb&gpus=8&method=baseline"
    ));
    let h = b
        .wait(
            "const e = document.querySelector('[data-testid=headline]'); const t = e && e.textContent;
             return t && t.includes('Closest') ? t : null;",
            WAIT,
        )
        .as_str()
        .unwrap()
        .to_string();
    assert!(h.starts_with("No plan for"), "{h}");
    assert!(
        h.contains("Closest: memory: the lightest layout tried"),
        "{h}"
    );
    assert!(
        h.contains("with a GPU budget of at least 512 (max_gpus 512)"),
        "{h}"
    );
    // Under practice each row is its method's best; when the method chosen
    // is not the fastest, the headline names the one that is (DeepSeek-V3
    // on 2 048 H800s: Megatron-style 33.3 days, the layered method 37.6).
    let ds =
        "model=deepseek-v3&gpu=h800&node=8&cluster=2048&assume=practice&zb=1&batch=15360&prec=fp8";
    b.goto(&format!("{base}?{ds}&method=improved"));
    b.wait(
        "return document.querySelector('[data-testid=plan-baseline-days]')",
        WAIT,
    );
    let h = b.text("headline");
    assert!(
        h.starts_with("Layered + modular (Lamy-Poirier's proposal, not in Megatron-Core, NeMo or torchtitan) trains"),
        "{h}"
    );
    assert!(
        h.contains("The fastest plan found uses") && h.contains("faster"),
        "{h}"
    );
    // By default the headline is the fastest plan of a method frameworks
    // ship, and the run card costs that plan.
    b.goto(&format!("{base}?{ds}"));
    b.wait(
        "return document.querySelector('[data-testid=plan-baseline-days]')",
        WAIT,
    );
    let h = b.text("headline");
    assert!(
        h.starts_with("Megatron-style trains") || h.starts_with("ZeRO-3 / FSDP trains"),
        "{h}"
    );
    assert!(!h.contains("The fastest plan found uses"), "{h}");
    let (i, _) = Inputs::from_query(ds);
    let o = planner::outputs(&i).unwrap();
    let opt = planner::practice_optimum(&i, &o).unwrap();
    let s = planner::shown(&o, None, Some(&opt), i.shipped()).unwrap();
    let days = format!("{:.1}", s.plan.evaluation.time.days());
    assert!(h.contains(&days), "{h} lacks {days}");
    // Its degrees named, as the CLI names them, and its batch said.
    let c = s.plan.evaluation.config;
    let degrees = format!(
        "(DP {} × PP {} × TP {}{}; batch {} sequences)",
        c.data,
        c.pipe,
        c.tensor,
        if c.expert > 1 {
            format!(" (EP {})", c.expert)
        } else {
            String::new()
        },
        plan3d_core::text::count(c.batch())
    );
    assert!(h.contains(&degrees), "{h} lacks {degrees}");
    // The URL under practice: a plan within 1 024 GPUs.
    b.goto(&format!("{base}?model=gpt-3&gpus=1024&act=selective"));
    let h = b
        .wait(
            "const e = document.querySelector('[data-testid=headline]'); const t = e && e.textContent;
             return t && t.includes('trains') ? t : null;",
            WAIT,
        )
        .as_str()
        .unwrap()
        .to_string();
    assert!(!h.contains("No plan"), "{h}");
    let (i, _) = Inputs::from_query("model=gpt-3&gpus=1024&act=selective");
    let o = planner::outputs(&i).unwrap();
    let opt = planner::practice_optimum(&i, &o).unwrap();
    let s = planner::shown(&o, None, Some(&opt), i.shipped()).unwrap();
    assert!(s.plan.evaluation.gpus <= 1024);
    assert!(
        h.contains(&format!("{} GPUs", count(s.plan.evaluation.gpus))),
        "{h}"
    );
}

/// Choosing an H100 brings its 8-GPU node (the page kept 16 and chose
/// tensor degree 15 for 128 heads).
#[test]
fn the_node_size_follows_the_gpu() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 1600);
    open(&b, &format!("{base}?assume=paper&model=llama-3.1-405b"));
    set(&b, "gpu", "h100-sxm", "change");
    b.wait(
        "return document.querySelector('[data-testid=node-value]').textContent === '8'",
        WAIT,
    );
    let (i, _) = Inputs::from_query("assume=paper&model=llama-3.1-405b&gpu=h100-sxm&node=8");
    let (gpus, _) = expected(&i, Method::Improved);
    b.wait(
        &format!("return document.querySelector('[data-testid=plan-improved-gpus]').textContent == '{gpus}'"),
        WAIT,
    );
}

/// The schedule opens mid-step with the lanes at work, explains its
/// colours, labels its memory strip, and each comparison says what
/// improves.
#[test]
fn the_schedule_explains_itself() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 1800);
    open(&b, &format!("{base}?assume=paper&model=x160&cmp=modular"));
    b.scroll_into_view("timeline");
    b.exec("document.querySelector('[data-testid=play]').click()", &[]);
    std::thread::sleep(Duration::from_millis(200));
    // Coloured (saturated) pixels: compute blocks, not empty lanes.
    let busy = b.exec(
        "const c = document.querySelector('[data-testid=timeline]');
         const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
         let n = 0;
         for (let i = 0; i < d.length; i += 4) {
           const mx = Math.max(d[i], d[i + 1], d[i + 2]), mn = Math.min(d[i], d[i + 1], d[i + 2]);
           if (mx - mn > 40) n++;
         }
         return n / (d.length / 4);",
        &[],
    );
    assert!(
        busy.as_f64().unwrap() > 0.05,
        "{busy} of the timeline is coloured"
    );
    // The legend names the colours drawn: X160's paper plan restores and
    // reduces over the network and sends between stages; nothing offloads,
    // and neither it nor the standard-vs-modular comparison splits its
    // backward.
    let keys = "return [...document.querySelectorAll('[data-testid=timeline-legend] .p3-key')]
                  .filter(k => getComputedStyle(k).display != 'none').map(k => k.textContent)";
    assert_eq!(
        b.exec(keys, &[]),
        json!([
            "forward (layers first → last)",
            "backward (recomputation included)",
            "gradient reduction",
            "parameter restore",
            "pipeline send"
        ])
    );
    let memory = b.text("memory-caption");
    assert!(memory.contains("GiB at its peak"), "{memory}");
    let improves = b.text("cmp-improves");
    assert!(
        improves.contains("bubble") && improves.contains('→'),
        "{improves}"
    );
    set(&b, "cmp", "lga", "change");
    b.wait(
        "return document.querySelector('[data-testid=cmp-improves]').textContent.includes('exposed communication')",
        WAIT,
    );
    // Zero bubble: 4 stages, 8 micro-batches, F = B = W = 1: 1F1B's bubble
    // 3/8 of the work, ZB-H1's a third of it, 1/8.
    set(&b, "cmp", "zb-h1", "change");
    // The zero-bubble comparison draws weight gradients: their key shows.
    b.wait(
        "return [...document.querySelectorAll('[data-testid=timeline-legend] .p3-key')]
           .some(k => k.textContent.startsWith('weight gradient') && getComputedStyle(k).display != 'none')",
        WAIT,
    );
    b.wait(
        "return document.querySelector('[data-testid=cmp-improves]').textContent.includes('Weight gradients')",
        WAIT,
    );
    let zb = b.text("cmp-improves");
    assert!(
        zb.contains("38 % → 1") && (zb.contains("→ 12 %") || zb.contains("→ 13 %")),
        "{zb}"
    );
    // DualPipe: ZB-H1's 1/8 → (p/2 − 1)·2/(m·3) = 1/12 with F = B = W.
    set(&b, "cmp", "dualpipe", "change");
    b.wait(
        "return document.querySelector('[data-testid=cmp-improves]').textContent.includes('both ends')",
        WAIT,
    );
    let dual = b.text("cmp-improves");
    assert!(dual.contains("→ 8 %"), "{dual}");
    // ZB-V: half ZB-H1's, (p − 1)·B/2 over m(F + B + W) = 3/48 = 6 %.
    set(&b, "cmp", "zb-v", "change");
    b.wait(
        "return document.querySelector('[data-testid=cmp-improves]').textContent.includes('in a V')",
        WAIT,
    );
    let v = b.text("cmp-improves");
    assert!(v.contains("→ 6 %"), "{v}");
}

/// A custom shape with grouped-query attention, a gated MLP and a
/// vocabulary, from the URL and from its fields.
#[test]
fn custom_shapes_have_ffn_kv_heads_vocab_and_gating() {
    let base = serve(dist(), "/");
    let b = Browser::start(1400, 1600);
    open(
        &b,
        &format!("{base}?assume=paper&model=custom&seq=8192&heads=32&head=128&layers=32&ffn=14336&kv=8&vocab=128256&gated=1"),
    );
    assert_eq!(
        b.exec(
            "return document.querySelector('[data-testid=custom-kv]').value",
            &[]
        ),
        json!("8")
    );
    let hint = b.exec(
        "return document.querySelector('.p3-controls .p3-hint').textContent",
        &[],
    );
    assert!(
        hint.as_str().unwrap().contains("8 KV heads") && hint.as_str().unwrap().contains("gated"),
        "{hint}"
    );
    let (i, _) = Inputs::from_query(
        "assume=paper&model=custom&seq=8192&heads=32&head=128&layers=32&ffn=14336&kv=8&vocab=128256&gated=1",
    );
    let (gpus, _) = expected(&i, Method::Improved);
    assert_eq!(b.text("plan-improved-gpus"), gpus);
    // Unticking "gated" is a new model: two matrices, not three.
    b.exec(
        "document.querySelector('[data-testid=custom-gated]').click()",
        &[],
    );
    // The parameters shown count the embeddings (6.15 B, not the 5.10 B of
    // the layers alone).
    let mut ungated = i;
    ungated.set_field("gated", "0").unwrap();
    let want = ungated.model.shape().unwrap().params_exact();
    assert!((want / 1e9 - 6.15).abs() < 0.01, "{want}");
    b.wait(
        "return !location.search.includes('gated=1') && document.querySelector('[data-testid=params]').textContent.startsWith('6.15 B')",
        WAIT,
    );
}
