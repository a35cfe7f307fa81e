//! Component tests in headless Chromium (wasm-bindgen-test).
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use plan3d_app::{app::App, charts::XMap, fmt, timeline::Timeline};
use plan3d_core::schedule::{simulate, ScheduleKind, ScheduleSpec};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn text(testid: &str) -> String {
    document()
        .query_selector(&format!("[data-testid=\"{testid}\"]"))
        .ok()
        .flatten()
        .and_then(|e| e.text_content())
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[wasm_bindgen_test]
async fn app_mounts_and_shows_table_6_1() {
    // The page opens in practice; the paper's tables are `assume=paper`.
    web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("?assume=paper"))
        .unwrap();
    leptos::mount::mount_to_body(App);
    leptos::task::tick().await;
    assert_eq!(text("plan-improved-gpus"), "38,640");
    assert_eq!(text("plan-improved-days"), "6.8");
    assert_eq!(text("plan-baseline-gpus"), "35,840");
    assert!(text("binding").contains("eq. 9"));
    // Choosing the baseline re-renders the headline.
    let radio: web_sys::HtmlInputElement = document()
        .query_selector("[data-testid=method-baseline]")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    radio.click();
    leptos::task::tick().await;
    assert!(
        text("headline").starts_with("Megatron-style trains"),
        "{}",
        text("headline")
    );
}

#[wasm_bindgen_test]
fn formatting_shows_units_like_the_paper() {
    assert_eq!(fmt::days(6.81), "6.8");
    assert_eq!(fmt::days(864.4), "864");
    assert_eq!(fmt::duration(231_003.0), "633 years");
    // Short runs in their own units, not "0.0003 days".
    assert_eq!(fmt::days(0.0003), "26 s");
    assert_eq!(fmt::duration(0.0003), "26 s");
    assert_eq!(fmt::duration(0.02), "29 min");
    assert_eq!(fmt::duration(0.09), "2.2 h");
    assert_eq!(fmt::energy(41_460.0), "41.5 GWh");
    assert_eq!(fmt::energy(950.0), "950 MWh");
    assert_eq!(
        fmt::capitalized("layered + modular trains"),
        "Layered + modular trains"
    );
    assert_eq!(fmt::capitalized(""), "");
    assert_eq!(fmt::capitalized("zeRO-3 / FSDP"), "ZeRO-3 / FSDP");
    // Not ASCII: left as it is, never a panic.
    assert_eq!(fmt::capitalized("élan"), "élan");
    // Llama 3.1 405B's 405.85 B parameters.
    assert_eq!(fmt::params(405.853e9), "405.9 B");
    assert_eq!(fmt::params(1.2583e12), "1.26 T");
    assert_eq!(fmt::gib(4.72 * 1_073_741_824.0), "4.72");
    assert_eq!(fmt::count(38_640), "38,640");
    assert_eq!(fmt::count(1), "1");
    assert_eq!(fmt::count(1_234_567), "1,234,567");
    // One style on an axis.
    let ticks: Vec<String> = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0, 10_000.0]
        .iter()
        .map(|&v| fmt::tick(v))
        .collect();
    assert_eq!(ticks, ["0.01", "0.1", "1", "10", "100", "1,000", "10,000"]);
    assert_eq!(fmt::power_of_ten(1e8), "10⁸");
    assert_eq!(fmt::power_of_ten(1e16), "10¹⁶");
}

#[wasm_bindgen_test]
fn big_timelines_are_aggregated() {
    let small = simulate(&ScheduleSpec::unit(ScheduleKind::Gpipe, 4, 16, 4)).unwrap();
    assert!(!Timeline::new(&small).aggregated);
    let big = simulate(&ScheduleSpec::unit(ScheduleKind::OneFOneB, 8, 64, 400)).unwrap();
    assert!(big.events.len() > plan3d_app::timeline::DETAIL_LIMIT);
    assert!(Timeline::new(&big).aggregated);
}

#[wasm_bindgen_test]
fn chart_mapping_round_trips() {
    let m = XMap {
        x0: 60,
        x1: 700,
        lo: 8.0,
        hi: 16.0,
        y0: 10,
        y1: 320,
        ylo: -3.0,
        yhi: 6.0,
    };
    let (x, y) = m.pixel(1.26e12, 6.8).unwrap();
    let p = m.params_at(x).unwrap();
    assert!((p / 1.26e12 - 1.0).abs() < 1e-9);
    assert!(y > 10.0 && y < 320.0);
    assert!(m.pixel(1e20, 1.0).is_none());
}

/// A painter that records what is drawn.
struct Record {
    size: (f64, f64),
    rects: Vec<(f64, f64, f64, f64, String)>,
    texts: Vec<(String, f64, f64, plan3d_app::paint::Anchor)>,
    lines: Vec<Vec<(f64, f64)>>,
}

impl plan3d_app::paint::Paint for Record {
    fn size(&self) -> (f64, f64) {
        self.size
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        self.rects.push((x, y, w, h, fill.to_string()));
    }
    fn text(&mut self, s: &str, x: f64, y: f64, _fill: &str, anchor: plan3d_app::paint::Anchor) {
        self.texts.push((s.to_string(), x, y, anchor));
    }
    fn line(&mut self, points: &[(f64, f64)], _stroke: &str, _width: f64) {
        self.lines.push(points.to_vec());
    }
    fn width(&self, s: &str) -> f64 {
        7.0 * s.chars().count() as f64
    }
}

/// The scaling chart drawn by hand: every curve inside the plot, a label
/// per decade of parameters, and a legend inside the plot that covers no
/// axis label — with the methods' short names on a phone-wide chart.
#[wasm_bindgen_test]
fn scaling_chart_keeps_its_legend_clear_of_the_labels() {
    use plan3d_core::state::Inputs;
    let (i, _) = Inputs::from_query("assume=paper");
    let rows = plan3d_core::planner::scaling(&i).unwrap();
    for width in [720.0, 330.0] {
        let mut r = Record {
            size: (width, 360.0),
            rects: Vec::new(),
            texts: Vec::new(),
            lines: Vec::new(),
        };
        let m = plan3d_app::charts::scaling(&mut r, &rows, false);
        let (x0, x1, y0, y1) = (
            f64::from(m.x0),
            f64::from(m.x1),
            f64::from(m.y0),
            f64::from(m.y1),
        );
        for l in &r.lines {
            for &(x, y) in l {
                assert!(
                    x >= x0 - 0.5 && x <= x1 + 0.5 && y >= y0 - 0.5 && y <= y1 + 0.5,
                    "{width}: ({x}, {y})"
                );
            }
        }
        let decades: Vec<&str> = r
            .texts
            .iter()
            .filter(|t| t.0.starts_with("10") && t.0.chars().nth(2).is_some_and(|c| !c.is_ascii()))
            .map(|t| t.0.as_str())
            .collect();
        assert_eq!(decades.len() as f64, m.hi - m.lo + 1.0, "{decades:?}");
        // The legend's box: the translucent rectangle.
        let legend = r.rects.iter().find(|b| b.4.starts_with("rgba")).unwrap();
        assert!(
            legend.0 >= x0 && legend.0 + legend.2 <= x1,
            "{width}: {legend:?}"
        );
        for t in &r.texts {
            let inside = t.1 > legend.0
                && t.1 < legend.0 + legend.2
                && t.2 > legend.1
                && t.2 < legend.1 + legend.3;
            let in_legend =
                t.0.contains("Megatron") || t.0.contains("ZeRO") || t.0.contains("layered");
            assert!(!inside || in_legend, "{width}: {} under the legend", t.0);
        }
        let full = r
            .texts
            .iter()
            .any(|t| t.0 == "layered + modular (Lamy-Poirier)");
        assert_eq!(full, width > 700.0, "{width}");
    }
}
