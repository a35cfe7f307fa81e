//! The notices: corrections the page made to its inputs, in words.

use leptos::prelude::*;
use plan3d_core::state::Notice;

/// The notices, read out politely to screen readers.
#[component]
pub fn NoticeList(notices: RwSignal<Vec<Notice>>) -> impl IntoView {
    view! {
        <div class="p3-notices" role="status" aria-live="polite" data-testid="notices">
            {move || {
                notices
                    .get()
                    .into_iter()
                    .map(|n| view! { <p class="p3-notice">{n.to_string()}</p> })
                    .collect_view()
            }}
        </div>
    }
}
