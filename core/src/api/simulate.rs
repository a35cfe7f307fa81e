//! `plan3d schedule`: a schedule a request names, simulated.

use crate::memory::ActivationModel;
use crate::schedule::{self, Durations, MemorySizes, Schedule, ScheduleKind, ScheduleSpec};

use super::parse::{hardware_of, naming};
use super::report::ScheduleReport;
use super::request::ScheduleRequest;
use super::ApiError;

/// The simulated schedule a [`ScheduleRequest`] names (for the CLI's text
/// and SVG drawings; [`schedule()`] gives its report).
///
/// # Errors
///
/// An unknown kind or model, or a spec [`schedule::simulate`] rejects.
pub fn simulate(r: &ScheduleRequest) -> Result<Schedule, ApiError> {
    let kind = ScheduleKind::parse(&r.kind).map_err(|e| naming(e, &r.kind))?;
    let devices = r.devices.unwrap_or(if kind.pipelined() { 4 } else { 1 });
    let (durations, memory_model, layers) = match &r.model {
        Some(name) => {
            let m = super::parse::preset_of(name)?;
            let hw = hardware_of(&r.hardware)?;
            let d = Durations::from_cost_model(
                &m,
                &hw,
                r.tensor,
                r.micro_batch,
                r.data,
                r.partition,
                ActivationModel::Paper,
            )?;
            (d, Some(m), r.layers.unwrap_or(m.layers))
        }
        None => {
            let mut d = Durations::unit(r.backward);
            d.reduce = r.reduce;
            d.restore = r.restore;
            d.send = r.send;
            (d, None, r.layers.unwrap_or(16))
        }
    };
    let mut spec = ScheduleSpec {
        kind,
        devices,
        layers,
        micro_batches: r.micro_batches,
        chunks: if kind == ScheduleKind::Interleaved {
            r.chunks
        } else {
            1
        },
        group: r.group.unwrap_or(0),
        data: r.data,
        partition: r.partition,
        offload: r.offload,
        durations,
        memory: MemorySizes::unit(),
    };
    if let Some(m) = memory_model {
        spec.memory = MemorySizes::from_cost_model(&m, &spec, r.tensor, r.micro_batch);
    }
    Ok(schedule::simulate(&spec)?)
}

/// `plan3d schedule`: a simulated step's events and metrics.
///
/// # Errors
///
/// As [`simulate`].
pub fn schedule(r: &ScheduleRequest) -> Result<ScheduleReport, ApiError> {
    Ok(ScheduleReport::from(&simulate(r)?))
}
