//! The planner page's state: inputs live in the URL; every number comes
//! from `plan3d_core::planner`. This module wires the signals (URL, plans,
//! optimum, schedule, sweep) and lays out the components of
//! [`crate::components`].

use std::sync::Arc;

use leptos::either::{Either, EitherOf3};
use leptos::prelude::*;
use plan3d_core::{
    planner::{self, Outputs, ShownScale},
    schedule::Schedule,
    state::{EmbedView, Inputs},
    Method,
};
use wasm_bindgen::JsCast;

use crate::components::{
    inputs::Controls, memory::MemoryChart, network::NetworkNeeds, notices::NoticeList,
    plans::Plans, run::RunCard, scaling::Scaling, schedule::Schedules, share::Share,
    validation::Validation,
};
use crate::dom::{document, now_ms, page_base, search_string, Relayout};
use crate::fmt;
use crate::timeline::Timeline;

/// A value shared by pointer: memos of big values compare by identity, not
/// by walking them.
#[derive(Debug)]
pub struct Shared<T>(pub Arc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The selected plan's simulated schedule, prepared for drawing.
pub struct PlanTimeline {
    /// Drawing data.
    pub timeline: Timeline,
    /// The schedule (for the SVG export).
    pub schedule: Schedule,
    /// What of the plan is shown.
    pub shown: ShownScale,
    /// What stays on one GPU of the real plan, bytes (the strip shows the
    /// schedule as drawn, which may be scaled down).
    pub plan_memory: f64,
    /// Why the simulated step differs from the estimate, in words
    /// (`planner::step_gap`).
    pub gap: Option<String>,
}

/// The exhaustive search's answer.
pub type OptimumResult = Result<plan3d_core::search::SearchResult, plan3d_core::Error>;

/// The plans for the current inputs.
pub type OutputsMemo = Memo<Shared<Result<Outputs, plan3d_core::Error>>>;

/// The optimum as the page holds it (`None` while a deferred search runs).
pub type OptimumSignal = Memo<Shared<Option<OptimumResult>>>;

/// The plan shown in detail for the selected method: the best one found
/// (`planner::shown`).
pub fn shown(
    inputs: RwSignal<Inputs>,
    outputs: OutputsMemo,
    optimum: OptimumSignal,
) -> Option<planner::Shown> {
    let m = inputs.with(|i| i.method);
    outputs.with(|o| {
        let o = (*o.0).as_ref().ok()?;
        let ships = inputs.with(Inputs::shipped);
        optimum.with(|opt| planner::shown(o, m, opt.0.as_ref().as_ref(), ships))
    })
}

/// Milliseconds beyond which a search no longer runs inside a slider's
/// frame.
pub const SLOW_SEARCH_MS: f64 = 4.0;
/// Quiet time after a slider move before a slow search runs.
pub const SETTLE_MS: u64 = 150;
/// Optima remembered (dragging back and forth finds them again).
pub const OPTIMUM_CACHE: usize = 64;

/// The exhaustive optimum for the inputs. Most searches take well under a
/// millisecond and run in the same update as the plans, as a memo, so that
/// everything the update draws reads the optimum of the same inputs; once
/// one has taken more than [`SLOW_SEARCH_MS`] (small models on slow
/// networks), the next runs after the paint, and for slider drags (`push`
/// false) only once the slider has been still for [`SETTLE_MS`], so that
/// dragging stays smooth (`None` meanwhile). Results are cached by
/// [`planner::optimum_key`]. Under practice there is no second search: the
/// optimum is the best of the rows (`planner::practice_optimum`).
fn optimum_signal(
    inputs: RwSignal<Inputs>,
    outputs: OutputsMemo,
    push: StoredValue<bool>,
) -> OptimumSignal {
    type Cache = Vec<(Inputs, Shared<Option<OptimumResult>>)>;
    let cache = StoredValue::new(Cache::new());
    let slow = StoredValue::new(false);
    let pending = StoredValue::new(None::<TimeoutHandle>);
    // Bumped when a deferred search lands in the cache.
    let landed = RwSignal::new(0_u32);
    let run = move |key: Inputs| {
        let t0 = now_ms();
        let r = Shared(Arc::new(Some(planner::optimum(&key))));
        slow.set_value(now_ms() - t0 > SLOW_SEARCH_MS);
        cache.update_value(|c| {
            if c.len() == OPTIMUM_CACHE {
                c.remove(0);
            }
            c.push((key, r.clone()));
        });
        r
    };
    Memo::new(move |_| {
        // Under practice the rows already hold each method's best.
        let derived = inputs.with(|i| {
            outputs.with(|o| {
                (*o.0)
                    .as_ref()
                    .ok()
                    .and_then(|o| planner::practice_optimum(i, o))
            })
        });
        if let Some(r) = derived {
            return Shared(Arc::new(Some(r)));
        }
        landed.track();
        let key = inputs.with(planner::optimum_key);
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let hit = cache.with_value(|c| c.iter().find(|(k, _)| *k == key).map(|(_, r)| r.clone()));
        if let Some(r) = hit {
            r
        } else if !slow.get_value() {
            run(key)
        } else {
            let wait = if push.get_value() { 0 } else { SETTLE_MS };
            let h = set_timeout_with_handle(
                move || {
                    run(key);
                    landed.update(|n| *n += 1);
                },
                std::time::Duration::from_millis(wait),
            )
            .ok();
            pending.set_value(h);
            Shared(Arc::new(None))
        }
    })
}

/// When the inputs last settled: bumped in the same update after a
/// discrete choice, and [`SETTLE_MS`] after a slider's (or a typed
/// number's) last move. The explanations of the plan shown (why this plan,
/// its network, its whole run) follow it, so that a drag updates the
/// answer (headline, plans, charts) in each frame and the explanations
/// once the hand is still.
#[derive(Clone, Copy)]
pub struct Settle(Option<RwSignal<u32>>);

impl Settle {
    /// Runs `f` as of the last settled inputs: tracking only the settle,
    /// nothing `f` reads (everything, outside the page's [`App`]).
    pub fn get<T>(self, f: impl FnOnce() -> T) -> T {
        match self.0 {
            Some(s) => {
                s.track();
                untrack(f)
            }
            None => f(),
        }
    }
}

/// The page's [`Settle`].
pub fn settle() -> Settle {
    use_context::<Settle>().unwrap_or(Settle(None))
}

/// Whether the selected plan's schedule is simulated: while its card is on
/// screen (or nearly), or while an export asks for it.
#[derive(Clone, Copy)]
pub struct ScheduleLive {
    /// The schedule's card is within 300 px of the viewport.
    pub in_view: RwSignal<bool>,
    /// An export wants the schedule now.
    pub wanted: RwSignal<bool>,
}

impl ScheduleLive {
    /// Simulate the schedule (tracked).
    pub fn get(self) -> bool {
        self.in_view.get() || self.wanted.get()
    }
}

/// The practice scaling sweep's next method, after the paint; the last
/// one sets the rows.
fn sweep_step(
    key: Inputs,
    mut done: Vec<(Method, Vec<plan3d_core::search::SweepRow>)>,
    swept: RwSignal<Shared<ScalingRows>>,
    task: StoredValue<Option<TimeoutHandle>>,
    wait_ms: u64,
) {
    let h = set_timeout_with_handle(
        move || {
            let Some(&m) = planner::METHODS.get(done.len()) else {
                return;
            };
            match planner::scaling_method(&key, m) {
                Ok(rows) => done.push((m, rows)),
                Err(e) => {
                    swept.set(Shared(Arc::new(Err(e))));
                    return;
                }
            }
            if done.len() == planner::METHODS.len() {
                swept.set(Shared(Arc::new(Ok(done))));
            } else {
                sweep_step(key, done, swept, task, 0);
            }
        },
        std::time::Duration::from_millis(wait_ms),
    )
    .ok();
    task.set_value(h);
}

/// The scaling sweep per method.
pub type ScalingRows =
    Result<Vec<(Method, Vec<plan3d_core::search::SweepRow>)>, plan3d_core::Error>;

/// The page: reads the URL, keeps it in step with the inputs, computes
/// the outputs with core and lays out the components.
#[component]
pub fn App() -> impl IntoView {
    let epoch = RwSignal::new(0_u32);
    provide_context(Relayout(epoch));
    // The window's listeners as plain closures that live as long as the
    // page: leptos's `window_event_listener` wraps them in a thread check
    // that brings `std::thread::current` into the wasm (~2 KB gzip).
    crate::dom::on_window("resize", move || epoch.update(|e| *e += 1));
    if let Ok(Some(m)) = window().match_media("(prefers-color-scheme: dark)") {
        let f = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
            crate::dom::scheme_changed();
            epoch.update(|e| *e += 1);
        });
        let _ = m.add_event_listener_with_callback("change", f.as_ref().unchecked_ref());
        // Lives as long as the page.
        f.forget();
    }
    let (initial, initial_notices) = Inputs::from_page_query(&search_string());
    let inputs = RwSignal::new(initial);
    let notices = RwSignal::new(initial_notices);
    // The user's GPU profile, kept in this browser, fitted when asked.
    let held = crate::components::profile::Held::default();
    // An empty URL (the page opened anew) uses the profile this browser
    // holds; an explicit link keeps meaning what it says.
    if search_string().is_empty() && held.text.with_untracked(Option::is_some) {
        inputs.update(|i| i.custom_profile = true);
    }
    held.follow(inputs);
    provide_context(held);
    // How the next URL update is recorded: slider drags replace the entry,
    // discrete choices push a new one, back/forward write nothing.
    let push = StoredValue::new(false);
    let from_history = StoredValue::new(true);

    // Writing the URL costs 1–2 ms in Chromium: never inside the frame
    // that shows the new numbers. A slider drag writes it once it pauses,
    // replacing the entry; a discrete choice right after the frame, as a
    // new entry.
    let pending_url = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let q = inputs.with(Inputs::to_query);
        if from_history.get_value() {
            from_history.set_value(false);
            return;
        }
        if let Some(h) = pending_url.get_value() {
            h.clear();
        }
        let as_push = push.get_value();
        let write = move || {
            let url = format!("?{q}");
            if search_string() == url || (q.is_empty() && search_string().is_empty()) {
                return;
            }
            if let Ok(h) = window().history() {
                let url = if q.is_empty() {
                    window().location().pathname().unwrap_or_default()
                } else {
                    url
                };
                let _ = if as_push {
                    h.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
                } else {
                    h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
                };
            }
        };
        // Right after the frame for a choice, once a drag pauses for a
        // slider.
        let wait = if as_push { 0 } else { SETTLE_MS };
        let h = set_timeout_with_handle(write, std::time::Duration::from_millis(wait)).ok();
        pending_url.set_value(h);
    });
    crate::dom::on_window("popstate", move || {
        let (i, n) = Inputs::from_page_query(&search_string());
        from_history.set_value(true);
        notices.set(n);
        inputs.set(i);
    });

    // Set an input: `discrete` choices get their own history entry.
    let set = move |discrete: bool, f: Box<dyn FnOnce(&mut Inputs)>| {
        push.set_value(discrete);
        inputs.update(|i| f(i));
    };

    let outputs = Memo::new(move |_| Shared(Arc::new(inputs.with(planner::outputs))));
    let corrections = Memo::new(move |_| {
        outputs.with(|o| {
            (*o.0)
                .as_ref()
                .map(|o| inputs.with(|i| planner::corrections(i, o)))
                .unwrap_or_default()
        })
    });
    provide_context(crate::components::notices::Notes {
        notices,
        corrections,
    });
    let optimum = optimum_signal(inputs, outputs, push);
    let settled = RwSignal::new(0_u32);
    provide_context(Settle(Some(settled)));
    let settle_task = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        outputs.track();
        optimum.track();
        if let Some(h) = settle_task.get_value() {
            h.clear();
        }
        if push.get_value() {
            settled.update(|n| *n += 1);
        } else {
            let h = set_timeout_with_handle(
                move || settled.update(|n| *n += 1),
                std::time::Duration::from_millis(SETTLE_MS),
            )
            .ok();
            settle_task.set_value(h);
        }
    });
    // The selected plan's schedule: at most planner::MAX_PAGE_OPS
    // operations (~1.5 ms), so it lands in the same frame as the numbers;
    // simulated only while the schedule is on screen (or exported): off
    // screen, an input change does not pay for it.
    let live = ScheduleLive {
        in_view: RwSignal::new(false),
        wanted: RwSignal::new(false),
    };
    let shown_plan = Memo::new(move |_| shown(inputs, outputs, optimum).map(|s| s.plan));
    let plan_tl = Memo::new(move |prev: Option<&Shared<Option<PlanTimeline>>>| {
        if !live.get() {
            return prev.cloned().unwrap_or_else(|| Shared(Arc::new(None)));
        }
        let plan = shown_plan.get();
        Shared(Arc::new(plan.and_then(|p| {
            outputs.with(|o| {
                let o = (*o.0).as_ref().ok()?;
                planner::plan_schedule(&o.model, &o.hardware, &p)
                    .ok()
                    .map(|(s, shown)| PlanTimeline {
                        timeline: Timeline::new(&s),
                        gap: planner::step_gap(&p.evaluation, &s, &shown),
                        shown,
                        schedule: s,
                        plan_memory: p
                            .evaluation
                            .memory
                            .on_gpu(p.evaluation.config.offload)
                            .get(),
                    })
            })
        })))
    });

    // When the first result is on the page (read by the browser benchmark).
    Effect::new(move |prev: Option<()>| {
        outputs.track();
        if prev.is_none() {
            request_animation_frame(|| {
                if let (Some(body), Some(p)) = (document().body(), window().performance()) {
                    let _ = body.set_attribute("data-first-result-ms", &format!("{:.1}", p.now()));
                }
            });
        }
    });
    // The sweep does not depend on the model: recompute it only when what it
    // reads changes, and only while its card is near the screen. The
    // paper's rules cost microseconds and run in the update; practice
    // searches (~5–15 ms a method natively, several times that in wasm)
    // start once the inputs have been still for SETTLE_MS, one method per
    // task (a new input cancels the rest), and the chart keeps the previous
    // lines meanwhile: a drag never waits for them.
    let sweep_key = Memo::new(move |_| inputs.with(planner::scaling_key));
    let sweep_live = RwSignal::new(false);
    let swept = RwSignal::new(Shared(Arc::new(Ok(Vec::new()) as ScalingRows)));
    let swept_key = StoredValue::new(None::<Inputs>);
    let sweep_task = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        let key = sweep_key.get();
        if !sweep_live.get() || swept_key.get_value() == Some(key) {
            return;
        }
        if let Some(h) = sweep_task.get_value() {
            h.clear();
        }
        swept_key.set_value(Some(key));
        if !key.practice() {
            swept.set(Shared(Arc::new(planner::scaling(&key))));
            return;
        }
        sweep_step(key, Vec::new(), swept, sweep_task, SETTLE_MS);
    });
    let scaling = Memo::new(move |_| swept.get());

    let embed = inputs.with_untracked(|i| i.embed);
    if let Some(view) = embed {
        // One view, compact chrome, for an iframe.
        if let Some(body) = document().body() {
            let _ = body.class_list().add_1("p3-embedded");
        }
        let full = move || inputs.with(|i| i.link(&page_base()));
        return Either::Left(view! {
            <div class="p3-embed" data-testid="embed">
                // The bar and the first notice share a line: the answer keeps
                // its 400 px (the full page lists every notice).
                <div class="p3-embed__top">
                    <p class="p3-embed__bar">
                        <a href=full target="_blank" rel="noopener">"plan3d"</a>
                        " — "{move || inputs.with(|i| i.model.shape().map(|m| fmt::params(m.params_exact())).unwrap_or_default())}" parameters, "
                        {move || inputs.with(|i| i.gpu.name)}
                    </p>
                    <NoticeList notices=notices corrections=corrections />
                </div>
                {match view {
                    EmbedView::Schedule => EitherOf3::A(view! { <Schedules inputs=inputs plan_tl=plan_tl live=live only=true /> }),
                    EmbedView::Planner => EitherOf3::B(view! { <Plans inputs=inputs outputs=outputs optimum=optimum /> }),
                    EmbedView::Scaling => EitherOf3::C(view! { <Scaling inputs=inputs outputs=outputs optimum=optimum scaling=scaling live=sweep_live /> }),
                }}
            </div>
        });
    }

    Either::Right(view! {
        <header class="p3-header">
            <h1>"plan3d"</h1>
            <p class="p3-lede">
                "The fastest data × pipeline × tensor-parallel plan for training a transformer, \
                 its memory, network needs and schedule, computed in your browser: as teams \
                 train today, or as Lamy-Poirier 2021 (arXiv 2106.02679) models it."
            </p>
        </header>
        <NoticeList notices=notices corrections=corrections />
        <div class="p3-layout">
            <Controls inputs=inputs set=set notices=notices />
            <main class="p3-main">
                {move || outputs.with(|o| o.0.as_ref().as_ref().err().map(|e| view! {
                    <p class="p3-error" role="alert">{format!("Cannot plan: {e}")}</p>
                }))}
                <Plans inputs=inputs outputs=outputs optimum=optimum />
                <RunCard inputs=inputs outputs=outputs optimum=optimum set=set notices=notices />
                <MemoryChart outputs=outputs inputs=inputs />
                <NetworkNeeds inputs=inputs outputs=outputs optimum=optimum />
                <Validation inputs />
                <Scaling inputs=inputs outputs=outputs optimum=optimum scaling=scaling live=sweep_live />
                <Schedules inputs=inputs plan_tl=plan_tl live=live only=false />
                <Share inputs=inputs outputs=outputs optimum=optimum scaling=scaling plan_tl=plan_tl live=live notices=notices />
            </main>
        </div>
        <footer class="p3-footer" data-testid="footer">
            "Memory in GiB (the paper's GB), bandwidth input + output, compute in dense half-precision flop/s. "
            {move || if inputs.with(Inputs::practice) {
                "Times are the practice model's: the run's token budget (20 tokens per parameter unless set) \
                 at today's batch for the run, kernels at the efficiency fitted on published runs (see Validation)."
            } else {
                "Times assume the paper's 10⁵ steps at the critical batch size and perfect kernels unless set."
            }}
        </footer>
    })
}
