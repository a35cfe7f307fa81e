//! Canvas sizing and contexts.
//!
//! Canvases are drawn in logical (CSS) pixels on a context scaled by the
//! device pixel ratio, and [`fit`] gives a canvas one pixel per device
//! pixel across its CSS width: labels keep their size on a phone instead
//! of shrinking with a 720-pixel drawing scaled to fit. Text is measured
//! with the canvas's own `measureText` ([`crate::paint`]), never with a
//! styled element in the page (a forced layout per label, and an inline
//! style a strict CSP would have to allow).

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
