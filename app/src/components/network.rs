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
    let selected = move || shown(inputs, outputs, optimum).map(|s| s.plan);
    let needs_view = move || {
        let Some(p) = selected() else {
            return Vec::new();
        };
        outputs.with(|o| {
            let Ok(o) = (*o.0).as_ref() else {
                return Vec::new();
            };
            planner::needs(&p, &o.hardware)
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
        })
    };
    let practice = move || inputs.with(Inputs::practice);
    view! {
        <section class="p3-card" aria-labelledby="p3-net-h" class:p3-hidden=practice>
            <h2 id="p3-net-h">"Network needs of the "{move || selected().map_or("", |p| p.method.label())}" plan"</h2>
            <div class="p3-scroll">
                <table class="p3-table" data-testid="needs">
                    <thead><tr><th>"transfer"</th><th>"link"</th><th>"equation"</th><th>"needs"</th><th>"has"</th><th>"status"</th></tr></thead>
                    <tbody>{needs_view}</tbody>
                </table>
            </div>
        </section>
    }
}
