//! "Validation": the practice model against published runs (the
//! calibration set), so users can check the numbers they are shown. The
//! table is static HTML in `index.html`'s `<template id="p3-validation">`,
//! written by `plan3d validate --html` and kept current by a test: the
//! page carries no code to compute it (that code cost ~7 KB of gzipped
//! wasm).

use leptos::prelude::*;

use crate::dom::document;

/// The validation card.
#[component]
pub fn Validation() -> impl IntoView {
    let html = document()
        .get_element_by_id("p3-validation")
        .map(|t| t.inner_html())
        .unwrap_or_default();
    view! {
        <section class="p3-card" aria-labelledby="p3-val-h">
            <details data-testid="validation">
                <summary><h2 id="p3-val-h">"Validation against published runs"</h2></summary>
                <p class="p3-note">"The practice model against published runs. In sample: the kernel efficiency was fitted on these runs (two numbers per GPU, one shared), so their errors flatter it. Out of sample: runs the fit never saw, the fairer test. The paper setting reproduces Lamy-Poirier 2021's tables exactly instead."</p>
                <div inner_html=html></div>
            </details>
        </section>
    }
}
