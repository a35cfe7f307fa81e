//! Shipping: offline use through the service worker, a new release
//! replacing the old cache, and the Content-Security-Policy.

use std::time::Duration;

use plan3d_core::{planner, state::Inputs, Method};
use plan3d_e2e::{dist, serve_controlled, webdriver::Browser};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(20);

#[test]
fn works_offline_after_the_first_visit_and_upgrades_cleanly() {
    // Under a subpath, as on GitHub Pages.
    let server = serve_controlled(dist(), "/plan3d/");
    let b = Browser::start(1200, 1400);
    b.goto(&server.url);
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
    b.goto(&format!("{}?model=gpt-3&par=data%2Btensor", server.url));
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        WAIT,
    );
    let (i, _) = Inputs::from_query("model=gpt-3&par=data%2Btensor");
    let want = planner::outputs(&i)
        .unwrap()
        .selected(Method::Improved)
        .unwrap()
        .evaluation
        .gpus;
    assert_eq!(b.text("plan-improved-gpus"), want.to_string());

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
    b.goto(&server.url);
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
        csp.contains("'wasm-unsafe-eval'") && !csp.contains("unsafe-inline"),
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
