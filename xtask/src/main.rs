//! `cargo xtask setup | build | serve | test`: the project's own commands,
//! the same on a developer's machine and in CI. One file on purpose: the
//! steps read in the order they run (setup, build, test, bench, fuzz).
//!
//! * `setup` installs what is missing, at pinned versions, from the package
//!   registries only (crates.io, npm, Debian), and skips what is already
//!   there at the right version.
//! * `build` builds the release page into `dist/` offline.
//! * `serve` builds and serves it on 127.0.0.1.
//! * `test` runs every check: format, clippy, native tests (with and without
//!   std), the `no_std` build, docs, the release page, and the end-to-end
//!   test in headless Chromium.

mod dist;
mod python;
use python::{python_tests, python_tools, SYSTEM_PYTHON};

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// Trunk 0.21.14 is the last release that builds with Rust 1.81–1.95
/// (0.22 needs rustc 1.96.1).
const TRUNK_VERSION: &str = "0.21.14";
/// cargo-fuzz builds libFuzzer targets on stable with `--sanitizer none`.
const CARGO_FUZZ_VERSION: &str = "0.13.2";
/// maturin builds the Python wheel (`py/`); pytest runs its tests.
const MATURIN_VERSION: &str = "1.16.0";
const PYTEST_VERSION: &str = "8.3.4";
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let task = args.first().map(String::as_str).unwrap_or("help");
    let result = match task {
        "setup" => setup(Needs::ALL),
        "build" => setup(Needs::WEB).and_then(|()| build()),
        "serve" => setup(Needs::WEB).and_then(|()| serve()),
        "test" => test(),
        // Trunk's post-build hook (Trunk.toml): the JavaScript API into the
        // build being staged.
        "api" => build_api(),
        "bench" => bench(),
        "py" => python_tools().and_then(|()| python_tests()),
        "fuzz" | "fuzz-check" => {
            let secs = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(60);
            let keep = task == "fuzz";
            setup(Needs::ALL).and_then(|()| fuzz(secs, args.get(2).map(String::as_str), keep))
        }
        _ => {
            eprintln!(
                "usage: cargo xtask <task>\n\n  setup  install missing tools (pinned)\n  \
                 build  build the release page into dist/\n  serve  build and serve on 127.0.0.1:8080\n  \
                 api    build the JavaScript API into $TRUNK_STAGING_DIR/api (Trunk's hook)\n  \
                 test   run every test\n  py     build the Python wheel, install it into a fresh virtual environment, run its tests\n  bench  run core's and the browser's benchmarks, write target/bench-report.md\n  \
                 fuzz [SECONDS] [TARGET]  fuzz every door (URL, numbers, the API's JSON requests) for SECONDS each (default 60), keeping new inputs in fuzz/corpus/\n  \
                 fuzz-check [SECONDS] [TARGET]  the same, new inputs to target/fuzz-scratch/ (what `test` runs, 15 s each)"
            );
            return ExitCode::from(if task == "help" { 0 } else { 2 });
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask {task}: {e}");
            ExitCode::FAILURE
        }
    }
}

#[derive(Clone, Copy)]
struct Needs {
    web: bool,
    browser: bool,
}

impl Needs {
    const WEB: Self = Self {
        web: true,
        browser: false,
    };
    const ALL: Self = Self {
        web: true,
        browser: true,
    };
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn cargo_bin() -> PathBuf {
    env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from("/root/.cargo"))
        .join("bin")
}

/// PATH with the project's tools first: binaryen's wasm-opt from npm (never
/// Debian's wasm-opt 108, whose output fails at start-up) and cargo's bin.
fn tool_path() -> OsString {
    let mut dirs = vec![root().join("node_modules/.bin"), cargo_bin()];
    if let Some(path) = env::var_os("PATH") {
        dirs.extend(env::split_paths(&path));
    }
    env::join_paths(dirs).expect("PATH entries are valid")
}

fn cmd(program: &str) -> Command {
    let mut c = Command::new(program);
    c.current_dir(root()).env("PATH", tool_path());
    if let Some(flags) = wasm_rustflags() {
        c.env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS", flags);
    }
    c
}

/// Flags for every wasm build this task runs (Trunk's, the API's,
/// clippy's: one set, so none rebuilds another's dependencies): the
/// registry's source directories cut from the panic locations compiled
/// into the page (`--remap-path-prefix`), so its bytes do not depend on
/// where Cargo keeps its registry on the machine that builds it (and are
/// ~0.1 KB gzip fewer). `None` where the registry has no sources yet.
fn wasm_rustflags() -> Option<String> {
    let src = cargo_bin().parent()?.join("registry/src");
    let mut dirs: Vec<String> = fs::read_dir(&src)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| format!("--remap-path-prefix={}/=", e.path().display()))
        .collect();
    dirs.sort();
    (!dirs.is_empty()).then(|| dirs.join(" "))
}

fn run(c: &mut Command) -> Result {
    let shown = format!("{c:?}");
    println!("$ {shown}");
    let start = Instant::now();
    let status = c.status().map_err(|e| format!("cannot run {shown}: {e}"))?;
    println!("  ({:.1} s)", start.elapsed().as_secs_f64());
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed: {status}"))
    }
}

/// The first line a command prints, or None if it cannot run.
fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = cmd(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The wasm-bindgen version in Cargo.lock: the CLI must match it exactly.
fn wasm_bindgen_version() -> Result<String> {
    let lock = fs::read_to_string(root().join("Cargo.lock")).map_err(|e| e.to_string())?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = \"")) {
                return Ok(v.trim_end_matches('"').to_string());
            }
        }
    }
    Err("wasm-bindgen is not in Cargo.lock".into())
}

/// `cargo install` a tool unless it already reports `version`. The install
/// builds without LTO, with 16 codegen units: ~9 min for Trunk instead of ~18.
fn cargo_install(binary: &str, krate: &str, version: &str, locked: bool) -> Result {
    let have = output(binary, &["--version"]).unwrap_or_default();
    if have.split_whitespace().any(|w| w == version) {
        println!("ok: {binary} {version}");
        return Ok(());
    }
    let mut c = cmd("cargo");
    c.args(["install", krate, "--version", version])
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16");
    if locked {
        c.arg("--locked");
    }
    run(&mut c)
}

fn setup(needs: Needs) -> Result {
    let installed = output("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    let missing: Vec<&str> = ["wasm32-unknown-unknown", "thumbv7m-none-eabi"]
        .into_iter()
        .filter(|t| !installed.lines().any(|l| l == *t))
        .collect();
    if missing.is_empty() {
        println!("ok: rust targets");
    } else {
        run(cmd("rustup").args(["target", "add"]).args(&missing))?;
    }
    if needs.web {
        // Without --locked: its lockfile wants a crate version the registry lacks.
        cargo_install(
            "wasm-bindgen",
            "wasm-bindgen-cli",
            &wasm_bindgen_version()?,
            false,
        )?;
        cargo_install("trunk", "trunk", TRUNK_VERSION, true)?;
        let wasm_opt = output("wasm-opt", &["--version"]).unwrap_or_default();
        if root().join("node_modules/.bin/wasm-opt").exists() && wasm_opt.contains("132") {
            println!("ok: {wasm_opt}");
        } else {
            run(cmd("npm").args(["ci", "--no-audit", "--no-fund"]))?;
        }
    }
    if needs.browser {
        python_tools()?;
        cargo_install("cargo-fuzz", "cargo-fuzz", CARGO_FUZZ_VERSION, true)?;
        if Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists() {
            println!("ok: chromium");
        } else {
            apt_install(&["chromium", "chromium-driver"])?;
        }
        // PyTorch for the system Python, which runs the calibration
        // script on the CPU in the CLI's tests (Debian's CPU build).
        let torch = Command::new(SYSTEM_PYTHON)
            .args(["-c", "import torch; print(torch.__version__)"])
            .output()
            .ok()
            .filter(|o| o.status.success());
        match torch {
            Some(o) => println!("ok: torch {}", String::from_utf8_lossy(&o.stdout).trim()),
            None => apt_install(&["python3-torch"])?,
        }
    }
    Ok(())
}

/// Debian packages, installed with apt (as root, or through sudo).
fn apt_install(packages: &[&str]) -> Result {
    let apt = if output("id", &["-u"]).as_deref() == Some("0") {
        "apt-get"
    } else {
        "sudo"
    };
    let pre: &[&str] = if apt == "sudo" { &["apt-get"] } else { &[] };
    run(cmd(apt).args(pre).arg("update"))?;
    run(cmd(apt)
        .args(pre)
        .args(["install", "-y", "--no-install-recommends"])
        .args(packages)
        .env("DEBIAN_FRONTEND", "noninteractive"))
}

fn build() -> Result {
    run(cmd("cargo").args(["fetch", "--locked"]))?;
    run(cmd("trunk").args(["build", "--release", "--offline"]))?;
    dist::service_worker()?;
    dist::content_security_policy()?;
    dist::report_size(&root().join("dist"))?;
    dist::report_size(&root().join("dist/api"))
}

/// The wasm features rustc emits by default, which wasm-opt must accept
/// (as in index.html).
const WASM_FEATURES: [&str; 6] = [
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// Trunk's post-build hook: the page's wasm without the exports nothing
/// calls ([`dist::strip_unused_exports`]), and the JavaScript API (`js/`)
/// as an ES module in `api/` of the build Trunk is staging (`TRUNK_STAGING_DIR`; `dist/` when run by hand): `plan3d.js`
/// and its wasm, the JSON schema and the README's example page. Trunk runs
/// it as a post-build hook, so `trunk build` and `trunk serve` both ship it.
/// Not precached by the service worker: the page does not need it.
fn build_api() -> Result {
    let staging =
        env::var_os("TRUNK_STAGING_DIR").map_or_else(|| root().join("dist"), PathBuf::from);
    let release = env::var("TRUNK_PROFILE").map_or(true, |p| p == "release");
    // The page's wasm first: the exports nothing calls, and what they reach.
    if release {
        dist::strip_unused_exports(&staging, &WASM_FEATURES)?;
    }
    let mut build = cmd("cargo");
    build.args([
        "build",
        "-p",
        "plan3d-js",
        "--target",
        "wasm32-unknown-unknown",
        "--locked",
        "--offline",
    ]);
    if release {
        build.arg("--release");
    }
    run(&mut build)?;
    let out = staging.join("api");
    fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let wasm = root()
        .join("target/wasm32-unknown-unknown")
        .join(if release { "release" } else { "debug" })
        .join("plan3d_js.wasm");
    run(cmd("wasm-bindgen")
        .args([
            "--target",
            "web",
            "--no-typescript",
            "--out-name",
            "plan3d",
            "--out-dir",
        ])
        .arg(&out)
        .arg(&wasm))?;
    if release {
        let bg = out.join("plan3d_bg.wasm");
        run(cmd("wasm-opt")
            .arg("-Oz")
            .args(WASM_FEATURES)
            .arg(&bg)
            .arg("-o")
            .arg(&bg))?;
    }
    for (from, to) in [
        ("static/plan3d.schema.json", "plan3d.schema.json"),
        ("static/api/example.html", "example.html"),
    ] {
        fs::copy(root().join(from), out.join(to)).map_err(|e| format!("{from}: {e}"))?;
    }
    Ok(())
}

fn serve() -> Result {
    run(cmd("cargo").args(["fetch", "--locked"]))?;
    run(cmd("trunk").args(["serve", "--release", "--offline", "--address", "127.0.0.1"]))
}

/// The libFuzzer targets (`fuzz/fuzz_targets/`): every door that reads
/// what a user or a script writes. Each keeps its corpus in
/// `fuzz/corpus/<target>/`.
const FUZZ_TARGETS: [&str; 7] = [
    "url_state",
    "numbers",
    "profile",
    "evaluate_request",
    "plan_request",
    "run_request",
    "timeline_request",
];

/// Fuzzes each target for `secs` seconds (libFuzzer, no sanitizer: the
/// toolchain is stable), or only `only`; prints each target's runs and
/// coverage. A crash fails the task and leaves its input in
/// `fuzz/artifacts/<target>/`.
/// Fuzzes each target (or `only`) for `secs` seconds from its corpus in
/// `fuzz/corpus/`. With `keep`, the inputs that reach new code are added
/// to that corpus (`cargo xtask fuzz`, to minimize and commit); without,
/// to a scratch folder under `target/` (`cargo xtask test`).
fn fuzz(secs: u32, only: Option<&str>, keep: bool) -> Result {
    let targets: Vec<&str> = FUZZ_TARGETS
        .iter()
        .copied()
        .filter(|t| only.is_none_or(|o| o == *t))
        .collect();
    if targets.is_empty() {
        return Err(format!(
            "unknown fuzz target '{}': use one of {}",
            only.unwrap_or_default(),
            FUZZ_TARGETS.join(", ")
        ));
    }
    run(cmd("cargo").current_dir(root().join("fuzz")).args([
        "fuzz",
        "build",
        "--sanitizer",
        "none",
    ]))?;
    let mut summary = Vec::new();
    for target in targets {
        let corpus = root().join("fuzz").join("corpus").join(target);
        fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        let mut c = cmd("cargo");
        c.current_dir(root().join("fuzz"))
            .args(["fuzz", "run", "--sanitizer", "none", target]);
        if !keep {
            // libFuzzer writes new inputs into its first corpus folder.
            let scratch = root().join("target/fuzz-scratch").join(target);
            let _ = fs::remove_dir_all(&scratch);
            fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
            c.arg(&scratch).arg(&corpus);
        }
        c.arg("--")
            .arg(format!("-max_total_time={secs}"))
            .arg("-seed=1")
            .arg("-print_final_stats=1");
        let shown = format!("{c:?}");
        println!("$ {shown}");
        let out = c.output().map_err(|e| format!("cannot run {shown}: {e}"))?;
        let log = String::from_utf8_lossy(&out.stderr);
        let (runs, cov) = fuzz_figures(&log);
        let line = format!("{target}: {runs} runs, {cov} coverage edges, {secs} s");
        println!("  {line}");
        if !out.status.success() {
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(format!("{shown} failed:\n{}", tail.join("\n")));
        }
        summary.push(line);
    }
    println!("fuzzing:\n  {}", summary.join("\n  "));
    Ok(())
}

/// The runs and the coverage (libFuzzer's `cov:`, edges reached) of a
/// libFuzzer log.
fn fuzz_figures(log: &str) -> (u64, u64) {
    let number_after = |line: &str, key: &str| -> Option<u64> {
        let rest = &line[line.find(key)? + key.len()..];
        rest.split_whitespace().next()?.parse().ok()
    };
    let runs = log
        .lines()
        .rev()
        .find_map(|l| {
            l.strip_prefix("Done ")
                .and_then(|r| r.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0);
    let cov = log
        .lines()
        .rev()
        .find_map(|l| number_after(l, "cov: "))
        .unwrap_or(0);
    (runs, cov)
}

/// Criterion benchmarks of core and the browser benchmark; prints the
/// figures and writes `target/bench-report.md` (budgets: README).
fn bench() -> Result {
    setup(Needs::ALL)?;
    let shown = "cargo bench -p plan3d-core --locked";
    println!("$ {shown}");
    let out = cmd("cargo")
        .args(["bench", "-p", "plan3d-core", "--locked"])
        .output()
        .map_err(|e| format!("{shown}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    print!("{text}");
    if !out.status.success() {
        return Err(format!(
            "{shown} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // Criterion prints the name, then "time: [low mid high]".
    let mut rows = Vec::new();
    let mut name = String::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("time:") {
            let mid = rest
                .trim()
                .trim_matches(['[', ']'])
                .split_whitespace()
                .collect::<Vec<_>>();
            // A second "time:" under "change:" holds percentages: skip it.
            if mid.len() >= 4 && !mid[2].contains('%') {
                rows.push(format!("| {name} | {} {} |", mid[2], mid[3]));
            }
        } else if !t.is_empty()
            && !line.starts_with(' ')
            && !t.starts_with("Benchmarking")
            && !t.contains("outlier")
        {
            name = t.trim_end_matches(':').to_string();
            if let Some((n, _)) = t.split_once("  ") {
                name = n.to_string();
            }
        }
    }
    build()?;
    run(cmd("cargo")
        .args([
            "test",
            "-p",
            "plan3d-e2e",
            "--test",
            "bench",
            "--locked",
            "--",
            "--nocapture",
        ])
        .env("PLAN3D_CHROMIUM", CHROMIUM))?;
    let browser = fs::read_to_string(root().join("target/browser-bench.txt")).unwrap_or_default();
    let report = format!(
        "# plan3d benchmark report\n\n## Core (criterion, native, release)\n\n| benchmark | median |\n|---|---|\n{}\n\n## Browser (headless Chromium, release build)\n\n{}\n",
        rows.join("\n"),
        browser.lines().map(|l| format!("- {l}")).collect::<Vec<_>>().join("\n")
    );
    let path = root().join("target/bench-report.md");
    fs::write(&path, &report).map_err(|e| e.to_string())?;
    println!("\n{report}\nreport written to {}", path.display());
    Ok(())
}

fn test() -> Result {
    setup(Needs::ALL)?;
    let start = Instant::now();
    run(cmd("cargo").args(["fmt", "--all", "--", "--check"]))?;
    run(cmd("cargo").args([
        "clippy",
        "--workspace",
        "--exclude",
        "plan3d-app",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]))?;
    run(cmd("cargo").args([
        "clippy",
        "-p",
        "plan3d-app",
        "-p",
        "plan3d-js",
        "--target",
        "wasm32-unknown-unknown",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]))?;
    // Unit, integration, property, CLI and doc tests.
    run(cmd("cargo").args([
        "test",
        "--workspace",
        "--exclude",
        "plan3d-e2e",
        "--exclude",
        "plan3d-app",
        "--exclude",
        "plan3d-py",
        "--locked",
    ]))?;
    // The Python package, built, installed into a fresh environment, tested.
    python_tests()?;
    // 100 000 random inputs per core entry point: a value or an error, never
    // a panic, never a NaN or an infinity. And 100 000 random API requests
    // per entry point (evaluate, plan, run, both timelines): no plan differs
    // from a field the request fixed or exceeds a bound it set, and every
    // "no plan" says why.
    run(cmd("cargo").args([
        "test",
        "--release",
        "-p",
        "plan3d-core",
        "--test",
        "robustness",
        "--test",
        "requests",
        "--locked",
    ]))?;
    // The same numbers without std: with alloc, and with neither (the tests
    // that need the search are compiled out).
    for features in [
        &["--no-default-features"][..],
        &["--no-default-features", "--features", "alloc"],
    ] {
        run(cmd("cargo")
            .args(["test", "-p", "plan3d-core", "--locked"])
            .args(features))?;
    }
    // Without std: with neither alloc nor serde, with alloc (the search
    // needs it), and with serde (the api's derives and the exports).
    for features in [
        &["--no-default-features"][..],
        &["--no-default-features", "--features", "alloc"],
        &["--no-default-features", "--features", "serde"],
    ] {
        run(cmd("cargo")
            .args([
                "build",
                "-p",
                "plan3d-core",
                "--target",
                "thumbv7m-none-eabi",
                "--locked",
            ])
            .args(features))?;
    }
    run(cmd("cargo")
        .args(["doc", "-p", "plan3d-core", "--no-deps", "--locked"])
        .env("RUSTDOCFLAGS", "-D warnings"))?;
    // The app's components in headless Chromium (wasm-bindgen-test).
    run(cmd("cargo")
        .args([
            "test",
            "-p",
            "plan3d-app",
            "--target",
            "wasm32-unknown-unknown",
            "--locked",
        ])
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
            "wasm-bindgen-test-runner",
        )
        .env("CHROMEDRIVER", CHROMEDRIVER)
        .env("WASM_BINDGEN_TEST_TIMEOUT", "180"))?;
    build()?;
    run(cmd("cargo")
        .args([
            "test",
            "-p",
            "plan3d-e2e",
            "--locked",
            "--",
            "--test-threads=1",
            // The browser benchmark prints its figures into the CI log.
            "--nocapture",
        ])
        .env("PLAN3D_CHROMIUM", CHROMIUM))?;
    // A short run of every fuzz target on its kept corpus; what it finds
    // goes to a scratch folder, so that a test run leaves the tree as it was.
    fuzz(15, None, false)?;
    println!(
        "all checks passed in {:.0} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
