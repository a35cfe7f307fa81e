//! The browser benchmark: figures for the README's performance table,
//! printed and written to target/browser-bench.txt. Only the wasm size
//! budget fails the run (the other figures depend on the machine).

use std::fmt::Write as _;
use std::time::Duration;

use plan3d_e2e::{dist, root, serve, webdriver::Browser};
use serde_json::json;

const WASM_GZIP_BUDGET: u64 = 300_000;

fn sizes() -> (u64, u64, u64) {
    let wasm = std::fs::read_dir(dist())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "wasm"))
        .expect("a wasm file in dist/");
    let raw = std::fs::metadata(&wasm).unwrap().len();
    // Node's zlib has both gzip and brotli at their highest levels.
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg(
            "const z = require('zlib'); const b = require('fs').readFileSync(process.argv[1]);
             const gz = z.gzipSync(b, { level: 9 }).length;
             const br = z.brotliCompressSync(b, { params: { [z.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
             console.log(gz + ' ' + br);",
        )
        .arg(&wasm)
        .output()
        .expect("node");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text
        .split_whitespace()
        .map(|v| v.parse::<u64>().unwrap_or(0));
    (raw, it.next().unwrap_or(0), it.next().unwrap_or(0))
}

/// Input change → updated numbers and charts (see the comment where it
/// runs): 360 changes of the size and node sliders, the method and the GPU;
/// per input, the whole frame's and the script's milliseconds.
const LATENCY: &str = "const done = arguments[arguments.length - 1];
         const ch = new MessageChannel();
         const q = id => document.querySelector('[data-testid=' + id + ']');
         // One input change: returns [whole frame, script only] in ms.
         const change = (el, value, type) => new Promise(r => requestAnimationFrame(() => {
           const t0 = performance.now();
           let script = 0;
           if (el.type === 'radio') { el.checked = true; } else { el.value = value; }
           el.dispatchEvent(new Event(type, { bubbles: true }));
           // After the callback's microtasks: the effects are done.
           queueMicrotask(() => Promise.resolve().then(() => { script = performance.now() - t0; }));
           ch.port1.onmessage = () => r([performance.now() - t0, script]);
           ch.port2.postMessage(0);
         }));
         const pause = () => new Promise(r => setTimeout(r, 8));
         (async () => {
           const out = {};
           const run = async (name, n, step) => {
             const frame = [], script = [];
             for (let k = 0; k < n; k++) {
               await pause();
               const [f, s] = await step(k);
               frame.push(f); script.push(s);
             }
             out[name] = [frame, script];
           };
           // A drag over the X family from 10^10 to 10^14 parameters.
           await run('model size slider', 200, k => change(q('size'), (10 + (k % 40) * 0.1).toFixed(2), 'input'));
           // Node size: the scaling sweep and chart change too.
           await run('node size slider', 100, k => change(q('node'), String(1 + (k * 7) % 72), 'input'));
           // Discrete choices: method shown, GPU.
           const methods = ['baseline', 'partitioned', 'improved'];
           await run('method choice', 30, k => change(q('method-' + methods[k % 3]), '', 'change'));
           const gpus = ['a100-40gb', 'h100-sxm', 'a100-80gb'];
           await run('GPU choice', 30, k => change(q('gpu'), gpus[k % 3], 'change'));
           done(out);
         })();";

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// Writes the latency figures of one run: per input and all together,
/// against `budget` ms at p95. Returns the p95 of all.
fn latency_report(report: &mut String, lat: &serde_json::Value, tag: &str, budget: f64) -> f64 {
    let mut all = Vec::new();
    for (name, v) in lat.as_object().expect("latency figures") {
        let mut frame: Vec<f64> = serde_json::from_value(v[0].clone()).unwrap();
        let mut script: Vec<f64> = serde_json::from_value(v[1].clone()).unwrap();
        all.extend(frame.iter().copied());
        writeln!(
            report,
            "input → frame with updated numbers and charts{tag}, {name} ({} changes): p50 {:.1} ms, p95 {:.1} ms (script {:.1} / {:.1})",
            frame.len(),
            percentile(&mut frame, 0.5),
            percentile(&mut frame, 0.95),
            percentile(&mut script, 0.5),
            percentile(&mut script, 0.95),
        )
        .unwrap();
    }
    let p95 = percentile(&mut all, 0.95);
    writeln!(
        report,
        "input → frame with updated numbers and charts{tag}, all {} changes: p50 {:.1} ms, p95 {p95:.1} ms (budget {budget} ms at p95)",
        all.len(),
        percentile(&mut all, 0.5),
    )
    .unwrap();
    p95
}

#[test]
fn browser_benchmark() {
    let mut report = String::new();
    let (raw, gz, br) = sizes();
    writeln!(
        report,
        "wasm: {} KB raw, {} KB gzip, {} KB brotli (budget {} KB gzip)",
        raw / 1000,
        gz / 1000,
        br / 1000,
        WASM_GZIP_BUDGET / 1000
    )
    .unwrap();

    let base = serve(dist(), "/");
    let b = Browser::start(1400, 1800);
    // Time to first result, over five cold navigations.
    let mut first = Vec::new();
    for _ in 0..5 {
        b.goto("about:blank");
        b.goto(&base);
        let v = b.wait(
            "return document.body.dataset.firstResultMs",
            Duration::from_secs(20),
        );
        first.push(v.as_str().unwrap().parse::<f64>().unwrap());
    }
    writeln!(
        report,
        "navigation → first result: median {:.0} ms (of {:?})",
        percentile(&mut first, 0.5),
        first.iter().map(|x| x.round()).collect::<Vec<_>>()
    )
    .unwrap();

    // Input change → updated numbers and charts. Chromium dispatches a
    // slider drag's `input` events at the start of a frame, just before
    // requestAnimationFrame callbacks; so does this measure: it sets the
    // value and dispatches `input` in a rAF callback (t0). leptos's effects
    // run in the microtask checkpoint after the callback; the frame then
    // recalculates style, lays out, paints and commits to the compositor.
    // A message posted from the callback runs as the first task after that
    // frame (t1). t1 − t0 is everything the page does until the frame that
    // shows the new numbers, tables and canvases is handed over; what the
    // compositor and display do after that is not the page's. A click or
    // keypress that is not frame-aligned also waits for the next frame
    // (up to 16.7 ms at 60 Hz) before this starts.
    let lat = b.exec_async(LATENCY, &[]);
    latency_report(&mut report, &lat, "", 16.0);
    // The same changes from X[160] on A100s, 16 to a node (the page's
    // opening before it opened on Llama 3.1 405B): what the page itself
    // costs, apart from the opening's heavier searches.
    b.goto(&format!("{base}?model=x160"));
    b.wait(
        "return document.body.dataset.firstResultMs",
        Duration::from_secs(20),
    );
    let lat = b.exec_async(LATENCY, &[]);
    latency_report(&mut report, &lat, " (from ?model=x160)", 16.0);
    b.goto(&base);
    b.wait(
        "return document.body.dataset.firstResultMs",
        Duration::from_secs(20),
    );

    // The same with a real mouse drag (WebDriver pointer actions), which
    // checks the premise: a listener that runs before the app's records
    // t0 and asks for an animation frame; if Chromium dispatched the input
    // at the start of a frame, that callback runs in the same frame and
    // its message comes right after it; otherwise the figure includes the
    // wait for the next frame.
    b.exec(
        "const s = document.querySelector('[data-testid=size]');
         window.__drag = [];
         const ch = new MessageChannel();
         const pending = [];
         ch.port1.onmessage = () => { const t0 = pending.shift(); window.__drag.push(performance.now() - t0); };
         s.addEventListener('input', () => {
           const t0 = performance.now();
           requestAnimationFrame(() => { pending.push(t0); ch.port2.postMessage(0); });
         }, { capture: true });
         s.scrollIntoView({ block: 'center' });",
        &[],
    );
    std::thread::sleep(Duration::from_millis(200));
    let r = b.exec(
        "const r = document.querySelector('[data-testid=size]').getBoundingClientRect();
         return [r.left, r.right, r.top + r.height / 2];",
        &[],
    );
    let (left, right, y) = (
        r[0].as_f64().unwrap_or(0.0) as i64,
        r[1].as_f64().unwrap_or(0.0) as i64,
        r[2].as_f64().unwrap_or(0.0) as i64,
    );
    let (a, z) = (left + (right - left) / 4, left + 3 * (right - left) / 4);
    b.drag((a, y), (z, y), 60, 20);
    b.drag((z, y), (a, y), 60, 20);
    std::thread::sleep(Duration::from_millis(300));
    let mut drag: Vec<f64> =
        serde_json::from_value(b.exec("return window.__drag", &[])).unwrap_or_default();
    if drag.is_empty() {
        writeln!(report, "real mouse drag: no input events arrived").unwrap();
    } else {
        let n = drag.len();
        writeln!(
            report,
            "input → frame with updated numbers and charts, real mouse drag over the size slider ({n} input events): p50 {:.1} ms, p95 {:.1} ms",
            percentile(&mut drag, 0.5),
            percentile(&mut drag, 0.95)
        )
        .unwrap();
    }

    // Animation frame rate on the biggest default schedule: the baseline's
    // 160-stage pipeline.
    b.goto(&format!("{base}?method=baseline"));
    b.wait(
        "return document.body.dataset.firstResultMs",
        Duration::from_secs(20),
    );
    // The animation runs while the timeline is on screen.
    b.scroll_into_view("timeline");
    std::thread::sleep(Duration::from_millis(500));
    let frames = |b: &Browser| {
        b.exec(
            "return +document.querySelector('[data-testid=frames]').dataset.frames",
            &[],
        )
        .as_f64()
        .unwrap()
    };
    let (f0, t0) = (frames(&b), std::time::Instant::now());
    std::thread::sleep(Duration::from_secs(3));
    let fps = (frames(&b) - f0) / t0.elapsed().as_secs_f64();
    let events = b.text("frames");
    writeln!(
        report,
        "animation: {fps:.0} frames/s on the 3d baseline schedule ({events}) (budget 55)"
    )
    .unwrap();

    // The frontier schedules animated beside 1F1B (ZB-H1, DualPipe, ZB-V): the
    // intervals between 120 animation frames with the comparison on
    // screen; at 60 Hz each is 16.7 ms, a frame whose work overruns shows
    // as a longer one.
    for cmp in ["zb-h1", "dualpipe", "zb-v"] {
        b.goto(&format!("{base}?cmp={cmp}"));
        b.wait(
            "return document.body.dataset.firstResultMs",
            Duration::from_secs(20),
        );
        b.scroll_into_view("compare-a");
        std::thread::sleep(Duration::from_millis(500));
        let d = b.exec_async(
            "const done = arguments[arguments.length - 1];
             const ds = []; let last = performance.now();
             const tick = t => { ds.push(t - last); last = t;
               if (ds.length < 120) requestAnimationFrame(tick); else done(ds.slice(1)); };
             requestAnimationFrame(tick);",
            &[],
        );
        let mut ds: Vec<f64> = d
            .as_array()
            .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
            .unwrap_or_default();
        let longest = ds.iter().copied().fold(0.0, f64::max);
        let over = ds.iter().filter(|&&x| x > 20.0).count();
        writeln!(
            report,
            "animation of the {cmp} comparison: p95 frame interval {:.1} ms, longest {longest:.1} ms, {over} of {} frames over 20 ms",
            percentile(&mut ds, 0.95),
            ds.len()
        )
        .unwrap();
    }

    // The same page on a mid-range phone: Chromium's CPU throttled 4×
    // (DevTools' Emulation.setCPUThrottlingRate). Goals: p95 ≤ 50 ms and
    // no task over 200 ms (long tasks as Chromium reports them).
    b.cdp("Emulation.setCPUThrottlingRate", &json!({ "rate": 4 }));
    b.script_timeout(Duration::from_secs(300));
    let mut first = Vec::new();
    for _ in 0..3 {
        b.goto("about:blank");
        b.goto(&base);
        let v = b.wait(
            "return document.body.dataset.firstResultMs",
            Duration::from_secs(60),
        );
        first.push(v.as_str().unwrap().parse::<f64>().unwrap());
    }
    writeln!(
        report,
        "4× CPU throttling: navigation → first result: median {:.0} ms (of {:?})",
        percentile(&mut first, 0.5),
        first.iter().map(|x| x.round()).collect::<Vec<_>>()
    )
    .unwrap();
    b.exec(
        "window.__longest = 0;
         new PerformanceObserver(l => { for (const e of l.getEntries()) window.__longest = Math.max(window.__longest, e.duration); })
           .observe({ type: 'longtask' });",
        &[],
    );
    // A p95 over one pass moves by several milliseconds from run to run
    // here: three passes, each reported, and their median.
    let lat = b.exec_async(LATENCY, &[]);
    let mut p95s = vec![latency_report(
        &mut report,
        &lat,
        " (4× CPU throttling)",
        50.0,
    )];
    for _ in 0..2 {
        let lat = b.exec_async(LATENCY, &[]);
        p95s.push(latency_report(
            &mut String::new(),
            &lat,
            " (4× CPU throttling)",
            50.0,
        ));
    }
    let passes = p95s.iter().map(|p| format!("{p:.1}")).collect::<Vec<_>>();
    writeln!(
        report,
        "input → frame with updated numbers and charts (4× CPU throttling), all 360 changes, three passes: p95 {} ms, median {:.1} ms (budget 50 ms)",
        passes.join(", "),
        percentile(&mut p95s, 0.5)
    )
    .unwrap();
    let longest = b
        .exec("return window.__longest", &[])
        .as_f64()
        .unwrap_or(0.0);
    writeln!(
        report,
        "4× CPU throttling: longest task during the 3 × 360 changes: {longest:.0} ms (goal ≤ 200 ms; tasks under 50 ms are not reported)"
    )
    .unwrap();
    b.cdp("Emulation.setCPUThrottlingRate", &json!({ "rate": 1 }));

    // JS heap after 1,000 input changes.
    b.goto(&base);
    b.wait(
        "return document.body.dataset.firstResultMs",
        Duration::from_secs(20),
    );
    let heap = b.exec_async(
        "const done = arguments[arguments.length - 1];
         const s = document.querySelector('[data-testid=node]');
         // After a full collection (Chromium started with --expose-gc), so
         // that the figure is what stays alive, not when the GC last ran.
         const used = () => { if (window.gc) gc(); return performance.memory ? performance.memory.usedJSHeapSize : 0; };
         (async () => {
           const h0 = used();
           for (let k = 0; k < 1000; k++) {
             s.value = String(1 + (k % 32));
             s.dispatchEvent(new Event('input', { bubbles: true }));
             if (k % 50 == 0) await new Promise(r => setTimeout(r, 0));
           }
           await new Promise(r => setTimeout(r, 200));
           done([h0, used()]);
         })();",
        &[],
    );
    let (h0, h1) = (
        heap[0].as_f64().unwrap_or(0.0),
        heap[1].as_f64().unwrap_or(0.0),
    );
    writeln!(
        report,
        "JS heap after a full GC: {:.2} MB before, {:.2} MB after 1,000 input changes",
        h0 / 1e6,
        h1 / 1e6
    )
    .unwrap();

    print!("{report}");
    let path = root().join("target/browser-bench.txt");
    std::fs::write(&path, &report).unwrap();
    assert!(
        gz <= WASM_GZIP_BUDGET,
        "wasm is {gz} bytes gzip, over the {WASM_GZIP_BUDGET} budget"
    );
}
