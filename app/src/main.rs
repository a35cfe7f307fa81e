//! Mounts the page.

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(plan3d_app::app::App);
    // Offline use: the service worker `cargo xtask build` generates. Under
    // `trunk serve` there is none, and the registration quietly fails.
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().service_worker().register("./sw.js");
    }
}
