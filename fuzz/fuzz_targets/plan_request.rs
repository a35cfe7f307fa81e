//! Fuzzes `plan3d plan`'s door: any bytes as the JSON request. A plan
//! honours the fields the request fixed and the bounds it set; an error is
//! words, and a practice "no plan" says why.
#![no_main]

mod common;

use common::too_big;
use libfuzzer_sys::fuzz_target;
use plan3d_core::api::{self, request::PlanRequest};

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
