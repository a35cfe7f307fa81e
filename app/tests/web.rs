//! Component tests in headless Chromium (wasm-bindgen-test).
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use plan3d_app::{app::App, charts::XMap, fmt, timeline::Timeline};
use plan3d_core::schedule::{simulate, ScheduleKind, ScheduleSpec};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn text(testid: &str) -> String {
    document()
        .query_selector(&format!("[data-testid=\"{testid}\"]"))
        .ok()
        .flatten()
        .and_then(|e| e.text_content())
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[wasm_bindgen_test]
async fn app_mounts_and_shows_table_6_1() {
    // The page opens in practice; the paper's tables are `assume=paper`.
    web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("?assume=paper"))
        .unwrap();
    leptos::mount::mount_to_body(App);
    leptos::task::tick().await;
    assert_eq!(text("plan-improved-gpus"), "38,640");
    assert_eq!(text("plan-improved-days"), "6.8");
    assert_eq!(text("plan-baseline-gpus"), "35,840");
    assert!(text("binding").contains("eq. 9"));
    // Choosing the baseline re-renders the headline.
    let radio: web_sys::HtmlInputElement = document()
        .query_selector("[data-testid=method-baseline]")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    radio.click();
    leptos::task::tick().await;
    assert!(
        text("headline").starts_with("Megatron-style trains"),
        "{}",
        text("headline")
    );
}

#[wasm_bindgen_test]
fn formatting_shows_units_like_the_paper() {
    assert_eq!(fmt::days(6.81), "6.8");
    assert_eq!(fmt::days(864.4), "864");
    assert_eq!(fmt::duration(231_003.0), "633 years");
    // Short runs in their own units, not "0.0003 days".
    assert_eq!(fmt::days(0.0003), "26 s");
    assert_eq!(fmt::duration(0.0003), "26 s");
    assert_eq!(fmt::duration(0.02), "29 min");
    assert_eq!(fmt::duration(0.09), "2.2 h");
    assert_eq!(fmt::energy(41_460.0), "41.5 GWh");
    assert_eq!(fmt::energy(950.0), "950 MWh");
    assert_eq!(
        fmt::capitalized("layered + modular trains"),
        "Layered + modular trains"
    );
    assert_eq!(fmt::capitalized(""), "");
    assert_eq!(fmt::capitalized("zeRO-3 / FSDP"), "ZeRO-3 / FSDP");
    // Not ASCII: left as it is, never a panic.
    assert_eq!(fmt::capitalized("élan"), "élan");
    // Llama 3.1 405B's 405.85 B parameters.
    assert_eq!(fmt::params(405.853e9), "405.9 B");
    assert_eq!(fmt::params(1.2583e12), "1.26 T");
    assert_eq!(fmt::gib(4.72 * 1_073_741_824.0), "4.72");
    assert_eq!(fmt::count(38_640), "38,640");
    assert_eq!(fmt::count(1), "1");
    assert_eq!(fmt::count(1_234_567), "1,234,567");
    // One style on an axis.
    let ticks: Vec<String> = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0, 10_000.0]
        .iter()
        .map(|&v| fmt::tick(v))
        .collect();
    assert_eq!(ticks, ["0.01", "0.1", "1", "10", "100", "1,000", "10,000"]);
    assert_eq!(fmt::power_of_ten(1e8), "10⁸");
    assert_eq!(fmt::power_of_ten(1e16), "10¹⁶");
}

#[wasm_bindgen_test]
fn big_timelines_are_aggregated() {
    let small = simulate(&ScheduleSpec::unit(ScheduleKind::Gpipe, 4, 16, 4)).unwrap();
    assert!(!Timeline::new(&small).aggregated);
    let big = simulate(&ScheduleSpec::unit(ScheduleKind::OneFOneB, 8, 64, 400)).unwrap();
    assert!(big.events.len() > plan3d_app::timeline::DETAIL_LIMIT);
    assert!(Timeline::new(&big).aggregated);
}

/// Every simulated forward and backward pass is drawn in its own colours,
/// the interleaved 1F1B of a large plan too (it was drawn all in the
/// forward colour once its events were too many to draw one by one).
#[wasm_bindgen_test]
fn every_pass_is_drawn_in_its_colour() {
    use plan3d_core::schedule::EventKind;
    let mut interleaved = ScheduleSpec::unit(ScheduleKind::Interleaved, 16, 128, 64);
    interleaved.chunks = 4;
    for spec in [
        ScheduleSpec::unit(ScheduleKind::OneFOneB, 4, 16, 8),
        ScheduleSpec::unit(ScheduleKind::OneFOneB, 8, 64, 400),
        interleaved,
    ] {
        let s = simulate(&spec).unwrap();
        let tl = Timeline::new(&s);
        for kind in [EventKind::Forward, EventKind::Backward] {
            let drawn = tl.drawn(kind);
            let eps = s.makespan * 1e-6;
            let passes: Vec<_> = s
                .events
                .iter()
                .filter(|e| e.kind == kind && e.end > e.start)
                .collect();
            assert!(!passes.is_empty(), "{kind:?} in {:?}", spec.kind);
            for e in passes {
                assert!(
                    drawn.iter().any(|&(d, a, b)| d == e.device as usize && a <= e.start + eps && e.end <= b + eps),
                    "{kind:?} pass on GPU {} at {}–{} not drawn in its colour ({} events, aggregated {})",
                    e.device,
                    e.start,
                    e.end,
                    s.events.len(),
                    tl.aggregated
                );
            }
        }
    }
}

#[wasm_bindgen_test]
fn chart_mapping_round_trips() {
    let m = XMap {
        x0: 60,
        x1: 700,
        lo: 8.0,
        hi: 16.0,
        y0: 10,
        y1: 320,
        ylo: -3.0,
        yhi: 6.0,
    };
    let (x, y) = m.pixel(1.26e12, 6.8).unwrap();
    let p = m.params_at(x).unwrap();
    assert!((p / 1.26e12 - 1.0).abs() < 1e-9);
    assert!(y > 10.0 && y < 320.0);
    assert!(m.pixel(1e20, 1.0).is_none());
}

/// A plotters backend that records what is drawn: paths with their
/// colour, rectangles with their opacity, texts with their position.
struct Record {
    size: (u32, u32),
    log: std::rc::Rc<std::cell::RefCell<Log>>,
}

/// A filled rectangle: corners, colour, opacity.
type Rect = ((i32, i32), (i32, i32), (u8, u8, u8), f64);
/// A path and its colour.
type Path = (Vec<(i32, i32)>, (u8, u8, u8));

/// What a [`Record`] saw.
#[derive(Default)]
struct Log {
    rects: Vec<Rect>,
    texts: Vec<(String, i32, i32)>,
    paths: Vec<Path>,
}

/// `draw` on a recording backend of `size`: what it drew.
fn record<T>(
    size: (u32, u32),
    draw: impl FnOnce(&plotters::prelude::DrawingArea<Record, plotters::coord::Shift>) -> T,
) -> (T, Log) {
    use plotters::prelude::IntoDrawingArea;
    let log = std::rc::Rc::new(std::cell::RefCell::new(Log::default()));
    let area = Record {
        size,
        log: log.clone(),
    }
    .into_drawing_area();
    let out = draw(&area);
    drop(area);
    let log = std::rc::Rc::try_unwrap(log).ok().unwrap().into_inner();
    (out, log)
}

type Drawn = Result<(), plotters_backend::DrawingErrorKind<std::convert::Infallible>>;

impl plotters_backend::DrawingBackend for Record {
    type ErrorType = std::convert::Infallible;
    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }
    fn present(&mut self) -> Drawn {
        Ok(())
    }
    fn draw_pixel(&mut self, _: (i32, i32), _: plotters_backend::BackendColor) -> Drawn {
        Ok(())
    }
    fn draw_line<S: plotters_backend::BackendStyle>(
        &mut self,
        from: (i32, i32),
        to: (i32, i32),
        style: &S,
    ) -> Drawn {
        self.log
            .borrow_mut()
            .paths
            .push((vec![from, to], style.color().rgb));
        Ok(())
    }
    fn draw_rect<S: plotters_backend::BackendStyle>(
        &mut self,
        a: (i32, i32),
        b: (i32, i32),
        style: &S,
        fill: bool,
    ) -> Drawn {
        if fill {
            let c = style.color();
            self.log.borrow_mut().rects.push((a, b, c.rgb, c.alpha));
        }
        Ok(())
    }
    fn draw_path<S: plotters_backend::BackendStyle, I: IntoIterator<Item = (i32, i32)>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        let c = style.color().rgb;
        self.log
            .borrow_mut()
            .paths
            .push((path.into_iter().collect(), c));
        Ok(())
    }
    fn draw_text<T: plotters_backend::BackendTextStyle>(
        &mut self,
        text: &str,
        _: &T,
        pos: (i32, i32),
    ) -> Drawn {
        self.log
            .borrow_mut()
            .texts
            .push((text.to_string(), pos.0, pos.1));
        Ok(())
    }
    fn estimate_text_size<T: plotters_backend::BackendTextStyle>(
        &self,
        text: &str,
        _: &T,
    ) -> Result<(u32, u32), plotters_backend::DrawingErrorKind<std::convert::Infallible>> {
        Ok((7 * text.chars().count() as u32, 13))
    }
}

/// The scaling chart through plotters: every curve inside the plot, a
/// label per decade of parameters, and a legend inside the plot that
/// covers no axis label — with the methods' short names on a phone-wide
/// chart.
#[wasm_bindgen_test]
fn scaling_chart_keeps_its_legend_clear_of_the_labels() {
    use plan3d_core::state::Inputs;
    let (i, _) = Inputs::from_query("assume=paper");
    let rows = plan3d_core::planner::scaling(&i).unwrap();
    let colors: Vec<_> = rows
        .iter()
        .map(|(m, _)| {
            let c = plan3d_app::charts::method_color(*m);
            (c.0, c.1, c.2)
        })
        .collect();
    for width in [720, 330] {
        let (m, r) = record((width, 360), |a| {
            plan3d_app::charts::scaling(a, &rows, false)
        });
        let m = m.unwrap();
        let (x0, x1, y0, y1) = (m.x0, m.x1, m.y0, m.y1);
        let curves: Vec<_> = r.paths.iter().filter(|p| colors.contains(&p.1)).collect();
        // A curve per method, plus the legend's sample of each.
        assert_eq!(curves.len(), 2 * rows.len(), "{width}");
        for (l, _) in &curves {
            for &(x, y) in l {
                assert!(
                    x >= x0 && x <= x1 && y >= y0 && y <= y1,
                    "{width}: ({x}, {y}) outside {x0}..{x1} × {y0}..{y1}"
                );
            }
        }
        let decades: Vec<&str> = r
            .texts
            .iter()
            .filter(|t| t.0.starts_with("10") && t.0.chars().nth(2).is_some_and(|c| !c.is_ascii()))
            .map(|t| t.0.as_str())
            .collect();
        assert_eq!(decades.len() as f64, m.hi - m.lo + 1.0, "{decades:?}");
        // The legend's box: the translucent rectangle.
        let legend = r.rects.iter().find(|b| b.3 < 1.0 && b.3 > 0.0).unwrap();
        let ((lx0, ly0), (lx1, ly1)) = (legend.0, legend.1);
        assert!(
            lx0 >= x0 && lx1 <= x1 && ly0 >= y0 && ly1 <= y1,
            "{width}: {legend:?}"
        );
        for t in &r.texts {
            let inside = t.1 > lx0 && t.1 < lx1 && t.2 > ly0 && t.2 < ly1;
            let in_legend =
                t.0.contains("Megatron") || t.0.contains("ZeRO") || t.0.contains("layered");
            assert!(!inside || in_legend, "{width}: {} under the legend", t.0);
        }
        let full = r
            .texts
            .iter()
            .any(|t| t.0 == "layered + modular (Lamy-Poirier)");
        assert_eq!(full, width > 700, "{width}");
    }
}

/// The memory chart through plotters: each bar's stacked parts reach its
/// plan's total on the GiB axis, and the GPU's line sits at its memory.
#[wasm_bindgen_test]
fn memory_chart_bars_sum_to_their_totals() {
    use plan3d_core::{state::Inputs, units::GIB};
    let (i, _) = Inputs::from_query("assume=paper&model=x160");
    let out = plan3d_core::planner::outputs(&i).unwrap();
    let bars = plan3d_app::charts::memory_bars(&out);
    assert!(bars.len() >= 2);
    let gpu = out.hardware.gpu.memory.get();
    let (drawn, r) = record((720, 300), |a| {
        plan3d_app::charts::memory(a, &bars, gpu, false)
    });
    drawn.unwrap();
    // The bars' parts: the four category colours, below the legend strip.
    let parts = [
        (0x54, 0x70, 0xc6),
        (0x91, 0xcc, 0x75),
        (0xfa, 0xc8, 0x58),
        (0xee, 0x66, 0x66),
    ];
    let stacked: Vec<_> = r
        .rects
        .iter()
        .filter(|b| parts.contains(&b.2) && b.0 .1 > 30)
        .collect();
    // The zero line and the GPU's line in pixels: the red path.
    let red = r.paths.iter().find(|p| p.1 == (0xe0, 0x31, 0x31)).unwrap();
    let gpu_y = f64::from(red.0[0].1);
    let y_of = |b: &Rect| f64::from(b.1 .1);
    let bottom = stacked.iter().map(|b| y_of(b)).fold(f64::MIN, f64::max);
    for (k, (_, mem, offload)) in bars.iter().enumerate() {
        let total = mem
            .on_gpu_parts(*offload)
            .iter()
            .map(|b| b.get())
            .sum::<f64>();
        // This bar's parts: the k-th group of bars by left edge.
        let mut lefts: Vec<i32> = stacked.iter().map(|b| b.0 .0).collect();
        lefts.sort();
        lefts.dedup();
        let top = stacked
            .iter()
            .filter(|b| b.0 .0 == lefts[k])
            .map(|b| f64::from(b.0 .1))
            .fold(f64::MAX, f64::min);
        let ratio = (bottom - top) / (bottom - gpu_y);
        assert!(
            (ratio - total / gpu).abs() < 0.02 * (total / gpu).max(1.0) + 2.0 / (bottom - gpu_y),
            "bar {k}: {ratio} of the GPU's height, memory {} of {} GiB",
            total / GIB,
            gpu / GIB
        );
    }
}

/// On a phone-wide memory chart the names under the bars do not run into
/// each other, and the legend's four keys all fit, in two rows if need be.
#[wasm_bindgen_test]
fn memory_chart_fits_a_phone() {
    use plan3d_core::state::Inputs;
    let (i, _) = Inputs::from_query("model=llama-3.1-405b&gpu=h100-sxm&gpus=16384");
    let out = plan3d_core::planner::outputs(&i).unwrap();
    let bars = plan3d_app::charts::memory_bars(&out);
    assert_eq!(bars.len(), 3);
    let gpu = out.hardware.gpu.memory.get();
    for width in [720, 330] {
        let (drawn, r) = record((width, 300), |a| {
            plan3d_app::charts::memory(a, &bars, gpu, false)
        });
        drawn.unwrap();
        // The names under the bars: the texts below the plot, centred.
        let shown = || r.texts.iter().filter(|t| !t.0.is_empty());
        let bottom = shown().map(|t| t.2).max().unwrap();
        let mut names: Vec<(f64, f64)> = shown()
            .filter(|t| t.2 == bottom)
            .map(|t| {
                let half = 3.5 * t.0.chars().count() as f64;
                (f64::from(t.1) - half, f64::from(t.1) + half)
            })
            .collect();
        assert_eq!(names.len(), 3, "{width}");
        names.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in names.windows(2) {
            assert!(w[0].1 < w[1].0, "{width}: names overlap: {names:?}");
        }
        for key in ["state", "checkpoints", "buffers", "activations"] {
            let t = r.texts.iter().find(|t| t.0 == key).expect(key);
            assert!(
                t.1 + 7 * key.len() as i32 <= width as i32,
                "{width}: {key} at {}",
                t.1
            );
        }
    }
}

#[wasm_bindgen_test]
fn markup_is_morphed_in_place() {
    use plan3d_app::dom::morph;
    let doc = document();
    let table = doc.create_element("table").unwrap();
    let body = doc.create_element("tbody").unwrap();
    table.append_child(&body).unwrap();
    doc.body().unwrap().append_child(&table).unwrap();
    morph(
        &body,
        "<tr class=\"a\" title=\"t\"><td>1</td><td>x</td></tr><tr><td>2</td></tr>",
    );
    assert_eq!(
        body.inner_html(),
        "<tr class=\"a\" title=\"t\"><td>1</td><td>x</td></tr><tr><td>2</td></tr>"
    );
    let row = body.first_element_child().unwrap();
    let one = row.first_child().unwrap().first_child().unwrap();
    let x = row.last_child().unwrap().first_child().unwrap();
    // Changed text and attributes are written into the nodes that stay.
    let next =
        "<tr class=\"b\"><td>1</td><td>y</td></tr><tr><td>2</td><td>3</td></tr><tr><td>4</td></tr>";
    morph(&body, next);
    assert_eq!(body.inner_html(), next);
    let row2 = body.first_element_child().unwrap();
    assert!(row2.is_same_node(Some(&row)), "the first row is kept");
    let cells = row2.children();
    for (k, text) in [&one, &x].into_iter().enumerate() {
        let kept = cells.item(k as u32).and_then(|c| c.first_child());
        assert!(
            kept.is_some_and(|t| t.is_same_node(Some(text))),
            "cell {k}'s text is kept"
        );
    }
    assert_eq!(x.node_value().as_deref(), Some("y"));
    // Fewer rows, and a node of another name, replaced.
    morph(&body, "<tr><th>z</th></tr>");
    assert_eq!(body.inner_html(), "<tr><th>z</th></tr>");
    assert!(body.first_element_child().unwrap().is_same_node(Some(&row)));
    morph(&body, "");
    assert_eq!(body.child_element_count(), 0);
    table.remove();
}
