//! Sweeps over custom scalings: fixed width/depth ratio, fixed depth.

use super::*;
use plan3d_core::search::{sweep_scaled, Scaling};

#[test]
fn aspect_and_depth_families_hit_their_sizes() {
    let hw = Hardware::default();
    let c = Constraints::default();
    let aspect = Scaling::Aspect {
        ratio: 128.0,
        head_size: 128,
        seq_len: 2048,
    };
    // GPT-3's shape is on the ratio-128 family: 12288 wide, 96 deep.
    let m = aspect.model(174e9).unwrap();
    assert_eq!((m.width(), m.layers, m.heads), (12288, 96, 96));
    let rows = sweep_scaled(
        &hw,
        Method::Improved,
        Parallelism::ThreeD,
        &c,
        aspect,
        1e9,
        1e13,
        40,
    )
    .unwrap();
    assert!(rows.len() > 20);
    for r in &rows {
        let ratio = r.model.width() as f64 / f64::from(r.model.layers);
        assert!((ratio / 128.0 - 1.0).abs() < 0.15, "{ratio}");
        assert_eq!(r.x, 0);
        assert!(r.plan.is_ok(), "{:?}", r.plan);
    }
    let depth = Scaling::FixedDepth {
        layers: 96,
        head_size: 128,
        seq_len: 2048,
    };
    let rows = sweep_scaled(
        &hw,
        Method::Improved,
        Parallelism::ThreeD,
        &c,
        depth,
        1e10,
        1e12,
        10,
    )
    .unwrap();
    assert!(rows.iter().all(|r| r.model.layers == 96));
    // Days grow with size within each family.
    let d: Vec<f64> = rows
        .iter()
        .map(|r| r.plan.as_ref().unwrap().evaluation.time.days())
        .collect();
    assert!(d.last().unwrap() > &(10.0 * d[0]));
    // The X family through the same entry point is the paper's sweep.
    let x = sweep_scaled(
        &hw,
        Method::Improved,
        Parallelism::ThreeD,
        &c,
        Scaling::XFamily,
        1e12,
        1e13,
        5,
    )
    .unwrap();
    assert_eq!(x[0].x, x[0].model.layers);
    assert!(Scaling::Aspect {
        ratio: 0.0,
        head_size: 128,
        seq_len: 2048
    }
    .model(1e9)
    .is_err());
    assert!(Scaling::FixedDepth {
        layers: 0,
        head_size: 128,
        seq_len: 2048
    }
    .model(1e9)
    .is_err());
}
