//! The plan the page details: the fastest found (or the method the user
//! chose), where it stands against the paper's rules and the other
//! methods, and the paper's proposal beside it under practice.

use crate::cost::framework::Framework;
use crate::cost::Method;
use crate::error::Error;
use crate::search::{Constraints, Plan, SearchResult};

use super::Outputs;

/// The methods Megatron-Core, NeMo and torchtitan ship: 3D parallelism
/// with the distributed optimizer (Megatron-style) and ZeRO-3 / FSDP. The
/// paper's proposal, layered gradient accumulation with the modular
/// pipeline ([`Method::Improved`]), is in none of them: under practice the
/// headline is the fastest of these, and the proposal is a comparison.
pub const SHIPPED: [Method; 2] = [Method::Baseline, Method::Partitioned];

/// A method's name as the page writes it: under practice the paper's
/// proposal says that no framework ships it (`long` for sentences, else
/// short enough for a table row).
#[must_use]
pub fn method_label(m: Method, practice: bool, long: bool) -> &'static str {
    method_label_for(m, practice, long, Framework::MegatronCore)
}

/// [`method_label`] under framework `fw`: plain PyTorch's replicated
/// layout without model parallelism is its DDP.
#[must_use]
pub fn method_label_for(m: Method, practice: bool, long: bool, fw: Framework) -> &'static str {
    match m {
        Method::Baseline if practice => fw.method_label(m),
        Method::Improved if practice && long => {
            "layered + modular (Lamy-Poirier's proposal, not in Megatron-Core, NeMo or torchtitan)"
        }
        Method::Improved if practice => "layered + modular (the paper's proposal)",
        m => m.label(),
    }
}

/// Where a rules' plan stands against the exhaustive optimum, in the
/// search's objective: training time when it looks for the fastest plan,
/// the GPU count when a target time is set (the fewest GPUs that meet it;
/// there the rules' plan may well be faster, with more GPUs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Standing {
    /// The rules reach the optimum's objective value.
    Optimal,
    /// The rules' plan trains this many times as long (> 1).
    Slower(f64),
    /// The rules' plan needs this many times the GPUs (> 1) to meet the
    /// target time.
    MoreGpus(f64),
    /// The optimum meets the target time; the rules' plan does not.
    MissesTarget,
}

impl Standing {
    /// How much more the plan costs in the search's objective, as a
    /// fraction: 0.13 for 13 % slower, or 13 % more GPUs.
    #[must_use]
    pub fn excess(self) -> f64 {
        match self {
            Self::Slower(x) | Self::MoreGpus(x) => x - 1.0,
            Self::Optimal | Self::MissesTarget => 0.0,
        }
    }

    /// How much the better plan saves, as a fraction of this one's cost:
    /// 1 − 1/ratio (0.115 for a plan 13 % slower).
    #[must_use]
    pub fn saving(self) -> f64 {
        match self {
            Self::Slower(x) | Self::MoreGpus(x) => 1.0 - 1.0 / x,
            Self::Optimal | Self::MissesTarget => 0.0,
        }
    }
}

/// Where `plan` stands against `optimum` under `constraints`.
#[must_use]
pub fn standing(plan: &Plan, optimum: &SearchResult, constraints: &Constraints) -> Standing {
    const TIE: f64 = 1e-9;
    let opt = optimum.best.evaluation;
    // With a target the search minimises GPUs among plans that meet it;
    // when none does, it returns the fastest, as without one.
    let target = constraints
        .target_days
        .filter(|&d| opt.time.days() <= d * (1.0 + TIE));
    if let Some(days) = target {
        if plan.evaluation.time.days() > days * (1.0 + TIE) {
            return Standing::MissesTarget;
        }
        let r = plan.evaluation.gpus as f64 / opt.gpus as f64;
        if r > 1.0 + TIE {
            return Standing::MoreGpus(r);
        }
    } else {
        let r = slowdown(plan, optimum);
        if r > 1.0 + TIE {
            return Standing::Slower(r);
        }
    }
    Standing::Optimal
}

/// How the paper's rules compare with the plan shown in detail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RulesVersus {
    /// The shown plan is the rules' own, and the search confirms it.
    Same,
    /// The shown plan is the rules' own; the search has not answered yet.
    Pending,
    /// The shown plan is the rules' own; the search found no plan under
    /// the constraints (an exact cluster the rules can only take as a cap).
    SearchFailed(Error),
    /// The shown plan is the rules' own; the best plan found is of another
    /// method, and this plan stands so against it.
    OtherMethod(Method, Standing),
    /// The shown plan is the search's; the rules' plan stands behind it.
    Behind(Standing),
    /// The rules have no plan for this method; the search found one.
    NoPlan(Error),
}

/// The plan the page shows in detail for the selected method: the best one
/// found (headline, "why", network, schedule).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown {
    /// The plan.
    pub plan: Plan,
    /// Found by the exhaustive search (else it is the rules' plan).
    pub searched: bool,
    /// The rules' plan against it.
    pub rules: RulesVersus,
    /// The method chosen, when it has no plan and this is the fastest plan
    /// of another (a headline is never "no plan" while a method has one):
    /// the method and why it has none.
    pub instead_of: Option<(Method, Error)>,
}

/// The best plan found for `method`: the exhaustive optimum when it is of
/// this method and the rules do not reach it, else the rules' plan (also
/// while the search has not answered). `None` when neither has a plan.
fn shown_for(
    out: &Outputs,
    method: Method,
    optimum: Option<&Result<SearchResult, Error>>,
) -> Option<Shown> {
    let rules = out
        .plans
        .iter()
        .find(|(m, _)| *m == method)
        .map(|(_, p)| *p)?;
    let best = optimum
        .and_then(|r| r.as_ref().ok())
        .filter(|r| r.best.method == method);
    let own = |plan: Plan, rules: RulesVersus| Shown {
        plan,
        searched: false,
        rules,
        instead_of: None,
    };
    match (best, rules) {
        (Some(r), Ok(p)) => match standing(&p, r, &out.constraints) {
            Standing::Optimal => Some(own(p, RulesVersus::Same)),
            s => Some(Shown {
                plan: r.best,
                searched: true,
                rules: RulesVersus::Behind(s),
                instead_of: None,
            }),
        },
        (Some(r), Err(e)) => Some(Shown {
            plan: r.best,
            searched: true,
            rules: RulesVersus::NoPlan(e),
            instead_of: None,
        }),
        (None, Ok(p)) => Some(own(
            p,
            match optimum {
                Some(Ok(r)) => {
                    RulesVersus::OtherMethod(r.best.method, standing(&p, r, &out.constraints))
                }
                Some(Err(e)) => RulesVersus::SearchFailed(*e),
                None => RulesVersus::Pending,
            },
        )),
        (None, Err(_)) => None,
    }
}

/// The plan the page details (headline, why, run, network, schedule):
/// `method`'s best plan found (the row of its table), or with `method` `None` the
/// fastest plan found (the optimum's method; while a paper search runs, or
/// when its optimum is of a method without a row, the fastest rules'
/// plan). When the chosen method has no plan and
/// another has, the fastest plan found, with [`Shown::instead_of`] saying
/// so; likewise, with no method chosen, when no method of `ships` (the
/// framework's, [`Framework::shipped`]) has a plan. `None` only when no
/// method has a plan.
#[must_use]
pub fn shown(
    out: &Outputs,
    method: Option<Method>,
    optimum: Option<&Result<SearchResult, Error>>,
    ships: &[Method],
) -> Option<Shown> {
    // The optimum's method when it has a row (the paper's exhaustive
    // search also tries the replicated layered method, which has none).
    let fastest = optimum
        .and_then(|r| r.as_ref().ok())
        .map(|r| r.best.method)
        .filter(|m| out.plans.iter().any(|(pm, _)| pm == m))
        .or_else(|| {
            out.plans
                .iter()
                .filter_map(|(_, p)| p.as_ref().ok())
                .min_by(|a, b| a.evaluation.time.0.total_cmp(&b.evaluation.time.0))
                .map(|p| p.method)
        });
    // With none chosen, a fastest plan of a method the framework does not
    // ship is shown only when a method it ships has none: as if that one
    // were chosen.
    let m = method.or_else(|| {
        let f = fastest?;
        Some(
            ships
                .iter()
                .copied()
                .find(|&sm| {
                    !ships.contains(&f) && out.plans.iter().any(|(pm, p)| *pm == sm && p.is_err())
                })
                .unwrap_or(f),
        )
    })?;
    if let Some(s) = shown_for(out, m, optimum) {
        return Some(s);
    }
    let err = out
        .plans
        .iter()
        .find(|(pm, _)| *pm == m)
        .and_then(|(_, p)| p.as_ref().err().copied())?;
    let mut s = shown_for(out, fastest.filter(|&f| f != m)?, optimum)?;
    s.instead_of = Some((m, err));
    Some(s)
}

/// Under practice, the paper's proposal (layered + modular) against the
/// plan shown when it does better in the search's objective: its plan and
/// where the shown plan stands against it. `None` under paper (where it is
/// one of the methods compared), when it is the plan shown, or when it
/// does no better by [`PROPOSAL_GAIN`].
#[must_use]
pub fn proposal(out: &Outputs, practice: bool, shown: &Shown) -> Option<(Plan, Standing)> {
    if !practice || shown.plan.method == Method::Improved {
        return None;
    }
    let p = out.selected(Method::Improved)?;
    let as_best = SearchResult {
        best: *p,
        evaluated: 0,
    };
    match standing(&shown.plan, &as_best, &out.constraints) {
        // Under half a per cent it would read "(0 % faster)": no gain.
        s if s.saving() < PROPOSAL_GAIN => None,
        s => Some((*p, s)),
    }
}

/// The least saving for which the paper's proposal is mentioned beside a
/// plan (it is printed rounded to a whole per cent).
pub const PROPOSAL_GAIN: f64 = 0.005;

/// How much longer a plan trains than the exhaustive optimum: its time over
/// the optimum's (1 when the rules find the optimum).
#[must_use]
pub fn slowdown(plan: &Plan, optimum: &SearchResult) -> f64 {
    plan.evaluation.time.get() / optimum.best.evaluation.time.get()
}
