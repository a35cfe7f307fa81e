//! The JavaScript API (`dist/api/plan3d.js`) in headless Chromium: the
//! README's example page runs; each function returns what core's api (and
//! so the CLI's `--json`) returns for the same request; bad input is a
//! thrown `Error` with the CLI's message, never a panic.

use std::time::Duration;

use plan3d_core::api::{self, request};
use plan3d_e2e::{dist, serve, webdriver::Browser};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// Equal as JSON values, numbers compared as f64 (JavaScript writes
/// 1560.0 as 1560).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Calls `plan3d.<f>(request)` in the page: `{ok: result}` or `{err:
/// message, isError}`.
fn call(b: &Browser, f: &str, request: &Value) -> Value {
    b.exec(
        "const [f, req] = arguments;
         return (async () => {
           const m = await import('./plan3d.js');
           await m.default();
           try { return { ok: m[f](req) }; }
           catch (e) { return { err: String(e.message), isError: e instanceof Error }; }
         })();",
        &[json!(f), request.clone()],
    )
}

fn check<R: DeserializeOwned, T: serde::Serialize>(
    b: &Browser,
    f: &str,
    request: Value,
    core: impl Fn(&R) -> Result<T, api::ApiError>,
) {
    let r: R = serde_json::from_value(request.clone()).expect("a valid request");
    let want = serde_json::to_value(core(&r).expect("core answers")).unwrap();
    let got = call(b, f, &request);
    assert!(
        same(&got["ok"], &want),
        "{f}({request}):\n  JS   {}\n  core {want}",
        got
    );
}

#[test]
fn the_readme_example_runs() {
    let url = serve(dist(), "/");
    let b = Browser::start(800, 600);
    b.goto(&format!("{url}api/example.html"));
    let text = b.wait(
        "const t = document.getElementById('out').textContent;
         return t.includes('GPUs') ? t : null;",
        Duration::from_secs(20),
    );
    // No assumptions: practice, as the CLI and the page.
    let p = api::plan(&request::PlanRequest {
        model: request::ModelRequest {
            model: Some("llama-3.1-70b".into()),
            ..Default::default()
        },
        hardware: request::HardwareRequest {
            gpu: "h100-sxm".into(),
            node_size: Some(8),
            ..Default::default()
        },
        constraints: request::ConstraintsRequest {
            max_gpus: Some(1024),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(p.evaluation.assumptions, "practice");
    let e = &p.evaluation;
    assert!(
        text.as_str().unwrap().starts_with(&format!(
            "{}: {} × {} × {} = {} GPUs",
            e.method, e.data, e.pipe, e.tensor, e.gpus
        )),
        "{text}"
    );
}

#[test]
fn results_equal_cores_and_errors_are_thrown() {
    let url = serve(dist(), "/");
    let b = Browser::start(800, 600);
    b.goto(&format!("{url}api/example.html"));
    b.wait(
        "return document.getElementById('out').textContent.includes('GPUs')",
        Duration::from_secs(20),
    );
    check(
        &b,
        "model",
        json!({ "model": "llama-3.1-405b" }),
        api::model,
    );
    check(
        &b,
        "hardware",
        json!({ "gpu": "h100-sxm", "node_size": 8 }),
        api::hardware,
    );
    check(
        &b,
        "evaluate",
        json!({ "model": "x160", "method": "improved", "data": 483, "pipe": 5,
                "tensor": 16, "micro_batches": 5 }),
        api::evaluate,
    );
    check(&b, "plan", json!({ "model": "x160" }), api::plan);
    check(
        &b,
        "plan",
        json!({ "model": "llama-3.1-405b", "gpu": "h100-sxm", "node_size": 8,
                "max_gpus": 4096, "search": "exhaustive" }),
        api::plan,
    );
    check(
        &b,
        "sweep",
        json!({ "from": 1e9, "to": 1e13, "points": 6 }),
        api::sweep,
    );
    check(
        &b,
        "schedule",
        json!({ "kind": "interleaved", "devices": 2, "layers": 8, "chunks": 2, "reduce": 0.5, "data": 2 }),
        api::schedule,
    );
    check(
        &b,
        "timeline",
        json!({ "model": "gpt-3", "assumptions": "practice", "data": 4, "pipe": 4,
                "tensor": 8, "micro_batches": 8, "virtual_stages": 2 }),
        |r: &request::EvaluateRequest| api::evaluate_timeline(r).map(|(_, t)| t),
    );
    check(
        &b,
        "planTimeline",
        json!({ "model": "gpt-3", "assumptions": "practice", "node_size": 8, "max_gpus": 512 }),
        |r: &request::PlanRequest| api::plan_timeline(r).map(|(_, t)| t),
    );
    let z = call(&b, "zero", &json!(null));
    assert!(z["err"].is_string(), "zero() without arguments: {z}");

    // Bad input: a thrown Error with the CLI's words, never a panic (a
    // panic would leave the module unusable for the next call).
    for (f, req, needle) in [
        ("plan", json!({ "model": "nope" }), "unknown model 'nope'"),
        ("plan", json!({ "modle": "x160" }), "unknown field 'modle'"),
        (
            "evaluate",
            json!({ "model": "x160", "data": "many" }),
            "bad request",
        ),
        (
            "evaluate",
            json!({ "model": "x160", "data": -1 }),
            "bad request",
        ),
        ("plan", json!([1, 2]), "expected an object"),
        ("plan", json!("x160"), "expected an object"),
        (
            "evaluate",
            json!({ "model": "x160", "tensor": 1000 }),
            "tensor-parallel degree",
        ),
        (
            "sweep",
            json!({ "scaling": "spiral" }),
            "unknown scaling 'spiral'",
        ),
        (
            "schedule",
            json!({ "kind": "zigzag" }),
            "unknown schedule kind 'zigzag'",
        ),
    ] {
        let got = call(&b, f, &req);
        let err = got["err"]
            .as_str()
            .unwrap_or_else(|| panic!("{f}({req}) did not throw: {got}"));
        assert!(err.contains(needle), "{f}({req}): {err}");
        assert_eq!(got["isError"], json!(true));
    }
    // NaN cannot travel through WebDriver's JSON: build it in the page.
    for (f, script) in [
        ("plan", "({ model: 'x160', kernel_efficiency: NaN })"),
        ("sweep", "({ from: NaN })"),
        ("evaluate", "({ model: 'x160', gpu_memory: NaN })"),
        ("plan", "({ model: 'x160', target_days: Infinity })"),
    ] {
        let got = b.exec(
            &format!(
                "return (async () => {{
                   const m = await import('./plan3d.js'); await m.default();
                   try {{ m.{f}({script}); return 'no error'; }}
                   catch (e) {{ return e instanceof Error ? e.message : 'not an Error'; }}
                 }})();"
            ),
            &[],
        );
        let msg = got.as_str().unwrap();
        assert!(
            msg != "no error" && msg != "not an Error",
            "{f}{script}: {msg}"
        );
    }
    // Still working after every error.
    check(
        &b,
        "plan",
        json!({ "model": "gpt-3", "method": "baseline" }),
        api::plan,
    );
}

/// One request, the same JSON from every door: `callJson(entry, text)` in
/// the browser gives byte for byte core's JSON door (which the CLI's
/// `--json` and Python's `plan3d.call` give, their own tests say), for each
/// of the README's examples; an error, the same words. The object API
/// takes the fields its old key check refused (those unset by default), and
/// a `run` without `assumptions` is practice, as the CLI's.
#[test]
fn call_json_is_byte_for_byte_the_cli_and_python() {
    let url = serve(dist(), "/");
    let b = Browser::start(800, 600);
    b.goto(&format!("{url}api/example.html"));
    b.wait(
        "return document.getElementById('out').textContent.includes('GPUs')",
        Duration::from_secs(20),
    );
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples.json");
    let examples: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for ex in examples.as_array().unwrap() {
        let entry = ex["entry"].as_str().unwrap();
        let text = ex["request"].to_string();
        let got = b.exec(
            "const [entry, text] = arguments;
             return (async () => {
               const m = await import('./plan3d.js'); await m.default();
               try { return { ok: m.callJson(entry, text) }; }
               catch (e) { return { err: String(e.message) }; }
             })();",
            &[json!(entry), json!(text)],
        );
        match api::json::call(entry, &text) {
            Ok(want) => assert_eq!(got["ok"].as_str(), Some(want.as_str()), "{}", ex["what"]),
            Err(e) => assert_eq!(got["err"].as_str(), Some(e.0.as_str()), "{}", ex["what"]),
        }
    }
    check(
        &b,
        "plan",
        json!({ "model": "llama-3.1-8b", "gpu": "h100-sxm", "node_size": 8,
                "assumptions": "practice", "gpus": 64, "pipeline_schedule": "any" }),
        api::plan,
    );
    let r = call(
        &b,
        "run",
        &json!({ "model": "llama-3.1-8b", "gpu": "h100-sxm", "node_size": 8, "gpus": 64 }),
    );
    assert_eq!(r["ok"]["assumptions"], "practice", "{r}");
}
