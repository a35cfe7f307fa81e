//! # plan3d-core
//!
//! The cost model behind plan3d: how much memory, network and time the
//! distributed training of a dense transformer needs for a data ×
//! pipeline × tensor-parallel configuration.
//!
//! The primary source is Lamy-Poirier 2021, "Layered gradient accumulation
//! and modular pipeline parallelism" (arXiv 2106.02679): the X\[x\] model
//! family and critical batch size (App. B), hardware thresholds (App. A),
//! compute, memory, buffering, network and CPU-GPU formulas (App. C).
//! ZeRO (stages 0–3), Megatron-LM's training-time estimate and the
//! recomputation-aware activation counts of Korthikanti et al. add to it.
//! Every formula's doc comment names its equation.
//!
//! ```
//! use plan3d_core::{evaluate, model, Config, Hardware, Method};
//! let x160 = model::preset("X160")?;
//! let cfg = Config { method: Method::Baseline, data: 483, tensor: 16,
//!                    micro_batch: 5, offload: true, ..Config::default() };
//! let e = evaluate(&x160, &Hardware::default(), &cfg)?;
//! assert_eq!(e.gpus, 7728);
//! assert_eq!(e.time.days().round(), 32.0); // Table 6.1, Data + tensor baseline
//! # Ok::<(), plan3d_core::Error>(())
//! ```
//!
//! # Conventions
//!
//! * Memory and bandwidth are held in bytes ([`units::Bytes`]); the paper's
//!   "GB" is GiB (MODEL_NOTES fact 1). Compute is decimal flop/s.
//! * Batches count sequences; the critical batch is not rounded.
//! * Training is 10⁵ steps at the critical batch, 365-day years.
//!
//! # Crate features
//!
//! * `std` (default): implies `alloc`; nothing else.
//! * `alloc`: list-returning APIs (search, schedules, [`api`]). The crate
//!   builds with neither (`--no-default-features`, e.g. for
//!   `thumbv7m-none-eabi`), and all float math goes through `libm`, so every
//!   target gives the same numbers.
//! * `serde` (default): `Serialize` and `Deserialize` on [`api`]'s requests
//!   and reports, the JSON exports, the page's state (as its query), and
//!   core's inputs: shapes, configurations, constraints, hardware (a GPU by
//!   its preset name and figures), the named choices by their CLI names
//!   (implies `alloc`, works without `std`).
//! * `schema`: a JSON schema of them through `schemars` (implies `std`).
#![no_std]
#![deny(missing_docs)]

#[cfg(any(test, feature = "std"))]
extern crate std;

#[cfg(feature = "alloc")]
extern crate alloc;

#[cfg(feature = "alloc")]
pub mod api;
#[cfg(feature = "alloc")]
pub mod calibration;
pub mod cost;
mod error;
pub mod estimate;
#[cfg(feature = "serde")]
pub mod export;
pub mod hardware;
mod math;
pub mod model;
pub mod no_plan;
#[cfg(feature = "alloc")]
pub mod planner;
#[cfg(feature = "alloc")]
pub mod run;
#[cfg(feature = "alloc")]
pub mod schedule;
#[cfg(feature = "alloc")]
pub mod search;
#[cfg(feature = "serde")]
mod serde_impls;
#[cfg(feature = "alloc")]
pub mod state;
#[cfg(feature = "alloc")]
pub mod text;
pub mod units;
pub mod zero;

pub use cost::memory;
pub use cost::{
    evaluate, memory_per_gpu, Config, Evaluation, Method, Overheads, Transfer, TransferKind,
    Transfers, MAX_DEGREE, MAX_GPUS, TRAINING_STEPS,
};
pub use error::Error;
pub use hardware::{Gpu, Hardware, Link, Network};
pub use math::round_sig;
pub use memory::{ActivationModel, MemoryBreakdown};
pub use model::ModelShape;
