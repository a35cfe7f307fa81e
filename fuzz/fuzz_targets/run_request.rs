//! Fuzzes `plan3d run`'s door: any bytes as the JSON request (the plan's
//! fields, a batch in tokens, a batch ramp, the run's settings). A report
//! has finite days no shorter than the ideal; an error is words.
#![no_main]

mod common;

use common::too_big;
use libfuzzer_sys::fuzz_target;
use plan3d_core::api::{self, request::RunRequest};

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
