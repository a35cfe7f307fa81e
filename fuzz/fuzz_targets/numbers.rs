//! Fuzzes the parsers of what people type: counts and sizes (`15.6T`,
//! `16Mi`, `80GiB`) and batch ramps (`0:4Mi,252M:8Mi,2.87T:16Mi`). A count
//! is finite and not negative; a whole count is whole; a ramp starts at 0,
//! increases, and reads back as itself from its own text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plan3d_core::run::{page_ramp, parse_ramp, ramp_text};
use plan3d_core::units::{parse_count, parse_whole};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(x) = parse_count(&text) {
        assert!(x.is_finite() && x >= 0.0);
    }
    if let Some(n) = parse_whole(&text) {
        assert_eq!(parse_count(&text), Some(n as f64));
    }
    if let Ok(ramp) = parse_ramp(&text) {
        assert_eq!(ramp[0].start_tokens, 0.0);
        assert!(ramp
            .windows(2)
            .all(|w| w[0].start_tokens < w[1].start_tokens));
        assert!(ramp.iter().all(|r| r.batch_tokens >= 1.0));
    }
    if let Ok(ramp) = page_ramp(&text) {
        let again = page_ramp(&ramp_text(&ramp)).expect("a ramp's text reads back");
        assert_eq!(again, ramp);
    }
});
