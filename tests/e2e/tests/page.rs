//! The built page loads in headless Chromium, also under a subpath.

use plan3d_e2e::{dist, dump_dom, screenshot, serve, webdriver::Browser};
use serde_json::json;

#[test]
fn page_loads_and_shows_core_numbers() {
    let url = serve(dist(), "/");
    let dom = dump_dom(&format!("{url}?assume=paper&model=x160"));
    assert!(
        dom.contains(r#"data-testid="plan-improved-gpus">38,640<"#),
        "{dom}"
    );
    let shot = screenshot(&url, "page", 1400, 1800);
    assert!(std::fs::metadata(shot).unwrap().len() > 10_000);
}

#[test]
fn page_works_under_a_subpath() {
    // GitHub Pages serves a project at /REPO/: asset paths must be relative.
    let url = serve(dist(), "/plan3d/");
    let dom = dump_dom(&format!("{url}?assume=paper"));
    assert!(
        dom.contains(r#"data-testid="plan-improved-gpus">38,640<"#),
        "{dom}"
    );
}

/// A phone's width in the dark: nothing wider than the screen (tables
/// scroll inside their cards), the theme follows prefers-color-scheme,
/// canvases are redrawn dark.
#[test]
fn phone_width_and_dark_mode() {
    let url = serve(dist(), "/");
    let b = Browser::start(390, 844);
    // A desktop window cannot be narrower than ~500 px: emulate the phone.
    b.cdp(
        "Emulation.setDeviceMetricsOverride",
        &json!({ "width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": false }),
    );
    b.cdp(
        "Emulation.setEmulatedMedia",
        &json!({ "features": [{ "name": "prefers-color-scheme", "value": "dark" }] }),
    );
    b.goto(&format!("{url}?assume=paper&model=x160"));
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        std::time::Duration::from_secs(20),
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let overflow = b.exec(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
        &[],
    );
    assert!(
        overflow.as_f64().unwrap() <= 0.0,
        "page wider than the phone by {overflow} px"
    );
    // Dark background, light text.
    let lum = b.exec(
        "const l = c => { const m = c.match(/\\d+/g).map(Number); return (m[0] + m[1] + m[2]) / 3; };
         const s = getComputedStyle(document.body);
         return [l(s.backgroundColor), l(s.color)];",
        &[],
    );
    assert!(
        lum[0].as_f64().unwrap() < 60.0 && lum[1].as_f64().unwrap() > 180.0,
        "{lum}"
    );
    // The memory chart's background: its corner pixel's brightness.
    let corner = |b: &Browser| {
        b.exec(
            "const c = document.querySelector('[data-testid=memory-chart]');
             const d = c.getContext('2d').getImageData(2, 2, 1, 1).data; return (d[0] + d[1] + d[2]) / 3;",
            &[],
        )
        .as_f64()
        .unwrap()
    };
    assert!(
        corner(&b) < 60.0,
        "dark memory chart: corner {}",
        corner(&b)
    );
    b.screenshot(&plan3d_e2e::root().join("tests/e2e/artifacts/phone-dark.png"));
    // Canvases have a pixel per CSS pixel across their width (labels keep
    // their size), also after the window grows.
    let fitted = "return [...document.querySelectorAll('canvas.p3-chart')]
        .filter(c => c.clientWidth > 0)
        .map(c => [c.dataset.testid, c.width / devicePixelRatio - c.clientWidth]);";
    let check = |b: &Browser| {
        let v = b.exec(fitted, &[]);
        let v = v.as_array().unwrap();
        assert!(v.len() >= 6, "{v:?}");
        for c in v {
            assert!(c[1].as_f64().unwrap().abs() <= 1.0, "not fitted: {c}");
        }
    };
    check(&b);
    let width = |b: &Browser| {
        b.exec(
            "return document.querySelector('[data-testid=timeline]').width",
            &[],
        )
        .as_f64()
        .unwrap()
    };
    let narrow = width(&b);
    b.cdp("Emulation.clearDeviceMetricsOverride", &json!({}));
    b.resize(1280, 900);
    std::thread::sleep(std::time::Duration::from_millis(400));
    check(&b);
    assert!(width(&b) > narrow + 200.0, "{narrow} -> {}", width(&b));
    // Back to the light scheme at run time: charts are redrawn light.
    b.cdp(
        "Emulation.setEmulatedMedia",
        &json!({ "features": [{ "name": "prefers-color-scheme", "value": "light" }] }),
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        corner(&b) > 200.0,
        "light memory chart: corner {}",
        corner(&b)
    );
    b.cdp(
        "Emulation.setEmulatedMedia",
        &json!({ "features": [{ "name": "prefers-color-scheme", "value": "dark" }] }),
    );
    b.resize(390, 844);
    std::thread::sleep(std::time::Duration::from_millis(400));
    check(&b);
    b.scroll_into_view("scaling-chart");
    b.screenshot(&plan3d_e2e::root().join("tests/e2e/artifacts/phone-dark-scaling.png"));
    b.scroll_into_view("timeline");
    b.screenshot(&plan3d_e2e::root().join("tests/e2e/artifacts/phone-dark-schedule.png"));
}

/// The GPU budget holds for every plan on the page (it showed 16 GPUs
/// under `gpus=3` and `gpus=8`).
#[test]
fn no_plan_on_the_page_exceeds_the_gpu_budget() {
    let url = serve(dist(), "/");
    for (query, budget) in [("model=x160&gpus=3", 3_u64), ("model=gpt-3&gpus=8", 8)] {
        let dom = dump_dom(&format!("{url}?assume=paper&{query}"));
        let mut seen = 0;
        for row in ["baseline", "partitioned", "improved", "optimum"] {
            let key = format!(r#"data-testid="plan-{row}-gpus">"#);
            let Some(at) = dom.find(&key) else { continue };
            let rest = &dom[at + key.len()..];
            let gpus: u64 = rest[..rest.find('<').unwrap()]
                .replace(['\u{202f}', ',', ' '], "")
                .parse()
                .unwrap();
            assert!(gpus <= budget, "{query}: {row} on {gpus} GPUs");
            seen += 1;
        }
        assert!(seen >= 3, "{query}: only {seen} plan rows in {dom}");
    }
}

/// On a phone (390 px) the answer comes before the inputs, and the plans
/// table fits: GPUs and days are on screen without scrolling sideways.
#[test]
fn phone_shows_the_answer_first_and_the_table_fits() {
    let url = serve(dist(), "/");
    let b = Browser::start(390, 844);
    // A desktop window cannot be narrower than ~500 px: emulate the phone.
    b.cdp(
        "Emulation.setDeviceMetricsOverride",
        &json!({ "width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": false }),
    );
    b.goto(&format!(
        "{url}?model=llama-3.1-405b&gpu=h100-sxm&node=8&gpus=16384"
    ));
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        std::time::Duration::from_secs(20),
    );
    let layout = b.exec(
        "const top = s => document.querySelector(s).getBoundingClientRect().top;
         const scroll = document.querySelector('.p3-answer .p3-scroll');
         const box = s => document.querySelector(s).getBoundingClientRect();
         return { headline: top('[data-testid=headline]'), inputs: top('.p3-controls'),
                  overflow: scroll.scrollWidth - scroll.clientWidth,
                  gpus: box('[data-testid=plan-improved-gpus]').right,
                  days: box('[data-testid=plan-improved-days]').right,
                  width: window.innerWidth };",
        &[],
    );
    let f = |k: &str| layout[k].as_f64().unwrap();
    let wide = b.exec(
        // Wide tables other than the plans may scroll inside their card.
        "return [...document.querySelectorAll('body *')]
           .filter(e => !e.closest('.p3-scroll') || e.closest('.p3-answer'))
           .filter(e => e.getBoundingClientRect().right > innerWidth + 0.5)
           .slice(0, 8).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))",
        &[],
    );
    assert_eq!(f("width"), 390.0, "{layout}");
    assert!(
        wide.as_array().unwrap().is_empty(),
        "wider than the phone: {wide}"
    );
    assert!(f("headline") < f("inputs"), "{layout}");
    assert!(
        f("overflow") <= 0.0,
        "the plans table scrolls sideways: {layout}"
    );
    assert!(
        f("gpus") <= f("width") && f("days") <= f("width"),
        "{layout}"
    );
    b.screenshot(&plan3d_e2e::root().join("tests/e2e/artifacts/phone-answer-first.png"));
}

/// Every text on the page meets WCAG AA contrast against what is behind
/// it (4.5:1, 3:1 for large text), in the light and the dark scheme, with
/// notices, the network table's states and the player on screen.
#[test]
fn text_contrast_meets_wcag_aa_in_both_schemes() {
    let url = serve(dist(), "/");
    let b = Browser::start(1400, 3000);
    for scheme in ["light", "dark"] {
        b.cdp(
            "Emulation.setEmulatedMedia",
            &json!({ "features": [{ "name": "prefers-color-scheme", "value": scheme }] }),
        );
        // A notice, an exposed and a hidden transfer, and the player.
        b.goto(&format!(
            "{url}?assume=paper&model=gpt-3&gpus=1024&net=ethernet&keff=7"
        ));
        b.wait(
            "return document.querySelector('[data-testid=needs] tbody tr')",
            std::time::Duration::from_secs(20),
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
        let bad = b.exec(
            r#"
            const rgb = c => { const m = c.match(/[\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; };
            const lum = ({ r, g, b }) => {
              const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
              return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
            };
            const behind = el => {
              for (let e = el; e; e = e.parentElement) {
                const c = rgb(getComputedStyle(e).backgroundColor);
                if (c.a > 0.5) return c;
              }
              return rgb(getComputedStyle(document.documentElement).backgroundColor);
            };
            const out = [];
            for (const el of document.querySelectorAll('body *')) {
              const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
              if (!own) continue;
              const s = getComputedStyle(el);
              const r = el.getBoundingClientRect();
              if (s.visibility === 'hidden' || s.display === 'none' || r.width === 0 || r.height === 0) continue;
              const fg = lum(rgb(s.color)), bg = lum(behind(el));
              const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
              const size = parseFloat(s.fontSize), bold = parseInt(s.fontWeight) >= 700;
              const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
              if (ratio < need) out.push(`${el.tagName}.${el.className} "${el.textContent.trim().slice(0, 40)}": ${ratio.toFixed(2)} < ${need}`);
            }
            return out;"#,
            &[],
        );
        let bad = bad.as_array().unwrap();
        assert!(bad.is_empty(), "{scheme}: {bad:#?}");
        // The states are there to be checked.
        let classes = b.exec(
            "return ['p3-ok', 'p3-warn', 'p3-notice'].map(c => document.querySelectorAll('.' + c).length)",
            &[],
        );
        assert!(
            classes
                .as_array()
                .unwrap()
                .iter()
                .all(|n| n.as_u64().unwrap() > 0),
            "{scheme}: {classes}"
        );
    }
}

/// On a desktop (1440 px, and a 1024 px laptop) the practice plans table
/// of a big run (Llama 3.1 405B on 16 384 H100s, five-digit GPU counts and
/// every practice column) fits its card: the days column is on screen, not
/// behind a sideways scroll. Its long headers wrap instead.
#[test]
fn desktop_plans_table_fits_with_every_column() {
    let url = serve(dist(), "/");
    for width in [1440u32, 1024] {
        let b = Browser::start(width, 900);
        b.goto(&format!(
            "{url}?model=llama-3.1-405b&gpu=h100-sxm&node=8&cluster=16384&batch=2048&assume=practice&zb=1"
        ));
        b.wait(
            "return document.querySelector('[data-testid=plan-improved-days]')",
            std::time::Duration::from_secs(20),
        );
        let layout = b.exec(
            "const scroll = document.querySelector('.p3-answer .p3-scroll');
             return { overflow: scroll.scrollWidth - scroll.clientWidth,
                      days: document.querySelector('[data-testid=plan-improved-days]').getBoundingClientRect().right,
                      card: scroll.getBoundingClientRect().right,
                      step: getComputedStyle(document.querySelector('[data-testid=plan-improved-step]')).display };",
            &[],
        );
        let f = |k: &str| layout[k].as_f64().unwrap();
        assert!(
            f("overflow") <= 0.0,
            "{width} px: the plans table scrolls sideways: {layout}"
        );
        assert!(f("days") <= f("card") + 0.5, "{width} px: {layout}");
        assert_ne!(layout["step"], "none", "{width} px: {layout}");
    }
}
