//! The built page loads in headless Chromium, also under a subpath.

use plan3d_e2e::{dist, dump_dom, screenshot, serve};

#[test]
fn page_loads_and_shows_core_numbers() {
    let url = serve(dist(), "/");
    let dom = dump_dom(&format!("{url}?model=x160"));
    assert!(
        dom.contains(r#"data-testid="plan-improved-gpus">38640<"#),
        "{dom}"
    );
    let shot = screenshot(&url, "page", 1400, 1800);
    assert!(std::fs::metadata(shot).unwrap().len() > 10_000);
}

#[test]
fn page_works_under_a_subpath() {
    // GitHub Pages serves a project at /REPO/: asset paths must be relative.
    let url = serve(dist(), "/plan3d/");
    let dom = dump_dom(&url);
    assert!(
        dom.contains(r#"data-testid="plan-improved-gpus">38640<"#),
        "{dom}"
    );
}
