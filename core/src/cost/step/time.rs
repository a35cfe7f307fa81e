//! A step's time in parts ([`StepTime`]) and where it goes by kernel
//! class ([`KernelClass`]).

/// The time of one step and its parts, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepTime {
    /// GEMMs of the step on the heaviest stage (all micro-batches).
    pub compute: f64,
    /// Memory-bound element-wise kernels.
    pub elementwise: f64,
    /// The GPU waiting for an eager framework's CPU to dispatch the
    /// operators of layers whose kernels are shorter than that.
    pub launch: f64,
    /// Tensor-parallel collectives (not overlapped).
    pub tensor: f64,
    /// Pipeline sends on the critical path.
    pub pipeline: f64,
    /// Idle time of the pipeline bubble.
    pub bubble: f64,
    /// Data-parallel traffic left exposed.
    pub data: f64,
    /// The optimizer step (memory-bound).
    pub optimizer: f64,
    /// ZeRO-R P_a+cpu: checkpoint copies to and from CPU memory left
    /// exposed.
    pub offload: f64,
    /// Context parallelism: the ring exchange of keys and values left
    /// exposed by the attention it overlaps.
    pub context: f64,
    /// Expert parallelism: the all-to-all dispatch and combine left
    /// exposed.
    pub expert: f64,
    /// Bytes one GPU sends in the expert all-to-alls per step (not a
    /// time; not in [`Self::total`]).
    pub all_to_all_bytes: f64,
    /// Bytes one GPU sends around the context-parallel ring per step (not
    /// a time).
    pub context_ring_bytes: f64,
    /// The parallel-model's load imbalance: the heaviest stage's extra
    /// layers and the logit layer, relative to an even split (already in
    /// `compute` and `elementwise`; reported for the overheads).
    pub imbalance: f64,
    /// Of `compute`: the attention scores' and values' forward passes
    /// (recomputed ones included).
    pub attention_forward: f64,
    /// Of `compute`: their backward pass.
    pub attention_backward: f64,
    /// Of `compute`: the logit layer (its GEMMs, and the loss's own kernels
    /// where counted: [`crate::cost::assumptions::CrossEntropy::traffic_per_logit`]).
    pub logits: f64,
    /// Flops of the linear GEMMs (weights, recomputation included) the
    /// heaviest device computes per step (not a time).
    pub linear_flops: f64,
    /// Flops of the attention forward passes, the same, as the kernels
    /// compute them (a causal flash kernel: half the square; see
    /// `step_time`).
    pub attention_forward_flops: f64,
    /// Flops of the attention backward pass, the same, as the kernels
    /// compute them (a flash backward: 2.5× its forward's).
    pub attention_backward_flops: f64,
    /// Flops of the logit layer, the same.
    pub logit_flops: f64,
    /// Bytes the element-wise kernels move per step (not a time).
    pub elementwise_bytes: f64,
    /// Bytes the optimizer step reads and writes (not a time).
    pub optimizer_bytes: f64,
}

/// One class of a step's time ([`StepTime::classes`]): seconds, share,
/// and what its kernels achieve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelClass {
    /// `linear GEMMs`, `attention forward`, `attention backward`,
    /// `logits`, `element-wise`, `optimizer`, `exposed communication`,
    /// `bubble`.
    pub class: &'static str,
    /// Seconds per step.
    pub seconds: f64,
    /// Its share of the step.
    pub share: f64,
    /// What its kernels achieve, in `unit` (`None` for waiting, or where
    /// the class took no time).
    pub achieved: Option<f64>,
    /// `Tflop/s` or `GB/s` (`None` for waiting).
    pub unit: Option<&'static str>,
}

impl StepTime {
    /// Where a step goes, by kernel class: the GEMMs split into linear
    /// layers, attention forward and backward and the logit layer, each
    /// with the Tflop/s it achieves; the element-wise kernels and the
    /// optimizer with the GB/s they move; exposed communication; the
    /// bubble. The seconds sum to [`Self::total`], the shares to 1.
    #[must_use]
    pub fn classes(&self) -> [KernelClass; 9] {
        let total = self.total();
        let linear =
            (self.compute - self.attention_forward - self.attention_backward - self.logits)
                .max(0.0);
        let exposed =
            self.tensor + self.pipeline + self.data + self.offload + self.context + self.expert;
        // `amount` per second in units of `scale`, where the class ran.
        let class = |class, seconds: f64, amount: Option<(f64, f64, &'static str)>| KernelClass {
            class,
            seconds,
            share: if total > 0.0 { seconds / total } else { 0.0 },
            achieved: amount.and_then(|(x, scale, _)| (seconds > 0.0).then(|| x / seconds / scale)),
            unit: amount.map(|(_, _, unit)| unit),
        };
        let flops = |x| Some((x, 1e12, "Tflop/s"));
        let bytes = |x| Some((x, 1e9, "GB/s"));
        [
            class("linear GEMMs", linear, flops(self.linear_flops)),
            class(
                "attention forward",
                self.attention_forward,
                flops(self.attention_forward_flops),
            ),
            class(
                "attention backward",
                self.attention_backward,
                flops(self.attention_backward_flops),
            ),
            class("logits", self.logits, flops(self.logit_flops)),
            class(
                "element-wise",
                self.elementwise,
                bytes(self.elementwise_bytes),
            ),
            class("optimizer", self.optimizer, bytes(self.optimizer_bytes)),
            class("CPU dispatch", self.launch, None),
            class("exposed communication", exposed, None),
            class("bubble", self.bubble, None),
        ]
    }

    /// The whole step.
    #[must_use]
    pub fn total(&self) -> f64 {
        self.compute
            + self.elementwise
            + self.launch
            + self.tensor
            + self.pipeline
            + self.bubble
            + self.data
            + self.optimizer
            + self.offload
            + self.context
            + self.expert
    }
}
