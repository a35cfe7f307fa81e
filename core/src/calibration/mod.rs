//! The calibration set: published measurements of real training runs
//! ([`RUNS`], the fields of `data/calibration/real_runs.json`, a copy of
//! the workspace's `shared/calibration/real_runs.json`; a test checks them
//! against the file), what each run ran with, and the practice model's
//! error on each ([`validate`]).
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

use crate::cost::{Assumptions, Zero};
use crate::error::Error;
use crate::hardware::{self, Hardware, Network};
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::Config;

/// One published run, as `data/calibration/real_runs.json` gives it (the
/// fields plan3d reads; a test checks every one against the file). Plain
/// data, so the page carries no JSON parser for it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub struct Run {
    pub id: &'static str,
    pub title: &'static str,
    pub arxiv: Option<&'static str>,
    pub repo: Option<&'static str>,
    pub params_published_b: &'static str,
    pub layers: u32,
    pub d_model: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub head_size: u32,
    pub ffn: u32,
    pub gated: bool,
    pub seq_len: u32,
    pub vocab: u32,
    pub plan3d_gpu: &'static str,
    pub plan3d_network: &'static str,
    pub gpus_per_node: u32,
    pub gpus: u64,
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub virtual_stages: Option<u32>,
    pub zero_stage: Option<u8>,
    pub sequence_parallel: Option<bool>,
    pub recompute: &'static str,
    pub micro_batch: u32,
    pub global_batch: u64,
    pub tflops_per_gpu: Option<f64>,
    pub seconds_per_iteration: Option<f64>,
    /// MFU in percent, as published.
    pub mfu: Option<f64>,
    /// The flop convention: `megatron_eq3` or `nemo_model_flops`.
    pub convention: &'static str,
}

/// The runs of the calibration set, in the file's order.
pub const RUNS: &[Run] = &[
    Run {
        id: "ptdp-t1-1.7b",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM (Narayanan et al., SC21)",
        arxiv: Some("2104.04473"),
        repo: None,
        params_published_b: "1.7",
        layers: 24,
        d_model: 2304,
        heads: 24,
        kv_heads: 24,
        head_size: 96,
        ffn: 9216,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "a100-80gb",
        plan3d_network: "infiniband",
        gpus_per_node: 8,
        gpus: 32,
        tp: 1,
        pp: 1,
        dp: 32,
        virtual_stages: None,
        zero_stage: None,
        sequence_parallel: Some(false),
        recompute: "full (--recompute-method uniform, run_table_1.sh)",
        micro_batch: 16,
        global_batch: 512,
        tflops_per_gpu: Some(137.0),
        seconds_per_iteration: None,
        mfu: None,
        convention: "megatron_eq3",
    },
    Run {
        id: "ptdp-t1-3.6b",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM (Narayanan et al., SC21)",
        arxiv: Some("2104.04473"),
        repo: None,
        params_published_b: "3.6",
        layers: 30,
        d_model: 3072,
        heads: 32,
        kv_heads: 32,
        head_size: 96,
        ffn: 12288,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "a100-80gb",
        plan3d_network: "infiniband",
        gpus_per_node: 8,
        gpus: 64,
        tp: 2,
        pp: 1,
        dp: 32,
        virtual_stages: None,
        zero_stage: None,
        sequence_parallel: Some(false),
        recompute: "full (--recompute-method uniform, run_table_1.sh)",
        micro_batch: 16,
        global_batch: 512,
        tflops_per_gpu: Some(138.0),
        seconds_per_iteration: None,
        mfu: None,
        convention: "megatron_eq3",
    },
    Run {
        id: "ptdp-t1-7.5b",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM (Narayanan et al., SC21)",
        arxiv: Some("2104.04473"),
        repo: None,
        params_published_b: "7.5",
        layers: 36,
        d_model: 4096,
        heads: 32,
        kv_heads: 32,
        head_size: 128,
        ffn: 16384,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "a100-80gb",
        plan3d_network: "infiniband",
        gpus_per_node: 8,
        gpus: 128,
        tp: 4,
        pp: 1,
        dp: 32,
        virtual_stages: None,
        zero_stage: None,
        sequence_parallel: Some(false),
        recompute: "full (--recompute-method uniform, run_table_1.sh)",
        micro_batch: 16,
        global_batch: 512,
        tflops_per_gpu: Some(142.0),
        seconds_per_iteration: None,
        mfu: None,
        convention: "megatron_eq3",
    },
    Run {
        id: "ptdp-t1-18.4b",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM (Narayanan et al., SC21)",
        arxiv: Some("2104.04473"),
        repo: None,
        params_published_b: "18.4",
        layers: 40,
        d_model: 6144,
        heads: 48,
        kv_heads: 48,
        head_size: 128,
        ffn: 24576,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "a100-80gb",
        plan3d_network: "infiniband",
        gpus_per_node: 8,
        gpus: 256,
        tp: 8,
        pp: 1,
        dp: 32,
        virtual_stages: None,
        zero_stage: None,
        sequence_parallel: Some(false),
        recompute: "full (--recompute-method uniform, run_table_1.sh)",
        micro_batch: 8,
        global_batch: 1024,
        tflops_per_gpu: Some(135.0),
        seconds_per_iteration: None,
        mfu: None,
        convention: "megatron_eq3",
    },
    Run {
        id: "ptdp-t1-39.1b",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM (Narayanan et al., SC21)",
        arxiv: Some("2104.04473"),
        repo: None,
        params_published_b: "39.1",
        layers: 48,
        d_model: 8192,
        heads: 64,
        kv_heads: 64,
        head_size: 128,
        ffn: 32768,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "a100-80gb",
        plan3d_network: "infiniband",
        gpus_per_node: 8,
        gpus: 512,
        tp: 8,
        pp: 2,
        dp: 32,
        virtual_stages: None,
        zero_stage: None,
        sequence_parallel: Some(false),
        recompute: "full (--recompute-method uniform, run_table_1.sh)",
        micro_batch: 4,
        global_batch: 1536,
        tflops_per_gpu: Some(138.0),
        seconds_per_iteration: None,
        mfu: None,
        convention: "megatron_eq3",
    },
    Run {
        id: "ptdp-t1-76.1b",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM (Narayanan et al., SC21)",
        arxiv: Some("2104.04473"),
        repo: None,
        params_published_b: "76.1",
        layers: 60,
        d_model: 10240,
        heads: 80,
        kv_heads: 80,
        head_size: 128,
        ffn: 40960,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "a100-80gb",
        plan3d_network: "infiniband",
        gpus_per_node: 8,
        gpus: 1024,
        tp: 8,
        pp: 4,
        dp: 32,
        virtual_stages: Some(3),
        zero_stage: None,
        sequence_parallel: Some(false),
        recompute: "full (--recompute-method uniform, run_table_1.sh)",
        micro_batch: 2,
        global_batch: 1792,
        tflops_per_gpu: Some(140.0),
        seconds_per_iteration: None,
        mfu: None,
        convention: "megatron_eq3",
    },
    Run {
        id: "ptdp-t1-145.6b",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM (Narayanan et al., SC21)",
        arxiv: Some("2104.04473"),
        repo: None,
        params_published_b: "145.6",
        layers: 80,
        d_model: 12288,
        heads: 96,
        kv_heads: 96,
        head_size: 128,
        ffn: 49152,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "a100-80gb",
        plan3d_network: "infiniband",
        gpus_per_node: 8,
        gpus: 1536,
        tp: 8,
        pp: 8,
        dp: 24,
        virtual_stages: Some(2),
        zero_stage: None,
        sequence_parallel: Some(false),
        recompute: "full (--recompute-method uniform, run_table_1.sh)",
        micro_batch: 2,
        global_batch: 2304,
        tflops_per_gpu: Some(148.0),
        seconds_per_iteration: None,
        mfu: None,
        convention: "megatron_eq3",
    },
    Run {
        id: "ptdp-t1-310.1b",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM (Narayanan et al., SC21)",
        arxiv: Some("2104.04473"),
        repo: None,
        params_published_b: "310.1",
        layers: 96,
        d_model: 16384,
        heads: 128,
        kv_heads: 128,
        head_size: 128,
        ffn: 65536,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "a100-80gb",
        plan3d_network: "infiniband",
        gpus_per_node: 8,
        gpus: 1920,
        tp: 8,
        pp: 16,
        dp: 15,
        virtual_stages: Some(2),
        zero_stage: None,
        sequence_parallel: Some(false),
        recompute: "full (--recompute-method uniform, run_table_1.sh)",
        micro_batch: 1,
        global_batch: 2160,
        tflops_per_gpu: Some(155.0),
        seconds_per_iteration: None,
        mfu: None,
        convention: "megatron_eq3",
    },
    Run {
        id: "ptdp-t1-529.6b",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM (Narayanan et al., SC21)",
        arxiv: Some("2104.04473"),
        repo: None,
        params_published_b: "529.6",
        layers: 105,
        d_model: 20480,
        heads: 128,
        kv_heads: 128,
        head_size: 160,
        ffn: 81920,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "a100-80gb",
        plan3d_network: "infiniband",
        gpus_per_node: 8,
        gpus: 2520,
        tp: 8,
        pp: 35,
        dp: 9,
        virtual_stages: Some(3),
        zero_stage: None,
        sequence_parallel: Some(false),
        recompute: "full (--recompute-method uniform, run_table_1.sh)",
        micro_batch: 1,
        global_batch: 2520,
        tflops_per_gpu: Some(163.0),
        seconds_per_iteration: None,
        mfu: None,
        convention: "megatron_eq3",
    },
    Run {
        id: "ptdp-t1-1008.0b",
        title: "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM (Narayanan et al., SC21)",
        arxiv: Some("2104.04473"),
        repo: None,
        params_published_b: "1008.0",
        layers: 128,
        d_model: 25600,
        heads: 160,
        kv_heads: 160,
        head_size: 160,
        ffn: 102400,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "a100-80gb",
        plan3d_network: "infiniband",
        gpus_per_node: 8,
        gpus: 3072,
        tp: 8,
        pp: 64,
        dp: 6,
        virtual_stages: None,
        zero_stage: None,
        sequence_parallel: Some(false),
        recompute: "full (--recompute-method uniform, run_table_1.sh)",
        micro_batch: 1,
        global_batch: 3072,
        tflops_per_gpu: Some(163.0),
        seconds_per_iteration: None,
        mfu: None,
        convention: "megatron_eq3",
    },
    Run {
        id: "dgxc-gpt3-175b-h100-128",
        title: "NVIDIA DGX Cloud Benchmarking recipes (published measured throughput, NeMo 24.x, BF16)",
        arxiv: None,
        repo: Some("NVIDIA/dgxc-benchmarking"),
        params_published_b: "175",
        layers: 96,
        d_model: 12288,
        heads: 96,
        kv_heads: 96,
        head_size: 128,
        ffn: 49152,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "h100-sxm",
        plan3d_network: "infiniband-400",
        gpus_per_node: 8,
        gpus: 128,
        tp: 4,
        pp: 8,
        dp: 4,
        virtual_stages: Some(12),
        zero_stage: None,
        sequence_parallel: None,
        recompute: "not stated",
        micro_batch: 1,
        global_batch: 256,
        tflops_per_gpu: None,
        seconds_per_iteration: Some(8.309),
        mfu: Some(53.54),
        convention: "nemo_model_flops",
    },
    Run {
        id: "dgxc-gpt3-175b-h100-2048",
        title: "NVIDIA DGX Cloud Benchmarking recipes (published measured throughput, NeMo 24.x, BF16)",
        arxiv: None,
        repo: Some("NVIDIA/dgxc-benchmarking"),
        params_published_b: "175",
        layers: 96,
        d_model: 12288,
        heads: 96,
        kv_heads: 96,
        head_size: 128,
        ffn: 49152,
        gated: false,
        seq_len: 2048,
        vocab: 51200,
        plan3d_gpu: "h100-sxm",
        plan3d_network: "infiniband-400",
        gpus_per_node: 8,
        gpus: 2048,
        tp: 4,
        pp: 8,
        dp: 64,
        virtual_stages: Some(12),
        zero_stage: None,
        sequence_parallel: None,
        recompute: "not stated",
        micro_batch: 1,
        global_batch: 4096,
        tflops_per_gpu: None,
        seconds_per_iteration: Some(8.49),
        mfu: Some(52.4),
        convention: "nemo_model_flops",
    },
];

impl Run {
    /// Was this run made with Megatron-LM 2021 (PTD-P), counted by its
    /// eq. 3?
    #[must_use]
    pub fn is_ptdp(&self) -> bool {
        self.convention == "megatron_eq3"
    }

    /// The model's shape (GPT: biases, LayerNorm, embeddings tied).
    #[must_use]
    pub fn shape(&self) -> ModelShape {
        ModelShape {
            seq_len: self.seq_len,
            heads: self.heads,
            head_size: self.head_size,
            kv_heads: self.kv_heads,
            layers: self.layers,
            ffn: self.ffn,
            gated_mlp: self.gated,
            biases: true,
            vocab: Some(self.vocab),
            tied_embeddings: true,
            experts: None,
            latent: None,
            hidden: None,
            qk_norm: false,
        }
    }

    /// The hardware.
    ///
    /// # Errors
    ///
    /// An unknown GPU or network name.
    pub fn hardware(&self) -> Result<Hardware, Error> {
        Ok(Hardware {
            gpu: hardware::gpu(self.plan3d_gpu)?,
            node_size: Some(self.gpus_per_node),
            network: Network::parse(self.plan3d_network)?,
            kernel_efficiency: 1.0,
        })
    }

    /// The configuration, with what the source's software did where the
    /// file says `null` (see the module's documentation).
    #[must_use]
    pub fn config(&self) -> Config {
        let nemo = !self.is_ptdp();
        let recompute = if self.recompute.starts_with("full") {
            ActivationModel::Full
        } else if self.recompute.starts_with("selective") {
            ActivationModel::Selective
        } else {
            // "not stated": the NeMo recipe checkpoints nothing.
            ActivationModel::None
        };
        let zero = match self.zero_stage {
            Some(1) => Zero::One,
            Some(2) => Zero::Two,
            Some(3) => Zero::Three,
            Some(_) => Zero::None,
            None if nemo => Zero::One,
            None => Zero::None,
        };
        let per_pipeline = self.global_batch / (u64::from(self.dp) * u64::from(self.micro_batch));
        Config {
            data: self.dp,
            pipe: self.pp,
            tensor: self.tp,
            micro_batch: self.micro_batch,
            micro_batches: u32::try_from(per_pipeline).unwrap_or(u32::MAX),
            activation: recompute,
            virtual_stages: self.virtual_stages.unwrap_or(1),
            sequence_parallel: self.sequence_parallel.unwrap_or(nemo),
            zero,
            ..Config::default()
        }
    }

    /// The practice knobs with what this run's software did.
    #[must_use]
    pub fn assumptions(&self) -> Assumptions {
        if self.is_ptdp() {
            // Megatron-LM 2021: its layer with dropout, as Korthikanti
            // counts it.
            Assumptions {
                flash_attention: false,
                overlap_data: false,
                overlap_tensor: false,
                gradient_reduce_bytes: 2.0,
                ..crate::cost::framework::Framework::Megatron2022.apply(Assumptions::PRACTICE)
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
        if let Some(s) = self.seconds_per_iteration {
            return Some(s);
        }
        let tflops = self.tflops_per_gpu?;
        let (h, l, s, v) = (
            f64::from(self.d_model),
            f64::from(self.layers),
            f64::from(self.seq_len),
            f64::from(self.vocab),
        );
        let b = self.global_batch as f64;
        let flops = 96.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
        Some(flops / (self.gpus as f64 * tflops * 1e12))
    }
}

mod published;
mod validation;

pub use published::{published_batch, published_batch_apart, PublishedBatch, PUBLISHED_BATCHES};

pub use validation::{
    html, html_out_of_sample, markdown, summary, validate, Check, Validation, DEEPSEEK_V3,
    OUT_OF_SAMPLE,
};
