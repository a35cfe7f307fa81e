//! `plan3d validate`: the validation table of `docs/model.md` is the
//! command's output, and the JSON rows carry the errors.

use super::{plan3d, plan3d_words};
use serde_json::Value;

/// `plan3d ARGS`'s output is the text between the validation markers of
/// the workspace file `file`.
fn marked_section_is(file: &str, args: &[&str]) {
    let out = plan3d(args);
    assert!(out.status.success());
    let want = String::from_utf8(out.stdout).unwrap();
    let path = format!("{}/../{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let begin = text
        .find("<!-- validation:begin -->\n")
        .expect("begin marker")
        + 26;
    let end = text.find("<!-- validation:end -->").expect("end marker");
    assert_eq!(
        text[begin..end].trim_end(),
        want.trim_end(),
        "{file}'s validation table is stale: paste `plan3d {}`",
        args.join(" ")
    );
}

#[test]
fn docs_validation_table_is_current() {
    marked_section_is("docs/model.md", &["validate"]);
}

#[test]
fn validate_json_rows() {
    let v: Value = serde_json::from_slice(&plan3d_words("validate --json").stdout).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 12);
    for r in rows {
        let e = r["error"].as_f64().unwrap();
        assert!(e.abs() < 0.2, "{r}");
        assert!(r["fits"].as_bool().unwrap());
    }
}

/// Practice flags: bad values are errors in words; fixed dimensions hold.
#[test]
fn practice_flags() {
    let base = "evaluate --assumptions practice --model llama-3.1-8b --gpu h100-sxm --node-size 8 --data 8";
    for (extra, says) in [
        ("--zero 9", "ZeRO stage"),
        ("--recompute paper", "recomputation"),
        ("--global-batch 12", "multiple of data"),
        ("--tokens=-5", "'-5' is not a number"),
        ("--optimizer lion", "optimizer"),
        ("--tensor 3", "tensor-parallel degree"),
    ] {
        let out = plan3d_words(&format!("{base} {extra}"));
        assert!(!out.status.success(), "{extra}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{extra}: {err}");
    }
    let bad = plan3d_words("evaluate --assumptions folklore --model gpt-3");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("use paper or practice"));
    let v: Value = serde_json::from_slice(
        &plan3d_words(&format!("{base} --global-batch 512 --tokens 1e12 --json")).stdout,
    )
    .unwrap();
    assert_eq!(v["micro_batches"], 64);
    assert_eq!(v["assumptions"], "practice");
    let days = v["days"].as_f64().unwrap();
    let tps = v["tokens_per_second"].as_f64().unwrap();
    assert!((days * 86_400.0 * tps / 1e12 - 1.0).abs() < 1e-9);
    let p: Value = serde_json::from_slice(
        &plan3d_words("plan --assumptions practice --model llama-3.1-70b --gpu h100-sxm --node-size 8 --max-gpus 1024 --pipe 4 --recompute full --global-batch 1024 --json").stdout,
    )
    .unwrap();
    assert_eq!(p["pipe"], 4);
    assert_eq!(p["recompute"], "full");
    assert_eq!(p["batch"], 1024);
    assert!(p["gpus"].as_u64().unwrap() <= 1024);
    assert_eq!(p["fits"], true);
}

/// The page's validation template is `plan3d validate --html`.
#[test]
fn index_html_validation_is_current() {
    marked_section_is("index.html", &["validate", "--html"]);
}
