//! "Validation": the practice model against published runs (the
//! calibration set), so users can check the numbers they are shown.

use leptos::prelude::*;
use plan3d_core::calibration;

use crate::fmt;

/// The validation table, computed once.
#[component]
pub fn Validation() -> impl IntoView {
    let rows = calibration::validate().unwrap_or_default();
    let (median, max) = calibration::summary(&rows);
    let n = rows.len();
    let body = rows
        .into_iter()
        .map(|r| {
            view! {
                <tr>
                    <th scope="row">{format!("{} B", r.params_b)}<span class="p3-note">{format!(" {}", r.source)}</span></th>
                    <td>{format!("{} {}", fmt::count(r.gpus), r.gpu)}</td>
                    <td class="p3-opt">{r.config}</td>
                    <td>{fmt::seconds(r.measured_step)}</td>
                    <td>{fmt::seconds(r.predicted_step)}</td>
                    <td>{format!("{:+.1} %", 100.0 * r.error)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="p3-card" aria-labelledby="p3-val-h">
            <details data-testid="validation">
                <summary><h2 id="p3-val-h">"Validation: "{format!("{n} published runs, median error {:.1} %, largest {:.1} %", 100.0 * median, 100.0 * max)}</h2></summary>
                <p class="p3-note">"The practice model's step time against published measurements (PTD-P Table 1 on A100s; NVIDIA's DGX Cloud GPT-3 175B on H100s). Its kernel efficiency was fitted on these same runs: two numbers per GPU and one shared, nothing else."</p>
                <div class="p3-scroll">
                    <table class="p3-table">
                        <thead><tr><th>"model"</th><th>"GPUs"</th><th class="p3-opt">"configuration"</th><th>"measured"</th><th>"plan3d"</th><th>"error"</th></tr></thead>
                        <tbody>{body}</tbody>
                    </table>
                </div>
            </details>
        </section>
    }
}
