//! Number formatting for the page (presentation only: every number comes
//! from plan3d-core).

use plan3d_core::round_sig;

/// Days as the paper prints them: one decimal below 100, whole days above.
pub fn days(d: f64) -> String {
    if !d.is_finite() {
        return "—".into();
    }
    if d < 0.1 {
        // Not "0.0003 days": seconds, minutes or hours.
        let s = d * 86_400.0;
        if s < 90.0 {
            format!("{} s", round_sig(s, 2))
        } else if s < 5_400.0 {
            format!("{} min", round_sig(s / 60.0, 2))
        } else {
            format!("{} h", round_sig(s / 3_600.0, 2))
        }
    } else if d < 100.0 {
        format!("{d:.1}")
    } else {
        format!("{d:.0}")
    }
}

/// A training time with its unit, switching to years past 3 years.
pub fn duration(d: f64) -> String {
    if d > 3.0 * 365.0 {
        format!("{} years", round_sig(d / 365.0, 3))
    } else if d < 0.1 {
        // days() gives seconds, minutes or hours there, with the unit.
        days(d)
    } else {
        format!("{} days", days(d))
    }
}

/// A count with thousands separators: 38,640.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A GPU count with its noun: "1 GPU", "38,640 GPUs".
pub fn gpus(n: u64) -> String {
    format!("{} GPU{}", count(n), if n == 1 { "" } else { "s" })
}

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
    let e = v.log10().round() as i32;
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

/// A byte count in GiB, 3 significant figures.
pub fn gib(bytes: f64) -> String {
    let g = bytes / plan3d_core::units::GIB;
    if g >= 1e4 {
        format!("{:.0}", g)
    } else {
        format!("{}", round_sig(g, 3))
    }
}

/// A bandwidth in GiB/s.
pub fn gibs(bytes_per_s: f64) -> String {
    format!(
        "{} GiB/s",
        round_sig(bytes_per_s / plan3d_core::units::GIB, 3)
    )
}

/// A parameter count: 1.26 T, 175 B, 340 M.
pub fn params(p: f64) -> String {
    let (v, u) = if p >= 1e15 {
        (p / 1e15, " P")
    } else if p >= 1e12 {
        (p / 1e12, " T")
    } else if p >= 1e9 {
        (p / 1e9, " B")
    } else if p >= 1e6 {
        (p / 1e6, " M")
    } else {
        (p, "")
    };
    // Four figures from 100 up: Llama 3.1 405B's 405.85 B reads "405.9 B",
    // not a "406 B" nobody calls it.
    format!("{}{u}", round_sig(v, if v >= 100.0 { 4 } else { 3 }))
}

/// Seconds at three significant figures: 8.32 s, 0.412 s.
pub fn seconds(s: f64) -> String {
    format!("{} s", round_sig(s, 3))
}

/// A large count in the units of [`params`] without a trailing unit word:
/// tokens, tokens per second (1.87 M, 15.6 T).
pub fn big(x: f64) -> String {
    if (1e3..1e6).contains(&x) {
        format!("{} k", round_sig(x / 1e3, 3))
    } else {
        params(x)
    }
}

/// A fraction as a percentage.
pub fn pct(x: f64) -> String {
    format!("{:.0} %", 100.0 * x)
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
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// Energy from MWh: "950 MWh", "41.5 GWh" (not "41.5 k MWh").
pub fn energy(mwh: f64) -> String {
    if mwh >= 1000.0 {
        format!("{} GWh", round_sig(mwh / 1000.0, 3))
    } else {
        format!("{} MWh", round_sig(mwh, 3))
    }
}

/// `s` with its first letter in upper case (a sentence that starts with a
/// method's name). ASCII only: `char::to_uppercase` would bring Unicode's
/// case tables into the page (+14 KB raw, +7 KB gzip, measured), and every
/// sentence the page starts this way begins with an ASCII letter.
pub fn capitalized(s: &str) -> String {
    let mut out = String::from(s);
    if let Some(first) = out.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    out
}
