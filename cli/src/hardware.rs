//! `plan3d hardware`: a GPU's peak, memory and links with their
//! thresholds (Table A.1).

use plan3d_core::api;
use serde_json::Value;

use crate::args::HardwareArgs;
use crate::output::to_json;

/// The hardware the flags name.
pub(crate) fn hardware_cmd(hw: &HardwareArgs) -> Result<Value, String> {
    to_json(api::hardware(&hw.request()))
}
