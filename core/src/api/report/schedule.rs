//! Simulated training schedules (`plan3d schedule`, `--timeline`).

#[allow(clippy::wildcard_imports)]
use super::*;

/// One event of a simulated schedule.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EventReport {
    /// Device (pipeline stage).
    pub device: u32,
    /// `compute`, `network`, `pipeline` or `cpu-gpu`.
    pub stream: String,
    /// `forward`, `backward`, `restore`, `reduce`, `send`, `offload`,
    /// `reload` or `optimizer`.
    pub kind: String,
    /// First layer.
    pub layer: u32,
    /// Layers.
    pub layers: u32,
    /// Micro-batch, or null.
    pub micro_batch: Option<u32>,
    /// Start, in the schedule's unit.
    pub start: f64,
    /// End, in the schedule's unit.
    pub end: f64,
}

impl From<&Event> for EventReport {
    fn from(e: &Event) -> Self {
        Self {
            device: e.device,
            stream: e.stream.name().to_string(),
            kind: e.kind.name().to_string(),
            layer: e.layer,
            layers: e.layers,
            micro_batch: e.micro_batch,
            start: e.start,
            end: e.end,
        }
    }
}

/// `plan3d schedule`: a simulated training step.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScheduleReport {
    /// The kind.
    pub kind: String,
    /// Pipeline devices.
    pub devices: u32,
    /// Layers.
    pub layers: u32,
    /// Micro-batches.
    pub micro_batches: u32,
    /// Virtual stages per device.
    pub chunks: u32,
    /// Data-parallel degree.
    pub data: u32,
    /// State partitioned.
    pub partition: bool,
    /// State offloaded.
    pub offload: bool,
    /// `unit` or `s`: the unit of every duration.
    pub unit: String,
    /// End of the last event.
    pub makespan: f64,
    /// Compute span over the busiest device's compute, minus 1.
    pub bubble_fraction: f64,
    /// Makespan minus the makespan with free transfers.
    pub exposed_communication: f64,
    /// Per device, compute busy time over the makespan.
    pub utilisation: Vec<f64>,
    /// Per device, most micro-batches in flight.
    pub in_flight: Vec<u32>,
    /// Per device, peak memory (bytes, or units in unit mode).
    pub memory_peak_bytes: Vec<f64>,
    /// Every event.
    pub events: Vec<EventReport>,
}

/// `plan3d evaluate --timeline json`: a configuration's step as the page
/// animates it, and what of the plan it shows.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimelineReport {
    /// The simulated step ([`ScheduleReport`]'s fields).
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub schedule: ScheduleReport,
    /// Pipeline devices simulated (fewer than the plan's when scaled down).
    pub shown_devices: u32,
    /// The plan's pipeline devices.
    pub plan_devices: u32,
    /// Micro-batches simulated.
    pub shown_micro_batches: u32,
    /// The plan's micro-batches.
    pub plan_micro_batches: u32,
    /// The evaluator's step for the plan, seconds (the simulation overlaps
    /// sends and data-parallel traffic its own way).
    pub estimated_step_seconds: f64,
}

impl From<&Schedule> for ScheduleReport {
    fn from(s: &Schedule) -> Self {
        let spec = &s.spec;
        Self {
            kind: spec.kind.name().to_string(),
            devices: spec.devices,
            layers: spec.layers,
            micro_batches: spec.micro_batches,
            chunks: spec.chunks,
            data: spec.data,
            partition: spec.partition,
            offload: spec.offload,
            unit: spec.durations.unit.to_string(),
            makespan: s.makespan,
            bubble_fraction: s.bubble_fraction,
            exposed_communication: s.exposed_communication,
            utilisation: s.utilisation.clone(),
            in_flight: s.in_flight.clone(),
            memory_peak_bytes: s.memory_peak.clone(),
            events: s.events.iter().map(EventReport::from).collect(),
        }
    }
}
