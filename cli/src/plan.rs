//! `plan3d plan`: the rules' or the exhaustive search's plan, and why.

use clap::Args;
use plan3d_core::api::{self, request::PlanRequest};
use serde_json::Value;

use crate::args::{ConstraintArgs, HardwareArgs, ShapeArgs};
use crate::output::to_json;

#[derive(Args)]
pub(crate) struct PlanArgs {
    /// Model preset or x<N>; custom shape flags override its fields.
    #[arg(long)]
    pub(crate) model: Option<String>,
    #[command(flatten)]
    pub(crate) shape: ShapeArgs,
    /// baseline, partitioned, improved, improved-unpartitioned, or (with
    /// --search exhaustive) any.
    #[arg(long, default_value = "improved")]
    pub(crate) method: String,
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
}

pub(crate) fn plan_cmd(a: &PlanArgs) -> Result<Value, String> {
    to_json(api::plan(&PlanRequest {
        model: a.shape.request(a.model.as_deref()),
        hardware: a.hw.request(),
        constraints: a.constraints.request(),
        method: a.method.clone(),
        parallelism: a.parallelism.clone(),
        search: a.search.clone(),
    }))
}
