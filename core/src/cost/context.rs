//! Context parallelism's exchange of keys and values (ring attention): how
//! a framework passes each rank's chunk of K and V around the
//! context-parallel group, and what of it the attention's kernels do not
//! hide.
//!
//! Under the round-robin load balance both frameworks use (each rank holds
//! the i-th and the (2cp−1−i)-th of 2cp chunks of the sequence), a rank's
//! causal attention is cp blocks of equal work: its own chunk's, then one
//! block for each other rank's keys. A block hides the traffic issued
//! before it and waited for after it.
//!
//! * [`ContextExchange::Ring`]: each of the cp−1 blocks after the first
//!   is computed while the chunk it holds goes to the next rank
//!   (Transformer Engine's `AttnFuncWithCPAndKVP2P`, Megatron-Core's and
//!   NeMo's `cp_comm_type = "p2p"`; PyTorch's `_AllToAllRotater`,
//!   torchtitan's `context_parallel_rotate_method = "alltoall"`). In the
//!   backward pass the chunk's K and V go round again with the gradients
//!   accumulated for them.
//! * [`ContextExchange::AllGather`]: PyTorch's `_AllGatherRotater`, the
//!   default `rotate_method` of `context_parallel` and torchtitan's
//!   default `context_parallel_rotate_method = "allgather"`
//!   (`torch/distributed/tensor/experimental/_attention.py`): one
//!   all-gather of every rank's chunk, issued before the first block and
//!   waited for before the second, so that only the first block hides it;
//!   again in the backward pass. The gradients of K and V still go round
//!   block by block (`dkv_rotater` is always the all-to-all one).
//!
//! PyTorch's ring accumulates those gradients in fp32 (`_cp_options.
//! convert_to_f32`, on by default) and sends them at every block, the last
//! one waited for at once, with nothing left to hide it: the gradients'
//! way home. Transformer Engine's go in the activations' bf16, the last
//! with the last block (stated, not read further).

/// How context parallelism exchanges keys and values (JSON
/// `context_exchange`, CLI `--context-exchange`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ContextExchange {
    /// Each block computed while the chunk it holds goes to the next rank:
    /// Megatron-Core's `cp_comm_type = "p2p"`, torchtitan's
    /// `context_parallel_rotate_method = "alltoall"`.
    #[default]
    Ring,
    /// One all-gather of every chunk per pass, hidden by the first block
    /// only: PyTorch's `context_parallel` default, torchtitan's.
    AllGather,
}

impl ContextExchange {
    /// Every choice, in the order the CLI lists them.
    pub const ALL: [Self; 2] = [Self::Ring, Self::AllGather];

    /// The CLI and JSON name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Ring => "ring",
            Self::AllGather => "allgather",
        }
    }
}

/// One layer's exchange for one micro-batch, in seconds on its links.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exchange {
    /// Context ranks, cp.
    pub ranks: f64,
    /// One chunk's K and V sent to the next rank.
    pub send: f64,
    /// The all-gather of every rank's chunk.
    pub gather: f64,
    /// One chunk's accumulated gradients of K and V sent to the next rank.
    pub grad_send: f64,
    /// The gradients' last send is waited for at once (PyTorch's ring).
    pub grad_home: bool,
}

/// Seconds of one layer's exchange left exposed per micro-batch, with
/// `forwards` forward passes of the attention (two under full
/// recomputation) of `forward` seconds each and a backward of `backward`
/// seconds, each cut into cp equal blocks:
///
/// ```text
/// ring:       (cp−1)·max(0, send − f/cp) per forward pass,
///             (cp−1)·max(0, send + grad − b/cp) backward
/// all-gather: max(0, gather − f/cp) per forward pass,
///             max(0, gather − b/cp) + (cp−1)·max(0, grad − b/cp) backward
/// ```
///
/// plus one gradient send where it is waited for at once.
#[must_use]
pub fn exposed(
    how: ContextExchange,
    x: &Exchange,
    forwards: f64,
    forward: f64,
    backward: f64,
) -> f64 {
    let cp = x.ranks;
    if cp <= 1.0 {
        return 0.0;
    }
    let (f, b) = (forward / cp, backward / cp);
    let (forward_pass, backward_pass) = match how {
        ContextExchange::Ring => (
            (cp - 1.0) * (x.send - f).max(0.0),
            (cp - 1.0) * (x.send + x.grad_send - b).max(0.0),
        ),
        ContextExchange::AllGather => (
            (x.gather - f).max(0.0),
            (x.gather - b).max(0.0) + (cp - 1.0) * (x.grad_send - b).max(0.0),
        ),
    };
    let home = if x.grad_home { x.grad_send } else { 0.0 };
    forwards * forward_pass + backward_pass + home
}
