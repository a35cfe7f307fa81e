//! plan3d's page: a thin leptos shell. Every number comes from
//! `plan3d_core::planner`; this crate reads inputs, calls core, and draws.

mod app;
mod charts;
mod fmt;
mod timeline;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
