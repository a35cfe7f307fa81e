//! Schedules: analytic bubbles, invariants, the paper's figures.

use std::collections::HashMap;

use plan3d_core::{
    evaluate,
    model::x_family,
    schedule::{simulate, Durations, EventKind, MemorySizes, ScheduleKind, ScheduleSpec, Stream},
    ActivationModel, Config, Hardware, Method,
};
use proptest::prelude::*;

use ScheduleKind::{DualPipe, Ga, Gpipe, Interleaved, Lga, Modular, OneFOneB, ZbH1, ZbV};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

proptest! {
    #[test]
    fn prop_free_communication_bubble_is_analytic(
        nl in 1u32..=8, per in 1u32..=4, nmu_mult in 1u32..=6, extra in 0u32..=5, v in 1u32..=3, b in 2u32..=3
    ) {
        let nmu = nl * nmu_mult;
        let unit = |kind, layers, micro_batches, chunks| {
            let mut s = ScheduleSpec::unit(kind, nl, layers, micro_batches);
            s.chunks = chunks;
            s.durations = Durations::unit(f64::from(b));
            simulate(&s).unwrap()
        };
        let (nlf, nmuf) = (f64::from(nl), f64::from(nmu + extra));
        // GPipe and 1F1B: (n_l − 1)/n_µ, for any n_µ.
        for kind in [Gpipe, OneFOneB] {
            let s = unit(kind, nl * per, nmu + extra, 1);
            prop_assert!(close(s.bubble_fraction, (nlf - 1.0) / nmuf), "{kind:?} {}", s.bubble_fraction);
        }
        // Interleaved: (n_l − 1)/(v·n_µ), n_µ a multiple of n_l.
        let s = unit(Interleaved, nl * v * per, nmu, v);
        prop_assert!(close(s.bubble_fraction, (nlf - 1.0) / (f64::from(v) * f64::from(nmu))),
            "interleaved {} vs {}", s.bubble_fraction, (nlf - 1.0) / (f64::from(v) * f64::from(nmu)));
        // ZB-H1 (Qi et al. 2024, sec. 3.1): (n_l − 1)·(F + B − W) with the
        // backward b split into W = F = 1 and B = b − 1, over n_µ·(1 + b).
        let s = unit(ZbH1, nl * per, nmu + extra, 1);
        let zb = (nlf - 1.0) * (f64::from(b) - 1.0) / (nmuf * (1.0 + f64::from(b)));
        prop_assert!(close(s.bubble_fraction, zb), "zb-h1 {} vs {zb}", s.bubble_fraction);
        // …a third of 1F1B's when F = B = W (b = 2), and 1F1B's peak memory.
        if b == 2 {
            let one = unit(OneFOneB, nl * per, nmu + extra, 1);
            prop_assert!(close(3.0 * s.bubble_fraction, one.bubble_fraction));
            prop_assert_eq!(s.memory_peak.iter().copied().fold(0.0, f64::max),
                one.memory_peak.iter().copied().fold(0.0, f64::max));
        }
        // ZB-V (Qi et al. 2024, sec. 6), 2p half stages: every device idles
        // (p−1) half-stage input gradients, (p−1)·B/2 = half ZB-H1's, when
        // W = F ≤ B (b ≥ 2); for any m ≥ 2p − 1; 1F1B's peak memory.
        let mv = (2 * nl - 1).max(1) + extra * nmu_mult;
        let s = unit(ZbV, 2 * nl * per, mv, 1);
        let zbv = (nlf - 1.0) * (f64::from(b) - 1.0) / (2.0 * f64::from(mv) * (1.0 + f64::from(b)));
        prop_assert!(close(s.bubble_fraction, zbv), "zb-v {} vs {zbv}", s.bubble_fraction);
        let one = unit(OneFOneB, 2 * nl * per, mv, 1);
        prop_assert_eq!(s.memory_peak.iter().copied().fold(0.0, f64::max),
            one.memory_peak.iter().copied().fold(0.0, f64::max));
        prop_assert!(s.in_flight.iter().enumerate().all(|(i, &f)| f == (2 * nl - i as u32).min(mv)),
            "{:?}", s.in_flight);
        // DualPipe (DeepSeek-V3 sec. 3.2.1, Table 2): (n_l/2 − 1)·(F&B + B
        // − 3W), B the whole backward, when F = B = W (b = 2): F&B = 3,
        // B = 2, W = 1; n_l + 1 micro-batches in flight.
        if b == 2 && nl % 2 == 0 {
            let m = 2 * nl * nmu_mult;
            let s = unit(DualPipe, nl * per, m, 1);
            let dual = (nlf / 2.0 - 1.0) * (3.0 + 2.0 - 3.0) / (f64::from(m) * 3.0);
            prop_assert!(close(s.bubble_fraction, dual), "dualpipe {} vs {dual}", s.bubble_fraction);
            prop_assert!(s.in_flight.iter().all(|&f| f == nl + 1), "{:?}", s.in_flight);
        }
        // Modular: (n_l − 1)·n_l/(n_µ·d_l) for n_µ ≥ n_l (sec. 4).
        let dl = nl * per;
        let s = unit(Modular, dl, nmu + extra, 1);
        prop_assert!(close(s.bubble_fraction, (nlf - 1.0) * nlf / (nmuf * f64::from(dl))),
            "modular {}", s.bubble_fraction);
    }

    #[test]
    fn prop_schedules_are_consistent(
        kind in 0usize..9, nl in 1u32..=6, per in 1u32..=3, nmu_mult in 1u32..=4, v in 1u32..=3,
        data in 1u32..=3, partition in any::<bool>(), offload in any::<bool>(),
        reduce in 0.0f64..3.0, restore in 0.0f64..2.0, send in 0.0f64..1.5, cpu in 0.0f64..1.0
    ) {
        let kind = ScheduleKind::ALL[kind];
        let nl = if kind == DualPipe { 2 * nl.div_ceil(2) } else if kind.pipelined() { nl } else { 1 };
        let chunks = if kind == Interleaved { v } else { 1 };
        let nmu = if matches!(kind, DualPipe | ZbV) { 2 * nl * nmu_mult } else { nl * nmu_mult };
        let chunks_v = if kind == ZbV { 2 } else { chunks };
        let mut spec = ScheduleSpec::unit(kind, nl, nl * chunks_v * per, nmu);
        spec.chunks = chunks;
        spec.data = data;
        spec.partition = partition;
        spec.offload = offload;
        spec.durations.reduce = reduce;
        spec.durations.restore = restore;
        spec.durations.send = send;
        spec.durations.cpu_gpu = cpu;
        let s = simulate(&spec).unwrap();
        // One op at a time on every stream of every device.
        let mut by_stream: HashMap<(u32, Stream), Vec<(f64, f64)>> = HashMap::new();
        for e in &s.events {
            prop_assert!(e.end >= e.start && e.start >= 0.0);
            by_stream.entry((e.device, e.stream)).or_default().push((e.start, e.end));
        }
        for v in by_stream.values_mut() {
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            for w in v.windows(2) {
                prop_assert!(w[1].0 >= w[0].1 - 1e-9, "overlap {w:?}");
            }
        }
        // Each (layer, micro-batch) has one forward and one backward, the
        // forward first; the data flows layer to layer.
        let mut f = HashMap::new();
        let mut b = HashMap::new();
        let mut w = HashMap::new();
        for e in s.events.iter().filter(|e| e.stream == Stream::Compute) {
            let key = (e.layer, e.micro_batch);
            match e.kind {
                EventKind::Forward => prop_assert!(f.insert(key, *e).is_none()),
                EventKind::Backward => prop_assert!(b.insert(key, *e).is_none()),
                EventKind::WeightGradient => prop_assert!(w.insert(key, *e).is_none()),
                _ => {}
            }
        }
        prop_assert_eq!(f.len(), b.len());
        // A split backward: one W per B, after it, on the same device.
        if kind.splits_backward() {
            prop_assert_eq!(w.len(), b.len());
            for (key, we) in &w {
                prop_assert!(we.start >= b[key].end - 1e-9 && we.device == b[key].device);
            }
        } else {
            prop_assert!(w.is_empty());
        }
        for (key, fe) in &f {
            let be = b[key];
            prop_assert!(be.start >= fe.end - 1e-9);
            let next = fe.layer + fe.layers;
            if let Some(nf) = f.get(&(next, key.1)) {
                let gap = if nf.device != fe.device { send } else { 0.0 };
                prop_assert!(nf.start >= fe.end + gap - 1e-9, "forward {fe:?} -> {nf:?}");
                let nb = b[&(next, key.1)];
                prop_assert!(be.start >= nb.end + gap - 1e-9, "backward {nb:?} -> {be:?}");
            }
        }
        // Free transfers never slow a schedule down.
        prop_assert!(s.exposed_communication >= 0.0);
        prop_assert!(s.utilisation.iter().all(|u| *u > 0.0 && *u <= 1.0 + 1e-12));
    }
}

proptest! {
    /// Interleaved 1F1B with groups of N micro-batches (Megatron-Core's
    /// `microbatch_group_size_per_vp_stage`, the Llama 3 paper's N), for any
    /// m ≥ p and every N Megatron-Core takes: the bubble stays (p−1)/(v·m)
    /// (the Llama 3 paper's "(PP−1)/(V·M)"), and every device holds at its
    /// peak the micro-batches the practice memory counts
    /// (`cost::step::in_flight`: 2·(p − i − 1) + (v − 1)·N + 1 chunks).
    #[test]
    fn prop_interleaved_groups(p in 2u32..=6, v in 2u32..=3, per in 1u32..=2, extra in 0u32..=12, n_pick in 0u32..=12) {
        let m = p + extra;
        let fits: Vec<u32> = (p..=m).filter(|&n| plan3d_core::schedule::group_fits(n, p, m)).collect();
        prop_assert!(!fits.is_empty());
        let n = fits[n_pick as usize % fits.len()];
        let mut spec = ScheduleSpec::unit(Interleaved, p, p * v * per, m);
        spec.chunks = v;
        spec.group = n;
        let s = simulate(&spec).unwrap();
        let bubble = f64::from(p - 1) / f64::from(v * m);
        prop_assert!(close(s.bubble_fraction, bubble), "N {n}: {} vs {bubble}", s.bubble_fraction);
        let cfg = Config {
            pipe: p,
            virtual_stages: v,
            micro_batches: m,
            microbatch_group: n,
            ..Config::default()
        };
        for i in 0..p {
            // Unit memory: one per layer and micro-batch kept.
            let held = plan3d_core::cost::step::in_flight(&cfg, i) * f64::from(v * per);
            prop_assert!(close(s.memory_peak[i as usize], held), "N {n} device {i}: {} vs {held}", s.memory_peak[i as usize]);
        }
        // The default group is the smallest that fits: p when p divides m.
        spec.group = 0;
        let d = simulate(&spec).unwrap();
        let smallest = Config { microbatch_group: fits[0], ..cfg };
        let held = plan3d_core::cost::step::in_flight(&smallest, 0) * f64::from(v * per);
        prop_assert!(close(d.memory_peak[0], held), "default: {} vs {held}", d.memory_peak[0]);
        if m % p == 0 {
            prop_assert_eq!(fits[0], p);
        }
    }
}

/// Megatron-Core's own examples of the grouped order
/// (`model_parallel_config.py`, `microbatch_group_size_per_vp_stage`): PP 2,
/// VP 2; N = 2 over 4 micro-batches runs "0 1 0 1 2 3 2 3" forwards on
/// rank 0, N = 3 over 5 "0 1 2 0 1 2 3 4 3 4". Groups Megatron-Core refuses
/// are refused.
#[test]
fn interleaved_groups_run_megatron_cores_order() {
    for (n, m, order) in [
        (2, 4, [0, 1, 0, 1, 2, 3, 2, 3].as_slice()),
        (3, 5, &[0, 1, 2, 0, 1, 2, 3, 4, 3, 4]),
    ] {
        let mut spec = ScheduleSpec::unit(Interleaved, 2, 8, m);
        spec.chunks = 2;
        spec.group = n;
        let s = simulate(&spec).unwrap();
        let mut forwards: Vec<_> = s
            .events
            .iter()
            .filter(|e| {
                e.device == 0 && e.kind == EventKind::Forward && e.stream == Stream::Compute
            })
            .collect();
        forwards.sort_by(|a, b| a.start.total_cmp(&b.start));
        forwards.dedup_by_key(|e| (e.micro_batch, e.layer / 2));
        let got: Vec<u32> = forwards.iter().filter_map(|e| e.micro_batch).collect();
        assert_eq!(got, order, "N {n}, m {m}");
    }
    for (p, n, m) in [(4, 3, 6), (4, 7, 6), (4, 4, 6), (4, 5, 7)] {
        let mut spec = ScheduleSpec::unit(Interleaved, p, 16, m);
        spec.chunks = 2;
        spec.group = n;
        assert!(simulate(&spec).is_err(), "p {p} N {n} m {m}");
    }
}

fn fig1(kind: ScheduleKind, reduce: f64) -> plan3d_core::schedule::Schedule {
    let mut s = ScheduleSpec::unit(kind, 1, 4, 4);
    s.data = 2;
    s.durations.reduce = reduce;
    simulate(&s).unwrap()
}

#[test]
fn layered_accumulation_spreads_the_reduction() {
    // Fig. 1: with layered accumulation each layer's reduction overlaps the
    // backward passes of the layers below; only the first layer's is exposed.
    for reduce in [1.0, 4.0, 8.0] {
        let lga = fig1(Lga, reduce);
        let last_backward = lga
            .events
            .iter()
            .filter(|e| e.kind == EventKind::Backward)
            .map(|e| e.end)
            .fold(0.0, f64::max);
        let reduces: Vec<_> = lga
            .events
            .iter()
            .filter(|e| e.kind == EventKind::Reduce)
            .collect();
        assert_eq!(reduces.len(), 4);
        for r in reduces.iter().filter(|r| r.layer > 0) {
            assert!(r.end <= last_backward + 1e-9, "{r:?}");
        }
        assert!(close(lga.exposed_communication, reduce));
        // Standard accumulation squeezes them into the last micro-batch.
        let ga = fig1(Ga, reduce);
        assert!(ga.exposed_communication >= lga.exposed_communication);
        if reduce > 2.0 {
            assert!(ga.exposed_communication > lga.exposed_communication + 1.0);
        }
    }
}

#[test]
fn layered_accumulation_restores_once_per_pass() {
    // Fig. 2: with a partitioned state, standard accumulation restores the
    // weights for every micro-batch; layered accumulation once per layer and
    // pass (the last layer's weights serve its backward too).
    let count = |kind| {
        let mut s = ScheduleSpec::unit(kind, 1, 4, 4);
        s.data = 2;
        s.partition = true;
        s.durations.restore = 1.0;
        s.durations.reduce = 1.0;
        let s = simulate(&s).unwrap();
        let n = |k| s.events.iter().filter(|e| e.kind == k).count();
        (n(EventKind::Restore), n(EventKind::Reduce))
    };
    assert_eq!(count(Lga), (2 * 4 - 1, 4));
    // Per micro-batch: 3 forward + 3 backward restores, plus the first one.
    assert_eq!(count(Ga), (1 + 4 * 2 * 3, 16));
}

#[test]
fn micro_batches_in_flight() {
    for (nl, nmu) in [(4, 8), (4, 16), (8, 8), (2, 5)] {
        let one = simulate(&ScheduleSpec::unit(OneFOneB, nl, 2 * nl, nmu)).unwrap();
        assert!(
            one.in_flight.iter().all(|&k| k <= nl),
            "{:?}",
            one.in_flight
        );
        assert_eq!(one.in_flight[0], nl.min(nmu));
        let gpipe = simulate(&ScheduleSpec::unit(Gpipe, nl, 2 * nl, nmu)).unwrap();
        assert!(
            gpipe.in_flight.iter().all(|&k| k == nmu),
            "{:?}",
            gpipe.in_flight
        );
        // Checkpoints follow: one per layer and micro-batch in flight.
        assert_eq!(one.memory_peak[0], f64::from(2 * nl.min(nmu)));
        assert_eq!(gpipe.memory_peak[0], f64::from(2 * nmu));
    }
    // Layered accumulation keeps every layer's checkpoints for every
    // micro-batch (sec. 3); standard accumulation one micro-batch's.
    assert_eq!(
        simulate(&ScheduleSpec::unit(Lga, 1, 8, 4))
            .unwrap()
            .memory_peak[0],
        32.0
    );
    assert_eq!(
        simulate(&ScheduleSpec::unit(Ga, 1, 8, 4))
            .unwrap()
            .memory_peak[0],
        8.0
    );
}

#[test]
fn figure_snapshots() {
    let ascii = |kind, devices, layers| {
        let mut s = ScheduleSpec::unit(kind, devices, layers, 4);
        s.data = 2;
        s.durations.reduce = 1.0;
        simulate(&s).unwrap().to_ascii(1.0)
    };
    // Fig. 1, 4 layers × 4 micro-batches.
    assert_eq!(
        ascii(Ga, 1, 4),
        "  0    |aaaaAAAAAAAAbbbbBBBBBBBBccccCCCCCCCCddddDDDDDDDD.|\n  0 net|------------------------------------------R-R-R-R|\n"
    );
    assert_eq!(
        ascii(Lga, 1, 4),
        "  0    |abcdabcdabcdabcdAABBCCDDAABBCCDDAABBCCDDAABBCCDD.|\n  0 net|------------------------R-------R-------R-------R|\n"
    );
    // Fig. 3, 4 devices × 16 layers × 4 micro-batches.
    assert_eq!(
        ascii(Gpipe, 4, 16),
        concat!(
            "  0    |aaaabbbbccccdddd....................................AAAAAAAABBBBBBBBCCCCCCCCDDDDDDDD....|\n",
            "  0 net|------------------------------------------------------------------------------------RRRR|\n",
            "  1    |....aaaabbbbccccdddd........................AAAAAAAABBBBBBBBCCCCCCCCDDDDDDDD............|\n",
            "  1 net|----------------------------------------------------------------------------RRRR--------|\n",
            "  2    |........aaaabbbbccccdddd............AAAAAAAABBBBBBBBCCCCCCCCDDDDDDDD....................|\n",
            "  2 net|--------------------------------------------------------------------RRRR----------------|\n",
            "  3    |............aaaabbbbccccddddAAAAAAAABBBBBBBBCCCCCCCCDDDDDDDD............................|\n",
            "  3 net|------------------------------------------------------------RRRR------------------------|\n",
        )
    );
    assert_eq!(
        ascii(Modular, 4, 16),
        concat!(
            "  0    |abcdabcdabcdabcd.........DDCCBBAADDCCBBAADDCCBBAADDCCBBAA.|\n",
            "  0 net|---------------------------------R-------R-------R-------R|\n",
            "  1    |.abcdabcdabcdabcd......DDCCBBAADDCCBBAADDCCBBAADDCCBBAA...|\n",
            "  1 net|-------------------------------R-------R-------R-------R--|\n",
            "  2    |..abcdabcdabcdabcd...DDCCBBAADDCCBBAADDCCBBAADDCCBBAA.....|\n",
            "  2 net|-----------------------------R-------R-------R-------R----|\n",
            "  3    |...abcdabcdabcdabcdDDCCBBAADDCCBBAADDCCBBAADDCCBBAA.......|\n",
            "  3 net|---------------------------R-------R-------R-------R------|\n",
        )
    );
}

#[test]
fn cost_model_durations_agree_with_the_evaluator() {
    // X160's fastest plan (Table 6.1, 3d improved): one modular pipeline of
    // the data-parallel replicas, with the cost model's durations.
    let m = x_family(160).unwrap();
    let hw = Hardware::default();
    let d = Durations::from_cost_model(&m, &hw, 16, 1, 483, true, ActivationModel::Paper).unwrap();
    // The restore of a layer against its forward over 5 micro-batches is
    // eq. 9's threshold over intensity: 5811 / 6400.
    let ratio = d.restore / (5.0 * d.forward / (1.0 + 484.3 / 6826.7));
    assert!((ratio - 5811.0 / 6400.0).abs() < 2e-3, "{ratio}");
    let mut spec = ScheduleSpec::unit(Modular, 5, 160, 5);
    spec.data = 483;
    spec.partition = true;
    spec.durations = d;
    spec.memory = MemorySizes::from_cost_model(&m, &spec, 16, 1);
    let s = simulate(&spec).unwrap();
    let e = evaluate(
        &m,
        &hw,
        &Config {
            method: Method::Improved,
            data: 483,
            pipe: 5,
            tensor: 16,
            micro_batch: 1,
            micro_batches: 5,
            ..Config::default()
        },
    )
    .unwrap();
    // Efficiency of the simulated step: ideal compute over the makespan.
    let ideal = e.flops_per_gpu_step.get() / 312e12;
    let sim_eff = ideal / s.makespan;
    assert!(
        (sim_eff - e.efficiency).abs() < 0.05,
        "simulated {sim_eff}, evaluated {}",
        e.efficiency
    );
    // Peak memory matches the breakdown: state, buffers, checkpoints of the
    // device's 32 layers × 5 micro-batches, one layer's activations.
    let peak = s.memory_peak[0];
    let m = e.memory;
    let expect = m.state.get() + m.buffers.get() + m.checkpoints.get() + m.activations.get();
    assert!((peak - expect).abs() < 0.01 * expect, "{peak} vs {expect}");
}

#[test]
fn invalid_specs_are_errors() {
    let bad = [
        ScheduleSpec::unit(Gpipe, 3, 16, 4), // 3 stages do not divide 16 layers
        ScheduleSpec::unit(Ga, 2, 16, 4),    // accumulation runs on one device
        ScheduleSpec::unit(Modular, 8, 16, 4), // n_µ < n_l
        ScheduleSpec::unit(OneFOneB, 32, 16, 4), // deeper than the layers
        ScheduleSpec::unit(Lga, 1, 0, 4),
        ScheduleSpec::unit(Lga, 1, 4, 0),
        ScheduleSpec::unit(Lga, 1, 1 << 19, 1 << 19),
        ScheduleSpec {
            chunks: 2,
            group: 5, // a last group of 1 micro-batch, under n_l
            ..ScheduleSpec::unit(Interleaved, 4, 16, 6)
        },
        ScheduleSpec {
            durations: Durations::unit(f64::NAN),
            ..ScheduleSpec::unit(Lga, 1, 4, 4)
        },
    ];
    for spec in bad {
        assert!(simulate(&spec).is_err(), "{spec:?}");
    }
}

#[test]
fn busy_intervals_aggregate() {
    let s = simulate(&ScheduleSpec::unit(Gpipe, 4, 16, 4)).unwrap();
    // Device 3 computes without a break from its first forward to its last
    // backward.
    assert_eq!(s.busy_intervals(3, Stream::Compute), vec![(12.0, 60.0)]);
    assert_eq!(
        s.busy_intervals(0, Stream::Compute),
        vec![(0.0, 16.0), (52.0, 84.0)]
    );
    let svg = s.to_svg();
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>") && svg.contains("Device 3"));
    // All devices at once give the same intervals, on every stream.
    let mut spec = ScheduleSpec::unit(Modular, 4, 16, 8);
    spec.data = 4;
    spec.durations.reduce = 1.0;
    let s = simulate(&spec).unwrap();
    for stream in [Stream::Compute, Stream::Network, Stream::Pipeline] {
        let all = s.busy_intervals_by_device(stream);
        assert_eq!(all.len(), 4);
        for (d, v) in all.iter().enumerate() {
            assert_eq!(*v, s.busy_intervals(d as u32, stream), "{stream:?} {d}");
        }
    }
    assert!(!s.busy_intervals_by_device(Stream::Network)[0].is_empty());
}
