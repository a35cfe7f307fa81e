//! "Validation": the practice model against published runs (the
//! calibration set), so users can check the numbers they are shown. The
//! table is static HTML in `index.html`'s `<template id="p3-validation">`,
//! written by `plan3d validate --html` and kept current by a test: the
//! page carries no code to compute it (that code cost ~7 KB of gzipped
//! wasm).

use leptos::prelude::*;
use plan3d_core::state::Inputs;

use crate::dom::document;

/// The validation card; it says when the plan runs on the user's own
/// calibration profile rather than the validated preset.
#[component]
pub fn Validation(inputs: RwSignal<Inputs>) -> impl IntoView {
    let custom =
        move || inputs.with(|i| i.calibration.is_some() && i.custom_profile && i.practice());
    let html = document()
        .get_element_by_id("p3-validation")
        .map(|t| t.inner_html())
        .unwrap_or_default();
    view! {
        <section class="p3-card" aria-labelledby="p3-val-h">
            <details data-testid="validation">
                <summary><h2 id="p3-val-h">"Validation against published runs"</h2></summary>
                <p class="p3-note p3-custom" data-testid="validation-profile" class:p3-hidden=move || !custom()>
                    "A custom profile is in use: the plan's kernels run at the curves measured on your GPU (see the Hardware fields), not at the preset's that these runs validate."
                </p>
                <p class="p3-note">"In sample: fitted on these runs, so their errors flatter the model. Out of sample: runs the fit never saw. The paper setting reproduces Lamy-Poirier 2021's tables instead."</p>
                <div inner_html=html></div>
            </details>
        </section>
    }
}
