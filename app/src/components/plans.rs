//! "Fastest plans": the rules' plan per method beside the exhaustive
//! optimum, the headline, and "Why this plan".

use leptos::prelude::*;
use plan3d_core::cost::framework::Framework;
use plan3d_core::{
    planner::{self},
    search::Plan,
    state::Inputs,
    Method,
};

use crate::app::{shown, OptimumSignal, OutputsMemo};
use crate::fmt::{self, esc};

/// "n_b × n_l × n_a" of a plan (the table's column names the degrees).
pub fn config_text(p: &Plan) -> String {
    degrees(p, false)
}

/// The degrees of a plan, `labelled` each after its name as the CLI says
/// them (the headline's "DP 128 × PP 16 × TP 8").
fn degrees(p: &Plan, labelled: bool) -> String {
    let c = p.evaluation.config;
    let [dp, pp, tp, sp] = if labelled {
        ["DP ", "PP ", "TP ", " "]
    } else {
        [""; 4]
    };
    // Context parallelism multiplies the GPUs too; expert parallelism
    // spreads the experts over data ranks (no more GPUs).
    let cp = if c.context > 1 {
        format!(" × CP{sp}{}", c.context)
    } else {
        String::new()
    };
    let ep = if c.expert > 1 {
        format!(" (EP{sp}{})", c.expert)
    } else {
        String::new()
    };
    format!("{dp}{} × {pp}{} × {tp}{}{cp}{ep}", c.data, c.pipe, c.tensor)
}

/// A row spanning the table: a note.
fn note_row(h: &mut String, cls: &str, text: &str) {
    use std::fmt::Write as _;
    let _ = write!(
        h,
        "<tr><td colspan=\"12\" class=\"{cls}\">{}</td></tr>",
        esc(text)
    );
}

/// One row of the plans table, as markup (the rows are re-drawn on every
/// input: one string is cheaper in wasm and in the browser than a view per
/// cell). Columns marked `p3-opt2` (batch, offload, HFU, tokens/s) give
/// way on a laptop-wide card, `p3-opt` on narrow screens and embeds; the
/// plan's shape, GPUs, MFU and days stay.
pub fn plan_row(h: &mut String, name: &str, cls: &str, p: &Plan, fw: Framework) {
    use std::fmt::Write as _;
    let e = p.evaluation;
    let m = e.config.method;
    let practice = e.assumptions == plan3d_core::cost::AssumptionSet::Practice;
    // Under practice, what the plan shards beside its degrees: a ZeRO-3 /
    // FSDP row and a Megatron-style row with the same degrees differ there.
    let layout = if practice && e.config.data * e.config.context > 1 {
        format!(
            "{}<span class=\"p3-sub\">{}</span>",
            esc(&config_text(p)),
            plan3d_core::cost::step::zero_of(&e.config).label()
        )
    } else {
        esc(&config_text(p))
    };
    let label = if name == "optimum" {
        format!("best found: {}", m.label())
    } else {
        planner::method_label_for(m, practice, false, fw).to_string()
    };
    let _ = write!(
        h,
        "<tr class=\"{cls}\" data-testid=\"plan-{name}\">\
         <th scope=\"row\" title=\"the paper\u{2019}s \u{201c}{}\u{201d} method\">{}</th>\
         <td>{}</td><td data-testid=\"plan-{name}-gpus\">{}</td>\
         <td class=\"p3-opt p3-opt2\">{}</td><td class=\"p3-opt\">{} × {}</td>\
         <td class=\"p3-opt p3-opt2\">{}</td><td>{}</td><td class=\"p3-opt p3-opt2\">{}</td>\
         <td class=\"p3-opt\">{} GiB</td>\
         <td class=\"p3-opt p3-prac\" data-testid=\"plan-{name}-step\">{}</td>\
         <td class=\"p3-opt p3-opt2 p3-prac\">{}</td><td data-testid=\"plan-{name}-days\">{}</td></tr>",
        m.name(),
        esc(&label),
        layout,
        fmt::count(e.gpus),
        fmt::count(e.batch),
        e.config.micro_batch,
        fmt::count(u64::from(e.config.micro_batches)),
        if e.config.offload { "yes" } else { "no" },
        fmt::pct(e.mfu()),
        fmt::pct(e.efficiency),
        fmt::gib(e.memory.on_gpu(e.config.offload).get()),
        fmt::seconds(e.step.get()),
        fmt::big(e.tokens_per_second),
        // Past three years, in years as the headline says them (not 10899).
        if e.time.days() > 3.0 * 365.0 {
            fmt::duration(e.time.days())
        } else {
            fmt::days(e.time.days())
        },
    );
}

/// The fastest plans per method, the exhaustive optimum, and why.
#[component]
pub fn Plans(
    inputs: RwSignal<Inputs>,
    outputs: OutputsMemo,
    optimum: OptimumSignal,
) -> impl IntoView {
    let method = move || inputs.with(|i| i.method);
    let practice = move || inputs.with(Inputs::practice);
    let shown = move || shown(inputs, outputs, optimum);
    let rows = move || {
        use std::fmt::Write as _;
        let practice = practice();
        let fw = inputs.with(Inputs::framework_used);
        let shown_method = shown().map(|s| s.plan.method);
        let mut h = String::with_capacity(2048);
        outputs.with(|o| {
            let Ok(o) = (*o.0).as_ref() else { return };
            for (pm, p) in &o.plans {
                let name = pm.name();
                let cls = if Some(*pm) == shown_method { "p3-row p3-row--selected" } else { "p3-row" };
                match p {
                    Ok(p) => plan_row(&mut h, name, cls, p, fw),
                    Err(err) => {
                        let _ = write!(
                            h,
                            "<tr class=\"{cls}\" data-testid=\"plan-{name}\">\
                             <th scope=\"row\" title=\"the paper\u{2019}s \u{201c}{name}\u{201d} method\">{}</th>\
                             <td colspan=\"11\">{}</td></tr>",
                            planner::method_label_for(*pm, practice, false, fw),
                            esc(&err.to_string())
                        );
                    }
                }
            }
            if practice {
                note_row(&mut h, "p3-note", planner::PRACTICE_NOTE);
                return;
            }
            optimum.with(|opt| match opt.0.as_ref() {
                None => note_row(&mut h, "p3-note", "Searching every configuration…"),
                Some(Ok(r)) => {
                    let e = r.best.evaluation;
                    let vs_rules = o.rules_against(r).map(|p| {
                        (p.evaluation.config.method, planner::standing(p, r, &o.constraints))
                    });
                    plan_row(&mut h, "optimum", "p3-row p3-row--optimum", &r.best, fw);
                    let searched = format!("Exhaustive search over every configuration ({} evaluated)", r.evaluated);
                    let rules = |m: Method| {
                        if m == e.config.method {
                            "the paper's rules".to_string()
                        } else {
                            format!("the paper's rules (at best, {})", m.label())
                        }
                    };
                    let note = match vs_rules {
                        Some((m, s @ planner::Standing::Slower(_))) => {
                            format!("{searched}: {} are {} slower.", rules(m), fmt::pct(s.excess()))
                        }
                        Some((m, s @ planner::Standing::MoreGpus(_))) => format!(
                            "{searched}: {} need {} more GPUs to meet the target time.",
                            rules(m),
                            fmt::pct(s.excess())
                        ),
                        Some((m, planner::Standing::MissesTarget)) => {
                            format!("{searched}: {} miss the target time.", rules(m))
                        }
                        _ => format!("{searched}: the paper's rules find the optimum."),
                    };
                    note_row(&mut h, "p3-note", &note);
                }
                Some(Err(e)) => note_row(&mut h, "", &format!("No optimum: {e}")),
            });
        });
        h
    };
    crate::dom::markup("p3-plans-rows", rows);
    // Follows the inputs once they settle (crate::app::Settle).
    let settle = crate::app::settle();
    let binding = move || {
        settle.get(|| {
            shown().map(|s| {
                let lines: Vec<String> = if practice() {
                    outputs
                        .with(|o| {
                            let o = (*o.0).as_ref().ok()?;
                            let mut v = inputs.with(|i| planner::limits(i, o, &s.plan));
                            v.extend(planner::practice_why(&s.plan.evaluation, &o.hardware));
                            Some(v)
                        })
                        .unwrap_or_default()
                } else {
                    s.plan.binding.iter().map(ToString::to_string).collect()
                };
                lines
                    .into_iter()
                    .map(|b| view! { <li>{b}</li> })
                    .collect_view()
            })
        })
    };
    // The search's explanation of a "no plan" searches again a few times
    // (5–20 ms in wasm): it runs once the inputs have been still for
    // SETTLE_MS, for the inputs and the method it explains, so that a drag
    // through sizes with no plan stays smooth; the headline says the
    // reason meanwhile.
    type Explained = (Inputs, Option<Method>, Option<plan3d_core::Error>);
    let explained = RwSignal::new(None::<Explained>);
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let need = match shown() {
            None => Some(method()),
            Some(s) => s.instead_of.map(|(m, _)| Some(m)),
        };
        let Some(m) = need else { return };
        let key = inputs.get();
        if !key.practice()
            || explained
                .with_untracked(|e| e.as_ref().is_some_and(|(k, x, _)| *k == key && *x == m))
        {
            return;
        }
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let h = set_timeout_with_handle(
            move || {
                let e = outputs.with_untracked(|o| {
                    (*o.0)
                        .as_ref()
                        .ok()
                        .and_then(|o| planner::explain(&key, o, m))
                });
                explained.set(Some((key, m, e)));
            },
            std::time::Duration::from_millis(crate::app::SETTLE_MS),
        )
        .ok();
        pending.set_value(h);
    });
    // The plan shown in detail: the fastest found (or the method chosen,
    // or the fastest plan when it has none), with the paper's rules, the
    // other methods and, under practice, the paper's proposal beside it;
    // never blank: with no plan at all, why and what to change.
    let headline = move || {
        let searching = optimum.with(|o| o.0.is_none());
        let practice = practice();
        let fw = inputs.with(Inputs::framework_used);
        let label = move |m: Method| planner::method_label_for(m, practice, true, fw);
        let (params, gpu_mem) = outputs.with(|o| {
            let o = (*o.0).as_ref().ok()?;
            Some((o.model.params_exact(), o.hardware.gpu.memory.get()))
        })?;
        // Why the chosen method (or, with none, every method) has no plan:
        // the search's explanation under practice, the advice under paper.
        let why_none = move |m: Option<Method>| {
            let err = outputs.with(|o| {
                let o = (*o.0).as_ref().ok()?;
                o.plans
                    .iter()
                    .rev()
                    .find(|(pm, _)| m.is_none_or(|m| *pm == m))
                    .and_then(|(_, p)| p.as_ref().err().copied())
            })?;
            let ready = explained.with(|e| {
                e.as_ref()
                    .filter(|(k, x, _)| *x == m && inputs.with(|i| k == i))
                    .map(|(_, _, e)| *e)
            });
            let err = ready.flatten().unwrap_or(err);
            Some(match err {
                plan3d_core::Error::NoPlan {
                    reason,
                    why: Some(why),
                } => {
                    format!("{reason}. Closest: {why}")
                }
                plan3d_core::Error::NoPlan { reason, .. } => {
                    let advice = outputs.with(|o| {
                        (*o.0)
                            .as_ref()
                            .map(|o| inputs.with(|i| planner::advice(&err, i, &o.model)))
                            .unwrap_or_default()
                    });
                    format!("{reason}. Try {advice}")
                }
                e => e.to_string(),
            })
        };
        // While the explanation of `m` is not in yet.
        let finding = move |m: Option<Method>| {
            let ready = explained.with(|e| {
                e.as_ref()
                    .is_some_and(|(k, x, _)| *x == m && inputs.with(|i| k == i))
            });
            if practice && !ready {
                " Looking for the nearest change that has a plan…"
            } else {
                ""
            }
        };
        let tail = if searching {
            " Searching every configuration…"
        } else {
            ""
        };
        let Some(s) = shown() else {
            let m = method();
            let why = why_none(m)?;
            let with = m.map_or(String::new(), |m| format!(" with {}", label(m)));
            return Some(format!(
                "No plan for {}{with}: {why}.{tail}{}",
                fmt::params(params),
                finding(m)
            ));
        };
        let e = s.plan.evaluation;
        let pm = s.plan.method;
        let mut h = String::new();
        if let Some((m, _)) = s.instead_of {
            let why = why_none(Some(m)).unwrap_or_default();
            h.push_str(&format!(
                "{} has no plan: {why}.{} The fastest plan found instead: ",
                label(m),
                finding(Some(m))
            ));
        }
        if practice {
            // One run, two day counts, both named: training time (the
            // table's days) and the run card's wall clock.
            let wall = outputs
                .with(|o| {
                    let o = (*o.0).as_ref().ok()?;
                    inputs.with(|i| planner::whole_run(i, o, &s.plan)).ok()
                })
                .map(|r| {
                    format!(
                        " ({} wall-clock with checkpoints and interruptions)",
                        fmt::duration(r.wall_days())
                    )
                })
                .unwrap_or_default();
            h.push_str(&format!(
                "{} trains {} on {} tokens with {} ({}; batch {} sequences) in {} of training{wall}, at {} MFU: {} per step, {} tokens/s, heaviest stage {} of {} GiB.",
                label(pm),
                fmt::params(params),
                fmt::big(e.tokens),
                fmt::gpus(e.gpus),
                degrees(&s.plan, true),
                fmt::count(e.config.batch()),
                fmt::duration(e.time.days()),
                fmt::pct(e.mfu()),
                fmt::seconds(e.step.get()),
                fmt::big(e.tokens_per_second),
                fmt::gib(e.peak_memory.get()),
                fmt::gib(gpu_mem),
            ));
        } else {
            h.push_str(&format!(
                "{} trains {} on {} ({}) in {} (the paper's work: 10⁵ steps at the critical batch), at {} MFU.",
                label(pm),
                fmt::params(params),
                fmt::gpus(e.gpus),
                degrees(&s.plan, true),
                fmt::duration(e.time.days()),
                fmt::pct(e.mfu())
            ));
        }
        let rules = match s.rules {
            planner::RulesVersus::OtherMethod(m, st @ planner::Standing::Slower(_)) => format!(
                " The fastest plan found uses {}: {} faster.",
                label(m),
                fmt::pct(st.saving())
            ),
            planner::RulesVersus::OtherMethod(m, st @ planner::Standing::MoreGpus(_)) => format!(
                " {} meets the target with {} fewer GPUs.",
                label(m),
                fmt::pct(st.saving())
            ),
            planner::RulesVersus::OtherMethod(m, planner::Standing::MissesTarget) => {
                format!(" This misses the target time; {} meets it.", label(m))
            }
            // Under practice each row is its method's best: only another
            // method's can be better, said above.
            _ if practice => String::new(),
            planner::RulesVersus::Same => {
                " The exhaustive search confirms the paper's rules.".to_string()
            }
            planner::RulesVersus::Pending if searching => {
                " (the paper's rules; searching every configuration…)".to_string()
            }
            planner::RulesVersus::Pending => " (the paper's rules)".to_string(),
            planner::RulesVersus::SearchFailed(err) => {
                let why = match err {
                    plan3d_core::Error::NoPlan { reason, .. } => reason.to_string(),
                    e => e.to_string(),
                };
                let advice = outputs.with(|o| {
                    (*o.0)
                        .as_ref()
                        .map(|o| inputs.with(|i| planner::advice(&err, i, &o.model)))
                        .unwrap_or_default()
                });
                format!(" These are the paper's rules; the exhaustive search finds no plan ({why}). Try {advice}.")
            }
            planner::RulesVersus::OtherMethod(_, planner::Standing::Optimal) => {
                " As fast as the best plan found.".to_string()
            }
            planner::RulesVersus::Behind(st @ planner::Standing::Slower(_)) => {
                format!(" The paper's rules: {} slower.", fmt::pct(st.excess()))
            }
            planner::RulesVersus::Behind(st @ planner::Standing::MoreGpus(_)) => format!(
                " The paper's rules need {} more GPUs for the target time.",
                fmt::pct(st.excess())
            ),
            planner::RulesVersus::Behind(planner::Standing::MissesTarget) => {
                " The paper's rules miss the target time.".to_string()
            }
            planner::RulesVersus::Behind(planner::Standing::Optimal) => String::new(),
            planner::RulesVersus::NoPlan(plan3d_core::Error::NoPlan { reason, .. }) => {
                format!(" The paper's rules find no plan: {reason}.")
            }
            planner::RulesVersus::NoPlan(err) => format!(" The paper's rules find no plan: {err}."),
        };
        h.push_str(&rules);
        // The paper's proposal, where it would do better: a comparison,
        // not the headline (no framework ships it).
        let proposal = outputs.with(|o| {
            (*o.0)
                .as_ref()
                .ok()
                .and_then(|o| planner::proposal(o, practice, &s))
        });
        if let Some((p, st)) = proposal {
            let what = match st {
                planner::Standing::MoreGpus(_) => format!("{} fewer GPUs", fmt::pct(st.saving())),
                _ => format!("{} faster", fmt::pct(st.saving())),
            };
            h.push_str(&format!(
                " The paper's proposal, layered + modular, would take {} on {} ({what}); no framework ships it.",
                fmt::duration(p.evaluation.time.days()),
                fmt::gpus(p.evaluation.gpus),
            ));
        }
        // A sentence: "Layered + modular …", not "layered + modular …".
        Some(fmt::capitalized(&h))
    };
    // Beside the headline's numbers: where they are unvalidated, and by
    // about how much they may be off.
    let caveat = move || {
        let s = shown()?;
        outputs.with(|o| {
            let o = (*o.0).as_ref().ok()?;
            planner::caveat(&s.plan.evaluation, &o.model, &o.hardware)
        })
    };
    view! {
        <section class="p3-card p3-answer" aria-labelledby="p3-plans-h">
            <h2 id="p3-plans-h">"Fastest plans"</h2>
            <p class="p3-headline" data-testid="headline">{headline}</p>
            {move || caveat().map(|c| {
                let full = c.clone();
                view! { <p class="p3-caveat" data-testid="caveat" title=full>{c}</p> }
            })}
            <div class="p3-scroll">
                <table class="p3-table" class:p3-paper=move || !practice()>
                    <thead><tr>
                        <th scope="col">"method"</th>
                        <th scope="col" title="data-, pipeline- and tensor-parallel degrees (the paper\u{2019}s n_b \u{d7} n_l \u{d7} n_a)">"DP\u{a0}×\u{a0}PP\u{a0}×\u{a0}TP"</th>
                        <th scope="col">"GPUs"</th>
                        <th scope="col" class="p3-opt p3-opt2" title="global batch in sequences (b); eq. 2 gives the critical batch">"batch"</th>
                        <th scope="col" class="p3-opt" title="micro-batch size \u{d7} micro-batches per step, i.e. gradient accumulation steps (b_\u{b5} \u{d7} n_\u{b5})">"micro-batch × steps"</th>
                        <th scope="col" class="p3-opt p3-opt2" title="training state and checkpoints in CPU memory (C.5)">"offload"</th>
                        <th scope="col" title="model flops utilisation: 6 flop per token and parameter over peak (recomputation not counted)">"MFU"</th>
                        <th scope="col" class="p3-opt p3-opt2" title="hardware flops utilisation, the paper\u{2019}s efficiency: \u{3a0} 1/(1+overhead) over bubble, tensor (eq. 12) and transfers, recomputation counted">"HFU"</th>
                        <th scope="col" class="p3-opt" title="what stays on each GPU (C.3); under practice, the heaviest pipeline stage">"memory"</th>
                        <th scope="col" class="p3-opt p3-prac" title="one training step (practice)">"step"</th>
                        <th scope="col" class="p3-opt p3-opt2 p3-prac" title="tokens trained per second (practice)">"tokens/s"</th>
                        <th scope="col">"days"</th>
                    </tr></thead>
                    <tbody id="p3-plans-rows"></tbody>
                </table>
            </div>
            <h3>"Why this plan"</h3>
            <ul class="p3-binding" data-testid="binding">{binding}</ul>
        </section>
    }
}
