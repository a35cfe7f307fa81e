//! The memory chart: what stays on each GPU, per method.

use leptos::prelude::*;

use crate::app::OutputsMemo;
use crate::backend::Measured;
use crate::charts::{self};
use crate::dom::{dark_mode, refit, relayout, ById};
use plotters::prelude::IntoDrawingArea;

/// Memory per GPU of each method's plan against the GPU's memory.
#[component]
pub fn MemoryChart(
    outputs: OutputsMemo,
    inputs: RwSignal<plan3d_core::state::Inputs>,
) -> impl IntoView {
    let epoch = relayout();
    let mem_canvas = ById::<web_sys::HtmlCanvasElement>::new("p3-mem-canvas");
    let mem_fitted = StoredValue::new(None);
    Effect::new(move |_| {
        refit(mem_fitted, epoch.get(), &[(mem_canvas, 300.0)]);
        let (bars, gpu_mem) = outputs.with(|o| match (*o.0).as_ref() {
            Ok(o) => (charts::memory_bars(o), o.hardware.gpu.memory.get()),
            Err(_) => (Vec::new(), 0.0),
        });
        let Some(c) = mem_canvas.get() else { return };
        crate::dom::after_updates(move || {
            if let Some(b) = Measured::canvas(c) {
                let area = b.into_drawing_area();
                let _ = charts::memory(&area, &bars, gpu_mem, dark_mode());
                let _ = area.present();
            }
        });
    });
    view! {
        <section class="p3-card" aria-labelledby="p3-mem-h">
            <h2 id="p3-mem-h">{move || if inputs.with(|i| i.practice()) { "Memory per GPU, heaviest pipeline stage" } else { "Memory per GPU" }}</h2>
            <canvas id="p3-mem-canvas" width="720" height="300" class="p3-chart" data-testid="memory-chart"
                role="img" aria-label="Stacked memory per GPU for each method against the GPU's memory"></canvas>
        </section>
    }
}
