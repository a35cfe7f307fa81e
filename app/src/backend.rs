//! Canvas sizing, and plotters' canvas backend with text measured by the
//! canvas itself.
//!
//! Canvases are drawn in logical (CSS) pixels on a context scaled by the
//! device pixel ratio, and [`fit`] gives a canvas one pixel per device
//! pixel across its CSS width: labels keep their size on a phone instead
//! of shrinking with a 720-pixel drawing scaled to fit.
//!
//! plotters measures text on wasm by appending a styled `<span>` to the
//! page and reading its size: a forced layout of the whole page per label
//! (~20 per chart, 2–3 ms a redraw measured here) and an inline `style`
//! that a strict CSP has to allow. [`Measured`] answers
//! [`DrawingBackend::estimate_text_size`] with `measureText` on a canvas
//! outside the page instead, and passes everything else through to
//! plotters-canvas's `CanvasBackend` or plotters' `SVGBackend`.

use plotters::prelude::{DrawingBackend, SVGBackend};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// Device pixels per CSS pixel, within reason.
pub fn pixel_ratio() -> f64 {
    web_sys::window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .clamp(1.0, 4.0)
}

/// A canvas's size in logical pixels: its pixels over the pixel ratio.
pub fn logical_size(canvas: &HtmlCanvasElement) -> (f64, f64) {
    let r = pixel_ratio();
    (
        f64::from(canvas.width()) / r,
        f64::from(canvas.height()) / r,
    )
}

/// Scales `context` so that drawing is in logical pixels.
pub fn scale_context(context: &CanvasRenderingContext2d) {
    let r = pixel_ratio();
    let _ = context.set_transform(r, 0.0, 0.0, r, 0.0, 0.0);
}

/// Gives `canvas` one pixel per device pixel across its CSS width and
/// `css_height` CSS pixels of height (with `height: auto` in CSS, the
/// height follows). Reads the layout: call it on mount and on resize, not
/// per frame. Returns whether the canvas changed (and so was cleared).
pub fn fit(canvas: &HtmlCanvasElement, css_height: f64) -> bool {
    let css_width = f64::from(canvas.client_width());
    if css_width <= 0.0 {
        return false;
    }
    let r = pixel_ratio();
    let (w, h) = (
        (css_width * r).round().min(8192.0) as u32,
        (css_height * r).round().min(8192.0) as u32,
    );
    if (canvas.width(), canvas.height()) == (w, h) {
        return false;
    }
    canvas.set_width(w);
    canvas.set_height(h);
    true
}

/// The 2D context of `canvas`, if it has one.
pub fn context_of(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()?
        .dyn_into::<CanvasRenderingContext2d>()
        .ok()
}

/// A plotters backend whose text is measured with a canvas's `measureText`:
/// a [`CanvasBackend`] drawing in logical pixels ([`Measured::canvas`]), or
/// the SVG exports' backend ([`Measured::svg`]). One type for both, so the
/// charts are compiled once, not once per backend (that copy cost ~3 KB of
/// gzipped wasm).
pub struct Measured<'a> {
    inner: Inner<'a>,
    size: (u32, u32),
}

thread_local! {
    /// A detached canvas's context, and the font last set on it. Setting
    /// `font` on a canvas in the page resolves it against the canvas's
    /// computed style, which first brings the whole page's style up to
    /// date: measured here, that forced style pass was ~13 ms of a size
    /// slider's change at 4× CPU throttling, a third of its script. A
    /// canvas outside the page has no style to bring up to date.
    static MEASURE: Option<(CanvasRenderingContext2d, std::cell::RefCell<String>)> =
        detached_context().map(|c| (c, std::cell::RefCell::new(String::new())));
}

/// The 2D context of a new canvas that is never put in the page.
fn detached_context() -> Option<CanvasRenderingContext2d> {
    let canvas = web_sys::window()?
        .document()?
        .create_element("canvas")
        .ok()?
        .dyn_into::<HtmlCanvasElement>()
        .ok()?;
    context_of(&canvas)
}

enum Inner<'a> {
    Canvas(CanvasBackend),
    Svg(SVGBackend<'a>),
}

/// The canvas backend the charts draw with.
pub type Canvas2d = Measured<'static>;

impl Measured<'static> {
    /// The backend for `canvas`, if it has a 2D context.
    pub fn canvas(canvas: HtmlCanvasElement) -> Option<Self> {
        let context = context_of(&canvas)?;
        scale_context(&context);
        let (w, h) = logical_size(&canvas);
        Some(Self {
            inner: Inner::Canvas(CanvasBackend::with_canvas_object(canvas)?),
            size: (w as u32, h as u32),
        })
    }
}

impl<'a> Measured<'a> {
    /// An SVG drawing of `size` into `out`.
    pub fn svg(out: &'a mut String, size: (u32, u32)) -> Option<Self> {
        Some(Self {
            inner: Inner::Svg(SVGBackend::with_string(out, size)),
            size,
        })
    }
}

/// A drawing failed in the canvas or the SVG backend.
#[derive(Debug)]
pub struct DrawError;

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("drawing failed")
    }
}

impl std::error::Error for DrawError {}

type Result<T> = std::result::Result<T, DrawingErrorKind<DrawError>>;

fn conv<T, E: std::error::Error + Send + Sync>(
    r: std::result::Result<T, DrawingErrorKind<E>>,
) -> Result<T> {
    r.map_err(|e| match e {
        DrawingErrorKind::DrawingError(_) => DrawingErrorKind::DrawingError(DrawError),
        DrawingErrorKind::FontError(f) => DrawingErrorKind::FontError(f),
    })
}

/// Calls the same method on whichever backend is inside.
macro_rules! each {
    ($self:ident, $b:ident => $call:expr) => {
        match &mut $self.inner {
            Inner::Canvas($b) => conv($call),
            Inner::Svg($b) => conv($call),
        }
    };
}

impl DrawingBackend for Measured<'_> {
    type ErrorType = DrawError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<()> {
        each!(self, b => b.ensure_prepared())
    }

    fn present(&mut self) -> Result<()> {
        each!(self, b => b.present())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<()> {
        each!(self, b => b.draw_pixel(point, color))
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<()> {
        each!(self, b => b.draw_line(from, to, style))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<()> {
        each!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<()> {
        each!(self, b => b.draw_path(path, style))
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<()> {
        each!(self, b => b.draw_circle(center, radius, style, fill))
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<()> {
        each!(self, b => b.fill_polygon(vert, style))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<()> {
        each!(self, b => b.draw_text(text, style, pos))
    }

    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Result<(u32, u32)> {
        // The font string CanvasBackend::draw_text sets.
        let font = format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        );
        let failed = || DrawingErrorKind::FontError("measureText failed".into());
        MEASURE.with(|m| {
            let (context, last) = m.as_ref().ok_or_else(failed)?;
            if *last.borrow() != font {
                context.set_font(&font);
                *last.borrow_mut() = font;
            }
            let m = context.measure_text(text).map_err(|_| failed())?;
            let height = m.font_bounding_box_ascent() + m.font_bounding_box_descent();
            Ok((m.width().ceil() as u32, height.ceil() as u32))
        })
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<()> {
        each!(self, b => b.blit_bitmap(pos, size, src))
    }
}
