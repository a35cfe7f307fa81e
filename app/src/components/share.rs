//! "Share, export, save": the link, embed codes, exports and saved
//! scenarios.

use leptos::prelude::*;
use plan3d_core::{
    export,
    state::{read_scenario, EmbedView, Inputs, Notice, SCENARIO_PREFIX},
};

use crate::app::{OptimumSignal, OutputsMemo, PlanTimeline, ScalingRows, Shared};
use crate::backend::Measured;
use crate::charts::{self, Drawn};
use crate::dom::{download_canvas, download_text, page_base};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};

/// This browser's localStorage, if it allows it.
pub fn local_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// Saved scenarios: `(name, inputs)`, and notices for entries skipped.
pub fn read_scenarios() -> (Vec<(String, Inputs)>, Vec<Notice>) {
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
            // Kept in name order as they come (a handful: an insertion
            // costs less wasm than a sort's instantiation).
            Ok(s) => {
                let at = ok
                    .binary_search_by(|(n, _): &(String, Inputs)| n.cmp(&s.0))
                    .unwrap_or_else(|e| e);
                ok.insert(at, s);
            }
            Err(n) => bad.push(n),
        }
    }
    (ok, bad)
}

/// Link, embed code, exports and saved scenarios.
#[component]
pub fn Share(
    inputs: RwSignal<Inputs>,
    outputs: OutputsMemo,
    optimum: OptimumSignal,
    scaling: Memo<Shared<ScalingRows>>,
    plan_tl: Memo<Shared<Option<PlanTimeline>>>,
    live: crate::app::ScheduleLive,
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

    // The sweep as drawn, or computed now if its card has not been near
    // the screen (then it was not).
    let scaling_now = move || {
        let s = scaling.get_untracked();
        if matches!(s.0.as_ref(), Ok(rows) if !rows.is_empty()) {
            return s;
        }
        let key = inputs.with_untracked(plan3d_core::planner::scaling_key);
        crate::app::Shared(std::sync::Arc::new(plan3d_core::planner::scaling(&key)))
    };
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
                let s = scaling_now();
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
    // The selected plan's schedule, simulated now if its card has not been
    // near the screen (then it was not).
    let timeline_now = move || {
        live.wanted.set(true);
        let tl = plan_tl.get_untracked();
        live.wanted.set(false);
        tl
    };
    let export_svg = move |what: &'static str| {
        let i = inputs.get_untracked();
        let comment = format!("<!-- plan3d {what} for ?{} -->", i.to_query());
        let svg = match what {
            "schedule" => {
                let tl = timeline_now();
                let Some(p) = tl.0.as_ref() else { return };
                p.schedule.to_svg()
            }
            "scaling" => {
                let s = scaling_now();
                let Ok(rows) = (*s.0).as_ref() else { return };
                svg((720, 360), |area| {
                    charts::scaling(area, rows, false).map(|_| ())
                })
            }
            _ => {
                let o = outputs.get_untracked();
                let Ok(out) = (*o.0).as_ref() else { return };
                let bars = charts::memory_bars(out);
                let gpu = out.hardware.gpu.memory.get();
                svg((720, 300), |area| charts::memory(area, &bars, gpu, false))
            }
        };
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
                    {button("Schedule PNG", "export-schedule-png", Box::new(move || {
                        // The whole step, drawn now.
                        let tl = timeline_now();
                        if let (Some(p), Some(c)) = (tl.0.as_ref(), crate::dom::canvas_by_testid("timeline")) {
                            crate::timeline::draw(&c, &p.timeline, 1.0, crate::dom::dark_mode());
                        }
                        download_canvas("timeline", &name("schedule", "png"));
                    }))}
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

/// A chart drawn by plotters' SVG backend (text measured on a detached
/// canvas, see [`Measured`]), as an SVG document.
fn svg<'a>(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<Measured<'_>, Shift>) -> Drawn<(), Measured<'a>>,
) -> String {
    let mut out = String::new();
    if let Some(b) = Measured::svg(&mut out, size) {
        let area = b.into_drawing_area();
        let _ = draw(&area);
        let _ = area.present();
    }
    out
}
