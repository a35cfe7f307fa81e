//! plan3d's page: a thin leptos shell. Every number comes from
//! `plan3d_core::planner`; this crate reads inputs, calls core, and draws.

pub mod app;
pub mod backend;
pub mod charts;
pub mod components;
pub mod dom;
pub mod fmt;
pub mod timeline;
