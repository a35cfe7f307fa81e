//! The GEMM number formats and their scaling recipes (`--precision`): the
//! casts each moves by hand, where each runs, and what each costs a step
//! against the others.

use plan3d_core::cost::assumptions::{format_refusal, Assumptions, Compute, NO_MXFP8};
use plan3d_core::cost::evaluate_with;
use plan3d_core::cost::kernels::Format;
use plan3d_core::cost::step::{fp8_casts, linear_format};
use plan3d_core::cost::Method;
use plan3d_core::{hardware, model, ActivationModel, Config, Error, Hardware};

fn eight(gpu: hardware::Gpu) -> Hardware {
    Hardware {
        gpu,
        node_size: Some(8),
        ..Hardware::default()
    }
}

/// Llama 3.1 8B at 8 192 tokens, FSDP over 8 GPUs, micro-batch 1,
/// selective recomputation, torchtitan's framework: the step under `c`.
fn step(gpu: hardware::Gpu, c: Compute) -> Result<f64, Error> {
    let m = model::ModelShape {
        seq_len: 8192,
        ..model::LLAMA_3_1_8B
    };
    let cfg = Config {
        method: Method::Partitioned,
        data: 8,
        micro_batch: 1,
        micro_batches: 1,
        activation: ActivationModel::Selective,
        ..Config::default()
    };
    let a = Assumptions {
        compute: c,
        framework: plan3d_core::cost::framework::Framework::Torchtitan,
        ..Assumptions::PRACTICE
    };
    // torchtitan's state, layer and FSDP, with Transformer Engine's casts
    // (the recipes compared here are TE's; torchao adds its layout copies
    // and weight casts to the per-tensor ones: `fp8_steps_pay_their_casts`).
    let a = plan3d_core::cost::framework::Framework::Torchtitan.apply(a);
    let a = Assumptions {
        framework: plan3d_core::cost::framework::Framework::MegatronCore,
        ..a
    };
    evaluate_with(&m, &eight(gpu), &cfg, &a).map(|e| e.time.0 / e.steps)
}

/// The casts of one Llama 3.1 8B layer (d 4 096, attention 4 096, q+k+v
/// 6 144, SwiGLU ffn 14 336) on one tensor rank, per token: forward, the
/// projection's and the down projection's inputs unfused (4 096 + 14 336)
/// and the two normalized inputs fused (2 × 4 096); backward, every
/// GEMM's output gradient (6 144 + 2 × 14 336 + 2 × 4 096). Delayed
/// scaling: 3, 1 and 3 bytes an element; current scaling 5 each; block
/// scales 4, 2, 4. Where float8 tensor parallelism casts the shards it
/// gathers (torchao's), the d_m-wide tensors cost 1/t of a cast each.
#[test]
fn casts_by_recipe_by_hand() {
    let m = model::LLAMA_3_1_8B;
    let (unfused, fused, grads) = (
        4096.0 + 14336.0,
        2.0 * 4096.0,
        6144.0 + 2.0 * 14336.0 + 2.0 * 4096.0,
    );
    for (c, (u, f, g)) in [
        (Compute::Fp8, (3.0, 1.0, 3.0)),
        (Compute::Fp8Current, (5.0, 5.0, 5.0)),
        (Compute::Fp8Block, (4.0, 2.0, 4.0)),
        (Compute::Mxfp8, (4.0, 2.0, 4.0)),
        (Compute::Bf16, (0.0, 0.0, 0.0)),
    ] {
        let (fwd, bwd) = fp8_casts(&m, 1.0, c.cast_bytes(), None);
        assert_eq!(fwd, u * unfused + f * fused, "{}", c.name());
        assert_eq!(bwd, g * grads, "{}", c.name());
    }
    // Over 2 tensor ranks the GEMMs' own inputs halve, the norms' do not.
    let (fwd, _) = fp8_casts(&m, 2.0, Compute::Fp8.cast_bytes(), None);
    assert_eq!(fwd, 3.0 * unfused / 2.0 + fused);
    // torchao's float8 tensor parallelism over 8 ranks (compiled current
    // scaling, 5 bytes a cast, and the 2-byte copy into `_scaled_mm`'s
    // layout): the norms' outputs and the output projections' gradients
    // are cast on their sequence shards, 5/8, and copied whole, 2; the
    // GEMMs' own inputs and the other gradients are split already.
    let (fwd, bwd) = fp8_casts(&m, 8.0, (7.0, 7.0, 7.0), Some((8.0, 2.0)));
    let wide = 2.0 * 4096.0;
    assert!((fwd - (7.0 * unfused / 8.0 + (5.0 / 8.0 + 2.0) * wide)).abs() < 1e-9);
    let split_grads = 6144.0 + 2.0 * 14336.0;
    assert!((bwd - (7.0 * split_grads / 8.0 + (5.0 / 8.0 + 2.0) * wide)).abs() < 1e-9);
    // On one rank nothing is gathered: the same bytes as cast whole.
    assert_eq!(
        fp8_casts(&m, 1.0, (7.0, 7.0, 7.0), Some((1.0, 2.0))),
        fp8_casts(&m, 1.0, (7.0, 7.0, 7.0), None)
    );
}

/// Where each format runs: MXFP8 needs Blackwell's block-scaled tensor
/// cores and is refused on a Hopper GPU in words (the page uses
/// per-tensor FP8 instead and says so); block scales run on Hopper's CUDA
/// cores (DeepGEMM's curve) and on Blackwell as MXFP8; no FP8 at all on an
/// A100.
#[test]
fn formats_by_gpu() {
    let a = |c| Assumptions {
        compute: c,
        ..Assumptions::PRACTICE
    };
    let (h100, b200, gb300) = (
        eight(hardware::H100_SXM),
        eight(hardware::B200),
        eight(hardware::GB300),
    );
    assert_eq!(linear_format(&h100, &a(Compute::Fp8Current)), Format::Fp8);
    assert_eq!(
        linear_format(&h100, &a(Compute::Fp8Block)),
        Format::Fp8Block
    );
    assert_eq!(linear_format(&b200, &a(Compute::Fp8Block)), Format::Mx);
    assert_eq!(linear_format(&gb300, &a(Compute::Mxfp8)), Format::Mx);
    assert_eq!(
        linear_format(&eight(hardware::A100_80GB), &a(Compute::Fp8)),
        Format::Bf16
    );
    assert_eq!(
        format_refusal(Compute::Mxfp8, &hardware::H100_SXM),
        Some(NO_MXFP8)
    );
    assert_eq!(format_refusal(Compute::Mxfp8, &hardware::B300), None);
    assert!(format_refusal(Compute::Fp8Block, &hardware::A100_80GB).is_some());
    assert!(matches!(
        step(hardware::H100_SXM, Compute::Mxfp8),
        Err(Error::Incompatible { what }) if what == NO_MXFP8
    ));
    let (inputs, _) = plan3d_core::state::Inputs::from_query("gpu=h100-sxm&prec=mxfp8");
    assert_eq!(inputs.compute_used(), Compute::Fp8);
    let (inputs, _) = plan3d_core::state::Inputs::from_query("gpu=b300&prec=mxfp8");
    assert_eq!(inputs.compute_used(), Compute::Mxfp8);
    // The names round-trip.
    for c in Compute::ALL {
        assert_eq!(Compute::parse(c.name()), Ok(c));
    }
}

/// What each recipe costs a step (Llama 3.1 8B, FSDP over 8 GPUs): on an
/// H100 current scaling's second read makes it slower than delayed
/// scaling's, by under 5 %; block scales cost DeepGEMM's short-K penalty
/// and a two-way cast, under 5 % too; on a B200 MXFP8 (and block scales,
/// run as MXFP8) is slower than per-tensor current scaling, by the
/// kernel's 5 % at most: torchtitan's B200 runs of an 8B model measured
/// 4.3 % (float8 tensorwise 10 417, mxfp8 9 969 tokens/s a GPU,
/// `calibration/published/torchtitan.json`). Every FP8 recipe beats BF16.
#[test]
fn recipes_cost_what_their_casts_and_kernels_cost() {
    let h = |c| step(hardware::H100_SXM, c).unwrap();
    let b = |c| step(hardware::B200, c).unwrap();
    let (delayed, current, block) = (
        h(Compute::Fp8),
        h(Compute::Fp8Current),
        h(Compute::Fp8Block),
    );
    assert!(
        delayed < current && current < 1.05 * delayed,
        "{delayed} {current}"
    );
    assert!(
        delayed < block && block < 1.05 * delayed,
        "{delayed} {block}"
    );
    assert!(current < h(Compute::Bf16));
    let (tensorwise, mx) = (b(Compute::Fp8Current), b(Compute::Mxfp8));
    assert!(
        tensorwise < mx && mx < 1.05 * tensorwise,
        "{tensorwise} {mx}"
    );
    assert_eq!(b(Compute::Fp8Block), mx);
    assert!(mx < b(Compute::Bf16));
}

/// The page says a format its GPU cannot run beside the field, and what
/// it uses instead: MXFP8 on an H100 runs per-tensor FP8; FP8 on an A100
/// runs BF16.
#[test]
fn the_page_says_what_runs_instead() {
    use plan3d_core::planner;
    for (query, used) in [
        ("gpu=h100-sxm&node=8&model=llama-3.1-8b&prec=mxfp8", "FP8"),
        (
            "gpu=a100-80gb&node=8&model=llama-3.1-8b&prec=fp8-blockwise",
            "BF16",
        ),
    ] {
        let (i, _) = plan3d_core::state::Inputs::from_query(query);
        let o = planner::outputs(&i).unwrap();
        let notes = planner::corrections(&i, &o);
        let n = notes.iter().find(|n| n.key == "prec").expect(query);
        assert_eq!(n.used, used, "{query}");
        assert!(n.reason.contains("needs"), "{}", n.reason);
    }
}
