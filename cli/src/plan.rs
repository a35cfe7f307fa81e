//! `plan3d plan`: the rules' or the exhaustive search's plan, and why.

use clap::Args;
use plan3d_core::api::{self, request::PlanRequest};
use serde_json::Value;

use crate::args::{ConstraintArgs, HardwareArgs, PracticeArgs, ShapeArgs};
use crate::output::to_json;
use crate::schedule::timeline_output;

#[derive(Args)]
pub(crate) struct PlanArgs {
    /// Model preset or x<N>; custom shape flags override its fields.
    #[arg(long)]
    pub(crate) model: Option<String>,
    #[command(flatten)]
    pub(crate) shape: ShapeArgs,
    /// baseline, partitioned, improved, improved-unpartitioned, or (with
    /// --search exhaustive, or under practice) any. Default: improved
    /// (paper), any (practice).
    #[arg(long)]
    pub(crate) method: Option<String>,
    /// none, data, data+pipe, data+tensor, pipe+tensor or 3d.
    #[arg(long, default_value = "3d")]
    pub(crate) parallelism: String,
    /// rules (the paper's section 5) or exhaustive (every configuration).
    #[arg(long, default_value = "rules")]
    pub(crate) search: String,
    #[command(flatten)]
    pub(crate) constraints: ConstraintArgs,
    #[command(flatten)]
    pub(crate) hw: HardwareArgs,
    #[command(flatten)]
    pub(crate) practice: PracticeArgs,
    /// (Practice) a fixed data-parallel degree.
    #[arg(long)]
    pub(crate) data: Option<u32>,
    /// (Practice) a fixed pipeline degree.
    #[arg(long)]
    pub(crate) pipe: Option<u32>,
    /// (Practice) a fixed micro-batch size.
    #[arg(long)]
    pub(crate) micro_batch: Option<u32>,
}

/// `plan3d plan`: [`PlanArgs`] and what only `plan` prints.
#[derive(Args)]
pub(crate) struct PlanCmdArgs {
    #[command(flatten)]
    pub(crate) plan: PlanArgs,
    /// Print the plan's simulated step as the page animates it instead of
    /// the plan: ascii, svg or json (as `evaluate --timeline`).
    #[arg(long, value_parser = ["ascii", "svg", "json"])]
    pub(crate) timeline: Option<String>,
}

pub(crate) fn plan_cmd(a: &PlanArgs) -> Result<Value, String> {
    to_json(api::plan(&request(a)?))
}

/// `plan`'s answer first, in words.
pub(crate) fn plan_text(a: &PlanArgs) -> Result<String, String> {
    api::plan_answer(&request(a)?)
        .map(|t| a.hw.with_network_note(t, a.constraints.most_gpus()))
        .map_err(|e| e.to_string())
}

/// `plan --timeline`: the plan's simulated step.
pub(crate) fn plan_timeline_cmd(a: &PlanArgs, format: &str) -> Result<String, String> {
    let (s, t) = api::plan_timeline(&request(a)?).map_err(|e| e.to_string())?;
    timeline_output(&s, &t, format)
}

/// The request these flags make.
pub(crate) fn request(a: &PlanArgs) -> Result<PlanRequest, String> {
    Ok(PlanRequest {
        model: a.shape.request(a.model.as_deref()),
        hardware: a.hw.request(),
        constraints: a.constraints.request(),
        method: a.method.clone().unwrap_or_default(),
        parallelism: a.parallelism.clone(),
        search: a.search.clone(),
        practice: a.practice.request()?,
        data: a.data,
        pipe: a.pipe,
        micro_batch: a.micro_batch,
    })
}
