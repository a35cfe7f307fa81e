//! Typed quantities, so that bytes never meet flop/s by accident.
//!
//! # Conventions
//!
//! * [`Bytes`] and [`BytesPerSec`] hold plain bytes. The paper writes "GB"
//!   but means GiB (2^30 bytes) for every memory and bandwidth figure
//!   (MODEL_NOTES fact 1); [`Bytes::gib`] and [`BytesPerSec::from_gib_per_s`]
//!   make that reading explicit. Newer vendor figures are decimal
//!   ([`BytesPerSec::from_gb_per_s`]).
//! * Bandwidths are "input + output" totals, as in Table A.1.
//! * [`Flop`] is an amount of work, [`FlopPerSec`] a rate; compute is always
//!   decimal (312 Tflop/s = 312e12).
//! * [`Intensity`] is an arithmetic intensity in flop per byte.

use core::ops::{Add, AddAssign, Div, Mul, Sub};

/// Bytes in a GiB, the paper's "GB".
pub const GIB: f64 = 1_073_741_824.0;
/// Bytes in a decimal GB, the unit of vendors' data sheets.
pub const GB: f64 = 1e9;
/// Seconds in a day.
pub const DAY: f64 = 86_400.0;
/// Days in a year, as the paper counts them (MODEL_NOTES fact 5).
pub const DAYS_PER_YEAR: f64 = 365.0;

macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(transparent))]
        pub struct $name(pub f64);

        impl $name {
            /// The raw value in the type's base unit.
            #[must_use]
            pub const fn get(self) -> f64 {
                self.0
            }
        }

        impl Add for $name {
            type Output = Self;
            fn add(self, rhs: Self) -> Self {
                Self(self.0 + rhs.0)
            }
        }

        impl AddAssign for $name {
            fn add_assign(&mut self, rhs: Self) {
                self.0 += rhs.0;
            }
        }

        impl Sub for $name {
            type Output = Self;
            fn sub(self, rhs: Self) -> Self {
                Self(self.0 - rhs.0)
            }
        }

        impl Mul<f64> for $name {
            type Output = Self;
            fn mul(self, rhs: f64) -> Self {
                Self(self.0 * rhs)
            }
        }

        impl Div<f64> for $name {
            type Output = Self;
            fn div(self, rhs: f64) -> Self {
                Self(self.0 / rhs)
            }
        }

        impl core::iter::Sum for $name {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                Self(iter.map(|x| x.0).sum())
            }
        }
    };
}

quantity!(
    /// An amount of memory, in bytes.
    Bytes
);
quantity!(
    /// A bandwidth, in bytes per second (input + output).
    BytesPerSec
);
quantity!(
    /// An amount of computation, in floating-point operations.
    Flop
);
quantity!(
    /// A compute rate, in floating-point operations per second.
    FlopPerSec
);
quantity!(
    /// A duration, in seconds.
    Seconds
);
quantity!(
    /// An arithmetic intensity, in flop per byte (sec. 2.3).
    Intensity
);

impl Bytes {
    /// From GiB (the paper's "GB").
    #[must_use]
    pub fn from_gib(gib: f64) -> Self {
        Self(gib * GIB)
    }
    /// From decimal GB.
    #[must_use]
    pub fn from_gb(gb: f64) -> Self {
        Self(gb * GB)
    }
    /// In GiB (the paper's "GB").
    #[must_use]
    pub fn gib(self) -> f64 {
        self.0 / GIB
    }
}

impl BytesPerSec {
    /// From GiB/s (the paper's "GB/s").
    #[must_use]
    pub fn from_gib_per_s(x: f64) -> Self {
        Self(x * GIB)
    }
    /// From decimal GB/s (vendor data sheets).
    #[must_use]
    pub fn from_gb_per_s(x: f64) -> Self {
        Self(x * GB)
    }
    /// In GiB/s (the paper's "GB/s").
    #[must_use]
    pub fn gib_per_s(self) -> f64 {
        self.0 / GIB
    }
}

impl Seconds {
    /// In days.
    #[must_use]
    pub fn days(self) -> f64 {
        self.0 / DAY
    }
    /// In years of 365 days.
    #[must_use]
    pub fn years(self) -> f64 {
        self.days() / DAYS_PER_YEAR
    }
    /// From days.
    #[must_use]
    pub fn from_days(days: f64) -> Self {
        Self(days * DAY)
    }
}

/// Compute rate over bandwidth: the arithmetic-intensity threshold of a link.
impl Div<BytesPerSec> for FlopPerSec {
    type Output = Intensity;
    fn div(self, rhs: BytesPerSec) -> Intensity {
        Intensity(self.0 / rhs.0)
    }
}

/// Work over data moved: an operation's arithmetic intensity.
impl Div<Bytes> for Flop {
    type Output = Intensity;
    fn div(self, rhs: Bytes) -> Intensity {
        Intensity(self.0 / rhs.0)
    }
}

/// Work over rate: a duration.
impl Div<FlopPerSec> for Flop {
    type Output = Seconds;
    fn div(self, rhs: FlopPerSec) -> Seconds {
        Seconds(self.0 / rhs.0)
    }
}

/// Data over bandwidth: a duration.
impl Div<BytesPerSec> for Bytes {
    type Output = Seconds;
    fn div(self, rhs: BytesPerSec) -> Seconds {
        Seconds(self.0 / rhs.0)
    }
}

/// A positive number as `15.6e12`: up to four significant digits and a
/// power of ten that is a multiple of three (the form the page's token field
/// shows and parses back), without `{:e}`'s formatting code.
#[cfg(feature = "alloc")]
#[must_use]
pub fn short_exp(x: f64) -> alloc::string::String {
    if !(x.is_finite() && x > 0.0) {
        return alloc::format!("{x}");
    }
    let mut e = (crate::math::floor(libm::log10(x)) as i32).div_euclid(3) * 3;
    let mut m = crate::round_sig(x / libm::pow(10.0, f64::from(e)), 4);
    if m >= 1000.0 {
        m /= 1000.0;
        e += 3;
    }
    if e == 0 {
        alloc::format!("{m}")
    } else {
        alloc::format!("{m}e{e}")
    }
}

/// The forms [`parse_count`] reads, for error messages.
pub const COUNT_FORMS: &str =
    "(a number, optionally with a suffix: k, M, G or B, T, or Ki, Mi, Gi, Ti; e.g. 15.6T, 16Mi)";

/// A count or size as people type it, for every input that takes tokens,
/// batches, GPUs or bytes (the CLI's flags, the page's fields and URL keys,
/// the batch ramp): a number (`15.6e12`), optionally followed by a decimal
/// suffix k, M, G or B, T (10³ … 10¹²) or a binary one Ki, Mi, Gi, Ti
/// (2¹⁰ … 2⁴⁰: Llama 3's "16M" batch is 2 048 × 8 192 = 16 Mi tokens). A
/// byte unit may follow a suffix (`80GiB`, `1GB`). `None` for anything
/// else, a negative number or one that is not finite.
#[must_use]
pub fn parse_count(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.is_empty() || s.len() > 40 {
        return None;
    }
    // Digits grouped by thousands as people write them: "16 384" (a space,
    // a no-break or a thin space), "16,384", "16_384".
    let mut buf = [0u8; 40];
    let s = match ungroup(s, &mut buf) {
        Some(plain) => plain,
        None => s,
    };
    // A byte unit after a suffix: "GiB", "GB", "kB" (a lone "B" is 10⁹).
    let s = match s.strip_suffix('B') {
        Some(rest) if rest.ends_with(['k', 'K', 'M', 'G', 'T', 'i']) => rest,
        _ => s,
    };
    let (body, binary) = match s.strip_suffix('i') {
        Some(b) => (b, true),
        None => (s, false),
    };
    let (num, k) = match body.as_bytes().last()? {
        b'k' | b'K' => (&body[..body.len() - 1], 1),
        b'M' => (&body[..body.len() - 1], 2),
        b'G' | b'B' => (&body[..body.len() - 1], 3),
        b'T' => (&body[..body.len() - 1], 4),
        _ if binary => return None,
        _ => (body, 0),
    };
    let num = num.trim_end();
    // Rust's float syntax also reads "inf" and "nan": numbers only.
    if !num
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let mult = (0..k).fold(1.0, |m, _| m * base);
    let v = decimal(num)? * mult;
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// `s` without the separators of its leading digits when they are grouped
/// by thousands (`16 384`, `1,048,576`, `16_384k`: a first group of one to
/// three digits, then groups of exactly three, each after one separator);
/// `None` when `s` has no such grouping (`1,5` is not 15).
fn ungroup<'a>(s: &str, buf: &'a mut [u8; 40]) -> Option<&'a str> {
    let is_sep = |c: char| matches!(c, ' ' | ',' | '_' | '\u{a0}' | '\u{202f}' | '\u{2009}');
    let mut chars = s.char_indices().peekable();
    let mut n = 0;
    let mut group = 0;
    let mut seps = 0;
    let mut end = s.len();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_ascii_digit() {
            buf[n] = c as u8;
            n += 1;
            group += 1;
            chars.next();
        } else if is_sep(c) {
            if (seps == 0 && !(1..=3).contains(&group)) || (seps > 0 && group != 3) {
                return None;
            }
            seps += 1;
            group = 0;
            chars.next();
        } else {
            end = i;
            break;
        }
    }
    if seps == 0 || group != 3 {
        return None;
    }
    let rest = &s.as_bytes()[end..];
    if n + rest.len() > buf.len() {
        return None;
    }
    buf[n..n + rest.len()].copy_from_slice(rest);
    core::str::from_utf8(&buf[..n + rest.len()]).ok()
}

/// A whole count as [`parse_count`] reads it (`16Ki` GPUs, `2048` sequences):
/// `None` when it is not a whole number or exceeds 9·10¹⁸.
#[must_use]
pub fn parse_whole(s: &str) -> Option<u64> {
    let v = parse_count(s)?;
    (crate::math::floor(v) == v && v <= 9.0e18).then_some(v as u64)
}

/// Exact powers of ten an `f64` holds: 10⁰ … 10²².
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// A decimal number as people, URLs and sliders write it (`12`, `-0.5`,
/// `15.6e12`, `.5`, `5.`): the same `f64` as Rust's own parser wherever
/// the decimal exponent is within ±22: digits that fit 2⁵³ in one exact
/// product or quotient, rounded once (Clinger's fast path); otherwise (17
/// to 19 digits, what `{}` writes for an arbitrary `f64`, or a larger
/// exponent) in double-double arithmetic, exact but for a decimal within
/// ~2⁻¹⁰⁰ of a tie between two `f64`s, so that what `{}` writes reads
/// back to the bit; magnitudes within 10^±300; `None` for anything else (`inf`, `nan`,
/// hexadecimal, separators). The page's wasm parses every number with it:
/// Rust's correctly rounded parser and its tables cost ~4 KB of gzipped
/// wasm (the page's size budget).
#[must_use]
pub fn decimal(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (negative, mut i) = match b.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let (mut mantissa, mut read, mut exponent, mut digits) = (0u64, 0u32, 0i64, 0u32);
    let mut fraction = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => {
                digits += 1;
                if read < 19 {
                    mantissa = mantissa * 10 + u64::from(c - b'0');
                    if mantissa > 0 {
                        read += 1;
                    }
                    if fraction {
                        exponent -= 1;
                    }
                } else if !fraction {
                    exponent += 1;
                }
            }
            b'.' if !fraction => fraction = true,
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    if let Some(&(b'e' | b'E')) = b.get(i) {
        i += 1;
        let (sign, start) = match b.get(i) {
            Some(b'-') => (-1, i + 1),
            Some(b'+') => (1, i + 1),
            _ => (1, i),
        };
        let mut e: i64 = 0;
        i = start;
        while let Some(&c) = b.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            e = (e * 10 + i64::from(c - b'0')).min(100_000);
            i += 1;
        }
        if i == start {
            return None;
        }
        exponent += sign * e;
    }
    if i != b.len() {
        return None;
    }
    // Trailing zeros move to the exponent (`2.000` is 2, not 2000e-3).
    while mantissa != 0 && mantissa % 10 == 0 {
        mantissa /= 10;
        exponent += 1;
    }
    if mantissa == 0 {
        return Some(if negative { -0.0 } else { 0.0 });
    }
    // Numbers people type lie within 10^±300 (no subnormals to round).
    let magnitude = exponent + i64::from(mantissa.ilog10());
    if !(-300..=300).contains(&magnitude) {
        return None;
    }
    let v = if mantissa <= 1 << 53 && exponent.unsigned_abs() <= 22 {
        // Both exact: one rounding (Clinger's fast path). `exponent` is
        // within ±22 here: the index cannot truncate.
        let (m, p) = (mantissa as f64, POW10[exponent.unsigned_abs() as usize]);
        if exponent >= 0 {
            m * p
        } else {
            m / p
        }
    } else {
        // The mantissa as an exact sum hi + lo, scaled by exact powers of
        // ten in steps of at most 10²², each product or quotient kept as a
        // double-double (its rounding error recovered exactly with a fused
        // multiply-add): ~2⁻¹⁰⁰ relative error, rounded once at the end.
        let hi = mantissa as f64;
        // |mantissa − hi| < 2¹¹: exact in an f64.
        let lo = (i128::from(mantissa) - hi as i128) as f64;
        let (mut hi, mut lo) = (hi, lo);
        let mut e = exponent;
        while e != 0 {
            let k = e.unsigned_abs().min(22);
            // k ≤ 22: the index cannot truncate.
            let p = POW10[k as usize];
            let (h, l) = if e > 0 {
                let h = hi * p;
                (h, libm::fma(hi, p, -h) + lo * p)
            } else {
                let h = hi / p;
                (h, (libm::fma(-h, p, hi) + lo) / p)
            };
            hi = h + l;
            lo = l - (hi - h);
            e = if e > 0 { e - k as i64 } else { e + k as i64 };
        }
        hi
    };
    let v = if negative { -v } else { v };
    v.is_finite().then_some(v)
}
