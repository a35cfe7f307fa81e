//! The whole run of the plan shown: token budget, cluster and price in;
//! wall-clock days, goodput, cost and energy out, and a strip of the run
//! over time (ramp phases, checkpoints, expected interruptions). The
//! numbers and the strip's positions come from `core::run`.

use leptos::prelude::*;
use plan3d_core::{
    planner,
    run::Run,
    state::{Inputs, Notice},
};

use crate::app::{shown, OptimumSignal, OutputsMemo};
use crate::components::inputs::{field_handlers, number_field};
use crate::fmt;

/// Interruption marks drawn at most (beyond, one mark stands for several).
const MARKS: usize = 60;

/// The run card.
#[component]
pub fn RunCard(
    inputs: RwSignal<Inputs>,
    outputs: OutputsMemo,
    optimum: OptimumSignal,
    set: impl Fn(bool, Box<dyn FnOnce(&mut Inputs)>) + Copy + Send + Sync + 'static,
    notices: RwSignal<Vec<Notice>>,
) -> impl IntoView {
    let (typed, committed) = field_handlers(inputs, set, notices);
    // Follows the inputs once they settle (crate::app::Settle).
    let settle = crate::app::settle();
    let run = Memo::new(move |_| {
        settle.get(|| {
            let plan = shown(inputs, outputs, optimum)?.plan;
            outputs.with(|o| {
                let o = (*o.0).as_ref().ok()?;
                Some(
                    inputs
                        .with(|i| planner::whole_run(i, o, &plan))
                        .map_err(|e| e.to_string()),
                )
            })
        })
    });
    // The token budget: the one typed or slid, shown as it moves (the
    // run follows once the slider is still), else the run's own.
    let budget = move || {
        inputs.with(|i| i.tokens).or_else(|| {
            run.with(|r| match r {
                Some(Ok(r)) => Some(r.tokens),
                _ => None,
            })
        })
    };
    // The slider is log10 of tokens.
    let tokens_log = move || budget().map_or(12.0, libm::log10);
    // The figures and the strip as one piece of markup: a handful of
    // numbers and SVG shapes, cheaper in wasm than a view per element.
    let figures = move || {
        run.with(|r| match r {
            None => String::from("<p class=\"p3-note\">No plan to run.</p>"),
            Some(Err(e)) => format!(
                "<p class=\"p3-error\" role=\"alert\">Cannot run: {}</p>",
                crate::fmt::esc(e)
            ),
            Some(Ok(r)) => figures_html(r),
        })
    };
    crate::dom::markup("p3-run-figures", figures);
    view! {
        <section class="p3-card p3-run" aria-labelledby="p3-run-h" data-testid="run"
            class:p3-hidden=move || !inputs.with(Inputs::practice)>
            <h2 id="p3-run-h">"The whole run"</h2>
            <div class="p3-run__inputs">
                <label for="p3-run-tokens">"Token budget"</label>
                <input id="p3-run-tokens" data-testid="run-tokens" type="range" min="9" max="14" step="0.05"
                    prop:value=move || format!("{:.2}", tokens_log())
                    on:input=move |e| {
                        if let Some(v) = plan3d_core::units::decimal(&event_target_value(&e)) {
                            let t = plan3d_core::round_sig(libm::pow(10.0, v), 3);
                            set(false, Box::new(move |i| i.tokens = Some(t)));
                        }
                    } />
                <output for="p3-run-tokens" data-testid="run-tokens-value">{move || budget()
                    .map(|t| format!("{} tokens", fmt::big(t)))
                    .unwrap_or_default()}</output>
                {number_field(inputs, typed, committed, ("cluster", "p3-run-cluster", "run-cluster", "Cluster (GPUs)", "an exact GPU count", "any"))}
                {number_field(inputs, typed, committed, ("price", "p3-run-price", "run-price", "$ per GPU-hour", "US dollars per GPU-hour", "the GPU's default"))}
                {number_field(inputs, typed, committed, ("ramp", "p3-run-ramp", "run-ramp", "Batch ramp", "TOKENS:BATCH,… in tokens from 0, e.g. Llama 3's 0:4Mi,252M:8Mi,2.87T:16Mi", "none"))}
            </div>
            <div id="p3-run-figures" />
        </section>
    }
}

fn figures_html(r: &Run) -> String {
    use std::fmt::Write as _;
    let strip = r.strip(MARKS);
    let wall = r.wall_days();
    let co2 = r
        .co2_tonnes
        .map(|t| format!(", {} t CO₂", fmt::big(t)))
        .unwrap_or_default();
    let lost_h = fmt::span;
    let mut h = String::with_capacity(4096);
    let _ = write!(
        h,
        "<dl class=\"p3-run__figures\" data-testid=\"run-figures\">\
         <div><dt>Wall-clock</dt><dd data-testid=\"run-wall\">{}</dd></div>\
         <div><dt>Goodput</dt><dd data-testid=\"run-goodput\">{}</dd></div>\
         <div><dt>Cost</dt><dd data-testid=\"run-cost\">${}</dd></div>\
         <div><dt>GPU-hours</dt><dd>{}</dd></div>\
         <div><dt>Energy</dt><dd data-testid=\"run-energy\">{}{co2}</dd></div></dl>",
        fmt::duration(wall),
        fmt::pct(r.goodput),
        fmt::big(r.cost),
        fmt::big(r.gpu_hours),
        fmt::energy(r.energy_mwh),
    );
    // Corrections to the ramp, in words.
    for n in &r.notes {
        let _ = write!(h, "<p class=\"p3-note\" data-testid=\"run-note\">{n}</p>");
    }
    // The strip: 1000 × 40 user units stretched to the card's width, ramp
    // phases as bands, expected interruptions as ticks. The bands' batches
    // are said in the caption: text inside a stretched SVG is stretched
    // too (unreadable on a phone).
    let _ = write!(
        h,
        "<figure class=\"p3-run__strip\"><svg viewBox=\"0 0 1000 40\" preserveAspectRatio=\"none\" \
         role=\"img\" data-testid=\"run-strip\" aria-label=\"The run over {}: {} ramp phases, {:.0} \
         expected interruptions\">",
        fmt::duration(wall),
        strip.phases.len(),
        r.expected_interruptions
    );
    for (k, &(a, b, batch)) in strip.phases.iter().enumerate() {
        let (x, w) = (a * 1000.0, ((b - a) * 1000.0).max(0.5));
        let batch = fmt::big(batch);
        let _ = write!(
            h,
            "<rect x=\"{x:.1}\" y=\"6\" width=\"{w:.1}\" height=\"22\" class=\"p3-run__phase p3-run__phase--{}\">\
             <title>{batch} tokens per step</title></rect>",
            k % 3
        );
    }
    // The checkpoints as short ticks under the bands, one path.
    if !strip.checkpoints.is_empty() {
        h.push_str("<path class=\"p3-run__ckpt\" d=\"");
        for f in &strip.checkpoints {
            let _ = write!(h, "M{:.1} 32V40", f * 1000.0);
        }
        h.push_str("\"/>");
    }
    // The interruptions as one path: one element however many marks.
    if !strip.interruptions.is_empty() {
        h.push_str("<path class=\"p3-run__fail\" d=\"");
        for f in &strip.interruptions {
            let _ = write!(h, "M{:.1} 0V30", f * 1000.0);
        }
        h.push_str("\"/>");
    }
    let per_mark = if strip.per_mark > 1 {
        format!(" (each red mark: {} interruptions)", strip.per_mark)
    } else {
        String::new()
    };
    let per_tick = if strip.checkpoints_per_mark > 1 {
        format!(
            " (each tick below: {} checkpoints)",
            strip.checkpoints_per_mark
        )
    } else {
        String::new()
    };
    let batches: Vec<String> = strip.phases.iter().map(|p| fmt::big(p.2)).collect();
    let batch = if batches.len() > 1 {
        format!(
            "Batch ramp (the bands, left to right): {} tokens per step. ",
            batches.join(" → ")
        )
    } else {
        batches
            .first()
            .map(|b| format!("Batch: {b} tokens per step. "))
            .unwrap_or_default()
    };
    let _ = write!(
        h,
        "</svg><figcaption>{batch}{} of training; {} expected interruptions (one every {}){per_mark}; \
         a checkpoint of {} every {} steps{per_tick}. Lost: {} to checkpoints, {} redone, {} \
         restarting.</figcaption></figure>",
        fmt::duration(r.ideal_days()),
        interruptions(r.expected_interruptions),
        fmt::span(r.mtbi_seconds),
        fmt::span(r.checkpoint_seconds),
        r.checkpoint_interval_steps,
        lost_h(r.lost.checkpoints),
        lost_h(r.lost.recompute),
        lost_h(r.lost.restarts),
    );
    h
}

/// Expected interruptions: whole ones, or one figure below one (0.3, not
/// "0").
fn interruptions(n: f64) -> String {
    if n < 0.95 {
        format!("{}", plan3d_core::round_sig(n, 1))
    } else {
        format!("{n:.0}")
    }
}
