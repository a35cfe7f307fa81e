//! The browser around the page: the document, the URL, the colour scheme,
//! canvas refits and downloads. No formula lives here.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement as Canvas;

#[wasm_bindgen::prelude::wasm_bindgen(inline_js = r#"
// Morphs el's children into the markup html: nodes of the same kind and
// name are kept and only their changed text and attributes are written;
// the rest is replaced, added or removed.
function same(a, b) {
  let x = a.firstChild, y = b.firstChild;
  while (y) {
    const ny = y.nextSibling;
    if (!x) a.appendChild(y);
    else {
      const nx = x.nextSibling;
      if (x.nodeType !== y.nodeType || x.nodeName !== y.nodeName) a.replaceChild(y, x);
      else if (x.nodeType === 1) {
        const ya = y.attributes, xa = x.attributes;
        for (let i = 0; i < ya.length; i++) {
          const a = ya[i];
          if (x.getAttribute(a.name) !== a.value) x.setAttribute(a.name, a.value);
        }
        for (let i = xa.length - 1; i >= 0; i--) if (!y.hasAttribute(xa[i].name)) x.removeAttribute(xa[i].name);
        same(x, y);
      } else if (x.nodeValue !== y.nodeValue) x.nodeValue = y.nodeValue;
      x = nx;
    }
    y = ny;
  }
  while (x) { const nx = x.nextSibling; a.removeChild(x); x = nx; }
}
const t = document.createElement('template');
export function morph(el, html) { t.innerHTML = html; same(el, t.content); t.innerHTML = ''; }
"#)]
extern "C" {
    /// Sets `el`'s children to the markup `html`, keeping the nodes that
    /// stay and writing only what changed. Replacing them all
    /// (`innerHTML`) removed and re-added ~150 nodes per input change
    /// (the plans table, the run's figures and strip), each laid out
    /// anew; traced at 4× CPU throttling, that layout was ~11 ms of a
    /// size slider's change.
    #[wasm_bindgen::prelude::wasm_bindgen(js_name = morph)]
    fn morph_js(el: &web_sys::Element, html: &str);
}

/// Sets `el`'s children to the markup `html` as [`markup`] does: nodes of
/// the same kind and name are kept, only changed text and attributes are
/// written, the rest replaced, added or removed.
pub fn morph(el: &web_sys::Element, html: &str) {
    morph_js(el, html);
}

/// Keeps the content of the element with id `id` the markup `html`
/// returns: the markup of a table body or a card's figures (markup strings
/// are smaller in wasm than a view per element), morphed in place by an
/// effect, so that what did not change stays in the layout untouched.
/// One effect type for every caller (the element found by id, the markup
/// boxed): each generic copy cost wasm bytes.
pub fn markup(id: &'static str, html: impl Fn() -> String + 'static) {
    markup_boxed(id, Box::new(html));
}

fn markup_boxed(id: &'static str, html: Box<dyn Fn() -> String>) {
    Effect::new(move |last: Option<Option<String>>| {
        let h = html();
        let el = document().get_element_by_id(id)?;
        if last.flatten().as_ref() != Some(&h) {
            morph(&el, &h);
        }
        Some(h)
    });
}

/// Milliseconds since the page started (`performance.now()`).
pub fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// Runs `paint` after the effects already queued: the DOM updates of the
/// same input. Canvas text needs the page's style and layout up to date,
/// so a canvas drawn before the last DOM update of an input forces a
/// layout of its own, and the frame lays out again: traced on the size
/// slider, 2 layouts per change (2.8 ms) with the charts drawn in between.
pub fn after_updates(paint: impl FnOnce() + 'static) {
    leptos::task::spawn_local(async move { paint() });
}

thread_local! {
    /// The colour scheme, asked once ([`dark_mode`]) until it changes.
    static DARK: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Does the reader prefer a dark colour scheme? Asked of the browser once
/// (`matchMedia` cost every chart redraw ~0.05 ms), again after
/// [`scheme_changed`].
pub fn dark_mode() -> bool {
    DARK.with(|d| {
        d.get().unwrap_or_else(|| {
            let v = window()
                .match_media("(prefers-color-scheme: dark)")
                .ok()
                .flatten()
                .is_some_and(|m| m.matches());
            d.set(Some(v));
            v
        })
    })
}

/// The reader's colour scheme changed: [`dark_mode`] asks again.
pub fn scheme_changed() {
    DARK.with(|d| d.set(None));
}

/// The page's document.
pub fn document() -> web_sys::Document {
    window().document().expect("a document")
}

/// The page's address without its query: `https://host/path/`.
pub fn page_base() -> String {
    let l = window().location();
    format!(
        "{}{}",
        l.origin().unwrap_or_default(),
        l.pathname().unwrap_or_default()
    )
}

/// Is the page an embedded view (`?embed=`, in an iframe)? Charts are
/// drawn shorter there, so that a 600 × 400 frame shows them whole.
pub fn embedded() -> bool {
    document()
        .body()
        .is_some_and(|b| b.class_list().contains("p3-embedded"))
}

/// The URL's query, with its `?`.
pub fn search_string() -> String {
    window().location().search().unwrap_or_default()
}

/// Bumped when the window is resized or the colour scheme changes: canvases
/// are refitted ([`crate::backend::fit`]) and redrawn.
#[derive(Clone, Copy)]
pub struct Relayout(pub RwSignal<u32>);

/// The page's relayout epoch (a fresh one outside the page).
pub fn relayout() -> RwSignal<u32> {
    use_context::<Relayout>().map_or_else(|| RwSignal::new(0), |r| r.0)
}

/// Fits `canvases` (with their CSS heights) when `epoch` has moved on since
/// `fitted`; not before one of them is on the page (some are not, in an
/// embedded view).
pub fn refit(fitted: StoredValue<Option<u32>>, epoch: u32, canvases: &[(ById<Canvas>, f64)]) {
    if fitted.get_value() == Some(epoch) {
        return;
    }
    let mut any = false;
    for (node, h) in canvases {
        if let Some(c) = node.get() {
            crate::backend::fit(&c, *h);
            any = true;
        }
    }
    if any {
        fitted.set_value(Some(epoch));
    }
}

/// Offers `href` as a download named `name` (a link clicked by script).
pub fn click_download(name: &str, href: &str) {
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
pub fn download_text(name: &str, mime: &str, text: &str) {
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
pub fn download_canvas(testid: &str, name: &str) {
    if let Some(c) = canvas_by_testid(testid) {
        if let Ok(url) = c.to_data_url() {
            click_download(name, &url);
        }
    }
}

/// The canvas with `data-testid` `testid`, if any.
pub fn canvas_by_testid(testid: &str) -> Option<web_sys::HtmlCanvasElement> {
    document()
        .query_selector(&format!("[data-testid={testid}]"))
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok())
}

/// Sets `flag` while `el` is within 300 px of the viewport. An
/// `IntersectionObserver` says when to look (no polling; it also sees the
/// card move when the content above it changes height); the rectangle
/// says what it sees (one closure type for every callback of the page).
pub fn watch_in_view(el: &web_sys::Element, flag: RwSignal<bool>) {
    const MARGIN: f64 = 300.0;
    let target = el.clone();
    let cb = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
        let r = target.get_bounding_client_rect();
        let h = window()
            .inner_height()
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        let v = r.bottom() > -MARGIN && r.top() < h + MARGIN;
        if v != flag.get_untracked() {
            flag.set(v);
        }
    });
    let init = web_sys::IntersectionObserverInit::new();
    init.set_root_margin("300px 0px");
    if let Ok(io) =
        web_sys::IntersectionObserver::new_with_options(cb.as_ref().unchecked_ref(), &init)
    {
        io.observe(el);
    }
    // Lives as long as the page.
    cb.forget();
}

/// Calls `f` on each of the window's `event`s, for as long as the page
/// lives.
pub fn on_window(event: &str, f: impl Fn() + 'static) {
    let cb = wasm_bindgen::closure::Closure::<dyn Fn()>::new(f);
    let _ = window().add_event_listener_with_callback(event, cb.as_ref().unchecked_ref());
    cb.forget();
}

/// An element of the page found by its `id`: the handle the charts keep to
/// their canvases and cards. Leptos's `NodeRef` does the same reactively,
/// but its thread check brings `std::thread::current` into the wasm
/// (~2 KB gzip); a card's effects run once it is mounted, so a look-up by
/// id finds it.
pub struct ById<E>(pub &'static str, core::marker::PhantomData<E>);

impl<E> Clone for ById<E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for ById<E> {}

impl<E: JsCast> ById<E> {
    /// The element with id `id`, typed as `E`.
    pub const fn new(id: &'static str) -> Self {
        Self(id, core::marker::PhantomData)
    }
    /// The element, when it is on the page.
    pub fn get(&self) -> Option<E> {
        document().get_element_by_id(self.0)?.dyn_into().ok()
    }
}
