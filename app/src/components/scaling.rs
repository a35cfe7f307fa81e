//! The scaling chart (figs. 4, 5, 8).

use leptos::prelude::*;
use plan3d_core::{
    planner,
    search::{nearest_row, SweepRow},
    state::Inputs,
};

use crate::app::{shown, OptimumSignal, OutputsMemo, ScalingRows, Shared};
use crate::backend::Measured;
use crate::charts::{self, XMap};
use crate::dom::{dark_mode, embedded, refit, relayout, ById};
use crate::fmt;
use plotters::prelude::IntoDrawingArea;

/// Where the plan shown sits on the scaling chart: its days, and under
/// practice its days on the chart's token rule (a plan's time is its steps,
/// linear in tokens: 20 per parameter for the chart, the run's own budget
/// in the headline).
fn dot_days(
    practice: bool,
    o: &plan3d_core::planner::Outputs,
    p: &plan3d_core::search::Plan,
) -> f64 {
    let e = p.evaluation;
    if practice && e.tokens > 0.0 {
        e.time.days() * planner::SWEEP_TOKENS_PER_PARAM * o.model.params_exact() / e.tokens
    } else {
        e.time.days()
    }
}

/// Training time of the fastest plan per method against model size, with
/// the current model marked; read by mouse or keyboard.
#[component]
pub fn Scaling(
    inputs: RwSignal<Inputs>,
    outputs: OutputsMemo,
    optimum: OptimumSignal,
    scaling: Memo<Shared<ScalingRows>>,
    /// Set while the card is near the screen (the sweep runs only then).
    live: RwSignal<bool>,
) -> impl IntoView {
    let card = ById::<web_sys::Element>::new("p3-scale-card");
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) {
            return true;
        }
        card.get().is_some_and(|el| {
            crate::dom::watch_in_view(&el, live);
            true
        })
    });
    let selected = move || shown(inputs, outputs, optimum).map(|s| s.plan);
    let i_practice = move || inputs.with(Inputs::practice);
    let epoch = relayout();
    // Shorter in a 600 × 400 embed, so that the axes show.
    let chart_h = if embedded() { 250.0 } else { 360.0 };
    let scale_canvas = ById::<web_sys::HtmlCanvasElement>::new("p3-scale-canvas");
    let marker_canvas = ById::<web_sys::HtmlCanvasElement>::new("p3-scale-marker");
    let xmap = RwSignal::new(XMap::default());
    // The chart's size in logical pixels, to place the marks in per cent.
    let size = RwSignal::new((1.0, 1.0));
    // The model size read off the chart: under the mouse, or stepped with
    // the arrow keys on the focused chart.
    let hovered = RwSignal::new(None::<f64>);
    let scale_fitted = StoredValue::new(None);
    // The chart changes with the sweep only; the marker moves with the model
    // on an overlay canvas.
    Effect::new(move |_| {
        refit(
            scale_fitted,
            epoch.get(),
            &[(scale_canvas, chart_h), (marker_canvas, chart_h)],
        );
        let s = scaling.get();
        let Some(c) = scale_canvas.get() else { return };
        if let (Some(b), Ok(rows)) = (Measured::canvas(c.clone()), s.0.as_ref()) {
            let area = b.into_drawing_area();
            if let Ok(map) = charts::scaling(&area, rows, dark_mode()) {
                size.set(crate::backend::logical_size(&c));
                xmap.set(map);
            }
            let _ = area.present();
        }
    });
    // The plan's dot and the reading cursor: page elements over the chart,
    // placed in per cent of it. Redrawing a full-size overlay canvas for
    // them cost ~2 ms a size-slider change at 4× CPU throttling, most of
    // it handing the canvas's pixels to the compositor.
    let dot = Memo::new(move |_| {
        let (p, d) = selected().and_then(|p| {
            outputs.with(|o| {
                (*o.0)
                    .as_ref()
                    .ok()
                    .map(|o| (o.model.params(), dot_days(i_practice(), o, &p)))
            })
        })?;
        let (w, h) = size.get();
        xmap.get()
            .pixel(p, d)
            .map(|(x, y)| (100.0 * x / w, 100.0 * y / h))
    });
    let cursor = Memo::new(move |_| {
        let map = xmap.get();
        let (w, h) = size.get();
        let x = map.x_at(hovered.get()?)?;
        Some((
            100.0 * x / w,
            100.0 * f64::from(map.y0) / h,
            100.0 * f64::from(map.y1 - map.y0) / h,
        ))
    });
    // Both as one piece of markup, morphed in place (no code of its own
    // for styles).
    let marks = move || {
        let mut h = String::from("<svg width=\"100%\" height=\"100%\">");
        if let Some((x, y0, dy)) = cursor.get() {
            h.push_str(&format!(
                "<line class=\"p3-cursor\" x1=\"{x:.2}%\" x2=\"{x:.2}%\" y1=\"{y0:.2}%\" y2=\"{:.2}%\"/>",
                y0 + dy
            ));
        }
        if let Some((x, y)) = dot.get() {
            h.push_str(&format!(
                "<circle class=\"p3-dot\" data-testid=\"scaling-dot\" cx=\"{x:.2}%\" cy=\"{y:.2}%\" r=\"6\"/>"
            ));
        }
        h.push_str("</svg>");
        h
    };
    crate::dom::markup("p3-scale-marks", marks);
    let hover = move || {
        let p = hovered.get()?;
        let s = scaling.get();
        let rows = s.0.as_ref().as_ref().ok()?;
        fn nearest(r: &[SweepRow], p: f64) -> Option<&SweepRow> {
            r.get(nearest_row(r, p)?)
        }
        let first = nearest(&rows.first()?.1, p)?;
        let (x, params) = (first.x, first.params);
        let per: Vec<String> = rows
            .iter()
            .filter_map(|(m, r)| {
                let e = nearest(r, p)?.plan.as_ref().ok()?.evaluation;
                Some(format!(
                    "{} {} on {}",
                    m.label(),
                    fmt::duration(e.time.days()),
                    fmt::gpus(e.gpus)
                ))
            })
            .collect();
        let per = if per.is_empty() {
            "no method has a plan at this size".to_string()
        } else {
            per.join("; ")
        };
        Some(format!("X{x} ({} parameters): {per}", fmt::params(params)))
    };
    let on_move = move |e: web_sys::MouseEvent| {
        let Some(c) = scale_canvas.get() else {
            return;
        };
        // The chart's logical pixels over CSS pixels (1 once fitted).
        let ratio = crate::backend::logical_size(&c).0 / f64::from(c.client_width().max(1));
        if let Some(p) = xmap
            .get_untracked()
            .params_at(f64::from(e.offset_x()) * ratio)
        {
            hovered.set(Some(p));
        }
    };
    let on_key = move |e: web_sys::KeyboardEvent| {
        let step: i64 = match e.key().as_str() {
            "ArrowLeft" | "ArrowDown" => -1,
            "ArrowRight" | "ArrowUp" => 1,
            "Home" => i64::MIN / 2,
            "End" => i64::MAX / 2,
            _ => return,
        };
        e.prevent_default();
        let s = scaling.get_untracked();
        let Some(grid) = s.0.as_ref().as_ref().ok().and_then(|r| r.first()) else {
            return;
        };
        let grid = &grid.1;
        if grid.is_empty() {
            return;
        }
        // From the point read last, or the current model.
        let from = hovered
            .get_untracked()
            .or_else(|| outputs.with_untracked(|o| (*o.0).as_ref().ok().map(|o| o.model.params())));
        let k = from.and_then(|p| nearest_row(grid, p)).unwrap_or(0);
        let k = (k as i64)
            .saturating_add(step)
            .clamp(0, grid.len() as i64 - 1) as usize;
        hovered.set(Some(grid[k].params));
    };
    view! {
        <section class="p3-card" aria-labelledby="p3-scale-h" id="p3-scale-card">
            <h2 id="p3-scale-h">{move || if i_practice() {
                "Scaling: the practice search's plan per method"
            } else {
                "Scaling: fastest plan per method (figs. 4, 5, 8), the paper's assumptions"
            }}</h2>
            <p class="p3-note" data-testid="scaling-note">{move || inputs.with(|i| {
                if !i.practice() {
                    return "The paper's rules at every size, 10⁵ steps at the critical batch, no GPU budget.".to_string();
                }
                let on = match (i.cluster, i.max_gpus) {
                    (Some(c), _) => format!("on exactly {} GPUs", fmt::count(c)),
                    (None, Some(g)) => format!("on up to {} GPUs", fmt::count(g)),
                    _ => "on as many GPUs as make it fastest".to_string(),
                };
                let moe = if i.model.shape().is_ok_and(|m| m.experts.is_some()) {
                    " The lines are dense X[x] models: a mixture of experts computes only its active parameters and sits below them."
                } else {
                    ""
                };
                format!(
                    "Each size {on}, trained on {} tokens per parameter; the dot is this plan on the same rule.{moe}{}",
                    planner::SWEEP_TOKENS_PER_PARAM,
                    planner::scaling_offset(i).unwrap_or_default()
                )
            })}</p>
            <div class="p3-stack">
                <canvas id="p3-scale-canvas" width="720" height="360" class="p3-chart" data-testid="scaling-chart"
                    role="img" aria-label="Training time of the fastest plan per method against model size"></canvas>
                <canvas id="p3-scale-marker" width="720" height="360" class="p3-chart p3-overlay" data-testid="scaling-marker"
                    tabindex="0" aria-label="Read the scaling chart: the left and right arrow keys step through model sizes"
                    aria-describedby="p3-scale-read" on:mousemove=on_move on:keydown=on_key></canvas>
                <div class="p3-overlay p3-marks" aria-hidden="true" id="p3-scale-marks"></div>
            </div>
            <p class="p3-hint" id="p3-scale-read" aria-live="polite" data-testid="scaling-hover">
                {move || hover().unwrap_or_else(|| "Hover the chart, or focus it and use the arrow keys, to read each method's plan at a size.".into())}
            </p>
        </section>
    }
}
