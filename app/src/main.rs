//! plan3d's page. For now it shows one result computed by plan3d-core:
//! Table 6.1's fastest plan for X160 (3d, improved). The full planner is a
//! later issue; the app stays thin, every number comes from core.

use leptos::prelude::*;
use plan3d_core::{evaluate, model, Config, Evaluation, Hardware, Method, ModelShape};

/// Table 6.1's fastest configuration for X160: 483 × 5 × 16 GPUs, layered
/// gradient accumulation with a modular pipeline, micro-batch 1, 5 micro-batches.
fn headline() -> Result<(ModelShape, Evaluation), plan3d_core::Error> {
    let cfg = Config {
        method: Method::Improved,
        data: 483,
        pipe: 5,
        tensor: 16,
        micro_batch: 1,
        micro_batches: 5,
        ..Config::default()
    };
    let x160 = model::x_family(160)?;
    Ok((x160, evaluate(&x160, &Hardware::default(), &cfg)?))
}

#[component]
fn App() -> impl IntoView {
    let body = match headline() {
        Ok((m, e)) => view! {
            <p class="p3-headline">
                "X160 ("
                <span data-testid="params">{format!("{:.2}", m.params() / 1e12)}</span>
                " T parameters) trains in "
                <strong data-testid="days">{format!("{:.1}", e.time.days())}</strong>
                " days on "
                <strong data-testid="gpus">{e.gpus.to_string()}</strong>
                " A100 80 GB GPUs at "
                <strong data-testid="efficiency">{format!("{:.0}", e.efficiency * 100.0)}</strong>
                " % efficiency, using "
                <strong data-testid="memory">{format!("{:.2}", e.memory.total().gib())}</strong>
                " GiB per GPU."
            </p>
            <p class="p3-note">
                "Data × pipeline × tensor = 483 × 5 × 16, layered gradient accumulation and \
                 a modular pipeline (Lamy-Poirier 2021, Table 6.1)."
            </p>
        }
        .into_any(),
        Err(err) => view! { <p class="p3-error" role="alert">{err.to_string()}</p> }.into_any(),
    };
    view! {
        <main class="p3-page">
            <h1>"plan3d"</h1>
            <p class="p3-lede">"Plan the distributed training of large transformers."</p>
            {body}
        </main>
    }
}

fn main() {
    console_error_panic_hook::set_once();
    mount_to_body(App);
}
