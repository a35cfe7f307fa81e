//! Benchmarks for the budgets of the search issue: rules for every method ×
//! parallelism (≤ 100 µs), exhaustive search for X160 (≤ 10 ms), a 200-point
//! sweep × 3 methods (≤ 5 ms), schedules of 10k and 100k events (≤ 10 ms
//! for 100k), and raw evaluations per second.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plan3d_core::{
    evaluate,
    model::x_family,
    schedule::{simulate, ScheduleKind, ScheduleSpec},
    search::{exhaustive, pareto, rules, sweep, Constraints, Parallelism},
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
