//! plotters' canvas backend with text measured by the canvas itself.
//!
//! plotters measures text on wasm by appending a styled `<span>` to the
//! page and reading its size: a forced layout of the whole page per label
//! (~20 per chart, 2–3 ms a redraw here) and an inline `style` attribute
//! that a strict CSP has to allow. This wrapper answers
//! [`DrawingBackend::estimate_text_size`] with `measureText` on the
//! canvas's own 2D context instead, and passes everything else through.

use plotters::prelude::DrawingBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A [`CanvasBackend`] that measures text with `measureText`.
pub struct Canvas2d {
    inner: CanvasBackend,
    context: CanvasRenderingContext2d,
}

impl Canvas2d {
    /// The backend for `canvas`, if it has a 2D context.
    pub fn new(canvas: HtmlCanvasElement) -> Option<Self> {
        let context = canvas
            .get_context("2d")
            .ok()
            .flatten()?
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        Some(Self {
            inner: CanvasBackend::with_canvas_object(canvas)?,
            context,
        })
    }
}

/// plotters-canvas does not export its error type's name.
type CanvasError = <CanvasBackend as DrawingBackend>::ErrorType;
type Result<T = ()> = std::result::Result<T, DrawingErrorKind<CanvasError>>;

impl DrawingBackend for Canvas2d {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result {
        self.inner.draw_text(text, style, pos)
    }

    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Result<(u32, u32)> {
        // The font string CanvasBackend::draw_text sets.
        self.context.set_font(&format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        ));
        let m = self
            .context
            .measure_text(text)
            .map_err(|_| DrawingErrorKind::FontError("measureText failed".into()))?;
        let height = m.font_bounding_box_ascent() + m.font_bounding_box_descent();
        Ok((m.width().ceil() as u32, height.ceil() as u32))
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result {
        self.inner.blit_bitmap(pos, size, src)
    }
}
