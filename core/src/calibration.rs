//! The calibration set: published measurements of real training runs
//! (`data/calibration/real_runs.json`, a copy of the workspace's
//! `shared/calibration/real_runs.json`), what each run ran with, and the
//! practice model's error on each ([`validate`]).
//!
//! The file gives each run's shape, hardware and parallelism, and `null`
//! where its source is silent. What the source's software did there is a
//! fact about that software, read from the source named in
//! [`Run::assumptions`], never fitted:
//!
//! * **PTD-P Table 1** (Megatron-LM, 2021): fp16 with gradients
//!   all-reduced in half precision after the backward pass (no overlap),
//!   no FlashAttention (2022), no sequence parallelism (2022), tensor
//!   collectives not overlapped, no distributed optimizer; full
//!   recomputation (`run_table_1.sh`).
//! * **DGX Cloud GPT-3 175B** (NeMo 24.x): the recipe's own config,
//!   `NVIDIA/dgxc-benchmarking` `nemo_megatron/gpt3_175b_hydra.yaml`:
//!   `sequence_parallel: true`, no activation checkpointing
//!   (`activations_checkpoint_granularity: null`), the distributed
//!   optimizer with `overlap_grad_sync` and `overlap_param_sync`,
//!   `grad_sync_dtype: bf16`, `ub_tp_comm_overlap: true`, Transformer
//!   Engine's fused (flash) attention. (That file also sets `fp8: true`;
//!   the measurements used here are the recipe's BF16 table.)

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Deserialize;

use crate::cost::{evaluate_with, Assumptions, Zero};
use crate::error::Error;
use crate::hardware::{self, Hardware, Network};
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::Config;

/// The calibration file, as shipped.
pub const REAL_RUNS_JSON: &str = include_str!("../data/calibration/real_runs.json");

#[derive(Deserialize)]
struct File {
    runs: Vec<Run>,
}

/// A run's source.
#[derive(Clone, Debug, Deserialize)]
pub struct Source {
    /// Title.
    pub title: String,
    /// arXiv id, when a paper.
    pub arxiv: Option<String>,
    /// Repository, when a repository.
    #[serde(default)]
    pub repo: Option<String>,
    /// Where in it.
    #[serde(rename = "where")]
    pub location: String,
}

/// A run's model.
#[derive(Clone, Debug, Deserialize)]
#[allow(missing_docs)]
pub struct RunModel {
    pub params_published_b: String,
    pub layers: u32,
    pub d_model: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub head_size: u32,
    pub ffn: u32,
    pub gated: bool,
    pub seq_len: u32,
    pub vocab: u32,
}

/// A run's hardware.
#[derive(Clone, Debug, Deserialize)]
#[allow(missing_docs)]
pub struct RunHardware {
    pub gpu: String,
    pub plan3d_gpu: String,
    pub gpus_per_node: u32,
    pub network: String,
    pub plan3d_network: String,
    pub gpus: u64,
}

/// A run's parallelism, as published (`None`: the source does not say).
#[derive(Clone, Debug, Deserialize)]
#[allow(missing_docs)]
pub struct RunParallelism {
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub cp: u32,
    pub virtual_stages: Option<u32>,
    pub zero_stage: Option<u8>,
    pub sequence_parallel: Option<bool>,
    pub recompute: String,
    pub micro_batch: u32,
    pub global_batch: u64,
}

/// What was measured.
#[derive(Clone, Debug, Deserialize)]
#[allow(missing_docs)]
pub struct Measured {
    pub tflops_per_gpu: Option<f64>,
    pub seconds_per_iteration: Option<f64>,
    pub mfu: Option<f64>,
    pub tokens_per_s: Option<f64>,
}

/// How the source counts flops.
#[derive(Clone, Debug, Deserialize)]
pub struct Convention {
    /// `megatron_eq3` or `nemo_model_flops`.
    pub kind: String,
    /// The source's formula, in words.
    pub text: String,
}

/// One published run.
#[derive(Clone, Debug, Deserialize)]
pub struct Run {
    /// Stable id.
    pub id: String,
    /// Where it is published.
    pub source: Source,
    /// The model.
    pub model: RunModel,
    /// The hardware.
    pub hardware: RunHardware,
    /// The parallelism.
    pub parallelism: RunParallelism,
    /// What was measured.
    pub measured: Measured,
    /// The flop convention.
    pub convention: Convention,
}

/// The runs of the calibration set.
///
/// # Errors
///
/// A file that does not parse (a test guards the shipped one).
pub fn runs() -> Result<Vec<Run>, String> {
    serde_json::from_str::<File>(REAL_RUNS_JSON)
        .map(|f| f.runs)
        .map_err(|e| format!("calibration file: {e}"))
}

impl Run {
    /// Was this run made with Megatron-LM 2021 (PTD-P), counted by its
    /// eq. 3?
    #[must_use]
    pub fn is_ptdp(&self) -> bool {
        self.convention.kind == "megatron_eq3"
    }

    /// The model's shape (GPT: biases, LayerNorm, embeddings tied).
    #[must_use]
    pub fn shape(&self) -> ModelShape {
        let m = &self.model;
        ModelShape {
            seq_len: m.seq_len,
            heads: m.heads,
            head_size: m.head_size,
            kv_heads: m.kv_heads,
            layers: m.layers,
            ffn: m.ffn,
            gated_mlp: m.gated,
            biases: true,
            vocab: Some(m.vocab),
            tied_embeddings: true,
        }
    }

    /// The hardware.
    ///
    /// # Errors
    ///
    /// An unknown GPU or network name.
    pub fn hardware(&self) -> Result<Hardware, Error> {
        Ok(Hardware {
            gpu: hardware::gpu(&self.hardware.plan3d_gpu)?,
            node_size: Some(self.hardware.gpus_per_node),
            network: Network::parse(&self.hardware.plan3d_network)?,
            kernel_efficiency: 1.0,
        })
    }

    /// The configuration, with what the source's software did where the
    /// file says `null` (see the module's documentation).
    #[must_use]
    pub fn config(&self) -> Config {
        let p = &self.parallelism;
        let nemo = !self.is_ptdp();
        let recompute = if p.recompute.starts_with("full") {
            ActivationModel::Full
        } else if p.recompute.starts_with("selective") {
            ActivationModel::Selective
        } else {
            // "not stated": the NeMo recipe checkpoints nothing.
            ActivationModel::None
        };
        let zero = match p.zero_stage {
            Some(1) => Zero::One,
            Some(2) => Zero::Two,
            Some(3) => Zero::Three,
            Some(_) => Zero::None,
            None if nemo => Zero::One,
            None => Zero::None,
        };
        let per_pipeline = p.global_batch / (u64::from(p.dp) * u64::from(p.micro_batch));
        Config {
            data: p.dp,
            pipe: p.pp,
            tensor: p.tp,
            micro_batch: p.micro_batch,
            micro_batches: u32::try_from(per_pipeline).unwrap_or(u32::MAX),
            activation: recompute,
            virtual_stages: p.virtual_stages.unwrap_or(1),
            sequence_parallel: p.sequence_parallel.unwrap_or(nemo),
            zero,
            ..Config::default()
        }
    }

    /// The practice knobs with what this run's software did.
    #[must_use]
    pub fn assumptions(&self) -> Assumptions {
        if self.is_ptdp() {
            Assumptions {
                flash_attention: false,
                overlap_data: false,
                overlap_tensor: false,
                gradient_reduce_bytes: 2.0,
                ..Assumptions::PRACTICE
            }
        } else {
            Assumptions {
                gradient_reduce_bytes: 2.0,
                ..Assumptions::PRACTICE
            }
        }
    }

    /// The measured step time in seconds: as published, or the published
    /// Tflop/s turned into seconds with the source's own count (PTD-P
    /// eq. 3: 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) per iteration).
    #[must_use]
    pub fn measured_step(&self) -> Option<f64> {
        if let Some(s) = self.measured.seconds_per_iteration {
            return Some(s);
        }
        let tflops = self.measured.tflops_per_gpu?;
        let m = &self.model;
        let (h, l, s, v) = (
            f64::from(m.d_model),
            f64::from(m.layers),
            f64::from(m.seq_len),
            f64::from(m.vocab),
        );
        let b = self.parallelism.global_batch as f64;
        let flops = 96.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
        Some(flops / (self.hardware.gpus as f64 * tflops * 1e12))
    }
}

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
    runs()?
        .iter()
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
                id: r.id.clone(),
                params_b: r.model.params_published_b.clone(),
                gpu: r.hardware.plan3d_gpu.clone(),
                gpus: r.hardware.gpus,
                config: format!(
                    "TP{} PP{}{v} DP{}, mb {}, gb {}, {} recompute{}{}",
                    c.tensor,
                    c.pipe,
                    c.data,
                    c.micro_batch,
                    r.parallelism.global_batch,
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
                source: r.source.arxiv.as_ref().map_or_else(
                    || r.source.repo.clone().unwrap_or_default(),
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
