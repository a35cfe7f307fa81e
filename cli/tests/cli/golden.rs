//! The CLI's `--json` output, byte for byte, against files captured before
//! the output came from core's report types (`tests/golden/`, made with
//! the hand-written mapping of commit 195dc20): the JSON is a public
//! interface and may only grow.
//!
//! A deliberate extension updates the files: run with
//! `PLAN3D_BLESS=1 cargo test -p plan3d-cli golden` and review the diff.

use std::fs;
use std::path::Path;

use super::plan3d;

#[test]
fn json_output_matches_the_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let list = fs::read_to_string(dir.join("commands.txt")).expect("commands.txt");
    let bless = std::env::var_os("PLAN3D_BLESS").is_some();
    let mut checked = 0;
    let mut differ = Vec::new();
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (name, args) = line.split_once(':').expect("NAME: args");
        let mut argv: Vec<&str> = args.split_whitespace().collect();
        argv.push("--json");
        let out = plan3d(&argv);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = dir.join(format!("{name}.json"));
        let now = String::from_utf8(out.stdout).expect("UTF-8");
        if bless {
            fs::write(&path, &now).expect("write golden file");
        }
        let then = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        if now != then {
            differ.push(name.to_string());
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} golden commands");
    assert!(differ.is_empty(), "output changed for {differ:?}");
}
