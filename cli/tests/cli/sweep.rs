//! `plan3d sweep`.

use super::*;

#[test]
fn sweep_rows() {
    let v =
        json_words("sweep --method improved --parallelism 3d --from 1e10 --to 1e13 --points 20");
    let rows = v.as_array().unwrap();
    assert!(rows.len() >= 10);
    for r in rows {
        for k in [
            "params",
            "gpus",
            "days",
            "efficiency",
            "offload",
            "offloadable",
            "non_offloadable",
        ] {
            assert!(!r[k].is_null(), "{k} in {r}");
        }
        assert_eq!(f(r, "params"), 12.0 * f(r, "x").powi(5));
    }
    let out = plan3d_words("sweep --from 1e10 --to 1e12 --points 5 --csv --no-node-limit");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("x,params,gpus,days,efficiency,offload,offloadable,non_offloadable"));
    assert_eq!(lines.count(), 5);
    let table =
        String::from_utf8(plan3d_words("sweep --from 1e10 --to 1e12 --points 3").stdout).unwrap();
    assert!(table.contains("n_b × n_l × n_a"), "{table}");
}

#[test]
fn sweep_custom_scaling() {
    let v = json_words("sweep --scaling aspect:128 --from 1e10 --to 1e12 --points 5");
    for r in v.as_array().unwrap() {
        assert_eq!(f(r, "x"), 0.0);
        assert!(
            (f(r, "d_model") / f(r, "layers") / 128.0 - 1.0).abs() < 0.2,
            "{r}"
        );
    }
    let v = json_words("sweep --scaling depth:64 --from 1e10 --to 1e12 --points 3");
    assert!(v.as_array().unwrap().iter().all(|r| f(r, "layers") == 64.0));
    let out = plan3d(&["sweep", "--scaling", "spiral"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown scaling"));
}
