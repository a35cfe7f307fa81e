//! The configuration search: the paper's selection rules (sec. 5,
//! MODEL_NOTES facts 8–13), an exhaustive search with a Pareto front,
//! user constraints (GPU budget, target time, batch, tensor degree,
//! efficiency floor) and size sweeps (sec. 7).
//!
//! Every candidate is scored by [`crate::evaluate`], so the search and the
//! evaluator can never disagree; a rule such as "the smallest micro-batch
//! with no communication bottleneck" reads "the smallest b_µ for which every
//! overlapped transfer of the evaluation is hidden".
//!
//! * [`constraints`]: what a user may fix or bound, and the parallelism
//!   settings;
//! * [`rules`](rules()): the paper's rules, one plan per method and setting;
//! * [`exhaustive`](exhaustive()): every valid configuration, bounded;
//! * [`pareto`](pareto()): the front over time, GPUs and memory;
//! * [`binding`]: why a plan has its values, in words with equations;
//! * [`sweep`](sweep()): plans over a range of model sizes.

pub mod binding;
pub mod constraints;
mod exhaustive;
mod pareto;
pub mod practice;
mod rules;
mod sweep;
pub mod why;

use crate::cost::Evaluation;
use crate::cost::Method;

pub use binding::{Binding, Bindings};

/// Why the rules have no plan: the buffers and activations exceed the GPU
/// memory even with offload.
pub const NO_PLAN_MEMORY: &str =
    "even with offload, the buffers and layer activations exceed the GPU memory";
/// Why the rules have no plan: the tensor degree set is above the budget.
pub const NO_PLAN_TENSOR_BUDGET: &str = "the tensor-parallel degree set is above the GPU budget";
/// Why the exhaustive search has no plan.
pub const NO_PLAN_CONSTRAINTS: &str = "no configuration satisfies the constraints";

/// [`NO_PLAN_CONSTRAINTS`] under a framework that splits no model over
/// GPUs ([`crate::cost::framework::Framework::model_parallel`]), where no
/// tensor or pipeline degree was given: said, since the search kept them
/// at 1.
pub const NO_PLAN_UNSPLIT: &str = "no configuration satisfies the constraints of a framework \
     that splits no model over GPUs (tensor, pipeline and context degrees stay 1; megatron-core, \
     torchtitan and deepspeed split the layers)";
pub use constraints::{Constraints, Parallelism};
pub use exhaustive::{exhaustive, SearchResult};
pub use pareto::pareto;
pub use practice::{practice, practice_methods, Space, PRACTICE_METHODS};
pub use rules::{rules, MAX_EXPOSED_REDUCTION, MAX_TENSOR_OVERHEAD};
pub use sweep::{nearest_row, sweep, sweep_practice, sweep_scaled, sweep_x, Scaling, SweepRow};
pub use why::{explain, practice_explained};

/// A chosen configuration with its evaluation and why.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The method.
    pub method: Method,
    /// The parallelism setting.
    pub parallelism: Parallelism,
    /// The evaluation.
    pub evaluation: Evaluation,
    /// The constraints that bind.
    pub binding: Bindings,
}
