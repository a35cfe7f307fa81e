//! The network table: each transfer of the selected plan, the bandwidth it
//! needs and the link's.

use leptos::prelude::*;
use plan3d_core::{
    planner::{self, Need},
    state::Inputs,
};

use crate::app::{shown, OptimumSignal, OutputsMemo};
use crate::fmt;

/// What the selected plan needs of each link, against what it has.
#[component]
pub fn NetworkNeeds(
    inputs: RwSignal<Inputs>,
    outputs: OutputsMemo,
    optimum: OptimumSignal,
) -> impl IntoView {
    // The plan and the links, once the inputs settle
    // (crate::app::Settle).
    let settle = crate::app::settle();
    let current = move || {
        settle.get(|| {
            let p = shown(inputs, outputs, optimum)?.plan;
            Some((
                p,
                outputs.with(|o| (*o.0).as_ref().ok().map(|o| o.hardware))?,
            ))
        })
    };
    let selected = move || current().map(|c| c.0);
    let needs_view = move || {
        let Some((p, hardware)) = current() else {
            return Vec::new();
        };
        planner::needs(&p, &hardware)
            .iter()
            .map(|n: &Need| {
                let ok = n.required.get() <= n.available.get();
                let status = match (n.overlapped, ok) {
                    (true, true) => "hidden",
                    (true, false) => "too slow: stretches the step",
                    (false, _) => "not overlapped: costs time",
                };
                view! {
                    <tr>
                        <td>{n.kind.key()}</td>
                        <td>{n.link.key()}</td>
                        <td>{n.equation}</td>
                        <td>{fmt::gibs(n.required.get())}</td>
                        <td>{fmt::gibs(n.available.get())}</td>
                        <td class=match (n.overlapped, ok) {
                            (true, true) => "p3-ok",
                            (true, false) => "p3-bad",
                            (false, _) => "p3-warn",
                        }>{status}</td>
                    </tr>
                }
            })
            .collect::<Vec<_>>()
    };
    let practice = move || inputs.with(Inputs::practice);
    // Under practice: what each kind of traffic adds to the step once
    // overlap has hidden what it can.
    let exposed_view = move || {
        let Some((p, hardware)) = current() else {
            return String::new();
        };
        let rows = planner::exposed(&p, &hardware);
        if rows.is_empty() {
            return "<tr><td colspan=\"4\">no traffic between GPUs: one GPU</td></tr>".to_string();
        }
        rows.iter()
            .map(|x| {
                format!(
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>",
                    fmt::esc(x.what),
                    fmt::esc(x.link),
                    fmt::seconds(x.seconds),
                    if x.share > 0.1 { "p3-warn" } else { "p3-ok" },
                    if x.seconds > 0.0 {
                        fmt::pct(x.share)
                    } else {
                        "hidden".to_string()
                    }
                )
            })
            .collect::<String>()
    };
    crate::dom::markup("p3-exposed-rows", exposed_view);
    view! {
        <section class="p3-card" aria-labelledby="p3-net-h">
            <h2 id="p3-net-h">"Network of the "{move || selected().map_or("", |p| planner::method_label_for(p.method, practice(), false, inputs.with(Inputs::framework_used)))}" plan"</h2>
            <div class="p3-scroll" class:p3-hidden=move || !practice()>
                <p class="p3-note">"Each kind of traffic and the time it adds to a step once overlap has hidden what it can (the practice model's step)."</p>
                <table class="p3-table p3-wrap" data-testid="exposed">
                    <thead><tr><th>"traffic"</th><th>"link"</th><th>"exposed per step"</th><th>"of the step"</th></tr></thead>
                    <tbody id="p3-exposed-rows"></tbody>
                </table>
            </div>
            <div class="p3-scroll" class:p3-hidden=practice>
                <table class="p3-table p3-wrap" data-testid="needs">
                    <thead><tr><th>"transfer"</th><th>"link"</th><th>"equation"</th><th>"needs"</th><th>"has"</th><th>"status"</th></tr></thead>
                    <tbody>{needs_view}</tbody>
                </table>
            </div>
        </section>
    }
}
