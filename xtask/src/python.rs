//! The Python side: the tools' virtual environment (maturin, pytest) and
//! the package's tests against the CLI.

#[allow(clippy::wildcard_imports)]
use crate::*;

/// The Python whose PyTorch the calibration test uses.
pub(crate) const SYSTEM_PYTHON: &str = "/usr/bin/python3";

/// The virtual environment that holds maturin and pytest, outside the
/// clone so that a fresh clone on the same machine finds them.
pub(crate) fn tools_venv() -> PathBuf {
    let home = env::var_os("HOME").map_or_else(|| root().join("target"), PathBuf::from);
    home.join(".cache/plan3d/py-tools")
}

/// maturin and pytest at pinned versions, in [`tools_venv`], unless there.
pub(crate) fn python_tools() -> Result {
    let venv = tools_venv();
    let bin = venv.join("bin");
    let have = |tool: &str, version: &str| {
        Command::new(bin.join(tool))
            .arg("--version")
            .output()
            .ok()
            .is_some_and(|o| {
                let text = String::from_utf8_lossy(&o.stdout).into_owned()
                    + &String::from_utf8_lossy(&o.stderr);
                text.split_whitespace()
                    .any(|w| w.trim_end_matches(',') == version)
            })
    };
    if have("maturin", MATURIN_VERSION) && have("pytest", PYTEST_VERSION) {
        println!("ok: maturin {MATURIN_VERSION}, pytest {PYTEST_VERSION}");
        return Ok(());
    }
    if !bin.join("pip").exists() {
        run(cmd("python3").arg("-m").arg("venv").arg(&venv))?;
    }
    run(cmd(&bin.join("pip").to_string_lossy()).args([
        "install",
        "--quiet",
        &format!("maturin=={MATURIN_VERSION}"),
        &format!("pytest=={PYTEST_VERSION}"),
    ]))
}

/// The Python package: the wheel built by maturin, installed into a fresh
/// virtual environment (`target/py-venv`) with pytest, and its tests run
/// against the CLI built with the same profile.
pub(crate) fn python_tests() -> Result {
    let tools = tools_venv().join("bin");
    let wheels = root().join("target/wheels");
    let _ = fs::remove_dir_all(&wheels);
    run(cmd(&tools.join("maturin").to_string_lossy()).args([
        "build",
        "--profile",
        "py",
        "--locked",
        "-m",
        "py/Cargo.toml",
        "-o",
        "target/wheels",
    ]))?;
    let wheel = fs::read_dir(&wheels)
        .map_err(|e| format!("{}: {e}", wheels.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or("maturin built no wheel")?;
    run(cmd("cargo").args(["build", "--profile", "py", "-p", "plan3d-cli", "--locked"]))?;
    let venv = root().join("target/py-venv");
    let _ = fs::remove_dir_all(&venv);
    run(cmd("python3").arg("-m").arg("venv").arg(&venv))?;
    let pip = venv.join("bin/pip");
    run(cmd(&pip.to_string_lossy())
        .args(["install", "--quiet", &format!("pytest=={PYTEST_VERSION}")])
        .arg(&wheel))?;
    run(cmd(&venv.join("bin/python").to_string_lossy())
        .args([
            "-m",
            "pytest",
            "py/tests",
            "-q",
            "-s",
            "-p",
            "no:cacheprovider",
        ])
        .env("PLAN3D_CLI", root().join("target/py/plan3d")))
}
