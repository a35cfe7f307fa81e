//! Memory per GPU (App. C.3) and the activation models a user can pick.

use crate::units::Bytes;

/// How activations are kept for the backward pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ActivationModel {
    /// The paper's: a checkpoint at every layer output (2 bytes per token and
    /// width), the layer being recomputed holding m0 bytes per token
    /// ([`crate::ModelShape::layer_activation_per_token`]). 8 flop per token
    /// and parameter.
    #[default]
    Paper,
    /// Full recomputation with Korthikanti et al.'s per-layer count
    /// s·b·h·(10 + 24/t + 5·a·s/(h·t)) for the layer being recomputed
    /// (seed 003). 8 flop per token and parameter.
    Full,
    /// Selective recomputation: every layer keeps s·b·h·(10 + 24/t); only
    /// the attention scores are recomputed, which C.1 neglects: 6 flop per
    /// token and parameter. No checkpoints.
    Selective,
    /// No recomputation: every layer keeps s·b·h·(10 + 24/t + 5·a·s/(h·t)).
    /// 6 flop per token and parameter. No checkpoints.
    None,
}

impl ActivationModel {
    /// Every model, for menus.
    pub const ALL: [Self; 4] = [Self::Paper, Self::Full, Self::Selective, Self::None];

    /// Flop per token and parameter for a training step: 2 forward + 4
    /// backward, plus 2 for recomputing the forward (C.1; PTD-P eq. 3-4).
    #[must_use]
    pub fn flops_per_token_param(self) -> f64 {
        match self {
            Self::Paper | Self::Full => 8.0,
            Self::Selective | Self::None => 6.0,
        }
    }

    /// Tensor-parallel all-reduces per layer and step: two forward, two for
    /// the gradients, two more to recompute the forward (C.4.3).
    #[must_use]
    pub fn tensor_allreduces(self) -> f64 {
        match self {
            Self::Paper | Self::Full => 6.0,
            Self::Selective | Self::None => 4.0,
        }
    }

    /// Stable name, as used by the CLI and URLs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::Full => "full",
            Self::Selective => "selective",
            Self::None => "none",
        }
    }

    /// Parses [`ActivationModel::name`].
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, crate::Error> {
        Self::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(crate::Error::Unknown {
                what: "activation model",
            })
    }
}

/// Memory per GPU in the paper's four categories (sec. 2.5, C.3).
///
/// # Properties
///
/// `offloadable() + non_offloadable() == total()`; `on_gpu(o)` is the sum of
/// `on_gpu_parts(o)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemoryBreakdown {
    /// Training state: fp32 weights, Adam's two moments (12 bytes per
    /// parameter), split over the model-parallel devices, or over all
    /// devices when partitioned.
    pub state: Bytes,
    /// Activation checkpoints.
    pub checkpoints: Bytes,
    /// Mixed-buffering parameter and gradient buffers (Table C.1).
    pub buffers: Bytes,
    /// Layer activations and their gradients.
    pub activations: Bytes,
}

impl MemoryBreakdown {
    /// State + checkpoints: what can move to CPU memory (C.3).
    #[must_use]
    pub fn offloadable(&self) -> Bytes {
        self.state + self.checkpoints
    }
    /// Buffers + activations: what must stay on the GPU.
    #[must_use]
    pub fn non_offloadable(&self) -> Bytes {
        self.buffers + self.activations
    }
    /// Everything.
    #[must_use]
    pub fn total(&self) -> Bytes {
        self.offloadable() + self.non_offloadable()
    }
    /// What the GPU holds of each category — state, checkpoints, buffers,
    /// activations — when offloading or not: offloading moves the state and
    /// the checkpoints to CPU memory (C.3).
    #[must_use]
    pub fn on_gpu_parts(&self, offload: bool) -> [Bytes; 4] {
        let moved = |b: Bytes| if offload { Bytes(0.0) } else { b };
        [
            moved(self.state),
            moved(self.checkpoints),
            self.buffers,
            self.activations,
        ]
    }

    /// What the GPU holds: the non-offloadable part when offloading, else all
    /// (the same sums as [`Self::non_offloadable`] and [`Self::total`], so
    /// never an ulp above the total; the parts' sum may differ by one).
    #[must_use]
    pub fn on_gpu(&self, offload: bool) -> Bytes {
        if offload {
            self.non_offloadable()
        } else {
            self.total()
        }
    }
}
