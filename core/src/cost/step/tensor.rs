//! Tensor-parallel collectives under PyTorch's micro-pipelined (async)
//! TP: which of a layer's collectives hide, and how much of each.

use crate::cost::assumptions::Assumptions;
use crate::cost::collective::{self, Collective, Fabric, Group};
use crate::cost::config::{Config, ZeroR};
use crate::memory::ActivationModel;
use crate::model::ModelShape;

/// Seconds a layer's tensor-parallel collectives stay exposed under
/// PyTorch's micro-pipelined TP (Inductor's `micro_pipeline_tp` pass,
/// `torch/_inductor/fx_passes/micro_pipeline_tp.py`; torchtitan's async
/// TP), per micro-batch, with sequence parallelism's all-gathers and
/// reduce-scatters of `collective` seconds each.
///
/// The pass fuses an all-gather with the GEMMs that read its output
/// (`fused_all_gather_matmul`) and a GEMM with the reduce-scatter of its
/// output when that GEMM is the scatter's only input
/// (`fused_matmul_reduce_scatter`); a fused pair takes the longer of its
/// copy and its GEMM, so a collective longer than its GEMM shows the
/// difference. In a Llama layer:
///
/// * each forward pass (`forwards`: 2 with full recomputation) fuses all
///   four: the all-gathers before the q, k, v and the gate and up
///   projections (`gemms[0]`, `gemms[2]`), the reduce-scatters after the
///   output and down projections (`gemms[1]`, `gemms[3]`);
/// * the backward fuses the all-gathers of the output gradient before the
///   output and down projections' data gradients (`backward[1]`,
///   `backward[3]`), and leaves the two reduce-scatters of the input
///   gradients whole: their input is the sum of the q, k and v (gate and
///   up) projections' data gradients, not one GEMM.
///
/// Without sequence parallelism a layer's all-reduces match none of the
/// pass's patterns and all stay exposed (the step's caller charges them
/// whole).
///
/// `gemms` are the forward GEMMs' seconds, `backward` the data-gradient
/// GEMMs' (the weight gradients do not read a gathered input on the
/// way); indices as above.
#[must_use]
pub fn micro_pipelined_exposure(
    collective: f64,
    forwards: f64,
    gemms: [f64; 4],
    backward: [f64; 4],
) -> f64 {
    micro_pipelined_split(collective, collective, forwards, gemms, backward)
}

/// [`micro_pipelined_exposure`] with all-gathers of `gather` seconds and
/// reduce-scatters of `scatter` (torchao's float8 tensor parallelism
/// gathers a byte an element and scatters two).
#[must_use]
pub fn micro_pipelined_split(
    gather: f64,
    scatter: f64,
    forwards: f64,
    gemms: [f64; 4],
    backward: [f64; 4],
) -> f64 {
    let over = |c: f64, g: f64| (c - g).max(0.0);
    forwards
        * (over(gather, gemms[0])
            + over(scatter, gemms[1])
            + over(gather, gemms[2])
            + over(scatter, gemms[3]))
        + over(gather, backward[1])
        + over(gather, backward[3])
        + 2.0 * scatter
}

/// [`micro_pipelined_exposure`] of one layer of `model` with `rows` tokens
/// on each tensor rank (its GEMMs' output rows: tokens / t), sequence
/// parallelism's all-gathers and reduce-scatters of `(gather, scatter)`
/// seconds each (half an all-reduce in bf16),
/// `forwards` forward passes (2 with full recomputation), and the dense
/// linears' seconds per flop `(forward, backward)`.
///
/// Under torchtitan's per-op checkpointing (`op_sac`) the backward runs
/// the layer's two all-gathers again ([`super`]'s step), each into the
/// one GEMM its recomputation reads the gathered input for: the k
/// projection's (the policy recomputes every second matmul: wk, wo, w3)
/// and the up projection's (w3; the plain MLP's down projection reads no
/// gathered input, so its gather fuses with nothing).
#[must_use]
pub(crate) fn micro_pipelined_layer(
    model: &crate::model::ModelShape,
    rows: f64,
    (gather, scatter): (f64, f64),
    forwards: f64,
    op_sac: bool,
    (forward, backward): (f64, f64),
) -> f64 {
    let dm = model.width() as f64;
    let gate = if model.gated_mlp { 2.0 } else { 1.0 };
    let widths = [
        model.attention_width() as f64 + 2.0 * model.kv_width(),
        model.attention_width() as f64,
        gate * f64::from(model.ffn),
        f64::from(model.ffn),
    ];
    let seconds = |rate: f64| widths.map(|n| 2.0 * rows * dm * n * rate);
    let recomputed = if op_sac {
        let over = |n: f64| (gather - 2.0 * rows * dm * n * forward).max(0.0);
        let up = if model.gated_mlp {
            f64::from(model.ffn)
        } else {
            0.0
        };
        over(model.kv_width()) + over(up)
    } else {
        0.0
    };
    micro_pipelined_split(
        gather,
        scatter,
        forwards,
        seconds(forward),
        seconds(backward),
    ) + recomputed
}

/// Seconds a layer's tensor-parallel collectives stay exposed per
/// micro-batch of `tokens` tokens a GPU: all of them without overlap, what
/// PyTorch's async TP leaves ([`micro_pipelined_layer`]) under torchtitan
/// and plain PyTorch, and what outlasts the layer's GEMMs (`layer_gemm`
/// seconds) under Transformer Engine's overlap. `torchao`: torchao's
/// float8 linears, `linear_rates` the dense linears' seconds per flop.
#[allow(clippy::too_many_arguments)]
pub(crate) fn exposed_per_layer(
    model: &ModelShape,
    cfg: &Config,
    a: &Assumptions,
    fabric: Fabric,
    tokens: f64,
    torchao: bool,
    linear_rates: (f64, f64),
    layer_gemm: f64,
) -> f64 {
    // Tensor parallelism: per layer, two all-reduces forward, two backward,
    // two more to recompute the forward (full); with sequence parallelism
    // each is a reduce-scatter + all-gather of the same volume. Over
    // NVLink (t ≤ node size is checked). torchtitan's per-op
    // checkpointing saves the reduce-scatters' outputs but not the
    // all-gathers' (`_save_list` of `parallelize.py` holds
    // `reduce_scatter_tensor`, not `all_gather_into_tensor`), so the
    // backward gathers the attention's and the feed-forward block's input
    // again, which the q, k, v and the gate and up projections' weight
    // gradients read (`op_sac_per_token` keeps neither): an all-reduce's
    // worth more a layer. Without sequence parallelism it runs the
    // attention's all-reduce again (the feed-forward norm reads its sum).
    let op_sac = cfg.activation == ActivationModel::Selective && a.op_selective;
    let collectives = match cfg.activation {
        ActivationModel::Paper | ActivationModel::Full => 6.0,
        _ if op_sac => 5.0,
        _ => 4.0,
    };
    let t = f64::from(cfg.tensor);
    let dm = model.width() as f64;
    let tensor_group = Group::inside(t);
    // ZeRO-R P_a without sequence parallelism: each layer's checkpoint is
    // all-gathered over the tensor ranks before it is recomputed.
    let recomputes = matches!(
        cfg.activation,
        ActivationModel::Paper | ActivationModel::Full
    );
    let gathers = if recomputes && cfg.zero_r != ZeroR::None && !cfg.sequence_parallel {
        collective::seconds(
            Collective::AllGather,
            2.0 * tokens * dm,
            tensor_group,
            fabric,
        )
    } else {
        0.0
    };
    let all_reduce = collective::seconds(
        Collective::AllReduce,
        2.0 * tokens * dm,
        tensor_group,
        fabric,
    );
    // torchao's float8 tensor parallelism (`Float8ColwiseParallel`,
    // `Float8RowwiseParallel`, `PrepareFloat8ModuleInput`, which torchtitan
    // applies with tensorwise float8: "float8 all-gather ... for TP (by
    // default for `Float8Linear`)", its `docs/float8.md`) casts a layer's
    // input to float8 before the forward's all-gathers and the output
    // gradient before the backward's, so each all-gather moves a byte an
    // element; the reduce-scatters of bf16 GEMM outputs move two. With
    // sequence parallelism each all-reduce's worth is one of each.
    let (gather, scatter) = if torchao && cfg.sequence_parallel && t > 1.0 {
        (all_reduce / 4.0, all_reduce / 2.0)
    } else {
        (all_reduce / 2.0, all_reduce / 2.0)
    };
    // A checkpoint that stops early (PyTorch's default), or a compiled
    // layer, ends its recomputation before the down projection, so its recomputed forward skips that GEMM's
    // reduction: a reduce-scatter with sequence parallelism (the gathers
    // feed GEMMs whose inputs are saved), else an all-reduce.
    let skipped = if recomputes && a.recompute_stops_early() && model.experts.is_none() {
        if cfg.sequence_parallel {
            scatter
        } else {
            gather + scatter
        }
    } else {
        0.0
    };
    let tensor_comm = collectives * (gather + scatter) + gathers - skipped;
    if !a.overlap_tensor {
        tensor_comm
    } else if cfg!(feature = "knobs")
        && a.framework.micro_pipelined_tensor_overlap()
        && model.experts.is_none()
        && t > 1.0
    {
        // (The page cannot turn async TP on: its torchtitan and pytorch
        // presets leave it off, so its build leaves this out.)
        if cfg.sequence_parallel {
            micro_pipelined_layer(
                model,
                tokens / t,
                (gather, scatter),
                (collectives - if op_sac { 1.0 } else { 0.0 }) / 2.0 - 1.0,
                op_sac,
                linear_rates,
            ) + gathers
        } else {
            tensor_comm
        }
    } else {
        (tensor_comm - layer_gemm).max(0.0)
    }
}

/// Bytes per token of a micro-batch (the whole sequence's tokens, before
/// the tensor split) that a layer's sequence-parallel collectives copy
/// through memory where tensor parallelism shards the sequence as
/// dimension 1 of `[batch, sequence, hidden]` activations
/// ([`crate::cost::assumptions::Assumptions::batch_first_layout`]), read
/// and written once each.
///
/// NCCL gathers and scatters along dimension 0, so PyTorch's functional
/// collectives re-lay the tensor around each one
/// (`torch/distributed/_functional_collectives.py`): `all_gather_tensor`
/// with `gather_dim = 1` returns `cat(chunk(out, t, dim=0), dim=1)` of the
/// gathered tensor, a view only when the dimensions before the gathered
/// one hold one element (`torch._utils._maybe_view_chunk_cat`: one
/// sequence a micro-batch); `reduce_scatter_tensor` with
/// `scatter_dim = 1` first copies its whole input into `cat(chunk(x, t,
/// dim=1))`, at any batch. torchtitan measured the two copies of a
/// feed-forward block at 0.18 ms of its 3 ms at 8 K tokens on an H100
/// (pytorch/torchtitan#437; it folded the batch into the tokens in
/// August 2026, #4121). Megatron keeps activations sequence-first and
/// copies nothing.
///
/// PyTorch's async TP moves the same tensors: its fused ops take the
/// shard with the gathered dimension first and return the gathered input
/// and the outputs as views in that order
/// (`_fused_all_gather_matmul_impl`: `unflatten`, "otherwise A_shard needs
/// to be copied once"; `_fused_matmul_reduce_scatter_impl` likewise),
/// which the layer's reshapes and the weight gradients' flattened inputs
/// copy. Charged as the plain collectives' copies: torchtitan's measured
/// async-TP speed-ups (1.09–1.16×, `tt_asynctp_2506`) leave no room for
/// fewer bytes (at a 1/t shard's copies plan3d gave 1.25×).
///
/// `forwards`: forward passes of the layer (2 with full recomputation);
/// `op_sac`: torchtitan's per-op checkpointing, whose backward gathers the
/// attention's and the feed-forward block's inputs again (as the step
/// charges their time); `gather_bytes`: bytes an element of an
/// all-gather (1 under torchao's float8 tensor parallelism), a
/// reduce-scatter's input being bf16; `stops_early`: a full recomputation
/// that ends before the down projection, whose reduce-scatter it skips
/// ([`crate::cost::assumptions::Assumptions::recompute_stops_early`]).
#[must_use]
pub fn layout_copy_bytes_per_token(
    model: &ModelShape,
    t: f64,
    micro_batch: u32,
    forwards: f64,
    op_sac: bool,
    gather_bytes: f64,
    stops_early: bool,
) -> f64 {
    if t <= 1.0 {
        return 0.0;
    }
    let dm = model.width() as f64;
    // Read and written: twice an element's bytes.
    let gathered = if micro_batch > 1 {
        2.0 * gather_bytes * dm
    } else {
        0.0
    };
    let scattered = 2.0 * 2.0 * dm;
    // A layer's all-gathers: two each forward pass, two in the backward
    // (of the output gradients), two more regathered under per-op
    // checkpointing; its reduce-scatters: two each forward pass, two in
    // the backward (of the input gradients).
    let regathers = if op_sac { 2.0 } else { 0.0 };
    // The recomputed share of the layer's forwards.
    let skipped = if stops_early {
        (forwards - 1.0).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (2.0 * forwards + 2.0 + regathers) * gathered + (2.0 * forwards + 2.0 - skipped) * scattered
}
