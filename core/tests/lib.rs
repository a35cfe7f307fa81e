//! plan3d-core's integration tests, one binary.

#[cfg(feature = "serde")]
mod calibration;
mod context;
#[cfg(feature = "alloc")]
mod fields;
#[cfg(feature = "alloc")]
mod formats;
#[cfg(feature = "serde")]
mod frameworks;
mod golden;
#[cfg(feature = "serde")]
mod h100_steps;
#[cfg(feature = "serde")]
mod kernels;
#[cfg(feature = "alloc")]
mod layout;
#[cfg(feature = "alloc")]
mod moe;
#[cfg(feature = "alloc")]
mod page;
mod pipeline;
mod practice;
#[cfg(feature = "serde")]
mod profile;
mod props;
#[cfg(feature = "knobs")]
mod recompute;
#[cfg(feature = "alloc")]
mod run;
#[cfg(feature = "serde")]
mod saved;
#[cfg(feature = "alloc")]
mod schedule;
#[cfg(feature = "alloc")]
mod schedules;
#[cfg(feature = "serde")]
mod schema;
#[cfg(feature = "alloc")]
mod search;
#[cfg(feature = "alloc")]
mod state;
mod units;
