//! The one error type of plan3d-core.

use core::fmt;

/// Why an input cannot be evaluated.
///
/// "Does not fit in GPU memory" is not an error: it is a result
/// ([`crate::Evaluation::fits`]), since a planner must still show the bar
/// that overflows. The type is `Copy` and allocation-free, so it works
/// without `alloc`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A number is NaN or infinite.
    NotFinite {
        /// Which input.
        what: &'static str,
    },
    /// A number lies outside the range plan3d accepts.
    OutOfRange {
        /// Which input.
        what: &'static str,
        /// The value given.
        value: f64,
        /// Smallest accepted value.
        min: f64,
        /// Largest accepted value.
        max: f64,
    },
    /// A count must divide another one.
    NotDivisible {
        /// What must divide.
        what: &'static str,
        /// Its value.
        value: u64,
        /// What it must divide.
        of: &'static str,
        /// That value.
        total: u64,
    },
    /// The tensor-parallel degree is larger than the node: tensor
    /// parallelism needs NVLink between all its devices (sec. 5).
    TensorAboveNode {
        /// Tensor-parallel degree n_a.
        tensor: u32,
        /// GPUs per node.
        node_size: u32,
    },
    /// The batch is not n_b × n_µ × b_µ.
    BatchMismatch {
        /// The batch given.
        batch: u64,
        /// data × micro-batches × micro-batch.
        product: u64,
    },
    /// The modular pipeline needs at least as many micro-batches as pipeline
    /// stages (sec. 4: the input of layer i + n_l is ready only then).
    TooFewMicroBatches {
        /// Micro-batch count n_µ.
        micro_batches: u32,
        /// Pipeline degree n_l.
        pipe: u32,
    },
    /// A name (model, GPU, network, method) that plan3d does not know.
    Unknown {
        /// What kind of name.
        what: &'static str,
    },
    /// No configuration satisfies the constraints.
    NoPlan {
        /// Why, in general.
        reason: &'static str,
        /// The closest miss and the nearest change that yields a plan,
        /// where the search explained it (`search::why`).
        why: Option<crate::no_plan::Why>,
    },
    /// Two settings that do not go together.
    Incompatible {
        /// What, in words.
        what: &'static str,
    },
    /// An X\[x\] model needs an even x (d_a = x/2 heads, eq. 1).
    OddX {
        /// The x given.
        x: u32,
    },
}

impl Error {
    /// Is this a range error (a slider or flag outside its bounds)?
    #[must_use]
    pub fn is_out_of_range(&self) -> bool {
        matches!(self, Self::OutOfRange { .. })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NotFinite { what } => write!(f, "{what} must be a finite number"),
            Self::OutOfRange {
                what,
                value,
                min,
                max,
            } => write!(f, "{what} = {value} is outside [{min}, {max}]"),
            Self::NotDivisible {
                what,
                value,
                of,
                total,
            } => write!(f, "{what} ({value}) must divide {of} ({total})"),
            Self::TensorAboveNode { tensor, node_size } => write!(
                f,
                "tensor-parallel degree {tensor} exceeds the node size {node_size}: \
                 tensor parallelism needs NVLink between all its GPUs"
            ),
            Self::BatchMismatch { batch, product } => write!(
                f,
                "batch {batch} must equal data × micro-batches × micro-batch = {product}"
            ),
            Self::TooFewMicroBatches {
                micro_batches,
                pipe,
            } => write!(
                f,
                "the modular pipeline needs at least as many micro-batches as stages \
                 ({micro_batches} < {pipe})"
            ),
            Self::Unknown { what } => write!(f, "unknown {what}"),
            Self::NoPlan { reason, why: None } => write!(f, "no plan: {reason}"),
            Self::NoPlan {
                reason,
                why: Some(why),
            } => write!(f, "no plan: {reason}. Closest: {why}"),
            Self::Incompatible { what } => write!(f, "{what}"),
            Self::OddX { x } => write!(f, "X[{x}] needs an even x (d_a = x/2 heads, eq. 1)"),
        }
    }
}

impl core::error::Error for Error {}

/// Checks that `value` is finite and in `[min, max]`.
pub(crate) fn check_range(
    what: &'static str,
    value: f64,
    min: f64,
    max: f64,
) -> Result<f64, Error> {
    if !value.is_finite() {
        return Err(Error::NotFinite { what });
    }
    if value < min || value > max {
        return Err(Error::OutOfRange {
            what,
            value,
            min,
            max,
        });
    }
    Ok(value)
}

/// Checks that an integer count is in `[min, max]`.
pub(crate) fn check_count(
    what: &'static str,
    value: u64,
    min: u64,
    max: u64,
) -> Result<u64, Error> {
    if value < min || value > max {
        return Err(Error::OutOfRange {
            what,
            value: value as f64,
            min: min as f64,
            max: max as f64,
        });
    }
    Ok(value)
}
