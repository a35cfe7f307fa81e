//! Float functions routed through `libm`, so that native builds, `no_std`
//! builds and wasm give bit-identical numbers (the platform `powf` differs).

#[inline]
pub(crate) fn cbrt(x: f64) -> f64 {
    libm::cbrt(x)
}

#[inline]
pub(crate) fn ceil(x: f64) -> f64 {
    libm::ceil(x)
}

#[inline]
pub(crate) fn floor(x: f64) -> f64 {
    libm::floor(x)
}

/// Used by the alloc-only modules (run, planner).
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
#[inline]
pub(crate) fn sqrt(x: f64) -> f64 {
    libm::sqrt(x)
}

#[inline]
pub(crate) fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

#[inline]
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) fn ln(x: f64) -> f64 {
    libm::log(x)
}

#[inline]
pub(crate) fn log10(x: f64) -> f64 {
    libm::log10(x)
}

/// Round to nearest, ties away from zero.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
#[inline]
pub(crate) fn round(x: f64) -> f64 {
    libm::round(x)
}

/// Round to nearest, ties to even.
#[inline]
pub(crate) fn round_half_even(x: f64) -> f64 {
    libm::rint(x)
}

/// `x` rounded to `digits` significant figures, the way the paper prints
/// its tables (3 significant figures for memory, 2 for training times).
///
/// Ties go to even, as in the paper: Table 6.2 prints the None baseline's
/// offloadable 61 250 GiB (exactly) as 61.2 K.
#[must_use]
pub fn round_sig(x: f64, digits: u32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let shift = f64::from(digits) - 1.0 - floor(log10(x.abs()));
    // Scale by an exact power of ten (multiply or divide by 10^k, never by
    // an inexact 10^-k), so that a tie stays a tie.
    if shift >= 0.0 {
        let s = pow(10.0, shift);
        round_half_even(x * s) / s
    } else {
        let s = pow(10.0, -shift);
        round_half_even(x / s) * s
    }
}
