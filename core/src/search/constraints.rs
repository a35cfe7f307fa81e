//! What a user constrains, the parallelism settings, and the two ways a
//! constraint shapes every search: the batch limit and the fewest GPUs
//! reaching a target time.

use crate::error::{check_range, Error};
use crate::memory::ActivationModel;
use crate::model::ModelShape;
use crate::search::{Binding, Plan};

/// Which parallelism dimensions may exceed 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Parallelism {
    /// One GPU.
    None,
    /// Data parallelism only.
    Data,
    /// Data and pipeline.
    DataPipe,
    /// Data and tensor.
    DataTensor,
    /// Pipeline and tensor.
    PipeTensor,
    /// Data, pipeline and tensor.
    #[default]
    ThreeD,
}

impl Parallelism {
    /// Every setting, in Table 6.1's order.
    pub const ALL: [Self; 6] = [
        Self::None,
        Self::Data,
        Self::DataPipe,
        Self::DataTensor,
        Self::PipeTensor,
        Self::ThreeD,
    ];
    /// May n_b exceed 1?
    #[must_use]
    pub fn data(self) -> bool {
        matches!(
            self,
            Self::Data | Self::DataPipe | Self::DataTensor | Self::ThreeD
        )
    }
    /// May n_l exceed 1?
    #[must_use]
    pub fn pipe(self) -> bool {
        matches!(self, Self::DataPipe | Self::PipeTensor | Self::ThreeD)
    }
    /// May n_a exceed 1?
    #[must_use]
    pub fn tensor(self) -> bool {
        matches!(self, Self::DataTensor | Self::PipeTensor | Self::ThreeD)
    }
    /// Stable name, as used by the CLI and URLs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Data => "data",
            Self::DataPipe => "data+pipe",
            Self::DataTensor => "data+tensor",
            Self::PipeTensor => "pipe+tensor",
            Self::ThreeD => "3d",
        }
    }
    /// Parses [`Parallelism::name`].
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(Error::Unknown {
                what: "parallelism",
            })
    }
}

/// What a user constrains.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Constraints {
    /// At most this many GPUs.
    pub max_gpus: Option<u64>,
    /// Exactly this many GPUs (the rules treat it as a cap; the exhaustive
    /// search enforces it).
    pub exact_gpus: Option<u64>,
    /// A fixed tensor-parallel degree instead of the 25 % rule.
    pub tensor: Option<u32>,
    /// A batch limit below the critical batch, in sequences (a limit above
    /// it is the critical batch: plans never exceed b_c).
    pub batch: Option<u64>,
    /// Train within this many days with as few GPUs as possible.
    pub target_days: Option<f64>,
    /// Discard configurations below this efficiency (exhaustive search).
    pub min_efficiency: f64,
    /// How activations are kept.
    pub activation: ActivationModel,
    /// (Practice search) the cheapest plan, fewest GPU-hours, instead of
    /// the fastest; with a target time, the cheapest that meets it instead
    /// of the one with the fewest GPUs (they differ: efficiency falls as
    /// the cluster grows).
    #[cfg_attr(feature = "serde", serde(default))]
    pub cheapest: bool,
    /// (Practice search) what interruptions and checkpoints cost: the
    /// fastest plan is the one whose whole run ends first
    /// ([`crate::run::Objective`]), not the one with the shortest ideal
    /// training time. Not serialized, nor checked here: a run request
    /// carries its own settings (`run` in the API, which checks them with
    /// [`crate::run::RunSettings::validate`]), and the page runs on the
    /// defaults.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub failures: crate::run::Failures,
}

impl Default for Constraints {
    fn default() -> Self {
        Self {
            max_gpus: None,
            exact_gpus: None,
            tensor: None,
            batch: None,
            target_days: None,
            min_efficiency: 0.0,
            activation: ActivationModel::Paper,
            cheapest: false,
            failures: crate::run::Failures::default(),
        }
    }
}

impl Constraints {
    pub(crate) fn validate(&self) -> Result<(), Error> {
        for (what, v) in [
            ("GPU budget", self.max_gpus),
            ("GPU count", self.exact_gpus),
        ] {
            if let Some(n) = v {
                crate::error::check_count(what, n, 1, crate::MAX_GPUS)?;
            }
        }
        if let Some(b) = self.batch {
            crate::error::check_count("batch", b, 1, crate::MAX_GPUS)?;
        }
        if let Some(t) = self.tensor {
            crate::error::check_count("tensor-parallel degree", t.into(), 1, crate::MAX_DEGREE)?;
        }
        if let Some(d) = self.target_days {
            check_range("target days", d, 1e-9, 1e9)?;
        }
        check_range("minimum efficiency", self.min_efficiency, 0.0, 1.0)?;
        Ok(())
    }

    pub(crate) fn budget(&self) -> Option<u64> {
        match (self.exact_gpus, self.max_gpus) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// A limit above b_c is b_c: the paper trains at the critical batch
/// (sec. 5), and past it a step's extra sequences do not cut the step
/// count (eq. 2), so they only add work; the rules took them anyway (18.7
/// days for Megatron 1T on H100s with a 9113-sequence limit, against 6.2
/// days at b ≤ b_c), and the exhaustive search's bound assumed none.
pub(crate) fn batch_limit(model: &ModelShape, c: &Constraints) -> Result<(f64, bool), Error> {
    let bc = model.critical_batch();
    let (limit, critical) = match c.batch {
        // At least one sequence, even for a model whose b_c is below one.
        Some(b) => ((b as f64).min(bc.max(1.0)), b as f64 >= bc),
        None => (bc, true),
    };
    if limit < 1.0 {
        return Err(Error::OutOfRange {
            what: "batch limit",
            value: limit,
            min: 1.0,
            max: crate::MAX_GPUS as f64,
        });
    }
    Ok((limit, critical))
}

/// The fewest GPUs whose plan trains within `days`: a bisection on the GPU
/// budget (a larger budget never slows a plan down).
pub(crate) fn fewest_gpus<F>(c: &Constraints, days: f64, mut plan: F) -> Result<Plan, Error>
where
    F: FnMut(&Constraints) -> Result<Plan, Error>,
{
    let free = Constraints {
        target_days: None,
        ..*c
    };
    let fastest = plan(&free)?;
    let with_binding = |mut p: Plan, reached: bool| {
        p.binding.push(Binding::TargetTime { days, reached });
        p
    };
    if fastest.evaluation.time.days() > days {
        return Ok(with_binding(fastest, false));
    }
    let (mut lo, mut hi) = (1u64, fastest.evaluation.gpus);
    let mut best = fastest;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match plan(&Constraints {
            max_gpus: Some(mid),
            ..free
        }) {
            Ok(p) if p.evaluation.time.days() <= days => {
                hi = p.evaluation.gpus.min(mid);
                best = p;
            }
            _ => lo = mid + 1,
        }
    }
    Ok(with_binding(best, true))
}
