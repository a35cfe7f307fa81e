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
    /// The profile's report, the GPU preset it was read against, and
    /// whether the profile timed collectives.
    Report(Value, String, bool),
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
    to_json(api::check_profile(&a.hw.request(), &profile))
        .map(|v| Calibrated::Report(v, a.hw.gpu.clone(), !profile.collectives.is_empty()))
}

/// The check as a table: each fitted quantity, this GPU's beside the
/// preset's, and the ratio (the JSON's `[profile, preset]` pairs).
pub(crate) fn report_text(v: &Value, gpu: &str, collectives: bool) -> String {
    let mut s = format!(
        "Profile of {} ({} SMs), read against the {gpu} preset\n\n",
        v["device"].as_str().unwrap_or("an unnamed device"),
        v["sms"].as_f64().unwrap_or(0.0)
    );
    let rows = [
        ("ceiling_bf16", "BF16 GEMMs' ceiling, of the BF16 peak"),
        ("ceiling_fp8", "FP8 GEMMs' ceiling, of the FP8 peak"),
        ("attention_forward", "attention forward, of the BF16 peak"),
        ("attention_backward", "attention backward, of the BF16 peak"),
        ("memory", "memory-bound kernels, of the bandwidth"),
        ("bus_efficiency", "NVLink bus efficiency"),
        ("network_efficiency", "network bus efficiency"),
    ];
    let w = rows.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
    s += &format!(
        "{:w$}  {:>9}  {:>9}  {:>6}\n",
        "", "this GPU", "preset", "ratio"
    );
    for (key, label) in rows {
        let (Some(mine), Some(preset)) = (v[key][0].as_f64(), v[key][1].as_f64()) else {
            continue;
        };
        s += &format!(
            "{label:w$}  {:>8.1}%  {:>8.1}%  {:>6.2}\n",
            100.0 * mine,
            100.0 * preset,
            mine / preset
        );
    }
    if !collectives {
        s += "(no collective was timed: the bus efficiencies are the preset's; run the script \
              under torchrun to time them)\n";
    }
    s + "\nGive it to evaluate, plan or run with --profile FILE; they say the preset's figures beside."
}
