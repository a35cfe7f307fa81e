//! Number formatting for the page (presentation only: every number comes
//! from plan3d-core).

use plan3d_core::round_sig;

pub use plan3d_core::text::{
    big, capitalized, count, days, duration, energy, gib, gpus, params, pct, seconds, span,
};

/// An axis tick: 2 significant figures, thousands separated, no
/// trailing zeros (0.01, 0.1, 1, 10, 100, 1,000): one style on an axis.
pub fn tick(v: f64) -> String {
    let r = round_sig(v, 2);
    if (1000.0..1e15).contains(&r) {
        count(r as u64)
    } else {
        format!("{r}")
    }
}

/// 10 to an integer power, with a superscript exponent: 10⁸.
pub fn power_of_ten(v: f64) -> String {
    let e = libm::log10(v).round() as i32;
    let sup: String = e
        .to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            d => "⁰¹²³⁴⁵⁶⁷⁸⁹"
                .chars()
                .nth(d.to_digit(10).unwrap_or(0) as usize)
                .unwrap_or(d),
        })
        .collect();
    format!("10{sup}")
}

/// A bandwidth in GiB/s.
pub fn gibs(bytes_per_s: f64) -> String {
    format!(
        "{} GiB/s",
        round_sig(bytes_per_s / plan3d_core::units::GIB, 3)
    )
}

/// What a scaled-down schedule shows of its plan, as a parenthesis (empty
/// when the plan is shown whole).
pub fn shown(s: &plan3d_core::planner::ShownScale) -> String {
    let (d, dall) = s.devices;
    let (m, mall) = s.micro_batches;
    match (d == dall, m == mall) {
        (true, true) => String::new(),
        (true, false) => format!(" as shown, with {m} of its {mall} micro-batches"),
        (false, _) => format!(
            " as shown, scaled down to {d} of its {dall} stages and {m} of its {mall} micro-batches (about the same bubble)"
        ),
    }
}

/// Text for markup: `&`, `<`, `>` and `"` escaped.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A round step for `n` ticks over `span`: 1, 2 or 5 × 10^k.
pub fn tick_step(span: f64, n: f64) -> f64 {
    let raw = span / n;
    let p = libm::pow(10.0, libm::log10(raw).floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}
