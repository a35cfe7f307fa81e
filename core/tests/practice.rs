//! The practice knobs against hand-derived values: Korthikanti et al.'s
//! activation counts, the 18-byte and sharded state, the interleaved
//! bubble, ring collectives, and the paper's numbers unchanged.

use plan3d_core::cost::assumptions::{Assumptions, Precision, Zero};
use plan3d_core::cost::memory::stage_memory;
use plan3d_core::cost::step::{self, bubble_fraction, in_flight, ring_seconds, stage_layers};
use plan3d_core::cost::{evaluate_with, Method};
use plan3d_core::model::{self, ModelShape};
use plan3d_core::{evaluate, hardware, ActivationModel, Config, Hardware, Network};

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
}

/// GPT-3 175B (Korthikanti's running example: s 2048, h 12288, a 96).
const GPT3: ModelShape = model::GPT_3;

fn cfg(activation: ActivationModel, sp: bool, tensor: u32) -> Config {
    Config {
        tensor,
        activation,
        sequence_parallel: sp,
        ..Config::default()
    }
}

/// Korthikanti et al. 2022, Table 2, per layer and token (divide their
/// s·b·h·(…) by s·b): without recomputation 10h + 24h/t + 5as/t; with
/// sequence parallelism 34h/t + 5as/t; selective drops the 5as/t; full
/// keeps the layer input, 2h (2h/t with sequence parallelism).
#[test]
fn korthikanti_activation_counts() {
    let (h, a, s, t) = (12_288.0, 96.0, 2048.0, 8.0);
    let kept = |act, sp| step::kept_per_token(&GPT3, &cfg(act, sp, 8), false).0;
    assert!(close(
        kept(ActivationModel::None, false),
        10.0 * h + 24.0 * h / t + 5.0 * a * s / t,
        1e-12
    ));
    assert!(close(
        kept(ActivationModel::None, true),
        34.0 * h / t + 5.0 * a * s / t,
        1e-12
    ));
    assert!(close(
        kept(ActivationModel::Selective, false),
        10.0 * h + 24.0 * h / t,
        1e-12
    ));
    assert!(close(
        kept(ActivationModel::Selective, true),
        34.0 * h / t,
        1e-12
    ));
    assert!(close(kept(ActivationModel::Full, false), 2.0 * h, 1e-12));
    assert!(close(kept(ActivationModel::Full, true), 2.0 * h / t, 1e-12));
    // FlashAttention stores no scores: no recomputation equals selective.
    let flash = |act| step::kept_per_token(&GPT3, &cfg(act, true, 8), true).0;
    assert_eq!(
        flash(ActivationModel::None),
        flash(ActivationModel::Selective)
    );
    // Full recomputation's working set is one layer without recomputation.
    let full = step::kept_per_token(&GPT3, &cfg(ActivationModel::Full, false, 8), false);
    assert!(close(
        full.1,
        10.0 * h + 24.0 * h / t + 5.0 * a * s / t,
        1e-12
    ));
}

/// Mixed-precision Adam keeps 2 + 4 + 12 = 18 bytes per parameter; the
/// distributed optimizer (ZeRO-1) divides the 12 by d, ZeRO-2 the
/// gradients too, ZeRO-3 everything (seed 001, Table 1's Ψ terms).
#[test]
fn eighteen_bytes_and_their_shards() {
    assert_eq!(Precision::MixedAdam.total(), 18.0);
    assert_eq!(Precision::Fp32Adam.total(), 16.0);
    assert_eq!(Precision::SgdMomentum.total(), 14.0);
    assert_eq!(Precision::Adam8Bit.total(), 10.0);
    let m = ModelShape {
        vocab: None,
        ..GPT3
    };
    let p = m.params();
    let a = Assumptions::PRACTICE;
    let base = Config {
        data: 8,
        ..Config::default()
    };
    let state = |zero| {
        let s = stage_memory(&m, &Config { zero, ..base }, &a, 0);
        (s.weights.0, s.gradients.0, s.optimizer.0)
    };
    assert_eq!(state(Zero::None), (2.0 * p, 4.0 * p, 12.0 * p));
    assert_eq!(state(Zero::One), (2.0 * p, 4.0 * p, 12.0 * p / 8.0));
    assert_eq!(state(Zero::Two), (2.0 * p, 4.0 * p / 8.0, 12.0 * p / 8.0));
    // ZeRO-3 holds its shard plus two gathered layers (current, prefetched).
    let (w, g, o) = state(Zero::Three);
    assert!(close(w, 2.0 * p / 8.0 + 4.0 * m.layer_params(), 1e-12));
    assert_eq!((g, o), (4.0 * p / 8.0, 12.0 * p / 8.0));
    // The paper's partitioned method is ZeRO-3.
    let part = Config {
        method: Method::Partitioned,
        ..base
    };
    assert_eq!(stage_memory(&m, &part, &a, 0).optimizer.0, 12.0 * p / 8.0);
}

/// The interleaved bubble (p−1)/(v·m) (PTD-P sec. 2.2.2) and its memory:
/// the first device holds p·(1 + (p−1)/(p·v)) micro-batches of its stage
/// (Korthikanti sec. 4.2.3), 1F1B p − i on device i.
#[test]
fn interleaved_bubble_and_in_flight() {
    let c = Config {
        pipe: 8,
        virtual_stages: 12,
        micro_batches: 64,
        ..Config::default()
    };
    assert!(close(bubble_fraction(&c, 96), 7.0 / (12.0 * 64.0), 1e-12));
    assert!(close(
        in_flight(&c, 0),
        8.0 * (1.0 + 7.0 / (8.0 * 12.0)),
        1e-12
    ));
    let plain = Config {
        virtual_stages: 1,
        ..c
    };
    assert!(close(bubble_fraction(&plain, 96), 7.0 / 64.0, 1e-12));
    for i in 0..8 {
        assert_eq!(in_flight(&plain, i), f64::from(8 - i));
    }
    // Never more than the batch's micro-batches.
    assert_eq!(
        in_flight(
            &Config {
                micro_batches: 3,
                ..plain
            },
            0
        ),
        3.0
    );
    // 126 layers over 16 stages (Llama 3.1 405B): 8 on the first 14, 7 on
    // the last two, 126 in all.
    let per: Vec<u32> = (0..16).map(|i| stage_layers(126, 16, 1, i)).collect();
    assert_eq!(per.iter().sum::<u32>(), 126);
    assert_eq!((per[0], per[15]), (8, 7));
}

/// A ring all-reduce moves 2(n−1)/n of the data through each GPU: 1 GB over
/// 8 GPUs at 100 GB/s per direction takes 17.5 ms; a reduce-scatter half.
#[test]
fn ring_collectives() {
    assert!(close(ring_seconds(1e9, 8.0, 2.0, 100e9), 0.0175, 1e-12));
    assert!(close(ring_seconds(1e9, 8.0, 1.0, 100e9), 0.00875, 1e-12));
    assert_eq!(ring_seconds(1e9, 1.0, 2.0, 100e9), 0.0);
}

fn h100() -> Hardware {
    Hardware {
        gpu: hardware::H100_SXM,
        node_size: Some(8),
        network: Network::InfiniBand400,
        ..Hardware::default()
    }
}

/// Every stage's parts sum to its total, the heaviest is what `fits`
/// compares, and the step's parts sum to the step; MFU ≤ HFU.
#[test]
fn practice_invariants() {
    let m = model::LLAMA_3_1_405B;
    let c = Config {
        data: 128,
        pipe: 16,
        tensor: 8,
        virtual_stages: 2,
        micro_batch: 1,
        micro_batches: 16,
        sequence_parallel: true,
        zero: Zero::One,
        activation: ActivationModel::Full,
        ..Config::default()
    };
    let e = evaluate_with(&m, &h100(), &c, &Assumptions::PRACTICE).unwrap();
    let parts = e.step_parts.unwrap();
    assert!(close(parts.total(), e.step.0, 1e-12));
    let mut heaviest = 0.0_f64;
    for s in e.stages.iter() {
        let sum: f64 = s.parts().iter().map(|(_, b)| b.0).sum();
        assert!(close(sum, s.total().0, 1e-12));
        heaviest = heaviest.max(s.total().0);
    }
    assert_eq!(e.peak_memory.0, heaviest);
    assert_eq!(e.fits, heaviest <= hardware::H100_SXM.memory.0);
    assert!(e.mfu() < e.hfu());
    assert!(close(
        e.tokens_per_second * e.step.0,
        2048.0 * 8192.0,
        1e-12
    ));
    // 20 tokens per parameter by default.
    assert!(close(e.tokens, 20.0 * m.params_exact(), 1e-12));
    // A token budget sets the days.
    let a = Assumptions {
        tokens: Some(15.6e12),
        ..Assumptions::PRACTICE
    };
    let e2 = evaluate_with(&m, &h100(), &c, &a).unwrap();
    assert!(close(e2.time.0, 15.6e12 / e2.tokens_per_second, 1e-12));
}

/// Practice shards whole heads: a tensor degree that does not divide the
/// key/value heads is an error, not a number.
#[test]
fn practice_rejects_split_heads() {
    let c = Config {
        tensor: 16,
        data: 1,
        ..Config::default()
    };
    let hw = Hardware {
        node_size: Some(16),
        ..h100()
    };
    assert!(evaluate_with(&model::LLAMA_3_1_405B, &hw, &c, &Assumptions::PRACTICE).is_err());
    assert!(evaluate(&model::LLAMA_3_1_405B, &hw, &c).is_ok());
}

/// The paper setting is `evaluate`, field for field.
#[test]
fn paper_setting_is_evaluate() {
    let x160 = model::x_family(160).unwrap();
    let c = Config {
        method: Method::Improved,
        data: 483,
        pipe: 5,
        tensor: 16,
        micro_batches: 5,
        ..Config::default()
    };
    let a = evaluate(&x160, &Hardware::default(), &c).unwrap();
    let b = evaluate_with(&x160, &Hardware::default(), &c, &Assumptions::PAPER).unwrap();
    assert_eq!(a, b);
    assert!(close(a.step.0 * a.steps, a.time.0, 1e-12));
}
