//! The practice model against the calibration set: the validation table
//! (`plan3d validate`, `docs/model.md`'s and the page's), and the published
//! runs the fit never saw ([`OUT_OF_SAMPLE`]).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::RUNS;
use crate::cost::evaluate_with;

/// One row of the validation table.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Validation {
    /// The run's id.
    pub id: String,
    /// Parameters as published, e.g. "175".
    pub params_b: String,
    /// GPU preset.
    pub gpu: String,
    /// GPUs.
    pub gpus: u64,
    /// "TP4 PP8 (v12) DP4, mb 1, gb 256, selective, SP, ZeRO-1".
    pub config: String,
    /// Measured seconds per step.
    pub measured_step: f64,
    /// Predicted seconds per step.
    pub predicted_step: f64,
    /// predicted / measured − 1.
    pub error: f64,
    /// Predicted MFU.
    pub mfu: f64,
    /// Predicted memory of the heaviest device, bytes.
    pub peak_memory: f64,
    /// Does it fit?
    pub fits: bool,
    /// The source, short.
    pub source: String,
}

/// The practice model against every run of the calibration set.
///
/// # Errors
///
/// A file that does not parse or a run plan3d cannot evaluate.
pub fn validate() -> Result<Vec<Validation>, String> {
    RUNS.iter()
        .map(|r| {
            let e = evaluate_with(
                &r.shape(),
                &r.hardware().map_err(|e| format!("{}: {e}", r.id))?,
                &r.config(),
                &r.assumptions(),
            )
            .map_err(|e| format!("{}: {e}", r.id))?;
            let measured = r
                .measured_step()
                .ok_or_else(|| format!("{}: nothing measured", r.id))?;
            let c = r.config();
            let v = if c.virtual_stages > 1 {
                format!(" (v{})", c.virtual_stages)
            } else {
                String::new()
            };
            Ok(Validation {
                id: String::from(r.id),
                params_b: String::from(r.params_published_b),
                gpu: String::from(r.plan3d_gpu),
                gpus: r.gpus,
                config: format!(
                    "TP{} PP{}{v} DP{}, mb {}, gb {}, {} recompute{}{}",
                    c.tensor,
                    c.pipe,
                    c.data,
                    c.micro_batch,
                    r.global_batch,
                    c.activation.name(),
                    if c.sequence_parallel { ", SP" } else { "" },
                    if c.zero.stage() > 0 {
                        format!(", ZeRO-{}", c.zero.stage())
                    } else {
                        String::new()
                    },
                ),
                measured_step: measured,
                predicted_step: e.step.0,
                error: e.step.0 / measured - 1.0,
                mfu: e.mfu(),
                peak_memory: e.peak_memory.0,
                fits: e.fits,
                source: r.arxiv.map_or_else(
                    || String::from(r.repo.unwrap_or_default()),
                    |a| format!("arXiv {a}"),
                ),
            })
        })
        .collect()
}

/// The validation table in Markdown: each run, its configuration, measured
/// and predicted seconds per step, the error, the predicted MFU and memory
/// of the heaviest device; then the median and largest |error|.
#[must_use]
pub fn markdown(rows: &[Validation]) -> String {
    let mut out = String::from(
        "| run | GPUs | configuration | measured s/step | predicted s/step | error | MFU | memory (GiB) |\n\
         |---|---:|---|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} ({} B, {}) | {} | {} | {:.3} | {:.3} | {:+.1} % | {:.1} % | {:.1}{} |\n",
            r.id,
            r.params_b,
            r.source,
            r.gpus,
            r.config,
            r.measured_step,
            r.predicted_step,
            100.0 * r.error,
            100.0 * r.mfu,
            r.peak_memory / crate::units::GIB,
            if r.fits { "" } else { " (does not fit)" },
        ));
    }
    let (median, max) = summary(rows);
    out.push_str(&format!(
        "\nMedian |error| {:.1} %, largest {:.1} %, over {} runs.\n",
        100.0 * median,
        100.0 * max,
        rows.len()
    ));
    out
}

/// Median and largest |error| of the rows.
#[must_use]
pub fn summary(rows: &[Validation]) -> (f64, f64) {
    let mut abs: Vec<f64> = rows.iter().map(|r| r.error.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let n = abs.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let median = if n % 2 == 0 {
        (abs[n / 2 - 1] + abs[n / 2]) / 2.0
    } else {
        abs[n / 2]
    };
    (median, abs[n - 1])
}

/// The validation table as HTML for the page: a `<p>` with the median and
/// largest error, then a table (one row per run). Shipped verbatim in
/// `index.html` (a test keeps it current), so the page carries no code for
/// it.
#[must_use]
pub fn html(rows: &[Validation]) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let (median, max) = summary(rows);
    let mut out = format!(
        "<p class=\"p3-val-summary\">In sample: {} published runs the kernel efficiency was \
         fitted on, median error {:.1} %, largest {:.1} %.</p>\n\
         <div class=\"p3-scroll\"><table class=\"p3-table p3-wrap\">\n\
         <thead><tr><th>model</th><th>GPUs</th><th>configuration</th><th>measured</th>\
         <th>plan3d</th><th>error</th></tr></thead>\n<tbody>\n",
        rows.len(),
        100.0 * median,
        100.0 * max
    );
    for r in rows {
        out.push_str(&format!(
            "<tr><td>{} B ({})</td><td>{} {}</td><td>{}</td><td>{:.3} s</td><td>{:.3} s</td>\
             <td>{:+.1} %</td></tr>\n",
            esc(&r.params_b),
            esc(&r.source),
            r.gpus,
            esc(&r.gpu),
            esc(&r.config),
            r.measured_step,
            r.predicted_step,
            100.0 * r.error
        ));
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// A published run the fit never saw, and plan3d's figure for it: the
/// Validation card's and `docs/model.md`'s out-of-sample rows. Each is held by
/// the test it names, which recomputes `plan3d` from the setting and fails
/// if it moves by more than 0.5 %.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Check {
    /// The run and its source.
    pub run: &'static str,
    /// What was evaluated, with what the source leaves unsaid stated.
    pub setting: &'static str,
    /// What is compared, with its unit.
    pub measure: &'static str,
    /// The published figure.
    pub published: f64,
    /// plan3d's figure.
    pub plan3d: f64,
    /// The test holding it (`file::function`).
    pub test: &'static str,
}

impl Check {
    /// plan3d / published − 1.
    #[must_use]
    pub fn error(&self) -> f64 {
        self.plan3d / self.published - 1.0
    }
}

/// Published runs outside the calibration set, each with plan3d's figure
/// (see [`Check`]). Nothing was fitted on them.
pub const OUT_OF_SAMPLE: &[Check] = &[
    Check {
        run: "Megatron-Turing NLG 530B (arXiv 2201.11990), 2 240 A100 80 GB",
        setting: "TP8 PP35 DP8, batch 1 920, full recomputation, 2021 software as PTD-P's; \
                  micro-batch unpublished: 2",
        measure: "s per step",
        published: 60.1,
        plan3d: 55.8,
        test: "calibration.rs::mt_nlg_530b_out_of_sample",
    },
    Check {
        run: "Megatron-Turing NLG 530B, 2 800 A100 80 GB",
        setting: "the same, DP10",
        measure: "s per step",
        published: 50.2,
        plan3d: 47.1,
        test: "calibration.rs::mt_nlg_530b_out_of_sample",
    },
    Check {
        run: "Megatron-Turing NLG 530B, 3 360 A100 80 GB",
        setting: "the same, DP12",
        measure: "s per step",
        published: 44.4,
        plan3d: 41.4,
        test: "calibration.rs::mt_nlg_530b_out_of_sample",
    },
    Check {
        run: "Korthikanti et al. 2022 (arXiv 2205.05198) Table 5, 22B on 8 A100 80 GB",
        setting:
            "TP8, micro-batch and batch 4 of 2 048 tokens, full recomputation; 2022 software: \
                  attention materialized, tensor collectives not overlapped",
        measure: "s per step",
        published: 1.42,
        plan3d: 1.451,
        test: "calibration.rs::korthikanti_22b_out_of_sample",
    },
    Check {
        run: "the same, sequence parallelism and selective recomputation",
        setting: "the same, selective recomputation with sequence parallelism",
        measure: "s per step",
        published: 1.10,
        plan3d: 1.028,
        test: "calibration.rs::korthikanti_22b_out_of_sample",
    },
    Check {
        run: "Llama 3 405B, 128 K context (arXiv 2407.21783 Table 4), 16 384 H100",
        setting: "TP8 CP16 PP16 DP8, 16 M tokens a step; unpublished: 4 virtual stages, full \
                  recomputation",
        measure: "model Tflop/s per GPU",
        published: 380.0,
        plan3d: 416.2,
        test: "practice.rs::llama3_405b_long_context_stage",
    },
    DEEPSEEK_V3,
];

/// DeepSeek-V3's published pre-training against plan3d: the page's caveat
/// on FP8 and experts quotes its error (a constant, so that the page's
/// wasm holds none of the other checks' words).
pub const DEEPSEEK_V3: Check = Check {
    run: "DeepSeek-V3 pre-training (arXiv 2412.19437), 2 048 H800",
    setting: "PP16 EP64 ZeRO-1 FP8 with DeepSeek's block scales, batch 15 360, 14.8 T tokens, \
              all-to-alls overlapped; FP8 GEMMs at the curve fitted on DeepGEMM's H800 tables",
    measure: "M GPU-hours",
    published: 2.664,
    plan3d: 2.589,
    test: "moe.rs::deepseek_v3_pre_training_gpu_hours",
};

/// The out-of-sample checks as the page's HTML (appended to [`html`]'s
/// table by `plan3d validate --html`).
#[must_use]
pub fn html_out_of_sample() -> String {
    let mut out = String::from(
        "<p class=\"p3-val-summary\">Out of sample: published runs the fit never saw.</p>\n\
         <div class=\"p3-scroll\"><table class=\"p3-table p3-wrap\" data-testid=\"out-of-sample\">\n\
         <thead><tr><th>run</th><th>setting</th><th>published</th><th>plan3d</th>\
         <th>error</th></tr></thead>\n<tbody>\n",
    );
    for c in OUT_OF_SAMPLE {
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{} {}</td><td>{} {}</td><td>{:+.1} %</td></tr>\n",
            c.run.replace('&', "&amp;"),
            c.setting.replace('&', "&amp;"),
            c.published,
            c.measure,
            c.plan3d,
            c.measure,
            100.0 * c.error()
        ));
    }
    out.push_str("</tbody></table></div>\n");
    out
}
