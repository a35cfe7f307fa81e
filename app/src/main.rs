//! Mounts the page.

/// talc instead of dlmalloc: a smaller module and faster allocation.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

fn main() {
    // Panic messages in the console for development builds; the release
    // build leaves the hook out (1.1 KB of gzipped wasm, README budget).
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(plan3d_app::app::App);
    // Offline use: the service worker `cargo xtask build` generates. Under
    // `trunk serve` there is none, and the registration quietly fails.
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().service_worker().register("./sw.js");
    }
}
