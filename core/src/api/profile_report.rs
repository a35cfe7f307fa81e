//! The reports of a calibration profile in use (`--profile`): what it set
//! in the kernel model against the GPU preset's curves, and the same
//! request on the preset's curves, beside.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use super::report::{EvaluationReport, KernelClassReport};

/// What a calibration profile set, against the GPU preset's.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProfileReport {
    /// The device the profile was measured on, and its software.
    pub device: String,
    /// Its streaming multiprocessors.
    pub sms: f64,
    /// Fraction of the BF16 peak the largest BF16 GEMMs reach (the
    /// preset's beside).
    pub ceiling_bf16: [f64; 2],
    /// The same for FP8 GEMMs.
    pub ceiling_fp8: [f64; 2],
    /// Causal attention's forward ceiling, fraction of the BF16 peak.
    pub attention_forward: [f64; 2],
    /// Its backward's.
    pub attention_backward: [f64; 2],
    /// Fraction of the memory bandwidth memory-bound kernels reach.
    pub memory: [f64; 2],
    /// NVLink's and the network's bus efficiencies (the preset's where
    /// the profile timed no collective).
    pub bus_efficiency: [f64; 2],
    /// The network's.
    pub network_efficiency: [f64; 2],
}

impl ProfileReport {
    /// The report of `p`'s calibration `cal` against the preset curves
    /// `preset` and knobs `a`.
    #[must_use]
    pub fn new(
        p: &crate::cost::profile::Profile,
        cal: &crate::cost::profile::Calibration,
        preset: &crate::cost::kernels::Curves,
        a: &crate::cost::assumptions::Assumptions,
    ) -> Self {
        let c = &cal.curves;
        let d = &p.device;
        let mut device = d.name.clone();
        for (label, v) in [
            ("driver", &d.driver),
            ("CUDA", &d.cuda),
            ("PyTorch", &d.torch),
            ("", &d.libraries),
        ] {
            if !v.is_empty() {
                device.push_str(", ");
                if !label.is_empty() {
                    device.push_str(label);
                    device.push(' ');
                }
                device.push_str(v);
            }
        }
        Self {
            device,
            sms: c.sms,
            ceiling_bf16: [c.ceiling_bf16, preset.ceiling_bf16],
            ceiling_fp8: [c.ceiling_fp8, preset.ceiling_fp8],
            attention_forward: [c.attention_forward.0, preset.attention_forward.0],
            attention_backward: [c.attention_backward.0, preset.attention_backward.0],
            memory: [c.memory, preset.memory],
            bus_efficiency: [
                cal.bus_efficiency.unwrap_or(a.bus_efficiency),
                a.bus_efficiency,
            ],
            network_efficiency: [
                cal.network_efficiency.unwrap_or(a.network_efficiency),
                a.network_efficiency,
            ],
        }
    }
}

/// The same request on the GPU preset's curves.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PresetReport {
    /// Its layout, `DP 8 × PP 1 × TP 1` (and CP, EP).
    pub layout: String,
    /// Its step, seconds.
    pub step_seconds: f64,
    /// Its tokens per second.
    pub tokens_per_second: f64,
    /// Its model Tflop/s per GPU.
    pub tflops_per_gpu: f64,
    /// Where its step goes.
    pub kernels: Vec<KernelClassReport>,
}

impl From<&EvaluationReport> for PresetReport {
    fn from(e: &EvaluationReport) -> Self {
        let mut layout = format!("DP {} × PP {} × TP {}", e.data, e.pipe, e.tensor);
        if e.context_parallel > 1 {
            layout.push_str(&format!(" × CP {}", e.context_parallel));
        }
        if e.expert_parallel > 1 {
            layout.push_str(&format!(", EP {}", e.expert_parallel));
        }
        Self {
            layout,
            step_seconds: e.step_seconds,
            tokens_per_second: e.tokens_per_second,
            tflops_per_gpu: e.tflops_per_gpu,
            kernels: e.kernels.clone(),
        }
    }
}
