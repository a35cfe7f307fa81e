//! The notices: corrections the page made to its inputs, in words.

use leptos::prelude::*;
use plan3d_core::state::Notice;

/// The notices, read out politely to screen readers: values the page did
/// not use as given (from the URL or a field), and corrections the plans
/// make (`planner::corrections`).
#[component]
pub fn NoticeList(notices: RwSignal<Vec<Notice>>, corrections: Memo<Vec<Notice>>) -> impl IntoView {
    view! {
        <div class="p3-notices" role="status" aria-live="polite" data-testid="notices">
            {move || {
                notices
                    .get()
                    .into_iter()
                    .chain(corrections.get())
                    .map(|n| view! { <p class="p3-notice">{n.to_string()}</p> })
                    .collect_view()
            }}
        </div>
    }
}
