//! Fuzzes the timeline doors (`evaluate --timeline`, `plan --timeline`, the
//! JavaScript API's `timeline` and `planTimeline`): the first byte picks
//! the door, the rest is its JSON request. A timeline shows no more devices
//! or micro-batches than its plan has and renders; an error is words.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plan3d_core::api::{
    self,
    request::{EvaluateRequest, PlanRequest},
};

fuzz_target!(|data: &[u8]| {
    let Some((&door, json)) = data.split_first() else {
        return;
    };
    let answer = if door % 2 == 0 {
        let Ok(r) = serde_json::from_slice::<EvaluateRequest>(json) else {
            return;
        };
        api::evaluate_timeline(&r)
    } else {
        let Ok(r) = serde_json::from_slice::<PlanRequest>(json) else {
            return;
        };
        api::plan_timeline(&r)
    };
    match answer {
        Ok((schedule, t)) => {
            assert!(t.shown_devices <= t.plan_devices);
            assert!(t.shown_micro_batches <= t.plan_micro_batches);
            assert!(schedule.to_svg().starts_with("<svg"));
            serde_json::to_string(&t).expect("a report serializes");
        }
        Err(e) => assert!(!e.0.is_empty()),
    }
});
