//! The JSON schema of every request and report (and of the page's
//! exports), generated from the types themselves with schemars, so it
//! cannot drift from what plan3d writes. `plan3d schema` prints it; the
//! page ships it as `api/plan3d.schema.json`.

use serde_json::{json, Value};

use super::report::{
    EstimateReport, EvaluationReport, HardwareReport, ModelReport, PlanReport, RunReport,
    ScheduleReport, SweepRowReport, TimelineReport, ZeroReport,
};
use super::request::{
    CalibrateRequest, EvaluateRequest, HardwareRequest, ModelRequest, PlanRequest, RunRequest,
    ScheduleRequest, SweepRequest,
};
use crate::export::{PlansExport, SweepExport};
use crate::state::Inputs;

/// The schema: JSON Schema 2020-12, one definition per type under `$defs`
/// (named after the type: `EvaluationReport`, `PlanRequest`, …).
#[must_use]
pub fn json_schema() -> Value {
    let mut g = schemars::SchemaGenerator::default();
    g.subschema_for::<ModelReport>();
    g.subschema_for::<HardwareReport>();
    g.subschema_for::<EvaluationReport>();
    g.subschema_for::<PlanReport>();
    g.subschema_for::<RunReport>();
    g.subschema_for::<SweepRowReport>();
    g.subschema_for::<ScheduleReport>();
    g.subschema_for::<TimelineReport>();
    g.subschema_for::<ZeroReport>();
    g.subschema_for::<EstimateReport>();
    g.subschema_for::<ModelRequest>();
    g.subschema_for::<HardwareRequest>();
    g.subschema_for::<EvaluateRequest>();
    g.subschema_for::<PlanRequest>();
    g.subschema_for::<RunRequest>();
    g.subschema_for::<SweepRequest>();
    g.subschema_for::<ScheduleRequest>();
    g.subschema_for::<CalibrateRequest>();
    g.subschema_for::<PlansExport>();
    g.subschema_for::<SweepExport>();
    g.subschema_for::<Inputs>();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "plan3d.schema.json",
        "title": "plan3d",
        "description": "Requests and reports of plan3d's CLI (--json), JavaScript API and exports. \
                        `plan3d sweep` returns an array of SweepRowReport.",
        "$defs": Value::Object(g.definitions().clone()),
    })
}
