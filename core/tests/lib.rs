//! plan3d-core's integration tests, one binary.

mod golden;
mod props;
mod search;
mod units;
