//! The ZeRO stages (seed 001, sec. 5) as the cost model shards the
//! training state over the data-parallel devices: what each stage shards,
//! its names, and the methods that admit it. Re-exported as
//! [`crate::cost::assumptions::Zero`] and [`crate::cost::Zero`].

/// Optimizer-state sharding over the data-parallel devices (ZeRO, seed 001
/// sec. 5): stage 1 shards the optimizer state (Megatron's distributed
/// optimizer), 2 also the gradients, 3 also the weights (FSDP).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Zero {
    /// Nothing sharded.
    #[default]
    None,
    /// Optimizer state sharded.
    One,
    /// Optimizer state and gradients.
    Two,
    /// Everything, weights gathered once per micro-batch (FSDP's default,
    /// `reshard_after_forward`).
    Three,
    /// Everything, weights gathered once per step and kept for its
    /// micro-batches (FSDP `reshard_after_forward=False`, ZeRO++'s hpZ
    /// idea): less traffic, the gathered stage's weights held.
    ThreePerStep,
}

impl Zero {
    /// Every stage.
    pub const ALL: [Self; 5] = [
        Self::None,
        Self::One,
        Self::Two,
        Self::Three,
        Self::ThreePerStep,
    ];

    /// The ZeRO stage number, 0–3.
    #[must_use]
    pub fn stage(self) -> u8 {
        match self {
            Self::None => 0,
            Self::One => 1,
            Self::Two => 2,
            Self::Three | Self::ThreePerStep => 3,
        }
    }

    /// The stage in practitioners' words, short, for a table cell beside a
    /// layout: what makes a ZeRO-3 / FSDP row another plan than a
    /// Megatron-style row with the same degrees.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::None => "no ZeRO",
            Self::One => "ZeRO-1",
            Self::Two => "ZeRO-2",
            Self::Three => "ZeRO-3",
            Self::ThreePerStep => "ZeRO-3 per step",
        }
    }

    /// Stable name: `0`, `1`, `2`, `3`, `3-step`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "0",
            Self::One => "1",
            Self::Two => "2",
            Self::Three => "3",
            Self::ThreePerStep => "3-step",
        }
    }

    /// Parses [`Self::name`].
    ///
    /// # Errors
    ///
    /// An unknown stage.
    pub fn parse(name: &str) -> Result<Self, crate::Error> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(crate::Error::Unknown { what: "ZeRO stage" })
    }

    /// Divisors of (weights, gradients, optimizer) over `data` devices.
    #[must_use]
    pub fn shards(self, data: f64) -> (f64, f64, f64) {
        match self.stage() {
            0 => (1.0, 1.0, 1.0),
            1 => (1.0, 1.0, data),
            2 => (1.0, data, data),
            _ => (data, data, data),
        }
    }
}
