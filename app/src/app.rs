//! The planner page. Inputs live in the URL; every number comes from
//! `plan3d_core::planner`; this module only wires signals to the DOM.

use std::sync::Arc;

use crate::backend::{Canvas2d, Measured};
use leptos::ev;
use leptos::html::Canvas;
use leptos::prelude::*;
use plan3d_core::{
    export, hardware, model,
    planner::{self, Need, Outputs, ShownScale, METHODS},
    schedule::Schedule,
    search::{nearest_row, Parallelism, Plan, SweepRow},
    state::{
        read_scenario, Comparison, EmbedView, Inputs, ModelChoice, Notice, KEFF_RANGE, NODE_RANGE,
        SCENARIO_PREFIX,
    },
    ActivationModel, Method, Network,
};
use plotters::prelude::IntoDrawingArea;
use wasm_bindgen::JsCast;

use crate::charts::{self, XMap};
use crate::fmt;
use crate::timeline::{self, Timeline};

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
}

/// The exhaustive search's answer.
type OptimumResult = Result<plan3d_core::search::SearchResult, plan3d_core::Error>;

/// Milliseconds beyond which a search no longer runs inside a slider's
/// frame.
const SLOW_SEARCH_MS: f64 = 4.0;
/// Quiet time after a slider move before a slow search runs.
const SETTLE_MS: u64 = 150;
/// Optima remembered (dragging back and forth finds them again).
const OPTIMUM_CACHE: usize = 64;

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// The exhaustive optimum for the inputs. Most searches take well under a
/// millisecond and run in the same update as the plans; once one has taken
/// more than [`SLOW_SEARCH_MS`] (small models on slow networks), the next
/// runs after the paint, and for slider drags (`push` false) only once the
/// slider has been still for [`SETTLE_MS`], so that dragging stays smooth.
/// Results are cached by [`planner::optimum_key`].
fn optimum_signal(
    inputs: RwSignal<Inputs>,
    push: StoredValue<bool>,
) -> RwSignal<Shared<Option<OptimumResult>>> {
    type Cache = Vec<(Inputs, Shared<Option<OptimumResult>>)>;
    let optimum = RwSignal::new(Shared(Arc::new(None)));
    let cache = StoredValue::new(Cache::new());
    let slow = StoredValue::new(false);
    let pending = StoredValue::new(None::<TimeoutHandle>);
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
        optimum.set(r);
    };
    Effect::new(move |_| {
        let key = inputs.with(planner::optimum_key);
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let hit = cache.with_value(|c| c.iter().find(|(k, _)| *k == key).map(|(_, r)| r.clone()));
        if let Some(r) = hit {
            optimum.set(r);
        } else if !slow.get_value() {
            run(key);
        } else {
            optimum.set(Shared(Arc::new(None)));
            let wait = if push.get_value() { 0 } else { SETTLE_MS };
            let h =
                set_timeout_with_handle(move || run(key), std::time::Duration::from_millis(wait))
                    .ok();
            pending.set_value(h);
        }
    });
    optimum
}

/// The scaling sweep per method.
type ScalingRows = Result<Vec<(Method, Vec<plan3d_core::search::SweepRow>)>, plan3d_core::Error>;

fn dark_mode() -> bool {
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

fn document() -> web_sys::Document {
    window().document().expect("a document")
}

/// The page's address without its query: `https://host/path/`.
fn page_base() -> String {
    let l = window().location();
    format!(
        "{}{}",
        l.origin().unwrap_or_default(),
        l.pathname().unwrap_or_default()
    )
}

fn search_string() -> String {
    window().location().search().unwrap_or_default()
}

/// Seconds an animation cycle lasts at speed 1.
const CYCLE_S: f64 = 8.0;

/// Is the element on screen, in a visible tab? An off-screen animation
/// costs every input change a repaint for nothing.
fn on_screen(el: Option<web_sys::HtmlCanvasElement>) -> bool {
    let Some(el) = el else { return false };
    if document().hidden() {
        return false;
    }
    let r = el.get_bounding_client_rect();
    let h = window()
        .inner_height()
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    r.bottom() > 0.0 && r.top() < h
}

/// Advances the animation clock once per frame while playing and on screen.
fn animate(
    t: RwSignal<f64>,
    playing: RwSignal<bool>,
    speed: RwSignal<f64>,
    last: StoredValue<Option<f64>>,
    frames: RwSignal<u64>,
    canvas: NodeRef<Canvas>,
) {
    request_animation_frame(move || {
        if !playing.get_untracked() {
            last.set_value(None);
            return;
        }
        if !on_screen(canvas.get_untracked()) {
            // Idle, but keep checking (a cheap rect read per frame).
            last.set_value(None);
            animate(t, playing, speed, last, frames, canvas);
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
        animate(t, playing, speed, last, frames, canvas);
    });
}

/// Bumped when the window is resized or the colour scheme changes: canvases
/// are refitted ([`crate::backend::fit`]) and redrawn.
#[derive(Clone, Copy)]
struct Relayout(RwSignal<u32>);

fn relayout() -> RwSignal<u32> {
    use_context::<Relayout>().map_or_else(|| RwSignal::new(0), |r| r.0)
}

/// Fits `canvases` (with their CSS heights) when `epoch` has moved on since
/// `fitted`; not before one of them is on the page (some are not, in an
/// embedded view).
fn refit(fitted: StoredValue<Option<u32>>, epoch: u32, canvases: &[(NodeRef<Canvas>, f64)]) {
    if fitted.get_value() == Some(epoch) {
        return;
    }
    let mut any = false;
    for (node, h) in canvases {
        if let Some(c) = node.get_untracked() {
            crate::backend::fit(&c, *h);
            any = true;
        }
    }
    if any {
        fitted.set_value(Some(epoch));
    }
}

#[component]
pub fn App() -> impl IntoView {
    let epoch = RwSignal::new(0_u32);
    provide_context(Relayout(epoch));
    let _resize = window_event_listener(ev::resize, move |_| epoch.update(|e| *e += 1));
    if let Ok(Some(m)) = window().match_media("(prefers-color-scheme: dark)") {
        let f = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || epoch.update(|e| *e += 1));
        let _ = m.add_event_listener_with_callback("change", f.as_ref().unchecked_ref());
        // Lives as long as the page.
        f.forget();
    }
    let (initial, initial_notices) = Inputs::from_query(&search_string());
    let inputs = RwSignal::new(initial);
    let notices = RwSignal::new(initial_notices);
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
    let _popstate = window_event_listener(ev::popstate, move |_| {
        let (i, n) = Inputs::from_query(&search_string());
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
    let optimum = optimum_signal(inputs, push);
    // The selected plan's schedule: at most planner::MAX_PAGE_OPS
    // operations (~1.5 ms), so it lands in the same frame as the numbers.
    let plan_tl = Memo::new(move |_| {
        let method = inputs.with(|i| i.method);
        Shared(Arc::new(outputs.with(|o| {
            let o = (*o.0).as_ref().ok()?;
            let p = o.selected(method)?;
            planner::plan_schedule(&o.model, &o.hardware, p)
                .ok()
                .map(|(s, shown)| PlanTimeline {
                    timeline: Timeline::new(&s),
                    shown,
                    schedule: s,
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
    // reads changes.
    let sweep_key = Memo::new(move |_| inputs.with(planner::scaling_key));
    let scaling = Memo::new(move |_| Shared(Arc::new(sweep_key.with(|i| planner::scaling(i, 48)))));

    let embed = inputs.with_untracked(|i| i.embed);
    if let Some(view) = embed {
        // One view, compact chrome, for an iframe.
        if let Some(body) = document().body() {
            let _ = body.class_list().add_1("p3-embedded");
        }
        let full = move || inputs.with(|i| i.link(&page_base()));
        return view! {
            <div class="p3-embed" data-testid="embed">
                <p class="p3-embed__bar">
                    <a href=full target="_blank" rel="noopener">"plan3d"</a>
                    " — "{move || inputs.with(|i| i.model.shape().map(|m| fmt::params(m.params())).unwrap_or_default())}" parameters, "
                    {move || inputs.with(|i| i.gpu.name)}
                </p>
                <NoticeList notices=notices />
                {match view {
                    EmbedView::Schedule => view! { <Schedules inputs=inputs plan_tl=plan_tl only=true /> }.into_any(),
                    v => view! { <Results inputs=inputs outputs=outputs optimum=optimum scaling=scaling only=Some(v) /> }.into_any(),
                }}
            </div>
        }
        .into_any();
    }

    view! {
        <header class="p3-header">
            <h1>"plan3d"</h1>
            <p class="p3-lede">
                "The fastest data × pipeline × tensor-parallel plan for training a transformer, \
                 its memory, network needs and schedule — computed in your browser from \
                 Lamy-Poirier 2021 (arXiv 2106.02679)."
            </p>
        </header>
        <NoticeList notices=notices />
        <div class="p3-layout">
            <Controls inputs=inputs set=set />
            <main class="p3-main">
                {move || outputs.with(|o| o.0.as_ref().as_ref().err().map(|e| view! {
                    <p class="p3-error" role="alert">{format!("Cannot plan: {e}")}</p>
                }))}
                <Results inputs=inputs outputs=outputs optimum=optimum scaling=scaling only=None />
                <Schedules inputs=inputs plan_tl=plan_tl only=false />
                <Share inputs=inputs outputs=outputs optimum=optimum scaling=scaling plan_tl=plan_tl notices=notices />
            </main>
        </div>
        <footer class="p3-footer">
            "Memory in GiB (the paper's GB), bandwidth input + output, compute in dense half-precision flop/s. "
            "Times assume the paper's 10⁵ steps at the critical batch size and perfect kernels unless set."
        </footer>
    }
    .into_any()
}

#[component]
fn NoticeList(notices: RwSignal<Vec<Notice>>) -> impl IntoView {
    view! {
        <div class="p3-notices" role="status" aria-live="polite" data-testid="notices">
            {move || {
                notices
                    .get()
                    .into_iter()
                    .map(|n| view! { <p class="p3-notice">{n.to_string()}</p> })
                    .collect_view()
            }}
        </div>
    }
}

#[component]
fn Controls(
    inputs: RwSignal<Inputs>,
    set: impl Fn(bool, Box<dyn FnOnce(&mut Inputs)>) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let model_value = move || match inputs.with(|i| i.model) {
        ModelChoice::Preset(n) => n.to_string(),
        ModelChoice::X(x) => format!("x{x}"),
        ModelChoice::Custom { .. } => "custom".into(),
    };
    let params_log = move || {
        inputs
            .with(|i| i.model.shape().map(|m| m.params().log10()))
            .unwrap_or(12.0)
    };
    let custom = move || matches!(inputs.with(|i| i.model), ModelChoice::Custom { .. });
    let shape = move || inputs.with(|i| i.model.shape().ok());
    let x_options = [8u32, 32, 64, 108, 160, 200, 320, 600];

    view! {
        <aside class="p3-controls" aria-label="Inputs">
            <fieldset>
                <legend>"Model"</legend>
                <label for="p3-model">"Preset"</label>
                <select id="p3-model" data-testid="model" prop:value=model_value
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| {
                            i.model = if v == "custom" {
                                let m = i.model.shape().unwrap_or(model::BERT);
                                ModelChoice::Custom { seq_len: m.seq_len, heads: m.heads, head_size: m.head_size, layers: m.layers }
                            } else if let Some(&(n, _)) = model::PRESETS.iter().find(|(n, _)| *n == v) {
                                ModelChoice::Preset(n)
                            } else {
                                ModelChoice::X(v.trim_start_matches('x').parse().unwrap_or(160))
                            };
                        }));
                    }>
                    {model::PRESETS.iter().map(|(n, _)| view! { <option value=*n>{*n}</option> }).collect_view()}
                    {x_options.iter().map(|x| view! { <option value=format!("x{x}")>{format!("X{x}")}</option> }).collect_view()}
                    {move || match inputs.with(|i| i.model) {
                        ModelChoice::X(x) if !x_options.contains(&x) => Some(view! { <option value=format!("x{x}")>{format!("X{x}")}</option> }),
                        _ => None,
                    }}
                    <option value="custom">"custom shape"</option>
                </select>
                <label for="p3-size">
                    "Size (X family): "
                    <output data-testid="params">{move || shape().map(|m| fmt::params(m.params())).unwrap_or_default()}" parameters"</output>
                </label>
                <input id="p3-size" data-testid="size" type="range" min="8" max="16" step="0.02"
                    aria-label="Parameter count, log scale"
                    prop:value=move || format!("{:.2}", params_log())
                    on:input=move |e| {
                        let v: f64 = event_target_value(&e).parse().unwrap_or(12.0);
                        set(false, Box::new(move |i| i.model = ModelChoice::X(Inputs::x_for_params(10f64.powf(v)))));
                    } />
                <Show when=custom>
                    <div class="p3-grid2">
                        {[("seq", "Sequence"), ("heads", "Heads"), ("head", "Head size"), ("layers", "Layers")]
                            .into_iter()
                            .map(|(key, label)| {
                                let get = move || {
                                    shape().map(|m| match key {
                                        "seq" => m.seq_len,
                                        "heads" => m.heads,
                                        "head" => m.head_size,
                                        _ => m.layers,
                                    }).unwrap_or(1)
                                };
                                view! {
                                    <label>{label}
                                        <input type="number" min="1" max="1048576" data-testid=format!("custom-{key}")
                                            prop:value=move || get().to_string()
                                            on:change=move |e| {
                                                let Ok(v) = event_target_value(&e).parse::<u32>() else { return };
                                                set(true, Box::new(move |i| {
                                                    if let ModelChoice::Custom { seq_len, heads, head_size, layers } = i.model {
                                                        let mut c = (seq_len, heads, head_size, layers);
                                                        match key { "seq" => c.0 = v, "heads" => c.1 = v, "head" => c.2 = v, _ => c.3 = v }
                                                        let next = ModelChoice::Custom { seq_len: c.0, heads: c.1, head_size: c.2, layers: c.3 };
                                                        if next.shape().is_ok() { i.model = next; }
                                                    }
                                                }));
                                            } />
                                    </label>
                                }
                            })
                            .collect_view()}
                    </div>
                </Show>
                <p class="p3-hint">{move || shape().map(|m| format!(
                    "{} layers × width {} ({} heads of {}), sequence {}, critical batch {:.0} (eq. 2)",
                    m.layers, m.width(), m.heads, m.head_size, m.seq_len, m.critical_batch()
                ))}</p>
            </fieldset>
            <fieldset>
                <legend>"Hardware"</legend>
                <label for="p3-gpu">"GPU"</label>
                <select id="p3-gpu" data-testid="gpu" prop:value=move || inputs.with(|i| i.gpu.name)
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| if let Ok(g) = hardware::gpu(&v) { i.gpu = g }));
                    }>
                    {hardware::GPUS.iter().map(|g| view! { <option value=g.name>{g.name}</option> }).collect_view()}
                </select>
                <label for="p3-node">
                    "GPUs per node (NVLink): "
                    <output data-testid="node-value">{move || inputs.with(|i| i.node.map_or("no limit".to_string(), |n| n.to_string()))}</output>
                </label>
                <input id="p3-node" data-testid="node" type="range" min=NODE_RANGE.0 max=NODE_RANGE.1 step="1"
                    prop:disabled=move || inputs.with(|i| i.node.is_none())
                    prop:value=move || inputs.with(|i| i.node.unwrap_or(16)).to_string()
                    on:input=move |e| {
                        let v: u32 = event_target_value(&e).parse().unwrap_or(16);
                        set(false, Box::new(move |i| i.node = Some(v.clamp(NODE_RANGE.0, NODE_RANGE.1))));
                    } />
                <label class="p3-check">
                    <input type="checkbox" data-testid="no-node-limit" prop:checked=move || inputs.with(|i| i.node.is_none())
                        on:change=move |e| {
                            let on = event_target_checked(&e);
                            set(true, Box::new(move |i| i.node = if on { None } else { Some(16) }));
                        } />
                    " no node-size limit (fig. 5)"
                </label>
                <label for="p3-net">"Network (data and pipeline)"</label>
                <select id="p3-net" data-testid="net" prop:value=move || inputs.with(|i| i.network.name())
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| if let Ok(n) = Network::parse(&v) { i.network = n }));
                    }>
                    {Network::ALL.iter().map(|n| {
                        let label = match n {
                            Network::InfiniBand200 => "InfiniBand 200 Gb/s per GPU",
                            Network::InfiniBand400 => "InfiniBand 400 Gb/s per GPU",
                            Network::Ethernet25 => "Ethernet 25 Gb/s per GPU",
                            Network::Ethernet100 => "Ethernet 100 Gb/s per GPU",
                            Network::Ethernet400 => "Ethernet 400 Gb/s per GPU",
                        };
                        view! { <option value=n.name()>{label}</option> }
                    }).collect_view()}
                </select>
            </fieldset>
            <fieldset>
                <legend>"Training"</legend>
                <label for="p3-par">"Parallelism"</label>
                <select id="p3-par" data-testid="par" prop:value=move || inputs.with(|i| i.parallelism.name())
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| if let Ok(p) = Parallelism::parse(&v) { i.parallelism = p }));
                    }>
                    {Parallelism::ALL.iter().map(|p| view! { <option value=p.name()>{p.name()}</option> }).collect_view()}
                </select>
                <span class="p3-label" id="p3-method-label">"Method shown in detail"</span>
                <div class="p3-radios" role="radiogroup" aria-labelledby="p3-method-label">
                    {METHODS.iter().map(|&m| view! {
                        <label class="p3-radio">
                            <input type="radio" name="p3-method" value=m.name() data-testid=format!("method-{}", m.name())
                                prop:checked=move || inputs.with(|i| i.method == m)
                                on:change=move |_| set(true, Box::new(move |i| i.method = m)) />
                            {m.name()}
                        </label>
                    }).collect_view()}
                </div>
                <label for="p3-gpus">"GPU budget (optional)"</label>
                <input id="p3-gpus" data-testid="budget" type="number" min="1" placeholder="no limit"
                    prop:value=move || inputs.with(|i| i.max_gpus.map(|g| g.to_string()).unwrap_or_default())
                    on:change=move |e| {
                        let v = event_target_value(&e).trim().parse::<u64>().ok().filter(|g| (1..=1u64 << 32).contains(g));
                        set(true, Box::new(move |i| i.max_gpus = v));
                    } />
                <label for="p3-days">"Target time in days (fewest GPUs)"</label>
                <input id="p3-days" data-testid="days" type="number" min="0.001" step="any" placeholder="fastest"
                    prop:value=move || inputs.with(|i| i.target_days.map(|d| d.to_string()).unwrap_or_default())
                    on:change=move |e| {
                        let v = event_target_value(&e).trim().parse::<f64>().ok().filter(|d| d.is_finite() && (1e-3..=1e7).contains(d));
                        set(true, Box::new(move |i| i.target_days = v));
                    } />
                <label for="p3-batch">"Batch limit in sequences"</label>
                <input id="p3-batch" data-testid="batch" type="number" min="1" placeholder="critical batch"
                    prop:value=move || inputs.with(|i| i.batch.map(|b| b.to_string()).unwrap_or_default())
                    on:change=move |e| {
                        let v = event_target_value(&e).trim().parse::<u64>().ok().filter(|b| (1..=1u64 << 32).contains(b));
                        set(true, Box::new(move |i| i.batch = v));
                    } />
                <label for="p3-keff">
                    "Kernel efficiency: "
                    <output>{move || fmt::pct(inputs.with(|i| i.kernel_efficiency))}</output>
                </label>
                <input id="p3-keff" data-testid="keff" type="range" min=KEFF_RANGE.0 max=KEFF_RANGE.1 step="0.01"
                    prop:value=move || inputs.with(|i| i.kernel_efficiency).to_string()
                    on:input=move |e| {
                        let v: f64 = event_target_value(&e).parse().unwrap_or(1.0);
                        set(false, Box::new(move |i| i.kernel_efficiency = v.clamp(KEFF_RANGE.0, KEFF_RANGE.1)));
                    } />
                <label for="p3-act">"Activation memory"</label>
                <select id="p3-act" data-testid="act" prop:value=move || inputs.with(|i| i.activation.name())
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        set(true, Box::new(move |i| if let Ok(a) = ActivationModel::parse(&v) { i.activation = a }));
                    }>
                    <option value="paper">"checkpoint every layer (paper)"</option>
                    <option value="full">"full recomputation (Korthikanti)"</option>
                    <option value="selective">"selective recomputation"</option>
                    <option value="none">"no recomputation"</option>
                </select>
            </fieldset>
        </aside>
    }
}

fn config_text(p: &Plan) -> String {
    let c = p.evaluation.config;
    format!("{} × {} × {}", c.data, c.pipe, c.tensor)
}

fn plan_row(name: &'static str, cls: &'static str, p: &Plan) -> AnyView {
    let e = p.evaluation;
    view! {
        <tr class=cls data-testid=format!("plan-{name}")>
            <th scope="row">{if name == "optimum" { format!("optimum ({})", e.config.method.name()) } else { name.to_string() }}</th>
            <td>{config_text(p)}</td>
            <td data-testid=format!("plan-{name}-gpus")>{e.gpus.to_string()}</td>
            <td>{e.batch.to_string()}</td>
            <td>{format!("{} × {}", e.config.micro_batch, e.config.micro_batches)}</td>
            <td>{if e.config.offload { "yes" } else { "no" }}</td>
            <td>{fmt::pct(e.efficiency)}</td>
            <td>{fmt::gib(e.memory.on_gpu(e.config.offload).get())}" GiB"</td>
            <td data-testid=format!("plan-{name}-days")>{fmt::days(e.time.days())}</td>
        </tr>
    }
    .into_any()
}

#[component]
fn Results(
    inputs: RwSignal<Inputs>,
    outputs: Memo<Shared<Result<Outputs, plan3d_core::Error>>>,
    optimum: RwSignal<Shared<Option<OptimumResult>>>,
    /// Show only this view (embed mode).
    only: Option<EmbedView>,
    scaling: Memo<Shared<ScalingRows>>,
) -> impl IntoView {
    let method = move || inputs.with(|i| i.method);
    // The selected plan, read by several parts of the section.
    let selected = move || {
        let m = method();
        outputs.with(|o| (*o.0).as_ref().ok().and_then(|o| o.selected(m).copied()))
    };
    let rows = move || {
        let m = method();
        outputs.with(|o| {
            let Ok(o) = (*o.0).as_ref() else { return Vec::new() };
            let mut v: Vec<AnyView> = o
                .plans
                .iter()
                .map(|(pm, p)| {
                    let name = pm.name();
                    let cls = if *pm == m { "p3-row p3-row--selected" } else { "p3-row" };
                    match p {
                        Ok(p) => plan_row(name, cls, p),
                        Err(err) => view! {
                            <tr class=cls data-testid=format!("plan-{name}")>
                                <th scope="row">{name}</th>
                                <td colspan="8">{err.to_string()}</td>
                            </tr>
                        }
                        .into_any(),
                    }
                })
                .collect();
            optimum.with(|opt| match opt.0.as_ref() {
                None => v.push(view! { <tr><td colspan="9" class="p3-note">"Searching every configuration…"</td></tr> }.into_any()),
                Some(Ok(r)) => {
                    let e = r.best.evaluation;
                    let vs_rules = o.rules_against(r).map(|p| {
                        (p.evaluation.config.method, planner::standing(p, r, &o.constraints))
                    });
                    v.push(plan_row("optimum", "p3-row p3-row--optimum", &r.best));
                    let searched = format!("Exhaustive search over every configuration ({} evaluated)", r.evaluated);
                    let rules = |m: Method| {
                        if m == e.config.method {
                            "the paper's rules".to_string()
                        } else {
                            format!("the paper's rules (at best, {})", m.name())
                        }
                    };
                    let note = match vs_rules {
                        Some((m, planner::Standing::Slower(x))) => {
                            format!("{searched}: {} are {} slower.", rules(m), fmt::pct(x - 1.0))
                        }
                        Some((m, planner::Standing::MoreGpus(x))) => format!(
                            "{searched}: {} need {} more GPUs to meet the target time.",
                            rules(m),
                            fmt::pct(x - 1.0)
                        ),
                        Some((m, planner::Standing::MissesTarget)) => {
                            format!("{searched}: {} miss the target time.", rules(m))
                        }
                        _ => format!("{searched}: the paper's rules find the optimum."),
                    };
                    v.push(view! { <tr><td colspan="9" class="p3-note">{note}</td></tr> }.into_any());
                }
                Some(Err(e)) => v.push(view! { <tr><td colspan="9">{format!("No optimum: {e}")}</td></tr> }.into_any()),
            });
            v
        })
    };
    let binding = move || {
        selected().map(|p| {
            p.binding
                .iter()
                .map(|b| view! { <li>{b.to_string()}</li> })
                .collect_view()
        })
    };
    let needs_view = move || {
        let Some(p) = selected() else {
            return Vec::new();
        };
        outputs.with(|o| {
            let Ok(o) = (*o.0).as_ref() else { return Vec::new() };
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
                            <td class=if ok || !n.overlapped { "p3-ok" } else { "p3-bad" }>{status}</td>
                        </tr>
                    }
                })
                .collect::<Vec<_>>()
        })
    };
    let headline = move || {
        let p = selected()?;
        let e = p.evaluation;
        let params = outputs.with(|o| (*o.0).as_ref().ok().map(|o| o.model.params()))?;
        Some(format!(
            "{} trains {} on {} GPUs ({}) in {}, at {} efficiency.",
            method().name(),
            fmt::params(params),
            e.gpus,
            config_text(&p),
            fmt::duration(e.time.days()),
            fmt::pct(e.efficiency)
        ))
    };

    // Charts: stable canvases, redrawn by effects.
    let epoch = relayout();
    let mem_canvas = NodeRef::<Canvas>::new();
    let mem_fitted = StoredValue::new(None);
    Effect::new(move |_| {
        refit(mem_fitted, epoch.get(), &[(mem_canvas, 300.0)]);
        let (bars, gpu_mem) = outputs.with(|o| match (*o.0).as_ref() {
            Ok(o) => (
                o.plans
                    .iter()
                    .filter_map(|(m, p)| {
                        p.as_ref()
                            .ok()
                            .map(|p| (*m, p.evaluation.memory, p.evaluation.config.offload))
                    })
                    .collect::<Vec<_>>(),
                o.hardware.gpu.memory.get(),
            ),
            Err(_) => (Vec::new(), 0.0),
        });
        let Some(c) = mem_canvas.get() else { return };
        if let Some(b) = Canvas2d::canvas(c) {
            let _ = charts::memory(&b.into_drawing_area(), &bars, gpu_mem, dark_mode());
        }
    });
    let scale_canvas = NodeRef::<Canvas>::new();
    let marker_canvas = NodeRef::<Canvas>::new();
    let xmap = RwSignal::new(XMap::default());
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
            &[(scale_canvas, 360.0), (marker_canvas, 360.0)],
        );
        let s = scaling.get();
        let Some(c) = scale_canvas.get() else { return };
        if let (Some(b), Ok(rows)) = (Canvas2d::canvas(c), s.0.as_ref()) {
            if let Ok(m) = charts::scaling(&b.into_drawing_area(), rows, dark_mode()) {
                xmap.set(m);
            }
        }
    });
    Effect::new(move |_| {
        let current = selected().and_then(|p| {
            outputs.with(|o| {
                (*o.0)
                    .as_ref()
                    .ok()
                    .map(|o| (o.model.params(), p.evaluation.time.days()))
            })
        });
        let map = xmap.get();
        // A refit clears the overlay, a theme change recolours it.
        epoch.track();
        let cursor = hovered.get().and_then(|p| map.x_at(p));
        let Some(c) = marker_canvas.get() else { return };
        timeline::draw_marker(
            &c,
            current.and_then(|(p, d)| map.pixel(p, d)),
            cursor,
            map.y0,
            map.y1,
            dark_mode(),
        );
    });
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
                    "{} {} on {} GPUs",
                    m.name(),
                    fmt::duration(e.time.days()),
                    e.gpus
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
        let Some(c) = scale_canvas.get_untracked() else {
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

    let show_plans = matches!(only, None | Some(EmbedView::Planner));
    let show_detail = only.is_none();
    let show_scaling = matches!(only, None | Some(EmbedView::Scaling));
    view! {
        {show_plans.then(|| view! { <section class="p3-card" aria-labelledby="p3-plans-h">
            <h2 id="p3-plans-h">"Fastest plans"</h2>
            <p class="p3-headline" data-testid="headline">{headline}</p>
            <div class="p3-scroll">
                <table class="p3-table">
                    <thead><tr>
                        <th scope="col">"method"</th>
                        <th scope="col" title="data × pipeline × tensor">"n_b × n_l × n_a"</th>
                        <th scope="col">"GPUs"</th>
                        <th scope="col" title="sequences; eq. 2 gives the critical batch">"batch"</th>
                        <th scope="col" title="micro-batch size × count">"b_µ × n_µ"</th>
                        <th scope="col" title="state and checkpoints in CPU memory (C.5)">"offload"</th>
                        <th scope="col" title="product of 1/(1+overhead): bubble, tensor (eq. 12), transfers">"efficiency"</th>
                        <th scope="col" title="what stays on each GPU (C.3)">"memory"</th>
                        <th scope="col">"days"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <h3>"Why this plan"</h3>
            <ul class="p3-binding" data-testid="binding">{binding}</ul>
        </section> })}
        {show_detail.then(|| view! { <section class="p3-card" aria-labelledby="p3-mem-h">
            <h2 id="p3-mem-h">"Memory per GPU"</h2>
            <canvas node_ref=mem_canvas width="720" height="300" class="p3-chart" data-testid="memory-chart"
                role="img" aria-label="Stacked memory per GPU for each method against the GPU's memory"></canvas>
        </section> })}
        {show_detail.then(|| view! { <section class="p3-card" aria-labelledby="p3-net-h">
            <h2 id="p3-net-h">"Network needs of the "{move || method().name()}" plan"</h2>
            <div class="p3-scroll">
                <table class="p3-table" data-testid="needs">
                    <thead><tr><th>"transfer"</th><th>"link"</th><th>"equation"</th><th>"needs"</th><th>"has"</th><th>"status"</th></tr></thead>
                    <tbody>{needs_view}</tbody>
                </table>
            </div>
        </section> })}
        {show_scaling.then(|| view! { <section class="p3-card" aria-labelledby="p3-scale-h">
            <h2 id="p3-scale-h">"Scaling: fastest plan per method (figs. 4, 5, 8)"</h2>
            <div class="p3-stack">
                <canvas node_ref=scale_canvas width="720" height="360" class="p3-chart" data-testid="scaling-chart"
                    role="img" aria-label="Training time of the fastest plan per method against model size"></canvas>
                <canvas node_ref=marker_canvas width="720" height="360" class="p3-chart p3-overlay" data-testid="scaling-marker"
                    tabindex="0" aria-label="Read the scaling chart: the left and right arrow keys step through model sizes"
                    aria-describedby="p3-scale-read" on:mousemove=on_move on:keydown=on_key></canvas>
            </div>
            <p class="p3-hint" id="p3-scale-read" aria-live="polite" data-testid="scaling-hover">
                {move || hover().unwrap_or_else(|| "Hover the chart, or focus it and use the arrow keys, to read each method's plan at a size.".into())}
            </p>
        </section> })}
    }
}

#[component]
fn Schedules(
    inputs: RwSignal<Inputs>,
    plan_tl: Memo<Shared<Option<PlanTimeline>>>,
    /// Embed mode: the animation without the comparisons.
    only: bool,
) -> impl IntoView {
    let cmp_tl = Memo::new(move |_| {
        let c = inputs.with(|i| i.compare);
        Shared(Arc::new(planner::comparison(c).ok().map(|[a, b]| {
            [
                (Timeline::new(&a), a.spec.kind.name(), a.bubble_fraction),
                (Timeline::new(&b), b.spec.kind.name(), b.bubble_fraction),
            ]
        })))
    });
    let t = RwSignal::new(0.0_f64);
    let playing = RwSignal::new(true);
    let speed = RwSignal::new(1.0_f64);
    let frames = RwSignal::new(0_u64);
    let last = StoredValue::new(None);
    let main_canvas = NodeRef::<Canvas>::new();
    animate(t, playing, speed, last, frames, main_canvas);
    // A new plan restarts the animation.
    Effect::new(move |_| {
        plan_tl.track();
        t.set(0.0);
    });
    let mem_canvas = NodeRef::<Canvas>::new();
    let cmp_a = NodeRef::<Canvas>::new();
    let cmp_b = NodeRef::<Canvas>::new();
    let epoch = relayout();
    let fitted = StoredValue::new(None);
    Effect::new(move |_| {
        refit(
            fitted,
            epoch.get(),
            &[
                (main_canvas, 280.0),
                (mem_canvas, 90.0),
                (cmp_a, 170.0),
                (cmp_b, 170.0),
            ],
        );
        let frac = t.get();
        let dark = dark_mode();
        if let Some(tl) = plan_tl.get().0.as_ref() {
            if let Some(c) = main_canvas.get() {
                timeline::draw(&c, &tl.timeline, frac, dark);
            }
            if let Some(c) = mem_canvas.get() {
                timeline::draw_memory(&c, &tl.timeline, frac, true, dark);
            }
        }
        if let Some(pair) = cmp_tl.get().0.as_ref() {
            for (node, (tl, _, _)) in [cmp_a, cmp_b].into_iter().zip(pair.iter()) {
                if let Some(c) = node.get() {
                    timeline::draw(&c, tl, frac, dark);
                }
            }
        }
    });
    let toggle = move |_| {
        let now = !playing.get_untracked();
        playing.set(now);
        if now {
            animate(t, playing, speed, last, frames, main_canvas);
        }
    };
    let cmp_label = |i: usize| {
        move || {
            cmp_tl
                .get()
                .0
                .as_ref()
                .as_ref()
                .map(|p| format!("{}: bubble {}", p[i].1, fmt::pct(p[i].2)))
                .unwrap_or_default()
        }
    };
    view! {
        <section class="p3-card" aria-labelledby="p3-sched-h">
            <h2 id="p3-sched-h">"Schedule of the selected plan"</h2>
            <div class="p3-player" role="group" aria-label="Animation controls">
                <button type="button" data-testid="play" on:click=toggle aria-pressed=move || playing.get().to_string()>
                    {move || if playing.get() { "Pause" } else { "Play" }}
                </button>
                <label>"Position "
                    <input type="range" min="0" max="1" step="0.001" data-testid="scrub" aria-label="Position in the step"
                        prop:value=move || format!("{:.3}", t.get())
                        on:input=move |e| {
                            playing.set(false);
                            t.set(event_target_value(&e).parse().unwrap_or(0.0));
                        } />
                </label>
                <label>"Speed "
                    <select data-testid="speed" on:change=move |e| speed.set(event_target_value(&e).parse().unwrap_or(1.0))>
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
                        format!("one step: {} s{}", plan3d_core::round_sig(p.timeline.makespan, 3), scaled)
                    }).unwrap_or_else(|| "no schedule for this plan".into())}
                </span>
            </div>
            <canvas node_ref=main_canvas width="960" height="280" class="p3-chart p3-timeline" data-testid="timeline"
                role="img" aria-label="Animated timeline of the selected plan: GPUs as rows, compute coloured by layer, network below"></canvas>
            <canvas node_ref=mem_canvas width="960" height="90" class="p3-chart p3-strip" data-testid="memory-strip"
                role="img" aria-label="Memory of GPU 0 over the step"></canvas>
            {(!only).then(|| view! {
            <h3>"The paper's comparisons"</h3>
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
            </select>
            <div class="p3-pair">
                <figure>
                    <canvas node_ref=cmp_a width="470" height="170" class="p3-chart" data-testid="compare-a" role="img" aria-label="First schedule of the comparison"></canvas>
                    <figcaption>{cmp_label(0)}</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=cmp_b width="470" height="170" class="p3-chart" data-testid="compare-b" role="img" aria-label="Second schedule of the comparison"></canvas>
                    <figcaption>{cmp_label(1)}</figcaption>
                </figure>
            </div>
            <p class="p3-hint">"Unit durations: forward 1, backward 2; colours are layers, darker for the backward pass; reductions in orange on the network lane."</p>
            })}
        </section>
    }
}

/// Offers `href` as a download named `name` (a link clicked by script).
fn click_download(name: &str, href: &str) {
    let Ok(a) = document().create_element("a") else {
        return;
    };
    let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() else {
        return;
    };
    a.set_href(href);
    a.set_download(name);
    a.click();
}

/// Offers `text` as a file.
fn download_text(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    click_download(name, &url);
    // Keep the URL alive long enough for the download to start.
    set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(30),
    );
}

/// A canvas's pixels as a PNG download.
fn download_canvas(testid: &str, name: &str) {
    let el = document()
        .query_selector(&format!("[data-testid={testid}]"))
        .ok()
        .flatten();
    if let Some(c) = el.and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok()) {
        if let Ok(url) = c.to_data_url() {
            click_download(name, &url);
        }
    }
}

fn local_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// Saved scenarios: `(name, inputs)`, and notices for entries skipped.
fn read_scenarios() -> (Vec<(String, Inputs)>, Vec<Notice>) {
    let (mut ok, mut bad) = (Vec::new(), Vec::new());
    let Some(st) = local_storage() else {
        return (ok, bad);
    };
    let n = st.length().unwrap_or(0);
    for k in 0..n {
        let Ok(Some(key)) = st.key(k) else { continue };
        if !key.starts_with(SCENARIO_PREFIX) {
            continue;
        }
        let value = st.get_item(&key).ok().flatten().unwrap_or_default();
        match read_scenario(&key, &value) {
            Ok(s) => ok.push(s),
            Err(n) => bad.push(n),
        }
    }
    ok.sort_by(|a, b| a.0.cmp(&b.0));
    (ok, bad)
}

#[component]
fn Share(
    inputs: RwSignal<Inputs>,
    outputs: Memo<Shared<Result<Outputs, plan3d_core::Error>>>,
    optimum: RwSignal<Shared<Option<OptimumResult>>>,
    scaling: Memo<Shared<ScalingRows>>,
    plan_tl: Memo<Shared<Option<PlanTimeline>>>,
    notices: RwSignal<Vec<Notice>>,
) -> impl IntoView {
    let link = move || inputs.with(|i| i.link(&page_base()));
    let embed_view = RwSignal::new(EmbedView::Planner);
    let code = move || inputs.with(|i| i.embed_code(&page_base(), embed_view.get()));
    let status = RwSignal::new(String::new());
    let copy = move |text: String, what: &'static str| {
        let clip = window().navigator().clipboard();
        let _ = clip.write_text(&text);
        status.set(format!("{what} copied"));
    };
    let name = move |what: &str, ext: &str| inputs.with(|i| export::file_name(i, what, ext));

    let export_text = move |what: &'static str| {
        let i = inputs.get_untracked();
        let o = outputs.get_untracked();
        let opt = optimum.get_untracked();
        let Ok(out) = (*o.0).as_ref() else { return };
        let (text, ext, mime) = match what {
            "plans-csv" => (
                export::plans_csv(&i, out, opt.0.as_ref().as_ref()),
                "csv",
                "text/csv",
            ),
            "plans-json" => (
                export::plans_json(&i, out, opt.0.as_ref().as_ref()),
                "json",
                "application/json",
            ),
            _ => {
                let s = scaling.get_untracked();
                let Ok(rows) = (*s.0).as_ref() else { return };
                if what == "sweep-csv" {
                    (export::sweep_csv(&i, rows), "csv", "text/csv")
                } else {
                    (export::sweep_json(&i, rows), "json", "application/json")
                }
            }
        };
        let stem = what.split('-').next().unwrap_or(what);
        download_text(&export::file_name(&i, stem, ext), mime, &text);
    };
    let export_svg = move |what: &'static str| {
        let i = inputs.get_untracked();
        let comment = format!("<!-- plan3d {what} for ?{} -->", i.to_query());
        let mut svg = String::new();
        match what {
            "schedule" => {
                let tl = plan_tl.get_untracked();
                let Some(p) = tl.0.as_ref() else { return };
                svg = p.schedule.to_svg();
            }
            "scaling" => {
                let s = scaling.get_untracked();
                let Ok(rows) = (*s.0).as_ref() else { return };
                let b = plotters::prelude::SVGBackend::with_string(&mut svg, (720, 360));
                if let Some(b) = Measured::new(b) {
                    let _ = charts::scaling(&b.into_drawing_area(), rows, false);
                }
            }
            _ => {
                let o = outputs.get_untracked();
                let Ok(out) = (*o.0).as_ref() else { return };
                let bars: Vec<_> = out
                    .plans
                    .iter()
                    .filter_map(|(m, p)| {
                        p.as_ref()
                            .ok()
                            .map(|p| (*m, p.evaluation.memory, p.evaluation.config.offload))
                    })
                    .collect();
                let b = plotters::prelude::SVGBackend::with_string(&mut svg, (720, 300));
                if let Some(b) = Measured::new(b) {
                    let _ = charts::memory(
                        &b.into_drawing_area(),
                        &bars,
                        out.hardware.gpu.memory.get(),
                        false,
                    );
                }
            }
        }
        let svg = match svg.find('>') {
            Some(k) => format!("{}{comment}{}", &svg[..=k], &svg[k + 1..]),
            None => svg,
        };
        download_text(&export::file_name(&i, what, "svg"), "image/svg+xml", &svg);
    };

    // Saved scenarios.
    let scenarios = RwSignal::new(Vec::<(String, Inputs)>::new());
    let refresh = move || {
        let (ok, bad) = read_scenarios();
        scenarios.set(ok);
        if !bad.is_empty() {
            notices.update(|n| n.extend(bad));
        }
    };
    refresh();
    let new_name = RwSignal::new(String::new());
    let save = move |_| {
        let n: String = new_name
            .get_untracked()
            .trim()
            .chars()
            .take(plan3d_core::state::MAX_SCENARIO_NAME)
            .collect();
        if n.is_empty() || n.chars().any(char::is_control) {
            status.set("Give the scenario a name".into());
            return;
        }
        if let Some(st) = local_storage() {
            let q = inputs.with_untracked(|i| Inputs { embed: None, ..*i }.to_query());
            if st.set_item(&format!("{SCENARIO_PREFIX}{n}"), &q).is_ok() {
                status.set(format!("Saved \u{201c}{n}\u{201d}"));
                new_name.set(String::new());
                let (ok, _) = read_scenarios();
                scenarios.set(ok);
            }
        }
    };

    let button = |label: &'static str, testid: &'static str, f: Box<dyn Fn() + Send + Sync>| {
        view! { <button type="button" class="p3-btn" data-testid=testid on:click=move |_| f()>{label}</button> }
    };
    view! {
        <section class="p3-card" aria-labelledby="p3-share-h">
            <h2 id="p3-share-h">"Share, export, save"</h2>
            <div class="p3-share">
                <label for="p3-link">"Link to this view"</label>
                <div class="p3-row2">
                    <input id="p3-link" data-testid="share-link" readonly prop:value=link />
                    <button type="button" class="p3-btn" data-testid="copy-link" on:click=move |_| copy(link(), "Link")>"Copy link"</button>
                </div>
                <label for="p3-embed">"Embed one view (600 × 400 iframe)"</label>
                <div class="p3-row2">
                    <select data-testid="embed-view" aria-label="View to embed" on:change=move |e| {
                        let v = event_target_value(&e);
                        if let Some(x) = EmbedView::ALL.into_iter().find(|x| x.name() == v) { embed_view.set(x) }
                    }>
                        <option value="planner">"plans"</option>
                        <option value="schedule">"schedule"</option>
                        <option value="scaling">"scaling chart"</option>
                    </select>
                    <input id="p3-embed" data-testid="embed-code" readonly prop:value=code />
                    <button type="button" class="p3-btn" data-testid="copy-embed" on:click=move |_| copy(code(), "Embed code")>"Copy embed code"</button>
                </div>
                <p class="p3-hint" role="status" data-testid="share-status">{move || status.get()}</p>
                <span class="p3-label">"Export (files name their inputs)"</span>
                <div class="p3-buttons">
                    {button("Plans CSV", "export-plans-csv", Box::new(move || export_text("plans-csv")))}
                    {button("Plans JSON", "export-plans-json", Box::new(move || export_text("plans-json")))}
                    {button("Sweep CSV", "export-sweep-csv", Box::new(move || export_text("sweep-csv")))}
                    {button("Sweep JSON", "export-sweep-json", Box::new(move || export_text("sweep-json")))}
                    {button("Scaling PNG", "export-scaling-png", Box::new(move || download_canvas("scaling-chart", &name("scaling", "png"))))}
                    {button("Scaling SVG", "export-scaling-svg", Box::new(move || export_svg("scaling")))}
                    {button("Memory PNG", "export-memory-png", Box::new(move || download_canvas("memory-chart", &name("memory", "png"))))}
                    {button("Memory SVG", "export-memory-svg", Box::new(move || export_svg("memory")))}
                    {button("Schedule PNG", "export-schedule-png", Box::new(move || download_canvas("timeline", &name("schedule", "png"))))}
                    {button("Schedule SVG", "export-schedule-svg", Box::new(move || export_svg("schedule")))}
                </div>
                <span class="p3-label">"Saved scenarios (this browser only)"</span>
                <div class="p3-row2">
                    <input data-testid="scenario-name" placeholder="name" maxlength="60" aria-label="Scenario name"
                        prop:value=move || new_name.get() on:input=move |e| new_name.set(event_target_value(&e)) />
                    <button type="button" class="p3-btn" data-testid="scenario-save" on:click=save>"Save"</button>
                </div>
                <ul class="p3-scenarios" data-testid="scenarios">
                    {move || scenarios.get().into_iter().map(|(n, i)| {
                        let key = format!("{SCENARIO_PREFIX}{n}");
                        let label = n.clone();
                        view! {
                            <li>
                                <button type="button" class="p3-link-btn" data-testid=format!("scenario-{n}") on:click=move |_| inputs.set(i)>{label}</button>
                                " "
                                <button type="button" class="p3-link-btn" aria-label=format!("Delete {n}") on:click=move |_| {
                                    if let Some(st) = local_storage() { let _ = st.remove_item(&key); }
                                    let (ok, _) = read_scenarios();
                                    scenarios.set(ok);
                                }>"delete"</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            </div>
        </section>
    }
}
