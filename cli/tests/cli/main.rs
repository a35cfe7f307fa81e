//! Runs the `plan3d` binary and checks its JSON fields: the stable interface.
//! One file per subcommand; the helpers and the cross-cutting checks here.

use std::process::{Command, Output};

use serde_json::Value;

fn plan3d(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_plan3d"))
        .args(args)
        .output()
        .expect("run plan3d")
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = plan3d(&all);
    assert!(
        out.status.success(),
        "plan3d {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// [`json`] of a command line written as one string of words.
fn json_words(line: &str) -> Value {
    json(&line.split_whitespace().collect::<Vec<_>>())
}

/// The `--timeline json` of a command line (evaluate or plan), which must
/// succeed.
fn timeline_json(line: &str) -> Value {
    let out = plan3d_words(&format!("{line} --timeline json"));
    assert!(
        out.status.success(),
        "{line} --timeline json failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// [`plan3d`] of a command line written as one string of words.
fn plan3d_words(line: &str) -> Output {
    plan3d(&line.split_whitespace().collect::<Vec<_>>())
}

fn f(v: &Value, path: &str) -> f64 {
    path.split('.')
        .fold(v, |v, k| &v[k])
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number in {v}"))
}

const GIB: f64 = 1_073_741_824.0;

/// Each call fails with exit code 2, a message containing its needle, and
/// no panic.
fn assert_errors(cases: &[(&[&str], &str)]) {
    for (args, needle) in cases {
        let out = plan3d(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

mod calibrate;
mod evaluate;
mod examples;
mod golden;
mod model;
mod plan;
mod readme;
mod run;
mod schedule;
mod schema;
mod sweep;
mod validate;

#[test]
fn bad_input_is_a_clear_error_not_a_panic() {
    let cases: &[(&[&str], &str)] = &[
        (&["model", "x3"], "even x"),
        (&["model", "gpt-9"], "unknown model"),
        (&["model"], "give a model name"),
        (
            &[
                "evaluate",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--tensor",
                "0",
            ],
            "tensor-parallel degree",
        ),
        (
            &[
                "evaluate",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--tensor",
                "96",
                "--no-node-limit",
            ],
            "tensor-parallel degree",
        ),
        (
            &[
                "evaluate",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--tensor",
                "32",
            ],
            "exceeds the node size 16",
        ),
        (
            &[
                "evaluate",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--data",
                "2",
                "--batch",
                "3",
            ],
            "batch 3 must equal",
        ),
        (
            &[
                "evaluate",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--gpu",
                "tpu-v9",
            ],
            "unknown GPU",
        ),
        (
            &[
                "evaluate",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--network",
                "carrier-pigeon",
            ],
            "unknown network",
        ),
        (
            &[
                "evaluate",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--kernel-efficiency",
                "NaN",
            ],
            "finite",
        ),
        (
            &[
                "evaluate",
                "--assumptions",
                "paper",
                "--model",
                "x160",
                "--pipe",
                "4000",
            ],
            "pipeline-parallel degree",
        ),
        (
            &["zero", "--params", "inf", "--dp", "1", "--stage", "0"],
            "'inf' is not a number",
        ),
        (
            &["zero", "--params", "1e9", "--dp", "1", "--stage", "7"],
            "ZeRO stage",
        ),
        (
            &[
                "estimate",
                "--params",
                "1e9",
                "--tokens",
                "1e9",
                "--gpus",
                "0",
                "--flops-per-gpu",
                "1e12",
            ],
            "GPUs",
        ),
    ];
    assert_errors(cases);
}

#[test]
fn tables_are_readable() {
    let out =
        plan3d_words("evaluate --assumptions paper --model x160 --data 483 --tensor 16 --micro-batch 5 --offload --details");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("days"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("memory.state") && l.ends_with("GiB")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("gpus") && l.ends_with("7728")),
        "{text}"
    );
}

/// A reader that closes the pipe early (`plan3d … | head -1`) ends the
/// output quietly: no panic, exit 0.
#[test]
fn closed_stdout_is_not_a_panic() {
    use std::io::Read as _;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_plan3d"))
        .args([
            "schedule",
            "--kind",
            "modular",
            "--devices",
            "4",
            "--layers",
            "64",
        ])
        .args(["--micro-batches", "64", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run plan3d");
    // Read one byte, then close our end while it is still writing.
    let mut first = [0_u8; 1];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("some output");
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success(), "{:?}: {err}", out.status);
}
