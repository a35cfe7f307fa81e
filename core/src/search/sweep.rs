//! Size sweeps (sec. 7, figs. 4, 5, 8): the rules' plan for models
//! log-spaced in parameters, along a scaling of the shape.

use alloc::vec::Vec;

use crate::cost::Method;
use crate::error::{check_range, Error};
use crate::hardware::Hardware;
use crate::math;
use crate::model::{x_family, ModelShape, MAX_X};
use crate::search::{rules, Constraints, Parallelism, Plan};

/// A row of a size sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepRow {
    /// The X\[x\] model's x, or 0 for other scalings.
    pub x: u32,
    /// The model's parameter count p (12 x⁵ for X\[x\]).
    pub params: f64,
    /// The model.
    pub model: ModelShape,
    /// The rules' plan, or why there is none.
    pub plan: Result<Plan, Error>,
}

/// The index of the sweep row nearest `params` on the log scale the sweep
/// is spaced on (what a chart of it shows under a cursor).
#[must_use]
pub fn nearest_row(rows: &[SweepRow], params: f64) -> Option<usize> {
    let at = math::log10(params);
    rows.iter()
        .enumerate()
        .min_by(|a, b| {
            (math::log10(a.1.params) - at)
                .abs()
                .total_cmp(&(math::log10(b.1.params) - at).abs())
        })
        .map(|(k, _)| k)
}

/// How a model's shape grows with its size in a sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scaling {
    /// The paper's X\[x\] family (eq. 1), x rounded to an even integer.
    XFamily,
    /// A fixed width-to-depth ratio d_m/d_l (GPT-3: 12288/96 = 128), head
    /// size and sequence length; p = 12·d_m³/ratio.
    Aspect {
        /// d_m / d_l.
        ratio: f64,
        /// d_h.
        head_size: u32,
        /// d_s.
        seq_len: u32,
    },
    /// A fixed depth: the width grows, p = 12·d_m²·d_l.
    FixedDepth {
        /// d_l.
        layers: u32,
        /// d_h.
        head_size: u32,
        /// d_s.
        seq_len: u32,
    },
}

impl Scaling {
    /// The model of this family nearest `params` parameters: the width is
    /// rounded to whole heads, the depth to whole layers.
    ///
    /// # Errors
    ///
    /// A shape out of bounds (too big a model, or a ratio, head size or
    /// sequence length out of range).
    pub fn model(&self, params: f64) -> Result<ModelShape, Error> {
        let params = check_range("parameters", params, 1.0, 1e20)?;
        let shape =
            |heads: f64, head_size: u32, layers: f64, seq_len: u32| -> Result<ModelShape, Error> {
                let clamp = |v: f64| math::round(v).clamp(1.0, f64::from(u32::MAX)) as u32;
                let m = crate::model::classic(seq_len, clamp(heads), head_size, clamp(layers));
                m.validate()?;
                Ok(m)
            };
        match *self {
            Self::XFamily => {
                let x = math::pow(params / 12.0, 0.2);
                x_family(((math::round(x / 2.0) * 2.0) as u32).clamp(2, MAX_X))
            }
            Self::Aspect {
                ratio,
                head_size,
                seq_len,
            } => {
                let ratio = check_range("width/depth ratio", ratio, 1.0, 1e6)?;
                crate::error::check_count("head size", head_size.into(), 1, 1 << 16)?;
                let dm = math::cbrt(params * ratio / 12.0);
                let heads = (dm / f64::from(head_size)).max(1.0);
                let width = math::round(heads).max(1.0) * f64::from(head_size);
                shape(heads, head_size, (width / ratio).max(1.0), seq_len)
            }
            Self::FixedDepth {
                layers,
                head_size,
                seq_len,
            } => {
                crate::error::check_count("layers", layers.into(), 1, crate::model::MAX_LAYERS)?;
                crate::error::check_count("head size", head_size.into(), 1, 1 << 16)?;
                let dm = math::pow(params / (12.0 * f64::from(layers)), 0.5);
                shape(
                    (dm / f64::from(head_size)).max(1.0),
                    head_size,
                    f64::from(layers),
                    seq_len,
                )
            }
        }
    }
}

/// The rules' plan for X\[x\] models log-spaced in parameters from `from` to
/// `to` (sec. 7, figs. 4, 5, 8): [`sweep_scaled`] with [`Scaling::XFamily`].
///
/// # Errors
///
/// As [`sweep_scaled`].
pub fn sweep(
    hw: &Hardware,
    method: Method,
    par: Parallelism,
    c: &Constraints,
    from: f64,
    to: f64,
    points: u32,
) -> Result<Vec<SweepRow>, Error> {
    sweep_scaled(hw, method, par, c, Scaling::XFamily, from, to, points)
}

/// The X\[x\] the practice sweep samples near `x`: a multiple of the largest
/// power of two at most x/4 (at least 8), as teams size layers and heads.
/// Its degrees must divide the layers, heads and batch, so a size with few
/// divisors is the shape's spike, not the size's: an X\[146\] (2 · 73 layers)
/// splits into no pipeline worth having, and an X\[152\] (8 · 19) reached
/// 155 648 GPUs and 70 days where X\[160\] reached 655 360 and 24 (when
/// the search minimized training days, not the run's wall clock).
#[must_use]
pub fn sweep_x(x: f64) -> u32 {
    let mut grain = 8.0;
    while grain * 8.0 <= x {
        grain *= 2.0;
    }
    ((math::round(x / grain) * grain) as u32).clamp(8, MAX_X)
}

/// `points` sizes log-spaced in parameters from `from` to `to`, checked.
fn sizes(from: f64, to: f64, points: u32) -> Result<impl Iterator<Item = f64>, Error> {
    let max = 12.0 * math::pow(f64::from(MAX_X), 5.0);
    let from = check_range("sweep start (parameters)", from, 488.0, max)?;
    let to = check_range("sweep end (parameters)", to, from, max)?;
    crate::error::check_count("sweep points", points.into(), 1, 10_000)?;
    Ok((0..points).map(move |i| {
        let t = if points == 1 {
            0.0
        } else {
            f64::from(i) / f64::from(points - 1)
        };
        from * math::pow(to / from, t)
    }))
}

/// The rules' plan for models of a family log-spaced in parameters from
/// `from` to `to`. Sizes that round to the same shape appear once.
///
/// # Errors
///
/// A bound outside [488, 1.4e19], `from` > `to`, no point (or more than
/// 10 000), or a family that cannot reach a size.
#[allow(clippy::too_many_arguments)]
pub fn sweep_scaled(
    hw: &Hardware,
    method: Method,
    par: Parallelism,
    c: &Constraints,
    scaling: Scaling,
    from: f64,
    to: f64,
    points: u32,
) -> Result<Vec<SweepRow>, Error> {
    let sizes = sizes(from, to, points)?;
    let mut rows: Vec<SweepRow> = Vec::with_capacity(points as usize);
    for size in sizes {
        let model = scaling.model(size)?;
        if rows.last().is_some_and(|r| r.model == model) {
            continue;
        }
        rows.push(SweepRow {
            x: if scaling == Scaling::XFamily {
                model.layers
            } else {
                0
            },
            params: model.params(),
            model,
            plan: rules(&model, hw, method, par, c),
        });
    }
    Ok(rows)
}

/// The practice search's best plan of `method` for X\[x\] models
/// log-spaced in parameters from `from` to `to`: the practice counterpart
/// of [`sweep`], under the same constraints, space and knobs for every size
/// (the knobs' token budget, if any, applies to every size: leave it unset
/// for 20 tokens per parameter).
///
/// # Errors
///
/// As [`sweep_scaled`] for the range.
#[allow(clippy::too_many_arguments)]
pub fn sweep_practice(
    hw: &Hardware,
    method: Method,
    par: Parallelism,
    c: &Constraints,
    space: &super::Space,
    a: &crate::cost::Assumptions,
    from: f64,
    to: f64,
    points: u32,
) -> Result<Vec<SweepRow>, Error> {
    let sizes = sizes(from, to, points)?;
    let space = super::Space {
        method: Some(method),
        ..*space
    };
    let mut rows: Vec<SweepRow> = Vec::with_capacity(points as usize);
    for size in sizes {
        let model = x_family(sweep_x(math::pow(size / 12.0, 0.2)))?;
        if rows.last().is_some_and(|r| r.model == model) {
            continue;
        }
        rows.push(SweepRow {
            x: model.layers,
            params: model.params(),
            model,
            plan: super::practice(&model, hw, par, c, &space, a).map(|r| r.best),
        });
    }
    Ok(rows)
}
