//! The selected plan's schedule, animated, and the paper's comparisons.

use std::sync::Arc;

use leptos::prelude::*;
use plan3d_core::{
    planner::{self},
    state::{Comparison, Inputs},
};

use crate::app::{PlanTimeline, Shared};
use crate::dom::{dark_mode, embedded, refit, relayout, ById};
use crate::fmt;
use crate::timeline::{self, Timeline};

/// Where the animation opens, as a fraction of the step: mid-step, with
/// the lanes already at work.
pub const OPENING: f64 = 0.45;

/// Seconds an animation cycle lasts at speed 1.
pub const CYCLE_S: f64 = 8.0;

/// Advances the animation clock once per frame while playing and on screen
/// (`in_view`).
pub fn animate(
    t: RwSignal<f64>,
    playing: RwSignal<bool>,
    speed: RwSignal<f64>,
    last: StoredValue<Option<f64>>,
    frames: RwSignal<u64>,
    in_view: RwSignal<bool>,
) {
    request_animation_frame(move || {
        if !playing.get_untracked() {
            last.set_value(None);
            return;
        }
        if !in_view.get_untracked() {
            // Idle, but keep checking (a flag read per frame).
            last.set_value(None);
            animate(t, playing, speed, last, frames, in_view);
            return;
        }
        let now = window().performance().map_or(0.0, |p| p.now());
        let dt = last.get_value().map_or(0.0, |l| (now - l).min(100.0));
        last.set_value(Some(now));
        t.update(|x| {
            *x += dt / 1000.0 * speed.get_untracked() / CYCLE_S;
            if *x > 1.0 {
                *x = 0.0;
            }
        });
        frames.update(|f| *f += 1);
        animate(t, playing, speed, last, frames, in_view);
    });
}

/// The selected plan's animated schedule with its player, and (unless
/// `only`) the paper's comparisons.
#[component]
pub fn Schedules(
    inputs: RwSignal<Inputs>,
    plan_tl: Memo<Shared<Option<PlanTimeline>>>,
    /// Whether the card is on screen (set here) and so simulated.
    live: crate::app::ScheduleLive,
    /// Embed mode: the animation without the comparisons.
    only: bool,
) -> impl IntoView {
    let card = ById::<web_sys::Element>::new("p3-sched-card");
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) {
            return true;
        }
        card.get().is_some_and(|el| {
            crate::dom::watch_in_view(&el, live.in_view);
            true
        })
    });
    // Only the comparison's choice, not every input, re-simulates it.
    let compare = Memo::new(move |_| inputs.with(|i| i.compare));
    let cmp_tl = Memo::new(move |_| {
        let c = compare.get();
        Shared(Arc::new(planner::comparison(c).ok().map(|[a, b]| {
            [
                (
                    Timeline::new(&a),
                    a.spec.kind.name(),
                    a.bubble_fraction,
                    a.exposed_communication,
                ),
                (
                    Timeline::new(&b),
                    b.spec.kind.name(),
                    b.bubble_fraction,
                    b.exposed_communication,
                ),
            ]
        })))
    });
    let t = RwSignal::new(OPENING);
    let playing = RwSignal::new(true);
    let speed = RwSignal::new(1.0_f64);
    let frames = RwSignal::new(0_u64);
    let last = StoredValue::new(None);
    let main_canvas = ById::<web_sys::HtmlCanvasElement>::new("p3-timeline-canvas");
    animate(t, playing, speed, last, frames, live.in_view);
    // A new plan restarts the animation, mid-step: lanes already at work.
    Effect::new(move |_| {
        plan_tl.track();
        t.set(OPENING);
    });
    let mem_canvas = ById::<web_sys::HtmlCanvasElement>::new("p3-strip-canvas");
    let legend = ById::<web_sys::Element>::new("p3-timeline-legend");
    let cmp_a = ById::<web_sys::HtmlCanvasElement>::new("p3-cmp-a");
    let cmp_b = ById::<web_sys::HtmlCanvasElement>::new("p3-cmp-b");
    let epoch = relayout();
    // Shorter in a 600 × 400 embed, so that the timeline shows whole.
    let (main_h, mem_h) = if embedded() {
        (150.0, 60.0)
    } else {
        (280.0, 90.0)
    };
    let fitted = StoredValue::new(None);
    Effect::new(move |_| {
        refit(
            fitted,
            epoch.get(),
            &[
                (main_canvas, main_h),
                (mem_canvas, mem_h),
                (cmp_a, 170.0),
                (cmp_b, 170.0),
            ],
        );
        // Off screen, nothing is drawn (nor simulated): an input change
        // does not pay for it.
        if !live.in_view.get() {
            return;
        }
        let frac = t.get();
        let dark = dark_mode();
        let (plan, pair) = (plan_tl.get(), cmp_tl.get());
        // A legend key is shown where the plan's schedule, or the
        // comparison under it, draws its colour: not "CPU offload" beside
        // a plan that offloads nothing. One class list on the legend
        // (`p3-no-…`, hidden by the style sheet), set here with the
        // drawing: a reactive class cost 0.7 KB of wasm.
        if let Some(legend) = legend.get() {
            let shown = |tl: &Timeline| tl.kinds_drawn();
            let drawn = plan.0.as_ref().as_ref().map_or(0, |p| shown(&p.timeline))
                | pair
                    .0
                    .as_ref()
                    .as_ref()
                    .filter(|_| !only)
                    .map_or(0, |pair| pair.iter().fold(0, |m, (tl, ..)| m | shown(tl)));
            let class = timeline::legend_class(drawn);
            if legend.class_name() != class {
                legend.set_class_name(&class);
            }
        }
        let [main, mem, a, b] = [main_canvas, mem_canvas, cmp_a, cmp_b].map(|n| n.get());
        crate::dom::after_updates(move || {
            if let Some(tl) = plan.0.as_ref() {
                if let Some(c) = main {
                    timeline::draw(&c, &tl.timeline, frac, dark);
                }
                if let Some(c) = mem {
                    timeline::draw_memory(&c, &tl.timeline, frac, true, dark);
                }
            }
            if let Some(pair) = pair.0.as_ref() {
                for (node, (tl, _, _, _)) in [a, b].into_iter().zip(pair.iter()) {
                    if let Some(c) = node {
                        timeline::draw(&c, tl, frac, dark);
                    }
                }
            }
        });
    });
    let toggle = move |_| {
        let now = !playing.get_untracked();
        playing.set(now);
        if now {
            animate(t, playing, speed, last, frames, live.in_view);
        }
    };
    let cmp_label = |i: usize| {
        move || {
            cmp_tl
                .get()
                .0
                .as_ref()
                .as_ref()
                .map(|p| {
                    let (tl, name, bubble, exposed) = &p[i];
                    format!(
                        "{name}: step {} units, bubble {}, exposed communication {} units",
                        plan3d_core::round_sig(tl.makespan, 3),
                        fmt::pct(*bubble),
                        plan3d_core::round_sig(*exposed, 3)
                    )
                })
                .unwrap_or_default()
        }
    };
    // What the second schedule improves on the first, in one line.
    let improves = move || {
        let which = inputs.with(|i| i.compare);
        cmp_tl.get().0.as_ref().as_ref().map(|p| {
            let ((a, _, ba, ea), (b, _, bb, eb)) = (&p[0], &p[1]);
            let r = |x: f64| plan3d_core::round_sig(x, 3);
            match which {
                Comparison::Lga => format!(
                    "Layered accumulation overlaps the gradient reductions with the backward pass: exposed communication {} → {} units, step {} → {} units.",
                    r(*ea), r(*eb), r(a.makespan), r(b.makespan)
                ),
                Comparison::Modular => format!(
                    "The modular pipeline (layers dealt round-robin) shrinks the bubble: {} → {}.",
                    fmt::pct(*ba), fmt::pct(*bb)
                ),
                Comparison::Interleaved => format!(
                    "Two virtual stages per GPU shrink the bubble: {} → {}.",
                    fmt::pct(*ba), fmt::pct(*bb)
                ),
                Comparison::ZeroBubble => format!(
                    "Weight gradients deferred into the cool-down shrink the bubble: {} → {}, with the same peak memory.",
                    fmt::pct(*ba), fmt::pct(*bb)
                ),
                Comparison::DualPipe => format!(
                    "Micro-batches from both ends, forward and backward fused in pairs: bubble {} → {}, for twice the weights per GPU and one more micro-batch in flight.",
                    fmt::pct(*ba), fmt::pct(*bb)
                ),
                Comparison::ZbV => format!(
                    "Two half stages per GPU in a V (the loss back on GPU 0): bubble {} → {}, with 1F1B's peak memory and twice the pipeline sends.",
                    fmt::pct(*ba), fmt::pct(*bb)
                ),
            }
        })
    };
    let memory_caption = move || {
        plan_tl.get().0.as_ref().as_ref().map(|p| {
            let scaled = if p.shown.whole() { "" } else { " as drawn (scaled down)" };
            // Why the simulated step differs from the plan's, said here
            // (under the animation, left out of an embed).
            let gap = p.gap.as_deref().map(|g| format!(" The step as simulated: {g}.")).unwrap_or_default();
            format!(
                "Memory of GPU 0 over the step{scaled}; one GPU of the plan holds {} GiB at its peak.{gap}",
                fmt::gib(p.plan_memory)
            )
        })
    };
    view! {
        <section class="p3-card" aria-labelledby="p3-sched-h" id="p3-sched-card">
            <h2 id="p3-sched-h" data-testid="schedule-title">{move || plan_tl.get().0.as_ref().as_ref().map_or_else(
                || "Schedule of the plan".to_string(),
                |p| {
                    let s = &p.schedule.spec;
                    format!(
                        "Schedule of the plan: {}, {} micro-batch{}",
                        s.kind.label(),
                        p.shown.micro_batches.1,
                        if p.shown.micro_batches.1 == 1 { "" } else { "es" }
                    )
                },
            )}</h2>
            <div class="p3-player" role="group" aria-label="Animation controls">
                <button type="button" data-testid="play" on:click=toggle aria-pressed=move || playing.get().to_string()>
                    {move || if playing.get() { "Pause" } else { "Play" }}
                </button>
                <label>"Position "
                    <input type="range" min="0" max="1" step="0.001" data-testid="scrub" aria-label="Position in the step"
                        prop:value=move || format!("{:.3}", t.get())
                        on:input=move |e| {
                            playing.set(false);
                            t.set(plan3d_core::units::decimal(&event_target_value(&e)).unwrap_or(0.0));
                        } />
                </label>
                <label>"Speed "
                    <select data-testid="speed" on:change=move |e| speed.set(plan3d_core::units::decimal(&event_target_value(&e)).unwrap_or(1.0))>
                        <option value="0.25">"¼×"</option>
                        <option value="0.5">"½×"</option>
                        <option value="1" selected>"1×"</option>
                        <option value="2">"2×"</option>
                        <option value="4">"4×"</option>
                    </select>
                </label>
                <span class="p3-hint" data-testid="frames" data-frames=move || frames.get().to_string()>
                    {move || plan_tl.get().0.as_ref().as_ref().map(|p| {
                        let scaled = fmt::shown(&p.shown);
                        let sim = p.timeline.makespan;
                        let estimate = if p.gap.is_some() { " as simulated" } else { "" };
                        format!("one step: {} s{estimate}{scaled}", plan3d_core::round_sig(sim, 3))
                    }).unwrap_or_else(|| if live.get() { "no schedule for this plan".into() } else { String::new() })}
                </span>

            </div>
            <canvas id="p3-timeline-canvas" width="960" height="280" class="p3-chart p3-timeline" data-testid="timeline"
                role="img" aria-label="Animated timeline of the selected plan: GPUs as rows, compute coloured by layer, network below"></canvas>
            <p class="p3-legend" id="p3-timeline-legend" data-testid="timeline-legend">
                <span class="p3-key"><span class="p3-swatch p3-swatch--fwd"></span>"forward (layers first → last)"</span>
                <span class="p3-key"><span class="p3-swatch p3-swatch--bwd"></span>"backward (recomputation included)"</span>
                <span class="p3-key p3-key--wgrad"><span class="p3-swatch p3-swatch--wgrad"></span>"weight gradient (zero-bubble)"</span>
                <span class="p3-key p3-key--reduce"><span class="p3-swatch p3-swatch--reduce"></span>"gradient reduction"</span>
                <span class="p3-key p3-key--restore"><span class="p3-swatch p3-swatch--restore"></span>"parameter restore"</span>
                <span class="p3-key p3-key--send"><span class="p3-swatch p3-swatch--send"></span>"pipeline send"</span>
                <span class="p3-key p3-key--offload"><span class="p3-swatch p3-swatch--offload"></span>"CPU offload"</span>
            </p>
            <canvas id="p3-strip-canvas" width="960" height="90" class="p3-chart p3-strip" data-testid="memory-strip"
                role="img" aria-label="Memory of GPU 0 over the step"></canvas>
            <p class="p3-hint" data-testid="memory-caption">{memory_caption}</p>
            {(!only).then(|| view! {
            <h3>"Schedules compared: the paper's and today's"</h3>
            <label for="p3-cmp">"Compare "</label>
            <select id="p3-cmp" data-testid="cmp" prop:value=move || inputs.with(|i| i.compare.name())
                on:change=move |e| {
                    let v = event_target_value(&e);
                    if let Some(c) = Comparison::ALL.into_iter().find(|c| c.name() == v) {
                        inputs.update(|i| i.compare = c);
                    }
                }>
                <option value="lga">"standard vs layered gradient accumulation (fig. 1)"</option>
                <option value="modular">"standard vs modular pipeline (fig. 3)"</option>
                <option value="interleaved">"1F1B vs interleaved 1F1B (Megatron-LM)"</option>
                <option value="zb-h1">"1F1B vs zero-bubble ZB-H1 (Qi et al. 2024)"</option>
                <option value="dualpipe">"ZB-H1 vs DualPipe (DeepSeek-V3)"</option>
                <option value="zb-v">"ZB-H1 vs ZB-V (Qi et al. 2024)"</option>
            </select>
            <div class="p3-pair">
                <figure>
                    <canvas id="p3-cmp-a" width="470" height="170" class="p3-chart" data-testid="compare-a" role="img" aria-label="First schedule of the comparison"></canvas>
                    <figcaption>{cmp_label(0)}</figcaption>
                </figure>
                <figure>
                    <canvas id="p3-cmp-b" width="470" height="170" class="p3-chart" data-testid="compare-b" role="img" aria-label="Second schedule of the comparison"></canvas>
                    <figcaption>{cmp_label(1)}</figcaption>
                </figure>
            </div>
            <p class="p3-improves" data-testid="cmp-improves">{improves}</p>
            <p class="p3-hint">"Unit durations: forward 1, backward 2 (split by ZB-H1 into input gradient 1 and weight gradient 1); colours as in the legend above."</p>
            })}
        </section>
    }
}
