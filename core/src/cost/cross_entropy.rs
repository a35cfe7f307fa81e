//! The loss over the vocabulary as each framework computes it: what the
//! last stage holds for a micro-batch's logits, and the traffic of the
//! loss's own kernels ([`CrossEntropy`], set by the `--framework` preset
//! or `--cross-entropy`).

/// How the loss is computed over the vocabulary: what the last stage holds
/// for one micro-batch's logits at its peak, per logit element (one token
/// × one vocabulary entry on one tensor rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrossEntropy {
    /// The fp32 logits alone, 4 bytes (Korthikanti sec. 4.1's
    /// cross-entropy term; the paper setting's count).
    Logits,
    /// Megatron-Core's vocab-parallel cross-entropy (NeMo's too): the bf16
    /// logits and their fp32 copy, on which the softmax is computed in
    /// place and kept, its gradient computed in place again: 2 + 4 = 6
    /// bytes at the forward's peak (`tensor_parallel/cross_entropy.py`).
    VocabParallel,
    /// PyTorch eager, `F.cross_entropy(logits.float(), labels)`
    /// (torchtitan, Hugging Face): the fp32 log-softmax kept, and in the
    /// backward its gradient and the input's gradient, all fp32 at once
    /// (torchtitan frees the bf16 logits first): 12 bytes.
    Eager,
    /// The same loss compiled with `torch.compile` (torchtitan's
    /// `compile`, which has compiled the loss with the model since
    /// pytorch/torchtitan#1033, April 2025): Inductor's partition saves the
    /// bf16 logits and each token's log-sum-exp, and one fused kernel
    /// writes the logits' gradient in bf16: 2 + 2 bytes.
    Compiled,
    /// A fused linear cross-entropy (Liger-Kernel's, arXiv 2410.10989):
    /// the logits never whole; chunks of ⌈tokens·d/V⌉ rows, their bf16
    /// logits and fp32 softmax (6 bytes), about 6·tokens·d bytes.
    FusedLinear,
}

impl CrossEntropy {
    /// Bytes of memory traffic per logit element (one token × one
    /// vocabulary entry on one tensor rank) the loss's own kernels move in
    /// a training step, as (at the full bandwidth, at the memory-bound
    /// kernels' fraction):
    ///
    /// * eager: the softmax's forward and backward and the loss's
    ///   gather and scatter, 36 bytes a logit at the full bandwidth
    ///   (measured: 35.2–37.3 over eight whole steps on one H100, vocab
    ///   50 257 and 128 256, `calibration/h100-2026-11-26/profile_steps.json`'s
    ///   `loss` class), and `.float()`'s casts, bf16 to fp32 forward and
    ///   back for the gradient, 6 + 6 bytes;
    /// * compiled: the bf16 logits read for the log-sum-exp, read again and
    ///   the bf16 gradient written in the backward, 6 bytes at the full
    ///   bandwidth (stated, not measured);
    /// * the others: none counted apart (Megatron-Core's vocab-parallel
    ///   kernels are within the element-wise traffic fitted on its runs;
    ///   the paper counts none; a fused linear cross-entropy's chunks are
    ///   not measured).
    #[must_use]
    pub fn traffic_per_logit(self) -> (f64, f64) {
        match self {
            Self::Eager => (36.0, 12.0),
            Self::Compiled => (6.0, 0.0),
            Self::Logits | Self::VocabParallel | Self::FusedLinear => (0.0, 0.0),
        }
    }

    /// Every choice, in the order the CLI lists them.
    pub const ALL: [Self; 5] = [
        Self::VocabParallel,
        Self::Eager,
        Self::Compiled,
        Self::FusedLinear,
        Self::Logits,
    ];

    /// The CLI and JSON name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Logits => "logits",
            Self::VocabParallel => "vocab-parallel",
            Self::Eager => "eager",
            Self::Compiled => "compiled",
            Self::FusedLinear => "fused-linear",
        }
    }

    /// The choice named `name` (case-insensitive).
    ///
    /// # Errors
    /// [`crate::Error::Unknown`] for another name.
    pub fn parse(name: &str) -> Result<Self, crate::Error> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(crate::Error::Unknown {
                what: "cross-entropy",
            })
    }

    /// Bytes the last stage holds for one micro-batch's logits of `tokens`
    /// tokens over a `vocab` vocabulary of width `width`, on one of
    /// `tensor` ranks (the vocabulary is split over them).
    #[must_use]
    pub fn bytes(self, tokens: f64, vocab: f64, width: f64, tensor: f64) -> f64 {
        let per_element = match self {
            Self::Logits | Self::Compiled => 4.0,
            Self::VocabParallel | Self::FusedLinear => 6.0,
            Self::Eager => 12.0,
        };
        // The fused kernel's chunk: tokens·d/V rows of the V-wide logits
        // (never more than the whole).
        let elements = match self {
            Self::FusedLinear => tokens * width.min(vocab),
            _ => tokens * vocab,
        };
        per_element * elements / tensor.max(1.0)
    }
}
