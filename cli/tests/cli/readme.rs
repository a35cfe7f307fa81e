//! The commands of the README and `docs/`, run as written: every
//! `$ plan3d …` line of a text block gives the lines shown under it (its
//! first lines: the text may stop early; "…" stands for any text), on
//! stdout or, for an error, stderr; every `cargo run -p plan3d-cli -- …`
//! of a `sh` block runs. And the answer comes first, on one screen.

use super::plan3d;

/// The README and every page of `docs/`, as one text.
fn docs() -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut text = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let mut pages: Vec<_> = std::fs::read_dir(format!("{root}/docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 5, "{pages:?}");
    for p in pages {
        text.push('\n');
        text.push_str(&std::fs::read_to_string(p).unwrap());
    }
    text
}

/// Each `$ plan3d …` command of the text blocks with the lines shown under
/// it.
fn readme_commands() -> Vec<(String, Vec<String>)> {
    let text = docs();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_text = false;
    let mut current: Option<usize> = None;
    for line in text.lines() {
        if line.starts_with("```") {
            in_text = line == "```text" && !in_text;
            current = None;
            continue;
        }
        if !in_text {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ plan3d ") {
            out.push((cmd.to_string(), Vec::new()));
            current = Some(out.len() - 1);
        } else if line.starts_with("$ ") {
            current = None;
        } else if let Some(i) = current {
            out[i].1.push(line.to_string());
        }
    }
    out
}

/// Whether `got` is `want` with each "…" standing for any text.
fn matches(want: &str, got: &str) -> bool {
    let parts: Vec<&str> = want.split('…').collect();
    if parts.len() == 1 {
        return want == got;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !got.starts_with(first) || !got[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &got[first.len()..got.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn readme_commands_print_what_the_readme_shows() {
    let commands = readme_commands();
    assert!(commands.len() >= 3, "{commands:?}");
    for (cmd, want) in &commands {
        assert!(
            !want.is_empty(),
            "the README shows nothing under `plan3d {cmd}`"
        );
        let args: Vec<&str> = cmd.split_whitespace().collect();
        let out = plan3d(&args);
        let text = if out.status.success() {
            String::from_utf8_lossy(&out.stdout).to_string()
        } else {
            String::from_utf8_lossy(&out.stderr).to_string()
        };
        let got: Vec<&str> = text.lines().collect();
        for (i, w) in want.iter().enumerate() {
            let g = got.get(i).copied().unwrap_or("");
            assert!(
                matches(w, g),
                "`plan3d {cmd}`, line {}:\n README: {w}\n prints: {g}\n\n{text}",
                i + 1
            );
        }
    }
}

/// The README's `cargo run -p plan3d-cli -- …` commands (in `sh` blocks,
/// `\` continuing a line): each runs as written and answers.
#[test]
fn readme_cargo_commands_run() {
    let text = docs();
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut pending: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh" && !in_sh;
            continue;
        }
        if !in_sh {
            continue;
        }
        let line = line.trim();
        let joined = match pending.take() {
            Some(p) => format!("{p} {line}"),
            None if line.starts_with("cargo run -p plan3d-cli -- ") => line.to_string(),
            None => continue,
        };
        match joined.strip_suffix('\\') {
            Some(head) => pending = Some(head.trim_end().to_string()),
            None => commands.push(joined),
        }
    }
    assert!(!commands.is_empty());
    for c in &commands {
        let args: Vec<&str> = c["cargo run -p plan3d-cli -- ".len()..]
            .split_whitespace()
            .collect();
        let out = plan3d(&args);
        assert!(
            out.status.success(),
            "{c}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "{c}");
    }
}

/// A new user's first command.
const FIRST: [&str; 7] = [
    "plan",
    "--model",
    "llama-3.1-8b",
    "--gpu",
    "h100-sxm",
    "--gpus",
    "8",
];

/// A new user's first command: a practice plan, its headline first, the
/// plans per method and why, on one screen.
#[test]
fn the_answer_comes_first_on_one_screen() {
    let out = plan3d(&FIRST);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() <= 25, "{} lines:\n{text}", lines.len());
    let head = lines[0];
    assert!(
        head.starts_with("Megatron-style trains llama-3.1-8b")
            || head.starts_with("ZeRO-3 / FSDP trains llama-3.1-8b"),
        "{head}"
    );
    for part in [
        "with 8 GPUs (DP ",
        " × PP ",
        " × TP ",
        " days of training",
        " MFU",
        "heaviest stage ",
        " of 80 GiB.",
    ] {
        assert!(head.contains(part), "{part} in {head}");
    }
    // The same plan as the JSON, which names practice.
    let v = super::json(&FIRST);
    assert_eq!(v["assumptions"], "practice");
    let layout = format!("(DP {} × PP {} × TP {})", v["data"], v["pipe"], v["tensor"]);
    assert!(head.contains(&layout), "{layout} in {head}");
    // One row per method, then why.
    for m in ["Megatron-style", "ZeRO-3 / FSDP", "layered + modular"] {
        assert!(lines.iter().any(|l| l.starts_with(m)), "{m}:\n{text}");
    }
    assert!(text.contains("Why this plan:\n  - batch"), "{text}");
    // Every figure is one flag away.
    let details = plan3d(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "h100-sxm",
        "--gpus",
        "8",
        "--details",
    ]);
    let details = String::from_utf8(details.stdout).unwrap();
    assert!(
        details
            .lines()
            .any(|l| l.starts_with("assumptions") && l.ends_with("practice")),
        "{details}"
    );
    assert!(details.lines().count() > 40);
    // evaluate and run answer first too.
    let e = plan3d(&[
        "evaluate",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "h100-sxm",
        "--tensor",
        "8",
        "--micro-batch",
        "1",
        "--global-batch",
        "512",
    ]);
    let e = String::from_utf8(e.stdout).unwrap();
    assert!(
        e.starts_with(
            "Megatron-style on 8 GPUs (DP 1 × PP 1 × TP 8) fits: the heaviest stage needs "
        ),
        "{e}"
    );
    assert!(e.lines().count() <= 25, "{e}");
    let r = plan3d(&[
        "run",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "h100-sxm",
        "--gpus",
        "8",
        "--tokens",
        "1e11",
    ]);
    let r = String::from_utf8(r.stdout).unwrap();
    assert!(r.starts_with("The run takes "), "{r}");
    assert!(r.contains("GPU-hours, $"), "{r}");
}

/// A search with no plan says so as the page does: "No plan for …: why".
#[test]
fn no_plan_in_the_pages_words() {
    let out = plan3d(&[
        "plan",
        "--model",
        "llama-3.1-405b",
        "--gpu",
        "h100-sxm",
        "--gpus",
        "8",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("error: No plan for llama-3.1-405b (405.9 B parameters): no configuration satisfies the constraints. Closest: memory: "), "{err}");
    assert!(err.contains("with a cluster of "), "{err}");
}
