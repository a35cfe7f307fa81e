//! Fuzzes `plan3d run`'s door: any bytes as the JSON request (the plan's
//! fields, a batch in tokens, a batch ramp, the run's settings). A report
//! has finite days no shorter than the ideal; an error is words.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plan3d_core::api::{self, request::RunRequest};

/// An X[x] model past X1024 (above ~200 T parameters) or a custom one of
/// thousands of layers: the practice search's "no plan" for it tries every
/// pipeline degree up to thousands of stages and takes seconds natively
/// (`plan3d run --model x3600`: 15 s), minutes under this harness's
/// instrumentation, which stalled a 15-second CI run once. The fuzzer
/// looks for panics and wrong answers, not speed: it skips them.
fn too_big(m: &plan3d_core::api::request::ModelRequest) -> bool {
    let x = m
        .model
        .as_deref()
        .and_then(|s| s.trim().strip_prefix(['x', 'X']))
        .and_then(|n| n.parse::<u64>().ok());
    x.is_some_and(|x| x > 1024) || m.layers.is_some_and(|l| l > 2048)
}

fuzz_target!(|data: &[u8]| {
    let Ok(r) = serde_json::from_slice::<RunRequest>(data) else {
        return;
    };
    if too_big(&r.plan.model) {
        return;
    }
    match api::run(&r) {
        Ok(run) => {
            assert!(run.wall_days.is_finite() && run.wall_days >= run.ideal_days);
            serde_json::to_string(&run).expect("a report serializes");
        }
        Err(e) => assert!(!e.0.is_empty()),
    }
});
