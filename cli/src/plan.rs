//! `plan3d plan`: the rules' or the exhaustive search's plan, and why.

use clap::Args;
use plan3d_core::{
    search::{self, Parallelism},
    Error, Hardware, Method,
};
use serde_json::{json, Value};

use crate::args::{ConstraintArgs, HardwareArgs, ShapeArgs};
use crate::evaluate::evaluation_json;

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
    let m = a.shape.shape(a.model.as_deref())?;
    let hw = a.hw.hardware().map_err(|e| e.to_string())?;
    let c = a.constraints.constraints()?;
    let par = Parallelism::parse(&a.parallelism).map_err(|e| format!("{e} '{}'", a.parallelism))?;
    let method = if a.method.eq_ignore_ascii_case("any") {
        None
    } else {
        Some(Method::parse(&a.method).map_err(|e| format!("{e} '{}'", a.method))?)
    };
    let s = |e: Error| e.to_string();
    match a.search.to_ascii_lowercase().as_str() {
        "rules" => {
            let method =
                method.ok_or("the rules need a method; use --search exhaustive for any")?;
            let p = search::rules(&m, &hw, method, par, &c).map_err(s)?;
            Ok(plan_json(&p, &hw, "rules"))
        }
        "exhaustive" => {
            let r = search::exhaustive(&m, &hw, method, par, &c).map_err(s)?;
            let mut v = plan_json(&r.best, &hw, "exhaustive");
            v["evaluated"] = json!(r.evaluated);
            let front = search::pareto(&m, &hw, method, par, &c, 8).map_err(s)?;
            v["pareto"] = Value::Array(
                front
                    .iter()
                    .map(|e| {
                        json!({
                            "method": e.config.method.name(),
                            "gpus": e.gpus,
                            "days": e.time.days(),
                            "efficiency": e.efficiency,
                            "memory_bytes": e.memory.on_gpu(e.config.offload).get(),
                            "data": e.config.data,
                            "pipe": e.config.pipe,
                            "tensor": e.config.tensor,
                            "micro_batch": e.config.micro_batch,
                            "micro_batches": e.config.micro_batches,
                            "offload": e.config.offload,
                        })
                    })
                    .collect(),
            );
            // Where the paper's rules sit against the optimum.
            let rule_method = method.unwrap_or(r.best.method);
            if let Ok(p) = search::rules(&m, &hw, rule_method, par, &c) {
                v["rules"] = json!({
                    "method": rule_method.name(),
                    "gpus": p.evaluation.gpus,
                    "days": p.evaluation.time.days(),
                    "efficiency": p.evaluation.efficiency,
                    "slowdown": plan3d_core::planner::slowdown(&p, &r),
                    "gpu_ratio": p.evaluation.gpus as f64 / r.best.evaluation.gpus as f64,
                    "optimal": plan3d_core::planner::standing(&p, &r, &c)
                        == plan3d_core::planner::Standing::Optimal,
                });
            }
            Ok(v)
        }
        other => Err(format!("unknown search '{other}': use rules or exhaustive")),
    }
}

pub(crate) fn plan_json(p: &search::Plan, hw: &Hardware, how: &str) -> Value {
    let mut v = evaluation_json(&p.evaluation, hw);
    v["parallelism"] = json!(p.parallelism.name());
    v["search"] = json!(how);
    v["binding"] = Value::Array(p.binding.iter().map(|b| json!(b.to_string())).collect());
    v
}
