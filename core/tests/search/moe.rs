//! The practice search on mixtures of experts: against brute force over
//! every expert degree, and its floor on a micro-batch, which must stay
//! under every configuration's step where the grouped expert GEMMs run
//! by shape.

use super::practice::{h100_with, search_is_brute, small, MEGATRON_SCHEDULES};
use plan3d_core::cost::assumptions::{Assumptions, Compute};
use plan3d_core::cost::evaluate_with;
use plan3d_core::cost::step::{micro_batch_floor, shaped_rates, Shaped};
use plan3d_core::search::Space;
use plan3d_core::{hardware, model, Config, Hardware, Network};

/// `routed` experts of width `ffn`, `top_k` a token, `shared` always on,
/// the first layer dense, routing limited to `node_limit` nodes (0: none).
fn experts(routed: u32, top_k: u32, ffn: u32, shared: u32, node_limit: u32) -> model::Experts {
    model::Experts {
        routed,
        top_k,
        ffn,
        shared,
        dense_layers: 1,
        node_limit,
    }
}

/// A mixture of experts: the search picks the expert-parallel degree with
/// the rest and agrees with brute force (every ep from 1 to d·cp), memory
/// tight and loose, all-to-alls overlapped or not, in BF16 and in
/// block-scaled FP8 (whose grouped expert GEMMs run furthest under the
/// format's ceiling: the search's floor takes their rates by shape, the
/// least over the expert degrees).
#[test]
fn practice_search_moe_is_brute_force() {
    let (mut found_ep, mut found_etp) = (false, false);
    for (gpus, mem, overlap, limit, compute) in [
        (16u64, 80.0, false, 0u32, Compute::Bf16),
        (16, 0.6, false, 0, Compute::Bf16),
        (32, 0.3, true, 2, Compute::Bf16),
        (32, 80.0, true, 0, Compute::Bf16),
        (16, 80.0, false, 0, Compute::Fp8Block),
        (32, 0.3, true, 0, Compute::Fp8Block),
    ] {
        let mut m = small(8, 2, 4, 1024, 64);
        m.experts = Some(experts(16, 2, 1024, 1, limit));
        let a = Assumptions {
            reserve: plan3d_core::units::Bytes(0.0),
            overlap_expert: overlap,
            compute,
            ..Assumptions::PRACTICE
        };
        let space = Space::default();
        if let Some(f) = search_is_brute(
            &m,
            &h100_with(mem),
            gpus,
            64,
            &a,
            space,
            &MEGATRON_SCHEDULES,
        ) {
            found_ep |= f.config.expert > 1;
            found_etp |= f.config.expert_tensor == 1 && f.config.tensor > 1;
        }
    }
    assert!(found_ep, "no case chose expert parallelism");
    assert!(
        found_etp,
        "no case split the experts apart from the tensor ranks"
    );
}

/// A mixture the size of DeepSeek-MoE 16B's layers (width 2 048, 64
/// routed experts of 1 408, six a token, two shared), whose steps are its
/// GEMMs: the search's floor by shape, the grouped expert GEMMs' rates
/// the least over the expert degrees, prunes and still finds brute
/// force's optimum, in BF16 and block-scaled FP8.
#[test]
fn practice_search_of_a_gemm_bound_moe_is_brute_force() {
    let mut m = small(16, 4, 8, 4096, 128);
    m.experts = Some(experts(64, 6, 1408, 2, 0));
    for (gpus, batch, compute) in [
        (16u64, 256u64, Compute::Fp8Block),
        (32, 512, Compute::Fp8Block),
        (32, 512, Compute::Bf16),
    ] {
        let a = Assumptions {
            compute,
            ..Assumptions::PRACTICE
        };
        let f = search_is_brute(
            &m,
            &h100_with(80.0),
            gpus,
            batch,
            &a,
            Space::default(),
            &MEGATRON_SCHEDULES,
        );
        assert!(f.is_some(), "{gpus} GPUs: no plan");
    }
}

/// The search's floor on a micro-batch for DeepSeek-V3 on H800s, with
/// each kernel rate the least over the expert degrees (what the search
/// passes, `RateCache::least_over_experts`), is under the kernels of every
/// configuration it bounds, per micro-batch, in BF16 and block-scaled
/// FP8. Under block-scaled FP8 it is well above the format's ceiling
/// alone (the search's floor before, which left DeepSeek-V3's search at
/// 14 k evaluations and 100 ms): the grouped expert GEMMs are short in K
/// and in rows. Brute force alone could not tell a floor too high: one
/// raised alike for every candidate keeps their order.
#[test]
fn the_moe_floor_is_under_every_step_it_bounds() {
    let dsv3 = model::DEEPSEEK_V3;
    let Some(e) = dsv3.experts else {
        panic!("DeepSeek-V3 has experts")
    };
    let hw = Hardware {
        gpu: hardware::H800,
        node_size: Some(8),
        network: Network::InfiniBand400,
        ..Hardware::default()
    };
    let divisors: Vec<u32> = (1..=e.routed).filter(|x| e.routed % x == 0).collect();
    for compute in [Compute::Bf16, Compute::Fp8Block] {
        let a = Assumptions {
            compute,
            ..Assumptions::PRACTICE
        };
        let (mut tightest, mut raised) = (f64::INFINITY, f64::INFINITY);
        for (t, p, b) in [
            (1u32, 16u32, 1u32),
            (2, 16, 1),
            (4, 16, 1),
            (8, 8, 2),
            (4, 8, 2),
        ] {
            let etps: &[u32] = if t > 1 { &[0, 1] } else { &[0] };
            let probe = |ep: u32, etp: u32| Config {
                tensor: t,
                pipe: p,
                micro_batch: b,
                data: 1,
                expert: ep,
                expert_tensor: etp,
                ..Config::default()
            };
            let least = divisors
                .iter()
                .flat_map(|&ep| etps.iter().map(move |&x| (ep, x)))
                .filter_map(|(ep, x)| shaped_rates(&dsv3, &hw, &probe(ep, x), &a))
                .reduce(|l, s| Shaped {
                    rates: l.rates.least(s.rates),
                    logit: l.logit.min(s.logit),
                })
                .expect("rates by shape under practice");
            let floor = micro_batch_floor(&dsv3, &hw, &a, t, p, b, 1, Some(&least));
            let ceilings = micro_batch_floor(&dsv3, &hw, &a, t, p, b, 1, None);
            raised = raised.min(floor / ceilings);
            for d in [8u32, 16, 32] {
                let m = 15_360 / (d * b);
                for &ep in divisors.iter().filter(|&&ep| (t * d) % ep == 0) {
                    for &etp in etps {
                        let cfg = Config {
                            data: d,
                            micro_batches: m,
                            sequence_parallel: t > 1,
                            ..probe(ep, etp)
                        };
                        let Ok(ev) = evaluate_with(&dsv3, &hw, &cfg, &a) else {
                            continue;
                        };
                        let per_micro_batch = ev.time.0 / ev.steps / f64::from(m);
                        assert!(
                            per_micro_batch >= floor,
                            "{compute:?} t {t} p {p} b {b} d {d} ep {ep} etp {etp}: \
                             {per_micro_batch} s under the floor {floor} s"
                        );
                        // The kernels alone: no bubble, communication or
                        // uneven stages.
                        let kernels = per_micro_batch * ev.overheads.efficiency();
                        tightest = tightest.min(kernels / floor);
                    }
                }
            }
        }
        if compute == Compute::Fp8Block {
            assert!(
                raised > 1.5,
                "the expert GEMMs' shapes do not raise the floor"
            );
        }
        eprintln!(
            "{compute:?}: the tightest step's kernels are {tightest:.3}× the floor, \
             which is at least {raised:.3}× the ceilings'"
        );
    }
}
