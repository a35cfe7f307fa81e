//! The calibration profile of the user's own GPU (`plan3d calibrate`):
//! loaded from a file chosen or dropped on its field (a file input takes
//! a dropped file as it is), kept in
//! this browser's localStorage, checked and fitted on the GPU chosen
//! whenever the link says `prof=custom`. The profile itself never enters
//! the URL: a shared link says it was made with one, and a browser
//! without it says so and uses the preset.
//!
//! The check and the fit are core's (`api::calibrate`), run by the
//! JavaScript API's module (`api/plan3d.js`), imported the first time a
//! profile is used: in the page's own wasm they would cost ~6 KB gzip of
//! its 300 KB budget for what few visitors use.

use leptos::prelude::*;
use plan3d_core::hardware::Hardware;
use plan3d_core::state::Inputs;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::components::share::local_storage;

#[wasm_bindgen(inline_js = r#"
let api;
// Checks and fits a profile's JSON text on a GPU (the JSON door's
// `calibrate`): [device, sms, BF16 ceiling, FP8 ceiling, attention forward,
// backward, memory, NVLink and network bus efficiencies], or a thrown
// Error in words.
export async function fit_profile(text, gpu, node, network) {
  if (!api) {
    api = await import(new URL("api/plan3d.js", document.baseURI).href);
    await api.default();
  }
  let profile;
  try { profile = JSON.parse(text); } catch (e) { throw new Error("not a calibration profile: the file is not JSON"); }
  const req = { gpu, network, profile };
  if (node > 0) req.node_size = node; else req.no_node_limit = true;
  const r = JSON.parse(api.callJson("calibrate", JSON.stringify(req)));
  return [r.device, r.sms, r.ceiling_bf16[0], r.ceiling_fp8[0], r.attention_forward[0],
          r.attention_backward[0], r.memory[0], r.bus_efficiency[0], r.network_efficiency[0]];
}
"#)]
extern "C" {
    #[wasm_bindgen(catch)]
    fn fit_profile(
        text: &str,
        gpu: &str,
        node: u32,
        network: &str,
    ) -> Result<js_sys::Promise, JsValue>;
}

/// The localStorage key of the held profile's JSON text.
const KEY: &str = "plan3d-profile";

/// The held profile's text and what the page says of it.
#[derive(Clone, Copy)]
pub struct Held {
    /// The profile's JSON text, as loaded.
    pub text: RwSignal<Option<String>>,
    /// Its device, or why it is not used.
    pub status: RwSignal<String>,
    /// Profiles loaded so far (a new one is fitted on the same hardware).
    loads: RwSignal<u32>,
}

impl Default for Held {
    /// The profile this browser keeps, read once.
    fn default() -> Self {
        let text = local_storage().and_then(|s| s.get_item(KEY).ok().flatten());
        Self {
            text: RwSignal::new(text),
            status: RwSignal::new(String::new()),
            loads: RwSignal::new(0),
        }
    }
}

impl Held {
    /// Fits the held profile on the GPU chosen whenever the link asks
    /// for it (`prof=custom`), the GPU, node or network change, or a
    /// profile is loaded: the page then computes with it.
    pub fn follow(self, inputs: RwSignal<Inputs>) {
        // What the last run fitted for: an input that changes none of it
        // (most do) costs a comparison, and no signal is written.
        let last = StoredValue::new(None::<(bool, Hardware, bool, u32)>);
        Effect::new(move |_| {
            let (want, hw) = inputs.with(|i| (i.custom_profile, i.hardware()));
            let held = self.text.with(Option::is_some);
            let key = Some((want, hw, held, self.loads.get()));
            if last.get_value() == key {
                return;
            }
            last.set_value(key);
            let say = |s: &str| {
                if self.status.with_untracked(|x| x != s) {
                    self.status.set(s.to_string());
                }
            };
            let text = if want {
                self.text.get_untracked()
            } else {
                None
            };
            let Some(text) = text else {
                say(match (want, held) {
                    (true, _) => "this link was made with a calibration profile this browser does not hold: the preset's curves are used",
                    (false, true) => "held in this browser, not used: the GPU preset's measured curves",
                    (false, false) => "none: the GPU preset's measured curves",
                });
                if inputs.with_untracked(|i| i.calibration.is_some()) {
                    inputs.update(|i| i.calibration = None);
                }
                return;
            };
            leptos::task::spawn_local(async move {
                let cal = match fit(&text, &hw).await {
                    Ok((c, device)) => {
                        self.status.set(format!("in use: {device}"));
                        Some(c)
                    }
                    Err(e) => {
                        self.status
                            .set(format!("not used on the {}: {e}", hw.gpu.name));
                        None
                    }
                };
                // Still the hardware it was fitted for?
                if inputs.with_untracked(|i| i.hardware() == hw && i.calibration != cal) {
                    inputs.update(|i| i.calibration = cal);
                }
            });
        });
    }

    /// Takes a profile's text: checked and fitted on the GPU chosen,
    /// then kept in this browser and used (`prof=custom`), or refused in
    /// words (the profile held before stays).
    fn take(
        self,
        text: String,
        hw: Hardware,
        set: impl Fn(bool, Box<dyn FnOnce(&mut Inputs)>) + Copy + 'static,
    ) {
        leptos::task::spawn_local(async move {
            if let Err(e) = fit(&text, &hw).await {
                self.status.set(format!("not loaded: {e}"));
                return;
            }
            if let Some(s) = local_storage() {
                let _ = s.set_item(KEY, &text);
            }
            self.loads.update(|n| *n += 1);
            self.text.set(Some(text));
            set(true, Box::new(|i| i.custom_profile = true));
        });
    }

    /// Reads the first file of `files` and takes it.
    fn read(
        self,
        files: Option<web_sys::FileList>,
        hw: Hardware,
        set: impl Fn(bool, Box<dyn FnOnce(&mut Inputs)>) + Copy + 'static,
    ) {
        let Some(file) = files.and_then(|f| f.get(0)) else {
            return;
        };
        // A FileReader's callback, not Blob.text()'s promise: no futures
        // executor in the page's wasm.
        let Ok(reader) = web_sys::FileReader::new() else {
            return;
        };
        let r = reader.clone();
        let done = wasm_bindgen::closure::Closure::once_into_js(move || {
            match r.result().ok().and_then(|v| v.as_string()) {
                Some(text) => self.take(text, hw, set),
                None => self
                    .status
                    .set("not loaded: the file could not be read".into()),
            }
        });
        reader.set_onloadend(Some(done.unchecked_ref()));
        if reader.read_as_text(&file).is_err() {
            self.status
                .set("not loaded: the file could not be read".into());
        }
    }
}

/// The profile's fields, under the GPU: load one (or drop it on the
/// Hardware fields), use it or the preset, forget it.
#[component]
pub fn ProfileField(
    inputs: RwSignal<Inputs>,
    set: impl Fn(bool, Box<dyn FnOnce(&mut Inputs)>) + Copy + Send + Sync + 'static,
    held: Held,
) -> impl IntoView {
    let has = move || held.text.with(Option::is_some);
    view! {
        <div class="p3-profile" data-testid="profile">
            <label for="p3-profile-file">"Calibration profile ("<code>"plan3d calibrate"</code>"): load or drop"</label>
            <input id="p3-profile-file" data-testid="profile-file" type="file" accept=".json,application/json"
                on:change=move |e| {
                    let files = e
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                        .and_then(|i| i.files());
                    held.read(files, inputs.with_untracked(Inputs::hardware), set);
                } />
            <p class="p3-note" data-testid="profile-status">
                {move || held.status.get()}
                <button type="button" class="p3-link" data-testid="profile-use"
                    class:p3-hidden=move || !has() || inputs.with(|i| i.custom_profile)
                    on:click=move |_| set(true, Box::new(|i| i.custom_profile = true))>" use it"</button>
                <button type="button" class="p3-link" class:p3-hidden=move || !has()
                    data-testid="profile-forget"
                    on:click=move |_| {
                        if let Some(s) = local_storage() {
                            let _ = s.remove_item(KEY);
                        }
                        held.text.set(None);
                        set(true, Box::new(|i| i.custom_profile = false));
                    }>" forget it"</button>
            </p>
        </div>
    }
}

/// A profile's text checked and fitted on `hw` (see the module's doc):
/// the fitted numbers ([`plan3d_core::cost::profile::Calibration::fitted`])
/// and the device it was measured on, or why not.
async fn fit(text: &str, hw: &Hardware) -> Result<([f64; 8], String), String> {
    let why = |e: JsValue| {
        e.dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "the calibration module could not be loaded".into())
    };
    let promise = fit_profile(
        text,
        hw.gpu.name,
        hw.node_size.unwrap_or(0),
        hw.network.name(),
    )
    .map_err(why)?;
    let r: js_sys::Array = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(why)?
        .unchecked_into();
    let mut x = [0.0; 8];
    for (i, v) in x.iter_mut().enumerate() {
        *v = r.get(i as u32 + 1).as_f64().unwrap_or(0.0);
    }
    Ok((x, r.get(0).as_string().unwrap_or_default()))
}
