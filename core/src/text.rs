//! Numbers in words for people: the page's, the CLI's and the text
//! answers' one formatting (presentation only; every number comes from the
//! models). Moved here from the page so that the CLI's answer reads as the
//! page's headline does.

use alloc::{format, string::String, string::ToString};

use crate::math::round_sig;

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
        if i > 0 && (digits.len() - i) % 3 == 0 {
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

/// A byte count in GiB, 3 significant figures.
pub fn gib(bytes: f64) -> String {
    let g = bytes / crate::units::GIB;
    if g >= 1e4 {
        format!("{:.0}", g)
    } else {
        format!("{}", round_sig(g, 3))
    }
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

/// Seconds at three significant figures: 8.32 s, 0.412 s; past 1 000 s in
/// minutes or hours (72 min, not 4320 s).
pub fn seconds(s: f64) -> String {
    if s >= 7_200.0 {
        format!("{} h", round_sig(s / 3_600.0, 3))
    } else if s >= 1_000.0 {
        format!("{} min", round_sig(s / 60.0, 3))
    } else {
        format!("{} s", round_sig(s, 3))
    }
}

/// A span of time lost or waited, in the unit that reads best: 2.5 s,
/// 2.5 min, 13.6 h, 12.3 days (not "0.0422 h").
pub fn span(s: f64) -> String {
    if s < 90.0 {
        format!("{} s", round_sig(s, 2))
    } else if s < 5_400.0 {
        format!("{} min", round_sig(s / 60.0, 2))
    } else if s < 3.0 * 86_400.0 {
        format!("{} h", round_sig(s / 3_600.0, 3))
    } else {
        duration(s / 86_400.0)
    }
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
