//! A painter for the charts drawn by hand: a canvas's 2D context, or an
//! SVG document for the exports. The memory bars and the scaling chart
//! use it instead of plotters: plotters' f64 cartesian chart cost ~11 KB
//! of wasm for the memory chart alone and ~1.3 ms a redraw; without the
//! scaling chart on it too, the page no longer links plotters at all.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// Where text is anchored horizontally (vertically it is centred).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// At its start.
    Start,
    /// At its middle.
    Middle,
    /// At its end.
    End,
}

/// The labels' font.
pub const FONT: &str = "13px sans-serif";

/// Rectangles and text in logical pixels.
pub trait Paint {
    /// Width and height, logical pixels.
    fn size(&self) -> (f64, f64);
    /// A filled rectangle.
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str);
    /// One line of text at (x, y), centred vertically.
    fn text(&mut self, s: &str, x: f64, y: f64, fill: &str, anchor: Anchor);
    /// A polyline through `points`, `width` logical pixels wide.
    fn line(&mut self, points: &[(f64, f64)], stroke: &str, width: f64);
    /// A text's width in [`FONT`].
    fn width(&self, s: &str) -> f64;
}

/// A canvas, scaled to logical pixels.
pub struct Canvas {
    ctx: CanvasRenderingContext2d,
    size: (f64, f64),
}

impl Canvas {
    /// The painter of `canvas`, if it has a 2D context.
    pub fn new(canvas: &HtmlCanvasElement) -> Option<Self> {
        let ctx = crate::backend::context_of(canvas)?;
        crate::backend::scale_context(&ctx);
        ctx.set_font(FONT);
        ctx.set_text_baseline("middle");
        Some(Self {
            ctx,
            size: crate::backend::logical_size(canvas),
        })
    }
}

impl Paint for Canvas {
    fn size(&self) -> (f64, f64) {
        self.size
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        self.ctx.set_fill_style_str(fill);
        self.ctx.fill_rect(x, y, w, h);
    }
    fn text(&mut self, s: &str, x: f64, y: f64, fill: &str, anchor: Anchor) {
        self.ctx.set_fill_style_str(fill);
        self.ctx.set_text_align(match anchor {
            Anchor::Start => "start",
            Anchor::Middle => "center",
            Anchor::End => "end",
        });
        let _ = self.ctx.fill_text(s, x, y);
    }
    fn line(&mut self, points: &[(f64, f64)], stroke: &str, width: f64) {
        let ctx = &self.ctx;
        ctx.begin_path();
        for (i, &(x, y)) in points.iter().enumerate() {
            if i == 0 {
                ctx.move_to(x, y);
            } else {
                ctx.line_to(x, y);
            }
        }
        ctx.set_stroke_style_str(stroke);
        ctx.set_line_width(width);
        ctx.stroke();
    }
    fn width(&self, s: &str) -> f64 {
        self.ctx.measure_text(s).map_or(0.0, |m| m.width())
    }
}

/// An SVG document; text is measured on a detached canvas.
pub struct Svg {
    out: String,
    size: (f64, f64),
    measure: Option<CanvasRenderingContext2d>,
}

impl Svg {
    /// An empty document of `size` logical pixels.
    pub fn new(size: (f64, f64)) -> Self {
        let measure = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.create_element("canvas").ok())
            .and_then(|c| c.dyn_into::<HtmlCanvasElement>().ok())
            .and_then(|c| crate::backend::context_of(&c));
        if let Some(m) = &measure {
            m.set_font(FONT);
        }
        Self {
            out: String::new(),
            size,
            measure,
        }
    }

    /// The document.
    pub fn finish(self) -> String {
        let (w, h) = self.size;
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"13\">{}</svg>",
            self.out
        )
    }
}

impl Paint for Svg {
    fn size(&self) -> (f64, f64) {
        self.size
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        self.out.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" fill=\"{fill}\"/>"
        ));
    }
    fn text(&mut self, s: &str, x: f64, y: f64, fill: &str, anchor: Anchor) {
        let anchor = match anchor {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        };
        let s = crate::fmt::esc(s);
        self.out.push_str(&format!(
            "<text x=\"{x:.1}\" y=\"{y:.1}\" fill=\"{fill}\" text-anchor=\"{anchor}\" dominant-baseline=\"middle\">{s}</text>"
        ));
    }
    fn line(&mut self, points: &[(f64, f64)], stroke: &str, width: f64) {
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        self.out.push_str(&format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{width}\"/>",
            pts.join(" ")
        ));
    }
    fn width(&self, s: &str) -> f64 {
        self.measure
            .as_ref()
            .and_then(|m| m.measure_text(s).ok())
            .map_or(7.0 * s.chars().count() as f64, |m| m.width())
    }
}
