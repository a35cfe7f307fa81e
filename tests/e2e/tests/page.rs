//! The built page loads in headless Chromium and shows core's numbers.

use plan3d_core::{evaluate, model, Config, Hardware, Method};
use plan3d_e2e::{dist, dump_dom, screenshot, serve};

/// The number the page must show, computed by core natively: wasm and
/// native must agree (both use libm).
fn expected_days() -> String {
    let cfg = Config {
        method: Method::Improved,
        data: 483,
        pipe: 5,
        tensor: 16,
        micro_batch: 1,
        micro_batches: 5,
        ..Config::default()
    };
    let e = evaluate(&model::x_family(160).unwrap(), &Hardware::default(), &cfg).unwrap();
    format!("{:.1}", e.time.days())
}

#[test]
fn page_shows_the_core_computed_number() {
    let url = serve(dist(), "/");
    let dom = dump_dom(&url);
    let days = expected_days();
    assert_eq!(
        days, "6.8",
        "Table 6.1: 3d improved trains X160 in 6.8 days"
    );
    assert!(
        dom.contains(&format!(r#"data-testid="days">{days}<"#)),
        "the page does not show {days} days:\n{dom}"
    );
    assert!(dom.contains(r#"data-testid="gpus">38640<"#), "{dom}");
    let shot = screenshot(&url, "page", 1000, 600);
    assert!(std::fs::metadata(shot).unwrap().len() > 1000);
}

#[test]
fn page_works_under_a_subpath() {
    // GitHub Pages serves a project at /REPO/: asset paths must be relative.
    let url = serve(dist(), "/plan3d/");
    let dom = dump_dom(&url);
    assert!(dom.contains(r#"data-testid="days">6.8<"#), "{dom}");
}
