//! The page's components, one per card. Each reads signals and core's
//! outputs and draws; none computes a number.

pub mod inputs;
pub mod memory;
pub mod network;
pub mod notices;
pub mod plans;
pub mod profile;
pub mod run;
pub mod scaling;
pub mod schedule;
pub mod share;
pub mod validation;
