//! Fuzzes the calibration profile's door (`--profile`, JSON `profile`, the
//! page's dropped file): any bytes as a profile. One that parses is checked
//! against every GPU preset, an error naming its field, never a panic; one
//! that passes fits to curves whose fractions are finite and in (0, 1].
#![no_main]

use libfuzzer_sys::fuzz_target;
use plan3d_core::cost::kernels;
use plan3d_core::cost::profile::Profile;
use plan3d_core::{hardware, Hardware};

fuzz_target!(|data: &[u8]| {
    let Ok(p) = serde_json::from_slice::<Profile>(data) else {
        return;
    };
    for gpu in hardware::GPUS {
        let hw = Hardware {
            gpu: *gpu,
            node_size: Some(8),
            ..Hardware::default()
        };
        match p.check(&hw) {
            Err(e) => assert!(!e.field.is_empty() && !e.reason.is_empty()),
            Ok(()) => {
                let c = p.fit(&hw, kernels::curves(gpu)).curves;
                for x in [
                    c.ceiling_bf16,
                    c.ceiling_fp8,
                    c.attention_forward.0,
                    c.attention_backward.0,
                    c.memory,
                ] {
                    assert!(x.is_finite() && x > 0.0 && x <= 1.0, "{c:?}");
                }
            }
        }
    }
});
