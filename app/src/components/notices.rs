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

/// The page's notices, for the fields to show their own beside them
/// (provided as a context by the app).
#[derive(Clone, Copy)]
pub struct Notes {
    /// Values not used as given.
    pub notices: RwSignal<Vec<Notice>>,
    /// Corrections the plans make.
    pub corrections: Memo<Vec<Notice>>,
}

/// The URL keys a field answers for.
#[derive(Clone, Copy)]
pub enum Keys {
    /// One key.
    One(&'static str),
    /// Several (a field that sets more than one key).
    Many(&'static [&'static str]),
}

impl Keys {
    fn has(self, k: &str) -> bool {
        match self {
            Self::One(x) => x == k,
            Self::Many(xs) => xs.contains(&k),
        }
    }
}

/// The notices about `keys`, beside their field: an error is said where it
/// was typed, not only at the top of the page.
pub fn field_notes(keys: Keys) -> impl IntoView {
    let notes = use_context::<Notes>();
    move || {
        let Some(n) = notes else {
            return Vec::new();
        };
        let mut v: Vec<String> = Vec::new();
        let mut take = |list: &Vec<Notice>| {
            v.extend(
                list.iter()
                    .filter(|x| keys.has(&x.key))
                    .map(Notice::beside_field),
            );
        };
        n.notices.with(&mut take);
        n.corrections.with(&mut take);
        v.into_iter()
            .map(|t| view! { <p class="p3-field-note" data-testid="field-note">{t}</p> })
            .collect::<Vec<_>>()
    }
}
