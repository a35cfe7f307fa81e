//! Size sweeps (sec. 7, figs. 4, 5, 8).

use super::*;
use plan3d_core::search::{sweep, SweepRow};

fn days(rows: &[SweepRow]) -> Vec<(f64, f64)> {
    rows.iter()
        .filter_map(|r| {
            r.plan
                .as_ref()
                .ok()
                .map(|p| (r.params, p.evaluation.time.days()))
        })
        .collect()
}

fn limit(rows: &[SweepRow], max_days: f64) -> f64 {
    days(rows)
        .iter()
        .filter(|(_, d)| *d <= max_days)
        .map(|(p, _)| *p)
        .fold(0.0, f64::max)
}

#[test]
fn section_7_one_month_limit_with_16_gpu_nodes() {
    // "These thresholds respectively result in limits of about 4.5 and 50
    // trillion parameters" (improved, node size 16). The rules reproduce
    // the one-month limit; see README, "Where plan3d and the paper's
    // figures differ", for the one-year limit.
    let rows = sweep(
        &Hardware::default(),
        Method::Improved,
        Parallelism::ThreeD,
        &Constraints::default(),
        1e12,
        1e14,
        200,
    )
    .unwrap();
    let month = limit(&rows, 30.0);
    assert!((3.5e12..5.0e12).contains(&month), "{month:e}");
    let year = limit(&rows, 365.0);
    assert!((3.0e13..6.0e13).contains(&year), "{year:e}");
}

#[test]
fn improved_is_fastest_at_every_scale() {
    // Sec. 7: "The improved method outperforms the others at most scales".
    let hw = Hardware::default();
    let c = Constraints::default();
    let run = |m| days(&sweep(&hw, m, Parallelism::ThreeD, &c, 1e9, 5e13, 40).unwrap());
    let (imp, base, part) = (
        run(Method::Improved),
        run(Method::Baseline),
        run(Method::Partitioned),
    );
    assert_eq!(imp.len(), base.len());
    for ((i, b), p) in imp.iter().zip(&base).zip(&part) {
        assert!(
            i.1 <= b.1 * (1.0 + 1e-9) && i.1 <= p.1 * (1.0 + 1e-9),
            "{i:?} {b:?} {p:?}"
        );
    }
}

#[test]
fn sweeps_are_continuous_and_grow_with_size() {
    let hw = Hardware::default();
    for method in [Method::Baseline, Method::Partitioned, Method::Improved] {
        for node_size in [Some(16), None] {
            let hw = Hardware { node_size, ..hw };
            let rows = sweep(
                &hw,
                method,
                Parallelism::ThreeD,
                &Constraints::default(),
                1e9,
                1e13,
                200,
            )
            .unwrap();
            let d = days(&rows);
            assert!(d.len() > 60, "{method:?}: {} rows", d.len());
            for w in d.windows(2) {
                let r = w[1].1 / w[0].1;
                // Discrete head counts move the tensor degree between
                // neighbouring X[x] (X118 has 59 heads, a prime; X120
                // has 60): small dips, never jumps.
                // Without a node limit the 25 % rule itself jumps: X242's
                // 121 heads allow n_a = 121 at 24.8 %, X240's n_a = 120
                // costs 25.0 % and drops to 74.
                let low = if node_size.is_some() { 0.75 } else { 0.6 };
                assert!((low..2.5).contains(&r), "{method:?} {node_size:?}: {w:?}");
            }
            assert!(d.last().unwrap().1 > 100.0 * d[0].1);
            for r in &rows {
                if let Ok(p) = &r.plan {
                    assert!(p.evaluation.efficiency > 0.3 && p.evaluation.efficiency <= 1.0);
                }
            }
        }
    }
}

#[test]
fn no_node_limit_is_never_slower() {
    // Fig. 5 vs fig. 4: removing the node-size limit only adds options.
    let c = Constraints::default();
    let limited = days(
        &sweep(
            &Hardware::default(),
            Method::Improved,
            Parallelism::ThreeD,
            &c,
            1e10,
            1e14,
            30,
        )
        .unwrap(),
    );
    let free = days(
        &sweep(
            &Hardware {
                node_size: None,
                ..Hardware::default()
            },
            Method::Improved,
            Parallelism::ThreeD,
            &c,
            1e10,
            1e14,
            30,
        )
        .unwrap(),
    );
    for (a, b) in limited.iter().zip(&free) {
        assert!(b.1 <= a.1 * (1.0 + 1e-9), "{a:?} {b:?}");
    }
}

#[test]
fn ethernet_slowdown_for_x160_follows_the_formulas() {
    // Sec. 8.3 says ~4 %; eqs. 9 and 11 over 25 Gb/s Ethernet give 47 %
    // (MODEL_NOTES: the claim does not follow from the stated formulas).
    let m = x160();
    let c = Constraints::default();
    let ib = rules(
        &m,
        &Hardware::default(),
        Method::Improved,
        Parallelism::ThreeD,
        &c,
    )
    .unwrap();
    let eth_hw = Hardware {
        network: Network::Ethernet25,
        ..Hardware::default()
    };
    let eth = rules(&m, &eth_hw, Method::Improved, Parallelism::ThreeD, &c).unwrap();
    let slowdown = eth.evaluation.time.0 / ib.evaluation.time.0 - 1.0;
    assert!((0.40..0.55).contains(&slowdown), "{slowdown}");
    // Eq. 9 over Ethernet needs n_µ ≥ 2·46.5k/2560 → 37 micro-batches.
    assert_eq!(eth.evaluation.config.micro_batches, 37);
}

#[test]
fn sweep_rejects_bad_ranges() {
    let hw = Hardware::default();
    let c = Constraints::default();
    for (from, to, n) in [
        (1e12, 1e9, 10),
        (0.0, 1e9, 10),
        (1e9, f64::NAN, 10),
        (1e9, 1e30, 10),
        (1e9, 1e12, 0),
    ] {
        assert!(sweep(&hw, Method::Improved, Parallelism::ThreeD, &c, from, to, n).is_err());
    }
    let one = sweep(
        &hw,
        Method::Improved,
        Parallelism::ThreeD,
        &c,
        1e12,
        1e12,
        1,
    )
    .unwrap();
    assert_eq!(one.len(), 1);
}

#[test]
fn nearest_row_is_nearest_on_the_log_scale() {
    use plan3d_core::search::nearest_row;
    let hw = Hardware::default();
    let c = Constraints::default();
    let rows = sweep(
        &hw,
        Method::Improved,
        Parallelism::ThreeD,
        &c,
        1e9,
        1e15,
        13,
    )
    .unwrap();
    // Every row is its own nearest; a point between two rows goes to
    // the one nearer in log10, not in parameters.
    for (k, r) in rows.iter().enumerate() {
        assert_eq!(nearest_row(&rows, r.params), Some(k));
    }
    let (a, b) = (rows[4].params, rows[5].params);
    let geometric_mid = (a * b).sqrt();
    assert_eq!(nearest_row(&rows, geometric_mid * 0.98), Some(4));
    assert_eq!(nearest_row(&rows, geometric_mid * 1.02), Some(5));
    // The arithmetic midpoint is nearer the upper row on a log scale.
    assert_eq!(nearest_row(&rows, (a + b) / 2.0), Some(5));
    assert_eq!(nearest_row(&rows, 1.0), Some(0));
    assert_eq!(nearest_row(&[], 1e12), None);
}
