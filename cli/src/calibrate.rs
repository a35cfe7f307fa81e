//! `plan3d calibrate`: measure your own GPU (the shipped script, run with
//! your Python and PyTorch), or check a profile and say what it sets.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;
use plan3d_core::api;
use serde_json::Value;

use crate::args::{read_profile, HardwareArgs};
use crate::output::to_json;

/// The measuring script, as shipped (`calibration/calibrate.py`).
pub(crate) const SCRIPT: &str = include_str!("../../calibration/calibrate.py");

/// `plan3d calibrate`'s flags.
#[derive(Args)]
pub(crate) struct CalibrateArgs {
    /// Check this profile against the GPU (--gpu) and say what it sets
    #[arg(long, value_name = "FILE", conflicts_with_all = ["run", "script"])]
    check: Option<PathBuf>,
    /// Run the measuring script here (about five minutes on one GPU;
    /// under torchrun it times NCCL's collectives too), then check what
    /// it wrote
    #[arg(long)]
    run: bool,
    /// With --run: where to write the profile
    #[arg(long, value_name = "FILE", default_value = "plan3d-profile.json")]
    out: PathBuf,
    /// With --run: fewer shapes (about a minute)
    #[arg(long)]
    quick: bool,
    /// With --run: the Python that has PyTorch
    #[arg(long, default_value = "python3")]
    python: String,
    /// With --run: measure on the CPU (only checks the script: its numbers
    /// describe no GPU)
    #[arg(long)]
    cpu: bool,
    /// Print the measuring script (to copy to the GPU machine)
    #[arg(long)]
    script: bool,
    #[command(flatten)]
    hw: HardwareArgs,
}

/// What `plan3d calibrate` does: the script's text, or a profile's check.
pub(crate) enum Calibrated {
    /// The script, to print as it is.
    Script,
    /// The profile's report.
    Report(Value),
}

/// Runs `plan3d calibrate`.
pub(crate) fn calibrate_cmd(a: &CalibrateArgs) -> Result<Calibrated, String> {
    if a.script {
        return Ok(Calibrated::Script);
    }
    let path = match (&a.check, a.run) {
        (Some(p), _) => p.clone(),
        (None, true) => {
            run_script(a)?;
            a.out.clone()
        }
        (None, false) => {
            return Err(
                "say what to do: --run (measure this machine's GPU), --check FILE (check a \
                 profile) or --script (print the measuring script)"
                    .into(),
            )
        }
    };
    check(&path, a)
}

/// The shipped script, written beside the profile and run.
fn run_script(a: &CalibrateArgs) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("plan3d-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let script = dir.join("calibrate.py");
    std::fs::write(&script, SCRIPT)
        .map_err(|e| format!("cannot write {}: {e}", script.display()))?;
    let mut c = Command::new(&a.python);
    c.arg(&script).arg("--out").arg(&a.out);
    if a.quick {
        c.arg("--quick");
    }
    if a.cpu {
        c.args(["--device", "cpu"]);
    }
    let status = c.status().map_err(|e| {
        format!(
            "cannot run {}: {e} (give --python, the Python with PyTorch)",
            a.python
        )
    })?;
    let _ = std::fs::remove_dir_all(&dir);
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "the measuring script failed ({status}): see its message above"
        ))
    }
}

fn check(path: &Path, a: &CalibrateArgs) -> Result<Calibrated, String> {
    let profile = read_profile(path)?;
    to_json(api::check_profile(&a.hw.request(), &profile)).map(Calibrated::Report)
}
