//! Fuzzes `plan3d evaluate`'s door: any bytes as the JSON request the CLI,
//! the JavaScript API and a script send. A request that parses gets a report
//! or an error in words, never a panic; a report serializes, and an
//! evaluation is the configuration asked for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plan3d_core::api::{self, request::EvaluateRequest};

fuzz_target!(|data: &[u8]| {
    let Ok(r) = serde_json::from_slice::<EvaluateRequest>(data) else {
        return;
    };
    match api::evaluate(&r) {
        Ok(e) => {
            assert_eq!((e.data, e.pipe, e.tensor), (r.data, r.pipe, r.tensor));
            serde_json::to_string(&e).expect("a report serializes");
        }
        Err(e) => assert!(!e.0.is_empty()),
    }
});
