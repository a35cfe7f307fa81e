//! Shipping: offline use through the service worker, a new release
//! replacing the old cache, and the Content-Security-Policy.

use std::time::Duration;

use plan3d_core::{planner, state::Inputs, Method};
use plan3d_e2e::{count, dist, serve_controlled, webdriver::Browser};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(20);

#[test]
fn works_offline_after_the_first_visit_and_upgrades_cleanly() {
    // Under a subpath, as on GitHub Pages.
    let server = serve_controlled(dist(), "/plan3d/");
    let b = Browser::start(1200, 1400);
    b.goto(&format!("{}?assume=paper", server.url));
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        WAIT,
    );
    // The service worker takes control and caches the build.
    b.wait("return navigator.serviceWorker.controller !== null", WAIT);
    let cache = b.exec_async(
        "const done = arguments[arguments.length - 1]; caches.keys().then(done);",
        &[],
    );
    let names: Vec<String> = serde_json::from_value(cache).unwrap();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].starts_with("plan3d-"));

    // Network off: a new view still loads and computes.
    server
        .offline
        .store(true, std::sync::atomic::Ordering::SeqCst);
    b.goto(&format!(
        "{}?assume=paper&model=gpt-3&par=data%2Btensor",
        server.url
    ));
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        WAIT,
    );
    let (i, _) = Inputs::from_query("assume=paper&model=gpt-3&par=data%2Btensor");
    let want = planner::outputs(&i)
        .unwrap()
        .selected(Method::Improved)
        .unwrap()
        .evaluation
        .gpus;
    assert_eq!(b.text("plan-improved-gpus"), count(want));

    // A new release (a new sw.js) replaces the old cache.
    server
        .offline
        .store(false, std::sync::atomic::Ordering::SeqCst);
    let sw = std::fs::read_to_string(dist().join("sw.js")).unwrap();
    let old = names[0].clone();
    let next = sw.replace(&old, "plan3d-next-release");
    assert_ne!(sw, next);
    server
        .overrides
        .lock()
        .unwrap()
        .insert("sw.js".into(), next.into_bytes());
    b.exec_async(
        "const done = arguments[arguments.length - 1];
         navigator.serviceWorker.getRegistration().then(r => r.update()).then(() => done(true), e => done(String(e)));",
        &[],
    );
    b.wait(
        "return caches.keys().then(k => k.length === 1 && k[0] === 'plan3d-next-release')",
        WAIT,
    );
    let after: Vec<String> = serde_json::from_value(b.exec_async(
        "const done = arguments[arguments.length - 1]; caches.keys().then(done);",
        &[],
    ))
    .unwrap();
    assert_eq!(after, vec!["plan3d-next-release".to_string()]);
    // Installable: Chromium reports no installability error.
    let errors = b.cdp("Page.getInstallabilityErrors", &json!({}));
    assert_eq!(errors["installabilityErrors"], json!([]), "{errors}");
    // The manifest is served and names its icon.
    let manifest = b.exec_async(
        "const done = arguments[arguments.length - 1];
         fetch('manifest.webmanifest').then(r => r.json()).then(done, e => done(String(e)));",
        &[],
    );
    assert_eq!(manifest["start_url"], json!("./"));
    assert_eq!(manifest["icons"][0]["src"], json!("icon.svg"));
}

#[test]
fn content_security_policy_allows_only_the_page() {
    let server = serve_controlled(dist(), "/");
    let b = Browser::start(1200, 1400);
    b.goto(&format!("{}?assume=paper", server.url));
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        WAIT,
    );
    let csp = b.exec(
        "return document.querySelector('meta[http-equiv=Content-Security-Policy]').content",
        &[],
    );
    let csp = csp.as_str().unwrap();
    assert!(csp.starts_with("default-src 'self'"), "{csp}");
    assert!(
        csp.contains("'wasm-unsafe-eval'")
            && !csp.contains("unsafe-inline")
            && !csp.contains("unsafe-hashes"),
        "{csp}"
    );
    // Exercise the page: sliders, charts, animation.
    b.exec(
        "const s = document.querySelector('[data-testid=size]'); s.value = '11';
         s.dispatchEvent(new Event('input', { bubbles: true }));",
        &[],
    );
    b.scroll_into_view("timeline");
    std::thread::sleep(Duration::from_millis(500));
    // The SVG exports measure their labels too (not with a styled element).
    b.exec(
        "for (const id of ['export-scaling-svg', 'export-memory-svg'])
           document.querySelector(`[data-testid=${id}]`).click();",
        &[],
    );
    std::thread::sleep(Duration::from_millis(300));
    // Nothing the page loaded came from another origin.
    let foreign = b.exec(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))",
        &[],
    );
    assert_eq!(foreign, json!([]));
    // A script from elsewhere is refused: the policy is in force.
    b.exec(
        "const s = document.createElement('script'); s.src = 'https://example.invalid/x.js'; document.head.appendChild(s);",
        &[],
    );
    std::thread::sleep(Duration::from_millis(300));
    let log = b.console();
    let violations: Vec<&String> = log
        .iter()
        .filter(|m| m.contains("Content Security Policy"))
        .collect();
    // Exactly the one we provoked; the page itself breaks none.
    assert_eq!(violations.len(), 1, "{log:#?}");
    assert!(violations[0].contains("example.invalid"), "{violations:?}");
}

#[test]
fn embeds_in_a_600_by_400_iframe() {
    let server = serve_controlled(dist(), "/plan3d/");
    server.overrides.lock().unwrap().insert(
        "host.html".into(),
        br#"<!doctype html><html><body style="margin:0"><p>Docs page</p>
<iframe src="./?model=gpt-3&amp;embed=planner" width="600" height="400" style="border:0"></iframe>
<iframe src="./?embed=scaling" width="600" height="400" style="border:0"></iframe></body></html>"#
            .to_vec(),
    );
    let b = Browser::start(1300, 900);
    b.goto(&format!("{}host.html", server.url));
    b.frame(0);
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        WAIT,
    );
    let (i, _) = Inputs::from_query("model=gpt-3");
    let want = planner::outputs(&i)
        .unwrap()
        .selected(Method::Improved)
        .unwrap()
        .evaluation
        .gpus;
    assert_eq!(b.text("plan-improved-gpus"), count(want));
    // One view, no controls, nothing wider than the frame.
    assert_eq!(
        b.exec(
            "return document.querySelectorAll('[data-testid=size]').length",
            &[]
        ),
        json!(0)
    );
    assert!(
        b.exec("return document.documentElement.scrollWidth", &[])
            .as_u64()
            .unwrap()
            <= 600
    );
    assert!(b.text("embed").starts_with("plan3d"));
    b.top();
    b.frame(1);
    b.wait(
        "return document.querySelector('[data-testid=scaling-chart]')",
        WAIT,
    );
    assert_eq!(
        b.exec(
            "return document.querySelectorAll('[data-testid=plan-improved-gpus]').length",
            &[]
        ),
        json!(0)
    );
    // Let late content (the sweep after the paint) land.
    std::thread::sleep(std::time::Duration::from_millis(400));
    b.top();
    b.screenshot(&plan3d_e2e::root().join("tests/e2e/artifacts/embedded.png"));
}

/// Each embedded view shows its whole answer inside a 600 × 400 iframe:
/// the plans with their days, the scaling chart with its axes, the
/// schedule with its timeline and legend; nothing needs scrolling to be
/// seen — for the paper's GPT-3, Llama 3.1 405B on 16 384 H100s,
/// DeepSeek-V3 on 2 048 H800s (whose caveat once pushed its table out) and
/// a link whose notices once pushed the answer out (423 px of 400).
#[test]
fn each_embedded_view_fits_600_by_400() {
    let server = serve_controlled(dist(), "/");
    let b = Browser::start(1000, 800);
    let cases = [
        ("gpt-3", "assume=paper&amp;model=gpt-3"),
        (
            "llama",
            "model=llama-3.1-405b&amp;gpu=h100-sxm&amp;gpus=16384&amp;tokens=15.6T",
        ),
        (
            "deepseek",
            "model=deepseek-v3&amp;gpu=h800&amp;cluster=2048&amp;batch=15360&amp;prec=fp8",
        ),
        // Three notices (two mistyped keys, a value out of range): each a
        // line at most, two shown, and the answer still in the frame.
        (
            "notices",
            "model=llama-3.1-405b&amp;gpu=h100-sxm&amp;gpus=16384&amp;tokens=15.6T&amp;modle=gpt-3&amp;gpuz=h100&amp;keff=3",
        ),
    ];
    for (name, query) in cases {
        for (view, selector) in [
            ("planner", "[data-testid=plan-improved-days]"),
            ("scaling", "[data-testid=scaling-chart]"),
            ("schedule", "[data-testid=timeline-legend]"),
        ] {
            let host = format!(
                r#"<!doctype html><html><body style="margin:0"><iframe src="./?{query}&amp;embed={view}" width="600" height="400" style="border:0"></iframe></body></html>"#
            );
            let file = format!("host-{name}-{view}.html");
            server
                .overrides
                .lock()
                .unwrap()
                .insert(file.clone(), host.into_bytes());
            b.top();
            b.goto(&format!("{}{file}", server.url));
            b.frame(0);
            b.wait(
                &format!(
                    "const e = document.querySelector('{selector}');
                     if (!e || !document.querySelector('[data-testid=headline], [data-testid=scaling-chart], [data-testid=timeline]')) return null;
                     const r = e.getBoundingClientRect();
                     return r.width > 0 ? [r.left, r.top, r.right, r.bottom, innerWidth, innerHeight,
                         document.documentElement.scrollHeight, document.documentElement.scrollWidth] : null;"
                ),
                WAIT,
            );
            // Let late content (the sweep after the paint) land.
            std::thread::sleep(std::time::Duration::from_millis(400));
            let r = b.exec(
                &format!(
                    "const r = document.querySelector('{selector}').getBoundingClientRect();
                     return [r.left, r.top, r.right, r.bottom, innerWidth, innerHeight,
                         document.documentElement.scrollHeight, document.documentElement.scrollWidth];"
                ),
                &[],
            );
            let v: Vec<f64> = r
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            assert!(
                v[0] >= 0.0 && v[1] >= 0.0 && v[2] <= v[4] && v[3] <= v[5],
                "{name} {view}: {selector} at {v:?} is not within the {}×{} frame",
                v[4],
                v[5]
            );
            assert!(
                v[6] <= v[5] && v[7] <= v[4],
                "{name} {view}: the content is {}×{}, more than the {}×{} frame",
                v[7],
                v[6],
                v[4],
                v[5]
            );
            b.top();
            b.screenshot(
                &plan3d_e2e::root().join(format!("tests/e2e/artifacts/embed-{name}-{view}.png")),
            );
        }
    }
}

#[test]
fn every_export_downloads_and_parses_back() {
    let server = serve_controlled(dist(), "/");
    let b = Browser::start(1400, 2000);
    b.goto(&format!("{}?assume=paper", server.url));
    b.wait(
        "return document.querySelector('[data-testid=plan-optimum-gpus]')",
        WAIT,
    );
    b.scroll_into_view("timeline");
    b.wait(
        "return document.querySelector('[data-testid=frames]').textContent.startsWith('one step')",
        WAIT,
    );
    // Capture downloads instead of saving them, and the blobs behind them
    // (the page's policy forbids fetching blob: URLs, even from a test).
    b.exec(
        "window.__downloads = []; window.__blobs = {};
         const create = URL.createObjectURL;
         URL.createObjectURL = b => { const u = create(b); window.__blobs[u] = b; return u; };
         HTMLAnchorElement.prototype.click = function () { window.__downloads.push({ name: this.download, href: this.href }); };",
        &[],
    );
    let kinds = [
        "plans-csv",
        "plans-json",
        "sweep-csv",
        "sweep-json",
        "scaling-png",
        "scaling-svg",
        "memory-png",
        "memory-svg",
        "schedule-png",
        "schedule-svg",
    ];
    for k in kinds {
        b.exec(
            &format!("document.querySelector('[data-testid=export-{k}]').click()"),
            &[],
        );
    }
    let files = b.exec_async(
        "const done = arguments[arguments.length - 1];
         Promise.all(window.__downloads.map(d => d.href.startsWith('blob:')
             ? window.__blobs[d.href].text().then(t => [d.name, t])
             : Promise.resolve([d.name, d.href]))).then(done, e => done(String(e)));",
        &[],
    );
    let files: Vec<(String, String)> = serde_json::from_value(files).unwrap();
    assert_eq!(files.len(), kinds.len(), "{files:?}");
    let get = |ext: &str, what: &str| {
        files
            .iter()
            .find(|(n, _)| n.starts_with(&format!("plan3d-{what}-")) && n.ends_with(ext))
            .unwrap_or_else(|| {
                panic!(
                    "no {what} {ext} in {:?}",
                    files.iter().map(|f| &f.0).collect::<Vec<_>>()
                )
            })
    };
    // Every export names its inputs.
    for (name, _) in &files {
        assert!(name.contains("model-x160"), "{name}");
    }
    let (_, csv) = get(".csv", "plans");
    assert!(
        csv.starts_with(
            "# plan3d plans for ?model=x160&assume=paper\nmethod,search,data,pipe,tensor,gpus"
        ),
        "{csv}"
    );
    assert!(
        csv.lines()
            .any(|l| l.starts_with("improved,rules,483,5,16,38640,")),
        "{csv}"
    );
    let (_, json) = get(".json", "plans");
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(v["inputs"], json!("model=x160&assume=paper"));
    assert_eq!(v["plans"][3]["search"], json!("exhaustive"));
    assert_eq!(v["plans"][3]["gpus"], json!(38640));
    let (_, sweep) = get(".csv", "sweep");
    assert!(sweep.lines().count() > 100, "{sweep}");
    let (_, sweep_json) = get(".json", "sweep");
    let v: serde_json::Value = serde_json::from_str(sweep_json).unwrap();
    assert!(v["rows"].as_array().unwrap().len() > 100);
    for what in ["scaling", "memory", "schedule"] {
        let (_, png) = get(".png", what);
        assert!(png.starts_with("data:image/png;base64,iVBOR"), "{what}");
        let (_, svg) = get(".svg", what);
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{what}: {}",
            &svg[..80.min(svg.len())]
        );
    }
    assert!(get(".svg", "scaling")
        .1
        .contains("<!-- plan3d scaling for ?model=x160&assume=paper -->"));
    // The link and embed code the page offers.
    let link = b.exec(
        "return document.querySelector('[data-testid=share-link]').value",
        &[],
    );
    assert_eq!(
        link,
        json!(format!("{}?model=x160&assume=paper", server.url))
    );
    let code = b.exec(
        "return document.querySelector('[data-testid=embed-code]').value",
        &[],
    );
    assert!(
        code.as_str().unwrap().starts_with("<iframe src=")
            && code.as_str().unwrap().contains("embed=planner")
    );
}

#[test]
fn saved_scenarios_survive_reloads_and_corrupt_ones_are_skipped() {
    let server = serve_controlled(dist(), "/");
    let b = Browser::start(1400, 1800);
    b.goto(&format!("{}?assume=paper", server.url));
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        WAIT,
    );
    b.exec(
        "localStorage.clear();
         localStorage.setItem('plan3d.scenario.gpt3 on 8', 'model=gpt-3&node=8');
         localStorage.setItem('plan3d.scenario.broken', 'model=<script>x</script>&node=999');
         localStorage.setItem('unrelated', '{not json');",
        &[],
    );
    b.goto(&format!("{}?assume=paper", server.url));
    b.wait(
        "return document.querySelector('[data-testid=scenarios] li')",
        WAIT,
    );
    assert!(
        b.text("notices").contains("corrupt"),
        "{}",
        b.text("notices")
    );
    assert_eq!(b.text("scenarios").matches("delete").count(), 1);
    // Save the current view under a name, reload: it is listed.
    b.exec(
        "const n = document.querySelector('[data-testid=scenario-name]');
         n.value = 'trillion'; n.dispatchEvent(new Event('input', { bubbles: true }));
         document.querySelector('[data-testid=scenario-save]').click();",
        &[],
    );
    b.goto(&format!("{}?assume=paper", server.url));
    b.wait(
        "return document.querySelectorAll('[data-testid=scenarios] li').length == 2",
        WAIT,
    );
    // Loading one restores its inputs.
    b.exec(
        "document.querySelector('[data-testid=\"scenario-gpt3 on 8\"]').click()",
        &[],
    );
    b.wait(
        "return location.search.includes('model=gpt-3') && location.search.includes('node=8')",
        WAIT,
    );
    let (i, _) = Inputs::from_query("model=gpt-3&node=8");
    let want = planner::outputs(&i)
        .unwrap()
        .selected(Method::Improved)
        .unwrap()
        .evaluation
        .gpus;
    let want = count(want);
    b.wait(&format!("return document.querySelector('[data-testid=plan-improved-gpus]').textContent == '{want}'"), WAIT);
}
