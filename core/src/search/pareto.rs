//! The Pareto front over training time, GPUs and memory on the GPU.

use alloc::vec::Vec;

use crate::cost::{Evaluation, Method};
use crate::error::Error;
use crate::hardware::Hardware;
use crate::model::ModelShape;
use crate::search::exhaustive::{exhaustive, method_list};
use crate::search::{Constraints, Parallelism};

fn dominates(a: &Evaluation, b: &Evaluation) -> bool {
    let (am, bm) = (
        a.memory.on_gpu(a.config.offload).0,
        b.memory.on_gpu(b.config.offload).0,
    );
    let le = a.time.0 <= b.time.0 && a.gpus <= b.gpus && am <= bm;
    let lt = a.time.0 < b.time.0 || a.gpus < b.gpus || am < bm;
    le && lt
}

/// The Pareto front over (training time, GPUs, memory on the GPU): the
/// exhaustive optimum of each method under a ladder of GPU budgets (the
/// unconstrained GPU count halved `levels` times; none with an exact GPU
/// count, which no smaller budget can meet), keeping the configurations
/// no other one beats on all three. Fastest first.
///
/// # Errors
///
/// As [`exhaustive`].
pub fn pareto(
    model: &ModelShape,
    hw: &Hardware,
    method: Option<Method>,
    par: Parallelism,
    c: &Constraints,
    levels: u32,
) -> Result<Vec<Evaluation>, Error> {
    let c = Constraints {
        target_days: None,
        ..*c
    };
    let mut all: Vec<Evaluation> = Vec::new();
    for &m in method_list(method) {
        let Ok(top) = exhaustive(model, hw, Some(m), par, &c) else {
            continue;
        };
        let mut budget = top.best.evaluation.gpus;
        all.push(top.best.evaluation);
        // An exact GPU count can never be met under a smaller budget: the
        // ladder would run its searches for nothing (128 of the 156 ms of a
        // 1T plan on `--gpus N`).
        let levels = if c.exact_gpus.is_some() { 0 } else { levels };
        for _ in 0..levels.min(64) {
            budget /= 2;
            if budget == 0 {
                break;
            }
            let cc = Constraints {
                max_gpus: Some(c.budget().map_or(budget, |g| g.min(budget))),
                ..c
            };
            if let Ok(r) = exhaustive(model, hw, Some(m), par, &cc) {
                all.push(r.best.evaluation);
            }
        }
    }
    let mut front: Vec<Evaluation> = all
        .iter()
        .filter(|e| !all.iter().any(|o| dominates(o, e)))
        .copied()
        .collect();
    front.sort_by(|a, b| a.time.0.total_cmp(&b.time.0));
    front.dedup_by(|a, b| a.config == b.config);
    Ok(front)
}
