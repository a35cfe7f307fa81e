//! Fuzzes the page's URL-state parser: any bytes as a query string must
//! parse without panicking, give a valid model, and round-trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plan3d_core::state::Inputs;

fuzz_target!(|data: &[u8]| {
    let query = String::from_utf8_lossy(data);
    let (inputs, notices) = Inputs::from_query(&query);
    assert!(inputs.model.shape().is_ok());
    assert!(notices.len() <= 64);
    for n in &notices {
        assert!(!n.to_string().chars().any(char::is_control));
    }
    let (back, again) = Inputs::from_query(&inputs.to_query());
    assert!(again.is_empty());
    assert_eq!(back, inputs);
});
