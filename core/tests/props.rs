//! Properties on random inputs: no panic, finite outputs, breakdowns that
//! sum, and monotonicity where the physics demands it.

use plan3d_core::{
    estimate::training_time,
    evaluate, hardware,
    model::{preset, x_family},
    zero, ActivationModel, Config, Hardware, Method, ModelShape, Network,
};
use proptest::prelude::*;

fn any_shape() -> impl Strategy<Value = ModelShape> {
    (
        (0u32..70_000, 0u32..3_000, 0u32..3_000, 0u32..4_000),
        (0u32..100_000, 0u32..3_000, any::<bool>(), any::<bool>()),
        (proptest::option::of(0u32..300_000), any::<bool>()),
    )
        .prop_map(
            |((seq_len, heads, head_size, layers), (ffn, kv, gated_mlp, biases), (vocab, tied))| {
                ModelShape {
                    seq_len,
                    heads,
                    head_size,
                    kv_heads: if kv == 0 { heads } else { kv },
                    layers,
                    ffn,
                    gated_mlp,
                    biases,
                    vocab,
                    tied_embeddings: tied,
                    experts: None,
                    latent: None,
                    hidden: None,
                    qk_norm: false,
                }
            },
        )
}

fn any_u32() -> impl Strategy<Value = u32> {
    prop_oneof![0u32..64, 0u32..5_000, any::<u32>()]
}

fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        0.0f64..1.5,
        any::<f64>(),
        Just(f64::NAN),
        Just(f64::INFINITY)
    ]
}

fn any_config() -> impl Strategy<Value = Config> {
    (
        (0usize..4, any_u32(), any_u32(), any_u32()),
        (any_u32(), any_u32(), any::<bool>(), 0usize..4),
    )
        .prop_map(
            |((m, data, pipe, tensor), (micro_batch, micro_batches, offload, a))| Config {
                method: Method::ALL[m],
                data,
                pipe,
                tensor,
                micro_batch,
                micro_batches,
                offload,
                activation: ActivationModel::ALL[a],
                ..Config::default()
            },
        )
}

fn any_hardware() -> impl Strategy<Value = Hardware> {
    (
        0usize..5,
        proptest::option::of(any_u32()),
        0usize..5,
        any_f64(),
    )
        .prop_map(|(g, node_size, n, kernel_efficiency)| Hardware {
            gpu: hardware::GPUS[g],
            node_size,
            network: Network::ALL[n],
            kernel_efficiency,
        })
}

/// A valid configuration of X[x] on the paper's hardware, by construction.
fn valid_x() -> impl Strategy<Value = (ModelShape, Config)> {
    (1u32..=100).prop_flat_map(|half| {
        let x = 2 * half;
        let m = x_family(x).unwrap();
        let tensors: Vec<u32> = (1..=16).filter(|t| m.heads % t == 0).collect();
        (
            Just(m),
            0usize..4,
            1u32..2_000,
            1u32..=x,
            proptest::sample::select(tensors),
            1u32..16,
            1u32..400,
            any::<bool>(),
        )
            .prop_map(
                |(m, method, data, pipe, tensor, micro_batch, nmu, offload)| {
                    let method = Method::ALL[method];
                    let micro_batches = if method.layered() { nmu.max(pipe) } else { nmu };
                    (
                        m,
                        Config {
                            method,
                            data,
                            pipe,
                            tensor,
                            micro_batch,
                            micro_batches,
                            offload,
                            ..Config::default()
                        },
                    )
                },
            )
    })
}

proptest! {
    #[test]
    fn prop_evaluate_never_panics_and_outputs_are_finite(
        m in any_shape(), hw in any_hardware(), cfg in any_config()
    ) {
        if let Ok(e) = evaluate(&m, &hw, &cfg) {
            let mem = e.memory;
            for x in [mem.state, mem.checkpoints, mem.buffers, mem.activations] {
                prop_assert!(x.get().is_finite() && x.get() >= 0.0, "{x:?}");
            }
            prop_assert!(e.efficiency > 0.0 && e.efficiency <= 1.0, "{}", e.efficiency);
            prop_assert!(e.time.get().is_finite() && e.time.get() > 0.0);
            prop_assert!(e.total_flops.get().is_finite());
            for (_, o) in e.overheads.entries() {
                prop_assert!(o.is_finite() && o >= 0.0);
            }
            for t in e.transfers.iter() {
                prop_assert!(t.intensity.get().is_finite() && t.intensity.get() > 0.0);
            }
        }
    }

    #[test]
    fn prop_names_never_panic(s in ".*") {
        let _ = preset(&s);
        let _ = hardware::gpu(&s);
        let _ = Network::parse(&s);
        let _ = Method::parse(&s);
        let _ = ActivationModel::parse(&s);
    }

    #[test]
    fn prop_zero_and_estimate_never_panic(
        p in any_f64(), dp in any_u32(), stage in any::<u8>(), k in any_f64(),
        t in any_f64(), n in any_f64(), x in any_f64(), f in any_f64()
    ) {
        if let Ok(z) = zero::zero(p * 1e12, dp, stage, k * 20.0) {
            prop_assert!(z.total().get().is_finite());
        }
        if let Ok(s) = training_time(p * 1e12, t * 1e12, n * 1e4, x * 1e15, f * 10.0) {
            prop_assert!(s.get().is_finite() && s.get() > 0.0);
        }
    }

    #[test]
    fn prop_breakdown_sums_to_its_totals((m, cfg) in valid_x()) {
        let e = evaluate(&m, &Hardware::default(), &cfg).unwrap();
        let mem = e.memory;
        let parts = mem.state + mem.checkpoints + mem.buffers + mem.activations;
        prop_assert_eq!(mem.offloadable() + mem.non_offloadable(), mem.total());
        prop_assert!((parts.get() - mem.total().get()).abs() <= 1e-9 * mem.total().get());
        prop_assert!(mem.on_gpu(cfg.offload) <= mem.total());
        let parts_on_gpu: f64 = mem.on_gpu_parts(cfg.offload).iter().map(|b| b.get()).sum();
        prop_assert!((parts_on_gpu - mem.on_gpu(cfg.offload).get()).abs() <= 1e-9 * mem.total().get());
        // Offloading leaves exactly the non-offloadable part on the GPU.
        prop_assert!((mem.on_gpu(true).get() - mem.non_offloadable().get()).abs() <= 1e-9 * mem.total().get());
        prop_assert!((mem.on_gpu(false).get() - mem.total().get()).abs() <= 1e-9 * mem.total().get());
        prop_assert_eq!(e.fits, mem.on_gpu(cfg.offload).get() <= 80.0 * 1_073_741_824.0);
    }

    #[test]
    fn prop_time_is_work_over_throughput((m, cfg) in valid_x()) {
        let e = evaluate(&m, &Hardware::default(), &cfg).unwrap();
        let t = e.total_flops.get() / (e.gpus as f64 * 312e12 * e.efficiency);
        prop_assert!((t - e.time.get()).abs() <= 1e-9 * t);
        // Below the critical batch, more steps; never fewer than 10⁵.
        prop_assert!(e.steps >= 1e5);
    }

    #[test]
    fn prop_more_data_partitions_never_increase_partitioned_state(
        (m, cfg) in valid_x(), extra in 1u32..1000
    ) {
        let hw = Hardware::default();
        let mut cfg = cfg;
        cfg.method = Method::Partitioned;
        let a = evaluate(&m, &hw, &cfg).unwrap();
        cfg.data += extra;
        let b = evaluate(&m, &hw, &cfg).unwrap();
        prop_assert!(b.memory.state <= a.memory.state);
        prop_assert!(b.memory.checkpoints <= a.memory.checkpoints);
        prop_assert_eq!(b.memory.buffers, a.memory.buffers);
    }

    #[test]
    fn prop_partition_never_costs_memory((m, cfg) in valid_x()) {
        let hw = Hardware::default();
        let plain = evaluate(&m, &hw, &Config { method: Method::Baseline, ..cfg }).unwrap();
        let part = evaluate(&m, &hw, &Config { method: Method::Partitioned, ..cfg }).unwrap();
        prop_assert!(part.memory.state <= plain.memory.state);
        prop_assert_eq!(part.memory.non_offloadable(), plain.memory.non_offloadable());
    }

    #[test]
    fn prop_more_micro_batches_shrink_the_bubble((m, cfg) in valid_x(), extra in 1u32..100) {
        let hw = Hardware::default();
        let a = evaluate(&m, &hw, &cfg).unwrap();
        let b = evaluate(&m, &hw, &Config { micro_batches: cfg.micro_batches + extra, ..cfg }).unwrap();
        prop_assert!(b.overheads.bubble <= a.overheads.bubble);
        if cfg.pipe == 1 {
            prop_assert_eq!(a.overheads.bubble, 0.0);
        }
    }

    #[test]
    fn prop_slower_network_never_speeds_up((m, cfg) in valid_x()) {
        let ib = Hardware::default();
        let eth = Hardware { network: Network::Ethernet25, ..ib };
        let a = evaluate(&m, &ib, &cfg).unwrap();
        let b = evaluate(&m, &eth, &cfg).unwrap();
        prop_assert!(b.efficiency <= a.efficiency * (1.0 + 1e-12));
    }

    #[test]
    fn prop_zero_stages_never_increase_memory(p in 1.0f64..1e15, dp in 1u32..100_000, stage in 1u8..=3) {
        let hi = zero::zero(p, dp, stage - 1, 12.0).unwrap();
        let lo = zero::zero(p, dp, stage, 12.0).unwrap();
        prop_assert!(lo.total() <= hi.total());
        let more = zero::zero(p, dp.saturating_add(1), stage, 12.0).unwrap();
        prop_assert!(more.total() <= lo.total());
    }
}
