//! Benchmarks for the budgets of the search issue: rules for every method ×
//! parallelism (≤ 100 µs), exhaustive search for X160 (≤ 10 ms), a 200-point
//! sweep × 3 methods (≤ 5 ms), schedules of 10k and 100k events (≤ 10 ms
//! for 100k), the practice search for Llama 3.1 405B on up to 16 384 H100s
//! (≤ 20 ms), and raw evaluations per second.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plan3d_core::{
    evaluate,
    model::x_family,
    schedule::{simulate, ScheduleKind, ScheduleSpec},
    search::{
        exhaustive, pareto, practice as practice_search, rules, sweep, Constraints, Parallelism,
        Space,
    },
    Config, Hardware, Method,
};

const METHODS: [Method; 3] = [Method::Baseline, Method::Partitioned, Method::Improved];

fn benches(c: &mut Criterion) {
    let x160 = x_family(160).unwrap();
    let hw = Hardware::default();
    let cons = Constraints::default();

    c.bench_function("rules: 3 methods x 6 parallelism settings, X160", |b| {
        b.iter(|| {
            for m in METHODS {
                for p in Parallelism::ALL {
                    let _ = black_box(rules(&x160, &hw, m, p, &cons));
                }
            }
        });
    });
    c.bench_function("exhaustive: X160, any method, 3d", |b| {
        b.iter(|| black_box(exhaustive(&x160, &hw, None, Parallelism::ThreeD, &cons).unwrap()));
    });
    // The search's hard corners: a small model on a slow network (the
    // network-aware bound), and hundreds of tensor degrees without a node
    // limit (the per-degree bound).
    let x24 = x_family(24).unwrap();
    let eth = Hardware {
        network: plan3d_core::Network::Ethernet25,
        ..Hardware::default()
    };
    c.bench_function("exhaustive: X24 on 25 Gb/s Ethernet", |b| {
        b.iter(|| black_box(exhaustive(&x24, &eth, None, Parallelism::ThreeD, &cons).unwrap()));
    });
    let x612 = x_family(612).unwrap();
    let unlimited = Hardware {
        node_size: None,
        ..Hardware::default()
    };
    c.bench_function("exhaustive: X612, no node limit", |b| {
        b.iter(|| {
            black_box(exhaustive(&x612, &unlimited, None, Parallelism::ThreeD, &cons).unwrap())
        });
    });
    c.bench_function("pareto: X160, any method, 3d, 8 budget levels", |b| {
        b.iter(|| black_box(pareto(&x160, &hw, None, Parallelism::ThreeD, &cons, 8).unwrap()));
    });
    c.bench_function("sweep: 200 points x 3 methods, 1e9..1e16", |b| {
        b.iter(|| {
            for m in METHODS {
                black_box(sweep(&hw, m, Parallelism::ThreeD, &cons, 1e9, 1e16, 200).unwrap());
            }
        });
    });
    // Schedules: 10k and 100k events.
    for (label, kind, devices, layers, mbs) in [
        (
            "schedule: 1f1b, 8 devices x 64 layers x 640 micro-batches (~10k events)",
            ScheduleKind::OneFOneB,
            8,
            64,
            640,
        ),
        (
            "schedule: modular, 32 devices x 512 layers x 64 micro-batches (~100k events)",
            ScheduleKind::Modular,
            32,
            512,
            64,
        ),
    ] {
        let mut spec = ScheduleSpec::unit(kind, devices, layers, mbs);
        spec.durations.send = 0.1;
        spec.data = 2;
        spec.durations.reduce = 0.5;
        let n = simulate(&spec).unwrap().events.len();
        println!("{label}: {n} events");
        c.bench_function(label, |b| b.iter(|| black_box(simulate(&spec).unwrap())));
    }
    let cfg = Config {
        method: Method::Improved,
        data: 483,
        pipe: 5,
        tensor: 16,
        micro_batch: 1,
        micro_batches: 5,
        ..Config::default()
    };
    // The practice search (issue 16: ≤ 20 ms native): Llama 3.1 405B on up
    // to 16 384 H100s, batch free up to b_c and with Meta's 2048 sequences,
    // and on exactly 16 384.
    let llama = plan3d_core::model::LLAMA_3_1_405B;
    let h100 = Hardware {
        gpu: plan3d_core::hardware::H100_SXM,
        node_size: Some(8),
        network: plan3d_core::Network::InfiniBand400,
        ..Hardware::default()
    };
    let practice = plan3d_core::cost::Assumptions::PRACTICE;
    for (name, c16, space) in [
        (
            "practice: 405B, <= 16384 H100, batch free",
            Constraints {
                max_gpus: Some(16_384),
                ..Constraints::default()
            },
            Space::default(),
        ),
        (
            "practice: 405B, <= 16384 H100, batch 2048",
            Constraints {
                max_gpus: Some(16_384),
                ..Constraints::default()
            },
            Space {
                global_batch: Some(2048),
                ..Space::default()
            },
        ),
        (
            "practice: 405B, exactly 16384 H100, batch 2048",
            Constraints {
                exact_gpus: Some(16_384),
                ..Constraints::default()
            },
            Space {
                global_batch: Some(2048),
                ..Space::default()
            },
        ),
    ] {
        c.bench_function(name, |b| {
            b.iter(|| {
                black_box(
                    practice_search(&llama, &h100, Parallelism::ThreeD, &c16, &space, &practice)
                        .unwrap(),
                )
            });
        });
    }
    // DeepSeek-V3 on up to 2 048 H800s at its batch (issue 37: ≤ 50 ms
    // native), BF16 and with its block-scaled FP8.
    let dsv3 = plan3d_core::model::DEEPSEEK_V3;
    let h800 = Hardware {
        gpu: plan3d_core::hardware::H800,
        node_size: Some(8),
        network: plan3d_core::Network::InfiniBand400,
        ..Hardware::default()
    };
    let c2048 = Constraints {
        max_gpus: Some(2048),
        ..Constraints::default()
    };
    let batch = Space {
        global_batch: Some(15_360),
        ..Space::default()
    };
    for (name, compute) in [
        (
            "practice: DeepSeek-V3, <= 2048 H800, BF16",
            plan3d_core::cost::assumptions::Compute::Bf16,
        ),
        (
            "practice: DeepSeek-V3, <= 2048 H800, FP8 blocks",
            plan3d_core::cost::assumptions::Compute::Fp8Block,
        ),
    ] {
        let a = plan3d_core::cost::Assumptions {
            compute,
            ..plan3d_core::cost::Assumptions::PRACTICE
        };
        c.bench_function(name, |b| {
            b.iter(|| {
                black_box(
                    practice_search(&dsv3, &h800, Parallelism::ThreeD, &c2048, &batch, &a).unwrap(),
                )
            });
        });
    }
    let mut g = c.benchmark_group("evaluate");
    g.throughput(Throughput::Elements(1));
    g.bench_function("one configuration", |b| {
        b.iter(|| black_box(evaluate(black_box(&x160), &hw, black_box(&cfg)).unwrap()));
    });
    g.finish();
}

criterion_group! {
    name = search;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = benches
}
criterion_main!(search);
