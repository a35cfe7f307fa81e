//! A calibration profile in the page (README, "Calibrate on your own GPU"):
//! a link made with one says, beside the GPU, that this browser holds
//! none; a profile loaded through the field (as a dropped file sets it) is
//! checked and fitted by the JavaScript API's module, kept in the browser,
//! said in the URL, the field and the Validation card, and slows the plan
//! as its slower GEMMs say; a new visit uses it, an explicit link without it is taken to it by a
//! click on "use it", and a click forgets it.

use plan3d_e2e::{dist, serve_controlled, webdriver::Browser};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

/// The H100 tables' profile with every BF16 GEMM twice as slow.
fn slow_profile() -> String {
    let path = plan3d_e2e::root().join("calibration/h100-2026-11-25/profile.json");
    let mut p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for r in p["gemm"].as_array_mut().unwrap() {
        if r["fp8"] == false {
            let s = r["seconds"].as_f64().unwrap();
            r["seconds"] = (2.0 * s).into();
        }
    }
    p.to_string()
}

#[test]
fn a_profile_is_loaded_kept_said_and_used() {
    let server = serve_controlled(dist(), "/");
    let b = Browser::start(1440, 1800);
    let page = format!(
        "{}?assume=practice&model=llama-3.1-8b&gpu=h100-sxm&node=8&gpus=8",
        server.url
    );
    b.goto(&format!("{page}&prof=custom"));
    b.exec("localStorage.removeItem('plan3d-profile')", &[]);
    b.goto(&format!("{page}&prof=custom"));
    b.wait(
        "return document.querySelector('[data-testid=headline]')",
        WAIT,
    );
    let status = b.text("profile-status");
    assert!(status.contains("does not hold"), "{status}");
    let preset = b.text("headline");
    // Load the profile as a chosen or dropped file sets the field.
    b.exec(
        "const i = document.querySelector('[data-testid=profile-file]');
         const dt = new DataTransfer();
         dt.items.add(new File([arguments[0]], 'h100.json', { type: 'application/json' }));
         i.files = dt.files;
         i.dispatchEvent(new Event('change', { bubbles: true }));",
        &[serde_json::json!(slow_profile())],
    );
    b.wait(
        "return document.querySelector('[data-testid=profile-status]').textContent.includes('in use: NVIDIA H100')",
        WAIT,
    );
    b.wait(
        "return document.querySelector('[data-testid=headline]').textContent != arguments[0]",
        WAIT,
    );
    let calibrated = b.text("headline");
    assert_ne!(calibrated, preset);
    assert!(
        b.exec("return location.search.includes('prof=custom')", &[]) == serde_json::json!(true)
    );
    assert!(
        b.exec(
            "return !document.querySelector('[data-testid=validation-profile]').classList.contains('p3-hidden')",
            &[]
        ) == serde_json::json!(true)
    );
    b.screenshot(&plan3d_e2e::artifact("profile-in-use"));
    // A new visit (no query) uses the profile this browser keeps.
    b.goto(&server.url);
    b.wait(
        "return document.querySelector('[data-testid=profile-status]') && document.querySelector('[data-testid=profile-status]').textContent.includes('in use')",
        WAIT,
    );
    // An explicit link without `prof` keeps meaning the preset; a real
    // click on "use it" takes the profile held.
    b.goto(&page);
    b.wait(
        "return document.querySelector('[data-testid=profile-status]') && document.querySelector('[data-testid=profile-status]').textContent.includes('held in this browser')",
        WAIT,
    );
    b.click("[data-testid=profile-use]");
    b.wait(
        "return document.querySelector('[data-testid=profile-status]').textContent.includes('in use') && location.search.includes('prof=custom')",
        WAIT,
    );
    // A profile that is not one is refused in words, and not kept.
    b.exec(
        "const i = document.querySelector('[data-testid=profile-file]');
         const dt = new DataTransfer();
         dt.items.add(new File(['{\"plan3d_profile\": 1, \"device\": {\"sms\": 0}, \"gemm\": []}'], 'bad.json'));
         i.files = dt.files;
         i.dispatchEvent(new Event('change', { bubbles: true }));",
        &[],
    );
    b.wait(
        "return document.querySelector('[data-testid=profile-status]').textContent.includes('device.sms')",
        WAIT,
    );
    // Forgotten: the preset's curves again.
    b.click("[data-testid=profile-forget]");
    b.wait(
        "return document.querySelector('[data-testid=profile-status]').textContent.includes('none')",
        WAIT,
    );
    assert!(
        b.exec("return localStorage.getItem('plan3d-profile')", &[]) == serde_json::Value::Null
    );
}
