//! The cost of one training configuration: memory (C.3), the arithmetic
//! intensity of every transfer (C.4, C.5), the overheads, efficiency and
//! training time (sec. 5, MODEL_NOTES facts 6–10).
//!
//! One file per part of the cost, so that a new set of assumptions grows
//! each part where it lives:
//!
//! * [`config`]: what is evaluated (method, degrees, micro-batches) and
//!   what is accepted;
//! * [`work`]: the compute of a step and of the run;
//! * [`memory`]: memory per GPU;
//! * [`comm`]: the transfers and their intensities against each link;
//! * [`overheads`]: bubble, imbalance and how the overheads compose;
//! * [`evaluate()`]: all of it for one configuration.
//!
//! # How efficiency composes (MODEL_NOTES fact 7)
//!
//! Efficiency is `kernel_efficiency × Π 1/(1 + overhead)` over:
//!
//! * the pipeline bubble: (n_l−1)/n_µ for a standard pipeline,
//!   (n_l−1)·n_l/(n_µ·d_l) for the modular one (sec. 4);
//! * tensor parallelism, never overlapped: ν_NVLink/ν_a (eq. 12);
//! * the data-parallel reduction: exposed for the baseline with a pipeline
//!   (ν_net/ν, eq. 6), otherwise overlapped (eqs. 5, 7–9);
//! * pipeline transfers, exposed unless n_µ ≥ n_l·(1 + ν_net/ν_l)
//!   (fact 8; eqs. 10–11);
//! * CPU-GPU transfers when offloading, sharing the PCIe link with the
//!   overlapped network traffic (eqs. 13–14, fact 10);
//! * load imbalance when n_l does not divide d_l, or n_a the heads.
//!
//! An overlapped transfer costs nothing while its intensity is at or above
//! the link's threshold (eq. 3). plan3d goes beyond the paper for
//! configurations that break that bound: the phase the transfer overlaps
//! (a fraction w of the step's compute) then lasts as long as the transfer
//! (sec. 2.3: "the runtime is determined by the slowest of the
//! operations"), an overhead of w·(ν_net/ν − 1). Configurations the paper's
//! rules select never pay it.

pub mod assumptions;
pub mod collective;
pub mod comm;
pub mod config;
pub mod context;
pub mod cross_entropy;
mod evaluate;
pub mod formats;
pub mod framework;
pub mod kernels;
pub mod memory;
pub mod offload;
pub mod overheads;
#[cfg(feature = "alloc")]
pub mod profile;
pub mod saved;
pub mod sharding;
pub mod step;
pub mod work;

pub use assumptions::{AssumptionSet, Assumptions, Precision, Zero};
pub use comm::{Transfer, TransferKind, Transfers};
pub use config::{Config, Method, MicroBatchNeed, PipelineSchedule, ZeroR, MAX_DEGREE, MAX_GPUS};
#[cfg(feature = "alloc")]
pub(crate) use evaluate::evaluate_staged;
pub use evaluate::{evaluate, evaluate_with, Evaluation, TENSOR_SPANS_NODES};
pub use memory::{memory_per_gpu, ActivationModel, MemoryBreakdown, StageMemory, Stages};
pub use overheads::Overheads;
pub use work::TRAINING_STEPS;
