//! Fuzzes `plan3d plan`'s door: any bytes as the JSON request. A plan
//! honours the fields the request fixed and the bounds it set; an error is
//! words, and a practice "no plan" says why.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plan3d_core::api::{self, request::PlanRequest};

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
    let Ok(r) = serde_json::from_slice::<PlanRequest>(data) else {
        return;
    };
    if too_big(&r.model) {
        return;
    }
    match api::plan(&r) {
        Ok(p) => {
            let e = &p.evaluation;
            assert!(r.data.is_none_or(|d| d == e.data));
            assert!(r.pipe.is_none_or(|x| x == e.pipe));
            assert!(r.micro_batch.is_none_or(|b| b == e.micro_batch));
            assert!(r.constraints.gpus.is_none_or(|n| n >= e.gpus));
            assert!(r.constraints.max_gpus.is_none_or(|n| n >= e.gpus));
            assert!(r.practice.zero.as_ref().is_none_or(|z| *z == e.zero));
            assert!(e.fits);
            serde_json::to_string(&p).expect("a report serializes");
        }
        Err(e) => {
            assert!(!e.0.is_empty());
            if e.0.starts_with("no plan") && r.practice.assumptions == "practice" {
                assert!(e.0.contains("Closest: "), "{}", e.0);
            }
        }
    }
});
